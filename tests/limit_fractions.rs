//! Issue #70, "no fraction read off a float": a `repeat`, an explosion and `again` carry integer
//! weights, so a chain stopped at its limit prints the limit's own fraction, and an
//! explosion's fraction is counted, not guessed. Each fraction is checked against big
//! integers counted here by a method of the test's own (a closed form worked by hand, or
//! every sequence of rolls walked), no code shared with the library.

use crate::util::{big_gcd as gcd, rollsim, tempdir};
use num_bigint::BigUint;
use std::collections::BTreeMap;
use std::path::Path;

/// `value -> exact_fraction` of a roll's `distribution.csv`, run exact only.
fn fractions(roll: &str) -> BTreeMap<i64, String> {
    let dir = tempdir();
    let out = dir.path().join("r");
    rollsim()
        .args(["roll", roll, "--exact-only", "--no-plots", "-o"])
        .arg(&out)
        .assert()
        .success();
    read(&out)
}

fn read(dir: &Path) -> BTreeMap<i64, String> {
    let t = std::fs::read_to_string(dir.join("distribution.csv")).unwrap();
    let mut lines = t.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (v, f) = (at("value"), at("exact_fraction"));
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[v].parse().unwrap(), cells[f].to_string())
        })
        .collect()
}

/// `n/d` in lowest terms, as the tables write it.
fn lowest(n: &BigUint, d: &BigUint) -> String {
    let g = gcd(n, d);
    format!("{}/{}", n / &g, d / &g)
}

fn pow(b: u32, e: u32) -> BigUint {
    BigUint::from(b).pow(e)
}

/// Throws of a d6 until a 5 or 6, at most 100: the parity of the throws taken. Without
/// the limit the odd count is 3/5 exactly; the limit takes (3/5)(4/9)^50 from it, about
/// 1.4e-18, far below a float's last digit at 0.6, so a fraction read off the floats is
/// 3/5. The limit's own value, by hand: the odd counts 1, 3, ..., 99 each
/// (2/3)^(k-1)/3, summing to (3/5)(1 - (4/9)^50) = 3 (9^50 - 4^50) / (5 · 9^50).
#[test]
fn a_reroll_until_chain_stopped_at_its_limit_prints_the_limits_own_fraction() {
    let f = fractions(
        "repeat n = 0, hit = 0 until hit do let r = d6 in n = n + 1, hit = r >= 5 \
         limit 100 then n - n / 2 * 2",
    );
    let odd_n = BigUint::from(3u8) * (pow(9, 50) - pow(4, 50));
    let odd_d = BigUint::from(5u8) * pow(9, 50);
    let even_n = &odd_d - &odd_n;
    assert_eq!(f[&1], lowest(&odd_n, &odd_d));
    assert_eq!(f[&0], lowest(&even_n, &odd_d));
    assert_ne!(
        f[&1], "3/5",
        "the unlimited chain's fraction, read off a float"
    );
}

/// Every way `rounds` d20 death saves can go, walked roll by roll: 3 successes (10 to
/// 19) or 3 failures (under 10, a 1 two) end it, a 20 gets back up. Ways over 20^5 (at
/// most five rolls), for each end: 2 up, 1 stable, 0 dead.
fn death_saves() -> BTreeMap<i64, BigUint> {
    fn walk(s: u32, f: u32, rolls: u32, out: &mut BTreeMap<i64, BigUint>) {
        let end = if s >= 3 {
            Some(1)
        } else if f >= 3 {
            Some(0)
        } else {
            None
        };
        if let Some(e) = end {
            *out.entry(e).or_default() += pow(20, 5 - rolls);
            return;
        }
        for r in 1..=20u32 {
            if r == 20 {
                *out.entry(2).or_default() += pow(20, 5 - rolls - 1);
            } else if r >= 10 {
                walk(s + 1, f, rolls + 1, out);
            } else {
                walk(s, f + 1 + u32::from(r == 1), rolls + 1, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(0, 0, 0, &mut out);
    out
}

/// A `repeat` that always ends before its limit: its fractions by integer weights equal
/// every sequence of rolls counted.
#[test]
fn death_saving_throws_have_the_fractions_of_every_sequence_of_rolls() {
    let f = fractions(
        "repeat s = 0, f = 0, up = 0 until s >= 3 or f >= 3 or up do let r = d20 in \
         s = s + (r >= 10 and r < 20), f = f + (r < 10) + (r == 1), up = r == 20 \
         then if up then 2 else if s >= 3 then 1 else 0",
    );
    let den = pow(20, 5);
    let want = death_saves();
    assert_eq!(want.values().sum::<BigUint>(), den);
    for (v, ways) in &want {
        assert_eq!(f[v], lowest(ways, &den), "value {v}");
    }
}

/// Ways of each total of one d`sides` exploding on its top face, at most `depth` extra
/// rolls (the last stands as it falls), over sides^(depth + 1), every chain walked.
fn exploding(sides: u32, depth: u32) -> BTreeMap<i64, BigUint> {
    fn walk(sides: u32, left: u32, sum: i64, out: &mut BTreeMap<i64, BigUint>) {
        for f in 1..=sides {
            if f == sides && left > 0 {
                walk(sides, left - 1, sum + f as i64, out);
            } else {
                *out.entry(sum + f as i64).or_default() += pow(sides, left);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(sides, depth, 0, &mut out);
    out
}

/// An exploding die's fractions over 6^21 (past what a float's fraction is read to)
/// and two exploding dice summed: counted chain by chain.
#[test]
fn an_explosion_prints_the_fraction_of_every_chain() {
    let one = exploding(6, 20);
    let den = pow(6, 21);
    let f = fractions("d6 explode");
    for v in [1, 5, 6 + 6 + 3, 20 * 6 + 4, 21 * 6] {
        assert_eq!(f[&v], lowest(&one[&v], &den), "value {v}");
    }
    let small = exploding(4, 3);
    let mut two: BTreeMap<i64, BigUint> = BTreeMap::new();
    for (a, x) in &small {
        for (b, y) in &small {
            *two.entry(a + b).or_default() += x * y;
        }
    }
    let den = pow(4, 8);
    let f = fractions("d4 explode depth 3 + d4 explode depth 3");
    assert_eq!(f.len(), two.len());
    for (v, ways) in &two {
        assert_eq!(f[v], lowest(ways, &den), "value {v}");
    }
}

/// The fighter against the orc of the dice examples, to the end or 100 rounds: each
/// round the fighter hits on 8+ of a d20 (13 faces) for a d8 and the orc on 13+ (8
/// faces) for a d10. Walked here state by state over every round's 32,000 ways (a
/// denominator of 32000^100), each side's hits and damage as the rules give them; the
/// value is who is left standing, 0 for both or neither. The law had no fraction for it
/// (every state's 99 joint outcomes passed its budget); each side's update read alone
/// moves a state's ways 20 times a round.
#[test]
fn a_duel_to_the_end_has_the_fraction_of_every_round() {
    let f = fractions(
        "repeat me = 12, foe = 15 until me <= 0 or foe <= 0 \
         do foe = foe - (d20 + 5 >= 13) * d8, me = me - (d20 + 3 >= 16) * d10 \
         then (me > 0) - (foe > 0)",
    );
    // What one side takes a round, of 160 (the fighter's blow) and 200 (the orc's).
    let foe_loses: Vec<(i64, u32)> = std::iter::once((0, 7 * 8))
        .chain((1..=8).map(|d| (d, 13)))
        .collect();
    let me_loses: Vec<(i64, u32)> = std::iter::once((0, 12 * 10))
        .chain((1..=10).map(|d| (d, 8)))
        .collect();
    // Every state's ways over 32000^round; what stopped, over 32000^100.
    let mut states: BTreeMap<(i64, i64), BigUint> = BTreeMap::from([((12, 15), 1u8.into())]);
    let mut ended: BTreeMap<i64, BigUint> = BTreeMap::new();
    for round in 0..=100u32 {
        let mut next: BTreeMap<(i64, i64), BigUint> = BTreeMap::new();
        for ((me, foe), w) in states {
            if me <= 0 || foe <= 0 || round == 100 {
                let v = i64::from(me > 0) - i64::from(foe > 0);
                *ended.entry(v).or_default() += w * pow(32000, 100 - round);
                continue;
            }
            for &(a, wa) in &foe_loses {
                for &(b, wb) in &me_loses {
                    *next.entry((me - b, foe - a)).or_default() += &w * (wa * wb);
                }
            }
        }
        states = next;
    }
    let den = pow(32000, 100);
    assert_eq!(f.len(), 3);
    for (v, ways) in &ended {
        assert_eq!(f[v], lowest(ways, &den), "value {v}");
    }
}

/// A pool variable with `again` read two ways: three d6, each 6 adding a die, at most
/// two added per die (`depth 2`), read as its 5s and 6s less its 1s. Every sequence of
/// rolls of the three chains walked here, each chain's end weighed over 6^3 (a chain
/// that stops early stands for the rolls it did not make), the reads counted as the
/// rules say: every die of the pool, the added ones too.
#[test]
fn a_pool_with_again_read_two_ways_has_the_fraction_of_every_roll() {
    /// (5s and 6s, 1s) of one chain -> ways over 6^(depth + 1).
    fn chain(left: u32, high: i64, ones: i64, out: &mut BTreeMap<(i64, i64), BigUint>) {
        for f in 1..=6 {
            let (h, o) = (high + (f >= 5) as i64, ones + (f == 1) as i64);
            if f == 6 && left > 0 {
                chain(left - 1, h, o, out);
            } else {
                *out.entry((h, o)).or_default() += pow(6, left);
            }
        }
    }
    let mut one = BTreeMap::new();
    chain(2, 0, 0, &mut one);
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    for (a, x) in &one {
        for (b, y) in &one {
            for (c, z) in &one {
                let v = (a.0 + b.0 + c.0) - (a.1 + b.1 + c.1);
                *ways.entry(v).or_default() += x * y * z;
            }
        }
    }
    let den = pow(6, 9);
    let f = fractions("let p = 3d6 again 6 depth 2 in p count >= 5 - p count 1");
    assert_eq!(f.len(), ways.len());
    for (v, w) in &ways {
        assert_eq!(f[v], lowest(w, &den), "value {v}");
    }
}

/// Exact values without their fractions say so, on stderr and in the notes, and only
/// then: a fight of 1,000 rounds at most, whose rounds' denominators pass the integer
/// count's budget (its values are exact, its fraction column empty); 3d6, which has
/// them, says nothing.
#[test]
fn exact_values_without_fractions_say_so() {
    let dir = tempdir();
    let firefight = "repeat a = 10, b = 10 until a <= 0 or b <= 0 do \
        let x = (a)d6 count >= 4 in let y = (b)d6 count >= 5 in a = a - y, b = b - x \
        limit 1000 then a - b";
    let said = |roll: &str, out: &str| {
        let a = rollsim()
            .args(["roll", roll, "--exact-only", "--no-plots", "-o"])
            .arg(dir.path().join(out))
            .assert()
            .success();
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        (
            err.contains("carry no fraction"),
            read(&dir.path().join(out)),
        )
    };
    let (warned, rows) = said(firefight, "f");
    assert!(
        warned && !rows.is_empty() && rows.values().all(String::is_empty),
        "{rows:?}"
    );
    let (warned, rows) = said("3d6", "d");
    assert!(!warned && rows.values().all(|f| !f.is_empty()), "{rows:?}");
}
