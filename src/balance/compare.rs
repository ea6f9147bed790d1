//! `rollsim compare`: one scenario for every attacker x defender pair, as a matchup
//! matrix (CSV long and wide, Markdown, heatmap).

use super::{measure, out_dir, wrote, Cell, Options, Pick, Role, Source};
use crate::app::AppError;
use crate::report::{frame, markdown::thousands, plot, write::WriteError};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// `rollsim compare`: the common options and the two sides' ids.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    pub common: Options,
    /// Ids for the attacker side; empty: every entry of its table.
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
}

/// A matchup matrix: rows attackers, columns defenders.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub config: String,
    pub scenario: String,
    /// What each cell is, e.g. "P(slammer wins)".
    pub what: String,
    pub probability: bool,
    pub attacker: Role,
    pub defender: Role,
    /// (id, display name)
    pub attackers: Vec<(String, String)>,
    pub defenders: Vec<(String, String)>,
    pub cells: Vec<Vec<Cell>>,
    pub trials: Option<u64>,
    pub seed: u64,
}

/// Check the chosen ids against the role's table, naming the nearest on a miss.
fn sides(
    source: &Source,
    role: &Role,
    chosen: &[String],
) -> Result<Vec<(String, String)>, AppError> {
    let all = source.ids(&role.table);
    let ids = if chosen.is_empty() {
        all.clone()
    } else {
        chosen.to_vec()
    };
    ids.into_iter()
        .map(|id| {
            if all.contains(&id) {
                Ok((id.clone(), source.display(&role.table, &id)))
            } else {
                Err(AppError::BadOption(format!(
                    "no {} `{id}` for `{}`{}; they are {}",
                    role.table.trim_end_matches('s'),
                    role.key,
                    crate::config::reader::nearest_hint(&id, all.iter().map(String::as_str)),
                    all.iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        })
        .collect()
}

/// Compute the matrix (writes nothing).
pub fn matrix(
    source: &Source,
    scenario: &str,
    (attackers, defenders): (&[String], &[String]),
    pick: &Pick,
    seed: u64,
    trials: Option<u64>,
    quiet: bool,
) -> Result<Matrix, AppError> {
    let roles = source.roles(scenario)?;
    if roles.len() < 2 {
        return Err(AppError::BadOption(format!(
            "scenario `{scenario}` has {} side(s) (keys {}); a matchup needs two, such as an attacker and a defender",
            roles.len(),
            roles.iter().map(|r| format!("`{}`", r.key)).collect::<Vec<_>>().join(", ")
        )));
    }
    let (ar, dr) = (roles[0].clone(), roles[1].clone());
    let rows = sides(source, &ar, attackers)?;
    let cols = sides(source, &dr, defenders)?;
    let set = |role: &Role, id: &str| format!("scenarios.{scenario}.{}={id}", role.key);
    let mut what = String::new();
    let mut cells = Vec::new();
    for (a, _) in &rows {
        let mut row = Vec::new();
        for (d, _) in &cols {
            let cfg = source
                .with(&[set(&ar, a), set(&dr, d)])
                .map_err(|e| AppError::BadOption(format!("{a} against {d}: {e}")))?;
            let c = cfg.compile(scenario).expect("checked scenario");
            if what.is_empty() {
                what = pick.describe(&c)?;
            }
            row.push(measure(&c, pick, seed, trials, quiet)?);
        }
        cells.push(row);
    }
    // A headline names the first pair's attacker ("P(Thief wins)"): say the row side.
    if *pick == Pick::Headline {
        if let Some((_, first)) = rows.first() {
            what = what.replace(first.as_str(), &format!("{} (row)", ar.key));
        }
    }
    Ok(Matrix {
        config: source.stem(),
        scenario: scenario.into(),
        what,
        probability: pick.is_probability(),
        attacker: ar,
        defender: dr,
        attackers: rows,
        defenders: cols,
        cells,
        trials,
        seed,
    })
}

/// The Markdown table: a row per attacker, a column per defender.
pub fn markdown(m: &Matrix) -> String {
    let fmt = |v: f64| {
        if m.probability {
            format!("{:.1}%", v * 100.0)
        } else {
            format!("{v:.3}")
        }
    };
    let mut s = format!(
        "### {}: {} ({} rows, {} columns; {})\n\n| {} \\ {} |",
        m.scenario,
        m.what,
        m.attacker.key,
        m.defender.key,
        match m.trials {
            Some(n) => format!(
                "{} trials per pair, seed {}; exact in parentheses",
                thousands(n),
                m.seed
            ),
            None => "exact".into(),
        },
        m.attacker.key,
        m.defender.key
    );
    for (_, name) in &m.defenders {
        s.push_str(&format!(" {name} |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---:|".repeat(m.defenders.len()));
    s.push('\n');
    for ((_, name), row) in m.attackers.iter().zip(&m.cells) {
        s.push_str(&format!("| {name} |"));
        for c in row {
            match (m.trials, c.exact) {
                (Some(_), Some(e)) => s.push_str(&format!(" {} ({}) |", fmt(c.estimate), fmt(e))),
                _ => s.push_str(&format!(" {} |", fmt(c.estimate))),
            }
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

/// Write `NAME.csv` (long), `NAME-wide.csv` and `NAME.png` into `dir`.
pub fn write(m: &Matrix, dir: &Path, plots: bool) -> Result<Vec<PathBuf>, AppError> {
    std::fs::create_dir_all(dir).map_err(|e| WriteError::io(dir, e))?;
    let stem = format!("matrix-{}", m.scenario);
    let mut out = Vec::new();
    let long = dir.join(format!("{stem}.csv"));
    crate::report::csv::write(&mut frame::matrix_long(m)?, &long)?;
    out.push(long);
    let wide = dir.join(format!("{stem}-wide.csv"));
    crate::report::csv::write(&mut frame::matrix_wide(m)?, &wide)?;
    out.push(wide);
    if plots {
        let png = dir.join(format!("{stem}.png"));
        plot::heatmap::matrix(m, &png)?;
        out.push(png);
    }
    Ok(out)
}

/// `rollsim compare`: compute, write, return the Markdown.
pub fn run(o: &CompareOptions) -> Result<String, AppError> {
    let c = &o.common;
    let p = c.prepare()?;
    let m = p.pool.install(|| {
        matrix(
            &p.source,
            &c.scenario,
            (&o.attackers, &o.defenders),
            &p.pick,
            p.seed,
            p.trials,
            true,
        )
    })?;
    let dir = out_dir(&p.source, &c.out, "compare");
    let files = write(&m, &dir, c.plots)?;
    Ok(format!("{}{}", markdown(&m), wrote(&files)))
}

/// Matrices of several scenarios at once (the gallery), in parallel over scenarios.
pub fn many(
    source: &Source,
    scenarios: &[String],
    seed: u64,
    trials: Option<u64>,
) -> Vec<Result<Matrix, AppError>> {
    scenarios
        .par_iter()
        .map(|s| matrix(source, s, (&[], &[]), &Pick::Headline, seed, trials, true))
        .collect()
}
