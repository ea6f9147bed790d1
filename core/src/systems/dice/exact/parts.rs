//! What the exact engine knows of each part of the tree it evaluates: a part that rolls
//! no dice is one number given the variables in scope, worked out as a number; a part
//! that rolls dice and reads no variable of its scope is evaluated once, however often
//! a `let` or a branch reaches it.

use super::*;

/// What the exact engine knows of one part of the tree.
pub(super) enum Part {
    /// Rolls no dice: given the variables in scope it is one number, worked out as
    /// one (a body evaluated once per combination of several `let`s read together
    /// costs integer arithmetic, not a distribution per node).
    Scalar,
    /// Rolls dice and reads a variable of its scope: evaluated each time.
    Open,
    /// Rolls dice and reads no variable of its scope, not evaluated yet.
    Closed,
    /// Such a part evaluated: its distribution, and the capped and unfinished mass it
    /// reported at weight 1 (a part inside a `let` or a branch is the same every time
    /// it is reached).
    Done(Dist, f64, f64),
}

/// The distribution of `n` if it is a part that reads no variable of its scope and was
/// evaluated before (what it reported counted again at this weight); evaluated now and
/// kept if it is such a part; None if it is not.
pub(super) fn remembered(
    n: &Node,
    env: &mut Env,
    ledger: &mut Ledger,
) -> Result<Option<Dist>, TooBig> {
    let at = n as *const Node as usize;
    let depth = env.nums.len();
    let part = env.parts.entry(at).or_insert_with(|| {
        if matches!(n, Node::Emit(_) | Node::Record(_)) {
            Part::Open
        } else if !crate::systems::dice::program::rolls_dice(n) {
            Part::Scalar
        } else if reads_below(n, depth) {
            Part::Open
        } else {
            Part::Closed
        }
    });
    match part {
        Part::Open => Ok(None),
        Part::Scalar => Ok(Some(Dist::point(scalar(n, env)))),
        Part::Done(d, capped, unfinished) => {
            let d = d.clone();
            ledger.cap(*capped);
            ledger.unfinished += ledger.weight * *unfinished;
            Ok(Some(d))
        }
        Part::Closed => {
            // Evaluated at weight 1 (marked open meanwhile, so that it is evaluated
            // rather than looked up), what it reports counted at this weight.
            env.parts.insert(at, Part::Open);
            let mut inner = Ledger {
                work: ledger.work,
                cancel: ledger.cancel.clone(),
                ..Ledger::default()
            };
            let d = eval(n, env, &mut inner);
            ledger.work = inner.work;
            ledger.most_dice = ledger.most_dice.max(inner.most_dice);
            let d = d?;
            ledger.cap(inner.capped);
            ledger.unfinished += ledger.weight * inner.unfinished;
            env.parts
                .insert(at, Part::Done(d.clone(), inner.capped, inner.unfinished));
            Ok(Some(d))
        }
    }
}

/// The value of a part that rolls no dice, given the variables in scope: the same
/// arithmetic as the distributions' (saturating, `/` rounding down, by 0 giving 0).
pub(super) fn scalar(n: &Node, env: &mut Env) -> i64 {
    let two = |a: &Node, b: &Node, env: &mut Env| (scalar(a, env), scalar(b, env));
    match n {
        Node::Num(v) => *v,
        Node::Var(i) => env.nums[*i],
        Node::Neg(a) => scalar(a, env).saturating_neg(),
        Node::Add(a, b) => {
            let (x, y) = two(a, b, env);
            x.saturating_add(y)
        }
        Node::Sub(a, b) => {
            let (x, y) = two(a, b, env);
            x.saturating_sub(y)
        }
        Node::Mul(a, b) => {
            let (x, y) = two(a, b, env);
            x.saturating_mul(y)
        }
        Node::Div(a, b) => {
            let (x, y) = two(a, b, env);
            divide(x, y)
        }
        Node::Max(a, b) => {
            let (x, y) = two(a, b, env);
            x.max(y)
        }
        Node::Min(a, b) => {
            let (x, y) = two(a, b, env);
            x.min(y)
        }
        Node::Cmp(c, a, b) => {
            let (x, y) = two(a, b, env);
            c.holds(x, y) as i64
        }
        Node::If(c, a, b) => {
            if scalar(c, env) != 0 {
                scalar(a, env)
            } else {
                scalar(b, env)
            }
        }
        Node::Let(bound, body) => {
            let v = scalar(bound, env);
            env.push(v, Vec::new());
            let r = scalar(body, env);
            env.pop();
            r
        }
        Node::PoolVar(r) => {
            let at = n as *const Node as usize;
            if let Some(&(_, v)) = env.fixed.iter().find(|(k, _)| *k == at) {
                return v;
            }
            let (keep, agg) = match &r.rolled {
                None => (r.keep, r.agg),
                Some(rolled) => {
                    let k = rolled.keep.as_ref().map(|(_, _, k)| scalar(k, env));
                    let f = rolled.face.as_ref().map(|f| scalar(f, env));
                    r.with(k, f)
                }
            };
            r.value(&env.dice[r.i], keep, agg)
        }
        // Every other node rolls dice (see `rolls_dice`).
        _ => unreachable!("a node that rolls dice evaluated as a number"),
    }
}

/// `x / y` rounding down, by 0 giving 0 (and the one quotient past `i64`, `i64::MIN /
/// -1`, saturating).
pub(super) use super::super::program::divide;

/// Whether `n` reads a variable bound below scope depth `depth` (outside it).
fn reads_below(n: &Node, depth: usize) -> bool {
    let here = match n {
        Node::Var(j) => *j < depth,
        Node::PoolVar(r) => r.i < depth,
        Node::Meeting(m) => m
            .sides
            .iter()
            .any(|s| matches!(s, Side::Var { i, .. } if *i < depth)),
        _ => false,
    };
    let mut found = here;
    crate::systems::dice::program::each_child(n, &mut |c| found = found || reads_below(c, depth));
    found
}

/// A pool chain's body that rolls no dice, as one number per combination of its reads'
/// values, summed by value in the order met (the same sums a mixture of points makes):
/// no distribution made and mixed per combination. None where the body rolls dice (or
/// emits a record). `mark` is where the chain's fixed values start.
pub(super) fn by_value(
    chain: &super::super::lower::Chain,
    joint: &[(Vec<i64>, f64)],
    env: &mut Env,
    mark: usize,
) -> Option<Result<Dist, TooBig>> {
    if matches!(chain.body, Node::Emit(_) | Node::Record(_))
        || crate::systems::dice::program::rolls_dice(chain.body)
    {
        return None;
    }
    let mut by: Map<i64, f64> = Map::default();
    let rows = super::columns::Rows {
        reads: &chain.nodes,
        of: &chain.of,
        lists: joint,
        scope: &env.nums,
    };
    match super::columns::values(chain.body, &rows) {
        Some(values) => {
            for (v, (_, p)) in values.into_iter().zip(joint) {
                *by.entry(v).or_default() += p;
            }
        }
        None => {
            for (vals, p) in joint {
                fix(chain, vals, env, mark);
                *by.entry(scalar(chain.body, env)).or_default() += p;
            }
            env.fixed.truncate(mark);
        }
    }
    let (lo, hi) = by
        .keys()
        .fold((i64::MAX, i64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let width = (hi as i128 - lo as i128 + 1).max(1);
    Some(if width > MAX_SPAN as i128 {
        Err(TooBig(format!("a value spans {width} values")))
    } else {
        Ok(Dist::from_map(&by))
    })
}

/// Each read of a pool chain at its value in one combination, `vals` (from `mark` on in
/// the fixed values, where the chain's start).
pub(super) fn fix(chain: &super::super::lower::Chain, vals: &[i64], env: &mut Env, mark: usize) {
    env.fixed.truncate(mark);
    env.fixed.extend(
        chain
            .nodes
            .iter()
            .zip(&chain.of)
            .map(|(&at, &i)| (at as usize, vals[i])),
    );
}
