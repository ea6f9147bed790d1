//! Parquet exporter: the same tables as the CSV, typed and compressed.

use super::export::Exporter;
use polars_core::prelude::*;
use polars_io::prelude::*;

#[derive(Clone, Copy, Debug)]
pub struct Parquet;

impl Exporter for Parquet {
    fn ext(&self) -> &'static str {
        "parquet"
    }

    fn export(&self, df: &mut DataFrame, out: &mut dyn std::io::Write) -> Result<(), String> {
        ParquetWriter::new(out)
            .finish(df)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}
