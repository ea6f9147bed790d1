//! `skirmish`: the unit wargame with simultaneous reactions of seed 003 (RULES.md section
//! 3): shooting and charging with reactions, morale, firefights and decision tables.

pub mod config;
pub mod rules;

use super::{Knobs, Loaded, Reading, ReadingKind, ResponseKnob, RoleKnob, Shown, StatKnob};
use crate::config::{reader::Reader, Problem};
use config::{SkirmishConfig, ATTACK_DICE, MODELS, SKILL, TARGET_VALUE};

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
        Reading {
            key: "die",
            kind: ReadingKind::Int {
                lo: 2,
                hi: 100,
                default: 10,
            },
        },
        Reading {
            key: "natural_hit",
            // Up to the die's faces: the default d10's (a config with a bigger `die`
            // takes more, typed as the CLI takes them).
            kind: ReadingKind::Int {
                lo: 0,
                hi: 10,
                default: 0,
            },
        },
        Reading {
            key: "natural_miss",
            // Up to the die's faces: the default d10's (a config with a bigger `die`
            // takes more, typed as the CLI takes them).
            kind: ReadingKind::Int {
                lo: 0,
                hi: 10,
                default: 0,
            },
        },
        Reading {
            key: "saves",
            kind: ReadingKind::Flag { default: true },
        },
        Reading {
            key: "morale",
            kind: ReadingKind::Choice {
                choices: &["at_most", "at_least"],
                default: "at_most",
            },
        },
        Reading {
            key: "break_test",
            kind: ReadingKind::Choice {
                choices: &["casualties", "never"],
                default: "casualties",
            },
        },
        Reading {
            key: "casualty_modifier",
            kind: ReadingKind::Int {
                lo: 0,
                hi: 10,
                default: 1,
            },
        },
        Reading {
            key: "combat_bonus",
            kind: ReadingKind::Choice {
                choices: &["to_hit", "dice"],
                default: "to_hit",
            },
        },
    ],
};

impl super::System for Skirmish {
    fn name(&self) -> &'static str {
        "skirmish"
    }

    fn load(&self, root: &Reader) -> Result<Box<dyn Loaded>, Problem> {
        Ok(Box::new(config::read(root)?))
    }

    fn knobs(&self) -> Knobs {
        KNOBS.clone()
    }
}

loaded_with_rules!(SkirmishConfig);
