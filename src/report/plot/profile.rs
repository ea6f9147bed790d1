//! A profile: scenarios that are points of one group (an attack at distance 1..10, with
//! and without Aim) drawn as lines against their `x`. One chart of the expected value of
//! the first numeric metric (damage), one of the probability of chosen outcomes (a miss,
//! a kill). Monte Carlo points carry 95% CI whiskers; exact values are the lines.

use super::frame::{folder, mesh, plane, value_tick, whole_tick};
use super::Area;
use super::{header, DrawResult, FONT, HEIGHT, SERIES, WIDTH};
use crate::report::write::WriteError;
use crate::report::ScenarioResult;
use crate::stats::{wilson, z95};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// What the marks are, as the subtitle says it: with no trials (`--exact-only`) there
/// are no points, and the chart says so.
fn note(trials: u64) -> &'static str {
    if trials > 0 {
        "lines: exact, points: Monte Carlo with 95% CI"
    } else {
        "lines: exact"
    }
}

/// One line: (x, the Monte Carlo value with its 95% CI if any ran, exact) per point.
type Line = (String, Vec<(f64, Option<(f64, (f64, f64))>, Option<f64>)>);

fn series<'a>(members: &[&'a ScenarioResult]) -> Vec<(String, Vec<&'a ScenarioResult>)> {
    let mut out: Vec<(String, Vec<&ScenarioResult>)> = Vec::new();
    for &r in members {
        let s = r
            .group
            .as_ref()
            .map(|g| g.series.clone())
            .unwrap_or_default();
        match out.iter_mut().find(|(n, _)| *n == s) {
            Some((_, v)) => v.push(r),
            None => out.push((s, vec![r])),
        }
    }
    out
}

/// The charts of one group, into `DIR/GROUP/`.
pub fn draw(
    name: &str,
    members: &[&ScenarioResult],
    dir: &Path,
    charts: super::Charts,
) -> Result<Vec<PathBuf>, WriteError> {
    let sub = folder(dir, name)?;
    let first = members[0];
    let x_desc = first
        .group
        .as_ref()
        .map(|g| g.x_desc.clone())
        .unwrap_or_default();
    let desc = first
        .group
        .as_ref()
        .map(|g| g.label.clone())
        .unwrap_or_default();
    let mut out = Vec::new();
    let ser = series(members);
    // Expected value of the first numeric metric (damage).
    if let Some(mi) = first.metrics.iter().position(|m| m.numeric) {
        let metric = first.metrics[mi].name.clone();
        let lines: Vec<Line> = ser
            .iter()
            .map(|(s, rs)| {
                let pts = rs
                    .iter()
                    .map(|r| {
                        let m = &r.metrics[mi];
                        let x = r.group.as_ref().map_or(0.0, |g| g.x);
                        let mc = (r.trials > 0)
                            .then(|| (m.mean.unwrap_or(0.0), m.mean_ci.unwrap_or((0.0, 0.0))));
                        (x, mc, m.exact_mean)
                    })
                    .collect();
                (s.clone(), pts)
            })
            .collect();
        let p = sub.join(format!("{metric}_vs_{}.png", x_desc.replace(' ', "_")));
        let (lead, rest) = super::title::titles(name, &desc, first.seed);
        let title = super::title::headed(&lead, &format!("expected {metric} against {x_desc}"));
        let subtitle = format!("{}; {rest}", note(first.trials));
        write(
            &p,
            (&title, &subtitle),
            (&x_desc, &format!("expected {metric}")),
            &lines,
            false,
            charts,
        )?;
        out.push(p);
    }
    let (lines, named) = probability_lines(first, &ser);
    if !lines.is_empty() {
        let p = sub.join(format!("probabilities_vs_{}.png", x_desc.replace(' ', "_")));
        let (lead, rest) = super::title::titles(name, &desc, first.seed);
        let title =
            super::title::headed(&lead, &format!("{} against {x_desc}", named.join(" and ")));
        let subtitle = format!("{}; {rest}", note(first.trials));
        write(
            &p,
            (&title, &subtitle),
            (&x_desc, "probability"),
            &lines,
            true,
            charts,
        )?;
        out.push(p);
    }
    Ok(out)
}

/// P(the attack does not hit): every outcome of `result` but the last ("hit"); and for
/// every other categorical metric its last outcome (kill: "killed"). A line per such
/// probability and series, and the probabilities' names.
fn probability_lines(
    first: &ScenarioResult,
    ser: &[(String, Vec<&ScenarioResult>)],
) -> (Vec<Line>, Vec<String>) {
    let mut lines: Vec<Line> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for (mi, m) in first.metrics.iter().enumerate().filter(|(_, m)| !m.numeric) {
        let (label, values): (String, Vec<usize>) = if mi == 0 && m.rows.len() > 2 {
            let misses: Vec<usize> = (0..m.rows.len() - 1).collect();
            let names: Vec<&str> = misses.iter().map(|&v| m.rows[v].label.as_str()).collect();
            (names.join(" or "), misses)
        } else {
            (
                m.rows[m.rows.len() - 1].label.clone(),
                vec![m.rows.len() - 1],
            )
        };
        named.push(format!("P({label})"));
        for (s, rs) in ser {
            let pts = rs
                .iter()
                .map(|r| {
                    let rows = &r.metrics[mi].rows;
                    let count: u64 = values.iter().map(|&v| rows[v].count).sum();
                    let exact = values.iter().map(|&v| rows[v].exact).sum::<Option<f64>>();
                    let x = r.group.as_ref().map_or(0.0, |g| g.x);
                    let mc = (r.trials > 0).then(|| {
                        (
                            count as f64 / r.trials as f64,
                            wilson(count, r.trials, z95()),
                        )
                    });
                    (x, mc, exact)
                })
                .collect();
            lines.push((format!("P({label}), {s}"), pts));
        }
    }
    (lines, named)
}

/// `(title, subtitle)` and `(x_desc, y_desc)`: what the chart says, as drawn.
fn write(
    path: &Path,
    (title, subtitle): (&str, &str),
    (x_desc, y_desc): (&str, &str),
    lines: &[Line],
    percent: bool,
    charts: super::Charts,
) -> Result<(), WriteError> {
    super::frame::save_chart!(path, (WIDTH, HEIGHT), charts, |root| {
        draw_into(root, title, subtitle, x_desc, y_desc, lines, percent)
    })
}

fn draw_into<DB>(
    root: Area<DB>,
    title: &str,
    subtitle: &str,
    x_desc: &str,
    y_desc: &str,
    lines: &[Line],
    percent: bool,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (head, body, y) = header(&root, title, subtitle)?;
    let legend = (FONT, 15).into_font().color(&BLACK);
    let mut x = 26;
    for (i, (label, _)) in lines.iter().enumerate() {
        let c = SERIES[i % SERIES.len()];
        head.draw(&PathElement::new(
            vec![(x, y + 8), (x + 24, y + 8)],
            c.stroke_width(3),
        ))?;
        head.draw(&Text::new(label.clone(), (x + 30, y), legend.clone()))?;
        x += 30 + 8 * label.chars().count() as i32 + 24;
    }
    let xs = lines.iter().flat_map(|l| l.1.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    let top = lines
        .iter()
        .flat_map(|l| {
            l.1.iter()
                .map(|p| p.1.map_or(0.0, |m| m.1 .1).max(p.2.unwrap_or(0.0)))
        })
        .fold(0.0f64, f64::max);
    let ymax = if percent {
        (top * 1.1).clamp(0.05, 1.0)
    } else {
        (top * 1.15).max(1.0)
    };
    let mut ch = plane(&body, (x0 - 0.5)..(x1 + 0.5), 0f64..ymax)?;
    mesh(&mut ch)
        .x_labels(((x1 - x0) as usize + 1).min(30))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&whole_tick)
        .y_label_formatter(&value_tick(percent, 1))
        .draw()?;
    for (i, (_, pts)) in lines.iter().enumerate() {
        let c = SERIES[i % SERIES.len()];
        let exact: Vec<(f64, f64)> = pts.iter().filter_map(|p| p.2.map(|e| (p.0, e))).collect();
        if !exact.is_empty() {
            ch.draw_series(std::iter::once(PathElement::new(exact, c.stroke_width(2))))?;
        }
        let simulated: Vec<(f64, f64, (f64, f64))> = pts
            .iter()
            .filter_map(|p| p.1.map(|(v, ci)| (p.0, v, ci)))
            .collect();
        ch.draw_series(
            simulated
                .iter()
                .map(|p| ErrorBar::new_vertical(p.0, p.2 .0, p.1, p.2 .1, c.stroke_width(2), 8)),
        )?;
        ch.draw_series(
            simulated
                .iter()
                .map(|p| Circle::new((p.0, p.1), 4, c.filled())),
        )?;
    }
    root.present()?;
    Ok(())
}
