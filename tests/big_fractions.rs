//! Issue #55, "weights": exact values as fractions of any size. `20d20 keep highest 10`
//! is over 20^20 (past the floats' fractions, recovered up to 2e6) and the lowest sums of
//! `1000d6` are below the smallest float; both come out whole from `--exact-only`, each
//! checked against integers counted here by a method of the test's own.

use crate::util::{rollsim, tempdir};
use num_bigint::BigUint;
use std::collections::HashMap;
use std::path::Path;

/// `value -> (exact, exact_fraction)` of the roll's `distribution.csv`.
fn fractions(dir: &Path) -> Vec<(i64, f64, String)> {
    let t = std::fs::read_to_string(dir.join("distribution.csv")).unwrap();
    let mut lines = t.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (v, e, f) = (at("value"), at("exact"), at("exact_fraction"));
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (
                cells[v].parse().unwrap(),
                cells[e].parse().unwrap(),
                cells[f].to_string(),
            )
        })
        .collect()
}

fn exact_only(roll: &str, dir: &Path) {
    rollsim()
        .args(["roll", roll, "--exact-only", "--no-plots", "-o"])
        .arg(dir)
        .assert()
        .success();
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn choose(n: u128, k: u128) -> u128 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Ways of each kept sum of `20d20 keep highest 10`, of all 20^20 ordered rolls, by the
/// tenth highest die `t`: `a` dice above it (fewer than 10), `e` equal to it (enough to
/// fill the ten), the rest below it. The kept sum is the `a` dice's sum plus
/// `(10 - a) t`, and the rolls so counted are `C(20, a) C(20 - a, e) G(S) (t - 1)^rest`,
/// where `G(S)` counts the `a`-tuples over `t + 1..=20` that sum to S.
fn keep_10_of_20d20() -> HashMap<u64, u128> {
    let mut ways: HashMap<u64, u128> = HashMap::new();
    for t in 1..=20u64 {
        // g[a][S]: ordered a-tuples of faces above t summing to S.
        let mut g: Vec<HashMap<u64, u128>> = vec![HashMap::from([(0, 1)])];
        for a in 1..10 {
            let mut next = HashMap::new();
            for (&s, &w) in &g[a - 1] {
                for f in t + 1..=20 {
                    *next.entry(s + f).or_insert(0) += w;
                }
            }
            g.push(next);
        }
        for (a, sums) in g.iter().enumerate() {
            for e in (10 - a)..=(20 - a) {
                let rest = (20 - a - e) as u32;
                let around = choose(20, a as u128)
                    * choose(20 - a as u128, e as u128)
                    * u128::from(t - 1).pow(rest);
                if around == 0 {
                    continue;
                }
                for (&s, &w) in sums {
                    *ways.entry(s + (10 - a as u64) * t).or_insert(0) += around * w;
                }
            }
        }
    }
    ways
}

#[test]
fn issue55_keep_highest_10_of_20d20_has_every_exact_fraction() {
    let ways = keep_10_of_20d20();
    let all = 20u128.pow(20);
    assert_eq!(
        ways.values().sum::<u128>(),
        all,
        "the enumerator counts every roll once"
    );
    let dir = tempdir();
    exact_only("20d20 keep highest 10", dir.path());
    let rows = fractions(dir.path());
    // Every kept sum from 10 (all ones) to 200 (ten 20s), each once.
    assert_eq!(rows.len(), 191);
    for (v, exact, fraction) in &rows {
        let w = ways[&(*v as u64)];
        let g = gcd(w, all);
        assert_eq!(*fraction, format!("{}/{}", w / g, all / g), "value {v}");
        let want = w as f64 / all as f64;
        assert!(
            (exact - want).abs() <= 1e-12 * want.max(1e-300),
            "value {v}: {exact} against {want}"
        );
    }
    // The two ends, by hand: all ones is 1 way; ten 20s and anything below is
    // sum over j >= 10 of C(20, j) 19^(20 - j).
    assert_eq!(
        rows[0],
        (10, rows[0].1, "1/104857600000000000000000000".into())
    );
    let top: u128 = (10..=20)
        .map(|j| choose(20, j) * 19u128.pow(20 - j as u32))
        .sum();
    assert_eq!(ways[&200], top);
}

#[test]
fn issue55_1000d6_writes_all_5001_values() {
    let dir = tempdir();
    // On screen every fraction is cut to its first digits and its length (the headline's
    // numbers have about 1,560 digits), as in the Markdown report; the files hold them.
    let out = rollsim()
        .args([
            "roll",
            "1000d6",
            "--exact-only",
            "--no-plots",
            "--format",
            "csv,md",
            "-o",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    // `md` prints the Markdown report after the roll's table.
    let screen = String::from_utf8(out.stdout).unwrap();
    assert!(
        screen.contains("**Mean**") || screen.contains("mean"),
        "{}",
        &screen[..500]
    );
    assert!(
        screen.lines().all(|l| l.chars().count() < 200),
        "a line past 200 characters"
    );
    assert!(screen.contains("(779 digits)"), "{}", &screen[..2000]);
    assert!(
        screen.contains("P(at least 3500) (exact): 50.3693% = "),
        "{screen}"
    );
    let rows = fractions(dir.path());
    assert_eq!(rows.len(), 5001, "every sum from 1000 to 6000");
    let of = BigUint::from(6u32).pow(1000);
    let parse = |f: &str| -> (BigUint, BigUint) {
        let (n, d) = f.split_once('/').unwrap();
        (n.parse().unwrap(), d.parse().unwrap())
    };
    let mut total = BigUint::ZERO;
    for (i, (v, _, fraction)) in rows.iter().enumerate() {
        assert_eq!(*v, 1000 + i as i64);
        let (n, d) = parse(fraction);
        assert!(n > BigUint::ZERO, "value {v} is possible: {fraction}");
        // Every denominator divides 6^1000: the ways over 6^1000 are n (6^1000 / d).
        assert_eq!(&of % &d, BigUint::ZERO, "value {v}");
        total += n * (&of / &d);
    }
    assert_eq!(total, of, "the fractions add up to exactly 1");
    // The lowest sums by stars and bars: 1000 + j (j < 6) is C(999 + j, j) of 6^1000.
    for j in 0..6u32 {
        let ways = (0..j).fold(BigUint::from(1u32), |acc, i| acc * (999 + j - i) / (i + 1));
        let (n, d) = parse(&rows[j as usize].2);
        assert_eq!(n * &of, ways * d, "value {}", 1000 + j);
    }
    // Symmetric about 3500: a sum s and 7000 - s are rolled as often.
    for i in 0..rows.len() {
        assert_eq!(rows[i].2, rows[rows.len() - 1 - i].2, "value {}", rows[i].0);
    }
    // The floats say what floats can: the middle near the normal curve's peak,
    // 1 / (sd sqrt(2 pi)) with sd^2 = 1000 * 35 / 12; the lowest sum, below any float, 0.
    let peak = 1.0 / ((1000.0f64 * 35.0 / 12.0).sqrt() * (2.0 * std::f64::consts::PI).sqrt());
    assert_eq!(rows[2500].0, 3500);
    assert!(
        (rows[2500].1 - peak).abs() < 1e-5,
        "{} against {peak}",
        rows[2500].1
    );
    assert_eq!(rows[0].1, 0.0);
}
