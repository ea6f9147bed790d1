//! A roster's two charts: how often a perfect player picks each unit (its Nash weight,
//! 0 to 100%), and each unit's rating on the Elo scale with its 95% interval when the
//! matrix was sampled. One horizontal bar per unit, strongest first.

use super::hbars::{self, Bar, HBars};
use crate::report::write::WriteError;
use rollsim_core::balance::roster::Roster;
use std::path::{Path, PathBuf};

/// Both charts into `DIR/STEM-nash.png` and `DIR/STEM-ratings.png`; returns the files.
pub fn draw(
    r: &Roster,
    dir: &Path,
    stem: &str,
    charts: super::Charts,
) -> Result<Vec<PathBuf>, WriteError> {
    let method = r.matrix.how();
    let scenario = super::title::lead(&r.matrix.scenario, &r.matrix.description);
    let strongest = r.by_strength();
    // The Nash weights, in percent, on a 0 to 100 axis.
    let weights: Vec<Bar> = strongest
        .iter()
        .map(|&i| (r.units[i].name.clone(), r.units[i].weight * 100.0, None))
        .collect();
    let percent = |v: f64| crate::text::percent(v / 100.0, 1);
    // The ratings (Elo points, mean 0) with their 95% intervals where there are some.
    let ratings: Vec<Bar> = strongest
        .iter()
        .map(|&i| (r.units[i].name.clone(), r.units[i].elo, r.units[i].elo_ci))
        .collect();
    let top = ratings
        .iter()
        .map(|b| b.1.abs() + b.2.unwrap_or(0.0))
        .fold(10.0f64, f64::max)
        * 1.25;
    let points = |v: f64| format!("{v:+.0}");
    let mut files = Vec::new();
    for (file, chart) in [
        (
            "nash",
            HBars {
                title: &super::title::headed(
                    &scenario,
                    "how often a perfect player picks each unit",
                ),
                subtitle: &format!(
                    "the Nash mix of \"each player picks a unit\", both seats ({method})"
                ),
                x_desc: "Nash weight (% of picks)",
                bars: &weights,
                range: (0.0, 105.0),
                axis: &percent,
                value: &percent,
            },
        ),
        (
            "ratings",
            HBars {
                title: &super::title::headed(&scenario, "each unit's strength"),
                subtitle: &format!("Bradley-Terry rating from both seats ({method})"),
                x_desc: "rating (Elo points, mean 0; 400 points = 10:1 odds)",
                bars: &ratings,
                range: (-top, top),
                axis: &points,
                value: &points,
            },
        ),
    ] {
        let png = dir.join(format!("{stem}-{file}.png"));
        hbars::draw(&chart, &png, charts)?;
        files.push(png);
    }
    Ok(files)
}
