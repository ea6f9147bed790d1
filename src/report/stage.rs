//! A report folder written as a whole. Files go into a private staging folder beside the
//! target; `commit` swaps it with the target in one atomic exchange (Linux `renameat2`
//! with `RENAME_EXCHANGE`), so a reader, a kill, a crash or a full disk leaves either the
//! whole old report or the whole new one. A lock file beside the target makes a second
//! run on the same folder refuse instead of interleaving, and leftovers of killed runs
//! are removed by the next run that holds the lock.

use super::write::WriteError;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

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
        std::fs::create_dir_all(&parent).map_err(|e| WriteError::io(&parent, e))?;
        if target.exists() && !target.is_dir() {
            return Err(WriteError::encode(
                target,
                "exists and is not a folder: choose another -o",
            ));
        }
        let lock_path = parent.join(format!(".{name}.lock"));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| WriteError::io(&lock_path, e))?;
        if !try_lock(&lock).map_err(|e| WriteError::io(&lock_path, e))? {
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
        std::fs::create_dir(&dir).map_err(|e| WriteError::io(&dir, e))?;
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
            exchange(&self.dir, &self.target).map_err(|e| WriteError::io(&self.target, e))?;
            // The staging folder now holds the old report.
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
