//! Snapshot tests of every table format (hyperfine's habit): a small fixed-seed run whose
//! output must not change unless a change means it to (`cargo insta review`).

use crate::util::{shipped, tempdir};
use rollsim::app::{self, Format, RunOptions};

#[test]
fn every_format_of_a_small_run() {
    let dir = tempdir();
    let mut o = RunOptions::new(shipped("rush.toml"));
    o.scenarios = vec!["throw-long".into(), "armour-guard-3-hits".into()];
    o.trials = Some(10_000);
    o.seed = Some(7);
    o.out = Some(dir.path().to_path_buf());
    o.formats = vec![Format::Csv, Format::Json, Format::Md];
    o.plots = false;
    o.quiet = true;
    let md = app::run(&o).unwrap();
    let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
    insta::assert_snapshot!("distribution_csv", read("distribution.csv"));
    insta::assert_snapshot!("summary_csv", read("summary.csv"));
    insta::assert_snapshot!("distribution_json", read("distribution.json"));
    insta::assert_snapshot!("summary_json", read("summary.json"));
    insta::assert_snapshot!("markdown", md);
}
