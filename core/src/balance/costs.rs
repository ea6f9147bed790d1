//! Point costs for a roster: what each unit should cost against a reference unit, found
//! on a count knob (models in a squad, dice in a pool, hit points). For each unit the
//! count at which it ties the reference (both seats, 1/2) is found by bisection on that
//! knob; the unit as configured is then worth the reference's cost times its count over
//! that count ("5 Marines ~ 15 Orks"). Re-priced, every unit fields as many as its cost
//! buys at the reference's price, and the matrix at equal points says how fair the
//! prices are, before and after.

use super::{compile, Job};
use crate::config::reader::nearest_hint;
use crate::edit::Edit;
use crate::Error;
use toml::Value;

/// One unit's price.
#[derive(Clone, Debug, PartialEq)]
pub struct CostRow {
    /// The unit's id in its table.
    pub id: String,
    /// Its display name.
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
    /// the current costs (`None` unless every unit has one).
    pub field_before: Option<f64>,
    /// As `field_before`, with the suggested costs (`None` unless every unit has one).
    pub field_after: Option<f64>,
}

/// The roster priced.
#[derive(Clone, Debug, PartialEq)]
pub struct Costs {
    /// The count knob (a stat of the units).
    pub count: String,
    /// The reference unit's id.
    pub reference: String,
    /// The reference's cost (100 when it declares none: costs are then relative).
    pub reference_cost: f64,
    /// One per unit, in roster order.
    pub rows: Vec<CostRow>,
    /// The largest |chance - 1/2| over every pair at equal points, with the current
    /// costs (`None` unless every unit has one).
    pub worst_before: Option<f64>,
    /// As `worst_before`, with the suggested costs (`None` unless every unit has one).
    pub worst_after: Option<f64>,
    /// Both seats at equal points (`[i][j]`: `i`'s chance against `j`), with the
    /// current costs.
    pub before: Option<Vec<Vec<f64>>>,
    /// As `before`, with the suggested costs (`None` unless every unit has one).
    pub after: Option<Vec<Vec<f64>>>,
}

/// One unit's search for the count that ties the reference: the count (None: no count
/// in range does), the whole counts around it, whether the lowest count already ties,
/// and every count tried with its chance.
pub type Search = (Option<f64>, Option<(i64, i64)>, bool, Vec<(i64, f64)>);

/// At equal points: each unit's win rate against the field, the largest |chance - 1/2|,
/// the matrix.
pub type Fair = (Vec<f64>, f64, Vec<Vec<f64>>);

/// A roster's pricing, checked, before anything is measured: the searches and the
/// check at the current costs need nothing else, so a shard computes its share of both
/// ([`Job::spread`]); the check at the suggested costs needs every search.
pub struct Pricing {
    units: Vec<(String, String)>,
    member: String,
    count: String,
    reference: String,
    r: usize,
    now: Vec<i64>,
    current: Vec<Option<i64>>,
    reference_cost: f64,
    lo: i64,
    hi: i64,
}

/// The stats `--count` takes for these units (id, display name) of `member`: each of the
/// attacking side's stats that [`Pricing::new`] accepts, so that a menu offers no stat
/// the command refuses.
pub fn countable(job: &Job, units: &[(String, String)], member: &str) -> Vec<String> {
    let Some(table) = job
        .source
        .roles(&job.target.table)
        .ok()
        .and_then(|r| r.first().map(|a| a.table.clone()))
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for s in job.source.knobs().stats.iter().filter(|s| s.table == table) {
        let key = s.key.to_string();
        if !out.contains(&key) && Pricing::new(job, units, member, &key, None).is_ok() {
            out.push(key);
        }
    }
    out
}

impl Pricing {
    /// Check `count` and `reference` against the units (id, display name) of `member`.
    pub fn new(
        job: &Job,
        units: &[(String, String)],
        member: &str,
        count: &str,
        reference: Option<&str>,
    ) -> Result<Pricing, Error> {
        let source = job.source;
        let table = &job.target.table;
        let roles = source.roles(table)?;
        let att = &roles[0];
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
            None => units[0].0.clone(),
            Some(r) => units
                .iter()
                .find(|u| u.0 == r || u.1.eq_ignore_ascii_case(r))
                .map(|u| u.0.clone())
                .ok_or_else(|| {
                    Error::BadOption(format!(
                        "--reference {r}: not a unit of the roster{}",
                        nearest_hint(r, units.iter().map(|u| u.0.as_str()))
                    ))
                })?,
        };
        let now: Vec<i64> = units
            .iter()
            .map(|u| {
                source.int_of(&att.table, &u.0, count).ok_or_else(|| {
                    Error::BadOption(format!("--count {count}: unit `{}` has no `{count}`", u.0))
                })
            })
            .collect::<Result<_, _>>()?;
        let current: Vec<Option<i64>> = units
            .iter()
            .map(|u| source.int_of(&att.table, &u.0, "cost"))
            .collect();
        let r = units.iter().position(|u| u.0 == reference).unwrap_or(0);
        let reference_cost = current[r].map_or(100.0, |c| c as f64);
        Ok(Pricing {
            units: units.to_vec(),
            member: member.to_string(),
            count: count.to_string(),
            reference,
            r,
            now,
            current,
            reference_cost,
            lo: knob.lo.max(1),
            hi: knob.hi.min(10_000),
        })
    }

    /// P(a with `ca` attacks d with `cd` and wins).
    fn attack(&self, job: &Job, (a, ca): (&str, i64), (d, cd): (&str, i64)) -> Result<f64, Error> {
        let source = job.source;
        let table = &job.target.table;
        let roles = source.roles(table)?;
        let (att, def) = (&roles[0], &roles[1]);
        let pick = |role: &super::Role, id: &str| Edit::Scenario {
            scenario: table.clone(),
            key: role.key.clone(),
            value: Value::String(id.to_string()),
        };
        let n = |role: &super::Role, c: i64| Edit::Side {
            scenario: table.clone(),
            role: role.key.clone(),
            table: role.table.clone(),
            key: self.count.clone(),
            value: Value::Integer(c),
        };
        let cfg = source.apply(&[pick(att, a), pick(def, d), n(att, ca), n(def, cd)])?;
        job.value(&compile(&cfg, &self.member, job.ctx.cancel)?)
    }

    /// Both seats, as the roster reads a pair.
    fn both(&self, job: &Job, a: (&str, i64), d: (&str, i64)) -> Result<f64, Error> {
        Ok((self.attack(job, a, d)? + 1.0 - self.attack(job, d, a)?) / 2.0)
    }

    /// Every unit's search for its tie with the reference (`None` on a shard).
    pub fn searches(&self, job: &Job) -> Result<Option<Vec<Search>>, Error> {
        let idx: Vec<usize> = (0..self.units.len()).collect();
        job.spread("price searches", &idx, |&i| self.search(job, i))
    }

    /// Bracket the tie from the unit's own count outwards (doubling, or halving), never
    /// from the knob's far end (a thousand hit points is a long duel), then halve between
    /// the two and read between the whole counts around it.
    fn search(&self, job: &Job, i: usize) -> Result<Search, Error> {
        let (lo, hi, r) = (self.lo, self.hi, self.r);
        if i == r {
            return Ok((Some(self.now[r] as f64), None, false, Vec::new()));
        }
        let id = &self.units[i].0;
        let memo = std::cell::RefCell::new(std::collections::BTreeMap::new());
        let f = |x: i64| -> Result<f64, Error> {
            if let Some(v) = memo.borrow().get(&x) {
                return Ok(*v);
            }
            let v = self.both(job, (id, x), (&self.reference, self.now[r]))?;
            memo.borrow_mut().insert(x, v);
            Ok(v)
        };
        let mut at_least = false;
        let start = self.now[i].clamp(lo, hi);
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
        let (even, bracket) = match found {
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
        Ok((
            even,
            bracket,
            at_least,
            memo.into_inner().into_iter().collect(),
        ))
    }

    /// At equal points with these prices: each unit fields what the reference's cost
    /// buys at its price (`None` on a shard).
    fn fair(&self, job: &Job, label: &str, prices: &[f64]) -> Result<Option<Fair>, Error> {
        let n = self.units.len();
        let counts: Vec<i64> = (0..n)
            .map(|i| {
                ((self.now[i] as f64 * self.reference_cost / prices[i]).round() as i64)
                    .clamp(self.lo, self.hi)
            })
            .collect();
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
            .collect();
        let Some(ps) = job.spread(label, &pairs, |&(i, j)| {
            self.both(
                job,
                (&self.units[i].0, counts[i]),
                (&self.units[j].0, counts[j]),
            )
        })?
        else {
            return Ok(None);
        };
        let mut field = vec![0.0; n];
        let mut worst: f64 = 0.0;
        let mut m = vec![vec![0.5; n]; n];
        for (&(i, j), p) in pairs.iter().zip(ps) {
            field[i] += p / (n - 1) as f64;
            field[j] += (1.0 - p) / (n - 1) as f64;
            worst = worst.max((p - 0.5).abs());
            m[i][j] = p;
            m[j][i] = 1.0 - p;
        }
        Ok(Some((field, worst, m)))
    }

    /// The matrix at the current costs, if every unit declares one (`Some(None)`: none
    /// to check; `None` on a shard).
    pub fn fair_now(&self, job: &Job) -> Result<Option<Option<Fair>>, Error> {
        if !self.current.iter().all(Option::is_some) {
            return Ok(Some(None));
        }
        let prices: Vec<f64> = self.current.iter().map(|c| c.unwrap_or(1) as f64).collect();
        Ok(self
            .fair(job, "fair pairs at the current costs", &prices)?
            .map(Some))
    }

    /// The prices from every search, and the check at the suggested costs.
    pub fn finish(
        self,
        job: &Job,
        searched: Vec<Search>,
        before: Option<Fair>,
    ) -> Result<Costs, Error> {
        let r = self.r;
        let mut rows = Vec::new();
        for (i, (even, bracket, at_least, curve)) in searched.into_iter().enumerate() {
            let worth = |x: f64| self.reference_cost * self.now[i] as f64 / x;
            rows.push(CostRow {
                id: self.units[i].0.clone(),
                name: self.units[i].1.clone(),
                count: self.now[i],
                current: self.current[i],
                even_count: even,
                suggested: if i == r {
                    Some(self.reference_cost)
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
        let mut out = Costs {
            count: self.count.clone(),
            reference: self.reference.clone(),
            reference_cost: self.reference_cost,
            rows,
            worst_before: None,
            worst_after: None,
            before: None,
            after: None,
        };
        if let Some((field, worst, m)) = before {
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
            let (field, worst, m) = self
                .fair(job, "fair pairs at the suggested costs", &prices)?
                .ok_or(Error::Deferred)?;
            out.worst_after = Some(worst);
            out.after = Some(m);
            for (row, f) in out.rows.iter_mut().zip(field) {
                row.field_after = Some(f);
            }
        }
        Ok(out)
    }
}
