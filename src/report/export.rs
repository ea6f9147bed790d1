//! The one exporter trait: a table format writes a table to any `Write` (a file, a
//! buffer that becomes standard output), and into a file atomically. One file per format
//! (`csv.rs`, `json.rs`, `parquet.rs`) implements it.

use super::table::Frame;
use super::write::{atomic, WriteError};
use std::io::Write;
use std::path::Path;

pub trait Exporter: Sync {
    /// The file extension, and the format's name in messages.
    fn ext(&self) -> &'static str;

    /// Write `df` to `out`; an error says what the encoder refused.
    fn export(&self, df: &Frame, out: &mut dyn Write) -> Result<(), String>;

    /// Write `df` into `path`, whole or not at all (a temporary file renamed into place).
    fn write(&self, df: &Frame, path: &Path) -> Result<(), WriteError> {
        atomic(path, |w| {
            self.export(df, w).map_err(|e| WriteError::encode(path, e))
        })
    }

    /// `df` as text in memory (`-o -`): no file, temporary or not.
    fn to_bytes(&self, df: &Frame) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        self.export(df, &mut out)?;
        Ok(out)
    }
}
