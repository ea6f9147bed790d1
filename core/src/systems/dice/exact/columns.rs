//! A pool chain's body that rolls no dice, evaluated for every list of its reads'
//! values at once: node by node, each node over a column of values, one per list. The
//! tree walk per list (and a list of steps run per list after it) spent most of its time
//! deciding what each node is, a mispredicted jump per node per list (Farkle's body is
//! sixty nodes, for 462 lists); here each node is decided once and its arithmetic is a
//! loop over the column. Both sides of an `if` are worked out for every list and the
//! condition picks: the language's arithmetic has no error and no effect (`/ 0` is 0,
//! the ends saturate), so a side not taken changes nothing. The same arithmetic as the
//! sampler's walk of the tree, which a test checks on random trees.

use crate::systems::dice::lang::Cmp;
use crate::systems::dice::program::{divide, Node};

/// What the columns are of: the chain's reads by address (`reads[i]` is the
/// `of[i]`th value of a list), the lists, and the `let` values in scope.
pub(super) struct Rows<'a, P = f64, L = Vec<i64>> {
    pub reads: &'a [*const Node],
    pub of: &'a [usize],
    /// Each list of values with its weight (a probability, or ways): the weight is not
    /// read here.
    pub lists: &'a [(L, P)],
    pub scope: &'a [i64],
}

/// `body`'s value at every list of `rows`, in order; None where it holds a node that is
/// not plain arithmetic on `let` values and the chain's reads.
pub(super) fn values<P, L: AsRef<[i64]>>(body: &Node, rows: &Rows<'_, P, L>) -> Option<Vec<i64>> {
    column(body, rows, &mut Vec::new())
}

/// `body`'s value for each value of the `let` just bound (`bound`, its variable the
/// next in scope after `scope`), in order: a `let` whose body rolls nothing, one column
/// for all its values (Torg's bonus chart over the 400-odd sums of its open d20).
/// None as [`values`].
pub(super) fn values_of_let(body: &Node, scope: &[i64], bound: Vec<i64>) -> Option<Vec<i64>> {
    let lists: Vec<(Vec<i64>, ())> = bound.iter().map(|_| (Vec::new(), ())).collect();
    let rows = Rows {
        reads: &[],
        of: &[],
        lists: &lists,
        scope,
    };
    column(body, &rows, &mut vec![bound])
}

/// `f` of `a` and `b`, list by list: `f` a type of its own for each operator, so that
/// the loop is made for it (through a `dyn Fn`, every value was a call, a third of
/// Torg's chart over its 400 sums).
fn pair<P, L: AsRef<[i64]>, F: Fn(i64, i64) -> i64>(
    a: &Node,
    b: &Node,
    f: F,
    rows: &Rows<'_, P, L>,
    lets: &mut Vec<Vec<i64>>,
) -> Option<Vec<i64>> {
    let mut x = column(a, rows, lets)?;
    match b {
        // A number on the right (`c1 * 100`, `m == 6`), the most common shape of a
        // score's arithmetic: no column of it made.
        Node::Num(k) => x.iter_mut().for_each(|x| *x = f(*x, *k)),
        _ => {
            let y = column(b, rows, lets)?;
            x.iter_mut().zip(&y).for_each(|(x, y)| *x = f(*x, *y));
        }
    }
    Some(x)
}

/// `n` over every list; `lets` the columns of the `let`s inside the body, innermost last.
fn column<P, L: AsRef<[i64]>>(
    n: &Node,
    rows: &Rows<'_, P, L>,
    lets: &mut Vec<Vec<i64>>,
) -> Option<Vec<i64>> {
    let len = rows.lists.len();
    Some(match n {
        Node::Num(v) => vec![*v; len],
        Node::Var(i) => match rows.scope.get(*i) {
            Some(v) => vec![*v; len],
            None => lets.get(*i - rows.scope.len())?.clone(),
        },
        Node::Neg(a) => {
            let mut x = column(a, rows, lets)?;
            x.iter_mut().for_each(|x| *x = x.saturating_neg());
            x
        }
        Node::Add(a, b) => pair(a, b, i64::saturating_add, rows, lets)?,
        Node::Sub(a, b) => pair(a, b, i64::saturating_sub, rows, lets)?,
        Node::Mul(a, b) => pair(a, b, i64::saturating_mul, rows, lets)?,
        Node::Div(a, b) => pair(a, b, divide, rows, lets)?,
        Node::Max(a, b) => pair(a, b, i64::max, rows, lets)?,
        Node::Min(a, b) => pair(a, b, i64::min, rows, lets)?,
        // Each comparison its own loop (`Cmp::holds` of a comparison fixed in each),
        // not a match on it for every value.
        Node::Cmp(c, a, b) => {
            macro_rules! each {
                ($($k:ident),*) => {
                    match c {
                        $(Cmp::$k => pair(a, b, |x, y| Cmp::$k.holds(x, y) as i64, rows, lets)?,)*
                    }
                };
            }
            each!(Le, Ge, Lt, Gt, Eq, Ne)
        }
        // A number where it holds (a chart's `if t <= 4 then -8 else ...`): the other
        // side's column with the number put in, no column of the number made.
        Node::If(c, a, b) if matches!(**a, Node::Num(_)) => {
            let Node::Num(k) = **a else { return None };
            let test = column(c, rows, lets)?;
            let mut no = column(b, rows, lets)?;
            for (n, t) in no.iter_mut().zip(&test) {
                if *t != 0 {
                    *n = k;
                }
            }
            no
        }
        Node::If(c, a, b) => {
            let test = column(c, rows, lets)?;
            let mut yes = column(a, rows, lets)?;
            let no = column(b, rows, lets)?;
            for ((y, n), t) in yes.iter_mut().zip(&no).zip(&test) {
                if *t == 0 {
                    *y = *n;
                }
            }
            yes
        }
        Node::Let(bound, body) => {
            let v = column(bound, rows, lets)?;
            lets.push(v);
            let out = column(body, rows, lets);
            lets.pop();
            out?
        }
        _ => {
            let i = rows.reads.iter().position(|&r| std::ptr::eq(r, n))?;
            let at = *rows.of.get(i)?;
            rows.lists
                .iter()
                .map(|(vals, _)| vals.as_ref().get(at).copied().unwrap_or(0))
                .collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Rng;
    use crate::systems::dice::program::{sample, Scratch};

    /// A random tree of numbers, `let` values and reads (`Var`s at and past `depth`
    /// stand for the chain's reads in the walk), with every operator, branch and `let`.
    fn tree(seed: &mut u64, depth: usize, size: u32) -> Node {
        let mut next = |n: u64| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed % n
        };
        if size == 0 || next(4) == 0 {
            return match next(3) {
                0 => Node::Num(next(13) as i64 - 6),
                _ => Node::Var(next(depth as u64) as usize),
            };
        }
        let cmps = [Cmp::Le, Cmp::Ge, Cmp::Lt, Cmp::Gt, Cmp::Eq, Cmp::Ne];
        let kind = next(11);
        let c = cmps[next(6) as usize];
        let mut sub = |d: usize| Box::new(tree(seed, d, size - 1));
        match kind {
            0 => Node::Neg(sub(depth)),
            1 => Node::Add(sub(depth), sub(depth)),
            2 => Node::Sub(sub(depth), sub(depth)),
            3 => Node::Mul(sub(depth), sub(depth)),
            4 => Node::Div(sub(depth), sub(depth)),
            5 => Node::Max(sub(depth), sub(depth)),
            6 => Node::Min(sub(depth), sub(depth)),
            7 | 8 => Node::Cmp(c, sub(depth), sub(depth)),
            9 => Node::If(sub(depth), sub(depth), sub(depth)),
            _ => Node::Let(sub(depth), sub(depth + 1)),
        }
    }

    /// The columns give what the tree walk gives, on a thousand random trees at random
    /// values in scope (the numbers near the ends of `i64` too, where arithmetic
    /// saturates).
    #[test]
    fn the_steps_give_what_the_tree_walk_gives() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..1000 {
            let body = tree(&mut seed, 3, 6);
            // Every `Var(0)` also stands as a read of the chain (a `Var` is read from
            // the scope first, so only where it is the read itself).
            fn zeros(n: &Node, out: &mut Vec<*const Node>) {
                if matches!(n, Node::Var(0)) {
                    out.push(n as *const Node);
                }
                crate::systems::dice::program::each_child(n, &mut |c| zeros(c, out));
            }
            let mut reads = Vec::new();
            zeros(&body, &mut reads);
            let of = vec![0; reads.len()];
            for j in 0..8i64 {
                let values = [j - 3, 2 * j, if j == 7 { i64::MAX } else { -j }];
                // The sampler's walk of the tree, which rolls nothing here: the values
                // in scope are its variables.
                let mut scratch = Scratch::new();
                scratch.vars[..3].copy_from_slice(&values);
                let rng = &mut <Rng as rand::SeedableRng>::seed_from_u64(0);
                let want = sample(&body, rng, &mut scratch, 3);
                let lists = [(values[..1].to_vec(), 1.0)];
                let rows = Rows {
                    reads: &reads,
                    of: &of,
                    lists: &lists,
                    scope: &values,
                };
                let got = super::values(&body, &rows).expect("plain arithmetic");
                assert_eq!(got, [want], "round {round}, {values:?}: {body:?}");
            }
        }
    }
}
