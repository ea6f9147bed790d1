//! Runs shared within one command: the same trial under the same seed is rolled once.

/// The counts of runs already made in one command, by sampler key (see
/// [`crate::model::Trial::key`]), seed and trial range: a second scenario (or matrix
/// cell) whose trial is the same is not rolled again. Its counts are the ones rolling
/// it would give, bit for bit: the trials of a range depend on the seed, the chunks
/// and the sampler alone. The caller makes one per command and drops it after.
#[derive(Default)]
pub struct Memo {
    runs: std::sync::Mutex<Runs>,
}

/// The runs kept, by sampler key (each key held once, however many ranges it rolled),
/// and the bytes their keys and counts take.
#[derive(Debug, Default)]
struct Runs {
    by_key: std::collections::HashMap<Vec<u8>, std::collections::HashMap<Range, Vec<u64>>>,
    bytes: usize,
}

/// The seed, and the first and end trial.
pub(super) type Range = (u64, u64, u64);

/// Bytes of keys and counts one [`Memo`] keeps; past them it keeps no more runs (the
/// command goes on unshared). A key holds what its trial is made from (a re-roll
/// policy's choices, say, not the tables a trial makes from them when first run).
const MEMO_BYTES: usize = 64 << 20;

impl Memo {
    /// An empty memo.
    pub fn new() -> Self {
        Self::default()
    }

    pub(super) fn get(&self, key: &[u8], range: Range) -> Option<Vec<u64>> {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        runs.by_key.get(key)?.get(&range).cloned()
    }

    pub(super) fn put(&self, key: &[u8], range: Range, counts: &[u64]) {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let known = runs.by_key.contains_key(key);
        let bytes = if known { 0 } else { key.len() } + 8 * counts.len();
        if runs.bytes + bytes > MEMO_BYTES {
            return;
        }
        let ranges = runs.by_key.entry(key.to_vec()).or_default();
        // Two threads may roll the same range side by side: it is counted once.
        if ranges.insert(range, counts.to_vec()).is_none() {
            runs.bytes += bytes;
        }
    }
}

/// Where a run looks for ranges already rolled: the memo and the sampler's key.
#[derive(Clone, Copy)]
pub struct Shared<'a> {
    /// The command's memo.
    pub memo: &'a Memo,
    /// The sampler's [`Sampler::key`].
    pub key: &'a [u8],
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let ranges: usize = runs.by_key.values().map(|r| r.len()).sum();
        write!(f, "Memo({ranges} runs, {} bytes)", runs.bytes)
    }
}
