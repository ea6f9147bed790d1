//! Issue #70, "exact as a designer first writes it": a pool's dice that each roll dice
//! of their own for it (Lethal Hits' wounds: each hit of 3 to 5 rolls a wound die), the
//! exact law by one die's share rolled once per die, against every roll of the pool
//! walked in the test (no code shared with the library) and Monte Carlo within 4.5
//! standard errors.

use crate::first_written::{binomial, d4_sums, holds, put, Law, Q};

/// A pool whose dice each roll dice of their own for it (each die's share of a rolled
/// count at least 0: `(p count >= 5)d6`, a count of a count, a sum of d4s), every roll of
/// a pool of two kinds walked, and the dice each leads to by binomials and by every sum.
#[test]
fn a_pool_whose_dice_each_roll_their_share() {
    // Every roll of 3d6 and 2d8, in order.
    let mut rolls: Vec<Vec<i64>> = vec![vec![]];
    for sides in [6, 6, 6, 8, 8] {
        rolls = rolls
            .into_iter()
            .flat_map(|r| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    let each = Q::new(1u8, rolls.len() as u64);
    let count = |r: &[i64], hit: fn(i64) -> bool| r.iter().filter(|&&f| hit(f)).count() as u64;
    type Form<'f> = (&'static str, Box<dyn Fn(&[i64]) -> Law + 'f>);
    let forms: [Form; 3] = [
        (
            "let p = [3d6, 2d8] in (p count >= 5)d6 count 6 + p count 1",
            Box::new(|r| {
                binomial(count(r, |f| f >= 5), 1, 6)
                    .into_iter()
                    .map(|(k, q)| (k + count(r, |f| f == 1) as i64, q))
                    .collect()
            }),
        ),
        (
            "let p = [3d6, 2d8] in (p count 8 + (p count >= 6)d6 count >= 5)d4 count 4",
            Box::new(|r| {
                let mut out = Law::new();
                for (j, pj) in binomial(count(r, |f| f >= 6), 2, 6) {
                    for (k, pk) in binomial(count(r, |f| f == 8) + j as u64, 1, 4) {
                        put(&mut out, k, &pj.mul(&pk));
                    }
                }
                out
            }),
        ),
        (
            "let p = [3d6, 2d8] in p sum - 2 * (p count 1)d4",
            Box::new(|r| {
                let sum: i64 = r.iter().sum();
                d4_sums(count(r, |f| f == 1))
                    .into_iter()
                    .map(|(s, q)| (sum - 2 * s, q))
                    .collect()
            }),
        ),
    ];
    for (roll, given) in forms {
        let mut want = Law::new();
        for r in &rolls {
            for (v, q) in given(r) {
                put(&mut want, v, &each.mul(&q));
            }
        }
        holds(roll, &want);
    }
}
