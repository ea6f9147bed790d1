//! A `repeat` with integer weights: the float engine's Markov chain
//! ([`super::super::repeat`]), each state's mass a count of ways over one denominator
//! per round, so that a chain stopped at its limit has the limit's own fraction (a
//! reroll-until chain whose 100-round limit moves its value by 1e-31 is not the fraction
//! of the unlimited chain that the floats would be read as).

use super::*;
use crate::systems::dice::program::{mentions, Repeat};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A state of a `repeat`: its variables' values.
type State = Vec<i64>;

/// Ways of each state, over one denominator.
type States<W> = BTreeMap<State, W>;

/// What a round does from one state, when it does not read `rounds`: worked out once.
#[derive(Clone)]
struct Round<W> {
    /// Ways the loop stops here (its condition holds), of `until_den`.
    stops: W,
    until_den: W,
    /// Where a round from here leads, of `step_den`.
    step: Option<(States<W>, W)>,
}

/// Sub-probabilities summed from parts over different denominators: `ways / den` in
/// all, each part brought to their least common multiple as it comes.
struct Sum<W> {
    ways: Map<i64, W>,
    den: W,
}

impl<W: Weight> Sum<W> {
    /// Adds `w / over` of `part`.
    fn add(&mut self, w: &W, over: &W, part: &Law<W>, b: &mut Budget<W>) -> Result<(), NoLaw> {
        b.spend(2 * part.n.len() as u64 + 8)?;
        let den = over.mul(&part.den)?;
        if !self.den.multiple_of(&den) {
            let common = self.den.lcm(&den)?;
            let up = common.div(&self.den);
            for v in self.ways.values_mut() {
                *v = v.mul(&up)?;
            }
            self.den = common;
        }
        let scale = w.mul(&self.den.div(&den))?;
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
    let (mut states, mut den) = start(r, env, b)?;
    let start_words = den.words();
    let rounds_at = env.len() + r.init.len();
    let cache_until = !mentions(&r.until, rounds_at);
    let cache_step = !mentions(&r.step, rounds_at);
    let mut known: Map<State, Rc<Round<W>>> = Map::default();
    let mut out = Sum {
        ways: Map::default(),
        den: W::one(),
    };
    for round in 0..=r.limit {
        if states.is_empty() {
            break;
        }
        let left_before = b.left;
        let last = round == r.limit;
        // Every state's round, then one denominator for the next round's states.
        let mut plays = Vec::with_capacity(states.len());
        // An operation on counts of many words costs as many.
        let words = den.words();
        for (s, w) in states {
            b.spend(super::super::repeat::REPEAT_COST * words)?;
            env.extend_from_slice(&s);
            env.push(round as i64);
            let played = play(r, &s, last, cache_until, cache_step, &mut known, env, b);
            env.truncate(env.len() - s.len() - 1);
            let play = played?;
            if !play.stops.is_zero() {
                // The mass that stops here, read by the body in the state's scope.
                env.extend_from_slice(&s);
                env.push(round as i64);
                let body = eval(&r.body, env, b);
                env.truncate(env.len() - s.len() - 1);
                out.add(&w.mul(&play.stops)?, &den.mul(&play.until_den)?, &body?, b)?;
            }
            plays.push((w, play));
        }
        let mut common = W::one();
        for (_, p) in &plays {
            if let Some((_, sd)) = &p.step {
                let d = p.until_den.mul(sd)?;
                if !common.multiple_of(&d) {
                    common = common.lcm(&d)?;
                }
            }
        }
        let mut next: States<W> = BTreeMap::new();
        for (w, p) in &plays {
            let Some((to, sd)) = &p.step else { continue };
            let mut goes_on = p.until_den.clone();
            goes_on.sub_from(&p.stops)?;
            if goes_on.is_zero() {
                continue;
            }
            let scale = w.mul(&goes_on)?.mul(&common.div(&p.until_den.mul(sd)?))?;
            b.spend(to.len() as u64 * words)?;
            for (t, q) in to {
                // A state already met takes the ways without its key copied.
                match next.get_mut(t) {
                    Some(x) => x.add_product(q, &scale)?,
                    None => {
                        let mut x = W::default();
                        x.add_product(q, &scale)?;
                        next.insert(t.clone(), x);
                    }
                }
            }
        }
        den = den.mul(&common)?;
        // The states' common factor divided out, so that a chain of many rounds keeps
        // its counts as small as its fractions.
        let ways: Vec<W> = next.values().cloned().collect();
        let g = W::common_factor(&den, &ways);
        if !g.is_one() && !g.is_zero() {
            next.values_mut().for_each(|w| *w = w.div(&g));
            den = den.div(&g);
        }
        states = next;
        // The rounds to come cost this one's each per word of their counts, whose words
        // grow as they have grown so far: where that passes what is left, stop now
        // rather than spend the budget for nothing (a duel's 100 rounds are seen to be
        // too many in its first few).
        if !states.is_empty() {
            let spent = (left_before - b.left) as f64 / words as f64;
            let to_come = f64::from(r.limit - round);
            let rate = (den.words() - start_words) as f64 / f64::from(round + 1);
            let words_to_come = to_come * den.words() as f64 + rate * to_come * to_come / 2.0;
            if spent * words_to_come > b.left as f64 {
                return Err(NoLaw::Spent);
            }
        }
    }
    let law = Law::from_map(out.ways, out.den)?;
    Ok(law.reduced())
}

/// The states' first values: every variable's law in turn, one state per list of values.
fn start<'a, W: Weight>(
    r: &'a Repeat,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<(States<W>, W), NoLaw> {
    let mut states: States<W> = BTreeMap::new();
    states.insert(Vec::new(), W::one());
    let mut den = W::one();
    for n in &r.init {
        let d = eval(n, env, b)?;
        b.spend((states.len() * d.n.len()) as u64)?;
        let mut next = BTreeMap::new();
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
    last: bool,
    cache_until: bool,
    cache_step: bool,
    known: &mut Map<State, Rc<Round<W>>>,
    env: &mut Vec<i64>,
    b: &mut Budget<'a, W>,
) -> Result<Rc<Round<W>>, NoLaw> {
    // Shared, not copied: a state met again every round (a duel's 100) reads the same
    // round, whose places to go were cloned each time (a fifth of a battle's time).
    let cached = known.get(s).cloned();
    if let Some(k) = &cached {
        if cache_until && cache_step && !last {
            return Ok(k.clone());
        }
    }
    let (stops, until_den) = match &cached {
        Some(k) if cache_until => (k.stops.clone(), k.until_den.clone()),
        _ => {
            let until = eval(&r.until, env, b)?;
            let mut yes = W::default();
            for (v, w) in until.iter() {
                if v != 0 {
                    yes.add_to(w)?;
                }
            }
            (yes, until.den)
        }
    };
    if last {
        // At the limit every way stops, and is read by the body.
        return Ok(Rc::new(Round {
            stops: until_den.clone(),
            until_den,
            step: None,
        }));
    }
    if stops == until_den {
        return Ok(Rc::new(Round {
            stops,
            until_den,
            step: None,
        }));
    }
    let step = match cached.and_then(|k| k.step.clone()) {
        Some(t) if cache_step => t,
        _ => {
            let mut to = BTreeMap::new();
            let den = step(&r.step, env, b, &mut to)?;
            (to, den)
        }
    };
    let round = Rc::new(Round {
        stops,
        until_den,
        step: Some(step),
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
    match n {
        Node::Let(bound, body) => {
            let d = eval(bound, env, b)?;
            let mut parts = Vec::new();
            let mut common = W::one();
            for (v, w) in d.iter() {
                let mut sub = BTreeMap::new();
                env.push(v);
                let den = step(body, env, b, &mut sub);
                env.pop();
                let den = den?;
                if !common.multiple_of(&den) {
                    common = common.lcm(&den)?;
                }
                parts.push((w.clone(), sub, den));
            }
            for (w, sub, den) in parts {
                let scale = w.mul(&common.div(&den))?;
                b.spend(sub.len() as u64)?;
                for (t, q) in sub {
                    out.entry(t).or_default().add_product(&q, &scale)?;
                }
            }
            d.den.mul(&common)
        }
        Node::Emit(v) => {
            let mut joint: Vec<(State, W)> = vec![(Vec::new(), W::one())];
            let mut den = W::one();
            for n in v {
                let d = eval(n, env, b)?;
                b.spend(super::super::repeat::REPEAT_COST * (joint.len() * d.n.len()) as u64)?;
                let mut next = Vec::with_capacity(joint.len() * d.n.len());
                for (s, p) in &joint {
                    for (x, q) in d.iter() {
                        let mut t = s.clone();
                        t.push(x);
                        next.push((t, p.mul(q)?));
                    }
                }
                joint = next;
                den = den.mul(&d.den)?;
            }
            for (s, p) in joint {
                out.entry(s).or_default().add_to(&p)?;
            }
            Ok(den)
        }
        _ => Err(NoLaw::Refused),
    }
}
