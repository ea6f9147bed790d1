//! JSON exporter: the tables as arrays of row objects (polars' row-oriented JSON).

use super::write::{atomic, WriteError};
use polars_core::prelude::*;
use polars_io::prelude::*;
use std::path::Path;

pub fn write(df: &mut DataFrame, path: &Path) -> Result<(), WriteError> {
    atomic(path, |w| {
        JsonWriter::new(w)
            .with_json_format(JsonFormat::Json)
            .finish(df)
            .map_err(|e| WriteError::encode(path, e))
    })
}
