//! Balance analysis (issue #6): the matrix against single runs, the sweep against exact
//! values, the sign of sensitivity, the equalizer on a case worked by hand, the gallery.

use crate::util::{ctx, job, shipped, tempdir};
use rollsim::app::balance::load_source;

use rollsim::balance::{compare, equalize, sensitivity, sweep, Pick, Source};
use rollsim::report::summarize;
use rollsim::sim::Budget;

fn source(name: &str, sets: &[&str]) -> Source {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_source(&shipped(name), &sets).unwrap()
}

/// Scenario `sc` of rush.toml with `attacker` against `defender`, as a single run
/// compiles it (what a matrix cell must equal).
fn pair(sc: &str, attacker: &str, defender: &str) -> rollsim::model::Compiled {
    rollsim::config::load(
        &shipped("rush.toml"),
        &[
            format!("scenarios.{sc}.attacker={attacker}"),
            format!("scenarios.{sc}.defender={defender}"),
        ],
        &rollsim::Cancel::new(),
    )
    .unwrap()
    .compile(sc)
    .unwrap()
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
        Some(rollsim::sim::Budget::Trials(n)),
        ctx(),
    )
    .unwrap();
    assert_eq!((m.cells.len(), m.cells[0].len()), (2, 3));
    for (i, a) in attackers.iter().enumerate() {
        for (j, d) in defenders.iter().enumerate() {
            let c = pair(sc, a, d);
            let h = rollsim::run::simulate(&c, seed, Budget::Trials(n), ctx()).unwrap();
            let r = summarize(&c, &h, seed, "rush", "rush");
            let cell = m.cells[i][j].value.as_ref().unwrap();
            assert_eq!(cell.estimate, r.headline.probability, "{a} v {d}");
            assert_eq!(cell.exact, r.headline.exact, "{a} v {d}");
        }
    }
    // The diagonal of identical units from the same side is symmetric: an orc slamming
    // an orc is the orc's usual slam (it moved adjacent: +1 die), not 50%.
    let exact = compare::matrix(&s, sc, (&[], &[]), &Pick::Headline, seed, None, ctx()).unwrap();
    assert_eq!(exact.cells.len(), 5);
    for row in &exact.cells {
        for c in row {
            let c = c.value.as_ref().unwrap();
            assert_eq!(c.ci.0, c.ci.1, "exact-only cells have no interval");
        }
    }
}

#[test]
fn a_matrix_cell_to_a_precision_stops_on_the_number_it_shows() {
    // A goblin slamming a Human Guard rarely knocks it down (the headline), while the
    // Slam's other metrics (each side's successes) have values near 1/2. A run of the
    // scenario stops when all of them are within the target; a matrix cell shows the
    // headline only, so it stops once that is, and its number is the run's at the
    // cell's own count: same seed, same bits.
    let s = source("rush.toml", &[]);
    let sc = "slam-orc-vs-human-guard";
    let (seed, eps) = (5, 0.002);
    let budget = Budget::Precision {
        eps,
        max_trials: 1_000_000,
    };
    let m = compare::matrix(
        &s,
        sc,
        (&["goblin".to_string()], &["human_guard".to_string()]),
        &Pick::Headline,
        seed,
        Some(budget),
        ctx(),
    )
    .unwrap();
    let cell = m.cells[0][0].value.as_ref().unwrap();
    assert!((cell.ci.1 - cell.ci.0) / 2.0 <= eps, "{cell:?}");
    let c = pair(sc, "goblin", "human_guard");
    let whole = rollsim::run::simulate(&c, seed, budget, ctx()).unwrap();
    assert!(
        cell.trials < whole.trials,
        "the cell ran {} trials, the whole report {}",
        cell.trials,
        whole.trials
    );
    let h = rollsim::run::simulate(&c, seed, Budget::Trials(cell.trials), ctx()).unwrap();
    let r = summarize(&c, &h, seed, "rush", "rush");
    assert_eq!(cell.estimate, r.headline.probability);
    // A few steps (16,384 trials) fewer would not have met the target: the cell stopped
    // near where its own number asked (a count scaled from an estimate), not later.
    let fewer = cell.trials - 4 * rollsim::sim::PRECISION_STEP;
    let fewer = rollsim::run::simulate(&c, seed, Budget::Trials(fewer), ctx()).unwrap();
    let r = summarize(&c, &fewer, seed, "rush", "rush");
    assert!(
        (r.headline.ci_high - r.headline.ci_low) / 2.0 > eps,
        "{:?}",
        r.headline
    );
}

#[test]
fn sweep_points_match_their_exact_values() {
    let s = source("rush.toml", &[]);
    let sc = "slam-orc-vs-human-guard";
    let v = sweep::parse(&s, sc, "attacker.strength=2..6").unwrap();
    let t = s.target(sc).unwrap();
    let r = sweep::sweep(&job(&s, &t, &Pick::Headline, 5, Some(300_000)), vec![v]).unwrap();
    let cells = &r.series[0].cells;
    assert_eq!(cells.len(), 5);
    for (k, row) in cells.iter().enumerate() {
        let c = row[0].as_ref().unwrap();
        let exact = c.exact.unwrap();
        // Monte Carlo within 4.5 standard errors of the exact value at every point.
        let se = (exact * (1.0 - exact) / 300_000.0).sqrt();
        assert!((c.estimate - exact).abs() < 4.5 * se, "point {k}");
        // And the exact value is the config's with that one change.
        let cfg = rollsim::config::load(
            &shipped("rush.toml"),
            &[format!("units.orc.strength={}", 2 + k)],
            &rollsim::Cancel::new(),
        )
        .unwrap();
        let direct =
            rollsim::balance::exact_value(&cfg.compile(sc).unwrap(), &Pick::Headline).unwrap();
        // (Tables keep 13 significant digits.)
        assert!((direct - exact).abs() < 1e-12);
    }
    // Better strength (a lower target) never lowers P(slammer wins).
    let exact = |c: &rollsim::balance::Slot| c.as_ref().unwrap().exact.unwrap();
    for w in cells.windows(2) {
        assert!(exact(&w[0][0]) >= exact(&w[1][0]));
    }
    // An orc against an orc: changing the attacker's strength leaves the defender's.
    let s2 = source("rush.toml", &[&format!("scenarios.{sc}.defender=orc")]);
    let v = sweep::parse(&s2, sc, "attacker.strength=2..3").unwrap();
    let t2 = s2.target(sc).unwrap();
    let r2 = sweep::sweep(&job(&s2, &t2, &Pick::Headline, 5, None), vec![v]).unwrap();
    let c2 = &r2.series[0].cells;
    assert!(exact(&c2[0][0]) > exact(&c2[1][0]));
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
        let t = s.target(sc).unwrap();
        let rows = sensitivity::rows(&job(&s, &t, &Pick::Headline, 1, None))
            .unwrap()
            .rows;
        let headline = rows[0].quantity.clone();
        assert!(headline.starts_with("P("), "{headline}");
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
    // 50%. Attacker ST 7 gives 69/144, ST 8 81/144. The defender's ST 6 -> 1 (five
    // steps, which the goal-seek reaches) lands on 50% too: it succeeds on a 1 only,
    // so the attacker wins 6/12 * 11/12 + 6/12 * 1/12 (its success is never below a
    // 1) = 72/144.
    let dir = tempdir();
    let path = dir.path().join("equals.toml");
    std::fs::write(&path, DUEL_OF_EQUALS).unwrap();
    let s = load_source(&path, &[]).unwrap();
    let t = s.target("m").unwrap();
    // A 50% win asked for: this duel can end in a draw, where the default is wins
    // equal losses (`tests/equalize.rs`).
    let e = equalize::equalize(&job(&s, &t, &Pick::Headline, 1, None), Some(0.5), false).unwrap();
    let e = &e[0];
    let c = &e.candidates;
    assert_eq!(e.what, "P(attacker wins)");
    assert!((e.now - 57.0 / 144.0).abs() < 1e-15);
    let best = &c[0];
    assert_eq!(best.change, "defender right: -1 die");
    assert!((best.value - 0.5).abs() < 1e-15);
    // Melee level 1 -> 0 is the same change by another name. The goal-seek stops along
    // a knob at the first step that reaches the target: -2 or -3 dice (just as even,
    // larger steps) are not tried.
    let even: Vec<&str> = c
        .iter()
        .filter(|x| (x.value - 0.5).abs() < 1e-12)
        .map(|x| x.change.as_str())
        .collect();
    assert_eq!(
        even,
        vec![
            "defender right: -1 die",
            "defender right: skills.melee 1 -> 0",
            "defender right: st 6 -> 1",
        ]
    );
    let st = |change: &str| c.iter().find(|x| x.change == change).unwrap().value;
    assert!((st("attacker left: st 6 -> 7") - 69.0 / 144.0).abs() < 1e-15);
    assert!((st("attacker left: st 6 -> 8") - 81.0 / 144.0).abs() < 1e-15);
}

/// Two units per side whose Slams roll one die each (base_dice = 1, all Jacks, no
/// threat), so every cell is a product of two single-die chances.
const ONE_DIE_SLAMS: &str = r#"
system = "rush"
[rules]
base_dice = 1
[units.a1]
strength = 4
speed = 4
skill = 4
armour = 4
role = "jack"
[units.a2]
strength = 2
speed = 4
skill = 4
armour = 4
role = "jack"
[units.d1]
strength = 6
speed = 3
skill = 4
armour = 4
role = "jack"
[units.d2]
strength = 2
speed = 6
skill = 4
armour = 4
role = "jack"
[scenarios.s]
kind = "slam"
attacker = "a1"
defender = "d1"
response = "slamback"
"#;

#[test]
fn best_response_matrix_by_hand() {
    // One die each: the slammer wins (1 success against 0) exactly when its die succeeds
    // and the defender's fails. Slamback rolls the defender's strength, Dodge its speed.
    // a1 succeeds 1/2, a2 5/6. d1: Slamback fails 5/6, Dodge 2/6 -> Dodge. d2: Slamback
    // fails 1/6, Dodge 5/6 -> Slamback. So the cells are 1/2*2/6, 1/2*1/6, 5/6*2/6 and
    // 5/6*1/6, with the choice named in each.
    let dir = tempdir();
    let path = dir.path().join("one-die.toml");
    std::fs::write(&path, ONE_DIE_SLAMS).unwrap();
    let s = load_source(&path, &[]).unwrap();
    let t = s.target("s").unwrap();
    let ids = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let (rows, cols) = (ids(&["a1", "a2"]), ids(&["d1", "d2"]));
    let ms =
        compare::matrices(&job(&s, &t, &Pick::Headline, 1, None), (&rows, &cols), true).unwrap();
    assert_eq!(ms.len(), 1);
    let want = [
        [(1.0 / 6.0, "dodge"), (1.0 / 12.0, "slamback")],
        [(10.0 / 36.0, "dodge"), (5.0 / 36.0, "slamback")],
    ];
    for (i, row) in want.iter().enumerate() {
        for (j, &(p, r)) in row.iter().enumerate() {
            let c = &ms[0].cells[i][j];
            let v = c.value.as_ref().unwrap().estimate;
            assert!((v - p).abs() < 1e-15, "{i},{j}: {v} != {p}");
            assert_eq!(c.response.as_deref(), Some(r), "{i},{j}");
        }
    }
    // Without --response best the scenario's Slamback stands: a1 against d1 is 1/2*5/6.
    let fixed = compare::matrices(
        &job(&s, &t, &Pick::Headline, 1, None),
        (&rows, &cols),
        false,
    )
    .unwrap();
    let v = fixed[0].cells[0][0].value.as_ref().unwrap().estimate;
    assert!((v - 5.0 / 12.0).abs() < 1e-15);
    assert_eq!(fixed[0].cells[0][0].response, None);
}

#[test]
fn metric_changes_what_every_command_measures() {
    let s = source("rush.toml", &[]);
    let sc = "slam-orc-vs-human-guard";
    let t = s.target(sc).unwrap();
    let head = Pick::Headline;
    let double = Pick::parse(Some("result=double"));
    let cell = |p: &Pick| {
        let ms = compare::matrices(&job(&s, &t, p, 1, None), (&[], &[]), false).unwrap();
        ms[0].cells[3][2].value.as_ref().unwrap().estimate
    };
    // The Orc against the Human Guard: P(win or double) against P(double) alone. The
    // Orc's 5 dice at 3+ against the Guard's 4 at 4+ (`util::slam_where` sums the two
    // binomials): more successes, 467/648 = 0.72068; a double ("twice": at least twice
    // the Guard's successes and more of them, so 1 against 0 counts), 0.47377.
    let (a, b) = (cell(&head), cell(&double));
    let win = crate::util::slam_wins(5, 3, 4, 4);
    let twice = crate::util::slam_where(5, 3, 4, 4, |x, y| x > y && x >= 2 * y);
    assert!((win - 467.0 / 648.0).abs() < 1e-12, "{win}");
    assert!(
        (a - win).abs() < 1e-9 && (b - twice).abs() < 1e-9,
        "{a} {b}"
    );
    // Sensitivity measures the asked metric only.
    let rows = sensitivity::rows(&job(&s, &t, &double, 1, None))
        .unwrap()
        .rows;
    assert!(rows.iter().all(|r| r.quantity == "P(result = double)"));
    let headline_rows = sensitivity::rows(&job(&s, &t, &head, 1, None))
        .unwrap()
        .rows;
    let strength = |rows: &[rollsim::report::analysis::SensitivityRow]| {
        rows.iter()
            .find(|r| r.change == "attacker Orc: strength 3+ -> 2+" && r.quantity.starts_with('P'))
            .unwrap()
            .delta
    };
    assert!((strength(&rows) - strength(&headline_rows)).abs() > 1e-3);
    // The equalizer brings the asked metric to the target.
    let e = equalize::equalize(&job(&s, &t, &double, 1, None), Some(0.3), false).unwrap();
    assert_eq!(e[0].what, "P(result = double)");
    assert!((e[0].now - b).abs() < 1e-12);
    assert!((e[0].candidates[0].value - 0.3).abs() < (e[0].now - 0.3).abs());
    // A mean needs a target.
    let mean = Pick::parse(Some("target_turns_out_of_play"));
    assert!(equalize::equalize(&job(&s, &t, &mean, 1, None), None, false).is_err());
    assert!(equalize::equalize(&job(&s, &t, &mean, 1, None), Some(0.5), true).is_ok());
}

#[test]
fn groups_and_their_members_are_names_every_command_takes() {
    let d = source("descent.toml", &[]);
    // A member of a distance profile: its own table is the profile's.
    let m = d.target("crossbow-range@d4").unwrap();
    assert_eq!(
        (m.table.as_str(), m.members.len(), m.group),
        ("crossbow-range", 1, false)
    );
    // The profile itself: every point, in list order.
    let g = d.target("crossbow-range").unwrap();
    assert!(g.group && g.members.len() >= 10);
    assert!(g.members.iter().all(|x| x.starts_with("crossbow-range@")));
    // A profile sweep: one line per member; the melee weapons' impossible distances do
    // not stop a matrix, they leave blank cells with the reason.
    let v = sweep::parse(&d, &g.table, "target.armour=0..3").unwrap();
    let sw = sweep::sweep(&job(&d, &g, &Pick::Headline, 1, None), vec![v]).unwrap();
    assert_eq!(sw.series.len(), g.members.len());
    // More armour never raises P(kill), on any line.
    for ser in &sw.series {
        let p: Vec<f64> = ser
            .cells
            .iter()
            .map(|r| r[0].as_ref().unwrap().estimate)
            .collect();
        assert!(p.windows(2).all(|w| w[1] <= w[0] + 1e-12), "{}", ser.label);
    }
    let ms = compare::matrices(&job(&d, &m, &Pick::Headline, 1, None), (&[], &[]), false).unwrap();
    let blank = ms[0]
        .cells
        .iter()
        .flatten()
        .filter_map(|c| c.value.as_ref().err())
        .collect::<Vec<_>>();
    assert!(!blank.is_empty() && blank.iter().all(|e| e.contains("melee weapon")));
    // descent's extra die is a power die, and says so.
    let steps = rollsim::balance::steps(&d, "crossbow-vs-ogre", 1).unwrap();
    assert!(
        steps.iter().any(|s| s.label.ends_with("+1 power die")),
        "{steps:?}"
    );
    // A skirmish decision table as a group.
    let k = source("skirmish.toml", &[]);
    let dec = k.target("archers-shot-at").unwrap();
    assert!(
        dec.group
            && dec
                .members
                .contains(&"archers-shot-at@shoot_back".to_string())
    );
    assert!(k.target("archers-shot-at@shoot_back").is_ok());
    let err = k.target("archers-shot-et").unwrap_err().to_string();
    assert!(err.contains("did you mean `archers-shot-at`"), "{err}");
}

#[test]
fn a_written_name_cannot_collide_with_a_generated_member() {
    let text = std::fs::read_to_string(shipped("descent.toml")).unwrap()
        + "\n[scenarios.\"crossbow-range@d4\"]\nkind = \"attack\"\nhero = \"fighter\"\nweapon = \"crossbow\"\ntarget = \"ogre\"\n";
    let e = rollsim::config::load_str(&text, "d.toml", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`@` is reserved"), "{e}");
    assert!(e.starts_with("d.toml:"), "{e}");
}

#[test]
fn a_decision_is_read_after_the_defenders_best_choice() {
    // Sensitivity and the equalizer on a decision table read each variant after the
    // target's best reaction: the base value is the lowest headline among the choices.
    let k = source("skirmish.toml", &[]);
    let t = k.target("archers-shot-at").unwrap();
    let cfg = k.base.clone();
    let lowest = t
        .members
        .iter()
        .map(|m| rollsim::balance::exact_value(&cfg.compile(m).unwrap(), &Pick::Headline).unwrap())
        .fold(f64::MAX, f64::min);
    let rows = sensitivity::rows(&job(&k, &t, &Pick::Headline, 1, None))
        .unwrap()
        .rows;
    assert!(rows
        .iter()
        .all(|r| r.scenario == "archers-shot-at (best choice)"));
    assert!(
        (rows[0].base - lowest).abs() < 1e-15,
        "{} {lowest}",
        rows[0].base
    );
    let e = equalize::equalize(&job(&k, &t, &Pick::Headline, 1, None), None, false).unwrap();
    assert_eq!(e.len(), 1);
    assert!((e[0].now - lowest).abs() < 1e-15);
}

/// A dice scenario's named number (`values = { n = 2 }`) is a key a sweep steps by its
/// name, as `distance` is a descent scenario's: `--vary n=1..3` steps
/// `scenarios.NAME.values.n` (it was refused as an unknown key of the scenario). The
/// mean of (n)d6 is 3.5 n.
#[test]
fn a_sweep_steps_a_dice_scenarios_named_value_by_its_name() {
    let dir = tempdir();
    let cfg = dir.path().join("v.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[scenarios.pool]\nroll = \"(n)d6\"\nvalues = { n = 2 }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    crate::util::rollsim()
        .args([
            "sweep",
            cfg.to_str().unwrap(),
            "-s",
            "pool",
            "--vary",
            "n=1..3",
        ])
        .args(["--metric", "value", "--exact-only", "-o"])
        .arg(&out)
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.join("sweep-pool-n.csv")).unwrap();
    let exact: Vec<f64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(5).unwrap().parse().unwrap())
        .collect();
    assert_eq!(exact.len(), 3, "{csv}");
    for (got, n) in exact.iter().zip([1.0, 2.0, 3.0]) {
        assert!((got - 3.5 * n).abs() < 1e-12, "{csv}");
    }
}
