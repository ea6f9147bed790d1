//! `again`: a die showing the condition adds a die to the pool. Each die starts a chain
//! of its own, walked once here, whether the pool is read once ([`again`]) or several
//! ways at once (`tallies`).

use super::super::dist::{die_dist, Dist, Ledger, Map, TooBig, NODE_COST};
use super::super::lang::{Agg, Cond};
use super::super::program::{DieSpec, PoolSpec};
use super::power_sum;
use std::collections::BTreeMap;

/// One die's chain under `again` (a die showing the condition adds a die), walked to
/// its depth: the distribution of what `read` folds over the chain's rolls from
/// `start`. The chains of the pool's `n` such dice stopped at their depth are reported
/// to the ledger. Without `again` the chain is the die's one roll.
pub(super) fn again_chain<K: Ord + Clone>(
    d: &DieSpec,
    n: u32,
    again: Option<Cond>,
    start: K,
    read: impl Fn(&K, i64) -> K,
    why: &'static str,
    ledger: &mut Ledger,
) -> Result<BTreeMap<K, f64>, TooBig> {
    let (base, _) = die_dist(
        &DieSpec {
            explode: None,
            ..d.clone()
        },
        ledger,
    )?;
    let (lo, hi) = (d.lo(), d.hi());
    let mut chain: BTreeMap<K, f64> = BTreeMap::new();
    let mut carry: BTreeMap<K, f64> = BTreeMap::from([(start, 1.0)]);
    for depth in 0..=d.depth {
        ledger.spend(
            (carry.len() as u64)
                .saturating_mul(base.p.len() as u64)
                .saturating_mul(NODE_COST),
            why,
        )?;
        let mut next: BTreeMap<K, f64> = BTreeMap::new();
        for (acc, &w) in &carry {
            for (v, q) in base.iter() {
                let t = read(acc, v);
                let adds = again.is_some_and(|c| c.holds(v, lo, hi));
                if adds && depth < d.depth {
                    *next.entry(t).or_default() += w * q;
                } else {
                    if adds {
                        ledger.cap(n as f64 * w * q);
                    }
                    *chain.entry(t).or_default() += w * q;
                }
            }
        }
        carry = next;
        if carry.is_empty() {
            break;
        }
    }
    Ok(chain)
}

/// `again`: a die showing the condition adds a die to the pool; read by `sum` or
/// `count`. Each die of the pool starts a chain of its own, so the pool's value is the
/// sum of independent chains.
pub(super) fn again(p: &PoolSpec, c: Cond, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let mut out = Dist::point(0);
    for (n, spec) in &p.groups {
        let (lo, hi) = (spec.lo(), spec.hi());
        // One chain's value read, summed over its rolls up to the depth limit.
        let read = |acc: &i64, v: i64| -> i64 {
            acc + match p.agg {
                Agg::Count(cc) => cc.holds(v, lo, hi) as i64,
                _ => v,
            }
        };
        let chain: Map<i64, f64> = again_chain(
            spec,
            *n,
            Some(c),
            0,
            read,
            "an `again` chain with too many values",
            ledger,
        )?
        .into_iter()
        .collect();
        let sum = power_sum(&Dist::from_map(&chain), *n, ledger)?;
        ledger.pairs(&out, &sum)?;
        out = out.add(&sum)?;
    }
    Ok(out)
}
