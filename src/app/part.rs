//! A shard's part on disk: what `run --shard K/N` or a balance command's shard writes,
//! and what `merge` reads back. The part carries the config's text, so the merge needs
//! nothing else; a checksum, the build and the config's hash keep parts of different
//! runs, builds or edits apart.

use super::AppError;
use crate::config;
use crate::report::write::{atomic, WriteError};
use crate::sim::{self, CHUNK};
use rollsim_core::balance::share::Recorded;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Bumped when the part layout changes (2: parts carry a checksum; 3: the checksum is
/// SHA-256 and a part names the build that made it; 4: balance commands' parts, and
/// where the shard came from).
pub const FORMAT: u32 = 4;

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
    /// `run`'s counts, per scenario (empty for a balance command).
    pub scenarios: Vec<PartScenario>,
    /// A balance command as `app::balance` encodes it (`None`: `run`).
    pub command: Option<serde_json::Value>,
    /// A balance command's items this shard computed, by spread.
    pub spreads: Recorded,
    /// How the shard was chosen: `--shard K/N`, or the scheduler's variables.
    pub from: String,
    /// SHA-256 of the part's JSON with this field empty: an edited or damaged part is
    /// refused (docs/cluster.md: it guards against accidents and mixed inputs, not against
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

/// The largest part `merge` reads (a part holds one count per state per scenario).
const MAX_PART_BYTES: u64 = 1 << 30;

/// Read one part and check it is whole and unedited.
pub fn read(path: &Path) -> Result<Part, AppError> {
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
    if part.command.is_some() {
        if k == 0 || k > n || n > MAX_SHARDS {
            return Err(bad(format!("shard {k}/{n} is not a shard")));
        }
        return Ok(part);
    }
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

/// Where the parts of a command writing into `folder` go: `<folder>-parts`, beside it,
/// never in it (a run replaces its report folder whole). `None` for a folder without a
/// name (`.`).
pub fn beside(folder: &Path) -> Option<PathBuf> {
    let name = folder.file_name()?.to_string_lossy().into_owned();
    Some(folder.with_file_name(format!("{name}-parts")))
}

/// Where a shard of `command` on `config` puts its part without `-o`: `run`'s beside the
/// config's report (`reports/<config>-parts`), a balance command's in a folder of its own
/// there (`reports/<config>-parts/<command>`).
pub fn default_dir(config: &Path, command: &str) -> PathBuf {
    let report = super::default_out(config);
    let parts = beside(&report).unwrap_or_else(|| report.join("parts"));
    if command == "run" {
        parts
    } else {
        parts.join(command)
    }
}

/// Finish `part` (its checksum) and write it to `DIR/part-K-of-N.json` in one step.
pub fn write(mut part: Part, dir: &Path) -> Result<PathBuf, AppError> {
    part.checksum = part
        .content_hash()
        .map_err(|e| AppError::BadOption(format!("encoding the part: {e}")))?;
    std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
    let [k, n] = part.shard;
    let path = dir.join(format!("part-{k}-of-{n}.json"));
    let json = serde_json::to_vec(&part).map_err(|e| WriteError::encode(&path, e))?;
    atomic(&path, |w| {
        w.write_all(&json).map_err(|e| WriteError::io(&path, e))
    })?;
    Ok(path)
}

/// The part files `merge` was given: files as they are, and for a folder every
/// `part-K-of-N.json` in it (so a script need not glob thousands of names).
pub fn files(given: &[PathBuf]) -> Result<Vec<PathBuf>, AppError> {
    let mut out = Vec::new();
    for p in given {
        if !p.is_dir() {
            out.push(p.clone());
            continue;
        }
        let entries = std::fs::read_dir(p).map_err(|e| {
            AppError::BadOption(format!("{}: cannot read the folder: {e}", p.display()))
        })?;
        let mut found: Vec<PathBuf> = Vec::new();
        for e in entries {
            let e = e.map_err(|e| {
                AppError::BadOption(format!("{}: cannot read the folder: {e}", p.display()))
            })?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("part-") && name.ends_with(".json") && name.contains("-of-") {
                found.push(e.path());
            }
        }
        if found.is_empty() {
            return Err(AppError::BadOption(format!(
                "{}: no part-K-of-N.json files in this folder",
                p.display()
            )));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// One thing the parts of one run share: its name in a refusal, and its value.
type Shared = (&'static str, fn(&Part) -> String);

/// What the parts of one run share.
const SHARED: &[Shared] = &[
    ("rollsim version", |q| q.version.clone()),
    ("build", |q| q.build.clone()),
    ("config (hash)", |q| q.config_hash.clone()),
    ("seed", |q| q.seed.to_string()),
    ("trials", |q| q.trials.to_string()),
    ("command", |q| {
        q.command
            .as_ref()
            .map_or_else(|| "run".to_string(), |c| c.to_string())
    }),
    ("scenarios", |q| {
        q.scenarios
            .iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
            .join(",")
    }),
];

/// Read every part and check that they are the shards of one run: one version, build,
/// config, seed, trials, command and count of shards, each shard once. `needed(k)`:
/// whether shard `k` must be there (a run's shard past its last chunk holds nothing).
pub fn load_together(
    given: &[PathBuf],
    cancel: &rollsim_core::Cancel,
    needed: &dyn Fn(&Part, u64) -> bool,
) -> Result<Vec<(PathBuf, Part)>, AppError> {
    let paths = files(given)?;
    if paths.is_empty() {
        return Err(AppError::BadOption(
            "merge: give the part files to merge".into(),
        ));
    }
    let loaded: Vec<(PathBuf, Part)> = paths
        .iter()
        .map(|p| {
            cancel.check()?;
            read(p).map(|x| (p.clone(), x))
        })
        .collect::<Result<_, _>>()?;
    let (first_path, first) = &loaded[0];
    for (p, x) in &loaded[1..] {
        for (what, of) in SHARED {
            let (a, b) = (of(first), of(x));
            if a != b {
                return Err(AppError::BadOption(format!(
                    "{} and {} come from different runs: {what} {a} vs {b}",
                    first_path.display(),
                    p.display()
                )));
            }
        }
    }
    // Every shard K of N exactly once: then every item is counted exactly once.
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
        .filter(|k| !owner.contains_key(k) && needed(first, *k))
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
            "missing shard(s) {shown}{more} of {n}: their share is in no part"
        )));
    }
    Ok(loaded)
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

/// Most shards a run may be split into (and a merge will read).
pub const MAX_SHARDS: u64 = 1 << 20;
