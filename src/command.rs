//! A command line run in-process: the flags parsed as the binary parses them, handed to
//! [`crate::app`], the text it prints returned. The binary and the Python package both go
//! through here, so a notebook's numbers and errors are the command line's.

use crate::app::balance::Command as BalanceCommand;
use crate::app::balance::{
    CompareOptions, EqualizeOptions, Options, OverlayOptions, RosterOptions, Sharing, SweepOptions,
};
use crate::app::scheduler::Found;
use crate::app::{self, AppError, Format, RunOptions};
use crate::cli::{self, BalanceArgs, Cli, Command, FormatArg, ResponseArg};
use clap::Parser as _;
use rollsim_core::Cancel;

/// Run the command line `args` (without the program's name) until it ends or `cancel`
/// is cancelled; what it would print on standard output. A usage error is bad input
/// with clap's message.
pub fn execute<I, T>(args: I, cancel: &Cancel) -> Result<String, AppError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match parsed(args)? {
        Parsed::Cli(cli) => run(*cli, cancel),
        Parsed::Answer(text) => Ok(text),
    }
}

/// A command line as clap reads it: a command to run, or an answer already (`--help`,
/// `--version`, which the binary prints on stdout).
enum Parsed {
    Cli(Box<Cli>),
    Answer(String),
}

/// `args` (without the program's name) as the binary parses them; a usage error is bad
/// input with clap's message.
fn parsed<I, T>(args: I) -> Result<Parsed, AppError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let argv = std::iter::once(std::ffi::OsString::from("rollsim"))
        .chain(args.into_iter().map(Into::into));
    match Cli::try_parse_from(argv) {
        Ok(cli) => Ok(Parsed::Cli(Box::new(cli))),
        Err(e) if !e.use_stderr() => Ok(Parsed::Answer(e.render().to_string())),
        Err(e) => Err(AppError::BadOption(
            e.render().to_string().trim_end().to_string(),
        )),
    }
}

/// Whether `args` (without the program's name) run the main job: no command, and no
/// `--help` or `--version` either.
pub fn is_main_job<I, T>(args: I) -> bool
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    matches!(parse(args), Ok(cli) if cli.command.is_none())
}

/// `args` as [`parsed`] reads them, where only a command will do: `--help` and
/// `--version` are bad input with their text.
pub(crate) fn parse<I, T>(args: I) -> Result<Cli, AppError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    match parsed(args)? {
        Parsed::Cli(cli) => Ok(*cli),
        Parsed::Answer(text) => Err(AppError::BadOption(text.trim_end().to_string())),
    }
}

/// The options of `command` (`roll`, `run`, `compare`, ...) as the command line takes
/// them, its own and the global ones: (long name, takes a value, may be given several
/// times). The Python package makes its keyword arguments from this list, so every option
/// of every command is a keyword there, with the command line's default.
pub fn options(command: &str) -> Result<Vec<(String, bool, bool)>, AppError> {
    use clap::CommandFactory as _;
    let root = Cli::command();
    let sub = root
        .find_subcommand(command)
        .ok_or_else(|| AppError::BadOption(format!("`{command}` is not a command of rollsim")))?;
    let global = root.get_arguments().filter(|a| a.is_global_set());
    Ok(sub
        .get_arguments()
        .chain(global)
        .filter_map(|a| {
            let long = a.get_long()?;
            let takes = a.get_action().takes_values();
            let many = matches!(a.get_action(), clap::ArgAction::Append);
            Some((long.to_string(), takes, many))
        })
        .collect())
}

pub use rollsim_core::text::terminal_safe;

/// The results a `run` or `roll` command line writes (its tables), computed without
/// writing anything: what the Python package reads. Other commands are refused.
pub fn results<I, T>(
    args: I,
    cancel: &Cancel,
) -> Result<Vec<crate::report::ScenarioResult>, AppError>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = before_command(parse(args)?)?;
    unused_together(&cli)?;
    check_trial_cap(&cli)?;
    match cli.command {
        Some(c) => results_of(c, cancel),
        None => Err(AppError::BadOption(
            "only `run` and `roll` give their tables without writing them".into(),
        )),
    }
}

/// The results of a parsed `run` or `roll`, not written.
pub(crate) fn results_of(
    command: Command,
    cancel: &Cancel,
) -> Result<Vec<crate::report::ScenarioResult>, AppError> {
    match command {
        Command::Run(a) => app::run_results(&run_options(a, false, cancel)),
        Command::Roll(a) => app::roll::results(&roll_options(a, false, cancel)),
        _ => Err(AppError::BadOption(
            "only `run` and `roll` give their tables without writing them".into(),
        )),
    }
}

fn run_options(a: cli::RunArgs, svg: bool, cancel: &Cancel) -> RunOptions {
    let mut o = RunOptions::new(a.config.config);
    o.scenarios = a.scenarios.names;
    o.trials = a.trials.n;
    o.seed = a.seed.value;
    o.threads = a.threads.get();
    o.precision = a.precision.precision;
    o.max_trials = a.precision.max_trials;
    o.out = a.out.dir;
    o.sets = a.set.sets;
    o.formats = a.output.format.into_iter().map(format).collect();
    o.plots = !a.output.plots.no_plots;
    o.quiet = a.quiet.on;
    o.exact_only = a.exact_only.on;
    o.cancel = cancel.clone();
    o.svg = svg;
    o
}

fn roll_options(a: cli::RollArgs, svg: bool, cancel: &Cancel) -> app::RollOptions {
    app::RollOptions {
        roll: a.roll,
        vs: a.vs,
        trials: a.trials.n,
        precision: a.precision.precision,
        max_trials: a.precision.max_trials,
        seed: a.seed.value,
        threads: a.threads.get(),
        exact_only: a.exact_only.on,
        out: a.out.dir,
        formats: a.output.format.into_iter().map(format).collect(),
        plots: !a.output.plots.no_plots,
        quiet: a.quiet.on,
        svg,
        cancel: cancel.clone(),
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

/// The shard this process runs: `--shard`, else the scheduler's array task (said on
/// stderr, as is a scheduler's task that is not used).
/// The most trials `-n` may ask one process for without `--no-trial-cap`: at the few
/// hundred million trials a second of the fastest games, minutes; at the thousands of a
/// slow dice program, days. A run of `-n 1e15` ran for ever without a word.
pub const TRIAL_CAP: u64 = 10_000_000_000;

/// Refuse `-n` past [`TRIAL_CAP`] unless `--no-trial-cap` says so; a sharded run (by
/// flag or by a scheduler's array job) and `plan` split the work and are not capped.
pub(crate) fn check_trial_cap(cli: &Cli) -> Result<(), AppError> {
    if cli.no_trial_cap {
        return Ok(());
    }
    let unsharded = |s: &cli::Shard| -> Result<bool, AppError> {
        let request = crate::app::shard::Request {
            shard: s.shard.clone(),
            shards: s.shards,
            no_shard: s.no_shard,
        };
        Ok(request.resolve(&|k| std::env::var(k).ok())?.0.is_none())
    };
    let asked = match &cli.command {
        None => cli.trials.n,
        Some(Command::Roll(a)) => a.trials.n,
        Some(c) => match c.shard() {
            Some(s) if unsharded(s)? => c.trials(),
            _ => None,
        },
    };
    match asked {
        Some(n) => trial_cap(n),
        _ => Ok(()),
    }
}

/// `-n`, `--threads` and `-q` written before a command's name (clap reads them as the
/// top level's): handed to the command after them where it takes them (a command
/// without `-q` draws no progress bar), refused where it runs no trials or is given a
/// different value too; never dropped
/// (`rollsim -n 1000 run ...` once ran the command's own default trials, silently).
fn before_command(mut cli: Cli) -> Result<Cli, AppError> {
    let (trials, threads, quiet) = (
        cli.trials.n.take(),
        cli.threads.threads.take(),
        cli.quiet.on,
    );
    cli.quiet.on = false;
    let Some(command) = cli.command.as_mut() else {
        cli.trials.n = trials;
        cli.threads.threads = threads;
        cli.quiet.on = quiet;
        return Ok(cli);
    };
    if trials.is_none() && threads.is_none() && !quiet {
        return Ok(cli);
    }
    let (own_trials, own_threads, own_quiet) = match command.rolling_mut() {
        Some((t, th, q)) => (Some(&mut t.n), Some(th), q.map(|q| &mut q.on)),
        None => (None, None, None),
    };
    let refuse = |flag: String, why: &str| {
        Err(AppError::BadOption(format!(
            "{flag} before the command's name: {why}; write it after the command's name"
        )))
    };
    if let Some(n) = trials {
        match own_trials {
            None => return refuse(format!("-n {n}"), "this command runs no trials"),
            Some(t) if t.is_some_and(|m| m != n) => {
                return refuse(format!("-n {n}"), "the command is given other trials too")
            }
            Some(t) => *t = Some(n),
        }
    }
    if let Some(n) = threads {
        match own_threads {
            None => return refuse(format!("--threads {n}"), "this command runs no trials"),
            Some(t) if t.threads.is_some_and(|m| m != n) => {
                return refuse(
                    format!("--threads {n}"),
                    "the command is given other threads too",
                )
            }
            Some(t) => t.threads = Some(n),
        }
    }
    // A command without `-q` shows no progress bar: quiet already.
    if let (true, Some(q)) = (quiet, own_quiet) {
        *q = true;
    }
    Ok(cli)
}

/// Flags that would do nothing together, refused rather than dropped: `-n` where no
/// trial is rolled (`--exact-only`) or where trials run until precise (`--precision`;
/// clap refuses the pair within a command, not a `-n` written before the command's
/// name), `--charts svg` where no chart is drawn (`--no-plots`), and with `-o -` what
/// standard output cannot hold ([`app::streamed::format`]).
pub(crate) fn unused_together(cli: &Cli) -> Result<(), AppError> {
    let Some(c) = &cli.command else {
        return Ok(());
    };
    let refuse = |what: String, why: &str| {
        Err(AppError::BadOption(format!(
            "{what}: {why}; leave out one of the two"
        )))
    };
    if let Some(n) = c.trials() {
        if c.exact_only() {
            return refuse(
                format!("-n {n} with --exact-only"),
                "an exact answer rolls no trials",
            );
        }
        if c.precision() {
            return refuse(
                format!("-n {n} with --precision"),
                "the trials run until every probability is that precise (--max-trials caps them)",
            );
        }
    }
    let svg = cli.charts.contains(&cli::ChartArg::Svg);
    if svg && c.plots().is_some_and(|p| p.no_plots) {
        return refuse("--charts svg with --no-plots".into(), "no chart is drawn");
    }
    // `-o -`: what standard output cannot hold (Parquet, a second table, SVG charts),
    // refused before the work, in the words of the writer that would refuse it.
    let streamed = match c {
        Command::Run(a) => Some((&a.out, &a.output.format)),
        Command::Roll(a) => Some((&a.out, &a.output.format)),
        _ => None,
    };
    if let Some((_, formats)) = streamed.filter(|(out, _)| app::to_stdout(&out.dir)) {
        let formats: Vec<Format> = formats.iter().map(|f| format(*f)).collect();
        app::streamed::format(&formats, svg)?;
    }
    Ok(())
}

/// `-n n` refused past [`TRIAL_CAP`] (the caller knows no `--no-trial-cap` was given).
pub(crate) fn trial_cap(n: u64) -> Result<(), AppError> {
    if n <= TRIAL_CAP {
        return Ok(());
    }
    Err(AppError::BadOption(format!(
        "-n {n}: more than {TRIAL_CAP} trials in one process, which can take hours; add --no-trial-cap to run them anyway, use --precision to stop when the numbers are as precise as you need, or split the run with `rollsim plan` / --shard K/N"
    )))
}

fn sharding(s: cli::Shard) -> Result<Option<Found>, AppError> {
    let request = crate::app::shard::Request {
        shard: s.shard,
        shards: s.shards,
        no_shard: s.no_shard,
    };
    let (found, note) = request.resolve(&|k| std::env::var(k).ok())?;
    if let Some(note) = note {
        eprintln!("{}", terminal_safe(&note));
    }
    Ok(found)
}

fn balance(c: BalanceArgs, svg: bool, cancel: &Cancel) -> Result<Options, AppError> {
    let mut o = Options::new(c.config.config, c.scenario.one());
    if let Some(f) = sharding(c.shard)? {
        o.sharing = Sharing::Shard(f);
    }
    o.cancel = cancel.clone();
    o.svg = svg;
    o.metric = c.metric.name;
    o.seed = c.seed.value;
    o.trials = c.trials.n;
    o.exact_only = c.exact_only.on;
    o.threads = c.threads.get();
    o.out = c.out.dir;
    o.sets = c.set.sets;
    o.plots = !c.plots.no_plots;
    o.quiet = c.quiet.on;
    Ok(o)
}

pub fn run(cli: Cli, cancel: &Cancel) -> Result<String, AppError> {
    let cli = before_command(cli)?;
    let svg = cli.charts.contains(&cli::ChartArg::Svg);
    // `-o -` streams a table on standard output, which only `run` and `roll` write:
    // anywhere else it would make a folder named `-`.
    let folder_only = match &cli.command {
        Some(Command::Roll(_)) | None => None,
        Some(Command::Run(a)) if a.shard.shard.is_none() && a.shard.shards.is_none() => None,
        Some(c) => c.out().and_then(|o| o.dir.clone()),
    };
    if app::to_stdout(&folder_only) {
        return Err(AppError::BadOption(
            "-o -: only `rollsim run` (without --shard) and `rollsim roll` write their table to standard output; give this command a folder, e.g. -o out".into(),
        ));
    }
    unused_together(&cli)?;
    check_trial_cap(&cli)?;
    match cli.command {
        None => app::run_all(cli.quiet.on, cli.trials.n, cli.threads.get(), svg, cancel),
        Some(Command::List(a)) => app::list(&a.config.config, &a.set.sets, cancel),
        Some(Command::Check(a)) => app::check(&a.config.config, &a.set.sets, cancel),
        Some(
            c @ (Command::Compare(_)
            | Command::Roster(_)
            | Command::Sweep(_)
            | Command::Sensitivity(_)
            | Command::Overlay(_)
            | Command::Equalize(_)),
        ) => balance_command(c, svg, cancel)?.run(),
        Some(Command::Run(a)) => {
            let shard = a.shard.clone();
            let o = run_options(a, svg, cancel);
            match sharding(shard)? {
                Some(f) if app::to_stdout(&o.out) => Err(AppError::BadOption(format!(
                    "-o -: this run is shard {}/{} ({}), which writes a part file; give it a folder, e.g. -o parts",
                    f.k, f.n, f.from
                ))),
                Some(f) => crate::app::shard::run(&o, &f),
                None => app::run(&o),
            }
        }
        Some(Command::Serve(a)) => crate::serve::serve(&crate::serve::ServeOptions {
            dir: a.dir,
            bind: a.bind,
            port: a.port,
            cancel: cancel.clone(),
        }),
        Some(Command::Roll(a)) => app::roll(&roll_options(a, svg, cancel)),
        Some(Command::Plan(a)) => plan(a, cancel),
        Some(Command::Merge(a)) => crate::app::merge::merge(
            &a.parts,
            // `-o` is required of `merge` (clap refuses the command without it).
            a.out.dir.as_deref().ok_or_else(|| {
                AppError::BadOption("merge needs -o DIR, the folder to write".into())
            })?,
            &a.output.format.into_iter().map(format).collect::<Vec<_>>(),
            app::charts(!a.output.plots.no_plots, svg, cancel),
            cancel,
        ),
    }
}

/// A balance command's options from its flags (the shard from `--shard` or the
/// scheduler's variables).
pub(crate) fn balance_command(
    command: Command,
    svg: bool,
    cancel: &Cancel,
) -> Result<BalanceCommand, AppError> {
    Ok(match command {
        Command::Compare(a) => BalanceCommand::Compare(CompareOptions {
            common: balance(a.common, svg, cancel)?,
            attackers: a.attackers,
            defenders: a.defenders,
            best_response: a.response.pick == ResponseArg::Best,
        }),
        Command::Roster(a) => BalanceCommand::Roster(RosterOptions {
            common: balance(a.common, svg, cancel)?,
            units: a.units,
            best_response: a.response.pick == ResponseArg::Best,
            count: a.count,
            reference: a.reference,
        }),
        Command::Sweep(a) => BalanceCommand::Sweep(SweepOptions {
            common: balance(a.common, svg, cancel)?,
            vary: a.vary,
        }),
        Command::Sensitivity(c) => BalanceCommand::Sensitivity(balance(c, svg, cancel)?),
        Command::Overlay(a) => BalanceCommand::Overlay(OverlayOptions {
            entries: a.entries,
            metric: a.metric.name,
            seed: a.seed.value,
            trials: a.trials.n,
            threads: a.threads.get(),
            out: a.out.dir,
            plots: !a.plots.no_plots,
            svg,
            cancel: cancel.clone(),
            texts: Default::default(),
            sharing: match sharding(a.shard)? {
                Some(f) => Sharing::Shard(f),
                None => Sharing::Whole,
            },
        }),
        Command::Equalize(a) => BalanceCommand::Equalize(EqualizeOptions {
            common: balance(a.common, svg, cancel)?,
            target: a.target,
            pairs: a.pairs,
        }),
        _ => unreachable!("only balance commands come here"),
    })
}

/// The commands `plan` spreads.
const SHARDED: [&str; 6] = [
    "run",
    "compare",
    "sweep",
    "sensitivity",
    "equalize",
    "roster",
];

/// `rollsim plan CONFIG [COMMAND...] --tasks N`: check the command as the shards will
/// run it, then print the scripts.
fn plan(a: cli::PlanArgs, cancel: &Cancel) -> Result<String, AppError> {
    let (tasks, scheduler, tail) = plan_flags(a.command, a.tasks, a.scheduler)?;
    let (name, options) = match tail.first() {
        Some(w) if !w.starts_with('-') => (w.clone(), tail[1..].to_vec()),
        _ => ("run".to_string(), tail),
    };
    if !SHARDED.contains(&name.as_str()) {
        return Err(AppError::BadOption(format!(
            "plan: `{name}` does not shard; plan spreads {}",
            SHARDED.join(", ")
        )));
    }
    // The command exactly as a shard will parse it.
    let argv: Vec<String> = [
        "rollsim".to_string(),
        name.clone(),
        a.config.config.display().to_string(),
    ]
    .into_iter()
    .chain(options.iter().cloned())
    .collect();
    let parsed = Cli::try_parse_from(&argv).map_err(|e| {
        AppError::BadOption(format!(
            "plan: the command `{}` does not parse: {}",
            argv[1..].join(" "),
            e.render().to_string().trim()
        ))
    })?;
    // What a shard would refuse is refused here, before any script is written.
    unused_together(&parsed).map_err(|e| AppError::BadOption(format!("plan: {e}")))?;
    let command = parsed.command.as_ref();
    let (Some(out), Some(shard)) = (
        command.and_then(Command::out).map(|o| o.dir.clone()),
        command.and_then(Command::shard),
    ) else {
        return Err(AppError::BadOption(format!(
            "plan: `{name}` cannot be sharded"
        )));
    };
    if shard.shard.is_some() || shard.shards.is_some() || shard.no_shard {
        return Err(AppError::BadOption(
            "plan: leave --shard, --shards and --no-shard out of the command; the scripts give each task its shard".into(),
        ));
    }
    if app::to_stdout(&out) {
        return Err(AppError::BadOption(
            "plan: -o - cannot be merged into; give the command a folder, e.g. -o out".into(),
        ));
    }
    plan_check(&a.config.config, &parsed, &argv, (&name, tasks), cancel)?;
    let (parts, out) = plan_places(&a.config.config, &parsed, &name, out)?;
    let options = without_out(&options);
    // An -o inside a cluster of short flags (`-qo DIR`) is not taken out: refused.
    let stripped: Vec<String> = argv[..3]
        .iter()
        .cloned()
        .chain(options.iter().cloned())
        .collect();
    let again = Cli::try_parse_from(&stripped).map_err(|e| AppError::BadOption(e.to_string()))?;
    let left = again
        .command
        .as_ref()
        .and_then(Command::out)
        .is_some_and(|o| o.dir.is_some());
    if left {
        return Err(AppError::BadOption(
            "plan: give the command's -o DIR as a word of its own (not inside -qo DIR)".into(),
        ));
    }
    let merge_flags = merge_flags(&parsed);
    let p = crate::app::plan::Plan::new(
        &name,
        &a.config.config,
        &options,
        (parts, out),
        merge_flags,
        tasks,
        program(),
    );
    use cli::SchedulerArg as S;
    Ok(match scheduler {
        Some(S::Slurm) => p.slurm(),
        Some(S::Hyperqueue) => p.hyperqueue(),
        Some(S::Kubernetes) => p.kubernetes(),
        None => format!(
            "# ---- SLURM: save as {n}.sh, then: bash {n}.sh\n{}\n# ---- HyperQueue: save as {n}-hq.sh, then: bash {n}-hq.sh\n{}\n# ---- Kubernetes: save as {n}.yaml, then: kubectl apply -f {n}.yaml\n{}",
            p.slurm(),
            p.hyperqueue(),
            p.kubernetes(),
            n = p.name
        ),
    })
}

/// Where a planned command's parts go and where the merge writes: the command's own
/// -o, the parts beside it; without one, where the command writes, and the parts beside
/// the config's report (a `rollsim run` replaces the report folder whole).
fn plan_places(
    config: &std::path::Path,
    parsed: &Cli,
    name: &str,
    out: Option<std::path::PathBuf>,
) -> Result<(std::path::PathBuf, std::path::PathBuf), AppError> {
    Ok(match out {
        Some(o) => {
            let parts = crate::app::part::beside(&o).ok_or_else(|| {
                AppError::BadOption(format!(
                    "plan: -o {}: name a folder, e.g. -o out/{name}",
                    o.display()
                ))
            })?;
            (parts, o)
        }
        None => {
            let out = match &parsed.command {
                Some(Command::Run(r)) => {
                    app::run_out(config, &r.scenarios.names, !r.output.plots.no_plots)
                }
                _ => app::default_out(config).join(name),
            };
            (crate::app::part::default_dir(config, name), out)
        }
    })
}

/// `plan`'s own `--tasks` and `--scheduler`, which may also follow the command (they
/// are no command's own): the number of tasks, checked, the scheduler, and the
/// command's words without them.
fn plan_flags(
    words: Vec<String>,
    tasks: Option<u64>,
    scheduler: Option<cli::SchedulerArg>,
) -> Result<(u64, Option<cli::SchedulerArg>, Vec<String>), AppError> {
    // `--tasks` and `--scheduler` may follow the command (they are no command's own).
    let (mut tasks, mut scheduler) = (tasks, scheduler);
    let mut tail: Vec<String> = Vec::new();
    let mut it = words.into_iter();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f == "--tasks" || f == "--scheduler" => {
                (f.to_string(), Some(v.to_string()))
            }
            _ => (w.clone(), None),
        };
        if flag != "--tasks" && flag != "--scheduler" {
            tail.push(w);
            continue;
        }
        let value = inline
            .or_else(|| it.next())
            .ok_or_else(|| AppError::BadOption(format!("{flag}: give a value")))?;
        if flag == "--tasks" {
            tasks = Some(value.parse().map_err(|_| {
                AppError::BadOption(format!(
                    "--tasks {value}: expected a number of tasks, e.g. 8"
                ))
            })?);
        } else {
            scheduler = Some(
                <cli::SchedulerArg as clap::ValueEnum>::from_str(&value, true).map_err(|_| {
                    AppError::BadOption(format!(
                        "--scheduler {value}: expected slurm, hyperqueue or kubernetes"
                    ))
                })?,
            );
        }
    }
    let tasks = tasks.ok_or_else(|| {
        AppError::BadOption("plan: give --tasks N, the number of shards, e.g. --tasks 8".into())
    })?;
    if tasks == 0 || tasks > crate::app::part::MAX_SHARDS {
        return Err(AppError::BadOption(format!(
            "--tasks {tasks}: expected 1 to {}",
            crate::app::part::MAX_SHARDS
        )));
    }
    Ok((tasks, scheduler, tail))
}

/// What a shard would meet before its first item, met once here: the config loads, a
/// run has a chunk per task, a balance command's names, metric and keys are found.
fn plan_check(
    config: &std::path::Path,
    parsed: &Cli,
    argv: &[String],
    (name, tasks): (&str, u64),
    cancel: &Cancel,
) -> Result<(), AppError> {
    let balance = parsed.command.as_ref().and_then(Command::balance);
    // The config must load, and a run needs a chunk per shard.
    let text = crate::config::read(config)?;
    if let Some(Command::Run(r)) = &parsed.command {
        if r.exact_only.on || r.precision.precision.is_some() {
            return Err(AppError::BadOption(
                "plan: a sharded run has a fixed number of trials: drop --exact-only and --precision".into(),
            ));
        }
        let cfg =
            crate::config::load_until(&text, &config.display().to_string(), &r.set.sets, cancel)?;
        app::select(&cfg, &r.scenarios.names)?;
        let trials = r.trials.n.or(cfg.run.trials).unwrap_or(app::DEFAULT_TRIALS);
        let chunks = trials.div_ceil(crate::sim::CHUNK);
        if tasks > chunks {
            return Err(AppError::BadOption(format!(
                "--tasks {tasks}: {trials} trials are {chunks} chunk(s) of {}; use at most {chunks} tasks",
                crate::sim::CHUNK
            )));
        }
    } else if balance.is_some() {
        // Everything a shard does before its first item: the names, the metric, the keys.
        let mut check = balance_command(
            Cli::try_parse_from(argv)
                .map_err(|e| AppError::BadOption(e.to_string()))?
                .command
                .ok_or_else(|| AppError::BadOption(format!("plan: `{name}` has no command")))?,
            false,
            cancel,
        )?;
        check.checking();
        check.run()?;
    }
    Ok(())
}

/// What decides the merge's files, as the command was given it: its charts, plots
/// and table formats, as flags of `merge`.
fn merge_flags(parsed: &Cli) -> Vec<String> {
    let mut merge_flags = Vec::new();
    if parsed.charts.contains(&cli::ChartArg::Svg) {
        merge_flags.extend(["--charts".to_string(), "png,svg".to_string()]);
    }
    let command = parsed.command.as_ref();
    let no_plots = command.and_then(Command::plots).is_some_and(|p| p.no_plots);
    let formats = match command {
        Some(Command::Run(r)) => Some(&r.output.format),
        _ => None,
    };
    if no_plots {
        merge_flags.push("--no-plots".into());
    }
    if let Some(f) = formats.filter(|f| **f != [FormatArg::Csv, FormatArg::Md]) {
        let names: Vec<&str> = f
            .iter()
            .map(|x| match x {
                FormatArg::Csv => "csv",
                FormatArg::Parquet => "parquet",
                FormatArg::Json => "json",
                FormatArg::Md => "md",
            })
            .collect();
        merge_flags.extend(["--format".to_string(), names.join(",")]);
    }
    merge_flags
}

/// The options without `-o DIR` (in any of its spellings): a shard writes its part
/// where the plan says.
fn without_out(options: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for w in options {
        if skip {
            skip = false;
            continue;
        }
        if w == "-o" || w == "--out" {
            skip = true;
        } else if !(w.starts_with("--out=") || (w.starts_with("-o") && !w.starts_with("--"))) {
            out.push(w.clone());
        }
    }
    out
}

/// `rollsim` when that is this binary on the PATH, else this binary's path.
fn program() -> String {
    let me = std::env::current_exe().and_then(|p| p.canonicalize()).ok();
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("rollsim"))
            .find(|p| p.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    match (me, on_path) {
        (Some(a), Some(b)) if a == b => "rollsim".into(),
        (Some(a), _) => a.display().to_string(),
        _ => "rollsim".into(),
    }
}
