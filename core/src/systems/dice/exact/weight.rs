//! The integer law's weights: counts of ways, in two machine words while they fit and
//! in big integers past that.
//!
//! Most rolls a designer writes have denominators under 2^128 (`20d6` hit, wound and
//! save is 2^20 · 3^40), and a big integer spends most of its time on them deciding
//! they are small. So the law runs first in `u128`, every operation checked: the first
//! that would overflow stops it ([`NoLaw::Wide`]) and it runs again in [`UBig`]. The
//! two give the same fractions, as the law's tests check value by value.

use dashu_int::ops::{BitTest, DivRem, Gcd};
use dashu_int::{UBig, Word};
use ethnum::U256;

mod real;
pub use real::{Real, REAL_WORK};

/// Why the law stopped: in machine words, to run again wider; past every weight, why
/// the scenario is Monte Carlo only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NoLaw {
    /// Refused, and why: not to try again in wider weights.
    Refused(Why),
    /// A count passed the weight's words: run again in big integers.
    Wide,
    /// Counts that will pass four words as well (a `repeat`'s denominator, growing as
    /// it has): run again in big integers, not in four words first.
    Wider,
    /// The budget spent: in machine words, where a long convolution is not one big
    /// multiply and costs more, run again in big integers.
    Spent,
}

/// Why the law refused a roll, as the scenario's description says it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Why {
    /// A value spanning more numbers than a law holds ([`super::MAX_SPAN`]).
    Span,
    /// A pool variable of more outcomes than a walk takes ([`super::MAX_OUTCOMES`]),
    /// that no pass over faces reads either.
    Outcomes,
    /// A pass over faces with more states at one face than it holds.
    States,
    /// Its budget spent in machine words where big integers would spend it too.
    Work,
    /// The run was cancelled.
    Stopped,
    /// A part it does not work out.
    Part,
}

impl std::fmt::Display for NoLaw {
    /// Why a roll has no exact distribution, as a designer reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let thousands = crate::text::thousands;
        match self {
            NoLaw::Refused(Why::Span) => write!(
                f,
                "a value spans more than {} numbers",
                thousands(super::MAX_SPAN as u64)
            ),
            NoLaw::Refused(Why::Outcomes) => write!(
                f,
                "a pool of more than {} outcomes (every multiset of its dice), read in a way no pass over its faces reads",
                thousands(super::MAX_OUTCOMES)
            ),
            NoLaw::Refused(Why::States) => write!(
                f,
                "pools read together in more than {} states at one face",
                thousands(crate::systems::dice::multiset::MAX_STATES as u64)
            ),
            NoLaw::Refused(Why::Stopped) => f.write_str("the run was stopped"),
            NoLaw::Refused(Why::Part) => {
                f.write_str("a part the exact evaluator does not work out")
            }
            NoLaw::Refused(Why::Work) | NoLaw::Wide | NoLaw::Wider | NoLaw::Spent => write!(
                f,
                "working it out exactly takes more than {} operations counted in whole numbers and {} in floats",
                thousands(super::LAW_WORK),
                thousands(REAL_WORK),
            ),
        }
    }
}

/// What the law needs of a count of ways. Every operation that could overflow says so.
pub trait Weight: Clone + PartialEq + Default + std::fmt::Debug {
    /// Whether long convolutions go by one big multiply ([`Weight::kronecker`]), so that
    /// a sum of many dice is best made by squaring.
    const SQUARES: bool = false;
    fn from_u128(v: u128) -> Self;
    fn from_big(v: &UBig) -> Result<Self, NoLaw>;
    fn to_big(&self) -> UBig;
    /// In two machine words, where it fits.
    fn to_u128(&self) -> Option<u128>;
    fn is_zero(&self) -> bool;
    fn is_one(&self) -> bool;
    fn add_to(&mut self, o: &Self) -> Result<(), NoLaw>;
    /// `self += a * b`: a convolution's step.
    fn add_product(&mut self, a: &Self, b: &Self) -> Result<(), NoLaw>;
    fn sub_from(&mut self, o: &Self) -> Result<(), NoLaw>;
    fn mul(&self, o: &Self) -> Result<Self, NoLaw>;
    fn mul_small(&self, k: u64) -> Result<Self, NoLaw>;
    /// `self / o`, where `o` divides it.
    fn div(&self, o: &Self) -> Self;
    fn div_small(&self, k: u64) -> Self;
    /// Whether `self` is a multiple of `o`.
    fn multiple_of(&self, o: &Self) -> bool;
    fn gcd(&self, o: &Self) -> Self;
    fn pow(&self, e: u32) -> Result<Self, NoLaw>;
    /// The largest factor that divides `den` and every one of `ns`.
    fn common_factor(den: &Self, ns: &[Self]) -> Self;
    /// [`Weight::common_factor`], where `den`'s primes were found before (`primes`, kept
    /// for the next call): a chain's denominator is its dice's sizes round after round,
    /// and finding its primes again each round was a fifth of a fight's time. A prime
    /// missed leaves a factor in, never a wrong count.
    fn common_factor_among(den: &Self, ns: &[Self], _primes: &mut Option<Vec<u32>>) -> Self {
        Self::common_factor(den, ns)
    }
    /// A convolution of long sides by one big multiply, where this weight has one; its
    /// cost is `spend`'s before the work.
    fn kronecker(
        _a: &[Self],
        _b: &[Self],
        _spend: &mut dyn FnMut(u64) -> Result<(), NoLaw>,
    ) -> Option<Result<Vec<Self>, NoLaw>> {
        None
    }

    fn one() -> Self {
        Self::from_u128(1)
    }

    /// Machine words the count takes: what one operation on it costs, about.
    fn words(&self) -> u64 {
        1
    }

    /// What putting one state into a map past the caches costs besides its arithmetic,
    /// in this weight's operations: a cache miss or two, a few operations on integers
    /// ([`LAW_WORK`](super::LAW_WORK) spends about 33 ns each) but a dozen on floats
    /// ([`REAL_WORK`] about 5 ns each). Unpriced, two pools of 100 dice met spent the
    /// floats' budget in 4.9 s; priced at 12, in 2.6 s. Priced at 40 (the cache misses
    /// alone) they gave up in 1.5 s, but `beats(100d10, 100d10)`, exact in 2.6 s, was
    /// refused: a price is what the work takes where it is slowest, not more.
    const FAR_STATE: u64 = 4;

    /// The most bits a count may take (none for big integers): past them, [`NoLaw::Wide`].
    const CAPACITY: Option<u32> = None;

    /// The bits the count takes.
    fn bits(&self) -> u32;

    fn lcm(&self, o: &Self) -> Result<Self, NoLaw> {
        self.div(&self.gcd(o)).mul(o)
    }

    /// `a / b` as the nearest float.
    fn ratio(a: &Self, b: &Self) -> f64 {
        match (a.to_u128(), b.to_u128()) {
            (Some(a), Some(b)) => a as f64 / b as f64,
            _ => crate::fraction::ratio(&a.to_big(), &b.to_big()),
        }
    }

    /// Whether the weight counts ways exactly (integers), so that a law in it has
    /// fractions; [`Real`] does not.
    const EXACT: bool = true;
}

/// `a / b` as the nearest float, for counts of any size ([`crate::fraction::ratio`]
/// past two words).
pub(super) fn ratio<W: Weight>(a: &W, b: &W) -> f64 {
    W::ratio(a, b)
}

/// Stein's gcd of `den` and each count, stopping at 1.
fn gcd_fold(den: u128, ns: impl Iterator<Item = u128> + Clone) -> u128 {
    // The smallest count first: it bounds the factor at once (an exploding die's
    // longest chain has one way, so nothing is shared), where the first counts, the
    // most likely values, share most of the denominator and a gcd of two words costs.
    let least = ns.clone().filter(|&w| w != 0).min().unwrap_or(den);
    let mut g = gcd_words(least, den);
    for w in ns {
        if g == 1 {
            break;
        }
        if w != 0 {
            g = gcd_words(g, w);
        }
    }
    g
}

/// The gcd of `a` and `b`, `a` likely the smaller: where it fits one word, `b` is
/// brought below it by one division and the rest is a gcd of one word (a gcd of two
/// words goes bit by bit over all of the larger's ninety-odd bits).
fn gcd_words(a: u128, b: u128) -> u128 {
    match u64::try_from(a) {
        Ok(0) => b,
        Ok(small) => num_integer::Integer::gcd(&small, &((b % a) as u64)).into(),
        Err(_) => num_integer::Integer::gcd(&a, &b),
    }
}

/// A denominator of two words whose primes are all small (a die's sides to a power:
/// 20^21 is 2^42 · 5^21), each odd prime with its inverse modulo 2^128: the part a count
/// shares with it is then found by multiplications, `x · p⁻¹` being `x / p` exactly
/// where `p` divides `x`, and at most `(2^128 - 1) / p` exactly then (Granlund and
/// Montgomery, "Division by invariant integers using multiplication", 1994, section 9).
/// A gcd of two words goes bit by bit over ninety-odd bits, for each value of a table.
pub(super) struct WordFactors {
    den: u128,
    twos: u32,
    /// Each odd prime's exponent, inverse and `(2^128 - 1) / p`.
    odd: Vec<(u32, u128, u128)>,
}

impl WordFactors {
    /// None where `den` has a prime of 2,000 or more ([`small_factors`]).
    pub(super) fn of(den: u128) -> Option<WordFactors> {
        if den == 0 {
            return None;
        }
        let odd = small_factors(&UBig::from(den))?
            .into_iter()
            .filter(|&(p, _)| p != 2)
            .map(|(p, e)| (e, inverse(p), u128::MAX / u128::from(p)))
            .collect();
        Some(WordFactors {
            den,
            twos: den.trailing_zeros(),
            odd,
        })
    }

    /// `w / g` and the denominator over `g`, `g` their greatest common divisor.
    pub(super) fn lowest(&self, w: u128) -> (u128, u128) {
        if w == 0 {
            return (0, 1);
        }
        let t = w.trailing_zeros().min(self.twos);
        let (mut n, mut d) = (w >> t, self.den >> t);
        for &(e, inv, limit) in &self.odd {
            for _ in 0..e {
                let q = n.wrapping_mul(inv);
                if q > limit {
                    break;
                }
                n = q;
                d = d.wrapping_mul(inv);
            }
        }
        (n, d)
    }
}

/// The inverse of an odd `p` modulo 2^128, by Newton's iteration (each step doubles the
/// bits that are right; `p` is its own inverse modulo 8).
fn inverse(p: u32) -> u128 {
    let p = u128::from(p);
    let mut x = p;
    for _ in 0..6 {
        x = x.wrapping_mul(2u128.wrapping_sub(p.wrapping_mul(x)));
    }
    x
}

/// The operations of a count in machine words (`u128`, `U256`): each checked, an
/// overflow saying the law must run again wider.
macro_rules! checked_words {
    () => {
        fn add_to(&mut self, o: &Self) -> Result<(), NoLaw> {
            *self = self.checked_add(*o).ok_or(NoLaw::Wide)?;
            Ok(())
        }
        fn add_product(&mut self, a: &Self, b: &Self) -> Result<(), NoLaw> {
            let p = a.checked_mul(*b).ok_or(NoLaw::Wide)?;
            self.add_to(&p)
        }
        fn sub_from(&mut self, o: &Self) -> Result<(), NoLaw> {
            *self = self.checked_sub(*o).ok_or(NoLaw::Refused(Why::Part))?;
            Ok(())
        }
        fn mul(&self, o: &Self) -> Result<Self, NoLaw> {
            self.checked_mul(*o).ok_or(NoLaw::Wide)
        }
    };
}

impl Weight for u128 {
    const CAPACITY: Option<u32> = Some(128);
    fn bits(&self) -> u32 {
        128 - self.leading_zeros()
    }
    fn from_u128(v: u128) -> Self {
        v
    }
    fn from_big(v: &UBig) -> Result<Self, NoLaw> {
        u128::try_from(v).map_err(|_| NoLaw::Wide)
    }
    fn to_big(&self) -> UBig {
        UBig::from(*self)
    }
    fn to_u128(&self) -> Option<u128> {
        Some(*self)
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn is_one(&self) -> bool {
        *self == 1
    }
    checked_words!();
    fn mul_small(&self, k: u64) -> Result<Self, NoLaw> {
        self.checked_mul(u128::from(k)).ok_or(NoLaw::Wide)
    }
    fn div(&self, o: &Self) -> Self {
        self.checked_div(*o).unwrap_or(0)
    }
    fn div_small(&self, k: u64) -> Self {
        self.checked_div(u128::from(k)).unwrap_or(0)
    }
    fn multiple_of(&self, o: &Self) -> bool {
        *o != 0 && self.is_multiple_of(*o)
    }
    fn gcd(&self, o: &Self) -> Self {
        num_integer::Integer::gcd(self, o)
    }
    fn pow(&self, e: u32) -> Result<Self, NoLaw> {
        self.checked_pow(e).ok_or(NoLaw::Wide)
    }
    fn common_factor(den: &Self, ns: &[Self]) -> Self {
        gcd_fold(*den, ns.iter().copied())
    }
}

/// Four machine words, for the laws that pass two but not four (10d10 exploding to
/// depth 4 is over 10^50): as fast as words, where a big integer would allocate each
/// product. Reductions go through [`UBig`], once per law.
impl Weight for U256 {
    const CAPACITY: Option<u32> = Some(256);
    fn bits(&self) -> u32 {
        256 - self.leading_zeros()
    }
    fn from_u128(v: u128) -> Self {
        U256::from(v)
    }
    fn from_big(v: &UBig) -> Result<Self, NoLaw> {
        let bytes = v.to_le_bytes();
        let mut le = [0u8; 32];
        le.get_mut(..bytes.len())
            .ok_or(NoLaw::Wide)?
            .copy_from_slice(&bytes);
        Ok(U256::from_le_bytes(le))
    }
    fn to_big(&self) -> UBig {
        UBig::from_le_bytes(&self.to_le_bytes())
    }
    fn to_u128(&self) -> Option<u128> {
        u128::try_from(*self).ok()
    }
    fn is_zero(&self) -> bool {
        *self == U256::ZERO
    }
    fn is_one(&self) -> bool {
        *self == U256::ONE
    }
    checked_words!();
    fn mul_small(&self, k: u64) -> Result<Self, NoLaw> {
        self.checked_mul(U256::from(k)).ok_or(NoLaw::Wide)
    }
    fn div(&self, o: &Self) -> Self {
        self.checked_div(*o).unwrap_or(U256::ZERO)
    }
    fn div_small(&self, k: u64) -> Self {
        self.checked_div(U256::from(k)).unwrap_or(U256::ZERO)
    }
    fn multiple_of(&self, o: &Self) -> bool {
        self.checked_rem(*o).is_some_and(|r| r == U256::ZERO)
    }
    fn gcd(&self, o: &Self) -> Self {
        narrow(&Gcd::gcd(&wide(self), &wide(o)))
    }
    fn pow(&self, e: u32) -> Result<Self, NoLaw> {
        self.checked_pow(e).ok_or(NoLaw::Wide)
    }
    fn common_factor(den: &Self, ns: &[Self]) -> Self {
        let ns: Vec<UBig> = ns.iter().map(wide).collect();
        narrow(&UBig::common_factor(&wide(den), &ns))
    }
}

fn wide(x: &U256) -> UBig {
    UBig::from_le_bytes(&x.to_le_bytes())
}

/// A factor of a count that fits four words fits them too.
fn narrow(x: &UBig) -> U256 {
    let bytes = x.to_le_bytes();
    let mut le = [0u8; 32];
    let n = bytes.len().min(32);
    le[..n].copy_from_slice(&bytes[..n]);
    U256::from_le_bytes(le)
}

impl Weight for UBig {
    const SQUARES: bool = true;
    fn bits(&self) -> u32 {
        u32::try_from(self.bit_len()).unwrap_or(u32::MAX)
    }
    fn words(&self) -> u64 {
        (self.bit_len() as u64).div_ceil(64).max(1)
    }
    fn from_u128(v: u128) -> Self {
        UBig::from(v)
    }
    fn from_big(v: &UBig) -> Result<Self, NoLaw> {
        Ok(v.clone())
    }
    fn to_big(&self) -> UBig {
        self.clone()
    }
    fn to_u128(&self) -> Option<u128> {
        u128::try_from(self).ok()
    }
    fn is_zero(&self) -> bool {
        UBig::is_zero(self)
    }
    fn is_one(&self) -> bool {
        UBig::is_one(self)
    }
    fn add_to(&mut self, o: &Self) -> Result<(), NoLaw> {
        *self += o;
        Ok(())
    }
    fn add_product(&mut self, a: &Self, b: &Self) -> Result<(), NoLaw> {
        *self += a * b;
        Ok(())
    }
    fn sub_from(&mut self, o: &Self) -> Result<(), NoLaw> {
        if *o > *self {
            return Err(NoLaw::Refused(Why::Part));
        }
        *self -= o;
        Ok(())
    }
    fn mul(&self, o: &Self) -> Result<Self, NoLaw> {
        // A condition that holds or not stops a state's ways of one: a long count
        // times 1 is copied, not multiplied (twice for each state stopping in a round).
        Ok(if o.is_one() { self.clone() } else { self * o })
    }
    fn mul_small(&self, k: u64) -> Result<Self, NoLaw> {
        Ok(self * k)
    }
    fn div(&self, o: &Self) -> Self {
        // A round's states share their denominators: no long division for those.
        if o.is_zero() {
            UBig::ZERO
        } else if o.is_one() {
            self.clone()
        } else if self == o {
            UBig::ONE
        } else {
            self / o
        }
    }
    fn div_small(&self, k: u64) -> Self {
        if k == 0 {
            return UBig::ZERO;
        }
        self / k
    }
    fn multiple_of(&self, o: &Self) -> bool {
        !o.is_zero() && (o.is_one() || self == o || (self % o).is_zero())
    }
    fn gcd(&self, o: &Self) -> Self {
        Gcd::gcd(self, o)
    }
    fn pow(&self, e: u32) -> Result<Self, NoLaw> {
        Ok(UBig::pow(self, e as usize))
    }
    /// By machine words where `den` fits them; else prime by prime, as the denominator
    /// is a product of the dice's sizes (a binary gcd of numbers of hundreds of digits
    /// per value would cost more than the law).
    fn common_factor(den: &Self, ns: &[Self]) -> Self {
        if let Some(d) = den.to_u128() {
            // Every count is at most the denominator, so fits as well.
            return UBig::from(gcd_fold(d, ns.iter().filter_map(|w| w.to_u128())));
        }
        match small_factors(den) {
            Some(factors) => common_power(&factors, ns),
            None => ns
                .iter()
                .filter(|w| !w.is_zero())
                .fold(
                    den.clone(),
                    |g, w| if g.is_one() { g } else { Gcd::gcd(&g, w) },
                ),
        }
    }

    fn common_factor_among(den: &Self, ns: &[Self], primes: &mut Option<Vec<u32>>) -> Self {
        if den.to_u128().is_some() {
            return Self::common_factor(den, ns);
        }
        if primes.is_none() {
            match small_factors(den) {
                Some(f) => *primes = Some(f.iter().map(|&(p, _)| p).collect()),
                None => return Self::common_factor(den, ns),
            }
        }
        let all: Vec<&UBig> = std::iter::once(den)
            .chain(ns.iter().filter(|w| !w.is_zero()))
            .collect();
        let primes = primes.as_deref().unwrap_or_default();
        primes.iter().fold(UBig::ONE, |g, &p| {
            g * UBig::from(p).pow(least_valuation(&all, p, u32::MAX) as usize)
        })
    }

    /// Each side packed into one integer, a slot of whole words per value wide enough
    /// for any coefficient of the product, the two multiplied once and the product cut
    /// back into slots. A convolution of 300 numbers of 600 bits is then one multiply
    /// of 200,000-bit numbers, not 90,000 small ones.
    fn kronecker(
        a: &[Self],
        b: &[Self],
        spend: &mut dyn FnMut(u64) -> Result<(), NoLaw>,
    ) -> Option<Result<Vec<Self>, NoLaw>> {
        let bits = |l: &[UBig]| l.iter().map(|x| x.bit_len() as u64).max().unwrap_or(0);
        let shorter = a.len().min(b.len());
        let slot_bits = bits(a) + bits(b) + 64 - u64::from(shorter.leading_zeros()) + 1;
        let words = slot_bits.div_ceil(u64::from(Word::BITS)) as usize;
        let total = (a.len() + b.len()) as u64 * words as u64;
        // The multiply's words, counted against the budget as a convolution's pairs.
        if let Err(e) = spend(total * (total as f64).log2().max(1.0) as u64 / 4) {
            return Some(Err(e));
        }
        let pack = |l: &[UBig]| {
            let mut digits = Vec::with_capacity(l.len() * words);
            for x in l {
                let d = x.as_words();
                digits.extend_from_slice(d);
                digits.resize(digits.len() + words - d.len(), 0);
            }
            UBig::from_words(&digits)
        };
        // A law added to itself (`times`' doublings): one number squared, about two
        // thirds of a multiply.
        let product = if std::ptr::eq(a, b) {
            pack(a).sqr()
        } else {
            pack(a) * pack(b)
        };
        let product = product.as_words();
        Some(Ok((0..a.len() + b.len() - 1)
            .map(|i| {
                let from = (i * words).min(product.len());
                let to = ((i + 1) * words).min(product.len());
                UBig::from_words(&product[from..to])
            })
            .collect()))
    }
}

/// The largest product of powers of `factors` (the denominator's primes, each at most
/// its power there) that divides every one of `ns`.
fn common_power(factors: &[(u32, u32)], ns: &[UBig]) -> UBig {
    let ns: Vec<&UBig> = ns.iter().filter(|w| !w.is_zero()).collect();
    factors.iter().fold(UBig::ONE, |g, &(p, e)| {
        g * UBig::from(p).pow(least_valuation(&ns, p, e) as usize)
    })
}

/// How many times `p` divides every one of `ns` (none zero), at most `cap`. Each count
/// is first taken modulo the largest power of `p` in a word, one pass over its digits,
/// which shows its power of `p` wherever that is smaller; a count is divided further
/// only where every one is divisible by that power. A chain's states of hundreds of
/// digits, scaled by their dice's sizes round after round, were divided out power by
/// power each round: half of Tenzi's time.
fn least_valuation(ns: &[&UBig], p: u32, cap: u32) -> u32 {
    if p == 2 {
        return ns.iter().fold(cap, |m, w| valuation(w, p, m));
    }
    let (k, pk) = word_power(p);
    let mut m = cap;
    for w in ns {
        if m == 0 {
            return 0;
        }
        let mut r: u64 = *w % pk;
        if r != 0 {
            let mut v = 0;
            while v < m && r.is_multiple_of(u64::from(p)) {
                r /= u64::from(p);
                v += 1;
            }
            m = v;
        }
    }
    if m < k {
        return m;
    }
    // Every count holds a word's power of p: the least power found under a cap doubled
    // over all of them, so that the work follows the least power, not the largest. A
    // chain's mass stopped round by round over its last denominator holds the powers of
    // every round after its own (3^68000 past 1,000 rounds of 68 dF): found count by
    // count, each divided a word's power at a time to the end, it took 16 s.
    let mut c = k;
    loop {
        c = c.saturating_mul(2).min(m);
        let least = ns
            .iter()
            .fold(c, |a, w| if a == 0 { 0 } else { valuation(w, p, a) });
        if least < c || c == m {
            return least;
        }
    }
}

/// The largest power of `p` in a word, and its exponent.
fn word_power(p: u32) -> (u32, u64) {
    let k = (63.0 / f64::from(p).log2()).floor() as u32;
    (k, u64::from(p).pow(k))
}

/// How many times `p` divides `x`, at most `cap`, and `x` divided by `p` that many
/// times: a value's fraction reduced by the denominator's primes one by one, not by
/// their product (two long divisions a value).
pub(super) fn divided_out(x: &UBig, p: u32, cap: u32) -> (u32, UBig) {
    if x.is_zero() {
        return (cap, UBig::ZERO);
    }
    if p == 2 {
        let v = x
            .trailing_zeros()
            .map_or(cap, |z| u32::try_from(z).unwrap_or(u32::MAX).min(cap));
        return (v, x >> v as usize);
    }
    // Whole powers of p that fit a word: one pass over the digits each. The remainder
    // by that power shows what is left of the power of p (less than a word's), so no
    // pass divides by p alone (1.7 ms of 12d6 again 6 went on 38 of them a value).
    let (k, pk) = word_power(p);
    let (mut x, mut v) = (x.clone(), 0);
    while v < cap {
        let mut r: u64 = &x % pk;
        if r != 0 {
            let mut more = 0;
            while r.is_multiple_of(u64::from(p)) {
                r /= u64::from(p);
                more += 1;
            }
            let more = more.min(cap - v);
            x /= u64::from(p).pow(more);
            return (v + more, x);
        }
        let step = k.min(cap - v);
        x /= u64::from(p).pow(step);
        v += step;
    }
    (v, x)
}

/// Powers of `p` whose exponents double from a word's (`p^k`, `p^2k`, `p^4k`, ...), each
/// none longer than `longest` (a denominator): made once for the denominator's prime and
/// shared by every value's fraction, so that a large power is divided out in a few long
/// divisions.
pub(super) fn ladder(p: u32, longest: &UBig) -> Vec<(UBig, u32)> {
    if p == 2 {
        // A power of 2 is found from the trailing zeros.
        return Vec::new();
    }
    let bits = longest.bit_len();
    let (k, pk) = word_power(p);
    let mut rungs = vec![(UBig::from(pk), k)];
    loop {
        let (top, e) = rungs.last().expect("one rung");
        if top.bit_len() * 2 > bits + 1 || e.checked_mul(2).is_none() {
            return rungs;
        }
        let next = (top.sqr(), e * 2);
        rungs.push(next);
    }
}

/// [`divided_out`] with the rungs of [`ladder`] (for a number no longer than the ladder
/// was made for): up the rungs while they divide, then down, each rung at most once, so
/// the power found takes about twice as many long divisions as its exponent has bits,
/// and a number with no power of p one word's remainder. A value's fraction over 1,000
/// rounds of 68 dF shares up to 3^68000 with the denominator: a word's power at a time,
/// 1,700 passes over 1,900 words for each of 1,000 values took 12 s.
pub(super) fn divided_out_by(x: &UBig, p: u32, cap: u32, rungs: &[(UBig, u32)]) -> (u32, UBig) {
    let mut top = None;
    for (i, (power, e)) in rungs.iter().enumerate() {
        if *e > cap || power.bit_len() > x.bit_len() {
            break;
        }
        let (q, r) = x.div_rem(power);
        if !r.is_zero() {
            break;
        }
        top = Some((i, q));
    }
    let Some((top, q)) = top else {
        return divided_out(x, p, cap);
    };
    // What is left to find is under the rung that did not divide, twice the one that
    // did: each rung below is needed at most once.
    let (mut x, mut v) = (q, rungs[top].1);
    for (power, e) in rungs[..top].iter().rev() {
        if v + e > cap || power.bit_len() > x.bit_len() {
            continue;
        }
        let (q, r) = (&x).div_rem(power);
        if r.is_zero() {
            x = q;
            v += e;
        }
    }
    let (more, x) = divided_out(&x, p, cap - v);
    (v + more, x)
}

/// How many times `p` divides `x`, at most `cap` (0 is divided any number of times).
fn valuation(x: &UBig, p: u32, cap: u32) -> u32 {
    if p == 2 {
        return x
            .trailing_zeros()
            .map_or(cap, |z| u32::try_from(z).unwrap_or(u32::MAX).min(cap));
    }
    divided_out(x, p, cap).0
}

/// The primes of `den` and their powers, where all are below 2,000 (a die's size, or a
/// rerolled or exploding die's small denominator); None where a larger one is left.
pub(super) fn small_factors(den: &UBig) -> Option<Vec<(u32, u32)>> {
    let (mut rest, mut out) = (den.clone(), Vec::new());
    for p in 2u32..2000 {
        if rest.is_one() {
            return Some(out);
        }
        // A composite p never divides what its primes have left.
        if &rest % p == 0 {
            let e = valuation(&rest, p, u32::MAX);
            rest /= UBig::from(p).pow(e as usize);
            out.push((p, e));
        }
    }
    rest.is_one().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each count over a denominator of small primes in lowest terms by multiplications,
    /// against the gcd: powers of 2, of 3, of 20, a product of primes up to 1999, a
    /// prime past the primes looked for (none), and counts sharing none, some or all.
    #[test]
    fn a_count_over_a_denominator_of_small_primes_is_in_lowest_terms() {
        let dens: [u128; 7] = [
            1,
            1 << 127,
            3u128.pow(80),
            20u128.pow(21),
            6u128.pow(40),
            7 * 1999 * 1999 * 11u128.pow(20),
            (1u128 << 100) * 5 * 7 * 13,
        ];
        let mut x: u128 = 0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15;
        for den in dens {
            let f = WordFactors::of(den).expect("small primes");
            for i in 0..3000u32 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let w = match i % 3 {
                    0 => x % den,
                    1 => (x % 97 + 1).min(den) * (den / (x % 97 + 1).min(den)),
                    _ => den / (u128::from(i) % 7 + 1).min(den),
                };
                let g = num_integer::Integer::gcd(&den, &w).max(1);
                let want = if w == 0 { (0, 1) } else { (w / g, den / g) };
                assert_eq!(f.lowest(w), want, "{w} over {den}");
            }
        }
        // 2003 is prime, past the primes looked for.
        assert!(WordFactors::of(2003 * 8).is_none());
        assert!(WordFactors::of(0).is_none());
    }

    /// A gcd of a word and two words by one division first, against the gcd bit by bit:
    /// numbers sharing a factor, either one past a word, one of them 0.
    #[test]
    fn a_gcd_through_a_word_is_the_gcd() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
        for i in 0..2000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let shared = u128::from(i % 97 + 1) * 6;
            let a = (x >> (64 + i % 70)) * shared;
            let b = (x.rotate_left(i) >> (i % 40)) / shared.max(1) * shared;
            for (a, b) in [(a, b), (b, a), (0, b), (a, 0)] {
                assert_eq!(
                    gcd_words(a, b),
                    num_integer::Integer::gcd(&a, &b),
                    "{a} {b}"
                );
            }
        }
    }

    /// The power of p dividing a number, against dividing by p one at a time: numbers
    /// `m * p^e` for every small `e` around a word's power, capped below and above.
    #[test]
    fn valuation_is_the_power_dividing() {
        for p in [2u32, 3, 5, 7, 11, 1999] {
            for m in [1u64, 2, 4, 6, 10, 12, 77, 1_000_003] {
                for e in 0..90usize {
                    let x = UBig::from(m) * UBig::from(p).pow(e);
                    let mut naive = 0u32;
                    let mut y = x.clone();
                    while &y % p == 0 {
                        y /= p;
                        naive += 1;
                    }
                    for cap in [0u32, 1, 5, 39, 40, 41, 80, 200] {
                        assert_eq!(
                            valuation(&x, p, cap),
                            naive.min(cap),
                            "{m} * {p}^{e}, cap {cap}"
                        );
                    }
                }
            }
        }
        assert_eq!(valuation(&UBig::ZERO, 3, 17), 17);
        // What is left once the power is divided out, likewise.
        for p in [2u32, 3, 7, 1999] {
            for e in 0..90usize {
                let x = UBig::from(77u8) * UBig::from(p).pow(e);
                for cap in [0u32, 1, 39, 40, 200] {
                    let (v, rest) = divided_out(&x, p, cap);
                    assert_eq!(v, valuation(&x, p, cap), "{p}^{e}, cap {cap}");
                    assert_eq!(
                        rest * UBig::from(p).pow(v as usize),
                        x,
                        "{p}^{e}, cap {cap}"
                    );
                }
            }
        }
        assert_eq!(divided_out(&UBig::ZERO, 5, 9), (9, UBig::ZERO));
    }

    /// The ladder's long divisions find what dividing a word's power at a time finds:
    /// powers from none to thousands, capped anywhere, on numbers as long as the ladder.
    #[test]
    fn the_ladder_divides_out_what_a_word_at_a_time_does() {
        for p in [2u32, 3, 5, 7, 1999] {
            let top = UBig::from(p).pow(5000);
            let rungs = ladder(p, &top);
            assert!(p == 2 || rungs.len() > 4, "{p}: {} rungs", rungs.len());
            for e in [0usize, 1, 27, 39, 40, 41, 81, 700, 2047, 2048, 4999, 5000] {
                let x = UBig::from(77u8) * UBig::from(p).pow(e);
                let x = if x.bit_len() > top.bit_len() {
                    UBig::from(p).pow(e)
                } else {
                    x
                };
                for cap in [0u32, 1, 40, 700, 2100, 4999, u32::MAX] {
                    assert_eq!(
                        divided_out_by(&x, p, cap, &rungs),
                        divided_out(&x, p, cap),
                        "{p}^{e}, cap {cap}"
                    );
                }
            }
        }
    }

    /// The least power of p among counts, against each count's own power: counts with
    /// powers far apart (a few to thousands), in every order, capped or not.
    #[test]
    fn the_least_power_is_the_least_of_each_count_s() {
        for p in [3u32, 7, 1999] {
            let (k, _) = word_power(p);
            let powers = [0usize, 1, k as usize, 2 * k as usize + 1, 300, 3000];
            for (i, &low) in powers.iter().enumerate() {
                let mut counts: Vec<UBig> = powers[i..]
                    .iter()
                    .map(|&e| UBig::from([4u8, 5, 8][e % 3]) * UBig::from(p).pow(e))
                    .collect();
                for turn in 0..counts.len() {
                    counts.rotate_left(1);
                    let all: Vec<&UBig> = counts.iter().collect();
                    for cap in [u32::MAX, 2000, 100, k, 1] {
                        assert_eq!(
                            least_valuation(&all, p, cap),
                            (low as u32).min(cap),
                            "p {p}, least {low}, turn {turn}, cap {cap}"
                        );
                    }
                }
            }
        }
    }
}
