//! A config document: its text (or an already parsed table) -> a validated
//! [`AnalysisConfig`], through the registry of [`crate::systems`]. This is the loader
//! above the systems; [`crate::config`] is the toolkit below them that every system
//! reads its tables with.
//!
//! The text is parsed once into a table (kept in file order) and, only for an error,
//! once into a spanned tree that turns a key path into `line:column`. `--set` overrides
//! are applied to the table before validation; an error in an overridden value is
//! reported against the `--set` that introduced it, not against the file.

use crate::cancel::Cancel;
use crate::config::reader::{self, nearest_hint, Reader};
use crate::config::{line_col, ConfigError, Origin, Problem, RunDefaults};
use crate::systems::{self, Loaded, ScenarioInfo, System};
use std::path::PathBuf;
use std::sync::Arc;
use toml::{Table, Value};

/// A validated config, ready to compile scenarios from.
#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// Where the text came from, as messages and reports name it.
    pub file: PathBuf,
    /// The config's `title`, for report headings.
    pub title: String,
    /// `[run]`: trials, seed and precision unless the command line overrides them.
    pub run: RunDefaults,
    /// The system its `system = "..."` names.
    pub system: &'static dyn System,
    /// That system's validated reading of the rest of the config.
    pub loaded: Arc<dyn Loaded>,
    /// `[stat_bounds]`: the designer's range for a stat, narrowing the system's (a
    /// balance command never steps a stat outside it).
    pub stat_bounds: Arc<Vec<(String, i64, i64)>>,
    /// Each scenario's position in `loaded.scenarios()`, by name.
    index: Arc<std::collections::HashMap<String, usize>>,
}

impl AnalysisConfig {
    /// A checked config from its parts, each scenario found by name (`names` in the
    /// order of `loaded.scenarios()`): a file read, or a one-liner built whole.
    fn assembled(
        file: &str,
        title: String,
        run: RunDefaults,
        system: &'static dyn System,
        loaded: Arc<dyn Loaded>,
        stat_bounds: Vec<(String, i64, i64)>,
        names: Vec<String>,
    ) -> AnalysisConfig {
        let index = names.into_iter().enumerate().map(|(i, n)| (n, i)).collect();
        AnalysisConfig {
            file: PathBuf::from(file),
            title,
            run,
            system,
            loaded,
            stat_bounds: Arc::new(stat_bounds),
            index: Arc::new(index),
        }
    }

    /// The `system = "..."` name: which game folder under `systems` reads the config.
    pub fn system_name(&self) -> &'static str {
        self.system.name()
    }

    /// Every scenario (groups expanded) with its table and description, in file order.
    pub fn scenarios(&self) -> Vec<ScenarioInfo> {
        self.loaded.scenarios()
    }

    /// The names of [`AnalysisConfig::scenarios`], in file order.
    pub fn scenario_names(&self) -> Vec<String> {
        self.scenarios().into_iter().map(|s| s.name).collect()
    }

    /// Compile one scenario by name, checked ([`crate::model::Compiled::check`]).
    pub fn compile(&self, name: &str) -> Result<crate::model::Compiled, CompileError> {
        self.compile_with(name, &crate::cancel::Cancel::new())
    }

    /// As [`AnalysisConfig::compile`], with a token that stops a long exact pass.
    pub fn compile_with(
        &self,
        name: &str,
        cancel: &crate::cancel::Cancel,
    ) -> Result<crate::model::Compiled, CompileError> {
        let c = self
            .index
            .get(name)
            .and_then(|&i| self.loaded.compile(i, cancel))
            .ok_or_else(|| CompileError::Unknown {
                name: name.to_string(),
                hint: nearest_hint(name, self.scenario_names().iter().map(String::as_str)),
            })?;
        c.check()?;
        Ok(c)
    }

    /// What scenario `name` is, in a line, without compiling where the system can.
    pub fn describe(&self, name: &str) -> Option<String> {
        self.index.get(name).and_then(|&i| self.loaded.describe(i))
    }

    /// What the balance commands may turn: the config's own knobs where it declares
    /// them (a `dice` config's stats), else its system's.
    pub fn knobs(&self) -> crate::systems::Knobs {
        let mut k = self.loaded.knobs().unwrap_or_else(|| self.system.knobs());
        if !self.stat_bounds.is_empty() {
            for st in k.stats.to_mut() {
                if let Some((_, lo, hi)) =
                    self.stat_bounds.iter().find(|(key, _, _)| *key == st.key)
                {
                    st.lo = st.lo.max(*lo);
                    st.hi = st.hi.min(*hi);
                }
            }
        }
        k
    }

    /// The system's own typed config, for tests and benches of one system.
    pub fn typed<T: 'static>(&self) -> Option<&T> {
        self.loaded.as_any().downcast_ref::<T>()
    }
}

/// Why a scenario could not be compiled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompileError {
    /// The config has no scenario of that name.
    #[error("no scenario `{name}`{hint}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// ` (did you mean `x`?)` for the nearest known name, or empty.
        hint: String,
    },
    /// The rules module built a scenario whose parts do not fit: a bug in rollsim.
    #[error(transparent)]
    Invalid(#[from] crate::model::InvalidScenario),
}

/// A config file's bytes as text, or where they stop being UTF-8 (TOML is UTF-8; a file
/// saved as Latin-1 or UTF-16 is refused at its first bad byte, by line and column).
pub fn text_of(bytes: Vec<u8>, file: &str) -> Result<String, ConfigError> {
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // The text before the bad byte is valid: count lines and columns in it.
        let before = std::str::from_utf8(&bytes[..good]).unwrap_or_default();
        let (line, column) = line_col(before, good);
        ConfigError::Syntax {
            file: file.into(),
            line,
            column,
            key: key_on_line(before, line),
            message: format!(
                "byte 0x{:02X} is not UTF-8 text: save the config as UTF-8",
                bytes[good]
            ),
        }
    })
}

/// Parse a config's text into its table, in file order; a syntax error names the line,
/// the column and the key on that line.
pub fn parse(text: &str, file: &str) -> Result<Table, ConfigError> {
    text.parse().map_err(|e: toml::de::Error| {
        let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        let message = e.message().trim().to_string();
        let (key, message) = match duplicate(text, line).filter(|_| message == "duplicate key") {
            Some((key, first)) => (
                Some(key),
                format!("duplicate key: already set on line {first}; keep one of the two"),
            ),
            None => (key_on_line(text, line), message),
        };
        ConfigError::Syntax {
            file: file.into(),
            line,
            column,
            key,
            message,
        }
    })
}

/// A key or table set twice, at `line`: its whole path (`units.orc.name`, `[units.orc]`)
/// and the line that set it first, which the TOML parser does not say.
fn duplicate(text: &str, line: usize) -> Option<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let header = |l: &str| {
        let t = l.trim();
        (t.starts_with('[') && !t.starts_with("[[")).then(|| {
            t.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
    };
    let here = lines.get(line.checked_sub(1)?)?;
    if let Some(table) = header(here) {
        let first = lines[..line - 1]
            .iter()
            .position(|l| header(l).as_deref() == Some(table.as_str()))?;
        return Some((format!("[{table}]"), first + 1));
    }
    let key = key_on_line(text, line)?;
    // The table the key is in starts at the nearest header above it.
    let start = lines[..line - 1]
        .iter()
        .rposition(|l| header(l).is_some())
        .map_or(0, |i| i + 1);
    let table = start.checked_sub(1).and_then(|i| header(lines[i]));
    let first = (start..line - 1).find(|&i| key_on_line(text, i + 1).as_deref() == Some(&key))?;
    let path = table.map_or(key.clone(), |t| format!("{t}.{key}"));
    Some((path, first + 1))
}

/// The key paths `--set` overrode, each with the argument that did it: an error in such
/// a value is the argument's, not the file's.
pub type Overridden = Vec<(Vec<String>, String)>;

/// Apply `--set KEY=VALUE` arguments to a parsed table, in order.
pub fn apply_sets(table: &mut Table, sets: &[String]) -> Result<Overridden, ConfigError> {
    let mut overridden = Overridden::new();
    for arg in sets {
        let path = apply_set(table, arg)?;
        overridden.push((path, arg.clone()));
    }
    Ok(overridden)
}

/// Apply one `KEY=VALUE`; returns the key path. Every table on the way must exist
/// (a misspelt unit or scenario is an error with the nearest name), except the optional
/// sections `[run]` and `[rules]`; the last key may be new, and validation judges it.
pub fn apply_set(table: &mut Table, arg: &str) -> Result<Vec<String>, ConfigError> {
    if let Some((at, c)) = arg.chars().enumerate().find(|(_, c)| c.is_control()) {
        // What follows a line break was dropped without a word: refused, as the live
        // page's server refuses it.
        let what = match c {
            '\n' => "a line break",
            '\r' => "a carriage return",
            '\t' => "a tab",
            _ => "a control character",
        };
        return Err(ConfigError::BadSet {
            arg: arg.escape_debug().to_string(),
            message: format!(
                "character {} is {what} (U+{:04X}): a --set is one KEY=VALUE on one line; give each change a --set of its own",
                at + 1,
                c as u32
            ),
        });
    }
    let bad = |message: String| ConfigError::BadSet {
        arg: arg.into(),
        message,
    };
    let (key, raw) = arg
        .split_once('=')
        .ok_or_else(|| bad("expected KEY=VALUE, e.g. `units.orc.strength=2`".into()))?;
    let path: Vec<String> = key
        .trim()
        .split('.')
        .map(|s| s.trim().to_string())
        .collect();
    if path.iter().any(|s| s.is_empty()) {
        return Err(bad(format!(
            "`{key}` is not a key path like `units.orc.strength`"
        )));
    }
    if path.len() == 1 && path[0] == "system" {
        return Err(bad(
            "the game system belongs to the config file: it cannot be changed with --set; write a config of that system".into(),
        ));
    }
    let value = parse_value(raw.trim());
    let mut here = table;
    for (depth, seg) in path[..path.len() - 1].iter().enumerate() {
        if depth == 0 && !here.contains_key(seg) && (seg == "rules" || seg == "run") {
            here.insert(seg.clone(), Value::Table(Table::new()));
        }
        let names: Vec<String> = here.keys().cloned().collect();
        match here.get_mut(seg) {
            Some(Value::Table(t)) => here = t,
            Some(_) => {
                return Err(bad(format!(
                    "`{}` is not a table",
                    path[..=depth].join(".")
                )))
            }
            None => {
                let at = if depth == 0 {
                    "at the top level".to_string()
                } else {
                    format!("in `{}`", path[..depth].join("."))
                };
                return Err(bad(format!(
                    "there is no `{seg}` {at}{}",
                    nearest_hint(seg, names.iter().map(String::as_str))
                )));
            }
        }
    }
    here.insert(path[path.len() - 1].clone(), value);
    Ok(path)
}

/// A `--set` value: TOML if it parses (`2`, `true`, `"x"`), else a bare string (`guard`).
pub fn parse_value(raw: &str) -> Value {
    format!("v = {raw}")
        .parse::<Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(raw.to_string()))
}

/// The key a `key = value` line sets (a duplicate key, a number too large), for messages
/// about TOML the parser refused.
pub fn key_on_line(text: &str, line: usize) -> Option<String> {
    let l = text.lines().nth(line.checked_sub(1)?)?;
    let (k, _) = l.split_once('=')?;
    let k = k.trim().trim_matches('"');
    (!k.is_empty() && !k.starts_with('[') && !k.starts_with('#')).then(|| k.to_string())
}

/// Load and validate a config from its text (`file` names it in messages), applying
/// `--set KEY=VALUE` overrides: where nothing asks it to stop (a test, a benchmark, the
/// live page's list of configs).
pub fn load_str(text: &str, file: &str, sets: &[String]) -> Result<AnalysisConfig, ConfigError> {
    load_located(text, file, sets, &Cancel::new())
}

/// [`load_str`] for a command Ctrl-C may stop: checking a roll can work out its exact
/// distribution (seconds, for a wide one), and that work stops at `cancel`, the load then
/// returning [`crate::Error::Interrupted`].
pub fn load_until(
    text: &str,
    file: &str,
    sets: &[String],
    cancel: &Cancel,
) -> Result<AnalysisConfig, crate::Error> {
    let loaded = load_located(text, file, sets, cancel);
    // A check cut short may have refused (or passed) what it did not finish.
    cancel.check()?;
    Ok(loaded?)
}

fn load_located(
    text: &str,
    file: &str,
    sets: &[String],
    cancel: &Cancel,
) -> Result<AnalysisConfig, ConfigError> {
    let mut table = parse(text, file)?;
    let as_written = (!sets.is_empty()).then(|| table.clone());
    let overridden = apply_sets(&mut table, sets)?;
    let cfg = validate_located(&table, file, Some(text), &overridden, cancel)?;
    if let Some(t) = as_written {
        refuse_unread(&t, &overridden, &cfg, file)?;
    }
    Ok(cfg)
}

/// A `--set` that added a key the file does not have, where the config reads no such key
/// ([`crate::systems::Loaded::unread`]: `units.fighter.hpp=3` of a dice config whose
/// rolls read `hp`): refused at the `--set`, as a misspelt key of a system's own schema
/// is by its reader.
pub fn refuse_unread(
    as_written: &Table,
    overridden: &Overridden,
    cfg: &AnalysisConfig,
    file: &str,
) -> Result<(), ConfigError> {
    fn has(t: &Table, path: &[String]) -> bool {
        match path {
            [] => true,
            [last] => t.contains_key(last),
            [first, rest @ ..] => {
                matches!(t.get(first), Some(toml::Value::Table(s)) if has(s, rest))
            }
        }
    }
    for (path, arg) in overridden {
        if has(as_written, path) {
            continue;
        }
        if let Some(message) = cfg.loaded.unread(path) {
            return Err(ConfigError::Invalid {
                file: file.into(),
                origin: Origin::Set(arg.clone()),
                key: path.join("."),
                message,
            });
        }
    }
    Ok(())
}

/// The config of `rollsim roll EXPR [--vs EXPR]`, from the first system with a language
/// of its own ([`crate::systems::System::one_liner_loaded`]), named `file` in messages
/// and reports. `None` when no system reads expressions; `Err` says what is wrong with
/// which expression. Checking the expressions stops at `cancel`: the caller checks the
/// token before using what came back.
pub fn one_liner(
    roll: &str,
    vs: Option<&str>,
    file: &str,
    cancel: &Cancel,
) -> Option<Result<AnalysisConfig, String>> {
    systems::REGISTRY.iter().find_map(|&system| {
        let loaded = system.one_liner_loaded(roll, vs, cancel)?;
        Some(loaded.map(|loaded| {
            let loaded: Arc<dyn Loaded> = Arc::from(loaded);
            let names = loaded.scenarios().into_iter().map(|s| s.name).collect();
            AnalysisConfig::assembled(
                file,
                file.to_string(),
                RunDefaults::default(),
                system,
                loaded,
                Vec::new(),
                names,
            )
        }))
    })
}

/// Validate a parsed (and possibly edited) table. A problem is placed at the `--set`
/// that overrode its key, else at its line in `text` where there is one, else it is
/// said to be in the config "as changed" (a balance variant). Its checks stop at
/// `cancel`; what comes back then is not to be used.
pub fn validate_located(
    table: &Table,
    file: &str,
    text: Option<&str>,
    overridden: &[(Vec<String>, String)],
    cancel: &Cancel,
) -> Result<AnalysisConfig, ConfigError> {
    validate(table, file, cancel).map_err(|p| {
        let origin = overridden
            .iter()
            .rev()
            .find(|(path, _)| p.path.starts_with(path) || path.starts_with(&p.path))
            .map(|(_, arg)| Origin::Set(arg.clone()))
            .or_else(|| {
                text.map(|text| {
                    let (line, column) = locate(text, &p.path);
                    Origin::File { line, column }
                })
            })
            .unwrap_or(Origin::Variant);
        ConfigError::Invalid {
            file: file.into(),
            origin,
            key: p.path.join("."),
            message: p.message,
        }
    })
}

/// The position of the deepest part of `path` present in the file: the key itself if
/// it is there, else the table that should have held it.
pub fn locate(text: &str, path: &[String]) -> (usize, usize) {
    use toml::de::{DeTable, DeValue};
    let Ok(doc) = DeTable::parse(text) else {
        return (1, 1);
    };
    let mut best = 0usize;
    let mut table = doc.get_ref();
    for seg in path {
        let Some((k, v)) = table
            .iter()
            .find(|(k, _)| k.get_ref().as_ref() == seg.as_str())
        else {
            break;
        };
        best = k.span().start;
        match v.get_ref() {
            DeValue::Table(t) => table = t,
            _ => break,
        }
    }
    line_col(text, best)
}

/// Validate an already parsed (and possibly edited) table, e.g. a balance variant.
/// Errors carry the key path; there is no text to give a line.
pub fn load_table(table: &Table, file: &str) -> Result<AnalysisConfig, ConfigError> {
    validate_located(table, file, None, &[], &Cancel::new())
}

fn validate(table: &Table, file: &str, cancel: &Cancel) -> Result<AnalysisConfig, Problem> {
    let root = Reader::root(table);
    // A new (or empty) file is told what it may name.
    if table.get("system").is_none() {
        return Err(root.problem(
            "system",
            format!(
                "missing key: every config starts with `system = \"...\"`, one of {}",
                reader::list(&systems::names())
            ),
        ));
    }
    let system = root.string_req("system")?;
    let title = root.string_opt("title")?.unwrap_or_default();
    let mut run = RunDefaults::default();
    if let Some(r) = root.table_opt("run")? {
        r.only(&["trials", "seed", "matrix"])?;
        run.trials = r.u64_opt("trials")?;
        if run.trials == Some(0) {
            return Err(r.problem("trials", "expected a positive number of trials, found 0"));
        }
        run.seed = r.u64_opt("seed")?;
        run.matrix = r.string_opt("matrix")?;
    }
    let system = systems::find(&system).ok_or_else(|| {
        let known = systems::names();
        root.problem(
            "system",
            format!(
                "unknown game system `{system}`; expected one of {}{}",
                reader::list(&known),
                nearest_hint(&system, known.iter().copied())
            ),
        )
    })?;
    let loaded: Arc<dyn Loaded> = Arc::from(system.load(&root, cancel)?);
    let stat_bounds = read_stat_bounds(&root, loaded.knobs().unwrap_or_else(|| system.knobs()))?;
    let infos = loaded.scenarios();
    if infos.len() > MAX_SCENARIOS {
        return Err(root.problem(
            "scenarios",
            format!(
                "{} scenarios (profiles and decisions expanded); at most {MAX_SCENARIOS}",
                infos.len()
            ),
        ));
    }
    let names: Vec<String> = infos.iter().map(|s| s.name.clone()).collect();
    if let Some(m) = &run.matrix {
        if !names.contains(m) {
            let run_r = root.table_opt("run")?.expect("read above");
            return Err(run_r.problem(
                "matrix",
                format!(
                    "no scenario `{m}`{}",
                    nearest_hint(m, names.iter().map(String::as_str))
                ),
            ));
        }
    }
    Ok(AnalysisConfig::assembled(
        file,
        title,
        run,
        system,
        loaded,
        stat_bounds,
        names,
    ))
}

/// `[stat_bounds]`: `STAT = [LO, HI]` for any stat the balance commands step, e.g.
/// `wounds = [1, 10]`, so that none proposes a stat no unit can have.
fn read_stat_bounds(
    root: &Reader,
    knobs: crate::systems::Knobs,
) -> Result<Vec<(String, i64, i64)>, Problem> {
    let Some(r) = root.table_opt("stat_bounds")? else {
        return Ok(Vec::new());
    };
    let mut names: Vec<&str> = knobs.stats.iter().map(|s| s.key.as_ref()).collect();
    names.dedup();
    let mut out = Vec::new();
    for (key, v) in r.table {
        if !names.contains(&key.as_str()) {
            return Err(r.problem(
                key,
                format!(
                    "no stat `{key}`{}; the stats are {}",
                    nearest_hint(key, names.iter().copied()),
                    reader::list(&names)
                ),
            ));
        }
        let pair = v.as_array().and_then(|a| match a.as_slice() {
            [lo, hi] => Some((lo.as_integer()?, hi.as_integer()?)),
            _ => None,
        });
        match pair {
            Some((lo, hi)) if lo <= hi => out.push((key.clone(), lo, hi)),
            Some((lo, hi)) => {
                return Err(r.problem(
                    key,
                    format!("expected [LOWEST, HIGHEST], found [{lo}, {hi}]: the lowest first"),
                ))
            }
            None => {
                return Err(r.problem(
                    key,
                    "expected [LOWEST, HIGHEST], two integers, e.g. [1, 10]",
                ))
            }
        }
    }
    Ok(out)
}

/// Most scenarios one config may hold (after expansion): bounds the work of every
/// command before it starts.
pub const MAX_SCENARIOS: usize = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_parse_as_toml_or_bare_strings() {
        assert_eq!(parse_value("2"), Value::Integer(2));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("guard"), Value::String("guard".into()));
        assert_eq!(parse_value("\"4+\""), Value::String("4+".into()));
    }
}
