//! Two sides set die by die (`pairs`, `beats`, `cancel`): as one multiset pass over
//! both where there is one (two pools, or a pool and a pool variable's dice held),
//! else every pair of the sides' outcomes.

use super::pools::{faces, kept, one_read, rolled_multisets, Outcomes, PASS_PAST};
use super::*;

/// One side of a [`meeting`].
#[derive(Clone, Copy)]
pub(super) enum Meets<'a> {
    /// A pool rolled there.
    Pool(&'a PoolSpec),
    /// The pool variable at this scope depth.
    Held(usize),
}

/// Two pools met die by die as one multiset pass ([`lower`](crate::systems::dice::lower)
/// builds it), counted in ways: the states the reads
/// need, not every pair of the sides' multisets (`cancel(9d10, 8d10) highest` pairs
/// 48,620 with 24,310). None where there is no such pass, or it refuses.
pub(super) fn passed<'a, W: Weight>(
    n: &'a Node,
    pass: impl FnOnce() -> Option<crate::systems::dice::multiset::Pass>,
    specs: [&'a PoolSpec; 2],
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    if let Some(law) = b.closed.alike(n) {
        b.spend(law.n.len() as u64)?;
        return Ok(Some(law));
    }
    let Some(pass) = pass() else {
        return Ok(None);
    };
    let mut dice = Vec::new();
    for spec in specs {
        for (_, d) in &spec.groups {
            dice.push(faces(&super::die(d, b)?));
        }
    }
    Ok(one_read(&pass, &dice, b)?.map(|law| b.closed.keep(n, law)))
}

/// A pool met with a pool variable's dice held ([`lower::held_meeting`]): one pass over
/// the rolled side's faces, the held dice each of one face. Not kept among the parts
/// worked out: its value is the dice held's. None where a side is not one of the two,
/// both are held, or there is no such pass.
///
/// [`lower::held_meeting`]: crate::systems::dice::lower::held_meeting
pub(super) fn held_pass<'a, W: Weight>(
    m: &'a crate::systems::dice::program::Meeting,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let held = |s: &Side| match s {
        Side::Var { i, .. } => b
            .held
            .iter()
            .rev()
            .find(|(at, _)| at == i)
            .and_then(|(_, h)| h.dice())
            .cloned(),
        Side::Pool(_) => None,
    };
    let dice = [held(&m.sides[0]), held(&m.sides[1])];
    if dice.iter().filter(|d| d.is_some()).count() != 1
        || m.sides
            .iter()
            .filter(|s| matches!(s, Side::Var { .. }))
            .count()
            != 1
    {
        return Ok(None);
    }
    // A rolled side of few multisets is met die by die with the dice held faster than a
    // pass is set up (2d6's 21, for each of an exploding 3d6's outcomes held).
    let mut rolls = 1.0;
    for s in &m.sides {
        if let Side::Pool(p) = s {
            rolls *= rolled_multisets(p, b)?;
        }
    }
    if rolls <= PASS_PAST {
        return Ok(None);
    }
    let Some(pass) =
        crate::systems::dice::lower::held_meeting(m, [dice[0].as_deref(), dice[1].as_deref()])
    else {
        return Ok(None);
    };
    let mut faces_of = Vec::new();
    for (side, held) in m.sides.iter().zip(&dice) {
        match (side, held) {
            (Side::Pool(spec), None) => {
                for (_, d) in &spec.groups {
                    faces_of.push(faces(&super::die(d, b)?));
                }
            }
            (_, Some(held)) => {
                let mut last = None;
                for &face in held.iter() {
                    if last != Some(face) {
                        faces_of.push(vec![(face, W::one())]);
                        last = Some(face);
                    }
                }
            }
            _ => return Ok(None),
        }
    }
    one_read(&pass, &faces_of, b)
}

/// Two sides set die by die (`pairs`, `beats`, `cancel`, with `only` and a read of
/// what is left): every pair of the sides' outcomes (a pool's every multiset of kept
/// dice, or a pool variable's dice held), the meeting's value on each, as the sampler
/// reads it.
pub(super) fn meeting<'a, W: Weight>(
    sides: [Meets<'a>; 2],
    value: &dyn Fn(&[i64], &[i64]) -> i64,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let side = |s: Meets<'a>, b: &mut Budget<'a, W>| -> Result<std::rc::Rc<Outcomes<W>>, NoLaw> {
        match s {
            Meets::Pool(spec) => kept(spec, b),
            Meets::Held(i) => {
                let dice = b
                    .held
                    .iter()
                    .rev()
                    .find(|(at, _)| *at == i)
                    .and_then(|(_, h)| h.dice())
                    .ok_or(NoLaw::Refused(Why::Part))?;
                Ok(std::rc::Rc::new((vec![(dice.clone(), W::one())], W::one())))
            }
        }
    };
    let [x, y] = sides;
    let (xs, ys) = (side(x, b)?, side(y, b)?);
    b.spend((xs.0.len() as u64).saturating_mul(ys.0.len() as u64))?;
    let mut m: Map<i64, W> = Map::default();
    for (a, wa) in &xs.0 {
        for (d, wd) in &ys.0 {
            m.entry(value(a, d)).or_default().add_product(wa, wd)?;
        }
    }
    Ok(Law::from_map(m, xs.1.mul(&ys.1)?)?.reduced())
}
