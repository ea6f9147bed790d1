//! Slams and Steals: the actor's pool against the Slamback or the Dodge, then the armour
//! check of whoever a double knocked down. Exact: the two pools are independent, so the
//! joint distribution is their product, each double followed by the armour pmf. Monte
//! Carlo rolls the same dice, through whichever fast path the pools allow ([`Joint`],
//! packed words, exploding tables or die by die).

use super::{capped, classify, describe_pool, DoubleRule, Response, Rules, Side, Test};
use crate::cancel::Cancel;
use crate::kernels::{pow6, Digits, ExplodingPools, Packed4, Pool, Rng, WORD_DICE};
use crate::model::{Compiled, Headline, Metric, Radix, Trial};
use crate::pmf::{pool_pmf, pool_pmf_of, Prob, Ratio};

/// The opposed-test result labels, in state order.
fn opposed_labels(response: Response) -> [&'static str; 5] {
    match response {
        Response::Slamback => ["draw", "win", "double", "slamback win", "slamback double"],
        Response::Dodge => ["draw", "win", "double", "dodge win", "dodge double"],
    }
}

/// Slam or Steal against Slamback or Dodge, through to the armour check.
/// State: (actor successes, responder successes, turns out of play of whoever was
/// knocked down).
struct Opposed {
    a: Pool,
    d: Pool,
    /// Armour tested by nobody (no dice), by the responder (knocked down by the
    /// actor's double) and by the actor (knocked down by a Slamback double).
    armours: [Pool; 3],
    rule: DoubleRule,
    responder_knocks_down: bool,
    /// Whether the actor's double knocks down (Slam yes, Steal takes the ball instead).
    actor_knocks_down: bool,
    radix: [usize; 3],
    /// Both sides from one group of dice, when they are small enough.
    joint: Option<Joint>,
    /// All four pools from one draw, when they are small enough.
    packed: Option<Packed4>,
    /// The actor's, the responder's, the responder's armour and the actor's armour,
    /// read through tables when they explode.
    exploding: Option<ExplodingPools>,
    /// For the packed path, per (a, d) with a, d <= 5: the state of (a, d, 0) in the low
    /// 16 bits, the hits in bits 16..24, whose armour applies in bits 24..: 0 none,
    /// 1 the responder's, 2 the actor's. Replaces the outcome branches with one lookup.
    outcome: [u32; 36],
    /// For the exploding pools' successes (each below 32), at `a * 32 + d`: the state of
    /// (a, d, 0) in the low 16 bits; how far to shift both armour pools' reads (see
    /// [`ExplodingPools::armour_pair`]) to bring the one that counts to the low byte, in
    /// bits 16..21; a mask of that byte, 0 when nobody is knocked down, in bits 24..32;
    /// and the hits in bits 32..40.
    wide: Box<[u64; 1024]>,
}

impl Opposed {
    /// Whom `a` successes against `d` knock down, as [`classify`] reads the double but
    /// without a branch on the dice: the hits, and 0 (nobody), 1 (the responder) or 2
    /// (the actor).
    #[inline(always)]
    fn knocked(&self, a: u32, d: u32) -> (u32, usize) {
        let (w, l) = (a.max(d), a.min(d));
        let double = (w > l)
            & match self.rule {
                DoubleRule::Twice => w >= 2 * l,
                DoubleRule::Margin2 => w - l >= 2,
            };
        let down_d = double & (a > d) & self.actor_knocks_down;
        let down_a = double & (d > a) & self.responder_knocks_down;
        (
            (w - l) * (down_d | down_a) as u32,
            down_d as usize + 2 * down_a as usize,
        )
    }

    /// Per (a, d), at `a * side + d`: the state of (a, d, 0) in the low 16 bits, the hits
    /// in bits 16..24, whose armour applies in bits 24..: 0 none, 1 the responder's, 2 the
    /// actor's.
    fn outcome_table(&self, side: u32) -> Vec<u32> {
        let mut t = vec![0u32; (side * side) as usize];
        for a in 0..side {
            for d in 0..side {
                let base = (a as usize * self.radix[1] + d as usize) * self.radix[2];
                if a as usize >= self.radix[0] || d as usize >= self.radix[1] {
                    continue; // unreachable for these pools
                }
                let (hits, which) = match classify(self.rule, a, d) {
                    2 if self.actor_knocks_down => (a - d, 1),
                    4 if self.responder_knocks_down => (d - a, 2),
                    _ => (0, 0),
                };
                t[(a * side + d) as usize] = base as u32 | hits << 16 | which << 24;
            }
        }
        t
    }
}

/// The trial of an opposed test, with whichever fast path its pools allow.
fn opposed_trial(
    a: Pool,
    d: Pool,
    d_armour: Pool,
    a_armour: Pool,
    rules: &Rules,
    responder_knocks_down: bool,
    actor_knocks_down: bool,
) -> Opposed {
    let (ca, cd) = (a.cap as usize, d.cap as usize);
    let mut o = Opposed {
        a,
        d,
        armours: [
            Pool {
                dice: 0,
                ..d_armour
            },
            d_armour,
            a_armour,
        ],
        rule: rules.double_rule,
        responder_knocks_down,
        actor_knocks_down,
        radix: [ca + 1, cd + 1, ca.max(cd) + 1],
        joint: None,
        packed: Packed4::new([&a, &d, &d_armour, &a_armour]),
        exploding: ExplodingPools::new([a, d, d_armour, a_armour]).filter(|_| a.exploding()),
        outcome: [0; 36],
        wide: Box::new([0; 1024]),
    };
    o.outcome = o.outcome_table(6).try_into().expect("36 outcomes");
    let outcomes = o.outcome_table(32);
    for (w, e) in o.wide.iter_mut().zip(outcomes) {
        let (base, hits, which) = (e & 0xffff, (e >> 16) & 0xff, e >> 24);
        let (shift, mask) = match which {
            0 => (0, 0),
            1 => (0, 0xff),
            _ => (8, 0xff),
        };
        *w = (base | shift << 16 | mask << 24) as u64 | (hits as u64) << 32;
    }
    o.joint = Joint::new(&o);
    o
}

impl Opposed {
    /// `trials` trials of exploding pools, two to a word of armour dice.
    #[inline(never)]
    fn run_exploding(&self, p: &ExplodingPools, rng_out: &mut Rng, trials: u64, hist: &mut [u64]) {
        // A generator of its own, whose address no call out of line takes (the long
        // explosions are handed it by value), so that it stays in registers.
        let mut local = rng_out.clone();
        let rng = &mut local;
        for _ in 0..trials / 2 {
            let mut arm = Digits::draw(rng, WORD_DICE);
            hist[self.exploding_trial(p, rng, &mut arm)] += 1;
            hist[self.exploding_trial(p, rng, &mut arm)] += 1;
        }
        *rng_out = local;
        if trials % 2 == 1 {
            hist[self.sample(rng_out)] += 1;
        }
    }

    /// A trial of exploding pools: both sides from one word, and the armour from `arm`,
    /// a word two trials share. Both armour pools are read off the same dice, as only
    /// the knocked-down side's counts, and the one that counts is picked by a shift and
    /// a mask, not an index: no branch on the dice but the rare long explosion.
    #[inline(always)]
    fn exploding_trial(&self, p: &ExplodingPools, rng: &mut Rng, arm: &mut Digits) -> usize {
        let mut w = Digits::draw(rng, WORD_DICE);
        let (a, d) = (p.roll(0, &mut w), p.roll(1, &mut w));
        let both = p.armour_pair(arm);
        let e = self.wide[((a & 15) << 5 | (d & 15)) as usize];
        let armour = Self::armour_of(e, both);
        if (a | d | armour) >> 4 != 0 {
            let state;
            (*rng, state) = self.roll_on(p, rng.clone(), [a & 15, a >> 4, d & 15, d >> 4], both);
            return state;
        }
        self.settle(e, armour & 15)
    }

    /// Of both armour pools' reads, the successes (bits 0..4) and explosions pending
    /// (above) of the one whose armour the outcome `e` tests: nobody's (both zero), the
    /// responder's (pool 2, the low byte) or the actor's (pool 3, the high byte).
    #[inline(always)]
    fn armour_of(e: u64, both: u32) -> u32 {
        // `wrapping_shr` reads the shift's low five bits: bits 16..21 of `e`.
        both.wrapping_shr((e >> 16) as u32) & (e >> 24) as u8 as u32
    }

    /// The state of a trial whose `wide` entry is `e`, with `arm` saves.
    #[inline(always)]
    fn settle(&self, e: u64, arm: u32) -> usize {
        let hits = (e >> 32) as u32;
        (e & 0xffff) as usize + hits.saturating_sub(arm) as usize
    }

    /// The rare trial whose explosions run past the dice its words hold: the sides roll
    /// on, then the armour that counts, from its read in `both`. Out of line, and handed
    /// the generator by value, so that the hot loop never takes its generator's address
    /// and keeps it in registers.
    #[cold]
    #[inline(never)]
    fn roll_on(
        &self,
        p: &ExplodingPools,
        mut rng: Rng,
        [a, pa, d, pd]: [u32; 4],
        both: u32,
    ) -> (Rng, usize) {
        let a = p.finish(0, &mut rng, a, pa);
        let d = p.finish(1, &mut rng, d, pd);
        let e = self.wide[((a << 5 | d) & 1023) as usize];
        let armour = Self::armour_of(e, both);
        // Pool 2 when the shift is 0, 3 when it is 8; no armour when the mask is 0.
        let arm = match ((e >> 24) as u8, (e >> 16) & 31) {
            (0, _) => 0,
            (_, shift) => p.finish(2 + shift as usize / 8, &mut rng, armour & 15, armour >> 4),
        };
        (rng, self.settle(e, arm))
    }
}

/// Both sides' dice as one group when they are six or fewer and nothing explodes: one
/// multiplication and one lookup give the opposed result, and one more of each the turns
/// out of play after the armour check of whoever was knocked down. A trial reads few
/// enough dice that two share a word of the generator.
struct Joint {
    /// `6^(a + d)`.
    pow: u64,
    /// Per joint face index: the state of (a, d, 0) in the low 16 bits and, above them,
    /// where the armour row for this outcome starts in `turns`.
    table: Box<[u32]>,
    /// `6^k` for the most armour dice `k` either side rolls: every trial reads that
    /// many, so no read waits on a lookup.
    arm_pow: u64,
    /// Row `which * 8 + hits`: turns out of play, `hits` less the saves among the first
    /// dice of the armour pool of nobody (0), the responder (1) or the actor (2).
    turns: Box<[u8]>,
    /// Dice one trial reads at most.
    dice: u32,
}

/// Dice a word is drawn for when two trials share it: 6^22 leaves a rejection rate under
/// 1%, where 6^24 would redraw a word in five.
const PAIR_DICE: u32 = 22;

impl Joint {
    fn new(o: &Opposed) -> Option<Joint> {
        let [none, d_arm, a_arm] = o.armours;
        let small = [o.a, o.d, d_arm, a_arm].iter().all(|p| p.small());
        let (na, nd) = (o.a.dice, o.d.dice);
        if !small || na + nd > 6 {
            return None;
        }
        // Faces of `dice` dice numbered `x` that show `on` or more.
        let count = |mut x: u64, dice: u32, on: u8| {
            let mut n = 0;
            for _ in 0..dice {
                n += (x % 6 + 1 >= on as u64) as u32;
                x /= 6;
            }
            n
        };
        let k = d_arm.dice.max(a_arm.dice);
        let arm_pow = pow6(k);
        let (pow_d, outcome) = (pow6(nd), o.outcome_table(6));
        let table = (0..pow6(na + nd))
            .map(|x| {
                let a = count(x / pow_d, na, o.a.success_on);
                let d = count(x % pow_d, nd, o.d.success_on);
                let e = outcome[(a * 6 + d) as usize];
                let (base, hits, which) = (e & 0xffff, (e >> 16) & 0xff, e >> 24);
                base | ((which * 8 + hits) * arm_pow as u32) << 16
            })
            .collect();
        let turns = [none, d_arm, a_arm]
            .iter()
            .flat_map(|p| {
                (0..8).flat_map(move |hits: u32| {
                    (0..arm_pow).map(move |x| {
                        let saved = count(x / pow6(k - p.dice), p.dice, p.success_on);
                        hits.saturating_sub(saved) as u8
                    })
                })
            })
            .collect();
        Some(Joint {
            pow: pow6(na + nd),
            table,
            arm_pow,
            turns,
            dice: na + nd + k,
        })
    }

    #[inline(always)]
    fn trial(&self, w: &mut Digits) -> usize {
        let e = self.table[w.take(self.pow)];
        let turns = self.turns[(e >> 16) as usize + w.take(self.arm_pow)];
        (e & 0xffff) as usize + turns as usize
    }
}

impl Trial for Opposed {
    fn states(&self) -> usize {
        self.radix.iter().product()
    }
    /// Its tables are all made from these fields (see [`opposed_trial`]).
    fn key(&self) -> Option<Vec<u8>> {
        Some(crate::model::key_of::<Self, _>(&(
            self.a,
            self.d,
            self.armours,
            self.rule,
            self.responder_knocks_down,
            self.actor_knocks_down,
            self.radix,
        )))
    }
    /// Its trials take nanoseconds: a chunk ends well within a stop's half second, so
    /// `_stop` is left to the chunk loop.
    fn run_chunk(&self, rng_out: &mut Rng, trials: u64, hist: &mut [u64], _stop: &Cancel) {
        // A local generator, as the default `run_chunk` explains.
        let mut local = rng_out.clone();
        let rng = &mut local;
        match &self.joint {
            Some(j) if 2 * j.dice <= PAIR_DICE => {
                for _ in 0..trials / 2 {
                    let mut w = Digits::draw(rng, PAIR_DICE);
                    hist[j.trial(&mut w)] += 1;
                    hist[j.trial(&mut w)] += 1;
                }
                if trials % 2 == 1 {
                    hist[self.sample(rng)] += 1;
                }
            }
            _ => match &self.exploding {
                // Its own loop: the pools' tables stay in registers across trials (only
                // pools that do not explode are read jointly or packed).
                Some(p) => self.run_exploding(p, rng, trials, hist),
                _ => {
                    for _ in 0..trials {
                        hist[self.sample(rng)] += 1;
                    }
                }
            },
        }
        *rng_out = local;
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        if let Some(j) = &self.joint {
            return j.trial(&mut Digits::draw(rng, j.dice));
        }
        if let Some(p) = &self.packed {
            let [a, d, d_arm, a_arm] = p.roll(rng);
            let e = self.outcome[(a * 6 + d) as usize];
            let hits = (e >> 16) & 0xff;
            let arm = [0, d_arm, a_arm][(e >> 24) as usize];
            return (e & 0xffff) as usize + hits.saturating_sub(arm) as usize;
        }
        if let Some(p) = &self.exploding {
            let mut arm = Digits::draw(rng, WORD_DICE);
            return self.exploding_trial(p, rng, &mut arm);
        }
        let a = self.a.roll(rng);
        let d = self.d.roll(rng);
        // The pool of no dice rolls nothing when nobody is knocked down.
        let (hits, which) = self.knocked(a, d);
        let turns = hits.saturating_sub(self.armours[which].roll(rng));
        (a as usize * self.radix[1] + d as usize) * self.radix[2] + turns as usize
    }
}

/// `attacker` `verb` `defender` with pool `a`, answered by `response`; a Slam's double
/// knocks the defender down (a Steal's takes the ball instead).
pub(super) fn opposed(
    name: &str,
    verb: &str,
    attacker: &Side,
    defender: &Side,
    a: Pool,
    response: Response,
    rules: &Rules,
) -> Compiled {
    let b = rules.base_dice;
    let slam = verb == "slams";
    let (rtest, rstat) = match response {
        Response::Slamback => (Test::Slamback, defender.unit.strength),
        Response::Dodge => (Test::Dodge, defender.unit.speed),
    };
    let d = defender.pool(rtest, b, 0, rules);
    let d_armour = defender.pool(Test::Armour, b, 0, rules);
    let a_armour = attacker.pool(Test::Armour, b, 0, rules);
    let (ca, cd) = (a.cap as usize, d.cap as usize);
    let radix = [ca + 1, cd + 1, ca.max(cd) + 1];
    let rx = Radix(radix.to_vec());
    let responder_knocks_down = response == Response::Slamback;
    let actor_knocks_down = slam;

    // Exact: independent pools, then the armour check of whoever a double knocked down.
    let knocks = (actor_knocks_down, responder_knocks_down);
    let pools = [a, d, d_armour, a_armour];
    let double = rules.double_rule;
    let exact = opposed_pmf::<f64>(pools, double, knocks);
    let (pa, pd) = (pool_pmf(&a), pool_pmf(&d));
    let capped_mass = 1.0 - (1.0 - capped(&pa, &a)) * (1.0 - capped(&pd, &d));

    let (metrics, actor) = opposed_metrics(&rx, (&a, &d), rules.double_rule, slam, response);
    let desc = format!(
        "{} {verb} {}: {} vs {} {}",
        attacker.unit.name,
        defender.unit.name,
        describe_pool(
            &a,
            if slam {
                attacker.unit.strength
            } else {
                attacker.unit.speed
            }
        ),
        match response {
            Response::Slamback => "slamback",
            Response::Dodge => "dodge",
        },
        describe_pool(&d, rstat),
    );
    Compiled::new(
        name,
        desc,
        Box::new(opposed_trial(
            a,
            d,
            d_armour,
            a_armour,
            rules,
            responder_knocks_down,
            actor_knocks_down,
        )),
        metrics,
        Headline {
            label: format!("P({actor} wins)"),
            metric: 0,
            values: vec![1, 2],
            against: vec![3, 4],
        },
    )
    .exact(Some(exact))
    .fractions_later(move || opposed_pmf::<Ratio>(pools, double, knocks))
    .capped(capped_mass, None)
}

/// The opposed test's metrics over its states (the result, each side's successes, the
/// turns out of play of whoever a double can knock down), and the actor's name in them.
fn opposed_metrics(
    rx: &Radix,
    (a, d): (&Pool, &Pool),
    double: DoubleRule,
    slam: bool,
    response: Response,
) -> (Vec<Metric>, &'static str) {
    let (ca, cd) = (a.cap as usize, d.cap as usize);
    let states = rx.size();
    let mut result = Vec::with_capacity(states);
    let (mut a_turns, mut d_turns) = (Vec::with_capacity(states), Vec::with_capacity(states));
    let (mut a_succ, mut d_succ) = (Vec::with_capacity(states), Vec::with_capacity(states));
    for s in 0..states {
        let v = rx.decode(s);
        let class = classify(double, v[0] as u32, v[1] as u32);
        result.push(class as u16);
        a_succ.push(v[0] as u16);
        d_succ.push(v[1] as u16);
        d_turns.push(if class == 2 { v[2] as u16 } else { 0 });
        a_turns.push(if class == 4 { v[2] as u16 } else { 0 });
    }
    let (actor, target) = if slam {
        ("slammer", "target")
    } else {
        ("stealer", "target")
    };
    let effects = match (slam, response) {
        (true, Response::Slamback) => "win = push back; double = push back, knock down, armour check; slamback win = slammer pushed back; slamback double = slammer knocked down, armour check",
        (true, Response::Dodge) => "win = push back; double = push back, knock down, armour check; dodge win = turn to face; dodge double = free 1-hex move",
        (false, Response::Slamback) => "win = ball scatters; double = stealer takes the ball; slamback win = stealer pushed back; slamback double = stealer knocked down, armour check",
        (false, Response::Dodge) => "win = ball scatters; double = stealer takes the ball; dodge win = turn to face; dodge double = free 1-hex move",
    };
    let mut metrics = vec![
        Metric::categorical(
            "result",
            &format!("draw = both turn to face; {effects}"),
            &opposed_labels(response),
            result,
        ),
        Metric::numeric(
            &format!("{actor}_successes"),
            "successes rolled",
            ca + 1,
            a_succ,
        )
        .fold_top(a.exploding()),
        Metric::numeric(
            &format!("{target}_successes"),
            "successes rolled",
            cd + 1,
            d_succ,
        )
        .fold_top(d.exploding()),
    ];
    if slam {
        metrics.push(Metric::numeric(
            &format!("{target}_turns_out_of_play"),
            "turns the target spends out of play (0 when not knocked down or all hits saved)",
            rx.0[2],
            d_turns,
        ));
    }
    if response == Response::Slamback {
        metrics.push(Metric::numeric(
            &format!("{actor}_turns_out_of_play"),
            "turns the actor spends out of play after a slamback double",
            rx.0[2],
            a_turns,
        ));
    }
    (metrics, actor)
}

/// The opposed test's states (the two sides' successes, the turns out of play): the
/// pools `[actor, responder, responder's armour, actor's armour]` independent, then the
/// armour check of whoever a double knocked down (`knocks`: by the actor, by the
/// responder).
fn opposed_pmf<W: Prob>(
    [a, d, d_armour, a_armour]: [Pool; 4],
    double: DoubleRule,
    (actor_knocks_down, responder_knocks_down): (bool, bool),
) -> Vec<W> {
    let (ca, cd) = (a.cap as usize, d.cap as usize);
    let rx = Radix(vec![ca + 1, cd + 1, ca.max(cd) + 1]);
    let (pa, pd) = (pool_pmf_of::<W>(&a), pool_pmf_of::<W>(&d));
    let (arm_d, arm_a) = (pool_pmf_of::<W>(&d_armour), pool_pmf_of::<W>(&a_armour));
    let mut exact = vec![W::zero(); rx.size()];
    for (x, p1) in pa.0.iter().enumerate() {
        for (y, p2) in pd.0.iter().enumerate() {
            let p = p1.clone() * p2.clone();
            if p.is_zero() {
                continue;
            }
            let class = classify(double, x as u32, y as u32);
            let armour = match class {
                2 if actor_knocks_down => Some((x - y, &arm_d)),
                4 if responder_knocks_down => Some((y - x, &arm_a)),
                _ => None,
            };
            match armour {
                Some((hits, arm)) => {
                    for (s, q) in arm.0.iter().enumerate() {
                        exact[rx.encode(&[x, y, hits.saturating_sub(s)])] += p.clone() * q.clone();
                    }
                }
                None => exact[rx.encode(&[x, y, 0])] += p,
            }
        }
    }
    exact
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::chunk_rng;
    use crate::systems::rush::rules::{Role, Unit};

    fn side(id: &str, strength: u8, armour: u8, extra_dice: i32) -> Side {
        Side {
            unit: Unit {
                id: id.into(),
                name: id.into(),
                movement: 5,
                strength,
                speed: 4,
                skill: 4,
                armour,
                role: Role::Jack,
            },
            threat: 0,
            extra_dice,
        }
    }

    /// Monte Carlo of `o` against its exact distribution (worked out pool by pool in
    /// `opposed`), every state within 4.5 SE.
    fn agrees(o: &Opposed, exact: &[f64], n: u64) {
        let mut hist = vec![0u64; Trial::states(o)];
        Trial::run_chunk(o, &mut chunk_rng(3, 9), n, &mut hist, &Cancel::new());
        // In counts, with one count of slack for the states too rare to expect one.
        for (s, (&c, &p)) in hist.iter().zip(exact).enumerate() {
            let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
            assert!(
                (c as f64 - mean).abs() < 4.5 * sd + 1.0,
                "state {s}: {c} vs {mean}"
            );
        }
    }

    fn compile_opposed(attacker: &Side, defender: &Side, rules: &Rules) -> (Opposed, Vec<f64>) {
        let a = attacker.pool(Test::Slam, rules.base_dice, 0, rules);
        let c = opposed(
            "t",
            "slams",
            attacker,
            defender,
            a,
            Response::Slamback,
            rules,
        );
        let exact = c.exact.clone().unwrap();
        (rebuild(attacker, defender, a, rules), exact)
    }

    /// The trial `opposed` builds, as its concrete type.
    fn rebuild(attacker: &Side, defender: &Side, a: Pool, rules: &Rules) -> Opposed {
        let b = rules.base_dice;
        let d = defender.pool(Test::Slamback, b, 0, rules);
        let d_armour = defender.pool(Test::Armour, b, 0, rules);
        let a_armour = attacker.pool(Test::Armour, b, 0, rules);
        opposed_trial(a, d, d_armour, a_armour, rules, true, true)
    }

    /// Two Slams of the same pools are one trial whatever the units are called; a
    /// change to either side's strength or armour, or to the double's rule, is another.
    #[test]
    fn slams_of_the_same_pools_are_one_trial() {
        let rules = Rules::default();
        let key = |x: &Side, y: &Side, rules: &Rules| {
            let (o, _) = compile_opposed(x, y, rules);
            Trial::key(&o).unwrap()
        };
        let base = key(&side("x", 4, 4, 0), &side("y", 3, 5, 0), &rules);
        assert_eq!(base, key(&side("a", 4, 4, 0), &side("b", 3, 5, 0), &rules));
        assert_ne!(base, key(&side("x", 5, 4, 0), &side("y", 3, 5, 0), &rules));
        assert_ne!(base, key(&side("x", 4, 3, 0), &side("y", 3, 5, 0), &rules));
        assert_ne!(base, key(&side("x", 4, 4, 0), &side("y", 3, 4, 0), &rules));
        let margin = Rules {
            double_rule: DoubleRule::Margin2,
            ..Rules::default()
        };
        assert_ne!(base, key(&side("x", 4, 4, 0), &side("y", 3, 5, 0), &margin));
    }

    #[test]
    fn three_against_three_reads_both_sides_as_one_group() {
        let rules = Rules::default();
        let (x, y) = (side("x", 4, 4, 0), side("y", 3, 5, 0));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.joint.is_some(), "3 against 3 takes the joint path");
        agrees(&o, &exact, 1 << 20);
        // An odd count ends on a single trial: every trial is counted.
        let mut hist = vec![0u64; Trial::states(&o)];
        Trial::run_chunk(&o, &mut chunk_rng(1, 1), 1001, &mut hist, &Cancel::new());
        assert_eq!(hist.iter().sum::<u64>(), 1001);
    }

    #[test]
    fn exploding_slams_read_four_pools_through_tables() {
        let rules = Rules {
            explode_on: 6,
            ..Rules::default()
        };
        let (x, y) = (side("x", 3, 4, 2), side("y", 4, 4, 1));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.exploding.is_some() && o.joint.is_none());
        agrees(&o, &exact, 1 << 20);
        // Armour 2+ against 6+: whose armour a knock-down tests shows in every state.
        let (x, y) = (side("x", 3, 2, 2), side("y", 4, 6, 1));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.exploding.is_some());
        agrees(&o, &exact, 1 << 20);
    }

    #[test]
    fn big_exploding_slams_roll_die_group_by_die_group() {
        // Seven dice a side: past the tables, the branch-free pick of the armour.
        let rules = Rules {
            explode_on: 6,
            ..Rules::default()
        };
        let (x, y) = (side("x", 3, 4, 4), side("y", 4, 4, 4));
        let (o, exact) = compile_opposed(&x, &y, &rules);
        assert!(o.exploding.is_none() && o.packed.is_none());
        agrees(&o, &exact, 1 << 19);
    }
}
