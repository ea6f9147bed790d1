//! rollsim's core: everything that computes, nothing that touches the outside world.
//!
//! Layers, top to bottom (each imports only those below it): [`balance`] (matrices,
//! sweeps, sensitivity, the equalizer: pure functions over a parsed config,
//! [`balance::Source`], and typed [`edit::Edit`]s), [`run`] (a compiled scenario
//! through the engine with its precision target), [`results`] (the result model:
//! summaries, matrices, sweeps), [`document`] (a config's text or parsed TOML -> a
//! validated config, through the registry of [`systems`]), [`systems`] (one folder per
//! game behind one interface), [`config`] (the toolkit every system reads its tables
//! with), [`sim`] (one deterministic chunk of trials at a time, merged histograms),
//! [`model`], [`kernels`], [`exact`], [`stats`], [`text`], [`cancel`].
//!
//! Nothing here reads a file, a clock, an environment variable or a global: a front end
//! (the CLI, the live page, a WASM build) passes in the text, a [`cancel::Cancel`] token
//! and a [`sim::Progress`] sink, and gets values back.

#![warn(missing_docs)]

pub mod balance;
pub mod cancel;
pub mod config;
pub mod document;
pub mod edit;
pub mod error;
pub mod fraction;
pub mod kernels;
mod lazy;
pub mod model;
pub mod pmf;
pub mod results;
pub mod run;
pub mod sim;
pub mod stats;
pub mod systems;
pub mod text;

pub use cancel::Cancel;
pub use error::Error;
