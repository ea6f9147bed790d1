//! What a rules module's exact distribution is computed in: `f64` for the tables and
//! charts, [`Ratio`] for the fractions beside them. Each module writes its exact code
//! once, generic over [`Prob`], and runs it in both, so a fraction is the float's value
//! counted with whole numbers, never read off the float (a fight stopped at its round
//! limit is within 1e-30 of a small fraction that is not its value).

use std::ops::{Add, AddAssign, Mul, Sub};

use dashu_int::ops::{DivRem, Gcd, UnsignedAbs};
use dashu_int::{IBig, UBig};

use super::Pmf;
use crate::fraction::Fraction;

/// A probability the exact code computes with. Every chance the rules give is a ratio
/// of whole numbers (a die's faces that succeed over its sides, a bag's tokens of one
/// kind over its tokens), so `+`, `-`, `*` and [`Prob::ratio`] are all the code needs.
pub trait Prob:
    Clone
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + AddAssign
{
    /// Whether its values are exact (whole numbers), not rounded: code that stops where
    /// the rest is too small for a float to tell goes on to the end in these.
    const EXACT: bool;
    /// No chance.
    fn zero() -> Self;
    /// Certain.
    fn one() -> Self;
    /// `n / d`, `d > 0`.
    fn ratio(n: u64, d: u64) -> Self;
    /// Whether it is no chance (a branch not worth walking).
    fn is_zero(&self) -> bool;
    /// As a float, for what is reported only as one (a capped pool's top bucket).
    fn to_f64(&self) -> f64;
    /// `self^k` (floats by `powi`, as the rules modules raise them).
    fn pow(&self, k: u32) -> Self;
    /// Above zero (a float's difference of two chances may round below).
    fn is_positive(&self) -> bool;
    /// `self / k`: a share of `k` equal chances (a die's faces), as the floats divide.
    fn over(self, k: u64) -> Self;
    /// Binomial(n, p): floats by Pascal's triangle (as [`super::binomial`] makes it),
    /// whole numbers by `C(n, k) p^k (1 - p)^(n - k)`.
    fn binomial(n: u32, p: &Self) -> Pmf<Self>;
}

impl Prob for f64 {
    const EXACT: bool = false;
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
    fn ratio(n: u64, d: u64) -> Self {
        n as f64 / d as f64
    }
    fn is_zero(&self) -> bool {
        *self == 0.0
    }
    fn to_f64(&self) -> f64 {
        *self
    }
    fn over(self, k: u64) -> Self {
        self / k as f64
    }
    fn pow(&self, k: u32) -> Self {
        self.powi(k as i32)
    }
    fn is_positive(&self) -> bool {
        *self > 0.0
    }
    fn binomial(n: u32, p: &Self) -> Pmf<Self> {
        super::binomial(n, *p)
    }
}

/// An exact probability: a whole number over a positive one, not kept in lowest terms
/// (a gcd per operation would cost more than the work: a duel's numbers grow to
/// thousands of digits). A rules module's chances are faces over a die's sides or
/// tokens over a bag's, so its denominators are products of a few small primes: kept
/// as those primes' powers, two sums meet by multiplying each numerator by the powers
/// the other has more of, with no division. A denominator of more distinct primes is a
/// big one, met over a least common multiple. Made lowest once, in
/// [`Ratio::fraction`]. In dashu's integers, which hold a number of up to two words
/// without allocating.
#[derive(Clone, Debug)]
pub struct Ratio {
    n: IBig,
    d: Den,
}

/// Distinct primes a denominator is kept as powers of.
const SLOTS: usize = 6;

/// Two denominators' primes and their exponents in each, and how many primes.
type Aligned = ([u32; SLOTS], [u32; SLOTS], [u32; SLOTS], usize);

/// A denominator: powers of up to [`SLOTS`] primes (ascending), or any other.
#[derive(Clone, Debug)]
enum Den {
    Primes {
        p: [u32; SLOTS],
        e: [u32; SLOTS],
        len: u8,
    },
    Big(UBig),
}

/// 1: no prime at all.
const UNIT: Den = Den::Primes {
    p: [0; SLOTS],
    e: [0; SLOTS],
    len: 0,
};

impl Den {
    /// `d`'s primes, by trial division (a die's sides, a bag's tokens: small numbers).
    fn of(mut d: u64) -> Den {
        let (mut p, mut e, mut len) = ([0u32; SLOTS], [0u32; SLOTS], 0usize);
        let mut f = 2u64;
        while d > 1 {
            if f * f > d {
                f = d;
            }
            if d.is_multiple_of(f) {
                let Ok(prime) = u32::try_from(f) else {
                    return Den::Big(UBig::from(d));
                };
                if len == SLOTS {
                    // Too many primes to keep: the whole number.
                    let kept = Den::Primes {
                        p,
                        e,
                        len: len as u8,
                    };
                    return Den::Big(kept.value() * UBig::from(d));
                }
                p[len] = prime;
                while d.is_multiple_of(f) {
                    d /= f;
                    e[len] += 1;
                }
                len += 1;
            }
            f += 1;
        }
        Den::Primes {
            p,
            e,
            len: len as u8,
        }
    }

    fn value(&self) -> UBig {
        match self {
            Den::Primes { p, e, len } => {
                (0..*len as usize).fold(UBig::ONE, |v, i| v * UBig::from(p[i]).pow(e[i] as usize))
            }
            Den::Big(u) => u.clone(),
        }
    }

    /// Both as powers of the same primes (ascending), each with its exponents, the
    /// primes' count last; None where they are more primes than [`SLOTS`] or either is
    /// big.
    fn aligned(&self, o: &Den) -> Option<Aligned> {
        let (Den::Primes { p, e, len }, Den::Primes { p: q, e: f, len: m }) = (self, o) else {
            return None;
        };
        let (len, m) = (*len as usize, *m as usize);
        if len == m && p[..len] == q[..m] {
            return Some((*p, *e, *f, len));
        }
        let (mut primes, mut mine, mut theirs) = ([0u32; SLOTS], [0u32; SLOTS], [0u32; SLOTS]);
        let (mut i, mut j, mut k) = (0, 0, 0);
        while i < len || j < m {
            if k == SLOTS {
                return None;
            }
            let a = (i < len).then(|| p[i]);
            let b = (j < m).then(|| q[j]);
            match (a, b) {
                (Some(x), Some(y)) if x == y => {
                    (primes[k], mine[k], theirs[k]) = (x, e[i], f[j]);
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x < y => {
                    (primes[k], mine[k], theirs[k]) = (x, e[i], 0);
                    i += 1;
                }
                (Some(x), None) => {
                    (primes[k], mine[k], theirs[k]) = (x, e[i], 0);
                    i += 1;
                }
                (_, Some(y)) => {
                    (primes[k], mine[k], theirs[k]) = (y, 0, f[j]);
                    j += 1;
                }
                (None, None) => break,
            }
            k += 1;
        }
        Some((primes, mine, theirs, k))
    }

    fn from_parts(primes: &[u32], exps: impl Iterator<Item = u32>) -> Den {
        let (mut p, mut e) = ([0u32; SLOTS], [0u32; SLOTS]);
        let mut len = 0;
        for (&prime, exp) in primes.iter().zip(exps) {
            if exp > 0 {
                p[len] = prime;
                e[len] = exp;
                len += 1;
            }
        }
        Den::Primes {
            p,
            e,
            len: len as u8,
        }
    }

    fn times(&self, o: &Den) -> Den {
        match self.aligned(o) {
            Some((primes, a, b, k)) => {
                Den::from_parts(&primes[..k], a[..k].iter().zip(&b[..k]).map(|(x, y)| x + y))
            }
            None => Den::Big(self.value() * o.value()),
        }
    }
}

/// `prod primes[i]^(top[i] - have[i])`: what a numerator over `have` is multiplied by to
/// be over `top`.
fn scale(primes: &[u32], have: &[u32], top: &[u32]) -> Option<UBig> {
    let mut s: Option<UBig> = None;
    for ((&p, &h), &t) in primes.iter().zip(have).zip(top) {
        if t > h {
            let f = UBig::from(p).pow((t - h) as usize);
            s = Some(match s {
                Some(v) => v * f,
                None => f,
            });
        }
    }
    s
}

impl Ratio {
    /// In lowest terms, for a table's fraction column. A denominator kept as prime
    /// powers is reduced by dividing those primes out of the numerator as often as
    /// they go (a division of a long number by a word, a few times), not by a gcd of
    /// two long numbers (a duel's thousands of digits: a quarter of a millisecond each).
    pub fn fraction(&self) -> Fraction {
        if self.n < IBig::ZERO {
            return Fraction::new(self.n.clone(), IBig::from(self.d.value()))
                .unwrap_or_else(Fraction::zero);
        }
        let mut n = (&self.n).unsigned_abs();
        if n.is_zero() {
            return Fraction::zero();
        }
        let Den::Primes { p, e, len } = &self.d else {
            let d = self.d.value();
            let g = Gcd::gcd(&n, &d);
            return Fraction::lowest(n / &g, d / &g);
        };
        let mut left = [0u32; SLOTS];
        for i in 0..*len as usize {
            let (prime, mut k) = (u64::from(p[i]), e[i]);
            // Many at a time while they go (the largest power of the prime in a word),
            // then one at a time.
            let mut chunk = 1u32;
            while prime.checked_pow(chunk + 1).is_some() {
                chunk += 1;
            }
            while k > 0 {
                let c = chunk.min(k);
                let (q, r) = (&n).div_rem(prime.pow(c));
                if r == 0 {
                    n = q;
                    k -= c;
                } else if c > 1 {
                    chunk = c / 2;
                } else {
                    break;
                }
            }
            left[i] = k;
        }
        let d =
            (0..*len as usize).fold(UBig::ONE, |v, i| v * UBig::from(p[i]).pow(left[i] as usize));
        Fraction::lowest(n, d)
    }

    /// Every entry of a distribution in lowest terms.
    pub fn fractions(p: &[Ratio]) -> Vec<Fraction> {
        p.iter().map(Ratio::fraction).collect()
    }
}

impl PartialEq for Ratio {
    fn eq(&self, o: &Ratio) -> bool {
        &self.n * IBig::from(o.d.value()) == &o.n * IBig::from(self.d.value())
    }
}

impl Add for Ratio {
    type Output = Ratio;
    fn add(self, o: Ratio) -> Ratio {
        if self.n.is_zero() {
            return o;
        }
        if o.n.is_zero() {
            return self;
        }
        // Powers of the same few primes: over each prime's higher power.
        if let Some((primes, a, b, k)) = self.d.aligned(&o.d) {
            let (primes, a, b) = (&primes[..k], &a[..k], &b[..k]);
            if a == b {
                return Ratio {
                    n: self.n + o.n,
                    d: self.d,
                };
            }
            let mut top = [0u32; SLOTS];
            for i in 0..k {
                top[i] = a[i].max(b[i]);
            }
            let top = &top[..k];
            let up = |n: IBig, have: &[u32]| match scale(primes, have, top) {
                Some(f) => n * IBig::from(f),
                None => n,
            };
            return Ratio {
                n: up(self.n, a) + up(o.n, b),
                d: Den::from_parts(primes, top.iter().copied()),
            };
        }
        let (d1, d2) = (self.d.value(), o.d.value());
        if d1 == d2 {
            return Ratio {
                n: self.n + o.n,
                d: Den::Big(d1),
            };
        }
        let g = Gcd::gcd(&d1, &d2);
        let (q1, q2) = (&d1 / &g, &d2 / &g);
        Ratio {
            n: self.n * IBig::from(q2) + o.n * IBig::from(q1.clone()),
            d: Den::Big(q1 * d2),
        }
    }
}

impl Sub for Ratio {
    type Output = Ratio;
    fn sub(self, o: Ratio) -> Ratio {
        self + Ratio { n: -o.n, d: o.d }
    }
}

impl Mul for Ratio {
    type Output = Ratio;
    fn mul(self, o: Ratio) -> Ratio {
        if self.n.is_zero() || o.n.is_zero() {
            return Ratio::zero();
        }
        Ratio {
            d: self.d.times(&o.d),
            n: self.n * o.n,
        }
    }
}

impl AddAssign for Ratio {
    fn add_assign(&mut self, o: Ratio) {
        let me = std::mem::replace(self, Ratio::zero());
        *self = me + o;
    }
}

impl Prob for Ratio {
    const EXACT: bool = true;
    fn zero() -> Self {
        Ratio {
            n: IBig::ZERO,
            d: UNIT,
        }
    }
    fn one() -> Self {
        Ratio {
            n: IBig::ONE,
            d: UNIT,
        }
    }
    fn ratio(n: u64, d: u64) -> Self {
        assert!(d > 0, "a chance over no sides");
        Ratio {
            n: IBig::from(n),
            d: Den::of(d),
        }
    }
    fn is_zero(&self) -> bool {
        self.n.is_zero()
    }
    fn to_f64(&self) -> f64 {
        self.fraction().to_f64()
    }
    fn pow(&self, k: u32) -> Self {
        let mut out = Ratio::one();
        for _ in 0..k {
            out = out * self.clone();
        }
        out
    }
    fn is_positive(&self) -> bool {
        self.n > IBig::ZERO
    }
    fn over(self, k: u64) -> Self {
        assert!(k > 0, "a share of no chances");
        Ratio {
            d: self.d.times(&Den::of(k)),
            n: self.n,
        }
    }
    fn binomial(n: u32, p: &Self) -> Pmf<Self> {
        let q = Ratio::one() - p.clone();
        // As the floats' triangle: a chance of 1 or more is certain, of 0 or less never.
        if q.n <= IBig::ZERO || p.n <= IBig::ZERO {
            let at = if p.n <= IBig::ZERO { 0 } else { n as usize };
            let mut out = vec![Ratio::zero(); n as usize + 1];
            out[at] = Ratio::one();
            return Pmf(out);
        }
        let powers = |x: &Ratio| {
            let mut out = vec![Ratio::one()];
            for k in 0..n as usize {
                let next = out[k].clone() * x.clone();
                out.push(next);
            }
            out
        };
        let (ps, qs) = (powers(p), powers(&q));
        let mut ways = UBig::ONE;
        (0..=n)
            .map(|k| {
                let w = Ratio {
                    n: IBig::from(ways.clone()),
                    d: UNIT,
                } * ps[k as usize].clone()
                    * qs[(n - k) as usize].clone();
                ways = &ways * UBig::from(n - k) / UBig::from(k + 1);
                w
            })
            .collect::<Vec<_>>()
            .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: u64, d: u64) -> Ratio {
        Ratio::ratio(n, d)
    }

    #[test]
    fn sums_and_products_are_the_fractions_by_hand() {
        // 1/6 + 5/36 = 11/36; (1/2)(2/3) = 1/3; 1 - 1/4 = 3/4; 1/4 + 1/6 = 5/12.
        assert_eq!((q(1, 6) + q(5, 36)).fraction().to_string(), "11/36");
        assert_eq!((q(1, 2) * q(2, 3)).fraction().to_string(), "1/3");
        assert_eq!((Ratio::one() - q(1, 4)).fraction().to_string(), "3/4");
        assert_eq!((q(1, 4) + q(1, 6)).fraction().to_string(), "5/12");
        assert!((q(2, 4) - q(1, 2)).is_zero());
        assert_eq!(q(3, 6) + q(1, 2), Ratio::one());
        assert_eq!(q(1, 3), q(2, 6));
    }
}
