//! A progress bar on stderr that appears only for runs longer than about a second, and
//! never when stderr is not a terminal or the user asked for quiet.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A run of many scenarios (`rollsim`, `rollsim run`): when it started, how many
/// scenarios it has and how many are done, so that each bar says "scenario k of N" and
/// how long the whole run has left.
struct Batch {
    start: Instant,
    total: usize,
    done: usize,
}

static BATCH: std::sync::Mutex<Option<Batch>> = std::sync::Mutex::new(None);

/// `ROLLSIM_PROGRESS=lines`: a plain line per scenario even where stderr is not a
/// terminal (logs, tests).
fn lines_forced() -> bool {
    std::env::var("ROLLSIM_PROGRESS").is_ok_and(|v| v == "lines")
}

/// Start counting a run of `total` scenarios.
pub fn begin_batch(total: usize) {
    if let Ok(mut b) = BATCH.lock() {
        *b = Some(Batch {
            start: Instant::now(),
            total,
            done: 0,
        });
    }
}

/// Whether a run of scenarios is being counted (a config inside `rollsim`'s run of all).
pub fn batch_active() -> bool {
    BATCH.lock().map(|b| b.is_some()).unwrap_or(false)
}

/// The run of scenarios is over.
pub fn end_batch() {
    if let Ok(mut b) = BATCH.lock() {
        *b = None;
    }
}

/// "scenario k of N, about T left in all", from the average time per scenario so far.
pub fn batch_status(k: usize, total: usize, elapsed: f64) -> String {
    let per = if k > 1 { elapsed / (k - 1) as f64 } else { 0.0 };
    let left = per * (total + 1 - k) as f64;
    if k > 1 {
        format!(
            "scenario {k} of {total}, about {} left in all",
            seconds(left)
        )
    } else {
        format!("scenario {k} of {total}")
    }
}

/// Seconds as a designer reads them: `45s`, `3 min 5s`.
fn seconds(s: f64) -> String {
    let s = s.ceil() as u64;
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{} min {}s", s / 60, s % 60)
    }
}

pub struct Progress {
    enabled: bool,
    /// This scenario's place in a run of many: (k, N, seconds since the run began).
    batch: Option<(usize, usize, f64)>,
    label: String,
    start: Instant,
    done: AtomicU64,
    total: AtomicU64,
    bar: OnceLock<ProgressBar>,
}

impl Progress {
    /// A bar for `label` that shows itself if the run outlasts a second, stderr is a
    /// terminal and `quiet` is off.
    pub fn new(label: &str, quiet: bool) -> Self {
        // Scenarios may start side by side: the line is printed under the lock, so
        // "scenario k" lines come in the order of k.
        let batch = (!quiet && !label.is_empty())
            .then(|| BATCH.lock().ok())
            .flatten()
            .and_then(|mut b| {
                b.as_mut().map(|b| {
                    b.done += 1;
                    let at = (b.done, b.total, b.start.elapsed().as_secs_f64());
                    if lines_forced() {
                        eprintln!("{label}: {}", batch_status(at.0, at.1, at.2));
                    }
                    at
                })
            });
        Progress {
            batch,
            enabled: !quiet && std::io::stderr().is_terminal(),
            label: label.to_string(),
            start: Instant::now(),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            bar: OnceLock::new(),
        }
    }

    pub fn hidden() -> Self {
        Self::new("", true)
    }

    pub fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        if let Some(bar) = self.bar.get() {
            bar.set_length(total);
        }
    }

    /// Called by workers after each chunk.
    pub fn advance(&self, trials: u64) {
        let done = self.done.fetch_add(trials, Ordering::Relaxed) + trials;
        // In a run of many scenarios every scenario shows its line: the terminal
        // is never blank; a single scenario waits a second first.
        let wait = if self.batch.is_some() {
            Duration::ZERO
        } else {
            SHOW_AFTER
        };
        if !self.enabled || self.start.elapsed() < wait {
            return;
        }
        let bar = self.bar.get_or_init(|| {
            // One set of lines for every bar: scenarios running side by side each
            // keep a line of their own.
            static BARS: OnceLock<MultiProgress> = OnceLock::new();
            let bars =
                BARS.get_or_init(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
            let bar = bars.add(ProgressBar::new(self.total.load(Ordering::Relaxed)));
            let style = ProgressStyle::with_template(
                "{prefix:>24} [{bar:30}] {human_pos}/{human_len} trials {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_prefix(self.label.clone());
            bar
        });
        // Rate and ETA from the run's own start: indicatif's estimator would only see
        // the time since the bar appeared.
        let secs = self.start.elapsed().as_secs_f64();
        let rate = done as f64 / secs;
        let left = self.total.load(Ordering::Relaxed).saturating_sub(done) as f64 / rate;
        let across = match self.batch {
            Some((k, n, t)) => format!("; {}", batch_status(k, n, t)),
            None => String::new(),
        };
        bar.set_message(format!(
            "({:.1}M/s, {:.0}s left{across})",
            rate / 1e6,
            left.ceil()
        ));
        bar.set_position(done);
    }

    pub fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::batch_status;

    #[test]
    fn the_status_counts_scenarios_and_estimates_the_rest() {
        assert_eq!(batch_status(1, 203, 0.0), "scenario 1 of 203");
        // 39 scenarios in 78 s: 2 s each, 164 to go (this one included).
        assert_eq!(
            batch_status(40, 203, 78.0),
            "scenario 40 of 203, about 5 min 28s left in all"
        );
        assert_eq!(
            batch_status(3, 4, 10.0),
            "scenario 3 of 4, about 10s left in all"
        );
    }
}
