//! rollsim: Monte Carlo and exact probabilities for tabletop dice games.
//!
//! Layers, top to bottom (each imports only those below it): [`app`] (what each command
//! does: load, compute, write), [`balance`] (matrices, sweeps, sensitivity, equalizer:
//! computed through a system's knobs, never written), [`config`] (TOML -> a system's
//! validated config through the registry), [`systems`] (one folder per game system behind
//! one interface), [`dice`], [`exact`], [`engine`] and [`sim`] (the parallel engine),
//! [`stats`], [`report`] (the result model, tables, exporters, charts), [`error`]. The
//! core never sees command-line parsing.

pub mod app;
pub mod balance;
pub mod config;
pub mod dice;
pub mod engine;
pub mod error;
pub mod exact;
pub mod model;
pub mod report;
pub mod sim;
pub mod stats;
pub mod systems;
pub mod text;
