//! Worked answers to the README's and the dice language's quoted numbers, apart from the
//! library: every roll of the dice enumerated, or a Markov chain written out here. The
//! tests in `readme.rs` check the docs and the program against them.

/// A Descent die face as (hearts, surges), `None` the miss (X). Range is left out: every
/// quoted descent scenario is melee, so a black die's `H|R` is a heart.
pub(crate) type Face = Option<(u32, u32)>;
pub(crate) const RED: [Face; 6] = [
    None,
    Some((4, 0)),
    Some((3, 1)),
    Some((3, 0)),
    Some((1, 1)),
    Some((2, 0)),
];
pub(crate) const WHITE: [Face; 6] = [
    None,
    Some((3, 1)),
    Some((3, 1)),
    Some((2, 0)),
    Some((1, 1)),
    Some((1, 1)),
];
pub(crate) const YELLOW: [Face; 6] = [
    Some((0, 0)),
    Some((0, 0)),
    Some((0, 1)),
    Some((0, 1)),
    Some((1, 0)),
    Some((1, 0)),
];
pub(crate) const BLACK: [Face; 6] = [
    Some((1, 0)),
    Some((1, 0)),
    Some((1, 0)),
    Some((0, 1)),
    Some((0, 1)),
    Some((0, 0)),
];
/// The grey defence die's blocks (blank, blank, B, B, B, 2B), and with an Iron Shield
/// (a blank, below the average of 5/6, re-rolled once).
pub(crate) const GREY: [(u32, f64); 3] = [(0, 2.0 / 6.0), (1, 3.0 / 6.0), (2, 1.0 / 6.0)];
pub(crate) const IRON: [(u32, f64); 3] = [
    (0, 2.0 / 6.0 * 2.0 / 6.0),
    (1, 3.0 / 6.0 + 2.0 / 6.0 * 3.0 / 6.0),
    (2, 1.0 / 6.0 + 2.0 / 6.0 * 1.0 / 6.0),
];

/// Every roll of the dice, hearts and surges summed (`None` if any die shows X), each
/// with its probability.
pub(crate) fn descent_roll(dice: &[&[Face; 6]]) -> Vec<(Face, f64)> {
    let mut out = vec![(Some((0, 0)), 1.0)];
    for die in dice {
        out = out
            .iter()
            .flat_map(|&(acc, p)| {
                die.iter().map(move |&f| {
                    let sum = acc.zip(f).map(|(a, b)| (a.0 + b.0, a.1 + b.1));
                    (sum, p / 6.0)
                })
            })
            .collect();
    }
    out
}

/// `p` more on damage `v` of a distribution indexed by damage.
pub(crate) fn add_at(d: &mut Vec<f64>, v: u32, p: f64) {
    let v = v as usize;
    if d.len() <= v {
        d.resize(v + 1, 0.0);
    }
    d[v] += p;
}

/// The total of `n` independent attacks of distribution `d`.
pub(crate) fn sum_of(d: &[f64], n: usize) -> Vec<f64> {
    let mut total = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; total.len() + d.len() - 1];
        for (x, p) in total.iter().enumerate() {
            for (y, q) in d.iter().enumerate() {
                next[x + y] += p * q;
            }
        }
        total = next;
    }
    total
}

pub(crate) fn at_least(d: &[f64], w: usize) -> f64 {
    d.iter().skip(w).sum()
}

/// One attack of the beastman's axe (red + yellow, every surge +1 damage) on the
/// fighter (armour 2), each defence block taking 1 more off: its damage.
pub(crate) fn axe(blocks: &[(u32, f64)]) -> Vec<f64> {
    let mut d = vec![];
    for (roll, p) in descent_roll(&[&RED, &YELLOW]) {
        let dmg = roll.map_or(0, |(h, s)| (h + s).saturating_sub(2));
        for &(b, q) in blocks {
            add_at(&mut d, dmg.saturating_sub(b), p * q);
        }
    }
    d
}

/// The broadsword (red + white) with `power` black dice against `armour`: each surge
/// +1 damage, or two of them (once) for pierce 2; whichever deals more.
pub(crate) fn broadsword(power: usize, armour: u32) -> Vec<f64> {
    let mut dice: Vec<&[Face; 6]> = vec![&RED, &WHITE];
    dice.extend(std::iter::repeat_n(&BLACK, power));
    let mut d = vec![];
    for (roll, p) in descent_roll(&dice) {
        let dmg = roll.map_or(0, |(h, s)| {
            let plain = (h + s).saturating_sub(armour);
            let pierced = if s >= 2 {
                (h + s - 2).saturating_sub(armour.saturating_sub(2))
            } else {
                0
            };
            plain.max(pierced)
        });
        add_at(&mut d, dmg, p);
    }
    d
}

/// Fatigue: `k` power dice on the first broadsword attack on the ogre (armour 2, 7
/// wounds), 4 - k on the second. (P(the ogre dies), mean damage of both attacks).
pub(crate) fn fatigue(k: usize) -> (f64, f64) {
    let (a, b) = (broadsword(k, 2), broadsword(4 - k, 2));
    let (mut dies, mut mean) = (0.0, 0.0);
    for (x, p) in a.iter().enumerate() {
        for (y, q) in b.iter().enumerate() {
            dies += if x + y >= 7 { p * q } else { 0.0 };
            mean += (x + y) as f64 * p * q;
        }
    }
    (dies, mean)
}

/// The Guard: the fighter's broadsword (2 power dice) kills the first beastman (armour
/// 1, 5 wounds) before it attacks, leaving two attacks instead of three on the
/// fighter's 6 wounds. (P(attacker killed), P(the fighter dies)).
pub(crate) fn guard() -> (f64, f64) {
    let killed = at_least(&broadsword(2, 1), 5);
    let plain = axe(&[(0, 1.0)]);
    let dies =
        killed * at_least(&sum_of(&plain, 2), 6) + (1.0 - killed) * at_least(&sum_of(&plain, 3), 6);
    (killed, dies)
}

/// The stunning mace (red + yellow, the fighter's 2 power dice) on the ogre (armour 2):
/// effects are bought first, Stun (2 surges) then Bleed (1 each, as often as surges
/// allow), so no surge is left for damage: the mean of hearts - 2, at least 0.
pub(crate) fn mace_damage() -> f64 {
    descent_roll(&[&RED, &YELLOW, &BLACK, &BLACK])
        .iter()
        .map(|&(roll, p)| roll.map_or(0, |(h, _)| h.saturating_sub(2)) as f64 * p)
        .sum()
}

/// dozen's face to face, every roll of `na` d12 at or under `ta` against `nd` d12 at or
/// under `td` (a 12 always fails): a success stands when no success of the other side
/// is above it, the attacker keeping ties (the rulebook's examples in
/// tests/dozen_rules.rs). Each roll's (attacker's hits, probability).
pub(crate) fn face_to_face(na: u32, ta: usize, nd: u32, td: usize) -> Vec<(usize, f64)> {
    let ok = |x: usize, t: usize| x <= t && x < 12;
    rolls(na + nd, 12)
        .map(|r| {
            let (a, d) = r.split_at(na as usize);
            let best_d = d.iter().filter(|&&y| ok(y, td)).max().copied().unwrap_or(0);
            let hits = a.iter().filter(|&&x| ok(x, ta) && x >= best_d).count();
            (hits, 1.0 / 12f64.powi((na + nd) as i32))
        })
        .collect()
}

/// The fighter (2d12 at ST 4 + sword 3 = 7) charges the dwarf (2d12 at ST 4 + axe 2 =
/// 6; 4 HP, armour class 4) over a drop of 4: each hit costs the dwarf 1 HP unless his
/// d12 is at most 4 (8/12), and a win pushes him off to fall 4 squares, each fall die
/// above max(DX 3, CO 4) = 4 costing 1 HP (8/12). (P(fighter wins), mean HP lost to the
/// fall, P(the dwarf a casualty: 4 HP or more lost)).
pub(crate) fn bridge() -> (f64, f64, f64) {
    let hurt = binomial(4, 8.0 / 12.0);
    let (mut win, mut casualty) = (0.0, 0.0);
    for (hits, p) in face_to_face(2, 7, 2, 6) {
        if hits == 0 {
            continue;
        }
        win += p;
        for (k, pk) in binomial(hits, 8.0 / 12.0).into_iter().enumerate() {
            for (f, pf) in hurt.iter().enumerate() {
                casualty += if k + f >= 4 { p * pk * pf } else { 0.0 };
            }
        }
    }
    (win, win * 4.0 * 8.0 / 12.0, casualty)
}

/// Every roll of `n` dice of faces 1..=`sides`, each once (`sides`^`n` of them).
pub(crate) fn rolls(n: u32, sides: usize) -> impl Iterator<Item = Vec<usize>> {
    (0..sides.pow(n)).map(move |mut code| {
        (0..n)
            .map(|_| {
                let face = code % sides + 1;
                code /= sides;
                face
            })
            .collect()
    })
}

/// P(k successes of `n`) at `p` each, k = 0..=n.
pub(crate) fn binomial(n: usize, p: f64) -> Vec<f64> {
    let choose = |k: usize| (0..k).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64);
    (0..=n)
        .map(|k| choose(k) * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32))
        .collect()
}

/// Blades: the highest of 3d6, two 6s a critical (7); tiers at 4, 6 and 7. Percent of
/// the 216 rolls in tier `t`.
pub(crate) fn blades(t: usize) -> f64 {
    let n = rolls(3, 6)
        .filter(|r| {
            let sixes = r.iter().filter(|&&x| x == 6).count();
            let v = if sixes >= 2 {
                7
            } else {
                *r.iter().max().unwrap()
            };
            [4, 6, 7].iter().filter(|&&x| v >= x).count() == t
        })
        .count();
    100.0 * n as f64 / 216.0
}

/// The duel to the end, a Markov chain over (fighter's hp, orc's hp): each round the
/// fighter hits on d20 + 5 >= 13 (13/20) for a d8, the orc at the same time on d20 + 3
/// >= 16 (8/20) for a d10; the orc has 15 hp. [orc wins, both fall, fighter wins].
pub(crate) fn duel(fighter_hp: i64) -> [f64; 3] {
    let hits = |p: f64, sides: i64| {
        let mut d = vec![(0, 1.0 - p)];
        d.extend((1..=sides).map(|x| (x, p / sides as f64)));
        d
    };
    let (to_orc, to_fighter) = (hits(13.0 / 20.0, 8), hits(8.0 / 20.0, 10));
    let mut state = std::collections::BTreeMap::from([((fighter_hp, 15), 1.0)]);
    let mut end = [0.0; 3];
    // 100 rounds as the roll's limit; what is left after them is below 1e-50.
    for _ in 0..100 {
        let mut next = std::collections::BTreeMap::new();
        for (&(me, foe), &p) in &state {
            for &(a, pa) in &to_orc {
                for &(b, pb) in &to_fighter {
                    let (me, foe) = (me - b, foe - a);
                    if me <= 0 || foe <= 0 {
                        end[(1 + (me > 0) as i64 - (foe > 0) as i64) as usize] += p * pa * pb;
                    } else {
                        *next.entry((me, foe)).or_insert(0.0) += p * pa * pb;
                    }
                }
            }
        }
        state = next;
    }
    end
}

/// Six marines (hit on 4+) against eight cultists (5+), shooting at once with a die per
/// model standing: a Markov chain over (marines, cultists). P(no marine left).
pub(crate) fn squads_marines_wiped() -> f64 {
    let mut state = std::collections::BTreeMap::from([((6usize, 8usize), 1.0)]);
    let mut wiped = 0.0;
    for _ in 0..100 {
        let mut next = std::collections::BTreeMap::new();
        for (&(m, c), &p) in &state {
            for (i, pi) in binomial(c, 1.0 / 3.0).into_iter().enumerate() {
                for (j, pj) in binomial(m, 0.5).into_iter().enumerate() {
                    let (m, c) = (m.saturating_sub(i), c.saturating_sub(j));
                    if m == 0 {
                        wiped += p * pi * pj;
                    } else if c > 0 {
                        *next.entry((m, c)).or_insert(0.0) += p * pi * pj;
                    }
                }
            }
        }
        state = next;
    }
    wiped
}

/// Genesys, every face of 2 ability, 1 proficiency and 2 difficulty dice (8 x 8 x 12 x
/// 8 x 8 = 49,152 rolls): (P(net successes 0), P(one triumph), mean net successes,
/// mean net advantages). A face is (successes, advantages, triumphs); a difficulty face
/// (failures, threats).
pub(crate) fn genesys() -> (f64, f64, f64, f64) {
    let ability = [
        (0, 0, 0),
        (1, 0, 0),
        (1, 0, 0),
        (2, 0, 0),
        (0, 1, 0),
        (0, 1, 0),
        (1, 1, 0),
        (0, 2, 0),
    ];
    let proficiency = [
        (0, 0, 0),
        (1, 0, 0),
        (1, 0, 0),
        (2, 0, 0),
        (2, 0, 0),
        (0, 1, 0),
        (1, 1, 0),
        (1, 1, 0),
        (1, 1, 0),
        (0, 2, 0),
        (0, 2, 0),
        (1, 0, 1),
    ];
    let difficulty = [
        (0, 0),
        (1, 0),
        (2, 0),
        (0, 1),
        (0, 1),
        (0, 1),
        (0, 2),
        (1, 1),
    ];
    let (mut n, mut zero, mut triumph, mut s, mut a) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for a1 in ability {
        for a2 in ability {
            for p in proficiency {
                for d1 in difficulty {
                    for d2 in difficulty {
                        let net = a1.0 + a2.0 + p.0 - d1.0 - d2.0;
                        n += 1.0;
                        zero += (net == 0) as i32 as f64;
                        triumph += (p.2 == 1) as i32 as f64;
                        s += net as f64;
                        a += (a1.1 + a2.1 + p.1 - d1.1 - d2.1) as f64;
                    }
                }
            }
        }
    }
    (zero / n, triumph / n, s / n, a / n)
}

/// Gloomhaven's starting deck (6 x +0, 5 x +1, 5 x -1, +2, -2, x2, null) at attack 3:
/// one card, or two drawn without replacement and the better kept (20 x 19 ordered
/// draws). (mean damage, P(damage 6)).
pub(crate) fn gloomhaven(advantage: bool) -> (f64, f64) {
    let mut deck = vec![0i64; 6];
    deck.extend([1; 5]);
    deck.extend([-1; 5]);
    deck.extend([2, -2, 100, -100]);
    let damage = |c: i64| match c {
        100 => 6,
        -100 => 0,
        c => (3 + c).max(0),
    };
    let draws: Vec<i64> = if advantage {
        (0..20)
            .flat_map(|i| (0..20).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| damage(deck[i].max(deck[j])))
            .collect()
    } else {
        deck.iter().map(|&c| damage(c)).collect()
    };
    let n = draws.len() as f64;
    (
        draws.iter().sum::<i64>() as f64 / n,
        draws.iter().filter(|&&d| d == 6).count() as f64 / n,
    )
}

/// Infinity, 3 d20 at 13 against 1 d20 at 12, every one of the 20^4 rolls: an active
/// success survives unless the reactive die succeeds at or above it; the reactive
/// success survives when it is above every active success. (mean active hits,
/// P(no active hit), P(a reactive hit)).
pub(crate) fn infinity() -> (f64, f64, f64) {
    let (mut n, mut hits, mut none, mut reactive) = (0.0, 0.0, 0.0, 0.0);
    for a in rolls(3, 20) {
        for r in 1..=20 {
            let r_ok = r <= 12;
            let h = a.iter().filter(|&&x| x <= 13 && (!r_ok || x > r)).count();
            let r_hit = r_ok && a.iter().all(|&x| x > 13 || x < r);
            n += 1.0;
            hits += h as f64;
            none += (h == 0) as i32 as f64;
            reactive += r_hit as i32 as f64;
        }
    }
    (hits / n, none / n, reactive / n)
}

/// 40k: a shot gets through with 2/3 (hit) * 1/2 (wound) * 1/2 (save failed) = 1/6, so
/// binomial(10, 1/6) d3 hits, then 4 hits of 1, on five 2-wound models, damage past a
/// model's last wound lost: a Markov chain over (killed, wounds left on the model in
/// front). (mean killed, P(all 5), mean wounds left).
pub(crate) fn warhammer() -> (f64, f64, f64) {
    let hit = |s: &std::collections::BTreeMap<(i64, i64), f64>, dmg: &[(i64, f64)]| {
        let mut out = std::collections::BTreeMap::new();
        for (&(k, w), &p) in s {
            for &(d, q) in dmg {
                let next = if k == 5 {
                    (k, w)
                } else if d >= w {
                    (k + 1, 2)
                } else {
                    (k, w - d)
                };
                *out.entry(next).or_insert(0.0) += p * q;
            }
        }
        out
    };
    let d3 = [(1, 1.0 / 3.0), (2, 1.0 / 3.0), (3, 1.0 / 3.0)];
    let (mut killed, mut all, mut left) = (0.0, 0.0, 0.0);
    for (n, pn) in binomial(10, 1.0 / 6.0).into_iter().enumerate() {
        let mut s = std::collections::BTreeMap::from([((0, 2), pn)]);
        for _ in 0..n {
            s = hit(&s, &d3);
        }
        for _ in 0..4 {
            s = hit(&s, &[(1, 1.0)]);
        }
        for ((k, w), p) in s {
            killed += k as f64 * p;
            all += if k == 5 { p } else { 0.0 };
            left += if k == 5 {
                0.0
            } else {
                ((4 - k) * 2 + w) as f64 * p
            };
        }
    }
    (killed, all, left)
}

/// Yahtzee in three rolls, keeping the largest set and rerolling the rest: the
/// distribution of the largest set after the third roll, by enumerating each reroll.
/// (Keeping the largest set is what maximises P(five alike): the README's 4.60%.)
pub(crate) fn yahtzee() -> [f64; 6] {
    // From a kept set of k (0: nothing kept), the new largest set: the kept value's
    // count, or a larger set among the rerolled dice alone.
    let step = |k: usize| {
        let mut d = [0.0; 6];
        for r in rolls(5 - k as u32, 6) {
            let mut counts = [0usize; 7];
            for &f in &r {
                counts[f] += 1;
            }
            let best = if k == 0 {
                *counts.iter().max().unwrap()
            } else {
                (k + counts[1]).max(*counts[2..].iter().max().unwrap())
            };
            d[best] += 1.0 / 6f64.powi(5 - k as i32);
        }
        d
    };
    let mut d = step(0);
    for _ in 0..2 {
        let mut next = [0.0; 6];
        for (k, &pk) in d.iter().enumerate().skip(1) {
            let t = if k == 5 {
                let mut five = [0.0; 6];
                five[5] = 1.0;
                five
            } else {
                step(k)
            };
            for (n, x) in next.iter_mut().zip(t) {
                *n += pk * x;
            }
        }
        d = next;
    }
    d
}

/// Cortex, every roll of d10, 2d8 and d6 (3,840): the dice showing 2+ may be chosen, two
/// for the total and one more for the effect, maximising total * 100 + effect sides
/// (every subset tried); the effect is at least a d4. (mean total, P(effect d10),
/// P(effect d4)).
pub(crate) fn cortex() -> (f64, f64, f64) {
    let sides = [10usize, 8, 8, 6];
    let (mut n, mut total, mut ten, mut four) = (0.0, 0.0, 0.0, 0.0);
    for r in rolls(4, 10) {
        if r.iter().zip(sides).any(|(&f, s)| f > s) {
            continue;
        }
        let ok = |i: usize| r[i] >= 2;
        let mut best = (0, 0, 4);
        for t in 0..16usize {
            let chosen: Vec<usize> = (0..4).filter(|i| t >> i & 1 == 1).collect();
            if chosen.len() > 2 || !chosen.iter().all(|&i| ok(i)) {
                continue;
            }
            let sum: usize = chosen.iter().map(|&i| r[i]).sum();
            for e in (0..4)
                .filter(|&i| ok(i) && t >> i & 1 == 0)
                .map(Some)
                .chain([None])
            {
                let effect = e.map_or(0, |i| sides[i]).max(4);
                let score = sum * 100 + e.map_or(0, |i| sides[i]);
                if score > best.0 {
                    best = (score, sum, effect);
                }
            }
        }
        n += 1.0;
        total += best.1 as f64;
        ten += (best.2 == 10) as i32 as f64;
        four += (best.2 == 4) as i32 as f64;
    }
    (total / n, ten / n, four / n)
}
