//! What one step is worth: one horizontal bar per change (a die, a stat step), its length
//! the change in a probability (percentage points) or a mean; gains right, losses left.

use super::hbars::{self, Bar, HBars};
use crate::report::write::WriteError;
use std::path::Path;

pub fn draw(
    title: &str,
    subtitle: &str,
    x_desc: &str,
    bars: &[(String, f64)],
    percent: bool,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    // Probabilities are drawn in percentage points, means as they are.
    let scale = if percent { 100.0 } else { 1.0 };
    let bars: Vec<Bar> = bars
        .iter()
        .map(|(l, d)| (l.clone(), d * scale, None))
        .collect();
    let top = bars.iter().map(|b| b.1.abs()).fold(1e-3f64, f64::max) * 1.2;
    hbars::draw(
        &HBars {
            title,
            subtitle,
            x_desc,
            bars: &bars,
            range: (-top, top),
            axis: &|v| crate::text::signed(v, 1),
            value: &|v| crate::text::signed(v, 2),
        },
        path,
        charts,
    )
}
