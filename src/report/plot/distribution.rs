//! The outcome distribution of one metric: P(value) per value.

use super::{draw_bars, Bars};
use crate::report::write::WriteError;
use crate::report::{MetricResult, ScenarioResult};
use std::path::Path;

pub fn draw(r: &ScenarioResult, m: &MetricResult, path: &Path) -> Result<(), WriteError> {
    let bars = Bars {
        title: format!("{}: {}", r.name, m.name.replace('_', " ")),
        subtitle: format!("{} (seed {})", r.description, r.seed),
        x_desc: if m.numeric { "value" } else { "outcome" },
        y_desc: "probability",
        labels: m.rows.iter().map(|row| row.label.clone()).collect(),
        values: m
            .rows
            .iter()
            .map(|row| (row.probability, (row.ci_low, row.ci_high), row.exact))
            .collect(),
        trials: r.trials,
    };
    draw_bars(&bars, path)
}
