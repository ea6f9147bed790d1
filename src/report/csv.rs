//! CSV exporter: `distribution.csv`, `summary.csv` and every balance table.

use super::write::{atomic, WriteError};
use polars_core::prelude::*;
use polars_io::prelude::*;
use std::path::Path;

/// A text cell a spreadsheet would run as a formula (`=1+2`, `+A1`, `-2+3`, `@SUM`) gets
/// a leading `'`, as OWASP advises; names are already checked at load, this also covers
/// labels made from command-line input.
fn defuse(s: &str) -> String {
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{s}"),
        _ => s.to_string(),
    }
}

/// The frame with its text columns defused.
fn safe(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut cols = Vec::with_capacity(df.width());
    for c in df.columns() {
        if c.dtype() == &DataType::String {
            let v: Vec<Option<String>> = c.str()?.iter().map(|o| o.map(defuse)).collect();
            cols.push(Column::new(c.name().clone(), v));
        } else {
            cols.push(c.clone());
        }
    }
    DataFrame::new(df.height(), cols)
}

pub fn write(df: &mut DataFrame, path: &Path) -> Result<(), WriteError> {
    let mut df = safe(df).map_err(|e| WriteError::encode(path, e))?;
    atomic(path, |w| {
        CsvWriter::new(w)
            .include_header(true)
            .finish(&mut df)
            .map_err(|e| WriteError::encode(path, e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_defused() {
        assert_eq!(defuse("=1+2"), "'=1+2");
        assert_eq!(defuse("-cmd"), "'-cmd");
        assert_eq!(defuse("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(defuse("slam"), "slam");
    }
}
