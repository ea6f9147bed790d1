//! Every table a command writes, as polars DataFrames in memory: no files, no charts, no
//! text to parse back. The command line's words choose what to compute, so a table here
//! has the same columns, types and cells as the CSV the same command writes; a balance
//! command (`["compare", CONFIG, "-s", SCENARIO]`) hands over its matrices long and wide,
//! a roster its ratings and costs, under the names of the files it writes.
//!
//! ```
//! use polars::prelude::DataType;
//!
//! let cancel = rollsim::Cancel::new();
//! let t = rollsim::tables::of(["roll", "3d6", "--exact-only"], &cancel)?;
//! let d = t.get("distribution").expect("a roll has its distribution");
//! // 3d6 shows 16 values, 3 to 18; 10 comes up 27 times in 216.
//! assert_eq!(d.height(), 16);
//! let exact = d.column("exact")?.f64()?;
//! assert_eq!(exact.get(7), Some(0.125));
//! // Nothing was simulated: the Monte Carlo columns are empty, and still floats.
//! assert_eq!(d.column("probability")?.dtype(), &DataType::Float64);
//! assert_eq!(d.column("probability")?.null_count(), 16);
//!
//!
//! // With Monte Carlo beside it, the same table has its counts and intervals.
//! let t = rollsim::tables::of(["roll", "3d6", "-n", "10000", "--seed", "7"], &cancel)?;
//! let d = t.get("distribution").unwrap();
//! assert_eq!(d.column("trials")?.u64()?.get(0), Some(10_000));
//! let total: u64 = d.column("count")?.u64()?.iter().flatten().sum();
//! assert_eq!(total, 10_000);
//! // `summary` and `headline` come with it, as the command line writes them.
//! assert_eq!(t.names().collect::<Vec<_>>(), ["distribution", "summary", "headline"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::app::{AppError, RollOptions};
use crate::cli::{Cli, Command};
use crate::report::frame;
use crate::report::ScenarioResult;
pub use polars::prelude::DataFrame;
use polars::prelude::DataType;
use rollsim_core::Cancel;

/// A command's tables by name (the file stem the command line writes them under), in
/// the order it writes them.
#[derive(Clone, Debug, Default)]
pub struct Tables(Vec<(String, DataFrame)>);

impl Tables {
    /// The table the command line writes as `NAME.csv`.
    pub fn get(&self, name: &str) -> Option<&DataFrame> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, df)| df)
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(n, _)| n.as_str())
    }

    /// Every table, given up, in order.
    pub fn into_vec(self) -> Vec<(String, DataFrame)> {
        self.0
    }

    /// The same tables with a distribution's `value` as integers where every value is
    /// one (a sum, a count), so that it sorts and plots as numbers; text where any is a
    /// word (`win`, `draw`). The CSV holds the same digits either way; a front end with
    /// types of its own (the Python package) wants the numbers.
    pub fn with_numeric_values(mut self) -> Tables {
        for (name, df) in &mut self.0 {
            if name == "distribution" {
                numeric_values(df);
            }
        }
        self
    }
}

/// A distribution's `value` as integers where every value is one (a sum, a count), so
/// that it sorts and plots as numbers; text where any value is a word (`win`).
fn numeric_values(df: &mut DataFrame) {
    let ints = df
        .column("value")
        .ok()
        .filter(|c| c.dtype() == &DataType::String)
        .and_then(|c| c.strict_cast(&DataType::Int64).ok());
    if let Some(ints) = ints {
        // Same name, same height: replacing a column cannot fail.
        let _ = df.with_column(ints);
    }
}

/// The tables `rollsim ARGS...` would write (`run`, `roll`, `compare`, `sweep`,
/// `sensitivity`, `equalize`, `roster`), computed with the same options and defaults and
/// kept in memory. `cancel` stops the computation as Ctrl-C stops the command.
pub fn of<I, T>(args: I, cancel: &Cancel) -> Result<Tables, AppError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli: Cli = crate::command::parse(args)?;
    crate::command::unused_together(&cli)?;
    crate::command::check_trial_cap(&cli)?;
    let named = match cli.command {
        Some(c @ (Command::Run(_) | Command::Roll(_))) => {
            let results = crate::command::results_of(c, cancel)?;
            frame::report_tables(&results)?
        }
        Some(c) if c.is_analysis() => crate::command::balance_command(c, false, cancel)?.tables()?,
        _ => {
            return Err(AppError::BadOption(
                "this command writes no tables to hand over; give run, roll, compare, sweep, sensitivity, equalize or roster".into(),
            ))
        }
    };
    Ok(Tables(
        named.into_iter().map(|(n, f)| (n, f.into_df())).collect(),
    ))
}

/// A roll as a notebook asks for it: the options of `rollsim roll` that change its
/// numbers, typed. [`roll`] gives the tables [`of`] gives for `["roll", expr, ...]`.
#[derive(Clone, Debug, Default)]
pub struct Roll {
    /// The expression (`roll EXPR`).
    pub expr: String,
    /// `--vs EXPR`.
    pub vs: Option<String>,
    /// `-n`; None: the command line's default.
    pub trials: Option<u64>,
    /// `--seed`; None: the command line's default.
    pub seed: Option<u64>,
    /// `--threads` (1 to 1024); None: one per core.
    pub threads: Option<usize>,
    /// `--exact-only`.
    pub exact_only: bool,
    /// `--no-trial-cap`.
    pub no_trial_cap: bool,
}

/// A roll's tables without the command line's parser: parse the expression, evaluate,
/// frame. Building the parser of every command took half of a small exact roll's time
/// in a notebook, where a slider asks for one roll after another.
pub fn roll(r: &Roll, cancel: &Cancel) -> Result<Tables, AppError> {
    roll_held(r, cancel)?.tables()
}

/// A roll's results, held for its tables and charts (see [`roll`]).
pub fn roll_held(r: &Roll, cancel: &Cancel) -> Result<Held, AppError> {
    if let Some(n) = r.trials.filter(|_| !r.no_trial_cap) {
        crate::command::trial_cap(n)?;
    }
    if let Some(t) = r.threads.filter(|t| !(1..=1024).contains(t)) {
        return Err(AppError::BadOption(format!(
            "--threads {t}: give 1 to 1024 worker threads"
        )));
    }
    let o = RollOptions {
        roll: r.expr.clone(),
        vs: r.vs.clone(),
        trials: r.trials,
        precision: None,
        max_trials: crate::app::DEFAULT_MAX_TRIALS,
        seed: r.seed,
        threads: r.threads,
        exact_only: r.exact_only,
        out: None,
        formats: Vec::new(),
        plots: false,
        svg: false,
        quiet: true,
        cancel: cancel.clone(),
    };
    Ok(Held(crate::app::roll::results(&o)?))
}

/// The results of `rollsim run ...` or `rollsim roll ...` (`args` without the program's
/// name), held for their tables and charts.
pub fn held<I, T>(args: I, cancel: &Cancel) -> Result<Held, AppError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Ok(Held(crate::command::results(args, cancel)?))
}

/// A `run` or `roll`'s results kept in memory: its tables and its charts come from the
/// same numbers, and a chart asked for later is drawn without computing anything again.
#[derive(Clone, Debug)]
pub struct Held(Vec<ScenarioResult>);

/// Which chart of a metric [`Held::png`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chart {
    /// Each value's probability (`METRIC.png`).
    Distribution,
    /// P(at least k) (`METRIC_at_least.png`).
    AtLeast,
}

impl Held {
    /// The tables, as [`of`] makes them for the same command line.
    pub fn tables(&self) -> Result<Tables, AppError> {
        Ok(Tables(
            frame::report_tables(&self.0)?
                .into_iter()
                .map(|(n, f)| (n, f.into_df()))
                .collect(),
        ))
    }

    /// One of the tables every run has, made alone (`distribution`, with its `value`
    /// as numbers where it is one, `summary` or `headline`; None for any other name): a
    /// notebook that reads one table pays for that one.
    pub fn table(&self, name: &str) -> Result<Option<DataFrame>, AppError> {
        let made = match name {
            "distribution" => frame::distribution_numbers(&self.0)?,
            "summary" => frame::summary(&self.0)?,
            "headline" => frame::headline(&self.0)?,
            _ => return Ok(None),
        };
        let mut df = made.into_df();
        if name == "distribution" {
            // Where `distribution_numbers` kept the labels (one is not its value's
            // text), they are cast as `tables` casts them: the same column either way.
            numeric_values(&mut df);
        }
        Ok(Some(df))
    }

    /// The first scenario's headline number as the first row of the `headline` table
    /// gives it: exact where there is an exact value, else the Monte Carlo estimate.
    pub fn headline(&self) -> Option<f64> {
        let r = self.0.first()?;
        r.headline
            .exact
            .or((r.trials > 0).then_some(r.headline.probability))
    }

    /// What the command line says beside the numbers, scenario by scenario: its
    /// warnings and notes (a precision not reached, a config's advice) and the mass a
    /// limit cut (an explosion's depth, a `repeat`'s rounds), in the command line's
    /// words, each led by the scenario's name.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for r in &self.0 {
            if let Some(note) = &r.note {
                notes.push(format!("{}: {note}", r.name));
            }
            if let Some(cut) = r.capped_said() {
                notes.push(format!("{}: {cut}", r.name));
            }
        }
        notes
    }

    /// The first charted metric's chart of the first scenario that has one, as the
    /// command line draws it (the PNG's bytes, equal to its file's).
    pub fn png(&self, chart: Chart) -> Result<Vec<u8>, AppError> {
        use crate::report::plot::{bars_png, scenario::drawings, scenario::Drawing};
        let found = self.0.iter().find_map(|r| {
            drawings(r)
                .into_iter()
                .find_map(|(_, drawing)| match (chart, drawing) {
                    (Chart::Distribution, Drawing::Distribution(bars))
                    | (Chart::AtLeast, Drawing::AtLeast(bars)) => Some(bars),
                    _ => None,
                })
        });
        let Some(bars) = found else {
            return Err(AppError::BadOption(format!(
                "no {} chart: no scenario here has a metric drawn that way",
                match chart {
                    Chart::Distribution => "distribution",
                    Chart::AtLeast => "P(at least k)",
                }
            )));
        };
        Ok(bars_png(&bars)?)
    }
}
