//! `rollsim sweep`: a scenario (or every member of a group) as one or two config keys step
//! through a range.

use super::{compile, measure, Job, Source};
use crate::document::AnalysisConfig;
use crate::edit::Edit;
use crate::results::analysis::{Slot, Sweep, SweepKey, SweepSeries};
use crate::Error;
use toml::Value;

/// Most values one key may take: bounds the work before anything is allocated.
pub const MAX_VALUES: i128 = 200;

/// A key and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// As written, e.g. `attacker.strength`.
    pub key: String,
    /// In a reader's words, for a chart's axis: `Orc's strength (attacker)`.
    pub label: String,
    /// The values it takes, in order.
    pub values: Vec<i64>,
    /// What one value changes, with [`Vary::edit`].
    to: Swept,
}

/// What a swept key changes.
#[derive(Clone, Debug, PartialEq)]
enum Swept {
    /// `attacker.strength`: a key of the entry the scenario's `attacker` names when the
    /// edit is applied (after every `--set`).
    Side {
        scenario: String,
        role: String,
        table: String,
        key: String,
    },
    /// `distance`: the scenario's own key.
    Scenario { scenario: String, key: String },
    /// `rules.x` or any other path.
    Path(Vec<String>),
}

impl Vary {
    /// The change that sets the key to `x`.
    pub fn edit(&self, x: i64) -> Edit {
        let value = Value::Integer(x);
        match &self.to {
            Swept::Side {
                scenario,
                role,
                table,
                key,
            } => Edit::Side {
                scenario: scenario.clone(),
                role: role.clone(),
                table: table.clone(),
                key: key.clone(),
                value,
            },
            Swept::Scenario { scenario, key } => Edit::Scenario {
                scenario: scenario.clone(),
                key: key.clone(),
                value,
            },
            Swept::Path(path) => Edit::Path {
                path: path.clone(),
                value,
            },
        }
    }
}

/// Parse `KEY=LO..HI[:STEP]` against scenario table `scenario`. The number of values is
/// checked before any is made.
pub fn parse(source: &Source, scenario: &str, s: &str) -> Result<Vary, Error> {
    let bad = |why: &str| Error::BadOption(format!("--vary {s}: {why}"));
    let (key, range) = s.split_once('=').ok_or_else(|| {
        bad("expected KEY=LO..HI or KEY=LO..HI:STEP, e.g. attacker.strength=2..6")
    })?;
    let (range, step) = match range.split_once(':') {
        Some((r, st)) => (
            r,
            st.trim()
                .parse::<i64>()
                .map_err(|_| bad("the step must be a whole number"))?,
        ),
        None => (range, 1),
    };
    let (lo, hi) = range
        .split_once("..")
        .ok_or_else(|| bad("expected a range LO..HI, e.g. 1..10"))?;
    let num = |x: &str| {
        x.trim()
            .parse::<i64>()
            .map_err(|_| bad("range ends must be whole numbers"))
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    if step <= 0 || hi < lo {
        return Err(bad("expected LO <= HI and a positive step"));
    }
    let count = (hi as i128 - lo as i128) / step as i128 + 1;
    if count > MAX_VALUES {
        return Err(bad(&format!(
            "{count} values; at most {MAX_VALUES} per key"
        )));
    }
    let values: Vec<i64> = (0..count as i64).map(|i| lo + i * step).collect();
    let key = key.trim().to_string();
    if key.is_empty() {
        return Err(bad("the key is empty"));
    }
    let roles = source.roles(scenario)?;
    let (first, rest) = key.split_once('.').unwrap_or((&key, ""));
    let (first, rest) = (first.trim(), rest.trim());
    // Role names are the config's own words: `Attacker.strength` is `attacker.strength`.
    let to = match roles.iter().find(|r| r.key.eq_ignore_ascii_case(first)) {
        Some(r) if !rest.is_empty() => Swept::Side {
            scenario: scenario.to_string(),
            role: r.key.clone(),
            table: r.table.clone(),
            key: rest.to_string(),
        },
        // A dice scenario's named number (`values = { n = 10 }`) is its key too: `n=1..20`
        // steps `scenarios.NAME.values.n`, as a designer reads the scenario.
        _ if !key.contains('.') && named_value(source, scenario, &key) => Swept::Path(
            ["scenarios", scenario, "values", key.as_str()]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        ),
        _ if !key.contains('.') => Swept::Scenario {
            scenario: scenario.to_string(),
            key: key.clone(),
        },
        _ => Swept::Path(key.split('.').map(|s| s.trim().to_string()).collect()),
    };
    let label = match &to {
        Swept::Side { role, key, .. } => roles.iter().find(|r| &r.key == role).map_or_else(
            || format!("{role}.{key}"),
            |r| format!("{}'s {key} ({role})", source.display(&r.table, &r.id)),
        ),
        Swept::Path(p) if p.len() > 2 && source.ids(&p[0]).contains(&p[1]) => {
            format!("{}'s {}", source.display(&p[0], &p[1]), p[2..].join("."))
        }
        _ => key.clone(),
    };
    Ok(Vary {
        key,
        label,
        values,
        to,
    })
}

/// Whether scenario table `scenario` has no key `key` of its own but a named value of
/// that name (`values = { key = ... }`).
fn named_value(source: &Source, scenario: &str, key: &str) -> bool {
    let Some(t) = source
        .table
        .get("scenarios")
        .and_then(|s| s.get(scenario))
        .and_then(toml::Value::as_table)
    else {
        return false;
    };
    !t.contains_key(key)
        && t.get("values")
            .and_then(toml::Value::as_table)
            .is_some_and(|v| v.contains_key(key))
}

/// The config at one point of the sweep.
fn at(source: &Source, points: &[(&Vary, i64)]) -> Result<AnalysisConfig, Error> {
    let edits: Vec<Edit> = points.iter().map(|(v, x)| v.edit(*x)).collect();
    source.apply(&edits).map_err(|e| {
        Error::BadOption(format!(
            "at {}: {e}",
            points
                .iter()
                .map(|(v, x)| format!("{}={x}", v.key))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Every point of the sweep for every member of the job's target. A point the rules
/// refuse is a blank with its reason; if every point is refused, the first reason is the
/// error.
pub fn sweep(job: &Job, keys: Vec<Vary>) -> Result<Sweep, Error> {
    let (source, target, pick, seed, trials) =
        (job.source, job.target, job.pick, job.seed, job.trials);
    let cancel = job.ctx.cancel;
    let second: Vec<Option<i64>> = match keys.get(1) {
        Some(k) => k.values.iter().map(|&x| Some(x)).collect(),
        None => vec![None],
    };
    let first = compile(&source.base, &target.members[0], cancel)?;
    let what = pick.describe(&first)?;
    let mut series: Vec<SweepSeries> = target
        .members
        .iter()
        .map(|m| SweepSeries {
            label: m.clone(),
            cells: Vec::new(),
        })
        .collect();
    // Every point of every member, x slowest, then y, then the member: one spread.
    let points: Vec<(i64, Option<i64>, usize)> = keys[0]
        .values
        .iter()
        .flat_map(|&x| {
            second
                .iter()
                .flat_map(move |&y| (0..target.members.len()).map(move |m| (x, y, m)))
        })
        .collect();
    let slots = job.spread("sweep points", &points, |&(x, y, m)| {
        let mut pts = vec![(&keys[0], x)];
        if let (Some(k), Some(y)) = (keys.get(1), y) {
            pts.push((k, y));
        }
        Ok(match at(source, &pts) {
            Err(e) => Err(e.to_string()),
            Ok(cfg) => match compile(&cfg, &target.members[m], cancel) {
                Err(Error::Interrupted) => return Err(Error::Interrupted),
                Err(e) => Err(e.to_string()),
                Ok(c) => Ok(measure(&c, pick, seed, trials, job.ctx)?),
            },
        })
    })?;
    let Some(slots) = slots else {
        return Err(Error::Deferred);
    };
    let mut first_error: Option<String> = None;
    let mut any = false;
    let mut it = slots.into_iter();
    for _ in &keys[0].values {
        let mut rows: Vec<Vec<Slot>> = vec![Vec::new(); series.len()];
        for _ in &second {
            for row in rows.iter_mut() {
                let Some(slot) = it.next() else { break };
                match &slot {
                    Ok(_) => any = true,
                    Err(e) => {
                        first_error.get_or_insert_with(|| e.clone());
                    }
                }
                row.push(slot);
            }
        }
        for (s, row) in series.iter_mut().zip(rows) {
            s.cells.push(row);
        }
    }
    if !any {
        return Err(Error::BadOption(
            first_error.unwrap_or_else(|| "no point can be computed".into()),
        ));
    }
    Ok(Sweep {
        scenario: target.name.clone(),
        description: first.description,
        what,
        probability: pick.is_probability(),
        keys: keys
            .into_iter()
            .map(|k| SweepKey {
                key: k.key,
                label: k.label,
                values: k.values,
            })
            .collect(),
        series,
        trials,
        seed,
    })
}
