//! The balance commands as the binary runs them: `balance` computes, this writes the
//! tables and charts through `report` and returns the Markdown for stdout.

use super::part::{self, Part};
use super::scheduler::Found;
use super::{thread_pool, AppError};
use crate::balance::{
    budget, compare, equalize, overlay, roster, sensitivity, sweep, Job, Pick, Share, Source,
    Target,
};
use crate::config;
use crate::report::analysis::how;
use crate::report::write::{Keep, Staging};
use crate::report::{csv, frame, markdown, plot, write::WriteError};
use rollsim_core::balance::share::Recorded;
use rollsim_core::run::Hooks;
use rollsim_core::Cancel;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What every balance command is told: the config, the scenario, what to read and how.
/// A shard's part carries these (without what only changes how this process runs or
/// where it writes), so that `merge` runs the same command.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    pub config: PathBuf,
    /// A scenario, a group member (`crossbow-range@d4`) or a group (`crossbow-range`).
    pub scenario: String,
    /// `--metric` as [`Pick::parse`] reads it; None: the headline.
    pub metric: Option<String>,
    pub seed: Option<u64>,
    pub trials: Option<u64>,
    pub exact_only: bool,
    #[serde(skip)]
    pub threads: Option<usize>,
    #[serde(skip)]
    pub out: Option<PathBuf>,
    pub sets: Vec<String>,
    #[serde(skip)]
    pub plots: bool,
    /// No progress bar (the estimate of a long command is still said).
    #[serde(skip)]
    pub quiet: bool,
    /// Every chart as SVG too (`--charts png,svg`).
    #[serde(skip)]
    pub svg: bool,
    /// Stops the command (the binary's Ctrl-C handler holds a clone).
    #[serde(skip)]
    pub cancel: Cancel,
    /// The whole command, one shard of it, or the merge of every shard's part.
    #[serde(skip)]
    pub sharing: Sharing,
}

/// How much of a balance command this process computes.
#[derive(Clone, Debug, Default)]
pub enum Sharing {
    #[default]
    Whole,
    /// One shard: its share of the command's items goes to a part file (in `out`, else
    /// beside the command's output folder).
    Shard(Found),
    /// The merge: the config text the parts carry and what each part computed.
    Merge { text: String, parts: Vec<Recorded> },
    /// `plan`'s check: everything a shard does up to its first item (the options, the
    /// names, the metric), with no item computed, few trials and nothing written.
    Check,
}

impl Options {
    /// The charts this command draws: SVG beside PNG as asked, stopped by its Ctrl-C.
    fn charts(&self) -> plot::Charts<'_> {
        all_charts(self.svg, &self.cancel)
    }

    /// Defaults: the headline, the config's seed and trials, charts on.
    pub fn new(config: impl Into<PathBuf>, scenario: &str) -> Self {
        Options {
            config: config.into(),
            scenario: scenario.into(),
            metric: None,
            seed: None,
            trials: None,
            exact_only: false,
            threads: None,
            out: None,
            sets: Vec::new(),
            plots: true,
            quiet: false,
            svg: false,
            cancel: Cancel::new(),
            sharing: Sharing::Whole,
        }
    }

    /// Load the config once, settle seed and trials, resolve the scenario or group,
    /// build the pool, and say where the command (`what`) writes: `--out`, else
    /// `reports/<config>/<what>`.
    pub fn prepare(&self, what: &str) -> Result<Prepared, AppError> {
        // A merge holds the text its parts were computed from; the rest read the file.
        let bytes = match &self.sharing {
            Sharing::Merge { text, .. } => text.clone().into_bytes(),
            _ => config::read_bytes(&self.config)?,
        };
        let share = match &self.sharing {
            Sharing::Merge { parts, .. } => Share::merged(parts.clone())
                .map_err(|e| AppError::BadOption(format!("the parts do not add up: {e}")))?,
            Sharing::Shard(f) => Share::part(f.k, f.n),
            Sharing::Whole => Share::All,
            // Shard N of N owns item N - 1 of the command: none at this N.
            Sharing::Check => Share::part(u64::MAX, u64::MAX),
        };
        let check = matches!(self.sharing, Sharing::Check);
        let (source, text) = Source::read_until(bytes, &self.config, &self.sets, &self.cancel)?;
        let (seed, mut trials) = budget(&source, self.seed, self.trials, self.exact_only);
        let pick = Pick::parse(self.metric.as_deref());
        let target = source.target(&self.scenario)?;
        if check {
            trials = trials.map(|_| 1_000);
        }
        Ok(Prepared {
            check,
            pick,
            pool: thread_pool(self.threads)?,
            folder: self
                .out
                .clone()
                .unwrap_or_else(|| super::default_out(&source.path).join(what)),
            source,
            target,
            seed,
            trials,
            cancel: self.cancel.clone(),
            share,
            text,
            shard: match &self.sharing {
                Sharing::Shard(f) => Some(f.clone()),
                _ => None,
            },
            out: self.out.clone(),
            quiet: self.quiet,
        })
    }
}

/// Read a config file and parse it once for a balance command.
pub fn load_source(path: &Path, sets: &[String]) -> Result<Source, AppError> {
    Ok(Source::parse(&config::read(path)?, path, sets)?)
}

/// A balance command ready to compute.
pub struct Prepared {
    pub source: Source,
    pub target: Target,
    pub pick: Pick,
    pub seed: u64,
    /// None: exact only.
    pub trials: Option<u64>,
    pub pool: rayon::ThreadPool,
    /// Where the command writes its report.
    pub folder: PathBuf,
    pub cancel: Cancel,
    pub share: Share,
    /// `plan`'s check ([`Sharing::Check`]).
    check: bool,
    /// The config's text, for a shard's part.
    text: String,
    shard: Option<Found>,
    out: Option<PathBuf>,
    quiet: bool,
}

impl Prepared {
    /// On a shard: compute this shard's items with `f` (which stops where it needs the
    /// other shards') and write them, with `command`, as `part-K-of-N.json` in `-o`, else
    /// beside the command's output folder. `None`: not a shard.
    fn part(
        &self,
        command: &Command,
        f: impl FnOnce(&Job) -> Result<(), rollsim_core::Error> + Send,
    ) -> Result<Option<String>, AppError> {
        if self.check {
            return match self.run(f) {
                Ok(()) => Ok(Some(String::new())),
                Err(e) if e.is_deferred() => Ok(Some(String::new())),
                Err(e) => Err(e),
            };
        }
        let Some(found) = &self.shard else {
            return Ok(None);
        };
        match self.run(f) {
            Ok(()) => {}
            Err(e) if e.is_deferred() => {}
            Err(e) => return Err(e),
        }
        self.cancel.check()?;
        let origin = Origin {
            file: &self.source.file,
            text: &self.text,
            sets: &self.source.sets,
            seed: self.seed,
            trials: self.trials.unwrap_or(0),
        };
        let dir = self
            .out
            .clone()
            .unwrap_or_else(|| part::default_dir(&self.source.path, command.name()));
        write_part(command, found, &self.share, origin, &dir).map(Some)
    }

    /// Run `f` on the command's pool with its job: a bar for each list of items it
    /// works through, none for the runs inside them (many and short).
    fn run<T>(
        &self,
        f: impl FnOnce(&Job) -> Result<T, rollsim_core::Error> + Send,
    ) -> Result<T, AppError>
    where
        T: Send,
    {
        let bars = crate::progress::Bars::items(self.quiet);
        let memo = rollsim_core::sim::Memo::new();
        let job = Job {
            source: &self.source,
            target: &self.target,
            pick: &self.pick,
            seed: self.seed,
            trials: self.trials,
            ctx: Hooks::new(&self.cancel, &bars).with_memo(&memo),
            share: &self.share,
        };
        Ok(self.pool.install(|| f(&job))?)
    }
}

impl Prepared {
    /// On stderr, where the command reads a win that can end in a draw: that a draw
    /// counts as no win, and how to read wins against losses instead.
    fn say_draws(&self) -> Result<(), AppError> {
        if self.pick != Pick::Headline {
            return Ok(());
        }
        if let Some(d) = self.run(rollsim_core::balance::draws)? {
            let win = d.margin.split(" - ").next().unwrap_or_default();
            eprintln!(
                "note: {}",
                rollsim_core::text::terminal_safe(&format!(
                    "`{}` can end in a draw ({}: {}): {win} counts a draw as no win; `equalize` seeks wins equal losses ({} = 0)",
                    d.scenario,
                    d.what,
                    rollsim_core::text::percent(d.chance, 2),
                    d.margin
                ))
            );
        }
        Ok(())
    }
}

/// A quantity as a file name's part: `expected rounds` -> `expected-rounds`,
/// `P(slammer wins)` -> `p-slammer-wins`.
fn slug(quantity: &str) -> String {
    let mut out = String::new();
    for c in quantity.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

/// What a part says about the run it belongs to.
struct Origin<'a> {
    file: &'a str,
    text: &'a str,
    sets: &'a [String],
    seed: u64,
    trials: u64,
}

/// Write a shard's part: the command, what its share recorded, where it came from.
fn write_part(
    command: &Command,
    found: &Found,
    share: &Share,
    origin: Origin,
    dir: &Path,
) -> Result<String, AppError> {
    let spreads = share.recorded();
    let (mine, all) = spreads.values().fold((0, 0), |(m, a), s| {
        (m + s.results.len() as u64, a + s.items)
    });
    let encoded = serde_json::to_value(command)
        .map_err(|e| AppError::BadOption(format!("encoding the command: {e}")))?;
    let p = Part {
        format: part::FORMAT,
        version: env!("CARGO_PKG_VERSION").into(),
        build: part::build(),
        config_file: origin.file.to_string(),
        config_hash: part::hash(origin.text, origin.sets),
        config_text: origin.text.to_string(),
        sets: origin.sets.to_vec(),
        seed: origin.seed,
        trials: origin.trials,
        shard: [found.k, found.n],
        scenarios: Vec::new(),
        command: Some(encoded),
        spreads,
        from: found.from.clone(),
        checksum: String::new(),
    };
    let path = part::write(p, dir)?;
    Ok(format!(
        "{} shard {}/{} ({}): {mine} of {all} items; wrote {}\n",
        command.name(),
        found.k,
        found.n,
        found.from,
        path.display()
    ))
}

/// `rollsim compare`: the common options, the two sides' ids, and the response rule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompareOptions {
    pub common: Options,
    /// Ids for the attacker side; empty: every entry of its table.
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    /// The defender chooses its best response per cell.
    pub best_response: bool,
}

/// `rollsim sweep`: the common options and one or two `KEY=LO..HI[:STEP]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SweepOptions {
    pub common: Options,
    pub vary: Vec<String>,
}

/// `rollsim equalize`: the common options, the target value and whether to try pairs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EqualizeOptions {
    pub common: Options,
    /// What to bring the value to; None: 0.5 for a probability (a mean needs one).
    pub target: Option<f64>,
    /// Also try two changes at once (one step each, on different knobs).
    pub pairs: bool,
}

/// `rollsim roster`: the common options, the units and the response rule.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RosterOptions {
    pub common: Options,
    /// The units; empty: every entry of the scenario's table.
    pub units: Vec<String>,
    pub best_response: bool,
    /// Price the units on this count stat (`--count models`).
    pub count: Option<String>,
    /// The unit prices are set against; None: the first.
    pub reference: Option<String>,
}

/// `rollsim overlay`: two or more `CONFIG:SCENARIO[:KEY=VALUE;...]` entries.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OverlayOptions {
    pub entries: Vec<String>,
    pub metric: Option<String>,
    pub seed: Option<u64>,
    pub trials: Option<u64>,
    #[serde(skip)]
    pub threads: Option<usize>,
    #[serde(skip)]
    pub out: Option<PathBuf>,
    #[serde(skip)]
    pub plots: bool,
    #[serde(skip)]
    pub svg: bool,
    #[serde(skip)]
    pub cancel: Cancel,
    /// Each entry's config text by its path as given: read from the files, or (in a
    /// merge) the ones the shards read, which their parts carry.
    #[serde(default)]
    pub texts: BTreeMap<String, String>,
    #[serde(skip)]
    pub sharing: Sharing,
}

impl OverlayOptions {
    /// As [`Options::charts`].
    fn charts(&self) -> plot::Charts<'_> {
        all_charts(self.svg, &self.cancel)
    }
}

/// A balance command's charts (it draws them unless `--no-plots`, which it checks itself).
fn all_charts(svg: bool, cancel: &Cancel) -> plot::Charts<'_> {
    super::charts(true, svg, cancel).unwrap_or_default()
}

/// A balance command that can be sharded, as a part carries it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Command {
    Compare(CompareOptions),
    Sweep(SweepOptions),
    Sensitivity(Options),
    Equalize(EqualizeOptions),
    Roster(RosterOptions),
    Overlay(OverlayOptions),
}

impl Command {
    /// Its name on the command line (and its output folder's).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Compare(_) => "compare",
            Command::Sweep(_) => "sweep",
            Command::Sensitivity(_) => "sensitivity",
            Command::Equalize(_) => "equalize",
            Command::Roster(_) => "roster",
            Command::Overlay(_) => "overlay",
        }
    }

    /// Set up the merge of its parts: write into `out` with these charts, every part's
    /// items given.
    fn merging(
        &mut self,
        first: &Part,
        parts: Vec<Recorded>,
        out: &Path,
        charts: (bool, bool),
        cancel: &Cancel,
    ) {
        let sharing = Sharing::Merge {
            text: first.config_text.clone(),
            parts,
        };
        let o = match self {
            Command::Compare(o) => &mut o.common,
            Command::Sweep(o) => &mut o.common,
            Command::Sensitivity(o) => o,
            Command::Equalize(o) => &mut o.common,
            Command::Roster(o) => &mut o.common,
            Command::Overlay(o) => {
                (o.out, o.plots, o.svg) = (Some(out.to_path_buf()), charts.0, charts.1);
                (o.cancel, o.threads, o.sharing) = (cancel.clone(), None, sharing);
                return;
            }
        };
        (o.out, o.plots, o.svg) = (Some(out.to_path_buf()), charts.0, charts.1);
        (o.cancel, o.threads, o.sharing) = (cancel.clone(), None, sharing);
        o.sets = first.sets.clone();
    }

    /// Make it `plan`'s check ([`Sharing::Check`]); `overlay` has none.
    pub fn checking(&mut self) {
        match self {
            Command::Compare(o) => o.common.sharing = Sharing::Check,
            Command::Sweep(o) => o.common.sharing = Sharing::Check,
            Command::Sensitivity(o) => o.sharing = Sharing::Check,
            Command::Equalize(o) => o.common.sharing = Sharing::Check,
            Command::Roster(o) => o.common.sharing = Sharing::Check,
            Command::Overlay(_) => {}
        }
    }

    /// The tables it writes, computed whole and kept in memory: no staging, no files,
    /// no charts.
    pub fn tables(&self) -> Result<Vec<(String, frame::Frame)>, AppError> {
        let mut out = Vec::new();
        match self {
            Command::Compare(o) => {
                let p = o.common.prepare(self.name())?;
                let ms = p.run(|job| {
                    compare::matrices(job, (&o.attackers, &o.defenders), o.best_response)
                })?;
                for m in &ms {
                    let long = frame::matrix_long(m)?;
                    let wide = frame::matrix_wide(&long, m)?;
                    out.push((m.stem(), long));
                    out.push((format!("{}-wide", m.stem()), wide));
                }
            }
            Command::Sweep(o) => {
                vary_count(o)?;
                let p = o.common.prepare(self.name())?;
                let keys = sweep_keys(o, &p)?;
                let s = p.run(|job| sweep::sweep(job, keys))?;
                out.push((sweep_stem(&s), frame::sweep(&s)?));
            }
            Command::Sensitivity(o) => {
                let p = o.prepare(self.name())?;
                let r = p.run(sensitivity::rows)?;
                if r.rows.is_empty() && r.refused.is_empty() {
                    return Err(nothing_to_change("sensitivity", &p.target.name));
                }
                let name = format!("sensitivity-{}", p.target.name);
                out.push((name, frame::sensitivity(&r.rows)?));
            }
            Command::Equalize(o) => {
                let p = o.common.prepare(self.name())?;
                let all = p.run(|job| equalize::equalize(job, o.target, o.pairs))?;
                if all.iter().all(|e| e.candidates.is_empty() && !e.even) {
                    return Err(nothing_to_change("equalize", &p.target.name));
                }
                let name = format!("equalize-{}", p.target.name);
                out.push((name, frame::equalize(&all)?));
            }
            Command::Roster(o) => {
                let p = o.common.prepare(self.name())?;
                let count = o.count.as_deref().map(|n| (n, o.reference.as_deref()));
                let (r, priced) =
                    p.run(|job| roster::priced(job, &o.units, o.best_response, count))?;
                let m = &r.matrix;
                let long = frame::matrix_long(m)?;
                let wide = frame::matrix_wide(&long, m)?;
                out.push((m.stem(), long));
                out.push((format!("{}-wide", m.stem()), wide));
                out.push((format!("roster-{}", m.scenario), frame::roster(&r)?));
                if let Some(k) = &priced {
                    out.push((format!("costs-{}", m.scenario), frame::costs(k)?));
                }
            }
            Command::Overlay(o) => {
                let (entries, texts) = overlay_inputs(o)?;
                let (metric, rows) = overlay_rows(o, &entries, &texts, &Share::All)?;
                let values = overlay_values(&rows);
                out.push((format!("overlay-{metric}"), frame::overlay(&rows, &values)?));
            }
        }
        Ok(out)
    }

    /// Run it: whole, as a shard, or as the merge, as its options say.
    pub fn run(&self) -> Result<String, AppError> {
        match self {
            Command::Compare(o) => compare(o),
            Command::Sweep(o) => sweep(o),
            Command::Sensitivity(o) => sensitivity(o),
            Command::Equalize(o) => equalize(o),
            Command::Roster(o) => roster(o),
            Command::Overlay(o) => overlay(o),
        }
    }
}

/// `rollsim merge` of a balance command's parts (checked to belong together by
/// [`part::load_together`]): the command once more, every shard's items given, into
/// `out`. What no shard could compute (it needs every shard's items) is computed here.
pub fn merge(
    loaded: &[(PathBuf, Part)],
    out: &Path,
    plots: bool,
    svg: bool,
    cancel: &Cancel,
) -> Result<String, AppError> {
    let (path, first) = &loaded[0];
    let value = first.command.clone().unwrap_or_default();
    let mut command: Command = serde_json::from_value(value).map_err(|e| {
        AppError::BadOption(format!(
            "{}: not a balance command this rollsim runs ({e})",
            path.display()
        ))
    })?;
    let parts = loaded.iter().map(|(_, p)| p.spreads.clone()).collect();
    command.merging(first, parts, out, (plots, svg), cancel);
    command.run()
}

/// "wrote a, b" for a command's stdout.
pub fn wrote(files: &[PathBuf]) -> String {
    format!(
        "wrote {}\n",
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn mkdir(dir: &Path) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
    Ok(())
}

/// Put a balance command's staged files in place as one step (unless it was stopped),
/// and say where they are.
fn commit(stage: Staging, files: &[PathBuf], cancel: &Cancel) -> Result<String, AppError> {
    cancel.check()?;
    let files: Vec<PathBuf> = files.iter().map(|f| stage.final_path(f)).collect();
    stage.commit()?;
    Ok(wrote(&files))
}

/// Write a matrix's `STEM.csv` (long), `STEM-wide.csv` and `STEM.png` into `dir`, from
/// its `tables` ([`frame::matrix_tables`]).
pub fn write_matrix(
    m: &crate::report::analysis::Matrix,
    tables: &frame::MatrixTables,
    dir: &Path,
    charts: Option<plot::Charts>,
) -> Result<Vec<PathBuf>, AppError> {
    mkdir(dir)?;
    let stem = m.stem();
    let mut out = Vec::new();
    // One long table; the wide CSV and the heatmap's cells are pivots of it.
    let long = dir.join(format!("{stem}.csv"));
    csv::write(&tables.long, &long)?;
    out.push(long);
    let wide = dir.join(format!("{stem}-wide.csv"));
    csv::write(&frame::matrix_wide(&tables.long, m)?, &wide)?;
    out.push(wide);
    if let Some(charts) = charts {
        let png = dir.join(format!("{stem}.png"));
        plot::heatmap::matrix(m, &tables.cells, &png, charts)?;
        out.push(png);
    }
    Ok(out)
}

/// `rollsim compare`.
pub fn compare(o: &CompareOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare("compare")?;
    if let Some(done) = p.part(&Command::Compare(o.clone()), |job| {
        compare::matrices(job, (&o.attackers, &o.defenders), o.best_response).map(drop)
    })? {
        return Ok(done);
    }
    let charts = super::charts(c.plots, c.svg, &c.cancel);
    let stage = Staging::begin(&p.folder, Keep::Everything)?;
    let ms = p.run(|job| compare::matrices(job, (&o.attackers, &o.defenders), o.best_response))?;
    p.say_draws()?;
    // Each matrix's tables made once; the Markdown and the files read them.
    let tables = ms
        .iter()
        .map(frame::matrix_tables)
        .collect::<Result<Vec<_>, _>>()?;
    let mut md = String::new();
    let mut files = Vec::new();
    for (m, t) in ms.iter().zip(&tables) {
        md.push_str(&markdown::matrix(m, &t.cells));
        files.extend(write_matrix(m, t, stage.dir(), charts)?);
    }
    Ok(md + &commit(stage, &files, &c.cancel)?)
}

/// A scenario with no dice count or stat to step: refused (exit 2, no table written)
/// rather than answered with an empty table, and told what would give it one.
fn nothing_to_change(command: &str, scenario: &str) -> AppError {
    AppError::BadOption(rollsim_core::balance::nothing_to_change(command, scenario))
}

/// One or two `--vary` keys, checked before the config is read.
fn vary_count(o: &SweepOptions) -> Result<(), AppError> {
    if o.vary.is_empty() || o.vary.len() > 2 {
        return Err(AppError::BadOption(
            "--vary: give one or two keys, e.g. --vary attacker.strength=2..6".into(),
        ));
    }
    Ok(())
}

/// The keys `--vary` names, checked against the config: not the same twice.
fn sweep_keys(o: &SweepOptions, p: &Prepared) -> Result<Vec<sweep::Vary>, AppError> {
    let keys = o
        .vary
        .iter()
        .map(|v| sweep::parse(&p.source, &p.target.table, v))
        .collect::<Result<Vec<_>, _>>()?;
    if keys.len() == 2 && keys[0].key == keys[1].key {
        return Err(AppError::BadOption(format!(
            "--vary {}: the same key twice; give two different keys",
            keys[0].key
        )));
    }
    Ok(keys)
}

/// A sweep's file stem: `sweep-SCENARIO-KEY[-KEY]`.
fn sweep_stem(s: &crate::report::analysis::Sweep) -> String {
    format!(
        "sweep-{}-{}",
        s.scenario,
        s.keys
            .iter()
            .map(|k| k.key.replace('.', "_"))
            .collect::<Vec<_>>()
            .join("-")
    )
}

/// `rollsim sweep`.
pub fn sweep(o: &SweepOptions) -> Result<String, AppError> {
    let c = &o.common;
    vary_count(o)?;
    let p = c.prepare("sweep")?;
    let keys = sweep_keys(o, &p)?;
    if let Some(done) = p.part(&Command::Sweep(o.clone()), |job| {
        sweep::sweep(job, keys.clone()).map(drop)
    })? {
        return Ok(done);
    }
    let stage = Staging::begin(&p.folder, Keep::Everything)?;
    let dir = stage.dir().to_path_buf();
    let s = p.run(|job| sweep::sweep(job, keys))?;
    p.say_draws()?;
    let stem = sweep_stem(&s);
    let csv_path = dir.join(format!("{stem}.csv"));
    csv::write(&frame::sweep(&s)?, &csv_path)?;
    let mut files = vec![csv_path];
    if c.plots {
        files.extend(plot::sweep::draw(
            &s,
            &how(s.trials, s.seed, "per point"),
            &dir,
            &stem,
            c.charts(),
        )?);
    }
    Ok(markdown::sweep(&s) + &commit(stage, &files, &c.cancel)?)
}

/// `rollsim sensitivity`.
pub fn sensitivity(o: &Options) -> Result<String, AppError> {
    let p = o.prepare("sensitivity")?;
    if let Some(done) = p.part(&Command::Sensitivity(o.clone()), |job| {
        sensitivity::rows(job).map(drop)
    })? {
        return Ok(done);
    }
    let stage = Staging::begin(&p.folder, Keep::Everything)?;
    let dir = stage.dir().to_path_buf();
    let r = p.run(sensitivity::rows)?;
    p.say_draws()?;
    if r.rows.is_empty() && r.refused.is_empty() {
        return Err(nothing_to_change("sensitivity", &p.target.name));
    }
    let csv_path = dir.join(format!("sensitivity-{}.csv", p.target.name));
    csv::write(&frame::sensitivity(&r.rows)?, &csv_path)?;
    let mut files = vec![csv_path];
    if o.plots {
        let method = how(p.trials, p.seed, "each");
        let mut labels: Vec<&str> = Vec::new();
        for row in &r.rows {
            if !labels.contains(&row.scenario.as_str()) {
                labels.push(&row.scenario);
            }
        }
        // One chart per member and quantity: a probability's points, a mean winner and
        // a number of rounds are not one axis. The first quantity (the headline) keeps the
        // member's file name; each other adds its own.
        for member in labels {
            let mine: Vec<_> = r.rows.iter().filter(|x| x.scenario == member).collect();
            let mut quantities: Vec<&str> = Vec::new();
            for x in &mine {
                if !quantities.contains(&x.quantity.as_str()) {
                    quantities.push(&x.quantity);
                }
            }
            // A decision's label is "NAME (best choice)": its file is NAME's.
            let stem = member.split(' ').next().unwrap_or(member);
            for (k, quantity) in quantities.iter().enumerate() {
                let rows: Vec<_> = mine.iter().filter(|x| x.quantity == *quantity).collect();
                let Some(first) = rows.first() else { continue };
                let bars: Vec<(String, f64)> =
                    rows.iter().map(|x| (x.change.clone(), x.delta)).collect();
                let png = match k {
                    0 => dir.join(format!("sensitivity-{stem}.png")),
                    _ => dir.join(format!("sensitivity-{stem}-{}.png", slug(quantity))),
                };
                let unit = if first.probability {
                    "percentage points"
                } else {
                    "change in the mean"
                };
                plot::sensitivity::draw(
                    &plot::title::headed(
                        &plot::title::lead(
                            member,
                            r.descriptions
                                .iter()
                                .find(|d| d.0 == *member)
                                .map_or("", |d| d.1.as_str()),
                        ),
                        "what one step is worth",
                    ),
                    &format!(
                        "change in {quantity} for each side's +1 die or one better stat step ({method})"
                    ),
                    &format!("change in {quantity} ({unit})"),
                    &bars,
                    first.probability,
                    &png,
                    o.charts(),
                )?;
                files.push(png);
            }
        }
    }
    Ok(markdown::sensitivity(&r.rows, &r.refused) + &commit(stage, &files, &o.cancel)?)
}

/// `rollsim equalize`.
pub fn equalize(o: &EqualizeOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare("equalize")?;
    if let Some(done) = p.part(&Command::Equalize(o.clone()), |job| {
        equalize::equalize(job, o.target, o.pairs).map(drop)
    })? {
        return Ok(done);
    }
    let stage = Staging::begin(&p.folder, Keep::Everything)?;
    let all = p.run(|job| equalize::equalize(job, o.target, o.pairs))?;
    if all.iter().all(|e| e.candidates.is_empty() && !e.even) {
        return Err(nothing_to_change("equalize", &p.target.name));
    }
    if let Some(note) = all.iter().find_map(|e| e.note.as_ref()) {
        eprintln!("note: {}", rollsim_core::text::terminal_safe(note));
    }
    let path = stage.dir().join(format!("equalize-{}.csv", p.target.name));
    csv::write(&frame::equalize(&all)?, &path)?;
    Ok(markdown::equalize(&all) + &commit(stage, &[path], &c.cancel)?)
}

/// `rollsim overlay`.
pub fn overlay(o: &OverlayOptions) -> Result<String, AppError> {
    let (entries, texts) = overlay_inputs(o)?;
    let share = match &o.sharing {
        Sharing::Whole => Share::All,
        Sharing::Shard(f) => Share::part(f.k, f.n),
        Sharing::Merge { parts, .. } => Share::merged(parts.clone())
            .map_err(|e| AppError::BadOption(format!("the parts do not add up: {e}")))?,
        Sharing::Check => {
            return Err(AppError::BadOption(
                "overlay names its configs in its entries: `plan` does not take it".into(),
            ))
        }
    };
    let out = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join("overlay"));
    let stage = match &o.sharing {
        Sharing::Shard(found) => Err(found),
        _ => Ok(Staging::begin(&out, Keep::Everything)?),
    };
    let got = overlay_rows(o, &entries, &texts, &share);
    let stage = match stage {
        Ok(stage) => stage,
        // A shard: its share of the simulations, and every config's text, into its part.
        Err(found) => {
            match got {
                Ok(_) | Err(rollsim_core::Error::Deferred) => {}
                Err(e) => return Err(e.into()),
            }
            o.cancel.check()?;
            let mut command = o.clone();
            command.texts = texts.clone();
            let origin = Origin {
                file: &entries[0].config.display().to_string(),
                text: "",
                sets: &[],
                seed: o.seed.unwrap_or(0),
                trials: o.trials.unwrap_or(0),
            };
            let dir = o
                .out
                .clone()
                .unwrap_or_else(|| out.with_file_name("overlay-parts"));
            return write_part(&Command::Overlay(command), found, &share, origin, &dir);
        }
    };
    let dir = stage.dir().to_path_buf();
    let (metric, rows) = got?;
    let values = overlay_values(&rows);
    let path = dir.join(format!("overlay-{metric}.csv"));
    csv::write(&frame::overlay(&rows, &values)?, &path)?;
    let mut files = vec![path];
    if o.plots {
        let png = dir.join(format!("overlay-{metric}.png"));
        plot::overlay::draw(&metric, &rows, &values, &png, o.charts())?;
        files.push(png);
    }
    Ok(markdown::overlay(&metric, &rows, &values) + &commit(stage, &files, &o.cancel)?)
}

/// An overlay's entries and each one's config text by its path as given: read from the
/// files once, or (in a merge) the ones the shards read, which their parts carry.
fn overlay_inputs(
    o: &OverlayOptions,
) -> Result<(Vec<overlay::Entry>, BTreeMap<String, String>), AppError> {
    if o.entries.len() < 2 {
        return Err(AppError::BadOption(
            "give two or more CONFIG:SCENARIO entries to set side by side".into(),
        ));
    }
    let entries = o
        .entries
        .iter()
        .map(|e| overlay::parse_entry(e))
        .collect::<Result<Vec<_>, _>>()?;
    let mut texts = o.texts.clone();
    if !matches!(o.sharing, Sharing::Merge { .. }) {
        for e in &entries {
            if let std::collections::btree_map::Entry::Vacant(v) =
                texts.entry(e.config.display().to_string())
            {
                v.insert(config::read(&e.config)?);
            }
        }
    }
    Ok((entries, texts))
}

/// The overlay's metric and its rows (each entry's label, metric and trials), `share`
/// of them simulated here.
fn overlay_rows(
    o: &OverlayOptions,
    entries: &[overlay::Entry],
    texts: &BTreeMap<String, String>,
    share: &Share,
) -> Result<(String, Vec<overlay::Shown>), rollsim_core::Error> {
    let pool = thread_pool(o.threads).map_err(|e| rollsim_core::Error::BadOption(e.to_string()))?;
    let load = |path: &Path| -> Result<Source, rollsim_core::Error> {
        let text = texts.get(&path.display().to_string()).ok_or_else(|| {
            rollsim_core::Error::BadOption(format!(
                "{}: not among the parts' configs",
                path.display()
            ))
        })?;
        Source::parse_until(text, path, &[], &o.cancel)
    };
    let hidden = rollsim_core::sim::Hidden;
    let ctx = Hooks::new(&o.cancel, &hidden);
    pool.install(|| {
        overlay::results(
            entries,
            &load,
            o.metric.as_deref(),
            o.seed,
            o.trials,
            ctx,
            share,
        )
    })
}

/// The union of the entries' values, in order of first appearance; numbers in order
/// of size (`2d6 * 2` against `2d6 * 2 + 1` take turns, neither holding the other's).
fn overlay_values(rows: &[overlay::Shown]) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for (_, m, _) in rows {
        for r in &m.rows {
            if !values.contains(&r.label) {
                values.push(r.label.clone());
            }
        }
    }
    let numbers: Option<Vec<i64>> = values.iter().map(|v| v.parse().ok()).collect();
    if let Some(numbers) = numbers {
        let mut both: Vec<(i64, String)> = numbers.into_iter().zip(values).collect();
        both.sort_by_key(|b| b.0);
        values = both.into_iter().map(|b| b.1).collect();
    }
    values
}

/// `rollsim roster`: the matrix (as `compare` writes it), `roster-SCENARIO.csv`, and two
/// bar charts: the Nash weights and the ratings.
pub fn roster(o: &RosterOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare("roster")?;
    let count = o.count.as_deref().map(|n| (n, o.reference.as_deref()));
    if let Some(done) = p.part(&Command::Roster(o.clone()), |job| {
        roster::priced(job, &o.units, o.best_response, count).map(drop)
    })? {
        return Ok(done);
    }
    let stage = Staging::begin(&p.folder, Keep::Everything)?;
    let dir = stage.dir().to_path_buf();
    let (r, priced) = p.run(|job| roster::priced(job, &o.units, o.best_response, count))?;
    p.say_draws()?;
    let tables = frame::matrix_tables(&r.matrix)?;
    let charts = super::charts(c.plots, c.svg, &c.cancel);
    let mut files = write_matrix(&r.matrix, &tables, &dir, charts)?;
    files.extend(write_roster(
        &r,
        &dir,
        super::charts(c.plots, c.svg, &c.cancel),
    )?);
    let mut md = markdown::roster(&r);
    if let Some(k) = &priced {
        let path = dir.join(format!("costs-{}.csv", r.matrix.scenario));
        csv::write(&frame::costs(k)?, &path)?;
        files.push(path);
        md.push_str(&markdown::costs(k));
        // The matrix at equal points, priced now and re-priced, as heatmaps.
        if let Some(charts) = super::charts(c.plots, c.svg, &c.cancel) {
            for (m, tag, words) in [
                (&k.before, "costs-now", "at equal points"),
                (&k.after, "repriced", "at equal points"),
            ] {
                let Some(m) = m else { continue };
                let mut hm = r.matrix.clone();
                hm.scenario = format!("{}-{tag}", r.matrix.scenario);
                hm.what = format!("P(row wins), both seats, {words}");
                // The designer's words lead the title; which pricing it is goes with
                // what the cells are.
                if plot::title::lead(&r.matrix.scenario, &r.matrix.description)
                    != plot::title::words(&r.matrix.scenario)
                {
                    hm.what = format!("{}, {}", hm.what, tag.replace('-', " "));
                }
                for (i, row) in hm.cells.iter_mut().enumerate() {
                    for (j, cell) in row.iter_mut().enumerate() {
                        cell.response = None;
                        cell.value = Ok(rollsim_core::results::analysis::Cell {
                            estimate: m[i][j],
                            ci: (m[i][j], m[i][j]),
                            exact: Some(m[i][j]),
                            trials: 0,
                        });
                    }
                }
                hm.response = None;
                let png = dir.join(format!("{}.png", hm.stem()));
                let cells = frame::matrix_tables(&hm)?.cells;
                plot::heatmap::matrix(&hm, &cells, &png, charts)?;
                files.push(png);
            }
            let png = dir.join(format!("costs-{}-exchange.png", r.matrix.scenario));
            let reference = k
                .rows
                .iter()
                .find(|x| x.id == k.reference)
                .map_or(k.reference.as_str(), |x| x.name.as_str());
            plot::exchange::draw(
                k,
                &plot::title::headed(
                    &plot::title::lead(&r.matrix.scenario, &r.matrix.description),
                    &format!("what each unit is worth in {reference}s"),
                ),
                &format!(
                    "each unit's chance against {reference} as its {} grows; at 50% it ties ({})",
                    k.count,
                    r.matrix.how()
                ),
                &png,
                charts,
            )?;
            files.push(png);
        }
    }
    Ok(md + &commit(stage, &files, &c.cancel)?)
}

/// Write a roster's `roster-SCENARIO.csv` and, with charts, its Nash weights' and
/// ratings' bar charts into `dir` (the matrix is written apart).
pub fn write_roster(
    r: &roster::Roster,
    dir: &Path,
    charts: Option<plot::Charts>,
) -> Result<Vec<PathBuf>, AppError> {
    mkdir(dir)?;
    let stem = format!("roster-{}", r.matrix.scenario);
    let path = dir.join(format!("{stem}.csv"));
    csv::write(&frame::roster(r)?, &path)?;
    let mut files = vec![path];
    if let Some(charts) = charts {
        files.extend(plot::roster::draw(r, dir, &stem, charts)?);
    }
    Ok(files)
}
