//! Shards for clusters: `rollsim run --shard K/N` runs only its share of the chunks and
//! writes a part (counts and what they belong to); `rollsim merge` adds the parts of all
//! N shards into exactly the output of a single run with the same seed. Chunk `c` always
//! draws from the generator of (seed, c), so where it ran does not matter.

use crate::app::{self, AppError, Format, RunOptions};
use crate::config;
use crate::progress::Bars;
use crate::report::stage::{Keep, Staging};
use crate::report::{self, markdown, write::atomic, write::WriteError};
use crate::sim::{self, Histogram, Reporter, CHUNK};
use rollsim_core::Cancel;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Bumped when the part layout changes (2: parts carry a checksum; 3: the checksum is
/// SHA-256 and a part names the build that made it).
pub const FORMAT: u32 = 3;

/// The build a part comes from: the version and the source revision.
pub fn build() -> String {
    format!(
        "rollsim {} ({})",
        env!("CARGO_PKG_VERSION"),
        env!("ROLLSIM_SOURCE")
    )
}

/// One shard's results.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Part {
    pub format: u32,
    /// rollsim's version: counts from different versions may not be comparable.
    pub version: String,
    /// The build ([`build`]): parts of different builds are not merged.
    pub build: String,
    pub config_file: String,
    pub config_text: String,
    pub sets: Vec<String>,
    /// SHA-256 of the config text and the overrides.
    pub config_hash: String,
    pub seed: u64,
    pub trials: u64,
    /// [K, N]
    pub shard: [u64; 2],
    pub scenarios: Vec<PartScenario>,
    /// SHA-256 of the part's JSON with this field empty: an edited or damaged part is
    /// refused (see the README: it guards against accidents and mixed inputs, not against
    /// someone who edits a part and computes the hash again).
    pub checksum: String,
}

impl Part {
    /// The checksum of everything else in the part.
    pub fn content_hash(&self) -> Result<String, serde_json::Error> {
        let mut bare = self.clone();
        bare.checksum = String::new();
        let json = serde_json::to_string(&bare)?;
        Ok(hash(&json, &[]))
    }
}

/// Trials in shard `k` of `n`: its chunks, the run's last chunk short when the trials do
/// not fill it. None when `k`/`n` is not a shard of the run.
pub fn shard_trials(trials: u64, k: u64, n: u64) -> Option<u64> {
    let chunks = trials.div_ceil(CHUNK);
    if k == 0 || k > n || n > chunks.max(1) {
        return None;
    }
    let len = sim::shard_len(trials, k, n);
    let mut t = len.checked_mul(CHUNK)?;
    // The last chunk, index chunks - 1, belongs to shard ((chunks - 1) % n) + 1.
    if chunks > 0 && (chunks - 1) % n + 1 == k {
        t -= chunks * CHUNK - trials;
    }
    Some(t)
}

/// A scenario's counts over its shard's chunks: every N-th chunk from chunk K - 1
/// ([`sim::shard_chunks`]), so the part needs no list of them.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PartScenario {
    pub name: String,
    pub counts: Vec<u64>,
}

/// SHA-256, 64 bits, as hex.
pub fn hash(text: &str, sets: &[String]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(text.as_bytes());
    for s in sets {
        h.update(s.as_bytes());
        h.update([0]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Most shards a run may be split into (and a merge will read).
pub const MAX_SHARDS: u64 = 1 << 20;

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

/// `rollsim run --shard K/N`: run this shard's chunks of every selected scenario and
/// write `DIR/part-K-of-N.json`.
pub fn run(opts: &RunOptions, (k, n): (u64, u64)) -> Result<String, AppError> {
    if opts.precision.is_some() {
        return Err(AppError::BadOption(
            "--shard runs a fixed number of trials: drop --precision (and give -n)".into(),
        ));
    }
    let text = config::read(&opts.config)?;
    let file = opts.config.display().to_string();
    let cfg = config::load_str(&text, &file, &opts.sets)?;
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
            .map_err(|_| AppError::Interrupted)?;
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
    let mut part = Part {
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
        checksum: String::new(),
    };
    part.checksum = part
        .content_hash()
        .map_err(|e| AppError::BadOption(format!("encoding the part: {e}")))?;
    // Beside the config's report, not in it: the next run replaces its report folder.
    let dir = opts.out.clone().unwrap_or_else(|| {
        let report = app::default_out(&opts.config);
        let name = report
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        report.with_file_name(format!("{name}-parts"))
    });
    std::fs::create_dir_all(&dir).map_err(|e| WriteError::io(&dir, e))?;
    let path = dir.join(format!("part-{k}-of-{n}.json"));
    let json = serde_json::to_vec(&part).map_err(|e| WriteError::encode(&path, e))?;
    atomic(&path, |w| {
        w.write_all(&json).map_err(|e| WriteError::io(&path, e))
    })?;
    Ok(format!(
        "shard {k}/{n}: {} scenario(s), {} of {} chunks each; wrote {}\n",
        part.scenarios.len(),
        sim::shard_len(trials, k, n),
        trials.div_ceil(CHUNK),
        path.display()
    ))
}

/// The largest part `merge` reads (a part holds one count per state per scenario).
const MAX_PART_BYTES: u64 = 1 << 30;

fn read(path: &Path) -> Result<Part, AppError> {
    config::check_readable(path, MAX_PART_BYTES, "part file").map_err(|e| {
        AppError::BadOption(format!("{}: cannot read the part: {e}", path.display()))
    })?;
    let bytes = std::fs::read(path).map_err(|e| {
        AppError::BadOption(format!("{}: cannot read the part: {e}", path.display()))
    })?;
    let bad = |why: String| AppError::BadOption(format!("{}: {why}", path.display()));
    // The format first, so that a part of another layout is named as one, not as a
    // field the layout lacks.
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("not a rollsim part ({e})")))?;
    match value.get("format").and_then(serde_json::Value::as_u64) {
        Some(f) if f == FORMAT as u64 => {}
        Some(f) => {
            return Err(bad(format!(
                "part format {f}, this rollsim reads format {FORMAT}: make the parts again with this rollsim ({})",
                build()
            )))
        }
        None => return Err(bad("not a rollsim part (no `format`)".into())),
    }
    let part: Part = serde_json::from_value(value)
        .map_err(|e| bad(format!("not a rollsim part of format {FORMAT} ({e})")))?;
    // Another build may lay out a scenario's states differently: its counts would be
    // read against the wrong labels.
    if part.build != build() {
        return Err(bad(format!(
            "made by {}, this is {}: merge with the build that made the parts",
            part.build,
            build()
        )));
    }
    let sum = part
        .content_hash()
        .map_err(|e| bad(format!("cannot re-encode the part: {e}")))?;
    if sum != part.checksum {
        return Err(bad(format!(
            "the checksum does not match the content ({} stored, {sum} now): the part was edited or damaged",
            part.checksum
        )));
    }
    let config = hash(&part.config_text, &part.sets);
    if config != part.config_hash {
        return Err(bad(format!(
            "the config text and --sets hash to {config}, the part says {}: it was edited",
            part.config_hash
        )));
    }
    let [k, n] = part.shard;
    let Some(expected) = shard_trials(part.trials, k, n).filter(|_| n <= MAX_SHARDS) else {
        return Err(bad(format!(
            "shard {k}/{n} is not a shard of a {}-trial run",
            part.trials
        )));
    };
    for sc in &part.scenarios {
        let total = sc
            .counts
            .iter()
            .try_fold(0u64, |a, &c| a.checked_add(c))
            .ok_or_else(|| bad(format!("scenario `{}`: the counts overflow", sc.name)))?;
        if total != expected {
            return Err(bad(format!(
                "scenario `{}`: the counts add up to {total}, shard {k}/{n} ran {expected} trials",
                sc.name
            )));
        }
    }
    Ok(part)
}

/// `rollsim merge PARTS -o DIR`: check the parts belong together and cover every chunk
/// exactly once, add them up and write what a single run would have written.
pub fn merge(
    parts: &[PathBuf],
    out: &Path,
    formats: &[Format],
    charts: Option<crate::report::plot::Charts>,
    cancel: &Cancel,
) -> Result<String, AppError> {
    if parts.is_empty() {
        return Err(AppError::BadOption(
            "merge: give the part files to merge".into(),
        ));
    }
    let loaded: Vec<(PathBuf, Part)> = parts
        .iter()
        .map(|p| {
            cancel.check()?;
            read(p).map(|x| (p.clone(), x))
        })
        .collect::<Result<_, _>>()?;
    let (first_path, first) = &loaded[0];
    for (p, x) in &loaded[1..] {
        let differ = |what: &str, a: String, b: String| {
            AppError::BadOption(format!(
                "{} and {} come from different runs: {what} {a} vs {b}",
                first_path.display(),
                p.display()
            ))
        };
        if x.version != first.version {
            return Err(differ(
                "rollsim version",
                first.version.clone(),
                x.version.clone(),
            ));
        }
        if x.build != first.build {
            return Err(differ("build", first.build.clone(), x.build.clone()));
        }
        if x.config_hash != first.config_hash {
            return Err(differ(
                "config (hash)",
                first.config_hash.clone(),
                x.config_hash.clone(),
            ));
        }
        if x.seed != first.seed {
            return Err(differ("seed", first.seed.to_string(), x.seed.to_string()));
        }
        if x.trials != first.trials {
            return Err(differ(
                "trials",
                first.trials.to_string(),
                x.trials.to_string(),
            ));
        }
        let names = |q: &Part| {
            q.scenarios
                .iter()
                .map(|s| s.name.clone())
                .collect::<Vec<_>>()
                .join(",")
        };
        if names(x) != names(first) {
            return Err(differ("scenarios", names(first), names(x)));
        }
    }
    // Every shard K of N exactly once: then every chunk is counted exactly once.
    let n = first.shard[1];
    let mut owner: BTreeMap<u64, &Path> = BTreeMap::new();
    for (p, x) in &loaded {
        if x.shard[1] != n {
            return Err(AppError::BadOption(format!(
                "{} is shard {}/{}, {} shard {}/{n}: parts of one run share N",
                p.display(),
                x.shard[0],
                x.shard[1],
                first_path.display(),
                first.shard[0]
            )));
        }
        if let Some(other) = owner.insert(x.shard[0], p) {
            return Err(AppError::BadOption(format!(
                "shard {}/{n} is both {} and {}: a shard was given twice",
                x.shard[0],
                other.display(),
                p.display()
            )));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !owner.contains_key(k) && sim::shard_len(first.trials, *k, n) > 0)
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        let shown = missing
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let more = if missing.len() > 10 {
            format!(" and {} more", missing.len() - 10)
        } else {
            String::new()
        };
        return Err(AppError::BadOption(format!(
            "missing shard(s) {shown}{more} of {n}: their chunks are in no part"
        )));
    }
    let cfg = config::load_str(&first.config_text, &first.config_file, &first.sets)?;
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
            other => AppError::Compile(other),
        })?;
        let mut counts = vec![0u64; c.trial.states()];
        for (p, x) in &loaded {
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
    app::write_reports(&results, stage.dir(), formats, charts, cancel)?;
    cancel.check()?;
    stage.commit()?;
    Ok(if formats.contains(&Format::Md) {
        let title = if cfg.title.is_empty() {
            String::new()
        } else {
            format!("## {}\n\n", cfg.title)
        };
        title
            + &markdown::full(&results)
            + &markdown::profiles(&results)
            + &markdown::decisions(&report::decision_rows(&results))
    } else {
        String::new()
    })
}
