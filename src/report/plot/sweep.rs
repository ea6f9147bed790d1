//! A sweep: one key as lines (Monte Carlo points with a shaded 95% band, the exact values
//! as a line; one colour per member of a group), two keys as a heatmap per member.

use super::frame::{mesh, plane, series_legend, value_tick, whole_tick};
use super::heatmap::{self, Heat};
use super::Area;
use super::{fonts, header, DrawResult, BAR, EXACT, FONT, HEIGHT, SERIES, WIDE, WIDTH};
use crate::report::analysis::{Cell, Sweep};
use crate::report::write::WriteError;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Draw the sweep into `dir` as `STEM.png` (one key), or one `STEM[-MEMBER].png` heatmap
/// per member (two keys); returns the files.
pub fn draw(
    s: &Sweep,
    how: &str,
    dir: &Path,
    stem: &str,
    charts: super::Charts,
) -> Result<Vec<PathBuf>, WriteError> {
    let keys = s
        .keys
        .iter()
        .map(|k| k.label.clone())
        .collect::<Vec<_>>()
        .join(" and ");
    if let Some(k2) = s.keys.get(1) {
        let mut out = Vec::new();
        for ser in &s.series {
            let values: Vec<Vec<Option<f64>>> = ser
                .cells
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|c| c.as_ref().ok().map(|c| c.estimate))
                        .collect()
                })
                .collect();
            let (file, name) = if s.series.len() == 1 {
                (
                    format!("{stem}.png"),
                    super::title::lead(&s.scenario, &s.description),
                )
            } else {
                (
                    format!("{stem}-{}.png", ser.label),
                    super::title::words(&ser.label),
                )
            };
            let heat = Heat {
                title: super::title::headed(&name, &format!("{} against {keys}", s.what)),
                subtitle: format!("{how}; rows {}, columns {}", s.keys[0].label, k2.label),
                rows: s.keys[0].values.iter().map(|v| v.to_string()).collect(),
                cols: k2.values.iter().map(|v| v.to_string()).collect(),
                row_desc: s.keys[0].label.clone(),
                col_desc: k2.label.clone(),
                text: heatmap::texts(&values, s.probability),
                range: heatmap::range(&values, s.probability),
                values,
                percent: s.probability,
            };
            let path = dir.join(file);
            heatmap::draw(&heat, &path, charts)?;
            out.push(path);
        }
        return Ok(out);
    }
    fonts();
    let path = dir.join(format!("{stem}.png"));
    let title = super::title::headed(
        &super::title::lead(&s.scenario, &s.description),
        &format!("{} against {keys}", s.what),
    );
    super::frame::save_chart!(&path, (WIDTH, HEIGHT), charts, |root| {
        lines(s, &title, how, root)
    })?;
    Ok(vec![path])
}

fn lines<DB>(s: &Sweep, title: &str, how: &str, root: Area<DB>) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (head, body, y) = header(&root, title, how)?;
    let one = s.series.len() == 1;
    let colour = |i: usize| {
        if one {
            BAR
        } else if s.series.len() <= SERIES.len() {
            SERIES[i]
        } else {
            WIDE[i % WIDE.len()]
        }
    };
    // A group's members are named by what follows the group's name: `d4+aim`.
    let prefix = format!("{}@", s.scenario);
    let short = |l: &str| l.strip_prefix(&prefix).unwrap_or(l).to_string();
    // Without trials (`--exact-only`) there is no band and no point: the legend says
    // only "exact".
    let simulated = s.trials.is_some();
    key(&head, y, one, simulated)?;
    let xs: Vec<f64> = s.keys[0].values.iter().map(|&v| v as f64).collect();
    let series: Vec<Vec<(f64, &Cell)>> = s
        .series
        .iter()
        .map(|ser| {
            xs.iter()
                .copied()
                .zip(ser.cells.iter().map(|r| r[0].as_ref().ok()))
                .filter_map(|(x, c)| c.map(|c| (x, c)))
                .collect()
        })
        .collect();
    let ymax = y_max(&series, simulated, s.probability);
    let (x0, x1) = (xs[0], *xs.last().unwrap_or(&xs[0]));
    let pad = ((x1 - x0) * 0.03).max(0.5);
    let mut ch = plane(&body, (x0 - pad)..(x1 + pad), 0f64..ymax)?;
    let pct = s.probability;
    mesh(&mut ch)
        .x_labels(xs.len().min(25))
        .x_desc(s.keys[0].label.as_str())
        .y_desc(s.what.as_str())
        .x_label_formatter(&whole_tick)
        .y_label_formatter(&value_tick(pct, 2))
        .draw()?;
    // Even odds, the line a designer balances toward.
    if pct && ymax > 0.5 {
        ch.draw_series(std::iter::once(PathElement::new(
            vec![(x0 - pad, 0.5), (x1 + pad, 0.5)],
            RGBColor(150, 150, 150).stroke_width(1),
        )))?;
    }
    for (i, pts) in series.iter().enumerate() {
        if pts.is_empty() {
            continue;
        }
        let c = colour(i);
        if one && simulated {
            let mut band: Vec<(f64, f64)> = pts.iter().map(|(x, c)| (*x, c.ci.1)).collect();
            band.extend(pts.iter().rev().map(|(x, c)| (*x, c.ci.0)));
            ch.draw_series(std::iter::once(Polygon::new(band, c.mix(0.25).filled())))?;
        }
        let exact: Vec<(f64, f64)> = pts
            .iter()
            .filter_map(|(x, c)| c.exact.map(|e| (*x, e)))
            .collect();
        // One line: the exact colour; several: each member's own colour.
        let line = if one { EXACT } else { c };
        let drawn = ch.draw_series(std::iter::once(PathElement::new(
            exact,
            line.stroke_width(if one { 3 } else { 2 }),
        )))?;
        if !one {
            drawn
                .label(short(&s.series[i].label))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
        }
        if simulated {
            ch.draw_series(
                pts.iter()
                    .map(|(x, p)| Circle::new((*x, p.estimate), 4, c.filled())),
            )?;
        }
    }
    if !one {
        series_legend(&mut ch, SeriesLabelPosition::UpperRight)?;
    }
    root.present()?;
    Ok(())
}

/// The top of the value axis: above every point drawn (a band's top, else the exact
/// value), with room for the labels; a probability stops at 1.
fn y_max(series: &[Vec<(f64, &Cell)>], simulated: bool, probability: bool) -> f64 {
    let top = series
        .iter()
        .flatten()
        .map(|(_, c)| {
            if simulated {
                c.ci.1.max(c.exact.unwrap_or(0.0))
            } else {
                c.exact.unwrap_or(c.estimate)
            }
        })
        .fold(0.0f64, f64::max);
    if probability {
        (top * 1.1).clamp(0.05, 1.0)
    } else {
        (top * 1.15).max(0.1)
    }
}

/// The key under the title: what the band, the line and the points are.
fn key<DB>(head: &Area<DB>, y: i32, one: bool, simulated: bool) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let legend = (FONT, 15).into_font().color(&BLACK);
    if one && simulated {
        head.draw(&Rectangle::new(
            [(26, y + 1), (50, y + 15)],
            BAR.mix(0.25).filled(),
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
    } else if one {
        head.draw(&PathElement::new(
            vec![(26, y + 8), (56, y + 8)],
            EXACT.stroke_width(3),
        ))?;
        head.draw(&Text::new("exact".to_string(), (64, y), legend))?;
    } else {
        let text = if simulated {
            "one line per member: lines exact, points Monte Carlo (95% CIs in the CSV)"
        } else {
            "one line per member, exact"
        };
        head.draw(&Text::new(text.to_string(), (26, y), legend))?;
    }
    Ok(())
}
