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

use super::{Rules, Side, Tally, Test};
use crate::kernels::{Pool, Rng};
use crate::model::{Compiled, Headline, Metric, Trial};
use crate::pmf::{Pmf, Prob, Ratio};

/// A whole play as written in the config.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// The unit that starts with the move (and the ball, or picks it up).
    pub carrier: Side,
    /// Dashes before the Pick Up or the Throw (0: none).
    pub dashes: u32,
    /// The threat on each Dash's test; empty: the carrier's `threat`, which is also the
    /// threat where the move ends (for the Pick Up and the Throw).
    pub hex_threats: Vec<u32>,
    /// The ball lies where the move ends.
    pub pick_up: bool,
    /// Whether the carrier sprinted (-1 die on the Pick Up).
    pub sprinted: bool,
    /// Whether the carrier's Throw is in the action it moved in (-1 die). A Throw after
    /// a Pick Up's 2+ is a free action of its own.
    pub moved: bool,
    /// A pass: the catcher and the range of the pass.
    pub pass: Option<(Side, u32)>,
    /// Hexes from the thrower to the Strike hex (1 to 9).
    pub strike_range: u32,
}

/// The outcome numbers of a (1) test that ends the play on 0 successes (`none`) or
/// on 1 (`one`, the action ends); 2+ goes on with a free action.
#[derive(Clone, Copy, Debug)]
struct Graded {
    none: usize,
    one: usize,
}

impl Graded {
    /// Where `successes` end the play, if they do.
    #[inline]
    fn ends(self, successes: u32) -> Option<usize> {
        match successes {
            0 => Some(self.none),
            1 => Some(self.one),
            _ => None,
        }
    }

    /// Adds the mass that ends here, reached with chance `reach`, to `exact`; the
    /// chance of going on (2+ successes).
    fn settle<W: Prob>(self, exact: &mut [W], pmf: &Pmf<W>, reach: &W) -> W {
        exact[self.none] += reach.clone() * pmf.p(0);
        exact[self.one] += reach.clone() * pmf.p(1);
        pmf.at_least(2)
    }
}

/// The pass: an inaccurate Throw, then the Catch dropping the ball or stopping the
/// catcher.
#[derive(Clone, Debug)]
struct Pass {
    throw: Pool,
    /// The Catch pool for each number of Throw successes.
    catch: Vec<Pool>,
    inaccurate: usize,
    ends: Graded,
}

/// One stage and the outcome numbers of its ways to end the play.
#[derive(Clone, Debug)]
enum Stage {
    /// A Dash needing `need` successes; fewer: the carrier falls over.
    Dash { pool: Pool, need: u32, fell: usize },
    /// The Pick Up: 0 scatters, 1 holds the ball but stops.
    PickUp { pool: Pool, ends: Graded },
    /// The pass.
    Pass(Pass),
    /// The Throw at the Strike hex: 0 scatters, 1+ is a Strike.
    Strike {
        pool: Pool,
        missed: usize,
        strike: usize,
    },
}

/// The stages rolled in order until one ends the play; the state is its outcome.
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
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        for st in &self.stages {
            match st {
                Stage::Dash { pool, need, fell } => {
                    if pool.roll(rng) < *need {
                        return *fell;
                    }
                }
                Stage::PickUp { pool, ends } => {
                    if let Some(end) = ends.ends(pool.roll(rng)) {
                        return end;
                    }
                }
                Stage::Pass(p) => {
                    let t = p.throw.roll(rng) as usize;
                    if t == 0 {
                        return p.inaccurate;
                    }
                    if let Some(end) = p.ends.ends(p.catch[t].roll(rng)) {
                        return end;
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

/// The play's stages in order, each ending it on some outcomes, and its exact
/// distribution over where it ends.
pub fn compile(name: &str, play: &Play, rules: &Rules) -> Compiled {
    let (stages, labels, steps) = stages_of(play, rules);
    let c = &play.carrier;
    let n = labels.len();
    let mut tally = Tally::default();
    let exact = play_pmf::<f64>(&stages, n, &mut tally);
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    Compiled::new(
        name,
        format!("{}: {}", c.unit.name, steps.join(", then ")),
        Box::new(PlayTrial {
            stages: stages.clone(),
        }),
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
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || play_pmf::<Ratio>(&stages, n, &mut Tally::unkept()))
    .capped(tally.capped, None)
}

/// The play's tests in order, the outcome each can end it in (named), and each step as
/// the description says it.
fn stages_of(play: &Play, rules: &Rules) -> (Vec<Stage>, Vec<String>, Vec<String>) {
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
        let ends = Graded {
            none: label("pick up scatters"),
            one: label("picked up, stops"),
        };
        stages.push(Stage::PickUp { pool, ends });
        steps.push(format!("Pick Up ({} dice)", pool.dice));
        moved = false;
    }
    let mut holder = end.clone();
    if let Some((catcher, range)) = &play.pass {
        let throw = end.throw_pool(*range, moved, false, rules);
        let catch: Vec<Pool> = (0..=throw.cap)
            .map(|t| catcher.catch_pool(t, rules))
            .collect();
        let inaccurate = label("pass inaccurate");
        let ends = Graded {
            none: label("catch dropped"),
            one: label("caught, stops"),
        };
        stages.push(Stage::Pass(Pass {
            throw,
            catch,
            inaccurate,
            ends,
        }));
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
    (stages, labels, steps)
}

/// Where the play's `n` outcomes end it: the chance of going on multiplied down the
/// stages, the Catch summed over the Throw's successes.
fn play_pmf<W: Prob>(stages: &[Stage], n: usize, tally: &mut Tally) -> Vec<W> {
    let mut exact = vec![W::zero(); n];
    let mut reach = W::one();
    for st in stages {
        match st {
            Stage::Dash { pool, need, fell } => {
                let pass = tally.pmf(pool, &reach).at_least(*need as usize);
                exact[*fell] += reach.clone() * (W::one() - pass.clone());
                reach = reach * pass;
            }
            Stage::PickUp { pool, ends } => {
                let pmf = tally.pmf(pool, &reach);
                let on = ends.settle(&mut exact, &pmf, &reach);
                reach = reach * on;
            }
            Stage::Pass(p) => {
                let pt = tally.pmf(&p.throw, &reach);
                exact[p.inaccurate] += reach.clone() * pt.p(0);
                let mut on = W::zero();
                for (t, pool) in p.catch.iter().enumerate().skip(1) {
                    let w = reach.clone() * pt.p(t);
                    let pc = tally.pmf(pool, &w);
                    on += pt.p(t) * p.ends.settle(&mut exact, &pc, &w);
                }
                reach = reach * on;
            }
            Stage::Strike {
                pool,
                missed,
                strike,
            } => {
                let pmf = tally.pmf(pool, &reach);
                exact[*missed] += reach.clone() * pmf.p(0);
                exact[*strike] += reach.clone() * pmf.at_least(1);
            }
        }
    }
    exact
}
