//! The open connections of `serve --http`, capped (`--max-connections`). A connection
//! that would go over the cap first closes the connection that has been idle longest (no
//! request in hand, counting one whose headers are still coming): a flood of connections
//! that send nothing, or their headers a byte at a time, pushes out only its own oldest,
//! while a client that connects and asks at once is served. With none idle, the newcomer
//! is closed. Below the cap every accepted connection costs one file descriptor, which the
//! cap keeps under the process's limit (an `accept` that fails for want of descriptors
//! leaves every client waiting).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

/// The open connections and their cap.
pub struct Connections {
    cap: usize,
    open: Mutex<HashMap<u64, Arc<Connection>>>,
    next_id: AtomicU64,
    started: Instant,
}

/// One open connection, as the table sees it.
pub struct Connection {
    id: u64,
    /// Requests whose answer is not yet all written.
    busy: AtomicUsize,
    /// When a request last began or ended, in milliseconds from the table's start.
    last_active_ms: AtomicU64,
    /// Cancelled when the connection is to close to make room.
    shed: CancellationToken,
    started: Instant,
}

/// A connection's place in the table, given back when dropped.
pub struct Admitted {
    table: Arc<Connections>,
    connection: Arc<Connection>,
}

/// One request in hand on a connection, until dropped (when its answer is all written).
pub struct Busy(Arc<Connection>);

impl Connections {
    /// A table that holds at most `cap` connections (at least 1).
    pub fn new(cap: usize) -> Arc<Connections> {
        Arc::new(Connections {
            cap: cap.max(1),
            open: Mutex::default(),
            next_id: AtomicU64::new(0),
            started: Instant::now(),
        })
    }

    /// Takes in a new connection: at the cap, the longest idle one is told to close first
    /// (and no longer counts); `None` if none is idle.
    pub fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while open.len() >= self.cap {
            let oldest_idle = open
                .values()
                .filter(|c| c.busy.load(Ordering::Acquire) == 0)
                .min_by_key(|c| c.last_active_ms.load(Ordering::Relaxed))
                .map(|c| c.id)?;
            if let Some(shed) = open.remove(&oldest_idle) {
                shed.shed.cancel();
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let connection = Arc::new(Connection {
            id,
            busy: AtomicUsize::new(0),
            last_active_ms: AtomicU64::new(0),
            shed: CancellationToken::new(),
            started: self.started,
        });
        connection.touch();
        open.insert(id, connection.clone());
        Some(Admitted {
            table: self.clone(),
            connection,
        })
    }

    /// How many connections are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Connection {
    fn touch(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_active_ms.store(now, Ordering::Relaxed);
    }

    /// Counts a request in hand until the returned guard is dropped.
    pub fn begin(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.touch();
        Busy(self.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Admitted {
    /// The connection admitted.
    pub fn connection(&self) -> &Arc<Connection> {
        &self.connection
    }

    /// Resolves when the connection is to close to make room for another.
    pub async fn shed(&self) {
        self.connection.shed.cancelled().await;
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.table.open.lock().unwrap_or_else(|e| e.into_inner());
        open.remove(&self.connection.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_longest_idle_connection_makes_room() {
        let table = Connections::new(3);
        let first = table.admit().unwrap();
        let second = table.admit().unwrap();
        let third = table.admit().unwrap();
        // The first is busy, the second then idle longest.
        let _busy = first.connection().begin();
        std::thread::sleep(std::time::Duration::from_millis(5));
        drop(third.connection().begin());
        let fourth = table.admit().unwrap();
        assert_eq!(table.len(), 3);
        assert!(second.connection().shed.is_cancelled());
        assert!(!first.connection().shed.is_cancelled());
        assert!(!third.connection().shed.is_cancelled());
        // The one shed leaves without taking another's place when it goes.
        drop(second);
        assert_eq!(table.len(), 3);
        drop(fourth);
        assert_eq!(table.len(), 2);
    }

    #[test]
    fn with_none_idle_the_newcomer_is_refused() {
        let table = Connections::new(2);
        let first = table.admit().unwrap();
        let second = table.admit().unwrap();
        let _a = first.connection().begin();
        let b = second.connection().begin();
        assert!(table.admit().is_none());
        assert_eq!(table.len(), 2);
        // Its request answered, the second is idle again and can be shed.
        drop(b);
        assert!(table.admit().is_some());
        assert!(second.connection().shed.is_cancelled());
    }
}
