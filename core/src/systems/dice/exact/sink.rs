//! Variable elimination: the tree the exact engine evaluates, with every `let` moved down
//! to the smallest part of its body that reads it.
//!
//! The exact engine goes through a `let` value by value and evaluates the body once per
//! value, so `let a = X in let b = Y in f(a) + g(b)` as written costs |X|·|Y| bodies,
//! where `(let a = X in f(a)) + (let b = Y in g(b))` costs |X| + |Y| and one
//! convolution. The two are the same distribution: given the variables in scope, the
//! parts of an expression that share no variable are independent (every part rolls its
//! own dice), so a variable read by one part only can be summed out inside that part
//! (exact inference that follows a program's independence, as in Holtzen, Van den
//! Broeck and Millstein's Dice language, OOPSLA 2020). The rules, each an equality of
//! distributions:
//!
//! - `let v = X in A op B`, B not reading v: `(let v = X in A) op B` (`op` any binary
//!   operator; `-A`, a rolled count of dice and the branches and condition of an `if`
//!   likewise, when only one of them reads v);
//! - `let v = X in let w = Y(v) in B`, B not reading v: `let w = (let v = X in Y(v)) in
//!   B`: a chain mixes over the value that feeds the next roll, not over its paths
//!   (hits to wounds to saves costs the sum of the steps, not their product);
//! - `let v = X in let w = Y in B`, Y not reading v: `let w = Y in let v = X in B`, so
//!   that v can go on into B.
//!
//! Only the exact engine reads the result: Monte Carlo rolls the program as written.
//! A variable is named by its scope depth, so a part moved out of a `let` is renamed
//! ([`relevel`]).

use super::super::program::{each_child_mut, mentions, relevel, Node};

/// `n` (evaluated with `depth` variables in scope) with its `let`s moved down.
pub fn sunk(n: &Node, depth: usize) -> Node {
    sink(n.clone(), depth)
}

/// Sink every `let` of `n`, innermost first, so that each `let` meets a body already
/// sunk.
fn sink(n: Node, d: usize) -> Node {
    match n {
        Node::Let(bound, body) => {
            let bound = sink(*bound, d);
            let body = sink(*body, d + 1);
            push(d, bound, body)
        }
        Node::LetPool {
            spec,
            offset,
            body,
            choice,
        } => {
            let body = sink(*body, d + 1);
            let pool = Node::LetPool {
                spec,
                offset,
                body: Box::new(Node::Num(0)),
                choice,
            };
            bind(d, Binder::Pool(pool), body)
        }
        Node::Repeat(mut r) => {
            let k = r.init.len();
            r.init = std::mem::take(&mut r.init)
                .into_iter()
                .map(|n| sink(n, d))
                .collect();
            // `step` is the round's `let`s around its `Emit`, read by the repeat as
            // they stand; `until` and `body` see the state and the rounds played.
            r.until = sink(std::mem::replace(&mut r.until, Node::Num(0)), d + k + 1);
            r.body = sink(std::mem::replace(&mut r.body, Node::Num(0)), d + k + 1);
            Node::Repeat(r)
        }
        Node::Pick(mut p) => {
            let roles = p.roles.len();
            p.body = sink(std::mem::replace(&mut p.body, Node::Num(0)), d + roles);
            Node::Pick(p)
        }
        Node::Record(_) | Node::Emit(_) => n,
        mut other => {
            // Every other node evaluates its children where it stands.
            each_child_mut(&mut other, &mut |c| {
                *c = sink(std::mem::replace(c, Node::Num(0)), d);
            });
            other
        }
    }
}

/// `n` moved out of the scope of depth `d`, which it does not read: every depth above
/// `d` (its own variables included) one lower.
fn lower(mut n: Node, d: usize) -> Node {
    relevel(&mut n, &|j| if j > d { j - 1 } else { j });
    n
}

/// `n` moved into a new scope at depth `d`: every depth from `d` up one higher.
fn raise(mut n: Node, d: usize) -> Node {
    relevel(&mut n, &|j| if j >= d { j + 1 } else { j });
    n
}

/// `n` with the variables at depths `d` and `d + 1` named the other way round (both
/// bound outside `n`).
fn swap(mut n: Node, d: usize) -> Node {
    relevel(&mut n, &|j| {
        if j == d {
            d + 1
        } else if j == d + 1 {
            d
        } else {
            j
        }
    });
    n
}

/// What a `let` binds: a value, or a pool of dice read several ways by its body.
enum Binder {
    /// `let v = EXPR`.
    Value(Node),
    /// `let p = DICE`: a [`Node::LetPool`] without its body.
    Pool(Node),
}

impl Binder {
    /// The `let` of this binder around `body`.
    fn around(self, body: Node) -> Node {
        match self {
            Binder::Value(bound) => Node::Let(Box::new(bound), Box::new(body)),
            Binder::Pool(mut n) => {
                if let Node::LetPool { body: b, .. } = &mut n {
                    **b = body;
                }
                n
            }
        }
    }
}

/// `let (depth d) = bound in body`, with `body` already sunk (evaluated at `d + 1`),
/// moved as far down into `body` as the rules allow.
fn push(d: usize, bound: Node, body: Node) -> Node {
    bind(d, Binder::Value(bound), body)
}

/// [`push`] for either binder. A pool variable moves into the part of an operator or
/// branch that reads it, and into the next `let` value that alone reads it; it is not
/// moved below a `let` that does not read it (a chain of pool variables is read in one
/// pass over all their dice, `lower::chain`, which wants them together).
fn bind(d: usize, binder: Binder, body: Node) -> Node {
    let reads = |n: &Node| mentions(n, d);
    if !reads(&body) {
        // Unread and stopping nothing (no chain at its depth, no `repeat` at its
        // limit): nothing to roll for (`let a, b, c = 3d6 in a` reads one die of
        // three, not each of its body's values for every value of the other two).
        // Unread with a stop: kept as written, so that what it stops is reported.
        return match binder {
            Binder::Value(bound) if super::law::stops_nothing(&bound) => lower(body, d),
            binder => binder.around(body),
        };
    }
    macro_rules! binary {
        ($make:expr, $a:expr, $b:expr) => {{
            let (a, b) = (*$a, *$b);
            match (reads(&a), reads(&b)) {
                (true, false) => $make(Box::new(bind(d, binder, a)), Box::new(lower(b, d))),
                (false, true) => $make(Box::new(lower(a, d)), Box::new(bind(d, binder, b))),
                _ => binder.around($make(Box::new(a), Box::new(b))),
            }
        }};
    }
    match body {
        Node::Neg(a) => Node::Neg(Box::new(bind(d, binder, *a))),
        // A rolled count's pools read no variable: the value goes into the count
        // (`let w = ... in (w)d6 count <= 2` is the pools mixed by w's law at once).
        Node::Counted(c, pools) => Node::Counted(Box::new(bind(d, binder, *c)), pools),
        Node::Add(a, b) => binary!(Node::Add, a, b),
        Node::Sub(a, b) => binary!(Node::Sub, a, b),
        Node::Mul(a, b) => binary!(Node::Mul, a, b),
        Node::Div(a, b) => binary!(Node::Div, a, b),
        Node::Max(a, b) => binary!(Node::Max, a, b),
        Node::Min(a, b) => binary!(Node::Min, a, b),
        Node::Cmp(c, a, b) => binary!(|x, y| Node::Cmp(c, x, y), a, b),
        Node::If(c, a, b) => {
            let (c, a, b) = (*c, *a, *b);
            match (reads(&c), reads(&a), reads(&b)) {
                // One part reads the value: it is rolled there (in a branch, only when
                // the branch is taken, which has the same distribution: it is
                // independent of the condition).
                (true, false, false) => Node::If(
                    Box::new(bind(d, binder, c)),
                    Box::new(lower(a, d)),
                    Box::new(lower(b, d)),
                ),
                (false, true, false) => Node::If(
                    Box::new(lower(c, d)),
                    Box::new(bind(d, binder, a)),
                    Box::new(lower(b, d)),
                ),
                (false, false, true) => Node::If(
                    Box::new(lower(c, d)),
                    Box::new(lower(a, d)),
                    Box::new(bind(d, binder, b)),
                ),
                _ => binder.around(Node::If(Box::new(c), Box::new(a), Box::new(b))),
            }
        }
        Node::Let(inner, rest) => {
            let (inner, rest) = (*inner, *rest);
            if !reads(&rest) {
                // Only the next value's roll reads this one: mix over it there.
                let inner = bind(d, binder, inner);
                push(d, inner, lower(rest, d))
            } else if let (false, Binder::Value(bound)) = (reads(&inner), &binder) {
                // The next value is rolled apart from this one: bind it first, so this
                // one can go on into the body.
                let rest = push(d + 1, raise(bound.clone(), d), swap(rest, d));
                Node::Let(Box::new(lower(inner, d)), Box::new(rest))
            } else {
                binder.around(Node::Let(Box::new(inner), Box::new(rest)))
            }
        }
        other => binder.around(other),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::systems::dice::program::parse_result;

    /// xorshift64: the same programs on every machine.
    pub(in super::super) struct Gen(pub(in super::super) u64);
    impl Gen {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// A random expression over the variables `vars` (names in scope), `let`s and
    /// branches most of all: what the rules move.
    pub(in super::super) fn expr(g: &mut Gen, vars: &mut Vec<String>, depth: u32) -> String {
        let leaf = depth == 0 || g.below(5) == 0;
        if leaf {
            return match g.below(7) {
                0..=2 if !vars.is_empty() => vars[g.below(vars.len() as u64) as usize].clone(),
                3 => format!("{}", g.below(5)),
                4 => "d4".into(),
                5 => "2d3".into(),
                _ => "d6".into(),
            };
        }
        match g.below(13) {
            12 => {
                // A pool variable whose dice count is a value, read two ways.
                let n = expr(g, vars, depth - 1);
                let name = format!("v{}", vars.len());
                vars.push(format!("({name} count >= 3)"));
                let body = expr(g, vars, depth - 1);
                vars.pop();
                format!("(let {name} = (max(0, min(3, {n})))d4 in {body} + {name} highest)")
            }
            11 => {
                // Cards dealt in order, the second from what the first left.
                let (a, b) = (format!("v{}", vars.len()), format!("v{}", vars.len() + 1));
                vars.push(a.clone());
                vars.push(b.clone());
                let body = expr(g, vars, depth - 1);
                vars.truncate(vars.len() - 2);
                format!("(let {a}, {b} = deck{{1*2, 2, 3*3}} draw 2 in {body})")
            }
            9 => {
                // A pool variable, read two ways (reads of it are leaves of the body).
                let name = format!("v{}", vars.len());
                vars.push(format!("({name} count >= 3)"));
                let body = expr(g, vars, depth - 1);
                vars.pop();
                let other = expr(g, vars, depth - 1);
                format!("(let {name} = 3d4 in {body} + {name} highest + {other})")
            }
            10 => {
                // A `repeat` whose start and end read the variables in scope.
                let start = expr(g, vars, depth - 1);
                let end = expr(g, vars, depth - 1);
                format!(
                    "(repeat s = min(6, max(0, {start})) until s >= 6 do s = s + d4 \
                     limit 4 then s + {end})"
                )
            }
            0..=2 => {
                let name = format!("v{}", vars.len());
                let bound = expr(g, vars, depth - 1);
                vars.push(name.clone());
                let body = expr(g, vars, depth - 1);
                vars.pop();
                format!("(let {name} = {bound} in {body})")
            }
            3 => format!(
                "(if {} then {} else {})",
                expr(g, vars, depth - 1),
                expr(g, vars, depth - 1),
                expr(g, vars, depth - 1)
            ),
            4 => format!("(-{})", expr(g, vars, depth - 1)),
            5 => {
                // A pool whose count or face is a value.
                let n = expr(g, vars, depth - 1);
                match g.below(2) {
                    0 => format!("((max(0, min(3, {n})))d4 count >= 3)"),
                    _ => format!("(3d4 count >= ({n}))"),
                }
            }
            _ => {
                let op = ["+", "-", "*", "/", ">=", "=="][g.below(6) as usize];
                format!(
                    "({} {op} {})",
                    expr(g, vars, depth - 1),
                    expr(g, vars, depth - 1)
                )
            }
        }
    }

    /// A variable read by one side only is summed out on that side: three dice, each
    /// read through its own formula, are three `let`s side by side, not nested.
    #[test]
    fn independent_lets_end_side_by_side() {
        let (n, _) = parse_result(
            "let a = d10 explode depth 6 in let b = d10 explode depth 6 in \
             let c = d8 explode depth 6 in (a - a / 10) + (b - b / 10) + (c - c / 8)",
            &[],
        )
        .unwrap();
        fn lets_in_lets(n: &crate::systems::dice::program::Node, inside: bool) -> bool {
            use crate::systems::dice::program::{each_child, Node};
            let here = matches!(n, Node::Let(..));
            let mut found = inside && here;
            if let Node::Let(bound, body) = n {
                // A `let` in the bound is a marginal, not a product.
                found = found || lets_in_lets(bound, false) || lets_in_lets(body, true);
                return found;
            }
            each_child(n, &mut |c| found = found || lets_in_lets(c, inside));
            found
        }
        assert!(lets_in_lets(&n, false));
        assert!(!lets_in_lets(&super::sunk(&n, 0), false));
    }
}
