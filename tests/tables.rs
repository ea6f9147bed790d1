//! `rollsim::tables`: every command's tables in memory equal the files the command line
//! writes, cell for cell and type for type (each written back through the same CSV
//! writer and compared byte for byte), for every command that writes tables.

use crate::util::{rollsim, root, tempdir};
use polars::prelude::DataType;
use rollsim::report::export::Exporter;
use rollsim::report::frame::Frame;

/// Run `args` both ways: the command line into a folder, the library in memory; each
/// table must be a file of the folder with the same bytes, and every CSV of the folder
/// one of the tables.
fn same(args: &[&str]) -> rollsim::tables::Tables {
    let dir = tempdir();
    let out = dir.path().join("o");
    rollsim()
        .arg("-q")
        .args(args)
        .args(["--no-plots", "-o"])
        .arg(&out)
        .assert()
        .success();
    let t = rollsim::tables::of(args.iter().copied(), &rollsim::Cancel::new()).unwrap();
    let names: Vec<String> = t.names().map(str::to_string).collect();
    assert!(!names.is_empty(), "{args:?}: no tables");
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".csv").map(str::to_string))
        .collect();
    files.sort();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(sorted, files, "{args:?}: the tables are the CSV files");
    for name in &names {
        let df = t.get(name).unwrap().clone();
        let mine = rollsim::report::csv::Csv
            .to_bytes(&Frame::from_df(df))
            .unwrap();
        let file = std::fs::read(out.join(format!("{name}.csv"))).unwrap();
        assert!(
            mine == file,
            "{args:?}: {name} differs:\n{}\nagainst the file\n{}",
            String::from_utf8_lossy(&mine),
            String::from_utf8_lossy(&file)
        );
    }
    t
}

fn config(name: &str) -> String {
    root().join("configs").join(name).display().to_string()
}

#[test]
fn every_command_hands_over_the_tables_it_writes() {
    let rush = config("rush.toml");
    let dice = config("dice-examples.toml");
    let descent = config("descent.toml");
    let skirmish = config("skirmish.toml");
    let slam = "slam-orc-vs-human-guard";
    // run (with profiles and decisions), roll, both ways of each.
    let t = same(&["run", &descent, "-n", "3000"]);
    assert!(t.names().any(|n| n.starts_with("profile-")));
    let t = same(&["run", &skirmish, "-n", "2000"]);
    assert!(t.names().any(|n| n == "decisions"));
    same(&["run", &rush, "--exact-only"]);
    let t = same(&["roll", "4d6 drop lowest", "-n", "5000"]);
    // The Monte Carlo columns are numbers when trials ran, empty numbers when not.
    let d = t.get("distribution").unwrap();
    assert_eq!(d.column("probability").unwrap().dtype(), &DataType::Float64);
    assert_eq!(d.column("count").unwrap().dtype(), &DataType::UInt64);
    let t = same(&["roll", "4d6 drop lowest", "--exact-only"]);
    let d = t.get("distribution").unwrap();
    assert_eq!(d.column("probability").unwrap().dtype(), &DataType::Float64);
    assert_eq!(d.column("probability").unwrap().null_count(), d.height());
    // The balance commands.
    let t = same(&["compare", &rush, "-s", slam, "-n", "3000"]);
    let wide = t.get(&format!("matrix-{slam}-wide")).unwrap();
    assert_eq!((wide.height(), wide.width()), (5, 6));
    same(&[
        "compare",
        &rush,
        "-s",
        slam,
        "--response",
        "best",
        "-n",
        "2000",
    ]);
    same(&["compare", &rush, "-s", slam, "--exact-only"]);
    same(&[
        "sweep",
        &descent,
        "-s",
        "crossbow-vs-ogre",
        "--vary",
        "distance=1..6",
        "--metric",
        "damage",
        "-n",
        "2000",
    ]);
    same(&[
        "sweep",
        &rush,
        "-s",
        slam,
        "--vary",
        "attacker.strength=2..4",
        "--vary",
        "defender.strength=2..4",
        "--exact-only",
    ]);
    same(&["sensitivity", &rush, "-s", slam, "--exact-only"]);
    same(&["equalize", &rush, "-s", slam, "--exact-only"]);
    let t = same(&[
        "roster",
        &dice,
        "-s",
        "fighter-duels-orc",
        "--exact-only",
        "--count",
        "hp",
    ]);
    assert!(t.names().any(|n| n == "costs-fighter-duels-orc"));
    same(&["roster", &rush, "-s", slam, "-n", "2000"]);
    // overlay: each entry's values joined onto the union of values; a value an entry
    // never shows is 0 where it was simulated, with no exact value.
    same(&[
        "overlay",
        &format!("{rush}:{slam}"),
        &format!("{rush}:{slam}:attacker.strength=2"),
        "-n",
        "3000",
    ]);
    let dir = tempdir();
    let small = dir.path().join("small.toml");
    std::fs::write(
        &small,
        "system = \"dice\"\n[scenarios.four]\nroll = \"d4\"\n[scenarios.six]\nroll = \"d6\"\n",
    )
    .unwrap();
    let small = small.display().to_string();
    let t = same(&[
        "overlay",
        &format!("{small}:four"),
        &format!("{small}:six"),
        "-n",
        "600",
    ]);
    let o = t.names().next().map(|n| t.get(n).unwrap().clone()).unwrap();
    assert_eq!(o.height(), 12, "two entries by the six values of both");
    let at = |c: &str| o.column(c).unwrap().as_materialized_series().clone();
    let (value, p, exact) = (at("value"), at("probability"), at("exact"));
    // d4's rows, in order: 1..4 shown, then 5 and 6 it never shows.
    assert_eq!(value.str().unwrap().get(4), Some("5"));
    assert_eq!(p.f64().unwrap().get(4), Some(0.0));
    assert_eq!(exact.f64().unwrap().get(4), None);
    assert_eq!(exact.f64().unwrap().get(0), Some(0.25));
    // Exact values are kept to 13 digits, as every table writes them.
    let last = exact.f64().unwrap().get(11).unwrap();
    assert!((last - 1.0 / 6.0).abs() < 1e-12, "{last}");
}

#[test]
fn a_command_without_tables_is_refused_by_name() {
    let e = rollsim::tables::of(["list", &config("rush.toml")], &rollsim::Cancel::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("give run, roll, compare"), "{e}");
    let e = rollsim::tables::of(["roll", "3d6", "--trails", "5"], &rollsim::Cancel::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("--trials"), "the nearest flag is named: {e}");
}

#[test]
fn every_option_of_every_command_is_listed_for_the_python_keywords() {
    let has = |command: &str, want: (&str, bool, bool)| {
        let all = rollsim::command::options(command).unwrap();
        assert!(
            all.iter().any(|(n, t, m)| (n.as_str(), *t, *m) == want),
            "{command}: {want:?} not in {all:?}"
        );
    };
    has("roster", ("count", true, false));
    has("roster", ("exact-only", false, false));
    has("roster", ("set", true, true));
    has("compare", ("response", true, false));
    has("sweep", ("vary", true, true));
    has("roll", ("vs", true, false));
    // A global flag reaches every command.
    has("roll", ("threads", true, false));
    has("equalize", ("no-trial-cap", false, false));
    assert!(rollsim::command::options("rol").is_err());
}

/// The distribution a roll hands to Python one table at a time (`Held::table`, its
/// values put down as numbers where every label is one) is the whole tables' (their
/// labels written as text and read back as numbers), cell for cell and type for type:
/// sums, a tail folded into "or more", a contest's words, a roll below zero, and two
/// scenarios side by side.
#[test]
fn a_held_distribution_is_the_tables_distribution_with_its_numbers() {
    let cases: [&[&str]; 5] = [
        &["roll", "3d6 - 12", "--exact-only"],
        &["roll", "d6 explode depth 3", "--trials", "2000"],
        &["roll", "2d6", "--vs", "2d6 + 1", "--exact-only"],
        &[
            "roll",
            "let p = 4d6 in p count 6 - p count 1",
            "--exact-only",
        ],
        &[
            "roll", "d20", "--vs", "d20", "--trials", "3000", "--seed", "4",
        ],
    ];
    let mut numeric = 0;
    for args in cases {
        let cancel = rollsim::Cancel::new();
        let whole = rollsim::tables::of(args.iter().copied(), &cancel)
            .unwrap()
            .with_numeric_values();
        let want = whole.get("distribution").unwrap();
        let held = rollsim::tables::held(args.iter().copied(), &cancel).unwrap();
        let got = held.table("distribution").unwrap().unwrap();
        assert_eq!(&got, want, "{args:?}");
        numeric += usize::from(got.column("value").unwrap().dtype() == &DataType::Int64);
    }
    // Words stay text: not every case is numbers.
    assert!((1..5).contains(&numeric), "{numeric} of 5 numeric");
}
