//! CSV exporter: `distribution.csv` and `summary.csv`.

use super::write::{atomic, WriteError};
use polars::prelude::*;
use std::path::Path;

pub fn write(df: &mut DataFrame, path: &Path) -> Result<(), WriteError> {
    atomic(path, |w| {
        CsvWriter::new(w)
            .include_header(true)
            .finish(df)
            .map_err(|e| WriteError::encode(path, e))
    })
}
