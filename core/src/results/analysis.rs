//! The results the balance commands compute and the report draws: measured cells,
//! matchup matrices, sweeps, sensitivity rows, equalizer candidates. They live with the
//! result model, so that the reports never need `balance`.

/// One measured number: Monte Carlo with its 95% CI, and the exact value if known. In
/// exact-only mode the estimate is the exact value and the interval has no width.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    /// The Monte Carlo value (a probability or a mean).
    pub estimate: f64,
    /// Its 95% confidence interval, (low, high).
    pub ci: (f64, f64),
    /// The exact value, where the rules module computes one.
    pub exact: Option<f64>,
    /// Monte Carlo trials behind the estimate (0 in exact-only mode): under a precision
    /// target each cell runs as many as its own value needs.
    pub trials: u64,
}

/// A cell that could not be computed (a melee weapon at distance 4) keeps its reason, so
/// one impossible pair leaves one blank cell instead of failing the whole table.
pub type Slot = Result<Cell, String>;

/// One side of a matrix: the scenario key (`attacker`) and the table it names (`units`).
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The scenario key this side is (`attacker`).
    pub key: String,
    /// The table its entries come from (`units`).
    pub table: String,
    /// (id, display name) of each entry along the axis.
    pub entries: Vec<(String, String)>,
}

/// A matrix cell: the value and, under `--response best`, the response the defender chose.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MatrixCell {
    /// The measured value, or why the pair could not be computed.
    pub value: Slot,
    /// The defender's chosen response; `None` when the defender does not choose.
    pub response: Option<String>,
}

/// A matchup matrix: rows the attacker side, columns the defender side.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// The config's file stem.
    pub config: String,
    /// The scenario (or group member) it was computed for.
    pub scenario: String,
    /// The scenario's description (the designer's words, then the generated ones): a
    /// chart's title leads with the designer's.
    pub description: String,
    /// What each cell is, e.g. "P(slammer wins)".
    pub what: String,
    /// Whether cells are probabilities (else means).
    pub probability: bool,
    /// The attacker side, one row per entry.
    pub rows: Axis,
    /// The defender side, one column per entry.
    pub cols: Axis,
    /// `cells[r][c]`: row entry `r` against column entry `c`.
    pub cells: Vec<Vec<MatrixCell>>,
    /// "the defender's best response (response)" when the defender chose per cell.
    pub response: Option<String>,
    /// Trials per pair (`None`: exact); under `precision`, the most any pair may run.
    pub trials: Option<u64>,
    /// Each pair ran until its 95% CI half-width was at most this.
    pub precision: Option<f64>,
    /// The seed every pair was run with.
    pub seed: u64,
}

impl Matrix {
    /// How the pairs were measured, for the title and the Markdown.
    pub fn how(&self) -> String {
        match (self.trials, self.precision) {
            (Some(n), Some(eps)) => format!(
                "Monte Carlo, each pair until its 95% CI is within ±{} points (at most {} trials), seed {}",
                crate::text::fixed(eps * 100.0, 1),
                crate::text::thousands(n),
                self.seed
            ),
            _ => how(self.trials, self.seed, "per pair"),
        }
    }

    /// A file-name stem for this matrix.
    pub fn stem(&self) -> String {
        format!(
            "matrix-{}{}",
            self.scenario,
            if self.response.is_some() { "-best" } else { "" }
        )
    }
}

/// A swept key and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepKey {
    /// As written on the command line, e.g. `attacker.strength`.
    pub key: String,
    /// The key in a reader's words (`Orc's strength (attacker)`), for a chart's axis.
    pub label: String,
    /// The values it takes, in order.
    pub values: Vec<i64>,
}

/// One line of a sweep (one member of a group, or the scenario itself).
#[derive(Clone, Debug)]
pub struct SweepSeries {
    /// The member's name (or the scenario's).
    pub label: String,
    /// `cells[i][j]`: the i-th value of the first key and the j-th of the second (one
    /// column without a second key).
    pub cells: Vec<Vec<Slot>>,
}

/// `rollsim sweep`'s result: what is measured as one or two keys step through a range.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The scenario or group name.
    pub scenario: String,
    /// The (first member's) description: a chart's title leads with the designer's words.
    pub description: String,
    /// What each cell is, e.g. "P(slammer wins)".
    pub what: String,
    /// Whether cells are probabilities (else means).
    pub probability: bool,
    /// One or two swept keys: the first along the x axis, the second across columns.
    pub keys: Vec<SweepKey>,
    /// One line per member of the group (one for a lone scenario).
    pub series: Vec<SweepSeries>,
    /// Trials per cell (`None`: exact).
    pub trials: Option<u64>,
    /// The seed every cell was run with.
    pub seed: u64,
}

/// One change and its effect on one quantity.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SensitivityRow {
    /// The scenario or group member.
    pub scenario: String,
    /// The step, e.g. "attacker Orc: strength 3+ -> 2+".
    pub change: String,
    /// The role key of the side it favours (`attacker`).
    pub side: String,
    /// What is measured, e.g. "P(slammer wins)" or "expected hits".
    pub quantity: String,
    /// Whether the quantity is a probability (else a mean).
    pub probability: bool,
    /// The value before the change.
    pub base: f64,
    /// The value after it.
    pub changed: f64,
    /// `changed - base`.
    pub delta: f64,
}

/// One tried change and where it puts the measured value.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The change in words, e.g. "attacker Orc: strength 3+ -> 2+".
    pub change: String,
    /// Steps taken (1 = one die or one stat step; a pair counts both).
    pub size: i64,
    /// What is measured after the change.
    pub value: f64,
}

/// The equalizer's answer for one scenario or member.
#[derive(Clone, Debug)]
pub struct Equalized {
    /// The scenario or group member.
    pub scenario: String,
    /// What is measured, e.g. "P(slammer wins)".
    pub what: String,
    /// Whether it is a probability (else a mean).
    pub probability: bool,
    /// The value sought: `--target`, or 0.5 for a probability.
    pub target: f64,
    /// The value before any change.
    pub now: f64,
    /// `now` is the target within its precision (exact: to the last digits; Monte
    /// Carlo: inside its 95% interval): no change is needed.
    pub even: bool,
    /// Sorted best first: closest to the target, then smallest.
    pub candidates: Vec<Candidate>,
    /// Why the target is not what the command line gave, where it is not (a matchup
    /// that can end in a draw is even when wins equal losses).
    pub note: Option<String>,
}

/// How a balance result was measured, for titles and table headers.
pub fn how(trials: Option<u64>, seed: u64, per: &str) -> String {
    match trials {
        Some(n) => format!(
            "Monte Carlo, {} trials {per}, seed {seed}",
            crate::text::thousands(n)
        ),
        None => "exact".into(),
    }
}
