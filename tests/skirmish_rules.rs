//! `skirmish` (docs/games/skirmish.md): each modifier by hand, the simultaneity of an action
//! and its reaction, morale, and the decision tables.

use crate::util::{close, exact_of, load, simulate};
use rollsim::config::load_str;
use rollsim::report::summarize;
use rollsim::systems::skirmish::config::SkirmishConfig;
use rollsim::systems::skirmish::rules::{
    charge_attacks, shoot_attacks, ChargeReaction, Rules, ShotReaction, Stats, Unit,
};

fn unit(id: &str) -> Unit {
    let cfg = load("skirmish.toml");
    let s = cfg
        .typed::<SkirmishConfig>()
        .expect("skirmish.toml is a skirmish config");
    s.units.iter().find(|u| u.id == id).unwrap().clone()
}

fn mean(c: &rollsim::model::Compiled, metric: &str) -> f64 {
    let m = c.metrics.iter().find(|m| m.name == metric).unwrap();
    m.project_f64(c.exact.as_ref().unwrap())
        .iter()
        .enumerate()
        .map(|(v, p)| v as f64 * p)
        .sum()
}

#[test]
fn aim_adds_two_to_hit() {
    // Archers (shoot +1) at spearmen (target value 7) on a d10: 6+ hits (5/10); aimed 4+
    // (7/10). Spearmen save on 8+ (3/10), so a die kills with 0.5 * 0.7 or 0.7 * 0.7.
    let r = Rules::default();
    let (a, s) = (unit("archers"), unit("spearmen"));
    let (plain, _) = shoot_attacks(&a, &s, false, ShotReaction::None);
    let (aimed, _) = shoot_attacks(&a, &s, true, ShotReaction::None);
    close(r.p_hit::<f64>(plain.modifier, plain.target), 0.5);
    close(r.p_hit::<f64>(aimed.modifier, aimed.target), 0.7);
    let cfg = load("skirmish.toml");
    close(
        mean(
            &cfg.compile("archers-volley").unwrap(),
            "casualties_on_target",
        ),
        3.5,
    );
    close(
        mean(
            &cfg.compile("archers-aimed-volley").unwrap(),
            "casualties_on_target",
        ),
        4.9,
    );
}

#[test]
fn run_takes_two_off_and_loses_cover_go_to_ground_adds_two() {
    // Skirmishers: target value 8, cover 1. Standing 9, running 8 - 2 = 6 (no cover),
    // gone to ground 9 + 2 = 11.
    let (a, s) = (unit("archers"), unit("skirmishers"));
    let tv = |x| shoot_attacks(&a, &s, false, x).0.target;
    assert_eq!(tv(ShotReaction::None), 9);
    assert_eq!(tv(ShotReaction::ShootBack), 9);
    assert_eq!(tv(ShotReaction::Run), 6);
    assert_eq!(tv(ShotReaction::GoToGround), 11);
    // Gone to ground, archers (+1) need a 10: 1/10, and a save of 10 fails 9/10 of the
    // time: 10 dice kill Binomial(10, 0.09), at most the 6 skirmishers there are.
    let cfg = load("skirmish.toml");
    let b = rollsim::pmf::binomial(10, 0.09).0;
    let capped: f64 = b.iter().enumerate().map(|(k, p)| k.min(6) as f64 * p).sum();
    assert!((capped - 0.9).abs() < 1e-5);
    close(
        mean(
            &cfg.compile("skirmishers-shot-at@go_to_ground").unwrap(),
            "casualties_on_target",
        ),
        capped,
    );
}

#[test]
fn shield_wall_rerolls_failed_saves_and_halves_attack_dice_rounding_down() {
    let r = Rules::default();
    let (cav, spear) = (unit("cavalry"), unit("spearmen"));
    let (att, back) = charge_attacks(&cav, &spear, ChargeReaction::ShieldWall, true, &r);
    assert!(att.reroll_saves);
    assert_eq!(back.unwrap().dice, 5); // 10 halved
                                       // Cavalry: 5 models x 2 dice, fight 1 + charge 2 against 7: 4+ hits (7/10); the
                                       // spearmen's save (8+) fails 7/10, twice with the re-roll: 0.7 * 0.49 per die.
    close(att.p_casualty::<f64>(&r), 0.7 * 0.49);
    let cfg = load("skirmish.toml");
    close(
        mean(
            &cfg.compile("spearmen-charged-by-cavalry@shield_wall")
                .unwrap(),
            "casualties_on_target",
        ),
        10.0 * 0.343,
    );
    // 7 attack dice halve to 3.
    let seven = Stats {
        models: 7,
        ..spear.stats
    };
    let (_, back) = charge_attacks(&cav, &seven, ChargeReaction::ShieldWall, true, &r);
    assert_eq!(back.unwrap().dice, 3);
    // Defend adds the defend bonus (2) when the charger came from over half a move.
    let (_, d) = charge_attacks(&cav, &spear, ChargeReaction::Defend, true, &r);
    let (_, close_in) = charge_attacks(&cav, &spear, ChargeReaction::Defend, false, &r);
    assert_eq!((d.unwrap().modifier, close_in.unwrap().modifier), (3, 1));
}

#[test]
fn a_unit_wiped_out_by_the_reaction_still_deals_its_full_attack() {
    // A lone skirmisher shoots the archers, who shoot back: the skirmisher is very likely
    // killed, but its shot is rolled in full all the same. Its casualties do not depend
    // on its own fate: P(archers lose k | skirmisher dead) = P(archers lose k).
    let cfg = load_str(
        &std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap(),
        "test.toml",
        &[
            "units.skirmishers.models=1".into(),
            "units.skirmishers.attack_dice=3".into(),
        ],
    )
    .unwrap();
    let c = cfg.compile("archers-shot-at@shoot_back").unwrap();
    let e = c.exact.as_ref().unwrap();
    let on_target = &c.metrics[0];
    let on_shooter = &c.metrics[1];
    let mut joint = [[0.0f64; 2]; 11];
    for (s, &p) in e.iter().enumerate() {
        joint[on_target.map[s] as usize][on_shooter.map[s] as usize] += p;
    }
    let dead: f64 = joint.iter().map(|j| j[1]).sum();
    assert!(dead > 0.5, "the reaction kills the lone shooter: {dead}");
    // The skirmisher's 3 dice at target value 7 (+0): 7+ hits, archers save on 9+.
    let p: f64 = 0.4 * 0.8;
    let binom = |k: i32| {
        let c = [1.0, 3.0, 3.0, 1.0][k as usize];
        c * p.powi(k) * (1.0 - p).powi(3 - k)
    };
    for k in 0..=3 {
        close(joint[k as usize][1] / dead, binom(k));
        close(joint[k as usize][0] / (1.0 - dead), binom(k));
    }
    // Monte Carlo agrees.
    let h = simulate(&c, 1 << 19, 5, 2);
    let r = summarize(&c, &h, 5, "test.toml", "skirmish");
    assert!(r.max_abs_z().unwrap() < 4.5);
}

#[test]
fn morale_tests_by_hand() {
    // Archers, morale 7, two tokens: pass on 7 - 2 = 5 or less of a d10, 5/10 = 50%.
    // Warband rally, morale 6: 6 or less, 6/10 = 60%.
    let cfg = load("skirmish.toml");
    close(
        exact_of(
            &cfg.compile("archers-flee-test").unwrap(),
            "result",
            "holds",
        ),
        0.5,
    );
    close(
        exact_of(&cfg.compile("warband-rally").unwrap(), "result", "rallies"),
        0.6,
    );
    // A charge met with no reaction: the target breaks and flees, no dice.
    let c = cfg.compile("cavalry-charges-archers").unwrap();
    close(exact_of(&c, "target_morale", "broken"), 1.0);
    // After losing 2 of 10 models, the archers pass on 7 - 2 = 5 or less.
    let r = Rules::default();
    close(1.0 - r.p_morale::<f64>(7, 2), 0.5);
}

#[test]
fn decision_tables_cover_every_reaction() {
    let cfg = load("skirmish.toml");
    let names = cfg.scenario_names();
    for r in ["none", "shoot_back", "go_to_ground", "run"] {
        assert!(names.contains(&format!("archers-shot-at@{r}")), "{r}");
    }
    for r in ["counter_charge", "defend", "shield_wall"] {
        assert!(
            names.contains(&format!("spearmen-charged-by-cavalry@{r}")),
            "{r}"
        );
    }
    // Going to ground saves the most models; shooting back costs the shooter models.
    let m = |n: &str, metric: &str| mean(&cfg.compile(n).unwrap(), metric);
    assert!(
        m("archers-shot-at@go_to_ground", "casualties_on_target")
            < m("archers-shot-at@none", "casualties_on_target")
    );
    assert!(m("archers-shot-at@shoot_back", "casualties_on_shooter") > 0.0);
    close(m("archers-shot-at@none", "casualties_on_shooter"), 0.0);
}

#[test]
fn firefight_rounds_agree_and_sum_to_one() {
    let cfg = load("skirmish.toml");
    let c = cfg.compile("archers-vs-skirmishers-firefight").unwrap();
    rollsim::pmf::check_pmf(c.exact.as_ref().unwrap(), 1e-9).unwrap();
    // One round with nobody reacting and no morale: each side's losses are exactly one
    // volley's, a's first (b shoots with the survivors).
    let one = load_str(
        &std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap(),
        "test.toml",
        &[
            "scenarios.archers-vs-skirmishers-firefight.rounds=1".into(),
            "scenarios.archers-vs-skirmishers-firefight.a_reaction=none".into(),
            "scenarios.archers-vs-skirmishers-firefight.b_reaction=none".into(),
            "rules.break_test=never".into(),
        ],
    )
    .unwrap();
    let c1 = one.compile("archers-vs-skirmishers-firefight").unwrap();
    // The archers' volley: 10 dice, 8+ to hit (3/10), 10 to save: kills 0.27 each, at
    // most the 6 skirmishers. P(no skirmisher lost) = 0.73^10.
    close(exact_of(&c1, "b_models_left", "6"), 0.73f64.powi(10));
    let h = simulate(&c, 1 << 19, 9, 2);
    let r = summarize(&c, &h, 9, "test.toml", "skirmish");
    assert!(r.max_abs_z().unwrap() < 4.5, "{:?}", r.max_abs_z());
}

/// Two identical units (archers' stats) of `models` each, trading fire for one round.
fn twins(models: u32, morale: u32) -> rollsim::config::AnalysisConfig {
    let text = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap();
    let head = text.split("\n[units.").next().unwrap();
    let unit = |id: &str| {
        format!(
            "[units.{id}]\nname = \"{id}\"\nmodels = {models}\nshoot = 1\ntarget_value = 7\ndefence = 9\nmorale = {morale}\n\n"
        )
    };
    let cfg = format!(
        "{head}\n{}{}[scenarios.duel]\nkind = \"firefight\"\na = \"red\"\nb = \"blue\"\na_reaction = \"shoot_back\"\nb_reaction = \"shoot_back\"\nrounds = 1\n",
        unit("red"),
        unit("blue")
    );
    load_str(&cfg, "twins.toml", &[]).unwrap()
}

#[test]
fn a_symmetric_firefight_is_even_and_both_can_be_out() {
    // One model each that never breaks (morale 20 on a d10): a shot kills with
    // p = P(hit on 6+) x P(save on 9+ fails) = 0.5 x 0.8 = 0.4, and return fire is
    // simultaneous. Each of the round's two exchanges ends the fight with both dead
    // (p^2), one side dead (p(1-p) each) or goes on ((1-p)^2), so
    // P(red wins) = P(blue wins) = p(1-p)(1 + (1-p)^2) and P(both out) = p^2(1 + (1-p)^2).
    let c = twins(1, 20).compile("duel").unwrap();
    let p: f64 = 0.4;
    let go_on = (1.0 - p) * (1.0 - p);
    close(
        exact_of(&c, "outcome", "red wins"),
        p * (1.0 - p) * (1.0 + go_on),
    );
    close(
        exact_of(&c, "outcome", "blue wins"),
        p * (1.0 - p) * (1.0 + go_on),
    );
    close(exact_of(&c, "outcome", "both out"), p * p * (1.0 + go_on));
    close(exact_of(&c, "outcome", "neither"), go_on * go_on);
    // Five models with morale: both sides can break in the same exchange. Still even,
    // and "both out" is its own outcome, not a win for the side that shot.
    let c = twins(5, 7).compile("duel").unwrap();
    let (red, blue, both) = (
        exact_of(&c, "outcome", "red wins"),
        exact_of(&c, "outcome", "blue wins"),
        exact_of(&c, "outcome", "both out"),
    );
    assert!((red - blue).abs() < 1e-12, "{red} {blue}");
    assert!(both > 0.05, "{both}");
    // Monte Carlo plays it literally: within 4.5 standard errors of each exact value.
    crate::util::assert_agrees(&c, &["outcome"], 400_000, 9);
}

#[test]
fn decision_tables_show_wiped_out_and_broken_apart() {
    // One archer shot at by ten: it is often wiped out, which is not holding.
    let text = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap();
    let head = text.split("\n[scenarios.").next().unwrap();
    let cfg = format!(
        "{head}\n[units.lone]\nname = \"Lone archer\"\nmodels = 1\nshoot = 1\ntarget_value = 7\ndefence = 9\nmorale = 7\n\n[scenarios.lone-shot-at]\nkind = \"shoot_decision\"\nshooter = \"archers\"\ntarget = \"lone\"\n"
    );
    let cfg = load_str(&cfg, "lone.toml", &[]).unwrap();
    let c = cfg.compile("lone-shot-at@none").unwrap();
    let wiped = exact_of(&c, "target_morale", "wiped out");
    let holds = exact_of(&c, "target_morale", "holds");
    let broken = exact_of(&c, "target_morale", "broken");
    // Wiped out exactly when the one model is a casualty.
    close(wiped, 1.0 - exact_of(&c, "casualties_on_target", "0"));
    close(holds + broken + wiped, 1.0);
    assert!(wiped > 0.5 && holds < 0.5, "{wiped} {holds}");
    // The decision table has both rows for each choice.
    let names = cfg.scenario_names();
    let results: Vec<_> = names
        .iter()
        .map(|n| {
            let c = cfg.compile(n).unwrap();
            let h = simulate(&c, 20_000, 1, 1);
            summarize(&c, &h, 1, "t", "skirmish")
        })
        .collect();
    let rows = rollsim::report::decision_rows(&results);
    for choice in ["none", "go to ground"] {
        for q in ["P(target_morale = broken)", "P(target_morale = wiped out)"] {
            assert!(
                rows.iter().any(|r| r.choice == choice && r.quantity == q),
                "{choice}: {q}"
            );
        }
    }
}

#[test]
fn combat_goes_on_round_after_round() {
    // Two lone fighters (fight 0 against target value 7 on a d10: 4/10; save 9+: 2/10, so
    // a blow kills with p = 0.32), no charge bonuses, morale that never breaks. Each round
    // both strike at once: the charger wins in round t with ((1-p)^2)^(t-1) p (1-p), both
    // fall together with ((1-p)^2)^(t-1) p^2, and after 3 rounds both still stand with
    // (1-p)^6.
    let text = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap();
    let head = text.split("\n[units.").next().unwrap();
    let unit = |id: &str| {
        format!("[units.{id}]\nname = \"{id}\"\nmodels = 1\nfight = 0\ntarget_value = 7\ndefence = 9\nmorale = 20\n\n")
    };
    let cfg = format!(
        "{head}\n{}{}[scenarios.c]\nkind = \"combat\"\ncharger = \"red\"\ntarget = \"blue\"\nreaction = \"defend\"\nover_half = false\nrounds = 3\n",
        unit("red"),
        unit("blue")
    );
    let c = load_str(&cfg, "combat.toml", &[])
        .unwrap()
        .compile("c")
        .unwrap();
    let p: f64 = 0.32;
    let go_on = (1.0 - p) * (1.0 - p);
    let by3 = 1.0 + go_on + go_on * go_on;
    close(exact_of(&c, "outcome", "red wins"), p * (1.0 - p) * by3);
    close(exact_of(&c, "outcome", "blue wins"), p * (1.0 - p) * by3);
    close(exact_of(&c, "outcome", "both out"), p * p * by3);
    close(exact_of(&c, "outcome", "still fighting"), go_on.powi(3));
    close(exact_of(&c, "rounds", "2"), go_on * (1.0 - go_on));
    close(
        exact_of(&c, "charger_wins_at", "3"),
        go_on * go_on * p * (1.0 - p),
    );
    // The shipped combat: Monte Carlo within 4.5 standard errors of exact.
    let c = load("skirmish.toml")
        .compile("warband-charges-spearmen-combat")
        .unwrap();
    crate::util::assert_agrees(&c, &["outcome", "rounds"], 200_000, 5);
}

#[test]
fn a_turn_of_actions_follows_the_ready_and_aim_markers() {
    // Ten shooters (shoot +1) at a target of 100 models (target value 7, saves on 8+):
    // a plain shot kills with 5/10 x 7/10 = 0.35 a die, an aimed one with 7/10 x 7/10 =
    // 0.49. Make ready, aim, shoot: 10 x 0.49 = 4.9 expected casualties. Make ready,
    // shoot, shoot: 2 x 10 x 0.35 = 7. If the target shoots back, the first volley's
    // return fire takes the ready marker and the second shot is lost: 3.5.
    let text = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap();
    let head = text.split("\n[units.").next().unwrap();
    let scen = |name: &str, plan: &str, reaction: &str| {
        format!("[scenarios.{name}]\nkind = \"volley\"\nshooter = \"s\"\ntarget = \"t\"\nplan = {plan}\nreaction = \"{reaction}\"\n\n")
    };
    let cfg =
        format!(
        "{head}\n[units.s]\nmodels = 10\nshoot = 1\ntarget_value = 7\ndefence = 8\nmorale = 7\n\n\
         [units.t]\nmodels = 100\nshoot = 1\ntarget_value = 7\ndefence = 8\nmorale = 7\n\n{}{}{}",
        scen("aim", "[\"make_ready\", \"aim\", \"shoot\"]", "none"),
        scen("twice", "[\"make_ready\", \"shoot\", \"shoot\"]", "none"),
        scen("back", "[\"make_ready\", \"shoot\", \"shoot\"]", "shoot_back"),
    );
    let cfg = load_str(&cfg, "volley.toml", &[]).unwrap();
    for (name, expected) in [("aim", 4.9), ("twice", 7.0), ("back", 3.5)] {
        let c = cfg.compile(name).unwrap();
        assert!(
            (mean(&c, "casualties_on_target") - expected).abs() < 1e-9,
            "{name}"
        );
    }
    assert!(cfg
        .compile("back")
        .unwrap()
        .description
        .contains("no ready marker for the shot at step 3"));
    // Monte Carlo plays the markers out the same way.
    crate::util::assert_agrees(
        &cfg.compile("back").unwrap(),
        &["casualties_on_target"],
        200_000,
        6,
    );
    // A shot or an aim without a ready marker is refused at load.
    for (plan, why) in [
        ("[\"shoot\"]", "the shot at step 1 has no ready marker"),
        (
            "[\"aim\", \"shoot\"]",
            "the aim at step 1 has no ready marker",
        ),
        ("[\"make_ready\", \"sholt\"]", "did you mean `shoot`"),
    ] {
        let bad = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap()
            + &format!("\n[scenarios.bad]\nkind = \"volley\"\nshooter = \"archers\"\ntarget = \"spearmen\"\nplan = {plan}\n");
        let e = load_str(&bad, "bad.toml", &[]).unwrap_err().to_string();
        assert!(e.contains(why), "{plan}: {e}");
    }
}

/// Two units of `models` as in [`twins`], in a firefight with `extra` keys (one round
/// unless they say).
fn twins_with(models: u32, morale: u32, extra: &str) -> rollsim::model::Compiled {
    let text = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap();
    let head = text.split("\n[units.").next().unwrap();
    let unit = |id: &str| {
        format!(
            "[units.{id}]\nname = \"{id}\"\nmodels = {models}\nshoot = 1\ntarget_value = 7\ndefence = 9\nmorale = {morale}\n\n"
        )
    };
    let cfg = format!(
        "{head}\n{}{}[scenarios.duel]\nkind = \"firefight\"\na = \"red\"\nb = \"blue\"\n{}{extra}\n",
        unit("red"),
        unit("blue"),
        if extra.contains("rounds") { "" } else { "rounds = 1\n" }
    );
    load_str(&cfg, "twins.toml", &[])
        .unwrap()
        .compile("duel")
        .unwrap()
}

#[test]
fn fatigue_tokens_and_regroup_in_a_firefight_by_hand() {
    // A die kills with p = 0.4 (see the symmetric firefight). One model each, both
    // shooting back, morale that never breaks. With fatigue, blue's return fire is its
    // action for the round: one simultaneous exchange, not two.
    let p: f64 = 0.4;
    let c = twins_with(
        1,
        20,
        "a_reaction = \"shoot_back\"\nb_reaction = \"shoot_back\"\nfatigue = true",
    );
    close(exact_of(&c, "outcome", "red wins"), p * (1.0 - p));
    close(exact_of(&c, "outcome", "blue wins"), p * (1.0 - p));
    close(exact_of(&c, "outcome", "both out"), p * p);
    close(exact_of(&c, "outcome", "neither"), (1.0 - p) * (1.0 - p));
    crate::util::assert_agrees(&c, &["outcome"], 300_000, 31);
    // Two models each, morale 5 on a d10, no reactions. Red's 2 dice kill 0, 1, 2 with
    // 0.36, 0.48, 0.16. Blue holds 2 tokens: one casualty makes 3, and it holds only on
    // 2 or less (breaks with 0.8), so red wins with 0.16 + 0.48 * 0.8 = 0.544 before blue
    // shoots. Blue then shoots with what is left: from 1 model (0.096) a kill (0.4)
    // breaks red (1 token: holds on 4 or less) with 0.6; from 2 models (0.36) it wipes
    // red with 0.16 or breaks it with 0.48 * 0.6: blue wins with 0.18432.
    let c = twins_with(2, 5, "morale_tokens = true\nb_tokens = 2");
    // Red wins 0.16 + 0.48 * 0.8 = 0.544; blue 0.096 * 0.4 * 0.6 + 0.36 * (0.16 + 0.48
    // * 0.6) = 0.02304 + 0.16128 = 0.18432.
    close(exact_of(&c, "outcome", "red wins"), 0.16 + 0.48 * 0.8);
    close(
        exact_of(&c, "outcome", "blue wins"),
        0.096 * 0.4 * 0.6 + 0.36 * (0.16 + 0.48 * 0.6),
    );
    crate::util::assert_agrees(&c, &["outcome", "b_tokens"], 300_000, 32);
    // Counting only the exchange's casualties, one casualty breaks blue with 0.6.
    let c = twins_with(2, 5, "");
    close(exact_of(&c, "outcome", "red wins"), 0.16 + 0.48 * 0.6);
    // Regroup at 1 token: blue spends its action on a token instead of shooting, so it
    // cannot win, and ends with 4 tokens (wiped: 2 + 2), 3 (broke after 1), 2 (1
    // casualty, held, regrouped) or 1 (no casualty, regrouped).
    let c = twins_with(2, 5, "morale_tokens = true\nb_tokens = 2\nb_regroup = 1");
    close(exact_of(&c, "outcome", "red wins"), 0.16 + 0.48 * 0.8);
    close(exact_of(&c, "outcome", "blue wins"), 0.0);
    close(
        mean(&c, "b_tokens"),
        0.16 * 4.0 + 0.384 * 3.0 + 0.096 * 2.0 + 0.36 * 1.0,
    );
    crate::util::assert_agrees(&c, &["outcome", "b_tokens"], 300_000, 33);
    // The shipped firefights with the economy: Monte Carlo agrees.
    let cfg = load("skirmish.toml");
    for n in [
        "archers-vs-skirmishers-fatigue",
        "archers-vs-skirmishers-regroup",
    ] {
        crate::util::assert_agrees(
            &cfg.compile(n).unwrap(),
            &["outcome", "b_tokens"],
            300_000,
            34,
        );
    }
}

#[test]
fn a_fatigued_unit_charged_flees() {
    // The rules: a unit charged while fatigued cannot react and flees, exactly as a
    // charge it does not answer (`reaction = "none"`).
    let text = std::fs::read_to_string(crate::util::shipped("skirmish.toml")).unwrap();
    let head = text.split("\n[scenarios.").next().unwrap();
    let cfg = load_str(
        &format!(
            "{head}\n[scenarios.tired]\nkind = \"combat\"\ncharger = \"cavalry\"\ntarget = \"spearmen\"\ntarget_fatigued = true\nrounds = 3\n\
             [scenarios.none]\nkind = \"combat\"\ncharger = \"cavalry\"\ntarget = \"spearmen\"\nreaction = \"none\"\nrounds = 3\n"
        ),
        "tired.toml",
        &[],
    )
    .unwrap();
    let (tired, none) = (cfg.compile("tired").unwrap(), cfg.compile("none").unwrap());
    assert_eq!(tired.exact, none.exact);
    // A unit that flees rolls no dice and leaves the field: the charger wins, always.
    close(exact_of(&tired, "outcome", "Cavalry wins"), 1.0);
    let err = load_str(
        &format!(
            "{head}\n[scenarios.tired]\nkind = \"charge\"\ncharger = \"cavalry\"\ntarget = \"spearmen\"\ntarget_fatigued = true\nreaction = \"defend\"\n"
        ),
        "tired.toml",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("a fatigued unit cannot react"), "{err}");
}

#[test]
fn ready_markers_in_a_firefight_by_hand() {
    // One model each, both shooting back, morale that never breaks, p = 0.4 a shot.
    // Round 1: red shoots and blue shoots back: both lose their ready markers; then
    // blue, unready, spends its action to Make Ready (red, unready, cannot shoot back).
    // Round 2: red Makes Ready and blue, ready, shoots at it (the marker is lost at
    // once); then blue shoots again and red cannot answer.
    let p: f64 = 0.4;
    let keys = "a_reaction = \"shoot_back\"\nb_reaction = \"shoot_back\"\nready_markers = true";
    let one = twins_with(1, 20, keys);
    close(exact_of(&one, "outcome", "red wins"), p * (1.0 - p));
    close(exact_of(&one, "outcome", "blue wins"), p * (1.0 - p));
    close(exact_of(&one, "outcome", "neither"), (1.0 - p) * (1.0 - p));
    let two = twins_with(1, 20, &format!("{keys}\nrounds = 2"));
    let go_on = (1.0 - p) * (1.0 - p);
    close(exact_of(&two, "outcome", "red wins"), p * (1.0 - p));
    close(
        exact_of(&two, "outcome", "blue wins"),
        p * (1.0 - p) + go_on * (p + (1.0 - p) * p),
    );
    close(exact_of(&two, "outcome", "both out"), p * p);
    crate::util::assert_agrees(&two, &["outcome"], 300_000, 61);
    // Starting unready, red's first action is Make Ready, under blue's return fire.
    let cold = twins_with(1, 20, &format!("{keys}\na_ready = false"));
    close(exact_of(&cold, "outcome", "blue wins"), p + (1.0 - p) * p);
    crate::util::assert_agrees(&cold, &["outcome"], 300_000, 62);
}

#[test]
fn hitting_is_a_threshold_on_the_roll() {
    // Attack::roll compares each die with Rules::hit_on: it must agree with Rules::hits
    // for every die, naturals, modifier and target.
    use rollsim::systems::skirmish::rules::Rules;
    for die in [6, 10, 20] {
        for (natural_hit, natural_miss) in [(0, 0), (0, 1), (10, 0), (6, 2), (3, 5)] {
            let rules = Rules {
                die,
                natural_hit,
                natural_miss,
                ..Rules::default()
            };
            for modifier in -4..=4 {
                for target in -2..=25 {
                    let on = rules.hit_on(modifier, target);
                    for roll in 1..=die {
                        assert_eq!(
                            rules.hits(roll, modifier, target),
                            roll >= on,
                            "d{die} nat {natural_hit}/{natural_miss} {modifier:+} vs {target}: {roll}"
                        );
                    }
                }
            }
        }
    }
}
