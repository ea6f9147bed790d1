//! An `again` pool variable read several ways (`let p = 5d10 again 10 in p count >= 7 -
//! p count 1`): the joint distribution of its tallies, one per way the body reads it,
//! each a sum over every die rolled, the dice `again` adds included. Every die of the
//! pool starts a chain of its own, so the pool's tallies are the sum of independent
//! chains' tallies: one chain worked out to its depth, then added to itself by
//! repeated squaring, as a single read of an `again` pool is.

use super::super::dist::{die_dist, Ledger, TooBig, NODE_COST};
use super::super::lang::Cond;
use super::super::program::{tally_step, DieSpec, PoolSpec};
use std::collections::BTreeMap;

/// Tallies (in the order of the pool's `ways`) with their probability.
type Joint = BTreeMap<Vec<i64>, f64>;

/// The joint distribution of the tallies of `spec` (its `ways`), whose dice add a die on
/// `again`; chains stopped at their depth are reported to the ledger.
pub(in super::super) fn tallies(
    spec: &PoolSpec,
    again: Cond,
    ledger: &mut Ledger,
) -> Result<Vec<(Vec<i64>, f64)>, TooBig> {
    let k = spec.ways.len();
    let mut out: Joint = BTreeMap::from([(vec![0; k], 1.0)]);
    for (n, d) in &spec.groups {
        let (base, _) = die_dist(
            &DieSpec {
                explode: None,
                ..d.clone()
            },
            ledger,
        )?;
        let (lo, hi) = (d.lo(), d.hi());
        let mut chain: Joint = BTreeMap::new();
        let mut carry: Joint = BTreeMap::from([(vec![0; k], 1.0)]);
        for depth in 0..=d.depth {
            ledger.spend(
                (carry.len() as u64)
                    .saturating_mul(base.p.len() as u64)
                    .saturating_mul(NODE_COST),
                "an `again` chain read several ways with too many values",
            )?;
            let mut next: Joint = BTreeMap::new();
            for (acc, &w) in &carry {
                for (v, q) in base.iter() {
                    let t: Vec<i64> = acc
                        .iter()
                        .zip(&spec.ways)
                        .map(|(a, (_, agg))| a + tally_step(*agg, v, lo, hi))
                        .collect();
                    let adds = again.holds(v, lo, hi);
                    if adds && depth < d.depth {
                        *next.entry(t).or_default() += w * q;
                    } else {
                        if adds {
                            ledger.cap(*n as f64 * w * q);
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
        out = add(&out, &power(&chain, *n, ledger)?, ledger)?;
    }
    Ok(out.into_iter().collect())
}

/// The tallies of two independent parts added.
fn add(a: &Joint, b: &Joint, ledger: &mut Ledger) -> Result<Joint, TooBig> {
    ledger.spend(
        (a.len() as u64)
            .saturating_mul(b.len() as u64)
            .saturating_mul(NODE_COST),
        "an `again` pool read several ways with too many values together",
    )?;
    let mut out: Joint = BTreeMap::new();
    for (x, p) in a {
        for (y, q) in b {
            let t = x.iter().zip(y).map(|(x, y)| x + y).collect();
            *out.entry(t).or_default() += p * q;
        }
    }
    Ok(out)
}

/// `n` independent copies of `one` added, by repeated squaring.
fn power(one: &Joint, n: u32, ledger: &mut Ledger) -> Result<Joint, TooBig> {
    let k = one.keys().next().map_or(0, Vec::len);
    let mut out: Joint = BTreeMap::from([(vec![0; k], 1.0)]);
    let mut base = one.clone();
    let mut m = n;
    while m > 0 {
        if m & 1 == 1 {
            out = add(&out, &base, ledger)?;
        }
        m >>= 1;
        if m > 0 {
            base = add(&base, &base, ledger)?;
        }
    }
    Ok(out)
}
