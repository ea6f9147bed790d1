//! Results into files and text: `frame` is the one place where results become
//! tables ([`table::Frame`]); each exporter and each chart kind has its own file. The result model
//! itself (summaries, matrices, sweeps) is the core's ([`rollsim_core::results`]).

pub mod answer;
pub mod arrow;
pub mod csv;
pub mod export;
pub mod frame;
pub mod gallery;
pub mod json;
pub mod markdown;
pub mod parquet;
pub mod plot;
pub mod table;
pub mod write;

pub use rollsim_core::results::*;
