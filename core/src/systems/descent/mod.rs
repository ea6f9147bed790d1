//! `descent`: Descent: Journeys in the Dark (1st edition) attacks (docs/games/descent.md):
//! custom-faced dice, range, surges, power dice, Aim and Dodge,
//! and distance profiles.

pub mod config;
pub mod rules;

use super::{
    DiceKnob, Knobs, Loaded, Reading, ReadingKind, ResponseKnob, RoleKnob, ScenarioInfo, Shown,
    StatKnob,
};
use crate::cancel::Cancel;
use crate::config::{reader::Reader, Problem};
use config::{DescentConfig, MAX_ARMOUR, MAX_PIERCE, MAX_POWER_DICE, MAX_WOUNDS};

/// The `descent` system as the registry sees it: loads a config, names its knobs.
pub struct Descent;

static KNOBS: Knobs = Knobs {
    roles: &[
        RoleKnob {
            key: "weapon",
            table: "weapons",
        },
        RoleKnob {
            key: "target",
            table: "monsters",
        },
        RoleKnob {
            key: "hero",
            table: "heroes",
        },
    ],
    stats: std::borrow::Cow::Borrowed(&[
        StatKnob {
            table: "weapons",
            key: std::borrow::Cow::Borrowed("pierce"),
            better: 1,
            lo: 0,
            hi: MAX_PIERCE,
            shown: Shown::Plain,
        },
        StatKnob {
            table: "monsters",
            key: std::borrow::Cow::Borrowed("armour"),
            better: 1,
            lo: 0,
            hi: MAX_ARMOUR,
            shown: Shown::Plain,
        },
        StatKnob {
            table: "monsters",
            key: std::borrow::Cow::Borrowed("wounds"),
            better: 1,
            lo: 1,
            hi: MAX_WOUNDS,
            shown: Shown::Plain,
        },
    ]),
    // Power dice are the attacker's only extra dice; the hero carries how many it rolls.
    dice: &[DiceKnob {
        side: "weapon",
        key: "power_dice",
        lo: 0,
        hi: MAX_POWER_DICE,
        noun: ("power die", "power dice"),
        default_from: Some(("hero", "power_dice")),
    }],
    // The target's Dodge order: none, or a re-roll policy.
    responses: &[ResponseKnob {
        key: "dodge",
        choices: &["none", "keep_all", "misses_only", "optimal"],
    }],
    readings: &[Reading {
        key: "power_die",
        kind: ReadingKind::Entry {
            table: "dice",
            default: "black",
        },
    }],
};

impl super::System for Descent {
    fn name(&self) -> &'static str {
        "descent"
    }

    fn load(&self, root: &Reader, _cancel: &Cancel) -> Result<Box<dyn Loaded>, Problem> {
        Ok(Box::new(config::read(root)?))
    }

    fn knobs(&self) -> Knobs {
        KNOBS.clone()
    }
}

impl Loaded for DescentConfig {
    fn scenarios(&self) -> Vec<ScenarioInfo> {
        super::infos(&self.scenarios)
    }

    fn compile(&self, i: usize, _cancel: &crate::cancel::Cancel) -> Option<crate::model::Compiled> {
        let s = self.scenarios.get(i)?;
        Some(s.compile())
    }

    /// Without compiling: working out an attack's re-roll policy is the costly part of a
    /// compile.
    fn describe(&self, i: usize) -> Option<String> {
        let s = self.scenarios.get(i)?;
        let generated = match &s.scenario {
            config::Scenario::Attack(a) => rules::describe(a),
            config::Scenario::Turn { .. } => return Some(s.compile().description),
        };
        Some(match &s.description {
            Some(d) => crate::config::described(d, &generated),
            None => generated,
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
