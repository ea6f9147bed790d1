//! What a rules module hands to the engine and the reports: a compiled scenario.
//!
//! A trial returns one small integer, its *state* (e.g. the pair of success counts of an
//! opposed test and the turns out of play that followed). The engine only counts states;
//! every metric a designer sees is a function of the state, applied after the run. This
//! keeps the hot loop to one histogram increment per trial, and lets the exact engine
//! produce a PMF over the same states so both paths go through the same metric maps.

use crate::cancel::Cancel;
use crate::fraction::{Fraction, Ways};
use crate::kernels::Rng;
use crate::pmf::Prob as _;

/// One Monte Carlo trial of a scenario: roll the dice as the rules say, return the state.
pub trait Trial: Sync + Send {
    /// Number of distinct states; `sample` returns values below it.
    fn states(&self) -> usize;
    /// One trial: the state it ends in, below [`Trial::states`].
    fn sample(&self, rng: &mut Rng) -> usize;
    /// `trials` trials counted into `hist`. A trial with few dice overrides this to roll
    /// two trials from one word of the generator; a trial that can be slow (the dice
    /// language's) overrides it to look at `stop` within the chunk, and may then count
    /// fewer (the caller discards a stopped chunk). The systems' own trials take well
    /// under a microsecond, so a chunk ends within milliseconds and `_stop` is left to
    /// the chunk loop: a check here kept `sample` from being inlined (3x slower).
    #[inline(always)]
    fn run_chunk(&self, rng: &mut Rng, trials: u64, hist: &mut [u64], _stop: &Cancel) {
        // The generator works on a local copy: were it written through `rng`, every
        // bounds check that could panic would make the compiler store its state to
        // memory first, on every trial.
        let mut local = rng.clone();
        for _ in 0..trials {
            hist[self.sample(&mut local)] += 1;
        }
        *rng = local;
    }
    /// What this trial is, as bytes: two trials with equal keys draw the same numbers
    /// and land in the same states, so the engine may count a run of one as a run of
    /// the other (a matrix's two units of the same numbers, a profile's two points the
    /// rules cannot tell apart). `None`, the default: never shared. A key must cover
    /// everything `sample` and `run_chunk` read; [`key_of`] makes one from the fields.
    fn key(&self) -> Option<Vec<u8>> {
        None
    }
}

/// A [`Trial::key`] from `what`, everything a trial of type `T` reads (its fields, or
/// what they are all made from): the type's name, then `what` as its `Hash` writes it.
/// The bytes themselves are the key, not a hash of them, so two keys never collide:
/// std's `Hash` writes lengths before slices and ends strings, so the stream is read
/// back one way only.
pub fn key_of<T: ?Sized, K: std::hash::Hash + ?Sized>(what: &K) -> Vec<u8> {
    struct Bytes(Vec<u8>);
    impl std::hash::Hasher for Bytes {
        fn write(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
        fn finish(&self) -> u64 {
            0
        }
    }
    let mut b = Bytes(Vec::new());
    std::hash::Hash::hash(std::any::type_name::<T>(), &mut b);
    what.hash(&mut b);
    b.0
}

/// Trials between two looks at the stop token inside a chunk of the dice language: a
/// few microseconds for a fast trial, a fraction of a second for one of milliseconds.
pub const STOP_EVERY: u64 = 64;

/// The engine's view of a trial: one virtual call per chunk, the per-trial loop
/// monomorphised and inlined for each scenario kind.
pub trait Sampler: Sync + Send {
    /// Number of distinct states, the length of the histogram.
    fn states(&self) -> usize;
    /// `trials` trials counted into `hist` (see [`Trial::run_chunk`]).
    fn run_chunk(&self, rng: &mut Rng, trials: u64, hist: &mut [u64], stop: &Cancel);
    /// See [`Trial::key`].
    fn key(&self) -> Option<Vec<u8>>;
}

impl<T: Trial> Sampler for T {
    fn states(&self) -> usize {
        Trial::states(self)
    }

    fn key(&self) -> Option<Vec<u8>> {
        Trial::key(self)
    }

    #[inline(never)]
    fn run_chunk(&self, rng: &mut Rng, trials: u64, hist: &mut [u64], stop: &Cancel) {
        Trial::run_chunk(self, rng, trials, hist, stop)
    }
}

/// A quantity reported for a scenario, e.g. "result" or "target_turns_out_of_play".
#[derive(Clone, Debug)]
pub struct Metric {
    /// How reports and chart file names refer to it, e.g. `result`.
    pub name: String,
    /// What the value means, in words a designer reads on a chart.
    pub description: String,
    /// One label per value index, e.g. "0", "1", ... or "draw", "win".
    pub labels: Vec<String>,
    /// Numeric metrics have a mean and an "at least k" chart; categorical ones do not.
    pub numeric: bool,
    /// For each state, the value index of this metric.
    pub map: Vec<u16>,
    /// Whether it gets charts of its own (false for metrics that only feed a
    /// scenario-level chart, such as a duel's wins by activation).
    pub chart: bool,
    /// The number each of a numeric metric's value indices stands for.
    pub scale: Scale,
}

/// The numbers a metric's value indices stand for: evenly spaced, or (where the values
/// that can come up lie far apart unevenly) listed.
#[derive(Clone, Debug, PartialEq)]
pub enum Scale {
    /// Index `v` is `offset + v * step`: a sum of 3d6 starts at 3, a Fudge roll below
    /// 0; the step is 1 for most, 50 for a Farkle score (61 values from 0 to 3,000,
    /// not 3,001 of which most cannot happen).
    Steps {
        /// The number of index 0.
        offset: i64,
        /// The distance between two values.
        step: i64,
    },
    /// Index `v` is the `v`th of these, ascending: `d6 * 100000 + d6`'s 36 values, or
    /// a stress die's doublings, which span more numbers than a table holds.
    Listed(std::sync::Arc<[i64]>),
}

impl Scale {
    /// The number value index `v` stands for.
    pub fn at(&self, v: usize) -> i64 {
        match self {
            Scale::Steps { offset, step } => offset + v as i64 * step,
            Scale::Listed(values) => values[v],
        }
    }
}

impl Metric {
    /// A numeric metric whose value `v` is labelled by the number itself.
    pub fn numeric(name: &str, description: &str, values: usize, map: Vec<u16>) -> Self {
        Metric::numeric_stepped(name, description, 0, 1, values, map)
    }

    /// A numeric metric over `lo..lo + values`, labelled by the numbers.
    pub fn numeric_from(
        name: &str,
        description: &str,
        lo: i64,
        values: usize,
        map: Vec<u16>,
    ) -> Self {
        Metric::numeric_stepped(name, description, lo, 1, values, map)
    }

    /// A numeric metric over `lo, lo + step, ...` (`values` of them), labelled by the
    /// numbers.
    pub fn numeric_stepped(
        name: &str,
        description: &str,
        lo: i64,
        step: i64,
        values: usize,
        map: Vec<u16>,
    ) -> Self {
        let scale = Scale::Steps { offset: lo, step };
        Metric::scaled(name, description, scale, values, map)
    }

    /// A numeric metric of `values` values on `scale`, labelled by the numbers.
    pub fn scaled(
        name: &str,
        description: &str,
        scale: Scale,
        values: usize,
        map: Vec<u16>,
    ) -> Self {
        Metric {
            name: name.into(),
            description: description.into(),
            labels: (0..values).map(|v| scale.at(v).to_string()).collect(),
            numeric: true,
            map,
            chart: true,
            scale,
        }
    }

    /// The top value as a folded tail, `10 or more` (an exploding pool's capped
    /// bucket), when `folded`.
    pub fn fold_top(mut self, folded: bool) -> Self {
        if folded {
            if let Some(last) = self.labels.last_mut() {
                *last = format!("{last} or more");
            }
        }
        self
    }

    /// The number value index `v` stands for.
    pub fn value(&self, v: usize) -> f64 {
        self.scale.at(v) as f64
    }

    /// A metric whose values are names ("draw", "win"), in the order of `labels`.
    pub fn categorical(name: &str, description: &str, labels: &[&str], map: Vec<u16>) -> Self {
        Metric {
            name: name.into(),
            description: description.into(),
            labels: labels.iter().map(|s| s.to_string()).collect(),
            numeric: false,
            map,
            chart: true,
            scale: Scale::Steps { offset: 0, step: 1 },
        }
    }

    /// When a side wins, for a race chart: "no", or the round (1 to `rounds`) in which
    /// it wins; `map` gives each state's 0 or round. Not a chart of its own.
    pub fn won_at(who: &str, description: String, rounds: usize, map: Vec<u16>) -> Self {
        let mut labels = vec!["no".to_string()];
        labels.extend((1..=rounds).map(|t| t.to_string()));
        Metric {
            name: format!("{who}_wins_at"),
            description,
            labels,
            numeric: false,
            map,
            chart: false,
            scale: Scale::Steps { offset: 0, step: 1 },
        }
    }

    /// Push a distribution over states through this metric.
    pub fn project_f64(&self, states: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.labels.len()];
        for (s, &p) in states.iter().enumerate() {
            out[self.map[s] as usize] += p;
        }
        out
    }

    /// Push exact fractions over states through this metric.
    pub fn project_fractions(&self, states: &[Fraction]) -> Vec<Fraction> {
        // The states grouped by value (a counting sort): no list of parts per value,
        // which cost more than the fractions themselves at thousands of values, and a
        // value of one state (a roll's `value`) copied rather than summed.
        let n = self.labels.len();
        let mut start = vec![0usize; n + 1];
        for s in 0..states.len() {
            start[self.map[s] as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut at = start.clone();
        let mut order = vec![0usize; states.len()];
        for s in 0..states.len() {
            let v = self.map[s] as usize;
            order[at[v]] = s;
            at[v] += 1;
        }
        (0..n)
            .map(|v| match &order[start[v]..start[v + 1]] {
                [one] => states[*one].clone(),
                group => Fraction::sum(group.iter().map(|&s| (&states[s], 1))),
            })
            .collect()
    }

    /// Push state counts through this metric.
    pub fn project_counts(&self, states: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; self.labels.len()];
        for (s, &c) in states.iter().enumerate() {
            out[self.map[s] as usize] += c;
        }
        out
    }
}

/// A chart drawn from several metrics of one scenario, beside the per-metric ones.
#[derive(Clone, Debug, PartialEq)]
pub enum Chart {
    /// A race to an end: for each side, a metric whose value 0 means "this side did not
    /// finish it" and value t >= 1 "finished it at step t"; drawn as the probability
    /// that each side has won by each step.
    Race {
        /// Chart file name part, after the scenario's name.
        file: String,
        /// The chart's title.
        title: String,
        /// What a step is, for the x axis (e.g. "activations").
        x_desc: String,
        /// Each side's name and the index in `metrics` of its finishing-step metric.
        sides: Vec<(String, usize)>,
    },
}

/// One point of a profile: scenarios sharing a group name are drawn together, each at
/// `x` on its `series` line (e.g. distance 4, "Aim (optimal)"); or one choice of a
/// decision table (`choice`: x = 0, 1, ... and the series is the choice's name).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The profile's name, shared by its scenarios.
    pub name: String,
    /// What the whole profile is, for its charts.
    pub label: String,
    /// What `x` measures, for the x axis (e.g. "distance").
    pub x_desc: String,
    /// This scenario's position on the x axis.
    pub x: f64,
    /// The line it belongs to (e.g. "Aim (optimal)").
    pub series: String,
    /// A decision table: `x` numbers the choices, `series` names them.
    pub choice: bool,
}

/// The event a one-line summary reports for a scenario, e.g. P(slammer wins).
#[derive(Clone, Debug)]
pub struct Headline {
    /// How the summary names the event, e.g. "P(slammer wins)".
    pub label: String,
    /// Index in [`Compiled::metrics`] of the metric the event is read from.
    pub metric: usize,
    /// Value indices of `metric` that make up the event.
    pub values: Vec<usize>,
    /// Where the event is one side's win: the value indices of the same metric that are
    /// the other side's (empty where the headline has no opposite). A value in neither
    /// list is a draw, so "even" is wins equal losses, not a 50% chance to win.
    pub against: Vec<usize>,
}

/// A scenario ready to run: how to sample it, what to report, and its exact distribution.
pub struct Compiled {
    /// The scenario's name in the config.
    pub name: String,
    /// What it models, in the designer's words (may be empty).
    pub description: String,
    /// What the engine runs.
    pub trial: Box<dyn Sampler>,
    /// Everything reported, each a function of the state.
    pub metrics: Vec<Metric>,
    /// The event the one-line summary gives.
    pub headline: Headline,
    /// Exact PMF over the states, where the rules allow one.
    pub exact: Option<Vec<f64>>,
    /// `exact` as fractions, where an exact computation with integer weights made them
    /// at once (the dice language's law); a rules module makes its own later.
    pub exact_fractions: Option<Vec<Fraction>>,
    /// `exact_fractions`' ways of one denominator, where the exact computation kept
    /// them: a sum over values is summed from these ([`Compiled::metric_sum`]).
    exact_ways: Option<Ways>,
    /// `exact` as fractions, made when a table first asks for them: a rules module's
    /// exact code run again in whole numbers ([`crate::pmf::Ratio`]), which costs more
    /// than its floats and is not wanted by a sweep that reads only the floats.
    later_fractions: Option<LaterFractions>,
    /// `later_fractions`' answer, once made: the states' chances, not yet in lowest
    /// terms (a metric's values are summed first, then reduced once each).
    made_fractions: crate::lazy::Lazy<Option<Vec<crate::pmf::Ratio>>>,
    /// Exact probability of states that sit in a saturated top bucket (exploding pools
    /// capped for a fixed-size histogram), reported instead of dropped.
    pub capped_mass: f64,
    /// What `capped_mass` is, for the report; `None`: the top bucket of a capped pool.
    pub capped_note: Option<String>,
    /// Scenario-level charts.
    pub charts: Vec<Chart>,
    /// The profile this scenario is a point of, if any.
    pub group: Option<Group>,
    /// The choices its rolls are played by, as Markdown, when it makes any (the dice
    /// language's `reroll ... to maximise`): a designer reads the policy beside the
    /// numbers it gives.
    pub policy: Option<String>,
    /// What the designer should look at, though the scenario loads: reports and the
    /// live page show it, the command line says it on stderr.
    pub warning: Option<String>,
}

/// How a scenario's fractions are made when first asked for.
type LaterFractions = Box<dyn Fn() -> Option<Vec<crate::pmf::Ratio>> + Send + Sync>;

/// A compiled scenario whose parts do not fit together (a metric map of the wrong length,
/// a value past its labels, an exact PMF that does not sum to 1): a bug in a rules module,
/// caught before a wrong number is reported.
#[derive(Debug, thiserror::Error)]
#[error("scenario `{scenario}`: {problem} (a bug in rollsim: please report it)")]
pub struct InvalidScenario {
    /// The scenario's name.
    pub scenario: String,
    /// What does not fit.
    pub problem: String,
}

impl Compiled {
    /// The sampler, metrics and headline are what every scenario must have; the rest
    /// starts out absent (`exact` None, `capped_mass` 0, `capped_note` None, `charts`
    /// empty, `group` None) so that a rules module names only what its scenario adds.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        trial: Box<dyn Sampler>,
        metrics: Vec<Metric>,
        headline: Headline,
    ) -> Self {
        Compiled {
            name: name.into(),
            description: description.into(),
            trial,
            metrics,
            headline,
            exact: None,
            exact_fractions: None,
            exact_ways: None,
            later_fractions: None,
            made_fractions: crate::lazy::Lazy::new(),
            capped_mass: 0.0,
            capped_note: None,
            charts: Vec::new(),
            group: None,
            policy: None,
            warning: None,
        }
    }

    /// Replaces the default `None`: what the designer should look at, though the
    /// scenario loads (a `vs` that reads one unit's stat on both sides).
    pub fn warning(mut self, warning: Option<String>) -> Self {
        self.warning = warning;
        self
    }

    /// Replaces the default `None`.
    pub fn policy(mut self, policy: Option<String>) -> Self {
        self.policy = policy;
        self
    }

    /// Replaces the default `None`: takes an `Option` so a PMF that may fail to build
    /// (e.g. `result.ok()`) needs no branch at the call site.
    pub fn exact(mut self, exact: Option<Vec<f64>>) -> Self {
        self.exact = exact;
        self
    }

    /// Replaces the default `None`: the PMF over the states as exact fractions.
    pub fn exact_fractions(mut self, fractions: Option<Vec<Fraction>>) -> Self {
        self.exact_fractions = fractions;
        self
    }

    /// Replaces the default `None`: the ways `exact_fractions` are of one denominator.
    pub fn exact_ways(mut self, ways: Option<Ways>) -> Self {
        self.exact_ways = ways;
        self
    }

    /// `sum k(v) P(v)` over a metric's values `v`, exactly, where the states' ways were
    /// kept: one reduction, not one long division per value ([`Ways`]); None without
    /// them (the caller sums the values' fractions).
    pub fn metric_sum(&self, m: &Metric, k: impl Fn(usize) -> i64) -> Option<Fraction> {
        let ways = self.exact_ways.as_ref()?;
        (ways.n.len() == m.map.len()).then(|| ways.sum(|s| k(m.map[s] as usize)))
    }

    /// The PMF over the states as exact fractions, made by `make` (the rules module's
    /// exact code in [`crate::pmf::Ratio`]s, or None where it would cost too much) the
    /// first time they are asked for; no fraction is then read off the floats.
    pub fn fractions_later<F, R>(mut self, make: F) -> Self
    where
        F: Fn() -> R + Send + Sync + 'static,
        R: Into<Option<Vec<crate::pmf::Ratio>>>,
    {
        self.later_fractions = Some(Box::new(move || make().into()));
        self
    }

    /// A metric's exact fractions, value by value: projected from the states' fractions
    /// where they were made already, else summed from the rules module's exact code run
    /// (once) in whole numbers and reduced once per value.
    pub fn metric_fractions(&self, m: &Metric) -> Option<Vec<Fraction>> {
        if let Some(f) = &self.exact_fractions {
            return Some(m.project_fractions(f));
        }
        let later = self.later_fractions.as_ref()?;
        let states = self.made_fractions.get_or_init(later).as_deref()?;
        let mut sums = vec![crate::pmf::Ratio::zero(); m.labels.len()];
        for (s, p) in states.iter().enumerate() {
            let v = m.map[s] as usize;
            sums[v] += p.clone();
        }
        Some(crate::pmf::Ratio::fractions(&sums))
    }

    /// Replaces the defaults 0 and `None`: the mass and what it means go together, so a
    /// note is never set without the mass it describes.
    pub fn capped(mut self, mass: f64, note: Option<String>) -> Self {
        self.capped_mass = mass;
        self.capped_note = note;
        self
    }

    /// Replaces the default, no scenario-level charts (the per-metric ones are drawn
    /// regardless).
    pub fn charts(mut self, charts: Vec<Chart>) -> Self {
        self.charts = charts;
        self
    }

    /// Replaces the default `None`: takes an `Option` because a scenario's config decides
    /// whether it belongs to a profile, and passes it on as is.
    pub fn group(mut self, group: Option<Group>) -> Self {
        self.group = group;
        self
    }

    /// The exact probability of the headline event, `None` without an exact PMF. One
    /// place for the sum, so that every report of the headline agrees to the last bit.
    /// A headline value past the metric's labels counts nothing rather than panicking:
    /// rules modules compare candidates before `check` has seen them.
    pub fn headline_exact(&self) -> Option<f64> {
        let e = self.exact.as_deref()?;
        let p = self.metrics[self.headline.metric].project_f64(e);
        // An empty sum of floats is -0.0: `+ 0.0` makes it the 0 it means.
        Some(
            self.headline
                .values
                .iter()
                .filter_map(|&v| p.get(v))
                .sum::<f64>()
                + 0.0,
        )
    }

    /// Check that the metric maps, the headline and the exact PMF fit the sampler's
    /// states. Every compile goes through this (`AnalysisConfig::compile`).
    pub fn check(&self) -> Result<(), InvalidScenario> {
        let bad = |problem: String| InvalidScenario {
            scenario: self.name.clone(),
            problem,
        };
        let states = self.trial.states();
        for m in &self.metrics {
            if m.map.len() != states {
                return Err(bad(format!(
                    "metric `{}` maps {} states, the sampler has {states}",
                    m.name,
                    m.map.len()
                )));
            }
            if let Some(v) = m.map.iter().find(|&&v| v as usize >= m.labels.len()) {
                return Err(bad(format!(
                    "metric `{}` maps a state to value {v} of {}",
                    m.name,
                    m.labels.len()
                )));
            }
        }
        let Some(h) = self.metrics.get(self.headline.metric) else {
            return Err(bad(format!(
                "the headline reads metric {} of {}",
                self.headline.metric,
                self.metrics.len()
            )));
        };
        if let Some(v) = self.headline.values.iter().find(|&&v| v >= h.labels.len()) {
            return Err(bad(format!(
                "the headline reads value {v} of `{}`, which has {}",
                h.name,
                h.labels.len()
            )));
        }
        if let Some(e) = &self.exact {
            if e.len() != states {
                return Err(bad(format!(
                    "the exact PMF has {} states, the sampler {states}",
                    e.len()
                )));
            }
            crate::pmf::check_pmf(e, 1e-9)
                .map_err(|m| bad(format!("the exact PMF is not a distribution: {m}")))?;
        }
        Ok(())
    }
}

/// Encode a tuple of small values as one state index (mixed radix, last fastest).
#[derive(Clone, Debug, Hash)]
pub struct Radix(pub Vec<usize>);

impl Radix {
    /// Number of states: the product of the radices.
    pub fn size(&self) -> usize {
        self.0.iter().product()
    }

    /// The state of `digits` (each below its radix).
    #[inline]
    pub fn encode(&self, digits: &[usize]) -> usize {
        let mut s = 0;
        for (d, &r) in digits.iter().zip(&self.0) {
            debug_assert!(*d < r);
            s = s * r + d;
        }
        s
    }

    /// The digits of state `s`, the inverse of [`Radix::encode`].
    pub fn decode(&self, mut s: usize) -> Vec<usize> {
        let mut out = vec![0; self.0.len()];
        for i in (0..self.0.len()).rev() {
            out[i] = s % self.0[i];
            s /= self.0[i];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two states, a fair coin.
    struct Coin;
    impl Trial for Coin {
        fn states(&self) -> usize {
            2
        }
        fn sample(&self, rng: &mut Rng) -> usize {
            use rand::Rng as _;
            (rng.next_u64() & 1) as usize
        }
    }

    fn coin(map: Vec<u16>, exact: Vec<f64>) -> Compiled {
        Compiled::new(
            "coin",
            String::new(),
            Box::new(Coin),
            vec![Metric::categorical("side", "", &["heads", "tails"], map)],
            Headline {
                label: "P(heads)".into(),
                metric: 0,
                values: vec![0],
                against: Vec::new(),
            },
        )
        .exact(Some(exact))
    }

    #[test]
    fn check_refuses_what_would_be_a_silent_bug() {
        assert!(coin(vec![0, 1], vec![0.5, 0.5]).check().is_ok());
        let e = coin(vec![0], vec![0.5, 0.5])
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("maps 1 states, the sampler has 2"), "{e}");
        let e = coin(vec![0, 2], vec![0.5, 0.5])
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("value 2 of 2"), "{e}");
        let e = coin(vec![0, 1], vec![0.5, 0.4])
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a distribution: total is 0.9"), "{e}");
        let e = coin(vec![0, 1], vec![1.0]).check().unwrap_err().to_string();
        assert!(e.contains("exact PMF has 1 states"), "{e}");
        let mut c = coin(vec![0, 1], vec![0.5, 0.5]);
        c.headline.values = vec![5];
        assert!(c.check().is_err());
    }

    #[test]
    fn headline_exact_needs_an_exact_pmf() {
        let mut c = coin(vec![0, 1], vec![0.25, 0.75]);
        assert_eq!(c.headline_exact(), Some(0.25));
        c.exact = None;
        assert_eq!(c.headline_exact(), None);
    }

    #[test]
    fn radix_round_trips() {
        let r = Radix(vec![3, 4, 5]);
        for s in 0..r.size() {
            assert_eq!(r.encode(&r.decode(s)), s);
        }
        assert_eq!(r.encode(&[1, 2, 3]), 20 + 10 + 3);
    }
}
