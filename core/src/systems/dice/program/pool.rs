//! Dice and pools as the sampler rolls them: a die's faces and modifiers, a pool's groups,
//! keep and read, and the tables that roll many dice with one draw.

use super::*;

/// Most dice one pool may roll (before `again` adds any): what fits in memory. What
/// bounds the work is the exact engine's budget and the trials' own time, not a count.
pub const MAX_DICE: i64 = 1_000_000;
/// Most dice of a pool whose count is rolled (`(x)d6`) where the count's bounds are not
/// known or pass [`MAX_COUNTED_DICE`] (a round's state, `(w - w / 100 * 100)d6`), its
/// exact reach checked against it; and most cards a deck deals.
pub const MAX_ROLLED_DICE: i64 = 100;
/// Most dice of a pool whose count is rolled, where its bounds show the count stays
/// within it (`let hits = 300d6 count >= 3 in (hits)d6`): the sampler makes such a pool
/// for every count up to them.
pub const MAX_COUNTED_DICE: i64 = 1_000;

/// The most dice a rolled count whose bounds reach `hi` is given pools for: every count
/// its bounds allow, up to [`MAX_COUNTED_DICE`]; past that, [`MAX_ROLLED_DICE`], the
/// count's exact reach checked against them when the roll is loaded.
pub fn pools_for(hi: i64) -> i64 {
    if hi <= MAX_COUNTED_DICE {
        hi.max(0)
    } else {
        MAX_ROLLED_DICE
    }
}

/// The pool a rolled count of `k` dice reads: a rolled count's pools run from none to
/// the most its count can be ([`super::bounds`]), one per count.
pub fn counted<T>(pools: &[T], k: i64) -> &T {
    &pools[usize::try_from(k)
        .unwrap_or(0)
        .min(pools.len().saturating_sub(1))]
}
/// How deep an explosion or `again` chain goes; the exact engine reports the mass of
/// chains stopped here.
pub const DEPTH: u32 = 20;

/// Most ways an `again` pool variable may be read (it holds one tally per way).
pub const MAX_TALLIES: usize = 16;

/// What one die showing `v` adds to a `sum`, a `count` or a symbol's count (`count
/// success`) of a pool read die by die: the pool's read is this summed over every die
/// rolled, the dice `again` adds included.
#[inline(always)]
pub fn tally_step(agg: Agg, v: i64, lo: i64, hi: i64) -> i64 {
    match agg {
        Agg::Count(c) => c.holds(v, lo, hi) as i64,
        Agg::Tally(t) => super::super::lang::tally(v, t),
        _ => v,
    }
}

pub(super) fn faces_len(faces: &[i64]) -> u64 {
    faces.len().max(1) as u64
}

/// One kind of die with its own modifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct DieSpec {
    /// The faces, each equally likely (repeats allowed: `d{1,1,2}`).
    pub faces: Vec<i64>,
    /// `explode COND`: a face meeting it rolls again and adds.
    pub explode: Option<Cond>,
    /// `reroll COND`: a face meeting it is rolled again, once (false) or until it does
    /// not (`always`, true).
    pub reroll: Option<(Cond, bool)>,
    /// The most extra rolls of an explosion or `again` chain (`depth N`, else [`DEPTH`]).
    pub depth: u32,
    /// The lowest face (`min` in a condition), kept so that a roll does not scan the
    /// faces.
    pub lo_face: i64,
    /// The highest face (`max` in a condition), kept likewise.
    pub hi_face: i64,
    /// 2^64 mod faces: Lemire's rejection threshold, computed once, not per die.
    pub reject: u64,
    /// Several faces from one exactly uniform word, for plain dice (two faces or more).
    pub words: Option<crate::kernels::Faces>,
    /// A deck: its faces are its cards, dealt without replacement.
    pub deck: bool,
}

impl DieSpec {
    /// A plain die with these faces: no modifiers, not a deck.
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
            words: (faces.len() >= 2).then(|| crate::kernels::Faces::new(faces.len() as u32)),
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
    /// The lowest face (`min` in a condition).
    #[inline(always)]
    pub fn lo(&self) -> i64 {
        self.lo_face
    }
    /// The highest face (`max` in a condition).
    #[inline(always)]
    pub fn hi(&self) -> i64 {
        self.hi_face
    }

    /// A face as the die's re-roll leaves it, each roll from `draw`: the one law of
    /// `reroll` for a die rolled alone and for dice taken several to a random word.
    #[inline(always)]
    pub(super) fn rerolled(&self, mut draw: impl FnMut() -> i64) -> i64 {
        let (lo, hi) = (self.lo(), self.hi());
        let f = draw();
        match self.reroll {
            Some((c, always)) if c.holds(f, lo, hi) => {
                let mut f = draw();
                while always && c.holds(f, lo, hi) {
                    f = draw();
                }
                f
            }
            _ => f,
        }
    }

    /// Roll one die as written: the face, a re-roll, then the explosion chain.
    #[inline]
    pub(super) fn roll(&self, rng: &mut Rng) -> i64 {
        let (lo, hi) = (self.lo(), self.hi());
        let face = |rng: &mut Rng| self.rerolled(|| self.face(rng));
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
    /// Each group: how many dice, and the die.
    pub groups: Vec<(u32, DieSpec)>,
    /// `again COND`: a die meeting it adds another die to the pool.
    pub again: Option<Cond>,
    /// Keep this many from this end (a drop is a keep of the rest).
    pub keep: Option<(End, u32)>,
    /// How the kept dice become one number.
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
    /// Every symbol named on a face; a symbol's count is digit `i` of a face's code.
    pub names: Vec<String>,
    /// The base of the codes: one more than the most of one symbol on a face.
    pub base: i64,
}

/// Most combinations of symbols' counts one face's code may hold.
pub(super) const MAX_CODES: i64 = 1 << 16;

impl Symbols {
    /// The symbols of `e`, when it counts a face by name (None otherwise: named faces
    /// are then numbers, `hit` 1 and `blank` 0).
    pub(super) fn of(e: &Expr) -> Result<Option<Symbols>, CompileError> {
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
    pub(super) fn tally(&self, name: &str) -> Option<i64> {
        let j = self.names.iter().position(|n| n == name)?;
        Some(j as i64 + 16 * self.base)
    }
}

/// Most entries of one table (its values as `i32`: within the first-level cache).
pub(super) const TABLE: u64 = 8192;

/// One uniform draw over the `pow` ways `k` dice land (Lemire's multiply and reject),
/// and what each way reads as.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub(super) pow: u64,
    pub(super) reject: u64,
    /// Shared: the pools of every count of one die share their chunk tables.
    pub(super) values: std::sync::Arc<[i32]>,
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
    pub(super) fn sample(&self, rng: &mut Rng) -> i64 {
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
pub(super) fn below(n: u64, rng: &mut Rng) -> usize {
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
pub(super) fn deal(deck: &DieSpec, k: usize, rng: &mut Rng, out: &mut [i64]) {
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
    pub(super) fn tabled_sharing(mut self, made: &mut Vec<((u32, bool), Table)>) -> PoolSpec {
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

/// `n` with the Monte Carlo tables of its pools (a pool of plain dice of one kind, and the
/// pools of a rolled count, which share theirs). Only the sampler reads them, so they are
/// made when a first trial is rolled, not at compile: an exact answer never pays for them
/// (`(d4)d6`'s hundred and one pools took 1.2 ms of a 1.6 ms exact roll).
pub fn tabled(mut n: Node) -> Node {
    fn table(n: &mut Node) {
        match n {
            Node::Pool(p) => **p = (**p).clone().tabled(),
            Node::Counted(_, pools) => {
                let mut made = Vec::new();
                *pools = pools
                    .iter()
                    .map(|s| s.clone().tabled_sharing(&mut made))
                    .collect();
            }
            _ => {}
        }
        super::each_child_mut(n, &mut table);
    }
    table(&mut n);
    n
}
