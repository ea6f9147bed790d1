//! One module per game system. Each turns validated scenario values into
//! [`crate::model::Compiled`] scenarios: a sampler that rolls the dice and, where the
//! rules allow, the exact distribution over the same states.

pub mod descent;
pub mod dozen;
pub mod rush;
pub mod skirmish;
