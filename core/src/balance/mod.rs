//! Balance analysis: matchup matrices, sweeps, sensitivity, the equalizer and overlays.
//! Every command works through the system's [`Knobs`] (its sides, stats and dice): a
//! change is a typed [`Edit`] applied to the table the config's text was parsed into
//! once (with every `--set` on it), so which entry is on which side is read after every
//! `--set`. Each variant compiles the same scenarios `rollsim run` does, so a cell of a
//! matrix is the number `rollsim run --set ...` prints for that pair. Results go to
//! [`crate::results::analysis`]; nothing here writes a file or reads a global.

pub mod compare;
pub mod controls;
pub mod costs;
pub mod equalize;
pub mod metagame;
pub mod overlay;
pub mod roster;
pub mod sensitivity;
pub mod share;
pub mod sweep;

use crate::cancel::Cancel;
use crate::config::reader::nearest_hint;
use crate::document::{self, AnalysisConfig, CompileError, Overridden};
use crate::edit::{self, Edit};
use crate::model::Compiled;
use crate::results;
pub use crate::results::analysis::{Cell, Slot};
use crate::run::{self, Hooks};
use crate::sim::Budget;
use crate::systems::{Knobs, Shown};
use crate::Error;
pub use share::Share;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// What a balance command reads off a scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Pick {
    /// The scenario's headline probability (P(slammer wins), P(kill), ...).
    Headline,
    /// P(metric takes one of these values).
    Values {
        /// The metric's name.
        metric: String,
        /// The value labels that make up the event.
        values: Vec<String>,
    },
    /// The metric's mean (numeric metrics).
    Mean {
        /// The metric's name.
        metric: String,
    },
    /// The headline's win less its opposite (P(win) - P(loss), from -1 to 1): where a
    /// matchup can end in a draw, even is 0 here, not a 50% chance to win (which a
    /// side can reach while its opponent wins far less). See [`Headline::against`].
    ///
    /// [`Headline::against`]: crate::model::Headline::against
    Margin,
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
        !matches!(self, Pick::Mean { .. } | Pick::Margin)
    }

    /// The outcomes of `c`'s headline that are neither a win nor a loss, where it has an
    /// opposite ([`Headline::against`]) and draws are among its values.
    ///
    /// [`Headline::against`]: crate::model::Headline::against
    pub fn draws(c: &Compiled) -> Option<Pick> {
        let h = &c.headline;
        if h.against.is_empty() {
            return None;
        }
        let m = &c.metrics[h.metric];
        let values: Vec<String> = (0..m.labels.len())
            .filter(|v| !h.values.contains(v) && !h.against.contains(v))
            .map(|v| m.labels[v].clone())
            .collect();
        (!values.is_empty()).then(|| Pick::Values {
            metric: m.name.clone(),
            values,
        })
    }

    /// Check against a compiled scenario; returns what is measured, in words.
    pub fn describe(&self, c: &Compiled) -> Result<String, Error> {
        let metric = |name: &str| {
            c.metrics.iter().find(|m| m.name == name).ok_or_else(|| {
                Error::BadOption(format!(
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
            Pick::Margin => {
                let h = &c.headline;
                if h.against.is_empty() {
                    return Err(Error::BadOption(format!(
                        "scenario `{}`: its headline, {}, has no opposite to set against it",
                        c.name, h.label
                    )));
                }
                let m = &c.metrics[h.metric];
                let loss: Vec<&str> = h
                    .against
                    .iter()
                    .filter_map(|&v| m.labels.get(v).map(String::as_str))
                    .collect();
                Ok(format!("{} - P({})", h.label, loss.join(" or ")))
            }
            Pick::Mean { metric: name } => {
                let m = metric(name)?;
                if !m.numeric {
                    return Err(Error::BadOption(format!(
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
                        return Err(Error::BadOption(format!(
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

/// Measure `pick` on `c`: simulate with `trials` (None: exact only).
pub fn measure(
    c: &Compiled,
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
    ctx: Hooks,
) -> Result<Cell, Error> {
    measure_budget(c, pick, seed, trials.map(Budget::Trials), ctx)
}

/// [`measure`] with any budget: a fixed count, or a precision target (the main job's
/// gallery matrix runs each cell to the main job's precision). A cell shows one number,
/// so a precision target is met when that number's interval is narrow enough: the
/// scenario's other metrics, which the cell never shows, do not keep it running.
pub fn measure_budget(
    c: &Compiled,
    pick: &Pick,
    seed: u64,
    budget: Option<Budget>,
    ctx: Hooks,
) -> Result<Cell, Error> {
    pick.describe(c)?;
    // Stop between cells too, not only inside a simulation.
    ctx.check()?;
    let Some(budget) = budget else {
        let e = exact_value(c, pick).ok_or_else(|| {
            Error::BadOption(format!(
                "scenario `{}` has no exact distribution: drop --exact-only",
                c.name
            ))
        })?;
        return Ok(Cell {
            estimate: e,
            ci: (e, e),
            exact: Some(e),
            trials: 0,
        });
    };
    let z = crate::stats::z95();
    let shown = |h: &crate::sim::Histogram| match pick {
        Pick::Headline => {
            crate::stats::wilson_half_width(results::headline_count(c, h), h.trials, z)
        }
        Pick::Values { metric, values } => match c.metrics.iter().find(|m| m.name == *metric) {
            Some(m) => crate::stats::wilson_half_width(values_count(m, values, h), h.trials, z),
            None => results::widest_half_width(c, h),
        },
        // A mean's interval is not a probability's: every probability shown instead.
        Pick::Mean { .. } => results::widest_half_width(c, h),
        Pick::Margin => margin(c, h, z).1,
    };
    let h = run::simulate_shown(c, seed, budget, ctx, &shown)?;
    let r = results::summarize_floats(c, &h, seed);
    let metric = |name: &str| r.metrics.iter().find(|m| m.name == *name);
    Ok(match pick {
        Pick::Margin => {
            let (estimate, half) = margin(c, &h, z);
            Cell {
                estimate,
                ci: (estimate - half, estimate + half),
                exact: exact_value(c, pick),
                trials: h.trials,
            }
        }
        Pick::Headline => Cell {
            estimate: r.headline.probability,
            ci: (r.headline.ci_low, r.headline.ci_high),
            exact: r.headline.exact,
            trials: h.trials,
        },
        Pick::Mean { metric: name } => {
            let Some(m) = metric(name) else {
                return Err(Error::BadOption(format!("no metric `{name}`")));
            };
            Cell {
                estimate: m.mean.unwrap_or(0.0),
                ci: m.mean_ci.unwrap_or((0.0, 0.0)),
                exact: m.exact_mean,
                trials: h.trials,
            }
        }
        Pick::Values {
            metric: name,
            values,
        } => {
            let Some(m) = c.metrics.iter().find(|m| m.name == *name) else {
                return Err(Error::BadOption(format!("no metric `{name}`")));
            };
            let k = values_count(m, values, &h);
            Cell {
                estimate: k as f64 / h.trials as f64,
                ci: crate::stats::wilson(k, h.trials, z),
                exact: exact_value(c, pick),
                trials: h.trials,
            }
        }
    })
}

/// A target whose headline is a win that can end in a draw: balance commands say so,
/// and the equalizer seeks wins equal losses ([`Pick::Margin`]) by default.
#[derive(Clone, Debug, PartialEq)]
pub struct Draws {
    /// The target as given.
    pub scenario: String,
    /// The draw as an event: `P(outcome = both fall)`.
    pub what: String,
    /// Its chance in the target's first member as it is.
    pub chance: f64,
    /// The margin in words: `P(the fighter wins) - P(the orc wins)`.
    pub margin: String,
}

/// A chance of a draw below this (a duel to the end still unfinished after its last
/// activation, 1e-10 exact and never seen in 20,000 trials) leaves a win read as it is:
/// the share under which a chart folds a tail too.
pub const DRAW_MIN: f64 = 5e-4;

/// Where the target's first member can end in a draw (its headline has an opposite, and
/// the outcomes that are neither have a chance of [`DRAW_MIN`] or more), measured as the job measures
/// (exact where it can, else its trials, shared with the runs of the command).
pub fn draws(job: &Job) -> Result<Option<Draws>, Error> {
    let Some((_, unit)) = units(job.source, job.target, job.ctx.cancel)?
        .into_iter()
        .next()
    else {
        return Ok(None);
    };
    let (base, _) = choose(&job.source.base, &unit, job.ctx.cancel, |c| job.value(c))?;
    let Some(draw) = Pick::draws(&base) else {
        return Ok(None);
    };
    let chance = job.value_of(&base, &draw)?;
    if chance < DRAW_MIN {
        return Ok(None);
    }
    Ok(Some(Draws {
        scenario: job.target.name.clone(),
        what: draw.describe(&base)?,
        chance,
        margin: Pick::Margin.describe(&base)?,
    }))
}

/// P(win) - P(loss) from `hist`, and its 95% half-width (the normal interval of a
/// difference of two shares of one multinomial: variance (w + l - (w - l)^2) / n).
fn margin(c: &Compiled, hist: &crate::sim::Histogram, z: f64) -> (f64, f64) {
    let h = &c.headline;
    let counts = c.metrics[h.metric].project_counts(&hist.counts);
    let share = |vs: &[usize]| {
        vs.iter().filter_map(|&v| counts.get(v)).sum::<u64>() as f64 / hist.trials.max(1) as f64
    };
    let (w, l) = (share(&h.values), share(&h.against));
    let d = w - l;
    let var = (w + l - d * d).max(0.0) / hist.trials.max(1) as f64;
    (d, z * var.sqrt())
}

/// Trials in `hist` whose outcome of metric `m` is one of `values` (a name that is not
/// one of its values counts none).
fn values_count(m: &crate::model::Metric, values: &[String], hist: &crate::sim::Histogram) -> u64 {
    let counts = m.project_counts(&hist.counts);
    values
        .iter()
        .filter_map(|v| m.labels.iter().position(|l| l == v))
        .map(|i| counts[i])
        .sum()
}

/// The exact value of `pick`, if the scenario has an exact distribution.
pub fn exact_value(c: &Compiled, pick: &Pick) -> Option<f64> {
    let e = c.exact.as_ref()?;
    let by = |name: &str| c.metrics.iter().find(|m| m.name == name);
    Some(match pick {
        Pick::Headline => c.headline_exact()?,
        // From the fractions where there are some: P(win) and P(loss) summed as floats
        // in two orders can differ by an ulp where they are equal (15/36 each way), and
        // the equalizer would take an even duel for one just past even. A rules module
        // counts its fractions only when asked: asked here only where the floats say
        // the margin is within rounding of even.
        Pick::Margin => {
            let m = &c.metrics[c.headline.metric];
            let p = m.project_f64(e);
            let sum = |vs: &[usize]| vs.iter().filter_map(|&v| p.get(v)).sum::<f64>();
            let float = sum(&c.headline.values) - sum(&c.headline.against) + 0.0;
            let counted = c.exact_fractions.is_some() || float.abs() < 1e-9;
            match counted.then(|| c.metric_fractions(m)).flatten() {
                Some(p) => {
                    let side = |vs: &[usize], k: i64| {
                        vs.iter()
                            .filter_map(|&v| p.get(v))
                            .map(move |f| (f, k))
                            .collect::<Vec<_>>()
                    };
                    let mut parts = side(&c.headline.values, 1);
                    parts.extend(side(&c.headline.against, -1));
                    crate::fraction::Fraction::sum(parts).to_f64() + 0.0
                }
                None => float,
            }
        }
        Pick::Mean { metric } => {
            let m = by(metric)?;
            m.project_f64(e)
                .iter()
                .enumerate()
                .map(|(v, p)| m.value(v) * p)
                .sum()
        }
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

/// A scenario key that names an entry of a table: `attacker` -> `units.orc`.
#[derive(Clone, Debug, PartialEq)]
pub struct Role {
    /// The scenario key (`attacker`).
    pub key: String,
    /// The table it names an entry of (`units`).
    pub table: String,
    /// The entry it names now (`orc`).
    pub id: String,
}

/// What a name given to a balance command stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// As given.
    pub name: String,
    /// The `[scenarios.NAME]` table that defines it (and that variants edit).
    pub table: String,
    /// The scenarios to compile: the scenario itself, one member, or every member of a
    /// group, in `rollsim list` order.
    pub members: Vec<String>,
    /// Whether the name is a group (a profile or decision table).
    pub group: bool,
}

/// A config parsed once, with the command line's `--set`s applied, validated once; each
/// variant is that table with typed [`Edit`]s on top.
pub struct Source {
    /// What names the config in messages and output (its path as given).
    pub path: PathBuf,
    /// `path` as text, for messages.
    pub file: String,
    /// The parsed table with every `--set` applied: what the sides are now.
    pub table: Table,
    /// The config as the command line gives it.
    pub base: AnalysisConfig,
    /// The `--set KEY=VALUE` overrides, as given.
    pub sets: Vec<String>,
    overridden: Overridden,
    knobs: Knobs,
    /// The command's stop: a variant's checks ([`Source::apply`]) stop at it too.
    cancel: Cancel,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("file", &self.file)
            .field("sets", &self.sets)
            .finish()
    }
}

impl Source {
    /// Parse and validate a config's text once, with `--set KEY=VALUE` overrides, where
    /// nothing asks it to stop (a test, a benchmark).
    pub fn parse(text: &str, path: &Path, sets: &[String]) -> Result<Source, Error> {
        Self::parse_until(text, path, sets, &Cancel::new())
    }

    /// [`Source::parse`] for a command Ctrl-C may stop: its checks (a roll's exact
    /// distribution) stop at `cancel`, the parse then returning [`Error::Interrupted`].
    pub fn parse_until(
        text: &str,
        path: &Path,
        sets: &[String],
        cancel: &Cancel,
    ) -> Result<Source, Error> {
        Self::read_until(text.as_bytes().to_vec(), path, sets, cancel).map(|(source, _)| source)
    }

    /// [`Source::parse_until`] of a config file's bytes as read, decoded, parsed and
    /// checked in one go (bytes that are not UTF-8 are refused at their line and
    /// column); with the text they are, which a shard's part carries.
    pub fn read_until(
        bytes: Vec<u8>,
        path: &Path,
        sets: &[String],
        cancel: &Cancel,
    ) -> Result<(Source, String), Error> {
        let file = path.display().to_string();
        let text = document::text_of(bytes, &file)?;
        let mut table = document::parse(&text, &file)?;
        // The file's own keys, kept only while there are changes to check against them.
        let as_written = (!sets.is_empty()).then(|| table.clone());
        let overridden = document::apply_sets(&mut table, sets)?;
        let base = document::validate_located(&table, &file, Some(&text), &overridden, cancel);
        cancel.check()?;
        let base = base?;
        if let Some(t) = as_written {
            document::refuse_unread(&t, &overridden, &base, &file)?;
        }
        let knobs = base.knobs();
        let source = Source {
            path: path.to_path_buf(),
            file,
            table,
            base,
            sets: sets.to_vec(),
            overridden,
            knobs,
            cancel: cancel.clone(),
        };
        Ok((source, text))
    }

    /// The config's knobs: its own when it declares them, else its system's.
    pub fn knobs(&self) -> &Knobs {
        &self.knobs
    }

    /// The role keys of the config's system, for [`Edit::apply`].
    fn role_keys(&self) -> Vec<&str> {
        self.knobs.roles.iter().map(|r| r.key).collect()
    }

    /// Resolve a scenario name, a group member or a group name, as `rollsim list` prints
    /// them.
    pub fn target(&self, name: &str) -> Result<Target, Error> {
        let infos = self.base.scenarios();
        if let Some(i) = infos.iter().find(|i| i.name == name) {
            return Ok(Target {
                name: name.into(),
                table: i.table.clone(),
                members: vec![i.name.clone()],
                group: false,
            });
        }
        let members: Vec<String> = infos
            .iter()
            .filter(|i| i.member && i.table == name)
            .map(|i| i.name.clone())
            .collect();
        if !members.is_empty() {
            return Ok(Target {
                name: name.into(),
                table: name.into(),
                members,
                group: true,
            });
        }
        let mut names: Vec<String> = infos.iter().map(|i| i.name.clone()).collect();
        names.extend(infos.iter().filter(|i| i.member).map(|i| i.table.clone()));
        Err(Error::UnknownScenario {
            file: self.file.clone(),
            name: name.to_string(),
            hint: nearest_hint(name, names.iter().map(String::as_str)),
        })
    }

    /// The config with these edits on top of the command line's `--set`s: the table
    /// parsed once, edited, validated. A value the rules refuse is reported against the
    /// `--set` that wrote it, else as a change to the config. Its checks stop at the
    /// token the source was parsed with ([`Error::Interrupted`]).
    pub fn apply(&self, edits: &[Edit]) -> Result<AnalysisConfig, Error> {
        if edits.is_empty() {
            return Ok(self.base.clone());
        }
        let t = edit::applied(&self.table, edits, &self.role_keys())
            .map_err(|e| Error::BadOption(e.to_string()))?;
        let cfg = document::validate_located(&t, &self.file, None, &self.overridden, &self.cancel);
        self.cancel.check()?;
        Ok(cfg?)
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

    /// An integer key of a scenario table.
    pub fn scenario_int(&self, scenario: &str, key: &str) -> Option<i64> {
        self.scenario(scenario).ok()?.get(key)?.as_integer()
    }

    /// The `[scenarios.NAME]` table called `name`, as the `--set`s left it.
    pub fn scenario(&self, name: &str) -> Result<&Table, Error> {
        self.table
            .get("scenarios")
            .and_then(Value::as_table)
            .and_then(|t| t.get(name))
            .and_then(Value::as_table)
            .ok_or_else(|| Error::UnknownScenario {
                file: self.file.clone(),
                name: name.to_string(),
                hint: nearest_hint(name, self.base.scenario_names().iter().map(String::as_str)),
            })
    }

    /// The keys of scenario table `name` that name entries of a table, attacker first,
    /// with the entries they name after every `--set`.
    pub fn roles(&self, name: &str) -> Result<Vec<Role>, Error> {
        let sc = self.scenario(name)?;
        Ok(self
            .knobs
            .roles
            .iter()
            .filter_map(|r| {
                sc.get(r.key).and_then(Value::as_str).map(|id| Role {
                    key: r.key.to_string(),
                    table: r.table.to_string(),
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

/// Compile `name` from a variant, or say why it does not exist there. Every variant
/// passes here, so Ctrl-C is checked here too.
pub fn compile(cfg: &AnalysisConfig, name: &str, cancel: &Cancel) -> Result<Compiled, Error> {
    cancel.check()?;
    let c = cfg.compile_with(name, cancel);
    // A pass the token stopped is an interruption, not a scenario without exact values.
    cancel.check()?;
    c.map_err(|e| match e {
        CompileError::Unknown { name, hint } => Error::UnknownScenario {
            file: cfg.file.display().to_string(),
            name,
            hint,
        },
        other => Error::Compile(other),
    })
}

/// Whether the members of `target` are the choices of a decision table.
pub fn is_decision(source: &Source, target: &Target, cancel: &Cancel) -> Result<bool, Error> {
    if !target.group {
        return Ok(false);
    }
    let c = compile(&source.base, &target.members[0], cancel)?;
    Ok(c.group.is_some_and(|g| g.choice))
}

/// What a per-scenario result is read from: each member on its own, or for a decision
/// table all its choices at once (the defender then takes the one worst for the
/// attacker). Each unit: its label and its scenarios.
pub fn units(
    source: &Source,
    target: &Target,
    cancel: &Cancel,
) -> Result<Vec<(String, Vec<String>)>, Error> {
    Ok(if is_decision(source, target, cancel)? {
        vec![(
            format!("{} (best choice)", target.name),
            target.members.clone(),
        )]
    } else {
        target
            .members
            .iter()
            .map(|m| (m.clone(), vec![m.clone()]))
            .collect()
    })
}

/// Compile a unit from `cfg`: its one scenario, or the choice with the lowest `pick`
/// (measured as `value` measures it) with its name.
pub fn choose(
    cfg: &AnalysisConfig,
    unit: &[String],
    cancel: &Cancel,
    value: impl Fn(&Compiled) -> Result<f64, Error>,
) -> Result<(Compiled, Option<String>), Error> {
    if let [one] = unit {
        return Ok((compile(cfg, one, cancel)?, None));
    }
    let mut best: Option<(f64, Compiled, String)> = None;
    for name in unit {
        let c = compile(cfg, name, cancel)?;
        let v = value(&c)?;
        if best.as_ref().is_none_or(|(b, _, _)| v < *b) {
            best = Some((v, c, name.clone()));
        }
    }
    let (_, c, name) = best.ok_or_else(|| Error::BadOption("no choice to take".into()))?;
    Ok((c, Some(name)))
}

/// The seed and trials a balance command uses: the flags, else the config's, else the
/// defaults; `exact_only` means no trials.
pub fn budget(
    source: &Source,
    seed: Option<u64>,
    trials: Option<u64>,
    exact_only: bool,
) -> (u64, Option<u64>) {
    let seed = seed.or(source.base.run.seed).unwrap_or(run::DEFAULT_SEED);
    let trials = if exact_only {
        None
    } else {
        Some(
            trials
                .or(source.base.run.trials)
                .unwrap_or(run::DEFAULT_TRIALS),
        )
    };
    (seed, trials)
}

/// What a balance command computes with once the config is loaded: the target, what is
/// read off it, the seed and the trials (None: exact only), and the context.
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    /// The config, parsed once.
    pub source: &'a Source,
    /// The scenario or group the command was given.
    pub target: &'a Target,
    /// What is read off each variant.
    pub pick: &'a Pick,
    /// The seed every variant is run with.
    pub seed: u64,
    /// Trials per variant; `None`: exact only.
    pub trials: Option<u64>,
    /// The stop token and progress sink.
    pub ctx: Hooks<'a>,
    /// Which of the command's items this process computes ([`Share`]).
    pub share: &'a Share,
}

impl Job<'_> {
    /// `f` over `items` as the job's [`Share`] says; `None` on a shard (it computed and
    /// recorded its own items; the rest is on the other shards).
    pub fn spread<I: Sync, T: Send + serde::Serialize + serde::de::DeserializeOwned + PartialEq>(
        &self,
        label: &str,
        items: &[I],
        f: impl Fn(&I) -> Result<T, Error> + Sync + Send,
    ) -> Result<Option<Vec<T>>, Error> {
        // Counted in items: a sweep of 40,000 exact points takes minutes, and its pace
        // says so early (each point is a variant of its own, too short for a bar).
        let progress = self.ctx.progress.items(label);
        let total = match self.share {
            Share::Part { n, .. } => (items.len() as u64).div_ceil(*n),
            _ => items.len() as u64,
        };
        progress.set_total(total);
        let got = self.share.spread(label, items, |i| {
            let r = f(i);
            progress.advance(1);
            r
        });
        progress.finish();
        got
    }

    /// The value of the pick on `c`: exact in exact-only mode where there is one, else
    /// simulated (at the default count when the job is exact-only and `c` has no exact
    /// distribution).
    pub fn value(&self, c: &Compiled) -> Result<f64, Error> {
        self.value_of(c, self.pick)
    }

    /// As [`Job::value`], for another pick.
    pub fn value_of(&self, c: &Compiled, p: &Pick) -> Result<f64, Error> {
        match (self.trials, exact_value(c, p)) {
            (None, Some(e)) => Ok(e),
            _ => Ok(measure(
                c,
                p,
                self.seed,
                self.trials.or(Some(run::DEFAULT_TRIALS)),
                self.ctx,
            )?
            .estimate),
        }
    }
}

/// `f` over every item, results in order: side by side on rayon's pool with the
/// `parallel` feature (each item is a variant of its own, so the results are the same
/// either way). Of several errors, the first item's is returned, whichever finished
/// first. Items are taken in [`spread_order`], so the pace of the first few says how
/// long all will take.
pub fn each<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(&I) -> Result<T, Error> + Sync + Send,
) -> Result<Vec<T>, Error> {
    let order = spread_order(items.len());
    let one = |&i: &usize| (i, f(&items[i]));
    #[cfg(feature = "parallel")]
    let done: Vec<(usize, Result<T, Error>)> = {
        use rayon::prelude::*;
        order.par_iter().map(one).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let done: Vec<(usize, Result<T, Error>)> = order.iter().map(one).collect();
    let mut slots: Vec<Option<Result<T, Error>>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in done {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

/// 0..n in strides of about n / 1.618 (coprime with n, so every index comes once): any
/// stretch of the order samples the whole list. A sweep's points grow in cost along its
/// axes (100d10 takes longer than 1d10); taken in order, the first seconds would see
/// the cheap end only and promise a 77 s sweep in 20.
pub fn spread_order(n: usize) -> Vec<usize> {
    if n < 3 {
        return (0..n).collect();
    }
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let n64 = n as u64;
    let mut step = ((n as f64) * 0.618_033_988_75) as u64;
    while gcd(step, n64) != 1 {
        step += 1;
    }
    (0..n64)
        .map(|i| (u128::from(i) * u128::from(step) % u128::from(n64)) as usize)
        .collect()
}

/// A step's `what` when it adds or takes away dice (a stat step names its key).
pub const POOL_STEP: &str = "pool";

/// One change to try on one side (or two changes at once): `by` steps in the direction
/// that helps that side.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The side it is for, and the entry that side names.
    pub role: Role,
    /// [`POOL_STEP`], or the stat's key.
    pub what: String,
    /// How many steps (negative: worse for that side).
    pub by: i64,
    /// E.g. "attacker Orc: strength 3+ -> 2+".
    pub label: String,
    /// What the step changes, in order.
    pub edits: Vec<Edit>,
}

impl Step {
    /// The config with this change.
    pub fn apply(&self, source: &Source) -> Result<AnalysisConfig, Error> {
        source.apply(&self.edits)
    }

    /// Both changes at once (`size` adds up).
    pub fn and(&self, other: &Step) -> Step {
        let mut s = self.clone();
        s.label = format!("{} and {}", self.label, other.label);
        s.by = self.by.abs() + other.by.abs();
        s.what = format!("{}+{}", self.what, other.what);
        s.edits.extend(other.edits.iter().cloned());
        s
    }
}

/// Every change of `by` steps (in each side's favour; negative: against it) to the sides
/// of scenario table `scenario`: its dice and each stat of the entry it names (after
/// every `--set`), within the bounds the system validates.
pub fn steps(source: &Source, scenario: &str, by: i64) -> Result<Vec<Step>, Error> {
    let knobs = source.knobs();
    let roles = source.roles(scenario)?;
    let mut out = Vec::new();
    for role in &roles {
        let name = source.display(&role.table, &role.id);
        for d in knobs.dice.iter().filter(|d| d.side == role.key) {
            let fallback = d.default_from.and_then(|(from, key)| {
                let r = roles.iter().find(|r| r.key == from)?;
                source.int_of(&r.table, &r.id, key)
            });
            let now = source
                .scenario_int(scenario, d.key)
                .or(fallback)
                .unwrap_or(0);
            let new = now + by;
            if (d.lo..=d.hi).contains(&new) {
                out.push(Step {
                    role: role.clone(),
                    what: POOL_STEP.into(),
                    by,
                    label: format!(
                        "{} {name}: {:+} {}",
                        role.key,
                        by,
                        if by.abs() == 1 { d.noun.0 } else { d.noun.1 }
                    ),
                    edits: vec![Edit::Scenario {
                        scenario: scenario.into(),
                        key: d.key.into(),
                        value: Value::Integer(new),
                    }],
                });
            }
        }
        for st in knobs.stats.iter().filter(|s| s.table == role.table) {
            let Some(now) = source.int_of(&role.table, &role.id, &st.key) else {
                continue;
            };
            let new = now + st.better * by;
            if !(st.lo..=st.hi).contains(&new) {
                continue;
            }
            let show = |v: i64| match st.shown {
                Shown::Target => format!("{v}+"),
                Shown::Plain => v.to_string(),
            };
            out.push(Step {
                role: role.clone(),
                what: st.key.to_string(),
                by,
                label: format!(
                    "{} {name}: {} {} -> {}",
                    role.key,
                    st.key,
                    show(now),
                    show(new)
                ),
                edits: vec![Edit::Side {
                    scenario: scenario.into(),
                    role: role.key.clone(),
                    table: role.table.clone(),
                    key: st.key.to_string(),
                    value: Value::Integer(new),
                }],
            });
        }
    }
    Ok(out)
}

/// What a balance command (`sensitivity`, `equalize`) says of a scenario it has nothing
/// to step in: the command line and the live page in the same words.
pub fn nothing_to_change(command: &str, scenario: &str) -> String {
    format!(
        "{command}: nothing to change in `{scenario}`: its roll reads no unit's stat and no dice count this command can step. Give the scenario a unit whose stats the roll reads (`unit = \"NAME\"`), or step a number of your own with `rollsim sweep --vary KEY=LO..HI`"
    )
}

#[cfg(test)]
mod tests {
    use super::{each, spread_order};

    #[test]
    fn the_spread_order_takes_every_item_once_and_samples_the_whole_list_early() {
        for n in 0..300 {
            let mut o = spread_order(n);
            // Every tenth of the order reaches every quarter of the list (of 100 or more).
            if n >= 100 {
                for tenth in o.chunks_exact(n / 10) {
                    for q in 0..4 {
                        let (lo, hi) = (q * n / 4, (q + 1) * n / 4);
                        assert!(tenth.iter().any(|&i| (lo..hi).contains(&i)), "{n}");
                    }
                }
            }
            o.sort_unstable();
            assert_eq!(o, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn each_gives_results_in_item_order_and_the_first_items_error() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(
            each(&items, |&i| Ok(i * 2)).unwrap(),
            (0..1000).map(|i| i * 2).collect::<Vec<_>>()
        );
        let e = each(&items, |&i| {
            if i % 300 == 299 {
                Err(crate::Error::BadOption(format!("item {i}")))
            } else {
                Ok(i)
            }
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            crate::Error::BadOption("item 299".into()).to_string()
        );
    }
}
