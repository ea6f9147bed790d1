//! `dozen`: the "Dozen Die" d12 roll-under skirmish RPG (docs/games/dozen.md):
//! terrain, falls, jumps, conflicts, face-to-face melee and duels.

pub mod config;
pub mod d12;
pub mod rules;

use super::{DiceKnob, Knobs, Loaded, Reading, RoleKnob, Shown, StatKnob};
use crate::cancel::Cancel;
use crate::config::{reader::Reader, Problem};
use config::{DozenConfig, MAX_SCORE};
use d12::MAX_POOL;

/// The `dozen` system as the registry sees it: loads a config, names its knobs.
pub struct Dozen;

const fn stat(key: &'static str, lo: i64) -> StatKnob {
    StatKnob {
        table: "characters",
        key: std::borrow::Cow::Borrowed(key),
        better: 1,
        lo,
        hi: MAX_SCORE,
        shown: Shown::Plain,
    }
}

const fn dice(side: &'static str, key: &'static str) -> DiceKnob {
    DiceKnob {
        side,
        key,
        lo: -(MAX_POOL as i64),
        hi: MAX_POOL as i64,
        noun: ("die", "dice"),
        default_from: None,
    }
}

const fn role(key: &'static str) -> RoleKnob {
    RoleKnob {
        key,
        table: "characters",
    }
}

static KNOBS: Knobs = Knobs {
    roles: &[
        role("attacker"),
        role("defender"),
        role("a"),
        role("b"),
        role("character"),
        role("opponent"),
    ],
    stats: std::borrow::Cow::Borrowed(&[
        stat("dx", 1),
        stat("co", 1),
        stat("st", 1),
        stat("ch", 1),
        stat("aw", 1),
        stat("weapon", 0),
        stat("armour", 0),
        stat("skills.melee", 0),
        stat("skills.endurance", 0),
    ]),
    dice: &[
        dice("attacker", "attacker_extra_dice"),
        dice("defender", "defender_extra_dice"),
        dice("character", "extra_dice"),
        dice("opponent", "opponent_extra_dice"),
    ],
    responses: &[],
    readings: &[
        Reading::int("natural_fail", 0, 12, 12),
        Reading::choice(
            "second_charge",
            &["after_win", "always", "never"],
            "after_win",
        ),
        Reading::choice(
            "bag_draw",
            &["with_replacement", "without_replacement"],
            "with_replacement",
        ),
        Reading::choice(
            "injured_green",
            &["cannot_activate", "can_activate"],
            "cannot_activate",
        ),
    ],
};

impl super::System for Dozen {
    fn name(&self) -> &'static str {
        "dozen"
    }

    fn load(&self, root: &Reader, _cancel: &Cancel) -> Result<Box<dyn Loaded>, Problem> {
        Ok(Box::new(config::read(root)?))
    }

    fn knobs(&self) -> Knobs {
        KNOBS.clone()
    }
}

loaded_with_rules!(DozenConfig);
