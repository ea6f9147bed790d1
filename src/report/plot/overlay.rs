//! Side by side: one metric's distribution for several entries, grouped by value, one
//! colour per entry (bars = Monte Carlo with 95% CI whiskers, diamonds = exact).

use super::{fonts, grouped_bar, header, DrawResult, FONT, HEIGHT, SERIES, WIDTH};
use crate::report::markdown::thousands;
use crate::report::write::{finish, temp_path, WriteError};
use plotters::prelude::*;
use std::path::Path;

pub fn draw(
    metric: &str,
    rows: &[(String, crate::report::MetricResult, u64)],
    values: &[String],
    path: &Path,
) -> Result<(), WriteError> {
    fonts();
    let tmp = temp_path(path)?;
    let result = draw_into(metric, rows, values, &tmp).map_err(|e| WriteError::encode(path, e));
    finish(&tmp, path, result)
}

fn draw_into(
    metric: &str,
    rows: &[(String, crate::report::MetricResult, u64)],
    values: &[String],
    path: &Path,
) -> DrawResult<()> {
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
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
    // Each legend entry gets an equal share of the width; longer labels end in "…".
    let share = (WIDTH as i32 - 40) / rows.len().max(1) as i32;
    let fits = ((share - 40) / 6).max(8) as usize;
    for (i, (label, _, _)) in rows.iter().enumerate() {
        let x = 26 + i as i32 * share;
        head.draw(&Rectangle::new(
            [(x, y + 1), (x + 16, y + 15)],
            SERIES[i % SERIES.len()].filled(),
        ))?;
        let short: String = if label.chars().count() > fits {
            label
                .chars()
                .take(fits - 1)
                .chain(std::iter::once('…'))
                .collect()
        } else {
            label.clone()
        };
        head.draw(&Text::new(short, (x + 22, y), legend.clone()))?;
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
    let names = values.to_vec();
    let mut ch = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(n - 0.5), 0f64..(top * 1.15).clamp(0.01, 1.05))?;
    ch.configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_labels(values.len() * 2 + 1)
        .y_labels(11)
        .x_label_style((FONT, if values.len() > 12 { 12 } else { 15 }))
        .y_label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .x_desc(metric.replace('_', " "))
        .y_desc("probability")
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
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
                (r.ci_low, r.ci_high),
                r.exact,
                c,
                5,
            )?;
        }
    }
    root.present()?;
    Ok(())
}
