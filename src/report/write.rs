//! How a report reaches the disk, so that no reader, Ctrl-C, kill, crash or full disk
//! ever sees half of it: every file is written to a temporary file beside it and renamed
//! into place ([`atomic`]), and a folder is written as a whole ([`Staging`]).
//!
//! A folder: files go into a private staging folder beside the target;
//! `commit` swaps it with the target in one atomic exchange (Linux `renameat2` with
//! `RENAME_EXCHANGE`), so a reader, a kill, a crash or a full disk leaves either the
//! whole old folder or the whole new one. What the new folder takes over from the old
//! one (balance outputs inside a report; everything else in a folder of outputs) is
//! hard-linked into the staging folder *before* the exchange, so no moment exists at
//! which it is in neither.
//!
//! Locks: a lock file beside the target (`.NAME.lock`) makes a second run on the same
//! folder refuse instead of interleaving. A run also holds a shared lock on every
//! enclosing folder's lock that exists and an exclusive one on every lock inside the
//! target, so the main job (which replaces `reports/` as a whole) and a `run` or
//! `compare` writing somewhere inside it never overlap. Leftovers of killed runs are
//! removed by the next run that holds the lock.
//!
//! Only a folder rollsim wrote is ever replaced: every report carries a marker file
//! ([`MARKER`]); a folder without it that holds anything (a designer's own documents) is
//! refused with exit 2. The marker lists every file the run wrote; anything else found
//! in the folder at the next run (notes kept beside the tables, a folder of one's own)
//! is not rollsim's, and is carried over into the new report as it is. A folder of
//! outputs ([`Keep::Everything`]) keeps every entry the new run does not write, so it
//! may be anyone's.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Encode { path: String, message: String },
    #[error("{path}: another rollsim run is writing this folder; wait for it to finish or choose another -o")]
    Busy { path: String },
    /// The output path given cannot be an output folder (a file, a link, no name, a
    /// parent that cannot be made): bad input, like a bad option.
    #[error("{path}: {message}")]
    Refused { path: String, message: String },
    /// Stopped (Ctrl-C) before this file was begun.
    #[error("interrupted")]
    Interrupted,
    /// The output folder holds files rollsim did not write: it is never replaced.
    #[error("{path}: this folder is not a rollsim report (it has files rollsim did not write, and no .rollsim-report marker); a run replaces its output folder as a whole, so it will not touch this one: choose a new or empty folder with -o")]
    NotOurs { path: String },
}

impl WriteError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        WriteError::Io {
            path: shown(path),
            source,
        }
    }

    pub fn encode(path: &Path, message: impl ToString) -> Self {
        WriteError::Encode {
            path: shown(path),
            message: message.to_string(),
        }
    }

    pub fn refused(path: &Path, message: impl ToString) -> Self {
        WriteError::Refused {
            path: shown(path),
            message: message.to_string(),
        }
    }
}

/// A path as the user knows it: files are written to a temporary name inside a staging
/// folder beside the output folder, but a message (a full disk, a refused write) names
/// the file the user asked for, `reports/units/x.png`, not
/// `reports/.units.staging-4242/.x.4242-9f0c….partial.png`.
pub fn shown(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| {
            let c = c.as_os_str().to_string_lossy();
            unstaged(&c).unwrap_or_else(|| c.into_owned())
        })
        .collect();
    let mut out = PathBuf::new();
    for p in parts {
        out.push(p);
    }
    out.display().to_string()
}

/// `.NAME.staging-PID` -> `NAME`; `.STEM.PID-HASH.partial.EXT` -> `STEM.EXT`.
fn unstaged(part: &str) -> Option<String> {
    let rest = part.strip_prefix('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((name, pid)) = rest.rsplit_once(".staging-") {
        return (digits(pid) && !name.is_empty()).then(|| name.to_string());
    }
    let (before, ext) = rest
        .split_once(".partial.")
        .map_or((None, ""), |(b, e)| (Some(b), e));
    let (stem, tag) = before?.rsplit_once('.')?;
    let (pid, hash) = tag.split_once('-')?;
    (digits(pid) && hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("{stem}.{ext}"))
}

/// A new, empty temporary file in the same directory, keeping the extension (plotters
/// picks the image format from it). The name carries a random part and the file is
/// created exclusively, so a file or link planted under the name is refused, never
/// followed.
pub fn temp_path(path: &Path) -> Result<PathBuf, WriteError> {
    let tmp = temp_name(path);
    create_new(&tmp)?;
    Ok(tmp)
}

fn temp_name(path: &Path) -> PathBuf {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNT.fetch_add(1, Ordering::Relaxed));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, "tmp"));
    path.with_file_name(format!(
        ".{stem}.{}-{:016x}.partial.{ext}",
        std::process::id(),
        h.finish()
    ))
}

/// Create a new file, never opening one that exists (a planted file or symbolic link
/// under the temporary name is refused, not followed).
pub fn create_new(path: &Path) -> Result<File, WriteError> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| WriteError::io(path, e))
}

/// Write `path` through `fill`, atomically.
pub fn atomic<F>(path: &Path, fill: F) -> Result<(), WriteError>
where
    F: FnOnce(&mut BufWriter<File>) -> Result<(), WriteError>,
{
    let tmp = temp_name(path);
    let result = (|| {
        let f = create_new(&tmp)?;
        let mut w = BufWriter::new(f);
        fill(&mut w)?;
        w.flush().map_err(|e| WriteError::io(&tmp, e))?;
        Ok(())
    })();
    finish(&tmp, path, result)
}

/// Rename `tmp` onto `path` if `result` is Ok, else remove `tmp`.
pub fn finish(tmp: &Path, path: &Path, result: Result<(), WriteError>) -> Result<(), WriteError> {
    match result {
        Ok(()) => std::fs::rename(tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(tmp);
            WriteError::io(path, e)
        }),
        Err(e) => {
            let _ = std::fs::remove_file(tmp);
            Err(e)
        }
    }
}

/// The file that marks a folder as a rollsim report, which the next run may replace.
pub const MARKER: &str = ".rollsim-report";

/// Folders inside a report that other commands write (balance outputs): a run carries
/// them over from the report it replaces instead of deleting them.
pub const KEPT: &[&str] = &[
    "compare",
    "sweep",
    "sensitivity",
    "equalize",
    "overlay",
    "roster",
];

/// What a new folder takes over from the one it replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// A report (`run`, `roll`, `merge`): the old one must be a report; only the balance
    /// folders ([`KEPT`]) are carried over, the rest is the run's own and replaced.
    Report,
    /// A folder of outputs (`reports/`, a balance command's folder): every entry the new
    /// run does not write is carried over; a report inside it that the run writes anew
    /// keeps its balance folders.
    Everything,
}

/// A staging folder for `target`, holding the locks until it is committed or dropped
/// (dropping removes the staging folder: nothing was written).
pub struct Staging {
    target: PathBuf,
    dir: PathBuf,
    keep: Keep,
    _locks: Vec<File>,
    done: bool,
    /// Once cancelled, the old folder's removal after the exchange stops where it is.
    stop: Option<rollsim_core::Cancel>,
    /// Staging folders of killed runs, found at the start and removed after the commit
    /// (a whole report of them can take seconds to delete, and a Ctrl-C at the start
    /// must not wait for it); a stopped run leaves them to the next.
    leftovers: Vec<PathBuf>,
}

fn parent_and_name(target: &Path) -> Result<(PathBuf, String), WriteError> {
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .ok_or_else(|| {
            WriteError::refused(
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

/// Whether an existing folder may be replaced by a report: a rollsim report (its marker,
/// or for one written before the marker, nothing but the tables and chart folders
/// rollsim writes, with its summary table), a folder holding only balance commands'
/// outputs (which the new report takes over), or empty.
pub fn replaceable(dir: &Path) -> bool {
    if dir.join(MARKER).is_file() {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let rest: Vec<_> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let kept = e.file_type().is_ok_and(|t| t.is_dir()) && KEPT.contains(&name.as_str());
            !kept && !transient(&name)
        })
        .collect();
    if rest.is_empty() {
        return true;
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

/// A name rollsim uses for a moment and never carries over: a lock, a staging folder, a
/// file being written.
fn transient(name: &str) -> bool {
    name.starts_with('.')
        && (name.ends_with(".lock") || name.contains(".staging-") || name.contains(".partial."))
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

/// Open (creating it if `create`) a lock file without following a link planted at its
/// name.
fn open_lock(path: &Path, create: bool) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    if create {
        o.create(true).truncate(false).write(true);
    } else {
        o.read(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW);
    }
    o.open(path)
}

/// The lock file guarding `dir`: `.NAME.lock` beside it.
fn lock_of(dir: &Path) -> Option<PathBuf> {
    let name = dir.file_name()?.to_str()?;
    Some(dir.parent()?.join(format!(".{name}.lock")))
}

/// The folder a lock file guards.
fn guarded_by(lock: &Path) -> Option<PathBuf> {
    let name = lock.file_name()?.to_str()?;
    let name = name.strip_prefix('.')?.strip_suffix(".lock")?;
    Some(lock.parent()?.join(name))
}

/// Hard-link `from` (a file, link or whole folder) to the new name `to`: the files stay
/// the same files, so nothing is copied and nothing can be lost on the way.
fn mirror(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    let kind = meta.file_type();
    if kind.is_dir() {
        std::fs::create_dir(to)?;
        for e in std::fs::read_dir(from)? {
            let e = e?;
            if transient(&e.file_name().to_string_lossy()) {
                continue;
            }
            mirror(&e.path(), &to.join(e.file_name()))?;
        }
        std::fs::set_permissions(to, meta.permissions())
    } else if kind.is_symlink() {
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
        }
        #[cfg(not(unix))]
        {
            std::fs::copy(from, to).map(|_| ())
        }
    } else {
        std::fs::hard_link(from, to)
    }
}

/// Carry over into the staged folder `new` what it takes over from `old` (see [`Keep`]).
fn carry(old: &Path, new: &Path, keep: Keep) -> Result<(), WriteError> {
    let fail = |path: &Path, e: std::io::Error| {
        WriteError::encode(
            path,
            format!("could not carry this over into the new output ({e}); nothing was replaced"),
        )
    };
    match keep {
        Keep::Report => {
            if !replaceable(old) {
                return Err(WriteError::NotOurs {
                    path: old.display().to_string(),
                });
            }
            carry_foreign(old, new).map_err(|(path, e)| match e {
                Some(e) => fail(&path, e),
                None => WriteError::refused(
                    &path,
                    "is not a file rollsim wrote, and this run writes one of that name: move it out of the folder and run again",
                ),
            })?;
            for k in KEPT {
                let (from, to) = (old.join(k), new.join(k));
                if !from.is_dir() {
                    continue;
                }
                if !to.exists() {
                    mirror(&from, &to).map_err(|e| fail(&from, e))?;
                    continue;
                }
                for e in std::fs::read_dir(&from)
                    .map_err(|e| fail(&from, e))?
                    .flatten()
                {
                    let dest = to.join(e.file_name());
                    if !transient(&e.file_name().to_string_lossy())
                        && std::fs::symlink_metadata(&dest).is_err()
                    {
                        mirror(&e.path(), &dest).map_err(|x| fail(&e.path(), x))?;
                    }
                }
            }
        }
        Keep::Everything => {
            for e in std::fs::read_dir(old).map_err(|e| fail(old, e))? {
                let e = e.map_err(|e| fail(old, e))?;
                if transient(&e.file_name().to_string_lossy()) {
                    continue;
                }
                let dest = new.join(e.file_name());
                if std::fs::symlink_metadata(&dest).is_err() {
                    mirror(&e.path(), &dest).map_err(|x| fail(&e.path(), x))?;
                } else if dest.join(MARKER).is_file() && e.path().is_dir() {
                    // A report written anew: it keeps its balance folders.
                    carry(&e.path(), &dest, Keep::Report)?;
                }
            }
        }
    }
    Ok(())
}

/// The heading in a report's marker above the files the run wrote, one a line.
const WRITTEN: &str = "Written by rollsim (the next run replaces these and keeps anything else):";

/// The files a report's marker says rollsim wrote (relative paths, `/` between names);
/// None for a marker of a version that listed none (its folder is replaced whole).
fn written(report: &Path) -> Option<std::collections::HashSet<String>> {
    let text = std::fs::read_to_string(report.join(MARKER)).ok()?;
    let (_, list) = text.split_once(WRITTEN)?;
    Some(
        list.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// Every file under `dir` (not the marker, nothing transient), relative, `/` between
/// names.
fn files_under(dir: &Path, prefix: &str, out: &mut Vec<String>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if transient(&name) || (prefix.is_empty() && name == MARKER) {
            continue;
        }
        let rel = format!("{prefix}{name}");
        if e.file_type()?.is_dir() {
            files_under(&e.path(), &format!("{rel}/"), out)?;
        } else {
            out.push(rel);
        }
    }
    Ok(())
}

/// The marker of a staged report, listing every file the run wrote into it.
fn mark_written(dir: &Path) -> Result<(), WriteError> {
    let mut files = Vec::new();
    files_under(dir, "", &mut files).map_err(|e| WriteError::io(dir, e))?;
    files.sort();
    let mut text = String::from(
        "A rollsim report: the next run into this folder replaces the files below and keeps anything else.\n",
    );
    text.push_str(WRITTEN);
    text.push('\n');
    for f in files {
        text.push_str(&f);
        text.push('\n');
    }
    std::fs::write(dir.join(MARKER), text).map_err(|e| WriteError::io(dir, e))
}

/// Link into the staged report `new` every entry of the old report `old` that rollsim
/// did not write there (its marker's list), at the same place: a designer's notes and
/// folders outlive a rerun. The path at fault, with the error (None: the new run writes
/// a file of that name).
fn carry_foreign(old: &Path, new: &Path) -> Result<(), (PathBuf, Option<std::io::Error>)> {
    let Some(ours) = written(old) else {
        return Ok(());
    };
    fn walk(
        old: &Path,
        new: &Path,
        prefix: &str,
        ours: &std::collections::HashSet<String>,
    ) -> Result<(), (PathBuf, Option<std::io::Error>)> {
        let entries = std::fs::read_dir(old).map_err(|e| (old.to_path_buf(), Some(e)))?;
        for e in entries {
            let e = e.map_err(|e| (old.to_path_buf(), Some(e)))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if transient(&name)
                || (prefix.is_empty() && (name == MARKER || KEPT.contains(&name.as_str())))
            {
                continue;
            }
            let rel = format!("{prefix}{name}");
            let (from, to) = (e.path(), new.join(&name));
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            let ours_inside = is_dir && ours.iter().any(|f| f.starts_with(&format!("{rel}/")));
            if ours.contains(&rel) || ours_inside {
                if ours_inside && to.is_dir() {
                    walk(&from, &to, &format!("{rel}/"), ours)?;
                } else if ours_inside {
                    // A folder of ours the new run does not write: what is foreign in it
                    // still goes over.
                    std::fs::create_dir_all(&to).map_err(|x| (to.clone(), Some(x)))?;
                    walk(&from, &to, &format!("{rel}/"), ours)?;
                    let empty = std::fs::read_dir(&to).map_or(true, |mut d| d.next().is_none());
                    if empty {
                        let _ = std::fs::remove_dir(&to);
                    }
                }
                continue;
            }
            if std::fs::symlink_metadata(&to).is_ok() {
                return Err((from, None));
            }
            mirror(&from, &to).map_err(|x| (from.clone(), Some(x)))?;
        }
        Ok(())
    }
    walk(old, new, "", &ours)
}

/// Take a lock without waiting (`shared` for an enclosing folder's); `false` if another
/// run holds it.
#[cfg(unix)]
fn try_lock(f: &File, shared: bool) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    let how = if shared { libc::LOCK_SH } else { libc::LOCK_EX };
    // SAFETY: flock on a file descriptor this process owns; no memory is shared.
    let r = unsafe { libc::flock(f.as_raw_fd(), how | libc::LOCK_NB) };
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
fn try_lock(_: &File, _: bool) -> std::io::Result<bool> {
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

/// Elsewhere: two renames (the old folder is kept aside until the new one is in place).
#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let aside = b.with_extension("old-report");
    std::fs::rename(b, &aside)?;
    std::fs::rename(a, b)?;
    std::fs::rename(&aside, a)
}

/// Every lock file inside `dir`, at any depth (links are not followed).
fn locks_inside(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let name = e.file_name();
        let name = name.to_string_lossy();
        if kind.is_dir() {
            locks_inside(&e.path(), found);
        } else if kind.is_file() && name.starts_with('.') && name.ends_with(".lock") {
            found.push(e.path());
        }
    }
}

impl Staging {
    /// Lock `target` and open a fresh staging folder beside it. Every check that can
    /// refuse is made here, before any work, and made again at the commit.
    pub fn begin(target: &Path, keep: Keep) -> Result<Staging, WriteError> {
        let (parent, name) = parent_and_name(target)?;
        // `out/.` and `out` are one folder: every later step uses the plain form.
        let plain = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => parent.join(&name),
            _ => PathBuf::from(&name),
        };
        let target = &plain;
        // A parent that cannot be made (a file on the way, no permission) is a bad -o.
        std::fs::create_dir_all(&parent).map_err(|e| {
            WriteError::refused(
                target,
                format!(
                    "cannot make the folder it goes in, {}: {e}",
                    parent.display()
                ),
            )
        })?;
        if std::fs::symlink_metadata(target).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(WriteError::refused(
                target,
                "is a symbolic link; rollsim replaces its output folder as a whole, so give the folder it points to with -o",
            ));
        }
        if target.exists() && !target.is_dir() {
            return Err(WriteError::refused(
                target,
                "exists and is not a folder: choose another -o",
            ));
        }
        if keep == Keep::Report && target.is_dir() && !replaceable(target) {
            return Err(WriteError::NotOurs {
                path: target.display().to_string(),
            });
        }
        let lock_path = parent.join(format!(".{name}.lock"));
        // Errors name the folder asked for, not the lock file beside it.
        let lock = open_lock(&lock_path, true).map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                WriteError::refused(
                    target,
                    format!("a symbolic link sits where rollsim keeps this folder's lock ({}); remove it and run again", lock_path.display()),
                )
            } else {
                WriteError::io(target, e)
            }
        })?;
        if !try_lock(&lock, false).map_err(|e| WriteError::io(target, e))? {
            return Err(WriteError::Busy {
                path: target.display().to_string(),
            });
        }
        let mut locks = vec![lock];
        lock_around(&parent, target, &mut locks)?;
        // Leftovers of killed runs: only a lock holder stages, so none is in use. One of
        // this process's own number (a pid used again) is cleared now, the others after
        // the commit.
        let prefix = format!(".{name}.staging-");
        let dir = parent.join(format!("{prefix}{}", std::process::id()));
        let mut leftovers = Vec::new();
        if let Ok(entries) = std::fs::read_dir(&parent) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(&prefix) {
                    leftovers.push(e.path());
                }
            }
        }
        if leftovers.contains(&dir) {
            leftovers.retain(|l| *l != dir);
            let _ = std::fs::remove_dir_all(&dir);
        }
        std::fs::create_dir(&dir).map_err(|e| WriteError::io(target, e))?;
        let staging = Staging {
            target: target.to_path_buf(),
            dir,
            keep,
            _locks: locks,
            done: false,
            stop: None,
            leftovers,
        };
        if keep == Keep::Report {
            mark(staging.dir())?;
        }
        Ok(staging)
    }

    /// Let Ctrl-C cut short the removal of the replaced folder after the commit: the
    /// new folder is in place by then, and a large old one (hundreds of charts, tens of
    /// megabytes) can take longer to delete than a stop may take. What is left is a
    /// hidden staging folder beside the target, which the next run removes.
    pub fn stopped_by(mut self, stop: &rollsim_core::Cancel) -> Staging {
        self.stop = Some(stop.clone());
        self
    }

    /// Where to write the folder's files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder they will be found in.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Where a file written under [`Staging::dir`] will be once committed.
    pub fn final_path(&self, staged: &Path) -> PathBuf {
        staged
            .strip_prefix(&self.dir)
            .map_or_else(|_| staged.to_path_buf(), |rel| self.target.join(rel))
    }

    /// Put the staged folder in place of the old one, in one step.
    pub fn commit(mut self) -> Result<(), WriteError> {
        // Each report's marker lists the files it holds now, all rollsim's.
        match self.keep {
            Keep::Report => mark_written(&self.dir)?,
            Keep::Everything => {
                for e in std::fs::read_dir(&self.dir)
                    .map_err(|e| WriteError::io(&self.dir, e))?
                    .flatten()
                {
                    if e.path().join(MARKER).is_file() {
                        mark_written(&e.path())?;
                    }
                }
            }
        }
        if std::fs::symlink_metadata(&self.target).is_ok() {
            // Checked again under the lock: the folder may have changed during the run.
            carry(&self.target, &self.dir, self.keep)?;
            exchange(&self.dir, &self.target).map_err(|e| WriteError::io(&self.target, e))?;
            // The staging folder now holds the old folder, every file worth keeping
            // already linked into the new one.
            self.done = true;
            remove_unless(&self.dir, self.stop.as_ref());
        } else {
            std::fs::rename(&self.dir, &self.target)
                .map_err(|e| WriteError::io(&self.target, e))?;
        }
        self.done = true;
        for l in std::mem::take(&mut self.leftovers) {
            remove_unless(&l, self.stop.as_ref());
        }
        Ok(())
    }
}

/// Make `dir` (created if missing) a report folder: the next run into it may replace it.
pub fn mark(dir: &Path) -> Result<(), WriteError> {
    std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
    std::fs::write(
        dir.join(MARKER),
        "A rollsim report: the next run into this folder replaces it as a whole.\n",
    )
    .map_err(|e| WriteError::io(dir, e))
}

/// Remove `dir` and everything in it, file by file, until `stop` is cancelled.
fn remove_unless(dir: &Path, stop: Option<&rollsim_core::Cancel>) {
    match stop {
        Some(stop) => remove_while(dir, &|| !stop.is_cancelled()),
        None => {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Remove `dir` and everything in it, file by file, while `go` says so.
fn remove_while(dir: &Path, go: &dyn Fn() -> bool) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if !go() {
                return;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_while(&e.path(), go);
            } else {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let _ = std::fs::remove_dir(dir);
}

/// How long a stopped run spends removing what it staged: tens of megabytes of charts
/// can take longer to delete on a busy disk than a Ctrl-C may take. What is left is a
/// hidden staging folder beside the target, removed by the next run.
const CLEANUP: std::time::Duration = std::time::Duration::from_millis(200);

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let until = std::time::Instant::now() + CLEANUP;
            remove_while(&self.dir, &|| std::time::Instant::now() < until);
        }
    }
}

/// The locks of the runs around `target`: of enclosing folders a run may be replacing
/// as a whole (its own lock is taken first, so two runs can never both miss each
/// other), and of runs writing somewhere inside the folder this one replaces. A lock
/// held by another run: that run's folder is busy.
fn lock_around(parent: &Path, target: &Path, locks: &mut Vec<File>) -> Result<(), WriteError> {
    let absolute = std::fs::canonicalize(parent).map_err(|e| WriteError::io(parent, e))?;
    for dir in absolute.ancestors() {
        let Some(lock) = lock_of(dir) else { continue };
        if !std::fs::symlink_metadata(&lock).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let Ok(f) = open_lock(&lock, false) else {
            continue;
        };
        if !try_lock(&f, true).map_err(|e| WriteError::io(target, e))? {
            return Err(WriteError::Busy {
                path: dir.display().to_string(),
            });
        }
        locks.push(f);
    }
    // Runs writing somewhere inside the folder this one replaces.
    let mut inner = Vec::new();
    locks_inside(target, &mut inner);
    for lock in inner {
        let Ok(f) = open_lock(&lock, false) else {
            continue;
        };
        if !try_lock(&f, false).map_err(|e| WriteError::io(target, e))? {
            let path = guarded_by(&lock).unwrap_or(lock);
            return Err(WriteError::Busy {
                path: path.display().to_string(),
            });
        }
        locks.push(f);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{shown, temp_name};
    use std::path::Path;

    #[test]
    fn messages_name_the_files_the_user_asked_for() {
        let pid = std::process::id();
        let staged = format!("reports/.units.staging-{pid}/slam/x.png");
        assert_eq!(shown(Path::new(&staged)), "reports/units/slam/x.png");
        let tmp = temp_name(Path::new(&staged));
        assert_eq!(shown(&tmp), "reports/units/slam/x.png");
        let tmp = temp_name(Path::new("out/summary.csv"));
        assert_eq!(shown(&tmp), "out/summary.csv");
        // A designer's own dotted names are theirs.
        for own in [".config/a.toml", "a/.staging-x/b", "out/.x.partial.png"] {
            assert_eq!(shown(Path::new(own)), own);
        }
    }
}
