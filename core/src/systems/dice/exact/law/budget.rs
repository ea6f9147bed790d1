//! The work an evaluation may spend, and what it keeps as it goes: the laws of the
//! parts worked out once (pools, dice, closed `let`s, a rolled count's pools by the
//! count's law), the pool variables in scope, and the masses its limits stopped.

use super::*;

/// A rolled count's law, and its pools mixed by it.
type Mixed<W> = (Law<W>, Law<W>);

/// The laws of one rolled count kept with their pools' mix ([`Budget::keep_counted`]).
const COUNTED_KEPT: usize = 32;

/// What was worked out once for a part of the program, found again by the part's
/// address, or (`alike`) by an equal part: a part met again (the same pool in three
/// batteries, a die in the pools of every count) is not worked out again. The addresses
/// are indexed: a pool of a rolled count is found again for each of hundreds of outcomes
/// of the pool above it, and a walk comparing it with every part kept before was a
/// tenth of such a law.
pub(super) struct Memo<'a, K, V> {
    kept: Vec<(&'a K, V)>,
    /// Where each address met is in `kept` (an equal part's, for `alike`).
    at: Map<usize, usize>,
}

impl<K, V> Memo<'_, K, V> {
    pub(super) fn new() -> Self {
        Memo {
            kept: Vec::new(),
            at: Map::default(),
        }
    }
}

impl<'a, K: PartialEq, V: Clone> Memo<'a, K, V> {
    /// What was kept for this very part.
    pub(super) fn same(&self, k: &K) -> Option<V> {
        let i = *self.at.get(&(k as *const K as usize))?;
        let (e, v) = &self.kept[i];
        std::ptr::eq(*e, k).then(|| v.clone())
    }

    /// What was kept for this part or one equal to it; an equal part found is
    /// indexed by this address too.
    pub(super) fn alike(&mut self, k: &'a K) -> Option<V> {
        let addr = k as *const K as usize;
        if let Some(&i) = self.at.get(&addr) {
            return Some(self.kept[i].1.clone());
        }
        let i = self.kept.iter().position(|(e, _)| *e == k)?;
        self.at.insert(addr, i);
        Some(self.kept[i].1.clone())
    }

    pub(super) fn keep(&mut self, k: &'a K, v: V) -> V {
        self.at.insert(k as *const K as usize, self.kept.len());
        self.kept.push((k, v.clone()));
        v
    }
}

/// The work left and the cancel flag, checked as the work is spent; and every pool's
/// law worked out so far, so that a pool met again (three batteries of `100d6 count >=
/// 3`, each wounding with the same pools of every count) is worked out once.
pub(in crate::systems::dice::exact) struct Budget<'a, W> {
    pub(super) left: u64,
    pub(super) cancel: &'a Cancel,
    pub(super) pools: Memo<'a, PoolSpec, Law<W>>,
    /// The `let`s and rolled counts that read no variable (met with none in scope),
    /// each with its law: `let`s moved down to what reads them leave such parts side by
    /// side, often alike. Also two pools met by a pass in ways, which read no variable
    /// wherever they stand (a `repeat`'s round meets them again from every state).
    pub(super) closed: Memo<'a, Node, Law<W>>,
    /// What the limits of each of the `let`s and rolled counts in `closed` stopped,
    /// per unit of the chance of reaching it: [`Budget::capped`], [`Budget::unfinished`].
    pub(super) stops: Memo<'a, Node, [f64; 2]>,
    /// Each die's law: the pools of every count a rolled count may take share theirs.
    pub(super) dice: Memo<'a, DieSpec, Law<W>>,
    /// The dice of each pool variable in scope, sorted, by its scope depth.
    pub(super) held: Vec<(usize, Held<'a>)>,
    /// Each pool variable's outcomes (as its body reads them) with their ways: a pool
    /// bound inside another's body is the same pool for every outcome of the outer one,
    /// and four players' pools set against each other walked the inner pools' multisets
    /// again for every outcome of the outer ones.
    pub(super) outcomes: Memo<'a, PoolSpec, std::rc::Rc<pools::Outcomes<W>>>,
    /// Each pool variable read only by sums and counts: the values of its reads, with
    /// their ways (as `outcomes`, a list of each read's value in place of the dice).
    pub(super) tallies: Memo<'a, PoolSpec, std::rc::Rc<pools::Outcomes<W>>>,
    /// As `outcomes`, for a pool variable a choice rerolls: the dice it ends with, by
    /// the very pool (an equal pool without the choice ends otherwise).
    pub(super) chosen: Memo<'a, PoolSpec, std::rc::Rc<pools::Outcomes<W>>>,
    /// Each rolled count's pools mixed, by the count's address and law: the few laws a
    /// count takes come again and again below a pool variable's outcomes.
    pub(super) counted: Map<usize, Vec<Mixed<W>>>,
    /// What is known of the shape of each node met, by address: each asked of a
    /// node once, for a body met once per outcome of the pools and `let`s above it.
    shapes: Map<usize, Shape>,
    /// Whether it convolved long laws value by value, which big integers do by one big
    /// multiply ([`Weight::kronecker`]): only then is a budget spent in machine words
    /// worth spending again in big integers ([`NoLaw::Spent`]).
    pub(super) long: bool,
    /// Whether some `repeat` came to its last round with ways still going: their mass,
    /// stopped by the limit, is reported beside the distribution (see [`first_law`]).
    pub(super) stopped: bool,
    /// The chance of reaching the part being evaluated, where the parts above it are
    /// arithmetic, `let`s, branches, rolled counts, rounds, pool variables' bodies and
    /// hand-outs (a choice's too), whose every value's (state's, outcome's) ways the law
    /// mixes; NaN below any other part, whose parts may be evaluated once for many
    /// values, or for none.
    pub(super) reach: f64,
    /// The mass of the `repeat`s stopped at their limit before their condition held,
    /// each by its reach (NaN where that is not known).
    pub(super) unfinished: f64,
    /// The mass stopped by the limit of the `repeat` being played, so far, per unit of
    /// the mass that reached it.
    pub(super) cut: f64,
    /// The explosion and `again` chains stopped at their depth, each by its reach (NaN
    /// where that is not known).
    pub(super) capped: f64,
    /// The most dice a rolled count (or a held pool's rolled sides) came to with some
    /// chance past the pools made for it (0: none did): a count is checked by what it
    /// takes, not by its bounds.
    pub(super) past: i64,
}

impl<'a, W> Budget<'a, W> {
    pub(super) fn new(cancel: &'a Cancel) -> Self {
        Budget {
            left: LAW_WORK,
            cancel,
            pools: Memo::new(),
            closed: Memo::new(),
            stops: Memo::new(),
            dice: Memo::new(),
            held: Vec::new(),
            outcomes: Memo::new(),
            tallies: Memo::new(),
            chosen: Memo::new(),
            counted: Map::default(),
            shapes: Map::default(),
            long: false,
            stopped: false,
            reach: 1.0,
            unfinished: 0.0,
            cut: 0.0,
            capped: 0.0,
            past: 0,
        }
    }

    pub(super) fn spend(&mut self, ops: u64) -> Result<(), NoLaw> {
        if self.cancel.is_cancelled() {
            return Err(NoLaw::Refused(Why::Stopped));
        }
        if ops > self.left {
            return Err(NoLaw::Spent);
        }
        self.left -= ops;
        Ok(())
    }
}

/// What the walks of a node's parts said of it, each worked out when first asked.
#[derive(Default)]
struct Shape {
    /// [`arithmetic`].
    arithmetic: Option<bool>,
    /// Whether a part below it starts chains ([`Budget::chains_below`]).
    chained: Option<bool>,
    /// Whether it (a rolled count) starts chains itself ([`Budget::chains_here`]).
    here: Option<bool>,
    /// Whether nothing below it (or its own limit) stops at a limit.
    stops_nothing: Option<bool>,
}

impl<'a, W> Budget<'a, W> {
    /// `walk(n)`, the answer kept in the field `of` of `n`'s [`Shape`].
    fn shape(
        &mut self,
        n: &Node,
        of: fn(&mut Shape) -> &mut Option<bool>,
        walk: fn(&Node) -> bool,
    ) -> bool {
        let at = n as *const Node as usize;
        *of(self.shapes.entry(at).or_default()).get_or_insert_with(|| walk(n))
    }

    /// [`arithmetic`], worked out once per node.
    pub(super) fn arithmetic(&mut self, n: &Node) -> bool {
        self.shape(n, |s| &mut s.arithmetic, arithmetic)
    }

    /// Whether nothing below `n` (or `n` itself) stops at a limit: what it gives is
    /// the same however it is reached.
    pub(super) fn stops_nothing(&mut self, n: &Node) -> bool {
        self.shape(n, |s| &mut s.stops_nothing, stops_nothing)
    }

    /// The law a rolled count's pools gave before for the count's law `d`.
    pub(super) fn counted_before(&self, n: &Node, d: &Law<W>) -> Option<Law<W>>
    where
        W: Weight,
    {
        let at = n as *const Node as usize;
        let laws = self.counted.get(&at)?;
        laws.iter()
            .find(|(k, _)| k == d)
            .map(|(_, law)| law.clone())
    }

    /// [`Budget::counted_before`]'s law kept, up to [`COUNTED_KEPT`] per count (a
    /// count of many laws, each met once, is not searched through each time).
    pub(super) fn keep_counted(&mut self, n: &Node, d: Law<W>, law: &Law<W>)
    where
        W: Weight,
    {
        let laws = self.counted.entry(n as *const Node as usize).or_default();
        if laws.len() < COUNTED_KEPT {
            laws.push((d, law.clone()));
        }
    }

    /// `f` for the part `n` reached `w` ways of `den` from here ([`Budget::reach`]).
    /// Where no limit below `n` stops anything, its chance
    /// is never read, so not worked out (a ratio of big counts, for each value of a
    /// fight's every round).
    pub(super) fn within<T>(
        &mut self,
        n: &Node,
        w: &W,
        den: &W,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T
    where
        W: Weight,
    {
        if self.stops_nothing(n) {
            return f(self);
        }
        let reach = self.reach;
        self.reach = reach * ratio(w, den);
        let r = f(self);
        self.reach = reach;
        r
    }

    /// `f` as if reached for sure, with what its limits stopped returned apart, per unit
    /// of its reach: a round's parts, worked out once for a state met again and again,
    /// stop as much each time by that time's chance ([`Budget::add_stopped`]).
    pub(super) fn per_unit<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (T, [f64; 2]) {
        let reach = std::mem::replace(&mut self.reach, 1.0);
        let before = [
            std::mem::take(&mut self.capped),
            std::mem::take(&mut self.unfinished),
        ];
        let r = f(self);
        let mine = [self.capped, self.unfinished];
        (self.reach, self.capped, self.unfinished) = (reach, before[0], before[1]);
        (r, mine)
    }

    /// What a part stopped per unit of its reach ([`Budget::per_unit`]), counted for
    /// a time it is reached with the chance `p()`, worked out only where it stopped
    /// something (a state's chance is a ratio of big counts).
    pub(super) fn add_stopped(&mut self, [capped, unfinished]: [f64; 2], p: impl FnOnce() -> f64) {
        if capped == 0.0 && unfinished == 0.0 {
            return;
        }
        let p = p();
        // Nothing stopped is nothing, however it is reached (NaN times 0 is not).
        if capped != 0.0 {
            self.capped += p * capped;
        }
        if unfinished != 0.0 {
            self.unfinished += p * unfinished;
        }
    }

    /// A pool rolled here, by the chance `chance()` of this part of the roll: its
    /// chains stopped at their depth, counted ([`first::pool_capped`], NaN where that
    /// is not known); the chance worked out only for a pool that starts chains.
    pub(super) fn rolls(&mut self, p: &PoolSpec, chance: impl FnOnce() -> f64) {
        if first::pool_chains(p) {
            self.capped += self.reach * chance() * first::pool_capped(p).unwrap_or(f64::NAN);
        }
    }

    /// A rolled count that came to `most` where `made` pools (or bodies) were made for
    /// it, from none: [`Budget::past`] where it passed them.
    pub(super) fn passed(&mut self, most: i64, made: usize) {
        if most >= made as i64 {
            self.past = self.past.max(most);
        }
    }

    /// [`first::chains_here`], by address for a rolled count (whose pools of every
    /// count are looked through, for each of hundreds of outcomes above it).
    pub(super) fn chains_here(&mut self, n: &Node) -> bool {
        if !matches!(n, Node::Counted(..)) {
            return first::chains_here(n);
        }
        self.shape(n, |s| &mut s.here, first::chains_here)
    }

    /// Whether a part below `n` (not `n` itself) starts chains, by address.
    pub(super) fn chains_below(&mut self, n: &Node) -> bool {
        fn any(n: &Node) -> bool {
            let mut found = false;
            super::super::super::program::each_child(n, &mut |c| {
                found = found || first::chains_here(c) || any(c)
            });
            found
        }
        self.shape(n, |s| &mut s.chained, any)
    }
}
