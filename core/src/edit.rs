//! Typed changes to a parsed config: what the balance commands (and the live page) turn.
//!
//! An edit names what it changes in the config's own terms (a scenario's key, the entry
//! a side of a scenario names, a key path), never a `"path=value"` string to re-parse.
//! Edits are applied in order to the table the text was parsed into once (with every
//! `--set` already on it), so a side is resolved to the entry it names at that moment:
//! after a `--set` or an earlier edit swapped who fights whom.

use crate::config::reader::nearest_hint;
use std::fmt;
use toml::{Table, Value};

/// One change.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// A key of scenario table `scenario`: the entry a side names (`defender = goblin`),
    /// a dice count, a response, a distance.
    Scenario {
        /// The scenario table's name (`[scenarios.NAME]`).
        scenario: String,
        /// The key within it.
        key: String,
        /// Its new value.
        value: Value,
    },
    /// A key within the entry that side `role` (`attacker`) of scenario table `scenario`
    /// names now (a dotted key for a nested table: `skills.melee`). When the other side
    /// names the same entry (an orc against an orc), the changed side gets its own copy,
    /// so a change to the attacker leaves the defender as it was.
    Side {
        /// The scenario table's name (`[scenarios.NAME]`).
        scenario: String,
        /// The scenario key that names the side's entry.
        role: String,
        /// The table the side's entries are in (`units`).
        table: String,
        /// Key within the entry.
        key: String,
        /// Its new value.
        value: Value,
    },
    /// Any key path, as a `--set` would write it.
    Path {
        /// The keys from the root table down, e.g. `["rules", "explode_on"]`.
        path: Vec<String>,
        /// The new value.
        value: Value,
    },
}

/// Why an edit could not be applied.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct EditError(pub String);

impl Edit {
    /// The edit as the `KEY=VALUE` a user would write with `--set` (for messages).
    pub fn as_set(&self) -> String {
        match self {
            Edit::Scenario {
                scenario,
                key,
                value,
            } => format!("scenarios.{scenario}.{key}={value}"),
            Edit::Side {
                role, key, value, ..
            } => format!("{role}.{key}={value}"),
            Edit::Path { path, value } => format!("{}={value}", path.join(".")),
        }
    }

    /// Apply to `t`, the whole config's table. `roles` are the scenario keys that name
    /// a side (the system's knobs): a side shares its entry only with another of them.
    pub fn apply(&self, t: &mut Table, roles: &[&str]) -> Result<(), EditError> {
        match self {
            Edit::Scenario {
                scenario,
                key,
                value,
            } => {
                scenario_mut(t, scenario)?.insert(key.clone(), value.clone());
                Ok(())
            }
            Edit::Path { path, value } => set_path(t, path, value.clone()),
            Edit::Side {
                scenario,
                role,
                table,
                key,
                value,
            } => {
                let sc = scenario_mut(t, scenario)?;
                let id = sc.get(role).and_then(Value::as_str).map(str::to_string);
                let Some(id) = id else {
                    return Err(EditError(format!(
                        "scenario `{scenario}` has no side `{role}`"
                    )));
                };
                // Another side of the scenario naming the same entry shares it.
                let shared = roles
                    .iter()
                    .any(|r| *r != role && sc.get(*r).and_then(Value::as_str) == Some(id.as_str()));
                let id = if shared {
                    let copy = format!("{id}_as_{role}");
                    let entries = t.get_mut(table.as_str()).and_then(Value::as_table_mut);
                    let entry = entries.as_ref().and_then(|e| e.get(&id)).cloned();
                    let (Some(entries), Some(mut e)) = (entries, entry) else {
                        return Err(EditError(format!(
                            "`{role}` names `{id}`, which is not in `[{table}]`"
                        )));
                    };
                    if let Value::Table(et) = &mut e {
                        if !et.contains_key("name") {
                            et.insert("name".into(), Value::String(id.clone()));
                        }
                    }
                    entries.insert(copy.clone(), e);
                    scenario_mut(t, scenario)?.insert(role.clone(), Value::String(copy.clone()));
                    copy
                } else {
                    id
                };
                let mut path = vec![table.clone(), id];
                path.extend(key.split('.').map(str::to_string));
                set_path(t, &path, value.clone())
            }
        }
    }
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_set())
    }
}

/// Apply edits in order to a copy of `t` (`roles` as for [`Edit::apply`]).
pub fn applied(t: &Table, edits: &[Edit], roles: &[&str]) -> Result<Table, EditError> {
    let mut t = t.clone();
    for e in edits {
        e.apply(&mut t, roles)?;
    }
    Ok(t)
}

fn scenario_mut<'t>(t: &'t mut Table, name: &str) -> Result<&'t mut Table, EditError> {
    let scenarios = t
        .get_mut("scenarios")
        .and_then(Value::as_table_mut)
        .ok_or_else(|| EditError("the config has no `[scenarios]`".into()))?;
    let names: Vec<String> = scenarios.keys().cloned().collect();
    scenarios
        .get_mut(name)
        .and_then(Value::as_table_mut)
        .ok_or_else(|| {
            EditError(format!(
                "no scenario table `{name}`{}",
                nearest_hint(name, names.iter().map(String::as_str))
            ))
        })
}

/// Set `path` to `value`: every table on the way must exist (but `[rules]` and `[run]`),
/// the last key may be new.
fn set_path(t: &mut Table, path: &[String], value: Value) -> Result<(), EditError> {
    let Some((last, tables)) = path.split_last() else {
        return Err(EditError("an empty key path".into()));
    };
    let mut here = t;
    for (depth, seg) in tables.iter().enumerate() {
        // The optional sections may be written into, as `--set` may.
        if depth == 0 && !here.contains_key(seg) && (seg == "rules" || seg == "run") {
            here.insert(seg.clone(), Value::Table(Table::new()));
        }
        let names: Vec<String> = here.keys().cloned().collect();
        here = match here.get_mut(seg) {
            Some(Value::Table(t)) => t,
            Some(_) => {
                return Err(EditError(format!(
                    "`{}` is not a table",
                    path[..=depth].join(".")
                )))
            }
            None => {
                return Err(EditError(format!(
                    "there is no `{seg}` in `{}`{}",
                    path[..depth].join("."),
                    nearest_hint(seg, names.iter().map(String::as_str))
                )))
            }
        };
    }
    here.insert(last.clone(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLES: &[&str] = &["attacker", "defender"];

    fn table() -> Table {
        r#"
[units.orc]
strength = 3
[units.goblin]
strength = 5
[scenarios.slam]
attacker = "orc"
defender = "orc"
"#
        .parse()
        .unwrap()
    }

    #[test]
    fn a_side_is_resolved_after_earlier_edits() {
        let t = applied(
            &table(),
            &[
                Edit::Scenario {
                    scenario: "slam".into(),
                    key: "defender".into(),
                    value: Value::String("goblin".into()),
                },
                Edit::Side {
                    scenario: "slam".into(),
                    role: "defender".into(),
                    table: "units".into(),
                    key: "strength".into(),
                    value: Value::Integer(2),
                },
            ],
            ROLES,
        )
        .unwrap();
        assert_eq!(t["units"]["goblin"]["strength"].as_integer(), Some(2));
        assert_eq!(t["units"]["orc"]["strength"].as_integer(), Some(3));
    }

    #[test]
    fn a_shared_entry_is_copied_for_the_changed_side() {
        let t = applied(
            &table(),
            &[Edit::Side {
                scenario: "slam".into(),
                role: "attacker".into(),
                table: "units".into(),
                key: "strength".into(),
                value: Value::Integer(2),
            }],
            ROLES,
        )
        .unwrap();
        assert_eq!(
            t["scenarios"]["slam"]["attacker"].as_str(),
            Some("orc_as_attacker")
        );
        assert_eq!(t["scenarios"]["slam"]["defender"].as_str(), Some("orc"));
        assert_eq!(
            t["units"]["orc_as_attacker"]["strength"].as_integer(),
            Some(2)
        );
        assert_eq!(t["units"]["orc"]["strength"].as_integer(), Some(3));
    }

    #[test]
    fn a_missing_scenario_names_the_nearest() {
        let e = applied(
            &table(),
            &[Edit::Scenario {
                scenario: "slan".into(),
                key: "x".into(),
                value: Value::Integer(1),
            }],
            ROLES,
        )
        .unwrap_err();
        assert!(e.0.contains("slam"), "{e}");
    }
}
