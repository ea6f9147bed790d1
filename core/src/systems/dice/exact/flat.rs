//! A pool chain's body that rolls no dice, flattened once into a list of steps on a
//! stack, then run for every combination of its reads' values. Walking the tree
//! matched, recursed and searched the fixed reads at every node, for every one of
//! hundreds of combinations (Farkle's body is sixty nodes, run 462 times); the list is
//! made once, takes about a third less time, and runs the same arithmetic as the tree
//! walk of `parts::scalar`.

use crate::systems::dice::lang::Cmp;
use crate::systems::dice::program::{divide, Node};

/// One step of a flattened body.
#[derive(Clone, Copy, Debug)]
enum Op {
    Num(i64),
    /// A `let` value in scope, by its depth.
    Var(usize),
    /// The value of the chain's `i`th read.
    Read(usize),
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Cmp(Cmp),
    /// Pops a condition; goes to the step given where it is 0.
    JumpIfZero(usize),
    Jump(usize),
    /// Pops a value into scope (a `let`).
    Bind,
    /// Drops the innermost `let` value.
    Unbind,
    /// An operator whose right side is a number (`c1 * 100`, `m == 6`): one step, not
    /// two, for the most common shape of a score's arithmetic.
    Const(Bin, i64),
    /// A read compared with a number (`p sets 3 == 2`).
    ReadCmp(usize, Cmp, i64),
}

/// An operator on two values.
#[derive(Clone, Copy, Debug)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Cmp(Cmp),
}

impl Bin {
    fn of(self, a: i64, b: i64) -> i64 {
        match self {
            Bin::Add => a.saturating_add(b),
            Bin::Sub => a.saturating_sub(b),
            Bin::Mul => a.saturating_mul(b),
            Bin::Div => divide(a, b),
            Bin::Max => a.max(b),
            Bin::Min => a.min(b),
            Bin::Cmp(c) => c.holds(a, b) as i64,
        }
    }

    /// The operator with its sides swapped, where one is (`3 * x` is `x * 3`, `6 <= x`
    /// is `x >= 6`).
    fn swapped(self) -> Option<Bin> {
        Some(match self {
            Bin::Add | Bin::Mul | Bin::Max | Bin::Min => self,
            Bin::Cmp(c) => Bin::Cmp(match c {
                Cmp::Le => Cmp::Ge,
                Cmp::Ge => Cmp::Le,
                Cmp::Lt => Cmp::Gt,
                Cmp::Gt => Cmp::Lt,
                Cmp::Eq | Cmp::Ne => c,
            }),
            Bin::Sub | Bin::Div => return None,
        })
    }

    fn op(self) -> Op {
        match self {
            Bin::Add => Op::Add,
            Bin::Sub => Op::Sub,
            Bin::Mul => Op::Mul,
            Bin::Div => Op::Div,
            Bin::Max => Op::Max,
            Bin::Min => Op::Min,
            Bin::Cmp(c) => Op::Cmp(c),
        }
    }
}

/// A body as steps.
pub(super) struct Flat {
    ops: Vec<Op>,
}

impl Flat {
    /// `body` flattened, its reads of the chain found by address in `reads` (the `i`th
    /// is the chain's `of[i]`th value); None where it holds a node that is not plain
    /// arithmetic on `let` values and those reads.
    pub(super) fn of(body: &Node, reads: &[*const Node], of: &[usize]) -> Option<Flat> {
        let mut ops = Vec::new();
        flatten(body, reads, &mut ops)?;
        for op in &mut ops {
            if let Op::Read(i) | Op::ReadCmp(i, ..) = op {
                *i = *of.get(*i)?;
            }
        }
        Some(Flat { ops })
    }

    /// The body's value at the reads' values `vals`, with `scope` the `let` values
    /// in scope (given back as it came); `stack` is scratch.
    pub(super) fn run(&self, vals: &[i64], scope: &mut Vec<i64>, stack: &mut Vec<i64>) -> i64 {
        stack.clear();
        let mut at = 0;
        while let Some(&op) = self.ops.get(at) {
            at += 1;
            let two = |stack: &mut Vec<i64>| {
                let b = stack.pop().unwrap_or(0);
                let a = stack.pop().unwrap_or(0);
                (a, b)
            };
            let v = match op {
                Op::Num(v) => v,
                Op::Var(i) => scope.get(i).copied().unwrap_or(0),
                Op::Read(i) => vals.get(i).copied().unwrap_or(0),
                Op::Neg => stack.pop().unwrap_or(0).saturating_neg(),
                Op::Add => {
                    let (a, b) = two(stack);
                    a.saturating_add(b)
                }
                Op::Sub => {
                    let (a, b) = two(stack);
                    a.saturating_sub(b)
                }
                Op::Mul => {
                    let (a, b) = two(stack);
                    a.saturating_mul(b)
                }
                Op::Div => {
                    let (a, b) = two(stack);
                    divide(a, b)
                }
                Op::Max => {
                    let (a, b) = two(stack);
                    a.max(b)
                }
                Op::Min => {
                    let (a, b) = two(stack);
                    a.min(b)
                }
                Op::Cmp(c) => {
                    let (a, b) = two(stack);
                    c.holds(a, b) as i64
                }
                Op::JumpIfZero(to) => {
                    if stack.pop().unwrap_or(0) == 0 {
                        at = to;
                    }
                    continue;
                }
                Op::Jump(to) => {
                    at = to;
                    continue;
                }
                Op::Bind => {
                    scope.push(stack.pop().unwrap_or(0));
                    continue;
                }
                Op::Unbind => {
                    scope.pop();
                    continue;
                }
                Op::Const(b, k) => b.of(stack.pop().unwrap_or(0), k),
                Op::ReadCmp(i, c, k) => c.holds(vals.get(i).copied().unwrap_or(0), k) as i64,
            };
            stack.push(v);
        }
        stack.pop().unwrap_or(0)
    }
}

fn flatten(n: &Node, reads: &[*const Node], ops: &mut Vec<Op>) -> Option<()> {
    let read = |n: &Node| reads.iter().position(|&r| std::ptr::eq(r, n));
    let two = |a: &Node, b: &Node, bin: Bin, ops: &mut Vec<Op>| {
        // A number on the right, or on the left of an operator that can swap: the
        // other side, then the operator with the number.
        let (x, k, bin) = match (a, b, bin.swapped()) {
            (_, Node::Num(k), _) => (a, *k, bin),
            (Node::Num(k), _, Some(swapped)) => (b, *k, swapped),
            _ => {
                flatten(a, reads, ops)?;
                flatten(b, reads, ops)?;
                ops.push(bin.op());
                return Some(());
            }
        };
        match (bin, read(x)) {
            (Bin::Cmp(c), Some(i)) => ops.push(Op::ReadCmp(i, c, k)),
            _ => {
                flatten(x, reads, ops)?;
                ops.push(Op::Const(bin, k));
            }
        }
        Some(())
    };
    match n {
        Node::Num(v) => ops.push(Op::Num(*v)),
        Node::Var(i) => ops.push(Op::Var(*i)),
        Node::Neg(a) => {
            flatten(a, reads, ops)?;
            ops.push(Op::Neg);
        }
        Node::Add(a, b) => two(a, b, Bin::Add, ops)?,
        Node::Sub(a, b) => two(a, b, Bin::Sub, ops)?,
        Node::Mul(a, b) => two(a, b, Bin::Mul, ops)?,
        Node::Div(a, b) => two(a, b, Bin::Div, ops)?,
        Node::Max(a, b) => two(a, b, Bin::Max, ops)?,
        Node::Min(a, b) => two(a, b, Bin::Min, ops)?,
        Node::Cmp(c, a, b) => two(a, b, Bin::Cmp(*c), ops)?,
        Node::If(c, a, b) => {
            flatten(c, reads, ops)?;
            let test = ops.len();
            ops.push(Op::JumpIfZero(0));
            flatten(a, reads, ops)?;
            let skip = ops.len();
            ops.push(Op::Jump(0));
            ops[test] = Op::JumpIfZero(ops.len());
            flatten(b, reads, ops)?;
            ops[skip] = Op::Jump(ops.len());
        }
        Node::Let(bound, body) => {
            flatten(bound, reads, ops)?;
            ops.push(Op::Bind);
            flatten(body, reads, ops)?;
            ops.push(Op::Unbind);
        }
        _ => ops.push(Op::Read(read(n)?)),
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::parts::scalar;
    use super::super::Env;
    use super::*;

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

    /// The steps give what the tree walk gives, on a thousand random trees at random
    /// values in scope (the numbers near the ends of `i64` too, where arithmetic
    /// saturates).
    #[test]
    fn the_steps_give_what_the_tree_walk_gives() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..1000 {
            let body = tree(&mut seed, 3, 6);
            // Every `Var(0)` also stands as a read of the chain, as a read compared with
            // a number is flattened to one step.
            fn zeros(n: &Node, out: &mut Vec<*const Node>) {
                if matches!(n, Node::Var(0)) {
                    out.push(n as *const Node);
                }
                crate::systems::dice::program::each_child(n, &mut |c| zeros(c, out));
            }
            let mut reads = Vec::new();
            zeros(&body, &mut reads);
            let of = vec![0; reads.len()];
            let flat = Flat::of(&body, &reads, &of).expect("plain arithmetic flattens");
            for j in 0..8i64 {
                let values = [j - 3, 2 * j, if j == 7 { i64::MAX } else { -j }];
                let mut env = Env::default();
                for v in values {
                    env.push(v, Vec::new());
                }
                let want = scalar(&body, &mut env);
                let mut scope = values.to_vec();
                let got = flat.run(&values[..1], &mut scope, &mut Vec::new());
                assert_eq!(got, want, "round {round}, {values:?}: {body:?}");
                assert_eq!(scope, values, "the scope comes back as it went");
            }
        }
    }
}
