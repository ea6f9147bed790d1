//! Issue #26, item 1: numbers from anywhere. A threshold, a keep count, a chain's depth
//! or a die's sides may be any value known before the pool is rolled (a `let`, a
//! state variable, a roll of its own). Each against a brute-force enumeration written
//! here (every value of the number, then every roll of the dice), and Monte Carlo
//! within 4.5 standard errors.

use crate::dice_lang::{brute, compile, rolls, same, D6};
use crate::util::assert_agrees;
use rollsim::config::load_str;
use std::collections::BTreeMap;

/// Mix `f(k)`'s distributions over `k` in `ks`, each with weight `1 / ks.len()`.
fn over(ks: &[i64], f: impl Fn(i64) -> BTreeMap<i64, f64>) -> BTreeMap<i64, f64> {
    let mut out = BTreeMap::new();
    for &k in ks {
        for (v, p) in f(k) {
            *out.entry(v).or_insert(0.0) += p / ks.len() as f64;
        }
    }
    out
}

fn sorted(r: &[i64]) -> Vec<i64> {
    let mut r = r.to_vec();
    r.sort_unstable();
    r
}

#[test]
fn a_threshold_from_a_let_value() {
    // A d4 says the target number; 3d6 count the dice at or above it.
    let want = over(&[1, 2, 3, 4], |w| {
        brute(3, &D6, |r| r.iter().filter(|&&x| x >= w).count() as i64)
    });
    let c = compile("let w = d4 in 3d6 count >= w", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 261);
    // By hand: at w = 1, 2, 3, 4 a die counts with 6/6, 5/6, 4/6, 3/6, so 3 dice count
    // 3, 2.5, 2 and 1.5 on average, each w with 1/4: the mean (3 + 2.5 + 2 + 1.5) / 4
    // = 2.25.
    let mean: f64 = want.iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 2.25).abs() < 1e-12, "{mean}");
}

#[test]
fn a_wound_roll_whose_target_is_worked_out_before_the_roll() {
    // Warhammer's wound roll: 4+ normally, 5+ when toughness is above strength. A d6
    // toughness against strength 3: the target is 4 + (t > 3), one line, no `if`.
    let want = over(&D6, |t| {
        let target = 4 + (t > 3) as i64;
        brute(3, &D6, |r| {
            r.iter().filter(|&&x| x >= target).count() as i64
        })
    });
    let c = compile("let t = d6 in 3d6 count >= (4 + (t > 3))", None);
    same(&c, &want);
    // By hand: half the time (t = 1, 2, 3) 4+ (1/2 a die), half 5+ (1/3): mean
    // 3 * (1/2 * 1/2 + 1/2 * 1/3) = 3 * 5/12 = 1.25.
    let mean: f64 = want.iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 1.25).abs() < 1e-12, "{mean}");
    assert_agrees(&c, &["value"], 200_000, 262);
}

#[test]
fn a_die_whose_sides_are_a_value() {
    // A step die: d4, d6 or d8 as a d3 says.
    let want = over(&[1, 2, 3], |k| {
        let sides = 2 * k + 2;
        let faces: Vec<i64> = (1..=sides).collect();
        brute(1, &faces, |r| r[0])
    });
    let c = compile("let k = d3 in d(2 * k + 2)", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 263);
    // By hand: P(1) = (1/4 + 1/6 + 1/8) / 3 = (6/24 + 4/24 + 3/24) / 3 = 13/72.
    assert!((want[&1] - 13.0 / 72.0).abs() < 1e-15);
    // Two step dice of a rolled size, summed.
    let want = over(&[1, 2], |k| {
        let faces: Vec<i64> = (1..=4 * k).collect();
        brute(2, &faces, |r| r.iter().sum())
    });
    same(&compile("2d(4 * d2)", None), &want);
    // Sides fixed at compile out of range: an error naming the range.
    let text = "system = \"dice\"\n[scenarios.s]\nroll = \"d(0)\"\n";
    let e = load_str(text, "dice.toml", &[]).err().unwrap().to_string();
    assert!(e.contains("1 to 1000 sides"), "{e}");
}

#[test]
fn a_keep_count_and_a_depth_from_values() {
    // Keep the k highest of 4d6, k from a d3.
    let want = over(&[1, 2, 3], |k| {
        brute(4, &D6, |r| sorted(r).iter().rev().take(k as usize).sum())
    });
    let c = compile("let k = d3 in 4d6 keep highest k", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 264);
    // Drop the k lowest of a pool variable read two ways.
    let want = over(&[1, 2], |k| {
        brute(3, &D6, |r| {
            let s = sorted(r);
            s[k as usize..].iter().sum::<i64>() + s.iter().filter(|&&x| x == 6).count() as i64
        })
    });
    let c = compile(
        "let k = d2 in let p = 3d6 in p drop lowest k + p count 6",
        None,
    );
    same(&c, &want);
    // An explosion chain as deep as a d2 says: a d4 exploding on 4, one or two more rolls.
    let chain = |depth: u32| {
        let mut m = BTreeMap::new();
        fn go(sum: i64, p: f64, left: u32, m: &mut BTreeMap<i64, f64>) {
            for f in 1..=4 {
                if f == 4 && left > 0 {
                    go(sum + f, p / 4.0, left - 1, m);
                } else {
                    *m.entry(sum + f).or_insert(0.0) += p / 4.0;
                }
            }
        }
        go(0, 1.0, depth, &mut m);
        m
    };
    let want = over(&[1, 2], |n| chain(n as u32));
    let c = compile("let n = d2 in d4 explode depth n", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 265);
}

#[test]
fn a_pool_variable_read_against_a_rolled_face() {
    // One 3d6 roll and one d6 target: the dice at or above it, plus the highest die.
    let mut want = BTreeMap::new();
    for r in rolls(3, &D6) {
        for w in 1..=6 {
            let v = r.iter().filter(|&&x| x >= w).count() as i64 + r.iter().max().unwrap();
            *want.entry(v).or_insert(0.0) += 1.0 / (216.0 * 6.0);
        }
    }
    let c = compile(
        "let p = 3d6 in let w = d6 in p count >= w + p highest",
        None,
    );
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 266);
    // The face read from the same pool: the dice showing at least the lowest die less 1
    // is every die; the dice above the lowest (count > p lowest).
    let want = brute(3, &D6, |r| {
        let lo = *r.iter().min().unwrap();
        r.iter().filter(|&&x| x > lo).count() as i64
    });
    same(&compile("let p = 3d6 in p count > (p lowest)", None), &want);
}

#[test]
fn a_mixed_pool_whose_count_is_rolled() {
    // [(d4)d6, 1d8]: a d4 of d6 and a d8, summed.
    let d8: Vec<i64> = (1..=8).collect();
    let want = over(&[1, 2, 3, 4], |n| {
        let mut m = BTreeMap::new();
        for (a, p) in brute(n as usize, &D6, |r| r.iter().sum()) {
            for &b in &d8 {
                *m.entry(a + b).or_insert(0.0) += p / 8.0;
            }
        }
        m
    });
    let c = compile("[(d4)d6, 1d8]", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 267);
}

#[test]
fn a_threshold_that_changes_round_by_round() {
    // A state variable as the target: hp 3, each round 2d6 count the dice at or above
    // the hit points left, each such die taking one. By hand, from hp h a round takes
    // k of 2 with P(die >= h) = (7 - h)/6: from 3 (2/3 a die) then on.
    let c = compile(
        "repeat hp = 3 until hp <= 0 do hp = hp - (2d6 count >= hp) limit 50 then rounds",
        None,
    );
    // Brute force: the chain's distribution of rounds, state by state.
    let mut alive: BTreeMap<i64, f64> = BTreeMap::from([(3, 1.0)]);
    let mut want: BTreeMap<i64, f64> = BTreeMap::new();
    for round in 0..=50 {
        let mut next = BTreeMap::new();
        for (&h, &p) in &alive {
            if h <= 0 || round == 50 {
                *want.entry(round).or_insert(0.0) += p;
                continue;
            }
            for (k, q) in brute(2, &D6, |r| r.iter().filter(|&&x| x >= h).count() as i64) {
                *next.entry(h - k).or_insert(0.0) += p * q;
            }
        }
        alive = next;
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 268);
}

#[test]
fn a_rolled_face_cannot_reroll_for_ever() {
    let text = "system = \"dice\"\n[scenarios.s]\nroll = \"let t = d6 in d6 reroll < t always\"\n";
    let e = load_str(text, "dice.toml", &[]).err().unwrap().to_string();
    assert!(e.contains("needs a face fixed before the roll"), "{e}");
    // A fixed face still rerolls always, and a rolled one once.
    let want = over(&D6, |t| {
        let mut m = BTreeMap::new();
        for f in 1..=6 {
            if f < t {
                for g in 1..=6 {
                    *m.entry(g).or_insert(0.0) += 1.0 / 36.0;
                }
            } else {
                *m.entry(f).or_insert(0.0) += 1.0 / 6.0;
            }
        }
        m
    });
    same(&compile("let t = d6 in d6 reroll < t", None), &want);
}

#[test]
fn a_pool_variable_bound_with_a_keep_holds_the_kept_dice() {
    // `let p = 4d6 keep highest 3 in ...`: p is the three kept dice (it read all four
    // before issue #26's review).
    let want = brute(4, &D6, |r| sorted(r)[1..].iter().sum());
    let c = compile("let p = 4d6 keep highest 3 in p", None);
    same(&c, &want);
    // Read two ways, and kept again from the kept dice: the second lowest of four.
    let want = brute(4, &D6, |r| {
        let s = sorted(r);
        s[1..].iter().sum::<i64>() + s[1..].iter().filter(|&&x| x == 6).count() as i64
    });
    same(
        &compile("let p = 4d6 keep highest 3 in p + p count 6", None),
        &want,
    );
    let want = brute(4, &D6, |r| sorted(r)[1]);
    let c = compile("let p = 4d6 keep highest 3 in p keep lowest 1", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 269);
}
