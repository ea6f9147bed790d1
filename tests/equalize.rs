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

/// Issue #57: a duel that can end in a draw is even when wins equal losses, not at a 50%
/// chance to win. d6 + 1 against d6, ties a draw: the Knight wins 21/36, draws 5/36,
/// loses 10/36 (counted by hand over the 36 pairs). The equalizer says so on stderr and
/// in its report, seeks P(win) - P(loss) = 0 and finds it at an attack of 0 (15/36 each
/// way); `--target 0.5` still seeks a 50% win.
#[test]
fn a_duel_with_draws_is_even_when_wins_equal_losses() {
    let dir = tempdir();
    let cfg = dir.path().join("tie.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[units.a]\nname = \"Knight\"\natk = 1\n[units.b]\nname = \"Rogue\"\natk = 0\n\
         [scenarios.duel]\nunit = \"a\"\nopponent = \"b\"\nroll = \"d6 + atk\"\nvs = \"d6 + atk\"\nties = \"tie\"\n",
    )
    .unwrap();
    let run = |extra: &[&str], out: &str| {
        let a = rollsim()
            .args([
                "equalize",
                cfg.to_str().unwrap(),
                "-s",
                "duel",
                "--exact-only",
                "-o",
            ])
            .arg(dir.path().join(out))
            .args(extra)
            .assert()
            .success();
        let o = a.get_output();
        (text(&o.stdout), text(&o.stderr))
    };
    let (md, err) = run(&[], "margin");
    assert!(
        err.contains("note: `duel` can end in a draw (P(result = tie): 13.89%), so even is wins equal losses: the equalizer seeks P(Knight wins) - P(Rogue wins) = 0"),
        "{err}"
    );
    assert!(
        md.contains("P(Knight wins) - P(Rogue wins) now: 0.306."),
        "{md}"
    );
    assert!(md.contains("Note: `duel` can end in a draw"), "{md}");
    let csv = std::fs::read_to_string(dir.path().join("margin/equalize-duel.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // The two changes that make it 15/36 against 15/36 (the walk along each knob stops
    // at the step that reaches the target, as it does for a 50% win in
    // `tests/balance.rs`), then the two the other way: 26/36 - 6/36 = 20/36.
    assert_eq!(rows.len(), 4, "{csv}");
    for (row, (change, value)) in rows.iter().zip([
        ("unit Knight: atk 1 -> 0", 0.0),
        ("opponent Rogue: atk 0 -> 1", 0.0),
        ("unit Knight: atk 1 -> 2", 20.0 / 36.0),
        ("opponent Rogue: atk 0 -> -1", 20.0 / 36.0),
    ]) {
        assert_eq!(row[1], change, "{csv}");
        let v: f64 = row[3].parse().unwrap();
        assert!((v - value).abs() < 1e-12, "{csv}");
    }
    // Asked for a 50% win, it seeks that, and says nothing of draws.
    let (md, err) = run(&["--target", "0.5"], "half");
    assert!(!err.contains("draw"), "{err}");
    assert!(md.contains("P(Knight wins) now: 58.33%."), "{md}");
    // Other commands that read the win say a draw counts as no win.
    let a = rollsim()
        .args([
            "sensitivity",
            cfg.to_str().unwrap(),
            "-s",
            "duel",
            "--exact-only",
            "-o",
        ])
        .arg(dir.path().join("sens"))
        .assert()
        .success();
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("note: `duel` can end in a draw (P(result = tie): 13.89%): P(Knight wins) counts a draw as no win; `equalize` seeks wins equal losses (P(Knight wins) - P(Rogue wins) = 0)"),
        "{err}"
    );
    // One chart per quantity (issue #57): the win in points, the mean margin apart.
    let mut charts: Vec<String> = std::fs::read_dir(dir.path().join("sens"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".png"))
        .collect();
    charts.sort();
    assert_eq!(
        charts,
        [
            "sensitivity-duel-expected-margin.png",
            "sensitivity-duel.png"
        ]
    );
}
