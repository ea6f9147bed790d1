//! The Python package's native half: a rollsim command line run in-process, exactly as
//! the `rollsim` binary would run it, with the interpreter's lock released while it
//! computes. `run_cli` returns what the binary prints (and writes what it writes);
//! `tables` returns a command's tables without writing them, each an Arrow C stream
//! (the Arrow PyCapsule interface) that `pl.DataFrame` takes in one call; `held` and
//! `roll_held` keep a `run` or `roll`'s results for its tables, headline and charts.
//! The Python half (`rollsim/__init__.py`) builds the command lines, so a notebook's
//! numbers, columns and error messages are the command line's by construction.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};
use rollsim::app::AppError;
use rollsim::report::arrow;
use rollsim::report::frame::Frame;
use rollsim::tables::Chart;
use rollsim::Cancel;
use std::ffi::CString;
use std::sync::mpsc;
use std::time::Duration;

/// Every allocation of the extension goes through mimalloc, not the interpreter's
/// process-wide malloc: a short exact roll makes and drops thousands of small laws and
/// maps, and glibc's malloc, free and consolidation were about a fifth of its time
/// (Farkle's throw through `roll(...).distribution` in a fresh process, one core: 1.05 ms
/// to 0.69 ms; a 6d6 fireball against a basic save 0.28 ms to 0.22 ms). The command
/// line keeps glibc's: the live page's server trims its arenas (`serve/memory.rs`).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(target_os = "linux")]
mod signals;
/// Elsewhere every call goes to a worker, which polls for Ctrl-C.
#[cfg(not(target_os = "linux"))]
mod signals {
    pub fn armed() -> Option<rollsim::Cancel> {
        None
    }
}
mod workers;

create_exception!(
    rollsim,
    RollsimError,
    PyValueError,
    "A bad expression, config, option or output path: the command line's message."
);

/// How often a running computation looks for Ctrl-C (KeyboardInterrupt).
const POLL: Duration = Duration::from_millis(50);

/// Run `work` with the interpreter's lock released, so that Ctrl-C (KeyboardInterrupt)
/// stops it: on this thread where SIGINT itself cancels it (`signals`), else on a
/// worker while this thread looks for Ctrl-C every [`POLL`], cancels the work's token,
/// waits for it to stop and raises KeyboardInterrupt. A refusal raises `RollsimError`
/// with the command line's message (its `exit_code` is the binary's).
fn interruptible<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Cancel) -> Result<T, AppError> + Send + 'static,
{
    if let Some(cancel) = signals::armed() {
        // A Ctrl-C already pressed stops the call before it starts.
        py.check_signals()?;
        let r = py.allow_threads(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&cancel)))
        });
        // KeyboardInterrupt, when SIGINT stopped the work, before its refusal.
        py.check_signals()?;
        return match r {
            Ok(r) => refused(py, r),
            Err(_) => Err(PyRuntimeError::new_err("rollsim's computation panicked")),
        };
    }
    let cancel = Cancel::new();
    let (tx, rx) = mpsc::channel();
    // Waited on with the interpreter's lock released, from this thread only.
    let rx = std::sync::Mutex::new(rx);
    let token = cancel.clone();
    // On a worker kept between calls (`workers`). A panic is caught and said.
    workers::run(Box::new(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&token)));
        let _ = tx.send(r.map_err(|_| ()));
    }));
    let outcome = loop {
        let next = py.allow_threads(|| {
            rx.lock()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                .and_then(|rx| workers::wait(&rx, POLL))
        });
        match next {
            Ok(Ok(r)) => break Ok(Ok(r)),
            Ok(Err(())) => return Err(PyRuntimeError::new_err("rollsim's computation panicked")),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    cancel.cancel();
                    // The worker sees the token at its next check: wait for it to stop
                    // (its answer, or the channel closed) without the lock, unless
                    // Ctrl-C comes again.
                    loop {
                        let stopped = py.allow_threads(|| {
                            rx.lock()
                                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                                .and_then(|rx| workers::wait(&rx, POLL))
                        });
                        if !matches!(stopped, Err(mpsc::RecvTimeoutError::Timeout))
                            || py.check_signals().is_err()
                        {
                            break;
                        }
                    }
                    break Err(interrupt);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(Err(())),
        }
    };
    match outcome? {
        Ok(r) => refused(py, r),
        Err(()) => Err(PyRuntimeError::new_err(
            "rollsim's computation stopped without an answer",
        )),
    }
}

/// The work's answer, or its refusal as `RollsimError` with the binary's exit code.
fn refused<T>(py: Python<'_>, r: Result<T, AppError>) -> PyResult<T> {
    r.or_else(|e| {
        let err = RollsimError::new_err(format!("{e:#}"));
        err.value(py).setattr("exit_code", e.exit_code())?;
        Err(err)
    })
}

/// Run `rollsim ARGS...`; what it prints on standard output. The main job (no command)
/// writes every shipped config's reports into the working folder: from a notebook only
/// when asked by `main_job`.
#[pyfunction]
#[pyo3(signature = (args, main_job = false))]
fn run_cli(py: Python<'_>, args: Vec<String>, main_job: bool) -> PyResult<String> {
    if !main_job && rollsim::command::is_main_job(args.clone()) {
        return refused(
            py,
            Err(AppError::BadOption(
                "run_cli() without a command is the main job: it writes every shipped config's reports (about 70 MB) into ./reports/ here; `run_cli([...], main_job=True)` runs it, `run_cli([\"--help\"])` lists the commands".into(),
            )),
        );
    }
    interruptible(py, move |cancel| rollsim::command::execute(args, cancel))
}

/// The tables `rollsim ARGS...` would write (run, roll and the balance commands), not
/// written: `[(name, table)]`, made in memory by `rollsim::tables`, the same polars
/// tables the command line writes: no files, no text read back.
#[pyfunction]
fn tables(py: Python<'_>, args: Vec<String>) -> PyResult<Vec<(String, Table)>> {
    let tables = interruptible(py, move |cancel| rollsim::tables::of(args, cancel))?;
    Ok(for_python(tables))
}

/// A `run` or `roll`'s results held in Rust: its tables handed over once, its charts
/// drawn from the same numbers when asked (no second run).
#[pyclass(frozen)]
struct Held(rollsim::tables::Held);

#[pymethods]
impl Held {
    /// The tables, as `tables` gives them for the same command line.
    fn tables(&self) -> PyResult<Vec<(String, Table)>> {
        let t = self
            .0
            .tables()
            .map_err(|e| RollsimError::new_err(format!("{e:#}")))?;
        Ok(for_python(t))
    }

    /// `distribution`, `summary` or `headline` alone, as `tables` gives it; None for
    /// another name.
    fn table(&self, name: &str) -> PyResult<Option<Table>> {
        let t = self
            .0
            .table(name)
            .map_err(|e| RollsimError::new_err(format!("{e:#}")))?;
        Ok(t.map(|df| Table(Frame::from_df(df))))
    }

    /// The notes the command line prints beside the numbers (warnings, a limit's cut).
    fn notes(&self) -> Vec<String> {
        self.0.notes()
    }

    /// The first scenario's headline number (exact, else Monte Carlo; None if neither).
    fn headline(&self) -> Option<f64> {
        self.0.headline()
    }

    /// The first scenario's chart as PNG bytes: `distribution` or `at_least`.
    fn png<'py>(&self, py: Python<'py>, which: &str) -> PyResult<Bound<'py, PyBytes>> {
        let chart = match which {
            "distribution" => Chart::Distribution,
            "at_least" => Chart::AtLeast,
            other => {
                return Err(PyValueError::new_err(format!(
                    "`{other}`: a chart is `distribution` or `at_least`"
                )))
            }
        };
        let held = self.0.clone();
        let png = interruptible(py, move |_| held.png(chart))?;
        Ok(PyBytes::new(py, &png))
    }
}

/// `rollsim run ...` or `rollsim roll ...` (`args` without the program's name), held.
#[pyfunction]
fn held(py: Python<'_>, args: Vec<String>) -> PyResult<Held> {
    Ok(Held(interruptible(py, move |cancel| {
        rollsim::tables::held(args, cancel)
    })?))
}

/// `rollsim roll EXPR` with the options that change its numbers, typed, held: the
/// results of `held` for the same command line, by the lean path (no command line
/// parsed).
#[pyfunction]
#[pyo3(signature = (expr, vs=None, trials=None, seed=None, threads=None, exact_only=false, no_trial_cap=false))]
#[allow(clippy::too_many_arguments)]
fn roll_held(
    py: Python<'_>,
    expr: String,
    vs: Option<String>,
    trials: Option<u64>,
    seed: Option<u64>,
    threads: Option<usize>,
    exact_only: bool,
    no_trial_cap: bool,
) -> PyResult<Held> {
    let roll = rollsim::tables::Roll {
        expr,
        vs,
        trials,
        seed,
        threads,
        exact_only,
        no_trial_cap,
    };
    Ok(Held(interruptible(py, move |cancel| {
        rollsim::tables::roll_held(&roll, cancel)
    })?))
}

/// A table handed to Python through the Arrow PyCapsule interface: `pl.DataFrame(t)`
/// takes its columns as they are in Rust (types, nulls and all) in one call, no value
/// going through a Python object on the way.
#[pyclass(frozen)]
struct Table(Frame);

#[pymethods]
impl Table {
    /// An Arrow C stream of the table as one record batch. A `requested_schema` is
    /// not taken up: the table's own types stand (the PyCapsule interface allows it).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<PyObject>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let name = CString::new("arrow_array_stream").expect("no NUL in the name");
        PyCapsule::new(py, arrow::c_stream(&self.0), Some(name))
    }

    /// How many rows.
    fn __len__(&self) -> usize {
        self.0.height()
    }
}

/// The tables for Python, a distribution's `value` as numbers where it is one.
fn for_python(t: rollsim::tables::Tables) -> Vec<(String, Table)> {
    t.with_numeric_values()
        .into_vec()
        .into_iter()
        .map(|(name, df)| (name, Table(Frame::from_df(df))))
        .collect()
}

/// `mib` MiB of the allocator's memory written once, then given back to it, at import.
///
/// mimalloc takes its memory from the system in transparent huge pages: the first write
/// to each 2 MiB page has the kernel clear all of it, about 0.2 ms, paid by whichever
/// roll first reaches past the pages used so far (a first `d6 explode` after the
/// import took 0.31 ms where the next took 0.13; Torg's bonus chart 0.39 ms against
/// 0.19). Written here, before the import's warm-up rolls, those pages are cleared
/// already when the rolls after the import take them. The allocator gives idle pages
/// back to the system about a second after they are freed, so this holds for the rolls
/// made soon after the import (a script's), and costs no memory for long.
#[pyfunction]
fn touch_heap(mib: usize) {
    // Ones, not zeros: a zeroed block is asked of the allocator as one, which may hand
    // back fresh pages without writing them. Kept in sight of the compiler until here, so
    // that the blocks are made and written.
    let held: Vec<Vec<u8>> = (0..mib).map(|_| vec![1u8; 1 << 20]).collect();
    std::hint::black_box(&held);
}

/// The options of `command` as the command line takes them: `[(long name, takes a
/// value, may repeat)]`, for the keyword arguments of the Python calls.
#[pyfunction]
fn options(command: &str) -> PyResult<Vec<(String, bool, bool)>> {
    rollsim::command::options(command).map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _rollsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add("VERSION", rollsim::VERSION)?;
    m.add_function(wrap_pyfunction!(tables, m)?)?;
    m.add_function(wrap_pyfunction!(held, m)?)?;
    m.add_function(wrap_pyfunction!(roll_held, m)?)?;
    m.add_class::<Held>()?;
    m.add_class::<Table>()?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(touch_heap, m)?)?;
    m.add("RollsimError", m.py().get_type::<RollsimError>())?;
    Ok(())
}
