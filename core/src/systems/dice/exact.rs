//! Exact distributions of dice-language expressions.
//!
//! A value is a distribution over a range of integers. Independent parts combine by
//! convolution (sums) or over pairs of values (other operators); a pool is read by the
//! cheapest method its modifiers allow: binomials for counts, repeated convolution for
//! sums, powers of the CDF for the highest and lowest die, and for keep / drop and the
//! largest set a pass over the faces from one end, choosing how many of the dice left in
//! each group show each face (the multiset method of Liu's icepool, AIIDE 2022). Only a
//! `let` variable is enumerated: the body is evaluated once per value it can take.

use super::dist::{binomial, dice_of, state_cost, Map, NODE_COST, SCANS_PER_UNIT};
pub use super::dist::{die_dist, Dist, Ledger, TooBig, MAX_SPAN, MAX_WORK};
use super::lang::{Agg, End};
use super::program::choice::Choice;
use super::program::pick::Picker;
use super::program::{Card, DieSpec, Meeting, Node, PoolSpec, Repeat, Side, Template};
use std::collections::BTreeMap;

mod again;
mod columns;
mod dealt;
mod law;
mod parts;
mod repeat;
mod sink;
mod tallies;
mod weight;

use again::again;
use dealt::{card, counted_var};
pub use law::{any_law, first_law, real_law, First, Law, NoLaw, Weights, LAW_WORK};
use parts::*;
pub use repeat::MAX_REPEAT_STATES;
use repeat::*;
pub use sink::sunk;
pub(crate) use weight::Weight;

/// The exact distribution of a whole expression (no variables in scope): its `let`s
/// first moved down to the parts that read them ([`sunk`]), then evaluated.
pub fn distribution(n: &Node, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    eval(&sunk(n, 0), &mut Env::default(), ledger)
}

/// [`distribution`] of a roll, less the opposing roll's where there is one.
pub fn against(roll: &Node, vs: Option<&Node>, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let a = distribution(roll, ledger)?;
    match vs {
        None => Ok(a),
        Some(v) => a.add(&distribution(v, ledger)?.neg()),
    }
}

/// The `let` values in scope: a number, or a pool variable's dice (sorted), per level.
#[derive(Default)]
pub struct Env {
    nums: Vec<i64>,
    dice: Vec<Vec<i64>>,
    /// Reads whose value a joint pass fixed (a node's address and its value): the body
    /// of a lowered `let` chain is evaluated once per list of values its reads take.
    fixed: Vec<(usize, i64)>,
    /// What each part of the tree is, by address (a part is always evaluated at the
    /// same depth of scope, so this is known the first time it is met): see [`Part`].
    parts: Map<usize, Part>,
    /// Per pool variable (its `let`'s address), its body with every read a tally, when
    /// its reads are all sums and counts: see [`tallies::plain`]. Kept for the whole
    /// evaluation, so no two bodies share an address.
    tallied: Map<usize, Option<std::rc::Rc<tallies::Tallied>>>,
}

impl Env {
    fn push(&mut self, v: i64, dice: Vec<i64>) {
        self.nums.push(v);
        self.dice.push(dice);
    }
    fn pop(&mut self) {
        self.nums.pop();
        self.dice.pop();
    }
}

/// Most outcomes of a pool variable the exact engine goes through (every multiset of
/// its dice); past it the scenario is Monte Carlo only.
pub const MAX_OUTCOMES: u64 = 2_000_000;

/// Most kinds of dice one keep or drop goes through exactly (its state packs a byte
/// per kind in one word).
pub(super) const MAX_KINDS: usize = 16;

/// Both sides of a binary operator, the pairs they make counted as work.
fn operands(
    a: &Node,
    b: &Node,
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<(Dist, Dist), TooBig> {
    let x = eval(a, env, ledger)?;
    let y = eval(b, env, ledger)?;
    ledger.pairs(&x, &y)?;
    Ok((x, y))
}

/// The exact distribution of a compiled expression in `env`.
pub fn eval(n: &Node, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    if ledger.cancel.is_cancelled() {
        return Err(TooBig("the computation was stopped".into()));
    }
    // Every node evaluated counts against the one budget: `let`s over `let`s multiply
    // their bodies' evaluations, and no path may run unbounded. A node costs about as
    // much as [`NODE_COST`] units of arithmetic (it allocates its distribution).
    ledger.spend(NODE_COST, "nested `let`s with too many combinations")?;
    if !env.fixed.is_empty() && matches!(n, Node::PoolVar(_) | Node::Meeting(_)) {
        let at = n as *const Node as usize;
        if let Some(&(_, v)) = env.fixed.iter().find(|(k, _)| *k == at) {
            return Ok(Dist::point(v));
        }
    }
    if let Some(d) = remembered(n, env, ledger)? {
        return Ok(d);
    }
    Ok(match n {
        Node::Num(v) => Dist::point(*v),
        Node::Var(i) => Dist::point(env.nums[*i]),
        Node::Neg(a) => eval(a, env, ledger)?.neg(),
        Node::Add(a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.add(&y)?
        }
        Node::Sub(a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.add(&y.neg())?
        }
        Node::Mul(a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.combine(&y, |x, y| x.saturating_mul(y))?
        }
        Node::Max(a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.combine(&y, |x, y| x.max(y))?
        }
        Node::Min(a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.combine(&y, |x, y| x.min(y))?
        }
        Node::Div(a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.combine(&y, divide)?
        }
        Node::Cmp(c, a, b) => {
            let (x, y) = operands(a, b, env, ledger)?;
            x.combine(&y, |x, y| c.holds(x, y) as i64)?
        }
        Node::Let(bound, body) => let_num(bound, body, env, ledger)?,
        Node::LetPool {
            spec, body, choice, ..
        } => let_pool(n, spec, body, choice.as_deref(), env, ledger)?,
        Node::Pick(p) => pick(p, env, ledger)?,
        Node::PoolVar(r) => pool_var(r, env, ledger)?,
        Node::If(c, a, b) => if_else(c, a, b, env, ledger)?,
        Node::Pool(p) => pool(p, ledger)?,
        Node::Versus(kind, a, b, ties) if a.keep.is_none() && b.keep.is_none() => match kind {
            super::lang::Versus::Beats => beats(a, b, *ties, ledger)?,
            // One kind of die a side, few enough for the packed pass.
            super::lang::Versus::Pairs if one_kind(a) && one_kind(b) => {
                let k = a.groups[0].0.min(b.groups[0].0) as usize;
                let ties = *ties;
                face_by_face(a, b, ledger, |x, y, ca, cb| {
                    // The first's places filled now: won when the partner comes lower,
                    // a tie when it is placed now too.
                    (x..(x + ca).min(k))
                        .filter(|&i| i >= y + cb || (i >= y && ties))
                        .count()
                })?
            }
            super::lang::Versus::Cancel if one_kind(a) && one_kind(b) => {
                face_by_face(a, b, ledger, |_, _, ca, cb| ca.saturating_sub(cb))?
            }
            _ => versus_pass(*kind, a, b, *ties, ledger)?,
        },
        Node::Versus(kind, a, b, ties) => versus_pass(*kind, a, b, *ties, ledger)?,
        Node::Meeting(m) => match super::lower::meeting(m, ledger)? {
            Some(pass) => pass.dist(ledger)?,
            None => meeting(m, env, ledger)?,
        },
        Node::Repeat(r) => repeat(r, env, ledger)?,
        Node::Counted(c, pools) => counted(c, pools, env, ledger)?,
        Node::Template(t) => template(t, env, ledger)?,
        Node::Card(c) => card(c, env, ledger)?,
        Node::CountedVar(c, bodies) => counted_var(c, bodies, env, ledger)?,
        // Read only by `step`; packed before any evaluation.
        Node::Emit(_) | Node::Record(_) => Dist::point(0),
    })
}

/// `let x = bound in body`: the body once per value of the bound, mixed.
fn let_num(bound: &Node, body: &Node, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let d = eval(bound, env, ledger)?;
    if d.p.len() == 1 {
        // One value: nothing to mix.
        env.push(d.lo, Vec::new());
        let r = eval(body, env, ledger);
        env.pop();
        return r;
    }
    let mut out: Option<Dist> = None;
    for (v, p) in d.iter() {
        env.push(v, Vec::new());
        let r = ledger.within(p, |ledger| eval(body, env, ledger));
        env.pop();
        mix(&mut out, &r?, p, ledger)?;
    }
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// A pool variable: its body once per outcome of its dice (or its reads' tallies).
fn let_pool(
    n: &Node,
    spec: &PoolSpec,
    body: &Node,
    choice: Option<&Choice>,
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    if choice.is_none() {
        if let Some(d) = tallies::plain(n, spec, body, env, ledger)? {
            return Ok(d);
        }
    }
    if let Some(d) = let_chain(n, env, ledger)? {
        return Ok(d);
    }
    let mut out: Option<Dist> = None;
    over_pool(spec, choice, env, ledger, &mut |env, ledger, p| {
        let r = eval(body, env, ledger)?;
        mix(&mut out, &r, p, ledger)?;
        Ok(())
    })?;
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// A pool variable's read: of the dice in scope, its numbers rolled at the read.
fn pool_var(
    r: &super::program::PoolRead,
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    Ok(match &r.rolled {
        None => Dist::point(r.value(&env.dice[r.i], r.keep, r.agg)),
        Some(rolled) => {
            // The read's numbers, rolled independently of the dice already rolled.
            let keep = match &rolled.keep {
                Some((_, _, n)) => Some(eval(n, env, ledger)?),
                None => None,
            };
            let face = match &rolled.face {
                Some(n) => Some(eval(n, env, ledger)?),
                None => None,
            };
            let values = |d: &Option<Dist>| -> Vec<(Option<i64>, f64)> {
                match d {
                    Some(d) => d.iter().map(|(v, p)| (Some(v), p)).collect(),
                    None => vec![(None, 1.0)],
                }
            };
            let (ks, fs) = (values(&keep), values(&face));
            ledger.spend(
                (ks.len() * fs.len()) as u64,
                "a read whose numbers take too many values",
            )?;
            let mut m: Map<i64, f64> = Map::default();
            for &(k, p) in &ks {
                for &(f, q) in &fs {
                    let (keep, agg) = r.with(k, f);
                    let v = super::program::read_sorted(&env.dice[r.i], keep, agg, r.lo, r.hi);
                    *m.entry(v).or_default() += p * q;
                }
            }
            Dist::from_map(&m)
        }
    })
}

/// `if c then a else b`: each branch weighted by its chance, one never taken unread.
fn if_else(
    c: &Node,
    a: &Node,
    b: &Node,
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    let d = eval(c, env, ledger)?;
    let yes: f64 = d.iter().filter(|(v, _)| *v != 0).map(|(_, p)| p).sum();
    // A branch never taken is not evaluated (a `let` value that decides it).
    if d.iter().all(|(v, _)| v == 0) {
        return eval(b, env, ledger);
    }
    if d.iter().all(|(v, _)| v != 0) {
        return eval(a, env, ledger);
    }
    let mut out = ledger.within(yes, |ledger| eval(a, env, ledger))?;
    out.p.iter_mut().for_each(|q| *q *= yes);
    let other = ledger.within(1.0 - yes, |ledger| eval(b, env, ledger))?;
    // Two branches far apart span every value between them.
    let width = out
        .hi()
        .max(other.hi())
        .saturating_sub(out.lo.min(other.lo));
    if width >= MAX_SPAN as i64 {
        return Err(TooBig(format!("a value spans {width} values")));
    }
    out.add_scaled(&other, 1.0 - yes);
    Ok(out.trim())
}

/// A pool whose dice count is rolled: the pool of each count, mixed by its chance.
fn counted(
    c: &Node,
    pools: &[PoolSpec],
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    let d = eval(c, env, ledger)?;
    let mut out: Option<Dist> = None;
    for (n, p) in d.iter() {
        ledger.most_dice = ledger.most_dice.max(n);
        // The pools run to the most the count can be: a count past them would
        // mean its bounds are wrong, and a pool of too few dice read in silence.
        if n >= pools.len() as i64 && n <= super::program::MAX_ROLLED_DICE {
            return Err(TooBig(format!(
                "a rolled count of {n} passed the {} pools made for it",
                pools.len()
            )));
        }
        let spec = super::program::counted(pools, n);
        let r = ledger.within(p, |ledger| pool(spec, ledger))?;
        mix(&mut out, &r, p, ledger)?;
    }
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// A pool of one kind of die, at most 255 of them.
fn one_kind(p: &PoolSpec) -> bool {
    matches!(p.groups.as_slice(), [(n, _)] if *n <= 255)
}

/// Two pools die by die by the multiset pass, or (a deck, `again`) every multiset of
/// one (its kept dice) against every multiset of the other.
fn versus_pass(
    kind: super::lang::Versus,
    a: &PoolSpec,
    b: &PoolSpec,
    ties: bool,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    if let Some(pass) = super::lower::versus(kind, a, b, ties, ledger)? {
        return pass.dist(ledger);
    }
    let (xs, ys) = (kept_multisets(a, ledger)?, kept_multisets(b, ledger)?);
    // Not charged to the budget, as it never was (charged, some pools would go to
    // Monte Carlo that are exact now).
    every_pair(&xs, &ys, None, |x, y| {
        super::program::versus(kind, x, y, ties)
    })
}

/// A `let` chain of pool variables whose every read lowers to one multiset pass: the
/// reads' joint distribution, then the body once per list of values they take (the
/// reads fixed to those values). None: the chain goes through its rolls instead.
fn let_chain(n: &Node, env: &mut Env, ledger: &mut Ledger) -> Result<Option<Dist>, TooBig> {
    let Some(chain) = super::lower::chain(n, env.nums.len(), ledger)? else {
        return Ok(None);
    };
    let joint = chain.pass.run(ledger)?;
    ledger.spend(
        (joint.len() as u64).saturating_mul(NODE_COST),
        "pool variables whose reads take too many values together",
    )?;
    let mark = env.fixed.len();
    for _ in 0..chain.vars {
        env.push(0, Vec::new());
    }
    if let Some(d) = parts::by_value(&chain, &joint, env, mark) {
        for _ in 0..chain.vars {
            env.pop();
        }
        return d.map(Some);
    }
    let mut out: Option<Dist> = None;
    let mut result = Ok(());
    for (vals, p) in &joint {
        parts::fix(&chain, vals, env, mark);
        let r = ledger.within(*p, |ledger| eval(chain.body, env, ledger));
        result = r.and_then(|d| mix(&mut out, &d, *p, ledger));
        if result.is_err() {
            break;
        }
    }
    env.fixed.truncate(mark);
    for _ in 0..chain.vars {
        env.pop();
    }
    result?;
    Ok(Some(out.unwrap_or_else(|| Dist::point(0)).trim()))
}

/// A pool whose numbers are rolled first: each combination of their values (they are
/// independent of one another given the variables in scope, each its own roll), the
/// pool it makes, mixed by the combination's probability.
fn template(t: &Template, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let dists = t
        .params
        .iter()
        .map(|p| eval(p, env, ledger))
        .collect::<Result<Vec<_>, _>>()?;
    let combos = dists
        .iter()
        .try_fold(1u64, |acc, d| {
            acc.checked_mul(d.p.iter().filter(|&&q| q > 0.0).count() as u64)
        })
        .unwrap_or(u64::MAX);
    ledger.spend(
        combos.saturating_mul(NODE_COST),
        "a pool whose rolled numbers take too many values together",
    )?;
    let mut out: Option<Dist> = None;
    let mut vals = vec![0i64; dists.len()];
    fn walk(
        t: &Template,
        dists: &[Dist],
        j: usize,
        p: f64,
        vals: &mut Vec<i64>,
        out: &mut Option<Dist>,
        ledger: &mut Ledger,
    ) -> Result<(), TooBig> {
        if j == dists.len() {
            if t.fixed.first() == Some(&None) {
                ledger.most_dice = ledger.most_dice.max(vals[0]);
            }
            let Some(spec) = t.spec(vals) else {
                return mix(out, &Dist::point(0), p, ledger);
            };
            let d = ledger.within(p, |ledger| pool(&spec, ledger))?;
            return mix(out, &d, p, ledger);
        }
        for (v, q) in dists[j].iter() {
            if q > 0.0 {
                vals[j] = v;
                walk(t, dists, j + 1, p * q, vals, out, ledger)?;
            }
        }
        Ok(())
    }
    walk(t, &dists, 0, 1.0, &mut vals, &mut out, ledger)?;
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// Go through every multiset of a pool variable's dice, each in scope in turn, calling
/// `body` with its probability (what it reports counts that often); stops at the first
/// error.
fn over_pool(
    spec: &PoolSpec,
    choice: Option<&Choice>,
    env: &mut Env,
    ledger: &mut Ledger,
    body: &mut dyn FnMut(&mut Env, &mut Ledger, f64) -> Result<(), TooBig>,
) -> Result<(), TooBig> {
    let mut result = Ok(());
    let mut inner = ledger.inner();
    if let Some(c) = choice {
        // Rerolled by a choice: the dice at the end, as the choice's plan found them.
        ledger.spend(
            (c.ends.len() as u64).saturating_mul(NODE_COST),
            "a choice with too many ends",
        )?;
        for (dice, p) in &c.ends {
            env.push(0, dice.clone());
            result = inner.within(*p, |inner| body(env, inner, *p));
            env.pop();
            if result.is_err() {
                break;
            }
        }
    } else if let Some(c) = spec.again {
        // Its dice count varies: it holds its tallies, one per way the body reads it.
        for (t, p) in tallies::tallies(spec, c, ledger)? {
            env.push(0, t);
            result = inner.within(p, |inner| body(env, inner, p));
            env.pop();
            if result.is_err() {
                break;
            }
        }
    } else if spec.ways.is_empty() {
        multisets(spec, ledger, &mut |dice, p| {
            if result.is_err() {
                return;
            }
            // A variable bound with a keep holds the kept dice.
            env.push(0, spec.keep_of(dice).to_vec());
            result = inner.within(p, |inner| body(env, inner, p));
            env.pop();
        })?;
    } else {
        // The rolls that read the same every way the body reads them, as one: the body
        // sees one of them, with their summed probability (in the order first met).
        let (lo, hi) = super::program::face_span(spec);
        let mut index: Map<Vec<i64>, usize> = Map::default();
        let mut outcomes: Vec<(Vec<i64>, f64)> = Vec::new();
        // Each roll gone through is read and looked up (about a node's work): nested
        // variables go through one's rolls once per outcome of the other.
        let mut visited = 0u64;
        multisets(spec, ledger, &mut |dice, p| {
            visited += 1;
            let kept = spec.keep_of(dice);
            let key: Vec<i64> = spec
                .ways
                .iter()
                .map(|(keep, agg)| super::program::read_sorted(kept, *keep, *agg, lo, hi))
                .collect();
            match index.get(&key) {
                Some(&i) => outcomes[i].1 += p,
                None => {
                    index.insert(key, outcomes.len());
                    outcomes.push((kept.to_vec(), p));
                }
            }
        })?;
        ledger.spend(
            visited.saturating_mul(NODE_COST),
            "nested pool variables with too many rolls",
        )?;
        for (dice, p) in outcomes {
            env.push(0, dice);
            result = inner.within(p, |inner| body(env, inner, p));
            env.pop();
            if result.is_err() {
                break;
            }
        }
    }
    ledger.merge(inner);
    result
}

/// Most rolls times ways to hand each out a `choose` goes through exactly (Cortex's
/// four dice: 2,160 rolls, 12 ways).
pub const MAX_PICK_ROLLS: f64 = 2_000_000.0;

/// A `choose`: every roll of its dice (a multiset per kind of die), handed out the best
/// way; the rolls that hand the roles the same dice are read by the body once.
fn pick(p: &Picker, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let mut dists = Vec::new();
    let mut count = 1.0f64;
    for (n, d) in &p.groups {
        let (dist, _) = die_dist(d, ledger)?;
        let vals: Vec<(i64, f64)> = dist.iter().collect();
        let mut c = 1.0;
        for j in 0..vals.len().saturating_sub(1) {
            c = c * (*n as f64 + 1.0 + j as f64) / (j as f64 + 1.0);
        }
        count *= c;
        dists.push(vals);
    }
    // Each roll is handed out every way: rolls times ways is the work.
    let ks: Vec<u32> = p.roles.iter().map(|(k, _)| *k).collect();
    let n: u32 = p.groups.iter().map(|(n, _)| n).sum();
    count *= super::program::pick::ways(n, &ks) as f64;
    if count > MAX_PICK_ROLLS {
        return Err(TooBig(format!(
            "a `choose` over {count:.0} rolls and ways to hand them out (at most {MAX_PICK_ROLLS})"
        )));
    }
    ledger.spend(
        (count as u64).saturating_mul(NODE_COST),
        "a `choose` over too many rolls",
    )?;
    let mut s = Box::new(super::program::Scratch::new());
    let mut ends: BTreeMap<Vec<(Vec<i64>, i64)>, f64> = BTreeMap::new();
    p.rolls(&dists, &mut |dice, q| {
        p.choose(dice, &mut s);
        *ends.entry(p.read_back(&s)).or_insert(0.0) += q;
    });
    let mut out: Option<Dist> = None;
    for (roles, q) in ends {
        for (faces, sides) in &roles {
            env.push(*sides, faces.clone());
        }
        let r = ledger.within(q, |ledger| eval(&p.body, env, ledger));
        for _ in &roles {
            env.pop();
        }
        mix(&mut out, &r?, q, ledger)?;
    }
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// Every value the groups' dice can show, ascending, each once.
fn faces_of(dies: &[(u32, Dist)]) -> Vec<i64> {
    let mut values: Vec<i64> = dies
        .iter()
        .flat_map(|(_, d)| d.iter().map(|(v, _)| v))
        .collect();
    values.sort_unstable();
    values.dedup();
    values
}

/// Face to face without keep: given the second pool's highest die `m` (powers of its
/// dice's CDFs), each die of the first beats it independently: a binomial per group.
fn beats(a: &PoolSpec, b: &PoolSpec, ties: bool, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let (da, db) = (dice_of(a, ledger)?, dice_of(b, ledger)?);
    let cdf = |d: &Dist, v: i64| -> f64 { d.iter().filter(|(x, _)| *x <= v).map(|(_, q)| q).sum() };
    let nb: u32 = db.iter().map(|(n, _)| n).sum();
    let na: u32 = da.iter().map(|(n, _)| n).sum();
    let mut out = vec![0.0; na as usize + 1];
    // The first pool's count of dice beating `m` (every die counts when B is empty).
    let count_above = |m: Option<i64>, ledger: &mut Ledger| -> Result<Dist, TooBig> {
        let mut acc = Dist::point(0);
        for (n, d) in &da {
            let q = match m {
                None => 1.0,
                Some(m) => d
                    .iter()
                    .filter(|(x, _)| if ties { *x >= m } else { *x > m })
                    .map(|(_, q)| q)
                    .sum(),
            };
            acc = acc.add(&Dist {
                lo: 0,
                p: binomial(*n, q, ledger)?,
            })?;
        }
        Ok(acc)
    };
    if nb == 0 {
        for (v, p) in count_above(None, ledger)?.iter() {
            out[v as usize] += p;
        }
        return Ok(Dist { lo: 0, p: out }.trim());
    }
    let values = faces_of(&db);
    // Each value of the second pool scans both pools' values.
    let scan: u64 = da.iter().chain(&db).map(|(_, d)| d.p.len() as u64).sum();
    let mut prev = 0.0;
    for m in values {
        ledger.spend(
            NODE_COST + scan / SCANS_PER_UNIT,
            "face to face over too many values",
        )?;
        let f: f64 = db.iter().map(|(n, d)| cdf(d, m).powi(*n as i32)).product();
        let pm = (f - prev).max(0.0);
        prev = f;
        if pm == 0.0 {
            continue;
        }
        for (v, p) in count_above(Some(m), ledger)?.iter() {
            out[v as usize] += pm * p;
        }
    }
    Ok(Dist { lo: 0, p: out }.trim())
}

/// Two pools of one kind of die each, in one pass over the faces from the top: with `x`
/// of the first pool's and `y` of the second's dice placed (the highest ones), `ca` and
/// `cb` dice of each show the next face (binomials of the dice left, given they show
/// no face passed yet), and `gained` says what that adds to the count. Sorted pairs:
/// pair `i` is decided when its second die is placed, won by the die placed first
/// (higher) or a tie when both are placed at the same face. Cancelling: the first's
/// dice at a face beyond the second's.
fn face_by_face(
    a: &PoolSpec,
    b: &PoolSpec,
    ledger: &mut Ledger,
    gained: impl Fn(usize, usize, usize, usize) -> usize,
) -> Result<Dist, TooBig> {
    let (na, (da, ca)) = (a.groups[0].0 as usize, die_dist(&a.groups[0].1, ledger)?);
    let (nb, (db, cb)) = (b.groups[0].0 as usize, die_dist(&b.groups[0].1, ledger)?);
    ledger.cap(ca * na as f64 + cb * nb as f64);
    let mut values: Vec<i64> = da.iter().chain(db.iter()).map(|(v, _)| v).collect();
    values.sort_unstable();
    values.dedup();
    values.reverse();
    let at = |d: &Dist, v: i64| -> f64 {
        if v < d.lo || v > d.hi() {
            0.0
        } else {
            d.p[(v - d.lo) as usize]
        }
    };
    // State (placed of the first, placed of the second, the count so far).
    let mut cur: Map<(usize, usize, usize), f64> = Map::from_iter([((0, 0, 0), 1.0)]);
    let mut next: Map<(usize, usize, usize), f64> = Map::default();
    let (mut left_a, mut left_b) = (1.0f64, 1.0f64);
    for v in values {
        ledger.spend(NODE_COST, "two pools of so many dice and faces")?;
        let q = |d: &Dist, left: f64| {
            if left > 0.0 {
                (at(d, v) / left).min(1.0)
            } else {
                0.0
            }
        };
        let (qa, qb) = (q(&da, left_a), q(&db, left_b));
        // The binomials of every count of dice left, once per value (not per state).
        let bas: Vec<Vec<f64>> = (0..=na as u32)
            .map(|r| binomial(r, qa, ledger))
            .collect::<Result<_, _>>()?;
        let bbs: Vec<Vec<f64>> = (0..=nb as u32)
            .map(|r| binomial(r, qb, ledger))
            .collect::<Result<_, _>>()?;
        next.clear();
        for (&(x, y, w), &p) in &cur {
            let (ba, bb) = (&bas[na - x], &bbs[nb - y]);
            for (ca, &pa) in ba.iter().enumerate() {
                if pa == 0.0 {
                    continue;
                }
                for (cb, &pb) in bb.iter().enumerate() {
                    if pb == 0.0 {
                        continue;
                    }
                    ledger.work += state_cost(cur.len().max(next.len()));
                    if ledger.work > MAX_WORK {
                        return Err(TooBig("two pools of so many dice and faces".into()));
                    }
                    let won = w + gained(x, y, ca, cb);
                    *next.entry((x + ca, y + cb, won)).or_default() += p * pa * pb;
                }
            }
        }
        left_a -= at(&da, v);
        left_b -= at(&db, v);
        std::mem::swap(&mut cur, &mut next);
    }
    let mut m: Map<i64, f64> = Map::default();
    for ((_, _, w), p) in cur {
        *m.entry(w as i64).or_default() += p;
    }
    Ok(Dist::from_map(&m))
}

/// Two sides die by die in full: a pool variable's dice as they are in scope, a pool's
/// every multiset (its kept dice), each pair of outcomes read.
fn meeting(m: &Meeting, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let outcomes = |side: &Side, env: &Env, ledger: &mut Ledger| match side {
        Side::Var { i, .. } => Ok(vec![(env.dice[*i].clone(), 1.0)]),
        Side::Pool(spec) => kept_multisets(spec, ledger),
    };
    let xs = outcomes(&m.sides[0], env, ledger)?;
    let ys = outcomes(&m.sides[1], env, ledger)?;
    every_pair(&xs, &ys, Some(ledger), |x, y| m.value(x, y))
}

/// Every multiset of a pool, its kept dice only, with its probability.
fn kept_multisets(spec: &PoolSpec, ledger: &mut Ledger) -> Result<Vec<(Vec<i64>, f64)>, TooBig> {
    let mut out = Vec::new();
    multisets(spec, ledger, &mut |dice, p| {
        out.push((spec.keep_of(dice).to_vec(), p))
    })?;
    Ok(out)
}

/// Each outcome of one side against each of the other, read by `value`: at most
/// [`MAX_OUTCOMES`] pairs, charged to `budget` when one is given.
fn every_pair(
    xs: &[(Vec<i64>, f64)],
    ys: &[(Vec<i64>, f64)],
    budget: Option<&mut Ledger>,
    value: impl Fn(&[i64], &[i64]) -> i64,
) -> Result<Dist, TooBig> {
    if (xs.len() as u64) * (ys.len() as u64) > MAX_OUTCOMES {
        return Err(TooBig(format!(
            "{} x {} pairs of outcomes of two sides set against each other (`cancel`, `beats`, `pairs`), gone through one by one",
            xs.len(),
            ys.len()
        )));
    }
    if let Some(ledger) = budget {
        ledger.spend(
            (xs.len() as u64 * ys.len() as u64).saturating_mul(NODE_COST),
            "sides set against each other (`cancel`, `beats`, `pairs`) with too many pairs of outcomes, for every outcome of the pools around them",
        )?;
    }
    let mut out: Map<i64, f64> = Map::default();
    for (x, p) in xs {
        for (y, q) in ys {
            *out.entry(value(x, y)).or_default() += p * q;
        }
    }
    Ok(Dist::from_map(&out))
}

/// Add `d` with weight `p` into the mixture `out`.
fn mix(out: &mut Option<Dist>, d: &Dist, p: f64, ledger: &mut Ledger) -> Result<(), TooBig> {
    // A part within the mixture's range touches its own values; one past it makes the
    // mixture anew, touching every value of both: many wide parts are work too. The
    // mixture grows by its own width past the part (zeros, trimmed by the callers), so
    // parts arriving in order of value remake it a few times, not once each.
    let touched = match out {
        Some(o) if d.lo >= o.lo && d.hi() <= o.hi() => d.p.len(),
        Some(o) => {
            let slack = o.p.len() as i64;
            let lo = if d.lo < o.lo { d.lo - slack } else { o.lo };
            let hi = if d.hi() > o.hi() {
                d.hi() + slack
            } else {
                o.hi()
            };
            let width = (hi - lo + 1) as usize;
            if width > MAX_SPAN {
                return Err(TooBig(format!("a value spans {width} values")));
            }
            let mut p = vec![0.0; width];
            p[(o.lo - lo) as usize..][..o.p.len()].copy_from_slice(&o.p);
            *o = Dist { lo, p };
            d.p.len() + width
        }
        None => d.p.len(),
    };
    ledger.spend(touched as u64, "nested `let`s with too many combinations")?;
    match out {
        None => {
            let mut z = d.clone();
            z.p.iter_mut().for_each(|q| *q *= p);
            *out = Some(z);
        }
        Some(o) => o.add_scaled(d, p),
    }
    Ok(())
}

/// Every multiset of a pool's dice (sorted values) with its probability.
fn multisets(
    spec: &PoolSpec,
    ledger: &mut Ledger,
    visit: &mut dyn FnMut(&[i64], f64),
) -> Result<(), TooBig> {
    if let Some((deck, k)) = spec.deck() {
        return hands(deck, k, ledger, visit);
    }
    // Per group: its values and their probabilities.
    let groups: Vec<(u32, Vec<(i64, f64)>)> = dice_of(spec, ledger)?
        .into_iter()
        .map(|(n, dist)| (n, dist.iter().collect()))
        .collect();
    // The number of outcomes: product of C(n + s - 1, s - 1).
    let mut count: f64 = 1.0;
    for (n, vals) in &groups {
        let s = vals.len() as f64;
        let mut c = 1.0;
        for j in 0..(s as u64).saturating_sub(1) {
            c = c * (*n as f64 + 1.0 + j as f64) / (j as f64 + 1.0);
        }
        count *= c;
    }
    if count > MAX_OUTCOMES as f64 {
        return Err(TooBig(format!(
            "a pool variable with {count:.2e} outcomes (at most {MAX_OUTCOMES} are gone through)"
        )));
    }
    let mut dice: Vec<i64> = Vec::new();
    // The recursion goes one level per value that some dice show (never one per value
    // of the die: an exploding d1000 has twenty thousand), so it is as deep as the
    // pool has dice.
    fn walk(
        groups: &[(u32, Vec<(i64, f64)>)],
        g: usize,
        from: usize,
        left: u32,
        p: f64,
        dice: &mut Vec<i64>,
        visit: &mut dyn FnMut(&[i64], f64),
    ) {
        if left == 0 {
            if g + 1 >= groups.len() {
                let mut sorted = dice.clone();
                sorted.sort_unstable();
                visit(&sorted, p);
            } else {
                walk(groups, g + 1, 0, groups[g + 1].0, p, dice, visit);
            }
            return;
        }
        let vals = &groups[g].1;
        for (v, &(x, q)) in vals.iter().enumerate().skip(from) {
            // `c` of the `left` dice show x: C(left, c) q^c, the rest a later value; the
            // last value takes every die left.
            let least = if v + 1 == vals.len() { left } else { 1 };
            let mut binom = 1.0;
            for c in 1..=left {
                binom = binom * (left - c + 1) as f64 / c as f64;
                if c < least {
                    continue;
                }
                let start = dice.len();
                dice.extend(std::iter::repeat_n(x, c as usize));
                walk(
                    groups,
                    g,
                    v + 1,
                    left - c,
                    p * binom * q.powi(c as i32),
                    dice,
                    visit,
                );
                dice.truncate(start);
            }
        }
    }
    if groups.is_empty() {
        visit(&[], 1.0);
        return Ok(());
    }
    walk(&groups, 0, 0, groups[0].0, 1.0, &mut dice, visit);
    Ok(())
}

/// Every hand a deck deals (sorted card values) with its probability: how many cards of
/// each value are dealt, by the multivariate hypergeometric law (the product of
/// C(copies, dealt) over C(cards, hand)), never by going through orders.
fn hands(
    deck: &DieSpec,
    k: u32,
    ledger: &mut Ledger,
    visit: &mut dyn FnMut(&[i64], f64),
) -> Result<(), TooBig> {
    let mut kinds: Vec<(i64, u32)> = Vec::new();
    let mut cards = deck.faces.clone();
    cards.sort_unstable();
    for c in cards {
        match kinds.last_mut() {
            Some((v, n)) if *v == c => *n += 1,
            _ => kinds.push((c, 1)),
        }
    }
    // C(n, r) as a float: an exact integer below 2^53 (every deck of a game), and at
    // most C(1000, 100) ~ 10^140 otherwise; a hand's weight is one product of them over
    // C(cards, hand), divided once.
    let choose = |n: u32, r: u32| -> f64 {
        let r = r.min(n - r);
        (0..r).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    };
    let total: u32 = kinds.iter().map(|(_, n)| n).sum();
    let all = choose(total, k);
    // Hands still possible from kind `i` on: the cards left must cover what is left.
    let mut left = vec![0u32; kinds.len() + 1];
    for i in (0..kinds.len()).rev() {
        left[i] = left[i + 1] + kinds[i].1;
    }
    let mut count = 0u64;
    #[allow(clippy::too_many_arguments)]
    fn walk(
        kinds: &[(i64, u32)],
        left: &[u32],
        i: usize,
        need: u32,
        weight: f64,
        hand: &mut Vec<i64>,
        count: &mut u64,
        visit: &mut dyn FnMut(&[i64], f64),
        choose: &dyn Fn(u32, u32) -> f64,
        all: f64,
    ) -> bool {
        if need == 0 {
            *count += 1;
            if *count > MAX_OUTCOMES {
                return false;
            }
            visit(hand, weight / all);
            return true;
        }
        if i == kinds.len() || left[i] < need {
            return true;
        }
        let (v, n) = kinds[i];
        for take in (0..=n.min(need)).rev() {
            if left[i + 1] < need - take {
                break;
            }
            let start = hand.len();
            hand.extend(std::iter::repeat_n(v, take as usize));
            let ok = walk(
                kinds,
                left,
                i + 1,
                need - take,
                weight * choose(n, take),
                hand,
                count,
                visit,
                choose,
                all,
            );
            hand.truncate(start);
            if !ok {
                return false;
            }
        }
        true
    }
    let mut hand = Vec::with_capacity(k as usize);
    let done = walk(
        &kinds, &left, 0, k, 1.0, &mut hand, &mut count, visit, &choose, all,
    );
    ledger.spend(
        count.saturating_mul(NODE_COST),
        "a deck dealing too many hands",
    )?;
    if !done {
        return Err(TooBig(format!(
            "a deck dealing more than {MAX_OUTCOMES} different hands"
        )));
    }
    Ok(())
}

/// A pool read by its aggregate.
fn pool(p: &PoolSpec, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    if let Some((deck, k)) = p.deck() {
        let mut m: Map<i64, f64> = Map::default();
        hands(deck, k, ledger, &mut |hand, q| {
            let v = super::program::read_sorted(hand, p.keep, p.agg, deck.lo(), deck.hi());
            *m.entry(v).or_default() += q;
        })?;
        return Ok(Dist::from_map(&m));
    }
    let dies = dice_of(p, ledger)?;
    let total: u32 = dies.iter().map(|(n, _)| n).sum();
    if total == 0 {
        // No dice: every reading of an empty pool is 0, as the sampler reads it.
        return Ok(Dist::point(0));
    }
    // A pool costs about its dice times its faces (more for keeps and chains, which
    // bound themselves as well).
    let faces: u64 = dies.iter().map(|(_, d)| d.p.len() as u64).sum();
    ledger.spend(
        (total as u64).max(1).saturating_mul(faces.max(1)),
        "a pool with too many dice and faces",
    )?;
    if let Some(c) = p.again {
        return again(p, c, ledger);
    }
    match (p.keep, p.agg) {
        (None, Agg::Sum) => {
            let mut out = Dist::point(0);
            for (n, d) in &dies {
                let sum = power_sum(d, *n, ledger)?;
                ledger.pairs(&out, &sum)?;
                out = out.add(&sum)?;
            }
            Ok(out)
        }
        (None, Agg::Tally(t)) => {
            // Each die's count of the symbol, summed over the dice.
            let mut out = Dist::point(0);
            for (n, d) in &dies {
                let mut m: Map<i64, f64> = Map::default();
                for (v, q) in d.iter() {
                    *m.entry(super::lang::tally(v, t)).or_default() += q;
                }
                let sum = power_sum(&Dist::from_map(&m), *n, ledger)?;
                ledger.pairs(&out, &sum)?;
                out = out.add(&sum)?;
            }
            Ok(out)
        }
        (None, Agg::Count(c)) => {
            let mut out = Dist::point(0);
            for ((n, d), (_, spec)) in dies.iter().zip(&p.groups) {
                let q: f64 = d
                    .iter()
                    .filter(|(v, _)| c.holds(*v, spec.lo(), spec.hi()))
                    .map(|(_, q)| q)
                    .sum();
                out = out.add(&Dist {
                    lo: 0,
                    p: binomial(*n, q, ledger)?,
                })?;
            }
            Ok(out)
        }
        (None, Agg::Highest) | (None, Agg::Lowest) => {
            let high = p.agg == Agg::Highest;
            let lo = dies.iter().map(|(_, d)| d.lo).min().unwrap_or(0);
            let hi = dies.iter().map(|(_, d)| d.hi()).max().unwrap_or(0);
            // P(max <= v) = product of each die's CDF; min by the survival function.
            // Each die's CDF is one running sum over the range, so the cost is the
            // range times the dice groups, however sparse the faces are.
            ledger.spend(
                ((hi - lo + 1) as u64).saturating_mul(dies.len() as u64),
                "a highest or lowest over too wide a range",
            )?;
            let cdfs: Vec<Vec<f64>> = dies
                .iter()
                .map(|(_, d)| {
                    let mut acc = 0.0;
                    (lo..=hi)
                        .map(|v| {
                            acc += d.at(v);
                            acc
                        })
                        .collect()
                })
                .collect();
            let mut out = vec![0.0; (hi - lo + 1) as usize];
            let mut prev = 0.0;
            for (i, slot) in out.iter_mut().enumerate() {
                let f: f64 = if high {
                    dies.iter()
                        .zip(&cdfs)
                        .map(|((n, _), c)| c[i].powi(*n as i32))
                        .product()
                } else {
                    1.0 - dies
                        .iter()
                        .zip(&cdfs)
                        .map(|((n, _), c)| (1.0 - c[i]).powi(*n as i32))
                        .product::<f64>()
                };
                *slot = (f - prev).max(0.0);
                prev = f;
            }
            Ok(Dist { lo, p: out }.trim())
        }
        // A read no special pass serves (a straight), or of groups too large for the
        // keep pass's packed state: the general multiset pass.
        (_, agg)
            if matches!(agg, Agg::Straight | Agg::Shape(_))
                || (dies.iter().any(|(n, _)| *n > 255)
                    && !(dies.len() == 1 && agg == Agg::Sum)) =>
        {
            super::lower::read(p, dies, agg).dist(ledger)
        }
        (keep, agg) => {
            // Keep `k` from one end (drop turned into keep); MaxSet keeps all.
            let (end, k) = keep.unwrap_or((End::Highest, total));
            multiset(&dies, &p.groups, end, k.min(total), agg, ledger)
        }
    }
}

/// The sum of `n` independent copies of `d`, by repeated squaring.
fn power_sum(d: &Dist, n: u32, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let mut out = Dist::point(0);
    let mut base = d.clone();
    let mut k = n;
    while k > 0 {
        if k & 1 == 1 {
            ledger.pairs(&out, &base)?;
            out = out.add(&base)?;
        }
        k >>= 1;
        if k > 0 {
            ledger.pairs(&base, &base)?;
            base = base.add(&base)?;
        }
    }
    Ok(out)
}

/// Keep `k` dice from the `end` of the pool and read them by `agg`, in one pass over the
/// faces from that end: at each value, how many of the dice left in each group show it
/// (a binomial, given they show no value already passed).
fn multiset(
    dies: &[(u32, Dist)],
    specs: &[(u32, DieSpec)],
    end: End,
    k: u32,
    agg: Agg,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    if dies.len() == 1 && agg == Agg::Sum {
        let (n, d) = (dies[0].0, &dies[0].1);
        return if n > BY_STATES {
            keep_sum_by_threshold(n, d, end, k, ledger)
        } else {
            keep_sum_one_kind(n, d, end, k, ledger)
        };
    }
    let mut values = faces_of(dies);
    if end == End::Highest {
        values.reverse();
    }
    // `count max` / `count min` read one kind of die (compile refuses them for mixed
    // pools): its faces' span, found once.
    let spec_lohi = specs
        .first()
        .map(|(_, d)| (d.lo(), d.hi()))
        .unwrap_or((0, 0));
    // The dice left per group, a byte each, packed in one word: a state is hashed,
    // never allocated.
    if dies.len() > MAX_KINDS || dies.iter().any(|(n, _)| *n > 255) {
        return Err(TooBig(format!(
            "a keep or drop over more than {MAX_KINDS} kinds of dice"
        )));
    }
    let count_of = |rest: u128, g: usize| ((rest >> (8 * g)) & 0xff) as u32;
    // Mass of each group's die still to place: what has not been passed yet.
    let mut left: Vec<f64> = vec![1.0; dies.len()];
    // State: (dice left per group, kept so far, accumulator) -> probability; the states
    // with every die kept are set aside in `done`: nothing later changes them.
    let start = dies
        .iter()
        .enumerate()
        .fold(0u128, |acc, (g, (n, _))| acc | (*n as u128) << (8 * g));
    let mut cur: Map<(u128, u32, i64), f64> = Map::default();
    let mut next: Map<(u128, u32, i64), f64> = Map::default();
    let mut done: Map<i64, f64> = Map::default();
    if k == 0 {
        done.insert(0, 1.0);
    } else {
        cur.insert((start, 0, 0), 1.0);
    }
    // Every way the groups' remaining dice split into "show v" and "later": (dice
    // left, dice showing v, probability), grown group by group in reused buffers.
    type Way = (u128, u32, f64);
    let (mut ways, mut grown): (Vec<Way>, Vec<Way>) = (vec![], vec![]);
    let mut binoms: Vec<Vec<Vec<f64>>> = Vec::new();
    for &v in &values {
        if cur.is_empty() {
            break;
        }
        ledger.spend(NODE_COST, "a keep or drop over so many dice and faces")?;
        next.clear();
        // Per group: P(a die shows v | it shows none of the values passed), and the
        // binomials of every count of dice left, once per value.
        binoms.clear();
        for ((n, d), &l) in dies.iter().zip(&left) {
            let pv = if v < d.lo || v > d.hi() {
                0.0
            } else {
                d.p[(v - d.lo) as usize]
            };
            let q = if l <= 0.0 { 0.0 } else { (pv / l).min(1.0) };
            binoms.push(
                (0..=*n)
                    .map(|r| binomial(r, q, ledger))
                    .collect::<Result<_, _>>()?,
            );
        }
        for (&(rest, kept, acc), &w) in &cur {
            ways.clear();
            ways.push((0, 0, w));
            for (g, b) in binoms.iter().enumerate() {
                let r = count_of(rest, g);
                grown.clear();
                for &(r_left, c, p) in &ways {
                    for (cg, &pb) in b[r as usize].iter().enumerate() {
                        if pb != 0.0 {
                            let rl = r_left | ((r - cg as u32) as u128) << (8 * g);
                            grown.push((rl, c + cg as u32, p * pb));
                        }
                    }
                }
                std::mem::swap(&mut ways, &mut grown);
            }
            for &(rl, c, p) in &ways {
                ledger.work += state_cost(cur.len().max(next.len()));
                if ledger.work > MAX_WORK {
                    return Err(TooBig("a keep or drop over so many dice and faces".into()));
                }
                let take = c.min(k - kept);
                let acc2 = kept_read(agg, end, acc, kept, take, v, spec_lohi);
                // Once `k` are kept the rest cannot matter: the reading is final.
                if kept + take == k {
                    *done.entry(acc2).or_default() += p;
                } else {
                    *next.entry((rl, kept + take, acc2)).or_default() += p;
                }
            }
        }
        for (g, (_, d)) in dies.iter().enumerate() {
            if v >= d.lo && v <= d.hi() {
                left[g] -= d.p[(v - d.lo) as usize];
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    // States that kept fewer than `k` (a pool of fewer dice) read as they stand.
    for (&(_, _, acc), &p) in &cur {
        *done.entry(acc).or_default() += p;
    }
    let m = done;
    Ok(Dist::from_map(&m))
}

/// A keep pass's reading after `take` more dice kept at face `v` (`kept` before them),
/// from the accumulator `acc`: the one step both passes (floats here, integer weights
/// in [`law`]) take. `count max` / `count min` read the faces' span `lohi`. A read the
/// general pass serves (`straight`, a shape) leaves `acc` as it is: `pool` never sends
/// it here.
pub(super) fn kept_read(
    agg: Agg,
    end: End,
    acc: i64,
    kept: u32,
    take: u32,
    v: i64,
    lohi: (i64, i64),
) -> i64 {
    match agg {
        Agg::Sum => acc + take as i64 * v,
        Agg::Tally(t) => acc + take as i64 * super::lang::tally(v, t),
        Agg::Count(cond) => {
            acc + if cond.holds(v, lohi.0, lohi.1) {
                take as i64
            } else {
                0
            }
        }
        Agg::MaxSet => acc.max(take as i64),
        Agg::Straight | Agg::Shape(_) => acc,
        // The kept dice's extreme: the first value kept from this end is the highest
        // (or lowest); the last, the other.
        Agg::Highest | Agg::Lowest => {
            let wants_first = (agg == Agg::Highest) == (end == End::Highest);
            if take > 0 && (!wants_first || kept == 0) {
                v
            } else {
                acc
            }
        }
    }
}

/// The keep pass's packed states.
type FxMap = Map<u64, f64>;

/// The sum of the `k` dice kept from `end` of `n` dice of one kind: the keep pass with
/// each state (dice left, dice kept, their sum) packed in one word.
fn keep_sum_one_kind(
    n: u32,
    d: &Dist,
    end: End,
    k: u32,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    let mut values: Vec<(i64, f64)> = d.iter().collect();
    if end == End::Highest {
        values.reverse();
    }
    // The sum of kept dice is packed as an offset from its lowest possible value.
    let low = values.iter().map(|(v, _)| *v).min().unwrap_or(0).min(0) * k as i64;
    let pack = |r: u32, kept: u32, acc: i64| -> u64 {
        r as u64 | (kept as u64) << 8 | ((acc - low) as u64) << 16
    };
    let mut cur = FxMap::default();
    cur.insert(pack(n, 0, 0), 1.0);
    // Two maps reused face after face (a fresh one each face costs its allocation and
    // page faults, more than the pass itself), and the states with every die kept set
    // aside: nothing later changes them.
    let mut next = FxMap::default();
    let mut done = FxMap::default();
    let mut left = 1.0f64;
    let mut binoms: Vec<Vec<f64>> = Vec::new();
    for &(v, pv) in &values {
        ledger.spend(NODE_COST, "a keep or drop over so many dice and faces")?;
        let q = if left > 0.0 {
            (pv / left).min(1.0)
        } else {
            0.0
        };
        // Binomial(r, q) for every r once per face.
        binoms.clear();
        for r in 0..=n {
            binoms.push(binomial(r, q, ledger)?);
        }
        next.clear();
        for (&key, &w) in &cur {
            let r = (key & 0xff) as u32;
            let kept = ((key >> 8) & 0xff) as u32;
            let acc = (key >> 16) as i64 + low;
            for (c, &pb) in binoms[r as usize].iter().enumerate() {
                if pb == 0.0 {
                    continue;
                }
                ledger.work += state_cost(cur.len().max(next.len()));
                if ledger.work > MAX_WORK {
                    return Err(TooBig("a keep or drop over so many dice and faces".into()));
                }
                let take = (c as u32).min(k - kept);
                let acc = acc + take as i64 * v;
                // Once `k` are kept the rest cannot matter: the sum is final.
                if kept + take == k {
                    *done.entry((acc - low) as u64).or_default() += w * pb;
                } else {
                    *next
                        .entry(pack(r - c as u32, kept + take, acc))
                        .or_default() += w * pb;
                }
            }
        }
        left -= pv;
        std::mem::swap(&mut cur, &mut next);
    }
    // States left with fewer than `k` kept had fewer dice than `k` (k = 0 included).
    for (&key, &p) in &cur {
        *done.entry(key >> 16).or_default() += p;
    }
    let m: Map<i64, f64> = done.iter().map(|(&a, &p)| (a as i64 + low, p)).collect();
    Ok(Dist::from_map(&m))
}

/// Dice of one kind past which a kept sum is found by [`keep_sum_by_threshold`]: its
/// cost grows as faces x k x the sum's span, the state pass's as faces x dice x its
/// states (kept count x sum), which packs the dice left in a byte.
const BY_STATES: u32 = 64;

/// Keep `k` of `n` dice of one kind from `end`, summed, by the face `t` that the k-th
/// kept die shows: `a` dice lie beyond `t` (fewer than `k`), each a die conditioned to lie
/// beyond it, so their sum is a power of that die; `k - a` more show `t`. P(a beyond, and
/// at least `k - a` of the rest at `t`) is a binomial times a binomial tail.
fn keep_sum_by_threshold(
    n: u32,
    d: &Dist,
    end: End,
    k: u32,
    ledger: &mut Ledger,
) -> Result<Dist, TooBig> {
    // Keeping the lowest of `d` is keeping the highest of its negation.
    let d = if end == End::Lowest {
        d.neg()
    } else {
        d.clone()
    };
    let k = k.min(n);
    if k == 0 {
        return Ok(Dist::point(0));
    }
    let lo = d.lo * k as i64;
    let width = (d.p.len() - 1) * k as usize + 1;
    if width > MAX_SPAN {
        return Err(TooBig(format!("a kept sum spans {width} values")));
    }
    let mut out = vec![0.0; width];
    let faces: Vec<(i64, f64)> = d.iter().collect();
    for (j, &(t, eq)) in faces.iter().enumerate() {
        // P(a die lies beyond t), summed from the top so no rounding builds up.
        let gt: f64 = faces[j + 1..].iter().map(|(_, q)| q).sum();
        let beyond = Dist {
            lo: t + 1,
            p: (t + 1..=d.hi())
                .map(|v| if gt > 0.0 { d.at(v) / gt } else { 0.0 })
                .collect(),
        };
        let count = binomial(n, gt, ledger)?;
        let at_t = if gt < 1.0 { eq / (1.0 - gt) } else { 0.0 };
        let mut power = Dist::point(0);
        for a in 0..k {
            let pa = count[a as usize];
            if pa > 0.0 {
                // At least k - a of the n - a dice at or below t show t.
                let tail: f64 = binomial(n - a, at_t, ledger)?[(k - a) as usize..]
                    .iter()
                    .sum();
                let w = pa * tail;
                if w > 0.0 {
                    let shift = (k - a) as i64 * t;
                    for (i, &q) in power.p.iter().enumerate() {
                        out[(power.lo + i as i64 + shift - lo) as usize] += w * q;
                    }
                }
            }
            if gt == 0.0 {
                break;
            }
            ledger.pairs(&power, &beyond)?;
            power = power.add(&beyond)?;
        }
    }
    let out = Dist { lo, p: out }.trim();
    Ok(if end == End::Lowest { out.neg() } else { out })
}
