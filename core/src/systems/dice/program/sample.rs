//! Monte Carlo: the typed program rolled as written, every die by the rules.

use super::*;

/// Read sorted dice: keep from one end, then the aggregate. Shared by the exact
/// engine (over every multiset of a pool variable) and the sampler (over the dice it
/// rolled): it reads dice, it does not roll them.
pub fn read_sorted(dice: &[i64], keep: Option<(End, u32)>, agg: Agg, lo: i64, hi: i64) -> i64 {
    // A keep of more dice than there are keeps them all (a role of a `choose` may hold
    // fewer dice than it asks for).
    let kept = match keep {
        None => dice,
        Some((End::Highest, k)) => &dice[dice.len().saturating_sub(k as usize)..],
        Some((End::Lowest, k)) => &dice[..(k as usize).min(dice.len())],
    };
    match agg {
        Agg::Sum => kept.iter().sum(),
        Agg::Count(c) => kept.iter().filter(|&&v| c.holds(v, lo, hi)).count() as i64,
        Agg::Highest => kept.iter().copied().max().unwrap_or(0),
        Agg::Lowest => kept.iter().copied().min().unwrap_or(0),
        Agg::Tally(t) => tally_sum(kept, t),
        Agg::MaxSet => {
            let (mut best, mut run) = (0i64, 0i64);
            for i in 0..kept.len() {
                run = if i > 0 && kept[i] == kept[i - 1] {
                    run + 1
                } else {
                    1
                };
                best = best.max(run);
            }
            best
        }
        Agg::Straight => straight(kept),
        Agg::Shape(s) => s.shape().of_sorted(kept, s.k),
    }
}

/// The sum of [`lang::tally`] over `dice`: how many of a symbol the faces hold. Each
/// face's count is a digit of its code, the code divided by `base^digit` and taken
/// modulo `base`. The two divisions go by multiplications with reciprocals worked out
/// once per read (exact for codes and divisors below 2^32: Lemire, Kaser and Kurz,
/// "Faster remainder by direct computation", 2019), where a read of five symbol dice
/// spent most of its time dividing. Anything else is divided as [`lang::tally`] does.
fn tally_sum(dice: &[i64], t: i64) -> i64 {
    const SMALL: i64 = 1 << 32;
    let (digit, base) = ((t % 16) as u32, t / 16);
    let place = match base.checked_pow(digit) {
        Some(p) if (2..SMALL).contains(&base) && (1..SMALL).contains(&p) => p as u64,
        _ => return dice.iter().map(|&v| lang::tally(v, t)).sum(),
    };
    // `ceil(2^64 / d)` for a divisor `d` of 2 or more; a place of 1 divides nothing.
    let by_place = (place > 1).then(|| u64::MAX / place + 1);
    let by_base = u64::MAX / base as u64 + 1;
    dice.iter()
        .map(|&v| {
            if !(0..SMALL).contains(&v) {
                return lang::tally(v, t);
            }
            let q = match by_place {
                Some(m) => ((v as u128 * m as u128) >> 64) as u64,
                None => v as u64,
            };
            ((by_base.wrapping_mul(q) as u128 * base as u128) >> 64) as i64
        })
        .sum()
}

/// The longest run of consecutive faces among sorted dice (repeats neither add to a
/// run nor break it).
pub fn straight(sorted: &[i64]) -> i64 {
    let (mut best, mut run) = (0i64, 0i64);
    for i in 0..sorted.len() {
        if i > 0 && sorted[i] == sorted[i - 1] {
            continue;
        }
        run = if i > 0 && sorted[i] == sorted[i - 1].saturating_add(1) {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}

/// A sampler's working memory for one trial: `let` values and pool variables' dice,
/// and the pools of templates already made for the numbers rolled (made once per
/// sampler, not per trial).
pub struct Scratch {
    /// Each `let` value and `repeat` variable in scope, by scope depth.
    pub vars: [i64; VARS],
    /// Grown to what the pool variables rolled need (once per sampler, not per trial).
    pub dice: Vec<i64>,
    /// How many dice each role of a `choose` holds, by scope depth.
    pub lens: [usize; VARS],
    made: std::collections::HashMap<
        (usize, [i64; MAX_PARAMS]),
        Option<PoolSpec>,
        foldhash::fast::FixedState,
    >,
    /// Each `choose` already made on a roll (keyed by the pick's address and its sorted
    /// dice packed): the hand-out is a function of the dice alone, so a roll seen
    /// before is handed out as it was, without weighing every way again.
    pub(super) picks:
        std::collections::HashMap<(usize, u128), [u16; 3], foldhash::fast::FixedState>,
}

/// Pools of templates one sampler keeps; past it they are made afresh.
pub(super) const MADE: usize = 4096;

impl Scratch {
    /// A fresh scratch, for one sampler.
    pub fn new() -> Self {
        Scratch {
            vars: [0; VARS],
            dice: vec![0; BUF],
            lens: [0; VARS],
            made: Default::default(),
            picks: Default::default(),
        }
    }
}

impl Scratch {
    /// Room for `n` dice of pool variables (grown once per sampler as it meets them).
    pub fn room(&mut self, n: usize) {
        if self.dice.len() < n {
            self.dice.resize(n, 0);
        }
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

/// Dice one sampled pool holds on the stack (keep, drop and `maxset` sort them); a
/// larger pool's go in a buffer of their own (its rolling costs more than the
/// allocation).
pub(super) const BUF: usize = 128;

/// `f` on a buffer of `n` dice.
pub(super) fn held<R>(n: usize, f: impl FnOnce(&mut [i64]) -> R) -> R {
    // The buffer is zeroed on every call: a few dice get a few words, not a kilobyte
    // (a trial of one-die reads cleared 1 KB per read).
    if n <= 8 {
        let mut b = [0i64; 8];
        f(&mut b[..n])
    } else if n <= 32 {
        let mut b = [0i64; 32];
        f(&mut b[..n])
    } else if n <= BUF {
        let mut b = [0i64; BUF];
        f(&mut b[..n])
    } else {
        f(&mut vec![0i64; n])
    }
}

/// An operand of an arithmetic node: a number, a variable or a pool read in place, the
/// rest through [`sample`]. Each call site mostly sees one kind of child, so this is a
/// branch the processor predicts per site, where a call of `sample` for a leaf was an
/// indirect jump through its match that it mispredicted (about half the nodes of a
/// round are leaves).
#[inline(always)]
fn operand(n: &Node, rng: &mut Rng, s: &mut Scratch, depth: usize) -> i64 {
    match n {
        Node::Num(v) => *v,
        Node::Var(i) => s.vars[*i],
        Node::Pool(p) => sample_pool(p, rng),
        _ => sample(n, rng, s, depth),
    }
}

/// Roll an expression as written; `s` holds the `let` values and pool variables'
/// dice in scope, `depth` the scope's depth.
pub fn sample(n: &Node, rng: &mut Rng, s: &mut Scratch, depth: usize) -> i64 {
    let x = |n: &Node, rng: &mut Rng, s: &mut Scratch| operand(n, rng, s, depth);
    match n {
        Node::Num(v) => *v,
        Node::Var(i) => s.vars[*i],
        Node::Neg(a) => x(a, rng, s).saturating_neg(),
        // Saturating: a hostile expression cannot overflow; its bounds saturate alike.
        Node::Add(a, b) => x(a, rng, s).saturating_add(x(b, rng, s)),
        Node::Sub(a, b) => x(a, rng, s).saturating_sub(x(b, rng, s)),
        Node::Mul(a, b) => x(a, rng, s).saturating_mul(x(b, rng, s)),
        Node::Div(a, b) => {
            let x0 = x(a, rng, s);
            divide(x0, x(b, rng, s))
        }
        Node::Max(a, b) => x(a, rng, s).max(x(b, rng, s)),
        Node::Min(a, b) => x(a, rng, s).min(x(b, rng, s)),
        Node::Cmp(c, a, b) => {
            let x0 = x(a, rng, s);
            let y = x(b, rng, s);
            c.holds(x0, y) as i64
        }
        Node::Let(..) | Node::LetPool { .. } => {
            let body = bind(n, rng, s, depth);
            sample(body, rng, s, depth + 1)
        }
        Node::Pick(p) => {
            p.play(rng, s);
            sample(&p.body, rng, s, depth + p.roles.len())
        }
        Node::Repeat(r) => sample_repeat(r, rng, s, depth),
        // Read only by `step`; packed before any roll.
        Node::Emit(_) | Node::Record(_) => 0,
        Node::Counted(c, pools) => sample_pool(counted(pools, sample(c, rng, s, depth)), rng),
        Node::Template(t) => sample_template(t, rng, s, depth),
        Node::Card(c) => sample_card(c, rng, s, depth),
        Node::CountedVar(c, bodies) => {
            let k = operand(c, rng, s, depth);
            sample(counted(bodies, k), rng, s, depth)
        }
        Node::PoolVar(r) => {
            let (keep, agg) = match &r.rolled {
                None => (r.keep, r.agg),
                Some(p) => {
                    let k = p.keep.as_ref().map(|(_, _, n)| sample(n, rng, s, depth));
                    let f = p.face.as_ref().map(|n| sample(n, rng, s, depth));
                    r.with(k, f)
                }
            };
            let len = match r.tally {
                Some(_) => MAX_TALLIES,
                None if r.sized => s.lens[r.i],
                None => r.len,
            };
            r.value(&s.dice[r.offset..r.offset + len], keep, agg)
        }
        Node::If(c, a, b) => {
            if x(c, rng, s) != 0 {
                x(a, rng, s)
            } else {
                x(b, rng, s)
            }
        }
        Node::Pool(p) => sample_pool(p, rng),
        Node::Meeting(m) => sample_meeting(m, rng, s),
        Node::Versus(kind, a, b, ties) => sample_versus(*kind, a, b, *ties, rng),
    }
}

// The arms of [`sample`] that hold buffers or tables, out of line: `sample` recurses
// through every node of a trial, and their stack buffers in its frame made each level
// of the recursion kilobytes deep.

#[inline(never)]
fn sample_template(t: &Template, rng: &mut Rng, s: &mut Scratch, depth: usize) -> i64 {
    let mut key = [0i64; MAX_PARAMS];
    for (k, p) in key.iter_mut().zip(&t.params) {
        *k = sample(p, rng, s, depth);
    }
    // Keyed by the template's address: one compiled expression, one sampler.
    let id = (t as *const Template as usize, key);
    if !s.made.contains_key(&id) {
        if s.made.len() >= MADE {
            s.made.clear();
        }
        let spec = t.spec(&key[..t.params.len()]).map(PoolSpec::tabled);
        s.made.insert(id, spec);
    }
    match &s.made[&id] {
        Some(p) => sample_pool(p, rng),
        None => 0,
    }
}

/// One card from what is left of the deck: one of the cards left, each as likely.
#[inline(never)]
fn sample_card(c: &Card, rng: &mut Rng, s: &mut Scratch, depth: usize) -> i64 {
    held(c.before.len(), |dealt| {
        for (d, n) in dealt.iter_mut().zip(&c.before) {
            *d = operand(n, rng, s, depth);
        }
        let left: u64 = c.ways(dealt).map(|(_, n)| n).sum();
        if left == 0 {
            return 0;
        }
        let mut at = below(left, rng) as u64;
        for (v, n) in c.ways(dealt) {
            if at < n {
                return v;
            }
            at -= n;
        }
        0
    })
}

#[inline(never)]
fn sample_repeat(r: &Repeat, rng: &mut Rng, s: &mut Scratch, depth: usize) -> i64 {
    let state = init_state(r, rng, s, depth);
    play_repeat(r, rng, s, depth, state, 0)
}

#[inline(never)]
fn sample_meeting(m: &Meeting, rng: &mut Rng, s: &mut Scratch) -> i64 {
    let side = |side: &Side, rng: &mut Rng, s: &Scratch, buf: &mut [i64]| -> usize {
        match side {
            Side::Pool(p) => roll_kept(p, rng, buf),
            Side::Var { offset, spec, .. } => {
                let n = spec.kept();
                buf[..n].copy_from_slice(&s.dice[*offset..offset + n]);
                n
            }
        }
    };
    let size = |side: &Side| match side {
        Side::Pool(p) => p.rolled(),
        Side::Var { spec, .. } => spec.kept(),
    };
    held(size(&m.sides[0]), |x| {
        held(size(&m.sides[1]), |y| {
            let na = side(&m.sides[0], rng, s, x);
            let nb = side(&m.sides[1], rng, s, y);
            m.value(&x[..na], &y[..nb])
        })
    })
}

#[inline(never)]
fn sample_versus(kind: Versus, a: &PoolSpec, b: &PoolSpec, ties: bool, rng: &mut Rng) -> i64 {
    held(a.rolled(), |x| {
        held(b.rolled(), |y| {
            let na = roll_kept(a, rng, x);
            let nb = roll_kept(b, rng, y);
            versus(kind, &x[..na], &y[..nb], ties)
        })
    })
}

/// Whether an expression is a number or a pool (no variables: no scratch needed).
pub fn is_plain(n: &Node) -> bool {
    matches!(n, Node::Num(_) | Node::Pool(_))
}

/// Roll a number or a pool ([`is_plain`]).
#[inline]
pub fn sample_plain(n: &Node, rng: &mut Rng) -> i64 {
    match n {
        Node::Num(v) => *v,
        Node::Pool(p) => sample_pool(p, rng),
        _ => 0,
    }
}

/// Set what a `let` binds at `depth`: its value, or (a pool variable) its dice rolled
/// into the scratch. The body it scopes, to go on with at `depth + 1`.
#[inline(always)]
fn bind<'n>(n: &'n Node, rng: &mut Rng, s: &mut Scratch, depth: usize) -> &'n Node {
    match n {
        Node::Let(bound, body) => {
            s.vars[depth] = sample(bound, rng, s, depth);
            body
        }
        Node::LetPool {
            spec,
            offset,
            body,
            choice,
        } => {
            roll_bound(spec, *offset, choice.as_deref(), rng, s);
            body
        }
        _ => unreachable!("only a `let` binds a variable"),
    }
}

/// A pool variable's dice into the scratch at `offset`, sorted, rerolled by its choice
/// if it has one.
pub(super) fn roll_bound(
    spec: &PoolSpec,
    offset: usize,
    choice: Option<&Choice>,
    rng: &mut Rng,
    s: &mut Scratch,
) {
    roll_pool_var(spec, offset, rng, s);
    if let Some(c) = choice {
        c.play(&mut s.dice[offset..offset + c.n as usize], rng);
    }
}

/// One die of an `again` pool and the dice it adds, at most its depth more: `each`
/// gets every face as it lands (a single read and a variable's tallies alike).
#[inline(always)]
fn again_chain(d: &DieSpec, c: Cond, rng: &mut Rng, mut each: impl FnMut(i64)) {
    let (lo, hi) = (d.lo(), d.hi());
    let mut depth = 0;
    loop {
        let v = d.roll(rng);
        each(v);
        if !c.holds(v, lo, hi) || depth >= d.depth {
            break;
        }
        depth += 1;
    }
}

pub(super) fn roll_pool_var(spec: &PoolSpec, offset: usize, rng: &mut Rng, s: &mut Scratch) {
    if let Some(c) = spec.again {
        // Its dice count varies: each die, and each die it adds, tallied as it lands,
        // one tally per way the body reads it.
        s.room(offset + MAX_TALLIES);
        let tallies = &mut s.dice[offset..offset + spec.ways.len()];
        tallies.fill(0);
        for (n, d) in &spec.groups {
            let (lo, hi) = (d.lo(), d.hi());
            for _ in 0..*n {
                again_chain(d, c, rng, |v| {
                    for (t, (_, agg)) in tallies.iter_mut().zip(&spec.ways) {
                        *t += tally_step(*agg, v, lo, hi);
                    }
                });
            }
        }
        return;
    }
    let n = spec.rolled();
    s.room(offset + n);
    if spec.keep.is_some() {
        // Bound with a keep: the variable holds the kept dice only.
        held(n, |all| {
            match spec.deck() {
                Some((deck, k)) => deal(deck, k as usize, rng, all),
                None => {
                    let mut k = 0;
                    for (n, d) in &spec.groups {
                        for _ in 0..*n {
                            all[k] = d.roll(rng);
                            k += 1;
                        }
                    }
                }
            }
            sort_dice(all);
            let kept = spec.keep_of(all);
            s.dice[offset..offset + kept.len()].copy_from_slice(kept);
        });
        return;
    }
    if let Some((deck, k)) = spec.deck() {
        let cards = &mut s.dice[offset..offset + k as usize];
        deal(deck, k as usize, rng, cards);
        cards.sort_unstable();
        return;
    }
    let mut k = offset;
    for (n, d) in &spec.groups {
        for _ in 0..*n {
            s.dice[k] = d.roll(rng);
            k += 1;
        }
    }
    sort_dice(&mut s.dice[offset..k]);
}

/// A `repeat`'s state variables' first values (each read before any is set).
pub(super) fn init_state(
    r: &Repeat,
    rng: &mut Rng,
    s: &mut Scratch,
    depth: usize,
) -> [i64; lang::MAX_STATE] {
    let mut state = [0i64; lang::MAX_STATE];
    for (i, n) in r.init.iter().enumerate() {
        state[i] = sample(n, rng, s, depth);
    }
    state
}

/// A `repeat`'s state variables into their slots. Copied by lengths the compiler
/// knows: a copy of a length known only at run time is a call of `memmove`, a tenth
/// of a duel's trial at one or two values a round.
#[inline(always)]
pub(super) fn set_state(dst: &mut [i64], src: &[i64]) {
    match src.len() {
        1 => dst[..1].copy_from_slice(&src[..1]),
        2 => dst[..2].copy_from_slice(&src[..2]),
        3 => dst[..3].copy_from_slice(&src[..3]),
        4 => dst[..4].copy_from_slice(&src[..4]),
        _ => dst.copy_from_slice(src),
    }
}

/// A `repeat`'s rounds from `state` after `round` of them, then its body.
pub(super) fn play_repeat(
    r: &Repeat,
    rng: &mut Rng,
    s: &mut Scratch,
    depth: usize,
    mut state: [i64; lang::MAX_STATE],
    mut round: u32,
) -> i64 {
    let k = r.init.len();
    set_state(&mut s.vars[depth..depth + k], &state[..k]);
    loop {
        s.vars[depth + k] = round as i64;
        if round == r.limit || sample(&r.until, rng, s, depth + k + 1) != 0 {
            break;
        }
        step(&r.step, rng, s, depth + k + 1, &mut state);
        set_state(&mut s.vars[depth..depth + k], &state[..k]);
        round += 1;
    }
    sample(&r.body, rng, s, depth + k + 1)
}

/// Roll one round of a `repeat`: its `let`s, then every state variable's new value
/// into `out` (all read the values before the round).
pub(super) fn step(n: &Node, rng: &mut Rng, s: &mut Scratch, depth: usize, out: &mut [i64]) {
    match n {
        Node::Let(..) | Node::LetPool { .. } => {
            let body = bind(n, rng, s, depth);
            step(body, rng, s, depth + 1, out)
        }
        Node::CountedVar(c, bodies) => {
            let k = operand(c, rng, s, depth);
            step(counted(bodies, k), rng, s, depth, out)
        }
        Node::Emit(v) => {
            for (i, n) in v.iter().enumerate() {
                out[i] = sample(n, rng, s, depth);
            }
        }
        _ => {}
    }
}

/// The bounds of every state variable after a round, as [`bounds`] does for a value.
pub(super) fn step_bounds(n: &Node, vars: &mut Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    match n {
        Node::Let(bound, body) => {
            let b = bounds(bound, vars);
            vars.push(b);
            let r = step_bounds(body, vars);
            vars.pop();
            r
        }
        Node::LetPool { body, .. } => {
            vars.push((0, 0));
            let r = step_bounds(body, vars);
            vars.pop();
            r
        }
        Node::Emit(v) => v.iter().map(|n| bounds(n, vars)).collect(),
        Node::CountedVar(c, bodies) => {
            let (lo, hi) = bounds(c, vars);
            let last = bodies.len() as i64 - 1;
            (lo.clamp(0, last)..=hi.clamp(0, last))
                .map(|k| step_bounds(counted(bodies, k), vars))
                // A count below the least it was made for has no round (its place holds
                // nothing): it never comes where the bounds were known.
                .filter(|b| !b.is_empty())
                .reduce(|a, b| {
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| (x.0.min(y.0), x.1.max(y.1)))
                        .collect()
                })
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// `n` dice of `d`, each handed to `put` as it lands: plain dice many faces to a random
/// word, dice that re-roll or explode one by one with their modifiers.
#[inline(always)]
fn each_die(d: &DieSpec, n: u32, rng: &mut Rng, mut put: impl FnMut(i64)) {
    match (d.words.filter(|_| d.explode.is_none()), d.reroll) {
        (Some(w), None) => {
            let mut w = w.stream();
            for _ in 0..n {
                put(d.faces[w.roll(rng) as usize - 1]);
            }
        }
        (Some(w), Some(_)) => {
            // A die that rerolls rolls again from the same stream of faces: each roll is
            // still one uniform face, the reroll a roll of its own.
            let mut w = w.stream();
            for _ in 0..n {
                put(d.rerolled(|| d.faces[w.roll(rng) as usize - 1]));
            }
        }
        _ => {
            for _ in 0..n {
                put(d.roll(rng));
            }
        }
    }
}

/// Roll a pool into `buf` (room for [`PoolSpec::rolled`] dice), sorted, its kept dice
/// first: how many are kept.
pub(super) fn roll_kept(p: &PoolSpec, rng: &mut Rng, buf: &mut [i64]) -> usize {
    let mut len = 0;
    for (n, d) in &p.groups {
        each_die(d, *n, rng, |v| {
            buf[len] = v;
            len += 1;
        });
    }
    sort_dice(&mut buf[..len]);
    match p.keep {
        None => len,
        Some((End::Lowest, k)) => k as usize,
        Some((End::Highest, k)) => {
            buf.copy_within(len - k as usize..len, 0);
            k as usize
        }
    }
}

/// The first pool's dice that are left when two sorted pools (ascending) meet die by
/// die, ascending: the dice that win their pair, that beat the other's highest, or
/// that no die of the other cancels. Written into `out` (room for `a.len()` dice):
/// how many.
pub fn versus_dice(kind: Versus, a: &[i64], b: &[i64], ties: bool, out: &mut [i64]) -> usize {
    let wins = |x: i64, y: i64| if ties { x >= y } else { x > y };
    let mut n = 0;
    let mut put = |v: i64| {
        out[n] = v;
        n += 1;
    };
    match kind {
        Versus::Pairs => {
            // Paired from the top, so the pairs are those of the highest dice; the
            // winners of the lowest pairs come first.
            let skip = a.len().saturating_sub(b.len());
            let top = b.len().min(a.len());
            for (x, y) in a[skip..].iter().zip(&b[b.len() - top..]) {
                if wins(*x, *y) {
                    put(*x);
                }
            }
        }
        Versus::Beats => match b.last() {
            None => a.iter().for_each(|&x| put(x)),
            Some(&top) => a.iter().filter(|&&x| wins(x, top)).for_each(|&x| put(x)),
        },
        Versus::Cancel => {
            let (mut i, mut j) = (0, 0);
            while i < a.len() {
                if j < b.len() && a[i] == b[j] {
                    i += 1;
                    j += 1;
                } else if j < b.len() && a[i] > b[j] {
                    j += 1;
                } else {
                    put(a[i]);
                    i += 1;
                }
            }
        }
        Versus::CancelBelow => {
            // The first's dice the second's pass over, highest first, then the ones
            // below every die that cancelled: turned to ascending order after.
            let top = cancel_below(a, b, ties, &mut put);
            out[..n].reverse();
            out.copy_within(..n, top);
            out[..top].copy_from_slice(&a[..top]);
            return n + top;
        }
    }
    n
}

/// `cancel(A, B, <=)` on sorted pools (ascending): each of `b`'s dice, highest first,
/// cancels the highest of `a`'s dice it reaches (at or below it with `ties`, else below
/// it). `passed` gets `a`'s dice left above the lowest one cancelled, highest first;
/// the first so many of `a` (the count returned) are left too.
fn cancel_below(a: &[i64], b: &[i64], ties: bool, mut passed: impl FnMut(i64)) -> usize {
    let reaches = |x: i64, y: i64| if ties { x <= y } else { x < y };
    let mut i = a.len();
    for &y in b.iter().rev() {
        while i > 0 && !reaches(a[i - 1], y) {
            i -= 1;
            passed(a[i]);
        }
        if i == 0 {
            break;
        }
        i -= 1;
    }
    i
}

/// Two sorted pools (ascending) die by die: pairs won by the first, or the first's dice
/// above the second's highest (`ties`: equal counts for the first).
pub fn versus(kind: Versus, a: &[i64], b: &[i64], ties: bool) -> i64 {
    let wins = |x: i64, y: i64| if ties { x >= y } else { x > y };
    match kind {
        Versus::Pairs => a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .filter(|(x, y)| wins(**x, **y))
            .count() as i64,
        Versus::Beats => match b.last() {
            None => a.len() as i64,
            Some(&top) => a.iter().filter(|&&x| wins(x, top)).count() as i64,
        },
        Versus::Cancel => {
            // Both sorted: walk them together, a match removing one die of each.
            let (mut i, mut j, mut left) = (0, 0, 0);
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Equal => {
                        i += 1;
                        j += 1;
                    }
                    std::cmp::Ordering::Less => {
                        left += 1;
                        i += 1;
                    }
                    std::cmp::Ordering::Greater => j += 1,
                }
            }
            left + (a.len() - i) as i64
        }
        Versus::CancelBelow => {
            let mut passed = 0i64;
            let below = cancel_below(a, b, ties, |_| passed += 1);
            passed + below as i64
        }
    }
}

pub(super) fn sample_pool(p: &PoolSpec, rng: &mut Rng) -> i64 {
    if let Some(t) = &p.table {
        // A die or a small pool: one draw from one table of its faces.
        if let Some(one) = t.single() {
            return one.draw(rng);
        }
        return t.sample(rng);
    }
    if let Some((deck, k)) = p.deck() {
        return held(k as usize, |cards| {
            deal(deck, k as usize, rng, cards);
            cards.sort_unstable();
            read_sorted(cards, p.keep, p.agg, deck.lo(), deck.hi())
        });
    }
    if let Some(c) = p.again {
        // Each die, and each die it adds, read as it lands.
        let mut acc = 0;
        for (n, d) in &p.groups {
            let (lo, hi) = (d.lo(), d.hi());
            for _ in 0..*n {
                again_chain(d, c, rng, |v| acc += tally_step(p.agg, v, lo, hi));
            }
        }
        return acc;
    }
    if p.keep.is_none() && !matches!(p.agg, Agg::MaxSet | Agg::Straight | Agg::Shape(_)) {
        // Read each die as it lands: no buffer to fill.
        let mut acc = match p.agg {
            Agg::Highest => i64::MIN,
            Agg::Lowest => i64::MAX,
            _ => 0,
        };
        let mut any = false;
        for (n, d) in &p.groups {
            each_die(d, *n, rng, |v| {
                any = true;
                match p.agg {
                    Agg::Sum => acc += v,
                    Agg::Count(c) => acc += c.holds(v, d.lo(), d.hi()) as i64,
                    Agg::Highest => acc = acc.max(v),
                    Agg::Lowest => acc = acc.min(v),
                    Agg::Tally(t) => acc += lang::tally(v, t),
                    Agg::MaxSet | Agg::Straight | Agg::Shape(_) => {}
                }
            });
        }
        return if any || matches!(p.agg, Agg::Sum | Agg::Count(_) | Agg::Tally(_)) {
            acc
        } else {
            0
        };
    }
    held(p.rolled(), |dice| {
        let mut len = 0;
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for (n, d) in &p.groups {
            lo = lo.min(d.lo());
            hi = hi.max(d.hi());
            for _ in 0..*n {
                dice[len] = d.roll(rng);
                len += 1;
            }
        }
        if p.keep.is_some() || matches!(p.agg, Agg::MaxSet | Agg::Straight | Agg::Shape(_)) {
            sort_dice(dice);
        }
        read_sorted(dice, p.keep, p.agg, lo, hi)
    })
}

/// Rolled dice in order: counted into their faces when many dice span few values (a
/// thousand `dF` are three counts, not a comparison sort), else sorted. Either way the
/// same order, so the draws and the result do not depend on which.
pub(super) fn sort_dice(d: &mut [i64]) {
    match d.len() {
        0 | 1 => return,
        2 => return network::<2>(d, &NET2),
        3 => return network::<3>(d, &NET3),
        4 => return network::<4>(d, &NET4),
        5 => return network::<5>(d, &NET5),
        6 => return network::<6>(d, &NET6),
        7 => return network::<7>(d, &NET7),
        8 => return network::<8>(d, &NET8),
        _ => {}
    }
    if d.len() <= 16 {
        // A handful of dice: an insertion sort in place, where the library's sort
        // spent more on choosing how to sort than on sorting.
        for i in 1..d.len() {
            let v = d[i];
            let mut j = i;
            while j > 0 && d[j - 1] > v {
                d[j] = d[j - 1];
                j -= 1;
            }
            d[j] = v;
        }
        return;
    }
    if d.len() < 64 {
        d.sort_unstable();
        return;
    }
    let (lo, hi) = d
        .iter()
        .fold((i64::MAX, i64::MIN), |(l, h), &v| (l.min(v), h.max(v)));
    let span = hi.abs_diff(lo) as usize;
    if span >= 256 {
        d.sort_unstable();
        return;
    }
    let mut counts = [0u32; 256];
    for &v in d.iter() {
        counts[(v - lo) as usize] += 1;
    }
    let mut at = 0;
    for (j, &c) in counts[..=span].iter().enumerate() {
        d[at..at + c as usize].fill(lo + j as i64);
        at += c as usize;
    }
}

// Sorting networks for 2 to 8 dice, each a fixed list of compare-exchanges (the
// smallest known for its size). A roll of a few dice is random, so an insertion sort's
// every "is it smaller" is a branch the processor guesses wrong half the time; a
// network's compare-exchange is a min and a max, with no branch at all.
const NET2: [(u8, u8); 1] = [(0, 1)];
const NET3: [(u8, u8); 3] = [(0, 2), (0, 1), (1, 2)];
const NET4: [(u8, u8); 5] = [(0, 2), (1, 3), (0, 1), (2, 3), (1, 2)];
const NET5: [(u8, u8); 9] = [
    (0, 3),
    (1, 4),
    (0, 2),
    (1, 3),
    (0, 1),
    (2, 4),
    (1, 2),
    (3, 4),
    (2, 3),
];
const NET6: [(u8, u8); 12] = [
    (0, 5),
    (1, 3),
    (2, 4),
    (1, 2),
    (3, 4),
    (0, 3),
    (2, 5),
    (0, 1),
    (2, 3),
    (4, 5),
    (1, 2),
    (3, 4),
];
const NET7: [(u8, u8); 16] = [
    (0, 6),
    (2, 3),
    (4, 5),
    (0, 2),
    (1, 4),
    (3, 6),
    (0, 1),
    (2, 5),
    (3, 4),
    (1, 2),
    (4, 6),
    (2, 3),
    (4, 5),
    (1, 2),
    (3, 4),
    (5, 6),
];
const NET8: [(u8, u8); 19] = [
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (2, 4),
    (3, 5),
    (1, 4),
    (3, 6),
    (1, 2),
    (3, 4),
    (5, 6),
];

/// `d` (of length `N`) sorted by the network `pairs`, in registers.
#[inline(always)]
fn network<const N: usize>(d: &mut [i64], pairs: &[(u8, u8)]) {
    let Ok(mut a) = <[i64; N]>::try_from(&*d) else {
        return d.sort_unstable();
    };
    for &(i, j) in pairs {
        let (x, y) = (a[i as usize], a[j as usize]);
        a[i as usize] = x.min(y);
        a[j as usize] = x.max(y);
    }
    d.copy_from_slice(&a);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain xorshift from `seed`: test data apart from the generator under test.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// The tally read by reciprocals is the tally by division, for codes and divisors
    /// of every size, negative codes and a base of 1 included.
    #[test]
    fn tallies_by_reciprocal_are_tallies_by_division() {
        let mut next = xorshift(99);
        for base in [
            1i64,
            2,
            3,
            5,
            7,
            10,
            16,
            255,
            65_536,
            1 << 31,
            (1 << 32) + 1,
        ] {
            for digit in 0..16 {
                let t = base * 16 + digit;
                if base.checked_pow(digit as u32).is_none() {
                    continue;
                }
                let mut dice: Vec<i64> = (0..40)
                    .map(|i| match i % 4 {
                        0 => (next() % 1000) as i64,
                        1 => (next() >> 32) as i64,
                        2 => (next() >> 30) as i64 - (1 << 33),
                        _ => (next() % (1 << 32)) as i64,
                    })
                    .collect();
                dice.extend([0, 1, (1 << 32) - 1, 1 << 32, -1]);
                for &v in &dice {
                    let want = lang::tally(v, t);
                    assert_eq!(
                        tally_sum(&[v], t),
                        want,
                        "code {v}, base {base}, digit {digit}"
                    );
                }
                let want: i64 = dice.iter().map(|&v| lang::tally(v, t)).sum();
                assert_eq!(tally_sum(&dice, t), want, "base {base}, digit {digit}");
            }
        }
    }

    /// Every network sorts every sequence of 0s and 1s of its length, which by the 0-1
    /// principle means it sorts everything; and a few rolls with repeats besides.
    #[test]
    fn every_network_sorts() {
        for n in 2..=8usize {
            for bits in 0u32..1 << n {
                let mut d: Vec<i64> = (0..n).map(|i| (bits >> i & 1) as i64).collect();
                let mut want = d.clone();
                want.sort_unstable();
                sort_dice(&mut d);
                assert_eq!(d, want, "{n} dice, pattern {bits:b}");
            }
            let mut d: Vec<i64> = (0..n as i64).map(|i| (i * 7 + 3) % 5 - 2).collect();
            let mut want = d.clone();
            want.sort_unstable();
            sort_dice(&mut d);
            assert_eq!(d, want, "{n} dice with repeats");
        }
    }

    /// Counting and comparison sorts agree, on many dice of a narrow span, a wide one,
    /// and negative faces.
    #[test]
    fn dice_counted_into_order_are_sorted() {
        let mut next = xorshift(7);
        for (n, span, lo) in [
            (1000, 3, -1),
            (64, 6, 1),
            (500, 255, -100),
            (300, 1000, 0),
            (10, 4, 0),
            (16, 20, -5),
            (5, 6, 1),
            (2, 2, 0),
            (1, 6, 1),
            (0, 6, 1),
        ] {
            let mut d: Vec<i64> = (0..n).map(|_| lo + (next() % span) as i64).collect();
            let mut want = d.clone();
            want.sort_unstable();
            sort_dice(&mut d);
            assert_eq!(d, want, "{n} dice over {span} values");
        }
    }
}
