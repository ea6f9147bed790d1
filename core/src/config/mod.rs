//! The toolkit every system reads its tables with: a [`Reader`] over a table, named
//! entries, kinds, costs, and the errors they give ([`Problem`], placed in the file by
//! [`crate::document`], the loader above the systems, which also parses the text and
//! applies `--set`). Validation reads the table by hand rather than through serde so
//! that every error knows its full key path and the valid names at that place.

pub mod reader;

use reader::{nearest_hint, Reader};
use std::fmt;

/// Where a bad value came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// The config file, at a 1-based line and column (in characters).
    File {
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// A `--set KEY=VALUE` argument, as written.
    Set(String),
    /// A variant a balance command made of the file (a changed stat, a swapped unit).
    Variant,
}

/// A configuration problem, rendered as
/// `FILE:LINE:COL: key `a.b.c`: what was expected (did you mean `x`?)`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read at all.
    #[error("{file}: cannot read the config: {source}")]
    Read {
        /// The config's path, as given.
        file: String,
        /// What the system said.
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {}invalid TOML: {message}", .key.as_ref().map_or(String::new(), |k| format!("key `{k}`: ")))]
    /// Not TOML: the parser's message at its position.
    Syntax {
        /// The config's path, as given.
        file: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error, in characters.
        column: usize,
        /// The key on the line of the error, where there is one.
        key: Option<String>,
        /// The parser's message.
        message: String,
    },
    #[error("{}", render_invalid(.file, .origin, .key, .message))]
    /// Valid TOML that the system's reader refused.
    Invalid {
        /// The config's path, as given.
        file: String,
        /// Where the bad value came from: the file, a `--set` or a balance variant.
        origin: Origin,
        /// The dotted key path of the bad value.
        key: String,
        /// What was expected, with the nearest valid name where there is one.
        message: String,
    },
    /// A `--set` that cannot be applied (no `=`, a missing table, `system`).
    #[error("--set {arg}: {message}")]
    BadSet {
        /// The argument as written.
        arg: String,
        /// Why it cannot be applied.
        message: String,
    },
}

fn render_invalid(file: &str, origin: &Origin, key: &str, message: &str) -> String {
    match origin {
        Origin::File { line, column } => format!("{file}:{line}:{column}: key `{key}`: {message}"),
        Origin::Set(arg) => format!("--set {arg} (for {file}): key `{key}`: {message}"),
        Origin::Variant => format!("{file}, as changed: key `{key}`: {message}"),
    }
}

/// A problem found while reading the table: the key path and what was wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The key path, from the root table.
    pub path: Vec<String>,
    /// What was wrong, for the designer.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: &[String], message: impl Into<String>) -> Self {
        Problem {
            path: path.to_vec(),
            message: message.into(),
        }
    }
}

/// Defaults for a run that the config may carry in `[run]`; the CLI overrides them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunDefaults {
    /// `trials`: trials per scenario for `rollsim run`.
    pub trials: Option<u64>,
    /// `seed`: the master seed.
    pub seed: Option<u64>,
    /// The scenario whose matchup matrix the gallery shows.
    pub matrix: Option<String>,
}

/// A scenario with its name and the designer's own description, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Named<S> {
    /// The scenario's name: its table's, with a suffix for a group's members.
    pub name: String,
    /// The `[scenarios.NAME]` table it was read from (a group's name for its members).
    pub table: String,
    /// `description`, the designer's words put in front of the generated description.
    pub description: Option<String>,
    /// The checked scenario.
    pub scenario: S,
}

/// The designer's description in front of the generated one (which says what is
/// rolled), joined by a dash, not a colon: the designer's words may end in `?` or `:`,
/// and chart titles take what comes before the dash.
pub fn described(designer: &str, generated: &str) -> String {
    format!("{} — {generated}", designer.trim_end_matches(':'))
}

impl<S> Named<S> {
    /// Put the designer's description in front of the generated one (which says what
    /// is rolled).
    pub fn describe(&self, mut c: crate::model::Compiled) -> crate::model::Compiled {
        if let Some(d) = &self.description {
            c.description = described(d, &c.description);
        }
        c
    }
}

/// A unit's `cost = N` (its points, read by `rollsim roster`): a positive integer when
/// present. Nothing else reads it: it is not a stat a balance command steps.
pub fn cost(r: &Reader) -> Result<Option<i64>, Problem> {
    match r.i64_opt("cost")? {
        Some(c) if c <= 0 => Err(r.problem(
            "cost",
            format!("expected a positive number of points, found {c}"),
        )),
        c => Ok(c),
    }
}

/// Every `[KEY.ID]` table in file order, each read by `read(id, table)`; at least one.
/// `what` names one entry in messages ("unit"), `id` the placeholder ("ID", "NAME").
pub fn entries<'a, T>(
    root: &Reader<'a>,
    key: &str,
    what: &str,
    id: &str,
    mut read: impl FnMut(&Reader<'a>, &str, Reader<'a>) -> Result<T, Problem>,
) -> Result<Vec<T>, Problem> {
    let tables = root.table_opt(key)?.ok_or_else(|| {
        root.problem(
            key,
            format!("missing table `[{key}.{id}]` with at least one {what}"),
        )
    })?;
    let tables_in = tables.tables();
    // Exactly as many as there are: a config of 100,000 scenarios must not carry a
    // doubled vector's spare half for as long as it is loaded.
    let mut out = Vec::with_capacity(tables_in.len());
    for (name, r) in tables_in {
        if key != "scenarios" {
            check_name(&tables, &name, what)?;
        }
        out.push(read(&tables, &name, r?)?);
    }
    if out.is_empty() {
        return Err(root.problem(key, format!("expected at least one {what}")));
    }
    Ok(out)
}

/// A system's `[rules]`, read by `read`, or the rules' defaults when the config has no
/// such table.
pub fn rules<T: Default>(
    root: &Reader,
    read: impl FnOnce(&Reader) -> Result<T, Problem>,
) -> Result<T, Problem> {
    match root.table_opt("rules")? {
        Some(r) => read(&r),
        None => Ok(T::default()),
    }
}

/// The `[scenarios.NAME]` tables, each read by `read`.
pub fn scenarios<'a, S>(
    root: &Reader<'a>,
    mut read: impl FnMut(&Reader<'a>) -> Result<S, Problem>,
) -> Result<Vec<Named<S>>, Problem> {
    entries(root, "scenarios", "scenario", "NAME", |tables, name, r| {
        check_name(tables, name, "scenario")?;
        Ok(Named {
            name: name.to_string(),
            table: name.to_string(),
            description: r.string_opt("description")?,
            scenario: read(&r)?,
        })
    })
}

/// Longest name a config may give a scenario or an entry: with the suffixes and file
/// names rollsim adds, paths stay far below file systems' limits.
pub const MAX_NAME: usize = 64;

/// Folders a report writes beside its scenarios' folders: no scenario may take them.
const RESERVED: &[&str] = &["compare", "sweep", "sensitivity", "equalize", "overlay"];

/// The one check of a name a designer writes that becomes a file or folder name or a CSV
/// cell (scenario names, ids of units, characters, weapons, ...): letters and digits,
/// then also `-` and `_`; at most [`MAX_NAME`] characters. So no name can climb out of
/// the output folder (`..`), hide (`.x`), collide with a report file (`summary.csv`) or
/// start a spreadsheet formula (`=1+2`). `@` is kept for the members a profile or
/// decision table generates (`NAME@d4`), so a written name never collides with one.
pub fn check_name(at: &Reader, name: &str, what: &str) -> Result<(), Problem> {
    let shown: String = name
        .chars()
        .take(MAX_NAME + 1)
        .collect::<String>()
        .escape_debug()
        .to_string();
    let fail = |why: String| Err(at.problem(name, format!("{what} `{shown}`: {why}")));
    let mut chars = name.chars();
    match chars.next() {
        None => return fail("a name cannot be empty".into()),
        Some(c) if !c.is_alphanumeric() => {
            return fail(format!(
                "a name starts with a letter or a digit, not `{}`",
                c.escape_debug()
            ))
        }
        _ => {}
    }
    if name.contains('@') {
        return fail(
            "`@` is reserved for the members of a profile or decision table (`NAME@d4`); choose a name without it".into(),
        );
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_'))
    {
        return fail(format!(
            "a name has only letters, digits, `-` and `_`, not `{}`",
            c.escape_debug()
        ));
    }
    if name.chars().count() > MAX_NAME {
        return fail(format!("a name has at most {MAX_NAME} characters"));
    }
    if RESERVED.contains(&name.to_lowercase().as_str()) {
        return fail(format!(
            "`{name}` is the name of a folder reports write; choose another"
        ));
    }
    Ok(())
}

/// One kind of scenario a system reads: its name, the keys it takes (besides `kind` and
/// `description`) and the function that reads them, side by side, so that a new key or a
/// new kind is one entry of the system's table and no name can lack its reader.
pub struct Kind<F> {
    /// The value of `kind` that picks it.
    pub name: &'static str,
    /// The keys it takes besides `kind` and `description`; any other is refused.
    pub keys: &'static [&'static str],
    /// Its reader, called once the keys are checked.
    pub read: F,
}

/// A scenario's `kind`, one of `kinds`; any key that kind does not take is refused with
/// the nearest one it does.
pub fn read_kind<'k, F>(r: &Reader, kinds: &'k [Kind<F>]) -> Result<&'k Kind<F>, Problem> {
    let names: Vec<&str> = kinds.iter().map(|k| k.name).collect();
    let name = r.choice_opt("kind", &names)?.ok_or_else(|| {
        r.problem(
            "kind",
            format!("missing key: one of {}", reader::list(&names)),
        )
    })?;
    let kind = kinds
        .iter()
        .find(|k| k.name == name)
        .expect("choice_opt answers one of the names");
    check_kind_keys(r, kind.name, kind.keys)?;
    Ok(kind)
}

/// Refuse any key a scenario of `kind` does not take (`kind` and `description` always).
fn check_kind_keys(r: &Reader, kind: &str, keys: &[&str]) -> Result<(), Problem> {
    let mut allowed = vec!["kind", "description"];
    allowed.extend_from_slice(keys);
    for k in r.table.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(r.problem(
                k,
                format!(
                    "unknown key for {} `{kind}` scenario{}; it takes {}",
                    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    },
                    nearest_hint(k, allowed.iter().copied()),
                    reader::list(&allowed)
                ),
            ));
        }
    }
    Ok(())
}

/// 1-based line and column (in characters) of byte offset `at`.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.join("."), self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col("a\nbc\n", 3), (2, 2));
        assert_eq!(line_col("abc", 0), (1, 1));
    }
}
