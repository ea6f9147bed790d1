//! A pool variable with integer weights: every multiset of its dice with its ways
//! (multinomials of each die's law), those that read alike every way the body reads
//! them taken as one, and the body read once per outcome. `let p = 20d6 in p count 6 + max(p count 4, p count
//! 5) - p count 1` is 53,130 multisets over 6^20, every one counted.

use super::*;
use crate::systems::dice::exact::MAX_OUTCOMES;
use crate::systems::dice::lang::Cond;
use crate::systems::dice::program::choice::Choice;
use crate::systems::dice::program::pick::{self, Picker};
use crate::systems::dice::program::{
    face_span, read_sorted, DieSpec, PoolRead, Scratch, Template, MAX_COUNTED_DICE,
};
use linear::linear_pool;
use std::collections::BTreeMap;
use tally::tallied;

mod linear;
mod tally;

/// A pool variable's outcomes, every way its body reads alike counted as one, and how
/// each is held in scope: a pool read only by sums and counts is held as its reads'
/// values.
pub(super) fn held_outcomes<'a, W: Weight>(
    spec: &'a PoolSpec,
    choice: Option<&'a Choice>,
    b: &mut Budget<'a, W>,
) -> Result<(std::rc::Rc<Outcomes<W>>, Holding<'a>), NoLaw> {
    // By the pool, or an equal one (its reads are part of it: two players' 6d10 read
    // by `maxset` and `mode` are walked once); a choice's by the very pool.
    let found = match choice {
        Some(_) => b.chosen.same(spec).map(|o| (o, false)),
        None => (b.outcomes.alike(spec).map(|o| (o, false)))
            .or_else(|| b.tallies.alike(spec).map(|o| (o, true))),
    };
    let (taken, reads) = match found {
        Some(found) => found,
        None => {
            let reading = Reading::new(spec, By::Reads);
            let tallies = match choice {
                Some(_) => None,
                None => tallied(spec, b)?,
            };
            let reads = tallies.is_some();
            // Each outcome's dice shared (an `Rc`), as the body's reads hold them.
            let shared = |(each, den): Gathered<W>| -> Outcomes<W> {
                (each.into_iter().map(|(d, w)| (d.into(), w)).collect(), den)
            };
            let o = std::rc::Rc::new(match (choice, tallies) {
                (Some(c), _) => shared(chosen(c, b, &reading)?),
                (None, Some(each)) => each,
                (None, None) => shared(outcomes(&reading, b)?),
            });
            let memo = match (reads, choice) {
                (true, _) => &mut b.tallies,
                (false, Some(_)) => &mut b.chosen,
                (false, None) => &mut b.outcomes,
            };
            (memo.keep(spec, o), reads)
        }
    };
    Ok((taken, Holding(reads.then_some(&spec.ways[..]))))
}

/// How a pool variable's outcomes are held: as its fixed reads' values (these reads),
/// or as its dice.
#[derive(Clone, Copy)]
pub(super) struct Holding<'a>(Option<&'a [Way]>);

/// Whether a read adds up die by die over every die (a sum, a count, a symbol's count).
fn adds_up((keep, agg): &Way) -> bool {
    keep.is_none() && matches!(agg, Agg::Sum | Agg::Count(_) | Agg::Tally(_))
}

impl<'a> Holding<'a> {
    pub(super) fn held(self, dice: &std::rc::Rc<[i64]>) -> Held<'a> {
        match self.0 {
            Some(ways) => Held::Reads(ways, dice.clone()),
            None => Held::Dice(dice.clone()),
        }
    }
}

/// [`let_pool`]'s one pass over the faces, tried before its multisets are walked, where
/// it is likely the cheaper. None where it is not tried or gives up.
fn pass_first<'a, W: Weight>(
    n: &'a Node,
    spec: &'a PoolSpec,
    body: &'a Node,
    env: &[i64],
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    // Many multisets read a few ways (7d10's 11,440 read by `maxset` and `mode`):
    // one pass face by face holds only what the reads need. Only with nothing in
    // scope, where it is made once: a pool bound inside a round or a `let` would
    // make it again for every state, where its outcomes are kept and met again.
    let rolls = rolled_multisets(spec, b)?;
    // Reads that all add up die by die are counted faster as tallies (see
    // [`tallied`]).
    let tallies = spec.ways.iter().all(adds_up);
    // A body that meets the pool with another rolled there (`beats(p, 4d10)`) is
    // arithmetic once the meeting is a read of the pass (its reads' tallies do not
    // hold the dice a meeting needs).
    if rolls > PASS_PAST
        && env.is_empty()
        && ((!tallies && b.arithmetic(body)) || meets_rolled(body))
    {
        // At most half the work left: past it, the multisets are walked with the rest.
        return chained_within(n, env, 1..=usize::MAX, b.left / 2, b);
    }
    Ok(None)
}

/// The ways of each value of `body` with `spec`'s dice at scope depth `at`.
pub(super) fn let_pool<'a, W: Weight>(
    n: &'a Node,
    spec: &'a PoolSpec,
    choice: Option<&'a Choice>,
    body: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    if choice.is_none() {
        if let Some(law) = linear_pool(n, spec, body, env.len(), b)? {
            return Ok(law);
        }
        if let Some(law) = pass_first(n, spec, body, env, b)? {
            return Ok(law);
        }
    }
    let (taken, held) = match held_outcomes(spec, choice, b) {
        // More multisets than a pool's outcomes may hold: one pass over the faces of
        // every pool bound here may need far fewer states.
        Err(NoLaw::Refused(_)) if choice.is_none() => {
            return chained(n, env, 1..=usize::MAX, b)?.ok_or(NoLaw::Refused(Why::Outcomes));
        }
        o => o?,
    };
    let (outcomes, den) = &*taken;
    // Pool variables bound one inside another walk every combination of their outcomes:
    // past the work left, one multiset pass over them all, or the law gives up now (two
    // players' 5d20 met die by die are 42,504^2 combinations; the pass needs thousands).
    let (combinations, inner) = bound_within(outcomes.len() as u64, body, b)?;
    if combinations > b.left {
        // One multiset pass over them all may need far fewer states.
        if choice.is_none() {
            if let Some(law) = chained(n, env, 2..=usize::MAX, b)? {
                return Ok(law);
            }
        }
        return Err(NoLaw::Spent);
    }
    // Many combinations, each read by the body's meetings of the variables' dice (4d10's
    // 715 multisets with 3d10's 220, set against each other both ways, every pair of
    // sorted dice met twice): one pass over them all meets fewer states. It gets what
    // walking them would cost (a few units each, at most half the work left); past
    // that, every combination. Without a meeting a combination is a few numbers read,
    // cheaper walked than a pass whose states hold every face's count of both pools
    // (5d6 and 4d6 compared face by face).
    if combinations > PASS_PAST as u64 * 10
        && choice.is_none()
        && env.is_empty()
        && !std::ptr::eq(inner, body)
        && meets_held(inner)
    {
        let given = (b.left / 2).min(combinations.saturating_mul(WALK_UNITS));
        if let Some(law) = chained_within(n, env, 2..=usize::MAX, given, b)? {
            return Ok(law);
        }
    }
    let at = env.len();
    if b.arithmetic(body) {
        // A body that rolls nothing more is a number for each outcome: its ways go
        // straight to that number.
        b.spend(outcomes.len() as u64)?;
        if let Some(law) = by_columns(body, outcomes, den, held, env)? {
            return Ok(law);
        }
        let mut m: Map<i64, W> = Map::default();
        for (dice, w) in outcomes {
            env.push(0);
            b.held.push((at, held.held(dice)));
            let v = number(body, env, &b.held);
            b.held.pop();
            env.pop();
            m.entry(v.ok_or(NoLaw::Refused(Why::Part))?)
                .or_default()
                .add_to(w)?;
        }
        return Law::from_map(m, den.clone());
    }
    if let Some(law) = by_key(body, outcomes, den, held, env, b)? {
        return Ok(law);
    }
    let mut mix = Mixer::new();
    for (dice, w) in outcomes {
        b.spend(1)?;
        // The variable's slot holds no number: its reads find the dice.
        env.push(0);
        b.held.push((at, held.held(dice)));
        let part = b.within(body, w, den, |b| eval(body, env, b));
        b.held.pop();
        env.pop();
        mix.add(w, part?, b)?;
    }
    mix.done(den)
}

/// [`let_pool`]'s arithmetic body for every outcome at once: a column of each read of
/// the pool, one value per outcome, then the body node by node over the columns
/// ([`columns`](super::super::columns)), not walked as a tree once per outcome
/// (Farkle's sixty nodes for each of 6d6's 462 throws: most of its time). None where
/// the body reads more than this pool's fixed reads and the numbers in scope (another
/// pool held, a meeting, a read whose face or keep count is a number of the body's).
fn by_columns<W: Weight>(
    body: &Node,
    outcomes: &[(std::rc::Rc<[i64]>, W)],
    den: &W,
    holding: Holding,
    env: &[i64],
) -> Result<Option<Law<W>>, NoLaw> {
    let Some(mut columns) = columns_of(&[body], outcomes, holding, env) else {
        return Ok(None);
    };
    let values = columns.swap_remove(0);
    let mut m: Map<i64, W> = Map::default();
    for (v, (_, w)) in values.into_iter().zip(outcomes) {
        m.entry(v).or_default().add_to(w)?;
    }
    Law::from_map(m, den.clone()).map(Some)
}

/// Each of `roots` (arithmetic on the pool variable's fixed reads and the numbers in
/// scope, evaluated where the pool's body is) over every outcome: a column each, one
/// value per outcome. None as [`by_columns`].
fn columns_of<W>(
    roots: &[&Node],
    outcomes: &[(std::rc::Rc<[i64]>, W)],
    holding: Holding,
    env: &[i64],
) -> Option<Vec<Vec<i64>>> {
    /// A fixed read of the pool, by its node's address, with what reading it takes.
    type Read = (*const Node, Way, (i64, i64));
    fn collect(n: &Node, at: usize, found: &mut Option<Vec<Read>>) {
        match n {
            Node::PoolVar(r) if r.i == at && r.rolled.is_none() && r.tally.is_none() => {
                if let Some(f) = found {
                    f.push((n as *const Node, (r.keep, r.agg), (r.lo, r.hi)));
                }
                return;
            }
            Node::PoolVar(_) | Node::Meeting(_) => {
                *found = None;
                return;
            }
            _ => {}
        }
        crate::systems::dice::program::each_child(n, &mut |c| collect(c, at, found));
    }
    let at = env.len();
    let mut found = Some(Vec::new());
    for root in roots {
        collect(root, at, &mut found);
    }
    let reads = found?;
    let nodes: Vec<*const Node> = reads.iter().map(|(n, ..)| *n).collect();
    // The pool's own slot holds no number: a placeholder, as in a chain's pass.
    let scope: Vec<i64> = env.iter().copied().chain([0]).collect();
    fn each<P, L: AsRef<[i64]>>(
        roots: &[&Node],
        rows: &super::super::columns::Rows<'_, P, L>,
    ) -> Option<Vec<Vec<i64>>> {
        roots
            .iter()
            .map(|root| super::super::columns::values(root, rows))
            .collect()
    }
    match holding.0 {
        // Held as its reads' values: each read is where it stands among them, read off
        // the outcomes as they are.
        Some(ways) => {
            let at = |(_, way, _): &Read| ways.iter().position(|w| w == way);
            let of = reads.iter().map(at).collect::<Option<Vec<usize>>>()?;
            each(
                roots,
                &super::super::columns::Rows {
                    reads: &nodes,
                    of: &of,
                    lists: outcomes,
                    scope: &scope,
                },
            )
        }
        None => {
            let lists: Vec<(Vec<i64>, ())> = outcomes
                .iter()
                .map(|(held, _)| {
                    let values = reads
                        .iter()
                        .map(|(_, (keep, agg), (lo, hi))| read_sorted(held, *keep, *agg, *lo, *hi));
                    (values.collect(), ())
                })
                .collect();
            let of: Vec<usize> = (0..nodes.len()).collect();
            each(
                roots,
                &super::super::columns::Rows {
                    reads: &nodes,
                    of: &of,
                    lists: &lists,
                    scope: &scope,
                },
            )
        }
    }
}

/// [`let_pool`]'s body `A op B` (or `B` alone) where `A` is arithmetic and `B` rolls
/// dice of its own but reads the pool only through arithmetic parts: `max(1, p count
/// 6) + (p count >= 3 - p count 6)d6 count >= 4`, a count of dice worked out from the
/// reads. Given the values of those parts (the outcome's key), `B` is the same law
/// whatever else the outcome holds, and independent of `A` (its dice are its own); so
/// `B` is evaluated once per key, with any outcome of that key held, and set against the
/// law of `A` over that key's outcomes: 231 outcomes of 20d6 lead to 21 counts of wound
/// dice, where each outcome was a law made, moved and mixed. (Without the `max`, the
/// body adds up die by die: [`linear_pool`] is quicker still.) None where `B` reads the
/// pool otherwise, or each outcome is a key of its own.
fn by_key<'a, W: Weight>(
    body: &'a Node,
    outcomes: &[(std::rc::Rc<[i64]>, W)],
    den: &W,
    holding: Holding<'a>,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let at = env.len();
    // The arithmetic side, whether it is the left one, and the side that rolls.
    let (plain, left, rolls) = match body.operands() {
        Some((x, y)) if b.arithmetic(x) && !b.arithmetic(y) => (Some(x), true, y),
        Some((x, y)) if !b.arithmetic(x) && b.arithmetic(y) => (Some(y), false, x),
        _ => (None, true, body),
    };
    let mut keys = Vec::new();
    if !keyed_reads(rolls, at, b, &mut keys) || keys.is_empty() {
        return Ok(None);
    }
    let roots: Vec<&Node> = plain.into_iter().chain(keys).collect();
    let Some(columns) = columns_of(&roots, outcomes, holding, env) else {
        return Ok(None);
    };
    b.spend(outcomes.len() as u64 * roots.len() as u64)?;
    let (plain_values, key_values) = match plain {
        Some(_) => (Some(&columns[0]), &columns[1..]),
        None => (None, &columns[..]),
    };
    // Each key, in the order first met: an outcome holding it, and each of its outcomes
    // with the value of the arithmetic side there.
    let width = key_values.len();
    let flat: Vec<i64> = (0..outcomes.len())
        .flat_map(|o| key_values.iter().map(move |c| c[o]))
        .collect();
    let mut index: Map<&[i64], usize> = Map::default();
    index.reserve(outcomes.len());
    let mut groups: Vec<Vec<(i64, usize)>> = Vec::new();
    for (o, key) in flat.chunks_exact(width).enumerate() {
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push((plain_values.map_or(0, |c| c[o]), o));
    }
    if groups.len() == outcomes.len() {
        return Ok(None);
    }
    // Each key's part is its share of the whole (the ways of its outcomes over all the
    // outcomes'), so the parts add up as they are: denominators stay the outcomes' times
    // the rolled side's, not grown by every key's own total.
    let one = W::one();
    let mut mix = Mixer::new();
    for group in groups {
        let share = Law::from_values(group.iter().map(|&(v, o)| (v, &outcomes[o].1)), den)?;
        let mut reached = W::default();
        for w in &share.n {
            reached.add_to(w)?;
        }
        let first = group[0].1;
        env.push(0);
        b.held.push((at, holding.held(&outcomes[first].0)));
        let rolled = b.within(rolls, &reached, den, |b| eval(rolls, env, b));
        b.held.pop();
        env.pop();
        let rolled = rolled?;
        match plain {
            // The rolled side alone: by the key's ways.
            None => mix.add(&reached, rolled, b)?,
            Some(_) => {
                let (x, y) = if left {
                    (&share, &rolled)
                } else {
                    (&rolled, &share)
                };
                mix.add(&one, super::binary(body, x, y, b)?, b)?
            }
        }
    }
    mix.done(if plain.is_some() { &one } else { den }).map(Some)
}

/// Whether every read of the pool variable at depth `at` in `n` lies within a part that
/// is arithmetic on the pool's reads and the numbers in scope above it (no `let` of its
/// own, no variable bound below the pool's): those parts pushed to `keys`.
fn keyed_reads<'n, W>(
    n: &'n Node,
    at: usize,
    b: &mut Budget<'_, W>,
    keys: &mut Vec<&'n Node>,
) -> bool {
    if !crate::systems::dice::program::mentions(n, at) {
        return true;
    }
    if b.arithmetic(n) && outer_only(n, at) {
        keys.push(n);
        return true;
    }
    if matches!(n, Node::PoolVar(_) | Node::Meeting(_)) {
        return false;
    }
    let mut all = true;
    crate::systems::dice::program::each_child(n, &mut |c| all = all && keyed_reads(c, at, b, keys));
    all
}

/// Whether `n` binds nothing and reads no variable deeper than `at`: its value is the
/// same wherever it stands below the pool variable at `at`.
fn outer_only(n: &Node, at: usize) -> bool {
    let here = match n {
        Node::Let(..) => false,
        Node::Var(j) => *j <= at,
        Node::PoolVar(r) => r.i <= at,
        _ => true,
    };
    let mut all = here;
    crate::systems::dice::program::each_child(n, &mut |c| all = all && outer_only(c, at));
    all
}

/// The combinations of outcomes of the pool variables bound one inside another from
/// `body` down, `first` of them the outer one's, and the body they lead to.
fn bound_within<'a, W: Weight>(
    first: u64,
    body: &'a Node,
    b: &mut Budget<'a, W>,
) -> Result<(u64, &'a Node), NoLaw> {
    let mut combinations = first;
    let mut inner = body;
    while let Node::LetPool {
        spec, choice, body, ..
    } = inner
    {
        let (more, _) = held_outcomes(spec, choice.as_deref(), b)?;
        combinations = combinations.saturating_mul(more.0.len() as u64);
        inner = body;
    }
    Ok((combinations, inner))
}

/// [`chained`] with at most `given` of the work left, tried before another way: None
/// where it has no pass or spends what it was given (what it spent is spent).
fn chained_within<'a, W: Weight>(
    n: &'a Node,
    env: &[i64],
    pools: std::ops::RangeInclusive<usize>,
    given: u64,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let left = b.left;
    b.left = given.min(left);
    let passed = chained(n, env, pools, b);
    b.left = left - (given.min(left) - b.left);
    match passed {
        Err(NoLaw::Spent) => Ok(None),
        r => r,
    }
}

/// A chain of pool variables bound one inside another (and the pools its reads set
/// against them) whose body is a number of the reads' values: one multiset pass over
/// them all, counted in ways, then the body once per list of the reads' values (two
/// players' 5d20 met die by die both ways: the states the reads need, not 42,504^2
/// combinations). None where the chain's pools are not as many as `pools` says, its
/// body is more than arithmetic on the reads, or there is no such pass.
pub(super) fn chained<'a, W: Weight>(
    n: &'a Node,
    env: &[i64],
    pools: std::ops::RangeInclusive<usize>,
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let Some(chain) = crate::systems::dice::lower::chain(n, env.len()) else {
        return Ok(None);
    };
    // A body that rolls dice of its own is no number of the reads: `columns` says so.
    if !pools.contains(&chain.pass.pools.len())
        || matches!(chain.body, Node::Emit(_) | Node::Record(_))
    {
        return Ok(None);
    }
    let mut dice = Vec::new();
    for spec in &chain.specs {
        for (_, d) in &spec.groups {
            dice.push(faces(&super::die_law(d, b.cancel)?));
        }
    }
    let (joint, den) = match chain.pass.run_ways(&dice, &mut |ops| b.spend(ops)) {
        Err(NoLaw::Refused(_)) => return Ok(None),
        r => r?,
    };
    // The chain's variables hold no number: their slots are placeholders.
    let mut scope = env.to_vec();
    scope.extend(std::iter::repeat_n(0, chain.vars));
    let rows = super::super::columns::Rows {
        reads: &chain.nodes,
        of: &chain.of,
        lists: &joint,
        scope: &scope,
    };
    let law = match super::super::columns::values(chain.body, &rows) {
        Some(values) => {
            let mut m: Map<i64, W> = Map::default();
            for (v, (_, w)) in values.into_iter().zip(&joint) {
                m.entry(v).or_default().add_to(w)?;
            }
            Law::from_map(m, den)?
        }
        // A body that rolls dice of its own (`let a = 12d20 in let b = 12d20 in a
        // highest - b highest + a count 20`, the outer pool's 141 million multisets
        // too many to walk): evaluated once per list of the pass's values.
        None => match each_row(&chain, &joint, &den, env, b)? {
            Some(law) => law,
            None => return Ok(None),
        },
    };
    // The chain's pools after the first (whose chains `open` counted), each rolled
    // once wherever the chain is: not opened on their own, their chains counted here.
    for spec in &chain.specs[1..] {
        b.rolls(spec, || 1.0);
    }
    Ok(Some(law))
}

/// A chain's body for each list of its reads' values, each pool variable held as the
/// values of its reads ([`Held::Row`]), mixed by the list's ways. None where a read is
/// more than a fixed read of one variable (a meeting, a read whose keep is rolled).
fn each_row<'a, W: Weight>(
    chain: &crate::systems::dice::lower::Chain<'a>,
    joint: &[(Vec<i64>, W)],
    den: &W,
    env: &[i64],
    b: &mut Budget<'a, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    /// A fixed read of one variable, by its node's address: (variable, way).
    type Read = (usize, Option<(usize, Way)>);
    fn reads(n: &Node, out: &mut Vec<Read>) {
        let at = n as *const Node as usize;
        match n {
            Node::PoolVar(r) if r.rolled.is_none() && r.tally.is_none() => {
                out.push((at, Some((r.i, (r.keep, r.agg)))));
            }
            Node::PoolVar(_) | Node::Meeting(_) => out.push((at, None)),
            _ => {}
        }
        crate::systems::dice::program::each_child(n, &mut |c| reads(c, out));
    }
    let mut found = Vec::new();
    reads(chain.body, &mut found);
    let at = env.len();
    // Per variable: the ways it is read, and where each value stands in a list.
    let mut per_var: Vec<(Vec<Way>, Vec<usize>)> = vec![(Vec::new(), Vec::new()); chain.vars];
    for (j, &node) in chain.nodes.iter().enumerate() {
        let Some(&(_, Some((i, way)))) = found.iter().find(|(a, _)| *a == node as usize) else {
            return Ok(None);
        };
        let Some(var) = i.checked_sub(at).filter(|&v| v < chain.vars) else {
            return Ok(None);
        };
        per_var[var].0.push(way);
        per_var[var].1.push(chain.of[j]);
    }
    let ways: Vec<std::rc::Rc<[Way]>> = per_var.iter().map(|(w, _)| w.as_slice().into()).collect();
    let mut scope = env.to_vec();
    scope.extend(std::iter::repeat_n(0, chain.vars));
    let mut mix = Mixer::new();
    for (row, w) in joint {
        b.spend(1)?;
        for (i, (_, places)) in per_var.iter().enumerate() {
            let values: std::rc::Rc<[i64]> = places.iter().map(|&k| row[k]).collect();
            b.held.push((at + i, Held::Row(ways[i].clone(), values)));
        }
        let part = b.within(chain.body, w, den, |b| eval(chain.body, &mut scope, b));
        b.held.truncate(b.held.len() - chain.vars);
        mix.add(w, part?, b)?;
    }
    mix.done(den).map(Some)
}

/// Dice of one roll handed out to roles (`choose`): every multiset of the dice rolled
/// with its ways, handed out as the sampler hands them out, the body read once per
/// distinct hand-out.
pub(super) fn pick<'a, W: Weight>(
    p: &'a Picker,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let Laid {
        sizes,
        values,
        counts,
        den,
    } = laid_out(&p.groups, b)?;
    // Each roll is handed out every way.
    let ks: Vec<u32> = p.roles.iter().map(|(k, _)| *k).collect();
    let n: u32 = p.groups.iter().map(|(n, _)| n).sum();
    let rolls: f64 = sizes.iter().map(|&(n, s)| multisets(n, s)).product();
    b.spend((rolls * pick::ways(n, &ks) as f64).min(u64::MAX as f64) as u64)?;
    let mut s = Box::new(Scratch::new());
    let mut ends: BTreeMap<Vec<(Vec<i64>, i64)>, W> = BTreeMap::new();
    let mut failed = None;
    walk(&values, &counts, &mut |dice, w| {
        // `walk` lays the dice out group by group.
        let mut all: Vec<pick::Die> = Vec::with_capacity(dice.len());
        let mut at = 0;
        for (k, d) in &p.groups {
            for &v in &dice[at..at + *k as usize] {
                if p.allowed(v, d) {
                    all.push((v, d.faces.len() as i64));
                }
            }
            at += *k as usize;
        }
        p.choose(&mut all, &mut s);
        if let Err(e) = ends.entry(p.read_back(&s)).or_default().add_to(&w) {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    let at = env.len();
    let mut mix = Mixer::new();
    for (roles, w) in ends {
        for (r, (faces, sides)) in roles.into_iter().enumerate() {
            env.push(sides);
            b.held.push((at + r, Held::Dice(faces.into())));
        }
        let part = b.within(&p.body, &w, &den, |b| eval(&p.body, env, b));
        for _ in &p.roles {
            env.pop();
            b.held.pop();
        }
        mix.add(&w, part?, b)?;
    }
    mix.done(&den)
}

/// Whether `n` sets pool variables' dice against each other somewhere.
fn meets_held(n: &Node) -> bool {
    let mut found = held_meeting(n);
    crate::systems::dice::program::each_child(n, &mut |c| found = found || meets_held(c));
    found
}

/// Multisets of a pool past which a pass face by face is tried before walking them.
pub(super) const PASS_PAST: f64 = 2000.0;

/// Work units a combination of pool variables' outcomes takes to walk, about: its body
/// read once, each read a few operations.
const WALK_UNITS: u64 = 8;

/// How many multisets `n` dice of `s` values make: `C(n + s - 1, s - 1)`.
pub(super) fn multisets(n: u32, s: usize) -> f64 {
    let mut c = 1f64;
    for j in 0..(s as u64).saturating_sub(1) {
        c = c * (f64::from(n) + 1.0 + j as f64) / (j as f64 + 1.0);
    }
    c
}

/// Every multiset of a pool's kept dice (ascending) with its ways, once per pool.
pub(super) fn kept<'a, W: Weight>(
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
) -> Result<std::rc::Rc<Outcomes<W>>, NoLaw> {
    if let Some(o) = b.outcomes.same(spec) {
        return Ok(o);
    }
    let reading = Reading::new(spec, By::Kept);
    let (each, den) = outcomes(&reading, b)?;
    let each = each.into_iter().map(|(d, w)| (d.into(), w)).collect();
    Ok(b.outcomes.keep(spec, std::rc::Rc::new((each, den))))
}

/// A pool's outcomes with their ways, and the denominator of them all.
pub(super) type Outcomes<W> = (Vec<(std::rc::Rc<[i64]>, W)>, W);

/// A pool read at once by what no pass of faces reads (a `straight`, a shape, a deck):
/// every multiset (or hand) read as the sampler reads its dice.
pub(super) fn read_whole<'a, W: Weight>(
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    // Past the multisets a walk takes, one pass over the faces holds only what the read
    // needs (`8d20 straight`'s 2.2 million multisets, a few hundred states).
    if spec.deck().is_none()
        && spec.again.is_none()
        && rolled_multisets(spec, b)? > MAX_OUTCOMES as f64
    {
        if let Some(pass) = crate::systems::dice::lower::whole(spec) {
            let dice = spec
                .groups
                .iter()
                .map(|(_, d)| Ok(faces(&super::die(d, b)?)))
                .collect::<Result<Vec<_>, NoLaw>>()?;
            if let Some(law) = one_read(&pass, &dice, b)? {
                return Ok(law.reduced());
            }
        }
    }
    let reading = Reading::new(spec, By::Whole);
    let (outcomes, den) = outcomes(&reading, b)?;
    let mut m: Map<i64, W> = Map::default();
    for (v, w) in outcomes {
        m.entry(v[0]).or_default().add_to(&w)?;
    }
    Ok(Law::from_map(m, den)?.reduced())
}

/// Every multiset of a pool's dice (or hand of its deck), sorted, gathered by what
/// `reading` tells apart: the outcomes with their ways, in the order first met, and the
/// denominator of them all.
fn outcomes<'a, W: Weight>(
    reading: &Reading<'a>,
    b: &mut Budget<'a, W>,
) -> Result<Gathered<W>, NoLaw> {
    let spec = reading.spec;
    // An `again` pool's dice count varies: no multiset of a fixed count holds it.
    if spec.again.is_some() {
        return Err(NoLaw::Refused(Why::Part));
    }
    let mut gather = Gather::new();
    let mut sorted = Vec::new();
    let mut failed = None;
    let mut visit = |dice: &[i64], w: W| {
        if failed.is_some() {
            return;
        }
        sorted.clear();
        sorted.extend_from_slice(dice);
        sorted.sort_unstable();
        if let Err(e) = gather.add(reading, &sorted, w) {
            failed = Some(e);
        }
    };
    let den = match spec.deck() {
        Some((deck, k)) => hands(deck, k, b, &mut visit)?,
        None => dice(spec, b, &mut visit)?,
    };
    match failed {
        Some(e) => Err(e),
        None => Ok((gather.outcomes, den)),
    }
}

/// What tells a pool's rolls apart, two rolls with one key being one outcome, and
/// what the outcome holds.
struct Reading<'s> {
    spec: &'s PoolSpec,
    by: By,
    lo: i64,
    hi: i64,
}

/// The key of a [`Reading`].
enum By {
    /// A pool variable's: the values of its body's fixed reads (the dice kept where it
    /// has none); the outcome holds the dice kept.
    Reads,
    /// The dice kept, held.
    Kept,
    /// The pool's own read, held as its value.
    Whole,
}

impl<'s> Reading<'s> {
    fn new(spec: &'s PoolSpec, by: By) -> Self {
        let (lo, hi) = face_span(spec);
        Reading { spec, by, lo, hi }
    }

    /// The key of the sorted dice `sorted`, written into `out`.
    fn key(&self, sorted: &[i64], out: &mut Vec<i64>) {
        out.clear();
        let spec = self.spec;
        let kept = spec.keep_of(sorted);
        match self.by {
            By::Reads if !spec.ways.is_empty() => {
                let read = |(keep, agg): &Way| read_sorted(kept, *keep, *agg, self.lo, self.hi);
                out.extend(spec.ways.iter().map(read));
            }
            By::Reads | By::Kept => out.extend_from_slice(kept),
            By::Whole => out.push(read_sorted(sorted, spec.keep, spec.agg, self.lo, self.hi)),
        }
    }

    /// What the outcome of the sorted dice `sorted`, of key `key`, holds.
    fn held(&self, sorted: &[i64], key: &[i64]) -> Vec<i64> {
        match self.by {
            By::Whole => key.to_vec(),
            By::Reads | By::Kept => self.spec.keep_of(sorted).to_vec(),
        }
    }
}

/// Outcomes as gathered, each with the dice (or values) it holds and its ways, and the
/// denominator of them all.
pub(super) type Gathered<W> = (Vec<(Vec<i64>, W)>, W);

/// Rolls gathered into outcomes by their key, each outcome holding the dice kept of
/// the first roll with it. A key is written into one buffer and copied only when it
/// is new: thousands of multisets fall into a few dozen outcomes (6d10 read by
/// `maxset` and `mode`: 5,005 into 51), and three lists made for each were a fifth of
/// a contest of two such pools.
struct Gather<W> {
    index: Map<Vec<i64>, usize>,
    outcomes: Vec<(Vec<i64>, W)>,
    key: Vec<i64>,
}

impl<W: Weight> Gather<W> {
    fn new() -> Self {
        Gather {
            index: Map::default(),
            outcomes: Vec::new(),
            key: Vec::new(),
        }
    }

    fn add(&mut self, reading: &Reading, sorted: &[i64], w: W) -> Result<(), NoLaw> {
        reading.key(sorted, &mut self.key);
        match self.index.get(self.key.as_slice()) {
            Some(&i) => self.outcomes[i].1.add_to(&w),
            None => {
                self.index.insert(self.key.clone(), self.outcomes.len());
                self.outcomes.push((reading.held(sorted, &self.key), w));
                Ok(())
            }
        }
    }
}

/// The dice a choice ends with (`reroll p = 5d6 to maximise ...`), every way counted
/// through the choices its plan made, gathered as [`outcomes`] gathers a roll's.
fn chosen<W: Weight>(
    choice: &Choice,
    b: &mut Budget<W>,
    reading: &Reading,
) -> Result<Gathered<W>, NoLaw> {
    // The plan went through every kept set and its rerolls once already, in floats.
    let (ends, den) = choice.end_ways();
    b.spend(ends.len() as u64)?;
    let mut gather = Gather::new();
    for (dice, w) in ends {
        gather.add(reading, &dice, W::from_big(&w)?)?;
    }
    Ok((gather.outcomes, W::from_big(&den)?))
}

/// As many outcomes as a walk goes through, at most ([`MAX_OUTCOMES`]): `C(n + s - 1, s - 1)` of
/// each group of `n` dice of `s` values, multiplied; each costs its dice, sorted and
/// read (a thousand dice of three faces are half a million multisets of a thousand).
fn within_outcomes<W: Weight>(sizes: &[(u32, usize)], b: &mut Budget<W>) -> Result<(), NoLaw> {
    let count: f64 = sizes.iter().map(|&(n, s)| multisets(n, s)).product();
    if count > MAX_OUTCOMES as f64 {
        return Err(NoLaw::Refused(Why::Outcomes));
    }
    let dice: u64 = sizes.iter().map(|&(n, _)| u64::from(n)).sum();
    b.spend((count as u64).saturating_mul(4 + dice))
}

/// Every multiset of the pool's dice with its ways; the denominator returned.
fn dice<'a, W: Weight>(
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
    visit: &mut dyn FnMut(&[i64], W),
) -> Result<W, NoLaw> {
    let Laid {
        values,
        counts,
        den,
        ..
    } = laid_out(&spec.groups, b)?;
    walk(&values, &counts, visit)?;
    Ok(den)
}

/// A pool's groups laid out for [`walk`]: each group's values with their ways, its dice,
/// how many values it has, and the denominator of every roll.
struct Laid<W> {
    sizes: Vec<(u32, usize)>,
    values: Vec<Vec<(i64, W)>>,
    counts: Vec<u32>,
    den: W,
}

/// [`Laid`] for `groups` of dice, refused where their multisets pass the outcomes'
/// budget ([`within_outcomes`]).
fn laid_out<'a, W: Weight>(
    groups: &'a [(u32, DieSpec)],
    b: &mut Budget<'a, W>,
) -> Result<Laid<W>, NoLaw> {
    let groups: Vec<(u32, Law<W>)> = groups
        .iter()
        .map(|(n, d)| Ok((*n, die(d, b)?)))
        .collect::<Result<_, NoLaw>>()?;
    let sizes: Vec<(u32, usize)> = groups.iter().map(|(n, l)| (*n, l.iter().count())).collect();
    within_outcomes(&sizes, b)?;
    let mut den = W::one();
    for (n, law) in &groups {
        den = den.mul(&law.den.pow(*n)?)?;
    }
    let values = groups
        .iter()
        .map(|(_, l)| l.iter().map(|(v, w)| (v, w.clone())).collect())
        .collect();
    let counts = groups.iter().map(|(n, _)| *n).collect();
    Ok(Laid {
        sizes,
        values,
        counts,
        den,
    })
}

/// Every hand `k` cards of `deck` deal, with its ways: `C(n_v, t_v)` of each card value
/// `v` of `n_v` copies taken `t_v` times, multiplied, over `C(cards, k)`.
fn hands<W: Weight>(
    deck: &DieSpec,
    k: u32,
    b: &mut Budget<W>,
    visit: &mut dyn FnMut(&[i64], W),
) -> Result<W, NoLaw> {
    let mut kinds: Vec<(i64, u32)> = Vec::new();
    let mut cards = deck.faces.clone();
    cards.sort_unstable();
    for c in cards {
        match kinds.last_mut() {
            Some((v, n)) if *v == c => *n += 1,
            _ => kinds.push((c, 1)),
        }
    }
    let total: u32 = kinds.iter().map(|(_, n)| n).sum();
    if k > total {
        return Err(NoLaw::Refused(Why::Part));
    }
    let sizes: Vec<(u32, usize)> = vec![(k, kinds.len())];
    within_outcomes(&sizes, b)?;
    fn choose<W: Weight>(n: u32, r: u32) -> Result<W, NoLaw> {
        let mut c = W::one();
        for i in 0..r {
            c = c.mul_small(u64::from(n - i))?.div_small(u64::from(i + 1));
        }
        Ok(c)
    }
    let mut left = vec![0u32; kinds.len() + 1];
    for i in (0..kinds.len()).rev() {
        left[i] = left[i + 1] + kinds[i].1;
    }
    #[allow(clippy::too_many_arguments)]
    fn go<W: Weight>(
        kinds: &[(i64, u32)],
        left: &[u32],
        i: usize,
        need: u32,
        w: W,
        hand: &mut Vec<i64>,
        visit: &mut dyn FnMut(&[i64], W),
    ) -> Result<(), NoLaw> {
        if need == 0 {
            visit(hand, w);
            return Ok(());
        }
        if i == kinds.len() || left[i] < need {
            return Ok(());
        }
        let (v, n) = kinds[i];
        for take in 0..=n.min(need) {
            if left[i + 1] < need - take {
                continue;
            }
            let start = hand.len();
            hand.extend(std::iter::repeat_n(v, take as usize));
            let ways = w.mul(&choose::<W>(n, take)?)?;
            let r = go(kinds, left, i + 1, need - take, ways, hand, visit);
            hand.truncate(start);
            r?;
        }
        Ok(())
    }
    go(&kinds, &left, 0, k, W::one(), &mut Vec::new(), visit)?;
    choose(total, k)
}

/// A read of the pool variable held at its depth; a read whose keep count or face is a
/// value (`p keep lowest i highest`) once per value it takes.
pub(super) fn read<'a, W: Weight>(
    r: &'a PoolRead,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    // An `again` pool's tally is held as its reads' values: read as one.
    if r.tally.is_some() && r.rolled.is_some() {
        return Err(NoLaw::Refused(Why::Part));
    }
    let held = b
        .held
        .iter()
        .rev()
        .find(|(at, _)| *at == r.i)
        .map(|(_, h)| h.clone())
        .ok_or(NoLaw::Refused(Why::Part))?;
    let Some(rolled) = &r.rolled else {
        return held
            .value(r)
            .map(Law::point)
            .ok_or(NoLaw::Refused(Why::Part));
    };
    let dice = held.dice().ok_or(NoLaw::Refused(Why::Part))?.clone();
    let keep = match &rolled.keep {
        Some((_, _, n)) => Some(eval(n, env, b)?),
        None => None,
    };
    let face = match &rolled.face {
        Some(n) => Some(eval(n, env, b)?),
        None => None,
    };
    let values = |d: &Option<Law<W>>| -> (Vec<(Option<i64>, W)>, W) {
        match d {
            Some(d) => (
                d.iter().map(|(v, w)| (Some(v), w.clone())).collect(),
                d.den.clone(),
            ),
            None => (vec![(None, W::one())], W::one()),
        }
    };
    let ((ks, dk), (fs, df)) = (values(&keep), values(&face));
    b.spend((ks.len() * fs.len()) as u64)?;
    let mut m: Map<i64, W> = Map::default();
    for (k, wk) in &ks {
        for (f, wf) in &fs {
            let (keep, agg) = r.with(*k, *f);
            let v = read_sorted(&dice, keep, agg, r.lo, r.hi);
            m.entry(v).or_default().add_product(wk, wf)?;
        }
    }
    Ok(Law::from_map(m, dk.mul(&df)?)?.reduced())
}

/// Every multiset of the groups' dice (each group's dice spread over its values), with
/// its ways: `C(left, c) w^c` for `c` of a group's `left` dice showing a value of `w`
/// ways.
fn walk<W: Weight>(
    values: &[Vec<(i64, W)>],
    counts: &[u32],
    visit: &mut dyn FnMut(&[i64], W),
) -> Result<(), NoLaw> {
    #[allow(clippy::too_many_arguments)]
    fn go<W: Weight>(
        values: &[Vec<(i64, W)>],
        counts: &[u32],
        g: usize,
        from: usize,
        left: u32,
        w: W,
        dice: &mut Vec<i64>,
        visit: &mut dyn FnMut(&[i64], W),
    ) -> Result<(), NoLaw> {
        if left == 0 {
            return if g + 1 >= values.len() {
                visit(dice, w);
                Ok(())
            } else {
                go(values, counts, g + 1, 0, counts[g + 1], w, dice, visit)
            };
        }
        let vals = &values[g];
        for (v, (x, q)) in vals.iter().enumerate().skip(from) {
            // The last value takes every die left.
            let least = if v + 1 == vals.len() { left } else { 1 };
            let mut binom = W::one();
            let mut power = W::one();
            for c in 1..=left {
                binom = binom
                    .mul_small(u64::from(left - c + 1))?
                    .div_small(u64::from(c));
                power = power.mul(q)?;
                if c < least {
                    continue;
                }
                let start = dice.len();
                dice.extend(std::iter::repeat_n(*x, c as usize));
                let ways = w.mul(&power)?.mul(&binom)?;
                let r = go(values, counts, g, v + 1, left - c, ways, dice, visit);
                dice.truncate(start);
                r?;
            }
        }
        Ok(())
    }
    if values.is_empty() {
        visit(&[], W::one());
        return Ok(());
    }
    go(
        values,
        counts,
        0,
        0,
        counts[0],
        W::one(),
        &mut Vec::new(),
        visit,
    )
}

/// A pool with `again` read at once (`sum`, or `count` of a face): each die starts a
/// chain of its own, a face meeting `c` adding a die, at most the depth's extra dice
/// (the last stands as it falls); the pool's value is the sum of its independent chains.
pub(super) fn again_pool<'a, W: Weight>(
    p: &'a PoolSpec,
    c: Cond,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let mut out = Law::point(0);
    for (n, spec) in &p.groups {
        let (lo, hi) = (spec.lo(), spec.hi());
        let read = |acc: &i64, v: i64| -> i64 {
            acc.saturating_add(match p.agg {
                Agg::Count(cc) => cc.holds(v, lo, hi) as i64,
                _ => v,
            })
        };
        let (chain, den) = again_chain(spec, c, 0, read, b)?;
        let one = Law::from_map(chain, den)?.reduced();
        out = out.add(&one.times(*n, b)?, b)?;
    }
    Ok(out.reduced())
}

/// One die's chain under `again` (a die showing `again`'s condition adds a die), walked
/// to its depth: the ways of what `read` folds over the chain's rolls from `start`,
/// over one denominator.
fn again_chain<'a, K: std::hash::Hash + Eq + Clone, W: Weight>(
    spec: &DieSpec,
    again: Cond,
    start: K,
    read: impl Fn(&K, i64) -> K,
    b: &mut Budget<'a, W>,
) -> Result<(Map<K, W>, W), NoLaw> {
    let base: Law<W> = die_law(
        &DieSpec {
            explode: None,
            ..spec.clone()
        },
        b.cancel,
    )?;
    let (lo, hi) = (spec.lo(), spec.hi());
    // Chains ended so far, over the denominator of one more roll than the chains
    // still going.
    let mut chain: Map<K, W> = Map::default();
    let mut carry: Map<K, W> = Map::from_iter([(start, W::one())]);
    let mut den = W::one();
    for depth in 0..=spec.depth {
        b.spend((carry.len() * base.n.len()) as u64 + 1)?;
        den = den.mul(&base.den)?;
        if depth > 0 {
            for w in chain.values_mut() {
                *w = w.mul(&base.den)?;
            }
        }
        let mut next: Map<K, W> = Map::default();
        for (acc, w) in &carry {
            for (v, q) in base.iter() {
                let total = read(acc, v);
                let to = if again.holds(v, lo, hi) && depth < spec.depth {
                    &mut next
                } else {
                    &mut chain
                };
                to.entry(total).or_default().add_product(w, q)?;
            }
        }
        carry = next;
        if carry.is_empty() {
            break;
        }
    }
    Ok((chain, den))
}

/// A pool whose numbers are rolled first (a step die's sides `d(s)`, a face to count
/// from a `let`, `count == t`): every combination of their values, each the pool it
/// makes, mixed by the combination's ways. Each
/// such pool is made there and then, so it is counted with a budget of its own, the
/// work it spends taken from this one.
pub(super) fn template<'a, W: Weight>(
    t: &'a Template,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let laws = t
        .params
        .iter()
        .map(|p| eval(p, env, b))
        .collect::<Result<Vec<_>, _>>()?;
    let (combos, den) = every_combination(&laws, 1, b)?;
    let mut mix = Mixer::new();
    for (vals, w) in combos {
        // A template's count is clamped to the most a counted pool takes.
        if t.fixed.first() == Some(&None) {
            b.passed(vals[0], MAX_COUNTED_DICE as usize + 1);
        }
        let part = match t.spec(&vals) {
            None => Law::point(0),
            Some(spec) => {
                // Rolled here, by this combination's chance.
                b.rolls(&spec, || super::ratio(&w, &den));
                let mut own = Budget::<W>::new(b.cancel);
                own.left = b.left;
                let law = pool(&spec, &mut own);
                b.left = own.left;
                b.long |= own.long;
                law?
            }
        };
        mix.add(&w, part, b)?;
    }
    mix.done(&den)
}

/// Whether `n` meets a pool variable with a pool rolled there, and rolls nothing else.
fn meets_rolled(n: &Node) -> bool {
    let mut meets = false;
    let mut other = false;
    fn walk(n: &Node, meets: &mut bool, other: &mut bool) {
        match n {
            Node::Meeting(m) if m.sides.iter().any(|s| matches!(s, Side::Var { .. })) => {
                *meets = true;
                return;
            }
            Node::Pool(_) | Node::Counted(..) | Node::Repeat(_) | Node::Template(_) => {
                *other = true;
            }
            _ => {}
        }
        crate::systems::dice::program::each_child(n, &mut |c| walk(c, meets, other));
    }
    walk(n, &mut meets, &mut other);
    meets && !other
}

/// The multisets a pool's dice can show, each die counted by the faces its law takes
/// (an exploding die's whole chain, not its six faces).
pub(super) fn rolled_multisets<'a, W: Weight>(
    spec: &'a PoolSpec,
    b: &mut Budget<'a, W>,
) -> Result<f64, NoLaw> {
    let mut rolls = 1.0;
    for (n, d) in &spec.groups {
        let faces = super::die(d, b)?
            .iter()
            .filter(|(_, w)| !w.is_zero())
            .count();
        rolls *= multisets(*n, faces);
    }
    Ok(rolls)
}

/// A pass of one read run in ways over `dice` (each group's faces): its law. None where
/// the pass refuses (its states, a part it does not read).
pub(super) fn one_read<W: Weight>(
    pass: &crate::systems::dice::multiset::Pass,
    dice: &[crate::systems::dice::multiset::Faces<W>],
    b: &mut Budget<'_, W>,
) -> Result<Option<Law<W>>, NoLaw> {
    let (joint, den) = match pass.run_ways(dice, &mut |ops| b.spend(ops)) {
        Err(NoLaw::Refused(_)) => return Ok(None),
        r => r?,
    };
    let mut m: Map<i64, W> = Map::default();
    for (v, w) in joint {
        m.entry(v[0]).or_default().add_to(&w)?;
    }
    Law::from_map(m, den).map(Some)
}

/// A die's faces with their ways, as a pass in ways takes them.
pub(super) fn faces<W: Weight>(law: &Law<W>) -> crate::systems::dice::multiset::Faces<W> {
    law.iter()
        .filter(|(_, w)| !w.is_zero())
        .map(|(v, w)| (v, w.clone()))
        .collect()
}
