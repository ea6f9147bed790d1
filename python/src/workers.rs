//! The threads the calls run on. Kept between calls: starting a thread took 0.2 ms, as
//! long as a whole small roll. One per call running at once, so a call never waits for
//! another's (a shared pool's thread can take up other work while it waits). Made anew
//! in a process forked from one that had them: a fork copies no threads, and a job
//! handed to a parent's worker would never run. The one process-wide state of the
//! package, as a thread pool is.

use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;

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
            next = rx.recv().ok();
        }
    });
}
