//! Atomic file output: every report file is written to a temporary file beside it and
//! renamed into place, so a reader (or a Ctrl-C) never sees half a file.

use std::fs::File;
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
