//! A pool read only by sums, counts and tallies of all its dice, its reads' joint law
//! built kind by kind of face (or die by die, where that meets fewer states).

use super::*;

/// A pool variable read only by sums, counts and tallies of all its dice (`let p =
/// 200d20 in p count >= 11 + p count 20`): each die adds to every read on its own, so
/// the dice that add alike are one kind, and the reads' joint law is built kind by kind,
/// as icepool's evaluator goes face by face: at each kind, how many of a group's dice
/// left fall in it, `C(r, c) · w^c` ways, the last kind taking every die left. For
/// 200d20 read by two counts that is about 20,000 states met once, where a pass die by
/// die met each of the 200 dice (four million steps, past the budget: no fraction).
/// The body reads the values (the pool is held as [`Held::Reads`]), no dice. None
/// where some read is not such a one.
pub(super) fn tallied<'a, W: Weight>(
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
) -> Result<Option<Outcomes<W>>, NoLaw> {
    if spec.deck().is_some()
        || spec.keep.is_some()
        || spec.ways.is_empty()
        || !spec.ways.iter().all(adds_up)
    {
        return Ok(None);
    }
    let (lo, hi) = face_span(spec);
    // Each group's dice by what one die (with the dice `again` adds for it) adds to the
    // reads, and the ways of its one die.
    let mut groups = Vec::with_capacity(spec.groups.len());
    for (n, d) in &spec.groups {
        let (kinds, one) = match spec.again {
            None => {
                let law = die(d, b)?;
                (kinds_of(&law, spec, lo, hi)?, law.den.clone())
            }
            Some(c) => {
                let zero = vec![0; spec.ways.len()];
                let read = |acc: &Vec<i64>, v: i64| -> Vec<i64> {
                    acc.iter()
                        .zip(&spec.ways)
                        .map(|(a, (keep, agg))| a + read_sorted(&[v], *keep, *agg, lo, hi))
                        .collect()
                };
                let (chain, den) = again_chain(d, c, zero, read, b)?;
                let mut kinds: Vec<(Vec<i64>, W)> = chain.into_iter().collect();
                kinds.sort_by(|x, y| x.0.cmp(&y.0));
                (kinds, den)
            }
        };
        groups.push((*n, kinds, one));
    }
    let mut den = W::one();
    for (n, _, one) in &groups {
        den = den.mul(&one.pow(*n)?)?;
    }
    let Some(packing) = Packing::of(&groups, spec.ways.len()) else {
        return Ok(None);
    };
    // A split is a multiply-add of counts at most the denominator, a word-operation a
    // word, and a state looked up by its key.
    let words = den.words();
    let mut states: States<W> = Map::default();
    states.insert((packing.pack(&vec![0; spec.ways.len()]), 0), W::one());
    for (n, mut kinds, _) in groups {
        if die_by_die_cheaper(states.len(), n, &kinds) {
            states = die_by_die(states, n, &kinds, &packing, words, b)?;
            continue;
        }
        // Dice that add nothing split the dice left first (a state for each count), so
        // that the reads grow over fewer dice.
        kinds.sort_by_key(|(adds, _)| adds.iter().any(|a| *a != 0));
        let mut now: States<W> = Map::default();
        for ((reads, _), v) in states {
            now.insert((reads, n), v);
        }
        states = now;
        for (i, (adds, x)) in kinds.iter().enumerate() {
            let last = i + 1 == kinds.len();
            let step = packing.step(adds);
            let mut rows = Splits::new(x, n, b, words)?;
            // Room for every split at once (a map grown split by split rehashed its
            // states again and again).
            let splits: usize = match last {
                true => states.len(),
                false => states.keys().map(|(_, r)| *r as usize + 1).sum(),
            };
            let mut next: States<W> = Map::default();
            next.reserve(splits);
            for ((reads, r), w) in states {
                let first = if last { r } else { 0 };
                b.spend(u64::from(r - first + 1).saturating_mul(words + 1))?;
                let row = rows.row(r, b)?;
                for c in first..=r {
                    let after = reads.wrapping_add(step.wrapping_mul(u128::from(c)));
                    next.entry((after, r - c))
                        .or_default()
                        .add_product(&w, &row[c as usize])?;
                }
            }
            states = next;
        }
    }
    let each = states
        .into_iter()
        .map(|((reads, _), w)| (packing.unpack(reads), w))
        .collect();
    Ok(Some((each, den)))
}

/// A group of dice: how many, each kind of face by what it adds to the reads with its
/// ways, and one die's ways.
type Group<W> = (u32, Vec<(Vec<i64>, W)>, W);

/// (the reads' values packed by [`Packing`], dice of the group left) -> ways.
type States<W> = Map<(u128, u32), W>;

/// The reads' values of a state as one number: each read from the least it can take,
/// in strides, so that a kind's dice move a state by one add (its step times the dice),
/// and a state's key is no list made and hashed per split (that was four fifths of the
/// time of a pool of 80d6 read four ways).
struct Packing {
    lo: Vec<i64>,
    strides: Vec<u128>,
}

impl Packing {
    /// Bounds that hold every state on the way: whatever dice have fallen so far, each
    /// read lies between all its dice adding their least (or nothing) and all their
    /// most. None where the reads' values together pass 128 bits.
    fn of<W>(groups: &[Group<W>], reads: usize) -> Option<Packing> {
        let mut lo = vec![0i64; reads];
        let mut hi = vec![0i64; reads];
        for (n, kinds, _) in groups {
            for i in 0..reads {
                let least = kinds.iter().map(|(a, _)| a[i]).min()?.min(0);
                let most = kinds.iter().map(|(a, _)| a[i]).max()?.max(0);
                lo[i] = lo[i].checked_add(least.checked_mul(i64::from(*n))?)?;
                hi[i] = hi[i].checked_add(most.checked_mul(i64::from(*n))?)?;
            }
        }
        let mut strides = vec![0u128; reads];
        let mut stride = 1u128;
        for i in (0..reads).rev() {
            strides[i] = stride;
            let size = u128::try_from(i128::from(hi[i]) - i128::from(lo[i]) + 1).ok()?;
            stride = stride.checked_mul(size)?;
        }
        Some(Packing { lo, strides })
    }

    fn pack(&self, reads: &[i64]) -> u128 {
        reads
            .iter()
            .zip(&self.lo)
            .zip(&self.strides)
            .map(|((v, lo), s)| (v - lo) as u128 * s)
            .sum()
    }

    /// What adding `adds` does to a packed key, as a number to add modulo 2^128 (a read
    /// that falls adds the stride's complement).
    fn step(&self, adds: &[i64]) -> u128 {
        adds.iter().zip(&self.strides).fold(0u128, |k, (a, s)| {
            k.wrapping_add((*a as i128 as u128).wrapping_mul(*s))
        })
    }

    /// The reads of a key, as an outcome holds them (made at their length at once).
    fn unpack(&self, mut key: u128) -> std::rc::Rc<[i64]> {
        self.strides
            .iter()
            .zip(&self.lo)
            .map(|(s, lo)| {
                let d = key / s;
                key %= s;
                lo + d as i64
            })
            .collect()
    }
}

/// Whether adding `n` dice of these `kinds` one at a time to `states` meets fewer
/// states than splitting them kind by kind: a few dice of many kinds (three exploding
/// d6, a hundred totals each, read by a count and a sum: the reads after one die, then
/// two), where kind by kind carries every count of dice left beside the reads through
/// a hundred kinds. Many dice of few kinds (200d20 read by two counts) go kind by kind.
/// Each way's states are bounded by the combinations it can make and by the reads'
/// values.
fn die_by_die_cheaper<W>(states: usize, n: u32, kinds: &[(Vec<i64>, W)]) -> bool {
    let k = kinds.len() as f64;
    let reads = kinds.first().map_or(0, |(adds, _)| adds.len());
    // How far each read can move with one die.
    let spans: Vec<f64> = (0..reads)
        .map(|i| {
            let (lo, hi) = kinds.iter().fold((i64::MAX, i64::MIN), |(lo, hi), (a, _)| {
                (lo.min(a[i]), hi.max(a[i]))
            });
            (hi as f64 - lo as f64).max(0.0)
        })
        .collect();
    let values = |dice: f64| -> f64 { spans.iter().map(|s| s * dice + 1.0).product() };
    let s = states as f64;
    let n = f64::from(n);
    // Die by die: the states after i dice, each met by every kind.
    let mut by_die = 0.0;
    let mut reach: f64 = 1.0;
    for i in 0..n as u64 {
        by_die += s * reach.min(values(i as f64)) * k;
        reach *= k;
    }
    // Kind by kind: after j kinds, the ways j kinds hold at most n dice (C(n + j, j)),
    // each with the dice left, split c = 0..=r ways (about n / 2); the last kind takes
    // every die left.
    let mut by_kind = 0.0;
    let mut ways: f64 = 1.0;
    for j in 0..(k as u64).saturating_sub(1) {
        by_kind += s * ways.min(values(n) * (n + 1.0)) * (n / 2.0 + 1.0);
        ways *= (n + j as f64 + 1.0) / (j as f64 + 1.0);
        if by_kind > by_die {
            return true;
        }
    }
    by_kind > by_die
}

/// `n` dice of these `kinds` added to the reads of `states` one die at a time, over a
/// dense grid of the reads' values where it is small (a die's step is then one offset),
/// else by map.
fn die_by_die<W: Weight>(
    mut states: States<W>,
    n: u32,
    kinds: &[(Vec<i64>, W)],
    packing: &Packing,
    words: u64,
    b: &mut Budget<W>,
) -> Result<States<W>, NoLaw> {
    let each = words + 1;
    let unpacked: Vec<std::rc::Rc<[i64]>> =
        states.keys().map(|(k, _)| packing.unpack(*k)).collect();
    if let Some(grid) = Grid::of(&unpacked, n, kinds) {
        let mut cells = vec![W::default(); grid.cells];
        for (r, (_, w)) in unpacked.iter().zip(states) {
            cells[grid.index(r)] = w;
        }
        let steps: Vec<isize> = kinds.iter().map(|(a, _)| grid.offset(a)).collect();
        for _ in 0..n {
            // Every cell is made and looked at, those held met by every kind.
            let held = cells.iter().filter(|w| !w.is_zero()).count() as u64;
            b.spend(
                held.saturating_mul(kinds.len() as u64).saturating_mul(each) + grid.cells as u64,
            )?;
            let mut next = vec![W::default(); grid.cells];
            for (i, w) in cells.iter().enumerate().filter(|(_, w)| !w.is_zero()) {
                for (step, (_, x)) in steps.iter().zip(kinds) {
                    next[i.wrapping_add_signed(*step)].add_product(w, x)?;
                }
            }
            cells = next;
        }
        return Ok(cells
            .into_iter()
            .enumerate()
            .filter(|(_, w)| !w.is_zero())
            .map(|(i, w)| ((packing.pack(&grid.reads(i)), 0), w))
            .collect());
    }
    let steps: Vec<u128> = kinds.iter().map(|(a, _)| packing.step(a)).collect();
    for _ in 0..n {
        b.spend(
            (states.len() as u64)
                .saturating_mul(kinds.len() as u64)
                .saturating_mul(each),
        )?;
        let mut next: States<W> = Map::default();
        for ((reads, _), w) in states {
            for (step, (_, x)) in steps.iter().zip(kinds) {
                next.entry((reads.wrapping_add(*step), 0))
                    .or_default()
                    .add_product(&w, x)?;
            }
        }
        states = next;
    }
    Ok(states)
}

/// Every list of reads' values the states and dice of [`die_by_die`] can reach, as one
/// index: each read from its lowest, in strides.
struct Grid {
    lo: Vec<i64>,
    strides: Vec<i64>,
    cells: usize,
}

impl Grid {
    /// Cells past which a map's states are fewer than a grid's to walk.
    const MOST: f64 = (1 << 20) as f64;

    fn of<W>(states: &[std::rc::Rc<[i64]>], n: u32, kinds: &[(Vec<i64>, W)]) -> Option<Grid> {
        let reads = kinds.first()?.0.len();
        let mut lo = Vec::with_capacity(reads);
        let mut strides = vec![0; reads];
        let mut sizes = Vec::with_capacity(reads);
        for i in 0..reads {
            let (slo, shi) = states
                .iter()
                .fold((i64::MAX, i64::MIN), |(l, h), r| (l.min(r[i]), h.max(r[i])));
            let (klo, khi) = kinds.iter().fold((i64::MAX, i64::MIN), |(l, h), (a, _)| {
                (l.min(a[i]), h.max(a[i]))
            });
            // Every state on the way, whether a read rises or falls.
            let n = i64::from(n);
            let low = slo.checked_add(klo.min(0).checked_mul(n)?)?;
            let high = shi.checked_add(khi.max(0).checked_mul(n)?)?;
            lo.push(low);
            sizes.push((high as f64 - low as f64 + 1.0).max(1.0));
        }
        if sizes.iter().product::<f64>() > Self::MOST {
            return None;
        }
        let mut stride = 1i64;
        for i in (0..reads).rev() {
            strides[i] = stride;
            stride *= sizes[i] as i64;
        }
        Some(Grid {
            lo,
            strides,
            cells: stride as usize,
        })
    }

    fn index(&self, reads: &[i64]) -> usize {
        self.offset_from(reads, &self.lo) as usize
    }

    fn offset(&self, adds: &[i64]) -> isize {
        self.offset_from(adds, &vec![0; adds.len()]) as isize
    }

    fn offset_from(&self, v: &[i64], from: &[i64]) -> i64 {
        v.iter()
            .zip(from)
            .zip(&self.strides)
            .map(|((x, f), s)| (x - f) * s)
            .sum()
    }

    fn reads(&self, mut i: usize) -> Vec<i64> {
        self.strides
            .iter()
            .zip(&self.lo)
            .map(|(s, lo)| {
                let d = i / *s as usize;
                i %= *s as usize;
                lo + d as i64
            })
            .collect()
    }
}

/// A die's faces by what they add to the reads: (what it adds, the kind's ways).
fn kinds_of<W: Weight>(
    law: &Law<W>,
    spec: &PoolSpec,
    lo: i64,
    hi: i64,
) -> Result<Vec<(Vec<i64>, W)>, NoLaw> {
    let mut kinds: Vec<(Vec<i64>, W)> = Vec::new();
    for (v, w) in law.iter() {
        let adds: Vec<i64> = spec
            .ways
            .iter()
            .map(|(keep, agg)| read_sorted(&[v], *keep, *agg, lo, hi))
            .collect();
        match kinds.iter_mut().find(|(a, _)| *a == adds) {
            Some((_, x)) => x.add_to(w)?,
            None => kinds.push((adds, w.clone())),
        }
    }
    Ok(kinds)
}

/// One kind's ways for `c` of `r` dice left to fall in it, `C(r, c) · w^c`, a row for
/// each `r` made when a state first needs it and paid for then.
struct Splits<W> {
    pow: Vec<W>,
    rows: Vec<Option<Vec<W>>>,
    words: u64,
}

impl<W: Weight> Splits<W> {
    fn new(w: &W, n: u32, b: &mut Budget<W>, words: u64) -> Result<Self, NoLaw> {
        b.spend(u64::from(n + 1).saturating_mul(words))?;
        let mut pow = vec![W::one()];
        for c in 1..=n as usize {
            let next = pow[c - 1].mul(w)?;
            pow.push(next);
        }
        Ok(Splits {
            pow,
            rows: vec![None; n as usize + 1],
            words,
        })
    }

    fn row(&mut self, r: u32, b: &mut Budget<W>) -> Result<&[W], NoLaw> {
        let r = r as usize;
        if self.rows[r].is_none() {
            b.spend((r as u64 + 1).saturating_mul(3 * self.words))?;
            let mut row = Vec::with_capacity(r + 1);
            let mut binomial = W::one();
            for c in 0..=r {
                row.push(binomial.mul(&self.pow[c])?);
                // C(r, c + 1) = C(r, c) · (r - c) / (c + 1), exactly.
                binomial = binomial.mul_small((r - c) as u64)?.div_small(c as u64 + 1);
            }
            self.rows[r] = Some(row);
        }
        Ok(self.rows[r].as_deref().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three reads, one of them falling (a Fudge die's sum beside two counts): every
    /// state a pool of 3 and 2 dice can reach is packed apart from the others, and a
    /// kind's step taken `c` times lands on the key of the reads it adds up to.
    #[test]
    fn a_packed_state_moves_by_its_steps_and_unpacks_to_its_reads() {
        let fudge: Vec<(Vec<i64>, u128)> =
            vec![(vec![-1, 0, 0], 1), (vec![0, 1, 0], 1), (vec![1, 0, 1], 1)];
        let d6: Vec<(Vec<i64>, u128)> = vec![(vec![2, 0, 0], 5), (vec![-3, 1, 1], 1)];
        let groups = vec![(3, fudge.clone(), 3u128), (2, d6.clone(), 6)];
        let p = Packing::of(&groups, 3).expect("fits");
        assert_eq!(p.lo, vec![-9, 0, 0]);
        let mut seen = std::collections::HashSet::new();
        for a in -9..=7 {
            for b in 0..=5 {
                for c in 0..=5 {
                    let key = p.pack(&[a, b, c]);
                    assert!(seen.insert(key), "{a} {b} {c} packed apart");
                    assert_eq!(p.unpack(key)[..], [a, b, c]);
                }
            }
        }
        let start = p.pack(&[0, 0, 0]);
        for (adds, _) in fudge.iter().chain(&d6) {
            for c in 0..=3u128 {
                let want: Vec<i64> = adds.iter().map(|x| x * c as i64).collect();
                let moved = start.wrapping_add(p.step(adds).wrapping_mul(c));
                assert_eq!(p.unpack(moved)[..], want[..], "{adds:?} taken {c} times");
            }
        }
        // Reads whose values together pass 128 bits are not packed.
        let wide: Vec<(Vec<i64>, u128)> = vec![(vec![1_000_000; 8], 1)];
        assert!(Packing::of(&[(1_000_000, wide, 1u128)], 8).is_none());
    }
}
