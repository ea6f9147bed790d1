//! What `rollsim roll` prints: each value of the roll with its exact probability and
//! fraction beside the Monte Carlo estimate, then the means and the headline.

use super::markdown::{Align, Table};
use super::{MetricResult, ScenarioResult};
use std::fmt::Write as _;

fn pct(p: f64) -> String {
    rollsim_core::text::percent(p, 4)
}

/// An exact value with the fraction it is, where it is one: `10.5000 = 21/2`; a whole
/// number (`2.0000`) says all there is without its `2/1`.
fn with_fraction(shown: String, f: Option<&super::Fraction>) -> String {
    match f {
        Some(f) if !f.is_whole() => format!("{shown} = {}", f.shown()),
        _ => shown,
    }
}

/// `rollsim roll`'s answer: every metric of the roll (the result, and with `--vs` who
/// wins): each value's exact probability and fraction, P(at least it) for numbers, and
/// the Monte Carlo estimate with its 95% CI when `mc`; then the means and the headline.
pub fn answer(description: &str, exact: bool, r: &ScenarioResult, mc: bool) -> String {
    let mut s = format!("{description}\n\n");
    // The roll's own value needs no heading; several results (a record, a `--vs`)
    // each get theirs.
    let named =
        r.metrics.len() > 1 && r.metrics[0].name != "value" && r.metrics[0].name != "margin";
    for (i, m) in r.metrics.iter().enumerate() {
        if i > 0 || named {
            let _ = write!(s, "\n**{}**: {}\n\n", m.name, m.description);
        }
        s.push_str(&metric_table(m, exact, mc));
    }
    for m in r.metrics.iter().filter(|m| m.numeric) {
        // One numeric metric is the roll's own value: its mean needs no name.
        let name = if r.metrics.len() > 1 {
            format!(" of {}", m.name)
        } else {
            String::new()
        };
        if let Some(e) = m.exact_mean {
            let shown = crate::text::fixed(e, 4);
            let _ = write!(
                s,
                "\nmean{name} (exact): {}",
                with_fraction(shown, m.exact_mean_fraction.as_ref())
            );
        }
        if let (true, Some(mean), Some(ci)) = (mc, m.mean, m.mean_ci) {
            let _ = write!(
                s,
                "\nmean{name} (Monte Carlo, {} rolls, seed {}): {} [{}, {}]",
                r.trials,
                r.seed,
                crate::text::fixed(mean, 4),
                crate::text::fixed(ci.0, 4),
                crate::text::fixed(ci.1, 4)
            );
        }
    }
    let h = &r.headline;
    let exact_h = h
        .exact
        .map(|e| with_fraction(pct(e), h.exact_fraction.as_ref()));
    match (mc, exact_h) {
        (true, Some(e)) => {
            let _ = write!(s, "\n{}: {} (exact {e})", h.label, pct(h.probability));
        }
        (true, None) => {
            let _ = write!(s, "\n{}: {}", h.label, pct(h.probability));
        }
        (false, Some(e)) => {
            let _ = write!(s, "\n{} (exact): {e}", h.label);
        }
        (false, None) => {}
    }
    if let Some(cut) = r.capped_said() {
        let _ = write!(s, "\n{cut}");
    }
    if let Some(p) = &r.policy {
        let _ = write!(
            s,
            "\n\n**The choice**: which dice each roll keeps (the rest are rerolled)\n\n{p}"
        );
    }
    s.push('\n');
    s
}

/// One metric's rows; values no roll reaches (exactly and in the run) are left out.
fn metric_table(m: &MetricResult, exact: bool, mc: bool) -> String {
    let mut head = vec![(if m.numeric { "value" } else { "outcome" }, Align::Right)];
    if exact {
        head.extend([("exact", Align::Right), ("fraction", Align::Right)]);
        if m.numeric {
            head.push(("at least (exact)", Align::Right));
        }
    }
    if mc {
        head.extend([("Monte Carlo", Align::Right), ("95% CI", Align::Left)]);
    }
    let mut t = Table::new(head);
    let mut tail: f64 = m.rows.iter().filter_map(|r| r.exact).sum();
    let (rows, left_out) = super::shown_rows(m);
    let sparse = m.sparse();
    // Whether a value before this one can happen.
    let mut passed = false;
    for row in rows {
        // The rows the CSV lists (`MetricResult::listed`); `shown_rows` has only cut a
        // trailing tail under 1e-15, which the note below names.
        if sparse && row.impossible() {
            continue;
        }
        // A value that can happen reads above 0 even where its float underflows (the
        // lowest sums of 450d6: 1/6^450), and the chance of it or more below 100% once a
        // value before it could happen.
        let possible = !row.exactly_zero();
        let e = match row.exact.unwrap_or(0.0) {
            0.0 if possible => f64::MIN_POSITIVE,
            e => e,
        };
        let mut cells = vec![row.label.clone()];
        if exact {
            cells.push(pct(e));
            cells.push(
                row.exact_fraction
                    .as_ref()
                    .map(|f| f.shown())
                    .unwrap_or_default(),
            );
            if m.numeric {
                // Where no value below can happen, every roll is this or more: exactly 1,
                // not the floats' sum (`3d6 keep middle 0 lowest` read ">99.9999%").
                let at_least = match passed {
                    false => 1.0,
                    true => super::tidy_probability(tail.clamp(0.0, 1.0)),
                };
                cells.push(pct(match at_least {
                    1.0 if passed => 1.0 - f64::EPSILON,
                    0.0 if possible => f64::MIN_POSITIVE,
                    p => p,
                }));
            }
        }
        passed |= possible;
        tail -= e;
        if mc {
            cells.push(pct(row.probability));
            cells.push(format!("{} .. {}", pct(row.ci_low), pct(row.ci_high)));
        }
        t.row(cells);
    }
    let mut out = t.render();
    if let Some(note) = left_out {
        let _ = write!(out, "\n{note} (the CSV keeps every value)\n");
    }
    out
}
