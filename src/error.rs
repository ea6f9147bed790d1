//! The one error type of the commands, shared by `app` and `balance`: each variant
//! knows its exit code (2 bad input, 130 interrupted, 1 anything else).

use crate::config::ConfigError;
use crate::report::write::WriteError;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{file}: no scenario `{name}`{hint}; `rollsim list {file}` shows them all")]
    UnknownScenario {
        file: String,
        name: String,
        hint: String,
    },
    #[error("{0}")]
    BadOption(String),
    #[error(transparent)]
    Compile(#[from] crate::config::CompileError),
    #[error("writing {0}")]
    Write(#[from] WriteError),
    #[error("building the table: {0}")]
    Table(#[from] crate::report::frame::FrameError),
    #[error("interrupted: no output was written")]
    Interrupted,
    #[error("{0}")]
    Threads(String),
}

impl AppError {
    /// 2 for bad input, 130 for Ctrl-C, 1 for anything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            AppError::Config(_)
            | AppError::UnknownScenario { .. }
            | AppError::BadOption(_)
            | AppError::Compile(crate::config::CompileError::Unknown { .. }) => 2,
            AppError::Interrupted => 130,
            _ => 1,
        }
    }
}
