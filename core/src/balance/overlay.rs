//! Side by side: one metric's distribution for several scenarios (units, or variants of
//! one config against another with a rule switched) on one chart and one table.

use super::{Pick, Share, Source};
use crate::edit::Edit;
use crate::results::{self, MetricResult};
use crate::run::{self, Hooks};
use crate::sim::Budget;
use crate::Error;
use std::path::PathBuf;

/// One entry: `CONFIG:SCENARIO`, optionally `:KEY=VALUE;KEY=VALUE` (keys as for sweep:
/// `attacker=goblin` is the scenario's key, `attacker.strength=2` the attacker's entry).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The config file, as given.
    pub config: PathBuf,
    /// The scenario's name in it.
    pub scenario: String,
    /// `--set` overrides for this entry alone.
    pub sets: Vec<String>,
    /// How the chart's legend and the table name it: `stem: scenario, sets`.
    pub label: String,
}

/// Read one `CONFIG:SCENARIO[:KEY=VALUE;...]` argument; the config is not opened yet.
pub fn parse_entry(s: &str) -> Result<Entry, Error> {
    let mut parts = s.splitn(3, ':');
    let (config, scenario) = match (parts.next(), parts.next()) {
        (Some(c), Some(sc)) if !c.is_empty() && !sc.is_empty() => (c, sc),
        _ => {
            return Err(Error::BadOption(format!(
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

/// The changes of an entry's `KEY=VALUE`s to scenario table `table`: a number for a key
/// as sweep reads it (`attacker.strength=2` the attacker's entry), else the value as a
/// `--set` writes it (`attacker=goblin` the scenario's own key).
fn changes(source: &Source, table: &str, sets: &[String]) -> Result<Vec<Edit>, Error> {
    let mut edits = Vec::new();
    for s in sets {
        let (k, val) = s
            .split_once('=')
            .ok_or_else(|| Error::BadOption(format!("`{s}`: expected KEY=VALUE")))?;
        // A number is read as the one-value range the sweep parser knows.
        match val.trim().parse::<i64>() {
            Ok(n) => {
                let v = super::sweep::parse(source, table, &format!("{k}={n}..{n}"))?;
                edits.push(v.edit(n));
            }
            Err(_) => {
                let path: Vec<String> = if k.contains('.') {
                    k.split('.').map(|x| x.trim().to_string()).collect()
                } else {
                    vec!["scenarios".into(), table.into(), k.trim().into()]
                };
                edits.push(Edit::Path {
                    path,
                    value: crate::document::parse_value(val.trim()),
                });
            }
        }
    }
    Ok(edits)
}

/// Each entry's metric, Monte Carlo and exact; a group name stands for all its members.
/// `load` reads an entry's config (the front end's files). Every entry is checked and
/// compiled first; the simulations are one spread ([`Share`]): a shard runs its share.
pub fn results(
    entries: &[Entry],
    load: &dyn Fn(&std::path::Path) -> Result<Source, Error>,
    metric: Option<&str>,
    seed: Option<u64>,
    trials: Option<u64>,
    ctx: Hooks,
    share: &Share,
) -> Result<(String, Vec<Shown>), Error> {
    /// One scenario to simulate, with what its row is called and read by.
    struct Item {
        label: String,
        member: String,
        metric: String,
        c: crate::model::Compiled,
        seed: u64,
        trials: u64,
        stem: String,
        system: String,
    }
    let mut items = Vec::new();
    for e in entries {
        let source = load(&e.config)?;
        let target = source.target(&e.scenario)?;
        let edits = changes(&source, &target.table, &e.sets)?;
        let cfg = source.apply(&edits)?;
        for member in &target.members {
            let c = super::compile(&cfg, member, ctx.cancel)?;
            let m = match metric {
                Some(m) => m.to_string(),
                None => c.metrics[c.headline.metric].name.clone(),
            };
            Pick::Mean { metric: m.clone() }
                .describe(&c)
                .or_else(|e| match e {
                    Error::BadOption(msg) if msg.contains("categorical") => Ok(String::new()),
                    other => Err(other),
                })?;
            let (seed, trials) = super::budget(&source, seed, trials, false);
            let label = if target.group {
                e.label.replacen(&e.scenario, member, 1)
            } else {
                e.label.clone()
            };
            items.push(Item {
                label,
                member: member.clone(),
                metric: m,
                c,
                seed,
                trials: trials.unwrap_or(run::DEFAULT_TRIALS),
                stem: source.stem(),
                system: source.base.system_name().to_string(),
            });
        }
    }
    let counts = share
        .spread("overlay entries", &items, |it| {
            Ok(run::simulate(&it.c, it.seed, Budget::Trials(it.trials), ctx)?.counts)
        })?
        .ok_or(Error::Deferred)?;
    let mut out = Vec::new();
    let mut name = String::new();
    for (it, counts) in items.into_iter().zip(counts) {
        let h = crate::sim::Histogram {
            counts,
            trials: it.trials,
        };
        let r = results::summarize(&it.c, &h, it.seed, &it.stem, &it.system);
        let Some(mr) = r.metrics.into_iter().find(|x| x.name == it.metric) else {
            return Err(Error::BadOption(format!(
                "no metric `{}` in `{}`",
                it.metric, it.member
            )));
        };
        if name.is_empty() {
            name = it.metric;
        }
        out.push((it.label, mr, it.trials));
    }
    Ok((name, out))
}
