//! The server's memory, bounded by design rather than by what the folder happens to hold.
//!
//! The server caches no config, view or result between requests (each request rereads
//! its file), so its memory is what the requests in flight hold. A loaded config takes
//! about 70 times its text (a 3 MB file of 100,000 one-line scenarios: about 210 MB), so
//! every request that loads a config first takes its estimate out of one budget and
//! waits its turn when the budget is spent; a config whose estimate is over the whole
//! budget runs alone. When a large request ends, the allocator is asked to give its
//! free pages back, so the memory goes back to the system, not just to the allocator.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Working memory for the requests in flight, in KiB: the server's own (about 10 MB)
/// comes on top. Measured with the largest config the page reads: 48 views at once of a
/// 3 MB config stay under 300 MB resident (tests/serve.rs).
pub const BUDGET_KIB: u32 = 160 * 1024;
/// Estimated memory per byte of a config's text while it is loaded (measured: 68).
const PER_BYTE: u64 = 80;
/// What a request takes besides its config: its JSON, its compiled scenario.
const BASE_KIB: u64 = 256;
/// A request estimated at more than this gives the allocator's free pages back when it
/// ends (the shipped configs are far below it: their requests never pay for that).
const RELEASE_KIB: u64 = 8 * 1024;

/// The budget every loading request draws from.
pub struct Budget {
    left: Arc<Semaphore>,
    /// Requests holding a ticket now: the last one to end gives the memory back.
    busy: Arc<AtomicUsize>,
}

/// A request's share of the budget, given back (and the memory released) when dropped.
pub struct Ticket {
    _permit: OwnedSemaphorePermit,
    large: bool,
    busy: Arc<AtomicUsize>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        // The last request in flight, or a large one: what the requests freed goes back
        // to the system. Under concurrent load every worker thread kept its own arena of
        // freed pages, and an idle server held tens of megabytes it no longer used.
        let last = self.busy.fetch_sub(1, Ordering::AcqRel) == 1;
        if self.large || last {
            release();
        }
    }
}

impl Budget {
    pub fn new() -> Budget {
        limit_arenas();
        Budget {
            left: Arc::new(Semaphore::new(BUDGET_KIB as usize)),
            busy: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Wait until a request over a config of `bytes` fits in the budget (first come,
    /// first served). `None` once the server is stopping.
    pub async fn admit(&self, bytes: u64) -> Option<Ticket> {
        let kib = estimate_kib(bytes);
        let take = kib.min(u64::from(BUDGET_KIB)) as u32;
        let permit = self.left.clone().acquire_many_owned(take).await.ok()?;
        self.busy.fetch_add(1, Ordering::AcqRel);
        Some(Ticket {
            _permit: permit,
            large: kib > RELEASE_KIB,
            busy: self.busy.clone(),
        })
    }

    /// [`Budget::admit`] from a blocking thread (the configs list loads files one by one).
    pub fn admit_blocking(&self, bytes: u64) -> Option<Ticket> {
        tokio::runtime::Handle::current().block_on(self.admit(bytes))
    }

    pub fn close(&self) {
        self.left.close();
    }
}

/// The memory a request over a config of `bytes` may take while it runs, in KiB.
pub fn estimate_kib(bytes: u64) -> u64 {
    BASE_KIB + bytes.saturating_mul(PER_BYTE) / 1024
}

/// Give the allocator's free memory back to the system. glibc keeps what a thread freed
/// in that thread's arena for reuse, so without this a server that once loaded a large
/// config stays that large for ever.
fn release() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it only returns free pages to the system,
    // under the allocator's own locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// At most two of glibc's arenas: each thread that allocates otherwise gets one of its
/// own (up to eight per core), and freed memory stays in the arena that freed it. The
/// server's requests are short and few at a time per core, so two arenas cost it no
/// measurable contention and keep what it frees in one place to give back.
fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes no pointers; it sets a limit the allocator reads under its
    // own locks.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
