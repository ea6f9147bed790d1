//! The law's entries: in integers first, then in floats. A chain stopped at its depth
//! and a `repeat` stopped at its limit are reported as a
//! mass beside the distribution; the law counts them as it goes, each by the chance of
//! reaching it (a chain: its dice times its chance of rolling on at its last roll; a
//! `repeat`: its last round's ways whose condition does not hold), where that chance
//! is known: below arithmetic, `let`s, branches, rolled counts, rounds, pool variables'
//! bodies and hand-outs, whose every value (state, outcome) the law mixes by its ways;
//! a round's parts, worked out once for a state met again and again, count theirs per
//! unit of the state's chance and again each time it comes (a choice's body by each
//! end's chance). Where a part is worked out once for many values, how often its limit
//! was reached is not known: the law says so ([`First::stopped`]), and the report says
//! the mass was not worked out.

use super::*;

/// What the law found first.
pub struct First {
    /// The distribution: counted, or in floats past the counting's budget.
    pub law: Weights,
    /// Whether a `repeat` came to its limit with ways still going, or a chain was
    /// rolled, where how often is not known: that mass is NaN.
    pub stopped: bool,
    /// The mass of the chains stopped at their depth (NaN: not known).
    pub capped: f64,
    /// The mass of the `repeat`s stopped at their limit before their condition held
    /// (NaN: not known).
    pub unfinished: f64,
    /// The most dice a rolled count came to with some chance past the pools made for
    /// it (0: none did).
    pub past: i64,
}

/// The exact law of `n`, counted in integers: every value with its fraction. An
/// error: refused (a part it does not serve, its budget spent, the run cancelled).
pub fn first_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<First, NoLaw> {
    law_of(n, vs, cancel, whole_law)
}

/// The law in integers ([`first_law`]), or in floats ([`real_law`]) where counting does
/// not serve a part or passes its work: the order every caller takes.
pub fn any_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<First, NoLaw> {
    match first_law(n, vs, cancel) {
        // A refusal for what the roll is (a span, outcomes, states, a part not served,
        // the run stopped) holds in floats too: not worked out twice.
        Err(e @ NoLaw::Refused(why)) if why != Why::Work => Err(e),
        Err(_) => real_law(n, vs, cancel),
        first => first,
    }
}

/// [`first_law`] in floats (plain, then with their own exponent, [`Real`]): no
/// fractions, for what counting in integers gives up on (a fight of 500 rounds,
/// `1000d6 keep highest 500`: 12 ms).
pub fn real_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<First, NoLaw> {
    law_of(n, vs, cancel, floats_law)
}

/// The weights a law is worked out in, and how: [`whole_law`] or [`floats_law`].
type Counting = fn(&Node, Option<&Node>, &Cancel) -> Result<(Weights, Played), NoLaw>;

fn law_of(
    n: &Node,
    vs: Option<&Node>,
    cancel: &Cancel,
    counting: Counting,
) -> Result<First, NoLaw> {
    // As both engines evaluate them: a `let` read on one branch only is moved into it,
    // where its chains are rolled by that branch's chance.
    let (n, vs) = (
        super::super::sunk(n, 0),
        vs.map(|v| super::super::sunk(v, 0)),
    );
    counting(&n, vs.as_ref(), cancel).map(|(law, played)| {
        // NaN where a part was played where how often it is is not known.
        let unfinished = if played.stopped {
            played.unfinished
        } else {
            0.0
        };
        First {
            law,
            stopped: unfinished.is_nan() || played.capped.is_nan(),
            capped: played.capped,
            unfinished,
            past: played.past,
        }
    })
}

/// Whether nothing in `n` stops at a limit whose mass is reported (an explosion or
/// `again` chain at its depth, a `repeat` at its last round): a part that stops nothing
/// has nothing to count again, however it is reached.
pub(in super::super) fn stops_nothing(n: &Node) -> bool {
    let mut ok = !matches!(n, Node::Repeat(_)) && !chains_here(n);
    super::super::super::program::each_child(n, &mut |c| ok = ok && stops_nothing(c));
    ok
}

/// Whether `n` itself rolls dice that start chains (explosions, `again`).
pub(super) fn chains_here(n: &Node) -> bool {
    let chains = pool_chains;
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

/// The bits of the largest chain's own denominator in `n`: a pool's chained dice, each
/// its sides to the power of its rolls (the depth and the first). A guide to the width
/// the law's counts take, never a limit: a wrong guess costs time, not a value.
pub(super) fn chain_bits(n: &Node) -> f64 {
    let pool = |p: &PoolSpec| -> f64 {
        p.groups
            .iter()
            .filter(|(_, d)| p.again.is_some() || d.explode.is_some())
            .map(|(k, d)| {
                f64::from(*k) * f64::from(d.depth + 1) * (d.faces.len().max(1) as f64).log2()
            })
            .sum()
    };
    let here = match n {
        Node::Pool(p) | Node::LetPool { spec: p, .. } => pool(p),
        Node::Counted(_, pools) => pools.iter().map(pool).fold(0.0, f64::max),
        Node::Versus(_, a, b, _) => pool(a).max(pool(b)),
        Node::Meeting(m) => m.sides.iter().map(|s| pool(s.spec())).fold(0.0, f64::max),
        _ => 0.0,
    };
    let mut most = here;
    super::super::super::program::each_child(n, &mut |c| most = most.max(chain_bits(c)));
    most
}

/// Whether the pool's dice start chains.
pub(super) fn pool_chains(p: &PoolSpec) -> bool {
    p.again.is_some() || p.groups.iter().any(|(_, d)| d.explode.is_some())
}

/// A pool's chains stopped at their depth: each die's chance of rolling on, to the
/// power of its rolls (the depth and the first), times its dice. None for a die that
/// both explodes and adds dice, or whose faces the floats refuse.
pub(super) fn pool_capped(p: &PoolSpec) -> Option<f64> {
    groups_capped(&p.groups, p.again)
}

/// [`pool_capped`] of dice in groups, `again` rolling more on its condition.
pub(super) fn groups_capped(groups: &[(u32, DieSpec)], again: Option<Cond>) -> Option<f64> {
    let mut mass = 0.0;
    for (n, d) in groups {
        let on = match (again, d.explode) {
            (Some(c), None) | (None, Some(c)) => c,
            (None, None) => continue,
            (Some(_), Some(_)) => return None,
        };
        let once = DieSpec {
            explode: None,
            ..d.clone()
        };
        let base = die_law::<f64>(&once, &Cancel::default()).ok()?;
        let (lo, hi) = (d.lo(), d.hi());
        let q: f64 = base
            .iter()
            .filter(|(v, _)| on.holds(*v, lo, hi))
            .map(|(_, w)| w / base.den)
            .sum();
        mass += f64::from(*n) * q.powi(d.depth as i32 + 1);
    }
    Some(mass)
}
