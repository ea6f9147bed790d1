//! The exact engine's one law for reads of pools, after icepool's multiset evaluator
//! (Liu, AIIDE 2022): the outcomes every die can show are visited once, highest first;
//! at each, every group of identical dice places some of the dice it has left (a
//! binomial, given they show nothing higher), and each read updates a small state from
//! the counts placed. Rolls that leave every read in the same state are one from then
//! on, so the cost grows with the states the reads need, not with the rolls: two pools
//! of nine and eight d10 set against each other are some thousands of states, where
//! going through their rolls pairs 48,620 multisets with 24,310.
//!
//! A pass reads several pools at once ([`Pass::pools`]) by several reads
//! ([`Pass::reads`]): the reads of one record over two pool variables are one pass, and
//! its result is the joint distribution of their values. A new read of a pool is a new
//! [`Read`] kind: its state's width, its step at one outcome, its value at the end.

use super::lang::{tally, Agg, Cond, End, Versus};
use std::collections::HashMap;

mod ways;
pub(crate) use ways::Faces;

type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// How many numbers one state of a pass holds: the dice placed of every group, then
/// every read's own. A pass that needs more is refused (and the caller goes on without
/// it).
pub const KEY: usize = 14;

/// One state: dice placed per group, then the reads' numbers.
type Key = [Num; KEY];

/// A number of a state: counts, sums and faces of a pass whose values all fit (see
/// [`Pass::fits`]); half the width of an `i64`, so a state hashes in half the time.
type Num = i32;

/// A read's "no die yet" (highest and lowest of no dice read 0, as the sampler reads
/// them).
const NONE: Num = Num::MIN;

/// The dice of one read of a pool, as counts at each outcome: which pool, the keeps
/// applied to it in order (a pool variable bound with a keep, then the read's own), and
/// the condition that picks the dice taking part (`only`).
#[derive(Clone, Debug)]
pub struct Source {
    /// Which pool of the pass, by index.
    pub pool: usize,
    /// (end, how many kept, of how many dice): a keep sees the dice the one before kept.
    pub keeps: Vec<(End, u32, u32)>,
    /// `only COND`: the dice that take part; None: all.
    pub only: Option<Cond>,
    /// The pool's lowest face, for `min` in a condition.
    pub lo: i64,
    /// The pool's highest face, for `max` in a condition.
    pub hi: i64,
}

impl Source {
    /// Of `c` dice at outcome `o`, with `seen` of the pool's dice higher, how many this
    /// source holds.
    fn count(&self, o: i64, seen: u32, c: u32) -> u32 {
        let (mut s, mut c) = (seen, c);
        for &(end, k, n) in &self.keeps {
            // Ranks from the top: `s` dice before these `c`.
            (s, c) = match end {
                End::Highest => (s.min(k), (s + c).min(k) - s.min(k)),
                End::Lowest => {
                    let cut = n.saturating_sub(k);
                    (s.saturating_sub(cut), (s + c).saturating_sub(s.max(cut)))
                }
            };
        }
        match self.only {
            Some(cond) if !cond.holds(o, self.lo, self.hi) => 0,
            _ => c,
        }
    }

    /// How many of the pool's `seen` highest dice this source holds (no `only`).
    fn kept_seen(&self, seen: u32) -> u32 {
        let mut s = seen;
        for &(end, k, n) in &self.keeps {
            s = match end {
                End::Highest => s.min(k),
                End::Lowest => s.saturating_sub(n.saturating_sub(k)),
            };
        }
        s
    }

    /// Whether the source's dice are a fixed number (no `only`, so sorted pairs are
    /// known when the first side's die is placed).
    fn fixed_len(&self, pool_len: u32) -> Option<u32> {
        if self.only.is_some() {
            return None;
        }
        Some(self.keeps.last().map_or(pool_len, |&(_, k, n)| k.min(n)))
    }
}

/// How a multiset of dice becomes a number, visited highest first.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// The read: sum, count, highest and so on.
    pub agg: Agg,
    /// The lowest face of the dice read, for `count min`.
    pub lo: i64,
    /// The highest face of the dice read, for `count max`.
    pub hi: i64,
}

impl Reading {
    fn width(&self) -> usize {
        match self.agg {
            Agg::Straight => 2,
            Agg::Shape(s) => s.shape().width(),
            _ => 1,
        }
    }

    fn init(&self, st: &mut [Num]) {
        match self.agg {
            Agg::Highest | Agg::Lowest => st[0] = NONE,
            Agg::Straight => {
                st[0] = 0;
                st[1] = 0;
            }
            Agg::Shape(s) => s.shape().init(st),
            _ => st[0] = 0,
        }
    }

    /// `c` dice at `o`; `prev` the outcome visited before (a higher one), if any.
    fn step(&self, st: &mut [Num], o: i64, prev: Option<i64>, c: u32) {
        let c64 = c as Num;
        let face = o as Num;
        match self.agg {
            Agg::Sum => st[0] = st[0].saturating_add(face.saturating_mul(c64)),
            Agg::Count(cond) => {
                if cond.holds(o, self.lo, self.hi) {
                    st[0] += c64
                }
            }
            Agg::Tally(t) => st[0] = st[0].saturating_add((tally(o, t) as Num).saturating_mul(c64)),
            Agg::MaxSet => st[0] = st[0].max(c64),
            Agg::Highest => {
                if st[0] == NONE && c > 0 {
                    st[0] = face
                }
            }
            Agg::Lowest => {
                if c > 0 {
                    st[0] = face
                }
            }
            Agg::Shape(s) => s.shape().step(st, o, prev, c, s.k),
            Agg::Straight => {
                // st[0]: the run of faces shown ending at the outcome before; a face
                // between two visited outcomes that no die can show breaks a run.
                if c == 0 {
                    st[0] = 0;
                } else {
                    let after = prev == Some(o + 1);
                    st[0] = if after { st[0] + 1 } else { 1 };
                    st[1] = st[1].max(st[0]);
                }
            }
        }
    }

    fn value(&self, st: &[Num]) -> i64 {
        i64::from(match self.agg {
            Agg::Highest | Agg::Lowest if st[0] == NONE => 0,
            Agg::Straight => st[1],
            Agg::Shape(s) => return s.shape().value(st, s.k),
            _ => st[0],
        })
    }
}

/// One read of a pass.
#[derive(Clone, Debug)]
pub enum Read {
    /// A source read by a [`Reading`].
    Of(Source, Reading),
    /// Two sources die by die (`pairs`, `beats`, `cancel`): the first's dice left, read
    /// by a [`Reading`] (counted when None).
    Meet {
        /// `pairs`, `beats` or `cancel`.
        kind: Versus,
        /// The first side, whose dice are counted or read.
        a: Source,
        /// The second side.
        b: Source,
        /// Ties go to the first side.
        ties: bool,
        /// How the first side's dice left are read; None: counted.
        read: Option<Reading>,
    },
}

impl Read {
    /// Numbers of its state: the meeting's own first (beats: whether the second's
    /// highest is placed; pairs with `only`: how far the first side is ahead), then the
    /// reading's.
    fn width(&self) -> usize {
        match self {
            Read::Of(_, r) => r.width(),
            Read::Meet { kind, read, .. } => {
                let own = match kind {
                    Versus::Cancel => 0,
                    // The second's dice placed that have cancelled nothing yet.
                    Versus::CancelBelow => 1,
                    // Pairs of unknown sizes: how far the first side is ahead.
                    Versus::Beats | Versus::Pairs => 1,
                };
                own + read.map_or(1, |r| r.width())
            }
        }
    }

    fn reading(&self) -> Reading {
        match self {
            Read::Of(_, r) => *r,
            Read::Meet { read, .. } => read.unwrap_or(Reading {
                agg: Agg::Count(Cond::Cmp(super::lang::Cmp::Ge, i64::MIN)),
                lo: 0,
                hi: 0,
            }),
        }
    }

    fn own(&self) -> usize {
        self.width() - self.reading().width()
    }

    /// Whether no die placed at a lower outcome can change this read's value from its
    /// numbers `st`: `beats` once the second side's highest die is placed (the first's
    /// dice after it are lower), read by what dice taking no part leave as it is.
    fn settled(&self, st: &[Num]) -> bool {
        match self {
            Read::Meet {
                kind: Versus::Beats,
                read,
                ..
            } => {
                st[0] == 1
                    && read.is_none_or(|r| {
                        matches!(r.agg, Agg::Sum | Agg::Count(_) | Agg::Highest | Agg::Lowest)
                    })
            }
            _ => false,
        }
    }
}

/// One pool of a pass: groups of identical dice (their ways come with the walk,
/// [`ways`]).
#[derive(Clone, Debug)]
pub struct PoolIn {
    /// Each group: how many dice, and the lowest and highest value one can show.
    pub groups: Vec<(u32, (i64, i64))>,
}

/// Several pools read jointly by several reads.
pub struct Pass {
    /// The pools, each rolled once.
    pub pools: Vec<PoolIn>,
    /// The reads, whose values come out jointly.
    pub reads: Vec<Read>,
}

/// Most states one face of a pass may hold before it gives up (about 80 MB of them).
pub const MAX_STATES: usize = 1_000_000;

/// What a pass's walk ([`ways`]) needs of its groups and reads, worked out once.
struct Plan<'a> {
    /// Every group in one list: its pool, its dice, its die.
    groups: Vec<(usize, u32, &'a (i64, i64))>,
    /// Where each read's numbers start in a state, and (last) where the last one ends.
    offsets: Vec<usize>,
    /// Each read's two sides' sizes, where it is a meeting that has them fixed.
    fixed: Vec<Option<(u32, u32)>>,
    /// The state before any die is placed.
    start: Key,
}

impl Pass {
    /// Whether the reads' states and the groups fit one [`Key`], and every meeting
    /// that needs fixed sizes has them.
    pub fn fits(&self) -> bool {
        let groups: usize = self.pools.iter().map(|p| p.groups.len()).sum();
        let reads: usize = self.reads.iter().map(Read::width).sum();
        // Every face times every die within a state's numbers (a sum of them all, with
        // room to spare).
        let dice: i64 = self
            .pools
            .iter()
            .map(|p| p.groups.iter().map(|(n, _)| *n as i64).sum::<i64>())
            .sum();
        let face = self
            .pools
            .iter()
            .flat_map(|p| &p.groups)
            .map(|(_, (lo, hi))| lo.saturating_abs().max(hi.saturating_abs()))
            .max()
            .unwrap_or(0);
        let small = face.saturating_mul(dice.max(1)) < (Num::MAX / 4) as i64;
        small && groups + reads <= KEY && self.reads.iter().all(|r| self.meeting_ok(r))
    }

    fn len(&self, pool: usize) -> u32 {
        self.pools[pool].groups.iter().map(|(n, _)| n).sum()
    }

    /// Sorted pairs read other than by a count need both sides' sizes fixed (a pair is
    /// then decided as the first side's die is placed); counted, they need not.
    fn meeting_ok(&self, r: &Read) -> bool {
        match r {
            Read::Meet {
                kind: Versus::Pairs,
                a,
                b,
                read: Some(_),
                ..
            } => a.fixed_len(self.len(a.pool)).is_some() && b.fixed_len(self.len(b.pool)).is_some(),
            _ => true,
        }
    }

    /// What a pass's walk needs: the groups in one list, where each read's numbers sit
    /// in a state, the meetings' fixed sizes, and the first state.
    fn plan(&self) -> Plan<'_> {
        // Every group in one list: its pool, its dice, its die.
        let groups: Vec<(usize, u32, &(i64, i64))> = self
            .pools
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.groups.iter().map(move |(n, d)| (i, *n, d)))
            .collect();
        let mut offsets = Vec::with_capacity(self.reads.len());
        let mut at = groups.len();
        for r in &self.reads {
            offsets.push(at);
            at += r.width();
        }
        // Where each read's numbers end: the next one's start (a width is a match, and a
        // shape's a call, too dear at every step of every state).
        offsets.push(at);
        let pool_len: Vec<u32> = (0..self.pools.len()).map(|i| self.len(i)).collect();
        let fixed: Vec<Option<(u32, u32)>> = self
            .reads
            .iter()
            .map(|r| match r {
                Read::Meet { a, b, .. } => a
                    .fixed_len(pool_len[a.pool])
                    .zip(b.fixed_len(pool_len[b.pool])),
                Read::Of(..) => None,
            })
            .collect();

        let mut start: Key = [0; KEY];
        for (r, &off) in self.reads.iter().zip(&offsets) {
            let own = r.own();
            start[off..off + own].fill(0);
            r.reading().init(&mut start[off + own..]);
        }
        Plan {
            groups,
            offsets,
            fixed,
            start,
        }
    }

    /// Whether some state of this pass can settle before its last outcome: only a
    /// `beats` read does, and a pass without one looks at no state for it.
    fn can_settle(&self) -> bool {
        self.reads.iter().all(|r| {
            matches!(
                r,
                Read::Meet {
                    kind: Versus::Beats,
                    ..
                }
            )
        })
    }

    /// Whether every read's value is settled at `key` ([`Read::settled`]).
    fn settled(&self, offsets: &[usize], key: &Key) -> bool {
        self.reads
            .iter()
            .zip(offsets)
            .all(|(r, &off)| r.settled(&key[off..]))
    }

    /// The reads' values at a final state.
    fn values_of(&self, offsets: &[usize], key: &Key) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.reads.len());
        self.values_into(offsets, key, &mut out);
        out
    }

    /// [`Pass::values_of`] into `out`, cleared first.
    fn values_into(&self, offsets: &[usize], key: &Key, out: &mut Vec<i64>) {
        out.clear();
        out.extend(
            self.reads
                .iter()
                .zip(offsets)
                .zip(&offsets[1..])
                .map(|((r, &off), &end)| r.reading().value(&key[off + r.own()..end])),
        );
    }
}

/// One read's step at outcome `o`: `seen` dice of each pool higher than `o`, `placed` at
/// it; `fixed` the two sides' sizes of a meeting, when known.
fn step(
    r: &Read,
    fixed: Option<(u32, u32)>,
    st: &mut [Num],
    o: i64,
    prev: Option<i64>,
    seen: &[u32],
    placed: &[u32],
) {
    match r {
        Read::Of(src, reading) => {
            let c = src.count(o, seen[src.pool], placed[src.pool]);
            reading.step(st, o, prev, c);
        }
        Read::Meet {
            kind,
            a,
            b,
            ties,
            read,
        } => {
            let ca = a.count(o, seen[a.pool], placed[a.pool]);
            let cb = b.count(o, seen[b.pool], placed[b.pool]);
            let own = r.own();
            let (mine, rest) = st.split_at_mut(own);
            let left = match kind {
                Versus::Cancel => ca.saturating_sub(cb),
                Versus::CancelBelow => {
                    // mine[0]: the second's dice placed above this face (with `ties`,
                    // at it too) that have cancelled nothing yet; each cancels the
                    // highest of the first's dice it reaches, and these are the highest
                    // left.
                    let mut waiting = mine[0] as u32;
                    if *ties {
                        waiting += cb;
                    }
                    let cancelled = waiting.min(ca);
                    waiting -= cancelled;
                    if !*ties {
                        waiting += cb;
                    }
                    mine[0] = waiting as Num;
                    ca - cancelled
                }
                Versus::Beats => {
                    // mine[0]: whether the second side's highest die is placed.
                    let above = mine[0] == 0 && (cb == 0 || *ties);
                    if cb > 0 {
                        mine[0] = 1;
                    }
                    if above {
                        ca
                    } else {
                        0
                    }
                }
                Versus::Pairs => match fixed {
                    Some((na, nb)) => {
                        // Sizes known: each of the first's dice placed now wins when
                        // its partner comes lower (a tie when placed now too), if it
                        // has a partner at all.
                        let x = a.kept_seen(seen[a.pool]);
                        let y = b.kept_seen(seen[b.pool]);
                        let k = na.min(nb);
                        (x..(x + ca).min(k))
                            .filter(|&i| i >= y + cb || (i >= y && *ties))
                            .count() as u32
                    }
                    None => {
                        // mine[0]: the first side's dice placed less the second's. A
                        // die of the first whose partner is not placed yet wins when it
                        // comes (later, so lower); one placed with its partner ties.
                        let d = mine[0];
                        let (x, y) = (d.max(0) as u32, (-d).max(0) as u32);
                        let beaten = x.min(cb);
                        let level = (x + ca).min(y + cb).saturating_sub(x.max(y));
                        let tied = if *ties { level } else { 0 };
                        mine[0] = d + ca as Num - cb as Num;
                        beaten + tied
                    }
                },
            };
            let reading = read.unwrap_or(Reading {
                agg: Agg::Sum,
                lo: 0,
                hi: 0,
            });
            match read {
                Some(_) => reading.step(rest, o, prev, left),
                None => rest[0] += left as Num,
            }
        }
    }
}
