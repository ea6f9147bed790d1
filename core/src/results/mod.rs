//! The result model: what a run and a balance command compute, before any table, chart
//! or page shows it.
//!
//! `summarize` is the one place where counts become probabilities, intervals and
//! agreement scores; the front ends turn these values into files and text.

pub mod analysis;

pub use crate::fraction::Fraction;
use crate::model::{Compiled, Metric, Scale};
use crate::sim::Histogram;
use crate::stats::{mean_ci, mean_sd, wilson, z95, z_mean, z_proportion};
use serde::Serialize;

/// Probability of one value of one metric.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ValueRow {
    /// The value as the metric labels it (`3`, `win`).
    pub label: String,
    /// The number it stands for, in a numeric metric: what a chart spaces and groups
    /// its bars by (the tables print `label`).
    #[serde(skip)]
    pub value: Option<i64>,
    /// Trials that ended with this value.
    pub count: u64,
    /// The Monte Carlo estimate, `count / trials`.
    pub probability: f64,
    /// Lower end of its 95% Wilson interval.
    pub ci_low: f64,
    /// Upper end of its 95% Wilson interval.
    pub ci_high: f64,
    /// The exact probability, where the rules module computes one.
    pub exact: Option<f64>,
    /// `exact` as the fraction it is, where the exact computation counted it.
    pub exact_fraction: Option<Fraction>,
    /// Standard errors between the Monte Carlo estimate and the exact value.
    pub z: Option<f64>,
}

impl ValueRow {
    /// Whether the value cannot happen: its exact probability is zero (by its fraction
    /// where it has one: a float may underflow to zero for a value that can happen, the
    /// lowest sums of 1000d6) and no trial ended on it.
    pub fn impossible(&self) -> bool {
        self.exactly_zero() && self.count == 0
    }

    /// Whether its exact probability is zero, by its fraction where it has one (a float
    /// underflows for the lowest sums of 450d6, which can happen).
    pub fn exactly_zero(&self) -> bool {
        match &self.exact_fraction {
            Some(f) => f.is_zero(),
            None => self.exact == Some(0.0),
        }
    }
}

impl MetricResult {
    /// Whether the data files leave out its values that cannot happen: a numeric or long
    /// metric's do (Farkle's impossible scores between 0 and 3000); a few named outcomes
    /// keep theirs ("unfinished: 0" says something).
    pub fn sparse(&self) -> bool {
        self.numeric || self.rows.len() > LONG_METRIC
    }

    /// The rows every table lists, the data files, the Markdown report and the terminal
    /// alike: all but, in a sparse metric, the values that cannot happen.
    pub fn listed(&self) -> impl Iterator<Item = &ValueRow> + '_ {
        let sparse = self.sparse();
        self.rows
            .iter()
            .filter(move |r| !(sparse && r.impossible()))
    }
}

/// One metric of a run: every value's probability and, for a numeric metric, the mean.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MetricResult {
    /// The metric's name ([`crate::model::Metric::name`]).
    pub name: String,
    /// What the value means, for chart captions.
    pub description: String,
    /// Whether values are numbers (with a mean and an "at least" chart).
    pub numeric: bool,
    /// One per value, in the metric's order.
    pub rows: Vec<ValueRow>,
    /// The Monte Carlo mean (numeric metrics only).
    pub mean: Option<f64>,
    /// The mean's 95% confidence interval, (low, high).
    pub mean_ci: Option<(f64, f64)>,
    /// The exact mean, where there is an exact distribution.
    pub exact_mean: Option<f64>,
    /// `exact_mean` as a fraction, summed from the values' own fractions.
    pub exact_mean_fraction: Option<Fraction>,
    /// Standard errors between the Monte Carlo mean and the exact mean.
    pub mean_z: Option<f64>,
    /// Whether the metric gets charts of its own.
    #[serde(skip)]
    pub chart: bool,
    /// The largest |z| over this metric's values.
    pub max_abs_z: Option<f64>,
}

impl MetricResult {
    /// P(value >= row k) per row, from counts; with the exact tail where known. With
    /// no trials (`--exact-only`) the estimate is the exact tail, as a row's is (it was
    /// 0 / 0: a chart could not tell its small tail and left none off).
    pub fn at_least(&self, trials: u64) -> Vec<(f64, (f64, f64), Option<f64>)> {
        let mut out = Vec::with_capacity(self.rows.len());
        let mut count = 0u64;
        let mut exact = Some(0.0);
        for r in self.rows.iter().rev() {
            count += r.count;
            exact = exact.zip(r.exact).map(|(a, b)| a + b);
            let exact = exact.map(|e: f64| e.min(1.0));
            let (p, ci) = match exact {
                Some(e) if trials == 0 => (e, (e, e)),
                _ => (count as f64 / trials as f64, wilson(count, trials, z95())),
            };
            out.push((p, ci, exact));
        }
        out.reverse();
        out
    }
}

/// The one-line summary's event, measured: see [`crate::model::Headline`].
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HeadlineResult {
    /// How the summary names it, e.g. `P(slammer wins)`.
    pub label: String,
    /// The metric the headline reads (its chart is the scenario's headline chart).
    pub metric: String,
    /// The Monte Carlo estimate.
    pub probability: f64,
    /// Lower end of its 95% Wilson interval.
    pub ci_low: f64,
    /// Upper end of its 95% Wilson interval.
    pub ci_high: f64,
    /// The exact probability, where known.
    pub exact: Option<f64>,
    /// `exact` as a fraction: the sum of its values' fractions.
    pub exact_fraction: Option<Fraction>,
}

/// Everything one scenario's run measured, ready for tables, charts and JSON.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ScenarioResult {
    /// The config it came from, by its file stem (the CLI) or name (the live page).
    pub config: String,
    /// The config's system name.
    pub system: String,
    /// The scenario's name.
    pub name: String,
    /// What it models, in the designer's words.
    pub description: String,
    /// Monte Carlo trials run (0 for an exact-only result).
    pub trials: u64,
    /// The seed the trials were drawn from.
    pub seed: u64,
    /// One per metric, in the scenario's order.
    pub metrics: Vec<MetricResult>,
    /// The summary's event.
    pub headline: HeadlineResult,
    /// Exact probability that an exploding pool reached its top bucket, or that a
    /// duel was stopped unfinished.
    pub capped_mass: f64,
    /// What `capped_mass` is, in words.
    pub capped_note: String,
    /// Scenario-level charts (beside one per metric).
    #[serde(skip)]
    pub charts: Vec<crate::model::Chart>,
    /// The profile this scenario is a point of.
    #[serde(skip)]
    pub group: Option<crate::model::Group>,
    /// What the reader must know about this run (a precision target not reached).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The choices the rolls are played by (see `Compiled::policy`).
    #[serde(skip)]
    pub policy: Option<String>,
}

impl ScenarioResult {
    /// One more thing the reader must know of this run, after what its note says.
    pub fn add_note(&mut self, note: String) {
        self.note = Some(match self.note.take() {
            Some(w) => format!("{w}; {note}"),
            None => note,
        });
    }

    /// The largest |z| over all metrics (None without an exact distribution).
    pub fn max_abs_z(&self) -> Option<f64> {
        self.metrics
            .iter()
            .filter_map(|m| m.max_abs_z)
            .fold(None, |a: Option<f64>, z| Some(a.map_or(z, |a| a.max(z))))
    }
}

/// An exact probability as printed: within [0, 1] and without float rounding noise
/// (`1.0000000000000002` is 1), kept to 13 significant digits.
pub fn tidy_probability(p: f64) -> f64 {
    // `+ 0.0` turns a negative zero (an empty sum is -0.0) into the zero it means.
    tidy(p.clamp(0.0, 1.0) + 0.0)
}

/// An exact value to 13 significant digits: sums of many small terms end in noise.
pub fn tidy(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    thirteen_digits(x).unwrap_or_else(|| tidy_written(x))
}

/// Exact powers of ten (every one to 10^22 is a double).
const TENS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// [`tidy`] by arithmetic, where it is sure to give what writing the digits and reading
/// them back gives (a table tidies every value; writing each was most of a long
/// table's summary). `x` times `10^k` lands in [10^12, 10^13): by one exact power, the
/// product rounded once (within 2^-10 there); past 10^22, by several, each product
/// rounded once (within `c` times 2^-10 for `c` of them, a hundredth at most). Away from
/// a half by more than that, it rounds to the 13 digits written. Those digits over an
/// exact `10^k` are one division rounded once, the double nearest them, as reading them
/// is; over a larger power they are read as written (`{digits}e{-k}`), which is quick
/// for 13 digits. None near a half, or for a number below the normal doubles.
fn thirteen_digits(x: f64) -> Option<f64> {
    let a = x.abs();
    if a < f64::MIN_POSITIVE {
        return None;
    }
    let mut k = 12 - a.log10().floor() as i32;
    for _ in 0..3 {
        // 10^k as exact powers, the largest first.
        let (mut m, mut left, mut steps) = (a, k.unsigned_abs() as usize, 0u32);
        while left > 0 {
            let ten = TENS[left.min(22)];
            m = if k >= 0 { m * ten } else { m / ten };
            left -= left.min(22);
            steps += 1;
        }
        if m >= 1e13 {
            k -= 1;
        } else if m < 1e12 {
            k += 1;
        } else {
            if (m - m.floor() - 0.5).abs() < 0.01 * f64::from(steps.max(1)) {
                return None;
            }
            let n = m.round();
            let back = match TENS.get(k.unsigned_abs() as usize) {
                Some(ten) if k >= 0 => n / ten,
                Some(ten) => n * ten,
                None => read_back(n as u64, -k)?,
            };
            return Some(back.copysign(x));
        }
    }
    None
}

/// The double nearest `n · 10^e`, read as written (`{n}e{e}`, its digits put down one by
/// one: the formatter's machinery was most of the time of a value this small).
fn read_back(n: u64, e: i32) -> Option<f64> {
    let (mut b, mut mantissa, mut exponent) = ([0u8; 44], [0u8; 20], [0u8; 20]);
    let mantissa = crate::text::digits(n, &mut mantissa);
    let exponent = crate::text::digits(u64::from(e.unsigned_abs()), &mut exponent);
    let mut at = 0;
    for part in [mantissa, b"e", if e < 0 { b"-" } else { b"" }, exponent] {
        b[at..at + part.len()].copy_from_slice(part);
        at += part.len();
    }
    std::str::from_utf8(&b[..at]).ok()?.parse().ok()
}

/// Text written into a buffer on the stack: a table tidies every value, and a `String`
/// each was an allocation and a free per value.
struct Buf {
    b: [u8; 40],
    n: usize,
}

impl Default for Buf {
    fn default() -> Self {
        Buf { b: [0; 40], n: 0 }
    }
}

impl Buf {
    fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.b[..self.n]).ok()
    }
}

impl std::fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.n + s.len();
        self.b
            .get_mut(self.n..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

/// [`tidy`] as the digits are written (`{:.12e}`) and read back.
fn tidy_written(x: f64) -> f64 {
    let mut buf = Buf::default();
    if std::fmt::Write::write_fmt(&mut buf, format_args!("{x:.12e}")).is_err() {
        return x;
    }
    buf.text().and_then(|t| t.parse().ok()).unwrap_or(x)
}

/// The mean of a numeric metric whose value `v` is `scale.at(v)`, summed exactly from
/// the values' fractions. Not [`fraction`] of the float mean: that mean's rounding grows
/// with its size (one ulp of 60 is 7e-15), while `fraction` allows 1e-13 of the part
/// after the point, down to 1e-16.
pub fn mean_fraction(fractions: &[Fraction], scale: &Scale) -> Fraction {
    Fraction::sum(fractions.iter().enumerate().map(|(v, f)| (f, scale.at(v))))
}

/// One metric's exact fractions, where the scenario's exact computation counted them
/// (none is read off a float).
fn metric_fractions(c: &Compiled, m: &Metric) -> Option<Vec<Fraction>> {
    c.metric_fractions(m)
}

/// Metrics with more values than this lose their zero tail like numeric ones.
pub const LONG_METRIC: usize = 25;

/// Exact values below this are shown as zero and trailing ones are trimmed.
const NEGLIGIBLE: f64 = 1e-15;

/// The rows a table on screen shows: all but a trailing tail that no trial reached and
/// whose exact probabilities are each below 1e-15, and a line that says what was left
/// out ("values 88-100 left out: together 5.6e-15"), if anything was.
/// As [`summarize`] trims zeros, only numeric and long metrics lose a tail: a zero among
/// a few named outcomes says something.
pub fn shown_rows(m: &MetricResult) -> (&[ValueRow], Option<String>) {
    let rows = &m.rows;
    let mut end = rows.len();
    let trims = m.numeric || rows.len() > LONG_METRIC;
    while trims
        && end > 1
        && rows[end - 1].count == 0
        && rows[end - 1].exact.unwrap_or(0.0) < NEGLIGIBLE
    {
        end -= 1;
    }
    let left = &rows[end..];
    let note = match left {
        [] => None,
        [one] => Some(format!(
            "value {} left out: {:.1e}",
            one.label,
            one.exact.unwrap_or(0.0)
        )),
        [first, .., last] => Some(format!(
            "values {}-{} left out: together {:.1e}",
            first.label,
            last.label,
            left.iter().filter_map(|r| r.exact).sum::<f64>()
        )),
    };
    (&rows[..end], note)
}

/// Turn a histogram over states into per-metric distributions with CIs and agreement.
pub fn summarize(
    c: &Compiled,
    hist: &Histogram,
    seed: u64,
    config: &str,
    system: &str,
) -> ScenarioResult {
    summarize_with(c, hist, seed, config, system, true)
}

/// [`summarize`] without the fractions, for a reader of its floats only (a balance
/// matrix's cell): a rules module's fractions are counted in whole numbers when first
/// asked for, and a sweep of a hundred cells would count every one for nothing.
pub fn summarize_floats(c: &Compiled, hist: &Histogram, seed: u64) -> ScenarioResult {
    summarize_with(c, hist, seed, "", "", false)
}

fn summarize_with(
    c: &Compiled,
    hist: &Histogram,
    seed: u64,
    config: &str,
    system: &str,
    fractions: bool,
) -> ScenarioResult {
    let n = hist.trials;
    let z = z95();
    // The headline's fraction, from its metric's (summed once per metric).
    let mut headline_fraction = None;
    let metrics: Vec<MetricResult> = c
        .metrics
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            let fractions = if fractions {
                metric_fractions(c, m)
            } else {
                None
            };
            if mi == c.headline.metric {
                headline_fraction = Some(fractions.as_ref().and_then(|f| {
                    let values = &c.headline.values;
                    if values.iter().any(|&v| v >= f.len()) {
                        return None;
                    }
                    let mut on = vec![false; f.len()];
                    values.iter().for_each(|&v| on[v] = true);
                    c.metric_sum(m, |v| on[v] as i64)
                        .or_else(|| Some(Fraction::sum(values.iter().map(|&v| (&f[v], 1)))))
                }));
            }
            metric_result(c, m, hist, fractions)
        })
        .collect();
    let h = &c.headline;
    let counts = c.metrics[h.metric].project_counts(&hist.counts);
    let k: u64 = h.values.iter().map(|&v| counts[v]).sum();
    let (lo, hi) = wilson(k, n, z);
    let exact = c.headline_exact().map(tidy_probability);
    let exact_fraction = headline_fraction.flatten();
    ScenarioResult {
        config: config.into(),
        system: system.into(),
        name: c.name.clone(),
        description: c.description.clone(),
        trials: n,
        seed,
        metrics,
        headline: HeadlineResult {
            label: h.label.clone(),
            metric: c.metrics[h.metric].name.clone(),
            probability: k as f64 / n as f64,
            ci_low: lo,
            ci_high: hi,
            exact,
            exact_fraction,
        },
        capped_mass: c.capped_mass,
        capped_note: c
            .capped_note
            .clone()
            .unwrap_or_else(|| "exact mass in the capped top bucket".into()),
        charts: c.charts.clone(),
        group: c.group.clone(),
        note: c.warning.clone(),
        policy: c.policy.clone(),
    }
}

impl ScenarioResult {
    /// What a limit cut and how much (`...: 9.9996e-1`), where it cut any: the words
    /// the command line's summary, the notes and the live page give it.
    pub fn capped_said(&self) -> Option<String> {
        (self.capped_mass > 0.0).then(|| {
            format!(
                "{}: {}",
                self.capped_note,
                crate::text::sci(self.capped_mass, 3)
            )
        })
    }
}

/// One metric's rows (Monte Carlo with its Wilson interval beside the exact value and
/// its fraction), its mean where it is numeric, and its largest |z|.
fn metric_result(
    c: &Compiled,
    m: &Metric,
    hist: &Histogram,
    fractions: Option<Vec<Fraction>>,
) -> MetricResult {
    let n = hist.trials;
    let z = z95();
    let counts = m.project_counts(&hist.counts);
    let exact = c.exact.as_ref().map(|e| m.project_f64(e));
    let mut rows: Vec<ValueRow> = counts
        .iter()
        .enumerate()
        .map(|(v, &k)| {
            let (lo, hi) = wilson(k, n, z);
            let ex = exact.as_ref().map(|e| tidy_probability(e[v]));
            ValueRow {
                label: m.labels[v].clone(),
                value: m.numeric.then(|| m.scale.at(v)),
                count: k,
                probability: k as f64 / n as f64,
                ci_low: lo,
                ci_high: hi,
                exact: ex,
                exact_fraction: fractions.as_ref().and_then(|f| f.get(v).cloned()),
                // No trials, no deviation to measure (and nothing to spend on).
                z: ex
                    .filter(|_| n > 0)
                    .map(|p| z_proportion(k, n, p.clamp(0.0, 1.0))),
            }
        })
        .collect();
    // Zero tails of numeric and of long metrics say nothing; a zero among a
    // few named outcomes ("unfinished: 0%") does. A value of any exact
    // probability above zero, however small, stays: the data files keep the
    // whole distribution (the tables on screen trim it, see [`shown_rows`]).
    if m.numeric || rows.len() > LONG_METRIC {
        while rows.len() > 1 {
            let last = &rows[rows.len() - 1];
            let impossible = match &last.exact_fraction {
                Some(f) => f.is_zero(),
                None => last.exact.unwrap_or(0.0) == 0.0,
            };
            if last.count == 0 && impossible {
                rows.pop();
            } else {
                break;
            }
        }
    }
    let max_abs_z = exact.as_ref().map(|_| {
        rows.iter()
            .filter_map(|r| r.z)
            .fold(0.0f64, |a, z| a.max(z.abs()))
    });
    let (mean, mean_ci_v, exact_mean, mean_z) = if m.numeric {
        let values: Vec<f64> = (0..counts.len()).map(|v| m.value(v)).collect();
        let (mean, sd) = mean_sd(&values, &counts);
        let ex_mean = exact.as_ref().map(|e| {
            tidy(
                e.iter()
                    .enumerate()
                    .map(|(v, p)| m.value(v) * p)
                    .sum::<f64>(),
            )
        });
        let mz = exact.as_ref().map(|e| z_mean(mean, n, &values, e));
        (Some(mean), Some(mean_ci(mean, sd, n, z)), ex_mean, mz)
    } else {
        (None, None, None, None)
    };
    let exact_mean_fraction = fractions.as_deref().filter(|_| m.numeric).map(|f| {
        c.metric_sum(m, |v| m.scale.at(v))
            .unwrap_or_else(|| mean_fraction(f, &m.scale))
    });
    MetricResult {
        name: m.name.clone(),
        description: m.description.clone(),
        numeric: m.numeric,
        rows,
        mean,
        mean_ci: mean_ci_v,
        exact_mean,
        exact_mean_fraction,
        mean_z,
        max_abs_z,
        chart: m.chart,
    }
}

/// A profile's points and series, in order: the distinct `x` values, ascending, and the
/// series names as first met.
pub fn profile_axes(members: &[&ScenarioResult]) -> (Vec<f64>, Vec<String>) {
    let mut xs: Vec<f64> = Vec::new();
    let mut series: Vec<String> = Vec::new();
    for g in members.iter().filter_map(|r| r.group.as_ref()) {
        if !xs.contains(&g.x) {
            xs.push(g.x);
        }
        if !series.contains(&g.series) {
            series.push(g.series.clone());
        }
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    (xs, series)
}

/// The groups (profiles and decision tables) among `results`, each with its members,
/// in order.
pub fn groups(results: &[ScenarioResult]) -> Vec<(String, Vec<&ScenarioResult>)> {
    let mut out: Vec<(String, Vec<&ScenarioResult>)> = Vec::new();
    for r in results {
        let Some(g) = &r.group else { continue };
        match out.iter_mut().find(|(n, _)| *n == g.name) {
            Some((_, v)) => v.push(r),
            None => out.push((g.name.clone(), vec![r])),
        }
    }
    out
}

/// The profiles (groups that are not decision tables) among `results`, in order.
pub fn profiles(results: &[ScenarioResult]) -> Vec<(String, Vec<&ScenarioResult>)> {
    groups(results)
        .into_iter()
        .filter(|(_, members)| !members[0].group.as_ref().is_some_and(|g| g.choice))
        .collect()
}

/// A scenario's results from its exact distribution alone (`--exact-only`): every
/// probability and mean is the exact one, with no interval, and `trials` is 0.
pub fn summarize_exact(c: &Compiled, seed: u64, config: &str, system: &str) -> ScenarioResult {
    let states = c.trial.states();
    let hist = Histogram {
        counts: vec![0; states],
        trials: 0,
    };
    let mut r = summarize(c, &hist, seed, config, system);
    for m in &mut r.metrics {
        for v in &mut m.rows {
            let p = v.exact.unwrap_or(0.0);
            (v.probability, v.ci_low, v.ci_high, v.z) = (p, p, p, None);
        }
        if let Some(e) = m.exact_mean {
            (m.mean, m.mean_ci, m.mean_z) = (Some(e), Some((e, e)), None);
        }
        m.max_abs_z = None;
    }
    let e = r.headline.exact.unwrap_or(0.0);
    (
        r.headline.probability,
        r.headline.ci_low,
        r.headline.ci_high,
    ) = (e, e, e);
    r
}

/// One cell of a decision table: a quantity (an expected count, or the probability of a
/// categorical metric's last outcome, such as "broken") for one choice.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionRow {
    /// The decision table's name.
    pub decision: String,
    /// The choice this row is for (the member's series name).
    pub choice: String,
    /// The member scenario that plays the choice.
    pub scenario: String,
    /// The quantity by metric name: `expected hits`, `P(morale = broken)`.
    pub quantity: String,
    /// The quantity in the units' own words, for charts and Markdown: `models Archers
    /// lose`, `P(Archers broken)`.
    pub label: String,
    /// The Monte Carlo mean or probability.
    pub estimate: f64,
    /// Lower end of its 95% interval.
    pub ci_low: f64,
    /// Upper end of its 95% interval.
    pub ci_high: f64,
    /// The exact value, where known.
    pub exact: Option<f64>,
    /// An expectation (true) or a probability.
    pub expected: bool,
    /// The Monte Carlo trials behind `estimate` (0: exact-only, the estimate is the
    /// exact value and no table may show it as a simulation's).
    pub trials: u64,
}

impl DecisionRow {
    /// The quantity as a column heading: `expected models Archers lose`,
    /// `P(Archers broken)`.
    pub fn heading(&self) -> String {
        if self.expected {
            format!("expected {}", self.label)
        } else {
            self.label.clone()
        }
    }
}

/// The rows of each decision, decisions in the order first met.
pub fn by_decision(rows: &[DecisionRow]) -> Vec<(&str, Vec<&DecisionRow>)> {
    let mut out: Vec<(&str, Vec<&DecisionRow>)> = Vec::new();
    for r in rows {
        match out.iter_mut().find(|(n, _)| *n == r.decision) {
            Some((_, v)) => v.push(r),
            None => out.push((&r.decision, vec![r])),
        }
    }
    out
}

/// The decision tables of `results`: every scenario that is one choice of a decision.
pub fn decision_rows(results: &[ScenarioResult]) -> Vec<DecisionRow> {
    let mut out = Vec::new();
    for r in results {
        let Some(g) = r.group.as_ref().filter(|g| g.choice) else {
            continue;
        };
        for m in &r.metrics {
            // The metric's description up to its first `:` or ` (of`.
            let lead = m
                .description
                .split(" (of")
                .next()
                .unwrap_or("")
                .split(':')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let row =
                |quantity: String, label: String, est: f64, ci: (f64, f64), exact, expected| {
                    DecisionRow {
                        decision: g.name.clone(),
                        choice: g.series.clone(),
                        scenario: r.name.clone(),
                        quantity,
                        label,
                        estimate: est,
                        ci_low: ci.0,
                        ci_high: ci.1,
                        exact,
                        expected,
                        trials: r.trials,
                    }
                };
            if let (true, Some(mean), Some(ci)) = (m.numeric, m.mean, m.mean_ci) {
                out.push(row(
                    format!("expected {}", m.name),
                    lead.clone(),
                    mean,
                    ci,
                    m.exact_mean,
                    true,
                ));
            } else if !m.numeric {
                // Every value but the first (`holds`): P(broken) and P(wiped out) apart.
                for v in m.rows.iter().skip(1) {
                    out.push(row(
                        format!("P({} = {})", m.name, v.label),
                        format!("P({lead} {})", v.label),
                        v.probability,
                        (v.ci_low, v.ci_high),
                        v.exact,
                        false,
                    ));
                }
            }
        }
    }
    out
}

/// What a run stopped at `max_trials` short of the 95% half-width `eps` says of it, for
/// its note and a warning; `None` where every probability it reports reached `eps`.
pub fn precision_missed(
    c: &Compiled,
    hist: &Histogram,
    eps: f64,
    max_trials: u64,
) -> Option<String> {
    let widest = widest_half_width(c, hist);
    (widest > eps).then(|| {
        format!(
            "precision {eps} not reached: stopped at the cap of {} trials (--max-trials), where the widest 95% CI half-width is {widest:.2e}",
            crate::text::thousands(max_trials.min(hist.trials))
        )
    })
}

/// The widest 95% half-width over every probability a scenario reports.
pub fn widest_half_width(c: &Compiled, hist: &Histogram) -> f64 {
    let z = z95();
    // The headline is shown too, and it may add up several values (win or double).
    let headline = headline_count(c, hist);
    c.metrics
        .iter()
        .flat_map(|m| m.project_counts(&hist.counts))
        .chain(std::iter::once(headline))
        .map(|k| crate::stats::wilson_half_width(k, hist.trials, z))
        .fold(0.0, f64::max)
}

/// Trials in `hist` whose outcome counts towards the headline (which may add up several
/// values of its metric, win or double).
pub fn headline_count(c: &Compiled, hist: &Histogram) -> u64 {
    c.metrics.get(c.headline.metric).map_or(0, |m| {
        let counts = m.project_counts(&hist.counts);
        c.headline
            .values
            .iter()
            .filter_map(|&i| counts.get(i))
            .sum()
    })
}

#[cfg(test)]
mod tests {
    /// Tidied by arithmetic, the very double the written digits read back as: random
    /// doubles of every size, sums of fractions, the digits' halves and the powers of
    /// ten's edges.
    #[test]
    fn thirteen_digits_by_arithmetic_are_the_digits_written() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        let mut check = |v: f64| {
            if v.is_finite() && v != 0.0 {
                if let Some(fast) = super::thirteen_digits(v) {
                    checked += 1;
                    assert_eq!(fast.to_bits(), super::tidy_written(v).to_bits(), "{v:e}");
                }
            }
        };
        for _ in 0..200_000 {
            let r = next();
            // Any double's bits, and a fraction of small numbers.
            check(f64::from_bits(r));
            let (n, d) = ((r >> 40) as f64, ((r & 0xff_ffff) | 1) as f64);
            check(n / d);
            check(-(n / d) * 1e-7);
            // A sum of terms, and a value of 13 digits and a half, nudged.
            check(1.0 / 3.0 + (r as f64) * 1e-30);
            let half = ((r % 9_000_000_000_000) + 1_000_000_000_000) as f64 + 0.5;
            let scale = super::TENS[(r >> 59) as usize % 23];
            for v in [half / scale, half * scale / 1e10] {
                check(v);
                check(f64::from_bits(v.to_bits() + 1));
                check(f64::from_bits(v.to_bits() - 1));
            }
        }
        // Far from 1: every scale of ten, a long table's tail of chains (1e-27) to the
        // smallest normal doubles and the largest.
        for _ in 0..100_000 {
            let r = next();
            let e = (r % 615) as i32 - 307;
            let m = 1.0 + (r >> 12) as f64 / (1u64 << 52) as f64 * 9.0;
            let v = m * 10f64.powi(e);
            check(v);
            check(f64::from_bits(v.to_bits() + 1));
            let half = ((r % 9_000_000_000_000) + 1_000_000_000_000) as f64 + 0.5;
            check(half * 10f64.powi(e.clamp(-300, 290) - 12));
        }
        for k in 0..23 {
            for t in [super::TENS[k], 1.0 / super::TENS[k]] {
                for d in -3i64..=3 {
                    check(f64::from_bits((t.to_bits() as i64 + d) as u64));
                }
            }
        }
        assert!(checked > 800_000, "{checked} checked");
    }

    use super::{mean_fraction, Fraction, Scale};

    /// The sum of three d6 by enumeration, as floats: ways / 216 for 3..=18.
    fn three_d6() -> Vec<f64> {
        let mut ways = [0u32; 16];
        for a in 1..=6 {
            for b in 1..=6 {
                for c in 1..=6 {
                    ways[a + b + c - 3] += 1;
                }
            }
        }
        ways.iter().map(|&w| f64::from(w) / 216.0).collect()
    }

    #[test]
    fn a_distribution_s_mean_as_a_fraction() {
        let f: Vec<Fraction> = three_d6()
            .iter()
            .map(|p| Fraction::new((p * 216.0).round() as i64, 216).unwrap())
            .collect();
        // 1, 3, 6, 10, 15, 21, 25, 27 ways of 216, reduced; values 3..=18: offset 3.
        assert_eq!(f[7].to_string(), "1/8");
        assert_eq!(
            mean_fraction(&f, &Scale::Steps { offset: 3, step: 1 }).to_string(),
            "21/2"
        );
    }

    #[test]
    fn fractions_are_reduced_with_the_sign_on_top() {
        assert_eq!(Fraction::new(27, 216).unwrap().to_string(), "1/8");
        assert_eq!(Fraction::new(3, -6).unwrap().to_string(), "-1/2");
        assert_eq!(Fraction::new(1, 0), None);
    }
}
