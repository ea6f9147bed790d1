//! Issue #70, "exact as a designer first writes it": mechanics written as a rulebook
//! states them (no clamp, no `sum` added, no packing of digits), each exact with its
//! fractions, checked against an enumerator written here in big integers (every roll,
//! or every count of each face with its multinomial ways), no code shared with the
//! library, and Monte Carlo within 4.5 standard errors.

use crate::dice_lang::compile;
use crate::util::{assert_agrees, big_gcd as gcd};
use num_bigint::BigUint;
use rollsim::model::Compiled;
use std::collections::BTreeMap;

/// A probability as a fraction of big integers, kept in lowest terms.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Q {
    pub(crate) n: BigUint,
    pub(crate) d: BigUint,
}

impl Q {
    pub(crate) fn new(n: impl Into<BigUint>, d: impl Into<BigUint>) -> Q {
        let (n, d) = (n.into(), d.into());
        let g = gcd(&n, &d);
        if g == BigUint::from(0u8) {
            return Q { n, d };
        }
        Q {
            n: n / &g,
            d: d / &g,
        }
    }
    fn zero() -> Q {
        Q::new(0u8, 1u8)
    }
    pub(crate) fn add(&self, o: &Q) -> Q {
        Q::new(&self.n * &o.d + &o.n * &self.d, &self.d * &o.d)
    }
    pub(crate) fn mul(&self, o: &Q) -> Q {
        Q::new(&self.n * &o.n, &self.d * &o.d)
    }
    pub(crate) fn text(&self) -> String {
        format!("{}/{}", self.n, self.d)
    }
}

pub(crate) type Law = BTreeMap<i64, Q>;

pub(crate) fn put(m: &mut Law, v: i64, q: &Q) {
    let e = m.entry(v).or_insert_with(Q::zero);
    *e = e.add(q);
}

/// The sums of `n` d4, every roll of them walked.
pub(crate) fn d4_sums(n: u64) -> Law {
    let mut out = Law::from([(0, Q::new(1u8, 1u8))]);
    for _ in 0..n {
        let mut next = Law::new();
        for (v, q) in &out {
            for f in 1..=4 {
                put(&mut next, v + f, &q.mul(&Q::new(1u8, 4u8)));
            }
        }
        out = next;
    }
    out
}

/// `n` choose `k`.
fn choose(n: u64, k: u64) -> BigUint {
    (0..k).fold(BigUint::from(1u8), |acc, i| acc * (n - i) / (i + 1))
}

/// Successes of `n` dice that each succeed `hit` times in `sides`.
pub(crate) fn binomial(n: u64, hit: u64, sides: u64) -> Law {
    let mut m = Law::new();
    let den = BigUint::from(sides).pow(n as u32);
    for k in 0..=n {
        let ways = choose(n, k)
            * BigUint::from(hit).pow(k as u32)
            * BigUint::from(sides - hit).pow((n - k) as u32);
        put(&mut m, k as i64, &Q::new(ways, den.clone()));
    }
    m
}

/// The scenario's exact values and their fractions, by value: every value with any
/// chance must have its fraction.
pub(crate) fn exact(c: &Compiled) -> BTreeMap<i64, (f64, String)> {
    exact_of(c, 0)
}

/// [`exact`] of the scenario's `i`-th metric (a record's field).
pub(crate) fn exact_of(c: &Compiled, i: usize) -> BTreeMap<i64, (f64, String)> {
    let m = &c.metrics[i];
    let p = m.project_f64(c.exact.as_ref().expect("exact"));
    let f = m.project_fractions(
        c.exact_fractions
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no fractions", c.description)),
    );
    let mut out = BTreeMap::new();
    for (i, q) in p.iter().enumerate() {
        if *q > 0.0 || f[i].to_string() != "0/1" {
            out.insert(m.value(i) as i64, (*q, f[i].to_string()));
        }
    }
    out
}

/// The roll is exact, each value's fraction is the enumerator's, and Monte Carlo agrees.
pub(crate) fn holds(roll: &str, want: &Law) {
    let c = compile(roll, None);
    let got = exact(&c);
    let want: BTreeMap<i64, &Q> = want
        .iter()
        .filter(|(_, q)| q.n != BigUint::from(0u8))
        .map(|(v, q)| (*v, q))
        .collect();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{roll}"
    );
    for (v, q) in &want {
        assert_eq!(got[v].1, q.text(), "{roll}: value {v}");
    }
    assert_agrees(&c, &["value"], 40_000, 11);
}

/// [`holds`] of the ways of each value over `den`.
fn holds_ways(roll: &str, ways: BTreeMap<i64, BigUint>, den: &BigUint) {
    let want: Law = ways
        .into_iter()
        .map(|(v, w)| (v, Q::new(w, den.clone())))
        .collect();
    holds(roll, &want);
}

/// The rounds a count starting at `start` (with chance `p`) takes to reach 0, `next`
/// its law after a round from `n`, stopped at the default limit of 100 rounds as the
/// language's table says: into `out`, round by round.
fn rounds_to_none(start: i64, p: &Q, out: &mut Law, next: impl Fn(i64) -> Law) {
    let mut alive: BTreeMap<i64, Q> = BTreeMap::from([(start, p.clone())]);
    for round in 0..=100 {
        let mut after: BTreeMap<i64, Q> = BTreeMap::new();
        for (n, q) in &alive {
            if *n == 0 || round == 100 {
                put(out, round, q);
                continue;
            }
            for (k, pk) in next(*n) {
                put(&mut after, k, &q.mul(&pk));
            }
        }
        alive = after;
    }
}

/// Hits, then saves of those hits, then the hits not saved each roll to wound: the
/// count of the last pool is `hits - saved`, which can never pass the six dice that
/// started it.
#[test]
fn a_count_left_after_saves_rolls_its_wounds() {
    let roll = "let hits = 6d6 count >= 4 in let saved = (hits)d6 count >= 5 in \
                (hits - saved)d6 count >= 3";
    let mut want = Law::new();
    for (h, ph) in binomial(6, 3, 6) {
        for (s, ps) in binomial(h as u64, 2, 6) {
            for (w, pw) in binomial((h - s) as u64, 4, 6) {
                put(&mut want, w, &ph.mul(&ps).mul(&pw));
            }
        }
    }
    holds(roll, &want);
}

/// Dice that fall away: each round every die left is rolled and those showing 5 or 6
/// are lost; how many rounds until none are left (a count that shrinks inside a
/// `repeat`, at most the five it starts with). The chain by binomials, round by round,
/// stopped at the default limit of 100 rounds as the language's table says.
#[test]
fn a_count_that_shrinks_inside_a_repeat() {
    let roll = "repeat n = 5 until n == 0 do n = (n)d6 count <= 4 then rounds";
    let mut want = Law::new();
    rounds_to_none(5, &Q::new(1u8, 1u8), &mut want, |n| {
        binomial(n as u64, 4, 6)
    });
    holds(roll, &want);
}

/// Three players, two d4 each, each round each rolls what is left: a player whose sum
/// plus its 4s falls short of another's sum loses a die, to the last player standing
/// (at most 6 rounds). Three pools whose counts are the state, each read two ways
/// inside one round: made for every count their bounds allow, they were refused ("make
/// the expression inside them 1030301 times": a count of a round's state was given a
/// pool for every number up to 100); the state's bounds are now what the rounds reach,
/// so three pools of at most 2 dice. Every ordered roll walked, state by state.
#[test]
fn three_pools_whose_counts_shrink_each_read_two_ways_in_one_round() {
    let roll = "repeat a = 2, b = 2, c = 2 until (a > 0) + (b > 0) + (c > 0) <= 1 \
                do let x = (a)d4 in let y = (b)d4 in let z = (c)d4 in \
                a = a - (a > 0 and x sum + x count 4 < max(y sum, z sum)), \
                b = b - (b > 0 and y sum + y count 4 < max(x sum, z sum)), \
                c = c - (c > 0 and z sum + z count 4 < max(x sum, y sum)) \
                limit 6 then a * 9 + b * 3 + c";
    let mut alive: BTreeMap<[i64; 3], Q> = BTreeMap::from([([2, 2, 2], Q::new(1u8, 1u8))]);
    let mut want = Law::new();
    for round in 0..=6 {
        let mut after: BTreeMap<[i64; 3], Q> = BTreeMap::new();
        for (s, q) in &alive {
            if s.iter().filter(|&&n| n > 0).count() <= 1 || round == 6 {
                put(&mut want, s[0] * 9 + s[1] * 3 + s[2], q);
                continue;
            }
            let rolls: Vec<Vec<Vec<i64>>> =
                s.iter().map(|&n| ordered_rolls(n as usize, 4)).collect();
            let den: usize = rolls.iter().map(Vec::len).product();
            let mut ways: BTreeMap<[i64; 3], u64> = BTreeMap::new();
            for x in &rolls[0] {
                for y in &rolls[1] {
                    for z in &rolls[2] {
                        let pools = [x, y, z];
                        let sums: Vec<i64> = pools.iter().map(|r| r.iter().sum()).collect();
                        let mut t = *s;
                        for i in 0..3 {
                            let fours = pools[i].iter().filter(|&&f| f == 4).count() as i64;
                            let best = (0..3)
                                .filter(|&j| j != i)
                                .map(|j| sums[j])
                                .max()
                                .unwrap_or(0);
                            if s[i] > 0 && sums[i] + fours < best {
                                t[i] -= 1;
                            }
                        }
                        *ways.entry(t).or_default() += 1;
                    }
                }
            }
            for (t, w) in ways {
                let e = after.entry(t).or_insert_with(Q::zero);
                *e = e.add(&q.mul(&Q::new(w, den as u64)));
            }
        }
        alive = after;
    }
    holds(roll, &want);
}

/// A firefight whose counts are rolled three deep (hits, wounds, saves failed) and
/// shrink round by round: 5 Marines of 2 wounds each (hit 3+, wound 3+, the Guard's
/// save 5+) and 10 Guardsmen (hit 4+, wound 5+, the Marines' save 3+) shoot by turns,
/// the Marines first, to the end or the 100th round. Its rounds' denominators pass
/// 2,000 digits. Counted here by thinning, not by rolling counts: a shot kills a
/// Guardsman in 8 of 27 ways, wounds a Marine in 1 of 18, so each volley is one
/// binomial, every round brought to one denominator (27^5 · 18^10).
#[test]
fn a_firefight_of_counts_rolled_three_deep_has_its_fraction() {
    let roll = "repeat w = 10, g = 10 until w <= 0 or g <= 0 \
        do let left = max(0, g - (((((w + 1) / 2)d6 count >= 3)d6 count >= 3)d6 count <= 4)) in \
        g = left, w = max(0, w - ((((left)d6 count >= 4)d6 count >= 5)d6 count <= 2)) \
        then (w + 1) / 2 - g";
    // Ways of k of n shots, each `hit` of `sides`, over `sides^most` (n <= most).
    let volley = |n: u64, hit: u64, sides: u64, most: u64| -> Vec<(i64, BigUint)> {
        let up = BigUint::from(sides).pow((most - n) as u32);
        (0..=n)
            .map(|k| {
                let ways = choose(n, k)
                    * BigUint::from(hit).pow(k as u32)
                    * BigUint::from(sides - hit).pow((n - k) as u32);
                (k as i64, ways * &up)
            })
            .collect()
    };
    let round = BigUint::from(27u8).pow(5) * BigUint::from(18u8).pow(10);
    let mut alive: BTreeMap<(i64, i64), BigUint> = BTreeMap::from([((10, 10), 1u8.into())]);
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    for played in 0..=100u32 {
        let mut after: BTreeMap<(i64, i64), BigUint> = BTreeMap::new();
        for (&(w, g), q) in &alive {
            if w <= 0 || g <= 0 || played == 100 {
                // Over `round^100`, as every way that ends.
                *ways.entry((w + 1) / 2 - g).or_default() += q * round.pow(100 - played);
                continue;
            }
            for (k, pk) in volley(((w + 1) / 2) as u64, 8, 27, 5) {
                let left = (g - k).max(0);
                for (u, pu) in volley(left as u64, 1, 18, 10) {
                    *after.entry(((w - u).max(0), left)).or_default() += q * &pk * &pu;
                }
            }
        }
        alive = after;
    }
    holds_ways(roll, ways, &round.pow(100));
}

/// A round that rolls a pool and reads it two ways (the 4s it shows, and whether its
/// best die is 3 or more), until the total reaches 4 or five rounds are played. Every
/// roll of every round walked.
#[test]
fn a_pool_read_two_ways_inside_a_round() {
    let roll = "repeat s = 0 until s >= 4 do let p = 2d4 in \
                s = s + p count 4 + (p highest >= 3) limit 5 then s";
    fn go(s: i64, round: u32, q: &Q, out: &mut Law) {
        if s >= 4 || round == 5 {
            put(out, s, q);
            return;
        }
        let each = q.mul(&Q::new(1u8, 16u8));
        for a in 1..=4i64 {
            for b in 1..=4i64 {
                let fours = i64::from(a == 4) + i64::from(b == 4);
                go(s + fours + i64::from(a.max(b) >= 3), round + 1, &each, out);
            }
        }
    }
    let mut want = Law::new();
    go(0, 0, &Q::new(1u8, 1u8), &mut want);
    holds(roll, &want);
}

/// A pool variable whose dice count is a value, its dice read several ways: a d3 of
/// d6s read by its 6s and its best die; and dice set aside round by round (a 4 is
/// kept, then a 3 beside it, the rest rolled again: `(2 - s)d4`, at most four rounds),
/// each round's dice read by two counts. Every roll walked.
#[test]
fn a_pool_whose_count_is_a_value_read_several_ways() {
    let mut want = Law::new();
    for n in 1..=3usize {
        for r in ordered_rolls(n, 6) {
            let sixes = r.iter().filter(|&&f| f == 6).count() as i64;
            let best = *r.iter().max().unwrap_or(&0);
            let q = Q::new(1u8, BigUint::from(3u8) * BigUint::from(6u8).pow(n as u32));
            put(&mut want, sixes * 10 + best, &q);
        }
    }
    holds(
        "let n = d3 in let p = (n)d6 in p count 6 * 10 + p highest",
        &want,
    );

    fn go(s: i64, round: u32, q: &Q, out: &mut Law) {
        if s == 2 || round == 4 {
            put(out, s * 10 + round as i64, q);
            return;
        }
        let rolls = ordered_rolls((2 - s) as usize, 4);
        let each = q.mul(&Q::new(1u8, rolls.len() as u32));
        for r in rolls {
            let four = s >= 1 || r.contains(&4);
            let three = four && r.iter().filter(|&&f| f == 3).count() >= 1;
            let next = if s >= 1 {
                1 + i64::from(r.contains(&3))
            } else {
                i64::from(four) + i64::from(three && r.len() >= 2)
            };
            go(next, round + 1, &each, out);
        }
    }
    let mut want = Law::new();
    go(0, 0, &Q::new(1u8, 1u8), &mut want);
    holds(
        "repeat s = 0 until s == 2 do let p = (2 - s)d4 in \
         let four = s >= 1 or p count 4 >= 1 in \
         s = if s >= 1 then 1 + (p count 3 >= 1) else four + (four and p count 3 >= 1) \
         limit 4 then s * 10 + rounds",
        &want,
    );
}

/// A record of two reads of a pool variable whose dice count is rolled (hits of 3d10 on
/// 6+, then a d10 per hit: wounds on 8+ and crits on 10): each field is the binomial
/// of three dice that each wound in 3 of 20 ways (and crit in 1 of 20), with the line
/// of lets before the record or not.
#[test]
fn a_record_of_a_pool_whose_count_is_rolled() {
    for roll in [
        "let hits = 3d10 count >= 6 in let w = (hits)d10 in { wounds = w count >= 8, crits = w count 10 }",
        "let hits = 3d10 count >= 6 in let w = (hits)d10 in let wo = w count >= 8 in \
         let cr = w count 10 in { wounds = wo, crits = cr }",
    ] {
        let c = compile(roll, None);
        for (i, hit) in [(0, 3u64), (1, 1)] {
            let got = exact_of(&c, i);
            let want: Vec<(i64, String)> = binomial(3, hit, 20)
                .into_iter()
                .map(|(v, q)| (v, q.text()))
                .collect();
            let got: Vec<(i64, String)> = got.into_iter().map(|(v, (_, f))| (v, f)).collect();
            assert_eq!(got, want, "{roll}: field {i}");
        }
        assert_agrees(&c, &["wounds", "crits"], 40_000, 5);
    }
}

/// A pool whose count is rolled, bound by `let` and read as a number: d4 dice of d6,
/// their total against twice the d4 plus 3. Every roll walked.
#[test]
fn a_rolled_pool_bound_by_let_is_its_number() {
    let roll = "let a = d4 in let x = (a)d6 in x > 2 * a + 3";
    let mut want = Law::new();
    for a in 1..=4i64 {
        let den = BigUint::from(4u8) * BigUint::from(6u8).pow(a as u32);
        let mut rolls = vec![0i64];
        for _ in 0..a {
            rolls = rolls
                .iter()
                .flat_map(|s| (1..=6).map(move |f| s + f))
                .collect();
        }
        for x in rolls {
            put(
                &mut want,
                i64::from(x > 2 * a + 3),
                &Q::new(1u8, den.clone()),
            );
        }
    }
    holds(roll, &want);
}

/// Every count of each face among `n` dice of `sides`, with its multinomial ways.
fn compositions(n: u64, sides: usize) -> Vec<(Vec<u64>, BigUint)> {
    fn walk(left: u64, face: usize, sides: usize, cur: &mut Vec<u64>, out: &mut Vec<Vec<u64>>) {
        if face + 1 == sides {
            cur.push(left);
            out.push(cur.clone());
            cur.pop();
            return;
        }
        for k in 0..=left {
            cur.push(k);
            walk(left - k, face + 1, sides, cur, out);
            cur.pop();
        }
    }
    let mut all = Vec::new();
    walk(n, 0, sides, &mut Vec::new(), &mut all);
    all.into_iter()
        .map(|c| {
            let mut ways = BigUint::from(1u8);
            let mut left = n;
            for &k in &c {
                ways *= choose(left, k);
                left -= k;
            }
            (c, ways)
        })
        .collect()
}

/// One pool read four ways: the 6s, the better of the 4s and the 5s, less the 1s (a
/// bid read beside a category). Every count of each face of 20d6.
#[test]
fn one_pool_read_four_ways() {
    let roll = "let p = 20d6 in p count 6 + max(p count 4, p count 5) - p count 1";
    let den = BigUint::from(6u8).pow(20);
    let mut want = Law::new();
    for (c, ways) in compositions(20, 6) {
        // c[f - 1]: how many dice show f.
        let v = c[5] as i64 + c[3].max(c[4]) as i64 - c[0] as i64;
        put(&mut want, v, &Q::new(ways, den.clone()));
    }
    holds(roll, &want);
}

/// Mortal wounds beside the wound chain (Age of Sigmar): 12 attacks hit on 3+, an
/// unmodified 6 is a mortal wound; the other hits wound on 3+, and those are saved on
/// 4+. The count of the last pool is rolled from a pool whose count is read off the
/// first: for the 91 counts of 6s and of hits, its law comes again and again (the same
/// hits less 6s), and each time it must mix the same pools. Every count of 6s, of 3-5s
/// and of the rest among the 12 dice, then binomials.
#[test]
fn a_count_rolled_from_a_count_read_off_a_pool_held() {
    let roll = "let p = 12d6 in p count 6 + ((p count >= 3 - p count 6)d6 count >= 3)d6 count <= 3";
    let den = BigUint::from(6u8).pow(12);
    let mut want = Law::new();
    for six in 0..=12u64 {
        for mid in 0..=12 - six {
            // Dice showing 6, showing 3 to 5, and the rest.
            let ways = choose(12, six)
                * choose(12 - six, mid)
                * BigUint::from(3u8).pow(mid as u32)
                * BigUint::from(2u8).pow((12 - six - mid) as u32);
            let first = Q::new(ways, den.clone());
            for (w, pw) in binomial(mid, 4, 6) {
                for (u, pu) in binomial(w as u64, 3, 6) {
                    put(&mut want, six as i64 + u, &first.mul(&pw).mul(&pu));
                }
            }
        }
    }
    holds(roll, &want);
}

/// A pool's reads leading to dice rolled after it, in the forms a rule takes: the
/// 6s beside the dice the other hits roll, each wound then saved (Warhammer's Lethal
/// Hits); dice rolled less a read (on the read's right); a read against the count of
/// another roll; a pool's best die beside dice of a count clamped at 0; the dice of a
/// count of two reads alone, of rerolled dice, and of a count that can fall below 0. The dice after depend on the pool only through
/// numbers worked out of its reads: each is counted once per such number, not per
/// throw of the pool. Every count of each face of the pool, then binomials.
#[test]
fn a_pool_read_into_the_dice_rolled_after_it() {
    let den = BigUint::from(6u8).pow(8);
    // c[f - 1]: how many of the eight dice show f; each form's law given the counts.
    type Form = (&'static str, fn(&[u64]) -> Law);
    let forms: [Form; 8] = [
        (
            "let p = 8d6 in let w = p count 6 + (p count >= 3 - p count 6)d6 count >= 4 in \
             (w)d6 count <= 2",
            |c| {
                let mut out = Law::new();
                for (k, pk) in binomial(c[2] + c[3] + c[4], 3, 6) {
                    for (u, pu) in binomial(c[5] + k as u64, 2, 6) {
                        put(&mut out, u, &pk.mul(&pu));
                    }
                }
                out
            },
        ),
        (
            "let p = 8d6 in ((p count >= 5)d6 count >= 4) - p count 1",
            |c| {
                binomial(c[4] + c[5], 3, 6)
                    .into_iter()
                    .map(|(k, q)| (k - c[0] as i64, q))
                    .collect()
            },
        ),
        (
            "let p = 8d6 in p count 6 >= ((p count 1)d6 count >= 5)",
            |c| {
                let mut out = Law::new();
                for (k, q) in binomial(c[0], 2, 6) {
                    put(&mut out, i64::from(c[5] as i64 >= k), &q);
                }
                out
            },
        ),
        (
            "let p = 8d6 in p highest + (max(0, p count >= 4 - 2))d4",
            |c| {
                let best = (0..6).rev().find(|&f| c[f] > 0).map_or(0, |f| f as i64 + 1);
                let n = (c[3] + c[4] + c[5]).saturating_sub(2);
                d4_sums(n).into_iter().map(|(s, q)| (best + s, q)).collect()
            },
        ),
        ("let p = 8d6 in (p count 6 + p count 1)d6 count >= 5", |c| {
            binomial(c[0] + c[5], 2, 6)
        }),
        // A die rerolled once on a 1 meets 4+ in 3 of 6, or after a 1 in 3 of 6 again:
        // 21 of 36, 7 of 12.
        ("let p = 8d6 in (p count >= 5)d6 reroll 1 count >= 4", |c| {
            binomial(c[4] + c[5], 7, 12)
        }),
        // A count below 0 rolls no dice.
        ("let p = 8d6 in (p count 6 - 2)d6 count >= 4", |c| {
            binomial(c[5].saturating_sub(2), 3, 6)
        }),
        // Lethal Hits with at least one hit counted whatever: not a sum over the dice.
        (
            "let p = 8d6 in max(1, p count 6) + (p count >= 3 - p count 6)d6 count >= 4",
            |c| {
                binomial(c[2] + c[3] + c[4], 3, 6)
                    .into_iter()
                    .map(|(k, q)| (k + c[5].max(1) as i64, q))
                    .collect()
            },
        ),
    ];
    for (roll, given) in forms {
        let mut want = Law::new();
        for (c, ways) in compositions(8, 6) {
            let throw = Q::new(ways, den.clone());
            for (v, q) in given(&c) {
                put(&mut want, v, &throw.mul(&q));
            }
        }
        holds(roll, &want);
    }
}

/// A d20 that rolls again and adds on a 10 and on a 20 (at most 3 extra rolls), every
/// chain walked.
#[test]
fn an_explosion_on_two_faces() {
    fn walk(left: u32, sum: i64, w: &Q, out: &mut Law) {
        let one = w.mul(&Q::new(1u8, 20u8));
        for f in 1..=20 {
            if (f == 10 || f == 20) && left > 0 {
                walk(left - 1, sum + f, &one, out);
            } else {
                put(out, sum + f, &one);
            }
        }
    }
    let mut want = Law::new();
    walk(3, 0, &Q::new(1u8, 1u8), &mut want);
    holds("d20 explode on 10, 20 depth 3", &want);
    holds("d20 explode on {10, 20} depth 3", &want);
}

/// A step die (a trait of d4, d6 or d8, its die exploding on its highest face) whose
/// sides are a number rolled or bound first: it explodes on its own highest face, as
/// a d6 written out does (refused as "every face meets `max`" before), and its pool,
/// bound by `let`, is dice to read (refused as "`p` is a number" before).
#[test]
fn a_step_die_of_rolled_sides_explodes_on_its_own_highest_face() {
    fn walk(sides: i64, left: u32, sum: i64, w: &Q, out: &mut Law) {
        let one = w.mul(&Q::new(1u8, sides as u64));
        for f in 1..=sides {
            if f == sides && left > 0 {
                walk(sides, left - 1, sum + f, &one, out);
            } else {
                put(out, sum + f, &one);
            }
        }
    }
    let mut want = Law::new();
    for sides in [4, 6, 8] {
        walk(sides, 2, 0, &Q::new(1u8, 3u8), &mut want);
    }
    holds("let step = d3 in d(2 * step + 2) explode depth 2", &want);
    let mut six = Law::new();
    walk(6, 2, 0, &Q::new(1u8, 1u8), &mut six);
    holds("let s = 6 in d(s) explode depth 2", &six);
    // Bound by `let` and read two ways: held as dice for every number of sides, not
    // refused as "`p` is a number".
    let mut read = Law::new();
    for sides in [4i64, 6, 8] {
        let one = Q::new(1u8, 3 * (sides * sides * sides) as u64);
        for a in 1..=sides {
            for b in 1..=sides {
                for c in 1..=sides {
                    let dice = [a, b, c];
                    let max = dice.iter().filter(|&&d| d == sides).count() as i64;
                    put(&mut read, max + dice.iter().max().unwrap(), &one);
                }
            }
        }
    }
    holds(
        "let step = d3 in let p = 3d(2 * step + 2) in p count max + p highest",
        &read,
    );
}

/// The middle two of 3 to 6 dice (a count rolled first, the pool bound and read by
/// `keep middle`): read for every count it takes, not refused for the 0, 1 or 2 dice
/// below its bounds that it never holds. Of 1 to 4 dice, one or two dice are kept
/// whole, as `keep highest 2` keeps them, with or without a `let`.
#[test]
fn the_middle_of_a_pool_whose_count_is_rolled() {
    // The middle two of every roll of `n` d6 (of two or fewer, all of them), each count
    // in `counts` a quarter of the time.
    let middle = |counts: std::ops::RangeInclusive<u32>| {
        let mut want = Law::new();
        for n in counts {
            let one = Q::new(1u8, 4 * 6u64.pow(n));
            for roll in 0..6u64.pow(n) {
                let mut dice: Vec<i64> = (0..n)
                    .map(|i| (roll / 6u64.pow(i) % 6) as i64 + 1)
                    .collect();
                dice.sort();
                let kept = if n <= 2 {
                    dice.iter().sum()
                } else {
                    let low = ((n - 2) / 2) as usize;
                    dice[low] + dice[low + 1]
                };
                put(&mut want, kept, &one);
            }
        }
        want
    };
    holds(
        "let n = d4 + 2 in let p = (n)d6 in p keep middle 2 sum",
        &middle(3..=6),
    );
    let want = middle(1..=4);
    holds("let n = d4 in let p = (n)d6 in p keep middle 2 sum", &want);
    // Written without a `let`, as `keep highest` is: the same.
    holds("(d4)d6 keep middle 2 sum", &want);
}

/// A pool of two kinds of dice, one of them rolled in a number rolled first (`(d3)d6`
/// beside `2d8`): kept in the middle without a `let` (it said "`keep middle` reads
/// dice"), and bound by a `let` and read two ways (it was bound as its sum). Every roll
/// of 1 to 3 d6 and two d8 enumerated, each count a third of the time.
#[test]
fn a_pool_of_two_kinds_whose_count_is_rolled_is_held_as_its_dice() {
    let every = |read: &dyn Fn(&[i64]) -> i64| {
        let mut want = Law::new();
        for n in 1..=3u32 {
            let one = Q::new(1u8, 3 * 6u64.pow(n) * 64);
            for roll in 0..6u64.pow(n) * 64 {
                let mut dice: Vec<i64> = (0..n)
                    .map(|i| (roll / 6u64.pow(i) % 6) as i64 + 1)
                    .collect();
                let eights = roll / 6u64.pow(n);
                dice.extend([(eights % 8) as i64 + 1, (eights / 8) as i64 + 1]);
                dice.sort();
                put(&mut want, read(&dice), &one);
            }
        }
        want
    };
    // The middle two of 3 to 5 dice: `low` dropped below them, the rest above.
    let middle = |dice: &[i64]| {
        let low = (dice.len() - 2) / 2;
        dice[low] + dice[low + 1]
    };
    holds("[(d3)d6, 2d8] keep middle 2", &every(&middle));
    holds(
        "[(d3)d6, 2d8] keep middle 2 highest",
        &every(&|d: &[i64]| d[(d.len() - 2) / 2 + 1]),
    );
    // The 6s of both kinds, and the highest die.
    let sixes_and_best =
        |dice: &[i64]| dice.iter().filter(|&&v| v == 6).count() as i64 + dice[dice.len() - 1];
    holds(
        "let p = [(d3)d6, 2d8] in p count 6 + p highest",
        &every(&sixes_and_best),
    );
}

/// `keep middle` of a number that is a value (`let k = d2 in 5d6 keep middle k`, refused
/// before: "takes a number known before the roll"): the middle die or the middle two of
/// five, each half the time, by an enumerator of every roll; written in place too.
#[test]
fn the_middle_of_a_rolled_number_of_dice() {
    let mut want = Law::new();
    for k in 1..=2usize {
        let one = Q::new(1u8, 2 * 6u64.pow(5));
        for roll in 0..6u64.pow(5) {
            let mut dice: Vec<i64> = (0..5)
                .map(|i| (roll / 6u64.pow(i) % 6) as i64 + 1)
                .collect();
            dice.sort();
            let low = (5 - k) / 2;
            put(&mut want, dice[low..low + k].iter().sum(), &one);
        }
    }
    holds("let k = d2 in 5d6 keep middle k", &want);
    holds("5d6 keep middle (d2)", &want);
}

/// A die that explodes on most of its faces: each depth one convolution of the chains
/// with the exploding faces, within the budget (face by face, `d300 explode >= 2` was
/// refused: found by review). Each roll adds 150.5 on average and rolls on with chance
/// 299/300, at most 20 more times, so the mean is 150.5 (1 + q + ... + q^20), q =
/// 299/300: 150.5 * 300 (1 - q^21). Two of them: twice that, with every fraction.
#[test]
fn a_die_exploding_on_most_of_its_faces_is_exact() {
    let q: f64 = 299.0 / 300.0;
    let one = 150.5 * 300.0 * (1.0 - q.powi(21));
    for (roll, dice, fractions) in [
        ("d300 explode >= 2", 1.0, false),
        ("2d300 explode >= 2", 2.0, true),
    ] {
        let c = compile(roll, None);
        assert!(c.exact.is_some(), "{roll}: {}", c.description);
        if fractions {
            assert!(c.exact_fractions.is_some(), "{roll}: no fractions");
        }
        let d = crate::dice_lang::dist(&c);
        let mean: f64 = d.iter().map(|(v, p)| *v as f64 * p).sum();
        let total: f64 = d.values().sum();
        assert!((total - 1.0).abs() < 1e-9, "{roll}: {total}");
        assert!(
            (mean - dice * one).abs() < 1e-6 * dice * one,
            "{roll}: {mean} against {}",
            dice * one
        );
    }
}

/// A `let` before a `repeat`: the hits of 3d6 on 5+ start the count of dice left, each
/// round a d6 on 4+ takes one away; the rounds to clear them.
#[test]
fn a_let_before_a_repeat_is_its_start() {
    let roll = "let hits = 3d6 count >= 5 in repeat left = hits until left == 0 do \
                left = left - (d6 >= 4) then rounds";
    let mut want = Law::new();
    let half = Q::new(1u8, 2u8);
    for (h, ph) in binomial(3, 2, 6) {
        rounds_to_none(h, &ph, &mut want, |n| {
            BTreeMap::from([(n - 1, half.clone()), (n, half.clone())])
        });
    }
    holds(roll, &want);
}

/// Bindings the rounds read, before the `repeat` (Tenzi's first throw): four d6, the
/// face most of them show (the highest of those tied) is the target and those dice are
/// set aside; the rest roll each round, those on the target or higher set aside too;
/// the throws until none is left. Every first throw walked, then the chain of each.
#[test]
fn a_first_throw_sets_the_target_every_round_reads() {
    let roll = "let p = 4d6 in let target = p mode in \
                repeat left = 4 - p maxset until left == 0 do \
                left = left - (left)d6 count >= target then rounds + 1";
    let mut firsts: BTreeMap<(i64, i64), u64> = BTreeMap::new();
    for i in 0..6u32.pow(4) {
        let mut seen = [0i64; 7];
        for d in 0..4 {
            seen[(i / 6u32.pow(d) % 6 + 1) as usize] += 1;
        }
        let most = *seen.iter().max().unwrap();
        let mode = (1..=6).rev().find(|&f| seen[f] == most).unwrap() as i64;
        *firsts.entry((mode, most)).or_default() += 1;
    }
    let mut rounds = Law::new();
    for ((mode, most), ways) in firsts {
        let p = Q::new(ways, 6u32.pow(4));
        rounds_to_none(4 - most, &p, &mut rounds, |n| {
            binomial(n as u64, (7 - mode) as u64, 6)
                .into_iter()
                .map(|(k, q)| (n - k, q))
                .collect()
        });
    }
    let want = rounds.into_iter().map(|(r, q)| (r + 1, q)).collect();
    holds(roll, &want);
}

/// A duel whose one side's bonus is rolled before it and added every round: 6 hit
/// points each, the first side hit for d4 plus the bonus, the other for 2d3 each round,
/// both at once; whether the second side ends ahead. The pairs of hit points round by
/// round, every die walked.
#[test]
fn a_duel_with_a_bonus_rolled_first() {
    let roll = "let bonus = d3 in repeat a = 6, b = 6 until a <= 0 or b <= 0 do \
                a = a - (d4 + bonus), b = b - 2d3 then a > b";
    let mut want = Law::new();
    for bonus in 1..=3i64 {
        let mut alive: BTreeMap<(i64, i64), Q> = BTreeMap::from([((6, 6), Q::new(1u8, 3u8))]);
        for round in 0..=100 {
            let mut after: BTreeMap<(i64, i64), Q> = BTreeMap::new();
            for ((a, b), q) in &alive {
                if *a <= 0 || *b <= 0 || round == 100 {
                    put(&mut want, i64::from(a > b), q);
                    continue;
                }
                let one = q.mul(&Q::new(1u8, 36u8));
                for x in 1..=4 {
                    for (y, z) in (1..=3).flat_map(|y| (1..=3).map(move |z| (y, z))) {
                        let to = (a - (x + bonus), b - (y + z));
                        let e = after.entry(to).or_insert_with(Q::zero);
                        *e = e.add(&one);
                    }
                }
            }
            alive = after;
        }
    }
    holds(roll, &want);
}

/// Every ordered deal of `k` labelled cards from `deck`: each equally likely.
pub(crate) fn ordered_deals(deck: &[i64], k: usize, value: impl Fn(&[i64]) -> i64) -> Law {
    fn go(
        deck: &[i64],
        used: &mut Vec<bool>,
        hand: &mut Vec<i64>,
        k: usize,
        f: &mut dyn FnMut(&[i64]),
    ) {
        if hand.len() == k {
            f(hand);
            return;
        }
        for i in 0..deck.len() {
            if !used[i] {
                used[i] = true;
                hand.push(deck[i]);
                go(deck, used, hand, k, f);
                hand.pop();
                used[i] = false;
            }
        }
    }
    let mut ways: BTreeMap<i64, u64> = BTreeMap::new();
    let mut all = 0u64;
    go(
        deck,
        &mut vec![false; deck.len()],
        &mut Vec::new(),
        k,
        &mut |h| {
            *ways.entry(value(h)).or_insert(0) += 1;
            all += 1;
        },
    );
    ways.into_iter().map(|(v, w)| (v, Q::new(w, all))).collect()
}

/// Three cards drawn in order from one deck, each read apart: a blackjack start, the
/// first two cards and a third taken below 17 (an ace counts 11 while that stays at
/// most 21, the value of the third card read apart). Every ordered deal of the 52
/// labelled cards.
#[test]
fn three_cards_drawn_in_order_from_one_deck() {
    let deck: Vec<i64> = (1..=13).flat_map(|r| [r.min(10); 4]).collect();
    let roll = "let first, second, third = deck{1*4, 2*4, 3*4, 4*4, 5*4, 6*4, 7*4, 8*4, 9*4, 10*16} draw 3 in \
        let two = first + second + 10 * (first == 1 or second == 1) in \
        if two >= 17 then two else first + second + third + 10 * ((first == 1 or second == 1 or third == 1) and first + second + third <= 11)";
    let want = ordered_deals(&deck, 3, |h| {
        let ace = |cards: &[i64]| cards.contains(&1);
        let two = h[0] + h[1] + 10 * ace(&h[..2]) as i64;
        if two >= 17 {
            two
        } else {
            let s: i64 = h.iter().sum();
            s + 10 * (ace(h) && s <= 11) as i64
        }
    });
    holds(roll, &want);
    // The order matters: the first card above the second, the second above the third.
    let small = [1, 1, 2, 3, 3, 3];
    let want = ordered_deals(&small, 3, |h| h[0] * 100 + h[1] * 10 + h[2]);
    holds(
        "let a, b, c = deck{1*2, 2, 3*3} draw 3 in a * 100 + b * 10 + c",
        &want,
    );
}

/// A deal in order is card after card, so its cost is the sequences of values it can
/// give, not its hands times their orders: nine names (a Pandemic setup, three cubes on
/// each of the first three cities, two on the next three, one on the last three) from
/// a deck of two kinds, and a Texas hold 'em flop of 13 ranks. Every ordered deal of
/// the labelled cards; the flop by hand: the hole cards pair (3/51), and the flop holds
/// one of the 2 cards of their rank left (1 - 48*47*46 / (50*49*48)), 144/20825.
#[test]
fn nine_cards_and_a_flop_dealt_in_order() {
    let deck = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
    let cubes = [3, 3, 3, 2, 2, 2, 1, 1, 1];
    let want = ordered_deals(&deck, 9, |h| h.iter().zip(cubes).map(|(c, k)| c * k).sum());
    holds(
        "let a, b, c, d, e, f, g, h, i = deck{black=1*3, other=0*7} draw 9 in \
         3 * (a + b + c) + 2 * (d + e + f) + g + h + i",
        &want,
    );
    let mut flop = Law::new();
    put(&mut flop, 0, &Q::new(20681u32, 20825u32));
    put(&mut flop, 1, &Q::new(144u32, 20825u32));
    holds(
        "let a, b, c, d, e = deck{1*4, 2*4, 3*4, 4*4, 5*4, 6*4, 7*4, 8*4, 9*4, 10*4, 11*4, 12*4, 13*4} draw 5 in \
         a == b and (c == a or d == a or e == a)",
        &flop,
    );
}

/// Dice named one by one: each its own roll, in the order written.
#[test]
fn dice_named_one_by_one() {
    let mut want = Law::new();
    for a in 1..=6 {
        for b in 1..=8 {
            put(&mut want, a * 10 + b, &Q::new(1u8, 48u8));
        }
    }
    holds("let a, b = [1d6, 1d8] in a * 10 + b", &want);
}

/// Four players' pools compared face by face: the most 6s wins, a tie on 6s goes to the
/// most 5s among the players tied (first player's win, outright). Each pool's 6s and
/// 5s from every count of each face, the four pools' every combination.
#[test]
fn four_pools_compared_face_by_face() {
    let roll = "let a = 5d6 in let b = 5d6 in let c = 5d6 in let d = 5d6 in \
        let six = max(b count 6, c count 6, d count 6) in \
        if a count 6 != six then a count 6 > six \
        else a count 5 > max(if b count 6 == six then b count 5 else -1, \
            if c count 6 == six then c count 5 else -1, if d count 6 == six then d count 5 else -1)";
    // (6s, 5s) of one pool with its ways over 6^5.
    let mut one: BTreeMap<(u64, u64), BigUint> = BTreeMap::new();
    for (c, ways) in compositions(5, 6) {
        *one.entry((c[5], c[4])).or_default() += ways;
    }
    let pools: Vec<((u64, u64), BigUint)> = one.into_iter().collect();
    let mut won = BigUint::from(0u8);
    for (a, wa) in &pools {
        for (b, wb) in &pools {
            for (c, wc) in &pools {
                for (d, wd) in &pools {
                    let others = [b, c, d];
                    let six = others.iter().map(|o| o.0).max().unwrap();
                    let win = if a.0 != six {
                        a.0 > six
                    } else {
                        let five = others
                            .iter()
                            .filter(|o| o.0 == six)
                            .map(|o| o.1)
                            .max()
                            .unwrap();
                        a.1 > five
                    };
                    if win {
                        won += wa * wb * wc * wd;
                    }
                }
            }
        }
    }
    let den = BigUint::from(6u8).pow(20);
    let mut want = Law::new();
    put(&mut want, 1, &Q::new(won.clone(), den.clone()));
    put(&mut want, 0, &Q::new(den.clone() - won, den));
    holds(roll, &want);
}

/// Don't Rest Your Head's dominance: four pools (Discipline 3, Exhaustion 1, Madness 2,
/// Pain 3), each pool's dice cancelled by the matching faces of another, the pool whose
/// best die left is highest against every other dominates (ties to Discipline, then
/// Madness, then Exhaustion). Every multiset of each pool with its multinomial ways.
#[test]
fn four_pools_each_cancelled_by_every_other() {
    let roll = "let d = 3d6 in let e = 1d6 in let m = 2d6 in let p = 3d6 in \
        if cancel(d, m) highest >= cancel(m, d) highest and cancel(d, e) highest >= cancel(e, d) highest \
           and cancel(d, p) highest >= cancel(p, d) highest then 1 \
        else if cancel(m, e) highest >= cancel(e, m) highest and cancel(m, p) highest >= cancel(p, m) highest then 2 \
        else if cancel(e, p) highest >= cancel(p, e) highest then 3 else 4";
    let pool = |n: u64| -> Vec<(Vec<u64>, BigUint)> { compositions(n, 6) };
    // The highest face of `a` left once each die of `b` cancels one of `a` showing its face.
    let best_left = |a: &[u64], b: &[u64]| -> i64 {
        (0..6)
            .rev()
            .find(|&f| a[f] > b[f])
            .map_or(0, |f| f as i64 + 1)
    };
    let (ds, es, ms, ps) = (pool(3), pool(1), pool(2), pool(3));
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    for (d, wd) in &ds {
        for (e, we) in &es {
            for (m, wm) in &ms {
                for (p, wp) in &ps {
                    let beats = |x: &[u64], y: &[u64]| best_left(x, y) >= best_left(y, x);
                    let v = if beats(d, m) && beats(d, e) && beats(d, p) {
                        1
                    } else if beats(m, e) && beats(m, p) {
                        2
                    } else if beats(e, p) {
                        3
                    } else {
                        4
                    };
                    *ways.entry(v).or_default() += wd * we * wm * wp;
                }
            }
        }
    }
    holds_ways(roll, ways, &BigUint::from(6u8).pow(9));
}

/// Two pools set against each other, read as one multiset pass counted in ways: each
/// die of the second cancels one of the first showing its face (the first's best die
/// left, and the sum of what is left), and the first's dice above the second's best.
/// Every multiset of both pools with its multinomial ways.
#[test]
fn two_pools_met_die_by_die_have_their_fractions() {
    type Read = fn(&[u64], &[u64]) -> i64;
    let reads: [(&str, Read); 3] = [
        ("cancel(5d6, 4d6) highest", |a, b| {
            (0..6)
                .rev()
                .find(|&f| a[f] > b[f])
                .map_or(0, |f| f as i64 + 1)
        }),
        ("cancel(5d6, 4d6) sum", |a, b| {
            (0..6)
                .map(|f| a[f].saturating_sub(b[f]) as i64 * (f as i64 + 1))
                .sum()
        }),
        ("beats(5d6, 4d6)", |a, b| {
            let best = (0..6).rev().find(|&f| b[f] > 0).map_or(0, |f| f + 1);
            (best..6).map(|f| a[f] as i64).sum()
        }),
    ];
    for (roll, value) in reads {
        let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
        for (a, wa) in compositions(5, 6) {
            for (b, wb) in compositions(4, 6) {
                *ways.entry(value(&a, &b)).or_default() += &wa * &wb;
            }
        }
        holds_ways(roll, ways, &BigUint::from(6u8).pow(9));
    }
}

/// Every ordered roll of `n` dice of `sides`, each with its way: one way in `sides^n`.
fn ordered_rolls(n: usize, sides: i64) -> Vec<Vec<i64>> {
    (0..n).fold(vec![vec![]], |rolls, _| {
        rolls
            .iter()
            .flat_map(|r| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect()
    })
}

/// `reroll ... to maximise`: the choices are the plan's, the dice they end with counted
/// in whole numbers (they had no fraction before). The best play is plain here, so the
/// enumerator plays it by hand over every ordered roll: chasing 6s, every die that is
/// not a 6 is thrown again, twice; for the highest total of 2d6 thrown once more, a die
/// under 4 (below the 3.5 a new throw is worth) is thrown again.
#[test]
fn a_reroll_to_maximise_counts_its_choices() {
    let mut want = Law::new();
    let den = BigUint::from(6u8).pow(9);
    for first in ordered_rolls(3, 6) {
        let mut ends: Vec<(i64, BigUint)> = vec![(0, BigUint::from(1u8))];
        for d in first {
            // One die through two rerolls: the chance it ends a 6, scaled to 6^2.
            let six = if d == 6 { 36u32 } else { 11 };
            ends = ends
                .into_iter()
                .flat_map(|(c, w)| {
                    [
                        (c + 1, &w * BigUint::from(six)),
                        (c, &w * BigUint::from(36 - six)),
                    ]
                })
                .collect();
        }
        for (c, w) in ends {
            put(&mut want, c, &Q::new(w, den.clone()));
        }
    }
    holds(
        "reroll p = 3d6 twice to maximise p count 6 in p count 6",
        &want,
    );

    let mut want = Law::new();
    for first in ordered_rolls(2, 6) {
        let kept: Vec<i64> = first.iter().copied().filter(|&d| d >= 4).collect();
        for again in ordered_rolls(2 - kept.len(), 6) {
            let total: i64 = kept.iter().chain(&again).sum();
            let ways = BigUint::from(6u8).pow(kept.len() as u32);
            put(&mut want, total, &Q::new(ways, BigUint::from(6u8).pow(4)));
        }
    }
    holds("reroll p = 2d6 to maximise p sum", &want);
}

/// A pool variable read only by sums of its dice added together (successes, with a 6
/// counting twice, less the dice's total): every ordered roll, and every chain of a pool
/// with `again` (a 4 adds a die, at most two more a die), walked in the test.
#[test]
fn a_pool_whose_reads_add_up_die_by_die() {
    let mut want = Law::new();
    let one = Q::new(1u8, 6u32.pow(5));
    for r in ordered_rolls(5, 6) {
        let hits = r.iter().filter(|&&f| f >= 4).count() as i64;
        let sixes = r.iter().filter(|&&f| f == 6).count() as i64;
        put(
            &mut want,
            hits + 2 * sixes - r.iter().sum::<i64>() + 3,
            &one,
        );
    }
    holds(
        "let p = 5d6 in p count >= 4 + 2 * p count 6 - p sum + 3",
        &want,
    );

    /// The dice of `left` chains still to roll: `rolls` so far, the chance so far.
    fn chains(left: u32, rolls: &mut Vec<i64>, w: &Q, out: &mut Law) {
        if left == 0 {
            let low = rolls.iter().filter(|&&f| f <= 2).count() as i64;
            let fours = rolls.iter().filter(|&&f| f == 4).count() as i64;
            put(out, 5 * low + fours, w);
            return;
        }
        fn chain(extra: u32, left: u32, rolls: &mut Vec<i64>, w: &Q, out: &mut Law) {
            let one = w.mul(&Q::new(1u8, 4u8));
            for f in 1..=4 {
                rolls.push(f);
                if f == 4 && extra > 0 {
                    chain(extra - 1, left, rolls, &one, out);
                } else {
                    chains(left - 1, rolls, &one, out);
                }
                rolls.pop();
            }
        }
        chain(2, left, rolls, w, out);
    }
    let mut want = Law::new();
    chains(3, &mut Vec::new(), &Q::new(1u8, 1u8), &mut want);
    holds(
        "let p = 3d4 again 4 depth 2 in 5 * p count <= 2 + p count 4",
        &want,
    );

    // Exploding dice: a die's value is its chain's total, past its faces (a 6 rolls once
    // more and adds), and a count reads the totals.
    let mut die = Law::new();
    for f in 1..=6 {
        if f == 6 {
            for g in 1..=6 {
                put(&mut die, 6 + g, &Q::new(1u8, 36u8));
            }
        } else {
            put(&mut die, f, &Q::new(1u8, 6u8));
        }
    }
    let mut want = Law::new();
    for (a, pa) in &die {
        for (b, pb) in &die {
            for (c, pc) in &die {
                let v = 2 * (a + b + c) + [a, b, c].iter().filter(|&&x| *x >= 7).count() as i64;
                put(&mut want, v, &pa.mul(pb).mul(pc));
            }
        }
    }
    holds(
        "let p = 3d6 explode 6 depth 1 in 2 * p sum + p count >= 7",
        &want,
    );
}

/// A turn that always ends before its limit of rounds (Monopoly: doubles throw again, a
/// third double goes to jail, 0): every sequence of throws walked, and no mass stopped
/// by the limit reported, since none is.
#[test]
fn a_turn_that_ends_before_its_limit() {
    fn throws(n: u32, total: i64, w: &Q, out: &mut Law) {
        let one = w.mul(&Q::new(1u8, 36u8));
        for a in 1..=6 {
            for b in 1..=6 {
                let t = total + a + b;
                match (a == b, n) {
                    (true, 3) => put(out, 0, &one),
                    (true, _) => throws(n + 1, t, &one, out),
                    (false, _) => put(out, t, &one),
                }
            }
        }
    }
    let mut want = Law::new();
    throws(1, 0, &Q::new(1u8, 1u8), &mut want);
    let roll = "repeat total = 0, n = 0, dbl = 1 until dbl == 0 or n == 3 do let a = d6 in \
                let b = d6 in total = total + a + b, n = n + 1, dbl = a == b then if dbl then 0 else total";
    holds(roll, &want);
    let c = compile(roll, None);
    assert_eq!(c.capped_mass, 0.0);
}

/// Two pools bound one inside the other, the outer read by its highest die and its 20s
/// while the body rolls the inner one: 12d20 has 141 million multisets, too many to
/// walk, so one pass over the faces gives the outer pool's reads together, and the
/// body is worked out once for each pair of them. The enumerator: the highest of `n`
/// dice is `h` in `h^n - (h-1)^n` of `20^n` rolls; with `h = 20`, `c` of them are 20s
/// in `C(n, c) · 19^(n-c)` rolls.
#[test]
fn a_pool_too_large_to_walk_read_beside_another_rolled_in_its_body() {
    let n = 12u32;
    let den = BigUint::from(20u8).pow(n);
    let highest = |h: u32| BigUint::from(h).pow(n) - BigUint::from(h - 1).pow(n);
    // (highest, count of 20s) of the outer pool.
    let mut outer: Vec<(i64, i64, Q)> = (1..20)
        .map(|h| (h as i64, 0, Q::new(highest(h), den.clone())))
        .collect();
    for c in 1..=n {
        let ways = choose(n as u64, c as u64) * BigUint::from(19u8).pow(n - c);
        outer.push((20, c as i64, Q::new(ways, den.clone())));
    }
    let mut want = Law::new();
    for (h, c, q) in &outer {
        for g in 1..=20u32 {
            let inner = Q::new(highest(g), den.clone());
            put(&mut want, h - g as i64 + c, &q.mul(&inner));
        }
    }
    holds(
        "let a = 12d20 in let b = 12d20 in a highest - b highest + a count 20",
        &want,
    );
}

/// A sum kept from more than 64 dice of one kind goes by the face its last kept die
/// shows, not die by die: against every multiset of the dice (65d4: 50,116 of them),
/// its ways the multinomial, its kept sum read off the sorted dice.
#[test]
fn a_sum_kept_from_many_dice_by_the_face_of_its_last_kept_die() {
    fn factorial(n: u64) -> BigUint {
        (1..=n).fold(BigUint::from(1u8), |a, i| a * i)
    }
    let each = |n: u64, keep: &dyn Fn(&[i64]) -> i64| -> Law {
        let den = BigUint::from(4u8).pow(n as u32);
        let mut m = Law::new();
        for a in 0..=n {
            for b in 0..=n - a {
                for c in 0..=n - a - b {
                    let d = n - a - b - c;
                    let ways =
                        factorial(n) / (factorial(a) * factorial(b) * factorial(c) * factorial(d));
                    let mut dice: Vec<i64> = Vec::with_capacity(n as usize);
                    for (face, count) in [(1, a), (2, b), (3, c), (4, d)] {
                        dice.extend(std::iter::repeat_n(face, count as usize));
                    }
                    put(&mut m, keep(&dice), &Q::new(ways, den.clone()));
                }
            }
        }
        m
    };
    let highest = each(65, &|d| d[d.len() - 30..].iter().sum());
    holds("65d4 keep highest 30", &highest);
    let lowest = each(66, &|d| d[..7].iter().sum());
    holds("66d4 keep lowest 7", &lowest);
}

/// A pool variable met with a pool rolled beside it, the variable read again: `cancel`
/// of four d6s held by three exploding d6s (a chain of 20 more rolls: 106 faces each,
/// some 200,000 multisets, met as one pass over their faces with the dice held, not
/// every multiset paired with each of the 126 held). A die that explodes never shows a
/// 6, so it cancels a held die only where it shows 1 to 5: an enumerator of four d6s and
/// three dice of 1 to 5 or "past 6" (the sixth of the ways) gives every fraction.
#[test]
fn a_pool_variable_met_with_an_exploding_pool_and_read_again() {
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    let d6 = || 1..=6i64;
    for held in d6().flat_map(|a| {
        d6().flat_map(move |b| d6().flat_map(move |c| d6().map(move |d| [a, b, c, d])))
    }) {
        for rolled in d6().flat_map(|x| d6().flat_map(move |y| d6().map(move |z| [x, y, z]))) {
            // Each rolled die cancels one held die of its face (6: past 6, no face).
            let mut left = held.to_vec();
            for v in rolled.iter().filter(|v| **v < 6) {
                if let Some(i) = left.iter().position(|h| h == v) {
                    left.remove(i);
                }
            }
            let highest = left.iter().copied().max().unwrap_or(0);
            let sixes = held.iter().filter(|h| **h == 6).count() as i64;
            *ways.entry(highest + sixes).or_default() += BigUint::from(1u8);
        }
    }
    holds_ways(
        "let p = 4d6 in cancel(p, 3d6 explode) highest + p count 6",
        ways,
        &BigUint::from(6u8).pow(7),
    );
}

/// A count of exploding dice that is itself an exploding die: every count its chain can
/// reach (1 to 126) has its pool, each grown from the one before by the dice between.
/// Its mean is Wald's, E[count] · E[die], each die 3.5 times the chance of reaching each
/// of its 21 rolls; Monte Carlo agrees.
#[test]
fn a_count_of_exploding_dice_from_an_exploding_die() {
    let c = compile("(d6 explode)d6 explode", None);
    let d = crate::dice_lang::dist(&c);
    assert!(!d.is_empty(), "{}", c.description);
    let one: f64 = 3.5 * (0..=20).map(|j| 6f64.powi(-j)).sum::<f64>();
    let mean: f64 = d.iter().map(|(v, p)| *v as f64 * p).sum();
    assert!(
        (mean - one * one).abs() < 1e-9,
        "{mean} against {}",
        one * one
    );
    assert_agrees(&c, &["value"], 40_000, 13);
}

/// An exploding pool variable met with a pool rolled beside it, as one pass over both
/// (its 3 dice show some 200,000 multisets of their chains): how many of three open d6s
/// beat the best of 4d10, ten points each, and the 6s they show (none: a 6 rolls on).
/// An open d6 against a d10's best is 1 to 5 (6 ways of 36 each), 7 to 10 (1 way each)
/// or past 10 (2 ways): an enumerator of those and of the best of 4d10.
#[test]
fn an_exploding_pool_variable_beats_a_pool_rolled_beside_it() {
    let open: Vec<(i64, u32)> = (1..=5)
        .map(|v| (v, 6))
        .chain((7..=10).map(|v| (v, 1)))
        .chain([(11, 2)])
        .collect();
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    for m in 1..=10u32 {
        let best = BigUint::from(m.pow(4) - (m - 1).pow(4));
        for a in &open {
            for b in &open {
                for c in &open {
                    let beats = [a, b, c].iter().filter(|d| d.0 > i64::from(m)).count() as i64;
                    *ways.entry(10 * beats).or_default() += &best * BigUint::from(a.1 * b.1 * c.1);
                }
            }
        }
    }
    holds_ways(
        "let p = 3d6 explode in beats(p, 4d10) * 10 + p count 6",
        ways,
        &(BigUint::from(36u8).pow(3) * BigUint::from(10_000u16)),
    );
}

/// Reads of how many dice show each face, of pools past the 2,000,000 multisets a walk
/// takes (`8d20 straight`'s 2.2 million, 40d10's 2 billion, exploding dice): one pass
/// over the faces, each value with its fraction (summing to exactly 1) and Monte Carlo
/// agreeing.
#[test]
fn a_shape_of_a_pool_past_the_multisets_a_walk_takes() {
    for roll in [
        "8d20 straight",
        "9d20 runs",
        "40d10 mode",
        "10d20 sets 3",
        "5d10 explode mode",
    ] {
        let c = compile(roll, None);
        let got = exact(&c);
        let total = got
            .values()
            .map(|(_, f)| {
                let (n, d) = f.split_once('/').expect("a fraction");
                Q::new(n.parse::<BigUint>().unwrap(), d.parse::<BigUint>().unwrap())
            })
            .fold(Q::zero(), |a, q| a.add(&q));
        assert_eq!(total.text(), "1/1", "{roll}");
        assert_agrees(&c, &["value"], 40_000, 17);
    }
}

/// Forty d10 against forty: the first side's dice above the second's best. Settled as
/// soon as the second side's highest die is down (the dice left placed below in one
/// product), where carrying every count of dice left passed the budget. By the best
/// `m` of the second side (`m^40 - (m-1)^40` ways) and the binomial of the first's
/// dice above it: every fraction.
#[test]
fn beats_of_two_big_pools_is_settled_at_the_second_side_s_best() {
    let pow = |b: u32, e: u32| BigUint::from(b).pow(e);
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    for m in 1..=10u32 {
        let best = pow(m, 40) - pow(m - 1, 40);
        for j in 0..=40u32 {
            let w = &best * choose(40, u64::from(j)) * pow(10 - m, j) * pow(m, 40 - j);
            *ways.entry(i64::from(j)).or_default() += w;
        }
    }
    holds_ways("beats(40d10, 40d10)", ways, &pow(10, 80));
}

/// Four kinds of dice, five of each, the best four kept (a pool bought die by die, as
/// in a game of stepped dice): refused as it finished, its splits counted as a big
/// integer's though each was one machine multiply. Checked against its dice added one
/// at a time, each state the four best faces so far (at most 1,820 of them).
#[test]
fn four_kinds_of_dice_keep_their_best_four() {
    let mut states: BTreeMap<Vec<i64>, BigUint> = BTreeMap::from([(vec![], BigUint::from(1u8))]);
    let mut den = BigUint::from(1u8);
    for sides in [6i64, 8, 10, 12] {
        for _ in 0..5 {
            den *= BigUint::from(sides as u64);
            let mut next: BTreeMap<Vec<i64>, BigUint> = BTreeMap::new();
            for (best, w) in &states {
                for f in 1..=sides {
                    let mut b = best.clone();
                    b.push(f);
                    b.sort_unstable_by(|x, y| y.cmp(x));
                    b.truncate(4);
                    *next.entry(b).or_default() += w;
                }
            }
            states = next;
        }
    }
    let mut ways: BTreeMap<i64, BigUint> = BTreeMap::new();
    for (best, w) in states {
        *ways.entry(best.iter().sum()).or_default() += w;
    }
    holds_ways("[5d6, 5d8, 5d10, 5d12] keep highest 4", ways, &den);
}
