//! `GET /api/configs`: the configs the page offers, each with its title or why it does
//! not load. Each entry is remembered for its file's content (a SHA-256 of its bytes:
//! an edit that keeps a file's size and time of change is still an edit), so a large
//! config is read again on every visit of the page but loaded and validated only when
//! it changes: the server's one cache, of a few hundred bytes an entry, at most
//! [`MAX_CONFIGS`] entries, an entry dropped as soon as its file changes or goes.

use super::files::Folder;
use super::memory::Budget;
use rollsim_core::{document, Cancel};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;

/// The most configs the page lists (and the cache remembers); a folder with more says
/// how many it left out.
pub const MAX_CONFIGS: usize = 1000;

/// What identifies a file's version: its content's digest.
type Stamp = [u8; 32];

#[derive(Default)]
pub struct Listing {
    seen: Mutex<HashMap<String, (Stamp, Value)>>,
}

impl Listing {
    /// The entries for the folder as it is now, and how many configs were left out.
    /// A load's checks (a wide roll's exact distribution: seconds) stop at `stop`, the
    /// server's: its Ctrl-C is not kept waiting by a list nobody will see.
    pub fn entries(&self, files: &Folder, memory: &Budget, stop: &Cancel) -> (Vec<Value>, usize) {
        let names = files.configs();
        let left_out = names.len().saturating_sub(MAX_CONFIGS);
        let mut out = Vec::with_capacity(names.len().min(MAX_CONFIGS));
        let mut now = HashMap::new();
        for name in names.into_iter().take(MAX_CONFIGS) {
            let (stamp, entry) = self.entry(files, memory, &name, stop);
            if let Some(st) = stamp {
                now.insert(name, (st, entry.clone()));
            }
            out.push(entry);
        }
        // Only the files listed now: a file gone or changed leaves no entry behind.
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = now;
        (out, left_out)
    }

    /// One config's entry and its content's digest (None: unreadable), read within the
    /// memory budget and loaded only when its content is not the one remembered.
    fn entry(
        &self,
        files: &Folder,
        memory: &Budget,
        name: &str,
        stop: &Cancel,
    ) -> (Option<Stamp>, Value) {
        let len = files
            .path(name)
            .ok()
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len());
        let Some(ticket) = memory.admit_blocking(len) else {
            return (
                None,
                json!({ "file": name, "error": "the server is stopping" }),
            );
        };
        let text = match files.read(name) {
            Ok(t) => t,
            Err(e) => return (None, json!({ "file": name, "error": e.to_string() })),
        };
        let stamp: Stamp = Sha256::digest(text.as_bytes()).into();
        let remembered = {
            let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            seen.get(name)
                .filter(|(s, _)| *s == stamp)
                .map(|(_, v)| v.clone())
        };
        let v = match remembered {
            Some(v) => v,
            None => match document::load_until(&text, name, &[], stop) {
                Ok(c) => json!({ "file": name, "title": c.title, "system": c.system_name() }),
                // Not remembered: the file did not fail to load, the server stopped.
                Err(rollsim_core::Error::Interrupted) => {
                    return (
                        None,
                        json!({ "file": name, "error": "the server is stopping" }),
                    )
                }
                Err(e) => json!({ "file": name, "error": e.to_string() }),
            },
        };
        drop(ticket);
        (Some(stamp), v)
    }
}
