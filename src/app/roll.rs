//! `rollsim roll EXPR [--vs EXPR]`: a one-line question without a config. The system
//! with a language of its own builds the config from the expressions, parsed once
//! (`config::one_liner`); the run is an ordinary one.

use super::Format;
use super::{compute_given, to_stdout, write_reports, RunOptions};
use crate::config;
use crate::error::AppError;
use crate::report::markdown::{self, Align, Table};
use crate::report::stage::{Keep, Staging};
use crate::report::{MetricResult, ScenarioResult};
use rollsim_core::Cancel;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct RollOptions {
    pub roll: String,
    pub vs: Option<String>,
    pub trials: Option<u64>,
    /// `--precision`: roll until every probability is this precise (95% half-width).
    pub precision: Option<f64>,
    /// `--max-trials`: the cap on trials under `precision`.
    pub max_trials: u64,
    pub seed: Option<u64>,
    pub threads: Option<usize>,
    pub exact_only: bool,
    pub out: Option<PathBuf>,
    pub formats: Vec<Format>,
    pub plots: bool,
    /// Every chart as SVG too (`--charts png,svg`).
    pub svg: bool,
    pub quiet: bool,
    /// Stops the run (the binary's Ctrl-C handler holds a clone).
    pub cancel: Cancel,
}

/// Trials when the command line does not say.
pub const DEFAULT_TRIALS: u64 = 1_000_000;

/// The results `roll` writes, computed without writing anything (the Python package's
/// tables).
pub fn results(o: &RollOptions) -> Result<Vec<ScenarioResult>, AppError> {
    let (cfg, c) = compiled(o)?;
    Ok(compute_given(&cfg, &run_options(o), None, vec![c])?.results)
}

/// The one-liner's config and its one scenario, compiled; `--exact-only` on an
/// expression without an exact distribution is refused here.
fn compiled(
    o: &RollOptions,
) -> Result<(config::AnalysisConfig, rollsim_core::model::Compiled), AppError> {
    // The config is ours, not the user's: a problem with it is a problem with one of
    // the expressions, said in their words, not at a line of a file they never wrote.
    let cfg = config::one_liner(&o.roll, o.vs.as_deref(), "rollsim roll", &o.cancel)
        .ok_or_else(|| AppError::BadOption("no system reads expressions".into()))?;
    // Ctrl-C during the expressions' checks: what they said is not theirs to say.
    o.cancel.check()?;
    let cfg = cfg.map_err(AppError::BadOption)?;
    let c = crate::balance::compile(&cfg, "roll", &o.cancel)?;
    if o.exact_only && c.exact.is_none() {
        return Err(AppError::BadOption(format!(
            "--exact-only: {}. Roll it without --exact-only for the Monte Carlo estimate",
            c.description
        )));
    }
    Ok((cfg, c))
}

pub fn roll(o: &RollOptions) -> Result<String, AppError> {
    let (cfg, c) = compiled(o)?;
    let ro = run_options(o);
    let (description, exact) = (c.description.clone(), c.exact.is_some());
    let given = vec![c];
    if to_stdout(&o.out) {
        return super::stream(&compute_given(&cfg, &ro, None, given)?, &ro.formats);
    }
    // An exact answer takes no time and is printed whole: files only where -o asks.
    let target = match (&o.out, o.exact_only) {
        (None, true) => None,
        (out, _) => Some(out.clone().unwrap_or_else(|| PathBuf::from("reports/roll"))),
    };
    let results = match &target {
        None => compute_given(&cfg, &ro, None, given)?.results,
        Some(target) => {
            let stage = Staging::begin(target, Keep::Report)?.stopped_by(&ro.cancel);
            let out = compute_given(&cfg, &ro, None, given)?;
            write_reports(
                &out.results,
                stage.dir(),
                &ro.formats,
                super::charts(ro.plots, o.svg, &ro.cancel),
                &ro.cancel,
            )?;
            ro.cancel.check()?;
            stage.commit()?;
            out.results
        }
    };
    let r = results
        .first()
        .ok_or_else(|| AppError::BadOption("the roll gave no result".into()))?;
    let mut s = table(&description, exact, r, !o.exact_only);
    if o.formats.contains(&Format::Md) {
        s.push('\n');
        s.push_str(&markdown::full(&results));
    }
    if let Some(target) = target {
        let _ = write!(s, "\nTables and charts: {}\n", target.display());
    }
    Ok(s)
}

/// The run a roll is: the scenario is built in memory, no file is written for it.
fn run_options(o: &RollOptions) -> RunOptions {
    let mut ro = RunOptions::new("roll");
    ro.cancel = o.cancel.clone();
    match o.precision {
        Some(eps) => {
            ro.precision = Some(eps);
            ro.max_trials = o.max_trials;
        }
        None => ro.trials = Some(o.trials.unwrap_or(DEFAULT_TRIALS)),
    }
    ro.seed = o.seed;
    ro.threads = o.threads;
    ro.out = o.out.clone();
    ro.formats = o.formats.clone();
    ro.plots = o.plots;
    ro.svg = o.svg;
    ro.quiet = o.quiet;
    ro.exact_only = o.exact_only;
    ro
}

fn pct(p: f64) -> String {
    rollsim_core::text::percent(p, 4)
}

/// An exact value with the fraction it is, where it is one: `10.5000 = 21/2`; a whole
/// number (`2.0000`) says all there is without its `2/1`.
fn with_fraction(shown: String, f: Option<&rollsim_core::results::Fraction>) -> String {
    match f {
        Some(f) if !f.is_whole() => format!("{shown} = {}", f.shown()),
        _ => shown,
    }
}

/// Every metric of the roll (the result, and with `--vs` who wins): each value's exact
/// probability and fraction, P(at least it) for numbers, and the Monte Carlo estimate
/// with its 95% CI when `mc`; then the means and the headline.
fn table(description: &str, exact: bool, r: &ScenarioResult, mc: bool) -> String {
    let mut s = format!("{description}\n\n");
    // The roll's own value needs no heading; several results (a record, a `--vs`)
    // each get theirs.
    let named =
        r.metrics.len() > 1 && r.metrics[0].name != "value" && r.metrics[0].name != "margin";
    for (i, m) in r.metrics.iter().enumerate() {
        if i > 0 || named {
            let _ = write!(s, "\n**{}**: {}\n\n", m.name, m.description);
        }
        s.push_str(&metric_table(m, exact, mc));
    }
    for m in r.metrics.iter().filter(|m| m.numeric) {
        // One numeric metric is the roll's own value: its mean needs no name.
        let name = if r.metrics.len() > 1 {
            format!(" of {}", m.name)
        } else {
            String::new()
        };
        if let Some(e) = m.exact_mean {
            let shown = crate::text::fixed(e, 4);
            let _ = write!(
                s,
                "\nmean{name} (exact): {}",
                with_fraction(shown, m.exact_mean_fraction.as_ref())
            );
        }
        if let (true, Some(mean), Some(ci)) = (mc, m.mean, m.mean_ci) {
            let _ = write!(
                s,
                "\nmean{name} (Monte Carlo, {} rolls, seed {}): {} [{}, {}]",
                r.trials,
                r.seed,
                crate::text::fixed(mean, 4),
                crate::text::fixed(ci.0, 4),
                crate::text::fixed(ci.1, 4)
            );
        }
    }
    let h = &r.headline;
    let exact_h = h
        .exact
        .map(|e| with_fraction(pct(e), h.exact_fraction.as_ref()));
    match (mc, exact_h) {
        (true, Some(e)) => {
            let _ = write!(s, "\n{}: {} (exact {e})", h.label, pct(h.probability));
        }
        (true, None) => {
            let _ = write!(s, "\n{}: {}", h.label, pct(h.probability));
        }
        (false, Some(e)) => {
            let _ = write!(s, "\n{} (exact): {e}", h.label);
        }
        (false, None) => {}
    }
    if let Some(cut) = r.capped_said() {
        let _ = write!(s, "\n{cut}");
    }
    if let Some(p) = &r.policy {
        let _ = write!(
            s,
            "\n\n**The choice**: which dice each roll keeps (the rest are rerolled)\n\n{p}"
        );
    }
    s.push('\n');
    s
}

/// One metric's rows; values no roll reaches (exactly and in the run) are left out.
fn metric_table(m: &MetricResult, exact: bool, mc: bool) -> String {
    let mut head = vec![(if m.numeric { "value" } else { "outcome" }, Align::Right)];
    if exact {
        head.extend([("exact", Align::Right), ("fraction", Align::Right)]);
        if m.numeric {
            head.push(("at least (exact)", Align::Right));
        }
    }
    if mc {
        head.extend([("Monte Carlo", Align::Right), ("95% CI", Align::Left)]);
    }
    let mut t = Table::new(head);
    let mut tail: f64 = m.rows.iter().filter_map(|r| r.exact).sum();
    let (rows, left_out) = rollsim_core::results::shown_rows(m);
    let sparse = m.sparse();
    // Whether a value before this one can happen.
    let mut passed = false;
    for row in rows {
        // The rows the CSV lists (`MetricResult::listed`); `shown_rows` has only cut a
        // trailing tail under 1e-15, which the note below names.
        if sparse && row.impossible() {
            continue;
        }
        // A value that can happen reads above 0 even where its float underflows (the
        // lowest sums of 450d6: 1/6^450), and the chance of it or more below 100% once a
        // value before it could happen.
        let possible = !row.exactly_zero();
        let e = match row.exact.unwrap_or(0.0) {
            0.0 if possible => f64::MIN_POSITIVE,
            e => e,
        };
        let mut cells = vec![row.label.clone()];
        if exact {
            cells.push(pct(e));
            cells.push(
                row.exact_fraction
                    .as_ref()
                    .map(|f| f.shown())
                    .unwrap_or_default(),
            );
            if m.numeric {
                // Where no value below can happen, every roll is this or more: exactly 1,
                // not the floats' sum (`3d6 keep middle 0 lowest` read ">99.9999%").
                let at_least = match passed {
                    false => 1.0,
                    true => rollsim_core::results::tidy_probability(tail.clamp(0.0, 1.0)),
                };
                cells.push(pct(match at_least {
                    1.0 if passed => 1.0 - f64::EPSILON,
                    0.0 if possible => f64::MIN_POSITIVE,
                    p => p,
                }));
            }
        }
        passed |= possible;
        tail -= e;
        if mc {
            cells.push(pct(row.probability));
            cells.push(format!("{} .. {}", pct(row.ci_low), pct(row.ci_high)));
        }
        t.row(cells);
    }
    let mut out = t.render();
    if let Some(note) = left_out {
        let _ = write!(out, "\n{note} (the CSV keeps every value)\n");
    }
    out
}
