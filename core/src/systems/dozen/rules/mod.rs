//! `dozen`: the "Dozen Die" d12 roll-under skirmish RPG (docs/games/dozen.md).
//!
//! Every test rolls d12 and succeeds at or under a target; a natural 12 always fails
//! (`natural_fail`). Each scenario kind has a sampler that rolls the dice as the rules
//! say and an exact distribution over the same states: closed forms for single tests,
//! order statistics for the melee cancellation ([`melee`]) and an absorbing Markov chain
//! for the duel ([`duel`]).

pub mod duel;
pub mod melee;
pub mod reaction;

use crate::kernels::Rng;
use crate::model::{Compiled, Headline, Metric, Radix, Trial};
use crate::pmf::{Prob, Ratio};
use crate::systems::dozen::d12::{self, effective_target, Stream};

/// When an activation's second order is another charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SecondCharge {
    /// Only after the first charge won (seed: "a winning attacker with an order left
    /// may charge again").
    AfterWin,
    /// Always, while both stand (the loser charges back in with its second order).
    Always,
    /// Never: one charge per activation.
    Never,
}

/// Rule switches a designer can set in `[rules]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    /// A face of this or more always fails (seed: 12); 0 turns the rule off.
    pub natural_fail: u32,
    /// Whether a duel's activation may charge again with its second order.
    pub second_charge: SecondCharge,
    /// How a duel draws activations from the dice bag.
    pub bag_draw: BagDraw,
    /// Whether an injured character may activate with a green die (the rules: no).
    pub injured_green: InjuredGreen,
}

/// The rules: "an injured character cannot activate with green dice"; the `toughness`
/// skill cancels it. A switch, so a designer can measure what the rule is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InjuredGreen {
    /// The rule as written: an injured character without `toughness` loses the draw.
    CannotActivate,
    /// The rule switched off: any die activates any character.
    CanActivate,
}

/// The rules draw "a die from the bag" without saying whether it goes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BagDraw {
    /// Every activation draws from the full bag (the shipped reading).
    WithReplacement,
    /// A round empties the bag: each die is drawn once, then the bag is refilled.
    WithoutReplacement,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            natural_fail: 12,
            second_charge: SecondCharge::AfterWin,
            bag_draw: BagDraw::WithReplacement,
            injured_green: InjuredGreen::CannotActivate,
        }
    }
}

impl Rules {
    /// The face a test of `target` succeeds at or under.
    pub fn target(&self, target: i32) -> u32 {
        effective_target(target, self.natural_fail)
    }
}

/// The abilities a conflict can be rolled against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ability {
    /// Dexterity: terrain, jumping, armour.
    Dx,
    /// Constitution: hit points, falling.
    Co,
    /// Strength: melee.
    St,
    /// Charisma.
    Ch,
    /// Awareness.
    Aw,
}

impl Ability {
    /// The config spellings, in variant order.
    pub const NAMES: &'static [&'static str] = &["dx", "co", "st", "ch", "aw"];

    /// The ability a config names (`"dx"`, ...); `None` for an unknown name.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "dx" => Ability::Dx,
            "co" => Ability::Co,
            "st" => Ability::St,
            "ch" => Ability::Ch,
            "aw" => Ability::Aw,
            _ => return None,
        })
    }

    /// The config spelling, `"dx"` for [`Ability::Dx`].
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A character's stat line.
#[derive(Clone, Debug, PartialEq)]
pub struct Character {
    /// The key under `[characters]`, as scenarios name it.
    pub id: String,
    /// The name reports show (the id unless the config gives one).
    pub name: String,
    /// Dexterity, 1 to 12: terrain and jump tests, the base of the armour class.
    pub dx: u32,
    /// Constitution, 1 to 12: the base of the HP; falls test the better of DX and CO.
    pub co: u32,
    /// Strength, 1 to 12: the base of the melee target.
    pub st: u32,
    /// Charisma, 1 to 12: a conflict may roll against it.
    pub ch: u32,
    /// Awareness, 1 to 12: a conflict may roll against it.
    pub aw: u32,
    /// Move, in squares per move order (0 to 12); also caps a jump.
    pub mv: u32,
    /// Skill levels by name (melee, endurance, turn_undead, ...).
    pub skills: Vec<(String, u32)>,
    /// Added to ST for the melee target (a sword is +3).
    pub weapon: u32,
    /// Added to DX for the armour class (leather is +1).
    pub armour: u32,
    /// Dice in the character's reserve: a test rolls at most
    /// this many, whatever its skill level. `None`: no cap.
    pub reserve: Option<u32>,
}

impl Character {
    /// A pool of `dice` capped at the dice in the reserve.
    pub fn from_reserve(&self, dice: u32) -> u32 {
        self.reserve.map_or(dice, |r| dice.min(r))
    }
}

impl Character {
    /// The level of a skill (the dice it rolls); 0 for a skill the character lacks.
    pub fn skill(&self, name: &str) -> u32 {
        self.skills
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, l)| *l)
    }

    /// HP = CO + Endurance level.
    pub fn hp(&self) -> u32 {
        self.co + self.skill("endurance")
    }

    /// Armour class = DX + armour bonus.
    pub fn ac(&self) -> u32 {
        self.dx + self.armour
    }

    /// Melee target = ST + weapon bonus.
    pub fn melee_target(&self) -> u32 {
        self.st + self.weapon
    }

    /// The score of one ability, for a conflict rolled against it.
    pub fn ability(&self, a: Ability) -> u32 {
        match a {
            Ability::Dx => self.dx,
            Ability::Co => self.co,
            Ability::St => self.st,
            Ability::Ch => self.ch,
            Ability::Aw => self.aw,
        }
    }
}

/// Difficulty of terrain and of conflicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Difficulty {
    /// No test: terrain costs nothing, every conflict die succeeds.
    VeryEasy,
    /// +6 to the ability.
    Easy,
    /// +3 to the ability.
    Normal,
    /// The ability as it is.
    Hard,
    /// -1 to the ability.
    VeryHard,
}

impl Difficulty {
    /// The config spellings, in variant order.
    pub const NAMES: &'static [&'static str] =
        &["very_easy", "easy", "normal", "hard", "very_hard"];

    /// The difficulty a config names (`"very_easy"`, ...); `None` for an unknown name.
    pub fn from_name(s: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|n| *n == s)?;
        Some(
            [
                Difficulty::VeryEasy,
                Difficulty::Easy,
                Difficulty::Normal,
                Difficulty::Hard,
                Difficulty::VeryHard,
            ][i],
        )
    }

    /// The config spelling, `"very_easy"` for [`Difficulty::VeryEasy`].
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Added to the ability; `None` for very easy (no test: automatic success).
    pub fn modifier(self) -> Option<i32> {
        match self {
            Difficulty::VeryEasy => None,
            Difficulty::Easy => Some(6),
            Difficulty::Normal => Some(3),
            Difficulty::Hard => Some(0),
            Difficulty::VeryHard => Some(-1),
        }
    }
}

/// Wading is horizontal difficult terrain, climbing vertical.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Across rough ground (marsh, river, thorn hedge): a failure never falls.
    Wade,
    /// Up or down (ladder, rope, wall): a bad failure falls.
    Climb,
}

/// One side of a skill test: who rolls, which skill's level gives the dice, which
/// ability (plus the difficulty modifier) is the target.
#[derive(Clone, Debug, PartialEq)]
pub struct Contestant {
    /// The character rolling.
    pub who: Character,
    /// The skill whose level is the number of dice.
    pub skill: String,
    /// The ability the dice roll under, before the difficulty modifier.
    pub ability: Ability,
    /// Adds its modifier to the ability; very easy rolls nothing and succeeds.
    pub difficulty: Difficulty,
    /// Dice added to the skill level, -15 to 15 (a bonus or a penalty from the situation).
    pub extra_dice: i32,
}

impl Contestant {
    /// Dice rolled: skill level plus extra dice, at least 0, capped by the reserve.
    pub fn dice(&self) -> u32 {
        self.who
            .from_reserve((self.who.skill(&self.skill) as i32 + self.extra_dice).max(0) as u32)
    }
}

/// A `[scenarios.NAME]` of a dozen config, one variant per `kind`.
#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// One move through difficult terrain; a climb may fall from `start_height`.
    Terrain {
        /// The character moving.
        who: Character,
        /// Wading or climbing.
        mode: Mode,
        /// Sets the DX test and what a failure costs in squares.
        difficulty: Difficulty,
        /// Climb only: the height in squares (0 to 60) a fall drops from.
        start_height: u32,
    },
    /// A fall: 1 square is harmless, from 2 each square's d12 may cost 1 HP.
    Fall {
        /// The character falling.
        who: Character,
        /// Squares fallen, 0 to 60.
        height: u32,
    },
    /// A jump of `distance` squares over a gap `drop` squares deep.
    Jump {
        /// The character jumping.
        who: Character,
        /// Squares jumped, 1 to MV; above half MV it needs a DX+3 test.
        distance: u32,
        /// Depth of the gap in squares, 0 to 60: a failed jump falls this far.
        drop: u32,
    },
    /// One charge: the attacker's melee dice against the defender's, then armour.
    Melee {
        /// The side charging: it wins ties.
        attacker: Character,
        /// The side charged.
        defender: Character,
        /// Dice added to the attacker's melee level, -15 to 15.
        attacker_extra_dice: i32,
        /// Dice added to the defender's melee level, -15 to 15.
        defender_extra_dice: i32,
        /// Squares of drop behind the attacker and the defender: the side hit is pushed
        /// 1 square, over the edge, and falls this far.
        drops: [u32; 2],
    },
    /// A skill test against a difficulty: each die at or under the target is a success.
    Conflict(Contestant),
    /// The active side wins ties, as a charging attacker does.
    Opposed {
        /// The side acting: it wins ties.
        active: Contestant,
        /// The side resisting.
        opponent: Contestant,
    },
    /// A character moving in sight of shooters with loaded weapons: each shoots once.
    RunPast {
        /// The character moving; its armour class saves each hit.
        runner: Character,
        /// 1 to 8 shooters, each rolling its shooting skill once.
        shooters: Vec<Contestant>,
    },
    /// Activations until one is a casualty.
    Duel {
        /// Side A: its results are the `a_` metrics.
        a: Character,
        /// Side B (may be the same character as A).
        b: Character,
        /// Dice of each side in the bag; each activation draws one.
        bag: [u32; 2],
        /// How many of each side's dice are green.
        green: [u32; 2],
        /// Activations (1 to 2000) after which the duel stops, reported unfinished.
        max_activations: u32,
    },
}

/// The single-die success probability at an effective target.
pub fn p_success(target: u32) -> f64 {
    p_success_of(target)
}

/// [`p_success`] in any weight: `target` faces of 12.
pub fn p_success_of<W: Prob>(target: u32) -> W {
    W::ratio(u64::from(target), 12)
}

/// A scenario's sampler, metrics and exact distribution, by kind.
pub fn compile(name: &str, sc: &Scenario, rules: &Rules) -> Compiled {
    match sc {
        Scenario::Terrain {
            who,
            mode,
            difficulty,
            start_height,
        } => terrain(name, who, *mode, *difficulty, *start_height, rules),
        Scenario::Fall { who, height } => fall(name, who, *height, rules),
        Scenario::Jump {
            who,
            distance,
            drop,
        } => jump(name, who, *distance, *drop, rules),
        Scenario::Melee {
            attacker,
            defender,
            attacker_extra_dice,
            defender_extra_dice,
            drops,
        } => melee::compile_melee(
            name,
            attacker,
            defender,
            (*attacker_extra_dice, *defender_extra_dice),
            *drops,
            rules,
        ),
        Scenario::Conflict(c) => conflict(name, c, rules),
        Scenario::Opposed { active, opponent } => {
            melee::compile_opposed(name, active, opponent, rules)
        }
        Scenario::RunPast { runner, shooters } => reaction::compile(name, runner, shooters, rules),
        Scenario::Duel {
            a,
            b,
            bag,
            green,
            max_activations,
        } => duel::compile(
            name,
            a,
            b,
            duel::Bag::new(*bag, *green),
            *max_activations,
            rules,
        ),
    }
}

/// "unhurt", "hurt", "injured" (HP below half of the start) or "casualty" (HP 0).
pub const CONDITIONS: [&str; 4] = ["unhurt", "hurt", "injured", "casualty"];

/// Injured: HP left below half of the starting HP (5 HP: injured at 2; 4 HP: at 1).
pub fn injured(hp_left: u32, hp: u32) -> bool {
    2 * hp_left < hp
}

/// The condition index (into [`CONDITIONS`]) after losing `lost` of `hp`.
pub fn condition(lost: u32, hp: u32) -> u16 {
    let left = hp.saturating_sub(lost);
    if lost == 0 {
        0
    } else if left == 0 {
        3
    } else if injured(left, hp) {
        2
    } else {
        1
    }
}

fn condition_metric(name: &str, who: &Character, lost_of_state: &[u32]) -> Metric {
    let hp = who.hp();
    Metric::categorical(
        name,
        &format!(
            "{} with {hp} HP: injured below half ({} HP or less), casualty at 0",
            who.name,
            hp.saturating_sub(1) / 2
        ),
        &CONDITIONS,
        lost_of_state.iter().map(|&l| condition(l, hp)).collect(),
    )
}

/// HP lost in a fall from `height` squares: none from 1; from 2 or more, one d12 per
/// square and each die above max(DX, CO) (or a natural fail) costs 1 HP. No armour.
pub fn fall_pmf<W: Prob>(who: &Character, height: u32, rules: &Rules) -> Vec<W> {
    if height < 2 {
        let mut v = vec![W::zero(); height as usize + 1];
        v[0] = W::one();
        return v;
    }
    let keep = fall_keep(who, rules);
    W::binomial(height, &(W::one() - p_success_of(keep))).0
}

/// The highest face a falling die may show without costing HP: max(DX, CO), less a
/// natural fail.
pub fn fall_keep(who: &Character, rules: &Rules) -> u32 {
    rules.target(who.dx.max(who.co) as i32)
}

/// HP lost to given fall dice (`faces.len()` is the height).
pub fn fall_hp_lost(faces: &[u32], keep: u32) -> u32 {
    if faces.len() < 2 {
        0
    } else {
        faces.iter().filter(|&&f| f > keep).count() as u32
    }
}

/// Roll a fall as the rules say.
#[inline]
pub fn roll_fall(s: &mut Stream, rng: &mut Rng, height: u32, keep: u32) -> u32 {
    if height < 2 {
        0
    } else {
        s.count_above(rng, height, keep)
    }
}

/// The `hp_lost` and `condition` metrics of a scenario whose only damage is a fall:
/// `lost` is each state's HP lost, at most `most` (the height, one die a square).
fn fall_metrics(description: &str, who: &Character, most: u32, lost: &[u32]) -> [Metric; 2] {
    [
        Metric::numeric(
            "hp_lost",
            description,
            most as usize + 1,
            lost.iter().map(|&l| l as u16).collect(),
        ),
        condition_metric("condition", who, lost),
    ]
}

/// Squares moved after the terrain test (docs/games/dozen.md, terrain movement).
pub fn squares(difficulty: Difficulty, mv: u32, face: u32, success: bool) -> u32 {
    match difficulty {
        Difficulty::VeryEasy => mv,
        Difficulty::Easy | Difficulty::Normal => {
            if success {
                mv
            } else {
                mv.div_ceil(2)
            }
        }
        Difficulty::Hard => {
            if success {
                face.min(mv)
            } else {
                1.min(mv)
            }
        }
        Difficulty::VeryHard => {
            if success {
                face.min(mv)
            } else {
                0
            }
        }
    }
}

/// The terrain roll of one face: (squares, fell). A climb falls when it fails by more
/// than double: the face is above twice the (unclamped) target.
pub fn terrain_outcome(
    who: &Character,
    mode: Mode,
    difficulty: Difficulty,
    face: u32,
    rules: &Rules,
) -> (u32, bool) {
    let Some(m) = difficulty.modifier() else {
        return (who.mv, false);
    };
    let raw = who.dx as i32 + m;
    let success = face <= rules.target(raw);
    let fell = mode == Mode::Climb && !success && face as i32 > 2 * raw;
    if fell {
        (0, true)
    } else {
        (squares(difficulty, who.mv, face, success), false)
    }
}

struct TerrainTrial {
    who: Character,
    mode: Mode,
    difficulty: Difficulty,
    rules: Rules,
    height: u32,
    keep: u32,
    radix: Radix,
}

impl Trial for TerrainTrial {
    fn states(&self) -> usize {
        self.radix.size()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        if self.difficulty == Difficulty::VeryEasy {
            return self.radix.encode(&[self.who.mv as usize, 0, 0]);
        }
        let mut s = Stream::new();
        let face = s.face(rng);
        let (sq, fell) = terrain_outcome(&self.who, self.mode, self.difficulty, face, &self.rules);
        let lost = if fell {
            roll_fall(&mut s, rng, self.height, self.keep)
        } else {
            0
        };
        self.radix
            .encode(&[sq as usize, fell as usize, lost as usize])
    }
}

/// [`terrain`]'s states (squares moved, fell, HP lost): each face of the d12, a fall
/// lost as [`fall_pmf`] says.
fn terrain_pmf<W: Prob>(
    who: &Character,
    mode: Mode,
    difficulty: Difficulty,
    height: u32,
    rules: &Rules,
) -> Vec<W> {
    let radix = Radix(vec![who.mv as usize + 1, 2, height as usize + 1]);
    let fall = fall_pmf::<W>(who, height, rules);
    let mut exact = vec![W::zero(); radix.size()];
    if difficulty == Difficulty::VeryEasy {
        exact[radix.encode(&[who.mv as usize, 0, 0])] = W::one();
        return exact;
    }
    for face in 1..=12 {
        let (sq, fell) = terrain_outcome(who, mode, difficulty, face, rules);
        if fell {
            for (l, p) in fall.iter().enumerate() {
                exact[radix.encode(&[sq as usize, 1, l])] += p.clone().over(12);
            }
        } else {
            exact[radix.encode(&[sq as usize, 0, 0])] += W::one().over(12);
        }
    }
    exact
}

/// [`jump`]'s states (made it, HP lost): the test passed, or a fall into the gap.
fn jump_pmf<W: Prob>(who: &Character, test: Option<u32>, drop: u32, rules: &Rules) -> Vec<W> {
    let radix = Radix(vec![2, drop as usize + 1]);
    let mut exact = vec![W::zero(); radix.size()];
    let p = test.map_or(W::one(), p_success_of);
    exact[radix.encode(&[1, 0])] = p.clone();
    for (l, q) in fall_pmf::<W>(who, drop, rules).into_iter().enumerate() {
        exact[radix.encode(&[0, l])] += (W::one() - p.clone()) * q;
    }
    exact
}

/// [`conflict`]'s successes of `n` dice: all of them without a test, else a binomial.
fn conflict_pmf<W: Prob>(n: u32, target: Option<u32>) -> Vec<W> {
    match target {
        None => {
            let mut v = vec![W::zero(); n as usize + 1];
            v[n as usize] = W::one();
            v
        }
        Some(t) => W::binomial(n, &p_success_of(t)).0,
    }
}

fn terrain(
    name: &str,
    who: &Character,
    mode: Mode,
    difficulty: Difficulty,
    start_height: u32,
    rules: &Rules,
) -> Compiled {
    let height = if mode == Mode::Climb { start_height } else { 0 };
    let radix = Radix(vec![who.mv as usize + 1, 2, height as usize + 1]);
    let exact = terrain_pmf::<f64>(who, mode, difficulty, height, rules);
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    let verb = match mode {
        Mode::Wade => "wades",
        Mode::Climb => "climbs",
    };
    let test = match difficulty.modifier() {
        None => "no test".to_string(),
        Some(m) => format!(
            "d12 <= DX{} = {}",
            if m == 0 {
                String::new()
            } else {
                format!("{m:+}")
            },
            who.dx as i32 + m
        ),
    };
    let mut metrics = vec![Metric::numeric(
        "squares",
        &format!("squares moved with MV {}", who.mv),
        who.mv as usize + 1,
        states.iter().map(|v| v[0] as u16).collect(),
    )];
    let mut headline = Headline {
        label: format!("P(full MV {})", who.mv),
        metric: 0,
        values: vec![who.mv as usize],
        against: Vec::new(),
    };
    if mode == Mode::Climb {
        metrics.push(Metric::categorical(
            "fell",
            "a failed climb falls when the roll is above twice the target",
            &["no", "yes"],
            states.iter().map(|v| v[1] as u16).collect(),
        ));
        let lost: Vec<u32> = states.iter().map(|v| v[2] as u32).collect();
        metrics.extend(fall_metrics(
            &format!("HP lost falling from height {height}"),
            who,
            height,
            &lost,
        ));
        headline = Headline {
            label: "P(fall)".into(),
            metric: 1,
            values: vec![1],
            against: Vec::new(),
        };
    }
    let desc = format!(
        "{} {verb} {} terrain{}: {test}",
        who.name,
        difficulty.name().replace('_', " "),
        if mode == Mode::Climb && height > 0 {
            format!(" from height {height}")
        } else {
            String::new()
        }
    );
    Compiled::new(
        name,
        desc,
        Box::new(TerrainTrial {
            who: who.clone(),
            mode,
            difficulty,
            rules: rules.clone(),
            height,
            keep: fall_keep(who, rules),
            radix,
        }),
        metrics,
        headline,
    )
    .exact(Some(exact))
    .fractions_later({
        let (who, rules) = (who.clone(), rules.clone());
        move || terrain_pmf::<Ratio>(&who, mode, difficulty, height, &rules)
    })
}

struct FallTrial {
    height: u32,
    keep: u32,
}

impl Trial for FallTrial {
    fn states(&self) -> usize {
        self.height as usize + 1
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let mut s = Stream::new();
        roll_fall(&mut s, rng, self.height, self.keep) as usize
    }
}

fn fall(name: &str, who: &Character, height: u32, rules: &Rules) -> Compiled {
    let keep = fall_keep(who, rules);
    let lost: Vec<u32> = (0..=height).collect();
    Compiled::new(
        name,
        format!(
            "{} falls {height} square{}: {}",
            who.name,
            if height == 1 { "" } else { "s" },
            if height < 2 {
                "no damage from 1 square or less".to_string()
            } else {
                format!(
                    "{height}d12, each above max(DX, CO) = {} costs 1 HP",
                    who.dx.max(who.co)
                )
            }
        ),
        Box::new(FallTrial { height, keep }),
        fall_metrics("HP lost (no armour roll)", who, height, &lost).into(),
        Headline {
            label: "P(any HP lost)".into(),
            metric: 0,
            values: (1..=height as usize).collect(),
            against: Vec::new(),
        },
    )
    .exact(Some(fall_pmf(who, height, rules)))
    .fractions_later({
        let (who, rules) = (who.clone(), rules.clone());
        move || fall_pmf::<Ratio>(&who, height, &rules)
    })
}

/// Whether a jump of `distance` needs a test: above half MV (rounded half up) it does.
pub fn jump_needs_test(mv: u32, distance: u32) -> bool {
    distance > mv.div_ceil(2)
}

struct JumpTrial {
    test: Option<u32>,
    drop: u32,
    keep: u32,
}

impl Trial for JumpTrial {
    fn states(&self) -> usize {
        2 * (self.drop as usize + 1)
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let Some(t) = self.test else {
            return self.drop as usize + 1; // made it, no damage
        };
        let mut s = Stream::new();
        if s.face(rng) <= t {
            self.drop as usize + 1
        } else {
            roll_fall(&mut s, rng, self.drop, self.keep) as usize
        }
    }
}

fn jump(name: &str, who: &Character, distance: u32, drop: u32, rules: &Rules) -> Compiled {
    let test = jump_needs_test(who.mv, distance).then(|| rules.target(who.dx as i32 + 3));
    let radix = Radix(vec![2, drop as usize + 1]);
    let exact = jump_pmf::<f64>(who, test, drop, rules);
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    let lost: Vec<u32> = states.iter().map(|v| v[1] as u32).collect();
    let [hp_lost, hp_condition] =
        fall_metrics(&format!("HP lost falling {drop} squares"), who, drop, &lost);
    Compiled::new(
        name,
        format!(
            "{} (MV {}) jumps {distance} square{} over a {drop}-square drop: {}",
            who.name,
            who.mv,
            if distance == 1 { "" } else { "s" },
            match test {
                None => "automatic up to half MV".to_string(),
                Some(_) => format!("d12 <= DX+3 = {}, failure falls into the gap", who.dx + 3),
            }
        ),
        Box::new(JumpTrial {
            test,
            drop,
            keep: fall_keep(who, rules),
        }),
        vec![
            Metric::categorical(
                "result",
                "a failed jump falls into the gap",
                &["fell", "made it"],
                states.iter().map(|v| v[0] as u16).collect(),
            ),
            hp_lost,
            hp_condition,
        ],
        Headline {
            label: "P(made it)".into(),
            metric: 0,
            values: vec![1],
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later({
        let (who, rules) = (who.clone(), rules.clone());
        move || jump_pmf::<Ratio>(&who, test, drop, &rules)
    })
}

struct ConflictTrial {
    pool: Option<d12::Pool>,
    dice: u32,
}

impl Trial for ConflictTrial {
    fn states(&self) -> usize {
        self.dice as usize + 1
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        match &self.pool {
            None => self.dice as usize,
            Some(p) => d12::successes(p.roll(&mut Stream::new(), rng)) as usize,
        }
    }
}

/// The target of a contestant's dice, `None` when the difficulty needs no roll.
pub fn contest_target(c: &Contestant, rules: &Rules) -> Option<u32> {
    c.difficulty
        .modifier()
        .map(|m| rules.target(c.who.ability(c.ability) as i32 + m))
}

/// "CH 4+3 = 7, 3d12" style.
fn describe_contest(c: &Contestant) -> String {
    let a = c.who.ability(c.ability);
    let ab = c.ability.name().to_uppercase();
    match c.difficulty.modifier() {
        None => format!("{} {}d12, very easy: automatic", c.skill, c.dice()),
        Some(0) => format!("{} {}d12 <= {ab} {a}", c.skill, c.dice()),
        Some(m) => format!(
            "{} {}d12 <= {ab} {a}{m:+} = {}",
            c.skill,
            c.dice(),
            a as i32 + m
        ),
    }
}

fn conflict(name: &str, c: &Contestant, rules: &Rules) -> Compiled {
    let n = c.dice();
    let target = contest_target(c, rules);
    let exact = conflict_pmf::<f64>(n, target);
    let map: Vec<u16> = (0..=n as u16).collect();
    Compiled::new(
        name,
        format!(
            "{}: {} ({})",
            c.who.name,
            describe_contest(c),
            c.difficulty.name().replace('_', " ")
        ),
        Box::new(ConflictTrial {
            pool: target.map(|t| d12::Pool::new(n, t)),
            dice: n,
        }),
        vec![
            Metric::numeric(
                "successes",
                "dice at or under the target",
                n as usize + 1,
                map.clone(),
            ),
            Metric::categorical(
                "result",
                "succeeded = at least one success",
                &["failed", "succeeded"],
                map.iter().map(|&k| (k > 0) as u16).collect(),
            ),
        ],
        Headline {
            label: "P(at least one success)".into(),
            metric: 1,
            values: vec![1],
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || conflict_pmf::<Ratio>(n, target))
}
