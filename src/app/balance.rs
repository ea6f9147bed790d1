//! The balance commands as the binary runs them: `balance` computes, this writes the
//! tables and charts through `report` and returns the Markdown for stdout.

use super::AppError;
use crate::balance::compare::{self, CompareOptions};
use crate::balance::equalize::{self, EqualizeOptions};
use crate::balance::overlay::{self, OverlayOptions};
use crate::balance::sweep::{self, SweepOptions};
use crate::balance::{out_dir, sensitivity, Options};
use crate::engine;
use crate::report::analysis::how;
use crate::report::{csv, frame, markdown, plot, write::WriteError};
use std::path::{Path, PathBuf};

/// "wrote a, b" for a command's stdout.
pub fn wrote(files: &[PathBuf]) -> String {
    format!(
        "wrote {}\n",
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn mkdir(dir: &Path) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
    Ok(())
}

/// Write a matrix's `STEM.csv` (long), `STEM-wide.csv` and `STEM.png` into `dir`.
pub fn write_matrix(
    m: &crate::report::analysis::Matrix,
    dir: &Path,
    plots: bool,
) -> Result<Vec<PathBuf>, AppError> {
    mkdir(dir)?;
    let stem = m.stem();
    let mut out = Vec::new();
    let long = dir.join(format!("{stem}.csv"));
    csv::write(&mut frame::matrix_long(m)?, &long)?;
    out.push(long);
    let wide = dir.join(format!("{stem}-wide.csv"));
    csv::write(&mut frame::matrix_wide(m)?, &wide)?;
    out.push(wide);
    if plots {
        let png = dir.join(format!("{stem}.png"));
        plot::heatmap::matrix(m, &png)?;
        out.push(png);
    }
    Ok(out)
}

/// `rollsim compare`.
pub fn compare(o: &CompareOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare()?;
    let ms = p.pool.install(|| {
        compare::matrices(
            &p.source,
            &p.target,
            (&o.attackers, &o.defenders),
            &p.pick,
            p.seed,
            p.trials,
            o.best_response,
        )
    })?;
    let dir = out_dir(&p.source, &c.out, "compare");
    let mut md = String::new();
    let mut files = Vec::new();
    for m in &ms {
        md.push_str(&markdown::matrix(m));
        files.extend(write_matrix(m, &dir, c.plots)?);
    }
    Ok(md + &wrote(&files))
}

/// `rollsim sweep`.
pub fn sweep(o: &SweepOptions) -> Result<String, AppError> {
    let c = &o.common;
    if o.vary.is_empty() || o.vary.len() > 2 {
        return Err(AppError::BadOption(
            "--vary: give one or two keys, e.g. --vary attacker.strength=2..6".into(),
        ));
    }
    let p = c.prepare()?;
    let keys = o
        .vary
        .iter()
        .map(|v| sweep::parse(&p.source, &p.target.table, v))
        .collect::<Result<Vec<_>, _>>()?;
    if keys.len() == 2 && keys[0].key == keys[1].key {
        return Err(AppError::BadOption(format!(
            "--vary {}: the same key twice; give two different keys",
            keys[0].key
        )));
    }
    let s = p
        .pool
        .install(|| sweep::sweep(&p.source, &p.target, keys, &p.pick, p.seed, p.trials))?;
    let dir = out_dir(&p.source, &c.out, "sweep");
    mkdir(&dir)?;
    let stem = format!(
        "sweep-{}-{}",
        s.scenario,
        s.keys
            .iter()
            .map(|k| k.key.replace('.', "_"))
            .collect::<Vec<_>>()
            .join("-")
    );
    let csv_path = dir.join(format!("{stem}.csv"));
    csv::write(&mut frame::sweep(&s)?, &csv_path)?;
    let mut files = vec![csv_path];
    if c.plots {
        files.extend(plot::sweep::draw(
            &s,
            &how(s.trials, s.seed, "per point"),
            &dir,
            &stem,
        )?);
    }
    Ok(markdown::sweep(&s) + &wrote(&files))
}

/// `rollsim sensitivity`.
pub fn sensitivity(o: &Options) -> Result<String, AppError> {
    let p = o.prepare()?;
    let r = p
        .pool
        .install(|| sensitivity::rows(&p.source, &p.target, &p.pick, p.seed, p.trials))?;
    let dir = out_dir(&p.source, &o.out, "sensitivity");
    mkdir(&dir)?;
    let csv_path = dir.join(format!("sensitivity-{}.csv", p.target.name));
    csv::write(&mut frame::sensitivity(&r.rows)?, &csv_path)?;
    let mut files = vec![csv_path];
    if o.plots {
        let method = how(p.trials, p.seed, "each");
        let mut labels: Vec<&str> = Vec::new();
        for row in &r.rows {
            if !labels.contains(&row.scenario.as_str()) {
                labels.push(&row.scenario);
            }
        }
        for member in labels {
            let mine: Vec<_> = r.rows.iter().filter(|x| x.scenario == member).collect();
            let Some(first) = mine.first() else { continue };
            let quantity = first.quantity.clone();
            let bars: Vec<(String, f64)> = mine
                .iter()
                .filter(|x| x.quantity == quantity)
                .map(|x| (x.change.clone(), x.delta))
                .collect();
            // A decision's label is "NAME (best choice)": its file is NAME's.
            let stem = member.split(' ').next().unwrap_or(member);
            let png = dir.join(format!("sensitivity-{stem}.png"));
            let unit = if first.probability {
                "percentage points"
            } else {
                "change in the mean"
            };
            plot::sensitivity::draw(
                &format!("{}: what one step is worth", plot::words(member)),
                &format!(
                    "change in {quantity} for each side's +1 die or one better stat step ({method})"
                ),
                &format!("change in {quantity} ({unit})"),
                &bars,
                first.probability,
                &png,
            )?;
            files.push(png);
        }
    }
    Ok(markdown::sensitivity(&r.rows, &r.refused) + &wrote(&files))
}

/// `rollsim equalize`.
pub fn equalize(o: &EqualizeOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare()?;
    let all = p.pool.install(|| {
        equalize::equalize(
            &p.source, &p.target, &p.pick, o.target, o.pairs, p.seed, p.trials,
        )
    })?;
    let dir = out_dir(&p.source, &c.out, "equalize");
    mkdir(&dir)?;
    let path = dir.join(format!("equalize-{}.csv", p.target.name));
    csv::write(&mut frame::equalize(&all)?, &path)?;
    Ok(markdown::equalize(&all) + &wrote(&[path]))
}

/// `rollsim overlay`.
pub fn overlay(o: &OverlayOptions) -> Result<String, AppError> {
    if o.entries.len() < 2 {
        return Err(AppError::BadOption(
            "give two or more CONFIG:SCENARIO entries to set side by side".into(),
        ));
    }
    let entries = o
        .entries
        .iter()
        .map(|e| overlay::parse_entry(e))
        .collect::<Result<Vec<_>, _>>()?;
    let pool = engine::thread_pool(o.threads)?;
    let (metric, rows) =
        pool.install(|| overlay::results(&entries, o.metric.as_deref(), o.seed, o.trials))?;
    let dir = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join("overlay"));
    mkdir(&dir)?;
    // The union of values, in order of first appearance.
    let mut values: Vec<String> = Vec::new();
    for (_, m, _) in &rows {
        for r in &m.rows {
            if !values.contains(&r.label) {
                values.push(r.label.clone());
            }
        }
    }
    let path = dir.join(format!("overlay-{metric}.csv"));
    csv::write(&mut frame::overlay(&rows, &values)?, &path)?;
    let mut files = vec![path];
    if o.plots {
        let png = dir.join(format!("overlay-{metric}.png"));
        plot::overlay::draw(&metric, &rows, &values, &png)?;
        files.push(png);
    }
    Ok(markdown::overlay(&metric, &rows, &values) + &wrote(&files))
}
