//! Ctrl-C for a call run on the calling thread. A call handed to a worker pays for
//! waking it: up to 1 ms on a virtual CPU once the worker has slept, ten times a small
//! roll. Run on the calling thread instead, a call cannot poll `check_signals` while it
//! computes, so SIGINT itself must reach the computation: a handler placed in front of
//! the interpreter's own sets a flag the call's `Cancel` token reads, then hands the
//! signal on to the interpreter's handler unchanged (KeyboardInterrupt is raised as
//! ever, once the call returns).
//!
//! Only on the interpreter's main thread (the only one its handlers run on), and only
//! while the interpreter's handler is the one installed: a `signal.signal(SIGINT, ...)`
//! installs it again (ipykernel does, around every cell), so [`armed`] puts ours back
//! in front at the next call, and anything else (SIGINT ignored, its default action)
//! leaves the call on a worker, which polls.

use rollsim::Cancel;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Set by the handler; the running call's token. One call runs inline at a time: only
/// the main thread runs calls inline, and a call runs no Python.
static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// The handler ours hands the signal on to, and whether it takes `siginfo`.
static NEXT: AtomicUsize = AtomicUsize::new(0);
static NEXT_SIGINFO: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    if let Some(flag) = FLAG.get() {
        flag.store(true, Ordering::SeqCst);
    }
    let next = NEXT.load(Ordering::SeqCst);
    if next == 0 {
        return;
    }
    // SAFETY: `next` is the address of the handler sigaction gave back for SIGINT, not
    // SIG_DFL or SIG_IGN ([`armed`] takes no other), called as it was installed.
    unsafe {
        if NEXT_SIGINFO.load(Ordering::SeqCst) {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                std::mem::transmute(next);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(next);
            f(sig);
        }
    }
}

/// Whether this thread is the process's first, where the interpreter runs its handlers.
fn main_thread() -> bool {
    // SAFETY: plain system calls without arguments.
    unsafe { libc::gettid() == libc::getpid() }
}

/// A token SIGINT cancels, when a call may run on this thread: ours in front of the
/// interpreter's handler (put back there if something installed another since). None
/// off the main thread, or where SIGINT has no handler of the interpreter's to hand on
/// to: the call then goes to a worker.
pub fn armed() -> Option<Cancel> {
    if !main_thread() {
        return None;
    }
    let ours = on_sigint as *const () as usize;
    // SAFETY: sigaction with a null new action only reads the current one.
    let mut now: libc::sigaction = unsafe { std::mem::zeroed() };
    if unsafe { libc::sigaction(libc::SIGINT, std::ptr::null(), &mut now) } != 0 {
        return None;
    }
    if now.sa_sigaction != ours {
        if now.sa_sigaction == libc::SIG_DFL || now.sa_sigaction == libc::SIG_IGN {
            return None;
        }
        NEXT_SIGINFO.store(now.sa_flags & libc::SA_SIGINFO != 0, Ordering::SeqCst);
        NEXT.store(now.sa_sigaction, Ordering::SeqCst);
        let mut mine = now;
        mine.sa_sigaction = ours;
        mine.sa_flags = now.sa_flags | libc::SA_SIGINFO;
        // SAFETY: a handler that only stores to an atomic and calls the one before it.
        if unsafe { libc::sigaction(libc::SIGINT, &mine, std::ptr::null_mut()) } != 0 {
            return None;
        }
    }
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)));
    flag.store(false, Ordering::SeqCst);
    Some(Cancel::from(Arc::clone(flag)))
}
