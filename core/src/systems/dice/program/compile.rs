//! The AST to the typed program: names, stats and `let`s resolved in a scope, every
//! operator lowered to its [`Node`].

use super::*;
use crate::systems::dice::lang::Col;

mod counted;
mod repeat;

/// A compile error at a column of the expression.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    /// Where in the expression (characters from 0).
    pub col: usize,
    /// What is wrong, for the designer.
    pub message: String,
}

/// Parse and compile an expression: either step's error as a [`SyntaxError`] at its
/// column, ready to render under the text.
pub fn parse_compiled(text: &str, names: Names) -> Result<Node, lang::SyntaxError> {
    let e = lang::parse(text)?;
    compile(&e, names).map_err(|e| lang::SyntaxError {
        col: e.col,
        message: e.message,
    })
}

/// Names an expression may use besides its `let` variables: stats and scenario keys.
pub type Names<'a> = &'a [(String, i64)];

/// What a name in scope stands for.
#[derive(Clone, Debug)]
pub(super) enum Slot {
    /// A number: the least and most it can be, where a `let` binds it (a `repeat`'s
    /// state or rounds: None, any).
    Num(Option<(i64, i64)>),
    /// A pool variable: its spec and where its dice sit in the scratch.
    Pool(Box<PoolSpec>, usize),
    /// A role of a `choose`: dice handed to it (up to the spec's count), where they sit,
    /// and the lowest and highest face of the pool (its spec also has 0, for bounds);
    /// its largest die's sides are in its number slot, within the last bounds here
    /// (none to the most sides of the pool's dice: `(a sides * 100)d1` of a d8 at most
    /// makes pools up to 800 dice, not the 100 of a count whose bounds are not known).
    Role(Box<PoolSpec>, usize, (i64, i64), (i64, i64)),
}

/// The compiler's state while it lowers one expression: the names in scope, the
/// symbols, and the scratch dice the pool variables hold.
pub(super) struct Compiler<'a> {
    names: Names<'a>,
    /// The expression's symbols, when it counts faces by name.
    symbols: Option<Symbols>,
    /// Whether a record may stand here: the result, or the body of a `let` that is.
    record_ok: bool,
    scope: Vec<(String, Slot)>,
    /// Scratch dice taken by the pool variables in scope.
    used: usize,
    /// How many times the expression being compiled is made: the product of the counts
    /// of every pool variable around it whose dice count is a value ([`Node::CountedVar`]).
    copies: u64,
    /// Whether a `repeat` around this one is being compiled for a guess of its state's
    /// bounds: a `repeat` inside it is made for a state not known, so that repeats
    /// one inside another are not compiled for every guess of every one around them.
    guessing: bool,
}

/// A `let` name in scope: a number, or a pool variable (its dice, their offset in the
/// scratch, how many slots it takes there, and where the pool is written).
pub(super) enum Binding {
    Num(Node),
    Pool(Box<PoolSpec>, usize, usize, usize),
}

impl Binding {
    /// The `let` around `body`, the name at scope depth `i`.
    fn wrap(self, body: Node, i: usize) -> Result<Node, CompileError> {
        Ok(match self {
            Binding::Num(b) => Node::Let(Box::new(b), Box::new(body)),
            Binding::Pool(spec, offset, _, col) if spec.again.is_some() => {
                bind_tallies(*spec, offset, body, i, col)?
            }
            Binding::Pool(spec, offset, ..) => bind_pool(*spec, offset, body, i),
        })
    }
}

/// An `again` pool variable at scope depth `i` around its body: read one way, a number
/// variable (as any pool variable); read several ways, each read a tally of its own,
/// summed die by die as the dice land (its dice are never held: how many varies).
fn bind_tallies(
    spec: PoolSpec,
    offset: usize,
    mut body: Node,
    i: usize,
    col: usize,
) -> Result<Node, CompileError> {
    let mut seen = Vec::new();
    let mut rolled = false;
    reads(&body, i, &mut seen, &mut rolled);
    if seen.len() <= 1 {
        return Ok(bind_pool(spec, offset, body, i));
    }
    if seen.len() > MAX_TALLIES {
        return Err(CompileError {
            col,
            message: format!(
                "a pool variable with `again` is read {} different ways; at most {MAX_TALLIES}",
                seen.len()
            ),
        });
    }
    fn mark(n: &mut Node, i: usize, seen: &[(Option<(End, u32)>, Agg)]) {
        if let Node::PoolVar(r) = n {
            if r.i == i {
                r.tally = seen.iter().position(|w| *w == (r.keep, r.agg));
            }
        }
        each_child_mut(n, &mut |c| mark(c, i, seen));
    }
    mark(&mut body, i, &seen);
    Ok(Node::LetPool {
        spec: Box::new(PoolSpec { ways: seen, ..spec }),
        offset,
        body: Box::new(body),
        choice: None,
    })
}

/// The name of the pool variable `keep middle` binds: a space is in no name a user can
/// write.
const MIDDLE: &str = "keep middle";

/// A pool variable at scope depth `i` around its body.
pub(super) fn bind_pool(spec: PoolSpec, offset: usize, body: Node, i: usize) -> Node {
    let mut seen = Vec::new();
    let mut rolled = false;
    reads(&body, i, &mut seen, &mut rolled);
    match seen.as_slice() {
        // Read one way only: a number variable, its distribution computed once (no
        // need to go through every roll of the pool).
        // (A variable bound with a keep holds the kept dice: a read that keeps again
        // is not one keep of the pool.)
        [(keep, agg)] if !rolled && (keep.is_none() || spec.keep.is_none()) => Node::Let(
            Box::new(Node::Pool(Box::new(PoolSpec {
                keep: keep.or(spec.keep),
                agg: *agg,
                ..spec
            }))),
            Box::new(to_var(body, i)),
        ),
        _ => Node::LetPool {
            spec: Box::new(PoolSpec {
                ways: if rolled { Vec::new() } else { seen },
                ..spec
            }),
            offset,
            body: Box::new(body),
            choice: None,
        },
    }
}

/// 1 if the value is non-zero, else 0: a comparison is that already (`a or b` of two
/// comparisons, as a `repeat`'s `until` often is, tested each against 0 on every round).
pub(super) fn truth(n: Node) -> Node {
    match n {
        Node::Cmp(..) => n,
        _ => Node::Cmp(Cmp::Ne, Box::new(n), Box::new(Node::Num(0))),
    }
}

/// `pool + k` (or `- k`) compared with a number `m`, as the pool compared with `m - k`
/// (or `m + k`): the same dice and the same answer, in one node whose operands the
/// sampler reads in place (`d20 + attack >= ac`, rolled every round of a duel). Only
/// where the sums cannot saturate, which would make the two differ.
fn shifted_cmp(c: Cmp, a: Node, b: Node) -> Node {
    let shifted = |pool: &Node, k: i64, m: i64| -> Option<Node> {
        let Node::Pool(p) = pool else {
            return None;
        };
        // Far inside the range of i64 (faces and numbers are at most a million), so no
        // sum near it can saturate whatever the pool rolls.
        const FAR: i64 = 1 << 48;
        let (lo, hi) = pool_bounds(p);
        if [lo, hi, k, m].iter().any(|v| !(-FAR..=FAR).contains(v)) {
            return None;
        }
        Some(Node::Cmp(
            c,
            Box::new(pool.clone()),
            Box::new(Node::Num(m - k)),
        ))
    };
    let found = match (&a, &b) {
        (Node::Add(x, y), Node::Num(m)) => match (&**x, &**y) {
            (pool, Node::Num(k)) | (Node::Num(k), pool) => shifted(pool, *k, *m),
            _ => None,
        },
        (Node::Sub(x, y), Node::Num(m)) => match &**y {
            Node::Num(k) => k.checked_neg().and_then(|k| shifted(x, k, *m)),
            _ => None,
        },
        _ => None,
    };
    found.unwrap_or_else(|| Node::Cmp(c, Box::new(a), Box::new(b)))
}

/// Most times one expression is made inside pool variables whose dice count is a
/// value ([`Node::CountedVar`]): two such, one inside the other, of up to 100 dice each.
pub const MAX_COPIES: u64 = 101 * 101;

/// Whether `body` reads the dice of the pool variable `name` (a count, a keep, a
/// meeting), not only their sum.
fn reads_dice_of(body: &Expr, name: &str) -> bool {
    let mut found = false;
    let named = |e: &Expr| matches!(e, Expr::Name(n, _) if n == name);
    lang::visit(body, &mut |e| match e {
        Expr::Read { name: n, .. } if n == name => found = true,
        Expr::Versus { a, b, .. } if named(a) || named(b) => found = true,
        _ => {}
    });
    found
}

/// Dice all pool variables in scope may hold at once.
pub const SCRATCH: usize = MAX_DICE as usize;

/// Variables (`let` values, state variables) in scope at once.
pub const VARS: usize = 80;

/// Compile an expression against the names in scope.
pub fn compile(e: &Expr, names: Names) -> Result<Node, CompileError> {
    Compiler::compiling(e, names, false)?.node(e)
}

impl<'a> Compiler<'a> {
    /// A fresh scope for `e`; `record_ok`: whether `e` is a scenario's whole result,
    /// where a record may stand.
    pub(super) fn compiling(
        e: &Expr,
        names: Names<'a>,
        record_ok: bool,
    ) -> Result<Compiler<'a>, CompileError> {
        Ok(Compiler {
            names,
            symbols: Symbols::of(e)?,
            record_ok,
            scope: Vec::new(),
            used: 0,
            copies: 1,
            guessing: false,
        })
    }

    /// A pool's numbers compiled: each a folded value, or the expression rolled for it.
    fn params(
        &mut self,
        groups: &[lang::Group],
        mods: &[ModAst],
        agg: &Option<AggAst>,
    ) -> Result<Vec<Result<i64, Node>>, CompileError> {
        param_exprs(groups, mods, agg)
            .into_iter()
            .map(|e| {
                let n = self.node(e)?;
                Ok(constant(&n).ok_or(n))
            })
            .collect()
    }

    /// A pool whose numbers must all fold at compile (a pool variable, `pairs`).
    fn pool_spec(
        &mut self,
        groups: &[lang::Group],
        mods: &[ModAst],
        agg: &Option<AggAst>,
        col: usize,
    ) -> Result<PoolSpec, CompileError> {
        let mut vals = Vec::new();
        for p in self.params(groups, mods, agg)? {
            match p {
                Ok(v) => vals.push(PoolNumber::fixed(v)),
                Err(_) => return Err(CompileError {
                    col,
                    message: "a number of dice, sides, face or keep that is rolled or changes needs a pool read by itself, e.g. `(hp)d6 count >= w`; in a pool variable, `pairs`, `beats` or `cancel` it must be a number or stats".into(),
                }),
            }
        }
        spec_of(groups, mods, agg, col, &vals, self.symbols.as_ref())
    }

    /// A pool read by itself: a plain pool, one counted by a value, or a template.
    fn pool_node(
        &mut self,
        groups: &[lang::Group],
        mods: &[ModAst],
        agg: &Option<AggAst>,
        col: usize,
    ) -> Result<Node, CompileError> {
        let params = self.params(groups, mods, agg)?;
        if params.iter().all(Result::is_ok) {
            let vals: Vec<PoolNumber> = params
                .into_iter()
                .map(|p| PoolNumber::fixed(p.unwrap_or(0)))
                .collect();
            let spec = spec_of(groups, mods, agg, col, &vals, self.symbols.as_ref())?;
            if !spec.named.is_empty() && !matches!(spec.agg, Agg::Tally(_)) {
                return Err(CompileError {
                    col,
                    message: format!(
                        "these dice are counted by name: read them with `count NAME` ({}), or bind them (`let p = ... in p count {}`)",
                        spec.named.join(", "),
                        spec.named[0]
                    ),
                });
            }
            return Ok(Node::Pool(Box::new(spec)));
        }
        let rolled = params.iter().filter(|p| p.is_err()).count();
        if rolled > MAX_PARAMS {
            return Err(CompileError {
                col,
                message: format!(
                    "at most {MAX_PARAMS} numbers of one pool may be rolled or changing"
                ),
            });
        }
        for m in mods {
            if let ModOf::Reroll(CondOf::Cmp(_, e), true) = m {
                let n = self.node(e)?;
                if constant(&n).is_none() {
                    return Err(CompileError {
                        col,
                        message: "`reroll ... always` needs a face fixed before the roll: a rolled one could reroll every face for ever".into(),
                    });
                }
            }
        }
        let fixed: Vec<Option<i64>> = params.iter().map(|p| p.as_ref().ok().copied()).collect();
        let nodes: Vec<Node> = params.into_iter().filter_map(Result::err).collect();
        // The form's mistakes that no value mends (two keeps, `again` with `keep`) are
        // found now, with every rolled number at 1.
        let probe: Vec<PoolNumber> = fixed
            .iter()
            .map(|f| match f {
                Some(v) => PoolNumber::fixed(*v),
                None => PoolNumber::rolled(1),
            })
            .collect();
        spec_of(groups, mods, agg, col, &probe, self.symbols.as_ref())?;
        // One kind of die whose count alone is rolled: the pool for every count it can
        // take, made now (their Monte Carlo tables when a first trial is rolled:
        // [`tabled`]). A chain of hits from 2d6 attacks makes 13 pools, not 101.
        if let ([g], [None, ..]) = (groups, fixed.as_slice()) {
            if nodes.len() == 1 && g.die.sides.is_none() {
                let most = pools_for(super::bounds(&nodes[0], &mut self.var_bounds()).1);
                let pools = (0..=most)
                    .map(|n| {
                        let mut vals = probe.clone();
                        vals[0] = PoolNumber::rolled(n);
                        spec_of(groups, mods, agg, col, &vals, self.symbols.as_ref())
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let count = nodes.into_iter().next().unwrap_or(Node::Num(0));
                return Ok(Node::Counted(Box::new(count), pools.into()));
            }
        }
        Ok(Node::Template(Box::new(Template {
            groups: groups.to_vec(),
            mods: mods.to_vec(),
            agg: agg.clone(),
            col,
            fixed,
            params: nodes,
            syms: self.symbols.clone(),
        })))
    }

    /// The least and most each name in scope can be, as [`super::bounds`] reads them
    /// (any, where that is not known).
    fn var_bounds(&self) -> Vec<(i64, i64)> {
        self.scope
            .iter()
            .map(|(_, s)| match s {
                Slot::Num(Some(b)) => *b,
                Slot::Role(.., sides) => *sides,
                _ => (i64::MIN, i64::MAX),
            })
            .collect()
    }

    pub(super) fn node(&mut self, e: &Expr) -> Result<Node, CompileError> {
        // A record only as the result: here, or in the body of a `let` that is.
        let record_ok = std::mem::replace(&mut self.record_ok, false);
        let bin =
            |s: &mut Self, a: &Expr, b: &Expr| -> Result<(Box<Node>, Box<Node>), CompileError> {
                Ok((Box::new(s.node(a)?), Box::new(s.node(b)?)))
            };
        Ok(match e {
            Expr::Num(v) => Node::Num(*v),
            Expr::Name(n, col) => self.name_node(n, col)?,
            Expr::Read {
                name,
                keep,
                agg,
                col,
            } => match keep.as_deref() {
                Some(ModOf::Middle(k)) => self.middle_var(name, k, agg, col)?,
                keep => self.read_var(name, keep, agg, col)?,
            },
            Expr::Neg(a) => Node::Neg(Box::new(self.node(a)?)),
            Expr::Bin(op, a, b) => {
                let (a, b) = bin(self, a, b)?;
                let n = match op {
                    Op::Add => Node::Add(a, b),
                    Op::Sub => Node::Sub(a, b),
                    Op::Mul => Node::Mul(a, b),
                    Op::Div => Node::Div(a, b),
                    Op::Max => Node::Max(a, b),
                    Op::Min => Node::Min(a, b),
                    Op::Cmp(c) => shifted_cmp(*c, *a, *b),
                };
                match constant(&n) {
                    Some(v) => Node::Num(v),
                    None => n,
                }
            }
            Expr::Let(name, bound, body) => self.let_in(name, bound, body, record_ok)?,
            Expr::Choose(c) => self.choose(c, record_ok)?,
            Expr::Pick(p) => self.pick(p, record_ok)?,
            Expr::Sides(name, col) => self.sides_of(name, *col)?,
            Expr::Card { faces, before, .. } => self.card(faces, before)?,
            // A side that settles the answer leaves the other unread, as a designer
            // reads `a == b and (c == a or d == a)`: the exact engines then deal or
            // roll what only the other side reads on its branch alone (a flop dealt
            // only where the hole cards pair), not for every way the first side goes.
            Expr::And(a, b) => {
                let (a, b) = bin(self, a, b)?;
                Node::If(
                    Box::new(truth(*a)),
                    Box::new(truth(*b)),
                    Box::new(Node::Num(0)),
                )
            }
            Expr::Or(a, b) => {
                let (a, b) = bin(self, a, b)?;
                Node::If(
                    Box::new(truth(*a)),
                    Box::new(Node::Num(1)),
                    Box::new(truth(*b)),
                )
            }
            Expr::Not(a) => Node::Cmp(Cmp::Eq, Box::new(self.node(a)?), Box::new(Node::Num(0))),
            Expr::Repeat(r) => {
                let d = self.scope.len();
                let out = self.repeat(r, record_ok);
                self.scope.truncate(d);
                out?
            }
            Expr::If(c, a, b) => Node::If(
                Box::new(self.node(c)?),
                Box::new(self.node(a)?),
                Box::new(self.node(b)?),
            ),
            Expr::Versus {
                kind,
                a,
                b,
                ties,
                col,
                only,
                read,
            } => self.versus(kind, [a, b], ties, col, (only, read))?,
            Expr::Pool {
                groups,
                mods,
                agg,
                col,
            } if mods.iter().any(|m| matches!(m, ModOf::Middle(_))) => {
                self.middle(groups, mods, agg, *col)?
            }
            Expr::Pool {
                groups,
                mods,
                agg,
                col,
            } => self.pool_node(groups, mods, agg, *col)?,
            Expr::Record(fields, col) => self.record(fields, *col, record_ok)?,
        })
    }

    /// `NAME sides`: the sides of dice a `choose` handed out.
    fn sides_of(&mut self, name: &str, col: Col) -> Result<Node, CompileError> {
        match self.scope.iter().rposition(|(s, _)| s == name) {
            Some(i) if matches!(self.scope[i].1, Slot::Role(..)) => Ok(Node::Var(i)),
            Some(_) => Err(CompileError {
                col,
                message: format!("`{name} sides`: only the dice a `choose` hands out know their sizes (`choose effect = 1 from [...] ... effect sides`)"),
            }),
            None => Err(self.unknown(name, col)),
        }
    }

    /// A record `{ name = ..., ... }`: the scenario's result only.
    fn record(
        &mut self,
        fields: &[(String, Expr, Col)],
        col: Col,
        record_ok: bool,
    ) -> Result<Node, CompileError> {
        if !record_ok {
            return Err(CompileError {
                col,
                message: "a record `{ name = ..., ... }` is the scenario's result: write it last, after any `let`s, not inside another expression".into(),
            });
        }
        let mut parts = Vec::new();
        for (_, e, _) in fields {
            parts.push(self.node(e)?);
        }
        Ok(Node::Record(parts))
    }

    /// A name: a `let` variable, else a stat or key of the scenario.
    fn name_node(&mut self, n: &str, col: &Col) -> Result<Node, CompileError> {
        Ok(match self.scope.iter().rposition(|(s, _)| s == n) {
            Some(i) => match &self.scope[i].1 {
                Slot::Num(_) => Node::Var(i),
                Slot::Pool(spec, _) if !spec.named.is_empty() => {
                    return Err(CompileError {
                        col: *col,
                        message: format!(
                            "`{n}` holds dice counted by name: read it with `count NAME` ({})",
                            spec.named.join(", ")
                        ),
                    })
                }
                Slot::Pool(spec, offset) => {
                    self.read(i, spec.clone(), *offset, None, Agg::Sum, None)
                }
                Slot::Role(spec, offset, faces, _) => sized(
                    self.read(i, spec.clone(), *offset, None, Agg::Sum, None),
                    *faces,
                ),
            },
            None => match self.names.iter().find(|(k, _)| k == n) {
                Some((_, v)) => Node::Num(*v),
                None => return Err(self.unknown(n, *col)),
            },
        })
    }

    /// `keep middle` of a pool variable.
    fn middle_var(
        &mut self,
        name: &str,
        k: &Expr,
        agg: &Option<AggAst>,
        col: &Col,
    ) -> Result<Node, CompileError> {
        let Some(i) = self.scope.iter().rposition(|(s, _)| s == name) else {
            return Err(self.unknown(name, *col));
        };
        let total = match &self.scope[i].1 {
            Slot::Pool(spec, _) if spec.again.is_some() => {
                return Err(CompileError {
                    col: *col,
                    message: format!("`{name}` holds a pool with `again`, whose dice count varies: it has no middle dice to keep; read it with `sum` or `count`"),
                })
            }
            Slot::Pool(spec, _) => spec.kept() as u32,
            _ => {
                return Err(CompileError {
                    col: *col,
                    message: format!("`keep middle` reads dice: `{name}` holds a number or the dice a `choose` handed it"),
                })
            }
        };
        self.middle_read(name, k, total, agg, *col)
    }

    /// A read of a pool variable: its keep or drop, then its read, each number folded
    /// or rolled at the read.
    fn read_var(
        &mut self,
        name: &str,
        keep: Option<&ModAst>,
        agg: &Option<AggAst>,
        col: &Col,
    ) -> Result<Node, CompileError> {
        let Some(i) = self.scope.iter().rposition(|(s, _)| s == name) else {
            return Err(self.unknown(name, *col));
        };
        let (spec, offset, role) = match self.scope[i].1.clone() {
            Slot::Pool(spec, offset) => (spec, offset, None),
            Slot::Role(spec, offset, faces, _) => (spec, offset, Some(faces)),
            Slot::Num(_) => return Err(CompileError {
                col: *col,
                message: format!(
                    "`{name}` is a number: `keep`, `drop`, `count` and the other reads apply to dice (bind dice without a read: `let {name} = 4d6 in ...`; dice whose faces are rolled, or with more than one number rolled, are bound as their sum, so read them where they are rolled: `(a)d6 count >= 5`; dice whose one rolled number is a count, or the sides of one kind of dice, are held: `let p = (a)d6 in p count 6`, `let p = [(a)d6, 2d8] in p highest`, `let p = 3d(s) in p highest`)"
                ),
            }),
        };
        let total = spec.kept() as u32;
        // The read's numbers: the keep's count and the count's face, each folded
        // or rolled at the read.
        let mut rolled = ReadParams::default();
        let is_drop = matches!(keep, Some(ModOf::Drop(..)));
        let keep = match keep {
            Some(m @ (ModOf::Keep(end, e) | ModOf::Drop(end, e))) => {
                let drop = matches!(m, ModOf::Drop(..));
                let n = self.node(e)?;
                match constant(&n) {
                    Some(v) => Some(keep_of(drop, *end, v, total)),
                    None => {
                        rolled.keep = Some((drop, *end, n));
                        Some(keep_of(drop, *end, 0, total))
                    }
                }
            }
            _ => None,
        };
        let agg = match agg {
            None | Some(AggOf::Sum) => AggOf::Sum,
            Some(AggOf::Count(CondOf::Cmp(op, e))) => {
                let n = self.node(e)?;
                match constant(&n) {
                    Some(v) => AggOf::Count(CondOf::Cmp(*op, v)),
                    None => {
                        rolled.face = Some(n);
                        AggOf::Count(CondOf::Cmp(*op, 0))
                    }
                }
            }
            Some(AggOf::Count(CondOf::Max)) => AggOf::Count(CondOf::Max),
            Some(AggOf::Count(CondOf::Min)) => AggOf::Count(CondOf::Min),
            Some(AggOf::Count(CondOf::On(f))) => AggOf::Count(CondOf::On(*f)),
            Some(AggOf::Count(CondOf::Even)) => AggOf::Count(CondOf::Even),
            Some(AggOf::Count(CondOf::Odd)) => AggOf::Count(CondOf::Odd),
            Some(AggOf::Highest) => AggOf::Highest,
            Some(AggOf::Lowest) => AggOf::Lowest,
            Some(AggOf::MaxSet) => AggOf::MaxSet,
            Some(AggOf::Straight) => AggOf::Straight,
            Some(AggOf::Shape(s)) => AggOf::Shape(*s),
            Some(AggOf::Tally(x)) => {
                AggOf::Tally(tally_of(x, &spec.named, self.symbols.as_ref(), *col)?)
            }
        };
        if !spec.named.is_empty() && !matches!(agg, Agg::Tally(_)) {
            return Err(CompileError {
                col: *col,
                message: format!(
                    "`{name}` holds dice counted by name: read it with `count NAME` ({})",
                    spec.named.join(", ")
                ),
            });
        }
        let rolled = (rolled.keep.is_some() || rolled.face.is_some()).then(|| Box::new(rolled));
        let mixed_end =
            spec.groups.len() > 1 && matches!(agg, Agg::Count(CondOf::Max | CondOf::Min));
        if spec.again.is_some()
            && (keep.is_some()
                || rolled.is_some()
                || mixed_end
                || !matches!(agg, Agg::Sum | Agg::Count(_)))
        {
            return Err(CompileError {
                col: *col,
                message: format!("`{name}` holds a pool with `again`, whose dice count varies: read it with `sum` or `count` of a fixed face, without keep or drop (e.g. `{name} count {}`)", spec.groups.iter().map(|(_, d)| d.hi()).max().unwrap_or(1)),
            });
        }
        if role.is_some() && (rolled.is_some() || is_drop) {
            return Err(CompileError {
                col: *col,
                message: format!("`{name}` holds the dice a `choose` handed it, as many as were left: read it with `keep` (a `drop` or a rolled number has no fixed count to go by)"),
            });
        }
        let n = self.read(i, spec, offset, keep, agg, rolled);
        Ok(match role {
            Some(faces) => sized(n, faces),
            None => n,
        })
    }

    /// An `only` condition (or a count's, beside it): its face fixed before the roll.
    fn only(&mut self, c: &CondAst, col: Col) -> Result<Cond, CompileError> {
        c.try_map(|e| {
            let n = self.node(e)?;
            constant(&n).ok_or_else(|| CompileError {
                col,
                message: "`only` takes a face fixed before the roll: a number or stats".into(),
            })
        })
    }

    /// Two sides set against each other (`pairs`, `beats`, `cancel`).
    fn versus(
        &mut self,
        kind: &Versus,
        [a, b]: [&Expr; 2],
        ties: &bool,
        col: &Col,
        (only, read): (&[Option<CondAst>; 2], &Option<AggAst>),
    ) -> Result<Node, CompileError> {
        let (x, y) = (self.meeting_side(a, *col)?, self.meeting_side(b, *col)?);
        let named_a = x.spec().named.clone();
        let mut cond = |c: &Option<CondAst>| -> Result<Option<Cond>, CompileError> {
            c.as_ref().map(|c| self.only(c, *col)).transpose()
        };
        let only = [cond(&only[0])?, cond(&only[1])?];
        let read = match read {
            None => None,
            Some(a) => Some(match a {
                AggOf::Sum => AggOf::Sum,
                AggOf::Highest => AggOf::Highest,
                AggOf::Lowest => AggOf::Lowest,
                AggOf::MaxSet => AggOf::MaxSet,
                AggOf::Straight => AggOf::Straight,
                AggOf::Shape(s) => AggOf::Shape(*s),
                AggOf::Count(c) => AggOf::Count(cond(&Some(c.clone()))?.unwrap_or(CondOf::Max)),
                AggOf::Tally(t) => {
                    AggOf::Tally(tally_of(t, &named_a, self.symbols.as_ref(), *col)?)
                }
            }),
        };
        Ok(match (x, y) {
            (Side::Pool(p), Side::Pool(q)) if only == [None, None] && read.is_none() => {
                Node::Versus(*kind, p, q, *ties)
            }
            (x, y) => Node::Meeting(Box::new(Meeting {
                kind: *kind,
                sides: [x, y],
                only,
                ties: *ties,
                read,
            })),
        })
    }

    /// One side of a meeting (`pairs`, `beats`, `cancel`): a pool variable in scope, or
    /// dice written there.
    fn meeting_side(&mut self, e: &Expr, at: Col) -> Result<Side, CompileError> {
        if let Expr::Name(name, at) = e {
            return match self.scope.iter().rposition(|(x, _)| x == name) {
                Some(i) => match &self.scope[i].1 {
                    Slot::Pool(spec, _) if spec.again.is_some() => Err(CompileError {
                        col: *at,
                        message: format!("`{name}` holds a pool with `again`: its dice cannot be paired off, since their count varies"),
                    }),
                    Slot::Pool(spec, offset) => Ok(Side::Var {
                        i,
                        offset: *offset,
                        spec: spec.clone(),
                    }),
                    Slot::Role(..) => Err(CompileError {
                        col: *at,
                        message: format!("`{name}` holds dice a `choose` handed it: they are not set against other dice"),
                    }),
                    Slot::Num(_) => Err(CompileError {
                        col: *at,
                        message: format!("`{name}` is a number: `pairs`, `beats` and `cancel` set dice against dice (bind dice without a read: `let {name} = 3d20 in ...`)"),
                    }),
                },
                None => Err(self.unknown(name, *at)),
            };
        }
        Ok(Side::Pool(self.meeting_pool(e, at)?))
    }

    /// Dice written as one side of a meeting: numbers fixed at compile, no deck, no
    /// `again` (its dice count varies).
    fn meeting_pool(&mut self, e: &Expr, at: Col) -> Result<Box<PoolSpec>, CompileError> {
        let Expr::Pool {
            groups, mods, col, ..
        } = e
        else {
            return Err(CompileError {
                col: at,
                message: "dice expected".into(),
            });
        };
        let s = self.pool_spec(groups, mods, &None, *col)?;
        if s.deck().is_some() {
            return Err(CompileError {
                col: *col,
                message: "`pairs`, `beats` and `cancel` set dice against dice, not a deck".into(),
            });
        }
        if s.again.is_some() {
            return Err(CompileError {
                col: *col,
                message: "`again` cannot be paired off: its pool's size varies".into(),
            });
        }
        Ok(Box::new(s))
    }

    /// Bring a `let` name into scope: dice without a read become a pool variable.
    fn bind(&mut self, name: &str, bound: &Expr) -> Result<Binding, CompileError> {
        if self.scope.len() >= VARS {
            return Err(CompileError {
                col: 0,
                message: format!("more than {VARS} names in scope at once"),
            });
        }
        if let Expr::Pool {
            groups,
            mods,
            agg: None,
            col,
        } = bound
        {
            // Dice whose count, sides or a face is rolled (`let x = (a)d6 in x > y`)
            // change from roll to roll, so no pool variable holds them: such a `let` is
            // the number the dice read as by themselves (their sum), as `let x = d6`
            // is. Their faces are read where they are rolled (`(a)d6 count >= 5`).
            let fixed = param_exprs(groups, mods, &None)
                .into_iter()
                .all(|e| self.node(e).is_ok_and(|n| constant(&n).is_some()));
            if !fixed {
                let b = self.node(bound)?;
                let range = super::bounds(&b, &mut self.var_bounds());
                self.scope.push((name.to_string(), Slot::Num(Some(range))));
                return Ok(Binding::Num(b));
            }
            // Dice bound without a read: a pool variable, read in the body.
            let spec = self.pool_spec(groups, mods, &None, *col)?;
            return self.bind_dice(name, spec, *col);
        }
        let b = self.node(bound)?;
        let range = super::bounds(&b, &mut self.var_bounds());
        self.scope.push((name.to_string(), Slot::Num(Some(range))));
        Ok(Binding::Num(b))
    }

    /// `let NAME = BOUND in BODY`.
    fn let_in(
        &mut self,
        name: &str,
        bound: &Expr,
        body: &Expr,
        record_ok: bool,
    ) -> Result<Node, CompileError> {
        if let Some(at) = reads_dice_of(body, name)
            .then(|| self.varies(bound))
            .flatten()
        {
            return self.counted_var(name, (bound, at), &mut |s| {
                s.record_ok = record_ok;
                s.node(body)
            });
        }
        let binding = self.bind(name, bound)?;
        self.record_ok = record_ok;
        let r = self.node(body);
        self.unbind(&binding);
        binding.wrap(r?, self.scope.len())
    }

    /// A card of a deal in order, after the cards named `before` it.
    fn card(&mut self, faces: &[i64], before: &[Expr]) -> Result<Node, CompileError> {
        let before = before
            .iter()
            .map(|b| self.node(b))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Node::Card(Box::new(Card::of_faces(faces, before))))
    }

    /// `name` bound to the dice of `spec`, a pool variable.
    fn bind_dice(&mut self, name: &str, spec: PoolSpec, col: Col) -> Result<Binding, CompileError> {
        // An `again` pool's dice count varies: it holds one tally per way it is read.
        let n = match spec.again {
            Some(_) => MAX_TALLIES as u32,
            None => spec.groups.iter().map(|(n, _)| n).sum(),
        };
        let offset = self.used;
        if offset + n as usize > SCRATCH {
            return Err(CompileError {
                col,
                message: format!("pool variables hold at most {SCRATCH} dice at once"),
            });
        }
        self.used += n as usize;
        self.scope
            .push((name.to_string(), Slot::Pool(Box::new(spec.clone()), offset)));
        Ok(Binding::Pool(Box::new(spec), offset, n as usize, col))
    }

    /// `reroll p = DICE ... to maximise OBJECTIVE in BODY`: a pool variable whose dice
    /// a choice rerolls before the body reads them.
    fn choose(&mut self, c: &lang::Choose, record_ok: bool) -> Result<Node, CompileError> {
        let refuse = |message: String| CompileError {
            col: c.col,
            message,
        };
        let depth = self.scope.len();
        let binding = self.bind(&c.name, &c.pool)?;
        let (spec, offset) = match &binding {
            Binding::Pool(spec, offset, ..) => ((**spec).clone(), *offset),
            Binding::Num(_) => {
                self.unbind(&binding);
                return Err(refuse(format!(
                    "`reroll {} = ...` rerolls dice: bind dice without a read, e.g. `reroll {} = 5d6 to maximise {} count 6`",
                    c.name, c.name, c.name
                )));
            }
        };
        self.record_ok = false;
        let objective = self.node(&c.objective);
        self.record_ok = record_ok;
        let body = match &c.body {
            Some(b) => self.node(b),
            None => objective.clone(),
        };
        self.unbind(&binding);
        let (objective, body) = (objective?, body?);
        let die = match spec.groups.as_slice() {
            [(_, d)] if !d.deck && spec.keep.is_none() && spec.again.is_none() => d.clone(),
            _ => {
                return Err(refuse(
                    "a choice rerolls one kind of die, without a keep, `again` or a deck: e.g. `reroll p = 5d6 to maximise ...`".into(),
                ))
            }
        };
        if (0..depth).any(|i| mentions(&objective, i)) || rolls_dice(&objective) {
            return Err(refuse(format!(
                "the objective may read only `{}` and numbers (no dice of its own): the choice is worked out once, before any roll",
                c.name
            )));
        }
        let n = spec.groups[0].0;
        let choice = choice::plan(die, n, c.rerolls, c.goal, &objective, (depth, offset))
            .map_err(|why| refuse(format!("this choice cannot be made: {why}")))?;
        Ok(Node::LetPool {
            spec: Box::new(PoolSpec {
                ways: Vec::new(),
                ..spec
            }),
            offset,
            body: Box::new(body),
            choice: Some(Box::new(choice)),
        })
    }

    /// `choose ROLE = K, ... from DICE only COND to maximise OBJECTIVE in BODY`.
    fn pick(&mut self, p: &lang::Pick, record_ok: bool) -> Result<Node, CompileError> {
        let refuse = |message: String| CompileError {
            col: p.col,
            message,
        };
        let Expr::Pool {
            groups,
            mods,
            agg: None,
            col,
        } = &p.pool
        else {
            return Err(refuse(
                "`choose ... from` takes dice without a read, e.g. `[1d10, 2d8, 1d6]`".into(),
            ));
        };
        if !mods.is_empty() {
            return Err(refuse(
                "`choose ... from` takes plain dice (no modifiers): it picks from what they show"
                    .into(),
            ));
        }
        let spec = self.pool_spec(groups, mods, &None, *col)?;
        if spec.deck().is_some() || !spec.named.is_empty() {
            return Err(refuse(
                "`choose ... from` takes dice with numbers on their faces, not a deck or symbols"
                    .into(),
            ));
        }
        let n: u32 = spec.groups.iter().map(|(n, _)| n).sum();
        if n > pick::MAX_DICE {
            return Err(refuse(format!(
                "`choose` picks from at most {} dice, not {n}",
                pick::MAX_DICE
            )));
        }
        let ks: Vec<u32> = p.roles.iter().map(|(_, k, _)| *k).collect();
        let ways = pick::ways(n, &ks);
        if ways > pick::MAX_WAYS {
            return Err(refuse(format!(
                "{n} dice handed out this way can go {ways} ways on one roll; a `choose` tries at most {}",
                pick::MAX_WAYS
            )));
        }
        let only = p.only.as_ref().map(|c| self.only(c, p.col)).transpose()?;
        let depth = self.scope.len();
        if depth + p.roles.len() > VARS {
            return Err(refuse(format!("more than {VARS} names in scope at once")));
        }
        // A role's bounds: as many dice as it takes, of any face of the pool, or none.
        let mut faces: Vec<i64> = spec
            .groups
            .iter()
            .flat_map(|(_, d)| d.faces.iter().copied())
            .chain([0])
            .collect();
        faces.sort_unstable();
        faces.dedup();
        let real = (
            spec.groups.iter().map(|(_, d)| d.lo()).min().unwrap_or(0),
            spec.groups.iter().map(|(_, d)| d.hi()).max().unwrap_or(0),
        );
        let sides = pick::sides_bounds(&spec.groups);
        let start = self.used;
        let mut roles = Vec::new();
        for (name, k, _) in &p.roles {
            let offset = self.used;
            if offset + *k as usize > SCRATCH {
                self.scope.truncate(depth);
                self.used = start;
                return Err(refuse(format!(
                    "pool variables hold at most {SCRATCH} dice at once"
                )));
            }
            self.used += *k as usize;
            let role = PoolSpec {
                groups: vec![(*k, DieSpec::new(faces.clone()))],
                ways: Vec::new(),
                table: None,
                ..spec.clone()
            };
            self.scope.push((
                name.clone(),
                Slot::Role(Box::new(role), offset, real, sides),
            ));
            roles.push((*k, offset));
        }
        self.record_ok = false;
        let objective = self.node(&p.objective);
        self.record_ok = record_ok;
        let body = match &p.body {
            Some(b) => self.node(b),
            None => objective.clone(),
        };
        self.scope.truncate(depth);
        self.used = start;
        let (objective, body) = (objective?, body?);
        if (0..depth).any(|i| mentions(&objective, i)) || rolls_dice(&objective) {
            return Err(refuse(
                "the objective may read only the dice chosen and numbers: it is worked out for every way to hand them out".into(),
            ));
        }
        Ok(Node::Pick(Box::new(Picker {
            groups: spec.groups.clone(),
            only,
            roles,
            goal: p.goal,
            objective,
            body,
            depth,
        })))
    }

    /// `POOL keep middle K READ`: the pool bound once (a pool variable of a name no
    /// expression can write) and read as keeps from its lowest end, so both engines read
    /// the middle dice with what they have for one keep: the exact engine's pass over
    /// both reads together, Monte Carlo's one roll sorted.
    fn middle(
        &mut self,
        groups: &[lang::Group],
        mods: &[ModAst],
        agg: &Option<AggAst>,
        col: usize,
    ) -> Result<Node, CompileError> {
        let refuse = |message: &str| CompileError {
            col,
            message: message.into(),
        };
        let keeps = mods
            .iter()
            .filter(|m| matches!(m, ModOf::Keep(..) | ModOf::Drop(..) | ModOf::Middle(_)))
            .count();
        if keeps > 1 {
            return Err(refuse("one `keep` or `drop` per pool"));
        }
        let Some(ModOf::Middle(k)) = mods.iter().find(|m| matches!(m, ModOf::Middle(_))) else {
            return Err(refuse("`keep middle N` keeps N dice"));
        };
        let rest: Vec<ModAst> = mods
            .iter()
            .filter(|m| !matches!(m, ModOf::Middle(_)))
            .cloned()
            .collect();
        let bound = Expr::Pool {
            groups: groups.to_vec(),
            mods: rest,
            agg: None,
            col,
        };
        // A count that is rolled: the pool bound as a variable read in the middle, as a
        // designer writes it with a `let` (`let p = (d4)d6 in p keep middle 2 sum`),
        // its body made for every count.
        if groups.iter().any(|g| !matches!(g.count, Expr::Num(_))) {
            let read = Expr::Read {
                name: MIDDLE.into(),
                keep: Some(Box::new(ModOf::Middle(k.clone()))),
                agg: agg.clone(),
                col,
            };
            return self.node(&Expr::Let(MIDDLE.into(), Box::new(bound), Box::new(read)));
        }
        let depth = self.scope.len();
        let binding = self.bind(MIDDLE, &bound)?;
        let total = match &binding {
            Binding::Pool(spec, ..) if spec.again.is_some() => {
                self.unbind(&binding);
                return Err(refuse(
                    "`again` adds dice to the pool: read it with `sum` or `count`, without keep or drop",
                ));
            }
            Binding::Pool(spec, ..) => spec.kept() as u32,
            Binding::Num(_) => {
                self.unbind(&binding);
                return Err(refuse("`keep middle` keeps dice of a pool"));
            }
        };
        let body = self.middle_read(MIDDLE, k, total, agg, col);
        self.unbind(&binding);
        binding.wrap(body?, depth)
    }

    /// The middle `k` of the `total` dice of the pool variable `name`, read by `agg`:
    /// `sum` and `count` are the lowest `low + k` less the lowest `low` (`low` dice
    /// dropped from the bottom, the rest of the dice left over from the top), `highest`
    /// is the highest of the lowest `low + k`, `lowest` the lowest of the highest
    /// `total - low`. A `k` that is a value (`let k = d2 in 5d6 keep middle k`) is bound
    /// once (a name no expression can write) and the keeps' counts worked out from it
    /// where the pool is read, clamped to the dice as a rolled keep count is.
    fn middle_read(
        &mut self,
        name: &str,
        k: &Expr,
        total: u32,
        agg: &Option<AggAst>,
        col: usize,
    ) -> Result<Node, CompileError> {
        const COUNT: &str = "keep middle count";
        let num = |v: i64| Box::new(Expr::Num(v));
        let bin = |op: Op, a: Box<Expr>, b: Box<Expr>| Box::new(Expr::Bin(op, a, b));
        let total_n = i64::from(total);
        // The dice kept from the bottom below the middle and with it, and from the top
        // above its lowest: numbers where `k` is fixed, else expressions of its name.
        let (low, upto, top, rolled) = match constant(&self.node(k)?) {
            Some(k) if k < 0 => {
                return Err(CompileError {
                    col,
                    message: format!("`keep middle {k}` keeps no fewer than 0 dice"),
                })
            }
            // More than the dice: all of them, as `keep highest` keeps them (a pool
            // whose count is rolled may come with fewer dice than the middle it reads).
            Some(k) => {
                let k = k.min(total_n);
                let low = (total_n - k) / 2;
                (num(low), num(low + k), num(total_n - low), None)
            }
            None => {
                let count = || Box::new(Expr::Name(COUNT.into(), col));
                let low = || bin(Op::Div, bin(Op::Sub, num(total_n), count()), num(2));
                let clamped = bin(
                    Op::Max,
                    num(0),
                    bin(Op::Min, Box::new(k.clone()), num(total_n)),
                );
                let upto = bin(Op::Add, low(), count());
                (
                    low(),
                    upto,
                    bin(Op::Sub, num(total_n), low()),
                    Some(clamped),
                )
            }
        };
        let read = |end: End, n: Box<Expr>| {
            Box::new(Expr::Read {
                name: name.to_string(),
                keep: Some(Box::new(ModOf::Keep(end, n))),
                agg: agg.clone(),
                col,
            })
        };
        let body = match agg {
            None | Some(AggOf::Sum) | Some(AggOf::Count(_)) | Some(AggOf::Tally(_)) => {
                bin(Op::Sub, read(End::Lowest, upto), read(End::Lowest, low))
            }
            Some(AggOf::Highest) => read(End::Lowest, upto),
            Some(AggOf::Lowest) => read(End::Highest, top),
            Some(AggOf::MaxSet) | Some(AggOf::Straight) | Some(AggOf::Shape(_)) => {
                return Err(CompileError {
                    col,
                    message: "`keep middle` is read with `sum`, `count`, `highest` or `lowest`"
                        .into(),
                })
            }
        };
        self.node(&match rolled {
            Some(clamped) => Expr::Let(COUNT.into(), clamped, body),
            None => *body,
        })
    }

    fn unbind(&mut self, b: &Binding) {
        self.scope.pop();
        if let Binding::Pool(_, _, n, _) = b {
            self.used -= n;
        }
    }

    fn read(
        &self,
        i: usize,
        spec: Box<PoolSpec>,
        offset: usize,
        keep: Option<(End, u32)>,
        agg: Agg,
        rolled: Option<Box<ReadParams>>,
    ) -> Node {
        let len = spec.kept();
        let lo = spec.groups.iter().map(|(_, d)| d.lo()).min().unwrap_or(0);
        let hi = spec.groups.iter().map(|(_, d)| d.hi()).max().unwrap_or(0);
        Node::PoolVar(Box::new(PoolRead {
            i,
            offset,
            len,
            keep,
            agg,
            lo,
            hi,
            spec,
            rolled,
            sized: false,
            tally: None,
        }))
    }

    fn unknown(&self, n: &str, col: usize) -> CompileError {
        let known: Vec<&str> = self
            .scope
            .iter()
            .map(|(s, _)| s.as_str())
            .chain(self.names.iter().map(|(k, _)| k.as_str()))
            .collect();
        CompileError {
            col,
            message: format!(
                "unknown name `{n}`{}; {}",
                nearest_hint(n, known.iter().copied()),
                if known.is_empty() {
                    "no names are in scope (a `let`, or the unit's stats)".to_string()
                } else {
                    format!("the names in scope are {}", known.join(", "))
                }
            ),
        }
    }
}

/// A `keep` or `drop` of `n` from `end` of `total` dice, as a keep.
pub(super) fn keep_of(drop: bool, end: End, n: i64, total: u32) -> (End, u32) {
    let n = n.clamp(0, total as i64) as u32;
    match drop {
        true => (
            match end {
                End::Highest => End::Lowest,
                End::Lowest => End::Highest,
            },
            total - n,
        ),
        false => (end, n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(text: &str) -> Node {
        parse_compiled(text, &[]).expect(text)
    }

    /// `d20 + 5 >= 13` is the d20 against 8 (and `d20 - 2 < 4` against 6); `or` and `and`
    /// of two comparisons branch on the first. Sums that could saturate
    /// are left as written.
    #[test]
    fn comparisons_of_shifted_pools_and_truths_are_simplified() {
        let pool_vs = |n: &Node| match n {
            Node::Cmp(c, p, m) if matches!(**p, Node::Pool(_)) => match **m {
                Node::Num(m) => Some((*c, m)),
                _ => None,
            },
            _ => None,
        };
        assert_eq!(pool_vs(&compiled("d20 + 5 >= 13")), Some((Cmp::Ge, 8)));
        assert_eq!(pool_vs(&compiled("5 + d20 >= 13")), Some((Cmp::Ge, 8)));
        assert_eq!(pool_vs(&compiled("d20 - 2 < 4")), Some((Cmp::Lt, 6)));
        let big = [("big".to_string(), i64::MAX - 3)];
        let n = parse_compiled("2d6 + big == 0", &big).expect("big");
        assert!(
            matches!(&n, Node::Cmp(Cmp::Eq, a, _) if matches!(**a, Node::Add(..))),
            "{n:?}"
        );
        // `or` reads its right side only where the left does not hold, with no test of
        // either comparison against 0; `and` the other way round.
        match compiled("d6 >= 5 or d6 <= 1") {
            Node::If(a, one, b) => {
                assert_eq!(*one, Node::Num(1));
                assert!(
                    pool_vs(&a).is_some() && pool_vs(&b).is_some(),
                    "{a:?} {b:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        match compiled("d6 >= 5 and d6 <= 1") {
            Node::If(a, b, zero) => {
                assert_eq!(*zero, Node::Num(0));
                assert!(
                    pool_vs(&a).is_some() && pool_vs(&b).is_some(),
                    "{a:?} {b:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
