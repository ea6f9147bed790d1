//! A pool written in the language (`5d6 explode 6 keep highest 3 count >= 4`) made into a
//! [`PoolSpec`], its numbers resolved now or, for a [`Template`], at the roll.

use super::*;

/// Every number of a pool written as an expression, in the one order [`spec_of`] takes
/// them: per group its count and its sides (`d(x)`), per modifier its face or count,
/// then the read's face.
pub(super) fn param_exprs<'e>(
    groups: &'e [lang::Group],
    mods: &'e [ModAst],
    agg: &'e Option<AggAst>,
) -> Vec<&'e Expr> {
    let mut out: Vec<&Expr> = Vec::new();
    let cond = |c: &'e CondAst, out: &mut Vec<&'e Expr>| {
        if let CondOf::Cmp(_, e) = c {
            out.push(e);
        }
    };
    for g in groups {
        out.push(&g.count);
        if let Some(e) = &g.die.sides {
            out.push(e);
        }
    }
    for m in mods {
        match m {
            ModOf::Explode(c) | ModOf::Again(c) | ModOf::Reroll(c, _) => cond(c, &mut out),
            ModOf::Keep(_, e) | ModOf::Drop(_, e) | ModOf::Middle(e) | ModOf::Depth(e) => {
                out.push(e)
            }
        }
    }
    if let Some(AggOf::Count(c)) = agg {
        cond(c, &mut out);
    }
    out
}

/// A number of a pool: folded at compile (`fixed`: out of range is an error), or known
/// only when the pool is rolled (clamped into range, as a dice count is).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolNumber {
    /// The number.
    pub value: i64,
    /// Folded at compile (out of range is an error), not rolled.
    pub fixed: bool,
}

impl PoolNumber {
    /// A number folded at compile.
    pub fn fixed(value: i64) -> Self {
        PoolNumber { value, fixed: true }
    }

    /// A number a roll gave.
    pub fn rolled(value: i64) -> Self {
        PoolNumber {
            value,
            fixed: false,
        }
    }
}

/// Faces a `d(x)` die may have.
pub const MAX_SIDES: i64 = 1_000;

/// A pool's spec from its written form and the values of its numbers (in the order of
/// [`param_exprs`]). Pure: the sampler and the exact engine call it with the numbers a
/// roll gave (a threshold from a `let`, a step die's sides).
pub fn spec_of(
    groups: &[lang::Group],
    mods: &[ModAst],
    agg: &Option<AggAst>,
    col: usize,
    vals: &[PoolNumber],
    syms: Option<&Symbols>,
) -> Result<PoolSpec, CompileError> {
    let err = |m: String| CompileError { col, message: m };
    let mut next = vals.iter().copied();
    let mut take = || next.next().unwrap_or(PoolNumber::fixed(0));
    let cond = |c: &CondAst, take: &mut dyn FnMut() -> PoolNumber| -> (Cond, bool) {
        match c {
            CondOf::Max => (CondOf::Max, true),
            CondOf::Min => (CondOf::Min, true),
            CondOf::On(faces) => (CondOf::On(*faces), true),
            CondOf::Cmp(op, _) => {
                let v = take();
                (CondOf::Cmp(*op, v.value), v.fixed)
            }
        }
    };
    // One entry per group, exactly: a pool lives as long as its config is loaded.
    let mut specs = Vec::with_capacity(groups.len());
    let mut total = 0i64;
    let mut named: Vec<String> = Vec::new();
    let mut symbolic: Vec<bool> = Vec::new();
    for g in groups {
        let c = take();
        // A deck deals at most its cards.
        let most = if g.deck {
            MAX_ROLLED_DICE.min(g.die.faces.len() as i64)
        } else {
            MAX_ROLLED_DICE
        };
        if g.deck && c.fixed && !(0..=most).contains(&c.value) {
            return Err(err(format!(
                "draw {}: a deck of {} cards deals 0 to {most}",
                c.value,
                g.die.faces.len()
            )));
        }
        let n = if c.fixed {
            if !(0..=MAX_DICE).contains(&c.value) {
                return Err(err(format!(
                    "{} dice: a pool rolls 0 to {MAX_DICE} dice",
                    c.value
                )));
            }
            c.value
        } else {
            c.value.clamp(0, most)
        };
        let faces = match &g.die.sides {
            None => g.die.faces.clone(),
            Some(_) => {
                let s = take();
                if s.fixed && !(1..=MAX_SIDES).contains(&s.value) {
                    return Err(err(format!(
                        "a d({}): a die has 1 to {MAX_SIDES} sides",
                        s.value
                    )));
                }
                (1..=s.value.clamp(1, MAX_SIDES)).collect()
            }
        };
        // Faces with names, in an expression that counts them by name: each face the
        // code of its symbols.
        let faces = match syms {
            Some(sy) if g.die.names.iter().any(|f| !f.is_empty()) => {
                let mut codes = Vec::with_capacity(faces.len());
                for (written, v) in g.die.names.iter().zip(&faces) {
                    if written.is_empty() || *v < 0 {
                        return Err(err(format!(
                            "`{}`: a die counted by name has named faces only (`blank` for none), found {v}",
                            g.die.text
                        )));
                    }
                    let mut code = 0;
                    for (n, c) in written {
                        if let Some(j) = sy.names.iter().position(|x| x == n) {
                            code += *c as i64 * sy.base.pow(j as u32);
                        }
                    }
                    codes.push(code);
                }
                for (n, _) in g.die.names.iter().flatten() {
                    if sy.names.contains(n) && !named.contains(n) {
                        named.push(n.clone());
                    }
                }
                symbolic.push(true);
                codes
            }
            _ => {
                symbolic.push(false);
                faces
            }
        };
        total += n;
        let mut spec = DieSpec::new(faces);
        spec.deck = g.deck;
        specs.push((n as u32, spec));
    }
    if groups.iter().any(|g| g.deck) {
        if groups.len() > 1 {
            return Err(err("a deck is a pool of its own: deal it apart from dice, e.g. `let h = deck{...} draw 5 in ...`".into()));
        }
        if mods
            .iter()
            .any(|m| !matches!(m, ModOf::Keep(..) | ModOf::Drop(..) | ModOf::Middle(_)))
        {
            return Err(err("a deck's cards are dealt, not rolled: `keep` and `drop` apply, `explode`, `again` and `reroll` do not".into()));
        }
    }
    if symbolic.contains(&true) && symbolic.contains(&false) {
        return Err(err(
            "dice counted by name and dice read as numbers in one pool: give each its own pool"
                .into(),
        ));
    }
    if symbolic.contains(&true) && !mods.is_empty() {
        return Err(err(
            "dice counted by name take no modifiers (their faces are symbols, not numbers to compare)".into(),
        ));
    }
    if total > MAX_DICE {
        if vals.iter().all(|v| v.fixed) {
            return Err(err(format!(
                "{total} dice: a pool rolls at most {MAX_DICE}"
            )));
        }
        // Counts known only at the roll: the pool takes the first [`MAX_DICE`] dice.
        let mut left = MAX_DICE as u32;
        for (n, _) in specs.iter_mut() {
            *n = (*n).min(left);
            left -= *n;
        }
        total = MAX_DICE;
    }
    let mut again = None;
    let mut keep = None;
    let mut checked = Vec::new();
    for m in mods {
        match m {
            ModOf::Explode(c) => {
                let (c, fixed) = cond(c, &mut take);
                checked.push((c, fixed));
                specs.iter_mut().for_each(|(_, d)| d.explode = Some(c));
            }
            ModOf::Reroll(c, always) => {
                let (c, fixed) = cond(c, &mut take);
                for (_, d) in specs.iter_mut() {
                    if *always && d.faces.iter().all(|&f| c.holds(f, d.lo(), d.hi())) {
                        if !fixed {
                            // Never reached: a rolled face for `always` is refused at
                            // compile; no die may reroll for ever.
                            d.reroll = None;
                            continue;
                        }
                        return Err(err(format!(
                            "`reroll {c} always` rerolls every face of the die: it would never stop"
                        )));
                    }
                    d.reroll = Some((c, *always));
                }
            }
            ModOf::Again(c) => {
                let (c, fixed) = cond(c, &mut take);
                checked.push((c, fixed));
                again = Some(c);
            }
            ModOf::Depth(_) => {
                let d = take();
                if d.fixed && !(0..=lang::MAX_CHAIN as i64).contains(&d.value) {
                    return Err(err(format!(
                        "depth {}: the most extra rolls of a chain are 0 to {}",
                        d.value,
                        lang::MAX_CHAIN
                    )));
                }
                let n = d.value.clamp(0, lang::MAX_CHAIN as i64) as u32;
                specs.iter_mut().for_each(|(_, s)| s.depth = n);
            }
            // Compiled into two keeps of one roll before a pool is made of it.
            ModOf::Middle(_) => {
                return Err(err(
                    "`keep middle` reads a pool bound once: it cannot stand here".into(),
                ))
            }
            ModOf::Keep(end, _) | ModOf::Drop(end, _) => {
                let n = take().value;
                if keep.is_some() {
                    return Err(err("one `keep` or `drop` per pool".into()));
                }
                let drop = matches!(m, ModOf::Drop(..));
                keep = Some(keep_of(drop, *end, n, total as u32));
            }
        }
    }
    for (_, d) in &specs {
        for &(c, fixed) in &checked {
            let (lo, hi) = (d.lo(), d.hi());
            // A rolled threshold that makes every face explode is cut by the chain's
            // depth, as any long chain is.
            if fixed && !d.faces.is_empty() && d.faces.iter().all(|&f| c.holds(f, lo, hi)) {
                return Err(err(format!(
                    "every face meets `{c}`: every roll would explode"
                )));
            }
        }
    }
    let agg = match agg {
        None | Some(AggOf::Sum) => AggOf::Sum,
        Some(AggOf::Count(c)) => AggOf::Count(cond(c, &mut take).0),
        Some(AggOf::Highest) => AggOf::Highest,
        Some(AggOf::Lowest) => AggOf::Lowest,
        Some(AggOf::MaxSet) => AggOf::MaxSet,
        Some(AggOf::Straight) => AggOf::Straight,
        Some(AggOf::Shape(s)) => AggOf::Shape(*s),
        Some(AggOf::Tally(x)) => AggOf::Tally(tally_of(x, &named, syms, col)?),
    };
    if !named.is_empty() && !matches!(agg, Agg::Tally(_)) && agg_written(agg) {
        return Err(err(format!(
            "these dice are counted by name: read them with `count NAME` ({})",
            named.join(", ")
        )));
    }
    if specs.len() > 1 {
        if let Agg::Count(Cond::Max | Cond::Min) = agg {
            return Err(err(
                "`count max` and `count min` need one kind of die: write the face, e.g. `count >= 6`"
                    .into(),
            ));
        }
    }
    if again.is_some() {
        if keep.is_some() || !matches!(agg, Agg::Sum | Agg::Count(_)) {
            return Err(err(
                "`again` adds dice to the pool: read it with `sum` or `count`, without keep or drop"
                    .into(),
            ));
        }
        if specs.iter().any(|(_, d)| d.explode.is_some()) {
            return Err(err(
                "`explode` and `again` on the same pool: choose one".into()
            ));
        }
    }
    Ok(PoolSpec {
        groups: specs,
        again,
        keep,
        agg,
        table: None,
        named,
        ways: Vec::new(),
    })
}

/// Whether a read is written (a bare pool or a pool variable reads as a sum).
pub(super) fn agg_written(a: Agg) -> bool {
    !matches!(a, Agg::Sum)
}

/// A compiled `count NAME` on dice whose symbols are `named`.
pub(super) fn tally_of(
    x: &Expr,
    named: &[String],
    syms: Option<&Symbols>,
    col: usize,
) -> Result<i64, CompileError> {
    let Expr::Name(name, at) = x else {
        return Err(CompileError {
            col,
            message: "`count` takes a face or a symbol's name".into(),
        });
    };
    match syms.and_then(|s| s.tally(name)) {
        Some(t) if named.contains(name) => Ok(t),
        _ => Err(CompileError {
            col: *at,
            message: if named.is_empty() {
                format!("`count {name}` counts a symbol, but these dice have no named faces; to count the dice showing that value write `count == {name}` (or `count >= {name}`, at least it)")
            } else {
                format!(
                    "no face of these dice shows `{name}`{}; they show {}",
                    nearest_hint(name, named.iter().map(String::as_str)),
                    named.join(", ")
                )
            },
        }),
    }
}

/// Most numbers of one pool that may be known only when it is rolled.
pub const MAX_PARAMS: usize = 8;

/// A pool whose numbers are values known only at the roll (`count >= w` with `w` a
/// `let`, `d(size)`, `keep highest k`): its written form, the numbers folded at compile,
/// and the expressions of the others, rolled first and independent of the pool.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    /// The pool's groups as written.
    pub groups: Vec<lang::Group>,
    /// Its modifiers as written.
    pub mods: Vec<ModAst>,
    /// Its read as written; None: a sum.
    pub agg: Option<AggAst>,
    /// Where the pool is written.
    pub col: usize,
    /// Per number of the pool: its value when folded, None when rolled.
    pub fixed: Vec<Option<i64>>,
    /// The rolled numbers' expressions, in order.
    pub params: Vec<Node>,
    /// The symbols named on its faces, when it counts faces by name.
    pub syms: Option<Symbols>,
}

impl Template {
    /// The pool given its rolled numbers (None only for a pool the compile-time check
    /// would have refused).
    pub fn spec(&self, rolled: &[i64]) -> Option<PoolSpec> {
        let mut r = rolled.iter();
        let vals: Vec<PoolNumber> = self
            .fixed
            .iter()
            .map(|f| match f {
                Some(v) => PoolNumber::fixed(*v),
                None => PoolNumber::rolled(r.next().copied().unwrap_or(0)),
            })
            .collect();
        spec_of(
            &self.groups,
            &self.mods,
            &self.agg,
            self.col,
            &vals,
            self.syms.as_ref(),
        )
        .ok()
    }
}
