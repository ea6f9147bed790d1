//! The Monte Carlo path's dice kernels: the generator, and d6 pools rolled several to a
//! random word (the dice language, `systems/dice`, is another thing: it rolls through
//! these).
//!
//! Every die is rolled: a group of up to five d6 is drawn as one uniform number in
//! `0..6^k` and its faces are read through a lookup table, and up to 24 dice share one
//! `u64` from the generator. Draws are exactly uniform (Lemire's rejection on the whole
//! word), so no bias creeps in however many dice a word carries. Nothing here allocates.

use rand::Rng as _;
use rand::SeedableRng;
pub use rand_xoshiro::Xoshiro256PlusPlus as Rng;

/// Faces of the dice this module rolls (d6 pools).
pub const SIDES: u32 = 6;
/// Dice read from one table lookup: 6^5 = 7776 entries per threshold, 7.6 KiB.
const GROUP: u32 = 5;
/// Dice drawn from one `u64`: 6^24 < 2^64 < 6^25.
pub const DICE_PER_WORD: u32 = 24;
/// A face threshold of 7 never succeeds: used for "this pool does not explode".
pub const NEVER: u8 = 7;

const POW6: [u64; 25] = {
    let mut p = [1u64; 25];
    let mut i = 1;
    while i < 25 {
        p[i] = p[i - 1] * 6;
        i += 1;
    }
    p
};

/// `6^k` for the dice of one group, padded to eight so that a masked index needs no
/// bounds check.
const POW6_8: [u64; 8] = [1, 6, 36, 216, 1296, 7776, 0, 0];

/// `2^64 mod 6^k`: a word whose low product falls below this is redrawn, which makes
/// the high product exactly uniform over `0..6^k` (Lemire 2019).
const REJECT: [u64; 25] = {
    let mut r = [0u64; 25];
    let mut i = 0;
    while i < 25 {
        r[i] = POW6[i].wrapping_neg() % POW6[i];
        i += 1;
    }
    r
};

/// A table row's length: 6^5 = 7776 rounded up to a power of two, so that an index
/// masked with `TABLE - 1` needs no bounds check in the hot loops.
const TABLE: usize = 8192;

/// `COUNT_GE[t - 2][x]`: how many of the five dice encoded by `x` (base 6, a face is its
/// digit plus one) show `t` or more. A group of fewer than five dice has zero high digits, i.e.
/// faces of 1, which no threshold in 2..=7 counts.
static COUNT_GE: [[u8; TABLE]; 6] = {
    let mut t = [[0u8; TABLE]; 6];
    let mut thr = 0;
    while thr < 6 {
        let mut x = 0;
        while x < 7776 {
            let mut v = x;
            let mut n = 0u8;
            let mut d = 0;
            while d < GROUP {
                let face = (v % 6) as u8 + 1;
                if face >= thr as u8 + 2 {
                    n += 1;
                }
                v /= 6;
                d += 1;
            }
            t[thr][x] = n;
            x += 1;
        }
        thr += 1;
    }
    t
};

/// A pool of d6 as one test rolls it: `dice` dice, each a success at `success_on` or
/// more, each showing `explode_on` or more adds one more die (which may explode again).
/// Successes saturate at `cap`, the same cap the exact engine uses, so both paths report
/// the same (tiny, stated) mass in the top bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pool {
    /// Dice rolled before any explosion.
    pub dice: u32,
    /// Lowest face (1-6) that counts as a success.
    pub success_on: u8,
    /// Lowest face that adds a die; [`NEVER`] when the pool does not explode.
    pub explode_on: u8,
    /// Most successes counted: `dice`, plus [`EXPLODE_HEADROOM`] when exploding.
    pub cap: u32,
}

/// Extra successes an exploding pool may show above its dice before the top bucket:
/// the chance of reaching it is below 1e-13 for any pool this tool accepts.
pub const EXPLODE_HEADROOM: u32 = 24;

impl Pool {
    /// A pool of `dice` d6 succeeding on `target`+; `explode_on` = 0 turns explosions off.
    pub fn new(dice: u32, target: u8, explode_on: u8) -> Self {
        let exploding = explode_on != 0;
        let explode_on = if exploding { explode_on } else { NEVER };
        Pool {
            dice,
            // A face that explodes is also a success (the sports game's reading; its
            // page under docs/games says why).
            success_on: target.min(explode_on),
            explode_on,
            cap: if exploding {
                dice + EXPLODE_HEADROOM
            } else {
                dice
            },
        }
    }

    /// Whether some face adds a die.
    pub fn exploding(&self) -> bool {
        self.explode_on != NEVER
    }

    /// Whether one table lookup rolls the whole pool (five dice or fewer, no explosions).
    pub fn small(&self) -> bool {
        self.dice <= GROUP && !self.exploding()
    }

    /// Roll the pool; the number of successes, at most `cap`. The common pool (five
    /// dice or fewer, no explosions) is one lookup, inlined where it is rolled; the
    /// rest is out of line, so that a trial that rolls a few pools stays small enough
    /// to be inlined itself.
    #[inline(always)]
    pub fn roll(&self, rng: &mut Rng) -> u32 {
        if self.small() {
            let r = word_for(rng, self.dice);
            let x = ((r as u128 * POW6[self.dice as usize] as u128) >> 64) as usize;
            return COUNT_GE[(self.success_on - 2) as usize][x] as u32;
        }
        self.roll_large(rng)
    }

    /// [`Pool::roll`] of a pool of more than five dice or one that explodes.
    #[inline(never)]
    fn roll_large(&self, rng: &mut Rng) -> u32 {
        if self.dice <= GROUP {
            return self.roll_exploding_small(rng);
        }
        self.roll_exploding(rng, self.dice)
    }

    /// An exploding pool of five dice or fewer: the pool and its first two waves of
    /// explosions come from one word, each wave exactly as many digits as the wave
    /// before showed explosions (`6^0 = 1` reads no die and counts nothing), so the
    /// common case runs without a branch on the dice. Three waves read at most 15 of
    /// one word's digits; the rare fourth wave onwards rolls on from fresh words.
    #[inline(always)]
    fn roll_exploding_small(&self, rng: &mut Rng) -> u32 {
        let ts = &COUNT_GE[(self.success_on - 2) as usize];
        let te = &COUNT_GE[(self.explode_on - 2) as usize];
        // Rejection over 6^15 rather than 6^24: 2^64 mod 6^24 would redraw a word in five.
        let mut r = word_for(rng, 3 * GROUP);
        let mut succ = 0u32;
        let mut wave = self.dice;
        for _ in 0..3 {
            let m = r as u128 * POW6_8[wave as usize & 7] as u128;
            r = m as u64;
            let x = (m >> 64) as usize & (TABLE - 1);
            succ += ts[x] as u32;
            wave = te[x] as u32;
        }
        if wave > 0 {
            return (succ + self.roll_exploding(rng, wave)).min(self.cap);
        }
        succ
    }

    /// `dice` dice of this exploding pool and every die their explosions add, die
    /// groups from fresh words.
    fn roll_exploding(&self, rng: &mut Rng, dice: u32) -> u32 {
        let (mut succ, mut extra) = roll_counts(rng, dice, self.success_on, self.explode_on);
        // Each explosion rolls one more die; the loop ends with probability 1 and at
        // the latest once the top bucket is reached.
        while extra > 0 && succ < self.cap {
            let (s, e) = roll_counts(rng, extra, self.success_on, self.explode_on);
            succ += s;
            extra = e;
        }
        succ.min(self.cap)
    }
}

/// Four pools of which some explode, read through tables: each pool's dice, then a few
/// dice more (four for pools 0 and 1, three for pools 2 and 3), read as the explosions
/// that follow, one at a time in the order they are rolled. One lookup gives how many of
/// those the explosions called for succeeded, and how many explosions are still to roll;
/// the rare pool that needs more rolls them on group by group. Rolling explosions one at
/// a time or in waves gives the same distribution: every die is an independent d6 either
/// way.
///
/// Pools 2 and 3 are alternatives, of which a trial uses one at most (the armour of
/// whoever was knocked down): [`ExplodingPools::armour_pair`] reads both off the same
/// dice, each of which is still a fair die for whichever pool the trial then uses, and
/// reads three dice after them for explosions rather than four, so that the tables that
/// read both at once stay small.
#[derive(Clone, Debug)]
pub struct ExplodingPools {
    pools: [Pool; 4],
    /// `6^dice` of pools 0 and 1, and of the larger of pools 2 and 3: the dice both read.
    pow: [u32; 3],
    /// In one block, so that the hot loop reaches every table through one address.
    t: Box<Tables>,
}

/// [`ExplodingPools`]' tables.
#[derive(Clone, Debug)]
struct Tables {
    /// Per pool 0 and 1, for its own dice `x`: the successes (bits 0..3) plus where the
    /// row of its explosions starts in `chains`, a multiple of 8.
    first: [[u16; TABLE]; 2],
    /// Per kind of pool (success and explosion faces; pools alike share one), six rows
    /// 1296 apart, row `pending`, column the four dice after the pool's: successes
    /// among the dice the explosions called for (bits 0..4), explosions still to roll
    /// (above).
    chains: [u8; CHAINS],
    /// For pools 2 and 3's dice `x`: pool 2's successes (bits 0..4), pool 3's (bits
    /// 8..12), and where the row of both pools' explosions starts in `pair_tails`
    /// (above bit 16). A pool of `n` dice counts the last `n` digits of `x`.
    pair_first: [u32; TABLE],
    /// Per pair of explosions pending (pool 2's times six plus pool 3's), rows 216 apart,
    /// column the three dice after the pools' own: successes among the dice pool 2's
    /// explosions took (bits 0..4), its explosions still to roll (bits 4..8), and the
    /// same for pool 3 (bits 8..12, 12..16). Added to `pair_first`'s entry, each pool's
    /// field holds its successes and explosions pending.
    pair_tails: [u16; TAILS],
}

/// Dice a word is drawn for: 6^22 leaves a rejection rate under 1%.
pub const WORD_DICE: u32 = 22;

/// Explosion dice read from the word after a pool's own: P(needing more) is about 1%.
const CHAIN_DICE: u32 = 4;
const CHAIN_POW: usize = 1296;
/// Rows of one kind in `chains`: 6 * 1296, a multiple of 8.
const KIND_ROWS: usize = 6 * CHAIN_POW;
/// `chains`' length: two kinds' rows (pools 0 and 1), rounded up to a power of two for
/// a mask.
const CHAINS: usize = 16384;
/// Explosion dice read after the armour's own.
const TAIL_DICE: u32 = 3;
const TAIL_POW: usize = 216;
/// `pair_tails`' length: 36 rows of 216, rounded up to a power of two.
const TAILS: usize = 8192;

// The sides' dice fit one word, and two trials' armour dice another.
const _: () = assert!(2 * (GROUP + CHAIN_DICE) <= WORD_DICE);
const _: () = assert!(2 * (GROUP + TAIL_DICE) <= WORD_DICE);

impl ExplodingPools {
    /// `None` if a pool has more than five dice.
    pub fn new(pools: [Pool; 4]) -> Option<Self> {
        if pools.iter().any(|p| p.dice > GROUP) {
            return None;
        }
        // The kinds of pools 0 and 1, two at most, fill `chains` (pools 2 and 3 read
        // `pair_tails`).
        let mut kinds: Vec<(u8, u8)> = Vec::new();
        let kind = [pools[0], pools[1]].map(|p| {
            let k = (p.success_on, p.explode_on);
            kinds.iter().position(|&x| x == k).unwrap_or_else(|| {
                kinds.push(k);
                kinds.len() - 1
            })
        });
        let mut t = Box::new(Tables {
            first: [[0; TABLE]; 2],
            chains: [0; CHAINS],
            pair_first: [0; TABLE],
            pair_tails: [0; TAILS],
        });
        for (k, &(s, e)) in kinds.iter().enumerate() {
            for i in 0..KIND_ROWS {
                let c = chain(i / CHAIN_POW, i % CHAIN_POW, CHAIN_DICE, s, e);
                t.chains[k * KIND_ROWS + i] = nibbles(c);
            }
        }
        // Pool `i`'s successes and explosions among its own dice, the last of `x`.
        let own = |i: usize, x: usize| {
            let p = pools[i];
            let dice = x % POW6[p.dice as usize] as usize;
            let count = |on: u8| COUNT_GE[(on - 2) as usize][dice] as usize;
            (count(p.success_on), count(p.explode_on))
        };
        for (i, first) in t.first.iter_mut().enumerate() {
            for (x, f) in first.iter_mut().enumerate() {
                let (succ, exploded) = own(i, x);
                *f = (kind[i] * KIND_ROWS + exploded * CHAIN_POW) as u16 | succ as u16;
            }
        }
        for (x, f) in t.pair_first.iter_mut().enumerate() {
            let ((s2, e2), (s3, e3)) = (own(2, x), own(3, x));
            *f = (s2 | s3 << 8 | ((e2 * 6 + e3) * TAIL_POW) << 16) as u32;
        }
        for (i, tail) in t.pair_tails.iter_mut().take(36 * TAIL_POW).enumerate() {
            let (row, x) = (i / TAIL_POW, i % TAIL_POW);
            let read = |p: Pool, pending| {
                nibbles(chain(pending, x, TAIL_DICE, p.success_on, p.explode_on)) as u16
            };
            *tail = read(pools[2], row / 6) | read(pools[3], row % 6) << 8;
        }
        Some(ExplodingPools {
            pools,
            pow: [
                pools[0].dice,
                pools[1].dice,
                pools[2].dice.max(pools[3].dice),
            ]
            .map(|n| POW6[n as usize] as u32),
            t,
        })
    }

    /// Pool `i` (0 or 1) from `w` (at most nine dice: its five and four for
    /// explosions): its successes (bits 0..4) and the explosions still to roll (above;
    /// almost always none, see [`ExplodingPools::finish`]).
    #[inline(always)]
    pub fn roll(&self, i: usize, w: &mut Digits) -> u32 {
        debug_assert!(i < 2, "pools 2 and 3 are read by armour_pair");
        let e = self.t.first[i & 1][w.take(self.pow[i & 1] as u64) & (TABLE - 1)] as usize;
        let more = w.take(CHAIN_POW as u64);
        let c = self.t.chains[((e & !7) + more) & (CHAINS - 1)];
        (e & 7) as u32 + c as u32
    }

    /// Pools 2 and 3 from the same dice of `w` (at most eight: five and three for
    /// explosions), for a trial that uses one of them at most: pool 2's successes (bits
    /// 0..4) and explosions still to roll (bits 4..8), pool 3's in bits 8..16 the same way.
    #[inline(always)]
    pub fn armour_pair(&self, w: &mut Digits) -> u32 {
        let f = self.t.pair_first[w.take(self.pow[2] as u64) & (TABLE - 1)];
        let more = w.take(TAIL_POW as u64);
        let t = self.t.pair_tails[((f >> 16) as usize + more) & (TAILS - 1)] as u32;
        (f & 0xffff) + t
    }

    /// Pool `i`'s successes once the `pending` explosions left are rolled.
    #[inline]
    pub fn finish(&self, i: usize, rng: &mut Rng, succ: u32, pending: u32) -> u32 {
        if pending == 0 {
            return succ;
        }
        let p = &self.pools[i];
        (succ + p.roll_exploding(rng, pending)).min(p.cap)
    }
}

/// A [`chain`] result with its successes in bits 0..4 and the explosions still pending
/// above: room for the pool's own successes to be added to the low nibble.
fn nibbles(c: u8) -> u8 {
    (c & 7) | (c >> 3) << 4
}

/// With `pending` explosions to roll and the next `dice` dice `x` (base 6, the first die
/// the most significant digit): the successes among the dice the explosions take, and
/// the explosions still pending after them.
fn chain(mut pending: usize, x: usize, dice: u32, success_on: u8, explode_on: u8) -> u8 {
    let mut succ = 0u8;
    for k in (0..dice).rev() {
        if pending == 0 {
            break;
        }
        let face = (x / POW6[k as usize] as usize % 6) as u8 + 1;
        pending -= 1;
        succ += (face >= success_on) as u8;
        pending += (face >= explode_on) as usize;
    }
    succ | (pending as u8) << 3
}

/// Up to four small pools (five dice or fewer each, no explosions) rolled from a single
/// `u64`: at most 20 dice, so one exactly uniform draw over `0..6^dice` covers them all.
#[derive(Clone, Debug)]
pub struct Packed4 {
    pow: [u64; 4],
    table: [u8; 4],
    dice: u32,
}

impl Packed4 {
    /// `None` if a pool is too big or explodes (the caller then rolls pool by pool).
    pub fn new(pools: [&Pool; 4]) -> Option<Self> {
        if !pools.iter().all(|p| p.small()) {
            return None;
        }
        Some(Packed4 {
            pow: pools.map(|p| POW6[p.dice as usize]),
            table: pools.map(|p| p.success_on - 2),
            dice: pools.iter().map(|p| p.dice).sum(),
        })
    }

    /// Successes of each pool.
    #[inline(always)]
    pub fn roll(&self, rng: &mut Rng) -> [u32; 4] {
        let mut r = word_for(rng, self.dice);
        let mut out = [0u32; 4];
        for i in 0..4 {
            let m = r as u128 * self.pow[i] as u128;
            r = m as u64;
            out[i] = COUNT_GE[self.table[i] as usize][(m >> 64) as usize & (TABLE - 1)] as u32;
        }
        out
    }
}

/// `6^k`: the number of ways `k` d6 land.
#[inline(always)]
pub fn pow6(k: u32) -> u64 {
    POW6[k as usize]
}

/// The base-6 digits of one exactly uniform word, read off a group of dice at a time:
/// each group is the high half of the word times `6^dice`, so a trial may read as many
/// dice as earlier dice decide (zero reads nothing) and every die stays uniform and
/// independent, up to the `k` dice the word was drawn for.
#[derive(Clone, Copy, Debug)]
pub struct Digits(u64);

impl Digits {
    /// The digits of a word the caller drew exactly uniform for the dice it will read
    /// (in any base: `take` reads whatever `pow` says).
    #[inline(always)]
    pub fn new(word: u64) -> Self {
        Digits(word)
    }

    /// A word good for `k` dice (at most 24; fewer keep the rejection rare).
    #[inline(always)]
    pub fn draw(rng: &mut Rng, k: u32) -> Self {
        Digits(word_for(rng, k))
    }

    /// The next group of dice as one number below `pow` (`6^dice`).
    #[inline(always)]
    pub fn take(&mut self, pow: u64) -> usize {
        let m = self.0 as u128 * pow as u128;
        self.0 = m as u64;
        (m >> 64) as usize
    }
}

/// A uniform word whose product with `6^k` has an exactly uniform high half.
#[inline(always)]
fn word_for(rng: &mut Rng, k: u32) -> u64 {
    let n = POW6[k as usize];
    let reject = REJECT[k as usize];
    loop {
        let r = rng.next_u64();
        if r.wrapping_mul(n) >= reject {
            return r;
        }
    }
}

/// Roll `dice` d6 and count faces `>= a` and faces `>= b` (b = 7 skips the second count).
#[inline(always)]
pub fn roll_counts(rng: &mut Rng, dice: u32, a: u8, b: u8) -> (u32, u32) {
    let ta = &COUNT_GE[(a - 2) as usize];
    let mut na = 0u32;
    let mut nb = 0u32;
    let mut left = dice;
    while left > 0 {
        let k = left.min(DICE_PER_WORD);
        left -= k;
        // The digits read off by chained multiplications are exactly the base-6^5
        // digits of floor(r * 6^k / 2^64), which the rejection made uniform.
        let mut r = word_for(rng, k);
        let mut rem = k;
        while rem > 0 {
            let g = rem.min(GROUP);
            rem -= g;
            let m = r as u128 * POW6[g as usize] as u128;
            r = m as u64;
            let x = (m >> 64) as usize;
            na += ta[x] as u32;
            if b != NEVER {
                nb += COUNT_GE[(b - 2) as usize][x] as u32;
            }
        }
    }
    (na, nb)
}

/// `2^64 mod n` for dice up to a d64: [`roll_die`]'s rejection threshold without a
/// division on every roll.
static ONE_DIE_REJECT: [u64; 65] = {
    let mut t = [0u64; 65];
    let mut n = 1;
    while n < 65 {
        t[n] = (n as u64).wrapping_neg() % n as u64;
        n += 1;
    }
    t
};

/// Roll one die with `sides` faces (1..=sides), exactly uniform.
#[inline]
pub fn roll_die(rng: &mut Rng, sides: u32) -> u32 {
    let n = sides as u64;
    let reject = match ONE_DIE_REJECT.get(sides as usize) {
        Some(&r) => r,
        None => n.wrapping_neg() % n,
    };
    loop {
        let m = rng.next_u64() as u128 * n as u128;
        if (m as u64) >= reject {
            return (m >> 64) as u32 + 1;
        }
    }
}

/// Dice of one size read many to a word: the most faces whose product fits in 64 bits,
/// from a word made exactly uniform over them (Lemire's rejection), as with the d6 pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Faces {
    sides: u64,
    per_word: u32,
    pow: u64,
    reject: u64,
}

/// [`Faces`] of the dice up to a d128, worked out at compile time: a trial that starts a
/// stream of them pays no division (a d100 is two d10s read as one number).
static FACES: [Faces; 129] = {
    let mut t = [Faces::compute(2); 129];
    let mut s = 3;
    while s < 129 {
        t[s] = Faces::compute(s as u32);
        s += 1;
    }
    t
};

impl Faces {
    /// The reading of a die with `sides` faces (2 or more); from the table up to a d128.
    #[inline]
    pub fn new(sides: u32) -> Self {
        match FACES.get(sides as usize) {
            Some(f) => *f,
            None => Self::compute(sides),
        }
    }

    const fn compute(sides: u32) -> Self {
        let sides = if sides < 2 { 2 } else { sides as u64 };
        let (mut pow, mut per_word) = (sides, 1u32);
        while let Some(p) = pow.checked_mul(sides) {
            pow = p;
            per_word += 1;
        }
        Faces {
            sides,
            per_word,
            pow,
            reject: pow.wrapping_neg() % pow,
        }
    }

    /// How many faces one word holds.
    pub fn per_word(&self) -> u32 {
        self.per_word
    }

    /// A word exactly uniform over the faces it holds: face `j` of it (from 0) is the top
    /// digit of `word * sides^j` (wrapping), which [`digit_scales`] and [`digit_from`]
    /// test with one multiplication and one comparison, independent of the faces before.
    #[inline(always)]
    pub fn word(&self, rng: &mut Rng) -> u64 {
        loop {
            let r = rng.next_u64();
            if r.wrapping_mul(self.pow) >= self.reject {
                return r;
            }
        }
    }

    /// A fresh stream of these dice (start one per trial).
    pub fn stream(&self) -> FaceStream {
        FaceStream {
            spec: *self,
            r: 0,
            left: 0,
        }
    }
}

/// The largest die [`digit_scales`] and [`digit_from`] know.
pub const DIGIT_SIDES: u32 = 16;

/// `sides^j mod 2^64` for the dice up to [`DIGIT_SIDES`] and every digit a word holds.
static DIGIT_SCALES: [[u64; 64]; DIGIT_SIDES as usize + 1] = {
    let mut t = [[0u64; 64]; DIGIT_SIDES as usize + 1];
    let mut s = 2;
    while s <= DIGIT_SIDES as usize {
        let mut p = 1u64;
        let mut j = 0;
        while j < 64 {
            t[s][j] = p;
            p = p.wrapping_mul(s as u64);
            j += 1;
        }
        s += 1;
    }
    t
};

/// `ceil(a * 2^64 / sides)` for every `a < sides`, the dice up to [`DIGIT_SIDES`].
static DIGIT_FROM: [[u64; DIGIT_SIDES as usize]; DIGIT_SIDES as usize + 1] = {
    let mut t = [[0u64; DIGIT_SIDES as usize]; DIGIT_SIDES as usize + 1];
    let mut s = 2;
    while s <= DIGIT_SIDES as usize {
        let mut a = 0;
        while a < s {
            t[s][a] = ((a as u128) << 64).div_ceil(s as u128) as u64;
            a += 1;
        }
        s += 1;
    }
    t
};

/// The multipliers that bring each digit of a word to its top, for a die of `sides`
/// faces (2 to [`DIGIT_SIDES`]): digit `j` (from 0) by the `j`-th.
#[inline(always)]
pub fn digit_scales(sides: u32) -> &'static [u64; 64] {
    debug_assert!((2..=DIGIT_SIDES).contains(&sides), "a d{sides}");
    &DIGIT_SCALES[sides as usize]
}

/// The least word whose top digit, base `sides`, is `a` or more (`a` below `sides`,
/// `sides` 2 to [`DIGIT_SIDES`]): the top digit is `floor(w * sides / 2^64)`, which is
/// `a` or more exactly when `w >= ceil(a * 2^64 / sides)`. So a face (its digit plus
/// one) is `a + 1` or more exactly when its word, scaled, is at least this.
#[inline(always)]
pub fn digit_from(sides: u32, a: u32) -> u64 {
    debug_assert!(
        (2..=DIGIT_SIDES).contains(&sides) && a < sides,
        "{a} of a d{sides}"
    );
    DIGIT_FROM[sides as usize][a as usize]
}

/// Faces drawn one at a time from exactly uniform words.
#[derive(Clone, Copy, Debug)]
pub struct FaceStream {
    spec: Faces,
    r: u64,
    left: u32,
}

impl FaceStream {
    /// `n` faces (1..=sides), at most 8, from one word: one refill check for them all.
    /// Faces left in a word too short for all `n` are dropped, which leaves every face
    /// read uniform and independent.
    #[inline]
    pub fn roll_n<const N: usize>(&mut self, rng: &mut Rng) -> [u32; N] {
        if self.left < N as u32 {
            self.r = self.spec.word(rng);
            self.left = self.spec.per_word;
        }
        self.left -= N as u32;
        std::array::from_fn(|_| {
            let m = self.r as u128 * self.spec.sides as u128;
            self.r = m as u64;
            (m >> 64) as u32 + 1
        })
    }

    /// One face, 1..=sides.
    #[inline]
    pub fn roll(&mut self, rng: &mut Rng) -> u32 {
        if self.left == 0 {
            self.r = self.spec.word(rng);
            self.left = self.spec.per_word;
        }
        let m = self.r as u128 * self.spec.sides as u128;
        self.r = m as u64;
        self.left -= 1;
        (m >> 64) as u32 + 1
    }
}

/// splitmix64 finaliser: decorrelates nearby integers (seed, chunk index).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator of chunk `chunk` under master seed `seed`: a pure function of both, so
/// any thread may run any chunk and the merged histogram is the same.
pub fn chunk_rng(seed: u64, chunk: u64) -> Rng {
    let mut bytes = [0u8; 32];
    let mut z = mix64(seed ^ mix64(chunk.wrapping_add(0x5851_F42D_4C95_7F2D)));
    for b in bytes.chunks_mut(8) {
        z = mix64(z);
        b.copy_from_slice(&z.to_le_bytes());
    }
    Rng::from_seed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_count_faces() {
        // x = 0 is five 1s; x = 7775 is five 6s.
        assert_eq!(COUNT_GE[0][0], 0);
        assert_eq!(COUNT_GE[4][7775], 5);
        // digits (low first) 3,0,5 -> faces 4,1,6: two at 4+, one at 6+.
        let x = 3 + 6 * 5 * 6;
        assert_eq!(COUNT_GE[2][x], 2);
        assert_eq!(COUNT_GE[4][x], 1);
    }

    #[test]
    fn reject_thresholds() {
        assert_eq!(REJECT[1], u64::MAX % 6 + 1); // 2^64 mod 6 = 4
                                                 // 24 dice fit in one word, 25 would not.
        assert!(POW6[24].checked_mul(6).is_none());
    }

    #[test]
    fn zero_dice_score_zero() {
        let mut rng = chunk_rng(1, 0);
        assert_eq!(Pool::new(0, 4, 6).roll(&mut rng), 0);
        assert_eq!(roll_counts(&mut rng, 0, 2, NEVER), (0, 0));
    }

    #[test]
    fn faces_are_uniform() {
        // 600k single dice: each face count within 4.5 SE of 100k.
        let mut rng = chunk_rng(7, 3);
        let mut c = [0u32; 7];
        for _ in 0..600_000 {
            c[roll_die(&mut rng, 6) as usize] += 1;
        }
        let se = (600_000.0f64 * (1.0 / 6.0) * (5.0 / 6.0)).sqrt();
        for (face, &n) in c.iter().enumerate().skip(1) {
            assert!(
                ((n as f64) - 100_000.0).abs() < 4.5 * se,
                "face {face}: {n}"
            );
        }
    }

    #[test]
    fn packed_pools_match_their_means() {
        // 5 dice at 3+, 4 at 4+, 0 dice, 3 at 6+: means 10/3, 2, 0, 1/2.
        let pools = [
            Pool::new(5, 3, 0),
            Pool::new(4, 4, 0),
            Pool::new(0, 4, 0),
            Pool::new(3, 6, 0),
        ];
        let packed = Packed4::new([&pools[0], &pools[1], &pools[2], &pools[3]]).unwrap();
        let mut rng = chunk_rng(3, 1);
        let n = 200_000;
        let mut sums = [0u64; 4];
        for _ in 0..n {
            for (s, v) in sums.iter_mut().zip(packed.roll(&mut rng)) {
                *s += v as u64;
            }
        }
        let expect = [10.0 / 3.0, 2.0, 0.0, 0.5];
        let var = [5.0 * 2.0 / 9.0, 1.0, 0.0, 3.0 * 5.0 / 36.0];
        for i in 0..4 {
            let mean = sums[i] as f64 / n as f64;
            let se = (var[i] / n as f64).sqrt();
            assert!((mean - expect[i]).abs() <= 4.5 * se, "pool {i}: {mean}");
        }
        assert!(Packed4::new([&Pool::new(6, 4, 0), &pools[1], &pools[2], &pools[3]]).is_none());
        assert!(Packed4::new([&Pool::new(3, 4, 6), &pools[1], &pools[2], &pools[3]]).is_none());
    }

    #[test]
    fn face_streams_are_uniform() {
        // 19 d10 to a word; 1M faces, each within 4.5 SE of 100k.
        let f = Faces::new(10);
        assert_eq!(f.per_word, 19);
        let mut rng = chunk_rng(11, 4);
        let mut s = f.stream();
        let mut c = [0u32; 11];
        for _ in 0..1_000_000 {
            c[s.roll(&mut rng) as usize] += 1;
        }
        let se = (1e6f64 * 0.1 * 0.9).sqrt();
        for (face, &n) in c.iter().enumerate().skip(1) {
            assert!((n as f64 - 1e5).abs() < 4.5 * se, "face {face}: {n}");
        }
    }

    /// A word's faces tested through [`digit_scales`] and [`digit_from`] are the faces a
    /// stream reads from the same word, for every die up to a d16 and every threshold:
    /// the Monte Carlo that tests them rolls the dice a stream would.
    #[test]
    fn digit_tests_read_the_stream_faces() {
        let mut rng = chunk_rng(5, 9);
        for sides in 2..=DIGIT_SIDES {
            let f = Faces::new(sides);
            let scales = digit_scales(sides);
            for _ in 0..2_000 {
                let w = f.word(&mut rng);
                // The stream's faces of this word, by the chain of multiplications.
                let mut r = w;
                for (j, &scale) in scales.iter().enumerate().take(f.per_word() as usize) {
                    let m = r as u128 * sides as u128;
                    r = m as u64;
                    let face = (m >> 64) as u32 + 1;
                    let scaled = w.wrapping_mul(scale);
                    for a in 0..sides {
                        assert_eq!(
                            scaled >= digit_from(sides, a),
                            face > a,
                            "d{sides}, face {j} of {w:#x}, at least {}",
                            a + 1
                        );
                    }
                }
            }
        }
        // The thresholds themselves: ceil(a * 2^64 / sides), worked out by hand.
        assert_eq!(digit_from(2, 1), 1 << 63);
        assert_eq!(digit_from(10, 0), 0);
        assert_eq!(digit_from(4, 3), 3 << 62);
        assert_eq!(digit_from(3, 1), u64::MAX / 3 + 1);
    }

    #[test]
    fn explosion_chains_read_dice_in_order() {
        // Faces 6, 3, 1, 1 (digits 5, 2, 0, 0, the first most significant) at 3+,
        // exploding on 6, after one explosion: the 6 succeeds and explodes, the 3
        // succeeds; two successes, nothing pending.
        let x = 5 * 216 + 2 * 36;
        assert_eq!(chain(1, x, 4, 3, 6), 2);
        // Nothing pending reads no die.
        assert_eq!(chain(0, 1295, 4, 3, 6), 0);
        // Two pending and four 6s: four successes, still two pending.
        assert_eq!(chain(2, 1295, 4, 3, 6), 4 | 2 << 3);
        // Three pending, faces 2, 2, 2, 6 at 3+: the first three are taken, the 6 not.
        assert_eq!(chain(3, 216 + 36 + 6 + 5, 4, 3, 6), 0);
    }

    #[test]
    fn exploding_pools_match_their_exact_distributions() {
        // Sides of 5 dice at 3+ and 4 at 4+, armour of 3 dice at 4+ or 2 at 6+ read off
        // the same dice, all exploding on 6, 400k trials, two to a word of armour dice:
        // each value's frequency within 4.5 SE of the exact PMF, which includes the rolls
        // that need more explosion dice than the tables read and so the path that rolls
        // them on. (A second read of a word that repeated the first would skew nothing
        // here: `two_armour_reads_from_one_word_are_independent` checks that.)
        let pools = [
            Pool::new(5, 3, 6),
            Pool::new(4, 4, 6),
            Pool::new(3, 4, 6),
            Pool::new(2, 6, 6),
        ];
        let set = ExplodingPools::new(pools).unwrap();
        let n = 400_000u32;
        let mut rng = chunk_rng(5, 2);
        let mut counts = vec![vec![0u32; 40]; 4];
        let mut long = [0; 4];
        let mut arm = Digits::new(0);
        for t in 0..n {
            let mut w = Digits::draw(&mut rng, WORD_DICE);
            // Two trials share a word of armour dice, as the Slam's do.
            if t % 2 == 0 {
                arm = Digits::draw(&mut rng, WORD_DICE);
            }
            let both = set.armour_pair(&mut arm);
            let (a, d) = (set.roll(0, &mut w), set.roll(1, &mut w));
            let reads = [a, d, both & 0xff, both >> 8].map(|r| (r & 15, r >> 4));
            for (i, (s, pending)) in reads.into_iter().enumerate() {
                long[i] += (pending > 0) as u32;
                counts[i][set.finish(i, &mut rng, s, pending) as usize] += 1;
            }
        }
        assert!(
            long.iter().all(|&l| l > 200),
            "the long path ran {long:?} times"
        );
        for (i, pool) in pools.iter().enumerate() {
            let pmf = crate::pmf::pool_pmf(pool).0;
            for (k, &c) in counts[i].iter().enumerate() {
                let p = pmf.get(k).copied().unwrap_or(0.0);
                let se = (p * (1.0 - p) / n as f64).sqrt().max(1e-6);
                let f = c as f64 / n as f64;
                assert!((f - p).abs() < 4.5 * se, "pool {i}, {k}: {f} vs {p}");
            }
        }
        assert!(ExplodingPools::new([Pool::new(6, 4, 6), pools[1], pools[2], pools[3]]).is_none());
    }

    #[test]
    fn two_armour_reads_from_one_word_are_independent() {
        // Two trials read their armour from one word: the second read must not repeat
        // or lean on the first. 200k words, 4 dice at 4+ exploding on 6: P(both reads
        // show the same successes) within 4.5 SE of what independent reads give, the
        // sum over values of the product of the two reads' own frequencies.
        let pool = Pool::new(4, 4, 6);
        let set = ExplodingPools::new([pool; 4]).unwrap();
        let n = 200_000;
        let mut rng = chunk_rng(9, 4);
        let (mut first, mut second, mut same) = ([0u32; 16], [0u32; 16], 0u32);
        for _ in 0..n {
            let mut w = Digits::draw(&mut rng, WORD_DICE);
            let (x, y) = (set.armour_pair(&mut w) & 15, set.armour_pair(&mut w) & 15);
            first[x as usize] += 1;
            second[y as usize] += 1;
            same += (x == y) as u32;
        }
        let f = |c: u32| c as f64 / n as f64;
        let expect: f64 = (0..16).map(|k| f(first[k]) * f(second[k])).sum();
        let se = (expect * (1.0 - expect) / n as f64).sqrt();
        assert!(
            (f(same) - expect).abs() < 4.5 * se,
            "{} vs {expect}",
            f(same)
        );
    }

    #[test]
    fn small_exploding_pools_roll_their_exact_distribution() {
        // Pool::roll's one-word path for five dice or fewer, 300k rolls of 4 dice at 4+
        // exploding on 6.
        let pool = Pool::new(4, 4, 6);
        let pmf = crate::pmf::pool_pmf(&pool).0;
        let mut rng = chunk_rng(8, 8);
        let n = 300_000u32;
        let mut c = vec![0u32; pool.cap as usize + 1];
        for _ in 0..n {
            c[pool.roll(&mut rng) as usize] += 1;
        }
        for (k, &p) in pmf.iter().enumerate() {
            let se = (p * (1.0 - p) / n as f64).sqrt().max(1e-6);
            let f = c[k] as f64 / n as f64;
            assert!((f - p).abs() < 4.5 * se, "{k}: {f} vs {p}");
        }
    }

    #[test]
    fn big_pools_span_words() {
        // 30 dice at 2+: every die but 1s succeeds; mean 25, sd sqrt(30*5/36).
        let mut rng = chunk_rng(9, 9);
        let pool = Pool::new(30, 2, 0);
        let n = 100_000;
        let sum: u64 = (0..n).map(|_| pool.roll(&mut rng) as u64).sum();
        let mean = sum as f64 / n as f64;
        let se = (30.0f64 * 5.0 / 36.0).sqrt() / (n as f64).sqrt();
        assert!((mean - 25.0).abs() < 4.5 * se, "mean {mean}");
    }
}
