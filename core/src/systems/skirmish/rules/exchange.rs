//! Exchanges: one shot or one charge and the target's reaction, resolved simultaneously.

use super::{
    breaks, charge_attacks, models_lost, p_break, shoot_attacks, Attack, ChargeReaction, Rules,
    ShotReaction, Stats, Unit,
};
use crate::kernels::{Faces, Rng};
use crate::model::{Compiled, Group, Headline, Metric, Radix, Trial};
use crate::pmf::{Prob, Ratio};

/// A single exchange. State: (casualties on the target, casualties on the actor, target
/// broken, actor broken). A unit wiped out is not "broken": it is gone. Units are their
/// numbers alone: two units of the same numbers make the same trial (see [`Trial::key`]).
#[derive(Hash)]
struct Exchange {
    rules: Rules,
    act: Attack,
    back: Option<Attack>,
    actor: Stats,
    target: Stats,
    /// The target flees without a fight (a charge met with no reaction).
    flees: bool,
    radix: Radix,
}

impl Trial for Exchange {
    fn states(&self) -> usize {
        self.radix.size()
    }
    fn key(&self) -> Option<Vec<u8>> {
        Some(crate::model::key_of::<Self, _>(self))
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        if self.flees {
            return self.radix.encode(&[0, 0, 1, 0]);
        }
        // Simultaneous: both attacks are rolled at full strength before anything comes off.
        let d = &mut Faces::new(self.rules.die).stream();
        let on_target = self.act.roll(&self.rules, d, rng);
        let on_actor = self.back.map_or(0, |b| b.roll(&self.rules, d, rng));
        let tb = breaks(&self.target, on_target, &self.rules, d, rng);
        let ab = breaks(&self.actor, on_actor, &self.rules, d, rng);
        self.radix.encode(&[
            on_target as usize,
            on_actor as usize,
            tb as usize,
            ab as usize,
        ])
    }
}

#[allow(clippy::too_many_arguments)]
fn exchange(
    name: &str,
    description: String,
    actor: &Unit,
    target: &Unit,
    act: Attack,
    back: Option<Attack>,
    flees: bool,
    rules: &Rules,
    group: Option<Group>,
    actor_role: &str,
) -> Compiled {
    let radix = Radix(vec![
        target.models as usize + 1,
        actor.models as usize + 1,
        2,
        2,
    ]);
    let sides = (target.stats, actor.stats);
    let exact = exchange_pmf::<f64>(&radix, flees, (&act, back.as_ref()), sides, rules);
    let later = (radix.clone(), rules.clone());
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    let field = |i: usize| -> Vec<u16> { states.iter().map(|v| v[i] as u16).collect() };
    // A unit that lost every model is wiped out, whatever its (moot) morale test said.
    let morale = |casualties: usize, test: usize, models: u32| -> Vec<u16> {
        states
            .iter()
            .map(|v| {
                if v[casualties] >= models as usize {
                    2
                } else {
                    v[test] as u16
                }
            })
            .collect()
    };
    let metrics = vec![
        models_lost("casualties_on_target", target, "", field(0)),
        models_lost(&format!("casualties_on_{actor_role}"), actor, "", field(1)),
        morale_after("target_morale", target, morale(0, 2, target.models)),
        morale_after(
            &format!("{actor_role}_morale"),
            actor,
            morale(1, 3, actor.models),
        ),
    ];
    Compiled::new(
        name,
        description,
        Box::new(Exchange {
            rules: rules.clone(),
            act,
            back,
            actor: actor.stats,
            target: target.stats,
            flees,
            radix,
        }),
        metrics,
        Headline {
            label: "P(target takes casualties)".into(),
            metric: 0,
            values: (1..=target.models as usize).collect(),
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later({
        let (radix, rules) = later;
        move || exchange_pmf::<Ratio>(&radix, flees, (&act, back.as_ref()), sides, &rules)
    })
    .group(group)
}

/// The exchange's states (casualties on the target and on the actor, then whether
/// each broke): the two attacks' casualties independent, each side's break test on its
/// own casualties.
fn exchange_pmf<W: Prob>(
    radix: &Radix,
    flees: bool,
    (act, back): (&Attack, Option<&Attack>),
    (target, actor): (Stats, Stats),
    rules: &Rules,
) -> Vec<W> {
    let mut exact = vec![W::zero(); radix.size()];
    if flees {
        exact[radix.encode(&[0, 0, 1, 0])] = W::one();
        return exact;
    }
    let pt = act.pmf::<W>(rules);
    let pa = back.map_or(vec![W::one()], |b| b.pmf(rules));
    for (ct, p) in pt.iter().enumerate() {
        for (ca, q) in pa.iter().enumerate() {
            let (bt, ba): (W, W) = (p_break(&target, ct, rules), p_break(&actor, ca, rules));
            for (tb, x) in [(0, W::one() - bt.clone()), (1, bt)] {
                for (ab, y) in [(0, W::one() - ba.clone()), (1, ba.clone())] {
                    exact[radix.encode(&[ct, ca, tb, ab])] += p.clone() * q.clone() * x.clone() * y;
                }
            }
        }
    }
    exact
}

fn describe_attack(a: &Attack, rules: &Rules) -> String {
    format!(
        "{}d{} +{} vs {} (hit {:.0}%), save {}+{}",
        a.dice,
        rules.die,
        a.modifier,
        a.target,
        100.0 * rules.p_hit::<f64>(a.modifier, a.target),
        a.defence,
        if a.reroll_saves { " re-rolled" } else { "" }
    )
    .replace("+-", "-")
}

/// A `shoot` scenario: `shooter` shoots `target`, which reacts.
pub(super) fn compile_shoot(
    name: &str,
    shooter: &Unit,
    target: &Unit,
    aimed: bool,
    reaction: ShotReaction,
    group: Option<Group>,
    rules: &Rules,
) -> Compiled {
    let (act, back) = shoot_attacks(shooter, target, aimed, reaction);
    let description = format!(
        "{} {}{}: {}; reaction {}{}",
        crate::text::agrees(&shooter.name, "shoots", "shoot"),
        target.name,
        if aimed { " (aimed, +2)" } else { "" },
        describe_attack(&act, rules),
        reaction.name().replace('_', " "),
        back.map_or(String::new(), |b| format!(
            ": {}",
            describe_attack(&b, rules)
        ))
    );
    exchange(
        name,
        description,
        shooter,
        target,
        act,
        back,
        false,
        rules,
        group,
        "shooter",
    )
}

/// A `charge` scenario: `charger` charges `target`, which reacts.
pub(super) fn compile_charge(
    name: &str,
    charger: &Unit,
    target: &Unit,
    reaction: ChargeReaction,
    over_half: bool,
    group: Option<Group>,
    rules: &Rules,
) -> Compiled {
    let (act, back) = charge_attacks(charger, target, reaction, over_half, rules);
    let flees = reaction == ChargeReaction::None;
    let description = format!(
        "{} {}{}: {}; reaction {}{}",
        crate::text::agrees(&charger.name, "charges", "charge"),
        target.name,
        if over_half {
            " from over half a move"
        } else {
            ""
        },
        describe_attack(&act, rules),
        reaction.name().replace('_', " "),
        match back {
            Some(b) => format!(": {}", describe_attack(&b, rules)),
            None => " (the target breaks and flees)".into(),
        }
    );
    exchange(
        name,
        description,
        charger,
        target,
        act,
        back,
        flees,
        rules,
        group,
        "charger",
    )
}

/// A unit's morale after the exchange's casualties, as a metric: holds, broken or wiped
/// out (`map` takes each outcome to one of the three).
fn morale_after(key: &str, unit: &Unit, map: Vec<u16>) -> Metric {
    Metric::categorical(
        key,
        &format!(
            "{}: morale after casualties; a wiped-out unit is gone, not holding",
            unit.name
        ),
        &["holds", "broken", "wiped out"],
        map,
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_exact, assert_sampled, stats, unit};
    use super::super::{compile, ChargeReaction, Rules, Scenario, ShotReaction, Stats};

    fn shoot(shooter: Stats, target: Stats, aimed: bool, reaction: ShotReaction) -> Scenario {
        Scenario::Shoot {
            shooter: unit("red", shooter),
            target: unit("blue", target),
            aimed,
            reaction,
            group: None,
        }
    }

    fn charge(charger: Stats, target: Stats, reaction: ChargeReaction) -> Scenario {
        Scenario::Charge {
            charger: unit("red", charger),
            target: unit("blue", target),
            reaction,
            over_half: true,
            group: None,
        }
    }

    #[test]
    fn a_shot_with_saves_and_a_break_test_by_hand() {
        // Two dice (1 model x 2) at shoot +0 against target value 6 + cover 1 = 7 on a
        // d10: a hit is a roll of 7..10, 4/10. A save is 8..10, 3/10, so a die kills with
        // 4/10 x 7/10 = 0.28. Casualties ~ Binomial(2, 0.28):
        //   0: 0.72^2 = 0.5184, 1: 2 x 0.28 x 0.72 = 0.4032, 2: 0.28^2 = 0.0784.
        // One casualty (of two models) tests morale 5 - 1 = 4: passes on 1..4, 4/10, so
        //   holds 0.5184 + 0.4032 x 0.4 = 0.67968, broken 0.4032 x 0.6 = 0.24192,
        //   wiped out 0.0784 (no test).
        let sc = shoot(
            Stats {
                attack_dice: 2,
                ..stats()
            },
            Stats {
                models: 2,
                cover: 1,
                defence: 8,
                morale: 5,
                ..stats()
            },
            false,
            ShotReaction::None,
        );
        let c = compile("shot", &sc, &Rules::default());
        let casualties = [0.5184, 0.4032, 0.0784];
        let morale = [0.67968, 0.24192, 0.0784];
        assert_exact(&c, "casualties_on_target", &casualties);
        assert_exact(&c, "target_morale", &morale);
        assert_exact(&c, "casualties_on_shooter", &[1.0, 0.0]);
        assert_exact(&c, "shooter_morale", &[1.0, 0.0, 0.0]);
        assert_sampled(&c, "casualties_on_target", &casualties, 11);
        assert_sampled(&c, "target_morale", &morale, 12);
    }

    #[test]
    fn aim_and_going_to_ground_move_the_hit_by_two() {
        // Aimed: 1d10 + 2 >= 6 hits on 4..10, 7/10. Gone to ground: target value 6 + 2 = 8,
        // a roll of 8..10, 3/10. Both: 1d10 + 2 >= 8, 6..10, 5/10. Running: 6 - 2 = 4
        // and cover 3 lost, 4..10, 7/10.
        for (aimed, reaction, cover, p) in [
            (true, ShotReaction::None, 0, 0.7),
            (false, ShotReaction::GoToGround, 0, 0.3),
            (true, ShotReaction::GoToGround, 0, 0.5),
            (false, ShotReaction::Run, 3, 0.7),
        ] {
            let sc = shoot(stats(), Stats { cover, ..stats() }, aimed, reaction);
            let c = compile("shot", &sc, &Rules::default());
            assert_exact(&c, "casualties_on_target", &[1.0 - p, p]);
        }
    }

    #[test]
    fn shooting_back_is_simultaneous() {
        // Red shoots at +1 against 5 + cover 2 = 7: 6..10 hits, 5/10; blue saves on 6..10,
        // 5/10: red kills with 0.25. Blue shoots back at -1 against 7: 8..10, 3/10; red
        // saves on 9..10, 2/10: blue kills with 0.3 x 0.8 = 0.24. Both roll at full
        // strength, so each loses its one model independently of the other, and both
        // are wiped out together with 0.25 x 0.24 = 0.06.
        let sc = shoot(
            Stats {
                shoot: 1,
                target_value: 7,
                defence: 9,
                ..stats()
            },
            Stats {
                shoot: -1,
                target_value: 5,
                cover: 2,
                defence: 6,
                ..stats()
            },
            false,
            ShotReaction::ShootBack,
        );
        let c = compile("back", &sc, &Rules::default());
        assert_exact(&c, "casualties_on_target", &[0.75, 0.25]);
        assert_exact(&c, "casualties_on_shooter", &[0.76, 0.24]);
        let exact = c.exact.as_ref().unwrap();
        let (t, s) = (
            super::super::testing::metric(&c, "casualties_on_target"),
            super::super::testing::metric(&c, "casualties_on_shooter"),
        );
        let both: f64 = (0..exact.len())
            .filter(|&i| t.map[i] == 1 && s.map[i] == 1)
            .map(|i| exact[i])
            .sum();
        assert!((both - 0.06).abs() < 1e-12, "{both}");
        assert_sampled(&c, "casualties_on_shooter", &[0.76, 0.24], 13);
    }

    #[test]
    fn a_shield_wall_rerolls_saves_and_halves_its_dice() {
        // Red charges from over half a move with 2 dice at fight +1, charge bonus +1,
        // against target value 7: 1d10 + 2 >= 7 hits on 5..10, 6/10. Blue's shield wall
        // saves on 6..10, 5/10, and re-rolls a failure: a die gets through with 1/2 x 1/2,
        // so it kills with 0.6 x 0.25 = 0.15. Casualties ~ Binomial(2, 0.15):
        //   0.85^2 = 0.7225, 2 x 0.15 x 0.85 = 0.255, 0.15^2 = 0.0225.
        // Blue's pool of 2 (2 models x 1) is halved to 1 die, 1d10 >= 6: 5/10 on red.
        let sc = charge(
            Stats {
                attack_dice: 2,
                fight: 1,
                charge_bonus: 1,
                ..stats()
            },
            Stats {
                models: 2,
                target_value: 7,
                defence: 6,
                shields: true,
                ..stats()
            },
            ChargeReaction::ShieldWall,
        );
        let c = compile("wall", &sc, &Rules::default());
        let on_target = [0.7225, 0.255, 0.0225];
        assert_exact(&c, "casualties_on_target", &on_target);
        assert_exact(&c, "casualties_on_charger", &[0.5, 0.5]);
        assert_sampled(&c, "casualties_on_target", &on_target, 14);
        assert_sampled(&c, "casualties_on_charger", &[0.5, 0.5], 15);
    }

    #[test]
    fn a_charge_met_with_no_reaction_breaks_the_target() {
        // No reaction: the target flees, with no dice rolled on either side.
        let c = compile(
            "flee",
            &charge(stats(), stats(), ChargeReaction::None),
            &Rules::default(),
        );
        assert_exact(&c, "target_morale", &[0.0, 1.0, 0.0]);
        assert_exact(&c, "casualties_on_target", &[1.0, 0.0]);
        assert_sampled(&c, "target_morale", &[0.0, 1.0, 0.0], 16);
    }

    /// A matrix's two units of the same numbers are one trial, whatever their names: the
    /// engine rolls it once (see `Trial::key`). A number that changes the dice is another.
    #[test]
    fn units_of_the_same_numbers_make_the_same_trial() {
        let rules = Rules::default();
        let key = |target: super::super::Unit, reaction| {
            let sc = Scenario::Shoot {
                shooter: unit("red", stats()),
                target,
                aimed: false,
                reaction,
                group: None,
            };
            compile("shot", &sc, &rules).trial.key().unwrap()
        };
        let blue = key(unit("blue", stats()), ShotReaction::None);
        assert_eq!(blue, key(unit("green", stats()), ShotReaction::None));
        let braver = Stats {
            morale: 99,
            ..stats()
        };
        assert_ne!(blue, key(unit("blue", braver), ShotReaction::None));
        assert_ne!(blue, key(unit("blue", stats()), ShotReaction::ShootBack));
    }
}
