//! Issue #26, item 4: face to face both ways. `cancel`, `beats` and `pairs` hand back
//! the first side's dice left (read by `highest`, `sum`, ...), take pool variables (one
//! roll set against the other in both directions, Infinity's face to face) and `only`
//! (the dice that take part: the successes). Each against a brute-force enumeration of
//! every roll written here, and Monte Carlo within 4.5 standard errors.

use crate::dice_lang::{compile, rolls, same, D6};
use crate::util::assert_agrees;
use std::collections::BTreeMap;

/// The first pool's dice left when each die of the second cancels one showing the same
/// face, by hand: remove matches one at a time.
fn cancelled(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut left = a.to_vec();
    for y in b {
        if let Some(i) = left.iter().position(|x| x == y) {
            left.remove(i);
        }
    }
    left
}

/// Infinity's face to face: each side's successes (at most its target) that are above
/// the other side's best success (equal rolls cancel each other).
fn survivors(mine: &[i64], my_target: i64, theirs: &[i64], their_target: i64) -> i64 {
    let best = theirs.iter().filter(|&&x| x <= their_target).max().copied();
    mine.iter()
        .filter(|&&x| x <= my_target && best.is_none_or(|b| x > b))
        .count() as i64
}

#[test]
fn cancel_hands_back_the_dice_left() {
    // Neon City Overdrive: the highest die left after the danger dice cancel.
    let mut want = BTreeMap::new();
    for a in rolls(3, &D6) {
        for b in rolls(2, &D6) {
            let v = cancelled(&a, &b).into_iter().max().unwrap_or(0);
            *want.entry(v).or_insert(0.0) += 1.0 / (216.0 * 36.0);
        }
    }
    let c = compile("cancel(3d6, 2d6) highest", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2621);
    // Without a read, still the count (as before): P(3 left) = P(no die of the second
    // matches) by the same enumeration.
    let mut want = BTreeMap::new();
    for a in rolls(3, &D6) {
        for b in rolls(2, &D6) {
            *want.entry(cancelled(&a, &b).len() as i64).or_insert(0.0) += 1.0 / (216.0 * 36.0);
        }
    }
    same(&compile("cancel(3d6, 2d6)", None), &want);
}

#[test]
fn the_pairs_and_dice_that_win_are_read() {
    // RISK: the sum of the attacker's dice that win their pair.
    let mut want = BTreeMap::new();
    for a in rolls(3, &D6) {
        for b in rolls(2, &D6) {
            let (mut x, mut y) = (a.clone(), b.clone());
            x.sort_unstable_by(|p, q| q.cmp(p));
            y.sort_unstable_by(|p, q| q.cmp(p));
            let v: i64 = x
                .iter()
                .zip(&y)
                .filter(|(p, q)| p > q)
                .map(|(p, _)| p)
                .sum();
            *want.entry(v).or_insert(0.0) += 1.0 / (216.0 * 36.0);
        }
    }
    let c = compile("pairs(3d6, 2d6) sum", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 2622);
}

#[test]
fn infinity_face_to_face_both_ways_from_one_roll() {
    // 2d20 at 13 against 1d20 at 12: both sides' surviving successes, from the same dice.
    let d20: Vec<i64> = (1..=20).collect();
    let mut want = BTreeMap::new();
    for a in rolls(2, &d20) {
        for b in rolls(1, &d20) {
            let k = (survivors(&a, 13, &b, 12), survivors(&b, 12, &a, 13));
            *want.entry(k).or_insert(0.0) += 1.0 / 8000.0;
        }
    }
    let c = compile(
        "let a = 2d20 in let b = 1d20 in { active = beats(a only <= 13, b only <= 12), reactive = beats(b only <= 12, a only <= 13) }",
        None,
    );
    let e = c.exact.as_ref().unwrap();
    let (ma, mb) = (&c.metrics[0], &c.metrics[1]);
    let mut got = BTreeMap::new();
    for (s, p) in e.iter().enumerate() {
        if *p > 1e-15 {
            let k = (
                ma.value(ma.map[s] as usize) as i64,
                mb.value(mb.map[s] as usize) as i64,
            );
            *got.entry(k).or_insert(0.0) += p;
        }
    }
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, p) in &want {
        assert!((got[k] - p).abs() < 1e-12, "{k:?}: {} want {p}", got[k]);
    }
    // Both sides never both succeed: one success cancels the other's lower ones.
    assert!(!want.keys().any(|(a, b)| *a > 0 && *b > 0));
    assert_agrees(&c, &["active", "reactive"], 300_000, 2623);
}

#[test]
fn face_to_face_mistakes_are_named() {
    let err = crate::dice_lang::load_err;
    let e = err("let x = d6 + 1 in beats(x, 2d6)");
    assert!(e.contains("`x` is a number"), "{e}");
    let e = err("let t = d6 in beats(2d6 only <= t, 2d6)");
    assert!(
        e.contains("`only` takes a face fixed before the roll"),
        "{e}"
    );
    let e = err("beats(3d6 count 6, 2d6)");
    assert!(
        e.contains("set two pools of dice (or pool variables)"),
        "{e}"
    );
}
