//! The melee charge and opposed conflicts: "face to face" cancellation.
//!
//! Both sides roll d12 at or under their target; a surviving die at or under the
//! opponent's highest surviving die is cancelled, and the charging (active) side wins
//! ties. Whatever still stands hits, and only one side can hit: the attacker when its
//! top die is at least the defender's (and it has one), the defender when its top die is
//! higher.
//!
//! Exact distributions never enumerate the 12^(n+m) rolls. They condition on one side's
//! highest surviving die (an order statistic, with the count of its successes where the
//! joint is wanted); given that, the other side's dice are independent and each falls in
//! one of three bands (failed, cancelled, hitting), so its hits are binomial or
//! multinomial. 12 dice against 12 is a few thousand terms.

use super::{
    condition_metric, contest_target, describe_contest, fall_keep, fall_pmf, roll_fall, Character,
    Contestant, Rules,
};
use crate::kernels::Rng;
use crate::model::{Compiled, Headline, Metric, Radix, Trial};
use crate::pmf::{Prob, Ratio};
use crate::systems::dozen::d12::{
    above3_table, count_ge, group3_table, next3, successes, top, word, Pool, Stream,
};

/// Hits of one charge, exactly: `win[k]` = P(the attacker scores k hits), k >= 1;
/// `lose[k]` = P(the defender scores k hits); `none` = P(no die stands).
#[derive(Clone, Debug, PartialEq)]
pub struct Hits<W = f64> {
    /// By hit count: P(the attacker scores that many); index 0 stays 0.
    pub win: Vec<W>,
    /// By hit count: P(the defender scores that many); index 0 stays 0.
    pub lose: Vec<W>,
    /// P(no die stands on either side): nobody is hit or pushed.
    pub none: W,
}

/// P(highest surviving die = v) for v in 0..=12 (0: no die succeeded), for `n` dice at
/// effective target `t`: P(max <= v) = (P(fail) + v/12)^n.
fn top_pmf<W: Prob>(n: u32, t: u32) -> [W; 13] {
    let q = W::one() - W::ratio(u64::from(t), 12);
    let mut out: [W; 13] = std::array::from_fn(|_| W::zero());
    let mut below = q.pow(n);
    out[0] = below.clone();
    for (v, o) in out.iter_mut().enumerate().take(t as usize + 1).skip(1) {
        let upto = (q.clone() + W::ratio(v as u64, 12)).pow(n);
        *o = upto.clone() - below;
        below = upto;
    }
    out
}

/// Hits of a charge by order statistics: condition on the defender's top die v; the
/// attacker's hits are its dice in `max(v, 1)..=ta`, Binomial(n, that band / 12). And
/// the same with the roles swapped for the defender's hits (band `u+1..=td`).
pub fn hits<W: Prob>(n: u32, ta: u32, m: u32, td: u32) -> Hits<W> {
    let mut win = vec![W::zero(); n as usize + 1];
    let mut lose = vec![W::zero(); m as usize + 1];
    let (top_a, top_d) = (top_pmf::<W>(n, ta), top_pmf::<W>(m, td));
    for (v, pv) in top_d.iter().enumerate() {
        if pv.is_zero() {
            continue;
        }
        let band = (ta + 1).saturating_sub((v as u32).max(1));
        let b = W::binomial(n, &W::ratio(u64::from(band), 12)).0;
        for (k, p) in b.into_iter().enumerate().skip(1) {
            win[k] += pv.clone() * p;
        }
    }
    for (u, pu) in top_a.iter().enumerate() {
        if pu.is_zero() {
            continue;
        }
        let band = td.saturating_sub(u as u32);
        let b = W::binomial(m, &W::ratio(u64::from(band), 12)).0;
        for (k, p) in b.into_iter().enumerate().skip(1) {
            lose[k] += pu.clone() * p;
        }
    }
    let none = top_a[0].clone() * top_d[0].clone();
    Hits { win, lose, none }
}

/// P(count = i and top = u) of `n` dice at effective target `t`, as `[i][u]`.
fn count_top<W: Prob>(n: u32, t: u32) -> Vec<[W; 13]> {
    let q = W::one() - W::ratio(u64::from(t), 12);
    let mut out: Vec<[W; 13]> = (0..=n)
        .map(|_| std::array::from_fn(|_| W::zero()))
        .collect();
    out[0][0] = q.pow(n);
    for (i, row) in out.iter_mut().enumerate().skip(1) {
        let c = choose::<W>(n, i as u32) * q.pow(n - i as u32);
        for (u, cell) in row.iter_mut().enumerate().take(t as usize + 1).skip(1) {
            let hi = W::ratio(u as u64, 12).pow(i as u32);
            let lo = W::ratio((u - 1) as u64, 12).pow(i as u32);
            *cell = c.clone() * (hi - lo);
        }
    }
    out
}

fn choose<W: Prob>(n: u32, k: u32) -> W {
    (0..k).fold(W::one(), |acc, j| {
        (acc * W::ratio(u64::from(n - j), 1)).over(u64::from(j + 1))
    })
}

/// Multinomial P(f, b, k) of `n` dice over bands with probabilities (pf, pb, pk).
fn trinomial<W: Prob>(n: u32, pf: &W, pb: &W, pk: &W) -> Vec<Vec<W>> {
    // [b][k] with f = n - b - k.
    let mut out = vec![vec![W::zero(); n as usize + 1]; n as usize + 1];
    for b in 0..=n {
        for k in 0..=n - b {
            let f = n - b - k;
            out[b as usize][k as usize] =
                choose::<W>(n, b) * choose::<W>(n - b, k) * pf.pow(f) * pb.pow(b) * pk.pow(k);
        }
    }
    out
}

/// The joint exact distribution of one cancellation over (attacker successes i,
/// defender successes s, outcome), outcome 0 = no die stands, k in 1..=n = the
/// attacker hits k times, n + k = the defender hits k times.
pub fn face_to_face<W: Prob>(n: u32, ta: u32, m: u32, td: u32) -> (Radix, Vec<W>) {
    let rx = Radix(vec![n as usize + 1, m as usize + 1, (n + m) as usize + 1]);
    let mut out = vec![W::zero(); rx.size()];
    let twelfths = |x: u32| W::ratio(u64::from(x), 12);
    let (qa, qd) = (W::one() - twelfths(ta), W::one() - twelfths(td));
    // The attacker hits: condition on the defender's (successes s, top v); the
    // attacker's dice fail, fall below v (cancelled) or reach v (hit).
    for (s, row) in count_top::<W>(m, td).iter().enumerate() {
        for (v, p) in row.iter().enumerate() {
            if p.is_zero() {
                continue;
            }
            let from = (v as u32).max(1);
            let pb = twelfths(from.min(ta + 1).saturating_sub(1));
            let pk = twelfths((ta + 1).saturating_sub(from));
            let tri = trinomial(n, &qa, &pb, &pk);
            for (b, ks) in tri.into_iter().enumerate() {
                for (k, q) in ks.into_iter().enumerate().skip(1) {
                    if q.is_positive() {
                        out[rx.encode(&[b + k, s, k])] += p.clone() * q;
                    }
                }
            }
        }
    }
    // The defender hits: condition on the attacker's (successes i, top u); the
    // defender's dice fail, are at most u (cancelled) or above u (hit).
    for (i, row) in count_top::<W>(n, ta).iter().enumerate() {
        for (u, p) in row.iter().enumerate() {
            if p.is_zero() {
                continue;
            }
            let pb = twelfths((u as u32).min(td));
            let pk = twelfths(td.saturating_sub(u as u32));
            let tri = trinomial(m, &qd, &pb, &pk);
            for (b, ks) in tri.into_iter().enumerate() {
                for (k, q) in ks.into_iter().enumerate().skip(1) {
                    if q.is_positive() {
                        out[rx.encode(&[i, b + k, n as usize + k])] += p.clone() * q;
                    }
                }
            }
        }
    }
    out[0] += qa.pow(n) * qd.pow(m);
    (rx, out)
}

/// Resolve one cancellation from packed rolls: (outcome code as in [`face_to_face`],
/// hits). Branch-free: which side wins is as unpredictable as the dice.
#[inline(always)]
pub fn resolve(xa: u64, xd: u64, n: u32) -> (u32, u32) {
    let (ma, md) = (top(xa), top(xd));
    let a_wins = ((ma >= md) & (ma > 0)) as u32;
    let d_wins = (md > ma) as u32;
    let ka = count_ge(xa, md);
    let kd = count_ge(xd, ma + 1);
    (a_wins * ka + d_wins * (n + kd), a_wins * ka + d_wins * kd)
}

/// One charge through armour. State: (attacker successes, defender successes, outcome,
/// HP lost by the side hit).
struct MeleeTrial {
    a: Pool,
    d: Pool,
    /// Effective armour class of the attacker and the defender.
    a_ac: u32,
    d_ac: u32,
    radix: [usize; 5],
    small: Option<Small>,
    /// Drop behind the attacker and the defender, and the face each falling die keeps
    /// HP at or under: the side hit is pushed over the edge.
    drops: [u32; 2],
    keeps: [u32; 2],
}

/// Three dice a side or fewer: three groups of three dice (the attacker's, the
/// defender's, the armour roll), each read through a table. A side with fewer dice reads
/// only its first ones, and the armour roll only as many as there are hits, so every die
/// that counts is rolled and nothing branches on the dice.
pub struct Small {
    /// The attacker's dice: an outcome code up to this is the attacker's win.
    pub n: u32,
    a: Box<[u64]>,
    d: Box<[u64]>,
    /// Row `side * 4 + hits`: armour failures among the first `hits` of three dice, for
    /// the defender's armour class (side 0) and the attacker's (side 1).
    above: Box<[u8]>,
}

impl Small {
    /// `None` unless both sides roll three dice or fewer. Targets and armour classes
    /// are effective ones.
    pub fn new(n: u32, ta: u32, m: u32, td: u32, a_ac: u32, d_ac: u32) -> Option<Self> {
        (n <= 3 && m <= 3).then(|| Small {
            n,
            a: group3_table(n, ta),
            d: group3_table(m, td),
            above: [above3_table(d_ac), above3_table(a_ac)].concat().into(),
        })
    }

    /// One charge from three groups of three dice: (packed attacker roll, packed
    /// defender roll, outcome code, HP lost by the side hit).
    #[inline(always)]
    pub fn charge(&self, ia: usize, id: usize, iarm: usize) -> (u64, u64, u32, u32) {
        let (xa, xd) = (self.a[ia], self.d[id]);
        let (code, hits) = resolve(xa, xd, self.n);
        let side = (code > self.n) as usize;
        let lost = self.above[(side * 4 + hits as usize) * 1728 + iarm];
        (xa, xd, code, lost as u32)
    }
}

impl MeleeTrial {
    #[inline(always)]
    fn encode(&self, sa: u32, sd: u32, code: u32, lost: u32, fell: u32) -> usize {
        let [_, r1, r2, r3, r4] = self.radix;
        (((sa as usize * r1 + sd as usize) * r2 + code as usize) * r3 + lost as usize) * r4
            + fell as usize
    }

    /// The fall of the side a charge's outcome `code` pushes, rolled die by die.
    #[inline]
    fn fall(&self, rng: &mut Rng, code: u32) -> u32 {
        if code == 0 {
            return 0;
        }
        let side = (code <= self.a.dice) as usize;
        if self.drops[side] < 2 {
            return 0;
        }
        roll_fall(&mut Stream::new(), rng, self.drops[side], self.keeps[side])
    }
}

impl Trial for MeleeTrial {
    fn states(&self) -> usize {
        self.radix.iter().product()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        if let Some(t) = &self.small {
            let r = word(rng, 9);
            let (ia, r) = next3(r);
            let (id, r) = next3(r);
            let (iarm, _) = next3(r);
            let (xa, xd, code, lost) = t.charge(ia, id, iarm);
            let fell = self.fall(rng, code);
            return self.encode(successes(xa), successes(xd), code, lost, fell);
        }
        let mut s = Stream::new();
        let xa = self.a.roll(&mut s, rng);
        let xd = self.d.roll(&mut s, rng);
        let (code, hits) = resolve(xa, xd, self.a.dice);
        let ac = if code > self.a.dice {
            self.a_ac
        } else {
            self.d_ac
        };
        let lost = s.count_above(rng, hits, ac);
        let fell = self.fall(rng, code);
        self.encode(successes(xa), successes(xd), code, lost, fell)
    }
}

/// Melee dice of a character in a charge: its melee level plus `extra`, at least 0, at
/// most the dice in its reserve.
pub fn melee_dice(c: &Character, extra: i32) -> u32 {
    c.from_reserve((c.skill("melee") as i32 + extra).max(0) as u32)
}

fn describe_melee(c: &Character, dice: u32) -> String {
    if c.weapon > 0 {
        format!(
            "ST{} ({} + weapon {}) {dice}d12",
            c.melee_target(),
            c.st,
            c.weapon
        )
    } else {
        format!("ST{} {dice}d12", c.melee_target())
    }
}

/// What a charge's exact distribution is worked out from: the two sides' dice, targets
/// and armour classes, the drops behind them and who falls (attacker first).
struct ChargeExact {
    dice: [u32; 2],
    targets: [u32; 2],
    acs: [u32; 2],
    drops: [u32; 2],
    who: [Character; 2],
    rules: Rules,
}

impl ChargeExact {
    /// The charge's states (successes of each side, the outcome, HP lost by the side
    /// hit, HP lost falling): the cancellation, then the armour roll of the hits, then
    /// the fall of the side pushed.
    fn pmf<W: Prob>(&self) -> Vec<W> {
        let ([n, m], [ta, td], [a_ac, d_ac]) = (self.dice, self.targets, self.acs);
        let falls: [Vec<W>; 2] = [
            fall_pmf(&self.who[0], self.drops[0], &self.rules),
            fall_pmf(&self.who[1], self.drops[1], &self.rules),
        ];
        let fall_most = self
            .drops
            .iter()
            .filter(|&&d| d >= 2)
            .max()
            .copied()
            .unwrap_or(0) as usize;
        let (rx, ftf) = face_to_face::<W>(n, ta, m, td);
        let most = n.max(m) as usize;
        let full = Radix(vec![
            n as usize + 1,
            m as usize + 1,
            (n + m) as usize + 1,
            most + 1,
            fall_most + 1,
        ]);
        let mut exact = vec![W::zero(); full.size()];
        let fails = |ac: u32| W::one() - W::ratio(u64::from(ac), 12);
        let lost_d: Vec<Vec<W>> = (0..=n).map(|k| W::binomial(k, &fails(d_ac)).0).collect();
        let lost_a: Vec<Vec<W>> = (0..=m).map(|k| W::binomial(k, &fails(a_ac)).0).collect();
        let certain = vec![W::one()];
        for (st, p) in ftf.iter().enumerate() {
            if p.is_zero() {
                continue;
            }
            let v = rx.decode(st);
            let code = v[2];
            let pmf = if code == 0 {
                &lost_d[0]
            } else if code <= n as usize {
                &lost_d[code]
            } else {
                &lost_a[code - n as usize]
            };
            // The side hit is pushed: over a drop of 2 or more it falls.
            let fall: &[W] = if code == 0 || fall_most == 0 {
                &certain
            } else if code <= n as usize {
                &falls[1]
            } else {
                &falls[0]
            };
            for (l, q) in pmf.iter().enumerate() {
                for (f, r) in fall.iter().enumerate() {
                    exact[full.encode(&[v[0], v[1], code, l, f])] +=
                        p.clone() * q.clone() * r.clone();
                }
            }
        }
        exact
    }
}

/// A `melee` scenario: one charge, its hits, armour rolls and any push over a drop.
pub fn compile_melee(
    name: &str,
    attacker: &Character,
    defender: &Character,
    (a_extra, d_extra): (i32, i32),
    drops: [u32; 2],
    rules: &Rules,
) -> Compiled {
    let (n, m) = (melee_dice(attacker, a_extra), melee_dice(defender, d_extra));
    // A fall from under 2 squares costs nothing, so only a real drop adds a dimension.
    let fall_most = drops
        .iter()
        .filter(|&&d| d >= 2)
        .max()
        .copied()
        .unwrap_or(0) as usize;
    let ta = rules.target(attacker.melee_target() as i32);
    let td = rules.target(defender.melee_target() as i32);
    let a_ac = rules.target(attacker.ac() as i32);
    let d_ac = rules.target(defender.ac() as i32);
    let most = n.max(m) as usize;
    let radix = [
        n as usize + 1,
        m as usize + 1,
        (n + m) as usize + 1,
        most + 1,
        fall_most + 1,
    ];
    let full = Radix(radix.to_vec());
    let charge = ChargeExact {
        dice: [n, m],
        targets: [ta, td],
        acs: [a_ac, d_ac],
        drops,
        who: [attacker.clone(), defender.clone()],
        rules: rules.clone(),
    };
    let exact = charge.pmf::<f64>();
    let metrics = melee_metrics(
        [attacker, defender],
        [n, m],
        drops,
        &full,
        (most, fall_most),
    );
    Compiled::new(
        name,
        charge_description([attacker, defender], [n, m], drops),
        Box::new(MeleeTrial {
            a: Pool::new(n, ta),
            d: Pool::new(m, td),
            a_ac,
            d_ac,
            radix,
            small: Small::new(n, ta, m, td, a_ac, d_ac),
            drops,
            keeps: [fall_keep(attacker, rules), fall_keep(defender, rules)],
        }),
        metrics,
        Headline {
            label: "P(attacker wins)".into(),
            metric: 0,
            values: vec![1],
            against: vec![2],
        },
    )
    .exact(Some(exact))
    .fractions_later(move || charge.pmf::<Ratio>())
}

/// A charge's metrics over its states: who wins, each side's successes and hits, the
/// armour's saves, each side's HP lost and condition, and (over a drop) the fall.
fn melee_metrics(
    [attacker, defender]: [&Character; 2],
    [n, m]: [u32; 2],
    drops: [u32; 2],
    full: &Radix,
    (most, fall_most): (usize, usize),
) -> Vec<Metric> {
    let states: Vec<Vec<usize>> = (0..full.size()).map(|s| full.decode(s)).collect();
    let side = |code: usize| -> u16 {
        if code == 0 {
            0
        } else if code <= n as usize {
            1
        } else {
            2
        }
    };
    let field = |f: &dyn Fn(&[usize]) -> usize| -> Vec<u16> {
        states.iter().map(|v| f(v) as u16).collect()
    };
    let nn = n as usize;
    let hits_on_d = |v: &[usize]| if side(v[2]) == 1 { v[2] } else { 0 };
    let hits_on_a = |v: &[usize]| if side(v[2]) == 2 { v[2] - nn } else { 0 };
    // HP lost never exceeds the hits (or a fall its drop); the min only tidies states no
    // roll reaches. A fall counts for the side the charge pushed.
    // `pushed`: the result code of the charge that pushes this side.
    let lost = |pushed: u16, hits: &dyn Fn(&[usize]) -> usize, drop: u32| -> Vec<u32> {
        states
            .iter()
            .map(|v| {
                let fell = if side(v[2]) == pushed {
                    v[4].min(drop as usize)
                } else {
                    0
                };
                (v[3].min(hits(v)) + fell) as u32
            })
            .collect()
    };
    let lost_by_d = lost(1, &hits_on_d, drops[1]);
    let lost_by_a = lost(2, &hits_on_a, drops[0]);
    let mut metrics = vec![
        Metric::categorical(
            "result",
            "the winner pushes the loser 1 square; ties go to the attacker",
            &["no hits", "attacker wins", "defender wins"],
            field(&|v| side(v[2]) as usize),
        ),
        Metric::numeric(
            "attacker_successes",
            "attacker's dice at or under its melee target, before cancellation",
            nn + 1,
            field(&|v| v[0]),
        ),
        Metric::numeric(
            "defender_successes",
            "defender's dice at or under its melee target, before cancellation",
            m as usize + 1,
            field(&|v| v[1]),
        ),
        Metric::numeric(
            "hits_on_defender",
            "attacker's dice still standing after cancellation",
            nn + 1,
            field(&hits_on_d),
        ),
        Metric::numeric(
            "hits_on_attacker",
            "defender's dice still standing after cancellation",
            m as usize + 1,
            field(&hits_on_a),
        ),
        Metric::numeric(
            "armour_saves",
            "hits saved by the armour roll (d12 <= armour class)",
            most + 1,
            field(&|v| (hits_on_d(v) + hits_on_a(v)).saturating_sub(v[3])),
        ),
        hp_lost_metric("defender", defender, nn, drops[1], &lost_by_d),
        hp_lost_metric("attacker", attacker, m as usize, drops[0], &lost_by_a),
        condition_metric("defender_condition", defender, &lost_by_d),
        condition_metric("attacker_condition", attacker, &lost_by_a),
    ];
    if fall_most > 0 {
        metrics.insert(
            8,
            Metric::numeric(
                "fall_hp_lost",
                "HP lost falling: the side hit is pushed 1 square over the drop behind it",
                fall_most + 1,
                field(&|v| if side(v[2]) == 0 { 0 } else { v[4] }),
            ),
        );
    }
    metrics
}

/// HP one side of a charge loses (`role`: attacker or defender): its hits past the
/// armour saves, at most `hits`, and the fall where the charge pushed it over a drop.
fn hp_lost_metric(role: &str, who: &Character, hits: usize, drop: u32, lost: &[u32]) -> Metric {
    let fall = drop >= 2;
    Metric::numeric(
        &format!("{role}_hp_lost"),
        &format!(
            "HP the {role} loses (armour class {}){}",
            who.ac(),
            if fall { ", the fall included" } else { "" }
        ),
        hits + 1 + if fall { drop as usize } else { 0 },
        lost.iter().map(|&l| l as u16).collect(),
    )
}

/// `A charges B: their melee dice, AC a vs b`, and each side with a drop behind it that
/// a fall costs HP over.
fn charge_description(sides: [&Character; 2], dice: [u32; 2], drops: [u32; 2]) -> String {
    let edges: Vec<String> = sides
        .iter()
        .zip(drops)
        .filter(|(_, d)| *d >= 2)
        .map(|(who, d)| format!("{} has a drop of {d} behind", who.name))
        .collect();
    let edges = if edges.is_empty() {
        String::new()
    } else {
        format!("; {}", edges.join(", "))
    };
    let [a, d] = sides;
    format!(
        "{} charges {}: {} vs {}, AC {} vs {}{edges}",
        a.name,
        d.name,
        describe_melee(a, dice[0]),
        describe_melee(d, dice[1]),
        a.ac(),
        d.ac()
    )
}

/// An opposed conflict. State: (active successes, opponent successes, outcome).
struct OpposedTrial {
    a: Pool,
    d: Pool,
    radix: [usize; 3],
}

impl Trial for OpposedTrial {
    fn states(&self) -> usize {
        self.radix.iter().product()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let mut s = Stream::new();
        let xa = self.a.roll(&mut s, rng);
        let xd = self.d.roll(&mut s, rng);
        let (code, _) = resolve(xa, xd, self.a.dice);
        (successes(xa) as usize * self.radix[1] + successes(xd) as usize) * self.radix[2]
            + code as usize
    }
}

/// Opposed conflicts need a roll on both sides: the caller refuses "very easy".
pub fn compile_opposed(
    name: &str,
    active: &Contestant,
    opponent: &Contestant,
    rules: &Rules,
) -> Compiled {
    let (n, m) = (active.dice(), opponent.dice());
    let ta = contest_target(active, rules).unwrap_or(0);
    let td = contest_target(opponent, rules).unwrap_or(0);
    let (rx, exact) = face_to_face::<f64>(n, ta, m, td);
    let states: Vec<Vec<usize>> = (0..rx.size()).map(|s| rx.decode(s)).collect();
    let nn = n as usize;
    let field = |f: &dyn Fn(&[usize]) -> usize| -> Vec<u16> {
        states.iter().map(|v| f(v) as u16).collect()
    };
    let metrics = vec![
        Metric::categorical(
            "result",
            "dice at or under the other side's highest success are cancelled; ties go to the active side",
            &["neither", "active wins", "opponent wins"],
            field(&|v| match v[2] {
                0 => 0,
                c if c <= nn => 1,
                _ => 2,
            }),
        ),
        Metric::numeric(
            "active_successes",
            "active side's successes before cancellation",
            nn + 1,
            field(&|v| v[0]),
        ),
        Metric::numeric(
            "opponent_successes",
            "opponent's successes before cancellation",
            m as usize + 1,
            field(&|v| v[1]),
        ),
        Metric::numeric(
            "active_net_successes",
            "active side's dice still standing after cancellation",
            nn + 1,
            field(&|v| if v[2] <= nn { v[2] } else { 0 }),
        ),
        Metric::numeric(
            "opponent_net_successes",
            "opponent's dice still standing after cancellation",
            m as usize + 1,
            field(&|v| v[2].saturating_sub(nn)),
        ),
    ];
    Compiled::new(
        name,
        format!(
            "{} ({}) against {} ({})",
            active.who.name,
            describe_contest(active),
            opponent.who.name,
            describe_contest(opponent)
        ),
        Box::new(OpposedTrial {
            a: Pool::new(n, ta),
            d: Pool::new(m, td),
            radix: [nn + 1, m as usize + 1, (n + m) as usize + 1],
        }),
        metrics,
        Headline {
            label: "P(active side wins)".into(),
            metric: 0,
            values: vec![1],
            against: vec![2],
        },
    )
    .exact(Some(exact))
    .fractions_later(move || face_to_face::<Ratio>(n, ta, m, td).1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_statistics_match_the_joint() {
        for (n, ta, m, td) in [(3, 7, 3, 5), (1, 11, 4, 2), (0, 5, 2, 5), (5, 0, 2, 9)] {
            let h = hits::<f64>(n, ta, m, td);
            let (rx, j) = face_to_face::<f64>(n, ta, m, td);
            let mut win = vec![0.0; n as usize + 1];
            let mut lose = vec![0.0; m as usize + 1];
            let mut none = 0.0;
            for (s, &p) in j.iter().enumerate() {
                let c = rx.decode(s)[2];
                if c == 0 {
                    none += p;
                } else if c <= n as usize {
                    win[c] += p;
                } else {
                    lose[c - n as usize] += p;
                }
            }
            assert!((none - h.none).abs() < 1e-14);
            for (k, (x, y)) in win.iter().zip(&h.win).enumerate().skip(1) {
                assert!((x - y).abs() < 1e-14, "{n} {ta} {m} {td} win {k}");
            }
            for (x, y) in lose.iter().zip(&h.lose).skip(1) {
                assert!((x - y).abs() < 1e-14);
            }
            let total: f64 = j.iter().sum();
            assert!((total - 1.0).abs() < 1e-12, "{total}");
        }
    }

    #[test]
    fn one_die_each_by_hand() {
        // 1d12 at 6 vs 1d12 at 6: the attacker hits when it succeeds and the defender
        // fails (6/12 * 6/12) or both succeed and a >= d (21/144): 57/144.
        let h = hits::<f64>(1, 6, 1, 6);
        assert!((h.win[1] - 57.0 / 144.0).abs() < 1e-15);
        // The defender hits when both succeed and d > a (15/144) or only it does (36/144).
        assert!((h.lose[1] - 51.0 / 144.0).abs() < 1e-15);
        assert!((h.none - 36.0 / 144.0).abs() < 1e-15);
    }
}
