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
    let mut b = Budget::new(cancel);
    let (boom, stop) = (split(&base, c, true), split(&base, c, false));
    // Every chain ended so far, over the denominator of the chains still rolling times
    // one roll's.
    let mut out: Map<i64, W> = Map::default();
    let mut carry = Law::point(0);
    for depth in 0..=d.depth {
        let last = depth == d.depth;
        // At the depth limit an exploding face stands as it is.
        let ended = carry.add(if last { &base } else { &stop }, &mut b)?;
        for (v, w) in ended.iter() {
            out.entry(v).or_default().add_to(w)?;
        }
        if last {
            return Ok(Law::from_map(out, ended.den)?.reduced());
        }
        let on = carry.add(&boom, &mut b)?;
        if on.n.iter().all(|w| w.is_zero()) {
            return Ok(Law::from_map(out, ended.den)?.reduced());
        }
        carry = on.trim();
        // The chains ended so far, over the next round's denominator.
        for w in out.values_mut() {
            *w = w.mul(&base.den)?;
        }
    }
    unreachable!("the loop returns at its last depth")
}
