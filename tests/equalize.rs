//! The equalizer of issue #24: a goal-seek over a knob's whole range, stat bounds from
//! `[stat_bounds]`, no change that leaves the value where it is, and "already even".
//! Every number is worked out by hand from a d20 or a d6.

use crate::util::{rollsim, tempdir, text};
use std::path::Path;

fn config(dir: &Path, bounds: &str) -> std::path::PathBuf {
    let cfg = dir.join("eq.toml");
    std::fs::write(
        &cfg,
        format!(
            r#"system = "dice"
title = "Equalizer checks"
{bounds}
[units.hero]
attack = 0
wounds = 1
unused = 3
[units.foe]
attack = 0
wounds = 1
unused = 3
[scenarios.far]
unit = "hero"
opponent = "foe"
roll = "d20 + attack >= 25"
[scenarios.tough]
unit = "hero"
opponent = "foe"
roll = "d6 + attack > their_wounds + 2"
"#
        ),
    )
    .unwrap();
    cfg
}

fn equalize(cfg: &Path, scenario: &str, out: &Path) -> String {
    let a = rollsim()
        .arg("equalize")
        .arg(cfg)
        .args(["-s", scenario, "--exact-only", "-o"])
        .arg(out)
        .assert()
        .success();
    text(&a.get_output().stdout)
}

#[test]
fn a_knob_is_sought_over_its_whole_range_not_three_steps() {
    // P(d20 + a >= 25) = (a - 4) / 20: 0% now, exactly 50% at attack 14 (fourteen steps
    // away; the old equalizer looked two).
    let d = tempdir();
    let md = equalize(&config(d.path(), ""), "far", &d.path().join("o"));
    assert!(
        md.contains("Closest to 50%: **unit hero: attack 0 -> 14** gives 50.00%."),
        "{md}"
    );
    // Bounded by the designer: attack at most 10 gives (10 - 4) / 20 = 30%.
    let md = equalize(
        &config(d.path(), "stat_bounds = { attack = [0, 10] }"),
        "far",
        &d.path().join("o2"),
    );
    assert!(
        md.contains("Closest to 50%: **unit hero: attack 0 -> 10** gives 30.00%."),
        "{md}"
    );
    assert!(!md.contains("-> 11"), "{md}");
}

#[test]
fn bounds_unchanged_values_and_already_even() {
    // P(d6 > wounds + 2) = P(d6 > 3) = 3/6 = 50% now: already even. Wounds below 1 is no unit (bounds
    // [1, 10]); `unused` and the hero's own wounds never change the value: no candidate.
    let d = tempdir();
    let md = equalize(
        &config(d.path(), "stat_bounds = { wounds = [1, 10] }"),
        "tough",
        &d.path().join("o"),
    );
    assert!(md.contains("**Already even**: 50.00% is 50%"), "{md}");
    assert!(!md.contains("wounds 1 -> 0"), "{md}");
    assert!(!md.contains("unused"), "{md}");
    assert!(!md.contains("unit hero: wounds"), "{md}");
    // +1 attack: P(d6 + 1 > 3) = P(d6 > 2) = 4/6 = 66.67%; the foe's wounds 1 -> 2:
    // P(d6 > 4) = 2/6 = 33.33%.
    assert!(
        md.contains("| unit hero: attack 0 -> 1 | 1 | 66.67% |"),
        "{md}"
    );
    assert!(
        md.contains("| opponent foe: wounds 1 -> 2 | 1 | 33.33% |"),
        "{md}"
    );
    // Without the bounds the foe's wounds may go to 0: P(d6 > 0 + 2) = 4/6 = 66.67%.
    let md = equalize(&config(d.path(), ""), "tough", &d.path().join("o2"));
    assert!(
        md.contains("| opponent foe: wounds 1 -> 0 | 1 | 66.67% |"),
        "{md}"
    );
}

#[test]
fn bad_stat_bounds_are_refused_at_their_line() {
    let d = tempdir();
    for (bounds, says) in [
        (
            "stat_bounds = { woundz = [1, 10] }",
            "did you mean `wounds`",
        ),
        ("stat_bounds = { wounds = [10, 1] }", "the lowest first"),
        ("stat_bounds = { wounds = 3 }", "expected [LOWEST, HIGHEST]"),
    ] {
        let cfg = config(d.path(), bounds);
        let a = rollsim().arg("check").arg(&cfg).assert().code(2);
        let err = text(&a.get_output().stderr);
        assert!(err.contains("eq.toml:3:"), "{bounds}: {err}");
        assert!(err.contains("stat_bounds."), "{bounds}: {err}");
        assert!(err.contains(says), "{bounds}: {err}");
    }
}
