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
}

impl WriteError {
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        WriteError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    pub fn encode(path: &Path, message: impl ToString) -> Self {
        WriteError::Encode {
            path: path.display().to_string(),
            message: message.to_string(),
        }
    }
}

/// A temporary name in the same directory, keeping the extension (plotters picks the
/// image format from it).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, "tmp"));
    path.with_file_name(format!(".{stem}.{}.partial.{ext}", std::process::id()))
}

/// Write `path` through `fill`, atomically.
pub fn atomic<F>(path: &Path, fill: F) -> Result<(), WriteError>
where
    F: FnOnce(&mut BufWriter<File>) -> Result<(), WriteError>,
{
    let tmp = temp_path(path);
    let result = (|| {
        let f = File::create(&tmp).map_err(|e| WriteError::io(&tmp, e))?;
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
        Ok(()) => std::fs::rename(tmp, path).map_err(|e| WriteError::io(path, e)),
        Err(e) => {
            let _ = std::fs::remove_file(tmp);
            Err(e)
        }
    }
}
