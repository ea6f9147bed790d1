//! `system = "rush"`: `[rules]`, `[units.ID]` and `[scenarios.NAME]`.

use crate::config::reader::Reader;
use crate::config::{Kind, Problem};
use crate::systems::rush::rules::{
    throw_dice, CatchPool, DoubleRule, Escalation, Response, Role, Rules, Scenario, Side, Unit,
};

/// A checked `rush` config.
#[derive(Clone, Debug, PartialEq)]
pub struct RushConfig {
    /// `[rules]`, or the defaults.
    pub rules: Rules,
    /// `[units.ID]` in file order.
    pub units: Vec<Unit>,
    /// `[scenarios.NAME]` in file order.
    pub scenarios: Vec<Named>,
}

/// A `rush` scenario with its name and the designer's description.
pub type Named = crate::config::Named<Scenario>;

impl Named {
    /// The scenario's sampler and exact distribution under `rules`, described.
    pub fn compile(&self, rules: &Rules) -> crate::model::Compiled {
        self.describe(crate::systems::rush::rules::compile(
            &self.name,
            &self.scenario,
            rules,
        ))
    }
}

/// The range of a stat (a target to roll on a d6): lowest.
pub const STAT_LO: i64 = 2;
/// The range of a stat: highest.
pub const STAT_HI: i64 = 6;
/// Largest pool a test may reach; keeps the exact engine and histograms small.
pub const MAX_DICE: i64 = 60;

/// `double_rule` as written.
const DOUBLE_RULES: &[(&str, DoubleRule)] = &[
    ("twice", DoubleRule::Twice),
    ("margin2", DoubleRule::Margin2),
];
/// `escalation` as written.
const ESCALATIONS: &[(&str, Escalation)] = &[
    ("shared", Escalation::Shared),
    ("per_test", Escalation::PerTest),
];
/// `catch_pool` as written.
const CATCH_POOLS: &[(&str, CatchPool)] = &[
    ("throw_successes", CatchPool::ThrowSuccesses),
    ("three_plus_throw", CatchPool::ThreePlusThrow),
];

/// A reader of one kind of scenario.
type Read = fn(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem>;

/// Scenario kinds, the keys each one takes (besides `kind` and `description`) and its reader.
const KINDS: &[Kind<Read>] = &[
    Kind {
        name: "dash",
        keys: &[
            "unit",
            "dashes",
            "then_evade",
            "threat",
            "threats",
            "extra_dice",
        ],
        read: dash,
    },
    Kind {
        name: "evade",
        keys: &["unit", "prior_tests", "threat", "extra_dice"],
        read: evade,
    },
    Kind {
        name: "pick_up",
        keys: &["unit", "sprinted", "threat", "extra_dice"],
        read: pick_up,
    },
    Kind {
        name: "stand_up",
        keys: &["unit", "threat", "extra_dice"],
        read: stand_up,
    },
    Kind {
        name: "pick_up_throw",
        keys: &[
            "unit",
            "sprinted",
            "range",
            "moved",
            "strike_hex",
            "threat",
            "extra_dice",
        ],
        read: pick_up_throw,
    },
    Kind {
        name: "throw",
        keys: &[
            "unit",
            "range",
            "moved",
            "strike_hex",
            "threat",
            "extra_dice",
        ],
        read: throw,
    },
    Kind {
        name: "pass",
        keys: &[
            "thrower",
            "catcher",
            "range",
            "moved",
            "threat",
            "catcher_threat",
            "extra_dice",
            "catcher_extra_dice",
        ],
        read: pass,
    },
    Kind {
        name: "slam",
        keys: &[
            "attacker",
            "defender",
            "response",
            "moved_adjacent",
            "from_front",
            "threat",
            "defender_threat",
            "extra_dice",
            "defender_extra_dice",
        ],
        read: slam,
    },
    Kind {
        name: "steal",
        keys: &[
            "attacker",
            "defender",
            "response",
            "from_front",
            "threat",
            "defender_threat",
            "extra_dice",
            "defender_extra_dice",
        ],
        read: steal,
    },
    Kind {
        name: "armour",
        keys: &["unit", "hits", "extra_dice"],
        read: armour,
    },
    Kind {
        name: "play",
        keys: &[
            "unit",
            "dashes",
            "threat",
            "threats",
            "extra_dice",
            "pick_up",
            "sprinted",
            "moved",
            "catcher",
            "pass_range",
            "catcher_threat",
            "catcher_extra_dice",
            "strike_range",
        ],
        read: play,
    },
];

const UNIT_KEYS: &[&str] = &[
    "name", "move", "strength", "speed", "skill", "armour", "role", "cost",
];

/// Read and check a whole `rush` config.
pub fn read(root: &Reader) -> Result<RushConfig, Problem> {
    root.only_at_root(&["rules", "units", "scenarios"])?;
    let rules = crate::config::rules(root, read_rules)?;
    let units = crate::config::entries(root, "units", "unit", "ID", |_, id, r| read_unit(id, &r))?;
    let scenarios = crate::config::scenarios(root, |r| read_scenario(r, &units, &rules))?;
    Ok(RushConfig {
        rules,
        units,
        scenarios,
    })
}

fn read_rules(r: &Reader) -> Result<Rules, Problem> {
    r.only(&[
        "explode_on",
        "double_rule",
        "escalation",
        "catch_pool",
        "threat_cap",
        "base_dice",
    ])?;
    let mut rules = Rules::default();
    if let Some(e) = r.i64_opt("explode_on")? {
        if e != 0 && !(2..=6).contains(&e) {
            return Err(r.problem(
                "explode_on",
                format!("expected 0 (off) or a face from 2 to 6, found {e}"),
            ));
        }
        rules.explode_on = e as u8;
    }
    r.pick_into("double_rule", DOUBLE_RULES, &mut rules.double_rule)?;
    r.pick_into("escalation", ESCALATIONS, &mut rules.escalation)?;
    r.pick_into("catch_pool", CATCH_POOLS, &mut rules.catch_pool)?;
    r.int_into("threat_cap", 0, 10, &mut rules.threat_cap)?;
    r.int_into("base_dice", 0, 20, &mut rules.base_dice)?;
    Ok(rules)
}

/// A stat: an integer 2..=6 or a string "2+".."6+".
fn stat(r: &Reader, key: &str) -> Result<u8, Problem> {
    let bad = |found: String| {
        r.problem(
            key,
            format!("expected a target from 2+ to 6+ (write 4 or \"4+\"), found {found}"),
        )
    };
    match r.table.get(key) {
        None => Err(r.problem(key, "missing stat (a target from 2+ to 6+)")),
        Some(toml::Value::Integer(i)) if (STAT_LO..=STAT_HI).contains(i) => Ok(*i as u8),
        Some(toml::Value::Integer(i)) => Err(bad(i.to_string())),
        // Exactly `4` or `4+`: not `+4`, not `4++`.
        Some(toml::Value::String(s)) => {
            let t = s.trim();
            let digits = t.strip_suffix('+').unwrap_or(t);
            match digits.parse::<i64>() {
                Ok(i)
                    if digits.bytes().all(|b| b.is_ascii_digit())
                        && (STAT_LO..=STAT_HI).contains(&i) =>
                {
                    Ok(i as u8)
                }
                _ => Err(bad(format!("\"{s}\""))),
            }
        }
        Some(v) => Err(bad(format!("{v}"))),
    }
}

fn read_unit(id: &str, r: &Reader) -> Result<Unit, Problem> {
    r.only(UNIT_KEYS)?;
    crate::config::cost(r)?;
    let role = match r
        .choice_opt("role", &["striker", "jack", "guard"])?
        .as_deref()
    {
        Some("striker") => Role::Striker,
        Some("guard") => Role::Guard,
        Some(_) => Role::Jack,
        None => return Err(r.problem("role", "missing key: one of `striker`, `jack`, `guard`")),
    };
    Ok(Unit {
        id: id.to_string(),
        name: r.string_opt("name")?.unwrap_or_else(|| id.to_string()),
        movement: r.int_in("move", 0, 99)?.unwrap_or(5) as u32,
        strength: stat(r, "strength")?,
        speed: stat(r, "speed")?,
        skill: stat(r, "skill")?,
        armour: stat(r, "armour")?,
        role,
    })
}

fn unit_ref(r: &Reader, key: &str, units: &[Unit]) -> Result<Unit, Problem> {
    r.find_req(key, units, |u| &u.id, ("unit", "units"))
        .cloned()
}

fn side(
    r: &Reader,
    unit: &str,
    threat: &str,
    extra: &str,
    units: &[Unit],
) -> Result<Side, Problem> {
    Ok(Side {
        unit: unit_ref(r, unit, units)?,
        threat: r.int_in(threat, 0, 6)?.unwrap_or(0) as u32,
        extra_dice: r.int_in(extra, -MAX_DICE, MAX_DICE)?.unwrap_or(0) as i32,
    })
}

/// `threats = [0, 1, 2]`: the threat on each hex a chain leaves, one per test.
/// `threats`, one per test of a chain. `exclusive`: `threat` may not be given too (in a
/// play it may: there it is the threat where the move ends).
fn hex_threats(r: &Reader, tests: usize, exclusive: bool) -> Result<Vec<u32>, Problem> {
    let Some(v) = r.table.get("threats") else {
        return Ok(Vec::new());
    };
    let expected = format!(
        "an array of {tests} threats from 0 to 6, one per test of the chain (the Dashes, then the Evade), e.g. [0, 1, 2]"
    );
    let arr = v
        .as_array()
        .ok_or_else(|| r.problem("threats", format!("expected {expected}")))?;
    if arr.len() != tests {
        return Err(r.problem(
            "threats",
            format!("{} threats given; expected {expected}", arr.len()),
        ));
    }
    if exclusive && r.table.contains_key("threat") {
        return Err(r.problem(
            "threats",
            "give `threat` (every hex) or `threats` (each hex), not both",
        ));
    }
    arr.iter()
        .map(|x| match x.as_integer() {
            Some(t) if (0..=6).contains(&t) => Ok(t as u32),
            _ => Err(r.problem("threats", format!("expected {expected}, found {x}"))),
        })
        .collect()
}

/// A response as written, and for `best` the responses the defender may choose from.
type Answer = (Response, Vec<Response>);

/// The response, and for `best` the responses the defender may choose from (a Slamback
/// only answers an action from the front).
fn response(r: &Reader) -> Result<Answer, Problem> {
    let front = r.bool_or("from_front", true)?;
    let resp = match r
        .choice_opt("response", &["slamback", "dodge", "best"])?
        .as_deref()
    {
        Some("dodge") => Response::Dodge,
        Some("best") if front => {
            return Ok((
                Response::Slamback,
                vec![Response::Slamback, Response::Dodge],
            ))
        }
        Some("best") => return Ok((Response::Dodge, vec![Response::Dodge])),
        Some(_) => Response::Slamback,
        None => return Err(r.problem("response", "missing key: `slamback`, `dodge` or `best`")),
    };
    if resp == Response::Slamback && !front {
        return Err(r.problem(
            "response",
            "a Slamback answers only an action from the front (from_front = false): use `dodge` or `best`",
        ));
    }
    Ok((resp, Vec::new()))
}

/// The two sides and the response of an opposed test (Slam, Steal).
fn duel(r: &Reader, units: &[Unit]) -> Result<(Side, Side, Answer), Problem> {
    Ok((
        side(r, "attacker", "threat", "extra_dice", units)?,
        side(
            r,
            "defender",
            "defender_threat",
            "defender_extra_dice",
            units,
        )?,
        response(r)?,
    ))
}

fn read_scenario(r: &Reader, units: &[Unit], rules: &Rules) -> Result<Scenario, Problem> {
    let sc = (crate::config::read_kind(r, KINDS)?.read)(r, units)?;
    check_pool_sizes(r, &sc, rules)?;
    Ok(sc)
}

/// The one unit a single test or throw is made by, with its threat and extra dice.
fn one(r: &Reader, units: &[Unit]) -> Result<Side, Problem> {
    side(r, "unit", "threat", "extra_dice", units)
}

/// A throw's range in hexes.
fn range(r: &Reader) -> Result<u32, Problem> {
    let v = r.int_in("range", 1, 9)?;
    v.map(|v| v as u32)
        .filter(|&v| throw_dice(v).is_some())
        .ok_or_else(|| r.problem("range", "missing key: the throw's range in hexes, 1 to 9"))
}

fn dash(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    let dashes = r
        .int_in("dashes", 1, 12)?
        .ok_or_else(|| r.problem("dashes", "missing key: how many Dashes (1 to 12)"))?
        as u32;
    let then_evade = r.bool_or("then_evade", false)?;
    Ok(Scenario::Dash {
        side: one(r, units)?,
        dashes,
        then_evade,
        hex_threats: hex_threats(r, dashes as usize + then_evade as usize, true)?,
    })
}

fn evade(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::Evade {
        side: one(r, units)?,
        prior_tests: r.int_in("prior_tests", 0, 12)?.unwrap_or(0) as u32,
    })
}

fn pick_up(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::PickUp {
        side: one(r, units)?,
        sprinted: r.bool_or("sprinted", false)?,
    })
}

fn stand_up(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::StandUp {
        side: one(r, units)?,
    })
}

fn pick_up_throw(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::PickUpThrow {
        side: one(r, units)?,
        sprinted: r.bool_or("sprinted", false)?,
        range: range(r)?,
        moved: r.bool_or("moved", false)?,
        strike_hex: r.bool_or("strike_hex", false)?,
    })
}

fn throw(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::Throw {
        side: one(r, units)?,
        range: range(r)?,
        moved: r.bool_or("moved", false)?,
        strike_hex: r.bool_or("strike_hex", false)?,
    })
}

fn pass(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::Pass {
        thrower: side(r, "thrower", "threat", "extra_dice", units)?,
        catcher: side(r, "catcher", "catcher_threat", "catcher_extra_dice", units)?,
        range: range(r)?,
        moved: r.bool_or("moved", false)?,
    })
}

fn slam(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    let (attacker, defender, (response, best_of)) = duel(r, units)?;
    Ok(Scenario::Slam {
        attacker,
        defender,
        response,
        moved_adjacent: r.bool_or("moved_adjacent", false)?,
        best_of,
    })
}

fn steal(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    let (attacker, defender, (response, best_of)) = duel(r, units)?;
    Ok(Scenario::Steal {
        attacker,
        defender,
        response,
        best_of,
    })
}

fn play(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    let dashes = r.int_in("dashes", 0, 12)?.unwrap_or(0) as u32;
    let strike_range = r.int_in("strike_range", 1, 9)?.ok_or_else(|| {
        r.problem(
            "strike_range",
            "missing key: the range of the Throw at the Strike hex, 1 to 9 hexes",
        )
    })? as u32;
    let pass = match r.string_opt("catcher")? {
        None => {
            if r.table.contains_key("pass_range") {
                return Err(r.problem(
                    "pass_range",
                    "a pass needs a `catcher`: the unit the ball is thrown to",
                ));
            }
            None
        }
        Some(_) => Some((
            side(r, "catcher", "catcher_threat", "catcher_extra_dice", units)?,
            r.int_in("pass_range", 1, 9)?.ok_or_else(|| {
                r.problem(
                    "pass_range",
                    "missing key: the range of the pass, 1 to 9 hexes",
                )
            })? as u32,
        )),
    };
    let pick_up = r.bool_or("pick_up", false)?;
    Ok(Scenario::Play(Box::new(
        crate::systems::rush::rules::play::Play {
            carrier: one(r, units)?,
            dashes,
            hex_threats: hex_threats(r, dashes as usize, false)?,
            pick_up,
            sprinted: r.bool_or("sprinted", false)?,
            moved: match r.table.get("moved") {
                Some(_) => r.bool_or("moved", false)?,
                None => dashes > 0,
            },
            pass,
            strike_range,
        },
    )))
}

fn armour(r: &Reader, units: &[Unit]) -> Result<Scenario, Problem> {
    Ok(Scenario::Armour {
        side: one(r, units)?,
        hits: r
            .int_in("hits", 0, MAX_DICE)?
            .ok_or_else(|| r.problem("hits", "missing key: the hits to check against"))?
            as u32,
    })
}

/// Refuse pools past [`MAX_DICE`] at the key that made them (extra_dice is the only way
/// to get there).
fn check_pool_sizes(r: &Reader, sc: &Scenario, rules: &Rules) -> Result<(), Problem> {
    let big = |s: &Side| s.extra_dice as i64 + rules.base_dice as i64 + 2 > MAX_DICE;
    let sides: Vec<(&Side, &str)> = match sc {
        Scenario::Dash { side, .. }
        | Scenario::Evade { side, .. }
        | Scenario::PickUp { side, .. }
        | Scenario::PickUpThrow { side, .. }
        | Scenario::StandUp { side }
        | Scenario::Throw { side, .. }
        | Scenario::Armour { side, .. } => vec![(side, "extra_dice")],
        Scenario::Pass {
            thrower, catcher, ..
        } => vec![(thrower, "extra_dice"), (catcher, "catcher_extra_dice")],
        Scenario::Slam {
            attacker, defender, ..
        }
        | Scenario::Steal {
            attacker, defender, ..
        } => vec![(attacker, "extra_dice"), (defender, "defender_extra_dice")],
        Scenario::Play(p) => {
            let mut v = vec![(&p.carrier, "extra_dice")];
            if let Some((c, _)) = &p.pass {
                v.push((c, "catcher_extra_dice"));
            }
            v
        }
    };
    if let Some((_, key)) = sides.iter().find(|(s, _)| big(s)) {
        return Err(r.problem(key, format!("pools are limited to {MAX_DICE} dice")));
    }
    Ok(())
}
