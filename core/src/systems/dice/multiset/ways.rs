//! The pass in counts of ways, for the exact fractions: the same outcomes highest first
//! and the same steps of the reads as [`Pass::run`], each state weighted by the ways
//! its dice can show what they placed (icepool's evaluator: at outcome `o`, `c` of a
//! group's `left` dice show it in `C(left, c) * ways(o)^c` ways), never by a float.
//! Its result is over the dice's ways all told, `(sum of a die's ways)^dice`.

use super::{step, Key, Map, Num, Pass};
use crate::systems::dice::exact::{NoLaw, Weight};

/// Each group's die, in the order of the pass's pools and their groups: each face it
/// can show with its ways.
pub(crate) type Faces<W> = Vec<(i64, W)>;

/// Each distinct list of the reads' values with its ways, and the ways of every roll.
pub(crate) type Joint<W> = (Vec<(Vec<i64>, W)>, W);

impl Pass {
    /// The joint law of the reads: each distinct list of values with its ways, and the
    /// ways of every roll. `dice` holds each group's faces ([`Faces`]); `spend` is told
    /// the work as it goes.
    pub(crate) fn run_ways<W: Weight>(
        &self,
        dice: &[Faces<W>],
        spend: &mut dyn FnMut(u64) -> Result<(), NoLaw>,
    ) -> Result<Joint<W>, NoLaw> {
        if !self.fits() {
            return Err(NoLaw::Refused);
        }
        let plan = self.plan();
        let groups: Vec<(usize, u32)> = plan.groups.iter().map(|&(p, n, _)| (p, n)).collect();
        if dice.len() != groups.len() {
            return Err(NoLaw::Refused);
        }
        let ng = groups.len();
        let mut values: Vec<i64> = dice.iter().flatten().map(|&(v, _)| v).collect();
        values.sort_unstable();
        values.dedup();
        values.reverse();
        // Each group's lowest face: there its dice left must all be placed.
        let lowest: Vec<i64> = dice
            .iter()
            .map(|f| f.iter().map(|&(v, _)| v).min().unwrap_or(i64::MIN))
            .collect();
        let most = groups.iter().map(|&(_, n)| n).max().unwrap_or(0) as usize;
        let choose = pascal::<W>(most)?;
        let mut cur: Map<Key, W> = Map::default();
        cur.insert(plan.start, W::one());
        let mut next: Map<Key, W> = Map::default();
        let (mut counts, mut left) = (vec![0u32; ng], vec![0u32; ng]);
        let mut span = vec![(0u32, 0u32); ng];
        let mut seen = vec![0u32; self.pools.len()];
        let mut placed = vec![0u32; self.pools.len()];
        let mut prev: Option<i64> = None;
        for &o in &values {
            // Each group's ways of showing `o` with 0, 1, ... of its dice.
            let mut powers: Vec<Vec<W>> = Vec::with_capacity(ng);
            for (g, &(_, n)) in groups.iter().enumerate() {
                let w = dice[g]
                    .iter()
                    .find(|&&(v, _)| v == o)
                    .map_or_else(W::default, |(_, w)| w.clone());
                let mut row = vec![W::one()];
                if !w.is_zero() {
                    for c in 1..=n as usize {
                        row.push(row[c - 1].mul(&w)?);
                    }
                }
                powers.push(row);
            }
            next.clear();
            for (key, w) in &cur {
                for g in 0..ng {
                    left[g] = groups[g].1 - key[g] as u32;
                    let can = (powers[g].len() as u32 - 1).min(left[g]);
                    span[g] = match o == lowest[g] {
                        true if can < left[g] => (1, 0),
                        true => (left[g], left[g]),
                        false => (0, can),
                    };
                    counts[g] = span[g].0;
                }
                if span.iter().any(|&(a, b)| a > b) {
                    continue;
                }
                'combos: loop {
                    let mut x = w.clone();
                    for g in 0..ng {
                        let c = counts[g] as usize;
                        if c > 0 {
                            x = x.mul(&choose[left[g] as usize][c])?.mul(&powers[g][c])?;
                        }
                    }
                    spend(4 + x.words())?;
                    seen.iter_mut().for_each(|s| *s = 0);
                    placed.iter_mut().for_each(|s| *s = 0);
                    for g in 0..ng {
                        seen[groups[g].0] += key[g] as u32;
                        placed[groups[g].0] += counts[g];
                    }
                    let mut k = *key;
                    for g in 0..ng {
                        k[g] += counts[g] as Num;
                    }
                    for (ri, r) in self.reads.iter().enumerate() {
                        let st = &mut k[plan.offsets[ri]..plan.offsets[ri + 1]];
                        step(r, plan.fixed[ri], st, o, prev, &seen, &placed);
                    }
                    next.entry(k).or_default().add_to(&x)?;
                    let mut g = 0;
                    loop {
                        if g == ng {
                            break 'combos;
                        }
                        if counts[g] < span[g].1 {
                            counts[g] += 1;
                            break;
                        }
                        counts[g] = span[g].0;
                        g += 1;
                    }
                }
            }
            if next.len() > super::MAX_STATES {
                return Err(NoLaw::Refused);
            }
            std::mem::swap(&mut cur, &mut next);
            prev = Some(o);
        }
        let mut index: Map<Vec<i64>, usize> = Map::default();
        let mut out: Vec<(Vec<i64>, W)> = Vec::new();
        let mut finals: Vec<(Key, W)> = cur.into_iter().collect();
        finals.sort_unstable_by_key(|a| a.0);
        for (key, w) in finals {
            let vals = self.values_of(&plan.offsets, &key);
            match index.get(&vals) {
                Some(&i) => out[i].1.add_to(&w)?,
                None => {
                    index.insert(vals.clone(), out.len());
                    out.push((vals, w));
                }
            }
        }
        let mut den = W::one();
        for (g, &(_, n)) in groups.iter().enumerate() {
            let mut all = W::default();
            for (_, w) in &dice[g] {
                all.add_to(w)?;
            }
            den = den.mul(&all.pow(n)?)?;
        }
        Ok((out, den))
    }
}

/// `C(n, k)` for every `n` up to `most`.
fn pascal<W: Weight>(most: usize) -> Result<Vec<Vec<W>>, NoLaw> {
    let mut rows: Vec<Vec<W>> = vec![vec![W::one()]];
    for n in 1..=most {
        let prev = &rows[n - 1];
        let mut row = vec![W::one(); n + 1];
        for k in 1..n {
            let mut c = prev[k - 1].clone();
            c.add_to(&prev[k])?;
            row[k] = c;
        }
        rows.push(row);
    }
    Ok(rows)
}
