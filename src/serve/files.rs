//! The one folder the page may read and write: configs are named by a bare file name
//! (`units.toml`), checked before any path is made of it, and resolved only to regular
//! files directly inside the folder.

use crate::error::AppError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Largest config the page reads (the shipped ones are under 40 KB).
const MAX_CONFIG: u64 = 4 << 20;

#[derive(Debug)]
pub struct Folder {
    root: PathBuf,
    /// Numbers each save's temporary file: two saves at once never share one.
    saves: std::sync::atomic::AtomicU64,
    /// The folder as the command line gave it, for the commands the page shows.
    given: PathBuf,
}

/// Why a name or a file was refused: the page shows the message.
#[derive(Debug)]
pub enum FileError {
    /// Not a name the page may use (status 400).
    BadName(String),
    /// No such config (404).
    Missing(String),
    /// The file to save exists and the page did not confirm replacing it (409).
    Exists(String),
    /// The file is there but is not text a config can be (422), e.g. not UTF-8: the
    /// served file's fault, not the server's.
    Unreadable(String),
    /// The operating system refused (500).
    Io(String),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (FileError::BadName(m)
        | FileError::Missing(m)
        | FileError::Exists(m)
        | FileError::Unreadable(m)
        | FileError::Io(m)) = self;
        f.write_str(m)
    }
}

impl Folder {
    pub fn open(dir: &Path) -> Result<Folder, AppError> {
        let root = dir.canonicalize().map_err(|e| {
            AppError::BadOption(format!("{}: cannot serve this folder: {e}", dir.display()))
        })?;
        if !root.is_dir() {
            return Err(AppError::BadOption(format!(
                "{}: not a folder; give the folder of the configs, e.g. rollsim serve configs",
                dir.display()
            )));
        }
        Ok(Folder {
            root,
            saves: Default::default(),
            given: dir.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Config `name` as a path a command typed where `rollsim serve` started can use.
    pub fn shown(&self, name: &str) -> String {
        self.given.join(name).display().to_string()
    }

    /// The `*.toml` names in the folder, sorted.
    pub fn configs(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.root)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| check_name(n).is_ok())
            .filter(|n| self.path(n).is_ok())
            .collect();
        names.sort();
        names
    }

    /// The path of config `name`, which must exist, be a regular file and lie inside
    /// the folder (a symbolic link out of it is refused).
    pub fn path(&self, name: &str) -> Result<PathBuf, FileError> {
        check_name(name)?;
        let p = self.root.join(name);
        let real = p
            .canonicalize()
            .map_err(|_| FileError::Missing(format!("no config `{name}` in the folder")))?;
        if real.parent() != Some(self.root.as_path()) || !real.is_file() {
            return Err(FileError::BadName(format!(
                "`{name}` is not a config file inside the folder"
            )));
        }
        Ok(real)
    }

    /// The size of config `name` in bytes: what a request over it is budgeted by.
    pub fn len(&self, name: &str) -> Result<u64, FileError> {
        let p = self.path(name)?;
        Ok(std::fs::metadata(&p)
            .map_err(|e| FileError::Unreadable(format!("{name}: {e}")))?
            .len())
    }

    /// The text of config `name`.
    pub fn read(&self, name: &str) -> Result<String, FileError> {
        let p = self.path(name)?;
        let len = self.len(name)?;
        if len > MAX_CONFIG {
            return Err(FileError::BadName(format!(
                "{name}: {len} bytes; the page reads configs up to {MAX_CONFIG}"
            )));
        }
        let bytes = std::fs::read(&p)
            .map_err(|e| FileError::Unreadable(format!("{name}: cannot read the config: {e}")))?;
        rollsim_core::document::text_of(bytes, name)
            .map_err(|e| FileError::Unreadable(e.to_string()))
    }

    /// Write `text` as config `name`, all or nothing (a temporary file renamed into
    /// place). An existing file is replaced only with `replace`; without it, the name
    /// is taken atomically (a hard link, which fails if the name exists).
    pub fn save(&self, name: &str, text: &str, replace: bool) -> Result<PathBuf, FileError> {
        check_name(name)?;
        let dest = self.root.join(name);
        if let Ok(meta) = std::fs::symlink_metadata(&dest) {
            if !meta.is_file() {
                return Err(FileError::BadName(format!(
                    "`{name}` exists and is not a plain file: choose another name"
                )));
            }
            if !replace {
                return Err(FileError::Exists(format!(
                    "`{name}` exists: confirm to replace it, or choose another name"
                )));
            }
        }
        let n = self
            .saves
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = self
            .root
            .join(format!(".{name}.saving-{}-{n}", std::process::id()));
        let io = |e: std::io::Error| FileError::Io(format!("saving {name}: {e}"));
        let written = (|| {
            // A new file, never one (or a link) already there.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(e));
        }
        let placed = if replace {
            std::fs::rename(&tmp, &dest)
        } else {
            let r = std::fs::hard_link(&tmp, &dest);
            let _ = std::fs::remove_file(&tmp);
            r
        };
        match placed {
            Ok(()) => Ok(dest),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let _ = std::fs::remove_file(&tmp);
                Err(FileError::Exists(format!(
                    "`{name}` exists: confirm to replace it, or choose another name"
                )))
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(io(e))
            }
        }
    }
}

/// A config's name as the page may give it: `NAME.toml`, NAME of letters, digits, `-`,
/// `_` and `.`, not starting with a dot; no separators, so no `..`, no absolute path.
pub fn check_name(name: &str) -> Result<(), FileError> {
    let stem = name.strip_suffix(".toml").unwrap_or("");
    let ok = !stem.is_empty()
        && name.len() <= 128
        && !stem.starts_with('.')
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        // Anywhere in the name, the `.toml` too (`x..toml`), as the docs say.
        && !name.contains("..");
    if ok {
        Ok(())
    } else {
        Err(FileError::BadName(format!(
            "`{}` is not a config name: expected NAME.toml in the served folder (letters, digits, `-`, `_`, `.`; no `/` or `..`)",
            name.escape_debug()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn only_bare_toml_names_pass() {
        for ok in ["units.toml", "units-v2.toml", "my_units.1.toml"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "../units.toml",
            "/etc/passwd",
            "a/b.toml",
            "..toml",
            ".hidden.toml",
            "units",
            "units.toml/",
            "a..b.toml",
            // Issue #58, item 5: the stem's last dot and the suffix's first.
            "x..toml",
            "r\u{0}.toml",
            "c:\\x.toml",
            ".toml",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
