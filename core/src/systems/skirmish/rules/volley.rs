//! Volleys: one unit's turn of shooting actions (make ready, aim, shoot) at one target.

use super::{models_lost, shoot_attacks, Attack, Rules, ShotReaction, Stats, Unit};
use crate::kernels::{Faces, Rng};
use crate::model::{Compiled, Headline, Radix, Trial};
use crate::pmf::{Prob, Ratio};

/// A shooting action of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Take a ready marker (needed to shoot).
    MakeReady,
    /// Take an aim marker (+2 to the next shot) if ready.
    Aim,
    /// Shoot, spending the aim marker.
    Shoot,
}

impl Action {
    /// The config names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["make_ready", "aim", "shoot"];

    /// The action a config name means, if any.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "make_ready" => Action::MakeReady,
            "aim" => Action::Aim,
            "shoot" => Action::Shoot,
            _ => return None,
        })
    }
}

/// The shots a plan makes (aimed or not), the markers played out: a shot without a ready
/// marker cannot be made and is listed as lost (its step, 1-based).
pub fn plan_shots(plan: &[Action], reaction: ShotReaction) -> (Vec<bool>, Vec<usize>) {
    let (mut ready, mut aim) = (false, false);
    let (mut shots, mut lost) = (Vec::new(), Vec::new());
    for (i, a) in plan.iter().enumerate() {
        match a {
            Action::MakeReady => ready = true,
            Action::Aim => aim = ready,
            Action::Shoot if !ready => lost.push(i + 1),
            Action::Shoot => {
                shots.push(aim);
                aim = false;
                // Shot back at: attacked, so both markers go.
                if reaction == ShotReaction::ShootBack {
                    ready = false;
                }
            }
        }
    }
    (shots, lost)
}

/// A turn of shots: state (casualties on the target, casualties on the shooter).
#[derive(Clone)]
struct VolleyTrial {
    rules: Rules,
    shooter: Unit,
    target: Unit,
    shots: Vec<bool>,
    reaction: ShotReaction,
    radix: Radix,
}

impl VolleyTrial {
    fn attacks(&self, aimed: bool, m: [u32; 2]) -> (Attack, Option<Attack>) {
        let s = Stats {
            models: m[0],
            ..self.shooter.stats
        };
        let t = Stats {
            models: m[1],
            ..self.target.stats
        };
        shoot_attacks(&s, &t, aimed, self.reaction)
    }
}

impl Trial for VolleyTrial {
    fn states(&self) -> usize {
        self.radix.size()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let d = &mut Faces::new(self.rules.die).stream();
        let mut m = [self.shooter.models, self.target.models];
        for &aimed in &self.shots {
            if m[0] == 0 || m[1] == 0 {
                break;
            }
            let (act, back) = self.attacks(aimed, m);
            let on_target = act.roll(&self.rules, d, rng);
            let on_shooter = back.map_or(0, |b| b.roll(&self.rules, d, rng));
            m = [m[0] - on_shooter, m[1] - on_target];
        }
        self.radix.encode(&[
            (self.target.models - m[1]) as usize,
            (self.shooter.models - m[0]) as usize,
        ])
    }
}

/// The volley's states (casualties on the target, on the shooter), shot by shot: each
/// shot's casualties worked out from the models still standing on both sides.
fn volley_exact<W: Prob>(f: &VolleyTrial) -> Vec<W> {
    let (ms, mt) = (f.shooter.models as usize, f.target.models as usize);
    // (shooter models, target models) -> probability
    let mut dist = vec![vec![W::zero(); mt + 1]; ms + 1];
    dist[ms][mt] = W::one();
    for &aimed in &f.shots {
        let mut next = vec![vec![W::zero(); mt + 1]; ms + 1];
        for (a, row) in dist.iter().enumerate() {
            for (b, p) in row.iter().enumerate() {
                if p.is_zero() {
                    continue;
                }
                if a == 0 || b == 0 {
                    next[a][b] += p.clone();
                    continue;
                }
                let (act, back) = f.attacks(aimed, [a as u32, b as u32]);
                let pt = act.pmf::<W>(&f.rules);
                let ps = back.map_or(vec![W::one()], |x| x.pmf(&f.rules));
                for (ct, q) in pt.iter().enumerate() {
                    for (cs, r) in ps.iter().enumerate() {
                        next[a - cs][b - ct] += p.clone() * q.clone() * r.clone();
                    }
                }
            }
        }
        dist = next;
    }
    let mut out = vec![W::zero(); f.radix.size()];
    for (a, row) in dist.into_iter().enumerate() {
        for (b, p) in row.into_iter().enumerate() {
            out[f.radix.encode(&[mt - b, ms - a])] += p;
        }
    }
    out
}

pub(super) fn compile_volley(
    name: &str,
    shooter: &Unit,
    target: &Unit,
    plan: &[Action],
    reaction: ShotReaction,
    rules: &Rules,
) -> Compiled {
    let (shots, lost) = plan_shots(plan, reaction);
    let radix = Radix(vec![
        target.models as usize + 1,
        shooter.models as usize + 1,
    ]);
    let trial = VolleyTrial {
        rules: rules.clone(),
        shooter: shooter.clone(),
        target: target.clone(),
        shots: shots.clone(),
        reaction,
        radix: radix.clone(),
    };
    let exact = volley_exact::<f64>(&trial);
    let later = trial.clone();
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    let field = |i: usize| -> Vec<u16> { states.iter().map(|v| v[i] as u16).collect() };
    let steps: Vec<&str> = plan.iter().map(|a| Action::NAMES[*a as usize]).collect();
    let description = format!(
        "{} {} at {} ({} with {}): {}{}{}",
        crate::text::agrees(&shooter.name, "takes", "take"),
        steps.join(", ").replace('_', " "),
        target.name,
        crate::text::agrees(&target.name, "reacts", "react"),
        reaction.name().replace('_', " "),
        crate::text::plural(shots.len() as u64, "shot", "shots"),
        match shots.iter().filter(|&&a| a).count() {
            0 => String::new(),
            n => format!(" ({n} aimed, +2)"),
        },
        if lost.is_empty() {
            String::new()
        } else {
            format!(
                "; no ready marker for the shot at step {} (the return fire took it, or none was made)",
                lost.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
            )
        }
    );
    Compiled::new(
        name,
        description,
        Box::new(trial),
        vec![
            models_lost("casualties_on_target", target, " over the turn", field(0)),
            models_lost(
                "casualties_on_shooter",
                shooter,
                " to return fire",
                field(1),
            ),
        ],
        Headline {
            label: "P(target takes casualties)".into(),
            metric: 0,
            values: (1..=target.models as usize).collect(),
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || volley_exact::<Ratio>(&later))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_exact, assert_sampled, stats, unit};
    use super::super::{compile, Rules, Scenario, Stats};
    use super::{plan_shots, Action, ShotReaction};
    use Action::{Aim, MakeReady, Shoot};

    fn volley(shooter: Stats, target: Stats, plan: &[Action], reaction: ShotReaction) -> Scenario {
        Scenario::Volley {
            shooter: unit("red", shooter),
            target: unit("blue", target),
            plan: plan.to_vec(),
            reaction,
        }
    }

    #[test]
    fn markers_by_hand() {
        // No ready marker: the shot is lost (step 1).
        assert_eq!(plan_shots(&[Shoot], ShotReaction::None), (vec![], vec![1]));
        // Ready, aim, shoot (aimed), shoot (the aim marker is spent, the ready one kept).
        assert_eq!(
            plan_shots(&[MakeReady, Aim, Shoot, Shoot], ShotReaction::None),
            (vec![true, false], vec![])
        );
        // Shot back at, the shooter loses its ready marker: step 4 has none.
        assert_eq!(
            plan_shots(&[MakeReady, Aim, Shoot, Shoot], ShotReaction::ShootBack),
            (vec![true], vec![4])
        );
        // Aiming before making ready gives no aim marker.
        assert_eq!(
            plan_shots(&[Aim, MakeReady, Shoot], ShotReaction::None),
            (vec![false], vec![])
        );
    }

    #[test]
    fn an_aimed_shot_then_an_unaimed_one() {
        // One die against target value 6 (no save): aimed 1d10 + 2 >= 6 is 7/10, unaimed
        // 5/10. The single model survives both with 0.3 x 0.5 = 0.15.
        let plan = [MakeReady, Aim, Shoot, Shoot];
        let c = compile(
            "v",
            &volley(stats(), stats(), &plan, ShotReaction::None),
            &Rules::default(),
        );
        assert_exact(&c, "casualties_on_target", &[0.15, 0.85]);
        assert_sampled(&c, "casualties_on_target", &[0.15, 0.85], 31);
        // Gone to ground (target value 8): aimed 5/10, unaimed 3/10; survives with
        // 0.5 x 0.7 = 0.35.
        let c = compile(
            "v",
            &volley(stats(), stats(), &plan, ShotReaction::GoToGround),
            &Rules::default(),
        );
        assert_exact(&c, "casualties_on_target", &[0.35, 0.65]);
        // Shot back at: only the aimed shot is made (7/10), and blue's return fire at
        // target value 6 hits red with 5/10.
        let c = compile(
            "v",
            &volley(stats(), stats(), &plan, ShotReaction::ShootBack),
            &Rules::default(),
        );
        assert_exact(&c, "casualties_on_target", &[0.3, 0.7]);
        assert_exact(&c, "casualties_on_shooter", &[0.5, 0.5]);
        assert_sampled(&c, "casualties_on_shooter", &[0.5, 0.5], 32);
    }

    #[test]
    fn later_shots_cannot_kill_more_than_are_left() {
        // Two unaimed shots of 2 dice (5/10 each) at 2 models. The first kills 0, 1, 2
        // with 1/4, 1/2, 1/4. From 0 killed the second adds 0, 1, 2 with 1/4, 1/2, 1/4;
        // from 1 killed, one model is left: 0 with 1/4, 1 with 3/4 (either die, capped).
        //   0: 1/4 x 1/4 = 0.0625
        //   1: 1/4 x 1/2 + 1/2 x 1/4 = 0.25
        //   2: 1/4 x 1/4 + 1/2 x 3/4 + 1/4 = 0.6875
        let c = compile(
            "v",
            &volley(
                Stats {
                    attack_dice: 2,
                    ..stats()
                },
                Stats {
                    models: 2,
                    ..stats()
                },
                &[MakeReady, Shoot, Shoot],
                ShotReaction::None,
            ),
            &Rules::default(),
        );
        let want = [0.0625, 0.25, 0.6875];
        assert_exact(&c, "casualties_on_target", &want);
        assert_sampled(&c, "casualties_on_target", &want, 33);
    }
}
