//! Typed, path-aware reads from a TOML table: every error carries its full key path and,
//! for a misspelt name, the nearest valid one.

use super::Problem;
use toml::{Table, Value};

/// A view of one table at a key path.
#[derive(Clone)]
pub struct Reader<'a> {
    /// The table's own keys and values, for reads the typed methods do not cover.
    pub table: &'a Table,
    path: Vec<String>,
}

/// The root keys of every config, whatever its system: read by the document layer
/// (`system`, `title`, `[run]`, `[stat_bounds]`), so a system's reader only allows them.
pub const ROOT_KEYS: &[&str] = &["system", "title", "run", "stat_bounds"];

/// Render `a`, `b`, `c` for messages.
pub fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "no unit `x` (did you mean `y`?); the units are `a`, `b`": `name` is not one of
/// `names`. `what` is one entry ("unit"), `whats` more than one ("units").
pub fn no_such(what: &str, whats: &str, name: &str, names: &[&str]) -> String {
    format!(
        "no {what} `{name}`{}; the {whats} are {}",
        nearest_hint(name, names.iter().copied()),
        list(names)
    )
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
    /// A reader of a whole config, at the empty key path.
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

    /// The full path of `key` in this table, as messages name it.
    pub fn key_path(&self, key: &str) -> Vec<String> {
        let mut p = self.path.clone();
        p.push(key.to_string());
        p
    }

    /// A problem at `key` of this table.
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

    /// A string, if the key is given.
    pub fn string_opt(&self, key: &str) -> Result<Option<String>, Problem> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.wrong(key, "a string", v)),
        }
    }

    /// A string the table must have.
    pub fn string_req(&self, key: &str) -> Result<String, Problem> {
        self.string_opt(key)?
            .ok_or_else(|| self.problem(key, "missing key (a string)"))
    }

    /// `true` or `false`, if the key is given.
    pub fn bool_opt(&self, key: &str) -> Result<Option<bool>, Problem> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(self.wrong(key, "true or false", v)),
        }
    }

    /// `true` or `false`, `default` where the key is not given.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool, Problem> {
        Ok(self.bool_opt(key)?.unwrap_or(default))
    }

    /// Any integer, if the key is given.
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
            Some(i) if i < lo || i > hi => Err(self.out_of_range(key, lo, hi, i)),
            other => Ok(other),
        }
    }

    /// A non-negative integer, if the key is given.
    pub fn u64_opt(&self, key: &str) -> Result<Option<u64>, Problem> {
        match self.i64_opt(key)? {
            Some(i) if i < 0 => {
                Err(self.problem(key, format!("expected a non-negative integer, found {i}")))
            }
            other => Ok(other.map(|i| i as u64)),
        }
    }

    fn out_of_range(&self, key: &str, lo: i64, hi: i64, found: i64) -> Problem {
        self.problem(
            key,
            format!("expected an integer from {lo} to {hi}, found {found}"),
        )
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

    /// [`Reader::pick`] into `slot`, which keeps its value (the default) when the key is
    /// absent: the usual read of a rule switch.
    pub fn pick_into<T: Copy>(
        &self,
        key: &str,
        options: &[(&str, T)],
        slot: &mut T,
    ) -> Result<(), Problem> {
        if let Some(v) = self.pick(key, options)? {
            *slot = v;
        }
        Ok(())
    }

    /// [`Reader::int_in`] into `slot`, which keeps its value (the default) when the key is
    /// absent. `lo..=hi` must fit `T`; a value that does not is refused like one out of
    /// range.
    pub fn int_into<T: TryFrom<i64>>(
        &self,
        key: &str,
        lo: i64,
        hi: i64,
        slot: &mut T,
    ) -> Result<(), Problem> {
        if let Some(i) = self.int_in(key, lo, hi)? {
            *slot = T::try_from(i).map_err(|_| self.out_of_range(key, lo, hi, i))?;
        }
        Ok(())
    }

    /// The entry of `items` whose id (read by `id_of`) is `id`, as written at `key`; a
    /// miss names the nearest id and lists them all ([`no_such`], `what` singular and
    /// plural).
    pub fn find<'i, T>(
        &self,
        key: &str,
        id: &str,
        items: &'i [T],
        id_of: impl Fn(&T) -> &str,
        (what, whats): (&str, &str),
    ) -> Result<&'i T, Problem> {
        items.iter().find(|x| id_of(x) == id).ok_or_else(|| {
            let ids: Vec<&str> = items.iter().map(&id_of).collect();
            self.problem(key, no_such(what, whats, id, &ids))
        })
    }

    /// The entry of `items` named at `key`, which must be given: as [`Reader::find`],
    /// and a missing key lists the ids it may name.
    pub fn find_req<'i, T>(
        &self,
        key: &str,
        items: &'i [T],
        id_of: impl Fn(&T) -> &str,
        (what, whats): (&str, &str),
    ) -> Result<&'i T, Problem> {
        let Some(id) = self.string_opt(key)? else {
            let ids: Vec<&str> = items.iter().map(&id_of).collect();
            let message = if ids.is_empty() {
                format!("missing key: the id of a {what}; there is none yet: add a `[{whats}.ID]` table")
            } else {
                format!("missing key: the id of a {what}, one of {}", list(&ids))
            };
            return Err(self.problem(key, message));
        };
        self.find(key, &id, items, id_of, (what, whats))
    }

    /// A sub-table as a reader of its own, if the key is given.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn into_reads_keep_the_default_when_the_key_is_absent() {
        let t = table("on = \"b\"\nn = 4");
        let r = Reader::root(&t);
        let (mut on, mut off, mut n) = (1, 1, 0u8);
        r.pick_into("on", &[("a", 0), ("b", 2)], &mut on).unwrap();
        r.pick_into("off", &[("a", 0), ("b", 2)], &mut off).unwrap();
        r.int_into("n", 0, 6, &mut n).unwrap();
        assert_eq!((on, off, n), (2, 1, 4));
        let e = r.int_into("n", 0, 3, &mut n).unwrap_err();
        assert_eq!(e.message, "expected an integer from 0 to 3, found 4");
        // A range wider than the slot's type is refused the same way, not wrapped.
        let t = table("n = 300");
        let e = Reader::root(&t).int_into("n", 0, 1000, &mut n).unwrap_err();
        assert_eq!(e.message, "expected an integer from 0 to 1000, found 300");
    }

    #[test]
    fn find_names_the_nearest_id_and_lists_them_all() {
        let t = Table::new();
        let r = Reader::root(&t);
        let ids = ["orc", "elf"];
        assert_eq!(
            r.find("unit", "elf", &ids, |s| s, ("unit", "units")),
            Ok(&"elf")
        );
        let e = r
            .find("unit", "orx", &ids, |s| s, ("unit", "units"))
            .unwrap_err();
        assert_eq!(e.path, ["unit"]);
        assert_eq!(
            e.message,
            "no unit `orx` (did you mean `orc`?); the units are `orc`, `elf`"
        );
    }
}
