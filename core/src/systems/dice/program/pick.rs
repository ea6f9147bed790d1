//! Dice of one roll picked into roles: `choose total = 2, effect = 1 from [1d10, 2d8,
//! 1d6] only >= 2 to maximise total sum * 100 + effect sides` (Cortex: two dice for the
//! total, another for the effect die, whose size counts, not its face).
//!
//! The dice keep their size, so a pick tells a d10 showing 4 from a d8 showing 4. Every
//! way to hand the allowed dice out (each role in order takes as many as it asks for,
//! while there are dice left) is tried on the roll in front of the player, and the best
//! for the objective kept: the objective reads only the roles and numbers, so it is a
//! number for each way, and the same choice is made by Monte Carlo on the dice it rolls
//! and by the exact engine on every roll it goes through.

use super::super::lang::{Cond, Goal};
use super::{sample, DieSpec, Node, Scratch};
use crate::kernels::Rng;

/// Most dice one pick looks at.
pub const MAX_DICE: u32 = 12;
/// Most ways to hand out one roll (every die distinct): each is an evaluation of the
/// objective, per roll in both engines (Cortex's four dice: 12; nine dice, a pair and
/// one: 252, about 15 µs a Monte Carlo trial).
pub const MAX_WAYS: u64 = 300;

/// Rolls a sampler remembers the hand-out of, per scratch; past it they are weighed
/// afresh.
const PICKS: usize = 1 << 16;

/// How many ways `n` distinct dice are handed to roles taking `ks` in order.
pub fn ways(n: u32, ks: &[u32]) -> u64 {
    let mut left = n as u64;
    let mut total = 1u64;
    for &k in ks {
        let k = (k as u64).min(left);
        let mut c = 1u64;
        for i in 0..k {
            c = c * (left - i) / (i + 1);
        }
        total = total.saturating_mul(c);
        left -= k;
    }
    total
}

/// A compiled pick.
#[derive(Clone, Debug, PartialEq)]
pub struct Picker {
    /// Per group: its count and its die.
    pub groups: Vec<(u32, DieSpec)>,
    /// The dice that may be picked (Cortex: not the 1s).
    pub only: Option<Cond>,
    /// Per role: how many dice it takes and where they sit in the scratch.
    pub roles: Vec<(u32, usize)>,
    /// Whether the objective is pushed up or down.
    pub goal: Goal,
    /// Reads the roles (at scope depths `depth..depth + roles`) and numbers only.
    pub objective: Node,
    /// What is read once the dice are handed out (the objective when none is written).
    pub body: Node,
    /// The scope depth of the first role.
    pub depth: usize,
}

/// A die as picked: its face and its number of sides.
pub type Die = (i64, i64);

/// Where a hand-out is: the dice taken, each role's dice so far (masks of the sorted
/// dice), the best way found and its objective.
struct At<'a> {
    taken: &'a mut [bool; MAX_DICE as usize],
    current: &'a mut [u16; 3],
    best: &'a mut Option<(i64, [u16; 3])>,
    rng: &'a mut Rng,
}

/// What a role's number slot (its largest die's sides) can be, handed dice of these
/// groups: none, up to the most sides among them.
pub fn sides_bounds(groups: &[(u32, DieSpec)]) -> (i64, i64) {
    let most = groups.iter().map(|(_, d)| d.faces.len()).max().unwrap_or(0);
    (0, most as i64)
}

impl Picker {
    /// What a role's number slot (its largest die's sides) can be.
    pub fn sides_bounds(&self) -> (i64, i64) {
        sides_bounds(&self.groups)
    }

    /// Whether a die may be picked.
    pub fn allowed(&self, face: i64, d: &DieSpec) -> bool {
        self.only.is_none_or(|c| c.holds(face, d.lo(), d.hi()))
    }

    /// Roll the dice as written, then hand them out the best way into the scratch.
    pub fn play(&self, rng: &mut Rng, s: &mut Scratch) {
        let mut dice = [(0i64, 0i64); MAX_DICE as usize];
        let mut n = 0;
        for (count, d) in &self.groups {
            for _ in 0..*count {
                let f = d.roll(rng);
                if self.allowed(f, d) {
                    dice[n] = (f, d.faces.len() as i64);
                    n += 1;
                }
            }
        }
        let dice = &mut dice[..n];
        // Sorted (as `choose` sorts them), then packed, a die to 16 bits, when every
        // face and size fits a byte: sides are at least 1, so no die packs to zero and
        // rolls of different lengths differ.
        dice.sort_unstable();
        let small = |&(f, z): &Die| (0..256).contains(&f) && (1..256).contains(&z);
        if n > 8 || !dice.iter().all(small) {
            return self.choose(dice, s);
        }
        let key = dice
            .iter()
            .fold(0u128, |k, &(f, z)| k << 16 | (f as u128) << 8 | z as u128);
        let id = (self as *const Picker as usize, key);
        let masks = match s.picks.get(&id) {
            Some(m) => *m,
            None => {
                let m = self.best(dice, s);
                if s.picks.len() >= PICKS {
                    s.picks.clear();
                }
                s.picks.insert(id, m);
                m
            }
        };
        self.write(dice, &masks, s);
    }

    /// The best way to hand out `dice` (the allowed ones), written into the scratch:
    /// each role's faces sorted at its offset, its length and its largest die's sides.
    pub fn choose(&self, dice: &mut [Die], s: &mut Scratch) {
        // Sorted, so that equal dice sit together and a way that differs only by which
        // of two equal dice a role took is tried once.
        dice.sort_unstable();
        let masks = self.best(dice, s);
        self.write(dice, &masks, s);
    }

    /// The masks of the best way to hand out sorted `dice` (the scratch is written
    /// while ways are tried).
    fn best(&self, dice: &[Die], s: &mut Scratch) -> [u16; 3] {
        let mut taken = [false; MAX_DICE as usize];
        let mut best: Option<(i64, [u16; 3])> = None;
        let mut current = [0u16; 3];
        // The objective rolls nothing: this generator is never drawn from.
        let rng = &mut <Rng as rand::SeedableRng>::seed_from_u64(0);
        let mut at = At {
            taken: &mut taken,
            current: &mut current,
            best: &mut best,
            rng,
        };
        self.hand_out(dice, 0, &mut at, s);
        best.map_or([0; 3], |b| b.1)
    }

    /// Role `r` and after: every way, each role a combination of the dice not taken.
    fn hand_out(&self, dice: &[Die], r: usize, at: &mut At, s: &mut Scratch) {
        if r == self.roles.len() {
            self.write(dice, at.current, s);
            let v = sample(&self.objective, at.rng, s, self.depth + self.roles.len());
            // Compared, not negated: the lowest value has no negation.
            let better = |b: i64| match self.goal {
                Goal::Maximise => v > b,
                Goal::Minimise => v < b,
            };
            if at.best.is_none_or(|b| better(b.0)) {
                *at.best = Some((v, *at.current));
            }
            return;
        }
        let mut left = [0usize; MAX_DICE as usize];
        let mut n = 0;
        for i in (0..dice.len()).filter(|&i| !at.taken[i]) {
            left[n] = i;
            n += 1;
        }
        let k = (self.roles[r].0 as usize).min(n);
        combinations(dice, &left[..n], k, 0, 0, &mut |mask| {
            for (i, t) in at.taken.iter_mut().enumerate().take(dice.len()) {
                if mask & (1 << i) != 0 {
                    *t = true;
                }
            }
            at.current[r] = mask;
            self.hand_out(dice, r + 1, at, s);
            for (i, t) in at.taken.iter_mut().enumerate().take(dice.len()) {
                if mask & (1 << i) != 0 {
                    *t = false;
                }
            }
        });
        at.current[r] = 0;
    }

    /// The roles' dice, as `masks` of `dice` say, into the scratch.
    fn write(&self, dice: &[Die], masks: &[u16; 3], s: &mut Scratch) {
        for (r, &(_, offset)) in self.roles.iter().enumerate() {
            s.room(offset + dice.len());
            let (mut len, mut sides) = (0, 0);
            for (i, &(f, sz)) in dice.iter().enumerate() {
                if masks[r] & (1 << i) != 0 {
                    s.dice[offset + len] = f;
                    len += 1;
                    sides = sides.max(sz);
                }
            }
            super::sort_dice(&mut s.dice[offset..offset + len]);
            s.vars[self.depth + r] = sides;
            s.lens[self.depth + r] = len;
        }
    }

    /// The roles as the scratch holds them: per role its faces (sorted) and its largest
    /// die's sides, the exact engine's key for one outcome.
    pub fn read_back(&self, s: &Scratch) -> Vec<(Vec<i64>, i64)> {
        self.roles
            .iter()
            .enumerate()
            .map(|(r, &(_, offset))| {
                let len = s.lens[self.depth + r];
                (
                    s.dice[offset..offset + len].to_vec(),
                    s.vars[self.depth + r],
                )
            })
            .collect()
    }

    /// Every roll of the dice (each group a multiset of its die's values), the allowed
    /// dice of it with their sizes, and its probability.
    pub fn rolls(&self, dists: &[Vec<(i64, f64)>], visit: &mut dyn FnMut(&mut Vec<Die>, f64)) {
        /// Where the walk is: the group, the value of its die, its dice not yet given a
        /// value.
        struct At {
            g: usize,
            j: usize,
            left: u32,
        }
        fn walk(
            p: &Picker,
            dists: &[Vec<(i64, f64)>],
            at: At,
            prob: f64,
            dice: &mut Vec<Die>,
            visit: &mut dyn FnMut(&mut Vec<Die>, f64),
        ) {
            let At { g, j, left } = at;
            if g == p.groups.len() {
                let mut allowed: Vec<Die> = dice.clone();
                visit(&mut allowed, prob);
                return;
            }
            let (n, d) = &p.groups[g];
            let vals = &dists[g];
            // The last value takes the group's dice that are left.
            let last = j == vals.len() - 1 || left == 0;
            let (v, q) = vals[j];
            let counts = if last { left..=left } else { 0..=left };
            for c in counts.rev() {
                let len = dice.len();
                if p.allowed(v, d) {
                    dice.extend(std::iter::repeat_n((v, d.faces.len() as i64), c as usize));
                }
                let mut w = prob * q.powi(c as i32);
                for i in 2..=c {
                    w /= i as f64;
                }
                let next = if last {
                    // n! / (prod c!) for the group, its c!s divided out above.
                    w *= (2..=*n).map(|i| i as f64).product::<f64>();
                    At {
                        g: g + 1,
                        j: 0,
                        left: p.groups.get(g + 1).map_or(0, |x| x.0),
                    }
                } else {
                    At {
                        g,
                        j: j + 1,
                        left: left - c,
                    }
                };
                walk(p, dists, next, w, dice, visit);
                dice.truncate(len);
            }
        }
        let left = self.groups.first().map_or(0, |g| g.0);
        walk(
            self,
            dists,
            At { g: 0, j: 0, left },
            1.0,
            &mut Vec::new(),
            visit,
        );
    }
}

/// Every combination of `k` of the dice at positions `left` from `from` on, as a mask,
/// skipping a die equal to the one before it at the same step (one way per distinct
/// hand).
fn combinations(
    dice: &[Die],
    left: &[usize],
    k: usize,
    from: usize,
    mask: u16,
    visit: &mut dyn FnMut(u16),
) {
    if k == 0 {
        visit(mask);
        return;
    }
    let mut prev: Option<Die> = None;
    for a in from..left.len() {
        if left.len() - a < k {
            break;
        }
        let die = dice[left[a]];
        if prev == Some(die) {
            continue;
        }
        prev = Some(die);
        combinations(dice, left, k - 1, a + 1, mask | (1 << left[a]), visit);
    }
}
