//! Exact distributions of dice-language expressions: one evaluator, the law
//! ([`law`]), generic over its weight. Every value is a count of ways over one
//! denominator, in machine words while they fit and big integers past them, so that
//! every row has its fraction; where counting passes its budget, the same law runs in
//! floats ([`weight`]: plain, then with an exponent of their own), with no fraction.
//! A pool is read by one pass over its faces from one end, choosing how many of the
//! dice left in each group show each face (the multiset method of Liu's icepool, AIIDE
//! 2022); a `let` is summed out where it is read ([`sink`]).

/// The most values one exact distribution spans (a wider one is refused, saying so).
pub const MAX_SPAN: usize = 1 << 20;

/// A hash map with a fixed hasher: the same order, and so the same output, every run.
pub(super) type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

mod columns;
mod law;
mod sink;
mod weight;

pub use law::{any_law, first_law, real_law, First, Law, NoLaw, Weights, Why, LAW_WORK};
pub use sink::sunk;
pub(crate) use weight::Weight;
pub use weight::REAL_WORK;

/// Most outcomes of a pool variable the exact engine goes through (every multiset of
/// its dice) where no pass reads them; past it the scenario is Monte Carlo only.
pub const MAX_OUTCOMES: u64 = 2_000_000;
