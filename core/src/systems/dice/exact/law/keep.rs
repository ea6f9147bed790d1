//! A keep read with integer weights: `k` dice kept from one end of a pool of one or
//! several kinds of dice, read by sum, count, tally or extreme. Faces are passed from
//! that end; at each, how many of each group's dice left show it, `C(r, c) · w^c` ways.
//! A state that has kept `k` is final: its dice left take any face not yet passed.

use super::*;

/// (dice left per group, kept so far, accumulator). The dice left are one number, each
/// group a digit of base its dice + 1: no list made per state.
type State = (u64, u32, i64);

/// One state's dice left after a split, the dice that showed the face, and its ways.
type Split<W> = (u64, u32, W);

/// Keep `k` dice from the `end` of the pool and read them by `agg`.
pub(super) fn pass<W: Weight>(
    dies: &[(u32, Law<W>)],
    specs: &[(u32, DieSpec)],
    end: End,
    k: u32,
    agg: Agg,
    b: &mut Budget<W>,
) -> Result<Law<W>, NoLaw> {
    let mut values: Vec<i64> = dies
        .iter()
        .flat_map(|(_, d)| d.iter().map(|(v, _)| v))
        .collect();
    values.sort_unstable();
    values.dedup();
    if end == End::Highest {
        values.reverse();
    }
    let keep = Keep::new(dies, specs, end, k, agg, b)?;
    if let [(n, _)] = dies {
        if agg == Agg::Sum && *n > BY_THRESHOLD && (1..=*n).contains(&k) {
            return keep.by_threshold(&values, b);
        }
    }
    if dense(dies, &values, k, agg) {
        return keep.one_kind_pass(&values, b);
    }
    let mut left: Vec<W> = dies.iter().map(|(_, d)| d.den.clone()).collect();
    let mut cur: Map<State, W> = Map::default();
    let mut done: Map<i64, W> = Map::default();
    if k == 0 {
        done.insert(0, keep.den.clone());
    } else {
        cur.insert((keep.start(), 0, 0), W::one());
    }
    // The maps and the splits of one state kept from face to face: made once, cleared.
    let mut next: Map<State, W> = Map::default();
    let mut scratch = (Vec::new(), Vec::new());
    for &v in &values {
        if cur.is_empty() {
            break;
        }
        let face = keep.face(v, &mut left)?;
        next.clear();
        next.reserve(cur.len());
        for (state, ways) in cur.drain() {
            match &face.tails {
                Some(tails) => keep.one_kind(&face, tails, state, ways, &mut next, &mut done, b)?,
                None => keep.kinds(&face, state, ways, &mut scratch, &mut next, &mut done, b)?,
            }
        }
        std::mem::swap(&mut cur, &mut next);
    }
    // States that kept fewer than `k` read as they stand, once every die has landed.
    for ((rest, _, acc), ways) in cur {
        if rest == 0 {
            done.entry(acc).or_default().add_to(&ways)?;
        }
    }
    Ok(Law::from_map(done, keep.den)?.reduced())
}

/// Dice of one kind past which a kept sum is found by the face its last kept die
/// shows ([`Keep::by_threshold`]): its work grows as faces x kept x the sum's span, the
/// pass's as faces x dice x its states.
const BY_THRESHOLD: u32 = 64;

/// Most cells (dice left times the reads' span) the states of a pool of one kind are
/// kept in as dense rows.
const DENSE_CELLS: u64 = 1 << 22;

/// Whether the states of a pool of one kind fit dense rows: a read bounded by the faces
/// (a sum, a count, a set, an extreme), not a tally, within [`DENSE_CELLS`].
fn dense<W>(dies: &[(u32, Law<W>)], values: &[i64], k: u32, agg: Agg) -> bool {
    dense_span(dies, values, k, agg).is_some()
}

fn dense_span<W>(dies: &[(u32, Law<W>)], values: &[i64], k: u32, agg: Agg) -> Option<u64> {
    let [(n, _)] = dies else {
        return None;
    };
    let most = values.iter().map(|v| v.unsigned_abs()).max()?;
    let span = match agg {
        Agg::Sum => most.checked_mul(2 * u64::from(k))? + 1,
        Agg::Count(_) | Agg::MaxSet => u64::from(*n) + 1,
        Agg::Highest | Agg::Lowest => 2 * most + 1,
        Agg::Straight | Agg::Shape(_) => 1,
        Agg::Tally(_) => return None,
    };
    (span.checked_mul(u64::from(*n) + 1)? <= DENSE_CELLS).then_some(span)
}

/// The states of a pool of one kind, by its dice left (the dice kept are the rest, as
/// none is kept past `k`), each a row of accumulators from its lowest: a split adds to
/// a slot, not to a hashed map (160d20 keep 80 meets a quarter of a million states a
/// face).
struct Rows<W> {
    rows: Vec<(i64, Vec<W>)>,
}

impl<W: Weight> Rows<W> {
    fn new(n: u32) -> Self {
        Rows {
            rows: (0..=n).map(|_| (0, Vec::new())).collect(),
        }
    }

    /// `a · b` added to the state's slot.
    fn add(&mut self, rest: u64, acc: i64, a: &W, b: &W) -> Result<(), NoLaw> {
        let (lo, row) = &mut self.rows[rest as usize];
        if row.is_empty() {
            *lo = acc;
        }
        if acc < *lo {
            let shift = (*lo - acc) as usize;
            row.splice(0..0, std::iter::repeat_n(W::default(), shift));
            *lo = acc;
        }
        let i = (acc - *lo) as usize;
        if i >= row.len() {
            row.resize(i + 1, W::default());
        }
        row[i].add_product(a, b)
    }

    fn is_empty(&self) -> bool {
        self.rows.iter().all(|(_, r)| r.is_empty())
    }
}

/// What the pass reads by, made once.
struct Keep<'d, W> {
    dies: &'d [(u32, Law<W>)],
    end: End,
    k: u32,
    agg: Agg,
    lohi: (i64, i64),
    den: W,
    /// The place of each group's digit in a state's dice left.
    strides: Vec<u64>,
    /// What one split costs the budget, in eighths of an operation.
    eighths: u64,
    /// `C(r, c)` for every r up to a group's dice, made once: a state's split needs
    /// them all (20d20 keep 10 built each again per state, a third of the pass).
    binomials: Vec<Vec<W>>,
}

/// One face's ways, made once for every state that meets it.
struct Face<W> {
    v: i64,
    /// `C(r, c) · w^c` for every r and c of each group (empty where no die of the group
    /// shows the face).
    splits: Vec<Vec<Vec<W>>>,
    /// Each group's ways to land on the faces not yet passed, to the power 0..=n.
    left_pow: Vec<Vec<W>>,
    /// One group, the common pool: every split that keeps the `need` dice still wanted
    /// or more ends the same way (the same read, the rest on faces not yet passed), so
    /// their ways are summed once per face, `Σ_{c ≥ need} C(r, c) · w^c · left^(r -
    /// c)`, and each state ends by one product.
    tails: Option<Vec<Vec<W>>>,
}

impl<'d, W: Weight> Keep<'d, W> {
    fn new(
        dies: &'d [(u32, Law<W>)],
        specs: &[(u32, DieSpec)],
        end: End,
        k: u32,
        agg: Agg,
        b: &mut Budget<W>,
    ) -> Result<Self, NoLaw> {
        let lohi = specs
            .first()
            .map(|(_, d)| (d.lo(), d.hi()))
            .unwrap_or((0, 0));
        let mut den = W::one();
        for (n, d) in dies {
            den = den.mul(&d.den.pow(*n)?)?;
        }
        let mut strides = Vec::with_capacity(dies.len());
        let mut stride = 1u64;
        for (n, _) in dies {
            strides.push(stride);
            stride = stride
                .checked_mul(u64::from(*n) + 1)
                .ok_or(NoLaw::Refused(Why::Part))?;
        }
        let most = dies.iter().map(|(n, _)| *n as usize).max().unwrap_or(0);
        // The tables of each face are paid for before they are made: a keep of 1000
        // dice would build half a million binomials, and as many products a face,
        // before its first state (a hang, where the states' budget came too late).
        let table = (most as u64 + 1) * (most as u64 + 2) / 2;
        let faces: u64 = dies.iter().map(|(_, d)| d.iter().count() as u64).sum();
        b.spend(
            table
                .saturating_mul(faces.saturating_mul(2) + 1)
                .saturating_mul(den.words().div_ceil(8)),
        )?;
        let mut binomials: Vec<Vec<W>> = vec![vec![W::one()]];
        for r in 1..=most {
            let above = &binomials[r - 1];
            let mut row = vec![W::one(); r + 1];
            for c in 1..r {
                row[c] = above[c - 1].clone();
                row[c].add_to(&above[c])?;
            }
            binomials.push(row);
        }
        Ok(Keep {
            dies,
            end,
            k,
            agg,
            lohi,
            // A split costs a multiply as long as the counts (every count is at most
            // the denominator) and, in big integers, an allocation: eight words an
            // operation, as a `repeat`'s round is counted (a word an operation spent the
            // budget in a tenth of a second where the counts had 22 words: `20d10
            // explode keep highest 10` got no fraction; 0.6 s now). In machine words a
            // split is a multiply with no allocation, an eighth of that (measured: 15
            // million splits of `[5d6, 5d8, 5d10, 5d12] keep highest 4` in 90 ms, which
            // was refused as it finished). The budget is spent as the pass goes, never
            // refused from an estimate of the states.
            eighths: if W::CAPACITY.is_some() {
                1
            } else {
                8 * den.words().div_ceil(8)
            },
            den,
            strides,
            binomials,
        })
    }

    /// What `splits` splits cost the budget.
    fn cost(&self, splits: u64) -> u64 {
        splits.saturating_mul(self.eighths).div_ceil(8)
    }

    /// The dice left before any face: every die of every group.
    fn start(&self) -> u64 {
        self.dies
            .iter()
            .zip(&self.strides)
            .map(|((n, _), s)| u64::from(*n) * s)
            .sum()
    }

    fn left_of(&self, key: u64, g: usize) -> u32 {
        ((key / self.strides[g]) % (u64::from(self.dies[g].0) + 1)) as u32
    }

    /// Powers 0..=n of each of `x` (a group's ways at one face, or its faces left).
    fn powers(&self, x: &[W]) -> Result<Vec<Vec<W>>, NoLaw> {
        x.iter()
            .zip(self.dies)
            .map(|(w, (n, _))| {
                let mut p = vec![W::one()];
                for c in 1..=*n as usize {
                    let next = p[c - 1].mul(w)?;
                    p.push(next);
                }
                Ok(p)
            })
            .collect()
    }

    /// Face `v`'s ways, taking them off each group's faces `left`.
    fn face(&self, v: i64, left: &mut [W]) -> Result<Face<W>, NoLaw> {
        let here: Vec<W> = self
            .dies
            .iter()
            .map(|(_, d)| {
                usize::try_from(v - d.lo)
                    .ok()
                    .and_then(|i| d.n.get(i))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        for (l, w) in left.iter_mut().zip(&here) {
            l.sub_from(w)?;
        }
        let (here_pow, left_pow) = (self.powers(&here)?, self.powers(left)?);
        let mut splits: Vec<Vec<Vec<W>>> = Vec::with_capacity(self.dies.len());
        for (w, hp) in here.iter().zip(&here_pow) {
            let rows = if w.is_zero() {
                Vec::new()
            } else {
                self.binomials
                    .iter()
                    .take(hp.len())
                    .map(|row| row.iter().zip(hp).map(|(c, p)| c.mul(p)).collect())
                    .collect::<Result<_, NoLaw>>()?
            };
            splits.push(rows);
        }
        let tails = match (splits.as_slice(), left_pow.as_slice()) {
            ([rows], [lp]) if !rows.is_empty() => Some(
                rows.iter()
                    .enumerate()
                    .map(|(top, row)| {
                        let mut tail = vec![W::default(); top + 2];
                        for c in (0..=top).rev() {
                            let mut t = tail[c + 1].clone();
                            t.add_product(&row[c], &lp[top - c])?;
                            tail[c] = t;
                        }
                        Ok(tail)
                    })
                    .collect::<Result<_, NoLaw>>()?,
            ),
            _ => None,
        };
        Ok(Face {
            v,
            splits,
            left_pow,
            tails,
        })
    }

    /// The read after `take` more dice show the face.
    fn read(&self, acc: i64, kept: u32, take: u32, v: i64) -> i64 {
        kept_read(self.agg, self.end, acc, kept, take, v, self.lohi)
    }

    /// The sum of the `k` dice kept of a pool of one kind, by the face `t` the last kept
    /// die shows: `a < k` dice lie beyond `t` (their sum one of the `a`-fold sums of the
    /// faces beyond it), and at least `k - a` of the other `n - a` show `t`, the rest
    /// lying short of it: `C(n, a) · Σ_{j ≥ k-a} C(n-a, j) · T^j · L^(n-a-j)` ways,
    /// `T` the face's ways and `L` those short of it. Each roll is counted once, by its
    /// `t` and `a`.
    fn by_threshold(&self, values: &[i64], b: &mut Budget<W>) -> Result<Law<W>, NoLaw> {
        let (n, die) = (self.dies[0].0, &self.dies[0].1);
        let k = self.k;
        let ways = |v: i64| {
            usize::try_from(v - die.lo)
                .ok()
                .and_then(|i| die.n.get(i))
                .cloned()
                .unwrap_or_default()
        };
        let mut out: Map<i64, W> = Map::default();
        // The faces beyond `t`, as a law of one die's value over them (its ways).
        let mut beyond: Map<i64, W> = Map::default();
        let mut short = die.den.clone();
        for &t in values {
            let at = ways(t);
            short.sub_from(&at)?;
            let (tp, sp) = {
                let p = self.powers(std::slice::from_ref(&at))?;
                let q = self.powers(std::slice::from_ref(&short))?;
                (p.into_iter().next(), q.into_iter().next())
            };
            let (Some(tp), Some(sp)) = (tp, sp) else {
                return Err(NoLaw::Refused(Why::Part));
            };
            let one_beyond = if beyond.is_empty() {
                None
            } else {
                Some(Law::from_map(beyond.clone(), W::one())?)
            };
            let mut sums = Law::point(0);
            for a in 0..k {
                if a > 0 {
                    let Some(one) = &one_beyond else {
                        break;
                    };
                    sums = sums.add(one, b)?;
                }
                let m = (n - a) as usize;
                let from = (k - a) as usize;
                b.spend(self.cost((m + 1 - from.min(m + 1)) as u64) + sums.n.len() as u64)?;
                let mut tail = W::default();
                for j in from..=m {
                    let c = self.binomials[m][j].mul(&tp[j])?;
                    tail.add_product(&c, &sp[m - j])?;
                }
                if tail.is_zero() {
                    continue;
                }
                let scale = self.binomials[n as usize][a as usize].mul(&tail)?;
                let shift = i64::from(k - a) * t;
                for (v, w) in sums.iter() {
                    out.entry(v + shift).or_default().add_product(w, &scale)?;
                }
            }
            if !at.is_zero() {
                beyond.insert(t, at);
            }
        }
        Ok(Law::from_map(out, self.den.clone())?.reduced())
    }

    /// [`pass`] of a pool of one kind, its states in dense rows ([`Rows`]).
    fn one_kind_pass(&self, values: &[i64], b: &mut Budget<W>) -> Result<Law<W>, NoLaw> {
        let n = self.dies[0].0;
        let mut left = vec![self.dies[0].1.den.clone()];
        let mut done: Map<i64, W> = Map::default();
        let (mut cur, mut next) = (Rows::new(n), Rows::new(n));
        if self.k == 0 {
            done.insert(0, self.den.clone());
        } else {
            cur.add(u64::from(n), 0, &W::one(), &W::one())?;
        }
        for &v in values {
            if cur.is_empty() {
                break;
            }
            let face = self.face(v, &mut left)?;
            let Some(tails) = &face.tails else {
                // No die shows the face: nothing moves.
                continue;
            };
            for (rest, (lo, row)) in cur.rows.iter_mut().enumerate() {
                let (rest, kept) = (rest as u64, n - rest as u32);
                let (top, need) = (rest as usize, (self.k - kept) as usize);
                let splits = &face.splits[0][top];
                for (i, ways) in row.drain(..).enumerate() {
                    if ways.is_zero() {
                        continue;
                    }
                    let acc = *lo + i as i64;
                    b.spend(self.cost(need.min(top) as u64 + 1))?;
                    for (c, w) in splits.iter().enumerate().take(need) {
                        let read = self.read(acc, kept, c as u32, face.v);
                        next.add(rest - c as u64, read, &ways, w)?;
                    }
                    if top >= need {
                        done.entry(self.read(acc, kept, need as u32, face.v))
                            .or_default()
                            .add_product(&ways, &tails[top][need])?;
                    }
                }
            }
            std::mem::swap(&mut cur, &mut next);
        }
        // States that kept fewer than `k` read as they stand, once every die has landed.
        for (i, ways) in cur.rows[0].1.iter().enumerate() {
            if !ways.is_zero() {
                done.entry(cur.rows[0].0 + i as i64)
                    .or_default()
                    .add_to(ways)?;
            }
        }
        Ok(Law::from_map(done, self.den.clone())?.reduced())
    }

    /// A state of a pool of one kind at a face: a split for each count of dice showing
    /// it short of the dice still wanted, and one for all the rest together.
    #[allow(clippy::too_many_arguments)]
    fn one_kind(
        &self,
        face: &Face<W>,
        tails: &[Vec<W>],
        (rest, kept, acc): State,
        ways: W,
        next: &mut Map<State, W>,
        done: &mut Map<i64, W>,
        b: &mut Budget<W>,
    ) -> Result<(), NoLaw> {
        let (top, need) = (rest as usize, (self.k - kept) as usize);
        b.spend(self.cost(need.min(top) as u64 + 1))?;
        for (c, w) in face.splits[0][top].iter().enumerate().take(need) {
            next.entry((
                rest - c as u64,
                kept + c as u32,
                self.read(acc, kept, c as u32, face.v),
            ))
            .or_default()
            .add_product(&ways, w)?;
        }
        if top >= need {
            done.entry(self.read(acc, kept, need as u32, face.v))
                .or_default()
                .add_product(&ways, &tails[top][need])?;
        }
        Ok(())
    }

    /// A state of a pool of several kinds at a face: every split of each group's dice
    /// left into "show it" and "later".
    #[allow(clippy::too_many_arguments)]
    fn kinds(
        &self,
        face: &Face<W>,
        (rest, kept, acc): State,
        ways: W,
        (splits, grown): &mut (Vec<Split<W>>, Vec<Split<W>>),
        next: &mut Map<State, W>,
        done: &mut Map<i64, W>,
        b: &mut Budget<W>,
    ) -> Result<(), NoLaw> {
        splits.clear();
        splits.push((rest, 0, ways));
        for (g, rows) in face.splits.iter().enumerate() {
            if rows.is_empty() {
                continue;
            }
            grown.clear();
            for (r, c, x) in splits.drain(..) {
                let top = self.left_of(r, g);
                b.spend(self.cost(u64::from(top) + 1))?;
                for (cg, w) in rows[top as usize].iter().enumerate() {
                    let r2 = r - cg as u64 * self.strides[g];
                    grown.push((r2, c + cg as u32, x.mul(w)?));
                }
            }
            std::mem::swap(splits, grown);
        }
        // Each split ends in a state table that outgrows the cache: a lookup there, and
        // the add, cost about three splits made (58% of `[60d6, 60d10] drop highest 3`
        // was the table's lookups, when only the splits were counted: 5.6 s to refuse).
        b.spend(self.cost(3 * splits.len() as u64))?;
        for (r2, c, x) in splits.drain(..) {
            let take = c.min(self.k - kept);
            let acc2 = self.read(acc, kept, take, face.v);
            if kept + take == self.k {
                // Final: the dice left land on any face not passed yet.
                b.spend(self.cost(face.left_pow.len() as u64))?;
                let mut later = W::one();
                for (g, l) in face.left_pow.iter().enumerate() {
                    later = later.mul(&l[self.left_of(r2, g) as usize])?;
                }
                done.entry(acc2).or_default().add_product(&x, &later)?;
            } else {
                next.entry((r2, kept + take, acc2))
                    .or_default()
                    .add_to(&x)?;
            }
        }
        Ok(())
    }
}

/// A keep pass's reading after `take` more dice kept at face `v` (`kept` before them),
/// from the accumulator `acc`: the one step both passes  take. `count max` / `count min` read the faces' span `lohi`. A read the
/// general pass serves (`straight`, a shape) leaves `acc` as it is: `pool` never sends
/// it here.
fn kept_read(agg: Agg, end: End, acc: i64, kept: u32, take: u32, v: i64, lohi: (i64, i64)) -> i64 {
    match agg {
        Agg::Sum => acc + take as i64 * v,
        Agg::Tally(t) => acc + take as i64 * crate::systems::dice::lang::tally(v, t),
        Agg::Count(cond) => {
            acc + if cond.holds(v, lohi.0, lohi.1) {
                take as i64
            } else {
                0
            }
        }
        Agg::MaxSet => acc.max(take as i64),
        Agg::Straight | Agg::Shape(_) => acc,
        // The kept dice's extreme: the first value kept from this end is the highest
        // (or lowest); the last, the other.
        Agg::Highest | Agg::Lowest => {
            let wants_first = (agg == Agg::Highest) == (end == End::Highest);
            if take > 0 && (!wants_first || kept == 0) {
                v
            } else {
                acc
            }
        }
    }
}
