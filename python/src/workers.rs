//! The threads the calls run on. Kept between calls: starting a thread took 0.2 ms, as
//! long as a whole small roll. One per call running at once, so a call never waits for
//! another's (a shared pool's thread can take up other work while it waits). Made anew
//! in a process forked from one that had them: a fork copies no threads, and a job
//! handed to a parent's worker would never run. The one process-wide state of the
//! package, as a thread pool is.

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a worker waiting for its next job, and a call waiting for its answer, spin
/// before they sleep. Waking a sleeping thread costs tens of microseconds here, twice per
/// call (the job handed over, the answer handed back): a third of a small roll. A call in
/// a loop (a slider, a sweep written in Python) comes back within this, and an answer
/// under it is never slept for; a thread spins at most this long per call.
const SPIN: Duration = Duration::from_micros(300);

/// The next message on `rx`: spun for up to [`SPIN`] (never past `timeout`), then
/// slept for, until `timeout` in all.
pub fn wait<T>(rx: &Receiver<T>, timeout: Duration) -> Result<T, RecvTimeoutError> {
    let start = Instant::now();
    let spin = SPIN.min(timeout);
    loop {
        match rx.try_recv() {
            Ok(v) => return Ok(v),
            Err(TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) => {
                let waited = start.elapsed();
                if waited >= spin {
                    return rx.recv_timeout(timeout.saturating_sub(waited));
                }
                std::hint::spin_loop();
            }
        }
    }
}

/// A call's work.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// The workers waiting for a job, and the process they were started in.
struct Idle {
    pid: u32,
    workers: Vec<Sender<Job>>,
}

static IDLE: Mutex<Idle> = Mutex::new(Idle {
    pid: 0,
    workers: Vec::new(),
});

fn idle() -> std::sync::MutexGuard<'static, Idle> {
    // A worker never panics while holding the lock (jobs run outside it).
    IDLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run `job` on a waiting worker, or on a new one when none waits; the worker waits for
/// the next job when this one is done.
pub fn run(job: Job) {
    let pid = std::process::id();
    let waiting = {
        let mut idle = idle();
        if idle.pid != pid {
            // A forked process: its parent's workers are not here.
            idle.pid = pid;
            idle.workers.clear();
        }
        idle.workers.pop()
    };
    let job = match waiting {
        Some(worker) => match worker.send(job) {
            Ok(()) => return,
            Err(returned) => returned.0,
        },
        None => job,
    };
    start(job);
}

fn start(first: Job) {
    let (tx, rx) = channel::<Job>();
    std::thread::spawn(move || {
        let mut next = Some(first);
        while let Some(job) = next.take() {
            job();
            {
                let mut idle = idle();
                if idle.pid == std::process::id() {
                    idle.workers.push(tx.clone());
                }
            }
            next = match wait(&rx, SPIN) {
                Ok(job) => Some(job),
                Err(RecvTimeoutError::Timeout) => rx.recv().ok(),
                Err(RecvTimeoutError::Disconnected) => None,
            };
        }
    });
}
