//! A roster's two charts: how often a perfect player picks each unit (its Nash weight,
//! 0 to 100%), and each unit's rating on the Elo scale with its 95% interval when the
//! matrix was sampled. One horizontal bar per unit, strongest first.

use super::hbars::{self, Bar, HBars};
use crate::report::write::WriteError;
use rollsim_core::balance::roster::Roster;
use std::path::Path;

/// The Nash weights, in percent, on a 0 to 100 axis.
pub fn weights(
    r: &Roster,
    title: &str,
    subtitle: &str,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    let bars: Vec<Bar> = r
        .by_strength()
        .into_iter()
        .map(|i| (r.units[i].name.clone(), r.units[i].weight * 100.0, None))
        .collect();
    let label = |v: f64| format!("{v:.1}%");
    hbars::draw(
        &HBars {
            title,
            subtitle,
            x_desc: "Nash weight (% of picks)",
            bars: &bars,
            range: (0.0, 105.0),
            axis: &label,
            value: &label,
        },
        path,
        charts,
    )
}

/// The ratings (Elo points, mean 0) with their 95% intervals where there are some.
pub fn ratings(
    r: &Roster,
    title: &str,
    subtitle: &str,
    path: &Path,
    charts: super::Charts,
) -> Result<(), WriteError> {
    let bars: Vec<Bar> = r
        .by_strength()
        .into_iter()
        .map(|i| (r.units[i].name.clone(), r.units[i].elo, r.units[i].elo_ci))
        .collect();
    let top = bars
        .iter()
        .map(|b| b.1.abs() + b.2.unwrap_or(0.0))
        .fold(10.0f64, f64::max)
        * 1.25;
    let label = |v: f64| format!("{v:+.0}");
    hbars::draw(
        &HBars {
            title,
            subtitle,
            x_desc: "rating (Elo points, mean 0; 400 points = 10:1 odds)",
            bars: &bars,
            range: (-top, top),
            axis: &label,
            value: &label,
        },
        path,
        charts,
    )
}
