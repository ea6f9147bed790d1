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
    pub(super) fn point(v: i64) -> Self {
        Dist {
            lo: v,
            p: vec![1.0],
        }
    }

    /// The highest value.
    pub(super) fn hi(&self) -> i64 {
        self.lo + self.p.len() as i64 - 1
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

    pub(super) fn iter(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.p
            .iter()
            .enumerate()
            .filter(|(_, &q)| q > 0.0)
            .map(move |(i, &q)| (self.lo + i as i64, q))
    }

    /// The distribution of the sum of one draw of each.
    pub(super) fn add(&self, o: &Dist) -> Result<Dist, TooBig> {
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
    /// Explosion chains of this part stopped at the depth limit, with probability `p`.
    pub(super) fn cap(&mut self, p: f64) {
        self.capped += self.weight * p;
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
}

/// Pairs of values combined per unit of work (see [`NODE_COST`]).
pub(super) const PAIRS_PER_UNIT: u64 = 96;
