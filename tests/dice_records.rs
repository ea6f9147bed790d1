//! Issue #26, item 2: named results. A record `{ name = ..., ... }` makes one metric per
//! name, each with its table and chart, their joint distribution carried exactly (one
//! roll read several ways), and the balance commands pick one with `--metric`.

use crate::dice_lang::{compile, rolls, D6};
use crate::util::{assert_agrees, rollsim, tempdir, text};
use rollsim::config::load_str;
use rollsim::model::Compiled;
use std::collections::BTreeMap;

/// The exact joint distribution of two named metrics, by their values.
fn joint(c: &Compiled, a: &str, b: &str) -> BTreeMap<(i64, i64), f64> {
    let e = c.exact.as_ref().expect("exact");
    let ma = c.metrics.iter().find(|m| m.name == a).expect("metric a");
    let mb = c.metrics.iter().find(|m| m.name == b).expect("metric b");
    let mut out = BTreeMap::new();
    for (s, p) in e.iter().enumerate() {
        if *p > 1e-15 {
            let key = (
                ma.value(ma.map[s] as usize) as i64,
                mb.value(mb.map[s] as usize) as i64,
            );
            *out.entry(key).or_insert(0.0) += p;
        }
    }
    out
}

fn same_joint(got: &BTreeMap<(i64, i64), f64>, want: &BTreeMap<(i64, i64), f64>) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, p) in want {
        assert!((got[k] - p).abs() < 1e-12, "{k:?}: {} want {p}", got[k]);
    }
}

#[test]
fn one_roll_read_two_ways_keeps_its_joint_distribution() {
    // 3d6: the sixes and the highest die, together.
    let c = compile(
        "let p = 3d6 in { sixes = p count 6, best = p highest }",
        None,
    );
    let names: Vec<&str> = c.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["sixes", "best"]);
    let mut want = BTreeMap::new();
    for r in rolls(3, &D6) {
        let k = (
            r.iter().filter(|&&x| x == 6).count() as i64,
            *r.iter().max().unwrap(),
        );
        *want.entry(k).or_insert(0.0) += 1.0 / 216.0;
    }
    same_joint(&joint(&c, "sixes", "best"), &want);
    // By hand: no six and best 5 is (5/6)^3 - (4/6)^3 = 61/216.
    assert!((want[&(0, 5)] - 61.0 / 216.0).abs() < 1e-15);
    assert_agrees(&c, &["sixes", "best"], 200_000, 2601);
    // The headline is the first result's: P(at least 1) six = 91/216.
    assert_eq!(c.headline.label, "P(at least 1)");
    let six = &c.metrics[0];
    let p: f64 = six.project_f64(c.exact.as_ref().unwrap())[1..].iter().sum();
    assert!((p - 91.0 / 216.0).abs() < 1e-12, "{p}");
}

#[test]
fn independent_results_multiply() {
    // Two rolls of their own: the joint is the product of the marginals.
    let c = compile("{ attack = d20 + 5, damage = 2d6 - 1 }", None);
    let mut want = BTreeMap::new();
    for a in 1..=20 {
        for r in rolls(2, &D6) {
            *want.entry((a + 5, r[0] + r[1] - 1)).or_insert(0.0) += 1.0 / (20.0 * 36.0);
        }
    }
    same_joint(&joint(&c, "attack", "damage"), &want);
    assert_agrees(&c, &["attack", "damage"], 200_000, 2602);
}

#[test]
fn records_are_the_result_only_and_their_mistakes_are_named() {
    let err = |roll: &str, extra: &str| {
        let t = format!("system = \"dice\"\n[scenarios.s]\nroll = {roll:?}\n{extra}");
        load_str(&t, "dice.toml", &[]).err().unwrap().to_string()
    };
    let e = err("1 + { a = d6 }", "");
    assert!(
        e.contains("a record `{ name = ..., ... }` is the scenario's result"),
        "{e}"
    );
    assert!(e.contains("column 5"), "{e}");
    let e = err("{ a = d6, a = d8 }", "");
    assert!(e.contains("`a` is named twice"), "{e}");
    let e = err("{ a = d6 }", "vs = \"d6\"\n");
    assert!(e.contains("key `scenarios.s.vs`"), "{e}");
    let e = err("{ a = d1000, b = d1000 }", "");
    assert!(e.contains("1000 x 1000"), "{e}");
}

#[test]
fn a_balance_command_picks_a_result_by_name() {
    let dir = tempdir();
    let cfg = dir.path().join("r.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[units.hero]\npool = 2\n[scenarios.s]\nunit = \"hero\"\nroll = \"let p = (pool)d6 in { sixes = p count 6, best = p highest }\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = rollsim()
        .args([
            "sweep",
            cfg.to_str().unwrap(),
            "-s",
            "s",
            "--vary",
            "unit.pool=1..2",
        ])
        .args([
            "--exact-only",
            "--metric",
            "best",
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(out.join("sweep-s-unit_pool.csv")).unwrap();
    // The best of 1d6 is 3.5; of 2d6, 161/36.
    let values: Vec<f64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(5)?.parse().ok())
        .collect();
    assert_eq!(values.len(), 2, "{csv}");
    assert!((values[0] - 3.5).abs() < 1e-9, "{csv}");
    assert!((values[1] - 161.0 / 36.0).abs() < 1e-9, "{csv}");
    // A name that is not a result: the nearest named.
    let o = rollsim()
        .args([
            "sweep",
            cfg.to_str().unwrap(),
            "-s",
            "s",
            "--vary",
            "unit.pool=1..2",
        ])
        .args([
            "--exact-only",
            "--metric",
            "bset",
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("best"), "{}", text(&o.stderr));
}
