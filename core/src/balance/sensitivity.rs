//! Sensitivity: what one step is worth. For a scenario (or each member of a group), every
//! side's +1 die and one better step of each stat, and the change it makes to what is
//! measured: the headline and each numeric metric's mean, or the `--metric` asked for.

use super::{choose, steps, units, Job, Pick};
use crate::model::Compiled;
use crate::results::analysis::SensitivityRow;
use crate::Error;

/// The rows, and the steps the rules refused (change, reason).
#[derive(Clone, Debug, Default)]
pub struct Sensitivity {
    /// One per member, step and quantity.
    pub rows: Vec<SensitivityRow>,
    /// (the step, why the rules refused it).
    pub refused: Vec<(String, String)>,
    /// (member, its description): a chart's title leads with the designer's words.
    pub descriptions: Vec<(String, String)>,
}

/// Each step in each side's favour, for each member of the job's target (a decision
/// table: after the defender's best choice, which may change with the step), on each
/// quantity.
pub fn rows(job: &Job) -> Result<Sensitivity, Error> {
    let (source, target, pick, cancel) = (job.source, job.target, job.pick, job.ctx.cancel);
    let mut out = Sensitivity::default();
    // The defender of a decision chooses by what is measured (the headline by default).
    let by = |c: &Compiled| job.value(c);
    let steps = steps(source, &target.table, 1)?;
    // Each unit before any change: what is read off it and its values now.
    type Before = (String, Vec<String>, Vec<(String, Pick)>, Vec<f64>);
    let mut befores: Vec<Before> = Vec::new();
    for (label, unit) in units(source, target, cancel)? {
        let (base, _) = choose(&source.base, &unit, cancel, by)?;
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
            .map(|(_, p)| job.value_of(&base, p))
            .collect::<Result<_, _>>()?;
        out.descriptions
            .push((label.clone(), base.description.clone()));
        befores.push((label, unit, picks, before));
    }
    // Each step on each unit: its rows, or the reason the rules refused it.
    let items: Vec<(usize, usize)> = (0..befores.len())
        .flat_map(|u| (0..steps.len()).map(move |s| (u, s)))
        .collect();
    let done = job.spread("sensitivity steps", &items, |&(u, s)| {
        let (label, unit, picks, before) = &befores[u];
        let step = &steps[s];
        let c = match step
            .apply(source)
            .and_then(|cfg| choose(&cfg, unit, cancel, by))
        {
            Ok((c, _)) => c,
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            Err(e) => return Ok(Err((step.label.clone(), e.to_string()))),
        };
        let mut rows = Vec::new();
        for ((q, p), &b) in picks.iter().zip(before) {
            let v = job.value_of(&c, p)?;
            rows.push(SensitivityRow {
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
        Ok(Ok(rows))
    })?;
    for d in done.ok_or(Error::Deferred)? {
        match d {
            Ok(rows) => out.rows.extend(rows),
            Err(refused) => out.refused.push(refused),
        }
    }
    Ok(out)
}
