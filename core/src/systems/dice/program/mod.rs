//! An expression compiled once per scenario: names resolved, dice counts folded to
//! numbers, pools laid out, so that Monte Carlo neither parses nor allocates per trial.

mod bounds;
mod card;
pub mod choice;
mod compile;
pub mod fold;
pub mod machine;
pub mod pick;
mod pool;
mod record;
mod sample;
mod spec;
mod values;
mod walk;

pub use bounds::*;
pub use card::Card;
pub use compile::*;
pub use pool::*;
pub use record::*;
pub use sample::*;
pub use spec::*;
pub use values::{every_value, values, values_less};
pub use walk::*;

use super::lang::{
    self, Agg, AggAst, AggOf, Cmp, Cond, CondAst, CondOf, End, Expr, ModAst, ModOf, Op, Versus,
};
use crate::config::reader::nearest_hint;
use crate::kernels::Rng;
use choice::Choice;
use pick::Picker;
use rand::Rng as _;

/// A compiled expression: what both engines (exact and Monte Carlo) read.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A number known at compile.
    Num(i64),
    /// A `let` value, by its depth in the scope.
    Var(usize),
    /// `-x`, saturating.
    Neg(Box<Node>),
    /// `a + b`, saturating (as are `-` and `*`).
    Add(Box<Node>, Box<Node>),
    /// `a - b`.
    Sub(Box<Node>, Box<Node>),
    /// `a * b`.
    Mul(Box<Node>, Box<Node>),
    /// `a / b`, rounding down; by 0 it gives 0.
    Div(Box<Node>, Box<Node>),
    /// `max(a, b)`.
    Max(Box<Node>, Box<Node>),
    /// `min(a, b)`.
    Min(Box<Node>, Box<Node>),
    /// A comparison: 1 when it holds, else 0.
    Cmp(Cmp, Box<Node>, Box<Node>),
    /// `let`: the value bound at the next scope depth, then the body.
    Let(Box<Node>, Box<Node>),
    /// A pool rolled once and read several times in the body: its dice sit at `offset`
    /// of the sampler's scratch.
    LetPool {
        /// The pool rolled.
        spec: Box<PoolSpec>,
        /// Where its dice sit in the scratch.
        offset: usize,
        /// What reads the dice.
        body: Box<Node>,
        /// Rerolled by a choice (`reroll p = 5d6 to maximise ...`) before the body reads
        /// them.
        choice: Option<Box<Choice>>,
    },
    /// A read of the pool variable at scope depth `i`.
    PoolVar(Box<PoolRead>),
    /// `if C then A else B`: A when C is not 0.
    If(Box<Node>, Box<Node>, Box<Node>),
    /// A pool rolled and read at once (`4d6 drop lowest`, `5d10 count >= 7`).
    Pool(Box<PoolSpec>),
    /// Two pools die by die ([`Versus`]); `ties`: ties go to the first.
    Versus(Versus, Box<PoolSpec>, Box<PoolSpec>, bool),
    /// Two sides die by die with pool variables, `only` or a read: see [`Meeting`].
    Meeting(Box<Meeting>),
    /// A pool of one kind of die whose count is a value (a state variable, a roll):
    /// the pool compiled for every count from 0 to the most the count can be (at most
    /// [`MAX_ROLLED_DICE`]), picked by the count ([`counted`]). Shared: a compiled roll is cloned for Monte Carlo and
    /// the exact engine, and a hundred and one pools copied each time were a tenth of a
    /// small roll.
    Counted(Box<Node>, std::sync::Arc<[PoolSpec]>),
    /// A pool whose numbers are rolled first (a threshold from a `let`, `d(size)`):
    /// see [`Template`].
    Template(Box<Template>),
    /// Rounds until a condition holds: see [`Repeat`].
    Repeat(Box<Repeat>),
    /// A pool variable whose dice count is a value (`let p = (5 - s)d6 in ... p count
    /// 6 ... p sum`): its binding and body made for every count from 0 to the most the
    /// count can be (at most [`MAX_ROLLED_DICE`]), the one the count takes picked as
    /// [`counted`] picks a pool.
    CountedVar(Box<Node>, Vec<Node>),
    /// A card dealt from what the cards named before it left of a deck: see [`Card`].
    Card(Box<Card>),
    /// Dice of one roll handed out to roles (`choose`): see [`Picker`].
    Pick(Box<Picker>),
    /// The state variables' new values at the end of a round's `let`s (only inside
    /// [`Repeat::step`]).
    Emit(Vec<Node>),
    /// Named results, before [`pack`] turns them into one number (never evaluated).
    Record(Vec<Node>),
}

/// `pairs`, `beats` or `cancel` in full: each side a pool or a pool variable, the dice
/// of each that take part (`only`), and how the first side's dice left are read.
#[derive(Clone, Debug, PartialEq)]
pub struct Meeting {
    /// `pairs`, `beats` or `cancel`.
    pub kind: Versus,
    /// The first side (whose dice are counted) and the second.
    pub sides: [Side; 2],
    /// Each side's `only`: the dice that take part; None: all.
    pub only: [Option<Cond>; 2],
    /// Ties go to the first side.
    pub ties: bool,
    /// None: the first side's dice left are counted.
    pub read: Option<Agg>,
}

/// One side of a [`Meeting`].
#[derive(Clone, Debug, PartialEq)]
pub enum Side {
    /// A pool rolled here.
    Pool(Box<PoolSpec>),
    /// A pool variable at scope depth `i`, its dice at `offset` of the scratch.
    Var {
        /// Its scope depth.
        i: usize,
        /// Where its dice sit in the scratch.
        offset: usize,
        /// The pool it was bound to.
        spec: Box<PoolSpec>,
    },
}

impl Side {
    /// The pool this side's dice come from.
    pub fn spec(&self) -> &PoolSpec {
        match self {
            Side::Pool(p) | Side::Var { spec: p, .. } => p,
        }
    }
}

impl Meeting {
    /// The first side's dice left (ascending) given both sides' dice (ascending, kept),
    /// each side's `only` applied first, into `out` (room for `a.len()` dice): how many
    /// are left. Every buffer on the stack: a Monte Carlo trial of a meeting allocated
    /// three vectors.
    fn left_into(&self, a: &[i64], b: &[i64], out: &mut [i64]) -> usize {
        let only = |dice: &[i64], c: Option<Cond>, p: &PoolSpec, buf: &mut [i64]| {
            let (lo, hi) = face_span(p);
            let mut n = 0;
            for &v in dice {
                if c.is_none_or(|c| c.holds(v, lo, hi)) {
                    buf[n] = v;
                    n += 1;
                }
            }
            n
        };
        sample::held(a.len(), |x| {
            sample::held(b.len(), |y| {
                let nx = only(a, self.only[0], self.sides[0].spec(), x);
                let ny = only(b, self.only[1], self.sides[1].spec(), y);
                versus_dice(self.kind, &x[..nx], &y[..ny], self.ties, out)
            })
        })
    }

    /// The result given both sides' dice.
    pub fn value(&self, a: &[i64], b: &[i64]) -> i64 {
        sample::held(a.len(), |left| {
            let n = self.left_into(a, b, left);
            match self.read {
                None => n as i64,
                Some(agg) => {
                    let (lo, hi) = face_span(self.sides[0].spec());
                    read_sorted(&left[..n], None, agg, lo, hi)
                }
            }
        })
    }
}

/// The language's division, in every engine alike: rounded down, by 0 is 0, and the
/// one quotient past the integers (the least one over -1) the greatest.
pub fn divide(x: i64, y: i64) -> i64 {
    if y == 0 {
        0
    } else {
        x.checked_div_euclid(y).unwrap_or(i64::MAX)
    }
}

/// The lowest and highest face of a pool's dice.
pub fn face_span(p: &PoolSpec) -> (i64, i64) {
    let lo = p.groups.iter().map(|(_, d)| d.lo()).min().unwrap_or(0);
    let hi = p.groups.iter().map(|(_, d)| d.hi()).max().unwrap_or(0);
    (lo, hi)
}

/// A compiled `repeat`. At scope depth `d` its state variables sit at `d..d + k` and
/// the rounds played at `d + k`; `until`, `step` and `body` see them.
#[derive(Clone, Debug, PartialEq)]
pub struct Repeat {
    /// Each state variable's first value.
    pub init: Vec<Node>,
    /// The rounds end when this is not 0; checked before each round.
    pub until: Node,
    /// The round's `let`s around an [`Node::Emit`] of every state variable.
    pub step: Node,
    /// The most rounds played.
    pub limit: u32,
    /// What is read when the rounds end.
    pub body: Node,
}

/// How a pool variable is read.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolRead {
    /// The variable's scope depth.
    pub i: usize,
    /// Where its dice sit in the scratch.
    pub offset: usize,
    /// How many dice it holds (its kept dice).
    pub len: usize,
    /// A `keep`/`drop` of them before the read (an end and how many).
    pub keep: Option<(End, u32)>,
    /// The read.
    pub agg: Agg,
    /// The pool's lowest face, for `count min`.
    pub lo: i64,
    /// The pool's highest face, for `count max`.
    pub hi: i64,
    /// The pool, for bounds.
    pub spec: Box<PoolSpec>,
    /// The read's numbers known only when it is read (`p count >= w`).
    pub rolled: Option<Box<ReadParams>>,
    /// A role of a `choose`: it holds as many dice as it was handed (the scratch says
    /// how many), not always `len`.
    pub sized: bool,
    /// An `again` pool variable read several ways: its dice count varies, so it holds
    /// one tally per way it is read (every read a sum over its dice, see
    /// [`tally_step`]), and this read is tally `j`.
    pub tally: Option<usize>,
}

/// A pool variable's read whose keep count or count face is a value: rolled (or read
/// from the variables) at the read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadParams {
    /// A drop, its end, the count.
    pub keep: Option<(bool, End, Node)>,
    /// The face of a `count` compared with, when it is a value.
    pub face: Option<Node>,
}

impl PoolRead {
    /// The read of what the variable holds (its dice, sorted, or its tallies).
    #[inline(always)]
    pub fn value(&self, held: &[i64], keep: Option<(End, u32)>, agg: Agg) -> i64 {
        match self.tally {
            Some(j) => held[j],
            None => read_sorted(held, keep, agg, self.lo, self.hi),
        }
    }

    /// The keep and the read given the rolled numbers.
    pub fn with(&self, keep: Option<i64>, face: Option<i64>) -> (Option<(End, u32)>, Agg) {
        let k = match (&self.rolled, keep) {
            (Some(r), Some(n)) => match &r.keep {
                Some((drop, end, _)) => Some(keep_of(*drop, *end, n, self.len as u32)),
                None => self.keep,
            },
            _ => self.keep,
        };
        let agg = match (self.agg, face) {
            (Agg::Count(CondOf::Cmp(op, _)), Some(v)) => Agg::Count(CondOf::Cmp(op, v)),
            (a, _) => a,
        };
        (k, agg)
    }
}
