//! The equalizer: for a matchup (or each member of a group), the smallest change to either
//! side (dice, a stat step, or with `pairs` two of them at once) that brings what is
//! measured closest to a target (50% by default).

use super::{choose, exact_value, measure, steps, units, Options, Pick, Source, Step, Target};
use crate::engine;
use crate::error::AppError;
use crate::model::Compiled;
use crate::report::analysis::{Candidate, Equalized};

/// `rollsim equalize`: the common options, the target value and whether to try pairs.
#[derive(Clone, Debug)]
pub struct EqualizeOptions {
    pub common: Options,
    /// What to bring the value to; None: 0.5 for a probability (a mean needs one).
    pub target: Option<f64>,
    /// Also try two changes at once (one step each, on different knobs).
    pub pairs: bool,
}

fn value(c: &Compiled, p: &Pick, seed: u64, trials: Option<u64>) -> Result<f64, AppError> {
    match (trials, exact_value(c, p)) {
        (None, Some(e)) => Ok(e),
        _ => Ok(measure(c, p, seed, trials.or(Some(engine::DEFAULT_TRIALS)), true)?.estimate),
    }
}

/// The changes tried: 1 to 3 dice or 1 to 2 stat steps, for or against each side; with
/// `pairs`, every two single steps on different knobs.
fn tried(source: &Source, table: &str, pairs: bool) -> Result<Vec<Step>, AppError> {
    let mut out = Vec::new();
    for by in [-3i64, -2, -1, 1, 2, 3] {
        for step in steps(source, table, by)? {
            if step.what != super::POOL_STEP && by.abs() > 2 {
                continue;
            }
            out.push(step);
        }
    }
    if pairs {
        let ones: Vec<Step> = [-1i64, 1]
            .iter()
            .map(|&by| steps(source, table, by))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .collect();
        for (i, a) in ones.iter().enumerate() {
            for b in &ones[i + 1..] {
                if (&a.role.key, &a.what) != (&b.role.key, &b.what) {
                    out.push(a.and(b));
                }
            }
        }
    }
    Ok(out)
}

/// Every member's candidates, sorted best first: closest to the target, then smallest.
pub fn equalize(
    source: &Source,
    target: &Target,
    pick: &Pick,
    goal: Option<f64>,
    pairs: bool,
    seed: u64,
    trials: Option<u64>,
) -> Result<Vec<Equalized>, AppError> {
    let goal = match (goal, pick.is_probability()) {
        (Some(g), true) if !(0.0..=1.0).contains(&g) => {
            return Err(AppError::BadOption(format!(
                "--target {g}: a probability target is between 0 and 1, e.g. 0.5"
            )))
        }
        (Some(g), _) => g,
        (None, true) => 0.5,
        (None, false) => {
            return Err(AppError::BadOption(
                "equalize on a mean needs --target VALUE (e.g. --target 3)".into(),
            ))
        }
    };
    let base_cfg = source.with(&[])?;
    let changes = tried(source, &target.table, pairs)?;
    let by = |c: &Compiled| value(c, pick, seed, trials);
    let mut out = Vec::new();
    for (label, unit) in units(source, target)? {
        let (base, _) = choose(&base_cfg, &unit, by)?;
        let what = pick.describe(&base)?;
        let now = by(&base)?;
        let mut candidates = Vec::new();
        for step in &changes {
            let (c, _) = match step
                .apply(source, &target.table)
                .and_then(|cfg| choose(&cfg, &unit, by))
            {
                Ok(x) => x,
                Err(AppError::Interrupted) => return Err(AppError::Interrupted),
                Err(_) => continue,
            };
            candidates.push(Candidate {
                change: step.label.clone(),
                size: step.by.abs(),
                value: by(&c)?,
            });
        }
        candidates.sort_by(|a, b| {
            let (da, db) = ((a.value - goal).abs(), (b.value - goal).abs());
            if (da - db).abs() > 1e-12 {
                da.total_cmp(&db)
            } else {
                a.size.cmp(&b.size)
            }
        });
        out.push(Equalized {
            scenario: label,
            what,
            probability: pick.is_probability(),
            target: goal,
            now,
            candidates,
        });
    }
    Ok(out)
}
