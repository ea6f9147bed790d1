//! The values a result can take, as a set: what Monte Carlo's table holds where the
//! result's bounds are wider than a table and its exact distribution was not worked
//! out (`d6 * 1000000` takes 6 values over 5,000,001 numbers; a law spans at most
//! 2^20 numbers). A superset: every value a roll can give is in it, some may never
//! come up (`x - x` of a wide `x`); it is worked out from the values each part takes,
//! by the same arithmetic the sampler does, and from the bounds of a part it does not
//! look into.

use super::{bounds, counted, divide, rounds, Node, Repeat};
use std::cell::Cell;

/// A variable in scope: its bounds, and the values it takes where those are known.
#[derive(Clone)]
struct Var {
    lo: i64,
    hi: i64,
    set: Option<std::rc::Rc<[i64]>>,
}

impl Var {
    /// A variable taking the values `set` (ascending, not empty).
    fn of(set: &[i64]) -> Var {
        Var {
            lo: set[0],
            hi: set[set.len() - 1],
            set: Some(set.into()),
        }
    }
}

/// The most pairs of values two parts are met in (a few tens of milliseconds).
const PAIRS: usize = 1 << 21;

/// The most pairs of values met in all.
const WORK: usize = 1 << 22;

/// The values `n` (with no variable in scope) can take, ascending, where there are at
/// most `most` of them and no two parts meet in more than [`PAIRS`] pairs; None where
/// they cannot be told.
pub fn values(n: &Node, most: usize) -> Option<Vec<i64>> {
    Values::new(most).of(n, &mut Vec::new())
}

/// The values of the result less the opposing roll's: [`values`] of each (within one
/// count of pairs met), every difference.
pub fn values_less(roll: &Node, vs: &Node, most: usize) -> Option<Vec<i64>> {
    let v = Values::new(most);
    let (a, b) = (v.of(roll, &mut Vec::new())?, v.of(vs, &mut Vec::new())?);
    v.pairs(&a, &b, i64::saturating_sub)
}

/// Where `n` is shown to take every whole number from its lowest value to its highest,
/// those two: a number, a sum of plain dice whose faces are a run of whole numbers
/// (every total from the fewest to the most comes up), and sums, differences and
/// negations of such (a run plus a run is a run). None where that is not shown, though
/// it may be so. What is shown is certain: a result spread past Monte Carlo's table is
/// refused without its law being worked out (`100000d6` took 1.9 s to be refused).
pub fn every_value(n: &Node) -> Option<(i64, i64)> {
    match n {
        Node::Num(k) => Some((*k, *k)),
        Node::Pool(p) => {
            let plain = p.again.is_none()
                && p.keep.is_none()
                && p.agg == super::Agg::Sum
                && p.named.is_empty();
            if !plain {
                return None;
            }
            p.groups.iter().try_fold((0i64, 0i64), |(lo, hi), (k, d)| {
                let run = !d.deck
                    && d.explode.is_none()
                    && d.reroll.is_none()
                    && !d.faces.is_empty()
                    && {
                        let mut f = d.faces.clone();
                        f.sort_unstable();
                        f.dedup();
                        f.windows(2).all(|w| w[1] - w[0] == 1)
                    };
                if !run {
                    return None;
                }
                let k = i64::from(*k);
                Some((
                    lo.checked_add(k.checked_mul(d.lo())?)?,
                    hi.checked_add(k.checked_mul(d.hi())?)?,
                ))
            })
        }
        Node::Neg(a) => {
            let (lo, hi) = every_value(a)?;
            Some((hi.checked_neg()?, lo.checked_neg()?))
        }
        Node::Add(a, b) => {
            let ((a0, a1), (b0, b1)) = (every_value(a)?, every_value(b)?);
            Some((a0.checked_add(b0)?, a1.checked_add(b1)?))
        }
        Node::Sub(a, b) => {
            let ((a0, a1), (b0, b1)) = (every_value(a)?, every_value(b)?);
            Some((a0.checked_sub(b1)?, a1.checked_sub(b0)?))
        }
        _ => None,
    }
}

struct Values {
    most: usize,
    /// The pairs of values still to be met, in all (a `repeat`'s rounds meet theirs
    /// again and again).
    left: Cell<usize>,
}

impl Values {
    fn new(most: usize) -> Values {
        Values {
            most,
            left: Cell::new(WORK),
        }
    }

    fn of(&self, n: &Node, vars: &mut Vec<Var>) -> Option<Vec<i64>> {
        let two = |x: &Node, y: &Node, vars: &mut Vec<Var>, f: fn(i64, i64) -> i64| {
            let (a, b) = (self.of(x, vars)?, self.of(y, vars)?);
            self.pairs(&a, &b, f)
        };
        match n {
            Node::Num(v) => Some(vec![*v]),
            Node::Var(i) => {
                let v = vars.get(*i)?;
                match &v.set {
                    Some(s) => Some(s.to_vec()),
                    None => self.range(v.lo, v.hi),
                }
            }
            Node::Neg(a) => {
                let mut v: Vec<i64> = self
                    .of(a, vars)?
                    .iter()
                    .map(|x| x.saturating_neg())
                    .collect();
                v.sort_unstable();
                Some(v)
            }
            Node::Add(x, y) => two(x, y, vars, i64::saturating_add),
            Node::Sub(x, y) => two(x, y, vars, i64::saturating_sub),
            Node::Mul(x, y) => two(x, y, vars, i64::saturating_mul),
            Node::Div(x, y) => two(x, y, vars, divide),
            Node::Max(x, y) => two(x, y, vars, i64::max),
            Node::Min(x, y) => two(x, y, vars, i64::min),
            Node::Cmp(c, x, y) => match (self.of(x, vars), self.of(y, vars)) {
                (Some(a), Some(b)) => self.pairs(&a, &b, |x, y| c.holds(x, y) as i64),
                _ => Some(vec![0, 1]),
            },
            Node::If(c, yes, no) => {
                let c = self.of(c, vars);
                let (can_yes, can_no) = match &c {
                    Some(c) => (c.iter().any(|&v| v != 0), c.contains(&0)),
                    None => (true, true),
                };
                let mut out = Vec::new();
                if can_yes {
                    out.extend(self.of(yes, vars)?);
                }
                if can_no {
                    out.extend(self.of(no, vars)?);
                }
                self.set(out)
            }
            Node::Let(bound, body) => {
                let set = self.of(bound, vars);
                let (lo, hi) = match &set {
                    Some(s) => (s[0], s[s.len() - 1]),
                    None => bounds(bound, &mut self.spans(vars)),
                };
                vars.push(Var {
                    lo,
                    hi,
                    set: set.map(Into::into),
                });
                let out = self.of(body, vars);
                vars.pop();
                out
            }
            Node::Repeat(r) => self.repeat(r, vars),
            // Any other part by its bounds.
            n => {
                let (lo, hi) = bounds(n, &mut self.spans(vars));
                self.range(lo, hi)
            }
        }
    }

    /// Each state variable's values after any number of rounds up to the limit (each
    /// round from every value of every variable, as the bounds go round by round),
    /// then the body's from those.
    fn repeat(&self, r: &Repeat, vars: &mut Vec<Var>) -> Option<Vec<i64>> {
        let base = vars.len();
        let init = r
            .init
            .iter()
            .map(|n| self.of(n, vars))
            .collect::<Option<Vec<_>>>()?;
        let played = Var {
            lo: 0,
            hi: i64::from(r.limit),
            set: None,
        };
        let round = |state: &[Vec<i64>]| {
            vars.extend(state.iter().map(|s| Var::of(s)));
            vars.push(played.clone());
            let next = self.step(&r.step, vars);
            vars.truncate(base);
            next
        };
        let join = |a: &Vec<i64>, b: Vec<i64>| self.set([a.as_slice(), &b].concat());
        let state = rounds(init, r.limit, round, join)?;
        vars.extend(state.iter().map(|s| Var::of(s)));
        vars.push(played);
        let out = self.of(&r.body, vars);
        vars.truncate(base);
        out
    }

    /// The values a round's `let`s and updates give each state variable; empty for a
    /// count with no round made for it.
    fn step(&self, n: &Node, vars: &mut Vec<Var>) -> Option<Vec<Vec<i64>>> {
        match n {
            Node::Let(bound, body) => {
                let set = self.of(bound, vars);
                let var = match &set {
                    Some(s) => Var::of(s),
                    None => {
                        let (lo, hi) = bounds(bound, &mut self.spans(vars));
                        Var { lo, hi, set: None }
                    }
                };
                vars.push(var);
                let r = self.step(body, vars);
                vars.pop();
                r
            }
            Node::LetPool { body, .. } => {
                // The pool's reads carry their own bounds; its slot is a placeholder.
                vars.push(Var::of(&[0]));
                let r = self.step(body, vars);
                vars.pop();
                r
            }
            Node::Emit(v) => v.iter().map(|n| self.of(n, vars)).collect(),
            Node::CountedVar(c, bodies) => {
                let last = bodies.len() as i64 - 1;
                let mut counts: Vec<i64> = self
                    .of(c, vars)?
                    .iter()
                    .map(|&k| k.clamp(0, last))
                    .collect();
                counts.dedup();
                let mut out: Option<Vec<Vec<i64>>> = None;
                for k in counts {
                    let b = self.step(counted(bodies, k), vars)?;
                    if b.is_empty() {
                        continue;
                    }
                    out = Some(match out {
                        None => b,
                        Some(a) if a.len() == b.len() => a
                            .iter()
                            .zip(&b)
                            .map(|(x, y)| self.set([x.as_slice(), y].concat()))
                            .collect::<Option<_>>()?,
                        Some(_) => return None,
                    });
                }
                Some(out.unwrap_or_default())
            }
            _ => Some(Vec::new()),
        }
    }

    /// The variables in scope as the bounds see them.
    fn spans(&self, vars: &[Var]) -> Vec<(i64, i64)> {
        vars.iter().map(|v| (v.lo, v.hi)).collect()
    }

    /// Every number from `lo` to `hi`, where there are at most `most`.
    fn range(&self, lo: i64, hi: i64) -> Option<Vec<i64>> {
        let fits = hi >= lo && (hi as i128 - lo as i128) < self.most as i128;
        fits.then(|| (lo..=hi).collect())
    }

    /// `f` of every pair of a value of each, where the pairs are at most [`PAIRS`].
    fn pairs(&self, a: &[i64], b: &[i64], f: impl Fn(i64, i64) -> i64) -> Option<Vec<i64>> {
        let pairs = a.len().saturating_mul(b.len());
        if pairs > PAIRS || pairs > self.left.get() {
            return None;
        }
        self.left.set(self.left.get() - pairs);
        self.set(
            a.iter()
                .flat_map(|&x| b.iter().map(move |&y| (x, y)))
                .map(|(x, y)| f(x, y))
                .collect(),
        )
    }

    /// The values sorted, once each, where there are at most `most`.
    fn set(&self, mut v: Vec<i64>) -> Option<Vec<i64>> {
        v.sort_unstable();
        v.dedup();
        (!v.is_empty() && v.len() <= self.most).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::dice::program::parse_result;

    fn of(text: &str) -> Option<Vec<i64>> {
        values(&parse_result(text, &[]).expect(text).0, 65_536)
    }

    /// A run shown only where every number of it comes up: plain dice whose faces are a
    /// run, their sums, differences and negations; a gap in the faces, a keep, an
    /// explosion, a product: not shown.
    #[test]
    fn a_run_of_every_value_is_shown_only_where_it_is_one() {
        let run = |text: &str| every_value(&parse_result(text, &[]).expect(text).0);
        assert_eq!(run("2d6 + 3"), Some((5, 15)));
        assert_eq!(run("-d4 + d6"), Some((-3, 5)));
        assert_eq!(run("100000d6 - 50000d6"), Some((-200_000, 550_000)));
        assert_eq!(run("[2d6, 1d8] + d{0, 1, 1, 2}"), Some((3, 22)));
        for not_shown in [
            "d{1, 3}",
            "4d6 keep highest 3",
            "d6 explode",
            "d6 reroll 1",
            "2 * d6",
            "5d6 count >= 5",
            "deck{1, 2, 3} draw 2",
        ] {
            assert_eq!(run(not_shown), None, "{not_shown}");
        }
    }

    /// Values far apart are listed as they are; a part not looked into gives its
    /// bounds; too many values give none.
    #[test]
    fn the_values_a_result_takes() {
        assert_eq!(
            of("d6 * 1000000"),
            Some((1..=6).map(|v| v * 1_000_000).collect())
        );
        let tens: Vec<i64> = of("2d6 * 100000 + d6").unwrap();
        assert_eq!(tens.len(), 66);
        assert_eq!((tens[0], tens[65]), (200_001, 1_200_006));
        // A `let` is its value in the body; a branch never taken adds nothing.
        assert_eq!(
            of("let x = d4 in if x > 10 then x * 1000 else x * 1000000"),
            Some((1..=4).map(|v| v * 1_000_000).collect())
        );
        assert_eq!(
            of("-(d3 * 1000000)"),
            Some(vec![-3_000_000, -2_000_000, -1_000_000])
        );
        // A stress die that doubles on every 1, for up to 100 rounds: each doubling up
        // to the largest whole number (where it stays), times each face.
        let stress = of("repeat m = 1, r = -1 until r >= 0 do let x = d10 in \
                         r = if x == 1 then -1 else m * x, m = 2 * m then r")
        .unwrap();
        let mut want: Vec<i64> = (0..=63)
            .map(|k| if k == 63 { i64::MAX } else { 1i64 << k })
            .flat_map(|m| (2..=10).map(move |x| m.saturating_mul(x)))
            // The `else` is taken as if `x` could still be 1 there (a superset): `m`.
            .chain([-1, 1])
            .collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(stress, want);
        assert_eq!(of("100000d6"), None);
        assert_eq!(of("d1000 * 1000 + d1000"), None);
    }
}
