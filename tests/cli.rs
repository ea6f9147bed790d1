//! The binary as a designer meets it: the happy path, and every kind of bad input
//! answered with a located message, exit code 2 and no output written.

use crate::util::{rollsim, shipped, tempdir, walk};
use std::path::Path;

const CONTRACT_DIST: &str =
    "scenario,metric,value,count,trials,probability,ci_low,ci_high,exact,exact_fraction";
const CONTRACT_SUMMARY: &str = "scenario,metric,mean,mean_ci_low,mean_ci_high,exact_mean,trials,seed,outcomes,exact_mean_fraction";

#[test]
fn run_writes_every_format_and_chart() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args([
            "-s",
            "slam-orc-vs-human-guard",
            "-s",
            "throw-long",
            "-n",
            "200000",
            "--quiet",
        ])
        .args([
            "--format",
            "csv,parquet,json,md",
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let stdout = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("### slam-orc-vs-human-guard"));
    assert!(stdout.contains("| value | P (Monte Carlo) | 95% CI | exact | exact fraction | z |"));
    let dist = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    assert_eq!(dist.lines().next().unwrap(), CONTRACT_DIST);
    assert!(dist.contains("slam-orc-vs-human-guard,result,double,"));
    let summ = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(summ.lines().next().unwrap(), CONTRACT_SUMMARY);
    for f in [
        "distribution.parquet",
        "summary.parquet",
        "distribution.json",
        "summary.json",
    ] {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 100, "{f}");
    }
    let json = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(json.starts_with('[') && json.contains("\"exact_mean\""));
    for png in [
        "slam-orc-vs-human-guard/result.png",
        "slam-orc-vs-human-guard/target_turns_out_of_play.png",
        "slam-orc-vs-human-guard/target_turns_out_of_play_at_least.png",
        "throw-long/result.png",
    ] {
        let bytes = std::fs::read(out.join(png)).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{png}");
        assert!(bytes.len() > 10_000, "{png} has content");
    }
    // no temporary files left behind; the one hidden file marks the report as rollsim's
    for e in std::fs::read_dir(&out).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(
            !name.starts_with('.') || name == ".rollsim-report",
            "{name}"
        );
    }
    assert!(out.join(".rollsim-report").is_file());
}

#[test]
fn list_prints_one_scenario_per_line_name_first() {
    let a = rollsim()
        .args(["list", shipped("rush.toml").to_str().unwrap()])
        .assert()
        .success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    let names: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(names.len(), 28);
    assert_eq!(names[0], "dash-chain-striker");
    assert!(names.contains(&"slam-orc-vs-human-guard"));
}

#[test]
fn check_validates_and_reports() {
    let a = rollsim()
        .args(["check", shipped("rush-exploding.toml").to_str().unwrap()])
        .assert()
        .success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("ok (rush system, 24 scenarios, 24 with exact distributions)"),
        "{out}"
    );
}

/// Run with a broken config and check: exit 2, every expected fragment in stderr, and
/// an existing report left exactly as it was.
fn refuses(config_text: Option<&str>, args: &[&str], expect: &[&str]) {
    let dir = tempdir();
    let cfg = dir.path().join("bad.toml");
    match config_text {
        Some(t) => std::fs::write(&cfg, t).unwrap(),
        None => std::fs::copy(shipped("rush.toml"), &cfg)
            .map(|_| ())
            .unwrap(),
    }
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("distribution.csv"), "previous report").unwrap();
    let mut cmd = rollsim();
    cmd.arg("run")
        .arg(&cfg)
        .args(["-n", "1000", "-q", "-o"])
        .arg(&out)
        .args(args);
    let a = cmd.assert().code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    for e in expect {
        assert!(err.contains(e), "expected `{e}` in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("distribution.csv")).unwrap(),
        "previous report"
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "nothing else written"
    );
}

/// A shipped config with its first `from` replaced by `to`.
fn edited(file: &str, from: &str, to: &str) -> String {
    let t = std::fs::read_to_string(shipped(file)).unwrap();
    assert!(t.contains(from), "{from}");
    t.replacen(from, to, 1)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn unknown_key_is_located_with_the_nearest_name() {
    let t = edited("rush.toml", "strength = 3\n", "strenght = 3\n");
    let line = line_of(&t, "strenght");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `units.orc.strenght`"),
            "did you mean `strength`?",
        ],
    );
}

#[test]
fn misspelt_unit_is_located_with_the_nearest_name() {
    let t = edited("rush.toml", "attacker = \"orc\"", "attacker = \"ork\"");
    let line = line_of(&t, "\"ork\"");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `scenarios.slam-orc-vs-human-guard.attacker`"),
            "no unit `ork` (did you mean `orc`?)",
        ],
    );
}

#[test]
fn misspelt_scenario_kind_and_value_names() {
    let t = edited("rush.toml", "kind = \"slam\"", "kind = \"slma\"");
    refuses(
        Some(&t),
        &[],
        &["unknown value `slma` (did you mean `slam`?)"],
    );
    let t = edited(
        "rush.toml",
        "response = \"slamback\"",
        "response = \"slamabck\"",
    );
    refuses(Some(&t), &[], &["did you mean `slamback`?"]);
    let t = edited("rush.toml", "role = \"guard\"", "role = \"gaurd\"");
    refuses(
        Some(&t),
        &[],
        &["key `units.human_guard.role`", "did you mean `guard`?"],
    );
}

#[test]
fn misspelt_scenario_on_the_command_line() {
    refuses(
        None,
        &["-s", "slam-orc-vs-human-gaurd"],
        &["no scenario `slam-orc-vs-human-gaurd` (did you mean `slam-orc-vs-human-guard`?)"],
    );
}

#[test]
fn stat_outside_two_to_six_plus() {
    let t = edited("rush.toml", "strength = 3\n", "strength = 7\n");
    let line = line_of(&t, "strength = 7");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `units.orc.strength`"),
            "expected a target from 2+ to 6+",
            "found 7",
        ],
    );
    let t = edited("rush.toml", "strength = 3\n", "strength = \"1+\"\n");
    refuses(Some(&t), &[], &["found \"1+\""]);
}

#[test]
fn zero_or_negative_trials() {
    refuses(None, &["-n", "0"], &["--trials"]);
    refuses(None, &["--trials=-5"], &["--trials"]);
    let t = edited("rush.toml", "trials = 10_000_000", "trials = 0");
    refuses(
        Some(&t),
        &[],
        &["key `run.trials`", "positive number of trials"],
    );
    let t = edited("rush.toml", "trials = 10_000_000", "trials = -3");
    refuses(Some(&t), &[], &["key `run.trials`", "non-negative"]);
}

/// A negative seed is a value refused as one, in every spelling: clap alone took
/// `--seed -1` for another flag (with a tip to write `-- -1`, which passes `-1` as a
/// positional argument) and said "invalid digit found in string" of `--seed=-1`.
#[test]
fn a_negative_seed_is_refused_as_a_seed() {
    let said = "invalid value '-1' for '--seed <SEED>': expected a whole number from 0 to 18446744073709551615; found `-1`";
    refuses(None, &["--seed", "-1"], &[said]);
    refuses(None, &["--seed=-1"], &[said]);
    let a = rollsim()
        .args(["roll", "d6", "-q", "--seed", "-1"])
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(err.contains(said) && !err.contains("-- -1"), "{err}");
}

#[test]
fn unreadable_file() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = rollsim()
        .args(["run", "/nonexistent/rush.toml", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    let err = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("/nonexistent/rush.toml: cannot read the config"),
        "{err}"
    );
    assert!(!Path::new(&out).exists());
}

#[test]
fn set_key_that_does_not_exist() {
    refuses(
        None,
        &["--set", "units.orc.strenght=2"],
        &[
            "--set units.orc.strenght=2",
            "key `units.orc.strenght`",
            "did you mean `strength`?",
        ],
    );
    refuses(
        None,
        &["--set", "units.ork.strength=2"],
        &[
            "--set units.ork.strength=2",
            "no `ork` in `units` (did you mean `orc`?)",
        ],
    );
    refuses(
        None,
        &["--set", "units.orc.strength"],
        &["expected KEY=VALUE"],
    );
    refuses(
        None,
        &["--set", "units.orc.strength=9"],
        &["--set units.orc.strength=9", "found 9"],
    );
}

#[test]
fn set_overrides_a_value() {
    let dir = tempdir();
    let a = rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args([
            "-s",
            "slam-orc-vs-human-guard",
            "-n",
            "1000",
            "-q",
            "--no-plots",
            "--format",
            "md",
        ])
        .args([
            "--set",
            "units.orc.strength=\"2+\"",
            "--set",
            "scenarios.slam-orc-vs-human-guard.moved_adjacent=false",
        ])
        .arg("-o")
        .arg(dir.path())
        .assert()
        .success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("4 dice at 2+ vs slamback 4 dice at 4+"),
        "{out}"
    );
}

#[test]
fn toml_syntax_error_is_located() {
    let t = edited("rush.toml", "move = 5\n", "move = = 5\n");
    let line = line_of(&t, "move = = 5");
    refuses(
        Some(&t),
        &[],
        &[&format!("bad.toml:{line}:"), "invalid TOML"],
    );
}

#[test]
fn key_that_does_not_apply_to_the_kind() {
    let t = edited(
        "rush.toml",
        "moved_adjacent = true       # 5 dice",
        "range = 3 # 5 dice",
    );
    refuses(Some(&t), &[], &["unknown key for a `slam` scenario"]);
    let t = edited(
        "rush.toml",
        "response = \"slamback\"\nmoved_adjacent = true",
        "response = \"slamback\"\nfrom_front = false",
    );
    refuses(
        Some(&t),
        &[],
        &["Slamback answers only an action from the front"],
    );
}

#[test]
fn dozen_ability_and_skill_level_out_of_range() {
    let t = edited("dozen.toml", "dx = 5 ", "dx = 13 ");
    let line = line_of(&t, "dx = 13");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `characters.thief.dx`"),
            "expected an integer from 1 to 12, found 13",
        ],
    );
    let t = edited(
        "dozen.toml",
        "melee = 2, endurance = 2 }",
        "melee = 20, endurance = 2 }",
    );
    let line = line_of(&t, "melee = 20");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:"),
            "key `characters.fighter.skills.melee`",
            "expected a skill level from 0 to 12, found 20",
        ],
    );
}

#[test]
fn dozen_misspelt_difficulty_character_and_skill() {
    let t = edited(
        "dozen.toml",
        "difficulty = \"hard\"",
        "difficulty = \"hrad\"",
    );
    let line = line_of(&t, "\"hrad\"");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `scenarios.fighter-wades-quicksand.difficulty`"),
            "unknown value `hrad` (did you mean `hard`?)",
            "`very_easy`, `easy`, `normal`, `hard`, `very_hard`",
        ],
    );
    let t = edited("dozen.toml", "a = \"fighter\"", "a = \"figther\"");
    refuses(
        Some(&t),
        &[],
        &["no character `figther` (did you mean `fighter`?)"],
    );
    let t = edited(
        "dozen.toml",
        "skill = \"turn_undead\"",
        "skill = \"turn_undaed\"",
    );
    refuses(
        Some(&t),
        &[],
        &["Temple Knight has no skill `turn_undaed` (did you mean `turn_undead`?)"],
    );
}

#[test]
fn dozen_height_below_zero_and_jump_beyond_mv() {
    let t = edited("dozen.toml", "\nheight = 4", "\nheight = -1");
    let line = line_of(&t, "height = -1");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `scenarios.thief-falls-4.height`"),
            "expected a height of 0 or more squares, found -1",
        ],
    );
    let t = edited("dozen.toml", "distance = 4", "distance = 5");
    refuses(
        Some(&t),
        &[],
        &["Thief (MV 4) can jump 1 to 4 squares, found 5"],
    );
}

#[test]
fn dozen_duel_nobody_can_win_is_reported_not_hung() {
    let dir = tempdir();
    let cfg = dir.path().join("stalemate.toml");
    let t = std::fs::read_to_string(shipped("dozen.toml")).unwrap();
    let head = t.split("[scenarios.").next().unwrap();
    std::fs::write(
        &cfg,
        format!(
            "{head}\n[characters.pacifist]\ndx = 3\nco = 3\nst = 3\nch = 3\naw = 3\nmv = 3\n\n\
             [scenarios.stalemate]\nkind = \"duel\"\na = \"pacifist\"\nb = \"pacifist\"\nmax_activations = 40\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let a = rollsim()
        .arg("run")
        .arg(&cfg)
        .args(["-n", "100000", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("exact probability of no casualty within 40 activations 1.0e0"),
        "{stdout}"
    );
    // The pacifists are given no weapon, so no activation can wound either of them:
    // every duel is still running at the 40th activation, probability 1.
    assert!(stdout.contains("| unfinished | 100.00% |"), "{stdout}");
    let dist = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    assert!(dist.contains("stalemate,activations,>40,100000,100000,1.0,"));
    assert!(out.join("stalemate/winner.png").exists());
}

#[test]
fn dozen_run_writes_csv_and_charts_for_every_scenario() {
    let dir = tempdir();
    let out = dir.path().join("out");
    rollsim()
        .args(["run", shipped("dozen.toml").to_str().unwrap()])
        .args(["-n", "20000", "-q", "--format", "csv", "-o"])
        .arg(&out)
        .assert()
        .success();
    let list = rollsim()
        .args(["list", shipped("dozen.toml").to_str().unwrap()])
        .assert()
        .success();
    let names: Vec<String> = String::from_utf8(list.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    assert!(names.len() >= 20);
    let dist = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    for name in &names {
        assert!(
            dist.contains(&format!("\n{name},")),
            "{name} in distribution.csv"
        );
        assert!(
            summary.contains(&format!("\n{name},")),
            "{name} in summary.csv"
        );
        let pngs = std::fs::read_dir(out.join(name))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "png")
            })
            .count();
        assert!(pngs >= 1, "{name}: {pngs} charts");
    }
    for png in [
        "duel-fighter-vs-dwarf/duel.png",
        "duel-fighter-vs-dwarf/winner.png",
        "duel-fighter-vs-dwarf/activations.png",
        "fighter-charges-dwarf/defender_hp_lost.png",
    ] {
        let bytes = std::fs::read(out.join(png)).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{png}");
        assert!(bytes.len() > 10_000, "{png} has content");
    }
    // The race metrics feed duel.png only.
    assert!(!out.join("duel-fighter-vs-dwarf/a_wins_at.png").exists());
}

#[test]
fn descent_bad_dice_weapons_and_power_dice() {
    let t = edited(
        "descent.toml",
        "faces = [\"3H\", \"3H\", \"2H S\", \"2H S\", \"R1 2H\", \"R1 1H\"]",
        "faces = []",
    );
    let line = line_of(&t, "faces = []");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `dice.green.faces`"),
            "a die needs at least one face",
        ],
    );
    let t = edited(
        "descent.toml",
        "dice = [\"red\", \"white\"]",
        "dice = [\"red\", \"whte\"]",
    );
    refuses(
        Some(&t),
        &[],
        &[
            "key `weapons.broadsword.dice`",
            "no die `whte` (did you mean `white`?)",
        ],
    );
    let t = edited("descent.toml", "power_dice = 2\n", "power_dice = 6\n");
    refuses(
        Some(&t),
        &[],
        &[
            "key `heroes.fighter.power_dice`",
            "expected an integer from 0 to 5, found 6",
        ],
    );
    let t = edited(
        "descent.toml",
        "{ cost = 1, damage = 1 }",
        "{ cost = -1, damage = 1 }",
    );
    refuses(
        Some(&t),
        &[],
        &[
            "key `weapons.broadsword.surges`",
            "surge ability 1: the cost must be at least 1 surge, found -1",
        ],
    );
    let t = edited(
        "descent.toml",
        "faces = [\"X\", \"4H\"",
        "faces = [\"X\", \"4Q\"",
    );
    refuses(Some(&t), &[], &["face 2 (\"4Q\"): unknown token `4Q`"]);
}

#[test]
fn descent_melee_attack_beyond_distance_one() {
    let t = edited(
        "descent.toml",
        "weapon = \"broadsword\"\ntarget = \"beastman\"\nobjective = \"kill\"\n",
        "weapon = \"broadsword\"\ntarget = \"beastman\"\nobjective = \"kill\"\ndistance = 3\n",
    );
    let line = line_of(&t, "distance = 3");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `scenarios.broadsword-vs-beastman.distance`"),
            "Broadsword is a melee weapon: it attacks adjacent targets only (distance 1), found 3",
        ],
    );
}

#[test]
fn descent_run_writes_csv_and_charts_for_every_scenario() {
    let dir = tempdir();
    let out = dir.path().join("out");
    rollsim()
        .args(["run", shipped("descent.toml").to_str().unwrap()])
        .args(["-n", "20000", "-q", "--format", "csv", "-o"])
        .arg(&out)
        .assert()
        .success();
    let dist = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    let config = std::fs::read_to_string(shipped("descent.toml")).unwrap();
    let mut profiles = 0;
    for line in config.lines() {
        let Some(name) = line
            .strip_prefix("[scenarios.")
            .and_then(|l| l.strip_suffix(']'))
        else {
            continue;
        };
        let pngs: Vec<String> = std::fs::read_dir(out.join(name))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f.ends_with(".png"))
            .collect();
        if dist.contains(&format!("\n{name},")) {
            assert!(pngs.len() >= 3, "{name}: {pngs:?}");
        } else {
            // A profile: its points are in the tables, its charts in its folder.
            profiles += 1;
            assert!(dist.contains(&format!("\n{name}@")), "{name} points");
            assert!(
                pngs.iter().any(|p| p.starts_with("damage_vs_")),
                "{name}: {pngs:?}"
            );
            assert!(pngs.iter().any(|p| p.starts_with("probabilities_vs_")));
        }
    }
    assert!(profiles >= 4);
    for weapon in ["crossbow", "longbow", "fire-staff"] {
        let p = out.join(format!("{weapon}-range/damage_vs_distance.png"));
        let bytes = std::fs::read(&p).unwrap();
        assert!(bytes.len() > 10_000, "{}", p.display());
    }
    // `-s PROFILE` selects all its points.
    let out2 = dir.path().join("out2");
    rollsim()
        .args(["run", shipped("descent.toml").to_str().unwrap()])
        .args([
            "-s",
            "crossbow-range",
            "-n",
            "20000",
            "-q",
            "--format",
            "csv",
            "-o",
        ])
        .arg(&out2)
        .assert()
        .success();
    let dist = std::fs::read_to_string(out2.join("distribution.csv")).unwrap();
    assert!(dist.contains("crossbow-range@d1,") && dist.contains("crossbow-range@d10+aim,"));
}

#[test]
fn skirmish_forbidden_reactions_and_bad_units() {
    let t = edited(
        "skirmish.toml",
        "reaction = \"counter_charge\"",
        "reaction = \"cast_spell\"",
    );
    let line = line_of(&t, "cast_spell");
    refuses(
        Some(&t),
        &[],
        &[
            &format!("bad.toml:{line}:1: key `scenarios.cavalry-charges-archers-close.reaction`"),
            "spells may never be cast as a reaction",
        ],
    );
    let t = edited(
        "skirmish.toml",
        "reaction = \"counter_charge\"",
        "reaction = \"shield_wall\"",
    );
    refuses(
        Some(&t),
        &[],
        &["Archers has no shields: only units with shields may form a shield wall"],
    );
    let t = edited("skirmish.toml", "target_value = 7\n", "target_value = -1\n");
    refuses(
        Some(&t),
        &[],
        &[
            "key `units.archers.target_value`",
            "a target value cannot be negative, found -1",
        ],
    );
    // Spearmen with one model and one attack die: a shield wall would halve it to 0.
    let t = edited(
        "skirmish.toml",
        "name = \"Spearmen\"\nmodels = 10\n",
        "name = \"Spearmen\"\nmodels = 1\n",
    );
    refuses(
        Some(&t),
        &[],
        &["a shield wall halves Spearmen's 1 attack dice (rounding down) to 0"],
    );
    let t = edited(
        "skirmish.toml",
        "reaction = \"none\"",
        "reaction = \"dodge\"",
    );
    refuses(
        Some(&t),
        &[],
        &[
            "unknown reaction `dodge`",
            "`counter_charge`, `defend`, `shield_wall`",
        ],
    );
}

#[test]
fn skirmish_run_writes_csv_png_and_decision_tables() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = rollsim()
        .args(["run", shipped("skirmish.toml").to_str().unwrap()])
        .args(["-n", "20000", "-q", "--format", "csv,md", "-o"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("### decision: archers-shot-at"), "{stdout}");
    assert!(stdout.contains("| go to ground |"));
    let dec = std::fs::read_to_string(out.join("decisions.csv")).unwrap();
    assert_eq!(
        dec.lines().next().unwrap(),
        "decision,choice,scenario,quantity,estimate,ci_low,ci_high,exact"
    );
    assert!(dec.contains(
        "spearmen-charged-by-cavalry,shield wall,spearmen-charged-by-cavalry@shield_wall,expected casualties_on_target,"
    ));
    for d in [
        "archers-shot-at",
        "skirmishers-shot-at",
        "spearmen-charged-by-cavalry",
        "spearmen-charged-by-warband",
    ] {
        let bytes = std::fs::read(out.join(d).join("decision.png")).unwrap();
        assert!(bytes.len() > 10_000, "{d}");
    }
    for s in [
        "archers-volley",
        "archers-flee-test",
        "archers-vs-skirmishers-firefight",
    ] {
        assert!(
            out.join(s).join("casualties_on_target.png").exists()
                || out.join(s).join("result.png").exists()
                || out.join(s).join("outcome.png").exists(),
            "{s}"
        );
    }
    assert!(std::fs::read_to_string(out.join("distribution.csv"))
        .unwrap()
        .contains("\narchers-shot-at@run,"));
}

#[test]
fn the_default_run_writes_the_gallery() {
    let dir = tempdir();
    let a = rollsim()
        .current_dir(dir.path())
        .args(["-n", "20000", "-q"])
        .assert()
        .success();
    let stdout = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("reports/index.md"), "{stdout}");
    let md = std::fs::read_to_string(dir.path().join("reports/index.md")).unwrap();
    for config in ["rush", "rush-exploding", "dozen", "descent", "skirmish"] {
        assert!(
            md.contains(&format!("({config}/distribution.csv)")),
            "{config}"
        );
        assert!(
            md.contains(&format!("({config}/compare/matrix-")),
            "{config} matrix"
        );
    }
    // Unit against unit, the matrix is read as a roster card too: rush's Slam matrix
    // is all units, its Nash mix all Orc (worked out in tests/roster.rs's way).
    assert!(
        md.contains("### Roster: slam-orc-vs-human-guard as a metagame"),
        "no roster card"
    );
    assert!(md.contains("(rush/roster/roster-slam-orc-vs-human-guard-nash.png)"));
    assert!(
        md.contains("A perfect player picks Orc 100%"),
        "roster line"
    );
    // Every chart the run wrote is linked from the gallery.
    let mut pngs = 0;
    for e in walk(&dir.path().join("reports")) {
        let rel = e
            .strip_prefix(dir.path().join("reports"))
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.ends_with(".png") && !rel.contains("/compare/") {
            pngs += 1;
            assert!(md.contains(&format!("({rel})")), "{rel} not in index.md");
        }
    }
    assert!(pngs > 300, "{pngs} charts");
    let html = std::fs::read_to_string(dir.path().join("reports/index.html")).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    // A card per scenario with its headline chart, loaded from the file, not embedded.
    assert!(!html.contains("data:image"));
    assert!(html.matches("<img loading=\"lazy\"").count() >= 140);
}

#[test]
fn compare_sweep_sensitivity_equalize_and_overlay_from_the_command_line() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let rush = shipped("rush.toml");
    let a = rollsim()
        .args([
            "compare",
            rush.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let md = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    // The Orc's row, worked out by `util::slam_wins`: it slams with 3 dice + 1 (guard)
    // + 1 (moved adjacent) at 3+; each defender slams back with 3 dice at its strength,
    // a guard with one more: Striker and Jack 3 at 4+, Guard 4 at 4+, Orc 4 at 3+,
    // Goblin 3 at 5+.
    let row: Vec<String> = [(3, 4), (3, 4), (4, 4), (4, 3), (3, 5)]
        .iter()
        .map(|&(n, t)| format!("{:.1}%", 100.0 * crate::util::slam_wins(5, 3, n, t)))
        .collect();
    let row = format!("| Orc | {} |", row.join(" | "));
    assert_eq!(row, "| Orc | 83.6% | 83.6% | 72.1% | 54.9% | 91.2% |");
    assert!(md.contains(&row), "{md}");
    let wide =
        std::fs::read_to_string(out.join("matrix-slam-orc-vs-human-guard-wide.csv")).unwrap();
    assert_eq!(
        wide.lines().next().unwrap(),
        "attacker,human_striker,human_jack,human_guard,orc,goblin"
    );
    assert!(out.join("matrix-slam-orc-vs-human-guard.png").exists());
    let a = rollsim()
        .args([
            "compare",
            rush.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
            "--metric",
            "result=doubel",
            "--exact-only",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr)
        .contains("has no value `doubel` (did you mean `double`?)"));
    rollsim()
        .args([
            "sweep",
            rush.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
            "--vary",
            "attacker.strength=2..6",
            "--vary",
            "defender.strength=2..6",
            "--exact-only",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    assert!(out
        .join("sweep-slam-orc-vs-human-guard-attacker_strength-defender_strength.png")
        .exists());
    let a = rollsim()
        .args([
            "sensitivity",
            rush.to_str().unwrap(),
            "-s",
            "pick-up-striker",
            "--exact-only",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).contains("+1 die"));
    assert!(out.join("sensitivity-pick-up-striker.png").exists());
    // `rollsim COMMAND rush.toml -s slam-orc-vs-human-guard --exact-only EXTRA -o out`.
    let slam = |command: &str, extra: &[&str]| {
        rollsim()
            .args([
                command,
                rush.to_str().unwrap(),
                "-s",
                "slam-orc-vs-human-guard",
            ])
            .arg("--exact-only")
            .args(extra)
            .arg("-o")
            .arg(&out)
            .assert()
            .success()
    };
    // A Slam can end in a draw: without a target the equalizer seeks wins equal losses
    // (`tests/equalize.rs`).
    let a = slam("equalize", &["--target", "0.5"]);
    // At 4+ the Orc's 5 dice against the Guard's 4 win exactly half the time: the fifth
    // die breaks the symmetry of the other four (`util::slam_wins` adds it up).
    let even = format!("{:.2}%", 100.0 * crate::util::slam_wins(5, 4, 4, 4));
    assert_eq!(even, "50.00%");
    assert!(
        String::from_utf8_lossy(&a.get_output().stdout).contains(&format!(
            "Closest to 50%: **attacker Orc: strength 3+ -> 4+** gives {even}"
        ))
    );
    // Without a target (the README's example), a Slam that can end in a draw is even
    // when wins equal losses: the Guard at 2+, where the Orc's 5 dice at 3+ win and
    // lose within 0.002 of each other (`util::slam_where` adds both up).
    let a = slam("equalize", &[]);
    let margin =
        crate::util::slam_wins(5, 3, 4, 2) - crate::util::slam_where(5, 3, 4, 2, |x, y| y > x);
    assert_eq!(format!("{margin:.3}"), "0.002");
    let said = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(
        said.contains("Closest to 0: **defender Human Guard: strength 4+ -> 2+** gives 0.002"),
        "{said}"
    );
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("can end in a draw"));
    let exploding = shipped("rush-exploding.toml");
    rollsim()
        .arg("overlay")
        .arg(format!("{}:slam-orc-vs-human-guard", rush.display()))
        .arg(format!("{}:slam-orc-vs-human-guard", exploding.display()))
        .args(["-n", "100000", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("overlay-result.png").exists() && out.join("overlay-result.csv").exists());
    // Its table carries the exact fractions too: the Orc's Slam draws in 681 of 3,888
    // weighted counts, 227/1296 (`util::orc_slams_guard` works it out); the exploding
    // variant's chains are counted too, over powers of 2 and 3 (a d6's).
    let csv = std::fs::read_to_string(out.join("overlay-result.csv")).unwrap();
    assert!(csv.starts_with("entry,value,probability,ci_low,ci_high,exact,exact_fraction\n"));
    let draw = |entry: &str| {
        csv.lines()
            .find(|l| l.starts_with(&format!("{entry}: slam-orc-vs-human-guard,draw,")))
            .unwrap()
            .to_string()
    };
    let (_, draws) = crate::util::orc_slams_guard();
    let ways = crate::util::ORC_SLAMS_GUARD_WAYS;
    let g = crate::util::gcd(draws, ways);
    let line = draw("rush");
    assert!(
        line.ends_with(&format!(",{}/{}", draws / g, ways / g)),
        "{csv}"
    );
    let exact: f64 = line.rsplit(',').nth(1).unwrap().parse().unwrap();
    assert!((exact - draws as f64 / ways as f64).abs() < 1e-12, "{line}");
    let boom = draw("rush-exploding");
    let fraction = boom.rsplit(',').next().unwrap();
    let (n, d) = fraction.split_once('/').expect("a fraction");
    let (n, d): (f64, u128) = (n.parse().unwrap(), d.parse().unwrap_or(0));
    let exact: f64 = boom.rsplit(',').nth(1).unwrap().parse().unwrap();
    assert!(d == 0 || (n / d as f64 - exact).abs() < 1e-12, "{boom}");
    let mut den = fraction.split_once('/').unwrap().1.to_string();
    for p in [2u32, 3] {
        while let Some(q) = divide(&den, p) {
            den = q;
        }
    }
    assert_eq!(den, "1", "{boom}");
}

/// `n / p` for a decimal `n` of any length, where `p` divides it.
fn divide(n: &str, p: u32) -> Option<String> {
    let (mut out, mut rest) = (String::new(), 0u32);
    for c in n.chars() {
        let cur = rest * 10 + c.to_digit(10)?;
        out.push(char::from_digit(cur / p, 10)?);
        rest = cur % p;
    }
    let out = out.trim_start_matches('0').to_string();
    (rest == 0 && n != "1" && !out.is_empty()).then_some(out)
}

#[test]
fn groups_and_best_responses_from_the_command_line() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let descent = shipped("descent.toml");
    // A profile sweep with two keys: one heatmap per member.
    let a = rollsim()
        .args(["sweep", descent.to_str().unwrap(), "-s", "crossbow-range"])
        .args(["--set", "scenarios.crossbow-range.to=2"])
        .args([
            "--vary",
            "target.armour=0..2",
            "--vary",
            "target.wounds=5..6",
        ])
        .args(["--exact-only", "-o"])
        .arg(&out)
        .assert()
        .success();
    let md = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        md.contains("| target.armour | target.wounds | d1 | d1+aim | d2 | d2+aim |"),
        "{md}"
    );
    for m in ["d1", "d1+aim", "d2", "d2+aim"] {
        let png =
            format!("sweep-crossbow-range-target_armour-target_wounds-crossbow-range@{m}.png");
        assert!(out.join(&png).exists(), "{png}");
    }
    // A best-response matrix names the choice in each cell and in the CSV.
    let skirmish = shipped("skirmish.toml");
    let a = rollsim()
        .args([
            "compare",
            skirmish.to_str().unwrap(),
            "-s",
            "archers-shot-at",
        ])
        .args(["--response", "best", "--exact-only", "-o"])
        .arg(&out)
        .assert()
        .success();
    let md = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(md.contains("| Archers | 93.6% [go to ground] |"), "{md}");
    // The archers' row worked out by hand: 10 dice at shoot +1 on a d10 hit a target
    // value t on 10 - t + 2 faces of 10, and a hit kills unless the target's defence die
    // saves (at `defence` or more). The reaction sets t: none and shoot back the target's
    // value plus cover, go to ground 2 more, run 2 less and no cover. P(the target takes
    // casualties) = 1 - (1 - p)^10, and the defender picks the least.
    let row: String = [(7, 0, 9), (8, 1, 10), (7, 0, 8), (6, 0, 8), (6, 0, 10)]
        .iter()
        .map(|&(tv, cover, defence): &(i32, i32, i32)| {
            let kill =
                |t: i32| (10 - t + 2).clamp(0, 10) as f64 / 10.0 * (defence - 1) as f64 / 10.0;
            let (best, p) = [
                ("none", tv + cover),
                ("shoot back", tv + cover),
                ("go to ground", tv + cover + 2),
                ("run", tv - 2),
            ]
            .into_iter()
            .map(|(r, t)| (r, 1.0 - (1.0 - kill(t)).powi(10)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
            format!(" {:.1}% [{best}] |", 100.0 * p)
        })
        .collect();
    assert_eq!(
        row,
        " 93.6% [go to ground] | 61.1% [go to ground] | 90.5% [go to ground] | 96.3% [go to ground] | 98.8% [go to ground] |"
    );
    assert!(md.contains(&format!("| Archers |{row}")), "{md}");
    let csv = std::fs::read_to_string(out.join("matrix-archers-shot-at-best.csv")).unwrap();
    assert!(
        csv.lines().nth(1).unwrap().contains(",go_to_ground,"),
        "{csv}"
    );
    // A matrix over a profile's member leaves the melee weapons blank, with the reason.
    let a = rollsim()
        .args([
            "compare",
            descent.to_str().unwrap(),
            "-s",
            "crossbow-range@d3",
        ])
        .args(["--exact-only", "-o"])
        .arg(&out)
        .assert()
        .success();
    let md = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(md.contains("| Bare hands | - | - | - |"), "{md}");
    assert!(
        md.contains("is a melee weapon: it has no distance profile"),
        "{md}"
    );
    // A response on a scenario that has none is bad input, said plainly.
    let rush = shipped("rush.toml");
    let a = rollsim()
        .args([
            "compare",
            rush.to_str().unwrap(),
            "-s",
            "pass-striker-to-jack",
        ])
        .args(["--response", "best", "--exact-only", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&a.get_output().stderr)
        .contains("has no response for the defender to choose"));
}

#[test]
fn roll_prints_the_distribution_and_writes_its_tables() {
    // `rollsim roll "4d6 drop lowest"`, as the README says: every value with its exact
    // probability, P(at least it), Monte Carlo with its CI; tables and a chart in -o.
    let dir = tempdir();
    let out = dir.path().join("roll");
    let a = rollsim()
        .args(["roll", "4d6 drop lowest", "-n", "200000", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    let s = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    // P(18) = 21/1296 = 7/432 = 1.6204%; P(3) = 1/1296, P(at least 3) = 100%; the
    // exact mean 15869/1296 = 12.2446. Counted here over the 6^4 = 1296 rolls: 18 needs
    // three 6s kept (four 6s, or three and one of 5 others in 4 places: 1 + 20 = 21);
    // 3 needs four 1s.
    let (mut eighteen, mut three, mut total) = (0, 0, 0);
    for code in 0..1296 {
        let mut r: Vec<u32> = (0..4).map(|i| code / 6u32.pow(i) % 6 + 1).collect();
        r.sort_unstable();
        let kept: u32 = r[1..].iter().sum();
        eighteen += (kept == 18) as u32;
        three += (kept == 3) as u32;
        total += kept;
    }
    assert_eq!((eighteen, three, total), (21, 1, 15869));
    assert_eq!(format!("{:.4}", 100.0 * 21.0 / 1296.0), "1.6204");
    assert_eq!(format!("{:.4}", 15869.0 / 1296.0), "12.2446");
    assert!(s.contains("| 18 | 1.6204% | 7/432 | 1.6204% |"), "{s}");
    assert!(s.contains("| 3 | 0.0772% | 1/1296 | 100.0000% |"), "{s}");
    assert!(s.contains("mean (exact): 12.2446 = 15869/1296"), "{s}");
    assert!(s.contains("95% CI"), "{s}");
    assert!(out.join("summary.csv").is_file());
    assert!(out.join("roll").join("value.png").is_file());
    // --exact-only: no Monte Carlo, no files; --vs: who wins, 229 of the 400 rolls.
    let a = rollsim()
        .args(["roll", "d20 + 5", "--vs", "d20 + 3", "--exact-only"])
        .assert()
        .success();
    let s = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    // Counted here: pairs (a, b) of d20s with a + 5 > b + 3.
    let wins = (1..=20)
        .flat_map(|a| (1..=20).filter(move |b| a + 5 > b + 3))
        .count();
    assert_eq!(wins, 229);
    assert!(
        s.contains("P(the roll wins) (exact): 57.2500% = 229/400"),
        "{s}"
    );
    assert!(!s.contains("Monte Carlo"), "{s}");
    // A typo: exit 2, the column and a caret under it, the nearest word.
    let a = rollsim().args(["roll", "4d6 drop lowst"]).assert().code(2);
    let e = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(e.contains("column 10") && e.contains("           ^"), "{e}");
    assert!(e.contains("did you mean `lowest`"), "{e}");
}

/// The long name of every flag `src/cli.rs` declares, once per declaration: an `#[arg(...)]`
/// with `short` or `long`, named by its `long = "..."` or else by its field.
fn declared_flags(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut attr: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if let Some(a) = attr.as_mut() {
            if a.ends_with(")]") {
                if let Some(field) = line.strip_prefix("pub ").and_then(|l| l.split(':').next()) {
                    let a = attr.take().unwrap();
                    if a.contains("short") || a.contains("long") {
                        let long = a
                            .split("long = \"")
                            .nth(1)
                            .and_then(|r| r.split('"').next())
                            .map(str::to_string)
                            .unwrap_or_else(|| field.replace('_', "-"));
                        out.push(long);
                    }
                }
                continue;
            }
            a.push_str(line);
            continue;
        }
        if line.starts_with("#[arg(") {
            attr = Some(line.to_string());
        }
    }
    out
}

/// Issue #72: `-n`, `--seed`, `-q`, `-o`, `--exact-only`, `--precision`, `--format`, `-m`
/// each declared once (shared argument groups, flattened), each command naming its own
/// default in its help.
#[test]
fn every_flag_is_declared_once() {
    let text = std::fs::read_to_string(crate::util::root().join("src/cli.rs")).unwrap();
    let flags = declared_flags(&text);
    for f in [
        "trials",
        "seed",
        "quiet",
        "out",
        "exact-only",
        "precision",
        "max-trials",
        "format",
        "metric",
        "threads",
        "set",
        "scenario",
    ] {
        assert!(flags.iter().any(|g| g == f), "{f} not found in {flags:?}");
    }
    let mut seen = std::collections::BTreeMap::new();
    for f in &flags {
        *seen.entry(f.as_str()).or_insert(0) += 1;
    }
    let twice: Vec<_> = seen.iter().filter(|(_, &n)| n > 1).collect();
    assert!(twice.is_empty(), "declared more than once: {twice:?}");
    // Each command's help names its own default.
    for (args, says) in [
        (vec!["roll", "--help"], "Trials [default: 1000000]"),
        (
            vec!["run", "--help"],
            "Trials per scenario [default: the config's [run] trials",
        ),
        (
            vec!["compare", "--help"],
            "Trials per point [default: the config's [run] trials",
        ),
        (
            vec!["overlay", "--help"],
            "Trials per entry [default: each config's [run] trials",
        ),
        (
            vec!["roll", "--help"],
            "Master seed: same seed, same numbers, for any thread count [default: 2026]",
        ),
        (vec!["roll", "--help"], "[default: csv]"),
        (vec!["run", "--help"], "[default: csv,md]"),
        (vec!["--help"], "a config's [run] trials serve `run`"),
    ] {
        let a = rollsim().args(&args).assert().success();
        let help = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
        assert!(help.contains(says), "{args:?}: {says}\n{help}");
    }
    // A cap on trials without the precision it caps is refused, not dropped.
    let a = rollsim()
        .args([
            "run",
            shipped("rush.toml").to_str().unwrap(),
            "--max-trials",
            "5",
        ])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("--precision"), "{err}");
    // `merge` still needs its folder.
    let a = rollsim()
        .args(["merge", "part-1-of-2.json"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("--out"), "{err}");
}
