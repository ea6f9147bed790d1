//! `-o -`: a computed run on standard output, as one table or as Markdown (`run` and
//! `roll` alike); a writer over the run's tables, as the folder's writer is.

use super::Format;
use crate::error::AppError;
use crate::report::table::Frame;
use crate::report::{markdown, write::WriteError};

/// The one format `-o -` writes: its one table format (`csv` or `json`; `md` beside it
/// is the default's and is left out), or Markdown for `md` alone. What it cannot write is
/// refused, not dropped: Parquet (binary), two table formats, SVG charts (no files).
/// The command line checks it before anything is loaded or computed
/// (`command::unused_together`), so that no long run is made only to be refused.
pub fn format(formats: &[Format], svg: bool) -> Result<Format, AppError> {
    if svg {
        return Err(AppError::BadOption(
            "-o - writes no files, so no charts: --charts svg has nowhere to go; give a folder with -o DIR".into(),
        ));
    }
    let tables: Vec<Format> = formats
        .iter()
        .copied()
        .filter(|f| *f != Format::Md)
        .collect();
    match tables[..] {
        [] => Ok(Format::Md),
        [Format::Parquet] => Err(AppError::BadOption(
            "-o - streams text: parquet is binary, write it to a folder (-o DIR) or choose --format csv or json".into(),
        )),
        [f] => Ok(f),
        _ => {
            let named: Vec<&str> = tables
                .iter()
                .filter_map(|f| f.exporter())
                .map(|e| e.ext())
                .collect();
            Err(AppError::BadOption(format!(
                "-o - streams one table: --format names {}; give one of them, or a folder with -o DIR for each",
                named.join(" and ")
            )))
        }
    }
}

/// `-o -` of a computed run (`run` and `roll` alike) in its [`format`]: the
/// distribution table of its `tables` or its `markdown`, the only one made for it
/// ([`super::Sink::wanted`]).
pub fn stream(
    markdown: Option<markdown::Report>,
    tables: &[(String, Frame)],
    formats: &[Format],
    svg: bool,
) -> Result<String, AppError> {
    let format = format(formats, svg)?;
    let text = match format.exporter() {
        None => markdown
            .ok_or_else(|| AppError::BadOption("the run made no Markdown report".into()))?
            .into_text(),
        Some(exporter) => {
            let distribution = tables
                .iter()
                .find(|(stem, _)| stem == "distribution")
                .map(|(_, df)| df)
                .ok_or_else(|| AppError::BadOption("the run made no distribution table".into()))?;
            let bytes = exporter
                .to_bytes(distribution)
                .map_err(|e| WriteError::Encode {
                    path: "standard output".into(),
                    message: e,
                })?;
            String::from_utf8(bytes).map_err(|e| WriteError::Encode {
                path: "standard output".into(),
                message: e.to_string(),
            })?
        }
    };
    eprintln!(
        "wrote the {} to standard output",
        match format {
            Format::Md => "Markdown report",
            Format::Json => "distribution table (JSON)",
            _ => "distribution table (CSV)",
        }
    );
    Ok(text)
}
