//! `system = "dice"`: `[units.ID]` with integer stats, and `[scenarios.NAME]` whose
//! mechanic is a line of the dice language ([`super::lang`]).

use super::lang::KEYWORDS;
use super::program::{self, Node};
use crate::cancel::Cancel;
use crate::config::reader::{list, nearest_hint, Reader};
use crate::config::{Named, Problem};
use toml::Value;

/// A unit: a name and its stats, each a name an expression may use.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// The `[units.ID]` key scenarios name the unit by.
    pub id: String,
    /// The name descriptions show.
    pub name: String,
    /// Each stat's name and value, in file order.
    pub stats: Vec<(String, i64)>,
}

/// How a tie of an opposed roll counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// Equal rolls are a tie of their own.
    Tie,
    /// Equal rolls go to the roll.
    Roll,
    /// Equal rolls go to the opposing roll (`vs`).
    Vs,
}

/// A scenario: the roll, maybe the roll it is opposed by, and how it is read.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The roll as written.
    pub roll: String,
    /// The roll, parsed.
    pub roll_node: std::sync::Arc<Node>,
    /// A record's named results, packed into `roll_node`'s value (None: one value).
    pub fields: Option<Vec<program::Field>>,
    /// The opposing roll as written and parsed, if any.
    pub vs: Option<(String, Node)>,
    /// How equal rolls of an opposed roll count.
    pub ties: Ties,
    /// Thresholds of the named outcomes, ascending, and their names (one more).
    pub tiers: Option<Tiers>,
    /// The headline event: value at least this (None: the default).
    pub at_least: Option<i64>,
    /// The name of the unit whose stats the roll reads, if any.
    pub unit: Option<String>,
    /// The name of the unit whose stats it reads as `their_<stat>`, if any.
    pub opponent: Option<String>,
    /// The values of the result Monte Carlo's table holds (see [`result_span`]).
    pub span: Span,
    /// What the designer should look at, though the scenario loads (see [`their_mixup`]).
    pub warning: Option<String>,
}

/// A checked `dice` config.
#[derive(Clone, Debug, PartialEq)]
pub struct DiceConfig {
    /// `[units.ID]` in file order; none when the config has no `[units]`.
    pub units: Vec<Unit>,
    /// `[scenarios.NAME]` in file order.
    pub scenarios: Vec<Named<Scenario>>,
    /// Every stat a unit has, and whether a lower value is better for its owner.
    pub stats: Vec<(String, bool)>,
}

/// Steps a balance command may take a declared stat to.
pub const STAT_RANGE: (i64, i64) = (-1_000, 1_000);

impl Named<Scenario> {
    /// The scenario's sampler and exact distribution, described; `cancel` stops a long
    /// exact computation.
    pub fn compile(&self, cancel: &crate::cancel::Cancel) -> crate::model::Compiled {
        self.describe(super::compile(&self.name, &self.scenario, cancel))
    }
}

impl crate::systems::Loaded for DiceConfig {
    fn unread(&self, path: &[String]) -> Option<String> {
        let [table, id, k] = path else { return None };
        // A unit's name and points are no stats: read by every front end, not by rolls.
        if k == "name" || k == "cost" {
            return None;
        }
        let unit = self
            .units
            .iter()
            .find(|u| u.id == *id)
            .filter(|_| table == "units")?;
        let read = names_read(&self.scenarios);
        if read.contains(k.as_str()) {
            return None;
        }
        let stats: Vec<&str> = unit
            .stats
            .iter()
            .map(|(s, _)| s.as_str())
            .filter(|s| read.contains(s))
            .collect();
        Some(format!(
            "no scenario reads a stat `{k}`{}, so setting it changes nothing; the scenarios read {}",
            nearest_hint(k, stats.iter().copied()),
            if stats.is_empty() { "none of this unit's stats".to_string() } else { list(&stats) }
        ))
    }

    fn scenarios(&self) -> Vec<crate::systems::ScenarioInfo> {
        crate::systems::infos(&self.scenarios)
    }

    fn compile(&self, i: usize, cancel: &crate::cancel::Cancel) -> Option<crate::model::Compiled> {
        Some(self.scenarios.get(i)?.compile(cancel))
    }

    /// What is rolled, without working out the exact distribution (`rollsim list`
    /// answers at once, however heavy the scenarios are).
    fn describe(&self, i: usize) -> Option<String> {
        let n = self.scenarios.get(i)?;
        let sc = &n.scenario;
        let generated = match &sc.vs {
            Some((v, _)) => format!("`{}` against `{v}`", sc.roll),
            None => format!("`{}`", sc.roll),
        };
        Some(match &n.description {
            Some(d) => crate::config::described(d, &generated),
            None => generated,
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn knobs(&self) -> Option<crate::systems::Knobs> {
        use crate::systems::{Knobs, Shown, StatKnob};
        // The stats are the config's own: the knobs own their names.
        let stats: Vec<StatKnob> = self
            .stats
            .iter()
            .map(|(k, lower)| StatKnob {
                table: "units",
                key: k.clone().into(),
                better: if *lower { -1 } else { 1 },
                lo: STAT_RANGE.0,
                hi: STAT_RANGE.1,
                shown: Shown::Plain,
            })
            .collect();
        Some(Knobs {
            roles: super::KNOBS.roles,
            stats: stats.into(),
            dice: &[],
            responses: &[],
            readings: &[],
        })
    }
}

const SCENARIO_KEYS: &[&str] = &[
    "description",
    "roll",
    "vs",
    "ties",
    "unit",
    "opponent",
    "values",
    "tiers",
    "tier_names",
    "at_least",
];

/// Read and check a whole `dice` config.
/// Read and check a dice config's tables. Checking a roll may work out its exact
/// distribution (what a dice count reaches, what values a result's table holds): that
/// work stops at `cancel`, and what it returned then is not to be used (the caller checks
/// the token).
pub fn read(root: &Reader, cancel: &Cancel) -> Result<DiceConfig, Problem> {
    root.only_at_root(&["lower_is_better", "units", "scenarios"])?;
    let lower: Vec<String> = match root.table.get("lower_is_better") {
        None => Vec::new(),
        Some(Value::Array(v)) if v.iter().all(|x| x.is_str()) => v
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(_) => {
            return Err(root.problem(
                "lower_is_better",
                "expected the names of stats that are better low, e.g. [\"target\"]",
            ))
        }
    };
    let units = match root.table_opt("units")? {
        None => Vec::new(),
        Some(_) => {
            crate::config::entries(root, "units", "unit", "ID", |_, id, r| read_unit(id, &r))?
        }
    };
    let scenarios = crate::config::scenarios(root, |r| read_scenario(r, &units, cancel))?;
    // Every stat once, in the order units first name them; a set keeps this linear in
    // the number of stats (a unit of 100,000 stats took 12 s when each was searched for).
    let mut stats: Vec<(String, bool)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for u in &units {
        for (k, _) in &u.stats {
            if seen.insert(k.as_str()) {
                stats.push((k.clone(), lower.contains(k)));
            }
        }
    }
    if let Some(k) = lower.iter().find(|k| !stats.iter().any(|(s, _)| s == *k)) {
        let names: Vec<&str> = stats.iter().map(|(s, _)| s.as_str()).collect();
        return Err(root.problem(
            "lower_is_better",
            format!(
                "no unit has a stat `{k}`{}; the stats are {}",
                nearest_hint(k, names.iter().copied()),
                list(&names)
            ),
        ));
    }
    Ok(DiceConfig {
        units,
        scenarios,
        stats,
    })
}

/// The names the scenarios' rolls read (a stat, or `their_` it from the other side):
/// every word of their text.
fn names_read(scenarios: &[crate::config::Named<Scenario>]) -> std::collections::BTreeSet<&str> {
    let mut read = std::collections::BTreeSet::new();
    let texts = scenarios
        .iter()
        .map(|s| &s.scenario)
        .flat_map(|s| std::iter::once(s.roll.as_str()).chain(s.vs.as_ref().map(|v| v.0.as_str())));
    for text in texts {
        for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let w = w.strip_prefix("their_").unwrap_or(w);
            if !w.is_empty() {
                read.insert(w);
            }
        }
    }
    read
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
        && !(s.starts_with('d') && s[1..].chars().all(|c| c.is_ascii_digit()))
}

fn read_unit(id: &str, r: &Reader) -> Result<Unit, Problem> {
    let mut stats = Vec::new();
    let mut name = id.to_string();
    for (k, v) in r.table {
        if k == "name" {
            name = r.string_opt("name")?.unwrap_or_default();
            continue;
        }
        // Its points, for `rollsim roster`: not a stat.
        if k == "cost" {
            crate::config::cost(r)?;
            continue;
        }
        match v {
            // A range, not `n.abs()`: the absolute value of i64::MIN wraps (to itself).
            Value::Integer(n) if is_name(k) && (-1_000_000..=1_000_000).contains(n) => {
                stats.push((k.clone(), *n))
            }
            Value::Integer(_) if is_name(k) => {
                return Err(r.problem(k, "expected a stat from -1,000,000 to 1,000,000"))
            }
            _ if !is_name(k) => {
                return Err(r.problem(
                    k,
                    "a stat's name is letters, digits and `_` (not a die like `d6` nor a word of the language)",
                ))
            }
            _ => return Err(r.problem(k, "expected a stat: an integer")),
        }
    }
    Ok(Unit {
        id: id.to_string(),
        name,
        stats,
    })
}

/// A `vs` compiled, and what it does that its writer may not mean.
type SaidVs = (Node, Vec<String>);

/// The values a part of a result takes ([`taken`]), for a record's packing.
type Taken<'a> = &'a dyn Fn(&Node) -> Option<Vec<i64>>;

/// A `vs` parsed once: compiled as the plain expression it must be, and what it does
/// that its writer may not mean ([`super::lang::surprises_in`]). `result` first reads it
/// as a result is read (a one-liner's `--vs`, for the message `roll` would get), then
/// `plain` says what is wrong with it as a plain expression.
fn parse_vs(
    text: &str,
    names: program::Names,
    result: Option<Taken>,
) -> Result<SaidVs, (bool, super::lang::SyntaxError)> {
    let e = super::lang::parse(text).map_err(|e| (false, e))?;
    if let Some(taken) = result {
        program::result_counted(&e, names, taken).map_err(|e| (false, e))?;
    }
    let n = program::compile(&e, names).map_err(|e| {
        let plain = super::lang::SyntaxError {
            col: e.col,
            message: e.message,
        };
        (true, plain)
    })?;
    Ok((n, super::lang::surprises_in(&e)))
}

fn read_scenario(r: &Reader, units: &[Unit], cancel: &Cancel) -> Result<Scenario, Problem> {
    r.only(SCENARIO_KEYS)?;
    let unit = |key: &str| -> Result<Option<&Unit>, Problem> {
        let Some(id) = r.string_opt(key)? else {
            return Ok(None);
        };
        let ids: Vec<&str> = units.iter().map(|u| u.id.as_str()).collect();
        units.iter().find(|u| u.id == id).map(Some).ok_or_else(|| {
            r.problem(
                key,
                format!(
                    "no unit `{id}`{}; the units are {}",
                    nearest_hint(&id, ids.iter().copied()),
                    if ids.is_empty() {
                        "none (add [units.ID] tables)".to_string()
                    } else {
                        list(&ids)
                    }
                ),
            )
        })
    };
    let (me, them) = (unit("unit")?, unit("opponent")?);
    let values = read_values(r)?;
    // Names in `roll`: its unit's stats, the opponent's as `their_<stat>`, the values.
    let names = |own: Option<&Unit>, other: Option<&Unit>| -> Vec<(String, i64)> {
        let mut v: Vec<(String, i64)> = values.clone();
        if let Some(u) = own {
            v.extend(u.stats.iter().cloned());
        }
        if let Some(u) = other {
            v.extend(u.stats.iter().map(|(k, x)| (format!("their_{k}"), *x)));
        }
        v
    };
    let roll = r.string_opt("roll")?.ok_or_else(|| {
        r.problem(
            "roll",
            "missing key: the roll, e.g. roll = \"4d6 drop lowest\"",
        )
    })?;
    let (roll_node, fields, said) = parse_said(&roll, &names(me, them), cancel)
        .map_err(|e| r.problem("roll", format!("{}: {}", e.place(&roll), e.render(&roll))))?;
    let (vs, vs_said) = match r.string_opt("vs")? {
        None => (None, Vec::new()),
        Some(text) => {
            let names = names(them.or(me), if them.is_some() { me } else { None });
            let (n, said) = parse_vs(&text, &names, None).map_err(|(_, e)| {
                r.problem("vs", format!("{}: {}", e.place(&text), e.render(&text)))
            })?;
            (Some((text, n)), said)
        }
    };
    if fields.is_some() && vs.is_some() {
        return Err(r.problem(
            "vs",
            "a roll with named results (a record) is not opposed: read both sides in it, e.g. { me = ..., them = ... }",
        ));
    }
    let ties = r
        .pick(
            "ties",
            &[("tie", Ties::Tie), ("roll", Ties::Roll), ("vs", Ties::Vs)],
        )?
        .unwrap_or(Ties::Tie);
    if r.table.contains_key("ties") && vs.is_none() {
        return Err(r.problem("ties", "`ties` reads an opposed roll: give `vs` too"));
    }
    let tiers = read_tiers(r)?;
    let at_least = r.int_in("at_least", -1_000_000, 1_000_000)?;
    let span = bounded(
        &roll_node,
        vs.as_ref().map(|v| &v.1),
        fields.as_deref(),
        cancel,
    )
    .map_err(|(k, why)| r.problem(k, why))?;
    let mixup = match (&vs, me, them) {
        (Some((text, _)), Some(me), Some(them)) => their_mixup(&roll, text, me, them, &values),
        _ => None,
    };
    let warning = with_surprises(mixup, said, &vs_said);
    Ok(Scenario {
        roll,
        roll_node: roll_node.into(),
        fields,
        vs,
        ties,
        tiers,
        at_least,
        unit: me.map(|u| u.name.clone()),
        opponent: them.map(|u| u.name.clone()),
        span,
        warning,
    })
}

/// `values = { ac = 15 }`: named numbers a roll may read, in file order.
fn read_values(r: &Reader) -> Result<Vec<(String, i64)>, Problem> {
    let mut values: Vec<(String, i64)> = Vec::new();
    if let Some(t) = r.table_opt("values")? {
        for (k, v) in t.table {
            match v {
                // Read in the roll as a stat is: the same range.
                Value::Integer(n) if is_name(k) && (-1_000_000..=1_000_000).contains(n) => {
                    values.push((k.clone(), *n))
                }
                Value::Integer(_) if is_name(k) => {
                    return Err(t.problem(k, "expected a value from -1,000,000 to 1,000,000"))
                }
                _ => {
                    return Err(t.problem(k, "expected a named integer, e.g. values = { ac = 15 }"))
                }
            }
        }
    }
    Ok(values)
}

/// Ascending thresholds and a name for each outcome they make, lowest first.
pub type Tiers = (Vec<i64>, Vec<String>);

/// `tiers` and `tier_names`: the thresholds a result is read by, and a name for each
/// outcome they make.
fn read_tiers(r: &Reader) -> Result<Option<Tiers>, Problem> {
    Ok(match (r.table.get("tiers"), r.table.get("tier_names")) {
        (None, None) => None,
        (Some(Value::Array(t)), Some(Value::Array(n))) => {
            let t: Option<Vec<i64>> = t.iter().map(|x| x.as_integer()).collect();
            let n: Option<Vec<String>> = n.iter().map(|x| x.as_str().map(str::to_string)).collect();
            match (t, n) {
                (Some(t), Some(n)) if !t.is_empty() && t.windows(2).all(|w| w[0] < w[1]) => {
                    if n.len() != t.len() + 1 {
                        return Err(r.problem(
                            "tier_names",
                            format!(
                                "{} thresholds make {} outcomes: give {} names, lowest first",
                                t.len(),
                                t.len() + 1,
                                t.len() + 1
                            ),
                        ));
                    }
                    Some((t, n))
                }
                _ => {
                    return Err(r.problem(
                        "tiers",
                        "expected ascending thresholds, e.g. tiers = [7, 10], and tier_names = [\"miss\", \"weak hit\", \"strong hit\"]",
                    ))
                }
            }
        }
        (Some(_), None) | (None, Some(_)) => {
            let missing = if r.table.contains_key("tiers") { "tier_names" } else { "tiers" };
            return Err(r.problem(missing, "`tiers` and `tier_names` go together"));
        }
        _ => {
            return Err(r.problem(
                "tiers",
                "expected ascending thresholds, e.g. tiers = [7, 10], and tier_names = [\"miss\", \"weak hit\", \"strong hit\"]",
            ))
        }
    })
}

/// The checks of a scenario's parsed expressions that a config and a one-liner share:
/// no rolled dice count past [`program::MAX_ROLLED_DICE`], and a result whose states
/// Monte Carlo can keep in a table. Its span, or the key at fault and why.
fn bounded(
    roll: &Node,
    vs: Option<&Node>,
    fields: Option<&[program::Field]>,
    cancel: &Cancel,
) -> Result<Span, (&'static str, String)> {
    for (key, node) in std::iter::once(("roll", roll)).chain(vs.map(|v| ("vs", v))) {
        if let Some(most) = program::rolled_count_past_limit(node, &mut Vec::new()) {
            reached_count(node, most, cancel).map_err(|why| (key, why))?;
        }
    }
    // The states Monte Carlo needs must stay a table.
    result_span(roll, vs, fields, cancel)
        .map_err(|why| (if vs.is_some() { "vs" } else { "roll" }, why))
}

/// A rolled dice count whose bounds (`estimate`, from intervals) pass what a pool rolls:
/// the count's real reach, from the exact distribution of every count the program rolls
/// (`(w - w / 100 * 100)d6` takes at most 99 dice, though its bounds say 2,000). Only
/// where that cannot be worked out within its budget does the estimate stand.
fn reached_count(node: &Node, estimate: i64, cancel: &Cancel) -> Result<(), String> {
    let m = program::MAX_ROLLED_DICE;
    let wide = program::MAX_COUNTED_DICE;
    let split = format!(
        "a count whose bounds pass {wide} dice (or are not known, as a round's state) rolls at most {m}, so bound it where it cannot pass (`(min(hits, {wide}))d6` rolls up to {wide}) or split it into pools of at most {m} each (e.g. for a count up to {}: `(min(hits, {m}))d6 + (max(hits - {m}, 0))d6`)",
        2 * m
    );
    // The law (in integers, then in floats), which knows each count's pools: the count
    // past them, if any.
    let most = super::exact::any_law(node, None, cancel).map(|first| first.past);
    match most {
        Ok(0) => Ok(()),
        Ok(most) => Err(format!(
            "a dice count that is rolled or changes (or a held pool's sides) reaches {most}: {split}"
        )),
        Err(why) => Err(format!(
            "a dice count that is rolled or changes can reach {estimate} by its bounds (its exact distribution, which could show it stays lower, was not worked out: {why}): {split}"
        )),
    }
}

/// The config `rollsim roll EXPR [--vs EXPR]` stands for, its one scenario `roll`,
/// built from the expressions parsed once: what a config of the two keys `roll` and
/// `vs` reads to (a test holds the two equal), without writing that config and reading
/// it back. Errors name the expression (`roll` or `--vs`) and where in it. The work
/// stops at `cancel`, as [`read`]'s does.
pub fn one_liner(roll: &str, vs: Option<&str>, cancel: &Cancel) -> Result<DiceConfig, String> {
    let placed = |what: &str, text: &str, e: super::lang::SyntaxError| {
        format!("{what}, {}: {}", e.place(text), e.render(text))
    };
    let (roll_node, fields, surprises) =
        parse_said(roll, &[], cancel).map_err(|e| placed("roll", roll, e))?;
    let (vs, vs_said) = match vs {
        None => (None, Vec::new()),
        Some(text) => {
            // Read as a result first, as `roll` is, for the same message at the same
            // place; then as the plain expression `vs` must be.
            let (node, said) =
                parse_vs(text, &[], Some(&taken(cancel))).map_err(|(plain, e)| match plain {
                    false => placed("--vs", text, e),
                    true => format!(
                        "--vs `{}`: {}: {}",
                        text.escape_debug(),
                        e.place(text),
                        e.render(text)
                    ),
                })?;
            (Some((text.to_string(), node)), said)
        }
    };
    let said = |key: &str, why: String| {
        let (what, text) = match (key, &vs) {
            ("vs", Some((t, _))) => ("--vs", t.as_str()),
            _ => ("roll", roll),
        };
        format!("{what} `{}`: {why}", text.escape_debug())
    };
    if fields.is_some() && vs.is_some() {
        return Err(said(
            "vs",
            "a roll with named results (a record) is not opposed: read both sides in it, e.g. { me = ..., them = ... }".into(),
        ));
    }
    let span = bounded(
        &roll_node,
        vs.as_ref().map(|v| &v.1),
        fields.as_deref(),
        cancel,
    )
    .map_err(|(k, why)| said(k, why))?;
    let warning = with_surprises(None, surprises, &vs_said);
    Ok(DiceConfig {
        units: Vec::new(),
        scenarios: vec![Named {
            name: "roll".into(),
            table: "roll".into(),
            description: None,
            scenario: Scenario {
                roll: roll.to_string(),
                roll_node: roll_node.into(),
                fields,
                vs,
                ties: Ties::Tie,
                tiers: None,
                at_least: None,
                unit: None,
                opponent: None,
                span,
                warning,
            },
        }],
        stats: Vec::new(),
    })
}

/// `warning` with what the roll (`roll`, said already) and its `vs` do that their
/// writer may not mean ([`super::lang::surprises`]), each side named where there are
/// two.
fn with_surprises(warning: Option<String>, roll: Vec<String>, vs: &[String]) -> Option<String> {
    let mut said: Vec<String> = warning.into_iter().collect();
    said.extend(roll);
    said.extend(vs.iter().map(|s| format!("in `vs`, {s}")));
    (!said.is_empty()).then(|| said.join("; "))
}

/// A `vs` whose two sides read one unit's stat where one side's `their_` was probably
/// meant. In `roll` a plain name is the unit's stat and `their_<stat>` the opponent's;
/// in `vs` the other way round, so `their_pool` in `vs` reads the unit's own pool and
/// the duel is the unit against itself (8 dice against 8, a margin of exactly 0). The
/// check: a stat both units have, read from the same unit by both sides, and from the
/// other unit by neither. Names are read off the text (a `let` that reuses a stat's
/// name counts as a read: a warning, never a refusal); a unit against itself is left.
pub fn their_mixup(
    roll: &str,
    vs: &str,
    me: &Unit,
    them: &Unit,
    values: &[(String, i64)],
) -> Option<String> {
    if me.id == them.id {
        return None;
    }
    let names = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
            .map(str::to_string)
            .collect()
    };
    let has = |u: &Unit, k: &str| u.stats.iter().any(|(s, _)| s == k);
    // Which units' `k` a side reads: (its own side's unit, the other).
    let reads = |text: &str, k: &str| {
        let words = names(text);
        let plain = !values.iter().any(|(v, _)| v == k) && words.iter().any(|w| w == k);
        let their = words.iter().any(|w| w.strip_prefix("their_") == Some(k));
        (plain, their)
    };
    for (k, _) in &me.stats {
        if !has(them, k) {
            continue;
        }
        // roll: plain = me, their_ = them; vs: plain = them, their_ = me.
        let (r_me, r_them) = reads(roll, k);
        let (v_them, v_me) = reads(vs, k);
        let (who, other, fix) = if r_me && v_me && !r_them && !v_them {
            (
                me,
                them,
                format!(
                    "in `vs` a plain name is {}'s, so write `{k}` there",
                    them.name
                ),
            )
        } else if r_them && v_them && !r_me && !v_me {
            (
                them,
                me,
                format!(
                    "in `roll` a plain name is {}'s, so write `{k}` there",
                    me.name
                ),
            )
        } else {
            continue;
        };
        return Some(format!(
            "`roll` and `vs` both read {}'s `{k}` and neither reads {}'s: {fix} (`their_{k}` is the other side's in each)",
            who.name, other.name
        ));
    }
    None
}

/// A scenario's result parsed and compiled, a record packed by what its fields take
/// where their bounds multiply too far: what every reader of an expression (a config, a
/// one-liner, the live page's dice box) calls.
pub fn parse_result(
    text: &str,
    names: program::Names,
    cancel: &Cancel,
) -> Result<(Node, Option<Vec<program::Field>>), super::lang::SyntaxError> {
    program::parse_result_counted(text, names, &taken(cancel))
}

/// A result compiled, its record's fields, and what it does that its writer may not
/// mean.
type Said = (Node, Option<Vec<program::Field>>, Vec<String>);

/// [`parse_result`], with what the roll does that its writer may not mean
/// ([`super::lang::surprises`]) read off the same parse.
fn parse_said(
    text: &str,
    names: program::Names,
    cancel: &Cancel,
) -> Result<Said, super::lang::SyntaxError> {
    let e = super::lang::parse(text)?;
    let (n, fields) = program::result_counted(&e, names, &taken(cancel))?;
    Ok((n, fields, super::lang::surprises_in(&e)))
}

/// The values a result takes, by its exact distribution (within its usual budget, and
/// until `cancel`).
fn taken(cancel: &Cancel) -> impl Fn(&Node) -> Option<Vec<i64>> + '_ {
    move |n| {
        let law = super::exact::any_law(n, None, cancel).ok()?;
        Some(law.law.possible())
    }
}

/// The values a result's Monte Carlo table holds: every number from its lowest to its
/// highest, or where those are more than a table holds, the values its exact
/// distribution says can come up (`d6 * 100000` takes 6 values over 500,001 numbers).
#[derive(Clone, Debug, PartialEq)]
pub enum Span {
    /// Every number from the first to the second.
    Range(i64, i64),
    /// These values, ascending.
    Listed(std::sync::Arc<[i64]>),
}

/// The values the result can take, for Monte Carlo's table (at most
/// [`super::MAX_STATES`] of them): the bounds worked out from the program, or where they
/// are wider (`x - 8 * (x / 8)` of a wide `x` is bounded by about twice `x`'s range,
/// though it takes 8 values), the support of its exact distribution, or where that is
/// wider too, the values it takes. Only then is the exact distribution worked out here,
/// within its usual budget: what a roll takes decides, never its bounds alone. Where
/// there is no exact distribution, the values each part takes ([`program::values`]).
/// A record's results (`fields`) are packed into one number: what it takes is counted
/// as their combinations.
pub fn result_span(
    roll: &Node,
    vs: Option<&Node>,
    fields: Option<&[program::Field]>,
    cancel: &Cancel,
) -> Result<Span, String> {
    let (lo, hi) = span(roll, vs);
    let most = super::MAX_STATES;
    let fits = |lo: i64, hi: i64| hi.saturating_sub(lo) < most as i64;
    if fits(lo, hi) {
        return Ok(Span::Range(lo, hi));
    }
    // Shown to take every number of a range too wide: no law can list fewer.
    if let (None, None, Some((a, b))) = (vs, fields, program::every_value(roll)) {
        if !fits(a, b) {
            return Err(format!(
                "the result takes {} values, from {a} to {b}: more than {most} values",
                crate::text::thousands((i128::from(b) - i128::from(a) + 1) as u64),
            ));
        }
    }
    let law = super::exact::any_law(roll, vs, cancel).map(|f| f.law);
    match law {
        Ok(law) => {
            let (a, b) = law.support();
            if fits(a, b) {
                return Ok(Span::Range(a, b));
            }
            let values = law.possible();
            if values.len() <= most {
                Ok(Span::Listed(values.into()))
            } else if let Some(fields) = fields {
                Err(format!(
                    "the record's results ({}) take {} combinations together: more than {most}",
                    fields
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    crate::text::thousands(values.len() as u64),
                ))
            } else {
                Err(format!(
                    "the result takes {} values, from {a} to {b}: more than {most} values",
                    crate::text::thousands(values.len() as u64),
                ))
            }
        }
        // The values each part takes, where the law was not made (a value spanning
        // more numbers than a law holds: `d6 * 1000000`).
        Err(why) => match (fields, vs) {
            (None, None) => program::values(roll, most),
            (None, Some(vs)) => program::values_less(roll, vs, most),
            (Some(_), _) => None,
        }
        .map(|values| Span::Listed(values.into()))
        .ok_or_else(|| {
            format!(
                "the result can range from {} to {}: more than {} values (its exact \
                 distribution, which could show it takes fewer, was not worked out: {why})",
                shown_bound(lo),
                shown_bound(hi),
                most
            )
        }),
    }
}

/// A bound as a designer reads it: one that reached the largest whole number a roll
/// holds (a doubling in every round of 100) says so, rather than print that number.
fn shown_bound(b: i64) -> String {
    // A bound that reached the largest (or, negated, came within one of the smallest).
    match b {
        b if b >= i64::MAX - 1 => "past the largest whole number a roll holds (2^63 - 1)".into(),
        b if b <= i64::MIN + 1 => "below the smallest whole number a roll holds (-2^63)".into(),
        b => b.to_string(),
    }
}

/// The range of the scenario's result by its bounds: the roll, or the roll less the
/// opposing roll.
pub fn span(roll: &Node, vs: Option<&Node>) -> (i64, i64) {
    let (a, b) = program::bounds(roll, &mut Vec::new());
    match vs {
        None => (a, b),
        Some(v) => {
            let (c, d) = program::bounds(v, &mut Vec::new());
            (a.saturating_sub(d), b.saturating_sub(c))
        }
    }
}
