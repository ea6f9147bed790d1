//! CSV exporter: `distribution.csv`, `summary.csv` and every balance table.

use super::export::Exporter;
use super::table::Frame;
use super::write::WriteError;
use polars::prelude::*;
use std::path::Path;

/// A text cell a spreadsheet would run as a formula (`=1+2`, `+A1`, `-2+3`, `@SUM`) gets
/// a leading `'`, as OWASP advises; names are already checked at load, this also covers
/// labels made from command-line input. A number is left alone: the values of a numeric
/// metric (`-3` of `2d6 - 7`) are labels in a text column, and `'-3` would be text that
/// no sum, sort or chart of the sheet reads as the number it is.
fn defuse(s: &str) -> String {
    if is_number(s) {
        return s.to_string();
    }
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{s}"),
        _ => s.to_string(),
    }
}

/// A plain number and nothing more: a decimal (`-3`, `-0.5`, `+2`, `-1e-3`: digits, a
/// sign, a point, an exponent) or an exact fraction (`-1/2`, a mean below zero). `-inf`
/// and `-nan` parse as floats, but a spreadsheet reads them as names in a formula, so
/// they stay text.
fn is_number(s: &str) -> bool {
    let decimal = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
            && s.parse::<f64>().is_ok()
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let fraction = |s: &str| {
        let s = s.strip_prefix('-').unwrap_or(s);
        s.split_once('/')
            .is_some_and(|(n, d)| digits(n) && digits(d))
    };
    decimal(s) || fraction(s)
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

/// The table as CSV text, by polars' writer: a header row, then a row per record; an
/// empty cell is empty, an empty text `""`, a float its shortest text that reads back as
/// the same float (`0.5`, `1.0`, `4.2e-6`).
fn encode(df: &Frame) -> PolarsResult<Vec<u8>> {
    let mut out = header(df.df());
    CsvWriter::new(&mut out)
        .include_header(false)
        .finish(&mut safe(df.df())?)?;
    Ok(out)
}

/// The header row as polars' writer writes it (a name quoted where it is empty or holds
/// a comma, a quote or a line break, its quotes doubled). Written here because polars' own header
/// makes a null array, whose first use zeroes 8 MiB of memory once a process: two
/// thousand page faults, 4 ms of a 5 ms command writing a small table.
fn header(df: &DataFrame) -> Vec<u8> {
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|n| {
            let n = n.as_str();
            if n.is_empty() || n.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", n.replace('"', "\"\""))
            } else {
                n.to_string()
            }
        })
        .collect();
    format!("{}\n", names.join(",")).into_bytes()
}

/// CSV with a header row, text cells defused.
#[derive(Clone, Copy, Debug)]
pub struct Csv;

impl Exporter for Csv {
    fn ext(&self) -> &'static str {
        "csv"
    }

    fn export(&self, df: &Frame, out: &mut dyn std::io::Write) -> Result<(), String> {
        let bytes = encode(df).map_err(|e| e.to_string())?;
        out.write_all(&bytes).map_err(|e| e.to_string())
    }
}

/// The balance commands' tables are CSV: `Csv.write`, shorter at their call sites.
pub fn write(df: &Frame, path: &Path) -> Result<(), WriteError> {
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
        // Formulas that start like numbers are still formulas.
        assert_eq!(defuse("-2+3"), "'-2+3");
        assert_eq!(defuse("-1e5+A1"), "'-1e5+A1");
        assert_eq!(defuse("-inf"), "'-inf");
        assert_eq!(defuse("-"), "'-");
        assert_eq!(defuse("+"), "'+");
        assert_eq!(defuse("-1/A1"), "'-1/A1");
        assert_eq!(defuse("-1/2/3"), "'-1/2/3");
        assert_eq!(defuse("-/2"), "'-/2");
    }

    #[test]
    fn cells_are_quoted_where_they_would_split_and_empty_text_differs_from_no_cell() {
        let df = crate::report::table::frame!(
            "name, quoted" => vec![Some("a,b".to_string()), Some(String::new()), None, Some("say \"hi\"".into()), Some("two\nlines".into())],
            "n" => vec![Some(1u64), None, Some(3), Some(4), Some(5)],
            "x" => vec![0.5, 1.0, 4.186840315812751e-6, -0.0, 0.1 + 0.2],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(encode(&df).unwrap()).unwrap(),
            "\"name, quoted\",n,x\n\"a,b\",1,0.5\n\"\",,1.0\n,3,4.186840315812751e-6\n\"say \"\"hi\"\"\",4,-0.0\n\"two\nlines\",5,0.30000000000000004\n"
        );
    }

    /// The header written here is polars' own, name for name: plain, with a comma, a
    /// quote, a line break, a space, non-ASCII.
    #[test]
    fn the_header_is_the_one_polars_writes() {
        for name in [
            "p",
            "a,b",
            "say \"hi\"",
            "two\nlines",
            "cr\rhere",
            "x y",
            "värde",
            "",
        ] {
            let mut df = DataFrame::new(1, vec![Column::new(name.into(), [1i64])]).unwrap();
            let mut theirs = Vec::new();
            CsvWriter::new(&mut theirs)
                .include_header(true)
                .finish(&mut df)
                .unwrap();
            let ours = header(&df);
            assert!(
                theirs.starts_with(&ours),
                "{name:?}: {:?}",
                String::from_utf8_lossy(&theirs)
            );
            assert_eq!(&theirs[ours.len()..], b"1\n", "{name:?}");
        }
    }

    #[test]
    fn numbers_stay_numbers() {
        for n in [
            "-3",
            "-0.5",
            "+2",
            "-1e-3",
            "-12E+2",
            "0",
            "17",
            "-1/2",
            "1155/4096",
        ] {
            assert_eq!(defuse(n), n);
        }
    }
}
