//! Issue #26, item 5: choices after a roll. `reroll p = DICE (twice | N times)? to
//! maximise|minimise OBJECTIVE (in BODY)?` rolls the dice, then rerolls the ones whose
//! rerolling does best for the objective's mean. Each case against a brute force
//! written here: every roll in order, every set of positions kept, every reroll in
//! order, recursively for the rerolls still to come (nothing shared with the library's
//! multisets); Monte Carlo, which plays the policy on dice it rolls, within 4.5
//! standard errors; and the policy table against choices worked out by hand.

use crate::dice_lang::{compile, load_err, rolls, same};
use crate::util::assert_agrees;
use std::collections::BTreeMap;

const D4: [i64; 4] = [1, 2, 3, 4];

/// The best play of `dice` with `left` rerolls to come, by brute force: the
/// objective's mean, and the body's distribution at the end under that play. Ties keep
/// more dice; a tie between two sets of the same size whose bodies differ is refused
/// (the case would not say which play it tests).
fn best(
    dice: &[i64],
    left: u32,
    faces: &[i64],
    sign: f64,
    objective: &dyn Fn(&[i64]) -> f64,
    body: &dyn Fn(&[i64]) -> i64,
) -> (f64, BTreeMap<i64, f64>) {
    if left == 0 {
        return (sign * objective(dice), BTreeMap::from([(body(dice), 1.0)]));
    }
    let n = dice.len();
    let mut options: Vec<(f64, u32, BTreeMap<i64, f64>)> = Vec::new();
    for mask in 0u32..(1 << n) {
        let kept: Vec<i64> = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| dice[i])
            .collect();
        let redo = rolls(n - kept.len(), faces);
        let w = 1.0 / redo.len() as f64;
        let (mut v, mut d) = (0.0, BTreeMap::new());
        for r in &redo {
            let mut all = kept.clone();
            all.extend(r);
            let (rv, rd) = best(&all, left - 1, faces, sign, objective, body);
            v += w * rv;
            for (k, p) in rd {
                *d.entry(k).or_insert(0.0) += w * p;
            }
        }
        options.push((v, kept.len() as u32, d));
    }
    let top = options.iter().map(|o| o.0).fold(f64::MIN, f64::max);
    let tied: Vec<_> = options.iter().filter(|o| o.0 >= top - 1e-12).collect();
    let most = tied.iter().map(|o| o.1).max().unwrap();
    let chosen: Vec<_> = tied.iter().filter(|o| o.1 == most).collect();
    for o in &chosen {
        for (k, p) in &o.2 {
            let q = chosen[0].2.get(k).copied().unwrap_or(0.0);
            assert!((p - q).abs() < 1e-12, "an ambiguous tie at {dice:?}");
        }
    }
    (top, chosen[0].2.clone())
}

/// Over every first roll of `n` dice: the best mean and the body's distribution.
fn brute(
    n: usize,
    faces: &[i64],
    rerolls: u32,
    sign: f64,
    objective: &dyn Fn(&[i64]) -> f64,
    body: &dyn Fn(&[i64]) -> i64,
) -> (f64, BTreeMap<i64, f64>) {
    let all = rolls(n, faces);
    let w = 1.0 / all.len() as f64;
    let (mut v, mut d) = (0.0, BTreeMap::new());
    for r in &all {
        let (rv, rd) = best(r, rerolls, faces, sign, objective, body);
        v += w * rv;
        for (k, p) in rd {
            *d.entry(k).or_insert(0.0) += w * p;
        }
    }
    (sign * v, d)
}

fn sum(r: &[i64]) -> i64 {
    r.iter().sum()
}

fn exact_mean(c: &rollsim::model::Compiled) -> f64 {
    crate::dice_lang::dist(c)
        .iter()
        .map(|(v, p)| *v as f64 * p)
        .sum()
}

#[test]
fn one_reroll_for_a_target_sum_against_every_play() {
    // 3d4, one reroll, to reach 10: the chance under the best play, and by hand the
    // chance of a roll that needs nothing, 4 4 2 and better: 10/64 of them.
    let (p, want) = brute(3, &D4, 1, 1.0, &|r| (sum(r) >= 10) as i64 as f64, &|r| {
        (sum(r) >= 10) as i64
    });
    let c = compile("reroll p = 3d4 to maximise p sum >= 10", None);
    same(&c, &want);
    assert!((exact_mean(&c) - p).abs() < 1e-12);
    assert!(p > 10.0 / 64.0 && p < 1.0);
    assert_agrees(&c, &["value"], 200_000, 2611);
}

#[test]
fn two_rerolls_for_the_sum_both_ways() {
    // The whole distribution of the sum under the best play, maximised and minimised.
    for (goal, sign) in [("maximise", 1.0), ("minimise", -1.0)] {
        let (mean, want) = brute(3, &D4, 2, sign, &|r| sum(r) as f64, &sum);
        let c = compile(&format!("reroll p = 3d4 twice to {goal} p sum"), None);
        same(&c, &want);
        assert!((exact_mean(&c) - mean).abs() < 1e-12, "{goal}");
        assert_agrees(&c, &["value"], 200_000, 2612);
    }
    // By hand, one die: with one reroll a d4 keeps 3 and 4 (above the 2.5 a reroll
    // makes): 1/2 * 3.5 + 1/2 * 2.5 = 3; with two, it keeps 3 and up again (a tie with
    // the 3 a reroll now makes keeps the die): 1/2 * 3.5 + 1/2 * 3 = 3.25.
    let c = compile("reroll p = 1d4 twice to maximise p sum", None);
    assert!((exact_mean(&c) - 3.25).abs() < 1e-12);
}

#[test]
fn an_objective_and_a_body_read_apart() {
    // Reroll for two or more 4s; read the sum the play leaves.
    let (_, want) = brute(
        3,
        &D4,
        1,
        1.0,
        &|r| (r.iter().filter(|&&x| x == 4).count() >= 2) as i64 as f64,
        &sum,
    );
    let c = compile("reroll p = 3d4 to maximise p count 4 >= 2 in p sum", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2613);
}

#[test]
fn a_record_and_a_yahtzee() {
    // A record in the body: each field is read at the same end of the same play.
    let c = compile(
        "reroll p = 2d4 to maximise p sum in { total = p sum, fours = p count 4 }",
        None,
    );
    let (mean, _) = brute(2, &D4, 1, 1.0, &|r| sum(r) as f64, &sum);
    let m = c
        .metrics
        .iter()
        .find(|m| m.name == "total")
        .expect("a total");
    let total: f64 = m
        .project_f64(c.exact.as_ref().unwrap())
        .iter()
        .enumerate()
        .map(|(v, p)| m.value(v) * p)
        .sum();
    assert!((total - mean).abs() < 1e-12, "{total} against {mean}");
    assert_agrees(&c, &["total", "fours"], 200_000, 2614);
    // Five of a kind in three rolls of 5d6, played for it alone: the known 4.60%
    // (2,783,176 / 60,466,176 = 0.046029).
    let c = compile("reroll p = 5d6 twice to maximise p maxset == 5", None);
    let p = crate::dice_lang::dist(&c)[&1];
    assert!((p - 2_783_176.0 / 60_466_176.0).abs() < 1e-9, "{p}");
    assert_agrees(&c, &["value"], 200_000, 2615);
}

#[test]
fn the_policy_is_printed_with_ties_keeping_more_dice() {
    let out = assert_cmd::Command::cargo_bin("rollsim")
        .unwrap()
        .args([
            "roll",
            "reroll p = 3d6 to maximise p sum >= 15",
            "--exact-only",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // 5 4 3: keeping 5 4 needs a 6 (1/6), keeping the 5 needs 10 on 2d6 (6/36): a
    // tie, which keeps more dice. 4 4 4 (12) keeps nothing: 3d6 make 15 with 20/216,
    // a 4 and 2d6 making 11 only 3/36. 6 6 3 has 15 already.
    for row in [
        "| 5 4 3 | 5 4 | 1 | 0.1667 |",
        "| 4 4 4 | nothing | 3 | 0.0926 |",
        "| 6 6 3 | 6 6 3 | none | 1.0000 |",
    ] {
        assert!(text.contains(row), "{row} not in\n{text}");
    }
    // The README's Yahtzee rows.
    let out = assert_cmd::Command::cargo_bin("rollsim")
        .unwrap()
        .args([
            "roll",
            "reroll p = 5d6 twice to maximise p maxset == 5",
            "--exact-only",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let readme = std::fs::read_to_string(crate::util::root().join("README.md")).unwrap();
    for row in [
        "| 6 6 6 5 5 | 6 6 6 | 2 | 0.0934 |",
        "| 6 6 5 5 1 | 6 6 | 3 | 0.0291 |",
        "| 6 5 4 3 2 | 6 | 4 | 0.0126 |",
    ] {
        assert!(text.contains(row) && readme.contains(row), "{row}");
    }
    // And beside the charts of a run.
    let dir = crate::util::tempdir();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[scenarios.push]\nroll = \"reroll p = 3d6 to maximise p sum >= 15\"\n",
    )
    .unwrap();
    let out = assert_cmd::Command::cargo_bin("rollsim")
        .unwrap()
        .args(["run", "-q", "-n", "2000", "--no-plots", "-o"])
        .arg(dir.path().join("out"))
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let policy = std::fs::read_to_string(dir.path().join("out/push/choice.md")).unwrap();
    assert!(policy.contains("| 5 4 3 | 5 4 | 1 | 0.1667 |"), "{policy}");
}

#[test]
fn choices_that_cannot_be_made_say_why() {
    for (roll, says) in [
        (
            "let t = d4 in reroll p = 5d6 to maximise p count >= t",
            "may read only `p`",
        ),
        (
            "reroll p = 5d6 keep highest 3 to maximise p sum",
            "one kind of die",
        ),
        ("reroll p = [1d6, 1d8] to maximise p sum", "one kind of die"),
        ("reroll p = 13d6 to maximise p sum", "1 to 12 dice"),
        ("reroll p = 5d6 explode to maximise p sum", "exploding"),
        ("reroll p = 5d6 0 times to maximise p sum", "1 to 5 times"),
        ("reroll p = 5d6 to maximize", "expected"),
        (
            "reroll p = 5d6 to improve p sum",
            "`maximise` or `minimise`",
        ),
        ("reroll p = 3 to maximise p", "bind dice"),
        (
            "reroll p = 10d20 to maximise p sum",
            "a choice goes through at most",
        ),
    ] {
        let e = load_err(roll);
        assert!(e.contains(says), "{roll}: {e}");
    }
}
