//! `rush`: the hex sports game (rules: docs/games/rush.md).
//!
//! Success-counting d6 pools. Modifiers change the number of dice, never the target.
//! Every scenario kind below has a sampler that rolls the dice literally and an exact
//! distribution over the same states.

/// A whole play: the tests of this module in sequence.
pub mod play;

use crate::cancel::Cancel;
use crate::exact::{pool_pmf, Pmf};
use crate::kernels::{pow6, Digits, ExplodingPools, Packed4, Pool, Rng, WORD_DICE};
use crate::model::{Compiled, Headline, Metric, Radix, Trial};

/// A unit's role; each grants +1 die on its own tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Striker,
    Jack,
    Guard,
}

/// When an opposed win is a "double".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub double_rule: DoubleRule,
    pub escalation: Escalation,
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
    pub id: String,
    pub name: String,
    pub movement: u32,
    pub strength: u8,
    pub speed: u8,
    pub skill: u8,
    pub armour: u8,
    pub role: Role,
}

/// Every dice test of the rules (docs/games/rush.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    Dash,
    Evade,
    PickUp,
    Slam,
    Slamback,
    Dodge,
    Steal,
    Throw,
    Catch,
    StandUp,
    Armour,
}

impl Test {
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

    pub fn pool(&self, test: Test, base: u32, situational: i32, rules: &Rules) -> Pool {
        Pool::new(
            self.dice(test, base, situational, rules),
            test.stat(&self.unit),
            rules.explode_on,
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
        .map(|(_, (r, _, p))| format!("{} would give {:.1}%", response_name(*r), 100.0 * p))
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
        side: Side,
        dashes: u32,
        then_evade: bool,
        /// The threat on each hex the chain leaves, one per Dash (and one for the Evade);
        /// empty: the side's `threat` on every test.
        hex_threats: Vec<u32>,
    },
    /// An Evade after `prior_tests` earlier (123) tests of the same action.
    Evade {
        side: Side,
        prior_tests: u32,
    },
    PickUp {
        side: Side,
        sprinted: bool,
    },
    StandUp {
        side: Side,
    },
    /// Pick Up, and with 2+ successes the free Throw ("Pick Up then Throw").
    PickUpThrow {
        side: Side,
        sprinted: bool,
        range: u32,
        /// Whether the unit moved this action before the Throw (-1 die).
        moved: bool,
        strike_hex: bool,
    },
    Throw {
        side: Side,
        range: u32,
        moved: bool,
        strike_hex: bool,
    },
    /// Throw then Catch, the Catch pool chained from the Throw's successes.
    Pass {
        thrower: Side,
        catcher: Side,
        range: u32,
        moved: bool,
    },
    Slam {
        attacker: Side,
        defender: Side,
        response: Response,
        moved_adjacent: bool,
        /// `response = "best"`: the responses the defender may choose from (it takes the
        /// one worst for the slammer); empty: `response` as written.
        best_of: Vec<Response>,
    },
    Steal {
        attacker: Side,
        defender: Side,
        response: Response,
        best_of: Vec<Response>,
    },
    /// An armour check against a given number of hits.
    Armour {
        side: Side,
        hits: u32,
    },
    /// A whole play, from the Dashes to the Throw at the Strike hex.
    Play(Box<play::Play>),
}

/// The opposed-test result labels, in state order.
fn opposed_labels(response: Response) -> [&'static str; 5] {
    match response {
        Response::Slamback => ["draw", "win", "double", "slamback win", "slamback double"],
        Response::Dodge => ["draw", "win", "double", "dodge win", "dodge double"],
    }
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
        } => {
            // Each test with the threat of its own hex, where the designer gave them.
            let at = |i: usize| Side {
                threat: hex_threats.get(i).copied().unwrap_or(side.threat),
                ..side.clone()
            };
            let pool = side.pool(Test::Dash, b, 0, rules);
            let mut needs: Vec<u32> = (1..=*dashes).collect();
            let mut pools: Vec<Pool> = (0..*dashes as usize)
                .map(|i| at(i).pool(Test::Dash, b, 0, rules))
                .collect();
            if *then_evade {
                let evade = at(*dashes as usize).pool(Test::Evade, b, 0, rules);
                needs.push(match rules.escalation {
                    Escalation::Shared => dashes + 1,
                    Escalation::PerTest => 1,
                });
                pools.push(evade);
            }
            let what = if *then_evade {
                format!(
                    "{} then an Evade",
                    crate::text::plural(*dashes as u64, "Dash", "Dashes")
                )
            } else {
                format!(
                    "a chain of {}",
                    crate::text::plural(*dashes as u64, "Dash", "Dashes")
                )
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
            chain(name, desc, pools, needs)
        }
        Scenario::Evade { side, prior_tests } => {
            let pool = side.pool(Test::Evade, b, 0, rules);
            let need = match rules.escalation {
                Escalation::Shared => prior_tests + 1,
                Escalation::PerTest => 1,
            };
            let desc = format!(
                "{} evades (after {prior_tests} earlier (123) tests): {}, needs {need}",
                side.unit.name,
                describe_pool(&pool, side.unit.speed)
            );
            chain(name, desc, vec![pool], vec![need])
        }
        Scenario::PickUp { side, sprinted } => {
            let pool = side.pool(Test::PickUp, b, -(*sprinted as i32), rules);
            let desc = format!(
                "{} picks up the ball: {}",
                side.unit.name,
                describe_pool(&pool, side.unit.skill)
            );
            graded(
                name,
                desc,
                pool,
                ["ball scatters", "picked up", "picked up + free action"],
                "P(picks up)",
            )
        }
        Scenario::StandUp { side } => {
            let pool = side.pool(Test::StandUp, b, 0, rules);
            let desc = format!(
                "{} stands up: {}",
                side.unit.name,
                describe_pool(&pool, side.unit.speed)
            );
            graded(
                name,
                desc,
                pool,
                ["stays down", "stands", "stands + free action"],
                "P(stands)",
            )
        }
        Scenario::PickUpThrow {
            side,
            sprinted,
            range,
            moved,
            strike_hex,
        } => {
            let pick = side.pool(Test::PickUp, b, -(*sprinted as i32), rules);
            let throw = side.throw_pool(*range, *moved, *strike_hex, rules);
            pick_up_throw(name, side, pick, throw, *range)
        }
        Scenario::Throw {
            side,
            range,
            moved,
            strike_hex,
        } => {
            let pool = side.throw_pool(*range, *moved, *strike_hex, rules);
            let desc = format!(
                "{} throws {range} hexes{}: {}",
                side.unit.name,
                if *strike_hex {
                    " at the Strike hex"
                } else {
                    ""
                },
                describe_pool(&pool, side.unit.skill)
            );
            let trial = Single(pool);
            let cap = pool.cap as usize;
            let map: Vec<u16> = (0..=cap).map(|s| (s >= 1) as u16).collect();
            Compiled::new(
                name,
                desc,
                Box::new(trial),
                vec![
                    Metric::categorical(
                        "result",
                        "0 successes = inaccurate (scatters), 1+ = accurate",
                        &["inaccurate", "accurate"],
                        map,
                    ),
                    successes_metric("throw_successes", &pool),
                ],
                Headline {
                    label: "P(accurate)".into(),
                    metric: 0,
                    values: vec![1],
                },
            )
            .exact(Some(pool_pmf(&pool).0))
            .capped(capped(&pool_pmf(&pool), &pool), None)
        }
        Scenario::Pass {
            thrower,
            catcher,
            range,
            moved,
        } => pass(name, thrower, catcher, *range, *moved, rules),
        Scenario::Slam {
            attacker,
            defender,
            response,
            moved_adjacent,
            ..
        } => {
            let a = attacker.pool(Test::Slam, b, *moved_adjacent as i32, rules);
            opposed(name, "slams", attacker, defender, a, *response, rules)
        }
        Scenario::Steal {
            attacker,
            defender,
            response,
            ..
        } => {
            let a = attacker.pool(Test::Steal, b, 0, rules);
            opposed(name, "steals from", attacker, defender, a, *response, rules)
        }
        Scenario::Play(play) => play::compile(name, play, rules),
        Scenario::Armour { side, hits } => {
            let pool = side.pool(Test::Armour, b, 0, rules);
            let cap = pool.cap as usize;
            let desc = format!(
                "{} takes {hits} hits: armour check {}",
                side.unit.name,
                describe_pool(&pool, side.unit.armour)
            );
            let turns: Vec<u16> = (0..=cap)
                .map(|s| hits.saturating_sub(s as u32) as u16)
                .collect();
            let pmf = pool_pmf(&pool);
            Compiled::new(
                name,
                desc,
                Box::new(Single(pool)),
                vec![
                    Metric::numeric(
                        "turns_out_of_play",
                        "hits not cancelled by armour successes (0 = only knocked down)",
                        *hits as usize + 1,
                        turns,
                    ),
                    successes_metric("armour_successes", &pool),
                ],
                Headline {
                    label: "P(0 turns out)".into(),
                    metric: 0,
                    values: vec![0],
                },
            )
            .exact(Some(pmf.0.clone()))
            .capped(capped(&pmf, &pool), None)
        }
    }
}

/// Probability that a pool sits in its saturated top bucket (0 without explosions).
fn capped(pmf: &Pmf, pool: &Pool) -> f64 {
    if pool.exploding() {
        pmf.p(pool.cap as usize)
    } else {
        0.0
    }
}

fn successes_metric(name: &str, pool: &Pool) -> Metric {
    let cap = pool.cap as usize;
    Metric::numeric(
        name,
        "successes rolled",
        cap + 1,
        (0..=cap as u16).collect(),
    )
    .fold_top(pool.exploding())
}

/// A (1) test graded 0 / 1 / 2+ successes.
fn graded(name: &str, desc: String, pool: Pool, labels: [&str; 3], headline: &str) -> Compiled {
    let cap = pool.cap as usize;
    let map: Vec<u16> = (0..=cap).map(|s| s.min(2) as u16).collect();
    let pmf = pool_pmf(&pool);
    Compiled::new(
        name,
        desc,
        Box::new(Single(pool)),
        vec![
            Metric::categorical("result", "0 successes / 1 / 2 or more", &labels, map),
            successes_metric("successes", &pool),
        ],
        Headline {
            label: headline.into(),
            metric: 0,
            values: vec![1, 2],
        },
    )
    .capped(capped(&pmf, &pool), None)
    .exact(Some(pmf.0))
}

/// One pool; the state is its successes.
struct Single(Pool);

impl Trial for Single {
    fn states(&self) -> usize {
        self.0.cap as usize + 1
    }
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        self.0.roll(rng) as usize
    }
}

/// Consecutive (123) tests of one action; the state is how many passed before the first
/// failure (the unit falls over in that hex) or all of them.
struct Chain {
    pools: Vec<Pool>,
    needs: Vec<u32>,
}

impl Trial for Chain {
    fn states(&self) -> usize {
        self.pools.len() + 1
    }
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        for (i, (p, &need)) in self.pools.iter().zip(&self.needs).enumerate() {
            if p.roll(rng) < need {
                return i;
            }
        }
        self.pools.len()
    }
}

fn chain(name: &str, desc: String, pools: Vec<Pool>, needs: Vec<u32>) -> Compiled {
    let k = pools.len();
    let mut exact = vec![0.0; k + 1];
    let mut reach = 1.0;
    let mut capped_mass = 0.0;
    for (i, (p, &need)) in pools.iter().zip(&needs).enumerate() {
        let pmf = pool_pmf(p);
        capped_mass += reach * capped(&pmf, p);
        let pass = pmf.at_least(need as usize);
        exact[i] = reach * (1.0 - pass);
        reach *= pass;
    }
    exact[k] = reach;
    let fell: Vec<u16> = (0..=k).map(|s| (s == k) as u16).collect();
    Compiled::new(
        name,
        desc,
        Box::new(Chain { pools, needs }),
        vec![
            Metric::categorical(
                "result",
                "whether every test of the action passed",
                &["falls over", "stays up"],
                fell,
            ),
            Metric::numeric(
                "tests_passed",
                "tests passed before the first failure",
                k + 1,
                (0..=k as u16).collect(),
            ),
        ],
        Headline {
            label: "P(stays up)".into(),
            metric: 0,
            values: vec![1],
        },
    )
    .exact(Some(exact))
    .capped(capped_mass, None)
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

/// Slam or Steal against Slamback or Dodge, through to the armour check.
/// State: (actor successes, responder successes, turns out of play of whoever was
/// knocked down).
struct Opposed {
    a: Pool,
    d: Pool,
    /// Armour tested by nobody (no dice), by the responder (knocked down by the
    /// actor's double) and by the actor (knocked down by a Slamback double).
    armours: [Pool; 3],
    rule: DoubleRule,
    responder_knocks_down: bool,
    /// Whether the actor's double knocks down (Slam yes, Steal takes the ball instead).
    actor_knocks_down: bool,
    radix: [usize; 3],
    /// Both sides from one group of dice, when they are small enough.
    joint: Option<Joint>,
    /// All four pools from one draw, when they are small enough.
    packed: Option<Packed4>,
    /// The actor's, the responder's, the responder's armour and the actor's armour,
    /// read through tables when they explode.
    exploding: Option<ExplodingPools>,
    /// For the packed path, per (a, d) with a, d <= 5: the state of (a, d, 0) in the low
    /// 16 bits, the hits in bits 16..24, whose armour applies in bits 24..: 0 none,
    /// 1 the responder's, 2 the actor's. Replaces the outcome branches with one lookup.
    outcome: [u32; 36],
    /// The same for the exploding pools' successes (each below 32), at `a * 32 + d`.
    wide: Box<[u32]>,
}

impl Opposed {
    /// Whom `a` successes against `d` knock down, as [`classify`] reads the double but
    /// without a branch on the dice: the hits, and 0 (nobody), 1 (the responder) or 2
    /// (the actor).
    #[inline(always)]
    fn knocked(&self, a: u32, d: u32) -> (u32, usize) {
        let (w, l) = (a.max(d), a.min(d));
        let double = (w > l)
            & match self.rule {
                DoubleRule::Twice => w >= 2 * l,
                DoubleRule::Margin2 => w - l >= 2,
            };
        let down_d = double & (a > d) & self.actor_knocks_down;
        let down_a = double & (d > a) & self.responder_knocks_down;
        (
            (w - l) * (down_d | down_a) as u32,
            down_d as usize + 2 * down_a as usize,
        )
    }

    /// Per (a, d), at `a * side + d`: the state of (a, d, 0) in the low 16 bits, the hits
    /// in bits 16..24, whose armour applies in bits 24..: 0 none, 1 the responder's, 2 the
    /// actor's.
    fn outcome_table(&self, side: u32) -> Vec<u32> {
        let mut t = vec![0u32; (side * side) as usize];
        for a in 0..side {
            for d in 0..side {
                let base = (a as usize * self.radix[1] + d as usize) * self.radix[2];
                if a as usize >= self.radix[0] || d as usize >= self.radix[1] {
                    continue; // unreachable for these pools
                }
                let (hits, which) = match classify(self.rule, a, d) {
                    2 if self.actor_knocks_down => (a - d, 1),
                    4 if self.responder_knocks_down => (d - a, 2),
                    _ => (0, 0),
                };
                t[(a * side + d) as usize] = base as u32 | hits << 16 | which << 24;
            }
        }
        t
    }
}

/// The trial of an opposed test, with whichever fast path its pools allow.
fn opposed_trial(
    a: Pool,
    d: Pool,
    d_armour: Pool,
    a_armour: Pool,
    rules: &Rules,
    responder_knocks_down: bool,
    actor_knocks_down: bool,
) -> Opposed {
    let (ca, cd) = (a.cap as usize, d.cap as usize);
    let mut o = Opposed {
        a,
        d,
        armours: [
            Pool {
                dice: 0,
                ..d_armour
            },
            d_armour,
            a_armour,
        ],
        rule: rules.double_rule,
        responder_knocks_down,
        actor_knocks_down,
        radix: [ca + 1, cd + 1, ca.max(cd) + 1],
        joint: None,
        packed: Packed4::new([&a, &d, &d_armour, &a_armour]),
        exploding: ExplodingPools::new([a, d, d_armour, a_armour]).filter(|p| {
            a.exploding()
                && p.dice(0) + p.dice(1) <= WORD_DICE
                && p.dice(2) + p.dice(3) <= WORD_DICE
        }),
        outcome: [0; 36],
        wide: Box::new([]),
    };
    o.outcome = o.outcome_table(6).try_into().expect("36 outcomes");
    o.wide = o.outcome_table(32).into();
    o.joint = Joint::new(&o);
    o
}

/// Both sides' dice as one group when they are six or fewer and nothing explodes: one
/// multiplication and one lookup give the opposed result, and one more of each the turns
/// out of play after the armour check of whoever was knocked down. A trial reads few
/// enough dice that two share a word of the generator.
struct Joint {
    /// `6^(a + d)`.
    pow: u64,
    /// Per joint face index: the state of (a, d, 0) in the low 16 bits and, above them,
    /// where the armour row for this outcome starts in `turns`.
    table: Box<[u32]>,
    /// `6^k` for the most armour dice `k` either side rolls: every trial reads that
    /// many, so no read waits on a lookup.
    arm_pow: u64,
    /// Row `which * 8 + hits`: turns out of play, `hits` less the saves among the first
    /// dice of the armour pool of nobody (0), the responder (1) or the actor (2).
    turns: Box<[u8]>,
    /// Dice one trial reads at most.
    dice: u32,
}

/// Dice a word is drawn for when two trials share it: 6^22 leaves a rejection rate under
/// 1%, where 6^24 would redraw a word in five.
const PAIR_DICE: u32 = 22;

impl Joint {
    fn new(o: &Opposed) -> Option<Joint> {
        let [none, d_arm, a_arm] = o.armours;
        let small = [o.a, o.d, d_arm, a_arm].iter().all(|p| p.small());
        let (na, nd) = (o.a.dice, o.d.dice);
        if !small || na + nd > 6 {
            return None;
        }
        // Faces of `dice` dice numbered `x` that show `on` or more.
        let count = |mut x: u64, dice: u32, on: u8| {
            let mut n = 0;
            for _ in 0..dice {
                n += (x % 6 + 1 >= on as u64) as u32;
                x /= 6;
            }
            n
        };
        let k = d_arm.dice.max(a_arm.dice);
        let arm_pow = pow6(k);
        let (pow_d, outcome) = (pow6(nd), o.outcome_table(6));
        let table = (0..pow6(na + nd))
            .map(|x| {
                let a = count(x / pow_d, na, o.a.success_on);
                let d = count(x % pow_d, nd, o.d.success_on);
                let e = outcome[(a * 6 + d) as usize];
                let (base, hits, which) = (e & 0xffff, (e >> 16) & 0xff, e >> 24);
                base | ((which * 8 + hits) * arm_pow as u32) << 16
            })
            .collect();
        let turns = [none, d_arm, a_arm]
            .iter()
            .flat_map(|p| {
                (0..8).flat_map(move |hits: u32| {
                    (0..arm_pow).map(move |x| {
                        let saved = count(x / pow6(k - p.dice), p.dice, p.success_on);
                        hits.saturating_sub(saved) as u8
                    })
                })
            })
            .collect();
        Some(Joint {
            pow: pow6(na + nd),
            table,
            arm_pow,
            turns,
            dice: na + nd + k,
        })
    }

    #[inline(always)]
    fn trial(&self, w: &mut Digits) -> usize {
        let e = self.table[w.take(self.pow)];
        let turns = self.turns[(e >> 16) as usize + w.take(self.arm_pow)];
        (e & 0xffff) as usize + turns as usize
    }
}

impl Trial for Opposed {
    fn states(&self) -> usize {
        self.radix.iter().product()
    }
    /// Its trials take nanoseconds: a chunk ends well within a stop's half second, so
    /// `_stop` is left to the chunk loop.
    fn run_chunk(&self, rng_out: &mut Rng, trials: u64, hist: &mut [u64], _stop: &Cancel) {
        // A local generator, as the default `run_chunk` explains.
        let mut local = rng_out.clone();
        let rng = &mut local;
        match &self.joint {
            Some(j) if 2 * j.dice <= PAIR_DICE => {
                for _ in 0..trials / 2 {
                    let mut w = Digits::draw(rng, PAIR_DICE);
                    hist[j.trial(&mut w)] += 1;
                    hist[j.trial(&mut w)] += 1;
                }
                if trials % 2 == 1 {
                    hist[self.sample(rng)] += 1;
                }
            }
            _ => {
                for _ in 0..trials {
                    hist[self.sample(rng)] += 1;
                }
            }
        }
        *rng_out = local;
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        if let Some(j) = &self.joint {
            return j.trial(&mut Digits::draw(rng, j.dice));
        }
        if let Some(p) = &self.packed {
            let [a, d, d_arm, a_arm] = p.roll(rng);
            let e = self.outcome[(a * 6 + d) as usize];
            let hits = (e >> 16) & 0xff;
            let arm = [0, d_arm, a_arm][(e >> 24) as usize];
            return (e & 0xffff) as usize + hits.saturating_sub(arm) as usize;
        }
        if let Some(p) = &self.exploding {
            // Both sides from one word, both armour rolls from another, and the one
            // that counts picked after: four independent chains of work, no branch on
            // the dice but the rare long explosion.
            let mut w = Digits::draw(rng, WORD_DICE);
            let (a, pa) = p.roll(0, &mut w);
            let (d, pd) = p.roll(1, &mut w);
            let mut w = Digits::draw(rng, WORD_DICE);
            let (d_arm, pda) = p.roll(2, &mut w);
            let (a_arm, paa) = p.roll(3, &mut w);
            let mut s = [a, d, d_arm, a_arm];
            if pa + pd + pda + paa > 0 {
                for (i, pending) in [pa, pd, pda, paa].into_iter().enumerate() {
                    s[i] = p.finish(i, rng, s[i], pending);
                }
            }
            let [a, d, d_arm, a_arm] = s;
            let e = self.wide[((a << 5 | d) & 1023) as usize];
            let hits = (e >> 16) & 0xff;
            let turns = hits.saturating_sub([0, d_arm, a_arm][(e >> 24) as usize & 3]);
            return (e & 0xffff) as usize + turns as usize;
        }
        let a = self.a.roll(rng);
        let d = self.d.roll(rng);
        // The pool of no dice rolls nothing when nobody is knocked down.
        let (hits, which) = self.knocked(a, d);
        let turns = hits.saturating_sub(self.armours[which].roll(rng));
        (a as usize * self.radix[1] + d as usize) * self.radix[2] + turns as usize
    }
}

fn opposed(
    name: &str,
    verb: &str,
    attacker: &Side,
    defender: &Side,
    a: Pool,
    response: Response,
    rules: &Rules,
) -> Compiled {
    let b = rules.base_dice;
    let slam = verb == "slams";
    let (rtest, rstat) = match response {
        Response::Slamback => (Test::Slamback, defender.unit.strength),
        Response::Dodge => (Test::Dodge, defender.unit.speed),
    };
    let d = defender.pool(rtest, b, 0, rules);
    let d_armour = defender.pool(Test::Armour, b, 0, rules);
    let a_armour = attacker.pool(Test::Armour, b, 0, rules);
    let (ca, cd) = (a.cap as usize, d.cap as usize);
    let radix = [ca + 1, cd + 1, ca.max(cd) + 1];
    let rx = Radix(radix.to_vec());
    let responder_knocks_down = response == Response::Slamback;
    let actor_knocks_down = slam;

    // Exact: independent pools, then the armour check of whoever a double knocked down.
    let (pa, pd) = (pool_pmf(&a), pool_pmf(&d));
    let (arm_d, arm_a) = (pool_pmf(&d_armour), pool_pmf(&a_armour));
    let mut exact = vec![0.0; rx.size()];
    for (x, &p1) in pa.0.iter().enumerate() {
        for (y, &p2) in pd.0.iter().enumerate() {
            let p = p1 * p2;
            if p == 0.0 {
                continue;
            }
            let class = classify(rules.double_rule, x as u32, y as u32);
            let armour = match class {
                2 if actor_knocks_down => Some((x - y, &arm_d)),
                4 if responder_knocks_down => Some((y - x, &arm_a)),
                _ => None,
            };
            match armour {
                Some((hits, arm)) => {
                    for (s, &q) in arm.0.iter().enumerate() {
                        exact[rx.encode(&[x, y, hits.saturating_sub(s)])] += p * q;
                    }
                }
                None => exact[rx.encode(&[x, y, 0])] += p,
            }
        }
    }
    let capped_mass = 1.0 - (1.0 - capped(&pa, &a)) * (1.0 - capped(&pd, &d));

    let states = rx.size();
    let mut result = Vec::with_capacity(states);
    let (mut a_turns, mut d_turns) = (Vec::with_capacity(states), Vec::with_capacity(states));
    let (mut a_succ, mut d_succ) = (Vec::with_capacity(states), Vec::with_capacity(states));
    for s in 0..states {
        let v = rx.decode(s);
        let class = classify(rules.double_rule, v[0] as u32, v[1] as u32);
        result.push(class as u16);
        a_succ.push(v[0] as u16);
        d_succ.push(v[1] as u16);
        d_turns.push(if class == 2 { v[2] as u16 } else { 0 });
        a_turns.push(if class == 4 { v[2] as u16 } else { 0 });
    }
    let (actor, target) = if slam {
        ("slammer", "target")
    } else {
        ("stealer", "target")
    };
    let effects = match (slam, response) {
        (true, Response::Slamback) => "win = push back; double = push back, knock down, armour check; slamback win = slammer pushed back; slamback double = slammer knocked down, armour check",
        (true, Response::Dodge) => "win = push back; double = push back, knock down, armour check; dodge win = turn to face; dodge double = free 1-hex move",
        (false, Response::Slamback) => "win = ball scatters; double = stealer takes the ball; slamback win = stealer pushed back; slamback double = stealer knocked down, armour check",
        (false, Response::Dodge) => "win = ball scatters; double = stealer takes the ball; dodge win = turn to face; dodge double = free 1-hex move",
    };
    let mut metrics = vec![
        Metric::categorical(
            "result",
            &format!("draw = both turn to face; {effects}"),
            &opposed_labels(response),
            result,
        ),
        Metric::numeric(
            &format!("{actor}_successes"),
            "successes rolled",
            ca + 1,
            a_succ,
        )
        .fold_top(a.exploding()),
        Metric::numeric(
            &format!("{target}_successes"),
            "successes rolled",
            cd + 1,
            d_succ,
        )
        .fold_top(d.exploding()),
    ];
    if actor_knocks_down {
        metrics.push(Metric::numeric(
            &format!("{target}_turns_out_of_play"),
            "turns the target spends out of play (0 when not knocked down or all hits saved)",
            radix[2],
            d_turns,
        ));
    }
    if responder_knocks_down {
        metrics.push(Metric::numeric(
            &format!("{actor}_turns_out_of_play"),
            "turns the actor spends out of play after a slamback double",
            radix[2],
            a_turns,
        ));
    }
    let desc = format!(
        "{} {verb} {}: {} vs {} {}",
        attacker.unit.name,
        defender.unit.name,
        describe_pool(
            &a,
            if slam {
                attacker.unit.strength
            } else {
                attacker.unit.speed
            }
        ),
        match response {
            Response::Slamback => "slamback",
            Response::Dodge => "dodge",
        },
        describe_pool(&d, rstat),
    );
    Compiled::new(
        name,
        desc,
        Box::new(opposed_trial(
            a,
            d,
            d_armour,
            a_armour,
            rules,
            responder_knocks_down,
            actor_knocks_down,
        )),
        metrics,
        Headline {
            label: format!("P({actor} wins)"),
            metric: 0,
            values: vec![1, 2],
        },
    )
    .exact(Some(exact))
    .capped(capped_mass, None)
}

/// Pick Up, then the free Throw that 2+ successes give. State: (pick-up successes
/// folded to 0 / 1 / 2+, throw successes); no Throw is rolled below 2.
struct PickThrow {
    pick: Pool,
    throw: Pool,
}

impl Trial for PickThrow {
    fn states(&self) -> usize {
        3 * (self.throw.cap as usize + 1)
    }
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        let p = self.pick.roll(rng).min(2) as usize;
        let t = if p == 2 {
            self.throw.roll(rng) as usize
        } else {
            0
        };
        p * (self.throw.cap as usize + 1) + t
    }
}

fn pick_up_throw(name: &str, side: &Side, pick: Pool, throw: Pool, range: u32) -> Compiled {
    let rx = Radix(vec![3, throw.cap as usize + 1]);
    let (pp, pt) = (pool_pmf(&pick), pool_pmf(&throw));
    let mut exact = vec![0.0; rx.size()];
    exact[rx.encode(&[0, 0])] = pp.p(0);
    exact[rx.encode(&[1, 0])] = pp.p(1);
    let p2 = pp.at_least(2);
    for (t, &q) in pt.0.iter().enumerate() {
        exact[rx.encode(&[2, t])] += p2 * q;
    }
    let capped_mass = capped(&pp, &pick) + p2 * capped(&pt, &throw);
    let mut result = Vec::new();
    let mut tsucc = Vec::new();
    for s in 0..rx.size() {
        let v = rx.decode(s);
        result.push(match v[0] {
            0 => 0,
            1 => 1,
            _ => 2 + (v[1] >= 1) as u16,
        });
        tsucc.push(v[1] as u16);
    }
    let desc = format!(
        "{} picks up ({}), then with 2+ throws {range} hexes ({})",
        side.unit.name,
        describe_pool(&pick, side.unit.skill),
        describe_pool(&throw, side.unit.skill)
    );
    Compiled::new(
        name,
        desc,
        Box::new(PickThrow { pick, throw }),
        vec![
            Metric::categorical(
                "result",
                "pick up 0 = scatters; 1 = picked up, action ends; 2+ = free Throw, 0 = inaccurate, 1+ = accurate",
                &["ball scatters", "picked up, no throw", "throw inaccurate", "throw accurate"],
                result,
            ),
            Metric::numeric("throw_successes", "successes rolled (0 when no throw)", rx.0[1], tsucc),
        ],
        Headline {
            label: "P(accurate throw)".into(),
            metric: 0,
            values: vec![3],
        },
    )
    .exact(Some(exact))
    .capped(capped_mass, None)
}

/// Throw then Catch. State: (throw successes, catch successes); no Catch is rolled after
/// an inaccurate throw.
struct PassTrial {
    throw: Pool,
    /// The Catch pool for each number of throw successes.
    catch: Vec<Pool>,
    catch_states: usize,
}

impl Trial for PassTrial {
    fn states(&self) -> usize {
        (self.throw.cap as usize + 1) * self.catch_states
    }
    #[inline]
    fn sample(&self, rng: &mut Rng) -> usize {
        let t = self.throw.roll(rng) as usize;
        let c = if t == 0 {
            0
        } else {
            self.catch[t].roll(rng) as usize
        };
        t * self.catch_states + c
    }
}

fn pass(
    name: &str,
    thrower: &Side,
    catcher: &Side,
    range: u32,
    moved: bool,
    rules: &Rules,
) -> Compiled {
    let throw = thrower.throw_pool(range, moved, false, rules);
    let ct = throw.cap as usize;
    let catch: Vec<Pool> = (0..=ct as u32)
        .map(|t| {
            let base = match rules.catch_pool {
                CatchPool::ThrowSuccesses => t,
                CatchPool::ThreePlusThrow => rules.base_dice + t,
            };
            catcher.pool(Test::Catch, base, 0, rules)
        })
        .collect();
    let catch_states = catch.iter().map(|p| p.cap as usize + 1).max().unwrap_or(1);
    let rx = Radix(vec![ct + 1, catch_states]);
    let pt = pool_pmf(&throw);
    let mut exact = vec![0.0; rx.size()];
    let mut capped_mass = capped(&pt, &throw);
    exact[rx.encode(&[0, 0])] = pt.p(0);
    for t in 1..=ct {
        let pc = pool_pmf(&catch[t]);
        capped_mass += pt.p(t) * capped(&pc, &catch[t]);
        for (c, &q) in pc.0.iter().enumerate() {
            exact[rx.encode(&[t, c])] += pt.p(t) * q;
        }
    }
    let mut result = Vec::new();
    let mut tsucc = Vec::new();
    for s in 0..rx.size() {
        let v = rx.decode(s);
        result.push(if v[0] == 0 { 0 } else { 1 + v[1].min(2) } as u16);
        tsucc.push(v[0] as u16);
    }
    let desc = format!(
        "{} passes {range} hexes to {}: throw {}, catch with {} dice at {}+",
        thrower.unit.name,
        catcher.unit.name,
        describe_pool(&throw, thrower.unit.skill),
        match rules.catch_pool {
            CatchPool::ThrowSuccesses => "the throw's successes as",
            CatchPool::ThreePlusThrow => "3 + the throw's successes as",
        },
        catcher.unit.skill
    );
    Compiled::new(
        name,
        desc,
        Box::new(PassTrial {
            throw,
            catch,
            catch_states,
        }),
        vec![
            Metric::categorical(
                "result",
                "throw 0 = inaccurate; catch 0 = scatters, 1 = caught, 2+ = caught + free Run or Throw",
                &["inaccurate", "dropped", "caught", "caught + free action"],
                result,
            ),
            Metric::numeric("throw_successes", "successes rolled", ct + 1, tsucc),
        ],
        Headline {
            label: "P(caught)".into(),
            metric: 0,
            values: vec![2, 3],
        },
    )
    .exact(Some(exact))
    .capped(capped_mass, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::chunk_rng;

    fn side(id: &str, strength: u8, armour: u8, extra_dice: i32) -> Side {
        Side {
            unit: Unit {
                id: id.into(),
                name: id.into(),
                movement: 5,
                strength,
                speed: 4,
                skill: 4,
                armour,
                role: Role::Jack,
            },
            threat: 0,
            extra_dice,
        }
    }

    /// Monte Carlo of `o` against its exact distribution (worked out pool by pool in
    /// `opposed`), every state within 4.5 SE.
    fn agrees(o: &Opposed, exact: &[f64], n: u64) {
        let mut hist = vec![0u64; Trial::states(o)];
        Trial::run_chunk(o, &mut chunk_rng(3, 9), n, &mut hist, &Cancel::new());
        // In counts, with one count of slack for the states too rare to expect one.
        for (s, (&c, &p)) in hist.iter().zip(exact).enumerate() {
            let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
            assert!(
                (c as f64 - mean).abs() < 4.5 * sd + 1.0,
                "state {s}: {c} vs {mean}"
            );
        }
    }

    fn compile_opposed(attacker: &Side, defender: &Side, rules: &Rules) -> (Opposed, Vec<f64>) {
        let a = attacker.pool(Test::Slam, rules.base_dice, 0, rules);
        let c = opposed(
            "t",
            "slams",
            attacker,
            defender,
            a,
            Response::Slamback,
            rules,
        );
        let exact = c.exact.clone().unwrap();
        (rebuild(attacker, defender, a, rules), exact)
    }

    /// The trial `opposed` builds, as its concrete type.
    fn rebuild(attacker: &Side, defender: &Side, a: Pool, rules: &Rules) -> Opposed {
        let b = rules.base_dice;
        let d = defender.pool(Test::Slamback, b, 0, rules);
        let d_armour = defender.pool(Test::Armour, b, 0, rules);
        let a_armour = attacker.pool(Test::Armour, b, 0, rules);
        opposed_trial(a, d, d_armour, a_armour, rules, true, true)
    }

    #[test]
    fn three_against_three_reads_both_sides_as_one_group() {
        let rules = Rules::default();
        let (x, y) = (side("x", 4, 4, 0), side("y", 3, 5, 0));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.joint.is_some(), "3 against 3 takes the joint path");
        agrees(&o, &exact, 1 << 20);
        // An odd count ends on a single trial: every trial is counted.
        let mut hist = vec![0u64; Trial::states(&o)];
        Trial::run_chunk(&o, &mut chunk_rng(1, 1), 1001, &mut hist, &Cancel::new());
        assert_eq!(hist.iter().sum::<u64>(), 1001);
    }

    #[test]
    fn exploding_slams_read_four_pools_through_tables() {
        let rules = Rules {
            explode_on: 6,
            ..Rules::default()
        };
        let (x, y) = (side("x", 3, 4, 2), side("y", 4, 4, 1));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.exploding.is_some() && o.joint.is_none());
        agrees(&o, &exact, 1 << 20);
    }

    #[test]
    fn big_exploding_slams_roll_die_group_by_die_group() {
        // Seven dice a side: past the tables, the branch-free pick of the armour.
        let rules = Rules {
            explode_on: 6,
            ..Rules::default()
        };
        let (x, y) = (side("x", 3, 4, 4), side("y", 4, 4, 4));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.exploding.is_none() && o.packed.is_none());
        agrees(&o, &exact, 1 << 19);
    }
}
