//! The Monte Carlo engine: parallel, deterministic, constant memory.
//!
//! Trials are cut into fixed-size chunks; chunk `i` always covers trials
//! `i*CHUNK .. (i+1)*CHUNK` and draws from its own generator derived from (seed, i).
//! Histograms are integer counts, so merging them in any order gives the same numbers:
//! one seed yields bit-identical results with 1, 2 or 16 threads. Memory is one
//! histogram per worker, whatever the trial count.

use crate::cancel::Cancel;
use crate::kernels::chunk_rng;
use crate::model::Sampler;

mod memo;
pub use memo::{Memo, Shared};
#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// Where a run reports how far it is: the CLI draws a bar, the live page sends a
/// message, a test ignores it. Called from the workers after each chunk.
pub trait Progress: Sync {
    /// The run now aims at `total` trials (a precision target raises it as it goes).
    fn set_total(&self, _total: u64) {}
    /// `trials` more are done.
    fn advance(&self, _trials: u64) {}
    /// The run is over (done or stopped).
    fn finish(&self) {}
    /// Whether to roll a pilot before the run: a few trials apart from it, on a
    /// generator no chunk uses and never counted, so that a sink can tell how long the
    /// run will take where one chunk is too slow to tell it (a trial of 3 ms fills a
    /// chunk in minutes). Asked once the total is set.
    fn pilot(&self) -> bool {
        false
    }
    /// `trials` more pilot trials are done; the run will share its trials among
    /// `workers` threads. Whether to roll twice as many again.
    fn piloted(&self, _trials: u64, _workers: usize) -> bool {
        false
    }
}

/// A sink that shows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hidden;

impl Progress for Hidden {}

/// What makes a [`Progress`] sink for each scenario a command runs.
pub trait Reporter: Sync {
    /// The sink for the run of scenario `label` (its name).
    fn scenario(&self, label: &str) -> Box<dyn Progress + '_>;
    /// The sink for work counted in items rather than trials (the points of a sweep,
    /// the variants a search tries), labelled `label`.
    fn items(&self, _label: &str) -> Box<dyn Progress + '_> {
        Box::new(Hidden)
    }
}

impl Reporter for Hidden {
    fn scenario(&self, _label: &str) -> Box<dyn Progress + '_> {
        Box::new(Hidden)
    }
}

/// Trials per chunk: large enough that the per-chunk merge and generator set-up are
/// noise, small enough that 2 threads stay balanced on a 10^6-trial run.
pub const CHUNK: u64 = 1 << 16;

/// A precision run's counts after its opening round are multiples of this (or its cap
/// of trials, where it stops there): a sixteenth of a chunk, where whole chunks ran up
/// to 65,535 trials past what a scenario needed (3.5% of the main job's trials). A round
/// that falls short (1 in 20 in the main job) costs another, which rolls its last short
/// chunk again: less than a margin that would prevent it.
pub const PRECISION_STEP: u64 = CHUNK / 16;

/// How many trials to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// Exactly this many.
    Trials(u64),
    /// Run until every reported probability's 95% Wilson half-width is at most `eps`
    /// (from two chunks, then to the count the half-width scales to, in steps of
    /// [`PRECISION_STEP`]), or `max_trials`.
    Precision {
        /// The largest acceptable 95% half-width, as a probability (0.001 = 0.1 points).
        eps: f64,
        /// The most trials: stop here even if `eps` is not met.
        max_trials: u64,
    },
}

/// Why a run returned no histogram.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// The stop token was cancelled; the partial counts are discarded.
    #[error("interrupted")]
    Interrupted,
}

/// Counts per state after `trials` trials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// Trials that ended in each state, indexed by state.
    pub counts: Vec<u64>,
    /// Trials run: the sum of `counts`.
    pub trials: u64,
}

/// Run trials `from..to` (whole chunks, except possibly a short last one).
fn run_range(
    sampler: &dyn Sampler,
    seed: u64,
    from: u64,
    to: u64,
    progress: &dyn Progress,
    stop: &Cancel,
) -> Result<Vec<u64>, SimError> {
    // A range, not a list: memory stays flat however many chunks (10^12 trials are
    // 1.5 x 10^7 chunks).
    let first = from / CHUNK;
    let chunks = Chunks {
        first,
        len: to.div_ceil(CHUNK) - first,
        stride: 1,
    };
    run_chunks(sampler, seed, from, to, chunks, progress, stop)
}

/// Chunks `first`, `first + stride`, ... (`len` of them): a whole run's or one shard's.
#[derive(Clone, Copy, Debug)]
struct Chunks {
    first: u64,
    len: u64,
    stride: u64,
}

impl Chunks {
    fn at(&self, j: u64) -> u64 {
        self.first + j * self.stride
    }
}

/// The chunks of a `trials`-trial run that shard `k` of `n` (1-based) runs: every n-th,
/// starting at chunk k - 1, so shards of a run are about equal whatever its size.
pub fn shard_chunks(trials: u64, k: u64, n: u64) -> impl Iterator<Item = u64> {
    let c = shard(trials, k, n);
    (0..c.len).map(move |j| c.at(j))
}

fn shard(trials: u64, k: u64, n: u64) -> Chunks {
    Chunks {
        first: k - 1,
        len: shard_len(trials, k, n),
        stride: n,
    }
}

/// How many chunks shard `k` of `n` runs.
pub fn shard_len(trials: u64, k: u64, n: u64) -> u64 {
    (trials.div_ceil(CHUNK) + n - k) / n
}

/// Run shard `k` of `n` of a `trials`-trial run: the counts of its chunks alone. The
/// counts of all `n` shards add up to the single run's, bit for bit.
pub fn run_shard(
    sampler: &dyn Sampler,
    seed: u64,
    trials: u64,
    (k, n): (u64, u64),
    progress: &dyn Progress,
    stop: &Cancel,
) -> Result<Vec<u64>, SimError> {
    let chunks = shard(trials, k, n);
    // The shard's own trials: its chunks, the run's last one short where it ends there.
    let last = trials.div_ceil(CHUNK).saturating_sub(1);
    let short = trials.div_ceil(CHUNK) * CHUNK - trials;
    let own = chunks.len * CHUNK
        - if chunks.len > 0 && chunks.at(chunks.len - 1) == last {
            short
        } else {
            0
        };
    // As a whole run: the bar's length and, for a long shard, the estimate up front
    // (a shard of 6 x 10^9 trials once ran for hours without a word).
    progress.set_total(own);
    if own >= PILOT_MIN && progress.pilot() {
        pilot(sampler, seed, progress, stop);
    }
    run_chunks(sampler, seed, 0, trials, chunks, progress, stop)
}

/// Run the given chunks, clipped to trials `from..to`: side by side on rayon's pool with
/// the `parallel` feature, else in order (integer counts: the sum is the same). Once
/// `stop` is cancelled no chunk starts, and the chunks not yet started are skipped
/// without being walked (a run of 2^64 trials stops as fast as a short one).
fn run_chunks(
    sampler: &dyn Sampler,
    seed: u64,
    from: u64,
    to: u64,
    chunks: Chunks,
    progress: &dyn Progress,
    stop: &Cancel,
) -> Result<Vec<u64>, SimError> {
    let states = sampler.states();
    let one = |mut hist: Vec<u64>, j: u64| {
        if stop.is_cancelled() {
            return Err(SimError::Interrupted);
        }
        let chunk = chunks.at(j);
        let start = (chunk * CHUNK).max(from);
        let end = (chunk + 1).saturating_mul(CHUNK).min(to);
        let mut rng = chunk_rng(seed, chunk);
        sampler.run_chunk(&mut rng, end - start, &mut hist, stop);
        if stop.is_cancelled() {
            // The chunk may be cut short: it is not counted.
            return Err(SimError::Interrupted);
        }
        progress.advance(end - start);
        Ok(hist)
    };
    #[cfg(feature = "parallel")]
    {
        (0..chunks.len)
            .into_par_iter()
            .try_fold(|| vec![0u64; states], one)
            .try_reduce(
                || vec![0u64; states],
                |mut a, b| {
                    add(&mut a, &b);
                    Ok(a)
                },
            )
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..chunks.len).try_fold(vec![0u64; states], one)
    }
}

/// Runs shorter than this are not piloted: a pilot's trial is a thousandth of them at most.
const PILOT_MIN: u64 = 1000;

/// The pilot [`Progress::pilot`] asks for: 1, 2, 4, ... trials, timed by the sink, on
/// the generator of a chunk no run reaches (its trials would start past 2^64), into a
/// histogram of its own. Nothing of it reaches the run's counts.
fn pilot(sampler: &dyn Sampler, seed: u64, progress: &dyn Progress, stop: &Cancel) {
    let mut rng = chunk_rng(seed, u64::MAX);
    let mut hist = vec![0u64; sampler.states()];
    let mut n = 1;
    while !stop.is_cancelled() && n <= CHUNK {
        sampler.run_chunk(&mut rng, n, &mut hist, stop);
        if stop.is_cancelled() || !progress.piloted(n, workers()) {
            break;
        }
        n *= 2;
    }
}

/// How many threads a run's chunks are shared among.
fn workers() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// `a += b`, state by state.
fn add(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// Run a scenario. `widest` returns, for a histogram, the widest 95% half-width over
/// every probability the report will show; it decides when `Budget::Precision` stops.
/// With `shared`, each range of trials the same sampler has rolled under the same seed
/// is taken from its memo, and the ranges this run rolls are left there.
pub fn run(
    sampler: &dyn Sampler,
    seed: u64,
    budget: Budget,
    widest: &dyn Fn(&Histogram) -> f64,
    progress: &dyn Progress,
    stop: &Cancel,
    shared: Option<Shared>,
) -> Result<Histogram, SimError> {
    let range = |from: u64, to: u64| match shared {
        None => run_range(sampler, seed, from, to, progress, stop),
        Some(s) => {
            let range = (seed, from, to);
            if let Some(counts) = s.memo.get(s.key, range) {
                // As a run that rolled it: a stop is an interruption, not a result.
                if stop.is_cancelled() {
                    return Err(SimError::Interrupted);
                }
                progress.advance(to - from);
                return Ok(counts);
            }
            let counts = run_range(sampler, seed, from, to, progress, stop)?;
            s.memo.put(s.key, range, &counts);
            Ok(counts)
        }
    };
    let mut hist = Histogram {
        counts: vec![0; sampler.states()],
        trials: 0,
    };
    let (mut target, max) = match budget {
        Budget::Trials(n) => (n, n),
        Budget::Precision { max_trials, .. } => ((CHUNK * 2).min(max_trials), max_trials),
    };
    progress.set_total(target);
    if target >= PILOT_MIN && progress.pilot() {
        pilot(sampler, seed, progress, stop);
    }
    // Trials rolled twice (below): the progress sink sees them twice, so its total
    // counts them twice too.
    let mut again = 0;
    loop {
        if !hist.trials.is_multiple_of(CHUNK) {
            // A chunk's generator cannot be taken up where a round left it: the short
            // chunk the last round ended on is rolled again from its start (the same
            // trials, not counted twice), so the run stays trials `0..target` of the
            // seed, as a fixed run of `target` trials is.
            let from = hist.trials / CHUNK * CHUNK;
            let tail = run_range(sampler, seed, from, hist.trials, &Hidden, stop)?;
            for (x, y) in hist.counts.iter_mut().zip(&tail) {
                *x -= y;
            }
            again += hist.trials - from;
            progress.set_total(target + again);
            hist.trials = from;
        }
        let part = range(hist.trials, target)?;
        add(&mut hist.counts, &part);
        hist.trials = target;
        let Budget::Precision { eps, .. } = budget else {
            break;
        };
        let w = widest(&hist);
        if target >= max || w <= eps {
            break;
        }
        // A half-width shrinks as 1/sqrt(trials): go straight to the count that should
        // meet the target (whole steps, at least one more), so no scenario runs more
        // than its own probabilities need. It depends on the counts alone, so the count
        // is the same for any thread count.
        let need = target as f64 * (w / eps).powi(2);
        let steps = (need / PRECISION_STEP as f64 - 1e-9).ceil() as u64;
        target = steps
            .saturating_mul(PRECISION_STEP)
            .max(target.saturating_add(PRECISION_STEP))
            .min(max);
        progress.set_total(target + again);
    }
    Ok(hist)
}

#[cfg(test)]
mod tests {
    #[test]
    fn shards_cover_every_chunk_once_even_at_10_to_the_12() {
        let trials = 1_000_000_000_000u64;
        let total = trials.div_ceil(CHUNK);
        let n = 7;
        let lens: Vec<u64> = (1..=n).map(|k| shard_len(trials, k, n)).collect();
        assert_eq!(lens.iter().sum::<u64>(), total);
        // Small runs: the chunk lists partition 0..total exactly.
        for trials in [1, CHUNK, CHUNK * 10 + 1] {
            let mut all: Vec<u64> = (1..=n)
                .flat_map(|k| shard_chunks(trials, k, n).collect::<Vec<_>>())
                .collect();
            all.sort();
            assert_eq!(all, (0..trials.div_ceil(CHUNK)).collect::<Vec<_>>());
        }
        assert_eq!(shard_chunks(1, 3, 4).count(), 0);
    }

    use super::*;
    use crate::kernels::{roll_die, Rng};
    use crate::model::Trial;

    struct D6;
    impl Trial for D6 {
        fn states(&self) -> usize {
            6
        }
        fn sample(&self, rng: &mut Rng) -> usize {
            roll_die(rng, 6) as usize - 1
        }
    }

    fn go(threads: usize, budget: Budget) -> Histogram {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let stop = Cancel::new();
        pool.install(|| {
            run(
                &D6,
                42,
                budget,
                &|h| 1.0 / (h.trials as f64).sqrt(),
                &Hidden,
                &stop,
                None,
            )
        })
        .unwrap()
    }

    #[test]
    fn same_seed_same_counts_for_any_thread_count() {
        let n = Budget::Trials(CHUNK * 5 + 123);
        let a = go(1, n);
        assert_eq!(a.trials, CHUNK * 5 + 123);
        assert_eq!(a.counts.iter().sum::<u64>(), a.trials);
        assert_eq!(a, go(2, n));
        assert_eq!(a, go(7, n));
    }

    #[test]
    fn precision_runs_until_met_and_matches_a_fixed_run() {
        let h = go(
            2,
            Budget::Precision {
                eps: 1.0 / 2048.0,
                max_trials: 1 << 30,
            },
        );
        // 1/sqrt(n) <= 1/2048 first holds at n = 2^22.
        assert_eq!(h.trials, 1 << 22);
        assert_eq!(h, go(1, Budget::Trials(1 << 22)));
    }

    /// A precision run whose second round ends inside a chunk and falls short: its third
    /// round rolls that chunk again from its start, so the run is the first `n` trials
    /// of the seed, as a fixed run of `n` is, for any thread count.
    #[test]
    fn a_round_ending_inside_a_chunk_is_taken_up_from_the_chunks_start() {
        let eps = 0.001;
        // Half-widths that scale the opening round to 150,000 trials (151,552 in steps,
        // inside chunk 2), then that count to 170,000 (172,032), where the target is met.
        let widest = |h: &Histogram| match h.trials {
            131_072 => eps * (150_000.0f64 / 131_072.0).sqrt(),
            151_552 => eps * (170_000.0f64 / 151_552.0).sqrt(),
            _ => 0.0,
        };
        let budget = Budget::Precision {
            eps,
            max_trials: 1 << 30,
        };
        let at = |threads: usize, budget: Budget| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let stop = Cancel::new();
            pool.install(|| run(&D6, 9, budget, &widest, &Hidden, &stop, None).unwrap())
        };
        let h = at(2, budget);
        assert_eq!(h.trials, 172_032);
        // The progress it reports ends at its total, though a short chunk is rolled twice.
        #[derive(Default)]
        struct Seen {
            total: std::sync::atomic::AtomicU64,
            done: std::sync::atomic::AtomicU64,
        }
        impl Progress for Seen {
            fn set_total(&self, total: u64) {
                self.total
                    .store(total, std::sync::atomic::Ordering::Relaxed);
            }
            fn advance(&self, trials: u64) {
                self.done
                    .fetch_add(trials, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let seen = Seen::default();
        run(&D6, 9, budget, &widest, &seen, &Cancel::new(), None).unwrap();
        let (total, done) = (seen.total.into_inner(), seen.done.into_inner());
        assert_eq!(done, total);
        assert_eq!(total, 172_032 + (151_552 - 131_072));
        assert_eq!(h.counts.iter().sum::<u64>(), 172_032);
        assert_eq!(h, at(1, Budget::Trials(172_032)));
        assert_eq!(h, at(1, budget));
        assert_eq!(h, at(3, Budget::Trials(172_032)));
    }

    /// A D6 with a key, counting the chunks it rolls.
    struct Keyed<'a> {
        chunks: &'a std::sync::atomic::AtomicU64,
        key: u8,
    }
    impl Trial for Keyed<'_> {
        fn states(&self) -> usize {
            6
        }
        fn sample(&self, rng: &mut Rng) -> usize {
            roll_die(rng, 6) as usize - 1
        }
        fn run_chunk(&self, rng: &mut Rng, trials: u64, hist: &mut [u64], _stop: &Cancel) {
            self.chunks
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            for _ in 0..trials {
                hist[self.sample(rng)] += 1;
            }
        }
        fn key(&self) -> Option<Vec<u8>> {
            Some(vec![self.key])
        }
    }

    #[test]
    fn a_memo_rolls_the_same_trial_once_and_gives_its_counts() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let chunks = AtomicU64::new(0);
        let memo = Memo::new();
        let stop = Cancel::new();
        let budget = Budget::Precision {
            eps: 0.002,
            max_trials: 1 << 30,
        };
        let widest = |h: &Histogram| 1.0 / (h.trials as f64).sqrt() / 2.0;
        let go = |key: u8, seed: u64, memo: Option<&Memo>| {
            let t = Keyed {
                chunks: &chunks,
                key,
            };
            let k = Sampler::key(&t).unwrap();
            let shared = memo.map(|memo| Shared { memo, key: &k });
            run(&t, seed, budget, &widest, &Hidden, &stop, shared).unwrap()
        };
        let alone = go(1, 5, None);
        let rolled = chunks.swap(0, Ordering::Relaxed);
        assert!(rolled >= 2);
        assert_eq!(go(1, 5, Some(&memo)), alone);
        assert_eq!(chunks.swap(0, Ordering::Relaxed), rolled);
        // The same trial and seed again: nothing rolled, the same counts.
        assert_eq!(go(1, 5, Some(&memo)), alone);
        assert_eq!(chunks.swap(0, Ordering::Relaxed), 0);
        // Another seed, or another trial, is rolled.
        assert_ne!(go(1, 6, Some(&memo)), alone);
        assert_eq!(chunks.swap(0, Ordering::Relaxed), rolled);
        go(2, 5, Some(&memo));
        assert_eq!(chunks.swap(0, Ordering::Relaxed), rolled);
    }

    /// A pilot's trials are rolled apart from the run: the same counts as a run with
    /// none, for any thread count; it doubles while the sink asks, and never counts.
    #[test]
    fn a_pilot_is_timed_apart_and_leaves_the_counts_as_they_were() {
        use std::sync::Mutex;
        struct Pilots(Mutex<Vec<(u64, usize)>>);
        impl Progress for Pilots {
            fn pilot(&self) -> bool {
                true
            }
            fn piloted(&self, trials: u64, workers: usize) -> bool {
                let mut seen = self.0.lock().unwrap();
                seen.push((trials, workers));
                seen.len() < 4
            }
        }
        let budget = Budget::Trials(CHUNK * 3 + 7);
        for threads in [1, 3] {
            let sink = Pilots(Mutex::new(Vec::new()));
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let h = pool
                .install(|| run(&D6, 42, budget, &|_| 0.0, &sink, &Cancel::new(), None).unwrap());
            assert_eq!(h, go(threads, budget));
            assert_eq!(
                sink.0.into_inner().unwrap(),
                vec![(1, threads), (2, threads), (4, threads), (8, threads)]
            );
        }
        // A short run is not piloted.
        let sink = Pilots(Mutex::new(Vec::new()));
        run(
            &D6,
            1,
            Budget::Trials(999),
            &|_| 0.0,
            &sink,
            &Cancel::new(),
            None,
        )
        .unwrap();
        assert!(sink.0.into_inner().unwrap().is_empty());
    }

    /// A shard tells its sink how many trials it will roll (the shards' totals add up to
    /// the run's, the last chunk short), and is piloted as a whole run is.
    #[test]
    fn a_shard_says_its_own_trials_and_is_piloted() {
        use std::sync::Mutex;
        #[derive(Default)]
        struct Seen(Mutex<(Vec<u64>, usize)>);
        impl Progress for Seen {
            fn set_total(&self, total: u64) {
                self.0.lock().unwrap().0.push(total);
            }
            fn pilot(&self) -> bool {
                true
            }
            fn piloted(&self, _: u64, _: usize) -> bool {
                self.0.lock().unwrap().1 += 1;
                false
            }
        }
        let trials = CHUNK * 5 + 7;
        let mut all = 0;
        for k in 1..=3 {
            let sink = Seen::default();
            run_shard(&D6, 1, trials, (k, 3), &sink, &Cancel::new()).unwrap();
            let (totals, pilots) = sink.0.into_inner().unwrap();
            assert_eq!(totals.len(), 1);
            assert_eq!(pilots, 1);
            all += totals[0];
        }
        assert_eq!(all, trials);
    }

    #[test]
    fn precision_stops_at_the_cap() {
        let h = go(
            2,
            Budget::Precision {
                eps: 1e-9,
                max_trials: 3_000_000,
            },
        );
        assert_eq!(h.trials, 3_000_000);
    }

    #[test]
    fn interrupted_run_reports_it() {
        let stop = Cancel::new();
        stop.cancel();
        let r = run(&D6, 1, Budget::Trials(1000), &|_| 0.0, &Hidden, &stop, None);
        assert!(matches!(r, Err(SimError::Interrupted)));
    }
}
