//! Every shipped scenario: Monte Carlo (fixed seed) within 4.5 standard errors of the
//! exact distribution, for every value of every metric and for every mean.

use crate::util::{load, simulate};
use rollsim::pmf::check_pmf;
use rollsim::report::summarize;

const TRIALS: u64 = 1 << 19;

fn agree(file: &str) {
    let cfg = load(file);
    let names = cfg.scenario_names();
    assert!(names.len() >= 4, "{file}: {} scenarios", names.len());
    for (i, name) in names.iter().enumerate() {
        let c = cfg.compile(name).unwrap();
        let exact = c
            .exact
            .as_ref()
            .expect("every scenario has an exact distribution");
        check_pmf(exact, 1e-9).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            c.capped_mass < 1e-12,
            "{name}: capped mass {}",
            c.capped_mass
        );
        let h = simulate(&c, TRIALS, 1000 + i as u64, 2);
        let r = summarize(&c, &h, 1000 + i as u64, file, cfg.system_name());
        for m in &r.metrics {
            for row in &m.rows {
                let z = row.z.unwrap();
                assert!(
                    z.abs() < 4.5,
                    "{file} {name} {} = {}: MC {} exact {:?} z {z}",
                    m.name,
                    row.label,
                    row.probability,
                    row.exact
                );
            }
            if let Some(z) = m.mean_z {
                assert!(z.abs() < 4.5, "{file} {name} {} mean: z {z}", m.name);
            }
        }
    }
}

#[test]
fn rush_monte_carlo_agrees_with_exact() {
    agree("rush.toml");
}

#[test]
fn rush_exploding_monte_carlo_agrees_with_exact() {
    agree("rush-exploding.toml");
}

#[test]
fn dice_examples_monte_carlo_agrees_with_exact() {
    agree("dice-examples.toml");
}

#[test]
fn rush_as_dice_monte_carlo_agrees_with_exact() {
    agree("rush-as-dice.toml");
}

#[test]
fn descent_monte_carlo_agrees_with_exact() {
    agree("descent.toml");
}

#[test]
fn skirmish_monte_carlo_agrees_with_exact() {
    agree("skirmish.toml");
}

#[test]
fn dozen_monte_carlo_agrees_with_exact() {
    agree("dozen.toml");
}

#[test]
fn the_agreement_check_can_fail() {
    // A deliberately wrong "exact" value must show up as a large z.
    let cfg = load("rush.toml");
    let mut c = cfg.compile("slam-orc-vs-human-guard").unwrap();
    let e = c.exact.as_mut().unwrap();
    let i = e.iter().position(|&p| p > 0.05).unwrap();
    e[i] -= 0.01;
    e[0] += 0.01;
    let h = simulate(&c, TRIALS, 1, 2);
    let r = summarize(&c, &h, 1, "rush.toml", "rush");
    assert!(r.max_abs_z().unwrap() > 10.0);
}

#[test]
fn exploding_pools_report_their_capped_mass() {
    let cfg = load("rush-exploding.toml");
    let c = cfg.compile("slam-orc-vs-human-guard").unwrap();
    assert!(
        c.capped_mass > 0.0 && c.capped_mass < 1e-12,
        "{}",
        c.capped_mass
    );
    let plain = load("rush.toml")
        .compile("slam-orc-vs-human-guard")
        .unwrap();
    assert_eq!(plain.capped_mass, 0.0);
}
