//! `rollsim compare`: one scenario for every attacker x defender pair, as a matchup
//! matrix; on a group, one matrix per member. With `--response best` the defender picks,
//! in each cell, the response that is worst for the attacker (the lowest value of what is
//! measured, which for every headline is the row side's success).

use super::{compile, is_decision, measure_budget, Options, Pick, Role, Source, Target};
use crate::error::AppError;
use crate::report::analysis::{Axis, Matrix, MatrixCell, Slot};
use crate::sim::Budget;
use rayon::prelude::*;

/// `rollsim compare`: the common options, the two sides' ids, and the response rule.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    pub common: Options,
    /// Ids for the attacker side; empty: every entry of its table.
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    /// The defender chooses its best response per cell.
    pub best_response: bool,
}

/// Check the chosen ids against the role's table, naming the nearest on a miss.
fn axis(source: &Source, role: &Role, chosen: &[String]) -> Result<Axis, AppError> {
    let all = source.ids(&role.table);
    let ids = if chosen.is_empty() {
        all.clone()
    } else {
        chosen.to_vec()
    };
    let entries = ids
        .into_iter()
        .map(|id| {
            // An id as written, else one letter case apart or the entry's display name
            // (`Orc`, `human guard`), when that names one entry only.
            let loose: Vec<&String> = all
                .iter()
                .filter(|a| {
                    a.eq_ignore_ascii_case(&id)
                        || source.display(&role.table, a).eq_ignore_ascii_case(&id)
                        || a.replace('_', " ").eq_ignore_ascii_case(&id)
                })
                .collect();
            let id = match (all.contains(&id), loose.as_slice()) {
                (false, [one]) => (*one).clone(),
                _ => id,
            };
            if all.contains(&id) {
                Ok((id.clone(), source.display(&role.table, &id)))
            } else {
                Err(AppError::BadOption(format!(
                    "no {} `{id}` for `{}`{}; they are {}",
                    role.table.trim_end_matches('s'),
                    role.key,
                    crate::config::reader::nearest_hint(&id, all.iter().map(String::as_str)),
                    all.iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Axis {
        key: role.key.clone(),
        table: role.table.clone(),
        entries,
    })
}

/// The responses the defender of scenario table `table` may choose: (label, `--set`s).
/// For a decision group they are its members; else each choice of the system's response
/// keys (a choice the scenario's kind refuses is dropped when it is tried).
fn responses(source: &Source, table: &str) -> Vec<(String, String)> {
    source
        .knobs()
        .responses
        .iter()
        .flat_map(|k| {
            k.choices
                .iter()
                .map(move |c| (c.to_string(), format!("scenarios.{table}.{}={c}", k.key)))
        })
        .collect()
}

/// Every matrix `compare` draws for `target`: one per member, or with `best` on a
/// decision table one matrix whose cells take the defender's best choice.
pub fn matrices(
    source: &Source,
    target: &Target,
    sides: (&[String], &[String]),
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
    best: bool,
) -> Result<Vec<Matrix>, AppError> {
    // A decision's member under --response best stands for the whole decision.
    let group;
    let target = if best && !target.group && target.members[0] != target.table {
        group = source.target(&target.table)?;
        if is_decision(source, &group)? {
            &group
        } else {
            target
        }
    } else {
        target
    };
    if best && is_decision(source, target)? {
        let choices: Vec<(String, String)> = target
            .members
            .iter()
            .map(|m| {
                let label = m.rsplit('@').next().unwrap_or(m).to_string();
                (label, m.clone())
            })
            .collect();
        return Ok(vec![build(
            source,
            target,
            &target.name,
            sides,
            pick,
            seed,
            trials.map(Budget::Trials),
            Responses::Members(&choices),
        )?]);
    }
    target
        .members
        .iter()
        .map(|m| {
            let rs;
            let how = if best {
                rs = responses(source, &target.table);
                // Only the choices the scenario's kind takes count.
                let base = source.with(&[]);
                let takes =
                    |set: &String| base.is_ok() && source.with(std::slice::from_ref(set)).is_ok();
                if !rs.iter().any(|(_, set)| takes(set)) {
                    return Err(AppError::BadOption(format!(
                        "--response best: scenario `{m}` has no response for the defender to choose"
                    )));
                }
                Responses::Sets(&rs)
            } else {
                Responses::Fixed
            };
            build(
                source,
                target,
                m,
                sides,
                pick,
                seed,
                trials.map(Budget::Trials),
                how,
            )
        })
        .collect()
}

/// How a cell's defender responds.
#[derive(Clone, Copy)]
enum Responses<'a> {
    /// As the scenario says.
    Fixed,
    /// The best of these (label, `--set`).
    Sets(&'a [(String, String)]),
    /// The best of these (label, member name).
    Members(&'a [(String, String)]),
}

/// Compute one matrix of `member` (writes nothing).
pub fn matrix(
    source: &Source,
    member: &str,
    sides: (&[String], &[String]),
    pick: &Pick,
    seed: u64,
    budget: Option<Budget>,
) -> Result<Matrix, AppError> {
    let target = source.target(member)?;
    build(
        source,
        &target,
        member,
        sides,
        pick,
        seed,
        budget,
        Responses::Fixed,
    )
}

#[allow(clippy::too_many_arguments)]
fn build(
    source: &Source,
    target: &Target,
    member: &str,
    (attackers, defenders): (&[String], &[String]),
    pick: &Pick,
    seed: u64,
    budget: Option<Budget>,
    how: Responses,
) -> Result<Matrix, AppError> {
    let table = &target.table;
    let roles = source.roles(table)?;
    if roles.len() < 2 {
        return Err(AppError::BadOption(format!(
            "scenario `{member}` has {} side(s) (keys {}); a matchup needs two, such as an attacker and a defender",
            roles.len(),
            roles.iter().map(|r| format!("`{}`", r.key)).collect::<Vec<_>>().join(", ")
        )));
    }
    let (ar, dr) = (roles[0].clone(), roles[1].clone());
    let rows = axis(source, &ar, attackers)?;
    let cols = axis(source, &dr, defenders)?;
    // What is measured, from the scenario as written: a bad --metric fails here, once.
    let first = match how {
        Responses::Members(m) => m[0].1.clone(),
        _ => member.to_string(),
    };
    let mut what = pick.describe(&compile(&source.with(&[])?, &first)?)?;
    let set = |role: &Role, id: &str| format!("scenarios.{table}.{}={id}", role.key);
    // One cell under one response: a config or scenario the rules refuse is a blank
    // with its reason; an interrupt or an unmeasurable pick stops the run.
    let one = |sets: Vec<String>, name: &str| -> Result<Slot, AppError> {
        let cfg = match source.with(&sets) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let c = match compile(&cfg, name) {
            Ok(c) => c,
            Err(AppError::Interrupted) => return Err(AppError::Interrupted),
            Err(e) => return Ok(Err(e.to_string())),
        };
        Ok(Ok(measure_budget(&c, pick, seed, budget, true)?))
    };
    let pairs: Vec<(usize, usize)> = (0..rows.entries.len())
        .flat_map(|i| (0..cols.entries.len()).map(move |j| (i, j)))
        .collect();
    let cells: Vec<MatrixCell> = pairs
        .par_iter()
        .map(|&(i, j)| {
            let base = vec![set(&ar, &rows.entries[i].0), set(&dr, &cols.entries[j].0)];
            let tries: Vec<(Option<String>, Vec<String>, String)> = match how {
                Responses::Fixed => vec![(None, base, member.to_string())],
                Responses::Sets(rs) => rs
                    .iter()
                    .map(|(label, s)| {
                        let mut sets = base.clone();
                        sets.push(s.clone());
                        (Some(label.clone()), sets, member.to_string())
                    })
                    .collect(),
                Responses::Members(ms) => ms
                    .iter()
                    .map(|(label, m)| (Some(label.clone()), base.clone(), m.clone()))
                    .collect(),
            };
            let mut best: Option<MatrixCell> = None;
            let mut reason = String::new();
            for (label, sets, name) in tries {
                match one(sets, &name)? {
                    Ok(c) => {
                        if best.as_ref().is_none_or(|b| match &b.value {
                            Ok(bc) => c.estimate < bc.estimate,
                            Err(_) => true,
                        }) {
                            best = Some(MatrixCell {
                                value: Ok(c),
                                response: label,
                            });
                        }
                    }
                    Err(e) => {
                        if reason.is_empty() {
                            reason = e;
                        }
                    }
                }
            }
            Ok(best.unwrap_or(MatrixCell {
                value: Err(reason),
                response: None,
            }))
        })
        .collect::<Result<_, AppError>>()?;
    let mut grid = Vec::new();
    let mut it = cells.into_iter();
    for _ in 0..rows.entries.len() {
        grid.push(it.by_ref().take(cols.entries.len()).collect::<Vec<_>>());
    }
    if let Some(MatrixCell { value: Err(e), .. }) = grid
        .iter()
        .flatten()
        .all(|c| c.value.is_err())
        .then(|| grid[0][0].clone())
    {
        return Err(AppError::BadOption(format!("no pair can be computed: {e}")));
    }
    // A headline names the scenario's own attacker ("P(Thief wins)"): say the row side.
    if *pick == Pick::Headline {
        let first = source.display(&ar.table, &ar.id);
        what = what.replace(first.as_str(), &format!("{} (row)", ar.key));
    }
    let response = match how {
        Responses::Fixed => None,
        Responses::Sets(_) => Some(format!(
            "the defender's best {}",
            source
                .knobs()
                .responses
                .iter()
                .map(|k| k.key)
                .collect::<Vec<_>>()
                .join(" or ")
        )),
        Responses::Members(_) => Some("the defender's best choice".into()),
    };
    Ok(Matrix {
        config: source.stem(),
        scenario: member.into(),
        what,
        probability: pick.is_probability(),
        rows,
        cols,
        cells: grid,
        response,
        trials: budget.map(|b| match b {
            Budget::Trials(n) => n,
            Budget::Precision { max_trials, .. } => max_trials,
        }),
        precision: match budget {
            Some(Budget::Precision { eps, .. }) => Some(eps),
            _ => None,
        },
        seed,
    })
}
