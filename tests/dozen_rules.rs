//! `dozen` (docs/games/dozen.md): every worked example of the rulebook, hand-worked exact
//! values, and the duel's Markov chain against closed forms.

use crate::util::{close, dozen_config, dozen_config_with, exact_of, load, simulate};
use rollsim::pmf::check_pmf;
use rollsim::report::summarize;
use rollsim::systems::dozen::config::DozenConfig;
use rollsim::systems::dozen::d12::{pack, successes};
use rollsim::systems::dozen::rules::melee::{face_to_face, hits, resolve};
use rollsim::systems::dozen::rules::{
    condition, fall_hp_lost, fall_keep, injured, terrain_outcome, Character, Difficulty, Mode,
    Rules,
};

fn character(id: &str) -> Character {
    let cfg = load("dozen.toml");
    let d = cfg
        .typed::<DozenConfig>()
        .expect("dozen.toml is a dozen config");
    d.characters.iter().find(|c| c.id == id).unwrap().clone()
}

#[test]
fn seed_fall_2_4_5_8_costs_the_thief_1_hp() {
    // DX 5, CO 3 falls 4 squares: 2, 4 and 5 are at most max(DX, CO) = 5; 8 is above.
    let thief = character("thief");
    assert_eq!((thief.dx, thief.co), (5, 3));
    let keep = fall_keep(&thief, &Rules::default());
    assert_eq!(keep, 5);
    assert_eq!(fall_hp_lost(&[2, 4, 5, 8], keep), 1);
    // One square: no damage whatever the die.
    assert_eq!(fall_hp_lost(&[12], keep), 0);
}

#[test]
fn seed_melee_5_and_1_against_5_is_one_attacker_hit() {
    // ST7 2d12 rolls 5 and 1; the defender rolls 5. The attacker wins the tie: its 5
    // stands, the defender's 5 and the attacker's 1 are cancelled.
    let a = pack(&[5, 1], 7);
    let d = pack(&[5], 7);
    assert_eq!(resolve(a, d, 2), (1, 1));
    // Dice above the target fail first: 5 and 8 at ST7 leave only the 5.
    assert_eq!(successes(pack(&[5, 8], 7)), 1);
    // The rulebook's second example: 3 against 4 and 5 is two hits on the 3.
    assert_eq!(resolve(pack(&[3], 7), pack(&[4, 5], 7), 1), (1 + 2, 2));
}

#[test]
fn seed_hard_terrain_mv3_dx4_moves_3_2_or_1() {
    let f = character("fighter");
    assert_eq!((f.mv, f.dx), (3, 4));
    let r = Rules::default();
    let go = |face| terrain_outcome(&f, Mode::Wade, Difficulty::Hard, face, &r).0;
    assert_eq!(go(4), 3); // success, min(4, MV 3)
    assert_eq!(go(2), 2); // success, the roll
    assert_eq!(go(5), 1); // failure
    assert_eq!(go(12), 1);
    // Very hard: DX - 1 = 3; roll 2 moves 2, failure does not move.
    let vh = |face| terrain_outcome(&f, Mode::Wade, Difficulty::VeryHard, face, &r).0;
    assert_eq!((vh(2), vh(4)), (2, 0));
    // Easy and normal failures move half MV rounded half up: MV 3 -> 2.
    assert_eq!(
        terrain_outcome(&f, Mode::Wade, Difficulty::Normal, 8, &r).0,
        2
    );
    assert_eq!(
        terrain_outcome(&f, Mode::Wade, Difficulty::Easy, 11, &r).0,
        2
    );
}

#[test]
fn seed_injured_at_2_of_5_hp_and_1_of_4() {
    assert!(injured(2, 5) && !injured(3, 5));
    assert!(injured(1, 4) && !injured(2, 4));
    // The condition the charts show: 5 HP losing 3 is injured, losing 5 a casualty.
    assert_eq!(condition(3, 5), 2);
    assert_eq!(condition(2, 5), 1);
    assert_eq!(condition(5, 5), 3);
    assert_eq!(condition(0, 5), 0);
    // The rulebook's characters: CO 3 + endurance 2 = 5 HP; the dwarf CO 4 alone = 4.
    assert_eq!(character("fighter").hp(), 5);
    assert_eq!(character("dwarf").hp(), 4);
    assert_eq!(character("dwarf").ac(), 4); // DX 3 + leather 1
    assert_eq!(character("fighter").melee_target(), 7); // ST 4 + sword 3
}

#[test]
fn seed_turn_undead_1_4_7_is_two_successes() {
    let k = character("temple_knight");
    assert_eq!((k.skill("turn_undead"), k.ch), (3, 4));
    assert_eq!(successes(pack(&[1, 4, 7], 4)), 2);
}

#[test]
fn seed_climbing_fall_at_dx4_on_9_not_8_and_never_at_target_9() {
    let r = Rules::default();
    let f = character("fighter"); // DX 4, hard climb: target 4
    let climb = |face| terrain_outcome(&f, Mode::Climb, Difficulty::Hard, face, &r);
    assert_eq!(climb(9), (0, true));
    assert_eq!(climb(8), (1, false)); // fails, moves 1, does not fall
    assert_eq!(climb(5), (1, false));
    // DX 3, easy climb: target 9; even a 12 (which always fails) is not above 18.
    let d = character("dwarf");
    assert_eq!(d.dx, 3);
    for face in 1..=12 {
        assert!(!terrain_outcome(&d, Mode::Climb, Difficulty::Easy, face, &r).1);
    }
    assert_eq!(
        terrain_outcome(&d, Mode::Climb, Difficulty::Easy, 12, &r),
        (1, false) // failure: half of MV 2
    );
}

#[test]
fn shipped_seed_scenarios_have_the_hand_worked_values() {
    let cfg = load("dozen.toml");
    // Thief falls 4: each die hurts with 7/12; P(exactly 1 HP) = 4 (7/12) (5/12)^3.
    let c = cfg.compile("thief-falls-4").unwrap();
    close(
        exact_of(&c, "hp_lost", "1"),
        4.0 * 7.0 / 12.0 * (5.0f64 / 12.0).powi(3),
    );
    // Fighter on the inn wall: falls on 9..12 (4/12), then 3d12 above 4 (8/12 each).
    let c = cfg.compile("fighter-climbs-inn-wall").unwrap();
    close(exact_of(&c, "fell", "yes"), 4.0 / 12.0);
    close(exact_of(&c, "squares", "3"), 2.0 / 12.0); // a 3 or a 4 moves the full MV 3
    close(exact_of(&c, "squares", "1"), 5.0 / 12.0); // a 1, or a failure of 5..8
    close(
        exact_of(&c, "hp_lost", "3"),
        4.0 / 12.0 * (8.0f64 / 12.0).powi(3),
    );
    // Dwarf on the rock slope cannot fall.
    let c = cfg.compile("dwarf-climbs-rock-slope").unwrap();
    close(exact_of(&c, "fell", "yes"), 0.0);
    // Turn Undead 3 at CH 4: P(2 successes) = 3 (4/12)^2 (8/12).
    let c = cfg.compile("knight-turns-undead").unwrap();
    close(exact_of(&c, "successes", "2"), 3.0 / 9.0 * 2.0 / 3.0);
    // Jump 3 at MV 3, DX 4: d12 <= 7.
    let c = cfg.compile("fighter-jumps-3").unwrap();
    close(exact_of(&c, "result", "made it"), 7.0 / 12.0);
}

#[test]
fn melee_exact_by_hand_one_die_each() {
    // Fighter-like 1d12 at 7 against 1d12 at 6 (natural 12 irrelevant): the attacker
    // hits if it succeeds and the defender fails (7 * 6) or both succeed and a >= d
    // (sum over d = 1..6 of (7 - d + 1) = 27): 69/144.
    let h = hits(1, 7, 1, 6);
    close(h.win[1], 69.0 / 144.0);
    // The defender hits when only it succeeds (5 * 6) or both and d > a (15): 45/144.
    close(h.lose[1], 45.0 / 144.0);
    close(h.none, 30.0 / 144.0);
    let (_, joint) = face_to_face(12, 11, 12, 11);
    check_pmf(&joint, 1e-12).unwrap();
}

#[test]
fn duel_between_equals_is_a_coin_and_its_length_geometric() {
    // Two 1-HP characters with one die at 6 and AC 1. Per activation by X: X kills with
    // w = 57/144 * 11/12, dies with l = 51/144 * 11/12; a won-but-saved first charge
    // (57/144 * 1/12) charges again. The duel is symmetric, so P(A wins) = 1/2, and
    // it ends in each activation with e = (w + l)(1 + s): a geometric length.
    let cfg = dozen_config(
        r#"
[characters.one]
dx = 1
co = 1
st = 6
ch = 1
aw = 1
mv = 1
skills = { melee = 1 }

[characters.two]
dx = 1
co = 1
st = 6
ch = 1
aw = 1
mv = 1
skills = { melee = 1 }

[scenarios.equal]
kind = "duel"
a = "one"
b = "two"
"#,
    );
    let c = cfg.compile("equal").unwrap();
    let (w, l, s) = (
        57.0 / 144.0 * 11.0 / 12.0,
        51.0 / 144.0 * 11.0 / 12.0,
        57.0 / 144.0 / 12.0,
    );
    let e: f64 = (w + l) * (1.0 + s);
    close(exact_of(&c, "winner", "one wins"), 0.5);
    for t in 1..6 {
        close(
            exact_of(&c, "activations", &t.to_string()),
            (1.0 - e).powi(t - 1) * e,
        );
    }
    assert!(c.capped_mass < 1e-30);
    // Monte Carlo agrees.
    let h = simulate(&c, 1 << 20, 77, 2);
    let r = summarize(&c, &h, 77, "test.toml", "dozen");
    assert!(r.max_abs_z().unwrap() < 4.5, "{:?}", r.max_abs_z());
}

#[test]
fn a_duel_nobody_can_win_stops_at_the_cap_and_says_so() {
    let cfg = dozen_config(
        r#"
[characters.pacifist]
dx = 3
co = 3
st = 3
ch = 3
aw = 3
mv = 3

[scenarios.stalemate]
kind = "duel"
a = "pacifist"
b = "thief"
max_activations = 50
"#,
    );
    let mut c = cfg.compile("stalemate").unwrap();
    // The thief has one melee die; the pacifist none, so the thief can still win.
    assert!(c.capped_mass > 0.0 && c.capped_mass < 1.0);
    let cfg = dozen_config(
        r#"
[characters.pacifist]
dx = 3
co = 3
st = 3
ch = 3
aw = 3
mv = 3

[scenarios.stalemate]
kind = "duel"
a = "pacifist"
b = "pacifist"
max_activations = 50
"#,
    );
    c = cfg.compile("stalemate").unwrap();
    close(c.capped_mass, 1.0);
    close(exact_of(&c, "winner", "unfinished"), 1.0);
    close(exact_of(&c, "activations", ">50"), 1.0);
    let h = simulate(&c, 1 << 16, 1, 2);
    let r = summarize(&c, &h, 1, "test.toml", "dozen");
    assert_eq!(r.headline.probability, 0.0);
    assert_eq!(r.metrics[0].rows[2].count, 1 << 16);
}

#[test]
fn second_charge_rule_switches() {
    // With one charge per activation the duel is longer than with a charge after a win,
    // and "always" is shorter still.
    let mean = |rule: &str| {
        let cfg = crate::util::dozen_config_with(
            "[scenarios.d]\nkind = \"duel\"\na = \"fighter\"\nb = \"dwarf\"\n",
            &[&format!("rules.second_charge={rule}")],
        );
        let c = cfg.compile("d").unwrap();
        let m = &c.metrics[1];
        m.project_f64(c.exact.as_ref().unwrap())
            .iter()
            .enumerate()
            .map(|(t, p)| t as f64 * p)
            .sum::<f64>()
    };
    let (never, after, always) = (mean("never"), mean("after_win"), mean("always"));
    assert!(never > after && after > always, "{never} {after} {always}");
}

#[test]
fn natural_fail_switches_off() {
    // A target of 12 with natural_fail = 0 always succeeds; with 12, a 12 fails.
    let base = "[scenarios.t]\nkind = \"conflict\"\ncharacter = \"temple_knight\"\nskill = \"turn_undead\"\nability = \"ch\"\ndifficulty = \"easy\"\n";
    let on = crate::util::dozen_config_with(base, &["characters.temple_knight.ch=6"]);
    let off = crate::util::dozen_config_with(
        base,
        &["characters.temple_knight.ch=6", "rules.natural_fail=0"],
    );
    let c_on = on.compile("t").unwrap();
    let c_off = off.compile("t").unwrap();
    close(exact_of(&c_on, "successes", "3"), (11.0f64 / 12.0).powi(3));
    close(exact_of(&c_off, "successes", "3"), 1.0);
}

#[test]
fn big_pools_take_the_generic_path_and_agree_too() {
    // More than three dice a side leaves the one-word fast path: 5 against 4, and an
    // opposed conflict of 7 against 6, still agree with the exact distribution.
    let cfg = dozen_config(
        r#"
[scenarios.big-melee]
kind = "melee"
attacker = "fighter"
defender = "dwarf"
attacker_extra_dice = 3
defender_extra_dice = 2

[scenarios.big-opposed]
kind = "opposed_conflict"
character = "thief"
skill = "sneak"
ability = "dx"
extra_dice = 5
opponent = "dwarf"
opponent_skill = "spot"
opponent_ability = "aw"
opponent_difficulty = "normal"
opponent_extra_dice = 4
"#,
    );
    for (i, name) in ["big-melee", "big-opposed"].iter().enumerate() {
        let c = cfg.compile(name).unwrap();
        check_pmf(c.exact.as_ref().unwrap(), 1e-12).unwrap();
        let h = simulate(&c, 1 << 20, 90 + i as u64, 2);
        let r = summarize(&c, &h, 1, "test.toml", "dozen");
        for m in &r.metrics {
            assert!(
                m.max_abs_z.unwrap() < 4.5,
                "{name} {}: {:?}",
                m.name,
                m.max_abs_z
            );
            if let Some(z) = m.mean_z {
                assert!(z.abs() < 4.5, "{name} {} mean z {z}", m.name);
            }
        }
    }
}

#[test]
fn duels_off_the_table_path_and_uneven_bags_agree() {
    // Four melee dice, or a bag of 2:3 dice (5 does not divide 12), take the generic
    // sampler; a 1:2 bag stays on the table path. All agree with the Markov chain.
    let cfg = dozen_config(
        r#"
[scenarios.big]
kind = "duel"
a = "fighter"
b = "dwarf"

[scenarios.bag-2-3]
kind = "duel"
a = "fighter"
b = "temple_knight"
bag = [2, 3]

[scenarios.bag-1-2]
kind = "duel"
a = "thief"
b = "temple_knight"
bag = [1, 2]
"#,
    );
    let big = crate::util::dozen_config_with(
        "[scenarios.big]\nkind = \"duel\"\na = \"fighter\"\nb = \"dwarf\"\n",
        &["characters.fighter.skills.melee=4"],
    );
    let cases = [
        big.compile("big").unwrap(),
        cfg.compile("bag-2-3").unwrap(),
        cfg.compile("bag-1-2").unwrap(),
    ];
    for (i, c) in cases.iter().enumerate() {
        check_pmf(c.exact.as_ref().unwrap(), 1e-12).unwrap();
        let h = simulate(c, 1 << 19, 300 + i as u64, 2);
        let r = summarize(c, &h, 1, "test.toml", "dozen");
        for m in &r.metrics {
            assert!(
                m.max_abs_z.unwrap() < 4.5,
                "{} {}: {:?}",
                c.name,
                m.name,
                m.max_abs_z
            );
            if let Some(z) = m.mean_z {
                assert!(z.abs() < 4.5, "{} {} mean z {z}", c.name, m.name);
            }
        }
    }
    // The bag weights the activations: with B holding 2 of 3 dice, B wins more often
    // than with an even bag.
    let even =
        dozen_config("[scenarios.e]\nkind = \"duel\"\na = \"thief\"\nb = \"temple_knight\"\n");
    let p_even = exact_of(&even.compile("e").unwrap(), "winner", "Thief wins");
    let p_12 = exact_of(&cases[2], "winner", "Thief wins");
    assert!(p_12 < p_even, "{p_12} {p_even}");
}

#[test]
fn a_bag_drawn_without_replacement_alternates_within_a_round() {
    // A cannot be hurt (armour class 24 on a d12 with natural fails off), B has 1 HP, one
    // charge per activation (second_charge = never): an activation ends the duel when A's
    // charge gets a hit through (qa) or B's charge loses and A's hit gets through (qb),
    // both read off the independent `melee` scenarios. With replacement every activation
    // is A's with 1/2: P(end at 1) = m = (qa + qb)/2, P(end at 2) = (1 - m) m. Without
    // replacement the round is A then B or B then A: P(end at 2) =
    // ((1 - qa) qb + (1 - qb) qa) / 2.
    let config = |draw: &str| {
        let text = format!(
            "system = \"dozen\"\n[rules]\nnatural_fail = 0\nsecond_charge = \"never\"\nbag_draw = \"{draw}\"\n\
             [characters.a]\ndx = 12\nco = 3\nst = 8\nch = 1\naw = 1\nmv = 3\narmour = 12\nskills = {{ melee = 2 }}\n\
             [characters.b]\ndx = 1\nco = 1\nst = 6\nch = 1\naw = 1\nmv = 3\nskills = {{ melee = 1 }}\n\
             [scenarios.d]\nkind = \"duel\"\na = \"a\"\nb = \"b\"\nbag = [1, 1]\nmax_activations = 40\n\
             [scenarios.a-charges]\nkind = \"melee\"\nattacker = \"a\"\ndefender = \"b\"\n\
             [scenarios.b-charges]\nkind = \"melee\"\nattacker = \"b\"\ndefender = \"a\"\n"
        );
        rollsim::config::load_str(&text, "bag.toml", &[]).unwrap()
    };
    let (with, without) = (config("with_replacement"), config("without_replacement"));
    let qa = 1.0 - exact_of(&with.compile("a-charges").unwrap(), "defender_hp_lost", "0");
    let qb = 1.0 - exact_of(&with.compile("b-charges").unwrap(), "attacker_hp_lost", "0");
    assert!(qa > 0.1 && qb > 0.01 && (qa - qb).abs() > 0.02, "{qa} {qb}");
    let m = (qa + qb) / 2.0;
    let (dw, dn) = (with.compile("d").unwrap(), without.compile("d").unwrap());
    close(exact_of(&dw, "activations", "1"), m);
    close(exact_of(&dn, "activations", "1"), m);
    close(exact_of(&dw, "activations", "2"), (1.0 - m) * m);
    close(
        exact_of(&dn, "activations", "2"),
        ((1.0 - qa) * qb + (1.0 - qb) * qa) / 2.0,
    );
    // A new round starts with the full bag: from the third activation on, as at the start.
    let survive = 1.0 - m - exact_of(&dn, "activations", "2");
    close(exact_of(&dn, "activations", "3"), survive * m);
    close(exact_of(&dn, "winner", "a wins"), 1.0);
    // Monte Carlo rolls the bag as the rules say: within 4.5 standard errors.
    crate::util::assert_agrees(&dn, &["activations"], 200_000, 4);
}

#[test]
fn an_injured_character_loses_the_draws_of_its_green_dice() {
    // A cannot be hurt (armour class 24 on a d12 with natural fails off). B has 3 HP, so
    // is injured at 1, and its one die in the bag is green; one charge per activation.
    // Each activation is A's with 1/2 and takes j HP off B with pa[j] (the `melee`
    // scenario a-charges), else B's and costs B j HP with pb[j] (b-charges: B loses when
    // A wins), unless B is injured, when the green draw is lost. The test steps this
    // three-state chain itself and compares when the duel ends.
    let config = |rule: &str, b_skills: &str| {
        let text = format!(
            "system = \"dozen\"\n[rules]\nnatural_fail = 0\nsecond_charge = \"never\"\ninjured_green = \"{rule}\"\n\
             [characters.a]\ndx = 12\nco = 3\nst = 8\nch = 1\naw = 1\nmv = 3\narmour = 12\nskills = {{ melee = 2 }}\n\
             [characters.b]\ndx = 1\nco = 3\nst = 6\nch = 1\naw = 1\nmv = 3\nskills = {{ {b_skills} }}\n\
             [scenarios.d]\nkind = \"duel\"\na = \"a\"\nb = \"b\"\nbag = [1, 1]\ngreen = [0, 1]\nmax_activations = 60\n\
             [scenarios.a-charges]\nkind = \"melee\"\nattacker = \"a\"\ndefender = \"b\"\n\
             [scenarios.b-charges]\nkind = \"melee\"\nattacker = \"b\"\ndefender = \"a\"\n"
        );
        rollsim::config::load_str(&text, "green.toml", &[]).unwrap()
    };
    let rule = config("cannot_activate", "melee = 1");
    let lost = |c: &rollsim::model::Compiled, metric: &str| -> Vec<f64> {
        (0..=3)
            .map(|j| {
                c.metrics
                    .iter()
                    .find(|m| m.name == metric)
                    .and_then(|m| m.labels.iter().position(|l| *l == j.to_string()))
                    .map_or(0.0, |_| exact_of(c, metric, &j.to_string()))
            })
            .collect()
    };
    let pa = lost(&rule.compile("a-charges").unwrap(), "defender_hp_lost");
    let pb = lost(&rule.compile("b-charges").unwrap(), "attacker_hp_lost");
    let chain = |green_lost: bool| -> Vec<f64> {
        // Mass on B's HP 1..=3; the end's mass per activation.
        let mut hp = [0.0, 0.0, 0.0, 1.0];
        let mut ends = Vec::new();
        for _ in 0..12 {
            let mut next = [0.0; 4];
            for h in 1..=3usize {
                for (j, (&a, &b)) in pa.iter().zip(&pb).enumerate() {
                    next[h.saturating_sub(j)] += hp[h] * 0.5 * a;
                    let b_acts = !(green_lost && 2 * h < 3);
                    if b_acts {
                        next[h.saturating_sub(j)] += hp[h] * 0.5 * b;
                    }
                }
                if green_lost && 2 * h < 3 {
                    next[h] += hp[h] * 0.5;
                }
            }
            ends.push(next[0]);
            next[0] = 0.0;
            hp = next;
        }
        ends
    };
    let check = |cfg: &rollsim::config::AnalysisConfig, green_lost: bool| {
        let d = cfg.compile("d").unwrap();
        for (t, e) in chain(green_lost).into_iter().enumerate() {
            close(exact_of(&d, "activations", &(t + 1).to_string()), e);
        }
        d
    };
    let d = check(&rule, true);
    // Switched off, or cancelled by the toughness skill: B's green die always acts.
    let off = check(&config("can_activate", "melee = 1"), false);
    let tough = check(
        &config("cannot_activate", "melee = 1, toughness = 1"),
        false,
    );
    assert_eq!(off.exact, tough.exact);
    // The rule draws the duel out (lost draws count as activations).
    let mean = |c: &rollsim::model::Compiled| {
        (1..=12)
            .map(|t| t as f64 * exact_of(c, "activations", &t.to_string()))
            .sum::<f64>()
    };
    assert!(mean(&d) > mean(&off) + 0.05, "{} {}", mean(&d), mean(&off));
    // Monte Carlo draws the colours and skips the lost activations as the rules say
    // (through the d12 table path, which reads a green die from the bag's face), and
    // never skips one when toughness cancels the rule.
    crate::util::assert_agrees(&d, &["activations", "b_hp_left"], 200_000, 5);
    crate::util::assert_agrees(&tough, &["activations", "b_hp_left"], 200_000, 5);
    // Drawn without replacement, too.
    let path = crate::util::shipped("dozen.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let sets = ["rules.bag_draw=without_replacement".to_string()];
    let w = rollsim::config::load_str(&text, "dozen.toml", &sets).unwrap();
    let c = w.compile("duel-fighter-vs-dwarf-green-dice").unwrap();
    crate::util::assert_agrees(&c, &["winner", "activations"], 200_000, 8);
    // The shipped pair: Monte Carlo agrees on the green bag.
    let c = load("dozen.toml")
        .compile("duel-fighter-vs-dwarf-green-dice")
        .unwrap();
    crate::util::assert_agrees(&c, &["winner", "activations"], 200_000, 6);
}

#[test]
fn running_past_two_archers_by_hand() {
    // Each archer rolls 2d12 hitting at or under DX 4 (hard: +0); the thief (AC 5) saves
    // a hit at or under 5. A die costs 1 HP with p = 4/12 * 7/12 = 7/36, so the 4 dice
    // lose Binomial(4, 7/36) HP, and the thief (3 HP) falls with P(3 or 4).
    let c = load("dozen.toml")
        .compile("thief-runs-past-two-archers")
        .unwrap();
    let p: f64 = 7.0 / 36.0;
    let q = 1.0 - p;
    close(exact_of(&c, "hp_lost", "0"), q.powi(4));
    close(exact_of(&c, "hp_lost", "1"), 4.0 * p * q.powi(3));
    let casualty = 4.0 * p.powi(3) * q + p.powi(4);
    close(exact_of(&c, "condition", "casualty"), casualty);
    close(exact_of(&c, "condition", "injured"), 6.0 * p * p * q * q);
    assert_eq!(c.headline.label, "P(Thief gets past)");
    crate::util::assert_agrees(&c, &["hp_lost", "condition"], 400_000, 9);
    // A very easy shot hits with every die (no roll): only armour is rolled.
    let easy = dozen_config(
        "[characters.archer]\ndx = 4\nco = 3\nst = 3\nch = 2\naw = 4\nmv = 3\nskills = { shoot = 2 }\n\
         [scenarios.r]\nkind = \"run_past\"\ncharacter = \"thief\"\nshooters = [\"archer\"]\ndifficulty = \"very_easy\"\n",
    )
    .compile("r")
    .unwrap();
    close(exact_of(&easy, "hp_lost", "2"), (7.0f64 / 12.0).powi(2));
    crate::util::assert_agrees(&easy, &["hp_lost"], 200_000, 10);
}

#[test]
fn a_push_over_a_drop_chains_into_a_fall() {
    // The side hit is pushed 1 square; with a drop of 4 behind the dwarf he falls 4
    // squares when the fighter wins, and each fall die above max(DX 3, CO 4) = 4 costs
    // 1 HP: P(4 fall HP) = P(fighter wins) * (8/12)^4, and on average the fall adds
    // P(fighter wins) * 4 * 8/12 HP to what the charge costs him.
    let cfg = load("dozen.toml");
    let bridge = cfg.compile("fighter-pushes-dwarf-off-bridge").unwrap();
    let plain = dozen_config(
        "[scenarios.m]\nkind = \"melee\"\nattacker = \"fighter\"\ndefender = \"dwarf\"\n",
    )
    .compile("m")
    .unwrap();
    let win = exact_of(&plain, "result", "attacker wins");
    close(exact_of(&bridge, "result", "attacker wins"), win);
    close(
        exact_of(&bridge, "fall_hp_lost", "4"),
        win * (8.0f64 / 12.0).powi(4),
    );
    close(
        exact_of(&bridge, "fall_hp_lost", "0"),
        1.0 - win + win * (4.0f64 / 12.0).powi(4),
    );
    let mean = |c: &rollsim::model::Compiled, metric: &str| {
        let m = c.metrics.iter().find(|m| m.name == metric).unwrap();
        (0..m.labels.len())
            .map(|v| v as f64 * exact_of(c, metric, &v.to_string()))
            .sum::<f64>()
    };
    close(
        mean(&bridge, "defender_hp_lost"),
        mean(&plain, "defender_hp_lost") + win * 4.0 * 8.0 / 12.0,
    );
    // The attacker never falls: nothing is behind him.
    close(
        mean(&bridge, "attacker_hp_lost"),
        mean(&plain, "attacker_hp_lost"),
    );
    crate::util::assert_agrees(
        &bridge,
        &["fall_hp_lost", "defender_hp_lost", "defender_condition"],
        400_000,
        11,
    );
    // A drop behind the attacker: it falls when the defender wins.
    let back = dozen_config(
        "[scenarios.m]\nkind = \"melee\"\nattacker = \"fighter\"\ndefender = \"dwarf\"\nattacker_drop = 3\n",
    )
    .compile("m")
    .unwrap();
    let lose = exact_of(&plain, "result", "defender wins");
    // The fighter keeps at or under max(DX 4, CO 3) = 4.
    close(
        exact_of(&back, "fall_hp_lost", "3"),
        lose * (8.0f64 / 12.0).powi(3),
    );
    crate::util::assert_agrees(&back, &["fall_hp_lost", "attacker_hp_lost"], 200_000, 12);
}

#[test]
fn the_dice_reserve_caps_a_pool() {
    // The rules: a character rolls its skill level in dice, and only as many as its
    // reserve holds. The fighter (melee 2) with 1 die in reserve charges as with one
    // die fewer; a reserve of 5 changes nothing.
    let cfg = |reserve: &str| {
        dozen_config_with(
            "[scenarios.m]\nkind = \"melee\"\nattacker = \"fighter\"\ndefender = \"dwarf\"\n\
             [scenarios.fewer]\nkind = \"melee\"\nattacker = \"fighter\"\ndefender = \"dwarf\"\nattacker_extra_dice = -1\n",
            &[&format!("characters.fighter.reserve={reserve}")],
        )
    };
    let one = cfg("1");
    assert_eq!(
        one.compile("m").unwrap().exact,
        one.compile("fewer").unwrap().exact
    );
    let five = cfg("5");
    let plain = dozen_config(
        "[scenarios.m]\nkind = \"melee\"\nattacker = \"fighter\"\ndefender = \"dwarf\"\n",
    );
    assert_eq!(
        five.compile("m").unwrap().exact,
        plain.compile("m").unwrap().exact
    );
    // A conflict too: Turn Undead 3 from a reserve of 2 rolls 2 dice.
    let c = dozen_config_with(
        "[scenarios.t]\nkind = \"conflict\"\ncharacter = \"temple_knight\"\nskill = \"turn_undead\"\nability = \"ch\"\ndifficulty = \"hard\"\n",
        &["characters.temple_knight.reserve=2"],
    )
    .compile("t")
    .unwrap();
    close(exact_of(&c, "successes", "2"), (4.0f64 / 12.0).powi(2));
}

#[test]
fn every_second_charge_rule_agrees_on_both_table_paths() {
    // The duel's table path is compiled once per second-charge rule and per table kind:
    // 2 dice against 2 read as one joint number, 4 against 2 read side by side. Each
    // agrees with the Markov chain, every value of every metric within 4.5 SE.
    for rule in ["never", "after_win", "always"] {
        for melee in [2, 4] {
            let cfg = crate::util::dozen_config_with(
                "[scenarios.d]\nkind = \"duel\"\na = \"fighter\"\nb = \"dwarf\"\n",
                &[
                    &format!("rules.second_charge={rule}"),
                    &format!("characters.fighter.skills.melee={melee}"),
                ],
            );
            let c = cfg.compile("d").unwrap();
            let h = simulate(&c, 1 << 19, 500 + melee, 2);
            let r = summarize(&c, &h, 1, "test.toml", "dozen");
            for m in &r.metrics {
                let z = m.max_abs_z.unwrap();
                assert!(z < 4.5, "{rule} melee {melee} {}: {z}", m.name);
                if let Some(z) = m.mean_z {
                    assert!(z.abs() < 4.5, "{rule} melee {melee} {} mean z {z}", m.name);
                }
            }
        }
    }
}
