//! Side by side: one metric's distribution for several scenarios (units, or variants of
//! one config against another with a rule switched) on one chart and one table.

use super::{Pick, Source};
use crate::engine;
use crate::error::AppError;
use crate::report::{self, MetricResult};
use crate::sim::Budget;
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
                "`{s}`: expected CONFIG:SCENARIO[:KEY=VALUE;...], e.g. configs/NAME.toml:SCENARIO"
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

/// The `--set`s and side changes of an entry's `KEY=VALUE`s, for scenario table `table`.
fn changes(
    source: &Source,
    table: &str,
    sets: &[String],
) -> Result<(Vec<String>, Vec<super::SideChange>), AppError> {
    let mut plain = Vec::new();
    let mut sides = Vec::new();
    for s in sets {
        let (k, val) = s
            .split_once('=')
            .ok_or_else(|| AppError::BadOption(format!("`{s}`: expected KEY=VALUE")))?;
        // A number is read as the one-value range the sweep parser knows.
        match val.trim().parse::<i64>() {
            Ok(n) => {
                let v = super::sweep::parse(source, table, &format!("{k}={n}..{n}"))?;
                match v.side() {
                    Some((role, rest)) => sides.push((role, rest, toml::Value::Integer(n))),
                    None => plain.push(format!("{}={n}", v.path())),
                }
            }
            Err(_) => {
                let path = if k.contains('.') {
                    k.to_string()
                } else {
                    format!("scenarios.{table}.{k}")
                };
                plain.push(format!("{path}={val}"));
            }
        }
    }
    Ok((plain, sides))
}

/// Each entry's metric, Monte Carlo and exact; a group name stands for all its members.
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
        let target = source.target(&e.scenario)?;
        let (sets, sides) = changes(&source, &target.table, &e.sets)?;
        let cfg = source.variant(&target.table, &sets, &sides)?;
        for member in &target.members {
            let c = super::compile(&cfg, member)?;
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
            let n = trials.unwrap_or(engine::DEFAULT_TRIALS);
            let h = engine::simulate(&c, seed, Budget::Trials(n), true, &engine::STOP)?;
            let r = report::summarize(&c, &h, seed, &source.stem(), source.base.system_name());
            let Some(mr) = r.metrics.into_iter().find(|x| x.name == m) else {
                return Err(AppError::BadOption(format!(
                    "no metric `{m}` in `{member}`"
                )));
            };
            if name.is_empty() {
                name = m;
            }
            let label = if target.group {
                e.label.replacen(&e.scenario, member, 1)
            } else {
                e.label.clone()
            };
            out.push((label, mr, n));
        }
    }
    Ok((name, out))
}
