//! `system = "skirmish"`: `[rules]` (the dice resolution), `[units.ID]` and
//! `[scenarios.NAME]`. A `shoot_decision` or `charge_decision` scenario expands into one
//! exchange per reaction the target may choose, named `NAME@go_to_ground` and so on, and
//! is reported as a decision table.

use crate::config::reader::{list, nearest_hint, Reader};
use crate::config::{Kind, Named, Problem};
use crate::model::Group;
use crate::systems::skirmish::rules::{
    plan_shots, Action, BreakTest, ChargeReaction, CombatBonus, FirefightRules, Rules, Scenario,
    Sense, ShotReaction, Stats, Unit,
};

/// A checked `skirmish` config.
#[derive(Clone, Debug, PartialEq)]
pub struct SkirmishConfig {
    /// `[rules]`, or the defaults.
    pub rules: Rules,
    /// `[units.ID]` in file order.
    pub units: Vec<Unit>,
    /// `[scenarios.NAME]`, a group's members each on its own.
    pub scenarios: Vec<Named<Scenario>>,
}

impl Named<Scenario> {
    /// The scenario's sampler and exact distribution under `rules`, described.
    pub fn compile(&self, rules: &Rules) -> crate::model::Compiled {
        self.describe(crate::systems::skirmish::rules::compile(
            &self.name,
            &self.scenario,
            rules,
        ))
    }
}

/// A reader of one kind of scenario: the scenarios one table stands for, each with its
/// name suffix ("" for a plain one).
type Read = fn(&Reader, &[Unit]) -> Result<Vec<(String, Scenario)>, Problem>;

/// Scenario kinds, the keys each one takes (besides `kind` and `description`) and its reader.
const KINDS: &[Kind<Read>] = &[
    Kind {
        name: "shoot",
        keys: &["shooter", "target", "aimed", "reaction"],
        read: shoot,
    },
    Kind {
        name: "charge",
        keys: &[
            "charger",
            "target",
            "reaction",
            "over_half",
            "target_fatigued",
        ],
        read: charge,
    },
    Kind {
        name: "shoot_decision",
        keys: &["shooter", "target", "aimed"],
        read: shoot_decision,
    },
    Kind {
        name: "charge_decision",
        keys: &["charger", "target", "over_half"],
        read: charge_decision,
    },
    Kind {
        name: "morale",
        keys: &["unit", "test", "tokens"],
        read: morale,
    },
    Kind {
        name: "firefight",
        keys: &[
            "a",
            "b",
            "a_reaction",
            "b_reaction",
            "rounds",
            "fatigue",
            "morale_tokens",
            "a_tokens",
            "b_tokens",
            "a_regroup",
            "b_regroup",
            "ready_markers",
            "a_ready",
            "b_ready",
        ],
        read: firefight,
    },
    Kind {
        name: "combat",
        keys: &[
            "charger",
            "target",
            "reaction",
            "over_half",
            "rounds",
            "target_fatigued",
        ],
        read: combat,
    },
    Kind {
        name: "volley",
        keys: &["shooter", "target", "plan", "reaction"],
        read: volley,
    },
];

/// Most morale tokens a firefight side may start with or Regroup at.
pub const MAX_TOKENS: i64 = 20;

/// Ranges of the unit stats a balance command may step: `attack_dice`.
pub const ATTACK_DICE: (i64, i64) = (0, 10);
/// `shoot` and `fight`, added to the attack roll.
pub const SKILL: (i64, i64) = (-20, 20);
/// `target_value`, the number an attack roll must reach.
pub const TARGET_VALUE: (i64, i64) = (0, 50);
/// `models` in a unit.
pub const MODELS: (i64, i64) = (1, 100);

const UNIT_KEYS: &[&str] = &[
    "name",
    "models",
    "attack_dice",
    "shoot",
    "fight",
    "target_value",
    "defence",
    "cover",
    "shields",
    "charge_bonus",
    "defend_bonus",
    "morale",
    "move",
    "run",
];

/// Reactions the rules name that cannot answer these actions, with the reason.
const FORBIDDEN: &[(&str, &str)] = &[
    ("cast_spell", "spells may never be cast as a reaction"),
    (
        "counter_spell",
        "a counter spell answers a spell, not a shot or a charge",
    ),
    ("store_power", "storing power is an action, not a reaction"),
];

/// Read and check a whole `skirmish` config.
pub fn read(root: &Reader) -> Result<SkirmishConfig, Problem> {
    root.only_at_root(&["rules", "units", "scenarios"])?;
    let rules = crate::config::rules(root, read_rules)?;
    let units = crate::config::entries(root, "units", "unit", "ID", |_, id, r| {
        read_unit(id, &r, &rules)
    })?;
    let mut scenarios = Vec::new();
    for named in crate::config::scenarios(root, |r| read_scenario(r, &units))? {
        for (suffix, sc) in named.scenario {
            scenarios.push(Named {
                name: format!("{}{suffix}", named.name),
                table: named.name.clone(),
                description: named.description.clone(),
                scenario: sc,
            });
        }
    }
    Ok(SkirmishConfig {
        rules,
        units,
        scenarios,
    })
}

fn read_rules(r: &Reader) -> Result<Rules, Problem> {
    r.only(&[
        "die",
        "natural_hit",
        "natural_miss",
        "saves",
        "morale",
        "break_test",
        "casualty_modifier",
        "combat_bonus",
    ])?;
    let mut rules = Rules::default();
    r.int_into("die", 2, 100, &mut rules.die)?;
    let die = rules.die as i64;
    rules.natural_hit = r.int_in("natural_hit", 0, die)?.unwrap_or(0) as u32;
    rules.natural_miss = r.int_in("natural_miss", 0, die)?.unwrap_or(0) as u32;
    rules.saves = r.bool_or("saves", true)?;
    let senses = [("at_most", Sense::AtMost), ("at_least", Sense::AtLeast)];
    r.pick_into("morale", &senses, &mut rules.morale_sense)?;
    let breaks = [
        ("casualties", BreakTest::Casualties),
        ("never", BreakTest::Never),
    ];
    r.pick_into("break_test", &breaks, &mut rules.break_test)?;
    r.int_into("casualty_modifier", 0, 10, &mut rules.casualty_modifier)?;
    let bonuses = [("to_hit", CombatBonus::ToHit), ("dice", CombatBonus::Dice)];
    r.pick_into("combat_bonus", &bonuses, &mut rules.combat_bonus)?;
    Ok(rules)
}

fn read_unit(id: &str, r: &Reader, rules: &Rules) -> Result<Unit, Problem> {
    r.only(UNIT_KEYS)?;
    crate::config::cost(r)?;
    let req = |key: &str, lo: i64, hi: i64, what: &str| -> Result<i64, Problem> {
        r.int_in(key, lo, hi)?
            .ok_or_else(|| r.problem(key, format!("missing key: {what}, {lo} to {hi}")))
    };
    if let Some(t) = r.i64_opt("target_value")? {
        if t < 0 {
            return Err(r.problem(
                "target_value",
                format!("a target value cannot be negative, found {t}"),
            ));
        }
    }
    let die = rules.die as i64;
    Ok(Unit {
        id: id.to_string(),
        name: r.string_opt("name")?.unwrap_or_else(|| id.to_string()),
        stats: Stats {
            models: req("models", MODELS.0, MODELS.1, "the unit's models")? as u32,
            attack_dice: r
                .int_in("attack_dice", ATTACK_DICE.0, ATTACK_DICE.1)?
                .unwrap_or(1) as u32,
            shoot: r.int_in("shoot", SKILL.0, SKILL.1)?.unwrap_or(0) as i32,
            fight: r.int_in("fight", SKILL.0, SKILL.1)?.unwrap_or(0) as i32,
            target_value: req(
                "target_value",
                TARGET_VALUE.0,
                TARGET_VALUE.1,
                "the number an attack roll must reach",
            )? as i32,
            defence: req(
                "defence",
                1,
                die + 1,
                "the defence roll that saves (die + 1: no save)",
            )? as u32,
            cover: r.int_in("cover", 0, 20)?.unwrap_or(0) as i32,
            shields: r.bool_or("shields", false)?,
            charge_bonus: r.int_in("charge_bonus", 0, 20)?.unwrap_or(0) as i32,
            defend_bonus: r.int_in("defend_bonus", 0, 20)?.unwrap_or(0) as i32,
            morale: req(
                "morale",
                0,
                die + 10,
                "the morale number tests are rolled against",
            )? as i32,
            moves: r.int_in("move", 0, 60)?.unwrap_or(6) as u32,
            run: r.int_in("run", 0, 60)?.unwrap_or(12) as u32,
        },
    })
}

fn unit(r: &Reader, key: &str, units: &[Unit]) -> Result<Unit, Problem> {
    r.find_req(key, units, |u| &u.id, ("unit", "units"))
        .cloned()
}

/// A reaction name, with the rules' reason when it names something that cannot react.
fn reaction<T>(
    r: &Reader,
    key: &str,
    names: &[&str],
    parse: fn(&str) -> Option<T>,
) -> Result<Option<T>, Problem> {
    let Some(s) = r.string_opt(key)? else {
        return Ok(None);
    };
    if let Some((_, why)) = FORBIDDEN.iter().find(|(n, _)| *n == s) {
        return Err(r.problem(key, format!("`{s}` cannot be a reaction here: {why}")));
    }
    parse(&s).map(Some).ok_or_else(|| {
        r.problem(
            key,
            format!(
                "unknown reaction `{s}`{}; expected one of {}",
                nearest_hint(&s, names.iter().copied()),
                list(names)
            ),
        )
    })
}

/// Shield Wall needs shields, and halves the attack dice: a pool of 0 or 1 would halve
/// to nothing.
fn check_shield_wall(r: &Reader, key: &str, target: &Unit) -> Result<(), Problem> {
    if !target.shields {
        return Err(r.problem(
            key,
            format!("{} has no shields: only units with shields may form a shield wall (set `shields = true` on the unit)", target.name),
        ));
    }
    if target.pool() < 2 {
        return Err(r.problem(
            key,
            format!(
                "a shield wall halves {}'s {} attack dice (rounding down) to 0",
                target.name,
                target.pool()
            ),
        ));
    }
    Ok(())
}

fn group(r: &Reader, label: String, choice: &str, index: usize) -> Group {
    Group {
        name: r.key_path("").get(1).cloned().unwrap_or_default(),
        label,
        x_desc: "reaction".into(),
        x: index as f64,
        series: choice.replace('_', " "),
        choice: true,
    }
}

/// The charged unit and its reaction (a shield wall needs shields).
fn charged(r: &Reader, units: &[Unit]) -> Result<(Unit, ChargeReaction), Problem> {
    let target = unit(r, "target", units)?;
    // The rules: a unit charged while fatigued (it acted or reacted this turn) flees.
    if r.bool_or("target_fatigued", false)? {
        let given = reaction(
            r,
            "reaction",
            ChargeReaction::NAMES,
            ChargeReaction::from_name,
        )?;
        if given.is_some_and(|x| x != ChargeReaction::None) {
            return Err(r.problem(
                "reaction",
                "a fatigued unit cannot react: charged, it flees (leave `reaction` out or write \"none\")",
            ));
        }
        return Ok((target, ChargeReaction::None));
    }
    let reaction = reaction(
        r,
        "reaction",
        ChargeReaction::NAMES,
        ChargeReaction::from_name,
    )?
    .ok_or_else(|| {
        r.problem(
            "reaction",
            format!(
                "missing key: one of {} (a charged unit must react or flee: `none`)",
                list(ChargeReaction::NAMES)
            ),
        )
    })?;
    if reaction == ChargeReaction::ShieldWall {
        check_shield_wall(r, "reaction", &target)?;
    }
    Ok((target, reaction))
}

fn read_scenario(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    (crate::config::read_kind(r, KINDS)?.read)(r, units)
}

fn shoot(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let target = unit(r, "target", units)?;
    let reaction = reaction(r, "reaction", ShotReaction::NAMES, ShotReaction::from_name)?
        .unwrap_or(ShotReaction::None);
    Ok(vec![(
        String::new(),
        Scenario::Shoot {
            shooter: unit(r, "shooter", units)?,
            target,
            aimed: r.bool_or("aimed", false)?,
            reaction,
            group: None,
        },
    )])
}

fn charge(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let (target, reaction) = charged(r, units)?;
    Ok(vec![(
        String::new(),
        Scenario::Charge {
            charger: unit(r, "charger", units)?,
            target,
            reaction,
            over_half: r.bool_or("over_half", true)?,
            group: None,
        },
    )])
}

fn shoot_decision(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let shooter = unit(r, "shooter", units)?;
    let target = unit(r, "target", units)?;
    let aimed = r.bool_or("aimed", false)?;
    let label = r.string_opt("description")?.unwrap_or_else(|| {
        format!(
            "{} {}: how should it react?",
            crate::text::agrees(&shooter.name, "shoots", "shoot"),
            target.name
        )
    });
    Ok(ShotReaction::NAMES
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let reaction = ShotReaction::from_name(n).expect("listed");
            (
                format!("@{n}"),
                Scenario::Shoot {
                    shooter: shooter.clone(),
                    target: target.clone(),
                    aimed,
                    reaction,
                    group: Some(group(r, label.clone(), n, i)),
                },
            )
        })
        .collect())
}

fn charge_decision(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let charger = unit(r, "charger", units)?;
    let target = unit(r, "target", units)?;
    let over_half = r.bool_or("over_half", true)?;
    let label = r.string_opt("description")?.unwrap_or_else(|| {
        format!(
            "{} {}: how should it react?",
            crate::text::agrees(&charger.name, "charges", "charge"),
            target.name
        )
    });
    let mut choices = vec![ChargeReaction::CounterCharge, ChargeReaction::Defend];
    if target.shields {
        check_shield_wall(r, "target", &target)?;
        choices.push(ChargeReaction::ShieldWall);
    }
    Ok(choices
        .into_iter()
        .enumerate()
        .map(|(i, reaction)| {
            (
                format!("@{}", reaction.name()),
                Scenario::Charge {
                    charger: charger.clone(),
                    target: target.clone(),
                    reaction,
                    over_half,
                    group: Some(group(r, label.clone(), reaction.name(), i)),
                },
            )
        })
        .collect())
}

fn morale(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let rally = r
        .choice_opt("test", &["rally", "flee"])?
        .ok_or_else(|| r.problem("test", "missing key: `rally` or `flee`"))?
        == "rally";
    Ok(vec![(
        String::new(),
        Scenario::Morale {
            unit: unit(r, "unit", units)?,
            rally,
            tokens: r.int_in("tokens", 0, 20)?.unwrap_or(0) as u32,
        },
    )])
}

fn firefight(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let shot = |k: &str| -> Result<ShotReaction, Problem> {
        let x = reaction(r, k, ShotReaction::NAMES, ShotReaction::from_name)?
            .unwrap_or(ShotReaction::None);
        if x == ShotReaction::Run {
            return Err(r.problem(
                k,
                "a firefight stands its ground: `none`, `shoot_back` or `go_to_ground`",
            ));
        }
        Ok(x)
    };
    Ok(vec![(
        String::new(),
        Scenario::Firefight {
            a: unit(r, "a", units)?,
            b: unit(r, "b", units)?,
            a_reaction: shot("a_reaction")?,
            b_reaction: shot("b_reaction")?,
            rounds: r
                .int_in("rounds", 1, 20)?
                .ok_or_else(|| r.problem("rounds", "missing key: rounds, 1 to 20"))?
                as u32,
            economy: FirefightRules {
                fatigue: r.bool_or("fatigue", false)?,
                tokens: {
                    let on = r.bool_or("morale_tokens", false)?;
                    let needs = ["a_tokens", "b_tokens", "a_regroup", "b_regroup"];
                    if let Some(k) = needs.iter().find(|k| r.table.contains_key(**k)) {
                        if !on {
                            return Err(r.problem(
                                k,
                                "morale tokens count only with `morale_tokens = true`",
                            ));
                        }
                    }
                    on
                },
                start_tokens: [
                    r.int_in("a_tokens", 0, MAX_TOKENS)?.unwrap_or(0) as u32,
                    r.int_in("b_tokens", 0, MAX_TOKENS)?.unwrap_or(0) as u32,
                ],
                regroup_at: [
                    r.int_in("a_regroup", 1, MAX_TOKENS)?.map(|v| v as u32),
                    r.int_in("b_regroup", 1, MAX_TOKENS)?.map(|v| v as u32),
                ],
                ready: {
                    let on = r.bool_or("ready_markers", false)?;
                    for k in ["a_ready", "b_ready"] {
                        if !on && r.table.contains_key(k) {
                            return Err(r.problem(
                                k,
                                "ready markers count only with `ready_markers = true`",
                            ));
                        }
                    }
                    on
                },
                start_ready: [r.bool_or("a_ready", true)?, r.bool_or("b_ready", true)?],
            },
        },
    )])
}

fn combat(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let (target, reaction) = charged(r, units)?;
    Ok(vec![(
        String::new(),
        Scenario::Combat {
            charger: unit(r, "charger", units)?,
            target,
            reaction,
            over_half: r.bool_or("over_half", true)?,
            rounds: r
                .int_in("rounds", 1, 20)?
                .ok_or_else(|| r.problem("rounds", "missing key: rounds, 1 to 20"))?
                as u32,
        },
    )])
}

fn volley(r: &Reader, units: &[Unit]) -> Result<Vec<(String, Scenario)>, Problem> {
    let expected = format!(
        "a list of 1 to 6 actions, each one of {}, e.g. [\"make_ready\", \"aim\", \"shoot\"]",
        list(Action::NAMES)
    );
    let arr = match r.table.get("plan") {
        Some(toml::Value::Array(a)) if (1..=6).contains(&a.len()) => a,
        Some(_) => return Err(r.problem("plan", format!("expected {expected}"))),
        None => return Err(r.problem("plan", format!("missing key: {expected}"))),
    };
    let mut plan = Vec::new();
    for v in arr {
        let name = v.as_str().unwrap_or_default();
        plan.push(Action::from_name(name).ok_or_else(|| {
            r.problem(
                "plan",
                format!(
                    "unknown action `{name}`{}; expected {expected}",
                    nearest_hint(name, Action::NAMES.iter().copied())
                ),
            )
        })?);
    }
    let reaction = reaction(r, "reaction", ShotReaction::NAMES, ShotReaction::from_name)?
        .unwrap_or(ShotReaction::None);
    if reaction == ShotReaction::Run {
        return Err(r.problem(
            "reaction",
            "a unit shot at over a whole turn stays: `none`, `shoot_back` or `go_to_ground`",
        ));
    }
    // Aim needs a ready marker.
    let mut ready = false;
    for (i, a) in plan.iter().enumerate() {
        match a {
            Action::MakeReady => ready = true,
            Action::Aim if !ready => {
                return Err(r.problem(
                    "plan",
                    format!(
                        "the aim at step {} has no ready marker: `make_ready` first",
                        i + 1
                    ),
                ))
            }
            _ => {}
        }
    }
    // Without any return fire a shot lacks a marker only by the plan's own order.
    let (shots, lost) = plan_shots(&plan, ShotReaction::None);
    if let Some(step) = lost.first() {
        return Err(r.problem(
            "plan",
            format!("the shot at step {step} has no ready marker: `make_ready` first"),
        ));
    }
    if shots.is_empty() {
        return Err(r.problem("plan", "the plan never shoots: add `shoot`"));
    }
    Ok(vec![(
        String::new(),
        Scenario::Volley {
            shooter: unit(r, "shooter", units)?,
            target: unit(r, "target", units)?,
            plan,
            reaction,
        },
    )])
}
