//! Point costs for a roster: what each unit should cost against a reference unit, found
//! on a count knob (models in a squad, dice in a pool, hit points). For each unit the
//! count at which it ties the reference (both seats, 1/2) is found by bisection on that
//! knob; the unit as configured is then worth the reference's cost times its count over
//! that count ("5 Marines ~ 15 Orks"). Re-priced, every unit fields as many as its cost
//! buys at the reference's price, and the matrix at equal points says how fair the
//! prices are, before and after.

use super::{compile, roster::Roster, Job};
use crate::config::reader::nearest_hint;
use crate::edit::Edit;
use crate::Error;
use toml::Value;

/// One unit's price.
#[derive(Clone, Debug, PartialEq)]
pub struct CostRow {
    pub id: String,
    pub name: String,
    /// Its count as configured.
    pub count: i64,
    /// Its `cost = N`, if it declares one.
    pub current: Option<i64>,
    /// The count (interpolated between whole ones) at which it ties the reference;
    /// `None` if no count in the knob's range does.
    pub even_count: Option<f64>,
    /// The reference's cost times `count / even_count`.
    pub suggested: Option<f64>,
    /// The suggested cost between the two whole counts around `even_count`.
    pub interval: Option<(f64, f64)>,
    /// The knob's lowest count already ties the reference or beats it: the suggested
    /// cost is a floor (the unit is worth at least that).
    pub at_least: bool,
    /// Every count tried on the way to the tie, with the unit's chance (both seats)
    /// against the reference there: its exchange-rate line.
    pub curve: Vec<(i64, f64)>,
    /// Its average chance (both seats) against every other unit at equal points, with
    /// the current costs (if every unit has one) and with the suggested ones.
    pub field_before: Option<f64>,
    pub field_after: Option<f64>,
}

/// The roster priced.
#[derive(Clone, Debug, PartialEq)]
pub struct Costs {
    /// The count knob (a stat of the units).
    pub count: String,
    pub reference: String,
    /// The reference's cost (100 when it declares none: costs are then relative).
    pub reference_cost: f64,
    pub rows: Vec<CostRow>,
    /// The largest |chance - 1/2| over every pair at equal points, before and after.
    pub worst_before: Option<f64>,
    pub worst_after: Option<f64>,
    /// Both seats at equal points (`[i][j]`: `i`'s chance against `j`), before and after.
    pub before: Option<Vec<Vec<f64>>>,
    pub after: Option<Vec<Vec<f64>>>,
}

/// Price the units of `roster` on the stat `count`, against `reference` (default: the
/// first unit).
pub fn costs(
    job: &Job,
    roster: &Roster,
    count: &str,
    reference: Option<&str>,
) -> Result<Costs, Error> {
    let source = job.source;
    let table = &job.target.table;
    let roles = source.roles(table)?;
    let (att, def) = (&roles[0], &roles[1]);
    let units = &roster.units;
    let knob = source
        .knobs()
        .stats
        .iter()
        .find(|s| s.table == att.table && s.key == count)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<String> = source
                .knobs()
                .stats
                .iter()
                .filter(|s| s.table == att.table)
                .map(|s| s.key.to_string())
                .collect();
            Error::BadOption(format!(
                "--count {count}: the units of `{}` have no stat `{count}` to count with{}; their stats are {}",
                att.table,
                nearest_hint(count, names.iter().map(String::as_str)),
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ))
        })?;
    if knob.better < 0 {
        return Err(Error::BadOption(format!(
            "--count {count}: `{count}` is better low; a count is more of a unit (models, dice, hit points)"
        )));
    }
    let reference = match reference {
        None => units[0].id.clone(),
        Some(r) => units
            .iter()
            .find(|u| u.id == r || u.name.eq_ignore_ascii_case(r))
            .map(|u| u.id.clone())
            .ok_or_else(|| {
                Error::BadOption(format!(
                    "--reference {r}: not a unit of the roster{}",
                    nearest_hint(r, units.iter().map(|u| u.id.as_str()))
                ))
            })?,
    };
    let now: Vec<i64> = units
        .iter()
        .map(|u| {
            source.int_of(&att.table, &u.id, count).ok_or_else(|| {
                Error::BadOption(format!("--count {count}: unit `{}` has no `{count}`", u.id))
            })
        })
        .collect::<Result<_, _>>()?;
    let current: Vec<Option<i64>> = units
        .iter()
        .map(|u| source.int_of(&att.table, &u.id, "cost"))
        .collect();
    let r = units.iter().position(|u| u.id == reference).unwrap_or(0);
    let reference_cost = current[r].map_or(100.0, |c| c as f64);
    let member = roster.matrix.scenario.clone();
    // P(a with `ca` attacks d with `cd` and wins).
    let attack = |a: &str, ca: i64, d: &str, cd: i64| -> Result<f64, Error> {
        let pick = |role: &super::Role, id: &str| Edit::Scenario {
            scenario: table.clone(),
            key: role.key.clone(),
            value: Value::String(id.to_string()),
        };
        let n = |role: &super::Role, c: i64| Edit::Side {
            scenario: table.clone(),
            role: role.key.clone(),
            table: role.table.clone(),
            key: count.to_string(),
            value: Value::Integer(c),
        };
        let cfg = source.apply(&[pick(att, a), pick(def, d), n(att, ca), n(def, cd)])?;
        job.value(&compile(&cfg, &member, job.ctx.cancel)?)
    };
    // Both seats, as the roster reads a pair.
    let both = |a: &str, ca: i64, d: &str, cd: i64| -> Result<f64, Error> {
        Ok((attack(a, ca, d, cd)? + 1.0 - attack(d, cd, a, ca)?) / 2.0)
    };
    let (lo, hi) = (knob.lo.max(1), knob.hi.min(10_000));
    let mut rows = Vec::new();
    for (i, u) in units.iter().enumerate() {
        let mut at_least = false;
        let mut curve: Vec<(i64, f64)> = Vec::new();
        let (even, bracket) = if i == r {
            (Some(now[r] as f64), None)
        } else {
            // Bracket the tie from the unit's own count outwards (doubling, or halving),
            // never from the knob's far end (a thousand hit points is a long duel), then
            // halve between the two and read between the whole counts around it.
            let memo = std::cell::RefCell::new(std::collections::BTreeMap::new());
            let f = |x: i64| -> Result<f64, Error> {
                if let Some(v) = memo.borrow().get(&x) {
                    return Ok(*v);
                }
                let v = both(&u.id, x, &reference, now[r])?;
                memo.borrow_mut().insert(x, v);
                Ok(v)
            };
            let start = now[i].clamp(lo, hi);
            let mut found: Option<(i64, i64)> = None;
            let mut none = false;
            if f(start)? >= 0.5 {
                let mut b = start;
                loop {
                    if b == lo {
                        at_least = f(lo)? > 0.5;
                        break;
                    }
                    let a = (b / 2).max(lo);
                    if f(a)? < 0.5 {
                        found = Some((a, b));
                        break;
                    }
                    b = a;
                }
            } else {
                let mut a = start;
                loop {
                    if a == hi {
                        none = true;
                        break;
                    }
                    let b = (a * 2).min(hi);
                    if f(b)? >= 0.5 {
                        found = Some((a, b));
                        break;
                    }
                    a = b;
                }
            }
            let result = match found {
                Some((mut a, mut b)) => {
                    while b - a > 1 {
                        let mid = (a + b) / 2;
                        if f(mid)? < 0.5 {
                            a = mid;
                        } else {
                            b = mid;
                        }
                    }
                    let (fa, fb) = (f(a)?, f(b)?);
                    let x = a as f64 + (0.5 - fa) / (fb - fa).max(1e-15);
                    (Some(x), Some((a, b)))
                }
                None if none => (None, None),
                None => (Some(lo as f64), None),
            };
            curve = memo.into_inner().into_iter().collect();
            result
        };
        let worth = |x: f64| reference_cost * now[i] as f64 / x;
        rows.push(CostRow {
            id: u.id.clone(),
            name: u.name.clone(),
            count: now[i],
            current: current[i],
            even_count: even,
            suggested: if i == r {
                Some(reference_cost)
            } else {
                even.map(worth)
            },
            interval: bracket.map(|(a, b)| (worth(b as f64), worth(a as f64))),
            at_least,
            curve,
            field_before: None,
            field_after: None,
        });
    }
    // At equal points: each unit fields what the reference's cost buys at its price.
    // Each unit's win rate against the field, the largest |chance - 1/2|, the matrix.
    type Fair = (Vec<f64>, f64, Vec<Vec<f64>>);
    let fair = |prices: &[f64]| -> Result<Fair, Error> {
        let n = units.len();
        let counts: Vec<i64> = (0..n)
            .map(|i| ((now[i] as f64 * reference_cost / prices[i]).round() as i64).clamp(lo, hi))
            .collect();
        let mut field = vec![0.0; n];
        let mut worst: f64 = 0.0;
        let mut m = vec![vec![0.5; n]; n];
        for i in 0..n {
            for j in (i + 1)..n {
                let p = both(&units[i].id, counts[i], &units[j].id, counts[j])?;
                field[i] += p / (n - 1) as f64;
                field[j] += (1.0 - p) / (n - 1) as f64;
                worst = worst.max((p - 0.5).abs());
                m[i][j] = p;
                m[j][i] = 1.0 - p;
            }
        }
        Ok((field, worst, m))
    };
    let mut out = Costs {
        count: count.to_string(),
        reference,
        reference_cost,
        rows,
        worst_before: None,
        worst_after: None,
        before: None,
        after: None,
    };
    if current.iter().all(Option::is_some) {
        let prices: Vec<f64> = current.iter().map(|c| c.unwrap_or(1) as f64).collect();
        let (field, worst, m) = fair(&prices)?;
        out.worst_before = Some(worst);
        out.before = Some(m);
        for (row, f) in out.rows.iter_mut().zip(field) {
            row.field_before = Some(f);
        }
    }
    if out.rows.iter().all(|r| r.suggested.is_some()) {
        let prices: Vec<f64> = out
            .rows
            .iter()
            .map(|r| r.suggested.unwrap_or(1.0))
            .collect();
        let (field, worst, m) = fair(&prices)?;
        out.worst_after = Some(worst);
        out.after = Some(m);
        for (row, f) in out.rows.iter_mut().zip(field) {
            row.field_after = Some(f);
        }
    }
    Ok(out)
}
