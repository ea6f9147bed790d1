//! One folder per game system, each behind [`System`], and the one registry list.
//!
//! What a system *is* lives in its folder: how its config tables are read, its rules
//! (a sampler and an exact distribution per scenario kind), its own dice code and its
//! [`Knobs`] (the sides of a scenario, the stats a balance command may step, what "+1
//! die" means). Nothing outside `systems/` names a system; adding one is a folder and a
//! line in [`REGISTRY`].

/// `Loaded` for a config whose `scenarios` compile against its `rules` (most systems).
macro_rules! loaded_with_rules {
    ($config:ty) => {
        impl $crate::systems::Loaded for $config {
            fn scenarios(&self) -> Vec<$crate::systems::ScenarioInfo> {
                $crate::systems::infos(&self.scenarios)
            }

            // The rules' exact passes take milliseconds: nothing to stop inside them.
            fn compile(
                &self,
                i: usize,
                _cancel: &$crate::cancel::Cancel,
            ) -> Option<$crate::model::Compiled> {
                Some(self.scenarios.get(i)?.compile(&self.rules))
            }

            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
        }
    };
}

pub mod descent;
pub mod dice;
pub mod dozen;
pub mod rush;
pub mod skirmish;

/// The longest expression any front end takes (the dice language's own limit), for a
/// front end's dice box to refuse before a system parses it.
pub use dice::lang::MAX_EXPRESSION_CHARS;

use crate::cancel::Cancel;
use crate::config::{reader::Reader, Problem};
use crate::model::Compiled;
use std::any::Any;
use std::borrow::Cow;
use std::fmt;

/// Every system a config can name in `system = "..."`, in the order `--help` lists them.
pub static REGISTRY: &[&dyn System] = &[
    &rush::Rush,
    &dozen::Dozen,
    &descent::Descent,
    &skirmish::Skirmish,
    &dice::Dice,
];

/// The system called `name`.
pub fn find(name: &str) -> Option<&'static dyn System> {
    REGISTRY.iter().copied().find(|s| s.name() == name)
}

/// The registered systems' names.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|s| s.name()).collect()
}

/// A game system: reads its part of a config and says what can be tuned.
pub trait System: Sync {
    /// The name a config gives in `system = "..."`.
    fn name(&self) -> &'static str;
    /// Read and validate the config's tables (everything but `system`, `title`, `run`).
    /// Work a check needs (a roll's exact distribution) stops at `cancel`; what is
    /// returned then is not to be used.
    fn load(&self, root: &Reader, cancel: &Cancel) -> Result<Box<dyn Loaded>, Problem>;
    /// What the balance commands may turn.
    fn knobs(&self) -> Knobs;
    /// A whole config for `rollsim roll EXPR [--vs EXPR]` as text, its one scenario
    /// named `roll`, its expressions not checked: for a caller that checked them already
    /// ([`System::check_expression`]), since a check can work out how far a rolled dice
    /// count reaches, for seconds. `None` for systems without a language of their own.
    fn config_text(&self, _roll: &str, _vs: Option<&str>) -> Option<String> {
        None
    }
    /// The config [`System::config_text`] writes, read already: what `rollsim roll` and a
    /// notebook's `roll` run, without writing the text and parsing it back. `Err` says
    /// what is wrong with which expression, as the command line prints it.
    fn one_liner_loaded(
        &self,
        _roll: &str,
        _vs: Option<&str>,
        _cancel: &Cancel,
    ) -> Option<Result<Box<dyn Loaded>, String>> {
        None
    }
    /// Whether an expression of the system's language reads, and if not where it goes
    /// wrong (the live page draws a caret there). `None` for systems without a language.
    /// Its checks stop at `cancel`, as [`System::one_liner_loaded`]'s do.
    fn check_expression(
        &self,
        _text: &str,
        _cancel: &Cancel,
    ) -> Option<Result<(), ExpressionError>> {
        None
    }
}

/// Where an expression goes wrong: the character it goes wrong at (0-based) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpressionError {
    /// 0-based character index into the expression.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Debug for dyn System {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "System({})", self.name())
    }
}

/// One scenario as `rollsim list` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioInfo {
    /// The name runs use (`crossbow-range@d4` for a profile's point).
    pub name: String,
    /// The `[scenarios.NAME]` table it comes from: a profile or decision table's name for
    /// its members, else the scenario's own name.
    pub table: String,
    /// Whether it is one member of a group (a profile's point, a decision's choice).
    pub member: bool,
}

/// A validated config of one system.
pub trait Loaded: Send + Sync + fmt::Debug {
    /// Every scenario in file order, groups expanded into their members. Cheap: every
    /// load and every balance variant asks for it, so it compiles nothing.
    fn scenarios(&self) -> Vec<ScenarioInfo>;
    /// What the `i`-th scenario of [`Loaded::scenarios`] is, in a line (for `rollsim list`).
    fn describe(&self, i: usize) -> Option<String> {
        self.compile(i, &crate::cancel::Cancel::new())
            .map(|c| c.description)
    }
    /// Compile the `i`-th scenario of [`Loaded::scenarios`] (callers look names up in an
    /// index, so that compiling every scenario of a large config stays linear). A
    /// long exact pass checks `cancel` and gives up (the scenario then has no exact
    /// distribution, and the caller sees the token and stops).
    fn compile(&self, i: usize, cancel: &crate::cancel::Cancel) -> Option<Compiled>;
    /// For tests and benches that reach into one system's typed config.
    fn as_any(&self) -> &dyn Any;
    /// Knobs this config declares itself (a system whose stats are the config's own,
    /// such as `dice`); `None`: the system's.
    fn knobs(&self) -> Option<Knobs> {
        None
    }
    /// Why a key that `--set` added to the config (`path`, absent from the file) is one
    /// nothing reads, where that is so: a key of the system's own schema is refused by
    /// its reader already, but a system whose keys are the config's own (a `dice` unit's
    /// stats) reads only those its scenarios use (`units.fighter.hpp=3`, where `hp` is
    /// read, would change nothing).
    fn unread(&self, path: &[String]) -> Option<String> {
        let _ = path;
        None
    }
}

/// The sides, stats and dice a balance command may turn in one system. A system's are
/// borrowed from a static table; a config that declares its own stats (`dice`) owns
/// them, so nothing is leaked to make them last.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Scenario keys that name an entry of a table, in the order compare reads them: the
    /// attacker (row) side first.
    pub roles: &'static [RoleKnob],
    /// Integer stats of the roles' entries that a balance command may step.
    pub stats: Cow<'static, [StatKnob]>,
    /// Scenario keys that add dice to one side.
    pub dice: &'static [DiceKnob],
    /// Scenario keys the defending side chooses (Slamback or Dodge, a reaction), for
    /// `compare --response best`.
    pub responses: &'static [ResponseKnob],
    /// The `[rules]` keys where the rules are ambiguous and rollsim picks one reading,
    /// keeping the others switchable: what the live page offers beside the stats.
    pub readings: &'static [Reading],
}

/// `attacker` names an entry of `units`.
#[derive(Clone, Copy, Debug)]
pub struct RoleKnob {
    /// The scenario key (`attacker`).
    pub key: &'static str,
    /// The table its value names an entry of (`units`).
    pub table: &'static str,
}

/// How a stat is shown: `3` or a target `3+`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shown {
    /// The number as is.
    Plain,
    /// A target to roll: `3+`.
    Target,
}

/// An integer stat of a table's entries.
#[derive(Clone, Debug)]
pub struct StatKnob {
    /// The table whose entries have it (`units`).
    pub table: &'static str,
    /// Key within the entry (dotted for a nested table: `skills.melee`).
    pub key: Cow<'static, str>,
    /// +1 if a higher number is better for its owner, -1 if lower is (a target to roll).
    pub better: i64,
    /// Lowest value a balance command may step it to.
    pub lo: i64,
    /// Highest value a balance command may step it to.
    pub hi: i64,
    /// How reports write a value.
    pub shown: Shown,
}

/// A scenario key that adds dice to one side.
#[derive(Clone, Copy, Debug)]
pub struct DiceKnob {
    /// The role key of the side it helps.
    pub side: &'static str,
    /// The scenario key.
    pub key: &'static str,
    /// Fewest dice the key may be set to.
    pub lo: i64,
    /// Most dice the key may be set to.
    pub hi: i64,
    /// What one step adds, singular and plural: ("die", "dice"), ("power die", "power dice").
    pub noun: (&'static str, &'static str),
    /// Where the count comes from when the scenario does not set it: a key of another
    /// role's entry (a hero that carries its own power dice), else 0.
    pub default_from: Option<(&'static str, &'static str)>,
}

/// A choice of the defending side.
#[derive(Clone, Copy, Debug)]
pub struct ResponseKnob {
    /// The scenario key (`response`, `reaction`).
    pub key: &'static str,
    /// The values it accepts, e.g. `["slamback", "dodge"]`.
    pub choices: &'static [&'static str],
}

/// A `[rules]` key, with the values its reader accepts and the one it takes when the
/// key is absent (a test checks both against the reader: `tests/live.rs`).
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// The key within `[rules]`.
    pub key: &'static str,
    /// Its values and default.
    pub kind: ReadingKind,
}

impl Reading {
    /// A key that takes one of `choices`, `default` when absent.
    pub const fn choice(
        key: &'static str,
        choices: &'static [&'static str],
        default: &'static str,
    ) -> Reading {
        Reading {
            key,
            kind: ReadingKind::Choice { choices, default },
        }
    }

    /// An integer key in `lo..=hi`, `default` when absent.
    pub const fn int(key: &'static str, lo: i64, hi: i64, default: i64) -> Reading {
        Reading {
            key,
            kind: ReadingKind::Int { lo, hi, default },
        }
    }

    /// A boolean key, `default` when absent.
    pub const fn flag(key: &'static str, default: bool) -> Reading {
        Reading {
            key,
            kind: ReadingKind::Flag { default },
        }
    }
}

/// The values a [`Reading`] accepts, and the one it takes when absent.
#[derive(Clone, Copy, Debug)]
pub enum ReadingKind {
    /// One of these names; `default` is one of them.
    Choice {
        /// Every accepted name.
        choices: &'static [&'static str],
        /// The value when the key is absent.
        default: &'static str,
    },
    /// An integer in `lo..=hi`.
    Int {
        /// Smallest accepted.
        lo: i64,
        /// Largest accepted.
        hi: i64,
        /// The value when the key is absent.
        default: i64,
    },
    /// `true` or `false`.
    Flag {
        /// The value when the key is absent.
        default: bool,
    },
    /// The id of an entry of `table` (descent's `power_die` names a `[dice]` entry).
    Entry {
        /// The table the id names an entry of.
        table: &'static str,
        /// The id when the key is absent.
        default: &'static str,
    },
}

/// [`ScenarioInfo`]s of a system's named scenarios.
pub fn infos<S>(scenarios: &[crate::config::Named<S>]) -> Vec<ScenarioInfo> {
    scenarios
        .iter()
        .map(|s| ScenarioInfo {
            name: s.name.clone(),
            table: s.table.clone(),
            member: s.name != s.table,
        })
        .collect()
}
