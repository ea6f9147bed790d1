//! What the benches share: a whole `sim::run` on a pool of a given size, as the CLI runs.

use rollsim::model::Sampler;
use rollsim::sim::{self, Budget, Histogram, Progress};
use std::sync::atomic::AtomicBool;

/// A thread pool of `threads` workers.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

/// `trials` trials of `sampler` through the engine on `pool`.
pub fn run(pool: &rayon::ThreadPool, sampler: &dyn Sampler, trials: u64) -> Histogram {
    let stop = AtomicBool::new(false);
    pool.install(|| {
        sim::run(
            sampler,
            7,
            Budget::Trials(trials),
            &|_| 0.0,
            &Progress::hidden(),
            &stop,
        )
        .expect("not interrupted")
    })
}
