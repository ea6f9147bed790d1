//! Reactions: a character moves in sight of enemies with loaded
//! missile weapons, and each of them shoots at it as a free reaction. A shot unloads the
//! weapon until the shooter reloads on its own activation (every weapon is reloaded at
//! the start of a round), so each shooter fires once at a character running past.
//!
//! The rules name the shooting roll but not its dice, so it is read as a conflict: the
//! shooter rolls its shooting skill's level in d12, each die at or under the ability plus
//! the difficulty modifier hits, and the target defends each hit with its armour class,
//! as in melee: a d12 at or under it saves, else 1 HP. A character hit but still standing
//! finishes its activation; injury counts only after it (the rules).
//!
//! Every die is independent, so the HP lost is a sum of binomials: exact by convolution.

use super::{condition, contest_target, Character, Contestant, Rules, CONDITIONS};
use crate::kernels::Rng;
use crate::model::{Compiled, Headline, Metric, Trial};
use crate::pmf::{Pmf, Prob, Ratio};
use crate::systems::dozen::d12::Stream;

/// A character running past `shooters`, each firing once.
struct RunPastTrial {
    /// Per shooter: dice and the face a die hits at or under (12 = every die).
    shots: Vec<(u32, u32)>,
    /// The runner's armour class as a d12 target.
    ac: u32,
}

impl Trial for RunPastTrial {
    fn states(&self) -> usize {
        1 + self.shots.iter().map(|s| s.0 as usize).sum::<usize>()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let mut s = Stream::new();
        let mut lost = 0;
        for &(dice, target) in &self.shots {
            for _ in 0..dice {
                if s.face(rng) <= target && s.face(rng) > self.ac {
                    lost += 1;
                }
            }
        }
        lost
    }
}

/// A `run_past` scenario: the HP a runner loses to one shot from each shooter.
pub fn compile(name: &str, runner: &Character, shooters: &[Contestant], rules: &Rules) -> Compiled {
    let ac = rules.target(runner.ac() as i32);
    let shots: Vec<(u32, u32)> = shooters
        .iter()
        .map(|c| (c.dice(), contest_target(c, rules).unwrap_or(12)))
        .collect();
    let trial = RunPastTrial { shots, ac };
    let states = trial.states();
    // Each die costs 1 HP with P(hit) * P(armour fails).
    let exact = run_past_pmf::<f64>(&trial.shots, ac);
    let later = trial.shots.clone();
    let hp = runner.hp();
    let lost: Vec<u32> = (0..states as u32).collect();
    let shooters_text: Vec<String> = shooters
        .iter()
        .map(|c| {
            let t = contest_target(c, rules).map_or("every die hits".to_string(), |t| {
                format!("hits at or under {t}")
            });
            format!("{} ({} {}d12, {t})", c.who.name, c.skill, c.dice())
        })
        .collect();
    Compiled::new(
        name,
        format!(
            "{} ({hp} HP, AC {}) moves in sight of {}; each shoots once, each hit saved on a d12 at or under the AC",
            runner.name,
            runner.ac(),
            shooters_text.join(" and ")
        ),
        Box::new(trial),
        vec![
            Metric::numeric(
                "hp_lost",
                "HP lost to the shots after armour",
                states,
                lost.iter().map(|&l| l as u16).collect(),
            ),
            Metric::categorical(
                "condition",
                &format!(
                    "{} with {hp} HP after the shots: injured below half ({} HP or less), casualty at 0",
                    runner.name,
                    hp.saturating_sub(1) / 2
                ),
                &CONDITIONS,
                lost.iter().map(|&l| condition(l, hp)).collect(),
            ),
        ],
        Headline {
            label: format!("P({} gets past)", runner.name),
            metric: 1,
            values: vec![0, 1, 2],
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || run_past_pmf::<Ratio>(&later, ac))
}

/// HP lost to `shots` (dice, target): each die costs 1 HP with P(hit) * P(armour fails).
fn run_past_pmf<W: Prob>(shots: &[(u32, u32)], ac: u32) -> Vec<W> {
    shots
        .iter()
        .fold(Pmf::point(0), |acc, &(dice, target)| {
            let p = W::ratio(u64::from(target), 12) * (W::one() - W::ratio(u64::from(ac), 12));
            acc.convolve(&W::binomial(dice, &p))
        })
        .0
}
