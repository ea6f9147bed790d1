//! A run's report folder: its tables in every format asked, a chosen roll's choices,
//! and its charts; a writer over the run's tables, as standard output's is.

use super::Format;
use crate::error::AppError;
use crate::report::table::Frame;
use crate::report::{self, plot, write::WriteError, ScenarioResult};
use rayon::prelude::*;
use rollsim_core::Cancel;
use std::path::{Path, PathBuf};

/// The charts to draw: none, or PNGs (and SVGs with `svg`).
pub fn charts(plots: bool, svg: bool, stop: &Cancel) -> Option<plot::Charts<'_>> {
    plots.then_some(plot::Charts {
        svg,
        stop: Some(stop),
        text: None,
    })
}

/// Write the `tables` ([`crate::report::frame::report_tables`]) and the charts (where
/// `charts` says) of `results` into `dir`; returns the files written. Stops between
/// files once `cancel` is cancelled.
pub fn write_reports(
    results: &[ScenarioResult],
    tables: &[(String, Frame)],
    dir: &Path,
    formats: &[Format],
    charts: Option<plot::Charts>,
    cancel: &Cancel,
) -> Result<Vec<PathBuf>, AppError> {
    std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
    let mut written = Vec::new();
    let decisions = report::decision_rows(results);
    let check = || cancel.check();
    check()?;
    // Every (format, table) file on its own core: a config of long exact chains
    // writes megabytes of fractions, and compressing them one file after another
    // left the second core idle. `written` keeps the order of the loop it replaces.
    let files: Vec<_> = formats
        .iter()
        .filter_map(|f| f.exporter())
        .flat_map(|exporter| tables.iter().map(move |(stem, df)| (exporter, stem, df)))
        .collect();
    let tables_written: Result<Vec<PathBuf>, AppError> = files
        .par_iter()
        .map(|(exporter, stem, df)| {
            // Checked before every file: a large table takes a while to write.
            check()?;
            let p = dir.join(format!("{stem}.{}", exporter.ext()));
            exporter.write(df, &p)?;
            Ok(p)
        })
        .collect();
    written.extend(tables_written?);
    // A scenario that chooses (`reroll ... to maximise`): its choices beside its charts.
    for r in results {
        if let Some(policy) = &r.policy {
            check()?;
            let sub = dir.join(&r.name);
            std::fs::create_dir_all(&sub).map_err(|e| WriteError::io(&sub, e))?;
            let p = sub.join("choice.md");
            let text = format!(
                "# {}: the choice\n\n{}\n\nWhich dice each roll keeps; the rest are rerolled.\n\n{policy}",
                r.name, r.description
            );
            std::fs::write(&p, text).map_err(|e| WriteError::io(&p, e))?;
            written.push(p);
        }
    }
    if let Some(kinds) = charts {
        check()?;
        // Checked before each scenario's charts, so a stop waits for one chart at most
        // per core, not for the whole batch.
        let charts: Result<Vec<Vec<PathBuf>>, AppError> = results
            .par_iter()
            .map(|r| {
                check()?;
                Ok(plot::scenario::scenario_charts(r, dir, kinds)?)
            })
            .collect();
        written.extend(charts?.into_iter().flatten());
        let charts: Result<Vec<Vec<PathBuf>>, AppError> = report::profiles(results)
            .par_iter()
            .map(|(name, members)| {
                check()?;
                Ok(plot::profile::draw(name, members, dir, kinds)?)
            })
            .collect();
        written.extend(charts?.into_iter().flatten());
        for (name, members) in report::groups(results) {
            let Some(g) = members[0].group.as_ref().filter(|g| g.choice) else {
                continue;
            };
            check()?;
            let rows: Vec<&report::DecisionRow> =
                decisions.iter().filter(|r| r.decision == name).collect();
            written.extend(plot::decision::draw(
                &name,
                &g.label,
                members[0].seed,
                &rows,
                dir,
                kinds,
            )?);
        }
    }
    Ok(written)
}

/// The one line a run ends with: how many tables and charts, and where.
pub fn wrote_line(written: &[PathBuf], dir: &Path) -> String {
    let charts = written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "png" || e == "svg"))
        .count();
    let tables = written.len() - charts;
    format!(
        "wrote {} and {} to {}",
        crate::text::plural(tables as u64, "table", "tables"),
        crate::text::plural(charts as u64, "chart", "charts"),
        dir.display()
    )
}
