//! Combat: a charge, then round after round of simultaneous blows until a side is gone
//! or broken.

use super::{
    breaks, charge_attacks, p_break, status_of, Attack, ChargeReaction, Rules, Stats, Unit,
};
use crate::kernels::{Faces, Rng};
use crate::model::{Chart, Compiled, Headline, Metric, Radix, Trial};
use crate::pmf::{Prob, Ratio};

/// Combat state: (models of the charger, models of the target, who broke as in a
/// firefight, the round it ended in: 0 = still fighting after the last round).
#[derive(Clone)]
struct CombatTrial {
    rules: Rules,
    charger: Unit,
    target: Unit,
    reaction: ChargeReaction,
    over_half: bool,
    rounds: u32,
    radix: Radix,
}

impl CombatTrial {
    /// The two attacks of round `t` (1: the charge) between the survivors.
    fn attacks(&self, t: u32, m: [u32; 2]) -> (Attack, Option<Attack>) {
        let c = Stats {
            models: m[0],
            ..self.charger.stats
        };
        let g = Stats {
            models: m[1],
            ..self.target.stats
        };
        if t == 1 {
            charge_attacks(&c, &g, self.reaction, self.over_half, &self.rules)
        } else {
            // Combat goes on: both strike back at full strength, no charge bonuses.
            charge_attacks(&c, &g, ChargeReaction::CounterCharge, false, &self.rules)
        }
    }

    fn flees(&self) -> bool {
        self.reaction == ChargeReaction::None
    }
}

impl Trial for CombatTrial {
    fn states(&self) -> usize {
        self.radix.size()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let mut m = [self.charger.models, self.target.models];
        if self.flees() {
            return self.radix.encode(&[m[0] as usize, m[1] as usize, 2, 1]);
        }
        let d = &mut Faces::new(self.rules.die).stream();
        let units = [&self.charger, &self.target];
        for t in 1..=self.rounds {
            let (act, back) = self.attacks(t, m);
            let on_target = act.roll(&self.rules, d, rng);
            let on_charger = back.map_or(0, |b| b.roll(&self.rules, d, rng));
            let hits = [on_charger, on_target];
            let mut broke = [false; 2];
            for x in 0..2 {
                let u = Stats {
                    models: m[x],
                    ..units[x].stats
                };
                broke[x] = breaks(&u, hits[x], &self.rules, d, rng);
            }
            m = [m[0] - on_charger, m[1] - on_target];
            let status = status_of(broke);
            if status != 0 || m[0] == 0 || m[1] == 0 {
                return self.radix.encode(&[
                    m[0] as usize,
                    m[1] as usize,
                    status as usize,
                    t as usize,
                ]);
            }
        }
        self.radix.encode(&[m[0] as usize, m[1] as usize, 0, 0])
    }
}

/// Exactly: the chain over the survivors, round by round.
fn combat_exact<W: Prob>(f: &CombatTrial) -> Vec<W> {
    let rules = &f.rules;
    let mut out = vec![W::zero(); f.radix.size()];
    let (mc, mt) = (f.charger.models, f.target.models);
    if f.flees() {
        out[f.radix.encode(&[mc as usize, mt as usize, 2, 1])] = W::one();
        return out;
    }
    let units = [&f.charger, &f.target];
    // Still fighting: (models of the charger, of the target) -> probability.
    let mut live = vec![vec![W::zero(); mt as usize + 1]; mc as usize + 1];
    live[mc as usize][mt as usize] = W::one();
    for t in 1..=f.rounds {
        let mut next = vec![vec![W::zero(); mt as usize + 1]; mc as usize + 1];
        for (a, row) in live.iter().enumerate() {
            for (b, p) in row.iter().enumerate() {
                if p.is_zero() {
                    continue;
                }
                let m = [a as u32, b as u32];
                let (act, back) = f.attacks(t, m);
                let on_target = act.pmf::<W>(rules);
                let on_charger = back.map_or(vec![W::one()], |x| x.pmf(rules));
                for (ct, q) in on_target.iter().enumerate() {
                    for (cc, r) in on_charger.iter().enumerate() {
                        let with = |x: usize| Stats {
                            models: m[x],
                            ..units[x].stats
                        };
                        let pb: [W; 2] =
                            [p_break(&with(0), cc, rules), p_break(&with(1), ct, rules)];
                        let n = [a - cc, b - ct];
                        let [pb0, pb1] = pb;
                        for (b0, w0) in [(false, W::one() - pb0.clone()), (true, pb0)] {
                            for (b1, w1) in [(false, W::one() - pb1.clone()), (true, pb1.clone())] {
                                let w = p.clone() * q.clone() * r.clone() * w0.clone() * w1;
                                if w.is_zero() {
                                    continue;
                                }
                                let st = status_of([b0, b1]) as usize;
                                if st != 0 || n[0] == 0 || n[1] == 0 {
                                    out[f.radix.encode(&[n[0], n[1], st, t as usize])] += w;
                                } else {
                                    next[n[0]][n[1]] += w;
                                }
                            }
                        }
                    }
                }
            }
        }
        live = next;
    }
    for (a, row) in live.into_iter().enumerate() {
        for (b, p) in row.into_iter().enumerate() {
            if !p.is_zero() {
                out[f.radix.encode(&[a, b, 0, 0])] += p;
            }
        }
    }
    out
}

pub(super) fn compile_combat(
    name: &str,
    charger: &Unit,
    target: &Unit,
    reaction: ChargeReaction,
    over_half: bool,
    rounds: u32,
    rules: &Rules,
) -> Compiled {
    let radix = Radix(vec![
        charger.models as usize + 1,
        target.models as usize + 1,
        4,
        rounds as usize + 1,
    ]);
    let trial = CombatTrial {
        rules: rules.clone(),
        charger: charger.clone(),
        target: target.clone(),
        reaction,
        over_half,
        rounds,
        radix: radix.clone(),
    };
    let exact = combat_exact::<f64>(&trial);
    let later = trial.clone();
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    // 0: the charger wins, 1: the target wins, 2: still fighting, 3: both out.
    let outcome = |v: &[usize]| -> usize {
        super::who_won(v[0] == 0 || v[2] & 1 == 1, v[1] == 0 || v[2] & 2 == 2) as usize
    };
    let c_wins = crate::text::wins(&charger.name);
    let t_wins = crate::text::wins(&target.name);
    let won_at = |side: usize, who: &str| {
        Metric::won_at(
            who,
            format!("the round in which the {who} wins (no = it does not)"),
            rounds as usize,
            states
                .iter()
                .map(|v| if outcome(v) == side { v[3] as u16 } else { 0 })
                .collect(),
        )
    };
    let ended = rounds_metric(rounds, &states);
    let mut metrics = vec![
        Metric::categorical(
            "outcome",
            "a side wins when the other is wiped out or broken and it is not; both out = both in the same round",
            &[&c_wins, &t_wins, "still fighting", "both out"][..],
            states.iter().map(|v| outcome(v) as u16).collect(),
        ),
        ended,
        super::models_left("charger_models_left", charger, &states, 0),
        super::models_left("target_models_left", target, &states, 1),
    ];
    let race = Chart::Race {
        file: "combat".into(),
        title: "who has won by each round".into(),
        x_desc: "rounds".into(),
        sides: vec![
            (c_wins.clone(), metrics.len()),
            (t_wins.clone(), metrics.len() + 1),
        ],
    };
    metrics.extend([won_at(0, "charger"), won_at(1, "target")]);
    Compiled::new(
        name,
        format!(
            "{} {} ({}{}), then combat for up to {} in all",
            crate::text::agrees(&charger.name, "charges", "charge"),
            target.name,
            reaction.name().replace('_', " "),
            if over_half { "" } else { ", no charge bonuses" },
            crate::text::plural(rounds as u64, "round", "rounds")
        ),
        Box::new(trial),
        metrics,
        Headline {
            label: format!("P({c_wins})"),
            metric: 0,
            values: vec![0],
            against: vec![1],
        },
    )
    .exact(Some(exact))
    .fractions_later(move || combat_exact::<Ratio>(&later))
    // Nothing is capped: still fighting after the last round is an outcome of its own,
    // not a cut.
    .charts(vec![race])
}

/// The rounds a combat lasts, `>rounds` where it is still going at the end.
fn rounds_metric(rounds: u32, states: &[Vec<usize>]) -> Metric {
    let mut ended = Metric::numeric(
        "rounds",
        &format!("rounds until a side is gone or broken; >{rounds} = still fighting"),
        rounds as usize + 2,
        states
            .iter()
            .map(|v| {
                if v[3] == 0 {
                    rounds as u16 + 1
                } else {
                    v[3] as u16
                }
            })
            .collect(),
    );
    ended.labels[rounds as usize + 1] = format!(">{rounds}");
    ended
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_exact, assert_sampled, stats, unit};
    use super::super::{compile, ChargeReaction, CombatBonus, Rules, Scenario, Stats};

    fn combat(
        charger: Stats,
        target: Stats,
        reaction: ChargeReaction,
        over_half: bool,
        rounds: u32,
    ) -> Scenario {
        Scenario::Combat {
            charger: unit("red", charger),
            target: unit("blue", target),
            reaction,
            over_half,
            rounds,
        }
    }

    /// Red (fight +2, charge bonus +1) charges blue (fight -1) from over half a move;
    /// one model and one die each, target value 6, no saves, two rounds.
    fn duel(rules: &Rules) -> super::Compiled {
        let red = Stats {
            fight: 2,
            charge_bonus: 1,
            ..stats()
        };
        let blue = Stats {
            fight: -1,
            ..stats()
        };
        compile(
            "c",
            &combat(red, blue, ChargeReaction::CounterCharge, true, 2),
            rules,
        )
    }

    #[test]
    fn the_charge_bonus_counts_in_the_first_round_only() {
        // Round 1: red 1d10 + 3 >= 6 hits on 3..10, 8/10; blue (counter-charge, bonus 0)
        // 1d10 - 1 >= 6 on 7..10, 4/10. Red wins 0.8 x 0.6 = 0.48, blue 0.2 x 0.4 = 0.08,
        // both out 0.8 x 0.4 = 0.32, both still standing 0.2 x 0.6 = 0.12.
        // Round 2, no bonus: red hits on 4..10, 7/10: red 0.42, blue 0.12, both 0.28,
        // neither 0.18.
        //   red wins 0.48 + 0.12 x 0.42 = 0.5304, blue 0.08 + 0.12 x 0.12 = 0.0944,
        //   both out 0.32 + 0.12 x 0.28 = 0.3536, still fighting 0.12 x 0.18 = 0.0216.
        // Rounds: ends in round 1 with 0.88, round 2 with 0.12 x 0.82 = 0.0984, else 0.0216.
        let c = duel(&Rules::default());
        let outcome = [0.5304, 0.0944, 0.0216, 0.3536];
        let rounds = [0.0, 0.88, 0.0984, 0.0216];
        assert_exact(&c, "outcome", &outcome);
        assert_exact(&c, "rounds", &rounds);
        assert_exact(&c, "charger_wins_at", &[1.0 - 0.5304, 0.48, 0.12 * 0.42]);
        assert_sampled(&c, "outcome", &outcome, 41);
        assert_sampled(&c, "rounds", &rounds, 42);
    }

    #[test]
    fn a_dice_bonus_adds_a_die_in_the_first_round() {
        // Combat bonus as dice: round 1 red rolls 2 dice at 7/10 and kills blue's one
        // model unless both miss, 1 - 0.3^2 = 0.91; blue as before, 4/10.
        //   red wins 0.91 x 0.6 + (0.09 x 0.6) x 0.42 = 0.546 + 0.02268 = 0.56868.
        let rules = Rules {
            combat_bonus: CombatBonus::Dice,
            ..Rules::default()
        };
        let c = duel(&rules);
        let red = 0.56868;
        let exact = super::super::testing::exact(&c, "outcome");
        assert!((exact[0] - red).abs() < 1e-12, "{exact:?}");
    }

    #[test]
    fn one_round_with_break_tests_by_enumeration() {
        // A d6, two models a side with one die each, no saves, no bonuses (blue defends,
        // the charge from under half a move). Red hits on 4+ (fight 0 vs target value 4),
        // blue on 5+ (fight 0 vs 5). A side that lost one of its two models tests morale
        // 4 - 1: it holds on 1..3. Every face of the four attack dice and the two morale
        // dice is equally likely: count the outcomes.
        let rules = Rules {
            die: 6,
            ..Rules::default()
        };
        let red = Stats {
            models: 2,
            target_value: 5,
            morale: 4,
            defence: 7,
            ..stats()
        };
        let blue = Stats {
            target_value: 4,
            ..red
        };
        let c = compile(
            "c",
            &combat(red, blue, ChargeReaction::Defend, false, 1),
            &rules,
        );
        // outcome: 0 red wins, 1 blue wins, 2 still fighting, 3 both out.
        let mut count = [0u32; 4];
        for faces in 0..6u32.pow(6) {
            let f: Vec<u32> = (0..6).map(|i| faces / 6u32.pow(i) % 6 + 1).collect();
            let on_blue = (f[0] >= 4) as u32 + (f[1] >= 4) as u32;
            let on_red = (f[2] >= 5) as u32 + (f[3] >= 5) as u32;
            // Out: wiped out (both models lost), or lost one and failed the test.
            let out = |lost: u32, morale_die: u32| lost == 2 || (lost == 1 && morale_die > 3);
            let (red_out, blue_out) = (out(on_red, f[4]), out(on_blue, f[5]));
            count[match (red_out, blue_out) {
                (false, true) => 0,
                (true, false) => 1,
                (false, false) => 2,
                (true, true) => 3,
            }] += 1;
        }
        let want: Vec<f64> = count.iter().map(|&k| k as f64 / 6f64.powi(6)).collect();
        assert_exact(&c, "outcome", &want);
        assert_sampled(&c, "outcome", &want, 43);
    }
}
