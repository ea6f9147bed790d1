//! JSON exporter: the tables as arrays of row objects (polars' row-oriented JSON).

use super::export::Exporter;
use polars_core::prelude::*;
use polars_io::prelude::*;

#[derive(Clone, Copy, Debug)]
pub struct Json;

impl Exporter for Json {
    fn ext(&self) -> &'static str {
        "json"
    }

    fn export(&self, df: &mut DataFrame, out: &mut dyn std::io::Write) -> Result<(), String> {
        JsonWriter::new(out)
            .with_json_format(JsonFormat::Json)
            .finish(df)
            .map_err(|e| e.to_string())
    }
}
