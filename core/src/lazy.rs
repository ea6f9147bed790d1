//! A value made on first use, held in the value that needs it (never a global): a
//! compiled roll's Monte Carlo tables, an attack's re-roll masks, a scenario's fractions
//! counted in whole numbers. Each is made from what beside it is kept already, so it
//! adds nothing to a trial's sharing key, and a run that never asks (an exact-only run
//! never samples; a sweep reads only floats) never makes it.

use std::sync::OnceLock;

/// A cell filled once, by whichever thread asks first; the same value for every thread
/// after, since it is made from its owner's fields alone.
#[derive(Clone, Debug)]
pub(crate) struct Lazy<T>(OnceLock<T>);

impl<T> Lazy<T> {
    pub(crate) fn new() -> Self {
        Lazy(OnceLock::new())
    }

    pub(crate) fn get_or_init(&self, make: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(make)
    }
}

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Hashes nothing: what it holds is made from what its owner hashes already.
impl<T> std::hash::Hash for Lazy<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}
