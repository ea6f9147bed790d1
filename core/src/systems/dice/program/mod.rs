//! An expression compiled once per scenario: names resolved, dice counts folded to
//! numbers, pools laid out, so that Monte Carlo neither parses nor allocates per trial.

pub mod choice;
pub mod fold;
pub mod machine;
pub mod pick;

use super::lang::{
    self, Agg, AggAst, AggOf, Cmp, Cond, CondAst, CondOf, End, Expr, ModAst, ModOf, Op, Versus,
};
use crate::config::reader::nearest_hint;
use crate::dice::Rng;
use choice::Choice;
use pick::Picker;
use rand::Rng as _;

/// Most dice one pool may roll (before `again` adds any): what fits in memory. What
/// bounds the work is the exact engine's budget and the trials' own time, not a count.
pub const MAX_DICE: i64 = 1_000_000;
/// Most dice of a pool whose count is rolled (`(x)d6`), and most cards a deck deals: the
/// sampler makes such a pool for every count up to it.
pub const MAX_ROLLED_DICE: i64 = 100;
/// How deep an explosion or `again` chain goes; the exact engine reports the mass of
/// chains stopped here.
pub const DEPTH: u32 = 20;

fn faces_len(faces: &[i64]) -> u64 {
    faces.len().max(1) as u64
}

/// One kind of die with its own modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct DieSpec {
    pub faces: Vec<i64>,
    pub explode: Option<Cond>,
    pub reroll: Option<(Cond, bool)>,
    pub depth: u32,
    /// The lowest and highest face (`min` and `max` in a condition), kept so that a
    /// roll does not scan the faces.
    pub lo_face: i64,
    pub hi_face: i64,
    /// 2^64 mod faces: Lemire's rejection threshold, computed once, not per die.
    pub reject: u64,
    /// Several faces from one exactly uniform word, for plain dice (two faces or more).
    pub words: Option<crate::dice::Faces>,
    /// A deck: its faces are its cards, dealt without replacement.
    pub deck: bool,
}

impl DieSpec {
    pub fn new(faces: Vec<i64>) -> Self {
        let lo_face = faces.iter().copied().min().unwrap_or(0);
        let hi_face = faces.iter().copied().max().unwrap_or(0);
        DieSpec {
            explode: None,
            reroll: None,
            depth: DEPTH,
            lo_face,
            hi_face,
            reject: (faces_len(&faces)).wrapping_neg() % faces_len(&faces),
            words: (faces.len() >= 2).then(|| crate::dice::Faces::new(faces.len() as u32)),
            faces,
            deck: false,
        }
    }

    /// One face, exactly uniform (Lemire's multiply-and-reject).
    #[inline(always)]
    fn face(&self, rng: &mut Rng) -> i64 {
        let n = self.faces.len() as u64;
        loop {
            let m = rng.next_u64() as u128 * n as u128;
            if (m as u64) >= self.reject {
                return self.faces[(m >> 64) as usize];
            }
        }
    }
    #[inline(always)]
    pub fn lo(&self) -> i64 {
        self.lo_face
    }
    #[inline(always)]
    pub fn hi(&self) -> i64 {
        self.hi_face
    }

    /// Roll one die as written: the face, a re-roll, then the explosion chain.
    #[inline]
    pub(super) fn roll(&self, rng: &mut Rng) -> i64 {
        let (lo, hi) = (self.lo(), self.hi());
        let face = |rng: &mut Rng| {
            let f = self.face(rng);
            match self.reroll {
                Some((c, true)) => {
                    let mut f = f;
                    while c.holds(f, lo, hi) {
                        f = self.face(rng);
                    }
                    f
                }
                Some((c, false)) if c.holds(f, lo, hi) => self.face(rng),
                _ => f,
            }
        };
        let mut v = face(rng);
        if let Some(c) = self.explode {
            let mut last = v;
            let mut depth = 0;
            while c.holds(last, lo, hi) && depth < self.depth {
                last = face(rng);
                v += last;
                depth += 1;
            }
        }
        v
    }
}

/// A pool: its groups of dice, what adds dice, what is kept, how it is read.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolSpec {
    pub groups: Vec<(u32, DieSpec)>,
    pub again: Option<Cond>,
    /// Keep this many from this end (a drop is a keep of the rest).
    pub keep: Option<(End, u32)>,
    pub agg: Agg,
    /// For Monte Carlo: the pool's plain dice rolled a few at a time, as one exactly
    /// uniform draw over every way they can land, read through a table.
    pub table: Option<Box<Tables>>,
    /// Dice counted by name: the symbols on their faces (each face is then a code of
    /// how many of each it shows), else empty.
    pub named: Vec<String>,
    /// A pool variable's every way of being read, when they are all fixed reads: two
    /// rolls that read the same every way are one outcome to the body (five d10 read
    /// by `count >= 7` and `highest` are 66 outcomes, not 2,002 multisets). Empty:
    /// every multiset is its own.
    pub ways: Vec<(Option<(End, u32)>, Agg)>,
}

/// The symbols of an expression that counts faces by name (`count success`): every
/// name on a face, and the base of the codes (one more than the most of one symbol a
/// face shows), so that a face's code holds each symbol's count as one digit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Symbols {
    pub names: Vec<String>,
    pub base: i64,
}

/// Most combinations of symbols' counts one face's code may hold.
const MAX_CODES: i64 = 1 << 16;

impl Symbols {
    /// The symbols of `e`, when it counts a face by name (None otherwise: named faces
    /// are then numbers, `hit` 1 and `blank` 0).
    fn of(e: &Expr) -> Result<Option<Symbols>, CompileError> {
        let mut tallies = false;
        let mut names: Vec<String> = Vec::new();
        let mut most = 1u32;
        lang::visit(e, &mut |x| match x {
            Expr::Pool { groups, agg, .. } => {
                tallies |= matches!(agg, Some(AggOf::Tally(_)));
                for g in groups {
                    for (n, c) in g.die.names.iter().flatten() {
                        if *c > 0 && !names.contains(n) {
                            names.push(n.clone());
                        }
                        most = most.max(*c);
                    }
                }
            }
            Expr::Read { agg, .. } => tallies |= matches!(agg, Some(AggOf::Tally(_))),
            _ => {}
        });
        if !tallies {
            return Ok(None);
        }
        let base = most as i64 + 1;
        let codes = (0..names.len()).try_fold(1i64, |acc, _| acc.checked_mul(base));
        if codes.is_none_or(|c| c > MAX_CODES) || base > 15 {
            return Err(CompileError {
                col: 0,
                message: format!(
                    "faces counted by name: {} symbols with up to {} of one on a face are too many to count exactly (at most {MAX_CODES} combinations, 14 of one)",
                    names.len(),
                    most
                ),
            });
        }
        Ok(Some(Symbols { names, base }))
    }

    /// A compiled `count NAME`: the symbol's digit and the base ([`lang::tally`]).
    fn tally(&self, name: &str) -> Option<i64> {
        let j = self.names.iter().position(|n| n == name)?;
        Some(j as i64 + 16 * self.base)
    }
}

/// Most entries of one table (its values as `i32`: within the first-level cache).
const TABLE: u64 = 8192;

/// One uniform draw over the `pow` ways `k` dice land (Lemire's multiply and reject),
/// and what each way reads as.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pow: u64,
    reject: u64,
    /// Shared: the pools of every count of one die share their chunk tables.
    values: std::sync::Arc<[i32]>,
}

impl Table {
    #[inline(always)]
    pub(crate) fn draw(&self, rng: &mut Rng) -> i64 {
        loop {
            let m = rng.next_u64() as u128 * self.pow as u128;
            if (m as u64) >= self.reject {
                return self.values[(m >> 64) as usize] as i64;
            }
        }
    }
}

/// A pool as tables of whole chunks of its dice, read the way the pool is: a whole
/// pool in one table (any read), or chunks combined (sum and count add, highest and
/// lowest take the extreme).
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    /// Each table and how many times it is drawn.
    parts: Vec<(Table, u32)>,
    agg: Agg,
}

impl Tables {
    /// The one table a whole pool is drawn from, when it is one.
    pub(crate) fn single(&self) -> Option<&Table> {
        match self.parts.as_slice() {
            [(t, 1)] => Some(t),
            _ => None,
        }
    }

    #[inline]
    fn sample(&self, rng: &mut Rng) -> i64 {
        let mut acc = match self.agg {
            Agg::Highest => i64::MIN,
            Agg::Lowest => i64::MAX,
            _ => 0,
        };
        for (t, times) in &self.parts {
            for _ in 0..*times {
                let v = t.draw(rng);
                acc = match self.agg {
                    Agg::Highest => acc.max(v),
                    Agg::Lowest => acc.min(v),
                    _ => acc + v,
                };
            }
        }
        acc
    }
}

/// One index of `0..n`, exactly uniform (Lemire's multiply and reject).
#[inline]
fn below(n: u64, rng: &mut Rng) -> usize {
    let reject = n.wrapping_neg() % n;
    loop {
        let m = rng.next_u64() as u128 * n as u128;
        if (m as u64) >= reject {
            return (m >> 64) as usize;
        }
    }
}

/// Deal `k` cards of `deck` into `out` (unsorted): Floyd's sampling of `k` distinct
/// places of the shuffled deck, each set of places equally likely, one draw per card.
fn deal(deck: &DieSpec, k: usize, rng: &mut Rng, out: &mut [i64]) {
    let n = deck.faces.len();
    let mut taken = [0usize; MAX_ROLLED_DICE as usize];
    for (m, j) in (n - k..n).enumerate() {
        let t = below(j as u64 + 1, rng);
        let pick = if taken[..m].contains(&t) { j } else { t };
        taken[m] = pick;
        out[m] = deck.faces[pick];
    }
}

impl PoolSpec {
    /// How many dice the pool rolls (before `again` adds any).
    pub fn rolled(&self) -> usize {
        self.groups.iter().map(|(n, _)| *n as usize).sum()
    }

    /// How many dice the pool keeps (all it rolls, without a keep).
    pub fn kept(&self) -> usize {
        self.keep.map_or(
            self.groups.iter().map(|(n, _)| *n as usize).sum(),
            |(_, k)| k as usize,
        )
    }

    /// The kept dice of `sorted` (every die the pool rolled, low to high).
    pub fn keep_of<'d>(&self, sorted: &'d [i64]) -> &'d [i64] {
        match self.keep {
            None => sorted,
            Some((End::Lowest, k)) => &sorted[..k as usize],
            Some((End::Highest, k)) => &sorted[sorted.len() - k as usize..],
        }
    }

    /// The deck and how many cards are dealt, when the pool is a deck.
    pub fn deck(&self) -> Option<(&DieSpec, u32)> {
        match self.groups.as_slice() {
            [(k, d)] if d.deck => Some((d, *k)),
            _ => None,
        }
    }

    /// The spec with Monte Carlo tables, when its dice are one kind of plain die
    /// (no explosion, reroll or `again`) and the values fit.
    pub fn tabled(self) -> PoolSpec {
        self.tabled_sharing(&mut Vec::new())
    }

    /// [`PoolSpec::tabled`] for specs that differ only in their dice count (a count
    /// that is rolled makes one per count, up to [`MAX_ROLLED_DICE`]): the tables already made,
    /// by chunk size and whether a chunk is the whole pool, are reused instead of
    /// enumerated again (making them for every count took 100 ms of a config's load).
    fn tabled_sharing(mut self, made: &mut Vec<((u32, bool), Table)>) -> PoolSpec {
        self.table = None;
        let [(n, d)] = self.groups.as_slice() else {
            return self;
        };
        let (n, s) = (*n, d.faces.len() as u64);
        if n == 0
            || s < 2
            || d.deck
            || d.explode.is_some()
            || d.reroll.is_some()
            || self.again.is_some()
        {
            return self;
        }
        let mut k = 1u32;
        while k < n && s.pow(k + 1) <= TABLE {
            k += 1;
        }
        if s.pow(k) > TABLE {
            return self;
        }
        let whole = k == n;
        let chunked = matches!(
            self.agg,
            Agg::Sum | Agg::Count(_) | Agg::Highest | Agg::Lowest | Agg::Tally(_)
        ) && self.keep.is_none();
        if !whole && !chunked {
            return self;
        }
        let mut table = |k: u32| -> Option<Table> {
            if let Some((_, t)) = made.iter().find(|(key, _)| *key == (k, whole)) {
                return Some(t.clone());
            }
            let pow = s.pow(k);
            let mut values = Vec::with_capacity(pow as usize);
            let mut dice = vec![0i64; k as usize];
            for x in 0..pow {
                let mut y = x;
                for die in dice.iter_mut() {
                    *die = d.faces[(y % s) as usize];
                    y /= s;
                }
                dice.sort_unstable();
                let keep = if whole { self.keep } else { None };
                let v = read_sorted(&dice, keep, self.agg, d.lo(), d.hi());
                values.push(i32::try_from(v).ok()?);
            }
            let t = Table {
                pow,
                reject: pow.wrapping_neg() % pow,
                values: values.into(),
            };
            made.push(((k, whole), t.clone()));
            Some(t)
        };
        let mut parts = Vec::new();
        let Some(full) = table(k) else { return self };
        parts.push((full, n / k));
        if n % k > 0 {
            let Some(rest) = table(n % k) else {
                return self;
            };
            parts.push((rest, 1));
        }
        self.table = Some(Box::new(Tables {
            parts,
            agg: self.agg,
        }));
        self
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Num(i64),
    /// A `let` value, by its depth in the scope.
    Var(usize),
    Neg(Box<Node>),
    Add(Box<Node>, Box<Node>),
    Sub(Box<Node>, Box<Node>),
    Mul(Box<Node>, Box<Node>),
    Div(Box<Node>, Box<Node>),
    Max(Box<Node>, Box<Node>),
    Min(Box<Node>, Box<Node>),
    Cmp(Cmp, Box<Node>, Box<Node>),
    Let(Box<Node>, Box<Node>),
    /// A pool rolled once and read several times in the body: its dice sit at `offset`
    /// of the sampler's scratch.
    LetPool {
        spec: Box<PoolSpec>,
        offset: usize,
        body: Box<Node>,
        /// Rerolled by a choice (`reroll p = 5d6 to maximise ...`) before the body reads
        /// them.
        choice: Option<Box<Choice>>,
    },
    /// A read of the pool variable at scope depth `i`.
    PoolVar(Box<PoolRead>),
    If(Box<Node>, Box<Node>, Box<Node>),
    Pool(Box<PoolSpec>),
    /// Two pools die by die ([`Versus`]); `ties`: ties go to the first.
    Versus(Versus, Box<PoolSpec>, Box<PoolSpec>, bool),
    /// Two sides die by die with pool variables, `only` or a read: see [`Meeting`].
    Meeting(Box<Meeting>),
    /// A pool of one kind of die whose count is a value (a state variable, a roll):
    /// the pool compiled for every count from 0 to [`MAX_ROLLED_DICE`], picked by the count
    /// (clamped to that range).
    Counted(Box<Node>, Vec<PoolSpec>),
    /// A pool whose numbers are rolled first (a threshold from a `let`, `d(size)`):
    /// see [`Template`].
    Template(Box<Template>),
    /// Rounds until a condition holds: see [`Repeat`].
    Repeat(Box<Repeat>),
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
    pub kind: Versus,
    pub sides: [Side; 2],
    pub only: [Option<Cond>; 2],
    pub ties: bool,
    /// None: the first side's dice left are counted.
    pub read: Option<Agg>,
}

/// One side of a [`Meeting`].
#[derive(Clone, Debug, PartialEq)]
pub enum Side {
    Pool(Box<PoolSpec>),
    /// A pool variable at scope depth `i`, its dice at `offset` of the scratch.
    Var {
        i: usize,
        offset: usize,
        spec: Box<PoolSpec>,
    },
}

impl Side {
    pub fn spec(&self) -> &PoolSpec {
        match self {
            Side::Pool(p) | Side::Var { spec: p, .. } => p,
        }
    }
}

impl Meeting {
    /// The first side's dice left (ascending) given both sides' dice (ascending, kept):
    /// each side's `only` applied first.
    pub fn left(&self, a: &[i64], b: &[i64], out: &mut Vec<i64>) {
        let only = |dice: &[i64], c: Option<Cond>, p: &PoolSpec, buf: &mut Vec<i64>| {
            buf.clear();
            let (lo, hi) = face_span(p);
            buf.extend(
                dice.iter()
                    .copied()
                    .filter(|&v| c.is_none_or(|c| c.holds(v, lo, hi))),
            );
        };
        let (mut x, mut y) = (Vec::new(), Vec::new());
        only(a, self.only[0], self.sides[0].spec(), &mut x);
        only(b, self.only[1], self.sides[1].spec(), &mut y);
        versus_dice(self.kind, &x, &y, self.ties, out);
    }

    /// The result given both sides' dice.
    pub fn value(&self, a: &[i64], b: &[i64]) -> i64 {
        let mut left = Vec::new();
        self.left(a, b, &mut left);
        match self.read {
            None => left.len() as i64,
            Some(agg) => {
                let (lo, hi) = face_span(self.sides[0].spec());
                read_sorted(&left, None, agg, lo, hi)
            }
        }
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
    pub init: Vec<Node>,
    pub until: Node,
    /// The round's `let`s around an [`Node::Emit`] of every state variable.
    pub step: Node,
    pub limit: u32,
    pub body: Node,
}

/// How a pool variable is read.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolRead {
    pub i: usize,
    pub offset: usize,
    pub len: usize,
    pub keep: Option<(End, u32)>,
    pub agg: Agg,
    /// The pool's faces span, for `count max` / `count min`.
    pub lo: i64,
    pub hi: i64,
    /// The pool, for bounds.
    pub spec: Box<PoolSpec>,
    /// The read's numbers known only when it is read (`p count >= w`).
    pub rolled: Option<Box<ReadParams>>,
    /// A role of a `choose`: it holds as many dice as it was handed (the scratch says
    /// how many), not always `len`.
    pub sized: bool,
}

/// A pool variable's read whose keep count or count face is a value: rolled (or read
/// from the variables) at the read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadParams {
    /// A drop, its end, the count.
    pub keep: Option<(bool, End, Node)>,
    pub face: Option<Node>,
}

impl PoolRead {
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

/// A compile error at a column of the expression.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    pub col: usize,
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
enum Slot {
    Num,
    /// A pool variable: its spec and where its dice sit in the scratch.
    Pool(Box<PoolSpec>, usize),
    /// A role of a `choose`: dice handed to it (up to the spec's count), where they sit,
    /// and the lowest and highest face of the pool (its spec also has 0, for bounds);
    /// its largest die's sides are in its number slot.
    Role(Box<PoolSpec>, usize, (i64, i64)),
}

struct Ctx<'a> {
    names: Names<'a>,
    /// The expression's symbols, when it counts faces by name.
    symbols: Option<Symbols>,
    /// Whether a record may stand here: the result, or the body of a `let` that is.
    record_ok: bool,
    scope: Vec<(String, Slot)>,
    /// Scratch dice taken by the pool variables in scope.
    used: usize,
}

/// A `let` name in scope: a number, or a pool variable (its dice, their offset in the
/// scratch and how many).
enum Binding {
    Num(Node),
    Pool(Box<PoolSpec>, usize, usize),
}

impl Binding {
    /// The `let` around `body`, the name at scope depth `i`.
    fn wrap(self, body: Node, i: usize) -> Node {
        match self {
            Binding::Num(b) => Node::Let(Box::new(b), Box::new(body)),
            Binding::Pool(spec, offset, _) => bind_pool(*spec, offset, body, i),
        }
    }
}

/// A pool variable at scope depth `i` around its body.
fn bind_pool(spec: PoolSpec, offset: usize, body: Node, i: usize) -> Node {
    let mut seen = Vec::new();
    let mut rolled = false;
    reads(&body, i, &mut seen, &mut rolled);
    match seen.as_slice() {
        // Read one way only: a number variable, its distribution computed once (no
        // need to go through every roll of the pool).
        // (A variable bound with a keep holds the kept dice: a read that keeps again
        // is not one keep of the pool.)
        [(keep, agg)] if !rolled && (keep.is_none() || spec.keep.is_none()) => Node::Let(
            Box::new(Node::Pool(Box::new(
                PoolSpec {
                    keep: keep.or(spec.keep),
                    agg: *agg,
                    ..spec
                }
                .tabled(),
            ))),
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

/// 1 if the value is non-zero, else 0.
fn truth(n: Node) -> Node {
    Node::Cmp(Cmp::Ne, Box::new(n), Box::new(Node::Num(0)))
}

/// Dice all pool variables in scope may hold at once.
pub const SCRATCH: usize = MAX_DICE as usize;

/// Variables (`let` values, state variables) in scope at once.
pub const VARS: usize = 80;

/// Compile an expression against the names in scope.
pub fn compile(e: &Expr, names: Names) -> Result<Node, CompileError> {
    let mut ctx = Ctx {
        names,
        symbols: Symbols::of(e)?,
        record_ok: false,
        scope: Vec::new(),
        used: 0,
    };
    ctx.node(e)
}

/// One named result of a record: its name, its smallest value and how many values it
/// spans; packed, it is digit `i` of the result in the mixed radix of the spans.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub lo: i64,
    pub span: i64,
    /// The product of the spans of the fields before it.
    pub stride: i64,
}

impl Field {
    /// This field's value in a packed result.
    pub fn of(&self, packed: i64) -> i64 {
        self.lo + packed.div_euclid(self.stride).rem_euclid(self.span)
    }
}

/// Most combinations of a record's values (each is a state of the Monte Carlo table).
pub const MAX_COMBINATIONS: i64 = 1 << 16;

/// Parse and compile a scenario's result: one number, or a record of named results
/// packed into one number (each field a digit of it, so that the exact engine and the
/// sampler carry their joint distribution unchanged) with its fields.
pub fn parse_result(
    text: &str,
    names: Names,
) -> Result<(Node, Option<Vec<Field>>), lang::SyntaxError> {
    let e = lang::parse(text)?;
    let at = |e: CompileError| lang::SyntaxError {
        col: e.col,
        message: e.message,
    };
    let mut ctx = Ctx {
        names,
        symbols: Symbols::of(&e).map_err(at)?,
        record_ok: true,
        scope: Vec::new(),
        used: 0,
    };
    let n = ctx.node(&e).map_err(at)?;
    let col = record_col(&e);
    let mut fields = None;
    let n =
        pack(n, &mut Vec::new(), &mut fields).map_err(|m| lang::SyntaxError { col, message: m })?;
    let named = fields.map(|f: Vec<(i64, i64, i64)>| {
        record_names(&e)
            .into_iter()
            .zip(f)
            .map(|(name, (lo, span, stride))| Field {
                name,
                lo,
                span,
                stride,
            })
            .collect()
    });
    Ok((n, named))
}

/// The record at the end of a chain of `let`s (and `repeat`s' `then`), if there is one.
fn record_of(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Let(_, _, body) => record_of(body),
        Expr::Repeat(r) => record_of(&r.body),
        Expr::Choose(c) => c.body.as_ref().and_then(record_of),
        Expr::Pick(p) => p.body.as_ref().and_then(record_of),
        r @ Expr::Record(..) => Some(r),
        _ => None,
    }
}

fn record_names(e: &Expr) -> Vec<String> {
    match record_of(e) {
        Some(Expr::Record(f, _)) => f.iter().map(|(n, ..)| n.clone()).collect(),
        _ => Vec::new(),
    }
}

fn record_col(e: &Expr) -> usize {
    match record_of(e) {
        Some(Expr::Record(_, c)) => *c,
        _ => 0,
    }
}

/// Replace the record at the end of the `let`s by its packed number: field `i` less its
/// smallest value, times the product of the spans before it, summed. `vars`: the
/// bounds of the `let` values in scope.
fn pack(
    n: Node,
    vars: &mut Vec<(i64, i64)>,
    fields: &mut Option<Vec<(i64, i64, i64)>>,
) -> Result<Node, String> {
    Ok(match n {
        Node::Let(bound, body) => {
            let b = bounds(&bound, vars);
            vars.push(b);
            let body = pack(*body, vars, fields);
            vars.pop();
            Node::Let(bound, Box::new(body?))
        }
        Node::LetPool {
            spec,
            offset,
            body,
            choice,
        } => {
            vars.push((0, 0));
            let body = pack(*body, vars, fields);
            vars.pop();
            Node::LetPool {
                spec,
                offset,
                body: Box::new(body?),
                choice,
            }
        }
        Node::Repeat(r) => {
            let base = vars.len();
            let state = repeat_bounds(&r, vars);
            vars.extend_from_slice(&state);
            let mut r = r;
            let body = pack(std::mem::replace(&mut r.body, Node::Num(0)), vars, fields);
            vars.truncate(base);
            r.body = body?;
            Node::Repeat(r)
        }
        Node::Pick(mut p) => {
            let base = vars.len();
            vars.extend(std::iter::repeat_n(p.sides_bounds(), p.roles.len()));
            let body = pack(p.body, vars, fields);
            vars.truncate(base);
            p.body = body?;
            Node::Pick(p)
        }
        Node::Record(parts) => {
            let mut out: Option<Node> = None;
            let mut stride: i64 = 1;
            let mut f = Vec::new();
            let mut spans = Vec::new();
            for part in parts {
                let (lo, hi) = bounds(&part, vars);
                let span = hi.saturating_sub(lo).saturating_add(1);
                spans.push(span);
                let combos = stride.saturating_mul(span);
                if combos > MAX_COMBINATIONS {
                    return Err(format!(
                        "the record's results span {} values: together more than {MAX_COMBINATIONS} combinations",
                        spans.iter().map(i64::to_string).collect::<Vec<_>>().join(" x ")
                    ));
                }
                let digit = Node::Sub(Box::new(part), Box::new(Node::Num(lo)));
                let term = if stride == 1 {
                    digit
                } else {
                    Node::Mul(Box::new(Node::Num(stride)), Box::new(digit))
                };
                out = Some(match out {
                    None => term,
                    Some(acc) => Node::Add(Box::new(acc), Box::new(term)),
                });
                f.push((lo, span, stride));
                stride = combos;
            }
            *fields = Some(f);
            out.unwrap_or(Node::Num(0))
        }
        other => other,
    })
}

/// Fold an expression without dice to its number.
fn constant(n: &Node) -> Option<i64> {
    Some(match n {
        Node::Num(v) => *v,
        Node::Neg(a) => -constant(a)?,
        Node::Add(a, b) => constant(a)?.checked_add(constant(b)?)?,
        Node::Sub(a, b) => constant(a)?.checked_sub(constant(b)?)?,
        Node::Mul(a, b) => constant(a)?.checked_mul(constant(b)?)?,
        Node::Max(a, b) => constant(a)?.max(constant(b)?),
        Node::Min(a, b) => constant(a)?.min(constant(b)?),
        Node::Div(a, b) => {
            let d = constant(b)?;
            if d == 0 {
                0
            } else {
                constant(a)?.div_euclid(d)
            }
        }
        _ => return None,
    })
}

/// Every expression directly inside `n`, in order.
pub(crate) fn each_child(n: &Node, f: &mut dyn FnMut(&Node)) {
    match n {
        Node::Num(_) | Node::Var(_) | Node::Pool(_) | Node::Versus(..) | Node::Meeting(_) => {}
        Node::Neg(a) => f(a),
        Node::Add(a, b)
        | Node::Sub(a, b)
        | Node::Mul(a, b)
        | Node::Div(a, b)
        | Node::Max(a, b)
        | Node::Min(a, b)
        | Node::Cmp(_, a, b)
        | Node::Let(a, b) => {
            f(a);
            f(b);
        }
        Node::LetPool { body, .. } => f(body),
        Node::Pick(p) => {
            f(&p.objective);
            f(&p.body);
        }
        Node::If(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
        Node::Repeat(r) => {
            r.init.iter().for_each(&mut *f);
            f(&r.until);
            f(&r.step);
            f(&r.body);
        }
        Node::Emit(v) | Node::Record(v) => v.iter().for_each(f),
        Node::Counted(c, _) => f(c),
        Node::Template(t) => t.params.iter().for_each(f),
        Node::PoolVar(r) => {
            if let Some(p) = &r.rolled {
                if let Some((_, _, k)) = &p.keep {
                    f(k);
                }
                if let Some(v) = &p.face {
                    f(v);
                }
            }
        }
    }
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
fn sized(n: Node, (lo, hi): (i64, i64)) -> Node {
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
fn reads(n: &Node, i: usize, out: &mut Vec<(Option<(End, u32)>, Agg)>, rolled: &mut bool) {
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
fn to_var(n: Node, i: usize) -> Node {
    let b = |x: Box<Node>| Box::new(to_var(*x, i));
    match n {
        Node::PoolVar(r) if r.i == i => Node::Var(i),
        Node::Neg(a) => Node::Neg(b(a)),
        Node::Add(x, y) => Node::Add(b(x), b(y)),
        Node::Sub(x, y) => Node::Sub(b(x), b(y)),
        Node::Mul(x, y) => Node::Mul(b(x), b(y)),
        Node::Div(x, y) => Node::Div(b(x), b(y)),
        Node::Max(x, y) => Node::Max(b(x), b(y)),
        Node::Min(x, y) => Node::Min(b(x), b(y)),
        Node::Cmp(c, x, y) => Node::Cmp(c, b(x), b(y)),
        Node::Let(x, y) => Node::Let(b(x), b(y)),
        Node::LetPool {
            spec,
            offset,
            body,
            choice,
        } => Node::LetPool {
            spec,
            offset,
            body: b(body),
            choice,
        },
        Node::If(c, x, y) => Node::If(b(c), b(x), b(y)),
        Node::Pick(mut p) => {
            p.body = to_var(p.body, i);
            Node::Pick(p)
        }
        Node::Repeat(mut r) => {
            let mut each = |n: &mut Node| *n = to_var(std::mem::replace(n, Node::Num(0)), i);
            r.init.iter_mut().for_each(&mut each);
            each(&mut r.until);
            each(&mut r.step);
            each(&mut r.body);
            Node::Repeat(r)
        }
        Node::Emit(v) => Node::Emit(v.into_iter().map(|n| to_var(n, i)).collect()),
        Node::Record(v) => Node::Record(v.into_iter().map(|n| to_var(n, i)).collect()),
        Node::Counted(c, pools) => Node::Counted(b(c), pools),
        Node::Template(mut t) => {
            t.params = std::mem::take(&mut t.params)
                .into_iter()
                .map(|n| to_var(n, i))
                .collect();
            Node::Template(t)
        }
        Node::PoolVar(mut r) => {
            if let Some(p) = r.rolled.as_mut() {
                if let Some((d, e, k)) = p.keep.take() {
                    p.keep = Some((d, e, to_var(k, i)));
                }
                p.face = p.face.take().map(|v| to_var(v, i));
            }
            Node::PoolVar(r)
        }
        other => other,
    }
}

/// Every number of a pool written as an expression, in the one order [`spec_of`] takes
/// them: per group its count and its sides (`d(x)`), per modifier its face or count,
/// then the read's face.
fn param_exprs<'e>(
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
            ModOf::Keep(_, e) | ModOf::Drop(_, e) | ModOf::Depth(e) => out.push(e),
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
pub struct Val {
    pub v: i64,
    pub fixed: bool,
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
    vals: &[Val],
    syms: Option<&Symbols>,
) -> Result<PoolSpec, CompileError> {
    let err = |m: String| CompileError { col, message: m };
    let mut next = vals.iter().copied();
    let mut take = || next.next().unwrap_or(Val { v: 0, fixed: true });
    let cond = |c: &CondAst, take: &mut dyn FnMut() -> Val| -> (Cond, bool) {
        match c {
            CondOf::Max => (CondOf::Max, true),
            CondOf::Min => (CondOf::Min, true),
            CondOf::Cmp(op, _) => {
                let v = take();
                (CondOf::Cmp(*op, v.v), v.fixed)
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
        if g.deck && c.fixed && !(0..=most).contains(&c.v) {
            return Err(err(format!(
                "draw {}: a deck of {} cards deals 0 to {most}",
                c.v,
                g.die.faces.len()
            )));
        }
        let n = if c.fixed {
            if !(0..=MAX_DICE).contains(&c.v) {
                return Err(err(format!(
                    "{} dice: a pool rolls 0 to {MAX_DICE} dice",
                    c.v
                )));
            }
            c.v
        } else {
            c.v.clamp(0, most)
        };
        let faces = match &g.die.sides {
            None => g.die.faces.clone(),
            Some(_) => {
                let s = take();
                if s.fixed && !(1..=MAX_SIDES).contains(&s.v) {
                    return Err(err(format!(
                        "a d({}): a die has 1 to {MAX_SIDES} sides",
                        s.v
                    )));
                }
                (1..=s.v.clamp(1, MAX_SIDES)).collect()
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
            .any(|m| !matches!(m, ModOf::Keep(..) | ModOf::Drop(..)))
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
                if d.fixed && !(0..=lang::MAX_CHAIN as i64).contains(&d.v) {
                    return Err(err(format!(
                        "depth {}: the most extra rolls of a chain are 0 to {}",
                        d.v,
                        lang::MAX_CHAIN
                    )));
                }
                let n = d.v.clamp(0, lang::MAX_CHAIN as i64) as u32;
                specs.iter_mut().for_each(|(_, s)| s.depth = n);
            }
            ModOf::Keep(end, _) | ModOf::Drop(end, _) => {
                let n = take().v;
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
fn agg_written(a: Agg) -> bool {
    !matches!(a, Agg::Sum)
}

/// A compiled `count NAME` on dice whose symbols are `named`.
fn tally_of(
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
                format!("`count {name}` counts a symbol, but these dice have no named faces; to compare with a value write `count >= {name}`")
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
    pub groups: Vec<lang::Group>,
    pub mods: Vec<ModAst>,
    pub agg: Option<AggAst>,
    pub col: usize,
    /// Per number of the pool: its value when folded, None when rolled.
    pub fixed: Vec<Option<i64>>,
    /// The rolled numbers' expressions, in order.
    pub params: Vec<Node>,
    pub syms: Option<Symbols>,
}

impl Template {
    /// The pool given its rolled numbers (None only for a pool the compile-time check
    /// would have refused).
    pub fn spec(&self, rolled: &[i64]) -> Option<PoolSpec> {
        let mut r = rolled.iter();
        let vals: Vec<Val> = self
            .fixed
            .iter()
            .map(|f| match f {
                Some(v) => Val { v: *v, fixed: true },
                None => Val {
                    v: r.next().copied().unwrap_or(0),
                    fixed: false,
                },
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

impl Ctx<'_> {
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
                Ok(v) => vals.push(Val { v, fixed: true }),
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
            let vals: Vec<Val> = params
                .into_iter()
                .map(|p| Val {
                    v: p.unwrap_or(0),
                    fixed: true,
                })
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
            return Ok(Node::Pool(Box::new(spec.tabled())));
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
        let probe: Vec<Val> = fixed
            .iter()
            .map(|f| match f {
                Some(v) => Val { v: *v, fixed: true },
                None => Val { v: 1, fixed: false },
            })
            .collect();
        spec_of(groups, mods, agg, col, &probe, self.symbols.as_ref())?;
        // One kind of die whose count alone is rolled: the pool for every count, made now.
        if let ([g], [None, ..]) = (groups, fixed.as_slice()) {
            if nodes.len() == 1 && g.die.sides.is_none() {
                let mut made = Vec::new();
                let pools = (0..=MAX_ROLLED_DICE)
                    .map(|n| {
                        let mut vals = probe.clone();
                        vals[0] = Val { v: n, fixed: false };
                        spec_of(groups, mods, agg, col, &vals, self.symbols.as_ref())
                            .map(|s| s.tabled_sharing(&mut made))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let count = nodes.into_iter().next().unwrap_or(Node::Num(0));
                return Ok(Node::Counted(Box::new(count), pools));
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

    fn node(&mut self, e: &Expr) -> Result<Node, CompileError> {
        // A record only as the result: here, or in the body of a `let` that is.
        let record_ok = std::mem::replace(&mut self.record_ok, false);
        let bin =
            |s: &mut Self, a: &Expr, b: &Expr| -> Result<(Box<Node>, Box<Node>), CompileError> {
                Ok((Box::new(s.node(a)?), Box::new(s.node(b)?)))
            };
        Ok(match e {
            Expr::Num(v) => Node::Num(*v),
            Expr::Name(n, col) => match self.scope.iter().rposition(|(s, _)| s == n) {
                Some(i) => match &self.scope[i].1 {
                    Slot::Num => Node::Var(i),
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
                    Slot::Role(spec, offset, faces) => {
                        sized(self.read(i, spec.clone(), *offset, None, Agg::Sum, None), *faces)
                    }
                },
                None => match self.names.iter().find(|(k, _)| k == n) {
                    Some((_, v)) => Node::Num(*v),
                    None => return Err(self.unknown(n, *col)),
                },
            },
            Expr::Read {
                name,
                keep,
                agg,
                col,
            } => {
                let Some(i) = self.scope.iter().rposition(|(s, _)| s == name) else {
                    return Err(self.unknown(name, *col));
                };
                let (spec, offset, role) = match self.scope[i].1.clone() {
                    Slot::Pool(spec, offset) => (spec, offset, None),
                    Slot::Role(spec, offset, faces) => (spec, offset, Some(faces)),
                    Slot::Num => return Err(CompileError {
                        col: *col,
                        message: format!(
                            "`{name}` is a number: `keep`, `drop`, `count` and the other reads apply to dice (bind dice without a read: `let {name} = 4d6 in ...`)"
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
                    Some(AggOf::Highest) => AggOf::Highest,
                    Some(AggOf::Lowest) => AggOf::Lowest,
                    Some(AggOf::MaxSet) => AggOf::MaxSet,
                    Some(AggOf::Straight) => AggOf::Straight,
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
                let rolled =
                    (rolled.keep.is_some() || rolled.face.is_some()).then(|| Box::new(rolled));
                if role.is_some() && (rolled.is_some() || is_drop) {
                    return Err(CompileError {
                        col: *col,
                        message: format!("`{name}` holds the dice a `choose` handed it, as many as were left: read it with `keep` (a `drop` or a rolled number has no fixed count to go by)"),
                    });
                }
                let n = self.read(i, spec, offset, keep, agg, rolled);
                match role {
                    Some(faces) => sized(n, faces),
                    None => n,
                }
            }
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
                    Op::Cmp(c) => Node::Cmp(*c, a, b),
                };
                match constant(&n) {
                    Some(v) => Node::Num(v),
                    None => n,
                }
            }
            Expr::Let(name, bound, body) => {
                let binding = self.bind(name, bound)?;
                self.record_ok = record_ok;
                let r = self.node(body);
                self.unbind(&binding);
                binding.wrap(r?, self.scope.len())
            }
            Expr::Choose(c) => self.choose(c, record_ok)?,
            Expr::Pick(p) => self.pick(p, record_ok)?,
            Expr::Sides(name, col) => match self.scope.iter().rposition(|(s, _)| s == name) {
                Some(i) if matches!(self.scope[i].1, Slot::Role(..)) => Node::Var(i),
                Some(_) => {
                    return Err(CompileError {
                        col: *col,
                        message: format!("`{name} sides`: only the dice a `choose` hands out know their sizes (`choose effect = 1 from [...] ... effect sides`)"),
                    })
                }
                None => return Err(self.unknown(name, *col)),
            },
            Expr::And(a, b) => {
                let (a, b) = bin(self, a, b)?;
                Node::Mul(Box::new(truth(*a)), Box::new(truth(*b)))
            }
            Expr::Or(a, b) => {
                let (a, b) = bin(self, a, b)?;
                Node::Cmp(
                    Cmp::Ge,
                    Box::new(Node::Add(Box::new(truth(*a)), Box::new(truth(*b)))),
                    Box::new(Node::Num(1)),
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
            } => {
                let spec = |s: &mut Self, e: &Expr| -> Result<Box<PoolSpec>, CompileError> {
                    let Expr::Pool {
                        groups, mods, col, ..
                    } = e
                    else {
                        return Err(CompileError {
                            col: *col,
                            message: "dice expected".into(),
                        });
                    };
                    let s = s.pool_spec(groups, mods, &None, *col)?;
                    if s.deck().is_some() {
                        return Err(CompileError {
                            col: *col,
                            message:
                                "`pairs`, `beats` and `cancel` set dice against dice, not a deck"
                                    .into(),
                        });
                    }
                    if s.again.is_some() {
                        return Err(CompileError {
                            col: *col,
                            message: "`again` cannot be paired off: its pool's size varies".into(),
                        });
                    }
                    Ok(Box::new(s))
                };
                let side = |s: &mut Self, e: &Expr| -> Result<Side, CompileError> {
                    if let Expr::Name(name, at) = e {
                        return match s.scope.iter().rposition(|(x, _)| x == name) {
                            Some(i) => match &s.scope[i].1 {
                                Slot::Pool(spec, offset) => Ok(Side::Var {
                                    i,
                                    offset: *offset,
                                    spec: spec.clone(),
                                }),
                                Slot::Role(..) => Err(CompileError {
                                    col: *at,
                                    message: format!("`{name}` holds dice a `choose` handed it: they are not set against other dice"),
                                }),
                                Slot::Num => Err(CompileError {
                                    col: *at,
                                    message: format!("`{name}` is a number: `pairs`, `beats` and `cancel` set dice against dice (bind dice without a read: `let {name} = 3d20 in ...`)"),
                                }),
                            },
                            None => Err(s.unknown(name, *at)),
                        };
                    }
                    Ok(Side::Pool(spec(s, e)?))
                };
                let (x, y) = (side(self, a)?, side(self, b)?);
                let named_a = x.spec().named.clone();
                let mut cond = |c: &Option<CondAst>| -> Result<Option<Cond>, CompileError> {
                    Ok(match c {
                        None => None,
                        Some(CondOf::Max) => Some(CondOf::Max),
                        Some(CondOf::Min) => Some(CondOf::Min),
                        Some(CondOf::Cmp(op, e)) => {
                            let n = self.node(e)?;
                            Some(CondOf::Cmp(
                                *op,
                                constant(&n).ok_or_else(|| CompileError {
                                    col: *col,
                                    message: "`only` takes a face fixed before the roll: a number or stats".into(),
                                })?,
                            ))
                        }
                    })
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
                        AggOf::Count(c) => {
                            AggOf::Count(cond(&Some(c.clone()))?.unwrap_or(CondOf::Max))
                        }
                        AggOf::Tally(t) => {
                            AggOf::Tally(tally_of(t, &named_a, self.symbols.as_ref(), *col)?)
                        }
                    }),
                };
                match (x, y) {
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
                }
            }
            Expr::Pool {
                groups,
                mods,
                agg,
                col,
            } => self.pool_node(groups, mods, agg, *col)?,
            Expr::Record(fields, col) => {
                if !record_ok {
                    return Err(CompileError {
                        col: *col,
                        message: "a record `{ name = ..., ... }` is the scenario's result: write it last, after any `let`s, not inside another expression".into(),
                    });
                }
                let mut parts = Vec::new();
                for (_, e, _) in fields {
                    parts.push(self.node(e)?);
                }
                Node::Record(parts)
            }
        })
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
            // Dice bound without a read: a pool variable, read in the body.
            let spec = self.pool_spec(groups, mods, &None, *col)?;
            if spec.again.is_some() {
                return Err(CompileError {
                    col: *col,
                    message: "a pool variable cannot use `again` (its size would vary)".into(),
                });
            }
            let n: u32 = spec.groups.iter().map(|(n, _)| n).sum();
            let offset = self.used;
            if offset + n as usize > SCRATCH {
                return Err(CompileError {
                    col: *col,
                    message: format!("pool variables hold at most {SCRATCH} dice at once"),
                });
            }
            self.used += n as usize;
            self.scope
                .push((name.to_string(), Slot::Pool(Box::new(spec.clone()), offset)));
            return Ok(Binding::Pool(Box::new(spec), offset, n as usize));
        }
        let b = self.node(bound)?;
        self.scope.push((name.to_string(), Slot::Num));
        Ok(Binding::Num(b))
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
            Binding::Pool(spec, offset, _) => ((**spec).clone(), *offset),
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
        let only = match &p.only {
            None => None,
            Some(CondOf::Max) => Some(CondOf::Max),
            Some(CondOf::Min) => Some(CondOf::Min),
            Some(CondOf::Cmp(op, e)) => {
                let v = self.node(e)?;
                Some(CondOf::Cmp(
                    *op,
                    constant(&v).ok_or_else(|| {
                        refuse(
                            "`only` takes a face fixed before the roll: a number or stats".into(),
                        )
                    })?,
                ))
            }
        };
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
            self.scope
                .push((name.clone(), Slot::Role(Box::new(role), offset, real)));
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

    fn unbind(&mut self, b: &Binding) {
        self.scope.pop();
        if let Binding::Pool(_, _, n) = b {
            self.used -= n;
        }
    }

    /// A `repeat`; `record_ok`: its `then` may be a record (the repeat is the result).
    fn repeat(&mut self, r: &lang::Repeat, record_ok: bool) -> Result<Node, CompileError> {
        let d = self.scope.len();
        if d + r.state.len() + 1 > VARS {
            return Err(CompileError {
                col: r.col,
                message: format!("more than {VARS} names in scope at once"),
            });
        }
        let mut init = Vec::new();
        for (i, (name, e, col)) in r.state.iter().enumerate() {
            if r.state[..i].iter().any(|(m, ..)| m == name) {
                return Err(CompileError {
                    col: *col,
                    message: format!("`{name}` is a state variable twice"),
                });
            }
            init.push(self.node(e)?);
        }
        for (name, ..) in &r.state {
            self.scope.push((name.clone(), Slot::Num));
        }
        self.scope.push(("rounds".into(), Slot::Num));
        let until = self.node(&r.until)?;
        self.record_ok = record_ok;
        let body = self.node(&r.body)?;
        let mut bindings = Vec::new();
        let mut failed = None;
        for (name, bound) in &r.lets {
            match self.bind(name, bound) {
                Ok(b) => bindings.push(b),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let emit = match failed {
            Some(e) => Err(e),
            None => self.updates(r, d),
        };
        for b in bindings.iter().rev() {
            self.unbind(b);
        }
        let mut step = Node::Emit(emit?);
        for (j, b) in bindings.into_iter().enumerate().rev() {
            step = b.wrap(step, d + r.state.len() + 1 + j);
        }
        Ok(Node::Repeat(Box::new(Repeat {
            init,
            until,
            step,
            limit: r.limit,
            body,
        })))
    }

    /// Every state variable's value after a round: its update, or itself.
    fn updates(&mut self, r: &lang::Repeat, d: usize) -> Result<Vec<Node>, CompileError> {
        let mut out: Vec<Option<Node>> = vec![None; r.state.len()];
        for (name, e, col) in &r.updates {
            let Some(i) = r.state.iter().position(|(m, ..)| m == name) else {
                return Err(CompileError {
                    col: *col,
                    message: format!(
                        "`{name}` is not a state variable of this `repeat`{}; its state variables are {}",
                        nearest_hint(name, r.state.iter().map(|(m, ..)| m.as_str())),
                        r.state.iter().map(|(m, ..)| m.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                });
            };
            if out[i].is_some() {
                return Err(CompileError {
                    col: *col,
                    message: format!("`{name}` is updated twice in one round"),
                });
            }
            out[i] = Some(self.node(e)?);
        }
        Ok(out
            .into_iter()
            .enumerate()
            .map(|(i, n)| n.unwrap_or(Node::Var(d + i)))
            .collect())
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
fn keep_of(drop: bool, end: End, n: i64, total: u32) -> (End, u32) {
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
        Agg::Tally(t) => kept.iter().map(|&v| lang::tally(v, t)).sum(),
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
    }
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
}

/// Pools of templates one sampler keeps; past it they are made afresh.
const MADE: usize = 4096;

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            vars: [0; VARS],
            dice: vec![0; BUF],
            lens: [0; VARS],
            made: Default::default(),
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
const BUF: usize = 128;

/// `f` on a buffer of `n` dice.
fn held<R>(n: usize, f: impl FnOnce(&mut [i64]) -> R) -> R {
    if n <= BUF {
        let mut b = [0i64; BUF];
        f(&mut b[..n])
    } else {
        f(&mut vec![0i64; n])
    }
}

/// Roll an expression as written; `s` holds the `let` values and pool variables'
/// dice in scope, `depth` the scope's depth.
pub fn sample(n: &Node, rng: &mut Rng, s: &mut Scratch, depth: usize) -> i64 {
    match n {
        Node::Num(v) => *v,
        Node::Var(i) => s.vars[*i],
        Node::Neg(a) => sample(a, rng, s, depth).saturating_neg(),
        // Saturating: a hostile expression cannot overflow; its bounds saturate alike.
        Node::Add(a, b) => sample(a, rng, s, depth).saturating_add(sample(b, rng, s, depth)),
        Node::Sub(a, b) => sample(a, rng, s, depth).saturating_sub(sample(b, rng, s, depth)),
        Node::Mul(a, b) => sample(a, rng, s, depth).saturating_mul(sample(b, rng, s, depth)),
        Node::Div(a, b) => {
            let x = sample(a, rng, s, depth);
            let y = sample(b, rng, s, depth);
            if y == 0 {
                0
            } else {
                x.div_euclid(y)
            }
        }
        Node::Max(a, b) => sample(a, rng, s, depth).max(sample(b, rng, s, depth)),
        Node::Min(a, b) => sample(a, rng, s, depth).min(sample(b, rng, s, depth)),
        Node::Cmp(c, a, b) => {
            let x = sample(a, rng, s, depth);
            let y = sample(b, rng, s, depth);
            c.holds(x, y) as i64
        }
        Node::Let(bound, body) => {
            s.vars[depth] = sample(bound, rng, s, depth);
            sample(body, rng, s, depth + 1)
        }
        Node::LetPool {
            spec,
            offset,
            body,
            choice,
        } => {
            roll_bound(spec, *offset, choice.as_deref(), rng, s);
            sample(body, rng, s, depth + 1)
        }
        Node::Pick(p) => {
            p.play(rng, s);
            sample(&p.body, rng, s, depth + p.roles.len())
        }
        Node::Repeat(r) => {
            let state = init_state(r, rng, s, depth);
            play_repeat(r, rng, s, depth, state, 0)
        }
        // Read only by `step`; packed before any roll.
        Node::Emit(_) | Node::Record(_) => 0,
        Node::Counted(c, pools) => {
            let n = sample(c, rng, s, depth).clamp(0, MAX_ROLLED_DICE) as usize;
            sample_pool(&pools[n], rng)
        }
        Node::Template(t) => {
            let mut key = [0i64; MAX_PARAMS];
            for (k, p) in key.iter_mut().zip(&t.params) {
                *k = sample(p, rng, s, depth);
            }
            // Keyed by the template's address: one compiled expression, one sampler.
            let id = (&**t as *const Template as usize, key);
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
        Node::PoolVar(r) => {
            let (keep, agg) = match &r.rolled {
                None => (r.keep, r.agg),
                Some(p) => {
                    let k = p.keep.as_ref().map(|(_, _, n)| sample(n, rng, s, depth));
                    let f = p.face.as_ref().map(|n| sample(n, rng, s, depth));
                    r.with(k, f)
                }
            };
            let len = if r.sized { s.lens[r.i] } else { r.len };
            read_sorted(&s.dice[r.offset..r.offset + len], keep, agg, r.lo, r.hi)
        }
        Node::If(c, a, b) => {
            if sample(c, rng, s, depth) != 0 {
                sample(a, rng, s, depth)
            } else {
                sample(b, rng, s, depth)
            }
        }
        Node::Pool(p) => sample_pool(p, rng),
        Node::Meeting(m) => {
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
        Node::Versus(kind, a, b, ties) => held(a.rolled(), |x| {
            held(b.rolled(), |y| {
                let na = roll_kept(a, rng, x);
                let nb = roll_kept(b, rng, y);
                versus(*kind, &x[..na], &y[..nb], *ties)
            })
        }),
    }
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

/// Roll a pool variable's dice into the scratch at `offset`, sorted.
/// A pool variable's dice into the scratch, rerolled by its choice if it has one.
fn roll_bound(
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

fn roll_pool_var(spec: &PoolSpec, offset: usize, rng: &mut Rng, s: &mut Scratch) {
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
            all.sort_unstable();
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
    s.dice[offset..k].sort_unstable();
}

/// A `repeat`'s state variables' first values (each read before any is set).
fn init_state(r: &Repeat, rng: &mut Rng, s: &mut Scratch, depth: usize) -> [i64; lang::MAX_STATE] {
    let mut state = [0i64; lang::MAX_STATE];
    for (i, n) in r.init.iter().enumerate() {
        state[i] = sample(n, rng, s, depth);
    }
    state
}

/// A `repeat`'s rounds from `state` after `round` of them, then its body.
fn play_repeat(
    r: &Repeat,
    rng: &mut Rng,
    s: &mut Scratch,
    depth: usize,
    mut state: [i64; lang::MAX_STATE],
    mut round: u32,
) -> i64 {
    let k = r.init.len();
    s.vars[depth..depth + k].copy_from_slice(&state[..k]);
    loop {
        s.vars[depth + k] = round as i64;
        if round == r.limit || sample(&r.until, rng, s, depth + k + 1) != 0 {
            break;
        }
        step(&r.step, rng, s, depth + k + 1, &mut state);
        s.vars[depth..depth + k].copy_from_slice(&state[..k]);
        round += 1;
    }
    sample(&r.body, rng, s, depth + k + 1)
}

/// Roll one round of a `repeat`: its `let`s, then every state variable's new value
/// into `out` (all read the values before the round).
fn step(n: &Node, rng: &mut Rng, s: &mut Scratch, depth: usize, out: &mut [i64]) {
    match n {
        Node::Let(bound, body) => {
            s.vars[depth] = sample(bound, rng, s, depth);
            step(body, rng, s, depth + 1, out)
        }
        Node::LetPool {
            spec,
            offset,
            body,
            choice,
        } => {
            roll_bound(spec, *offset, choice.as_deref(), rng, s);
            step(body, rng, s, depth + 1, out)
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
fn step_bounds(n: &Node, vars: &mut Vec<(i64, i64)>) -> Vec<(i64, i64)> {
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
        _ => Vec::new(),
    }
}

/// Roll a pool into `buf` (room for [`PoolSpec::rolled`] dice), sorted, its kept dice
/// first: how many are kept.
fn roll_kept(p: &PoolSpec, rng: &mut Rng, buf: &mut [i64]) -> usize {
    let mut len = 0;
    for (n, d) in &p.groups {
        for _ in 0..*n {
            buf[len] = d.roll(rng);
            len += 1;
        }
    }
    buf[..len].sort_unstable();
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
/// that no die of the other cancels.
pub fn versus_dice(kind: Versus, a: &[i64], b: &[i64], ties: bool, out: &mut Vec<i64>) {
    out.clear();
    let wins = |x: i64, y: i64| if ties { x >= y } else { x > y };
    match kind {
        Versus::Pairs => {
            let n = a.len().min(b.len());
            for (x, y) in a.iter().rev().zip(b.iter().rev()).take(n) {
                if wins(*x, *y) {
                    out.push(*x);
                }
            }
            out.reverse();
        }
        Versus::Beats => match b.last() {
            None => out.extend_from_slice(a),
            Some(&top) => out.extend(a.iter().copied().filter(|&x| wins(x, top))),
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
                    out.push(a[i]);
                    i += 1;
                }
            }
        }
    }
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
    }
}

fn sample_pool(p: &PoolSpec, rng: &mut Rng) -> i64 {
    if let Some(t) = &p.table {
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
                let mut depth = 0;
                loop {
                    let v = d.roll(rng);
                    acc += match p.agg {
                        Agg::Count(cc) => cc.holds(v, lo, hi) as i64,
                        _ => v,
                    };
                    if !c.holds(v, lo, hi) || depth >= d.depth {
                        break;
                    }
                    depth += 1;
                }
            }
        }
        return acc;
    }
    if p.keep.is_none() && !matches!(p.agg, Agg::MaxSet | Agg::Straight) {
        // Read each die as it lands: no buffer to fill.
        let mut acc = match p.agg {
            Agg::Highest => i64::MIN,
            Agg::Lowest => i64::MAX,
            _ => 0,
        };
        let mut any = false;
        for (n, d) in &p.groups {
            // Plain dice: many faces from each word; else die by die with its modifiers.
            let mut words = d
                .words
                .filter(|_| d.explode.is_none() && d.reroll.is_none())
                .map(|w| w.stream());
            for _ in 0..*n {
                let v = match &mut words {
                    Some(w) => d.faces[w.roll(rng) as usize - 1],
                    None => d.roll(rng),
                };
                any = true;
                match p.agg {
                    Agg::Sum => acc += v,
                    Agg::Count(c) => acc += c.holds(v, d.lo(), d.hi()) as i64,
                    Agg::Highest => acc = acc.max(v),
                    Agg::Lowest => acc = acc.min(v),
                    Agg::Tally(t) => acc += lang::tally(v, t),
                    Agg::MaxSet | Agg::Straight => {}
                }
            }
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
        if p.keep.is_some() || matches!(p.agg, Agg::MaxSet | Agg::Straight) {
            dice.sort_unstable();
        }
        read_sorted(dice, p.keep, p.agg, lo, hi)
    })
}

/// The smallest and largest value an expression can take (`vars`: the bounds of the
/// `let` values in scope), so that Monte Carlo knows its states without the exact
/// distribution.
pub fn bounds(n: &Node, vars: &mut Vec<(i64, i64)>) -> (i64, i64) {
    let span = |a: (i64, i64), b: (i64, i64), f: &dyn Fn(i64, i64) -> i64| {
        let c = [f(a.0, b.0), f(a.0, b.1), f(a.1, b.0), f(a.1, b.1)];
        (*c.iter().min().unwrap_or(&0), *c.iter().max().unwrap_or(&0))
    };
    match n {
        Node::Num(v) => (*v, *v),
        Node::Var(i) => vars[*i],
        Node::Neg(a) => {
            let (lo, hi) = bounds(a, vars);
            (hi.saturating_neg(), lo.saturating_neg())
        }
        Node::Add(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.saturating_add(y.0), x.1.saturating_add(y.1))
        }
        Node::Sub(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.saturating_sub(y.1), x.1.saturating_sub(y.0))
        }
        Node::Mul(a, b) => span(bounds(a, vars), bounds(b, vars), &|x, y| {
            x.saturating_mul(y)
        }),
        Node::Max(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.max(y.0), x.1.max(y.1))
        }
        Node::Min(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.min(y.0), x.1.min(y.1))
        }
        Node::Div(a, b) if bounds(b, vars).0 >= 1 => {
            // A divisor of at least 1: rounding down is monotone in both, so the corners.
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            let c = [
                x.0.div_euclid(y.0),
                x.0.div_euclid(y.1),
                x.1.div_euclid(y.0),
                x.1.div_euclid(y.1),
            ];
            (*c.iter().min().unwrap_or(&0), *c.iter().max().unwrap_or(&0))
        }
        Node::Div(a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            // Dividing by 1 or -1 gives the widest result; by 0, 0.
            let (lo, hi) = (x.0.min(x.1.saturating_neg()), x.1.max(x.0.saturating_neg()));
            let _ = y;
            (lo.min(0), hi.max(0))
        }
        Node::Cmp(..) => (0, 1),
        Node::Emit(_) | Node::Record(_) => (0, 0),
        Node::Counted(c, pools) => {
            let (lo, hi) = bounds(c, vars);
            let (lo, hi) = (lo.clamp(0, MAX_ROLLED_DICE), hi.clamp(0, MAX_ROLLED_DICE));
            (lo..=hi)
                .map(|n| pool_bounds(&pools[n as usize]))
                .fold((i64::MAX, i64::MIN), |a, b| (a.0.min(b.0), a.1.max(b.1)))
        }
        Node::Template(t) => {
            // A pool's bounds widen with its dice, sides, keep and depth, and do not
            // depend on its faces to compare with: the corners of the numbers' ranges
            // cover every value (an empty pool reads 0).
            let ranges: Vec<(i64, i64)> = t.params.iter().map(|p| bounds(p, vars)).collect();
            let mut out = (i64::MAX, i64::MIN);
            for corner in 0..1usize << ranges.len() {
                let vals: Vec<i64> = ranges
                    .iter()
                    .enumerate()
                    .map(|(j, r)| if corner >> j & 1 == 1 { r.1 } else { r.0 })
                    .collect();
                // A spec the compile-time check would refuse reads 0.
                let b = t.spec(&vals).map_or((0, 0), |p| pool_bounds(&p));
                out = (out.0.min(b.0), out.1.max(b.1));
            }
            out
        }
        Node::Repeat(r) => {
            let base = vars.len();
            let state = repeat_bounds(r, vars);
            vars.extend_from_slice(&state);
            let out = bounds(&r.body, vars);
            vars.truncate(base);
            out
        }
        Node::Meeting(m) => {
            let a = m.sides[0].spec();
            let n = a.kept() as i64;
            let (lo, hi) = face_span(a);
            // Any subset of the first side's kept dice.
            match m.read {
                None | Some(Agg::Count(_)) | Some(Agg::MaxSet) | Some(Agg::Straight) => (0, n),
                Some(Agg::Tally(t)) => (0, n * (t / 16 - 1)),
                Some(Agg::Highest) | Some(Agg::Lowest) => (lo.min(0), hi.max(0)),
                Some(Agg::Sum) => ((n * lo).min(0), (n * hi).max(0)),
            }
        }
        Node::Versus(kind, a, b, _) => {
            let n = |p: &PoolSpec| {
                p.keep
                    .map_or(p.groups.iter().map(|(n, _)| *n as i64).sum(), |(_, k)| {
                        k as i64
                    })
            };
            match kind {
                Versus::Pairs => (0, n(a).min(n(b))),
                Versus::Beats | Versus::Cancel => (0, n(a)),
            }
        }
        Node::Let(bound, body) => {
            let b = bounds(bound, vars);
            vars.push(b);
            let r = bounds(body, vars);
            vars.pop();
            r
        }
        Node::If(_, a, b) => {
            let (x, y) = (bounds(a, vars), bounds(b, vars));
            (x.0.min(y.0), x.1.max(y.1))
        }
        Node::Pick(p) => {
            let base = vars.len();
            vars.extend(std::iter::repeat_n(p.sides_bounds(), p.roles.len()));
            let r = bounds(&p.body, vars);
            vars.truncate(base);
            r
        }
        Node::LetPool { body, .. } => {
            // The pool's reads carry their own bounds; its slot is a placeholder.
            vars.push((0, 0));
            let r = bounds(body, vars);
            vars.pop();
            r
        }
        Node::PoolVar(r) => {
            let read = |keep, agg| {
                pool_bounds(&PoolSpec {
                    keep,
                    agg,
                    ..(*r.spec).clone()
                })
            };
            match &r.rolled {
                None => read(r.keep.or(r.spec.keep), r.agg),
                // Any keep from no dice to all of them.
                Some(_) => {
                    let (a, b) = (read(None, r.agg), read(Some((End::Highest, 0)), r.agg));
                    (a.0.min(b.0), a.1.max(b.1))
                }
            }
        }
        Node::Pool(p) => pool_bounds(p),
    }
}

/// The bounds of a `repeat`'s state variables and its rounds, as its body sees them:
/// the state's bounds after 0, 1, 2, ... rounds, joined, until they settle or the limit
/// is reached.
fn repeat_bounds(r: &Repeat, vars: &mut Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    let mut state: Vec<(i64, i64)> = r.init.iter().map(|n| bounds(n, vars)).collect();
    let base = vars.len();
    for _ in 0..r.limit {
        vars.extend_from_slice(&state);
        vars.push((0, r.limit as i64));
        let next = step_bounds(&r.step, vars);
        vars.truncate(base);
        let joined: Vec<(i64, i64)> = state
            .iter()
            .zip(&next)
            .map(|(a, b)| (a.0.min(b.0), a.1.max(b.1)))
            .collect();
        if joined == state {
            break;
        }
        state = joined;
    }
    state.push((0, r.limit as i64));
    state
}

/// The smallest and largest value a pool can read.
fn pool_bounds(p: &PoolSpec) -> (i64, i64) {
    if let Some((deck, k)) = p.deck() {
        let n = p.keep.map_or(k, |(_, j)| j) as i64;
        return match p.agg {
            Agg::Count(_) | Agg::MaxSet | Agg::Straight => (0, n),
            Agg::Tally(t) => (0, n * (t / 16 - 1)),
            Agg::Highest | Agg::Lowest if n == 0 => (0, 0),
            Agg::Highest | Agg::Lowest => (deck.lo(), deck.hi()),
            // The kept cards' sum lies between the sums of the deck's n lowest and n
            // highest cards.
            Agg::Sum => {
                let mut cards = deck.faces.clone();
                cards.sort_unstable();
                let n = n as usize;
                (
                    cards[..n].iter().sum(),
                    cards[cards.len() - n..].iter().sum(),
                )
            }
        };
    }
    // One die: its faces, an explosion chain of up to `depth` more rolls.
    let die = |d: &DieSpec| {
        let (lo, hi) = (d.lo(), d.hi());
        let extra = if d.explode.is_some() {
            d.depth as i64
        } else {
            0
        };
        (lo + extra * lo.min(0), hi + extra * hi.max(0))
    };
    let n: i64 = p.groups.iter().map(|(n, _)| *n as i64).sum();
    let deepest = p.groups.iter().map(|(_, d)| d.depth).max().unwrap_or(0);
    let chain = p.again.map_or(1, |_| deepest as i64 + 1);
    match p.agg {
        Agg::Count(_) => (0, n * chain),
        // Each die at most base - 1 of the symbol.
        Agg::Tally(t) => (0, n * (t / 16 - 1)),
        Agg::MaxSet | Agg::Straight => (0, n),
        Agg::Highest | Agg::Lowest => {
            let lo = p.groups.iter().map(|(_, d)| die(d).0).min().unwrap_or(0);
            let hi = p.groups.iter().map(|(_, d)| die(d).1).max().unwrap_or(0);
            if n == 0 {
                (0, 0)
            } else {
                (lo, hi)
            }
        }
        Agg::Sum => {
            // Each die's chain of up to `chain` rolls: negative faces can only
            // pull the low end down, positive ones push the high end up.
            let one = |d: &DieSpec| {
                let (lo, hi) = die(d);
                (
                    if lo < 0 { lo * chain } else { lo },
                    if hi > 0 { hi * chain } else { hi },
                )
            };
            match p.keep {
                None => p.groups.iter().fold((0, 0), |acc, (n, d)| {
                    let (lo, hi) = one(d);
                    (acc.0 + *n as i64 * lo, acc.1 + *n as i64 * hi)
                }),
                Some((_, k)) => {
                    let lo = p.groups.iter().map(|(_, d)| one(d).0).min().unwrap_or(0);
                    let hi = p.groups.iter().map(|(_, d)| one(d).1).max().unwrap_or(0);
                    (k as i64 * lo, k as i64 * hi)
                }
            }
        }
    }
}
