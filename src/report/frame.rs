//! The result model as polars DataFrames: the one place that decides the table columns
//! of shared/DESIGN.md.

use super::ScenarioResult;
use polars::prelude::*;

/// `scenario,metric,value,count,trials,probability,ci_low,ci_high,exact`
pub fn distribution(results: &[ScenarioResult]) -> PolarsResult<DataFrame> {
    let mut scenario = Vec::new();
    let mut metric = Vec::new();
    let mut value = Vec::new();
    let mut count = Vec::new();
    let mut trials = Vec::new();
    let mut probability = Vec::new();
    let mut ci_low = Vec::new();
    let mut ci_high = Vec::new();
    let mut exact: Vec<Option<f64>> = Vec::new();
    for r in results {
        for m in &r.metrics {
            for row in &m.rows {
                scenario.push(r.name.clone());
                metric.push(m.name.clone());
                value.push(row.label.clone());
                count.push(row.count);
                trials.push(r.trials);
                probability.push(row.probability);
                ci_low.push(row.ci_low);
                ci_high.push(row.ci_high);
                exact.push(row.exact);
            }
        }
    }
    df!(
        "scenario" => scenario,
        "metric" => metric,
        "value" => value,
        "count" => count,
        "trials" => trials,
        "probability" => probability,
        "ci_low" => ci_low,
        "ci_high" => ci_high,
        "exact" => exact,
    )
}

/// `scenario,metric,mean,mean_ci_low,mean_ci_high,exact_mean,trials,seed`; categorical
/// metrics have no mean and leave those cells empty.
pub fn summary(results: &[ScenarioResult]) -> PolarsResult<DataFrame> {
    let mut scenario = Vec::new();
    let mut metric = Vec::new();
    let mut mean: Vec<Option<f64>> = Vec::new();
    let mut lo: Vec<Option<f64>> = Vec::new();
    let mut hi: Vec<Option<f64>> = Vec::new();
    let mut exact_mean: Vec<Option<f64>> = Vec::new();
    let mut trials = Vec::new();
    let mut seed = Vec::new();
    for r in results {
        for m in &r.metrics {
            scenario.push(r.name.clone());
            metric.push(m.name.clone());
            mean.push(m.mean);
            lo.push(m.mean_ci.map(|c| c.0));
            hi.push(m.mean_ci.map(|c| c.1));
            exact_mean.push(m.exact_mean);
            trials.push(r.trials);
            seed.push(r.seed);
        }
    }
    df!(
        "scenario" => scenario,
        "metric" => metric,
        "mean" => mean,
        "mean_ci_low" => lo,
        "mean_ci_high" => hi,
        "exact_mean" => exact_mean,
        "trials" => trials,
        "seed" => seed,
    )
}

/// `decision,choice,scenario,quantity,estimate,ci_low,ci_high,exact`: the decision
/// tables, one row per (decision, choice, quantity).
pub fn decisions(rows: &[super::DecisionRow]) -> PolarsResult<DataFrame> {
    df!(
        "decision" => rows.iter().map(|r| r.decision.clone()).collect::<Vec<_>>(),
        "choice" => rows.iter().map(|r| r.choice.clone()).collect::<Vec<_>>(),
        "scenario" => rows.iter().map(|r| r.scenario.clone()).collect::<Vec<_>>(),
        "quantity" => rows.iter().map(|r| r.quantity.clone()).collect::<Vec<_>>(),
        "estimate" => rows.iter().map(|r| r.estimate).collect::<Vec<_>>(),
        "ci_low" => rows.iter().map(|r| r.ci_low).collect::<Vec<_>>(),
        "ci_high" => rows.iter().map(|r| r.ci_high).collect::<Vec<_>>(),
        "exact" => rows.iter().map(|r| r.exact).collect::<Vec<_>>(),
    )
}

/// A matchup matrix, long: `attacker,defender,estimate,ci_low,ci_high,exact,trials,seed`.
pub fn matrix_long(m: &crate::balance::compare::Matrix) -> PolarsResult<DataFrame> {
    let (mut a, mut d, mut est, mut lo, mut hi, mut ex) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::<Option<f64>>::new(),
    );
    for ((id, _), row) in m.attackers.iter().zip(&m.cells) {
        for ((did, _), c) in m.defenders.iter().zip(row) {
            a.push(id.clone());
            d.push(did.clone());
            est.push(c.estimate);
            lo.push(c.ci.0);
            hi.push(c.ci.1);
            ex.push(c.exact);
        }
    }
    let n = a.len();
    df!(
        "attacker" => a,
        "defender" => d,
        "estimate" => est,
        "ci_low" => lo,
        "ci_high" => hi,
        "exact" => ex,
        "trials" => vec![m.trials.unwrap_or(0); n],
        "seed" => vec![m.seed; n],
    )
}

/// A matchup matrix, wide: `attacker` then one column of estimates per defender.
pub fn matrix_wide(m: &crate::balance::compare::Matrix) -> PolarsResult<DataFrame> {
    let mut cols: Vec<Column> = vec![Column::new(
        "attacker".into(),
        m.attackers
            .iter()
            .map(|(id, _)| id.clone())
            .collect::<Vec<_>>(),
    )];
    for (j, (id, _)) in m.defenders.iter().enumerate() {
        cols.push(Column::new(
            id.as_str().into(),
            m.cells
                .iter()
                .map(|row| row[j].estimate)
                .collect::<Vec<_>>(),
        ));
    }
    DataFrame::new(m.attackers.len(), cols)
}
