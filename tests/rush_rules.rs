//! The literal rules (docs/games/rush.md) and exact values worked out by hand.

use crate::util::{close, exact_of, rush_config};
use rollsim::pmf::check_pmf;
use rollsim::systems::rush::rules::{
    classify, is_double, DoubleRule, Role, Rules, Side, Test, Unit,
};

fn unit(role: Role) -> Unit {
    Unit {
        id: "u".into(),
        name: "U".into(),
        movement: 5,
        strength: 4,
        speed: 4,
        skill: 4,
        armour: 4,
        role,
    }
}

fn side(role: Role, threat: u32) -> Side {
    Side {
        unit: unit(role),
        threat,
        extra_dice: 0,
    }
}

#[test]
fn one_success_against_none_is_a_double() {
    assert!(is_double(DoubleRule::Twice, 1, 0));
    assert_eq!(classify(DoubleRule::Twice, 1, 0), 2);
    assert_eq!(classify(DoubleRule::Twice, 0, 1), 4);
    // the margin2 reading: 1 vs 0 is a plain win, 3 vs 1 a double, 3 vs 2 a win
    assert_eq!(classify(DoubleRule::Margin2, 1, 0), 1);
    assert_eq!(classify(DoubleRule::Margin2, 3, 1), 2);
    assert_eq!(classify(DoubleRule::Twice, 3, 2), 1);
    assert_eq!(classify(DoubleRule::Twice, 2, 2), 0);
}

#[test]
fn guard_gets_one_more_die_on_slam_slamback_and_armour_only() {
    let r = Rules::default();
    let g = side(Role::Guard, 0);
    let j = side(Role::Jack, 0);
    let s = side(Role::Striker, 0);
    for t in [Test::Slam, Test::Slamback, Test::Armour] {
        assert_eq!(g.dice(t, 3, 0, &r), 4, "{t:?}");
        assert_eq!(j.dice(t, 3, 0, &r), 3, "{t:?}");
        assert_eq!(s.dice(t, 3, 0, &r), 3, "{t:?}");
    }
    for t in [
        Test::Dash,
        Test::Evade,
        Test::PickUp,
        Test::Steal,
        Test::Dodge,
        Test::Throw,
        Test::Catch,
        Test::StandUp,
    ] {
        assert_eq!(g.dice(t, 3, 0, &r), 3, "{t:?}");
        assert_eq!(s.dice(t, 3, 0, &r), 4, "{t:?}");
    }
}

#[test]
fn threats_cap_at_minus_two_and_spare_the_armour_check() {
    let r = Rules::default();
    assert_eq!(side(Role::Jack, 1).dice(Test::Dash, 3, 0, &r), 2);
    assert_eq!(side(Role::Jack, 2).dice(Test::Dash, 3, 0, &r), 1);
    assert_eq!(side(Role::Jack, 5).dice(Test::Dash, 3, 0, &r), 1);
    assert_eq!(side(Role::Jack, 5).dice(Test::Armour, 3, 0, &r), 3);
    let loose = Rules {
        threat_cap: 3,
        ..Rules::default()
    };
    assert_eq!(side(Role::Jack, 5).dice(Test::Dash, 3, 0, &loose), 0);
}

#[test]
fn a_zero_die_pool_scores_zero() {
    // Human Jack throwing 8 hexes (1 die), having moved (-1), two threats: clamped to 0.
    // No die, no success: inaccurate with probability 1.
    let cfg = rush_config(
        "[scenarios.t]\nkind = \"throw\"\nunit = \"human_jack\"\nrange = 8\nmoved = true\nthreat = 2\n",
    );
    let c = cfg.compile("t").unwrap();
    close(exact_of(&c, "result", "inaccurate"), 1.0);
    let h = crate::util::simulate(&c, 100_000, 5, 2);
    assert_eq!(h.counts[0], 100_000);
}

#[test]
fn the_kth_dash_needs_k_successes() {
    // Human Striker: 4 dice at 4+ (p = 1/2). P(>=k of 4): 15/16, 11/16, 5/16, 1/16.
    let cfg = rush_config("[scenarios.d]\nkind = \"dash\"\nunit = \"human_striker\"\ndashes = 4\n");
    let c = cfg.compile("d").unwrap();
    let e = c.exact.as_ref().unwrap();
    let p = [15.0 / 16.0, 11.0 / 16.0, 5.0 / 16.0, 1.0 / 16.0];
    close(e[0], 1.0 - p[0]);
    close(e[1], p[0] * (1.0 - p[1]));
    close(e[2], p[0] * p[1] * (1.0 - p[2]));
    close(e[3], p[0] * p[1] * p[2] * (1.0 - p[3]));
    close(e[4], p[0] * p[1] * p[2] * p[3]);
}

#[test]
fn escalation_shared_and_per_test() {
    // Goblin (Spd 3+, Jack): 3 dice at 3+ (p = 2/3). Two Dashes then an Evade.
    let text = "[scenarios.d]\nkind = \"dash\"\nunit = \"goblin\"\ndashes = 2\nthen_evade = true\n";
    let shared = rush_config(text).compile("d").unwrap();
    let p1 = 1.0 - (1.0f64 / 3.0).powi(3); // >= 1 of 3
    let p2 = 20.0 / 27.0; // >= 2 of 3: 3*(4/27) + 8/27
    let p3 = 8.0 / 27.0;
    close(shared.exact.as_ref().unwrap()[3], p1 * p2 * p3);
    // per_test: the Evade counts on its own and needs 1 success.
    let per = crate::util::rush_config_with(text, &["rules.escalation=per_test"]);
    close(
        per.compile("d").unwrap().exact.as_ref().unwrap()[3],
        p1 * p2 * p1,
    );
    // A play's Dashes are one kind of (123) test: under either reading the k-th needs
    // k successes, so the whole play has the same distribution.
    let shared = crate::util::load("rush.toml");
    let per = crate::util::load_with("rush.toml", &["rules.escalation=per_test"]);
    for name in [
        "play-striker-dashes-picks-up-strikes",
        "play-jack-picks-up-passes-to-striker",
    ] {
        let (a, b) = (
            shared.compile(name).unwrap().exact.unwrap(),
            per.compile(name).unwrap().exact.unwrap(),
        );
        assert_eq!(a.len(), b.len(), "{name}");
        for (x, y) in a.iter().zip(&b) {
            close(*x, *y);
        }
    }
}

#[test]
fn three_dice_against_three_by_hand() {
    // Two Jacks, 3 dice at 4+ each (p = 1/2): counts C(3,k)/8 each side.
    // draw = (1+9+9+1)/64; double (w >= 2l, w > l): (1,0),(2,0),(3,0),(2,1),(3,1)
    //   = (3+3+1+9+3)/64 = 19/64; plain win: (3,2) = 3/64.
    let cfg = rush_config(
        "[scenarios.s]\nkind = \"slam\"\nattacker = \"human_jack\"\ndefender = \"human_jack\"\nresponse = \"slamback\"\n",
    );
    let c = cfg.compile("s").unwrap();
    close(exact_of(&c, "result", "draw"), 20.0 / 64.0);
    close(exact_of(&c, "result", "double"), 19.0 / 64.0);
    close(exact_of(&c, "result", "win"), 3.0 / 64.0);
    close(exact_of(&c, "result", "slamback double"), 19.0 / 64.0);
    check_pmf(c.exact.as_ref().unwrap(), 1e-12).unwrap();
}

#[test]
fn armour_check_by_hand() {
    // Human Guard, 3 hits: 4 dice at 4+; turns = 3 - successes, at least 0. With k
    // successes in C(4, k)/16: 3 turns at k = 0 (1/16), 2 at k = 1 (4/16), 1 at k = 2
    // (6/16), 0 at k = 3 or 4 (4/16 + 1/16 = 5/16).
    let cfg = rush_config("[scenarios.a]\nkind = \"armour\"\nunit = \"human_guard\"\nhits = 3\n");
    let c = cfg.compile("a").unwrap();
    close(exact_of(&c, "turns_out_of_play", "3"), 1.0 / 16.0);
    close(exact_of(&c, "turns_out_of_play", "2"), 4.0 / 16.0);
    close(exact_of(&c, "turns_out_of_play", "1"), 6.0 / 16.0);
    close(exact_of(&c, "turns_out_of_play", "0"), 5.0 / 16.0);
}

#[test]
fn pass_chains_the_throw_into_the_catch_by_hand() {
    // Striker throws 3 hexes: 4 dice at 4+. Jack catches with the throw's successes at 4+.
    // P(caught) = sum_t C(4,t)/16 * (1 - 2^-t) = (2 + 4.5 + 3.5 + 15/16)/16 = 175/256.
    // Inaccurate: no success of the 4 dice, (1/2)^4 = 1/16.
    let cfg = rush_config(
        "[scenarios.p]\nkind = \"pass\"\nthrower = \"human_striker\"\ncatcher = \"human_jack\"\nrange = 3\n",
    );
    let c = cfg.compile("p").unwrap();
    close(exact_of(&c, "result", "inaccurate"), 1.0 / 16.0);
    close(
        exact_of(&c, "result", "caught") + exact_of(&c, "result", "caught + free action"),
        175.0 / 256.0,
    );
}

#[test]
fn slam_armour_chain_by_hand() {
    // Jack (3 dice at 4+) slams a Jack who dodges; only the slammer's double knocks down.
    // 3 vs 0 (1/64): 3 hits, armour 3 dice at 4+: 3 turns out with P(0 successes) = 1/8.
    // 3 turns needs hits 3 and no armour success: (1/8 * 1/8) * 1/8 = 1/512.
    let cfg = rush_config(
        "[scenarios.s]\nkind = \"slam\"\nattacker = \"human_jack\"\ndefender = \"human_jack\"\nresponse = \"dodge\"\n",
    );
    let c = cfg.compile("s").unwrap();
    close(exact_of(&c, "target_turns_out_of_play", "3"), 1.0 / 512.0);
    assert!(c
        .metrics
        .iter()
        .all(|m| m.name != "slammer_turns_out_of_play"));
}

#[test]
fn pick_up_then_throw_by_hand() {
    // Striker: Pick Up 4 dice at 4+, 2+ successes = 11/16; the free Throw at 3 hexes after
    // moving: 4 - 1 = 3 dice at 4+, accurate = 7/8. Together 77/128. The Pick Up fails
    // with no success (1/16: the ball scatters) and stops with exactly one (4/16).
    let cfg = rush_config(
        "[scenarios.p]\nkind = \"pick_up_throw\"\nunit = \"human_striker\"\nrange = 3\nmoved = true\ndescription = \"scoop\"\n",
    );
    let c = cfg.compile("p").unwrap();
    close(exact_of(&c, "result", "throw accurate"), 77.0 / 128.0);
    close(exact_of(&c, "result", "ball scatters"), 1.0 / 16.0);
    close(exact_of(&c, "result", "picked up, no throw"), 4.0 / 16.0);
    assert!(
        c.description
            .starts_with("scoop — Human Striker picks up (4 dice at 4+)"),
        "{}",
        c.description
    );
}

#[test]
fn descriptions_say_when_dice_explode() {
    let cfg = crate::util::rush_config_with(
        "[scenarios.s]\nkind = \"stand_up\"\nunit = \"orc\"\n",
        &["rules.explode_on=6"],
    );
    let c = cfg.compile("s").unwrap();
    assert_eq!(c.description, "Orc stands up: 3 dice at 4+, 6s explode");
}

#[test]
fn the_best_response_is_the_lower_of_slamback_and_dodge() {
    // The Striker answers the Orc's Slam with whichever response gives the Orc the lower
    // chance: Slamback (4 dice at 4+) or Dodge (4 + 1 Striker dice at 4+). Each variant
    // written out by hand gives the same numbers.
    let scen = |response: &str| {
        format!(
            "[scenarios.s]\nkind = \"slam\"\nattacker = \"orc\"\ndefender = \"human_striker\"\nresponse = \"{response}\"\nmoved_adjacent = true\n"
        )
    };
    let p = |response: &str| {
        let c = crate::util::rush_config(&scen(response))
            .compile("s")
            .unwrap();
        let e = c.exact.clone().unwrap();
        let m = c.metrics[c.headline.metric].project_f64(&e);
        (
            c.headline.values.iter().map(|&v| m[v]).sum::<f64>(),
            c.description,
        )
    };
    let (slamback, _) = p("slamback");
    let (dodge, _) = p("dodge");
    let (best, description) = p("best");
    assert!(dodge < slamback, "{dodge} {slamback}");
    assert_eq!(best, dodge);
    assert!(
        description.contains("the defender's best response is a Dodge (Slamback would give 83.6%)"),
        "{description}"
    );
    // From behind only a Dodge is allowed, and `best` respects that.
    let behind = crate::util::rush_config(&scen("best").replace(
        "moved_adjacent = true",
        "moved_adjacent = true\nfrom_front = false",
    ));
    let d = behind.compile("s").unwrap().description;
    assert!(
        d.ends_with("the defender's best response is a Dodge"),
        "{d}"
    );
}

#[test]
fn each_hex_of_a_dash_chain_has_its_own_threat() {
    // A Striker (3 + 1 dice at 4+) Dashes out of an open hex (threat 0: 4 dice, needs 1)
    // and then out of a hex two enemies threaten (2 dice, needs 2): it stays up with
    // (1 - 1/16) x 1/4 = 15/64. With one threat on every hex the same chain is
    // (1 - 1/8) x P(2 of 3 dice) = 7/8 x 1/2 = 7/16.
    let scen = |threat: &str| {
        format!("[scenarios.d]\nkind = \"dash\"\nunit = \"human_striker\"\ndashes = 2\n{threat}\n")
    };
    let stays = |threat: &str| {
        let c = crate::util::rush_config(&scen(threat))
            .compile("d")
            .unwrap();
        exact_of(&c, "result", "stays up")
    };
    crate::util::close(stays("threats = [0, 2]"), 15.0 / 64.0);
    crate::util::close(stays("threat = 1"), 7.0 / 16.0);
    // Then an Evade: its own hex's threat too (third entry).
    let c = crate::util::rush_config(
        &scen("threats = [0, 0, 2]").replace("dashes = 2", "dashes = 2\nthen_evade = true"),
    )
    .compile("d")
    .unwrap();
    // 4 dice need 1 (15/16), 4 need 2 (11/16), then 2 dice need 3: impossible.
    crate::util::close(exact_of(&c, "result", "stays up"), 0.0);
    // One threat per test, no more, no less, and not beside `threat`.
    for bad in [
        "threats = [0]",
        "threats = [0, 7]",
        "threats = [0, 1]\nthreat = 1",
    ] {
        let text = std::fs::read_to_string(crate::util::shipped("rush.toml")).unwrap();
        let head = text.split("\n[scenarios.").next().unwrap();
        assert!(
            rollsim::config::load_str(&format!("{head}\n{}", scen(bad)), "t.toml", &[]).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn a_whole_play_to_the_strike_hex_by_hand() {
    let cfg = crate::util::load("rush.toml");
    // The jack picks up (3 dice at 4+: 0 with 1/8, 1 with 3/8, 2+ with 1/2), passes 4
    // hexes in the free action (2 dice: 0 with 1/4, 1 with 1/2, 2 with 1/4), the striker
    // catches with the throw's successes + 1 (striker): after 1, 2 dice (0: 1/4,
    // 1: 1/2, 2+: 1/4); after 2, 3 dice (1/8, 3/8, 1/2), and throws 2 hexes at the
    // Strike hex in its free action: 3 dice - 1 (Strike hex) + 1 (striker), 7/8.
    let c = cfg.compile("play-jack-picks-up-passes-to-striker").unwrap();
    close(exact_of(&c, "result", "pick up scatters"), 1.0 / 8.0);
    close(exact_of(&c, "result", "picked up, stops"), 3.0 / 8.0);
    close(exact_of(&c, "result", "pass inaccurate"), 0.5 * 0.25);
    close(
        exact_of(&c, "result", "catch dropped"),
        0.5 * (0.5 * 0.25 + 0.25 / 8.0),
    );
    close(
        exact_of(&c, "result", "caught, stops"),
        0.5 * (0.5 * 0.5 + 0.25 * 3.0 / 8.0),
    );
    let on = 0.5 * (0.5 * 0.25 + 0.25 * 0.5);
    close(exact_of(&c, "result", "Strike!"), on * 7.0 / 8.0);
    assert_eq!(c.headline.label, "P(Strike)");
    crate::util::assert_agrees(&c, &["result"], 400_000, 13);
    // The striker Dashes twice (4 dice need 1: 15/16; then threat 1, 3 dice need 2:
    // 1/2), picks up with 4 dice (2+: 11/16) and throws 3 hexes at the Strike hex with
    // 3 dice (7/8): 1155/4096.
    let s = cfg.compile("play-striker-dashes-picks-up-strikes").unwrap();
    close(
        exact_of(&s, "result", "falls over dashing"),
        1.0 - 15.0 / 32.0,
    );
    close(exact_of(&s, "result", "Strike!"), 1155.0 / 4096.0);
    crate::util::assert_agrees(&s, &["result"], 400_000, 14);
    // Without a Pick Up the carrier throws in the action it dashed in: -1 die.
    let moved = rush_config(
        "[scenarios.p]\nkind = \"play\"\nunit = \"human_striker\"\ndashes = 1\nstrike_range = 3\n",
    )
    .compile("p")
    .unwrap();
    // Dash 15/16, then 3 - 1 (moved) - 1 (Strike hex) + 1 = 2 dice: 3/4.
    close(exact_of(&moved, "result", "Strike!"), 15.0 / 16.0 * 0.75);
    // Exploding sixes: Monte Carlo still agrees, and the exact play gains.
    let boom = crate::util::load_with("rush.toml", &["rules.explode_on=6"])
        .compile("play-jack-picks-up-passes-to-striker")
        .unwrap();
    assert!(exact_of(&boom, "result", "Strike!") > on * 7.0 / 8.0);
    crate::util::assert_agrees(&boom, &["result"], 400_000, 15);
}
