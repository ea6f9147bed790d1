//! `rollsim compare`: one scenario for every attacker x defender pair, as a matchup
//! matrix; on a group, one matrix per member. With `--response best` the defender picks,
//! in each cell, the response that is worst for the attacker (the lowest value of what is
//! measured, which for every headline is the row side's success).

use super::{compile, is_decision, measure_budget, Job, Pick, Role, Source, Target};
use crate::edit::Edit;
use crate::results::analysis::{Axis, Matrix, MatrixCell, Slot};
use crate::run::Hooks;
use crate::sim::Budget;
use crate::Error;
use toml::Value;

/// Check the chosen ids against the role's table, naming the nearest on a miss.
fn axis(source: &Source, role: &Role, chosen: &[String]) -> Result<Axis, Error> {
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
                Err(Error::BadOption(format!(
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

/// The responses the defender of scenario table `table` may choose: (label, change).
/// For a decision group they are its members; else each choice of the system's response
/// keys (a choice the scenario's kind refuses is dropped when it is tried).
fn responses(source: &Source, table: &str) -> Vec<(String, Edit)> {
    source
        .knobs()
        .responses
        .iter()
        .flat_map(|k| {
            k.choices.iter().map(move |c| {
                (
                    c.to_string(),
                    Edit::Scenario {
                        scenario: table.to_string(),
                        key: k.key.to_string(),
                        value: Value::String(c.to_string()),
                    },
                )
            })
        })
        .collect()
}

/// Every matrix `compare` draws for `target`: one per member, or with `best` on a
/// decision table one matrix whose cells take the defender's best choice. The cells of
/// every matrix are one spread ([`Job::spread`]): a shard computes its share of them all.
pub fn matrices(
    job: &Job,
    sides: (&[String], &[String]),
    best: bool,
) -> Result<Vec<Matrix>, Error> {
    let plans = plans(job, sides, best)?;
    computed(job, plans)?.ok_or(Error::Deferred)
}

/// The matrices [`matrices`] computes, checked and laid out, before any cell.
pub(super) fn plans(
    job: &Job,
    sides: (&[String], &[String]),
    best: bool,
) -> Result<Vec<Plan>, Error> {
    let (source, target, ctx) = (job.source, job.target, job.ctx);
    let budget = job.trials.map(Budget::Trials);
    // A decision's member under --response best stands for the whole decision.
    let group;
    let target = if best && !target.group && target.members[0] != target.table {
        group = source.target(&target.table)?;
        if is_decision(source, &group, ctx.cancel)? {
            &group
        } else {
            target
        }
    } else {
        target
    };
    Ok(if best && is_decision(source, target, ctx.cancel)? {
        let choices: Vec<(String, String)> = target
            .members
            .iter()
            .map(|m| {
                let label = m.rsplit('@').next().unwrap_or(m).to_string();
                (label, m.clone())
            })
            .collect();
        vec![plan(
            source,
            target,
            &target.name,
            sides,
            job.pick,
            budget,
            Responses::Members(choices),
            ctx,
        )?]
    } else {
        target
            .members
            .iter()
            .map(|m| {
                let how = if best {
                    let rs = responses(source, &target.table);
                    // Only the choices the scenario's kind takes count.
                    let takes = |e: &Edit| source.apply(std::slice::from_ref(e)).is_ok();
                    if !rs.iter().any(|(_, e)| takes(e)) {
                        return Err(Error::BadOption(format!(
                            "--response best: scenario `{m}` has no response for the defender to choose"
                        )));
                    }
                    Responses::Sets(rs)
                } else {
                    Responses::Fixed
                };
                plan(source, target, m, sides, job.pick, budget, how, ctx)
            })
            .collect::<Result<_, _>>()?
    })
}

/// The plans' cells as one spread, and the matrices (`None` on a shard).
pub(super) fn computed(job: &Job, plans: Vec<Plan>) -> Result<Option<Vec<Matrix>>, Error> {
    let (source, ctx) = (job.source, job.ctx);
    let items: Vec<(usize, usize, usize)> = plans
        .iter()
        .enumerate()
        .flat_map(|(p, plan)| plan.pairs().map(move |(i, j)| (p, i, j)))
        .collect();
    let cells = job.spread("matrix cells", &items, |&(p, i, j)| {
        plans[p].cell(source, (i, j), job.seed, ctx)
    })?;
    let Some(cells) = cells else {
        return Ok(None);
    };
    let mut it = cells.into_iter();
    plans
        .into_iter()
        .map(|plan| {
            let n = plan.rows.entries.len() * plan.cols.entries.len();
            let mine: Vec<MatrixCell> = it.by_ref().take(n).collect();
            plan.finish(source, mine, job.seed)
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// How a cell's defender responds.
#[derive(Clone)]
enum Responses {
    /// As the scenario says.
    Fixed,
    /// The best of these (label, change).
    Sets(Vec<(String, Edit)>),
    /// The best of these (label, member name).
    Members(Vec<(String, String)>),
}

/// Compute one matrix of `member` (writes nothing).
pub fn matrix(
    source: &Source,
    member: &str,
    sides: (&[String], &[String]),
    pick: &Pick,
    seed: u64,
    budget: Option<Budget>,
    ctx: Hooks,
) -> Result<Matrix, Error> {
    let target = source.target(member)?;
    let p = plan(
        source,
        &target,
        member,
        sides,
        pick,
        budget,
        Responses::Fixed,
        ctx,
    )?;
    let pairs: Vec<(usize, usize)> = p.pairs().collect();
    let cells = super::each(&pairs, |&ij| p.cell(source, ij, seed, ctx))?;
    p.finish(source, cells, seed)
}

/// One matrix before its cells: what every cell needs, checked once.
pub(super) struct Plan {
    table: String,
    pub(super) member: String,
    roles: (Role, Role),
    pub(super) rows: Axis,
    pub(super) cols: Axis,
    what: String,
    description: String,
    pick: Pick,
    budget: Option<Budget>,
    how: Responses,
}

#[allow(clippy::too_many_arguments)]
fn plan(
    source: &Source,
    target: &Target,
    member: &str,
    (attackers, defenders): (&[String], &[String]),
    pick: &Pick,
    budget: Option<Budget>,
    how: Responses,
    ctx: Hooks,
) -> Result<Plan, Error> {
    let table = &target.table;
    let roles = source.roles(table)?;
    if roles.len() < 2 {
        let sides = match roles.first() {
            None => "no side (no key of it names a unit)".to_string(),
            Some(r) => format!("one side (key `{}`)", r.key),
        };
        return Err(Error::BadOption(format!(
            "scenario `{member}` has {sides}; a matchup needs two, such as an attacker and a defender"
        )));
    }
    let (ar, dr) = (roles[0].clone(), roles[1].clone());
    let rows = axis(source, &ar, attackers)?;
    let cols = axis(source, &dr, defenders)?;
    // What is measured, from the scenario as written: a bad --metric fails here, once.
    let first = match &how {
        Responses::Members(m) => m[0].1.clone(),
        _ => member.to_string(),
    };
    let c = compile(&source.base, &first, ctx.cancel)?;
    let what = pick.describe(&c)?;
    Ok(Plan {
        table: table.clone(),
        member: member.to_string(),
        roles: (ar, dr),
        rows,
        cols,
        what,
        description: c.description,
        pick: pick.clone(),
        budget,
        how,
    })
}

impl Plan {
    /// Every (row, column), row by row.
    fn pairs(&self) -> impl Iterator<Item = (usize, usize)> {
        let cols = self.cols.entries.len();
        (0..self.rows.entries.len()).flat_map(move |i| (0..cols).map(move |j| (i, j)))
    }

    /// One cell under one response: a config or scenario the rules refuse is a blank
    /// with its reason; an interrupt or an unmeasurable pick stops the run.
    fn one(
        &self,
        source: &Source,
        edits: Vec<Edit>,
        name: &str,
        seed: u64,
        ctx: Hooks,
    ) -> Result<Slot, Error> {
        let cfg = match source.apply(&edits) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let c = match compile(&cfg, name, ctx.cancel) {
            Ok(c) => c,
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            Err(e) => return Ok(Err(e.to_string())),
        };
        Ok(Ok(measure_budget(&c, &self.pick, seed, self.budget, ctx)?))
    }

    fn cell(
        &self,
        source: &Source,
        (i, j): (usize, usize),
        seed: u64,
        ctx: Hooks,
    ) -> Result<MatrixCell, Error> {
        let set = |role: &Role, id: &str| Edit::Scenario {
            scenario: self.table.clone(),
            key: role.key.clone(),
            value: Value::String(id.to_string()),
        };
        let (ar, dr) = &self.roles;
        let base = vec![
            set(ar, &self.rows.entries[i].0),
            set(dr, &self.cols.entries[j].0),
        ];
        let member = &self.member;
        let tries: Vec<(Option<String>, Vec<Edit>, String)> = match &self.how {
            Responses::Fixed => vec![(None, base, member.clone())],
            Responses::Sets(rs) => rs
                .iter()
                .map(|(label, s)| {
                    let mut sets = base.clone();
                    sets.push(s.clone());
                    (Some(label.clone()), sets, member.clone())
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
            match self.one(source, sets, &name, seed, ctx)? {
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
    }

    /// The matrix from its cells, row by row.
    fn finish(self, source: &Source, cells: Vec<MatrixCell>, seed: u64) -> Result<Matrix, Error> {
        let mut grid = Vec::new();
        let mut it = cells.into_iter();
        for _ in 0..self.rows.entries.len() {
            grid.push(
                it.by_ref()
                    .take(self.cols.entries.len())
                    .collect::<Vec<_>>(),
            );
        }
        if let Some(MatrixCell { value: Err(e), .. }) = grid
            .iter()
            .flatten()
            .all(|c| c.value.is_err())
            .then(|| grid.first().and_then(|r| r.first()).cloned())
            .flatten()
        {
            return Err(Error::BadOption(format!("no pair can be computed: {e}")));
        }
        let mut what = self.what;
        let (ar, _) = &self.roles;
        // A headline names the scenario's own attacker ("P(Thief wins)"): say the row side.
        if self.pick == Pick::Headline {
            let first = source.display(&ar.table, &ar.id);
            what = what.replace(first.as_str(), &format!("{} (row)", ar.key));
        }
        let response = match self.how {
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
        let budget = self.budget;
        Ok(Matrix {
            config: source.stem(),
            scenario: self.member,
            description: self.description,
            what,
            probability: self.pick.is_probability(),
            rows: self.rows,
            cols: self.cols,
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
}
