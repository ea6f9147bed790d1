//! PNG charts. Text is drawn with DejaVu Sans embedded in the binary, so a fresh machine
//! without fonts renders the same chart. One file per chart kind; both kinds share the
//! bar renderer below (bars = Monte Carlo, whiskers = 95% CI, diamonds = exact).

pub mod at_least;
pub mod decision;
pub mod distribution;
pub mod exchange;
pub(crate) mod frame;
pub mod hbars;
pub mod heatmap;
pub mod overlay;
pub mod profile;
pub mod race;
pub mod roster;
pub mod scenario;
pub mod sensitivity;
pub mod sweep;
pub mod text;
pub mod title;

use super::write::{finish, temp_path, WriteError};
use plotters::prelude::*;
use plotters::style::FontStyle;
use rollsim_core::Cancel;
use std::path::Path;
use std::sync::Once;

static FONT_REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
pub(crate) const FONT: &str = "sans-serif";

/// Register the embedded font once per process. Only the regular face: plotters'
/// `FontDesc::style` keeps the face a description was made with, so the charts' bold
/// titles have always been drawn in it, and without a bold face registered a text made
/// bold from the start falls back to it too (as the glyph cache draws every text).
pub(crate) fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are a known-good TTF compiled in; a failure here is a build defect
        // that every chart test would catch.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, FONT_REGULAR);
    });
}

pub(crate) const WIDTH: u32 = 1100;
pub(crate) const HEIGHT: u32 = 650;
pub(crate) const BAR: RGBColor = RGBColor(68, 119, 170);
pub(crate) const EXACT: RGBColor = RGBColor(221, 132, 82);
/// Colours of the series of multi-series charts, in order: Paul Tol's "bright" scheme,
/// told apart by colour-blind readers, without its red and yellow (too near the exact
/// orange of the diamonds).
pub(crate) const SERIES: [RGBColor; 5] = [
    BAR,
    RGBColor(34, 136, 51),
    RGBColor(170, 51, 119),
    RGBColor(102, 204, 238),
    RGBColor(187, 187, 187),
];

/// Ten distinguishable colours for charts with more lines than [`SERIES`] has (Paul
/// Tol's "muted" scheme, safe for colour-blind readers), none of them the exact orange.
pub(crate) const WIDE: [RGBColor; 10] = [
    RGBColor(51, 34, 136),
    RGBColor(136, 204, 238),
    RGBColor(68, 170, 153),
    RGBColor(17, 119, 51),
    RGBColor(153, 153, 51),
    RGBColor(221, 204, 119),
    RGBColor(204, 102, 119),
    RGBColor(136, 34, 85),
    RGBColor(170, 68, 153),
    RGBColor(0, 0, 0),
];

/// What a bar chart shows.
pub struct Bars {
    pub title: String,
    pub subtitle: String,
    pub x_desc: String,
    pub y_desc: &'static str,
    pub labels: Vec<String>,
    /// The number each bar stands for, ascending, on a numeric chart: past [`MAX_BARS`]
    /// bars the chart groups them into ranges of equal width by these.
    pub xs: Option<Vec<i64>>,
    /// (estimate, (ci_low, ci_high), exact) per bar.
    pub values: Vec<(f64, (f64, f64), Option<f64>)>,
    pub trials: u64,
    /// What becomes of the bars too small (or too sure) to tell apart.
    pub tails: Tails,
}

/// How a bar chart treats its ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tails {
    /// A numeric distribution: a tail too small to see is folded into its end bar,
    /// labelled `k or less` / `k or more`, and long runs of values that cannot happen
    /// are cut to one empty bar.
    Fold,
    /// Named outcomes: every one is drawn but an end run too small to see.
    Keep,
    /// P(at least k): the small upper tail is left off, and so are the leading bars
    /// within a pixel of certain (a wide margin's 140 bars at 100%), as a distribution
    /// folds its lower tail; the axis title says from where.
    AtLeast,
}

/// Bars below this share (both the estimate and the exact value), or under a pixel high
/// (a 400th of the tallest bar), at either end of a distribution are folded into its end
/// bars, `x or less` and `y or more`: a margin of exploding pools runs from -130 to 9,
/// where all but some twenty bars are invisible. The axis title gives the share; the data
/// files keep every value.
pub const TAIL: f64 = 5e-4;

/// The fraction of the tallest bar under which a bar is less than a pixel high.
const PIXEL: f64 = 1.0 / 400.0;

/// A run of more than this many values that cannot happen (exactly 0 both ways) inside
/// a distribution is drawn as one empty bar labelled `…` (`d6 * 10` takes 10, 20, ...).
pub const MAX_EMPTY: usize = 3;

/// The label of such a cut run.
pub const GAP: &str = "…";

/// More bars than this on a numeric chart (past its folded tails) are drawn in ranges
/// of equal width: a bar each of `d20 * d20 * d20 * d20`'s 2,670 values was a smear
/// under a black band of ticks, its axis spaced by bar, not by value.
pub const MAX_BARS: usize = 150;

/// About how many ranges such a chart is drawn in.
const RANGES: i64 = 60;

/// Draw `bars` into a PNG at `path`, atomically.
pub fn draw_bars(bars: &Bars, path: &Path, charts: Charts) -> Result<(), WriteError> {
    fonts();
    let shown = shown(bars);
    frame::save_chart!(path, (WIDTH, HEIGHT), charts, |root| draw_into(
        &shown, root
    ))
}

/// `bars` drawn as [`draw_bars`] draws them, the PNG's bytes in memory (a notebook's
/// `plot()`, from the result it already holds): the same bytes as the file.
pub fn bars_png(bars: &Bars) -> Result<Vec<u8>, WriteError> {
    let at = Path::new("chart.png");
    fonts();
    let shown = shown(bars);
    let pixels = paint((WIDTH, HEIGHT), None, |root| draw_into(&shown, root))
        .map_err(|e| WriteError::encode(at, e))?;
    let mut out = Vec::new();
    encode_png_into(&mut out, &pixels, (WIDTH, HEIGHT)).map_err(|e| WriteError::encode(at, e))?;
    Ok(out)
}

/// The bars a chart draws: the tails under [`TAIL`] folded into the end bars (a
/// distribution) or left off (P(at least k)), long runs of impossible values cut to one
/// empty bar; the axis title says what was folded.
pub fn shown(bars: &Bars) -> Bars {
    let v = &bars.values;
    let fold = bars.tails == Tails::Fold;
    let (lo, hi, under) = window(bars);
    // A tail summed into one bar: its estimate and exact value summed, its interval
    // from the summed count.
    let sum = |tail: &[(f64, (f64, f64), Option<f64>)]| {
        let p: f64 = tail.iter().map(|v| v.0).sum();
        let exact = tail.iter().try_fold(0.0, |acc, v| v.2.map(|e| acc + e));
        let ci = if bars.trials > 0 {
            let k = (p * bars.trials as f64).round() as u64;
            crate::stats::wilson(k, bars.trials, crate::stats::z95())
        } else {
            (p, p)
        };
        (p, ci, exact)
    };
    let below = fold && lo > 0;
    let above = fold && hi < v.len();
    let ranges = bars
        .xs
        .as_ref()
        .map(|xs| &xs[lo..hi])
        .filter(|xs| xs.len() > MAX_BARS && bars.tails != Tails::Keep);
    let (mut labels, mut values, width) = match ranges {
        Some(xs) => {
            let (labels, values, width) = ranged(bars, (lo, hi), xs, &sum);
            (labels, values, Some(width))
        }
        None => {
            let mut labels = bars.labels[lo..hi].to_vec();
            let mut values = v[lo..hi].to_vec();
            if below {
                values[0] = sum(&v[..=lo]);
                labels[0] = format!("{} or less", labels[0]);
            }
            if above {
                let last = values.len() - 1;
                values[last] = sum(&v[hi - 1..]);
                if !labels[last].ends_with("or more") {
                    labels[last] = format!("{} or more", labels[last]);
                }
            }
            (labels, values, None)
        }
    };
    let cut = fold && width.is_none() && cut_empty_runs(&mut labels, &mut values);
    let mut x_desc = bars.x_desc.clone();
    let mut said = Vec::new();
    match width {
        Some(w) if bars.tails == Tails::AtLeast => said.push(format!("read every {w}")),
        Some(w) => said.push(format!("in ranges of {w}")),
        None => {}
    }
    if below || above {
        said.push(format!(
            "{} under {} folded into the end {}",
            if below && above { "tails" } else { "a tail" },
            title::percent(under),
            if below && above { "bars" } else { "bar" }
        ));
    }
    if cut {
        said.push("… = values that cannot happen".to_string());
    }
    if bars.tails == Tails::AtLeast && lo > 0 {
        said.push(format!(
            "k below {} left off: each over {}",
            bars.labels[lo].trim_start_matches('≥'),
            title::percent(1.0 - under)
        ));
    }
    if !said.is_empty() {
        x_desc = format!("{x_desc} ({})", said.join("; "));
    }
    Bars {
        title: bars.title.clone(),
        subtitle: bars.subtitle.clone(),
        x_desc,
        y_desc: bars.y_desc,
        labels,
        xs: None,
        values,
        trials: bars.trials,
        tails: bars.tails,
    }
}

/// The bars `lo..hi` a chart shows and the share under which an end bar is too small
/// to see: a distribution's tails under it (both ways) are folded, a "k or more"
/// chart's upper tail and its leading bars within it of certain are left off.
fn window(bars: &Bars) -> (usize, usize, f64) {
    let v = &bars.values;
    let top = v
        .iter()
        .map(|x| x.0.max(x.2.unwrap_or(0.0)))
        .fold(0.0f64, f64::max);
    let under = TAIL.max(top * PIXEL);
    let small = |x: &Bar| x.0 < under && x.2.unwrap_or(0.0) < under;
    let mut hi = v.len();
    while hi > 2 && small(&v[hi - 1]) {
        hi -= 1;
    }
    let mut lo = 0;
    match bars.tails {
        Tails::Fold => {
            while hi - lo > 2 && small(&v[lo]) {
                lo += 1;
            }
        }
        Tails::AtLeast => {
            // Left off up to the last bar within `under` of certain (estimate and exact
            // alike): the chart starts where the fall begins.
            let sure = |x: &Bar| 1.0 - x.0 < under && x.2.is_none_or(|e| 1.0 - e < under);
            while hi - lo > 2 && sure(&v[lo + 1]) {
                lo += 1;
            }
        }
        Tails::Keep => {}
    }
    (lo, hi, under)
}

type Bar = (f64, (f64, f64), Option<f64>);

/// The shown bars `lo..hi` of a numeric chart (numbers `xs`) in ranges of one width
/// (1, 2 or 5 times a power of ten), each its values' sum (`sum`), the folded tails in
/// the end ranges; a range no value falls in is an empty bar, so that the axis is
/// spaced by value. A "k or more" chart is read at each range's start instead: P(at
/// least a) is the bar of the first value from a on. The labels, the bars, the width.
fn ranged(
    bars: &Bars,
    (lo, hi): (usize, usize),
    xs: &[i64],
    sum: &dyn Fn(&[Bar]) -> Bar,
) -> (Vec<String>, Vec<Bar>, i64) {
    let v = &bars.values;
    let (first, last) = (xs[0], xs[xs.len() - 1]);
    let width = nice_width((last.saturating_sub(first) / RANGES).max(1));
    let start = first.div_euclid(width) * width;
    let count = (last.saturating_sub(start) / width + 1) as usize;
    let at_least = bars.tails == Tails::AtLeast;
    let (mut labels, mut values) = (Vec::with_capacity(count), Vec::with_capacity(count));
    let mut i = 0;
    for k in 0..count {
        let a = start.saturating_add(k as i64 * width);
        let b = a.saturating_add(width - 1);
        let from = i;
        while i < xs.len() && xs[i] <= b {
            i += 1;
        }
        if at_least {
            // The first range starts at the chart's first value.
            if from < xs.len() {
                labels.push(format!("≥{}", a.max(first)));
                values.push(v[lo + from]);
            }
            continue;
        }
        // The folded tails: every bar below the chart's first, and above its last.
        let s = if k == 0 { 0 } else { lo + from };
        let e = if k + 1 == count { v.len() } else { lo + i };
        values.push(if s < e {
            sum(&v[s..e])
        } else {
            let exact = v.iter().any(|x| x.2.is_some()).then_some(0.0);
            (0.0, (0.0, 0.0), exact)
        });
        labels.push(if k == 0 && lo > 0 {
            format!("{b} or less")
        } else if k + 1 == count
            && (hi < v.len() || bars.labels.last().is_some_and(|l| l.ends_with("or more")))
        {
            format!("{a} or more")
        } else {
            format!("{a}–{b}")
        });
    }
    (labels, values, width)
}

/// The least of 1, 2 and 5 times a power of ten that is at least `raw`.
fn nice_width(raw: i64) -> i64 {
    let mut p = 1i64;
    loop {
        for m in [1, 2, 5] {
            match p.checked_mul(m) {
                Some(w) if w >= raw => return w,
                Some(_) => {}
                None => return raw,
            }
        }
        match p.checked_mul(10) {
            Some(q) => p = q,
            None => return raw,
        }
    }
}

/// Runs of more than [`MAX_EMPTY`] bars that cannot happen, each cut to one gap bar;
/// whether any was.
fn cut_empty_runs(
    labels: &mut Vec<String>,
    values: &mut Vec<(f64, (f64, f64), Option<f64>)>,
) -> bool {
    let mut cut = false;
    let empty = |x: &(f64, (f64, f64), Option<f64>)| x.0 == 0.0 && x.2.unwrap_or(0.0) == 0.0;
    let (mut l2, mut v2) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < values.len() {
        let run = values[i..].iter().take_while(|x| empty(x)).count();
        if run > MAX_EMPTY {
            l2.push(GAP.to_string());
            v2.push(values[i]);
            i += run;
            cut = true;
        } else {
            l2.push(labels[i].clone());
            v2.push(values[i]);
            i += 1;
        }
    }
    *labels = l2;
    *values = v2;
    cut
}

/// Which bars' labels an axis of `n` bars shows, at most one a `step`: as many as fit
/// side by side in `width` pixels at `px` a character (the widest label sets the pace),
/// always the first and the last, none crowding the last.
pub fn label_step(labels: &[String], px: f64, width: f64) -> usize {
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
    // DejaVu Sans runs about 0.6 em a character for digits; a gap of one character.
    let each = (widest + 1.0) * px * 0.6;
    let n = labels.len().max(1) as f64;
    ((n * each / width).ceil() as usize).max(1)
}

/// Whether bar `i` of `n` shows its label at `step`.
pub fn labelled(i: usize, n: usize, step: usize) -> bool {
    i + 1 == n || (i.is_multiple_of(step) && n - 1 - i >= step)
}

/// Which files a chart is written as: always a PNG, and with `--charts png,svg` an SVG
/// beside it for rulebooks. A value each command passes down, not a switch.
///
/// It carries the run's stop token: every chart checks it before it is drawn, so a
/// Ctrl-C waits for at most the one chart each core is drawing, whoever asked for it (a
/// scenario's charts, a matrix, a roster, a sweep).
#[derive(Clone, Copy, Debug, Default)]
pub struct Charts<'a> {
    pub svg: bool,
    pub stop: Option<&'a Cancel>,
    /// Labels already rasterised, shared by the charts of one run (`None`: each chart
    /// keeps its own).
    pub text: Option<&'a text::TextCache>,
}

impl<'a> Charts<'a> {
    /// The same charts, their text drawn through `cache`.
    pub fn with_text(self, cache: &'a text::TextCache) -> Self {
        Charts {
            text: Some(cache),
            ..self
        }
    }
}

/// Draw one chart into `path` (PNG) and, where `charts` says, beside it as SVG; each
/// file atomically. The two closures are the same drawing, once per backend.
pub(crate) fn save<P, S>(
    path: &Path,
    size: (u32, u32),
    charts: Charts,
    png: P,
    svg: S,
) -> Result<(), WriteError>
where
    P: FnOnce(Area<text::Cached<BitMapBackend>>) -> DrawResult<()>,
    S: FnOnce(Area<SVGBackend>) -> DrawResult<()>,
{
    if charts.stop.is_some_and(Cancel::is_cancelled) {
        return Err(WriteError::Interrupted);
    }
    fonts();
    let tmp = temp_path(path)?;
    let result = paint(size, charts.text, png)
        .map_err(|e| WriteError::encode(path, e))
        .and_then(|pixels| encode_png(&tmp, &pixels, size));
    finish(&tmp, path, result)?;
    if charts.svg {
        let sp = path.with_extension("svg");
        let tmp = temp_path(&sp)?;
        let result = svg(SVGBackend::new(&tmp, size).into_drawing_area())
            .map_err(|e| WriteError::encode(&sp, e));
        finish(&tmp, &sp, result)?;
    }
    Ok(())
}

/// A chart drawn into memory as RGB pixels: encoded by [`encode_png_into`] with fast
/// compression and one filter, the same pixels as plotters' own save in a fraction of
/// the time.
fn paint<P>(size: (u32, u32), cache: Option<&text::TextCache>, png: P) -> Result<Vec<u8>, String>
where
    P: FnOnce(Area<text::Cached<BitMapBackend>>) -> DrawResult<()>,
{
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    let own = text::TextCache::new();
    {
        let root = text::Cached {
            inner: BitMapBackend::with_buffer(&mut pixels, size),
            cache: cache.unwrap_or(&own),
        }
        .into_drawing_area();
        png(root.clone()).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(pixels)
}

/// An RGB image as PNG into `out`.
fn encode_png_into(
    out: impl std::io::Write,
    pixels: &[u8],
    (w, h): (u32, u32),
) -> Result<(), image::ImageError> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    PngEncoder::new_with_quality(out, CompressionType::Fast, FilterType::Sub).write_image(
        pixels,
        w,
        h,
        image::ColorType::Rgb8,
    )
}

/// An RGB image into `path` as PNG.
fn encode_png(path: &Path, pixels: &[u8], size: (u32, u32)) -> Result<(), WriteError> {
    let file = std::fs::File::create(path).map_err(|e| WriteError::io(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    encode_png_into(&mut out, pixels, size).map_err(|e| WriteError::encode(path, e))?;
    use std::io::Write;
    out.flush().map_err(|e| WriteError::io(path, e))
}

fn draw_into<DB>(b: &Bars, root: Area<DB>) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    // The legend lives in the header, so it can never cover a bar or its label.
    let (head, body, legend_y) = header(&root, &b.title, &b.subtitle)?;
    bars_legend(&head, legend_y, b)?;

    let n = b.values.len().max(1) as i32;
    let top = b
        .values
        .iter()
        .map(|(p, (_, hi), e)| p.max(*hi).max(e.unwrap_or(0.0)))
        .fold(0.0f64, f64::max);
    let ymax = (top * 1.15).clamp(0.01, 1.08);
    let labels = b.labels.clone();
    let label_px = if n > 16 { 13 } else { 16 };
    // The last label is centred on the last bar: room on the right for the half of it
    // past the bar's middle (`57600 or more` was cut at the edge).
    let half = labels.last().map_or(0.0, |l| l.chars().count() as f64) * f64::from(label_px) * 0.3;
    let bar_half = f64::from(WIDTH - 20 - 30 - 80) / f64::from(n) / 2.0;
    let right = (half - bar_half + 6.0).ceil().max(30.0) as u32;
    // The plot is the chart less its margins and the y labels' area.
    let plot_px = f64::from(WIDTH - 20 - right - 80);
    let mut chart = ChartBuilder::on(&body)
        .margin_left(20)
        .margin_right(right)
        .margin_bottom(10)
        .x_label_area_size(70)
        .y_label_area_size(80)
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..ymax)?;
    let label_font = (FONT, label_px);
    let step = label_step(&labels, f64::from(label_px), plot_px);
    let count = labels.len();
    // Ticks a tenth of the axis apart, with the decimals that tell them apart (0.2%,
    // 0.4%, ... where whole percentages would print 0%, 0%, 1%, 1%, ...).
    let decimals = (-(ymax * 10.0).log10()).ceil().max(0.0) as usize;
    let y_tick = move |v: &f64| format!("{:.*}%", decimals, v * 100.0);
    // Markers no wider than their bar: 200 bars of whiskers and diamonds 14 pixels wide
    // are a smear.
    let bar_px = plot_px / f64::from(n);
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
        .x_desc(b.x_desc.as_str())
        .y_desc(b.y_desc)
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) if labelled(*i as usize, count, step) => {
                labels.get(*i as usize).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .y_label_formatter(&y_tick)
        .draw()?;

    bar_marks(&mut chart, b, (n, ymax, bar_px))?;
    root.present()?;
    Ok(())
}

/// The bars' legend, in the header: Monte Carlo (or exact) and the exact diamond.
fn bars_legend<DB>(head: &Area<DB>, y: i32, b: &Bars) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let legend_font = (FONT, 15).into_font().color(&BLACK);
    head.draw(&Rectangle::new([(26, y + 1), (42, y + 15)], BAR.filled()))?;
    // An exact-only run (no trials) has bars of the exact values and no whiskers.
    let mc = if b.trials == 0 {
        "exact".to_string()
    } else {
        format!(
            "Monte Carlo, {} trials (whiskers: 95% CI)",
            super::markdown::thousands(b.trials)
        )
    };
    head.draw(&Text::new(mc, (50, y), legend_font.clone()))?;
    if b.trials > 0 && b.values.iter().any(|v| v.2.is_some()) {
        head.draw(&Polygon::new(
            vec![(420, y + 1), (427, y + 8), (420, y + 15), (413, y + 8)],
            EXACT.filled(),
        ))?;
        head.draw(&Text::new("exact".to_string(), (434, y), legend_font))?;
    }

    Ok(())
}

/// A bar chart's plane: one segment per value, probabilities up.
type Segments = plotters::coord::cartesian::Cartesian2d<
    plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordi32>,
    plotters::coord::types::RangedCoordf64,
>;

/// The bars, their whiskers and exact diamonds, and (when few) their percentages.
fn bar_marks<DB>(
    chart: &mut ChartContext<'_, DB, Segments>,
    b: &Bars,
    (n, ymax, bar_px): (i32, f64, f64),
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let cap = (bar_px - 2.0).clamp(0.0, 10.0) as u32;
    let r = (bar_px / 2.0).clamp(2.0, 7.0) as i32;
    chart.draw_series(
        Histogram::vertical(&*chart)
            .style(BAR.mix(0.85).filled())
            .margin(if n > 16 {
                ((bar_px / 5.0) as u32).min(3)
            } else {
                12
            })
            .data(b.values.iter().enumerate().map(|(i, v)| (i as i32, v.0))),
    )?;
    // A cut run of impossible values is an empty slot: no whisker, diamond or figure.
    let real = |&(i, _): &(usize, _)| b.labels[i] != GAP;
    chart.draw_series(
        b.values
            .iter()
            .enumerate()
            .filter(real)
            .map(|(i, (p, (lo, hi), _))| {
                ErrorBar::new_vertical(
                    SegmentValue::CenterOf(i as i32),
                    *lo,
                    *p,
                    *hi,
                    BLACK.stroke_width(if cap < 4 { 1 } else { 2 }),
                    cap,
                )
            }),
    )?;
    chart.draw_series(
        b.values
            .iter()
            .enumerate()
            .filter(real)
            .filter_map(|(i, (_, _, e))| {
                e.map(|e| {
                    EmptyElement::at((SegmentValue::CenterOf(i as i32), e))
                        + Polygon::new(
                            vec![(0, -r), (r, 0), (0, r), (-r, 0)],
                            EXACT.filled().stroke_width(1),
                        )
                })
            }),
    )?;
    if n <= 16 {
        chart.draw_series(b.values.iter().enumerate().filter(real).map(
            |(i, (p, (_, hi), _))| {
                Text::new(
                    title::percent(*p),
                    (SegmentValue::CenterOf(i as i32), hi.max(*p) + ymax * 0.015),
                    TextStyle::from((FONT, 15).into_font()).pos(
                        plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Center,
                            plotters::style::text_anchor::VPos::Bottom,
                        ),
                    ),
                )
            },
        ))?;
    }
    Ok(())
}

pub(crate) type Area<DB> = DrawingArea<DB, plotters::coord::Shift>;
pub(crate) type DrawResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The subtitle in lines that fit the width: one line at 16 px, else up to two at
/// 14 px broken between words, the second ending in an ellipsis if it still overflows.
fn subtitle_lines(subtitle: &str) -> (u32, Vec<String>) {
    const ONE: usize = 125;
    const TWO: usize = 140;
    if subtitle.chars().count() <= ONE {
        return (16, vec![subtitle.to_string()]);
    }
    let mut lines = vec![String::new()];
    for word in subtitle.split(' ') {
        let last = lines.last_mut().expect("one line at least");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > TWO {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    let fit = |t: &str| -> String {
        if t.chars().count() <= TWO {
            t.to_string()
        } else {
            let mut f: String = t.chars().take(TWO - 1).collect();
            f.push('…');
            f
        }
    };
    let first = fit(&lines[0]);
    let rest = fit(&lines[1..].join(" "));
    let lines = if rest.is_empty() {
        vec![first]
    } else {
        vec![first, rest]
    };
    (14, lines)
}

/// A title that fits the page's width (`fits`): one too wide keeps its lead (up to the
/// last `: `, `? ` or `; ` that leaves it narrow enough: a designer's question before
/// what the chart shows) and hands the rest to the front of the subtitle; with no such break, it
/// is cut with an ellipsis and said whole in the subtitle.
fn fitted(title: &str, subtitle: &str, fits: impl Fn(&str) -> bool) -> (String, String) {
    if fits(title) {
        return (title.to_string(), subtitle.to_string());
    }
    let cut = title
        .char_indices()
        .rev()
        .filter(|&(i, c)| matches!(c, ':' | '?' | ';') && title[i + 1..].starts_with(' '))
        .find(|&(i, c)| fits(if c == '?' { &title[..=i] } else { &title[..i] }));
    match cut {
        Some((i, c)) => {
            let lead = if c == '?' { &title[..=i] } else { &title[..i] };
            let rest = title::capitalised(title[i + 1..].trim());
            (lead.to_string(), format!("{rest}. {subtitle}"))
        }
        None => {
            let mut short = String::new();
            for c in title.chars() {
                if !fits(&format!("{short}{c}…")) {
                    break;
                }
                short.push(c);
            }
            short.push('…');
            (short, format!("{title}. {subtitle}"))
        }
    }
}

/// A white page with the title and subtitle; returns the header area, the chart area
/// and the y of the legend row in the header.
pub(crate) fn header<DB>(
    root: &Area<DB>,
    title: &str,
    subtitle: &str,
) -> DrawResult<(Area<DB>, Area<DB>, i32)>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    // Measured in the title's own font, with the page's margins on both sides.
    let font: TextStyle = (FONT, 26).into_font().style(FontStyle::Bold).into();
    let room = root.dim_in_pixel().0.saturating_sub(48);
    let (title, subtitle) = fitted(title, subtitle, |t| {
        root.estimate_text_size(t, &font)
            .map_or(t.chars().count() <= title::TITLE, |(w, _)| w <= room)
    });
    let (size, lines) = subtitle_lines(&subtitle);
    let legend_y = 46 + 19 * lines.len() as i32 + 12;
    let (head, body) = root.split_vertically(legend_y as u32 + 31);
    head.draw(&Text::new(
        title,
        (24, 12),
        (FONT, 26).into_font().style(FontStyle::Bold).color(&BLACK),
    ))?;
    for (i, line) in lines.into_iter().enumerate() {
        head.draw(&Text::new(
            line,
            (24, 46 + 19 * i as i32),
            (FONT, size).into_font().color(&RGBColor(70, 70, 70)),
        ))?;
    }
    Ok((head, body, legend_y))
}

/// A chart with f64 axes.
pub(crate) type Plane<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One bar of a grouped bar chart: from 0 to `estimate` between `left` and `right`, its
/// 95% CI whisker and, if known, its exact value as a diamond of half-size `size`.
pub(crate) fn grouped_bar<DB>(
    ch: &mut Plane<DB>,
    (left, right): (f64, f64),
    estimate: f64,
    ci: Option<(f64, f64)>,
    exact: Option<f64>,
    colour: RGBColor,
    size: i32,
) -> DrawResult<()>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let mid = (left + right) / 2.0;
    ch.draw_series(std::iter::once(Rectangle::new(
        [(left, 0.0), (right, estimate)],
        colour.mix(0.85).filled(),
    )))?;
    // No interval without a simulation: an exact bar has no whisker.
    if let Some((lo, hi)) = ci {
        ch.draw_series(std::iter::once(ErrorBar::new_vertical(
            mid,
            lo,
            estimate,
            hi,
            BLACK.stroke_width(if size > 5 { 2 } else { 1 }),
            size as u32 + 1,
        )))?;
    }
    if let Some(e) = exact {
        ch.draw_series(std::iter::once(
            EmptyElement::at((mid, e))
                + Polygon::new(
                    vec![(0, -size), (size, 0), (0, size), (-size, 0)],
                    EXACT.filled(),
                ),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::title::{percent, titles, words};
    use super::{subtitle_lines, EXACT, SERIES};

    #[test]
    fn series_are_tol_bright_and_apart_from_the_exact_orange() {
        let hex = |c: plotters::style::RGBColor| format!("{:02X}{:02X}{:02X}", c.0, c.1, c.2);
        let got: Vec<String> = SERIES.iter().map(|&c| hex(c)).collect();
        assert_eq!(got, ["4477AA", "228833", "AA3377", "66CCEE", "BBBBBB"]);
        for c in SERIES {
            let d = (c.0 as f64 - EXACT.0 as f64).powi(2)
                + (c.1 as f64 - EXACT.1 as f64).powi(2)
                + (c.2 as f64 - EXACT.2 as f64).powi(2);
            assert!(d.sqrt() > 80.0, "{} too near the exact orange", hex(c));
        }
    }

    #[test]
    fn one_percentage_format_and_titles_in_words() {
        let cases = [
            (0.0, "0%"),
            (0.00005, "<0.01%"),
            (0.0005, "0.05%"),
            (0.0115, "1.15%"),
            (0.453, "45.3%"),
            (0.994, "99.4%"),
            (0.9995, "99.95%"),
            (0.99999, ">99.99%"),
            (1.0, "100.0%"),
        ];
        for (p, want) in cases {
            assert_eq!(percent(p), want, "{p}");
        }
        assert_eq!(words("slam-orc-vs-human-guard"), "Slam orc vs human guard");
        assert_eq!(words("crossbow-range@d4"), "Crossbow range (d4)");
        // The designer's words lead; a generated lead is cut at its first colon outside
        // brackets; the rest and the seed go below.
        assert_eq!(
            titles("x", "What is +1 die worth? — Orc slams Guard: 5 dice", 7),
            (
                "What is +1 die worth?".to_string(),
                "Orc slams Guard: 5 dice (seed 7)".to_string()
            )
        );
        assert_eq!(
            titles("x", "Broadsword (melee: 2) at 3: no re-roll", 7).0,
            "Broadsword (melee: 2) at 3"
        );
        assert_eq!(titles("slam-a-b", &"long ".repeat(30), 7).0, "Slam a b");
    }

    #[test]
    fn subtitles_wrap_to_two_lines_at_most() {
        assert_eq!(subtitle_lines("short").1, vec!["short"]);
        let long = "word ".repeat(40);
        let (size, lines) = subtitle_lines(long.trim());
        assert_eq!((size, lines.len()), (14, 2));
        assert!(lines.iter().all(|l| l.chars().count() <= 140));
        let one_word = "x".repeat(300);
        let (_, lines) = subtitle_lines(&one_word);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].ends_with('…'));
        let huge = "word ".repeat(100);
        let (_, lines) = subtitle_lines(huge.trim());
        assert_eq!(lines.len(), 2);
        assert!(lines[1].ends_with('…'));
    }
}
