//! "At least k": P(value >= k) for k = 1, 2, ..., the question designers actually ask
//! ("how often do I get 2 or more successes?").

use super::{draw_bars, Bars};
use crate::report::write::WriteError;
use crate::report::{MetricResult, ScenarioResult};
use std::path::Path;

pub fn draw(
    r: &ScenarioResult,
    m: &MetricResult,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    let tail = m.at_least(r.trials);
    let x_desc = format!("k ({})", m.name.replace('_', " "));
    let (title, subtitle) = super::titles(&r.name, &r.description, r.seed);
    let bars = Bars {
        title: super::headed(&title, &format!("{}, k or more", m.name.replace('_', " "))),
        subtitle,
        x_desc: &x_desc,
        y_desc: "probability of k or more",
        labels: m
            .rows
            .iter()
            .skip(1)
            .map(|row| format!("≥{}", row.label))
            .collect(),
        values: tail.into_iter().skip(1).collect(),
        trials: r.trials,
        fold: false,
    };
    draw_bars(&bars, path, charts)
}
