//! What the benches share: a whole `sim::run` on a pool of a given size, as the CLI runs,
//! and one chunk at a time on this thread.

// Each bench includes this module and uses a part of it.
#![allow(dead_code)]

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
use rollsim::kernels::chunk_rng;
use rollsim::model::Sampler;
use rollsim::sim::CHUNK;
use rollsim::sim::{self, Budget, Hidden, Histogram};
use std::hint::black_box;

/// A thread pool of `threads` workers.
pub fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

/// One engine chunk per iteration on this thread, each from its own chunk generator as
/// a run draws them: the sampler's throughput on one core.
pub fn bench_chunks(g: &mut BenchmarkGroup<WallTime>, name: &str, sampler: &dyn Sampler) {
    let mut hist = vec![0u64; sampler.states()];
    let mut i = 0u64;
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut rng = chunk_rng(42, i);
            i += 1;
            sampler.run_chunk(&mut rng, CHUNK, &mut hist, &rollsim::Cancel::new());
            black_box(&hist);
        })
    });
}

/// `trials` trials of `sampler` through the engine on `pool`.
pub fn run(pool: &rayon::ThreadPool, sampler: &dyn Sampler, trials: u64) -> Histogram {
    let stop = rollsim::Cancel::new();
    pool.install(|| {
        sim::run(
            sampler,
            7,
            Budget::Trials(trials),
            &|_| 0.0,
            &Hidden,
            &stop,
            None,
        )
        .expect("not interrupted")
    })
}
