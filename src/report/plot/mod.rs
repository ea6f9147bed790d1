//! PNG charts. Text is drawn with DejaVu Sans embedded in the binary, so a fresh machine
//! without fonts renders the same chart. One file per chart kind; both kinds share the
//! bar renderer below (bars = Monte Carlo, whiskers = 95% CI, diamonds = exact).

pub mod at_least;
pub mod distribution;

use super::write::{finish, temp_path, WriteError};
use super::ScenarioResult;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};
use std::sync::Once;

static FONT_REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
static FONT_BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");
const FONT: &str = "sans-serif";

/// Register the embedded fonts once per process.
fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a known-good TTF compiled in; a failure here is a build defect
        // that every chart test would catch.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, FONT_REGULAR);
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, FONT_BOLD);
    });
}

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 650;
const BAR: RGBColor = RGBColor(76, 114, 176);
const EXACT: RGBColor = RGBColor(221, 132, 82);

/// What a bar chart shows.
pub struct Bars<'a> {
    pub title: String,
    pub subtitle: String,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub labels: Vec<String>,
    /// (estimate, (ci_low, ci_high), exact) per bar.
    pub values: Vec<(f64, (f64, f64), Option<f64>)>,
    pub trials: u64,
}

fn pct_label(p: f64) -> String {
    if p >= 0.1 {
        format!("{:.1}%", p * 100.0)
    } else if p >= 0.001 {
        format!("{:.2}%", p * 100.0)
    } else if p > 0.0 {
        format!("{:.1e}", p)
    } else {
        "0".into()
    }
}

/// Draw `bars` into a PNG at `path`, atomically.
pub fn draw_bars(bars: &Bars, path: &Path) -> Result<(), WriteError> {
    fonts();
    // The CSV keeps every value down to 1e-15; a chart stops where bars become invisible.
    let mut keep = bars.values.len();
    while keep > 2
        && bars.values[keep - 1].0 < 5e-4
        && bars.values[keep - 1].2.unwrap_or(0.0) < 5e-4
    {
        keep -= 1;
    }
    let trimmed;
    let bars = if keep < bars.values.len() {
        trimmed = Bars {
            title: bars.title.clone(),
            subtitle: bars.subtitle.clone(),
            x_desc: bars.x_desc,
            y_desc: bars.y_desc,
            labels: bars.labels[..keep].to_vec(),
            values: bars.values[..keep].to_vec(),
            trials: bars.trials,
        };
        &trimmed
    } else {
        bars
    };
    let tmp = temp_path(path);
    let result = draw_into(bars, &tmp).map_err(|e| WriteError::encode(path, e));
    finish(&tmp, path, result)
}

fn draw_into(b: &Bars, path: &Path) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    // The legend lives in the header, so it can never cover a bar or its label.
    let (head, body) = root.split_vertically(108);
    head.draw(&Text::new(
        b.title.clone(),
        (24, 12),
        (FONT, 26).into_font().style(FontStyle::Bold).color(&BLACK),
    ))?;
    // Fit the subtitle to the width: a smaller font first, then an ellipsis.
    let chars = b.subtitle.chars().count();
    let (size, max_chars) = if chars <= 125 { (16, 125) } else { (13, 155) };
    let subtitle = if chars > max_chars {
        let mut t: String = b.subtitle.chars().take(max_chars - 1).collect();
        t.push('…');
        t
    } else {
        b.subtitle.clone()
    };
    head.draw(&Text::new(
        subtitle,
        (24, 48),
        (FONT, size).into_font().color(&RGBColor(70, 70, 70)),
    ))?;
    let legend_font = (FONT, 15).into_font().color(&BLACK);
    head.draw(&Rectangle::new([(26, 78), (42, 92)], BAR.filled()))?;
    let mc = format!(
        "Monte Carlo, {} trials (whiskers: 95% CI)",
        super::markdown::thousands(b.trials)
    );
    head.draw(&Text::new(mc, (50, 77), legend_font.clone()))?;
    if b.values.iter().any(|v| v.2.is_some()) {
        head.draw(&Polygon::new(
            vec![(420, 78), (427, 85), (420, 92), (413, 85)],
            EXACT.filled(),
        ))?;
        head.draw(&Text::new("exact".to_string(), (434, 77), legend_font))?;
    }

    let n = b.values.len().max(1) as i32;
    let top = b
        .values
        .iter()
        .map(|(p, (_, hi), e)| p.max(*hi).max(e.unwrap_or(0.0)))
        .fold(0.0f64, f64::max);
    let ymax = (top * 1.15).clamp(0.01, 1.08);
    let labels = b.labels.clone();
    let mut chart = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(30)
        .margin_bottom(10)
        .x_label_area_size(70)
        .y_label_area_size(80)
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..ymax)?;
    let label_font = (FONT, if n > 16 { 13 } else { 16 });
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .y_labels(11)
        .x_labels(n as usize + 1)
        .x_label_style(label_font)
        .y_label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .x_desc(b.x_desc)
        .y_desc(b.y_desc)
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
        .draw()?;

    chart.draw_series(
        Histogram::vertical(&chart)
            .style(BAR.mix(0.85).filled())
            .margin(if n > 16 { 3 } else { 12 })
            .data(b.values.iter().enumerate().map(|(i, v)| (i as i32, v.0))),
    )?;
    chart.draw_series(b.values.iter().enumerate().map(|(i, (p, (lo, hi), _))| {
        ErrorBar::new_vertical(
            SegmentValue::CenterOf(i as i32),
            *lo,
            *p,
            *hi,
            BLACK.stroke_width(2),
            10,
        )
    }))?;
    chart.draw_series(b.values.iter().enumerate().filter_map(|(i, (_, _, e))| {
        e.map(|e| {
            EmptyElement::at((SegmentValue::CenterOf(i as i32), e))
                + Polygon::new(
                    vec![(0, -7), (7, 0), (0, 7), (-7, 0)],
                    EXACT.filled().stroke_width(1),
                )
        })
    }))?;
    if n <= 16 {
        chart.draw_series(b.values.iter().enumerate().map(|(i, (p, (_, hi), _))| {
            Text::new(
                pct_label(*p),
                (SegmentValue::CenterOf(i as i32), hi.max(*p) + ymax * 0.015),
                TextStyle::from((FONT, 15).into_font()).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Bottom,
                    ),
                ),
            )
        }))?;
    }
    root.present()?;
    Ok(())
}

/// File name for a metric's chart: `DIR/SCENARIO/METRIC[suffix].png`.
pub fn chart_path(dir: &Path, scenario: &str, metric: &str, suffix: &str) -> PathBuf {
    dir.join(scenario).join(format!("{metric}{suffix}.png"))
}

/// Every chart of one scenario; returns the files written.
pub fn scenario_charts(r: &ScenarioResult, dir: &Path) -> Result<Vec<PathBuf>, WriteError> {
    let sub = dir.join(&r.name);
    std::fs::create_dir_all(&sub).map_err(|e| WriteError::io(&sub, e))?;
    let mut out = Vec::new();
    for m in &r.metrics {
        let p = chart_path(dir, &r.name, &m.name, "");
        distribution::draw(r, m, &p)?;
        out.push(p);
        if m.numeric && m.rows.len() > 2 {
            let p = chart_path(dir, &r.name, &m.name, "_at_least");
            at_least::draw(r, m, &p)?;
            out.push(p);
        }
    }
    Ok(out)
}
