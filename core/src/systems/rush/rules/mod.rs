//! `rush`: the hex sports game (rules: docs/games/rush.md).
//!
//! Success-counting d6 pools. Modifiers change the number of dice, never the target.
//! This module holds the rules: the types a config is read into, how a side's pool is
//! made for each test, and [`compile`], which turns a scenario into its tests. Every
//! scenario kind has a sampler that rolls the dice literally and an exact distribution
//! over the same states, in the module of its kind: `single` (one unit's own tests),
//! `throw` (the ball in the air), `opposed` (Slams and Steals) and [`play`].

mod opposed;
/// A whole play: the tests of this module in sequence.
pub mod play;
mod single;
mod throw;

use crate::kernels::Pool;
use crate::model::Compiled;
use crate::pmf::{pool_pmf_of, Pmf, Prob};

/// A unit's role; each grants +1 die on its own tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// +1 die on Dash, Evade, Pick Up, Steal, Dodge, Throw, Catch and Stand Up.
    Striker,
    /// No bonus die.
    Jack,
    /// +1 die on Slam, Slamback and the armour check.
    Guard,
}

/// When an opposed win is a "double".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DoubleRule {
    /// `w >= 2 * l` (with `w > l`): the rules' "twice"; 1 vs 0 is a double.
    Twice,
    /// `w - l >= 2`.
    Margin2,
}

/// How (123) tests of one action count towards the successes needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escalation {
    /// Every (123) test of the action counts (a Dash then an Evade: the Evade needs 2).
    Shared,
    /// Each kind of test counts on its own.
    PerTest,
}

/// The Catch pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatchPool {
    /// The Throw's successes.
    ThrowSuccesses,
    /// The usual 3 dice plus the Throw's successes (variant).
    ThreePlusThrow,
}

/// Rule switches a designer can set in `[rules]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// 0 = off; otherwise a die showing this or more is a success and rolls one more die.
    pub explode_on: u8,
    /// What makes an opposed win a double (seed: twice the loser's successes).
    pub double_rule: DoubleRule,
    /// Which (123) tests of an action count together (seed: all of them).
    pub escalation: Escalation,
    /// The dice the Catch rolls (seed: the Throw's successes).
    pub catch_pool: CatchPool,
    /// Most dice threatening enemies can take away (seed: 2).
    pub threat_cap: u32,
    /// Base pool of most tests (seed: 3).
    pub base_dice: u32,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            explode_on: 0,
            double_rule: DoubleRule::Twice,
            escalation: Escalation::Shared,
            catch_pool: CatchPool::ThrowSuccesses,
            threat_cap: 2,
            base_dice: 3,
        }
    }
}

/// A stat line. Stats are the target number (4 means 4+).
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The `[units.ID]` key scenarios name the unit by.
    pub id: String,
    /// The name descriptions show.
    pub name: String,
    /// Hexes a Run covers (`move`; no test reads it yet).
    pub movement: u32,
    /// Target for Slam and Slamback.
    pub strength: u8,
    /// Target for Dash, Evade, Dodge, Steal and Stand Up.
    pub speed: u8,
    /// Target for Pick Up, Throw and Catch.
    pub skill: u8,
    /// Target for the armour check.
    pub armour: u8,
    /// Which tests get the +1 die.
    pub role: Role,
}

/// Every dice test of the rules (docs/games/rush.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// (123), Speed: one extra hex of movement.
    Dash,
    /// (123), Speed: leaving a threatened hex.
    Evade,
    /// (1), Skill: taking the ball from the ground.
    PickUp,
    /// Opposed, Strength: pushing an enemy back or down.
    Slam,
    /// Opposed, Strength: answering a Slam or Steal from the front.
    Slamback,
    /// Opposed, Speed: the other answer.
    Dodge,
    /// Opposed, Speed: taking the ball from an enemy.
    Steal,
    /// (1), Skill: a pass or a shot at the Strike hex; dice by range.
    Throw,
    /// (1), Skill: its dice are the Throw's successes.
    Catch,
    /// (1), Speed: getting up after a knock-down.
    StandUp,
    /// Each success cancels one hit of a knock-down.
    Armour,
}

impl Test {
    /// The unit's target for this test.
    pub fn stat(self, u: &Unit) -> u8 {
        match self {
            Test::Slam | Test::Slamback => u.strength,
            Test::Dash | Test::Evade | Test::Dodge | Test::Steal | Test::StandUp => u.speed,
            Test::PickUp | Test::Throw | Test::Catch => u.skill,
            Test::Armour => u.armour,
        }
    }

    /// The role that gets +1 die on this test.
    pub fn bonus_role(self) -> Role {
        match self {
            Test::Slam | Test::Slamback | Test::Armour => Role::Guard,
            _ => Role::Striker,
        }
    }

    /// The armour check is the one test that threats do not touch.
    pub fn threatened(self) -> bool {
        self != Test::Armour
    }
}

/// One side of a test: who rolls and what bears on the pool.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    /// Who rolls.
    pub unit: Unit,
    /// Enemies threatening the unit's hex.
    pub threat: u32,
    /// Designer's extra dice (negative to take away), e.g. "what is +1 die worth?".
    pub extra_dice: i32,
}

impl Side {
    /// Dice for `test`, given the test's base pool and its situational modifiers.
    /// Clamped at 0: a 0-die test scores 0 successes.
    pub fn dice(&self, test: Test, base: u32, situational: i32, rules: &Rules) -> u32 {
        let mut n = base as i64 + self.extra_dice as i64 + situational as i64;
        if self.unit.role == test.bonus_role() {
            n += 1;
        }
        if test.threatened() {
            n -= self.threat.min(rules.threat_cap) as i64;
        }
        n.max(0) as u32
    }

    /// The Throw: dice by range band, -1 if the unit moved this action, -1 at the Strike hex.
    pub fn throw_pool(&self, range: u32, moved: bool, strike_hex: bool, rules: &Rules) -> Pool {
        let base = throw_dice(range).unwrap_or(0);
        self.pool(
            Test::Throw,
            base,
            -(moved as i32) - (strike_hex as i32),
            rules,
        )
    }

    /// The dice of [`Side::dice`] rolled at the unit's stat for `test`.
    pub fn pool(&self, test: Test, base: u32, situational: i32, rules: &Rules) -> Pool {
        Pool::new(
            self.dice(test, base, situational, rules),
            test.stat(&self.unit),
            rules.explode_on,
        )
    }

    /// The Catch after a Throw with `throw_successes`: its base pool is those successes,
    /// plus the usual base dice under `catch_pool = "three_plus_throw"`.
    pub fn catch_pool(&self, throw_successes: u32, rules: &Rules) -> Pool {
        let base = match rules.catch_pool {
            CatchPool::ThrowSuccesses => throw_successes,
            CatchPool::ThreePlusThrow => rules.base_dice + throw_successes,
        };
        self.pool(Test::Catch, base, 0, rules)
    }

    /// "NAME does: 3 dice at 4+", a test's usual description.
    fn describe(&self, does: &str, pool: &Pool, test: Test) -> String {
        format!(
            "{} {does}: {}",
            self.unit.name,
            describe_pool(pool, test.stat(&self.unit))
        )
    }
}

/// Which test answers a Slam or a Steal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    /// Strength; only against an action from the front. Its double knocks the actor down.
    Slamback,
    /// Speed; its double gives a free 1-hex move.
    Dodge,
}

/// The response names, for descriptions.
fn response_name(r: Response) -> &'static str {
    match r {
        Response::Slamback => "Slamback",
        Response::Dodge => "Dodge",
    }
}

/// `response = "best"`: the defender knows the odds and answers with the response that
/// gives the actor the lower chance to win (exactly computed); the dice are then rolled
/// for that response, as the rules say. None when the scenario fixes its response.
fn best_response(name: &str, sc: &Scenario, rules: &Rules) -> Option<Compiled> {
    let with = |r: Response| match sc {
        Scenario::Slam {
            attacker,
            defender,
            moved_adjacent,
            ..
        } => Scenario::Slam {
            attacker: attacker.clone(),
            defender: defender.clone(),
            response: r,
            moved_adjacent: *moved_adjacent,
            best_of: Vec::new(),
        },
        Scenario::Steal {
            attacker, defender, ..
        } => Scenario::Steal {
            attacker: attacker.clone(),
            defender: defender.clone(),
            response: r,
            best_of: Vec::new(),
        },
        other => other.clone(),
    };
    let choices = match sc {
        Scenario::Slam { best_of, .. } | Scenario::Steal { best_of, .. } => best_of,
        _ => return None,
    };
    let mut tried: Vec<(Response, Compiled, f64)> = choices
        .iter()
        .map(|&r| {
            let c = compile(name, &with(r), rules);
            // The choices are ranked by their exact chance; one without reads as 0.
            let p = c.headline_exact().unwrap_or(0.0);
            (r, c, p)
        })
        .collect();
    // The lowest chance for the actor; the first listed on a tie.
    let best =
        (0..tried.len()).min_by(|&i, &j| tried[i].2.total_cmp(&tried[j].2).then(i.cmp(&j)))?;
    let others: Vec<String> = tried
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best)
        .map(|(_, (r, _, p))| {
            format!(
                "{} would give {}",
                response_name(*r),
                crate::text::percent(*p, 1)
            )
        })
        .collect();
    let (r, mut c, _) = tried.swap_remove(best);
    c.description = format!(
        "{}; the defender's best response is a {}{}",
        c.description,
        response_name(r),
        if others.is_empty() {
            String::new()
        } else {
            format!(" ({})", others.join(", "))
        }
    );
    Some(c)
}

/// Throw range bands: 1-3 hexes 3 dice, 4-6 two, 7-9 one.
pub fn throw_dice(range: u32) -> Option<u32> {
    match range {
        1..=3 => Some(3),
        4..=6 => Some(2),
        7..=9 => Some(1),
        _ => None,
    }
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// `dashes` Dashes in one action (the k-th needs k successes), optionally an Evade.
    Dash {
        /// The unit that dashes.
        side: Side,
        /// Dashes in the chain (1 to 12).
        dashes: u32,
        /// Whether an Evade follows the last Dash.
        then_evade: bool,
        /// The threat on each hex the chain leaves, one per Dash (and one for the Evade);
        /// empty: the side's `threat` on every test.
        hex_threats: Vec<u32>,
    },
    /// An Evade after `prior_tests` earlier (123) tests of the same action.
    Evade {
        /// The unit that evades.
        side: Side,
        /// (123) tests the action made before the Evade.
        prior_tests: u32,
    },
    /// A Pick Up, graded 0 / 1 / 2+.
    PickUp {
        /// The unit that picks up.
        side: Side,
        /// Whether it Sprinted this action (-1 die).
        sprinted: bool,
    },
    /// A Stand Up, graded 0 / 1 / 2+.
    StandUp {
        /// The unit that stands up.
        side: Side,
    },
    /// Pick Up, and with 2+ successes the free Throw ("Pick Up then Throw").
    PickUpThrow {
        /// The unit that picks up and throws.
        side: Side,
        /// Whether it Sprinted this action (-1 die on the Pick Up).
        sprinted: bool,
        /// Hexes the Throw covers (1 to 9).
        range: u32,
        /// Whether the unit moved this action before the Throw (-1 die).
        moved: bool,
        /// Whether the Throw is at the Strike hex (-1 die).
        strike_hex: bool,
    },
    /// One Throw: accurate with 1+ successes.
    Throw {
        /// The thrower.
        side: Side,
        /// Hexes the Throw covers (1 to 9).
        range: u32,
        /// Whether the thrower moved this action (-1 die).
        moved: bool,
        /// Whether the Throw is at the Strike hex (-1 die).
        strike_hex: bool,
    },
    /// Throw then Catch, the Catch pool chained from the Throw's successes.
    Pass {
        /// The unit that throws.
        thrower: Side,
        /// The unit that catches.
        catcher: Side,
        /// Hexes between them (1 to 9).
        range: u32,
        /// Whether the thrower moved this action (-1 die).
        moved: bool,
    },
    /// A Slam answered by a Slamback or a Dodge, through to the armour check.
    Slam {
        /// The slammer.
        attacker: Side,
        /// The target.
        defender: Side,
        /// The target's answer (the first of `best_of` when it chooses).
        response: Response,
        /// Whether the slammer moved adjacent this action (+1 die).
        moved_adjacent: bool,
        /// `response = "best"`: the responses the defender may choose from (it takes the
        /// one worst for the slammer); empty: `response` as written.
        best_of: Vec<Response>,
    },
    /// A Steal answered by a Slamback or a Dodge.
    Steal {
        /// The stealer.
        attacker: Side,
        /// The ball carrier.
        defender: Side,
        /// The carrier's answer (the first of `best_of` when it chooses).
        response: Response,
        /// As for a Slam: the answers the carrier may choose from; empty: `response`.
        best_of: Vec<Response>,
    },
    /// An armour check against a given number of hits.
    Armour {
        /// The unit knocked down.
        side: Side,
        /// Hits to cancel; those left are turns out of play.
        hits: u32,
    },
    /// A whole play, from the Dashes to the Throw at the Strike hex.
    Play(Box<play::Play>),
}

fn describe_pool(p: &Pool, stat: u8) -> String {
    let explode = if p.exploding() {
        format!(", {}s explode", p.explode_on)
    } else {
        String::new()
    };
    format!(
        "{} {} at {}+{explode}",
        p.dice,
        if p.dice == 1 { "die" } else { "dice" },
        stat
    )
}

/// Compile a scenario into a sampler, its metrics and its exact distribution.
pub fn compile(name: &str, sc: &Scenario, rules: &Rules) -> Compiled {
    if let Some(c) = best_response(name, sc, rules) {
        return c;
    }
    let b = rules.base_dice;
    match sc {
        Scenario::Dash {
            side,
            dashes,
            then_evade,
            hex_threats,
        } => dash(name, side, *dashes, *then_evade, hex_threats, rules),
        Scenario::Evade { side, prior_tests } => {
            let pool = side.pool(Test::Evade, b, 0, rules);
            let need = need_after(*prior_tests, rules);
            let desc = format!(
                "{} evades (after {prior_tests} earlier (123) tests): {}, needs {need}",
                side.unit.name,
                describe_pool(&pool, side.unit.speed)
            );
            single::chain(name, desc, vec![pool], vec![need])
        }
        Scenario::PickUp { side, sprinted } => {
            graded(name, side, Test::PickUp, -(*sprinted as i32), rules)
        }
        Scenario::StandUp { side } => graded(name, side, Test::StandUp, 0, rules),
        Scenario::PickUpThrow {
            side,
            sprinted,
            range,
            moved,
            strike_hex,
        } => {
            let pick = side.pool(Test::PickUp, b, -(*sprinted as i32), rules);
            let throw = side.throw_pool(*range, *moved, *strike_hex, rules);
            throw::pick_up_throw(name, side, pick, throw, *range)
        }
        Scenario::Throw {
            side,
            range,
            moved,
            strike_hex,
        } => {
            let pool = side.throw_pool(*range, *moved, *strike_hex, rules);
            let at = if *strike_hex {
                " at the Strike hex"
            } else {
                ""
            };
            let desc = side.describe(&format!("throws {range} hexes{at}"), &pool, Test::Throw);
            single::throw(name, desc, pool)
        }
        Scenario::Pass {
            thrower,
            catcher,
            range,
            moved,
        } => throw::pass(name, thrower, catcher, *range, *moved, rules),
        Scenario::Slam {
            attacker,
            defender,
            response,
            moved_adjacent,
            ..
        } => {
            let a = attacker.pool(Test::Slam, b, *moved_adjacent as i32, rules);
            opposed::opposed(name, "slams", attacker, defender, a, *response, rules)
        }
        Scenario::Steal {
            attacker,
            defender,
            response,
            ..
        } => {
            let a = attacker.pool(Test::Steal, b, 0, rules);
            opposed::opposed(name, "steals from", attacker, defender, a, *response, rules)
        }
        Scenario::Play(play) => play::compile(name, play, rules),
        Scenario::Armour { side, hits } => {
            let pool = side.pool(Test::Armour, b, 0, rules);
            let desc = format!(
                "{} takes {hits} hits: armour check {}",
                side.unit.name,
                describe_pool(&pool, side.unit.armour)
            );
            single::armour(name, desc, pool, *hits)
        }
    }
}

/// Successes a (123) test needs after `prior` earlier (123) tests of the same action:
/// one more than those under `escalation = "shared"`, always 1 under `"per_test"`.
fn need_after(prior: u32, rules: &Rules) -> u32 {
    match rules.escalation {
        Escalation::Shared => prior + 1,
        Escalation::PerTest => 1,
    }
}

/// `dashes` Dashes, the k-th needing k successes, then maybe an Evade; each test with
/// the threat of the hex it leaves where the designer gave them.
fn dash(
    name: &str,
    side: &Side,
    dashes: u32,
    then_evade: bool,
    hex_threats: &[u32],
    rules: &Rules,
) -> Compiled {
    let b = rules.base_dice;
    let at = |i: usize| Side {
        threat: hex_threats.get(i).copied().unwrap_or(side.threat),
        ..side.clone()
    };
    let pool = side.pool(Test::Dash, b, 0, rules);
    let mut needs: Vec<u32> = (1..=dashes).collect();
    let mut pools: Vec<Pool> = (0..dashes as usize)
        .map(|i| at(i).pool(Test::Dash, b, 0, rules))
        .collect();
    if then_evade {
        needs.push(need_after(dashes, rules));
        pools.push(at(dashes as usize).pool(Test::Evade, b, 0, rules));
    }
    let chain_of = crate::text::plural(dashes as u64, "Dash", "Dashes");
    let what = if then_evade {
        format!("{chain_of} then an Evade")
    } else {
        format!("a chain of {chain_of}")
    };
    let desc = if hex_threats.is_empty() {
        format!(
            "{} makes {what}: {} per test, needing {:?} successes; a failed test = falls over",
            side.unit.name,
            describe_pool(&pool, side.unit.speed),
            needs
        )
    } else {
        format!(
            "{} makes {what} past threats {:?}: dice {:?} at {}+, needing {:?} successes; a failed test = falls over",
            side.unit.name,
            hex_threats,
            pools.iter().map(|p| p.dice).collect::<Vec<_>>(),
            side.unit.speed,
            needs
        )
    };
    single::chain(name, desc, pools, needs)
}

/// A (1) test graded 0 / 1 / 2+ successes: the Pick Up (-1 die after a Sprint, as
/// `situational`) and the Stand Up.
fn graded(name: &str, side: &Side, test: Test, situational: i32, rules: &Rules) -> Compiled {
    let (does, labels, headline) = match test {
        Test::PickUp => (
            "picks up the ball",
            ["ball scatters", "picked up", "picked up + free action"],
            "P(picks up)",
        ),
        _ => (
            "stands up",
            ["stays down", "stands", "stands + free action"],
            "P(stands)",
        ),
    };
    let pool = side.pool(test, rules.base_dice, situational, rules);
    let desc = side.describe(does, &pool, test);
    single::graded(name, desc, pool, labels, headline)
}

/// Probability that a pool sits in its saturated top bucket (0 without explosions).
fn capped<W: Prob>(pmf: &Pmf<W>, pool: &Pool) -> f64 {
    if pool.exploding() {
        pmf.p(pool.cap as usize).to_f64()
    } else {
        0.0
    }
}

/// The pmfs of a scenario's pools as its tests reach them, and the mass they leave in
/// their capped top buckets (the scenario's `capped_mass`).
#[derive(Default)]
struct Tally {
    /// Chance that some roll ended in its capped top bucket.
    capped: f64,
    /// Not kept: the exact code run again for its fractions, whose capped mass is the
    /// floats' run's.
    unkept: bool,
}

impl Tally {
    /// A tally for a run whose capped mass is not reported.
    fn unkept() -> Tally {
        Tally {
            capped: 0.0,
            unkept: true,
        }
    }

    /// The pmf of `pool`, rolled with chance `reach` (in floats or whole numbers: the
    /// capped mass is reported as a float either way).
    fn pmf<W: Prob>(&mut self, pool: &Pool, reach: &W) -> Pmf<W> {
        let pmf = pool_pmf_of(pool);
        if pool.exploding() && !self.unkept {
            self.capped += reach.to_f64() * capped(&pmf, pool);
        }
        pmf
    }
}

/// Is `w` successes against `l` (with `w > l`) a double?
#[inline]
pub fn is_double(rule: DoubleRule, w: u32, l: u32) -> bool {
    match rule {
        DoubleRule::Twice => w >= 2 * l,
        DoubleRule::Margin2 => w - l >= 2,
    }
}

/// The opposed-test outcome in state order: draw, win, double, lose, lose to a double.
#[inline]
pub fn classify(rule: DoubleRule, a: u32, d: u32) -> usize {
    if a == d {
        0
    } else if a > d {
        1 + is_double(rule, a, d) as usize
    } else {
        3 + is_double(rule, d, a) as usize
    }
}
