//! An `again` pool variable read several ways (`let p = 5d10 again 10 in p count >= 7 -
//! p count 1`): the joint distribution of its tallies, one per way the body reads it,
//! each a sum over every die rolled, the dice `again` adds included. Every die of the
//! pool starts a chain of its own, so the pool's tallies are the sum of independent
//! chains' tallies: one chain worked out to its depth, then added to itself by
//! repeated squaring, as a single read of an `again` pool is.

use super::super::dist::{Dist, Ledger, TooBig, NODE_COST};
use super::super::lang::{Agg, Cond};
use super::super::program::{each_child_mut, tally_step, DieSpec, Node, PoolSpec};
use super::{eval, mix, Env};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A pool variable's body with every read of it a tally ([`mark`]), and the body as
/// `c + k_1 read_1 + k_2 read_2 + ...` when it is that ([`linear`]).
pub(super) struct Tallied {
    body: Node,
    linear: Option<(Vec<i64>, i64)>,
}

/// A pool variable of plain dice (no keep, deck or explosion, an `again` allowed) whose
/// body reads it only by sums, counts of fixed faces and counts of named symbols (a
/// face's code holds how many of each it shows: [`tally_step`]): each die
/// adds to every read on its own (its whole chain, with `again`), so the reads' joint
/// distribution is one die's raised to the pool's power, and the body is evaluated once
/// per list of values they take together. The multiset pass would hold a state per
/// number of dice placed at every face (`let p = 50d10 in p count >= 7 + p count 10`
/// took 0.11 s); here it is a grid of 51 x 51. A body that is a sum of the reads times
/// numbers (successes less 1s, 10s counted twice) is one number per die: its values
/// are one die's weighted by those numbers, raised to the power as a sum is (a
/// convolution, not a grid). None: the variable is read some other way (the pass or its
/// rolls then go through it).
pub(super) fn plain(
    at: &Node,
    spec: &PoolSpec,
    body: &Node,
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Option<Dist>, TooBig> {
    let key = at as *const Node as usize;
    let i = env.dice.len();
    if let std::collections::hash_map::Entry::Vacant(slot) = env.tallied.entry(key) {
        let summed = |w: &(Option<_>, Agg)| {
            w.0.is_none() && matches!(w.1, Agg::Sum | Agg::Count(_) | Agg::Tally(_))
        };
        // Symbols counted by name are tallies too: each face's code holds how many of
        // each it shows.
        let fits = spec.keep.is_none()
            && !spec.ways.is_empty()
            && spec.ways.iter().all(summed)
            && spec
                .groups
                .iter()
                .all(|(_, d)| !d.deck && d.explode.is_none());
        let marked = fits.then(|| {
            let mut b = body.clone();
            mark(&mut b, i, &spec.ways);
            let linear = linear(&b, i, spec.ways.len());
            Rc::new(Tallied { body: b, linear })
        });
        slot.insert(marked);
    }
    let Some(t) = env.tallied.get(&key).cloned().flatten() else {
        return Ok(None);
    };
    if let Some((k, c)) = &t.linear {
        let (flo, fhi) = super::super::program::face_span(spec);
        let mut out = Dist::point(*c);
        for (n, d) in &spec.groups {
            let one = chain(spec, d, *n, spec.again, (flo, fhi), ledger)?;
            // Tallies of one weight summed (a success and a 1 weigh as nothing).
            let mut by_weight: BTreeMap<i64, f64> = BTreeMap::new();
            for (t, p) in &one {
                let w = t
                    .iter()
                    .zip(k)
                    .fold(0i64, |w, (t, k)| w.saturating_add(t.saturating_mul(*k)));
                *by_weight.entry(w).or_default() += p;
            }
            let weighted = Dist::from_pairs(by_weight.into_iter());
            let all = super::power_sum(&weighted, *n, ledger)?;
            ledger.pairs(&out, &all)?;
            out = out.add(&all)?;
        }
        return Ok(Some(out.trim()));
    }
    let joint = joint(spec, spec.again, ledger)?;
    let mut out: Option<Dist> = None;
    for (v, p) in joint {
        env.push(0, v);
        let r = ledger.within(p, |ledger| eval(&t.body, env, ledger));
        env.pop();
        mix(&mut out, &r?, p, ledger)?;
    }
    Ok(Some(out.unwrap_or_else(|| Dist::point(0)).trim()))
}

/// `n` as `c + k . reads`, the reads of the pool variable at depth `i` (marked with
/// their tallies, `ways` of them) times numbers, when it is that: sums, differences,
/// negations and products by a number of the reads and numbers, with no value past
/// `i64` on the way (the engine's arithmetic saturates there).
fn linear(n: &Node, i: usize, ways: usize) -> Option<(Vec<i64>, i64)> {
    let scale = |(k, c): (Vec<i64>, i64), m: i64| -> Option<(Vec<i64>, i64)> {
        let k = k.iter().map(|k| k.checked_mul(m)).collect::<Option<_>>()?;
        Some((k, c.checked_mul(m)?))
    };
    let add = |a: (Vec<i64>, i64), b: (Vec<i64>, i64)| -> Option<(Vec<i64>, i64)> {
        let k =
            a.0.iter()
                .zip(&b.0)
                .map(|(x, y)| x.checked_add(*y))
                .collect::<Option<_>>()?;
        Some((k, a.1.checked_add(b.1)?))
    };
    let constant = |f: &(Vec<i64>, i64)| f.0.iter().all(|&k| k == 0).then_some(f.1);
    match n {
        Node::Num(v) => Some((vec![0; ways], *v)),
        Node::PoolVar(r) if r.i == i => {
            let mut k = vec![0; ways];
            *k.get_mut(r.tally?)? = 1;
            Some((k, 0))
        }
        Node::Neg(a) => scale(linear(a, i, ways)?, -1),
        Node::Add(a, b) => add(linear(a, i, ways)?, linear(b, i, ways)?),
        Node::Sub(a, b) => add(linear(a, i, ways)?, scale(linear(b, i, ways)?, -1)?),
        Node::Mul(a, b) => {
            let (x, y) = (linear(a, i, ways)?, linear(b, i, ways)?);
            match (constant(&x), constant(&y)) {
                (_, Some(m)) => scale(x, m),
                (Some(m), _) => scale(y, m),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Each read of the pool variable at depth `i` marked with its place among `ways`.
fn mark(n: &mut Node, i: usize, ways: &[(Option<(super::super::lang::End, u32)>, Agg)]) {
    if let Node::PoolVar(r) = n {
        if r.i == i {
            r.tally = ways.iter().position(|w| *w == (r.keep, r.agg));
        }
    }
    each_child_mut(n, &mut |c| mark(c, i, ways));
}

/// Tallies (in the order of the pool's `ways`) with their probability.
type Joint = BTreeMap<Vec<i64>, f64>;

/// The joint distribution of the tallies of `spec` (its `ways`), whose dice add a die on
/// `again`; chains stopped at their depth are reported to the ledger.
pub(in super::super) fn tallies(
    spec: &PoolSpec,
    again: Cond,
    ledger: &mut Ledger,
) -> Result<Vec<(Vec<i64>, f64)>, TooBig> {
    joint(spec, Some(again), ledger)
}

/// [`tallies`], or with no `again` each die's own tallies.
fn joint(
    spec: &PoolSpec,
    again: Option<Cond>,
    ledger: &mut Ledger,
) -> Result<Vec<(Vec<i64>, f64)>, TooBig> {
    let k = spec.ways.len();
    let mut out: Joint = BTreeMap::from([(vec![0; k], 1.0)]);
    // A read's `max` and `min` are the pool's top and bottom faces, as the sampler and
    // the pass read them; `again`'s are the die's own.
    let faces = super::super::program::face_span(spec);
    for (n, d) in &spec.groups {
        let one = chain(spec, d, *n, again, faces, ledger)?;
        out = add(&out, &power(&one, *n, ledger)?, ledger)?;
    }
    Ok(out.into_iter().collect())
}

/// One die's tallies (its whole chain, with `again`), read every way of `spec`; the
/// chains of the pool's `n` such dice stopped at their depth are reported to the ledger.
fn chain(
    spec: &PoolSpec,
    d: &DieSpec,
    n: u32,
    again: Option<Cond>,
    (flo, fhi): (i64, i64),
    ledger: &mut Ledger,
) -> Result<Joint, TooBig> {
    let read = |acc: &Vec<i64>, v: i64| -> Vec<i64> {
        acc.iter()
            .zip(&spec.ways)
            .map(|(a, (_, agg))| a + tally_step(*agg, v, flo, fhi))
            .collect()
    };
    super::again::again_chain(
        d,
        n,
        again,
        vec![0; spec.ways.len()],
        read,
        "an `again` chain read several ways with too many values",
        ledger,
    )
}

/// Most cells of a dense grid of tallies: past it the tallies are kept sparse.
const GRID_CELLS: usize = 1 << 22;

/// Tallies as a dense grid: each way's lowest tally and number of values, the cells in
/// row-major order (the last way fastest), which is the ordered map's order too. Adding
/// two parts is a convolution by offsets, with no key built or looked up per pair.
struct Grid {
    lo: Vec<i64>,
    len: Vec<usize>,
    p: Vec<f64>,
}

impl Grid {
    /// `j` as a grid, when its cells fit.
    fn of(j: &Joint) -> Option<Grid> {
        let k = j.keys().next()?.len();
        let mut lo = vec![i64::MAX; k];
        let mut hi = vec![i64::MIN; k];
        for t in j.keys() {
            for i in 0..k {
                lo[i] = lo[i].min(t[i]);
                hi[i] = hi[i].max(t[i]);
            }
        }
        let len: Vec<usize> = (0..k)
            .map(|i| usize::try_from(hi[i] - lo[i] + 1).ok())
            .collect::<Option<_>>()?;
        let cells = len.iter().try_fold(1usize, |a, &l| a.checked_mul(l))?;
        if cells > GRID_CELLS {
            return None;
        }
        let mut g = Grid {
            lo,
            len,
            p: vec![0.0; cells],
        };
        for (t, &q) in j {
            let at = g.index(t);
            g.p[at] += q;
        }
        Some(g)
    }

    fn index(&self, t: &[i64]) -> usize {
        t.iter()
            .zip(&self.lo)
            .zip(&self.len)
            .fold(0, |at, ((v, lo), len)| at * len + (v - lo) as usize)
    }

    /// Each non-zero cell: its offset in a grid whose ways have `len` values, and its
    /// probability.
    fn offsets(&self, len: &[usize]) -> Vec<(usize, f64)> {
        let k = self.len.len();
        let mut out = Vec::new();
        let mut digits = vec![0usize; k];
        for &q in &self.p {
            if q != 0.0 {
                let at = digits.iter().zip(len).fold(0, |a, (d, l)| a * l + d);
                out.push((at, q));
            }
            // The next cell's digits.
            for i in (0..k).rev() {
                digits[i] += 1;
                if digits[i] < self.len[i] {
                    break;
                }
                digits[i] = 0;
            }
        }
        out
    }

    fn add(&self, o: &Grid) -> Option<Grid> {
        let len: Vec<usize> = self
            .len
            .iter()
            .zip(&o.len)
            .map(|(a, b)| a + b - 1)
            .collect();
        let cells = len.iter().try_fold(1usize, |a, &l| a.checked_mul(l))?;
        if cells > GRID_CELLS {
            return None;
        }
        let mut p = vec![0.0; cells];
        let b = o.offsets(&len);
        for (x, q) in self.offsets(&len) {
            for &(y, r) in &b {
                p[x + y] += q * r;
            }
        }
        Some(Grid {
            lo: self.lo.iter().zip(&o.lo).map(|(a, b)| a + b).collect(),
            len,
            p,
        })
    }

    fn joint(&self) -> Joint {
        let k = self.len.len();
        let mut out = Joint::new();
        let mut t = self.lo.clone();
        for &q in &self.p {
            if q != 0.0 {
                out.insert(t.clone(), q);
            }
            for i in (0..k).rev() {
                t[i] += 1;
                if t[i] < self.lo[i] + self.len[i] as i64 {
                    break;
                }
                t[i] = self.lo[i];
            }
        }
        out
    }

    fn nonzero(&self) -> u64 {
        self.p.iter().filter(|&&q| q != 0.0).count() as u64
    }
}

/// The tallies of two independent parts added.
fn add(a: &Joint, b: &Joint, ledger: &mut Ledger) -> Result<Joint, TooBig> {
    spend(a.len() as u64, b.len() as u64, 0, ledger)?;
    let mut out: Joint = BTreeMap::new();
    for (x, p) in a {
        for (y, q) in b {
            let t = x.iter().zip(y).map(|(x, y)| x + y).collect();
            *out.entry(t).or_default() += p * q;
        }
    }
    Ok(out)
}

/// The budget of adding parts of `a` and `b` non-zero tallies: `per` pairs a unit, or
/// with `per` 0, [`NODE_COST`] units a pair.
fn spend(a: u64, b: u64, per: u64, ledger: &mut Ledger) -> Result<(), TooBig> {
    let pairs = a.saturating_mul(b);
    ledger.spend(
        match per {
            0 => pairs.saturating_mul(NODE_COST),
            per => pairs / per + 1,
        },
        "a pool variable read several ways with too many values together",
    )
}

/// Pairs of a grid's cells a unit of work counts for: a multiply-add at an offset, the
/// inner loop along a row (a map's pair builds a key and looks it up: [`NODE_COST`]
/// units). Measured here: 200d20 read by two counts in 40 ms, 1000d20 in 0.1 s.
const GRID_PAIRS_PER_UNIT: u64 = 16;

/// `n` independent copies of `one` added, by repeated squaring: as dense grids where
/// they fit and the sum fills enough of its grid, else as maps. A die read by one count
/// per face (4d6: can two make 7) sums to at most the multisets of its values, 126
/// tallies in a grid of 15,625 cells: the grid's every cell was gone through for them.
fn power(one: &Joint, n: u32, ledger: &mut Ledger) -> Result<Joint, TooBig> {
    if let Some(g) = Grid::of(one).filter(|g| dense(g, one.len(), n)) {
        if let Some(sum) = grid_power(g, n, ledger)? {
            return Ok(sum.joint());
        }
    }
    let k = one.keys().next().map_or(0, Vec::len);
    let mut out: Joint = BTreeMap::from([(vec![0; k], 1.0)]);
    let mut base = one.clone();
    let mut m = n;
    while m > 0 {
        if m & 1 == 1 {
            out = add(&out, &base, ledger)?;
        }
        m >>= 1;
        if m > 0 {
            base = add(&base, &base, ledger)?;
        }
    }
    Ok(out)
}

/// Whether `n` copies of a part of `values` non-zero tallies in grid `g` fill enough of
/// their sum's grid for it to be worth going through: the sum holds at most the
/// multisets of those values, and the maps' pairs cost about their square.
fn dense(g: &Grid, values: usize, n: u32) -> bool {
    let cells: f64 = g
        .len
        .iter()
        .map(|&l| (l as f64 - 1.0) * f64::from(n) + 1.0)
        .product();
    // C(n + values - 1, values - 1), as a float (a bound, large or not).
    let multisets: f64 = (1..values)
        .map(|j| (f64::from(n) + j as f64) / j as f64)
        .product();
    multisets * multisets > 4.0 * cells
}

/// [`power`] on a grid; `None` when a sum's grid would not fit.
fn grid_power(one: Grid, n: u32, ledger: &mut Ledger) -> Result<Option<Grid>, TooBig> {
    let k = one.len.len();
    let mut out = Grid {
        lo: vec![0; k],
        len: vec![1; k],
        p: vec![1.0],
    };
    let mut base = one;
    let mut m = n;
    while m > 0 {
        if m & 1 == 1 {
            spend(out.nonzero(), base.nonzero(), GRID_PAIRS_PER_UNIT, ledger)?;
            let Some(sum) = out.add(&base) else {
                return Ok(None);
            };
            out = sum;
        }
        m >>= 1;
        if m > 0 {
            let nz = base.nonzero();
            spend(nz, nz, GRID_PAIRS_PER_UNIT, ledger)?;
            let Some(sq) = base.add(&base) else {
                return Ok(None);
            };
            base = sq;
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two ways of adding tallies agree: a chain's tallies over three ways (one of
    /// them negative) raised to powers 1 to 7, as grids and as maps.
    #[test]
    fn grids_add_as_maps_do() {
        let one: Joint = BTreeMap::from([
            (vec![0, 0, -1], 0.1),
            (vec![1, 0, 0], 0.25),
            (vec![1, 2, 0], 0.05),
            (vec![2, 1, -1], 0.3),
            (vec![4, 0, 0], 0.3),
        ]);
        for n in 1..=7 {
            let mut ledger = Ledger::default();
            let grid = grid_power(Grid::of(&one).unwrap(), n, &mut ledger)
                .unwrap()
                .unwrap()
                .joint();
            // The map path, as `power` takes it when no grid fits.
            let mut map: Joint = BTreeMap::from([(vec![0; 3], 1.0)]);
            for _ in 0..n {
                map = add(&map, &one, &mut ledger).unwrap();
            }
            assert_eq!(grid.len(), map.len(), "power {n}");
            for (t, p) in &map {
                assert!((grid[t] - p).abs() < 1e-15, "power {n} at {t:?}");
            }
            assert!((grid.values().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}
