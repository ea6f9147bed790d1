//! The knobs of one scenario as the live page shows them: each a control holding the value
//! it has now (after every `--set`), and each change written as the `--set KEY=VALUE` that
//! makes it. The page's whole state is then a list of `--set` arguments: the URL keeps
//! it, "Save as" writes it, and `rollsim run --set ...` reproduces the numbers shown.
//!
//! Controls reach a unit's stat through the entry the side names *now* (`units.orc.strength`
//! after `--set scenarios.slam.attacker=orc`), the way a designer thinks of a stat line:
//! tuning the Orc changes every scenario the Orc is in.

use super::{Source, Target};
use crate::edit::Edit;
use crate::systems::{Reading, ReadingKind, Shown};
use crate::Error;
use serde::Serialize;
use toml::Value;

/// The extra dice a slider offers (the rules allow ±60, a slider that wide is useless);
/// widened to take the scenario's own count.
const DICE_WINDOW: (i64, i64) = (-6, 12);

/// A stat whose range is wider than this either side (a `dice` unit's stats go from
/// -1000 to 1000) gets a slider this far either side of its value instead.
const WIDE: i64 = 20;

/// `lo..=hi` as a slider shows it: the whole range, or a window around `value`. A window
/// keeps the value's side of zero: a wide stat is a `dice` unit's own, whose meaning the
/// rules do not know, and one the config gives as positive is a count, a score or a
/// die's size (hit points, a damage die) far more often than a modifier, so its slider
/// runs from 0, not from -8 (its loads move that to 1 where it sizes a die).
fn window(lo: i64, hi: i64, value: i64) -> (i64, i64) {
    if hi - lo > 2 * WIDE {
        let (a, b) = ((value - WIDE).max(lo), (value + WIDE).min(hi));
        match value.signum() {
            1 => (a.max(0), b),
            -1 => (a, b.min(0)),
            _ => (a, b),
        }
    } else {
        (lo.min(value), hi.max(value))
    }
}

/// One control of the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Control {
    /// The heading it is shown under: `attacker: Orc`, `scenario`, `rules`.
    pub section: String,
    /// Its name beside the control: `strength`, `extra_dice`, `attacker`.
    pub label: String,
    /// The key path a `--set` writes (`units.orc.strength`).
    pub key: String,
    /// What kind of input it is, with its current value.
    #[serde(flatten)]
    pub kind: ControlKind,
}

/// A control's input and its current value, as the page draws it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ControlKind {
    /// An integer in `lo..=hi` (a slider). `target`: shown as `4+`, and lower is better.
    Number {
        /// The slider's left end.
        lo: i64,
        /// The slider's right end.
        hi: i64,
        /// The value now.
        value: i64,
        /// A target to roll: shown as `4+`, lower is better.
        target: bool,
        /// The config writes it as a string (`"4+"`), so a change is written that way too.
        quoted: bool,
    },
    /// One of these names (a select).
    Choice {
        /// Every name it may take.
        choices: Vec<String>,
        /// The name now.
        value: String,
    },
    /// On or off (a checkbox).
    Flag {
        /// On now.
        value: bool,
    },
}

impl Control {
    /// The `--set` argument that gives this control `value` (as the page sends it: an
    /// integer, a name, `true`/`false`).
    pub fn set(&self, value: &str) -> String {
        match &self.kind {
            ControlKind::Number { quoted: true, .. } => format!("{}={value}+", self.key),
            _ => format!("{}={value}", self.key),
        }
    }
}

/// Every control of `target` (a scenario, a member or a group: the group's own table),
/// in the order the page shows them: each side (the entry it names, that entry's stats,
/// the side's extra dice), then the scenario's responses, then the rules' readings.
/// A dice or response key the scenario does not set is offered only where the config
/// validates with it (not every kind of scenario takes `extra_dice`).
pub fn controls(source: &Source, target: &Target) -> Result<Vec<Control>, Error> {
    let knobs = source.knobs();
    let table = &target.table;
    let scenario = source.scenario(table)?;
    let roles = source.roles(table)?;
    let accepts = |key: &str, value: Value| -> bool {
        scenario.contains_key(key)
            || source
                .apply(&[Edit::Scenario {
                    scenario: table.clone(),
                    key: key.into(),
                    value,
                }])
                .is_ok()
    };
    let mut out = Vec::new();
    for role in &roles {
        let section = format!("{}: {}", role.key, source.display(&role.table, &role.id));
        out.push(Control {
            section: section.clone(),
            label: role.key.clone(),
            key: format!("scenarios.{table}.{}", role.key),
            kind: ControlKind::Choice {
                choices: source.ids(&role.table),
                value: role.id.clone(),
            },
        });
        for st in knobs.stats.iter().filter(|s| s.table == role.table) {
            let Some(value) = source.int_of(&role.table, &role.id, &st.key) else {
                continue;
            };
            let quoted =
                entry_value(source, &role.table, &role.id, &st.key).is_some_and(|v| v.is_str());
            let (lo, hi) = window(st.lo, st.hi, value);
            out.push(Control {
                section: section.clone(),
                label: st.key.to_string(),
                key: format!("{}.{}.{}", role.table, role.id, st.key),
                kind: ControlKind::Number {
                    lo,
                    hi,
                    value,
                    target: st.shown == Shown::Target,
                    quoted,
                },
            });
        }
        for d in knobs.dice.iter().filter(|d| d.side == role.key) {
            let fallback = d.default_from.and_then(|(from, key)| {
                let r = roles.iter().find(|r| r.key == from)?;
                source.int_of(&r.table, &r.id, key)
            });
            let value = source.scenario_int(table, d.key).or(fallback).unwrap_or(0);
            if !accepts(d.key, Value::Integer(value)) {
                continue;
            }
            out.push(Control {
                section: section.clone(),
                label: d.key.to_string(),
                key: format!("scenarios.{table}.{}", d.key),
                kind: ControlKind::Number {
                    lo: d.lo.max(DICE_WINDOW.0).min(value),
                    hi: d.hi.min(DICE_WINDOW.1).max(value),
                    value,
                    target: false,
                    quoted: false,
                },
            });
        }
    }
    for r in knobs.responses {
        let now = scenario.get(r.key).and_then(Value::as_str);
        let Some(first) = r.choices.first() else {
            continue;
        };
        if now.is_none() && !accepts(r.key, Value::String(first.to_string())) {
            continue;
        }
        out.push(Control {
            section: "scenario".into(),
            label: r.key.to_string(),
            key: format!("scenarios.{table}.{}", r.key),
            kind: ControlKind::Choice {
                choices: r.choices.iter().map(|c| c.to_string()).collect(),
                value: now.unwrap_or(first).to_string(),
            },
        });
    }
    out.extend(reading_controls(source, knobs.readings));
    if source.base.scenario_names().len() <= SETTLED {
        // Side by side (each control's loads are its own).
        out = super::each(&out, |c| {
            let mut c = c.clone();
            settle(source, &mut c);
            Ok(c)
        })?;
    }
    Ok(out)
}

/// The rules' readings, each a choice, a number or a flag at its value in the config.
fn reading_controls(source: &Source, readings: &[Reading]) -> Vec<Control> {
    let rules = source.table.get("rules").and_then(Value::as_table);
    let mut out = Vec::new();
    for r in readings {
        let now = rules.and_then(|t| t.get(r.key));
        let kind = match r.kind {
            ReadingKind::Choice { choices, default } => ControlKind::Choice {
                choices: choices.iter().map(|c| c.to_string()).collect(),
                value: now.and_then(Value::as_str).unwrap_or(default).to_string(),
            },
            ReadingKind::Entry { table, default } => ControlKind::Choice {
                choices: source.ids(table),
                value: now.and_then(Value::as_str).unwrap_or(default).to_string(),
            },
            ReadingKind::Int { lo, hi, default } => {
                let value = now.and_then(Value::as_integer).unwrap_or(default);
                let (lo, hi) = window(lo, hi, value);
                ControlKind::Number {
                    lo,
                    hi,
                    value,
                    target: false,
                    quoted: false,
                }
            }
            ReadingKind::Flag { default } => ControlKind::Flag {
                value: now.and_then(Value::as_bool).unwrap_or(default),
            },
        };
        out.push(Control {
            section: "rules".into(),
            label: r.key.to_string(),
            key: format!("rules.{}", r.key),
            kind,
        });
    }
    out
}

/// Configs of at most this many scenarios have their sliders' ends checked by loading
/// the config with them (a few loads a slider); a larger one's loads would cost the view
/// seconds, and its sliders keep the ends their knobs declare.
pub const SETTLED: usize = 2_000;

/// A number control's ends moved in to the furthest values on each side of its value
/// that the config loads with, as the server loads it: a stat's declared bounds are the
/// widest any config allows, while one config's rules narrow them (a save rolled on the
/// config's own die cannot need more than that die + 1; a die of 2 sides cannot hold a
/// save of 9) and other keys constrain each other. The values between the two ends are taken
/// to load too (a binary search from the value outwards).
fn settle(source: &Source, c: &mut Control) {
    let ControlKind::Number {
        lo,
        hi,
        value,
        quoted,
        ..
    } = &mut c.kind
    else {
        return;
    };
    let path: Vec<String> = c.key.split('.').map(str::to_string).collect();
    let quoted = *quoted;
    let loads = |v: i64| {
        let value = if quoted {
            Value::String(format!("{v}+"))
        } else {
            Value::Integer(v)
        };
        source
            .apply(&[Edit::Path {
                path: path.clone(),
                value,
            }])
            .is_ok()
    };
    // The furthest value from `from` towards `to` that loads, `from` loading.
    let furthest = |from: i64, to: i64| -> i64 {
        if from == to || loads(to) {
            return to;
        }
        let (mut ok, mut bad) = (from, to);
        while (bad - ok).abs() > 1 {
            let mid = ok + (bad - ok) / 2;
            if loads(mid) {
                ok = mid;
            } else {
                bad = mid;
            }
        }
        ok
    };
    *hi = furthest(*value, *hi);
    *lo = furthest(*value, *lo);
}

fn entry_value<'s>(source: &'s Source, table: &str, id: &str, key: &str) -> Option<&'s Value> {
    let mut v = source.table.get(table)?.get(id)?;
    for seg in key.split('.') {
        v = v.get(seg)?;
    }
    Some(v)
}
