//! A sweep: one key as a line (Monte Carlo points with a shaded 95% band, the exact
//! values as a line), two keys as a heatmap.

use super::heatmap::{self, Heat};
use super::{fonts, header, DrawResult, EXACT, FONT, HEIGHT, WIDTH};
use crate::balance::sweep::Sweep;
use crate::report::write::{finish, temp_path, WriteError};
use plotters::prelude::*;
use std::path::Path;

pub fn draw(s: &Sweep, how: &str, path: &Path) -> Result<(), WriteError> {
    let title = format!(
        "{}: {} against {}",
        s.scenario,
        s.what,
        s.keys
            .iter()
            .map(|k| k.key.clone())
            .collect::<Vec<_>>()
            .join(" and ")
    );
    if let Some(k2) = s.keys.get(1) {
        let values: Vec<Vec<f64>> = s
            .cells
            .iter()
            .map(|r| r.iter().map(|c| c.estimate).collect())
            .collect();
        let all = values.iter().flatten();
        let (lo, hi) = if s.probability {
            (0.0, 1.0)
        } else {
            (
                all.clone().fold(f64::MAX, |a, &b| a.min(b)).min(0.0),
                all.fold(f64::MIN, |a, &b| a.max(b)),
            )
        };
        let heat = Heat {
            title,
            subtitle: format!("{how}; rows {}, columns {}", s.keys[0].key, k2.key),
            rows: s.keys[0].values.iter().map(|v| v.to_string()).collect(),
            cols: k2.values.iter().map(|v| v.to_string()).collect(),
            row_desc: s.keys[0].key.clone(),
            col_desc: k2.key.clone(),
            text: s
                .cells
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|c| {
                            if s.probability {
                                format!("{:.1}%", c.estimate * 100.0)
                            } else {
                                format!("{:.2}", c.estimate)
                            }
                        })
                        .collect()
                })
                .collect(),
            values,
            range: (lo, hi.max(lo + 1e-9)),
            percent: s.probability,
        };
        return heatmap::draw(&heat, path);
    }
    fonts();
    let tmp = temp_path(path);
    let result = line(s, &title, how, &tmp).map_err(|e| WriteError::encode(path, e));
    finish(&tmp, path, result)
}

fn line(s: &Sweep, title: &str, how: &str, path: &Path) -> DrawResult<()> {
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (head, body, y) = header(&root, title, how)?;
    let blue = RGBColor(76, 114, 176);
    let legend = (FONT, 15).into_font().color(&BLACK);
    head.draw(&Rectangle::new(
        [(26, y + 1), (50, y + 15)],
        blue.mix(0.25).filled(),
    ))?;
    head.draw(&Text::new(
        "Monte Carlo with its 95% band".to_string(),
        (58, y),
        legend.clone(),
    ))?;
    head.draw(&PathElement::new(
        vec![(330, y + 8), (360, y + 8)],
        EXACT.stroke_width(3),
    ))?;
    head.draw(&Text::new("exact".to_string(), (368, y), legend))?;
    let xs: Vec<f64> = s.keys[0].values.iter().map(|&v| v as f64).collect();
    let pts: Vec<(f64, &crate::balance::Cell)> = xs
        .iter()
        .copied()
        .zip(s.cells.iter().map(|r| &r[0]))
        .collect();
    let top = pts
        .iter()
        .map(|(_, c)| c.ci.1.max(c.exact.unwrap_or(0.0)))
        .fold(0.0f64, f64::max);
    let ymax = if s.probability {
        (top * 1.1).clamp(0.05, 1.0)
    } else {
        (top * 1.15).max(0.1)
    };
    let (x0, x1) = (xs[0], *xs.last().unwrap_or(&xs[0]));
    let pad = ((x1 - x0) * 0.03).max(0.5);
    let mut ch = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..ymax)?;
    let pct = s.probability;
    ch.configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_labels(xs.len().min(25))
        .y_labels(11)
        .x_label_style((FONT, 15))
        .y_label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .x_desc(s.keys[0].key.as_str())
        .y_desc(s.what.as_str())
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| {
            if pct {
                format!("{:.0}%", v * 100.0)
            } else {
                format!("{v:.2}")
            }
        })
        .draw()?;
    let mut band: Vec<(f64, f64)> = pts.iter().map(|(x, c)| (*x, c.ci.1)).collect();
    band.extend(pts.iter().rev().map(|(x, c)| (*x, c.ci.0)));
    ch.draw_series(std::iter::once(Polygon::new(band, blue.mix(0.25).filled())))?;
    let exact: Vec<(f64, f64)> = pts
        .iter()
        .filter_map(|(x, c)| c.exact.map(|e| (*x, e)))
        .collect();
    if !exact.is_empty() {
        ch.draw_series(std::iter::once(PathElement::new(
            exact,
            EXACT.stroke_width(3),
        )))?;
    }
    ch.draw_series(
        pts.iter()
            .map(|(x, c)| Circle::new((*x, c.estimate), 4, blue.filled())),
    )?;
    root.present()?;
    Ok(())
}
