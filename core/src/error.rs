//! The one error of the core's computations: what a front end shows the user. Each
//! variant says whose fault it is ([`Error::is_bad_input`]), so the CLI can choose its
//! exit code and a server its status without reading messages.

use crate::config::ConfigError;
use crate::document::CompileError;

/// Why a computation produced no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The config file is malformed or refers to something it lacks.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A scenario name the user asked for is not in the config.
    #[error("{file}: no scenario `{name}`{hint}; `rollsim list {file}` shows them all")]
    UnknownScenario {
        /// The config file, as the user named it.
        file: String,
        /// The name asked for.
        name: String,
        /// ` (did you mean `x`?)` for the nearest known name, or empty.
        hint: String,
    },
    /// An option or a request that cannot be honoured, in the user's words.
    #[error("{0}")]
    BadOption(String),
    /// A scenario could not be compiled (an unknown name or a rules module's bug).
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The [`crate::Cancel`] token was cancelled.
    #[error("interrupted: no output was written")]
    Interrupted,
    /// A shard has computed its share of a command ([`crate::balance::Share`]); the rest
    /// needs the other shards' results, so the command stops here and `merge` goes on.
    #[error(
        "this shard's share is done; `rollsim merge` computes the rest from every shard's part"
    )]
    Deferred,
}

impl Error {
    /// Whether the input is at fault (a config, a name, an option), not rollsim.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Error::Config(_)
                | Error::UnknownScenario { .. }
                | Error::BadOption(_)
                | Error::Compile(CompileError::Unknown { .. })
        )
    }
}
