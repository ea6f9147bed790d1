//! What the charts share around their data: the call that writes one drawing for both
//! backends, the plot area of a line or grouped-bar chart, its axes' look and tick
//! labels, and the legend box plotters draws for labelled series.

use super::{Area, DrawResult, Plane, FONT};
use crate::report::write::WriteError;
use plotters::chart::{MeshStyle, SeriesLabelPosition};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Draw one chart into `$path` (PNG, and an SVG beside it where `$charts` says): the
/// drawing `|$root| $draw` is written once and compiled for each backend.
macro_rules! save_chart {
    ($path:expr, $size:expr, $charts:expr, |$root:ident| $draw:expr) => {
        $crate::report::plot::save($path, $size, $charts, |$root| $draw, |$root| $draw)
    };
}
pub(crate) use save_chart;

/// `DIR/NAME/`, the folder of a scenario's or a group's charts, made if it is missing.
pub(crate) fn folder(dir: &Path, name: &str) -> Result<PathBuf, WriteError> {
    let sub = dir.join(name);
    std::fs::create_dir_all(&sub).map_err(|e| WriteError::io(&sub, e))?;
    Ok(sub)
}

/// The plot area of a chart with f64 axes under its header: room on the left for the
/// value labels and below for the category or x labels.
pub(crate) fn plane<'a, DB>(
    body: &'a Area<DB>,
    x: Range<f64>,
    y: Range<f64>,
) -> DrawResult<Plane<'a, DB>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    Ok(ChartBuilder::on(body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(x, y)?)
}

/// The axes every f64 chart draws: pale grey grid lines at the labelled values only,
/// eleven value labels, 15 px labels and 17 px axis names. The caller adds its own
/// labels and names (and may change any of this) before `draw`.
pub(crate) fn mesh<'a, 'b, DB: DrawingBackend>(
    ch: &'b mut Plane<'a, DB>,
) -> MeshStyle<'a, 'b, RangedCoordf64, RangedCoordf64, DB> {
    let mut m = ch.configure_mesh();
    m.light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .y_labels(11)
        .x_label_style((FONT, 15))
        .y_label_style((FONT, 15))
        .axis_desc_style((FONT, 17));
    m
}

/// A probability axis label: `40%`.
pub(crate) fn percent_tick(v: &f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// A value axis label: a percentage for a probability, else the number with `decimals`
/// places.
pub(crate) fn value_tick(percent: bool, decimals: usize) -> impl Fn(&f64) -> String {
    move |v| {
        if percent {
            percent_tick(v)
        } else {
            format!("{v:.decimals$}")
        }
    }
}

/// A whole-number axis label: `4`.
pub(crate) fn whole_tick(v: &f64) -> String {
    format!("{v:.0}")
}

/// The name of the category centred on `v` (0, 1, ...), blank between categories.
pub(crate) fn category_tick<S: AsRef<str>>(names: &[S], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
        names[i as usize].as_ref().to_string()
    } else {
        String::new()
    }
}

/// The legend of the labelled series, in a box at `position`.
pub(crate) fn series_legend<'a, DB>(
    ch: &mut Plane<'a, DB>,
    position: SeriesLabelPosition,
) -> DrawResult<()>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
{
    ch.configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .label_font((FONT, 14))
        .draw()?;
    Ok(())
}
