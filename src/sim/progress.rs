//! A progress bar on stderr that appears only for runs longer than about a second, and
//! never when stderr is not a terminal or the user asked for quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct Progress {
    enabled: bool,
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
        Progress {
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
        if !self.enabled || self.start.elapsed() < SHOW_AFTER {
            return;
        }
        let bar = self.bar.get_or_init(|| {
            let bar = ProgressBar::with_draw_target(
                Some(self.total.load(Ordering::Relaxed)),
                ProgressDrawTarget::stderr(),
            );
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
        bar.set_message(format!("({:.1}M/s, {:.0}s left)", rate / 1e6, left.ceil()));
        bar.set_position(done);
    }

    pub fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}
