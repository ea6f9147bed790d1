//! Issue #22: a `--set` that swaps who fights whom is honoured by every balance command.
//! Each number a command reports for a changed side is checked against the single exact
//! run (`rollsim run --exact-only` with that `--set` and the step's own change), which
//! loads the config anew: the two paths share nothing but the rules.

use crate::util::{job, rollsim, root, shipped, text};
use rollsim::balance::{compare, equalize, exact_value, sensitivity, steps, sweep, Pick, Source};
use rollsim::edit::Edit;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

fn source(path: &Path, sets: &[String]) -> Source {
    rollsim::app::balance::load_source(path, sets).unwrap()
}

/// What `rollsim run PATH -s SCENARIO --exact-only --set ...` reports as the headline.
fn single(path: &Path, scenario: &str, sets: &[String]) -> f64 {
    let cfg = rollsim::config::load(path, sets, &rollsim::Cancel::new()).unwrap();
    let c = cfg.compile(scenario).unwrap();
    exact_value(&c, &Pick::Headline).unwrap()
}

/// A step's change as the `--set`s a user would write, read against the config as the
/// command line left it (so a side's stat is the stat of the entry it names now).
fn as_sets(source: &Source, edits: &[Edit]) -> Vec<String> {
    edits
        .iter()
        .map(|e| match e {
            Edit::Scenario {
                scenario,
                key,
                value,
            } => format!("scenarios.{scenario}.{key}={value}"),
            Edit::Side {
                scenario,
                role,
                table,
                key,
                value,
            } => {
                let id = source.scenario(scenario).unwrap()[role.as_str()]
                    .as_str()
                    .unwrap()
                    .to_string();
                format!("{table}.{id}.{key}={value}")
            }
            Edit::Path { path, value } => format!("{}={value}", path.join(".")),
        })
        .collect()
}

const SLAM: &str = "slam-orc-vs-human-guard";

fn goblin_defends() -> Vec<String> {
    vec![format!("scenarios.{SLAM}.defender=goblin")]
}

#[test]
fn sensitivity_steps_the_unit_the_set_put_on_the_side() {
    let path = shipped("rush.toml");
    let sets = goblin_defends();
    let s = source(&path, &sets);
    let t = s.target(SLAM).unwrap();
    let pick = Pick::Headline;
    let rows = sensitivity::rows(&job(&s, &t, &pick, 1, None))
        .unwrap()
        .rows;
    let headline = &rows[0].quantity;
    let defender: Vec<_> = rows
        .iter()
        .filter(|r| r.side == "defender" && &r.quantity == headline)
        .collect();
    assert!(defender.len() >= 4, "{rows:#?}");
    for r in &defender {
        assert!(r.change.contains("Goblin"), "{}", r.change);
        assert!(!r.change.contains("Human Guard"), "{}", r.change);
    }
    // Every step's number is the single run with the --set and the step.
    let mut moved = 0;
    for step in steps(&s, SLAM, 1).unwrap() {
        let mut all = sets.clone();
        all.extend(as_sets(&s, &step.edits));
        let want = single(&path, SLAM, &all);
        let row = rows
            .iter()
            .find(|r| r.change == step.label && &r.quantity == headline)
            .unwrap_or_else(|| panic!("no row for {}", step.label));
        assert_eq!(row.changed, want, "{}", step.label);
        assert_eq!(row.base, single(&path, SLAM, &sets));
        if step.role.key == "defender" && row.delta.abs() > 1e-6 {
            moved += 1;
        }
    }
    // The bug this guards against: every defender step printed "0.00 pts". A Slam's
    // headline moves with the defender's dice and strength (speed, skill and armour
    // matter to other metrics).
    assert!(moved >= 2, "{defender:#?}");
}

#[test]
fn sweep_varies_the_unit_the_set_put_on_the_side() {
    let path = shipped("rush.toml");
    let sets = goblin_defends();
    let s = source(&path, &sets);
    let t = s.target(SLAM).unwrap();
    let pick = Pick::Headline;
    let v = sweep::parse(&s, &t.table, "defender.strength=2..6").unwrap();
    let r = sweep::sweep(&job(&s, &t, &pick, 1, None), vec![v]).unwrap();
    let got: Vec<f64> = r.series[0]
        .cells
        .iter()
        .map(|c| c[0].as_ref().unwrap().estimate)
        .collect();
    for (x, g) in (2..=6).zip(&got) {
        let mut all = sets.clone();
        all.push(format!("units.goblin.strength={x}"));
        assert_eq!(*g, single(&path, SLAM, &all), "strength {x}");
    }
    // The numbers: the goblin's line runs 61.20% -> 96.48%, not a flat 91.21%.
    // Worked out by `util::slam_wins`: the Orc's 5 dice at 3+ against the Goblin's 3
    // (a jack: no extra die) at its strength, 2+ to 6+ (91.21% is its own 5+).
    for (g, x) in got.iter().zip(2..=6) {
        assert!(
            (g - crate::util::slam_wins(5, 3, 3, x)).abs() < 1e-12,
            "{x}: {g}"
        );
    }
    assert_eq!(
        format!("{:.4}", crate::util::slam_wins(5, 3, 3, 2)),
        "0.6120"
    );
    assert_eq!(
        format!("{:.4}", crate::util::slam_wins(5, 3, 3, 6)),
        "0.9648"
    );
    assert_eq!(
        format!("{:.4}", crate::util::slam_wins(5, 3, 3, 5)),
        "0.9121"
    );
    assert_eq!(format!("{:.4}", got[0]), "0.6120");
    assert_eq!(format!("{:.4}", got[4]), "0.9648");
}

#[test]
fn the_cli_sweep_and_sensitivity_show_the_swapped_unit() {
    let dir = crate::util::tempdir();
    let set = format!("scenarios.{SLAM}.defender=goblin");
    let a = rollsim()
        .args(["sweep", shipped("rush.toml").to_str().unwrap(), "-s", SLAM])
        .args([
            "--set",
            &set,
            "--vary",
            "defender.strength=2..6",
            "--exact-only",
        ])
        .args(["-o", dir.path().to_str().unwrap()])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    // As above, `util::slam_wins(5, 3, 3, strength)`: 0.61199 and 0.96483.
    assert!(
        out.contains("| 2 | 61.20% |") && out.contains("| 6 | 96.48% |"),
        "{out}"
    );
    let a = rollsim()
        .args([
            "sensitivity",
            shipped("rush.toml").to_str().unwrap(),
            "-s",
            SLAM,
        ])
        .args(["--set", &set, "--exact-only"])
        .args(["-o", dir.path().to_str().unwrap()])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(out.contains("defender Goblin: strength 5+ -> 4+"), "{out}");
    assert!(!out.contains("Human Guard"), "{out}");
}

#[test]
fn equalize_on_a_dice_firefight_changes_the_swapped_opponent() {
    let path = fixture("firefight.toml");
    let sets = vec!["scenarios.firefight.opponent=terminators".to_string()];
    let s = source(&path, &sets);
    let t = s.target("firefight").unwrap();
    let pick = Pick::Headline;
    // A 50% win (a firefight can end with both out: the default seeks wins equal losses).
    let e = equalize::equalize(&job(&s, &t, &pick, 1, None), Some(0.5), false).unwrap();
    let e = &e[0];
    assert_eq!(e.now, single(&path, "firefight", &sets));
    let opponent: Vec<_> = e
        .candidates
        .iter()
        .filter(|c| c.change.starts_with("opponent"))
        .collect();
    assert!(!opponent.is_empty());
    assert!(
        opponent.iter().all(|c| c.change.contains("Terminators")),
        "{opponent:#?}"
    );
    // Each candidate is the single run with its change.
    let mut all_steps = Vec::new();
    // The goal-seek may go further than a few steps along a knob.
    for by in (-64..=64).filter(|&b| b != 0) {
        all_steps.extend(steps(&s, "firefight", by).unwrap());
    }
    for c in &e.candidates {
        let step = all_steps.iter().find(|st| st.label == c.change).unwrap();
        let mut all = sets.clone();
        all.extend(as_sets(&s, &step.edits));
        assert_eq!(c.value, single(&path, "firefight", &all), "{}", c.change);
    }
    // A change to the terminators moves the number (the bug: an Orks change at an
    // unchanged value).
    assert!(opponent.iter().any(|c| (c.value - e.now).abs() > 1e-6));
}

#[test]
fn compare_reads_the_sides_after_the_set() {
    // The matrix's cells set both sides, so the --set only decides who the scenario's
    // own attacker is: each cell is the single run.
    let path = shipped("rush.toml");
    let sets = vec![format!("scenarios.{SLAM}.attacker=goblin")];
    let s = source(&path, &sets);
    let m = compare::matrix(
        &s,
        SLAM,
        (&["orc".into(), "goblin".into()], &["human_guard".into()]),
        &Pick::Headline,
        1,
        None,
        crate::util::ctx(),
    )
    .unwrap();
    for (i, a) in ["orc", "goblin"].iter().enumerate() {
        let mut all = sets.clone();
        all.push(format!("scenarios.{SLAM}.attacker={a}"));
        all.push(format!("scenarios.{SLAM}.defender=human_guard"));
        let cell = m.cells[i][0].value.as_ref().unwrap();
        assert_eq!(cell.estimate, single(&path, SLAM, &all), "{a}");
    }
    // A dice firefight, with the opponent swapped on the command line.
    let path = fixture("firefight.toml");
    let sets = vec!["scenarios.firefight.opponent=terminators".to_string()];
    let s = source(&path, &sets);
    let m = compare::matrix(
        &s,
        "firefight",
        (&[], &[]),
        &Pick::Headline,
        1,
        None,
        crate::util::ctx(),
    )
    .unwrap();
    let ids = ["marines", "orks", "terminators"];
    for (i, a) in ids.iter().enumerate() {
        for (j, d) in ids.iter().enumerate() {
            let all = vec![
                format!("scenarios.firefight.unit={a}"),
                format!("scenarios.firefight.opponent={d}"),
            ];
            let cell = m.cells[i][j].value.as_ref().unwrap();
            assert_eq!(cell.estimate, single(&path, "firefight", &all), "{a} v {d}");
        }
    }
}

/// Every step of sensitivity, every candidate of equalize and every point of a sweep
/// equal the single runs, for a rush Slam and a dice firefight with a swapped side.
#[test]
fn every_balance_command_on_both_systems_reads_the_swapped_side() {
    let cases = [
        (
            shipped("rush.toml"),
            SLAM,
            format!("scenarios.{SLAM}.defender=goblin"),
            "defender.strength=2..6",
            "units.goblin.strength",
            "Goblin",
        ),
        (
            fixture("firefight.toml"),
            "firefight",
            "scenarios.firefight.opponent=terminators".to_string(),
            "opponent.models=1..5",
            "units.terminators.models",
            "Terminators",
        ),
    ];
    for (path, sc, set, vary, key, name) in cases {
        let sets = vec![set];
        let s = source(&path, &sets);
        let t = s.target(sc).unwrap();
        let pick = Pick::Headline;
        let job = job(&s, &t, &pick, 1, None);
        // The equalizer's goal-seek may go further than a few steps along a knob.
        let all_steps: Vec<_> = (-64i64..=64)
            .filter(|&by| by != 0)
            .flat_map(|by| steps(&s, sc, by).unwrap())
            .collect();
        let want = |step: &rollsim::balance::Step| {
            let mut all = sets.clone();
            all.extend(as_sets(&s, &step.edits));
            single(&path, sc, &all)
        };
        // Sensitivity: the headline rows.
        let rows = sensitivity::rows(&job).unwrap().rows;
        let headline = rows[0].quantity.clone();
        for r in rows.iter().filter(|r| r.quantity == headline) {
            let step = all_steps.iter().find(|st| st.label == r.change).unwrap();
            assert_eq!(r.changed, want(step), "{}", r.change);
            if r.side == step.role.key && step.role.key != "attacker" && step.role.key != "unit" {
                assert!(r.change.contains(name), "{}", r.change);
            }
        }
        // Equalize: every candidate (of a 50% win: the headline's own values).
        let e = equalize::equalize(&job, Some(0.5), false).unwrap();
        for c in &e[0].candidates {
            let step = all_steps.iter().find(|st| st.label == c.change).unwrap();
            assert_eq!(c.value, want(step), "{}", c.change);
        }
        // Sweep: every point.
        let v = sweep::parse(&s, &t.table, vary).unwrap();
        let values = v.values.clone();
        let r = sweep::sweep(&job, vec![v]).unwrap();
        for (x, cell) in values.iter().zip(&r.series[0].cells) {
            let mut all = sets.clone();
            all.push(format!("{key}={x}"));
            let got = cell[0].as_ref().unwrap().estimate;
            assert_eq!(got, single(&path, sc, &all), "{key}={x}");
        }
    }
}
