//! Choices after a roll: `reroll p = 5d6 twice to maximise p count 6 >= 4`.
//!
//! The choice is worked out once, exactly, when the expression is compiled, the way
//! descent's Aim is: for every roll, which dice to keep so that the objective's mean
//! is best, with the rerolls still to come played as well. A roll is a multiset (the
//! order of the dice never matters to a choice), so 5d6 has 252 rolls and 462 sets of
//! dice that could be kept, whatever is rolled. Monte Carlo then rolls the dice as the
//! rules say and keeps what the table says; the exact engine reads the dice at the end
//! from the same table. Neither samples from the other.

use std::collections::{BTreeMap, HashMap};

use dashu_int::UBig;

use super::super::lang::Goal;
use super::{sample, DieSpec, Node, Scratch};
use crate::kernels::Rng;

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Most rolls of the whole pool a choice goes through (5d6: 252; 8d10: 24,310).
pub const MAX_ROLLS: u64 = 50_000;
/// Most dice a choice is made over.
pub const MAX_DICE: u32 = 12;
/// Most distinct values of its die.
pub const MAX_VALUES: usize = 32;
/// Most units of work (a kept set and a reroll summed, a set compared with its
/// neighbours) one choice's plan may take: about a fifth of a second (8d10 rerolled
/// twice takes 5.3 million).
const MAX_WORK: u64 = 6_000_000;
/// Most rows of the printed policy.
const SHOWN_ROWS: usize = 300;

/// A compiled choice: the die, and for every roll and number of rerolls left, the dice
/// kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    die: DieSpec,
    /// The die's values, ascending: a roll is how many dice show each.
    values: Vec<i64>,
    /// How many dice are rolled.
    pub n: u32,
    rerolls: u32,
    /// Per rerolls left (index `t - 1`), per roll (its counts packed, see [`Packing`]):
    /// the counts kept.
    keep: Vec<Map<u128, u128>>,
    /// `keep` unpacked for Monte Carlo: per rerolls left, per roll, the dice kept
    /// (sorted), so a trial neither divides a 128-bit key nor allocates.
    kept_dice: Vec<Map<u128, Box<[i64]>>>,
    /// `base^j` per value index: a roll's key is a sum of these.
    powers: Vec<u128>,
    /// The dice at the end, sorted, with their probability under the choices.
    pub ends: Vec<(Vec<i64>, f64)>,
    /// The first choice for every roll, as Markdown.
    pub shown: String,
}

/// Counts of each value packed as digits in base `n + 1`.
#[derive(Clone, Copy)]
struct Packing {
    base: u128,
    values: usize,
}

impl Packing {
    fn pack(&self, counts: &[u8]) -> u128 {
        counts
            .iter()
            .rev()
            .fold(0u128, |k, &c| k * self.base + c as u128)
    }
    fn unpack(&self, mut key: u128) -> Vec<u8> {
        (0..self.values)
            .map(|_| {
                let c = (key % self.base) as u8;
                key /= self.base;
                c
            })
            .collect()
    }
}

/// Every multiset of `k` dice over the values: its counts and its probability when `k`
/// dice are rolled (k! / prod c! * prod q^c).
fn multisets(k: u32, q: &[f64]) -> Vec<(Vec<u8>, f64)> {
    fn walk(
        j: usize,
        left: u32,
        q: &[f64],
        c: &mut Vec<u8>,
        p: f64,
        out: &mut Vec<(Vec<u8>, f64)>,
    ) {
        if j == q.len() - 1 {
            c.push(left as u8);
            let mut p = p * q[j].powi(left as i32);
            for i in 2..=left {
                p /= i as f64;
            }
            out.push((c.clone(), p));
            c.pop();
            return;
        }
        for n in (0..=left).rev() {
            c.push(n as u8);
            let mut r = p * q[j].powi(n as i32);
            for i in 2..=n {
                r /= i as f64;
            }
            walk(j + 1, left - n, q, c, r, out);
            c.pop();
        }
    }
    let mut out = Vec::new();
    walk(0, k, q, &mut Vec::new(), 1.0, &mut out);
    let fact: f64 = (2..=k).map(|i| i as f64).product();
    out.iter_mut().for_each(|(_, p)| *p *= fact);
    out
}

/// Every multiset of `k` dice over values shown by `faces[j]` faces each: its counts and
/// its ways, `k! / prod c! * prod faces^c`.
fn multiset_ways(k: u32, faces: &[u64]) -> Vec<(Vec<u8>, UBig)> {
    fn walk(
        j: usize,
        left: u32,
        faces: &[u64],
        c: &mut Vec<u8>,
        w: &UBig,
        out: &mut Vec<(Vec<u8>, UBig)>,
    ) {
        // The dice left choose which of them show value `j`: C(left, n) ways.
        let last = j == faces.len() - 1;
        for n in if last { left..=left } else { 0..=left } {
            let mut ways = w * UBig::from(faces[j]).pow(n as usize);
            let mut binomial = UBig::ONE;
            for i in 0..n {
                binomial = binomial * (left - i) / (i + 1);
            }
            ways *= binomial;
            c.push(n as u8);
            if last {
                out.push((c.clone(), ways));
            } else {
                walk(j + 1, left - n, faces, c, &ways, out);
            }
            c.pop();
        }
    }
    let mut out = Vec::new();
    walk(0, k, faces, &mut Vec::new(), &UBig::ONE, &mut out);
    out
}

/// C(n + s - 1, n): the rolls of `n` dice with `s` values.
fn rolls(n: u32, s: usize) -> u64 {
    let mut c = 1u64;
    for j in 0..(s as u64).saturating_sub(1) {
        c = c.saturating_mul(n as u64 + 1 + j) / (j + 1);
    }
    c
}

/// The dice of a roll, sorted.
fn dice(values: &[i64], counts: &[u8]) -> Vec<i64> {
    counts
        .iter()
        .zip(values)
        .flat_map(|(&c, &v)| std::iter::repeat_n(v, c as usize))
        .collect()
}

/// The die's values and their chances (its faces, each equally likely), checked: plain
/// dice only, and few enough dice, values and rolls to weigh every choice.
fn choice_values(die: &DieSpec, n: u32) -> Result<(Vec<i64>, Vec<f64>), String> {
    if die.explode.is_some() || die.reroll.is_some() {
        return Err(
            "a choice rerolls plain dice: a die that explodes or rerolls by itself has no fixed faces to choose between".into(),
        );
    }
    // The die's values and their chances: its faces, each equally likely.
    let mut values = die.faces.clone();
    values.sort_unstable();
    values.dedup();
    let q: Vec<f64> = values
        .iter()
        .map(|v| die.faces.iter().filter(|f| *f == v).count() as f64 / die.faces.len() as f64)
        .collect();
    let s = values.len();
    if n == 0 || n > MAX_DICE {
        return Err(format!(
            "a choice is made over 1 to {MAX_DICE} dice, not {n}"
        ));
    }
    if s > MAX_VALUES {
        return Err(format!(
            "a choice is made over dice with at most {MAX_VALUES} values, not {s}"
        ));
    }
    let count = rolls(n, s);
    if count > MAX_ROLLS {
        return Err(format!(
            "{n} dice of {s} values roll {count} ways; a choice goes through at most {MAX_ROLLS}"
        ));
    }
    Ok((values, q))
}

/// Work the choice for `n` dice of `die`, rerolled up to `rerolls` times, so that the
/// mean of `objective` (which reads only the pool variable at scope depth `depth`,
/// whose dice sit at `offset` of the scratch, and rolls nothing: a number for each
/// roll) is best; or why it cannot be worked out.
pub fn plan(
    die: DieSpec,
    n: u32,
    rerolls: u32,
    goal: Goal,
    objective: &Node,
    (depth, offset): (usize, usize),
) -> Result<Choice, String> {
    let (values, q) = choice_values(&die, n)?;
    let s = values.len();
    let pk = Packing {
        base: n as u128 + 1,
        values: s,
    };
    let sign = match goal {
        Goal::Maximise => 1.0,
        Goal::Minimise => -1.0,
    };
    let by_size: Vec<Vec<(u128, Vec<u8>, f64)>> = (0..=n)
        .map(|k| {
            multisets(k, &q)
                .into_iter()
                .map(|(c, p)| (pk.pack(&c), c, p))
                .collect()
        })
        .collect();
    let full = &by_size[n as usize];
    // The objective at every roll: the value of a roll with no reroll left.
    let mut worth: Map<u128, f64> = Map::default();
    let mut scratch = Box::new(Scratch::new());
    let rng = &mut <Rng as rand::SeedableRng>::seed_from_u64(0);
    scratch.room(offset + n as usize);
    for (key, c, _) in full {
        scratch.dice[offset..offset + n as usize].copy_from_slice(&dice(&values, c));
        let m = sample(objective, rng, &mut scratch, depth + 1);
        worth.insert(*key, sign * m as f64);
    }
    let mut work = 0u64;
    let mut keep = Vec::new();
    for _ in 0..rerolls {
        let (best_of, next) = step_back(&by_size, &worth, &pk, &mut work)?;
        keep.push(best_of);
        worth = next;
    }
    // The rolls' probabilities through the choices, to the dice at the end (in key
    // order, so that the sums are the same every time).
    let mut now: BTreeMap<u128, f64> = full.iter().map(|(k, _, p)| (*k, *p)).collect();
    for t in (0..rerolls as usize).rev() {
        // The rolls that keep the same dice, together: each kept set's rerolls are
        // gone through once (the pairs already weighed above, no more).
        let mut kept: BTreeMap<u128, f64> = BTreeMap::new();
        for (key, p) in &now {
            *kept.entry(keep[t][key]).or_insert(0.0) += p;
        }
        let mut after: BTreeMap<u128, f64> = BTreeMap::new();
        for (k, p) in &kept {
            let size: u32 = pk.unpack(*k).iter().map(|&x| x as u32).sum();
            for (r, _, q) in &by_size[(n - size) as usize] {
                *after.entry(k + r).or_insert(0.0) += p * q;
            }
        }
        now = after;
    }
    let ends = now
        .into_iter()
        .map(|(k, p)| (dice(&values, &pk.unpack(k)), p))
        .collect();
    let kept_dice = keep
        .iter()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (*k, dice(&values, &pk.unpack(*v)).into_boxed_slice()))
                .collect()
        })
        .collect();
    let powers = (0..values.len()).map(|j| pk.base.pow(j as u32)).collect();
    let mut choice = Choice {
        die,
        values,
        n,
        rerolls,
        keep,
        kept_dice,
        powers,
        ends,
        shown: String::new(),
    };
    choice.shown = choice.show(&pk, full, &worth, sign);
    Ok(choice)
}

/// For every roll, the roll of the dice best kept, and what the roll is then worth.
type Step = (Map<u128, u128>, Map<u128, f64>);

/// One reroll worked back from the next: for every roll, the dice best kept and what the
/// roll is then worth. `work` counts the pairs weighed so far, against [`MAX_WORK`].
fn step_back(
    by_size: &[Vec<(u128, Vec<u8>, f64)>],
    worth: &Map<u128, f64>,
    pk: &Packing,
    work: &mut u64,
) -> Result<Step, String> {
    let n = by_size.len() - 1;
    let s = pk.values;
    let full = &by_size[n];
    let too_many = || format!("{n} dice of {s} values have too many choices to weigh");
    // What keeping a set is worth: its rerolled dice summed over.
    let mut kept_worth: Map<u128, f64> = Map::default();
    for (k, set) in by_size.iter().enumerate() {
        let rest = &by_size[n - k];
        *work += (set.len() * rest.len()) as u64;
        if *work > MAX_WORK {
            return Err(too_many());
        }
        for (key, _, _) in set {
            let v: f64 = rest.iter().map(|(r, _, p)| p * worth[&(key + r)]).sum();
            kept_worth.insert(*key, v);
        }
    }
    // For each set of dice the best set it holds (itself or less), smallest sets
    // first: the best below a set is the best below one of the sets a die fewer,
    // so each set looks at one neighbour per value, not at all its subsets.
    // Keeping more dice wins a tie.
    let mut below: Map<u128, (f64, u32, u128)> = Map::default();
    for (size, set) in by_size.iter().enumerate() {
        *work += (set.len() * s) as u64;
        if *work > MAX_WORK {
            return Err(too_many());
        }
        for (key, c, _) in set {
            let mut best = (kept_worth[key], size as u32, *key);
            let mut unit = 1u128;
            for &cj in c.iter() {
                if cj > 0 {
                    let b = below[&(key - unit)];
                    let eps = 1e-12 * best.0.abs().max(1.0);
                    if b.0 > best.0 + eps || (b.0 >= best.0 - eps && b.1 > best.1) {
                        best = b;
                    }
                }
                unit *= pk.base;
            }
            below.insert(*key, best);
        }
    }
    let best_of: Map<u128, u128> = full.iter().map(|(k, _, _)| (*k, below[k].2)).collect();
    let next: Map<u128, f64> = full.iter().map(|(k, _, _)| (*k, below[k].0)).collect();
    Ok((best_of, next))
}

impl Choice {
    /// Play the choices on rolled dice (sorted), rerolling with `rng` as the rules say.
    pub fn play(&self, dice: &mut [i64], rng: &mut Rng) {
        for t in (0..self.rerolls as usize).rev() {
            let mut key = 0u128;
            for &d in dice.iter() {
                key += self.powers[self.values.partition_point(|&v| v < d)];
            }
            let Some(kept) = self.kept_dice[t].get(&key) else {
                return;
            };
            let i = kept.len();
            dice[..i].copy_from_slice(kept);
            for d in dice[i..].iter_mut() {
                *d = self.die.roll(rng);
            }
            super::sort_dice(dice);
        }
    }

    /// [`Choice::ends`] counted in whole numbers, for the fractions: the dice at the end
    /// with their ways, over `F^(n·(rerolls + 1))` (`F` the die's faces), the denominator
    /// returned. The float `ends` are products of rounded chances; these are the same
    /// choices (the plan's `keep`) with every way counted.
    pub fn end_ways(&self) -> (Vec<(Vec<i64>, UBig)>, UBig) {
        let n = self.n;
        let pk = Packing {
            base: n as u128 + 1,
            values: self.values.len(),
        };
        // Each value's faces: a die with a face twice shows that value two ways.
        let faces: Vec<u64> = self
            .values
            .iter()
            .map(|v| self.die.faces.iter().filter(|f| *f == v).count() as u64)
            .collect();
        let per_die = UBig::from(self.die.faces.len() as u64);
        let by_size: Vec<Vec<(u128, UBig)>> = (0..=n)
            .map(|k| {
                multiset_ways(k, &faces)
                    .into_iter()
                    .map(|(c, w)| (pk.pack(&c), w))
                    .collect()
            })
            .collect();
        let mut now: BTreeMap<u128, UBig> = by_size[n as usize].iter().cloned().collect();
        for t in (0..self.rerolls as usize).rev() {
            let mut kept: BTreeMap<u128, UBig> = BTreeMap::new();
            for (key, w) in &now {
                *kept.entry(self.keep[t][key]).or_default() += w;
            }
            // Every step is over `F^n` more: a set of `size` dice kept rerolls the rest
            // over `F^(n - size)`, so its ways are scaled by `F^size`.
            let mut after: BTreeMap<u128, UBig> = BTreeMap::new();
            for (k, w) in &kept {
                let size: u32 = pk.unpack(*k).iter().map(|&x| x as u32).sum();
                let scaled = w * per_die.pow(size as usize);
                for (r, q) in &by_size[(n - size) as usize] {
                    *after.entry(k + r).or_default() += &scaled * q;
                }
            }
            now = after;
        }
        let ends = now
            .into_iter()
            .map(|(k, w)| (dice(&self.values, &pk.unpack(k)), w))
            .collect();
        (ends, per_die.pow((n * (self.rerolls + 1)) as usize))
    }

    /// The first choice for every roll, best rolls first, as a Markdown table.
    fn show(
        &self,
        pk: &Packing,
        full: &[(u128, Vec<u8>, f64)],
        worth: &Map<u128, f64>,
        sign: f64,
    ) -> String {
        let word = |c: &[u8]| {
            let d = dice(&self.values, c);
            if d.is_empty() {
                "nothing".to_string()
            } else {
                d.iter()
                    .rev()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        let t = self.rerolls as usize - 1;
        // The highest rolls first; only the rows shown are written out.
        let mut rows: Vec<(Vec<i64>, &u128, &Vec<u8>)> = full
            .iter()
            .map(|(key, c, _)| {
                let mut d = dice(&self.values, c);
                d.reverse();
                (d, key, c)
            })
            .collect();
        rows.sort_by(|a, b| b.0.cmp(&a.0));
        let mut out = String::from(
            "| roll | keep | dice rerolled | objective's mean from here |\n|---|---|---:|---:|\n",
        );
        for (_, key, c) in rows.iter().take(SHOWN_ROWS) {
            let kept = pk.unpack(self.keep[t][key]);
            let size: u32 = kept.iter().map(|&x| x as u32).sum();
            let reroll = match self.n - size {
                0 => "none".to_string(),
                r => format!("{r}"),
            };
            let w = crate::text::fixed(sign * worth[key], 4);
            out.push_str(&format!(
                "| {} | {} | {reroll} | {w} |\n",
                word(c),
                word(&kept)
            ));
        }
        if rows.len() > SHOWN_ROWS {
            out.push_str(&format!(
                "\n({} more rolls not shown)\n",
                rows.len() - SHOWN_ROWS
            ));
        }
        if self.rerolls > 1 {
            out.push_str("\nThe later rerolls choose the same way from what they roll, with one reroll fewer to come.\n");
        }
        out
    }
}
