//! "At least k": P(value >= k) for k = 1, 2, ..., the question designers actually ask
//! ("how often do I get 2 or more successes?").

use super::Bars;
use crate::report::{MetricResult, ScenarioResult};

/// The bars of `m`'s "k or more" chart in scenario `r`, under `title` and `subtitle`.
pub fn bars(r: &ScenarioResult, m: &MetricResult, title: String, subtitle: String) -> Bars {
    let tail = m.at_least(r.trials);
    Bars {
        title,
        subtitle,
        x_desc: format!("k ({})", m.name.replace('_', " ")),
        y_desc: "probability of k or more",
        labels: m
            .rows
            .iter()
            .skip(1)
            .map(|row| format!("≥{}", row.label))
            .collect(),
        xs: m.rows.iter().skip(1).map(|row| row.value).collect(),
        values: tail.into_iter().skip(1).collect(),
        trials: r.trials,
        tails: super::Tails::AtLeast,
    }
}
