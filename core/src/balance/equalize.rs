//! The equalizer: for a matchup (or each member of a group), the smallest change to either
//! side (its dice, a stat, or with `pairs` two one-step changes at once) that brings
//! what is measured closest to a target (50% by default). Each knob is goal-sought over
//! its whole range (within the system's bounds and the config's `[stat_bounds]`); a
//! change that leaves the value unchanged is no candidate; a value already within its
//! precision of the target is reported as even.

use super::{choose, exact_value, measure, steps, units, Job, Pick, Source, Step};
use crate::model::Compiled;
use crate::results::analysis::{Candidate, Equalized};
use crate::Error;

/// One knob: a side's dice or one stat of a side, as [`steps`] names it.
type Knob = (String, String);

fn knob_of(s: &Step) -> Knob {
    (s.role.key.clone(), s.what.clone())
}

/// Every knob of the scenario's sides, in [`steps`] order (a knob at the end of its
/// range still counts: it may step the other way).
fn knobs(source: &Source, table: &str) -> Result<Vec<Knob>, Error> {
    let mut out: Vec<Knob> = Vec::new();
    for by in [1i64, -1] {
        for s in steps(source, table, by)? {
            if !out.contains(&knob_of(&s)) {
                out.push(knob_of(&s));
            }
        }
    }
    Ok(out)
}

/// The pairs tried with `pairs`: every two single steps on different knobs.
fn pairs_of(source: &Source, table: &str) -> Result<Vec<Step>, Error> {
    let ones: Vec<Step> = [-1i64, 1]
        .iter()
        .map(|&by| steps(source, table, by))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    let mut out = Vec::new();
    for (i, a) in ones.iter().enumerate() {
        for b in &ones[i + 1..] {
            if knob_of(a) != knob_of(b) {
                out.push(a.and(b));
            }
        }
    }
    Ok(out)
}

/// The furthest a goal-seek goes along one knob (a stat's own bounds stop it sooner).
const MAX_SEEK: i64 = 1024;

/// A knob that has not moved the value after this many steps is left (a threshold
/// further out is possible, but a designer would not call that knob a tuning one).
const STILL: i64 = 16;

/// Every member's candidates, sorted best first: closest to the target, then smallest.
pub fn equalize(job: &Job, goal: Option<f64>, pairs: bool) -> Result<Vec<Equalized>, Error> {
    // A win that can end in a draw is even when wins equal losses: with no target given,
    // the headline becomes its margin, sought at 0.
    let draws = match (goal, job.pick) {
        (None, Pick::Headline) => draw_note(job)?,
        _ => None,
    };
    let margin_job;
    let job = match draws {
        Some(_) => {
            margin_job = Job {
                pick: &Pick::Margin,
                ..*job
            };
            &margin_job
        }
        None => job,
    };
    let goal = match (goal, draws.is_some()) {
        (None, true) => Some(0.0),
        _ => goal,
    };
    let (source, target, pick, cancel) = (job.source, job.target, job.pick, job.ctx.cancel);
    let goal = goal_of(goal, pick)?;
    let all_knobs = knobs(source, &target.table)?;
    let paired = if pairs {
        pairs_of(source, &target.table)?
    } else {
        Vec::new()
    };
    // Each member as it is: its value now and that value's precision (the target within
    // it is even: exact, to the last digits; Monte Carlo, inside its 95% interval).
    let mut members: Vec<Member> = Vec::new();
    for (label, unit) in units(source, target, cancel)? {
        members.push(member(job, label, unit)?);
    }
    // Every goal-seek (a knob in a direction) and every pair, of every member: one spread.
    let mut work: Vec<Work> = Vec::new();
    for m in 0..members.len() {
        for k in 0..all_knobs.len() {
            work.extend([Work::Seek(m, k, 1), Work::Seek(m, k, -1)]);
        }
        work.extend((0..paired.len()).map(|p| Work::Pair(m, p)));
    }
    let found = job
        .spread("equalize candidates", &work, |w| match *w {
            Work::Seek(m, k, dir) => seek(job, &members[m], goal, &all_knobs[k], dir),
            Work::Pair(m, p) => Ok(try_step(&paired[p], source, &members[m].unit, job)?
                .into_iter()
                .collect()),
        })?
        .ok_or(Error::Deferred)?;
    let mut out = Vec::new();
    for (m, member) in members.into_iter().enumerate() {
        let now = member.now;
        let mut candidates: Vec<Candidate> = work
            .iter()
            .zip(&found)
            .filter(|(w, _)| matches!(w, Work::Seek(i, ..) | Work::Pair(i, _) if *i == m))
            .flat_map(|(_, c)| c.iter().cloned())
            // A change that leaves the value where it is changes nothing a designer
            // needs (a stat the scenario never reads).
            .filter(|c| (c.value - now).abs() > SAME)
            .collect();
        candidates.sort_by(|a, b| {
            let (da, db) = ((a.value - goal).abs(), (b.value - goal).abs());
            if (da - db).abs() > 1e-12 {
                da.total_cmp(&db)
            } else {
                a.size.cmp(&b.size)
            }
        });
        candidates.dedup_by(|a, b| a.change == b.change);
        out.push(Equalized {
            scenario: member.label,
            what: member.what,
            probability: pick.is_probability(),
            target: goal,
            now,
            even: (now - goal).abs() <= member.precision,
            candidates,
            note: draws.clone(),
        });
    }
    Ok(out)
}

/// The value sought: `--target`, checked, or an even chance.
fn goal_of(goal: Option<f64>, pick: &Pick) -> Result<f64, Error> {
    Ok(match (goal, pick.is_probability()) {
        (Some(g), _) if !g.is_finite() => {
            return Err(Error::BadOption(format!(
                "--target {g}: expected a number, e.g. 0.5 or 3"
            )))
        }
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
    })
}

/// A member as it is: its value now and that value's precision (the target within it
/// is even: exact, to the last digits; Monte Carlo, inside its 95% interval).
fn member(job: &Job, label: String, unit: Vec<String>) -> Result<Member, Error> {
    let (source, pick, cancel) = (job.source, job.pick, job.ctx.cancel);
    let by = |c: &Compiled| job.value(c);
    let (base, _) = choose(&source.base, &unit, cancel, by)?;
    let what = pick.describe(&base)?;
    let (now, precision) = match (job.trials, exact_value(&base, pick)) {
        (None, Some(e)) => (e, SAME),
        _ => {
            let cell = measure(
                &base,
                pick,
                job.seed,
                job.trials.or(Some(crate::run::DEFAULT_TRIALS)),
                job.ctx,
            )?;
            (cell.estimate, (cell.ci.1 - cell.ci.0) / 2.0)
        }
    };
    Ok(Member {
        label,
        unit,
        what,
        now,
        precision,
    })
}

/// What the equalizer says where the target can end in a draw.
fn draw_note(job: &Job) -> Result<Option<String>, Error> {
    Ok(super::draws(job)?.map(|d| {
        format!(
            "`{}` can end in a draw ({}: {}), so even is wins equal losses: the equalizer seeks {} = 0 (--target 0.5 seeks a 50% chance to win instead)",
            d.scenario,
            d.what,
            crate::text::percent(d.chance, 2),
            d.margin
        )
    }))
}

/// A member of the target as it is, before any change.
struct Member {
    label: String,
    unit: Vec<String>,
    what: String,
    now: f64,
    precision: f64,
}

/// One item of the equalizer's work: a goal-seek of member `.0` along knob `.1` in
/// direction `.2`, or member `.0` with pair `.1`.
enum Work {
    Seek(usize, usize, i64),
    Pair(usize, usize),
}

/// Goal-seek along `knob` in direction `dir` (+1 helps its side): doubling the step
/// until the value crosses the target (or the knob's range ends), then halving between
/// the last two, so a knob's whole range costs a few evaluations, not one per step.
/// Returns every candidate tried.
fn seek(
    job: &Job,
    member: &Member,
    goal: f64,
    knob: &Knob,
    dir: i64,
) -> Result<Vec<Candidate>, Error> {
    let (source, target) = (job.source, job.target);
    let now = member.now;
    // The value `k` steps along the knob, or None where the knob's range ends or the
    // rules refuse the value.
    let at = |k: i64| -> Result<Option<Candidate>, Error> {
        let Some(step) = steps(source, &target.table, k)?
            .into_iter()
            .find(|s| &knob_of(s) == knob)
        else {
            return Ok(None);
        };
        try_step(&step, source, &member.unit, job)
    };
    let side = |v: f64| (v - goal).signum();
    let mut seen: Vec<Candidate> = Vec::new();
    let (mut lo, mut hi): (i64, Option<i64>) = (0, None);
    let mut k = 1;
    let mut prev = now;
    // How much closer to the target the last doubling came (None before the first).
    let mut last_gain: Option<f64> = None;
    // Double until the target is crossed or the range ends.
    let mut end = None;
    loop {
        match at(dir * k)? {
            None => {
                end = Some(k);
                break;
            }
            Some(c) => {
                // On the target to the last digits of an exact sum: a hit, whichever
                // side of it those digits fall (15/36 against 15/36 summed in two
                // orders is 0 or an ulp either way).
                let hit = (c.value - goal).abs() <= SAME;
                let crossed = side(c.value) != side(now) || hit;
                // Moving away from the target, or not moving after many steps:
                // this direction has nothing closer to offer.
                let away = (c.value - goal).abs() > (prev - goal).abs() + SAME;
                let still = (c.value - now).abs() <= SAME && k >= STILL;
                // Moved, then flat: the die's range is used up (a save of 1+
                // and one of -5+ both always save).
                let flat = (c.value - prev).abs() <= SAME && (c.value - now).abs() > SAME;
                let gain = (prev - goal).abs() - (c.value - goal).abs();
                let converging =
                    last_gain.is_some_and(|g| converges_short(g, gain, (c.value - goal).abs()));
                last_gain = Some(gain);
                prev = c.value;
                seen.push(c);
                if crossed {
                    hi = Some(k);
                    break;
                }
                lo = k;
                if k >= MAX_SEEK || away || still || flat || converging {
                    break;
                }
                k = (k * 2).min(MAX_SEEK);
            }
        }
    }
    // The range ended between the last good step and `end`: find its last step.
    if let (None, Some(mut bad)) = (hi, end) {
        while bad - lo > 1 {
            let mid = (lo + bad) / 2;
            match at(dir * mid)? {
                None => bad = mid,
                Some(c) => {
                    let crossed = side(c.value) != side(now) || c.value == goal;
                    seen.push(c);
                    if crossed {
                        hi = Some(mid);
                        break;
                    }
                    lo = mid;
                }
            }
        }
    }
    // Halve between the last step short of the target and the first past it.
    if let Some(mut h) = hi {
        while h - lo > 1 {
            let mid = (lo + h) / 2;
            let Some(c) = at(dir * mid)? else { break };
            let short = side(c.value) == side(now) && c.value != goal;
            seen.push(c);
            if short {
                lo = mid;
            } else {
                h = mid;
            }
        }
    }
    Ok(seen)
}

/// Whether a knob's walk has stopped paying: the last doubling gained `gain` toward the
/// target after one that gained `before`; if the gains shrink, what all further doublings
/// can add is about the geometric tail `gain * r / (1 - r)` (r = gain / before), and when
/// four times that falls short of the `distance` left, the target is out of this knob's
/// reach. This is what keeps a count (Skirmishers' models, 6 -> 100) from being walked to
/// sizes whose exact distributions take gigabytes, only to creep toward an asymptote.
fn converges_short(before: f64, gain: f64, distance: f64) -> bool {
    if before <= SAME || gain <= SAME || gain >= before {
        return false;
    }
    let r = gain / before;
    4.0 * gain * r / (1.0 - r) < distance
}

/// Values closer than this are one value (the last digits of an exact sum).
const SAME: f64 = 1e-9;

/// The value after `step`, or None where the rules refuse it.
fn try_step(
    step: &Step,
    source: &Source,
    unit: &[String],
    job: &Job,
) -> Result<Option<Candidate>, Error> {
    match step
        .apply(source)
        .and_then(|cfg| choose(&cfg, unit, job.ctx.cancel, |c| job.value(c)))
    {
        Ok((c, _)) => Ok(Some(Candidate {
            change: step.label.clone(),
            size: step.by.abs(),
            value: job.value(&c)?,
        })),
        Err(Error::Interrupted) => Err(Error::Interrupted),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::converges_short;

    #[test]
    fn a_walk_that_creeps_toward_an_asymptote_stops() {
        // A shipped firefight with regroups: the defenders' models 14 -> 22 -> 38 gained 0.0183
        // then 0.0078 toward 50% with 0.367 left: the tail (about 0.006) cannot get there.
        assert!(converges_short(0.0183, 0.0078, 0.367));
        // Gains shrinking slowly (r = 0.9): the tail (0.81) may still cross 0.5.
        assert!(!converges_short(0.1, 0.09, 0.5));
        // Growing gains, no gain, or a step away never stop a walk here.
        assert!(!converges_short(0.01, 0.02, 0.4));
        assert!(!converges_short(0.01, 0.0, 0.4));
        assert!(!converges_short(0.0, 0.01, 0.4));
        // Close to the target, a small tail is enough to keep walking.
        assert!(!converges_short(0.02, 0.01, 0.03));
    }
}
