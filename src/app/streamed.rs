//! `-o -`: a computed run on standard output, as one table or as Markdown (`run` and
//! `roll` alike); a writer over the run's tables, as the folder's writer is.

use super::{Format, RunOutput};
use crate::error::AppError;
use crate::report::table::Frame;
use crate::report::{self, markdown, write::WriteError};

/// What `run` prints as Markdown: every scenario's tables, one compact table per
/// profile and per decision.
pub fn markdown_report(out: &RunOutput) -> String {
    let title = if out.title.is_empty() {
        String::new()
    } else {
        format!("## {}\n\n", out.title)
    };
    title
        + &markdown::full(&out.results)
        + &markdown::profile_tables(&out.results)
        + &markdown::decisions(&report::decision_rows(&out.results))
}

/// `-o -` of a computed run (`run` and `roll` alike): the distribution table of its
/// `tables` ([`crate::report::frame::report_tables`]) in the first table format of
/// `formats`, or the Markdown report for `md` alone.
pub fn stream(
    out: &RunOutput,
    tables: &[(String, Frame)],
    formats: &[Format],
) -> Result<String, AppError> {
    let format = formats
        .iter()
        .copied()
        .find(|f| *f != Format::Md)
        .unwrap_or(Format::Md);
    let text = match (format, format.exporter()) {
        (Format::Parquet, _) => {
            return Err(AppError::BadOption(
                "-o - streams text: parquet is binary, write it to a folder (-o DIR) or choose --format csv or json".into(),
            ))
        }
        (_, None) => markdown_report(out),
        (_, Some(exporter)) => {
            // Only the distribution table streams, straight from the exporter.
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
