//! The duel to casualty: two characters, activations drawn from the dice bag, each
//! activation a charge and (by `second_charge`) a second one, until one has 0 HP.
//!
//! Exactly, the duel is an absorbing Markov chain over (HP of A, HP of B). One charge's
//! outcome is the order-statistics hit distribution of [`super::melee::hits`] pushed
//! through the armour roll; an activation chains up to two charges and stops at a
//! casualty. Stepping the chain one activation at a time gives both the absorption
//! probabilities and the distribution of the duel's length. A duel longer than
//! `max_activations` is stopped and its mass reported, so two characters who cannot
//! hurt each other end with every trial "unfinished" instead of a hang.

use super::melee::{hits, melee_dice, resolve};
use super::{injured, BagDraw, Character, InjuredGreen, Rules, SecondCharge};
use crate::cancel::Cancel;
use crate::kernels::{roll_die, Digits, Rng};
use crate::model::{Chart, Compiled, Headline, Metric, Trial};
use crate::pmf::{Prob, Ratio};
use crate::systems::dozen::d12::{count_ge, faces, pack, pow12, Pool, Stream};
use rand::Rng as _;

/// One charge's effect: `win[j]` = P(the attacker wins and the defender loses j HP),
/// `lose[j]` = P(the defender wins and the attacker loses j HP), `none` = no hits.
#[derive(Clone, Debug)]
pub struct Charge<W = f64> {
    /// By HP the defender loses (after armour): P(the attacker wins and it loses that many).
    pub win: Vec<W>,
    /// By HP the attacker loses: P(the defender wins and it loses that many).
    pub lose: Vec<W>,
    /// P(no die stands on either side).
    pub none: W,
}

/// The targets of one character charging another.
#[derive(Clone, Copy, Debug)]
struct Fighter {
    dice: u32,
    target: u32,
    /// Effective armour class.
    ac: u32,
    hp: u32,
}

fn fighter(c: &Character, rules: &Rules) -> Fighter {
    Fighter {
        dice: melee_dice(c, 0),
        target: rules.target(c.melee_target() as i32),
        ac: rules.target(c.ac() as i32),
        hp: c.hp(),
    }
}

fn charge<W: Prob>(att: &Fighter, def: &Fighter) -> Charge<W> {
    let h = hits::<W>(att.dice, att.target, def.dice, def.target);
    let through =
        |k: usize, ac: u32| W::binomial(k as u32, &(W::one() - W::ratio(u64::from(ac), 12))).0;
    let mut win = vec![W::zero(); att.dice as usize + 1];
    for (k, p) in h.win.iter().enumerate().skip(1) {
        for (j, q) in through(k, def.ac).into_iter().enumerate() {
            win[j] += p.clone() * q;
        }
    }
    let mut lose = vec![W::zero(); def.dice as usize + 1];
    for (k, p) in h.lose.iter().enumerate().skip(1) {
        for (j, q) in through(k, att.ac).into_iter().enumerate() {
            lose[j] += p.clone() * q;
        }
    }
    Charge {
        win,
        lose,
        none: h.none,
    }
}

/// The end states of one activation by the side with `hx` HP against the side with `hy`,
/// with `orders` orders left: ((hx', hy'), p), accumulated into `out`.
fn activation<W: Prob>(
    c: &Charge<W>,
    second: SecondCharge,
    (hx, hy): (u32, u32),
    orders: u32,
    p: &W,
    out: &mut Vec<((u32, u32), W)>,
) {
    let again_after_win = orders > 1 && second != SecondCharge::Never;
    let again_otherwise = orders > 1 && second == SecondCharge::Always;
    for (j, q) in c.win.iter().enumerate() {
        let y = hy.saturating_sub(j as u32);
        if q.is_zero() {
            continue;
        }
        let pq = p.clone() * q.clone();
        if y > 0 && again_after_win {
            activation(c, second, (hx, y), orders - 1, &pq, out);
        } else {
            out.push(((hx, y), pq));
        }
    }
    for (j, q) in c.lose.iter().enumerate() {
        let x = hx.saturating_sub(j as u32);
        if q.is_zero() {
            continue;
        }
        let pq = p.clone() * q.clone();
        if x > 0 && again_otherwise {
            activation(c, second, (x, hy), orders - 1, &pq, out);
        } else {
            out.push(((x, hy), pq));
        }
    }
    if c.none.is_positive() {
        let pn = p.clone() * c.none.clone();
        if again_otherwise {
            activation(c, second, (hx, hy), orders - 1, &pn, out);
        } else {
            out.push(((hx, hy), pn));
        }
    }
}

/// A duel's end: (activations, or None if stopped unfinished; HP of A; HP of B).
pub type End = (Option<usize>, usize, usize);

/// How duel states are numbered: finished duels by (activations, end), end in
/// `0..ha` = A won with end + 1 HP left, `ha..ha+hb` = B won with end - ha + 1 left;
/// then the unfinished ones by (HP of A, HP of B), both at least 1.
#[derive(Clone, Copy, Debug, Hash)]
pub struct Layout {
    /// A's starting HP.
    pub ha: usize,
    /// B's starting HP.
    pub hb: usize,
    /// `max_activations`: the longest duel counted as finished.
    pub max: usize,
}

impl Layout {
    /// How many states there are: finished duels of every length, then unfinished ones.
    pub fn states(&self) -> usize {
        self.max * (self.ha + self.hb) + self.ha * self.hb
    }
    /// The state of a duel that ends at activation `t` (1 to `max`) with one side at 0 HP.
    #[inline]
    pub fn finished(&self, t: usize, a_left: usize, b_left: usize) -> usize {
        let end = if b_left == 0 {
            a_left - 1
        } else {
            self.ha + b_left - 1
        };
        (t - 1) * (self.ha + self.hb) + end
    }
    /// The state of a duel stopped after `max` activations with both sides standing.
    #[inline]
    pub fn unfinished(&self, a_left: usize, b_left: usize) -> usize {
        self.max * (self.ha + self.hb) + (a_left - 1) * self.hb + (b_left - 1)
    }
    /// What a state number means, the inverse of [`Layout::finished`] and
    /// [`Layout::unfinished`].
    pub fn decode(&self, s: usize) -> End {
        let width = self.ha + self.hb;
        if s < self.max * width {
            let (t, end) = (s / width + 1, s % width);
            if end < self.ha {
                (Some(t), end + 1, 0)
            } else {
                (Some(t), 0, end - self.ha + 1)
            }
        } else {
            let u = s - self.max * width;
            (None, u / self.hb + 1, u % self.hb + 1)
        }
    }
}

/// Mass below which the chain stops: the remainder (at most this) stays "unfinished".
const NEGLIGIBLE_MASS: f64 = 1e-200;

/// A duel's dice bag: each side's dice, and how many of them are green.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bag {
    /// Dice of A and of B in the bag, 1 to 100 each: their ratio sets who activates.
    pub dice: [u32; 2],
    /// How many of each side's dice are green (at most its `dice`).
    pub green: [u32; 2],
}

impl Bag {
    /// A bag of `dice` per side, `green` of them green.
    pub fn new(dice: [u32; 2], green: [u32; 2]) -> Self {
        Bag { dice, green }
    }

    /// Dice by kind: A's green, A's other, B's green, B's other.
    fn kinds(&self) -> [u32; 4] {
        [
            self.green[0],
            self.dice[0] - self.green[0],
            self.green[1],
            self.dice[1] - self.green[1],
        ]
    }
}

/// Whether a side with `hp` of `start` HP loses the activation a green die gives it.
fn green_lost(rules: &Rules, tough: bool, hp: u32, start: u32) -> bool {
    rules.injured_green == InjuredGreen::CannotActivate && !tough && injured(hp, start)
}

/// The kind of die a draw numbered `d` (from 0) picks out of `bag` (A's green, A's
/// other, B's green, B's other); a draw past the bag's dice is its last kind.
fn kind_of(bag: &[u32; 4], mut d: u32) -> usize {
    let mut k = 0;
    while k < 3 && d >= bag[k] {
        d -= bag[k];
        k += 1;
    }
    k
}

/// Per side: whether an injured character loses a green die's activation.
fn green_lost_of(rules: &Rules, a: &Character, b: &Character) -> [bool; 2] {
    [a, b].map(|c| rules.injured_green == InjuredGreen::CannotActivate && !tough(c))
}

/// The `toughness` skill cancels the injured character's green-dice rule.
fn tough(c: &Character) -> bool {
    c.skill("toughness") > 0
}

/// The exact distribution over [`Layout`] states.
pub fn exact(a: &Character, b: &Character, bag: Bag, max: u32, rules: &Rules) -> Vec<f64> {
    exact_in(a, b, bag, max, rules).unwrap_or_default()
}

/// Most units of work of the duel's chain in whole numbers: a transition taken at
/// activation `t` costs about `t` words (each activation adds a word or so to the
/// numbers). The dice language's law has the same budget: past it a duel has no
/// fraction, as a dice duel to the end over 100 rounds has none (a duel of 300
/// activations would have fractions of thousands of digits, megabytes in a table).
const RATIO_WORK: u64 = 15_000_000;

/// The bag's states between activations: with replacement one state (the full bag);
/// without, the dice of each kind still in it this round (never all 0: an empty bag is
/// refilled at once).
fn bags_of(full: [u32; 4], without: bool) -> Vec<[u32; 4]> {
    if without {
        let mut v = vec![[0u32; 4]];
        for (k, &n) in full.iter().enumerate() {
            v = v
                .into_iter()
                .flat_map(|b| {
                    (0..=n).map(move |c| {
                        let mut b = b;
                        b[k] = c;
                        b
                    })
                })
                .collect();
        }
        v.retain(|b| b.iter().sum::<u32>() > 0);
        v
    } else {
        vec![full]
    }
}

/// [`exact`] in any weight. Floats stop once the mass still fighting is below
/// [`NEGLIGIBLE_MASS`]; whole numbers go on to `max`, so that a fraction is the value
/// itself, and give None past [`RATIO_WORK`].
fn exact_in<W: Prob>(
    a: &Character,
    b: &Character,
    bag: Bag,
    max: u32,
    rules: &Rules,
) -> Option<Vec<W>> {
    let floats = !W::EXACT;
    let (fa, fb) = (fighter(a, rules), fighter(b, rules));
    let lay = Layout {
        ha: fa.hp as usize,
        hb: fb.hp as usize,
        max: max as usize,
    };
    let (ca, cb) = (charge::<W>(&fa, &fb), charge::<W>(&fb, &fa));
    let (ta, tb) = (tough(a), tough(b));
    let without = rules.bag_draw == BagDraw::WithoutReplacement;
    let full = bag.kinds();
    let bags = bags_of(full, without);
    let bag_index = |b: [u32; 4]| bags.iter().position(|&x| x == b).unwrap_or(0);
    let nb = bags.len();
    // After drawing a die of kind `k` from `b`: the bag left, refilled when empty.
    let after = |b: [u32; 4], k: usize| {
        let mut left = b;
        left[k] -= 1;
        if !without || left.iter().sum::<u32>() == 0 {
            bag_index(full)
        } else {
            bag_index(left)
        }
    };
    // Transient state (x, y, bag), x, y >= 1. Each transition goes to a transient state
    // or ends the duel: (target, is_end, p).
    let idx = |x: u32, y: u32, k: usize| ((x as usize - 1) * lay.hb + (y as usize - 1)) * nb + k;
    let mut trans: Vec<Vec<(usize, bool, W)>> = Vec::with_capacity(lay.ha * lay.hb * nb);
    let mut buf = Vec::new();
    for x in 1..=fa.hp {
        for y in 1..=fb.hp {
            for &b in &bags {
                let mut t: Vec<(usize, bool, W)> = Vec::new();
                let mut push = |nx: u32, ny: u32, k: usize, p: W| {
                    let (target, end) = if nx == 0 || ny == 0 {
                        (lay.finished(1, nx as usize, ny as usize), true)
                    } else {
                        (idx(nx, ny, k), false)
                    };
                    match t.iter_mut().find(|e| e.0 == target && e.1 == end) {
                        Some(e) => e.2 += p,
                        None => t.push((target, end, p)),
                    }
                };
                let total = b.iter().sum::<u32>();
                for (kind, &n) in b.iter().enumerate() {
                    if n == 0 {
                        continue;
                    }
                    let p = W::ratio(u64::from(n), u64::from(total));
                    let next = after(b, kind);
                    let green = kind % 2 == 0;
                    if kind < 2 {
                        if green && green_lost(rules, ta, x, fa.hp) {
                            push(x, y, next, p);
                            continue;
                        }
                        buf.clear();
                        activation(&ca, rules.second_charge, (x, y), 2, &p, &mut buf);
                        for ((nx, ny), q) in buf.drain(..) {
                            push(nx, ny, next, q);
                        }
                    } else {
                        if green && green_lost(rules, tb, y, fb.hp) {
                            push(x, y, next, p);
                            continue;
                        }
                        buf.clear();
                        activation(&cb, rules.second_charge, (y, x), 2, &p, &mut buf);
                        for ((ny, nx), q) in buf.drain(..) {
                            push(nx, ny, next, q);
                        }
                    }
                }
                trans.push(t);
            }
        }
    }
    if !floats {
        let steps: u64 = trans.iter().map(|t| t.len() as u64).sum();
        let max = lay.max as u64;
        if steps.saturating_mul(max).saturating_mul(max) / 2 > RATIO_WORK {
            return None;
        }
    }
    let mut out = vec![W::zero(); lay.states()];
    let mut dist = vec![W::zero(); lay.ha * lay.hb * nb];
    dist[idx(fa.hp, fb.hp, bag_index(full))] = W::one();
    let mut next = vec![W::zero(); dist.len()];
    let width = lay.ha + lay.hb;
    for t in 0..lay.max {
        next.iter_mut().for_each(|v| *v = W::zero());
        for (s, w) in dist.iter().enumerate() {
            if w.is_zero() {
                continue;
            }
            for (target, end, p) in &trans[s] {
                if *end {
                    // `target` was numbered for activation 1; shift to activation t + 1.
                    out[t * width + target] += w.clone() * p.clone();
                } else {
                    next[*target] += w.clone() * p.clone();
                }
            }
        }
        std::mem::swap(&mut dist, &mut next);
        if floats && dist.iter().map(W::to_f64).sum::<f64>() < NEGLIGIBLE_MASS {
            break;
        }
    }
    for x in 1..=lay.ha {
        for y in 1..=lay.hb {
            for k in 0..nb {
                out[lay.unfinished(x, y)] += dist[idx(x as u32, y as u32, k)].clone();
            }
        }
    }
    Some(out)
}

#[derive(Hash)]
struct DuelTrial {
    pools: [Pool; 2],
    ac: [u32; 2],
    hp: [u32; 2],
    /// All dice in the bag.
    bag_all: u32,
    /// The bag's dice by kind: A's green, A's other, B's green, B's other.
    kinds: [u32; 4],
    /// Per side: an injured character loses a green die's activation.
    green_lost: [bool; 2],
    /// A round empties the bag before it is refilled.
    without: bool,
    second: SecondCharge,
    lay: Layout,
    /// The table path, when the bag is drawn from with a d12 (its dice divide 12, drawn
    /// back each time) and each side rolls five dice or fewer.
    small: Option<Charges>,
    /// The side each face of a d12 bag die draws (0 for A, 1 for B), padded to 16 so
    /// the lookup needs no bounds check.
    bag_side: [u8; 16],
    /// Per face of a d12 bag die: 1 if it draws a green die whose activation the side
    /// loses when injured (the side's `green_lost`), else 0.
    bag_green: [u8; 16],
}

impl DuelTrial {
    /// One charge by `x` on `y`: whether `x` won, and HP left.
    #[inline]
    fn charge(&self, s: &mut Stream, rng: &mut Rng, x: usize, hp: &mut [u32; 2]) -> bool {
        let y = 1 - x;
        let xa = self.pools[x].roll(s, rng);
        let xd = self.pools[y].roll(s, rng);
        let (code, k) = resolve(xa, xd, self.pools[x].dice);
        if k == 0 {
            return false;
        }
        let (won, hit) = if code <= self.pools[x].dice {
            (true, y)
        } else {
            (false, x)
        };
        let lost = s.count_above(rng, k, self.ac[hit]);
        hp[hit] = hp[hit].saturating_sub(lost);
        won
    }
}

/// Both sides' charges read through tables, every die rolled: per side charging, the
/// packed roll of the charger's dice and of the target's (each as many digits of a word
/// as it has dice), and the HP an armour roll of as many dice as either side can lose
/// takes off, read for the first `hits` of them.
#[derive(Hash)]
struct Charges {
    /// Per side charging: `12^dice` of the charger, of the target, of the armour roll.
    pow: [[u64; 3]; 2],
    /// Per side charging: the charger's packed roll, the top face in bits 56.. .
    att: [Box<[u64]>; 2],
    /// Per side charging: the target's packed roll, the same way.
    def: [Box<[u64]>; 2],
    /// Per side charging, row `(target wins) * (k + 1) + hits`, `12^k` wide: HP lost by
    /// the side hit.
    lost: [Box<[u8]>; 2],
    /// Rows of `lost`: the most hits plus one.
    rows: usize,
    /// When both sides roll four dice or fewer together, per side charging (A's block,
    /// then B's, `12^(n + m)` each) and the charger's and the target's dice as one
    /// number: where the row of the outcome starts in `joint_lost`, and in bit 15
    /// whether the charger won. Every read of a charge is then the same whoever
    /// charges, so none waits on the bag draw; two bytes an entry halve what the cache
    /// holds.
    joint: Option<Box<[u16]>>,
    /// `lost` of A charging, then of B charging.
    joint_lost: Box<[u8]>,
    /// `12^(n + m)`.
    joint_pow: u64,
    /// Digits of the first word of an activation (the bag die and the first charge, and
    /// the second charge too when `one_word`), its `12^k` and rejection threshold.
    word: (u64, u64),
    one_word: bool,
    /// The second charge's word when it needs one of its own.
    second: (u64, u64),
}

/// The packed roll with its top face in bits 56.. (the packing itself uses 48 bits).
fn packed_top(faces: &[u32], target: u32) -> u64 {
    let p = pack(faces, target);
    p | (super::super::d12::top(p) as u64) << 56
}

impl Charges {
    /// `None` if a side rolls more than five dice (the tables would outgrow the cache).
    fn new(f: [&Fighter; 2]) -> Option<Charges> {
        if f.iter().any(|f| f.dice > 5) {
            return None;
        }
        let k = f[0].dice.max(f[1].dice);
        let rows = k as usize + 1;
        let table = |n: u32, target: u32| -> Box<[u64]> {
            (0..pow12(n))
                .map(|x| packed_top(&faces(x, n), target))
                .collect()
        };
        let side = |x: usize| {
            let (a, d) = (f[x], f[1 - x]);
            // Row (target wins, hits): the first `hits` armour dice above the AC of the
            // side hit (the target when the charger wins, else the charger).
            let lost: Box<[u8]> = (0..2 * rows)
                .flat_map(|row| {
                    let ac = if row / rows == 0 { d.ac } else { a.ac };
                    (0..pow12(k)).map(move |i| {
                        faces(i, k)[..row % rows]
                            .iter()
                            .filter(|&&v| v > ac)
                            .count() as u8
                    })
                })
                .collect();
            (table(a.dice, a.target), table(d.dice, d.target), lost)
        };
        let (s0, s1) = (side(0), side(1));
        let pk = pow12(k) as u32;
        let joint_side = |x: usize, att: &[u64], def: &[u64], at: u32| -> Vec<u16> {
            let (n, m) = (f[x].dice, f[1 - x].dice);
            (0..pow12(n + m))
                .map(|i| {
                    let (ea, ed) = (att[(i / pow12(m)) as usize], def[(i % pow12(m)) as usize]);
                    let (won, row) = Self::outcome(ea, ed, rows);
                    ((at + row as u32 * pk) | (won as u32) << 15) as u16
                })
                .collect()
        };
        let offsets_fit = 2 * s0.2.len() < 1 << 15;
        let joint = (f[0].dice + f[1].dice <= 4 && offsets_fit).then(|| {
            [
                joint_side(0, &s0.0, &s0.1, 0),
                joint_side(1, &s1.0, &s1.1, s0.2.len() as u32),
            ]
            .concat()
            .into()
        });
        let joint_lost = [&s0.2[..], &s1.2[..]].concat();
        let per_charge = f[0].dice + f[1].dice + k;
        let threshold = |d: u32| (pow12(d), pow12(d).wrapping_neg() % pow12(d));
        // The bag die and both charges: 17 base-12 digits fit a word.
        let activation = 1 + 2 * per_charge;
        let one_word = activation <= 17;
        Some(Charges {
            pow: [
                [pow12(f[0].dice), pow12(f[1].dice), pow12(k)],
                [pow12(f[1].dice), pow12(f[0].dice), pow12(k)],
            ],
            att: [s0.0, s1.0],
            def: [s0.1, s1.1],
            lost: [s0.2, s1.2],
            rows,
            joint,
            joint_lost: joint_lost.into(),
            joint_pow: pow12(f[0].dice + f[1].dice),
            word: threshold(if one_word {
                1 + 2 * per_charge
            } else {
                1 + per_charge
            }),
            one_word,
            second: threshold(per_charge),
        })
    }

    /// A word good for the digits `(12^d, threshold)` says.
    #[inline(always)]
    fn draw(rng: &mut Rng, (pow, reject): (u64, u64)) -> Digits {
        loop {
            let r = rng.next_u64();
            if r.wrapping_mul(pow) >= reject {
                return Digits::new(r);
            }
        }
    }

    /// The cancellation of packed rolls `ea` (the charger's) and `ed`, as
    /// [`resolve`] reads it: whether the charger won, and the row in `lost`.
    #[inline(always)]
    fn outcome(ea: u64, ed: u64, rows: usize) -> (bool, usize) {
        let (ma, md) = ((ea >> 56) as u32, (ed >> 56) as u32);
        let a_wins = (ma >= md) & (ma > 0);
        let d_wins = md > ma;
        let hits = a_wins as u32 * count_ge(ea, md) + d_wins as u32 * count_ge(ed, ma + 1);
        (a_wins, d_wins as usize * rows + hits as usize)
    }

    /// One charge by side `x`: whether it won, whether the side hit is B, HP lost.
    /// `JOINT` says whether `joint` is there, so each path is compiled on its own.
    #[inline(always)]
    fn charge<const JOINT: bool>(&self, x: usize, w: &mut Digits) -> (bool, bool, u32) {
        let x = x & 1;
        let [pa, pd, pk] = self.pow[x];
        if let (true, Some(joint)) = (JOINT, &self.joint) {
            let (i, arm) = (w.take(self.joint_pow), w.take(pk));
            let e = joint[x * self.joint_pow as usize + i];
            let won = e >> 15 != 0;
            let lost = self.joint_lost[(e & 0x7fff) as usize + arm] as u32;
            return (won, (x == 1) ^ won, lost);
        }
        let ea = self.att[x][w.take(pa)];
        let ed = self.def[x][w.take(pd)];
        let (won, row) = Self::outcome(ea, ed, self.rows);
        let lost = self.lost[x][row * pk as usize + w.take(pk)] as u32;
        (won, (x == 1) ^ won, lost)
    }
}

/// The second-charge rule as a const generic.
const fn mode(s: SecondCharge) -> u8 {
    match s {
        SecondCharge::Never => 0,
        SecondCharge::AfterWin => 1,
        SecondCharge::Always => 2,
    }
}

/// `MODE` for a loop that reads the rule at run time.
const ANY: u8 = 3;

impl DuelTrial {
    /// The table path: one word an activation gives the bag draw and both charges (or
    /// one word more for the second charge when the dice are many). The second charge
    /// is always rolled and its HP loss counts only when the rules call for it, and both
    /// HP stay in registers, so the loop's only branch on the dice is the end of the
    /// duel.
    /// `MODE` is the second-charge rule as a number ([`mode`]), so each rule's loop
    /// is compiled on its own.
    #[inline(always)]
    fn sample_small<const JOINT: bool, const MODE: u8>(&self, c: &Charges, rng: &mut Rng) -> usize {
        let (mut ha, mut hb) = (self.hp[0], self.hp[1]);
        let rule = if MODE == ANY { mode(self.second) } else { MODE };
        let always = rule == mode(SecondCharge::Always);
        let after_win = rule == mode(SecondCharge::AfterWin);
        for t in 1..=self.lay.max {
            let mut w = Charges::draw(rng, c.word);
            let face = w.take(12) & 15;
            let x = self.bag_side[face] as usize;
            if self.bag_green[face] != 0 && injured([ha, hb][x], self.hp[x]) {
                // An injured character cannot activate with a green die: a lost draw.
                continue;
            }
            let (won, hit_b, lost) = c.charge::<JOINT>(x, &mut w);
            ha = ha.saturating_sub(lost * !hit_b as u32);
            hb = hb.saturating_sub(lost * hit_b as u32);
            let again = (always | (after_win & won)) & (ha > 0) & (hb > 0);
            if !c.one_word {
                w = Charges::draw(rng, c.second);
            }
            let (_, hit_b, lost) = c.charge::<JOINT>(x, &mut w);
            let lost = lost * again as u32;
            ha = ha.saturating_sub(lost * !hit_b as u32);
            hb = hb.saturating_sub(lost * hit_b as u32);
            if ha == 0 || hb == 0 {
                return self.lay.finished(t, ha as usize, hb as usize);
            }
        }
        self.lay.unfinished(ha as usize, hb as usize)
    }
}

impl Trial for DuelTrial {
    fn states(&self) -> usize {
        self.lay.states()
    }
    fn key(&self) -> Option<Vec<u8>> {
        Some(crate::model::key_of::<Self, _>(self))
    }
    /// The table path's duels in one loop, compiled for its tables and its
    /// second-charge rule, with its setup done once a chunk.
    /// Its duels take well under a microsecond: `_stop` is left to the chunk loop.
    fn run_chunk(&self, rng_out: &mut Rng, trials: u64, hist: &mut [u64], _stop: &Cancel) {
        // A local generator, as the default `run_chunk` explains.
        let mut local = rng_out.clone();
        let rng = &mut local;
        macro_rules! duels {
            ($joint:literal, $mode:expr) => {{
                const M: u8 = mode($mode);
                let c = self.small.as_ref().expect("the table path");
                for _ in 0..trials {
                    hist[self.sample_small::<$joint, M>(c, rng)] += 1;
                }
            }};
        }
        let joint = self.small.as_ref().map(|c| c.joint.is_some());
        match (joint, self.second) {
            (Some(true), SecondCharge::AfterWin) => duels!(true, SecondCharge::AfterWin),
            (Some(true), SecondCharge::Always) => duels!(true, SecondCharge::Always),
            (Some(true), SecondCharge::Never) => duels!(true, SecondCharge::Never),
            (Some(false), SecondCharge::AfterWin) => duels!(false, SecondCharge::AfterWin),
            (Some(false), SecondCharge::Always) => duels!(false, SecondCharge::Always),
            (Some(false), SecondCharge::Never) => duels!(false, SecondCharge::Never),
            (None, _) => {
                for _ in 0..trials {
                    hist[self.sample(rng)] += 1;
                }
            }
        }
        *rng_out = local;
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        if let Some(c) = &self.small {
            // The same duel `run_chunk` rolls, through the loop for any rule.
            return match c.joint.is_some() {
                true => self.sample_small::<true, ANY>(c, rng),
                false => self.sample_small::<false, ANY>(c, rng),
            };
        }
        let mut s = Stream::new();
        let mut hp = self.hp;
        // Dice of each kind still in the bag this round (without replacement).
        let mut left = self.kinds;
        for t in 1..=self.lay.max {
            let kind = if self.without {
                if left.iter().sum::<u32>() == 0 {
                    left = self.kinds;
                }
                let k = kind_of(&left, roll_die(rng, left.iter().sum()) - 1);
                left[k] -= 1;
                k
            } else {
                // Draw a die from the bag; a d12 face does when the bag divides 12.
                let draw = if 12 % self.bag_all == 0 {
                    (s.face(rng) - 1) / (12 / self.bag_all)
                } else {
                    roll_die(rng, self.bag_all) - 1
                };
                kind_of(&self.kinds, draw)
            };
            let x = kind / 2;
            if kind % 2 == 0 && self.green_lost[x] && injured(hp[x], self.hp[x]) {
                // An injured character cannot activate with a green die: a lost draw.
                continue;
            }
            let won = self.charge(&mut s, rng, x, &mut hp);
            let again = match self.second {
                SecondCharge::AfterWin => won,
                SecondCharge::Always => true,
                SecondCharge::Never => false,
            };
            if hp[0] > 0 && hp[1] > 0 && again {
                self.charge(&mut s, rng, x, &mut hp);
            }
            if hp[0] == 0 || hp[1] == 0 {
                return self.lay.finished(t, hp[0] as usize, hp[1] as usize);
            }
        }
        self.lay.unfinished(hp[0] as usize, hp[1] as usize)
    }
}

fn describe(c: &Character, rules: &Rules) -> String {
    let f = fighter(c, rules);
    format!(
        "{} (ST{} {}d12, AC {}, {} HP)",
        c.name,
        c.melee_target(),
        f.dice,
        c.ac(),
        f.hp
    )
}

/// A duel scenario: who wins, after how many activations, with how many HP left.
pub fn compile(
    name: &str,
    a: &Character,
    b: &Character,
    bag: Bag,
    max: u32,
    rules: &Rules,
) -> Compiled {
    let (fa, fb) = (fighter(a, rules), fighter(b, rules));
    let lay = Layout {
        ha: fa.hp as usize,
        hb: fb.hp as usize,
        max: max as usize,
    };
    let exact = exact(a, b, bag, max, rules);
    let later = (a.clone(), b.clone(), rules.clone());
    let (metrics, race) = duel_metrics([a, b], [&fa, &fb], &lay);
    let capped_mass = (1..=lay.ha)
        .flat_map(|x| (1..=lay.hb).map(move |y| (x, y)))
        .map(|(x, y)| exact[lay.unfinished(x, y)])
        .sum();
    Compiled::new(
        name,
        duel_description(a, b, bag, rules),
        Box::new(duel_trial(a, b, [&fa, &fb], bag, lay, rules)),
        metrics,
        Headline {
            label: format!("P({} wins)", a.name),
            metric: 0,
            values: vec![0],
            against: vec![1],
        },
    )
    .exact(Some(exact))
    .fractions_later(move || exact_in::<Ratio>(&later.0, &later.1, bag, max, &later.2))
    .capped(
        capped_mass,
        Some(format!(
            "exact probability of no casualty within {max} activations"
        )),
    )
    .charts(vec![race])
}

/// A duel's metrics over its end states, and its race chart (each side's wins by
/// activation, the last two metrics).
fn duel_metrics(
    [a, b]: [&Character; 2],
    [fa, fb]: [&Fighter; 2],
    lay: &Layout,
) -> (Vec<Metric>, Chart) {
    let max = lay.max;
    let decoded: Vec<End> = (0..lay.states()).map(|s| lay.decode(s)).collect();
    let field =
        |f: &dyn Fn(&End) -> usize| -> Vec<u16> { decoded.iter().map(|d| f(d) as u16).collect() };
    let winner = |d: &End| match d {
        (None, _, _) => 2,
        (_, _, 0) => 0,
        _ => 1,
    };
    let mut activations = Metric::numeric(
        "activations",
        &format!("activations (dice drawn from the bag, a lost green draw too) until a casualty; >{max} = stopped unfinished"),
        lay.max + 2,
        field(&|d| d.0.unwrap_or(lay.max + 1)),
    );
    activations.labels[lay.max + 1] = format!(">{max}");
    // The same character may duel itself: then the labels say which side.
    let (a_name, b_name) = if a.name == b.name {
        (
            crate::text::wins(&format!("{} (a)", a.name)),
            crate::text::wins(&format!("{} (b)", b.name)),
        )
    } else {
        (crate::text::wins(&a.name), crate::text::wins(&b.name))
    };
    let mut metrics = vec![
        Metric::categorical(
            "winner",
            &format!("the other side is a casualty (0 HP); unfinished = still standing after {max} activations"),
            &[&a_name, &b_name, "unfinished"],
            field(&winner),
        ),
        activations,
        Metric::numeric(
            "a_hp_left",
            &format!("{}'s HP at the end (of {})", a.name, fa.hp),
            lay.ha + 1,
            field(&|d| d.1),
        ),
        Metric::numeric(
            "b_hp_left",
            &format!("{}'s HP at the end (of {})", b.name, fb.hp),
            lay.hb + 1,
            field(&|d| d.2),
        ),
        Metric::numeric(
            "winner_hp_left",
            "the winner's HP at the end (0 if unfinished)",
            lay.ha.max(lay.hb) + 1,
            field(&|d| match winner(d) {
                0 => d.1,
                1 => d.2,
                _ => 0,
            }),
        ),
        Metric::categorical(
            "winner_injured",
            "injured = HP below half of the starting HP",
            &["no", "yes", "no winner"],
            field(&|d| match winner(d) {
                0 => injured(d.1 as u32, fa.hp) as usize,
                1 => injured(d.2 as u32, fb.hp) as usize,
                _ => 2,
            }),
        ),
    ];
    let race = Chart::Race {
        file: "duel".into(),
        title: "who has won by each activation".into(),
        x_desc: "activations".into(),
        sides: vec![
            (a_name.clone(), metrics.len()),
            (b_name.clone(), metrics.len() + 1),
        ],
    };
    // Wins by activation, for the race chart: "no" or the activation of the win.
    let won_at = |side: usize, who: &str| {
        Metric::won_at(
            who,
            format!("the activation at which {who} wins (no = does not win)"),
            lay.max,
            field(&|d| match (winner(d), d.0) {
                (w, Some(t)) if w == side => t,
                _ => 0,
            }),
        )
    };
    metrics.extend([won_at(0, "a"), won_at(1, "b")]);
    (metrics, race)
}

/// "A vs B: bag 1:1 (green ...); each activation: ...".
fn duel_description(a: &Character, b: &Character, bag: Bag, rules: &Rules) -> String {
    let green = if bag.green == [0, 0] {
        String::new()
    } else {
        let rule = match rules.injured_green {
            InjuredGreen::CannotActivate => "an injured character cannot activate with one",
            InjuredGreen::CanActivate => "the injured rule switched off",
        };
        format!(" ({}:{} green: {rule})", bag.green[0], bag.green[1])
    };
    let second = match rules.second_charge {
        SecondCharge::AfterWin => "charge, again after a win",
        SecondCharge::Always => "charge twice",
        SecondCharge::Never => "charge once",
    };
    format!(
        "{} vs {}: bag {}:{}{green}; each activation: {second}",
        describe(a, rules),
        describe(b, rules),
        bag.dice[0],
        bag.dice[1]
    )
}

/// The duel's sampler: the bag drawn as the rules say, each charge rolled.
fn duel_trial(
    a: &Character,
    b: &Character,
    [fa, fb]: [&Fighter; 2],
    bag: Bag,
    lay: Layout,
    rules: &Rules,
) -> DuelTrial {
    // On the table path a d12 face is die `face / per` of the bag (its dice divide 12).
    let per = 12 / (bag.dice[0] + bag.dice[1]).clamp(1, 12);
    let face_kind: [usize; 16] = std::array::from_fn(|d| kind_of(&bag.kinds(), d as u32 / per));
    let green_lost = green_lost_of(rules, a, b);
    DuelTrial {
        pools: [Pool::new(fa.dice, fa.target), Pool::new(fb.dice, fb.target)],
        ac: [fa.ac, fb.ac],
        hp: [fa.hp, fb.hp],
        bag_all: bag.dice[0] + bag.dice[1],
        kinds: bag.kinds(),
        green_lost,
        without: rules.bag_draw == BagDraw::WithoutReplacement,
        second: rules.second_charge,
        lay,
        // As the walk draws: face `d` is die `d / per` of the bag, of kind `face_kind`.
        bag_side: face_kind.map(|k| (k / 2) as u8),
        bag_green: std::array::from_fn(|d| {
            let k = face_kind[d];
            (d < 12 && k.is_multiple_of(2) && green_lost[k / 2]) as u8
        }),
        small: Charges::new([fa, fb])
            // A d12 face draws from the bag, drawn back each time.
            .filter(|_| {
                let all = bag.dice[0] + bag.dice[1];
                all > 0 && 12 % all == 0 && rules.bag_draw != BagDraw::WithoutReplacement
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips() {
        let lay = Layout {
            ha: 3,
            hb: 4,
            max: 5,
        };
        for s in 0..lay.states() {
            let (t, a, b) = lay.decode(s);
            let back = match t {
                Some(t) => lay.finished(t, a, b),
                None => lay.unfinished(a, b),
            };
            assert_eq!(back, s);
        }
    }
}
