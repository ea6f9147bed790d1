//! Which expressions go to the law before the float engine: those it serves whose
//! limits' masses it can say itself. A chain stopped at its depth is reported as a
//! mass beside the distribution; where every die that starts one is rolled whatever
//! came before, that mass is its dice times its chance of rolling on at its last roll,
//! known without evaluating anything, and the floats would be a second evaluation for
//! nothing.

use super::super::super::dist::{die_dist, Ledger};
use super::*;

/// What the law found first.
pub struct First {
    /// The distribution, in integer weights.
    pub law: Law,
    /// Whether a `repeat` came to its limit with ways still going: a mass only the
    /// floats report.
    pub stopped: bool,
    /// The mass of the chains stopped at their depth.
    pub capped: f64,
}

/// The exact law of `n`, tried before the float engine where every part is one the law
/// serves and the chains stopped at their depth have a mass known without the floats
/// ([`capped_mass`]). Where it serves and nothing stopped, the floats would be a second
/// evaluation for nothing (hit, wound and save with rolled counts, a Monopoly turn, an
/// exploding pool read several ways). None: not tried; an error: tried and refused,
/// not to try again.
pub fn first_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Option<Result<First, NoLaw>> {
    if !served(n) || vs.is_some_and(|v| !served(v)) {
        return None;
    }
    // As both engines evaluate them: a `let` read on one branch only is moved into it,
    // where its chains are rolled by that branch's chance.
    let (n, vs) = (
        super::super::sunk(n, 0),
        vs.map(|v| super::super::sunk(v, 0)),
    );
    let capped = capped_mass(&n)? + vs.as_ref().map_or(Some(0.0), capped_mass)?;
    Some(
        sunk_law(&n, vs.as_ref(), cancel).map(|(law, stopped)| First {
            law,
            stopped,
            capped,
        }),
    )
}

/// Whether nothing in `n` stops at a limit whose mass the floats report (an explosion
/// or `again` chain at its depth, a `repeat` at its last round): where the float
/// engine gives up, the law's answer then says all there is to say.
pub fn stops_nothing(n: &Node) -> bool {
    let mut ok = !matches!(n, Node::Repeat(_)) && !chains_here(n);
    super::super::super::program::each_child(n, &mut |c| ok = ok && stops_nothing(c));
    ok
}

/// Whether `n` itself rolls dice that start chains (explosions, `again`).
fn chains_here(n: &Node) -> bool {
    let chains =
        |p: &PoolSpec| p.again.is_some() || p.groups.iter().any(|(_, d)| d.explode.is_some());
    match n {
        Node::Pool(p) | Node::LetPool { spec: p, .. } => chains(p),
        Node::Counted(_, pools) => pools.iter().any(chains),
        Node::Versus(_, a, b, _) => chains(a) || chains(b),
        Node::Meeting(m) => m.sides.iter().any(|s| chains(s.spec())),
        Node::Template(t) => t
            .mods
            .iter()
            .any(|m| matches!(m, ModOf::Explode(_) | ModOf::Again(_))),
        Node::Pick(p) => p.groups.iter().any(|(_, d)| d.explode.is_some()),
        _ => false,
    }
}

/// Whether every part of `n` is one [`law`] serves.
fn served(n: &Node) -> bool {
    let plain =
        |p: &PoolSpec| p.deck().is_none() && !matches!(p.agg, Agg::Straight | Agg::Shape(_));
    let here = match n {
        n if arithmetic_kind(n) => true,
        Node::Pool(p) => plain(p),
        Node::Counted(_, pools) => pools.iter().all(plain),
        // A pool variable (its reads are of the dice it holds): the law counts every
        // multiset, or its reads' values die by die.
        Node::LetPool { spec, .. } => plain(spec),
        Node::PoolVar(_) | Node::Card(_) | Node::CountedVar(..) => true,
        // Rounds, whose states the law carries in whole numbers.
        Node::Repeat(_) | Node::Emit(_) => true,
        // Pool variables set against each other: their held dice met, once per outcome.
        n if held_meeting(n) => true,
        _ => false,
    };
    let mut ok = here;
    super::super::super::program::each_child(n, &mut |c| ok = ok && served(c));
    ok
}

/// The mass of the chains of `n` stopped at their depth, as the float engine's ledger
/// counts it (each die's chance of rolling on at its last roll, times its dice, times
/// the chance the die is rolled at all), where every die that starts a chain is rolled
/// whatever came before it: a pool, or a pool variable, reached through arithmetic and
/// `let`s only. None where one is rolled on a branch, in a round or by a rolled count:
/// how often it is rolled is a chance only an evaluation knows.
fn capped_mass(n: &Node) -> Option<f64> {
    let mut mass = 0.0;
    reached(n, true, &mut mass).then_some(mass)
}

/// [`capped_mass`] of `n`, reached always or not: false where a chain is rolled where
/// its reach is not certain.
fn reached(n: &Node, always: bool, mass: &mut f64) -> bool {
    if chains_here(n) {
        let p = match n {
            Node::Pool(p) | Node::LetPool { spec: p, .. } if always => p,
            _ => return false,
        };
        match pool_capped(p) {
            Some(m) => *mass += m,
            None => return false,
        }
    }
    let mut ok = true;
    match n {
        // The condition is always met; a branch, only by its chance.
        Node::If(c, a, b) => {
            ok = reached(c, always, mass) && reached(a, false, mass) && reached(b, false, mass);
        }
        n if arithmetic_kind(n)
            || matches!(n, Node::LetPool { .. } | Node::Emit(_) | Node::Record(_)) =>
        {
            super::super::super::program::each_child(n, &mut |c| {
                ok = ok && reached(c, always, mass)
            });
        }
        // Rounds, rolled counts, choices: each part by some chance.
        _ => {
            super::super::super::program::each_child(n, &mut |c| {
                ok = ok && reached(c, false, mass)
            });
        }
    }
    ok
}

/// A pool's chains stopped at their depth: each die's chance of rolling on, to the
/// power of its rolls (the depth and the first), times its dice. None for a die that
/// both explodes and adds dice, or whose faces the floats refuse.
fn pool_capped(p: &PoolSpec) -> Option<f64> {
    let mut mass = 0.0;
    for (n, d) in &p.groups {
        let on = match (p.again, d.explode) {
            (Some(c), None) | (None, Some(c)) => c,
            (None, None) => continue,
            (Some(_), Some(_)) => return None,
        };
        let once = DieSpec {
            explode: None,
            ..d.clone()
        };
        let (base, _) = die_dist(&once, &mut Ledger::default()).ok()?;
        let (lo, hi) = (d.lo(), d.hi());
        let q: f64 = base
            .iter()
            .filter(|(v, _)| on.holds(*v, lo, hi))
            .map(|(_, q)| q)
            .sum();
        mass += f64::from(*n) * q.powi(d.depth as i32 + 1);
    }
    Some(mass)
}
