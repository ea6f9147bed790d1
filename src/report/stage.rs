//! A report folder written as a whole. Files go into a private staging folder beside the
//! target; `commit` swaps it with the target in one atomic exchange (Linux `renameat2`
//! with `RENAME_EXCHANGE`), so a reader, a kill, a crash or a full disk leaves either the
//! whole old report or the whole new one. A lock file beside the target makes a second
//! run on the same folder refuse instead of interleaving, and leftovers of killed runs
//! are removed by the next run that holds the lock.
//!
//! Only a folder rollsim wrote is ever replaced: every report carries a marker file
//! ([`MARKER`]); a folder without it that holds anything (a designer's own documents) is
//! refused with exit 2. The balance commands' folders inside a report (`compare/`,
//! `sweep/`, ...) are not the run's: once the new report is in place it takes them over
//! from the old one, which is removed only when they all moved.

use super::write::WriteError;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// The file that marks a folder as a rollsim report, which the next run may replace.
pub const MARKER: &str = ".rollsim-report";

/// Folders inside a report that other commands write (balance outputs): a run carries
/// them over from the report it replaces instead of deleting them.
pub const KEPT: &[&str] = &["compare", "sweep", "sensitivity", "equalize", "overlay"];

/// A staging folder for `target`, holding the target's lock until it is committed or
/// dropped (dropping removes the staging folder: nothing was written).
pub struct Staging {
    target: PathBuf,
    dir: PathBuf,
    _lock: File,
    done: bool,
}

fn parent_and_name(target: &Path) -> Result<(PathBuf, String), WriteError> {
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .ok_or_else(|| {
            WriteError::encode(
                target,
                "an output folder needs a name (not `.`, `..` or `/`)",
            )
        })?
        .to_string();
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name))
}

/// Whether an existing folder may be replaced: a rollsim report (its marker, or for one
/// written before the marker, nothing but the tables and chart folders rollsim writes,
/// with its summary table), a folder holding only balance commands' outputs (which the
/// new report takes over), or empty.
fn replaceable(dir: &Path) -> bool {
    if dir.join(MARKER).is_file() {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let (kept, rest): (Vec<_>, Vec<_>) = entries.flatten().partition(|e| {
        e.file_type().is_ok_and(|t| t.is_dir())
            && KEPT.contains(&e.file_name().to_string_lossy().as_ref())
    });
    if rest.is_empty() {
        return !kept.is_empty() || dir.read_dir().is_ok_and(|mut d| d.next().is_none());
    }
    let summary = dir.join("summary.csv").is_file() || dir.join("summary.parquet").is_file();
    summary
        && rest.iter().all(|e| {
            let p = e.path();
            match e.file_type() {
                // A scenario's or group's charts.
                Ok(t) if t.is_dir() => only_charts(&p),
                Ok(t) if t.is_file() => is_report_table(&e.file_name().to_string_lossy()),
                _ => false,
            }
        })
}

/// A table file a run writes: `summary.csv`, `profile-NAME.parquet`, ...
fn is_report_table(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    ["csv", "parquet", "json"].contains(&ext)
        && (["distribution", "summary", "headline", "decisions"].contains(&stem)
            || stem.starts_with("profile-")
            || stem.starts_with("decision-"))
}

/// A folder of chart images and nothing else.
fn only_charts(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().all(|e| {
        e.file_type().is_ok_and(|t| t.is_file())
            && e.path()
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| x == "png" || x == "svg")
    })
}

/// Open (creating) the lock file without following a link planted at its name.
fn open_lock(path: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(path)
}

/// Move what `old` has under the kept folders and `new` lacks into `new`, so a balance
/// command's output survives a run that replaces its report.
fn carry_over(old: &Path, new: &Path) -> std::io::Result<()> {
    for k in KEPT {
        let (from, to) = (old.join(k), new.join(k));
        if !from.is_dir() {
            continue;
        }
        if !to.exists() {
            std::fs::rename(&from, &to)?;
            continue;
        }
        for e in std::fs::read_dir(&from)?.flatten() {
            let dest = to.join(e.file_name());
            if !dest.exists() {
                std::fs::rename(e.path(), dest)?;
            }
        }
    }
    Ok(())
}

/// Take the lock without waiting; `None` if another process holds it.
#[cfg(unix)]
fn try_lock(f: &File) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a file descriptor this process owns; no memory is shared.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> std::io::Result<bool> {
    Ok(true)
}

/// Swap two paths atomically (both must exist).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: two valid NUL-terminated paths; renameat2 reads them and touches no memory
    // of ours.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Elsewhere: two renames (the old report is kept aside until the new one is in place).
#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let aside = b.with_extension("old-report");
    std::fs::rename(b, &aside)?;
    std::fs::rename(a, b)?;
    std::fs::rename(&aside, a)
}

impl Staging {
    /// Lock `target` and open a fresh staging folder beside it.
    pub fn begin(target: &Path) -> Result<Staging, WriteError> {
        let (parent, name) = parent_and_name(target)?;
        // `out/.` and `out` are one folder: every later step uses the plain form.
        let plain = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => parent.join(&name),
            _ => PathBuf::from(&name),
        };
        let target = &plain;
        std::fs::create_dir_all(&parent).map_err(|e| WriteError::io(&parent, e))?;
        if target.exists() && !target.is_dir() {
            return Err(WriteError::encode(
                target,
                "exists and is not a folder: choose another -o",
            ));
        }
        if target.is_dir() && !replaceable(target) {
            return Err(WriteError::NotOurs {
                path: target.display().to_string(),
            });
        }
        let lock_path = parent.join(format!(".{name}.lock"));
        // Errors name the folder asked for, not the lock file beside it.
        let lock = open_lock(&lock_path).map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                WriteError::encode(
                    target,
                    format!("a symbolic link sits where rollsim keeps this folder's lock ({}); remove it and run again", lock_path.display()),
                )
            } else {
                WriteError::io(target, e)
            }
        })?;
        if !try_lock(&lock).map_err(|e| WriteError::io(target, e))? {
            return Err(WriteError::Busy {
                path: target.display().to_string(),
            });
        }
        // Leftovers of killed runs: only a lock holder stages, so none is in use.
        let prefix = format!(".{name}.staging-");
        if let Ok(entries) = std::fs::read_dir(&parent) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(&prefix) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = parent.join(format!("{prefix}{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| WriteError::io(target, e))?;
        std::fs::write(
            dir.join(MARKER),
            "A rollsim report: the next run into this folder replaces it as a whole.\n",
        )
        .map_err(|e| WriteError::io(target, e))?;
        Ok(Staging {
            target: target.to_path_buf(),
            dir,
            _lock: lock,
            done: false,
        })
    }

    /// Where to write the report's files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder the report will be found in.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Put the staged report in place of the old one, in one step.
    pub fn commit(mut self) -> Result<(), WriteError> {
        if self.target.exists() {
            // Checked again under the lock: the folder may have changed during the run.
            if !replaceable(&self.target) {
                return Err(WriteError::NotOurs {
                    path: self.target.display().to_string(),
                });
            }
            exchange(&self.dir, &self.target).map_err(|e| WriteError::io(&self.target, e))?;
            // The staging folder now holds the old report; it is ours from here on.
            self.done = true;
            // Its balance outputs move into the new report; the old report is removed
            // only once they all have, else it is kept aside under a name no later run
            // clears, and the message says where.
            if let Err(e) = carry_over(&self.dir, &self.target) {
                let aside = self.dir.with_file_name(format!(
                    "{}.kept-{}",
                    self.target
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy(),
                    std::process::id()
                ));
                let kept = std::fs::rename(&self.dir, &aside).map_or(self.dir.clone(), |_| aside);
                return Err(WriteError::encode(
                    &self.target,
                    format!(
                        "the new report is in place, but the old one's balance outputs could not be moved into it ({e}): they are kept in {}",
                        kept.display()
                    ),
                ));
            }
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            std::fs::rename(&self.dir, &self.target)
                .map_err(|e| WriteError::io(&self.target, e))?;
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
