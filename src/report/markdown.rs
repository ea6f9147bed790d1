//! Markdown tables for the terminal (and for pasting into a design doc).

use super::ScenarioResult;
use std::fmt::Write as _;

fn pct(p: f64) -> String {
    format!("{:.2}%", p * 100.0)
}

fn opt_pct(p: Option<f64>) -> String {
    p.map(pct).unwrap_or_else(|| "-".into())
}

fn z(z: Option<f64>) -> String {
    z.map(|z| format!("{z:.2}")).unwrap_or_else(|| "-".into())
}

/// Thousands separators, for trial counts.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One row per scenario: its headline probability, Monte Carlo and exact.
pub fn headlines(results: &[ScenarioResult]) -> String {
    let mut s = String::new();
    s.push_str("| config | scenario | headline | Monte Carlo | 95% CI | exact | max \\|z\\| |\n");
    s.push_str("|---|---|---|---:|---|---:|---:|\n");
    for r in results {
        let h = &r.headline;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} .. {} | {} | {} |",
            r.config,
            r.name,
            h.label,
            pct(h.probability),
            pct(h.ci_low),
            pct(h.ci_high),
            opt_pct(h.exact),
            z(r.max_abs_z())
        );
    }
    s
}

/// In a long table, values below this probability (Monte Carlo and exact) are folded.
const FOLD_BELOW: f64 = 5e-4;

/// Every metric of every scenario as its own table.
pub fn full(results: &[ScenarioResult]) -> String {
    let mut s = String::new();
    for r in results {
        let _ = writeln!(s, "### {}\n", r.name);
        let _ = writeln!(
            s,
            "{}  \n{} trials, seed {}{}\n",
            r.description,
            thousands(r.trials),
            r.seed,
            if r.capped_mass > 0.0 {
                format!(", {} {:.1e}", r.capped_note, r.capped_mass)
            } else {
                String::new()
            }
        );
        for m in &r.metrics {
            let _ = write!(s, "**{}** ({})", m.name, m.description);
            if let (Some(mean), Some((lo, hi))) = (m.mean, m.mean_ci) {
                let _ = write!(s, ": mean {mean:.4} [{lo:.4}, {hi:.4}]");
                if let Some(e) = m.exact_mean {
                    let _ = write!(s, ", exact {e:.4}");
                }
            }
            s.push_str(
                "\n\n| value | P (Monte Carlo) | 95% CI | exact | z |\n|---|---:|---|---:|---:|\n",
            );
            // A long tail (a duel's length) is folded into one line; the CSV
            // keeps every value.
            let long = m.rows.len() > super::LONG_METRIC;
            let (mut folded, mut folded_p, mut folded_exact) = (0usize, 0.0, Some(0.0));
            for row in &m.rows {
                if long && row.probability < FOLD_BELOW && row.exact.unwrap_or(0.0) < FOLD_BELOW {
                    folded += 1;
                    folded_p += row.probability;
                    folded_exact = folded_exact.zip(row.exact).map(|(a, b)| a + b);
                    continue;
                }
                let _ = writeln!(
                    s,
                    "| {} | {} | {} .. {} | {} | {} |",
                    row.label,
                    pct(row.probability),
                    pct(row.ci_low),
                    pct(row.ci_high),
                    opt_pct(row.exact),
                    z(row.z)
                );
            }
            if folded > 0 {
                let _ = writeln!(
                    s,
                    "| {folded} other values, each below {} (in the CSV) | {} | | {} | |",
                    pct(FOLD_BELOW),
                    pct(folded_p),
                    opt_pct(folded_exact)
                );
            }
            s.push('\n');
        }
    }
    s
}

/// Each decision as a table: one row per choice, one column per quantity.
pub fn decisions(rows: &[super::DecisionRow]) -> String {
    let mut s = String::new();
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.decision.as_str()) {
            names.push(&r.decision);
        }
    }
    for name in names {
        let mine: Vec<&super::DecisionRow> = rows.iter().filter(|r| r.decision == name).collect();
        let mut quantities: Vec<&str> = Vec::new();
        let mut choices: Vec<&str> = Vec::new();
        for r in &mine {
            if !quantities.contains(&r.quantity.as_str()) {
                quantities.push(&r.quantity);
            }
            if !choices.contains(&r.choice.as_str()) {
                choices.push(&r.choice);
            }
        }
        let _ = writeln!(s, "### decision: {name}\n");
        let _ = writeln!(
            s,
            "| choice | {} |",
            quantities.join(" | ").replace('_', " ")
        );
        let _ = writeln!(s, "|---|{}", "---:|".repeat(quantities.len()));
        for c in choices {
            let cells: Vec<String> = quantities
                .iter()
                .map(|q| {
                    mine.iter()
                        .find(|r| r.choice == c && r.quantity == *q)
                        .map(|r| {
                            let v = |x: f64| {
                                if r.expected {
                                    format!("{x:.3}")
                                } else {
                                    pct(x)
                                }
                            };
                            match r.exact {
                                Some(e) => format!("{} (exact {})", v(r.estimate), v(e)),
                                None => v(r.estimate),
                            }
                        })
                        .unwrap_or_default()
                })
                .collect();
            let _ = writeln!(s, "| {c} | {} |", cells.join(" | "));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups() {
        assert_eq!(thousands(10_000_000), "10,000,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
    }
}
