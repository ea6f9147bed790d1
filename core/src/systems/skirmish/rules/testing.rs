//! Helpers for the unit tests of the scenario modules: plain units, the sampler run at a
//! fixed seed, and checks of a metric against a distribution worked out by hand.

use super::{Stats, Unit};
use crate::cancel::Cancel;
use crate::kernels::Rng;
use crate::model::{Compiled, Metric};
use rand::SeedableRng;

/// Trials each sampler check runs.
pub const TRIALS: u64 = 200_000;

/// One model with one die, to-hit modifiers 0, target value 6, no cover, no save on a
/// d10 (defence 11), no bonuses, and morale 100 so that no small test breaks it.
pub fn stats() -> Stats {
    Stats {
        models: 1,
        attack_dice: 1,
        shoot: 0,
        fight: 0,
        target_value: 6,
        defence: 11,
        cover: 0,
        shields: false,
        charge_bonus: 0,
        defend_bonus: 0,
        morale: 100,
        moves: 6,
        run: 12,
    }
}

/// A unit called `name` with `stats`.
pub fn unit(name: &str, stats: Stats) -> Unit {
    Unit {
        id: name.into(),
        name: name.into(),
        stats,
    }
}

/// The metric called `name`.
pub fn metric<'a>(c: &'a Compiled, name: &str) -> &'a Metric {
    c.metrics
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// The exact distribution of metric `name`, by its labels.
pub fn exact(c: &Compiled, name: &str) -> Vec<f64> {
    metric(c, name).project_f64(c.exact.as_ref().expect("an exact pmf"))
}

/// Assert the exact distribution of metric `name` is `want` (worked by hand).
pub fn assert_exact(c: &Compiled, name: &str, want: &[f64]) {
    let got = exact(c, name);
    assert_eq!(got.len(), want.len(), "{name}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{name}: {got:?} vs {want:?}");
    }
}

/// Run the sampler for [`TRIALS`] trials from `seed` and assert that metric `name`
/// agrees with `want` (worked by hand): each label's frequency, and for a numeric
/// metric the mean, within 4.5 standard errors of the hand values.
pub fn assert_sampled(c: &Compiled, name: &str, want: &[f64], seed: u64) {
    let mut hist = vec![0u64; c.trial.states()];
    let rng = &mut Rng::seed_from_u64(seed);
    c.trial.run_chunk(rng, TRIALS, &mut hist, &Cancel::new());
    let m = metric(c, name);
    let counts = m.project_counts(&hist);
    let n = TRIALS as f64;
    for (v, (&k, &p)) in counts.iter().zip(want).enumerate() {
        let se = (p * (1.0 - p) / n).sqrt();
        let f = k as f64 / n;
        assert!(
            (f - p).abs() <= 4.5 * se,
            "{name} = {}: sampled {f}, by hand {p} (se {se})",
            m.labels[v]
        );
    }
    if m.numeric {
        let mean: f64 = want.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
        let sq: f64 = want
            .iter()
            .enumerate()
            .map(|(v, p)| (v * v) as f64 * p)
            .sum();
        let se = ((sq - mean * mean).max(0.0) / n).sqrt();
        let got: f64 = counts
            .iter()
            .enumerate()
            .map(|(v, &k)| v as f64 * k as f64)
            .sum::<f64>()
            / n;
        assert!(
            (got - mean).abs() <= 4.5 * se,
            "{name}: sampled mean {got}, by hand {mean} (se {se})"
        );
    }
}
