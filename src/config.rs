//! The core's config toolkit and loader, plus what only the CLI does: read a config from
//! a file.

pub use rollsim_core::config::*;
pub use rollsim_core::document::{
    load_str, load_table, load_until, one_liner, parse, AnalysisConfig, CompileError, MAX_SCENARIOS,
};
use rollsim_core::Cancel;
use std::path::Path;

/// The largest config rollsim reads: far above any designer's file (the shipped ones
/// are under 40 KB), far below what would exhaust memory.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Check that `path` is a regular file of at most `cap` bytes before reading it: a
/// device (`/dev/zero`), a FIFO or a huge file is refused at once instead of read
/// forever, blocked on, or read until memory runs out.
pub fn check_readable(path: &Path, cap: u64, what: &str) -> Result<(), std::io::Error> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other(format!(
            "not a regular file (a device, a pipe or a folder): give the path of a {what}"
        )));
    }
    if meta.len() > cap {
        return Err(std::io::Error::other(format!(
            "{} bytes; a {what} may have at most {cap} bytes",
            meta.len()
        )));
    }
    Ok(())
}

/// Read a config file's bytes, refused where the file is missing, unreadable or larger
/// than a config may be; whether they are text is the parse's to say
/// ([`rollsim_core::document::text_of`]).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ConfigError> {
    let fail = |source| ConfigError::Read {
        file: path.display().to_string(),
        source,
    };
    check_readable(path, MAX_CONFIG_BYTES, "config file").map_err(fail)?;
    std::fs::read(path).map_err(fail)
}

/// Read a config file, as text.
pub fn read(path: &Path) -> Result<String, ConfigError> {
    let bytes = read_bytes(path)?;
    rollsim_core::document::text_of(bytes, &path.display().to_string())
}

/// Load and validate a config file, applying `--set KEY=VALUE` overrides; Ctrl-C
/// (`cancel`) stops its checks ([`rollsim_core::Error::Interrupted`]).
pub fn load(
    path: &Path,
    sets: &[String],
    cancel: &Cancel,
) -> Result<AnalysisConfig, rollsim_core::Error> {
    let text = read(path)?;
    load_until(&text, &path.display().to_string(), sets, cancel)
}
