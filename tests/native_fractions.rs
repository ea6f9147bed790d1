//! Issue #70, "no fraction is read off a float": the four games' own engines count their
//! exact values again in whole numbers, so every row of every shipped native config has
//! its fraction, and none is a small fraction guessed near the float (rush's exploding
//! pass printed 50895/234256 for a value over 2^93; skirmish's morale after a charge
//! 652432/1928911 for one over 5^11 · 2^4). Checked against enumerators written here.

use crate::util::{dozen_config, load, rush_config_with};
use num_bigint::BigUint;
use rollsim::results::Fraction;
use std::collections::BTreeMap;

/// Every scenario of every shipped native config: each metric has a fraction per value,
/// they add up to exactly 1, and each is its float to 1e-12.
#[test]
fn every_native_row_has_a_counted_fraction() {
    for file in [
        "rush.toml",
        "rush-exploding.toml",
        "descent.toml",
        "dozen.toml",
        "skirmish.toml",
    ] {
        let cfg = load(file);
        for name in cfg.scenario_names() {
            let c = cfg.compile(&name).unwrap();
            let exact = c.exact.as_ref().expect("an exact distribution");
            for m in &c.metrics {
                let floats = m.project_f64(exact);
                let f = c
                    .metric_fractions(m)
                    .unwrap_or_else(|| panic!("{file} {name} {}: no fractions", m.name));
                assert_eq!(f.len(), floats.len(), "{file} {name} {}", m.name);
                let total = Fraction::sum(f.iter().map(|x| (x, 1)));
                assert_eq!(total.to_string(), "1/1", "{file} {name} {}", m.name);
                for (v, (x, p)) in f.iter().zip(&floats).enumerate() {
                    assert!(
                        (x.to_f64() - p).abs() <= 1e-12,
                        "{file} {name} {} value {v}: {x} against {p}",
                        m.name
                    );
                }
            }
        }
    }
}

/// A fraction of big integers, for the enumerators.
fn text(n: &BigUint, d: &BigUint) -> String {
    // Lowest terms by Euclid's algorithm, apart from the library's.
    let (mut a, mut b) = (n.clone(), d.clone());
    while b != BigUint::from(0u8) {
        let r = &a % &b;
        a = b;
        b = r;
    }
    format!("{}/{}", n / &a, d / &a)
}

/// Three dice at 4+ whose 6s explode (a 6 is a success and rolls another die), the
/// successes folded at the pool's cap as the sampler folds them: every chain of every
/// die walked (a die that has shown `cap` successes stops there, the rest of its chain
/// is at least the cap), the three dice's chains combined, in whole numbers over 6^k.
#[test]
fn an_exploding_pool_is_every_chain_of_its_dice() {
    let cfg = rush_config_with(
        "[scenarios.s]\nkind = \"stand_up\"\nunit = \"orc\"\n",
        &["rules.explode_on=6"],
    );
    let c = cfg.compile("s").unwrap();
    let m = c
        .metrics
        .iter()
        .find(|m| m.name == "successes")
        .expect("a successes metric");
    let cap = m.labels.len() - 1;
    // One die: (successes, ways, depth) with ways over 6^depth.
    let mut die: Vec<(usize, u64, u32)> = Vec::new();
    let walk = |shown: usize, depth: u32, die: &mut Vec<(usize, u64, u32)>| {
        let mut d = depth;
        let mut s = shown;
        loop {
            if s >= cap {
                die.push((cap, 1, d));
                return;
            }
            die.push((s, 3, d + 1)); // 1, 2, 3: no success
            die.push(((s + 1).min(cap), 2, d + 1)); // 4, 5
                                                    // 6: a success and another die
            s += 1;
            d += 1;
        }
    };
    walk(0, 0, &mut die);
    let most = die.iter().map(|x| x.2).max().unwrap();
    let over = |w: u64, depth: u32| BigUint::from(w) * BigUint::from(6u8).pow(most - depth);
    let mut law: BTreeMap<usize, BigUint> = BTreeMap::new();
    for a in &die {
        for b in &die {
            for c3 in &die {
                let s = (a.0 + b.0 + c3.0).min(cap);
                *law.entry(s).or_default() += over(a.1, a.2) * over(b.1, b.2) * over(c3.1, c3.2);
            }
        }
    }
    let den = BigUint::from(6u8).pow(3 * most);
    let got = c.metric_fractions(m).unwrap();
    for (s, f) in got.iter().enumerate() {
        let want = law.get(&s).cloned().unwrap_or_default();
        assert_eq!(f.to_string(), text(&want, &den), "{s} successes");
    }
    // By hand: no success is (1/2)^3; one is 3 · (5/12) · (1/2)^2 (a die's one success:
    // a 4 or 5, or a 6 and then a miss).
    assert_eq!(got[0].to_string(), "1/8");
    assert_eq!(got[1].to_string(), "5/16");
}

/// Two fighters alike, each with one die in the bag: who activates is a coin, so each
/// wins exactly as often as the other (floats summed in two orders cannot say so), and
/// the duel's chain runs to its limit in whole numbers, not to where a float's mass
/// runs out.
#[test]
fn a_duel_of_equals_is_even_to_the_last_digit() {
    let cfg = dozen_config(
        "[scenarios.d]\nkind = \"duel\"\na = \"fighter\"\nb = \"fighter\"\nmax_activations = 40\n",
    );
    let c = cfg.compile("d").unwrap();
    let m = &c.metrics[c.headline.metric];
    let f = c.metric_fractions(m).expect("fractions");
    let (a, b) = (c.headline.values[0], c.headline.against[0]);
    assert_eq!(f[a], f[b], "{} against {}", f[a], f[b]);
    assert_ne!(f[a], Fraction::zero());
    let total = Fraction::sum(f.iter().map(|x| (x, 1)));
    assert_eq!(total.to_string(), "1/1");
    // The balance commands read the margin from the fractions where the floats put it
    // within rounding of even: exactly even.
    let margin = rollsim::balance::exact_value(&c, &rollsim::balance::Pick::Margin);
    assert_eq!(margin, Some(0.0));
    // Every fraction's denominator is made of the bag's 2 and the d12's 2 and 3 only.
    for x in &f {
        let mut d: BigUint = x.denom().to_string().parse().unwrap();
        for p in [2u8, 3] {
            while (&d % BigUint::from(p)) == BigUint::from(0u8) {
                d /= BigUint::from(p);
            }
        }
        assert_eq!(d, BigUint::from(1u8), "{x}");
    }
}
