//! The core's config toolkit and loader, plus what only the CLI does: read a config from
//! a file.

pub use rollsim_core::config::*;
pub use rollsim_core::document::{
    load_str, load_table, parse, AnalysisConfig, CompileError, MAX_SCENARIOS,
};
use std::path::Path;

/// Read a config file, as text.
pub fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        file: path.display().to_string(),
        source,
    })
}

/// Load and validate a config file, applying `--set KEY=VALUE` overrides.
pub fn load(path: &Path, sets: &[String]) -> Result<AnalysisConfig, ConfigError> {
    load_str(&read(path)?, &path.display().to_string(), sets)
}
