//! Side by side: one metric's distribution for several entries, grouped by value, one
//! colour per entry (bars = Monte Carlo with 95% CI whiskers, diamonds = exact).

use super::frame::{category_tick, mesh, percent_tick, plane};
use super::Area;
use super::{fonts, grouped_bar, header, DrawResult, FONT, HEIGHT, SERIES, WIDTH};
use crate::report::markdown::thousands;
use crate::report::write::WriteError;
use plotters::prelude::*;
use std::path::Path;

pub fn draw(
    metric: &str,
    rows: &[(String, crate::report::MetricResult, u64)],
    values: &[String],
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    fonts();
    // A long tail nobody can see (an exploding pool's 25 successes) would squeeze the
    // bars into a fifth of the width: values past the last one any entry reaches 0.05%
    // of are not drawn (the CSV has them all).
    let visible = |v: &String| {
        rows.iter().any(|(_, m, _)| {
            m.rows
                .iter()
                .any(|r| &r.label == v && (r.probability >= 5e-4 || r.exact.unwrap_or(0.0) >= 5e-4))
        })
    };
    let keep = values
        .iter()
        .rposition(visible)
        .map_or(values.len(), |i| i + 1)
        .max(2)
        .min(values.len());
    let values = &values[..keep];
    super::frame::save_chart!(path, (WIDTH, HEIGHT), charts, |root| {
        draw_into(metric, rows, values, root)
    })
}

fn draw_into<DB>(
    metric: &str,
    rows: &[(String, crate::report::MetricResult, u64)],
    values: &[String],
    root: Area<DB>,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let trials = rows.iter().map(|r| r.2).min().unwrap_or(0);
    let (head, body, y) = header(
        &root,
        &format!("{}: side by side", metric.replace('_', " ")),
        &format!(
            "{} entries, Monte Carlo with at least {} trials each; whiskers 95% CI, diamonds exact",
            rows.len(),
            thousands(trials)
        ),
    )?;
    let legend = (FONT, 14).into_font().color(&BLACK);
    // The legend in rows that fit the width, every label whole, above the plot.
    let mut places: Vec<(i32, i32)> = Vec::new();
    let (mut x, mut line) = (26, 0);
    for (label, _, _) in rows {
        let w = 22 + 8 * label.chars().count() as i32 + 24;
        if x > 26 && x + w > WIDTH as i32 - 20 {
            x = 26;
            line += 1;
        }
        places.push((x, line));
        x += w;
    }
    let lines = places.last().map_or(0, |p| p.1);
    let (keys, body) = body.split_vertically(22 * lines as u32 + 4);
    for (i, ((label, _, _), (x, line))) in rows.iter().zip(places).enumerate() {
        let (area, y) = if line == 0 {
            (&head, y)
        } else {
            (&keys, 22 * (line - 1))
        };
        area.draw(&Rectangle::new(
            [(x, y + 1), (x + 16, y + 15)],
            SERIES[i % SERIES.len()].filled(),
        ))?;
        area.draw(&Text::new(label.clone(), (x + 22, y), legend.clone()))?;
    }
    let top = rows
        .iter()
        .flat_map(|r| {
            r.1.rows
                .iter()
                .map(|x| x.ci_high.max(x.exact.unwrap_or(0.0)))
        })
        .fold(0.0f64, f64::max);
    let n = values.len().max(1) as f64;
    let mut ch = plane(&body, -0.5..(n - 0.5), 0f64..(top * 1.15).clamp(0.01, 1.05))?;
    mesh(&mut ch)
        .disable_x_mesh()
        .x_labels(values.len() * 2 + 1)
        .x_label_style((FONT, if values.len() > 12 { 12 } else { 15 }))
        .x_desc(metric.replace('_', " "))
        .y_desc("probability")
        .x_label_formatter(&|v| category_tick(values, *v))
        .y_label_formatter(&percent_tick)
        .draw()?;
    let width = 0.8 / rows.len().max(1) as f64;
    for (k, (_, m, _)) in rows.iter().enumerate() {
        let c = SERIES[k % SERIES.len()];
        for (i, v) in values.iter().enumerate() {
            let Some(r) = m.rows.iter().find(|r| &r.label == v) else {
                continue;
            };
            let left = i as f64 - 0.4 + k as f64 * width;
            grouped_bar(
                &mut ch,
                (left + 0.01, left + width - 0.01),
                r.probability,
                Some((r.ci_low, r.ci_high)),
                r.exact,
                c,
                5,
            )?;
        }
    }
    root.present()?;
    Ok(())
}
