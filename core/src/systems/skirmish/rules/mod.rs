//! `skirmish`: the unit wargame (docs/games/skirmish.md).
//!
//! The rules give actions and modifiers but not the dice, so the resolution is config:
//! each attack die hits when `1dS + to-hit modifiers >= target value`, each hit makes a
//! defence die that saves at `defence` or better, and unsaved hits are casualties (at most
//! the models the unit has). An action and its reaction resolve simultaneously: both
//! sides roll at full strength and casualties come off afterwards, so the two sides'
//! casualties of one exchange are independent, each a binomial count of "hit and not
//! saved" dice. A unit that took casualties may have to pass a morale test or break.
//! Several rounds are a Markov chain over the models left and who broke.

mod combat;
mod exchange;
mod firefight;
mod morale;
mod volley;

#[cfg(test)]
mod testing;

pub use firefight::FirefightRules;
pub use volley::{plan_shots, Action};

use crate::kernels::{digit_from, digit_scales, FaceStream, Faces, Rng};
use crate::model::{Compiled, Group, Metric};
use crate::pmf::Prob;

/// How a test's die is read: pass at or under the number, or at or over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sense {
    /// Pass on a roll at or under the morale number (the default).
    AtMost,
    /// Pass on a roll at or over the morale number.
    AtLeast,
}

/// When a unit takes a morale test after an exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakTest {
    /// After any exchange in which it took casualties.
    Casualties,
    /// Never (morale only through the `morale` scenarios).
    Never,
}

/// How a charge or defend bonus counts in combat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CombatBonus {
    /// Added to the to-hit roll.
    ToHit,
    /// Extra attack dice.
    Dice,
}

/// The dice resolution a config chooses (the rules do not give one).
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Rules {
    /// Faces of every die (default 10).
    pub die: u32,
    /// A roll of this or more always hits (0: off).
    pub natural_hit: u32,
    /// A roll of this or less always misses (0: off).
    pub natural_miss: u32,
    /// Whether hits get a defence roll.
    pub saves: bool,
    /// Which way a morale test's die is read.
    pub morale_sense: Sense,
    /// When a unit takes a morale test after an exchange.
    pub break_test: BreakTest,
    /// Taken off the morale number per casualty of the exchange (per token for tokens).
    pub casualty_modifier: i32,
    /// Whether charge and defend bonuses add to the to-hit roll or add attack dice.
    pub combat_bonus: CombatBonus,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            die: 10,
            natural_hit: 0,
            natural_miss: 0,
            saves: true,
            morale_sense: Sense::AtMost,
            break_test: BreakTest::Casualties,
            casualty_modifier: 1,
            combat_bonus: CombatBonus::ToHit,
        }
    }
}

impl Rules {
    /// P(an attack die hits): `1dS + modifier >= target`, naturals first.
    pub fn p_hit<W: Prob>(&self, modifier: i32, target: i32) -> W {
        let hits = (1..=self.die)
            .filter(|&r| self.hits(r, modifier, target))
            .count();
        W::ratio(hits as u64, u64::from(self.die))
    }

    /// Whether one attack die's `roll` hits: a natural miss never does, a natural hit
    /// always does, else `roll + modifier >= target`.
    #[inline]
    pub fn hits(&self, roll: u32, modifier: i32, target: i32) -> bool {
        // Branch-free: a natural miss fails, else a natural hit or the total succeeds.
        let miss = (self.natural_miss > 0) & (roll <= self.natural_miss);
        let auto = (self.natural_hit > 0) & (roll >= self.natural_hit);
        !miss & (auto | (roll as i32 + modifier >= target))
    }

    /// The lowest roll that hits (`die + 1` if none does). [`Rules::hits`] is a
    /// threshold: a natural miss cuts off the low rolls, and both a natural hit and the
    /// total succeed from some roll upwards.
    pub fn hit_on(&self, modifier: i32, target: i32) -> u32 {
        let by_total = (target - modifier).max(1) as u32;
        let from = match self.natural_hit {
            0 => by_total,
            nh => by_total.min(nh),
        };
        from.max(self.natural_miss + 1).min(self.die + 1)
    }

    /// P(a defence die saves): `defence` or better.
    pub fn p_save<W: Prob>(&self, defence: u32) -> W {
        if !self.saves {
            return W::zero();
        }
        let saves = (1..=self.die).filter(|&r| r >= defence).count();
        W::ratio(saves as u64, u64::from(self.die))
    }

    /// P(a morale test passes) with `penalty` taken off the morale number.
    pub fn p_morale<W: Prob>(&self, morale: i32, penalty: i32) -> W {
        let passes = (1..=self.die)
            .filter(|&r| self.morale_passes(r, morale, penalty))
            .count();
        W::ratio(passes as u64, u64::from(self.die))
    }

    /// Whether a morale die's `roll` passes against `morale` with `penalty` taken off (a
    /// penalty makes the test harder whichever way the die is read).
    #[inline]
    pub fn morale_passes(&self, roll: u32, morale: i32, penalty: i32) -> bool {
        match self.morale_sense {
            Sense::AtMost => roll as i32 <= morale - penalty,
            Sense::AtLeast => roll as i32 >= morale + penalty,
        }
    }
}

/// A unit: its names and its numbers. The trials copy only the numbers ([`Stats`], with
/// fewer models) on every exchange, so a copy costs neither an allocation nor an atomic
/// count, and the names need no global table to be cheap.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The key of the unit's `[units.ID]` table.
    pub id: String,
    /// The name reports use.
    pub name: String,
    /// Its numbers (a unit derefs to them).
    pub stats: Stats,
}

impl std::ops::Deref for Unit {
    type Target = Stats;

    fn deref(&self) -> &Stats {
        &self.stats
    }
}

/// A unit's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Hash)]
pub struct Stats {
    /// Models in the unit; each casualty removes one.
    pub models: u32,
    /// Attack dice per model.
    pub attack_dice: u32,
    /// To-hit modifier when shooting.
    pub shoot: i32,
    /// To-hit modifier in combat.
    pub fight: i32,
    /// The total an enemy's to-hit roll must reach to hit this unit.
    pub target_value: i32,
    /// Saves at this or better.
    pub defence: u32,
    /// Cover bonus where the unit stands (added to its target value unless it runs).
    pub cover: i32,
    /// Whether the unit carries shields (a shield wall needs them).
    pub shields: bool,
    /// Added to its combat roll (or dice) when it charges from over half a move away.
    pub charge_bonus: i32,
    /// Added to its combat roll (or dice) when it defends against such a charge.
    pub defend_bonus: i32,
    /// The number its morale tests are rolled against.
    pub morale: i32,
    /// Standard move, in inches (read for the config; no scenario uses it yet).
    pub moves: u32,
    /// Running move, in inches (read for the config; no scenario uses it yet).
    pub run: u32,
}

impl Stats {
    /// Attack dice the whole unit rolls: models times dice per model.
    pub fn pool(&self) -> u32 {
        self.models * self.attack_dice
    }
}

/// A shooting target's reaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShotReaction {
    /// It takes the shot.
    None,
    /// It shoots at the shooter, simultaneously.
    ShootBack,
    /// +2 to its target value for the shot (cover still counts).
    GoToGround,
    /// It is running: target value 2 lower and no cover.
    Run,
}

impl ShotReaction {
    /// The config names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["none", "shoot_back", "go_to_ground", "run"];

    /// The config name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The reaction a config name means, if any.
    pub fn from_name(s: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|n| *n == s)?;
        Some(
            [
                ShotReaction::None,
                ShotReaction::ShootBack,
                ShotReaction::GoToGround,
                ShotReaction::Run,
            ][i],
        )
    }
}

/// A charged unit's reaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChargeReaction {
    /// No reaction: the target breaks and flees.
    None,
    /// It strikes back with its charge bonus (from over half a move).
    CounterCharge,
    /// It strikes back with its defend bonus (from over half a move).
    Defend,
    /// It re-rolls failed defence dice but strikes back with half its dice (shields only).
    ShieldWall,
}

impl ChargeReaction {
    /// The config names, in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["none", "counter_charge", "defend", "shield_wall"];

    /// The config name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The reaction a config name means, if any.
    pub fn from_name(s: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|n| *n == s)?;
        Some(
            [
                ChargeReaction::None,
                ChargeReaction::CounterCharge,
                ChargeReaction::Defend,
                ChargeReaction::ShieldWall,
            ][i],
        )
    }
}

/// What a `[scenarios.NAME]` table asks for, its units copied in.
#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// `shooter` shoots `target`, which reacts.
    Shoot {
        /// The unit that shoots.
        shooter: Unit,
        /// The unit shot at.
        target: Unit,
        /// Whether the shot is aimed (+2 to hit).
        aimed: bool,
        /// The target's reaction.
        reaction: ShotReaction,
        /// The decision table or profile this exchange is a row of, if any.
        group: Option<Group>,
    },
    /// `charger` charges `target`, which reacts; `over_half`: the enemy was over half its
    /// standard move away when the charge was declared (the bonuses apply).
    Charge {
        /// The unit that charges.
        charger: Unit,
        /// The unit charged.
        target: Unit,
        /// The target's reaction.
        reaction: ChargeReaction,
        /// Whether the charge came from over half a standard move (the bonuses apply).
        over_half: bool,
        /// The decision table or profile this exchange is a row of, if any.
        group: Option<Group>,
    },
    /// A rally or flee test of `unit` with `tokens` morale tokens.
    Morale {
        /// The unit that tests.
        unit: Unit,
        /// A rally test (a broken unit trying to recover) rather than a flee test.
        rally: bool,
        /// Morale tokens held; each takes `casualty_modifier` off the morale number.
        tokens: u32,
    },
    /// Rounds of shooting: each round `a` shoots with `b` reacting, then `b` shoots with
    /// `a` reacting, casualties off after each exchange, until a side is gone or broken.
    Firefight {
        /// The side that acts first each round.
        a: Unit,
        /// The side that acts second.
        b: Unit,
        /// How `a` answers `b`'s actions.
        a_reaction: ShotReaction,
        /// How `b` answers `a`'s actions.
        b_reaction: ShotReaction,
        /// Rounds of two actions each, at most.
        rounds: u32,
        /// Which of fatigue, tokens, Regroup and ready markers apply.
        economy: FirefightRules,
    },
    /// A charge, then combat round after round while both stay in contact: the first
    /// round is the charge exchange (its bonuses, its reaction), later rounds both strike
    /// simultaneously without bonuses; casualties and break tests after each round, until
    /// a side is gone or broken, or `rounds` have passed.
    Combat {
        /// The unit that charges.
        charger: Unit,
        /// The unit charged.
        target: Unit,
        /// The target's reaction to the charge (first round only).
        reaction: ChargeReaction,
        /// Whether the charge came from over half a standard move (the bonuses apply).
        over_half: bool,
        /// Combat rounds at most, the charge included.
        rounds: u32,
    },
    /// A turn of shooting actions by one unit at one target (`make_ready`, `aim`, `shoot`),
    /// the target answering every shot with `reaction`. Markers follow the rules: a unit
    /// shoots only with a ready marker, an aim marker adds +2 to its next shot, and a unit
    /// that is attacked (shot back at) loses both.
    Volley {
        /// The unit that acts.
        shooter: Unit,
        /// The unit shot at.
        target: Unit,
        /// The shooter's actions, in order.
        plan: Vec<Action>,
        /// The target's answer to every shot.
        reaction: ShotReaction,
    },
}

/// One side's attack in an exchange: dice, per-die P(hit), the defender's P(save) and
/// whether it re-rolls failed saves, and the most casualties it can cause.
#[derive(Clone, Copy, Debug, PartialEq, Hash)]
pub struct Attack {
    /// Attack dice rolled.
    pub dice: u32,
    /// Added to each to-hit roll.
    pub modifier: i32,
    /// The defender's target value for this attack (cover and reactions included).
    pub target: i32,
    /// The defender saves at this or better.
    pub defence: u32,
    /// Whether the defender re-rolls failed saves (a shield wall).
    pub reroll_saves: bool,
    /// The most casualties it can cause: the defender's models.
    pub cap: u32,
}

impl Attack {
    /// P(one die causes a casualty): it hits and the save fails (twice with a re-roll).
    pub fn p_casualty<W: Prob>(&self, rules: &Rules) -> W {
        let fail = W::one() - rules.p_save(self.defence);
        let fail = if self.reroll_saves {
            fail.clone() * fail
        } else {
            fail
        };
        rules.p_hit::<W>(self.modifier, self.target) * fail
    }

    /// Casualties, exactly: Binomial(dice, p) folded at `cap` (the models there are).
    pub fn pmf<W: Prob>(&self, rules: &Rules) -> Vec<W> {
        let b = W::binomial(self.dice, &self.p_casualty(rules)).0;
        let mut out = vec![W::zero(); self.cap as usize + 1];
        for (k, p) in b.into_iter().enumerate() {
            out[k.min(self.cap as usize)] += p;
        }
        out
    }

    /// Roll it: each die to hit, and its save die (and the re-roll's, when allowed),
    /// read only if it hit. Every die of the attack is rolled up front, so the count
    /// has no branch a processor could mispredict: a save rolled for a miss is never
    /// read, which leaves the distribution as written.
    #[inline(always)]
    pub fn roll(&self, rules: &Rules, d: &mut FaceStream, rng: &mut Rng) -> u32 {
        let mut n = 0;
        // Hitting is a threshold on the roll, so each die is two comparisons; its faces
        // (to hit, save, re-rolled save) come from one word at a time.
        let hit_on = rules.hit_on(self.modifier, self.target);
        let die = rules.die;
        if rules.saves && !self.reroll_saves && (2..=11).contains(&die) {
            return self.roll_pairs(hit_on, die, rng);
        }
        match (rules.saves, self.reroll_saves) {
            (false, _) => {
                for _ in 0..self.dice {
                    let [h] = d.roll_n(rng);
                    n += (h >= hit_on) as u32;
                }
            }
            (true, false) => {
                for _ in 0..self.dice {
                    let [h, s] = d.roll_n(rng);
                    n += ((h >= hit_on) & (s < self.defence)) as u32;
                }
            }
            (true, true) => {
                for _ in 0..self.dice {
                    let [h, s, r] = d.roll_n(rng);
                    n += ((h >= hit_on) & (s < self.defence) & (r < self.defence)) as u32;
                }
            }
        }
        n.min(self.cap)
    }

    /// [`Attack::roll`] with saves and no re-roll, on a die of at most 11 faces. Each
    /// die of the attack and its save die are two digits of one word (as a stream of
    /// `die^2`-faced dice would read them: the to-hit face the high digit, the save the
    /// low one), and each test is a comparison of the word brought to that digit with a
    /// threshold. No digit is extracted, and no die waits on the one before it.
    #[inline]
    fn roll_pairs(&self, hit_on: u32, die: u32, rng: &mut Rng) -> u32 {
        // A hit is a face of `hit_on` or more: a digit of `hit_on - 1` or more. A failed
        // save is a face below `defence`: a digit below `fails`, so a word of at most
        // the last word whose digit is `fails - 1`.
        let fails = self.defence.saturating_sub(1).min(die);
        let possible = hit_on <= die && fails > 0;
        let hit_from = digit_from(die, hit_on.clamp(1, die) - 1);
        let fail_to = if fails >= die {
            u64::MAX
        } else {
            digit_from(die, fails.max(1)) - 1
        };
        let scales = digit_scales(die);
        let pairs = Faces::new(die * die);
        // An attack that cannot cause a casualty still rolls its dice (and counts them,
        // to no use): the words it draws are those every other attack draws.
        let mut left = self.dice;
        let mut n = 0;
        while left > 0 {
            let r = pairs.word(rng);
            let k = left.min(pairs.per_word());
            for s in scales[..2 * k as usize].chunks_exact(2) {
                let hit = r.wrapping_mul(s[0]) >= hit_from;
                let fail = r.wrapping_mul(s[1]) <= fail_to;
                n += (hit & fail) as u32;
            }
            left -= k;
        }
        if possible {
            n.min(self.cap)
        } else {
            0
        }
    }
}

/// The target value of `u` when shot at, after its reaction: cover unless it runs, -2
/// when running, +2 gone to ground.
pub fn shot_target_value(u: &Stats, reaction: ShotReaction) -> i32 {
    match reaction {
        ShotReaction::Run => u.target_value - 2,
        ShotReaction::GoToGround => u.target_value + u.cover + 2,
        _ => u.target_value + u.cover,
    }
}

/// Both attacks of a shooting exchange: the shot, and the return fire if any.
pub fn shoot_attacks(
    shooter: &Stats,
    target: &Stats,
    aimed: bool,
    reaction: ShotReaction,
) -> (Attack, Option<Attack>) {
    let shot = Attack {
        dice: shooter.pool(),
        modifier: shooter.shoot + if aimed { 2 } else { 0 },
        target: shot_target_value(target, reaction),
        defence: target.defence,
        reroll_saves: false,
        cap: target.models,
    };
    let back = (reaction == ShotReaction::ShootBack).then(|| Attack {
        dice: target.pool(),
        modifier: target.shoot,
        target: shooter.target_value + shooter.cover,
        defence: shooter.defence,
        reroll_saves: false,
        cap: shooter.models,
    });
    (shot, back)
}

/// Both attacks of a charge: the charger's, and the target's unless it flees.
pub fn charge_attacks(
    charger: &Stats,
    target: &Stats,
    reaction: ChargeReaction,
    over_half: bool,
    rules: &Rules,
) -> (Attack, Option<Attack>) {
    let bonus = |b: i32| if over_half { b } else { 0 };
    let with = |u: &Stats, b: i32| -> (u32, i32) {
        match rules.combat_bonus {
            CombatBonus::ToHit => (u.pool(), u.fight + b),
            CombatBonus::Dice => ((u.pool() as i32 + b).max(0) as u32, u.fight),
        }
    };
    let (dice, modifier) = with(charger, bonus(charger.charge_bonus));
    let shield_wall = reaction == ChargeReaction::ShieldWall;
    let attack = Attack {
        dice,
        modifier,
        target: target.target_value,
        defence: target.defence,
        reroll_saves: shield_wall,
        cap: target.models,
    };
    let back = match reaction {
        ChargeReaction::None => None,
        r => {
            let b = match r {
                ChargeReaction::CounterCharge => bonus(target.charge_bonus),
                ChargeReaction::Defend => bonus(target.defend_bonus),
                _ => 0,
            };
            let (mut dice, modifier) = with(target, b);
            if shield_wall {
                dice /= 2; // halved, rounded down
            }
            Some(Attack {
                dice,
                modifier,
                target: charger.target_value,
                defence: charger.defence,
                reroll_saves: false,
                cap: charger.models,
            })
        }
    };
    (attack, back)
}

/// P(broken | casualties) for a unit that took `c` casualties in an exchange.
fn p_break<W: Prob>(u: &Stats, c: usize, rules: &Rules) -> W {
    if c == 0 || rules.break_test == BreakTest::Never || c as u32 >= u.models {
        return W::zero();
    }
    W::one() - rules.p_morale(u.morale, rules.casualty_modifier * c as i32)
}

fn breaks(u: &Stats, c: u32, rules: &Rules, d: &mut FaceStream, rng: &mut Rng) -> bool {
    if c == 0 || rules.break_test == BreakTest::Never || c >= u.models {
        return false;
    }
    !rules.morale_passes(d.roll(rng), u.morale, rules.casualty_modifier * c as i32)
}

/// A side's models at the end (of its starting models), each state's `at`-th digit.
fn models_left(key: &str, unit: &Unit, states: &[Vec<usize>], at: usize) -> Metric {
    Metric::numeric(
        key,
        &format!(
            "{} models at the end (of {})",
            crate::text::possessive(&unit.name),
            unit.models
        ),
        unit.models as usize + 1,
        states.iter().map(|v| v[at] as u16).collect(),
    )
}

/// Who a two-sided fight's end leaves standing, out = wiped out or broken: 0 the first
/// side won, 1 the second, 2 neither is out (still fighting), 3 both are out.
fn who_won(first_out: bool, second_out: bool) -> u16 {
    match (first_out, second_out) {
        (false, true) => 0,
        (true, false) => 1,
        (false, false) => 2,
        (true, true) => 3,
    }
}

/// The status digit of who broke: 1 a, 2 b, 3 both.
fn status_of(broke: [bool; 2]) -> u32 {
    broke[0] as u32 + 2 * broke[1] as u32
}

/// Compile one scenario under `rules`: each kind of scenario has its own module.
pub fn compile(name: &str, sc: &Scenario, rules: &Rules) -> Compiled {
    match sc {
        Scenario::Shoot {
            shooter,
            target,
            aimed,
            reaction,
            group,
        } => exchange::compile_shoot(
            name,
            shooter,
            target,
            *aimed,
            *reaction,
            group.clone(),
            rules,
        ),
        Scenario::Charge {
            charger,
            target,
            reaction,
            over_half,
            group,
        } => exchange::compile_charge(
            name,
            charger,
            target,
            *reaction,
            *over_half,
            group.clone(),
            rules,
        ),
        Scenario::Morale {
            unit,
            rally,
            tokens,
        } => morale::compile_morale(name, unit, *rally, *tokens, rules),
        Scenario::Combat {
            charger,
            target,
            reaction,
            over_half,
            rounds,
        } => combat::compile_combat(name, charger, target, *reaction, *over_half, *rounds, rules),
        Scenario::Volley {
            shooter,
            target,
            plan,
            reaction,
        } => volley::compile_volley(name, shooter, target, plan, *reaction, rules),
        Scenario::Firefight {
            a,
            b,
            a_reaction,
            b_reaction,
            rounds,
            economy,
        } => firefight::compile_firefight(
            name,
            a,
            b,
            *a_reaction,
            *b_reaction,
            *rounds,
            economy,
            rules,
        ),
    }
}

/// The models a unit loses, as a metric: `key` names it, `when` qualifies the loss
/// ("", " over the turn", " to return fire"); `map` takes each outcome to the count.
fn models_lost(key: &str, unit: &Unit, when: &str, map: Vec<u16>) -> Metric {
    Metric::numeric(
        key,
        &format!(
            "models {}{when} (of {})",
            crate::text::agrees(&unit.name, "loses", "lose"),
            unit.models
        ),
        unit.models as usize + 1,
        map,
    )
}
