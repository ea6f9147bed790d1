//! One seed, one result: the same counts and the same output bytes for any thread count.

use crate::util::{load, shipped, simulate, tempdir};
use rollsim::app::{self, Format, RunOptions};

#[test]
fn histograms_are_identical_for_1_2_and_5_threads() {
    for (file, name) in [
        ("rush.toml", "slam-orc-vs-human-guard"),
        ("rush.toml", "pass-striker-to-jack"),
        ("rush-exploding.toml", "dash-chain-striker"),
        ("dozen.toml", "duel-fighter-vs-dwarf"),
        ("dozen.toml", "fighter-charges-dwarf"),
        ("dozen.toml", "fighter-climbs-inn-wall"),
    ] {
        let c = load(file).compile(name).unwrap();
        let one = simulate(&c, 1_000_003, 99, 1);
        assert_eq!(one, simulate(&c, 1_000_003, 99, 2), "{name}");
        assert_eq!(one, simulate(&c, 1_000_003, 99, 5), "{name}");
        assert_ne!(
            one,
            simulate(&c, 1_000_003, 100, 2),
            "{name}: the seed matters"
        );
    }
}

fn run_csv(threads: usize, precision: Option<f64>) -> (String, String) {
    let dir = tempdir();
    let mut o = RunOptions::new(shipped("rush.toml"));
    o.scenarios = vec![
        "slam-orc-vs-human-guard".into(),
        "dash-chain-striker".into(),
    ];
    o.trials = Some(300_000);
    o.precision = precision;
    o.threads = Some(threads);
    o.out = Some(dir.path().to_path_buf());
    o.formats = vec![Format::Csv];
    o.plots = false;
    o.quiet = true;
    app::run(&o).unwrap();
    (
        std::fs::read_to_string(dir.path().join("distribution.csv")).unwrap(),
        std::fs::read_to_string(dir.path().join("summary.csv")).unwrap(),
    )
}

#[test]
fn csv_output_is_byte_identical_across_thread_counts() {
    let a = run_csv(1, None);
    assert_eq!(a, run_csv(2, None));
    assert_eq!(a, run_csv(3, None));
    assert!(
        a.1.contains(",300000,2026"),
        "trials and default seed in the summary"
    );
}

#[test]
fn precision_runs_are_deterministic_and_stop_when_met() {
    let a = run_csv(1, Some(0.002));
    assert_eq!(a, run_csv(2, Some(0.002)));
    // The widest Wilson half-width near p = 1/2 is 0.98 / sqrt(n): 0.002 needs n >= 240,100.
    // The opening round of 2 chunks (131,072 trials) falls short, and its half-width
    // scales to 240k, rounded up to whole steps of 4,096: 241,664 (59 steps).
    assert!(a.1.contains(",241664,2026"), "{}", a.1);
}
