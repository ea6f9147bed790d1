//! rollsim: Monte Carlo and exact probabilities for tabletop dice games: the command
//! line's library, over the core crate [`rollsim_core`].
//!
//! Layers, top to bottom (each imports only those below it): [`app`] (what each command
//! does: read files, call the core, write through [`report`]), [`serve`] (the live page's web server, over the core), [`report`] (results ->
//! tables, exporters, charts, the gallery), [`progress`] (the terminal's progress bars),
//! [`error`]. [`tables`] hands a command's tables over as polars DataFrames. Everything that computes is the core's; its modules are re-exported here
//! under their old names so that `rollsim::balance::...` and the like keep working.

pub mod app;
pub mod cli;
pub mod command;
pub mod config;
pub mod error;
pub mod progress;
pub mod report;
pub mod serve;
pub mod tables;

/// The version `rollsim --version` prints (the Python package's `__version__`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use rollsim_core::{
    balance, cancel, document, edit, kernels, model, pmf, results, run, sim, stats, systems, text,
    Cancel, Error,
};
