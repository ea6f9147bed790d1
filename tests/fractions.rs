//! Issue #26, items 7 and 8: exact values as the fractions they are in every
//! distribution table, negative values as numbers in CSV, and `rollsim roll` writing
//! what `-o`, `--format` and `--exact-only` ask for, with who wins under `--vs`. Every
//! fraction below is worked out by hand from the dice.

use crate::util::{rollsim, tempdir, text};
use std::path::Path;

/// The CSV's rows as maps from its header (no cell here holds a comma).
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let t = std::fs::read_to_string(path).unwrap();
    let mut lines = t.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .map(|h| h.to_string())
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

/// The row of `metric` = `value`.
fn row<'a>(
    rows: &'a [std::collections::HashMap<String, String>],
    metric: &str,
    value: &str,
) -> &'a std::collections::HashMap<String, String> {
    rows.iter()
        .find(|r| r["metric"] == metric && r["value"] == value)
        .unwrap_or_else(|| panic!("no row {metric} = {value}"))
}

/// `ways / of` in lowest terms, as the tables print a fraction.
fn reduced(ways: u64, of: u64) -> String {
    let g = crate::util::gcd(ways, of);
    format!("{}/{}", ways / g, of / g)
}

/// The ways to roll each total of `n` d6, counted over all 6^n rolls (index = total).
fn ways_d6(n: u32) -> Vec<u64> {
    let mut ways = vec![0u64; 6 * n as usize + 1];
    for code in 0..6u64.pow(n) {
        let total: u64 = (0..n).map(|i| code / 6u64.pow(i) % 6 + 1).sum();
        ways[total as usize] += 1;
    }
    ways
}

/// 3d6: the ways to roll 3..=18 are 1, 3, 6, 10, 15, 21, 25, 27, 27, 25, ... of 216
/// (`ways_d6(3)` counts them; the first test checks this table against it).
const THREE_D6: [&str; 16] = [
    "1/216", "1/72", "1/36", "5/108", "5/72", "7/72", "25/216", "1/8", "1/8", "25/216", "7/72",
    "5/72", "5/108", "1/36", "1/72", "1/216",
];

#[test]
fn issue26_item7_every_table_format_carries_the_exact_fraction() {
    let dir = tempdir();
    let out = dir.path().join("o");
    let a = rollsim()
        .args(["roll", "3d6", "--exact-only", "--no-plots", "-q", "-o"])
        .arg(&out)
        .args(["--format", "csv,json,parquet,md"])
        .assert()
        .success();
    // CSV: P(10) = 27/216 = 1/8, and every value's fraction in order.
    let derived: Vec<String> = ways_d6(3)[3..].iter().map(|&w| reduced(w, 216)).collect();
    assert_eq!(derived, THREE_D6);
    let dist = rows(&out.join("distribution.csv"));
    let fractions: Vec<&str> = dist.iter().map(|r| r["exact_fraction"].as_str()).collect();
    assert_eq!(fractions, THREE_D6);
    assert_eq!(row(&dist, "value", "10")["exact"], "0.125");
    // The mean: 3 x 7/2 = 21/2.
    let summ = rows(&out.join("summary.csv"));
    assert_eq!(summ[0]["exact_mean"], "10.5");
    assert_eq!(summ[0]["exact_mean_fraction"], "21/2");
    // JSON: the fraction as text beside the float.
    let json = std::fs::read_to_string(out.join("distribution.json")).unwrap();
    assert!(
        json.contains(r#""value":"10","count":null,"trials":null,"probability":null,"ci_low":null,"ci_high":null,"exact":0.125,"exact_fraction":"1/8"}"#),
        "{json}"
    );
    let json = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(json.contains(r#""exact_mean_fraction":"21/2""#), "{json}");
    // Parquet: a text column of the same fractions.
    use polars::prelude::*;
    let f = std::fs::File::open(out.join("distribution.parquet")).unwrap();
    let df = ParquetReader::new(f).finish().unwrap();
    let fractions = df.column("exact_fraction").unwrap();
    assert_eq!(
        fractions.dtype(),
        &polars::prelude::DataType::String,
        "text, as no number type holds 1155/4096"
    );
    let col: Vec<Option<String>> = fractions
        .str()
        .unwrap()
        .iter()
        .map(|o| o.map(str::to_string))
        .collect();
    assert_eq!(col, THREE_D6.map(|f| Some(f.to_string())));
    // Markdown (`--format md`): the fraction in its column, "1 in N" beside a small
    // percentage: 1 in 8 exactly for 1/8, 1 in 8.6 for 25/216 (8.64), none above 1/2.
    let md = text(&a.get_output().stdout);
    assert!(md.contains("| 10 | 12.50% (1 in 8) | 1/8 |"), "{md}");
    assert!(md.contains("| 9 | 11.57% (1 in 8.6) | 25/216 |"), "{md}");
    assert!(md.contains("| 3 | 0.46% (1 in 216) | 1/216 |"), "{md}");
    assert!(md.contains(": exact mean 10.5000 (21/2)"), "{md}");
}

#[test]
fn issue26_item7_negative_values_are_numbers_in_csv() {
    // 2d6 - 7 runs from -5 to 5: P(-5) = 1/36, P(-3) = 3/36 = 1/12, P(-1) = 5/36; the
    // mean is 0. The value cells are numbers a spreadsheet sums, not text `'-5`.
    let dir = tempdir();
    let out = dir.path().join("o");
    rollsim()
        .args(["roll", "2d6 - 7", "-n", "20000", "--no-plots", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    assert!(!csv.contains('\''), "{csv}");
    let dist = rows(&out.join("distribution.csv"));
    let values: Vec<i64> = dist.iter().map(|r| r["value"].parse().unwrap()).collect();
    assert_eq!(values, (-5..=5).collect::<Vec<_>>());
    assert_eq!(row(&dist, "value", "-5")["exact_fraction"], "1/36");
    assert_eq!(row(&dist, "value", "-3")["exact_fraction"], "1/12");
    assert_eq!(row(&dist, "value", "-1")["exact_fraction"], "5/36");
    assert_eq!(row(&dist, "value", "0")["exact_fraction"], "1/6");
    let summ = rows(&out.join("summary.csv"));
    assert_eq!(summ[0]["exact_mean_fraction"], "0/1");
    // d6 - 4: values -3..=2, mean -1/2, a negative number in its cell.
    rollsim()
        .args(["roll", "d6 - 4", "-n", "20000", "--no-plots", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    let summ = rows(&out.join("summary.csv"));
    assert_eq!(summ[0]["exact_mean"], "-0.5");
    assert_eq!(summ[0]["exact_mean_fraction"], "-1/2");
    let dist = rows(&out.join("distribution.csv"));
    assert_eq!(row(&dist, "value", "-3")["exact_fraction"], "1/6");
}

#[test]
fn issue26_item7_a_fraction_only_where_one_fits() {
    // Four d6 against four d6: 6^8 = 1,679,616 rolls, within the bound. A tie is
    // the sum over totals of (ways)^2: 135,954 / 1,679,616 = 7553/93312 (counted here;
    // both divided by 18). The widest margin, 20 (four 6s against four 1s), is one roll
    // of them: 1/1679616.
    let ties: u64 = ways_d6(4).iter().map(|w| w * w).sum();
    assert_eq!(ties, 135_954);
    assert_eq!(reduced(ties, 1_679_616), "7553/93312");
    let a = rollsim()
        .args(["roll", "4d6", "--vs", "4d6", "--exact-only", "-o", "-"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    assert!(csv.contains("roll,result,tie,"), "{csv}");
    assert!(csv.contains(",7553/93312\n"), "{csv}");
    // Nothing was simulated: the Monte Carlo columns are empty.
    assert!(csv.contains("roll,margin,20,,,,,,"), "{csv}");
    assert!(csv.contains(",1/1679616\n"), "{csv}");
    // Eight d10: 10^8 rolls, past the floats' bound: its fractions come from integer
    // weights (P(80) = 1/10^8; P(9) = 8 of 10^8 = 1/12500000).
    let a = rollsim()
        .args(["roll", "8d10", "--exact-only", "-o", "-", "--format", "csv"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    assert!(
        csv.contains("\nroll,value,80,,,,,,1e-8,1/100000000\n"),
        "{csv}"
    );
    assert!(
        csv.contains("\nroll,value,9,,,,,,8e-8,1/12500000\n"),
        "{csv}"
    );
    // A pool variable read two ways: every multiset counted in integers, its fractions
    // over 10^8 too. By hand: 18 is every die 7+ and one a 10, (4^8 - 3^8) / 10^8; 1 is
    // every die a 1.
    let a = rollsim()
        .args([
            "roll",
            "let p = 8d10 in p count >= 7 + p highest",
            "--exact-only",
            "-o",
            "-",
            "--format",
            "csv",
        ])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    assert!(csv.lines().count() > 10, "{csv}");
    assert!(
        csv.contains("\nroll,value,18,,,,,,0.00058975,2359/4000000\n"),
        "{csv}"
    );
    assert!(
        csv.contains("\nroll,value,1,,,,,,1e-8,1/100000000\n"),
        "{csv}"
    );
    assert!(csv.lines().skip(1).all(|l| !l.ends_with(',')), "{csv}");
    // No exact distribution at all: both cells empty.
    let dir = tempdir();
    let out = dir.path().join("o");
    rollsim()
        .args([
            "roll",
            "let a = d1000 in let b = d1000 in let c = d1000 in (a*b + b*c + c*a) / 100000",
        ])
        .args(["-n", "2000", "--no-plots", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    let dist = rows(&out.join("distribution.csv"));
    assert!(!dist.is_empty());
    assert!(dist
        .iter()
        .all(|r| r["exact"].is_empty() && r["exact_fraction"].is_empty()));
}

#[test]
fn issue26_item8_roll_writes_what_out_format_and_exact_only_ask_for() {
    let dir = tempdir();
    let out = dir.path().join("o");
    // --exact-only with -o and --format json: the exact tables, as JSON only.
    let a = rollsim()
        .args(["roll", "d20 + 5 >= 15", "--exact-only", "--no-plots", "-o"])
        .arg(&out)
        .args(["--format", "json"])
        .assert()
        .success();
    let s = text(&a.get_output().stdout);
    // 11 faces of 20 reach 15 after +5.
    assert!(s.contains("P(success) (exact): 55.0000% = 11/20"), "{s}");
    assert!(s.contains("| 1 | 55.0000% | 11/20 | 55.0000% |"), "{s}");
    assert!(!s.contains("Monte Carlo"), "{s}");
    let json = std::fs::read_to_string(out.join("distribution.json")).unwrap();
    assert!(
        json.contains(r#""value":"1","count":null,"trials":null,"probability":null,"ci_low":null,"ci_high":null,"exact":0.55,"exact_fraction":"11/20"}"#),
        "{json}"
    );
    assert!(!out.join("distribution.csv").exists());
    // --exact-only without -o: printed, nothing written.
    let cwd = tempdir();
    rollsim()
        .current_dir(cwd.path())
        .args(["roll", "3d6", "--exact-only"])
        .assert()
        .success();
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0);
    // -o -: the distribution table on standard output, no folder; the same bytes for
    // one thread or two.
    let streamed = |threads: &str| {
        let a = rollsim()
            .current_dir(cwd.path())
            .args(["roll", "3d6", "-n", "100000", "--seed", "5", "-q"])
            .args(["--threads", threads, "-o", "-", "--format", "csv"])
            .assert()
            .success();
        assert!(text(&a.get_output().stderr).contains("to standard output"));
        text(&a.get_output().stdout)
    };
    let csv = streamed("1");
    assert_eq!(csv, streamed("2"));
    assert!(csv.starts_with(
        "scenario,metric,value,count,trials,probability,ci_low,ci_high,exact,exact_fraction\n"
    ));
    let ten = csv
        .lines()
        .find(|l| l.starts_with("roll,value,10,"))
        .unwrap();
    assert!(
        ten.contains(",100000,") && ten.ends_with(",0.125,1/8"),
        "{ten}"
    );
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0);
    // -o - with parquet: binary, refused with a reason.
    let a = rollsim()
        .args(["roll", "3d6", "-o", "-", "--format", "parquet"])
        .assert()
        .code(2);
    assert!(text(&a.get_output().stderr).contains("parquet is binary"));
    // Before the expression is read (or rolled): an expression that does not read is
    // not what is said.
    let a = rollsim()
        .args(["roll", "d6 +", "-o", "-", "--format", "parquet"])
        .assert()
        .code(2);
    assert!(text(&a.get_output().stderr).contains("parquet is binary"));
    // --format md: the report `run` prints, after the roll's own table.
    let a = rollsim()
        .args(["roll", "3d6", "--exact-only", "--format", "md"])
        .assert()
        .success();
    let s = text(&a.get_output().stdout);
    // P(at least 10) = (27 + 27 + 25 + 21 + 15 + 10 + 6 + 3 + 1) / 216 = 135/216.
    assert_eq!(ways_d6(3)[10..].iter().sum::<u64>(), 135);
    assert!(s.contains("| 10 | 12.5000% | 1/8 | 62.5000% |"), "{s}");
    assert!(s.contains("mean (exact): 10.5000 = 21/2"), "{s}");
    assert!(s.contains("### roll"), "{s}");
    assert!(s.contains("| 10 | 12.50% (1 in 8) | 1/8 |"), "{s}");
    // Nothing simulated: no Monte Carlo column, no interval.
    assert!(!s.contains("Monte Carlo") && !s.contains(" .. "), "{s}");
    // --exact-only where there is no exact distribution: said, exit 2.
    let a = rollsim()
        .args([
            "roll",
            "let a = d1000 in let b = d1000 in let c = d1000 in (a*b + b*c + c*a) / 100000",
        ])
        .arg("--exact-only")
        .assert()
        .code(2);
    let e = text(&a.get_output().stderr);
    assert!(e.contains("no exact distribution"), "{e}");
    assert!(e.contains("Roll it without --exact-only"), "{e}");
}

/// The cells of the Markdown row that starts `| first |`.
fn cells<'a>(table: &'a str, first: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("| {first} |")))
        .unwrap_or_else(|| panic!("no row {first}: {table}"));
    line.trim_matches('|').split('|').map(str::trim).collect()
}

#[test]
fn issue26_item8_vs_prints_who_wins_exact_and_monte_carlo() {
    // d20 + 5 against d20 + 3: the roll wins when its die is at most one below the
    // other's: 229 of 400 pairs; equal totals (die two below) 18 of 400 = 9/200; the
    // other roll wins in the remaining 153. Counted here:
    let count = |keep: fn(i32, i32) -> bool| {
        (1..=20)
            .flat_map(|a| (1..=20).map(move |b| (a, b)))
            .filter(|&(a, b)| keep(a + 5, b + 3))
            .count() as u64
    };
    let (win, tie, lose) = (
        count(|a, b| a > b),
        count(|a, b| a == b),
        count(|a, b| a < b),
    );
    assert_eq!((win, tie, lose), (229, 18, 153));
    let dir = tempdir();
    let n = 400_000u32;
    let a = rollsim()
        .args(["roll", "d20 + 5", "--vs", "d20 + 3", "--seed", "7", "-q"])
        .args(["-n", &n.to_string(), "--no-plots", "-o"])
        .arg(dir.path().join("o"))
        .assert()
        .success();
    let s = text(&a.get_output().stdout);
    let dist = rows(&dir.path().join("o").join("distribution.csv"));
    for (outcome, ways) in [
        ("the roll wins", win),
        ("tie", tie),
        ("the other roll wins", lose),
    ] {
        let (exact, fraction) = (ways as f64 / 400.0, reduced(ways, 400));
        let c = cells(&s, outcome);
        assert_eq!(c[1], format!("{:.4}%", 100.0 * exact), "{s}");
        assert_eq!(c[2], fraction, "{s}");
        // The Monte Carlo column is this run's estimate (the table's count / trials)
        // and within 4.5 standard errors of the exact value.
        let mc: f64 = c[3].trim_end_matches('%').parse::<f64>().unwrap() / 100.0;
        let r = row(&dist, "result", outcome);
        let count: f64 = r["count"].parse().unwrap();
        // (Printed to four decimals of a percent: within half of 1e-6.)
        assert!(
            (mc - count / f64::from(n)).abs() <= 5e-7 + 1e-12,
            "{outcome}: {mc}"
        );
        let se = (exact * (1.0 - exact) / f64::from(n)).sqrt();
        assert!((mc - exact).abs() < 4.5 * se, "{outcome}: {mc} vs {exact}");
        assert_eq!(r["exact_fraction"], fraction);
        assert!(c[4].contains(" .. "), "{s}");
    }
    assert!(s.contains("(exact 57.2500% = 229/400)"), "{s}");
    // Exact only: the same three rows, without Monte Carlo columns.
    let a = rollsim()
        .args(["roll", "d20 + 5", "--vs", "d20 + 3", "--exact-only"])
        .assert()
        .success();
    let s = text(&a.get_output().stdout);
    assert!(s.contains("| tie | 4.5000% | 9/200 |\n"), "{s}");
    assert!(
        s.contains("| the other roll wins | 38.2500% | 153/400 |\n"),
        "{s}"
    );
}

/// docs/commands.md: a number that cannot come up has no row in the data files, with or
/// without trials; a value of any chance keeps its row; a named outcome keeps its row at
/// 0. `2d2 * 3`: 6, 9, 12 at 1/4, 1/2, 1/4. Odd margins of even rolls never tie.
#[test]
fn the_data_files_leave_out_numbers_that_cannot_come_up() {
    let dir = tempdir();
    for (i, trials) in ["0", "20000"].iter().enumerate() {
        let out = dir.path().join(format!("o{i}"));
        let mut cmd = rollsim();
        cmd.args(["roll", "2d2 * 3", "--no-plots", "-q", "-o"])
            .arg(&out);
        if *trials == "0" {
            cmd.arg("--exact-only");
        } else {
            cmd.args(["-n", trials]);
        }
        cmd.assert().success();
        let dist = rows(&out.join("distribution.csv"));
        let got: Vec<(&str, &str)> = dist
            .iter()
            .map(|r| (r["value"].as_str(), r["exact_fraction"].as_str()))
            .collect();
        assert_eq!(got, [("6", "1/4"), ("9", "1/2"), ("12", "1/4")], "{trials}");
        // Values in steps of 3: the mean and the headline read them as the numbers.
        let summ = rows(&out.join("summary.csv"));
        assert_eq!(summ[0]["exact_mean_fraction"], "9/1", "{trials}");
        let head = rows(&out.join("headline.csv"));
        assert_eq!(head[0]["headline"], "P(at least 9)", "{trials}");
        assert_eq!(head[0]["exact"], "0.75", "{trials}");
    }
    // `rollsim roll ARGS --exact-only`'s distribution table.
    let exact_rows = |name: &str, args: &[&str]| {
        let out = dir.path().join(name);
        rollsim()
            .arg("roll")
            .args(args)
            .args(["--exact-only", "--no-plots", "-q", "-o"])
            .arg(&out)
            .assert()
            .success();
        rows(&out.join("distribution.csv"))
    };
    let dist = exact_rows("vs", &["2d6 * 2", "--vs", "2d6 * 2 + 1"]);
    let margins: Vec<i64> = dist
        .iter()
        .filter(|r| r["metric"] == "margin")
        .map(|r| r["value"].parse().unwrap())
        .collect();
    assert_eq!(margins, (-21..=19).step_by(2).collect::<Vec<_>>());
    let results: Vec<(&str, &str)> = dist
        .iter()
        .filter(|r| r["metric"] == "result")
        .map(|r| (r["value"].as_str(), r["exact_fraction"].as_str()))
        .collect();
    assert_eq!(results.len(), 3, "{results:?}");
    assert_eq!(results[1], ("tie", "0/1"));
    // A value below the smallest float keeps its row: 1000d6's lowest sum is 6^-1000.
    let dist = exact_rows("big", &["1000d6 sum"]);
    assert_eq!(dist.len(), 5001);
    assert_eq!(dist[0]["value"], "1000");
}
