//! Shards for clusters: `rollsim run --shard K/N` runs only its share of the chunks and
//! writes a part (counts and what they belong to); `rollsim merge` adds the parts of all
//! N shards into exactly the output of a single run with the same seed. Chunk `c` always
//! draws from the generator of (seed, c), so where it ran does not matter.

use super::part::{self, build, FORMAT, MAX_SHARDS};
pub use super::part::{hash, Part, PartScenario};
use super::scheduler::{self, Found};
use crate::app::{self, AppError, Format, RunOptions};
use crate::config;
use crate::progress::Bars;
use crate::report;
use crate::report::write::{Keep, Staging};
use crate::sim::{self, Histogram, Reporter, CHUNK};
use rollsim_core::Cancel;
use std::path::{Path, PathBuf};

/// How the command line asked to shard: `--shard K/N`, `--shards N` (the task from the
/// scheduler), or `--no-shard`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub shard: Option<String>,
    pub shards: Option<u64>,
    pub no_shard: bool,
}

impl Request {
    /// The shard this process runs (`None`: the whole command), and a note for stderr
    /// when a scheduler's variable was seen but not used.
    pub fn resolve(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(Option<Found>, Option<String>), AppError> {
        if let Some(s) = &self.shard {
            let (k, n) = parse_shard(s)?;
            if let Some(m) = self.shards.filter(|&m| m != n) {
                return Err(AppError::BadOption(format!(
                    "--shard {s} and --shards {m} disagree: give one"
                )));
            }
            return Ok((
                Some(Found {
                    k,
                    n,
                    from: format!("--shard {k}/{n}"),
                }),
                None,
            ));
        }
        if self.no_shard {
            return Ok((None, None));
        }
        let found = scheduler::find(env, self.shards)?;
        let note = match &found {
            Some(f) => Some(format!(
                "rollsim: running shard {}/{}: {}",
                f.k, f.n, f.from
            )),
            None => scheduler::unused(env).map(|u| format!("rollsim: {u}")),
        };
        Ok((found, note))
    }
}

/// Parse `K/N` (1 <= K <= N).
pub fn parse_shard(s: &str) -> Result<(u64, u64), AppError> {
    let bad = || {
        AppError::BadOption(format!(
            "--shard {s}: expected K/N with 1 <= K <= N, e.g. 2/8"
        ))
    };
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    // More shards than this many would each hold nothing worth a process.
    if n > MAX_SHARDS {
        return Err(AppError::BadOption(format!(
            "--shard {s}: at most {MAX_SHARDS} shards"
        )));
    }
    Ok((k, n))
}

/// `rollsim run --shard K/N` (or a scheduler's array task): run this shard's chunks of
/// every selected scenario and write `DIR/part-K-of-N.json`.
pub fn run(opts: &RunOptions, found: &Found) -> Result<String, AppError> {
    let (k, n) = (found.k, found.n);
    if opts.precision.is_some() {
        return Err(AppError::BadOption(format!(
            "shard {k}/{n} ({}) runs a fixed number of trials: drop --precision (and give -n), or give --no-shard to run whole inside an array task",
            found.from
        )));
    }
    if opts.exact_only {
        return Err(AppError::BadOption(format!(
            "shard {k}/{n} ({}): an exact-only run simulates nothing to share out; give --no-shard to run it whole inside an array task",
            found.from
        )));
    }
    let text = config::read(&opts.config)?;
    let file = opts.config.display().to_string();
    let cfg = config::load_until(&text, &file, &opts.sets, &opts.cancel)?;
    let names = app::select(&cfg, &opts.scenarios)?;
    let trials = opts
        .trials
        .or(cfg.run.trials)
        .unwrap_or(app::DEFAULT_TRIALS);
    let seed = opts.seed.or(cfg.run.seed).unwrap_or(app::DEFAULT_SEED);
    let pool = app::thread_pool(opts.threads)?;
    let mut scenarios = Vec::new();
    let bars = Bars::new(opts.quiet);
    for name in &names {
        let c = crate::balance::compile(&cfg, name, &opts.cancel)?;
        let progress = bars.scenario(name);
        let counts = pool
            .install(|| {
                sim::run_shard(
                    c.trial.as_ref(),
                    seed,
                    trials,
                    (k, n),
                    progress.as_ref(),
                    &opts.cancel,
                )
            })
            .map_err(|_| AppError::INTERRUPTED)?;
        progress.finish();
        scenarios.push(PartScenario {
            name: name.clone(),
            counts,
        });
    }
    let chunks = trials.div_ceil(CHUNK);
    if n > chunks {
        return Err(AppError::BadOption(format!(
            "--shard {k}/{n}: {trials} trials are {chunks} chunk(s) of {CHUNK}; use at most {chunks} shards"
        )));
    }
    let part = Part {
        format: FORMAT,
        version: env!("CARGO_PKG_VERSION").into(),
        build: build(),
        config_hash: hash(&text, &opts.sets),
        config_file: file,
        config_text: text,
        sets: opts.sets.clone(),
        seed,
        trials,
        shard: [k, n],
        scenarios,
        command: None,
        spreads: Default::default(),
        from: found.from.clone(),
        checksum: String::new(),
    };
    // Beside the config's report, not in it: the next run replaces its report folder.
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| part::default_dir(&opts.config, "run"));
    let count = part.scenarios.len();
    let path = part::write(part, &dir)?;
    Ok(format!(
        "shard {k}/{n} ({}): {} scenario(s), {} of {} chunks each; wrote {}\n",
        found.from,
        count,
        sim::shard_len(trials, k, n),
        trials.div_ceil(CHUNK),
        path.display()
    ))
}

/// `rollsim merge` of `run`'s parts (checked to belong together by
/// [`part::load_together`]): add up the counts and write what a single run would have
/// written.
pub fn merge(
    loaded: &[(PathBuf, Part)],
    out: &Path,
    formats: &[Format],
    charts: Option<crate::report::plot::Charts>,
    cancel: &Cancel,
) -> Result<String, AppError> {
    let first = &loaded[0].1;
    let cfg = config::load_until(&first.config_text, &first.config_file, &first.sets, cancel)?;
    let stem = Path::new(&first.config_file)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("config")
        .to_string();
    let mut results = Vec::new();
    for (i, sc) in first.scenarios.iter().enumerate() {
        let c = cfg.compile(&sc.name).map_err(|e| match e {
            config::CompileError::Unknown { .. } => AppError::BadOption(format!(
                "the parts name scenario `{}`, which the config lacks",
                sc.name
            )),
            other => other.into(),
        })?;
        let mut counts = vec![0u64; c.trial.states()];
        for (p, x) in loaded {
            let s = &x.scenarios[i];
            if s.counts.len() != counts.len() {
                return Err(AppError::BadOption(format!(
                    "{}: scenario `{}` has {} states, the config {}",
                    p.display(),
                    s.name,
                    s.counts.len(),
                    counts.len()
                )));
            }
            for (a, b) in counts.iter_mut().zip(&s.counts) {
                *a = a.checked_add(*b).ok_or_else(|| {
                    AppError::BadOption(format!("scenario `{}`: the counts overflow", s.name))
                })?;
            }
        }
        let h = Histogram {
            counts,
            trials: first.trials,
        };
        results.push(report::summarize(
            &c,
            &h,
            first.seed,
            &stem,
            cfg.system_name(),
        ));
    }
    cancel.check()?;
    let stage = Staging::begin(out, Keep::Report)?;
    let written = app::report_formats(Path::new(&first.config_file), out, formats);
    let tables = crate::report::frame::report_tables(&results)?;
    app::write_reports(&results, &tables, stage.dir(), &written, charts, cancel)?;
    cancel.check()?;
    stage.commit()?;
    Ok(if formats.contains(&Format::Md) {
        crate::report::markdown::Report::new(&cfg.title, &results).into_text()
    } else {
        String::new()
    })
}
