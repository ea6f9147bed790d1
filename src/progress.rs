//! A progress bar on stderr that appears only for runs longer than about a second, and
//! never when stderr is not a terminal or the user asked for quiet.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rollsim_core::sim::Reporter;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Work this long or longer is announced with its estimate (issue #58: a run of `-n
/// 1e15` or a 3 ms trial at the default count started without a word).
const LONG: Duration = Duration::from_secs(60);

/// The estimate is made from the pace between these times after the start: long enough
/// for the pace to settle, early enough to be said up front.
const SAMPLE: (Duration, Duration) = (Duration::from_millis(500), Duration::from_secs(5));

/// A run of many scenarios (`rollsim`, `rollsim run`): when it started, how many
/// scenarios it has and how many are done, so that each bar says "scenario k of N" and
/// how long the whole run has left.
#[derive(Debug)]
struct Batch {
    start: Instant,
    total: usize,
    done: usize,
}

/// `ROLLSIM_PROGRESS=lines`: a plain line per scenario even where stderr is not a
/// terminal (logs, tests).
fn lines_forced() -> bool {
    std::env::var("ROLLSIM_PROGRESS").is_ok_and(|v| v == "lines")
}

/// The progress bars of one command: a value the command makes and hands to the core
/// (as its [`Reporter`]), so two runs in one process never share a count.
pub struct Bars {
    quiet: bool,
    /// Bars for items only (a balance command): its variants' runs are many and short,
    /// and show no bar of their own.
    items_only: bool,
    batch: Option<Mutex<Batch>>,
    /// One set of lines for every bar: scenarios running side by side each keep a line.
    lines: MultiProgress,
}

impl Bars {
    /// Bars for scenarios one at a time (each waits a second before it shows).
    pub fn new(quiet: bool) -> Self {
        Bars {
            quiet,
            items_only: false,
            batch: None,
            lines: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
        }
    }

    /// Bars for a run of `total` scenarios: each says which it is of them all.
    pub fn batch(quiet: bool, total: usize) -> Self {
        Bars {
            batch: Some(Mutex::new(Batch {
                start: Instant::now(),
                total,
                done: 0,
            })),
            ..Bars::new(quiet)
        }
    }

    /// Bars for a balance command: one for each list of items it works through (the
    /// points of a sweep, the variants of a search), none for the runs inside them.
    pub fn items(quiet: bool) -> Self {
        Bars {
            items_only: true,
            ..Bars::new(quiet)
        }
    }

    /// Whether this counts a run of many scenarios.
    pub fn is_batch(&self) -> bool {
        self.batch.is_some()
    }
}

impl Reporter for Bars {
    fn scenario(&self, label: &str) -> Box<dyn rollsim_core::sim::Progress + '_> {
        if self.items_only {
            return Box::new(rollsim_core::sim::Hidden);
        }
        Box::new(Progress::new(label, self, Unit::Trials))
    }

    fn items(&self, label: &str) -> Box<dyn rollsim_core::sim::Progress + '_> {
        if !self.items_only {
            return Box::new(rollsim_core::sim::Hidden);
        }
        Box::new(Progress::new(label, self, Unit::Items))
    }
}

/// What a bar counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    /// A scenario's trials.
    Trials,
    /// A balance command's points or variants, each a run or an exact pass of its own.
    Items,
}

impl Unit {
    fn word(self) -> &'static str {
        match self {
            Unit::Trials => "trials",
            Unit::Items => "done",
        }
    }

    /// What to do about a long run, besides Ctrl-C.
    fn advice(self) -> &'static str {
        match self {
            Unit::Trials => {
                "-n asks fewer trials, --precision stops when the numbers are precise enough"
            }
            Unit::Items => "fewer values to step through, or fewer trials with -n, take less",
        }
    }
}

/// How long a pilot may take before the estimate is said from what it has: long enough
/// that a thread put aside for a few milliseconds (the main job's scenarios share two
/// cores with its charts) or a first trial's one-off setup does not pass for the pace
/// (issue #71: 20 ms once made a 5-second job "29 min")...
const PILOT_SETTLE: Duration = Duration::from_millis(250);
/// ... and how many trials are enough to say it.
const PILOT_ENOUGH: u64 = 4096;

/// "scenario k of N, about T left in all", from the average time per scenario so far,
/// once a quarter of them are done: the first are the biggest (a run computes its
/// largest configs first), and two of them once made a 7-second job "41s".
pub fn batch_status(k: usize, total: usize, elapsed: f64) -> String {
    let per = if k > 1 { elapsed / (k - 1) as f64 } else { 0.0 };
    let left = per * (total + 1 - k) as f64;
    if k > 1 && (k - 1) * 4 >= total {
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
    let s = s.ceil().min(u64::MAX as f64) as u64;
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{} min {}s", s / 60, s % 60)
    } else if s < 2 * 86_400 {
        format!("{} h {} min", s / 3600, s % 3600 / 60)
    } else {
        format!("{} days", s / 86_400)
    }
}

/// One scenario's bar.
pub struct Progress<'b> {
    bars: &'b Bars,
    enabled: bool,
    /// This scenario's place in a run of many: (k, N, seconds since the run began).
    batch: Option<(usize, usize, f64)>,
    label: String,
    start: Instant,
    done: AtomicU64,
    total: AtomicU64,
    bar: OnceLock<ProgressBar>,
    /// The estimate of a long run said.
    warned: std::sync::atomic::AtomicBool,
    unit: Unit,
    /// When the pilot began, and its trials so far.
    pilot: OnceLock<Instant>,
    piloted: AtomicU64,
}

impl<'b> Progress<'b> {
    /// A bar for `label` that shows itself if the run outlasts a second, stderr is a
    /// terminal and the bars are not quiet.
    fn new(label: &str, bars: &'b Bars, unit: Unit) -> Self {
        let quiet = bars.quiet;
        // Scenarios may start side by side: the line is printed under the lock, so
        // "scenario k" lines come in the order of k.
        let batch = match &bars.batch {
            Some(b) if !quiet && !label.is_empty() => b.lock().ok().map(|mut b| {
                b.done += 1;
                let at = (b.done, b.total, b.start.elapsed().as_secs_f64());
                if lines_forced() {
                    eprintln!("{label}: {}", batch_status(at.0, at.1, at.2));
                }
                at
            }),
            _ => None,
        };
        Progress {
            bars,
            batch,
            enabled: !quiet && std::io::stderr().is_terminal(),
            label: label.to_string(),
            start: Instant::now(),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            bar: OnceLock::new(),
            warned: std::sync::atomic::AtomicBool::new(false),
            unit,
            pilot: OnceLock::new(),
            piloted: AtomicU64::new(0),
        }
    }
}

impl Progress<'_> {
    /// Once, early in a run whose pace says it will take a minute or more: how long,
    /// and how to stop it (on stderr, quiet or not: a warning, not a progress bar).
    fn warn_if_long(&self, done: u64) {
        let at = self.start.elapsed();
        if at < SAMPLE.0 || at > SAMPLE.1 || self.warned.load(Ordering::Relaxed) || done == 0 {
            return;
        }
        self.warn_at(done as f64 / at.as_secs_f64());
    }

    /// The warning, if `rate` (per second, every thread together) makes the run a
    /// minute or longer and it has not been said.
    fn warn_at(&self, rate: f64) {
        let total = self.total.load(Ordering::Relaxed);
        let all = total as f64 / rate;
        if total == 0 || all < LONG.as_secs_f64() || self.warned.swap(true, Ordering::Relaxed) {
            return;
        }
        // "roll: 1000000 trials at ...", "40000 sweep points at ..." (an item list's
        // label is its plural noun).
        let (who, noun) = match (self.unit, self.label.is_empty()) {
            (Unit::Trials, true) => (String::new(), "trials"),
            (Unit::Trials, false) => (format!("{}: ", self.label), "trials"),
            (Unit::Items, true) => (String::new(), "items"),
            (Unit::Items, false) => (String::new(), self.label.as_str()),
        };
        let line = format!(
            "{who}{total} {noun} at about {} a second will take about {}; Ctrl-C stops it and writes nothing ({})",
            rate_words(rate),
            seconds(all),
            self.unit.advice()
        );
        match self.bar.get() {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

/// A rate as a designer reads it: whole numbers, or a fraction below one a second.
fn rate_words(rate: f64) -> String {
    if rate >= 10.0 {
        format!("{}", rate.round() as u64)
    } else {
        format!("{rate:.2}")
    }
}

impl rollsim_core::sim::Progress for Progress<'_> {
    fn set_total(&self, total: u64) {
        self.total.store(total, Ordering::Relaxed);
        if let Some(bar) = self.bar.get() {
            bar.set_length(total);
        }
    }

    /// Called by workers after each chunk.
    fn advance(&self, trials: u64) {
        let done = self.done.fetch_add(trials, Ordering::Relaxed) + trials;
        self.warn_if_long(done);
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
            let bar = self
                .bars
                .lines
                .add(ProgressBar::new(self.total.load(Ordering::Relaxed)));
            let style = ProgressStyle::with_template(&format!(
                "{{prefix:>24}} [{{bar:30}}] {{human_pos}}/{{human_len}} {} {{msg}}",
                self.unit.word()
            ))
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
        let pace = match self.unit {
            Unit::Trials => format!("{:.1}M/s", rate / 1e6),
            Unit::Items => format!("{}/s", rate_words(rate)),
        };
        bar.set_message(format!("({pace}, {:.0}s left{across})", left.ceil()));
        bar.set_position(done);
    }

    /// Piloted where the run is long enough for its estimate to matter and nobody has
    /// said it yet: one trial, twice as many again while it is short and its pace says
    /// a quarter of a minute or more.
    fn pilot(&self) -> bool {
        if self.warned.load(Ordering::Relaxed) {
            return false;
        }
        self.pilot.get_or_init(Instant::now);
        true
    }

    fn piloted(&self, trials: u64, workers: usize) -> bool {
        let Some(start) = self.pilot.get() else {
            return false;
        };
        let done = self.piloted.fetch_add(trials, Ordering::Relaxed) + trials;
        let at = start.elapsed().as_secs_f64().max(1e-9);
        let rate = done as f64 / at * workers.max(1) as f64;
        let all = self.total.load(Ordering::Relaxed) as f64 / rate;
        if all < LONG.as_secs_f64() / 4.0 {
            return false;
        }
        if at < PILOT_SETTLE.as_secs_f64() && done < PILOT_ENOUGH {
            return true;
        }
        self.warn_at(rate);
        false
    }

    fn finish(&self) {
        self.warned.store(true, Ordering::Relaxed);
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
        // Before a quarter is done, no estimate: the first scenarios are the biggest.
        assert_eq!(batch_status(40, 203, 78.0), "scenario 40 of 203");
        // 59 scenarios in 118 s: 2 s each, 144 to go (this one included).
        assert_eq!(
            batch_status(60, 203, 118.0),
            "scenario 60 of 203, about 4 min 48s left in all"
        );
        assert_eq!(
            batch_status(3, 4, 10.0),
            "scenario 3 of 4, about 10s left in all"
        );
        assert_eq!(super::seconds(3.0 * 3600.0 + 125.0), "3 h 2 min");
        assert_eq!(super::seconds(1e9), "11574 days");
    }
}
