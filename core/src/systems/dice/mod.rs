//! `dice`: any mechanic a designer writes as a line of the dice language ([`lang`]),
//! with an exact distribution ([`exact`]) beside Monte Carlo that rolls every die as
//! written ([`program`]).

pub mod config;
pub mod exact;
pub mod lang;
mod lower;
pub mod multiset;
pub mod program;
pub mod shapes;

use super::{Knobs, Loaded, RoleKnob};
use crate::cancel::Cancel;
use crate::config::{reader::Reader, Problem};
use crate::fraction::{Fraction, Ways};
use crate::kernels::Rng;
use crate::model::{Compiled, Headline, Metric, Scale, Trial};
use config::{Scenario, Span, Ties};
use program::Node;
use std::sync::Arc;

/// The `dice` system: a scenario's result written in the dice language.
pub struct Dice;

/// Most values a scenario's result may span (its Monte Carlo histogram).
pub const MAX_STATES: usize = 1 << 16;

pub(crate) static KNOBS: Knobs = Knobs {
    roles: &[
        RoleKnob {
            key: "unit",
            table: "units",
        },
        RoleKnob {
            key: "opponent",
            table: "units",
        },
    ],
    stats: std::borrow::Cow::Borrowed(&[]),
    dice: &[],
    responses: &[],
    readings: &[],
};

impl super::System for Dice {
    fn name(&self) -> &'static str {
        "dice"
    }

    fn load(&self, root: &Reader, cancel: &Cancel) -> Result<Box<dyn Loaded>, Problem> {
        Ok(Box::new(config::read(root, cancel)?))
    }

    fn knobs(&self) -> Knobs {
        KNOBS.clone()
    }

    fn check_expression(
        &self,
        text: &str,
        cancel: &Cancel,
    ) -> Option<Result<(), super::ExpressionError>> {
        Some(
            config::parse_result(text, &[], cancel)
                .map(|_| ())
                .map_err(|e| {
                    super::ExpressionError {
                        // The parser counts bytes; a caret counts characters.
                        column: text.char_indices().take_while(|(i, _)| *i < e.col).count(),
                        message: e.message,
                    }
                }),
        )
    }

    fn config_text(&self, roll: &str, vs: Option<&str>) -> Option<String> {
        let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut text = format!(
            "system = \"dice\"\ntitle = \"rollsim roll\"\n[scenarios.roll]\nroll = {}\n",
            quote(roll)
        );
        if let Some(v) = vs {
            text.push_str(&format!("vs = {}\n", quote(v)));
        }
        Some(text)
    }

    fn one_liner_loaded(
        &self,
        roll: &str,
        vs: Option<&str>,
        cancel: &Cancel,
    ) -> Option<Result<Box<dyn Loaded>, String>> {
        Some(config::one_liner(roll, vs, cancel).map(|c| Box::new(c) as Box<dyn Loaded>))
    }
}

/// Roll the scenario as written: the roll, less the opposing roll.
struct DiceTrial {
    /// The scenario's roll, shared with it (a roll of many `if`s is a tree of many
    /// nodes, copied for nothing).
    roll: std::sync::Arc<Node>,
    vs: Option<Node>,
    /// The value each state stands for.
    states: States,
    /// What only Monte Carlo reads, made when a first trial is rolled: an exact answer
    /// (`--exact-only`, a notebook's `exact_only=True`) never pays for it.
    prepared: crate::lazy::Lazy<Prepared>,
}

/// The roll made ready to sample: its pools' tables, its `let`s folded into a table, its
/// `repeat` a state machine. Each is worked out from the compiled roll alone, so a
/// trial rolls the same dice whichever thread makes it.
struct Prepared {
    roll: Node,
    vs: Option<Node>,
    /// Both sides plain pools: rolled without a scratch.
    pools: bool,
    /// The roll's `let`s rolled, the rest read from a table (see [`program::fold`]).
    folded: Option<program::fold::Folded>,
    /// The roll's `repeat` played from a table of its rounds (see [`program::machine`]).
    machine: Option<program::machine::Machine>,
}

impl Prepared {
    fn of(roll: &Node, vs: Option<&Node>) -> Prepared {
        let roll = program::tabled(roll.clone());
        let vs = vs.map(|v| program::tabled(v.clone()));
        Prepared {
            pools: program::is_plain(&roll) && vs.as_ref().is_none_or(program::is_plain),
            folded: program::fold::fold(&roll),
            machine: program::machine::Machine::of(&roll),
            roll,
            vs,
        }
    }
}

impl DiceTrial {
    fn prepared(&self) -> &Prepared {
        self.prepared
            .get_or_init(|| Prepared::of(&self.roll, self.vs.as_ref()))
    }

    /// One trial with `s` as the interpreter's scratch.
    #[inline]
    fn one(&self, p: &Prepared, rng: &mut Rng, s: &mut program::Scratch) -> usize {
        let v = if p.pools {
            let mut v = program::sample_plain(&p.roll, rng);
            if let Some(o) = &p.vs {
                v -= program::sample_plain(o, rng);
            }
            v
        } else {
            let mut v = match (&p.folded, &p.machine) {
                (Some(f), _) => f.sample(rng, s),
                (None, Some(m)) => m.sample(rng, s),
                (None, None) => program::sample(&p.roll, rng, s, 0),
            };
            if let Some(o) = &p.vs {
                v -= program::sample(o, rng, s, 0);
            }
            v
        };
        self.state(v)
    }

    /// The state of the value `v`.
    #[inline]
    fn state(&self, v: i64) -> usize {
        self.states.index(v)
    }
}

/// The values a roll's states stand for: a metric's scale (every `step`th number from
/// `lo`, Farkle's scores 50 apart; or the values listed, where those that can come up
/// lie unevenly over more numbers than a table holds), and how many.
#[derive(Clone, Debug)]
struct States {
    scale: Scale,
    n: usize,
}

impl States {
    /// Every value of the span: each number of a range, or each listed.
    fn of_span(span: &Span) -> States {
        match span {
            Span::Range(lo, hi) => States {
                scale: Scale::Steps {
                    offset: *lo,
                    step: 1,
                },
                n: (hi - lo + 1) as usize,
            },
            Span::Listed(values) => States {
                scale: Scale::Listed(values.clone()),
                n: values.len(),
            },
        }
    }

    fn len(&self) -> usize {
        self.n
    }

    fn value(&self, i: usize) -> i64 {
        self.scale.at(i)
    }

    /// The state of the value `v`. The states hold every value a roll can take; a
    /// value between them (none, if the two engines agree) goes to the nearest, where
    /// the agreement checks see it.
    #[inline]
    fn index(&self, v: i64) -> usize {
        match &self.scale {
            Scale::Steps { offset: lo, step } => {
                let at = if *step == 1 {
                    v - lo
                } else {
                    (v - lo + step / 2).div_euclid(*step)
                };
                at.clamp(0, self.n as i64 - 1) as usize
            }
            Scale::Listed(values) => nearest(values, v),
        }
    }
}

/// The index of the value in `values` (ascending, not empty) nearest `v`.
fn nearest(values: &[i64], v: i64) -> usize {
    match values.binary_search(&v) {
        Ok(i) => i,
        Err(0) => 0,
        Err(i) if i == values.len() => i - 1,
        Err(i) => {
            if v.abs_diff(values[i - 1]) <= v.abs_diff(values[i]) {
                i - 1
            } else {
                i
            }
        }
    }
}

impl Trial for DiceTrial {
    fn states(&self) -> usize {
        self.states.len()
    }
    fn sample(&self, rng: &mut Rng) -> usize {
        self.one(self.prepared(), rng, &mut Box::new(program::Scratch::new()))
    }

    /// One scratch per chunk, made here and dropped at its end: no allocation and no
    /// clearing per trial (every slot is written before it is read), and no state kept
    /// between chunks or shared between threads.
    fn run_chunk(&self, rng: &mut Rng, trials: u64, hist: &mut [u64], stop: &Cancel) {
        let mut local = rng.clone();
        let mut scratch = Box::new(program::Scratch::new());
        let p = self.prepared();
        // As the default `run_chunk`: a trial of the language can take milliseconds.
        let mut left = trials;
        while left > 0 && !stop.is_cancelled() {
            let n = left.min(crate::model::STOP_EVERY);
            match (&p.folded, &p.vs) {
                // A folded roll on its own: its loop holds nothing else.
                (Some(f), None) => {
                    for _ in 0..n {
                        let v = f.sample(&mut local, &mut scratch);
                        hist[self.state(v)] += 1;
                    }
                }
                _ => {
                    for _ in 0..n {
                        hist[self.one(p, &mut local, &mut scratch)] += 1;
                    }
                }
            }
            left -= n;
        }
        *rng = local;
    }
}

/// The exact distribution of the result over the scenario's span, or why there is
/// none, with its fractions where they are known, and the mass of explosion chains
/// stopped at their depth limit and of `repeat`s stopped at theirs (each NaN where the
/// law could not tell how often a part that stops was reached).
fn exact_of(sc: &Scenario, cancel: &Cancel) -> (Result<Exact, String>, f64, f64) {
    let vs = sc.vs.as_ref().map(|(_, v)| v);
    match exact::any_law(&sc.roll_node, vs, cancel) {
        Ok(first) => (
            Ok(Exact::of_law(&first.law, &sc.span, cancel)),
            first.capped,
            first.unfinished,
        ),
        Err(why) => (Err(why.to_string()), 0.0, 0.0),
    }
}

/// An exact distribution over the values a roll can take: floats, and the fractions
/// they are.
struct Exact {
    states: States,
    p: Vec<f64>,
    fractions: Option<Vec<Fraction>>,
    /// The ways the fractions are of one denominator, state by state.
    ways: Option<Ways>,
}

impl Exact {
    /// The law's chances over the span, on the values that can come up, and their
    /// fractions where its ways were counted.
    fn of_law(law: &exact::Weights, span: &Span, cancel: &Cancel) -> Exact {
        let (lo, hi) = match span {
            Span::Range(lo, hi) => (*lo, *hi),
            Span::Listed(values) => (values[0], values[values.len() - 1]),
        };
        let (p, counted) = law.counted_chances(lo, (hi - lo + 1) as usize, cancel);
        let (fractions, ways) = counted.unzip();
        if let Span::Listed(values) = span {
            // A law spans at most `exact::MAX_SPAN` numbers: its dense chances do too.
            let pick = |i: &i64| (i - lo) as usize;
            return Exact {
                states: States::of_span(span),
                p: values.iter().map(|i| p[pick(i)]).collect(),
                fractions: fractions.map(|f| values.iter().map(|i| f[pick(i)].clone()).collect()),
                ways: ways.map(|w| w.pick(values.iter().map(pick))),
            };
        }
        // By the fractions where there are: a value below the floats' range can come up.
        let grid = match &fractions {
            Some(f) => Grid::of(f, |f| !f.is_zero()),
            None => Grid::of(&p, |p| *p > 0.0),
        };
        let p = grid.pick(&p);
        Exact {
            states: States {
                scale: Scale::Steps {
                    offset: lo + grid.first as i64,
                    step: grid.step as i64,
                },
                n: p.len(),
            },
            p,
            fractions: fractions.map(|f| grid.pick(&f)),
            ways: ways.map(|w| w.pick((grid.first..=grid.last).step_by(grid.step))),
        }
    }
}

/// Where the values that can come up lie among dense states: the first and the last,
/// and the step between (the greatest common divisor of their distances).
#[derive(Clone, Copy)]
struct Grid {
    first: usize,
    last: usize,
    step: usize,
}

impl Grid {
    fn of<T>(dense: &[T], possible: impl Fn(&T) -> bool) -> Grid {
        let first = dense.iter().position(&possible).unwrap_or(0);
        let last = dense
            .iter()
            .rposition(&possible)
            .unwrap_or(first)
            .max(first);
        let mut step = 0;
        for (i, x) in dense.iter().enumerate().take(last + 1).skip(first + 1) {
            if step != 1 && possible(x) {
                step = gcd(step as i64, (i - first) as i64) as usize;
            }
        }
        Grid {
            first,
            last,
            step: step.max(1),
        }
    }

    /// The states on the grid, in order.
    fn pick<T: Clone>(&self, dense: &[T]) -> Vec<T> {
        dense[self.first..=self.last]
            .iter()
            .step_by(self.step)
            .cloned()
            .collect()
    }
}

/// What the capped mass is: explosion chains cut at their depth, `repeat`s cut at their
/// limit, or both (Monte Carlo cuts them at the same places). Each die's chains are
/// counted one by one, so that the mass is how many are cut in a roll, on average: no
/// less than the chance that one is, and more where several can be (`3d6 explode >= 3
/// depth 1` cuts 4/3 a roll).
fn capped_note(capped: f64, unfinished: f64) -> String {
    let chains = format!(
        "explosion chains that reached their depth limit ({} rolls unless `depth N` says N + 1) and stopped there",
        program::DEPTH + 1
    );
    let rounds = "a `repeat` reached its limit of rounds unfinished";
    match (capped > 0.0, unfinished > 0.0) {
        (false, true) => {
            format!("exact probability that {rounds} (a roll of the dice stops there too)")
        }
        (true, true) => format!(
            "exact number, on average in a roll, of {chains} and of `repeat`s that reached their limit of rounds unfinished (no less than the chance that one did; a roll of the dice stops there too)"
        ),
        _ => format!(
            "exact number, on average in a roll, of {chains} (no less than the chance that one did; a roll of the dice stops there too)"
        ),
    }
}

/// A roll against an opposing roll: the margin, and who wins as the scenario's ties
/// say.
fn versus_metrics(
    sc: &Scenario,
    text: &str,
    states: &States,
    (who, other): (&str, &str),
) -> (Vec<Metric>, Headline) {
    let mut metrics = Vec::new();
    let value = |v: usize| states.value(v);
    let (description, map) = (
        format!("`{}` less `{text}`", sc.roll),
        (0..states.len()).map(|v| v as u16).collect(),
    );
    metrics.push(Metric::scaled(
        "margin",
        &description,
        states.scale.clone(),
        states.len(),
        map,
    ));
    let states = states.len();
    let (labels, map): (Vec<String>, Vec<u16>) = {
        let win = crate::text::wins(who);
        let lose = crate::text::wins(other);
        match sc.ties {
            Ties::Tie => (
                vec![win, "tie".into(), lose],
                (0..states)
                    .map(|v| match value(v).signum() {
                        1 => 0,
                        0 => 1,
                        _ => 2,
                    })
                    .collect(),
            ),
            Ties::Roll => (
                vec![win, lose],
                (0..states).map(|v| (value(v) < 0) as u16).collect(),
            ),
            Ties::Vs => (
                vec![win, lose],
                (0..states).map(|v| (value(v) <= 0) as u16).collect(),
            ),
        }
    };
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    metrics.push(Metric::categorical(
        "result",
        match sc.ties {
            Ties::Tie => "the higher roll wins; equal rolls tie",
            Ties::Roll => "the higher roll wins; ties go to the roll",
            Ties::Vs => "the higher roll wins; ties go to the opposing roll",
        },
        &refs,
        map,
    ));
    let headline = Headline {
        label: format!("P({})", labels[0]),
        metric: 1,
        values: vec![0],
        against: vec![labels.len() - 1],
    };
    (metrics, headline)
}

/// The headline of a roll read as a value: `at_least`'s, the top tier's, a success,
/// at least 1, or at least the median, over the first read's values.
fn value_headline(
    sc: &Scenario,
    reads: usize,
    (scale, fstates): (&Scale, usize),
    fexact: Option<&[f64]>,
) -> Headline {
    let fvalue = |v: usize| scale.at(v);
    let (flo, fhi) = (fvalue(0), fvalue(fstates.max(1) - 1));
    let binary = flo >= 0 && fhi <= 1;
    match (&sc.tiers, sc.at_least) {
        (_, Some(k)) => Headline {
            label: format!("P(at least {k})"),
            metric: 0,
            values: (0..fstates).filter(|&v| fvalue(v) >= k).collect(),
            against: Vec::new(),
        },
        (Some((t, names)), None) => Headline {
            label: format!("P({})", names[names.len() - 1]),
            metric: reads,
            values: vec![names.len() - 1],
            // Tiers at 0 and 1 read the value as a margin, as `vs` does: below
            // 0 the other side wins, 0 is a draw (`(me > 0) - (foe > 0)`).
            against: if t[..] == [0, 1] { vec![0] } else { Vec::new() },
        },
        (None, None) if binary => Headline {
            label: "P(success)".into(),
            metric: 0,
            values: (0..fstates).filter(|&v| fvalue(v) == 1).collect(),
            against: Vec::new(),
        },
        (None, None) if flo <= 0 && fhi >= 1 => Headline {
            label: "P(at least 1)".into(),
            metric: 0,
            values: (0..fstates).filter(|&v| fvalue(v) >= 1).collect(),
            against: Vec::new(),
        },
        (None, None) => {
            // At least the median, where the exact distribution says it is.
            let median = match fexact {
                Some(e) => {
                    let mut acc = 0.0;
                    let i = e
                        .iter()
                        .position(|p| {
                            acc += p;
                            acc >= 0.5
                        })
                        .unwrap_or(0);
                    fvalue(i)
                }
                None => (flo + fhi) / 2,
            };
            Headline {
                label: format!("P(at least {median})"),
                metric: 0,
                values: (0..fstates).filter(|&v| fvalue(v) >= median).collect(),
                against: Vec::new(),
            }
        }
    }
}

/// Tiers (`tiers`, `tier_names`): the named outcome each value reaches, by the first
/// read's values.
fn tiers_metric(
    (t, names): (&[i64], &[String]),
    read: &str,
    fmap: &[u16],
    scale: &Scale,
) -> Metric {
    let fvalue = |v: usize| scale.at(v);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    Metric::categorical(
        "outcome",
        &format!(
            "by the {}: {}",
            read,
            t.iter()
                .zip(&names[1..])
                .map(|(k, n)| format!("{k}+ {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        &refs,
        fmap.iter()
            .map(|&v| t.iter().filter(|&&k| fvalue(v as usize) >= k).count() as u16)
            .collect(),
    )
}

/// Compile a scenario; `cancel` stops its exact evaluation (which then reads as none).
pub fn compile(name: &str, sc: &Scenario, cancel: &Cancel) -> Compiled {
    let (exact, capped, unfinished) = exact_of(sc, cancel);
    // The tables start and end where a roll can land, in the steps between the values
    // it can take. (A sampled value outside would pile up in an end bucket, far from
    // its exact value, and the agreement tests would fail.)
    let (states, exact, fractions, ways) = match exact {
        Ok(Exact {
            states,
            p,
            fractions,
            ways,
        }) => (states, Ok(p), fractions, ways),
        Err(why) => (States::of_span(&sc.span), Err(why), None, None),
    };
    let warning = with_fraction_warning(sc.warning.clone(), exact.is_ok() && fractions.is_none());
    let warning = with_unknown_stops(warning, [capped.is_nan(), unfinished.is_nan()]);
    let known = |m: f64| if m.is_nan() { 0.0 } else { m };
    let (capped, unfinished) = (known(capped), known(unfinished));
    let who = sc.unit.clone().unwrap_or_else(|| "the roll".into());
    let other = sc
        .opponent
        .clone()
        .unwrap_or_else(|| "the other roll".into());
    let mut metrics = Vec::new();
    let headline;
    match &sc.vs {
        Some((text, _)) => {
            let (m, h) = versus_metrics(sc, text, &states, (&who, &other));
            metrics.extend(m);
            headline = h;
        }
        None => {
            // The result's metrics: `value`, or one per named result of a record, each
            // a digit of the packed value, over the values it takes.
            let reads: Vec<(String, String, Option<&program::Field>)> = match &sc.fields {
                None => vec![("value".into(), format!("`{}`", sc.roll), None)],
                Some(fields) => fields
                    .iter()
                    .map(|f| (f.name.clone(), format!("the roll's `{}`", f.name), Some(f)))
                    .collect(),
            };
            // Per read: its values at each state, its range, and its exact marginal.
            let mut first = None;
            let first_at = metrics.len();
            let values: Vec<i64> = (0..states.len()).map(|i| states.value(i)).collect();
            for (name, description, read) in &reads {
                let (metric, span) = read_metric(
                    (name, description),
                    *read,
                    &values,
                    exact.as_ref().ok().map(Vec::as_slice),
                    fractions.as_deref(),
                );
                metrics.push(metric);
                first.get_or_insert(span);
            }
            let (scale, fstates, fexact) =
                first.unwrap_or_else(|| (states.scale.clone(), states.len(), None));
            headline = value_headline(sc, reads.len(), (&scale, fstates), fexact.as_deref());
            if let Some((t, names)) = &sc.tiers {
                // Read off the first read's own metric: its value index at each state.
                let fmap = metrics.get(first_at).map_or(&[][..], |m| &m.map[..]);
                let tiers = tiers_metric((t, names), &reads[0].0, fmap, &scale);
                metrics.push(tiers);
            }
        }
    }
    Compiled::new(
        name,
        description(sc, exact.as_ref().err()),
        Box::new(DiceTrial {
            roll: sc.roll_node.clone(),
            vs: sc.vs.as_ref().map(|v| v.1.clone()),
            states,
            prepared: crate::lazy::Lazy::new(),
        }),
        metrics,
        headline,
    )
    .exact(exact.ok())
    .exact_fractions(fractions)
    .exact_ways(ways)
    .capped(capped + unfinished, Some(capped_note(capped, unfinished)))
    .policy(program::policy(&sc.roll_node))
    .warning(warning)
}

/// The scenario's warning, and where its exact values have no fractions, that they have
/// none and why: the empty column would say nothing.
fn with_fraction_warning(warning: Option<String>, no_fraction: bool) -> Option<String> {
    if !no_fraction {
        return warning;
    }
    let why = format!(
        "its exact probabilities carry no fraction: counting them in whole numbers took more than its {} operations, or met a part it does not count",
        exact::LAW_WORK
    );
    Some(match warning {
        Some(w) => format!("{w}; {why}"),
        None => why,
    })
}

/// The scenario's warning, and where the law could not tell how often a chain stopped
/// at its depth or a `repeat` at its limit was reached, that it was not: a mass left
/// out of the report would read as none stopped.
fn with_unknown_stops(warning: Option<String>, [chains, rounds]: [bool; 2]) -> Option<String> {
    let what = match (chains, rounds) {
        (false, false) => return warning,
        (true, false) => "explosion chains",
        (false, true) => "`repeat`s",
        (true, true) => "explosion chains and `repeat`s",
    };
    let why = format!(
        "{what} in this roll can stop at their limits (as a roll of the dice does), and how often was not worked out exactly"
    );
    Some(match warning {
        Some(w) => format!("{w}; {why}"),
        None => why,
    })
}

/// The roll (against its `vs`), and why it has no exact distribution where it has none.
fn description(sc: &Scenario, no_exact: Option<&String>) -> String {
    let exact_note = match no_exact {
        None => String::new(),
        Some(why) => format!("; no exact distribution ({why}): Monte Carlo only"),
    };
    match &sc.vs {
        Some((v, _)) => format!("`{}` against `{v}`{exact_note}", sc.roll),
        None => format!("`{}`{exact_note}", sc.roll),
    }
}

/// What one read of the result spans: the numbers of its values, how many, and its
/// exact marginal (each state's value index is its metric's map).
type ReadSpan = (Scale, usize, Option<Vec<f64>>);

/// One read of the result (the value, or one named result of a record) as a metric
/// over the values it can take, given the result's value at each state.
fn read_metric(
    (name, description): (&str, &str),
    read: Option<&program::Field>,
    values: &[i64],
    exact: Option<&[f64]>,
    fractions: Option<&[Fraction]>,
) -> (Metric, ReadSpan) {
    let at: Vec<i64> = values
        .iter()
        .map(|&v| read.map_or(v, |f| f.of(v)))
        .collect();
    // The values a roll can take, where the exact distribution says which.
    let possible: Vec<i64> = match exact {
        Some(e) => at
            .iter()
            .enumerate()
            .filter(|&(i, _)| match fractions {
                Some(f) => !f[i].is_zero(),
                None => e[i] > 0.0,
            })
            .map(|(_, v)| *v)
            .collect(),
        None => at.clone(),
    };
    let flo = possible.iter().copied().min().unwrap_or(0);
    let fhi = possible.iter().copied().max().unwrap_or(0);
    // Values that all lie a whole number of steps apart (Farkle's multiples
    // of 50) are shown in those steps: the values between cannot happen.
    // Only where the exact distribution says so: Monte Carlo alone knows
    // nothing of what cannot happen.
    let step = match exact {
        // In magnitudes: a doubling saturated at the largest whole number lies more
        // than i64 can hold above -1.
        Some(_) => possible
            .iter()
            .fold(0u64, |g, v| num_integer::gcd(g, v.abs_diff(flo)))
            .clamp(1, i64::MAX as u64) as i64,
        None => 1,
    };
    // Values that lie unevenly over more numbers than a table holds (a stress die's
    // doublings) are listed: the values the states stand for (which the exact
    // distribution said they are, unless it was stopped since).
    let steps = (i128::from(fhi) - i128::from(flo)) / i128::from(step);
    let listed: Option<Arc<[i64]>> = (steps >= MAX_STATES as i128).then(|| {
        let mut v = possible;
        v.sort_unstable();
        v.dedup();
        v.into()
    });
    let (scale, span) = match &listed {
        Some(v) => (Scale::Listed(v.clone()), v.len()),
        None => (
            Scale::Steps { offset: flo, step },
            ((fhi - flo) / step + 1) as usize,
        ),
    };
    // A value off the steps (none, if the two engines agree) goes to the
    // nearest step, where the agreement checks see it.
    let map: Vec<u16> = at
        .iter()
        .map(|&v| match &listed {
            Some(values) => nearest(values, v) as u16,
            None => (v - flo + step / 2)
                .div_euclid(step)
                .clamp(0, span as i64 - 1) as u16,
        })
        .collect();
    let marginal = exact.map(|e| {
        let mut m = vec![0.0; span];
        for (i, p) in map.iter().zip(e) {
            m[*i as usize] += p;
        }
        m
    });
    let metric = Metric::scaled(name, description, scale.clone(), span, map);
    (metric, (scale, span, marginal))
}

/// The greatest common divisor of two whole numbers, at least 0 (`gcd(0, x)` is `|x|`).
fn gcd(a: i64, b: i64) -> i64 {
    // In magnitudes, so that no sign (i64::MIN's) can overflow.
    num_integer::gcd(a.unsigned_abs(), b.unsigned_abs()).min(i64::MAX as u64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mean and a headline's chance summed from the states' ways (one reduction)
    /// equal the same sums of the values' fractions in lowest terms (one long division
    /// each), on rolls whose fractions run to hundreds of digits; and 3d6's mean from
    /// its ways is the 21/2 of 3 x 7/2.
    #[test]
    fn sums_from_the_ways_equal_sums_of_the_fractions() {
        for roll in [
            "3d6",
            "12d6 again 6 count >= 5",
            "7d10 again >= 8 count >= 8",
            "d20 explode on 10, 20",
            "4d6 keep highest 3 - 12",
            "let p = 20d6 in p count 6 + (p count >= 3 - p count 6)d6 count >= 4",
        ] {
            let cancel = Cancel::new();
            let config = config::one_liner(roll, None, &cancel).expect(roll);
            let c = compile("roll", &config.scenarios[0].scenario, &cancel);
            let m = &c.metrics[0];
            let f = c.metric_fractions(m).expect(roll);
            let mean = c.metric_sum(m, |v| m.scale.at(v)).expect(roll);
            assert_eq!(mean, crate::results::mean_fraction(&f, &m.scale), "{roll}");
            let values = &c.headline.values;
            let chance = c.metric_sum(m, |v| values.contains(&v) as i64).expect(roll);
            let parts = values.iter().map(|&v| (&f[v], 1));
            assert_eq!(chance, Fraction::sum(parts), "{roll}");
            if roll == "3d6" {
                assert_eq!(mean.to_string(), "21/2");
            }
            if roll.starts_with("12d6") {
                assert!(f.iter().any(|f| f.bits() > 600), "{roll}: short fractions");
            }
        }
    }
}
