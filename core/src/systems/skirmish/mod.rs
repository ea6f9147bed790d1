//! `skirmish`: the unit wargame with simultaneous reactions (docs/games/skirmish.md section
//! 3): shooting and charging with reactions, morale, firefights and decision tables.

pub mod config;
pub mod rules;

use super::{Knobs, Loaded, Reading, ResponseKnob, RoleKnob, Shown, StatKnob};
use crate::cancel::Cancel;
use crate::config::{reader::Reader, Problem};
use config::{SkirmishConfig, ATTACK_DICE, MODELS, SKILL, TARGET_VALUE};

/// The `skirmish` system: reads its configs and names its knobs.
pub struct Skirmish;

const fn role(key: &'static str) -> RoleKnob {
    RoleKnob {
        key,
        table: "units",
    }
}

const fn stat(key: &'static str, better: i64, (lo, hi): (i64, i64)) -> StatKnob {
    StatKnob {
        table: "units",
        key: std::borrow::Cow::Borrowed(key),
        better,
        lo,
        hi,
        shown: Shown::Plain,
    }
}

static KNOBS: Knobs = Knobs {
    roles: &[
        role("shooter"),
        role("charger"),
        role("a"),
        role("target"),
        role("b"),
        role("unit"),
    ],
    stats: std::borrow::Cow::Borrowed(&[
        stat("attack_dice", 1, ATTACK_DICE),
        stat("shoot", 1, SKILL),
        stat("fight", 1, SKILL),
        stat("target_value", 1, TARGET_VALUE),
        // A save rolls at or above defence: lower is better; the die bounds it at load.
        stat("defence", -1, (1, 101)),
        stat("models", 1, MODELS),
    ]),
    dice: &[],
    responses: &[ResponseKnob {
        key: "reaction",
        choices: &[
            "none",
            "shoot_back",
            "go_to_ground",
            "run",
            "counter_charge",
            "defend",
            "shield_wall",
        ],
    }],
    readings: &[
        Reading::int("die", 2, 100, 10),
        // Up to the default d10's faces (a config with a bigger `die` takes more, typed
        // as the CLI takes them).
        Reading::int("natural_hit", 0, 10, 0),
        Reading::int("natural_miss", 0, 10, 0),
        Reading::flag("saves", true),
        Reading::choice("morale", &["at_most", "at_least"], "at_most"),
        Reading::choice("break_test", &["casualties", "never"], "casualties"),
        Reading::int("casualty_modifier", 0, 10, 1),
        Reading::choice("combat_bonus", &["to_hit", "dice"], "to_hit"),
    ],
};

impl super::System for Skirmish {
    fn name(&self) -> &'static str {
        "skirmish"
    }

    fn load(&self, root: &Reader, _cancel: &Cancel) -> Result<Box<dyn Loaded>, Problem> {
        Ok(Box::new(config::read(root)?))
    }

    fn knobs(&self) -> Knobs {
        KNOBS.clone()
    }
}

loaded_with_rules!(SkirmishConfig);
