//! Parquet exporter: the same tables as the CSV, typed and compressed.

use super::write::{atomic, WriteError};
use polars_core::prelude::*;
use polars_io::prelude::*;
use std::path::Path;

pub fn write(df: &mut DataFrame, path: &Path) -> Result<(), WriteError> {
    atomic(path, |w| {
        ParquetWriter::new(w)
            .finish(df)
            .map(|_| ())
            .map_err(|e| WriteError::encode(path, e))
    })
}
