//! A computation the page waits for: run on a blocking thread, answered as lines of JSON
//! (`{"progress":0.4}` four times a second, then `{"result":...}` or `{"error":...}`).
//! The lines are also how a dropped request is noticed: when the page moves a control
//! again it aborts the old request, the next line cannot be written, the stream is
//! dropped, and the computation's token is cancelled, so the old Monte Carlo stops.

use super::App;
use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use rollsim_core::sim::{Progress, Reporter};
use rollsim_core::Cancel;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How far a computation is, across every scenario it runs; stops it when the process
/// is stopping.
pub struct Meter {
    done: AtomicU64,
    total: AtomicU64,
    cancel: Cancel,
    process: Cancel,
}

impl Meter {
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    fn fraction(&self) -> f64 {
        let t = self.total.load(Ordering::Relaxed);
        if t == 0 {
            0.0
        } else {
            (self.done.load(Ordering::Relaxed) as f64 / t as f64).min(1.0)
        }
    }
}

struct Scenario<'a> {
    meter: &'a Meter,
    total: AtomicU64,
}

impl Progress for Scenario<'_> {
    fn set_total(&self, total: u64) {
        let before = self.total.swap(total, Ordering::Relaxed);
        self.meter.total.fetch_add(total, Ordering::Relaxed);
        self.meter.total.fetch_sub(before, Ordering::Relaxed);
    }

    fn advance(&self, trials: u64) {
        self.meter.done.fetch_add(trials, Ordering::Relaxed);
        if self.meter.process.is_cancelled() {
            self.meter.cancel.cancel();
        }
    }
}

impl Reporter for Meter {
    fn scenario(&self, _label: &str) -> Box<dyn Progress + '_> {
        Box::new(Scenario {
            meter: self,
            total: AtomicU64::new(0),
        })
    }
}

/// Cancels the computation when what waits for it (a response stream, a handler the
/// page walked away from) is dropped, answered or abandoned.
pub struct Abandon(pub Cancel);

impl Drop for Abandon {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Answer with `work`'s progress and then its result, as lines of JSON.
pub fn lines<F>(app: Arc<App>, work: F) -> Response
where
    F: FnOnce(&Meter) -> Result<Value, String> + Send + 'static,
{
    let meter = Arc::new(Meter {
        done: AtomicU64::new(0),
        total: AtomicU64::new(0),
        cancel: app.token(),
        process: app.cancel.clone(),
    });
    let (tx, rx) = tokio::sync::oneshot::channel::<Result<Value, String>>();
    let m = meter.clone();
    let start = async move {
        // One turn of the turnstile for the whole computation, held by the worker.
        let Ok(permit) = app.turns.clone().acquire_owned().await else {
            return;
        };
        if m.cancel.is_cancelled() {
            return;
        }
        let done = tokio::task::spawn_blocking(move || {
            let r = work(&m);
            drop(permit);
            r
        })
        .await;
        let r = done.unwrap_or_else(|e| Err(format!("internal error: {e}")));
        let _ = tx.send(r);
    };
    tokio::spawn(start);
    struct State {
        rx: Option<tokio::sync::oneshot::Receiver<Result<Value, String>>>,
        meter: Arc<Meter>,
        _abandon: Abandon,
    }
    let state = State {
        rx: Some(rx),
        _abandon: Abandon(meter.cancel.clone()),
        meter,
    };
    let stream = futures_util::stream::unfold(state, |mut st| async move {
        let rx = st.rx.as_mut()?;
        // At Ctrl-C the last line says so at once: the computation stops at its next
        // step, but may take longer to unwind than the server waits for open answers.
        let waited = tokio::select! {
            biased;
            r = tokio::time::timeout(Duration::from_millis(250), rx) => Some(r),
            _ = super::stopped(&st.meter.process) => None,
        };
        let Some(waited) = waited else {
            st.rx = None;
            let line = json!({ "error": "the server is stopping" });
            return Some((Ok(format!("{line}\n")), st));
        };
        let line = match waited {
            Err(_) => json!({ "progress": st.meter.fraction() }),
            Ok(Ok(Ok(v))) => {
                st.rx = None;
                json!({ "result": v })
            }
            Ok(Ok(Err(e))) => {
                st.rx = None;
                json!({ "error": e })
            }
            Ok(Err(_)) => {
                st.rx = None;
                json!({ "error": "the computation stopped" })
            }
        };
        Some((Ok::<_, std::convert::Infallible>(format!("{line}\n")), st))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}
