//! `GET /api/configs`: the configs the page offers, each with its title or why it does
//! not load. Each entry is remembered for its file as it was (size and time of change),
//! so a large config is loaded again only when it changes, not on every visit of the
//! page: the server's one cache, of a few hundred bytes an entry, at most
//! [`MAX_CONFIGS`] entries, an entry dropped as soon as its file changes or goes.

use super::files::Folder;
use super::memory::Budget;
use rollsim_core::document;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

/// The most configs the page lists (and the cache remembers); a folder with more says
/// how many it left out.
pub const MAX_CONFIGS: usize = 1000;

/// What identifies a file's version without reading it.
type Stamp = (u64, Option<SystemTime>);

#[derive(Default)]
pub struct Listing {
    seen: Mutex<HashMap<String, (Stamp, Value)>>,
}

impl Listing {
    /// The entries for the folder as it is now, and how many configs were left out.
    pub fn entries(&self, files: &Folder, memory: &Budget) -> (Vec<Value>, usize) {
        let names = files.configs();
        let left_out = names.len().saturating_sub(MAX_CONFIGS);
        let mut out = Vec::with_capacity(names.len().min(MAX_CONFIGS));
        let mut now = HashMap::new();
        for name in names.into_iter().take(MAX_CONFIGS) {
            let stamp = files
                .path(&name)
                .ok()
                .and_then(|p| std::fs::metadata(p).ok())
                .map(|m| (m.len(), m.modified().ok()));
            let remembered = stamp.and_then(|st| {
                let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
                seen.get(&name)
                    .filter(|(s, _)| *s == st)
                    .map(|(_, v)| v.clone())
            });
            let entry = match remembered {
                Some(v) => v,
                None => entry(files, memory, &name, stamp.map_or(0, |s| s.0)),
            };
            if let Some(st) = stamp {
                now.insert(name, (st, entry.clone()));
            }
            out.push(entry);
        }
        // Only the files listed now: a file gone or changed leaves no entry behind.
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = now;
        (out, left_out)
    }
}

/// One config's entry, loading it within the memory budget.
fn entry(files: &Folder, memory: &Budget, name: &str, len: u64) -> Value {
    let Some(ticket) = memory.admit_blocking(len) else {
        return json!({ "file": name, "error": "the server is stopping" });
    };
    let loaded = files
        .read(name)
        .map_err(|e| e.to_string())
        .and_then(|text| document::load_str(&text, name, &[]).map_err(|e| e.to_string()));
    let v = match loaded {
        Ok(c) => json!({ "file": name, "title": c.title, "system": c.system_name() }),
        Err(e) => json!({ "file": name, "error": e }),
    };
    drop(ticket);
    v
}
