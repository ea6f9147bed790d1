//! What the commands do, without any command-line parsing: the binary maps its flags
//! onto these option structs, tests call the same functions.

pub mod balance;
pub mod folder;
pub mod merge;
pub mod part;
pub mod plan;
pub mod roll;
pub mod scheduler;
pub mod shard;
pub mod streamed;

use crate::config::{self, reader::nearest_hint, AnalysisConfig};
use crate::progress::Bars;
use crate::report::export::Exporter;
use crate::report::frame::{self, Wanted};
use crate::report::write::{self, Keep, Staging};
use crate::report::{self, markdown, plot, write::WriteError, ScenarioResult};
use crate::sim::Budget;
pub use folder::{charts, write_reports};
use rayon::prelude::*;
pub use roll::{roll, RollOptions};
use rollsim_core::run::{self, Hooks};
use rollsim_core::Cancel;
use std::path::{Path, PathBuf};

pub use crate::error::AppError;
pub use rollsim_core::run::{DEFAULT_MAX_TRIALS, DEFAULT_SEED, DEFAULT_TRIALS};

/// The default output directory of a config: `reports/<file stem>`.
pub fn default_out(config: &Path) -> PathBuf {
    let stem = config
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("report");
    Path::new("reports").join(stem)
}

/// Where `run` writes without `-o`. The config's report folder is the one the gallery
/// (`reports/index.html`) links into, so only a whole report (every scenario, with
/// charts) goes there; a selection or a run without charts goes beside it, to
/// `reports/<file stem>-partial`, and the gallery's links stay whole.
pub fn run_out(config: &Path, scenarios: &[String], plots: bool) -> PathBuf {
    let report = default_out(config);
    if scenarios.is_empty() && plots {
        return report;
    }
    let mut name = report.file_name().unwrap_or_default().to_os_string();
    name.push("-partial");
    report.with_file_name(name)
}

/// The pool a command runs on: `--threads`, else one thread per core.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, AppError> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(t);
    }
    b.build().map_err(|e| AppError::Threads(e.to_string()))
}

/// Output formats besides the charts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Parquet,
    Json,
    Md,
}

impl Format {
    /// The table exporter of a format; `None` for Markdown, which is a report on
    /// standard output rather than a table file.
    pub fn exporter(self) -> Option<&'static dyn Exporter> {
        match self {
            Format::Csv => Some(&report::csv::Csv),
            Format::Parquet => Some(&report::parquet::Parquet),
            Format::Json => Some(&report::json::Json),
            Format::Md => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub config: PathBuf,
    pub scenarios: Vec<String>,
    pub trials: Option<u64>,
    pub seed: Option<u64>,
    pub threads: Option<usize>,
    pub precision: Option<f64>,
    pub max_trials: u64,
    pub out: Option<PathBuf>,
    pub sets: Vec<String>,
    pub formats: Vec<Format>,
    pub plots: bool,
    /// Every chart as SVG too (`--charts png,svg`).
    pub svg: bool,
    pub quiet: bool,
    /// Exact distributions only: no Monte Carlo.
    pub exact_only: bool,
    /// Stops the run (the binary's Ctrl-C handler holds a clone).
    pub cancel: Cancel,
    /// Runs shared with the rest of the command (the main job's configs and matrices);
    /// `None`: the run keeps its own.
    pub memo: Option<std::sync::Arc<crate::sim::Memo>>,
}

impl RunOptions {
    pub fn new(config: impl Into<PathBuf>) -> Self {
        RunOptions {
            config: config.into(),
            scenarios: Vec::new(),
            trials: None,
            seed: None,
            threads: None,
            precision: None,
            max_trials: DEFAULT_MAX_TRIALS,
            out: None,
            sets: Vec::new(),
            formats: vec![Format::Csv, Format::Md],
            plots: true,
            svg: false,
            quiet: false,
            exact_only: false,
            cancel: Cancel::new(),
            memo: None,
        }
    }

    /// The config's name in the results: its file's stem.
    fn stem(&self) -> String {
        let stem = self.config.file_stem().and_then(|s| s.to_str());
        stem.unwrap_or("config").to_string()
    }

    /// The folder the run writes: `-o`, else [`run_out`].
    pub fn target(&self) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| run_out(&self.config, &self.scenarios, self.plots))
    }
}

/// The table formats a report of `config` written into `dir` gets: the ones asked for,
/// and in the config's gallery folder ([`default_out`]) also CSV and Parquet, which the
/// gallery links to. `run` and `merge` both write through it.
pub fn report_formats(config: &Path, dir: &Path, asked: &[Format]) -> Vec<Format> {
    let mut formats = asked.to_vec();
    if dir == default_out(config) {
        for f in [Format::Csv, Format::Parquet] {
            if !formats.contains(&f) {
                formats.push(f);
            }
        }
    }
    formats
}

/// `-o -`: the tables go to standard output, not to a folder.
pub fn to_stdout(out: &Option<PathBuf>) -> bool {
    out.as_deref() == Some(Path::new("-"))
}

/// Where a run's output goes, decided from the command line before anything is read or
/// taken: standard output (`-o -`, in [`streamed::format`]), a folder (taken for the
/// whole run and replaced at its end), or nowhere but the terminal (a roll's exact
/// answer without `-o`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    Stdout,
    Folder,
    Terminal,
}

impl Sink {
    /// What the writers read there, made once before any of them writes: which tables,
    /// and whether the Markdown report. Standard output writes the one format
    /// [`streamed::format`] picks (what it refuses is refused there, before anything
    /// is computed: `command::unused_together`).
    pub fn wanted(self, formats: &[Format]) -> (Wanted, bool) {
        let markdown = formats.contains(&Format::Md);
        match self {
            Sink::Folder => (Wanted::Every, markdown),
            Sink::Stdout => match streamed::format(formats, false) {
                Ok(Format::Md) => (Wanted::Nothing, true),
                _ => (Wanted::Distribution, false),
            },
            Sink::Terminal => (Wanted::Nothing, markdown),
        }
    }
}

/// Check the scenario selection against the config; empty = all, in file order. A
/// group's name (a profile, a decision table) selects all its members.
pub fn select(cfg: &AnalysisConfig, wanted: &[String]) -> Result<Vec<String>, AppError> {
    let infos = cfg.scenarios();
    if wanted.is_empty() {
        return Ok(infos.into_iter().map(|i| i.name).collect());
    }
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for w in wanted {
        let picked: Vec<&str> = match infos.iter().find(|i| &i.name == w) {
            Some(i) => vec![i.name.as_str()],
            None => infos
                .iter()
                .filter(|i| i.member && &i.table == w)
                .map(|i| i.name.as_str())
                .collect(),
        };
        if picked.is_empty() {
            let mut names: Vec<&str> = infos.iter().map(|i| i.name.as_str()).collect();
            names.extend(infos.iter().filter(|i| i.member).map(|i| i.table.as_str()));
            return Err(rollsim_core::Error::UnknownScenario {
                file: cfg.file.display().to_string(),
                name: w.clone(),
                hint: nearest_hint(w, names),
            }
            .into());
        }
        for p in picked {
            if seen.insert(p.to_string()) {
                out.push(p.to_string());
            }
        }
    }
    Ok(out)
}

/// Everything `rollsim run` computes, before anything is written.
pub struct RunOutput {
    pub title: String,
    pub results: Vec<ScenarioResult>,
    pub out: PathBuf,
}

/// Validate the options against a loaded config and simulate; writes nothing. `bars`:
/// the progress bars of a run of many configs (None: this run's own).
pub fn compute_config(
    cfg: &AnalysisConfig,
    opts: &RunOptions,
    bars: Option<&Bars>,
) -> Result<RunOutput, AppError> {
    compute_given(cfg, opts, bars, Vec::new())
}

/// [`compute_config`] with some scenarios compiled already (`rollsim roll` compiles its
/// one to check it is exact): those are run as they are, not compiled again, since
/// compiling works out the exact distribution.
pub fn compute_given(
    cfg: &AnalysisConfig,
    opts: &RunOptions,
    bars: Option<&Bars>,
    mut given: Vec<crate::model::Compiled>,
) -> Result<RunOutput, AppError> {
    let names = select(cfg, &opts.scenarios)?;
    let budget = budget(cfg, opts)?;
    let seed = opts.seed.or(cfg.run.seed).unwrap_or(DEFAULT_SEED);
    // One exact answer needs no workers: starting them would be a third of the command's
    // time when the answer itself takes a millisecond (`roll --exact-only`).
    let pool = if opts.exact_only && names.len() <= 1 {
        None
    } else {
        Some(thread_pool(opts.threads)?)
    };
    let out = opts.target();
    let stem = opts.stem();
    let mut results = Vec::new();
    let own;
    let bars = match bars {
        Some(b) => b,
        None => {
            own = if !opts.exact_only && names.len() > 1 && !opts.quiet {
                Bars::batch(opts.quiet, names.len())
            } else {
                Bars::new(opts.quiet)
            };
            &own
        }
    };
    // Scenarios of the same trial (a profile's points the rules cannot tell apart) are
    // rolled once.
    let own = crate::sim::Memo::new();
    let memo = opts.memo.as_deref().unwrap_or(&own);
    let ctx = Hooks::new(&opts.cancel, bars).with_memo(memo);
    // Compiling works out the exact distributions, which take longer than the
    // simulation for some scenarios: all of them side by side first, in order.
    let ready: Vec<Option<crate::model::Compiled>> = names
        .iter()
        .map(|name| {
            let at = given.iter().position(|c| &c.name == name)?;
            Some(given.swap_remove(at))
        })
        .collect();
    let compile = |(name, ready): (&String, Option<crate::model::Compiled>)| match ready {
        Some(c) => Ok(c),
        None => Ok(crate::balance::compile(cfg, name, &opts.cancel)?),
    };
    let compiled: Vec<Result<crate::model::Compiled, AppError>> = match &pool {
        Some(pool) => pool.install(|| names.par_iter().zip(ready).map(compile).collect()),
        None => names.iter().zip(ready).map(compile).collect(),
    };
    warn(compiled.iter().flatten());
    // Scenarios run side by side as well as chunk by chunk: a core that finishes its
    // chunks of one scenario takes up another's instead of waiting. Each scenario's
    // counts depend on its seed and chunks alone, so the output is the same.
    let one = |(name, c): (&String, Result<crate::model::Compiled, AppError>)| {
        let c = c?;
        if opts.exact_only {
            opts.cancel.check()?;
            if c.exact.is_none() {
                return Err(AppError::BadOption(format!(
                    "--exact-only: scenario `{name}` has no exact distribution ({}); run it without --exact-only",
                    c.description
                )));
            }
            return Ok(report::summarize_exact(&c, seed, &stem, cfg.system_name()));
        }
        let hist = run::simulate(&c, seed, budget, ctx)?;
        let mut r = report::summarize(&c, &hist, seed, &stem, cfg.system_name());
        // A scenario that stopped at `--max-trials` short of `--precision`: said in its
        // note (and on stderr unless quiet).
        if let Budget::Precision { eps, max_trials } = budget {
            if let Some(note) = report::precision_missed(&c, &hist, eps, max_trials) {
                if !opts.quiet {
                    eprintln!("warning: {}: {note}", c.name);
                }
                r.add_note(note);
            }
        }
        Ok(r)
    };
    let done: Vec<Result<ScenarioResult, AppError>> = match &pool {
        Some(pool) => pool.install(|| names.par_iter().zip(compiled).map(one).collect()),
        None => names.iter().zip(compiled).map(one).collect(),
    };
    // The first error in the config's order, as a run one by one would meet it.
    for r in done {
        results.push(r?);
    }
    Ok(RunOutput {
        title: cfg.title.clone(),
        results,
        out,
    })
}

/// What a designer should look at, once each, in order, before the numbers: each
/// scenario's warning.
fn warn<'a>(compiled: impl IntoIterator<Item = &'a crate::model::Compiled>) {
    for c in compiled {
        if let Some(w) = &c.warning {
            eprintln!(
                "warning: {}",
                rollsim_core::text::terminal_safe(&format!("{}: {w}", c.name))
            );
        }
    }
}

/// The run's trials: a precision to reach (checked), or a count (`-n`, the config's
/// `[run] trials`, else the default).
fn budget(cfg: &AnalysisConfig, opts: &RunOptions) -> Result<Budget, AppError> {
    if let Some(eps) = opts.precision {
        if !(eps > 0.0 && eps < 0.5) {
            return Err(AppError::BadOption(format!(
                "--precision {eps}: expected a half-width between 0 and 0.5, e.g. 0.001"
            )));
        }
    }
    let budget = match (opts.precision, opts.trials.or(cfg.run.trials)) {
        (Some(eps), _) => Budget::Precision {
            eps,
            max_trials: opts.max_trials,
        },
        (None, Some(n)) => Budget::Trials(n),
        (None, None) => Budget::Trials(DEFAULT_TRIALS),
    };
    if budget == Budget::Trials(0) {
        return Err(AppError::BadOption("--trials must be at least 1".into()));
    }
    Ok(budget)
}

/// The results `run` writes, computed without writing anything (the Python package's
/// tables).
pub fn run_results(opts: &RunOptions) -> Result<Vec<ScenarioResult>, AppError> {
    let cfg = config::load(&opts.config, &opts.sets, &opts.cancel)?;
    select(&cfg, &opts.scenarios)?;
    Ok(compute_config(&cfg, opts, None)?.results)
}

/// `rollsim run`: the config loaded and checked once, then the run computed, then its
/// tables made once, then written (to standard output, or into the output folder,
/// locked for the whole run and replaced as a whole at the end). Returns the Markdown
/// printed to stdout (empty without `md`).
pub fn run(opts: &RunOptions) -> Result<String, AppError> {
    let (target, gallery) = (opts.target(), default_out(&opts.config));
    let formats = report_formats(&opts.config, &target, &opts.formats);
    let sink = if to_stdout(&opts.out) {
        Sink::Stdout
    } else {
        Sink::Folder
    };
    let (tables, md) = sink.wanted(&opts.formats);
    // Check the config and the names first: bad input must not touch (or lock) the
    // output folder, and is reported as what it is.
    let cfg = config::load(&opts.config, &opts.sets, &opts.cancel)?;
    select(&cfg, &opts.scenarios)?;
    let stage = match sink {
        Sink::Folder => Some(Staging::begin(&target, Keep::Report)?.stopped_by(&opts.cancel)),
        Sink::Stdout | Sink::Terminal => None,
    };
    let out = compute_config(&cfg, opts, None)?;
    // What is written, made once: the tables its writers read, and the Markdown.
    let tables = frame::tables(&out.results, tables)?;
    let markdown = if md {
        Some(markdown::Report::new(&out.title, &out.results))
    } else {
        None
    };
    // `-o -`: one table (or the Markdown) on standard output; no files, no charts.
    let Some(stage) = stage else {
        return streamed::stream(markdown, &tables, &opts.formats, opts.svg);
    };
    let charts = folder::charts(opts.plots, opts.svg, &opts.cancel);
    let written = folder::write_reports(
        &out.results,
        &tables,
        stage.dir(),
        &formats,
        charts,
        &opts.cancel,
    )?;
    opts.cancel.check()?;
    stage.commit()?;
    eprintln!("{}", folder::wrote_line(&written, &target));
    if opts.out.is_none() && target != gallery {
        eprintln!(
            "(a partial report: {} is left whole for the gallery; -o DIR writes elsewhere)",
            gallery.display()
        );
    }
    Ok(markdown
        .map(markdown::Report::into_text)
        .unwrap_or_default())
}

/// `rollsim list`: one scenario per line, its name first, then a tab and what it is.
pub fn list(config: &Path, sets: &[String], cancel: &Cancel) -> Result<String, AppError> {
    cancel.check()?;
    let cfg = config::load(config, sets, cancel)?;
    Ok(cfg
        .scenarios()
        .into_iter()
        .map(|s| {
            let d = cfg.describe(&s.name).unwrap_or_default();
            format!("{}\t{}\n", s.name, one_line(&d))
        })
        .collect())
}

/// Text from a config as one terminal line: runs of white space (a multi-line dice
/// expression) fold to one space, and control characters (an escape sequence that would
/// recolour or clear the terminal) are shown escaped, never sent.
pub fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `rollsim check`: validate and compile every scenario (exact distributions included).
pub fn check(config: &Path, sets: &[String], cancel: &Cancel) -> Result<String, AppError> {
    let cfg = config::load(config, sets, cancel)?;
    let names = cfg.scenario_names();
    let (mut exact, mut warned) = (0, 0u64);
    for n in &names {
        let c = crate::balance::compile(&cfg, n, cancel)?;
        if let Some(e) = &c.exact {
            crate::pmf::check_pmf(e, 1e-9).map_err(|m| {
                AppError::BadOption(format!("scenario `{n}`: exact distribution invalid: {m}"))
            })?;
            exact += 1;
        }
        // What `run` would warn of, said by the check too (a config that checks clean
        // should run clean), as each is compiled: none is kept past its turn.
        if c.warning.is_some() {
            warned += 1;
            warn([&c]);
        }
    }
    let warnings = match warned {
        0 => String::new(),
        n => format!(
            ", {} above",
            rollsim_core::text::plural(n, "warning", "warnings")
        ),
    };
    Ok(format!(
        "{}: ok ({} system, {}, {} with exact distributions{warnings})\n",
        config.display(),
        cfg.system_name(),
        rollsim_core::text::plural(names.len() as u64, "scenario", "scenarios"),
        exact
    ))
}

mod shipped {
    include!(concat!(env!("OUT_DIR"), "/shipped.rs"));
}

/// A config the main job runs: where it is said to come from, and its text.
#[derive(Clone, Debug)]
pub struct Shipped {
    pub path: PathBuf,
    pub text: String,
}

/// The configs the main job runs: `./configs/*.toml` where there is such a folder (a
/// designer's own), else the ones built into the binary.
pub fn shipped_configs() -> Result<Vec<Shipped>, AppError> {
    let local = Path::new("configs");
    if !local.is_dir() {
        return Ok(shipped::SHIPPED
            .iter()
            .map(|(name, text)| Shipped {
                path: local.join(name),
                text: text.to_string(),
            })
            .collect());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(local)
        .map_err(|e| AppError::BadOption(format!("{}: {e}", local.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = config::read(&path)?;
            Ok(Shipped { path, text })
        })
        .collect()
}

/// Trials per pair of a gallery matrix: enough for CIs under a percentage point, fast.
const GALLERY_TRIALS: u64 = 1_000_000;

/// The gallery's matchup matrix of a config: its `[run] matrix` scenario, else its first
/// scenario with two sides, every entry against every entry; `None` if it has none.
fn gallery_matrix(
    config: &Shipped,
    trials: Option<u64>,
    cancel: &Cancel,
    memo: &crate::sim::Memo,
) -> Result<Option<crate::report::analysis::Matrix>, AppError> {
    use crate::balance::{compare, Pick, Source};
    let source = Source::parse_until(&config.text, &config.path, &[], cancel)?;
    let chosen = source.base.run.matrix.clone();
    let Some(scenario) = chosen.or_else(|| {
        source.base.scenarios().into_iter().find_map(|i| {
            let two = source
                .roles(&i.table)
                .map(|r| r.len() >= 2)
                .unwrap_or(false);
            two.then_some(i.name)
        })
    }) else {
        return Ok(None);
    };
    let (seed, n) = crate::balance::budget(&source, None, trials, false);
    // The main job's own precision when it runs to one, else its trial count (capped).
    let budget = match trials {
        None => Budget::Precision {
            eps: MAIN_PRECISION,
            max_trials: GALLERY_TRIALS,
        },
        Some(t) => Budget::Trials(t.min(GALLERY_TRIALS)),
    };
    // Pairs of units with the same numbers are the same trial, and a pair may be a
    // scenario of the config: rolled once.
    let m = compare::matrix(
        &source,
        &scenario,
        (&[], &[]),
        &Pick::Headline,
        seed,
        n.map(|_| budget),
        Hooks::new(cancel, &rollsim_core::sim::Hidden).with_memo(memo),
    )?;
    Ok(Some(m))
}

/// The main job's target: every reported probability's 95% half-width.
pub const MAIN_PRECISION: f64 = 0.001;

/// Plain `rollsim`: every shipped config, every scenario, into `reports/<stem>/`, with a
/// fixed seed; returns the headline table.
pub fn run_all(
    quiet: bool,
    trials: Option<u64>,
    threads: Option<usize>,
    svg: bool,
    cancel: &Cancel,
) -> Result<String, AppError> {
    let mut all = Vec::new();
    let configs = shipped_configs()?;
    if !Path::new("configs").is_dir() {
        // Outside the repository: say what is about to be written, and where from.
        eprintln!("{}", built_in_notice(&configs));
    }
    let (configs, loaded) = fewest_last(configs, cancel)?;
    // `reports/` is replaced as a whole, in one step, at the end: every config folder it
    // will replace is checked and every lock taken now, before any work.
    let reports = Path::new("reports");
    for c in &configs {
        let dir = default_out(&c.path);
        if dir.is_dir() && !write::replaceable(&dir) {
            return Err(WriteError::NotOurs {
                path: dir.display().to_string(),
            }
            .into());
        }
    }
    let stage = Staging::begin(reports, Keep::Everything)?.stopped_by(cancel);
    let root = stage.dir().to_path_buf();
    let folder = |out: &RunOutput| root.join(out.out.file_name().unwrap_or_default());
    let total = loaded.iter().map(|c| c.scenario_names().len()).sum();
    let bars = Bars::batch(quiet, total);
    let pool = thread_pool(threads)?;
    // One cache of rasterised labels for every chart of the run.
    let text = plot::text::TextCache::new();
    // One memo of runs for the configs and their matrices: a matrix's pair that is a
    // scenario of its config is rolled once.
    let memo = std::sync::Arc::new(crate::sim::Memo::new());
    // Each config's folder is staged as a whole (tables, charts and its matrix) on a
    // thread of its own while the next config computes, so neither leaves a core idle.
    let (outputs, staged) = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<std::sync::Arc<RunOutput>>();
        let writer = scope.spawn(|| {
            // The matrices need no results: they run from the start, beside the first
            // configs' simulations.
            let mut matrices = configs
                .iter()
                .map(|cfg| pool.install(|| gallery_matrix(cfg, trials, cancel, &memo)))
                .collect::<Vec<_>>()
                .into_iter();
            rx.into_iter()
                .map(|out: std::sync::Arc<RunOutput>| -> Result<_, AppError> {
                    // One matrix was made per config, in the configs' order.
                    let matrix = matrices.next().transpose()?.flatten();
                    let kinds = || charts(true, svg, cancel).map(|c| c.with_text(&text));
                    stage_config(&out, &folder(&out), matrix, &kinds, cancel)
                })
                .collect::<Vec<_>>()
        });
        let mut outputs = Vec::new();
        let computed = (|| -> Result<(), AppError> {
            for (shipped, cfg) in configs.iter().zip(&loaded) {
                let opts = main_options(&shipped.path, (trials, threads), quiet, cancel, &memo);
                let out = std::sync::Arc::new(compute_config(cfg, &opts, Some(&bars))?);
                outputs.push(out.clone());
                // The writer only stops early on an error, which the join reports.
                let _ = tx.send(out);
            }
            Ok(())
        })();
        drop(tx);
        let staged = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        computed.map(|()| (outputs, staged))
    })?;
    cancel.check()?;
    let mut done: Vec<_> = configs.iter().zip(&outputs).zip(staged).collect();
    done.sort_by(|((a, _), _), ((b, _), _)| a.path.cmp(&b.path));
    let mut dirs = Vec::new();
    let mut sections = Vec::new();
    for ((cfg, out), staged) in done {
        let (matrix, roster) = staged?;
        let out = out.as_ref();
        all.extend(out.results.iter().cloned());
        dirs.push(out.out.display().to_string());
        sections.push(gallery_section(cfg, out, folder(out), matrix, roster));
    }
    cancel.check()?;
    let gallery = report::gallery::write_index(&root, &sections)?;
    dirs.push(stage.final_path(&gallery[0]).display().to_string());
    cancel.check()?;
    stage.commit()?;
    Ok(main_job_summary(&all, &dirs))
}

/// One config's part of the gallery: its results, folder, matrix and roster.
fn gallery_section(
    cfg: &Shipped,
    out: &RunOutput,
    dir: PathBuf,
    matrix: Option<(report::analysis::Matrix, Vec<PathBuf>)>,
    roster: Option<(rollsim_core::balance::roster::Roster, Vec<PathBuf>)>,
) -> report::gallery::Section {
    report::gallery::Section {
        stem: cfg
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("config")
            .to_string(),
        system: out
            .results
            .first()
            .map(|r| r.system.clone())
            .unwrap_or_default(),
        title: out.title.clone(),
        dir,
        results: out.results.clone(),
        matrix,
        roster,
    }
}

/// The shipped configs loaded, the one of fewest scenarios last: the run ends once the
/// last config's tables and charts are written, after it computes, so the last should
/// have the fewest. (Reported in the configs' own order all the same.)
fn fewest_last(
    configs: Vec<Shipped>,
    cancel: &Cancel,
) -> Result<(Vec<Shipped>, Vec<AnalysisConfig>), AppError> {
    let loaded = configs
        .iter()
        .map(|c| config::load_until(&c.text, &c.path.display().to_string(), &[], cancel))
        .collect::<Result<Vec<_>, _>>()?;
    let mut both: Vec<_> = configs.into_iter().zip(loaded).collect();
    if let Some(k) = (0..both.len()).min_by_key(|&k| (both[k].1.scenario_names().len(), k)) {
        let last = both.remove(k);
        both.push(last);
    }
    Ok(both.into_iter().unzip())
}

/// The main job's run of one shipped config.
fn main_options(
    path: &Path,
    (trials, threads): (Option<u64>, Option<usize>),
    quiet: bool,
    cancel: &Cancel,
    memo: &std::sync::Arc<crate::sim::Memo>,
) -> RunOptions {
    let mut opts = RunOptions::new(path);
    opts.cancel = cancel.clone();
    opts.quiet = quiet;
    opts.trials = trials;
    opts.threads = threads;
    if trials.is_none() {
        // Enough trials for every probability shown to within a tenth of a
        // percentage point (95%), up to the flat count a `run` uses.
        opts.precision = Some(MAIN_PRECISION);
        opts.max_trials = DEFAULT_TRIALS;
    }
    opts.formats = vec![Format::Csv, Format::Parquet];
    opts.memo = Some(memo.clone());
    opts
}

/// What the main job says it is about to do outside the repository: which configs,
/// built into the binary, go where.
fn built_in_notice(configs: &[Shipped]) -> String {
    let names: Vec<String> = configs
        .iter()
        .map(|c| {
            c.path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    format!(
        "no configs/ folder here: running the {} configs built into rollsim ({}) into ./reports/",
        configs.len(),
        names.join(", ")
    )
}

/// One config's folder of the main job, staged whole: its tables and charts, its
/// matrix, and the matrix read as a roster (no more simulation; a matrix of two tables
/// has no roster card).
#[allow(clippy::type_complexity)]
fn stage_config<'a>(
    out: &RunOutput,
    dir: &Path,
    matrix: Option<crate::report::analysis::Matrix>,
    kinds: &dyn Fn() -> Option<plot::Charts<'a>>,
    cancel: &Cancel,
) -> Result<
    (
        Option<(crate::report::analysis::Matrix, Vec<PathBuf>)>,
        Option<(rollsim_core::balance::roster::Roster, Vec<PathBuf>)>,
    ),
    AppError,
> {
    write::mark(dir)?;
    write_reports(
        &out.results,
        &frame::report_tables(&out.results)?,
        dir,
        &[Format::Csv, Format::Parquet],
        kinds(),
        cancel,
    )?;
    let matrix = match matrix {
        Some(m) => {
            let tables = frame::matrix_tables(&m)?;
            let files = balance::write_matrix(&m, &tables, &dir.join("compare"), kinds())?;
            Some((m, files))
        }
        None => None,
    };
    let roster = match &matrix {
        Some((m, _)) => match rollsim_core::balance::roster::analyse(m.clone()) {
            Ok(r) => {
                let files = balance::write_roster(&r, &dir.join("roster"), kinds())?;
                Some((r, files))
            }
            Err(_) => None,
        },
        None => None,
    };
    Ok((matrix, roster))
}

/// The main job's first line: how many scenarios, trials and seed, and where the
/// files are; then each scenario's headline.
fn main_job_summary(all: &[ScenarioResult], dirs: &[String]) -> String {
    let seed = all.first().map_or(0, |r| r.seed);
    // Configs may set their own trial counts in [run].
    let lo = all.iter().map(|r| r.trials).min().unwrap_or(0);
    let hi = all.iter().map(|r| r.trials).max().unwrap_or(0);
    let trials = if lo == hi {
        markdown::thousands(lo)
    } else {
        format!("{} to {}", markdown::thousands(lo), markdown::thousands(hi))
    };
    format!(
        "{} scenarios, {trials} trials each, seed {seed}; tables and charts in {}\n\n{}",
        all.len(),
        dirs.join(", "),
        markdown::headlines(all)
    )
}
