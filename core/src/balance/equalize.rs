//! The equalizer: for a matchup (or each member of a group), the smallest change to either
//! side (dice, a stat step, or with `pairs` two of them at once) that brings what is
//! measured closest to a target (50% by default).

use super::{choose, each, steps, units, Job, Source, Step};
use crate::model::Compiled;
use crate::results::analysis::{Candidate, Equalized};
use crate::Error;

/// The changes tried: 1 to 3 dice or 1 to 2 stat steps, for or against each side; with
/// `pairs`, every two single steps on different knobs.
fn tried(source: &Source, table: &str, pairs: bool) -> Result<Vec<Step>, Error> {
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
pub fn equalize(job: &Job, goal: Option<f64>, pairs: bool) -> Result<Vec<Equalized>, Error> {
    let (source, target, pick, cancel) = (job.source, job.target, job.pick, job.ctx.cancel);
    let goal = match (goal, pick.is_probability()) {
        (Some(g), true) if !(0.0..=1.0).contains(&g) => {
            return Err(Error::BadOption(format!(
                "--target {g}: a probability target is between 0 and 1, e.g. 0.5"
            )))
        }
        (Some(g), _) => g,
        (None, true) => 0.5,
        (None, false) => {
            return Err(Error::BadOption(
                "equalize on a mean needs --target VALUE (e.g. --target 3)".into(),
            ))
        }
    };
    let changes = tried(source, &target.table, pairs)?;
    let by = |c: &Compiled| job.value(c);
    let mut out = Vec::new();
    for (label, unit) in units(source, target, cancel)? {
        let (base, _) = choose(&source.base, &unit, cancel, by)?;
        let what = pick.describe(&base)?;
        let now = by(&base)?;
        // A change the rules refuse is no candidate.
        let tried = each(&changes, |step| {
            match step
                .apply(source)
                .and_then(|cfg| choose(&cfg, &unit, cancel, by))
            {
                Ok((c, _)) => Ok(Some(Candidate {
                    change: step.label.clone(),
                    size: step.by.abs(),
                    value: by(&c)?,
                })),
                Err(Error::Interrupted) => Err(Error::Interrupted),
                Err(_) => Ok(None),
            }
        })?;
        let mut candidates: Vec<Candidate> = tried.into_iter().flatten().collect();
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
