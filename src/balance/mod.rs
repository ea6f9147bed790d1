//! Balance analysis across configs and systems: matchup matrices, sweeps, sensitivity
//! and the equalizer. All of them re-validate one config under different `--set`
//! overrides and run (or compute exactly) the same compiled scenarios `rollsim run` does,
//! so a cell of a matrix is the number `rollsim run --set ...` prints for that pair.

pub mod compare;
pub mod equalize;
pub mod overlay;
pub mod sensitivity;
pub mod sweep;

use crate::app::{self, AppError};
use crate::config::{self, reader::nearest_hint, AnalysisConfig};
use crate::model::Compiled;
use crate::report;
use crate::sim::Budget;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// What a balance command reads off a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Pick {
    /// The scenario's headline probability (P(slammer wins), P(kill), ...).
    Headline,
    /// P(metric takes one of these values).
    Values { metric: String, values: Vec<String> },
    /// The metric's mean (numeric metrics).
    Mean { metric: String },
}

impl Pick {
    /// `None`: the headline; `damage`: the mean of a numeric metric; `result=win,double`:
    /// the probability of those values.
    pub fn parse(s: Option<&str>) -> Pick {
        match s {
            None => Pick::Headline,
            Some(s) => match s.split_once('=') {
                Some((m, v)) => Pick::Values {
                    metric: m.trim().to_string(),
                    values: v.split(',').map(|x| x.trim().to_string()).collect(),
                },
                None => Pick::Mean {
                    metric: s.trim().to_string(),
                },
            },
        }
    }

    /// Whether the value is a probability (else an expectation).
    pub fn is_probability(&self) -> bool {
        !matches!(self, Pick::Mean { .. })
    }

    /// Check against a compiled scenario; returns what is measured, in words.
    pub fn describe(&self, c: &Compiled) -> Result<String, AppError> {
        let metric = |name: &str| {
            c.metrics.iter().find(|m| m.name == name).ok_or_else(|| {
                AppError::BadOption(format!(
                    "--metric {name}: scenario `{}` has no metric `{name}`{}; its metrics are {}",
                    c.name,
                    nearest_hint(name, c.metrics.iter().map(|m| m.name.as_str())),
                    c.metrics
                        .iter()
                        .map(|m| format!("`{}`", m.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        };
        match self {
            Pick::Headline => Ok(c.headline.label.clone()),
            Pick::Mean { metric: name } => {
                let m = metric(name)?;
                if !m.numeric {
                    return Err(AppError::BadOption(format!(
                        "--metric {name}: `{name}` is categorical; pick values, e.g. --metric {name}={}",
                        m.labels.last().cloned().unwrap_or_default()
                    )));
                }
                Ok(format!("expected {}", name.replace('_', " ")))
            }
            Pick::Values {
                metric: name,
                values,
            } => {
                let m = metric(name)?;
                for v in values {
                    if !m.labels.contains(v) {
                        return Err(AppError::BadOption(format!(
                            "--metric {name}={v}: `{name}` has no value `{v}`{}; its values are {}",
                            nearest_hint(v, m.labels.iter().map(String::as_str)),
                            m.labels
                                .iter()
                                .map(|l| format!("`{l}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )));
                    }
                }
                Ok(format!(
                    "P({} = {})",
                    name.replace('_', " "),
                    values.join(" or ")
                ))
            }
        }
    }
}

/// One measured number: Monte Carlo with its 95% CI, and the exact value if known. In
/// exact-only mode the estimate is the exact value and the interval has no width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub estimate: f64,
    pub ci: (f64, f64),
    pub exact: Option<f64>,
}

/// Measure `pick` on `c`: simulate with `trials` (None: exact only).
pub fn measure(
    c: &Compiled,
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
    quiet: bool,
) -> Result<Cell, AppError> {
    pick.describe(c)?;
    let Some(n) = trials else {
        let e = exact_value(c, pick).ok_or_else(|| {
            AppError::BadOption(format!(
                "scenario `{}` has no exact distribution: drop --exact-only",
                c.name
            ))
        })?;
        return Ok(Cell {
            estimate: e,
            ci: (e, e),
            exact: Some(e),
        });
    };
    let h = app::simulate(c, seed, Budget::Trials(n), quiet, &app::STOP)?;
    let r = report::summarize(c, &h, seed, "", "");
    let metric = |name: &str| r.metrics.iter().find(|m| m.name == *name);
    Ok(match pick {
        Pick::Headline => Cell {
            estimate: r.headline.probability,
            ci: (r.headline.ci_low, r.headline.ci_high),
            exact: r.headline.exact,
        },
        Pick::Mean { metric: name } => {
            let m = metric(name).expect("checked by describe");
            Cell {
                estimate: m.mean.unwrap_or(0.0),
                ci: m.mean_ci.unwrap_or((0.0, 0.0)),
                exact: m.exact_mean,
            }
        }
        Pick::Values {
            metric: name,
            values,
        } => {
            let m = c.metrics.iter().find(|m| m.name == *name).expect("checked");
            let idx: Vec<usize> = values
                .iter()
                .filter_map(|v| m.labels.iter().position(|l| l == v))
                .collect();
            let counts = m.project_counts(&h.counts);
            let k: u64 = idx.iter().map(|&i| counts[i]).sum();
            let z = crate::stats::z95();
            Cell {
                estimate: k as f64 / h.trials as f64,
                ci: crate::stats::wilson(k, h.trials, z),
                exact: exact_value(c, pick),
            }
        }
    })
}

/// The exact value of `pick`, if the scenario has an exact distribution.
pub fn exact_value(c: &Compiled, pick: &Pick) -> Option<f64> {
    let e = c.exact.as_ref()?;
    let by = |name: &str| c.metrics.iter().find(|m| m.name == name);
    Some(match pick {
        Pick::Headline => {
            let p = c.metrics[c.headline.metric].project_f64(e);
            c.headline.values.iter().map(|&v| p[v]).sum()
        }
        Pick::Mean { metric } => by(metric)?
            .project_f64(e)
            .iter()
            .enumerate()
            .map(|(v, p)| v as f64 * p)
            .sum(),
        Pick::Values { metric, values } => {
            let m = by(metric)?;
            let p = m.project_f64(e);
            values
                .iter()
                .filter_map(|v| m.labels.iter().position(|l| l == v))
                .map(|i| p[i])
                .sum()
        }
    })
}

/// What every balance command is told: the config, the scenario, what to read and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub config: PathBuf,
    pub scenario: String,
    /// `--metric` as [`Pick::parse`] reads it; None: the headline.
    pub metric: Option<String>,
    pub seed: Option<u64>,
    pub trials: Option<u64>,
    pub exact_only: bool,
    pub threads: Option<usize>,
    pub out: Option<PathBuf>,
    pub sets: Vec<String>,
    pub plots: bool,
}

impl Options {
    /// Defaults: the headline, the config's seed and trials, charts on.
    pub fn new(config: impl Into<PathBuf>, scenario: &str) -> Self {
        Options {
            config: config.into(),
            scenario: scenario.into(),
            metric: None,
            seed: None,
            trials: None,
            exact_only: false,
            threads: None,
            out: None,
            sets: Vec::new(),
            plots: true,
        }
    }

    /// Load the config, check the scenario, settle seed and trials, build the pool.
    pub fn prepare(&self) -> Result<Prepared, AppError> {
        let source = Source::load(&self.config, &self.sets)?;
        source.scenario(&self.scenario)?;
        let (seed, trials) = budget(&source, self.seed, self.trials, self.exact_only);
        Ok(Prepared {
            pick: Pick::parse(self.metric.as_deref()),
            pool: app::thread_pool(self.threads)?,
            source,
            seed,
            trials,
        })
    }
}

/// A balance command ready to compute.
pub struct Prepared {
    pub source: Source,
    pub pick: Pick,
    pub seed: u64,
    /// None: exact only.
    pub trials: Option<u64>,
    pub pool: rayon::ThreadPool,
}

/// "wrote a, b" for a command's stdout.
pub fn wrote(files: &[PathBuf]) -> String {
    format!(
        "wrote {}\n",
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The scenario keys that name a unit (or character, weapon, monster), per system, with
/// the table they name, in the order compare reads them: attacker first.
const ROLES: &[(&str, &str, &str)] = &[
    ("rush", "attacker", "units"),
    ("rush", "defender", "units"),
    ("rush", "thrower", "units"),
    ("rush", "catcher", "units"),
    ("rush", "unit", "units"),
    ("dozen", "attacker", "characters"),
    ("dozen", "defender", "characters"),
    ("dozen", "a", "characters"),
    ("dozen", "b", "characters"),
    ("dozen", "character", "characters"),
    ("dozen", "opponent", "characters"),
    ("descent", "weapon", "weapons"),
    ("descent", "target", "monsters"),
    ("descent", "hero", "heroes"),
    ("skirmish", "shooter", "units"),
    ("skirmish", "charger", "units"),
    ("skirmish", "a", "units"),
    ("skirmish", "target", "units"),
    ("skirmish", "b", "units"),
    ("skirmish", "unit", "units"),
];

/// A scenario key that names an entry of a table: `attacker` -> `units.orc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Role {
    pub key: String,
    pub table: String,
    pub id: String,
}

/// A config loaded once and re-validated under overrides.
pub struct Source {
    pub path: PathBuf,
    pub file: String,
    pub text: String,
    pub table: Table,
    pub base: AnalysisConfig,
    pub sets: Vec<String>,
}

impl Source {
    pub fn load(path: &Path, sets: &[String]) -> Result<Source, AppError> {
        let base = config::load(path, sets)?;
        let text = std::fs::read_to_string(path).map_err(|source| config::ConfigError::Read {
            file: path.display().to_string(),
            source,
        })?;
        let table: Table = text.parse().map_err(|e: toml::de::Error| {
            AppError::BadOption(format!("{}: {}", path.display(), e.message()))
        })?;
        Ok(Source {
            path: path.to_path_buf(),
            file: path.display().to_string(),
            text,
            table,
            base,
            sets: sets.to_vec(),
        })
    }

    /// The config with these overrides on top of the command line's.
    pub fn with(&self, extra: &[String]) -> Result<AnalysisConfig, AppError> {
        let mut sets = self.sets.clone();
        sets.extend_from_slice(extra);
        Ok(config::load_str(&self.text, &self.file, &sets)?)
    }

    /// A variant: the command line's overrides, then `sets`, then `sides`: changes to
    /// the entry one side of `scenario` names, as (role, key within the entry, value).
    /// When both sides name the same entry (an orc against an orc), the changed side gets
    /// its own copy, so a change to the attacker leaves the defender as it was.
    pub fn variant(
        &self,
        scenario: &str,
        sets: &[String],
        sides: &[(Role, String, Value)],
    ) -> Result<AnalysisConfig, AppError> {
        let mut t = self.table.clone();
        for s in self.sets.iter().chain(sets) {
            config::apply_set(&mut t, s)?;
        }
        let roles = self.roles(scenario)?;
        for (role, key, value) in sides {
            let shared = roles.iter().any(|r| r.key != role.key && r.id == role.id);
            let id = if shared {
                let copy = format!("{}_as_{}", role.id, role.key);
                let entries = t
                    .get_mut(&role.table)
                    .and_then(Value::as_table_mut)
                    .expect("roles name existing tables");
                let mut e = entries.get(&role.id).cloned().expect("role ids exist");
                if let Value::Table(et) = &mut e {
                    if !et.contains_key("name") {
                        et.insert("name".into(), Value::String(role.id.clone()));
                    }
                }
                entries.insert(copy.clone(), e);
                if let Some(sc) = t
                    .get_mut("scenarios")
                    .and_then(Value::as_table_mut)
                    .and_then(|s| s.get_mut(scenario))
                    .and_then(Value::as_table_mut)
                {
                    sc.insert(role.key.clone(), Value::String(copy.clone()));
                }
                copy
            } else {
                role.id.clone()
            };
            let path = format!("{}.{id}.{key}", role.table);
            config::apply_set(&mut t, &format!("{path}={}", value))?;
        }
        Ok(config::load_table(&t, &self.file)?)
    }

    /// An integer setting of an entry: `4` or a target string `"4+"`.
    pub fn int_of(&self, table: &str, id: &str, key: &str) -> Option<i64> {
        let mut v = self.table.get(table)?.get(id)?;
        for seg in key.split('.') {
            v = v.get(seg)?;
        }
        match v {
            Value::Integer(i) => Some(*i),
            Value::String(s) => s.trim().trim_end_matches('+').parse().ok(),
            _ => None,
        }
    }

    /// An integer key of the scenario itself.
    pub fn scenario_int(&self, scenario: &str, key: &str) -> Option<i64> {
        self.scenario(scenario).ok()?.get(key)?.as_integer()
    }

    /// Check a scenario name (a plain scenario, not a profile's point).
    pub fn scenario(&self, name: &str) -> Result<&Table, AppError> {
        match self
            .table
            .get("scenarios")
            .and_then(Value::as_table)
            .and_then(|t| t.get(name))
            .and_then(Value::as_table)
        {
            Some(t) => Ok(t),
            None => {
                let names = self.base.scenario_names();
                Err(AppError::UnknownScenario {
                    file: self.file.clone(),
                    name: name.to_string(),
                    hint: nearest_hint(name, names.iter().map(String::as_str)),
                })
            }
        }
    }

    /// The keys of scenario `name` that name entries of a table, attacker first.
    pub fn roles(&self, name: &str) -> Result<Vec<Role>, AppError> {
        let sc = self.scenario(name)?;
        let system = self.base.system_name();
        Ok(ROLES
            .iter()
            .filter(|(s, _, _)| *s == system)
            .filter_map(|(_, key, table)| {
                sc.get(*key).and_then(Value::as_str).map(|id| Role {
                    key: key.to_string(),
                    table: table.to_string(),
                    id: id.to_string(),
                })
            })
            .collect())
    }

    /// The ids of a table (`units`, `characters`, ...), in file order.
    pub fn ids(&self, table: &str) -> Vec<String> {
        self.table
            .get(table)
            .and_then(Value::as_table)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The display name of an entry (its `name`, else its id).
    pub fn display(&self, table: &str, id: &str) -> String {
        self.table
            .get(table)
            .and_then(Value::as_table)
            .and_then(|t| t.get(id))
            .and_then(Value::as_table)
            .and_then(|e| e.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(id)
            .to_string()
    }

    /// The config's file stem, for output names.
    pub fn stem(&self) -> String {
        self.path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("config")
            .to_string()
    }
}

/// Where a balance command writes: `--out`, else `reports/<config>/<what>`.
pub fn out_dir(source: &Source, out: &Option<PathBuf>, what: &str) -> PathBuf {
    out.clone()
        .unwrap_or_else(|| app::default_out(&source.path).join(what))
}

/// The seed and trials a balance command uses: the flags, else the config's, else the
/// defaults; `exact_only` means no trials.
pub fn budget(
    source: &Source,
    seed: Option<u64>,
    trials: Option<u64>,
    exact_only: bool,
) -> (u64, Option<u64>) {
    let seed = seed.or(source.base.run.seed).unwrap_or(app::DEFAULT_SEED);
    let trials = if exact_only {
        None
    } else {
        Some(
            trials
                .or(source.base.run.trials)
                .unwrap_or(app::DEFAULT_TRIALS),
        )
    };
    (seed, trials)
}

/// A stat a side's entry carries: which table, which key, which way is better, bounds.
struct Stat {
    system: &'static str,
    table: &'static str,
    key: &'static str,
    /// +1 if a higher number is better for its owner, -1 if lower is (rush targets).
    better: i64,
    lo: i64,
    hi: i64,
}

const STATS: &[Stat] = &[
    Stat {
        system: "rush",
        table: "units",
        key: "strength",
        better: -1,
        lo: 2,
        hi: 6,
    },
    Stat {
        system: "rush",
        table: "units",
        key: "speed",
        better: -1,
        lo: 2,
        hi: 6,
    },
    Stat {
        system: "rush",
        table: "units",
        key: "skill",
        better: -1,
        lo: 2,
        hi: 6,
    },
    Stat {
        system: "rush",
        table: "units",
        key: "armour",
        better: -1,
        lo: 2,
        hi: 6,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "dx",
        better: 1,
        lo: 1,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "co",
        better: 1,
        lo: 1,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "st",
        better: 1,
        lo: 1,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "ch",
        better: 1,
        lo: 1,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "aw",
        better: 1,
        lo: 1,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "weapon",
        better: 1,
        lo: 0,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "armour",
        better: 1,
        lo: 0,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "skills.melee",
        better: 1,
        lo: 0,
        hi: 12,
    },
    Stat {
        system: "dozen",
        table: "characters",
        key: "skills.endurance",
        better: 1,
        lo: 0,
        hi: 12,
    },
    Stat {
        system: "descent",
        table: "weapons",
        key: "pierce",
        better: 1,
        lo: 0,
        hi: 20,
    },
    Stat {
        system: "descent",
        table: "monsters",
        key: "armour",
        better: 1,
        lo: 0,
        hi: 20,
    },
    Stat {
        system: "descent",
        table: "monsters",
        key: "wounds",
        better: 1,
        lo: 1,
        hi: 100,
    },
    Stat {
        system: "skirmish",
        table: "units",
        key: "attack_dice",
        better: 1,
        lo: 0,
        hi: 10,
    },
    Stat {
        system: "skirmish",
        table: "units",
        key: "shoot",
        better: 1,
        lo: -20,
        hi: 20,
    },
    Stat {
        system: "skirmish",
        table: "units",
        key: "fight",
        better: 1,
        lo: -20,
        hi: 20,
    },
    Stat {
        system: "skirmish",
        table: "units",
        key: "target_value",
        better: 1,
        lo: 0,
        hi: 50,
    },
    Stat {
        system: "skirmish",
        table: "units",
        key: "defence",
        better: -1,
        lo: 1,
        hi: 11,
    },
    Stat {
        system: "skirmish",
        table: "units",
        key: "models",
        better: 1,
        lo: 1,
        hi: 100,
    },
];

/// Scenario keys that add dice to one side: (system, side key, dice key, lo, hi).
const DICE: &[(&str, &str, &str, i64, i64)] = &[
    ("rush", "attacker", "extra_dice", -60, 60),
    ("rush", "unit", "extra_dice", -60, 60),
    ("rush", "thrower", "extra_dice", -60, 60),
    ("rush", "defender", "defender_extra_dice", -60, 60),
    ("rush", "catcher", "catcher_extra_dice", -60, 60),
    ("dozen", "attacker", "attacker_extra_dice", -15, 15),
    ("dozen", "defender", "defender_extra_dice", -15, 15),
    ("dozen", "character", "extra_dice", -15, 15),
    ("dozen", "opponent", "opponent_extra_dice", -15, 15),
    ("descent", "weapon", "power_dice", 0, 5),
];

/// One change to try on one side: `by` steps in the direction that helps that side.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub role: Role,
    /// "dice", or the stat's key.
    pub what: String,
    /// How many steps (negative: worse for that side).
    pub by: i64,
    /// E.g. "attacker Orc: strength 3+ -> 2+".
    pub label: String,
    sets: Vec<String>,
    sides: Vec<(Role, String, Value)>,
}

impl Step {
    /// The config with this change.
    pub fn apply(&self, source: &Source, scenario: &str) -> Result<AnalysisConfig, AppError> {
        source.variant(scenario, &self.sets, &self.sides)
    }
}

/// Every change of `by` steps (in each side's favour; negative: against it) to the sides
/// of `scenario`: its dice and each stat of the entry it names, within their bounds.
pub fn steps(source: &Source, scenario: &str, by: i64) -> Result<Vec<Step>, AppError> {
    let system = source.base.system_name();
    let mut out = Vec::new();
    for role in source.roles(scenario)? {
        let name = source.display(&role.table, &role.id);
        for &(_, side, key, lo, hi) in DICE.iter().filter(|d| d.0 == system && d.1 == role.key) {
            let now = source
                .scenario_int(scenario, key)
                .unwrap_or(if system == "descent" {
                    source
                        .roles(scenario)?
                        .iter()
                        .find(|r| r.key == "hero")
                        .and_then(|h| source.int_of("heroes", &h.id, "power_dice"))
                        .unwrap_or(0)
                } else {
                    0
                });
            let new = now + by;
            if (lo..=hi).contains(&new) {
                out.push(Step {
                    role: role.clone(),
                    what: "dice".into(),
                    by,
                    label: format!(
                        "{side} {name}: {:+} {}",
                        by,
                        if by.abs() == 1 { "die" } else { "dice" }
                    ),
                    sets: vec![format!("scenarios.{scenario}.{key}={new}")],
                    sides: Vec::new(),
                });
            }
        }
        for st in STATS
            .iter()
            .filter(|s| s.system == system && s.table == role.table)
        {
            let Some(now) = source.int_of(&role.table, &role.id, st.key) else {
                continue;
            };
            let new = now + st.better * by;
            if !(st.lo..=st.hi).contains(&new) {
                continue;
            }
            let show = |v: i64| {
                if system == "rush" {
                    format!("{v}+")
                } else {
                    v.to_string()
                }
            };
            out.push(Step {
                role: role.clone(),
                what: st.key.into(),
                by,
                label: format!(
                    "{} {name}: {} {} -> {}",
                    role.key,
                    st.key,
                    show(now),
                    show(new)
                ),
                sets: Vec::new(),
                sides: vec![(role.clone(), st.key.to_string(), Value::Integer(new))],
            });
        }
    }
    Ok(out)
}
