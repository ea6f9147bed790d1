//! `descent` (docs/games/descent.md): hand-checked exact values, the ordering of the re-roll
//! policies for every shipped weapon, Aim + Dodge cancelling, and pierce.

use crate::util::{close, exact_of, load, simulate};
use rollsim::config::load_str;
use rollsim::report::summarize;
use rollsim::systems::descent::config::DescentConfig;
use rollsim::systems::descent::rules::{self as descent, Attack, Objective, Policy};

fn shipped() -> DescentConfig {
    load("descent.toml")
        .typed::<DescentConfig>()
        .expect("descent.toml is a descent config")
        .clone()
}

/// An attack from the shipped parts: `weapon` by `hero` at `target`.
fn attack(weapon: &str, power_dice: u8, target: &str, distance: u8) -> Attack {
    let d = shipped();
    Attack {
        hero: d.heroes[0].clone(),
        weapon: d.weapons.iter().find(|w| w.id == weapon).unwrap().clone(),
        power_die: d.dice.iter().find(|x| x.name == "black").unwrap().clone(),
        power_dice,
        target: d.monsters.iter().find(|m| m.id == target).unwrap().clone(),
        wounds: d.monsters.iter().find(|m| m.id == target).unwrap().wounds,
        distance,
        aim: None,
        dodge: None,
        objective: Objective::Damage,
        group: None,
    }
}

fn exact(a: &Attack) -> Vec<f64> {
    descent::compile("t", a).exact.unwrap()
}

/// (P(miss face), P(out of range), expected damage, P(kill)), read through the
/// metrics (a state is not its damage once a weapon buys effects).
fn summary(a: &Attack) -> (f64, f64, f64, f64) {
    let c = descent::compile("t", a);
    let e = c.exact.as_ref().unwrap();
    let metric = |name: &str| {
        let m = c.metrics.iter().find(|m| m.name == name).unwrap();
        m.project_f64(e)
    };
    let mean = metric("damage")
        .iter()
        .enumerate()
        .map(|(d, p)| d as f64 * p)
        .sum();
    (e[0], e[1], mean, metric("kill")[1])
}

const BLUE_ALONE: &str = r#"
system = "descent"
[dice.blue]
faces = ["X", "R1 2H", "R2 2H", "R3 1H S", "R3 1H S", "R4 S"]
[dice.black]
faces = ["H|R", "H|R", "H|R", "S", "S", "blank"]
[weapons.sling]
dice = ["blue"]
type = "ranged"
[weapons.fist]
dice = ["blue"]
type = "melee"
[weapons.spiked_fist]
dice = ["blue"]
type = "melee"
surges = [{ cost = 1, damage = 1 }]
[heroes.h]
power_dice = 0
[monsters.dummy]
armour = 0
wounds = 2
"#;

fn blue(scenarios: &str) -> rollsim::config::AnalysisConfig {
    load_str(&format!("{BLUE_ALONE}\n{scenarios}"), "test.toml", &[]).unwrap()
}

#[test]
fn the_blue_die_alone_misses_one_time_in_six() {
    let c = load("descent.toml")
        .compile("bare-hands-vs-skeleton")
        .unwrap();
    // One blue die: the X face, 1 of its 6, misses; the target is adjacent, so every
    // other face is in range.
    close(exact_of(&c, "result", "miss"), 1.0 / 6.0);
    close(exact_of(&c, "result", "out of range"), 0.0);
}

#[test]
fn a_lone_blue_die_reaches_range_3_half_the_time() {
    // Faces R3, R3, R4 reach 3; X, R1, R2 do not (the miss face has no range either).
    let cfg = blue(
        "[scenarios.s]\nkind = \"attack\"\nhero = \"h\"\nweapon = \"sling\"\ntarget = \"dummy\"\ndistance = 3\n",
    );
    let c = cfg.compile("s").unwrap();
    close(exact_of(&c, "result", "hit"), 3.0 / 6.0);
    close(exact_of(&c, "result", "miss"), 1.0 / 6.0);
    close(exact_of(&c, "result", "out of range"), 2.0 / 6.0);
    // Distance 5 needs the R4 face and a power die's +1 range: 1/6 * 3/6.
    let cfg = blue(
        "[scenarios.s]\nkind = \"attack\"\nhero = \"h\"\nweapon = \"sling\"\ntarget = \"dummy\"\ndistance = 5\npower_dice = 1\n",
    );
    close(
        exact_of(&cfg.compile("s").unwrap(), "result", "hit"),
        1.0 / 12.0,
    );
}

#[test]
fn surges_and_the_optimal_aim_by_hand() {
    // One surge buys +1 damage: faces deal 0, 2, 2, 2 (R3 1H S: 1 + 1), 2, 1 -> 9/6.
    let cfg = blue(
        "[scenarios.s]\nkind = \"attack\"\nhero = \"h\"\nweapon = \"spiked_fist\"\ntarget = \"dummy\"\n",
    );
    let c = cfg.compile("s").unwrap();
    let mean: f64 = exact_of(&c, "damage", "1") + 2.0 * exact_of(&c, "damage", "2");
    close(mean, 9.0 / 6.0);
    // The plain fist averages (0 + 2 + 2 + 1 + 1 + 0) / 6 = 1. The optimal Aim re-rolls
    // what shows less than that (X, and R4 S with no damage) and keeps the rest (a 1 ties,
    // and ties keep): (2 + 2 + 1 + 1) / 6 + 2/6 * 1 = 4/3.
    let cfg = blue(
        "[scenarios.s]\nkind = \"attack\"\nhero = \"h\"\nweapon = \"fist\"\ntarget = \"dummy\"\naim = \"optimal\"\n",
    );
    let c = cfg.compile("s").unwrap();
    let e = c.exact.as_ref().unwrap();
    let mean: f64 = e
        .iter()
        .enumerate()
        .skip(2)
        .map(|(s, p)| (s - 2) as f64 * p)
        .sum();
    close(mean, 4.0 / 3.0);
    // misses_only re-rolls the X alone: 1 + 1/6 * 1 = 7/6.
    let cfg = blue(
        "[scenarios.s]\nkind = \"attack\"\nhero = \"h\"\nweapon = \"fist\"\ntarget = \"dummy\"\naim = \"misses_only\"\n",
    );
    let e = cfg.compile("s").unwrap().exact.unwrap();
    let mean: f64 = e
        .iter()
        .enumerate()
        .skip(2)
        .map(|(s, p)| (s - 2) as f64 * p)
        .sum();
    close(mean, 7.0 / 6.0);
}

#[test]
fn aim_policies_are_ordered_for_every_shipped_weapon() {
    // optimal >= misses_only >= keep_all for the objective optimal maximises; the Dodge
    // the other way round; at several distances and power dice.
    for w in shipped().weapons {
        let distances: Vec<u8> = if w.melee { vec![1] } else { vec![1, 3, 5, 7] };
        for &d in &distances {
            for power in [0u8, 2] {
                for objective in [Objective::Damage, Objective::Kill] {
                    let mut a = attack(&w.id, power, "beastman", d);
                    a.objective = objective;
                    let score = |s: (f64, f64, f64, f64)| match objective {
                        Objective::Damage => s.2,
                        Objective::Kill => s.3,
                    };
                    let with = |aim: Option<Policy>, dodge: Option<Policy>| {
                        let mut b = a.clone();
                        b.aim = aim;
                        b.dodge = dodge;
                        score(summary(&b))
                    };
                    let none = with(None, None);
                    let keep = with(Some(Policy::KeepAll), None);
                    let misses = with(Some(Policy::MissesOnly), None);
                    let best = with(Some(Policy::Optimal), None);
                    let what = format!("{} d{d} p{power} {objective:?}", w.id);
                    assert!((keep - none).abs() < 1e-12, "{what}");
                    assert!(misses >= keep - 1e-12, "{what}: {misses} < {keep}");
                    assert!(best >= misses - 1e-12, "{what}: {best} < {misses}");
                    let dodge = with(None, Some(Policy::Optimal));
                    let dodge_rule = with(None, Some(Policy::MissesOnly));
                    assert!(dodge <= none + 1e-12, "{what}: dodge {dodge} > {none}");
                    assert!(
                        dodge <= dodge_rule + 1e-12,
                        "{what}: {dodge} > {dodge_rule}"
                    );
                }
            }
        }
    }
}

#[test]
fn aim_and_dodge_together_are_the_no_order_distribution() {
    for w in shipped().weapons {
        let d = if w.melee { 1 } else { 4 };
        let plain = attack(&w.id, 2, "ogre", d);
        let mut both = plain.clone();
        both.aim = Some(Policy::Optimal);
        both.dodge = Some(Policy::Optimal);
        assert_eq!(exact(&plain), exact(&both), "{}", w.id);
        both.aim = Some(Policy::MissesOnly);
        assert_eq!(exact(&plain), exact(&both), "{}", w.id);
    }
    let cfg = load("descent.toml");
    assert_eq!(
        cfg.compile("broadsword-vs-beastman").unwrap().exact,
        cfg.compile("broadsword-vs-beastman-aim-dodge")
            .unwrap()
            .exact
    );
}

#[test]
fn pierce_never_makes_damage_exceed_the_no_armour_case() {
    for w in shipped().weapons {
        let d = if w.melee { 1 } else { 3 };
        let mut bare = attack(&w.id, 2, "ogre", d);
        bare.target.armour = 0;
        bare.weapon.pierce = 0;
        let free = exact(&bare);
        for armour in [1u8, 2, 4] {
            for pierce in 0u8..=6 {
                let mut a = bare.clone();
                a.target.armour = armour;
                a.weapon.pierce = pierce;
                let e = exact(&a);
                // P(damage >= k) never above the unarmoured P(damage >= k).
                let tail = |v: &[f64], k: usize| v.iter().skip(2 + k).sum::<f64>();
                for k in 1..e.len().saturating_sub(2) {
                    assert!(
                        tail(&e, k) <= tail(&free, k) + 1e-12,
                        "{} armour {armour} pierce {pierce} k {k}",
                        w.id
                    );
                }
                if pierce >= armour {
                    // All armour pierced: exactly the unarmoured damage.
                    for k in 1..free.len() - 2 {
                        assert!((tail(&e, k) - tail(&free, k)).abs() < 1e-12, "{}", w.id);
                    }
                }
            }
        }
    }
}

#[test]
fn monte_carlo_plays_the_policy_die_by_die() {
    // The optimal Aim and Dodge sampled with the precomputed masks match the exact
    // distribution, including 3 weapon dice and 5 power dice (8 dice, the limit).
    let mut a = attack("longbow", 5, "ogre", 6);
    a.aim = Some(Policy::Optimal);
    let mut b = attack("broadsword", 3, "beastman", 1);
    b.dodge = Some(Policy::Optimal);
    b.objective = Objective::Kill;
    for (i, x) in [a, b].iter().enumerate() {
        let c = descent::compile("t", x);
        rollsim::pmf::check_pmf(c.exact.as_ref().unwrap(), 1e-9).unwrap();
        let h = simulate(&c, 1 << 20, 40 + i as u64, 2);
        let r = summarize(&c, &h, 1, "test.toml", "descent");
        assert!(r.max_abs_z().unwrap() < 4.5, "{i}: {:?}", r.max_abs_z());
        for m in &r.metrics {
            if let Some(z) = m.mean_z {
                assert!(z.abs() < 4.5, "{i} {} mean z {z}", m.name);
            }
        }
    }
}

#[test]
fn an_overlord_turn_adds_up_the_wounds_of_its_attacks() {
    // One die with faces miss, 1 and 2 damage (range 1): each attack deals 0, 1 or 2
    // with 1/3 each. Two attacks on a target with 3 wounds and no armour: it dies with
    // P(1+2, 2+1, 2+2) = 3/9, and takes 2 wounds on average.
    let text = r#"
system = "descent"
[rules]
power_die = "p"
[dice.d]
faces = ["X", "R1 1H", "R1 2H"]
[dice.p]
faces = ["X", "R1 1H", "R1 2H"]
[weapons.claw]
dice = ["d"]
type = "melee"
[heroes.none]
power_dice = 0
[monsters.hero]
name = "Hero"
armour = 0
wounds = 3
[scenarios.t]
kind = "turn"
hero = "none"
weapon = "claw"
attacks = 2
target = "hero"
[scenarios.t-dodge]
kind = "turn"
hero = "none"
weapon = "claw"
attacks = 2
target = "hero"
dodge = "misses_only"
"#;
    let cfg = load_str(text, "turn.toml", &[]).unwrap();
    let c = cfg.compile("t").unwrap();
    // Dies with 3/9 (above); 4 damage is 2 + 2, 1/3 * 1/3.
    close(exact_of(&c, "fate", "dies"), 1.0 / 3.0);
    close(exact_of(&c, "damage", "4"), 1.0 / 9.0);
    assert_eq!(c.headline.label, "P(Hero dies)");
    // The Dodge lasts for both attacks and only ever lowers the chance to die.
    let d = cfg.compile("t-dodge").unwrap();
    assert!(exact_of(&d, "fate", "dies") < 1.0 / 3.0);
    // The shipped turns: Monte Carlo within 4.5 standard errors, and the Dodge helps.
    let shipped = load("descent.toml");
    let (plain, dodge) = (
        shipped.compile("beastmen-turn").unwrap(),
        shipped.compile("beastmen-turn-dodge").unwrap(),
    );
    assert!(exact_of(&dodge, "fate", "dies") < exact_of(&plain, "fate", "dies"));
    for c in [&plain, &dodge] {
        crate::util::assert_agrees(c, &["fate"], 300_000, 3);
    }
}

#[test]
fn fatigue_splits_by_hand() {
    // The weapon's die misses half the time and else deals 1; every power die adds 1.
    // Two attacks with k and 2 - k power dice at 3 wounds, no armour:
    //   0+2: 0 or 1, then 0 or 3: dies when the second hits, 1/2;
    //   1+1: 0 or 2 each: dies when both hit, 1/4;
    //   2+0: 1/2 as 0+2. Expected wounds 2 in every split.
    let text = r#"
system = "descent"
[rules]
power_die = "p"
[dice.d]
faces = ["X", "R1 1H"]
[dice.p]
faces = ["1H", "1H"]
[weapons.club]
dice = ["d"]
type = "melee"
[heroes.h]
power_dice = 0
[monsters.m]
name = "Troll"
armour = 0
wounds = 3
[scenarios.f]
kind = "fatigue"
hero = "h"
weapon = "club"
target = "m"
fatigue = 2
"#;
    let cfg = load_str(text, "fatigue.toml", &[]).unwrap();
    let names: Vec<String> = cfg.scenarios().iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["f@0+2", "f@1+1", "f@2+0"]);
    for (name, dies) in [("f@0+2", 0.5), ("f@1+1", 0.25), ("f@2+0", 0.5)] {
        let c = cfg.compile(name).unwrap();
        close(exact_of(&c, "fate", "dies"), dies);
        let e = c.exact.as_ref().unwrap();
        close(e.iter().enumerate().map(|(s, p)| s as f64 * p).sum(), 2.0);
        assert_eq!(c.headline.label, "P(Troll dies)");
        assert_eq!(c.group.as_ref().unwrap().name, "f");
    }
    // More than 5 power dice on one attack is impossible: 8 fatigue splits 3+5 .. 5+3.
    let cfg = load_str(&text.replace("fatigue = 2", "fatigue = 8"), "f.toml", &[]).unwrap();
    let names: Vec<String> = cfg.scenarios().iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, ["f@3+5", "f@4+4", "f@5+3"]);
    // The shipped split: Monte Carlo within 4.5 standard errors for every member, and
    // spending it all on one attack beats 2+2 against the ogre.
    let shipped = load("descent.toml");
    let even = shipped.compile("fighter-fatigue-split@2+2").unwrap();
    let all = shipped.compile("fighter-fatigue-split@4+0").unwrap();
    assert!(exact_of(&all, "fate", "dies") > exact_of(&even, "fate", "dies") + 0.03);
    for s in 0..=4 {
        let c = shipped
            .compile(&format!("fighter-fatigue-split@{s}+{}", 4 - s))
            .unwrap();
        crate::util::assert_agrees(&c, &["fate", "damage"], 200_000, 7 + s);
    }
}

#[test]
fn defence_dice_and_the_iron_shield_by_hand() {
    // The attack hits with h = 1/3 for 2 damage (armour 0). The defence die shows 0, 1
    // or 2 blocks: damage 2 with h/3, 1 with h/3. The Iron Shield re-rolls the blank
    // (below the average of 1): blocks 0 with 1/9, 1 and 2 with 4/9 each, so damage 2
    // with h/9 and 1 with 4h/9. An Aim for the kill re-rolls a miss: 1 - (2/3)^2 to hit.
    let text = r#"
system = "descent"
[rules]
power_die = "p"
[dice.d]
faces = ["X", "R1 2H", "X"]
[dice.p]
faces = ["R1 2H", "X", "X"]
[dice.g]
faces = ["blank", "B", "2B"]
[weapons.w]
dice = ["d"]
type = "melee"
[heroes.h]
power_dice = 0
[monsters.plain]
armour = 0
wounds = 2
defence = ["g"]
[monsters.shield]
armour = 0
wounds = 2
defence = ["g"]
iron_shield = true
[scenarios.plain]
kind = "attack"
hero = "h"
weapon = "w"
target = "plain"
[scenarios.shield]
kind = "attack"
hero = "h"
weapon = "w"
target = "shield"
[scenarios.shield-aimed]
kind = "attack"
hero = "h"
weapon = "w"
target = "shield"
aim = "optimal"
objective = "kill"
"#;
    let cfg = load_str(text, "defence.toml", &[]).unwrap();
    let hit = 1.0 / 3.0;
    let c = cfg.compile("plain").unwrap();
    close(exact_of(&c, "damage", "2"), hit / 3.0);
    close(exact_of(&c, "damage", "1"), hit / 3.0);
    let s = cfg.compile("shield").unwrap();
    close(exact_of(&s, "damage", "2"), hit / 9.0);
    close(exact_of(&s, "damage", "1"), hit * 4.0 / 9.0);
    close(exact_of(&s, "kill", "killed"), hit / 9.0);
    let a = cfg.compile("shield-aimed").unwrap();
    close(exact_of(&a, "kill", "killed"), (1.0 - 4.0 / 9.0) / 9.0);
    for c in [&c, &s, &a] {
        crate::util::assert_agrees(c, &["damage"], 300_000, 21);
    }
    // The shipped turns: each defence die lowers P(dies), the Iron Shield more, and
    // Monte Carlo agrees.
    let shipped = load("descent.toml");
    let p = |n: &str| exact_of(&shipped.compile(n).unwrap(), "fate", "dies");
    let (none, grey, iron) = (
        p("beastmen-turn"),
        p("beastmen-turn-defence-die"),
        p("beastmen-turn-iron-shield"),
    );
    assert!(
        none > grey && grey > iron && iron > 0.0,
        "{none} {grey} {iron}"
    );
    for n in ["beastmen-turn-defence-die", "beastmen-turn-iron-shield"] {
        crate::util::assert_agrees(
            &shipped.compile(n).unwrap(),
            &["fate", "damage"],
            300_000,
            22,
        );
    }
}

#[test]
fn a_guard_order_kills_the_first_attacker_before_it_attacks_by_hand() {
    // Each attack deals 0, 1 or 2 with 1/3 each; two attacks at a 3-wound hero kill it
    // with 1/3 (see the overlord turn). The hero on Guard first attacks the first
    // attacker (1 wound) with the same die: any hit, 2/3, kills it, and one attack
    // never deals 3. P(dies) = 1/3 * 1/3 = 1/9.
    let text = r#"
system = "descent"
[rules]
power_die = "p"
[dice.d]
faces = ["X", "R1 1H", "R1 2H"]
[dice.p]
faces = ["X", "R1 1H", "R1 2H"]
[weapons.claw]
dice = ["d"]
type = "melee"
[heroes.none]
power_dice = 0
[monsters.hero]
name = "Hero"
armour = 0
wounds = 3
[monsters.imp]
name = "Imp"
armour = 0
wounds = 1
[scenarios.t]
kind = "turn"
hero = "none"
weapon = "claw"
attacks = 2
target = "hero"
guard_hero = "none"
guard_weapon = "claw"
guard_target = "imp"
"#;
    let cfg = load_str(text, "guard.toml", &[]).unwrap();
    let c = cfg.compile("t").unwrap();
    close(exact_of(&c, "fate", "dies"), 1.0 / 9.0);
    close(exact_of(&c, "guard", "attacker killed"), 2.0 / 3.0);
    // Damage: the one attack left (2/3) or both (1/3): E = 2/3 * 1 + 1/3 * 2.
    close(
        (0..5)
            .map(|d| d as f64 * exact_of(&c, "damage", &d.to_string()))
            .sum::<f64>(),
        4.0 / 3.0,
    );
    crate::util::assert_agrees(&c, &["fate", "damage", "guard"], 300_000, 41);
    // The shipped Guard: lower P(dies) than the plain turn, and Monte Carlo agrees.
    let shipped = load("descent.toml");
    let guard = shipped.compile("beastmen-turn-guard").unwrap();
    let plain = shipped.compile("beastmen-turn").unwrap();
    assert!(exact_of(&guard, "fate", "dies") < exact_of(&plain, "fate", "dies"));
    crate::util::assert_agrees(&guard, &["fate", "guard"], 300_000, 42);
}

#[test]
fn surge_effects_by_hand() {
    // The stunning mace rolls red and yellow with the fighter's 2 power dice. Stun costs
    // 2 surges and is bought first. A surge shows on 2 of 6 faces of the red die (and
    // on neither miss face), 2 of 6 of the yellow and 2 of 6 of each power die. Given
    // the red die is not the miss (5/6), its surge is 2/5: P(0 surges) = 3/5 (2/3)^3 =
    // 24/135, P(1) = 2/5 (2/3)^3 + 3/5 * 3 (1/3)(2/3)^2 = 52/135, so
    // P(Stun) = 5/6 * 59/135.
    let cfg = load("descent.toml");
    let c = cfg.compile("mace-stuns-ogre").unwrap();
    close(exact_of(&c, "stun", "1"), 5.0 / 6.0 * 59.0 / 135.0);
    crate::util::assert_agrees(&c, &["stun", "bleed", "damage"], 400_000, 51);
    // Damage first: the repeatable +1 damage takes every surge, so no effect is bought,
    // and the expected damage is higher.
    let last = crate::util::load_with("descent.toml", &["rules.surge_effects=last"])
        .compile("mace-stuns-ogre")
        .unwrap();
    close(exact_of(&last, "stun", "0"), 1.0);
    close(exact_of(&last, "bleed", "0"), 1.0);
    let mean = |c: &rollsim::model::Compiled| {
        (0..12)
            .map(|d| {
                let label = d.to_string();
                let has = c.metrics[1].labels.contains(&label);
                if has {
                    d as f64 * exact_of(c, "damage", &label)
                } else {
                    0.0
                }
            })
            .sum::<f64>()
    };
    assert!(mean(&last) > mean(&c) + 0.2, "{} {}", mean(&last), mean(&c));
    crate::util::assert_agrees(&last, &["damage"], 200_000, 52);
}
