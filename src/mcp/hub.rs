//! The hub: starts every server in parallel, reports each one's state as events, keeps
//! catalogs fresh on list changes, and shuts everything down promptly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::connection::{Connection, STDERR_TAIL, lock};
use super::error::McpError;
use super::log::ServerLog;
use super::types::{LogLine, PromptInfo, ServerDetails, ServerId};
use crate::config::ServerConfig;

/// How often a server task checks whether its connection has dropped.
const CLOSED_POLL: Duration = Duration::from_millis(250);

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
    /// The server's prompt list changed and was fetched again.
    PromptsChanged {
        /// Which server.
        server: ServerId,
        /// The new full list.
        prompts: Vec<PromptInfo>,
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
            | McpEvent::Failed { server, .. }
            | McpEvent::Log { server, .. } => server,
        }
    }
}

/// All server connections of one run.
pub struct Hub {
    connections: Arc<Mutex<HashMap<ServerId, Arc<Connection>>>>,
    tasks: Vec<JoinHandle<()>>,
    shutdown: CancellationToken,
}

impl Hub {
    /// Starts one task per server, all at once. Events arrive on `events`; log lines only
    /// when `forward_logs` is set (the CLI does not need them).
    pub fn start(
        servers: Vec<ServerConfig>,
        events: mpsc::Sender<McpEvent>,
        forward_logs: bool,
    ) -> Hub {
        let connections = Arc::new(Mutex::new(HashMap::new()));
        let shutdown = CancellationToken::new();
        let tasks = servers
            .into_iter()
            .map(|config| {
                tokio::spawn(run_server(
                    config,
                    events.clone(),
                    forward_logs,
                    connections.clone(),
                    shutdown.clone(),
                ))
            })
            .collect();
        Hub {
            connections,
            tasks,
            shutdown,
        }
    }

    /// The live connection to `server`, once it is ready.
    pub fn connection(&self, server: &str) -> Option<Arc<Connection>> {
        lock(&self.connections).get(server).cloned()
    }

    /// Closes every connection (stdin first, then a short grace, then termination) and
    /// waits for that to finish.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

async fn run_server(
    config: ServerConfig,
    events: mpsc::Sender<McpEvent>,
    forward_logs: bool,
    connections: Arc<Mutex<HashMap<ServerId, Arc<Connection>>>>,
    shutdown: CancellationToken,
) {
    let server = config.name.clone();
    if !emit(
        &events,
        &shutdown,
        McpEvent::Connecting {
            server: server.clone(),
        },
    )
    .await
    {
        return;
    }
    let log = Arc::new(ServerLog::default());
    if let Some(problem) = config
        .problem
        .clone()
        .or_else(|| config.missing_inputs_problem())
    {
        let error = McpError::Config(problem);
        emit(&events, &shutdown, failed(&server, error, &log)).await;
        return;
    }
    let lines = forward_logs.then(|| forward_log_lines(server.clone(), events.clone()));

    let connect = Connection::connect(&config, log.clone(), lines);
    let connection = tokio::select! {
        result = connect => result,
        _ = shutdown.cancelled() => return,
    };
    let connection = match connection {
        Ok(connection) => Arc::new(connection),
        Err(error) => {
            tracing::warn!(%server, %error, "connect failed");
            emit(&events, &shutdown, failed(&server, error, &log)).await;
            return;
        }
    };
    // A server without the prompts capability has none to list (and may refuse to).
    let listed = if connection.details().prompts {
        tokio::select! {
            result = connection.list_prompts() => Some(result),
            _ = shutdown.cancelled() => None,
        }
    } else {
        Some(Ok(Vec::new()))
    };
    match listed {
        Some(Ok(prompts)) => {
            lock(&connections).insert(server.clone(), connection.clone());
            let details = connection.details().clone();
            tracing::info!(%server, version = %details.protocol_version, prompts = prompts.len(), "ready");
            let ready = McpEvent::Ready {
                server: server.clone(),
                details,
                prompts,
            };
            if emit(&events, &shutdown, ready).await {
                watch_server(&connection, &events, &shutdown).await;
            }
        }
        Some(Err(error)) => {
            emit(&events, &shutdown, failed(&server, error, &log)).await;
        }
        None => {}
    }
    lock(&connections).remove(&server);
    // Requests still holding the connection end when their futures do.
    match Arc::try_unwrap(connection) {
        Ok(connection) => connection.shutdown().await,
        Err(shared) => {
            // Someone still holds it: close it once they let go, but do not wait here.
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

/// Refreshes the catalog on list changes until shutdown or until the connection drops.
/// Every wait races shutdown, so a slow server never delays it.
async fn watch_server(
    connection: &Connection,
    events: &mpsc::Sender<McpEvent>,
    shutdown: &CancellationToken,
) {
    let server = connection.name().to_string();
    let mut poll = tokio::time::interval(CLOSED_POLL);
    loop {
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => return,
            _ = connection.list_changed() => {
                let refreshed = tokio::select! {
                    biased;
                    _ = shutdown.cancelled() => return,
                    result = connection.list_prompts() => result,
                };
                let event = match refreshed {
                    Ok(prompts) => {
                        tracing::info!(%server, prompts = prompts.len(), "prompt list changed");
                        McpEvent::PromptsChanged { server: server.clone(), prompts }
                    }
                    Err(error) => {
                        // Keep the old catalog: a failed refresh is logged, not fatal.
                        let line = connection.log().push("mcpick", &format!("refreshing prompts failed: {error}"));
                        McpEvent::Log { server: server.clone(), line }
                    }
                };
                if !emit(events, shutdown, event).await {
                    return;
                }
            }
            _ = poll.tick() => {
                if connection.is_closed() {
                    // Let the stderr reader catch the last lines before reporting.
                    tokio::select! {
                        _ = shutdown.cancelled() => return,
                        _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                    }
                    emit(events, shutdown, failed(&server, connection.closed_reason(), connection.log())).await;
                    return;
                }
            }
        }
    }
}

fn failed(server: &str, error: McpError, log: &ServerLog) -> McpEvent {
    McpEvent::Failed {
        server: server.to_string(),
        error,
        stderr: log.stderr_tail(STDERR_TAIL),
    }
}

fn forward_log_lines(server: ServerId, events: mpsc::Sender<McpEvent>) -> mpsc::Sender<LogLine> {
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
        }
    });
    tx
}
