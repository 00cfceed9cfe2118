//! The hub: starts every server in parallel, reports each one's state as events, keeps
//! catalogs fresh on list changes, and shuts everything down promptly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::cache::{Freshness, ServerEntry};
use crate::config::{ServerConfig, TransportConfig};
use crate::mcp::client::connection::{Connection, Known, PromptList, STDERR_TAIL, lock};
use crate::mcp::error::McpError;
use crate::mcp::log::ServerLog;
use crate::model::{LogLine, PromptInfo, ServedProblem, ServerDetails, ServerId};

/// How often a server task checks whether its connection has dropped.
const CLOSED_POLL: Duration = Duration::from_millis(250);
/// How long after a list-change notice the list is fetched: notices in between are one.
const LIST_SETTLE: Duration = Duration::from_millis(100);
/// The most a TTL re-list is put off past the list's expiry (its jitter is up to a tenth
/// of the TTL, so that many clients started together do not re-list together).
const MAX_TTL_JITTER_MS: u64 = 5_000;

/// What a hub takes from each server's entry in the catalog ([`crate::cache`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogUse {
    /// A stale cached list is taken as it is, not listed again: for a one-shot `get`,
    /// which checks the prompt against it and lists again only when that check fails
    /// (the menu lists a stale list again; a fresh one is taken by both).
    pub stale_will_do: bool,
    /// A known 2026-07-28 server is started with no handshake at all ([`Known::direct`]):
    /// for a one-shot `get`, whose one request is then `prompts/get`. The menu always sends
    /// `server/discover`: it is off the critical path (the menu is drawn from the catalog
    /// at once), it tells a server that is down before the user submits a form, and it
    /// brings back the server's capabilities and details, which may have changed (rmcp's
    /// handshake loses the discover result's own `ttlMs`, so its freshness is unknown).
    pub direct: bool,
}

impl CatalogUse {
    /// The menu's (and `mcpick list`'s) use: a fresh list is not listed again; the
    /// handshake is always made.
    pub const MENU: CatalogUse = CatalogUse {
        stale_will_do: false,
        direct: false,
    };
    /// `mcpick get`'s: any cached list will do, and a known 2026-07-28 server hears only
    /// `prompts/get`.
    pub const GET: CatalogUse = CatalogUse {
        stale_will_do: true,
        direct: true,
    };
}

/// What happens to servers, in the order it happens to each one.
#[derive(Debug, Clone)]
pub enum McpEvent {
    /// The server is being started and connected.
    Connecting {
        /// Which server.
        server: ServerId,
    },
    /// The handshake and the first full `prompts/list` succeeded.
    Ready {
        /// Which server.
        server: ServerId,
        /// What the handshake told.
        details: ServerDetails,
        /// Every prompt, all pages.
        prompts: Vec<PromptInfo>,
    },
    /// The `Ready` (or `PromptsChanged`) that follows holds the prompts of the server's
    /// catalog on disk, not a list fetched now: it was still fresh by its `ttlMs` (or, for
    /// a one-shot `get`, any cached list will do). Sent just before that event.
    FromCatalog {
        /// Which server.
        server: ServerId,
        /// How fresh the cached list is.
        freshness: crate::cache::Freshness,
    },
    /// Fetching the list again (its TTL ran out, a list change, a refresh asked for) failed:
    /// the prompts shown stay, now stale, for this reason.
    ListStale {
        /// Which server.
        server: ServerId,
        /// Why the re-fetch failed (masked; server text to neutralise before showing).
        reason: String,
    },
    /// The server's prompt list changed and was fetched again.
    PromptsChanged {
        /// Which server.
        server: ServerId,
        /// The new full list.
        prompts: Vec<PromptInfo>,
    },
    /// The problems a served library (`mcpick serve`) reports with its prompt files changed
    /// with a new list (a file broke or was fixed while connected): these are its problems
    /// now, in place of those of [`ServerDetails::served_problems`]. Sent before the
    /// `PromptsChanged` of that list, and only when they differ from the last list's.
    ServedProblemsChanged {
        /// Which server.
        server: ServerId,
        /// Its problems now (empty: none left).
        problems: Vec<ServedProblem>,
    },
    /// A stdio server that crashed will be started again after `delay`.
    Restarting {
        /// Which server.
        server: ServerId,
        /// Which attempt this is, from 1.
        attempt: u32,
        /// How many attempts are made before giving up.
        of: u32,
        /// The wait before this attempt.
        delay: Duration,
    },
    /// The server could not be reached, or its connection dropped.
    Failed {
        /// Which server.
        server: ServerId,
        /// Why.
        error: McpError,
        /// Its last stderr lines.
        stderr: Vec<String>,
    },
    /// The server's whole kept log, in place of the lines seen so far: sent after a flood
    /// in which lines were dropped on the way to the screen.
    LogSnapshot {
        /// Which server.
        server: ServerId,
        /// Its kept lines, oldest first.
        lines: Vec<LogLine>,
    },
    /// Something the user should know that did not stop the server: what its prompt
    /// list left out (a prompt it described wrongly, pages after a repeated cursor). Sent
    /// before the `Ready` or `PromptsChanged` of that list; the line is in its log too.
    Warning {
        /// Which server.
        server: ServerId,
        /// What was left out and why, one line (server text: neutralise it to show it).
        text: String,
    },
    /// A stderr line or `notifications/message` from the server.
    Log {
        /// Which server.
        server: ServerId,
        /// The line.
        line: LogLine,
    },
}

impl McpEvent {
    /// The server the event is about.
    pub fn server(&self) -> &str {
        match self {
            McpEvent::Connecting { server }
            | McpEvent::Ready { server, .. }
            | McpEvent::PromptsChanged { server, .. }
            | McpEvent::FromCatalog { server, .. }
            | McpEvent::ListStale { server, .. }
            | McpEvent::ServedProblemsChanged { server, .. }
            | McpEvent::Failed { server, .. }
            | McpEvent::Restarting { server, .. }
            | McpEvent::LogSnapshot { server, .. }
            | McpEvent::Warning { server, .. }
            | McpEvent::Log { server, .. } => server,
        }
    }
}

/// How a stdio server that crashes is started again: after `first_delay`, then twice as
/// long each time, `attempts` times; a connection that lived `stable_after` starts the count
/// afresh.
#[derive(Debug, Clone, Copy)]
pub struct RestartPolicy {
    /// How many restarts in a row before giving up (0: never restart).
    pub attempts: u32,
    /// The wait before the first restart.
    pub first_delay: Duration,
    /// The longest wait between restarts.
    pub max_delay: Duration,
    /// How long a connection must have lived for a crash to count as a first one again.
    pub stable_after: Duration,
    /// The wait before a failed re-list ([`McpEvent::ListStale`]) is tried again.
    pub relist_retry_first: Duration,
    /// The longest wait between re-list retries (each failure doubles the wait).
    pub relist_retry_max: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            attempts: 5,
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            stable_after: Duration::from_secs(60),
            relist_retry_first: Duration::from_secs(30),
            relist_retry_max: Duration::from_secs(600),
        }
    }
}

impl RestartPolicy {
    /// The wait before restart `attempt` (from 1): doubling, capped at `max_delay`.
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.first_delay.saturating_mul(factor).min(self.max_delay)
    }

    /// The wait before re-list retry `attempt` (from 1): doubling from
    /// `relist_retry_first`, capped at `relist_retry_max`, plus a jitter of up to a tenth
    /// (clients that failed together do not retry together).
    pub fn relist_retry(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(20));
        let base = self
            .relist_retry_first
            .saturating_mul(factor)
            .min(self.relist_retry_max);
        let tenth = (base.as_millis() / 10) as u64;
        let jitter = if tenth == 0 {
            0
        } else {
            random_u64() % (tenth + 1)
        };
        base + Duration::from_millis(jitter)
    }
}

/// All server connections of one run.
pub struct Hub {
    connections: Arc<Mutex<HashMap<ServerId, Arc<Connection>>>>,
    /// Which servers are up, down or still starting, for [`Hub::wait_connection`].
    states: Arc<States>,
    /// Each server's "list again now" switch ([`Hub::relist`]).
    relists: HashMap<ServerId, Arc<Relists>>,
    tasks: Vec<JoinHandle<()>>,
    shutdown: CancellationToken,
    /// Each server's own stop switch (a child of `shutdown`).
    stops: HashMap<ServerId, CancellationToken>,
    /// Catalog writes still under way, which shutdown lets finish.
    writes: Writes,
    /// The first catalog write that failed, for a one-shot command to tell.
    write_failure: CatalogWriteFailure,
}

/// The first catalog write of a hub that failed (server, and what to tell), kept for a
/// one-shot command to print once it is done (the menu gets a [`McpEvent::Warning`]).
#[derive(Debug, Clone, Default)]
pub struct CatalogWriteFailure(Arc<Mutex<Option<(ServerId, String)>>>);

impl CatalogWriteFailure {
    /// The failure, if a write failed, and forgets it (it is told once).
    pub fn take(&self) -> Option<(ServerId, String)> {
        lock(&self.0).take()
    }
}

/// Catalog writes under way (blocking tasks).
type Writes = Arc<Mutex<Vec<JoinHandle<()>>>>;

/// The longest shutdown waits for catalog writes under way (a slow disk must not hold up
/// the exit; a write cut short leaves the old file, never half of one).
const WRITES_GRACE: Duration = Duration::from_secs(2);

impl Hub {
    /// Starts one task per server, all at once, each keeping its server's prompt list
    /// fresh (a 2026-07-28 server's list changes are subscribed to before the first list).
    /// Events arrive on `events`; log lines only when `forward_logs` is set. Crashed stdio
    /// servers are restarted by the default [`RestartPolicy`]. One-shot commands use
    /// [`Hub::start_once`].
    pub fn start(
        servers: Vec<ServerConfig>,
        events: mpsc::Sender<McpEvent>,
        forward_logs: bool,
    ) -> Hub {
        Hub::start_with(servers, events, forward_logs, RestartPolicy::default())
    }

    /// [`Hub::start`] with a restart policy of its own.
    pub fn start_with(
        servers: Vec<ServerConfig>,
        events: mpsc::Sender<McpEvent>,
        forward_logs: bool,
        restarts: RestartPolicy,
    ) -> Hub {
        Hub::spawn(servers, events, forward_logs, true, restarts)
    }

    /// [`Hub::start`] for a command that lists or gets once and exits: no log lines, and
    /// no `subscriptions/listen` stream for list changes (opening it costs a round trip
    /// before the first list; it would end a moment after). A legacy server's unasked
    /// `notifications/prompts/list_changed` still refreshes the list.
    pub fn start_once(servers: Vec<ServerConfig>, events: mpsc::Sender<McpEvent>) -> Hub {
        Hub::spawn(servers, events, false, false, RestartPolicy::default())
    }

    /// [`Hub::start`] with the catalog: each server with the entry `cache::at_start` gave
    /// it (or none). A known server is connected by its remembered era; a fresh cached
    /// list is not listed again ([`McpEvent::FromCatalog`], then `Ready` with the cached
    /// prompts) and is listed again when its TTL runs out; what each server tells is
    /// written back to the catalog. The old constructors neither read nor write it.
    pub fn start_cached(
        servers: Vec<(ServerConfig, Option<ServerEntry>)>,
        events: mpsc::Sender<McpEvent>,
        forward_logs: bool,
    ) -> Hub {
        Hub::spawn_cached(
            servers,
            events,
            forward_logs,
            true,
            RestartPolicy::default(),
            Some(CatalogUse::MENU),
        )
    }

    /// [`Hub::start_once`] with the catalog, used as `catalog` says
    /// ([`CatalogUse::MENU`] for `mcpick list`, [`CatalogUse::GET`] for `mcpick get`).
    pub fn start_once_cached(
        servers: Vec<(ServerConfig, Option<ServerEntry>)>,
        events: mpsc::Sender<McpEvent>,
        catalog: CatalogUse,
    ) -> Hub {
        Hub::spawn_cached(
            servers,
            events,
            false,
            false,
            RestartPolicy::default(),
            Some(catalog),
        )
    }

    fn spawn(
        servers: Vec<ServerConfig>,
        events: mpsc::Sender<McpEvent>,
        forward_logs: bool,
        watch_list_changes: bool,
        restarts: RestartPolicy,
    ) -> Hub {
        let servers = servers.into_iter().map(|config| (config, None)).collect();
        Hub::spawn_cached(
            servers,
            events,
            forward_logs,
            watch_list_changes,
            restarts,
            None,
        )
    }

    fn spawn_cached(
        servers: Vec<(ServerConfig, Option<ServerEntry>)>,
        events: mpsc::Sender<McpEvent>,
        forward_logs: bool,
        watch_list_changes: bool,
        restarts: RestartPolicy,
        catalog: Option<CatalogUse>,
    ) -> Hub {
        let connections = Arc::new(Mutex::new(HashMap::new()));
        let states = Arc::new(States::default());
        let shutdown = CancellationToken::new();
        let mut stops = HashMap::new();
        let mut relists = HashMap::new();
        let writes = Writes::default();
        let write_failure = CatalogWriteFailure::default();
        // One notice per hub, not per server or per write. The menu shows it as a
        // warning; a one-shot command prints it at its end ([`Hub::catalog_write_failure`]).
        let failures = WriteFailures {
            events: watch_list_changes.then(|| events.clone()),
            told: Default::default(),
            first: write_failure.clone(),
        };
        let tasks = servers
            .into_iter()
            .map(|(config, entry)| {
                let stop = shutdown.child_token();
                stops.insert(config.name.clone(), stop.clone());
                let relist = Arc::new(Relists::default());
                relists.insert(config.name.clone(), relist.clone());
                states.set(&config.name, State::Starting);
                let shared = Shared {
                    connections: connections.clone(),
                    states: states.clone(),
                    relist,
                    catalog: catalog.map(|policy| {
                        Catalog::new(policy, entry, writes.clone(), failures.clone())
                    }),
                };
                tokio::spawn(run_server(
                    config,
                    events.clone(),
                    forward_logs,
                    watch_list_changes,
                    shared,
                    stop,
                    restarts,
                ))
            })
            .collect();
        Hub {
            connections,
            states,
            relists,
            tasks,
            shutdown,
            stops,
            writes,
            write_failure,
        }
    }

    /// The first of this hub's catalog writes that failed, read after
    /// [`Hub::shutdown`] (which lets writes finish).
    pub fn catalog_write_failure(&self) -> CatalogWriteFailure {
        self.write_failure.clone()
    }

    /// Stops one server (closing its connection, ending its restarts); no more events
    /// come for it from this hub. For starting it again elsewhere.
    pub fn stop(&self, server: &str) {
        if let Some(stop) = self.stops.get(server) {
            stop.cancel();
        }
    }

    /// The live connection to `server`, once it is ready.
    pub fn connection(&self, server: &str) -> Option<Arc<Connection>> {
        lock(&self.connections).get(server).cloned()
    }

    /// Waits until `server` is ready and gives its connection, or `None` once it is down
    /// (failed to start, gave up restarting, stopped) or not a server of this hub. A server
    /// being restarted is waited for. Cancel by dropping the future.
    pub fn wait_connection(
        &self,
        server: &str,
    ) -> impl std::future::Future<Output = Option<Arc<Connection>>> + Send + 'static {
        let (connections, states, server) = (
            self.connections.clone(),
            self.states.clone(),
            server.to_string(),
        );
        async move {
            loop {
                // Registered before looking, so a change in between is not missed.
                let changed = states.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if let Some(connection) = lock(&connections).get(&server).cloned() {
                    return Some(connection);
                }
                match states.get(&server) {
                    None | Some(State::Down) => return None,
                    Some(State::Starting) => {}
                }
                changed.await;
            }
        }
    }

    /// Asks `server` to fetch its prompt list again now (Ctrl-R), whatever its catalog's
    /// TTL: the result comes as `PromptsChanged`, or `ListStale` when it fails. A server
    /// not ready yet lists when it is.
    pub fn relist(&self, server: &str) {
        if let Some(relist) = self.relists.get(server) {
            relist.notify.notify_one();
        }
    }

    /// [`Hub::relist`], and the list it fetched (also sent as `PromptsChanged`, and written
    /// to the catalog), or why it failed; `None` when the server went down first or is
    /// not a server of this hub. For the one-shot `get`, which re-lists before refusing a
    /// prompt a stale catalog did not have.
    pub fn relist_and_wait(
        &self,
        server: &str,
    ) -> impl std::future::Future<Output = Option<Relisted>> + Send + 'static {
        let answer = self.relists.get(server).map(|relist| {
            let (tx, rx) = tokio::sync::oneshot::channel();
            lock(&relist.waiters).push(tx);
            relist.notify.notify_one();
            rx
        });
        async move { answer?.await.ok() }
    }

    /// Closes every connection (stdin first, then a short grace, then termination) and
    /// waits for that to finish.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        for task in self.tasks {
            let _ = task.await;
        }
        // What the servers told is on disk before a one-shot command exits.
        let writes: Vec<_> = lock(&self.writes).drain(..).collect();
        let _ = tokio::time::timeout(WRITES_GRACE, futures::future::join_all(writes)).await;
    }
}

async fn run_server(
    config: ServerConfig,
    events: mpsc::Sender<McpEvent>,
    forward_logs: bool,
    watch_list_changes: bool,
    shared: Shared,
    shutdown: CancellationToken,
    restarts: RestartPolicy,
) {
    let server = config.name.clone();
    // However it ends, waiters learn the server is down.
    let _down = MarkDown {
        states: shared.states.clone(),
        server: server.clone(),
    };
    // `Connection::connect` gives it the server's secrets (and tokens) before it starts.
    let log = Arc::new(ServerLog::default());
    let lines =
        forward_logs.then(|| forward_log_lines(server.clone(), events.clone(), log.clone()));
    let restartable = matches!(config.transport, TransportConfig::Stdio { .. });
    let mut attempt = 0;
    loop {
        let run = Run {
            config: &config,
            events: &events,
            log: &log,
            lines: &lines,
            watch_list_changes,
            connections: &shared.connections,
            states: &shared.states,
            relist: &shared.relist,
            catalog: shared.catalog.as_ref(),
            restarts: &restarts,
            shutdown: &shutdown,
        };
        let lived = match run.once().await {
            Ended::Shutdown => return,
            Ended::Dropped { lived } => lived,
            Ended::Failed => Duration::ZERO,
        };
        // A server that never came up is not restarted by itself: its error is what the
        // user needs (a restart key tries again). One that crashed is.
        let crashed_before = attempt > 0 || lived > Duration::ZERO;
        if !restartable || !crashed_before || restarts.attempts == 0 {
            return;
        }
        shared.states.set(&server, State::Starting);
        if lived >= restarts.stable_after {
            attempt = 0;
        }
        if attempt == restarts.attempts {
            let note = log.push(
                "mcpick",
                &format!("gave up restarting after {attempt} attempts"),
            );
            emit(
                &events,
                &shutdown,
                McpEvent::Log {
                    server: server.clone(),
                    line: note,
                },
            )
            .await;
            return;
        }
        attempt += 1;
        let delay = restarts.delay(attempt);
        let restarting = McpEvent::Restarting {
            server: server.clone(),
            attempt,
            of: restarts.attempts,
            delay,
        };
        tracing::info!(%server, attempt, ?delay, "restarting a crashed server");
        if !emit(&events, &shutdown, restarting).await {
            return;
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(delay) => {}
        }
    }
}

/// What every server task of a hub shares with the hub.
struct Shared {
    connections: Arc<Mutex<HashMap<ServerId, Arc<Connection>>>>,
    states: Arc<States>,
    relist: Arc<Relists>,
    /// The server's catalog entry and how to use it; `None`: no catalog (neither read
    /// nor written).
    catalog: Option<Catalog>,
}

/// A server's "list again now" switch, and who waits for the list it brings.
#[derive(Default)]
struct Relists {
    notify: tokio::sync::Notify,
    waiters: Mutex<Vec<tokio::sync::oneshot::Sender<Relisted>>>,
}

/// What a re-list brought: the new list, or why it failed.
type Relisted = Result<Vec<PromptInfo>, McpError>;

impl Relists {
    /// Gives every waiter the outcome of a re-list.
    fn answer(&self, outcome: &Relisted) {
        for waiter in lock(&self.waiters).drain(..) {
            let _ = waiter.send(outcome.clone());
        }
    }
}

/// One server's catalog entry, kept up to date across restarts, and how it is used.
struct Catalog {
    policy: CatalogUse,
    /// The entry, shared with the write under way, emptied of its prompts once they are
    /// on disk (the app holds the list the user sees; the hub keeps no second copy of
    /// 10,000 prompts).
    held: Arc<Mutex<Held>>,
    /// The hub's writes under way, for shutdown to wait on.
    writes: Writes,
    /// The number of the last write asked for.
    sequence: std::sync::atomic::AtomicU64,
    /// The number of the last write done; held while writing, so the server's writes run
    /// one at a time and an older one never lands after a newer one.
    written: Arc<Mutex<u64>>,
    /// Told once when a write fails (a [`McpEvent::Warning`]); later failures only log.
    failures: WriteFailures,
}

/// A server's entry as the hub holds it.
#[derive(Default)]
struct Held {
    entry: Option<Arc<ServerEntry>>,
    /// Its pages hold their hints but not their prompts, which are in the file only (if
    /// its write succeeded): a restart lists live, a write reads them back.
    prompts_on_disk: bool,
}

/// Where a failed catalog write is told, and whether it was already.
#[derive(Clone, Default)]
struct WriteFailures {
    events: Option<mpsc::Sender<McpEvent>>,
    told: Arc<std::sync::atomic::AtomicBool>,
    first: CatalogWriteFailure,
}

impl WriteFailures {
    /// Logs a failed write; the first one is also sent as a warning, the next are not
    /// (a full disk must not add a line to the menu on every list change).
    fn failed(&self, server: &str, error: &std::io::Error) {
        tracing::warn!(%server, %error, "cannot write the catalog");
        if self.told.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let text = format!(
            "cannot write the catalog cache ({error}); the next start lists this \
             server's prompts again"
        );
        *lock(&self.first.0) = Some((server.to_string(), text.clone()));
        if let Some(events) = &self.events {
            let _ = events.try_send(McpEvent::Warning {
                server: server.to_string(),
                text,
            });
        }
    }
}

impl Catalog {
    fn new(
        policy: CatalogUse,
        entry: Option<ServerEntry>,
        writes: Writes,
        failures: WriteFailures,
    ) -> Catalog {
        Catalog {
            policy,
            held: Arc::new(Mutex::new(Held {
                entry: entry.map(Arc::new),
                prompts_on_disk: false,
            })),
            writes,
            sequence: Default::default(),
            written: Default::default(),
            failures,
        }
    }

    /// The entry held now (its prompts may be on disk only: see [`Held`]).
    fn entry(&self) -> Option<Arc<ServerEntry>> {
        lock(&self.held).entry.clone()
    }

    /// Changes the entry and writes it to disk off the hot path (a blocking task), for a
    /// server the catalog applies to ([`crate::cache::applies_to`]). Its sign-in context
    /// is read there too (it reads the token file). An entry whose prompts are on disk
    /// only is written with them, read back from the file.
    fn update(&self, config: &ServerConfig, change: impl FnOnce(&mut Held)) {
        let (entry, on_disk) = {
            let mut held = lock(&self.held);
            change(&mut held);
            (held.entry.clone(), held.prompts_on_disk)
        };
        let Some(entry) = entry else { return };
        if !crate::cache::applies_to(config) {
            return;
        }
        let config = config.clone();
        let number = 1 + self
            .sequence
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let written = self.written.clone();
        let held = self.held.clone();
        let failures = self.failures.clone();
        let write = tokio::task::spawn_blocking(move || {
            let mut last = lock(&written);
            if *last > number {
                return;
            }
            *last = number;
            let auth = crate::mcp::oauth::authorization_context(&config);
            let full = if on_disk {
                match with_prompts_from_disk(&entry, &config, auth.as_deref()) {
                    Some(full) => Arc::new(full),
                    // Nothing to take them from: the file is left as it is.
                    None => return,
                }
            } else {
                entry.clone()
            };
            // Streamed from the shared entry: no copy of it, no JSON of it whole in memory.
            let stored = crate::mcp::client::catalog_write::store(
                &full,
                auth.as_deref(),
                crate::cache::now_ms(),
            );
            drop(full);
            match stored {
                Ok(()) => {
                    let mut held = lock(&held);
                    // Still the entry held (no change since): its prompts may go.
                    if held.entry.as_ref().is_some_and(|e| Arc::ptr_eq(e, &entry)) {
                        drop(entry);
                        let kept = held.entry.take().map(without_prompts);
                        held.entry = kept.map(Arc::new);
                        held.prompts_on_disk = true;
                    }
                }
                Err(error) => failures.failed(&config.name, &error),
            }
        });
        let mut writes = lock(&self.writes);
        writes.retain(|w| !w.is_finished());
        writes.push(write);
    }

    /// Keeps a list fetched now: its pages, warnings and served problems, with what the
    /// connection knows (era, details, discover result).
    ///
    /// The list is written from where it is, here (a list of 10,000 prompts takes a few
    /// milliseconds), and the hub keeps only its pages' hints: a copy kept, or one made
    /// for a write off this task, would be a second full list in memory beside the app's.
    fn keep_list(&self, config: &ServerConfig, connection: &Connection, list: &PromptList) {
        let mut fresh = connection.catalog_entry(config, None);
        fresh.details.served_problems = connection.served_problems();
        fresh.pages = Some(
            list.pages
                .iter()
                .map(|(hints, _)| crate::cache::PromptPage {
                    hints: *hints,
                    prompts: Vec::new(),
                })
                .collect(),
        );
        fresh.warnings = list.warnings.clone();
        let fresh = Arc::new(fresh);
        *lock(&self.held) = Held {
            entry: Some(fresh.clone()),
            prompts_on_disk: true,
        };
        if !crate::cache::applies_to(config) {
            return;
        }
        let number = 1 + self
            .sequence
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut last = lock(&self.written);
        if *last > number {
            return;
        }
        *last = number;
        let auth = crate::mcp::oauth::authorization_context(config);
        let stored = crate::mcp::client::catalog_write::store_list(
            &fresh,
            list,
            auth.as_deref(),
            crate::cache::now_ms(),
        );
        if let Err(error) = stored {
            self.failures.failed(&config.name, &error);
        }
    }

    /// Keeps what a new connection told (era, details, discover result) beside the
    /// cached list it was started with.
    fn keep_handshake(&self, config: &ServerConfig, connection: &Connection) {
        let mut fresh = connection.catalog_entry(config, None);
        self.update(config, |held| {
            if let Some(old) = held.entry.take() {
                // Moved, not copied, unless a write still holds the old entry.
                let old = Arc::try_unwrap(old).unwrap_or_else(|shared| (*shared).clone());
                fresh.details.served_problems = old.details.served_problems;
                fresh.pages = old.pages;
                fresh.warnings = old.warnings;
            }
            held.entry = Some(Arc::new(fresh));
        });
    }

    /// A list change: the cached list is stale at once (written so), whatever its TTL.
    fn invalidate(&self, config: &ServerConfig) {
        self.update(config, |held| {
            if let Some(entry) = &mut held.entry {
                Arc::make_mut(entry).invalidate_prompts();
            }
        });
    }
}

/// `entry` without the prompts of its pages (their hints and the rest stay).
fn without_prompts(entry: Arc<ServerEntry>) -> ServerEntry {
    let mut entry = Arc::try_unwrap(entry).unwrap_or_else(|shared| (*shared).clone());
    for page in entry.pages.iter_mut().flatten() {
        page.prompts = Vec::new();
    }
    entry
}

/// `entry` (its prompts on disk only) with the prompts of its file put back, page by
/// page under `entry`'s hints; `None` when the file no longer holds those pages.
fn with_prompts_from_disk(
    entry: &ServerEntry,
    config: &ServerConfig,
    auth: Option<&str>,
) -> Option<ServerEntry> {
    let crate::cache::Loaded::Found(disk) = crate::cache::load(config, auth) else {
        return None;
    };
    let mut full = entry.clone();
    let (Some(pages), Some(from)) = (&mut full.pages, disk.pages) else {
        return Some(full);
    };
    if pages.len() != from.len() {
        return None;
    }
    for (page, from) in pages.iter_mut().zip(from) {
        page.prompts = from.prompts;
    }
    Some(full)
}

/// Whether a server is starting (or restarting) or down for good, as
/// [`Hub::wait_connection`] needs to know; a ready one is in the connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Starting,
    Down,
}

/// The [`State`] of each server, and a notice of every change (including a connection
/// coming or going).
#[derive(Default)]
struct States {
    states: Mutex<HashMap<ServerId, State>>,
    changed: tokio::sync::Notify,
}

impl States {
    fn set(&self, server: &str, state: State) {
        lock(&self.states).insert(server.to_string(), state);
        self.changed.notify_waiters();
    }

    fn get(&self, server: &str) -> Option<State> {
        lock(&self.states).get(server).copied()
    }
}

/// Marks a server down when its task ends, however it ends.
struct MarkDown {
    states: Arc<States>,
    server: ServerId,
}

impl Drop for MarkDown {
    fn drop(&mut self) {
        self.states.set(&self.server, State::Down);
    }
}

/// How one connection of a server ended.
enum Ended {
    /// Shutdown (or a stop) came first.
    Shutdown,
    /// It never became ready; `Failed` was sent.
    Failed,
    /// It was ready for `lived`, then dropped; `Failed` was sent.
    Dropped { lived: Duration },
}

/// What one connection attempt of a server works with.
struct Run<'a> {
    config: &'a ServerConfig,
    events: &'a mpsc::Sender<McpEvent>,
    log: &'a Arc<ServerLog>,
    lines: &'a Option<mpsc::Sender<LogLine>>,
    /// Whether a 2026-07-28 server's list changes are subscribed to.
    watch_list_changes: bool,
    connections: &'a Arc<Mutex<HashMap<ServerId, Arc<Connection>>>>,
    /// Told when the connection comes and goes.
    states: &'a Arc<States>,
    /// Notified by [`Hub::relist`].
    relist: &'a Arc<Relists>,
    /// The server's catalog entry, if the hub uses the catalog.
    catalog: Option<&'a Catalog>,
    /// Its waits between failed re-lists too.
    restarts: &'a RestartPolicy,
    shutdown: &'a CancellationToken,
}

impl Run<'_> {
    /// Connects, lists, and watches until the connection drops or shutdown.
    async fn once(&self) -> Ended {
        let (config, events, shutdown) = (self.config, self.events, self.shutdown);
        let server = config.name.clone();
        let connecting = McpEvent::Connecting {
            server: server.clone(),
        };
        if !emit(events, shutdown, connecting).await {
            return Ended::Shutdown;
        }
        if let Some(problem) = config
            .problem
            .clone()
            .or_else(|| config.missing_inputs_problem())
        {
            let error = McpError::Config(problem);
            emit(events, shutdown, failed(&server, error, self.log)).await;
            return Ended::Failed;
        }
        let known = self
            .catalog
            .and_then(|catalog| {
                let entry = catalog.entry()?;
                Some(Known::from_entry(&entry, catalog.policy.direct))
            })
            .unwrap_or_default();
        let connect = async {
            let mut connection =
                Connection::connect_known(config, self.log.clone(), self.lines.clone(), &known)
                    .await?;
            if self.watch_list_changes {
                // Before the first list, so no change falls between the two.
                connection.watch_list_changes().await;
            }
            Ok(connection)
        };
        let connection = tokio::select! {
            result = connect => result,
            _ = shutdown.cancelled() => return Ended::Shutdown,
        };
        let connection = match connection {
            Ok(connection) => Arc::new(connection),
            Err(error) => {
                let error = self.log.mask_error(error);
                tracing::warn!(%server, %error, "connect failed");
                emit(events, shutdown, failed(&server, error, self.log)).await;
                return Ended::Failed;
            }
        };
        let cached = self.cached_list(&connection);
        // A server without the prompts capability or the Skills extension has none to list
        // (and may refuse to).
        let listed = if cached.is_some() {
            None
        } else if connection.details().prompts || connection.details().skills {
            tokio::select! {
                result = connection.list_prompts_noting() => Some(result),
                _ = shutdown.cancelled() => return self.closing(connection, Ended::Shutdown).await,
            }
        } else {
            Some(Ok(PromptList::default()))
        };
        let (list, freshness) = match (cached, listed) {
            (Some((list, freshness)), _) => {
                if !connection.skipped_handshake()
                    && let Some(catalog) = self.catalog
                {
                    catalog.keep_handshake(config, &connection);
                }
                (list, Some(freshness))
            }
            (None, Some(Ok(list))) => {
                if let Some(catalog) = self.catalog {
                    catalog.keep_list(config, &connection, &list);
                }
                (list, None)
            }
            (None, Some(Err(error))) => {
                emit(events, shutdown, failed(&server, error, self.log)).await;
                return self.closing(connection, Ended::Failed).await;
            }
            (None, None) => return self.closing(connection, Ended::Shutdown).await,
        };
        if !warn(&connection, &list.warnings, events, shutdown).await {
            return self.closing(connection, Ended::Shutdown).await;
        }
        lock(self.connections).insert(server.clone(), connection.clone());
        self.states.changed.notify_waiters();
        let mut details = connection.details().clone();
        details.served_problems = match (&freshness, self.catalog) {
            (Some(_), Some(catalog)) => catalog
                .entry()
                .map(|e| e.details.served_problems.clone())
                .unwrap_or_default(),
            _ => connection.served_problems(),
        };
        let problems = details.served_problems.clone();
        tracing::info!(%server, version = %details.protocol_version, prompts = list.prompts.len(), cached = freshness.is_some(), "ready");
        let fresh_until = match freshness {
            Some(Freshness::Fresh { until_ms }) => Some(until_ms),
            Some(Freshness::Stale) => None,
            None => list.fresh_until_ms(),
        };
        // Moved into the event: the hub keeps no copy of a list the app and the catalog hold.
        let PromptList {
            prompts, warnings, ..
        } = list;
        if let Some(freshness) = freshness {
            let from_catalog = McpEvent::FromCatalog {
                server: server.clone(),
                freshness,
            };
            if !emit(events, shutdown, from_catalog).await {
                return self.closing(connection, Ended::Shutdown).await;
            }
        }
        let ready = McpEvent::Ready {
            server: server.clone(),
            details,
            prompts,
        };
        let since = std::time::Instant::now();
        let watch = Watch {
            config,
            catalog: self.catalog,
            relist: self.relist,
            retry: self.restarts,
            events,
            shutdown,
        };
        let ended = if emit(events, shutdown, ready).await
            && watch
                .run(&connection, warnings, problems, fresh_until)
                .await
        {
            Ended::Dropped {
                lived: since.elapsed().max(Duration::from_millis(1)),
            }
        } else {
            Ended::Shutdown
        };
        // Waiters for a re-list this connection will not make are told it went.
        lock(&self.relist.waiters).clear();
        self.closing(connection, ended).await
    }

    /// The cached list to take in place of listing now, and how fresh it is: the
    /// catalog's, when the server still speaks the era it was learned in, has prompts, and
    /// the list is fresh (or, by the policy, any list will do).
    fn cached_list(&self, connection: &Connection) -> Option<(PromptList, Freshness)> {
        let catalog = self.catalog?;
        let held = lock(&catalog.held);
        if held.prompts_on_disk {
            // Written and dropped from memory: a restart lists live (no file read here).
            return None;
        }
        let entry = held.entry.as_ref()?;
        let details = connection.details();
        if entry.era != connection.era() || !(details.prompts || details.skills) {
            return None;
        }
        let freshness = entry.freshness(crate::cache::now_ms())?;
        if matches!(freshness, Freshness::Stale) && !catalog.policy.stale_will_do {
            return None;
        }
        let pages = entry.pages.as_ref()?;
        Some((
            PromptList {
                prompts: entry.prompts(),
                warnings: entry.warnings.clone(),
                pages: pages
                    .iter()
                    .map(|page| (page.hints, page.prompts.len()))
                    .collect(),
            },
            freshness,
        ))
    }

    /// Forgets `connection` (if it is still the server's) and closes it.
    async fn closing(&self, connection: Arc<Connection>, ended: Ended) -> Ended {
        let server = &self.config.name;
        {
            // Only this connection: a newer one may hold the name already.
            let mut connections = lock(self.connections);
            if connections
                .get(server)
                .is_some_and(|c| Arc::ptr_eq(c, &connection))
            {
                connections.remove(server);
            }
        }
        self.states.changed.notify_waiters();
        close(connection).await;
        ended
    }
}

/// Closes a connection now if nothing holds it, else once requests still holding it let go
/// (their futures end them), without waiting here.
async fn close(connection: Arc<Connection>) {
    match Arc::try_unwrap(connection) {
        Ok(connection) => connection.shutdown().await,
        Err(shared) => {
            tokio::spawn(async move {
                let mut shared = shared;
                loop {
                    match Arc::try_unwrap(shared) {
                        Ok(connection) => return connection.shutdown().await,
                        Err(again) => shared = again,
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            });
        }
    }
}

/// Sends an event unless shutdown comes first (a reader that stopped reading must not
/// hold up shutdown). Returns false on shutdown.
async fn emit(
    events: &mpsc::Sender<McpEvent>,
    shutdown: &CancellationToken,
    event: McpEvent,
) -> bool {
    tokio::select! {
        biased;
        _ = shutdown.cancelled() => false,
        _ = events.send(event) => true,
    }
}

/// What keeps a ready server's list fresh while it is connected.
struct Watch<'a> {
    config: &'a ServerConfig,
    catalog: Option<&'a Catalog>,
    relist: &'a Relists,
    /// The waits between retries of a failed re-list.
    retry: &'a RestartPolicy,
    events: &'a mpsc::Sender<McpEvent>,
    shutdown: &'a CancellationToken,
}

/// Why a list is fetched again while connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    /// The server said its list changed.
    Changed,
    /// [`Hub::relist`] (Ctrl-R, or a one-shot `get` that did not find its prompt).
    Asked,
    /// The list's TTL ran out.
    Expired,
    /// A re-list failed a while ago: tried again.
    Retry,
}

impl Watch<'_> {
    /// Fetches the list again on list changes, on [`Hub::relist`], and when its TTL runs
    /// out (`fresh_until`: ms since the epoch; `None`, as for a list of `ttlMs` 0 or a
    /// legacy one, sets no timer: only notices and a refresh asked for fetch it then),
    /// until shutdown or until the connection drops (then reports it failed and returns
    /// true). Every wait races shutdown, so a slow server never delays it. `told`: the
    /// warnings of the list it has, which a refresh that finds them again does not repeat;
    /// `problems`: the served problems of that list, sent again only when a refresh finds
    /// others. A failed re-fetch keeps the list, now stale ([`McpEvent::ListStale`]), and
    /// is tried again after [`RestartPolicy::relist_retry`] (30 s, doubling to 10 min,
    /// jittered: never a tight loop against a server that fails) until a list succeeds; a
    /// list change or a refresh asked for lists at once and starts the waits over.
    async fn run(
        &self,
        connection: &Connection,
        mut told: Vec<String>,
        mut problems: Vec<ServedProblem>,
        mut fresh_until: Option<u64>,
    ) -> bool {
        let (events, shutdown) = (self.events, self.shutdown);
        let server = connection.name().to_string();
        let mut poll = tokio::time::interval(CLOSED_POLL);
        // Failed re-lists in a row, and when the next retry is due.
        let mut failures = 0u32;
        let mut retry_at: Option<tokio::time::Instant> = None;
        loop {
            let expiry = fresh_until.map(ttl_deadline);
            let trigger = tokio::select! {
                biased;
                _ = shutdown.cancelled() => return false,
                _ = connection.list_changed() => Trigger::Changed,
                _ = self.relist.notify.notified() => Trigger::Asked,
                _ = async { match expiry { Some(at) => tokio::time::sleep_until(at).await, None => std::future::pending().await } } => Trigger::Expired,
                _ = async { match retry_at { Some(at) => tokio::time::sleep_until(at).await, None => std::future::pending().await } } => Trigger::Retry,
                _ = poll.tick() => {
                    if connection.is_closed() {
                        // Let the stderr reader catch the last lines before reporting.
                        tokio::select! {
                            _ = shutdown.cancelled() => return false,
                            _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                        }
                        return emit(events, shutdown, failed(&server, connection.closed_reason(), connection.log())).await;
                    }
                    continue;
                }
            };
            if trigger == Trigger::Changed
                && let Some(catalog) = self.catalog
            {
                // The spec: a change notice invalidates the cached result at once.
                catalog.invalidate(self.config);
            }
            retry_at = None;
            if matches!(trigger, Trigger::Changed | Trigger::Asked) {
                // A new reason to list: its failure waits the shortest time again.
                failures = 0;
                // A storm of notices becomes one refresh per settle period.
                tokio::select! {
                    _ = shutdown.cancelled() => return false,
                    _ = tokio::time::sleep(LIST_SETTLE) => {}
                }
            }
            tracing::debug!(%server, ?trigger, "listing prompts again");
            let refreshed = tokio::select! {
                biased;
                _ = shutdown.cancelled() => return false,
                result = connection.list_prompts_noting() => result,
            };
            let event = match refreshed {
                Ok(list) => {
                    failures = 0;
                    if let Some(catalog) = self.catalog {
                        catalog.keep_list(self.config, connection, &list);
                    }
                    fresh_until = list.fresh_until_ms();
                    let PromptList {
                        prompts, warnings, ..
                    } = list;
                    self.relist.answer(&Ok(prompts.clone()));
                    let new: Vec<String> = warnings
                        .iter()
                        .filter(|w| !told.contains(w))
                        .cloned()
                        .collect();
                    if !warn(connection, &new, events, shutdown).await {
                        return false;
                    }
                    told = warnings;
                    let now = connection.served_problems();
                    if now != problems {
                        problems = now.clone();
                        let changed = McpEvent::ServedProblemsChanged {
                            server: server.clone(),
                            problems: now,
                        };
                        if !emit(events, shutdown, changed).await {
                            return false;
                        }
                    }
                    tracing::info!(%server, prompts = prompts.len(), "prompt list changed");
                    McpEvent::PromptsChanged {
                        server: server.clone(),
                        prompts,
                    }
                }
                Err(error) => {
                    // Keep the rows, stale: the spec allows serving them when a re-fetch fails.
                    fresh_until = None;
                    failures = failures.saturating_add(1);
                    retry_at =
                        Some(tokio::time::Instant::now() + self.retry.relist_retry(failures));
                    self.relist.answer(&Err(error.clone()));
                    let line = connection
                        .log()
                        .push("mcpick", &format!("refreshing prompts failed: {error}"));
                    if !emit(
                        events,
                        shutdown,
                        McpEvent::Log {
                            server: server.clone(),
                            line,
                        },
                    )
                    .await
                    {
                        return false;
                    }
                    McpEvent::ListStale {
                        server: server.clone(),
                        reason: error.to_string(),
                    }
                }
            };
            if !emit(events, shutdown, event).await {
                return false;
            }
        }
    }
}

/// When a list fresh until `until_ms` (ms since the epoch) is fetched again: then, plus a
/// jitter of up to a tenth of the time left, at most [`MAX_TTL_JITTER_MS`] (and never
/// sooner than [`LIST_SETTLE`] from now: no tight loop on a clock that jumps).
fn ttl_deadline(until_ms: u64) -> tokio::time::Instant {
    let left = until_ms.saturating_sub(crate::cache::now_ms());
    tokio::time::Instant::now() + ttl_wait(left, random_u64())
}

/// The wait before a TTL re-list with `left_ms` of freshness left: that, plus `random`'s
/// share of up to a tenth of it (at most [`MAX_TTL_JITTER_MS`]), and never less than
/// [`LIST_SETTLE`].
fn ttl_wait(left_ms: u64, random: u64) -> Duration {
    let jitter_cap = (left_ms / 10).min(MAX_TTL_JITTER_MS);
    let jitter = if jitter_cap == 0 {
        0
    } else {
        random % (jitter_cap + 1)
    };
    Duration::from_millis(left_ms.saturating_add(jitter)).max(LIST_SETTLE)
}

/// A random number, from the standard library's per-process hash keys (jitter needs no
/// more, and no crate).
fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    hasher.finish()
}

/// Tells of each of `warnings` (a [`McpEvent::Warning`]), and keeps it in the server's log
/// and the log file. Returns false on shutdown.
async fn warn(
    connection: &Connection,
    warnings: &[String],
    events: &mpsc::Sender<McpEvent>,
    shutdown: &CancellationToken,
) -> bool {
    let server = connection.name().to_string();
    for text in warnings {
        // The log file (through tracing) and the kept lines a log snapshot resends.
        tracing::warn!(target: "mcpick::server", %server, "{text}");
        connection.log().push(crate::mcp::log::MCPICK_SOURCE, text);
        let event = McpEvent::Warning {
            server: server.clone(),
            text: text.clone(),
        };
        if !emit(events, shutdown, event).await {
            return false;
        }
    }
    true
}

fn failed(server: &str, error: McpError, log: &ServerLog) -> McpEvent {
    McpEvent::Failed {
        server: server.to_string(),
        error: log.mask_error(error),
        stderr: log.stderr_tail(STDERR_TAIL),
    }
}

fn forward_log_lines(
    server: ServerId,
    events: mpsc::Sender<McpEvent>,
    log: Arc<ServerLog>,
) -> mpsc::Sender<LogLine> {
    let (tx, mut rx) = mpsc::channel::<LogLine>(256);
    tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            if events
                .send(McpEvent::Log {
                    server: server.clone(),
                    line,
                })
                .await
                .is_err()
            {
                return;
            }
            // Caught up after a flood that dropped lines: the whole log, newest included.
            if rx.is_empty() && log.take_dropped() {
                let lines = log.lines();
                if events
                    .send(McpEvent::LogSnapshot {
                        server: server.clone(),
                        lines,
                    })
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    });
    tx
}

#[cfg(test)]
#[path = "hub_tests.rs"]
mod tests;
