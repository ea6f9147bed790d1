//! Firefights: rounds of shooting between two units, each answering the other's actions,
//! with the optional economy of fatigue, morale tokens, Regroup and ready markers.

use super::{shoot_attacks, status_of, Attack, BreakTest, Rules, ShotReaction, Stats, Unit};
use crate::kernels::{FaceStream, Faces, Rng};
use crate::model::{Compiled, Headline, Metric, Radix, Trial};
use crate::pmf::{Prob, Ratio};

/// Firefight state: (models of a, models of b, morale tokens of a, of b, ready marker
/// of a, of b, status) with status 0 nobody broke, 1 a broke, 2 b broke, 3 both broke in
/// the same simultaneous exchange; a side at 0 models is gone. A side is out when it is
/// gone or broke; when both are out after the same exchange, neither won. The token and
/// ready digits have one value (0) unless the firefight counts them.
#[derive(Clone)]
struct FirefightTrial {
    rules: Rules,
    a: Unit,
    b: Unit,
    a_reaction: ShotReaction,
    b_reaction: ShotReaction,
    rounds: u32,
    radix: Radix,
    f: FirefightRules,
}

/// The economy of a firefight: fatigue, morale tokens, Regroup and the
/// ready markers shooting needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirefightRules {
    /// A unit that reacts gains a fatigue point and cannot act again this round, and a
    /// unit that acted cannot react.
    pub fatigue: bool,
    /// Each casualty gives a morale token, kept for the firefight, and a break test
    /// counts every token held (else only the exchange's casualties).
    pub tokens: bool,
    /// Morale tokens each side starts with.
    pub start_tokens: [u32; 2],
    /// A side Regroups (removes a token) instead of shooting while it holds at least
    /// this many.
    pub regroup_at: [Option<u32>; 2],
    /// Shooting (and shooting back) needs a ready marker, which a unit loses when it is
    /// shot at; a unit without one spends its action to Make Ready.
    pub ready: bool,
    /// Whether each side starts with a ready marker.
    pub start_ready: [bool; 2],
}

impl FirefightRules {
    /// "; reactions cost fatigue; morale tokens ...", for the description.
    fn describe(&self, a: &str, b: &str) -> String {
        let mut parts = Vec::new();
        if self.fatigue {
            parts.push("a reaction costs the unit its own action that round".to_string());
        }
        if self.tokens {
            parts.push(
                "each casualty adds a morale token, and break tests count every token".into(),
            );
        }
        if self.ready {
            parts.push(
                "shooting needs a ready marker, lost when shot at (else the action is Make Ready)"
                    .into(),
            );
        }
        for (i, who) in [a, b].into_iter().enumerate() {
            if self.start_tokens[i] > 0 {
                parts.push(format!(
                    "{who} starts with {}",
                    crate::text::plural(self.start_tokens[i] as u64, "token", "tokens")
                ));
            }
            if let Some(k) = self.regroup_at[i] {
                parts.push(format!(
                    "{who} Regroups at {}",
                    crate::text::plural(k.max(1) as u64, "token", "tokens")
                ));
            }
            if self.ready && !self.start_ready[i] {
                parts.push(format!("{who} starts without a ready marker"));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("; {}", parts.join("; "))
        }
    }
}

/// Where a firefight stands between exchanges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pos {
    m: [u32; 2],
    t: [u32; 2],
    ready: [bool; 2],
}

/// What a side does with its action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    Shoot,
    Regroup,
    MakeReady,
}

/// One way an exchange ends: (position, status, probability).
type Step<W> = (Pos, u32, W);

impl FirefightTrial {
    fn units(&self) -> [&Unit; 2] {
        [&self.a, &self.b]
    }

    fn reaction(&self, y: usize) -> ShotReaction {
        if y == 0 {
            self.a_reaction
        } else {
            self.b_reaction
        }
    }

    /// `x`'s action: Regroup while it holds enough tokens, else shoot if ready, else
    /// Make Ready.
    fn act(&self, x: usize, p: Pos) -> Act {
        if self.f.regroup_at[x].is_some_and(|k| p.t[x] >= k.max(1)) {
            Act::Regroup
        } else if self.f.ready && !p.ready[x] {
            Act::MakeReady
        } else {
            Act::Shoot
        }
    }

    /// `y`'s reaction to `x`'s action, if any (`can_react`: it has not acted this
    /// round). Shooting back needs a ready marker; going to ground answers a shot only.
    fn reaction_to(&self, x: usize, p: Pos, can_react: bool) -> ShotReaction {
        let y = 1 - x;
        let shot_at = self.act(x, p) == Act::Shoot;
        match self.reaction(y) {
            _ if !can_react => ShotReaction::None,
            ShotReaction::ShootBack if self.f.ready && !p.ready[y] => ShotReaction::None,
            ShotReaction::GoToGround if !shot_at => ShotReaction::None,
            ShotReaction::Run => ShotReaction::None,
            r => r,
        }
    }

    /// The attacks of `x`'s action on `y` (none unless it shoots) and of `y`'s reaction.
    fn attacks(
        &self,
        x: usize,
        p: Pos,
        reaction: ShotReaction,
    ) -> (Option<Attack>, Option<Attack>) {
        let y = 1 - x;
        let u = self.units();
        let with = |u: &Unit, models: u32| Stats { models, ..u.stats };
        let (ux, uy) = (with(u[x], p.m[x]), with(u[y], p.m[y]));
        if self.act(x, p) == Act::Shoot {
            let (act, back) = shoot_attacks(&ux, &uy, false, reaction);
            (Some(act), back)
        } else {
            // An independent action: the enemy may shoot at the unit.
            let back = (reaction == ShotReaction::ShootBack)
                .then(|| shoot_attacks(&uy, &ux, false, ShotReaction::None).0);
            (None, back)
        }
    }

    /// The morale penalty of a unit that took `c` casualties and now holds `tokens`.
    fn penalty(&self, c: u32, tokens: u32) -> i32 {
        self.rules.casualty_modifier
            * if self.f.tokens {
                tokens as i32
            } else {
                c as i32
            }
    }

    /// P(a unit of `models` before the exchange breaks after `c` casualties).
    fn p_break<W: Prob>(&self, u: &Unit, models: u32, c: u32, tokens: u32) -> W {
        if c == 0 || self.rules.break_test == BreakTest::Never || c >= models {
            return W::zero();
        }
        W::one() - self.rules.p_morale(u.morale, self.penalty(c, tokens))
    }

    /// Tokens after casualties `c` (only counted when the firefight keeps tokens).
    fn add_tokens(&self, t: u32, c: u32) -> u32 {
        if self.f.tokens {
            (t + c).min(self.max_tokens())
        } else {
            t
        }
    }

    fn max_tokens(&self) -> u32 {
        self.radix.0[2].max(self.radix.0[3]) as u32 - 1
    }

    /// The position after `x`'s action and `y`'s reaction, before casualties: tokens a
    /// Regroup removed and the ready markers (lost by whoever was shot at; a Make Ready
    /// under fire is lost at once).
    fn after_acts(&self, x: usize, p: Pos, reaction: ShotReaction) -> Pos {
        let y = 1 - x;
        let mut n = p;
        match self.act(x, p) {
            Act::Regroup => n.t[x] -= 1,
            Act::MakeReady => n.ready[x] = true,
            Act::Shoot => n.ready[y] = false,
        }
        if reaction == ShotReaction::ShootBack {
            n.ready[x] = false;
        }
        if !self.f.ready {
            n.ready = p.ready;
        }
        n
    }

    /// Every way one exchange (x acts, y maybe reacts) ends, exactly.
    fn exchange_exact<W: Prob>(&self, x: usize, p: Pos, can_react: bool) -> Vec<Step<W>> {
        let y = 1 - x;
        let u = self.units();
        let reaction = self.reaction_to(x, p, can_react);
        let (act, back) = self.attacks(x, p, reaction);
        let base = self.after_acts(x, p, reaction);
        let py = act.map_or(vec![W::one()], |a| a.pmf(&self.rules));
        let px = back.map_or(vec![W::one()], |b| b.pmf(&self.rules));
        let mut out = Vec::new();
        for (cy, q) in py.iter().enumerate() {
            for (cx, r) in px.iter().enumerate() {
                let mut n = base;
                n.m[y] -= cy as u32;
                n.m[x] -= cx as u32;
                n.t[y] = self.add_tokens(base.t[y], cy as u32);
                n.t[x] = self.add_tokens(base.t[x], cx as u32);
                let yb: W = self.p_break(u[y], p.m[y], cy as u32, n.t[y]);
                let xb: W = self.p_break(u[x], p.m[x], cx as u32, n.t[x]);
                // Both break tests, as the sampler rolls them.
                for (by, wy) in [(false, W::one() - yb.clone()), (true, yb)] {
                    for (bx, wx) in [(false, W::one() - xb.clone()), (true, xb.clone())] {
                        let w = q.clone() * r.clone() * wy.clone() * wx;
                        if w.is_zero() {
                            continue;
                        }
                        let mut broke = [false; 2];
                        broke[y] = by;
                        broke[x] = bx;
                        out.push((n, status_of(broke), w));
                    }
                }
            }
        }
        out
    }

    /// One exchange, rolled.
    fn exchange(
        &self,
        d: &mut FaceStream,
        rng: &mut Rng,
        x: usize,
        p: Pos,
        can_react: bool,
    ) -> (Pos, u32) {
        let y = 1 - x;
        let u = self.units();
        let reaction = self.reaction_to(x, p, can_react);
        let (act, back) = self.attacks(x, p, reaction);
        let mut n = self.after_acts(x, p, reaction);
        let on_y = act.map_or(0, |a| a.roll(&self.rules, d, rng));
        let on_x = back.map_or(0, |b| b.roll(&self.rules, d, rng));
        n.m[y] -= on_y;
        n.m[x] -= on_x;
        n.t[y] = self.add_tokens(n.t[y], on_y);
        n.t[x] = self.add_tokens(n.t[x], on_x);
        let test = |who: usize, c: u32, tokens: u32, d: &mut FaceStream, rng: &mut Rng| {
            if c == 0 || self.rules.break_test == BreakTest::Never || c >= p.m[who] {
                return false;
            }
            !self
                .rules
                .morale_passes(d.roll(rng), u[who].morale, self.penalty(c, tokens))
        };
        let mut broke = [false; 2];
        broke[y] = test(y, on_y, n.t[y], d, rng);
        broke[x] = test(x, on_x, n.t[x], d, rng);
        (n, status_of(broke))
    }

    fn encode(&self, p: Pos, status: u32) -> usize {
        let r = |b: bool| if self.f.ready { b as usize } else { 0 };
        self.radix.encode(&[
            p.m[0] as usize,
            p.m[1] as usize,
            p.t[0] as usize,
            p.t[1] as usize,
            r(p.ready[0]),
            r(p.ready[1]),
            status as usize,
        ])
    }

    fn decode(&self, s: usize) -> (Pos, u32) {
        let v = self.radix.decode(s);
        let ready = |i: usize| if self.f.ready { v[i] == 1 } else { true };
        (
            Pos {
                m: [v[0] as u32, v[1] as u32],
                t: [v[2] as u32, v[3] as u32],
                ready: [ready(4), ready(5)],
            },
            v[6] as u32,
        )
    }

    fn start(&self) -> Pos {
        Pos {
            m: [self.a.models, self.b.models],
            t: self.f.start_tokens,
            ready: if self.f.ready {
                self.f.start_ready
            } else {
                [true, true]
            },
        }
    }

    fn over(p: Pos, status: u32) -> bool {
        status != 0 || p.m[0] == 0 || p.m[1] == 0
    }

    /// Whether `y` reacts to `x`'s action (and so is fatigued for the round).
    fn reacts(&self, x: usize, p: Pos, can_react: bool) -> bool {
        self.reaction_to(x, p, can_react) != ShotReaction::None
    }
}

impl Trial for FirefightTrial {
    fn states(&self) -> usize {
        self.radix.size()
    }
    #[inline(always)]
    fn sample(&self, rng: &mut Rng) -> usize {
        let mut p = self.start();
        let d = &mut Faces::new(self.rules.die).stream();
        for _ in 0..self.rounds {
            // Who has acted or reacted this round (fatigued, with the fatigue rule).
            let mut spent = [false; 2];
            for x in 0..2 {
                if Self::over(p, 0) {
                    return self.encode(p, 0);
                }
                if self.f.fatigue && spent[x] {
                    continue;
                }
                let can_react = !(self.f.fatigue && spent[1 - x]);
                let reacted = self.reacts(x, p, can_react);
                let (next, status) = self.exchange(d, rng, x, p, can_react);
                spent[x] = true;
                spent[1 - x] |= reacted;
                p = next;
                if Self::over(p, status) {
                    return self.encode(p, status);
                }
            }
        }
        self.encode(p, 0)
    }
}

/// Exactly: the distribution over the firefight's states after the rounds. Within a
/// round the state also carries who is spent (fatigue), as the sampler does.
fn firefight_exact<W: Prob>(f: &FirefightTrial) -> Vec<W> {
    let size = f.radix.size();
    let mut dist = vec![W::zero(); size];
    dist[f.encode(f.start(), 0)] = W::one();
    let none = || [W::zero(), W::zero(), W::zero(), W::zero()];
    for _ in 0..f.rounds {
        // (state, spent) within the round.
        let mut cur: Vec<[W; 4]> = dist
            .into_iter()
            .map(|p| [p, W::zero(), W::zero(), W::zero()])
            .collect();
        for x in 0..2 {
            let mut next: Vec<[W; 4]> = (0..size).map(|_| none()).collect();
            for (s, ps) in cur.iter().enumerate() {
                for (spent_bits, w) in ps.iter().enumerate() {
                    if w.is_zero() {
                        continue;
                    }
                    let (p, status) = f.decode(s);
                    let spent = [spent_bits & 1 == 1, spent_bits & 2 == 2];
                    if FirefightTrial::over(p, status) || (f.f.fatigue && spent[x]) {
                        next[s][spent_bits] += w.clone();
                        continue;
                    }
                    let can_react = !(f.f.fatigue && spent[1 - x]);
                    let reacted = f.reacts(x, p, can_react);
                    let mut ns = spent;
                    ns[x] = true;
                    ns[1 - x] |= reacted;
                    let bits = ns[0] as usize + 2 * ns[1] as usize;
                    for (n, status, q) in f.exchange_exact::<W>(x, p, can_react) {
                        next[f.encode(n, status)][bits] += w.clone() * q;
                    }
                }
            }
            cur = next;
        }
        dist = cur
            .into_iter()
            .map(|ps| {
                let mut total = W::zero();
                for p in ps {
                    total += p;
                }
                total
            })
            .collect();
    }
    dist
}

/// A `firefight` scenario: `rounds` rounds of shooting between `a` and `b`.
#[allow(clippy::too_many_arguments)]
pub(super) fn compile_firefight(
    name: &str,
    a: &Unit,
    b: &Unit,
    a_reaction: ShotReaction,
    b_reaction: ShotReaction,
    rounds: u32,
    economy: &FirefightRules,
    rules: &Rules,
) -> Compiled {
    // Tokens: what a side starts with plus one per model it can lose.
    let tokens = |start: u32, models: u32| {
        if economy.tokens || economy.regroup_at.iter().any(Option::is_some) {
            (start + if economy.tokens { models } else { 0 }) as usize + 1
        } else {
            1
        }
    };
    let cap =
        tokens(economy.start_tokens[0], a.models).max(tokens(economy.start_tokens[1], b.models));
    let ready = if economy.ready { 2 } else { 1 };
    let radix = Radix(vec![
        a.models as usize + 1,
        b.models as usize + 1,
        cap,
        cap,
        ready,
        ready,
        4,
    ]);
    let trial = FirefightTrial {
        rules: rules.clone(),
        a: a.clone(),
        b: b.clone(),
        a_reaction,
        b_reaction,
        rounds,
        radix: radix.clone(),
        f: *economy,
    };
    let exact = firefight_exact::<f64>(&trial);
    let later = trial.clone();
    let states: Vec<Vec<usize>> = (0..radix.size()).map(|s| radix.decode(s)).collect();
    let a_wins = crate::text::wins(&a.name);
    let b_wins = crate::text::wins(&b.name);
    Compiled::new(
        name,
        format!(
            "{} and {} exchange fire for {}: {} with {}, {} with {}{}",
            a.name,
            b.name,
            crate::text::plural(rounds as u64, "round", "rounds"),
            crate::text::agrees(&b.name, "reacts", "react"),
            b_reaction.name().replace('_', " "),
            a.name,
            a_reaction.name().replace('_', " "),
            economy.describe(&a.name, &b.name)
        ),
        Box::new(trial),
        firefight_metrics([a, b], [&a_wins, &b_wins], cap, &states),
        Headline {
            label: format!("P({a_wins})"),
            metric: 0,
            values: vec![0],
            against: vec![1],
        },
    )
    .exact(Some(exact))
    .fractions_later(move || firefight_exact::<Ratio>(&later))
}

/// A firefight's metrics over its end states: who is left, each side's models and (when
/// tokens count) morale tokens.
fn firefight_metrics(
    [a, b]: [&Unit; 2],
    [a_wins, b_wins]: [&str; 2],
    cap: usize,
    states: &[Vec<usize>],
) -> Vec<Metric> {
    vec![
        Metric::categorical(
            "outcome",
            "a side wins when the other is wiped out or broken and it is not; both out = both wiped out or broken in the same simultaneous exchange; neither = both still fighting",
            &[a_wins, b_wins, "neither", "both out"][..],
            // Out: gone, or broke. Both out after one simultaneous exchange: nobody won.
            states
                .iter()
                .map(|v| super::who_won(v[0] == 0 || v[6] & 1 == 1, v[1] == 0 || v[6] & 2 == 2))
                .collect(),
        ),
        super::models_left("a_models_left", a, states, 0),
        super::models_left("b_models_left", b, states, 1),
    ]
    .into_iter()
    .chain((cap > 1).then(|| {
        Metric::numeric(
            "a_tokens",
            &format!("{} morale tokens at the end", crate::text::possessive(&a.name)),
            cap,
            states.iter().map(|v| v[2] as u16).collect(),
        )
    }))
    .chain((cap > 1).then(|| {
        Metric::numeric(
            "b_tokens",
            &format!("{} morale tokens at the end", crate::text::possessive(&b.name)),
            cap,
            states.iter().map(|v| v[3] as u16).collect(),
        )
    }))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_exact, assert_sampled, stats, unit};
    use super::super::{compile, Rules, Scenario, ShotReaction, Stats};
    use super::FirefightRules;

    /// No economy: no fatigue, tokens, Regroup or ready markers.
    const PLAIN: FirefightRules = FirefightRules {
        fatigue: false,
        tokens: false,
        start_tokens: [0, 0],
        regroup_at: [None, None],
        ready: false,
        start_ready: [true, true],
    };

    /// Red hits blue with 1d10 >= 6, 5/10; blue (shoot -1) hits red with 1d10 - 1 >= 6,
    /// 4/10. One model each, no saves.
    fn firefight(reaction: ShotReaction, rounds: u32, economy: FirefightRules) -> Scenario {
        Scenario::Firefight {
            a: unit("red", stats()),
            b: unit(
                "blue",
                Stats {
                    shoot: -1,
                    ..stats()
                },
            ),
            a_reaction: reaction,
            b_reaction: reaction,
            rounds,
            economy,
        }
    }

    #[test]
    fn turns_of_fire_without_reactions() {
        // Each round red shoots (5/10), then blue if still there (4/10). A round ends with
        // red winning 0.5, blue 0.5 x 0.4 = 0.2, neither 0.5 x 0.6 = 0.3. Two rounds:
        //   red 0.5 + 0.3 x 0.5 = 0.65, blue 0.2 + 0.3 x 0.2 = 0.26, neither 0.09.
        let c = compile(
            "f",
            &firefight(ShotReaction::None, 2, PLAIN),
            &Rules::default(),
        );
        let want = [0.65, 0.26, 0.09, 0.0];
        assert_exact(&c, "outcome", &want);
        assert_sampled(&c, "outcome", &want, 51);
    }

    #[test]
    fn shooting_back_answers_every_action() {
        // Both shoot back. Red's action: red hits 5/10 and blue 4/10 at once, so red wins
        // 0.5 x 0.6 = 0.3, blue 0.5 x 0.4 = 0.2, both out 0.5 x 0.4 = 0.2, neither 0.3.
        // Blue's action is the same exchange the other way round. One round:
        //   red 0.3 + 0.3 x 0.3 = 0.39, blue 0.2 + 0.3 x 0.2 = 0.26,
        //   both out 0.2 + 0.3 x 0.2 = 0.26, neither 0.3 x 0.3 = 0.09.
        let c = compile(
            "f",
            &firefight(ShotReaction::ShootBack, 1, PLAIN),
            &Rules::default(),
        );
        let want = [0.39, 0.26, 0.09, 0.26];
        assert_exact(&c, "outcome", &want);
        assert_sampled(&c, "outcome", &want, 52);
        // With fatigue, blue's reaction spends its action: one exchange in the round.
        let tired = FirefightRules {
            fatigue: true,
            ..PLAIN
        };
        let c = compile(
            "f",
            &firefight(ShotReaction::ShootBack, 1, tired),
            &Rules::default(),
        );
        let want = [0.3, 0.2, 0.3, 0.2];
        assert_exact(&c, "outcome", &want);
        assert_sampled(&c, "outcome", &want, 53);
    }

    #[test]
    fn a_side_without_a_ready_marker_makes_ready_first() {
        // Red starts unready: its action is Make Ready, then blue shoots, 4/10.
        let cold = FirefightRules {
            ready: true,
            start_ready: [false, true],
            ..PLAIN
        };
        let c = compile(
            "f",
            &firefight(ShotReaction::None, 1, cold),
            &Rules::default(),
        );
        let want = [0.0, 0.4, 0.6, 0.0];
        assert_exact(&c, "outcome", &want);
        assert_sampled(&c, "outcome", &want, 54);
    }

    #[test]
    fn morale_tokens_count_in_the_break_test() {
        // Red shoots blue's 2 models with one die, 5/10; blue never hits (shoot -20).
        // Blue tests morale 6 after a casualty: without tokens 6 - 1, holding on 1..5,
        // 5/10; with tokens it holds 1 + 1 = 2 and tests 6 - 2, holding on 1..4, 4/10.
        // Red wins (blue broke) with 0.5 x 0.5 = 0.25, or with tokens 0.5 x 0.6 = 0.3.
        let scenario = |economy| Scenario::Firefight {
            a: unit("red", stats()),
            b: unit(
                "blue",
                Stats {
                    models: 2,
                    shoot: -20,
                    morale: 6,
                    ..stats()
                },
            ),
            a_reaction: ShotReaction::None,
            b_reaction: ShotReaction::None,
            rounds: 1,
            economy,
        };
        let c = compile("f", &scenario(PLAIN), &Rules::default());
        assert_exact(&c, "outcome", &[0.25, 0.0, 0.75, 0.0]);
        let tokens = FirefightRules {
            tokens: true,
            start_tokens: [0, 1],
            ..PLAIN
        };
        let c = compile("f", &scenario(tokens), &Rules::default());
        let want = [0.3, 0.0, 0.7, 0.0];
        assert_exact(&c, "outcome", &want);
        assert_sampled(&c, "outcome", &want, 55);
        // Blue ends with its starting token plus one per casualty: 1 or 2, evenly.
        let mut b_tokens = vec![0.0; super::super::testing::exact(&c, "b_tokens").len()];
        b_tokens[1] = 0.5;
        b_tokens[2] = 0.5;
        assert_exact(&c, "b_tokens", &b_tokens);
    }
}
