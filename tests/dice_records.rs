//! Issue #26, item 2: named results. A record `{ name = ..., ... }` makes one metric per
//! name, each with its table and chart, their joint distribution carried exactly (one
//! roll read several ways), and the balance commands pick one with `--metric`.

use crate::dice_lang::{compile, rolls, D6};
use crate::util::{assert_agrees, rollsim, tempdir, text};
use rollsim::config::load_str;
use rollsim::model::Compiled;
use std::collections::BTreeMap;

/// The exact joint distribution of two named metrics, by their values.
fn joint(c: &Compiled, a: &str, b: &str) -> BTreeMap<(i64, i64), f64> {
    let e = c.exact.as_ref().expect("exact");
    let ma = c.metrics.iter().find(|m| m.name == a).expect("metric a");
    let mb = c.metrics.iter().find(|m| m.name == b).expect("metric b");
    let mut out = BTreeMap::new();
    for (s, p) in e.iter().enumerate() {
        if *p > 1e-15 {
            let key = (
                ma.value(ma.map[s] as usize) as i64,
                mb.value(mb.map[s] as usize) as i64,
            );
            *out.entry(key).or_insert(0.0) += p;
        }
    }
    out
}

fn same_joint(got: &BTreeMap<(i64, i64), f64>, want: &BTreeMap<(i64, i64), f64>) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, p) in want {
        assert!((got[k] - p).abs() < 1e-12, "{k:?}: {} want {p}", got[k]);
    }
}

#[test]
fn one_roll_read_two_ways_keeps_its_joint_distribution() {
    // 3d6: the sixes and the highest die, together.
    let c = compile(
        "let p = 3d6 in { sixes = p count 6, best = p highest }",
        None,
    );
    let names: Vec<&str> = c.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["sixes", "best"]);
    let mut want = BTreeMap::new();
    for r in rolls(3, &D6) {
        let k = (
            r.iter().filter(|&&x| x == 6).count() as i64,
            *r.iter().max().unwrap(),
        );
        *want.entry(k).or_insert(0.0) += 1.0 / 216.0;
    }
    same_joint(&joint(&c, "sixes", "best"), &want);
    // By hand: no six and best 5 is (5/6)^3 - (4/6)^3 = 61/216.
    assert!((want[&(0, 5)] - 61.0 / 216.0).abs() < 1e-15);
    assert_agrees(&c, &["sixes", "best"], 200_000, 2601);
    // The headline is the first result's: P(at least 1) six = 1 - (5/6)^3 = 91/216.
    assert_eq!(c.headline.label, "P(at least 1)");
    let six = &c.metrics[0];
    let p: f64 = six.project_f64(c.exact.as_ref().unwrap())[1..].iter().sum();
    assert!((p - 91.0 / 216.0).abs() < 1e-12, "{p}");
}

#[test]
fn independent_results_multiply() {
    // Two rolls of their own: the joint is the product of the marginals.
    let c = compile("{ attack = d20 + 5, damage = 2d6 - 1 }", None);
    let mut want = BTreeMap::new();
    for a in 1..=20 {
        for r in rolls(2, &D6) {
            *want.entry((a + 5, r[0] + r[1] - 1)).or_insert(0.0) += 1.0 / (20.0 * 36.0);
        }
    }
    same_joint(&joint(&c, "attack", "damage"), &want);
    assert_agrees(&c, &["attack", "damage"], 200_000, 2602);
}

#[test]
fn records_are_the_result_only_and_their_mistakes_are_named() {
    let err = |roll: &str, extra: &str| {
        let t = format!("system = \"dice\"\n[scenarios.s]\nroll = {roll:?}\n{extra}");
        load_str(&t, "dice.toml", &[]).err().unwrap().to_string()
    };
    let e = err("1 + { a = d6 }", "");
    assert!(
        e.contains("a record `{ name = ..., ... }` is the scenario's result"),
        "{e}"
    );
    assert!(e.contains("column 5"), "{e}");
    let e = err("{ a = d6, a = d8 }", "");
    assert!(e.contains("`a` is named twice"), "{e}");
    let e = err("{ a = d6 }", "vs = \"d6\"\n");
    assert!(e.contains("key `scenarios.s.vs`"), "{e}");
    let e = err("{ a = d1000, b = d1000 }", "");
    assert!(
        e.contains("the record's results (a, b) take 1,000,000 combinations together"),
        "{e}"
    );
    // Six characteristics of 2d6 each: counted jointly, 11^6 combinations; the refusal
    // says how to split them.
    let e = err(
        "{ str = 2d6, dex = 2d6, end = 2d6, int = 2d6, edu = 2d6, soc = 2d6 }",
        "",
    );
    assert!(
        e.contains("span 11 x 11 x 11 x 11 x 11 x 11 values: together more than 1,048,576")
            && e.contains("e.g. 3 and 3 in two scenarios"),
        "{e}"
    );
}

#[test]
fn a_balance_command_picks_a_result_by_name() {
    let dir = tempdir();
    let cfg = dir.path().join("r.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[units.hero]\npool = 2\n[scenarios.s]\nunit = \"hero\"\nroll = \"let p = (pool)d6 in { sixes = p count 6, best = p highest }\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let sweep = |metric: &str| {
        rollsim()
            .args([
                "sweep",
                cfg.to_str().unwrap(),
                "-s",
                "s",
                "--vary",
                "unit.pool=1..2",
            ])
            .args([
                "--exact-only",
                "--metric",
                metric,
                "-o",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap()
    };
    let o = sweep("best");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(out.join("sweep-s-unit_pool.csv")).unwrap();
    // The exact column: the best of 1d6 is 21/6 = 3.5; of 2d6, P(best = k) =
    // (k^2 - (k - 1)^2)/36 = (2k - 1)/36, so the mean is (1*1 + 2*3 + 3*5 + 4*7 + 5*9
    // + 6*11)/36 = 161/36.
    let values: Vec<f64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(5)?.parse().ok())
        .collect();
    assert_eq!(values.len(), 2, "{csv}");
    assert!((values[0] - 3.5).abs() < 1e-9, "{csv}");
    assert!((values[1] - 161.0 / 36.0).abs() < 1e-9, "{csv}");
    // A name that is not a result: the nearest named.
    let o = sweep("bset");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("best"), "{}", text(&o.stderr));
}

/// Genesys faces as (success, advantage, triumph, failure, threat) counts, written here
/// apart from the language.
fn faces(text: &str) -> Vec<[i64; 5]> {
    text.split(',')
        .map(|f| {
            let mut c = [0; 5];
            for sym in f.trim().split('+') {
                match sym {
                    "s" => c[0] += 1,
                    "a" => c[1] += 1,
                    "t" => c[2] += 1,
                    "f" => c[3] += 1,
                    "h" => c[4] += 1,
                    "blank" => {}
                    other => panic!("{other}"),
                }
            }
            c
        })
        .collect()
}

#[test]
fn narrative_dice_counted_by_symbol_against_every_roll() {
    // The shipped Genesys check: 2 ability, 1 proficiency, 2 difficulty dice.
    let ability = faces("blank, s, s, s+s, a, a, s+a, a+a");
    let proficiency = faces("blank, s, s, s+s, s+s, a, s+a, s+a, s+a, a+a, a+a, t+s");
    let difficulty = faces("blank, f, f+f, h, h, h, h+h, f+h");
    let pool = [&ability, &ability, &proficiency, &difficulty, &difficulty];
    let mut rolls: Vec<([i64; 5], f64)> = vec![([0; 5], 1.0)];
    for die in pool {
        rolls = rolls
            .iter()
            .flat_map(|(acc, p)| {
                die.iter().map(move |f| {
                    let mut a = *acc;
                    for k in 0..5 {
                        a[k] += f[k];
                    }
                    (a, p / die.len() as f64)
                })
            })
            .collect();
    }
    let mut want = BTreeMap::new();
    let mut want_t = BTreeMap::new();
    for (c, p) in &rolls {
        *want.entry((c[0] - c[3], c[1] - c[4])).or_insert(0.0) += p;
        *want_t.entry((c[0] - c[3], c[2])).or_insert(0.0) += p;
    }
    let cfg = rollsim::config::load(
        &crate::util::shipped("dice-examples.toml"),
        &[],
        &rollsim::Cancel::new(),
    )
    .unwrap();
    let c = cfg.compile("genesys-check").unwrap();
    let names: Vec<&str> = c.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["successes", "advantages", "triumphs"]);
    same_joint(&joint(&c, "successes", "advantages"), &want);
    same_joint(&joint(&c, "successes", "triumphs"), &want_t);
    // The README's headline: at least one net success.
    let ok: f64 = want
        .iter()
        .filter(|((s, _), _)| *s >= 1)
        .map(|(_, p)| p)
        .sum();
    assert_eq!(format!("{:.2}", 100.0 * ok), "65.08");
    assert_eq!(c.headline.label, "P(at least 1)");
    let h = c.metrics[0].project_f64(c.exact.as_ref().unwrap());
    let got: f64 = c.headline.values.iter().map(|&i| h[i]).sum();
    assert!((got - ok).abs() < 1e-12, "{got} {ok}");
    assert_agrees(&c, &["successes", "advantages", "triumphs"], 300_000, 2603);
    // The same dice as one pool variable read two ways by name, its body a difference
    // of the two (each die's symbols weighed, one number per die), and a product of
    // two reads (their joint distribution, then the body).
    let dice = "[2d{blank, success, success, success+success, advantage, advantage, success+advantage, advantage+advantage}, 1d{blank, success, success, success+success, success+success, advantage, success+advantage, success+advantage, success+advantage, advantage+advantage, advantage+advantage, triumph+success}, 2d{blank, failure, failure+failure, threat, threat, threat, threat+threat, failure+threat}]";
    for (body, read) in [
        (
            "p count success - p count failure",
            (|c: &[i64; 5]| c[0] - c[3]) as fn(&[i64; 5]) -> i64,
        ),
        ("(p count advantage) * (p count threat)", |c| c[1] * c[4]),
    ] {
        let text = format!("let p = {dice} in {body}");
        let c = rollsim::config::one_liner(&text, None, "t", &rollsim::Cancel::new())
            .unwrap()
            .unwrap()
            .compile("roll")
            .unwrap();
        let mut want: BTreeMap<i64, f64> = BTreeMap::new();
        for (k, p) in &rolls {
            *want.entry(read(k)).or_insert(0.0) += p;
        }
        for (v, p) in &want {
            let got = crate::util::exact_of(&c, "value", &v.to_string());
            assert!((got - p).abs() < 1e-12, "{body}: at {v}: {got} against {p}");
        }
    }
}

#[test]
fn named_faces_are_numbers_until_counted_by_name() {
    // Without a count by name, `hit` counts 1 and `blank` 0, as before.
    let c = compile("3d{blank, hit, hit+hit}", None);
    let m = crate::dice_lang::dist(&c);
    // Per die 0, 1, 2 equally: the sum of 3 is 3 at 7/27 (1+1+1, or 0, 1 and 2 in
    // any of 3! = 6 orders: 7 of the 27 rolls).
    assert!((m[&3] - 7.0 / 27.0).abs() < 1e-15, "{m:?}");
    // Counted by name: the same numbers here, since `hit+hit` shows two hits.
    let c = compile("3d{blank, hit, hit+hit} count hit", None);
    assert!((crate::dice_lang::dist(&c)[&3] - 7.0 / 27.0).abs() < 1e-15);
    let err = crate::dice_lang::load_err;
    let e = err("let p = 3d{blank, s, s+a} in p count z");
    assert!(
        e.contains("no face of these dice shows `z` (did you mean `s`?); they show s, a"),
        "{e}"
    );
    let e = err("let p = 3d{blank, s, s+a} in p count s + p highest");
    assert!(e.contains("read it with `count NAME` (s, a)"), "{e}");
    let e = err("[2d{s, a}, 1d6] count s");
    assert!(
        e.contains("dice counted by name and dice read as numbers in one pool"),
        "{e}"
    );
    let e = err("3d6 count hits");
    assert!(
        e.contains("no named faces; to count the dice showing that value write `count == hits` (or `count >= hits`, at least it)"),
        "{e}"
    );
}
