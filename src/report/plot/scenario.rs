//! The charts of one scenario, in two steps: what each shows (its file, its title, its
//! bars or its race), worked out together, then each drawn. The titles share one
//! subtitle and are made in one place ([`super::title::headings`]); a notebook's
//! `plot()` reads the same bars the files are drawn from.

use super::{at_least, distribution, draw_bars, frame, race, title, Bars, Charts};
use crate::model::Chart;
use crate::report::write::WriteError;
use crate::report::{MetricResult, ScenarioResult};
use std::path::{Path, PathBuf};

/// One chart of a scenario, ready to draw.
pub enum Drawing<'a> {
    /// A metric's distribution (`METRIC.png`).
    Distribution(Bars),
    /// A numeric metric's P(at least k) (`METRIC_at_least.png`).
    AtLeast(Bars),
    /// A race between the scenario's metrics ([`Chart::Race`]).
    Race {
        chart: &'a Chart,
        title: String,
        subtitle: String,
    },
}

/// What a chart is of, before its words are made.
#[derive(Clone, Copy)]
enum Of<'a> {
    Distribution(&'a MetricResult),
    AtLeast(&'a MetricResult),
    Race(&'a Chart),
}

impl Of<'_> {
    /// The chart's file name: `METRIC`, `METRIC_at_least`, the race's `file`.
    fn stem(&self) -> String {
        match self {
            Of::Distribution(m) => m.name.clone(),
            Of::AtLeast(m) => format!("{}_at_least", m.name),
            Of::Race(Chart::Race { file, .. }) => file.clone(),
        }
    }

    /// What the chart shows, after the scenario's lead in its title.
    fn heading(&self) -> String {
        match self {
            Of::Distribution(m) => m.name.replace('_', " "),
            Of::AtLeast(m) => format!("{}, k or more", m.name.replace('_', " ")),
            Of::Race(Chart::Race { title, .. }) => title.clone(),
        }
    }
}

/// The charts a scenario has, in the order they are written: each charted metric's
/// distribution, and its "k or more" when it is numeric with more than two values; then
/// its races. A profile's member has none of its own (they are drawn together, see
/// [`super::profile`]).
fn planned(r: &ScenarioResult) -> Vec<Of<'_>> {
    if r.group.is_some() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in r.metrics.iter().filter(|m| m.chart) {
        out.push(Of::Distribution(m));
        if m.numeric && m.rows.len() > 2 {
            out.push(Of::AtLeast(m));
        }
    }
    out.extend(r.charts.iter().map(Of::Race));
    out
}

/// Every chart of `r`, with its file stem, ready to draw.
pub fn drawings(r: &ScenarioResult) -> Vec<(String, Drawing<'_>)> {
    let plan = planned(r);
    let (titles, subtitle) = title::headings(
        &r.name,
        &r.description,
        r.seed,
        plan.iter().map(Of::heading),
    );
    plan.into_iter()
        .zip(titles)
        .map(|(of, title)| {
            let (stem, subtitle) = (of.stem(), subtitle.clone());
            let drawing = match of {
                Of::Distribution(m) => {
                    Drawing::Distribution(distribution::bars(r, m, title, subtitle))
                }
                Of::AtLeast(m) => Drawing::AtLeast(at_least::bars(r, m, title, subtitle)),
                Of::Race(chart) => Drawing::Race {
                    chart,
                    title,
                    subtitle,
                },
            };
            (stem, drawing)
        })
        .collect()
}

/// File name for a chart of a scenario: `DIR/SCENARIO/STEM.png`.
pub fn chart_path(dir: &Path, scenario: &str, stem: &str) -> PathBuf {
    dir.join(scenario).join(format!("{stem}.png"))
}

/// Every chart of one scenario drawn into `dir`; returns the files written.
pub fn scenario_charts(
    r: &ScenarioResult,
    dir: &Path,
    charts: Charts,
) -> Result<Vec<PathBuf>, WriteError> {
    if r.group.is_some() {
        return Ok(Vec::new());
    }
    let drawn = drawings(r);
    frame::folder(dir, &r.name)?;
    let mut out = Vec::new();
    for (stem, drawing) in &drawn {
        let p = chart_path(dir, &r.name, stem);
        match drawing {
            Drawing::Distribution(bars) | Drawing::AtLeast(bars) => draw_bars(bars, &p, charts)?,
            Drawing::Race {
                chart,
                title,
                subtitle,
            } => race::draw(r, chart, (title, subtitle), &p, charts)?,
        }
        out.push(p);
    }
    Ok(out)
}
