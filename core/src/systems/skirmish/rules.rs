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

use crate::exact::binomial;
use crate::kernels::{FaceStream, Faces, Rng};
use crate::model::{Chart, Compiled, Group, Headline, Metric, Radix, Trial};

/// How a test's die is read: pass at or under the number, or at or over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    AtMost,
    AtLeast,
}

/// When a unit takes a morale test after an exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakTest {
    /// After any exchange in which it took casualties.
    Casualties,
    /// Never (morale only through the `morale` scenarios).
    Never,
}

/// How a charge or defend bonus counts in combat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombatBonus {
    /// Added to the to-hit roll.
    ToHit,
    /// Extra attack dice.
    Dice,
}

/// The dice resolution a config chooses (the rules do not give one).
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// Faces of every die (default 10).
    pub die: u32,
    /// A roll of this or more always hits (0: off).
    pub natural_hit: u32,
    /// A roll of this or less always misses (0: off).
    pub natural_miss: u32,
    /// Whether hits get a defence roll.
    pub saves: bool,
    pub morale_sense: Sense,
    pub break_test: BreakTest,
    /// Taken off the morale number per casualty of the exchange (per token for tokens).
    pub casualty_modifier: i32,
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
    pub fn p_hit(&self, modifier: i32, target: i32) -> f64 {
        let hits = (1..=self.die)
            .filter(|&r| self.hits(r, modifier, target))
            .count();
        hits as f64 / self.die as f64
    }

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
    pub fn p_save(&self, defence: u32) -> f64 {
        if !self.saves {
            return 0.0;
        }
        (1..=self.die).filter(|&r| r >= defence).count() as f64 / self.die as f64
    }

    /// P(a morale test passes) with `penalty` taken off the morale number.
    pub fn p_morale(&self, morale: i32, penalty: i32) -> f64 {
        (1..=self.die)
            .filter(|&r| self.morale_passes(r, morale, penalty))
            .count() as f64
            / self.die as f64
    }

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
    pub id: String,
    pub name: String,
    pub stats: Stats,
}

impl std::ops::Deref for Unit {
    type Target = Stats;

    fn deref(&self) -> &Stats {
        &self.stats
    }
}

/// A unit's numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub models: u32,
    /// Attack dice per model.
    pub attack_dice: u32,
    /// To-hit modifier when shooting.
    pub shoot: i32,
    /// To-hit modifier in combat.
    pub fight: i32,
    pub target_value: i32,
    /// Saves at this or better.
    pub defence: u32,
    /// Cover bonus where the unit stands (added to its target value unless it runs).
    pub cover: i32,
    pub shields: bool,
    pub charge_bonus: i32,
    pub defend_bonus: i32,
    pub morale: i32,
    pub moves: u32,
    pub run: u32,
}

impl Stats {
    pub fn pool(&self) -> u32 {
        self.models * self.attack_dice
    }
}

/// A shooting target's reaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShotReaction {
    None,
    ShootBack,
    GoToGround,
    Run,
}

impl ShotReaction {
    pub const NAMES: &'static [&'static str] = &["none", "shoot_back", "go_to_ground", "run"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

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
    CounterCharge,
    Defend,
    ShieldWall,
}

impl ChargeReaction {
    pub const NAMES: &'static [&'static str] = &["none", "counter_charge", "defend", "shield_wall"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

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

#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// `shooter` shoots `target`, which reacts.
    Shoot {
        shooter: Unit,
        target: Unit,
        aimed: bool,
        reaction: ShotReaction,
        group: Option<Group>,
    },
    /// `charger` charges `target`, which reacts; `over_half`: the enemy was over half its
    /// standard move away when the charge was declared (the bonuses apply).
    Charge {
        charger: Unit,
        target: Unit,
        reaction: ChargeReaction,
        over_half: bool,
        group: Option<Group>,
    },
    /// A rally or flee test of `unit` with `tokens` morale tokens.
    Morale {
        unit: Unit,
        rally: bool,
        tokens: u32,
    },
    /// Rounds of shooting: each round `a` shoots with `b` reacting, then `b` shoots with
    /// `a` reacting, casualties off after each exchange, until a side is gone or broken.
    Firefight {
        a: Unit,
        b: Unit,
        a_reaction: ShotReaction,
        b_reaction: ShotReaction,
        rounds: u32,
        economy: FirefightRules,
    },
    /// A charge, then combat round after round while both stay in contact: the first
    /// round is the charge exchange (its bonuses, its reaction), later rounds both strike
    /// simultaneously without bonuses; casualties and break tests after each round, until
    /// a side is gone or broken, or `rounds` have passed.
    Combat {
        charger: Unit,
        target: Unit,
        reaction: ChargeReaction,
        over_half: bool,
        rounds: u32,
    },
    /// A turn of shooting actions by one unit at one target (`make_ready`, `aim`, `shoot`),
    /// the target answering every shot with `reaction`. Markers follow the rules: a unit
    /// shoots only with a ready marker, an aim marker adds +2 to its next shot, and a unit
    /// that is attacked (shot back at) loses both.
    Volley {
        shooter: Unit,
        target: Unit,
        plan: Vec<Action>,
        reaction: ShotReaction,
    },
}

/// A shooting action of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    MakeReady,
    Aim,
    Shoot,
}

impl Action {
    pub const NAMES: &'static [&'static str] = &["make_ready", "aim", "shoot"];

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

/// One side's attack in an exchange: dice, per-die P(hit), the defender's P(save) and
/// whether it re-rolls failed saves, and the most casualties it can cause.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attack {
    pub dice: u32,
    pub modifier: i32,
    pub target: i32,
    pub defence: u32,
    pub reroll_saves: bool,
    pub cap: u32,
}

impl Attack {
    /// P(one die causes a casualty): it hits and the save fails (twice with a re-roll).
    pub fn p_casualty(&self, rules: &Rules) -> f64 {
        let fail = 1.0 - rules.p_save(self.defence);
        let fail = if self.reroll_saves { fail * fail } else { fail };
        rules.p_hit(self.modifier, self.target) * fail
    }

    /// Casualties, exactly: Binomial(dice, p) folded at `cap` (the models there are).
    pub fn pmf(&self, rules: &Rules) -> Vec<f64> {
        let b = binomial(self.dice, self.p_casualty(rules)).0;
        let mut out = vec![0.0; self.cap as usize + 1];
        for (k, p) in b.into_iter().enumerate() {
            out[k.min(self.cap as usize)] += p;
        }
        out
    }

    /// Roll it: each die to hit, and its save die (and the re-roll's, when allowed),
    /// read only if it hit. Every die of the attack is rolled up front, so the count
    /// has no branch a processor could mispredict: a save rolled for a miss is never
    /// read, which leaves the distribution as written.
    pub fn roll(&self, rules: &Rules, d: &mut FaceStream, rng: &mut Rng) -> u32 {
        let mut n = 0;
        // Hitting is a threshold on the roll, so each die is two comparisons; its faces
        // (to hit, save, re-rolled save) come from one word at a time.
        let hit_on = rules.hit_on(self.modifier, self.target);
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
fn p_break(u: &Stats, c: usize, rules: &Rules) -> f64 {
    if c == 0 || rules.break_test == BreakTest::Never || c as u32 >= u.models {
        return 0.0;
    }
    1.0 - rules.p_morale(u.morale, rules.casualty_modifier * c as i32)
}

fn breaks(u: &Stats, c: u32, rules: &Rules, d: &mut FaceStream, rng: &mut Rng) -> bool {
    if c == 0 || rules.break_test == BreakTest::Never || c >= u.models {
        return false;
    }
    !rules.morale_passes(d.roll(rng), u.morale, rules.casualty_modifier * c as i32)
}

/// A single exchange. State: (casualties on the target, casualties on the actor, target
/// broken, actor broken). A unit wiped out is not "broken": it is gone.
struct Exchange {
    rules: Rules,
    act: Attack,
    back: Option<Attack>,
    actor: Unit,
    target: Unit,
    /// The target flees without a fight (a charge met with no reaction).
    flees: bool,
    radix: Radix,
}

impl Trial for Exchange {
    fn states(&self) -> usize {
        self.radix.size()
    }
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
    let mut exact = vec![0.0; radix.size()];
    if flees {
        exact[radix.encode(&[0, 0, 1, 0])] = 1.0;
    } else {
        let pt = act.pmf(rules);
        let pa = back.map_or(vec![1.0], |b| b.pmf(rules));
        for (ct, &p) in pt.iter().enumerate() {
            for (ca, &q) in pa.iter().enumerate() {
                let (bt, ba) = (p_break(target, ct, rules), p_break(actor, ca, rules));
                for (tb, x) in [(0, 1.0 - bt), (1, bt)] {
                    for (ab, y) in [(0, 1.0 - ba), (1, ba)] {
                        exact[radix.encode(&[ct, ca, tb, ab])] += p * q * x * y;
                    }
                }
            }
        }
    }
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
        Metric::numeric(
            "casualties_on_target",
            &format!(
                "models {} (of {})",
                crate::text::agrees(&target.name, "loses", "lose"),
                target.models
            ),
            target.models as usize + 1,
            field(0),
        ),
        Metric::numeric(
            &format!("casualties_on_{actor_role}"),
            &format!(
                "models {} (of {})",
                crate::text::agrees(&actor.name, "loses", "lose"),
                actor.models
            ),
            actor.models as usize + 1,
            field(1),
        ),
        Metric::categorical(
            "target_morale",
            &format!(
                "{}: morale after casualties; a wiped-out unit is gone, not holding",
                target.name
            ),
            &["holds", "broken", "wiped out"],
            morale(0, 2, target.models),
        ),
        Metric::categorical(
            &format!("{actor_role}_morale"),
            &format!(
                "{}: morale after casualties; a wiped-out unit is gone, not holding",
                actor.name
            ),
            &["holds", "broken", "wiped out"],
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
            actor: actor.clone(),
            target: target.clone(),
            flees,
            radix,
        }),
        metrics,
        Headline {
            label: "P(target takes casualties)".into(),
            metric: 0,
            values: (1..=target.models as usize).collect(),
        },
    )
    .exact(Some(exact))
    .group(group)
}

fn describe_attack(a: &Attack, rules: &Rules) -> String {
    format!(
        "{}d{} +{} vs {} (hit {:.0}%), save {}+{}",
        a.dice,
        rules.die,
        a.modifier,
        a.target,
        100.0 * rules.p_hit(a.modifier, a.target),
        a.defence,
        if a.reroll_saves { " re-rolled" } else { "" }
    )
    .replace("+-", "-")
}

struct MoraleTrial {
    rules: Rules,
    morale: i32,
    penalty: i32,
}

impl Trial for MoraleTrial {
    fn states(&self) -> usize {
        2
    }
    fn sample(&self, rng: &mut Rng) -> usize {
        let roll = Faces::new(self.rules.die).stream().roll(rng);
        self.rules.morale_passes(roll, self.morale, self.penalty) as usize
    }
}

/// Firefight state: (models of a, models of b, morale tokens of a, of b, ready marker
/// of a, of b, status) with status 0 nobody broke, 1 a broke, 2 b broke, 3 both broke in
/// the same simultaneous exchange; a side at 0 models is gone. A side is out when it is
/// gone or broke; when both are out after the same exchange, neither won. The token and
/// ready digits have one value (0) unless the firefight counts them.
struct FirefightTrial {
    rules: Rules,
    a: Unit,
    b: Unit,
    a_reaction: ShotReaction,
    b_reaction: ShotReaction,
    rounds: u32,
    radix: Radix,
    f: FirefightRules,
}

/// The economy of a firefight: fatigue, morale tokens, Regroup and the
/// ready markers shooting needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirefightRules {
    /// A unit that reacts gains a fatigue point and cannot act again this round, and a
    /// unit that acted cannot react.
    pub fatigue: bool,
    /// Each casualty gives a morale token, kept for the firefight, and a break test
    /// counts every token held (else only the exchange's casualties).
    pub tokens: bool,
    /// Morale tokens each side starts with.
    pub start_tokens: [u32; 2],
    /// A side Regroups (removes a token) instead of shooting while it holds at least
    /// this many.
    pub regroup_at: [Option<u32>; 2],
    /// Shooting (and shooting back) needs a ready marker, which a unit loses when it is
    /// shot at; a unit without one spends its action to Make Ready.
    pub ready: bool,
    /// Whether each side starts with a ready marker.
    pub start_ready: [bool; 2],
}

impl FirefightRules {
    /// "; reactions cost fatigue; morale tokens ...", for the description.
    fn describe(&self, a: &str, b: &str) -> String {
        let mut parts = Vec::new();
        if self.fatigue {
            parts.push("a reaction costs the unit its own action that round".to_string());
        }
        if self.tokens {
            parts.push(
                "each casualty adds a morale token, and break tests count every token".into(),
            );
        }
        if self.ready {
            parts.push(
                "shooting needs a ready marker, lost when shot at (else the action is Make Ready)"
                    .into(),
            );
        }
        for (i, who) in [a, b].into_iter().enumerate() {
            if self.start_tokens[i] > 0 {
                parts.push(format!(
                    "{who} starts with {}",
                    crate::text::plural(self.start_tokens[i] as u64, "token", "tokens")
                ));
            }
            if let Some(k) = self.regroup_at[i] {
                parts.push(format!(
                    "{who} Regroups at {}",
                    crate::text::plural(k.max(1) as u64, "token", "tokens")
                ));
            }
            if self.ready && !self.start_ready[i] {
                parts.push(format!("{who} starts without a ready marker"));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("; {}", parts.join("; "))
        }
    }
}

/// Where a firefight stands between exchanges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    m: [u32; 2],
    t: [u32; 2],
    ready: [bool; 2],
}

/// What a side does with its action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Shoot,
    Regroup,
    MakeReady,
}

/// One way an exchange ends: (position, status, probability).
type Step = (Pos, u32, f64);

impl FirefightTrial {
    fn units(&self) -> [&Unit; 2] {
        [&self.a, &self.b]
    }

    fn reaction(&self, y: usize) -> ShotReaction {
        if y == 0 {
            self.a_reaction
        } else {
            self.b_reaction
        }
    }

    /// `x`'s action: Regroup while it holds enough tokens, else shoot if ready, else
    /// Make Ready.
    fn act(&self, x: usize, p: Pos) -> Act {
        if self.f.regroup_at[x].is_some_and(|k| p.t[x] >= k.max(1)) {
            Act::Regroup
        } else if self.f.ready && !p.ready[x] {
            Act::MakeReady
        } else {
            Act::Shoot
        }
    }

    /// `y`'s reaction to `x`'s action, if any (`can_react`: it has not acted this
    /// round). Shooting back needs a ready marker; going to ground answers a shot only.
    fn reaction_to(&self, x: usize, p: Pos, can_react: bool) -> ShotReaction {
        let y = 1 - x;
        let shot_at = self.act(x, p) == Act::Shoot;
        match self.reaction(y) {
            _ if !can_react => ShotReaction::None,
            ShotReaction::ShootBack if self.f.ready && !p.ready[y] => ShotReaction::None,
            ShotReaction::GoToGround if !shot_at => ShotReaction::None,
            ShotReaction::Run => ShotReaction::None,
            r => r,
        }
    }

    /// The attacks of `x`'s action on `y` (none unless it shoots) and of `y`'s reaction.
    fn attacks(
        &self,
        x: usize,
        p: Pos,
        reaction: ShotReaction,
    ) -> (Option<Attack>, Option<Attack>) {
        let y = 1 - x;
        let u = self.units();
        let with = |u: &Unit, models: u32| Stats { models, ..u.stats };
        let (ux, uy) = (with(u[x], p.m[x]), with(u[y], p.m[y]));
        if self.act(x, p) == Act::Shoot {
            let (act, back) = shoot_attacks(&ux, &uy, false, reaction);
            (Some(act), back)
        } else {
            // An independent action: the enemy may shoot at the unit.
            let back = (reaction == ShotReaction::ShootBack)
                .then(|| shoot_attacks(&uy, &ux, false, ShotReaction::None).0);
            (None, back)
        }
    }

    /// The morale penalty of a unit that took `c` casualties and now holds `tokens`.
    fn penalty(&self, c: u32, tokens: u32) -> i32 {
        self.rules.casualty_modifier
            * if self.f.tokens {
                tokens as i32
            } else {
                c as i32
            }
    }

    /// P(a unit of `models` before the exchange breaks after `c` casualties).
    fn p_break(&self, u: &Unit, models: u32, c: u32, tokens: u32) -> f64 {
        if c == 0 || self.rules.break_test == BreakTest::Never || c >= models {
            return 0.0;
        }
        1.0 - self.rules.p_morale(u.morale, self.penalty(c, tokens))
    }

    /// Tokens after casualties `c` (only counted when the firefight keeps tokens).
    fn add_tokens(&self, t: u32, c: u32) -> u32 {
        if self.f.tokens {
            (t + c).min(self.max_tokens())
        } else {
            t
        }
    }

    fn max_tokens(&self) -> u32 {
        self.radix.0[2].max(self.radix.0[3]) as u32 - 1
    }

    /// The position after `x`'s action and `y`'s reaction, before casualties: tokens a
    /// Regroup removed and the ready markers (lost by whoever was shot at; a Make Ready
    /// under fire is lost at once).
    fn after_acts(&self, x: usize, p: Pos, reaction: ShotReaction) -> Pos {
        let y = 1 - x;
        let mut n = p;
        match self.act(x, p) {
            Act::Regroup => n.t[x] -= 1,
            Act::MakeReady => n.ready[x] = true,
            Act::Shoot => n.ready[y] = false,
        }
        if reaction == ShotReaction::ShootBack {
            n.ready[x] = false;
        }
        if !self.f.ready {
            n.ready = p.ready;
        }
        n
    }

    /// Every way one exchange (x acts, y maybe reacts) ends, exactly.
    fn exchange_exact(&self, x: usize, p: Pos, can_react: bool) -> Vec<Step> {
        let y = 1 - x;
        let u = self.units();
        let reaction = self.reaction_to(x, p, can_react);
        let (act, back) = self.attacks(x, p, reaction);
        let base = self.after_acts(x, p, reaction);
        let py = act.map_or(vec![1.0], |a| a.pmf(&self.rules));
        let px = back.map_or(vec![1.0], |b| b.pmf(&self.rules));
        let mut out = Vec::new();
        for (cy, &q) in py.iter().enumerate() {
            for (cx, &r) in px.iter().enumerate() {
                let mut n = base;
                n.m[y] -= cy as u32;
                n.m[x] -= cx as u32;
                n.t[y] = self.add_tokens(base.t[y], cy as u32);
                n.t[x] = self.add_tokens(base.t[x], cx as u32);
                let yb = self.p_break(u[y], p.m[y], cy as u32, n.t[y]);
                let xb = self.p_break(u[x], p.m[x], cx as u32, n.t[x]);
                // Both break tests, as the sampler rolls them.
                for (by, wy) in [(false, 1.0 - yb), (true, yb)] {
                    for (bx, wx) in [(false, 1.0 - xb), (true, xb)] {
                        let w = q * r * wy * wx;
                        if w == 0.0 {
                            continue;
                        }
                        let mut broke = [false; 2];
                        broke[y] = by;
                        broke[x] = bx;
                        out.push((n, status_of(broke), w));
                    }
                }
            }
        }
        out
    }

    /// One exchange, rolled.
    fn exchange(
        &self,
        d: &mut FaceStream,
        rng: &mut Rng,
        x: usize,
        p: Pos,
        can_react: bool,
    ) -> (Pos, u32) {
        let y = 1 - x;
        let u = self.units();
        let reaction = self.reaction_to(x, p, can_react);
        let (act, back) = self.attacks(x, p, reaction);
        let mut n = self.after_acts(x, p, reaction);
        let on_y = act.map_or(0, |a| a.roll(&self.rules, d, rng));
        let on_x = back.map_or(0, |b| b.roll(&self.rules, d, rng));
        n.m[y] -= on_y;
        n.m[x] -= on_x;
        n.t[y] = self.add_tokens(n.t[y], on_y);
        n.t[x] = self.add_tokens(n.t[x], on_x);
        let test = |who: usize, c: u32, tokens: u32, d: &mut FaceStream, rng: &mut Rng| {
            if c == 0 || self.rules.break_test == BreakTest::Never || c >= p.m[who] {
                return false;
            }
            !self
                .rules
                .morale_passes(d.roll(rng), u[who].morale, self.penalty(c, tokens))
        };
        let mut broke = [false; 2];
        broke[y] = test(y, on_y, n.t[y], d, rng);
        broke[x] = test(x, on_x, n.t[x], d, rng);
        (n, status_of(broke))
    }

    fn encode(&self, p: Pos, status: u32) -> usize {
        let r = |b: bool| if self.f.ready { b as usize } else { 0 };
        self.radix.encode(&[
            p.m[0] as usize,
            p.m[1] as usize,
            p.t[0] as usize,
            p.t[1] as usize,
            r(p.ready[0]),
            r(p.ready[1]),
            status as usize,
        ])
    }

    fn decode(&self, s: usize) -> (Pos, u32) {
        let v = self.radix.decode(s);
        let ready = |i: usize| if self.f.ready { v[i] == 1 } else { true };
        (
            Pos {
                m: [v[0] as u32, v[1] as u32],
                t: [v[2] as u32, v[3] as u32],
                ready: [ready(4), ready(5)],
            },
            v[6] as u32,
        )
    }

    fn start(&self) -> Pos {
        Pos {
            m: [self.a.models, self.b.models],
            t: self.f.start_tokens,
            ready: if self.f.ready {
                self.f.start_ready
            } else {
                [true, true]
            },
        }
    }

    fn over(p: Pos, status: u32) -> bool {
        status != 0 || p.m[0] == 0 || p.m[1] == 0
    }

    /// Whether `y` reacts to `x`'s action (and so is fatigued for the round).
    fn reacts(&self, x: usize, p: Pos, can_react: bool) -> bool {
        self.reaction_to(x, p, can_react) != ShotReaction::None
    }
}

/// The status digit of who broke: 1 a, 2 b, 3 both.
fn status_of(broke: [bool; 2]) -> u32 {
    broke[0] as u32 + 2 * broke[1] as u32
}

impl Trial for FirefightTrial {
    fn states(&self) -> usize {
        self.radix.size()
    }
    fn sample(&self, rng: &mut Rng) -> usize {
        let mut p = self.start();
        let d = &mut Faces::new(self.rules.die).stream();
        for _ in 0..self.rounds {
            // Who has acted or reacted this round (fatigued, with the fatigue rule).
            let mut spent = [false; 2];
            for x in 0..2 {
                if Self::over(p, 0) {
                    return self.encode(p, 0);
                }
                if self.f.fatigue && spent[x] {
                    continue;
                }
                let can_react = !(self.f.fatigue && spent[1 - x]);
                let reacted = self.reacts(x, p, can_react);
                let (next, status) = self.exchange(d, rng, x, p, can_react);
                spent[x] = true;
                spent[1 - x] |= reacted;
                p = next;
                if Self::over(p, status) {
                    return self.encode(p, status);
                }
            }
        }
        self.encode(p, 0)
    }
}

/// Exactly: the distribution over the firefight's states after the rounds. Within a
/// round the state also carries who is spent (fatigue), as the sampler does.
fn firefight_exact(f: &FirefightTrial) -> Vec<f64> {
    let size = f.radix.size();
    let mut dist = vec![0.0; size];
    dist[f.encode(f.start(), 0)] = 1.0;
    for _ in 0..f.rounds {
        // (state, spent) within the round.
        let mut cur: Vec<[f64; 4]> = dist.iter().map(|&p| [p, 0.0, 0.0, 0.0]).collect();
        for x in 0..2 {
            let mut next: Vec<[f64; 4]> = vec![[0.0; 4]; size];
            for (s, ps) in cur.iter().enumerate() {
                for (spent_bits, &w) in ps.iter().enumerate() {
                    if w == 0.0 {
                        continue;
                    }
                    let (p, status) = f.decode(s);
                    let spent = [spent_bits & 1 == 1, spent_bits & 2 == 2];
                    if FirefightTrial::over(p, status) || (f.f.fatigue && spent[x]) {
                        next[s][spent_bits] += w;
                        continue;
                    }
                    let can_react = !(f.f.fatigue && spent[1 - x]);
                    let reacted = f.reacts(x, p, can_react);
                    let mut ns = spent;
                    ns[x] = true;
                    ns[1 - x] |= reacted;
                    let bits = ns[0] as usize + 2 * ns[1] as usize;
                    for (n, status, q) in f.exchange_exact(x, p, can_react) {
                        next[f.encode(n, status)][bits] += w * q;
                    }
                }
            }
            cur = next;
        }
        dist = cur.iter().map(|ps| ps.iter().sum()).collect();
    }
    dist
}

/// A turn of shots: state (casualties on the target, casualties on the shooter).
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

fn volley_exact(f: &VolleyTrial) -> Vec<f64> {
    let (ms, mt) = (f.shooter.models as usize, f.target.models as usize);
    // (shooter models, target models) -> probability
    let mut dist = vec![vec![0.0; mt + 1]; ms + 1];
    dist[ms][mt] = 1.0;
    for &aimed in &f.shots {
        let mut next = vec![vec![0.0; mt + 1]; ms + 1];
        for (a, row) in dist.iter().enumerate() {
            for (b, &p) in row.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                if a == 0 || b == 0 {
                    next[a][b] += p;
                    continue;
                }
                let (act, back) = f.attacks(aimed, [a as u32, b as u32]);
                let pt = act.pmf(&f.rules);
                let ps = back.map_or(vec![1.0], |x| x.pmf(&f.rules));
                for (ct, &q) in pt.iter().enumerate() {
                    for (cs, &r) in ps.iter().enumerate() {
                        next[a - cs][b - ct] += p * q * r;
                    }
                }
            }
        }
        dist = next;
    }
    let mut out = vec![0.0; f.radix.size()];
    for (a, row) in dist.iter().enumerate() {
        for (b, &p) in row.iter().enumerate() {
            out[f.radix.encode(&[mt - b, ms - a])] += p;
        }
    }
    out
}

fn compile_volley(
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
    let exact = volley_exact(&trial);
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
            Metric::numeric(
                "casualties_on_target",
                &format!(
                    "models {} over the turn (of {})",
                    crate::text::agrees(&target.name, "loses", "lose"),
                    target.models
                ),
                target.models as usize + 1,
                field(0),
            ),
            Metric::numeric(
                "casualties_on_shooter",
                &format!(
                    "models {} to return fire (of {})",
                    crate::text::agrees(&shooter.name, "loses", "lose"),
                    shooter.models
                ),
                shooter.models as usize + 1,
                field(1),
            ),
        ],
        Headline {
            label: "P(target takes casualties)".into(),
            metric: 0,
            values: (1..=target.models as usize).collect(),
        },
    )
    .exact(Some(exact))
}

/// Combat state: (models of the charger, models of the target, who broke as in a
/// firefight, the round it ended in: 0 = still fighting after the last round).
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
fn combat_exact(f: &CombatTrial) -> Vec<f64> {
    let rules = &f.rules;
    let mut out = vec![0.0; f.radix.size()];
    let (mc, mt) = (f.charger.models, f.target.models);
    if f.flees() {
        out[f.radix.encode(&[mc as usize, mt as usize, 2, 1])] = 1.0;
        return out;
    }
    let units = [&f.charger, &f.target];
    // Still fighting: (models of the charger, of the target) -> probability.
    let mut live = vec![vec![0.0; mt as usize + 1]; mc as usize + 1];
    live[mc as usize][mt as usize] = 1.0;
    for t in 1..=f.rounds {
        let mut next = vec![vec![0.0; mt as usize + 1]; mc as usize + 1];
        for (a, row) in live.iter().enumerate() {
            for (b, &p) in row.iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                let m = [a as u32, b as u32];
                let (act, back) = f.attacks(t, m);
                let on_target = act.pmf(rules);
                let on_charger = back.map_or(vec![1.0], |x| x.pmf(rules));
                for (ct, &q) in on_target.iter().enumerate() {
                    for (cc, &r) in on_charger.iter().enumerate() {
                        let with = |x: usize| Stats {
                            models: m[x],
                            ..units[x].stats
                        };
                        let pb = [p_break(&with(0), cc, rules), p_break(&with(1), ct, rules)];
                        let n = [a - cc, b - ct];
                        for (b0, w0) in [(false, 1.0 - pb[0]), (true, pb[0])] {
                            for (b1, w1) in [(false, 1.0 - pb[1]), (true, pb[1])] {
                                let w = p * q * r * w0 * w1;
                                if w == 0.0 {
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
    for (a, row) in live.iter().enumerate() {
        for (b, &p) in row.iter().enumerate() {
            if p > 0.0 {
                out[f.radix.encode(&[a, b, 0, 0])] += p;
            }
        }
    }
    out
}

fn compile_combat(
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
    let exact = combat_exact(&trial);
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    // 0: the charger wins, 1: the target wins, 2: still fighting, 3: both out.
    let outcome = |v: &[usize]| -> usize {
        let c_out = v[0] == 0 || v[2] & 1 == 1;
        let t_out = v[1] == 0 || v[2] & 2 == 2;
        match (c_out, t_out) {
            (false, true) => 0,
            (true, false) => 1,
            (false, false) => 2,
            (true, true) => 3,
        }
    };
    let c_wins = crate::text::wins(&charger.name);
    let t_wins = crate::text::wins(&target.name);
    let won_at = |side: usize, who: &str| {
        let mut labels = vec!["no".to_string()];
        labels.extend((1..=rounds).map(|t| t.to_string()));
        Metric {
            name: format!("{who}_wins_at"),
            description: format!("the round in which the {who} wins (no = it does not)"),
            labels,
            numeric: false,
            map: states
                .iter()
                .map(|v| if outcome(v) == side { v[3] as u16 } else { 0 })
                .collect(),
            chart: false,
            offset: 0,
        }
    };
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
    let mut metrics = vec![
        Metric::categorical(
            "outcome",
            "a side wins when the other is wiped out or broken and it is not; both out = both in the same round",
            &[&c_wins, &t_wins, "still fighting", "both out"][..],
            states.iter().map(|v| outcome(v) as u16).collect(),
        ),
        ended,
        Metric::numeric(
            "charger_models_left",
            &format!("{} models at the end (of {})", crate::text::possessive(&charger.name), charger.models),
            charger.models as usize + 1,
            states.iter().map(|v| v[0] as u16).collect(),
        ),
        Metric::numeric(
            "target_models_left",
            &format!("{} models at the end (of {})", crate::text::possessive(&target.name), target.models),
            target.models as usize + 1,
            states.iter().map(|v| v[1] as u16).collect(),
        ),
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
        },
    )
    .exact(Some(exact))
    // Nothing is capped: still fighting after the last round is an outcome of its own,
    // not a cut.
    .charts(vec![race])
}

pub fn compile(name: &str, sc: &Scenario, rules: &Rules) -> Compiled {
    match sc {
        Scenario::Shoot {
            shooter,
            target,
            aimed,
            reaction,
            group,
        } => {
            let (act, back) = shoot_attacks(shooter, target, *aimed, *reaction);
            let description = format!(
                "{} {}{}: {}; reaction {}{}",
                crate::text::agrees(&shooter.name, "shoots", "shoot"),
                target.name,
                if *aimed { " (aimed, +2)" } else { "" },
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
                group.clone(),
                "shooter",
            )
        }
        Scenario::Charge {
            charger,
            target,
            reaction,
            over_half,
            group,
        } => {
            let (act, back) = charge_attacks(charger, target, *reaction, *over_half, rules);
            let flees = *reaction == ChargeReaction::None;
            let description = format!(
                "{} {}{}: {}; reaction {}{}",
                crate::text::agrees(&charger.name, "charges", "charge"),
                target.name,
                if *over_half {
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
                group.clone(),
                "charger",
            )
        }
        Scenario::Morale {
            unit,
            rally,
            tokens,
        } => {
            let penalty = rules.casualty_modifier * *tokens as i32;
            let p = rules.p_morale(unit.morale, penalty);
            let labels: [&str; 2] = if *rally {
                ["stays broken", "rallies"]
            } else {
                ["flees", "holds"]
            };
            Compiled::new(
                name,
                format!(
                    "{} {} test: 1d{} {} morale {}{}",
                    unit.name,
                    if *rally { "rally" } else { "flee" },
                    rules.die,
                    match rules.morale_sense {
                        Sense::AtMost => "<=",
                        Sense::AtLeast => ">=",
                    },
                    unit.morale,
                    if penalty != 0 {
                        format!(
                            ", {}: {penalty:+}",
                            crate::text::plural(*tokens as u64, "morale token", "morale tokens")
                        )
                    } else {
                        String::new()
                    }
                ),
                Box::new(MoraleTrial {
                    rules: rules.clone(),
                    morale: unit.morale,
                    penalty,
                }),
                vec![Metric::categorical(
                    "result",
                    "the morale test",
                    &labels,
                    vec![0, 1],
                )],
                Headline {
                    label: format!("P({})", labels[1]),
                    metric: 0,
                    values: vec![1],
                },
            )
            .exact(Some(vec![1.0 - p, p]))
        }
        Scenario::Combat {
            charger,
            target,
            reaction,
            over_half,
            rounds,
        } => compile_combat(name, charger, target, *reaction, *over_half, *rounds, rules),
        Scenario::Volley {
            shooter,
            target,
            plan,
            reaction,
        } => compile_volley(name, shooter, target, plan, *reaction, rules),
        Scenario::Firefight {
            a,
            b,
            a_reaction,
            b_reaction,
            rounds,
            economy,
        } => {
            // Tokens: what a side starts with plus one per model it can lose.
            let tokens = |start: u32, models: u32| {
                if economy.tokens || economy.regroup_at.iter().any(Option::is_some) {
                    (start + if economy.tokens { models } else { 0 }) as usize + 1
                } else {
                    1
                }
            };
            let cap = tokens(economy.start_tokens[0], a.models)
                .max(tokens(economy.start_tokens[1], b.models));
            let ready = if economy.ready { 2 } else { 1 };
            let radix = Radix(vec![
                a.models as usize + 1,
                b.models as usize + 1,
                cap,
                cap,
                ready,
                ready,
                4,
            ]);
            let trial = FirefightTrial {
                rules: rules.clone(),
                a: a.clone(),
                b: b.clone(),
                a_reaction: *a_reaction,
                b_reaction: *b_reaction,
                rounds: *rounds,
                radix: radix.clone(),
                f: *economy,
            };
            let exact = firefight_exact(&trial);
            let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
            // Out: gone, or broke. Both out after one simultaneous exchange: nobody won.
            let outcome = |v: &[usize]| -> u16 {
                let a_out = v[0] == 0 || v[6] & 1 == 1;
                let b_out = v[1] == 0 || v[6] & 2 == 2;
                match (a_out, b_out) {
                    (false, true) => 0,
                    (true, false) => 1,
                    (false, false) => 2,
                    (true, true) => 3,
                }
            };
            let a_wins = crate::text::wins(&a.name);
            let b_wins = crate::text::wins(&b.name);
            Compiled::new(
                name,
                format!(
                    "{} and {} exchange fire for {}: {} with {}, {} with {}{}",
                    a.name,
                    b.name,
                    crate::text::plural(*rounds as u64, "round", "rounds"),
                    crate::text::agrees(&b.name, "reacts", "react"),
                    b_reaction.name().replace('_', " "),
                    a.name,
                    a_reaction.name().replace('_', " "),
                    economy.describe(&a.name, &b.name)
                ),
                Box::new(trial),
                vec![
                    Metric::categorical(
                        "outcome",
                        "a side wins when the other is wiped out or broken and it is not; both out = both wiped out or broken in the same simultaneous exchange; neither = both still fighting",
                        &[&a_wins, &b_wins, "neither", "both out"][..],
                        states.iter().map(|v| outcome(v)).collect(),
                    ),
                    Metric::numeric(
                        "a_models_left",
                        &format!("{} models at the end (of {})", crate::text::possessive(&a.name), a.models),
                        a.models as usize + 1,
                        states.iter().map(|v| v[0] as u16).collect(),
                    ),
                    Metric::numeric(
                        "b_models_left",
                        &format!("{} models at the end (of {})", crate::text::possessive(&b.name), b.models),
                        b.models as usize + 1,
                        states.iter().map(|v| v[1] as u16).collect(),
                    ),
                ]
                .into_iter()
                .chain((cap > 1).then(|| {
                    Metric::numeric(
                        "a_tokens",
                        &format!("{} morale tokens at the end", crate::text::possessive(&a.name)),
                        cap,
                        states.iter().map(|v| v[2] as u16).collect(),
                    )
                }))
                .chain((cap > 1).then(|| {
                    Metric::numeric(
                        "b_tokens",
                        &format!("{} morale tokens at the end", crate::text::possessive(&b.name)),
                        cap,
                        states.iter().map(|v| v[3] as u16).collect(),
                    )
                }))
                .collect(),
                Headline {
                    label: format!("P({a_wins})"),
                    metric: 0,
                    values: vec![0],
                },
            )
            .exact(Some(exact))
        }
    }
}
