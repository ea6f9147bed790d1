//! The values a result can take, as a set: what Monte Carlo's table holds where the
//! result's bounds are wider than a table and its exact distribution was not worked
//! out (`d6 * 1000000` takes 6 values over 5,000,001 numbers; a law spans at most
//! 2^20 numbers). A superset: every value a roll can give is in it, some may never
//! come up (`x - x` of a wide `x`); it is worked out from the values each part takes,
//! by the same arithmetic the sampler does, and from the bounds of a part it does not
//! look into.

use super::{bounds, divide, Node};

/// A variable in scope: its bounds, and the values it takes where those are known.
#[derive(Clone)]
struct Var {
    lo: i64,
    hi: i64,
    set: Option<std::rc::Rc<[i64]>>,
}

/// The most pairs of values two parts are met in (a few tens of milliseconds).
const PAIRS: usize = 1 << 22;

/// The values `n` (with no variable in scope) can take, ascending, where there are at
/// most `most` of them and no two parts meet in more than [`PAIRS`] pairs; None where
/// they cannot be told.
pub fn values(n: &Node, most: usize) -> Option<Vec<i64>> {
    Values { most }.of(n, &mut Vec::new())
}

/// The values of the result less the opposing roll's: [`values`] of each, every
/// difference.
pub fn values_less(roll: &Node, vs: &Node, most: usize) -> Option<Vec<i64>> {
    let v = Values { most };
    let (a, b) = (values(roll, most)?, values(vs, most)?);
    v.pairs(&a, &b, i64::saturating_sub)
}

struct Values {
    most: usize,
}

impl Values {
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
            // Any other part by its bounds.
            n => {
                let (lo, hi) = bounds(n, &mut self.spans(vars));
                self.range(lo, hi)
            }
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
        if a.len().saturating_mul(b.len()) > PAIRS {
            return None;
        }
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
        assert_eq!(of("100000d6"), None);
        assert_eq!(of("d1000 * 1000 + d1000"), None);
    }
}
