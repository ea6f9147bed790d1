//! Issue #38: a number says how it was made. With `--exact-only` nothing is simulated,
//! so no table or chart of any shipped config (and no balance command) may say "Monte
//! Carlo" or show an interval, and the tables' Monte Carlo columns are empty.

use crate::util::{files_with, rollsim, root, tempdir, text};
use std::path::{Path, PathBuf};

/// The rows of a CSV text (quoted fields may hold commas, quotes and line breaks).
fn csv_rows(s: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => row.push(std::mem::take(&mut field)),
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            ('\r', false) => {}
            (c, _) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// The columns only a simulation fills, in every table that has them.
const MC: &[&str] = &[
    "count",
    "trials",
    "probability",
    "ci_low",
    "ci_high",
    "mean",
    "mean_ci_low",
    "mean_ci_high",
    "estimate",
];

/// The columns of a table that only a simulation fills.
fn simulated_column(table: &str, name: &str) -> bool {
    if MC.contains(&name) {
        return true;
    }
    // A profile's or a decision's compact table: a column per series, and one with
    // its exact value beside it.
    let compact = table.starts_with("profile-") || table.starts_with("decision-");
    compact && !name.ends_with(" exact")
}

/// What a page or a chart must not say without a simulation behind it.
fn claims_a_simulation(s: &str) -> Option<&'static str> {
    [
        "Monte Carlo",
        "95% CI",
        "95% band",
        "confidence",
        " .. ",
        "whisker",
        "trials",
    ]
    .into_iter()
    .find(|w| s.contains(w))
}

/// Every table, chart and printed page under `out` (and `printed`) says only "exact".
fn assert_honest(what: &str, out: &Path, printed: &str) -> (usize, usize) {
    if let Some(w) = claims_a_simulation(printed) {
        panic!("{what}: the printed report says `{w}`:\n{printed}");
    }
    let mut cells = 0;
    for csv in files_with(out, "csv") {
        let table = csv.file_name().unwrap().to_string_lossy().into_owned();
        let rows = csv_rows(&std::fs::read_to_string(&csv).unwrap());
        let head = &rows[0];
        for (i, name) in head.iter().enumerate() {
            // A compact table's first column is its axis or its choices.
            if i == 0 || !simulated_column(&table, name) {
                continue;
            }
            for r in &rows[1..] {
                assert_eq!(
                    r.get(i).map_or("", |s| s.as_str()),
                    "",
                    "{what}: {table} column `{name}` holds a number no simulation made: {r:?}"
                );
                cells += 1;
            }
        }
        // The summary's outcomes name exact values only.
        if let Some(o) = head.iter().position(|h| h == "outcomes") {
            for r in &rows[1..] {
                let cell = &r[o];
                assert!(
                    cell.is_empty()
                        || cell
                            .split("; ")
                            .all(|x| x.contains(": exact ") || x.contains("left out")),
                    "{what}: {table} outcomes `{cell}`"
                );
            }
        }
    }
    for json in files_with(out, "json") {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        for row in v.as_array().into_iter().flatten() {
            for k in MC {
                if let Some(x) = row.get(k) {
                    assert!(x.is_null(), "{what}: {} {k} = {x}", json.display());
                }
            }
        }
    }
    let svgs = files_with(out, "svg");
    for svg in &svgs {
        let s = std::fs::read_to_string(svg).unwrap();
        if let Some(w) = claims_a_simulation(&s) {
            panic!("{what}: {} says `{w}`", svg.display());
        }
    }
    (cells, svgs.len())
}

#[test]
fn every_shipped_config_run_exact_only_says_exact_and_leaves_monte_carlo_empty() {
    let dir = tempdir();
    let mut configs: Vec<PathBuf> = std::fs::read_dir(root().join("configs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    configs.sort();
    let (mut cells, mut charts) = (0, 0);
    for config in &configs {
        let name = config.file_stem().unwrap().to_string_lossy().into_owned();
        let out = dir.path().join(&name);
        let a = rollsim()
            .args(["--charts", "png,svg", "run"])
            .arg(config)
            .args(["--exact-only", "--format", "csv,md,json", "-q", "-o"])
            .arg(&out)
            .assert()
            .success();
        let printed = text(&a.get_output().stdout);
        assert!(printed.contains("exact"), "{name}: {printed}");
        let (c, s) = assert_honest(&name, &out, &printed);
        cells += c;
        charts += s;
    }
    assert!(configs.len() >= 7, "{} configs", configs.len());
    assert!(cells > 5000, "{cells} Monte Carlo cells checked");
    assert!(charts > 300, "{charts} charts checked");
}

#[test]
fn every_balance_command_exact_only_says_exact() {
    let dir = tempdir();
    let rush = root().join("configs/rush.toml");
    let skirmish = root().join("configs/skirmish.toml");
    let descent = root().join("configs/descent.toml");
    let runs: Vec<(&str, Vec<String>)> = vec![
        (
            "compare",
            vec!["-s".into(), "slam-orc-vs-human-guard".into()],
        ),
        (
            "roster",
            vec!["-s".into(), "slam-orc-vs-human-guard".into()],
        ),
        (
            "sensitivity",
            vec!["-s".into(), "slam-orc-vs-human-guard".into()],
        ),
        (
            "equalize",
            vec!["-s".into(), "slam-orc-vs-human-guard".into()],
        ),
        (
            "sweep",
            vec![
                "-s".into(),
                "slam-orc-vs-human-guard".into(),
                "--vary".into(),
                "attacker.strength=2..5".into(),
            ],
        ),
    ];
    let mut charts = 0;
    for (config, (command, args)) in std::iter::repeat_n(&rush, runs.len()).zip(&runs) {
        let out = dir.path().join(command);
        let a = rollsim()
            .args(["--charts", "png,svg", command])
            .arg(config)
            .args(args)
            .args(["--exact-only", "-o"])
            .arg(&out)
            .assert()
            .success();
        charts += assert_honest(command, &out, &text(&a.get_output().stdout)).1;
    }
    // A group's sweep (one line per member) and a decision table's sweep.
    for (config, scenario, vary) in [
        (&descent, "longbow-range", "target.armour=0..3"),
        (&skirmish, "archers-shot-at", "shooter.models=4..8"),
    ] {
        let out = dir.path().join(format!("sweep-{scenario}"));
        let a = rollsim()
            .args(["--charts", "png,svg", "sweep"])
            .arg(config)
            .args(["-s", scenario, "--vary", vary, "--exact-only", "-o"])
            .arg(&out)
            .assert();
        let a = a.success();
        charts += assert_honest(scenario, &out, &text(&a.get_output().stdout)).1;
    }
    assert!(charts >= 7, "{charts} charts checked");
}
