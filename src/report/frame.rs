//! The result model as tables: the one place that decides the table columns.
//! A number no simulation made is never shown as one: with no trials (`--exact-only`)
//! the Monte Carlo columns (counts, trials, estimates and their intervals) are empty.

use rayon::prelude::*;

use super::analysis::{Candidate, Equalized, Matrix, SensitivityRow, Sweep};
use super::table::frame;
pub use super::table::{Cells, Columns, Frame, FrameError};
use super::{MetricResult, ScenarioResult};

/// A named column.
fn col(name: impl Into<String>, values: impl Into<Cells>) -> (String, Cells) {
    (name.into(), values.into())
}

/// `v` where a simulation made it (`trials > 0`), else empty.
fn mc<T>(trials: u64, v: T) -> Option<T> {
    (trials > 0).then_some(v)
}

/// `scenario,metric,value,count,trials,probability,ci_low,ci_high,exact,exact_fraction`;
/// `exact_fraction` is text (`"1/8"`): no number type holds 1155/4096 as it is. A
/// numeric metric's values that cannot happen and no trial gave are left out (Farkle's
/// scores are multiples of 50: not 3,001 rows from 0 to 3,000, most of them 0); every
/// value of any chance stays.
pub fn distribution(results: &[ScenarioResult]) -> Result<Frame, FrameError> {
    distribution_with(results, false)
}

/// [`distribution`] with its `value` as whole numbers where every row's label is the text
/// of its value (a sum, a count), as [`crate::tables`] hands it to Python: the numbers
/// put down as they are, not written as text and read back.
pub fn distribution_numbers(results: &[ScenarioResult]) -> Result<Frame, FrameError> {
    distribution_with(results, true)
}

/// Whether `label` is `v` written in digits (`-12`).
fn is_text_of(label: &str, v: i64) -> bool {
    let mut buf = [0u8; 20];
    let digits = rollsim_core::text::digits(v.unsigned_abs(), &mut buf);
    match label.as_bytes().split_first() {
        Some((b'-', rest)) if v < 0 => rest == digits,
        _ => v >= 0 && label.as_bytes() == digits,
    }
}

fn distribution_with(results: &[ScenarioResult], numbers: bool) -> Result<Frame, FrameError> {
    let numbers = numbers.then(|| numbers_of(results)).flatten();
    let mut scenario = Vec::new();
    let mut metric = Vec::new();
    let mut value = Vec::new();
    let mut count = Vec::new();
    let mut trials = Vec::new();
    let mut probability = Vec::new();
    let mut ci_low = Vec::new();
    let mut ci_high = Vec::new();
    let mut exact: Vec<Option<f64>> = Vec::new();
    let mut fractions = Vec::new();
    for r in results {
        for m in &r.metrics {
            let before = count.len();
            for row in m.listed() {
                if numbers.is_none() {
                    value.push(row.label.clone());
                }
                count.push(mc(r.trials, row.count));
                trials.push(mc(r.trials, r.trials));
                probability.push(mc(r.trials, row.probability));
                ci_low.push(mc(r.trials, row.ci_low));
                ci_high.push(mc(r.trials, row.ci_high));
                exact.push(row.exact);
                fractions.push(row.exact_fraction.as_ref());
            }
            let rows = count.len() - before;
            scenario.push((r.name.clone(), rows));
            metric.push((m.name.clone(), rows));
        }
    }
    // A long chain's fractions run to thousands of digits, and their decimal digits
    // were a fifth of such a config's run: one core each. A short table's are written
    // here, where waking the pool's threads took longer than the digits (a tenth of a
    // small roll read from Python).
    let bits: usize = fractions.iter().flatten().map(|f| f.bits()).sum();
    let text = |f: &Option<&rollsim_core::fraction::Fraction>| f.map(|f| f.text());
    let exact_fraction: Vec<Option<String>> = if bits < 1 << 20 {
        fractions.iter().map(text).collect()
    } else {
        fractions.par_iter().map(text).collect()
    };
    let value: Cells = match numbers {
        Some(v) => v.into(),
        None => value.into(),
    };
    frame!(
        "scenario" => Cells::Runs(scenario),
        "metric" => Cells::Runs(metric),
        "value" => value,
        "count" => count,
        "trials" => trials,
        "probability" => probability,
        "ci_low" => ci_low,
        "ci_high" => ci_high,
        "exact" => exact,
        "exact_fraction" => exact_fraction,
    )
}

/// Every listed row's value, where each row's label is its value's text.
fn numbers_of(results: &[ScenarioResult]) -> Option<Vec<i64>> {
    let rows = results
        .iter()
        .flat_map(|r| &r.metrics)
        .flat_map(|m| m.listed());
    rows.map(|row| row.value.filter(|&v| is_text_of(&row.label, v)))
        .collect()
}

/// `scenario,metric,mean,mean_ci_low,mean_ci_high,exact_mean,trials,seed,outcomes,
/// exact_mean_fraction`; categorical metrics have no mean and leave those cells empty,
/// and give each outcome's probability in `outcomes` (`win: 0.4512 (exact 0.4508);
/// ...`). The fraction comes last so that the columns before it stay where they were.
pub fn summary(results: &[ScenarioResult]) -> Result<Frame, FrameError> {
    let mut scenario = Vec::new();
    let mut metric = Vec::new();
    let mut mean: Vec<Option<f64>> = Vec::new();
    let mut lo: Vec<Option<f64>> = Vec::new();
    let mut hi: Vec<Option<f64>> = Vec::new();
    let mut exact_mean: Vec<Option<f64>> = Vec::new();
    let mut exact_mean_fraction: Vec<Option<String>> = Vec::new();
    let mut trials = Vec::new();
    let mut seed = Vec::new();
    let mut outcomes: Vec<Option<String>> = Vec::new();
    for r in results {
        for m in &r.metrics {
            // A categorical metric has no mean: its outcomes' probabilities instead.
            // A tail below 1e-15 that no trial reached is named, not listed: the
            // distribution table holds its values.
            outcomes.push((!m.numeric).then(|| {
                let (rows, left_out) = rollsim_core::results::shown_rows(m);
                rows.iter()
                    .map(|v| match (v.exact, r.trials) {
                        (Some(e), 0) => format!("{}: exact {:.4}", v.label, e),
                        (Some(e), _) => {
                            format!("{}: {:.4} (exact {:.4})", v.label, v.probability, e)
                        }
                        (None, _) => format!("{}: {:.4}", v.label, v.probability),
                    })
                    .chain(left_out)
                    .collect::<Vec<_>>()
                    .join("; ")
            }));
            scenario.push(r.name.clone());
            metric.push(m.name.clone());
            mean.push(m.mean.filter(|_| r.trials > 0));
            lo.push(m.mean_ci.map(|c| c.0).filter(|_| r.trials > 0));
            hi.push(m.mean_ci.map(|c| c.1).filter(|_| r.trials > 0));
            exact_mean.push(m.exact_mean);
            exact_mean_fraction.push(m.exact_mean_fraction.as_ref().map(|f| f.to_string()));
            trials.push(mc(r.trials, r.trials));
            seed.push(r.seed);
        }
    }
    frame!(
        "scenario" => scenario,
        "metric" => metric,
        "mean" => mean,
        "mean_ci_low" => lo,
        "mean_ci_high" => hi,
        "exact_mean" => exact_mean,
        "trials" => trials,
        "seed" => seed,
        "outcomes" => outcomes,
        "exact_mean_fraction" => exact_mean_fraction,
    )
}

/// `scenario,headline,probability,ci_low,ci_high,exact,trials,seed,description`: one
/// row per scenario, its headline number (what `rollsim` prints and the gallery leads
/// with).
pub fn headline(results: &[ScenarioResult]) -> Result<Frame, FrameError> {
    frame!(
        "scenario" => results.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
        "headline" => results.iter().map(|r| r.headline.label.clone()).collect::<Vec<_>>(),
        "probability" => results.iter().map(|r| mc(r.trials, r.headline.probability)).collect::<Vec<_>>(),
        "ci_low" => results.iter().map(|r| mc(r.trials, r.headline.ci_low)).collect::<Vec<_>>(),
        "ci_high" => results.iter().map(|r| mc(r.trials, r.headline.ci_high)).collect::<Vec<_>>(),
        "exact" => results.iter().map(|r| r.headline.exact).collect::<Vec<_>>(),
        "trials" => results.iter().map(|r| mc(r.trials, r.trials)).collect::<Vec<_>>(),
        "seed" => results.iter().map(|r| r.seed).collect::<Vec<_>>(),
        "description" => results.iter().map(|r| r.description.clone()).collect::<Vec<_>>(),
    )
}

/// One profile as a compact table: a row per point (`x_desc`), a column per series with
/// the headline probability, and one with its exact value: a pivot of the long table of
/// its members (one row per point and series), sorted by the point.
pub fn profile(members: &[&ScenarioResult]) -> Result<Frame, FrameError> {
    let (_, series) = super::profile_axes(members);
    let x_desc = members
        .first()
        .and_then(|r| r.group.as_ref())
        .map(|g| g.x_desc.clone())
        .unwrap_or_else(|| "x".into());
    let grouped: Vec<(&ScenarioResult, &rollsim_core::model::Group)> = members
        .iter()
        .filter_map(|r| r.group.as_ref().map(|g| (*r, g)))
        .collect();
    let long = Frame::new(vec![
        col(
            x_desc.clone(),
            grouped.iter().map(|(_, g)| g.x).collect::<Vec<_>>(),
        ),
        col(
            "series",
            grouped
                .iter()
                .map(|(_, g)| g.series.clone())
                .collect::<Vec<_>>(),
        ),
        col(
            "probability",
            grouped
                .iter()
                .map(|(r, _)| mc(r.trials, r.headline.probability))
                .collect::<Vec<_>>(),
        ),
        col(
            "exact",
            grouped
                .iter()
                .map(|(r, _)| r.headline.exact)
                .collect::<Vec<_>>(),
        ),
    ])?;
    let mut pick = Vec::new();
    for s in &series {
        let name = if s.is_empty() {
            "probability".to_string()
        } else {
            s.clone()
        };
        pick.push(("probability", s.clone(), name.clone()));
        pick.push(("exact", s.clone(), format!("{name} exact")));
    }
    long.pivot_pick(&x_desc, "series", &series, &["probability", "exact"], &pick)?
        .sorted(&x_desc)
}

/// One decision as a compact table: a row per choice, a column per quantity in the
/// units' words (`expected models Archers lose`, `P(Archers broken)`) and one with its
/// exact value: a pivot of the decision's rows of the long `decisions` table.
pub fn decision(rows: &[&super::DecisionRow]) -> Result<Frame, FrameError> {
    let mut quantities: Vec<String> = Vec::new();
    for r in rows {
        if !quantities.contains(&r.quantity) {
            quantities.push(r.quantity.clone());
        }
    }
    let long = frame!(
        "choice" => rows.iter().map(|r| r.choice.clone()).collect::<Vec<_>>(),
        "quantity" => rows.iter().map(|r| r.quantity.clone()).collect::<Vec<_>>(),
        "estimate" => rows.iter().map(|r| mc(r.trials, r.estimate)).collect::<Vec<_>>(),
        "exact" => rows.iter().map(|r| r.exact).collect::<Vec<_>>(),
    )?;
    let mut pick = Vec::new();
    for q in &quantities {
        let head = rows
            .iter()
            .find(|r| r.quantity == *q)
            .map_or(q.clone(), |r| r.heading());
        pick.push(("estimate", q.clone(), head.clone()));
        pick.push(("exact", q.clone(), format!("{head} exact")));
    }
    long.pivot_pick(
        "choice",
        "quantity",
        &quantities,
        &["estimate", "exact"],
        &pick,
    )
}

/// `decision,choice,scenario,quantity,estimate,ci_low,ci_high,exact`: the decision
/// tables, one row per (decision, choice, quantity).
pub fn decisions(rows: &[super::DecisionRow]) -> Result<Frame, FrameError> {
    frame!(
        "decision" => rows.iter().map(|r| r.decision.clone()).collect::<Vec<_>>(),
        "choice" => rows.iter().map(|r| r.choice.clone()).collect::<Vec<_>>(),
        "scenario" => rows.iter().map(|r| r.scenario.clone()).collect::<Vec<_>>(),
        "quantity" => rows.iter().map(|r| r.quantity.clone()).collect::<Vec<_>>(),
        "estimate" => rows.iter().map(|r| mc(r.trials, r.estimate)).collect::<Vec<_>>(),
        "ci_low" => rows.iter().map(|r| mc(r.trials, r.ci_low)).collect::<Vec<_>>(),
        "ci_high" => rows.iter().map(|r| mc(r.trials, r.ci_high)).collect::<Vec<_>>(),
        "exact" => rows.iter().map(|r| r.exact).collect::<Vec<_>>(),
    )
}

/// The columns of measured cells: empty numbers and the reason where a cell is blank.
#[derive(Default)]
struct SlotColumns {
    estimate: Vec<Option<f64>>,
    ci_low: Vec<Option<f64>>,
    ci_high: Vec<Option<f64>>,
    exact: Vec<Option<f64>>,
    note: Vec<Option<String>>,
}

impl SlotColumns {
    fn push(&mut self, s: &super::analysis::Slot) {
        let c = s.as_ref().ok();
        let m = s.as_ref().ok().filter(|c| c.trials > 0);
        self.estimate.push(m.map(|c| c.estimate));
        self.ci_low.push(m.map(|c| c.ci.0));
        self.ci_high.push(m.map(|c| c.ci.1));
        self.exact.push(c.and_then(|c| c.exact));
        self.note.push(s.as_ref().err().cloned());
    }
}

/// A matchup matrix, long (attacker = the row side, defender = the column side):
/// `scenario,attacker,defender,estimate,ci_low,ci_high,exact,
/// response,note,trials,seed`; an impossible pair has empty numbers and its reason in
/// `note`, and `response` is the defender's choice under `--response best`.
pub fn matrix_long(m: &Matrix) -> Result<Frame, FrameError> {
    let mut a = Vec::new();
    let mut d = Vec::new();
    let mut resp = Vec::<Option<String>>::new();
    let mut trials = Vec::new();
    let mut cols = SlotColumns::default();
    for ((id, _), row) in m.rows.entries.iter().zip(&m.cells) {
        for ((did, _), c) in m.cols.entries.iter().zip(row) {
            a.push(id.clone());
            d.push(did.clone());
            resp.push(c.response.clone());
            cols.push(&c.value);
            // Each pair's own count (under a precision target they differ).
            trials.push(c.value.as_ref().ok().and_then(|c| mc(c.trials, c.trials)));
        }
    }
    let n = a.len();
    frame!(
        "scenario" => vec![m.scenario.clone(); n],
        "attacker" => a,
        "defender" => d,
        "estimate" => cols.estimate,
        "ci_low" => cols.ci_low,
        "ci_high" => cols.ci_high,
        "exact" => cols.exact,
        "response" => resp,
        "note" => cols.note,
        "trials" => trials,
        "seed" => vec![m.seed; n],
    )
}

/// A matchup matrix, wide: the row side's ids, then one column of estimates per column
/// entry (empty where the pair is impossible), pivoted out of the long table.
pub fn matrix_wide(long: &Frame, m: &Matrix) -> Result<Frame, FrameError> {
    shown(long)?.pivot("attacker", "defender", &column_ids(m), "value")
}

/// The long table with the number a matrix shows in `value`: the estimate where Monte
/// Carlo ran, else the exact value (exact-only, where the estimate is the exact value).
fn shown(long: &Frame) -> Result<Frame, FrameError> {
    long.coalesce("value", "estimate", "exact")
}

/// The column side's ids, in the matrix's order.
fn column_ids(m: &Matrix) -> Vec<String> {
    m.cols.entries.iter().map(|(id, _)| id.clone()).collect()
}

/// A grid of one kind of cell: a row per row entry, a column per column entry.
pub type Grid<T> = Vec<Vec<Option<T>>>;

/// A matrix's cells read back out of its long table, one grid per column of it: what the
/// Markdown table, the heatmap and the live page's JSON show, so that all five renderings
/// of a matrix come from one table.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixCells {
    /// The number shown: the estimate, or the exact value where no trials ran.
    pub value: Grid<f64>,
    pub ci_low: Grid<f64>,
    pub ci_high: Grid<f64>,
    pub exact: Grid<f64>,
    pub response: Grid<String>,
    pub note: Grid<String>,
}

/// Each of `values` of the long table as a grid (one pivot of them all), read back row
/// by row.
fn grids(long: &Frame, m: &Matrix, values: &[&str]) -> Result<Vec<Vec<Cells>>, FrameError> {
    let ids = column_ids(m);
    long.pivots("attacker", "defender", &ids, values)?
        .into_iter()
        .map(|wide| {
            let by_column = ids
                .iter()
                .map(|id| {
                    wide.column(id).ok_or_else(|| FrameError::Ragged {
                        column: id.clone(),
                        len: 0,
                        height: wide.height(),
                    })
                })
                .collect::<Result<Vec<Cells>, FrameError>>()?;
            if wide.height() != m.rows.entries.len() {
                return Err(FrameError::Ragged {
                    column: "attacker".into(),
                    len: wide.height(),
                    height: m.rows.entries.len(),
                });
            }
            Ok(by_column)
        })
        .collect()
}

/// A grid from columns of cells: row `i` takes each column's `i`-th cell through `cell`
/// (None where the column is of another type).
fn rows<T>(columns: &[Cells], n: usize, cell: impl Fn(&Cells, usize) -> Option<T>) -> Grid<T> {
    (0..n)
        .map(|i| columns.iter().map(|c| cell(c, i)).collect())
        .collect()
}

/// A float grid from columns of cells.
fn floats(columns: Vec<Cells>, n: usize) -> Grid<f64> {
    rows(&columns, n, |c, i| match c {
        Cells::F64(v) => v[i],
        _ => None,
    })
}

/// A text grid from columns of cells.
fn texts(columns: Vec<Cells>, n: usize) -> Grid<String> {
    rows(&columns, n, |c, i| match c {
        Cells::Str(v) => v[i].clone(),
        _ => None,
    })
}

/// A matrix's tables, made once for every writer: its long table (`STEM.csv`, whose
/// pivot is the wide one) and its cells as that table has them (the Markdown table,
/// the heatmap).
pub struct MatrixTables {
    pub long: Frame,
    pub cells: MatrixCells,
}

/// [`MatrixTables`] of `m`.
pub fn matrix_tables(m: &Matrix) -> Result<MatrixTables, FrameError> {
    let long = matrix_long(m)?;
    let cells = matrix_cells(&long, m)?;
    Ok(MatrixTables { long, cells })
}

/// The cells of `m` as its long table (`matrix_long(m)`) has them.
pub fn matrix_cells(long: &Frame, m: &Matrix) -> Result<MatrixCells, FrameError> {
    let rows = m.rows.entries.len();
    let [value, ci_low, ci_high, exact, response, note]: [Vec<Cells>; 6] = grids(
        &shown(long)?,
        m,
        &["value", "ci_low", "ci_high", "exact", "response", "note"],
    )?
    .try_into()
    .expect("one grid per column asked for");
    Ok(MatrixCells {
        value: floats(value, rows),
        ci_low: floats(ci_low, rows),
        ci_high: floats(ci_high, rows),
        exact: floats(exact, rows),
        response: texts(response, rows),
        note: texts(note, rows),
    })
}

/// A sweep, one row per point and member: the keys, `scenario`, the cell and a `note`.
pub fn sweep(s: &Sweep) -> Result<Frame, FrameError> {
    let n1 = s.keys[0].values.len();
    let n2 = s.keys.get(1).map_or(1, |k| k.values.len());
    let mut k1 = Vec::new();
    let mut k2 = Vec::new();
    let mut member = Vec::new();
    let mut cols_in = SlotColumns::default();
    for ser in &s.series {
        for i in 0..n1 {
            for j in 0..n2 {
                k1.push(s.keys[0].values[i]);
                if let Some(k) = s.keys.get(1) {
                    k2.push(k.values[j]);
                }
                member.push(ser.label.clone());
                cols_in.push(&ser.cells[i][j]);
            }
        }
    }
    let mut cols = vec![col("scenario", member)];
    cols.push(col(s.keys[0].key.as_str(), k1));
    if let Some(k) = s.keys.get(1) {
        cols.push(col(k.key.as_str(), k2));
    }
    cols.push(col("estimate", cols_in.estimate));
    cols.push(col("ci_low", cols_in.ci_low));
    cols.push(col("ci_high", cols_in.ci_high));
    cols.push(col("exact", cols_in.exact));
    cols.push(col("note", cols_in.note));
    Frame::new(cols)
}

/// Sensitivity rows: `scenario,change,side,quantity,before,after,change_in_value`.
pub fn sensitivity(rows: &[SensitivityRow]) -> Result<Frame, FrameError> {
    frame!(
        "scenario" => rows.iter().map(|r| r.scenario.clone()).collect::<Vec<_>>(),
        "change" => rows.iter().map(|r| r.change.clone()).collect::<Vec<_>>(),
        "side" => rows.iter().map(|r| r.side.clone()).collect::<Vec<_>>(),
        "quantity" => rows.iter().map(|r| r.quantity.clone()).collect::<Vec<_>>(),
        "before" => rows.iter().map(|r| r.base).collect::<Vec<_>>(),
        "after" => rows.iter().map(|r| r.changed).collect::<Vec<_>>(),
        "change_in_value" => rows.iter().map(|r| r.delta).collect::<Vec<_>>(),
    )
}

/// Equalizer candidates: `scenario,change,steps,value,distance_from_target`.
pub fn equalize(all: &[Equalized]) -> Result<Frame, FrameError> {
    let rows: Vec<(&Equalized, &Candidate)> = all
        .iter()
        .flat_map(|e| e.candidates.iter().map(move |c| (e, c)))
        .collect();
    frame!(
        "scenario" => rows.iter().map(|(e, _)| e.scenario.clone()).collect::<Vec<_>>(),
        "change" => rows.iter().map(|(_, c)| c.change.clone()).collect::<Vec<_>>(),
        "steps" => rows.iter().map(|(_, c)| c.size).collect::<Vec<_>>(),
        "value" => rows.iter().map(|(_, c)| c.value).collect::<Vec<_>>(),
        "distance_from_target" => rows.iter().map(|(e, c)| (c.value - e.target).abs()).collect::<Vec<_>>(),
    )
}

/// Overlay rows: `entry,value,probability,ci_low,ci_high,exact,exact_fraction`, one per
/// entry and value (the union of values, in order of first appearance): every entry's
/// own rows, long, joined onto the grid of entries and values. A value an entry never
/// showed has probability 0 where it was simulated, and no exact value.
pub fn overlay(
    rows: &[(String, MetricResult, u64)],
    values: &[String],
) -> Result<Frame, FrameError> {
    // Entries are told apart by position: two may share a label.
    let n = values.len();
    let grid = frame!(
        "i" => (0..rows.len() as u64).flat_map(|i| std::iter::repeat_n(i, n)).collect::<Vec<_>>(),
        "entry" => rows.iter().flat_map(|(label, ..)| std::iter::repeat_n(label.clone(), n)).collect::<Vec<_>>(),
        "value" => rows.iter().flat_map(|_| values.iter().cloned()).collect::<Vec<_>>(),
        "trials" => rows.iter().flat_map(|(_, _, t)| std::iter::repeat_n(*t, n)).collect::<Vec<_>>(),
    )?;
    let shown: Vec<(u64, &super::ValueRow)> = rows
        .iter()
        .enumerate()
        .flat_map(|(i, (_, m, _))| m.rows.iter().map(move |r| (i as u64, r)))
        .collect();
    let long = frame!(
        "i" => shown.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        "value" => shown.iter().map(|(_, r)| r.label.clone()).collect::<Vec<_>>(),
        "probability" => shown.iter().map(|(_, r)| r.probability).collect::<Vec<_>>(),
        "ci_low" => shown.iter().map(|(_, r)| r.ci_low).collect::<Vec<_>>(),
        "ci_high" => shown.iter().map(|(_, r)| r.ci_high).collect::<Vec<_>>(),
        "exact" => shown.iter().map(|(_, r)| r.exact).collect::<Vec<_>>(),
        "exact_fraction" => shown.iter().map(|(_, r)| r.exact_fraction.as_ref().map(|f| f.to_string())).collect::<Vec<_>>(),
    )?;
    let mut joined = grid.left_join(&long, &["i", "value"])?;
    for c in ["probability", "ci_low", "ci_high"] {
        joined = joined.filled_where_counted(c, "trials", 0.0)?;
    }
    joined.select(&[
        "entry",
        "value",
        "probability",
        "ci_low",
        "ci_high",
        "exact",
        "exact_fraction",
    ])
}

/// A roster: `unit,name,elo,elo_ci95,nash_weight,worth,dominated_by,field_win_rate`, one
/// row per unit (`elo_ci95` empty for an exact matrix, `dominated_by` for an undominated
/// unit).
pub fn roster(r: &rollsim_core::balance::roster::Roster) -> Result<Frame, FrameError> {
    let u = &r.units;
    frame!(
        "unit" => u.iter().map(|x| x.id.clone()).collect::<Vec<_>>(),
        "name" => u.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
        "elo" => u.iter().map(|x| x.elo).collect::<Vec<_>>(),
        "elo_ci95" => u.iter().map(|x| x.elo_ci).collect::<Vec<_>>(),
        "nash_weight" => u.iter().map(|x| x.weight).collect::<Vec<_>>(),
        "worth" => u.iter().map(|x| 0.5 - x.without).collect::<Vec<_>>(),
        "dominated_by" => u.iter().map(|x| x.dominated_by.clone()).collect::<Vec<_>>(),
        "field_win_rate" => u.iter().map(|x| x.field).collect::<Vec<_>>(),
    )
}

/// A roster's prices: `unit,name,count,current_cost,even_count,suggested_cost,cost_low,cost_high,field_before,field_after`.
pub fn costs(k: &rollsim_core::balance::costs::Costs) -> Result<Frame, FrameError> {
    let r = &k.rows;
    frame!(
        "unit" => r.iter().map(|x| x.id.clone()).collect::<Vec<_>>(),
        "name" => r.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
        "count" => r.iter().map(|x| x.count).collect::<Vec<_>>(),
        "current_cost" => r.iter().map(|x| x.current).collect::<Vec<_>>(),
        "even_count" => r.iter().map(|x| x.even_count).collect::<Vec<_>>(),
        "suggested_cost" => r.iter().map(|x| x.suggested).collect::<Vec<_>>(),
        "cost_low" => r.iter().map(|x| x.interval.map(|i| i.0)).collect::<Vec<_>>(),
        "cost_high" => r.iter().map(|x| x.interval.map(|i| i.1)).collect::<Vec<_>>(),
        "field_before" => r.iter().map(|x| x.field_before).collect::<Vec<_>>(),
        "field_after" => r.iter().map(|x| x.field_after).collect::<Vec<_>>(),
    )
}

/// The three tables of a run, as `distribution.csv`, `summary.csv` and `headline.csv`
/// have them, by name.
pub fn run_tables(results: &[ScenarioResult]) -> Result<Vec<(&'static str, Columns)>, FrameError> {
    Ok(vec![
        ("distribution", distribution(results)?.to_columns()?),
        ("summary", summary(results)?.to_columns()?),
        ("headline", headline(results)?.to_columns()?),
    ])
}

/// Which of a run's tables its writers read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// A folder: every table ([`report_tables`]).
    Every,
    /// Standard output streaming a table (`-o - --format csv`): the distribution alone.
    Distribution,
    /// Nothing written, or Markdown on standard output: no table.
    Nothing,
}

/// The tables a run's writers read ([`Wanted`]), made once before any is written.
pub fn tables(
    results: &[ScenarioResult],
    wanted: Wanted,
) -> Result<Vec<(String, Frame)>, FrameError> {
    match wanted {
        Wanted::Every => report_tables(results),
        Wanted::Distribution => Ok(vec![("distribution".to_string(), distribution(results)?)]),
        Wanted::Nothing => Ok(Vec::new()),
    }
}

/// Every table a run writes, by file stem, in the order they are written:
/// `distribution`, `summary`, `headline`, then `decisions` (where a scenario chooses),
/// `profile-NAME` per profile and `decision-NAME` per decision.
pub fn report_tables(results: &[ScenarioResult]) -> Result<Vec<(String, Frame)>, FrameError> {
    let mut out = vec![
        ("distribution".to_string(), distribution(results)?),
        ("summary".to_string(), summary(results)?),
        ("headline".to_string(), headline(results)?),
    ];
    let decisions = super::decision_rows(results);
    if !decisions.is_empty() {
        out.push(("decisions".to_string(), self::decisions(&decisions)?));
    }
    for (name, members) in super::profiles(results) {
        out.push((format!("profile-{name}"), profile(&members)?));
    }
    for (name, rows) in super::by_decision(&decisions) {
        out.push((format!("decision-{name}"), decision(&rows)?));
    }
    Ok(out)
}
