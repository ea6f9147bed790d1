//! A `repeat` with integer weights: a Markov chain over its states, each state's mass a count of ways over one denominator
//! per round, so that a chain stopped at its limit has the limit's own fraction (a
//! reroll-until chain whose 100-round limit moves its value by 1e-31 is not the fraction
//! of the unlimited chain that the floats would be read as).

use super::*;
use crate::systems::dice::program::{mentions, Repeat};
use std::collections::hash_map::Entry;
use std::rc::Rc;

/// The work of one state's step in a round, in units of the budget: a state is a
/// few numbers hashed and looked up, about as long as this many operations elsewhere.
const REPEAT_COST: u64 = 16;

/// A state of a `repeat`: its variables' values.
type State = Values;

/// Ways of each state, over one denominator.
type States<W> = Map<State, W>;

/// What a round does from one state, when it does not read `rounds`: worked out once.
#[derive(Clone)]
struct Round<W> {
    /// Ways the loop stops here (its condition holds), of `until_den`.
    stops: W,
    until_den: W,
    /// Where a round from here leads, of `step_den`.
    step: Option<(States<W>, W)>,
    /// At the limit, the ways its condition does not hold, of `until_den`: stopped by
    /// the limit, not by the condition.
    cut: W,
    /// What the condition's and the step's limits stopped, per unit of the chance of
    /// playing each ([`Budget::per_unit`]): the step is played where the loop goes on.
    until_mass: [f64; 2],
    step_mass: [f64; 2],
}

/// Sub-probabilities summed from parts over different denominators: `ways / den` in
/// all, each part brought to their least common multiple as it comes.
struct Sum<W> {
    ways: Map<i64, W>,
    den: W,
    /// The body's law from each state that stopped, where it does not read `rounds`,
    /// with what its limits stopped per unit of its reach.
    bodies: Map<State, (Rc<Law<W>>, [f64; 2])>,
    /// The last denominator added over that was not `den`, and `den` over it: the
    /// states' denominator, once a round's common factor was divided out, is a divisor
    /// of `den` that every state stopping in a round comes over (a long division each
    /// was a third of a fleet's fight to the end).
    last: Option<(W, W)>,
}

impl<W: Weight> Sum<W> {
    /// Adds `w / over` of `part`.
    fn add(&mut self, w: &W, over: W, part: &Law<W>, b: &mut Budget<W>) -> Result<(), NoLaw> {
        b.spend(2 * part.n.len() as u64 + 8)?;
        let den = match part.den.is_one() {
            true => over,
            false => over.mul(&part.den)?,
        };
        // Every state that stops in a round comes over that round's denominator, met by
        // the first of them: the rest take their ways as they are, with no division.
        let scale = if den == self.den {
            w.clone()
        } else {
            let up = match &self.last {
                Some((d, up)) if *d == den => up.clone(),
                _ => {
                    if !self.den.multiple_of(&den) {
                        // Rounds' denominators grow by multiples, seldom by less.
                        let common = match den.multiple_of(&self.den) {
                            true => den.clone(),
                            false => self.den.lcm(&den)?,
                        };
                        let up = common.div(&self.den);
                        for v in self.ways.values_mut() {
                            *v = v.mul(&up)?;
                        }
                        self.den = common;
                    }
                    let up = self.den.div(&den);
                    self.last = Some((den, up.clone()));
                    up
                }
            };
            w.mul(&up)?
        };
        for (v, x) in part.iter() {
            self.ways.entry(v).or_default().add_product(x, &scale)?;
        }
        Ok(())
    }
}

/// The ways every value of `r` comes up: the states round by round, the mass whose
/// condition holds (or that reaches the limit) read by the body.
pub(super) fn repeat<'a, W: Weight>(
    r: &'a Repeat,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    // Its start is played once, by the `repeat`'s reach; its rounds by each state's.
    let reach = b.reach;
    start(r, env, b).and_then(|(s, den)| rounds(r, (0, reach), s, den, env, b))
}

/// The `repeat` that `n`'s `let`s and pool variables lead to (`let p = 10d6 in let
/// target = p mode in repeat left = 10 - p maxset ...`), with how many bindings come
/// before it; None where something else stands between, or a pool variable's dice are
/// read by the rounds (they are held only while its first states are made).
pub(super) fn led_to(n: &Node, at: usize) -> Option<(&Repeat, usize)> {
    let (r, k) = match n {
        Node::Repeat(r) => return Some((r, 0)),
        Node::Let(_, body) | Node::LetPool { body, .. } => led_to(body, at + 1)?,
        _ => return None,
    };
    let pool_read = matches!(n, Node::LetPool { .. }) && in_rounds(r, at);
    (!pool_read).then_some((r, k + 1))
}

/// Whether the rounds of `r` (its condition, its step or its body) read scope depth `i`.
fn in_rounds(r: &Repeat, i: usize) -> bool {
    mentions(&r.until, i) || mentions(&r.step, i) || mentions(&r.body, i)
}

/// `let`s and pool variables before the `repeat` they lead to ([`led_to`]): one chain
/// whose states carry the bindings the rounds read as values that never change (a
/// binding they do not read is held as 0, so that its values meet in one state), not a
/// chain for each binding's value. Tenzi's first throw (its most common face, the dice
/// showing it) was 54 chains of 200 rounds, past the budget: no fraction; the ogre's 29
/// hit point totals likewise.
pub(super) fn after_bindings<'a, W: Weight>(
    n: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let (r, k) = led_to(n, env.len()).ok_or(NoLaw::Refused(Why::Part))?;
    let base = env.len();
    let read: Vec<bool> = (0..k).map(|j| in_rounds(r, base + j)).collect();
    let reach = b.reach;
    firsts((n, true), r, &read, env, b).and_then(|(s, den)| rounds(r, (k, reach), s, den, env, b))
}

/// A binding's values, each with its ways and its pool's dice if it is a pool.
type Bound<'a, W> = Vec<(i64, W, Option<Held<'a>>)>;

/// The first states of the chain [`after_bindings`] makes from `n`, each with the
/// values of the bindings from here down before its variables' (`opened`: `n` is the
/// node [`open`] was called with, its own chains counted there).
fn firsts<'a, W: Weight>(
    (n, opened): (&'a Node, bool),
    r: &'a Repeat,
    read: &[bool],
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<(States<W>, W), NoLaw> {
    // Each value of the binding here, with its ways and its pool's dice if any.
    let (values, over, body): (Bound<W>, W, &Node) = match n {
        Node::Repeat(_) => return start(r, env, b),
        Node::Let(bound, body) => {
            let d = eval(bound, env, b)?;
            let values = d.iter().map(|(v, w)| (v, w.clone(), None)).collect();
            (values, d.den, body)
        }
        Node::LetPool {
            spec, choice, body, ..
        } => {
            // The pool [`after_bindings`] was opened with had its chains counted there.
            let (taken, held) = match opened {
                true => pools::held_outcomes(spec, choice.as_deref(), b)?,
                false => rolled_held(spec, choice.as_deref(), b)?,
            };
            let (outcomes, den) = &*taken;
            let values = outcomes
                .iter()
                .map(|(dice, w)| (0, w.clone(), Some(held.held(dice))))
                .collect();
            (values, den.clone(), body)
        }
        _ => return Err(NoLaw::Refused(Why::Part)),
    };
    let at = env.len();
    let kept = read[0];
    let mut parts = Vec::with_capacity(values.len());
    let mut common = W::one();
    for (v, w, dice) in values {
        env.push(v);
        let pushed = dice.map(|h| b.held.push((at, h))).is_some();
        let first = b.within(n, &w, &over, |b| {
            firsts((body, false), r, &read[1..], env, b)
        });
        if pushed {
            b.held.pop();
        }
        env.pop();
        let (states, den) = first?;
        if !common.multiple_of(&den) {
            common = common.lcm(&den)?;
        }
        parts.push((if kept { v } else { 0 }, w, states, den));
    }
    let mut states: States<W> = Map::default();
    for (v, w, first, den) in parts {
        let scale = w.mul(&common.div(&den))?;
        b.spend(first.len() as u64 * cost(&scale))?;
        for (s, q) in &first {
            let mut t = State::with_capacity(s.len() + 1);
            t.push(v);
            t.extend_from_slice(s);
            into(&mut states, &t, q, &scale)?;
        }
    }
    Ok((states, over.mul(&common)?))
}

/// The rounds of `r` from `states` over `den`, with the scope above the `fixed`
/// bindings each state begins with in `env`; what its limit stops goes to
/// [`Budget::unfinished`] by the chance `reach` of playing it.
fn rounds<'a, W: Weight>(
    r: &'a Repeat,
    (fixed, reach): (usize, f64),
    states: States<W>,
    den: W,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    // Each part of a round is reached by its state's chance, counted where it is
    // played ([`Budget::per_unit`]); anything else below is not known.
    let outer = std::mem::replace(&mut b.reach, f64::NAN);
    let outer_cut = std::mem::take(&mut b.cut);
    let law = rounds_from(r, (fixed, reach), states, den, env, b);
    // What this `repeat`'s limit stopped, apart from any other's.
    let cut = std::mem::replace(&mut b.cut, outer_cut);
    b.reach = outer;
    if cut != 0.0 {
        b.unfinished += reach * cut;
    }
    law
}

/// [`rounds`], with the reach and the cut of the rounds around it put aside.
fn rounds_from<'a, W: Weight>(
    r: &'a Repeat,
    (fixed, reach): (usize, f64),
    mut states: States<W>,
    mut den: W,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Law<W>, NoLaw> {
    let rounds_at = env.len() + fixed + r.init.len();
    let cache_until = !mentions(&r.until, rounds_at);
    let cache_body = !mentions(&r.body, rounds_at);
    let cache_step = !mentions(&r.step, rounds_at);
    let mut known: Map<State, Rc<Round<W>>> = Map::default();
    let apart = apart(r, env.len() + fixed);
    let mut stops_of: Map<State, Until<W>> = Map::default();
    let mut kernels: Kernels<W> = Map::default();
    let mut out = Sum {
        ways: Map::default(),
        den: W::one(),
        bodies: Map::default(),
        last: None,
    };
    let start_bits = den.bits();
    let mut primes = None;
    for round in 0..=r.limit {
        if states.is_empty() {
            break;
        }
        let last = round == r.limit;
        // Ways still going at the limit: some may be stopped by it.
        b.stopped |= last;
        let words = cost(&den);
        let at = RoundAt {
            round,
            den: &den,
            words,
            cache_until,
            cache_body,
            fixed,
            reach,
        };
        let (mut next, next_den) = match apart {
            Some(updates) if !last => {
                let ends = (&mut stops_of, &mut out);
                apart_round(r, updates, states, &at, ends, &mut kernels, env, b)?
            }
            _ => joint_round(
                r, states, &at, last, cache_step, &mut known, &mut out, env, b,
            )?,
        };
        den = next_den;
        // In floats, a state below the float's range is dropped, as a float would drop
        // it: a fight whose ties go on for ever ends when what is left of it is nothing
        // a float can say, not at its limit of rounds.
        if !W::EXACT {
            next.retain(|_, w| W::ratio(w, &den) > 0.0);
        }
        // The states' common factor divided out, so that a chain of many rounds keeps
        // its counts as small as its fractions.
        // Every fourth round: a round's common factor is seldom more than its dice's
        // (a few bits), and finding it was a tenth of a fight's time.
        if round % 4 == 0 {
            let ways: Vec<W> = next.values().cloned().collect();
            if round % 16 == 0 {
                // Found again now and then, where a round's dice bring a new prime.
                primes = None;
            }
            let g = W::common_factor_among(&den, &ways, &mut primes);
            if !g.is_one() && !g.is_zero() {
                next.values_mut().for_each(|w| *w = w.div(&g));
                den = den.div(&g);
            }
        }
        states = next;
        wide_before_the_limit(r, round, &den, start_bits)?;
    }
    let law = Law::from_map(out.ways, out.den)?;
    Ok(law.reduced())
}

/// What an operation on counts over `den` costs of the law's work: a multiply-add of
/// eight words takes about what one operation elsewhere does, its lookups with it (the
/// keep pass spends a unit in about 8 ns, a round's word about 1 ns). Counted word by
/// word, a firefight of counts of 2,000 digits was refused past the budget after 25 ms.
fn cost<W: Weight>(den: &W) -> u64 {
    den.words().div_ceil(8)
}

/// [`NoLaw::Wide`] where the states' denominator, growing as it has over the first
/// `round + 1` rounds, would pass the weight's bits before the limit: said now, so that
/// the wider run does not follow a whole narrow one (Chaos Bolt's 15 leaps took 14
/// rounds in two words, then all 15 again in four); [`NoLaw::Wider`] where four words
/// would not hold it either (Blades' rolls to 8 of a limit of 100 rounds ran three
/// times). Only where the law runs again wider: no chain is refused for it.
fn wide_before_the_limit<W: Weight>(
    r: &Repeat,
    round: u32,
    den: &W,
    start_bits: u32,
) -> Result<(), NoLaw> {
    let Some(capacity) = W::CAPACITY else {
        return Ok(());
    };
    let (now, played) = (u64::from(den.bits()), u64::from(round) + 1);
    let per_round = now.saturating_sub(u64::from(start_bits)) / played;
    let to_come = u64::from(r.limit.saturating_sub(round));
    let bits = now + per_round * to_come;
    // After one or two rounds, only a denominator set to pass four words by far: a
    // fight whose every round rolls 7 dice (Risus) took a fifth of its time working out
    // its first states' rounds in words, then again in big integers.
    if round < 2 {
        return match bits > 4 * u64::from(U256::BITS) {
            true => Err(NoLaw::Wider),
            false => Ok(()),
        };
    }
    if bits > u64::from(U256::BITS) {
        Err(NoLaw::Wider)
    } else if bits > u64::from(capacity) {
        Err(NoLaw::Wide)
    } else {
        Ok(())
    }
}

/// Where a round is played: its number, the states' denominator and its words,
/// whether the condition's ways from a state are the same every round, and how many
/// bindings that never change begin each state.
struct RoundAt<'d, W> {
    round: u32,
    den: &'d W,
    words: u64,
    cache_until: bool,
    /// Whether the body's law from a state is the same every round.
    cache_body: bool,
    fixed: usize,
    /// The chance of playing the `repeat`: a state's is this times its ways of `den`.
    reach: f64,
}

impl<W: Weight> RoundAt<'_, W> {
    /// The chance of reaching a state of `w` ways this round, times `more` ways of
    /// `of` where given.
    fn reach(&self, w: &W, more: Option<(&W, &W)>) -> f64 {
        let p = self.reach * ratio(w, self.den);
        more.map_or(p, |(m, of)| p * ratio(m, of))
    }
}

/// The mass of each state that stops this round, read by the body into `out`, and the
/// ways it goes on (of `until_den`), with the state's variables and `rounds` in `env`.
fn stop<'a, W: Weight>(
    r: &'a Repeat,
    (s, w): (&State, &W),
    at: &RoundAt<W>,
    (stops, until_den): (&W, &W),
    out: &mut Sum<W>,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<W, NoLaw> {
    if !stops.is_zero() {
        // The mass that stops here, read by the body in the state's scope: once a
        // state where it does not read `rounds` (a fight's last state, met every round).
        let known = match at.cache_body {
            true => out.bodies.get(s).cloned(),
            false => None,
        };
        let (body, mass) = match known {
            Some(body) => body,
            None => {
                env.extend_from_slice(s);
                env.push(at.round as i64);
                let (body, mass) = b.per_unit(|b| eval(&r.body, env, b));
                env.truncate(env.len() - s.len() - 1);
                let body = (Rc::new(body?), mass);
                if at.cache_body {
                    out.bodies.insert(s.clone(), body.clone());
                }
                body
            }
        };
        b.add_stopped(mass, || at.reach(w, Some((stops, until_den))));
        out.add(&w.mul(stops)?, at.den.mul(until_den)?, &body, b)?;
    }
    let mut on = until_den.clone();
    on.sub_from(stops)?;
    Ok(on)
}

/// A round from every state: each state's every joint outcome of the round's `let`s and
/// updates, then one denominator for the next round's states.
#[allow(clippy::too_many_arguments)]
fn joint_round<'a, W: Weight>(
    r: &'a Repeat,
    states: States<W>,
    at: &RoundAt<W>,
    last: bool,
    cache_step: bool,
    known: &mut Map<State, Rc<Round<W>>>,
    out: &mut Sum<W>,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<(States<W>, W), NoLaw> {
    let mut plays = Vec::with_capacity(states.len());
    for (s, w) in states {
        b.spend(REPEAT_COST * at.words)?;
        env.extend_from_slice(&s);
        env.push(at.round as i64);
        let played = play(r, &s, at, last, cache_step, known, env, b);
        env.truncate(env.len() - s.len() - 1);
        let play = played?;
        if !play.cut.is_zero() {
            b.cut += ratio(&w, at.den) * ratio(&play.cut, &play.until_den);
        }
        b.add_stopped(play.until_mass, || at.reach(&w, None));
        let goes_on = stop(r, (&s, &w), at, (&play.stops, &play.until_den), out, env, b)?;
        if play.step.is_some() {
            let on = Some((&goes_on, &play.until_den));
            b.add_stopped(play.step_mass, || at.reach(&w, on));
        }
        plays.push((w, goes_on, play));
    }
    let mut common = W::one();
    for (_, _, p) in &plays {
        if let Some((_, sd)) = &p.step {
            let d = p.until_den.mul(sd)?;
            if !common.multiple_of(&d) {
                common = common.lcm(&d)?;
            }
        }
    }
    let mut next: States<W> = sized(plays.len());
    for (w, goes_on, p) in &plays {
        let Some((to, sd)) = &p.step else { continue };
        if goes_on.is_zero() {
            continue;
        }
        // The small factors first, then one product with the long count.
        let scale = w.mul(&goes_on.mul(&common.div(&p.until_den.mul(sd)?))?)?;
        b.spend(to.len() as u64 * at.words)?;
        for (t, q) in to {
            into(&mut next, t, q, &scale)?;
        }
    }
    Ok((next, at.den.mul(&common)?))
}

/// A map of states with room for `n` of them: a round's states are made afresh each
/// round, and growing the map as they come was a twentieth of a long chain's time.
fn sized<W>(n: usize) -> States<W> {
    States::with_capacity_and_hasher(n, Default::default())
}

/// `q · scale` more ways of state `t`; a state already met takes them without its key
/// copied.
fn into<W: Weight>(next: &mut States<W>, t: &State, q: &W, scale: &W) -> Result<(), NoLaw> {
    match next.get_mut(t) {
        Some(x) => x.add_product(q, scale),
        None => {
            let mut x = W::default();
            x.add_product(q, scale)?;
            next.insert(t.clone(), x);
            Ok(())
        }
    }
}

/// The updates of a round that has no `let`s, where each state variable's update reads
/// no other state variable and not `rounds` (two sides of a duel, each losing what the
/// other rolls against it): given the state they are independent, each a law of its own
/// variable's value.
fn apart(r: &Repeat, at: usize) -> Option<&[Node]> {
    let Node::Emit(updates) = &r.step else {
        return None;
    };
    let n = updates.len();
    let alone = updates
        .iter()
        .enumerate()
        .all(|(i, u)| (0..=n).all(|j| j == i || !mentions(u, at + j)));
    alone.then_some(updates.as_slice())
}

/// A round of updates [`apart`]: the mass going on, then one pass over the states per
/// variable, each value's update law worked out once for the whole `repeat`. A duel of
/// 180 states whose updates take 9 and 11 values moves each state's ways 20 times, not
/// 99 (the fighter against the orc had no fraction: its 100 rounds passed the budget).
#[allow(clippy::too_many_arguments)]
fn apart_round<'a, W: Weight>(
    r: &'a Repeat,
    updates: &'a [Node],
    states: States<W>,
    at: &RoundAt<W>,
    (stops_of, out): (&mut Map<State, Until<W>>, &mut Sum<W>),
    kernels: &mut Kernels<W>,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<(States<W>, W), NoLaw> {
    let mut going = Vec::with_capacity(states.len());
    let mut common = W::one();
    for (s, w) in states {
        b.spend(REPEAT_COST * at.words)?;
        let ((stops, until_den), mass) = match stops_of.get(&s) {
            Some(k) if at.cache_until => k.clone(),
            _ => {
                env.extend_from_slice(&s);
                env.push(at.round as i64);
                let (u, mass) = b.per_unit(|b| until(&r.until, env, b));
                env.truncate(env.len() - s.len() - 1);
                let u = (u?, mass);
                if at.cache_until {
                    stops_of.insert(s.clone(), u.clone());
                }
                u
            }
        };
        b.add_stopped(mass, || at.reach(&w, None));
        let on = stop(r, (&s, &w), at, (&stops, &until_den), out, env, b)?;
        if on.is_zero() {
            continue;
        }
        if !common.multiple_of(&until_den) {
            common = common.lcm(&until_den)?;
        }
        going.push((s, w.mul(&on)?, until_den));
    }
    let mut cur: States<W> = sized(going.len());
    for (s, w, until_den) in going {
        cur.insert(s, w.mul(&common.div(&until_den))?);
    }
    let mut den = at.den.mul(&common)?;
    for (i, u) in updates.iter().enumerate() {
        let mut common = W::one();
        let k = at.fixed;
        // An update that does not read its own variable's value (Craps' `r = 2d6`, the
        // roll before forgotten): states that differ only there go on as one.
        if !mentions(u, env.len() + k + i) {
            let mut merged: States<W> = sized(cur.len());
            b.spend(cur.len() as u64 * at.words)?;
            for (mut s, w) in cur {
                s[k + i] = 0;
                merged.entry(s).or_default().add_to(&w)?;
            }
            cur = merged;
        }
        // An update's law from the bindings and its own variable's value.
        let key = |s: &State| -> (usize, State) {
            let own = s[k + i];
            (i, s[..k].iter().copied().chain([own]).collect())
        };
        for s in cur.keys() {
            let kernel = match kernels.entry(key(s)) {
                Entry::Occupied(k) => k.into_mut(),
                Entry::Vacant(k) => {
                    env.extend_from_slice(s);
                    env.push(at.round as i64);
                    let (law, mass) = b.per_unit(|b| eval(u, env, b));
                    env.truncate(env.len() - s.len() - 1);
                    k.insert((law?, mass))
                }
            };
            let d = &kernel.0.den;
            if !common.multiple_of(d) {
                common = common.lcm(d)?;
            }
        }
        // The states' chance before this update: each plays it by that.
        let over = den.clone();
        den = den.mul(&common)?;
        let words = cost(&den);
        let mut next: States<W> = sized(cur.len() * 2);
        for (s, w) in cur {
            let (law, mass) = &kernels[&key(&s)];
            b.add_stopped(*mass, || at.reach * ratio(&w, &over));
            b.spend(law.n.len() as u64 * words)?;
            let scale = w.mul(&common.div(&law.den))?;
            let mut t = s;
            for (v, q) in law.iter() {
                t[k + i] = v;
                into(&mut next, &t, q, &scale)?;
            }
        }
        cur = next;
    }
    Ok((cur, den))
}

/// The ways a `repeat`'s condition holds and its denominator, with what its limits
/// stopped per unit of its reach.
type Until<W> = ((W, W), [f64; 2]);

/// Each update's law by its variable's value (and the bindings'), with what its limits
/// stopped per unit of its reach.
type Kernels<W> = Map<(usize, State), (Law<W>, [f64; 2])>;

/// A pool variable's outcomes as [`pools::held_outcomes`] gives them, its chains
/// counted by its reach: it is rolled here, not opened.
fn rolled_held<'a, W: Weight>(
    spec: &'a PoolSpec,
    choice: Option<&'a crate::systems::dice::program::choice::Choice>,
    b: &mut Budget<'a, W>,
) -> Result<(Rc<pools::Outcomes<W>>, pools::Holding<'a>), NoLaw> {
    b.rolls(spec, || 1.0);
    pools::held_outcomes(spec, choice, b)
}

/// The ways a `repeat`'s condition holds, of its law's denominator.
fn until<'a, W: Weight>(
    n: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<(W, W), NoLaw> {
    let until = eval(n, env, b)?;
    let mut yes = W::default();
    for (v, w) in until.iter() {
        if v != 0 {
            yes.add_to(w)?;
        }
    }
    Ok((yes, until.den))
}

/// The states' first values: every variable's law in turn, one state per list of values.
fn start<'a, W: Weight>(
    r: &'a Repeat,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<(States<W>, W), NoLaw> {
    let mut states: States<W> = Map::default();
    states.insert(State::new(), W::one());
    let mut den = W::one();
    for n in &r.init {
        let d = eval(n, env, b)?;
        b.spend((states.len() * d.n.len()) as u64)?;
        let mut next = Map::default();
        for (s, w) in &states {
            for (v, q) in d.iter() {
                let mut t = s.clone();
                t.push(v);
                next.insert(t, w.mul(q)?);
            }
        }
        den = den.mul(&d.den)?;
        states = next;
    }
    Ok((states, den))
}

/// One state's round (its variables and `rounds` in `env`): the ways it stops, and where
/// it goes on to; at the limit every way stops.
#[allow(clippy::too_many_arguments)]
fn play<'a, W: Weight>(
    r: &'a Repeat,
    s: &State,
    at: &RoundAt<W>,
    last: bool,
    cache_step: bool,
    known: &mut Map<State, Rc<Round<W>>>,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Rc<Round<W>>, NoLaw> {
    // Shared, not copied: a state met again every round (a duel's 100) reads the same
    // round, whose places to go were cloned each time (a fifth of a battle's time).
    let cache_until = at.cache_until;
    let cached = known.get(s).cloned();
    if let Some(k) = &cached {
        if cache_until && cache_step && !last {
            return Ok(k.clone());
        }
    }
    let ((stops, until_den), until_mass) = match &cached {
        Some(k) if cache_until => ((k.stops.clone(), k.until_den.clone()), k.until_mass),
        _ => {
            let (u, mass) = b.per_unit(|b| until(&r.until, env, b));
            (u?, mass)
        }
    };
    if last {
        // At the limit every way stops, and is read by the body.
        let mut cut = until_den.clone();
        cut.sub_from(&stops)?;
        return Ok(Rc::new(Round {
            stops: until_den.clone(),
            until_den,
            step: None,
            cut,
            until_mass,
            step_mass: [0.0; 2],
        }));
    }
    if stops == until_den {
        let round = Rc::new(Round {
            stops,
            until_den,
            step: None,
            cut: W::default(),
            until_mass,
            step_mass: [0.0; 2],
        });
        if cache_until {
            // A state that always stops, met again every round its mass comes.
            known.insert(s.clone(), round.clone());
        }
        return Ok(round);
    }
    let known_step = cached.and_then(|k| k.step.clone().map(|t| (t, k.step_mass)));
    let (step, step_mass) = match known_step {
        Some(t) if cache_step => t,
        _ => {
            let mut to = Map::default();
            let (den, mass) = b.per_unit(|b| step(&r.step, env, b, &mut to));
            let den = den?;
            if at.fixed > 0 {
                // The bindings go on as they were.
                to = to
                    .into_iter()
                    .map(|(t, q)| (s[..at.fixed].iter().chain(&t).copied().collect(), q))
                    .collect();
            }
            ((to, den), mass)
        }
    };
    let round = Rc::new(Round {
        stops,
        until_den,
        step: Some(step),
        cut: W::default(),
        until_mass,
        step_mass,
    });
    if cache_until && cache_step {
        known.insert(s.clone(), round.clone());
    }
    Ok(round)
}

/// The joint law of the state after one round, into `out` over the denominator returned:
/// over the round's `let`s (enumerated as any `let` is), then the updates, independent
/// given them.
fn step<'a, W: Weight>(
    n: &'a Node,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
    out: &mut States<W>,
) -> Result<W, NoLaw> {
    let mut joint = Joint {
        states: std::mem::take(out),
        den: W::one(),
    };
    step_into(n, (&W::one(), &W::one()), env, b, &mut joint)?;
    *out = joint.states;
    Ok(joint.den)
}

/// Next states' ways over one denominator, brought to the least common multiple as parts
/// over others come (a round's `let`s over dice counts the state sets).
struct Joint<W> {
    states: States<W>,
    den: W,
}

impl<W: Weight> Joint<W> {
    /// `w / den` more of state `t`.
    fn add(&mut self, t: &State, w: &W, den: &W) -> Result<(), NoLaw> {
        if *den == self.den {
            return into_one(&mut self.states, t, w);
        }
        if !self.den.multiple_of(den) {
            let common = self.den.lcm(den)?;
            let up = common.div(&self.den);
            for v in self.states.values_mut() {
                *v = v.mul(&up)?;
            }
            self.den = common;
        }
        into_one(&mut self.states, t, &w.mul(&self.den.div(den))?)
    }
}

/// `w` more ways of state `t`.
fn into_one<W: Weight>(next: &mut States<W>, t: &State, w: &W) -> Result<(), NoLaw> {
    match next.get_mut(t) {
        Some(x) => x.add_to(w),
        None => {
            next.insert(t.clone(), w.clone());
            Ok(())
        }
    }
}

/// The state a round's updates lead to, each a number given `env`.
fn next_state<W: Weight>(
    updates: &[Node],
    env: &mut Vec<i64>,
    b: &Budget<W>,
) -> Result<State, NoLaw> {
    let t: Option<State> = updates.iter().map(|u| number(u, env, &b.held)).collect();
    t.ok_or(NoLaw::Refused(Why::Part))
}

/// A round's updates, numbers given each value of its last `let` (`a = a - (x < y)`
/// over the values of `y`): each value's next state, the ways of values in a row that
/// lead to one state added up before it is looked up (Risus's 16 totals of the
/// opposing dice lead to three states from each of its own).
fn emit_each<W: Weight>(
    updates: &[Node],
    d: &Law<W>,
    (ways, den): (&W, &W),
    env: &mut Vec<i64>,
    b: &mut Budget<W>,
    joint: &mut Joint<W>,
) -> Result<(), NoLaw> {
    let mut run: Option<(State, W)> = None;
    for (x, w) in d.iter() {
        b.spend(REPEAT_COST)?;
        env.push(x);
        let t = next_state(updates, env, b);
        env.pop();
        let t = t?;
        match &mut run {
            Some((s, acc)) if *s == t => acc.add_to(w)?,
            _ => {
                if let Some((s, acc)) = run.replace((t, w.clone())) {
                    joint.add(&s, &acc.mul(ways)?, den)?;
                }
            }
        }
    }
    match run {
        Some((s, acc)) => joint.add(&s, &acc.mul(ways)?, den),
        None => Ok(()),
    }
}

/// [`step`] below `let`s already taken, `(ways, den)` their values' chance: each value
/// of every `let` in turn, then the updates. Updates that roll nothing more are numbers
/// given the `let`s, one next state each, straight into `joint` (Risus's two rolled
/// totals made a map of next states for each pair, then merged it).
fn step_into<'a, W: Weight>(
    n: &'a Node,
    (ways, den): (&W, &W),
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
    joint: &mut Joint<W>,
) -> Result<(), NoLaw> {
    match n {
        Node::Let(bound, body) => {
            let d = eval(bound, env, b)?;
            let den = den.mul(&d.den)?;
            if let Node::Emit(v) = &**body {
                if v.iter().all(|u| b.arithmetic(u)) {
                    return emit_each(v, &d, (ways, &den), env, b, joint);
                }
            }
            for (v, w) in d.iter() {
                env.push(v);
                let went = b.within(body, w, &d.den, |b| {
                    w.mul(ways)
                        .and_then(|w| step_into(body, (&w, &den), env, b, joint))
                });
                env.pop();
                went?;
            }
            Ok(())
        }
        Node::CountedVar(c, bodies) => {
            // A pool variable whose count the state sets: the round of each count.
            let d = eval(c, env, b)?;
            b.passed(d.highest(), bodies.len());
            let den = den.mul(&d.den)?;
            for (k, w) in d.iter() {
                let body = crate::systems::dice::program::counted(bodies, k);
                // Reached by this count's chance: the bindings above are in the reach.
                let ways = w.mul(ways)?;
                b.within(body, w, &d.den, |b| {
                    step_into(body, (&ways, &den), env, b, joint)
                })?;
            }
            Ok(())
        }
        Node::LetPool {
            spec, choice, body, ..
        } => {
            // A pool variable of the round (read several ways: one read is a `let`):
            // each outcome of its dice held while the rest of the round reads them.
            let (taken, held) = rolled_held(spec, choice.as_deref(), b)?;
            let (outcomes, over) = &*taken;
            let den = den.mul(over)?;
            let at = env.len();
            for (dice, w) in outcomes {
                b.spend(1)?;
                env.push(0);
                b.held.push((at, held.held(dice)));
                let went = b.within(body, w, over, |b| {
                    w.mul(ways)
                        .and_then(|w| step_into(body, (&w, &den), env, b, joint))
                });
                b.held.pop();
                env.pop();
                went?;
            }
            Ok(())
        }
        Node::Emit(v) => {
            b.spend(REPEAT_COST)?;
            if v.iter().all(|u| b.arithmetic(u)) {
                return joint.add(&next_state(v, env, b)?, ways, den);
            }
            let laws = v
                .iter()
                .map(|n| eval(n, env, b))
                .collect::<Result<Vec<_>, _>>()?;
            let (each, over) = every_combination(&laws, REPEAT_COST, b)?;
            let den = den.mul(&over)?;
            for (t, p) in each {
                joint.add(&t, &p.mul(ways)?, &den)?;
            }
            Ok(())
        }
        _ => Err(NoLaw::Refused(Why::Part)),
    }
}
