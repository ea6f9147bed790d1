//! `rollsim sweep`: a scenario (or every member of a group) as one or two config keys step
//! through a range.

use super::{compile, measure, Options, Pick, Role, Source, Target};
use crate::error::AppError;
use crate::report::analysis::{Slot, Sweep, SweepKey, SweepSeries};
use toml::Value;

/// Most values one key may take: bounds the work before anything is allocated.
pub const MAX_VALUES: i128 = 200;

/// A key and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// As written, e.g. `attacker.strength`.
    pub key: String,
    pub values: Vec<i64>,
    /// `attacker.strength` is a change to the entry the scenario's `attacker` names.
    side: Option<(Role, String)>,
    /// Else a plain `--set` path (`distance` means the scenario's own key).
    path: String,
}

impl Vary {
    /// The side and key within its entry, for `attacker.strength`.
    pub fn side(&self) -> Option<(Role, String)> {
        self.side.clone()
    }

    /// The `--set` path otherwise.
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// Parse `KEY=LO..HI[:STEP]` against scenario table `scenario`. The number of values is
/// checked before any is made.
pub fn parse(source: &Source, scenario: &str, s: &str) -> Result<Vary, AppError> {
    let bad = |why: &str| AppError::BadOption(format!("--vary {s}: {why}"));
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
    // Role names are the config's own words: `Attacker.strength` is `attacker.strength`.
    let (side, path) = match roles.iter().find(|r| r.key.eq_ignore_ascii_case(first)) {
        Some(r) if !rest.is_empty() => (Some((r.clone(), rest.to_string())), String::new()),
        _ if !key.contains('.') => (None, format!("scenarios.{scenario}.{key}")),
        _ => (None, key.clone()),
    };
    Ok(Vary {
        key,
        values,
        side,
        path,
    })
}

/// The config at one point of the sweep.
fn at(
    source: &Source,
    scenario: &str,
    points: &[(&Vary, i64)],
) -> Result<crate::config::AnalysisConfig, AppError> {
    let mut sets = Vec::new();
    let mut sides = Vec::new();
    for (v, x) in points {
        match &v.side {
            Some((role, rest)) => sides.push((role.clone(), rest.clone(), Value::Integer(*x))),
            None => sets.push(format!("{}={x}", v.path)),
        }
    }
    source.variant(scenario, &sets, &sides).map_err(|e| {
        AppError::BadOption(format!(
            "at {}: {e}",
            points
                .iter()
                .map(|(v, x)| format!("{}={x}", v.key))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Every point of the sweep for every member of `target`. A point the rules refuse is a
/// blank with its reason; if every point is refused, the first reason is the error.
pub fn sweep(
    source: &Source,
    target: &Target,
    keys: Vec<Vary>,
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
) -> Result<Sweep, AppError> {
    let second: Vec<Option<i64>> = match keys.get(1) {
        Some(k) => k.values.iter().map(|&x| Some(x)).collect(),
        None => vec![None],
    };
    let base = source.with(&[])?;
    let what = pick.describe(&compile(&base, &target.members[0])?)?;
    let mut series: Vec<SweepSeries> = target
        .members
        .iter()
        .map(|m| SweepSeries {
            label: m.clone(),
            cells: Vec::new(),
        })
        .collect();
    let mut first_error: Option<String> = None;
    let mut any = false;
    for &x in &keys[0].values {
        let mut rows: Vec<Vec<Slot>> = vec![Vec::new(); series.len()];
        for y in &second {
            let mut pts = vec![(&keys[0], x)];
            if let (Some(k), Some(y)) = (keys.get(1), y) {
                pts.push((k, *y));
            }
            let cfg = at(source, &target.table, &pts);
            for (row, member) in rows.iter_mut().zip(&target.members) {
                let slot = match &cfg {
                    Err(e) => Err(e.to_string()),
                    Ok(cfg) => match compile(cfg, member) {
                        Err(AppError::Interrupted) => return Err(AppError::Interrupted),
                        Err(e) => Err(e.to_string()),
                        Ok(c) => Ok(measure(&c, pick, seed, trials, true)?),
                    },
                };
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
        return Err(AppError::BadOption(
            first_error.unwrap_or_else(|| "no point can be computed".into()),
        ));
    }
    Ok(Sweep {
        scenario: target.name.clone(),
        what,
        probability: pick.is_probability(),
        keys: keys
            .into_iter()
            .map(|k| SweepKey {
                key: k.key,
                values: k.values,
            })
            .collect(),
        series,
        trials,
        seed,
    })
}

/// `rollsim sweep`: the common options and one or two `KEY=LO..HI[:STEP]`.
pub struct SweepOptions {
    pub common: Options,
    pub vary: Vec<String>,
}
