//! Reads of pools lowered to one [`Pass`] of the multiset evaluator: a pool set against
//! another (`cancel(9d10, 8d10) highest`), and the pool variables of a `let` chain with
//! every way its body reads them (`let a = 6d10 in let b = 6d10 in {mine = beats(a, b),
//! left = cancel(a, b) highest}`): one pass over the faces gives the joint distribution
//! of the reads, and the body is evaluated once per list of values they take.
//!
//! What cannot be lowered (a deck, `again`, a read whose numbers are rolled, a role of a
//! `choose`, a rerolled variable) answers `None`, and the caller goes the way it went
//! before.

use super::lang::{Agg, End, Versus};
use super::multiset::{Pass, PoolIn, Read, Reading, Source};
use super::program::{face_span, Meeting, Node, PoolSpec, Side};

/// A pool as a pass takes it: independent dice of a fixed number, each with the span
/// of the values it can show (an exploding die's whole chain).
fn pool_in(spec: &PoolSpec) -> Option<PoolIn> {
    if spec.deck().is_some() || spec.again.is_some() {
        return None;
    }
    let span = |d: &super::program::DieSpec| {
        let (lo, hi) = (d.lo(), d.hi());
        match d.explode {
            None => (lo, hi),
            // At most its depth more rolls, each within the faces.
            Some(_) => {
                let rolls = i64::from(d.depth) + 1;
                (
                    lo.min(lo.saturating_mul(rolls)),
                    hi.max(hi.saturating_mul(rolls)),
                )
            }
        }
    };
    Some(PoolIn {
        groups: spec.groups.iter().map(|(n, d)| (*n, span(d))).collect(),
    })
}

fn total(spec: &PoolSpec) -> u32 {
    spec.groups.iter().map(|(n, _)| n).sum()
}

/// A source over pool `pool` of the pass: the pool's own keep (a variable bound with a
/// keep holds the kept dice), then `read` (a read's keep of those).
fn source(spec: &PoolSpec, pool: usize, read: Option<(End, u32)>) -> Source {
    let (lo, hi) = face_span(spec);
    let n = total(spec);
    let mut keeps = Vec::new();
    let mut held = n;
    if let Some((end, k)) = spec.keep {
        keeps.push((end, k.min(n), n));
        held = k.min(n);
    }
    if let Some((end, k)) = read {
        keeps.push((end, k.min(held), held));
    }
    Source {
        pool,
        keeps,
        only: None,
        lo,
        hi,
    }
}

fn reading(agg: Agg, spec: &PoolSpec) -> Reading {
    let (lo, hi) = face_span(spec);
    Reading { agg, lo, hi }
}

/// One pool read at once (its keep applied) as a pass: a read no sum or keep pass
/// serves (`straight`, a shape) of more multisets than a walk takes.
pub(super) fn whole(spec: &PoolSpec) -> Option<Pass> {
    let pass = Pass {
        pools: vec![pool_in(spec)?],
        reads: vec![Read::Of(source(spec, 0, None), reading(spec.agg, spec))],
    };
    pass.fits().then_some(pass)
}

/// Two pools die by die (`Node::Versus`: each side's own keep, counted).
pub(super) fn versus(kind: Versus, a: &PoolSpec, b: &PoolSpec, ties: bool) -> Option<Pass> {
    let pass = Pass {
        pools: vec![pool_in(a)?, pool_in(b)?],
        reads: vec![Read::Meet {
            kind,
            a: source(a, 0, None),
            b: source(b, 1, None),
            ties,
            read: None,
        }],
    };
    pass.fits().then_some(pass)
}

/// A meeting of two pools (no pool variable: those are lowered with their `let`).
pub(super) fn meeting(m: &Meeting) -> Option<Pass> {
    let (Side::Pool(a), Side::Pool(b)) = (&m.sides[0], &m.sides[1]) else {
        return None;
    };
    let pass = Pass {
        pools: vec![pool_in(a)?, pool_in(b)?],
        reads: vec![meet(m, source(a, 0, None), source(b, 1, None))],
    };
    pass.fits().then_some(pass)
}

/// A meeting of a pool and a pool variable's dice held (`let p = 4d6 in cancel(p, 3d6
/// explode) highest + p count 6`): the held dice are a pool of dice of one face each, so
/// the pass goes over the rolled side's faces once, not over every pair of its
/// multisets with the dice held. `held` is each side's dice where it is a variable.
pub(super) fn held_meeting(m: &Meeting, held: [Option<&[i64]>; 2]) -> Option<Pass> {
    let mut pools = Vec::new();
    let mut sources = Vec::new();
    for (i, (side, dice)) in m.sides.iter().zip(held).enumerate() {
        match (side, dice) {
            (Side::Pool(p), None) => {
                pools.push(pool_in(p)?);
                sources.push(source(p, i, None));
            }
            // The dice held are the ones the variable kept: no keep left to apply.
            (Side::Var { spec, .. }, Some(dice)) => {
                let mut groups: Vec<(u32, (i64, i64))> = Vec::new();
                for &face in dice {
                    match groups.last_mut() {
                        Some((n, (lo, _))) if *lo == face => *n += 1,
                        _ => groups.push((1, (face, face))),
                    }
                }
                pools.push(PoolIn { groups });
                let (lo, hi) = face_span(spec);
                sources.push(Source {
                    pool: i,
                    keeps: Vec::new(),
                    only: None,
                    lo,
                    hi,
                });
            }
            _ => return None,
        }
    }
    let [a, b]: [Source; 2] = sources.try_into().ok()?;
    let pass = Pass {
        pools,
        reads: vec![meet(m, a, b)],
    };
    pass.fits().then_some(pass)
}

fn meet(m: &Meeting, mut a: Source, mut b: Source) -> Read {
    a.only = m.only[0];
    b.only = m.only[1];
    Read::Meet {
        kind: m.kind,
        a,
        b,
        ties: m.ties,
        read: m.read.map(|agg| reading(agg, m.sides[0].spec())),
    }
}

/// A `let` chain of pool variables lowered: the pass over the variables (and any pool a
/// read sets against them), and for each read of the pass the node it stands for.
pub(super) struct Chain<'n> {
    pub pass: Pass,
    /// The nodes that read the chain's variables.
    pub nodes: Vec<*const Node>,
    /// Which read of the pass each node stands for: the same read written twice (`p
    /// sets 2` in two places of Farkle's score) is one read of the pass.
    pub of: Vec<usize>,
    /// The variables bound, outermost first.
    pub vars: usize,
    pub body: &'n Node,
    /// The pass's pools as written, in its order (the variables', then any a read sets
    /// against them): the integer law makes its dice from them.
    pub specs: Vec<PoolSpec>,
}

/// The chain of pool variables bound at `n` (a `LetPool`) at scope depth `depth`, when
/// every read of them in the body can be lowered.
pub(super) fn chain(n: &Node, depth: usize) -> Option<Chain<'_>> {
    let mut specs: Vec<&PoolSpec> = Vec::new();
    let mut at = n;
    while let Node::LetPool {
        spec,
        body,
        choice: None,
        ..
    } = at
    {
        specs.push(spec);
        at = body;
    }
    let body = at;
    if specs.is_empty() {
        return None;
    }
    let vars = depth..depth + specs.len();
    let mut reads: Vec<(*const Node, Lowering)> = Vec::new();
    let mut ok = true;
    let repeats = has_repeat(body);
    collect(body, &vars, repeats, &mut reads, &mut ok);
    if !ok || reads.is_empty() {
        return None;
    }
    let mut pools = Vec::new();
    for spec in &specs {
        pools.push(pool_in(spec)?);
    }
    let mut out = Vec::new();
    let mut nodes = Vec::new();
    let mut of = Vec::new();
    // The pools a read sets against the variables, in the pass's order after theirs.
    let mut met: Vec<PoolSpec> = Vec::new();
    // The plain reads lowered so far, and each one's place in the pass.
    let mut plain: Vec<(PlainRead, usize)> = Vec::new();
    for (ptr, l) in reads {
        if let Lowering::Var { i, keep, agg } = &l {
            if let Some(&(_, at)) = plain.iter().find(|(k, _)| *k == (*i, *keep, *agg)) {
                nodes.push(ptr);
                of.push(at);
                continue;
            }
            plain.push(((*i, *keep, *agg), out.len()));
        }
        let read = match l {
            Lowering::Var { i, keep, agg } => {
                let spec = specs[i - depth];
                Read::Of(source(spec, i - depth, keep), reading(agg, spec))
            }
            Lowering::Meet(m) => {
                let mut side = |s: &Side, pools: &mut Vec<PoolIn>| -> Option<Source> {
                    match s {
                        Side::Var { i, .. } => Some(source(specs[i - depth], i - depth, None)),
                        Side::Pool(p) => {
                            pools.push(pool_in(p)?);
                            met.push((**p).clone());
                            Some(source(p, pools.len() - 1, None))
                        }
                    }
                };
                let (Some(a), Some(b)) =
                    (side(&m.sides[0], &mut pools), side(&m.sides[1], &mut pools))
                else {
                    return None;
                };
                meet(&m, a, b)
            }
        };
        of.push(out.len());
        out.push(read);
        nodes.push(ptr);
    }
    let pass = Pass { pools, reads: out };
    if !pass.fits() {
        return None;
    }
    let vars = specs.len();
    let specs = specs.into_iter().cloned().chain(met).collect();
    Some(Chain {
        pass,
        nodes,
        of,
        vars,
        body,
        specs,
    })
}

/// A read of a chain's variable as its own: which variable, its keep, its read.
type PlainRead = (usize, Option<(End, u32)>, Agg);

enum Lowering {
    Var {
        i: usize,
        keep: Option<(End, u32)>,
        agg: Agg,
    },
    Meet(Box<Meeting>),
}

fn has_repeat(n: &Node) -> bool {
    let mut found = matches!(n, Node::Repeat(_));
    super::program::each_child(n, &mut |c| found = found || has_repeat(c));
    found
}

/// The reads of the chain's variables in `n`; `ok` turns false at a use that cannot be
/// lowered. A pool set against a variable is rolled once in the pass: only where the
/// body has no `repeat` (whose rounds would each roll it anew).
fn collect(
    n: &Node,
    vars: &std::ops::Range<usize>,
    repeats: bool,
    out: &mut Vec<(*const Node, Lowering)>,
    ok: &mut bool,
) {
    match n {
        Node::PoolVar(r) if vars.contains(&r.i) => {
            if r.rolled.is_some() || r.sized || r.tally.is_some() {
                *ok = false;
            } else {
                out.push((
                    n as *const Node,
                    Lowering::Var {
                        i: r.i,
                        keep: r.keep,
                        agg: r.agg,
                    },
                ));
            }
            return;
        }
        Node::Meeting(m) => {
            let mine = |s: &Side| matches!(s, Side::Var { i, .. } if vars.contains(i));
            let other_var = |s: &Side| matches!(s, Side::Var { i, .. } if !vars.contains(i));
            if m.sides.iter().any(mine) {
                let fresh = m.sides.iter().any(|s| matches!(s, Side::Pool(_)));
                if m.sides.iter().any(other_var) || (fresh && repeats) {
                    *ok = false;
                } else {
                    out.push((n as *const Node, Lowering::Meet(m.clone())));
                }
            }
            return;
        }
        _ => {}
    }
    super::program::each_child(n, &mut |c| collect(c, vars, repeats, out, ok));
}
