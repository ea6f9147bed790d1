//! Confidence intervals and Monte Carlo vs exact agreement.
//!
//! Costs: every function here is O(1) except the ones over a distribution, which are
//! O(number of values); none allocates beyond its result.

use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal};

/// Two-sided normal quantile for a 95% interval: a constant (the test below checks it
/// against statrs' inverse CDF), so nothing is computed once and kept in a global.
pub fn z95() -> f64 {
    1.959_963_984_540_053_8
}

/// Wilson score interval for `k` successes in `n` trials. Unlike the Wald interval it
/// stays inside [0, 1] and is honest for probabilities near 0 or 1.
pub fn wilson(k: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = k as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // At k = 0 (k = n) the bound is exactly 0 (1); rounding would leave ~1e-17.
    let lo = if k == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if p == 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// Half-width of the Wilson interval: what `--precision` compares against.
pub fn wilson_half_width(k: u64, n: u64, z: f64) -> f64 {
    let (lo, hi) = wilson(k, n, z);
    (hi - lo) / 2.0
}

/// Mean and standard deviation of a value distribution given as counts per value.
pub fn mean_sd(values: &[f64], counts: &[u64]) -> (f64, f64) {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let n = n as f64;
    let mean = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| v * c as f64)
        .sum::<f64>()
        / n;
    let var = values
        .iter()
        .zip(counts)
        .map(|(v, &c)| (v - mean).powi(2) * c as f64)
        .sum::<f64>()
        / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

/// Normal-approximation CI for a mean from `n` trials (n is in the millions here, so the
/// t and normal quantiles agree to many digits).
pub fn mean_ci(mean: f64, sd: f64, n: u64, z: f64) -> (f64, f64) {
    let half = z * sd / (n as f64).sqrt();
    (mean - half, mean + half)
}

/// Expected count below which the normal approximation is replaced by the exact
/// binomial tail: one event where 0.02 were expected is a 2% event, not "6.9 SE".
const SMALL_COUNT: f64 = 20.0;

/// How many standard errors an observed proportion lies from the exact `p`, using the
/// exact variance p(1-p)/n. Where the expected count (of events or non-events) is small,
/// the exact one-sided binomial tail is converted into the normal deviate with the same
/// tail, so |z| < 4.5 means the same thing for rare and common values. An exact 0 or 1
/// admits no deviation at all.
pub fn z_proportion(k: u64, n: u64, p: f64) -> f64 {
    let phat = k as f64 / n as f64;
    let var = p * (1.0 - p) / n as f64;
    if var <= 0.0 {
        return if (phat - p).abs() < 1e-15 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let normal_z = (phat - p) / var.sqrt();
    if n as f64 * p.min(1.0 - p) >= SMALL_COUNT {
        return normal_z;
    }
    let (Ok(b), Ok(normal)) = (Binomial::new(p, n), Normal::new(0.0, 1.0)) else {
        return normal_z;
    };
    if k as f64 > n as f64 * p {
        // P(X >= k)
        let tail = (1.0 - b.cdf(k - 1)).clamp(1e-300, 0.5);
        -normal.inverse_cdf(tail)
    } else {
        // P(X <= k)
        normal.inverse_cdf(b.cdf(k).clamp(1e-300, 0.5))
    }
}

/// Standard errors between an observed mean and the exact mean of distribution `pmf`
/// over `values`.
pub fn z_mean(observed: f64, n: u64, values: &[f64], pmf: &[f64]) -> f64 {
    let mu: f64 = values.iter().zip(pmf).map(|(v, p)| v * p).sum();
    let var: f64 = values
        .iter()
        .zip(pmf)
        .map(|(v, p)| (v - mu).powi(2) * p)
        .sum();
    // A distribution on one value (up to rounding in its exact mass) admits no
    // deviation: rounding noise of 1e-30 in the variance is not a spread.
    let scale = 1.0 + mu * mu;
    if var <= 1e-20 * scale {
        return if (observed - mu).abs() < 1e-9 * scale.sqrt() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    (observed - mu) / (var / n as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_mass_with_rounding_noise_has_no_spread() {
        // Every model left, with a total exact mass 1e-16 short of 1: the variance is
        // rounding noise (1e-30), and the observed 10 is no deviation at all.
        let values = [10.0];
        let pmf = [1.0 - 1e-16];
        assert_eq!(z_mean(10.0, 1 << 19, &values, &pmf), 0.0);
        assert_eq!(z_mean(9.5, 1 << 19, &values, &pmf), f64::INFINITY);
        // A real spread still counts.
        assert!(z_mean(0.6, 10_000, &[0.0, 1.0], &[0.5, 0.5]).abs() > 4.5);
    }

    #[test]
    fn z95_is_the_normal_quantile() {
        let q = Normal::new(0.0, 1.0).unwrap().inverse_cdf(0.975);
        assert_eq!(z95().to_bits(), q.to_bits(), "{q}");
    }

    #[test]
    fn wilson_reference_values() {
        // Wilson 95% for 8/10 (Newcombe 1998, table I): 0.4902 .. 0.9433
        let (lo, hi) = wilson(8, 10, z95());
        assert!(
            (lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4,
            "{lo} {hi}"
        );
        // 0/10: 0 .. 0.2775
        let (lo, hi) = wilson(0, 10, z95());
        assert_eq!(lo, 0.0);
        assert!((hi - 0.2775).abs() < 1e-4);
    }

    #[test]
    fn mean_sd_small() {
        let (m, sd) = mean_sd(&[0.0, 1.0, 2.0], &[1, 2, 1]);
        assert_eq!(m, 1.0);
        assert!((sd - (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn z_scores() {
        assert_eq!(z_proportion(50, 100, 0.5), 0.0);
        assert!((z_proportion(60, 100, 0.5) - 2.0).abs() < 1e-12);
        assert_eq!(z_proportion(0, 100, 0.0), 0.0);
        assert!(z_proportion(1, 100, 0.0).is_infinite());
        // rare values use the exact tail: 1 event where 0.02 were expected has
        // P(X >= 1) = 1 - e^-0.02 ~ 0.0198, a 2.06 SE event, not 7.
        let z = z_proportion(1, 1_000_000, 2e-8);
        assert!((z - 2.058).abs() < 0.01, "{z}");
        // 0 events where 10 expected: P(X = 0) = e^-10 = 4.54e-5 -> z = -3.91
        let z = z_proportion(0, 1_000_000, 1e-5);
        assert!((z + 3.914).abs() < 0.01, "{z}");
    }
}
