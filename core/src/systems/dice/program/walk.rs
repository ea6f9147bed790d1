//! Questions asked of a compiled tree: what it reads, whether it rolls, its children.

use super::*;

/// The children of a node, in order, handed to `$f` as `&` or (with `mut`) `&mut`:
/// one list for both walks, so a new node kind cannot be seen by one and missed by the
/// other.
macro_rules! children {
    ($n:expr, $f:expr $(, $m:tt)?) => {
        match $n {
            Node::Num(_) | Node::Var(_) | Node::Pool(_) | Node::Versus(..) | Node::Meeting(_) => {}
            Node::Neg(a) => $f(a),
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Max(a, b)
            | Node::Min(a, b)
            | Node::Cmp(_, a, b)
            | Node::Let(a, b) => {
                $f(a);
                $f(b);
            }
            Node::LetPool { body, .. } => $f(body),
            Node::Pick(p) => {
                $f(&$($m)? p.objective);
                $f(&$($m)? p.body);
            }
            Node::If(c, a, b) => {
                $f(c);
                $f(a);
                $f(b);
            }
            Node::Repeat(r) => {
                for n in &$($m)? r.init {
                    $f(n);
                }
                $f(&$($m)? r.until);
                $f(&$($m)? r.step);
                $f(&$($m)? r.body);
            }
            Node::Emit(v) | Node::Record(v) => {
                for n in v {
                    $f(n);
                }
            }
            Node::Counted(c, _) => $f(c),
            Node::CountedVar(c, bodies) => {
                $f(c);
                for n in bodies {
                    $f(n);
                }
            }
            Node::Card(c) => {
                for n in &$($m)? c.before {
                    $f(n);
                }
            }
            Node::Template(t) => {
                for n in &$($m)? t.params {
                    $f(n);
                }
            }
            Node::PoolVar(r) => {
                if let Some(p) = &$($m)? r.rolled {
                    if let Some((_, _, k)) = &$($m)? p.keep {
                        $f(k);
                    }
                    if let Some(v) = &$($m)? p.face {
                        $f(v);
                    }
                }
            }
        }
    };
}

impl Node {
    /// The two sides of a binary operator (`+`, `-`, `*`, `/`, `max`, `min`, a
    /// comparison); None for any other node.
    pub fn operands(&self) -> Option<(&Node, &Node)> {
        match self {
            Node::Add(x, y)
            | Node::Sub(x, y)
            | Node::Mul(x, y)
            | Node::Div(x, y)
            | Node::Max(x, y)
            | Node::Min(x, y)
            | Node::Cmp(_, x, y) => Some((x, y)),
            _ => None,
        }
    }
}

/// Every expression directly inside `n`, in order.
pub(crate) fn each_child<'n>(n: &'n Node, f: &mut dyn FnMut(&'n Node)) {
    children!(n, f)
}

/// Every expression directly inside `n`, in the order of [`each_child`], to change.
pub(crate) fn each_child_mut(n: &mut Node, f: &mut dyn FnMut(&mut Node)) {
    children!(n, f, mut)
}

/// Every scope depth `n` names (the variables it reads, the first role a `choose` binds)
/// mapped through `f`: what moving an expression to another depth of scope takes, since
/// a variable is named by its depth. `f` must keep the order of the depths `n` binds
/// itself (they are implied by where `n` is evaluated).
pub(crate) fn relevel(n: &mut Node, f: &dyn Fn(usize) -> usize) {
    match n {
        Node::Var(j) => *j = f(*j),
        Node::PoolVar(r) => r.i = f(r.i),
        Node::Meeting(m) => {
            for s in &mut m.sides {
                if let Side::Var { i, .. } = s {
                    *i = f(*i);
                }
            }
        }
        Node::Pick(p) => p.depth = f(p.depth),
        _ => {}
    }
    each_child_mut(n, &mut |c| relevel(c, f));
}

/// The choices an expression makes (`reroll ... to maximise`), as Markdown: each one's
/// first choice for every roll.
pub fn policy(n: &Node) -> Option<String> {
    fn walk(n: &Node, out: &mut Vec<String>) {
        if let Node::LetPool {
            choice: Some(c), ..
        } = n
        {
            out.push(c.shown.clone());
        }
        each_child(n, &mut |c| walk(c, out));
    }
    let mut found = Vec::new();
    walk(n, &mut found);
    (!found.is_empty()).then(|| found.join("\n"))
}

/// A pool variable read marked as a role of a `choose` (it holds the dice handed to
/// it), with the pool's own lowest and highest face for `count min` and `count max`.
pub(super) fn sized(n: Node, (lo, hi): (i64, i64)) -> Node {
    match n {
        Node::PoolVar(mut r) => {
            r.sized = true;
            (r.lo, r.hi) = (lo, hi);
            Node::PoolVar(r)
        }
        other => other,
    }
}

/// Whether an expression rolls dice of its own.
pub(crate) fn rolls_dice(n: &Node) -> bool {
    let here = matches!(
        n,
        Node::Pool(_)
            | Node::Versus(..)
            | Node::Meeting(_)
            | Node::Counted(..)
            | Node::Template(_)
            | Node::Card(_)
            | Node::CountedVar(..)
            | Node::LetPool { .. }
            | Node::Repeat(_)
            | Node::Pick(_)
    );
    let mut found = here;
    each_child(n, &mut |c| found = found || rolls_dice(c));
    found
}

/// Every distinct way the body reads the pool variable at depth `i`; a read whose
/// numbers are rolled counts as a way of its own each time (it is never one number).
pub(super) fn reads(
    n: &Node,
    i: usize,
    out: &mut Vec<(Option<(End, u32)>, Agg)>,
    rolled: &mut bool,
) {
    // Set against other dice, the variable's dice are read one by one.
    if let Node::Meeting(m) = n {
        if m.sides
            .iter()
            .any(|s| matches!(s, Side::Var { i: j, .. } if *j == i))
        {
            *rolled = true;
        }
    }
    if let Node::PoolVar(r) = n {
        if r.i == i {
            if r.rolled.is_some() {
                *rolled = true;
            } else if !out.contains(&(r.keep, r.agg)) {
                out.push((r.keep, r.agg));
            }
        }
    }
    each_child(n, &mut |c| reads(c, i, out, rolled));
}

/// Whether an expression reads the variable at scope depth `i`.
pub fn mentions(n: &Node, i: usize) -> bool {
    let here = match n {
        Node::Var(j) => *j == i,
        Node::PoolVar(r) => r.i == i,
        Node::Meeting(m) => m
            .sides
            .iter()
            .any(|s| matches!(s, Side::Var { i: j, .. } if *j == i)),
        _ => false,
    };
    let mut found = here;
    each_child(n, &mut |c| found = found || mentions(c, i));
    found
}

/// Turn reads of the pool variable at depth `i` into reads of a number variable.
pub(super) fn to_var(mut n: Node, i: usize) -> Node {
    to_var_in(&mut n, i);
    n
}

/// [`to_var`] in place: the tree's boxes kept, not each moved out and made again. Every
/// child of [`each_child`] is turned, the same children [`reads`] found the reads in
/// (a `choose`'s objective among them).
fn to_var_in(n: &mut Node, i: usize) {
    if matches!(n, Node::PoolVar(r) if r.i == i) {
        *n = Node::Var(i);
        return;
    }
    each_child_mut(n, &mut |c| to_var_in(c, i));
}
