//! Parquet exporter: the same tables as the CSV, typed (text, integers, floats, each
//! column nullable) and Snappy-compressed, in one row group.

use super::export::Exporter;
use super::table::{Cells, Frame};
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

#[derive(Clone, Copy, Debug)]
pub struct Parquet;

impl Exporter for Parquet {
    fn ext(&self) -> &'static str {
        "parquet"
    }

    fn export(&self, df: &Frame, out: &mut dyn std::io::Write) -> Result<(), String> {
        // The writer wants a sink it can send between threads; the table is small, so
        // it is encoded in memory and copied out.
        let bytes = encode(df).map_err(|e| e.to_string())?;
        out.write_all(&bytes).map_err(|e| e.to_string())
    }
}

/// A column's type: its physical type and the logical one readers show.
fn field(name: &str, cells: &Cells) -> Result<Arc<Type>, ParquetError> {
    let (physical, logical) = match cells {
        Cells::Str(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
        Cells::U64(_) => (Physical::INT64, Some(LogicalType::integer(64, false))),
        Cells::I64(_) => (Physical::INT64, Some(LogicalType::integer(64, true))),
        Cells::F64(_) => (Physical::DOUBLE, None),
    };
    Ok(Arc::new(
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build()?,
    ))
}

/// The definition level of each cell (1 present, 0 empty) and the present values.
fn levels<T: Clone>(cells: &[Option<T>]) -> (Vec<i16>, Vec<T>) {
    let defs = cells.iter().map(|c| c.is_some() as i16).collect();
    (defs, cells.iter().flatten().cloned().collect())
}

fn encode(df: &Frame) -> Result<Vec<u8>, ParquetError> {
    let fields = df
        .columns()
        .iter()
        .map(|(name, cells)| field(name, cells))
        .collect::<Result<Vec<_>, _>>()?;
    let schema = Arc::new(
        Type::group_type_builder("schema")
            .with_fields(fields)
            .build()?,
    );
    let props = Arc::new(
        WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by("rollsim".into())
            .build(),
    );
    let mut out = Vec::new();
    let mut writer = SerializedFileWriter::new(&mut out, schema, props)?;
    if df.height() == 0 {
        // No row group at all: some readers refuse one of no rows.
        writer.close()?;
        return Ok(out);
    }
    let mut group = writer.next_row_group()?;
    for (_, cells) in df.columns() {
        let Some(mut column) = group.next_column()? else {
            break;
        };
        match cells {
            Cells::Str(v) => {
                let (defs, values) = levels(v);
                let values: Vec<ByteArray> = values
                    .into_iter()
                    .map(|s| ByteArray::from(s.into_bytes()))
                    .collect();
                column
                    .typed::<ByteArrayType>()
                    .write_batch(&values, Some(&defs), None)?;
            }
            Cells::U64(v) => {
                let (defs, values) = levels(v);
                // Parquet's INT64 holds a u64's bits; the logical type says unsigned.
                let values: Vec<i64> = values.into_iter().map(|n| n as i64).collect();
                column
                    .typed::<Int64Type>()
                    .write_batch(&values, Some(&defs), None)?;
            }
            Cells::I64(v) => {
                let (defs, values) = levels(v);
                column
                    .typed::<Int64Type>()
                    .write_batch(&values, Some(&defs), None)?;
            }
            Cells::F64(v) => {
                let (defs, values) = levels(v);
                column
                    .typed::<DoubleType>()
                    .write_batch(&values, Some(&defs), None)?;
            }
        }
        column.close()?;
    }
    group.close()?;
    writer.close()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    /// `bytes` as a reader takes them: from a file.
    fn read(bytes: Vec<u8>) -> SerializedFileReader<std::fs::File> {
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, &bytes).unwrap();
        SerializedFileReader::new(f).unwrap()
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
        let reader = read(encode(&df).unwrap());
        assert_eq!(reader.metadata().file_metadata().num_rows(), 2);
        let rows: Vec<_> = reader
            .get_row_iter(None)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows[0].get_string(0).unwrap(), "a");
        assert!(rows[1].get_string(0).is_err(), "an empty cell stays empty");
        assert_eq!(rows[0].get_ulong(1).unwrap(), u64::MAX);
        assert_eq!(rows[1].get_long(2).unwrap(), -3);
        assert_eq!(rows[1].get_double(3).unwrap(), 0.5);
        let empty = crate::report::table::frame!("a" => Vec::<f64>::new()).unwrap();
        let reader = read(encode(&empty).unwrap());
        assert_eq!(reader.metadata().num_row_groups(), 0);
        assert_eq!(
            reader
                .metadata()
                .file_metadata()
                .schema()
                .get_fields()
                .len(),
            1
        );
    }
}
