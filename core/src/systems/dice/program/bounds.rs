//! The smallest and largest value every expression can take, so that Monte Carlo knows its
//! states without the exact distribution.

use super::*;

/// The smallest and largest value an expression can take (`vars`: the bounds of the
/// `let` values in scope), so that Monte Carlo knows its states without the exact
/// distribution.
pub fn bounds(n: &Node, vars: &mut Vec<(i64, i64)>) -> (i64, i64) {
    let span = |a: (i64, i64), b: (i64, i64), f: &dyn Fn(i64, i64) -> i64| {
        let c = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
        (*c.iter().min().unwrap_or(&0), *c.iter().max().unwrap_or(&0))
    };
    match n {
        Node::Num(v) => (*v, *v),
        Node::Var(i) => vars[*i],
        Node::Neg(a) => {
            let (lo, hi) = bounds(a, vars);
            (hi.saturating_neg(), lo.saturating_neg())
        }
        Node::Add(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.saturating_add(y.0), x.1.saturating_add(y.1))
        }
        Node::Sub(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.saturating_sub(y.1), x.1.saturating_sub(y.0))
        }
        Node::Mul(a, b) => span(bounds(a, vars), bounds(b, vars), &|x, y| {
            x.saturating_mul(y)
        }),
        Node::Max(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.max(y.0), x.1.max(y.1))
        }
        Node::Min(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.min(y.0), x.1.min(y.1))
        }
        Node::Div(a, b) => div_bounds(bounds(a, vars), bounds(b, vars)),
        Node::Cmp(..) => (0, 1),
        Node::Emit(_) | Node::Record(_) => (0, 0),
        Node::Counted(c, pools) => {
            let (lo, hi) = bounds(c, vars);
            let last = pools.len() as i64 - 1;
            (lo.clamp(0, last)..=hi.clamp(0, last))
                .map(|n| pool_bounds(counted(pools, n)))
                .fold((i64::MAX, i64::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)))
        }
        Node::Template(t) => template_bounds(t, vars),
        Node::Card(c) => c.range(),
        Node::CountedVar(c, bodies) => {
            let (lo, hi) = bounds(c, vars);
            let last = bodies.len() as i64 - 1;
            (lo.clamp(0, last)..=hi.clamp(0, last))
                .map(|n| bounds(counted(bodies, n), vars))
                .fold((i64::MAX, i64::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)))
        }
        Node::Repeat(r) => {
            let base = vars.len();
            let state = repeat_bounds(r, vars);
            vars.extend_from_slice(&state);
            let out = bounds(&r.body, vars);
            vars.truncate(base);
            out
        }
        Node::Meeting(m) => meeting_bounds(m),
        Node::Versus(kind, a, b, _) => versus_bounds(*kind, a, b),
        Node::Let(bound, body) => {
            let b = bounds(bound, vars);
            vars.push(b);
            let r = bounds(body, vars);
            vars.pop();
            r
        }
        Node::If(_, a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.min(y.0), x.1.max(y.1))
        }
        Node::Pick(p) => {
            let base = vars.len();
            vars.extend(std::iter::repeat_n(p.sides_bounds(), p.roles.len()));
            let r = bounds(&p.body, vars);
            vars.truncate(base);
            r
        }
        Node::LetPool { body, .. } => {
            // The pool's reads carry their own bounds; its slot is a placeholder.
            vars.push((0, 0));
            let r = bounds(body, vars);
            vars.pop();
            r
        }
        Node::PoolVar(r) => pool_var_bounds(r),
        Node::Pool(p) => pool_bounds(p),
    }
}

/// Pools set against each other: counts of the first side's kept dice.
fn versus_bounds(kind: Versus, a: &PoolSpec, b: &PoolSpec) -> (i64, i64) {
    let n = |p: &PoolSpec| {
        p.keep
            .map_or(p.groups.iter().map(|(n, _)| *n as i64).sum(), |(_, k)| {
                k as i64
            })
    };
    match kind {
        Versus::Pairs => (0, n(a).min(n(b))),
        Versus::Beats | Versus::Cancel | Versus::CancelBelow => (0, n(a)),
    }
}

/// A pool variable's read: a keep it rolls may keep from none of the dice to all.
fn pool_var_bounds(r: &PoolRead) -> (i64, i64) {
    let read = |keep, agg| {
        pool_bounds(&PoolSpec {
            keep,
            agg,
            ..(*r.spec).clone()
        })
    };
    match &r.rolled {
        None => read(r.keep.or(r.spec.keep), r.agg),
        // Any keep from no dice to all of them.
        Some(_) => {
            let (a, b) = (read(None, r.agg), read(Some((End::Highest, 0)), r.agg));
            (a.0.min(b.0), a.1.max(b.1))
        }
    }
}

/// A quotient's bounds from its operands' (division rounds down, by 0 gives 0).
fn div_bounds(x: (i64, i64), y: (i64, i64)) -> (i64, i64) {
    if y.0 >= 1 {
        // A divisor of at least 1: rounding down is monotone in both, so the corners.
        let c = [
            x.0.div_euclid(y.0),
            x.0.div_euclid(y.1),
            x.1.div_euclid(y.0),
            x.1.div_euclid(y.1),
        ];
        return (*c.iter().min().unwrap_or(&0), *c.iter().max().unwrap_or(&0));
    }
    // Dividing by 1 or -1 gives the widest result; by 0, 0.
    let (lo, hi) = (x.0.min(x.1.saturating_neg()), x.1.max(x.0.saturating_neg()));
    (lo.min(0), hi.max(0))
}

/// A pool whose numbers are known at the roll.
fn template_bounds(t: &Template, vars: &mut Vec<(i64, i64)>) -> (i64, i64) {
    // A pool's bounds widen with its dice, sides, keep and depth, and do not
    // depend on its faces to compare with: the corners of the numbers' ranges
    // cover every value (an empty pool reads 0).
    let ranges: Vec<(i64, i64)> = t.params.iter().map(|p| bounds(p, vars)).collect();
    let mut out = (i64::MAX, i64::MIN);
    for corner in 0..1usize << ranges.len() {
        let vals: Vec<i64> = ranges
            .iter()
            .enumerate()
            .map(|(j, r)| if corner >> j & 1 == 1 { r.1 } else { r.0 })
            .collect();
        // A spec the compile-time check would refuse reads 0.
        let b = t.spec(&vals).map_or((0, 0), |p| pool_bounds(&p));
        out = (out.0.min(b.0), out.1.max(b.1));
    }
    out
}

/// A meeting of pools, read on the first side's kept dice.
fn meeting_bounds(m: &Meeting) -> (i64, i64) {
    let a = m.sides[0].spec();
    let n = a.kept() as i64;
    let (lo, hi) = face_span(a);
    // Any subset of the first side's kept dice.
    match m.read {
        None | Some(Agg::Count(_)) | Some(Agg::MaxSet) | Some(Agg::Straight) => (0, n),
        Some(Agg::Shape(s)) => s.shape().bounds(n, s.k, (lo, hi)),
        Some(Agg::Tally(t)) => (0, n * (t / 16 - 1)),
        Some(Agg::Highest) | Some(Agg::Lowest) => (lo.min(0), hi.max(0)),
        Some(Agg::Sum) => ((n * lo).min(0), (n * hi).max(0)),
    }
}

/// The most dice a count that is rolled or changes can ask for by its bounds, where
/// that passes the pools made for it (`let hits = 3000d6 count >= 3 in (hits)d6`, a
/// round's state: pools up to [`MAX_ROLLED_DICE`] only, [`pools_for`]), so its exact
/// reach is worked out and a count past them refused,
/// not rolled as fewer dice in both engines alike, a wrong answer no check could see.
/// (`vars`: the bounds of the `let` values in scope, as for [`bounds`].) A pool of
/// several groups whose first count is fixed is not looked at here; it is clamped as
/// the docs say.
pub fn rolled_count_past_limit(n: &Node, vars: &mut Vec<(i64, i64)>) -> Option<i64> {
    // The count's bounds here, against the pools (or bodies) made for it from none: the
    // compiler made them by the bounds it knew then, which for a round's state are
    // none (so 100 of them), though these bounds may be 150.
    let count = match n {
        Node::Counted(c, pools) => Some((bounds(c, vars).1, pools.len())),
        Node::CountedVar(c, bodies) => Some((bounds(c, vars).1, bodies.len())),
        Node::Template(t) if t.fixed.first() == Some(&None) => t
            .params
            .first()
            .map(|c| (bounds(c, vars).1, MAX_COUNTED_DICE as usize + 1)),
        _ => None,
    };
    if let Some((hi, _)) = count.filter(|&(hi, made)| hi >= made as i64) {
        return Some(hi);
    }
    let scoped = |body: &Node, add: Vec<(i64, i64)>, vars: &mut Vec<(i64, i64)>| {
        let base = vars.len();
        vars.extend(add);
        let r = rolled_count_past_limit(body, vars);
        vars.truncate(base);
        r
    };
    match n {
        Node::Let(bound, body) => rolled_count_past_limit(bound, vars).or_else(|| {
            let b = bounds(bound, vars);
            scoped(body, vec![b], vars)
        }),
        Node::LetPool { body, .. } => scoped(body, vec![(0, 0)], vars),
        Node::Pick(p) => {
            let roles = vec![p.sides_bounds(); p.roles.len()];
            scoped(&p.objective, roles.clone(), vars).or_else(|| scoped(&p.body, roles, vars))
        }
        Node::Repeat(r) => repeat_past_limit(r, vars),
        // Only the bodies of the counts it can take: the others are never read.
        Node::CountedVar(c, bodies) => rolled_count_past_limit(c, vars).or_else(|| {
            let (lo, hi) = bounds(c, vars);
            let last = bodies.len() as i64 - 1;
            (lo.clamp(0, last)..=hi.clamp(0, last))
                .find_map(|k| rolled_count_past_limit(counted(bodies, k), vars))
        }),
        _ => {
            let mut found = None;
            each_child(n, &mut |c| {
                if found.is_none() {
                    found = rolled_count_past_limit(c, vars);
                }
            });
            found
        }
    }
}

/// [`rolled_count_past_limit`] of a `repeat`: its start, then its body, condition and
/// rounds with its state's bounds.
pub fn repeat_past_limit(r: &Repeat, vars: &mut Vec<(i64, i64)>) -> Option<i64> {
    let found = r.init.iter().find_map(|i| rolled_count_past_limit(i, vars));
    found.or_else(|| {
        let state = repeat_bounds(r, vars);
        let scoped = |body: &Node, vars: &mut Vec<(i64, i64)>| {
            let base = vars.len();
            vars.extend_from_slice(&state);
            let r = rolled_count_past_limit(body, vars);
            vars.truncate(base);
            r
        };
        scoped(&r.body, vars)
            .or_else(|| scoped(&r.until, vars))
            .or_else(|| scoped(&r.step, vars))
    })
}

/// The bounds of a `repeat`'s state variables and its rounds, as its body sees them:
/// the state's bounds after 0, 1, 2, ... rounds, joined, until they settle or the limit
/// is reached.
pub(super) fn repeat_bounds(r: &Repeat, vars: &mut Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    let init: Vec<(i64, i64)> = r.init.iter().map(|n| bounds(n, vars)).collect();
    let n = init.len();
    let base = vars.len();
    let round = |state: &[(i64, i64)]| {
        vars.extend_from_slice(state);
        vars.push((0, r.limit as i64));
        let next = step_bounds(&r.step, vars);
        vars.truncate(base);
        Some(next)
    };
    let join = |a: &(i64, i64), b: (i64, i64)| Some((a.0.min(b.0), a.1.max(b.1)));
    // A round made for a state the bounds have passed (a guess,
    // `Compiler::repeat_guessed`): a count with no round made for it. Nothing is known
    // of the state.
    let mut state = rounds(init, r.limit, round, join).unwrap_or(vec![(i64::MIN, i64::MAX); n]);
    state.push((0, r.limit as i64));
    state
}

/// A `repeat`'s state after any number of its rounds up to its `limit`, each variable
/// apart: `init`, joined round by round with what `round` gives from the state so far,
/// until a round adds nothing. One walk for each way of telling what a state holds
/// (intervals for [`bounds`], the values themselves for [`super::values`]). `None`
/// where `round` or `join` cannot tell, or a round gives a state of another length (a
/// count with no round made for it).
pub(super) fn rounds<S: PartialEq>(
    init: Vec<S>,
    limit: u32,
    mut round: impl FnMut(&[S]) -> Option<Vec<S>>,
    join: impl Fn(&S, S) -> Option<S>,
) -> Option<Vec<S>> {
    let mut state = init;
    for _ in 0..limit {
        let next = round(&state)?;
        if next.len() != state.len() {
            return None;
        }
        let joined = state
            .iter()
            .zip(next)
            .map(|(a, b)| join(a, b))
            .collect::<Option<Vec<S>>>()?;
        if joined == state {
            break;
        }
        state = joined;
    }
    Some(state)
}

/// The smallest and largest value a pool can read.
pub(super) fn pool_bounds(p: &PoolSpec) -> (i64, i64) {
    if let Some((deck, k)) = p.deck() {
        let n = p.keep.map_or(k, |(_, j)| j) as i64;
        return match p.agg {
            Agg::Count(_) | Agg::MaxSet | Agg::Straight => (0, n),
            Agg::Shape(s) => s.shape().bounds(n, s.k, (deck.lo(), deck.hi())),
            Agg::Tally(t) => (0, n * (t / 16 - 1)),
            Agg::Highest | Agg::Lowest if n == 0 => (0, 0),
            Agg::Highest | Agg::Lowest => (deck.lo(), deck.hi()),
            // The kept cards' sum lies between the sums of the deck's n lowest and n
            // highest cards.
            Agg::Sum => {
                let mut cards = deck.faces.clone();
                cards.sort_unstable();
                let n = n as usize;
                (
                    cards[..n].iter().sum(),
                    cards[cards.len() - n..].iter().sum(),
                )
            }
        };
    }
    // One die: its faces, an explosion chain of up to `depth` more rolls.
    let die = |d: &DieSpec| {
        let (lo, hi) = (d.lo(), d.hi());
        let extra = if d.explode.is_some() {
            d.depth as i64
        } else {
            0
        };
        (lo + extra * lo.min(0), hi + extra * hi.max(0))
    };
    let n: i64 = p.groups.iter().map(|(n, _)| *n as i64).sum();
    let deepest = p.groups.iter().map(|(_, d)| d.depth).max().unwrap_or(0);
    let chain = p.again.map_or(1, |_| deepest as i64 + 1);
    match p.agg {
        Agg::Count(_) => (0, n * chain),
        // Each die at most base - 1 of the symbol.
        Agg::Tally(t) => (0, n * (t / 16 - 1)),
        Agg::MaxSet | Agg::Straight => (0, n),
        Agg::Shape(s) => {
            let lo = p.groups.iter().map(|(_, d)| die(d).0).min().unwrap_or(0);
            let hi = p.groups.iter().map(|(_, d)| die(d).1).max().unwrap_or(0);
            s.shape().bounds(n, s.k, (lo, hi))
        }
        Agg::Highest | Agg::Lowest => {
            let lo = p.groups.iter().map(|(_, d)| die(d).0).min().unwrap_or(0);
            let hi = p.groups.iter().map(|(_, d)| die(d).1).max().unwrap_or(0);
            if n == 0 {
                (0, 0)
            } else {
                (lo, hi)
            }
        }
        Agg::Sum => {
            // Each die's chain of up to `chain` rolls: negative faces can only
            // pull the low end down, positive ones push the high end up.
            let one = |d: &DieSpec| {
                let (lo, hi) = die(d);
                (
                    if lo < 0 { lo * chain } else { lo },
                    if hi > 0 { hi * chain } else { hi },
                )
            };
            match p.keep {
                None => p.groups.iter().fold((0, 0), |acc, (n, d)| {
                    let (lo, hi) = one(d);
                    (acc.0 + *n as i64 * lo, acc.1 + *n as i64 * hi)
                }),
                Some((_, k)) => {
                    let lo = p.groups.iter().map(|(_, d)| one(d).0).min().unwrap_or(0);
                    let hi = p.groups.iter().map(|(_, d)| one(d).1).max().unwrap_or(0);
                    (k as i64 * lo, k as i64 * hi)
                }
            }
        }
    }
}
