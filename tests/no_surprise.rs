//! Issue #71, "no silent surprise": a flag before its command is refused rather than
//! dropped, and an expression that starts with a minus is an expression.

use crate::util::{rollsim, text};

/// `-n`, `--threads` and `-q` before a command's name apply to that command (once they
/// were the run-with-no-command's and silently dropped: `rollsim -n 1000 run` ran ten
/// million trials); before a command that takes none of them, or beside a different
/// value after it, they are refused, and nothing is run (`-q` before a command that
/// draws no progress bar is what it says already).
#[test]
fn a_flag_before_the_command_applies_to_it_or_is_refused() {
    let config = crate::util::shipped("rush.toml");
    let trials_of = |before: &[&str], after: &[&str]| {
        let a = rollsim()
            .args(before)
            .args(["run"])
            .arg(&config)
            .args(["-s", "slam-orc-vs-human-guard", "-o", "-"])
            .args(after)
            .assert()
            .success();
        let csv = text(&a.get_output().stdout);
        let row = csv.lines().nth(1).unwrap().to_string();
        row.split(',').nth(4).unwrap().to_string()
    };
    assert_eq!(trials_of(&["-n", "1000"], &[]), "1000");
    assert_eq!(
        trials_of(&["-n", "1000", "-q", "--threads", "1"], &["-n", "1000"]),
        "1000"
    );
    assert_eq!(trials_of(&[], &["-n", "1000"]), "1000");
    for (before, command) in [
        (vec!["-n", "1000"], vec!["run", "-n", "2000"]),
        (vec!["-n", "1000"], vec!["check"]),
        (vec!["--threads", "1"], vec!["list"]),
    ] {
        let mut cmd = rollsim();
        cmd.args(&before)
            .arg(command[0])
            .arg(&config)
            .args(&command[1..]);
        if command[0] == "run" {
            cmd.args(["-s", "slam-orc-vs-human-guard", "-o", "-"]);
        }
        let a = cmd.assert().code(2);
        let out = a.get_output();
        let err = text(&out.stderr);
        assert!(err.contains(before[0]), "{before:?} {command:?}: {err}");
        assert!(
            err.contains("after the command's name"),
            "{before:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{before:?} {command:?}: ran anyway");
    }
}

/// Flags that would do nothing together are refused, not dropped, and nothing is run or
/// written: `-n` beside `--exact-only` (no trial is rolled) or, written before the
/// command's name, beside `--precision` (trials run until precise), in every command that
/// takes them; `--charts svg` beside `--no-plots` (no chart is drawn). Each alone runs.
#[test]
fn flags_that_do_nothing_together_are_refused_not_dropped() {
    let config = crate::util::shipped("rush.toml");
    let config = config.to_str().unwrap();
    let slam = "slam-orc-vs-human-guard";
    let dir = crate::util::tempdir();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["roll", "d6", "--exact-only", "-n", "5000"],
            "-n 5000 with --exact-only",
        ),
        (
            &["-n", "5000", "roll", "d6", "--exact-only"],
            "-n 5000 with --exact-only",
        ),
        (
            &["-n", "5000", "roll", "d6", "--precision", "0.01"],
            "-n 5000 with --precision",
        ),
        (
            &["run", config, "-s", slam, "--exact-only", "-n", "1000"],
            "-n 1000 with --exact-only",
        ),
        (
            &["compare", config, "-s", slam, "--exact-only", "-n", "100"],
            "-n 100 with --exact-only",
        ),
        (
            &["roll", "d6", "-n", "1000", "--no-plots", "--charts", "svg"],
            "--charts svg with --no-plots",
        ),
        (
            &["--charts", "svg", "run", config, "-s", slam, "--no-plots"],
            "--charts svg with --no-plots",
        ),
        // A cluster plan refuses what each of its shards would.
        (
            &[
                "plan",
                config,
                "run",
                "-s",
                slam,
                "--exact-only",
                "-n",
                "1000",
                "--tasks",
                "2",
            ],
            "plan: -n 1000 with --exact-only",
        ),
    ];
    for (args, said) in cases {
        let a = rollsim().args(*args).args(["-o", out]).assert().code(2);
        let err = text(&a.get_output().stderr);
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(err.contains("leave out one of the two"), "{args:?}: {err}");
        assert!(!dir.path().join("out").exists(), "{args:?}: wrote anyway");
    }
    // Each flag alone, or the pair that does work together, runs.
    for args in [
        &["roll", "d6", "--exact-only"][..],
        &["roll", "d6", "-n", "1000", "--no-plots"],
        &["roll", "d6", "-n", "1000", "--charts", "svg"],
    ] {
        rollsim().args(args).args(["-o", out]).assert().success();
    }
}

/// `rollsim roll "-d6 + 3"` is the roll 3 - d6 (-3 to 2, each 1/6), not an unknown
/// option `-d`; so is an opposing roll that starts with a minus.
#[test]
fn an_expression_starting_with_a_minus_is_a_roll() {
    let a = rollsim()
        .args(["roll", "-d6 + 3", "--exact-only", "-o", "-"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    for v in -3..=2 {
        assert!(
            csv.contains(&format!("\nroll,value,{v},,,,,,")),
            "{v}: {csv}"
        );
    }
    assert_eq!(csv.matches(",1/6\n").count(), 6, "{csv}");
    // d6 against -d6: the margin d6 + d6, 2 to 12, 7 the most likely at 1/6.
    let a = rollsim()
        .args(["roll", "d6", "--vs", "-d6", "--exact-only", "-o", "-"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    assert!(csv.contains("\nroll,margin,7,,,,,,"), "{csv}");
    assert!(
        csv.contains("\nroll,margin,2,,,,,,0.02777777777778,1/36\n"),
        "{csv}"
    );
}

/// A designer's notes kept in a report folder outlive a rerun into it: a file and a
/// folder of their own are carried over as they are, beside the new tables; a file of
/// theirs at a name the new run writes is not overwritten (the run is refused, naming
/// it, and the old report stays).
#[test]
fn files_a_user_added_to_a_report_folder_survive_a_rerun() {
    let dir = crate::util::tempdir();
    let r = dir.path().join("R");
    let roll = |expr: &str, more: &[&str]| {
        rollsim()
            .args(["roll", expr, "-n", "2000", "--no-plots", "-o"])
            .arg(&r)
            .args(more)
            .assert()
    };
    roll("2d6", &[]).success();
    std::fs::write(r.join("NOTES.md"), "why 2d6 felt swingy\n").unwrap();
    std::fs::create_dir(r.join("playtests")).unwrap();
    std::fs::write(r.join("playtests").join("week1.txt"), "won 3 of 5\n").unwrap();
    for expr in ["3d6", "4d6"] {
        roll(expr, &[]).success();
        assert_eq!(
            std::fs::read_to_string(r.join("NOTES.md")).unwrap(),
            "why 2d6 felt swingy\n"
        );
        assert_eq!(
            std::fs::read_to_string(r.join("playtests").join("week1.txt")).unwrap(),
            "won 3 of 5\n"
        );
        // The tables are the new roll's: 3d6 reaches 18 (4d6 24), 2d6 did not.
        let csv = std::fs::read_to_string(r.join("distribution.csv")).unwrap();
        assert!(csv.contains("roll,value,18,"), "{expr}: {csv}");
    }
    // A file of the designer's where the next run would write one of its own.
    std::fs::write(r.join("summary.parquet"), "mine").unwrap();
    let a = roll("5d6", &["--format", "csv,parquet"]).code(2);
    let err = text(&a.get_output().stderr);
    assert!(err.contains("summary.parquet"), "{err}");
    assert_eq!(
        std::fs::read_to_string(r.join("summary.parquet")).unwrap(),
        "mine"
    );
    let csv = std::fs::read_to_string(r.join("distribution.csv")).unwrap();
    assert!(
        csv.contains("roll,value,24,"),
        "the old report stays: {csv}"
    );
}

/// A misspelt key in `--set` is refused in every system, naming the flag's key and the
/// nearest name the system reads: a dice config's unit stat as much as a native game's.
/// A misspelt stat in each system's shipped config, and the name it is nearest to.
/// (python/tests/test_rollsim.py sends the same through `set=`.)
const MISSPELT: [(&str, &str, &str); 5] = [
    ("dice-examples.toml", "units.fighter.hpp=3", "hp"),
    ("rush.toml", "units.human_striker.strenght=3", "strength"),
    ("skirmish.toml", "units.archers.moral=6", "morale"),
    ("dozen.toml", "characters.thief.dxx=4", "dx"),
    ("descent.toml", "heroes.fighter.power_dic=3", "power_dice"),
];

#[test]
fn a_misspelt_key_is_refused_in_every_system() {
    let server_dir = crate::serve::folder(&MISSPELT.map(|m| m.0));
    let server = crate::serve::Server::start(server_dir.path());
    for (config, set, near) in MISSPELT {
        // The live page sends its changes as `--set` does: refused, with the nearest.
        let (status, body) = server.post(
            "/api/view",
            &serde_json::json!({ "file": config, "sets": [set] }).to_string(),
        );
        assert_eq!(status, 400, "{config} {set}: {body}");
        assert!(body.contains(&format!("`{near}`")), "{set}: {body}");
        let a = rollsim()
            .arg("check")
            .arg(crate::util::shipped(config))
            .args(["--set", set])
            .assert()
            .code(2);
        let err = text(&a.get_output().stderr);
        let key = set.split('=').next().unwrap();
        assert!(
            err.contains(key.rsplit('.').next().unwrap()),
            "{set}: {err}"
        );
        assert!(err.contains(&format!("`{near}`")), "{set}: {err}");
    }
    // What a dice unit has besides its stats, added by --set, is taken: a name, points.
    let config = crate::util::tempdir();
    let path = config.path().join("duel.toml");
    std::fs::write(
        &path,
        "system = \"dice\"\n[units.a]\nhp = 3\n[units.b]\nhp = 4\n\
         [scenarios.s]\nunit = \"a\"\nopponent = \"b\"\nroll = \"d6 + hp - their_hp\"\n",
    )
    .unwrap();
    rollsim()
        .arg("check")
        .arg(&path)
        .args(["--set", "units.a.name=Champion", "--set", "units.b.cost=12"])
        .assert()
        .success();
}

/// The live page on a scenario with no exact distribution: its printed command is the
/// page's own Monte Carlo and runs (it printed `--exact-only`, which is refused), and a
/// tab with nothing to step says so in the command line's words (it showed a heading
/// and no table).
#[test]
fn the_page_says_what_it_cannot_do_and_prints_a_command_that_runs() {
    let dir = crate::util::tempdir();
    std::fs::write(
        dir.path().join("mine.toml"),
        "system = \"dice\"\n[scenarios.big]\nroll = \"100d1000 keep highest 50\"\n",
    )
    .unwrap();
    let server = crate::serve::Server::start(dir.path());
    let (status, view) = server.post_json(
        "/api/view",
        &serde_json::json!({ "file": "mine.toml", "scenario": "big" }),
    );
    assert_eq!(status, 200, "{view}");
    let command = view["command"].as_str().unwrap().to_string();
    assert!(
        command.ends_with("-s big --precision 0.001 --max-trials 10000000"),
        "{command}"
    );
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(&words[..2], ["rollsim", "run"], "{command}");
    rollsim()
        .current_dir(dir.path())
        .arg("run")
        .arg(dir.path().join("mine.toml"))
        .args(&words[3..])
        .args(["-q", "--no-plots", "--format", "csv", "-o", "out"])
        .assert()
        .success();
    let (_, sens) = server.streamed(
        "/api/balance",
        &serde_json::json!({ "file": "mine.toml", "scenario": "big", "view": "sensitivity" }),
    );
    let error = sens["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("sensitivity: nothing to change in `big`"),
        "{sens}"
    );
    let (_, matrix) = server.streamed(
        "/api/balance",
        &serde_json::json!({ "file": "mine.toml", "scenario": "big", "view": "matrix" }),
    );
    assert!(
        matrix["error"]
            .as_str()
            .unwrap_or_default()
            .contains("has no side (no key of it names a unit)"),
        "{matrix}"
    );
}

/// The mass of explosion chains a depth cuts is counted chain by chain: how many are cut
/// in a roll, on average, which can pass 1, so it is not called a probability. Three
/// d6 exploding on 3 or more, once at most: each cut when both its rolls explode,
/// (4/6)^2, so 3 · 4/9 = 4/3 a roll.
#[test]
fn the_chains_a_depth_cuts_are_a_number_per_roll_not_a_probability() {
    let a = rollsim()
        .args(["roll", "3d6 explode >= 3 depth 1", "--exact-only"])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(
        out.contains("exact number, on average in a roll, of explosion chains that reached their depth limit")
            && out.contains("no less than the chance that one did")
            && out.trim_end().ends_with(": 1.333e0"),
        "{out}"
    );
    assert!(
        !out.contains("exact probability that an explosion"),
        "{out}"
    );
}

/// A chance that a limit cut a roll, near certain but not certain, is not printed as 1:
/// a turn ends when six d6 all show 6, at most two rounds, so it is cut with chance
/// (46655/46656)^2 = 0.999957..., which three decimals would round to `1.000e0` (and
/// the Markdown report's one to `1.0e0`); a limit that always cuts still reads 1.
#[test]
fn a_near_certain_cut_is_not_printed_as_certain() {
    let a = rollsim()
        .args([
            "roll",
            "repeat t = 0 until t >= 1 do t = t + (6d6 == 36) limit 2 then rounds",
        ])
        .args(["--exact-only", "--format", "md"])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    let note = "reached its limit of rounds unfinished (a roll of the dice stops there too)";
    let want = (46655.0f64 / 46656.0).powi(2);
    assert!((want - 0.99995713).abs() < 1e-8, "{want}");
    // The summary's line, then the Markdown report's.
    assert!(out.contains(&format!("{note}: 9.9996e-1")), "{out}");
    assert!(out.contains(&format!("{note} 9.9996e-1")), "{out}");
    assert!(!out.contains("1.000e0") && !out.contains("1.0e0"), "{out}");
    let a = rollsim()
        .args([
            "roll",
            "repeat t = 0 until t >= 1000 do t = t + d2 then rounds",
            "--exact-only",
        ])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(out.contains(&format!("{note}: 1.000e0")), "{out}");
}

/// A roll with no exact distribution says which limit it passed, in its own words: the
/// span of a value, the outcomes of a pool no pass reads, the work of counting and of
/// floats (each past its number, as the docs' Limits table states them).
#[test]
fn a_roll_without_an_exact_distribution_names_the_limit_it_passed() {
    for (roll, why) in [
        (
            "let p = 20d20 in p keep highest (d4) sum",
            "a pool of more than 2,000,000 outcomes (every multiset of its dice), read in a way no pass over its faces reads",
        ),
        (
            "100d1000 keep highest 50",
            "working it out exactly takes more than 15,000,000 operations counted in whole numbers and 100,000,000 in floats",
        ),
        // Values too far apart for one law, rolled (its two values a row each).
        (
            "if d2 == 1 then 0 else 1000000 * 3",
            "a value spans more than 1,048,576 numbers",
        ),
    ] {
        let c = crate::dice_lang::compile(roll, None);
        assert!(c.exact.is_none(), "{roll}");
        assert!(
            c.description
                .contains(&format!("no exact distribution ({why}): Monte Carlo only")),
            "{roll}: {}",
            c.description
        );
    }
    // A span the table cannot hold either (100,000 values), after a law that spans too
    // many numbers.
    let e = crate::dice_lang::load_err("if d2 == 1 then 0 else 1000000 * 3 + d1000 * 100 + d100");
    assert!(
        e.contains("was not worked out: a value spans more than 1,048,576 numbers"),
        "{e}"
    );
}

/// Where the law cannot tell how often a chain is cut at its depth (one rolled as the
/// face a count of a pool variable reads), the report says so in a warning, and the
/// mass it does know stands: the `repeat` beside it ends unfinished when none of its four
/// tests rolls a 6, (5/6)^4.
#[test]
fn a_mass_not_worked_out_is_said_and_the_one_known_stands() {
    let c = crate::dice_lang::compile(
        "let p = 3d6 in (p count >= (d6 explode depth 1)) + (repeat n = 0 until d6 == 6 do n = n + 1 limit 3 then n)",
        None,
    );
    assert!(c.exact.is_some());
    assert!(
        (c.capped_mass - 625.0 / 1296.0).abs() < 1e-12,
        "{}",
        c.capped_mass
    );
    let warning = c.warning.as_deref().unwrap_or("");
    assert!(
        warning.contains("explosion chains in this roll can stop at their limits")
            && warning.contains("how often was not worked out exactly"),
        "{warning}"
    );
}

/// A keep of more dice than the pool has keeps them all, and a drop of every die
/// leaves none, as the rules allow: the numbers stand (`4d6 keep highest 5` is 4d6),
/// and a warning says what was kept, on both sides of a `vs`, in the report too; a keep
/// within the pool says nothing.
#[test]
fn a_keep_past_the_pool_is_said_beside_its_numbers() {
    let out = rollsim()
        .args([
            "roll",
            "4d6 keep highest 5",
            "--exact-only",
            "-q",
            "-o",
            "-",
        ])
        .args(["--vs", "2d6 drop lowest 2"])
        .assert()
        .success();
    let err = text(&out.get_output().stderr);
    assert!(
        err.contains(
            "warning: roll: `keep highest 5` of 4 dice: every die is kept; \
             in `vs`, `drop lowest 2` of 2 dice: no die is left"
        ),
        "{err}"
    );
    let csv = text(&out.get_output().stdout);
    // 4d6 against nothing: the margin from 4 to 24, P(14) = 146/1296.
    assert!(
        csv.contains("roll,margin,4,") && csv.contains("roll,margin,24,"),
        "{csv}"
    );
    assert!(csv.contains(",73/648\n"), "{csv}");
    assert!(
        !csv.contains("roll,margin,25,") && !csv.contains("roll,margin,3,"),
        "{csv}"
    );
    let md = rollsim()
        .args([
            "roll",
            "3d6 drop lowest 3",
            "--exact-only",
            "-q",
            "--format",
            "md",
        ])
        .assert()
        .success();
    let report = text(&md.get_output().stdout);
    assert!(
        report.contains("**Note:** `drop lowest 3` of 3 dice: no die is left"),
        "{report}"
    );
    let quiet = rollsim()
        .args([
            "roll",
            "4d6 keep highest 4",
            "--exact-only",
            "-q",
            "-o",
            "-",
        ])
        .assert()
        .success();
    assert!(!text(&quiet.get_output().stderr).contains("warning"));
    // `check` says what `run` would: the warning, and its count in the last line.
    let dir = crate::util::tempdir();
    let config = dir.path().join("keeps.toml");
    std::fs::write(
        &config,
        "system = \"dice\"\n\n[scenarios.best-five]\nroll = \"4d6 keep highest 5\"\n\n\
         [scenarios.best-three]\nroll = \"4d6 keep highest 3\"\n",
    )
    .unwrap();
    let checked = rollsim().arg("check").arg(&config).assert().success();
    let (out, err) = (
        text(&checked.get_output().stdout),
        text(&checked.get_output().stderr),
    );
    assert_eq!(
        err.trim_end(),
        "warning: best-five: `keep highest 5` of 4 dice: every die is kept"
    );
    assert!(
        out.contains("ok (dice system, 2 scenarios, 2 with exact distributions, 1 warning above)"),
        "{out}"
    );
}
