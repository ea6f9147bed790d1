//! The one error type of the commands: the core's errors and what only the CLI meets
//! (files, tables, threads). Each variant knows its exit code (2 bad input, 130
//! interrupted, 1 anything else).

use crate::report::write::WriteError;
use rollsim_core::config::ConfigError;
use rollsim_core::document::CompileError;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// The core's error, as it says it (a config, a name, an option, Ctrl-C, a shard's
    /// share done).
    #[error(transparent)]
    Core(#[from] rollsim_core::Error),
    /// An option of the command line that cannot be honoured, in the user's words.
    #[error("{0}")]
    BadOption(String),
    #[error("writing {0}")]
    Write(WriteError),
    #[error("building the table: {0}")]
    Table(#[from] crate::report::frame::FrameError),
    #[error("{0}")]
    Threads(String),
}

impl AppError {
    /// Ctrl-C: nothing was written.
    pub const INTERRUPTED: AppError = AppError::Core(rollsim_core::Error::Interrupted);

    /// Whether this is Ctrl-C's stop.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, AppError::Core(rollsim_core::Error::Interrupted))
    }

    /// Whether this is a shard's share done (never shown: the shard writes its part).
    pub fn is_deferred(&self) -> bool {
        matches!(self, AppError::Core(rollsim_core::Error::Deferred))
    }
}

impl From<ConfigError> for AppError {
    fn from(e: ConfigError) -> Self {
        AppError::Core(e.into())
    }
}

impl From<CompileError> for AppError {
    fn from(e: CompileError) -> Self {
        AppError::Core(e.into())
    }
}

impl From<WriteError> for AppError {
    fn from(e: WriteError) -> Self {
        match e {
            // A chart not begun because of Ctrl-C: the run was interrupted, nothing more.
            WriteError::Interrupted => AppError::INTERRUPTED,
            e => AppError::Write(e),
        }
    }
}

impl AppError {
    /// 2 for bad input and for an output path rollsim refuses (not a folder, not ours,
    /// another run's), 130 for Ctrl-C, 1 for anything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            AppError::Core(e) if e.is_bad_input() => 2,
            AppError::Core(rollsim_core::Error::Interrupted) => 130,
            AppError::BadOption(_)
            | AppError::Write(
                WriteError::NotOurs { .. } | WriteError::Busy { .. } | WriteError::Refused { .. },
            )
            | AppError::Table(crate::report::frame::FrameError::Duplicate(_)) => 2,
            _ => 1,
        }
    }
}
