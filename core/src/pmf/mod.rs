//! The four native games' exact distributions: a PMF over `0..len` and the operations
//! their rules modules need (a config's own dice expressions have an exact engine of
//! their own, in their system's folder).
//!
//! Values are small non-negative integers (successes, hits, turns), so a dense `Vec<f64>`
//! is both the simplest and the fastest representation.

use crate::kernels::{Pool, NEVER, SIDES};

mod prob;
pub use prob::{Prob, Ratio};

/// A probability mass function over the integers `0..len()`, in floats or (for the
/// fractions) in [`Ratio`]s.
#[derive(Clone, Debug, PartialEq)]
pub struct Pmf<W = f64>(pub Vec<W>);

impl<W: Prob> Pmf<W> {
    /// All mass on `v`.
    pub fn point(v: usize) -> Self {
        let mut p = vec![W::zero(); v + 1];
        p[v] = W::one();
        Pmf(p)
    }

    /// One past the largest value: the PMF covers `0..len()`.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No values at all (not even 0): a PMF of no mass.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// P(X = v), zero outside the support.
    pub fn p(&self, v: usize) -> W {
        self.0.get(v).cloned().unwrap_or_else(W::zero)
    }

    /// The distribution of X + Y for independent X, Y.
    pub fn convolve(&self, other: &Pmf<W>) -> Pmf<W> {
        self.convolve_capped(other, self.len() + other.len())
    }

    /// The distribution of X + Y for independent X, Y, with every sum at or above `cap`
    /// folded into `cap`. Folding commutes with addition of non-negative values
    /// (min(min(a,c) + min(b,c), c) = min(a + b, c)), so capped pools convolve exactly.
    pub fn convolve_capped(&self, other: &Pmf<W>, cap: usize) -> Pmf<W> {
        let len = (self.len() + other.len()).saturating_sub(1).min(cap + 1);
        let mut out = vec![W::zero(); len.max(1)];
        for (i, a) in self.0.iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            for (j, b) in other.0.iter().enumerate() {
                out[(i + j).min(cap)] += a.clone() * b.clone();
            }
        }
        Pmf(out)
    }
}

impl<W: Prob> Pmf<W> {
    /// P(X >= v).
    pub fn at_least(&self, v: usize) -> W {
        let mut s = W::zero();
        for p in self.0.iter().skip(v) {
            s += p.clone();
        }
        s
    }
}

impl Pmf {
    /// The expected value, `E[X]`.
    pub fn mean(&self) -> f64 {
        self.0.iter().enumerate().map(|(i, p)| i as f64 * p).sum()
    }
}

impl<W> From<Vec<W>> for Pmf<W> {
    fn from(p: Vec<W>) -> Self {
        Pmf(p)
    }
}

/// Check a PMF the way statrs checks its distributions: every entry in [0, 1] and the
/// total 1 within `tol`. Every rules module's exact output is run through this in tests.
pub fn check_pmf(p: &[f64], tol: f64) -> Result<(), String> {
    for (i, &x) in p.iter().enumerate() {
        if !(0.0..=1.0 + tol).contains(&x) || x.is_nan() {
            return Err(format!("entry {i} is {x}"));
        }
    }
    let total: f64 = p.iter().sum();
    if (total - 1.0).abs() > tol {
        return Err(format!("total is {total}"));
    }
    Ok(())
}

/// Binomial(n, p) PMF, by the multiplicative recurrence (stable for the sizes here).
pub fn binomial(n: u32, p: f64) -> Pmf {
    let mut out = vec![0.0; n as usize + 1];
    if p <= 0.0 {
        out[0] = 1.0;
        return Pmf(out);
    }
    if p >= 1.0 {
        out[n as usize] = 1.0;
        return Pmf(out);
    }
    if n > PASCAL {
        return binomial_by_ratios(n, p);
    }
    // Pascal's triangle on probabilities: exact up to rounding, no overflow.
    out[0] = 1.0;
    for k in 1..=n as usize {
        for j in (1..=k).rev() {
            out[j] = out[j] * (1.0 - p) + out[j - 1] * p;
        }
        out[0] *= 1.0 - p;
    }
    Pmf(out)
}

/// Dice past which [`binomial`] walks out from the mode by the ratio of neighbouring
/// terms (n steps) instead of building Pascal's triangle (n^2 / 2 steps): a thousand
/// shots are half a million steps, a hundred thousand would be five billion.
const PASCAL: u32 = 1000;

/// The binomial from its mode outwards: P(k + 1) / P(k) = (n - k) / (k + 1) * p / (1 - p),
/// each side scaled from 1 at the mode and the whole divided by its sum (no factorial is
/// formed, so nothing overflows; terms below the smallest float are 0).
fn binomial_by_ratios(n: u32, p: f64) -> Pmf {
    let mut out = vec![0.0; n as usize + 1];
    let mode = (((n as f64 + 1.0) * p).floor() as usize).min(n as usize);
    let odds = p / (1.0 - p);
    out[mode] = 1.0;
    for k in mode..n as usize {
        out[k + 1] = out[k] * (n as usize - k) as f64 / (k + 1) as f64 * odds;
    }
    for k in (0..mode).rev() {
        out[k] = out[k + 1] * (k + 1) as f64 / (n as usize - k) as f64 / odds;
    }
    let total: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= total);
    Pmf(out)
}

/// The exact success distribution of a pool, folded at `pool.cap` like the sampler.
///
/// Without explosions this is a binomial. With them, one die's successes follow a chain
/// (a face at `explode_on`+ is a success plus one more die); the per-die PMF is computed
/// up to the cap with the rest of its tail folded into the cap, then convolved `dice`
/// times, so no mass is dropped: what lies beyond the cap is reported as the top bucket.
pub fn pool_pmf(pool: &Pool) -> Pmf {
    pool_pmf_of(pool)
}

/// [`pool_pmf`] in any weight (up to a thousand dice without explosions).
pub fn pool_pmf_of<W: Prob>(pool: &Pool) -> Pmf<W> {
    let sides = u64::from(SIDES);
    let succ = u64::from(SIDES + 1 - pool.success_on as u32);
    if !pool.exploding() {
        return W::binomial(pool.dice, &W::ratio(succ, sides));
    }
    let cap = pool.cap as usize;
    let p_succ = W::ratio(succ, sides);
    let p_expl = W::ratio(
        u64::from(SIDES + 1 - pool.explode_on.min(NEVER) as u32),
        sides,
    );
    let p_plain = p_succ.clone() - p_expl.clone(); // success without explosion
    let p_fail = W::one() - p_succ;
    // One die: S = 0 w.p. p_fail, 1 w.p. p_plain, 1 + S' w.p. p_expl.
    let mut die = vec![W::zero(); cap + 1];
    let mut reach = W::one(); // P(the chain reaches depth d)
                              // A chain that stops at depth d (after d explosions) has d or d + 1 successes.
    for d in 0..cap {
        die[d] += reach.clone() * p_fail.clone();
        die[d + 1] += reach.clone() * p_plain.clone();
        reach = reach * p_expl.clone();
    }
    // Chains still running at depth `cap` have at least `cap` successes.
    die[cap] += reach;
    let die = Pmf(die);
    let mut acc = Pmf::point(0);
    for _ in 0..pool.dice {
        acc = acc.convolve_capped(&die, cap);
    }
    // Over every state the sampler can report, even for a pool of 0 dice (found by the
    // command fuzz: a 1-entry PMF beside a 25-state sampler).
    acc.0.resize(cap + 1, W::zero());
    acc
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_exploding_pool_of_no_dice_covers_every_state() {
        let p = super::pool_pmf(&crate::kernels::Pool::new(0, 4, 6));
        assert_eq!(p.0.len(), 25);
        assert_eq!(p.0[0], 1.0);
    }

    use super::*;

    #[test]
    fn binomial_three_dice_at_four_plus() {
        let b = binomial(3, 0.5);
        assert_eq!(b.0, vec![0.125, 0.375, 0.375, 0.125]);
    }

    #[test]
    fn pool_pmf_plain_matches_binomial() {
        // 2 dice at 5+: P(0) = (4/6)^2 = 4/9, P(2) = 1/9.
        let p = pool_pmf(&Pool::new(2, 5, 0));
        assert!((p.p(0) - 4.0 / 9.0).abs() < 1e-15);
        assert!((p.p(2) - 1.0 / 9.0).abs() < 1e-15);
    }

    #[test]
    fn exploding_single_die_by_hand() {
        // one die at 4+, 6 explodes: P(0) = 1/2, P(1) = 2/6 + (1/6)(1/2) = 5/12,
        // P(2) = (1/6)(2/6) + (1/6)^2 (1/2) = 1/18 + 1/72 = 5/72.
        let p = pool_pmf(&Pool::new(1, 4, 6));
        assert!((p.p(0) - 0.5).abs() < 1e-15);
        assert!((p.p(1) - 5.0 / 12.0).abs() < 1e-15);
        assert!((p.p(2) - 5.0 / 72.0).abs() < 1e-15);
        check_pmf(&p.0, 1e-12).unwrap();
        // mean of one chain: (3/6) / (1 - 1/6) = 0.6
        assert!((p.mean() - 0.6).abs() < 1e-12);
    }

    #[test]
    fn capped_convolution_keeps_mass() {
        let p = pool_pmf(&Pool::new(6, 2, 6));
        check_pmf(&p.0, 1e-12).unwrap();
        assert!(p.p(p.len() - 1) < 1e-12, "top bucket {}", p.p(p.len() - 1));
    }
}
