//! Issue #55: exact evaluation that follows what a program reads. Each program is one a
//! designer writes, checked against an enumerator written here (every roll of every die,
//! or every value of every roll combined by plain loops; no code shared with the
//! library's exact engine), Monte Carlo within 4.5 standard errors, and the work it
//! takes: a `let` read by one part only is summed out there, so programs whose `let`s
//! multiply past the budget when evaluated as written are exact.

use crate::dice_lang::{brute, compile, same, D6};
use crate::util::assert_agrees;
use std::collections::BTreeMap;

/// The distribution of `f` over every value of two independent distributions.
fn pairs(
    a: &BTreeMap<i64, f64>,
    b: &BTreeMap<i64, f64>,
    f: impl Fn(i64, i64) -> i64,
) -> BTreeMap<i64, f64> {
    let mut m = BTreeMap::new();
    for (&x, &p) in a {
        for (&y, &q) in b {
            *m.entry(f(x, y)).or_insert(0.0) += p * q;
        }
    }
    m
}

/// One die of `sides` that rolls again and adds on its top face, at most `depth` extra
/// rolls (the last stands as it falls), by walking every chain.
fn exploding(sides: i64, depth: u32) -> BTreeMap<i64, f64> {
    fn walk(sides: i64, left: u32, sum: i64, p: f64, m: &mut BTreeMap<i64, f64>) {
        for f in 1..=sides {
            let q = p / sides as f64;
            if f == sides && left > 0 {
                walk(sides, left - 1, sum + f, q, m);
            } else {
                *m.entry(sum + f).or_insert(0.0) += q;
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(sides, depth, 0, 1.0, &mut m);
    m
}

/// Three exploding dice, each read through its own formula (a penetrating die: one
/// less for every explosion), then summed. As written, the `let`s nest: 70 x 70 x 56
/// bodies; read as three parts, they are three dice and two sums.
#[test]
fn three_exploding_dice_read_through_their_own_formulas() {
    let e = "let a = d10 explode depth 6 in let b = d10 explode depth 6 in \
             let c = d8 explode depth 6 in (a - a / 10) + (b - b / 10) + (c - c / 8)";
    let c = compile(e, None);
    let pen = |d: BTreeMap<i64, f64>, s: i64| -> BTreeMap<i64, f64> {
        let mut m = BTreeMap::new();
        for (v, p) in d {
            *m.entry(v - v.div_euclid(s)).or_insert(0.0) += p;
        }
        m
    };
    let a = pen(exploding(10, 6), 10);
    let b = pen(exploding(10, 6), 10);
    let cc = pen(exploding(8, 6), 8);
    let want = pairs(&pairs(&a, &b, |x, y| x + y), &cc, |x, y| x + y);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 7);
}

/// Three players roll 6d6 each; the most 6s wins, a tie broken by 5s, then 4s; three
/// pools read together, each player's score a value of its own.
#[test]
fn the_most_sixes_among_three_players_ties_broken_by_fives_then_fours() {
    let score =
        |p: &str| format!("(let {p} = 6d6 in {p} count 6 * 49 + {p} count 5 * 7 + {p} count 4)");
    let e = format!(
        "let sa = {} in let sb = {} in let sc = {} in \
         if sa > max(sb, sc) then 1 else if sb > max(sa, sc) then 2 \
         else if sc > max(sa, sb) then 3 else 0",
        score("a"),
        score("b"),
        score("c")
    );
    let c = compile(&e, None);
    // Every one of the 46,656 rolls of one player, then every triple of scores.
    let s = brute(6, &D6, |r| {
        let n = |f: i64| r.iter().filter(|&&x| x == f).count() as i64;
        n(6) * 49 + n(5) * 7 + n(4)
    });
    let mut want = BTreeMap::new();
    for (&a, &p) in &s {
        for (&b, &q) in &s {
            for (&cc, &r) in &s {
                let w = if a > b.max(cc) {
                    1
                } else if b > a.max(cc) {
                    2
                } else if cc > a.max(b) {
                    3
                } else {
                    0
                };
                *want.entry(w).or_insert(0.0) += p * q * r;
            }
        }
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 8);
}

/// A saving roll of two dice: doubles add and roll one die again, again while it shows
/// 6 (a `repeat` inside one branch of an `if` over two dice).
#[test]
fn a_repeat_inside_a_branch_over_two_dice() {
    let e = "let a = d6 in let b = d6 in if a == b then a + b + \
             (repeat t = 0, go = 1 until go == 0 do t = t + d6, go = d6 == 6 \
             limit 8 then t) else a + b";
    let c = compile(e, None);
    // The bonus: rounds of (a d6 added, then a d6 that says whether to go on), every
    // roll of both walked, at most 8 rounds.
    fn bonus(round: u32, t: i64, p: f64, m: &mut BTreeMap<i64, f64>) {
        if round == 8 {
            *m.entry(t).or_insert(0.0) += p;
            return;
        }
        for add in 1..=6 {
            for again in 1..=6 {
                let q = p / 36.0;
                if again == 6 {
                    bonus(round + 1, t + add, q, m);
                } else {
                    *m.entry(t + add).or_insert(0.0) += q;
                }
            }
        }
    }
    let mut extra = BTreeMap::new();
    bonus(0, 0, 1.0, &mut extra);
    let mut want = BTreeMap::new();
    for a in 1..=6 {
        for b in 1..=6 {
            if a == b {
                for (&t, &p) in &extra {
                    *want.entry(a + b + t).or_insert(0.0) += p / 36.0;
                }
            } else {
                *want.entry(a + b).or_insert(0.0) += 1.0 / 36.0;
            }
        }
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 9);
}

/// Hit, wound and save: each roll's dice count is the successes of the roll before
/// (8 dice hit on 3+, the hits wound on 4+, the wounds saved on 5+), the result the
/// wounds not saved. Each stage's count is brute-forced over every roll of its dice.
#[test]
fn a_hit_wound_save_chain_whose_counts_come_from_the_roll_before() {
    let e = "let hits = 8d6 count >= 3 in let wounds = (hits)d6 count >= 4 in \
             let saves = (wounds)d6 count >= 5 in wounds - saves";
    let c = compile(e, None);
    let stage =
        |n: usize, at: i64| brute(n, &D6, |r| r.iter().filter(|&&x| x >= at).count() as i64);
    let mut want = BTreeMap::new();
    for (&h, &p) in &stage(8, 3) {
        for (&w, &q) in &stage(h as usize, 4) {
            for (&s, &r) in &stage(w as usize, 5) {
                *want.entry(w - s).or_insert(0.0) += p * q * r;
            }
        }
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 10);
}

/// A result whose bounds are wide though it takes few values: `x - 8 * (x / 8)` of a
/// sum of ten thousand dice is bounded by twice the sum's range (over 65,536 values, a
/// table Monte Carlo cannot keep), and takes the 8 values 0 to 7. The exact
/// distribution's support decides, so it is exact and rolled.
#[test]
fn a_remainder_of_a_wide_value_takes_its_eight_values() {
    let c = compile("let x = 10000d6 in x - 8 * (x / 8)", None);
    let mut want = BTreeMap::new();
    // 10000d6 mod 8: the sum's distribution by repeated convolution, mod 8 as it goes.
    let mut m = vec![1.0f64; 1];
    m.resize(8, 0.0);
    for _ in 0..10000 {
        let mut next = vec![0.0; 8];
        for (r, p) in m.iter().enumerate() {
            for f in 1..=6 {
                next[(r + f) % 8] += p / 6.0;
            }
        }
        m = next;
    }
    for (r, p) in m.into_iter().enumerate() {
        want.insert(r as i64, p);
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 11);
    // Where the exact distribution cannot be had either, the refusal says which budget
    // ran out.
    let text = "system = \"dice\"\n[scenarios.s]\nroll = \"let a = d1000 in let b = d1000 in let c = d1000 in (a*b + b*c + c*a) - 30 * ((a*b + b*c + c*a) / 30)\"\n";
    let e = rollsim::config::load_str(text, "dice.toml", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 65536 values"), "{e}");
    assert!(
        e.contains("was not worked out: working it out exactly takes more than 15,000,000 operations counted in whole numbers and 100,000,000 in floats"),
        "{e}"
    );
}

/// Every sorted roll of `n` dice of `sides` faces, with its probability (the rolls it
/// stands for: n! over the product of each face's count factorial, over sides^n).
fn sorted_rolls(n: usize, sides: i64) -> Vec<(Vec<i64>, f64)> {
    fn walk(n: usize, from: i64, sides: i64, cur: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for f in from..=sides {
            cur.push(f);
            walk(n, f, sides, cur, out);
            cur.pop();
        }
    }
    let mut all = Vec::new();
    walk(n, 1, sides, &mut Vec::new(), &mut all);
    let fact = |k: usize| (1..=k).map(|x| x as f64).product::<f64>();
    all.into_iter()
        .map(|r| {
            let mut ways = fact(n);
            for f in 1..=sides {
                ways /= fact(r.iter().filter(|&&x| x == f).count());
            }
            (r, ways / (sides as f64).powi(n as i32))
        })
        .collect()
}

/// `keep middle K`: the K dice in the middle, as many dropped from each end (one more
/// from the top when the dice left over are odd), read every way a keep is read.
#[test]
fn keep_middle_against_every_sorted_roll() {
    let rolls = sorted_rolls(8, 10);
    let by = |f: &dyn Fn(&[i64]) -> i64| {
        let mut m = BTreeMap::new();
        for (r, p) in &rolls {
            *m.entry(f(r)).or_insert(0.0) += p;
        }
        m
    };
    // 8d10: two dropped from each end.
    let c = compile("8d10 keep middle 4", None);
    same(&c, &by(&|r| r[2..6].iter().sum()));
    assert_agrees(&c, &["value"], 200_000, 12);
    same(
        &compile("8d10 keep middle 4 count >= 6", None),
        &by(&|r| r[2..6].iter().filter(|&&x| x >= 6).count() as i64),
    );
    // Seven left over: three from the bottom, four from the top.
    same(&compile("8d10 keep middle 1", None), &by(&|r| r[3]));
    // A pool variable read through its middle twice, and once whole.
    let c = compile(
        "let p = 8d10 in p keep middle 3 highest * 100 + p keep middle 3 lowest * 10 + p highest / 5",
        None,
    );
    same(&c, &by(&|r| r[4] * 100 + r[2] * 10 + r[7] / 5));
    assert_agrees(&c, &["value"], 200_000, 13);
    // Every roll of 5d6, the middle three.
    same(
        &compile("5d6 keep middle 3", None),
        &brute(5, &D6, |r| {
            let mut v = r.to_vec();
            v.sort();
            v[1..4].iter().sum()
        }),
    );
}

/// `middle`, written as `highest` and `lowest` are (`3d20 middle`: "roll three, take
/// the middle one"): the middle die of an odd pool, the lower of the two middle ones of
/// an even pool, a pool variable's too, against every sorted roll and Monte Carlo.
#[test]
fn middle_is_the_middle_die_against_every_sorted_roll() {
    let by = |rolls: &[(Vec<i64>, f64)], f: &dyn Fn(&[i64]) -> i64| {
        let mut m = BTreeMap::new();
        for (r, p) in rolls {
            *m.entry(f(r)).or_insert(0.0) += p;
        }
        m
    };
    let three = sorted_rolls(3, 20);
    let c = compile("3d20 middle", None);
    same(&c, &by(&three, &|r| r[1]));
    assert_agrees(&c, &["value"], 200_000, 15);
    // P(middle of 3d20 = 10): 1/20 (all three 10) + 3 * (1/20) * ... by hand: the
    // middle is 10 when one die is 10, one below and one above (6 orders * 9 * 10), two
    // are 10 and the third anything else (3 * 19), or all three (1): 598 of 8000.
    let ten = by(&three, &|r| r[1])[&10];
    assert!((ten - 598.0 / 8000.0).abs() < 1e-15, "{ten}");
    let four = sorted_rolls(4, 6);
    same(&compile("4d6 middle", None), &by(&four, &|r| r[1]));
    let c = compile("let p = 4d6 in p middle * 10 + p highest", None);
    same(&c, &by(&four, &|r| r[1] * 10 + r[3]));
    assert_agrees(&c, &["value"], 200_000, 16);
}

/// The two reads added as units of the reader table (`runs`, `sets N`), each against
/// every roll: a plain pool, a mixed pool with a keep, a pool variable read with others,
/// and Monte Carlo within 4.5 standard errors.
#[test]
fn runs_and_sets_against_every_roll() {
    let runs = |r: &[i64]| {
        let mut v = r.to_vec();
        v.sort();
        v.dedup();
        v.iter().filter(|&&d| !v.contains(&(d - 1))).count() as i64
    };
    let sets = |r: &[i64], k: usize| {
        (1..=20)
            .filter(|f| r.iter().filter(|&&d| d == *f).count() >= k)
            .count() as i64
    };
    let c = compile("5d6 runs", None);
    same(&c, &brute(5, &D6, runs));
    assert_agrees(&c, &["value"], 200_000, 14);
    for k in 1..=4usize {
        same(
            &compile(&format!("6d6 sets {k}"), None),
            &brute(6, &D6, |r| sets(r, k)),
        );
    }
    // Three d6 and two d8, the highest four kept: every roll of the five dice.
    let mut want = BTreeMap::new();
    for r in crate::dice_lang::rolls(3, &D6) {
        for s in crate::dice_lang::rolls(2, &[1, 2, 3, 4, 5, 6, 7, 8]) {
            let mut all: Vec<i64> = r.iter().chain(&s).copied().collect();
            all.sort();
            *want.entry(runs(&all[1..])).or_insert(0.0) += 1.0 / (216.0 * 64.0);
        }
    }
    same(&compile("[3d6, 2d8] keep highest 4 runs", None), &want);
    // A pool variable read three ways at once.
    let c = compile(
        "let p = 6d6 in p sets 2 * 100 + p runs * 10 + p highest",
        None,
    );
    same(
        &c,
        &brute(6, &D6, |r| {
            sets(r, 2) * 100 + runs(r) * 10 + r.iter().max().unwrap()
        }),
    );
    assert_agrees(&c, &["value"], 200_000, 15);
}

/// `mode`, the One-Roll Engine's height of a set, added as a unit of the reader table:
/// against every roll, read with `maxset` as a Reign roll is (width, then height), the
/// same distribution as the ten-count form a user could write without it, a keep, and
/// Monte Carlo within 4.5 standard errors.
#[test]
fn mode_against_every_roll() {
    let mode = |r: &[i64]| {
        let on = |f: i64| r.iter().filter(|&&d| d == f).count();
        let most = r.iter().map(|&f| on(f)).max().unwrap_or(0);
        r.iter()
            .copied()
            .filter(|&f| on(f) == most)
            .max()
            .unwrap_or(0)
    };
    let most = |r: &[i64]| {
        r.iter()
            .map(|&f| r.iter().filter(|&&d| d == f).count())
            .max()
            .unwrap_or(0) as i64
    };
    same(&compile("6d6 mode", None), &brute(6, &D6, mode));
    let d10: Vec<i64> = (1..=10).collect();
    let reign = |r: &[i64]| {
        if most(r) < 2 {
            0
        } else {
            100 * most(r) + mode(r)
        }
    };
    let c = compile(
        "let p = 5d10 in let w = p maxset in if w < 2 then 0 else 100 * w + p mode",
        None,
    );
    same(&c, &brute(5, &d10, reign));
    assert_agrees(&c, &["value"], 200_000, 16);
    same(
        &compile(
            "let p = 5d10 in let w = p maxset in if w < 2 then 0 else 100 * w + max(1 * (p count 1 == w), \
             2 * (p count 2 == w), 3 * (p count 3 == w), 4 * (p count 4 == w), 5 * (p count 5 == w), \
             6 * (p count 6 == w), 7 * (p count 7 == w), 8 * (p count 8 == w), 9 * (p count 9 == w), \
             10 * (p count 10 == w))",
            None,
        ),
        &brute(5, &d10, reign),
    );
    // The lowest four of five kept; a pool of no dice reads 0.
    same(
        &compile("5d6 keep lowest 4 mode", None),
        &brute(5, &D6, |r| {
            let mut v = r.to_vec();
            v.sort();
            mode(&v[..4])
        }),
    );
    same(&compile("(d2 - 1)d6 mode", None), &{
        let mut m = BTreeMap::new();
        m.insert(0, 0.5);
        for f in 1..=6 {
            m.insert(f, 0.5 / 6.0);
        }
        m
    });
}

/// docs/dice-language.md states every limit with its number: each constant, as the
/// table writes it.
#[test]
fn every_limit_of_the_language_is_in_its_docs_with_its_number() {
    use rollsim::systems::dice::{exact, lang, multiset, program};
    let docs = std::fs::read_to_string(crate::util::root().join("docs/dice-language.md")).unwrap();
    let limits = docs.split("## Limits").nth(1).expect("a Limits section");
    let thousands = rollsim::text::thousands;
    for (what, n) in [
        ("dice in one pool", program::MAX_DICE as u64),
        ("rolled count", program::MAX_ROLLED_DICE as u64),
        ("chain depth", lang::MAX_CHAIN as u64),
        ("result values", rollsim::systems::dice::MAX_STATES as u64),
        ("span", exact::MAX_SPAN as u64),
        ("pass states", multiset::MAX_STATES as u64),
        ("outcomes", exact::MAX_OUTCOMES),
        ("repeat limit", lang::MAX_LIMIT as u64),
        ("roles", lang::MAX_ROLES as u64),
        ("choose dice", program::pick::MAX_DICE as u64),
        ("ways", program::pick::MAX_WAYS),
        ("rerolls", lang::MAX_REROLLS as u64),
        ("fields", lang::MAX_FIELDS as u64),
        ("again tallies", program::MAX_TALLIES as u64),
        ("names", program::VARS as u64),
    ] {
        assert!(
            limits.contains(&format!("| {} ", thousands(n)))
                || limits.contains(&format!(" {} |", thousands(n)))
                || limits.contains(&format!("| {} (", thousands(n)))
                || limits.contains(&format!("{} (1,048,576)", "2^20")) && n == 1 << 20
                || limits.contains(&format!("| {} to ", thousands(n)))
                || limits.contains(&format!("/ {} |", thousands(n))),
            "{what}: {n} is not in the Limits table"
        );
    }
    for work in [exact::LAW_WORK, exact::REAL_WORK] {
        assert!(
            limits.contains(&thousands(work)),
            "the exact work {work} is not in the Limits table"
        );
    }
}

/// `cancel(A, B, <=)` as a designer reads it, by plain loops: each of `b`'s dice,
/// highest first, takes out the highest of `a`'s dice still there that it ties or
/// beats (`ties`), or beats (`!ties`); `a`'s dice left.
fn cancelled_below(a: &[i64], b: &[i64], ties: bool) -> Vec<i64> {
    let mut left: Vec<i64> = a.to_vec();
    let mut b = b.to_vec();
    b.sort_unstable_by(|x, y| y.cmp(x));
    for y in b {
        let best = left
            .iter()
            .enumerate()
            .filter(|(_, &x)| if ties { x <= y } else { x < y })
            .max_by_key(|(_, &x)| x)
            .map(|(i, _)| i);
        if let Some(i) = best {
            left.remove(i);
        }
    }
    left
}

#[test]
fn cancel_by_the_highest_die_each_ties_or_beats_against_every_roll() {
    // Issue #55: two pools where each die of one cancels the highest die of the other
    // that it ties or beats. `cancel(A, B, <=)`: B's dice cancel A's, A's left are read.
    let count = |r: &[i64], ties| {
        let (a, b) = r.split_at(4);
        cancelled_below(a, b, ties).len() as i64
    };
    same(
        &compile("cancel(4d6, 3d6, <=)", None),
        &brute(7, &D6, |r| count(r, true)),
    );
    same(
        &compile("cancel(4d6, 3d6, <)", None),
        &brute(7, &D6, |r| count(r, false)),
    );
    // The dice left read as a pool, and `only` choosing who takes part.
    let c = compile("cancel(3d6, 3d6, <=) highest", None);
    same(
        &c,
        &brute(6, &D6, |r| {
            let (a, b) = r.split_at(3);
            cancelled_below(a, b, true).into_iter().max().unwrap_or(0)
        }),
    );
    assert_agrees(&c, &["value"], 300_000, 91);
    let c = compile(
        "let a = 4d6 in let b = 3d6 in cancel(a only >= 3, b, <) sum",
        None,
    );
    same(
        &c,
        &brute(7, &D6, |r| {
            let a: Vec<i64> = r[..4].iter().copied().filter(|&x| x >= 3).collect();
            cancelled_below(&a, &r[4..], false).iter().sum()
        }),
    );
    assert_agrees(&c, &["value"], 300_000, 92);
    // The issue's own words, by every sorted roll of two 5d10 pools: each die of the
    // first cancels the highest die of the second it ties or beats; the first's dice
    // that cancel nothing. As many as the second's left (as many pairs are made either
    // way, and the pools are as large), so `cancel(5d10, 5d10, <=)`.
    let rolls = sorted_rolls(5, 10);
    let mut want: BTreeMap<i64, f64> = BTreeMap::new();
    for (x, p) in &rolls {
        for (y, q) in &rolls {
            let mut second = y.clone();
            let mut idle = 0;
            for &d in x.iter().rev() {
                match second.iter().rposition(|&s| s <= d) {
                    Some(i) => {
                        second.remove(i);
                    }
                    None => idle += 1,
                }
            }
            *want.entry(idle).or_insert(0.0) += p * q;
        }
    }
    same(&compile("cancel(5d10, 5d10, <=)", None), &want);
    // 8d10 against 8d10, the size: exact, and Monte Carlo agrees.
    let c = compile("cancel(8d10, 8d10, <=)", None);
    assert!(c.exact.is_some());
    assert_agrees(&c, &["value"], 300_000, 93);
    // A comparison that is not one of the three says which are.
    let e = crate::dice_lang::load_err("cancel(3d6, 2d6, >=)");
    assert!(e.contains("`<=`") && e.contains("column 18"), "{e}");
}

/// P(k of `n` trials at `p`), k = 0..=n, by the recurrence (no library code).
fn binomial_pmf(n: usize, p: f64) -> Vec<f64> {
    let mut b = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; b.len() + 1];
        for (k, q) in b.iter().enumerate() {
            next[k] += q * (1.0 - p);
            next[k + 1] += q * p;
        }
        b = next;
    }
    b
}

/// A pool variable read only by sums and counts of fixed faces adds die by die: the
/// reads' joint distribution is one die's raised to the pool's power, the body then read
/// once per list of values. Against every roll on small pools (mixed dice, a `max` of the
/// whole pool, a reroll), against a closed form on 50d10 (which the pass over the faces
/// took 0.11 s over), and Monte Carlo.
#[test]
fn a_pool_variable_read_by_sums_and_counts_adds_die_by_die() {
    // Every roll of 2d6 and 2d8: the pool's `max` is 8, which no d6 shows.
    let d8: Vec<i64> = (1..=8).collect();
    let mut want = BTreeMap::new();
    for a in crate::dice_lang::rolls(2, &D6) {
        for b in crate::dice_lang::rolls(2, &d8) {
            let all: Vec<i64> = a.iter().chain(&b).copied().collect();
            let eights = all.iter().filter(|&&x| x == 8).count() as i64;
            let v = eights * 100 + all.iter().sum::<i64>()
                - all.iter().filter(|&&x| x <= 2).count() as i64;
            *want.entry(v).or_insert(0.0) += 1.0 / (36.0 * 64.0);
        }
    }
    let mixed = "let p = [2d6, 2d8] in p count max * 100 + p sum - p count <= 2";
    same(&compile(mixed, None), &want);
    assert_agrees(&compile(mixed, None), &["value"], 400_000, 17);
    // 4d6 rerolling 1s once: each die 1/36 for a 1, 7/36 for 2..6; read three ways.
    let die: Vec<(i64, f64)> = std::iter::once((1, 1.0 / 36.0))
        .chain((2..=6).map(|f| (f, 7.0 / 36.0)))
        .collect();
    let mut want = BTreeMap::new();
    let mut rolls: Vec<(Vec<i64>, f64)> = vec![(Vec::new(), 1.0)];
    for _ in 0..4 {
        rolls = rolls
            .into_iter()
            .flat_map(|(r, p)| {
                die.iter().map(move |&(f, q)| {
                    let mut r = r.clone();
                    r.push(f);
                    (r, p * q)
                })
            })
            .collect();
    }
    for (r, p) in &rolls {
        let hits = r.iter().filter(|&&x| x >= 5).count() as i64;
        let ones = r.iter().filter(|&&x| x == 1).count() as i64;
        *want
            .entry(hits * hits - ones + r.iter().sum::<i64>() / 4)
            .or_insert(0.0) += p;
    }
    let rerolled = "let p = 4d6 reroll 1 in p count >= 5 * p count >= 5 - p count 1 + p sum / 4";
    same(&compile(rerolled, None), &want);
    // 50d10 read by its 7+ and its 10s: a die is a 10 (1/10), a 7 to 9 (3/10) or
    // neither, so the 7+ are binomial(50, 4/10) and the 10s among them binomial(k, 1/4).
    let mut want = BTreeMap::new();
    for (k, pk) in binomial_pmf(50, 0.4).into_iter().enumerate() {
        for (t, pt) in binomial_pmf(k, 0.25).into_iter().enumerate() {
            *want.entry((k + t) as i64).or_insert(0.0) += pk * pt;
        }
    }
    let c = compile("let p = 50d10 in p count >= 7 + p count 10", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 400_000, 18);
}
