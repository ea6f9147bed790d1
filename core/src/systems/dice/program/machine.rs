//! A `repeat` compiled to a table-driven state machine. Walking a round's tree each
//! round (an `allocate` is about fifty nodes a hit) was most of a trial; but a round is
//! arithmetic on a few small state variables plus the dice it rolls. So every state the
//! rounds can reach gets, once at compile, its round worked out as a small decision
//! tree: "roll this pool, then go to state `next[value]`", or straight "go to state N"
//! when the round rolls nothing. A trial still rolls every die the round rolls, in the
//! same order and by the same code as the walk ([`sample_pool`]), so its draws and its
//! result are the walk's, bit for bit; only the arithmetic between the dice is looked up.
//!
//! The states are found by playing every round from every start the `repeat` can have,
//! not from interval bounds: `a = a - (y > x)` reaches 7 values of `a` from 6 before
//! `until a <= 0` stops it, where its bounds say 300.

use super::{bounds, mentions, rolls_dice, sample, sample_pool, Node, PoolSpec, Repeat, Scratch};
use super::{counted, divide, VARS};
use crate::kernels::Rng;
use std::collections::HashMap;

/// Most states one machine tabulates, and most starts; past them the tree is walked.
/// Small on purpose: a table a trial sweeps through out of cache is slower than the
/// walk (a count of 60,000 hit points rose by a d6 a round ran at half the speed).
const MAX_STATES: usize = 1 << 12;
/// Most decision nodes over all states (with `Op` at 24 bytes, 1.5 MB).
const MAX_NODES: usize = 1 << 16;
/// Most values one pool rolled inside a round may read: each is a branch.
const MAX_BRANCH: i64 = 64;
/// Most pools one round may roll to be tabulated.
const MAX_DRAWS: usize = 16;

/// One step of a round's decision tree.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    /// The round is over: the state it leaves.
    Leaf(u32),
    /// Roll `pools[pool]`; its value `v` goes on to `base + (v - lo)`.
    Draw {
        pool: u32,
        lo: i64,
        base: u32,
        len: u32,
    },
}

/// A top-level chain of `let`s whose body is a `repeat`, the `repeat` tabulated.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The `let`s before the `repeat`, at scope depth 0, 1, ...
    lets: Vec<Node>,
    repeat: Repeat,
    /// The scope depths a state is made of: the outer `let`s the rounds or the body
    /// read, then the state variables.
    slots: Vec<usize>,
    /// Each state's values, `slots.len()` a state.
    values: Vec<i64>,
    /// The starts: each slot's lowest value and place value, the state of each.
    lo: Vec<i64>,
    width: Vec<usize>,
    stride: Vec<usize>,
    start: Vec<u32>,
    /// By state: whether `until` holds there.
    done: Vec<bool>,
    /// By state: where its round's decision tree starts in `ops`.
    root: Vec<u32>,
    ops: Vec<Op>,
    pools: Vec<PoolSpec>,
    /// By state: the body's value, when the body rolls nothing and does not read the
    /// rounds played.
    body: Option<Vec<i64>>,
}

/// The states found so far while a machine is made.
struct Found {
    ids: HashMap<Vec<i64>, u32>,
    queue: Vec<u32>,
}

/// Why a round cannot be worked out on given values.
enum Stop {
    /// It rolls this pool next.
    Draw(*const PoolSpec),
    /// It does something no table holds (a pool variable, a nested `repeat`...).
    Unsupported,
}

/// A round evaluated on known values, the pools it rolls read from `script` in order.
struct Scripted<'a> {
    vars: [i64; VARS],
    script: &'a [i64],
    pos: usize,
}

impl Scripted<'_> {
    /// The walk's arithmetic ([`sample`]), exactly: saturating, Euclidean division,
    /// division by 0 is 0.
    fn eval(&mut self, n: &Node, depth: usize) -> Result<i64, Stop> {
        Ok(match n {
            Node::Num(v) => *v,
            Node::Var(i) => self.vars[*i],
            Node::Neg(a) => self.eval(a, depth)?.saturating_neg(),
            Node::Add(a, b) => self.eval(a, depth)?.saturating_add(self.eval(b, depth)?),
            Node::Sub(a, b) => self.eval(a, depth)?.saturating_sub(self.eval(b, depth)?),
            Node::Mul(a, b) => self.eval(a, depth)?.saturating_mul(self.eval(b, depth)?),
            Node::Div(a, b) => {
                let x = self.eval(a, depth)?;
                divide(x, self.eval(b, depth)?)
            }
            Node::Max(a, b) => self.eval(a, depth)?.max(self.eval(b, depth)?),
            Node::Min(a, b) => self.eval(a, depth)?.min(self.eval(b, depth)?),
            Node::Cmp(c, a, b) => {
                let x = self.eval(a, depth)?;
                let y = self.eval(b, depth)?;
                c.holds(x, y) as i64
            }
            Node::Let(bound, body) => {
                self.vars[depth] = self.eval(bound, depth)?;
                self.eval(body, depth + 1)?
            }
            Node::If(c, a, b) => {
                if self.eval(c, depth)? != 0 {
                    self.eval(a, depth)?
                } else {
                    self.eval(b, depth)?
                }
            }
            Node::Pool(p) => self.draw(p)?,
            Node::Counted(c, pools) => {
                let k = self.eval(c, depth)?;
                self.draw(counted(pools, k))?
            }
            _ => return Err(Stop::Unsupported),
        })
    }

    fn draw(&mut self, p: &PoolSpec) -> Result<i64, Stop> {
        let v = *self.script.get(self.pos).ok_or(Stop::Draw(p))?;
        self.pos += 1;
        Ok(v)
    }

    /// A round ([`super::step`]): its `let`s, then each state variable's new value.
    fn step(&mut self, n: &Node, depth: usize, out: &mut Vec<i64>) -> Result<(), Stop> {
        match n {
            Node::Let(bound, body) => {
                self.vars[depth] = self.eval(bound, depth)?;
                self.step(body, depth + 1, out)
            }
            Node::Emit(v) => {
                out.clear();
                for n in v {
                    out.push(self.eval(n, depth)?);
                }
                Ok(())
            }
            _ => Err(Stop::Unsupported),
        }
    }
}

impl Machine {
    /// The machine for `n` when it is `let`s around a `repeat` whose rounds read only
    /// numbers and reach few states; `None` leaves it to the walk.
    pub fn of(n: &Node) -> Option<Machine> {
        let mut lets = Vec::new();
        let mut vars: Vec<(i64, i64)> = Vec::new();
        let mut at = n;
        while let Node::Let(bound, body) = at {
            let b = bounds(bound, &mut vars);
            vars.push(b);
            lets.push((**bound).clone());
            at = body;
        }
        let Node::Repeat(r) = at else {
            return None;
        };
        let d = lets.len();
        let k = r.init.len();
        let rounds = d + k;
        if mentions(&r.until, rounds) || mentions(&r.step, rounds) {
            return None;
        }
        // Tabulate the body too when it is arithmetic on the state alone.
        let body_table = !rolls_dice(&r.body) && !mentions(&r.body, rounds);
        let mut slots: Vec<usize> = (0..d)
            .filter(|&i| {
                mentions(&r.until, i)
                    || mentions(&r.step, i)
                    || (body_table && mentions(&r.body, i))
            })
            .collect();
        slots.extend(d..d + k);
        // The starts: every value of the outer `let`s read and of each first value.
        let range = |i: usize| {
            if i < d {
                vars[i]
            } else {
                bounds(&r.init[i - d], &mut vars.clone())
            }
        };
        let mut lo = Vec::new();
        let mut width = Vec::new();
        for &i in &slots {
            let (l, h) = range(i);
            lo.push(l);
            width.push(usize::try_from(h.checked_sub(l)?.checked_add(1)?).ok()?);
        }
        let mut stride = vec![0; slots.len()];
        let mut starts = 1usize;
        for i in (0..slots.len()).rev() {
            stride[i] = starts;
            starts = starts.checked_mul(width[i])?;
            if starts > MAX_STATES {
                return None;
            }
        }
        let mut m = Machine {
            lets,
            repeat: (**r).clone(),
            slots,
            values: Vec::new(),
            lo,
            width,
            stride,
            start: Vec::with_capacity(starts),
            done: Vec::new(),
            root: Vec::new(),
            ops: Vec::new(),
            pools: Vec::new(),
            body: None,
        };
        let mut found = Found {
            ids: HashMap::new(),
            queue: Vec::new(),
        };
        for i in 0..starts {
            let v: Vec<i64> = (0..m.slots.len())
                .map(|j| m.lo[j] + ((i / m.stride[j]) % m.width[j]) as i64)
                .collect();
            let id = m.state(v, &mut found)?;
            m.start.push(id);
        }
        m.explore(&mut found, rounds)?;
        if body_table {
            m.tabulate_body(rounds);
        }
        Some(m)
    }

    /// Every state reached from the starts, each with its round's tree, or `None` where
    /// a state's `until` cannot be read.
    fn explore(&mut self, found: &mut Found, rounds: usize) -> Option<()> {
        let mut made: Vec<*const PoolSpec> = Vec::new();
        while let Some(id) = found.queue.pop() {
            let at = id as usize;
            let mut run = Scripted {
                vars: self.vars_of(at),
                script: &[],
                pos: 0,
            };
            let done = match run.eval(&self.repeat.until, rounds + 1) {
                Ok(v) => v != 0,
                Err(_) => return None,
            };
            self.done[at] = done;
            if !done {
                let root = self.root[at];
                self.tree(at, root, &mut Vec::new(), &mut made, found)?;
            }
        }
        Some(())
    }

    /// The body's value at every state, where it is arithmetic on the state alone.
    fn tabulate_body(&mut self, rounds: usize) {
        self.body = (0..self.done.len())
            .map(|at| {
                let mut run = Scripted {
                    vars: self.vars_of(at),
                    script: &[],
                    pos: 0,
                };
                run.eval(&self.repeat.body, rounds + 1).ok()
            })
            // Read by the walk after the rounds when any state's is not arithmetic.
            .collect();
    }

    /// The id of the state of slot values `v`, found now if it is new (its tree still
    /// to make).
    fn state(&mut self, v: Vec<i64>, found: &mut Found) -> Option<u32> {
        if let Some(&id) = found.ids.get(&v) {
            return Some(id);
        }
        let id = self.done.len();
        if id >= MAX_STATES || self.ops.len() >= MAX_NODES {
            return None;
        }
        self.values.extend_from_slice(&v);
        self.done.push(false);
        self.root.push(self.ops.len() as u32);
        self.ops.push(Op::Leaf(id as u32));
        found.ids.insert(v, id as u32);
        found.queue.push(id as u32);
        Some(id as u32)
    }

    /// The scope's values in state `at`, the rest 0.
    fn vars_of(&self, at: usize) -> [i64; VARS] {
        let mut vars = [0i64; VARS];
        let w = self.slots.len();
        for (j, &i) in self.slots.iter().enumerate() {
            vars[i] = self.values[at * w + j];
        }
        vars
    }

    /// The start the trial's values in `vars` give, if it is one of the machine's.
    #[inline]
    fn start_of(&self, vars: &[i64]) -> Option<usize> {
        let mut idx = 0;
        for (j, &i) in self.slots.iter().enumerate() {
            let off = usize::try_from(vars[i].checked_sub(self.lo[j])?).ok()?;
            if off >= self.width[j] {
                return None;
            }
            idx += off * self.stride[j];
        }
        Some(self.start[idx] as usize)
    }

    /// Fill `ops[op]` with the round from state `at` after the pools in `script` read
    /// as they say; `None` when the round rolls what no table holds, or the states or
    /// nodes run past their bounds.
    fn tree(
        &mut self,
        at: usize,
        op: u32,
        script: &mut Vec<i64>,
        made: &mut Vec<*const PoolSpec>,
        found: &mut Found,
    ) -> Option<()> {
        let d = self.lets.len();
        let k = self.repeat.init.len();
        let mut run = Scripted {
            vars: self.vars_of(at),
            script: script.as_slice(),
            pos: 0,
        };
        let mut next = Vec::with_capacity(k);
        match run.step(&self.repeat.step, d + k + 1, &mut next) {
            Ok(()) => {
                let mut vars = run.vars;
                vars[d..d + k].copy_from_slice(&next);
                let v = self.slots.iter().map(|&i| vars[i]).collect();
                self.ops[op as usize] = Op::Leaf(self.state(v, found)?);
                Some(())
            }
            Err(Stop::Unsupported) => None,
            Err(Stop::Draw(p)) => {
                let pool = match made.iter().position(|&q| q == p) {
                    Some(j) => j,
                    None => {
                        // The address only names a pool of `self.repeat`: it is compared,
                        // never read through.
                        let spec = find_pool(&self.repeat.step, p)?;
                        made.push(p);
                        self.pools.push(spec);
                        made.len() - 1
                    }
                };
                let (lo, hi) = super::pool_bounds(&self.pools[pool]);
                if hi.checked_sub(lo)? >= MAX_BRANCH || script.len() >= MAX_DRAWS {
                    return None;
                }
                let base = self.ops.len() as u32;
                let n = (hi - lo + 1) as usize;
                if self.ops.len() + n > MAX_NODES {
                    return None;
                }
                self.ops.extend(std::iter::repeat_n(Op::Leaf(0), n));
                self.ops[op as usize] = Op::Draw {
                    pool: pool as u32,
                    lo,
                    base,
                    len: n as u32,
                };
                for (j, v) in (lo..=hi).enumerate() {
                    script.push(v);
                    let r = self.tree(at, base + j as u32, script, made, found);
                    script.pop();
                    r?;
                }
                Some(())
            }
        }
    }

    /// One trial: the `let`s rolled by the walk, the rounds by the table.
    #[inline]
    pub fn sample(&self, rng: &mut Rng, s: &mut Scratch) -> i64 {
        for (i, b) in self.lets.iter().enumerate() {
            s.vars[i] = sample(b, rng, s, i);
        }
        let r = &self.repeat;
        let d = self.lets.len();
        let k = r.init.len();
        let state = super::init_state(r, rng, s, d);
        super::sample::set_state(&mut s.vars[d..d + k], &state[..k]);
        let Some(mut at) = self.start_of(&s.vars) else {
            // A start past its bounds (none is): walked.
            return super::play_repeat(r, rng, s, d, state, 0);
        };
        let mut round = 0;
        while round < r.limit && !self.done[at] {
            let mut op = self.root[at] as usize;
            at = loop {
                match self.ops[op] {
                    Op::Leaf(next) => break next as usize,
                    Op::Draw {
                        pool,
                        lo,
                        base,
                        len,
                    } => {
                        let v = sample_pool(&self.pools[pool as usize], rng);
                        // A pool reads within its bounds; clamped all the same.
                        op = base as usize + (v - lo).clamp(0, len as i64 - 1) as usize;
                    }
                }
            };
            round += 1;
        }
        if let Some(body) = &self.body {
            return body[at];
        }
        let vars = self.vars_of(at);
        s.vars[d..d + k].copy_from_slice(&vars[d..d + k]);
        s.vars[d + k] = round as i64;
        sample(&r.body, rng, s, d + k + 1)
    }
}

/// The pool at address `p` inside `n`, cloned.
fn find_pool(n: &Node, p: *const PoolSpec) -> Option<PoolSpec> {
    match n {
        Node::Pool(q) if std::ptr::eq(&**q, p) => return Some((**q).clone()),
        Node::Counted(_, pools) => {
            if let Some(q) = pools.iter().find(|q| std::ptr::eq(*q, p)) {
                return Some(q.clone());
            }
        }
        _ => {}
    }
    let mut found = None;
    super::each_child(n, &mut |c| {
        if found.is_none() {
            found = find_pool(c, p);
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::chunk_rng;
    use rand::Rng as _;

    /// The machine against the walk, trial by trial from one generator each: the same
    /// results in the same order, and the generators left in the same place (the same
    /// dice were rolled).
    fn same_as_walk(text: &str) {
        let n = super::super::parse_result(text, &[]).expect(text).0;
        let m = Machine::of(&n).unwrap_or_else(|| panic!("no machine for {text}"));
        same_draws(text, &n, &m);
    }

    fn same_draws(text: &str, n: &Node, m: &Machine) {
        let (mut a, mut b) = (chunk_rng(3, 1), chunk_rng(3, 1));
        let (mut sa, mut sb) = (Scratch::new(), Scratch::new());
        for trial in 0..20_000 {
            let x = m.sample(&mut a, &mut sa);
            let y = sample(n, &mut b, &mut sb, 0);
            assert_eq!(x, y, "{text}: trial {trial}");
        }
        assert_eq!(a.next_u64(), b.next_u64(), "{text}");
    }

    #[test]
    fn a_tabled_repeat_rolls_and_reads_as_the_walk() {
        for text in [
            "repeat hp = 3 until hp <= 0 do hp = hp - (d6 >= 5) then rounds",
            "repeat a = 20, b = 20 until a <= 0 or b <= 0 do let x = 2d6 in let y = 2d6 in a = a - (y > x), b = b - (x > y) limit 300 then a - b",
            "repeat me = 6, foe = 5 until me <= 0 or foe <= 0 do let a = 2d6 in let b = 2d6 in me = me - (b > a), foe = foe - (a > b) then me > 0",
            "repeat k = 1, alive = 1 until not alive do alive = (5d6 count >= 4) >= k, k = k + 1 limit 10 then k - 2",
            "repeat a = 2, b = 2 until a <= 0 or b <= 0 do a = a - ((b)d6 count >= 5), b = b - ((a)d6 count >= 4) then a * 10 + b",
            "let m = d3 + 1 in repeat hp = m * 2 until hp <= 0 do hp = hp - (if hp > 3 then d4 else 1) limit 7 then hp + rounds",
            "allocate(models = 3, wounds = 2, hits = 5, damage = d3) then { killed = killed, wounds_left = wounds_left, lost = lost }",
            "allocate(models = 3, wounds = 2, hits = 4, damage = d3, spill) then { killed = killed, wounds_left = wounds_left, lost = lost }",
            "allocate(models = 2, wounds = 3, hits = d3, damage = 2, hits = 2, damage = d3) then { killed = killed, wounds_left = wounds_left }",
            "allocate(models = 5, wounds = 2, hits = (((10d6 count >= 3)d6 count >= 4)d6 count <= 3), damage = d3, hits = 4, damage = 1) then { killed = killed, wounds_left = wounds_left }",
        ] {
            same_as_walk(text);
        }
    }

    #[test]
    fn what_no_table_holds_is_left_to_the_walk() {
        for text in [
            // Dice in `until`, rounds read by a round, a pool variable in a round.
            "repeat n = 0 until d6 == 6 do n = n + 1 then n",
            "repeat a = 0 until rounds == 2 do let p = 3d6 in a = a + p highest + p lowest then a",
            // A state too wide to tabulate.
            "repeat hp = 0 until hp > 1000000 do hp = hp + 3d100 limit 10000 then hp",
            // States a trial would sweep through out of cache.
            "repeat hp = 0 until hp > 1000000 do hp = hp + d6 limit 10000 then hp",
        ] {
            let n = super::super::parse_compiled(text, &[]).expect(text);
            assert!(Machine::of(&n).is_none(), "{text}");
        }
    }
}
