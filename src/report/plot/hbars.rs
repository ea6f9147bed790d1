//! Horizontal bars, one per labelled item, from zero along a value axis, with a
//! whisker for an interval where there is one: what one step is worth (sensitivity),
//! a roster's Nash weights and ratings.

use super::{fonts, header, DrawResult, FONT, WIDTH};
use super::{Area, Plane};
use crate::report::write::WriteError;
use plotters::prelude::*;
use std::path::Path;

/// One bar: its label, value and the half-width of its interval.
pub type Bar = (String, f64, Option<f64>);

/// A chart of bars: top to bottom in the order given.
#[derive(Clone, Copy)]
pub struct HBars<'a> {
    pub title: &'a str,
    pub subtitle: &'a str,
    pub x_desc: &'a str,
    pub bars: &'a [Bar],
    /// The value axis.
    pub range: (f64, f64),
    /// How the axis and each bar's value are written.
    pub axis: &'a dyn Fn(f64) -> String,
    pub value: &'a dyn Fn(f64) -> String,
}

/// Draw `h` into `path` (and an SVG beside it when asked).
pub fn draw(h: &HBars, path: &Path, charts: super::Charts) -> Result<(), WriteError> {
    fonts();
    let height = (200 + 34 * h.bars.len() as u32).max(400);
    super::frame::save_chart!(path, (WIDTH, height), charts, |root| draw_into(h, root))
}

fn draw_into<DB>(h: &HBars, root: Area<DB>) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let HBars {
        title,
        subtitle,
        x_desc,
        bars,
        range: (lo, hi),
        axis,
        value,
    } = *h;
    let (_, body, _) = header(&root, title, subtitle)?;
    let n = bars.len().max(1);
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let label_w = names
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(10)
        .clamp(10, 48) as u32
        * 8
        + 20;
    let mut ch = ChartBuilder::on(&body)
        .margin_left(10)
        .margin_right(40)
        .margin_bottom(10)
        .x_label_area_size(60)
        .y_label_area_size(label_w)
        .build_cartesian_2d(lo..hi, 0f64..n as f64)?;
    ch.configure_mesh()
        .disable_y_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .y_labels(n * 2 + 1)
        .x_labels(9)
        .x_label_style((FONT, 14))
        .y_label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .x_desc(x_desc)
        .x_label_formatter(&|v| axis(*v))
        .y_label_formatter(&|v| {
            let i = v - 0.5;
            if (i - i.round()).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[names.len() - 1 - i as usize].clone()
            } else {
                String::new()
            }
        })
        .draw()?;
    let span = hi - lo;
    for (i, (_, v, ci)) in bars.iter().enumerate() {
        draw_bar(&mut ch, (n - 1 - i) as f64, (*v, *ci), span, value)?;
    }
    ch.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0.0), (0.0, n as f64)],
        BLACK.stroke_width(1),
    )))?;
    root.present()?;
    Ok(())
}

/// One bar at height `y`: from zero to its value, its interval's whisker, and the value
/// written beyond its end.
fn draw_bar<DB>(
    ch: &mut Plane<'_, DB>,
    y: f64,
    (v, ci): (f64, Option<f64>),
    span: f64,
    value: &dyn Fn(f64) -> String,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let c = if v >= 0.0 {
        RGBColor(76, 114, 176)
    } else {
        RGBColor(196, 78, 82)
    };
    ch.draw_series(std::iter::once(Rectangle::new(
        [(0.0, y + 0.15), (v, y + 0.85)],
        c.filled(),
    )))?;
    let mut end = v;
    if let Some(h) = ci {
        // The 95% interval as a whisker with end caps.
        let style = BLACK.stroke_width(2);
        ch.draw_series(std::iter::once(PathElement::new(
            vec![(v - h, y + 0.5), (v + h, y + 0.5)],
            style,
        )))?;
        for x in [v - h, v + h] {
            ch.draw_series(std::iter::once(PathElement::new(
                vec![(x, y + 0.35), (x, y + 0.65)],
                style,
            )))?;
        }
        end = if v >= 0.0 { v + h } else { v - h };
    }
    let right = v >= 0.0;
    let x = end + if right { span * 0.005 } else { -span * 0.005 };
    let text = match ci {
        Some(h) => format!("{} \u{b1} {:.0}", value(v), h),
        None => value(v),
    };
    let pos = if right {
        plotters::style::text_anchor::HPos::Left
    } else {
        plotters::style::text_anchor::HPos::Right
    };
    ch.draw_series(std::iter::once(Text::new(
        text,
        (x, y + 0.5),
        TextStyle::from((FONT, 13).into_font()).pos(plotters::style::text_anchor::Pos::new(
            pos,
            plotters::style::text_anchor::VPos::Center,
        )),
    )))?;
    Ok(())
}
