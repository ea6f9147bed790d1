//! The pass in counts of ways, for the exact fractions: the same outcomes highest first
//! and the same steps of the reads as [`Pass::run`], each state weighted by the ways
//! its dice can show what they placed (icepool's evaluator: at outcome `o`, `c` of a
//! group's `left` dice show it in `C(left, c) * ways(o)^c` ways), never by a float.
//! Its result is over the dice's ways all told, `(sum of a die's ways)^dice`.

use super::{step, Key, Map, Num, Pass, Plan};
use crate::systems::dice::exact::{NoLaw, Weight, Why};

/// Each group's die, in the order of the pass's pools and their groups: each face it
/// can show with its ways.
pub(crate) type Faces<W> = Vec<(i64, W)>;

/// Each distinct list of the reads' values with its ways, and the ways of every roll.
pub(crate) type Joint<W> = (Vec<(Vec<i64>, W)>, W);

/// States a map holds within the caches, about (an entry is a key of 56 bytes and its
/// ways: 16 MiB, half the last cache here): past them, each state put in costs its
/// weight's [`Weight::FAR_STATE`] more. Two pools of 100 dice met (a million states)
/// spent 4.9 s before it gave up; a walk of 80,000 states is priced as before.
const CACHED_STATES: usize = 1 << 18;

/// What `spend` is told the work is, as it goes.
type Spend<'s> = &'s mut dyn FnMut(u64) -> Result<(), NoLaw>;

/// The counts every outcome uses, made as they are first needed (a pool of 500,000 dice
/// would otherwise make its whole Pascal triangle before a state is placed).
struct Counts<W> {
    /// `C(left, c)` for every `c`, by `left`.
    choose: Map<u32, Vec<W>>,
    /// Per group at this outcome: its die's ways of showing it, to the power `c`.
    powers: Vec<Vec<W>>,
}

impl<W: Weight> Counts<W> {
    fn choose(&mut self, left: u32, c: u32, spend: Spend) -> Result<W, NoLaw> {
        if let std::collections::hash_map::Entry::Vacant(slot) = self.choose.entry(left) {
            let mut row = vec![W::one()];
            for k in 1..=u64::from(left) {
                let next = row[k as usize - 1]
                    .mul_small(u64::from(left) - k + 1)?
                    .div_small(k);
                // By the words of each count: C(500000, k) is thousands of them.
                spend(2 * next.words())?;
                row.push(next);
            }
            slot.insert(row);
        }
        Ok(self.choose[&left][c as usize].clone())
    }

    /// `ways^c` for group `g`, the row grown as far as `c`.
    fn power(&mut self, g: usize, c: u32, ways: &W, spend: Spend) -> Result<W, NoLaw> {
        let row = &mut self.powers[g];
        while row.len() <= c as usize {
            let next = row[row.len() - 1].mul(ways)?;
            spend(next.words())?;
            row.push(next);
        }
        Ok(row[c as usize].clone())
    }
}

/// Each group's ways below an outcome: its faces rising, with the running sum of their
/// ways before each (sums, not a difference from the whole: no float cancels).
fn ways_below<W: Weight>(dice: &[Faces<W>]) -> Result<Vec<Vec<(i64, W)>>, NoLaw> {
    dice.iter()
        .map(|f| {
            let mut rising: Vec<(i64, W)> = f.clone();
            rising.sort_unstable_by_key(|&(v, _)| v);
            let mut acc = W::default();
            rising
                .into_iter()
                .map(|(v, w)| {
                    let before = acc.clone();
                    acc.add_to(&w)?;
                    Ok((v, before))
                })
                .collect()
        })
        .collect()
}

/// Where a pass in ways is: the groups (their pool and dice), their faces, and each
/// group's lowest face (there its dice left must all be placed).
struct Walk<'p, W> {
    pass: &'p Pass,
    plan: Plan<'p>,
    groups: Vec<(usize, u32)>,
    dice: &'p [Faces<W>],
    lowest: Vec<i64>,
}

impl Pass {
    /// The joint law of the reads: each distinct list of values with its ways, and the
    /// ways of every roll. `dice` holds each group's faces ([`Faces`]); `spend` is told
    /// the work as it goes.
    pub(crate) fn run_ways<W: Weight>(
        &self,
        dice: &[Faces<W>],
        spend: Spend,
    ) -> Result<Joint<W>, NoLaw> {
        if !self.fits() {
            return Err(NoLaw::Refused(Why::Part));
        }
        let plan = self.plan();
        let groups: Vec<(usize, u32)> = plan.groups.iter().map(|&(p, n, _)| (p, n)).collect();
        if dice.len() != groups.len() {
            return Err(NoLaw::Refused(Why::Part));
        }
        let lowest = dice
            .iter()
            .map(|f| f.iter().map(|&(v, _)| v).min().unwrap_or(i64::MIN))
            .collect();
        let mut values: Vec<i64> = dice.iter().flatten().map(|&(v, _)| v).collect();
        values.sort_unstable();
        values.dedup();
        values.reverse();
        let mut cur: Map<Key, W> = Map::default();
        cur.insert(plan.start, W::one());
        let walk = Walk {
            pass: self,
            plan,
            groups,
            dice,
            lowest,
        };
        let mut counts = Counts {
            choose: Map::default(),
            powers: Vec::new(),
        };
        let settles = self.can_settle();
        let below = if settles {
            ways_below(dice)?
        } else {
            Vec::new()
        };
        // States whose reads no lower outcome can change, their dice left placed below
        // in one product: `beats(40d10, 40d10)` is settled once the second side's
        // highest die is down, not carried through every count of dice left.
        let mut settled: Map<Key, W> = Map::default();
        let mut prev = None;
        for &o in &values {
            cur = walk.outcome(&cur, o, prev, &mut counts, spend)?;
            prev = Some(o);
            if settles {
                walk.settle(&mut cur, &mut settled, o, &below, spend)?;
            }
        }
        for (key, w) in settled {
            cur.entry(key).or_default().add_to(&w)?;
        }
        walk.joint(cur)
    }
}

impl<W: Weight> Walk<'_, W> {
    /// Every state after outcome `o`: each group's every count placed at it.
    fn outcome(
        &self,
        cur: &Map<Key, W>,
        o: i64,
        prev: Option<i64>,
        counts: &mut Counts<W>,
        spend: Spend,
    ) -> Result<Map<Key, W>, NoLaw> {
        let ng = self.groups.len();
        let ways: Vec<W> = self
            .dice
            .iter()
            .map(|f| {
                f.iter()
                    .find(|&&(v, _)| v == o)
                    .map_or_else(W::default, |(_, w)| w.clone())
            })
            .collect();
        counts.powers = vec![vec![W::one()]; ng];
        let mut next: Map<Key, W> = Map::default();
        let (mut c, mut left, mut span) = (vec![0u32; ng], vec![0u32; ng], vec![(0, 0); ng]);
        let (mut seen, mut placed) = (
            vec![0u32; self.pass.pools.len()],
            vec![0; self.pass.pools.len()],
        );
        for (key, w) in cur {
            for g in 0..ng {
                left[g] = self.groups[g].1 - key[g] as u32;
                let can = if ways[g].is_zero() { 0 } else { left[g] };
                span[g] = match o == self.lowest[g] {
                    true if can < left[g] => (1, 0),
                    true => (left[g], left[g]),
                    false => (0, can),
                };
                c[g] = span[g].0;
            }
            if span.iter().any(|&(a, b)| a > b) {
                continue;
            }
            'combos: loop {
                let mut x = w.clone();
                for g in (0..ng).filter(|&g| c[g] > 0) {
                    x = x
                        .mul(&counts.choose(left[g], c[g], spend)?)?
                        .mul(&counts.power(g, c[g], &ways[g], spend)?)?;
                }
                spend(4 + x.words())?;
                seen.fill(0);
                placed.fill(0);
                for g in 0..ng {
                    seen[self.groups[g].0] += key[g] as u32;
                    placed[self.groups[g].0] += c[g];
                }
                let mut k = *key;
                for g in 0..ng {
                    k[g] += c[g] as Num;
                }
                let plan = &self.plan;
                for (ri, r) in self.pass.reads.iter().enumerate() {
                    let st = &mut k[plan.offsets[ri]..plan.offsets[ri + 1]];
                    step(r, plan.fixed[ri], st, o, prev, &seen, &placed);
                }
                next.entry(k).or_default().add_to(&x)?;
                if next.len() > CACHED_STATES {
                    spend(W::FAR_STATE)?;
                }
                // Past the states a face may hold: refused now, not after building them
                // all (two pools of 5,000 dice met would hold 25 million).
                if next.len() > super::MAX_STATES {
                    return Err(NoLaw::Refused(Why::States));
                }
                // The next combination of counts (an odometer).
                let mut g = 0;
                loop {
                    if g == ng {
                        break 'combos;
                    }
                    if c[g] < span[g].1 {
                        c[g] += 1;
                        break;
                    }
                    c[g] = span[g].0;
                    g += 1;
                }
            }
        }
        Ok(next)
    }

    /// The states of `cur` whose reads are settled ([`Pass::settled`]) after outcome `o`,
    /// moved to `settled` with their dice left placed below `o` in one product (`below`:
    /// each group's faces rising with the ways of those before each).
    fn settle(
        &self,
        cur: &mut Map<Key, W>,
        settled: &mut Map<Key, W>,
        o: i64,
        below: &[Vec<(i64, W)>],
        spend: Spend,
    ) -> Result<(), NoLaw> {
        let (walk, dice) = (self, self.dice);
        let done: Vec<Key> = cur
            .keys()
            .filter(|k| walk.pass.settled(&walk.plan.offsets, k))
            .copied()
            .collect();
        for key in done {
            let Some(mut w) = cur.remove(&key) else {
                continue;
            };
            let mut full = key;
            for (g, &(_, n)) in walk.groups.iter().enumerate() {
                let left = n - key[g] as u32;
                if left > 0 {
                    // The ways of the faces below `o`: before the first at or
                    // above it, or all of them.
                    let at = below[g].partition_point(|&(v, _)| v < o);
                    let under = match below[g].get(at) {
                        Some((_, before)) => before.clone(),
                        None => {
                            let mut all = W::default();
                            for (_, wf) in &dice[g] {
                                all.add_to(wf)?;
                            }
                            all
                        }
                    };
                    w = w.mul(&under.pow(left)?)?;
                    spend(4 + w.words())?;
                }
                full[g] = n as Num;
            }
            if !w.is_zero() {
                settled.entry(full).or_default().add_to(&w)?;
            }
        }
        Ok(())
    }

    /// The reads' values at the final states, alike lists joined, in a fixed order; and
    /// the ways of every roll.
    fn joint(&self, cur: Map<Key, W>) -> Result<Joint<W>, NoLaw> {
        let mut index: Map<Vec<i64>, usize> = Map::default();
        let mut out: Vec<(Vec<i64>, W)> = Vec::new();
        let mut finals: Vec<(Key, W)> = cur.into_iter().collect();
        finals.sort_unstable_by_key(|a| a.0);
        for (key, w) in finals {
            let vals = self.pass.values_of(&self.plan.offsets, &key);
            match index.get(&vals) {
                Some(&i) => out[i].1.add_to(&w)?,
                None => {
                    index.insert(vals.clone(), out.len());
                    out.push((vals, w));
                }
            }
        }
        let mut den = W::one();
        for (g, &(_, n)) in self.groups.iter().enumerate() {
            let mut all = W::default();
            for (_, w) in &self.dice[g] {
                all.add_to(w)?;
            }
            den = den.mul(&all.pow(n)?)?;
        }
        Ok((out, den))
    }
}
