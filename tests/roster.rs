//! `rollsim roster` (issue #24): a roster of units read as a metagame, checked against
//! answers known by hand: rock-paper-scissors, exact copies, a dominated unit; bad input;
//! agreement with `compare`; a swapped side.

use crate::util::{rollsim, shipped, tempdir, text};
use std::path::Path;

/// Three dice-language units built so that each beats the next for sure, in either
/// seat (`kind` 0 rock, 1 paper, 2 scissors), and `extra` units after them.
fn rps(dir: &Path, extra: &str) -> std::path::PathBuf {
    let cfg = dir.join("rps.toml");
    std::fs::write(
        &cfg,
        format!(
            r#"system = "dice"
title = "Rock, paper, scissors"
[units.rock]
name = "Rock"
kind = 0
[units.paper]
name = "Paper"
kind = 1
[units.scissors]
name = "Scissors"
kind = 2
{extra}
[scenarios.throw]
description = "The row's throw beats the column's"
unit = "rock"
opponent = "paper"
roll = "(kind - their_kind == 1) + (their_kind - kind == 2)"
"#
        ),
    )
    .unwrap();
    cfg
}

/// The roster CSV as (unit, column -> value) rows.
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let t = std::fs::read_to_string(path).unwrap();
    let mut lines = t.lines();
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn num(r: &std::collections::HashMap<String, String>, k: &str) -> f64 {
    r[k].parse().unwrap_or_else(|_| panic!("{k}: {:?}", r[k]))
}

/// `rollsim roster CFG -s SCENARIO --exact-only ARGS -o OUT`, ready to assert on.
fn exact_roster(
    cfg: &Path,
    scenario: &str,
    args: &[&str],
    out: &Path,
) -> assert_cmd::assert::Assert {
    rollsim()
        .arg("roster")
        .arg(cfg)
        .args(["-s", scenario, "--exact-only"])
        .args(args)
        .arg("-o")
        .arg(out)
        .assert()
}

fn roster(cfg: &Path, out: &Path, more: &[&str]) -> String {
    let args: Vec<&str> = ["--no-plots"].iter().chain(more).copied().collect();
    let a = exact_roster(cfg, "throw", &args, out).success();
    text(&a.get_output().stdout)
}

#[test]
fn rock_paper_scissors_is_a_third_each_all_cycle() {
    let d = tempdir();
    let out = d.path().join("out");
    let md = roster(&rps(d.path(), ""), &out, &[]);
    let rs = rows(&out.join("roster-throw.csv"));
    assert_eq!(rs.len(), 3);
    for r in &rs {
        // The Nash mix is 1/3 each (the game is the same under a rotation of the three
        // throws). A player who may not pick rock mixes paper (x) and scissors, both
        // seats averaged (a throw against itself is 1/2): against rock it wins x,
        // against paper x/2 + (1 - x), against scissors (1 - x)/2; the least of these
        // is largest at x = 1/3, for 1/3. So each unit's worth to the roster is
        // 1/2 - 1/3 = 1/6. Equal ratings; 1/3 (1 + 0 + 1/2) = 50% against the field.
        assert!((num(r, "nash_weight") - 1.0 / 3.0).abs() < 1e-9, "{r:?}");
        assert!((num(r, "worth") - 1.0 / 6.0).abs() < 1e-9, "{r:?}");
        assert!(num(r, "elo").abs() < 1e-6, "{r:?}");
        assert!((num(r, "field_win_rate") - 0.5).abs() < 1e-12, "{r:?}");
        assert_eq!(r["dominated_by"], "", "{r:?}");
    }
    assert!(md.contains("wins at least 50.00%"), "{md}");
    // Each throw's row of log-odds holds one win, one loss and one even pairing: every
    // row mean is 0, so no strength per unit explains any of it: all cycle, 100%.
    assert!(md.contains("Cyclic share 100.00%"), "{md}");
}

#[test]
fn an_exact_copy_shares_its_weight_and_rating() {
    let d = tempdir();
    let out = d.path().join("out");
    // A second rock, an exact copy of the first.
    let extra = "[units.rock2]\nname = \"Second rock\"\nkind = 0\n";
    roster(&rps(d.path(), extra), &out, &[]);
    let rs = rows(&out.join("roster-throw.csv"));
    let by = |id: &str| rs.iter().find(|r| r["unit"] == id).unwrap();
    assert!((num(by("rock"), "nash_weight") - num(by("rock2"), "nash_weight")).abs() < 1e-12);
    assert!((num(by("rock"), "elo") - num(by("rock2"), "elo")).abs() < 1e-9);
    // Rock's share of the mix (1/3, as above) is split between its copies: 1/6 each.
    assert!(
        (num(by("rock"), "nash_weight") - 1.0 / 6.0).abs() < 1e-9,
        "{rs:?}"
    );
    assert!(
        (num(by("paper"), "nash_weight") - 1.0 / 3.0).abs() < 1e-9,
        "{rs:?}"
    );
    // A copy dominates nothing of its twin.
    assert_eq!(by("rock")["dominated_by"], "");
    assert_eq!(by("rock2")["dominated_by"], "");
}

#[test]
fn a_stronger_line_dominates_the_weaker_units() {
    // One stat: d6 + attack against d6 + their attack, the row winning ties. Attack 3
    // beats attack 1 and 2 at least as often in every seat: both are dominated, the
    // Nash mix is all attack 3, and it says what dominates them.
    let d = tempdir();
    let cfg = d.path().join("line.toml");
    std::fs::write(
        &cfg,
        r#"system = "dice"
title = "A line"
[units.one]
attack = 1
[units.two]
attack = 2
[units.three]
attack = 3
[scenarios.throw]
unit = "one"
opponent = "two"
roll = "d6 + attack >= d6 + their_attack"
"#,
    )
    .unwrap();
    let out = d.path().join("out");
    let md = roster(&cfg, &out, &[]);
    let rs = rows(&out.join("roster-throw.csv"));
    let by = |id: &str| rs.iter().find(|r| r["unit"] == id).unwrap();
    assert!(
        (num(by("three"), "nash_weight") - 1.0).abs() < 1e-9,
        "{rs:?}"
    );
    assert_eq!(num(by("one"), "nash_weight"), 0.0);
    assert_eq!(by("one")["dominated_by"], "two");
    assert_eq!(by("two")["dominated_by"], "three");
    assert_eq!(by("three")["dominated_by"], "");
    assert!(num(by("three"), "elo") > num(by("two"), "elo"));
    assert!(num(by("two"), "elo") > num(by("one"), "elo"));
    assert!(md.contains("it never picks"), "{md}");
    // Exact by hand: three attacking one wins P(b - a <= 2) = 30/36, one attacking
    // three P(a - b >= 2) = 10/36, so both seats give three (30/36 + 1 - 10/36) / 2 =
    // 56/72; against two, (26/36 + 1 - 15/36) / 2 = 47/72. Field: 103/144.
    let field = num(by("three"), "field_win_rate");
    assert!((field - 103.0 / 144.0).abs() < 1e-12, "{field}");
}

#[test]
fn bad_rosters_are_refused_with_what_is_missing() {
    let d = tempdir();
    let cfg = rps(d.path(), "");
    let out = d.path().join("out");
    for (args, says) in [
        (vec!["--units", "rock"], "at least two units"),
        (vec!["--units", "rock,papr"], "did you mean `paper`"),
        (vec!["--metric", "value"], "not a mean"),
    ] {
        let a = exact_roster(&cfg, "throw", &args, &out).code(2);
        let err = text(&a.get_output().stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}: nothing written");
    }
}

#[test]
fn the_matrix_is_compare_s_cell_by_cell_and_a_swapped_side_changes_nothing() {
    let d = tempdir();
    let cfg = shipped("dice-examples.toml");
    let run = |cmd: &str, out: &Path, sets: &[&str]| {
        let mut c = rollsim();
        c.arg(cmd)
            .arg(&cfg)
            .args(["-s", "fighter-vs-orc", "--exact-only", "--no-plots", "-o"])
            .arg(out);
        for s in sets {
            c.args(["--set", s]);
        }
        c.assert().success();
    };
    let (r, c, swapped) = (d.path().join("r"), d.path().join("c"), d.path().join("s"));
    run("roster", &r, &[]);
    run("compare", &c, &[]);
    // The scenario names who fights whom; a roster sets both sides in every cell, so
    // swapping them with --set gives the same matrix and the same roster.
    run(
        "roster",
        &swapped,
        &[
            "scenarios.fighter-vs-orc.unit=orc",
            "scenarios.fighter-vs-orc.opponent=fighter",
        ],
    );
    let files: Vec<_> = std::fs::read_dir(&c)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().ends_with(".csv"))
        .collect();
    assert!(!files.is_empty());
    for f in files {
        let theirs = std::fs::read_to_string(c.join(&f)).unwrap();
        assert_eq!(
            std::fs::read_to_string(r.join(&f)).unwrap(),
            theirs,
            "{f:?}"
        );
        assert_eq!(
            std::fs::read_to_string(swapped.join(&f)).unwrap(),
            theirs,
            "{f:?}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(r.join("roster-fighter-vs-orc.csv")).unwrap(),
        std::fs::read_to_string(swapped.join("roster-fighter-vs-orc.csv")).unwrap()
    );
}

#[test]
fn units_that_cannot_meet_are_refused_before_any_cell_is_computed() {
    // A descent attack sets a weapon against a monster: two tables, no roster.
    let d = tempdir();
    let a = exact_roster(
        &shipped("descent.toml"),
        "bare-hands-vs-skeleton",
        &[],
        &d.path().join("out"),
    )
    .code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("sides pick from `weapons` and `monsters`") && err.contains("can meet"),
        "{err}"
    );
    assert!(!d.path().join("out").exists());
}

#[test]
fn the_readme_s_roster_table_is_what_the_command_prints() {
    // The README quotes the rush Slam roster: the command's own table, line for line.
    let d = tempdir();
    let a = exact_roster(
        &shipped("rush.toml"),
        "slam-orc-vs-human-guard",
        &["--no-plots"],
        &d.path().join("out"),
    )
    .success();
    let md = text(&a.get_output().stdout);
    let readme = crate::util::all_docs();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 6, "{md}");
    for row in rows {
        assert!(readme.contains(row), "README lacks: {row}");
    }
    assert!(md.contains("Cyclic share 0.10%"), "{md}");
    assert!(readme.contains("(here 0.10%: a ladder)"));
    // The same table worked out here, and the README's rows are it.
    let (table, cyclic) = rush_slam_roster();
    assert_eq!(cyclic, "0.10%");
    assert!(md.contains(&format!("Cyclic share {cyclic}")), "{md}");
    for row in &table {
        assert!(md.contains(row), "the command lacks: {row}\n{md}");
        assert!(readme.contains(row), "README lacks: {row}");
    }
    assert_eq!(
        table,
        [
            "| Orc | +214 | 81.29% | 100.00% | +20.00 points | - |",
            "| Human Guard | +55 | 58.95% | 0.00% | +0.00 points | Orc |",
            "| Human Striker | -46 | 43.07% | 0.00% | +0.00 points | Human Guard |",
            "| Human Jack | -46 | 43.07% | 0.00% | +0.00 points | Human Guard |",
            "| Goblin | -177 | 23.61% | 0.00% | +0.00 points | Human Striker |",
        ]
    );
}

/// The rush Slam roster (`slam-orc-vs-human-guard`, every unit of rush.toml against
/// every unit, a Slamback answering) worked out apart from the library: its table rows
/// (best rated first) and its cyclic share.
fn rush_slam_roster() -> (Vec<String>, String) {
    // (name, strength, a guard): a Slam rolls 3 dice, +1 for a guard, +1 for moving
    // adjacent, each a success at strength+; the Slamback 3, +1 for a guard.
    let units = [
        ("Human Striker", 4, 0),
        ("Human Jack", 4, 0),
        ("Human Guard", 4, 1),
        ("Orc", 3, 1),
        ("Goblin", 5, 0),
    ];
    let n = units.len();
    let slam = |i: usize, j: usize| {
        let ((_, si, gi), (_, sj, gj)) = (units[i], units[j]);
        crate::util::slam_wins(3 + gi + 1, si, 3 + gj, sj)
    };
    // Both seats: i slams j, and j slams i and loses.
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| (slam(i, j) + 1.0 - slam(j, i)) / 2.0)
                .collect()
        })
        .collect();
    // Bradley-Terry: log-strengths r with P(i beats j) = 1 / (1 + e^(r_j - r_i)), fitted
    // to a[i][j] over the pairs by maximum likelihood: gradient ascent (the likelihood
    // is concave), mean 0; Elo points are r x 400 / ln 10.
    let mut r = vec![0.0f64; n];
    for _ in 0..20_000 {
        let grad: Vec<f64> = (0..n)
            .map(|i| {
                (0..n)
                    .filter(|&j| j != i)
                    .map(|j| a[i][j] - 1.0 / (1.0 + (r[j] - r[i]).exp()))
                    .sum()
            })
            .collect();
        r.iter_mut().zip(&grad).for_each(|(x, g)| *x += 0.1 * g);
        let m = r.iter().sum::<f64>() / n as f64;
        r.iter_mut().for_each(|x| *x -= m);
    }
    let elo: Vec<f64> = r
        .iter()
        .map(|x| x * 400.0 / std::f64::consts::LN_10)
        .collect();
    // The Orc wins at least 1/2 against every unit, and every other unit less than 1/2
    // against the Orc: a perfect player picks the Orc alone (the value of this
    // symmetric game is 1/2), and any weight elsewhere loses to the Orc.
    let orc = 3;
    assert!((0..n).all(|j| a[orc][j] >= 0.5));
    assert!((0..n).all(|k| k == orc || a[k][orc] < 0.5));
    // Without the Orc, no mix beats the best row against the Orc, and that row (the
    // Guard's) does no worse against anything else: it guarantees exactly that. Without
    // any other unit the Orc still guarantees 1/2.
    let best = (0..n)
        .filter(|&k| k != orc)
        .max_by(|&x, &y| a[x][orc].total_cmp(&a[y][orc]))
        .unwrap();
    assert!((0..n).all(|j| a[best][j] >= a[best][orc]));
    let worth = |k: usize| {
        if k == orc {
            0.5 - a[best][orc]
        } else {
            0.0
        }
    };
    // Dominated by: the first unit at least as good against every unit and better
    // against one.
    let dominated_by = |k: usize| {
        (0..n)
            .find(|&d| {
                d != k
                    && (0..n).all(|j| a[d][j] >= a[k][j] - 1e-12)
                    && (0..n).any(|j| a[d][j] > a[k][j] + 1e-12)
            })
            .map_or("-", |d| units[d].0)
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| elo[y].total_cmp(&elo[x]));
    let rows = order
        .iter()
        .map(|&i| {
            let field = (0..n).filter(|&j| j != i).map(|j| a[i][j]).sum::<f64>() / (n - 1) as f64;
            format!(
                "| {} | {:+.0} | {:.2}% | {:.2}% | {:+.2} points | {} |",
                units[i].0,
                elo[i],
                100.0 * field,
                if i == orc { 100.0 } else { 0.0 },
                100.0 * worth(i),
                dominated_by(i)
            )
        })
        .collect();
    // The cyclic share: the log-odds l[i][j] less the best fit r_i - r_j (r_i the row
    // mean, least squares), as a share of the whole sum of squares.
    let l: Vec<Vec<f64>> = a
        .iter()
        .map(|row| row.iter().map(|p| (p / (1.0 - p)).ln()).collect())
        .collect();
    let mean: Vec<f64> = l
        .iter()
        .map(|row| row.iter().sum::<f64>() / n as f64)
        .collect();
    let (mut rest, mut all) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            rest += (l[i][j] - mean[i] + mean[j]).powi(2);
            all += l[i][j].powi(2);
        }
    }
    (rows, format!("{:.2}%", 100.0 * rest / all))
}

/// Three squads of one kind of model (a d6 each, a hit on 4+), two, one and four
/// models, all at cost 10: a volley each way, the one with more hits winning.
pub const SQUADS: &str = r#"system = "dice"
title = "Squads"
stat_bounds = { models = [1, 40] }
[units.pair]
models = 2
cost = 10
[units.single]
models = 1
cost = 10
[units.four]
models = 4
cost = 10
[scenarios.volley]
unit = "single"
opponent = "pair"
roll = "(models)d6 count >= 4"
vs = "(models)d6 count >= 4"
"#;

#[test]
fn a_squad_of_2n_prices_at_twice_one_of_n_and_repricing_evens_the_field() {
    let d = tempdir();
    let cfg = d.path().join("squads.toml");
    std::fs::write(&cfg, SQUADS).unwrap();
    let a = exact_roster(&cfg, "volley", &["--no-plots"], &d.path().join("plain")).success();
    assert!(
        !text(&a.get_output().stdout).contains("Point costs"),
        "no costs without --count"
    );
    let a = exact_roster(
        &cfg,
        "volley",
        &["--no-plots", "--count", "models", "--reference", "single"],
        &d.path().join("priced"),
    )
    .success();
    let md = text(&a.get_output().stdout);
    let rs = rows(&d.path().join("priced/costs-volley.csv"));
    let by = |id: &str| rs.iter().find(|r| r["unit"] == id).unwrap();
    // The mechanic is linear in models: one model of any squad ties the single model
    // (the same unit, both seats: 1/2 exactly), so a squad of N is worth N singles.
    assert_eq!(num(by("single"), "suggested_cost"), 10.0);
    assert!(
        (num(by("pair"), "suggested_cost") - 20.0).abs() < 1e-9,
        "{rs:?}"
    );
    assert!(
        (num(by("four"), "suggested_cost") - 40.0).abs() < 1e-9,
        "{rs:?}"
    );
    // Re-priced, every squad fields one model at equal points: every pair is even;
    // at the flat cost of 10 the four models beat the single one by 39 points.
    for id in ["pair", "single", "four"] {
        assert!((num(by(id), "field_after") - 0.5).abs() < 1e-12, "{id}");
    }
    assert!(md.contains("0.00 points with the suggested ones"), "{md}");
    let worst_before = md
        .split("Largest |win rate - 50%| over the pairs: ")
        .nth(1)
        .and_then(|t| t.split(" points").next())
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap();
    assert!(worst_before > 30.0, "{md}");
    // With charts: the matrix at equal points before and after re-pricing, as heatmaps.
    exact_roster(
        &cfg,
        "volley",
        &["--count", "models"],
        &d.path().join("charts"),
    )
    .success();
    for f in [
        "matrix-volley-costs-now.png",
        "matrix-volley-repriced.png",
        "costs-volley-exchange.png",
    ] {
        let png = std::fs::read(d.path().join("charts").join(f)).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{f}");
    }
}

#[test]
fn costs_without_a_count_knob_or_with_a_bad_cost_are_refused() {
    let d = tempdir();
    // Rush units have no count to step.
    let a = exact_roster(
        &shipped("rush.toml"),
        "slam-orc-vs-human-guard",
        &["--count", "models"],
        &d.path().join("o"),
    )
    .code(2);
    let err = text(&a.get_output().stderr);
    assert!(err.contains("no stat `models` to count with"), "{err}");
    assert!(err.contains("`strength`"), "{err}");
    assert!(!d.path().join("o").exists());
    // A cost of 0 is refused at its line.
    let cfg = d.path().join("squads.toml");
    std::fs::write(&cfg, SQUADS.replacen("cost = 10", "cost = 0", 1)).unwrap();
    let a = rollsim().arg("check").arg(&cfg).assert().code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("squads.toml:6:1: key `units.pair.cost`"),
        "{err}"
    );
    assert!(
        err.contains("expected a positive number of points, found 0"),
        "{err}"
    );
    // An unknown reference names the nearest unit.
    std::fs::write(&cfg, SQUADS).unwrap();
    let a = exact_roster(
        &cfg,
        "volley",
        &["--count", "models", "--reference", "singel"],
        &d.path().join("o"),
    )
    .code(2);
    let err = text(&a.get_output().stderr);
    assert!(err.contains("did you mean `single`"), "{err}");
}

#[test]
fn the_readme_s_cost_table_is_what_the_command_prints() {
    let d = tempdir();
    let a = exact_roster(
        &shipped("dice-examples.toml"),
        "fighter-duels-orc",
        &["--no-plots", "--count", "hp"],
        &d.path().join("out"),
    )
    .success();
    let md = text(&a.get_output().stdout);
    let readme = crate::util::all_docs();
    let costs = md.split("#### Point costs").nth(1).unwrap();
    let rows: Vec<&str> = costs.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 3, "{costs}");
    for row in rows {
        assert!(readme.contains(row), "README lacks: {row}");
    }
    // Worked out here: the Orc's chance against the Fighter (12 hp), both seats, by its
    // hp. It ties between 19 hp and 20, read by a straight line between the two; at
    // 15 hp it costs 100 x 15 over that (75 at 20, 78.9 at 19). What 100 points then buy
    // is 15 x 100 / 75.2 = 19.93 hp, fielded as 20: the Orc wins f(20) of the pair.
    let f = orc_against_fighter;
    let (f19, f20) = (f(19), f(20));
    assert!(f19 < 0.5 && 0.5 < f20, "{f19} {f20}");
    let even = 19.0 + (0.5 - f19) / (f20 - f19);
    let cost = |hp: f64| {
        let c = format!("{:.1}", 100.0 * 15.0 / hp);
        c.strip_suffix(".0").map_or(c.clone(), str::to_string)
    };
    let derived = [
        format!(
            "| Fighter | 12 | 12.00 | - | 100 | - | {:.2}% |",
            100.0 * (1.0 - f20)
        ),
        format!(
            "| Orc | 15 | {even:.2} | - | {} ({} to {}) | - | {:.2}% |",
            cost(even),
            cost(20.0),
            cost(19.0),
            100.0 * f20
        ),
    ];
    assert_eq!(
        derived,
        [
            "| Fighter | 12 | 12.00 | - | 100 | - | 49.83% |",
            "| Orc | 15 | 19.93 | - | 75.2 (75 to 78.9) | - | 50.17% |",
        ]
    );
    for row in &derived {
        assert!(
            costs.contains(row.as_str()),
            "the command lacks: {row}\n{costs}"
        );
        assert!(readme.contains(row.as_str()), "README lacks: {row}");
    }
    let off = format!("{:.2} points with the suggested ones", 100.0 * (f20 - 0.5));
    assert!(md.contains(&off), "{off}\n{md}");
}

/// `fighter-duels-orc` (dice-examples.toml) apart from the library: each round the unit
/// hits on d20 + its attack >= the other's AC for a d8, the opponent at the same time on
/// d20 + its attack >= the unit's AC for a d10, until one is down. A Markov chain over
/// (unit's hp, opponent's hp): P(the unit wins: standing, the other down).
fn unit_wins_duel(hp: [i64; 2], hit: [f64; 2]) -> f64 {
    let dealt = |p: f64, sides: i64| {
        let mut d = vec![(0, 1.0 - p)];
        d.extend((1..=sides).map(|x| (x, p / sides as f64)));
        d
    };
    let (by_unit, by_other) = (dealt(hit[0], 8), dealt(hit[1], 10));
    let mut state = std::collections::BTreeMap::from([((hp[0], hp[1]), 1.0)]);
    let mut wins = 0.0;
    // 300 rounds; what is left after them is below 1e-50.
    for _ in 0..300 {
        let mut next = std::collections::BTreeMap::new();
        for (&(me, foe), &p) in &state {
            for &(a, pa) in &by_unit {
                for &(b, pb) in &by_other {
                    let (me, foe) = (me - b, foe - a);
                    if me <= 0 || foe <= 0 {
                        wins += if me > 0 { p * pa * pb } else { 0.0 };
                    } else {
                        *next.entry((me, foe)).or_insert(0.0) += p * pa * pb;
                    }
                }
            }
        }
        state = next;
    }
    wins
}

/// The Orc (attack 3, AC 13) with `hp` against the Fighter (attack 5, AC 16, 12 hp),
/// both seats: (P(the Orc wins as the unit) + 1 - P(the Fighter wins as the unit)) / 2.
/// The Fighter hits the Orc on 8+ (13/20), the Orc the Fighter on 13+ (8/20).
fn orc_against_fighter(hp: i64) -> f64 {
    let orc = unit_wins_duel([hp, 12], [8.0 / 20.0, 13.0 / 20.0]);
    let fighter = unit_wins_duel([12, hp], [13.0 / 20.0, 8.0 / 20.0]);
    (orc + 1.0 - fighter) / 2.0
}
