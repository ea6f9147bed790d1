//! `system = "dozen"`: `[rules]`, `[characters.ID]` and `[scenarios.NAME]`.

use crate::config::reader::{list, nearest_hint, Reader};
use crate::config::{Kind, Problem};
use crate::systems::dozen::d12::MAX_POOL;
use crate::systems::dozen::rules::{
    Ability, BagDraw, Character, Contestant, Difficulty, InjuredGreen, Mode, Rules, Scenario,
    SecondCharge,
};
use toml::Value;

/// A checked `dozen` config.
#[derive(Clone, Debug, PartialEq)]
pub struct DozenConfig {
    /// `[rules]`, or the defaults.
    pub rules: Rules,
    /// `[characters.ID]` in file order.
    pub characters: Vec<Character>,
    /// `[scenarios.NAME]` in file order.
    pub scenarios: Vec<Named>,
}

/// A `dozen` scenario with its name and the designer's description.
pub type Named = crate::config::Named<Scenario>;

impl Named {
    /// The scenario's sampler and exact distribution under `rules`, described.
    pub fn compile(&self, rules: &Rules) -> crate::model::Compiled {
        self.describe(crate::systems::dozen::rules::compile(
            &self.name,
            &self.scenario,
            rules,
        ))
    }
}

/// A reader of one kind of scenario.
type Read = fn(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem>;

/// Scenario kinds, the keys each one takes (besides `kind` and `description`) and its reader.
const KINDS: &[Kind<Read>] = &[
    Kind {
        name: "terrain",
        keys: &["character", "mode", "difficulty", "start_height"],
        read: terrain,
    },
    Kind {
        name: "fall",
        keys: &["character", "height"],
        read: fall,
    },
    Kind {
        name: "jump",
        keys: &["character", "distance", "drop"],
        read: jump,
    },
    Kind {
        name: "melee",
        keys: &[
            "attacker",
            "defender",
            "attacker_extra_dice",
            "defender_extra_dice",
            "attacker_drop",
            "defender_drop",
        ],
        read: melee,
    },
    Kind {
        name: "conflict",
        keys: &["character", "skill", "ability", "difficulty", "extra_dice"],
        read: conflict,
    },
    Kind {
        name: "opposed_conflict",
        keys: &[
            "character",
            "skill",
            "ability",
            "difficulty",
            "extra_dice",
            "opponent",
            "opponent_skill",
            "opponent_ability",
            "opponent_difficulty",
            "opponent_extra_dice",
        ],
        read: opposed_conflict,
    },
    Kind {
        name: "run_past",
        keys: &["character", "shooters", "skill", "ability", "difficulty"],
        read: run_past,
    },
    Kind {
        name: "duel",
        keys: &["a", "b", "bag", "green", "max_activations"],
        read: duel,
    },
];

const CHARACTER_KEYS: &[&str] = &[
    "name", "dx", "co", "st", "ch", "aw", "mv", "weapon", "armour", "skills", "reserve", "cost",
];
const RULE_KEYS: &[&str] = &["natural_fail", "second_charge", "bag_draw", "injured_green"];
const SECOND_CHARGE: &[(&str, SecondCharge)] = &[
    ("after_win", SecondCharge::AfterWin),
    ("always", SecondCharge::Always),
    ("never", SecondCharge::Never),
];
/// Highest ability score and skill level; 12 is the die's top face.
pub const MAX_SCORE: i64 = 12;
/// Longest duel a config may ask for: keeps the state table under ~10^5 entries.
pub const MAX_ACTIVATIONS: i64 = 2000;
/// Deepest fall or gap, in squares.
pub const MAX_HEIGHT: i64 = 60;

/// Read and check a whole `dozen` config.
pub fn read(root: &Reader) -> Result<DozenConfig, Problem> {
    root.only_at_root(&["rules", "characters", "scenarios"])?;
    let rules = crate::config::rules(root, read_rules)?;
    let characters = crate::config::entries(root, "characters", "character", "ID", |_, id, r| {
        read_character(id, &r)
    })?;
    let scenarios = crate::config::scenarios(root, |r| read_scenario(r, &characters))?;
    Ok(DozenConfig {
        rules,
        characters,
        scenarios,
    })
}

fn read_rules(r: &Reader) -> Result<Rules, Problem> {
    r.only(RULE_KEYS)?;
    let mut rules = Rules::default();
    r.int_into("natural_fail", 0, 12, &mut rules.natural_fail)?;
    let draws = [
        ("with_replacement", BagDraw::WithReplacement),
        ("without_replacement", BagDraw::WithoutReplacement),
    ];
    r.pick_into("bag_draw", &draws, &mut rules.bag_draw)?;
    let green = [
        ("cannot_activate", InjuredGreen::CannotActivate),
        ("can_activate", InjuredGreen::CanActivate),
    ];
    r.pick_into("injured_green", &green, &mut rules.injured_green)?;
    r.pick_into("second_charge", SECOND_CHARGE, &mut rules.second_charge)?;
    Ok(rules)
}

fn score(r: &Reader, key: &str, lo: i64, what: &str) -> Result<u32, Problem> {
    r.int_in(key, lo, MAX_SCORE)?
        .map(|v| v as u32)
        .ok_or_else(|| r.problem(key, format!("missing key: {what}, {lo} to {MAX_SCORE}")))
}

fn read_character(id: &str, r: &Reader) -> Result<Character, Problem> {
    r.only(CHARACTER_KEYS)?;
    crate::config::cost(r)?;
    let mut skills = Vec::new();
    if let Some(s) = r.table_opt("skills")? {
        for (k, v) in s.table {
            match v {
                Value::Integer(l) if (0..=MAX_SCORE).contains(l) => {
                    skills.push((k.clone(), *l as u32))
                }
                Value::Integer(l) => {
                    return Err(s.problem(
                        k,
                        format!("expected a skill level from 0 to {MAX_SCORE}, found {l}"),
                    ))
                }
                _ => {
                    return Err(s.problem(
                        k,
                        format!("expected a skill level (an integer from 0 to {MAX_SCORE})"),
                    ))
                }
            }
        }
    }
    Ok(Character {
        id: id.to_string(),
        name: r.string_opt("name")?.unwrap_or_else(|| id.to_string()),
        dx: score(r, "dx", 1, "dexterity DX")?,
        co: score(r, "co", 1, "constitution CO")?,
        st: score(r, "st", 1, "strength ST")?,
        ch: score(r, "ch", 1, "charisma CH")?,
        aw: score(r, "aw", 1, "awareness AW")?,
        mv: score(r, "mv", 0, "move MV in squares")?,
        weapon: r.int_in("weapon", 0, MAX_SCORE)?.unwrap_or(0) as u32,
        armour: r.int_in("armour", 0, MAX_SCORE)?.unwrap_or(0) as u32,
        reserve: r.int_in("reserve", 0, MAX_SCORE)?.map(|v| v as u32),
        skills,
    })
}

fn character(r: &Reader, key: &str, chars: &[Character]) -> Result<Character, Problem> {
    r.find_req(key, chars, |c| &c.id, ("character", "characters"))
        .cloned()
}

fn difficulty(r: &Reader, key: &str, default: Option<Difficulty>) -> Result<Difficulty, Problem> {
    match r.choice_opt(key, Difficulty::NAMES)? {
        Some(s) => Ok(Difficulty::from_name(&s).expect("checked by choice_opt")),
        None => default.ok_or_else(|| {
            r.problem(
                key,
                format!("missing key: one of {}", list(Difficulty::NAMES)),
            )
        }),
    }
}

fn extra(r: &Reader, key: &str) -> Result<i32, Problem> {
    Ok(r.int_in(key, -(MAX_POOL as i64), MAX_POOL as i64)?
        .unwrap_or(0) as i32)
}

/// A pool of more than [`MAX_POOL`] dice is refused at the key that made it.
fn check_pool(r: &Reader, key: &str, dice: u32) -> Result<(), Problem> {
    if dice > MAX_POOL {
        return Err(r.problem(
            key,
            format!("this makes a pool of {dice} d12; at most {MAX_POOL} are supported"),
        ));
    }
    Ok(())
}

/// Skill, ability, difficulty and extra dice of one side of a conflict.
fn contestant(
    r: &Reader,
    who: Character,
    prefix: &str,
    difficulty_default: Option<Difficulty>,
) -> Result<Contestant, Problem> {
    let key = |k: &str| format!("{prefix}{k}");
    let skill_key = key("skill");
    let skill = r.string_opt(&skill_key)?.ok_or_else(|| {
        r.problem(
            &skill_key,
            "missing key: the skill whose level gives the dice",
        )
    })?;
    if !who.skills.iter().any(|(n, _)| *n == skill) {
        let names: Vec<&str> = who.skills.iter().map(|(n, _)| n.as_str()).collect();
        return Err(r.problem(
            &skill_key,
            format!(
                "{} has no skill `{skill}`{}; their skills are {}",
                who.name,
                nearest_hint(&skill, names.iter().copied()),
                if names.is_empty() {
                    "none".to_string()
                } else {
                    list(&names)
                }
            ),
        ));
    }
    let ability_key = key("ability");
    let ability = r
        .choice_opt(&ability_key, Ability::NAMES)?
        .and_then(|a| Ability::from_name(&a))
        .ok_or_else(|| {
            r.problem(
                &ability_key,
                format!(
                    "missing key: the ability rolled against, one of {}",
                    list(Ability::NAMES)
                ),
            )
        })?;
    let c = Contestant {
        who,
        skill,
        ability,
        difficulty: difficulty(r, &key("difficulty"), difficulty_default)?,
        extra_dice: extra(r, &key("extra_dice"))?,
    };
    check_pool(r, &key("extra_dice"), c.dice())?;
    Ok(c)
}

fn read_scenario(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    (crate::config::read_kind(r, KINDS)?.read)(r, chars)
}

/// A height or drop in squares, 0 when not given.
fn height(r: &Reader, key: &str, what: &str) -> Result<u32, Problem> {
    match r.i64_opt(key)? {
        Some(h) if h < 0 => Err(r.problem(
            key,
            format!("expected a {what} of 0 or more squares, found {h}"),
        )),
        Some(h) if h > MAX_HEIGHT => Err(r.problem(
            key,
            format!("expected a {what} of at most {MAX_HEIGHT} squares, found {h}"),
        )),
        Some(h) => Ok(h as u32),
        None => Ok(0),
    }
}

fn terrain(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let mode = match r
        .choice_opt("mode", &["wade", "climb"])?
        .ok_or_else(|| r.problem("mode", "missing key: `wade` or `climb`"))?
        .as_str()
    {
        "climb" => Mode::Climb,
        _ => Mode::Wade,
    };
    if mode == Mode::Wade && r.table.contains_key("start_height") {
        return Err(r.problem(
            "start_height",
            "only a climb can fall: `start_height` needs mode = \"climb\"",
        ));
    }
    Ok(Scenario::Terrain {
        who: character(r, "character", chars)?,
        mode,
        difficulty: difficulty(r, "difficulty", None)?,
        start_height: height(r, "start_height", "height")?,
    })
}

fn fall(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    if !r.table.contains_key("height") {
        return Err(r.problem("height", "missing key: the height fallen, in squares"));
    }
    Ok(Scenario::Fall {
        who: character(r, "character", chars)?,
        height: height(r, "height", "height")?,
    })
}

fn jump(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let who = character(r, "character", chars)?;
    let distance = r
        .i64_opt("distance")?
        .ok_or_else(|| r.problem("distance", "missing key: the jump's length in squares"))?;
    if distance < 1 || distance > who.mv as i64 {
        return Err(r.problem(
            "distance",
            format!(
                "{} (MV {}) can jump 1 to {} squares, found {distance}",
                who.name, who.mv, who.mv
            ),
        ));
    }
    let distance = distance as u32;
    Ok(Scenario::Jump {
        who,
        distance,
        drop: height(r, "drop", "drop")?,
    })
}

fn melee(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let attacker = character(r, "attacker", chars)?;
    let defender = character(r, "defender", chars)?;
    let (ae, de) = (
        extra(r, "attacker_extra_dice")?,
        extra(r, "defender_extra_dice")?,
    );
    let dice = |c: &Character, e: i32| (c.skill("melee") as i32 + e).max(0) as u32;
    check_pool(r, "attacker_extra_dice", dice(&attacker, ae))?;
    check_pool(r, "defender_extra_dice", dice(&defender, de))?;
    Ok(Scenario::Melee {
        attacker,
        defender,
        attacker_extra_dice: ae,
        defender_extra_dice: de,
        drops: [
            height(r, "attacker_drop", "drop")?,
            height(r, "defender_drop", "drop")?,
        ],
    })
}

fn conflict(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let who = character(r, "character", chars)?;
    Ok(Scenario::Conflict(contestant(r, who, "", None)?))
}

fn opposed_conflict(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let who = character(r, "character", chars)?;
    let opp = character(r, "opponent", chars)?;
    let active = contestant(r, who, "", Some(Difficulty::Hard))?;
    let opponent = contestant(r, opp, "opponent_", Some(Difficulty::Hard))?;
    for (c, key) in [(&active, "difficulty"), (&opponent, "opponent_difficulty")] {
        if c.difficulty == Difficulty::VeryEasy {
            return Err(r.problem(
                key,
                "an opposed conflict compares rolls, so both sides roll: `very_easy` (no roll) does not apply",
            ));
        }
    }
    Ok(Scenario::Opposed { active, opponent })
}

fn run_past(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let runner = character(r, "character", chars)?;
    let ids = match r.table.get("shooters") {
        Some(Value::Array(v))
            if (1..=MAX_SHOOTERS).contains(&v.len())
                && v.iter().all(|x| x.is_str()) =>
        {
            v.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        }
        _ => {
            return Err(r.problem(
                "shooters",
                format!("expected a list of 1 to {MAX_SHOOTERS} character ids, the shooters with loaded weapons, e.g. [\"archer\", \"archer\"]"),
            ))
        }
    };
    let skill = r.string_opt("skill")?.unwrap_or_else(|| "shoot".into());
    let ability = r
        .choice_opt("ability", Ability::NAMES)?
        .and_then(|a| Ability::from_name(&a))
        .unwrap_or(Ability::Dx);
    let difficulty = difficulty(r, "difficulty", Some(Difficulty::Normal))?;
    let mut shooters = Vec::new();
    for id in &ids {
        let who = r.find(
            "shooters",
            id,
            chars,
            |c| &c.id,
            ("character", "characters"),
        )?;
        if who.skill(&skill) == 0 {
            let key = if r.table.contains_key("skill") {
                "skill"
            } else {
                "shooters"
            };
            return Err(r.problem(
                key,
                format!(
                    "{} has no `{skill}` skill to shoot with; give it a level (skills = {{ {skill} = 2 }}) or name the skill with `skill`",
                    who.name
                ),
            ));
        }
        check_pool(r, "shooters", who.skill(&skill))?;
        shooters.push(Contestant {
            who: who.clone(),
            skill: skill.clone(),
            ability,
            difficulty,
            extra_dice: 0,
        });
    }
    Ok(Scenario::RunPast { runner, shooters })
}

fn duel(r: &Reader, chars: &[Character]) -> Result<Scenario, Problem> {
    let a = character(r, "a", chars)?;
    let b = character(r, "b", chars)?;
    let bag = match r.table.get("bag") {
        None => [1, 1],
        Some(Value::Array(v))
            if v.len() == 2 && v.iter().all(|x| matches!(x.as_integer(), Some(1..=100))) =>
        {
            [
                v[0].as_integer().unwrap_or(1) as u32,
                v[1].as_integer().unwrap_or(1) as u32,
            ]
        }
        Some(_) => return Err(r.problem(
            "bag",
            "expected two counts from 1 to 100, the dice of `a` and of `b` in the bag, e.g. [1, 1]",
        )),
    };
    let green = match r.table.get("green") {
        None => [0, 0],
        Some(Value::Array(v))
            if v.len() == 2
                && v.iter().zip(bag).all(|(x, n)| {
                    x.as_integer().is_some_and(|g| (0..=n as i64).contains(&g))
                }) =>
        {
            [
                v[0].as_integer().unwrap_or(0) as u32,
                v[1].as_integer().unwrap_or(0) as u32,
            ]
        }
        Some(_) => {
            return Err(r.problem(
                "green",
                format!(
                    "expected two counts, how many of the dice of `a` (0 to {}) and of `b` (0 to {}) are green, e.g. [1, 0]",
                    bag[0], bag[1]
                ),
            ))
        }
    };
    let max = r
        .int_in("max_activations", 1, MAX_ACTIVATIONS)?
        .unwrap_or(DEFAULT_MAX_ACTIVATIONS) as u32;
    for (c, key) in [(&a, "a"), (&b, "b")] {
        check_pool(r, key, c.skill("melee"))?;
    }
    Ok(Scenario::Duel {
        a,
        b,
        bag,
        green,
        max_activations: max,
    })
}

/// Most shooters one run past may draw.
pub const MAX_SHOOTERS: usize = 8;

/// Activations after which a duel stops as unfinished, unless the config says.
pub const DEFAULT_MAX_ACTIVATIONS: i64 = 300;
