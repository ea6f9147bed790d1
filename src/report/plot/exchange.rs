//! Exchange-rate lines: for each unit, its chance (both seats) against the reference
//! unit as its count grows, through every count the cost search tried; where a line
//! crosses 50% the unit ties the reference, which prices it.

use super::frame::{mesh, percent_tick, series_legend, whole_tick};
use super::Area;
use super::{fonts, header, DrawResult, SERIES, WIDE, WIDTH};
use crate::report::write::WriteError;
use plotters::prelude::*;
use rollsim_core::balance::costs::Costs;
use std::path::Path;

pub fn draw(
    k: &Costs,
    title: &str,
    subtitle: &str,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    fonts();
    super::frame::save_chart!(path, (WIDTH, 600), charts, |root| {
        draw_into(k, title, subtitle, root)
    })
}

fn draw_into<DB>(k: &Costs, title: &str, subtitle: &str, root: Area<DB>) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (_, body, _) = header(&root, title, subtitle)?;
    let lines: Vec<_> = k.rows.iter().filter(|r| r.curve.len() > 1).collect();
    // The axis spans the counts tried, padded as a sweep's (costs of 14 to 52 are not
    // drawn from 0).
    let counts = || {
        lines
            .iter()
            .flat_map(|r| r.curve.iter().map(|p| p.0 as f64))
    };
    let (x0, x1) = match (counts().reduce(f64::min), counts().reduce(f64::max)) {
        (Some(a), Some(b)) => (a, b),
        _ => (0.0, 2.0),
    };
    let pad = ((x1 - x0) * 0.03).max(0.5);
    let (lo, hi) = ((x0 - pad).max(0.0), x1 + pad);
    let mut ch = ChartBuilder::on(&body)
        .margin_left(10)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(lo..hi, 0f64..1f64)?;
    mesh(&mut ch)
        // At most one label per whole count: a tick at 14.5 would print as "14".
        .x_labels(((hi - lo) as usize + 1).clamp(2, 12))
        .x_desc(format!("the unit's {}", k.count))
        .y_desc("chance against the reference (both seats)")
        .x_label_formatter(&whole_tick)
        .y_label_formatter(&percent_tick)
        .draw()?;
    // The tie: where a line crosses it, the unit is worth the reference.
    ch.draw_series(std::iter::once(PathElement::new(
        vec![(lo, 0.5), (hi, 0.5)],
        BLACK.mix(0.6).stroke_width(1),
    )))?;
    for (i, r) in lines.iter().enumerate() {
        let c = if lines.len() <= SERIES.len() {
            SERIES[i]
        } else {
            WIDE[i % WIDE.len()]
        };
        let pts: Vec<(f64, f64)> = r.curve.iter().map(|(x, p)| (*x as f64, *p)).collect();
        let label = match r.even_count {
            Some(e) => format!("{} (ties at {e:.2})", r.name),
            None => r.name.clone(),
        };
        ch.draw_series(std::iter::once(PathElement::new(
            pts.clone(),
            c.stroke_width(2),
        )))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3)));
        ch.draw_series(pts.iter().map(|p| Circle::new(*p, 4, c.filled())))?;
    }
    if !lines.is_empty() {
        series_legend(&mut ch, SeriesLabelPosition::LowerRight)?;
    }
    root.present()?;
    Ok(())
}
