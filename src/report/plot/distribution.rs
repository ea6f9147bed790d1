//! The outcome distribution of one metric: P(value) per value.

use super::Bars;
use crate::report::{MetricResult, ScenarioResult};

/// The bars of `m`'s chart in scenario `r`, under `title` and `subtitle`.
pub fn bars(r: &ScenarioResult, m: &MetricResult, title: String, subtitle: String) -> Bars {
    // Leading values that cannot happen (exactly 0, such as a duel over in 0
    // activations) are left off a numeric chart; its axis labels say where it starts.
    let skip = if m.numeric {
        m.rows
            .iter()
            .take(m.rows.len().saturating_sub(2))
            .take_while(|row| row.count == 0 && row.exact == Some(0.0))
            .count()
    } else {
        0
    };
    let rows = &m.rows[skip..];
    let x_desc = if m.numeric {
        m.name.replace('_', " ")
    } else {
        "outcome".to_string()
    };
    Bars {
        title,
        subtitle,
        x_desc,
        y_desc: "probability",
        labels: rows.iter().map(|row| row.label.clone()).collect(),
        xs: rows.iter().map(|row| row.value).collect(),
        values: rows
            .iter()
            .map(|row| (row.probability, (row.ci_low, row.ci_high), row.exact))
            .collect(),
        trials: r.trials,
        tails: if m.numeric {
            super::Tails::Fold
        } else {
            super::Tails::Keep
        },
    }
}
