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

use crate::app::AppError;
use crate::cli::{Cli, Command};
use crate::report::frame;
use polars::prelude::DataFrame;
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
    let named = match cli.command {
        Some(c @ (Command::Run(_) | Command::Roll(_))) => {
            let results = crate::command::results_of(c, cancel)?;
            frame::report_tables(&results)?
        }
        Some(
            c @ (Command::Compare(_)
            | Command::Roster(_)
            | Command::Sweep(_)
            | Command::Sensitivity(_)
            | Command::Overlay(_)
            | Command::Equalize(_)),
        ) => crate::command::balance_command(c, false, cancel)?.tables()?,
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
