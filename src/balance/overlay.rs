//! Side by side: one metric's distribution for several scenarios (units, or variants of
//! one config such as rush.toml against rush-exploding.toml) on one chart and one table.

use super::{Pick, Source};
use crate::app::{self, AppError};
use crate::report::{self, csv, markdown::thousands, plot, write::WriteError, MetricResult};
use crate::sim::Budget;
use polars::prelude::*;
use std::path::PathBuf;

/// One entry: `CONFIG:SCENARIO`, optionally `:KEY=VALUE;KEY=VALUE` (keys as for sweep:
/// `attacker=goblin` is the scenario's key, `attacker.strength=2` the attacker's entry).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub config: PathBuf,
    pub scenario: String,
    pub sets: Vec<String>,
    pub label: String,
}

pub fn parse_entry(s: &str) -> Result<Entry, AppError> {
    let mut parts = s.splitn(3, ':');
    let (config, scenario) = match (parts.next(), parts.next()) {
        (Some(c), Some(sc)) if !c.is_empty() && !sc.is_empty() => (c, sc),
        _ => {
            return Err(AppError::BadOption(format!(
                "`{s}`: expected CONFIG:SCENARIO[:KEY=VALUE;...], e.g. configs/rush.toml:slam-orc-vs-human-guard"
            )))
        }
    };
    let sets: Vec<String> = parts
        .next()
        .map(|x| {
            x.split(';')
                .map(|y| y.trim().to_string())
                .filter(|y| !y.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let stem = std::path::Path::new(config)
        .file_stem()
        .and_then(|x| x.to_str())
        .unwrap_or(config);
    let label = if sets.is_empty() {
        format!("{stem}: {scenario}")
    } else {
        format!("{stem}: {scenario}, {}", sets.join(", "))
    };
    Ok(Entry {
        config: PathBuf::from(config),
        scenario: scenario.to_string(),
        label,
        sets,
    })
}

/// One entry's label, its metric and the trials behind it.
pub type Shown = (String, MetricResult, u64);

pub struct OverlayOptions {
    pub entries: Vec<String>,
    pub metric: Option<String>,
    pub seed: Option<u64>,
    pub trials: Option<u64>,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    pub plots: bool,
}

/// Each entry's metric, Monte Carlo and exact.
pub fn results(
    entries: &[Entry],
    metric: Option<&str>,
    seed: Option<u64>,
    trials: Option<u64>,
) -> Result<(String, Vec<Shown>), AppError> {
    let mut out = Vec::new();
    let mut name = String::new();
    for e in entries {
        let source = Source::load(&e.config, &[])?;
        source.scenario(&e.scenario)?;
        let mut sets = Vec::new();
        let mut sides = Vec::new();
        for s in &e.sets {
            let v = super::sweep::parse(
                &source,
                &e.scenario,
                &format!("{}..{}", s, s.rsplit('=').next().unwrap_or("")),
            );
            // KEY=VALUE is KEY=VALUE..VALUE for the sweep parser when VALUE is a number.
            match v {
                Ok(v) => match v.side() {
                    Some((role, rest)) => {
                        sides.push((role, rest, toml::Value::Integer(v.values[0])))
                    }
                    None => sets.push(format!("{}={}", v.path(), v.values[0])),
                },
                Err(_) => {
                    let (k, val) = s
                        .split_once('=')
                        .ok_or_else(|| AppError::BadOption(format!("`{s}`: expected KEY=VALUE")))?;
                    let path = if k.contains('.') {
                        k.to_string()
                    } else {
                        format!("scenarios.{}.{k}", e.scenario)
                    };
                    sets.push(format!("{path}={val}"));
                }
            }
        }
        let cfg = source.variant(&e.scenario, &sets, &sides)?;
        let c = cfg.compile(&e.scenario).expect("checked");
        let m = match metric {
            Some(m) => m.to_string(),
            None => c.metrics[c.headline.metric].name.clone(),
        };
        Pick::Mean { metric: m.clone() }
            .describe(&c)
            .or_else(|e| match e {
                AppError::BadOption(msg) if msg.contains("categorical") => Ok(String::new()),
                other => Err(other),
            })?;
        let (seed, trials) = super::budget(&source, seed, trials, false);
        let n = trials.unwrap_or(app::DEFAULT_TRIALS);
        let h = app::simulate(&c, seed, Budget::Trials(n), true, &app::STOP)?;
        let r = report::summarize(&c, &h, seed, &source.stem(), source.base.system_name());
        let mr = r
            .metrics
            .into_iter()
            .find(|x| x.name == m)
            .expect("checked by describe");
        if name.is_empty() {
            name = m;
        }
        out.push((e.label.clone(), mr, n));
    }
    Ok((name, out))
}

pub fn run(o: &OverlayOptions) -> Result<String, AppError> {
    if o.entries.len() < 2 {
        return Err(AppError::BadOption(
            "give two or more CONFIG:SCENARIO entries to set side by side".into(),
        ));
    }
    let entries = o
        .entries
        .iter()
        .map(|e| parse_entry(e))
        .collect::<Result<Vec<_>, _>>()?;
    let pool = app::thread_pool(o.threads)?;
    let (metric, rows) =
        pool.install(|| results(&entries, o.metric.as_deref(), o.seed, o.trials))?;
    let dir = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join("overlay"));
    std::fs::create_dir_all(&dir).map_err(|e| WriteError::io(&dir, e))?;
    // The union of values, in order of first appearance.
    let mut values: Vec<String> = Vec::new();
    for (_, m, _) in &rows {
        for r in &m.rows {
            if !values.contains(&r.label) {
                values.push(r.label.clone());
            }
        }
    }
    let (mut ent, mut val, mut p, mut lo, mut hi, mut ex) = (
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        Vec::<Option<f64>>::new(),
    );
    for (label, m, _) in &rows {
        for v in &values {
            let r = m.rows.iter().find(|r| &r.label == v);
            ent.push(label.clone());
            val.push(v.clone());
            p.push(r.map_or(0.0, |r| r.probability));
            lo.push(r.map_or(0.0, |r| r.ci_low));
            hi.push(r.map_or(0.0, |r| r.ci_high));
            ex.push(r.and_then(|r| r.exact));
        }
    }
    let mut df = df!("entry" => ent, "value" => val, "probability" => p, "ci_low" => lo, "ci_high" => hi, "exact" => ex)?;
    let path = dir.join(format!("overlay-{metric}.csv"));
    csv::write(&mut df, &path)?;
    let mut files = vec![path];
    if o.plots {
        let png = dir.join(format!("overlay-{metric}.png"));
        plot::overlay::draw(&metric, &rows, &values, &png)?;
        files.push(png);
    }
    let mut md = format!("### {metric}, side by side\n\n| value |");
    for (label, _, n) in &rows {
        md.push_str(&format!(" {label} ({} trials) |", thousands(*n)));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(rows.len()));
    md.push('\n');
    for v in &values {
        md.push_str(&format!("| {v} |"));
        for (_, m, _) in &rows {
            match m.rows.iter().find(|r| &r.label == v) {
                Some(r) => md.push_str(&format!(
                    " {:.2}%{} |",
                    r.probability * 100.0,
                    r.exact
                        .map_or(String::new(), |e| format!(" ({:.2}%)", e * 100.0))
                )),
                None => md.push_str(" - |"),
            }
        }
        md.push('\n');
    }
    md.push_str(&format!(
        "\nexact in parentheses; wrote {}\n",
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    Ok(md)
}
