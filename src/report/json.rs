//! JSON exporter: the tables as arrays of row objects.

use super::export::Exporter;
use super::table::{Cells, Frame};

#[derive(Clone, Copy, Debug)]
pub struct Json;

impl Exporter for Json {
    fn ext(&self) -> &'static str {
        "json"
    }

    fn export(&self, df: &Frame, out: &mut dyn std::io::Write) -> Result<(), String> {
        out.write_all(&encode(df)).map_err(|e| e.to_string())
    }
}

/// The table as a JSON array of row objects, keys in column order: `[{"scenario":"x",
/// "count":12,"exact":null},...]`; a float that is not finite is `null`, as JSON has no
/// text for it.
fn encode(df: &Frame) -> Vec<u8> {
    let mut out = vec![b'['];
    let names: Vec<String> = df
        .columns()
        .iter()
        .map(|(n, _)| serde_json::to_string(n).unwrap_or_default())
        .collect();
    let mut float = zmij::Buffer::new();
    for row in 0..df.height() {
        if row > 0 {
            out.push(b',');
        }
        out.push(b'{');
        for (i, (_, cells)) in df.columns().iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(names[i].as_bytes());
            out.push(b':');
            let cell = match cells {
                Cells::Str(v) => v[row]
                    .as_deref()
                    .map(|s| serde_json::to_string(s).unwrap_or_default()),
                Cells::U64(v) => v[row].map(|n| n.to_string()),
                Cells::I64(v) => v[row].map(|n| n.to_string()),
                Cells::F64(v) => v[row]
                    .filter(|x| x.is_finite())
                    .map(|x| float.format_finite(x).to_string()),
            };
            out.extend_from_slice(cell.as_deref().unwrap_or("null").as_bytes());
        }
        out.push(b'}');
    }
    out.push(b']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_objects_in_column_order_and_no_number_is_null() {
        let df = crate::report::table::frame!(
            "value" => vec![Some("10".to_string()), Some("a \"b\"\n".into())],
            "count" => vec![None, Some(7u64)],
            "exact" => vec![Some(0.125), Some(f64::NAN)],
            "delta" => vec![-2i64, 3],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(encode(&df)).unwrap(),
            r#"[{"value":"10","count":null,"exact":0.125,"delta":-2},{"value":"a \"b\"\n","count":7,"exact":null,"delta":3}]"#
        );
        let empty = crate::report::table::frame!("a" => Vec::<f64>::new()).unwrap();
        assert_eq!(encode(&empty), b"[]");
    }
}
