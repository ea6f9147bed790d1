//! Issue #16: what a run writes and prints, and the command line a designer types.
//! Each test drives the binary as a user would and reads what it left.

use crate::util::{rollsim, shipped, tempdir, text};

/// The assertion's stderr contains `want`.
fn says(a: assert_cmd::assert::Assert, want: &str) {
    let err = text(&a.get_output().stderr);
    assert!(err.contains(want), "{err}");
}

#[test]
fn every_run_ends_with_one_line_saying_what_it_wrote_where() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args([
            "-s",
            "slam-orc-vs-human-guard",
            "-n",
            "1e4",
            "--format",
            "CSV",
        ])
        .args(["-o", out.to_str().unwrap()])
        .assert()
        .success();
    // `--format csv` prints no tables, but says where they went.
    assert_eq!(text(&a.get_output().stdout), "");
    let err = text(&a.get_output().stderr);
    let last = err.lines().last().unwrap();
    let pngs = walk_count(&out, "png");
    assert!(pngs >= 3);
    assert_eq!(
        last,
        format!("wrote 3 tables and {pngs} charts to {}", out.display())
    );
    for f in ["distribution.csv", "summary.csv", "headline.csv"] {
        assert!(out.join(f).is_file(), "{f}");
    }
}

#[test]
fn dash_o_dash_streams_the_table_and_writes_no_folder() {
    let dir = tempdir();
    let a = rollsim()
        .current_dir(dir.path())
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "slam-orc-vs-human-guard", "-n", "1_000", "-o", "-"])
        .args(["--format", "csv"])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    let mut lines = out.lines();
    assert_eq!(
        lines.next().unwrap(),
        "scenario,metric,value,count,trials,probability,ci_low,ci_high,exact,exact_fraction"
    );
    assert!(lines.all(|l| l.starts_with("slam-orc-vs-human-guard,")));
    assert!(text(&a.get_output().stderr).contains("to standard output"));
    assert!(!dir.path().join("-").exists(), "a folder named `-`");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // JSON likewise; parquet is binary and refused with a reason.
    let a = rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "slam-orc-vs-human-guard", "-n", "1000", "-o", "-"])
        .args(["--format", "json"])
        .assert()
        .success();
    assert!(text(&a.get_output().stdout).starts_with("[{\"scenario\""));
    says(
        rollsim()
            .args(["run", shipped("rush.toml").to_str().unwrap()])
            .args(["-s", "slam-orc-vs-human-guard", "-n", "1000", "-o", "-"])
            .args(["--format", "parquet"])
            .assert()
            .code(2),
        "parquet is binary",
    );
    // Refused before the config is read (here: one that is not there), so that no run
    // is made only to be refused at its end.
    says(
        rollsim()
            .args([
                "run",
                "no-such-config.toml",
                "-o",
                "-",
                "--format",
                "parquet",
            ])
            .assert()
            .code(2),
        "parquet is binary",
    );
    // What standard output cannot hold is refused, not dropped: a second table format,
    // SVG charts. The default `csv,md` streams its one table.
    let run_to_stdout = |extra: &[&str]| {
        rollsim()
            .args(["run", shipped("rush.toml").to_str().unwrap()])
            .args(["-s", "slam-orc-vs-human-guard", "-n", "1000", "-o", "-"])
            .args(extra)
            .assert()
    };
    says(
        run_to_stdout(&["--format", "csv,json"]).code(2),
        "-o - streams one table: --format names csv and json",
    );
    says(
        run_to_stdout(&["--charts", "png,svg"]).code(2),
        "--charts svg has nowhere to go",
    );
    let a = run_to_stdout(&[]).success();
    assert!(text(&a.get_output().stdout).starts_with("scenario,metric,value,"));
    let a = rollsim()
        .args([
            "roll",
            "d6",
            "-o",
            "-",
            "--format",
            "json,csv",
            "--exact-only",
        ])
        .assert()
        .code(2);
    assert!(text(&a.get_output().stderr).contains("--format names json and csv"));
}

/// Files ending in `.ext` under `dir`, at any depth.
fn walk_count(dir: &std::path::Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                walk_count(&p, ext)
            } else {
                p.extension().is_some_and(|e| e == ext) as usize
            }
        })
        .sum()
}

/// A CSV's rows as maps from its header.
fn rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let t = std::fs::read_to_string(path).unwrap();
    let mut lines = t.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            // No cell of these tests holds a comma inside quotes before the last column.
            let cells: Vec<&str> = l.splitn(head.len(), ',').collect();
            head.iter()
                .cloned()
                .zip(cells.iter().map(|c| c.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn headline_summary_outcomes_and_clean_exact_values() {
    let dir = tempdir();
    let out = dir.path().join("out");
    rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "slam-orc-vs-human-guard,throw-long", "-n", "20000"])
        .args(["-q", "--format", "csv", "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let head = rows(&out.join("headline.csv"));
    assert_eq!(
        std::fs::read_to_string(out.join("headline.csv"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
        "scenario,headline,probability,ci_low,ci_high,exact,trials,seed,description"
    );
    assert_eq!(head.len(), 2);
    let slam = &head[0];
    assert_eq!(slam["scenario"], "slam-orc-vs-human-guard");
    assert_eq!(slam["headline"], "P(slammer wins)");
    // The exact headline: more successes than the Guard, 2,802 of 3,888 weighted counts
    // (467/648, `util::orc_slams_guard` works it out).
    let (wins, draws) = crate::util::orc_slams_guard();
    let ways = crate::util::ORC_SLAMS_GUARD_WAYS as f64;
    let e: f64 = slam["exact"].parse().unwrap();
    assert!((e - wins as f64 / ways).abs() < 1e-9, "{e}");
    let (p, lo, hi): (f64, f64, f64) = (
        slam["probability"].parse().unwrap(),
        slam["ci_low"].parse().unwrap(),
        slam["ci_high"].parse().unwrap(),
    );
    assert!(lo <= p && p <= hi && (p - e).abs() < 0.02);
    // summary.csv: a categorical metric's outcomes with their probabilities.
    let summ = rows(&out.join("summary.csv"));
    let result = summ
        .iter()
        .find(|r| r["scenario"] == "slam-orc-vs-human-guard" && r["metric"] == "result")
        .unwrap();
    assert_eq!(result["mean"], "");
    let draw = format!("(exact {:.4})", draws as f64 / ways);
    assert!(
        result["outcomes"].contains("draw: 0.")
            && result["outcomes"].contains(&draw)
            && result["outcomes"].contains("slamback double: "),
        "{}",
        result["outcomes"]
    );
}

#[test]
fn exact_only_runs_and_profiles_print_one_compact_table() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = rollsim()
        .args(["run", shipped("descent.toml").to_str().unwrap()])
        .args(["-s", "crossbow-range", "--exact-only", "-q"])
        .args(["--format", "csv,md", "-o", out.to_str().unwrap()])
        .assert()
        .success();
    let md = text(&a.get_output().stdout);
    // One table for the whole profile, not one per point.
    assert_eq!(md.matches("### crossbow-range").count(), 1, "{md}");
    assert!(md.contains("| distance | no Aim | Aim (optimal) |"), "{md}");
    assert!(!md.contains("### crossbow-range@"));
    // Distance 1, no Aim: the member's own exact headline.
    let dist = rows(&out.join("distribution.csv"));
    let prof = rows(&out.join("profile-crossbow-range.csv"));
    assert_eq!(
        std::fs::read_to_string(out.join("profile-crossbow-range.csv"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
        "distance,no Aim,no Aim exact,Aim (optimal),Aim (optimal) exact"
    );
    let head = rows(&out.join("headline.csv"));
    let d1 = head
        .iter()
        .find(|r| r["scenario"] == "crossbow-range@d1")
        .unwrap();
    assert_eq!(prof[0]["distance"], "1.0");
    assert_eq!(prof[0]["no Aim exact"], d1["exact"]);
    // Exact only: nothing simulated, so every Monte Carlo cell is empty.
    for r in &dist {
        for k in ["count", "trials", "probability", "ci_low", "ci_high"] {
            assert_eq!(r[k], "", "{k}");
        }
        // Within [0, 1], without rounding noise such as 1.0000000000000002.
        let e: f64 = r["exact"].parse().unwrap();
        assert!((0.0..=1.0).contains(&e), "{e}");
        let digits = r["exact"]
            .trim_start_matches(['0', '.'])
            .chars()
            .filter(char::is_ascii_digit)
            .count();
        assert!(digits <= 13, "noise: {}", r["exact"]);
    }
    assert!(dist
        .iter()
        .any(|r| r["scenario"] == "crossbow-range@d6" && r["exact"] == "1.0"));
    // A scenario with no exact distribution is refused by name.
    let cfg = dir.path().join("mc.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[scenarios.big]\nroll = \"100d1000 keep highest 50\"\n",
    )
    .unwrap();
    says(
        rollsim()
            .args(["run", cfg.to_str().unwrap(), "--exact-only", "-o"])
            .arg(dir.path().join("o2"))
            .assert()
            .code(2),
        "scenario `big` has no exact distribution",
    );
    assert!(!dir.path().join("o2").exists());
}

#[test]
fn counts_as_designers_write_them_and_choices_in_any_case() {
    for n in ["1e4", "10_000", "10,000", "10000"] {
        let a = rollsim()
            .args(["roll", "3d6", "-n", n, "--no-plots", "-q", "-o"])
            .arg(tempdir().path().join("o"))
            .assert()
            .success();
        assert!(
            text(&a.get_output().stdout).contains("10000 rolls"),
            "{n}: {}",
            text(&a.get_output().stdout)
        );
    }
    for bad in ["-5", "0", "2.5", "lots"] {
        let a = rollsim().args(["roll", "3d6", "-n", bad]).assert().code(2);
        let err = text(&a.get_output().stderr);
        assert!(
            err.contains("1_000_000 or 1e6") || err.contains("at least 1 trial"),
            "{bad}: {err}"
        );
        assert!(!err.contains("use -- -5"), "{err}");
    }
    // Roles, units and choices in any letter case; units by their names too.
    let out = tempdir();
    let a = rollsim()
        .args(["compare", shipped("rush.toml").to_str().unwrap()])
        .args([
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
            "--response",
            "BEST",
        ])
        .args(["--attackers", "Orc", "--defenders", "Human Guard", "-o"])
        .arg(out.path())
        .assert()
        .success();
    assert!(text(&a.get_output().stdout).contains("Orc"));
    rollsim()
        .args(["sweep", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "slam-orc-vs-human-guard", "--exact-only"])
        .args(["--vary", "Attacker.strength=2..3", "-o"])
        .arg(out.path().join("sw"))
        .assert()
        .success();
    // Help says where a default comes from.
    let a = rollsim().arg("--help").assert().success();
    let help = text(&a.get_output().stdout);
    assert!(
        help.contains("a config's [run] trials serve `run`") && help.contains("within ±0.001"),
        "{help}"
    );
}

#[test]
fn a_line_per_scenario_says_k_of_n() {
    let a = rollsim()
        .env("ROLLSIM_PROGRESS", "lines")
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "slam-orc-vs-human-guard,throw-long,dash-chain-jack"])
        .args(["-n", "1000", "--format", "csv", "-o"])
        .arg(tempdir().path().join("o"))
        .assert()
        .success();
    let err = text(&a.get_output().stderr);
    // Scenarios run side by side, so which one starts k-th may vary; the lines come
    // in the order of k, and each scenario has one.
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(" of 3")).collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].ends_with(": scenario 1 of 3"), "{err}");
    assert!(lines[1].contains(": scenario 2 of 3, about"), "{err}");
    assert!(lines[2].contains(": scenario 3 of 3, about"), "{err}");
    for name in ["slam-orc-vs-human-guard", "throw-long", "dash-chain-jack"] {
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.starts_with(&format!("{name}: ")))
                .count(),
            1,
            "{err}"
        );
    }
}

#[test]
fn plain_rollsim_outside_the_repository_says_what_it_runs() {
    let dir = tempdir();
    let a = rollsim()
        .current_dir(dir.path())
        .args(["-n", "1000", "-q"])
        .assert()
        .success();
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("no configs/ folder here: running the 7 configs built into rollsim (descent.toml, dice-examples.toml, dozen.toml, rush-as-dice.toml, rush-exploding.toml, rush.toml, skirmish.toml) into ./reports/"),
        "{err}"
    );
    assert!(dir.path().join("reports/index.html").is_file());
    // `-n` sets a flat count for every scenario instead of the precision target.
    let head = rows(&dir.path().join("reports/rush/headline.csv"));
    assert!(!head.is_empty() && head.iter().all(|r| r["trials"] == "1000"));
}

#[test]
fn a_decision_is_one_compact_table_in_the_units_words() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = rollsim()
        .args(["run", shipped("skirmish.toml").to_str().unwrap()])
        .args([
            "-s",
            "archers-shot-at",
            "--exact-only",
            "-q",
            "--format",
            "csv,md",
        ])
        .args(["-o", out.to_str().unwrap()])
        .assert()
        .success();
    let table = std::fs::read_to_string(out.join("decision-archers-shot-at.csv")).unwrap();
    let mut lines = table.lines();
    let head = lines.next().unwrap();
    assert!(
        head.starts_with("choice,expected models Archers lose,expected models Archers lose exact,"),
        "{head}"
    );
    assert!(head.contains(",P(Skirmishers wiped out),P(Skirmishers wiped out) exact"));
    let choices: Vec<&str> = lines.map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(choices, ["none", "shoot back", "go to ground", "run"]);
    // The Markdown table has the same words.
    let md = text(&a.get_output().stdout);
    assert!(
        md.contains("| choice | expected models Archers lose |"),
        "{md}"
    );
}

#[test]
fn dash_o_dash_elsewhere_is_refused_and_makes_no_folder() {
    let dir = tempdir();
    let rush = shipped("rush.toml");
    let rush = rush.to_str().unwrap();
    for args in [
        vec![
            "compare",
            rush,
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
            "-o",
            "-",
        ],
        vec![
            "sensitivity",
            rush,
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
            "-o",
            "-",
        ],
        vec![
            "run",
            rush,
            "-s",
            "throw-long",
            "-n",
            "2e5",
            "--shard",
            "1/2",
            "-o",
            "-",
        ],
    ] {
        says(
            rollsim()
                .current_dir(dir.path())
                .args(&args)
                .assert()
                .code(2),
            "only `rollsim run` (without --shard) and `rollsim roll` write their table to standard output",
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Issue #57: a dice scenario that names no unit has no stats to change. Sensitivity and
/// the equalizer say so and why, exit 2 and write nothing (they used to exit 0 with an
/// empty table).
#[test]
fn sensitivity_and_equalize_refuse_when_there_is_nothing_to_step() {
    for command in ["sensitivity", "equalize"] {
        let dir = tempdir();
        let out = dir.path().join("o");
        let a = rollsim()
            .args([command, shipped("dice-examples.toml").to_str().unwrap()])
            .args(["-s", "squads-shoot-it-out", "--exact-only", "-o"])
            .arg(&out)
            .assert()
            .code(2);
        let err = text(&a.get_output().stderr);
        assert!(
            err.contains(&format!(
                "{command}: nothing to change in `squads-shoot-it-out`"
            )),
            "{err}"
        );
        assert!(err.contains("rollsim sweep --vary"), "{err}");
        assert!(!out.exists(), "{command}: a refusal writes no folder");
    }
}

/// Issue #39: every refusal of a bad output path is bad input (exit 2), from every
/// command that writes a folder, and says which path and why.
#[test]
fn a_bad_output_path_exits_2_from_every_command_that_writes() {
    let dir = tempdir();
    let file = dir.path().join("afile");
    std::fs::write(&file, "mine").unwrap();
    let link = dir.path().join("alink");
    std::os::unix::fs::symlink(dir.path(), &link).unwrap();
    let rush = shipped("rush.toml");
    let rush = rush.to_str().unwrap();
    let under_file = file.join("sub");
    for (out, why) in [
        (file.as_path(), "exists and is not a folder"),
        (under_file.as_path(), "cannot make the folder it goes in"),
        (link.as_path(), "is a symbolic link"),
    ] {
        let o = out.to_str().unwrap();
        let commands: Vec<Vec<&str>> = vec![
            vec![
                "run",
                rush,
                "-s",
                "slam-orc-vs-human-guard",
                "-n",
                "1000",
                "-o",
                o,
            ],
            vec!["roll", "2d6", "-n", "1000", "-o", o],
            vec![
                "compare",
                rush,
                "-s",
                "slam-orc-vs-human-guard",
                "-n",
                "1000",
                "-o",
                o,
            ],
            vec![
                "roster",
                rush,
                "-s",
                "slam-orc-vs-human-guard",
                "-n",
                "1000",
                "-o",
                o,
            ],
        ];
        for args in commands {
            let a = rollsim()
                .current_dir(dir.path())
                .args(&args)
                .assert()
                .code(2);
            let err = text(&a.get_output().stderr);
            assert!(err.contains(why), "{args:?}: {err}");
            assert!(err.contains(o), "{args:?}: {err}");
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    }
}

/// Issue #39: a write that fails part way (here a file-size limit, as a full disk would)
/// names the file the user asked for, never the hidden staging folder or temporary name
/// it was being written under, and leaves no output.
#[test]
fn a_failed_write_names_the_users_path_not_the_staging_one() {
    use std::os::unix::process::CommandExt;
    let dir = tempdir();
    let out = dir.path().join("out");
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"));
    c.args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "slam-orc-vs-human-guard", "-n", "1000", "-o"])
        .arg(&out);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(|| {
            // Files over 16 KB fail with EFBIG (the charts), as on a full disk.
            let lim = libc::rlimit {
                rlim_cur: 16 << 10,
                rlim_max: 16 << 10,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let o = c.output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(err.contains(&out.display().to_string()), "{err}");
    assert!(
        !err.contains("staging") && !err.contains("partial"),
        "{err}"
    );
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        left.iter().all(|n| n.to_string_lossy().ends_with(".lock")),
        "{left:?}"
    );
}

/// The gallery links to a config's CSV and Parquet tables: whatever else `--format` asks
/// for, a report written into `reports/<config>` (by `run` or by merging a run's shards)
/// has both, and one written elsewhere has only what was asked for.
#[test]
fn a_report_in_the_gallerys_folder_always_has_csv_and_parquet() {
    let d = tempdir();
    std::fs::create_dir(d.path().join("configs")).unwrap();
    std::fs::copy(shipped("rush.toml"), d.path().join("configs/rush.toml")).unwrap();
    let at = |args: &[&str]| {
        rollsim()
            .current_dir(d.path())
            .args(args)
            .assert()
            .success();
    };
    let has = |dir: &str, file: &str| d.path().join(dir).join(file).is_file();
    at(&[
        "run",
        "configs/rush.toml",
        "-n",
        "5000",
        "-q",
        "--no-plots",
        "--format",
        "json",
        "-o",
        "reports/rush",
    ]);
    assert!(has("reports/rush", "distribution.csv") && has("reports/rush", "distribution.parquet"));
    assert!(has("reports/rush", "distribution.json"));
    at(&[
        "run",
        "configs/rush.toml",
        "-n",
        "5000",
        "-q",
        "--no-plots",
        "--format",
        "json",
        "-o",
        "elsewhere",
    ]);
    assert!(has("elsewhere", "distribution.json"));
    assert!(!has("elsewhere", "distribution.csv") && !has("elsewhere", "distribution.parquet"));
    // A run's shards merged into the gallery's folder.
    at(&[
        "run",
        "configs/rush.toml",
        "-n",
        "70000",
        "-q",
        "--shard",
        "1/1",
    ]);
    at(&[
        "merge",
        "reports/rush-parts",
        "-o",
        "reports/rush",
        "--format",
        "json",
        "--no-plots",
    ]);
    assert!(has("reports/rush", "summary.csv") && has("reports/rush", "summary.parquet"));
    at(&[
        "merge",
        "reports/rush-parts",
        "-o",
        "merged",
        "--format",
        "json",
        "--no-plots",
    ]);
    assert!(has("merged", "summary.json") && !has("merged", "summary.parquet"));
}
