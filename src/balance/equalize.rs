//! The equalizer: for a matchup, the smallest change to either side (dice, or a stat step)
//! that brings the headline probability (P(win)) closest to 50%.

use super::{exact_value, measure, out_dir, steps, wrote, Options, Pick, Source};
use crate::app::{self, AppError};
use crate::report::{csv, write::WriteError};
use polars::prelude::*;

/// One tried change and where it puts the headline probability.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub change: String,
    /// Steps taken (1 = one die or one stat step).
    pub size: i64,
    pub p: f64,
}

/// Every change of 1 to 3 dice or 1 to 2 stat steps, for or against each side, sorted
/// best first: closest to 50%, then smallest.
pub fn candidates(
    source: &Source,
    scenario: &str,
    seed: u64,
    trials: Option<u64>,
) -> Result<(String, f64, Vec<Candidate>), AppError> {
    let base = source.with(&[])?.compile(scenario).ok_or_else(|| {
        AppError::BadOption(format!("no scenario `{scenario}` in {}", source.file))
    })?;
    let p_of = |c: &crate::model::Compiled| -> Result<f64, AppError> {
        match (trials, exact_value(c, &Pick::Headline)) {
            (None, Some(e)) => Ok(e),
            _ => Ok(measure(
                c,
                &Pick::Headline,
                seed,
                trials.or(Some(app::DEFAULT_TRIALS)),
                true,
            )?
            .estimate),
        }
    };
    let p0 = p_of(&base)?;
    let mut out = Vec::new();
    for by in [-3i64, -2, -1, 1, 2, 3] {
        for step in steps(source, scenario, by)? {
            if step.what != "dice" && by.abs() > 2 {
                continue;
            }
            let c = step
                .apply(source, scenario)?
                .compile(scenario)
                .expect("exists");
            out.push(Candidate {
                change: step.label.clone(),
                size: by.abs(),
                p: p_of(&c)?,
            });
        }
    }
    out.sort_by(|a, b| {
        let (da, db) = ((a.p - 0.5).abs(), (b.p - 0.5).abs());
        if (da - db).abs() > 1e-12 {
            da.total_cmp(&db)
        } else {
            a.size.cmp(&b.size)
        }
    });
    Ok((base.headline.label, p0, out))
}

/// `rollsim equalize` (reads the headline; `metric` unused).
pub fn run(o: &Options) -> Result<String, AppError> {
    let p = o.prepare()?;
    let (source, seed, trials) = (&p.source, p.seed, p.trials);
    let (label, p0, c) = p
        .pool
        .install(|| candidates(source, &o.scenario, seed, trials))?;
    let dir = out_dir(source, &o.out, "equalize");
    std::fs::create_dir_all(&dir).map_err(|e| WriteError::io(&dir, e))?;
    let mut df = df!(
        "change" => c.iter().map(|x| x.change.clone()).collect::<Vec<_>>(),
        "steps" => c.iter().map(|x| x.size).collect::<Vec<_>>(),
        "probability" => c.iter().map(|x| x.p).collect::<Vec<_>>(),
        "distance_from_even" => c.iter().map(|x| (x.p - 0.5).abs()).collect::<Vec<_>>(),
    )?;
    let path = dir.join(format!("equalize-{}.csv", o.scenario));
    csv::write(&mut df, &path)?;
    let mut s = format!(
        "### {}: the equalizer\n\n{label} now: {:.2}%.\n\n",
        o.scenario,
        p0 * 100.0
    );
    match c.first() {
        Some(best) => s.push_str(&format!(
            "Closest to 50%: **{}** gives {:.2}%.\n\n| change | {label} |\n|---|---:|\n",
            best.change,
            best.p * 100.0
        )),
        None => s.push_str("No change to try: the scenario has no dice or stats to step.\n\n"),
    }
    for x in c.iter().take(10) {
        s.push_str(&format!("| {} | {:.2}% |\n", x.change, x.p * 100.0));
    }
    s.push('\n');
    s.push_str(&wrote(&[path]));
    Ok(s)
}
