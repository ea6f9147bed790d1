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
    // The README's Yahtzee rows, each worked out by `yahtzee_from` below (an enumeration
    // of the rerolled dice, then the largest set kept for the last roll).
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
    let readme = crate::util::all_docs();
    for (roll, kept, shown) in [
        ("6 6 6 5 5", &[6u8, 6, 6][..], "6 6 6"),
        ("6 6 5 5 1", &[6, 6], "6 6"),
        ("6 5 4 3 2", &[6], "6"),
    ] {
        let row = format!(
            "| {roll} | {shown} | {} | {:.4} |",
            5 - kept.len(),
            yahtzee_from(kept)
        );
        assert!(text.contains(&row) && readme.contains(&row), "{row}");
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
    // From 5 4 3, keeping 5 and 4 (9) and rolling one die reaches 15 only on a 6: 1/6;
    // keeping all three (12) cannot, and rolling more dice does no better than 1/6.
    assert_eq!(format!("{:.4}", 1.0 / 6.0), "0.1667");
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
        (
            "reroll p = 5d6 explode to maximise p sum",
            "explodes or rerolls",
        ),
        (
            "reroll p = 5d6 reroll 1 to maximise p sum",
            "explodes or rerolls",
        ),
        (
            "reroll p = 5d6 to maximise p sum + d6",
            "no dice of its own",
        ),
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

/// Every ordered roll of dice with these sides, by brute force: the faces and sides of
/// each die.
fn mixed_rolls(sides: &[i64]) -> Vec<Vec<(i64, i64)>> {
    let mut out = vec![Vec::new()];
    for &s in sides {
        out = out
            .into_iter()
            .flat_map(|r: Vec<(i64, i64)>| {
                (1..=s).map(move |f| {
                    let mut r = r.clone();
                    r.push((f, s));
                    r
                })
            })
            .collect();
    }
    out
}

/// Cortex by brute force: the dice not showing 1, every pair (or fewer, when fewer are
/// left) for the total and every die left for the effect; the best by `score`, then
/// `read` of (total, the effect die's sides or 0), weighted over every roll.
fn cortex(
    sides: &[i64],
    score: &dyn Fn(i64, i64) -> i64,
    read: &dyn Fn(i64, i64) -> (i64, i64),
) -> BTreeMap<(i64, i64), f64> {
    let all = mixed_rolls(sides);
    let w = 1.0 / all.len() as f64;
    let mut out = BTreeMap::new();
    for roll in &all {
        let ok: Vec<(i64, i64)> = roll.iter().copied().filter(|d| d.0 >= 2).collect();
        let n = ok.len();
        let mut best: Option<(i64, (i64, i64))> = None;
        let mut consider = |total: i64, effect: i64| {
            let s = score(total, effect);
            if best.is_none_or(|b| s > b.0) {
                best = Some((s, read(total, effect)));
            }
        };
        let pairs: Vec<Vec<usize>> = match n {
            0 => vec![vec![]],
            1 => vec![vec![0]],
            _ => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| vec![i, j]))
                .collect(),
        };
        for pair in pairs {
            let total: i64 = pair.iter().map(|&i| ok[i].0).sum();
            let rest: Vec<usize> = (0..n).filter(|i| !pair.contains(i)).collect();
            if rest.is_empty() {
                consider(total, 0);
            }
            for e in rest {
                consider(total, ok[e].1);
            }
        }
        *out.entry(best.unwrap().1).or_insert(0.0) += w;
    }
    out
}

/// The exact marginal of a record's field.
fn marginal(c: &rollsim::model::Compiled, name: &str) -> BTreeMap<i64, f64> {
    let m = c.metrics.iter().find(|m| m.name == name).unwrap();
    let mut out = BTreeMap::new();
    for (v, q) in m.project_f64(c.exact.as_ref().unwrap()).iter().enumerate() {
        if *q > 1e-15 {
            out.insert(m.value(v) as i64, *q);
        }
    }
    out
}

fn check_marginals(c: &rollsim::model::Compiled, want: &BTreeMap<(i64, i64), f64>) {
    for (field, pick) in [("total", 0), ("effect", 1)] {
        let mut w: BTreeMap<i64, f64> = BTreeMap::new();
        for (k, p) in want {
            *w.entry(if pick == 0 { k.0 } else { k.1 }).or_insert(0.0) += p;
        }
        let got = marginal(c, field);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            w.keys().collect::<Vec<_>>(),
            "{field}"
        );
        for (k, p) in &w {
            assert!((got[k] - p).abs() < 1e-12, "{field} {k}: {} {p}", got[k]);
        }
    }
}

#[test]
fn cortex_picks_the_total_and_the_effect_die_against_every_roll() {
    // The usual play: the highest total, then the largest effect die (d4 when none).
    let sides = [10, 8, 8, 6];
    let want = cortex(&sides, &|t, e| t * 100 + e, &|t, e| (t, e.max(4)));
    let c = compile(
        "choose total = 2, effect = 1 from [1d10, 2d8, 1d6] only >= 2 \
         to maximise total sum * 100 + effect sides \
         in { total = total sum, effect = max(effect sides, 4) }",
        None,
    );
    check_marginals(&c, &want);
    assert_agrees(&c, &["total", "effect"], 200_000, 2616);
    // By hand: every die shows 1 on 1 roll in 3840, and then there is no total.
    assert!((marginal(&c, "total")[&0] - 1.0 / 3840.0).abs() < 1e-15);
    // Against a difficulty of 10, the effect die first once the total makes it: a
    // d10 kept for the effect when two others still make 10.
    let want = cortex(&sides, &|t, e| (t >= 10) as i64 * 100 + e, &|t, e| {
        ((t >= 10) as i64, e.max(4))
    });
    let c = compile(
        "choose total = 2, effect = 1 from [1d10, 2d8, 1d6] only >= 2 \
         to maximise (total sum >= 10) * 100 + effect sides \
         in { total = total sum >= 10, effect = max(effect sides, 4) }",
        None,
    );
    check_marginals(&c, &want);
    assert_agrees(&c, &["total", "effect"], 200_000, 2617);
    // Played this way the effect die is larger on average than under the usual play.
    let mean = |m: &BTreeMap<i64, f64>| m.iter().map(|(v, p)| *v as f64 * p).sum::<f64>();
    let usual = compile(
        "choose total = 2, effect = 1 from [1d10, 2d8, 1d6] only >= 2 \
         to maximise total sum * 100 + effect sides in max(effect sides, 4)",
        None,
    );
    assert!(mean(&marginal(&c, "effect")) > mean(&crate::dice_lang::dist(&usual)));
}

#[test]
fn picks_that_cannot_be_made_say_why() {
    for (roll, says) in [
        (
            "choose t = 2 from 3d6 to maximise t sum + d6",
            "only the dice chosen",
        ),
        (
            "let x = d6 in choose t = 2 from 3d6 to maximise t sum + x",
            "only the dice chosen",
        ),
        (
            "let p = 3d6 in p sides",
            "only the dice a `choose` hands out",
        ),
        (
            "choose t = 2 from 3d6 explode to maximise t sum",
            "plain dice",
        ),
        (
            "choose t = 2 from 13d6 to maximise t sum",
            "at most 12 dice",
        ),
        (
            "choose a = 1, b = 1, c = 1, d = 1 from 5d6 to maximise a sum",
            "at most 3 roles",
        ),
        (
            "choose a = 1, a = 1 from 5d6 to maximise a sum",
            "chosen twice",
        ),
        ("choose t = 0 from 5d6 to maximise t sum", "1 to 12"),
        ("choose t = 2 from 3 to maximise t sum", "takes dice"),
        (
            "choose t = 2 form 3d6 to maximise t sum",
            "did you mean `from`?",
        ),
        (
            "reroll p = 5d6 to maximse p sum",
            "did you mean `maximise`?",
        ),
        (
            "reroll p = 5d6 twice ot maximise p sum",
            "did you mean `to`?",
        ),
        (
            "choose a = 5, b = 5, c = 2 from [4d6, 4d8, 4d10] to maximise a sum",
            "16632 ways on one roll",
        ),
        (
            "choose t = 2 from 3d6 to maximise t count >= (d6)",
            "a rolled number has no fixed count",
        ),
    ] {
        let e = load_err(roll);
        assert!(e.contains(says), "{roll}: {e}");
    }
}

#[test]
fn roles_short_of_dice_read_what_they_hold() {
    // A role asks for more dice than there are: a keep keeps what there is (it used to
    // slice past the end), by hand from one or two d6.
    let c = compile("choose a = 3 from 1d6 to maximise a keep highest 2", None);
    assert!((exact_mean(&c) - 3.5).abs() < 1e-12);
    assert_agrees(&c, &["value"], 100_000, 2618);
    let c = compile(
        "choose a = 3 from 2d6 to maximise a sum in a keep lowest 3",
        None,
    );
    assert!((exact_mean(&c) - 7.0).abs() < 1e-12);
    // Cortex read by the total's higher die: when every die is a hitch the total holds
    // none (1 roll in 3840), which reads 0; both engines agree.
    let c = compile(
        "choose total = 2, effect = 1 from [1d10, 2d8, 1d6] only >= 2 \
         to maximise total sum * 100 + effect sides in total keep highest 1",
        None,
    );
    assert_agrees(&c, &["value"], 100_000, 2619);
    // `count min` and `count max` go by the pool's own faces, not the 0 the bounds add.
    let c = compile(
        "choose a = 1 from 2d6 to minimise a sum in a count min",
        None,
    );
    assert!((exact_mean(&c) - 11.0 / 36.0).abs() < 1e-12);
    let c = compile(
        "choose a = 1 from 2d{-3,-2,-1} to maximise a sum in a count max",
        None,
    );
    assert!((exact_mean(&c) - 5.0 / 9.0).abs() < 1e-12);
    // Minimising an objective that reaches the lowest number there is still prefers
    // it: a die of 4 or more is taken when there is one (the lower of two such, as
    // the sorted dice meet them first), else the lower die. By hand: both 4+ (9/36)
    // the lower of two of 4..6, 41/9; one (18/36) it, 5; none (9/36) the lower of two
    // of 1..3, 14/9: (41 + 90 + 14) / 36.
    let c = compile(
        "choose a = 1 from 2d6 to minimise (a sum >= 4) * \
         (0 - 1000000 * 1000000 * 1000000 * 1000000 - 1) in a sum",
        None,
    );
    assert!((exact_mean(&c) - 145.0 / 36.0).abs() < 1e-12);
    // A drop has no fixed count to go by.
    let e = load_err("choose a = 3 from 2d6 to maximise a sum in a drop lowest 1");
    assert!(e.contains("read it with `keep`"), "{e}");
}

/// P(five of a kind) keeping `kept` and rerolling the other dice once more, then keeping
/// the largest set for the last roll (with one roll left, the largest set is best: it
/// needs (1/6)^(dice missing)). Worked by enumerating the rerolled dice, apart from the
/// library. Keeping three 6s: 1/36 + 10/36 x 1/6 + 25/36 x 1/36 = 121/1296 = 0.0934.
fn yahtzee_from(kept: &[u8]) -> f64 {
    let n = 5 - kept.len() as u32;
    let mut total = 0.0;
    for code in 0..6usize.pow(n) {
        let mut counts = [0i32; 7];
        for &k in kept {
            counts[k as usize] += 1;
        }
        let mut c = code;
        for _ in 0..n {
            counts[c % 6 + 1] += 1;
            c /= 6;
        }
        let best = *counts.iter().max().unwrap();
        total += (1.0f64 / 6.0).powi(5 - best);
    }
    total / 6f64.powi(n as i32)
}
