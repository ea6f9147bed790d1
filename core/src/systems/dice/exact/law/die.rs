//! One die's law: its faces counted, rerolls and explosions as the sampler rolls them.

use super::*;

/// One die's law, in integers as the sampler rolls it: its faces counted; a face a
/// `reroll` hits rolled again (once, or until it stands); an exploding face rolling on,
/// each chain's value the sum of its rolls, a face at the depth limit standing as it is.
/// An explosion of depth `k` is a fraction over `s^(k+1)`, never read off a float.
pub(super) fn die_law<W: Weight>(d: &DieSpec, cancel: &Cancel) -> Result<Law<W>, NoLaw> {
    let mut m: Map<i64, W> = Map::default();
    for &f in &d.faces {
        m.entry(f).or_default().add_to(&W::one())?;
    }
    let sides = W::from_u128(d.faces.len() as u128);
    let mut base = Law::from_map(m, sides.clone())?;
    let (lo, hi) = (d.lo(), d.hi());
    let split = |l: &Law<W>, c: Cond, on: bool| Law {
        lo: l.lo,
        n: l.n
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if c.holds(l.lo + i as i64, lo, hi) == on {
                    w.clone()
                } else {
                    W::default()
                }
            })
            .collect(),
        den: l.den.clone(),
    };
    if let Some((c, always)) = d.reroll {
        let stands = split(&base, c, false);
        let mut hit = base.den.clone();
        for w in &stands.n {
            hit.sub_from(w)?;
        }
        base = if always {
            // Rerolled until it stands: the faces that stand, over their own ways.
            let mut left = base.den.clone();
            left.sub_from(&hit)?;
            if left.is_zero() {
                return Err(NoLaw::Refused(Why::Part));
            }
            Law {
                den: left,
                ..stands
            }
        } else {
            // Rerolled once: a face that stands, or (`hit` ways) a second roll.
            let n = stands
                .n
                .iter()
                .zip(&base.n)
                .map(|(s, p)| {
                    let mut x = s.mul(&base.den)?;
                    x.add_product(&hit, p)?;
                    Ok(x)
                })
                .collect::<Result<_, NoLaw>>()?;
            Law {
                lo: base.lo,
                n,
                den: base.den.mul(&base.den)?,
            }
        }
        .trim()
        .reduced();
    }
    let Some(c) = d.explode else {
        return Ok(base.reduced());
    };
    let (boom, stop) = (split(&base, c, true), split(&base, c, false));
    if boom.iter().next().is_none() || d.depth == 0 {
        return Ok(base.reduced());
    }
    exploded(&base, &boom, &stop, d.depth, cancel)
}

/// The chains of a die whose `boom` faces roll on (`stop` the others; `base` all of
/// them) to `depth` more rolls.
fn exploded<W: Weight>(
    base: &Law<W>,
    boom: &Law<W>,
    stop: &Law<W>,
    depth: u32,
    cancel: &Cancel,
) -> Result<Law<W>, NoLaw> {
    let booms: Vec<(i64, &W)> = boom.iter().collect();
    // From the last roll back to the first (Horner's rule): the chains from depth `k`
    // on are the faces that stop there, or an exploding face and the chains from
    // `k + 1`, each over one roll more. At the depth limit an exploding face stands
    // as it is. Dense rows, no map of the chains ended so far scaled round by round.
    let stops: Vec<(i64, &W)> = stop.iter().collect();
    let (boom_lo, boom_hi) = (booms[0].0, booms[booms.len() - 1].0);
    let stop_hi = stop.lo + stop.n.len() as i64 - 1;
    // Two rows kept for every depth, each made again in place (a row allocated and
    // zeroed per depth was a third of Torg's chain), each as long as the last depth's
    // from the start (grown depth by depth, each was copied a dozen times). The ends
    // move as the loop below moves them; past the span a law may have, the loop
    // refuses at its depth, and no room is made for it here.
    let (mut l, mut h) = (base.lo, base.lo + base.n.len() as i64 - 1);
    for _ in 0..depth {
        (l, h) = ((l + boom_lo).min(stop.lo), (h + boom_hi).max(stop_hi));
    }
    let widest = span(l, h).unwrap_or(0);
    let mut acc = Vec::with_capacity(widest);
    acc.extend_from_slice(&base.n);
    let mut lo = base.lo;
    let mut next: Vec<W> = Vec::with_capacity(widest);
    let mut scale = base.den.clone();
    let mut b: Budget<W> = Budget::new(cancel);
    // Many exploding faces (`d300 explode >= 2`): each depth one convolution as two
    // dice are added (one big multiply where the weight has it), not face by face.
    let many = (booms.len() >= KRONECKER).then(|| Law {
        den: W::one(),
        ..boom.clone().trim()
    });
    for _ in 0..depth {
        let hi = lo + acc.len() as i64 - 1;
        let new_lo = (lo + boom_lo).min(stop.lo);
        let new_hi = (hi + boom_hi).max(stop_hi);
        let width = span(new_lo, new_hi)?;
        next.clear();
        // The first exploding face of one way lands on zeros: the row so far copied
        // there, zeros either side (each cell written once).
        let copied = match booms[0] {
            (e, q) if many.is_none() && q.is_one() => {
                let at = (lo + e - new_lo) as usize;
                next.resize(at, W::default());
                next.extend_from_slice(&acc);
                true
            }
            _ => false,
        };
        next.resize(width, W::default());
        match &many {
            Some(faces) => {
                let here = Law {
                    lo,
                    n: std::mem::take(&mut acc),
                    den: W::one(),
                };
                let on = faces.add(&here, &mut b)?;
                // The row back in its place: its room is the next depth's.
                acc = here.n;
                let at = (on.lo - new_lo) as usize;
                for (dst, w) in next[at..].iter_mut().zip(on.n) {
                    *dst = w;
                }
            }
            None => {
                b.spend((booms.len() * acc.len()) as u64)?;
                for &(e, q) in &booms[usize::from(copied)..] {
                    let at = (lo + e - new_lo) as usize;
                    let next = next[at..].iter_mut().zip(&acc);
                    // A face of one way (every face of a plain die): added, with no
                    // multiply (two words' checked multiply was most of Torg's chain).
                    if q.is_one() {
                        for (dst, w) in next {
                            dst.add_to(w)?;
                        }
                    } else {
                        for (dst, w) in next.filter(|(_, w)| !w.is_zero()) {
                            dst.add_product(q, w)?;
                        }
                    }
                }
            }
        }
        b.spend(stops.len() as u64)?;
        for &(v, w) in &stops {
            next[(v - new_lo) as usize].add_product(w, &scale)?;
        }
        scale = scale.mul(&base.den)?;
        lo = new_lo;
        std::mem::swap(&mut acc, &mut next);
    }
    Ok(Law {
        lo,
        n: acc,
        den: scale,
    }
    .trim()
    .reduced())
}
