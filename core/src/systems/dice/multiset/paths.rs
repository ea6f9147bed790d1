//! A pass whose groups show few multisets, walked one multiset at a time: the same
//! outcomes highest first, the same binomials and the same steps of the reads as the
//! merging pass, without a state hashed at every step. Where nearly every multiset
//! leaves the reads in a state of their own (a throw scored by its faces, read ten
//! ways), merging finds nothing to merge and the hashing was most of the work.

use super::{shows_next, step, Key, Map, Num, Pass, Plan, Read, KEY};
use crate::systems::dice::dist::{binomial, Ledger, TooBig};
use crate::systems::dice::lang::{tally, Agg};

/// The joint distribution of the pass's reads, as [`Pass::run`] gives it: each distinct
/// list of values with its probability, in the order first reached.
pub(super) fn run(
    pass: &Pass,
    plan: &Plan<'_>,
    ledger: &mut Ledger,
) -> Result<Vec<(Vec<i64>, f64)>, TooBig> {
    ledger.spend(
        plan.paths
            .saturating_mul(plan.values.len() as u64 + pass.reads.len() as u64)
            / 4
            + 1,
        "a read of pools with too many multisets",
    )?;
    // Each group's binomials at each outcome, by the dice it has left: P(c of them show
    // the outcome | none shows anything higher).
    let mut binoms: Vec<Vec<Vec<f64>>> = Vec::with_capacity(plan.values.len());
    for &o in &plan.values {
        let q = shows_next(&plan.groups, &plan.cdfs, o);
        let mut at = Vec::with_capacity(plan.groups.len());
        for (g, &(_, n, _)) in plan.groups.iter().enumerate() {
            for left in 0..=n {
                at.push(binomial(left, q[g], ledger)?);
            }
        }
        binoms.push(at);
    }
    // The reads each outcome can move: a count of faces that `o` is not (Farkle's
    // `p count 5` at every face but 5) stays where it is, and is not stepped.
    let moving: Vec<Vec<usize>> = plan
        .values
        .iter()
        .map(|&o| {
            (0..pass.reads.len())
                .filter(|&ri| moves(&pass.reads[ri], o))
                .collect()
        })
        .collect();
    // Where each group's binomials start in an outcome's list.
    let mut first = Vec::with_capacity(plan.groups.len());
    let mut at = 0;
    for &(_, n, _) in &plan.groups {
        first.push(at);
        at += n as usize + 1;
    }
    let mut walk = Walk {
        pass,
        plan,
        binoms: &binoms,
        first: &first,
        moving: &moving,
        index: Map::default(),
        out: Vec::new(),
        vals: Vec::with_capacity(pass.reads.len()),
    };
    walk.outcome(0, &plan.start, 1.0);
    Ok(walk.out)
}

/// Whether a read's state can change at outcome `o`: every read but a count (or tally)
/// of faces that `o` is not, whose step adds nothing there.
fn moves(r: &Read, o: i64) -> bool {
    match r {
        Read::Of(_, reading) => match reading.agg {
            Agg::Count(c) => c.holds(o, reading.lo, reading.hi),
            Agg::Tally(t) => tally(o, t) != 0,
            _ => true,
        },
        Read::Meet { .. } => true,
    }
}

struct Walk<'a, 'p> {
    pass: &'a Pass,
    plan: &'a Plan<'p>,
    binoms: &'a [Vec<Vec<f64>>],
    first: &'a [usize],
    moving: &'a [Vec<usize>],
    index: Map<Vec<i64>, usize>,
    out: Vec<(Vec<i64>, f64)>,
    /// The values of the multiset at hand.
    vals: Vec<i64>,
}

impl Walk<'_, '_> {
    /// Every way on from `key` at the `oi`th outcome, reached with probability `p`.
    fn outcome(&mut self, oi: usize, key: &Key, p: f64) {
        if oi == self.plan.values.len() {
            // Into the scratch list: most multisets' values were met before.
            self.pass
                .values_into(&self.plan.offsets, key, &mut self.vals);
            match self.index.get(self.vals.as_slice()) {
                Some(&i) => self.out[i].1 += p,
                None => {
                    self.index.insert(self.vals.clone(), self.out.len());
                    self.out.push((self.vals.clone(), p));
                }
            }
            return;
        }
        self.group(oi, 0, [0; KEY], key, p);
    }

    /// Every count the `g`th group can place at the `oi`th outcome, the groups before
    /// it placing `counts` (each outcome's own: the outcomes after this one place theirs
    /// while these are still being gone through).
    fn group(&mut self, oi: usize, g: usize, mut counts: [u32; KEY], key: &Key, p: f64) {
        let plan = self.plan;
        if g == plan.groups.len() {
            let o = plan.values[oi];
            let prev = oi.checked_sub(1).map(|i| plan.values[i]);
            let mut seen = [0u32; KEY];
            let mut placed = [0u32; KEY];
            let mut k = *key;
            for (g, &(pool, _, _)) in plan.groups.iter().enumerate() {
                seen[pool] += key[g] as u32;
                placed[pool] += counts[g];
                k[g] += counts[g] as Num;
            }
            for &ri in &self.moving[oi] {
                let st = &mut k[plan.offsets[ri]..plan.offsets[ri + 1]];
                step(
                    &self.pass.reads[ri],
                    plan.fixed[ri],
                    st,
                    o,
                    prev,
                    &seen,
                    &placed,
                );
            }
            self.outcome(oi + 1, &k, p);
            return;
        }
        let left = plan.groups[g].1 - key[g] as u32;
        let b = &self.binoms[oi][self.first[g] + left as usize];
        for (c, &q) in b.iter().enumerate() {
            if q > 0.0 {
                counts[g] = c as u32;
                self.group(oi, g + 1, counts, key, p * q);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::systems::dice::dist::Ledger;
    use crate::systems::dice::lower::chain;
    use crate::systems::dice::program::parse_result;

    /// The walk against the merging pass on the same reads, value list by value list:
    /// one pool read many ways, several kinds of dice in one pool, keeps, `only`, and
    /// two pools set against each other.
    #[test]
    fn walking_every_multiset_gives_what_merging_gives() {
        let cases = [
            "let p = 6d6 in let m = p maxset in 1000 * (p straight == 6) + 100 * m + 10 * p sets 2 + p count 1",
            "let p = 5d6 in max(p sum, 25 * (p sets 3 == 1 and p sets 2 == 2), 40 * (p straight == 5))",
            "let p = 4d6 in p runs * 100 + p mode + 10 * p highest + 1000 * p lowest",
            "let p = [2d6, 2d8] in p keep highest 2 sum * 10 + p count >= 5",
            "let a = 3d6 in let b = 2d6 in { w = pairs(a, b), l = a keep lowest 2 sum, c = cancel(a, b) }",
            "let a = 3d6 in let b = 2d6 in beats(a only <= 5, b only <= 4) + 10 * cancel(a, b, <=)",
            "let p = 2d10 explode depth 2 in p highest + p count 10",
        ];
        for text in cases {
            let (n, _) = parse_result(text, &[]).expect(text);
            let mut ledger = Ledger::default();
            let c = chain(&n, 0, &mut ledger).expect(text).expect(text);
            let plan = c.pass.plan();
            assert!(
                plan.paths <= super::super::MAX_PATHS,
                "{text}: {} paths",
                plan.paths
            );
            let walked = super::run(&c.pass, &plan, &mut ledger).expect(text);
            let mut merged = c.pass.merged(c.pass.plan(), &mut ledger).expect(text);
            assert_eq!(walked.len(), merged.len(), "{text}");
            let total: f64 = walked.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-12, "{text}: {total}");
            for (vals, p) in &walked {
                let i = merged.iter().position(|(v, _)| v == vals).expect(text);
                let (_, q) = merged.swap_remove(i);
                assert!((p - q).abs() < 1e-14, "{text}: {vals:?}: {p} against {q}");
            }
        }
    }
}
