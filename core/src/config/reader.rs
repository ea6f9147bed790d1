//! Typed, path-aware reads from a TOML table: every error carries its full key path and,
//! for a misspelt name, the nearest valid one.

use super::Problem;
use toml::{Table, Value};

/// A view of one table at a key path.
#[derive(Clone)]
pub struct Reader<'a> {
    pub table: &'a Table,
    path: Vec<String>,
}

/// Render `a`, `b`, `c` for messages.
/// The root keys of every config, whatever its system: read by the document layer
/// (`system`, `title`, `[run]`, `[stat_bounds]`), so a system's reader only allows them.
pub const ROOT_KEYS: &[&str] = &["system", "title", "run", "stat_bounds"];

pub fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The valid name closest to `given` (Damerau-Levenshtein, case-insensitive), if it is
/// close enough to be a likely typo.
pub fn nearest<'n>(given: &str, valid: impl IntoIterator<Item = &'n str>) -> Option<&'n str> {
    let g = given.to_lowercase();
    valid
        .into_iter()
        .map(|v| (strsim::damerau_levenshtein(&g, &v.to_lowercase()), v))
        .filter(|(d, v)| *d <= (v.chars().count().max(given.chars().count()) / 2).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, v)| v)
}

/// " (did you mean `x`?)" or "".
pub fn nearest_hint<'n>(given: &str, valid: impl IntoIterator<Item = &'n str>) -> String {
    nearest(given, valid)
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default()
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a float",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

impl<'a> Reader<'a> {
    pub fn root(table: &'a Table) -> Self {
        Reader {
            table,
            path: Vec::new(),
        }
    }

    /// Entries of this table, each value that is a table as a reader of its own.
    pub fn tables(&self) -> Vec<(String, Result<Reader<'a>, Problem>)> {
        self.table
            .iter()
            .map(|(k, v)| {
                let r = match v {
                    Value::Table(_) => Ok(self.sub(k)),
                    v => Err(self.wrong(k, "a table", v)),
                };
                (k.clone(), r)
            })
            .collect()
    }

    pub fn key_path(&self, key: &str) -> Vec<String> {
        let mut p = self.path.clone();
        p.push(key.to_string());
        p
    }

    pub fn problem(&self, key: &str, message: impl Into<String>) -> Problem {
        Problem::new(&self.key_path(key), message)
    }

    /// [`Reader::only`] for a config's root: the keys every config has (read by the
    /// document layer, [`ROOT_KEYS`]) and the system's `own`, in that order.
    pub fn only_at_root(&self, own: &[&str]) -> Result<(), Problem> {
        let allowed: Vec<&str> = ROOT_KEYS.iter().chain(own).copied().collect();
        self.only(&allowed)
    }

    /// Refuse any key not in `allowed`, naming the nearest allowed one.
    pub fn only(&self, allowed: &[&str]) -> Result<(), Problem> {
        for k in self.table.keys() {
            if !allowed.contains(&k.as_str()) {
                return Err(self.problem(
                    k,
                    format!(
                        "unknown key{}; expected one of {}",
                        nearest_hint(k, allowed.iter().copied()),
                        list(allowed)
                    ),
                ));
            }
        }
        Ok(())
    }

    fn wrong(&self, key: &str, expected: &str, v: &Value) -> Problem {
        self.problem(key, format!("expected {expected}, found {}", type_name(v)))
    }

    pub fn string_opt(&self, key: &str) -> Result<Option<String>, Problem> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.wrong(key, "a string", v)),
        }
    }

    pub fn string_req(&self, key: &str) -> Result<String, Problem> {
        self.string_opt(key)?
            .ok_or_else(|| self.problem(key, "missing key (a string)"))
    }

    pub fn bool_opt(&self, key: &str) -> Result<Option<bool>, Problem> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(key, "true or false", v)),
        }
    }

    pub fn i64_opt(&self, key: &str) -> Result<Option<i64>, Problem> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(*i)),
            Some(v) => Err(self.wrong(key, "an integer", v)),
        }
    }

    /// An integer within `lo..=hi`.
    pub fn int_in(&self, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, Problem> {
        match self.i64_opt(key)? {
            Some(i) if i < lo || i > hi => Err(self.problem(
                key,
                format!("expected an integer from {lo} to {hi}, found {i}"),
            )),
            other => Ok(other),
        }
    }

    pub fn u64_opt(&self, key: &str) -> Result<Option<u64>, Problem> {
        match self.i64_opt(key)? {
            Some(i) if i < 0 => {
                Err(self.problem(key, format!("expected a non-negative integer, found {i}")))
            }
            other => Ok(other.map(|i| i as u64)),
        }
    }

    /// One of `names` (a string), with the nearest name suggested on a miss.
    pub fn choice_opt(&self, key: &str, names: &[&str]) -> Result<Option<String>, Problem> {
        match self.string_opt(key)? {
            Some(s) if !names.contains(&s.as_str()) => Err(self.problem(
                key,
                format!(
                    "unknown value `{s}`{}; expected one of {}",
                    nearest_hint(&s, names.iter().copied()),
                    list(names)
                ),
            )),
            other => Ok(other),
        }
    }

    /// One of the named `options` (a string), as its value; the nearest name on a miss.
    pub fn pick<T: Copy>(&self, key: &str, options: &[(&str, T)]) -> Result<Option<T>, Problem> {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        Ok(self
            .choice_opt(key, &names)?
            .and_then(|s| options.iter().find(|(n, _)| *n == s).map(|(_, v)| *v)))
    }

    pub fn table_opt(&self, key: &str) -> Result<Option<Reader<'a>>, Problem> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::Table(_)) => Ok(Some(self.sub(key))),
            Some(v) => Err(self.wrong(key, "a table", v)),
        }
    }

    fn sub(&self, key: &str) -> Reader<'a> {
        let Some(Value::Table(t)) = self.table.get(key) else {
            unreachable!("checked by the caller")
        };
        Reader {
            table: t,
            path: self.key_path(key),
        }
    }
}
