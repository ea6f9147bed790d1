//! Sensitivity: what one step is worth. For a scenario (or each member of a group), every
//! side's +1 die and one better step of each stat, and the change it makes to what is
//! measured: the headline and each numeric metric's mean, or the `--metric` asked for.

use super::{choose, exact_value, measure, steps, units, Pick, Source, Target};
use crate::engine;
use crate::error::AppError;
use crate::model::Compiled;
use crate::report::analysis::SensitivityRow;

/// The rows, and the steps the rules refused (change, reason).
#[derive(Clone, Debug, Default)]
pub struct Sensitivity {
    pub rows: Vec<SensitivityRow>,
    pub refused: Vec<(String, String)>,
}

/// The value of `p` on `c`: exact in exact-only mode where there is one, else simulated.
fn value(c: &Compiled, p: &Pick, seed: u64, trials: Option<u64>) -> Result<f64, AppError> {
    match (trials, exact_value(c, p)) {
        (None, Some(e)) => Ok(e),
        _ => Ok(measure(c, p, seed, trials.or(Some(engine::DEFAULT_TRIALS)), true)?.estimate),
    }
}

/// Each step in each side's favour, for each member of `target` (a decision table: after
/// the defender's best choice, which may change with the step), on each quantity.
pub fn rows(
    source: &Source,
    target: &Target,
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
) -> Result<Sensitivity, AppError> {
    let base_cfg = source.with(&[])?;
    let mut out = Sensitivity::default();
    // The defender of a decision chooses by what is measured (the headline by default).
    let by = |c: &Compiled| value(c, pick, seed, trials);
    for (label, unit) in units(source, target)? {
        let (base, _) = choose(&base_cfg, &unit, by)?;
        let picks: Vec<(String, Pick)> = if *pick == Pick::Headline {
            std::iter::once((base.headline.label.clone(), Pick::Headline))
                .chain(base.metrics.iter().filter(|m| m.numeric).map(|m| {
                    (
                        format!("expected {}", m.name.replace('_', " ")),
                        Pick::Mean {
                            metric: m.name.clone(),
                        },
                    )
                }))
                .collect()
        } else {
            vec![(pick.describe(&base)?, pick.clone())]
        };
        let before: Vec<f64> = picks
            .iter()
            .map(|(_, p)| value(&base, p, seed, trials))
            .collect::<Result<_, _>>()?;
        for step in steps(source, &target.table, 1)? {
            let c = match step
                .apply(source, &target.table)
                .and_then(|cfg| choose(&cfg, &unit, by))
            {
                Ok((c, _)) => c,
                Err(AppError::Interrupted) => return Err(AppError::Interrupted),
                Err(e) => {
                    out.refused.push((step.label.clone(), e.to_string()));
                    continue;
                }
            };
            for ((q, p), &b) in picks.iter().zip(&before) {
                let v = value(&c, p, seed, trials)?;
                out.rows.push(SensitivityRow {
                    scenario: label.clone(),
                    change: step.label.clone(),
                    side: step.role.key.clone(),
                    quantity: q.clone(),
                    probability: p.is_probability(),
                    base: b,
                    changed: v,
                    delta: v - b,
                });
            }
        }
    }
    Ok(out)
}
