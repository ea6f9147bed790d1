//! Parquet exporter: the same tables as the CSV, typed (text, integers, floats, each
//! column nullable) and compressed, by polars' own writer.

use super::export::Exporter;
use super::table::Frame;
use polars::prelude::*;

#[derive(Clone, Copy, Debug)]
pub struct Parquet;

impl Exporter for Parquet {
    fn ext(&self) -> &'static str {
        "parquet"
    }

    fn export(&self, df: &Frame, out: &mut dyn std::io::Write) -> Result<(), String> {
        let bytes = encode(df).map_err(|e| e.to_string())?;
        out.write_all(&bytes).map_err(|e| e.to_string())
    }
}

/// The table as Parquet bytes. The writer wants a sink it owns; the table is small, so
/// it is encoded in memory and copied out.
fn encode(df: &Frame) -> PolarsResult<Vec<u8>> {
    let mut out = Vec::new();
    ParquetWriter::new(&mut out).finish(&mut df.df().clone())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` as polars reads them back.
    fn read(bytes: Vec<u8>) -> DataFrame {
        ParquetReader::new(std::io::Cursor::new(bytes))
            .finish()
            .unwrap()
    }

    #[test]
    fn typed_nullable_columns_read_back_as_written() {
        let df = crate::report::table::frame!(
            "name" => vec![Some("a".to_string()), None],
            "seed" => vec![Some(u64::MAX), Some(7)],
            "delta" => vec![None, Some(-3i64)],
            "p" => vec![0.125, 0.5],
        )
        .unwrap();
        let back = read(encode(&df).unwrap());
        assert_eq!(&back, df.df());
        let dtypes: Vec<DataType> = back.dtypes();
        assert_eq!(
            dtypes,
            [
                DataType::String,
                DataType::UInt64,
                DataType::Int64,
                DataType::Float64
            ]
        );
        assert_eq!(
            back.column("seed").unwrap().u64().unwrap().get(0),
            Some(u64::MAX)
        );
        assert_eq!(back.column("name").unwrap().str().unwrap().get(1), None);
        let empty = crate::report::table::frame!("a" => Vec::<f64>::new()).unwrap();
        let back = read(encode(&empty).unwrap());
        assert_eq!((back.height(), back.width()), (0, 1));
    }
}
