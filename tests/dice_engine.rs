//! Issue #35: the exact engine's one multiset pass. Pools set against each other and
//! pool variables read several ways, checked against every ordered roll of every die
//! (the enumerator below shares no code with the library: it sorts each roll and plays
//! the rule as the README words it), and Monte Carlo within 4.5 standard errors at the
//! sizes a designer rolls, where no enumeration could go.

use crate::dice_lang::{compile, rolls, same, D6};
use crate::util::assert_agrees;
use rollsim::model::Compiled;
use std::collections::BTreeMap;

fn faces(n: i64) -> Vec<i64> {
    (1..=n).collect()
}

/// The distribution of `f(a, b)` over every roll of both pools (each sorted high to low
/// before `f` sees it).
fn brute2(
    (na, fa): (usize, &[i64]),
    (nb, fb): (usize, &[i64]),
    f: impl Fn(&[i64], &[i64]) -> i64,
) -> BTreeMap<i64, f64> {
    let (ra, rb) = (rolls(na, fa), rolls(nb, fb));
    let total = (ra.len() * rb.len()) as f64;
    let desc = |r: &[i64]| {
        let mut v = r.to_vec();
        v.sort_by(|x, y| y.cmp(x));
        v
    };
    let rb: Vec<Vec<i64>> = rb.iter().map(|r| desc(r)).collect();
    // Counted as whole numbers, divided once: a million additions of 1e-6 would
    // drift by more than the tolerance.
    let mut m: BTreeMap<i64, u64> = BTreeMap::new();
    for a in &ra {
        let a = desc(a);
        for b in &rb {
            *m.entry(f(&a, b)).or_insert(0) += 1;
        }
    }
    m.into_iter().map(|(v, k)| (v, k as f64 / total)).collect()
}

/// The distribution of `f` over every roll of `n` dice of `faces`, counted.
pub(crate) fn brute(n: usize, faces: &[i64], f: impl Fn(&[i64]) -> i64) -> BTreeMap<i64, f64> {
    brute2((n, faces), (0, &[]), |a, _| f(a))
}

/// Each die of `b` removes one die of `a` showing the same face: what is left of `a`,
/// high to low.
fn cancelled(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut left = a.to_vec();
    for x in b {
        if let Some(i) = left.iter().position(|y| y == x) {
            left.remove(i);
        }
    }
    left
}

/// The dice of `a` above every die of `b` (or level with the highest, with ties).
fn beating(a: &[i64], b: &[i64], ties: bool) -> Vec<i64> {
    let top = b.iter().max().copied();
    a.iter()
        .copied()
        .filter(|&x| top.is_none_or(|t| x > t || (ties && x == t)))
        .collect()
}

/// Both high to low, paired off: the dice of `a` that win their pair.
fn pair_winners(a: &[i64], b: &[i64], ties: bool) -> Vec<i64> {
    a.iter()
        .zip(b)
        .filter(|(x, y)| x > y || (ties && x == y))
        .map(|(x, _)| *x)
        .collect()
}

/// A read of two sorted rolls.
type Rule = dyn Fn(&[i64], &[i64]) -> i64;

/// The longest run of consecutive faces.
fn straight(dice: &[i64]) -> i64 {
    let mut best = 0;
    for &start in dice {
        let mut n = 0;
        while dice.contains(&(start + n)) {
            n += 1;
        }
        best = best.max(n);
    }
    best
}

fn highest(d: &[i64]) -> i64 {
    d.iter().copied().max().unwrap_or(0)
}

#[test]
fn cancel_against_every_roll() {
    let d10 = faces(10);
    // The README's `cancel(A, B) highest` at a size every roll can be gone through.
    same(
        &compile("cancel(3d10, 3d10) highest", None),
        &brute2((3, &d10), (3, &d10), |a, b| highest(&cancelled(a, b))),
    );
    same(
        &compile("cancel(4d6, 3d6) sum", None),
        &brute2((4, &D6), (3, &D6), |a, b| cancelled(a, b).iter().sum()),
    );
    same(
        &compile("cancel(4d6, 2d6)", None),
        &brute2((4, &D6), (2, &D6), |a, b| cancelled(a, b).len() as i64),
    );
    // Keeps on either side: each side's kept dice meet.
    same(
        &compile("cancel(4d6 keep highest 3, 3d6 drop lowest) lowest", None),
        &brute2((4, &D6), (3, &D6), |a, b| {
            let left = cancelled(&a[..3], &b[..2]);
            left.iter().copied().min().unwrap_or(0)
        }),
    );
}

#[test]
fn beats_and_pairs_against_every_roll() {
    let d8 = faces(8);
    same(
        &compile("beats(3d8 only <= 5, 3d8 only <= 5) sum", None),
        &brute2((3, &d8), (3, &d8), |a, b| {
            let a: Vec<i64> = a.iter().copied().filter(|&x| x <= 5).collect();
            let b: Vec<i64> = b.iter().copied().filter(|&x| x <= 5).collect();
            beating(&a, &b, false).iter().sum()
        }),
    );
    same(
        &compile("pairs(4d6 keep highest 3, [1d6, 1d8], ties) highest", None),
        &{
            let mut m = BTreeMap::new();
            for a in rolls(4, &D6) {
                for x in 1..=6 {
                    for y in 1..=8 {
                        let mut a = a.clone();
                        a.sort_by(|p, q| q.cmp(p));
                        let mut b = vec![x, y];
                        b.sort_by(|p, q| q.cmp(p));
                        let v = highest(&pair_winners(&a[..3], &b, true));
                        *m.entry(v).or_insert(0.0) += 1.0 / (1296.0 * 48.0);
                    }
                }
            }
            m
        },
    );
    // Pairs of sizes known only at the roll (`only`), counted.
    same(
        &compile("pairs(4d6 only >= 3, 3d6 only >= 2)", None),
        &brute2((4, &D6), (3, &D6), |a, b| {
            let a: Vec<i64> = a.iter().copied().filter(|&x| x >= 3).collect();
            let b: Vec<i64> = b.iter().copied().filter(|&x| x >= 2).collect();
            pair_winners(&a, &b, false).len() as i64
        }),
    );
}

#[test]
fn pool_variables_read_several_ways_against_every_roll() {
    let d8 = faces(8);
    // Face to face read both ways, as the issue's 5d20 example at 3d8.
    let text = "let a = 3d8 in let b = 3d8 in beats(a only <= 5, b only <= 5) - beats(b only <= 5, a only <= 5)";
    let only5 = |d: &[i64]| -> Vec<i64> { d.iter().copied().filter(|&x| x <= 5).collect() };
    let want = brute2((3, &d8), (3, &d8), |a, b| {
        let (a, b) = (only5(a), only5(b));
        beating(&a, &b, false).len() as i64 - beating(&b, &a, false).len() as i64
    });
    same(&compile(text, None), &want);
    // Three reads of two variables in one record: each field against every roll.
    let d10 = faces(10);
    let c = compile(
        "let a = 3d10 in let b = 3d10 in { mine = beats(a, b), theirs = beats(b, a), left = cancel(a, b) highest }",
        None,
    );
    let fields: [(&str, &Rule); 3] = [
        ("mine", &|a, b| beating(a, b, false).len() as i64),
        ("theirs", &|a, b| beating(b, a, false).len() as i64),
        ("left", &|a, b| highest(&cancelled(a, b))),
    ];
    for (name, f) in fields {
        let want = brute2((3, &d10), (3, &d10), f);
        let m = c.metrics.iter().find(|m| m.name == name).expect(name);
        let got = m.project_f64(c.exact.as_ref().expect("exact"));
        for (i, p) in got.iter().enumerate() {
            let v = m.value(i) as i64;
            let w = want.get(&v).copied().unwrap_or(0.0);
            assert!((p - w).abs() < 1e-12, "{name}: P({v}) = {p}, want {w}");
        }
    }
    // A variable read by a keep and against a fresh pool in one body.
    same(
        &compile("let a = 4d6 in a keep highest 2 sum + cancel(a, 2d6)", None),
        &brute2((4, &D6), (2, &D6), |a, b| {
            a[..2].iter().sum::<i64>() + cancelled(a, b).len() as i64
        }),
    );
}

#[test]
fn straight_against_every_roll() {
    // Yahtzee's large straight is a run of five: 8d6 goes through 1,679,616 rolls.
    same(&compile("8d6 straight", None), &brute(8, &D6, straight));
    // Kept dice, and a pool variable read two ways.
    same(
        &compile("5d6 keep highest 4 straight", None),
        &brute(5, &D6, |r| {
            let mut v = r.to_vec();
            v.sort_by(|x, y| y.cmp(x));
            straight(&v[..4])
        }),
    );
    same(
        &compile("let p = 6d6 in 10 * p straight + p highest", None),
        &brute(6, &D6, |r| 10 * straight(r) + highest(r)),
    );
    // Faces with a gap: 2 and 4 are not a run.
    same(
        &compile("3d{2,4,5} straight", None),
        &brute(3, &[2, 4, 5], straight),
    );
    // By hand: 2d6 show a run of two when they are consecutive, 10 of 36 rolls.
    let c = compile("2d6 straight", None);
    let d = crate::dice_lang::dist(&c);
    assert!((d[&2] - 10.0 / 36.0).abs() < 1e-15);
}

/// Monte Carlo within 4.5 SE of the pass at the sizes of the issue, which no
/// enumeration reaches; the face-to-face roll read both ways is symmetric, so its exact
/// mean is 0 and P(v) = P(-v).
#[test]
fn the_issue_s_expressions_are_exact_and_agree_with_monte_carlo() {
    let check = |text: &str, seed: u64| -> Compiled {
        let c = compile(text, None);
        assert!(c.exact.is_some(), "{text}: not exact");
        assert_agrees(&c, &["value"], 200_000, seed);
        c
    };
    check("cancel(9d10, 8d10) highest", 1);
    check("cancel(12d6, 10d6) sum", 2);
    check("8d6 straight", 3);
    let c = check(
        "let a = 5d20 in let b = 5d20 in beats(a only <= 12, b only <= 12) - beats(b only <= 12, a only <= 12)",
        4,
    );
    let d = crate::dice_lang::dist(&c);
    for (v, p) in &d {
        let q = d.get(&-v).copied().unwrap_or(0.0);
        assert!((p - q).abs() < 1e-12, "P({v}) = {p}, P({}) = {q}", -v);
    }
    let c = compile(
        "let a = 6d10 in let b = 6d10 in { mine = beats(a, b), theirs = beats(b, a), left = cancel(a, b) highest }",
        None,
    );
    assert!(c.exact.is_some());
    assert_agrees(&c, &["mine", "theirs", "left"], 200_000, 5);
    check("let p = 8d6 in p straight", 6);
    // Went through every roll of both variables before (3 x 10^9 pairs: Monte Carlo
    // only); one pass now.
    check(
        "let a = 12d20 in let b = 12d20 in a highest - b highest + a count 20",
        9,
    );
}

/// C(n, k) p^k (1 - p)^(n - k), each factor applied in turn (no factorial overflows).
fn binomial_term(n: u64, k: u64, p: f64) -> f64 {
    let mut x = 1.0f64;
    for i in 0..k {
        x *= (n - i) as f64 / (i + 1) as f64;
    }
    x * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

/// Issue #42: pools past a hundred dice, exact, against closed forms and an independent
/// method.
#[test]
fn hordes_are_exact_against_closed_forms() {
    // Counts of hits on 4+: the binomial at p = 1/2, value by value, to 1e-10 of each
    // value's own size (every term of 500 dice is above 1e-151: no float underflows).
    for n in [120u64, 500] {
        let c = compile(&format!("{n}d6 count >= 4"), None);
        let m = &c.metrics[0];
        let all = m.project_f64(c.exact.as_ref().expect("exact"));
        assert_eq!(all.len(), n as usize + 1, "{n}d6: every count 0..={n}");
        for k in 0..=n {
            let want = binomial_term(n, k, 0.5);
            let got = all[k as usize];
            assert!(
                ((got - want) / want).abs() < 1e-10,
                "{n}d6 count >= 4: P({k}) = {got:e}, want {want:e}"
            );
        }
    }
    // 10d6 sum by inclusion-exclusion, exactly in integers: the ways to make s are
    // sum_j (-1)^j C(10, j) C(s - 6j - 1, 9).
    fn choose(n: i64, k: i64) -> i128 {
        if k < 0 || n < k {
            return 0;
        }
        (0..k).fold(1i128, |acc, i| acc * (n - i) as i128 / (i + 1) as i128)
    }
    let c = compile("10d6 sum", None);
    let d = crate::dice_lang::dist(&c);
    for s in 10..=60i64 {
        let ways: i128 = (0..=10)
            .map(|j| {
                let term = choose(10, j) * choose(s - 6 * j - 1, 9);
                if j % 2 == 0 {
                    term
                } else {
                    -term
                }
            })
            .sum();
        let want = ways as f64 / 6f64.powi(10);
        assert!((d[&s] - want).abs() < 1e-15, "10d6: P({s})");
    }
    // 1000d6 sum: one die added at a time (not the library's repeated squaring), each
    // value to 1e-9 of its size where it is above 1e-200; the mean is 3500 exactly.
    let c = compile("1000d6 sum", None);
    let m = &c.metrics[0];
    let got = m.project_f64(c.exact.as_ref().expect("exact"));
    let mut want = vec![1.0f64];
    for _ in 0..1000 {
        let mut next = vec![0.0; want.len() + 6];
        for (i, &p) in want.iter().enumerate() {
            for f in 1..=6 {
                next[i + f] += p / 6.0;
            }
        }
        want = next;
    }
    let mut mean = 0.0;
    for (i, &p) in got.iter().enumerate() {
        let v = m.value(i) as usize;
        mean += v as f64 * p;
        if want[v] > 1e-200 {
            assert!(
                ((p - want[v]) / want[v]).abs() < 1e-9,
                "1000d6: P({v}) = {p:e}, want {:e}",
                want[v]
            );
        }
    }
    assert!((mean - 3500.0).abs() < 1e-9, "1000d6 mean {mean}");
}

/// The kept sum of many dice of one kind, against a pass written here: faces from the
/// top, the state (dice placed, sum of the kept ones), each face placing a binomial
/// number of the dice left.
fn keep_highest_by_faces(n: usize, sides: i64, k: usize) -> BTreeMap<i64, f64> {
    let mut cur: BTreeMap<(usize, i64), f64> = BTreeMap::new();
    cur.insert((0, 0), 1.0);
    for f in (1..=sides).rev() {
        // P(a die left shows f | it shows f or less).
        let q = 1.0 / f as f64;
        let mut next = BTreeMap::new();
        for (&(placed, sum), &p) in &cur {
            let left = n - placed;
            for c in 0..=left {
                let w = binomial_term(left as u64, c as u64, q);
                if w == 0.0 {
                    continue;
                }
                let kept = (placed + c).min(k) - placed.min(k);
                *next
                    .entry((placed + c, sum + kept as i64 * f))
                    .or_insert(0.0) += p * w;
            }
        }
        cur = next;
    }
    let mut out = BTreeMap::new();
    for ((_, sum), p) in cur {
        *out.entry(sum).or_insert(0.0) += p;
    }
    out
}

#[test]
fn big_keeps_against_a_pass_over_the_faces() {
    // Past 64 dice the engine goes by the kept die's face; below, by its states: both
    // against the pass above, keep highest and (by symmetry, a d10 read as 11 - face)
    // keep lowest.
    for (n, k) in [(30usize, 7usize), (100, 30)] {
        let want = keep_highest_by_faces(n, 10, k);
        let c = compile(&format!("{n}d10 keep highest {k}"), None);
        let got = crate::dice_lang::dist(&c);
        for (v, p) in &want {
            if *p > 1e-13 {
                let g = got.get(v).copied().unwrap_or(0.0);
                assert!(
                    (g - p).abs() < 1e-12,
                    "{n}d10 kh{k}: P({v}) = {g}, want {p}"
                );
            }
        }
        let c = compile(&format!("{n}d10 keep lowest {k}"), None);
        let got = crate::dice_lang::dist(&c);
        for (v, p) in &want {
            if *p > 1e-13 {
                let low = 11 * k as i64 - v;
                let g = got.get(&low).copied().unwrap_or(0.0);
                assert!(
                    (g - p).abs() < 1e-12,
                    "{n}d10 kl{k}: P({low}) = {g}, want {p}"
                );
            }
        }
    }
    // The issue's horde, exact and within 4.5 SE of Monte Carlo.
    let c = compile("160d20 keep highest 80", None);
    assert!(c.exact.is_some());
    assert_agrees(&c, &["value"], 20_000, 7);
    let c = compile("300d6 keep lowest 3 highest", None);
    assert!(c.exact.is_some());
    assert_agrees(&c, &["value"], 50_000, 8);
}

/// The data file of a hundred shots holds all 101 counts and they add to 1; the table on
/// screen names the tail it leaves out.
#[test]
fn a_hundred_shots_write_every_count() {
    let dir = crate::util::tempdir();
    let out = crate::util::rollsim()
        .args(["roll", "100d6 count >= 4", "--exact-only", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(dir.path().join("distribution.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (vi, ei) = (
        head.iter().position(|h| *h == "value").unwrap(),
        head.iter().position(|h| *h == "exact").unwrap(),
    );
    let rows: Vec<(i64, f64)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[vi].parse().unwrap(), f[ei].parse().unwrap())
        })
        .collect();
    assert_eq!(
        rows.iter().map(|r| r.0).collect::<Vec<_>>(),
        (0..=100).collect::<Vec<_>>()
    );
    let total: f64 = rows.iter().map(|r| r.1).sum();
    assert!((total - 1.0).abs() < 1e-12, "sum {total}");
    // P(100 hits) = 2^-100, kept however small.
    assert!((rows[100].1 / 0.5f64.powi(100) - 1.0).abs() < 1e-9);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("values 88-100 left out: together"),
        "{stdout}"
    );
}
