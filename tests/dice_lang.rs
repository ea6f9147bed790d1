//! Issue #14: the dice language. Every family of expressions against a brute-force
//! enumerator written here (every roll of every die, no shared code with the library's
//! exact engine), Monte Carlo within 4.5 standard errors, and the errors a designer sees.

use crate::util::{assert_agrees, exact_of};
use rollsim::config::load_str;
use rollsim::model::Compiled;
use std::collections::BTreeMap;

/// Compile `roll` (and `vs`) as a one-scenario dice config.
pub(crate) fn compile(roll: &str, vs: Option<&str>) -> Compiled {
    let mut text = format!("system = \"dice\"\n[scenarios.s]\nroll = {roll:?}\n");
    if let Some(v) = vs {
        text.push_str(&format!("vs = {v:?}\n"));
    }
    load_str(&text, "dice.toml", &[])
        .unwrap_or_else(|e| panic!("{roll}: {e}"))
        .compile("s")
        .unwrap()
}

/// Every way `n` dice of `faces` land, each with its weight.
pub(crate) fn rolls(n: usize, faces: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|r| {
                faces.iter().map(move |&f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    out
}

/// The brute-force distribution of `f` over all rolls of `n` dice of `faces`.
pub(crate) fn brute(n: usize, faces: &[i64], f: impl Fn(&[i64]) -> i64) -> BTreeMap<i64, f64> {
    let all = rolls(n, faces);
    let w = 1.0 / all.len() as f64;
    let mut m = BTreeMap::new();
    for r in &all {
        *m.entry(f(r)).or_insert(0.0) += w;
    }
    m
}

/// The exact distribution of the compiled scenario's first metric, by value.
pub(crate) fn dist(c: &Compiled) -> BTreeMap<i64, f64> {
    let m = &c.metrics[0];
    let p = m.project_f64(c.exact.as_ref().unwrap());
    let mut out = BTreeMap::new();
    for (v, q) in p.iter().enumerate() {
        if *q > 1e-15 {
            out.insert(m.value(v) as i64, *q);
        }
    }
    out
}

pub(crate) fn same(c: &Compiled, want: &BTreeMap<i64, f64>) {
    let got = dist(c);
    let keys: Vec<i64> = want.keys().copied().filter(|k| want[k] > 1e-15).collect();
    assert_eq!(
        got.keys().copied().collect::<Vec<_>>(),
        keys,
        "{}",
        c.description
    );
    for (k, p) in want {
        let g = got.get(k).copied().unwrap_or(0.0);
        assert!(
            (g - p).abs() < 1e-12,
            "{}: P({k}) = {g}, want {p}",
            c.description
        );
    }
}

pub(crate) const D6: [i64; 6] = [1, 2, 3, 4, 5, 6];

/// The error a one-scenario config with this `roll` gets (it must not load).
pub(crate) fn load_err(roll: &str) -> String {
    let text = format!("system = \"dice\"\n[scenarios.s]\nroll = {roll:?}\n");
    match load_str(&text, "dice.toml", &[]) {
        Ok(_) => panic!("{roll} loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn keep_and_drop_against_every_roll() {
    let sorted = |r: &[i64]| {
        let mut v = r.to_vec();
        v.sort();
        v
    };
    // 4d6 drop lowest: the sum of the three highest of every one of 1,296 rolls.
    let c = compile("4d6 drop lowest", None);
    same(&c, &brute(4, &D6, |r| sorted(r)[1..].iter().sum()));
    // 5d6 keep lowest 2.
    let c = compile("5d6 keep lowest 2", None);
    same(&c, &brute(5, &D6, |r| sorted(r)[..2].iter().sum()));
    assert_agrees(&c, &["value"], 300_000, 1);
    // Advantage and disadvantage.
    let d20: Vec<i64> = (1..=20).collect();
    same(
        &compile("2d20 highest", None),
        &brute(2, &d20, |r| *r.iter().max().unwrap()),
    );
    same(
        &compile("2d20 lowest", None),
        &brute(2, &d20, |r| *r.iter().min().unwrap()),
    );
    // A mixed pool: two d6 and a d8, keep the highest two.
    let c = compile("[2d6, 1d8] keep highest 2", None);
    let mut want = BTreeMap::new();
    for r in rolls(2, &D6) {
        for e in 1..=8 {
            let mut v = [r[0], r[1], e];
            v.sort();
            *want.entry(v[1] + v[2]).or_insert(0.0) += 1.0 / 288.0;
        }
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 300_000, 2);
    // The highest of the kept dice, and the largest set of equal faces.
    let c = compile("4d6 keep lowest 3 highest", None);
    same(&c, &brute(4, &D6, |r| sorted(r)[2]));
    let c = compile("4d6 maxset", None);
    same(
        &c,
        &brute(4, &D6, |r| {
            (1..=6)
                .map(|f| r.iter().filter(|&&x| x == f).count() as i64)
                .max()
                .unwrap()
        }),
    );
    assert_agrees(&c, &["value"], 300_000, 3);
}

#[test]
fn counts_faces_and_arithmetic_against_every_roll() {
    // A success pool: 4d10, 7+ succeeds.
    let d10: Vec<i64> = (1..=10).collect();
    let c = compile("4d10 count >= 7", None);
    same(
        &c,
        &brute(4, &d10, |r| r.iter().filter(|&&x| x >= 7).count() as i64),
    );
    // Fudge dice plus a modifier.
    let c = compile("4dF + 1", None);
    same(&c, &brute(4, &[-1, 0, 1], |r| r.iter().sum::<i64>() + 1));
    assert_agrees(&c, &["value"], 300_000, 4);
    // Named faces count as their values: 1 by default, 0 for a blank or a miss.
    let c = compile("3d{blank, miss, hit, hit, crit=2, shield}", None);
    same(&c, &brute(3, &[0, 0, 1, 1, 2, 1], |r| r.iter().sum()));
    // Arithmetic and comparison: (2d6 * 2) / 3 >= 4.
    let c = compile("(2d6 * 2) / 3 >= 4", None);
    same(
        &c,
        &brute(2, &D6, |r| ((r[0] + r[1]) * 2).div_euclid(3).ge(&4) as i64),
    );
    assert_eq!(c.headline.label, "P(success)");
}

#[test]
fn rerolls_and_explosions_by_hand() {
    // Reroll 1s once on a d6: a 1 shows with 1/36, any other face with 1/6 + 1/36.
    let c = compile("d6 reroll 1", None);
    close_map(&c, &[(1, 1.0 / 36.0), (2, 7.0 / 36.0), (6, 7.0 / 36.0)]);
    // Reroll while it shows 1: the other five faces, 1/5 each.
    let c = compile("d6 reroll 1 always", None);
    close_map(&c, &[(2, 0.2), (6, 0.2)]);
    assert_agrees(&c, &["value"], 200_000, 5);
    // An exploding d6: 6k + r for r in 1..5 with (1/6)^k * 1/6.
    let c = compile("d6 explode", None);
    close_map(
        &c,
        &[(5, 1.0 / 6.0), (7, 1.0 / 36.0), (17, 1.0 / 216.0), (6, 0.0)],
    );
    // The chain stops after 21 rolls and says how much mass that is: (1/6)^20 * 1/6.
    assert!((c.capped_mass - (1.0f64 / 6.0).powi(21)).abs() < 1e-25);
    assert_agrees(&c, &["value"], 300_000, 6);
    // 10-again: a 10 adds a die; each die succeeds on 7+ (4/10) and chains with 1/10,
    // so E = 5 * 0.4 / 0.9 successes.
    let c = compile("5d10 again 10 count >= 7", None);
    let mean: f64 = dist(&c).iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 5.0 * 0.4 / 0.9).abs() < 1e-9, "{mean}");
    assert_agrees(&c, &["value"], 300_000, 7);
    // Roll and keep with exploding 10s: Monte Carlo agrees with the multiset pass.
    let c = compile("6d10 explode keep highest 3", None);
    assert_agrees(&c, &["value"], 300_000, 8);
}

fn close_map(c: &Compiled, want: &[(i64, f64)]) {
    let d = dist(c);
    for (v, p) in want {
        let g = d.get(v).copied().unwrap_or(0.0);
        assert!(
            (g - p).abs() < 1e-12,
            "{}: P({v}) = {g}, want {p}",
            c.description
        );
    }
}

#[test]
fn variables_conditions_and_opposed_rolls_by_hand() {
    // d20 + 5 against armour class 15; a natural 20 doubles the damage dice.
    let c = compile(
        "let a = d20 in if a == 20 then 2d8 + 3 else if a + 5 >= 15 then 1d8 + 3 else 0",
        None,
    );
    let mut want = BTreeMap::new();
    for a in 1..=20i64 {
        for x in 1..=8i64 {
            for y in 1..=8i64 {
                let v = if a == 20 {
                    x + y + 3
                } else if a + 5 >= 15 {
                    x + 3
                } else {
                    0
                };
                *want.entry(v).or_insert(0.0) += 1.0 / (20.0 * 64.0);
            }
        }
    }
    same(&c, &want);
    assert_agrees(&c, &["value"], 300_000, 9);
    // A bound variable is one roll used twice: d6 - d6 of the same die is always 0.
    same(
        &compile("let x = d6 in x - x", None),
        &BTreeMap::from([(0, 1.0)]),
    );
    // Opposed: d20 + 5 against d20 + 3 wins when a + 2 > b: every a for b = 1 or 2
    // (40 pairs), and 22 - b of them for b = 3..=20 (19 + 18 + ... + 2 = 189): 229/400.
    // A tie, a + 2 = b, for b = 3..=20: 18/400.
    let c = compile("d20 + 5", Some("d20 + 3"));
    assert!((exact_of(&c, "result", "the roll wins") - 229.0 / 400.0).abs() < 1e-12);
    assert!((exact_of(&c, "result", "tie") - 18.0 / 400.0).abs() < 1e-12);
    assert_agrees(&c, &["result", "margin"], 300_000, 10);
}

/// Issue #57: in an expression of three lines (a config's `roll = """..."""`), the
/// error names its line and column and the caret stands under the name on its line.
#[test]
fn a_multi_line_expressions_error_points_at_its_line() {
    let text = "system = \"dice\"\n[scenarios.s]\nroll = \"\"\"let x = d6 in\n  let y = d8 in\n  x + y + foo\"\"\"\n";
    let e = load_str(text, "dice.toml", &[]).unwrap_err().to_string();
    assert!(e.contains("line 3, column 11"), "{e}");
    assert!(
        e.contains(
            "  let x = d6 in\n    let y = d8 in\n    x + y + foo\n            ^ unknown name `foo`"
        ),
        "{e}"
    );
}

/// Issue #57: a read of a parenthesised pool says why it fails and how to write it;
/// both ways it suggests work and agree (a d6 rerolled once on a 1 shows 5 or 6 with
/// chance 1/3 + 1/6 * 1/3 = 7/18, so the mean count of 20 such dice is 20 * 7/18).
#[test]
fn a_read_of_a_parenthesised_pool_says_how_to_keep_the_dice() {
    let e = load_str(
        "system = \"dice\"\n[scenarios.s]\nroll = \"(20d6 reroll 1) count >= 5\"\n",
        "dice.toml",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("parentheses make a number of the dice inside"),
        "{e}"
    );
    for roll in [
        "20d6 reroll 1 count >= 5",
        "let p = 20d6 reroll 1 in p count >= 5",
    ] {
        let mean: f64 = dist(&compile(roll, None))
            .iter()
            .map(|(v, p)| *v as f64 * p)
            .sum();
        assert!((mean - 20.0 * 7.0 / 18.0).abs() < 1e-9, "{roll}: {mean}");
    }
}

/// Issue #57: `d20 / 0` was 0 without a word. A divisor that is always 0 is an error
/// with the caret under it; one that is 0 only on some rolls counts as 0 there, as the
/// docs say: `d20 / (d2 - 1)` is 0 when the d2 shows 1, else the d20 (mean 10.5 / 2).
#[test]
fn a_division_by_zero_is_an_error_under_the_divisor() {
    for (roll, col) in [("d20 / 0", 7), ("d20 / (2 - 2)", 7), ("3 + d6 / -0", 10)] {
        let e = load_str(
            &format!("system = \"dice\"\n[scenarios.s]\nroll = {roll:?}\n"),
            "dice.toml",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(&format!("column {col}: ")), "{roll}: {e}");
        let caret = format!("\n  {}^ division by 0", " ".repeat(col - 1));
        assert!(e.contains(&caret), "{roll}: {e}");
    }
    let mean: f64 = dist(&compile("d20 / (d2 - 1)", None))
        .iter()
        .map(|(v, p)| *v as f64 * p)
        .sum();
    assert!((mean - 10.5 / 2.0).abs() < 1e-12, "{mean}");
}

#[test]
fn errors_point_at_the_column_and_suggest() {
    let err = |text: &str| {
        load_str(
            &format!("system = \"dice\"\n[scenarios.s]\nroll = {text:?}\n"),
            "dice.toml",
            &[],
        )
        .unwrap_err()
        .to_string()
    };
    let e = err("4d6 drop lowst");
    assert!(e.contains("dice.toml:3:1: key `scenarios.s.roll`"), "{e}");
    assert!(e.contains("column 10"), "{e}");
    assert!(e.contains("4d6 drop lowst\n"), "{e}");
    assert!(
        e.contains("           ^ expected `highest` or `lowest`"),
        "{e}"
    );
    assert!(e.contains("(did you mean `lowest`?)"), "{e}");
    // A read of the shape table is a word of the language too.
    let e = err("7d10 mod");
    assert!(e.contains("(did you mean `mode`?)"), "{e}");
    let e = err("5d6 run");
    assert!(e.contains("(did you mean `runs`?)"), "{e}");
    // A word of the language where a name goes (a result's, a value's, a state's) is
    // said to be one, with a name that would do.
    for (text, word) in [
        ("{highest = 3d6 highest, b = d6}", "highest"),
        ("let straight = 5d6 straight in straight", "straight"),
        (
            "repeat sum = 0 until sum > 10 do sum = sum + d6 then rounds",
            "sum",
        ),
    ] {
        let e = err(text);
        assert!(
            e.contains(&format!(
                "found `{word}` (a word of the language, so not a name: write another, e.g. `my_{word}`)"
            )),
            "{e}"
        );
    }
    let e = err("3d6 + skil");
    assert!(e.contains("unknown name `skil`"), "{e}");
    let e = err("d6 reroll <= 6 always");
    assert!(e.contains("never stop"), "{e}");
    // No cap of a hundred dice (issue #42): past a million a pool does not fit.
    let e = err("2000000d6");
    assert!(e.contains("0 to 1,000,000"), "{e}");
    // A stat of the scenario's unit is a name; a near miss is suggested.
    let text = "system = \"dice\"\n[units.hero]\nskill = 4\n[scenarios.s]\nunit = \"hero\"\nroll = \"(skil)d6 count >= 5\"\n";
    let e = load_str(text, "dice.toml", &[]).unwrap_err().to_string();
    assert!(e.contains("(did you mean `skill`?)"), "{e}");
    let ok = load_str(&text.replace("(skil)", "(skill)"), "dice.toml", &[]).unwrap();
    let c = ok.compile("s").unwrap();
    // 4d6, 5+ succeeds: 4 * 1/3 expected.
    let mean: f64 = dist(&c).iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 4.0 / 3.0).abs() < 1e-12);
}

#[test]
fn the_parser_survives_hostile_text() {
    // Random byte soup and deep nesting: an error or an expression, never a panic.
    let mut state = 12345u64;
    let alphabet: Vec<char> = "0123456789d{}[](),=<>!+-*/ FkeplodhigstwrcuanmxLE%_"
        .chars()
        .collect();
    for _ in 0..20_000 {
        let len = (state % 24) as usize + 1;
        let mut s = String::new();
        for _ in 0..len {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push(alphabet[(state >> 33) as usize % alphabet.len()]);
        }
        let _ = rollsim::systems::dice::lang::parse(&s);
    }
    for deep in [
        "(".repeat(10_000),
        "-".repeat(10_000),
        "let a = ".repeat(2_000),
    ] {
        assert!(rollsim::systems::dice::lang::parse(&deep).is_err());
    }
}

#[test]
fn pool_variables_read_the_same_dice_several_ways() {
    // Blades in the Dark: the highest of 4d6, a critical (7) on two or more 6s.
    let c = compile(
        "let p = 4d6 in if p count 6 >= 2 then 7 else p highest",
        None,
    );
    same(
        &c,
        &brute(4, &D6, |r| {
            if r.iter().filter(|&&x| x == 6).count() >= 2 {
                7
            } else {
                *r.iter().max().unwrap()
            }
        }),
    );
    assert_agrees(&c, &["value"], 300_000, 11);
    // A success pool where each 1 cancels a success: 5d10, 7+ succeeds.
    let d10: Vec<i64> = (1..=10).collect();
    let c = compile("let p = 5d10 in p count >= 7 - p count 1", None);
    same(
        &c,
        &brute(5, &d10, |r| {
            r.iter().filter(|&&x| x >= 7).count() as i64
                - r.iter().filter(|&&x| x == 1).count() as i64
        }),
    );
    assert_agrees(&c, &["value"], 300_000, 12);
    // Read one way only, it is a number: 3d6 twice is twice the same sum.
    let c = compile("let x = 3d6 in x + x", None);
    same(&c, &brute(3, &D6, |r| 2 * r.iter().sum::<i64>()));
    // The sum of the highest two and the lowest of the same 3d6.
    let c = compile("let p = 3d6 in p keep highest 2 - p lowest", None);
    same(
        &c,
        &brute(3, &D6, |r| {
            let mut v = r.to_vec();
            v.sort();
            v[1] + v[2] - v[0]
        }),
    );
    assert_agrees(&c, &["value"], 300_000, 13);
}

#[test]
fn rush_written_in_the_language_gives_the_built_in_numbers() {
    // configs/rush-as-dice.toml against configs/rush.toml: two independent
    // implementations, exactly the same distributions.
    let lang = crate::util::load("rush-as-dice.toml");
    let rush = crate::util::load("rush.toml");
    // By value from 0 (a dice metric may start below 0 where no roll lands).
    let exact = |c: &Compiled, metric: &str| {
        let m = c.metrics.iter().find(|m| m.name == metric).unwrap();
        let p = m.project_f64(c.exact.as_ref().unwrap());
        let mut out = Vec::new();
        for (i, q) in p.iter().enumerate() {
            let v = m.value(i);
            if v < 0.0 {
                assert!(*q < 1e-15, "{}: mass below 0", c.name);
                continue;
            }
            let v = v as usize;
            if out.len() <= v {
                out.resize(v + 1, 0.0);
            }
            out[v] += q;
        }
        out
    };
    let close_all = |a: &[f64], b: &[f64], what: &str| {
        let n = a.len().max(b.len());
        for i in 0..n {
            let (x, y) = (
                a.get(i).copied().unwrap_or(0.0),
                b.get(i).copied().unwrap_or(0.0),
            );
            assert!((x - y).abs() < 1e-12, "{what} [{i}]: {x} vs {y}");
        }
    };
    // The Slam's five results, in the same order.
    let (l, r) = (
        lang.compile("slam-orc-vs-human-guard").unwrap(),
        rush.compile("slam-orc-vs-human-guard").unwrap(),
    );
    close_all(&exact(&l, "outcome"), &exact(&r, "result"), "slam result");
    // The armour check after a double: turns out of play.
    let t = lang.compile("slam-orc-vs-human-guard-turns").unwrap();
    close_all(
        &exact(&t, "value"),
        &exact(&r, "target_turns_out_of_play"),
        "turns out of play",
    );
    // The Dash chain: Dashes made before the first failure.
    let (l, r) = (
        lang.compile("dash-chain-striker").unwrap(),
        rush.compile("dash-chain-striker").unwrap(),
    );
    close_all(
        &exact(&l, "value"),
        &exact(&r, "tests_passed"),
        "dash chain",
    );
    // The pass, the Catch pool chained from the Throw.
    let (l, r) = (
        lang.compile("pass-striker-to-jack").unwrap(),
        rush.compile("pass-striker-to-jack").unwrap(),
    );
    close_all(&exact(&l, "outcome"), &exact(&r, "result"), "pass");
    for name in lang.scenario_names() {
        let c = lang.compile(&name).unwrap();
        let m: Vec<&str> = c.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_agrees(&c, &m, 200_000, 21);
    }
}

#[test]
fn sorted_pairs_and_face_to_face_against_every_roll() {
    // RISK: 3 attacking dice against 2, each side sorted high to low and paired off;
    // the defender wins ties. The classic 2890 / 2611 / 2275 out of 7776.
    let c = compile("pairs(3d6, 2d6)", None);
    let want = brute(5, &D6, |r| {
        let mut a = r[..3].to_vec();
        let mut d = r[3..].to_vec();
        a.sort_by(|x, y| y.cmp(x));
        d.sort_by(|x, y| y.cmp(x));
        a.iter().zip(&d).filter(|(x, y)| x > y).count() as i64
    });
    same(&c, &want);
    assert!((want[&2] - 2890.0 / 7776.0).abs() < 1e-12);
    assert!((want[&0] - 2275.0 / 7776.0).abs() < 1e-12);
    assert_agrees(&c, &["value"], 300_000, 31);
    // Face to face: how many of the first pool's dice beat the other's best; with
    // `ties` an equal die counts for the first.
    let d12: Vec<i64> = (1..=12).collect();
    for (expr, ties) in [
        ("beats(2d12, 2d12)", false),
        ("beats(2d12, 2d12, ties)", true),
    ] {
        let c = compile(expr, None);
        same(
            &c,
            &brute(4, &d12, |r| {
                let top = r[2].max(r[3]);
                r[..2]
                    .iter()
                    .filter(|&&x| if ties { x >= top } else { x > top })
                    .count() as i64
            }),
        );
        assert_agrees(&c, &["value"], 300_000, 32);
    }
    // Kept dice only: the highest two of 3d6 paired against 2d6.
    let c = compile("pairs(3d6 keep highest 2, 2d6)", None);
    same(&c, &want);
    // Different dice on each side, ties to the first: 2d8 against 3d6.
    let c = compile("pairs(2d8, 3d6, ties)", None);
    let mut want = BTreeMap::new();
    for a in rolls(2, &[1, 2, 3, 4, 5, 6, 7, 8]) {
        for d in rolls(3, &D6) {
            let (mut a, mut d) = (a.clone(), d.clone());
            a.sort_by(|x, y| y.cmp(x));
            d.sort_by(|x, y| y.cmp(x));
            let w = a.iter().zip(&d).filter(|(x, y)| x >= y).count() as i64;
            *want.entry(w).or_insert(0.0) += 1.0 / (64.0 * 216.0);
        }
    }
    same(&c, &want);
    // Large pools stay exact (one pass over the faces) and Monte Carlo agrees.
    for expr in ["pairs(10d6, 10d6)", "beats(5d20, 5d20)"] {
        let c = compile(expr, None);
        assert!(c.exact.is_some(), "{expr}");
        assert_agrees(&c, &["value"], 300_000, 33);
    }
}

#[test]
fn targets_come_from_stats_too() {
    // A pool of `pool` d10 succeeding at or above `target`, both the unit's stats:
    // 4 dice at 7+ count a binomial(4, 0.4).
    let text = "system = \"dice\"\n[units.hero]\npool = 4\ntarget = 7\n[scenarios.s]\nunit = \"hero\"\nroll = \"(pool)d10 count >= target\"\n\
                [scenarios.t]\nunit = \"hero\"\nroll = \"d10 reroll < (target - 4) always\"\n";
    let cfg = load_str(text, "dice.toml", &[]).unwrap();
    let c = cfg.compile("s").unwrap();
    let d10: Vec<i64> = (1..=10).collect();
    same(
        &c,
        &brute(4, &d10, |r| r.iter().filter(|&&x| x >= 7).count() as i64),
    );
    // Rerolled while under 3: faces 3 to 10, 1/8 each.
    let t = cfg.compile("t").unwrap();
    close_map(&t, &[(3, 0.125), (10, 0.125), (2, 0.0)]);
    // Stepping the stat moves the target: a sweep of `target` is a balance command.
    let stepped = load_str(text, "dice.toml", &["units.hero.target=9".to_string()])
        .unwrap()
        .compile("s")
        .unwrap();
    same(
        &stepped,
        &brute(4, &d10, |r| r.iter().filter(|&&x| x >= 9).count() as i64),
    );
    // Dice in a condition are rolled first (issue #26): a d6 target for each 4d6 roll.
    let mut want = BTreeMap::new();
    for w in 1..=6 {
        for (v, p) in brute(4, &D6, |r| r.iter().filter(|&&x| x >= w).count() as i64) {
            *want.entry(v).or_insert(0.0) += p / 6.0;
        }
    }
    same(&compile("4d6 count >= (d6)", None), &want);
}

#[test]
fn past_the_stated_bound_it_is_monte_carlo_only_and_says_so() {
    // A keep over 100 dice of 1,000 faces passes the exact engine's bound of work: the
    // scenario still runs, by Monte Carlo, and its description says why.
    let c = compile("100d1000 keep highest 50", None);
    assert!(c.exact.is_none());
    assert!(
        c.description.contains("no exact distribution")
            && c.description.contains("Monte Carlo only"),
        "{}",
        c.description
    );
    let h = crate::util::simulate(&c, 1_000, 1, 1);
    assert_eq!(h.trials, 1_000);
    // A pool variable whose reads need many states together (read by its sum and its
    // highest die: a state per pair of them and dice placed at every face) is worked
    // out in floats past the counting's budget: the sums cancel, the highest of 40d20
    // is 20 less the sum of (j/20)^40 below it, with no fraction.
    let c = compile(
        "let p = 40d20 in let q = 40d20 in p sum - q sum + p highest",
        None,
    );
    let mean = 20.0 - (0..20).map(|j| (f64::from(j) / 20.0).powi(40)).sum::<f64>();
    assert!(c.exact.is_some(), "{}", c.description);
    let got: f64 = dist(&c).iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((got - mean).abs() < 1e-9, "{got} against {mean}");
    assert!(c.exact_fractions.is_none());
    // Twice the dice, likewise past the floats' budget: Monte Carlo only, saying which
    // budget ran out.
    let c = compile(
        "let p = 80d20 in let q = 80d20 in p sum - q sum + p highest",
        None,
    );
    assert!(
        c.exact.is_none()
            && c.description
                .contains("takes more than 15,000,000 operations"),
        "{}",
        c.description
    );
}

/// C(n, k) as a float.
fn choose(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[test]
fn repetition_until_absorption_by_hand() {
    // Attrition: 3 hit points, a d6 hits on 5+. The rounds it takes are negative
    // binomial: P(R = r) = C(r - 1, 2) (1/3)^3 (2/3)^(r - 3). Past 100 rounds the repeat
    // stops unfinished: P(fewer than 3 hits in 100 rolls), reported as capped mass.
    let c = compile(
        "repeat hp = 3 until hp <= 0 do hp = hp - (d6 >= 5) then rounds",
        None,
    );
    let d = dist(&c);
    for r in 3..=60u64 {
        let want = choose(r - 1, 2) * (1.0f64 / 3.0).powi(3) * (2.0f64 / 3.0).powi(r as i32 - 3);
        let got = d.get(&(r as i64)).copied().unwrap_or(0.0);
        assert!(
            (got - want).abs() < 1e-12,
            "P(R = {r}) = {got}, want {want}"
        );
    }
    let unfinished: f64 = (0..3u64)
        .map(|k| {
            choose(100, k) * (1.0f64 / 3.0).powi(k as i32) * (2.0f64 / 3.0).powi(100 - k as i32)
        })
        .sum();
    assert!(
        (c.capped_mass - unfinished).abs() < 1e-6 * unfinished,
        "unfinished {} want {unfinished}",
        c.capped_mass
    );
    assert!(
        c.capped_note
            .as_deref()
            .unwrap()
            .contains("limit of rounds"),
        "{:?}",
        c.capped_note
    );
    assert_agrees(&c, &["value"], 300_000, 21);

    // A duel: each round both roll 2d6, the lower loses a point (a tie: nobody). Ties
    // aside it is a fair coin, so 6 points against 5 wins with P(at least 5 heads of
    // 10) = 638/1024.
    let c = compile(
        "repeat me = 6, foe = 5 until me <= 0 or foe <= 0 do let a = 2d6 in let b = 2d6 in me = me - (b > a), foe = foe - (a > b) then me > 0",
        None,
    );
    same(
        &c,
        &BTreeMap::from([(0, 386.0 / 1024.0), (1, 638.0 / 1024.0)]),
    );
    assert_agrees(&c, &["value"], 300_000, 22);

    // A condition that rolls: until a d6 shows 6, counting the rounds before. Geometric,
    // P(n = k) = (5/6)^k / 6, the limit's round taking all that is left, (5/6)^100.
    let c = compile("repeat n = 0 until d6 == 6 do n = n + 1 then n", None);
    let d = dist(&c);
    for k in 0..100i32 {
        let want = (5.0f64 / 6.0).powi(k) / 6.0;
        assert!((d[&(k as i64)] - want).abs() < 1e-12, "P(n = {k})");
    }
    assert!((d[&100] - (5.0f64 / 6.0).powi(100)).abs() < 1e-15);
    assert!((c.capped_mass - (5.0f64 / 6.0).powi(101)).abs() < 1e-15);

    // A pool bound in a round, read twice; `rounds` ends it after two rounds: the sum of
    // two independent (highest + lowest of 3d6), against every roll of 6 dice.
    let c = compile(
        "repeat a = 0 until rounds == 2 do let p = 3d6 in a = a + p highest + p lowest then a",
        None,
    );
    let f = |r: &[i64]| {
        let m = |s: &[i64]| s.iter().max().unwrap() + s.iter().min().unwrap();
        m(&r[..3]) + m(&r[3..])
    };
    same(&c, &brute(6, &D6, f));
    assert_eq!(c.capped_mass, 0.0);

    // A pool variable read once outside a repeat and once inside is still one roll:
    // highest + lowest of 2d6 is the 2d6 sum.
    let c = compile(
        "let p = 2d6 in p highest + (repeat n = 0 until n >= p lowest do n = n + 1 then n)",
        None,
    );
    same(&c, &brute(2, &D6, |r| r[0] + r[1]));
    assert_agrees(&c, &["value"], 200_000, 23);

    // The k-th test needs k successes of 5d6 (4+): how many tests pass in a row?
    // Passing the first: 1 - 1/32; the first two: (31/32) P(at least 2 of 5).
    let c = compile(
        "repeat k = 1, alive = 1 until not alive do alive = (5d6 count >= 4) >= k, k = k + 1 limit 10 then k - 2",
        None,
    );
    let at_least = |j: u64| (j..=5).map(|i| choose(5, i)).sum::<f64>() / 32.0;
    close_map(
        &c,
        &[
            (0, 1.0 / 32.0),
            (1, at_least(1) * (1.0 - at_least(2))),
            (5, (1..=5).map(at_least).product()),
        ],
    );
}

#[test]
fn logic_and_repeat_errors() {
    // and / or / not: 1 or 0, looser than comparisons.
    same(
        &compile("d6 >= 3 and d6 <= 4", None),
        &BTreeMap::from([(0, 5.0 / 9.0), (1, 4.0 / 9.0)]),
    );
    same(
        &compile("d6 == 1 or d6 == 1", None),
        &BTreeMap::from([(0, 25.0 / 36.0), (1, 11.0 / 36.0)]),
    );
    same(
        &compile("not d6 == 6", None),
        &BTreeMap::from([(0, 1.0 / 6.0), (1, 5.0 / 6.0)]),
    );
    let err = load_err;
    let e = err("repeat hp = 3 until hp <= 0 do hq = hp - 1 then hp");
    assert!(
        e.contains("`hq` is not a state variable") && e.contains("did you mean `hp`"),
        "{e}"
    );
    let e = err("repeat hp = 3 until hp <= 0 do hp = hp - 1 limit 0 then hp");
    assert!(e.contains("a number of rounds from 1 to 10000"), "{e}");
    let e = err("repeat hp = 3 until hp <= 0 do hp = hp - 1");
    assert!(e.contains("`limit N` or `then`"), "{e}");
    let e = err("repeat hp = 3, hp = 2 until hp <= 0 do hp = hp - 1 then hp");
    assert!(e.contains("state variable twice"), "{e}");
}

#[test]
fn capped_mass_counts_as_often_as_its_part_happens() {
    // A repeat reached one time in six: its unfinished mass, (5/6)^3 after a limit of
    // 2 rounds, counts one time in six.
    let c = compile(
        "if d6 == 6 then (repeat n = 0 until d6 == 6 do n = n + 1 limit 2 then n) else 0",
        None,
    );
    let want = (5.0f64 / 6.0).powi(3) / 6.0;
    assert!((c.capped_mass - want).abs() < 1e-15, "{}", c.capped_mass);
    // A `let` value's body is evaluated once per value: it counts once in all.
    let c = compile(
        "let x = d6 in x + (repeat n = 0 until d6 == 6 do n = n + 1 limit 2 then n)",
        None,
    );
    assert!((c.capped_mass - (5.0f64 / 6.0).powi(3)).abs() < 1e-15);
    // Inside a pool variable's body, likewise.
    let c = compile(
        "let p = 2d6 in p highest + p lowest + (repeat n = 0 until d6 == 6 do n = n + 1 limit 2 then n)",
        None,
    );
    assert!((c.capped_mass - (5.0f64 / 6.0).powi(3)).abs() < 1e-15);
}

#[test]
fn a_round_computed_once_still_reports_every_time_it_is_played() {
    // The state never changes (x is always 0), so the exact engine works the round out
    // once; its explosion's capped mass still counts once per round played: on average
    // 5 (1 - (5/6)^100) rounds before a 6 (or the limit).
    let one = compile("d6 explode", None).capped_mass;
    assert!(one > 0.0);
    let c = compile(
        "repeat x = 0 until d6 == 6 do x = (d6 explode) * 0 then x",
        None,
    );
    let rounds = 5.0 * (1.0 - (5.0f64 / 6.0).powi(100));
    let chains = c.capped_mass - (5.0f64 / 6.0).powi(101);
    assert!(
        (chains - rounds * one).abs() < 1e-3 * rounds * one,
        "{chains} against {}",
        rounds * one
    );
}

#[test]
fn dice_counts_that_are_rolled_or_change() {
    // (d4)d6: a d4 says how many d6 to roll; every roll of every count.
    let mut want = BTreeMap::new();
    for c in 1..=4usize {
        for (v, p) in brute(c, &D6, |r| r.iter().sum()) {
            *want.entry(v).or_insert(0.0) += p / 4.0;
        }
    }
    let c = compile("(d4)d6", None);
    same(&c, &want);
    assert_agrees(&c, &["value"], 200_000, 24);
    // A count from a `let`, with keep: d6 dice, the two highest (one die: itself).
    let mut want = BTreeMap::new();
    for n in 1..=6usize {
        let f = |r: &[i64]| {
            let mut r = r.to_vec();
            r.sort_unstable();
            r.iter().rev().take(2).sum()
        };
        for (v, p) in brute(n, &D6, f) {
            *want.entry(v).or_insert(0.0) += p / 6.0;
        }
    }
    same(&compile("let n = d6 in (n)d6 keep highest 2", None), &want);
    // Attrition: each side rolls a die per model left; after one round of 2 against 2
    // (hits on 4+ and 5+), the first side keeps a - hits of 2d6 (5+).
    let c = compile(
        "repeat a = 2, b = 2 until rounds == 1 do a = a - ((b)d6 count >= 5), b = b - ((a)d6 count >= 4) then a",
        None,
    );
    same(
        &c,
        &BTreeMap::from([(0, 1.0 / 9.0), (1, 4.0 / 9.0), (2, 4.0 / 9.0)]),
    );
    // A count below 0 rolls no dice; dice whose count is rolled, bound by `let`, are held
    // for each count and read several ways (here d4 of them: every roll of each count).
    same(&compile("(d4 - 5)d6", None), &BTreeMap::from([(0, 1.0)]));
    let mut want = BTreeMap::new();
    for n in 1..=4 {
        let f = |r: &[i64]| {
            r.iter().filter(|&&x| x == 6).count() as i64 + r.iter().max().copied().unwrap_or(0)
        };
        for (v, p) in brute(n, &D6, f) {
            *want.entry(v).or_insert(0.0) += p / 4.0;
        }
    }
    same(
        &compile("let p = (d4)d6 in p count 6 + p highest", None),
        &want,
    );
    // Sides that are rolled alone are held the same way, for each number of sides:
    // two dice of 3 to 6 sides, how many show 3, by the binomial of each.
    let mut want = BTreeMap::new();
    for s in 3..=6 {
        let q = 1.0 / f64::from(s);
        for (k, p) in [(1.0 - q).powi(2), 2.0 * q * (1.0 - q), q * q]
            .into_iter()
            .enumerate()
        {
            *want.entry(k as i64).or_insert(0.0) += p / 4.0;
        }
    }
    same(&compile("let p = (2)d(d4 + 2) in p count 3", None), &want);
    // With more than one number rolled, they still make a number: their faces are
    // read where they are rolled.
    let text = "system = \"dice\"\n[scenarios.s]\nroll = \"let p = (d2)d(d4 + 2) in p count 3\"\n";
    let e = load_str(text, "dice.toml", &[]).err().unwrap().to_string();
    assert!(e.contains("read them where they are rolled"), "{e}");
}

#[test]
fn cancelling_matching_faces_against_every_roll() {
    // Each die of the second pool cancels one of the first showing the same face: the
    // first's dice left, against every roll of both pools (a multiset difference).
    let left = |a: &[i64], b: &[i64]| {
        let mut b = b.to_vec();
        let mut n = 0;
        for x in a {
            match b.iter().position(|y| y == x) {
                Some(i) => {
                    b.remove(i);
                }
                None => n += 1,
            }
        }
        n
    };
    let c = compile("cancel(3d6, 2d6)", None);
    same(&c, &brute(5, &D6, |r| left(&r[..3], &r[3..])));
    assert_agrees(&c, &["value"], 200_000, 25);
    // Mixed dice go through every multiset of each pool.
    let d4 = [1, 2, 3, 4];
    let mut want = BTreeMap::new();
    for a in rolls(2, &D6) {
        for x in d4 {
            for b in rolls(2, &D6) {
                let mut pool = a.clone();
                pool.push(x);
                *want.entry(left(&pool, &b)).or_insert(0.0) += 1.0 / (36.0 * 4.0 * 36.0);
            }
        }
    }
    same(&compile("cancel([2d6, 1d4], 2d6)", None), &want);
    // 9d10 against 8d10, icepool's `(d10.pool(9) - d10.pool(8)).size()`: mean
    // 10139493556669943 / 2e15.
    let c = compile("cancel(9d10, 8d10)", None);
    let mean: f64 = dist(&c).iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 10139493556669943.0 / 2e15).abs() < 1e-12, "{mean}");
}

#[test]
fn a_chain_depth_of_the_designers_choosing() {
    // `depth 1`: a d6 explodes at most once. 1-5 as rolled; a 6 adds one more d6 and
    // stops there, even on a second 6 (the capped mass: 1/36).
    let mut want = BTreeMap::new();
    for v in 1..=5 {
        want.insert(v, 1.0 / 6.0);
    }
    for v in 1..=6 {
        want.insert(6 + v, 1.0 / 36.0);
    }
    let c = compile("d6 explode depth 1", None);
    same(&c, &want);
    assert!((c.capped_mass - 1.0 / 36.0).abs() < 1e-15);
    assert_agrees(&c, &["value"], 200_000, 26);
    // `again` likewise: a 6 adds at most one die.
    let c = compile("d6 again depth 1 count 6", None);
    same(
        &c,
        &BTreeMap::from([(0, 5.0 / 6.0), (1, 5.0 / 36.0), (2, 1.0 / 36.0)]),
    );
}

#[test]
fn tabled_pools_roll_as_die_by_die() {
    // Monte Carlo draws plain dice a few at a time through a table of every way they
    // land (a whole pool for keep and sets, chunks for sums, counts and extremes):
    // within 4.5 standard errors of exact, chunked or whole, with an odd chunk left.
    for (i, e) in [
        "4d6 drop lowest",
        "5d10 count >= 7",
        "7d10 highest",
        "9d6 lowest",
        "23d6",
        "3d20 maxset",
        "d{0, 0, 1, 2} + 6d{-1, 0, 1}",
    ]
    .iter()
    .enumerate()
    {
        let c = compile(e, None);
        assert_agrees(&c, &["value"], 300_000, 40 + i as u64);
    }
}

#[test]
fn rerolled_dice_roll_again_from_the_stream_of_faces() {
    // A die that rerolls takes its faces several to a random word, as a plain die does;
    // each reroll is a roll of its own. Read alone and set against another pool, once
    // and always, on a low face, a named face and an uneven die.
    for (i, e) in [
        "8d6 reroll 1",
        "6d10 reroll <= 2 always count >= 7",
        "[2d6, 3d8] reroll min always highest",
        "12d{-1, 0, 1} reroll 0 lowest",
        "5d{1, 1, 2, 5} reroll max",
        "pairs(4d6 reroll 1 always, 3d6)",
    ]
    .iter()
    .enumerate()
    {
        let c = compile(e, None);
        assert_agrees(&c, &["value"], 300_000, 60 + i as u64);
    }
}

#[test]
fn ten_again_with_ones_cancelling_is_one_line() {
    // The first roll read three ways; each of its 10s adds a die that is itself
    // 10-again (a rolled dice count). By hand: 5 dice give 2 successes and 0.5 ones on
    // average; each added die x = 0.4 + 0.1 x successes, x = 4/9, and there are 0.5 of
    // them: 2 - 0.5 + 2/9 = 31/18 (less a chain of 21 tens, about 1e-22).
    let c = compile(
        "let p = 5d10 in p count >= 7 - p count 1 + (p count 10)d10 again 10 count >= 7",
        None,
    );
    let mean: f64 = dist(&c).iter().map(|(v, p)| *v as f64 * p).sum();
    assert!((mean - 31.0 / 18.0).abs() < 1e-12, "{mean}");
    // Every success cancelled: P(value = -5) = P(five 1s) = 1e-5.
    assert!((dist(&c)[&-5] - 1e-5).abs() < 1e-17);
    assert_agrees(&c, &["value"], 300_000, 27);
}

/// Every way one die of `faces` lands with its `again` chain (a face meeting `adds`
/// adds a die, at most `depth` more): the faces rolled, in order, with their weight.
fn chains(faces: &[i64], adds: &dyn Fn(i64) -> bool, depth: u32) -> Vec<(Vec<i64>, f64)> {
    let w = 1.0 / faces.len() as f64;
    let mut out = Vec::new();
    let mut open = vec![(Vec::new(), 1.0)];
    for level in 0..=depth {
        let mut next = Vec::new();
        for (rolled, p) in open {
            for &f in faces {
                let mut r: Vec<i64> = rolled.clone();
                r.push(f);
                if adds(f) && level < depth {
                    next.push((r, p * w));
                } else {
                    out.push((r, p * w));
                }
            }
        }
        open = next;
    }
    out
}

/// The brute-force distribution of `f` over every roll of `kinds` (how many dice of
/// which faces, each chaining on `adds`), `f` reading every face rolled.
fn brute_again(
    kinds: &[(usize, &[i64])],
    adds: &dyn Fn(i64, &[i64]) -> bool,
    depth: u32,
    f: impl Fn(&[i64]) -> i64,
) -> BTreeMap<i64, f64> {
    let mut all: Vec<(Vec<i64>, f64)> = vec![(Vec::new(), 1.0)];
    for &(n, faces) in kinds {
        let one = chains(faces, &|v| adds(v, faces), depth);
        for _ in 0..n {
            all = all
                .iter()
                .flat_map(|(r, p)| {
                    one.iter().map(move |(c, q)| {
                        let mut r = r.clone();
                        r.extend(c);
                        (r, p * q)
                    })
                })
                .collect();
        }
    }
    let mut m = BTreeMap::new();
    for (r, p) in &all {
        *m.entry(f(r)).or_insert(0.0) += p;
    }
    m
}

#[test]
fn an_again_pool_variable_read_several_ways_against_every_chain() {
    // Issue #57: "1s cancel successes, exploded dice included" could not be written: a
    // pool variable refused `again`. Now its reads are tallied over every die rolled.
    let count = |r: &[i64], t: &dyn Fn(i64) -> bool| r.iter().filter(|&&v| t(v)).count() as i64;
    let c = compile(
        "let p = 3d6 again 6 depth 2 in p count >= 5 - p count 1",
        None,
    );
    let want = brute_again(&[(3, &D6)], &|v, _| v == 6, 2, |r| {
        count(r, &|v| v >= 5) - count(r, &|v| v == 1)
    });
    same(&c, &want);
    assert_agrees(&c, &["value"], 300_000, 71);
    // Read through a product of two reads (no longer a sum of each die's share: the
    // body is evaluated per pair of tallies).
    let c = compile(
        "let p = 3d6 again 6 depth 2 in p count >= 5 * p count 1 + p sum",
        None,
    );
    let want = brute_again(&[(3, &D6)], &|v, _| v == 6, 2, |r| {
        count(r, &|v| v >= 5) * count(r, &|v| v == 1) + r.iter().sum::<i64>()
    });
    same(&c, &want);
    // Two kinds of die, each chaining on its own top face, read three ways at once.
    let c = compile(
        "let p = [2d6, 2d4] again max depth 3 in 1000 * p count 1 + 10 * p count >= 4 + p sum / 10",
        None,
    );
    let d4: &[i64] = &[1, 2, 3, 4];
    let want = brute_again(
        &[(2, &D6), (2, d4)],
        &|v, faces| v == *faces.last().unwrap(),
        3,
        |r| 1000 * count(r, &|v| v == 1) + 10 * count(r, &|v| v >= 4) + r.iter().sum::<i64>() / 10,
    );
    same(&c, &want);
    assert_agrees(&c, &["value"], 300_000, 72);
    // 10-again with 1s cancelling, every die included, at the default depth: exact
    // against Monte Carlo, and a read as a dice count later in the expression.
    for (i, e) in [
        "let p = 5d10 again 10 in p count >= 7 - p count 1",
        "let p = 4d10 again 10 in (p count 10)d6 sum + p count 1",
    ]
    .iter()
    .enumerate()
    {
        let c = compile(e, None);
        assert!(c.exact.is_some(), "{e}");
        assert_agrees(&c, &["value"], 300_000, 73 + i as u64);
    }
    // Read one way it is a single `again` read, as before.
    let one = dist(&compile("let p = 5d10 again 10 in p count >= 7", None));
    let whole = dist(&compile("5d10 again 10 count >= 7", None));
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        whole.keys().collect::<Vec<_>>()
    );
    for (k, p) in &whole {
        assert!((one[k] - p).abs() < 1e-15, "{k}");
    }
    // What its varying count cannot take says so, with the caret under the read.
    for (roll, col, says) in [
        (
            "let p = 3d6 again 6 in p keep highest 2",
            23,
            "`sum` or `count`",
        ),
        ("let p = 3d6 again 6 in p highest", 23, "`sum` or `count`"),
        ("let p = 3d6 again 6 in beats(p, 2d6)", 29, "paired off"),
        ("let p = 3d6 again 6 in p keep middle 1", 23, "middle"),
        (
            "let p = [2d6, 2d10] again 10 in p count max + p count 1",
            32,
            "a fixed face",
        ),
        ("3d6 again 6 keep middle 1", 0, "`sum` or `count`"),
    ] {
        let e = load_err(roll);
        assert!(e.contains(says), "{roll}: {e}");
        assert!(e.contains(&format!("column {}", col + 1)), "{roll}: {e}");
    }
}

/// `middle` as a designer reaches for it: a misspelling is pointed to it, a second keep
/// is refused as any is (it is `keep middle 1`), and a name may still be `middle`.
#[test]
fn middle_is_suggested_refused_after_a_keep_and_free_as_a_name() {
    let e = load_err("3d20 midle");
    assert!(e.contains("(did you mean `middle`?)"), "{e}");
    assert!(e.contains("column 6"), "{e}");
    let e = load_err("4d6 keep highest 3 middle");
    assert!(
        e.contains("one `keep` or `drop` per pool, and `middle` is `keep middle 1`"),
        "{e}"
    );
    assert!(e.contains("column 20"), "{e}");
    let c = compile("let middle = d4 in middle * 2", None);
    same(
        &c,
        &BTreeMap::from([(2, 0.25), (4, 0.25), (6, 0.25), (8, 0.25)]),
    );
}

/// `highest K`, `lowest K` and `middle K`, as designers write "the two highest": the
/// K dice kept and summed, against every roll; a second keep and a list of faces
/// without `on` are refused with how to write them.
#[test]
fn highest_lowest_and_middle_with_a_count_sum_that_many_dice() {
    let sorted = |r: &[i64]| {
        let mut v = r.to_vec();
        v.sort();
        v
    };
    same(
        &compile("3d6 highest 2", None),
        &crate::dice_engine::brute(3, &D6, |r| sorted(r)[1..].iter().sum()),
    );
    same(
        &compile("4d6 lowest 2", None),
        &crate::dice_engine::brute(4, &D6, |r| sorted(r)[..2].iter().sum()),
    );
    same(
        &compile("5d6 middle 3", None),
        &crate::dice_engine::brute(5, &D6, |r| sorted(r)[1..4].iter().sum()),
    );
    let c = compile("let p = 4d6 in p highest 3 * 10 + p lowest", None);
    same(
        &c,
        &crate::dice_engine::brute(4, &D6, |r| {
            let v = sorted(r);
            v[1..].iter().sum::<i64>() * 10 + v[0]
        }),
    );
    assert_agrees(&c, &["value"], 200_000, 17);
    let e = load_err("3d6 keep lowest 1 highest 2");
    assert!(e.contains("one `keep` or `drop` per pool: a count after `highest` or `lowest` keeps that many dice"), "{e}");
    assert!(e.contains("column 27"), "{e}");
    let e = load_err("(d20 >= 11) + d20 >= 11 + d20 >= 11");
    assert!(
        e.contains("found `>=` (comparisons do not chain: put each in parentheses, e.g. `(d20 >= 11) + (d20 >= 11)`)"),
        "{e}"
    );
    assert!(e.contains("column 31"), "{e}");
    let e = load_err("5d6 count >= >= 3");
    assert!(!e.contains("chain"), "{e}");
    let e = load_err("2d6 reroll 1, 2");
    assert!(
        e.contains("(faces named one by one follow `on`: `reroll on 1, ...`)"),
        "{e}"
    );
    assert!(e.contains("column 13"), "{e}");
}

/// `count even` and `count odd` as designers write "count the even dice", and `reroll`,
/// `explode` and `again` on a parity, against every roll or by hand; a negative face's
/// parity too (dF: -1 odd, 0 even).
#[test]
fn even_and_odd_faces_are_counted_rerolled_and_exploded() {
    let parity = |r: &[i64], even: bool| {
        r.iter()
            .filter(|&&v| (v.rem_euclid(2) == 0) == even)
            .count() as i64
    };
    same(
        &compile("5d6 count even", None),
        &crate::dice_engine::brute(5, &D6, |r| parity(r, true)),
    );
    same(
        &compile("4dF count odd", None),
        &crate::dice_engine::brute(4, &[-1, 0, 1], |r| parity(r, false)),
    );
    let c = compile("let p = 4d6 in p count even * 10 + p count odd", None);
    same(
        &c,
        &crate::dice_engine::brute(4, &D6, |r| parity(r, true) * 10 + parity(r, false)),
    );
    assert_agrees(&c, &["value"], 200_000, 23);
    // Rerolled once on an odd face: an odd face stands only from the second roll, 1/2 ·
    // 1/6 = 1/12; an even one 1/6 + 1/12 = 1/4.
    let c = compile("d6 reroll odd", None);
    let (odd, even) = (1.0 / 12.0, 0.25);
    same(
        &c,
        &BTreeMap::from([
            (1, odd),
            (2, even),
            (3, odd),
            (4, even),
            (5, odd),
            (6, even),
        ]),
    );
    assert_eq!(
        c.exact_fractions
            .as_ref()
            .map(|f| f.iter().map(|f| f.to_string()).collect::<Vec<_>>()),
        Some(
            ["1/12", "1/4", "1/12", "1/4", "1/12", "1/4"]
                .map(String::from)
                .to_vec()
        )
    );
    // Exploding once on an even face: 3 is a 3 (1/6) or a 2 then a 1 (1/36).
    let c = compile("d6 explode even depth 1", None);
    let got = |v: &str| exact_of(&c, "value", v);
    assert!((got("3") - 7.0 / 36.0).abs() < 1e-15, "{}", got("3"));
    assert!((got("1") - 1.0 / 6.0).abs() < 1e-15, "{}", got("1"));
    assert_agrees(&c, &["value"], 200_000, 29);
    // Each die rolls again on an odd face: each of six chains ends on an even face unless
    // its 21 rolls are all odd, so the count of even faces is 6 but for 6 · 2^-21.
    let c = compile("6d6 again odd count even", None);
    assert!((got_mean(&c) - (6.0 - 6.0 * 0.5f64.powi(21))).abs() < 1e-12);
    // `even` and `odd` are still names where a value is read.
    same(
        &compile("let odd = d4 in odd * 2", None),
        &BTreeMap::from([(2, 0.25), (4, 0.25), (6, 0.25), (8, 0.25)]),
    );
}

fn got_mean(c: &Compiled) -> f64 {
    dist(c).iter().map(|(v, p)| *v as f64 * p).sum()
}

/// Other tools' short notation and a keep without its end, as designers first write
/// them: refused (this language spells modifiers out) with the spelling in the message.
#[test]
fn short_dice_notation_is_answered_with_its_spelling() {
    for (roll, col, says) in [
        (
            "4d6kh3",
            2,
            "found `d6kh3` (written out here: `keep highest 3`)",
        ),
        (
            "4d6 k3",
            5,
            "found `k3` (written out here: `keep highest 3`)",
        ),
        ("2d20kl1", 2, "(written out here: `keep lowest 1`)"),
        ("4d6dl1", 2, "(written out here: `drop lowest 1`)"),
        ("2d6r1", 2, "(written out here: `reroll 1`)"),
        (
            "d6!",
            3,
            "unexpected `!` (an exploding die is written `d6 explode`)",
        ),
        (
            "4d6 keep 3",
            10,
            "found `3` (which dice: e.g. `keep highest 3`)",
        ),
        (
            "4d6 drop 1",
            10,
            "found `1` (which dice: e.g. `drop lowest 1`)",
        ),
        // Other tools' and rulebooks' words.
        (
            "d20 adv + 5",
            5,
            "found `adv` (advantage, the higher of two d20, is `2d20 highest`",
        ),
        ("d20 disadvantage", 5, "disadvantage `2d20 lowest`)"),
        (
            "5d10 successes >= 7",
            6,
            "(dice that meet a number are counted with `count`: `5d10 count >= 7`)",
        ),
        ("d20 vs d20", 5, "`--vs` on the command line; or their difference, `d20 - d20`)"),
        (
            "3d6 roll under 10",
            5,
            "found `roll` (a roll under a number is a comparison: `3d6 <= 10`",
        ),
        ("sum(3d6)", 1, "found `sum` (dice are summed as they are: `3d6`, or `3d6 sum`)"),
        ("3d6 mod 2", 5, "found `mod` (a remainder is written `%`: `3d6 % 2`"),
        ("3d6 % 0", 7, "remainder by 0: this divisor is always 0"),
        ("d6 ^ 2", 4, "unexpected `^` (a power is written as a product from a `let`: `let x = d6 in x * x`"),
        ("d6 ** 2", 5, "found `*` (a power is written as a product"),
        ("|d6 - d6|", 1, "unexpected `|` (an absolute value is written `abs(...)`: `abs(d6 - d6)`)"),
        ("floor(3d6 / 2)", 6, "(`/` rounds down: `3d6 / 3`; up, `(3d6 + 2) / 3`; to the nearest, `(3d6 * 2 + 3) / 6`)"),
        ("6d6 pairs", 5, "found `pairs` (`pairs(a, b)` sets two pools against each other; the pairs within one pool are `sets 2`"),
        (
            "avg(3d6)",
            4,
            "found `(` (`avg` is not a function: the functions are `max`, `min`, `abs`, `pairs`, `beats` and `cancel`; every roll shows its mean)",
        ),
        // A condition in brackets of its own.
        ("6d6 count (>= 5)", 12, "found `>=` (a condition follows its word without brackets: `count >= 5`"),
        // Other languages' punctuation.
        ("3d6 >= 10 ? 1 : 0", 11, "unexpected `?` (a choice is written `if ... then ... else ...`"),
        ("let x = d6; x * 2", 11, "unexpected `;` (a `let` goes on with `in`: `let x = d6 in x * 2`)"),
        ("let s = 3d6 in s.count(6)", 17, "unexpected `.` (a read follows with a space: `p count 6`"),
        ("3d6 * 1.5", 8, "unexpected `.` (numbers are whole: a half is written with `/`"),
        ("d6 > 3 && d6 > 4", 8, "unexpected `&` (both is written `and`)"),
        ("d6 > 3 || d6 > 4", 8, "unexpected `|` (either is written `or`)"),
        ("!(d6 > 3)", 1, "unexpected `!` (`not`, or `!=` for unequal)"),
        // A number, a bracket or a name bound above before `(`: a product.
        ("2 (3d6)", 3, "found `(` (a product is written with `*`: `2 * (...)`)"),
        ("(d6)(d6)", 5, "found `(` (a product is written with `*`: `(...) * (...)`)"),
        (
            "let p = 3d6 in p (2)",
            18,
            "found `(` (a product is written with `*`: `p * (...)`)",
        ),
        (
            "repeat hp = 10 until hp <= 0 do hp = hp - 2 (d6) then rounds",
            45,
            "found `(` (a product is written with `*`: `2 * (...)`)",
        ),
    ] {
        let e = load_err(roll);
        assert!(e.contains(says), "{roll}: {e}");
        assert!(e.contains(&format!("column {col}")), "{roll}: {e}");
    }
    // A plain misspelling is still pointed to its word, and a `roll` not before
    // `under` to `reroll`.
    let e = load_err("3d6 hihgest");
    assert!(e.contains("(did you mean `highest`?)"), "{e}");
    let e = load_err("d6 roll 1");
    assert!(e.contains("(did you mean `reroll`?)"), "{e}");
    // A keeping read after the dice `cancel` leaves says which reads there are.
    let e = load_err("cancel(3d6, 2d6) middle");
    assert!(
        e.contains("the dice `pairs`, `beats` or `cancel` leave are read by one word after it"),
        "{e}"
    );
    let e = load_err("(3d6) count 6 + 2");
    assert!(
        e.contains("parentheses make a number of the dice inside"),
        "{e}"
    );
    // These words stay free as names.
    for ok in [
        "let adv = 2d20 highest in adv + 5",
        "let vs = d6 in vs * 2",
        "let under = 3 in d6 <= under",
    ] {
        compile(ok, None);
    }
}
