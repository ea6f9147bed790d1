//! A cancellation token: the front end holds one clone (a Ctrl-C handler, a request that
//! a newer one replaced), the computation checks another between units of work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Cheap to clone; every clone sees [`Cancel::cancel`] at once.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

/// A token over a flag someone else sets: the Python package's SIGINT handler, which
/// may not allocate, sets a flag made before the call.
impl From<Arc<AtomicBool>> for Cancel {
    fn from(flag: Arc<AtomicBool>) -> Self {
        Self(flag)
    }
}

impl Cancel {
    /// A token nobody has cancelled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask every computation holding a clone to stop at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] has been called on any clone.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Error::Interrupted)` once cancelled: for `?` between units of work.
    pub fn check(&self) -> Result<(), crate::Error> {
        if self.is_cancelled() {
            Err(crate::Error::Interrupted)
        } else {
            Ok(())
        }
    }
}
