//! A weight that is a float with its own exponent: the law's one evaluator, run where
//! counting in integers would pass its budget (`10000d6`, `160d20 keep highest 80`, a
//! fight of 1,000 rounds), gives floats right to about 1e-15 of each value, and none
//! is lost below 1e-308.
//!
//! A plain `f64` would overflow on what the law multiplies: a pool's denominator is its
//! dice's sides multiplied (6^400 passes 1e308), and a binomial's count of ways passes
//! it at a few hundred dice. Here a value is `m · 2^e`, the mantissa's own exponent
//! kept near zero, so products of any size keep their relative precision. Division is
//! real, so every count "divides" every other: a law's common factor is its
//! denominator, and dividing it out leaves chances (of 1).

use super::{NoLaw, Weight};
use dashu_int::ops::BitTest;
use dashu_int::UBig;

/// The operations on floats past which the law gives up, where counting in integers
/// passed its budget: about half a second on one core.
pub const REAL_WORK: u64 = 100_000_000;

/// `m · 2^e`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Real {
    m: f64,
    e: i64,
}

/// The mantissa's binary exponent stays within this of 0: two such multiplied stay far
/// from the float's limits (±1022), with no check on every product.
const DRIFT: i64 = 300;

/// `2^k`, for `k` in the float's normal range.
fn pow2(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

impl Real {
    /// The mantissa's exponent brought back to 0 where it has drifted past [`DRIFT`].
    #[inline]
    fn settled(m: f64, e: i64) -> Real {
        if m == 0.0 || !m.is_finite() {
            return Real { m: 0.0, e: 0 };
        }
        let k = ((m.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        if (-DRIFT..=DRIFT).contains(&k) {
            return Real { m, e };
        }
        Real {
            m: m * pow2(-k),
            e: e + k,
        }
    }

    /// `other` on this one's exponent: None where it is too small to move it.
    #[inline]
    fn aligned(&self, o: &Real) -> Option<f64> {
        let d = o.e - self.e;
        if d == 0 {
            Some(o.m)
        } else if d.abs() > 900 {
            // Mantissas within 2^±300: the smaller is below 2^-300 of the larger.
            None
        } else {
            Some(o.m * pow2(d))
        }
    }

    /// The value's own binary exponent: the mantissa's with `e`.
    fn exponent(&self) -> i64 {
        self.e + ((self.m.to_bits() >> 52) & 0x7ff) as i64 - 1023
    }

    /// The value as a float (0 below the float's range, infinity above).
    pub fn to_f64(self) -> f64 {
        if self.m == 0.0 {
            return 0.0;
        }
        let k = self.exponent();
        if k > 1024 {
            return f64::INFINITY;
        }
        if k < -1080 {
            return 0.0;
        }
        // In two steps: each factor stays in the float's range.
        let half = self.e / 2;
        self.m * pow2(half) * pow2(self.e - half)
    }

    /// `a / b` as a float, for chances that would underflow as two floats.
    pub fn ratio(a: &Real, b: &Real) -> f64 {
        if b.m == 0.0 {
            return f64::NAN;
        }
        Real::settled(a.m / b.m, a.e - b.e).to_f64()
    }

    fn sum(&self, o: &Real, sign: f64) -> Real {
        if o.m == 0.0 {
            return *self;
        }
        if self.m == 0.0 {
            return Real {
                m: sign * o.m,
                e: o.e,
            };
        }
        if o.e > self.e {
            // On the larger's exponent, so that the smaller is the one rounded.
            return match o.aligned(self) {
                Some(m) => Real::settled(m + sign * o.m, o.e),
                None => Real {
                    m: sign * o.m,
                    e: o.e,
                },
            };
        }
        match self.aligned(o) {
            Some(m) => Real::settled(self.m + sign * m, self.e),
            None => *self,
        }
    }
}

impl PartialEq for Real {
    /// By value: `1 · 2^0` and `2^300 · 2^-300` are one.
    fn eq(&self, o: &Real) -> bool {
        if self.m == 0.0 || o.m == 0.0 {
            return self.m == o.m;
        }
        self.e == o.e && self.m == o.m || self.aligned(o) == Some(self.m)
    }
}

impl Weight for Real {
    const FAR_STATE: u64 = 12;
    fn from_u128(v: u128) -> Self {
        Real::settled(v as f64, 0)
    }
    fn from_big(v: &UBig) -> Result<Self, NoLaw> {
        let bits = v.bit_len();
        if bits <= 64 {
            return Ok(Real::settled(u64::try_from(v).unwrap_or(0) as f64, 0));
        }
        let shift = bits - 64;
        let top = u64::try_from(&(v >> shift)).unwrap_or(u64::MAX);
        Ok(Real::settled(top as f64, shift as i64))
    }
    /// Not a count: the law's floats are never made integers ([`Weight::ratio`] reads
    /// them).
    fn to_big(&self) -> UBig {
        UBig::ZERO
    }
    fn to_u128(&self) -> Option<u128> {
        None
    }
    fn is_zero(&self) -> bool {
        self.m == 0.0
    }
    fn is_one(&self) -> bool {
        *self == Real { m: 1.0, e: 0 }
    }
    fn add_to(&mut self, o: &Self) -> Result<(), NoLaw> {
        *self = self.sum(o, 1.0);
        Ok(())
    }
    fn add_product(&mut self, a: &Self, b: &Self) -> Result<(), NoLaw> {
        let p = Real::settled(a.m * b.m, a.e + b.e);
        self.add_to(&p)
    }
    /// Rounding may leave a difference a hair below 0 where 0 is meant: 0.
    fn sub_from(&mut self, o: &Self) -> Result<(), NoLaw> {
        let d = self.sum(o, -1.0);
        *self = if d.m < 0.0 { Real::default() } else { d };
        Ok(())
    }
    fn mul(&self, o: &Self) -> Result<Self, NoLaw> {
        Ok(Real::settled(self.m * o.m, self.e + o.e))
    }
    fn mul_small(&self, k: u64) -> Result<Self, NoLaw> {
        Ok(Real::settled(self.m * k as f64, self.e))
    }
    fn div(&self, o: &Self) -> Self {
        if o.m == 0.0 {
            return Real::default();
        }
        Real::settled(self.m / o.m, self.e - o.e)
    }
    fn div_small(&self, k: u64) -> Self {
        if k == 0 {
            return Real::default();
        }
        Real::settled(self.m / k as f64, self.e)
    }
    fn multiple_of(&self, o: &Self) -> bool {
        o.m != 0.0
    }
    fn gcd(&self, _: &Self) -> Self {
        Real::one()
    }
    fn pow(&self, e: u32) -> Result<Self, NoLaw> {
        let (mut out, mut base, mut k) = (Real::one(), *self, e);
        while k > 0 {
            if k & 1 == 1 {
                out = out.mul(&base)?;
            }
            k >>= 1;
            if k > 0 {
                base = base.mul(&base)?;
            }
        }
        Ok(out)
    }
    /// The denominator: what is left are the chances, over 1.
    fn common_factor(den: &Self, _: &[Self]) -> Self {
        *den
    }
    fn bits(&self) -> u32 {
        0
    }
    fn ratio(a: &Self, b: &Self) -> f64 {
        Real::ratio(a, b)
    }
    const EXACT: bool = false;
    const SQUARES: bool = true;

    /// Both sides as plain floats on their largest value's exponent, convolved as
    /// floats (a loop the compiler vectorises) and put back on the two exponents: a
    /// sum of 10,000 dice is squared up in a second. A value below 2^-1000 of its
    /// side's largest is lost here (the far tails of such a sum, as in any float
    /// convolution); the rest keep their precision.
    fn kronecker(
        a: &[Self],
        b: &[Self],
        spend: &mut dyn FnMut(u64) -> Result<(), NoLaw>,
    ) -> Option<Result<Vec<Self>, NoLaw>> {
        let top = |l: &[Real]| {
            l.iter()
                .filter(|x| x.m != 0.0)
                .map(Real::exponent)
                .max()
                .unwrap_or(0)
        };
        let plain = |l: &[Real], at: i64| -> Vec<f64> {
            l.iter()
                .map(|x| {
                    let d = x.e - at;
                    if x.m == 0.0 || d < -1300 {
                        0.0
                    } else {
                        // Within 2^±300 of the mantissa's own: two steps in range.
                        x.m * pow2((d / 2).max(-1000)) * pow2(d - (d / 2).max(-1000))
                    }
                })
                .collect()
        };
        let (ta, tb) = (top(a), top(b));
        let out = convolve(&plain(a, ta), &plain(b, tb), spend);
        Some(out.map(|out| out.into_iter().map(|p| Real::settled(p, ta + tb)).collect()))
    }
}

/// Plain floats, tried before [`Real`]: where every chance stays in the float's range
/// (dice whose laws are chances, not counts of ways), as fast as the floats can be; the
/// first product past it says so ([`NoLaw::Wide`]) and the law runs again in [`Real`].
/// A value below 1e-308 is lost, as in any float sum.
impl Weight for f64 {
    const FAR_STATE: u64 = 12;
    fn from_u128(v: u128) -> Self {
        v as f64
    }
    fn from_big(v: &UBig) -> Result<Self, NoLaw> {
        let r = Real::from_big(v)?.to_f64();
        if r.is_finite() {
            Ok(r)
        } else {
            Err(NoLaw::Wide)
        }
    }
    fn to_big(&self) -> UBig {
        UBig::ZERO
    }
    fn to_u128(&self) -> Option<u128> {
        None
    }
    fn is_zero(&self) -> bool {
        *self == 0.0
    }
    fn is_one(&self) -> bool {
        *self == 1.0
    }
    fn add_to(&mut self, o: &Self) -> Result<(), NoLaw> {
        *self += o;
        finite(*self)
    }
    fn add_product(&mut self, a: &Self, b: &Self) -> Result<(), NoLaw> {
        *self += a * b;
        finite(*self)
    }
    fn sub_from(&mut self, o: &Self) -> Result<(), NoLaw> {
        *self = (*self - o).max(0.0);
        Ok(())
    }
    fn mul(&self, o: &Self) -> Result<Self, NoLaw> {
        let p = self * o;
        finite(p).map(|_| p)
    }
    fn mul_small(&self, k: u64) -> Result<Self, NoLaw> {
        let p = self * k as f64;
        finite(p).map(|_| p)
    }
    fn div(&self, o: &Self) -> Self {
        if *o == 0.0 {
            0.0
        } else {
            self / o
        }
    }
    fn div_small(&self, k: u64) -> Self {
        if k == 0 {
            0.0
        } else {
            self / k as f64
        }
    }
    fn multiple_of(&self, o: &Self) -> bool {
        *o != 0.0
    }
    fn gcd(&self, _: &Self) -> Self {
        1.0
    }
    fn pow(&self, e: u32) -> Result<Self, NoLaw> {
        let p = self.powi(e.min(i32::MAX as u32) as i32);
        finite(p).map(|_| p)
    }
    /// The denominator: what is left are the chances, over 1.
    fn common_factor(den: &Self, _: &[Self]) -> Self {
        *den
    }
    fn bits(&self) -> u32 {
        0
    }
    fn ratio(a: &Self, b: &Self) -> f64 {
        a / b
    }
    const EXACT: bool = false;
    const SQUARES: bool = true;

    /// A long convolution as one loop the compiler vectorises.
    fn kronecker(
        a: &[Self],
        b: &[Self],
        spend: &mut dyn FnMut(u64) -> Result<(), NoLaw>,
    ) -> Option<Result<Vec<Self>, NoLaw>> {
        Some(convolve(a, b, spend))
    }
}

/// The convolution of two lists of plain floats, in one loop the compiler vectorises,
/// its work spent first (a float multiply-add so vectorised is a small part of an
/// operation elsewhere: a keep pass spends one in about 8 ns) and the stop looked at
/// every 1,024 rows (a long square takes a second).
fn convolve(
    x: &[f64],
    y: &[f64],
    spend: &mut dyn FnMut(u64) -> Result<(), NoLaw>,
) -> Result<Vec<f64>, NoLaw> {
    spend((x.len() as u64 * y.len() as u64) / 32)?;
    let mut out = vec![0.0f64; x.len() + y.len() - 1];
    for (i, &p) in x.iter().enumerate() {
        if i % 1024 == 1023 {
            spend(0)?;
        }
        if p == 0.0 {
            continue;
        }
        for (dst, &q) in out[i..i + y.len()].iter_mut().zip(y) {
            *dst += p * q;
        }
    }
    Ok(out)
}

/// A float past the float's range is the law's to run again in [`Real`].
fn finite(x: f64) -> Result<(), NoLaw> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(NoLaw::Wide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Products far past the float's range keep their precision, and sums line up.
    #[test]
    fn products_past_the_float_range_keep_their_precision() {
        let six = Real::from_u128(6);
        let big = six.pow(10_000).unwrap();
        let bigger = big.mul(&six).unwrap();
        assert!((Real::ratio(&big, &bigger) - 1.0 / 6.0).abs() < 1e-15);
        let mut s = big;
        s.add_to(&big).unwrap();
        assert!((Real::ratio(&s, &big) - 2.0).abs() < 1e-15);
        s.sub_from(&big).unwrap();
        s.sub_from(&big).unwrap();
        assert!(s.is_zero());
        // A small value beside a huge one is lost, not a NaN.
        let mut t = big;
        t.add_to(&Real::one()).unwrap();
        assert_eq!(t, big);
        // Values below the float's range are kept and read back as a ratio.
        let tiny = Real::one().div(&big);
        assert!(tiny.to_f64() == 0.0 && !tiny.is_zero());
        assert!((Real::ratio(&tiny, &tiny.mul(&Real::from_u128(4)).unwrap()) - 0.25).abs() < 1e-15);
        let from_big = Real::from_big(&(UBig::from(6u8).pow(500))).unwrap();
        assert!((Real::ratio(&from_big, &six.pow(500).unwrap()) - 1.0).abs() < 1e-15);
        assert!(Real::from_u128(1) == Real::settled(pow2(200), -200));
    }
}
