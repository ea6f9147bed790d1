//! What every command does to run a compiled scenario: the defaults and the engine call
//! with its precision target. Balance and the front ends both use it.

use crate::cancel::Cancel;
use crate::model::Compiled;
use crate::results;
use crate::sim::{self, Budget, Reporter};
use crate::Error;

/// Trials per scenario when the user names neither a count nor a precision target.
pub const DEFAULT_TRIALS: u64 = 10_000_000;
/// The seed when the user gives none: runs are reproducible by default.
pub const DEFAULT_SEED: u64 = 2026;
/// The cap on a precision-targeted run's trials per scenario when the user gives none.
pub const DEFAULT_MAX_TRIALS: u64 = 1_000_000_000;

/// The caller's hooks into a computation, handed in instead of read from globals: the
/// token that stops it and where it reports progress.
#[derive(Clone, Copy)]
pub struct Hooks<'a> {
    /// Checked between units of work; once cancelled the computation returns
    /// [`Error::Interrupted`].
    pub cancel: &'a Cancel,
    /// Makes a progress sink for each scenario run.
    pub progress: &'a dyn Reporter,
    /// Where runs of the same trial are shared within the command, if anywhere.
    pub memo: Option<&'a sim::Memo>,
}

impl<'a> Hooks<'a> {
    /// What a front end builds once per command (or per request of the live page).
    pub fn new(cancel: &'a Cancel, progress: &'a dyn Reporter) -> Self {
        Hooks {
            cancel,
            progress,
            memo: None,
        }
    }

    /// These hooks, sharing runs of the same trial through `memo` (see [`sim::Memo`]).
    pub fn with_memo(self, memo: &'a sim::Memo) -> Self {
        Hooks {
            memo: Some(memo),
            ..self
        }
    }

    /// `Err(Error::Interrupted)` once cancelled.
    pub fn check(&self) -> Result<(), Error> {
        self.cancel.check()
    }
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("cancelled", &self.cancel.is_cancelled())
            .finish()
    }
}

/// Run one compiled scenario through the engine, reporting under its name; a precision
/// budget holds for every probability its report shows.
pub fn simulate(
    c: &Compiled,
    seed: u64,
    budget: Budget,
    ctx: Hooks,
) -> Result<sim::Histogram, Error> {
    simulate_shown(c, seed, budget, ctx, &|h| results::widest_half_width(c, h))
}

/// [`simulate`] for a caller that shows fewer numbers than the report would (a matrix
/// cell shows one): `widest` is the widest 95% half-width among those, which is what a
/// precision budget stops on.
pub fn simulate_shown(
    c: &Compiled,
    seed: u64,
    budget: Budget,
    ctx: Hooks,
    widest: &dyn Fn(&sim::Histogram) -> f64,
) -> Result<sim::Histogram, Error> {
    let progress = ctx.progress.scenario(&c.name);
    let key = ctx.memo.and_then(|_| c.trial.key());
    let shared = ctx
        .memo
        .zip(key.as_deref())
        .map(|(memo, key)| sim::Shared { memo, key });
    let h = sim::run(
        c.trial.as_ref(),
        seed,
        budget,
        widest,
        progress.as_ref(),
        ctx.cancel,
        shared,
    );
    progress.finish();
    h.map_err(|_| Error::Interrupted)
}
