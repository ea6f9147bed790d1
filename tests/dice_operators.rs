//! Operators a designer writes as other tools do, read as what they mean here:
//! `abs(x)` and `a % b`, each side rolled once. Each against every roll, and Monte Carlo
//! within the suite's tolerance.

use crate::dice_lang::{brute, compile, rolls, same, D6};
use crate::util::assert_agrees;
use std::collections::BTreeMap;

/// `abs(x)`: x rolled once, read as its size, as rulebooks write a difference of two
/// dice; against every roll, its fractions, and the sampler.
#[test]
fn abs_reads_a_value_rolled_once_as_its_size() {
    let c = compile("abs(d6 - d6)", None);
    same(&c, &brute(2, &D6, |r| (r[0] - r[1]).abs()));
    // 0 on a double (6 of 36), k apart 2 (6 - k) ways of 36.
    assert_eq!(
        c.exact_fractions
            .as_ref()
            .map(|f| f.iter().map(|f| f.to_string()).collect::<Vec<_>>()),
        Some(
            ["1/6", "5/18", "2/9", "1/6", "1/9", "1/18"]
                .map(String::from)
                .to_vec()
        ),
        "{}",
        c.description
    );
    assert_agrees(&c, &["value"], 200_000, 31);
    // A pool rolled inside: its sum once, not a die per reading; nested, and beside
    // other dice.
    same(
        &compile("abs(3d6 - 10) * 2 + abs(-2)", None),
        &brute(3, &D6, |r| (r.iter().sum::<i64>() - 10).abs() * 2 + 2),
    );
    same(
        &compile("abs(abs(d6 - 4) - d6)", None),
        &brute(2, &D6, |r| ((r[0] - 4).abs() - r[1]).abs()),
    );
    let c = compile("let p = 4d6 in abs(p count 6 - p count 1)", None);
    same(
        &c,
        &brute(4, &D6, |r| {
            let n = |f: i64| r.iter().filter(|&&v| v == f).count() as i64;
            (n(6) - n(1)).abs()
        }),
    );
    // Still a name where no `(` follows.
    same(
        &compile("let abs = d4 in abs * 2", None),
        &brute(1, &[1, 2, 3, 4], |r| r[0] * 2),
    );
}

/// `a % b`: the remainder from 0 up to the divisor (as `/` rounds down), each side
/// rolled once; against every roll, a negative side, a rolled divisor, and the sampler.
#[test]
fn a_remainder_is_taken_from_each_side_rolled_once() {
    let c = compile("3d6 % 4", None);
    same(&c, &brute(3, &D6, |r| r.iter().sum::<i64>().rem_euclid(4)));
    assert_agrees(&c, &["value"], 200_000, 37);
    same(
        &compile("(d6 - 4) % 3", None),
        &brute(1, &D6, |r| (r[0] - 4).rem_euclid(3)),
    );
    same(&compile("2d6 % d4 + 10 * (d4 % 2)", None), &{
        let mut m = BTreeMap::new();
        for r in rolls(4, &D6) {
            let (a, b, c) = (r[0] + r[1], r[2], r[3]);
            if b > 4 || c > 4 {
                continue;
            }
            *m.entry(a.rem_euclid(b) + 10 * c.rem_euclid(2))
                .or_insert(0.0) += 1.0 / (36.0 * 16.0);
        }
        m
    });
    // Binds tighter than `+`, as `*` and `/` do, and left to right among them.
    same(
        &compile("1 + 7 % 4 * 3", None),
        &BTreeMap::from([(10, 1.0)]),
    );
    same(&compile("20 % 7 % 4", None), &BTreeMap::from([(2, 1.0)]));
}
