//! The ball in the air: Pick Up then the free Throw, and the pass (Throw then Catch, the
//! Catch pool chained from the Throw's successes). Exact: the second test summed over
//! the first one's successes.

use super::{describe_pool, CatchPool, Rules, Side, Tally};
use crate::kernels::{Pool, Rng};
use crate::model::{Compiled, Headline, Metric, Radix, Trial};
use crate::pmf::{Prob, Ratio};

/// Pick Up, then the free Throw that 2+ successes give. State: (pick-up successes
/// folded to 0 / 1 / 2+, throw successes); no Throw is rolled below 2.
struct PickThrow {
    pick: Pool,
    throw: Pool,
}

impl Trial for PickThrow {
    fn states(&self) -> usize {
        3 * (self.throw.cap as usize + 1)
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let p = self.pick.roll(rng).min(2) as usize;
        let t = if p == 2 {
            self.throw.roll(rng) as usize
        } else {
            0
        };
        p * (self.throw.cap as usize + 1) + t
    }
}

/// `side` picks up with `pick`; with 2+ successes it throws `range` hexes with `throw`.
pub(super) fn pick_up_throw(
    name: &str,
    side: &Side,
    pick: Pool,
    throw: Pool,
    range: u32,
) -> Compiled {
    let rx = Radix(vec![3, throw.cap as usize + 1]);
    let mut tally = Tally::default();
    let exact = pick_throw_pmf::<f64>(pick, throw, &mut tally);
    let mut result = Vec::new();
    let mut tsucc = Vec::new();
    for s in 0..rx.size() {
        let v = rx.decode(s);
        result.push(match v[0] {
            0 => 0,
            1 => 1,
            _ => 2 + (v[1] >= 1) as u16,
        });
        tsucc.push(v[1] as u16);
    }
    let desc = format!(
        "{} picks up ({}), then with 2+ throws {range} hexes ({})",
        side.unit.name,
        describe_pool(&pick, side.unit.skill),
        describe_pool(&throw, side.unit.skill)
    );
    Compiled::new(
        name,
        desc,
        Box::new(PickThrow { pick, throw }),
        vec![
            Metric::categorical(
                "result",
                "pick up 0 = scatters; 1 = picked up, action ends; 2+ = free Throw, 0 = inaccurate, 1+ = accurate",
                &["ball scatters", "picked up, no throw", "throw inaccurate", "throw accurate"],
                result,
            ),
            Metric::numeric("throw_successes", "successes rolled (0 when no throw)", rx.0[1], tsucc),
        ],
        Headline {
            label: "P(accurate throw)".into(),
            metric: 0,
            values: vec![3],
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || pick_throw_pmf::<Ratio>(pick, throw, &mut Tally::unkept()))
    .capped(tally.capped, None)
}

/// [`pick_up_throw`]'s states: the pick-up's successes (0, 1, 2+), then the throw's.
fn pick_throw_pmf<W: Prob>(pick: Pool, throw: Pool, tally: &mut Tally) -> Vec<W> {
    let rx = Radix(vec![3, throw.cap as usize + 1]);
    let pp = tally.pmf(&pick, &W::one());
    let mut exact = vec![W::zero(); rx.size()];
    exact[rx.encode(&[0, 0])] = pp.p(0);
    exact[rx.encode(&[1, 0])] = pp.p(1);
    let p2 = pp.at_least(2);
    for (t, q) in tally.pmf(&throw, &p2).0.into_iter().enumerate() {
        exact[rx.encode(&[2, t])] += p2.clone() * q;
    }
    exact
}

/// Throw then Catch. State: (throw successes, catch successes); no Catch is rolled after
/// an inaccurate throw.
struct PassTrial {
    throw: Pool,
    /// The Catch pool for each number of throw successes.
    catch: Vec<Pool>,
    catch_states: usize,
}

impl Trial for PassTrial {
    fn states(&self) -> usize {
        (self.throw.cap as usize + 1) * self.catch_states
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let t = self.throw.roll(rng) as usize;
        let c = if t == 0 {
            0
        } else {
            self.catch[t].roll(rng) as usize
        };
        t * self.catch_states + c
    }
}

/// `thrower` throws `range` hexes to `catcher`, who catches with the Catch pool the
/// Throw's successes make.
pub(super) fn pass(
    name: &str,
    thrower: &Side,
    catcher: &Side,
    range: u32,
    moved: bool,
    rules: &Rules,
) -> Compiled {
    let throw = thrower.throw_pool(range, moved, false, rules);
    let ct = throw.cap as usize;
    let catch: Vec<Pool> = (0..=ct as u32)
        .map(|t| catcher.catch_pool(t, rules))
        .collect();
    let catch_states = catch.iter().map(|p| p.cap as usize + 1).max().unwrap_or(1);
    let rx = Radix(vec![ct + 1, catch_states]);
    let mut tally = Tally::default();
    let exact = pass_pmf::<f64>(throw, &catch, catch_states, &mut tally);
    let mut result = Vec::new();
    let mut tsucc = Vec::new();
    for s in 0..rx.size() {
        let v = rx.decode(s);
        result.push(if v[0] == 0 { 0 } else { 1 + v[1].min(2) } as u16);
        tsucc.push(v[0] as u16);
    }
    let desc = format!(
        "{} passes {range} hexes to {}: throw {}, catch with {} dice at {}+",
        thrower.unit.name,
        catcher.unit.name,
        describe_pool(&throw, thrower.unit.skill),
        match rules.catch_pool {
            CatchPool::ThrowSuccesses => "the throw's successes as",
            CatchPool::ThreePlusThrow => "3 + the throw's successes as",
        },
        catcher.unit.skill
    );
    Compiled::new(
        name,
        desc,
        Box::new(PassTrial {
            throw,
            catch: catch.clone(),
            catch_states,
        }),
        vec![
            Metric::categorical(
                "result",
                "throw 0 = inaccurate; catch 0 = scatters, 1 = caught, 2+ = caught + free Run or Throw",
                &["inaccurate", "dropped", "caught", "caught + free action"],
                result,
            ),
            Metric::numeric("throw_successes", "successes rolled", ct + 1, tsucc),
        ],
        Headline {
            label: "P(caught)".into(),
            metric: 0,
            values: vec![2, 3],
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || pass_pmf::<Ratio>(throw, &catch, catch_states, &mut Tally::unkept()))
    .capped(tally.capped, None)
}

/// [`pass`]'s states: the throw's successes, then the catch's (none after a miss).
fn pass_pmf<W: Prob>(
    throw: Pool,
    catch: &[Pool],
    catch_states: usize,
    tally: &mut Tally,
) -> Vec<W> {
    let ct = throw.cap as usize;
    let rx = Radix(vec![ct + 1, catch_states]);
    let pt = tally.pmf(&throw, &W::one());
    let mut exact = vec![W::zero(); rx.size()];
    exact[rx.encode(&[0, 0])] = pt.p(0);
    for t in 1..=ct {
        let pc = tally.pmf(&catch[t], &pt.p(t));
        for (c, q) in pc.0.into_iter().enumerate() {
            exact[rx.encode(&[t, c])] += pt.p(t) * q;
        }
    }
    exact
}
