//! A pool variable whose body adds up die by die: its law is one die's share rolled as
//! many times as there are dice, not every multiset of the dice held apart.

use super::*;

/// A body as a sum over a pool variable's dice, and a whole number: each read that adds
/// up die by die (`sum`, `count`, a symbol's count) times a whole number, and each
/// rolled count whose count is itself such a sum ([`Rolled`]).
#[derive(Default)]
struct Linear<'a> {
    reads: Vec<(Agg, i128)>,
    rolled: Vec<Rolled<'a>>,
    constant: i128,
}

/// A rolled count of dice of one kind read one way that adds up, taken `k` times, whose
/// count is a [`Linear`] of the pool with no whole number (`(p count >= 3 - p count
/// 6)d6 count >= 4`, Lethal Hits' wounds). Where every die's share of that count is at
/// least 0, the dice rolled are each die's share rolled on its own: the rolled count
/// adds up die by die too, and the pool stays a sum of independent dice.
struct Rolled<'a> {
    k: i128,
    count: Linear<'a>,
    die: &'a DieSpec,
    agg: Agg,
    /// The most dice its pools were made for (a count past them rolls that many).
    most: i64,
}

/// Past this, a factor or the whole number is not taken: nothing the sampler multiplies
/// or adds may saturate.
const FAR: i128 = 1 << 40;

impl<'a> Linear<'a> {
    /// `body` taken `k` times added in; false where it is anything else. `at` is the
    /// pool variable's depth.
    fn add(&mut self, body: &'a Node, at: usize, k: i128) -> bool {
        if k.abs() >= FAR {
            return false;
        }
        match body {
            Node::Num(v) => {
                self.constant += k * i128::from(*v);
                self.constant.abs() < FAR
            }
            Node::Neg(x) => self.add(x, at, -k),
            Node::Add(x, y) => self.add(x, at, k) && self.add(y, at, k),
            Node::Sub(x, y) => self.add(x, at, k) && self.add(y, at, -k),
            Node::Mul(x, y) => match (&**x, &**y) {
                (Node::Num(m), e) | (e, Node::Num(m)) => self.add(e, at, k * i128::from(*m)),
                _ => false,
            },
            Node::PoolVar(r) => {
                let adds = r.i == at && adds_up(&(r.keep, r.agg)) && r.rolled.is_none() && !r.sized;
                if adds {
                    self.reads.push((r.agg, k));
                }
                adds
            }
            Node::Counted(c, pools) => {
                let Some((die, agg)) = one_kind(pools) else {
                    return false;
                };
                let mut count = Linear::default();
                if !count.add(c, at, 1) || count.constant != 0 {
                    return false;
                }
                self.rolled.push(Rolled {
                    k,
                    count,
                    die,
                    agg,
                    most: pools.len() as i64 - 1,
                });
                true
            }
            _ => false,
        }
    }

    /// The most dice of each rolled count (depth first, as [`one_die`] gives them).
    fn most(&self, out: &mut Vec<i64>) {
        for r in &self.rolled {
            out.push(r.most);
            r.count.most(out);
        }
    }

    /// Every read's value for one die showing `v` (depth first): two faces alike here
    /// add alike to the body.
    fn reads_of(&self, v: i64, (lo, hi): (i64, i64), out: &mut Vec<i64>) {
        out.extend(
            self.reads
                .iter()
                .map(|&(agg, _)| read_sorted(&[v], None, agg, lo, hi)),
        );
        for r in &self.rolled {
            r.count.reads_of(v, (lo, hi), out);
        }
    }
}

/// [`one_kind`](super::super::one_kind) that adds up die by die, with no explosion
/// (its chains stopped at their depth are counted where a pool is rolled).
fn one_kind(pools: &[PoolSpec]) -> Option<(&DieSpec, Agg)> {
    let (die, agg) = super::super::one_kind(pools)?;
    (die.explode.is_none() && adds_up(&(None, agg))).then_some((die, agg))
}

/// A pool variable whose body adds up over its dice ([`Linear`]: `p count >= 11 + p
/// count 20`, or `p count 6 + (p count >= 3 - p count 6)d6 count >= 4`): the body is then
/// one die's share added over the dice, so the pool is that share rolled as many times,
/// not every multiset of its dice held apart by the reads (200d20 read two ways were
/// 20,301 pairs of counts; the sum is 401 values). None where the body does anything
/// else, or the pool is a deck's cards.
pub(super) fn linear_pool<'a, W: Weight>(
    n: &'a Node,
    spec: &'a PoolSpec,
    body: &'a Node,
    at: usize,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    // Cards are dealt, not rolled: no card is independent of the others.
    if spec.keep.is_some() || spec.groups.is_empty() || spec.groups.iter().any(|(_, d)| d.deck) {
        return Ok(None);
    }
    let mut lin = Linear::default();
    if !lin.add(body, at, 1) || (lin.reads.is_empty() && lin.rolled.is_empty()) {
        return Ok(None);
    }
    // Each die's dice rolled for a count stand apart from an `again` chain's.
    if !lin.rolled.is_empty() && spec.again.is_some() {
        return Ok(None);
    }
    // It reads no other variable: worked out once however often it is met (a round's
    // pool, from every state).
    if let Some(law) = b.closed.alike(n) {
        b.spend(law.n.len() as u64)?;
        return Ok(Some(law));
    }
    let law = match lin.rolled.is_empty() {
        true => reads_only(&lin, spec, b)?,
        false => with_rolled(&lin, spec, b)?,
    };
    Ok(match law {
        Some(law) => Some(b.closed.keep(n, law)),
        None => None,
    })
}

/// [`linear_pool`] of reads alone: one number per die.
fn reads_only<'a, W: Weight>(
    lin: &Linear,
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let (lo, hi) = face_span(spec);
    // Each term apart, as the sampler multiplies each read before it adds them.
    let parts = |v: i64| {
        lin.reads
            .iter()
            .map(move |&(agg, k)| k * i128::from(read_sorted(&[v], None, agg, lo, hi)))
    };
    let per_die = |v: i64| -> i128 { parts(v).sum() };
    // The values each group's dice take: an exploding die's totals past its faces; an
    // `again` chain's rolls, each a face of the die as it falls.
    let mut laws = Vec::with_capacity(spec.groups.len());
    for (n, die) in &spec.groups {
        let law = match spec.again {
            Some(_) => die_law(
                &DieSpec {
                    explode: None,
                    ..die.clone()
                },
                b.cancel,
            )?,
            None => super::die(die, b)?,
        };
        b.spend(law.n.len() as u64)?;
        laws.push((*n, die, law));
    }
    let values = || {
        laws.iter()
            .flat_map(|(_, _, law)| law.iter().map(|(v, _)| v))
    };
    // Every term of a die, and the most dice a roll holds, far inside a word: nothing
    // the sampler multiplies or adds can then saturate, and the sum is the body's value
    // on every roll.
    let most = values()
        .map(|v| parts(v).map(i128::abs).sum::<i128>())
        .max()
        .unwrap_or(0);
    if !far_inside(spec, most, lin.constant) {
        return Ok(None);
    }
    // The numbers' common step taken out while the dice are added (`5 * p count <= 4 +
    // 10 * p count <= 2` adds multiples of 5: a fifth of the places), put back at the end.
    let step = values().fold(0i64, |s, v| {
        num_integer::Integer::gcd(&s, &(per_die(v) as i64))
    });
    let step = step.max(1);
    let g = |v: i64| per_die(v) as i64 / step;
    let mut out = Law::point(0);
    for (n, die, law) in &laws {
        let one = match spec.again {
            Some(c) => {
                let (chain, den) = again_chain(die, c, 0, |acc: &i64, v| acc + g(v), b)?;
                Law::from_map(chain, den)?
            }
            None => law.map(g)?,
        };
        out = out.add(&one.reduced().times(*n, b)?, b)?;
    }
    let constant = lin.constant as i64;
    Ok(Some(out.map(|v| v * step + constant)?.reduced()))
}

/// Whether `most` (the largest a die's share or any part of it can be, in absolute
/// value) over every die the pool rolls, and the whole number, stay far inside a word.
fn far_inside(spec: &PoolSpec, most: i128, constant: i128) -> bool {
    let dice: i128 = spec
        .groups
        .iter()
        .map(|(n, d)| i128::from(*n) * (i128::from(d.depth) + 1))
        .sum();
    dice.saturating_mul(most).saturating_add(constant.abs()) < 1 << 60
}

/// [`linear_pool`] with rolled counts: each kind of face's share a law (the dice it
/// rolls for each count, with its reads), mixed over the die's faces, then rolled once
/// per die. None where a count's share could fall below 0, or its dice pass the pools
/// made for it.
fn with_rolled<'a, W: Weight>(
    lin: &Linear<'a>,
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let span = face_span(spec);
    let mut made = Vec::new();
    lin.most(&mut made);
    // The most dice each count rolls over the whole pool, and the largest any part of a
    // die's share is.
    let mut dice = vec![0i64; made.len()];
    let mut largest = 0i128;
    let mut shares = Vec::with_capacity(spec.groups.len());
    for (n, die) in &spec.groups {
        let law = super::die(die, b)?;
        b.spend(law.n.len() as u64)?;
        // Faces that read alike every way share alike: each kind's share made once.
        let mut kinds: Vec<(Vec<i64>, i64, W)> = Vec::new();
        let mut reads = Vec::new();
        for (v, w) in law.iter() {
            reads.clear();
            lin.reads_of(v, span, &mut reads);
            match kinds.iter_mut().find(|(r, _, _)| *r == reads) {
                Some((_, _, x)) => x.add_to(w)?,
                None => kinds.push((reads.clone(), v, w.clone())),
            }
        }
        let mut mix = Mixer::new();
        let mut most = vec![0i64; made.len()];
        for (_, v, w) in &kinds {
            let mut tops = Vec::with_capacity(made.len());
            let Some((share, big)) = one_die(lin, *v, span, &mut tops, b)? else {
                return Ok(None);
            };
            largest = largest.max(big);
            for (m, t) in most.iter_mut().zip(&tops) {
                *m = (*m).max(*t);
            }
            mix.add(w, share, b)?;
        }
        for (d, m) in dice.iter_mut().zip(&most) {
            *d = d.saturating_add(m.saturating_mul(i64::from(*n)));
        }
        shares.push((*n, mix.done(&law.den)?));
    }
    if dice.iter().zip(&made).any(|(d, m)| d > m) || !far_inside(spec, largest, lin.constant) {
        return Ok(None);
    }
    let mut out = Law::point(0);
    for (n, share) in &shares {
        out = out.add(&share.times(*n, b)?, b)?;
    }
    let constant = lin.constant as i64;
    Ok(Some(out.map(|v| v + constant)?.reduced()))
}

/// What one die showing `v` adds to `lin` (its whole number apart), and the largest any
/// part of that can be in absolute value; `tops` gets the most dice each rolled count
/// in it (depth first) rolls for this die. None where a count's share can be below 0,
/// or rolls more dice than the pools made hold (the path that goes by key then).
fn one_die<'a, W: Weight>(
    lin: &Linear<'a>,
    v: i64,
    (lo, hi): (i64, i64),
    tops: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Option<(Law<W>, i128)>, NoLaw> {
    let reads = lin
        .reads
        .iter()
        .map(|&(agg, k)| k * i128::from(read_sorted(&[v], None, agg, lo, hi)));
    let mut largest: i128 = reads.clone().map(i128::abs).sum();
    let mut out = Law::point(reads.sum::<i128>() as i64);
    for r in &lin.rolled {
        let at = tops.len();
        tops.push(0);
        let Some((count, big)) = one_die(&r.count, v, (lo, hi), tops, b)? else {
            return Ok(None);
        };
        // Below 0, or past the pools made (a count there is clamped by the roll): not a
        // sum over the dice, and no die's dice rolled for it.
        let (least, most) = count.support();
        if least < 0 || most > r.most {
            return Ok(None);
        }
        tops[at] = most;
        // One of its dice, as its read adds it.
        let (dlo, dhi) = (r.die.lo(), r.die.hi());
        let one = super::die(r.die, b)?
            .map(|u| read_sorted(&[u], None, r.agg, dlo, dhi))?
            .reduced();
        let (olo, ohi) = one.support();
        largest = largest.max(big);
        largest += r.k.abs() * i128::from(most) * i128::from(olo.abs().max(ohi.abs()));
        // Each count of dice with its ways: as many of the die added, one at a time.
        let mut mix = Mixer::new();
        let mut power = Law::point(0);
        let mut rolled = 0;
        for (c, w) in count.iter() {
            while rolled < c {
                power = power.add(&one, b)?;
                rolled += 1;
            }
            mix.add(w, power.clone(), b)?;
        }
        let part = mix.done(&count.den)?;
        let part = match r.k {
            1 => part,
            k => part.map(|x| x.saturating_mul(k as i64))?,
        };
        out = out.add(&part, b)?;
    }
    Ok(Some((out, largest)))
}
