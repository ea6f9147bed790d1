//! Command-line flags (clap derive). No logic: `main` maps these onto `rollsim::app`.

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// A count as designers write it: `1000000`, `1_000_000`, `1,000,000` or `1e6`.
fn count(text: &str) -> Result<u64, String> {
    let t: String = text.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    let n = t
        .parse::<u64>()
        .ok()
        .or_else(|| {
            let f: f64 = t.parse().ok()?;
            // `u64::MAX as f64` is 2^64, one past the largest count: strictly below it.
            (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64)
                .then_some(f as u64)
        })
        .ok_or_else(|| {
            format!(
                "expected a whole number of trials, e.g. 1000000, 1_000_000 or 1e6; found `{text}`"
            )
        })?;
    if n == 0 {
        return Err(format!("expected at least 1 trial; found `{text}`"));
    }
    Ok(n)
}

/// A seed as a designer writes it (`2026`, `1_000_000`): any whole number a seed holds.
/// A negative one is read as a value and refused as one (clap alone took `--seed -1`
/// for another flag, and `--seed=-1` for "invalid digit").
fn seed(text: &str) -> Result<u64, String> {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    t.parse::<u64>().map_err(|_| {
        format!(
            "expected a whole number from 0 to {}; found `{text}`",
            u64::MAX
        )
    })
}

/// Monte Carlo and exact probabilities for tabletop dice games.
///
/// Without a command, runs every shipped config (./configs/*.toml; where there is no
/// ./configs folder, the configs of the source tree this binary was built from) into
/// ./reports/ with a fixed seed (about 70 MB of tables and charts, and a gallery at
/// reports/index.html), and prints a one-line summary per scenario.
#[derive(Parser, Debug)]
#[command(name = "rollsim", version, about, long_about)]
#[command(mut_arg("trials", |a| a.help("Trials per scenario for the default run, e.g. 1e6 (before a command's name, that command's) [default: until every probability's 95% CI is within ±0.001, at most 10000000; a config's [run] trials serve `run`]")))]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub trials: Trials,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub quiet: Quiet,
    /// Run more than 10^10 trials in one process (-n past it is refused without this: at
    /// a few hundred million trials a second that is minutes to hours; `plan` and
    /// `--shard` split a big run instead)
    #[arg(long, global = true)]
    pub no_trial_cap: bool,
    /// Chart files (comma-separated): png, and svg beside each PNG for rulebooks (any command)
    #[arg(
        long,
        global = true,
        value_enum,
        ignore_case = true,
        value_delimiter = ',',
        default_value = "png"
    )]
    pub charts: Vec<ChartArg>,
}

/// `--threads`, declared once for every command that runs trials.
#[derive(Args, Debug)]
pub struct Threads {
    /// Worker threads [default: one per core]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
}

impl Threads {
    pub fn get(&self) -> Option<usize> {
        self.threads.map(|t| t as usize)
    }
}

/// `-n`, declared once for every command that rolls trials. Each command names its own
/// default in its help (`mut_arg`), since where the default comes from differs.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct Trials {
    /// Trials
    #[arg(id = "trials", short = 'n', long = "trials", value_name = "TRIALS", value_parser = count, allow_negative_numbers = true)]
    pub n: Option<u64>,
}

/// `--seed`, declared once; each command names its default.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct Seed {
    /// Master seed: same seed, same numbers, for any thread count
    #[arg(id = "seed", long = "seed", value_name = "SEED", value_parser = seed, allow_negative_numbers = true)]
    pub value: Option<u64>,
}

/// `-q`, declared once for every command that can draw a progress bar.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct Quiet {
    /// No progress bar (one shows on anything that takes more than a second)
    #[arg(id = "quiet", short = 'q', long = "quiet")]
    pub on: bool,
}

/// `-s`, declared once: `run` takes any number of scenarios, a balance command exactly
/// one (it says so with `mut_arg`, as [`BalanceArgs`] does).
#[derive(Args, Clone, Debug, Default)]
pub struct Scenarios {
    /// Scenario to run (repeatable or comma-separated) [default: all of them]
    #[arg(
        id = "scenario",
        short = 's',
        long = "scenario",
        value_name = "NAME",
        value_delimiter = ','
    )]
    pub names: Vec<String>,
}

impl Scenarios {
    /// The one scenario of a command that requires exactly one.
    pub fn one(&self) -> &str {
        self.names.first().map_or("", String::as_str)
    }
}

/// `-o`, declared once; each command names its default folder.
#[derive(Args, Clone, Debug, Default)]
pub struct Out {
    /// Output directory
    #[arg(id = "out", short = 'o', long = "out", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `--exact-only`, declared once; each command says what it leaves out.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct ExactOnly {
    /// Exact distributions only, no Monte Carlo (fast; every shipped scenario has one)
    #[arg(id = "exact_only", long = "exact-only")]
    pub on: bool,
}

/// `--precision` and its cap, declared once for `run` and `roll`.
#[derive(Args, Clone, Copy, Debug)]
pub struct Precision {
    /// Roll until every reported probability's 95% CI half-width is at most EPS (e.g. 0.001), instead of a fixed count
    #[arg(long, value_name = "EPS", conflicts_with_all = ["trials", "exact_only"])]
    pub precision: Option<f64>,
    /// Cap on trials per scenario under --precision
    #[arg(long, default_value = "1_000_000_000", value_parser = count, allow_negative_numbers = true, requires = "precision")]
    pub max_trials: u64,
}

/// The config file every config command reads, declared once.
#[derive(Args, Clone, Debug)]
pub struct Config {
    /// The TOML config file, e.g. configs/NAME.toml
    pub config: PathBuf,
}

/// `--set`, declared once for every command that reads a config.
#[derive(Args, Debug)]
pub struct Sets {
    /// Override a config value for this command, e.g. --set units.orc.strength=2 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
}

/// Sharding, declared once for every command that shards: by hand, or from a cluster
/// scheduler's array job.
#[derive(Args, Clone, Debug)]
pub struct Shard {
    /// Run only shard K of N (its share of the work) and write part-K-of-N.json (into -o, else beside the output folder) for `rollsim merge`. Without it, a SLURM array task (SLURM_ARRAY_TASK_ID) picks its shard itself
    #[arg(long, value_name = "K/N", conflicts_with = "no_shard")]
    pub shard: Option<String>,
    /// How many shards, where the scheduler names only the task: HyperQueue (HQ_TASK_ID, from 1), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, from 0), PBS (PBS_ARRAY_INDEX, PBS_ARRAYID, from 1)
    #[arg(long, value_name = "N", conflicts_with = "no_shard")]
    pub shards: Option<u64>,
    /// Run the whole command even inside a scheduler's array job
    #[arg(long)]
    pub no_shard: bool,
}

/// `--no-plots`, declared once for every command that draws.
#[derive(Args, Debug)]
pub struct Plots {
    /// Skip the PNG charts
    #[arg(long)]
    pub no_plots: bool,
}

/// `run`'s tables and charts, declared once so that `merge` takes the same flags and
/// writes the files the single run would have (`plan` passes them on).
#[derive(Args, Debug)]
pub struct Output {
    /// Table formats (comma-separated); md prints Markdown tables to stdout
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_delimiter = ',',
        default_value = "csv,md"
    )]
    pub format: Vec<FormatArg>,
    #[command(flatten)]
    pub plots: Plots,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartArg {
    Png,
    Svg,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate scenarios of a config: tables, charts and a Markdown summary
    Run(RunArgs),
    /// List the scenarios of a config, one per line: NAME<TAB>description
    List(ConfigArgs),
    /// Validate a config (and compute every exact distribution) without simulating
    Check(ConfigArgs),
    /// Matchup matrix: one scenario for every attacker x defender pair (CSV, Markdown, heatmap)
    Compare(CompareArgs),
    /// One scenario as one or two config keys step through a range (line chart or heatmap)
    Sweep(SweepArgs),
    /// What one step is worth: each side's +1 die and one better step of each stat
    Sensitivity(BalanceArgs),
    /// The smallest change to either side that brings P(win) (or --metric) closest to 50% (or --target)
    Equalize(EqualizeArgs),
    /// One metric of several scenarios side by side (units, or variants of a config)
    Overlay(OverlayArgs),
    /// The units as a metagame: each against each in both seats, ratings, the Nash mix, dominated units
    Roster(RosterArgs),
    /// Put the parts of a sharded command (run, compare, sweep, sensitivity, equalize, roster) together into the output of a single run
    Merge(MergeArgs),
    /// Print ready scripts that run a command as N shards on SLURM, HyperQueue or Kubernetes, then merge them
    Plan(PlanArgs),
    /// Roll a dice expression without a config, e.g. rollsim roll "4d6 drop lowest" (the language: docs/dice-language.md)
    Roll(RollArgs),
    /// The live tuning page: a local web server where every stat is a slider and the odds change as you drag
    Serve(ServeArgs),
}

/// The shared flag groups of each command, asked of the command rather than matched
/// over every variant wherever a flag is read.
impl Command {
    /// Whether it is one of the analyses `command::balance_command` runs (compare,
    /// roster, sweep, sensitivity, overlay, equalize), for a match that is not over every
    /// command (the main dispatch lists them, exhaustively).
    pub fn is_analysis(&self) -> bool {
        matches!(
            self,
            Command::Compare(_)
                | Command::Roster(_)
                | Command::Sweep(_)
                | Command::Sensitivity(_)
                | Command::Overlay(_)
                | Command::Equalize(_)
        )
    }

    /// The options every balance command shares, for the commands built on them.
    pub fn balance(&self) -> Option<&BalanceArgs> {
        match self {
            Command::Compare(CompareArgs { common, .. })
            | Command::Sweep(SweepArgs { common, .. })
            | Command::Roster(RosterArgs { common, .. })
            | Command::Equalize(EqualizeArgs { common, .. })
            | Command::Sensitivity(common) => Some(common),
            _ => None,
        }
    }

    fn balance_mut(&mut self) -> Option<&mut BalanceArgs> {
        match self {
            Command::Compare(CompareArgs { common, .. })
            | Command::Sweep(SweepArgs { common, .. })
            | Command::Roster(RosterArgs { common, .. })
            | Command::Equalize(EqualizeArgs { common, .. })
            | Command::Sensitivity(common) => Some(common),
            _ => None,
        }
    }

    /// `-o`, where the command takes it.
    pub fn out(&self) -> Option<&Out> {
        match self {
            Command::Run(a) => Some(&a.out),
            Command::Roll(a) => Some(&a.out),
            Command::Overlay(a) => Some(&a.out),
            Command::Merge(a) => Some(&a.out),
            c => c.balance().map(|b| &b.out),
        }
    }

    /// `--shard`, `--shards` and `--no-shard`, where the command can be sharded.
    pub fn shard(&self) -> Option<&Shard> {
        match self {
            Command::Run(a) => Some(&a.shard),
            Command::Overlay(a) => Some(&a.shard),
            c => c.balance().map(|b| &b.shard),
        }
    }

    /// `--no-plots`, where the command draws.
    pub fn plots(&self) -> Option<&Plots> {
        match self {
            Command::Run(a) => Some(&a.output.plots),
            Command::Roll(a) => Some(&a.output.plots),
            Command::Merge(a) => Some(&a.output.plots),
            Command::Overlay(a) => Some(&a.plots),
            c => c.balance().map(|b| &b.plots),
        }
    }

    /// Whether `--exact-only` is given, where the command takes it.
    pub fn exact_only(&self) -> bool {
        match self {
            Command::Run(a) => a.exact_only.on,
            Command::Roll(a) => a.exact_only.on,
            c => c.balance().is_some_and(|b| b.exact_only.on),
        }
    }

    /// Whether `--precision` is given, where the command takes it.
    pub fn precision(&self) -> bool {
        match self {
            Command::Run(a) => a.precision.precision.is_some(),
            Command::Roll(a) => a.precision.precision.is_some(),
            _ => false,
        }
    }

    /// `-n`, where the command rolls trials (the same commands as [`Command::rolling_mut`]).
    pub fn trials(&self) -> Option<u64> {
        match self {
            Command::Run(a) => a.trials.n,
            Command::Roll(a) => a.trials.n,
            Command::Overlay(a) => a.trials.n,
            c => c.balance().and_then(|b| b.trials.n),
        }
    }

    /// `-n`, `--threads` and `-q`, where the command rolls trials (a command without
    /// `-q` draws no progress bar).
    pub fn rolling_mut(&mut self) -> Option<(&mut Trials, &mut Threads, Option<&mut Quiet>)> {
        match self {
            Command::Run(a) => Some((&mut a.trials, &mut a.threads, Some(&mut a.quiet))),
            Command::Roll(a) => Some((&mut a.trials, &mut a.threads, Some(&mut a.quiet))),
            Command::Overlay(a) => Some((&mut a.trials, &mut a.threads, None)),
            c => c
                .balance_mut()
                .map(|b| (&mut b.trials, &mut b.threads, Some(&mut b.quiet))),
        }
    }
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The folder of configs the page offers (its *.toml files); "Save as" writes beside them
    #[arg(default_value = "configs")]
    pub dir: std::path::PathBuf,
    /// Port to listen on; 0 picks a free one (the address printed says which)
    #[arg(short, long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. The default answers this machine only; 0.0.0.0 opens the page to your network
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

#[derive(Args, Debug)]
#[command(mut_arg("trials", |a| a.help("Trials [default: 1000000]")))]
#[command(mut_arg("seed", |a| a.help("Master seed: same seed, same numbers, for any thread count [default: 2026]")))]
#[command(mut_arg("max_trials", |a| a.help("Cap on trials under --precision")))]
#[command(mut_arg("exact_only", |a| a.help("Only the exact distribution, no Monte Carlo; files only where -o says")))]
#[command(mut_arg("out", |a| a.help("Output directory; `-` writes the distribution table (in its one --format: csv or json) to standard output instead, no files [default: reports/roll; none with --exact-only]")))]
#[command(mut_arg("format", |a| a.default_value("csv").help("Table formats (comma-separated); md prints the Markdown report of `run` after the roll's table")))]
pub struct RollArgs {
    /// The expression, e.g. "4d6 drop lowest", "2d20 highest + 5", "5d10 again 10 count >= 7" (one starting with a minus, "-d6 + 3", is an expression too)
    #[arg(allow_hyphen_values = true)]
    pub roll: String,
    /// An opposing roll: the result is the margin ROLL - VS and who wins
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub vs: Option<String>,
    #[command(flatten)]
    pub trials: Trials,
    #[command(flatten)]
    pub seed: Seed,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub precision: Precision,
    #[command(flatten)]
    pub exact_only: ExactOnly,
    #[command(flatten)]
    pub out: Out,
    #[command(flatten)]
    pub output: Output,
    #[command(flatten)]
    pub quiet: Quiet,
}

#[derive(Args, Debug)]
#[command(mut_arg("trials", |a| a.help("Trials per entry [default: each config's [run] trials, else 10000000]")))]
#[command(mut_arg("seed", |a| a.help("Master seed [default: each config's, else 2026]")))]
#[command(mut_arg("metric", |a| a.help("The metric to set side by side [default: the headline's]").value_name("METRIC")))]
#[command(mut_arg("out", |a| a.help("Output directory [default: reports/overlay]")))]
pub struct OverlayArgs {
    /// Entries CONFIG:SCENARIO[:KEY=VALUE;...], e.g. configs/A.toml:SCENARIO configs/B.toml:SCENARIO, or configs/A.toml:SCENARIO:attacker=goblin; a group name stands for all its members
    #[arg(required = true, num_args = 2..)]
    pub entries: Vec<String>,
    #[command(flatten)]
    pub metric: Metric,
    #[command(flatten)]
    pub trials: Trials,
    #[command(flatten)]
    pub seed: Seed,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub out: Out,
    #[command(flatten)]
    pub plots: Plots,
    #[command(flatten)]
    pub shard: Shard,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    pub common: BalanceArgs,
    /// KEY=LO..HI[:STEP], once or twice: `attacker.strength=2..6` (the attacker's entry), `distance=1..10` (the scenario's key) or any config path
    #[arg(long, value_name = "KEY=LO..HI[:STEP]", required = true)]
    pub vary: Vec<String>,
}

/// Options every balance command shares.
#[derive(Args, Debug)]
#[command(mut_arg("trials", |a| a.help("Trials per point [default: the config's [run] trials, else 10000000]")))]
#[command(mut_arg("seed", |a| a.help("Master seed [default: the config's, else 2026]")))]
#[command(mut_arg("out", |a| a.help("Output directory [default: reports/<config name>/<command>]")))]
#[command(mut_arg("scenario", |a| a
    .help("The scenario: a name `rollsim list` prints, or a group (a profile or decision table, e.g. NAME for NAME@d4, NAME@d5, ...) for one result per member")
    .required(true)
    .value_delimiter(None)
    .action(ArgAction::Set)))]
pub struct BalanceArgs {
    #[command(flatten)]
    pub config: Config,
    #[command(flatten)]
    pub scenario: Scenarios,
    #[command(flatten)]
    pub metric: Metric,
    #[command(flatten)]
    pub trials: Trials,
    #[command(flatten)]
    pub exact_only: ExactOnly,
    #[command(flatten)]
    pub seed: Seed,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub out: Out,
    #[command(flatten)]
    pub set: Sets,
    #[command(flatten)]
    pub plots: Plots,
    #[command(flatten)]
    pub shard: Shard,
    #[command(flatten)]
    pub quiet: Quiet,
}

/// `-m`, declared once for the commands that read one metric.
#[derive(Args, Clone, Debug, Default)]
pub struct Metric {
    /// What to read off it: METRIC=VALUE[,VALUE] (a probability, e.g. result=double) or a numeric METRIC (its mean) [default: the scenario's headline]
    #[arg(
        id = "metric",
        short = 'm',
        long = "metric",
        value_name = "METRIC[=VALUES]"
    )]
    pub name: Option<String>,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub common: BalanceArgs,
    /// Attacker-side ids (comma-separated) [default: every entry of the table the scenario's first side names]
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub attackers: Vec<String>,
    /// Defender-side ids (comma-separated) [default: every entry of the table the second side names]
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub defenders: Vec<String>,
    #[command(flatten)]
    pub response: Response,
}

#[derive(Args, Debug)]
pub struct RosterArgs {
    #[command(flatten)]
    pub common: BalanceArgs,
    /// The units (comma-separated ids or names) [default: every entry of the table the scenario's sides pick from]
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub units: Vec<String>,
    /// Price the units: the stat that counts a unit (models, dice, hit points); each unit's count that ties the reference gives its suggested cost
    #[arg(long, value_name = "STAT")]
    pub count: Option<String>,
    /// The unit prices are set against (its `cost`, else 100) [default: the first unit]
    #[arg(long, value_name = "ID", requires = "count")]
    pub reference: Option<String>,
    #[command(flatten)]
    pub response: Response,
}

/// `--response`, declared once for `compare` and `roster`.
#[derive(Args, Clone, Copy, Debug)]
pub struct Response {
    /// `fixed`: the response the scenario names; `best`: in each pairing the defender picks the response (Slamback or Dodge, a reaction, a decision table's choice) worst for the attacker (compare names it in the cell)
    #[arg(
        id = "response",
        long = "response",
        value_enum,
        ignore_case = true,
        default_value = "fixed"
    )]
    pub pick: ResponseArg,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseArg {
    Fixed,
    Best,
}

#[derive(Args, Debug)]
pub struct EqualizeArgs {
    #[command(flatten)]
    pub common: BalanceArgs,
    /// The value to bring the measure to [default: 0.5 for a probability; a mean needs one]
    #[arg(long, value_name = "VALUE")]
    pub target: Option<f64>,
    /// Also try two changes at once (one step on each of two knobs)
    #[arg(long)]
    pub pairs: bool,
}

#[derive(Args, Debug)]
pub struct ConfigArgs {
    #[command(flatten)]
    pub config: Config,
    #[command(flatten)]
    pub set: Sets,
}

#[derive(Args, Debug)]
#[command(mut_arg("trials", |a| a.help("Trials per scenario [default: the config's [run] trials, else 10000000]")))]
#[command(mut_arg("seed", |a| a.help("Master seed: same seed, same numbers, for any thread count [default: the config's, else 2026]")))]
#[command(mut_arg("exact_only", |a| a.help("Exact distributions only, no Monte Carlo (every probability is the exact one; fast)").conflicts_with_all(["shard", "shards"])))]
#[command(mut_arg("out", |a| a.help("Output directory; `-` writes the distribution table (in its one --format: csv or json) to standard output instead, no files [default: reports/<config name>]")))]
pub struct RunArgs {
    #[command(flatten)]
    pub config: Config,
    #[command(flatten)]
    pub scenarios: Scenarios,
    #[command(flatten)]
    pub trials: Trials,
    #[command(flatten)]
    pub seed: Seed,
    #[command(flatten)]
    pub threads: Threads,
    #[command(flatten)]
    pub precision: Precision,
    #[command(flatten)]
    pub out: Out,
    #[command(flatten)]
    pub set: Sets,
    #[command(flatten)]
    pub exact_only: ExactOnly,
    #[command(flatten)]
    pub output: Output,
    #[command(flatten)]
    pub quiet: Quiet,
    #[command(flatten)]
    pub shard: Shard,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub config: Config,
    /// The command to spread and its options, e.g. `roster -s duel -n 1e6` [default: run]; its -o is where the merged output goes
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
    /// How many tasks (shards)
    #[arg(long, value_name = "N")]
    pub tasks: Option<u64>,
    /// Which scheduler's script to print [default: all three]
    #[arg(long, value_enum, ignore_case = true)]
    pub scheduler: Option<SchedulerArg>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedulerArg {
    Slurm,
    #[value(alias = "hq")]
    Hyperqueue,
    #[value(alias = "k8s")]
    Kubernetes,
}

#[derive(Args, Debug)]
#[command(mut_arg("out", |a| a.required(true)))]
pub struct MergeArgs {
    /// The part files of every shard (part-K-of-N.json), or folders of them
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    #[command(flatten)]
    pub out: Out,
    #[command(flatten)]
    pub output: Output,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    Csv,
    Parquet,
    Json,
    Md,
}
