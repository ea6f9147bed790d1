//! `rollsim merge PARTS -o DIR`: the parts of one sharded command, checked to belong
//! together, into the output a single run writes: `run`'s counts added up, or a balance
//! command run once more with every shard's items given.

use super::part::{self, Part};
use super::{balance, shard, AppError, Format};
use crate::report::plot::Charts;
use crate::sim;
use rollsim_core::Cancel;
use std::path::{Path, PathBuf};

/// Merge the part files (or folders of them) `given` into `out`.
pub fn merge(
    given: &[PathBuf],
    out: &Path,
    formats: &[Format],
    charts: Option<Charts>,
    cancel: &Cancel,
) -> Result<String, AppError> {
    // A run's shard past its last chunk holds nothing and may be left out; a balance
    // command's every shard writes a part.
    let needed = |first: &Part, k: u64| {
        first.command.is_some() || sim::shard_len(first.trials, k, first.shard[1]) > 0
    };
    let loaded = part::load_together(given, cancel, &needed)?;
    if loaded[0].1.command.is_some() {
        balance::merge(
            &loaded,
            out,
            charts.is_some(),
            charts.is_some_and(|c| c.svg),
            cancel,
        )
    } else {
        shard::merge(&loaded, out, formats, charts, cancel)
    }
}
