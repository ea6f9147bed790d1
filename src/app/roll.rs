//! `rollsim roll EXPR [--vs EXPR]`: a one-line question without a config. The system
//! with a language of its own builds the config from the expressions, parsed once
//! (`config::one_liner`); the run is an ordinary one.

use super::Format;
use super::{compute_given, folder, streamed, to_stdout, RunOptions, Sink};
use crate::config;
use crate::error::AppError;
use crate::report::frame;
use crate::report::write::{Keep, Staging};
use crate::report::ScenarioResult;
use crate::report::{answer, markdown};
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

/// `rollsim roll`: the options read first, then the expressions compiled, then the run
/// computed once, then its outputs written (standard output, or the report folder), then
/// the answer printed.
pub fn roll(o: &RollOptions) -> Result<String, AppError> {
    let ro = run_options(o);
    let target = target(o);
    let (cfg, c) = compiled(o)?;
    let (description, exact) = (c.description.clone(), c.exact.is_some());
    // The folder is taken before the run: one that is not ours is refused before the
    // dice are rolled. An exact answer without `-o` goes nowhere but the terminal.
    let stage = match &target {
        Some(t) => Some(Staging::begin(t, Keep::Report)?.stopped_by(&ro.cancel)),
        None => None,
    };
    let sink = match (to_stdout(&o.out), &target) {
        (true, _) => Sink::Stdout,
        (false, Some(_)) => Sink::Folder,
        (false, None) => Sink::Terminal,
    };
    let (tables, md) = sink.wanted(&ro.formats);
    let out = compute_given(&cfg, &ro, None, vec![c])?;
    // What is written, made once: the tables its writers read, and the Markdown.
    let tables = frame::tables(&out.results, tables)?;
    let markdown = if md {
        Some(markdown::Report::new(&out.title, &out.results))
    } else {
        None
    };
    if sink == Sink::Stdout {
        return streamed::stream(markdown, &tables, &ro.formats, o.svg);
    }
    if let Some(stage) = stage {
        let charts = folder::charts(ro.plots, o.svg, &ro.cancel);
        folder::write_reports(
            &out.results,
            &tables,
            stage.dir(),
            &ro.formats,
            charts,
            &ro.cancel,
        )?;
        ro.cancel.check()?;
        stage.commit()?;
    }
    let r = out
        .results
        .first()
        .ok_or_else(|| AppError::BadOption("the roll gave no result".into()))?;
    let mut s = answer::answer(&description, exact, r, !o.exact_only);
    if let Some(markdown) = markdown {
        s.push('\n');
        s.push_str(&markdown.body);
    }
    if let Some(target) = target {
        let _ = write!(s, "\nTables and charts: {}\n", target.display());
    }
    Ok(s)
}

/// Where a roll writes its report: nowhere for `-o -` (standard output) and for an
/// exact answer, which takes no time and is printed whole, unless `-o` asks.
fn target(o: &RollOptions) -> Option<PathBuf> {
    match (&o.out, o.exact_only) {
        _ if to_stdout(&o.out) => None,
        (None, true) => None,
        (out, _) => Some(out.clone().unwrap_or_else(|| PathBuf::from("reports/roll"))),
    }
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
