//! Exact attack distributions and the re-roll policies, Aim and Dodge.
//!
//! Dice with the same faces are interchangeable, and faces with the same packed value
//! are too (the white die shows "R3 1H S" twice), so a roll is enumerated as a count of
//! each value per kind of die, weighted by its multinomial probability: 3 weapon dice and
//! 5 power dice are 2,520 rolls instead of 1.7 million. For each, a re-roll is a number
//! of dice to re-roll per value; its worth is the expectation of the objective over the
//! re-rolled dice's summed faces (a sparse distribution, cached per set of re-rolled
//! dice). `optimal` takes the best of every re-roll (the worst, for a Dodge); the others
//! follow their rule. The choice per roll then becomes a re-roll mask per die for the
//! sampler, so the Monte Carlo trial only looks the mask up.

use super::{pack, Attack, Die, Objective, Policy, Reroll, Resolver, MISS};
use crate::pmf::Prob;
/// The policy's caches and sums are keyed by small vectors and words: a fixed-seed fast
/// hash (results never depend on a map's order: `add` sorts what it collects).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// What the sampler and the reports need: which dice each initial roll re-rolls and
/// the exact distribution over states.
pub struct Plan {
    /// The re-roll of every roll that re-rolls something, made into one mask per
    /// initial roll when the sampler first rolls ([`Rerolls::masks`]).
    pub rerolls: Rerolls,
    /// Per outcome state of the [`Resolver`], its probability after the re-roll and
    /// before any defence dice.
    pub exact: Vec<f64>,
    /// What `exact` is summed from, for [`Plan::exact_in`].
    pub chances: Chances,
}

/// The chances behind a plan's exact distribution: each kind of die's values (and how
/// many of its faces show each), and per initial roll what it keeps and re-rolls. The
/// choices are made once, in floats (a re-roll is weighed by its mean); what they give
/// is summed in any weight.
#[derive(Clone, Debug)]
pub struct Chances {
    /// Per kind: its values, each face's value, and its faces.
    kinds: Vec<(Vec<u64>, Vec<usize>, u64)>,
    /// Dice of each kind.
    per_kind: Vec<usize>,
    /// Per initial roll with a chance: the roll (a count per kind and value), the dice
    /// re-rolled per kind, and the sum of the faces kept.
    takes: Vec<(Vec<Vec<u8>>, Vec<u8>, u64)>,
}

impl Chances {
    /// Each kind's values' chances: a face's `1/n` summed over the faces that show it.
    fn value_chances<W: Prob>(&self) -> Vec<Vec<W>> {
        self.kinds
            .iter()
            .map(|(values, face_value, n)| {
                let mut p = vec![W::zero(); values.len()];
                for &i in face_value {
                    p[i] += W::ratio(1, *n);
                }
                p
            })
            .collect()
    }

    /// The distribution over `res`'s states after the re-rolls, in weight `W`; `sums`
    /// holds the re-rolled dice's summed faces already made (the plan's own, in floats).
    pub fn exact_in<W: Prob>(
        &self,
        res: &Resolver,
        sums: &mut HashMap<u128, Vec<(u64, W)>>,
    ) -> Vec<W> {
        let p = self.value_chances::<W>();
        let kinds: Vec<(&[u64], &[W])> = self
            .kinds
            .iter()
            .zip(&p)
            .map(|((values, _, _), p)| (&values[..], &p[..]))
            .collect();
        let mut exact = vec![W::zero(); res.states];
        for (roll, counts, kept) in &self.takes {
            let mut prob = W::one();
            for (k, counts) in roll.iter().enumerate() {
                let mut left = self.per_kind[k];
                for (v, &c) in counts.iter().enumerate() {
                    prob = prob * (choose::<W>(left, c as usize) * p[k][v].pow(u32::from(c)));
                    left -= c as usize;
                }
            }
            let sums = sums
                .entry(packed(counts))
                .or_insert_with(|| rerolled_in(res, &kinds, counts));
            for (x, q) in sums.iter() {
                exact[res.state(kept + x)] += prob.clone() * q.clone();
            }
        }
        exact
    }
}

/// The summed faces of `counts` dice re-rolled per kind (each kind's values and their
/// chances), in weight `W`: one die at a time, canonical sums.
fn rerolled_in<W: Prob>(res: &Resolver, kinds: &[(&[u64], &[W])], counts: &[u8]) -> Vec<(u64, W)> {
    let mut acc: Vec<(u64, W)> = vec![(0, W::one())];
    for (&(values, p), &c) in kinds.iter().zip(counts) {
        let one: Vec<(u64, W)> = values
            .iter()
            .zip(p)
            .map(|(&v, q)| (res.canonical(v), q.clone()))
            .collect();
        for _ in 0..c {
            acc = add_in(res, &acc, &one);
        }
    }
    acc
}

/// Two independent sums of faces added, in weight `W` (sorted, canonical).
fn add_in<W: Prob>(res: &Resolver, a: &[(u64, W)], b: &[(u64, W)]) -> Vec<(u64, W)> {
    let mut m: HashMap<u64, W> = HashMap::default();
    for (x, p) in a {
        for (y, q) in b {
            *m.entry(res.canonical(x + y)).or_insert_with(W::zero) += p.clone() * q.clone();
        }
    }
    let mut v: Vec<(u64, W)> = m.into_iter().collect();
    v.sort_unstable_by_key(|e| e.0);
    v
}

/// A kind of die: its distinct packed faces and their probabilities.
struct Kind {
    /// Its faces.
    faces: u64,
    values: Vec<u64>,
    p: Vec<f64>,
    /// For each face index, its value index.
    face_value: Vec<usize>,
    /// Values "better than average" (damage above the die's mean), for Dodge's rule.
    good: Vec<bool>,
    miss: Vec<bool>,
}

/// Sparse distribution over summed (canonical) packed faces.
type Sparse = Vec<(u64, f64)>;

/// All count vectors of `k` dice over `v` values, in a fixed order.
fn compositions(k: usize, v: usize) -> Vec<Vec<u8>> {
    if v == 1 {
        return vec![vec![k as u8]];
    }
    let mut out = Vec::new();
    for first in 0..=k {
        for mut rest in compositions(k - first, v - 1) {
            rest.insert(0, first as u8);
            out.push(rest);
        }
    }
    out
}

fn choose<W: Prob>(n: usize, k: usize) -> W {
    (0..k).fold(W::one(), |acc, j| {
        (acc * W::ratio((n - j) as u64, 1)).over((j + 1) as u64)
    })
}

struct Setup<'a> {
    res: &'a Resolver,
    kinds: Vec<Kind>,
    /// Kind of each die, in roll order.
    die_kind: Vec<usize>,
    objective: Objective,
    wounds: usize,
    /// The target's blocks (defence dice), `[1.0]` without them.
    blocks: Vec<f64>,
    /// Distribution of the summed faces of a set of re-rolled dice (count per kind,
    /// packed by [`packed`]).
    cache: HashMap<u128, Sparse>,
    /// Worth of (kept sum, re-rolled counts packed).
    worth: HashMap<(u64, u128), f64>,
}

/// Dice per kind as one word, a byte a kind: the caches' key, without an allocation in
/// the loop that weighs every re-roll of every roll. An attack has at most 16 dice.
fn packed(counts: &[u8]) -> u128 {
    debug_assert!(counts.len() <= 16);
    counts.iter().fold(0u128, |acc, &c| (acc << 8) | c as u128)
}

impl Setup<'_> {
    /// The objective's expectation for an attack state, over the target's defence dice
    /// (blocks taken off a hit's damage).
    fn objective(&self, state: usize) -> f64 {
        if state < 2 {
            return 0.0;
        }
        self.blocks
            .iter()
            .enumerate()
            .map(|(b, &q)| {
                let dmg = self.res.damage(state).saturating_sub(b);
                q * match self.objective {
                    Objective::Damage => dmg as f64,
                    Objective::Kill => (dmg >= self.wounds) as u8 as f64,
                }
            })
            .sum()
    }

    fn rerolled(&mut self, counts: &[u8]) -> Sparse {
        if let Some(s) = self.cache.get(&packed(counts)) {
            return s.clone();
        }
        let kinds: Vec<(&[u64], &[f64])> = self
            .kinds
            .iter()
            .map(|k| (&k.values[..], &k.p[..]))
            .collect();
        let acc = rerolled_in(self.res, &kinds, counts);
        self.cache.insert(packed(counts), acc.clone());
        acc
    }

    /// Expected objective when `kept` stays and `counts` dice per kind are re-rolled.
    fn worth(&mut self, kept: u64, counts: &[u8]) -> f64 {
        let key = (self.res.canonical(kept), packed(counts));
        if let Some(&w) = self.worth.get(&key) {
            return w;
        }
        let w = self
            .rerolled(counts)
            .iter()
            .map(|&(a, p)| p * self.objective(self.res.state(kept + a)))
            .sum();
        self.worth.insert(key, w);
        w
    }
}

/// The attack's re-roll policy worked out for every roll, and its exact distribution.
pub fn plan(a: &Attack, res: &Resolver) -> Plan {
    let dice = a.dice();
    let (kinds, die_kind) = kinds_of(&dice, res);
    let per_kind: Vec<usize> = (0..kinds.len())
        .map(|k| die_kind.iter().filter(|&&x| x == k).count())
        .collect();
    let mut s = Setup {
        res,
        kinds,
        die_kind,
        objective: a.objective,
        wounds: a.wounds as usize,
        blocks: a.target.blocks(),
        cache: HashMap::default(),
        worth: HashMap::default(),
    };
    let reroll = a.reroll();
    let mut takes = Vec::new();
    let mut decisions: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for roll in canonical_rolls(&per_kind, &s.kinds) {
        let mut prob = 1.0;
        for (k, counts) in roll.iter().enumerate() {
            let mut left = per_kind[k];
            for (v, &c) in counts.iter().enumerate() {
                prob *= choose::<f64>(left, c as usize) * s.kinds[k].p[v].powi(c as i32);
                left -= c as usize;
            }
        }
        if prob == 0.0 {
            continue;
        }
        let take = take_of(&mut s, &roll, reroll);
        let mut kept = 0u64;
        for (k, counts) in roll.iter().enumerate() {
            for (v, &c) in counts.iter().enumerate() {
                kept += (c - take[k][v]) as u64 * s.kinds[k].values[v];
            }
        }
        let counts: Vec<u8> = take.iter().map(|o| o.iter().sum()).collect();
        // The take has the roll's shape: it re-rolls something where a count is not 0.
        if counts.iter().any(|&c| c != 0) {
            decisions.push((roll.concat(), take.concat()));
        }
        takes.push((roll, counts, kept));
    }
    let chances = Chances {
        kinds: s
            .kinds
            .iter()
            .map(|k| (k.values.clone(), k.face_value.clone(), k.faces))
            .collect(),
        per_kind,
        takes,
    };
    let exact = chances.exact_in::<f64>(res, &mut s.cache);
    debug_assert!(exact[MISS] >= 0.0);
    Plan {
        rerolls: Rerolls::new(&dice, &s, decisions),
        exact,
        chances,
    }
}

/// The attack's dice by kind: each kind's values (faces the resolver cannot tell apart
/// are one value) and their chances, and each die's kind.
fn kinds_of(dice: &[Die], res: &Resolver) -> (Vec<Kind>, Vec<usize>) {
    let mut kinds: Vec<Kind> = Vec::new();
    let mut kind_faces: Vec<Vec<u64>> = Vec::new();
    let mut die_kind = Vec::new();
    for d in dice {
        let packed: Vec<u64> = d.faces.iter().map(pack).collect();
        let k = match kind_faces.iter().position(|f| *f == packed) {
            Some(k) => k,
            None => {
                let mut values: Vec<u64> = Vec::new();
                let mut face_value = Vec::new();
                for &f in &packed {
                    let c = res.canonical(f);
                    let i = values.iter().position(|&v| v == c).unwrap_or_else(|| {
                        values.push(c);
                        values.len() - 1
                    });
                    face_value.push(i);
                }
                let n = packed.len() as f64;
                let mut p = vec![0.0; values.len()];
                for &i in &face_value {
                    p[i] += 1.0 / n;
                }
                let mean: f64 = d.faces.iter().map(|f| f.damage as f64).sum::<f64>() / n;
                let good = values
                    .iter()
                    .map(|&v| (((v >> 16) & 0xff) as f64) > mean && v & 0xff == 0)
                    .collect();
                let miss = values.iter().map(|&v| v & 0xff != 0).collect();
                kinds.push(Kind {
                    faces: packed.len() as u64,
                    values,
                    p,
                    face_value,
                    good,
                    miss,
                });
                kind_faces.push(packed);
                kinds.len() - 1
            }
        };
        die_kind.push(k);
    }
    (kinds, die_kind)
}

/// Every canonical roll: a composition of each kind's dice over its values.
fn canonical_rolls(per_kind: &[usize], kinds: &[Kind]) -> Vec<Vec<Vec<u8>>> {
    let mut rolls: Vec<Vec<Vec<u8>>> = vec![Vec::new()];
    for (k, &count) in per_kind.iter().enumerate() {
        let comps = compositions(count, kinds[k].values.len());
        rolls = rolls
            .into_iter()
            .flat_map(|r| {
                comps.iter().map(move |c| {
                    let mut r = r.clone();
                    r.push(c.clone());
                    r
                })
            })
            .collect();
    }
    rolls
}

/// The dice of one canonical roll (per kind and value, how many) its re-roll takes.
fn take_of(s: &mut Setup, roll: &[Vec<u8>], reroll: Reroll) -> Vec<Vec<u8>> {
    let none = || -> Vec<Vec<u8>> { roll.iter().map(|c| vec![0; c.len()]).collect() };
    let shows_miss = roll.iter().enumerate().any(|(k, c)| {
        c.iter()
            .enumerate()
            .any(|(v, &n)| n > 0 && s.kinds[k].miss[v])
    });
    let rule = |good: &dyn Fn(usize, usize) -> bool| -> Vec<Vec<u8>> {
        roll.iter()
            .enumerate()
            .map(|(k, c)| {
                c.iter()
                    .enumerate()
                    .map(|(v, &n)| if good(k, v) { n } else { 0 })
                    .collect()
            })
            .collect()
    };
    match reroll {
        Reroll::None | Reroll::Aim(Policy::KeepAll) | Reroll::Dodge(Policy::KeepAll) => none(),
        Reroll::Aim(Policy::MissesOnly) => rule(&|k, v| s.kinds[k].miss[v]),
        Reroll::Dodge(Policy::MissesOnly) if shows_miss => none(),
        Reroll::Dodge(Policy::MissesOnly) => rule(&|k, v| s.kinds[k].good[v]),
        // A kept miss face makes the attack miss: Dodge keeps it, for nothing is
        // lower; Aim re-rolls it, for nothing is lower than keeping it.
        Reroll::Dodge(Policy::Optimal) if shows_miss => none(),
        Reroll::Aim(Policy::Optimal) | Reroll::Dodge(Policy::Optimal) => {
            let aim = matches!(reroll, Reroll::Aim(_));
            best_take(s, roll, aim).unwrap_or_else(none)
        }
    }
}

/// The best re-roll of one canonical roll (per kind and value, how many to re-roll): the
/// highest worth for an Aim, the lowest for a Dodge. Every choice is weighed in
/// lexicographic order (the first value's count most significant, each ascending), and
/// ties keep the earlier (fewer re-rolls first). Aim re-rolls every miss face, for
/// nothing is lower than keeping one. The choices are an odometer over one flat array,
/// as this loop is most of an exact balance search's time.
fn best_take(s: &mut Setup, roll: &[Vec<u8>], aim: bool) -> Option<Vec<Vec<u8>>> {
    let mut slot_kind = Vec::new();
    let mut slot_value = Vec::new();
    let mut high = Vec::new();
    let mut low = Vec::new();
    for (k, counts) in roll.iter().enumerate() {
        for (v, &n) in counts.iter().enumerate() {
            slot_kind.push(k);
            slot_value.push(s.kinds[k].values[v]);
            high.push(n);
            low.push(if aim && s.kinds[k].miss[v] { n } else { 0 });
        }
    }
    let mut opt = low.clone();
    let mut best: Option<(f64, Vec<u8>)> = None;
    let mut counts = [0u8; 16];
    let kinds = roll.len();
    loop {
        let mut kept = 0u64;
        counts[..kinds].iter_mut().for_each(|c| *c = 0);
        for i in 0..opt.len() {
            kept += (high[i] - opt[i]) as u64 * slot_value[i];
            counts[slot_kind[i]] += opt[i];
        }
        let w = s.worth(kept, &counts[..kinds]);
        // Strictly better only: ties keep the earlier choice (fewer re-rolls).
        let better = match &best {
            None => true,
            Some((b, _)) if aim => w > *b + 1e-12,
            Some((b, _)) => w < *b - 1e-12,
        };
        if better {
            match &mut best {
                Some((bw, bo)) => {
                    *bw = w;
                    bo.copy_from_slice(&opt);
                }
                None => best = Some((w, opt.clone())),
            }
        }
        // The next choice: the last slot turns fastest.
        let mut i = opt.len();
        loop {
            if i == 0 {
                let (_, flat) = best?;
                let mut it = flat.into_iter();
                return Some(
                    roll.iter()
                        .map(|c| it.by_ref().take(c.len()).collect())
                        .collect(),
                );
            }
            i -= 1;
            if opt[i] < high[i] {
                opt[i] += 1;
                break;
            }
            opt[i] = low[i];
        }
    }
}

/// Which dice each initial roll re-rolls, kept as the choices per canonical roll: the
/// mask of every initial roll (6^8 of them for 8 dice) is made only when the sampler
/// first rolls, for an exact-only run never does (the masks were two thirds of an exact
/// `compare` of Aim against power dice). Hashed as these choices, which are all a
/// mask table is made from.
#[derive(Clone, Debug, Hash)]
pub struct Rerolls {
    /// Faces of each die, in roll order.
    sides: Vec<usize>,
    /// Die `i` showing face `f`: its value slot (a kind's values numbered after the
    /// kinds' before it), at `i * stride + f`.
    slot: Vec<usize>,
    stride: usize,
    /// Value slots in all.
    width: usize,
    /// Per canonical roll that re-rolls something (its dice per value slot), how many
    /// dice of each slot it re-rolls; in the order the rolls were weighed.
    choices: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Rerolls {
    fn new(dice: &[Die], s: &Setup, choices: Vec<(Vec<u8>, Vec<u8>)>) -> Rerolls {
        let mut offset = Vec::with_capacity(s.kinds.len());
        let mut width = 0;
        for k in &s.kinds {
            offset.push(width);
            width += k.values.len();
        }
        let stride = dice.iter().map(|d| d.faces.len()).max().unwrap_or(0);
        let mut slot = vec![0; dice.len() * stride];
        for (i, &k) in s.die_kind.iter().enumerate() {
            for (f, &v) in s.kinds[k].face_value.iter().enumerate() {
                slot[i * stride + f] = offset[k] + v;
            }
        }
        Rerolls {
            sides: dice.iter().map(|d| d.faces.len()).collect(),
            slot,
            stride,
            width,
            choices,
        }
    }

    /// The re-roll mask of every initial roll (faces as base-`sides` digits, first die
    /// most significant; bit `i` set when die `i` is re-rolled); empty when no roll
    /// re-rolls anything. The rolls are walked in order, the last die turning fastest,
    /// each die's value slot counted in and out as its face turns, and the counts'
    /// Zobrist hash with them: a roll's choice is found by one word, not by hashing its
    /// counts again (the lookup was most of the time).
    pub fn masks(&self) -> Vec<u16> {
        if self.choices.is_empty() {
            return Vec::new();
        }
        let n = self.sides.len();
        // Every (slot, count) its random word; a roll's hash is the XOR of its slots'.
        let words: Vec<u64> = (0..self.width * (n + 1))
            .map(|i| crate::kernels::mix64(i as u64))
            .collect();
        let word = |slot: usize, count: u8| words[slot * (n + 1) + count as usize];
        let hash = |counts: &[u8]| {
            counts
                .iter()
                .enumerate()
                .fold(0u64, |h, (slot, &c)| h ^ word(slot, c))
        };
        // Two choices whose hashes meet share a bucket; each is checked against the roll.
        let mut find: HashMap<u64, Vec<usize>> = HashMap::default();
        for (i, (counts, _)) in self.choices.iter().enumerate() {
            find.entry(hash(counts)).or_default().push(i);
        }
        let total: usize = self.sides.iter().product();
        let mut out = vec![0u16; total];
        let mut faces = vec![0usize; n];
        let mut counts = vec![0u8; self.width];
        let mut h = hash(&counts);
        let turn = |counts: &mut [u8], h: &mut u64, slot: usize, up: bool| {
            *h ^= word(slot, counts[slot]);
            counts[slot] = if up {
                counts[slot] + 1
            } else {
                counts[slot] - 1
            };
            *h ^= word(slot, counts[slot]);
        };
        for i in 0..n {
            turn(&mut counts, &mut h, self.slot[i * self.stride], true);
        }
        let mut left = Vec::with_capacity(self.width);
        for mask in out.iter_mut() {
            let take = find.get(&h).and_then(|bucket| {
                bucket
                    .iter()
                    .map(|&c| &self.choices[c])
                    .find(|(of, _)| *of == counts)
            });
            if let Some((_, take)) = take {
                // Re-roll the first dice (in roll order) showing each value to re-roll.
                left.clear();
                left.extend_from_slice(take);
                for (i, &face) in faces.iter().enumerate() {
                    let v = self.slot[i * self.stride + face];
                    if left[v] > 0 {
                        left[v] -= 1;
                        *mask |= 1 << i;
                    }
                }
            }
            for i in (0..n).rev() {
                turn(
                    &mut counts,
                    &mut h,
                    self.slot[i * self.stride + faces[i]],
                    false,
                );
                faces[i] = (faces[i] + 1) % self.sides[i];
                turn(
                    &mut counts,
                    &mut h,
                    self.slot[i * self.stride + faces[i]],
                    true,
                );
                if faces[i] != 0 {
                    break;
                }
            }
        }
        out
    }
}
