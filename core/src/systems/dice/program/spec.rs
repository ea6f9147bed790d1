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
    let err = |message: String| CompileError { col, message };
    let mut nums = Numbers(vals.iter());
    // One entry per group, exactly: a pool lives as long as its config is loaded.
    let mut dice = Dice {
        specs: Vec::with_capacity(groups.len()),
        named: Vec::new(),
        symbolic: Vec::new(),
        rolled_sides: Vec::with_capacity(groups.len()),
    };
    for g in groups {
        dice.push(g, &mut nums, syms).map_err(err)?;
    }
    check_kinds(groups, mods, &dice.symbolic).map_err(err)?;
    let total = cap_total(&mut dice.specs, vals).map_err(err)?;
    let mods = modifiers(mods, &mut nums, &mut dice, total).map_err(err)?;
    let agg = match agg {
        None | Some(AggOf::Sum) => AggOf::Sum,
        Some(AggOf::Count(c)) => AggOf::Count(nums.cond(c).0),
        Some(AggOf::Highest) => AggOf::Highest,
        Some(AggOf::Lowest) => AggOf::Lowest,
        Some(AggOf::MaxSet) => AggOf::MaxSet,
        Some(AggOf::Straight) => AggOf::Straight,
        Some(AggOf::Shape(s)) => AggOf::Shape(*s),
        Some(AggOf::Tally(x)) => AggOf::Tally(tally_of(x, &dice.named, syms, col)?),
    };
    check_read(agg, &dice, &mods).map_err(err)?;
    Ok(PoolSpec {
        groups: dice.specs,
        again: mods.again,
        keep: mods.keep,
        agg,
        table: None,
        named: dice.named,
        ways: Vec::new(),
    })
}

/// The numbers of a pool in [`param_exprs`]'s order, taken one at a time (0 past the end).
struct Numbers<'v>(std::slice::Iter<'v, PoolNumber>);

impl Numbers<'_> {
    fn take(&mut self) -> PoolNumber {
        self.0.next().copied().unwrap_or(PoolNumber::fixed(0))
    }

    /// A condition with its face resolved, and whether that face was folded at compile.
    fn cond(&mut self, c: &CondAst) -> (Cond, bool) {
        match c {
            CondOf::Max => (CondOf::Max, true),
            CondOf::Min => (CondOf::Min, true),
            CondOf::On(faces) => (CondOf::On(*faces), true),
            CondOf::Even => (CondOf::Even, true),
            CondOf::Odd => (CondOf::Odd, true),
            CondOf::Cmp(op, _) => {
                let v = self.take();
                (CondOf::Cmp(*op, v.value), v.fixed)
            }
        }
    }
}

/// A pool's groups as they are made: each group's count and die, the names its faces
/// are counted by, and which groups are counted by name.
struct Dice {
    specs: Vec<(u32, DieSpec)>,
    named: Vec<String>,
    symbolic: Vec<bool>,
    /// Per group: whether its die's sides are a number rolled first (`d(s)`), made at
    /// compile with a stand-in number.
    rolled_sides: Vec<bool>,
}

impl Dice {
    /// One group: its count and its die's faces (a `d(x)`'s from its sides, a named
    /// die's as the codes of its symbols).
    fn push(
        &mut self,
        g: &lang::Group,
        nums: &mut Numbers,
        syms: Option<&Symbols>,
    ) -> Result<(), String> {
        let c = nums.take();
        // A deck deals at most its cards.
        let most = if g.deck {
            MAX_ROLLED_DICE.min(g.die.faces.len() as i64)
        } else {
            MAX_COUNTED_DICE
        };
        if g.deck && c.fixed && !(0..=most).contains(&c.value) {
            return Err(format!(
                "draw {}: a deck of {} cards deals 0 to {most}",
                c.value,
                g.die.faces.len()
            ));
        }
        let n = if c.fixed {
            // Below 0 no dice, as for a count that is rolled: `(armour - 2)d6` of a
            // stat set to 1 (`(0 - 3)d6` was refused, `(d4 - 3)d6` rolled none).
            if c.value > MAX_DICE {
                return Err(format!(
                    "{} dice: a pool rolls 0 to {} dice",
                    crate::text::thousands(c.value as u64),
                    crate::text::thousands(MAX_DICE as u64)
                ));
            }
            c.value.max(0)
        } else {
            c.value.clamp(0, most)
        };
        let mut rolled_sides = false;
        let faces = match &g.die.sides {
            None => g.die.faces.clone(),
            Some(_) => {
                let s = nums.take();
                rolled_sides = !s.fixed;
                if s.fixed && !(1..=MAX_SIDES).contains(&s.value) {
                    return Err(format!(
                        "a d({}): a die has 1 to {MAX_SIDES} sides",
                        s.value
                    ));
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
                        return Err(format!(
                            "`{}`: a die counted by name has named faces only (`blank` for none), found {v}",
                            g.die.text
                        ));
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
                    if sy.names.contains(n) && !self.named.contains(n) {
                        self.named.push(n.clone());
                    }
                }
                self.symbolic.push(true);
                codes
            }
            _ => {
                self.symbolic.push(false);
                faces
            }
        };
        let mut spec = DieSpec::new(faces);
        spec.deck = g.deck;
        self.specs.push((n as u32, spec));
        self.rolled_sides.push(rolled_sides);
        Ok(())
    }
}

/// Refuse the mixes a pool cannot be: a deck beside dice or rolled, dice counted by
/// name beside numbers or modified.
fn check_kinds(groups: &[lang::Group], mods: &[ModAst], symbolic: &[bool]) -> Result<(), String> {
    if groups.iter().any(|g| g.deck) {
        if groups.len() > 1 {
            return Err("a deck is a pool of its own: deal it apart from dice, e.g. `let h = deck{...} draw 5 in ...`".into());
        }
        if mods
            .iter()
            .any(|m| !matches!(m, ModOf::Keep(..) | ModOf::Drop(..) | ModOf::Middle(_)))
        {
            return Err("a deck's cards are dealt, not rolled: `keep` and `drop` apply, `explode`, `again` and `reroll` do not".into());
        }
    }
    if symbolic.contains(&true) && symbolic.contains(&false) {
        return Err(
            "dice counted by name and dice read as numbers in one pool: give each its own pool"
                .into(),
        );
    }
    if symbolic.contains(&true) && !mods.is_empty() {
        return Err(
            "dice counted by name take no modifiers (their faces are symbols, not numbers to compare)".into(),
        );
    }
    Ok(())
}

/// The pool's dice in all: past [`MAX_DICE`] an error when every count is written, and
/// when a count is known only at the roll, the first [`MAX_DICE`] dice.
fn cap_total(specs: &mut [(u32, DieSpec)], vals: &[PoolNumber]) -> Result<u32, String> {
    let total: i64 = specs.iter().map(|(n, _)| *n as i64).sum();
    if total <= MAX_DICE {
        return Ok(total as u32);
    }
    if vals.iter().all(|v| v.fixed) {
        return Err(format!("{total} dice: a pool rolls at most {MAX_DICE}"));
    }
    let mut left = MAX_DICE as u32;
    for (n, _) in specs.iter_mut() {
        *n = (*n).min(left);
        left -= *n;
    }
    Ok(MAX_DICE as u32)
}

/// What a pool's modifiers leave beside its dice: the face that rolls again, the keep.
struct Modifiers {
    again: Option<Cond>,
    keep: Option<(End, u32)>,
}

/// Apply the modifiers to the dice in their written order.
fn modifiers(
    mods: &[ModAst],
    nums: &mut Numbers,
    dice: &mut Dice,
    total: u32,
) -> Result<Modifiers, String> {
    let (specs, rolled_sides) = (&mut dice.specs, &dice.rolled_sides);
    let mut out = Modifiers {
        again: None,
        keep: None,
    };
    // Each chain's condition and whether its face was folded at compile.
    let mut chains = Vec::new();
    // A depth written bounds every chain, even one where every face explodes.
    let mut depth_written = false;
    for m in mods {
        match m {
            ModOf::Explode(c) => {
                let (c, fixed) = nums.cond(c);
                chains.push((c, fixed));
                specs.iter_mut().for_each(|(_, d)| d.explode = Some(c));
            }
            ModOf::Reroll(c, always) => {
                let (c, fixed) = nums.cond(c);
                for ((_, d), &rolled) in specs.iter_mut().zip(rolled_sides) {
                    if *always && d.faces.iter().all(|&f| c.holds(f, d.lo(), d.hi())) {
                        if !fixed || rolled {
                            // A rolled face for `always` is refused at compile; a die of
                            // rolled sides that came up too few to leave a face is rolled
                            // once: no die may reroll for ever.
                            d.reroll = None;
                            continue;
                        }
                        return Err(format!(
                            "`reroll {c} always` rerolls every face of the die: it would never stop"
                        ));
                    }
                    d.reroll = Some((c, *always));
                }
            }
            ModOf::Again(c) => {
                let (c, fixed) = nums.cond(c);
                chains.push((c, fixed));
                out.again = Some(c);
            }
            ModOf::Depth(_) => {
                let d = nums.take();
                if d.fixed && !(0..=lang::MAX_CHAIN as i64).contains(&d.value) {
                    return Err(format!(
                        "depth {}: the most extra rolls of a chain are 0 to {}",
                        d.value,
                        lang::MAX_CHAIN
                    ));
                }
                let n = d.value.clamp(0, lang::MAX_CHAIN as i64) as u32;
                specs.iter_mut().for_each(|(_, s)| s.depth = n);
                depth_written = true;
            }
            // Compiled into two keeps of one roll before a pool is made of it.
            ModOf::Middle(_) => {
                return Err("`keep middle` reads a pool bound once: it cannot stand here".into())
            }
            ModOf::Keep(end, _) | ModOf::Drop(end, _) => {
                let n = nums.take().value;
                if out.keep.is_some() {
                    return Err("one `keep` or `drop` per pool".into());
                }
                let drop = matches!(m, ModOf::Drop(..));
                out.keep = Some(keep_of(drop, *end, n, total));
            }
        }
    }
    for ((_, d), &rolled) in specs.iter().zip(rolled_sides) {
        for &(c, fixed) in &chains {
            let (lo, hi) = (d.lo(), d.hi());
            // A rolled threshold that makes every face explode, or rolled sides too few
            // to leave a face that does not (a `d(s) explode` whose `s` came up 1), are
            // cut by the chain's depth, as any long chain is; so is every chain where
            // the depth is written (`d{5} explode depth 2` is 15).
            if fixed
                && !rolled
                && !depth_written
                && !d.faces.is_empty()
                && d.faces.iter().all(|&f| c.holds(f, lo, hi))
            {
                return Err(format!("every face meets `{c}`: every roll would explode"));
            }
        }
    }
    Ok(out)
}

/// Refuse a read the pool cannot take: a named die read as a number, `count max` over
/// several kinds of die, `again` beside a keep, a read past a count or an explosion.
fn check_read(agg: Agg, dice: &Dice, mods: &Modifiers) -> Result<(), String> {
    if !dice.named.is_empty() && !matches!(agg, Agg::Tally(_)) && agg_written(agg) {
        return Err(format!(
            "these dice are counted by name: read them with `count NAME` ({})",
            dice.named.join(", ")
        ));
    }
    if dice.specs.len() > 1 {
        if let Agg::Count(Cond::Max | Cond::Min) = agg {
            return Err(
                "`count max` and `count min` need one kind of die: write the face, e.g. `count >= 6`"
                    .into(),
            );
        }
    }
    if mods.again.is_some() {
        if mods.keep.is_some() || !matches!(agg, Agg::Sum | Agg::Count(_)) {
            return Err(
                "`again` adds dice to the pool: read it with `sum` or `count`, without keep or drop"
                    .into(),
            );
        }
        if dice.specs.iter().any(|(_, d)| d.explode.is_some()) {
            return Err("`explode` and `again` on the same pool: choose one".into());
        }
    }
    Ok(())
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
            message: if named.is_empty() && name == "on" {
                "`count on` names the faces to count: `count on 1, 4` (or `count on {1, 4}`)".into()
            } else if named.is_empty() {
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
