//! Connecting the servers a subcommand needs, one request each, and saying what failed.

use super::CliError;
use super::output;
use crate::cache::Freshness;
use crate::config;
use crate::config::ServerConfig;
use crate::mcp::CatalogUse;
use crate::mcp::Connection;
use crate::mcp::Hub;
use crate::mcp::McpError;
use crate::mcp::McpEvent;
use crate::model::PromptInfo;
use crate::model::ServerDetails;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Prints the first failed catalog write of the command (its hubs are shut down, their
/// writes done) as one warning line; nothing when every write went through.
pub(super) fn tell_catalog_write_failure() {
    let failures = std::mem::take(&mut *WRITE_FAILURES.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some((server, text)) = failures.iter().find_map(|f| f.take()) {
        output::error(&format!("server `{server}`: {text}"));
    }
}

/// What one server ended up as, after the hub reported on it.
pub(super) enum Outcome {
    Ready {
        details: ServerDetails,
        prompts: Vec<PromptInfo>,
        /// What its prompt list left out, one line each.
        warnings: Vec<String>,
        /// The prompts came from the catalog (not listed now), this fresh.
        cached: Option<Freshness>,
    },
    Failed {
        error: McpError,
        stderr: Vec<String>,
    },
}

/// Starts `servers` with what the catalog holds of them, used as `catalog` says, waits
/// until each is ready or failed, and returns the hub (still connected) with each server's
/// outcome. Ctrl-C stops waiting.
pub(super) async fn connect_all(
    servers: Vec<ServerConfig>,
    catalog: CatalogUse,
) -> Result<(Hub, BTreeMap<String, Outcome>), CliError> {
    connect_all_reading(servers, catalog, true).await
}

/// [`connect_all`]; with `read_catalog` false the catalog is not read (each server gets
/// the normal handshake and lists), only written.
pub(super) async fn connect_all_reading(
    servers: Vec<ServerConfig>,
    catalog: CatalogUse,
    read_catalog: bool,
) -> Result<(Hub, BTreeMap<String, Outcome>), CliError> {
    let servers = super::inputs::ask(servers)?;
    let (tx, rx) = mpsc::channel(64);
    let pending: std::collections::BTreeSet<String> =
        servers.iter().map(|s| s.name.clone()).collect();
    let servers: Vec<(ServerConfig, Option<crate::cache::ServerEntry>)> = servers
        .into_iter()
        .map(|server| {
            if !read_catalog {
                return (server, None);
            }
            let (entry, notice) = crate::cache::at_start(&server, || {
                crate::mcp::oauth::authorization_context(&server)
            });
            if let Some(notice) = notice {
                output::error(&notice);
            }
            (server, entry)
        })
        .collect();
    let hub = Hub::start_once_cached(servers, tx, catalog);
    WRITE_FAILURES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(hub.catalog_write_failure());
    outcomes_of(hub, rx, pending).await
}

/// [`connect_all`] past the catalog, neither read nor written: for `mcpick test`, whose
/// pinned eras must not become what the catalog remembers of the server.
pub(super) async fn connect_uncached(
    servers: Vec<ServerConfig>,
) -> Result<(Hub, BTreeMap<String, Outcome>), CliError> {
    let servers = super::inputs::ask(servers)?;
    let (tx, rx) = mpsc::channel(64);
    let pending = servers.iter().map(|s| s.name.clone()).collect();
    outcomes_of(Hub::start_once(servers, tx), rx, pending).await
}

/// Waits until each `pending` server of `hub` is ready or failed (Ctrl-C stops waiting).
async fn outcomes_of(
    hub: Hub,
    mut rx: mpsc::Receiver<McpEvent>,
    mut pending: std::collections::BTreeSet<String>,
) -> Result<(Hub, BTreeMap<String, Outcome>), CliError> {
    let mut outcomes = BTreeMap::new();
    // Warnings come before the server's Ready, and so does its FromCatalog.
    let mut warnings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cached: BTreeMap<String, Freshness> = BTreeMap::new();
    let interrupt = crate::sys::signals::stopped();
    tokio::pin!(interrupt);
    while !pending.is_empty() {
        let event = tokio::select! {
            event = rx.recv() => event,
            code = &mut interrupt => {
                hub.shutdown().await;
                return Err(CliError { code, message: "stopped by a signal; servers shut down".into() });
            }
        };
        let Some(event) = event else { break };
        match event {
            McpEvent::Ready {
                server,
                details,
                prompts,
            } => {
                pending.remove(&server);
                let warnings = warnings.remove(&server).unwrap_or_default();
                let cached = cached.remove(&server);
                outcomes.insert(
                    server,
                    Outcome::Ready {
                        details,
                        prompts,
                        warnings,
                        cached,
                    },
                );
            }
            McpEvent::FromCatalog { server, freshness } if pending.contains(&server) => {
                cached.insert(server, freshness);
            }
            McpEvent::Warning { server, text } if pending.contains(&server) => {
                warnings.entry(server).or_default().push(text);
            }
            // A failure after Ready (the server dropped) does not replace the outcome.
            McpEvent::Failed {
                server,
                error,
                stderr,
            } if pending.remove(&server) => {
                outcomes.insert(server, Outcome::Failed { error, stderr });
            }
            _ => {}
        }
    }
    Ok((hub, outcomes))
}

/// The exit code of a command that failed with `error`: 2 when the config must change (a
/// machine grant refused), else 1.
pub(super) fn failure_code(error: &McpError) -> u8 {
    if matches!(error, McpError::Grant(_)) {
        2
    } else {
        1
    }
}

pub(super) fn report_failure(server: &str, error: &McpError, stderr: &[String]) {
    output::error(&format!("server `{server}` failed: {error}"));
    report_stderr(server, stderr);
}

/// The server's last stderr lines and where the full log is, one line each (nested lines
/// indented), or nothing when it wrote none.
pub(super) fn stderr_report(server: &str, stderr: &[String]) -> Vec<String> {
    if stderr.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["its last stderr lines:".to_string()];
    lines.extend(stderr.iter().map(|line| format!("  {line}")));
    if let Some(reason) = crate::mcp::log::file_unavailable() {
        lines.push(format!("({reason})"));
    } else if let Some(dir) = config::log_dir() {
        lines.push(if crate::mcp::log::left_out_of(server) {
            format!(
                "(the log, in {}, has them up to its flood budget; how many it left out is said below)",
                dir.display()
            )
        } else {
            format!("(all of them are in the log, in {})", dir.display())
        });
    }
    lines
}

/// Prints [`stderr_report`] under a diagnostic already printed.
pub(super) fn report_stderr(server: &str, stderr: &[String]) {
    stderr_report(server, stderr)
        .iter()
        .for_each(|line| output::detail(line));
}

/// [`stderr_report`] as the tail of an error message.
pub(super) fn stderr_block(server: &str, stderr: &[String]) -> String {
    stderr_report(server, stderr)
        .iter()
        .map(|line| format!("\n  {line}"))
        .collect()
}

pub(super) fn write(body: &str) -> Result<(), CliError> {
    output::result(body).map_err(|e| CliError::runtime(format!("cannot write the output: {e}")))
}

/// The list `server` fetches again now (written to the catalog), or `None` when that
/// failed (logged; the caller goes on with the list it has).
pub(super) async fn relisted(hub: &Hub, server: &str) -> Option<Vec<PromptInfo>> {
    match hub.relist_and_wait(server).await? {
        Ok(prompts) => Some(prompts),
        Err(error) => {
            tracing::info!(%server, %error, "listing again failed");
            None
        }
    }
}

/// What `mcpick servers` says of an HTTP server's sign-in: its tokens when it has some;
/// without them, "not needed" once the server answered without asking for one, and "not
/// signed in" only when it asked (a 401) on a transport mcpick signs in to. Nothing when
/// that is not known (it failed before saying, or was not contacted).
pub(super) fn sign_in_words(
    state: &crate::mcp::oauth::SignInState,
    outcome: Option<&Outcome>,
    signs_in: bool,
) -> Option<String> {
    use crate::mcp::oauth::SignInState;
    match (state, outcome) {
        (SignInState::SignedOut, Some(Outcome::Ready { .. })) => Some("not needed".to_string()),
        (
            SignInState::SignedOut,
            Some(Outcome::Failed {
                error: McpError::SignInRequired { .. },
                ..
            }),
        ) if signs_in => Some(state.describe()),
        (SignInState::SignedOut, _) => None,
        (state, _) => Some(state.describe()),
    }
}

/// Runs one request on `server`'s connection (Ctrl-C cancels it, which sends
/// `notifications/cancelled`), then closes the hub.
pub(super) async fn request_then_close<T, Fut>(
    hub: Hub,
    server: &str,
    request: impl FnOnce(Arc<Connection>) -> Fut,
) -> Result<Result<T, String>, CliError>
where
    Fut: Future<Output = Result<T, McpError>>,
{
    let result = request_on(&hub, server, request).await;
    hub.shutdown().await;
    let result = result?;
    Ok(result.map_err(|(error, stderr)| format!("{error}{stderr}")))
}

/// [`request_then_close`] without the closing: the hub stays up (for a re-list or a
/// reconnection after a failure), and a failure comes with its stderr block apart.
pub(super) async fn request_on<T, Fut>(
    hub: &Hub,
    server: &str,
    request: impl FnOnce(Arc<Connection>) -> Fut,
) -> Result<Result<T, (McpError, String)>, CliError>
where
    Fut: Future<Output = Result<T, McpError>>,
{
    let mut stderr = Vec::new();
    let result = match hub.connection(server) {
        Some(connection) => {
            let log = connection.log().clone();
            let result = tokio::select! {
                result = request(connection) => Ok(result),
                code = crate::sys::signals::stopped() => Err(code),
            };
            // Questions mcpick could not put to anyone are its own decision, not the
            // server's failure: its stderr would only bury the flag to use.
            if matches!(&result, Ok(Err(e)) if !matches!(e, McpError::InputRequired(_))) {
                // Give the stderr reader a moment: a crashing server's last words matter.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                stderr = log.stderr_tail(crate::mcp::STDERR_TAIL);
            }
            result
        }
        None => Ok(Err(McpError::Closed(String::new()))),
    };
    let result = result.map_err(|code| CliError {
        code,
        message: "stopped by a signal; the request was cancelled".into(),
    })?;
    Ok(result.map_err(|error| (error, stderr_block(server, &stderr))))
}

/// The catalog write failures of this command's hubs, told once at its end.
static WRITE_FAILURES: std::sync::Mutex<Vec<crate::mcp::CatalogWriteFailure>> =
    std::sync::Mutex::new(Vec::new());
