//! Balance analysis (issue #6): the matrix against single runs, the sweep against exact
//! values, the sign of sensitivity, the equalizer on a case worked by hand, the gallery.

use crate::util::{shipped, tempdir};
use rollsim::app;
use rollsim::balance::{compare, equalize, sensitivity, sweep, Pick, Source};
use rollsim::report::summarize;
use rollsim::sim::Budget;

fn source(name: &str, sets: &[&str]) -> Source {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Source::load(&shipped(name), &sets).unwrap()
}

#[test]
fn matrix_cells_are_the_single_runs() {
    // Every cell is the number `rollsim run --set scenarios.S.attacker=A --set
    // scenarios.S.defender=D` gives: same seed, same trials, same bits.
    let s = source("rush.toml", &[]);
    let sc = "slam-orc-vs-human-guard";
    let (seed, n) = (77, 200_000);
    let attackers = vec!["orc".to_string(), "goblin".to_string()];
    let defenders = vec![
        "human_guard".to_string(),
        "orc".to_string(),
        "human_striker".to_string(),
    ];
    let m = compare::matrix(
        &s,
        sc,
        (&attackers, &defenders),
        &Pick::Headline,
        seed,
        Some(n),
        true,
    )
    .unwrap();
    assert_eq!((m.cells.len(), m.cells[0].len()), (2, 3));
    for (i, a) in attackers.iter().enumerate() {
        for (j, d) in defenders.iter().enumerate() {
            let cfg = rollsim::config::load(
                &shipped("rush.toml"),
                &[
                    format!("scenarios.{sc}.attacker={a}"),
                    format!("scenarios.{sc}.defender={d}"),
                ],
            )
            .unwrap();
            let c = cfg.compile(sc).unwrap();
            let h = app::simulate(&c, seed, Budget::Trials(n), true, &app::STOP).unwrap();
            let r = summarize(&c, &h, seed, "rush", "rush");
            assert_eq!(m.cells[i][j].estimate, r.headline.probability, "{a} v {d}");
            assert_eq!(m.cells[i][j].exact, r.headline.exact, "{a} v {d}");
        }
    }
    // The diagonal of identical units from the same side is symmetric: an orc slamming
    // an orc is the orc's usual slam (it moved adjacent: +1 die), not 50%.
    let exact = compare::matrix(&s, sc, (&[], &[]), &Pick::Headline, seed, None, true).unwrap();
    assert_eq!(exact.cells.len(), 5);
    for row in &exact.cells {
        for c in row {
            assert_eq!(c.ci.0, c.ci.1, "exact-only cells have no interval");
        }
    }
}

#[test]
fn sweep_points_match_their_exact_values() {
    let s = source("rush.toml", &[]);
    let sc = "slam-orc-vs-human-guard";
    let v = sweep::parse(&s, sc, "attacker.strength=2..6").unwrap();
    let r = sweep::sweep(&s, sc, vec![v], &Pick::Headline, 5, Some(300_000)).unwrap();
    assert_eq!(r.cells.len(), 5);
    for (k, row) in r.cells.iter().enumerate() {
        let c = &row[0];
        let exact = c.exact.unwrap();
        // Monte Carlo within 4.5 standard errors of the exact value at every point.
        let se = (exact * (1.0 - exact) / 300_000.0).sqrt();
        assert!((c.estimate - exact).abs() < 4.5 * se, "point {k}");
        // And the exact value is the config's with that one change.
        let cfg = rollsim::config::load(
            &shipped("rush.toml"),
            &[format!("units.orc.strength={}", 2 + k)],
        )
        .unwrap();
        let direct =
            rollsim::balance::exact_value(&cfg.compile(sc).unwrap(), &Pick::Headline).unwrap();
        assert!((direct - exact).abs() < 1e-15);
    }
    // Better strength (a lower target) never lowers P(slammer wins).
    for w in r.cells.windows(2) {
        assert!(w[0][0].exact.unwrap() >= w[1][0].exact.unwrap());
    }
    // An orc against an orc: changing the attacker's strength leaves the defender's.
    let s2 = source("rush.toml", &[&format!("scenarios.{sc}.defender=orc")]);
    let v = sweep::parse(&s2, sc, "attacker.strength=2..3").unwrap();
    let r2 = sweep::sweep(&s2, sc, vec![v], &Pick::Headline, 5, None).unwrap();
    assert!(r2.cells[0][0].estimate > r2.cells[1][0].estimate);
    // A scenario key.
    let d = source("descent.toml", &[]);
    let v = sweep::parse(&d, "crossbow-vs-ogre", "distance=1..10:3").unwrap();
    assert_eq!(v.values, vec![1, 4, 7, 10]);
    assert!(sweep::parse(&d, "crossbow-vs-ogre", "distance=5..1").is_err());
}

#[test]
fn sensitivity_more_dice_never_lower_a_one_success_test() {
    // Pick Up and Stand Up need one success: +1 die and every better stat step can only
    // raise P(success).
    let s = source("rush.toml", &[]);
    for sc in ["pick-up-striker", "stand-up-striker"] {
        let (headline, rows) = sensitivity::rows(&s, sc, 1, None).unwrap();
        let dice: Vec<_> = rows
            .iter()
            .filter(|r| r.quantity == headline && r.change.contains("+1 die"))
            .collect();
        assert!(!dice.is_empty(), "{sc}");
        for r in rows.iter().filter(|r| r.quantity == headline) {
            assert!(
                r.delta >= -1e-12,
                "{sc}: {} lowers it: {}",
                r.change,
                r.delta
            );
        }
        assert!(dice.iter().all(|r| r.delta > 0.0), "{sc}");
    }
}

const DUEL_OF_EQUALS: &str = r#"
system = "dozen"
[characters.left]
dx = 3
co = 3
st = 6
ch = 3
aw = 3
mv = 3
skills = { melee = 1 }
[characters.right]
dx = 3
co = 3
st = 6
ch = 3
aw = 3
mv = 3
skills = { melee = 1 }
[scenarios.m]
kind = "melee"
attacker = "left"
defender = "right"
"#;

#[test]
fn equalizer_by_hand() {
    // One d12 at 6 each: the attacker wins 57/144 (it succeeds and the defender does not,
    // 36, or both do and its die is at least the defender's, 21). Taking the defender's
    // only die away leaves the attacker winning exactly when its die succeeds: 6/12 =
    // 50%. Attacker ST 7 gives 69/144, ST 8 81/144; nothing else lands on 50%.
    let dir = tempdir();
    let path = dir.path().join("equals.toml");
    std::fs::write(&path, DUEL_OF_EQUALS).unwrap();
    let s = Source::load(&path, &[]).unwrap();
    let (label, p0, c) = equalize::candidates(&s, "m", 1, None).unwrap();
    assert_eq!(label, "P(attacker wins)");
    assert!((p0 - 57.0 / 144.0).abs() < 1e-15);
    let best = &c[0];
    assert_eq!(best.change, "defender right: -1 die");
    assert!((best.p - 0.5).abs() < 1e-15);
    // Melee level 1 -> 0 is the same change by another name; taking 2 or 3 dice from a
    // 1-die pool also leaves none: just as even, but larger steps.
    let even: Vec<&str> = c
        .iter()
        .filter(|x| (x.p - 0.5).abs() < 1e-12)
        .map(|x| x.change.as_str())
        .collect();
    assert_eq!(
        even,
        vec![
            "defender right: -1 die",
            "defender right: skills.melee 1 -> 0",
            "defender right: -2 dice",
            "defender right: -3 dice"
        ]
    );
    let st = |change: &str| c.iter().find(|x| x.change == change).unwrap().p;
    assert!((st("attacker left: st 6 -> 7") - 69.0 / 144.0).abs() < 1e-15);
    assert!((st("attacker left: st 6 -> 8") - 81.0 / 144.0).abs() < 1e-15);
}
