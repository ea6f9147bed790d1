//! A whole play: the carrier Dashes, maybe Picks Up the ball, maybe passes
//! (Throw then Catch), and whoever holds the ball throws at the Strike hex. Each test's
//! outcome decides whether the play goes on:
//! - a Dash with too few successes: the carrier falls over, the play ends;
//! - Pick Up: 0 scatters, 1 picks up but ends the action ("stops"), 2+ gives the free Throw;
//! - a pass: 0 on the Throw is inaccurate; the Catch (pool = the Throw's successes)
//!   0 drops it, 1 catches but ends the action, 2+ gives the catcher the free Throw;
//! - the Throw at the Strike hex: 1+ is a Strike.
//!
//! Exact: the chance of going on multiplies down the stages (the Catch summed over the
//! Throw's successes). Monte Carlo rolls each test as the rules say.

use super::{Rules, Side, Test};
use crate::exact::{pool_pmf, Pmf};
use crate::kernels::{Pool, Rng};
use crate::model::{Compiled, Headline, Metric, Trial};

/// A whole play as written in the config.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    pub carrier: Side,
    pub dashes: u32,
    /// The threat on each Dash's test; empty: the carrier's `threat`, which is also the
    /// threat where the move ends (for the Pick Up and the Throw).
    pub hex_threats: Vec<u32>,
    /// The ball lies where the move ends.
    pub pick_up: bool,
    pub sprinted: bool,
    /// Whether the carrier's Throw is in the action it moved in (-1 die). A Throw after
    /// a Pick Up's 2+ is a free action of its own.
    pub moved: bool,
    /// A pass: the catcher and the range of the pass.
    pub pass: Option<(Side, u32)>,
    pub strike_range: u32,
}

/// One stage and the outcome numbers of its ways to end the play.
#[derive(Clone, Debug)]
enum Stage {
    Dash {
        pool: Pool,
        need: u32,
        fell: usize,
    },
    PickUp {
        pool: Pool,
        scattered: usize,
        held: usize,
    },
    Pass {
        throw: Pool,
        catch: Vec<Pool>,
        inaccurate: usize,
        dropped: usize,
        caught: usize,
    },
    Strike {
        pool: Pool,
        missed: usize,
        strike: usize,
    },
}

struct PlayTrial {
    stages: Vec<Stage>,
}

impl Trial for PlayTrial {
    fn states(&self) -> usize {
        match self.stages.last() {
            Some(Stage::Strike { strike, .. }) => strike + 1,
            _ => 1,
        }
    }
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        for st in &self.stages {
            match st {
                Stage::Dash { pool, need, fell } => {
                    if pool.roll(rng) < *need {
                        return *fell;
                    }
                }
                Stage::PickUp {
                    pool,
                    scattered,
                    held,
                } => match pool.roll(rng) {
                    0 => return *scattered,
                    1 => return *held,
                    _ => {}
                },
                Stage::Pass {
                    throw,
                    catch,
                    inaccurate,
                    dropped,
                    caught,
                } => {
                    let t = throw.roll(rng) as usize;
                    if t == 0 {
                        return *inaccurate;
                    }
                    match catch[t].roll(rng) {
                        0 => return *dropped,
                        1 => return *caught,
                        _ => {}
                    }
                }
                Stage::Strike {
                    pool,
                    missed,
                    strike,
                } => {
                    return if pool.roll(rng) == 0 {
                        *missed
                    } else {
                        *strike
                    };
                }
            }
        }
        0
    }
}

fn capped(pmf: &Pmf, pool: &Pool) -> f64 {
    if pool.exploding() {
        pmf.p(pool.cap as usize)
    } else {
        0.0
    }
}

pub fn compile(name: &str, play: &Play, rules: &Rules) -> Compiled {
    let b = rules.base_dice;
    let c = &play.carrier;
    let at = |i: usize| Side {
        threat: play.hex_threats.get(i).copied().unwrap_or(c.threat),
        ..c.clone()
    };
    // The Pick Up and the carrier's Throw happen where the move ends: `threat`.
    let end = c.clone();
    let mut labels: Vec<String> = Vec::new();
    let mut label = |s: &str| {
        labels.push(s.to_string());
        labels.len() - 1
    };
    let mut stages = Vec::new();
    let mut steps: Vec<String> = Vec::new();
    if play.dashes > 0 {
        let fell = label("falls over dashing");
        for i in 0..play.dashes {
            // The k-th (123) test of the action needs k successes. A play's only
            // (123) tests are its Dashes, one kind: `per_test` counts them as `shared`
            // does, as the `dash` scenario does.
            let need = i + 1;
            stages.push(Stage::Dash {
                pool: at(i as usize).pool(Test::Dash, b, 0, rules),
                need,
                fell,
            });
        }
        steps.push(format!(
            "{} Dash{}",
            play.dashes,
            if play.dashes == 1 { "" } else { "es" }
        ));
    }
    // A Throw after a Pick Up's free action has not moved in its action.
    let mut moved = play.moved;
    if play.pick_up {
        let pool = end.pool(Test::PickUp, b, -(play.sprinted as i32), rules);
        stages.push(Stage::PickUp {
            pool,
            scattered: label("pick up scatters"),
            held: label("picked up, stops"),
        });
        steps.push(format!("Pick Up ({} dice)", pool.dice));
        moved = false;
    }
    let mut holder = end.clone();
    if let Some((catcher, range)) = &play.pass {
        let throw = end.throw_pool(*range, moved, false, rules);
        let catch: Vec<Pool> = (0..=throw.cap)
            .map(|t| {
                let base = match rules.catch_pool {
                    super::CatchPool::ThrowSuccesses => t,
                    super::CatchPool::ThreePlusThrow => b + t,
                };
                catcher.pool(Test::Catch, base, 0, rules)
            })
            .collect();
        stages.push(Stage::Pass {
            throw,
            catch,
            inaccurate: label("pass inaccurate"),
            dropped: label("catch dropped"),
            caught: label("caught, stops"),
        });
        steps.push(format!(
            "a pass of {range} hexes to {} ({} dice)",
            catcher.unit.name, throw.dice
        ));
        holder = catcher.clone();
        // The catcher throws in the free action its 2+ gives.
        moved = false;
    }
    let strike = holder.throw_pool(play.strike_range, moved, true, rules);
    stages.push(Stage::Strike {
        pool: strike,
        missed: label("Strike scatters"),
        strike: label("Strike!"),
    });
    steps.push(format!(
        "{} throws {} hexes at the Strike hex ({} dice)",
        holder.unit.name, play.strike_range, strike.dice
    ));
    let n = labels.len();
    let mut exact = vec![0.0; n];
    let mut reach = 1.0;
    let mut capped_mass = 0.0;
    for st in &stages {
        match st {
            Stage::Dash { pool, need, fell } => {
                let pmf = pool_pmf(pool);
                capped_mass += reach * capped(&pmf, pool);
                let pass = pmf.at_least(*need as usize);
                exact[*fell] += reach * (1.0 - pass);
                reach *= pass;
            }
            Stage::PickUp {
                pool,
                scattered,
                held,
            } => {
                let pmf = pool_pmf(pool);
                capped_mass += reach * capped(&pmf, pool);
                exact[*scattered] += reach * pmf.p(0);
                exact[*held] += reach * pmf.p(1);
                reach *= pmf.at_least(2);
            }
            Stage::Pass {
                throw,
                catch,
                inaccurate,
                dropped,
                caught,
            } => {
                let pt = pool_pmf(throw);
                capped_mass += reach * capped(&pt, throw);
                exact[*inaccurate] += reach * pt.p(0);
                let mut on = 0.0;
                for (t, pool) in catch.iter().enumerate().skip(1) {
                    let pc = pool_pmf(pool);
                    let w = reach * pt.p(t);
                    capped_mass += w * capped(&pc, pool);
                    exact[*dropped] += w * pc.p(0);
                    exact[*caught] += w * pc.p(1);
                    on += pt.p(t) * pc.at_least(2);
                }
                reach *= on;
            }
            Stage::Strike {
                pool,
                missed,
                strike,
            } => {
                let pmf = pool_pmf(pool);
                capped_mass += reach * capped(&pmf, pool);
                exact[*missed] += reach * pmf.p(0);
                exact[*strike] += reach * pmf.at_least(1);
            }
        }
    }
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    Compiled::new(
        name,
        format!("{}: {}", c.unit.name, steps.join(", then ")),
        Box::new(PlayTrial { stages }),
        vec![Metric::categorical(
            "result",
            "where the play ends: the first test that stops it, or the Strike",
            &refs,
            (0..n as u16).collect(),
        )],
        Headline {
            label: "P(Strike)".into(),
            metric: 0,
            values: vec![n - 1],
        },
    )
    .exact(Some(exact))
    .capped(capped_mass, None)
}
