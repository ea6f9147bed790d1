//! Issue #71, tables and charts: the same rows in every format, no percentage rounded
//! to a certainty it is not, balance charts titled in the designer's words, axes over
//! the data, a wide "k or more" chart folded, and no gallery headline that cannot happen.

use crate::charts::texts;
use crate::util::{rollsim, root, tempdir, text, walk, EXPLODING_MARGIN};
use std::path::Path;

/// The first cells of a Markdown table's body rows, in order.
fn first_cells(table: &str) -> Vec<String> {
    table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|---"))
        .map(|l| l[2..].split(" |").next().unwrap().trim().to_string())
        .filter(|c| !matches!(c.as_str(), "value" | "outcome"))
        .collect()
}

/// The CSV's `value` column for one metric.
fn csv_values(path: &Path, metric: &str) -> Vec<String> {
    let csv = std::fs::read_to_string(path).unwrap();
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[1] == metric)
        .map(|c| c[2].to_string())
        .collect()
}

#[test]
fn the_terminal_the_markdown_and_the_csv_list_the_same_rows() {
    let dir = tempdir();
    for (args, metric, want) in [
        // 7 values between 1 and 16 cannot happen: no format lists them.
        (
            vec!["roll", "d4 * d4"],
            "value",
            vec!["1", "2", "3", "4", "6", "8", "9", "12", "16"],
        ),
        // Named outcomes that cannot happen are listed everywhere ("the roll wins: 0").
        (
            vec!["roll", "d6", "--vs", "d6 + 6"],
            "result",
            vec!["the roll wins", "tie", "the other roll wins"],
        ),
    ] {
        let out = dir.path().join(format!("r{}", want.len()));
        let a = rollsim()
            .args(&args)
            .args(["-n", "2000", "-q", "--no-plots", "--format", "csv,md", "-o"])
            .arg(&out)
            .assert()
            .success();
        let stdout = text(&a.get_output().stdout);
        let (terminal, report) = stdout.split_once("### roll").unwrap();
        let csv = csv_values(&out.join("distribution.csv"), metric);
        assert_eq!(csv, want, "{args:?}");
        // The metric's own table in each: for `--vs`, the second table of each part.
        let pick = |part: &str| -> Vec<String> {
            let tables: Vec<&str> = part.split("\n\n").filter(|t| t.contains("|---")).collect();
            first_cells(if metric == "value" {
                tables[0]
            } else {
                tables[1]
            })
        };
        assert_eq!(pick(terminal), want, "terminal of {args:?}:\n{terminal}");
        assert_eq!(pick(report), want, "report of {args:?}:\n{report}");
        assert!(!stdout.contains("other values"), "{stdout}");
    }
}

#[test]
fn no_percentage_is_rounded_to_a_certainty_it_is_not() {
    // No pair of this matrix is exactly sure or hopeless: the Fighter beats the Thief
    // with 0.99999616, the Thief the Fighter with 3.8e-6.
    let a = rollsim()
        .args(["compare"])
        .arg(root().join("configs/dozen.toml"))
        .args([
            "-s",
            "duel-fighter-vs-dwarf",
            "--exact-only",
            "-q",
            "--no-plots",
            "-o",
        ])
        .arg(tempdir().path().join("m"))
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(!out.contains("100.0%") && !out.contains("| 0.0%"), "{out}");
    let row = |who: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("| {who} |")))
            .unwrap()
    };
    assert!(row("Fighter").contains("| >99.9% |"), "{out}");
    assert!(row("Thief").contains("| <0.1% |"), "{out}");
    // 450d6's lowest sums can happen (1/6^450) though their floats underflow to 0.
    let a = rollsim()
        .args(["roll", "450d6", "--exact-only"])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(out.contains("| 450 | <0.0001% | 1/147252"), "{out}");
    assert!(out.contains("| 451 | <0.0001% | 25/818069") && out.contains("| >99.9999% |"));
    // The lowest value that can come: every roll is it or more, exactly, though the
    // floats of the six values sum to a hair under 1.
    let a = rollsim()
        .args(["roll", "3d6 keep middle 0 lowest", "--exact-only"])
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(out.contains("| 1 | 7.4074% | 2/27 | 100.0000% |"), "{out}");
}

#[test]
fn balance_charts_are_titled_in_the_designers_words_over_their_data() {
    let dir = tempdir();
    let rush = root().join("configs/rush.toml");
    let asked = "Should the Striker slam back or dodge the Orc? It takes the better";
    for (command, extra) in [
        ("compare", vec![]),
        ("sweep", vec!["--vary", "attacker.strength=2..5"]),
        ("sensitivity", vec![]),
    ] {
        let out = dir.path().join(command);
        rollsim()
            .arg(command)
            .arg(&rush)
            .args([
                "-s",
                "slam-orc-vs-striker-best",
                "--exact-only",
                "--charts",
                "png,svg",
                "-o",
            ])
            .arg(&out)
            .args(&extra)
            .assert()
            .success();
        let svgs: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "svg"))
            .collect();
        assert!(!svgs.is_empty(), "{command}");
        for svg in svgs {
            let t = texts(&svg);
            // The title is the designer's question; what the chart shows follows it, in
            // the title where it fits, else at the front of the subtitle.
            assert!(t[0].starts_with(asked), "{}: {:?}", svg.display(), &t[..2]);
            assert!(
                t.iter().all(|x| !x.contains("Slam orc vs striker best")),
                "{}",
                svg.display()
            );
        }
    }
    // The roster's charts too, and the cost chart's axis spans the counts tried (the
    // Orc's 15 and up), not 0 to them.
    let out = dir.path().join("roster");
    rollsim()
        .args(["roster"])
        .arg(root().join("configs/dice-examples.toml"))
        .args([
            "-s",
            "fighter-duels-orc",
            "--count",
            "hp",
            "--exact-only",
            "--charts",
            "png,svg",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let asked = "A duel to the end: who is left standing?";
    for stem in [
        "roster-fighter-duels-orc-ratings",
        "roster-fighter-duels-orc-nash",
        "matrix-fighter-duels-orc",
        "costs-fighter-duels-orc-exchange",
    ] {
        let t = texts(&out.join(format!("{stem}.svg")));
        assert!(t[0].starts_with(asked), "{stem}: {}", t[0]);
    }
    let t = texts(&out.join("costs-fighter-duels-orc-exchange.svg"));
    let ticks: Vec<i64> = t.iter().filter_map(|x| x.parse().ok()).collect();
    assert!(!ticks.is_empty(), "{t:?}");
    let lo = *ticks.iter().min().unwrap();
    assert!(lo >= 10, "the count axis starts at {lo}: {ticks:?}");
}

#[test]
fn a_wide_k_or_more_chart_is_folded_as_its_distribution_is() {
    let dir = tempdir();
    std::fs::write(dir.path().join("wide.toml"), EXPLODING_MARGIN).unwrap();
    rollsim()
        .current_dir(dir.path())
        .args([
            "run",
            "wide.toml",
            "-n",
            "20000",
            "-q",
            "--charts",
            "png,svg",
            "--format",
            "csv",
            "-o",
            "out",
        ])
        .assert()
        .success();
    let found: Vec<_> = walk(&dir.path().join("out"))
        .into_iter()
        .filter(|p| p.file_name().unwrap() == "margin_at_least.svg")
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let t = texts(&found[0]);
    let bars = t.iter().filter(|x| x.starts_with('≥')).count();
    assert!(bars <= 30, "{bars} bars: {t:?}");
    assert!(!t.iter().any(|x| x == "≥-131"), "{t:?}");
    assert!(t.iter().any(|x| x.contains("left off")), "{t:?}");
}

#[test]
fn no_gallery_headline_is_one_the_rules_make_impossible() {
    let dir = tempdir();
    rollsim()
        .current_dir(dir.path())
        .args(["-n", "2000", "-q"])
        .assert()
        .success();
    let html = std::fs::read_to_string(dir.path().join("reports/index.html")).unwrap();
    let heads: Vec<&str> = html
        .split("<p class=\"head\">")
        .skip(1)
        .map(|h| h.split("</p>").next().unwrap())
        .collect();
    assert!(heads.len() > 100, "{}", heads.len());
    for h in &heads {
        assert!(
            !h.ends_with("exact 0.00%") && !h.ends_with("exact 100.00%"),
            "a headline that cannot be otherwise: {h}"
        );
    }
    // The Jack's fourth Dash needs 4 successes of 3 dice: the card leads with what varies.
    assert!(
        heads.contains(&"mean tests passed: 1.37 (P(stays up) cannot happen by the rules)"),
        "{heads:?}"
    );
    assert!(html.contains("rush/dash-chain-jack/tests_passed_at_least.png"));
    assert!(
        heads.contains(&"P(made it) is certain by the rules"),
        "{heads:?}"
    );
}

#[test]
fn a_scenario_chart_is_titled_in_the_designers_words_however_long() {
    // 82 characters of the designer's: once dropped for the scenario's name, with only
    // the expression below it.
    let dir = tempdir();
    rollsim()
        .args(["run"])
        .arg(root().join("configs/dice-examples.toml"))
        .args([
            "-s",
            "fighter-hits-orc",
            "-n",
            "2000",
            "-q",
            "--charts",
            "png,svg",
            "-o",
        ])
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let t = texts(&dir.path().join("out/fighter-hits-orc/value.svg"));
    let words = "d20 + attack against the orc's armour class";
    assert!(t[0].starts_with(words), "{t:?}");
    assert!(
        t[..2]
            .join(" ")
            .contains("a natural 20 doubles the damage dice")
            || t[1].starts_with("A natural 20 doubles the damage dice"),
        "{t:?}"
    );
}
