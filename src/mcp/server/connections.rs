//! The open connections of `serve --http`, and what each costs while it waits.
//!
//! A connection is in one of three phases: *idle* (a keep-alive connection between
//! requests), *arriving* (a request's head or body on its way: its bytes are held until
//! the request is whole) or *handling* (a whole request being answered, or its answer
//! being written). Three bounds keep a flood of clients from holding the server's memory
//! or its door:
//!
//! - at most `max_connections` are open (the descriptors the process may use): one more
//!   first closes the connection idle longest, else the one whose request arrives slowest
//!   (a client trickling a body is shed before any newcomer is turned away);
//! - at most `max_waiting` are idle or arriving (each holds its buffers for nothing yet):
//!   one more makes room the same way, so a flood of slow or silent clients costs a bounded
//!   amount of memory however many descriptors there are;
//! - the bytes of requests still arriving (heads and bodies) are at most
//!   `max_arriving_bytes` in all: past it, the connection holding the most is closed.
//!
//! Only when every connection is handling a request is a newcomer closed, and even then a
//! few descriptors are kept in reserve so `GET /healthz` is always answered.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use tokio_util::sync::CancellationToken;

/// How many connections beyond the cap are kept for `GET /healthz` when every open one is
/// handling a request: a load balancer's probe is answered while the server is full.
pub const HEALTH_RESERVE: usize = 16;

/// A request arriving for less than this is judged by its age, not its pace: a client that
/// has just connected has sent nothing yet and is not slow.
const SLOW_AFTER_MS: u64 = 1_000;

/// The bounds of [`Connections`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections idle or with a request arriving, at once.
    pub max_waiting: usize,
    /// Bytes of requests still arriving, in all.
    pub max_arriving_bytes: usize,
}

/// The open connections and their bounds.
pub struct Connections {
    limits: ConnectionLimits,
    open: Mutex<HashMap<u64, Arc<OpenConnection>>>,
    next_id: AtomicU64,
    started: Instant,
    /// Connections idle or arriving (kept with each phase change).
    waiting: AtomicUsize,
    /// Bytes of requests still arriving, over every connection.
    arriving_bytes: AtomicUsize,
    /// Connections admitted into [`HEALTH_RESERVE`].
    reserved: AtomicUsize,
    me: Weak<Connections>,
}

const IDLE: u8 = 0;
const ARRIVING: u8 = 1;
const HANDLING: u8 = 2;

/// One open connection, as the table sees it.
pub struct OpenConnection {
    id: u64,
    table: Weak<Connections>,
    /// [`IDLE`], [`ARRIVING`] or [`HANDLING`].
    phase: AtomicU8,
    /// Requests whose answer is not yet all written.
    busy: AtomicUsize,
    /// When a request last began or ended, in milliseconds from the table's start.
    last_active_ms: AtomicU64,
    /// When the request now arriving sent its first byte, likewise.
    arriving_since_ms: AtomicU64,
    /// Its bytes so far.
    arriving: AtomicUsize,
    /// Admitted into the health reserve: it may only ask `GET /healthz`.
    reserve: bool,
    /// Counted in the table (false once shed or gone).
    counted: AtomicBool,
    /// Cancelled when the connection is to close to make room.
    shed: CancellationToken,
}

/// A connection's place in the table, given back when dropped.
pub struct Admitted {
    connection: Arc<OpenConnection>,
}

/// One request in hand on a connection, until dropped (when its answer is all written).
pub struct Busy(Arc<OpenConnection>);

/// What the table holds now, for `/healthz`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Census {
    /// Connections open.
    pub open: usize,
    /// Of which idle or with a request arriving.
    pub waiting: usize,
    /// Bytes of requests still arriving.
    pub arriving_bytes: usize,
    /// The bounds.
    pub limits: ConnectionLimits,
}

impl Connections {
    /// A table within `limits` (each at least 1).
    pub fn new(limits: ConnectionLimits) -> Arc<Connections> {
        let limits = ConnectionLimits {
            max_connections: limits.max_connections.max(1),
            max_waiting: limits.max_waiting.max(1),
            max_arriving_bytes: limits.max_arriving_bytes.max(1),
        };
        Arc::new_cyclic(|me| Connections {
            limits,
            open: Mutex::default(),
            next_id: AtomicU64::new(0),
            started: Instant::now(),
            waiting: AtomicUsize::new(0),
            arriving_bytes: AtomicUsize::new(0),
            reserved: AtomicUsize::new(0),
            me: me.clone(),
        })
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// What the table holds now.
    pub fn census(&self) -> Census {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner()).len();
        Census {
            open,
            waiting: self.waiting.load(Ordering::Relaxed),
            arriving_bytes: self.arriving_bytes.load(Ordering::Relaxed),
            limits: self.limits,
        }
    }

    /// Takes in a new connection, first making room under both caps: the longest idle
    /// connection is told to close, else the slowest arriving one. With none to close, a
    /// newcomer over `max_waiting` is still taken (only descriptors are a hard limit); at
    /// `max_connections` it gets one of [`HEALTH_RESERVE`]'s places, or `None`.
    pub fn admit(&self) -> Option<Admitted> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mut reserve = false;
        while open.len() >= self.limits.max_connections
            || self.waiting.load(Ordering::Relaxed) >= self.limits.max_waiting
        {
            match self.make_way(&open) {
                Some(id) => {
                    if let Some(shed) = open.remove(&id) {
                        shed.uncount();
                        shed.shed.cancel();
                    }
                }
                None if open.len() < self.limits.max_connections => break,
                None => {
                    let reserved = self.reserved.load(Ordering::Relaxed);
                    if reserved >= HEALTH_RESERVE {
                        return None;
                    }
                    self.reserved.store(reserved + 1, Ordering::Relaxed);
                    reserve = true;
                    break;
                }
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let now = self.now_ms();
        let connection = Arc::new(OpenConnection {
            id,
            table: self.me.clone(),
            // A new connection waits for its first request like an arriving one.
            phase: AtomicU8::new(ARRIVING),
            busy: AtomicUsize::new(0),
            last_active_ms: AtomicU64::new(now),
            arriving_since_ms: AtomicU64::new(now),
            arriving: AtomicUsize::new(0),
            reserve,
            counted: AtomicBool::new(!reserve),
            shed: CancellationToken::new(),
        });
        if !reserve {
            self.waiting.fetch_add(1, Ordering::Relaxed);
            open.insert(id, connection.clone());
        }
        Some(Admitted { connection })
    }

    /// The connection to close to make room: the longest idle, else the one whose request
    /// arrives slowest (fewest bytes a second, once it has been arriving a while), else the
    /// one arriving longest.
    fn make_way(&self, open: &HashMap<u64, Arc<OpenConnection>>) -> Option<u64> {
        let idle = open
            .values()
            .filter(|c| c.phase.load(Ordering::Acquire) == IDLE)
            .min_by_key(|c| c.last_active_ms.load(Ordering::Relaxed));
        if let Some(idle) = idle {
            return Some(idle.id);
        }
        let now = self.now_ms();
        let arriving = || {
            open.values()
                .filter(|c| c.phase.load(Ordering::Acquire) == ARRIVING)
        };
        let slowest = arriving()
            .filter_map(|c| {
                let since = now.saturating_sub(c.arriving_since_ms.load(Ordering::Relaxed));
                (since >= SLOW_AFTER_MS).then(|| {
                    let bytes = c.arriving.load(Ordering::Relaxed) as u64;
                    (bytes.saturating_mul(1000) / since.max(1), c.id)
                })
            })
            .min()
            .map(|(_, id)| id);
        // All of them new (a burst of connections): the one arriving longest.
        slowest.or_else(|| {
            arriving()
                .min_by_key(|c| (c.arriving_since_ms.load(Ordering::Relaxed), c.id))
                .map(|c| c.id)
        })
    }

    /// Past `max_arriving_bytes`: the arriving connection holding the most is told to
    /// close; whether that is `reading` (then its read fails at once).
    fn over_arriving_budget(&self, reading: u64) -> bool {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if self.arriving_bytes.load(Ordering::Relaxed) <= self.limits.max_arriving_bytes {
            return false;
        }
        let heaviest = open
            .values()
            .filter(|c| c.phase.load(Ordering::Acquire) == ARRIVING)
            .max_by_key(|c| c.arriving.load(Ordering::Relaxed))
            .map(|c| c.id);
        let Some(id) = heaviest else { return false };
        if let Some(shed) = open.remove(&id) {
            tracing::debug!(
                bytes = shed.arriving.load(Ordering::Relaxed),
                "closed the connection holding the most of the requests still arriving (--max-arriving)"
            );
            shed.uncount();
            shed.shed.cancel();
        }
        id == reading
    }
}

impl OpenConnection {
    fn table(&self) -> Option<Arc<Connections>> {
        self.table.upgrade()
    }

    fn touch(&self, table: &Connections) {
        self.last_active_ms.store(table.now_ms(), Ordering::Relaxed);
    }

    /// Whether this connection was admitted into the health reserve: it may only ask
    /// `GET /healthz`.
    pub fn is_reserve(&self) -> bool {
        self.reserve
    }

    /// Moves to `phase`, keeping the table's count of waiting connections.
    fn enter(&self, table: &Connections, phase: u8) {
        let was = self.phase.swap(phase, Ordering::AcqRel);
        if !self.counted.load(Ordering::Acquire) {
            return;
        }
        match (was == HANDLING, phase == HANDLING) {
            (true, false) => {
                table.waiting.fetch_add(1, Ordering::Relaxed);
            }
            (false, true) => {
                table.waiting.fetch_sub(1, Ordering::Relaxed);
            }
            _ => {}
        }
    }

    /// Gives back what this connection counts in the table (once).
    fn uncount(&self) {
        if !self.counted.swap(false, Ordering::AcqRel) {
            return;
        }
        let Some(table) = self.table() else { return };
        if self.phase.load(Ordering::Acquire) != HANDLING {
            table.waiting.fetch_sub(1, Ordering::Relaxed);
        }
        let held = self.arriving.swap(0, Ordering::AcqRel);
        table.arriving_bytes.fetch_sub(held, Ordering::Relaxed);
    }

    /// Counts `read` bytes the client sent. While no request is being handled they belong
    /// to the request arriving, and count against the table's bytes of arriving requests;
    /// `false` when this connection must close to keep that bound.
    pub fn received(&self, read: usize) -> bool {
        if read == 0 || self.phase.load(Ordering::Acquire) == HANDLING {
            return true;
        }
        let Some(table) = self.table() else {
            return true;
        };
        if self.phase.load(Ordering::Acquire) == IDLE {
            self.arriving_since_ms
                .store(table.now_ms(), Ordering::Relaxed);
            self.enter(&table, ARRIVING);
        }
        if !self.counted.load(Ordering::Acquire) {
            return true;
        }
        self.arriving.fetch_add(read, Ordering::AcqRel);
        let total = table.arriving_bytes.fetch_add(read, Ordering::AcqRel) + read;
        total <= table.limits.max_arriving_bytes || !table.over_arriving_budget(self.id)
    }

    /// Counts a request in hand (its head has arrived) until the returned guard is
    /// dropped. Its body, if it has one, is still arriving until [`OpenConnection::arrived`].
    pub fn begin(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        if let Some(table) = self.table() {
            self.touch(&table);
        }
        Busy(self.clone())
    }

    /// The request in hand has arrived whole: its bytes no longer count as arriving, and
    /// the connection is handling it.
    pub fn arrived(&self) {
        if self.phase.load(Ordering::Acquire) == HANDLING {
            return;
        }
        let Some(table) = self.table() else { return };
        if self.counted.load(Ordering::Acquire) {
            let held = self.arriving.swap(0, Ordering::AcqRel);
            table.arriving_bytes.fetch_sub(held, Ordering::Relaxed);
        }
        self.enter(&table, HANDLING);
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let connection = &self.0;
        if connection.busy.fetch_sub(1, Ordering::AcqRel) == 1
            && let Some(table) = connection.table()
        {
            connection.touch(&table);
            connection.enter(&table, IDLE);
        }
    }
}

impl Admitted {
    /// The connection admitted.
    pub fn connection(&self) -> &Arc<OpenConnection> {
        &self.connection
    }

    /// Resolves when the connection is to close to make room for another.
    pub async fn shed(&self) {
        self.connection.shed.cancelled().await;
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let Some(table) = self.connection.table() else {
            return;
        };
        if self.connection.reserve {
            table.reserved.fetch_sub(1, Ordering::Relaxed);
            return;
        }
        let mut open = table.open.lock().unwrap_or_else(|e| e.into_inner());
        open.remove(&self.connection.id);
        drop(open);
        self.connection.uncount();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max_connections: usize, max_waiting: usize, bytes: usize) -> Arc<Connections> {
        Connections::new(ConnectionLimits {
            max_connections,
            max_waiting,
            max_arriving_bytes: bytes,
        })
    }

    fn len(table: &Connections) -> usize {
        table.census().open
    }

    /// A connection whose request was answered: idle.
    fn served(admitted: &Admitted) {
        let busy = admitted.connection().begin();
        admitted.connection().arrived();
        drop(busy);
    }

    #[test]
    fn at_the_cap_the_longest_idle_connection_makes_room() {
        let table = table(3, 100, 1 << 20);
        let first = table.admit().unwrap();
        let second = table.admit().unwrap();
        let third = table.admit().unwrap();
        // The first is handling a request, the second then idle longest.
        let _busy = first.connection().begin();
        first.connection().arrived();
        served(&second);
        std::thread::sleep(std::time::Duration::from_millis(5));
        served(&third);
        let fourth = table.admit().unwrap();
        assert_eq!(len(&table), 3);
        assert!(second.connection().shed.is_cancelled());
        assert!(!first.connection().shed.is_cancelled());
        assert!(!third.connection().shed.is_cancelled());
        // The one shed leaves without taking another's place when it goes.
        drop(second);
        assert_eq!(len(&table), 3);
        drop(fourth);
        assert_eq!(len(&table), 2);
    }

    #[test]
    fn with_every_connection_handling_the_newcomer_gets_a_health_place_or_none() {
        let table = table(2, 100, 1 << 20);
        let first = table.admit().unwrap();
        let second = table.admit().unwrap();
        let _a = first.connection().begin();
        first.connection().arrived();
        let b = second.connection().begin();
        second.connection().arrived();
        let reserved: Vec<_> = (0..HEALTH_RESERVE)
            .map(|_| table.admit().unwrap())
            .collect();
        assert!(reserved.iter().all(|r| r.connection().is_reserve()));
        assert!(table.admit().is_none());
        assert_eq!(len(&table), 2);
        // Its request answered, the second is idle again and can be shed.
        drop(b);
        let next = table.admit().unwrap();
        assert!(!next.connection().is_reserve());
        assert!(second.connection().shed.is_cancelled());
    }

    #[test]
    fn the_slowest_body_is_shed_before_a_newcomer_is_refused() {
        // The fast one came first: age alone would pick it.
        let table = table(2, 100, 1 << 20);
        let fast = table.admit().unwrap();
        let slow = table.admit().unwrap();
        // Both sent their heads; their bodies are arriving.
        let _slow_request = slow.connection().begin();
        let _fast_request = fast.connection().begin();
        assert!(slow.connection().received(10));
        assert!(fast.connection().received(100_000));
        std::thread::sleep(std::time::Duration::from_millis(SLOW_AFTER_MS + 50));
        let newcomer = table.admit().unwrap();
        assert!(!newcomer.connection().is_reserve());
        assert!(slow.connection().shed.is_cancelled());
        assert!(!fast.connection().shed.is_cancelled());
    }

    #[test]
    fn waiting_connections_are_capped_apart_from_the_open_ones() {
        let table = table(100, 2, 1 << 20);
        let first = table.admit().unwrap();
        served(&first);
        let handling = table.admit().unwrap();
        let _busy = handling.connection().begin();
        handling.connection().arrived();
        let second = table.admit().unwrap();
        assert_eq!(table.census().waiting, 2);
        // A third waiting one closes the idle first.
        let _third = table.admit().unwrap();
        assert!(first.connection().shed.is_cancelled());
        assert!(!second.connection().shed.is_cancelled());
        assert_eq!(table.census().waiting, 2);
    }

    #[test]
    fn past_the_arriving_bytes_the_heaviest_arriving_connection_closes() {
        let table = table(100, 100, 1_000);
        let light = table.admit().unwrap();
        let heavy = table.admit().unwrap();
        assert!(light.connection().received(100));
        assert!(heavy.connection().received(800));
        assert_eq!(table.census().arriving_bytes, 900);
        // The light one's read goes over: the heavy one is closed, the light one reads on.
        assert!(light.connection().received(200));
        assert!(heavy.connection().shed.is_cancelled());
        assert_eq!(table.census().arriving_bytes, 300);
        // Arrived whole, a request's bytes no longer count.
        let _busy = light.connection().begin();
        light.connection().arrived();
        assert_eq!(table.census().arriving_bytes, 0);
        // Bytes read while handling are the next request's, bounded by hyper's buffer.
        assert!(light.connection().received(5_000));
        assert_eq!(table.census().arriving_bytes, 0);
    }

    #[test]
    fn a_reader_over_the_budget_that_holds_the_most_is_told_to_stop() {
        let table = table(100, 100, 1_000);
        let only = table.admit().unwrap();
        assert!(!only.connection().received(1_001));
        assert!(only.connection().shed.is_cancelled());
        drop(only);
        assert_eq!(
            table.census(),
            Census {
                open: 0,
                waiting: 0,
                arriving_bytes: 0,
                limits: table.limits,
            }
        );
    }
}
