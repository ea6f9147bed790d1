//! A decision table as a chart: for each choice (shoot back, go to ground, ...), the
//! expected value of each quantity side by side (casualties dealt and suffered). Bars are
//! Monte Carlo with 95% CI whiskers, diamonds the exact values.

use super::{fonts, grouped_bar, header, DrawResult, EXACT, FONT, HEIGHT, SERIES, WIDTH};
use crate::report::write::{finish, temp_path, WriteError};
use crate::report::DecisionRow;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// `DIR/DECISION/decision.png` from the expectation rows of one decision.
pub fn draw(
    name: &str,
    label: &str,
    seed: u64,
    rows: &[&DecisionRow],
    dir: &Path,
) -> Result<PathBuf, WriteError> {
    fonts();
    let sub = dir.join(name);
    std::fs::create_dir_all(&sub).map_err(|e| WriteError::io(&sub, e))?;
    let path = sub.join("decision.png");
    let tmp = temp_path(&path)?;
    let result = draw_into(&tmp, name, label, seed, rows).map_err(|e| WriteError::encode(&path, e));
    finish(&tmp, &path, result)?;
    Ok(path)
}

fn draw_into(
    path: &Path,
    name: &str,
    label: &str,
    seed: u64,
    rows: &[&DecisionRow],
) -> DrawResult<()> {
    let mut choices: Vec<&str> = Vec::new();
    let mut quantities: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.expected) {
        if !choices.contains(&r.choice.as_str()) {
            choices.push(&r.choice);
        }
        if !quantities.contains(&r.quantity.as_str()) {
            quantities.push(&r.quantity);
        }
    }
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (head, body, y) = header(
        &root,
        &format!("{name}: expected outcome of each choice"),
        &format!("{label} (seed {seed})"),
    )?;
    let legend = (FONT, 15).into_font().color(&BLACK);
    let mut x = 26;
    for (i, q) in quantities.iter().enumerate() {
        head.draw(&Rectangle::new(
            [(x, y + 1), (x + 16, y + 15)],
            SERIES[i % SERIES.len()].filled(),
        ))?;
        let text = q.replace('_', " ");
        head.draw(&Text::new(text.clone(), (x + 22, y), legend.clone()))?;
        x += 22 + 8 * text.chars().count() as i32 + 24;
    }
    head.draw(&Polygon::new(
        vec![(x + 7, y + 1), (x + 14, y + 8), (x + 7, y + 15), (x, y + 8)],
        EXACT.filled(),
    ))?;
    head.draw(&Text::new(
        "exact; whiskers: 95% CI".to_string(),
        (x + 20, y),
        legend,
    ))?;

    let top = rows
        .iter()
        .filter(|r| r.expected)
        .map(|r| r.ci_high.max(r.exact.unwrap_or(0.0)))
        .fold(0.0f64, f64::max);
    let n = choices.len().max(1) as f64;
    let mut ch = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(n - 0.5), 0f64..(top * 1.15).max(0.1))?;
    let names = choices.clone();
    ch.configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_labels(choices.len() * 2 + 1)
        .y_labels(11)
        .x_label_style((FONT, 16))
        .y_label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .x_desc("choice")
        .y_desc("expected models lost")
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].to_string()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| format!("{v:.1}"))
        .draw()?;
    let width = 0.7 / quantities.len().max(1) as f64;
    for (qi, q) in quantities.iter().enumerate() {
        let c = SERIES[qi % SERIES.len()];
        for (ci, choice) in choices.iter().enumerate() {
            let Some(r) = rows
                .iter()
                .find(|r| r.choice == *choice && r.quantity == *q)
            else {
                continue;
            };
            let left = ci as f64 - 0.35 + qi as f64 * width;
            let mid = left + width / 2.0;
            grouped_bar(
                &mut ch,
                (left + 0.02, left + width - 0.02),
                r.estimate,
                (r.ci_low, r.ci_high),
                r.exact,
                c,
                7,
            )?;
            ch.draw_series(std::iter::once(Text::new(
                format!("{:.2}", r.estimate),
                (mid, r.ci_high + top * 0.02),
                TextStyle::from((FONT, 14).into_font()).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Bottom,
                    ),
                ),
            )))?;
        }
    }
    root.present()?;
    Ok(())
}
