//! CSV exporter: `distribution.csv`, `summary.csv` and every balance table.

use super::export::Exporter;
use super::write::WriteError;
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

/// CSV with a header row, text cells defused.
#[derive(Clone, Copy, Debug)]
pub struct Csv;

impl Exporter for Csv {
    fn ext(&self) -> &'static str {
        "csv"
    }

    fn export(&self, df: &mut DataFrame, out: &mut dyn std::io::Write) -> Result<(), String> {
        let mut df = safe(df).map_err(|e| e.to_string())?;
        CsvWriter::new(out)
            .include_header(true)
            .finish(&mut df)
            .map_err(|e| e.to_string())
    }
}

/// The balance commands' tables are CSV: `Csv.write`, shorter at their call sites.
pub fn write(df: &mut DataFrame, path: &Path) -> Result<(), WriteError> {
    Csv.write(df, path)
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
