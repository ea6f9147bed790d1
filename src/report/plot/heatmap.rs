//! Heatmaps: a matchup matrix (attackers x defenders) or a two-key sweep. Each cell is
//! coloured by its value and carries the value as text (dark text on light cells, light
//! on dark); a colour bar on the right gives the scale.

use super::Area;
use super::{fonts, header, DrawResult, FONT, HEIGHT, WIDTH};
use crate::report::analysis::Matrix;
use crate::report::write::WriteError;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::path::Path;

/// What a heatmap shows.
pub struct Heat {
    pub title: String,
    pub subtitle: String,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    pub row_desc: String,
    pub col_desc: String,
    /// `values[row][col]`; None: a cell that cannot be computed, drawn grey.
    pub values: Vec<Vec<Option<f64>>>,
    /// Text in each cell.
    pub text: Vec<Vec<String>>,
    /// Colour scale ends.
    pub range: (f64, f64),
    pub percent: bool,
}

/// A sequential colour from pale yellow (low) through orange to dark purple (high).
fn colour(t: f64) -> RGBColor {
    let stops = [
        (255.0, 247.0, 188.0),
        (254.0, 196.0, 79.0),
        (236.0, 112.0, 20.0),
        (153.0, 52.0, 4.0),
        (73.0, 0.0, 106.0),
    ];
    let t = t.clamp(0.0, 1.0) * (stops.len() - 1) as f64;
    let i = (t.floor() as usize).min(stops.len() - 2);
    let f = t - i as f64;
    let (a, b) = (stops[i], stops[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

pub fn draw(h: &Heat, path: &Path, charts: super::Charts) -> Result<(), WriteError> {
    fonts();
    let height = HEIGHT.max(220 + 46 * h.rows.len() as u32);
    super::frame::save_chart!(path, (WIDTH, height), charts, |root| draw_into(h, root))
}

fn draw_into<DB>(h: &Heat, root: Area<DB>) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (_head, body, _) = header(&root, &h.title, &h.subtitle)?;
    let (grid, bar) = body.split_horizontally(WIDTH - 130);
    let label_w = h
        .rows
        .iter()
        .map(|r| r.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 26) as u32
        * 9
        + 40;
    let nr = h.rows.len().max(1);
    let nc = h.cols.len().max(1);
    let mut ch = ChartBuilder::on(&grid)
        .margin_left(10)
        .margin_right(10)
        .margin_top(10)
        .x_label_area_size(70)
        .y_label_area_size(label_w)
        .build_cartesian_2d(0f64..nc as f64, 0f64..nr as f64)?;
    let rows = h.rows.clone();
    let cols = h.cols.clone();
    // Column labels wider than their column are wrapped under it, line by line, rather
    // than printed over their neighbours ("Fighter (grey defence die)" beside "Fighter
    // (grey die, Iron Shield)").
    let col_font = if nc > 8 { 12 } else { 15 };
    let col_px = f64::from(ch.backend_coord(&(1.0, 0.0)).0 - ch.backend_coord(&(0.0, 0.0)).0);
    let fits = (col_px - 8.0) / (f64::from(col_font) * 0.6);
    let wrapped = cols.iter().any(|c| c.chars().count() as f64 > fits);
    ch.configure_mesh()
        .disable_mesh()
        .x_labels(nc * 2 + 1)
        .y_labels(nr * 2 + 1)
        .x_label_style((FONT, if nc > 8 { 12 } else { 15 }))
        .y_label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .x_desc(h.col_desc.as_str())
        .y_desc(h.row_desc.as_str())
        .x_label_formatter(&|v| {
            let i = v - 0.5;
            if !wrapped && (i - i.round()).abs() < 1e-6 && i >= 0.0 && (i as usize) < cols.len() {
                cols[i as usize].clone()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| {
            // Row 0 at the top.
            let i = v - 0.5;
            if (i - i.round()).abs() < 1e-6 && i >= 0.0 && (i as usize) < rows.len() {
                rows[rows.len() - 1 - i as usize].clone()
            } else {
                String::new()
            }
        })
        .draw()?;
    if wrapped {
        let style = TextStyle::from((FONT, col_font).into_font()).pos(
            plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ),
        );
        for (c, label) in cols.iter().enumerate() {
            let (x, y) = ch.backend_coord(&(c as f64 + 0.5, 0.0));
            for (k, line) in wrap(label, fits.max(4.0) as usize, 3)
                .into_iter()
                .enumerate()
            {
                root.draw(&Text::new(
                    line,
                    (x, y + 8 + k as i32 * (col_font + 3)),
                    style.clone(),
                ))?;
            }
        }
    }
    cells(&mut ch, h)?;
    colour_bar(&bar, h)?;
    root.present()?;
    Ok(())
}

/// The (low, span) of the colour scale: a flat range is one unit wide.
fn scale(h: &Heat) -> (f64, f64) {
    let (lo, hi) = h.range;
    (lo, if hi > lo { hi - lo } else { 1.0 })
}

/// Each cell: its colour on the scale (grey where there is no value) and its text.
fn cells<DB>(
    ch: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    h: &Heat,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (lo, span) = scale(h);
    let (nr, nc) = (h.rows.len().max(1), h.cols.len().max(1));
    for (r, row) in h.values.iter().enumerate() {
        let y = (nr - 1 - r) as f64;
        for (c, &v) in row.iter().enumerate() {
            let (fill, ink) = match v {
                Some(v) => {
                    let t = (v - lo) / span;
                    (colour(t), if t > 0.55 { WHITE } else { BLACK })
                }
                None => (RGBColor(225, 225, 225), RGBColor(90, 90, 90)),
            };
            ch.draw_series(std::iter::once(Rectangle::new(
                [(c as f64 + 0.02, y + 0.02), (c as f64 + 0.98, y + 0.98)],
                fill.filled(),
            )))?;
            let size = if nc > 8 { 13 } else { 17 };
            ch.draw_series(std::iter::once(Text::new(
                h.text[r][c].clone(),
                (c as f64 + 0.5, y + 0.5),
                TextStyle::from((FONT, size).into_font()).color(&ink).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Center,
                    ),
                ),
            )))?;
        }
    }
    Ok(())
}

/// The colour bar beside the grid, labelled in the values' own terms.
fn colour_bar<DB>(bar: &Area<DB>, h: &Heat) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let (lo, span) = scale(h);
    let mut cb = ChartBuilder::on(bar)
        .margin_top(20)
        .margin_bottom(80)
        .margin_right(20)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..1.0, lo..(lo + span))?;
    let percent = h.percent;
    cb.configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(6)
        .y_label_style((FONT, 13))
        .y_label_formatter(&|v| {
            if percent {
                format!("{:.0}%", v * 100.0)
            } else {
                crate::text::fixed(*v, 2)
            }
        })
        .draw()?;
    let steps = 100;
    for i in 0..steps {
        let a = lo + span * i as f64 / steps as f64;
        let b = lo + span * (i + 1) as f64 / steps as f64;
        cb.draw_series(std::iter::once(Rectangle::new(
            [(0.0, a), (1.0, b)],
            colour(i as f64 / (steps - 1) as f64).filled(),
        )))?;
    }
    Ok(())
}

/// `text` in lines of at most `width` characters, broken at spaces (a word longer than
/// a line is cut), at most `lines` of them, the last ending in `…` if text is left.
pub fn wrap(text: &str, width: usize, lines: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: String = word.to_string();
        while word.chars().count() > width {
            let head: String = word.chars().take(width).collect();
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            out.push(head);
            word = word.chars().skip(width).collect();
        }
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        out.push(line);
    }
    if out.len() > lines {
        out.truncate(lines);
        if let Some(last) = out.last_mut() {
            let keep: String = last.chars().take(width.saturating_sub(1)).collect();
            *last = format!("{keep}…");
        }
    }
    out
}

/// The colour scale of some values: 0..100% for probabilities, else their own range.
pub fn range(values: &[Vec<Option<f64>>], percent: bool) -> (f64, f64) {
    if percent {
        return (0.0, 1.0);
    }
    let all = values.iter().flatten().flatten();
    let lo = all.clone().fold(f64::MAX, |a, &b| a.min(b)).min(0.0);
    let hi = all.fold(f64::MIN, |a, &b| a.max(b));
    (lo, hi.max(lo + 1e-9))
}

/// A cell's text: the value, and the defender's choice when it chose.
fn cell_text(v: Option<f64>, percent: bool, note: Option<&str>) -> String {
    let mut s = match v {
        Some(v) if percent => super::title::percent(v),
        Some(v) => crate::text::fixed(v, 2),
        None => "n/a".into(),
    };
    if let Some(n) = note {
        s.push_str(&format!(" {}", n.replace('_', " ")));
    }
    s
}

/// Text for a grid of values.
pub fn texts(values: &[Vec<Option<f64>>], percent: bool) -> Vec<Vec<String>> {
    values
        .iter()
        .map(|r| r.iter().map(|&v| cell_text(v, percent, None)).collect())
        .collect()
}

/// A matchup matrix: probabilities on a 0..100% scale, means on their own range; an
/// impossible pair is a grey "n/a" cell, a chosen response is named in its cell.
pub fn matrix(
    m: &Matrix,
    cells: &crate::report::frame::MatrixCells,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    let values = cells.value.clone();
    let text = cells
        .response
        .iter()
        .zip(&values)
        .map(|(r, vs)| {
            r.iter()
                .zip(vs)
                .map(|(c, &v)| cell_text(v, m.probability, c.as_deref()))
                .collect()
        })
        .collect();
    let heat = Heat {
        title: super::title::headed(
            &super::title::lead(&m.scenario, &m.description),
            &format!("{} by matchup", m.what),
        ),
        subtitle: format!(
            "{} ({}) against {} ({}){}; {}",
            m.rows.key,
            m.rows.table,
            m.cols.key,
            m.cols.table,
            m.response
                .as_ref()
                .map_or(String::new(), |r| format!(", {r} in each cell")),
            match m.trials {
                Some(_) => format!("{} (the CSV has CIs and exact values)", m.how()),
                None => "exact".into(),
            }
        ),
        rows: m.rows.entries.iter().map(|a| a.1.clone()).collect(),
        cols: m.cols.entries.iter().map(|d| d.1.clone()).collect(),
        row_desc: m.rows.key.clone(),
        col_desc: m.cols.key.clone(),
        range: range(&values, m.probability),
        values,
        text,
        percent: m.probability,
    };
    draw(&heat, path, charts)
}
