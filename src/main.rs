//! Thin binary: parse flags, hand them to `rollsim::app`, map errors to exit codes
//! (0 ok, 2 bad input, 130 interrupted, 1 anything else).

mod cli;

use clap::Parser as _;
use cli::{BalanceArgs, Cli, Command, FormatArg, ResponseArg};
use rollsim::app::balance::{
    CompareOptions, EqualizeOptions, Options, OverlayOptions, RosterOptions, SweepOptions,
};
use rollsim::app::{self, balance as run_balance, AppError, Format, RunOptions};
use rollsim::Cancel;
use std::io::Write;

/// Text for a terminal: control characters from a config (an escape sequence that
/// would recolour or clear the screen, a carriage return that would hide a line) are
/// shown escaped, never sent; line breaks and tabs stay.
fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Print to stdout; a write error is an error (exit 1), except a closed pipe
/// (`rollsim list ... | head`), which ends quietly.
fn print(text: &str) {
    let text = terminal_safe(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: writing to standard output: {e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    // Ctrl-C and SIGTERM: the work stops at the next check and nothing is put in place.
    // The token is a value every command is handed, not a global.
    let cancel = Cancel::new();
    let stop = cancel.clone();
    let _ = ctrlc::set_handler(move || stop.cancel());
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version go to stdout (checked like any output), usage errors
            // to stderr with clap's exit code.
            let text = e.render().to_string();
            if e.use_stderr() {
                eprint!("{text}");
            } else {
                print(&text);
            }
            std::process::exit(e.exit_code());
        }
    };
    match run(cli, &cancel) {
        Ok(text) => print(&text),
        Err(e) => {
            eprintln!("error: {}", terminal_safe(&format!("{e:#}")));
            std::process::exit(e.exit_code());
        }
    }
}

fn format(f: FormatArg) -> Format {
    match f {
        FormatArg::Csv => Format::Csv,
        FormatArg::Parquet => Format::Parquet,
        FormatArg::Json => Format::Json,
        FormatArg::Md => Format::Md,
    }
}

fn balance(c: BalanceArgs, svg: bool, cancel: &Cancel) -> Options {
    let mut o = Options::new(c.config, &c.scenario);
    o.cancel = cancel.clone();
    o.svg = svg;
    o.metric = c.metric;
    o.seed = c.seed;
    o.trials = c.trials;
    o.exact_only = c.exact_only;
    o.threads = c.threads.get();
    o.out = c.out;
    o.sets = c.set.sets;
    o.plots = !c.plots.no_plots;
    o
}

fn run(cli: Cli, cancel: &Cancel) -> Result<String, AppError> {
    let svg = cli.charts.contains(&cli::ChartArg::Svg);
    // `-o -` streams a table on standard output, which only `run` and `roll` write:
    // anywhere else it would make a folder named `-`.
    let folder_only = match &cli.command {
        Some(Command::Compare(a)) => a.common.out.clone(),
        Some(Command::Roster(a)) => a.common.out.clone(),
        Some(Command::Sweep(a)) => a.common.out.clone(),
        Some(Command::Sensitivity(a)) => a.out.clone(),
        Some(Command::Equalize(a)) => a.common.out.clone(),
        Some(Command::Overlay(a)) => a.out.clone(),
        Some(Command::Merge(a)) => Some(a.out.clone()),
        Some(Command::Run(a)) if a.shard.is_some() => a.out.clone(),
        _ => None,
    };
    if app::to_stdout(&folder_only) {
        return Err(AppError::BadOption(
            "-o -: only `rollsim run` (without --shard) and `rollsim roll` write their table to standard output; give this command a folder, e.g. -o out".into(),
        ));
    }
    match cli.command {
        None => app::run_all(cli.quiet, cli.trials, cli.threads.get(), svg, cancel),
        Some(Command::List(a)) => app::list(&a.config, &a.set.sets, cancel),
        Some(Command::Check(a)) => app::check(&a.config, &a.set.sets, cancel),
        Some(Command::Compare(a)) => run_balance::compare(&CompareOptions {
            common: balance(a.common, svg, cancel),
            attackers: a.attackers,
            defenders: a.defenders,
            best_response: a.response == ResponseArg::Best,
        }),
        Some(Command::Roster(a)) => run_balance::roster(&RosterOptions {
            common: balance(a.common, svg, cancel),
            units: a.units,
            best_response: a.response == ResponseArg::Best,
            count: a.count,
            reference: a.reference,
        }),
        Some(Command::Sweep(a)) => run_balance::sweep(&SweepOptions {
            common: balance(a.common, svg, cancel),
            vary: a.vary,
        }),
        Some(Command::Sensitivity(c)) => run_balance::sensitivity(&balance(c, svg, cancel)),
        Some(Command::Overlay(a)) => run_balance::overlay(&OverlayOptions {
            entries: a.entries,
            metric: a.metric,
            seed: a.seed,
            trials: a.trials,
            threads: a.threads.get(),
            out: a.out,
            plots: !a.plots.no_plots,
            svg,
            cancel: cancel.clone(),
        }),
        Some(Command::Equalize(a)) => run_balance::equalize(&EqualizeOptions {
            common: balance(a.common, svg, cancel),
            target: a.target,
            pairs: a.pairs,
        }),
        Some(Command::Run(a)) => {
            let mut o = RunOptions::new(a.config);
            o.scenarios = a.scenarios;
            o.trials = a.trials;
            o.seed = a.seed;
            o.threads = a.threads.get();
            o.precision = a.precision;
            o.max_trials = a.max_trials;
            o.out = a.out;
            o.sets = a.set.sets;
            o.formats = a.format.into_iter().map(format).collect();
            o.plots = !a.plots.no_plots;
            o.quiet = a.quiet;
            o.exact_only = a.exact_only;
            o.cancel = cancel.clone();
            o.svg = svg;
            match a.shard {
                Some(s) => rollsim::app::shard::run(&o, rollsim::app::shard::parse_shard(&s)?),
                None => app::run(&o),
            }
        }
        Some(Command::Serve(a)) => rollsim::serve::serve(&rollsim::serve::ServeOptions {
            dir: a.dir,
            bind: a.bind,
            port: a.port,
            cancel: cancel.clone(),
        }),
        Some(Command::Roll(a)) => app::roll(&app::RollOptions {
            roll: a.roll,
            vs: a.vs,
            trials: a.trials,
            seed: a.seed,
            threads: a.threads.get(),
            exact_only: a.exact_only,
            out: a.out,
            formats: a.format.into_iter().map(format).collect(),
            plots: !a.plots.no_plots,
            quiet: a.quiet,
            svg,
            cancel: cancel.clone(),
        }),
        Some(Command::Merge(a)) => rollsim::app::shard::merge(
            &a.parts,
            &a.out,
            &a.format.into_iter().map(format).collect::<Vec<_>>(),
            app::charts(!a.plots.no_plots, svg),
            cancel,
        ),
    }
}
