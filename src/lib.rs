//! rollsim: Monte Carlo and exact probabilities for tabletop dice games.
//!
//! Layers, top to bottom: [`config`] (TOML -> validated types), [`rules`] (one module per
//! game system: samplers and exact distributions), [`dice`], [`exact`], [`sim`] (the
//! parallel engine), [`stats`], [`report`] (tables, exporters, charts). [`app`] wires
//! them for the binary; the core never sees command-line parsing.

pub mod app;
pub mod balance;
pub mod config;
pub mod dice;
pub mod exact;
pub mod model;
pub mod report;
pub mod rules;
pub mod shard;
pub mod sim;
pub mod stats;
