//! The connections open at once, and which of them gives way when they are too many.
//!
//! A connection is busy from the moment its request's head has arrived until its answer's
//! body is dropped (a simulation's stream included); otherwise it is idle: opened and
//! waiting for a head, or kept alive between requests. When the table is full and a new
//! connection comes, the one idle the longest is closed for it, so a crowd of clients
//! sending a byte now and then cannot keep the page waiting until their deadlines pass
//! (issue #71: 260 of them held a normal request for 9 to 10 s). Busy connections are
//! never closed for room: a full table of computations waits as before.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One open connection.
#[derive(Debug, Default)]
pub struct Conn {
    /// Requests under way on it (heads read, answers not yet dropped).
    busy: AtomicUsize,
    /// Woken when the connection is to close for room.
    close: tokio::sync::Notify,
}

impl Conn {
    /// Marks a request under way until the guard is dropped.
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::SeqCst);
        Busy(self.clone())
    }

    /// Ready when the connection is to close for room.
    pub async fn closed(&self) {
        self.close.notified().await;
    }
}

/// A request under way on a connection: held by its answer's body.
#[derive(Debug)]
pub struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The open connections, oldest first.
#[derive(Debug, Default)]
pub struct Conns {
    open: Mutex<(u64, BTreeMap<u64, Arc<Conn>>)>,
}

impl Conns {
    /// A new connection: its entry, and the key that [`Conns::gone`] takes.
    pub fn open(&self) -> (u64, Arc<Conn>) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let key = open.0;
        open.0 += 1;
        let conn = Arc::new(Conn::default());
        open.1.insert(key, conn.clone());
        (key, conn)
    }

    /// The connection has closed.
    pub fn gone(&self, key: u64) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.1.remove(&key);
    }

    /// Asks the connection idle the longest to close; whether there was one.
    pub fn close_oldest_idle(&self) -> bool {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        match open.1.values().find(|c| c.busy.load(Ordering::SeqCst) == 0) {
            Some(c) => {
                // A stored permit: the connection closes even if it is not waiting yet.
                c.close.notify_one();
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_idle_connection_gives_way_and_a_busy_one_never() {
        let conns = Conns::default();
        let (a, first) = conns.open();
        let (_, second) = conns.open();
        let held = first.busy();
        assert!(conns.close_oldest_idle());
        // The second was asked, not the busy first.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            tokio::time::timeout(std::time::Duration::from_secs(1), second.closed())
                .await
                .expect("the idle one was asked to close");
            assert!(
                tokio::time::timeout(std::time::Duration::from_millis(50), first.closed())
                    .await
                    .is_err()
            );
        });
        drop(held);
        conns.gone(a);
        let (_, third) = conns.open();
        let _keep = third.busy();
        let _also = second.busy();
        assert!(!conns.close_oldest_idle(), "every one is busy");
    }
}
