//! `system = "descent"`: `[rules]`, `[dice.ID]`, `[weapons.ID]`, `[heroes.ID]`,
//! `[monsters.ID]` and `[scenarios.NAME]`. A `profile` scenario expands into one attack
//! per distance (or power-dice count), with and without Aim, named `NAME@d4` and
//! `NAME@d4+aim`.

use crate::config::reader::{list, nearest_hint, Reader};
use crate::config::{Kind, Named, Problem};
use crate::model::Group;
use crate::systems::descent::rules::{
    Attack, Die, Face, Hero, Monster, Objective, Policy, SurgeAbility, Weapon, MAX_ATTACK_DICE,
};
use toml::Value;

/// A checked `descent` config.
#[derive(Clone, Debug, PartialEq)]
pub struct DescentConfig {
    /// `[dice.ID]`: the faces of each die.
    pub dice: Vec<Die>,
    /// `[weapons.ID]`.
    pub weapons: Vec<Weapon>,
    /// `[heroes.ID]`.
    pub heroes: Vec<Hero>,
    /// `[monsters.ID]`: the targets.
    pub monsters: Vec<Monster>,
    /// `[scenarios.NAME]`, a profile's members each on its own.
    pub scenarios: Vec<Named<Scenario>>,
}

/// One scenario: an attack, or an overlord turn of several attacks on one target.
#[derive(Clone, Debug, PartialEq)]
pub enum Scenario {
    /// One attack.
    Attack(Box<Attack>),
    /// The attacks of one turn (the first carries any Aim) and the target's wounds left.
    Turn {
        /// The turn's attacks, in order.
        attacks: Vec<Attack>,
        /// The target's wounds at the start of the turn.
        wounds: u8,
        /// The target's Guard order: its interrupt attack on the first attacker.
        guard: Option<Box<Attack>>,
    },
}

impl Named<Scenario> {
    /// The scenario's sampler and exact distribution, described.
    pub fn compile(&self) -> crate::model::Compiled {
        use crate::systems::descent::rules;
        self.describe(match &self.scenario {
            Scenario::Attack(a) => rules::compile(&self.name, a),
            Scenario::Turn {
                attacks,
                wounds,
                guard,
            } => rules::compile_turn(&self.name, attacks, *wounds, guard.as_deref()),
        })
    }
}

/// A reader of one kind of scenario: the attacks it stands for, each with its name
/// suffix ("" for a plain one).
type Read = fn(&Reader, &World) -> Result<Vec<(String, Scenario)>, Problem>;

/// Scenario kinds, the keys each one takes (besides `kind` and `description`) and its reader.
const KINDS: &[Kind<Read>] = &[
    Kind {
        name: "attack",
        keys: &[
            "hero",
            "weapon",
            "target",
            "distance",
            "aim",
            "dodge",
            "objective",
            "wounds",
            "power_dice",
        ],
        read: attack,
    },
    Kind {
        name: "turn",
        keys: &[
            "hero",
            "weapon",
            "target",
            "attacks",
            "distance",
            "aim",
            "dodge",
            "wounds",
            "power_dice",
            "guard_hero",
            "guard_weapon",
            "guard_target",
            "guard_distance",
        ],
        read: turn,
    },
    Kind {
        name: "fatigue",
        keys: &[
            "hero", "weapon", "target", "fatigue", "distance", "aim", "dodge", "wounds",
        ],
        read: fatigue,
    },
    Kind {
        name: "profile",
        keys: &[
            "hero",
            "weapon",
            "target",
            "over",
            "from",
            "to",
            "distance",
            "aim",
            "objective",
            "wounds",
            "power_dice",
        ],
        read: profile,
    },
];

/// Most power dice an attack may add (docs/games/descent.md).
pub const MAX_POWER_DICE: i64 = 5;
/// Highest armour an entry may have.
pub const MAX_ARMOUR: i64 = 20;
/// Highest pierce an entry may have.
pub const MAX_PIERCE: i64 = 20;
/// Most wounds an entry may have.
pub const MAX_WOUNDS: i64 = 100;
/// Most defence dice a target may roll.
pub const MAX_DEFENCE_DICE: usize = 8;
/// Most attacks one turn may make.
pub const MAX_TURN_ATTACKS: i64 = 12;
/// Longest distance a config may ask for, in spaces.
pub const MAX_DISTANCE: i64 = 30;
/// Most initial rolls the re-roll policy table may cover.
const MAX_ROLLS: usize = 1 << 21;

/// Read and check a whole `descent` config.
pub fn read(root: &Reader) -> Result<DescentConfig, Problem> {
    root.only_at_root(&[
        "rules",
        "dice",
        "weapons",
        "heroes",
        "monsters",
        "scenarios",
    ])?;
    let mut power = "black".to_string();
    let mut effects_first = true;
    if let Some(r) = root.table_opt("rules")? {
        r.only(&["power_die", "surge_effects"])?;
        if let Some(p) = r.string_opt("power_die")? {
            power = p;
        }
        r.pick_into(
            "surge_effects",
            &[("first", true), ("last", false)],
            &mut effects_first,
        )?;
    }
    let dice = crate::config::entries(root, "dice", "die", "ID", |_, id, r| read_die(id, &r))?;
    if !dice.iter().any(|d| d.name == power) {
        let names: Vec<&str> = dice.iter().map(|d| d.name.as_str()).collect();
        let rules = root.table_opt("rules")?;
        let at = rules.as_ref().unwrap_or(root);
        return Err(at.problem(
            "power_die",
            format!(
                "no die `{power}`{} for the power dice; the dice are {}",
                nearest_hint(&power, names.iter().copied()),
                list(&names)
            ),
        ));
    }
    let power_die = dice
        .iter()
        .find(|d| d.name == power)
        .cloned()
        .expect("checked");
    let weapons = crate::config::entries(root, "weapons", "weapon", "ID", |_, id, r| {
        read_weapon(id, &r, &dice, effects_first)
    })?;
    let heroes = crate::config::entries(root, "heroes", "hero", "ID", |_, id, r| {
        r.only(&["name", "power_dice"])?;
        Ok(Hero {
            id: id.to_string(),
            name: r.string_opt("name")?.unwrap_or_else(|| id.to_string()),
            power_dice: r.int_in("power_dice", 0, MAX_POWER_DICE)?.unwrap_or(0) as u8,
        })
    })?;
    let monsters = crate::config::entries(root, "monsters", "monster", "ID", |_, id, r| {
        read_monster(id, &r, &dice)
    })?;
    let world = World {
        weapons: &weapons,
        heroes: &heroes,
        monsters: &monsters,
        power_die: &power_die,
    };
    let mut scenarios: Vec<Named<Scenario>> = Vec::new();
    for named in crate::config::scenarios(root, |r| read_scenario(r, &world))? {
        let Named {
            name,
            description,
            scenario,
            ..
        } = named;
        for (suffix, attack) in scenario {
            scenarios.push(Named {
                name: format!("{name}{suffix}"),
                table: name.clone(),
                description: description.clone(),
                scenario: attack,
            });
        }
    }
    Ok(DescentConfig {
        dice,
        weapons,
        heroes,
        monsters,
        scenarios,
    })
}

fn read_monster(id: &str, r: &Reader, dice: &[Die]) -> Result<Monster, Problem> {
    r.only(&["name", "armour", "wounds", "defence", "iron_shield"])?;
    let defence = match r.table.get("defence") {
        None => Vec::new(),
        Some(Value::Array(v)) if v.len() <= MAX_DEFENCE_DICE => {
            let mut out = Vec::new();
            for x in v {
                let name = x.as_str().unwrap_or_default();
                out.push(r.find("defence", name, dice, |d| &d.name, ("die", "dice"))?.clone());
            }
            out
        }
        Some(_) => {
            return Err(r.problem(
                "defence",
                format!("expected an array of at most {MAX_DEFENCE_DICE} die names, the defence dice rolled after an attack, e.g. [\"grey\"]"),
            ))
        }
    };
    let iron_shield = match r.table.get("iron_shield") {
        None => false,
        Some(Value::Boolean(b)) => *b,
        Some(_) => return Err(r.problem("iron_shield", "expected true or false")),
    };
    if iron_shield && defence.is_empty() {
        return Err(r.problem(
            "iron_shield",
            "the Iron Shield re-rolls defence dice: give the target `defence` dice too",
        ));
    }
    Ok(Monster {
        defence,
        iron_shield,
        id: id.to_string(),
        name: r.string_opt("name")?.unwrap_or_else(|| id.to_string()),
        armour: r.int_in("armour", 0, MAX_ARMOUR)?.unwrap_or(0) as u8,
        wounds: r.int_in("wounds", 1, MAX_WOUNDS)?.ok_or_else(|| {
            r.problem(
                "wounds",
                format!("missing key: the monster's wounds, 1 to {MAX_WOUNDS}"),
            )
        })? as u8,
    })
}

fn read_die(id: &str, r: &Reader) -> Result<Die, Problem> {
    r.only(&["faces"])?;
    let faces = match r.table.get("faces") {
        Some(Value::Array(v)) => v,
        Some(_) => {
            return Err(r.problem(
                "faces",
                "expected an array of faces, e.g. [\"X\", \"R1 2H\", \"R2 1H S\"]",
            ))
        }
        None => return Err(r.problem("faces", "missing key: the die's faces")),
    };
    if faces.is_empty() {
        return Err(r.problem("faces", "a die needs at least one face"));
    }
    if faces.len() > 20 {
        return Err(r.problem("faces", "at most 20 faces per die"));
    }
    let mut out = Vec::new();
    for (i, f) in faces.iter().enumerate() {
        let text = f.as_str().ok_or_else(|| {
            r.problem(
                "faces",
                format!("face {}: expected a string such as \"R1 2H\"", i + 1),
            )
        })?;
        out.push(
            Face::parse(text)
                .map_err(|e| r.problem("faces", format!("face {} (\"{text}\"): {e}", i + 1)))?,
        );
    }
    Ok(Die {
        name: id.to_string(),
        faces: out,
    })
}

fn read_weapon(id: &str, r: &Reader, dice: &[Die], effects_first: bool) -> Result<Weapon, Problem> {
    r.only(&["name", "dice", "type", "pierce", "surges"])?;
    let names: Vec<&str> = dice.iter().map(|d| d.name.as_str()).collect();
    let list_of = match r.table.get("dice") {
        Some(Value::Array(v)) if !v.is_empty() => v,
        Some(_) => {
            return Err(r.problem(
                "dice",
                format!(
                    "expected a non-empty array of die names from {}",
                    list(&names)
                ),
            ))
        }
        None => {
            return Err(r.problem(
                "dice",
                "missing key: the weapon's dice, e.g. [\"red\", \"blue\"]",
            ))
        }
    };
    let mut wd = Vec::new();
    for v in list_of {
        let name = v.as_str().unwrap_or_default();
        wd.push(
            r.find("dice", name, dice, |d| &d.name, ("die", "dice"))?
                .clone(),
        );
    }
    let melee = r
        .choice_opt("type", &["melee", "ranged", "magic"])?
        .ok_or_else(|| r.problem("type", "missing key: `melee`, `ranged` or `magic`"))?
        == "melee";
    let mut surges = Vec::new();
    let mut effects: Vec<String> = Vec::new();
    match r.table.get("surges") {
        None => {}
        Some(Value::Array(v)) => {
            for (i, s) in v.iter().enumerate() {
                let Value::Table(t) = s else {
                    return Err(r.problem(
                        "surges",
                        format!("surge ability {}: expected a table such as {{ cost = 1, damage = 1 }}", i + 1),
                    ));
                };
                let (a, effect) = read_surge(r, i, t)?;
                let effect = effect.map(|name| {
                    let k = effects.iter().position(|e| *e == name).unwrap_or_else(|| {
                        effects.push(name);
                        effects.len() - 1
                    });
                    k as u8
                });
                surges.push(SurgeAbility { effect, ..a });
            }
        }
        Some(_) => {
            return Err(r.problem(
                "surges",
                "expected an array of abilities, e.g. [{ cost = 1, damage = 1 }, { cost = 2, pierce = 2, once = true }]",
            ))
        }
    }
    Ok(Weapon {
        id: id.to_string(),
        name: r.string_opt("name")?.unwrap_or_else(|| id.to_string()),
        dice: wd,
        melee,
        pierce: r.int_in("pierce", 0, MAX_PIERCE)?.unwrap_or(0) as u8,
        surges,
        effects,
        effects_first,
    })
}

/// A surge ability, and the name of the effect it puts on the target, if any.
fn read_surge(
    r: &Reader,
    i: usize,
    t: &toml::Table,
) -> Result<(SurgeAbility, Option<String>), Problem> {
    let at = |msg: String| r.problem("surges", format!("surge ability {}: {msg}", i + 1));
    let allowed = ["cost", "damage", "range", "pierce", "once", "effect"];
    for k in t.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(at(format!(
                "unknown key `{k}`{}; expected {}",
                nearest_hint(k, allowed.iter().copied()),
                list(&allowed)
            )));
        }
    }
    let int = |k: &str, lo: i64, hi: i64| -> Result<u8, Problem> {
        match t.get(k) {
            None => Ok(0),
            Some(Value::Integer(v)) if (lo..=hi).contains(v) => Ok(*v as u8),
            Some(Value::Integer(v)) => {
                Err(at(format!("`{k}` must be from {lo} to {hi}, found {v}")))
            }
            Some(_) => Err(at(format!("`{k}` must be an integer"))),
        }
    };
    let cost = match t.get("cost") {
        None => return Err(at("missing `cost` (surges spent, 1 or more)".into())),
        Some(Value::Integer(c)) if *c < 1 => {
            return Err(at(format!("the cost must be at least 1 surge, found {c}")))
        }
        _ => int("cost", 1, 10)?,
    };
    let a = SurgeAbility {
        cost,
        damage: int("damage", 0, 20)?,
        range: int("range", 0, 20)?,
        pierce: int("pierce", 0, 20)?,
        once: match t.get("once") {
            None => false,
            Some(Value::Boolean(b)) => *b,
            Some(_) => return Err(at("`once` must be true or false".into())),
        },
        effect: None,
    };
    let effect = match t.get("effect") {
        None => None,
        Some(Value::String(e)) if !e.trim().is_empty() && e.len() <= 40 => {
            Some(e.trim().to_string())
        }
        Some(_) => {
            return Err(at(
                "`effect` must name the effect it puts on the target, e.g. \"Stun\"".into(),
            ))
        }
    };
    if a.damage == 0 && a.range == 0 && a.pierce == 0 && effect.is_none() {
        return Err(at(
            "it buys nothing: give it `damage`, `range`, `pierce` or an `effect`".into(),
        ));
    }
    Ok((a, effect))
}

/// What scenarios refer to by id.
struct World<'a> {
    weapons: &'a [Weapon],
    heroes: &'a [Hero],
    monsters: &'a [Monster],
    power_die: &'a Die,
}

/// Refuse a melee weapon's attack at `distance` (given at `key`) past the adjacent space.
fn in_reach(r: &Reader, key: &str, weapon: &Weapon, distance: i64) -> Result<(), Problem> {
    if weapon.melee && distance > 1 {
        return Err(r.problem(
            key,
            format!(
                "{} is a melee weapon: it attacks adjacent targets only (distance 1), found {distance}",
                weapon.name
            ),
        ));
    }
    Ok(())
}

/// An Aim or Dodge order: one of the policies, or `none` (the same as leaving it out, so
/// that a balance command can switch an order off).
fn policy(r: &Reader, key: &str) -> Result<Option<Policy>, Problem> {
    let mut names = vec!["none"];
    names.extend_from_slice(Policy::NAMES);
    Ok(r.choice_opt(key, &names)?
        .and_then(|p| Policy::from_name(&p)))
}

fn read_scenario(r: &Reader, w: &World) -> Result<Vec<(String, Scenario)>, Problem> {
    (crate::config::read_kind(r, KINDS)?.read)(r, w)
}

/// What every kind of scenario reads first: who attacks with what at whom, to what end.
struct Base<'w> {
    hero: Hero,
    weapon: Weapon,
    target: Monster,
    objective: Objective,
    wounds: u8,
    power_dice: u8,
    power_die: &'w Die,
}

impl<'w> Base<'w> {
    fn read(r: &Reader, w: &World<'w>) -> Result<Self, Problem> {
        let hero = r
            .find_req("hero", w.heroes, |h| &h.id, ("hero", "heroes"))?
            .clone();
        let weapon = r
            .find_req("weapon", w.weapons, |x| &x.id, ("weapon", "weapons"))?
            .clone();
        let target = r
            .find_req("target", w.monsters, |m| &m.id, ("monster", "monsters"))?
            .clone();
        let objective = match r.choice_opt("objective", &["damage", "kill"])?.as_deref() {
            Some("kill") => Objective::Kill,
            _ => Objective::Damage,
        };
        let wounds = r
            .int_in("wounds", 1, MAX_WOUNDS)?
            .map_or(target.wounds, |v| v as u8);
        let power_dice = r
            .int_in("power_dice", 0, MAX_POWER_DICE)?
            .map_or(hero.power_dice, |v| v as u8);
        Ok(Base {
            hero,
            weapon,
            target,
            objective,
            wounds,
            power_dice,
            power_die: w.power_die,
        })
    }

    fn attack(
        &self,
        distance: u8,
        power_dice: u8,
        aim: Option<Policy>,
        dodge: Option<Policy>,
    ) -> Attack {
        Attack {
            hero: self.hero.clone(),
            weapon: self.weapon.clone(),
            power_die: self.power_die.clone(),
            power_dice,
            target: self.target.clone(),
            wounds: self.wounds,
            distance,
            aim,
            dodge,
            objective: self.objective,
            group: None,
        }
    }

    /// `distance`, within the weapon's reach.
    fn distance(&self, r: &Reader, default: Option<i64>) -> Result<u8, Problem> {
        let d = r
            .int_in("distance", 1, MAX_DISTANCE)?
            .or(default)
            .ok_or_else(|| {
                r.problem(
                    "distance",
                    "missing key: the distance to the target in spaces (1 = adjacent)",
                )
            })?;
        in_reach(r, "distance", &self.weapon, d)?;
        Ok(d as u8)
    }
}

/// Attacks, each checked against the sampler's limits, as scenarios.
fn checked(r: &Reader, out: Vec<(String, Attack)>) -> Result<Vec<(String, Scenario)>, Problem> {
    for (_, a) in &out {
        check_dice(r, a)?;
    }
    Ok(out
        .into_iter()
        .map(|(s, a)| (s, Scenario::Attack(Box::new(a))))
        .collect())
}

fn attack(r: &Reader, w: &World) -> Result<Vec<(String, Scenario)>, Problem> {
    let b = Base::read(r, w)?;
    let a = b.attack(
        b.distance(r, Some(1))?,
        b.power_dice,
        policy(r, "aim")?,
        policy(r, "dodge")?,
    );
    checked(r, vec![(String::new(), a)])
}

fn turn(r: &Reader, w: &World) -> Result<Vec<(String, Scenario)>, Problem> {
    let b = Base::read(r, w)?;
    let n = r.int_in("attacks", 1, MAX_TURN_ATTACKS)?.ok_or_else(|| {
        r.problem(
            "attacks",
            format!("missing key: how many attacks the turn makes, 1 to {MAX_TURN_ATTACKS}"),
        )
    })? as usize;
    let aim = policy(r, "aim")?;
    let dodge = policy(r, "dodge")?;
    let d = b.distance(r, Some(1))?;
    // The Aim is spent on the first attack; the Dodge lasts for every one. Each
    // attack's re-roll policy works on its own damage.
    let attacks: Vec<Attack> = (0..n)
        .map(|i| Attack {
            objective: Objective::Damage,
            ..b.attack(d, b.power_dice, if i == 0 { aim } else { None }, dodge)
        })
        .collect();
    for a in &attacks {
        check_dice(r, a)?;
    }
    let guard_keys = [
        "guard_hero",
        "guard_weapon",
        "guard_target",
        "guard_distance",
    ];
    let guard = if guard_keys.iter().any(|k| r.table.contains_key(*k)) {
        let gh = r
            .find_req("guard_hero", w.heroes, |h| &h.id, ("hero", "heroes"))?
            .clone();
        let gw = r
            .find_req("guard_weapon", w.weapons, |x| &x.id, ("weapon", "weapons"))?
            .clone();
        let gt = r
            .find_req(
                "guard_target",
                w.monsters,
                |m| &m.id,
                ("monster", "monsters"),
            )?
            .clone();
        let gd = r.int_in("guard_distance", 1, MAX_DISTANCE)?.unwrap_or(1);
        in_reach(r, "guard_distance", &gw, gd)?;
        let g = Attack {
            hero: gh.clone(),
            weapon: gw,
            power_die: w.power_die.clone(),
            power_dice: gh.power_dice,
            wounds: gt.wounds,
            target: gt,
            distance: gd as u8,
            aim: None,
            dodge: None,
            objective: Objective::Kill,
            group: None,
        };
        check_dice(r, &g)?;
        Some(Box::new(g))
    } else {
        None
    };
    Ok(vec![(
        String::new(),
        Scenario::Turn {
            attacks,
            wounds: b.wounds,
            guard,
        },
    )])
}

fn fatigue(r: &Reader, w: &World) -> Result<Vec<(String, Scenario)>, Problem> {
    let b = Base::read(r, w)?;
    // Two attacks (a Battle order) and the fatigue to spend on power dice across
    // them: one member per split, named by the power dice of each attack. The second
    // attack spends what the first left, so a split fixed in advance is also the
    // best the hero can do after seeing the first roll.
    let fatigue = r.int_in("fatigue", 0, 2 * MAX_POWER_DICE)?.ok_or_else(|| {
        r.problem(
            "fatigue",
            format!(
                "missing key: the fatigue to spend on power dice over the two attacks, 0 to {}",
                2 * MAX_POWER_DICE
            ),
        )
    })? as u8;
    let aim = policy(r, "aim")?;
    let dodge = policy(r, "dodge")?;
    let d = b.distance(r, Some(1))?;
    let label = r
        .string_opt("description")?
        .unwrap_or_else(|| format!("{} spends {fatigue} fatigue over two attacks", b.hero.name));
    let first_most = fatigue.min(MAX_POWER_DICE as u8);
    let first_least = fatigue.saturating_sub(MAX_POWER_DICE as u8);
    let mut out = Vec::new();
    for first in first_least..=first_most {
        let second = fatigue - first;
        let group = Group {
            name: r.key_path("").get(1).cloned().unwrap_or_default(),
            label: label.clone(),
            x_desc: "power dice on the first attack".into(),
            x: first as f64,
            series: format!("{fatigue} fatigue"),
            choice: false,
        };
        let attacks: Vec<Attack> = [first, second]
            .into_iter()
            .enumerate()
            .map(|(i, p)| Attack {
                objective: Objective::Damage,
                group: Some(group.clone()),
                ..b.attack(d, p, if i == 0 { aim } else { None }, dodge)
            })
            .collect();
        for a in &attacks {
            check_dice(r, a)?;
        }
        out.push((
            format!("@{first}+{second}"),
            Scenario::Turn {
                attacks,
                wounds: b.wounds,
                guard: None,
            },
        ));
    }
    Ok(out)
}

/// A profile over distance or power dice, each with and without the Aim.
fn profile(r: &Reader, w: &World) -> Result<Vec<(String, Scenario)>, Problem> {
    let b = Base::read(r, w)?;
    let over = r
        .choice_opt("over", &["distance", "power_dice"])?
        .unwrap_or_else(|| "distance".into());
    let by_distance = over == "distance";
    if by_distance && b.weapon.melee {
        return Err(r.problem(
            "over",
            format!(
                "{} is a melee weapon: it has no distance profile; use over = \"power_dice\"",
                b.weapon.name
            ),
        ));
    }
    if by_distance && r.table.contains_key("distance") {
        return Err(r.problem(
            "distance",
            "a distance profile sets the distances with `from` and `to`",
        ));
    }
    let (lo, hi) = if by_distance {
        (1, MAX_DISTANCE)
    } else {
        (0, MAX_POWER_DICE)
    };
    let from = r.int_in("from", lo, hi)?.unwrap_or(lo);
    let to = r
        .int_in("to", lo, hi)?
        .unwrap_or(if by_distance { 10 } else { MAX_POWER_DICE });
    if to < from {
        return Err(r.problem(
            "to",
            format!("expected `to` at least `from` ({from}), found {to}"),
        ));
    }
    let aim = policy(r, "aim")?.unwrap_or(Policy::Optimal);
    let label = r.string_opt("description")?.unwrap_or_else(|| {
        format!(
            "{} with {} at {}",
            b.hero.name, b.weapon.name, b.target.name
        )
    });
    let fixed = if by_distance {
        1
    } else {
        b.distance(r, Some(1))?
    };
    let mut out = Vec::new();
    for x in from..=to {
        for with_aim in [false, true] {
            let (d, p) = if by_distance {
                (x as u8, b.power_dice)
            } else {
                (fixed, x as u8)
            };
            let mut a = b.attack(d, p, with_aim.then_some(aim), None);
            a.group = Some(Group {
                name: r.key_path("").get(1).cloned().unwrap_or_default(),
                label: label.clone(),
                x_desc: if by_distance {
                    "distance".into()
                } else {
                    "power dice".into()
                },
                x: x as f64,
                series: if with_aim {
                    format!("Aim ({})", aim.name())
                } else {
                    "no Aim".into()
                },
                choice: false,
            });
            let suffix = format!(
                "@{}{x}{}",
                if by_distance { "d" } else { "p" },
                if with_aim { "+aim" } else { "" }
            );
            out.push((suffix, a));
        }
    }
    checked(r, out)
}

/// The sampler reads all dice of an attack from one word and the policy table covers
/// every initial roll: refuse attacks beyond those limits with the reason.
fn check_dice(r: &Reader, a: &Attack) -> Result<(), Problem> {
    let dice = a.dice();
    let key = if r.table.contains_key("power_dice") {
        "power_dice"
    } else {
        "weapon"
    };
    if dice.len() > MAX_ATTACK_DICE {
        return Err(r.problem(
            key,
            format!(
                "{} dice in one attack; at most {MAX_ATTACK_DICE} are supported",
                dice.len()
            ),
        ));
    }
    let sides = dice[0].faces.len();
    if let Some(d) = dice.iter().find(|d| d.faces.len() != sides) {
        return Err(r.problem(
            "weapon",
            format!(
                "the dice of one attack must have the same number of faces: `{}` has {}, `{}` {}",
                dice[0].name,
                sides,
                d.name,
                d.faces.len()
            ),
        ));
    }
    let rolls = (sides as u128).pow(dice.len() as u32);
    if rolls > MAX_ROLLS as u128 || (sides as u128).pow(2 * dice.len() as u32) >= 1u128 << 64 {
        return Err(r.problem(
            key,
            format!(
                "{} dice of {sides} faces are too many rolls to tabulate the re-roll policy",
                dice.len()
            ),
        ));
    }
    Ok(())
}
