//! What every command does to run a compiled scenario: the defaults, the Ctrl-C flag,
//! the thread pool and the engine call with its precision target. `app` and `balance`
//! both use it, so neither needs the other.

use crate::error::AppError;
use crate::model::Compiled;
use crate::report;
use crate::sim::{self, Budget, Progress};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Set by the Ctrl-C handler; the engine stops at the next chunk and nothing is written.
pub static STOP: AtomicBool = AtomicBool::new(false);

pub const DEFAULT_TRIALS: u64 = 10_000_000;
pub const DEFAULT_SEED: u64 = 2026;
pub const DEFAULT_MAX_TRIALS: u64 = 1_000_000_000;

/// The default output directory of a config: `reports/<file stem>`.
pub fn default_out(config: &Path) -> PathBuf {
    let stem = config
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("report");
    Path::new("reports").join(stem)
}

pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, AppError> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(t);
    }
    b.build().map_err(|e| AppError::Threads(e.to_string()))
}

/// Run one compiled scenario through the engine.
pub fn simulate(
    c: &Compiled,
    seed: u64,
    budget: Budget,
    quiet: bool,
    stop: &AtomicBool,
) -> Result<sim::Histogram, AppError> {
    let progress = Progress::new(&c.name, quiet);
    let widest = |h: &sim::Histogram| report::widest_half_width(c, h);
    let h = sim::run(c.trial.as_ref(), seed, budget, &widest, &progress, stop);
    progress.finish();
    h.map_err(|_| AppError::Interrupted)
}
