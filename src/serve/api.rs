//! The page's JSON requests. Each carries the page's whole state: the config's file name,
//! the scenario (or group) and the `--set`s its controls made, in order. A request is
//! answered from that state alone, exactly as `rollsim run CONFIG -s SCENARIO --set ...`
//! would compute it.

use super::files::FileError;
use super::memory::Ticket;
use super::stream::{self, Meter};
use super::App;
use crate::error::AppError;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use rollsim_core::balance::controls::{self, Control};
use rollsim_core::balance::{self, compare, roster, sensitivity, Job, Pick, Source, Target};
use rollsim_core::model::Compiled;
use rollsim_core::results::{self, ScenarioResult};
use rollsim_core::run::{self, Hooks};
use rollsim_core::sim::Budget;
use rollsim_core::{document, Cancel};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

/// Most `--set`s one state may carry, and the longest one.
const MAX_SETS: usize = 256;
const MAX_SET: usize = 1024;
/// Longest dice expression the box takes: the language's own limit.
const MAX_EXPR: usize = rollsim_core::systems::MAX_EXPRESSION_CHARS;
/// Monte Carlo on the page: to the CLI's default precision, at most the CLI's default
/// trials (the page shows how far it is, and the next move of a control stops it).
const PAGE_PRECISION: f64 = 0.001;
/// A view lists at most this many scenarios and groups (a config may have 100,000):
/// the rest are counted, and `rollsim list` prints them all.
const MAX_LISTED: usize = 500;
/// A group's members the page shows and simulates, at most (the balance views take
/// every member).
const MAX_MEMBERS: usize = 100;
/// Trials per cell of a balance view for scenarios without an exact distribution.
const BALANCE_TRIALS: u64 = 20_000;

/// An answer the page shows as an error: `{"error": "..."}` with a 4xx/5xx status.
pub fn refuse(status: StatusCode, message: &str) -> Response {
    Refusal::new(status, message).into_response()
}

/// A request refused, before it becomes a response: small enough to pass in a `Result`.
pub struct Refusal {
    status: StatusCode,
    body: Value,
}

impl Refusal {
    fn new(status: StatusCode, message: &str) -> Refusal {
        Refusal {
            status,
            body: json!({ "error": message }),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

impl From<AppError> for Refusal {
    fn from(e: AppError) -> Refusal {
        let status = if e.is_interrupted() {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::BAD_REQUEST
        };
        Refusal::new(status, &e.to_string())
    }
}

impl From<rollsim_core::Error> for Refusal {
    fn from(e: rollsim_core::Error) -> Refusal {
        AppError::from(e).into()
    }
}

fn file_error(e: FileError) -> Refusal {
    match e {
        FileError::BadName(m) => Refusal::new(StatusCode::BAD_REQUEST, &m),
        FileError::Missing(m) => Refusal::new(StatusCode::NOT_FOUND, &m),
        FileError::Exists(m) => Refusal::new(StatusCode::CONFLICT, &m),
        FileError::Unreadable(m) => Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, &m),
        FileError::Io(m) => Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, &m),
    }
}

/// A JSON body, or the reason it is not one (400, 413 for one over the cap, 415).
fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, Refusal> {
    b.map(|Json(t)| t).map_err(|e| {
        let status = e.status();
        let status = if status == StatusCode::UNPROCESSABLE_ENTITY {
            StatusCode::BAD_REQUEST
        } else {
            status
        };
        Refusal::new(status, &format!("malformed request: {}", e.body_text()))
    })
}

/// Where the page is: a config, a scenario or group (None: the first), the changes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct At {
    pub file: String,
    #[serde(default)]
    pub scenario: Option<String>,
    #[serde(default)]
    pub sets: Vec<String>,
}

/// The config as the page's state has it, and the scenario or group it shows; its
/// checks stop at `cancel` (the request's, or the process's).
fn load(app: &App, at: &At, cancel: &Cancel) -> Result<(Source, Target), Refusal> {
    if at.sets.len() > MAX_SETS || at.sets.iter().any(|s| s.len() > MAX_SET) {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            &format!("at most {MAX_SETS} changes of at most {MAX_SET} characters each"),
        ));
    }
    if at.sets.iter().any(|s| s.chars().any(char::is_control)) {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            "a change holds a control character (a line break, a tab): refused",
        ));
    }
    let text = app.files.read(&at.file).map_err(file_error)?;
    let source = Source::parse_until(&text, Path::new(&at.file), &at.sets, cancel)?;
    let name = match &at.scenario {
        Some(s) => s.clone(),
        None => source
            .base
            .scenario_names()
            .into_iter()
            .next()
            .ok_or_else(|| Refusal::new(StatusCode::BAD_REQUEST, "the config has no scenarios"))?,
    };
    let target = source.target(&name)?;
    Ok((source, target))
}

/// [`load`] on a blocking thread: a config of megabytes with hundreds of changes must not
/// hold the threads that send progress lines and notice Ctrl-C.
async fn load_off(app: &Arc<App>, at: At) -> Result<(Source, Target), Refusal> {
    let a = app.clone();
    off_thread(app, move || load(&a, &at, &a.cancel)).await?
}

/// `work` on a blocking thread, or 503 "the server is stopping" as soon as Ctrl-C
/// comes. The work sees the stop at its next step, but unwinding what it built can take
/// longer than the server waits for open answers (a long chain's cached rounds in big
/// integers took 0.15 s to free): the page is answered now, the work ends on its own.
pub(super) async fn off_thread<T, F>(app: &App, work: F) -> Result<T, Refusal>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let done = tokio::task::spawn_blocking(work);
    tokio::select! {
        biased;
        r = done => r.map_err(|e| {
            Refusal::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("internal error: {e}"),
            )
        }),
        _ = super::stopped(&app.cancel) => Err(stopping()),
    }
}

/// The answer to a request the server's Ctrl-C cut short.
fn stopping() -> Refusal {
    Refusal::new(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping")
}

/// A request over config `file` waits here until its memory fits in the server's
/// budget ([`super::memory`]); the ticket is held until the request's work ends.
async fn admit(app: &App, file: &str) -> Result<Ticket, Refusal> {
    let len = app.files.len(file).map_err(file_error)?;
    app.memory.admit(len).await.ok_or_else(stopping)
}

/// Short work (an exact pass, a file): on a blocking thread, a few at a time.
/// The work gets a token that is cancelled when the page stops waiting (the handler is
/// dropped) or the server stops; the turn is the worker's until it ends, so a request
/// walked away from still counts until its computation has seen the token.
async fn blocking<F>(app: Arc<App>, work: F) -> Response
where
    F: FnOnce(&App, &Cancel) -> Response + Send + 'static,
{
    let Ok(turn) = app.turns.clone().acquire_owned().await else {
        return stopping().into_response();
    };
    let cancel = app.token();
    let _abandon = stream::Abandon(cancel.clone());
    let a = app.clone();
    off_thread(&app, move || {
        let r = work(&a, &cancel);
        drop(turn);
        r
    })
    .await
    .unwrap_or_else(IntoResponse::into_response)
}

/// `GET /api/configs`: the configs the page offers, with their titles (or why one
/// does not load).
///
/// Not in the computations' turnstile: it waits for memory inside, and a request that
/// waits for memory must never hold a turn that a request holding memory waits for.
pub async fn configs(State(app): State<Arc<App>>) -> Response {
    let a = app.clone();
    off_thread(&app, move || {
        let (list, left_out) = a.listing.entries(&a.files, &a.memory, &a.cancel);
        Json(json!({ "configs": list, "left_out": left_out })).into_response()
    })
    .await
    .unwrap_or_else(IntoResponse::into_response)
}

/// One scenario's exact results as the page shows them: the report's own numbers, with
/// the fractions they are where the denominator is small.
#[derive(Serialize)]
struct Exact {
    #[serde(flatten)]
    result: ScenarioResult,
    /// Per metric, per value: `"227/1296"` or null.
    fractions: Vec<Vec<Option<String>>>,
    headline_fraction: Option<String>,
    /// What a limit cut (an explosion's depth, a `repeat`'s rounds) and how much, in
    /// the command line's words, or null.
    capped: Option<String>,
}

fn exact(c: &Compiled, seed: u64, file: &str, system: &str) -> Option<Exact> {
    c.exact.as_ref()?;
    let result = results::summarize_exact(c, seed, file, system);
    // The tables' own fractions (`exact_fraction`): a metric's, when every value of it
    // is one and together they make 1, so the page never shows one the tables do not.
    let fractions = result
        .metrics
        .iter()
        .map(|m| {
            m.rows
                .iter()
                .map(|r| r.exact_fraction.as_ref().map(|f| f.to_string()))
                .collect()
        })
        .collect();
    let headline_fraction = result
        .headline
        .exact_fraction
        .as_ref()
        .map(|f| f.to_string());
    let capped = result.capped_said();
    Some(Exact {
        result,
        fractions,
        headline_fraction,
        capped,
    })
}

/// The shell command that prints the same numbers: exact where every member is, else
/// the page's own Monte Carlo (the CLI's default precision, at most its default trials,
/// the same seed).
fn command(config: &str, at: &At, target: &Target, all_exact: bool) -> String {
    let options = if all_exact {
        " --exact-only".to_string()
    } else {
        format!(
            " --precision {PAGE_PRECISION} --max-trials {}",
            run::DEFAULT_TRIALS
        )
    };
    command_of("run", config, &target.name, &options, &at.sets)
}

/// `rollsim VERB CONFIG -s TARGET` + `options` + the `--set`s, each word quoted for a shell.
fn command_of(verb: &str, config: &str, target: &str, options: &str, sets: &[String]) -> String {
    let mut c = format!(
        "rollsim {verb} {} -s {}{options}",
        shell_word(config),
        shell_word(target)
    );
    for s in sets {
        c.push_str(" --set ");
        c.push_str(&shell_word(s));
    }
    c
}

/// The command that prints a balance view's table: `compare` (the matrix), `sensitivity`
/// or `roster` (with `--count`), exact or at the view's trials per cell (the seed is the
/// config's or the CLI's default, as the view's).
fn balance_command(
    config: &str,
    target: &Target,
    r: &BalanceRequest,
    trials: Option<u64>,
) -> String {
    let verb = match r.view {
        BalanceView::Matrix => "compare",
        BalanceView::Sensitivity => "sensitivity",
        BalanceView::Roster => "roster",
    };
    let mut options = match trials {
        None => " --exact-only".to_string(),
        Some(n) => format!(" -n {n}"),
    };
    if let (BalanceView::Roster, Some(stat)) = (r.view, &r.count) {
        options.push_str(&format!(" --count {}", shell_word(stat)));
    }
    command_of(verb, config, &target.name, &options, &r.at.sets)
}

fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.=@+/:,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `POST /api/view`: the controls of the state's scenario and its exact results.
pub async fn view(State(app): State<Arc<App>>, b: Result<Json<At>, JsonRejection>) -> Response {
    let at = match body(b) {
        Ok(at) => at,
        Err(r) => return r.into_response(),
    };
    let ticket = match admit(&app, &at.file).await {
        Ok(t) => t,
        Err(r) => return r.into_response(),
    };
    blocking(app, move |app, cancel| {
        let answer = match load(app, &at, cancel) {
            Ok((source, target)) => {
                match view_of(&source, &target, &at, &app.files.shown(&at.file), cancel) {
                    Ok(v) => Json(v).into_response(),
                    Err(e) => Refusal::from(e).into_response(),
                }
            }
            Err(r) => r.into_response(),
        };
        // The config is dropped by now: the ticket gives its memory back.
        drop(ticket);
        answer
    })
    .await
}

fn view_of(
    source: &Source,
    target: &Target,
    at: &At,
    shown: &str,
    cancel: &Cancel,
) -> Result<Value, rollsim_core::Error> {
    let (seed, _) = balance::budget(source, None, None, true);
    let system = source.base.system_name();
    let controls: Vec<Control> = controls::controls(source, target)?;
    let mut members = Vec::new();
    let mut all_exact = true;
    for m in target.members.iter().take(MAX_MEMBERS) {
        let c = balance::compile(&source.base, m, cancel)?;
        all_exact &= c.exact.is_some();
        members.push(json!({
            "name": c.name,
            "description": c.description,
            "exact": exact(&c, seed, &at.file, system),
        }));
    }
    let infos = source.base.scenarios();
    let mut groups: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for i in infos.iter().filter(|i| i.member) {
        if seen.insert(i.table.as_str()) {
            groups.push(&i.table);
        }
    }
    // The lists summarised: the first [`MAX_LISTED`] of each, and the one shown.
    let listed = |name: &str, i: usize| i < MAX_LISTED || name == target.name;
    let scenarios: Vec<Value> = infos
        .iter()
        .enumerate()
        .filter(|(n, i)| listed(&i.name, *n))
        .map(|(_, i)| json!({"name": i.name, "table": i.table, "member": i.member}))
        .collect();
    let shown_groups: Vec<&str> = groups
        .iter()
        .enumerate()
        .filter(|(n, g)| listed(g, *n))
        .map(|(_, g)| *g)
        .collect();
    Ok(json!({
        "file": at.file,
        "title": source.base.title,
        "system": system,
        "scenarios": scenarios,
        "scenarios_total": infos.len(),
        "groups": shown_groups,
        "groups_total": groups.len(),
        "members_total": target.members.len(),
        "target": { "name": target.name, "table": target.table, "group": target.group, "members": target.members },
        "controls": controls,
        "members": members,
        "command": command(shown, at, target, all_exact),
    }))
}

/// `POST /api/simulate`: Monte Carlo for the scenarios of the state (or the dice box's
/// expression) that have no exact distribution, as a stream of progress lines.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulateRequest {
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub scenario: Option<String>,
    #[serde(default)]
    pub sets: Vec<String>,
    /// The dice box's expression instead of a config.
    #[serde(default)]
    pub expr: Option<String>,
}

pub async fn simulate(
    State(app): State<Arc<App>>,
    b: Result<Json<SimulateRequest>, JsonRejection>,
) -> Response {
    let r = match body(b) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    // Refuse what cannot load before streaming, so a bad state is a 4xx.
    let mut ticket = None;
    let (source, target) = match (&r.expr, &r.file) {
        (Some(expr), None) => {
            // Off the server's two threads (the check can take seconds: how far a
            // rolled dice count reaches), and stopped when the page walks away.
            let cancel = app.token();
            let _abandon = stream::Abandon(cancel.clone());
            let expr = expr.clone();
            match off_thread(&app, move || one_liner(&expr, &cancel)).await {
                Ok(Ok(s)) => s,
                Ok(Err(e)) | Err(e) => return e.into_response(),
            }
        }
        (None, Some(file)) => {
            let at = At {
                file: file.clone(),
                scenario: r.scenario.clone(),
                sets: r.sets.clone(),
            };
            match admit(&app, file).await {
                Ok(t) => ticket = Some(t),
                Err(e) => return e.into_response(),
            }
            match load_off(&app, at).await {
                Ok(x) => x,
                Err(e) => return e.into_response(),
            }
        }
        _ => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "malformed request: give either `file` (with `scenario` and `sets`) or `expr`",
            )
        }
    };
    let file = r.file.clone().unwrap_or_else(|| "rollsim roll".into());
    stream::lines(app.clone(), move |meter: &Meter| {
        let ctx = Hooks::new(meter.cancel(), meter);
        let (seed, _) = balance::budget(&source, None, None, true);
        let system = source.base.system_name();
        let mut out = Vec::new();
        for m in target.members.iter().take(MAX_MEMBERS) {
            let c = balance::compile(&source.base, m, meter.cancel()).map_err(|e| e.to_string())?;
            if c.exact.is_some() {
                continue;
            }
            let h = run::simulate(
                &c,
                seed,
                Budget::Precision {
                    eps: PAGE_PRECISION,
                    max_trials: run::DEFAULT_TRIALS,
                },
                ctx,
            )
            .map_err(|e| e.to_string())?;
            out.push(results::summarize(&c, &h, seed, &file, system));
        }
        drop((source, target));
        drop(ticket);
        serde_json::to_value(out).map_err(|e| e.to_string())
    })
}

/// The dice box's expression as a one-scenario config, or its error at its column; its
/// checks stop at `cancel`.
fn one_liner(expr: &str, cancel: &Cancel) -> Result<(Source, Target), Refusal> {
    if expr.chars().count() > MAX_EXPR {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            &format!("the expression is longer than {MAX_EXPR} characters"),
        ));
    }
    // A check cut short is no verdict on the expression.
    let checked = rollsim_core::systems::REGISTRY
        .iter()
        .find_map(|s| s.check_expression(expr, cancel));
    if cancel.is_cancelled() {
        return Err(stopping());
    }
    if let Some(Err(e)) = checked {
        return Err(Refusal {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            body: json!({ "error": e.message, "column": e.column }),
        });
    }
    // Checked above: the config's text alone, not a second check.
    let text = rollsim_core::systems::REGISTRY
        .iter()
        .find_map(|s| s.config_text(expr, None))
        .ok_or_else(|| {
            Refusal::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "no system reads expressions",
            )
        })?;
    let source = Source::parse_until(&text, Path::new("rollsim roll"), &[], cancel).map_err(
        |e| match cancel.is_cancelled() {
            true => stopping(),
            false => Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, &e.to_string()),
        },
    )?;
    let target = source.target("roll")?;
    Ok((source, target))
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RollRequest {
    pub expr: String,
}

/// `POST /api/roll`: the dice box. Its exact distribution, or `exact: null` (the page
/// then asks `/api/simulate`), or the error with its column (422).
pub async fn roll(
    State(app): State<Arc<App>>,
    b: Result<Json<RollRequest>, JsonRejection>,
) -> Response {
    let r = match body(b) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    blocking(app, move |_, cancel| {
        let (source, _) = match one_liner(&r.expr, cancel) {
            Ok(x) => x,
            Err(e) => return e.into_response(),
        };
        let c = match balance::compile(&source.base, "roll", cancel) {
            Ok(c) => c,
            Err(e) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, &e.to_string()),
        };
        Json(json!({
            "expr": r.expr,
            "exact": exact(&c, run::DEFAULT_SEED, "rollsim roll", source.base.system_name()),
        }))
        .into_response()
    })
    .await
}

/// Which balance view.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum BalanceView {
    Matrix,
    Sensitivity,
    Roster,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalanceRequest {
    #[serde(flatten)]
    pub at: AtFields,
    pub view: BalanceView,
    /// For the roster: price the units on this count stat (`models`).
    #[serde(default)]
    pub count: Option<String>,
}

/// [`At`]'s fields, for requests that carry more (serde cannot deny unknown fields
/// through a flatten, so the outer struct does).
#[derive(Clone, Debug, Deserialize)]
pub struct AtFields {
    pub file: String,
    #[serde(default)]
    pub scenario: Option<String>,
    #[serde(default)]
    pub sets: Vec<String>,
}

impl AtFields {
    fn at(&self) -> At {
        At {
            file: self.file.clone(),
            scenario: self.scenario.clone(),
            sets: self.sets.clone(),
        }
    }
}

/// `POST /api/balance`: the matchup matrix, sensitivity or the roster on the state's
/// scenario, streamed like a simulation (exact where every member has an exact
/// distribution, else Monte Carlo at a fixed count per cell).
pub async fn balance(
    State(app): State<Arc<App>>,
    b: Result<Json<BalanceRequest>, JsonRejection>,
) -> Response {
    let r = match body(b) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let at = r.at.at();
    let ticket = match admit(&app, &at.file).await {
        Ok(t) => t,
        Err(e) => return e.into_response(),
    };
    let (source, target) = match load_off(&app, at).await {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let shown = app.files.shown(&r.at.file);
    stream::lines(app.clone(), move |meter: &Meter| {
        let v = balance_view(&source, &target, &r, &shown, meter).map_err(|e| e.to_string());
        drop((source, target));
        drop(ticket);
        v
    })
}

fn balance_view(
    source: &Source,
    target: &Target,
    r: &BalanceRequest,
    shown: &str,
    meter: &Meter,
) -> Result<Value, AppError> {
    let cancel = meter.cancel();
    let all_exact = target.members.iter().try_fold(true, |all, m| {
        Ok::<_, rollsim_core::Error>(
            all && balance::compile(&source.base, m, cancel)?.exact.is_some(),
        )
    })?;
    let (seed, _) = balance::budget(source, None, None, true);
    let trials = (!all_exact).then_some(BALANCE_TRIALS);
    let pick = Pick::Headline;
    let job = Job {
        source,
        target,
        pick: &pick,
        seed,
        trials,
        ctx: Hooks::new(cancel, meter),
        share: &balance::Share::All,
    };
    let how = match trials {
        None => "exact".to_string(),
        Some(n) => format!("Monte Carlo, {n} trials per cell"),
    };
    let mut v = match r.view {
        BalanceView::Matrix => {
            let ms = compare::matrices(&job, (&[], &[]), false)?;
            json!({ "view": "matrix", "how": how, "matrices": ms.iter().map(matrix_json).collect::<Result<Vec<_>, _>>()? })
        }
        BalanceView::Sensitivity => {
            let s = sensitivity::rows(&job)?;
            if s.rows.is_empty() && s.refused.is_empty() {
                return Err(AppError::BadOption(
                    rollsim_core::balance::nothing_to_change("sensitivity", &target.name),
                ));
            }
            // The CSV's rows, made by the same frame, each told whether its quantity is
            // a probability (shown in points) or a mean.
            let mut rows = crate::report::frame::sensitivity(&s.rows)?.records()?;
            for (row, x) in rows.iter_mut().zip(&s.rows) {
                row.insert("probability".into(), json!(x.probability));
            }
            json!({
                "view": "sensitivity",
                "how": how,
                "rows": rows,
                "refused": s.refused.iter().map(|(c, why)| json!({"change": c, "why": why})).collect::<Vec<_>>(),
            })
        }
        BalanceView::Roster => {
            let (ro, priced) =
                roster::priced(&job, &[], false, r.count.as_deref().map(|c| (c, None)))?;
            let mut units = crate::report::frame::roster(&ro)?.records()?;
            // The CSV's rows of the prices, made by the same frame.
            let prices = match &priced {
                Some(k) => crate::report::frame::costs(k)?.records()?,
                None => Vec::new(),
            };
            // The cells of `rollsim roster`'s tables, made by the same functions: the
            // page shows what the command line prints, column for column.
            let table =
                |t: crate::report::markdown::Table| json!({ "head": t.head(), "rows": t.rows() });
            json!({
                "view": "roster",
                "how": how,
                "counts": rollsim_core::balance::costs::countable(
                    &job,
                    &ro.matrix.rows.entries,
                    &ro.matrix.scenario,
                ),
                "value": ro.value,
                "cyclic": ro.cyclic,
                "exact": ro.exact,
                "matrix": matrix_json(&ro.matrix)?,
                // Strongest first, as the table's rows; each the CSV's row, made by the
                // same frame.
                "units": ro.by_strength().iter().map(|&i| std::mem::take(&mut units[i])).collect::<Vec<_>>(),
                "table": table(crate::report::markdown::roster_table(&ro)),
                "costs": priced.map(|k| json!({
                    "table": table(crate::report::markdown::costs_table(&k)),
                    "count": k.count,
                    "reference": k.reference, "reference_cost": k.reference_cost,
                    "rows": prices,
                    "worst_before": k.worst_before,
                    "worst_after": k.worst_after,
                })),
            })
        }
    };
    v["command"] = json!(balance_command(shown, target, r, trials));
    Ok(v)
}

/// A matrix as the page draws it, its cells read from the matrix's long table as the
/// command line's CSVs, Markdown and heatmap are.
fn matrix_json(m: &rollsim_core::results::analysis::Matrix) -> Result<Value, AppError> {
    use crate::report::frame;
    let c = frame::matrix_tables(m)?.cells;
    let cells = (0..m.rows.entries.len())
        .map(|i| {
            (0..m.cols.entries.len())
                .map(|j| match (&c.note[i][j], c.value[i][j]) {
                    (None, Some(v)) => json!({
                        "estimate": v,
                        "exact": c.exact[i][j],
                        "ci": [c.ci_low[i][j].unwrap_or(v), c.ci_high[i][j].unwrap_or(v)],
                        "response": c.response[i][j],
                    }),
                    (e, _) => json!({ "error": e.as_deref().unwrap_or("no value") }),
                })
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>();
    Ok(json!({
        "scenario": m.scenario,
        "what": m.what,
        "probability": m.probability,
        "how": m.how(),
        "rows": { "key": m.rows.key, "entries": m.rows.entries },
        "cols": { "key": m.cols.key, "entries": m.cols.entries },
        "cells": cells,
    }))
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    #[serde(flatten)]
    pub at: AtFields,
    /// The new file's name, beside the original.
    pub name: String,
    /// Replace a file of that name (the page asks first).
    #[serde(default)]
    pub replace: bool,
}

/// `POST /api/save`: the config with the page's changes, as a new file beside it.
pub async fn save(
    State(app): State<Arc<App>>,
    b: Result<Json<SaveRequest>, JsonRejection>,
) -> Response {
    let r = match body(b) {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    let ticket = match admit(&app, &r.at.file).await {
        Ok(t) => t,
        Err(e) => return e.into_response(),
    };
    blocking(app, move |app, cancel| {
        let _ticket = ticket;
        let at = r.at.at();
        let (source, _) = match load(app, &at, cancel) {
            Ok(x) => x,
            Err(e) => return e.into_response(),
        };
        let body = match toml::to_string(&source.table) {
            Ok(t) => t,
            Err(e) => {
                return refuse(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("writing the config: {e}"),
                )
            }
        };
        let mut text = format!(
            "# Saved by `rollsim serve` from {}, with these changes:\n",
            at.file
        );
        for s in &at.sets {
            text.push_str(&format!("#   --set {s}\n"));
        }
        text.push_str("# (the original's comments are in the original)\n\n");
        text.push_str(&body);
        // What is written must load as it was shown.
        if let Err(e) = document::load_str(&text, &r.name, &[]) {
            return refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("the saved config would not load: {e}"),
            );
        }
        match app.files.save(&r.name, &text, r.replace) {
            Ok(_) => Json(json!({
                "saved": r.name,
                "command": format!("rollsim run {}", shell_word(&app.files.shown(&r.name))),
            }))
            .into_response(),
            Err(e) => file_error(e).into_response(),
        }
    })
    .await
}
