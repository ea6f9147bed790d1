//! A program's arithmetic on rolled values worked out once, at compile: the rush Slam in
//! the language, `let a = 5d6 count >= 3 in let d = 4d6 count >= 4 in if a > d then ...`,
//! rolls its two pools as written every trial, then reads the `if`s from a table of every
//! `(a, d)` instead of walking them. Only what no die decides is precomputed: the dice
//! are still rolled, never an outcome drawn from the exact distribution.

use super::{bounds, rolls_dice, sample, Node, Scratch, Table};
use crate::dice::Rng;

/// Most entries of one table: past it the tree is walked as before.
pub const MAX_ENTRIES: usize = 1 << 14;

/// A chain of `let`s whose body no die decides: each bound rolled in turn, the body read
/// from `values` by the bounds' values.
#[derive(Clone, Debug, PartialEq)]
pub struct Folded {
    /// Each `let`'s bound, at scope depth 0, 1, ... (a bound may read the ones before).
    pub bounds: Vec<Bound>,
    /// Each bound's lowest value and its place value in `values`.
    pub lo: Vec<i64>,
    pub hi: Vec<i64>,
    pub stride: Vec<usize>,
    pub values: Vec<i64>,
    /// Every bound a single table (none reads a `let` before it): drawn in a loop
    /// that touches no scratch.
    pub tables: Option<Vec<Table>>,
}

/// A `let`'s bound as a trial rolls it.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// A pool whose every die is one draw from one table (5d6 count >= 3: one draw over
    /// the 7,776 ways its dice land): drawn here, with no walk of the tree.
    Table(Table),
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
    let tables = bounds
        .iter()
        .map(|b| match b {
            Bound::Table(t) => Some(t.clone()),
            Bound::Node(_) => None,
        })
        .collect();
    Some(Folded {
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
