//! `rush`: the hex sports game (docs/games/rush.md): d6 pools at a target,
//! opposed Slams and Steals, exploding sixes as a rule switch.

pub mod config;
pub mod rules;

use super::{DiceKnob, Knobs, Loaded, Reading, ResponseKnob, RoleKnob, Shown, StatKnob};
use crate::cancel::Cancel;
use crate::config::{reader::Reader, Problem};
use config::{RushConfig, MAX_DICE, STAT_HI, STAT_LO};

/// The `rush` system, as the loader finds it by name.
pub struct Rush;

const fn stat(key: &'static str) -> StatKnob {
    StatKnob {
        table: "units",
        key: std::borrow::Cow::Borrowed(key),
        better: -1,
        lo: STAT_LO,
        hi: STAT_HI,
        shown: Shown::Target,
    }
}

const fn dice(side: &'static str, key: &'static str) -> DiceKnob {
    DiceKnob {
        side,
        key,
        lo: -MAX_DICE,
        hi: MAX_DICE,
        noun: ("die", "dice"),
        default_from: None,
    }
}

const fn role(key: &'static str) -> RoleKnob {
    RoleKnob {
        key,
        table: "units",
    }
}

static KNOBS: Knobs = Knobs {
    roles: &[
        role("attacker"),
        role("defender"),
        role("thrower"),
        role("catcher"),
        role("unit"),
    ],
    stats: std::borrow::Cow::Borrowed(&[
        stat("strength"),
        stat("speed"),
        stat("skill"),
        stat("armour"),
    ]),
    dice: &[
        dice("attacker", "extra_dice"),
        dice("unit", "extra_dice"),
        dice("thrower", "extra_dice"),
        dice("defender", "defender_extra_dice"),
        dice("catcher", "catcher_extra_dice"),
    ],
    responses: &[ResponseKnob {
        key: "response",
        choices: &["slamback", "dodge"],
    }],
    readings: &[
        Reading::int("explode_on", 0, 6, 0),
        Reading::choice("double_rule", &["twice", "margin2"], "twice"),
        Reading::choice("escalation", &["shared", "per_test"], "shared"),
        Reading::choice(
            "catch_pool",
            &["throw_successes", "three_plus_throw"],
            "throw_successes",
        ),
        Reading::int("threat_cap", 0, 10, 2),
        Reading::int("base_dice", 0, 20, 3),
    ],
};

impl super::System for Rush {
    fn name(&self) -> &'static str {
        "rush"
    }

    fn load(&self, root: &Reader, _cancel: &Cancel) -> Result<Box<dyn Loaded>, Problem> {
        Ok(Box::new(config::read(root)?))
    }

    fn knobs(&self) -> Knobs {
        KNOBS.clone()
    }
}

loaded_with_rules!(RushConfig);
