//! d12 dice for roll-under tests (the `dozen` system).
//!
//! As with the d6 pools, every die is rolled: one exactly uniform word gives up to 17
//! faces (12^17 < 2^64), read off by chained multiplications, and groups of up to three
//! dice are looked up in a per-target table. A table entry packs, for each face value
//! `v` in 1..=12, how many of the group's dice succeeded with a face of at least `v`
//! (one nibble per `v`). Entries of several groups add nibble by nibble, and the highest
//! surviving face of a pool is the highest non-zero nibble: exactly what the melee
//! cancellation rule needs, without sorting.

use crate::kernels::Rng;
use rand::Rng as _;

/// Faces drawn from one word: 12^17 < 2^64 < 12^18.
pub const PER_WORD: u32 = 17;
/// Dice read from one table lookup.
const GROUP: u32 = 3;
/// Most dice a packed pool can hold: each nibble counts to 15.
pub const MAX_POOL: u32 = 15;

const POW12: [u64; 18] = {
    let mut p = [1u64; 18];
    let mut i = 1;
    while i < 18 {
        p[i] = p[i - 1] * 12;
        i += 1;
    }
    p
};

/// `2^64 mod 12^17`: words whose low product falls below it are redrawn (Lemire 2019).
const REJECT: u64 = POW12[17].wrapping_neg() % POW12[17];

/// The target a face is compared with once the natural fail is applied: a face succeeds
/// when it is at most this. `natural_fail = 0` turns the automatic fail off.
pub fn effective_target(target: i32, natural_fail: u32) -> u32 {
    let t = target.clamp(0, 12) as u32;
    if natural_fail == 0 {
        t
    } else {
        t.min(natural_fail - 1)
    }
}

/// d12 faces from exactly uniform words. A new stream starts empty; the digits a word
/// yields are the base-12 digits of one uniform number in `0..12^17`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stream {
    r: u64,
    left: u32,
}

impl Stream {
    /// An empty stream: its first face draws a word.
    pub fn new() -> Self {
        Stream::default()
    }

    #[inline(always)]
    fn refill(&mut self, rng: &mut Rng) {
        loop {
            let r = rng.next_u64();
            if r.wrapping_mul(POW12[17]) >= REJECT {
                self.r = r;
                self.left = PER_WORD;
                return;
            }
        }
    }

    /// `k` dice (k <= 3) as one uniform number in `0..12^k`, first die most significant.
    #[inline(always)]
    pub fn digits(&mut self, rng: &mut Rng, k: u32) -> usize {
        if self.left < k {
            self.refill(rng);
        }
        let m = self.r as u128 * POW12[k as usize] as u128;
        self.r = m as u64;
        self.left -= k;
        (m >> 64) as usize
    }

    /// One face, 1..=12.
    #[inline(always)]
    pub fn face(&mut self, rng: &mut Rng) -> u32 {
        self.digits(rng, 1) as u32 + 1
    }

    /// How many of `dice` dice show more than `target` (faces 1..=12).
    #[inline]
    pub fn count_above(&mut self, rng: &mut Rng, dice: u32, target: u32) -> u32 {
        let mut n = 0;
        for _ in 0..dice {
            n += (self.face(rng) > target) as u32;
        }
        n
    }
}

/// `12^k`, for `k` up to 17 dice.
pub fn pow12(k: u32) -> u64 {
    POW12[k as usize]
}

/// The faces (1..=12) of `dice` dice numbered `x` in `0..12^dice`.
pub fn faces(x: u64, dice: u32) -> Vec<u32> {
    (0..dice)
        .map(|i| (x / POW12[i as usize] % 12) as u32 + 1)
        .collect()
}

/// A word whose first `k` base-12 digits (k <= 17) are exactly uniform: the rejection
/// threshold for `12^k` is tiny for small `k` (under 1e-9 for 9 digits), so a caller that
/// needs few dice per trial almost never redraws.
#[inline(always)]
pub fn word(rng: &mut Rng, k: u32) -> u64 {
    let n = POW12[k as usize];
    let reject = n.wrapping_neg() % n;
    loop {
        let r = rng.next_u64();
        if r.wrapping_mul(n) >= reject {
            return r;
        }
    }
}

/// The next three digits of a word from [`word`], and the rest of the word.
#[inline(always)]
pub fn next3(r: u64) -> (usize, u64) {
    let m = r as u128 * 1728;
    ((m >> 64) as usize, m as u64)
}

/// For three dice `x` (0..1728) of which only the first `dice` count: their packed
/// successes at or under `target`. Rolling a fixed three and reading the first `dice`
/// keeps the hot loop free of data-dependent branches.
pub fn group3_table(dice: u32, target: u32) -> Box<[Packed]> {
    (0..1728usize)
        .map(|x| pack(&faces3(x)[..dice.min(3) as usize], target))
        .collect()
}

/// For three dice `x`: how many of the first `k` (row k) show more than `target`.
pub fn above3_table(target: u32) -> Box<[u8]> {
    (0..4usize)
        .flat_map(|k| {
            (0..1728usize)
                .map(move |x| faces3(x)[..k].iter().filter(|&&f| f > target).count() as u8)
        })
        .collect()
}

/// The faces of three dice `x` in 0..1728, first die most significant (as drawn).
fn faces3(x: usize) -> [u32; 3] {
    [
        (x / 144) as u32 + 1,
        (x / 12 % 12) as u32 + 1,
        (x % 12) as u32 + 1,
    ]
}

/// The packed "successes at or above v" of a pool: nibble `v - 1` counts the dice that
/// succeeded with a face of at least `v`.
pub type Packed = u64;

/// The highest surviving face, 0 when no die succeeded.
#[inline(always)]
pub fn top(x: Packed) -> u32 {
    (67 - x.leading_zeros()) / 4
}

/// Surviving dice with a face of at least `v` (v = 0 counts them all; v = 13 none:
/// nibble 12 is always empty).
#[inline(always)]
pub fn count_ge(x: Packed, v: u32) -> u32 {
    debug_assert!(v <= 13);
    ((x >> (4 * v.max(1).saturating_sub(1))) & 0xf) as u32
}

/// Successes of the pool (dice at or under the target).
#[inline(always)]
pub fn successes(x: Packed) -> u32 {
    (x & 0xf) as u32
}

/// Pack given faces: every face at or under `target` survives, and counts towards
/// each value 1..=face. The tables are built from this, so a test may state dice.
pub fn pack(faces: &[u32], target: u32) -> Packed {
    let mut e = 0u64;
    for &face in faces {
        if (1..=target).contains(&face) {
            for w in 1..=face {
                e += 1 << (4 * (w - 1));
            }
        }
    }
    e
}

/// A pool of `dice` d12 that succeed at or under `target` (after the natural fail).
#[derive(Clone, Debug, Hash)]
pub struct Pool {
    /// Dice rolled, at most [`MAX_POOL`].
    pub dice: u32,
    /// Effective target, 0 to 12 (see [`effective_target`]): a face at or under it succeeds.
    pub target: u32,
    /// Entries for groups of 1, 2 and 3 dice, at offsets 0, 12 and 156.
    table: Box<[Packed]>,
}

const OFFSET: [usize; 4] = [0, 0, 12, 156];

impl Pool {
    /// `target` is the effective target (see [`effective_target`]); `dice` at most
    /// [`MAX_POOL`].
    pub fn new(dice: u32, target: u32) -> Self {
        assert!(dice <= MAX_POOL, "pool of {dice} d12 exceeds {MAX_POOL}");
        let mut table = vec![0u64; 12 + 144 + 1728];
        for k in 1..=GROUP {
            for x in 0..POW12[k as usize] as usize {
                let mut faces = [0u32; GROUP as usize];
                let mut v = x;
                for f in faces.iter_mut().take(k as usize) {
                    *f = (v % 12) as u32 + 1;
                    v /= 12;
                }
                table[OFFSET[k as usize] + x] = pack(&faces[..k as usize], target);
            }
        }
        Pool {
            dice,
            target,
            table: table.into_boxed_slice(),
        }
    }

    /// Roll the pool.
    #[inline(always)]
    pub fn roll(&self, s: &mut Stream, rng: &mut Rng) -> Packed {
        let mut x = 0;
        let mut left = self.dice;
        while left > 0 {
            let k = left.min(GROUP);
            left -= k;
            x += self.table[OFFSET[k as usize] + s.digits(rng, k)];
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::chunk_rng;

    #[test]
    fn packed_fields() {
        // Faces 5 and 1 at target 7: two successes, top 5, one at 5 or more.
        let p = Pool::new(2, 7);
        let x = p.table[OFFSET[2] + 4 * 12]; // digits 4, 0 -> faces 5, 1
        assert_eq!(successes(x), 2);
        assert_eq!(top(x), 5);
        assert_eq!(count_ge(x, 5), 1);
        assert_eq!(count_ge(x, 6), 0);
        assert_eq!(count_ge(x, 0), 2);
        assert_eq!(top(0), 0);
        // Face 8 fails at target 7.
        assert_eq!(p.table[OFFSET[1] + 7], 0);
        assert_eq!(top(p.table[OFFSET[1] + 6]), 7);
        // A 12 at target 12 is the largest nibble.
        let p = Pool::new(1, 12);
        assert_eq!(top(p.table[11]), 12);
    }

    #[test]
    fn natural_fail_caps_the_target() {
        assert_eq!(effective_target(14, 12), 11);
        assert_eq!(effective_target(14, 0), 12);
        assert_eq!(effective_target(-3, 12), 0);
        assert_eq!(effective_target(4, 12), 4);
    }

    #[test]
    fn faces_are_uniform_and_pools_match_the_binomial_mean() {
        let mut rng = chunk_rng(5, 2);
        let mut s = Stream::new();
        let n = 1_200_000;
        let mut c = [0u32; 13];
        for _ in 0..n {
            c[s.face(&mut rng) as usize] += 1;
        }
        let se = (n as f64 * (1.0 / 12.0) * (11.0 / 12.0)).sqrt();
        for (face, &k) in c.iter().enumerate().skip(1) {
            assert!(
                (k as f64 - n as f64 / 12.0).abs() < 4.5 * se,
                "face {face}: {k}"
            );
        }
        // 7 dice at target 5: successes ~ Binomial(7, 5/12).
        let pool = Pool::new(7, 5);
        let trials = 200_000;
        let sum: u64 = (0..trials)
            .map(|_| successes(pool.roll(&mut s, &mut rng)) as u64)
            .sum();
        let mean = sum as f64 / trials as f64;
        let p = 5.0 / 12.0;
        let se = (7.0 * p * (1.0 - p) / trials as f64).sqrt();
        assert!((mean - 7.0 * p).abs() < 4.5 * se, "mean {mean}");
    }
}
