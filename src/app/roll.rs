//! `rollsim roll EXPR [--vs EXPR]`: a one-line question without a config. The system
//! with a language of its own writes the config; the run is an ordinary one.

use super::Format;
use super::{compute_config, write_reports, RunOptions};
use crate::config;
use crate::error::AppError;
use crate::model::Compiled;
use crate::report::markdown::{Align, Table};
use crate::report::stage::{Keep, Staging};
use crate::report::ScenarioResult;
use rollsim_core::Cancel;
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct RollOptions {
    pub roll: String,
    pub vs: Option<String>,
    pub trials: Option<u64>,
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

/// The config text of a one-liner, from the first system that has a language.
fn one_liner(o: &RollOptions) -> Result<String, AppError> {
    crate::systems::REGISTRY
        .iter()
        .find_map(|s| s.one_liner(&o.roll, o.vs.as_deref()))
        .ok_or_else(|| AppError::BadOption("no system reads expressions".into()))?
        .map_err(AppError::BadOption)
}

pub fn roll(o: &RollOptions) -> Result<String, AppError> {
    let text = one_liner(o)?;
    // The config is ours, not the user's: a problem with it is a problem with one of
    // the expressions, said in their words, not at a line of a file they never wrote.
    let cfg = config::load_str(&text, "rollsim roll", &[]).map_err(|e| match e {
        config::ConfigError::Invalid { key, message, .. } => {
            let (what, expr) = match key.rsplit('.').next() {
                Some("vs") => ("--vs", o.vs.clone().unwrap_or_default()),
                _ => ("roll", o.roll.clone()),
            };
            AppError::BadOption(format!("{what} `{}`: {message}", expr.escape_debug()))
        }
        other => AppError::Config(other),
    })?;
    let c = crate::balance::compile(&cfg, "roll", &o.cancel)?;
    if o.exact_only {
        return Ok(table(&c, None));
    }
    let target = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports/roll"));
    // The scenario is built in memory: no file is written for it.
    let mut ro = RunOptions::new("roll");
    ro.cancel = o.cancel.clone();
    ro.trials = Some(o.trials.unwrap_or(DEFAULT_TRIALS));
    ro.seed = o.seed;
    ro.threads = o.threads;
    ro.out = Some(target.clone());
    ro.formats = o.formats.clone();
    ro.plots = o.plots;
    ro.quiet = o.quiet;
    let stage = Staging::begin(&target, Keep::Report)?;
    let out = compute_config(&cfg, &ro, None)?;
    write_reports(
        &out.results,
        stage.dir(),
        &ro.formats,
        super::charts(ro.plots, o.svg),
        &ro.cancel,
    )?;
    ro.cancel.check()?;
    stage.commit()?;
    let mut s = table(&c, out.results.first());
    s.push_str(&format!("\nTables and charts: {}\n", target.display()));
    Ok(s)
}

/// The result's distribution: each value's exact probability and P(at least it), and
/// the Monte Carlo estimate with its 95% CI when there is a run.
fn table(c: &Compiled, run: Option<&ScenarioResult>) -> String {
    let m = &c.metrics[0];
    let exact = c.exact.as_ref().map(|e| m.project_f64(e));
    let mut head = vec![("value", Align::Right)];
    if exact.is_some() {
        head.extend([("exact", Align::Right), ("at least (exact)", Align::Right)]);
    }
    if run.is_some() {
        head.extend([("Monte Carlo", Align::Right), ("95% CI", Align::Left)]);
    }
    let mut t = Table::new(head);
    let rows = run.map(|r| &r.metrics[0].rows);
    let n = m.labels.len();
    let mut tail: f64 = exact.as_ref().map_or(0.0, |e| e.iter().sum());
    let pct = |p: f64| format!("{:.4}%", 100.0 * p);
    for v in 0..n {
        let e = exact.as_ref().map(|e| e[v]);
        let mc = rows.and_then(|r| r.get(v));
        // Values no roll reaches say nothing.
        if e.unwrap_or(0.0) == 0.0 && mc.is_none_or(|r| r.count == 0) {
            if let Some(e) = e {
                tail -= e;
            }
            continue;
        }
        let mut cells = vec![m.labels[v].clone()];
        if let Some(e) = e {
            cells.push(pct(e));
            cells.push(pct(tail.clamp(0.0, 1.0)));
            tail -= e;
        }
        if let Some(r) = mc {
            cells.push(pct(r.probability));
            cells.push(format!("{} .. {}", pct(r.ci_low), pct(r.ci_high)));
        } else if run.is_some() {
            cells.extend([pct(0.0), String::new()]);
        }
        t.row(cells);
    }
    let mean_exact = exact.as_ref().map(|e| {
        e.iter()
            .enumerate()
            .map(|(v, p)| m.value(v) * p)
            .sum::<f64>()
    });
    let mut s = format!("{}\n\n{}", c.description, t.render());
    if let Some(me) = mean_exact {
        s.push_str(&format!("\nmean (exact): {me:.4}"));
    }
    if let Some(r) = run {
        let mr = &r.metrics[0];
        if let (Some(mean), Some(ci)) = (mr.mean, mr.mean_ci) {
            s.push_str(&format!(
                "\nmean (Monte Carlo, {} rolls, seed {}): {mean:.4} [{:.4}, {:.4}]",
                r.trials, r.seed, ci.0, ci.1
            ));
        }
        s.push_str(&format!(
            "\n{}: {:.4}%",
            c.headline.label,
            100.0 * r.headline.probability
        ));
        if let Some(e) = r.headline.exact {
            s.push_str(&format!(" (exact {:.4}%)", 100.0 * e));
        }
    }
    if run.is_none() {
        if let Some(p) = c.headline_exact() {
            s.push_str(&format!(
                "\n{} (exact): {:.4}%",
                c.headline.label,
                100.0 * p
            ));
        }
    }
    if c.capped_mass > 0.0 {
        let note = c
            .capped_note
            .as_deref()
            .unwrap_or("exact mass in the capped top bucket");
        s.push_str(&format!("\n{note}: {:.3e}", c.capped_mass));
    }
    s.push('\n');
    s
}
