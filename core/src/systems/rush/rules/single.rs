//! One unit's own tests: a single roll (the Throw, the armour check, the graded Pick Up
//! and Stand Up) and a chain of (123) tests in one action (Dashes, an Evade). Exact: the
//! pool's pmf, or the chance of passing multiplied down the chain.

use super::Tally;
use crate::kernels::{Pool, Rng};
use crate::model::{Compiled, Headline, Metric, Trial};
use crate::pmf::{pool_pmf_of, Pmf, Prob, Ratio};

/// One pool; the state is its successes.
struct Single(Pool);

impl Trial for Single {
    fn states(&self) -> usize {
        self.0.cap as usize + 1
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        self.0.roll(rng) as usize
    }
}

/// One roll of `pool`: `result` reads its successes, `successes` names their count.
fn single(
    name: &str,
    desc: String,
    pool: Pool,
    result: Metric,
    successes: &str,
    headline: Headline,
) -> Compiled {
    let mut tally = Tally::default();
    let Pmf(exact) = tally.pmf(&pool, &1.0);
    let cap = pool.cap as usize;
    let count = Metric::numeric(
        successes,
        "successes rolled",
        cap + 1,
        (0..=cap as u16).collect(),
    )
    .fold_top(pool.exploding());
    Compiled::new(
        name,
        desc,
        Box::new(Single(pool)),
        vec![result, count],
        headline,
    )
    .exact(Some(exact))
    .fractions_later(move || pool_pmf_of::<Ratio>(&pool).0)
    .capped(tally.capped, None)
}

/// Successes of `pool` (0 to its cap) read through `f`.
fn by_successes(pool: &Pool, f: impl Fn(usize) -> u16) -> Vec<u16> {
    (0..=pool.cap as usize).map(f).collect()
}

/// A (1) test graded 0 / 1 / 2+ successes; the headline counts 1 or more.
pub(super) fn graded(
    name: &str,
    desc: String,
    pool: Pool,
    labels: [&str; 3],
    headline: &str,
) -> Compiled {
    let result = Metric::categorical(
        "result",
        "0 successes / 1 / 2 or more",
        &labels,
        by_successes(&pool, |s| s.min(2) as u16),
    );
    let headline = Headline {
        label: headline.into(),
        metric: 0,
        values: vec![1, 2],
        against: Vec::new(),
    };
    single(name, desc, pool, result, "successes", headline)
}

/// A Throw: accurate with 1 success or more.
pub(super) fn throw(name: &str, desc: String, pool: Pool) -> Compiled {
    let result = Metric::categorical(
        "result",
        "0 successes = inaccurate (scatters), 1+ = accurate",
        &["inaccurate", "accurate"],
        by_successes(&pool, |s| (s >= 1) as u16),
    );
    let headline = Headline {
        label: "P(accurate)".into(),
        metric: 0,
        values: vec![1],
        against: Vec::new(),
    };
    single(name, desc, pool, result, "throw_successes", headline)
}

/// An armour check against `hits`: each success cancels one, the rest are turns out of
/// play.
pub(super) fn armour(name: &str, desc: String, pool: Pool, hits: u32) -> Compiled {
    let result = Metric::numeric(
        "turns_out_of_play",
        "hits not cancelled by armour successes (0 = only knocked down)",
        hits as usize + 1,
        by_successes(&pool, |s| hits.saturating_sub(s as u32) as u16),
    );
    let headline = Headline {
        label: "P(0 turns out)".into(),
        metric: 0,
        values: vec![0],
        against: Vec::new(),
    };
    single(name, desc, pool, result, "armour_successes", headline)
}

/// Consecutive (123) tests of one action; the state is how many passed before the first
/// failure (the unit falls over in that hex) or all of them.
struct Chain {
    pools: Vec<Pool>,
    needs: Vec<u32>,
}

impl Trial for Chain {
    fn states(&self) -> usize {
        self.pools.len() + 1
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        for (i, (p, &need)) in self.pools.iter().zip(&self.needs).enumerate() {
            if p.roll(rng) < need {
                return i;
            }
        }
        self.pools.len()
    }
}

/// Each of `pools` in turn needing the successes in `needs`; the first failure ends the
/// action with the unit fallen over.
pub(super) fn chain(name: &str, desc: String, pools: Vec<Pool>, needs: Vec<u32>) -> Compiled {
    let k = pools.len();
    let mut tally = Tally::default();
    let exact = chain_pmf::<f64>(&pools, &needs, &mut tally);
    let fell: Vec<u16> = (0..=k).map(|s| (s == k) as u16).collect();
    Compiled::new(
        name,
        desc,
        Box::new(Chain {
            pools: pools.clone(),
            needs: needs.clone(),
        }),
        vec![
            Metric::categorical(
                "result",
                "whether every test of the action passed",
                &["falls over", "stays up"],
                fell,
            ),
            Metric::numeric(
                "tests_passed",
                "tests passed before the first failure",
                k + 1,
                (0..=k as u16).collect(),
            ),
        ],
        Headline {
            label: "P(stays up)".into(),
            metric: 0,
            values: vec![1],
            against: Vec::new(),
        },
    )
    .exact(Some(exact))
    .fractions_later(move || chain_pmf::<Ratio>(&pools, &needs, &mut Tally::unkept()))
    .capped(tally.capped, None)
}

/// How many of `pools`' tests pass before the first failure: each passes with its
/// chance of `needs` successes, reached if every test before it passed.
fn chain_pmf<W: Prob>(pools: &[Pool], needs: &[u32], tally: &mut Tally) -> Vec<W> {
    let k = pools.len();
    let mut exact = vec![W::zero(); k + 1];
    let mut reach = W::one();
    for (i, (p, &need)) in pools.iter().zip(needs).enumerate() {
        let pass = tally.pmf(p, &reach).at_least(need as usize);
        exact[i] = reach.clone() * (W::one() - pass.clone());
        reach = reach * pass;
    }
    exact[k] = reach;
    exact
}
