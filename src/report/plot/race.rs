//! A race to an end, such as a duel to casualty: the probability that each side has won
//! by each step, stacked. The bands' heights at the right edge are P(each side wins);
//! how fast they rise is the length of the fight. Monte Carlo is drawn as bands, the
//! exact values as dots on their edges.

use super::frame::{mesh, percent_tick, whole_tick};
use super::Area;
use super::{fonts, header, DrawResult, EXACT, FONT, HEIGHT, SERIES, WIDTH};
use crate::model::Chart;
use crate::report::write::WriteError;
use crate::report::ScenarioResult;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// One side: its label, P(won by step t) from Monte Carlo and exactly, t = 0, 1, ...
struct Side {
    label: String,
    mc: Vec<f64>,
    exact: Option<Vec<f64>>,
}

fn cumulative(r: &ScenarioResult, label: &str, metric: usize, steps: usize) -> Side {
    let m = &r.metrics[metric];
    let (mut mc, mut ex) = (vec![0.0; steps + 1], Some(vec![0.0; steps + 1]));
    for t in 1..=steps {
        let row = m.rows.get(t);
        mc[t] = mc[t - 1] + row.map_or(0.0, |x| x.probability);
        if let Some(e) = ex.as_mut() {
            match row.map_or(Some(0.0), |x| x.exact) {
                Some(p) => e[t] = e[t - 1] + p,
                None => ex = None,
            }
        }
    }
    Side {
        label: label.to_string(),
        mc,
        exact: ex,
    }
}

/// The race `chart` of scenario `r` under its `(title, subtitle)`, into a PNG at `path`.
pub fn draw(
    r: &ScenarioResult,
    chart: &Chart,
    words: (&str, &str),
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    fonts();
    super::frame::save_chart!(path, (WIDTH, HEIGHT), charts, |root| draw_into(
        r, chart, words, root
    ))
}

fn draw_into<DB>(
    r: &ScenarioResult,
    chart: &Chart,
    (title, subtitle): (&str, &str),
    root: Area<DB>,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let Chart::Race { x_desc, sides, .. } = chart;
    let longest = sides
        .iter()
        .map(|(_, i)| r.metrics[*i].rows.len().saturating_sub(1))
        .max()
        .unwrap_or(1)
        .max(1);
    let all: Vec<Side> = sides
        .iter()
        .map(|(l, i)| cumulative(r, l, *i, longest))
        .collect();
    // Stop the axis once all but 0.05% of the races are over (or at the last step).
    let total = |t: usize| -> f64 {
        all.iter()
            .map(|s| s.exact.as_ref().map_or(s.mc[t], |e| e[t]))
            .sum()
    };
    let finished = total(longest);
    let steps = (1..=longest)
        .find(|&t| finished - total(t) < 5e-4)
        .unwrap_or(longest)
        .max(3)
        .min(longest);

    let (head, body, y) = header(&root, title, subtitle)?;
    let colours = [SERIES[0], SERIES[1]];
    // Without trials (`--exact-only`) the bands are the exact values themselves.
    let simulated = r.trials > 0;
    race_legend(&head, y, &all, r.trials)?;

    let mut ch = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(70)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..steps as f64, 0f64..1.0)?;
    mesh(&mut ch)
        .x_labels(steps.min(30) + 1)
        .x_desc(x_desc.as_str())
        .y_desc("probability of having won")
        .x_label_formatter(&whole_tick)
        .y_label_formatter(&percent_tick)
        .draw()?;

    // Bands stacked bottom-up: side k spans from the sum of the sides below to that
    // plus its own.
    let mut below = vec![0.0; steps + 1];
    let mut below_exact = vec![0.0; steps + 1];
    for (s, c) in all.iter().zip(colours) {
        let top: Vec<f64> = (0..=steps).map(|t| below[t] + s.mc[t]).collect();
        let mut poly: Vec<(f64, f64)> = (0..=steps).map(|t| (t as f64, top[t])).collect();
        poly.extend((0..=steps).rev().map(|t| (t as f64, below[t])));
        ch.draw_series(std::iter::once(Polygon::new(poly, c.mix(0.8).filled())))?;
        let end = s.mc[steps];
        if end > 0.03 {
            ch.draw_series(std::iter::once(Text::new(
                format!("{} {}", s.label, super::title::percent(s.mc[longest])),
                (steps as f64 * 0.98, below[steps] + end / 2.0),
                TextStyle::from((FONT, 17).into_font().style(FontStyle::Bold))
                    .color(&WHITE)
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            )))?;
        }
        if let Some(e) = s.exact.as_ref().filter(|_| simulated) {
            let tops: Vec<f64> = (0..=steps).map(|t| below_exact[t] + e[t]).collect();
            ch.draw_series(
                (1..=steps).map(|t| Circle::new((t as f64, tops[t]), 4, EXACT.filled())),
            )?;
            below_exact = tops;
        }
        below = top;
    }
    root.present()?;
    Ok(())
}

/// The race's legend, in the header: each side's colour, and Monte Carlo or exact.
fn race_legend<DB>(head: &Area<DB>, y: i32, all: &[Side], trials: u64) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let colours = [SERIES[0], SERIES[1]];
    let legend = (FONT, 15).into_font().color(&BLACK);
    let mut x = 26;
    for (s, c) in all.iter().zip(colours) {
        head.draw(&Rectangle::new([(x, y + 1), (x + 16, y + 15)], c.filled()))?;
        let text = format!("{} by then", s.label);
        head.draw(&Text::new(text.clone(), (x + 24, y), legend.clone()))?;
        x += 24 + 9 * text.chars().count() as i32 + 20;
    }
    let simulated = trials > 0;
    let how = if simulated {
        format!(
            "(Monte Carlo, {} trials)",
            super::super::markdown::thousands(trials)
        )
    } else {
        "(exact)".to_string()
    };
    head.draw(&Text::new(how, (x, y), legend.clone()))?;
    if simulated && all.iter().any(|s| s.exact.is_some()) {
        let ex = x + 260;
        head.draw(&Circle::new((ex, y + 8), 5, EXACT.filled()))?;
        head.draw(&Text::new("exact".to_string(), (ex + 12, y), legend))?;
    }
    Ok(())
}
