//! Exact distributions, counted: the one exact evaluator.
//!
//! A float distribution holds a fraction only when its denominator is small, and
//! nothing under 1e-308: `20d20 keep highest 10` would have no fraction and the lowest
//! 600 sums of `1000d6` would fall out. Here every value is a count of ways over one
//! denominator, as icepool keeps them: a product of dice multiplies denominators, a
//! branch or a `let` brings its parts to a common one. Nothing is rounded.
//!
//! The weights are generic ([`Weight`]): two machine words first, big integers where a
//! count passes them, and floats (plain, then with their own exponent) where counting
//! passes its budget: the same law, with no fraction.
//!
//! It serves the expressions built from numbers, arithmetic, comparisons, `let`, `if`,
//! pools read by sums, counts, tallies and keep windows, rerolled and exploding dice (a
//! chain of depth `k` over `s^(k+1)`), `again`, dice counts that come from a roll, pool
//! variables read any number of ways and decks, straights and shapes (every multiset or
//! hand counted, [`pools`]), pools set against each other, `choose`'s roles, a
//! choice's rerolls (the dice it ends with, counted through its plan's choices) and
//! `repeat` (its states round by round, [`repeat`]), and pools whose numbers are
//! rolled first (`d(s)`, `count == t`: every combination). Where it stops ([`NoLaw`]: its
//! budget spent, a part it does not serve) a row has no fraction: none is read off a
//! float. Its work is bounded by [`LAW_WORK`] counted, [`REAL_WORK`] in floats; past
//! both, the scenario is Monte Carlo only and says why.

use super::super::lang::{tally, Agg, Cond, End, ModOf};
use super::super::program::divide;
use super::super::program::{counted, versus, Card, DieSpec, Node, PoolRead, PoolSpec, Side};
use super::weight::{ratio, Weight};
pub use super::weight::{NoLaw, Why};
pub use super::weight::{Real, REAL_WORK};
use super::Map;
use crate::cancel::Cancel;
use crate::fraction::{Fraction, Ways};
use dashu_int::UBig;
use ethnum::U256;

mod budget;
mod die;
mod first;
mod keep;
mod meet;
mod pools;
mod repeat;

use budget::Budget;
use die::die_law;
pub(super) use first::stops_nothing;
pub use first::{any_law, first_law, real_law, First};

/// Operations on big integers (a multiply-add, an addition) past which the integer
/// engine gives up: about half a second on one core for numbers of hundreds of digits.
pub const LAW_WORK: u64 = 15_000_000;

/// A law as the evaluator found it: counted in integers (with its fractions), or in
/// floats where counting would pass its budget.
#[derive(Clone, Debug)]
pub enum Weights {
    /// Ways counted in integers.
    Counted(Law),
    /// Chances in floats with their own exponent.
    Real(Law<Real>),
    /// Chances in plain floats.
    Float(Law<f64>),
}

impl Weights {
    /// The lowest and highest values with any chance.
    pub fn support(&self) -> (i64, i64) {
        match self {
            Weights::Counted(l) => l.support(),
            Weights::Real(l) => l.support(),
            Weights::Float(l) => l.support(),
        }
    }

    /// The values with any chance, ascending.
    pub fn possible(&self) -> Vec<i64> {
        match self {
            Weights::Counted(l) => l.iter().map(|(v, _)| v).collect(),
            Weights::Real(l) => l.iter().map(|(v, _)| v).collect(),
            Weights::Float(l) => l.iter().map(|(v, _)| v).collect(),
        }
    }

    /// Each value's chance over `lo..lo + states` (a value outside joins the end it
    /// passes), and its fraction where the ways were counted. Where `cancel` is set while the fractions are worked out, the chances come from
    /// the counts' floats and there are no fractions (the run is being stopped).
    pub fn chances(
        &self,
        lo: i64,
        states: usize,
        cancel: &Cancel,
    ) -> (Vec<f64>, Option<Vec<Fraction>>) {
        let (p, counted) = self.counted_chances(lo, states, cancel);
        (p, counted.map(|(f, _)| f))
    }

    /// [`Weights::chances`], with the fractions the ways they are of one denominator.
    pub fn counted_chances(
        &self,
        lo: i64,
        states: usize,
        cancel: &Cancel,
    ) -> (Vec<f64>, Option<(Vec<Fraction>, Ways)>) {
        match self {
            Weights::Counted(l) => {
                let Some((f, ways)) = l.fractions_until(lo, states, cancel) else {
                    return (l.floats(lo, states), None);
                };
                let p = f
                    .iter()
                    .map(|f| if f.is_zero() { 0.0 } else { f.to_f64() })
                    .collect();
                (p, Some((f, ways)))
            }
            Weights::Real(l) => (l.floats(lo, states), None),
            Weights::Float(l) => (l.floats(lo, states), None),
        }
    }
}

/// The most values one law may span ([`super::MAX_SPAN`]).
fn span(lo: i64, hi: i64) -> Result<usize, NoLaw> {
    usize::try_from(hi.checked_sub(lo).ok_or(NoLaw::Refused(Why::Span))?)
        .ok()
        .map(|s| s + 1)
        .filter(|&s| s <= super::MAX_SPAN)
        .ok_or(NoLaw::Refused(Why::Span))
}

/// Convolutions whose shorter side has this many values go by one big multiply.
const KRONECKER: usize = 16;

/// An exact distribution over `lo..lo + n.len()`: `n[i]` ways of `den`.
#[derive(Clone, Debug, PartialEq)]
pub struct Law<W = UBig> {
    /// The lowest value.
    pub lo: i64,
    /// Ways of each value, from `lo` up.
    pub n: Vec<W>,
    /// The ways of every value together (the sum of `n`).
    pub den: W,
}

impl<W: Weight> Law<W> {
    fn point(v: i64) -> Self {
        Law {
            lo: v,
            n: vec![W::one()],
            den: W::one(),
        }
    }

    fn from_map(m: Map<i64, W>, den: W) -> Result<Self, NoLaw> {
        let lo = m.keys().copied().min().unwrap_or(0);
        let hi = m.keys().copied().max().unwrap_or(0);
        let mut n = vec![W::default(); span(lo, hi)?];
        for (v, w) in m {
            n[(v - lo) as usize].add_to(&w)?;
        }
        Ok(Law { lo, n, den }.trim())
    }

    /// [`Law::from_map`] of values given one by one, a value met again adding up.
    fn from_values<'w>(
        values: impl Iterator<Item = (i64, &'w W)> + Clone,
        den: &W,
    ) -> Result<Self, NoLaw>
    where
        W: 'w,
    {
        let (lo, hi) = values
            .clone()
            .fold((i64::MAX, i64::MIN), |(lo, hi), (v, _)| {
                (lo.min(v), hi.max(v))
            });
        if lo > hi {
            return Ok(Law::point(0));
        }
        let mut n = vec![W::default(); span(lo, hi)?];
        for (v, w) in values {
            n[(v - lo) as usize].add_to(w)?;
        }
        Ok(Law {
            lo,
            n,
            den: den.clone(),
        }
        .trim())
    }

    fn trim(mut self) -> Self {
        let first = self.n.iter().position(|w| !w.is_zero()).unwrap_or(0);
        let last = self.n.iter().rposition(|w| !w.is_zero()).unwrap_or(0);
        if first > last {
            return Law::point(self.lo);
        }
        self.n.truncate(last + 1);
        self.n.drain(..first);
        self.lo += first as i64;
        self
    }

    /// The highest value with any ways (the lowest value where none has).
    fn highest(&self) -> i64 {
        self.iter().last().map_or(self.lo, |(v, _)| v)
    }

    /// The lowest and highest values with any ways.
    pub fn support(&self) -> (i64, i64) {
        let lowest = self.iter().next().map_or(self.lo, |(v, _)| v);
        (lowest, self.highest())
    }

    fn iter(&self) -> impl Iterator<Item = (i64, &W)> + '_ {
        self.n
            .iter()
            .enumerate()
            .filter(|(_, w)| !w.is_zero())
            .map(move |(i, w)| (self.lo + i as i64, w))
    }

    /// Every value through `f`.
    fn map(&self, f: impl Fn(i64) -> i64) -> Result<Self, NoLaw> {
        let mut m: Map<i64, W> = Map::default();
        for (v, w) in self.iter() {
            m.entry(f(v)).or_default().add_to(w)?;
        }
        Law::from_map(m, self.den.clone())
    }

    /// `f(x, y)` of one draw of each.
    fn combine(
        &self,
        o: &Self,
        b: &mut Budget<W>,
        f: impl Fn(i64, i64) -> i64,
    ) -> Result<Self, NoLaw> {
        b.spend((self.n.len() * o.n.len()) as u64)?;
        let mut m: Map<i64, W> = Map::default();
        for (x, a) in self.iter() {
            for (y, c) in o.iter() {
                m.entry(f(x, y)).or_default().add_product(a, c)?;
            }
        }
        Law::from_map(m, self.den.mul(&o.den)?)
    }

    /// Whether every sum of a value of each lies within `i64`: past it the language's
    /// arithmetic saturates, which a shifted convolution cannot do (the sum then goes
    /// value by value, saturating as the sampler does).
    fn sums_fit(&self, o: &Self) -> bool {
        let hi = |l: &Self| l.lo as i128 + l.n.len() as i128 - 1;
        let (lo, hi) = (self.lo as i128 + o.lo as i128, hi(self) + hi(o));
        lo >= i64::MIN as i128 && hi <= i64::MAX as i128
    }

    /// The sum of one draw of each. Long ones in big integers by Kronecker
    /// substitution ([`Weight::kronecker`]).
    fn add(&self, o: &Self, b: &mut Budget<W>) -> Result<Self, NoLaw> {
        if !self.sums_fit(o) {
            return self.combine(o, b, i64::saturating_add);
        }
        // A number plus a law (a count read of a pool held, plus the dice it leads to):
        // the law moved, for each of hundreds of outcomes.
        for (x, y) in [(self, o), (o, self)] {
            if x.n.len() == 1 && x.n[0] == x.den {
                b.spend(y.n.len() as u64 + 1)?;
                return Ok(Law {
                    lo: x.lo + y.lo,
                    n: y.n.clone(),
                    den: y.den.clone(),
                });
            }
        }
        let den = self.den.mul(&o.den)?;
        // Values far apart (a digit of a record, `x * 1000`) leave most of a law's span
        // empty: where the products of the values taken are fewer than the numbers
        // spanned, the sum goes value by value over those taken only.
        let taken = |l: &Self| l.n.iter().filter(|w| !w.is_zero()).count();
        let (ta, tb) = (taken(self), taken(o));
        let spanned = self.n.len() + o.n.len() - 1;
        if ta.saturating_mul(tb) <= spanned {
            b.spend((ta * tb + spanned / 64) as u64 + 1)?;
            let mut n = vec![W::default(); spanned];
            let right: Vec<(usize, &W)> =
                o.n.iter()
                    .enumerate()
                    .filter(|(_, w)| !w.is_zero())
                    .collect();
            for (i, a) in self.n.iter().enumerate().filter(|(_, w)| !w.is_zero()) {
                for &(j, c) in &right {
                    n[i + j].add_product(a, c)?;
                }
            }
            return Ok(Law {
                lo: self.lo + o.lo,
                n,
                den,
            });
        }
        if self.n.len().min(o.n.len()) >= KRONECKER {
            if let Some(n) = W::kronecker(&self.n, &o.n, &mut |ops| b.spend(ops)) {
                return Ok(Law {
                    lo: self.lo + o.lo,
                    n: n?,
                    den,
                });
            }
        }
        b.long |= self.n.len().min(o.n.len()) >= KRONECKER;
        // Each value taken meets every slot of the other; a slot with no ways is passed
        // over at once (`x * y + z * x` of three 11d6: 51 values taken over 3,600
        // slots; charged as 3,600 x 3,600, machine words gave up after 2 ms and big
        // integers took 24 ms, where machine words now take 8).
        b.spend((ta * o.n.len()) as u64)?;
        let mut n = vec![W::default(); self.n.len() + o.n.len() - 1];
        for (i, a) in self.n.iter().enumerate() {
            if a.is_zero() {
                continue;
            }
            for (dst, c) in n[i..].iter_mut().zip(&o.n) {
                if !c.is_zero() {
                    dst.add_product(a, c)?;
                }
            }
        }
        Ok(Law {
            lo: self.lo + o.lo,
            n,
            den,
        })
    }

    /// The sum with one more die of `die`: when its faces are one run of equal weights
    /// (every plain die numbered from 1), a sliding window of two additions per value,
    /// not a multiply per face.
    fn add_die(&self, die: &Self, b: &mut Budget<W>) -> Result<Self, NoLaw> {
        let w = &die.n[0];
        // In floats the window's subtraction would cancel the top values' precision.
        if !W::EXACT || die.n.len() == 1 || die.n.iter().any(|x| x != w) || !self.sums_fit(die) {
            return self.add(die, b);
        }
        let (len, k) = (self.n.len(), die.n.len());
        b.spend(2 * (len + k) as u64)?;
        // out[s] = (n[s] + n[s-1] + ... + n[s-k+1]) * w.
        let mut out = Vec::with_capacity(len + k - 1);
        let mut window = W::default();
        for s in 0..len + k - 1 {
            if s < len {
                window.add_to(&self.n[s])?;
            }
            if s >= k {
                window.sub_from(&self.n[s - k])?;
            }
            out.push(if w.is_one() {
                window.clone()
            } else {
                window.mul(w)?
            });
        }
        Ok(Law {
            lo: self.lo + die.lo,
            n: out,
            den: self.den.mul(&die.den)?,
        })
    }

    /// The sum of `n` draws: die by die in machine words (a sliding window each, where
    /// the counts stay small), by repeated squaring in big integers, where each
    /// squaring of a long law is one big multiply (200d6: 7.5 ms die by die).
    fn times(&self, n: u32, b: &mut Budget<W>) -> Result<Self, NoLaw> {
        let long = n as usize >= KRONECKER || (n >= 3 && self.n.len() >= KRONECKER);
        if n == 0 || !W::SQUARES || !long {
            b.long |= long;
            let mut out = Law::point(0);
            for _ in 0..n {
                out = out.add_die(self, b)?;
            }
            return Ok(out);
        }
        // From the highest bit of `n` down: square, and add one draw where the bit is
        // set. Every product is a square or one draw added, never two long laws of
        // different lengths multiplied (12 draws of a 21-deep `again` chain, 6 and 6
        // squared rather than 8 times 4: 0.55 -> 0.38 ms).
        let mut out = self.clone();
        for bit in (0..n.ilog2()).rev() {
            out = out.add(&out, b)?;
            if n >> bit & 1 == 1 {
                out = out.add(self, b)?;
            }
        }
        Ok(out)
    }

    /// The law in lowest terms: the common factor of every count and the denominator
    /// divided out (a `let` brings its parts to a common denominator, often too large).
    fn reduced(mut self) -> Self {
        if self.den.is_one() {
            return self;
        }
        let g = W::common_factor(&self.den, &self.n);
        if !g.is_one() && !g.is_zero() {
            self.n.iter_mut().for_each(|w| *w = w.div(&g));
            self.den = self.den.div(&g);
        }
        self
    }

    /// The same law in big integers.
    fn widened(&self) -> Law<UBig> {
        let wide = |w: &W| w.to_big();
        Law {
            lo: self.lo,
            n: self.n.iter().map(wide).collect(),
            den: wide(&self.den),
        }
    }
}

impl Law<UBig> {
    /// Each value's fraction over `lo..lo + states` (a value outside it joins the end
    /// it passes, as the float's distribution does).
    pub fn fractions(&self, lo: i64, states: usize) -> Vec<Fraction> {
        self.fractions_until(lo, states, &Cancel::new())
            .map(|(f, _)| f)
            .unwrap_or_default()
    }

    /// [`Law::fractions`] and the ways they are of the law's denominator, or None once
    /// `cancel` is set: a value's fraction over a long chain's denominator (35,000
    /// digits) is a few milliseconds, a thousand of them seconds that Ctrl-C does not
    /// wait for.
    fn fractions_until(
        &self,
        lo: i64,
        states: usize,
        cancel: &Cancel,
    ) -> Option<(Vec<Fraction>, Ways)> {
        let mut ways = vec![UBig::ZERO; states];
        for (v, w) in self.iter() {
            ways[((v - lo).max(0) as usize).min(states - 1)] += w;
        }
        // The denominator's primes found once for every value (1000d6's 5,001 values
        // each finding them again took 0.2 s).
        let factors = match self.den.to_u128() {
            Some(_) => None,
            None => super::weight::small_factors(&self.den),
        };
        let ladders: Vec<Vec<(UBig, u32)>> = factors
            .iter()
            .flatten()
            .map(|&(p, _)| super::weight::ladder(p, &self.den))
            .collect();
        let small_den = self.den.to_u128();
        // Many values over one denominator of small primes: each reduced by them.
        let word_factors = match small_den {
            Some(den) if ways.len() >= 8 => super::weight::WordFactors::of(den),
            _ => None,
        };
        let one = |w: &UBig| match (&factors, small_den) {
            _ if cancel.is_cancelled() => None,
            // A value no roll gives (most of a wide table's, Farkle's 3,001 values
            // from 0 to 3,000 of which 31 come).
            _ if w.is_zero() => Some(Fraction::zero()),
            (None, Some(den)) => {
                // Every count is at most the denominator, so fits as well.
                let w = w.to_u128().unwrap_or(0);
                let (n, d) = match &word_factors {
                    Some(f) => f.lowest(w),
                    None => {
                        let g = num_integer::Integer::gcd(&den, &w);
                        (w / g, den / g)
                    }
                };
                Some(Fraction::lowest(UBig::from(n), UBig::from(d)))
            }
            (Some(factors), _) => {
                // What the value's ways share with the denominator: the
                // denominator is divided by it (a word where it fits), not built
                // again from powers of its primes for every value.
                let mut numer: Option<UBig> = None;
                let mut shared = Some(1u64);
                let mut powers = Vec::with_capacity(factors.len());
                for (&(p, e), rungs) in factors.iter().zip(&ladders) {
                    let from = numer.as_ref().unwrap_or(w);
                    let (v, rest) = super::weight::divided_out_by(from, p, e, rungs);
                    numer = Some(rest);
                    shared = shared.and_then(|s| s.checked_mul(u64::from(p).checked_pow(v)?));
                    powers.push((p, e - v));
                }
                let denom = match shared {
                    Some(s) => &self.den / s,
                    None => powers
                        .into_iter()
                        .fold(UBig::ONE, |d, (p, k)| d * UBig::from(p).pow(k as usize)),
                };
                Some(Fraction::lowest(numer.unwrap_or_else(|| w.clone()), denom))
            }
            (None, None) => {
                let g = UBig::common_factor(&self.den, std::slice::from_ref(w));
                Some(Fraction::lowest(
                    w.div(&g).to_big(),
                    self.den.div(&g).to_big(),
                ))
            }
        };
        // Written into a vector of its size (a collect through `Option` knows no size
        // and grows it by doubling, copying the fractions so far each time).
        let mut fractions = Vec::with_capacity(ways.len());
        for w in &ways {
            fractions.push(one(w)?);
        }
        let den = self.den.clone();
        Some((fractions, Ways { n: ways, den }))
    }
}

impl<W: Weight> Law<W> {
    /// Each value's chance over `lo..lo + states` (a value outside joins the end it
    /// passes).
    fn floats(&self, lo: i64, states: usize) -> Vec<f64> {
        let mut p = vec![0.0; states];
        for (v, w) in self.iter() {
            p[((v - lo).max(0) as usize).min(states - 1)] += W::ratio(w, &self.den);
        }
        p
    }
}

/// Sums weighted parts over one denominator: `Σ wᵢ · partᵢ` for a `let`, an `if`, a
/// rolled dice count. The weights are counts over the denominator `over`. The parts are
/// held until the end, so that their common denominator is found once, not grown part
/// by part with every sum so far scaled up each time it grows.
struct Mixer<W> {
    parts: Vec<(W, Law<W>)>,
}

impl<W: Weight> Mixer<W> {
    fn new() -> Self {
        Mixer { parts: Vec::new() }
    }

    fn add(&mut self, w: &W, part: Law<W>, b: &mut Budget<W>) -> Result<(), NoLaw> {
        b.spend(2 * part.n.len() as u64)?;
        self.parts.push((w.clone(), part));
        Ok(())
    }

    fn done(mut self, over: &W) -> Result<Law<W>, NoLaw> {
        // One part that is certain (a dice count that is one number): the part itself.
        if self.parts.len() == 1 && self.parts[0].0 == *over {
            return Ok(self.parts.swap_remove(0).1);
        }
        // Parts over one denominator are the usual case (a pool variable's outcomes
        // each leading to the same dice): a comparison, not a division, each.
        let mut common = W::one();
        for (_, part) in &self.parts {
            if part.den != common && !common.multiple_of(&part.den) {
                common = common.lcm(&part.den)?;
            }
        }
        let lo = self.parts.iter().map(|(_, p)| p.lo).min().unwrap_or(0);
        let hi = self
            .parts
            .iter()
            .map(|(_, p)| p.lo + p.n.len() as i64 - 1)
            .max()
            .unwrap_or(0);
        let mut n = vec![W::default(); span(lo, hi)?];
        for (w, part) in &self.parts {
            let scale = if part.den == common {
                w.clone()
            } else {
                w.mul(&common.div(&part.den))?
            };
            let at = (part.lo - lo) as usize;
            for (dst, x) in n[at..].iter_mut().zip(&part.n) {
                if !x.is_zero() {
                    dst.add_product(x, &scale)?;
                }
            }
        }
        Ok(Law {
            lo,
            n,
            den: over.mul(&common)?,
        }
        .trim()
        .reduced())
    }
}

/// The exact law of `n` (no variables in scope), or [`NoLaw`] where a part is not
/// served or the work passes [`LAW_WORK`]: [`first_law`]'s, without its masses.
#[cfg(test)]
fn law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<Law, NoLaw> {
    first_law(n, vs, cancel).and_then(|first| match first.law {
        Weights::Counted(law) => Ok(law),
        Weights::Real(_) | Weights::Float(_) => Err(NoLaw::Spent),
    })
}

/// What the `repeat`s a law played stopped at their limits.
pub(super) struct Played {
    /// Whether some `repeat` came to its last round with ways still going.
    stopped: bool,
    /// The mass the limits stopped before the conditions held, each by its reach; NaN
    /// where a `repeat` was played where its reach is not known.
    unfinished: f64,
    /// The chains stopped at their depth, each by its reach; NaN where one was
    /// rolled where its reach is not known.
    capped: f64,
    /// [`Budget::past`].
    past: i64,
}

/// The law of expressions whose `let`s are moved down already ([`first_law`] moves
/// them) in floats, and what its `repeat`s stopped at their limits: plain floats first,
/// and where a product passes their range, floats with their own exponent ([`Real`]).
fn floats_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<(Weights, Played), NoLaw> {
    match law_in::<f64>(n, vs, cancel, REAL_WORK) {
        Err(NoLaw::Wide | NoLaw::Wider) => law_in::<Real>(n, vs, cancel, REAL_WORK)
            .map(|(law, played)| (Weights::Real(law), played)),
        r => r.map(|(law, played)| (Weights::Float(law), played)),
    }
}

/// [`floats_law`] counted: in machine words first, again in big integers where a count
/// passes them.
fn whole_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<(Weights, Played), NoLaw> {
    counted_law(n, vs, cancel).map(|(law, played)| (Weights::Counted(law), played))
}

/// [`whole_law`]'s law, in the narrowest integers that hold it.
fn counted_law(n: &Node, vs: Option<&Node>, cancel: &Cancel) -> Result<(Law, Played), NoLaw> {
    // A budget spent in words is spent again only where big integers multiply long
    // convolutions at once; four words have no such multiply, so they are tried only
    // where two were too narrow.
    // A chain's own law takes its die's sides to the power of its rolls: where that
    // alone passes two or four words, they would overflow after the work to get there
    // (6d10 again <= 2: 418 bits), and are not tried.
    let bits = first::chain_bits(n).max(vs.map_or(0.0, first::chain_bits));
    if bits > 256.0 {
        return law_in::<UBig>(n, vs, cancel, LAW_WORK);
    }
    if bits > 128.0 {
        return match law_in::<U256>(n, vs, cancel, LAW_WORK) {
            Ok((law, played)) => Ok((law.widened(), played)),
            Err(NoLaw::Wide | NoLaw::Wider | NoLaw::Spent) => {
                law_in::<UBig>(n, vs, cancel, LAW_WORK)
            }
            Err(e) => Err(e),
        };
    }
    match law_in::<u128>(n, vs, cancel, LAW_WORK) {
        Ok((law, played)) => Ok((law.widened(), played)),
        Err(NoLaw::Wider) => law_in::<UBig>(n, vs, cancel, LAW_WORK),
        Err(NoLaw::Wide) => match law_in::<U256>(n, vs, cancel, LAW_WORK) {
            Ok((law, played)) => Ok((law.widened(), played)),
            Err(NoLaw::Wide | NoLaw::Wider | NoLaw::Spent) => {
                law_in::<UBig>(n, vs, cancel, LAW_WORK)
            }
            Err(e) => Err(e),
        },
        Err(NoLaw::Spent) => law_in::<UBig>(n, vs, cancel, LAW_WORK),
        Err(e) => Err(e),
    }
}

/// The law in weights `W`, of the expressions with their `let`s moved down.
fn law_in<W: Weight>(
    n: &Node,
    vs: Option<&Node>,
    cancel: &Cancel,
    work: u64,
) -> Result<(Law<W>, Played), NoLaw> {
    let mut b = Budget::new(cancel);
    b.left = work;
    let mut env = Vec::new();
    let mut run = || -> Result<Law<W>, NoLaw> {
        let a = eval(n, &mut env, &mut b)?;
        Ok(match vs {
            None => a,
            Some(v) => {
                let v = eval(v, &mut env, &mut b)?;
                a.add(&v.map(|x| x.saturating_neg())?, &mut b)?
            }
        }
        .reduced())
    };
    let ran = run();
    match ran {
        // Big integers would spend the same on it: no second run (four pools of 10d6
        // set against each other took 5 s in machine words, then 5 s more).
        Err(NoLaw::Spent) if !b.long && W::EXACT => Err(NoLaw::Refused(Why::Work)),
        r => r.map(|law| {
            let played = Played {
                stopped: b.stopped,
                unfinished: b.unfinished,
                capped: b.capped,
                past: b.past,
            };
            (law, played)
        }),
    }
}

fn eval<'a, W: Weight>(
    n: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    if env.is_empty() && matches!(n, Node::Let(..) | Node::Counted(..)) {
        if let Some(law) = b.closed.alike(n) {
            b.spend(law.n.len() as u64)?;
            // What its limits stopped when it was worked out, per unit of its reach,
            // counted again by this part's.
            let [capped, unfinished] = b.stops.alike(n).unwrap_or([f64::NAN; 2]);
            // Nothing stopped is nothing, however it is reached (NaN times 0 is not).
            if capped != 0.0 {
                b.capped += b.reach * capped;
            }
            if unfinished != 0.0 {
                b.unfinished += b.reach * unfinished;
            }
            return Ok(law);
        }
        // Its own masses counted apart, so that a small one is not lost in the sum.
        let before = [
            std::mem::take(&mut b.capped),
            std::mem::take(&mut b.unfinished),
        ];
        let law = open(n, env, b);
        let mine = [b.capped, b.unfinished];
        (b.capped, b.unfinished) = (before[0] + mine[0], before[1] + mine[1]);
        let law = law?;
        // Per unit of its reach, where that is known and not lost below the floats'
        // range; nothing stopped is nothing, however it was reached.
        let per = if b.reach > 1e-250 {
            mine.map(|m| if m == 0.0 { 0.0 } else { m / b.reach })
        } else if stops_nothing(n) {
            [0.0; 2]
        } else {
            [f64::NAN; 2]
        };
        b.stops.keep(n, per);
        return Ok(b.closed.keep(n, law));
    }
    open(n, env, b)
}

/// Whether `n` is arithmetic on numbers and pool variables' dice in scope, rolling
/// nothing: [`number`] gives it.
fn arithmetic(n: &Node) -> bool {
    let mut all = arithmetic_kind(n) || plain_read(n) || held_meeting(n);
    super::super::program::each_child(n, &mut |c| all = all && arithmetic(c));
    all
}

/// A read of a pool variable's dice that needs nothing but the dice held (an `again`
/// pool's tally is held as its reads' values), and the numbers its face or keep count
/// are (`p count == dragon`: those are its children, arithmetic in turn). Read from
/// tallies (which hold no dice) it has no number, as [`pools::read`] has no law.
fn plain_read(n: &Node) -> bool {
    matches!(n, Node::PoolVar(r) if r.rolled.is_none() || r.tally.is_none())
}

/// Two pool variables' dice set against each other (`beats(a, b)`, `pairs`, `cancel`):
/// a number given the dice held, as a read is (Sorcerer's two meetings of 4d10 and
/// 3d10 made two laws and their difference for each of 157,300 pairs of outcomes).
fn held_meeting(n: &Node) -> bool {
    matches!(n, Node::Meeting(m) if m.sides.iter().all(|s| matches!(s, Side::Var { .. })))
}

/// A fixed read of a pool: its keep and what it reads of the kept dice.
type Way = (Option<(End, u32)>, Agg);

/// A pool variable's dice in scope, as its body reads them.
#[derive(Clone)]
enum Held<'a> {
    /// The dice, sorted.
    Dice(std::rc::Rc<[i64]>),
    /// Each of the pool's fixed reads (`ways`) and its value: a pool read only by sums
    /// and counts holds no dice (200 of them for each of 20,000 outcomes, made and read
    /// again, were most of the time and memory of `200d20` read by two counts).
    Reads(&'a [Way], std::rc::Rc<[i64]>),
    /// As `Reads`, for the reads of a pool of a multiset pass's chain: one list of the
    /// pass's values, its body evaluated once for each.
    Row(std::rc::Rc<[Way]>, std::rc::Rc<[i64]>),
}

impl Held<'_> {
    /// A fixed read's value.
    fn value(&self, r: &PoolRead) -> Option<i64> {
        match self {
            Held::Dice(d) => Some(r.value(d, r.keep, r.agg)),
            Held::Reads(ways, v) => ways
                .iter()
                .position(|w| *w == (r.keep, r.agg))
                .map(|i| v[i]),
            Held::Row(ways, v) => ways
                .iter()
                .position(|w| *w == (r.keep, r.agg))
                .map(|i| v[i]),
        }
    }

    /// The dice, where they are held.
    fn dice(&self) -> Option<&std::rc::Rc<[i64]>> {
        match self {
            Held::Dice(d) => Some(d),
            Held::Reads(..) | Held::Row(..) => None,
        }
    }
}

/// The value of an [`arithmetic`] node, as its law's single value would be (the same
/// saturating arithmetic); `None` for anything else.
fn number(n: &Node, env: &mut Vec<i64>, held: &[(usize, Held)]) -> Option<i64> {
    Some(match n {
        Node::Num(v) => *v,
        Node::Var(i) => *env.get(*i)?,
        Node::PoolVar(r) if plain_read(n) => {
            let (_, h) = held.iter().rev().find(|(at, _)| *at == r.i)?;
            match &r.rolled {
                None => h.value(r)?,
                // The face or keep count worked out first, then the dice read with it,
                // as [`pools::read`] does for each of their values.
                Some(rolled) => {
                    let keep = match &rolled.keep {
                        Some((_, _, k)) => Some(number(k, env, held)?),
                        None => None,
                    };
                    let face = match &rolled.face {
                        Some(f) => Some(number(f, env, held)?),
                        None => None,
                    };
                    let (keep, agg) = r.with(keep, face);
                    super::super::program::read_sorted(h.dice()?, keep, agg, r.lo, r.hi)
                }
            }
        }
        Node::Meeting(m) if held_meeting(n) => {
            let dice = |s: &Side| match s {
                Side::Var { i, .. } => held.iter().rev().find(|(at, _)| at == i)?.1.dice(),
                Side::Pool(_) => None,
            };
            m.value(dice(&m.sides[0])?, dice(&m.sides[1])?)
        }
        Node::Neg(a) => number(a, env, held)?.saturating_neg(),
        Node::Add(x, y) => number(x, env, held)?.saturating_add(number(y, env, held)?),
        Node::Sub(x, y) => {
            number(x, env, held)?.saturating_add(number(y, env, held)?.saturating_neg())
        }
        Node::Mul(x, y) => number(x, env, held)?.saturating_mul(number(y, env, held)?),
        Node::Div(x, y) => divide(number(x, env, held)?, number(y, env, held)?),
        Node::Max(x, y) => number(x, env, held)?.max(number(y, env, held)?),
        Node::Min(x, y) => number(x, env, held)?.min(number(y, env, held)?),
        Node::Cmp(c, x, y) => c.holds(number(x, env, held)?, number(y, env, held)?) as i64,
        Node::If(c, yes, no) => {
            if number(c, env, held)? != 0 {
                number(yes, env, held)?
            } else {
                number(no, env, held)?
            }
        }
        Node::Let(bound, body) => {
            let v = number(bound, env, held)?;
            env.push(v);
            let r = number(body, env, held);
            env.pop();
            r?
        }
        _ => return None,
    })
}

/// The kinds of node that are arithmetic on their children's numbers.
fn arithmetic_kind(n: &Node) -> bool {
    matches!(
        n,
        Node::Num(_)
            | Node::Var(_)
            | Node::Neg(_)
            | Node::Add(..)
            | Node::Sub(..)
            | Node::Mul(..)
            | Node::Div(..)
            | Node::Max(..)
            | Node::Min(..)
            | Node::Cmp(..)
            | Node::Let(..)
            | Node::If(..)
    )
}

/// [`eval`] without looking for `n` among the parts worked out before, keeping the
/// [`Budget::reach`] of its parts: known below arithmetic, `let`s, branches, rolled
/// counts, pool variables' bodies, hand-outs, templates and a `repeat` (which counts
/// its own), NaN below anything else.
fn open<'a, W: Weight>(
    n: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    if b.chains_here(n) {
        // Its chains, rolled once here: each die's, by the chance of rolling here (a
        // rolled count's, by each count's chance, as it picks its pool).
        let rolled = |p: &PoolSpec| first::pool_capped(p).unwrap_or(f64::NAN);
        b.capped += match n {
            Node::Pool(p) | Node::LetPool { spec: p, .. } => b.reach * rolled(p),
            Node::Versus(_, x, y, _) => b.reach * (rolled(x) + rolled(y)),
            // A pool variable's side was rolled where it was bound.
            Node::Meeting(m) => {
                let here = m.sides.iter().filter_map(|s| match s {
                    Side::Pool(p) => Some(rolled(p)),
                    Side::Var { .. } => None,
                });
                b.reach * here.sum::<f64>()
            }
            Node::Pick(p) => b.reach * first::groups_capped(&p.groups, None).unwrap_or(f64::NAN),
            // Each pool of a rolled count or of a template's numbers: by that pool's
            // chance, as it is picked.
            Node::Counted(..) | Node::Template(_) => 0.0,
            _ => f64::NAN,
        };
    }
    let opens_all = arithmetic_kind(n) || matches!(n, Node::Counted(..) | Node::CountedVar(..));
    // Arithmetic on the values in scope is one number: worked out as one, not as a
    // law for every part (a baccarat tableau's sums and tests for each of 10,000
    // deals of four cards).
    if opens_all && !matches!(n, Node::Num(_) | Node::Var(_)) && b.arithmetic(n) {
        if let Some(v) = number(n, env, &b.held) {
            b.spend(1)?;
            return Ok(Law::point(v));
        }
    }
    // A `repeat` (and the bindings that lead to it) counts its parts by each state's
    // chance, as the rest of these do by each value's.
    // So does a pool variable's body by each outcome's, a hand-out's body by each
    // hand-out's, and a template's numbers, each rolled once.
    let weighed = opens_all
        || matches!(
            n,
            Node::Repeat(_) | Node::LetPool { .. } | Node::Pick(_) | Node::Template(_)
        );
    // Below anything else, a part may be worked out without being opened here (a pool
    // variable inside another's body), and its chains would go uncounted: their reach
    // is the floats' to say.
    if !weighed && !b.capped.is_nan() && b.chains_below(n) {
        b.capped = f64::NAN;
    }
    if weighed || b.reach.is_nan() {
        return open_weighed(n, env, b);
    }
    let reach = std::mem::replace(&mut b.reach, f64::NAN);
    let law = open_weighed(n, env, b);
    b.reach = reach;
    law
}

/// [`open`] of a part whose parts' reach is kept.
fn open_weighed<'a, W: Weight>(
    n: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    b.spend(1)?;
    type Two<W> = Result<(Law<W>, Law<W>), NoLaw>;
    fn two<'a, W: Weight>(
        x: &'a Node,
        y: &'a Node,
        env: &mut Vec<i64>,
        b: &mut Budget<'a, W>,
    ) -> Two<W> {
        Ok((eval(x, env, b)?, eval(y, env, b)?))
    }
    if let Some((x, y)) = n.operands() {
        let (x, y) = two(x, y, env, b)?;
        return binary(n, &x, &y, b);
    }
    Ok(match n {
        Node::Num(v) => Law::point(*v),
        Node::Var(i) => Law::point(*env.get(*i).ok_or(NoLaw::Refused(Why::Part))?),
        Node::Neg(a) => eval(a, env, b)?.map(|x| x.saturating_neg())?,
        Node::Let(..) | Node::LetPool { .. } if repeat::led_to(n, env.len()).is_some() => {
            repeat::after_bindings(n, env, b)?
        }
        Node::Let(bound, body) => let_in(bound, body, env, b)?,
        Node::If(c, yes, no) => if_else(c, yes, no, env, b)?,
        Node::Pool(p) => remembered(p, b)?,
        Node::Counted(c, pools) => {
            let d = eval(c, env, b)?;
            // Pools that read no variable: their mix is the same for the same law of
            // the count (`((hits)d6 count >= 3)d6 count <= 3` for each of a pool's
            // outcomes, where the hits take 13 values).
            let again = b.stops_nothing(n);
            if again {
                if let Some(law) = b.counted_before(n, &d) {
                    b.passed(d.highest(), pools.len());
                    b.spend(law.n.len() as u64)?;
                    return Ok(law);
                }
            }
            // Counts of one die and condition, by the count's whole law at once.
            // (Looked for only there: a single count's pool is found again cheaper.)
            let coined = match again && d.n.len() > 1 {
                true => one_coin(pools),
                false => None,
            };
            if let Some((spec, c)) = coined {
                b.passed(d.highest(), pools.len());
                let one = die(spec, b)?;
                let law = thinned(&d, pools.len() - 1, &coin(&one, c, spec)?, b)?;
                b.keep_counted(n, d, &law);
                return Ok(law);
            }
            // Sums of one kind of die, count by count rising: each from the one before
            // with the dice between added (`(hits)d6` over the 301 counts of 300 shots'
            // hits), not each made afresh.
            let mut last: Option<(u32, &DieSpec, Law<W>)> = None;
            let law = by_count((n, &d, pools.len()), env, b, |k, _, b| {
                let pool = counted(pools, k);
                b.rolls(pool, || 1.0);
                let Some((count, d)) = one_kind_sum(pool) else {
                    return remembered(pool, b);
                };
                let one = die(d, b)?;
                let law = match last.take() {
                    Some((before, was, law)) if was == d && before <= count => {
                        let mut law = law;
                        for _ in before..count {
                            law = law.add_die(&one, b)?;
                        }
                        law
                    }
                    _ => one.times(count, b)?,
                };
                last = Some((count, d, law.clone()));
                Ok(law)
            })?;
            if again {
                b.keep_counted(n, d, &law);
            }
            law
        }
        Node::CountedVar(c, bodies) => {
            let d = eval(c, env, b)?;
            by_count((n, &d, bodies.len()), env, b, |k, env, b| {
                eval(counted(bodies, k), env, b)
            })?
        }
        Node::Repeat(r) => repeat::repeat(r, env, b)?,
        Node::Template(t) => pools::template(t, env, b)?,
        Node::Card(c) => card(c, env, b)?,
        Node::LetPool {
            spec, body, choice, ..
        } => pools::let_pool(n, spec, choice.as_deref(), body, env, b)?,
        Node::PoolVar(r) => pools::read(r, env, b)?,
        Node::Pick(p) => pools::pick(p, env, b)?,
        Node::Versus(kind, x, y, ties) => {
            let pass = || crate::systems::dice::lower::versus(*kind, x, y, *ties);
            if let Some(law) = meet::passed(n, pass, [x, y], b)? {
                return Ok(law);
            }
            let sides = [meet::Meets::Pool(x), meet::Meets::Pool(y)];
            meet::meeting(sides, &|a, d| versus(*kind, a, d, *ties), b)?
        }
        Node::Meeting(m) => {
            if let [Side::Pool(x), Side::Pool(y)] = &m.sides {
                let pass = || crate::systems::dice::lower::meeting(m);
                if let Some(law) = meet::passed(n, pass, [x, y], b)? {
                    return Ok(law);
                }
            }
            if let Some(law) = meet::held_pass(m, b)? {
                return Ok(law);
            }
            let side = |s: &'a Side| match s {
                Side::Pool(p) => meet::Meets::Pool(p),
                Side::Var { i, .. } => meet::Meets::Held(*i),
            };
            let sides = [side(&m.sides[0]), side(&m.sides[1])];
            meet::meeting(sides, &|a, d| m.value(a, d), b)?
        }
        _ => return Err(NoLaw::Refused(Why::Part)),
    })
}

/// The law of the binary operator `n` (`+`, `-`, `*`, `/`, `max`, `min`, a comparison)
/// on one draw of `x` and one of `y`.
fn binary<W: Weight>(n: &Node, x: &Law<W>, y: &Law<W>, b: &mut Budget<W>) -> Result<Law<W>, NoLaw> {
    match n {
        Node::Add(..) => x.add(y, b),
        Node::Sub(..) => x.add(&y.map(|v| v.saturating_neg())?, b),
        Node::Mul(..) => x.combine(y, b, |x, y| x.saturating_mul(y)),
        Node::Div(..) => x.combine(y, b, divide),
        Node::Max(..) => x.combine(y, b, i64::max),
        Node::Min(..) => x.combine(y, b, i64::min),
        Node::Cmp(c, ..) => x.combine(y, b, |x, y| c.holds(x, y) as i64),
        _ => Err(NoLaw::Refused(Why::Part)),
    }
}

/// `let` bound `in` body: the body for each bound value, mixed by its ways, each
/// reached by its chance.
fn let_in<'a, W: Weight>(
    bound: &'a Node,
    body: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let d = eval(bound, env, b)?;
    if b.arithmetic(body) {
        // A body that rolls nothing is a number for each bound value: its ways
        // go straight to that number (Savage Worlds' two exploding dice: 19,200
        // bodies, once a law each).
        b.spend(d.n.len() as u64)?;
        // One column for every value where the body is plain arithmetic (its ways put
        // straight into the law's places, not through a map); else (a read of a pool
        // held) value by value.
        let taken: Vec<(i64, &W)> = d.iter().collect();
        let vals: Vec<i64> = taken.iter().map(|(v, _)| *v).collect();
        if let Some(at) = super::columns::values_of_let(body, env, vals) {
            let ways = at.iter().copied().zip(taken.iter().map(|(_, w)| *w));
            return Law::from_values(ways, &d.den);
        }
        let mut m: Map<i64, W> = Map::default();
        for (v, w) in d.iter() {
            env.push(v);
            let at = number(body, env, &b.held);
            env.pop();
            m.entry(at.ok_or(NoLaw::Refused(Why::Part))?)
                .or_default()
                .add_to(w)?;
        }
        return Law::from_map(m, d.den.clone());
    }
    let mut mix = Mixer::new();
    for (v, w) in d.iter() {
        env.push(v);
        let part = b.within(body, w, &d.den, |b| eval(body, env, b));
        env.pop();
        mix.add(w, part?, b)?;
    }
    mix.done(&d.den)
}

/// The branches mixed by the condition's ways, each reached by its chance; a branch
/// never taken is not evaluated.
fn if_else<'a, W: Weight>(
    c: &'a Node,
    yes: &'a Node,
    no: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let d = eval(c, env, b)?;
    let (mut taken, mut not) = (W::default(), W::default());
    for (v, w) in d.iter() {
        if v != 0 {
            taken.add_to(w)?;
        } else {
            not.add_to(w)?;
        }
    }
    // A branch never taken is not evaluated.
    if taken.is_zero() {
        return eval(no, env, b);
    }
    if not.is_zero() {
        return eval(yes, env, b);
    }
    let mut mix = Mixer::new();
    let yes = b.within(yes, &taken, &d.den, |b| eval(yes, env, b));
    let no = b.within(no, &not, &d.den, |b| eval(no, env, b));
    mix.add(&taken, yes?, b)?;
    mix.add(&not, no?, b)?;
    mix.done(&d.den)
}

/// What each value of a dice count (its law `d`) picks (its pool, or a pool variable's
/// body of that many dice, `made` of them from none), mixed by the count's ways.
fn by_count<'a, W: Weight>(
    (n, d, made): (&'a Node, &Law<W>, usize),
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
    mut part: impl FnMut(i64, &mut Vec<i64>, &mut Budget<'a, W>) -> Result<Law<W>, NoLaw>,
) -> Result<Law<W>, NoLaw> {
    b.passed(d.highest(), made);
    let mut mix = Mixer::new();
    for (k, w) in d.iter() {
        let p = b.within(n, w, &d.den, |b| part(k, env, b));
        mix.add(w, p?, b)?;
    }
    mix.done(&d.den)
}

/// A card from what the cards dealt before it left of its deck: `left(v)` ways of
/// `left`.
fn card<'a, W: Weight>(
    c: &'a Card,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let mut dealt = Vec::with_capacity(c.before.len());
    for x in &c.before {
        let d = match x {
            Node::Var(i) => *env.get(*i).ok_or(NoLaw::Refused(Why::Part))?,
            x => match eval(x, env, b)? {
                d if d.n.len() == 1 => d.lo,
                _ => return Err(NoLaw::Refused(Why::Part)),
            },
        };
        dealt.push(d);
    }
    b.spend(c.kinds.len() as u64)?;
    // Values rising: laid out as they come, from the lowest still in the deck.
    let mut left = c.ways(&dealt).filter(|&(_, n)| n > 0).peekable();
    let Some(&(lo, _)) = left.peek() else {
        return Ok(Law::point(0));
    };
    let (mut n, mut den) = (Vec::new(), W::default());
    for (v, k) in left {
        let w = W::from_u128(u128::from(k));
        den.add_to(&w)?;
        n.resize(span(lo, v)?, W::default());
        n[(v - lo) as usize] = w;
    }
    Ok(Law { lo, n, den })
}

/// A few values together (a `repeat`'s state, a pool's rolled numbers), held inline.
type Values = smallvec::SmallVec<[i64; 4]>;

/// Every combination of values of independent `laws`, with its ways (their product),
/// and the product of their denominators; each combination made costs `each`.
fn every_combination<W: Weight>(
    laws: &[Law<W>],
    each: u64,
    b: &mut Budget<W>,
) -> Result<(Vec<(Values, W)>, W), NoLaw> {
    let mut combos: Vec<(Values, W)> = vec![(Values::new(), W::one())];
    let mut den = W::one();
    for law in laws {
        b.spend(each.saturating_mul((combos.len() * law.n.len()) as u64))?;
        let mut next = Vec::with_capacity(combos.len() * law.n.len());
        for (vals, w) in &combos {
            for (v, q) in law.iter() {
                let mut vals = vals.clone();
                vals.push(v);
                next.push((vals, w.mul(q)?));
            }
        }
        combos = next;
        den = den.mul(&law.den)?;
    }
    Ok((combos, den))
}

/// A die's law, from the ones worked out before when it is one of them.
pub(super) fn die<'a, W: Weight>(d: &'a DieSpec, b: &mut Budget<'a, W>) -> Result<Law<W>, NoLaw> {
    if let Some(law) = b.dice.alike(d) {
        return Ok(law);
    }
    let law = die_law(d, b.cancel)?;
    Ok(b.dice.keep(d, law))
}

/// A pool's law, from the ones worked out before when it is one of them.
fn remembered<'a, W: Weight>(p: &'a PoolSpec, b: &mut Budget<'a, W>) -> Result<Law<W>, NoLaw> {
    if let Some(law) = b.pools.alike(p) {
        b.spend(law.n.len() as u64)?;
        return Ok(law);
    }
    let law = pool(p, b)?;
    Ok(b.pools.keep(p, law))
}

/// A pool summed from dice of one kind, as it is rolled: how many, and the die.
fn one_kind_sum(p: &PoolSpec) -> Option<(u32, &DieSpec)> {
    match p.groups.as_slice() {
        [(count, d)]
            if p.keep.is_none() && p.agg == Agg::Sum && p.again.is_none() && p.deck().is_none() =>
        {
            Some((*count, d))
        }
        _ => None,
    }
}

/// A pool read at once: sums die by die; counts by binomials; every other read by the
/// pass over the faces from the keep's end.
fn pool<'a, W: Weight>(p: &'a PoolSpec, b: &mut Budget<'a, W>) -> Result<Law<W>, NoLaw> {
    if let Some(c) = p.again {
        return match p.agg {
            Agg::Sum | Agg::Count(_) if p.keep.is_none() => pools::again_pool(p, c, b),
            _ => Err(NoLaw::Refused(Why::Part)),
        };
    }
    if p.deck().is_some() || matches!(p.agg, Agg::Straight | Agg::Shape(_)) {
        return pools::read_whole(p, b);
    }
    let dies: Vec<(u32, Law<W>)> = p
        .groups
        .iter()
        .map(|(n, d)| Ok((*n, die(d, b)?)))
        .collect::<Result<_, NoLaw>>()?;
    let total: u32 = dies.iter().map(|(n, _)| n).sum();
    if total == 0 {
        return Ok(Law::point(0));
    }
    match (p.keep, p.agg) {
        (None, Agg::Sum) | (None, Agg::Tally(_)) => {
            let mut out = Law::point(0);
            for (n, d) in &dies {
                let d = match p.agg {
                    Agg::Tally(t) => d.map(|v| tally(v, t))?,
                    _ => d.clone(),
                };
                out = out.add(&d.times(*n, b)?, b)?;
            }
            Ok(out.reduced())
        }
        (None, Agg::Count(c)) => {
            let mut out = Law::point(0);
            for ((n, d), (_, spec)) in dies.iter().zip(&p.groups) {
                let (hit, miss, coin_den) = coin(d, c, spec)?;
                out = out.add(&counts(*n as usize, &hit, &miss, &coin_den, b)?, b)?;
            }
            Ok(out.reduced())
        }
        (_, Agg::Straight) | (_, Agg::Shape(_)) => pools::read_whole(p, b),
        (keep, agg) => {
            let (end, k) = keep.unwrap_or((End::Highest, total));
            keep::pass(&dies, &p.groups, end, k.min(total), agg, b)
        }
    }
}

/// One die counted by the condition `c`: its ways to meet it and not, over its ways,
/// in lowest terms (3 of 6 is 1 of 2: the powers of a pool of them stay small).
fn coin<W: Weight>(d: &Law<W>, c: Cond, spec: &DieSpec) -> Result<(W, W, W), NoLaw> {
    let mut hit = W::default();
    for (_, w) in d.iter().filter(|(v, _)| c.holds(*v, spec.lo(), spec.hi())) {
        hit.add_to(w)?;
    }
    let mut miss = d.den.clone();
    miss.sub_from(&hit)?;
    let g = hit.gcd(&miss).gcd(&d.den);
    Ok((hit.div(&g), miss.div(&g), d.den.div(&g)))
}

/// The die and read of a rolled count's pools where each is that many of one die read
/// one way (`(hits)d6 count >= 4`, its pools of 0, 1, 2, ... dice), none kept or rolled
/// `again`, not a deck's cards.
fn one_kind(pools: &[PoolSpec]) -> Option<(&DieSpec, Agg)> {
    let last = pools.last()?;
    let [(_, die)] = last.groups.as_slice() else {
        return None;
    };
    let alike = |(k, p): (usize, &PoolSpec)| {
        matches!(p.groups.as_slice(), [(n, d)] if *n as usize == k && d == die)
            && p.agg == last.agg
            && p.keep.is_none()
            && p.again.is_none()
    };
    (!die.deck && pools.iter().enumerate().all(alike)).then_some((die, last.agg))
}

/// [`one_kind`] read by one count: each die then a coin, and the pools a binomial each.
fn one_coin(pools: &[PoolSpec]) -> Option<(&DieSpec, Cond)> {
    match one_kind(pools)? {
        (die, Agg::Count(c)) => Some((die, c)),
        _ => None,
    }
}

/// A rolled count (its law `d`) of coins tossed, the coins landed counted: `Σ_j d_j
/// (miss + hit·z)^j / coin^j` by Horner's rule, over the one denominator `d`'s times
/// `coin^K` (`K` its most coins), each step one multiply by a coin. Where before each
/// count's binomial was made (or found again), then all of them mixed: the hits of
/// every rolled count of a wound chain, the 13 counts of a pool of hits each read on.
/// A count past the pools made is as many as the last (as [`counted`] picks).
fn thinned<W: Weight>(
    d: &Law<W>,
    most: usize,
    (hit, miss, coin): &(W, W, W),
    b: &mut Budget<W>,
) -> Result<Law<W>, NoLaw> {
    let top = usize::try_from(d.highest().max(0))
        .unwrap_or(usize::MAX)
        .min(most);
    let mut by_count = vec![W::default(); top + 1];
    for (k, w) in d.iter() {
        let k = usize::try_from(k.max(0)).unwrap_or(usize::MAX).min(top);
        by_count[k].add_to(w)?;
    }
    let words = (top as u64 * u64::from(coin.bits() + 1) + u64::from(d.den.bits()))
        .div_ceil(64)
        .max(1);
    b.spend(((top * top) as u64 / 2 + top as u64 + 1).saturating_mul(2 * words))?;
    let mut r = Vec::with_capacity(top + 1);
    r.push(by_count[top].clone());
    let mut next: Vec<W> = Vec::with_capacity(top + 1);
    let mut scale = W::one();
    for j in (0..top).rev() {
        // r · (miss + hit·z), then the counts of j coins.
        next.clear();
        next.resize(r.len() + 1, W::default());
        for (i, w) in r.iter().enumerate().filter(|(_, w)| !w.is_zero()) {
            next[i].add_product(w, miss)?;
            next[i + 1].add_product(w, hit)?;
        }
        scale = scale.mul(coin)?;
        next[0].add_product(&by_count[j], &scale)?;
        std::mem::swap(&mut r, &mut next);
    }
    Ok(Law {
        lo: 0,
        n: r,
        den: d.den.mul(&scale)?,
    }
    .trim()
    .reduced())
}

/// The law of how many of `n` coins land, each `hit` ways of `coin_den` (`miss` the
/// rest): `C(n, c) hit^c miss^(n - c)` ways of `coin_den^n`.
fn counts<W: Weight>(
    n: usize,
    hit: &W,
    miss: &W,
    coin_den: &W,
    b: &mut Budget<W>,
) -> Result<Law<W>, NoLaw> {
    // Each of the n + 1 counts may take as many words as the denominator's n-th power
    // (a million coins: a million counts of up to a million bits, 60 GB), so the
    // spending is in words, before any is made.
    let words = (n as u64 * u64::from(coin_den.bits()))
        .min(W::CAPACITY.map_or(u64::MAX, u64::from))
        .div_ceil(64)
        .max(1);
    b.spend((n as u64 + 1).saturating_mul(4 * words))?;
    // The powers of miss from the top down.
    let mut misses = vec![W::one(); n + 1];
    if !miss.is_one() {
        for c in (0..n).rev() {
            misses[c] = misses[c + 1].mul(miss)?;
        }
    }
    // C(n, c) in a machine word while it fits (to 120 dice), and a power of 1 (a coin
    // of 1 in 2) not multiplied at all.
    let (mut ways, mut hits) = (Vec::with_capacity(n + 1), W::one());
    let (mut small, mut choose) = (Some(1u128), W::one());
    for (c, m) in misses.iter().enumerate() {
        let mut w = match small {
            Some(k) => W::from_u128(k),
            None => choose.clone(),
        };
        if !hit.is_one() {
            w = w.mul(&hits)?;
            // Not past hit^n: a power never used could pass the words needlessly.
            if c < n {
                hits = hits.mul(hit)?;
            }
        }
        if !miss.is_one() {
            w = w.mul(m)?;
        }
        ways.push(w);
        let (up, down) = ((n - c) as u64, (c + 1) as u64);
        if let Some(k) = small {
            small = k.checked_mul(u128::from(up)).map(|k| k / u128::from(down));
            if small.is_none() {
                // Past a word: from here in the weight, from C(n, c).
                choose = W::from_u128(k).mul_small(up)?.div_small(down);
            }
        } else {
            choose = choose.mul_small(up)?.div_small(down);
        }
    }
    Ok(Law {
        lo: 0,
        n: ways,
        den: coin_den.pow(n as u32)?,
    })
}

#[cfg(test)]
mod tests;
