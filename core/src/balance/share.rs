//! A balance command's work split between processes (the shards of a cluster job).
//!
//! Every command does its heavy work in a few *spreads*: lists of independent items (the
//! cells of a matrix, the points of a sweep, one goal-seek along one knob), each a pure
//! function of the config and the seed. A shard runs the command as a single run would,
//! computes only its own items of each spread it reaches and records them; it stops at
//! the first result that needs another shard's items. The merge runs the command once
//! more with the recorded items given: a spread the shards recorded is read back, a
//! spread that depends on every shard's items (a priced roster's re-priced check) is
//! computed there. Since an item's value does not depend on where it ran, the merged
//! output is the single run's, byte for byte.

use super::each;
use crate::Error;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// One spread as a shard recorded it: how many items it had and the shard's own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Items in the whole spread, every shard's.
    pub items: u64,
    /// (item index, its result).
    pub results: Vec<(u64, serde_json::Value)>,
}

/// What a shard recorded, by spread label.
pub type Recorded = BTreeMap<String, Spread>;

/// How a command's spreads are computed.
#[derive(Debug, Default)]
pub enum Share {
    /// Every item here (a single run, the live page).
    #[default]
    All,
    /// Shard `k` of `n`: item `i` of the command's items, counted across its spreads in
    /// order, is this shard's when `i % n == k - 1`.
    Part {
        /// This shard, 1-based.
        k: u64,
        /// Shards in all.
        n: u64,
        /// Items of the spreads so far (where the next spread's numbering starts), and
        /// what this shard has recorded.
        state: Mutex<(u64, Recorded)>,
    },
    /// The union of every shard's items; spreads no shard reached are computed.
    Merged {
        /// Every shard's recorded items, checked to hold each item of a spread once.
        given: Recorded,
        /// Items computed here because no shard reached their spread.
        computed: AtomicU64,
    },
}

/// Why recorded parts do not add up to one run.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ShareError {
    /// The parts reached different spreads (one part's labels / another's): they come
    /// from different commands or configs.
    #[error("the parts disagree on the spreads they reached ({0})")]
    Labels(String),
    /// Two parts saw a different number of items in one spread.
    #[error("spread `{label}` has {a} items in one part and {b} in another")]
    Items {
        /// The spread.
        label: String,
        /// Its item count in one part.
        a: u64,
        /// Its item count in another.
        b: u64,
    },
    /// An item was recorded by more than one part.
    #[error("spread `{label}`: item {index} is in two parts")]
    Twice {
        /// The spread.
        label: String,
        /// The item, 0-based.
        index: u64,
    },
    /// An item no part recorded (a shard's part is missing).
    #[error("spread `{label}`: item {index} is in no part")]
    Missing {
        /// The spread.
        label: String,
        /// The first missing item, 0-based.
        index: u64,
    },
}

impl Share {
    /// Shard `k` of `n` (1 <= k <= n).
    pub fn part(k: u64, n: u64) -> Share {
        Share::Part {
            k,
            n,
            state: Mutex::new((0, Recorded::new())),
        }
    }

    /// The union of every shard's recorded spreads, checked to cover each item exactly
    /// once.
    pub fn merged(parts: Vec<Recorded>) -> Result<Share, ShareError> {
        let mut given = Recorded::new();
        let labels = |r: &Recorded| r.keys().cloned().collect::<Vec<_>>().join(", ");
        if let Some(first) = parts.first() {
            for p in &parts[1..] {
                if labels(p) != labels(first) {
                    return Err(ShareError::Labels(format!(
                        "{} / {}",
                        labels(first),
                        labels(p)
                    )));
                }
            }
        }
        for p in parts {
            for (label, s) in p {
                let e = given.entry(label.clone()).or_insert_with(|| Spread {
                    items: s.items,
                    results: Vec::new(),
                });
                if e.items != s.items {
                    return Err(ShareError::Items {
                        label,
                        a: e.items,
                        b: s.items,
                    });
                }
                e.results.extend(s.results);
            }
        }
        for (label, s) in &mut given {
            s.results.sort_by_key(|(i, _)| *i);
            for (want, (i, _)) in s.results.iter().enumerate() {
                let want = want as u64;
                if *i < want {
                    return Err(ShareError::Twice {
                        label: label.clone(),
                        index: *i,
                    });
                }
                if *i > want {
                    return Err(ShareError::Missing {
                        label: label.clone(),
                        index: want,
                    });
                }
            }
            if (s.results.len() as u64) < s.items {
                return Err(ShareError::Missing {
                    label: label.clone(),
                    index: s.results.len() as u64,
                });
            }
            if (s.results.len() as u64) > s.items {
                return Err(ShareError::Twice {
                    label: label.clone(),
                    index: s.items,
                });
            }
        }
        Ok(Share::Merged {
            given,
            computed: AtomicU64::new(0),
        })
    }

    /// What a shard recorded (empty otherwise).
    pub fn recorded(&self) -> Recorded {
        match self {
            Share::Part { state, .. } => state.lock().map(|s| s.1.clone()).unwrap_or_default(),
            _ => Recorded::new(),
        }
    }

    /// Items the merge computed itself (spreads no shard could reach).
    pub fn computed(&self) -> u64 {
        match self {
            Share::Merged { computed, .. } => computed.load(Ordering::Relaxed),
            _ => 0,
        }
    }

    /// `f` over `items` as this share says: all of them; a shard's own (then `None`:
    /// the rest is on other shards); or read back from the parts.
    pub fn spread<I: Sync, T: Send + Serialize + DeserializeOwned + PartialEq>(
        &self,
        label: &str,
        items: &[I],
        f: impl Fn(&I) -> Result<T, Error> + Sync + Send,
    ) -> Result<Option<Vec<T>>, Error> {
        match self {
            Share::All => each(items, f).map(Some),
            Share::Part { k, n, state } => {
                let offset = {
                    let mut s = state.lock().map_err(|_| poisoned())?;
                    let o = s.0;
                    s.0 += items.len() as u64;
                    o
                };
                let mine: Vec<usize> = (0..items.len())
                    .filter(|i| (offset + *i as u64) % n == k - 1)
                    .collect();
                let done = each(&mine, |&i| f(&items[i]))?;
                let mut results = Vec::with_capacity(done.len());
                for (i, t) in mine.iter().zip(done) {
                    results.push((*i as u64, encode(label, *i, &t)?));
                }
                let mut s = state.lock().map_err(|_| poisoned())?;
                if s.1.contains_key(label) {
                    return Err(Error::BadOption(format!(
                        "internal: spread `{label}` twice in one command"
                    )));
                }
                s.1.insert(
                    label.to_string(),
                    Spread {
                        items: items.len() as u64,
                        results,
                    },
                );
                Ok(None)
            }
            Share::Merged { given, computed } => match given.get(label) {
                None => {
                    computed.fetch_add(items.len() as u64, Ordering::Relaxed);
                    each(items, f).map(Some)
                }
                Some(s) if s.items != items.len() as u64 => Err(Error::BadOption(format!(
                    "the parts' spread `{label}` has {} items, this command {}: the parts come from another command",
                    s.items,
                    items.len()
                ))),
                Some(s) => s
                    .results
                    .iter()
                    .map(|(i, v)| {
                        T::deserialize(v).map_err(|e| {
                            Error::BadOption(format!(
                                "the parts' spread `{label}`, item {i}: not what this command computes ({e})"
                            ))
                        })
                    })
                    .collect::<Result<Vec<T>, Error>>()
                    .map(Some),
            },
        }
    }
}

/// A result as JSON, refused if it would not read back as itself (a number JSON cannot
/// carry, such as NaN or an infinity, would come back as something else, `null` or
/// `None`, and change the merged output).
fn encode<T: Serialize + DeserializeOwned + PartialEq>(
    label: &str,
    i: usize,
    t: &T,
) -> Result<serde_json::Value, Error> {
    let v = serde_json::to_value(t).map_err(|e| {
        Error::BadOption(format!(
            "spread `{label}`, item {i}: cannot record the result ({e})"
        ))
    })?;
    let back: T = T::deserialize(&v).map_err(|e| {
        Error::BadOption(format!(
            "spread `{label}`, item {i}: the result does not read back ({e})"
        ))
    })?;
    if back != *t {
        return Err(Error::BadOption(format!(
            "spread `{label}`, item {i}: the result does not read back as itself"
        )));
    }
    Ok(v)
}

fn poisoned() -> Error {
    Error::BadOption("internal: a shard's record was poisoned by a panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(share: &Share, label: &str, n: u64) -> Option<Vec<u64>> {
        let items: Vec<u64> = (0..n).collect();
        share.spread(label, &items, |&x| Ok(x * x)).unwrap()
    }

    #[test]
    fn shards_cover_every_item_once_and_merge_to_the_whole() {
        let parts: Vec<Recorded> = (1..=3)
            .map(|k| {
                let s = Share::part(k, 3);
                assert_eq!(squares(&s, "a", 5), None);
                assert_eq!(squares(&s, "b", 2), None);
                s.recorded()
            })
            .collect();
        // Counted across spreads: shard 1 has a0 a3 b1, shard 2 a1 a4, shard 3 a2 b0.
        let own = |p: &Recorded, l: &str| p[l].results.iter().map(|r| r.0).collect::<Vec<_>>();
        assert_eq!(
            (own(&parts[0], "a"), own(&parts[0], "b")),
            (vec![0, 3], vec![1])
        );
        assert_eq!(
            (own(&parts[1], "a"), own(&parts[1], "b")),
            (vec![1, 4], vec![])
        );
        assert_eq!(
            (own(&parts[2], "a"), own(&parts[2], "b")),
            (vec![2], vec![0])
        );
        let m = Share::merged(parts.clone()).unwrap();
        assert_eq!(squares(&m, "a", 5), Some(vec![0, 1, 4, 9, 16]));
        assert_eq!(squares(&m, "b", 2), Some(vec![0, 1]));
        assert_eq!(m.computed(), 0);
        // A spread no part reached is computed by the merge, and counted.
        assert_eq!(squares(&m, "c", 3), Some(vec![0, 1, 4]));
        assert_eq!(m.computed(), 3);
        // A missing or doubled part is refused, naming the item.
        assert_eq!(
            Share::merged(parts[..2].to_vec()).unwrap_err(),
            ShareError::Missing {
                label: "a".into(),
                index: 2
            }
        );
        let mut twice = parts.clone();
        twice.push(parts[1].clone());
        assert!(matches!(
            Share::merged(twice).unwrap_err(),
            ShareError::Twice { .. }
        ));
    }

    #[test]
    fn a_number_json_cannot_carry_is_refused_not_changed() {
        let s = Share::part(1, 1);
        let err = s.spread("x", &[0], |_| Ok(f64::NAN)).unwrap_err();
        assert!(err.to_string().contains("does not read back"), "{err}");
        // An infinity inside an Option would come back as None: refused too.
        let s = Share::part(1, 1);
        let err = s
            .spread("z", &[0], |_| Ok(Some(f64::INFINITY)))
            .unwrap_err();
        assert!(err.to_string().contains("does not read back"), "{err}");
        // Finite floats come back bit for bit (serde_json's float_roundtrip).
        let s = Share::part(1, 1);
        let xs: [f64; 4] = [0.1 + 0.2, 1.0 / 3.0, 5e-324, 1.7976931348623157e308];
        s.spread("y", &xs, |&x| Ok(x)).unwrap();
        let m = Share::merged(vec![s.recorded()]).unwrap();
        let back: Vec<f64> = m.spread("y", &xs, |_| Ok(0.0)).unwrap().unwrap();
        for (a, b) in xs.iter().zip(&back) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }
}
