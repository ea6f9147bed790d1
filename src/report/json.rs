//! JSON exporter: the tables as arrays of row objects (polars' row-oriented JSON).

use super::export::Exporter;
use super::table::Frame;
use polars::prelude::*;

#[derive(Clone, Copy, Debug)]
pub struct Json;

impl Exporter for Json {
    fn ext(&self) -> &'static str {
        "json"
    }

    fn export(&self, df: &Frame, out: &mut dyn std::io::Write) -> Result<(), String> {
        let bytes = encode(df).map_err(|e| e.to_string())?;
        out.write_all(&bytes).map_err(|e| e.to_string())
    }
}

/// The table as a JSON array of row objects by polars' writer, keys in column order:
/// `[{"scenario":"x","count":12,"exact":null},...]`; a float that is not finite is
/// `null`, as JSON has no text for it.
fn encode(df: &Frame) -> PolarsResult<Vec<u8>> {
    let mut out = Vec::new();
    JsonWriter::new(&mut out)
        .with_json_format(JsonFormat::Json)
        .finish(&mut df.df().clone())?;
    Ok(out)
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
            String::from_utf8(encode(&df).unwrap()).unwrap(),
            r#"[{"value":"10","count":null,"exact":0.125,"delta":-2},{"value":"a \"b\"\n","count":7,"exact":null,"delta":3}]"#
        );
        let empty = crate::report::table::frame!("a" => Vec::<f64>::new()).unwrap();
        assert_eq!(encode(&empty).unwrap(), b"[]");
    }
}
