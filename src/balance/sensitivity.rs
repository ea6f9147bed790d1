//! Sensitivity: what one step is worth. For a scenario, every side's +1 die and one
//! better step of each stat, and the change it makes to the headline probability and to
//! each numeric metric's mean ("what is +1 die worth?").

use super::{exact_value, measure, out_dir, steps, wrote, Options, Pick, Source};
use crate::app::{self, AppError};
use crate::report::{csv, plot, write::WriteError};
use polars::prelude::*;

/// One change and its effect on one quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub change: String,
    pub side: String,
    pub quantity: String,
    pub base: f64,
    pub changed: f64,
    pub delta: f64,
}

/// The rows for `scenario`: each step in each side's favour, each quantity.
pub fn rows(
    source: &Source,
    scenario: &str,
    seed: u64,
    trials: Option<u64>,
) -> Result<(String, Vec<Row>), AppError> {
    let base = source.with(&[])?.compile(scenario).ok_or_else(|| {
        AppError::BadOption(format!("no scenario `{scenario}` in {}", source.file))
    })?;
    let mut picks = vec![(base.headline.label.clone(), Pick::Headline)];
    for m in base.metrics.iter().filter(|m| m.numeric) {
        picks.push((
            format!("expected {}", m.name.replace('_', " ")),
            Pick::Mean {
                metric: m.name.clone(),
            },
        ));
    }
    let value = |c: &crate::model::Compiled, p: &Pick| -> Result<f64, AppError> {
        match (trials, exact_value(c, p)) {
            (None, Some(e)) => Ok(e),
            _ => Ok(measure(c, p, seed, trials.or(Some(app::DEFAULT_TRIALS)), true)?.estimate),
        }
    };
    let base_values: Vec<f64> = picks
        .iter()
        .map(|(_, p)| value(&base, p))
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    for step in steps(source, scenario, 1)? {
        let c = step
            .apply(source, scenario)?
            .compile(scenario)
            .expect("the scenario exists");
        for ((q, p), &b) in picks.iter().zip(&base_values) {
            let v = value(&c, p)?;
            out.push(Row {
                change: step.label.clone(),
                side: step.role.key.clone(),
                quantity: q.clone(),
                base: b,
                changed: v,
                delta: v - b,
            });
        }
    }
    Ok((base.headline.label, out))
}

pub fn markdown(scenario: &str, headline: &str, rows: &[Row]) -> String {
    let mut s = format!(
        "### {scenario}: what one step is worth\n\n| change | quantity | before | after | change |\n|---|---|---:|---:|---:|\n"
    );
    for r in rows {
        let pct = r.quantity == headline;
        let f = |v: f64| {
            if pct {
                format!("{:.2}%", v * 100.0)
            } else {
                format!("{v:.3}")
            }
        };
        let d = if pct {
            format!("{:+.2} pts", r.delta * 100.0)
        } else {
            format!("{:+.3}", r.delta)
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {d} |\n",
            r.change,
            r.quantity,
            f(r.base),
            f(r.changed)
        ));
    }
    s.push('\n');
    s
}

/// `rollsim sensitivity` (reads the headline and every numeric mean; `metric` unused).
pub fn run(o: &Options) -> Result<String, AppError> {
    let p = o.prepare()?;
    let (source, seed, trials) = (&p.source, p.seed, p.trials);
    let (headline, rows) = p.pool.install(|| rows(source, &o.scenario, seed, trials))?;
    let dir = out_dir(source, &o.out, "sensitivity");
    std::fs::create_dir_all(&dir).map_err(|e| WriteError::io(&dir, e))?;
    let mut df = df!(
        "change" => rows.iter().map(|r| r.change.clone()).collect::<Vec<_>>(),
        "side" => rows.iter().map(|r| r.side.clone()).collect::<Vec<_>>(),
        "quantity" => rows.iter().map(|r| r.quantity.clone()).collect::<Vec<_>>(),
        "before" => rows.iter().map(|r| r.base).collect::<Vec<_>>(),
        "after" => rows.iter().map(|r| r.changed).collect::<Vec<_>>(),
        "change_in_value" => rows.iter().map(|r| r.delta).collect::<Vec<_>>(),
    )?;
    let csv_path = dir.join(format!("sensitivity-{}.csv", o.scenario));
    csv::write(&mut df, &csv_path)?;
    let mut files = vec![csv_path];
    if o.plots {
        let png = dir.join(format!("sensitivity-{}.png", o.scenario));
        let bars: Vec<(String, f64)> = rows
            .iter()
            .filter(|r| r.quantity == headline)
            .map(|r| (r.change.clone(), r.delta))
            .collect();
        let how = match trials {
            Some(n) => format!(
                "Monte Carlo, {} trials each, seed {seed}",
                crate::report::markdown::thousands(n)
            ),
            None => "exact".into(),
        };
        plot::sensitivity::draw(
            &format!("{}: what one step is worth", o.scenario),
            &format!("change in {headline} for each side's +1 die or one better stat step ({how})"),
            &format!("change in {headline} (percentage points)"),
            &bars,
            &png,
        )?;
        files.push(png);
    }
    Ok(format!(
        "{}{}",
        markdown(&o.scenario, &headline, &rows),
        wrote(&files)
    ))
}
