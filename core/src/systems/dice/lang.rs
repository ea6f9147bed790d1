//! The dice language: a line a designer writes in a config (`roll = "4d6 drop lowest"`)
//! parsed into an expression tree, with errors that point at the column.
//!
//! ```text
//! expr     := "let" NAME "=" expr "in" expr     bound dice without a read: a pool variable
//!           | "let" NAME ("," NAME)+ "=" dice "in" expr   each card of a deal (or die) in order
//!           | "reroll" NAME "=" dice ("twice" | INT "times")? "to" ("maximise" | "minimise")
//!             expr ("in" expr)?      dice rerolled by the best choice for the objective
//!           | "choose" NAME "=" INT ("," NAME "=" INT)* "from" pool ("only" cond)?
//!             "to" ("maximise" | "minimise") expr ("in" expr)?
//!                                 dice of one roll picked into roles (Cortex: a total and
//!                                 an effect die); `NAME sides` reads a role's largest die
//!           | "if" expr "then" expr "else" expr
//!           | compare
//! compare  := sum (("<=" | ">=" | "<" | ">" | "==" | "!=") sum)?      1 if true, else 0
//! sum      := product (("+" | "-") product)*
//! product  := unary (("*" | "/") unary)*                               "/" rounds down
//! unary    := "-" unary | pool
//! pool     := atom modifier* aggregate?     on a `let` pool variable: keep/drop, aggregate
//! atom     := INT | NAME | "(" expr ")" | dice | "[" dice ("," dice)* "]" | record
//!           | "deck" "{" face ("," face)* "}" "draw" number      cards without replacement
//!           | "allocate" "(" ("models" | "wounds" | "hits" | "damage") "=" expr ... ("," "spill")? ")"
//!             ("then" expr)?                  damage over models: a `repeat`, see `allocation`
//! record   := "{" NAME "=" expr ("," NAME "=" expr)* "}"   the result only, after `let`s
//! dice     := (INT | "(" expr ")")? "d" (INT | "F" | "%" | "{" face ("," face)* "}"
//!                                       | "(" expr ")")      d(EXPR): sides from a value
//! face     := (INT | NAME ("=" INT)?) ("*" INT)?   a named face counts its value: default 1,
//!                                            0 for blank, miss, none and empty
//!           | NAME ("+" NAME)+               several symbols on one face
//! modifier := "explode" cond? | "again" cond? | "reroll" cond ("once" | "always")?
//!           | ("keep" | "drop") ("highest" | "lowest") number? | "depth" number
//! number   := INT | NAME | "(" expr ")"       any value known before the pool is rolled
//! aggregate:= "sum" | "count" cond | "count" NAME | "highest" | "lowest" | "maxset"
//!           | "middle"              the middle die: `keep middle 1` read by its sum
//!           | ("highest" | "lowest" | "middle") INT   that many dice summed: `keep ... INT`
//!           | "straight"            the longest run of consecutive faces
//!                                   `count NAME`: a symbol of named faces, by name
//! versus   := ("pairs" | "beats") "(" side "," side ("," "ties")? ")" aggregate?
//!           | "cancel" "(" side "," side ("," ("==" | "<=" | "<"))? ")" aggregate?
//! side     := dice | NAME ("only" cond)?      a pool, or a pool variable; only: the dice
//!                                            that take part (the successes)
//! cond     := ("<=" | ">=" | "<" | ">" | "==" | "!=")? (INT | "(" expr ")") | CMP NAME
//!           | "max" | "min"
//! ```

use std::fmt;

mod allocate;
mod in_order;
mod parse;
mod surprise;

use allocate::*;
pub use in_order::MAX_IN_ORDER;
pub use parse::*;
pub use surprise::{surprises, surprises_in};

/// A position in the expression text (characters from 0).
pub type Col = usize;

/// A comparison with a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `==`, and a bare value in a condition (`count 6`).
    Eq,
    /// `!=`
    Ne,
}

impl Cmp {
    /// Whether `a` stands so to `b` (`Le`: `a <= b`).
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Le => a <= b,
            Cmp::Ge => a >= b,
            Cmp::Lt => a < b,
            Cmp::Gt => a > b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }

    pub(crate) fn text(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Ge => ">=",
            Cmp::Lt => "<",
            Cmp::Gt => ">",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// The faces a condition on one die names: a comparison with a value, or the die's top
/// or bottom face. Written, the value is an expression (a number, a stat); compiled, a
/// number ([`Cond`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CondOf<V> {
    /// `>= 7`, or a bare `10` (equal): the face compared with a value.
    Cmp(Cmp, V),
    /// `max`: the die's top face (an `explode` or `again` with no condition).
    Max,
    /// `min`: the die's bottom face (a `reroll` with no condition).
    Min,
    /// `on 10, 20`: the faces named, one by one.
    On(Faces),
    /// `even`: a face divisible by 2 (`count even`, `reroll odd`).
    Even,
    /// `odd`: a face that is not.
    Odd,
}

impl<V> CondOf<V> {
    /// The same condition with its value made another kind (written, an expression;
    /// compiled, the number it is fixed to): one place that knows every condition.
    pub fn try_map<T, E>(&self, f: impl FnOnce(&V) -> Result<T, E>) -> Result<CondOf<T>, E> {
        Ok(match self {
            CondOf::Cmp(op, v) => CondOf::Cmp(*op, f(v)?),
            CondOf::Max => CondOf::Max,
            CondOf::Min => CondOf::Min,
            CondOf::On(faces) => CondOf::On(*faces),
            CondOf::Even => CondOf::Even,
            CondOf::Odd => CondOf::Odd,
        })
    }
}

/// Faces named one by one in a condition (`explode on 10, 20`), at most
/// [`Faces::MOST`]: held inline, so that a condition stays a value a die copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Faces {
    faces: [i64; Faces::MOST],
    len: u8,
}

impl Faces {
    /// Most faces one condition names.
    pub const MOST: usize = 8;

    /// The faces named, or None past [`Faces::MOST`].
    pub fn of(faces: &[i64]) -> Option<Faces> {
        let mut out = Faces {
            faces: [0; Faces::MOST],
            len: 0,
        };
        if faces.len() > Faces::MOST {
            return None;
        }
        out.faces[..faces.len()].copy_from_slice(faces);
        out.len = faces.len() as u8;
        Some(out)
    }

    /// The faces named, in the order written.
    pub fn as_slice(&self) -> &[i64] {
        &self.faces[..self.len as usize]
    }
}

/// A compiled condition.
pub type Cond = CondOf<i64>;

impl Cond {
    /// Whether `v` meets the condition on a die whose faces span `lo..=hi`.
    pub fn holds(self, v: i64, lo: i64, hi: i64) -> bool {
        match self {
            Cond::Cmp(c, n) => c.holds(v, n),
            Cond::Max => v == hi,
            Cond::Min => v == lo,
            Cond::On(faces) => faces.as_slice().contains(&v),
            Cond::Even => v.rem_euclid(2) == 0,
            Cond::Odd => v.rem_euclid(2) == 1,
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Cmp(c, n) => write!(f, "{} {n}", c.text()),
            Cond::Max => write!(f, "max"),
            Cond::Min => write!(f, "min"),
            Cond::On(faces) => {
                write!(f, "on ")?;
                for (i, v) in faces.as_slice().iter().enumerate() {
                    write!(f, "{}{v}", if i > 0 { ", " } else { "" })?;
                }
                Ok(())
            }
            Cond::Even => write!(f, "even"),
            Cond::Odd => write!(f, "odd"),
        }
    }
}

/// The end of the sorted dice a `keep` or `drop` takes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// `highest`: the largest dice.
    Highest,
    /// `lowest`: the smallest dice.
    Lowest,
}

/// What changes a pool before it is read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ModOf<V> {
    /// A die showing the condition rolls again and adds (one value per die).
    Explode(CondOf<V>),
    /// A die showing the condition adds another die to the pool.
    Again(CondOf<V>),
    /// A die showing the condition is rolled again: once, or until it does not.
    Reroll(CondOf<V>, bool),
    /// `keep highest|lowest N`: N dice from that end (N a number, or an expression:
    /// `keep highest k`).
    Keep(End, V),
    /// `drop highest|lowest N`: every die but the N at that end.
    Drop(End, V),
    /// `keep middle N`: the N dice in the middle, as many dropped from each end (one
    /// more from the top when the dice left over are odd). Compiled into two keeps of
    /// one roll (see `Compiler::middle`).
    Middle(V),
    /// The most extra rolls of an explosion or `again` chain (`depth N`).
    Depth(V),
}

/// The deepest chain `depth N` may ask for.
pub const MAX_CHAIN: u32 = 100;

/// A compiled modifier.
pub type Mod = ModOf<i64>;

/// How a pool becomes a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AggOf<V> {
    /// `sum`: the faces added (a pool read no other way is summed).
    Sum,
    /// `count >= 7`: how many dice meet the condition (successes).
    Count(CondOf<V>),
    /// `highest`: the largest face rolled.
    Highest,
    /// `lowest`: the smallest face rolled.
    Lowest,
    /// The most dice showing the same face.
    MaxSet,
    /// The longest run of consecutive faces among the dice (1 2 3 4 5 is a large
    /// straight: 5).
    Straight,
    /// A read of the multiset of faces from the table of [`super::shapes::SHAPES`]
    /// (`runs`, `sets 2`).
    Shape(super::shapes::ShapeRead),
    /// How many times a named symbol shows on the dice (`count success`: a face
    /// `success+advantage` counts once for each). Written, the symbol's name; compiled,
    /// where its count sits in a face's code ([`tally`]).
    Tally(V),
}

/// How many of a symbol a face's code holds: compiled, a tally is `digit + 16 * base`,
/// the code's digit in that base.
pub fn tally(code: i64, t: i64) -> i64 {
    let (digit, base) = ((t % 16) as u32, t / 16);
    (code / base.pow(digit)) % base
}

/// A compiled read.
pub type Agg = AggOf<i64>;

/// As written: conditions hold expressions.
pub type CondAst = CondOf<Box<Expr>>;
/// A modifier as written: its numbers still expressions.
pub type ModAst = ModOf<Box<Expr>>;
/// A read as written: its numbers still expressions.
pub type AggAst = AggOf<Box<Expr>>;

/// A die: its faces, each equally likely.
#[derive(Clone, Debug, PartialEq)]
pub struct Die {
    /// Each face's value, one entry per face (`d{1,1,2}` has three); a named face counts its value.
    pub faces: Vec<i64>,
    /// How it was written (`d6`, `dF`, `d{0,0,1,2}`).
    pub text: String,
    /// `d(EXPR)`: the number of sides is a value (a step die), its faces 1 to it;
    /// `faces` is then empty until the value is known.
    pub sides: Option<Box<Expr>>,
    /// Per face, the names written on it with how many times (`success+success`);
    /// empty for a face that is a number. Counted by name (`count success`), these
    /// become the faces.
    pub names: Vec<Vec<(String, u32)>>,
}

/// A group of identical dice; the count is an expression folded to a number at compile.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// How many dice (`3` in `3d6`, `skill` in `(skill)d10`); for a deck, the cards drawn.
    pub count: Expr,
    /// The die each of them is (for a deck, its cards).
    pub die: Die,
    /// A deck: `count` cards dealt from `die`'s faces (one card each) without
    /// replacement, not dice.
    pub deck: bool,
}

/// An operator between two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`, rounding down; a division by 0 gives 0.
    Div,
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
    /// `a >= b` and the other comparisons: 1 when it holds, else 0.
    Cmp(Cmp),
}

/// An expression of the dice language as parsed: names not yet resolved, pools not yet compiled.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number written, `5`.
    Num(i64),
    /// A name: a `let` variable, a stat of the scenario's unit, or a scenario key.
    Name(String, Col),
    /// Dice and what is done to them: `4d6 drop lowest`, `[2d6, 1d8] keep highest 2`, `5d10 count >= 7`.
    Pool {
        /// The groups rolled together (`[2d6, 1d8]` has two).
        groups: Vec<Group>,
        /// The modifiers, in the order written.
        mods: Vec<ModAst>,
        /// None: not read explicitly (a sum, or the dice of a `let` pool variable).
        agg: Option<AggAst>,
        /// Where the pool starts in the text.
        col: Col,
    },
    /// Two pools set against each other die by die: `pairs(3d6, 2d6)` (sorted pairs,
    /// RISK) or `beats(3d12, 2d12)` (dice above the other side's best).
    Versus {
        /// Which meeting: `pairs`, `beats` or `cancel`.
        kind: Versus,
        /// The first side, whose dice are counted: a pool or a pool variable.
        a: Box<Expr>,
        /// The second side.
        b: Box<Expr>,
        /// Ties go to the first pool.
        ties: bool,
        /// Where the meeting is written.
        col: Col,
        /// Each side's dice that take part (`only <= 13`: the successes); None: all.
        /// Boxed: every expression is as large as its largest kind, and is moved at
        /// each level of the parse.
        only: Box<[Option<CondAst>; 2]>,
        /// How the first side's dice that are left are read (`cancel(A, B) highest`);
        /// None: counted.
        read: Option<AggAst>,
    },
    /// A `let` pool variable read again: `p count 6`, `p keep highest 2`, `p highest`.
    Read {
        /// The pool variable's name.
        name: String,
        /// A `keep` or `drop` of its dice before the read (boxed, as `Versus`'s `only`).
        keep: Option<Box<ModAst>>,
        /// The read; None: the kept dice summed.
        agg: Option<AggAst>,
        /// Where the name is written.
        col: Col,
    },
    /// `-x`.
    Neg(Box<Expr>),
    /// `a + b`, `a >= b`, `max(a, b)`: two values and an operator.
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `let NAME = BOUND in BODY`: BOUND named in BODY (dice with no read: a pool variable).
    Let(String, Box<Expr>, Box<Expr>),
    /// `if C then A else B`: A when C is not 0, else B.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Logic: 1 or 0, from whether the sides are non-zero.
    And(Box<Expr>, Box<Expr>),
    /// `a or b`: 1 when either side is not 0.
    Or(Box<Expr>, Box<Expr>),
    /// `not a`: 1 when `a` is 0.
    Not(Box<Expr>),
    /// Rounds until a condition holds (attrition, a duel): see [`Repeat`].
    Repeat(Box<Repeat>),
    /// Several named results of one roll, `{ successes = ..., advantages = ... }`: the
    /// scenario's metrics (only as the result, after any `let`s).
    Record(Vec<(String, Expr, Col)>, Col),
    /// A roll whose dice may be rerolled, by the choice that does best for an objective:
    /// see [`Choose`].
    Choose(Box<Choose>),
    /// Dice of one roll picked into roles: see [`Pick`].
    Pick(Box<Pick>),
    /// `NAME sides`: the most sides among the dice a role of a `choose` holds.
    Sides(String, Col),
    /// One card of a deal in order (`let a, b = deck{...} draw 2 in ...`): dealt from the
    /// deck whose cards have the values `faces`, less the cards named `before` it.
    Card {
        /// Each card's value, one entry per card.
        faces: Vec<i64>,
        /// The cards dealt before it, as the names ([`Expr::Name`]) they are bound to.
        before: Vec<Expr>,
        /// Where the deal is written.
        col: Col,
    },
}

/// `choose total = 2, effect = 1 from [1d10, 2d8, 1d6] only >= 2 to maximise
/// total sum * 100 + effect sides in { total = total sum, effect = max(effect sides, 4) }`:
/// the dice rolled, then the ones `only` allows handed out to the roles in order (each
/// as many as it asks for, while there are dice left), the way that does best for the
/// objective; each role is read as a pool variable, and knows its dice's sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// Each role: its name, how many dice it takes, where it is written.
    pub roles: Vec<(String, u32, Col)>,
    /// The dice rolled: `[1d10, 2d8, 1d6]`.
    pub pool: Expr,
    /// `only COND`: the dice that may be handed out; None: all of them.
    pub only: Option<CondAst>,
    /// Whether the objective is pushed up or down.
    pub goal: Goal,
    /// What the handing out does best for.
    pub objective: Expr,
    /// `in BODY`: what is read once the dice are handed out; None: the objective.
    pub body: Option<Expr>,
    /// Where `choose` is written.
    pub col: Col,
}

/// The most roles of one `choose`.
pub const MAX_ROLES: usize = 3;

/// `reroll p = 5d6 twice to maximise p count 6 >= 4 in p sum`: the dice rolled, then
/// up to `rerolls` times any of them rolled again, each time the ones whose rerolling
/// does best for the objective's mean (its probability when it is a condition), with
/// the rerolls still to come played as well; the body (the objective when there is
/// none) reads the dice at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct Choose {
    /// The name the dice are read by (`p`).
    pub name: String,
    /// The dice rolled (`5d6`).
    pub pool: Expr,
    /// How many times dice may be rerolled: 1, `twice`, or `N times`.
    pub rerolls: u32,
    /// Whether the objective is pushed up or down.
    pub goal: Goal,
    /// What the rerolls do best for.
    pub objective: Expr,
    /// `in BODY`: what is read from the final dice; None: the objective.
    pub body: Option<Expr>,
    /// Where `reroll` is written.
    pub col: Col,
}

/// Which way a choice pushes its objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// `to maximise`: the highest mean (or probability).
    Maximise,
    /// `to minimise`: the lowest.
    Minimise,
}

/// The most rerolls a choice plans for.
pub const MAX_REROLLS: u32 = 5;

/// `repeat a = 10, b = 8 until a <= 0 or b <= 0 do let x = 2d6 in a = a - ..., b = ...
/// limit 50 then a > 0`: state variables, the condition that ends the rounds (checked
/// before each round, `rounds` counting the rounds done), one round's rolls (all
/// updates read the values before the round) and the value read at the end. A round
/// that would pass the limit is not played: the state stays unfinished.
#[derive(Clone, Debug, PartialEq)]
pub struct Repeat {
    /// Each state variable: its name, its first value, where it is written (`a = 10`).
    pub state: Vec<(String, Expr, Col)>,
    /// The rounds end when this is not 0; checked before each round.
    pub until: Expr,
    /// A round's `let`s, rolled afresh each round before the updates.
    pub lets: Vec<(String, Expr)>,
    /// Each state variable's new value after a round (`a = a - 2d6`), where it is written.
    pub updates: Vec<(String, Expr, Col)>,
    /// The most rounds played: `limit N`, else [`DEFAULT_LIMIT`].
    pub limit: u32,
    /// What is read when the rounds end (`then EXPR`).
    pub body: Expr,
    /// Where `repeat` is written.
    pub col: Col,
}

/// Rounds a `repeat` plays unless it says `limit N`.
pub const DEFAULT_LIMIT: u32 = 100;
/// The most rounds a `repeat` may be given.
pub const MAX_LIMIT: u32 = 10_000;
/// The most weapons of one `allocate` (each takes a state variable of its `repeat`).
pub const MAX_WEAPONS: usize = 3;

/// Every expression inside `e` (and `e`), pools' counts, faces and reads included.
pub fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    let cond = |c: &CondAst, f: &mut dyn FnMut(&Expr)| {
        if let CondOf::Cmp(_, x) = c {
            visit(x, f);
        }
    };
    let agg = |a: &Option<AggAst>, f: &mut dyn FnMut(&Expr)| match a {
        Some(AggOf::Count(c)) => cond(c, f),
        Some(AggOf::Tally(x)) => visit(x, f),
        _ => {}
    };
    let modifier = |m: &ModAst, f: &mut dyn FnMut(&Expr)| match m {
        ModOf::Explode(c) | ModOf::Again(c) | ModOf::Reroll(c, _) => cond(c, f),
        ModOf::Keep(_, x) | ModOf::Drop(_, x) | ModOf::Middle(x) | ModOf::Depth(x) => visit(x, f),
    };
    match e {
        Expr::Num(_) | Expr::Name(..) => {}
        Expr::Pool {
            groups,
            mods,
            agg: a,
            ..
        } => {
            for g in groups {
                visit(&g.count, f);
                if let Some(x) = &g.die.sides {
                    visit(x, f);
                }
            }
            mods.iter().for_each(|m| modifier(m, f));
            agg(a, f);
        }
        Expr::Versus {
            a, b, only, read, ..
        } => {
            visit(a, f);
            visit(b, f);
            only.iter().flatten().for_each(|c| cond(c, f));
            agg(read, f);
        }
        Expr::Read { keep, agg: a, .. } => {
            if let Some(m) = keep {
                modifier(m, f);
            }
            agg(a, f);
        }
        Expr::Neg(a) | Expr::Not(a) => visit(a, f),
        Expr::Bin(_, a, b) | Expr::Let(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            visit(a, f);
            visit(b, f);
        }
        Expr::If(c, a, b) => {
            visit(c, f);
            visit(a, f);
            visit(b, f);
        }
        Expr::Repeat(r) => {
            r.state.iter().for_each(|(_, x, _)| visit(x, f));
            visit(&r.until, f);
            r.lets.iter().for_each(|(_, x)| visit(x, f));
            r.updates.iter().for_each(|(_, x, _)| visit(x, f));
            visit(&r.body, f);
        }
        Expr::Record(fields, _) => fields.iter().for_each(|(_, x, _)| visit(x, f)),
        Expr::Sides(..) => {}
        Expr::Card { before, .. } => before.iter().for_each(|x| visit(x, f)),
        Expr::Pick(p) => {
            visit(&p.pool, f);
            if let Some(c) = &p.only {
                cond(c, f);
            }
            visit(&p.objective, f);
            if let Some(b) = &p.body {
                visit(b, f);
            }
        }
        Expr::Choose(c) => {
            visit(&c.pool, f);
            visit(&c.objective, f);
            if let Some(b) = &c.body {
                visit(b, f);
            }
        }
    }
}

/// The most named results of one record.
pub const MAX_FIELDS: usize = 8;
/// The most state variables of one `repeat`.
pub const MAX_STATE: usize = 8;

/// How two pools meet die by die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versus {
    /// Both sorted high to low, paired off: how many pairs the first wins.
    Pairs,
    /// How many of the first pool's dice beat the second pool's highest.
    Beats,
    /// How many of the first pool's dice are left when each die of the second cancels
    /// one showing the same face.
    Cancel,
    /// How many of the first pool's dice are left when each die of the second, highest
    /// first, cancels the highest of the first's dice it reaches: at or below it when
    /// the meeting's `ties` is set (`cancel(A, B, <=)`), strictly below it otherwise
    /// (`cancel(A, B, <)`).
    CancelBelow,
}

/// A syntax error: where, what was found and what was expected.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    /// Where the error is: characters from the start of the text.
    pub col: Col,
    /// What was expected and what was found instead.
    pub message: String,
}

impl SyntaxError {
    /// The error's line and column in `text`, both counted from 0 (a config's expression
    /// often spans lines: `roll = """..."""`).
    fn line_col(&self, text: &str) -> (usize, usize) {
        let (mut line, mut col) = (0, 0);
        for ch in text.chars().take(self.col) {
            if ch == '\n' {
                (line, col) = (line + 1, 0);
            } else {
                col += 1;
            }
        }
        (line, col)
    }

    /// Where the error is, as a reader counts: `column 9`, or `line 3, column 9` in an
    /// expression of several lines.
    pub fn place(&self, text: &str) -> String {
        let (line, col) = self.line_col(text);
        if text.contains('\n') {
            format!("line {}, column {}", line + 1, col + 1)
        } else {
            format!("column {}", col + 1)
        }
    }

    /// The expression, each line indented, with a caret under the error's column right
    /// below its line, then the message. The caret's indent copies the line's tabs, so it
    /// stands under the right character however a terminal draws them.
    pub fn render(&self, text: &str) -> String {
        let (at, col) = self.line_col(text);
        let mut out = String::from("in the expression:");
        let lines: Vec<&str> = text.split('\n').collect();
        for (i, line) in lines.iter().enumerate() {
            out.push_str("\n  ");
            out.push_str(line);
            if i == at.min(lines.len() - 1) {
                let indent: String = line
                    .chars()
                    .chain(std::iter::repeat(' '))
                    .take(col)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                out.push_str(&format!("\n  {indent}^ {}", self.message));
            }
        }
        out
    }
}

/// Named faces that count 0 unless given a value (any other name counts 1).
pub const NOTHING: &[&str] = &["blank", "miss", "none", "empty"];

/// Words the language reserves.
pub const KEYWORDS: &[&str] = &[
    "let", "in", "if", "then", "else", "explode", "again", "reroll", "once", "always", "keep",
    "drop", "highest", "lowest", "sum", "count", "maxset", "straight", "max", "min", "pairs",
    "beats", "ties", "cancel", "depth", "and", "or", "not", "repeat", "until", "do", "limit",
    "deck", "draw", "only", "allocate",
];

#[cfg(test)]
mod tests {
    use super::SyntaxError;

    #[test]
    fn the_caret_stands_under_the_error_on_its_own_line() {
        // `foo` on the third line, column 9 (counted from 1); the text's own offset is 36.
        let text = "let x = d6 in\nlet y = d8 in\nx + y + foo";
        let e = SyntaxError {
            col: text.find("foo").unwrap(),
            message: "unknown name `foo`".into(),
        };
        assert_eq!(e.place(text), "line 3, column 9");
        assert_eq!(
            e.render(text),
            "in the expression:\n  let x = d6 in\n  let y = d8 in\n  x + y + foo\n          ^ unknown name `foo`"
        );
        // On the first of three lines, the caret comes right below it, the rest after.
        let e = SyntaxError {
            col: 4,
            message: "here".into(),
        };
        assert_eq!(e.place(text), "line 1, column 5");
        assert_eq!(
            e.render(text),
            "in the expression:\n  let x = d6 in\n      ^ here\n  let y = d8 in\n  x + y + foo"
        );
        // One line: as before, the column alone; a tab keeps the caret aligned.
        let e = SyntaxError {
            col: 3,
            message: "m".into(),
        };
        assert_eq!(e.place("d6 +"), "column 4");
        assert_eq!(
            e.render("\td6 +"),
            "in the expression:\n  \td6 +\n  \t  ^ m"
        );
    }
}
