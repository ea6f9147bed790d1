//! A decision table as a chart: for each choice (shoot back, go to ground, ...), the
//! expected value of each quantity side by side (casualties dealt and suffered). Bars are
//! Monte Carlo with 95% CI whiskers, diamonds the exact values.

use super::frame::{category_tick, folder, mesh, plane, value_tick};
use super::Area;
use super::{grouped_bar, header, DrawResult, EXACT, FONT, HEIGHT, SERIES, WIDTH};
use crate::report::write::WriteError;
use crate::report::DecisionRow;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// `DIR/DECISION/decision.png` from the expectation rows of one decision (models
/// lost each side), and `decision_morale.png` from its probabilities (each side broken
/// or wiped out).
pub fn draw(
    name: &str,
    label: &str,
    seed: u64,
    rows: &[&DecisionRow],
    dir: &Path,
    charts: super::Charts,
) -> Result<Vec<PathBuf>, WriteError> {
    let sub = folder(dir, name)?;
    let mut out = Vec::new();
    for (file, probabilities) in [("decision.png", false), ("decision_morale.png", true)] {
        if !rows.iter().any(|r| r.expected != probabilities) {
            continue;
        }
        let path = sub.join(file);
        super::frame::save_chart!(&path, (WIDTH, HEIGHT), charts, |root| {
            draw_into(root, name, label, seed, rows, probabilities)
        })?;
        out.push(path);
    }
    Ok(out)
}

fn draw_into<DB>(
    root: Area<DB>,
    name: &str,
    label: &str,
    seed: u64,
    rows: &[&DecisionRow],
    probabilities: bool,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let rows: Vec<&DecisionRow> = rows
        .iter()
        .copied()
        .filter(|r| r.expected != probabilities)
        .collect();
    let (choices, quantities) = choices_and_quantities(&rows);
    // Each quantity in the units' own words.
    let label_of = |q: &str| {
        rows.iter()
            .find(|r| r.quantity == q)
            .map_or(q.replace('_', " "), |r| r.label.clone())
    };
    let (lead, subtitle) = super::title::titles(name, label, seed);
    let (head, body, y) = header(
        &root,
        &super::title::headed(
            &lead,
            if probabilities {
                "morale of each choice"
            } else {
                "models lost of each choice"
            },
        ),
        &subtitle,
    )?;
    // Without trials (`--exact-only`) the bars are the exact values: no whisker, no
    // diamond.
    let simulated = rows.iter().any(|r| r.trials > 0);
    key(&head, y, &quantities, label_of, simulated)?;

    let top = rows
        .iter()
        .map(|r| r.ci_high.max(r.exact.unwrap_or(0.0)))
        .fold(0.0f64, f64::max);
    let n = choices.len().max(1) as f64;
    let mut ch = plane(&body, -0.5..(n - 0.5), 0f64..(top * 1.15).max(0.1))?;
    mesh(&mut ch)
        .disable_x_mesh()
        .x_labels(choices.len() * 2 + 1)
        .x_label_style((FONT, 16))
        .x_desc("choice")
        .y_desc(if probabilities {
            "probability"
        } else {
            "expected models lost"
        })
        .x_label_formatter(&|v| category_tick(&choices, *v))
        .y_label_formatter(&value_tick(probabilities, 1))
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
                simulated.then_some((r.ci_low, r.ci_high)),
                r.exact.filter(|_| simulated),
                c,
                7,
            )?;
            ch.draw_series(std::iter::once(Text::new(
                value_text(r.estimate, probabilities),
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

/// The choices (the bars' groups) and the quantities (a group's bars), each once, in
/// the order the rows first give them.
fn choices_and_quantities<'a>(rows: &[&'a DecisionRow]) -> (Vec<&'a str>, Vec<&'a str>) {
    let mut choices: Vec<&str> = Vec::new();
    let mut quantities: Vec<&str> = Vec::new();
    for r in rows {
        if !choices.contains(&r.choice.as_str()) {
            choices.push(&r.choice);
        }
        if !quantities.contains(&r.quantity.as_str()) {
            quantities.push(&r.quantity);
        }
    }
    (choices, quantities)
}

/// A bar's value as its label prints it: a percentage, or models lost to two places.
fn value_text(v: f64, probability: bool) -> String {
    if probability {
        super::title::percent(v)
    } else {
        format!("{v:.2}")
    }
}

/// The key under the title: each quantity's colour in the units' own words, then what
/// the diamond and whiskers are.
fn key<DB>(
    head: &Area<DB>,
    y: i32,
    quantities: &[&str],
    label_of: impl Fn(&str) -> String,
    simulated: bool,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let legend = (FONT, 15).into_font().color(&BLACK);
    let mut x = 26;
    for (i, q) in quantities.iter().enumerate() {
        head.draw(&Rectangle::new(
            [(x, y + 1), (x + 16, y + 15)],
            SERIES[i % SERIES.len()].filled(),
        ))?;
        let text = label_of(q);
        head.draw(&Text::new(text.clone(), (x + 22, y), legend.clone()))?;
        x += 22 + 8 * text.chars().count() as i32 + 24;
    }
    if simulated {
        head.draw(&Polygon::new(
            vec![(x + 7, y + 1), (x + 14, y + 8), (x + 7, y + 15), (x, y + 8)],
            EXACT.filled(),
        ))?;
        head.draw(&Text::new(
            "exact; whiskers: 95% CI".to_string(),
            (x + 20, y),
            legend,
        ))?;
    } else {
        head.draw(&Text::new("(exact)".to_string(), (x, y), legend))?;
    }

    Ok(())
}
