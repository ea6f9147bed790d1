//! A `repeat` exactly: the distribution over its state variables carried round by round,
//! equal states merged, until every state has stopped or the limit is reached.

use super::*;

/// A state of a `repeat`: its variables' values.
pub(super) type State = Vec<i64>;

/// A state of a `repeat` costs about this many steps of a keep pass (a map entry
/// keyed by a vector), so that its work counts against the same bound in time.
pub(super) const REPEAT_COST: u64 = 16;

/// Most states of one `repeat` alive at once.
pub const MAX_REPEAT_STATES: usize = 200_000;

/// A `repeat` as a Markov chain: the distribution over its state round by round, the
/// mass whose condition holds (or that reaches the limit) leaving to be read by the
/// body.
pub(super) fn repeat(r: &Repeat, env: &mut Env, ledger: &mut Ledger) -> Result<Dist, TooBig> {
    let mut start: BTreeMap<State, f64> = BTreeMap::new();
    start.insert(Vec::new(), 1.0);
    for n in &r.init {
        let d = eval(n, env, ledger)?;
        let mut next = BTreeMap::new();
        for (s, p) in &start {
            for (v, q) in d.iter() {
                let mut t = s.clone();
                t.push(v);
                *next.entry(t).or_insert(0.0) += p * q;
            }
        }
        start = next;
    }
    let mut out: Option<Dist> = None;
    // A round's outcomes from a state, and whether the loop stops there, are computed
    // once per state when they do not read `rounds` (a duel visits the same state in
    // many rounds). States are numbered as they are met, so a round is a pass over
    // numbers, in the states' own order (the order of the sums, and so every bit of the
    // result, is that of a map keyed by state).
    let rounds_at = env.nums.len() + r.init.len();
    let mut seen = Seen {
        cache_step: !crate::systems::dice::program::mentions(&r.step, rounds_at),
        cache_until: !crate::systems::dice::program::mentions(&r.until, rounds_at),
        ..Seen::default()
    };
    let mut active: Vec<(usize, f64)> = start.into_iter().map(|(s, p)| (seen.id(s), p)).collect();
    // One accumulator for every round: a round touches its states only, not every
    // state met so far.
    let mut next = Next::default();
    for round in 0..=r.limit {
        for &(id, p) in &active {
            let vars = seen.states[id].len();
            for k in 0..vars {
                env.push(seen.states[id][k], Vec::new());
            }
            env.push(round as i64, Vec::new());
            let res = play_round(r, round, p, env, ledger, &mut out, &mut seen, id, &mut next);
            for _ in 0..=vars {
                env.pop();
            }
            res?;
        }
        ledger.work += REPEAT_COST * active.len() as u64;
        // Which limit ran out, by name: the states alive, or the work of every round so
        // far (65 states in round 206 are few; 206 rounds of them are the work).
        if next.touched.len() > MAX_REPEAT_STATES {
            return Err(TooBig(format!(
                "a `repeat` with {} states in round {}",
                next.touched.len(),
                round + 1
            )));
        }
        if ledger.work > MAX_WORK {
            return Err(TooBig(format!(
                "a `repeat` whose rounds pass the exact work of {MAX_WORK} units by round {} ({} states alive)",
                round + 1,
                next.touched.len()
            )));
        }
        if next.touched.is_empty() {
            break;
        }
        let states = &seen.states;
        next.touched.sort_by(|a, b| states[*a].cmp(&states[*b]));
        active = next.take();
    }
    Ok(out.unwrap_or_else(|| Dist::point(0)).trim())
}

/// The states a `repeat` has met, numbered, with what is known about each.
#[derive(Default)]
pub(super) struct Seen {
    ids: Map<State, usize>,
    states: Vec<State>,
    /// Per state: whether the loop stops there (when `until` does not read `rounds`).
    until: Vec<Option<Stop>>,
    /// Per state: where a round from there leads (when the round does not read `rounds`).
    step: Vec<Option<Transition>>,
    cache_step: bool,
    cache_until: bool,
}

impl Seen {
    fn id(&mut self, s: State) -> usize {
        if let Some(&i) = self.ids.get(&s) {
            return i;
        }
        let i = self.states.len();
        self.ids.insert(s.clone(), i);
        self.states.push(s);
        self.until.push(None);
        self.step.push(None);
        i
    }
}

/// The mass of the next round, per state id, and which ids have any.
#[derive(Default)]
pub(super) struct Next {
    mass: Vec<f64>,
    touched: Vec<usize>,
    stamp: Vec<bool>,
}

impl Next {
    /// The round's masses in the order of `touched`, leaving every entry empty.
    fn take(&mut self) -> Vec<(usize, f64)> {
        let out = self
            .touched
            .iter()
            .map(|&i| {
                self.stamp[i] = false;
                (i, std::mem::take(&mut self.mass[i]))
            })
            .collect();
        self.touched.clear();
        out
    }

    fn add(&mut self, id: usize, p: f64) {
        if id >= self.mass.len() {
            self.mass.resize(id + 1, 0.0);
            self.stamp.resize(id + 1, false);
        }
        if !self.stamp[id] {
            self.stamp[id] = true;
            self.touched.push(id);
        }
        self.mass[id] += p;
    }
}

/// Whether a state's loop stops, per unit of mass, and what evaluating `until` reported.
#[derive(Clone, Copy)]
pub(super) struct Stop {
    yes: f64,
    capped: f64,
    unfinished: f64,
}

/// One state (its mass `p`, its variables in `env`) in one round: the mass whose
/// condition holds is read by the body into `out`, the rest plays the round into `next`.
#[allow(clippy::too_many_arguments)]
pub(super) fn play_round(
    r: &Repeat,
    round: u32,
    p: f64,
    env: &mut Env,
    ledger: &mut Ledger,
    out: &mut Option<Dist>,
    seen: &mut Seen,
    id: usize,
    next: &mut Next,
) -> Result<(), TooBig> {
    let yes = match seen.until[id] {
        Some(stop) => {
            ledger.cap(p * stop.capped);
            ledger.unfinished += ledger.weight * p * stop.unfinished;
            stop.yes
        }
        None if seen.cache_until => {
            // Computed at weight 1: what it reports is per unit of mass.
            let mut inner = Ledger {
                work: ledger.work,
                cancel: ledger.cancel.clone(),
                ..Ledger::default()
            };
            let until = eval(&r.until, env, &mut inner)?;
            ledger.work = inner.work;
            ledger.most_dice = ledger.most_dice.max(inner.most_dice);
            let stop = Stop {
                yes: until.iter().filter(|(v, _)| *v != 0).map(|(_, q)| q).sum(),
                capped: inner.capped,
                unfinished: inner.unfinished,
            };
            ledger.cap(p * stop.capped);
            ledger.unfinished += ledger.weight * p * stop.unfinished;
            seen.until[id] = Some(stop);
            stop.yes
        }
        None => {
            let until = ledger.within(p, |ledger| eval(&r.until, env, ledger))?;
            until.iter().filter(|(v, _)| *v != 0).map(|(_, q)| q).sum()
        }
    };
    let done = if round == r.limit {
        ledger.unfinished += ledger.weight * p * (1.0 - yes);
        1.0
    } else {
        yes
    };
    if done > 0.0 {
        let body = ledger.within(p * done, |ledger| eval(&r.body, env, ledger))?;
        mix(out, &body, p * done, ledger)?;
    }
    if done < 1.0 {
        let left = p * (1.0 - done);
        let fresh = match seen.step[id] {
            Some(_) => None,
            None => {
                // Computed at weight 1: what it reports is per round played from here.
                let mut inner = Ledger {
                    work: ledger.work,
                    cancel: ledger.cancel.clone(),
                    ..Ledger::default()
                };
                let mut outcomes = BTreeMap::new();
                step(&r.step, 1.0, env, &mut inner, &mut outcomes)?;
                ledger.work = inner.work;
                ledger.most_dice = ledger.most_dice.max(inner.most_dice);
                Some(Transition {
                    outcomes: outcomes.into_iter().map(|(s, q)| (seen.id(s), q)).collect(),
                    capped: inner.capped,
                    unfinished: inner.unfinished,
                })
            }
        };
        let t = fresh.as_ref().unwrap_or_else(|| {
            seen.step[id]
                .as_ref()
                .expect("a state's transition is kept or fresh")
        });
        ledger.cap(left * t.capped);
        ledger.unfinished += ledger.weight * left * t.unfinished;
        ledger.work += t.outcomes.len() as u64;
        for &(s, q) in &t.outcomes {
            next.add(s, left * q);
        }
        if let (Some(t), true) = (fresh, seen.cache_step) {
            seen.step[id] = Some(t);
        }
    }
    Ok(())
}

/// A round played from one state: where it leads (by state id), and what it reports
/// per unit of mass.
pub(super) struct Transition {
    outcomes: Vec<(usize, f64)>,
    capped: f64,
    unfinished: f64,
}

/// The joint distribution of the state after one round: over the round's `let`s
/// (enumerated as any `let` is), then the updates, independent given them.
pub(super) fn step(
    n: &Node,
    w: f64,
    env: &mut Env,
    ledger: &mut Ledger,
    out: &mut BTreeMap<State, f64>,
) -> Result<(), TooBig> {
    match n {
        Node::Let(bound, body) => {
            let d = eval(bound, env, ledger)?;
            for (v, p) in d.iter() {
                env.push(v, Vec::new());
                let r = ledger.within(p, |ledger| step(body, w * p, env, ledger, out));
                env.pop();
                r?;
            }
        }
        Node::LetPool {
            spec, body, choice, ..
        } => {
            over_pool(
                spec,
                choice.as_deref(),
                env,
                ledger,
                &mut |env, ledger, p| step(body, w * p, env, ledger, out),
            )?;
        }
        Node::CountedVar(c, bodies) => {
            let d = eval(c, env, ledger)?;
            for (k, p) in d.iter_nonzero() {
                ledger.most_dice = ledger.most_dice.max(k);
                let body = crate::systems::dice::program::counted(bodies, k);
                ledger.within(p, |ledger| step(body, w * p, env, ledger, out))?;
            }
        }
        Node::Emit(v) => {
            let mut joint: Vec<(State, f64)> = vec![(Vec::new(), w)];
            for n in v {
                let d = eval(n, env, ledger)?;
                ledger.work += REPEAT_COST * (joint.len() * d.p.len()) as u64;
                if ledger.work > MAX_WORK {
                    return Err(TooBig(format!(
                        "a `repeat`'s rounds with too many outcomes: past the exact work of {MAX_WORK} units"
                    )));
                }
                joint = joint
                    .iter()
                    .flat_map(|(s, p)| {
                        d.iter().map(move |(x, q)| {
                            let mut t = s.clone();
                            t.push(x);
                            (t, p * q)
                        })
                    })
                    .collect();
            }
            for (s, p) in joint {
                *out.entry(s).or_insert(0.0) += p;
            }
        }
        _ => {}
    }
    Ok(())
}
