//! The one error type of the commands: the core's errors and what only the CLI meets
//! (files, tables, threads). Each variant knows its exit code (2 bad input, 130
//! interrupted, 1 anything else).

use crate::report::write::WriteError;
use rollsim_core::config::ConfigError;
use rollsim_core::document::CompileError;

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
    Compile(#[from] CompileError),
    #[error("writing {0}")]
    Write(WriteError),
    #[error("building the table: {0}")]
    Table(#[from] crate::report::frame::FrameError),
    #[error("interrupted: no output was written")]
    Interrupted,
    #[error("{0}")]
    Threads(String),
    /// A shard's command stopped where it needs the other shards' items (never shown:
    /// the shard writes its part instead).
    #[error("{}", rollsim_core::Error::Deferred)]
    Deferred,
}

impl From<WriteError> for AppError {
    fn from(e: WriteError) -> Self {
        match e {
            // A chart not begun because of Ctrl-C: the run was interrupted, nothing more.
            WriteError::Interrupted => AppError::Interrupted,
            e => AppError::Write(e),
        }
    }
}

impl From<rollsim_core::Error> for AppError {
    fn from(e: rollsim_core::Error) -> Self {
        use rollsim_core::Error as E;
        match e {
            E::Config(c) => AppError::Config(c),
            E::UnknownScenario { file, name, hint } => {
                AppError::UnknownScenario { file, name, hint }
            }
            E::BadOption(m) => AppError::BadOption(m),
            E::Compile(c) => AppError::Compile(c),
            E::Interrupted => AppError::Interrupted,
            E::Deferred => AppError::Deferred,
            // The core's error is non-exhaustive: a new kind reads as an internal one.
            other => AppError::Threads(other.to_string()),
        }
    }
}

impl AppError {
    /// 2 for bad input and for an output path rollsim refuses (not a folder, not ours,
    /// another run's), 130 for Ctrl-C, 1 for anything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            AppError::Config(_)
            | AppError::UnknownScenario { .. }
            | AppError::BadOption(_)
            | AppError::Compile(CompileError::Unknown { .. })
            | AppError::Write(
                WriteError::NotOurs { .. } | WriteError::Busy { .. } | WriteError::Refused { .. },
            )
            | AppError::Table(crate::report::frame::FrameError::Duplicate(_)) => 2,
            AppError::Interrupted => 130,
            _ => 1,
        }
    }
}
