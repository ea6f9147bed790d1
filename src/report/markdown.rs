//! Markdown tables for the terminal (and for pasting into a design doc).

use super::analysis::{how, Equalized, Matrix, SensitivityRow, Sweep};
use super::frame::MatrixCells;
use super::{MetricResult, ScenarioResult};
use std::fmt::Write as _;

/// Column alignment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Align {
    Left,
    Right,
}

/// A Markdown table: every table rollsim prints is built here, so that they all escape
/// cells and align columns the same way.
#[derive(Clone, Debug)]
pub struct Table {
    head: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new<S: Into<String>>(head: impl IntoIterator<Item = (S, Align)>) -> Self {
        Table {
            head: head.into_iter().map(|(h, a)| (h.into(), a)).collect(),
            rows: Vec::new(),
        }
    }

    /// A row; missing cells are left empty, extra ones dropped.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let mut r: Vec<String> = cells.into_iter().map(Into::into).collect();
        r.resize(self.head.len(), String::new());
        self.rows.push(r);
    }

    /// The headings, as written.
    pub fn head(&self) -> Vec<&str> {
        self.head.iter().map(|(h, _)| h.as_str()).collect()
    }

    /// The rows' cells, as written.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// A `|` inside a cell would end it: escape it.
    fn cell(s: &str) -> String {
        s.replace('|', "\\|").replace('\n', " ")
    }

    pub fn render(&self) -> String {
        let mut s = String::from("|");
        for (h, _) in &self.head {
            let _ = write!(s, " {} |", Self::cell(h));
        }
        s.push_str("\n|");
        for (_, a) in &self.head {
            s.push_str(match a {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        s.push('\n');
        for r in &self.rows {
            s.push('|');
            for c in r {
                let _ = write!(s, " {} |", Self::cell(c));
            }
            s.push('\n');
        }
        s
    }
}

fn pct(p: f64) -> String {
    crate::text::percent(p, 2)
}

fn opt_pct(p: Option<f64>) -> String {
    p.map(pct).unwrap_or_else(|| "-".into())
}

fn z(z: Option<f64>) -> String {
    z.map(|z| format!("{z:.2}")).unwrap_or_else(|| "-".into())
}

pub use rollsim_core::text::thousands;

/// A value's exact probability, with the odds beside it where they read easier than a
/// small percentage: `12.50% (1 in 8)`, `1.62% (1 in 62)`.
fn exact_odds(row: &super::ValueRow) -> String {
    let Some(e) = row.exact else {
        return "-".into();
    };
    let unit = row
        .exact_fraction
        .as_ref()
        .and_then(|f| f.unit_denominator());
    match crate::text::one_in(e, unit) {
        Some(odds) => format!("{} ({odds})", pct(e)),
        None => pct(e),
    }
}

/// One row per scenario: its headline probability, Monte Carlo and exact; without a
/// simulation (`--exact-only`), the exact value alone.
pub fn headlines(results: &[ScenarioResult]) -> String {
    use Align::*;
    let simulated = results.iter().any(|r| r.trials > 0);
    let mut head = vec![("config", Left), ("scenario", Left), ("headline", Left)];
    if simulated {
        head.extend([("Monte Carlo", Right), ("95% CI", Left)]);
    }
    head.push(("exact", Right));
    if simulated {
        head.push(("max |z|", Right));
    }
    let mut t = Table::new(head);
    for r in results {
        let h = &r.headline;
        let mut row = vec![r.config.clone(), r.name.clone(), h.label.clone()];
        if simulated {
            row.extend([
                pct(h.probability),
                format!("{} .. {}", pct(h.ci_low), pct(h.ci_high)),
            ]);
        }
        row.push(opt_pct(h.exact));
        if simulated {
            row.push(z(r.max_abs_z()));
        }
        t.row(row);
    }
    t.render()
}

/// In a long table, values below this probability (Monte Carlo and exact) are folded.
const FOLD_BELOW: f64 = 5e-4;

/// A run's Markdown report, made once before it is written wherever it goes (standard
/// output, or below a roll's answer): the config's title as its heading over the
/// [`body`](Report::body).
pub struct Report {
    heading: String,
    /// Every scenario's tables, one compact table per profile and per decision.
    pub body: String,
}

impl Report {
    pub fn new(title: &str, results: &[ScenarioResult]) -> Self {
        let heading = if title.is_empty() {
            String::new()
        } else {
            format!("## {title}\n\n")
        };
        let body =
            full(results) + &profile_tables(results) + &decisions(&super::decision_rows(results));
        Report { heading, body }
    }

    /// The whole report, its heading first.
    pub fn into_text(self) -> String {
        self.heading + &self.body
    }
}

/// Each profile as one compact table: a row per point, a column per series (Monte
/// Carlo, then exact in brackets) of the members' headline.
pub fn profile_tables(results: &[ScenarioResult]) -> String {
    let mut s = String::new();
    for (name, members) in super::profiles(results) {
        let (xs, series) = super::profile_axes(&members);
        let g = members[0].group.as_ref().expect("a profile member");
        let _ = writeln!(s, "### {name}\n");
        let _ = writeln!(
            s,
            "{}: {} ({} points; each point's full tables are in the CSV){}\n",
            g.label,
            members[0].headline.label,
            members.len(),
            if members[0].trials == 0 {
                ", exact"
            } else {
                "; Monte Carlo (exact)"
            }
        );
        let mut t = Table::new(std::iter::once((g.x_desc.clone(), Align::Left)).chain(
            series.iter().map(|s| {
                (
                    if s.is_empty() {
                        members[0].headline.label.clone()
                    } else {
                        s.clone()
                    },
                    Align::Right,
                )
            }),
        ));
        for x in xs {
            let cells = series.iter().map(|ser| {
                members
                    .iter()
                    .find(|r| {
                        r.group
                            .as_ref()
                            .is_some_and(|g| g.series == *ser && g.x == x)
                    })
                    .map(|r| match r.headline.exact {
                        Some(e) if r.trials == 0 => pct(e),
                        Some(e) => format!("{} ({})", pct(r.headline.probability), pct(e)),
                        None => pct(r.headline.probability),
                    })
                    .unwrap_or_default()
            });
            t.row(std::iter::once(format!("{x}")).chain(cells));
        }
        s.push_str(&t.render());
        s.push('\n');
    }
    s
}

/// Every metric of every scenario as its own table; the members of a profile or of a
/// decision table are left to [`profiles`] and [`decisions`].
pub fn full(results: &[ScenarioResult]) -> String {
    let mut s = String::new();
    for r in results.iter().filter(|r| r.group.is_none()) {
        let _ = writeln!(s, "### {}\n", r.name);
        let _ = writeln!(
            s,
            "{}  \n{}{}\n",
            r.description,
            if r.trials == 0 {
                "exact distributions only (nothing simulated)".to_string()
            } else {
                format!("{} trials, seed {}", thousands(r.trials), r.seed)
            },
            if r.capped_mass > 0.0 {
                format!(", {} {}", r.capped_note, crate::text::sci(r.capped_mass, 1))
            } else {
                String::new()
            }
        );
        if let Some(n) = &r.note {
            let _ = writeln!(s, "**Note:** {n}\n");
        }
        for m in &r.metrics {
            metric_table(&mut s, m, r.trials > 0);
        }
    }
    s
}

/// One metric's line (its mean, Monte Carlo and exact) and table of values; without a
/// simulation (`simulated` false) the Monte Carlo columns are left out.
fn metric_table(s: &mut String, m: &MetricResult, simulated: bool) {
    let _ = write!(s, "**{}** ({})", m.name, m.description);
    let exact_mean = |s: &mut String, lead: &str| {
        if let Some(e) = m.exact_mean {
            let _ = write!(s, "{lead}{}", crate::text::fixed(e, 4));
            // A whole number needs no `/1`.
            if let Some(f) = m.exact_mean_fraction.as_ref().filter(|f| !f.is_whole()) {
                let _ = write!(s, " ({})", f.shown());
            }
        }
    };
    match (m.mean, m.mean_ci) {
        (Some(mean), Some((lo, hi))) if simulated => {
            let _ = write!(
                s,
                ": mean {} [{}, {}]",
                crate::text::fixed(mean, 4),
                crate::text::fixed(lo, 4),
                crate::text::fixed(hi, 4)
            );
            exact_mean(s, ", exact ");
        }
        _ => exact_mean(s, ": exact mean "),
    }
    s.push_str("\n\n");
    // Each column, and whether only a simulation fills it: without one
    // (`--exact-only`) those columns are left out.
    let shown = |cells: Vec<(String, bool)>| {
        cells
            .into_iter()
            .filter(|(_, mc)| simulated || !mc)
            .map(|(c, _)| c)
            .collect::<Vec<_>>()
    };
    let mut t = Table::new(
        [
            ("value", Align::Left, false),
            ("P (Monte Carlo)", Align::Right, true),
            ("95% CI", Align::Left, true),
            ("exact", Align::Right, false),
            ("exact fraction", Align::Right, false),
            ("z", Align::Right, true),
        ]
        .into_iter()
        .filter(|c| simulated || !c.2)
        .map(|(h, a, _)| (h, a)),
    );
    // The rows the CSV lists (no value that cannot happen); a long tail (a
    // duel's length) is folded into one line, the CSV keeps each of them.
    let listed: Vec<&super::ValueRow> = m.listed().collect();
    let long = listed.len() > super::LONG_METRIC;
    let (mut folded, mut folded_p, mut folded_exact) = (0usize, 0.0, Some(0.0));
    for row in listed {
        if long && row.probability < FOLD_BELOW && row.exact.unwrap_or(0.0) < FOLD_BELOW {
            folded += 1;
            folded_p += row.probability;
            folded_exact = folded_exact.zip(row.exact).map(|(a, b)| a + b);
            continue;
        }
        t.row(shown(vec![
            (row.label.clone(), false),
            (pct(row.probability), true),
            (format!("{} .. {}", pct(row.ci_low), pct(row.ci_high)), true),
            (exact_odds(row), false),
            (
                row.exact_fraction
                    .as_ref()
                    .map(|f| f.shown())
                    .unwrap_or_default(),
                false,
            ),
            (z(row.z), true),
        ]));
    }
    if folded > 0 {
        t.row(shown(vec![
            (
                format!(
                    "{folded} other values, each below {} (in the CSV)",
                    pct(FOLD_BELOW)
                ),
                false,
            ),
            (pct(folded_p), true),
            (String::new(), true),
            (opt_pct(folded_exact), false),
        ]));
    }
    s.push_str(&t.render());
    s.push('\n');
}

/// Each decision as a table: one row per choice, one column per quantity.
pub fn decisions(rows: &[super::DecisionRow]) -> String {
    let mut s = String::new();
    for (name, mine) in super::by_decision(rows) {
        let mut quantities: Vec<&str> = Vec::new();
        let mut choices: Vec<&str> = Vec::new();
        for r in &mine {
            if !quantities.contains(&r.quantity.as_str()) {
                quantities.push(&r.quantity);
            }
            if !choices.contains(&r.choice.as_str()) {
                choices.push(&r.choice);
            }
        }
        let exact = mine.iter().all(|r| r.trials == 0);
        let _ = writeln!(
            s,
            "### decision: {name}{}\n",
            if exact { " (exact)" } else { "" }
        );
        let mut t = Table::new(std::iter::once(("choice".to_string(), Align::Left)).chain(
            quantities.iter().map(|q| {
                let head = mine
                    .iter()
                    .find(|r| r.quantity == *q)
                    .map_or(q.replace('_', " "), |r| r.heading());
                (head, Align::Right)
            }),
        ));
        for c in choices {
            let cells: Vec<String> = quantities
                .iter()
                .map(|q| {
                    mine.iter()
                        .find(|r| r.choice == c && r.quantity == *q)
                        .map(|r| {
                            let v = |x: f64| {
                                if r.expected {
                                    crate::text::fixed(x, 3)
                                } else {
                                    pct(x)
                                }
                            };
                            match (r.exact, r.trials) {
                                (Some(e), 0) => v(e),
                                (Some(e), _) => format!("{} (exact {})", v(r.estimate), v(e)),
                                (None, _) => v(r.estimate),
                            }
                        })
                        .unwrap_or_default()
                })
                .collect();
            t.row(std::iter::once(c.to_string()).chain(cells));
        }
        s.push_str(&t.render());
        s.push('\n');
    }
    s
}

/// A probability as a percentage or a mean with three decimals.
fn value(v: f64, probability: bool) -> String {
    if probability {
        crate::text::percent(v, 2)
    } else {
        crate::text::fixed(v, 3)
    }
}

/// A matchup matrix: a row per attacker, a column per defender; exact values in
/// parentheses, the defender's choice in brackets, an impossible pair as "-". The cells
/// are read from the matrix's long table (`cells`), as the CSVs and the heatmap are.
pub fn matrix(m: &Matrix, cells: &MatrixCells) -> String {
    let mut s = format!(
        "### {}: {} ({} rows, {} columns{}; {})\n\n",
        m.scenario,
        m.what,
        m.rows.key,
        m.cols.key,
        m.response
            .as_ref()
            .map_or(String::new(), |r| format!(", {r} in brackets")),
        match m.trials {
            Some(_) => format!("{}; exact in parentheses", m.how()),
            None => "exact".into(),
        }
    );
    let mut t = Table::new(
        std::iter::once((format!("{} \\ {}", m.rows.key, m.cols.key), Align::Left)).chain(
            m.cols
                .entries
                .iter()
                .map(|(_, name)| (name.clone(), Align::Right)),
        ),
    );
    // One decimal: a matrix is read at a glance.
    let f = |v: f64| {
        if m.probability {
            crate::text::percent(v, 1)
        } else {
            crate::text::fixed(v, 3)
        }
    };
    let mut blanks = Vec::new();
    for (i, (_, name)) in m.rows.entries.iter().enumerate() {
        let row = m.cols.entries.iter().enumerate().map(|(j, (_, col))| {
            let mut v = match (cells.note[i][j].as_deref(), cells.value[i][j]) {
                (None, Some(v)) => match (m.trials, cells.exact[i][j]) {
                    (Some(_), Some(e)) => format!("{} ({})", f(v), f(e)),
                    _ => f(v),
                },
                (e, _) => {
                    let e = e.unwrap_or("no value");
                    blanks.push(format!("{name} against {col}: {e}"));
                    "-".into()
                }
            };
            if let Some(r) = &cells.response[i][j] {
                v.push_str(&format!(" [{}]", r.replace('_', " ")));
            }
            v
        });
        t.row(std::iter::once(name.clone()).chain(row.collect::<Vec<_>>()));
    }
    s.push_str(&t.render());
    if !blanks.is_empty() {
        s.push_str("\n\"-\": cannot be computed:\n\n");
        for b in blanks {
            let _ = writeln!(s, "- {b}");
        }
    }
    s.push('\n');
    s
}

/// A sweep: one row per point, one value column per member.
pub fn sweep(sw: &Sweep) -> String {
    let keys: Vec<&str> = sw.keys.iter().map(|k| k.key.as_str()).collect();
    let mut s = format!(
        "### {}: {} as {} ({})\n\n",
        sw.scenario,
        sw.what,
        keys.join(" and "),
        how(sw.trials, sw.seed, "per point")
    );
    let mut head: Vec<(String, Align)> =
        keys.iter().map(|k| (k.to_string(), Align::Right)).collect();
    // One scenario: its value, CI and exact value; a group: one column per member, the
    // exact value in parentheses (the CSV has every CI).
    let one = sw.series.len() == 1;
    let prefix = format!("{}@", sw.scenario);
    for ser in &sw.series {
        if one {
            head.push((sw.what.clone(), Align::Right));
            if sw.trials.is_some() {
                head.push(("95% CI".into(), Align::Left));
                head.push(("exact".into(), Align::Right));
            }
        } else {
            let short = ser.label.strip_prefix(&prefix).unwrap_or(&ser.label);
            head.push((short.to_string(), Align::Right));
        }
    }
    let mut t = Table::new(head);
    let n2 = sw.keys.get(1).map_or(1, |k| k.values.len());
    for i in 0..sw.keys[0].values.len() {
        for j in 0..n2 {
            let mut row = vec![sw.keys[0].values[i].to_string()];
            if let Some(k) = sw.keys.get(1) {
                row.push(k.values[j].to_string());
            }
            for ser in &sw.series {
                let v = |x: f64| value(x, sw.probability);
                match (&ser.cells[i][j], one, sw.trials) {
                    (Ok(c), true, Some(_)) => {
                        row.push(v(c.estimate));
                        row.push(format!("{} .. {}", v(c.ci.0), v(c.ci.1)));
                        row.push(c.exact.map_or("-".into(), v));
                    }
                    (Ok(c), false, Some(_)) => row.push(match c.exact {
                        Some(e) => format!("{} ({})", v(c.estimate), v(e)),
                        None => v(c.estimate),
                    }),
                    (Ok(c), _, None) => row.push(v(c.estimate)),
                    (Err(_), true, Some(_)) => {
                        row.extend(["-".to_string(), String::new(), String::new()])
                    }
                    (Err(_), _, _) => row.push("-".into()),
                }
            }
            t.row(row);
        }
    }
    s.push_str(&t.render());
    let refused = sw
        .series
        .iter()
        .flat_map(|ser| ser.cells.iter().flatten())
        .filter(|c| c.is_err())
        .count();
    if let Some(Err(e)) = sw
        .series
        .iter()
        .flat_map(|ser| ser.cells.iter().flatten())
        .find(|c| c.is_err())
    {
        let _ = writeln!(
            s,
            "\n{refused} point(s) cannot be computed (\"-\", reasons in the CSV), e.g. {e}"
        );
    }
    s.push('\n');
    s
}

/// Sensitivity: one table per scenario or member.
pub fn sensitivity(rows: &[SensitivityRow], refused: &[(String, String)]) -> String {
    let mut s = String::new();
    if rows.is_empty() && refused.is_empty() {
        // Say so, as the equalizer does, rather than print nothing.
        s.push_str("No change to try: the scenario has no dice or stats to step.\n\n");
    }
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.scenario.as_str()) {
            names.push(&r.scenario);
        }
    }
    for name in names {
        let _ = writeln!(s, "### {name}: what one step is worth\n");
        let mut t = Table::new([
            ("change", Align::Left),
            ("quantity", Align::Left),
            ("before", Align::Right),
            ("after", Align::Right),
            ("change", Align::Right),
        ]);
        for r in rows.iter().filter(|r| r.scenario == name) {
            let d = if r.probability {
                format!("{} pts", crate::text::signed(r.delta * 100.0, 2))
            } else {
                crate::text::signed(r.delta, 3)
            };
            t.row([
                r.change.clone(),
                r.quantity.clone(),
                value(r.base, r.probability),
                value(r.changed, r.probability),
                d,
            ]);
        }
        s.push_str(&t.render());
        s.push('\n');
    }
    for (change, why) in refused {
        let _ = writeln!(s, "- not tried: {change}: {why}");
    }
    if !refused.is_empty() {
        s.push('\n');
    }
    s
}

/// The equalizer: per scenario or member, the value now, the best change and the ten
/// closest.
pub fn equalize(all: &[Equalized]) -> String {
    let mut s = String::new();
    for e in all {
        let v = |x: f64| value(x, e.probability);
        // The target as a designer wrote it: 50%, not 50.00%.
        let target = if e.probability && (e.target * 100.0).fract() == 0.0 {
            format!("{:.0}%", e.target * 100.0)
        } else if e.probability {
            v(e.target)
        } else {
            format!("{}", e.target)
        };
        let _ = writeln!(
            s,
            "### {}: the equalizer\n\n{} now: {}.\n",
            e.scenario,
            e.what,
            v(e.now)
        );
        if let Some(note) = &e.note {
            let _ = writeln!(s, "Note: {note}.\n");
        }
        if e.even {
            let _ = writeln!(
                s,
                "**Already even**: {} is {target} within its precision; no change is needed (the nearest changes follow).\n",
                v(e.now)
            );
        }
        match e.candidates.first() {
            Some(best) => {
                let _ = writeln!(
                    s,
                    "Closest to {target}: **{}** gives {}.\n",
                    best.change,
                    v(best.value)
                );
            }
            None => s.push_str("No change to try: the scenario has no dice or stats to step.\n\n"),
        }
        let mut t = Table::new([
            ("change", Align::Left),
            ("steps", Align::Right),
            (e.what.as_str(), Align::Right),
        ]);
        for c in e.candidates.iter().take(10) {
            t.row([c.change.clone(), c.size.to_string(), v(c.value)]);
        }
        s.push_str(&t.render());
        s.push('\n');
    }
    s
}

/// An overlay: one row per value, one column per entry.
pub fn overlay(metric: &str, rows: &[(String, MetricResult, u64)], values: &[String]) -> String {
    let mut s = format!("### {metric}, side by side\n\n");
    let mut t = Table::new(
        std::iter::once(("value".to_string(), Align::Left))
            .chain(rows.iter().map(|(label, _, n)| {
                (format!("{label} ({} trials)", thousands(*n)), Align::Right)
            })),
    );
    for v in values {
        let cells = rows
            .iter()
            .map(|(_, m, _)| match m.rows.iter().find(|r| &r.label == v) {
                Some(r) => format!(
                    "{}{}",
                    pct(r.probability),
                    r.exact.map_or(String::new(), |e| format!(" ({})", pct(e)))
                ),
                None => "-".into(),
            });
        t.row(std::iter::once(v.clone()).chain(cells.collect::<Vec<_>>()));
    }
    s.push_str(&t.render());
    s.push_str("\nexact in parentheses\n");
    s
}

/// A roster's table as `rollsim roster` prints it, strongest first: the live page's
/// roster tab shows these very cells.
pub fn roster_table(r: &rollsim_core::balance::roster::Roster) -> Table {
    let order = r.by_strength();
    let mut t = Table::new([
        ("unit", Align::Left),
        ("rating (Elo)", Align::Right),
        ("wins vs the field", Align::Right),
        ("Nash weight", Align::Right),
        ("worth to the roster", Align::Right),
        ("dominated by", Align::Left),
    ]);
    for &i in &order {
        let u = &r.units[i];
        let rating = match u.elo_ci {
            Some(ci) => format!("{:+.0} \u{b1} {:.0}", u.elo, ci),
            None => format!("{:+.0}", u.elo),
        };
        t.row([
            u.name.clone(),
            rating,
            pct(u.field),
            pct(u.weight),
            format!("{:+.2} points", (0.5 - u.without) * 100.0),
            // The CSV keeps the id; here the name the table shows.
            u.dominated_by
                .as_ref()
                .and_then(|id| r.units.iter().find(|x| &x.id == id))
                .map_or_else(|| "-".into(), |x| x.name.clone()),
        ]);
    }
    t
}

/// A roster: the units by strength, with the metagame's reading of each.
pub fn roster(r: &rollsim_core::balance::roster::Roster) -> String {
    let mut s = String::new();
    let m = &r.matrix;
    let _ = writeln!(
        s,
        "### {}: the roster as a metagame\n\n{} units, each against each in both seats ({}; {}{}).\n",
        m.scenario,
        r.units.len(),
        m.what,
        m.how(),
        if r.exact && m.trials.is_some() {
            "; the metagame read from the exact values"
        } else {
            ""
        }
    );
    s.push_str(&roster_table(r).render());
    let never: Vec<&str> = r
        .units
        .iter()
        .filter(|u| u.weight < 1e-9)
        .map(|u| u.name.as_str())
        .collect();
    let _ = writeln!(
        s,
        "\nA perfect player picks each unit as often as its Nash weight and wins at least {} against any choice; {}.",
        pct(r.value),
        if never.is_empty() {
            "every unit has a place in that mix".to_string()
        } else {
            format!("it never picks {}", never.join(", "))
        }
    );
    let _ = writeln!(
        s,
        "Worth to the roster: how much less a player who may not pick the unit can guarantee. Cyclic share {}: {}.\n",
        pct(r.cyclic),
        if r.cyclic < 0.05 {
            "the units line up on one scale, the ratings say nearly all"
        } else if r.cyclic < 0.5 {
            "partly rock-paper-scissors: read the matrix beside the ratings"
        } else {
            "mostly rock-paper-scissors: no single rating orders these units"
        }
    );
    s
}

/// A roster's price table as `rollsim roster --count` prints it (the live page shows
/// these very cells).
pub fn costs_table(k: &rollsim_core::balance::costs::Costs) -> Table {
    let mut t = Table::new([
        ("unit", Align::Left),
        (k.count.as_str(), Align::Right),
        ("ties the reference at", Align::Right),
        ("cost now", Align::Right),
        ("suggested cost", Align::Right),
        ("at equal points, before", Align::Right),
        ("after", Align::Right),
    ]);
    for r in &k.rows {
        let suggested = match (r.suggested, r.interval) {
            (Some(c), _) if r.at_least => format!("at least {} (one already wins)", num(c)),
            (Some(c), Some((lo, hi))) => format!("{} ({} to {})", num(c), num(lo), num(hi)),
            (Some(c), None) => num(c),
            (None, _) => format!("not within the range of `{}`", k.count),
        };
        t.row([
            r.name.clone(),
            r.count.to_string(),
            r.even_count.map_or("-".into(), |x| format!("{x:.2}")),
            r.current.map_or("-".into(), |c| c.to_string()),
            suggested,
            opt_pct(r.field_before),
            opt_pct(r.field_after),
        ]);
    }
    t
}

/// A roster's prices: each unit's count that ties the reference, its suggested cost,
/// and how fair the matrix is at equal points before and after.
pub fn costs(k: &rollsim_core::balance::costs::Costs) -> String {
    let mut s = String::new();
    let reference = k
        .rows
        .iter()
        .find(|r| r.id == k.reference)
        .map_or(k.reference.clone(), |r| r.name.clone());
    let _ = writeln!(
        s,
        "#### Point costs\n\nEach unit's `{}` was stepped until it ties {reference} (both seats, 50%); it is then worth the cost of {reference} ({}) times its {} over that count.\n",
        k.count,
        num(k.reference_cost),
        k.count
    );
    s.push_str(&costs_table(k).render());
    let _ = writeln!(
        s,
        "\nAt equal points every unit fields what the cost of {reference} buys at its price. Largest |win rate - 50%| over the pairs: {} with the costs now, {} with the suggested ones.\n",
        k.worst_before.map_or("- (not every unit has a cost)".into(), |w| format!("{:.2} points", w * 100.0)),
        k.worst_after.map_or("-".into(), |w| format!("{:.2} points", w * 100.0))
    );
    s
}

/// A cost: whole when it is one, else to one decimal.
fn num(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else {
        format!("{x:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups() {
        assert_eq!(thousands(10_000_000), "10,000,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
    }
}
