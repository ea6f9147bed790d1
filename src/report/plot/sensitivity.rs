//! What one step is worth: one horizontal bar per change (a die, a stat step), its length
//! the change in a probability (percentage points) or a mean; gains right, losses left.

use super::Area;
use super::{fonts, header, DrawResult, FONT, WIDTH};
use crate::report::write::WriteError;
use plotters::prelude::*;
use std::path::Path;

pub fn draw(
    title: &str,
    subtitle: &str,
    x_desc: &str,
    bars: &[(String, f64)],
    percent: bool,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    fonts();
    // Probabilities are drawn in percentage points, means as they are.
    let scale = if percent { 100.0 } else { 1.0 };
    let bars: Vec<(String, f64)> = bars.iter().map(|(l, d)| (l.clone(), d * scale)).collect();
    let height = (200 + 34 * bars.len() as u32).max(400);
    super::save(
        path,
        (WIDTH, height),
        charts,
        |root| draw_into(title, subtitle, x_desc, &bars, root),
        |root| draw_into(title, subtitle, x_desc, &bars, root),
    )
}

fn draw_into<DB>(
    title: &str,
    subtitle: &str,
    x_desc: &str,
    bars: &[(String, f64)],
    root: Area<DB>,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (_, body, _) = header(&root, title, subtitle)?;
    let top = bars.iter().map(|b| b.1.abs()).fold(1e-3f64, f64::max) * 1.2;
    let n = bars.len().max(1);
    let labels: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let label_w = labels
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
        .build_cartesian_2d(-top..top, 0f64..n as f64)?;
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
        .x_label_formatter(&|v| crate::text::signed(*v, 1))
        .y_label_formatter(&|v| {
            let i = v - 0.5;
            if (i - i.round()).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[labels.len() - 1 - i as usize].clone()
            } else {
                String::new()
            }
        })
        .draw()?;
    for (i, (_, d)) in bars.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        let v = *d;
        let c = if v >= 0.0 {
            RGBColor(76, 114, 176)
        } else {
            RGBColor(196, 78, 82)
        };
        ch.draw_series(std::iter::once(Rectangle::new(
            [(0.0, y + 0.15), (v, y + 0.85)],
            c.filled(),
        )))?;
        let pos = if v >= 0.0 {
            plotters::style::text_anchor::HPos::Left
        } else {
            plotters::style::text_anchor::HPos::Right
        };
        let x = v + if v >= 0.0 { top * 0.01 } else { -top * 0.01 };
        ch.draw_series(std::iter::once(Text::new(
            crate::text::signed(v, 2),
            (x, y + 0.5),
            TextStyle::from((FONT, 13).into_font()).pos(plotters::style::text_anchor::Pos::new(
                pos,
                plotters::style::text_anchor::VPos::Center,
            )),
        )))?;
    }
    ch.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0.0), (0.0, n as f64)],
        BLACK.stroke_width(1),
    )))?;
    root.present()?;
    Ok(())
}
