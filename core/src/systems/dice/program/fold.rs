//! A program's arithmetic on rolled values worked out once, at compile: the rush Slam in
//! the language, `let a = 5d6 count >= 3 in let d = 4d6 count >= 4 in if a > d then ...`,
//! rolls its two pools as written every trial, then reads the `if`s from a table of every
//! `(a, d)` instead of walking them. Only what no die decides is precomputed: the dice
//! are still rolled, never an outcome drawn from the exact distribution.

use super::{bounds, rolls_dice, sample, Node, Scratch, Table};
use crate::kernels::Rng;
use rand::Rng as _;

/// Most entries of one table: past it the tree is walked as before.
pub const MAX_ENTRIES: usize = 1 << 14;

/// A chain of `let`s whose body no die decides: each bound rolled in turn, the body read
/// from `values` by the bounds' values.
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    /// Each `let`'s bound, at scope depth 0, 1, ... (a bound may read the ones before).
    pub bounds: Vec<Bound>,
    /// Each bound's lowest value.
    pub lo: Vec<i64>,
    /// Each bound's highest value (values past it are clamped to it).
    pub hi: Vec<i64>,
    /// Each bound's place value in `values`.
    pub stride: Vec<usize>,
    /// The body's value for every combination of the bounds' values.
    pub values: Vec<i64>,
    /// Every bound a single table (none reads a `let` before it): drawn in a loop
    /// that touches no scratch.
    pub tables: Option<Vec<Table>>,
    /// Two such tables: both drawn from one random word (see [`Pair`]).
    pub pair: Option<Pair>,
}

/// Two tables of `pa` and `pb` ways drawn from one word: one multiply-and-reject over
/// the `pa * pb` ways together, whose high digit in base `pa` picks the first table's
/// way and the next digit, from the word's remainder, the second's. The pair of ways is
/// exactly uniform (the rejection is over the product), and one generator call and one
/// rejection loop are saved per trial: the rush Slam written in the language doubled
/// its rate this way, as the native kernel reads several dice from one word.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    n: u64,
    reject: u64,
    pa: u64,
    pb: u64,
    /// Each way's value as its place in `values`: `(v - lo) * stride`.
    a: Vec<u32>,
    b: Vec<u32>,
}

/// Most ways two tables may have together to share a word (the rejection stays
/// under one word in 2^24).
const PAIR_WAYS: u64 = 1 << 40;

impl Pair {
    fn of(t: [&Table; 2], lo: [i64; 2], hi: [i64; 2], stride: [usize; 2]) -> Option<Pair> {
        let n = t[0].pow.checked_mul(t[1].pow)?;
        if n > PAIR_WAYS {
            return None;
        }
        let place = |t: &Table, i: usize| -> Vec<u32> {
            t.values
                .iter()
                .map(|&v| ((v as i64).clamp(lo[i], hi[i]) - lo[i]) as u32 * stride[i] as u32)
                .collect()
        };
        Some(Pair {
            n,
            reject: n.wrapping_neg() % n,
            pa: t[0].pow,
            pb: t[1].pow,
            a: place(t[0], 0),
            b: place(t[1], 1),
        })
    }

    /// The place in `values` of one draw of both tables.
    #[inline(always)]
    fn draw(&self, rng: &mut Rng) -> usize {
        let r = loop {
            let r = rng.next_u64();
            if r.wrapping_mul(self.n) >= self.reject {
                break r;
            }
        };
        let m = r as u128 * self.pa as u128;
        let y = (m as u64) as u128 * self.pb as u128;
        (self.a[(m >> 64) as usize] + self.b[(y >> 64) as usize]) as usize
    }
}

/// A `let`'s bound as a trial rolls it.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// A pool whose every die is one draw from one table (5d6 count >= 3: one draw over
    /// the 7,776 ways its dice land): drawn here, with no walk of the tree.
    Table(Table),
    /// Any other bound: the tree walked by the sampler.
    Node(Node),
}

impl Bound {
    fn of(n: &Node) -> Bound {
        match n {
            Node::Pool(p) => match p.table.as_deref().and_then(|t| t.single()) {
                Some(t) => Bound::Table(t.clone()),
                None => Bound::Node(n.clone()),
            },
            _ => Bound::Node(n.clone()),
        }
    }
}

/// The table for `n` when it is such a chain at the top of a program (scope depth 0).
pub fn fold(n: &Node) -> Option<Folded> {
    let mut bounds_of = Vec::new();
    let mut at = n;
    while let Node::Let(bound, body) = at {
        bounds_of.push((**bound).clone());
        at = body;
    }
    let body = at;
    if bounds_of.is_empty() || rolls_dice(body) {
        return None;
    }
    let mut vars = Vec::new();
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for b in &bounds_of {
        let (l, h) = bounds(b, &mut vars);
        vars.push((l, h));
        lo.push(l);
        hi.push(h);
    }
    let mut size = 1usize;
    let mut stride = vec![0; lo.len()];
    for i in (0..lo.len()).rev() {
        stride[i] = size;
        let width = usize::try_from(hi[i].checked_sub(lo[i])?.checked_add(1)?).ok()?;
        size = size.checked_mul(width)?;
        if size > MAX_ENTRIES {
            return None;
        }
    }
    // Every combination of the bounds' values, the body worked out by the sampler
    // itself (it rolls nothing, so the generator is never drawn from).
    let mut s = Scratch::new();
    let rng = &mut <Rng as rand::SeedableRng>::seed_from_u64(0);
    let mut values = vec![0i64; size];
    for (idx, slot) in values.iter_mut().enumerate() {
        for i in 0..lo.len() {
            s.vars[i] = lo[i] + ((idx / stride[i]) % ((hi[i] - lo[i] + 1) as usize)) as i64;
        }
        *slot = sample(body, rng, &mut s, lo.len());
    }
    let bounds: Vec<Bound> = bounds_of.iter().map(Bound::of).collect();
    let tables: Option<Vec<Table>> = bounds
        .iter()
        .map(|b| match b {
            Bound::Table(t) => Some(t.clone()),
            Bound::Node(_) => None,
        })
        .collect();
    let pair = match &tables {
        Some(v) if v.len() == 2 && size <= u32::MAX as usize => Pair::of(
            [&v[0], &v[1]],
            [lo[0], lo[1]],
            [hi[0], hi[1]],
            [stride[0], stride[1]],
        ),
        _ => None,
    };
    Some(Folded {
        pair,
        tables,
        bounds,
        lo,
        hi,
        stride,
        values,
    })
}

impl Folded {
    /// One trial: the bounds rolled in order, the body read from the table.
    #[inline]
    pub fn sample(&self, rng: &mut Rng, s: &mut Scratch) -> i64 {
        if let Some(p) = &self.pair {
            return self.values[p.draw(rng)];
        }
        if let Some(tables) = &self.tables {
            // Two pools, the usual roll against roll: no loop.
            if let ([a, b], [la, lb], [ha, hb], [sa, _]) = (
                tables.as_slice(),
                self.lo.as_slice(),
                self.hi.as_slice(),
                self.stride.as_slice(),
            ) {
                let x = (a.draw(rng).clamp(*la, *ha) - la) as usize;
                let y = (b.draw(rng).clamp(*lb, *hb) - lb) as usize;
                return self.values[x * sa + y];
            }
            let mut idx = 0;
            for (i, t) in tables.iter().enumerate() {
                let v = t.draw(rng).clamp(self.lo[i], self.hi[i]);
                idx += (v - self.lo[i]) as usize * self.stride[i];
            }
            return self.values[idx];
        }
        let mut idx = 0;
        for (i, b) in self.bounds.iter().enumerate() {
            let v = match b {
                Bound::Table(t) => t.draw(rng),
                Bound::Node(n) => sample(n, rng, s, i),
            }
            .clamp(self.lo[i], self.hi[i]);
            s.vars[i] = v;
            idx += (v - self.lo[i]) as usize * self.stride[i];
        }
        self.values[idx]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::chunk_rng;

    /// Two pools drawn from one word land every pair of ways equally often: each of the
    /// 2 x 3 pairs of `d2` and `d3` within 4.5 standard errors of 1/6, and a table of
    /// 6^5 ways beside one of 6^4 (the Slam's) gives each side its own distribution.
    #[test]
    fn two_tables_from_one_word_are_uniform_over_their_pairs() {
        let n = super::super::parse_compiled("let a = 1d2 in let b = 1d3 in a * 10 + b", &[])
            .expect("compiles");
        let f = fold(&super::super::tabled(n)).expect("folds");
        assert!(f.pair.is_some(), "two single tables share a word");
        let mut rng = chunk_rng(5, 0);
        let mut s = Scratch::new();
        let trials = 600_000u32;
        let mut seen = std::collections::BTreeMap::new();
        for _ in 0..trials {
            *seen.entry(f.sample(&mut rng, &mut s)).or_insert(0u32) += 1;
        }
        let p = 1.0 / 6.0;
        let se = (p * (1.0 - p) / trials as f64).sqrt();
        let keys: Vec<i64> = seen.keys().copied().collect();
        assert_eq!(keys, [11, 12, 13, 21, 22, 23]);
        for (v, c) in seen {
            let z = (c as f64 / trials as f64 - p) / se;
            assert!(z.abs() < 4.5, "{v}: z = {z}");
        }

        // 5d6 count >= 3 (P(5) = (2/3)^5) against 4d6 count >= 4 (P(0) = 1/16).
        let n = super::super::parse_compiled(
            "let a = 5d6 count >= 3 in let d = 4d6 count >= 4 in a * 10 + d",
            &[],
        )
        .expect("compiles");
        let f = fold(&super::super::tabled(n)).expect("folds");
        assert!(f.pair.is_some());
        let (mut five, mut none) = (0u32, 0u32);
        for _ in 0..trials {
            let v = f.sample(&mut rng, &mut s);
            five += (v / 10 == 5) as u32;
            none += (v % 10 == 0) as u32;
        }
        for (c, p) in [(five, (2.0f64 / 3.0).powi(5)), (none, 1.0 / 16.0)] {
            let se = (p * (1.0 - p) / trials as f64).sqrt();
            let z = (c as f64 / trials as f64 - p) / se;
            assert!(z.abs() < 4.5, "z = {z}");
        }
    }
}
