//! Issue #70, "limits from what is taken": mechanics a designer writes whose values
//! lie far apart, whose records span more numbers than they take, whose deals name
//! cards never read, or whose every face rolls again within a written depth: each
//! exact with its fractions against an enumerator written here (every roll, chain or
//! ordered deal, in big integers), Monte Carlo within 4.5 standard errors, and a
//! refusal only for what the roll really takes.

use crate::dice_lang::compile;
use crate::first_written::{binomial, exact, exact_of, holds, ordered_deals, put, Law, Q};
use crate::util::assert_agrees;
use std::collections::BTreeMap;

/// A die where every face rolls again, with its depth written, is bounded by that
/// depth: `d{5} explode depth 2` is 15 every time, and a d6 exploding on `>= 1` with
/// depth 2 is three d6 summed (both refused as "every roll would explode" before; with
/// no depth written it still is, since only the default limit would stop it).
#[test]
fn every_face_exploding_is_bounded_by_a_written_depth() {
    let mut fifteen = Law::new();
    put(&mut fifteen, 15, &Q::new(1u8, 1u8));
    holds("d{5} explode depth 2", &fifteen);
    let mut three = Law::new();
    for a in 1..=6 {
        for b in 1..=6 {
            for c in 1..=6 {
                put(&mut three, a + b + c, &Q::new(1u8, 216u8));
            }
        }
    }
    holds("d6 explode >= 1 depth 2", &three);
    let refused = crate::dice_lang::load_err("d{5} explode");
    assert!(refused.contains("every roll would explode"), "{refused}");
}

/// Results whose values lie far apart unevenly, over more numbers than Monte Carlo's
/// table holds (65,536), though they take few: a table of the values they take, not a
/// refusal from their range (each was refused as "the result can range from ... more
/// than 65536 values"). Two dice read as tens of thousands and units; a stress die
/// (Ars Magica: a d10 read 0 to 9, a 1 rolls again and doubles, a 0 after a 1 is 10
/// times the doubling) over 15 rolls, every chain walked.
#[test]
fn values_far_apart_get_a_row_each_not_a_refusal_from_their_range() {
    let mut tens = Law::new();
    for a in 1..=6 {
        for b in 1..=6 {
            for c in 1..=6 {
                put(&mut tens, (a + b) * 10000 + c, &Q::new(1u8, 216u8));
            }
        }
    }
    holds("2d6 * 10000 + d6", &tens);
    fn walk(mult: i64, left: u32, w: &Q, out: &mut Law) {
        if left == 0 {
            // Still rolling when the limit came: the result is the state's -1.
            put(out, -1, w);
            return;
        }
        let one = w.mul(&Q::new(1u8, 10u8));
        for x in 0..=9 {
            match x {
                1 => walk(2 * mult, left - 1, &one, out),
                0 => put(out, if mult == 1 { 0 } else { 10 * mult }, &one),
                x => put(out, mult * x, &one),
            }
        }
    }
    let mut stress = Law::new();
    walk(1, 15, &Q::new(1u8, 1u8), &mut stress);
    holds(
        "repeat mult = 1, res = -1 until res >= 0 do let x = d10 - 1 in \
         res = if x == 1 then -1 else if x == 0 then (if mult == 1 then 0 else 10 * mult) else mult * x, \
         mult = if x == 1 then 2 * mult else mult limit 15 then res",
        &stress,
    );
    // Past what a law spans (a doubling in each of 100 rounds) and past what a table
    // holds (each of 64 doublings times each of 1,999 sums of two d1000), the refusal names the
    // bound as what it is, not as the number it stopped at.
    let refused = crate::dice_lang::load_err(
        "repeat m = 1, r = -1 until r >= 0 do let x = d1000 + d1000 in r = if x == 2 then -1 else m * x, m = 2 * m then r",
    );
    assert!(
        refused.contains("to past the largest whole number a roll holds"),
        "{refused}"
    );
}

/// Values so far apart that their exact distribution spans more numbers than a law
/// holds (2^20) get no exact distribution, and were refused outright before ("the
/// result can range from 1000000 to 6000000: more than 65536 values"): Monte Carlo's
/// table lists the values each part takes, and the roll is rolled (a stress die as
/// first written, with no limit, too). Every value within 4.5 standard errors of its
/// chance worked out here, and none seen that cannot come.
#[test]
fn values_spread_past_a_law_are_rolled_in_monte_carlo() {
    let n = 60_000;
    let mut tens: BTreeMap<i64, f64> = BTreeMap::new();
    for a in 1..=6 {
        for b in 1..=6 {
            for c in 1..=6 {
                *tens.entry((a + b) * 1_000_000 + c).or_default() += 1.0 / 216.0;
            }
        }
    }
    let mut apart: BTreeMap<i64, f64> = BTreeMap::new();
    for a in 1..=6 {
        for b in 1..=3 {
            *apart.entry((a - b) * 1_000_000).or_default() += 1.0 / 18.0;
        }
    }
    // A stress die that doubles on every 1 with no limit written (100 rounds): a
    // doubling in each round passes what a law spans; its values are each doubling
    // (to the largest whole number, where it stays) times each face but 1.
    let mut stress: BTreeMap<i64, f64> = BTreeMap::new();
    let mut reach = 1.0;
    for k in 0..100 {
        let m = if k >= 63 { i64::MAX } else { 1i64 << k };
        for x in 2..=10 {
            *stress.entry(m.saturating_mul(x)).or_default() += reach / 10.0;
        }
        reach /= 10.0;
    }
    let doubling = "repeat m = 1, r = -1 until r >= 0 do let x = d10 in \
                    r = if x == 1 then -1 else m * x, m = 2 * m then r";
    for (roll, vs, want) in [
        ("2d6 * 1000000 + d6", None, &tens),
        ("d6 * 1000000", Some("d3 * 1000000"), &apart),
        (doubling, None, &stress),
    ] {
        let c = compile(roll, vs);
        assert!(c.exact.is_none(), "{roll}");
        let h = crate::util::simulate(&c, n, 5, 2);
        let r = rollsim::report::summarize(&c, &h, 5, "t", "t");
        let rows = &r.metrics[0].rows;
        let seen: BTreeMap<i64, f64> = rows
            .iter()
            .filter(|row| row.probability > 0.0)
            .map(|row| (row.label.parse().expect("a number"), row.probability))
            .collect();
        // Every value seen can come up; every value of a chance above 1e-3 is seen,
        // within 4.5 standard errors.
        for v in seen.keys() {
            assert!(want.contains_key(v), "{roll}: {v} seen");
        }
        for (v, p) in want.iter().filter(|(_, p)| **p > 1e-3) {
            let se = (p * (1.0 - p) / n as f64).sqrt();
            let got = seen.get(v).copied().unwrap_or(0.0);
            assert!((got - p).abs() < 4.5 * se, "{roll}: {v}: {got} vs {p}");
        }
    }
}

/// Perudo's bid with aces wild: the dice showing 1 or the face bid (4), counted by
/// `count on 1, 4` as the docs' `on` row says it reads after `count` (a parse error
/// before), with or without braces, and on a pool variable too.
#[test]
fn a_count_on_faces_named_one_by_one() {
    let twos = binomial(10, 2, 6);
    holds("10d6 count on 1, 4", &twos);
    holds("10d6 count on {1, 4}", &twos);
    holds("let p = 10d6 in p count on 1, 4", &twos);
    let mut bid = Law::new();
    for (k, q) in &twos {
        put(&mut bid, (*k >= 4) as i64, q);
    }
    holds("(10d6 count on 1, 4) >= 4", &bid);
    // A face named `on` is still a symbol to count, and a minus apart from its number
    // is the expression's: the `on`s of three coins, less 1.
    let mut coins = Law::new();
    for (k, q) in binomial(3, 1, 2) {
        put(&mut coins, k - 1, &q);
    }
    holds("3d{on, off} count on - 1", &coins);
    // With no face after it, `count on` says what it takes.
    let refused = crate::dice_lang::load_err("3d6 count on");
    assert!(refused.contains("`count on 1, 4`"), "{refused}");
}

/// A record whose results span more numbers together than Monte Carlo's table holds,
/// though they take few combinations: gold of 3d6 x 10 and experience of d100 x 10
/// span 151 x 991 numbers (refused before as "more than 65536 combinations") and take
/// 16 x 100; so do results whose bounds multiply past what one law spans, packed by
/// the values each takes. Each field against its own enumeration, Monte Carlo on them;
/// four d20s, which take 160,000 combinations, are refused as that.
#[test]
fn a_record_of_results_far_apart_takes_its_combinations() {
    let c = compile("{gold = 3d6 * 10, xp = d100 * 10}", None);
    let mut gold = Law::new();
    for a in 1..=6 {
        for b in 1..=6 {
            for d in 1..=6 {
                put(&mut gold, 10 * (a + b + d), &Q::new(1u8, 216u8));
            }
        }
    }
    let mut xp = Law::new();
    for x in 1..=100 {
        put(&mut xp, 10 * x, &Q::new(1u8, 100u8));
    }
    for (i, want) in [(0, gold), (1, xp)] {
        let got: Vec<(i64, String)> = exact_of(&c, i)
            .into_iter()
            .map(|(v, (_, f))| (v, f))
            .collect();
        let want: Vec<(i64, String)> = want.into_iter().map(|(v, q)| (v, q.text())).collect();
        assert_eq!(got, want, "field {i}");
    }
    assert_agrees(&c, &["gold", "xp"], 40_000, 5);
    // Qwixx: two white dice and four coloured ones, each colour's sum a white die (the
    // lower for red and yellow, the higher for green and blue) and its own die; five
    // results of 11 values each span 161,051 numbers (refused before by that product),
    // and take at most 6^6 combinations. Every roll walked.
    let c = compile(
        "let w1 = d6 in let w2 = d6 in let r = d6 in let y = d6 in let g = d6 in let b = d6 in \
         { white = w1 + w2, red = min(w1, w2) + r, yellow = min(w1, w2) + y, \
         green = max(w1, w2) + g, blue = max(w1, w2) + b }",
        None,
    );
    let mut want = vec![Law::new(); 5];
    let one = Q::new(1u8, 46656u64);
    for roll in 0..46656u64 {
        let d: Vec<i64> = (0..6)
            .map(|i| (roll / 6u64.pow(i) % 6) as i64 + 1)
            .collect();
        let (lo, hi) = (d[0].min(d[1]), d[0].max(d[1]));
        for (f, v) in [d[0] + d[1], lo + d[2], lo + d[3], hi + d[4], hi + d[5]]
            .into_iter()
            .enumerate()
        {
            put(&mut want[f], v, &one);
        }
    }
    for (i, want) in want.into_iter().enumerate() {
        let got: Vec<(i64, String)> = exact_of(&c, i)
            .into_iter()
            .map(|(v, (_, f))| (v, f))
            .collect();
        let want: Vec<(i64, String)> = want.into_iter().map(|(v, q)| (v, q.text())).collect();
        assert_eq!(got, want, "qwixx field {i}");
    }
    assert_agrees(&c, &["white", "red", "yellow", "green", "blue"], 40_000, 5);
    // One value read twice in thousands: 20 values each, over 19,001 numbers each.
    let c = compile("let x = d20 in { a = x * 1000, b = x * 1000 }", None);
    for i in 0..2 {
        let got = exact_of(&c, i);
        assert_eq!(got.len(), 20, "{got:?}");
        assert!(
            got.iter().all(|(v, (_, f))| v % 1000 == 0 && f == "1/20"),
            "{got:?}"
        );
    }
    let refused = crate::dice_lang::load_err("{a = d20, b = d20, c = d20, d = d20}");
    assert!(
        refused.contains("the record's results (a, b, c, d) take 160,000 combinations"),
        "{refused}"
    );
}

/// War: two cards turned up, and on a tie three cards each face down and a fourth face
/// up, read; the face-down cards are named and never read. A deck small enough that
/// every ordered deal of all eight named cards is walked (in the enumerator, the cards
/// never read are dealt too); the 52-card deal with its ten names is exact at once
/// (it spent its whole budget on the six unread cards before, Monte Carlo only).
#[test]
fn cards_named_and_never_read_cost_nothing() {
    let deck = [1, 1, 2, 2, 3, 3, 4, 4, 5];
    let war = |h: &[i64]| {
        let cmp = |x: i64, y: i64| (x > y) as i64 - (y > x) as i64;
        if h[0] != h[1] {
            cmp(h[0], h[1])
        } else {
            2 * cmp(h[6], h[7])
        }
    };
    let want = ordered_deals(&deck, 8, war);
    holds(
        "let a, b, x1, y1, x2, y2, c, d = deck{1*2, 2*2, 3*2, 4*2, 5} draw 8 in \
         if a != b then (a > b) - (b > a) else 2 * ((c > d) - (d > c))",
        &want,
    );
    let c = compile(
        "let a, b, x1, y1, x2, y2, x3, y3, c, d = deck{1*4, 2*4, 3*4, 4*4, 5*4, 6*4, 7*4, 8*4, \
         9*4, 10*4, 11*4, 12*4, 13*4} draw 10 in if a != b then (a > b) - (b > a) else 2 * ((c > d) - (d > c))",
        None,
    );
    // The first two differ 16/17 of the time, each wins half: 8/17. They tie 1/17 of
    // the time; then the second pair, from 50 cards (one rank down to 2), ties in
    // (2 + 12 * 4 * 3) / (50 * 49) = 73/1225 (73/20825 in all), and each side wins
    // half the rest: 576/20825.
    // A card read only as a pool variable or by a meeting's `only` is read: its
    // message is the read's, not "unknown name".
    let e = crate::dice_lang::load_err("let a, b = deck{1, 2, 3} draw 2 in b sum");
    assert!(e.contains("`b` is a number"), "{e}");
    let e = crate::dice_lang::load_err(
        "let t, u = deck{10, 12, 14} draw 2 in beats(3d20 only <= u, d20 only <= 12)",
    );
    assert!(
        e.contains("`only` takes a face fixed before the roll"),
        "{e}"
    );
    let got = exact(&c);
    assert_eq!(got[&1].1, "8/17");
    assert_eq!(got[&2].1, "576/20825");
    assert_eq!(got[&0].1, "73/20825");
}

/// A keep of exploding dice counts its splits as a `repeat` counts its rounds, eight
/// words of the counts a unit: `16d10 explode keep highest 8` spent its budget on
/// counts of 22 words in a tenth of a second and showed no fraction. Its fractions
/// now, summing to exactly 1, with Monte Carlo agreeing.
#[test]
fn a_keep_of_exploding_dice_has_its_fractions() {
    let c = compile("16d10 explode keep highest 8", None);
    let got = exact(&c);
    let mut total = Q::new(0u8, 1u8);
    for (v, (_, f)) in &got {
        let (n, d) = f.split_once('/').unwrap_or_else(|| panic!("{v}: {f}"));
        total = total.add(&Q::new(
            n.parse::<num_bigint::BigUint>().unwrap(),
            d.parse::<num_bigint::BigUint>().unwrap(),
        ));
    }
    assert_eq!(total.text(), "1/1");
    assert_agrees(&c, &["value"], 40_000, 3);
}

/// A count below 0 rolls no dice, written or rolled, as the docs' `(EXPR)dS` row says:
/// `(0 - 3)d6` was refused ("-3 dice: a pool rolls 0 to 1000000 dice") where `(d4 -
/// 3)d6` rolled none. `(d4 - 3)d6 + (0 - 3)d6`: a 4 on the d4 rolls one d6, else none.
/// A die of 0 sides names what it was given.
#[test]
fn a_count_below_zero_rolls_no_dice_written_or_rolled() {
    let mut want = Law::new();
    put(&mut want, 0, &Q::new(3u8, 4u8));
    for face in 1..=6 {
        put(&mut want, face, &Q::new(1u8, 24u8));
    }
    holds("(d4 - 3)d6 + (0 - 3)d6", &want);
    let mut zero = Law::new();
    put(&mut zero, 5, &Q::new(1u8, 1u8));
    holds("(0 - 3)d6 + 5", &zero);
    let refused = crate::dice_lang::load_err("d0");
    assert!(
        refused.contains("`d0`: a die has 1 to 1,000 sides"),
        "{refused}"
    );
    let refused = crate::dice_lang::load_err("(1000 * 2000)d6");
    assert!(
        refused.contains("2,000,000 dice: a pool rolls 0 to 1,000,000 dice"),
        "{refused}"
    );
}
