//! A distribution over a range of integers, the dice that make one, and the budget every
//! exact evaluation spends ([`Ledger`]): what the exact engine ([`super::exact`]) and the
//! multiset pass ([`super::multiset`]) both stand on.

use super::program::{DieSpec, PoolSpec};
use crate::cancel::Cancel;
use std::collections::HashMap;

/// A hash map whose iteration order depends only on what went in (std's default
/// hasher is seeded per process): sums accumulated while iterating one come out
/// bit-identical run after run. foldhash's fixed-seed hasher: the keep passes hash a
/// state per multiply-add, and SipHash (or a multiply whose low bits ignore the high
/// bits of the key) cost them more than the arithmetic.
pub(super) type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A distribution over `lo..lo + p.len()`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dist {
    /// The lowest value.
    pub lo: i64,
    /// Each value's probability, from `lo` up.
    pub p: Vec<f64>,
}

/// Most values one distribution may span: past it the expression is refused (the
/// exact engine would otherwise grow without bound).
pub const MAX_SPAN: usize = 1 << 20;

/// Work past which exact evaluation gives up (state-steps of the keep/drop pass).
pub const MAX_WORK: u64 = 20_000_000;

/// An expression the exact engine will not evaluate (too wide, too much work, cancelled): why, in words; Monte Carlo answers it instead.
#[derive(Debug, Clone, PartialEq)]
pub struct TooBig(pub String);

impl Dist {
    /// Always `v`.
    pub fn point(v: i64) -> Self {
        Dist {
            lo: v,
            p: vec![1.0],
        }
    }

    /// The highest value.
    pub fn hi(&self) -> i64 {
        self.lo + self.p.len() as i64 - 1
    }

    pub(super) fn from_map(m: &Map<i64, f64>) -> Dist {
        let lo = *m.keys().min().unwrap_or(&0);
        let hi = *m.keys().max().unwrap_or(&0);
        let mut p = vec![0.0; (hi - lo + 1) as usize];
        for (&v, &q) in m {
            p[(v - lo) as usize] += q;
        }
        Dist { lo, p }.trim()
    }

    /// Drop zero mass at both ends.
    pub(super) fn trim(mut self) -> Dist {
        let first = self.p.iter().position(|&q| q > 0.0).unwrap_or(0);
        let last = self.p.iter().rposition(|&q| q > 0.0).unwrap_or(0);
        if first > last {
            return Dist::point(self.lo);
        }
        self.lo += first as i64;
        if first > 0 || last + 1 < self.p.len() {
            self.p = self.p[first..=last].to_vec();
        }
        self
    }

    /// A distribution from (value, probability) pairs in any order.
    pub(super) fn from_pairs(pairs: impl Iterator<Item = (i64, f64)>) -> Dist {
        let m: Map<i64, f64> = pairs.collect();
        Dist::from_map(&m)
    }

    /// The values of non-zero probability, lowest first.
    pub(super) fn iter_nonzero(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.iter()
    }

    /// P(v), zero outside the range.
    pub(super) fn at(&self, v: i64) -> f64 {
        usize::try_from(v - self.lo)
            .ok()
            .and_then(|i| self.p.get(i))
            .copied()
            .unwrap_or(0.0)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.p
            .iter()
            .enumerate()
            .filter(|(_, &q)| q > 0.0)
            .map(move |(i, &q)| (self.lo + i as i64, q))
    }

    /// The distribution of the sum of one draw of each.
    pub fn add(&self, o: &Dist) -> Result<Dist, TooBig> {
        let n = self.p.len() + o.p.len() - 1;
        if n > MAX_SPAN {
            return Err(TooBig(format!("a sum spans {n} values")));
        }
        let mut p = vec![0.0; n];
        for (i, &a) in self.p.iter().enumerate() {
            if a == 0.0 {
                continue;
            }
            // Slices zipped, so the loop has no bounds checks and vectorises.
            for (dst, &b) in p[i..i + o.p.len()].iter_mut().zip(&o.p) {
                *dst += a * b;
            }
        }
        Ok(Dist {
            lo: self.lo + o.lo,
            p,
        })
    }

    /// The distribution of `-x`.
    pub fn neg(&self) -> Dist {
        let mut p = self.p.clone();
        p.reverse();
        Dist { lo: -self.hi(), p }
    }

    /// Any operator on independent values, pair by pair.
    pub fn combine(&self, o: &Dist, f: impl Fn(i64, i64) -> i64) -> Result<Dist, TooBig> {
        if self.p.len() == 1 && o.p.len() == 1 {
            // Two known values (a `let` value, a state): no map needed.
            return Ok(Dist::point(f(self.lo, o.lo)));
        }
        if (self.p.len() as u64) * (o.p.len() as u64) > MAX_WORK {
            return Err(TooBig("an operation on two wide values".into()));
        }
        let mut m: Map<i64, f64> = Map::default();
        for (a, p) in self.iter() {
            for (b, q) in o.iter() {
                *m.entry(f(a, b)).or_default() += p * q;
            }
        }
        let d = Dist::from_map(&m);
        if d.p.len() > MAX_SPAN {
            return Err(TooBig(format!("a value spans {} values", d.p.len())));
        }
        Ok(d)
    }

    /// Mixture: `self` with weight `w` plus `o` with `1 - w`... generalised: add `o`
    /// scaled by `w` into `self`.
    pub(super) fn add_scaled(&mut self, o: &Dist, w: f64) {
        if o.lo >= self.lo && o.hi() <= self.hi() {
            let at = (o.lo - self.lo) as usize;
            for (slot, &q) in self.p[at..].iter_mut().zip(&o.p) {
                *slot += w * q;
            }
            return;
        }
        let lo = self.lo.min(o.lo);
        let hi = self.hi().max(o.hi());
        let mut p = vec![0.0; (hi - lo + 1) as usize];
        for (i, &q) in self.p.iter().enumerate() {
            p[(self.lo - lo) as usize + i] += q;
        }
        for (i, &q) in o.p.iter().enumerate() {
            p[(o.lo - lo) as usize + i] += w * q;
        }
        self.lo = lo;
        self.p = p;
    }
}

/// One die after its own modifiers: the distribution of its value, and the mass of
/// explosion chains stopped at the depth limit.
pub fn die_dist(d: &DieSpec, ledger: &mut Ledger) -> Result<(Dist, f64), TooBig> {
    let n = d.faces.len() as f64;
    // Over the faces' span as it is (every die's distribution is held that wide), the
    // same sums a map of faces made, without the map: a die is made for every dice
    // count a rolled count can take.
    let lo = d.faces.iter().copied().min().unwrap_or(0);
    let hi = d.faces.iter().copied().max().unwrap_or(0);
    let width = (hi as i128 - lo as i128 + 1) as u128;
    if width > MAX_SPAN as u128 {
        return Err(TooBig(format!("a die whose faces span {width} values")));
    }
    let mut p = vec![0.0; width as usize];
    for &f in &d.faces {
        p[(f - lo) as usize] += 1.0 / n;
    }
    let mut base = Dist { lo, p }.trim();
    if let Some((c, always)) = d.reroll {
        let (lo, hi) = (d.lo(), d.hi());
        let hit: f64 = base
            .iter()
            .filter(|(v, _)| c.holds(*v, lo, hi))
            .map(|(_, p)| p)
            .sum();
        let first = base.lo;
        let stands: Vec<f64> = base
            .p
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                if c.holds(first + i as i64, lo, hi) {
                    0.0
                } else {
                    p
                }
            })
            .collect();
        base.p = if always {
            // Rerolled until it stands: the faces that stand, renormalised.
            stands.iter().map(|p| p / (1.0 - hit)).collect()
        } else {
            // Rerolled once: a face that stands, or (with the mass `hit`) a second roll.
            stands
                .iter()
                .zip(&base.p)
                .map(|(s, p)| s + hit * p)
                .collect()
        };
        base = base.trim();
    }
    let Some(c) = d.explode else {
        return Ok((base, 0.0));
    };
    // Value of a chain: each exploding face adds another roll of the (rerolled) die.
    // The faces split into those that roll on (`boom`) and those that end the chain
    // (`stop`); chains still rolling after `k` explosions are one distribution, so a
    // step is two convolutions, each counted as pairs of values.
    let (lo, hi) = (d.lo(), d.hi());
    let part = |rolls_on: bool| Dist {
        lo: base.lo,
        p: base
            .p
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                let v = base.lo + i as i64;
                if c.holds(v, lo, hi) == rolls_on {
                    q
                } else {
                    0.0
                }
            })
            .collect(),
    };
    let (boom, stop) = (part(true), part(false));
    let mut out: Option<Dist> = None;
    let mut carry = Dist::point(0);
    let mut capped = 0.0;
    for depth in 0..=d.depth {
        let last = depth == d.depth;
        // At the depth limit an exploding face stands as it is (and is reported).
        let ends = if last { &base } else { &stop };
        ledger.pairs(&carry, ends)?;
        let ended = carry.add(ends)?;
        match &mut out {
            None => out = Some(ended),
            Some(o) => o.add_scaled(&ended, 1.0),
        }
        if last {
            capped = carry.p.iter().sum::<f64>() * boom.p.iter().sum::<f64>();
            break;
        }
        ledger.pairs(&carry, &boom)?;
        carry = carry.add(&boom)?.trim();
        if carry.p.iter().all(|&q| q == 0.0) {
            break;
        }
    }
    let out = out.unwrap_or_else(|| Dist::point(0));
    Ok((out.trim(), capped))
}

/// Each group of a pool: its count and its die's distribution (the mass of its
/// explosion chains stopped at the depth limit noted, once per die).
pub(super) fn dice_of(p: &PoolSpec, ledger: &mut Ledger) -> Result<Vec<(u32, Dist)>, TooBig> {
    p.groups
        .iter()
        .map(|(n, d)| {
            let (dist, capped) = die_dist(d, ledger)?;
            ledger.cap(capped * *n as f64);
            Ok((*n, dist))
        })
        .collect()
}

/// Binomial probabilities of 0..=n successes at p.
pub(super) fn binomial(n: u32, p: f64, ledger: &mut Ledger) -> Result<Vec<f64>, TooBig> {
    // Pascal's triangle up to a thousand dice (n^2 / 2 multiply-adds), from the mode
    // outwards past it (a few n): counted, since a pool's dice have no fixed cap.
    let steps = if n <= 1000 {
        (n as u64 * n as u64) / 2
    } else {
        4 * n as u64
    };
    ledger.spend(steps / PAIRS_PER_UNIT + 1, "binomials of too many dice")?;
    Ok(crate::pmf::binomial(n, p).0)
}

/// The account one exact evaluation keeps besides its distribution: the work it has spent
/// against [`MAX_WORK`] (and the cancel check it makes as it spends), and the mass it
/// could not finish (capped explosions, unfinished repeats), so the answer can say so.
pub struct Ledger {
    /// Mass of explosion chains stopped at their depth limit.
    pub capped: f64,
    /// Mass of `repeat`s stopped at their limit before their condition held.
    pub unfinished: f64,
    /// Work spent so far, in units of [`MAX_WORK`].
    pub work: u64,
    /// The probability of reaching the part being evaluated (a branch, a `let`
    /// value), so that what a part reports counts as often as the part happens.
    pub(super) weight: f64,
    /// Checked at every node: a cancelled evaluation gives up as one too big would.
    pub(super) cancel: Cancel,
    /// The most dice a rolled count asked for with any chance (0 where none did): a
    /// count's real reach, where its bounds from intervals only estimate it.
    pub most_dice: i64,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger {
            capped: 0.0,
            unfinished: 0.0,
            work: 0,
            weight: 1.0,
            cancel: Cancel::new(),
            most_dice: 0,
        }
    }
}

impl Ledger {
    /// A ledger for an evaluation that `cancel` stops.
    pub fn stopped_by(cancel: &Cancel) -> Ledger {
        Ledger {
            cancel: cancel.clone(),
            ..Ledger::default()
        }
    }

    /// Explosion chains of this part stopped at the depth limit, with probability `p`.
    pub(super) fn cap(&mut self, p: f64) {
        self.capped += self.weight * p;
    }

    /// A ledger for the body of a pool variable (evaluated while the outer ledger is
    /// busy going through the pool's rolls), merged back by [`Ledger::merge`].
    pub(super) fn inner(&self) -> Ledger {
        Ledger {
            work: self.work,
            weight: self.weight,
            cancel: self.cancel.clone(),
            ..Ledger::default()
        }
    }

    /// Count `units` of work; past [`MAX_WORK`] the evaluation gives up (the scenario is
    /// then Monte Carlo only, and says `why`).
    pub(super) fn spend(&mut self, units: u64, why: &str) -> Result<(), TooBig> {
        // Every spend looks at the stop token too: a long sum (200d100 keep highest
        // 100's kept sums) once held a Ctrl-C for 0.7 s.
        if self.cancel.is_cancelled() {
            return Err(TooBig("the computation was stopped".into()));
        }
        self.work = self.work.saturating_add(units);
        if self.work > MAX_WORK {
            return Err(TooBig(why.into()));
        }
        Ok(())
    }

    /// Count an operation on two distributions: every pair of values is a multiply-add
    /// (a fraction of a nanosecond, vectorised), [`PAIRS_PER_UNIT`] of them a unit.
    pub(super) fn pairs(&mut self, a: &Dist, b: &Dist) -> Result<(), TooBig> {
        self.spend(
            (a.p.len() as u64).saturating_mul(b.p.len() as u64) / PAIRS_PER_UNIT,
            "sums and operations on too many values",
        )
    }

    /// Whether the evaluation was stopped.
    pub(super) fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Count one step of a pass over `states` states (see [`state_cost`]), `units` times.
    pub(super) fn step(&mut self, states: usize, units: u64) -> Result<(), TooBig> {
        if self.cancel.is_cancelled() {
            return Err(TooBig("the computation was stopped".into()));
        }
        self.work += units * state_cost(states);
        if self.work > MAX_WORK {
            return Err(TooBig("a read of pools with too many states".into()));
        }
        Ok(())
    }

    pub(super) fn merge(&mut self, inner: Ledger) {
        self.capped += inner.capped;
        self.unfinished += inner.unfinished;
        self.work = self.work.max(inner.work);
        self.most_dice = self.most_dice.max(inner.most_dice);
    }

    /// Evaluate a part reached with probability `p` (given how this one was reached).
    pub(super) fn within<T>(&mut self, p: f64, f: impl FnOnce(&mut Ledger) -> T) -> T {
        let w = self.weight;
        self.weight = w * p;
        let r = f(self);
        self.weight = w;
        r
    }
}

/// Pairs of values combined per unit of work (see [`NODE_COST`]).
pub(super) const PAIRS_PER_UNIT: u64 = 96;

/// States of a keep pass that stay in the processor's caches; past them, every step of
/// the pass waits on memory.
pub(super) const CACHED_STATES: usize = 1 << 15;

/// Work units one step of a keep pass counts for, given how many states it reads or
/// writes (measured: about 10 ns a step while the states fit in the caches, 100 ns
/// past them).
pub(super) fn state_cost(states: usize) -> u64 {
    if states > CACHED_STATES {
        8
    } else {
        1
    }
}

/// Values filtered and summed per unit of work (a compare and a branch each, not
/// vectorised).
pub(super) const SCANS_PER_UNIT: u64 = 16;

/// Work units one evaluated node, or one hash-map update, counts for: a node allocates
/// and frees a distribution, about as long as this many multiply-adds (measured: 2e7
/// units of nodes took 3 s, of pairs well under one).
pub(super) const NODE_COST: u64 = 5;
