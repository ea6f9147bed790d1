//! The Python package's native half: a rollsim command line run in-process, exactly as
//! the `rollsim` binary would run it, with the interpreter's lock released while it
//! computes. `run_cli` returns what the binary prints (and writes what it writes);
//! `tables` returns a `run` or `roll`'s three tables as columns, without writing them.
//! The Python half (`rollsim/__init__.py`) builds the command lines and makes polars
//! DataFrames of the columns, so a notebook's numbers, columns and error messages are
//! the command line's by construction.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;
use rollsim::app::AppError;
use rollsim::report::frame::{Cells, Frame};
use rollsim::Cancel;
use std::sync::mpsc;
use std::time::Duration;

create_exception!(
    _rollsim,
    RollsimError,
    PyValueError,
    "A bad expression, config, option or output path: the command line's message."
);

/// How often a running computation looks for Ctrl-C (KeyboardInterrupt).
const POLL: Duration = Duration::from_millis(50);

/// Run `work` on a thread of its own, the interpreter's lock released, looking for
/// Ctrl-C every [`POLL`]: KeyboardInterrupt cancels the work's token, waits for it to
/// stop, and is raised. A refusal raises `RollsimError` with the command line's message
/// (its `exit_code` is the binary's).
fn interruptible<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Cancel) -> Result<T, AppError> + Send + 'static,
{
    let cancel = Cancel::new();
    let (tx, rx) = mpsc::channel();
    // Waited on with the interpreter's lock released, from this thread only.
    let rx = std::sync::Mutex::new(rx);
    let token = cancel.clone();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work(&token));
    });
    let outcome = loop {
        let next = py.allow_threads(|| {
            rx.lock()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                .and_then(|rx| rx.recv_timeout(POLL))
        });
        match next {
            Ok(r) => break Ok(Ok(r)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    cancel.cancel();
                    break Err(interrupt);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(Err(())),
        }
    };
    // The worker sees the token at its next check; wait for it without the lock.
    let joined = py.allow_threads(|| worker.join());
    if joined.is_err() {
        return Err(PyRuntimeError::new_err("rollsim's computation panicked"));
    }
    match outcome? {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => {
            let err = RollsimError::new_err(format!("{e:#}"));
            err.value(py).setattr("exit_code", e.exit_code())?;
            Err(err)
        }
        Err(()) => Err(PyRuntimeError::new_err(
            "rollsim's computation stopped without an answer",
        )),
    }
}

/// A table for Python: its name and its columns as (name, dtype, list of values).
type PyTable = (String, Vec<(String, String, PyObject)>);

/// Run `rollsim ARGS...`; what it prints on standard output.
#[pyfunction]
fn run_cli(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    interruptible(py, move |cancel| rollsim::command::execute(args, cancel))
}

/// The tables `rollsim ARGS...` would write (run, roll and the balance commands), not
/// written: `[(table, [(column, dtype, values)])]`, dtype one of `str`, `u64`, `i64`,
/// `f64`. Made in memory by `rollsim::tables`, the same polars tables the command line
/// writes: no files, no text read back.
#[pyfunction]
fn tables(py: Python<'_>, args: Vec<String>) -> PyResult<Vec<PyTable>> {
    let tables = interruptible(py, move |cancel| {
        rollsim::tables::of(args, cancel)?
            .into_vec()
            .into_iter()
            .map(|(name, df)| Ok((name, Frame::from_df(df).to_columns()?)))
            .collect::<Result<Vec<_>, AppError>>()
    })?;
    tables
        .into_iter()
        .map(|(name, columns)| {
            let columns = columns
                .into_iter()
                .map(|(column, cells)| {
                    let (dtype, values) = match cells {
                        Cells::Str(v) => ("str", PyList::new(py, v)?),
                        Cells::U64(v) => ("u64", PyList::new(py, v)?),
                        Cells::I64(v) => ("i64", PyList::new(py, v)?),
                        Cells::F64(v) => ("f64", PyList::new(py, v)?),
                    };
                    Ok((column, dtype.to_string(), values.into_any().unbind()))
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((name.to_string(), columns))
        })
        .collect()
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
    m.add_function(wrap_pyfunction!(tables, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add("RollsimError", m.py().get_type::<RollsimError>())?;
    Ok(())
}
