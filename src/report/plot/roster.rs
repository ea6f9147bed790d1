//! A roster's two charts: how often a perfect player picks each unit (its Nash weight,
//! 0 to 100%), and each unit's rating on the Elo scale with its 95% interval when the
//! matrix was sampled. One horizontal bar per unit, strongest first.

use super::Area;
use super::{fonts, header, DrawResult, FONT, WIDTH};
use crate::report::write::WriteError;
use plotters::prelude::*;
use rollsim_core::balance::roster::Roster;
use std::path::Path;

/// One bar: its label, value and the half-width of its interval.
type Bar = (String, f64, Option<f64>);

/// The units in the order both charts show them: strongest first.
fn order(r: &Roster) -> Vec<usize> {
    let mut o: Vec<usize> = (0..r.units.len()).collect();
    o.sort_by(|&a, &b| r.units[b].elo.total_cmp(&r.units[a].elo));
    o
}

/// The Nash weights, in percent, on a 0 to 100 axis.
pub fn weights(
    r: &Roster,
    title: &str,
    subtitle: &str,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    let bars: Vec<Bar> = order(r)
        .into_iter()
        .map(|i| (r.units[i].name.clone(), r.units[i].weight * 100.0, None))
        .collect();
    draw(
        title,
        subtitle,
        "Nash weight (% of picks)",
        &bars,
        (0.0, 105.0),
        &|v| format!("{v:.1}%"),
        path,
        charts,
    )
}

/// The ratings (Elo points, mean 0) with their 95% intervals where there are some.
pub fn ratings(
    r: &Roster,
    title: &str,
    subtitle: &str,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    let bars: Vec<Bar> = order(r)
        .into_iter()
        .map(|i| (r.units[i].name.clone(), r.units[i].elo, r.units[i].elo_ci))
        .collect();
    let top = bars
        .iter()
        .map(|b| b.1.abs() + b.2.unwrap_or(0.0))
        .fold(10.0f64, f64::max)
        * 1.25;
    draw(
        title,
        subtitle,
        "rating (Elo points, mean 0; 400 points = 10:1 odds)",
        &bars,
        (-top, top),
        &|v| format!("{v:+.0}"),
        path,
        charts,
    )
}

#[allow(clippy::too_many_arguments)]
fn draw(
    title: &str,
    subtitle: &str,
    x_desc: &str,
    bars: &[Bar],
    range: (f64, f64),
    label: &dyn Fn(f64) -> String,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    fonts();
    let height = (200 + 34 * bars.len() as u32).max(400);
    super::save(
        path,
        (WIDTH, height),
        charts,
        |root| draw_into(title, subtitle, x_desc, bars, range, label, root),
        |root| draw_into(title, subtitle, x_desc, bars, range, label, root),
    )
}

fn draw_into<DB>(
    title: &str,
    subtitle: &str,
    x_desc: &str,
    bars: &[Bar],
    (lo, hi): (f64, f64),
    label: &dyn Fn(f64) -> String,
    root: Area<DB>,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
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
        .x_label_formatter(&|v| label(*v))
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
        let y = (n - 1 - i) as f64;
        let c = if *v >= 0.0 {
            RGBColor(76, 114, 176)
        } else {
            RGBColor(196, 78, 82)
        };
        ch.draw_series(std::iter::once(Rectangle::new(
            [(0.0, y + 0.2), (*v, y + 0.8)],
            c.filled(),
        )))?;
        let mut end = *v;
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
            end = if *v >= 0.0 { v + h } else { v - h };
        }
        let right = *v >= 0.0;
        let x = end + if right { span * 0.01 } else { -span * 0.01 };
        let text = match ci {
            Some(h) => format!("{} \u{b1} {:.0}", label(*v), h),
            None => label(*v),
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
    }
    ch.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0.0), (0.0, n as f64)],
        BLACK.stroke_width(1),
    )))?;
    root.present()?;
    Ok(())
}
