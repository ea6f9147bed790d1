//! `rollsim roster`: the units of a config, each against each in one scenario, read as
//! a metagame: the matchup matrix in both seats, a strength per unit, the Nash mix, the
//! units a perfect player never picks and what each unit is worth to the roster. The
//! matrix is `compare`'s own (the same cells, so the two agree cell by cell); the game
//! theory is [`super::metagame`].

use super::costs::{Costs, Pricing};
use super::{compare, metagame, Job};
use crate::results::analysis::Matrix;
use crate::Error;

/// One unit of the roster.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitRow {
    /// The unit's id in its table.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Bradley-Terry strength on the Elo scale (400 points: ten to one odds), mean 0.
    pub elo: f64,
    /// Its 95% half-width from the trials behind the matrix; `None` for an exact one.
    pub elo_ci: Option<f64>,
    /// How often a perfect player picks it (the Nash mix).
    pub weight: f64,
    /// The chance of winning a player who may not pick this unit can still guarantee
    /// against one who may pick any: 1/2 minus this is what the unit is worth.
    pub without: f64,
    /// A unit at least as good against every unit and better against one.
    pub dominated_by: Option<String>,
    /// Its average chance of winning (both seats) against each other unit.
    pub field: f64,
}

/// A roster analysed.
#[derive(Clone, Debug)]
pub struct Roster {
    /// Row attacking column, as `compare` computes it.
    pub matrix: Matrix,
    /// Both seats: `both[i][j]` is `i`'s chance when each plays each seat once.
    pub both: Vec<Vec<f64>>,
    /// One per unit, in the matrix's order.
    pub units: Vec<UnitRow>,
    /// What the Nash mix guarantees (1/2 in a symmetric game: a check).
    pub value: f64,
    /// The share of the log-odds no one-dimensional rating explains (0 to 1).
    pub cyclic: f64,
    /// Every cell exact (else Monte Carlo estimates, with rating intervals).
    pub exact: bool,
}

impl Roster {
    /// The units' indices, strongest (highest rating) first: the order every table
    /// and chart of a roster shows them in.
    pub fn by_strength(&self) -> Vec<usize> {
        let mut o: Vec<usize> = (0..self.units.len()).collect();
        o.sort_by(|&a, &b| self.units[b].elo.total_cmp(&self.units[a].elo));
        o
    }
}

/// Analyse the roster `units` (empty: every entry of the scenario's table) in the job's
/// scenario; `best`: the defender picks its best response in each cell.
pub fn roster(job: &Job, units: &[String], best: bool) -> Result<Roster, Error> {
    priced(job, units, best, None).map(|(r, _)| r)
}

/// [`roster`], and with `count` (the count stat, the reference unit) its units priced:
/// the matrix, the price searches and the check at the current costs are spread
/// together, so a shard computes its share of all three.
pub fn priced(
    job: &Job,
    units: &[String],
    best: bool,
    count: Option<(&str, Option<&str>)>,
) -> Result<(Roster, Option<Costs>), Error> {
    if !job.pick.is_probability() {
        return Err(Error::BadOption(
            "roster reads a chance of winning: give --metric as METRIC=VALUES (e.g. result=win), not a mean".into(),
        ));
    }
    if units.len() == 1 {
        return Err(Error::BadOption(format!(
            "--units {}: a roster needs at least two units",
            units[0]
        )));
    }
    // Units that cannot meet are refused before any cell is computed.
    let roles = job.source.roles(&job.target.table)?;
    if let [a, b, ..] = roles.as_slice() {
        if a.table != b.table {
            return Err(cannot_meet(&job.target.name, &a.table, &b.table));
        }
    }
    let plans = compare::plans(job, (units, units), best)?;
    if plans.len() != 1 {
        return Err(Error::BadOption(format!(
            "`{}` is a group of {} scenarios; a roster is read in one: name a member, e.g. -s {}",
            job.target.name,
            plans.len(),
            plans[0].member
        )));
    }
    let (rows, member) = (plans[0].rows.clone(), plans[0].member.clone());
    if rows.entries.len() < 2 {
        return Err(Error::BadOption(format!(
            "a roster needs at least two units; `{}` has {}",
            rows.table,
            rows.entries.len()
        )));
    }
    let pricing = count
        .map(|(c, r)| Pricing::new(job, &rows.entries, &member, c, r))
        .transpose()?;
    let matrices = compare::computed(job, plans)?;
    let (searched, now) = match &pricing {
        Some(p) => (p.searches(job)?.map(Some), p.fair_now(job)?.map(Some)),
        None => (Some(None), Some(None)),
    };
    let (Some(mut ms), Some(searched), Some(now)) = (matrices, searched, now) else {
        return Err(Error::Deferred);
    };
    let roster = analyse(ms.remove(0))?;
    let costs = match (pricing, searched) {
        (Some(p), Some(s)) => Some(p.finish(job, s, now.flatten())?),
        _ => None,
    };
    Ok((roster, costs))
}

/// The metagame of a matchup matrix whose two sides pick from one table (its rows and
/// columns the same units): what `roster` reads off the matrix it computes, and what
/// the gallery reads off the matrix it draws.
pub fn analyse(matrix: Matrix) -> Result<Roster, Error> {
    if matrix.rows.table != matrix.cols.table || matrix.rows.entries != matrix.cols.entries {
        return Err(cannot_meet(
            &matrix.scenario,
            &matrix.rows.table,
            &matrix.cols.table,
        ));
    }
    let n = matrix.rows.entries.len();
    if n < 2 {
        return Err(Error::BadOption(format!(
            "a roster needs at least two units; `{}` has {n}",
            matrix.rows.table
        )));
    }
    let mut a = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0.0; n]; n];
    let exact = matrix
        .cells
        .iter()
        .flatten()
        .all(|c| matches!(&c.value, Ok(v) if v.exact.is_some()));
    for i in 0..n {
        for j in 0..n {
            match &matrix.cells[i][j].value {
                Ok(c) => {
                    a[i][j] = if exact {
                        c.exact.unwrap_or(c.estimate)
                    } else {
                        c.estimate
                    };
                    games[i][j] = c.trials as f64;
                }
                Err(why) => {
                    return Err(Error::BadOption(format!(
                        "`{}` and `{}` cannot meet in `{}`: {why}",
                        matrix.rows.entries[i].0, matrix.cols.entries[j].0, matrix.scenario
                    )))
                }
            }
        }
    }
    let both = metagame::both_seats(&a);
    let bad = |e: metagame::MetagameError| Error::BadOption(e.to_string());
    let mix = metagame::nash(&both).map_err(bad)?;
    let without = metagame::without_each(&both).map_err(bad)?;
    let dominated = metagame::dominated_by(&both);
    let ratings = metagame::bradley_terry(&both, (!exact).then_some(games.as_slice()));
    let elo = 400.0 / std::f64::consts::LN_10;
    let z = crate::stats::z95();
    let units = (0..n)
        .map(|i| {
            let (id, name) = matrix.rows.entries[i].clone();
            UnitRow {
                id,
                name,
                elo: elo * ratings.log_strength[i],
                elo_ci: ratings.se.as_ref().map(|se| elo * z * se[i]),
                weight: mix.weights[i],
                without: without[i],
                dominated_by: dominated[i].map(|d| matrix.rows.entries[d].0.clone()),
                field: (0..n).filter(|&j| j != i).map(|j| both[i][j]).sum::<f64>() / (n - 1) as f64,
            }
        })
        .collect();
    Ok(Roster {
        cyclic: metagame::cyclic_share(&both),
        value: mix.value,
        both,
        units,
        matrix,
        exact,
    })
}

/// A scenario whose two sides pick from two tables has no roster.
fn cannot_meet(scenario: &str, a: &str, b: &str) -> Error {
    Error::BadOption(format!(
        "scenario `{scenario}`: its sides pick from `{a}` and `{b}`; a roster needs units that can meet, both sides from one table"
    ))
}
