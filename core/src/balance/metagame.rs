//! The units of a roster as a game: "each player picks a unit, then they fight". From
//! a matchup matrix (the row side's chance to win in each seat) this finds the
//! symmetric game both seats make, its Nash mix (a linear program, solved by the
//! maintained `microlp` crate), the units a perfect player never picks and what beats
//! them everywhere, how much each unit is worth to the one who may pick it, a
//! Bradley-Terry strength per unit, and how much of the matrix no one-dimensional
//! strength explains (the cyclic, rock-paper-scissors share). Pure arithmetic on
//! numbers: no config, no file, no thread.

use microlp::{ComparisonOp, OptimizationDirection, Problem};

/// Two rows closer than this everywhere are one strategy (an exact copy of a unit, or
/// a matrix that cannot tell them apart).
const SAME: f64 = 1e-9;

/// The symmetric constant-sum game of a matrix `a` where `a[i][j]` is the chance that
/// `i`, attacking, beats `j`, defending: a game is played once in each seat, so
/// `m[i][j] = (a[i][j] + 1 - a[j][i]) / 2` and `m[i][j] + m[j][i] = 1`.
pub fn both_seats(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    (0..n)
        .map(|i| (0..n).map(|j| (a[i][j] + 1.0 - a[j][i]) / 2.0).collect())
        .collect()
}

/// The Nash mix of a game: each unit's weight, and what the mix wins at least against
/// any reply.
#[derive(Clone, Debug, PartialEq)]
pub struct Mix {
    /// How often to pick each unit, in roster order; they sum to 1.
    pub weights: Vec<f64>,
    /// The mix's chance to win against the best reply (1/2 with every unit allowed).
    pub value: f64,
}

/// Why a metagame could not be worked out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MetagameError {
    /// Fewer than two units: no game to play.
    #[error("a roster needs at least two units; it has {0}")]
    TooFew(usize),
    /// The solver gave no answer (its message).
    #[error("the linear program of the Nash mix failed: {0}")]
    Solver(String),
}

/// Classes of identical rows (copies of one unit), in order of first appearance.
fn classes(m: &[Vec<f64>]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in 0..m.len() {
        let same = |k: usize| (0..m.len()).all(|j| (m[i][j] - m[k][j]).abs() <= SAME);
        match out.iter_mut().find(|c| same(c[0])) {
            Some(c) => c.push(i),
            None => out.push(vec![i]),
        }
    }
    out
}

/// The row player's best mix over the units `rows` (the others forbidden to it)
/// against a column player who may pick any unit: maximise `v` with
/// `sum_i x_i m[i][j] >= v` for every column `j`, `sum x = 1`, `x >= 0`. Copies of one
/// unit are solved as one and share its weight equally, so the answer does not depend
/// on which copy the solver happens to pick.
pub fn mix_over(m: &[Vec<f64>], rows: &[usize]) -> Result<Mix, MetagameError> {
    let n = m.len();
    let cls: Vec<Vec<usize>> = classes(m)
        .into_iter()
        .map(|c| {
            c.into_iter()
                .filter(|i| rows.contains(i))
                .collect::<Vec<_>>()
        })
        .filter(|c: &Vec<usize>| !c.is_empty())
        .collect();
    if cls.is_empty() {
        return Err(MetagameError::TooFew(0));
    }
    let mut lp = Problem::new(OptimizationDirection::Maximize);
    let xs: Vec<_> = cls.iter().map(|_| lp.add_var(0.0, (0.0, 1.0))).collect();
    let v = lp.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
    // One constraint per reply `j` of the other player.
    for (j, _) in m.iter().enumerate() {
        let mut row: Vec<_> = cls.iter().zip(&xs).map(|(c, &x)| (x, m[c[0]][j])).collect();
        row.push((v, -1.0));
        lp.add_constraint(row.as_slice(), ComparisonOp::Ge, 0.0);
    }
    let ones: Vec<_> = xs.iter().map(|&x| (x, 1.0)).collect();
    lp.add_constraint(ones.as_slice(), ComparisonOp::Eq, 1.0);
    // The solver's own README warns it may panic on hard problems: caught here, so a
    // user sees an error, never a crash (the release profile unwinds).
    let sol = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lp.solve()))
        .map_err(|_| MetagameError::Solver("the solver failed on this matrix".into()))?
        .map_err(|e| MetagameError::Solver(e.to_string()))?;
    let mut weights = vec![0.0; n];
    for (c, &x) in cls.iter().zip(&xs) {
        // Rounding in the simplex leaves -1e-17 where 0 is meant.
        let w = sol[x].max(0.0);
        for &i in c {
            weights[i] = w / c.len() as f64;
        }
    }
    let total: f64 = weights.iter().sum();
    weights.iter_mut().for_each(|w| *w /= total);
    Ok(Mix {
        weights,
        value: sol[v],
    })
}

/// The Nash mix of the whole roster. The game is symmetric and constant-sum, so its
/// value is 1/2; the weights say how often a perfect player picks each unit.
pub fn nash(m: &[Vec<f64>]) -> Result<Mix, MetagameError> {
    if m.len() < 2 {
        return Err(MetagameError::TooFew(m.len()));
    }
    mix_over(m, &(0..m.len()).collect::<Vec<_>>())
}

/// For each unit, another that does at least as well against every unit and better
/// against one (the first such, else `None`): a perfect player never needs the first.
/// Copies of a unit dominate nothing of each other.
pub fn dominated_by(m: &[Vec<f64>]) -> Vec<Option<usize>> {
    let n = m.len();
    (0..n)
        .map(|k| {
            (0..n).find(|&d| {
                d != k
                    && (0..n).all(|j| m[d][j] >= m[k][j] - SAME)
                    && (0..n).any(|j| m[d][j] > m[k][j] + SAME)
            })
        })
        .collect()
}

/// For each unit, what a player who may not pick it still wins at least against one
/// who may pick anything: 1/2 minus this is what the unit is worth to the roster.
pub fn without_each(m: &[Vec<f64>]) -> Result<Vec<f64>, MetagameError> {
    let n = m.len();
    (0..n)
        .map(|k| {
            let rows: Vec<usize> = (0..n).filter(|&i| i != k).collect();
            mix_over(m, &rows).map(|x| x.value)
        })
        .collect()
}

/// Bradley-Terry strengths: `P(i beats j) = s_i / (s_i + s_j)`, fitted to `wins[i][j]`
/// of `games[i][j]` by maximum likelihood (Hunter's MM iteration, which climbs the
/// likelihood at every step). Reported on the log scale (`ln s`, mean 0) with a
/// standard error from the likelihood's curvature (its diagonal: each unit given the
/// others; `None` where the games are not counted, an exact matrix).
#[derive(Clone, Debug, PartialEq)]
pub struct Ratings {
    /// `ln s` per unit, in roster order, shifted to mean 0.
    pub log_strength: Vec<f64>,
    /// The standard error of each `log_strength`; `None` for an exact matrix.
    pub se: Option<Vec<f64>>,
}

/// Fit [`Ratings`]. `games` of `None`: the matrix is exact, every pair weighs the same
/// and there is no sampling error.
pub fn bradley_terry(p: &[Vec<f64>], games: Option<&[Vec<f64>]>) -> Ratings {
    let n = p.len();
    let g = |i: usize, j: usize| games.map_or(1.0, |g| g[i][j] + g[j][i]);
    // Wins of i over j, both seats counted: p is already both seats' share.
    let w = |i: usize, j: usize| p[i][j] * g(i, j);
    // A unit that never wins (or never loses) has no finite strength: a small floor
    // keeps it at the end of the scale instead of at infinity.
    let floor = 1e-9;
    let mut s = vec![1.0; n];
    for _ in 0..10_000 {
        let mut next = vec![0.0; n];
        let mut moved: f64 = 0.0;
        for i in 0..n {
            let wins: f64 = (0..n).filter(|&j| j != i).map(|j| w(i, j)).sum();
            let denom: f64 = (0..n)
                .filter(|&j| j != i)
                .map(|j| g(i, j) / (s[i] + s[j]))
                .sum();
            next[i] = (wins.max(floor) / denom).max(floor);
        }
        // Geometric mean 1: the scale is free.
        let mean = next.iter().map(|x: &f64| x.ln()).sum::<f64>() / n as f64;
        for (x, old) in next.iter_mut().zip(&s) {
            *x = (x.ln() - mean).exp();
            moved = moved.max((x.ln() - old.ln()).abs());
        }
        s = next;
        if moved < 1e-12 {
            break;
        }
    }
    let log_strength: Vec<f64> = s.iter().map(|x| x.ln()).collect();
    let se = games.map(|_| {
        (0..n)
            .map(|i| {
                let info: f64 = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| {
                        let q = s[i] / (s[i] + s[j]);
                        g(i, j) * q * (1.0 - q)
                    })
                    .sum();
                if info > 0.0 {
                    1.0 / info.sqrt()
                } else {
                    f64::INFINITY
                }
            })
            .collect()
    });
    Ratings { log_strength, se }
}

/// The share of the matrix's log-odds that no strength per unit explains: the log-odds
/// `L[i][j]` split into a gradient `r_i - r_j` (least squares: `r` is the row mean, the
/// matrix being antisymmetric) and what is left, a cycle. 0: the units line up on one
/// scale; 1: pure rock-paper-scissors.
pub fn cyclic_share(m: &[Vec<f64>]) -> f64 {
    let n = m.len();
    let logit = |p: f64| {
        let p = p.clamp(1e-6, 1.0 - 1e-6);
        (p / (1.0 - p)).ln()
    };
    let l: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| logit(m[i][j])).collect())
        .collect();
    let r: Vec<f64> = l
        .iter()
        .map(|row| row.iter().sum::<f64>() / n as f64)
        .collect();
    let (mut total, mut cycle) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            total += l[i][j] * l[i][j];
            let left = l[i][j] - (r[i] - r[j]);
            cycle += left * left;
        }
    }
    if total <= 1e-18 {
        0.0
    } else {
        cycle / total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rock, paper, scissors: each beats the next for sure, in either seat.
    fn rps() -> Vec<Vec<f64>> {
        vec![
            vec![0.5, 0.0, 1.0],
            vec![1.0, 0.5, 0.0],
            vec![0.0, 1.0, 0.5],
        ]
    }

    #[test]
    fn rock_paper_scissors_is_a_third_each_value_one_half_and_all_cycle() {
        let m = both_seats(&rps());
        let x = nash(&m).unwrap();
        for w in &x.weights {
            assert!((w - 1.0 / 3.0).abs() < 1e-9, "{x:?}");
        }
        assert!((x.value - 0.5).abs() < 1e-9);
        assert_eq!(dominated_by(&m), vec![None, None, None]);
        assert!((cyclic_share(&m) - 1.0).abs() < 1e-9);
        // A player who may not pick rock mixes paper (x) and scissors: against rock it
        // wins x, against paper 1 - x/2, against scissors (1 - x)/2; the best is x = 1/3
        // for 1/3 (worked by hand). So each unit is worth 1/2 - 1/3 = 1/6 to the roster.
        let w = without_each(&m).unwrap();
        for v in w {
            assert!((v - 1.0 / 3.0).abs() < 1e-9, "{v}");
        }
    }

    #[test]
    fn a_dominated_unit_gets_no_weight_and_names_what_dominates_it() {
        // RPS plus a weak rock (wins against scissors only half the time).
        let a = vec![
            vec![0.5, 0.0, 1.0, 0.5],
            vec![1.0, 0.5, 0.0, 1.0],
            vec![0.0, 1.0, 0.5, 0.5],
            vec![0.5, 0.0, 0.5, 0.5],
        ];
        let m = both_seats(&a);
        let x = nash(&m).unwrap();
        assert!(x.weights[3].abs() < 1e-9, "{x:?}");
        assert_eq!(dominated_by(&m)[3], Some(0));
        assert!((x.value - 0.5).abs() < 1e-9);
    }

    #[test]
    fn copies_share_one_weight_and_one_rating() {
        // A strong unit and two exact copies of a weak one.
        let a = vec![
            vec![0.5, 0.8, 0.8],
            vec![0.3, 0.5, 0.5],
            vec![0.3, 0.5, 0.5],
        ];
        let m = both_seats(&a);
        let x = nash(&m).unwrap();
        assert!((x.weights[0] - 1.0).abs() < 1e-9, "{x:?}");
        assert_eq!(x.weights[1], x.weights[2]);
        let r = bradley_terry(&m, None);
        assert!((r.log_strength[1] - r.log_strength[2]).abs() < 1e-9);
        // The copies are dominated by the strong unit, not by each other.
        assert_eq!(dominated_by(&m), vec![None, Some(0), Some(0)]);
        // A line, no cycle.
        assert!(cyclic_share(&m) < 1e-9);
    }

    #[test]
    fn bradley_terry_recovers_planted_strengths_within_its_intervals() {
        // Planted log-strengths; win counts drawn binomially with a fixed generator
        // (a linear congruential one, apart from the library's dice).
        let planted: [f64; 5] = [0.0, 0.5, -0.7, 1.2, -1.0];
        let n = planted.len();
        let games = 4000.0;
        let mut state: u64 = 2026;
        let mut uniform = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut p = vec![vec![0.5; n]; n];
        let mut g = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in (i + 1)..n {
                let q = 1.0 / (1.0 + (planted[j] - planted[i]).exp());
                let wins = (0..games as u32).filter(|_| uniform() < q).count() as f64;
                p[i][j] = wins / games;
                p[j][i] = 1.0 - p[i][j];
                g[i][j] = games / 2.0;
                g[j][i] = games / 2.0;
            }
        }
        let r = bradley_terry(&p, Some(&g));
        let mean = planted.iter().sum::<f64>() / n as f64;
        let se = r.se.unwrap();
        for i in 0..n {
            let err = r.log_strength[i] - (planted[i] - mean);
            // 4.5 standard errors (the diagonal one is a little narrow: generous).
            assert!(
                err.abs() < 4.5 * se[i],
                "unit {i}: off by {err}, se {}",
                se[i]
            );
        }
        // A line: almost no cycle.
        assert!(cyclic_share(&p) < 0.01, "{}", cyclic_share(&p));
    }

    #[test]
    #[allow(clippy::needless_range_loop)] // m[i][j] beside m[j][i]
    fn both_seats_is_constant_sum() {
        let a = vec![vec![0.6, 0.7], vec![0.2, 0.55]];
        let m = both_seats(&a);
        assert!((m[0][1] - (0.7 + 1.0 - 0.2) / 2.0).abs() < 1e-15);
        for i in 0..2 {
            for j in 0..2 {
                assert!((m[i][j] + m[j][i] - 1.0).abs() < 1e-15);
            }
        }
    }
}
