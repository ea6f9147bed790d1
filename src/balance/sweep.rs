//! `rollsim sweep`: one scenario as one or two config keys step through a range. One key
//! draws a line with its 95% band (and the exact line); two keys a heatmap.

use super::{measure, out_dir, wrote, Cell, Options, Pick, Role, Source};
use crate::app::AppError;
use crate::report::{csv, markdown::thousands, plot, write::WriteError};
use polars::prelude::*;
use toml::Value;

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

/// Parse `KEY=LO..HI[:STEP]` against `scenario`.
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
    let values: Vec<i64> = (lo..=hi).step_by(step as usize).collect();
    if values.len() > 200 {
        return Err(bad("at most 200 values per key"));
    }
    let key = key.trim().to_string();
    let roles = source.roles(scenario)?;
    let (first, rest) = key.split_once('.').unwrap_or((&key, ""));
    let (side, path) = match roles.iter().find(|r| r.key == first) {
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

/// The sweep's results: `cells[i][j]` at the i-th value of the first key and the j-th of
/// the second (one column without a second key).
#[derive(Clone, Debug)]
pub struct Sweep {
    pub scenario: String,
    pub what: String,
    pub probability: bool,
    pub keys: Vec<Vary>,
    pub cells: Vec<Vec<Cell>>,
    pub trials: Option<u64>,
    pub seed: u64,
}

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

pub fn sweep(
    source: &Source,
    scenario: &str,
    keys: Vec<Vary>,
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
) -> Result<Sweep, AppError> {
    let second: Vec<Option<i64>> = match keys.get(1) {
        Some(k) => k.values.iter().map(|&x| Some(x)).collect(),
        None => vec![None],
    };
    let mut what = String::new();
    let mut cells = Vec::new();
    for &x in &keys[0].values {
        let mut row = Vec::new();
        for y in &second {
            let mut pts = vec![(&keys[0], x)];
            if let (Some(k), Some(y)) = (keys.get(1), y) {
                pts.push((k, *y));
            }
            let c = at(source, scenario, &pts)?
                .compile(scenario)
                .expect("exists");
            if what.is_empty() {
                what = pick.describe(&c)?;
            }
            row.push(measure(&c, pick, seed, trials, true)?);
        }
        cells.push(row);
    }
    Ok(Sweep {
        scenario: scenario.into(),
        what,
        probability: pick.is_probability(),
        keys,
        cells,
        trials,
        seed,
    })
}

/// `rollsim sweep`: the common options and one or two `KEY=LO..HI[:STEP]`.
pub struct SweepOptions {
    pub common: Options,
    pub vary: Vec<String>,
}

pub fn run(o: &SweepOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare()?;
    let (source, seed, trials) = (&p.source, p.seed, p.trials);
    if o.vary.is_empty() || o.vary.len() > 2 {
        return Err(AppError::BadOption(
            "--vary: give one or two keys, e.g. --vary attacker.strength=2..6".into(),
        ));
    }
    let keys = o
        .vary
        .iter()
        .map(|v| parse(source, &c.scenario, v))
        .collect::<Result<Vec<_>, _>>()?;
    let s = p
        .pool
        .install(|| sweep(source, &c.scenario, keys, &p.pick, seed, trials))?;
    let dir = out_dir(source, &c.out, "sweep");
    std::fs::create_dir_all(&dir).map_err(|e| WriteError::io(&dir, e))?;
    let stem = format!(
        "sweep-{}-{}",
        c.scenario,
        s.keys
            .iter()
            .map(|k| k.key.replace('.', "_"))
            .collect::<Vec<_>>()
            .join("-")
    );
    // The table: one row per point.
    let mut cols: Vec<Column> = Vec::new();
    let n2 = s.cells[0].len();
    let k1: Vec<i64> = s.keys[0]
        .values
        .iter()
        .flat_map(|&x| std::iter::repeat_n(x, n2))
        .collect();
    cols.push(Column::new(s.keys[0].key.as_str().into(), k1));
    if let Some(k) = s.keys.get(1) {
        let k2: Vec<i64> = (0..s.keys[0].values.len())
            .flat_map(|_| k.values.clone())
            .collect();
        cols.push(Column::new(k.key.as_str().into(), k2));
    }
    let flat: Vec<&Cell> = s.cells.iter().flatten().collect();
    cols.push(Column::new(
        "estimate".into(),
        flat.iter().map(|c| c.estimate).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "ci_low".into(),
        flat.iter().map(|c| c.ci.0).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "ci_high".into(),
        flat.iter().map(|c| c.ci.1).collect::<Vec<_>>(),
    ));
    cols.push(Column::new(
        "exact".into(),
        flat.iter().map(|c| c.exact).collect::<Vec<_>>(),
    ));
    let mut df = DataFrame::new(flat.len(), cols)?;
    let csv_path = dir.join(format!("{stem}.csv"));
    csv::write(&mut df, &csv_path)?;
    let mut files = vec![csv_path];
    let how = match trials {
        Some(n) => format!(
            "Monte Carlo, {} trials per point, seed {seed}",
            thousands(n)
        ),
        None => "exact".into(),
    };
    if c.plots {
        let png = dir.join(format!("{stem}.png"));
        plot::sweep::draw(&s, &how, &png)?;
        files.push(png);
    }
    let f = |v: f64| {
        if s.probability {
            format!("{:.2}%", v * 100.0)
        } else {
            format!("{v:.3}")
        }
    };
    let mut md = format!(
        "### {}: {} as {} ({how})\n\n",
        s.scenario,
        s.what,
        s.keys
            .iter()
            .map(|k| k.key.clone())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    md.push_str(&format!(
        "| {} | {} | 95% CI | exact |\n|---|{}---:|---|---:|\n",
        s.keys
            .iter()
            .map(|k| k.key.clone())
            .collect::<Vec<_>>()
            .join(" | "),
        s.what,
        if s.keys.len() > 1 { "---|" } else { "" }
    ));
    for (i, row) in s.cells.iter().enumerate() {
        for (j, c) in row.iter().enumerate() {
            let mut keys = s.keys[0].values[i].to_string();
            if let Some(k) = s.keys.get(1) {
                keys.push_str(&format!(" | {}", k.values[j]));
            }
            md.push_str(&format!(
                "| {keys} | {} | {} .. {} | {} |\n",
                f(c.estimate),
                f(c.ci.0),
                f(c.ci.1),
                c.exact.map(f).unwrap_or("-".into())
            ));
        }
    }
    md.push('\n');
    md.push_str(&wrote(&files));
    Ok(md)
}
