//! Exact values as fractions of any size: what an exact computation with integer
//! weights gives (a float's value is never taken for one).

use dashu_int::ops::{BitTest, DivRem, Gcd, UnsignedAbs};
use dashu_int::{IBig, Sign, UBig};
use serde::Serialize;

/// Fractions longer than this are cut where they are shown ([`Fraction::shown`]).
pub const SHOWN_FRACTION: usize = 64;

/// An exact value as a fraction in lowest terms: the reader checks it against the rules
/// by hand (27/216 is the 27 ways of 216 for three dice), which no float allows. Its
/// integers have no size limit: `20d20 keep highest 10` is over 20^20 and the lowest
/// sum of `1000d6` is 1 over 6^1000.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fraction {
    numer: IBig,
    denom: UBig,
}

/// `n / d` as the nearest float, for integers of any size: both scaled down to 64
/// significant bits first, where a ratio of two floats of thousands of bits would be
/// inf/inf (0 below the smallest float).
pub fn ratio(n: &UBig, d: &UBig) -> f64 {
    match (u128::try_from(n), u128::try_from(d)) {
        (Ok(n), Ok(d)) => ratio_words(n, d),
        _ => ratio_big(n, d),
    }
}

/// [`ratio`] of integers of any size.
fn ratio_big(n: &UBig, d: &UBig) -> f64 {
    let shift = |x: &UBig| x.bit_len().saturating_sub(64);
    let (sn, sd) = (shift(n), shift(d));
    let f = (n >> sn).to_f64().value() / (d >> sd).to_f64().value();
    f * 2f64.powi((sn as i64 - sd as i64).clamp(-2000, 2000) as i32)
}

/// [`ratio`] of two words, the same steps in machine integers (a table's every value
/// went through big integers for it).
fn ratio_words(n: u128, d: u128) -> f64 {
    let shift = |x: u128| (128 - x.leading_zeros()).saturating_sub(64);
    let (sn, sd) = (shift(n), shift(d));
    let f = ((n >> sn) as u64 as f64) / ((d >> sd) as u64 as f64);
    f * 2f64.powi((i64::from(sn) - i64::from(sd)).clamp(-2000, 2000) as i32)
}

impl Fraction {
    /// `numer/denom` in lowest terms; None for a zero denominator.
    pub fn new(numer: impl Into<IBig>, denom: impl Into<IBig>) -> Option<Fraction> {
        let (numer, denom): (IBig, IBig) = (numer.into(), denom.into());
        if denom == IBig::ZERO {
            return None;
        }
        let negative = (numer < IBig::ZERO) != (denom < IBig::ZERO);
        let (n, d) = (numer.unsigned_abs(), denom.unsigned_abs());
        let g = gcd(&n, &d);
        let (n, d) = (n / &g, d / &g);
        let sign = if negative {
            Sign::Negative
        } else {
            Sign::Positive
        };
        Some(Fraction {
            numer: IBig::from_parts(sign, n),
            denom: d,
        })
    }

    /// `numer/denom`, already in lowest terms (the caller divided out their gcd).
    pub(crate) fn lowest(numer: UBig, denom: UBig) -> Fraction {
        Fraction {
            numer: IBig::from(numer),
            denom,
        }
    }

    /// `numer/denom` from machine integers already in lowest terms.
    fn lowest_signed(numer: i128, denom: u128) -> Fraction {
        Fraction {
            numer: IBig::from(numer),
            denom: UBig::from(denom),
        }
    }

    /// 0/1.
    pub fn zero() -> Fraction {
        Fraction {
            numer: IBig::ZERO,
            denom: UBig::ONE,
        }
    }

    /// The numerator, carrying the sign.
    pub fn numer(&self) -> &IBig {
        &self.numer
    }

    /// The denominator, always at least 1.
    pub fn denom(&self) -> &UBig {
        &self.denom
    }

    /// The bits of its numerator and denominator: what writing it out costs.
    pub fn bits(&self) -> usize {
        (&self.numer).unsigned_abs().bit_len() + self.denom.bit_len()
    }

    /// Whether this is 0/1.
    pub fn is_zero(&self) -> bool {
        self.numer == IBig::ZERO
    }

    /// A whole number: its `/1` says nothing.
    pub fn is_whole(&self) -> bool {
        self.denom.is_one()
    }

    /// `N` where this is exactly 1/N and N fits a u64: "1 in N" then needs no rounding.
    pub fn unit_denominator(&self) -> Option<u64> {
        if self.numer.is_one() {
            u64::try_from(&self.denom).ok()
        } else {
            None
        }
    }

    /// The nearest float (0 below the smallest float: the fraction still says it).
    pub fn to_f64(&self) -> f64 {
        let scaled = ratio(&(&self.numer).unsigned_abs(), &self.denom);
        if self.numer < IBig::ZERO {
            -scaled
        } else {
            scaled
        }
    }

    /// As a table or a line of text shows it: whole up to [`SHOWN_FRACTION`] characters,
    /// else each long number by its first digits and its length (`1/141661…(779
    /// digits)`, the lowest sum of 1000d6). A table of 780-digit numbers reads as noise;
    /// the data files hold them whole.
    pub fn shown(&self) -> String {
        let text = self.to_string();
        if text.len() <= SHOWN_FRACTION {
            return text;
        }
        let cut = |n: String| {
            if n.len() > 12 {
                format!("{}…({} digits)", &n[..6], n.len())
            } else {
                n
            }
        };
        format!(
            "{}/{}",
            cut(self.numer.to_string()),
            cut(self.denom.to_string())
        )
    }

    /// The sum of many fractions, brought to one denominator first and reduced once:
    /// a distribution's fractions mostly share one (a power of the dice's faces), and a
    /// gcd per addition of numbers of hundreds of digits is what would cost.
    pub fn sum<'a>(parts: impl IntoIterator<Item = (&'a Fraction, i64)>) -> Fraction {
        let parts: Vec<(&Fraction, i64)> = parts
            .into_iter()
            .filter(|(f, k)| !f.is_zero() && *k != 0)
            .collect();
        if let Some(f) = small_sum(&parts) {
            return f;
        }
        // The largest denominator first: a law's values' denominators all divide its
        // own, which some value keeps whole, so no other step widens it.
        let mut common = parts
            .iter()
            .map(|(f, _)| &f.denom)
            .max_by_key(|d| d.bit_len())
            .cloned()
            .unwrap_or(UBig::ONE);
        let mut numer = IBig::ZERO;
        for (f, k) in parts {
            // One division says both whether the denominator divides the common one
            // and by what to scale the numerator (the common one is soon every value's).
            let (mut scale, r) = (&common).div_rem(&f.denom);
            if r != UBig::ZERO {
                let lcm = &common / gcd(&common, &f.denom) * &f.denom;
                numer *= IBig::from(&lcm / &common);
                scale = &lcm / &f.denom;
                common = lcm;
            }
            numer += &f.numer * IBig::from(scale) * k;
        }
        Fraction::new(numer, IBig::from(common)).unwrap_or_else(Fraction::zero)
    }
}

/// A distribution's ways over one denominator, before any is reduced: what a sum over
/// its values (a mean, the chance of a headline's values) is summed from, each value a
/// product of a word and reduced once. The same sum over the values' fractions in
/// lowest terms brings each back to a common denominator by a long division (two such
/// sums were a tenth of a 20-deep `again` pool's roll read from Python).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ways {
    /// Each state's ways.
    pub n: Vec<UBig>,
    /// The ways of every state together.
    pub den: UBig,
}

impl Ways {
    /// `sum k(s) * n[s] / den` over the states, in lowest terms.
    pub fn sum(&self, k: impl Fn(usize) -> i64) -> Fraction {
        if let Some(f) = self.sum_in_words(&k) {
            return f;
        }
        let (mut up, mut down) = (UBig::ZERO, UBig::ZERO);
        for (s, w) in self.n.iter().enumerate() {
            let k = k(s);
            if k == 0 || w.is_zero() {
                continue;
            }
            let side = if k > 0 { &mut up } else { &mut down };
            match k.unsigned_abs() {
                1 => *side += w,
                m => *side += w * m,
            }
        }
        Fraction::new(
            IBig::from(up) - IBig::from(down),
            IBig::from(self.den.clone()),
        )
        .unwrap_or_else(Fraction::zero)
    }

    /// [`Ways::sum`] in machine words, where every product and sum fits in two (a
    /// table's mean, each value's ways one big multiply and add): None past them.
    fn sum_in_words(&self, k: &impl Fn(usize) -> i64) -> Option<Fraction> {
        let den = u128::try_from(&self.den).ok()?;
        let (mut up, mut down) = (0u128, 0u128);
        for (s, w) in self.n.iter().enumerate() {
            let k = k(s);
            if k == 0 || w.is_zero() {
                continue;
            }
            let side = if k > 0 { &mut up } else { &mut down };
            let w = u128::try_from(w).ok()?;
            *side = side.checked_add(w.checked_mul(u128::from(k.unsigned_abs()))?)?;
        }
        let n = i128::try_from(up).ok()? - i128::try_from(down).ok()?;
        lowest_words(n, den)
    }

    /// The states at `picks`, in that order.
    pub fn pick(&self, picks: impl IntoIterator<Item = usize>) -> Ways {
        Ways {
            n: picks.into_iter().map(|i| self.n[i].clone()).collect(),
            den: self.den.clone(),
        }
    }
}

/// The greatest common divisor: in machine words where both fit, else Lehmer's (a
/// binary gcd going bit by bit took most of a duel's table of thousands of digits).
fn gcd(a: &UBig, b: &UBig) -> UBig {
    if let (Ok(x), Ok(y)) = (u128::try_from(a), u128::try_from(b)) {
        return UBig::from(num_integer::gcd(x, y));
    }
    Gcd::gcd(a, b)
}

/// [`Fraction::sum`] in machine integers, for the common case of small denominators
/// (a 3d6 table's mean): None where any number passes an i128.
fn small_sum(parts: &[(&Fraction, i64)]) -> Option<Fraction> {
    let (mut common, mut numer) = (1i128, 0i128);
    for (f, k) in parts {
        let (n, d) = (
            i128::try_from(&f.numer).ok()?,
            i128::try_from(&f.denom).ok()?,
        );
        if common % d != 0 {
            let up = d / i128::try_from(num_integer::gcd(common.unsigned_abs(), d.unsigned_abs()))
                .ok()?;
            numer = numer.checked_mul(up)?;
            common = common.checked_mul(up)?;
        }
        numer = numer.checked_add(n.checked_mul(common / d)?.checked_mul(i128::from(*k))?)?;
    }
    lowest_words(numer, common.unsigned_abs())
}

/// `n / d` in lowest terms, both in machine words (0 for a zero denominator); None where
/// their divisor passes an i128 (the big integers' path then).
fn lowest_words(n: i128, d: u128) -> Option<Fraction> {
    let g = num_integer::gcd(n.unsigned_abs(), d);
    if d == 0 || g == 0 {
        return Some(Fraction::zero());
    }
    Some(Fraction::lowest_signed(n / i128::try_from(g).ok()?, d / g))
}

impl Fraction {
    /// As [`Display`](std::fmt::Display) writes it (`-27/216` reduced), its digits put
    /// down one by one where both numbers fit two words: a table writes one per value,
    /// and the formatter's machinery was most of a long table's handing over.
    pub fn text(&self) -> String {
        match (i128::try_from(&self.numer), u128::try_from(&self.denom)) {
            (Ok(n), Ok(d)) => {
                let mut b = Vec::with_capacity(80);
                if n < 0 {
                    b.push(b'-');
                }
                push_digits(&mut b, n.unsigned_abs());
                b.push(b'/');
                push_digits(&mut b, d);
                String::from_utf8(b).unwrap_or_default()
            }
            _ => self.to_string(),
        }
    }
}

/// `v` in decimal digits onto `b`: by words of 19 digits.
fn push_digits(b: &mut Vec<u8>, v: u128) {
    const WORD: u128 = 10_000_000_000_000_000_000;
    let mut words = [0u64; 3];
    let (mut n, mut v) = (0, v);
    loop {
        words[n] = (v % WORD) as u64;
        n += 1;
        v /= WORD;
        if v == 0 {
            break;
        }
    }
    for (i, &w) in words[..n].iter().rev().enumerate() {
        let mut buf = [0u8; 20];
        let d = crate::text::digits(w, &mut buf);
        // The first word as it is; the others padded to 19 digits.
        if i > 0 {
            b.resize(b.len() + 19 - d.len(), b'0');
        }
        b.extend_from_slice(d);
    }
}

/// `n/d`, always with the slash (`0/1`, `1/1`, `21/2`), so that a reader of a table
/// splits every cell the same way.
impl std::fmt::Display for Fraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // In machine words where they fit: a table writes one per value, and a big
        // integer's digits by division were most of a wide sparse table's time.
        match (i64::try_from(&self.numer), u64::try_from(&self.denom)) {
            (Ok(n), Ok(d)) => write!(f, "{n}/{d}"),
            _ => match (i128::try_from(&self.numer), u128::try_from(&self.denom)) {
                (Ok(n), Ok(d)) => write!(f, "{n}/{d}"),
                _ => write!(f, "{}/{}", self.numer, self.denom),
            },
        }
    }
}

/// As the tables write it (`"27/216"` reduced: `"1/8"`), not as two numbers.
impl Serialize for Fraction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-word numbers from `seed`, by xorshift: the same every run.
    fn words(mut x: u128) -> impl FnMut() -> u128 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// A sum of ways times whole numbers in machine words is the sum in big integers:
    /// signs either way, a zero sum, counts up to two words.
    #[test]
    fn a_sum_of_ways_in_words_is_the_sum_in_big_integers() {
        let mut next = words(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15);
        for i in 0..3_000u32 {
            let bits = 8 + i % 100;
            let n: Vec<UBig> = (0..20)
                .map(|_| UBig::from(next() >> (128 - bits)))
                .collect();
            let den = UBig::from((next() >> (128 - bits)) | 1) * UBig::from(3u8);
            let ways = Ways { n, den };
            let shift = i64::from(i % 30) - 10;
            let k = |s: usize| s as i64 - shift;
            let (mut up, mut down) = (IBig::ZERO, IBig::ZERO);
            for (s, w) in ways.n.iter().enumerate() {
                let t = IBig::from(w.clone()) * IBig::from(k(s).unsigned_abs());
                if k(s) > 0 {
                    up += t;
                } else {
                    down += t;
                }
            }
            let want = Fraction::new(up - down, IBig::from(ways.den.clone())).expect("den");
            assert_eq!(ways.sum(k), want, "{i}");
        }
        let zero = Ways {
            n: vec![UBig::from(3u8), UBig::from(3u8)],
            den: UBig::from(6u8),
        };
        assert_eq!(zero.sum(|s| if s == 0 { 1 } else { -1 }), Fraction::zero());
    }

    /// A fraction's text by its digits is what it displays: signs, zero, one word, two
    /// words, a word's edges, and numbers past two words.
    #[test]
    fn a_fraction_s_text_is_what_it_displays() {
        let mut next = words(0x9e37_79b9_7f4a_7c15_2545_f491_4f6c_dd1d);
        for i in 0..20_000u32 {
            let x = next();
            let n = IBig::from(x >> (i % 128)) * if i % 3 == 0 { -1 } else { 1 };
            let d = UBig::from((x.rotate_left(i) >> (i % 127)) | 1);
            let f = Fraction::new(n, IBig::from(d)).expect("den");
            assert_eq!(f.text(), f.to_string());
        }
        for v in [
            0u128,
            1,
            9,
            10,
            10u128.pow(19) - 1,
            10u128.pow(19),
            10u128.pow(38),
            u128::MAX,
        ] {
            let f = Fraction::lowest(UBig::from(v), UBig::from(u128::MAX));
            assert_eq!(f.text(), f.to_string());
        }
        let wide =
            Fraction::new(IBig::from(7u8), IBig::from(UBig::from(3u8).pow(200))).expect("den");
        assert_eq!(wide.text(), wide.to_string());
    }

    /// Two words' ratio by machine integers is the big integers' bit for bit: numbers
    /// of every length to 128 bits, halves of a float's last place among them.
    #[test]
    fn a_ratio_of_two_words_is_the_big_integers_ratio() {
        let mut next = words(0x9e37_79b9_7f4a_7c15_2545_f491_4f6c_dd1d);
        for i in 0..200_000u32 {
            let (a, b) = (next() >> (i % 128), next() >> ((i / 128) % 128));
            // A 54-bit odd number: halfway between two doubles where it is exact.
            let half = ((next() >> 74) | 1) << (i % 70);
            for (n, d) in [(a, b.max(1)), (half, b.max(1)), (a.min(b), a.max(b).max(1))] {
                let want = ratio_big(&UBig::from(n), &UBig::from(d));
                assert_eq!(
                    ratio(&UBig::from(n), &UBig::from(d)).to_bits(),
                    want.to_bits(),
                    "{n}/{d}"
                );
            }
        }
    }
}
