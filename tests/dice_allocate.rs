//! Issue #26, item 6: damage over models. `allocate(...)` applies hits, weapon by weapon,
//! to a unit of models with wounds each: damage past a model's last wound is lost
//! unless `spill`. Against a brute-force enumeration written here of every sequence of
//! damage rolls played hit by hit, and Monte Carlo within 4.5 standard errors.

use crate::dice_lang::{compile, rolls};
use crate::util::assert_agrees;
use rollsim::model::Compiled;
use std::collections::BTreeMap;

/// The unit after a sequence of damage: (killed, wounds left, damage lost).
fn play(models: i64, wounds: i64, damage: &[i64], spill: bool) -> (i64, i64, i64) {
    let (mut alive, mut hp, mut lost) = (models, wounds, 0);
    for &d in damage {
        if alive == 0 {
            break;
        }
        if spill {
            let mut d = d;
            while d > 0 && alive > 0 {
                let take = d.min(hp);
                d -= take;
                hp -= take;
                if hp == 0 {
                    alive -= 1;
                    hp = wounds;
                }
            }
            lost += d;
        } else if d >= hp {
            lost += d - hp;
            alive -= 1;
            hp = wounds;
        } else {
            hp -= d;
        }
    }
    let left = if alive > 0 {
        (alive - 1) * wounds + hp
    } else {
        0
    };
    (models - alive, left, lost)
}

/// Every sequence of `n` damage rolls of `faces`, equally likely, played out.
fn brute(
    models: i64,
    wounds: i64,
    n: usize,
    faces: &[i64],
    spill: bool,
) -> BTreeMap<(i64, i64, i64), f64> {
    let all = rolls(n, faces);
    let mut m = BTreeMap::new();
    for r in &all {
        *m.entry(play(models, wounds, r, spill)).or_insert(0.0) += 1.0 / all.len() as f64;
    }
    m
}

/// The exact joint distribution of a record's three results, by value.
fn joint3(c: &Compiled) -> BTreeMap<(i64, i64, i64), f64> {
    let e = c.exact.as_ref().expect("exact");
    let m = &c.metrics;
    let mut out = BTreeMap::new();
    for (s, p) in e.iter().enumerate() {
        if *p > 1e-15 {
            let v = |i: usize| m[i].value(m[i].map[s] as usize) as i64;
            *out.entry((v(0), v(1), v(2))).or_insert(0.0) += p;
        }
    }
    out
}

fn same3(got: &BTreeMap<(i64, i64, i64), f64>, want: &BTreeMap<(i64, i64, i64), f64>) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, p) in want {
        assert!((got[k] - p).abs() < 1e-12, "{k:?}: {} want {p}", got[k]);
    }
}

const D3: [i64; 3] = [1, 2, 3];

#[test]
fn damage_past_a_model_s_last_wound_is_lost() {
    // 5 hits of d3 on 3 models of 2 wounds.
    let want = brute(3, 2, 5, &D3, false);
    let c = compile(
        "allocate(models = 3, wounds = 2, hits = 5, damage = d3) then { killed = killed, wounds_left = wounds_left, lost = lost }",
        None,
    );
    same3(&joint3(&c), &want);
    assert_agrees(&c, &["killed", "wounds_left", "lost"], 200_000, 2631);
    // By hand, one hit of d3 on a model of 2: it dies 2/3 of the time, losing 1 (a 3)
    // 1/3 of the time.
    let one = brute(2, 2, 1, &D3, false);
    assert!((one[&(1, 2, 1)] - 1.0 / 3.0).abs() < 1e-15);
    // Without `then`: the models killed.
    let c = compile(
        "allocate(models = 3, wounds = 2, hits = 5, damage = d3)",
        None,
    );
    let mut killed = BTreeMap::new();
    for ((k, _, _), p) in &want {
        *killed.entry(*k).or_insert(0.0) += p;
    }
    crate::dice_lang::same(&c, &killed);
}

#[test]
fn spilled_damage_runs_on_to_the_next_model() {
    let want = brute(3, 2, 4, &D3, true);
    let c = compile(
        "allocate(models = 3, wounds = 2, hits = 4, damage = d3, spill) then { killed = killed, wounds_left = wounds_left, lost = lost }",
        None,
    );
    same3(&joint3(&c), &want);
    // By hand: all three die when the 4d3 total is 6 or more: 1 - 5/81 = 76/81.
    let all: f64 = want.iter().filter(|(k, _)| k.0 == 3).map(|(_, p)| p).sum();
    assert!((all - 76.0 / 81.0).abs() < 1e-12, "{all}");
    assert_agrees(&c, &["killed", "wounds_left", "lost"], 200_000, 2632);
}

#[test]
fn weapons_in_order_with_rolled_hits() {
    // A d3 hits of damage 2, then 2 hits of d3, on 2 models of 3 wounds: every number of
    // first hits, then every sequence of damage.
    let mut want = BTreeMap::new();
    for first in 1..=3usize {
        for r in rolls(2, &D3) {
            let mut seq = vec![2; first];
            seq.extend(&r);
            let (k, w, _) = play(2, 3, &seq, false);
            *want.entry((k, w, 0)).or_insert(0.0) += 1.0 / (3.0 * 9.0);
        }
    }
    let c = compile(
        "allocate(models = 2, wounds = 3, hits = d3, damage = 2, hits = 2, damage = d3) then { killed = killed, wounds_left = wounds_left, none = 0 }",
        None,
    );
    same3(&joint3(&c), &want);
    assert_agrees(&c, &["killed", "wounds_left"], 200_000, 2633);
}

#[test]
fn the_shipped_warhammer_attack() {
    // Ten shots hitting on 3+, wounding on 4+, saved on 4+ (failed on 3 or less): each
    // gets through with 2/3 * 1/2 * 1/2 = 1/6, so the hits are a binomial(10, 1/6),
    // each of d3 damage against five models of 2 wounds; then four bolter hits (damage
    // 1, all through) in order.
    let cfg = rollsim::config::load(
        &crate::util::shipped("dice-examples.toml"),
        &[],
        &rollsim::Cancel::new(),
    )
    .unwrap();
    let c = cfg.compile("warhammer-allocate").unwrap();
    let choose =
        |n: u64, k: u64| -> f64 { (0..k).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64) };
    let mut want: BTreeMap<i64, f64> = BTreeMap::new();
    for h in 0..=10usize {
        let ph = choose(10, h as u64)
            * (1.0f64 / 6.0).powi(h as i32)
            * (5.0f64 / 6.0).powi(10 - h as i32);
        for r in rolls(h, &D3) {
            let mut seq = r.clone();
            seq.extend([1, 1, 1, 1]);
            let (k, _, _) = play(5, 2, &seq, false);
            *want.entry(k).or_insert(0.0) += ph / 3f64.powi(h as i32);
        }
    }
    let m = &c.metrics[0];
    assert_eq!(m.name, "killed");
    let p = m.project_f64(c.exact.as_ref().unwrap());
    for (k, q) in &want {
        let got = p[m.labels.iter().position(|l| *l == k.to_string()).unwrap()];
        assert!((got - q).abs() < 1e-12, "killed {k}: {got} want {q}");
    }
    assert_agrees(&c, &["killed", "wounds_left"], 200_000, 2634);
}

#[test]
fn allocate_mistakes_are_named() {
    let err = crate::dice_lang::load_err;
    let e = err("allocate(models = 3, hits = 4)");
    assert!(e.contains("needs `models = N` and `wounds = N`"), "{e}");
    let e = err("allocate(models = 3, wounds = 2, damage = 2)");
    assert!(
        e.contains("`damage =` follows its weapon's `hits =`"),
        "{e}"
    );
    let e = err("allocate(models = 3, wounds = 2, hit = 4)");
    assert!(e.contains("(did you mean `hits`?)"), "{e}");
    // A unit of a million models of a million wounds, each hit dealing exactly a
    // million: every hit kills one model, exactly (the branch of a wound that survives
    // is never taken, so the wounds left never span their 10^12 values).
    let c = compile(
        "allocate(models = 1000000, wounds = 1000000, hits = 3, damage = 1000000)",
        None,
    );
    assert_eq!(c.exact.as_deref(), Some(&[1.0][..]), "{}", c.description);
    // Each hit's damage rolled from a thousand values: past what counting in integers
    // does within its work, the law in floats plays the rounds; Monte Carlo agrees.
    let c = compile(
        "allocate(models = 1000000, wounds = 1000000, hits = 3, damage = d1000 * 1000)",
        None,
    );
    assert!(c.exact.is_some(), "{}", c.description);
    assert_agrees(&c, &["killed", "wounds_left"], 200_000, 2635);
}

/// A fight of rolled stats to 500 rounds (or 5,000): past what counting in integers does
/// within its work, the law in floats plays it, and a state below the float's range is
/// dropped, so the ties that could go on for ever end the fight long before its limit.
/// Its chance against a Markov chain written here (ties change nothing, so each side's
/// chance of the next loss is its share of the rounds that are not ties), and Monte
/// Carlo.
#[test]
fn a_long_fight_past_the_counting_is_worked_out_in_floats() {
    // P(2d6 + skill > 2d6 + 9) and the other way, by the 36 x 36 rolls.
    let chances = |skill: i64| {
        let (mut win, mut lose) = (0.0, 0.0);
        for x in 2..=12i64 {
            for y in 2..=12i64 {
                let w = ((6 - (x - 7).abs()) * (6 - (y - 7).abs())) as f64 / 1296.0;
                if x + skill > y + 9 {
                    win += w;
                } else if y + 9 > x + skill {
                    lose += w;
                }
            }
        }
        (win, lose)
    };
    let mut want = 0.0;
    for skill in 7..=12i64 {
        let (p, q) = chances(skill);
        for s in 2..=12i64 {
            let stamina = s + 12;
            // won[me][foe]: my chance from here, hit points in steps of 2.
            let (mh, fh) = ((stamina + 1) / 2, 5i64);
            let mut won = vec![vec![0.0f64; (fh + 1) as usize]; (mh + 1) as usize];
            for me in 1..=mh as usize {
                won[me][0] = 1.0;
                for foe in 1..=fh as usize {
                    won[me][foe] = (p * won[me][foe - 1] + q * won[me - 1][foe]) / (p + q);
                }
            }
            let rolls = (6 - (s - 7).abs()) as f64 / 36.0;
            want += won[mh as usize][fh as usize] * rolls / 6.0;
        }
    }
    for limit in [500, 5000] {
        let c = compile(
            &format!(
                "let skill = d6 + 6 in let stamina = 2d6 + 12 in \
                 repeat me = stamina, foe = 9 until me <= 0 or foe <= 0 do \
                 let a = 2d6 + skill in let b = 2d6 + 9 in \
                 me = me - 2 * (b > a), foe = foe - 2 * (a > b) limit {limit} then me > 0"
            ),
            None,
        );
        let exact = c.exact.as_deref().expect(&c.description);
        let got = exact.last().copied().unwrap_or(0.0);
        assert!((got - want).abs() < 1e-12, "{limit}: {got} against {want}");
        if limit == 500 {
            assert_agrees(&c, &["value"], 200_000, 2636);
        }
    }
}
