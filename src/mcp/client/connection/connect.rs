//! Connecting: the stdio child, Streamable HTTP or SSE transport, the handshake each era wants (or none, from the catalog), and what a refusal means.

use crate::cache::Scope;
use crate::config::{ServerConfig, TransportConfig};
use crate::mcp::client::answer::DecodedAnswers;
use crate::mcp::client::child::{ChildProcess, SpawnSpec};
use crate::mcp::client::connection::{
    Handler, PendingCancels, QuestionRoutes, SDK_DISCOVER_PROBE, Start, client_info, error_chain,
    exit_soon, transport_failure, unreadable,
};
use crate::mcp::client::limit::{LineLimit, RecordIds, SentIds, TRANSPORT_SLACK};
use crate::mcp::error::McpError;
use crate::mcp::log::ServerLog;
use crate::mcp::oauth::{MachineClient, SignedClient};
use crate::mcp::{Connection, Known, known_versions};
use crate::model::{LogLine, ServerDetails};
use crate::secrets::Secrets;
use crate::sys::process::describe_exit;
use rmcp::model::ProtocolVersion;
use rmcp::service::{
    ClientCacheConfig, ClientInitializeError, ClientLifecycleMode, ClientServiceExt, Peer,
    RoleClient, RunningService,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, mpsc};

impl Connection {
    /// Connects and completes the handshake: `server/discover` first (2026-07-28), falling
    /// back to `initialize` for older servers. `log` collects stderr and log messages; each
    /// line is also sent to `lines` when given.
    pub async fn connect(
        config: &ServerConfig,
        log: Arc<ServerLog>,
        lines: Option<mpsc::Sender<LogLine>>,
    ) -> Result<Connection, McpError> {
        Connection::connect_known(config, log, lines, &Known::default()).await
    }

    /// [`Connection::connect`] by what the catalog remembers of the server ([`Known`]): a
    /// legacy one gets `initialize` at once (no `server/discover` probe, no wait for a
    /// server that ignores it), a 2026-07-28 one `server/discover` with no `initialize`
    /// fallback, or no handshake at all ([`Known::direct`]). A server that refuses the
    /// handshake of its remembered era has changed era: it gets the normal handshake, and
    /// [`Connection::era`] tells the caller which it speaks now.
    ///
    /// A server with a machine grant (`oauth.grant`) gets a token first when it has none
    /// that lasts, and a new one once if it refuses the one it had (revoked, or expired
    /// early); a refusal of the grant itself ends it, with no other way tried.
    pub async fn connect_known(
        config: &ServerConfig,
        log: Arc<ServerLog>,
        lines: Option<mpsc::Sender<LogLine>>,
        known: &Known,
    ) -> Result<Connection, McpError> {
        use crate::mcp::oauth as grant;
        grant::ensure_token(config).await?;
        // A refused token is replaced by this client (once); what still fails is final.
        let machine = if grant::is_machine(config) {
            MachineClient::new(config)?
        } else {
            None
        };
        // Boxed: the attempt's body was compiled twice, once per codegen unit awaiting it.
        let attempt: futures::future::BoxFuture<'_, Result<Connection, McpError>> = Box::pin(
            Self::connect_known_once(config, log, lines, known, machine.clone()),
        );
        let connected = attempt.await;
        if let Some(why) = machine.as_ref().and_then(MachineClient::grant_failure) {
            return Err(McpError::Grant(why));
        }
        match connected {
            Err(error @ McpError::SignInRequired { .. }) if grant::is_machine(config) => {
                Err(refused_fresh_token(config, error))
            }
            other => other,
        }
    }

    /// One connection attempt: the secrets to mask, how to start ([`Opening`]), the
    /// transport `config` names and its handshake, then the connection around the service.
    async fn connect_known_once(
        config: &ServerConfig,
        log: Arc<ServerLog>,
        lines: Option<mpsc::Sender<LogLine>>,
        known: &Known,
        machine: Option<MachineClient>,
    ) -> Result<Connection, McpError> {
        crate::mcp::tls::install_crypto_provider();
        let list_changed = Arc::new(Notify::new());
        let prompt_list_changes: Arc<std::sync::atomic::AtomicUsize> = Arc::default();
        let questions = QuestionRoutes::default();
        let secrets = connection_secrets(config, &log);
        let opening = Opening::of(config, known)?;
        let handler = || Handler {
            info: {
                let mut info = client_info();
                if let Some(version) = &opening.legacy_version {
                    info.protocol_version = version.clone();
                }
                info
            },
            list_changed: list_changed.clone(),
            prompt_list_changes: prompt_list_changes.clone(),
            log: log.clone(),
            server: config.name.clone(),
            lines: lines.clone(),
            questions: questions.clone(),
        };
        // Over stdio, `prompts/get` answers are read at the seam and kept here.
        let decoded = DecodedAnswers::default();
        let (service, child) = match &config.transport {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let spec = SpawnSpec {
                    command,
                    args,
                    env,
                    cwd: cwd.as_ref(),
                };
                let limits = StdioLimits {
                    timeout: config.timeout,
                    max_response_bytes: config.max_response_bytes,
                    decoded: decoded.clone(),
                    pinned: config.protocol_version.is_some(),
                };
                // A pinned version is the only handshake tried, as over HTTP.
                let first = (opening.remembered || limits.pinned).then_some(&opening.start);
                let (service, child) =
                    connect_stdio(&config.name, &spec, &log, &lines, limits, first, handler)
                        .await?;
                (service, Some(child))
            }
            TransportConfig::Http {
                url,
                headers,
                legacy_sse: true,
                ..
            } => (
                connect_legacy_sse(config, url, headers, &opening, &handler).await?,
                None,
            ),
            TransportConfig::Http { url, headers, .. } => (
                connect_streamable(config, url, headers, &opening, machine, &handler).await?,
                None,
            ),
        };
        let peer = service.peer().clone();
        // mcpick keeps its own catalog (and sends its lists raw, past rmcp's cache): with
        // rmcp's in-memory cache off, a re-list always asks the server and the two caches
        // can never disagree.
        peer.set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        let details = masked_details(&config.transport, &peer, &secrets)?;
        let connection = Connection {
            direct: matches!(opening.start, Start::Direct(_)) && opening.remembered,
            name: config.name.clone(),
            service,
            peer,
            timeout: config.timeout,
            max_response_bytes: config.max_response_bytes,
            secrets,
            details,
            child,
            log,
            list_changed,
            listener: None,
            pending_cancels: PendingCancels::default(),
            url: match &config.transport {
                TransportConfig::Http { url, .. } => Some(url.clone()),
                TransportConfig::Stdio { .. } => None,
            },
            questions,
            waiting_for_answer: std::sync::Mutex::new(None),
            modern_rounds: std::sync::Mutex::new(0),
            served_problems: Default::default(),
            decoded,
            prompt_list_changes,
        };
        Ok(connection)
    }
}

/// What a connection to `config`'s server masks: the config's secrets and its stored
/// tokens, handed to `log` at once so it masks them from the first stderr line on.
fn connection_secrets(config: &ServerConfig, log: &ServerLog) -> Secrets {
    let mut secrets = config.secrets();
    secrets.extend(crate::mcp::oauth::stored_tokens(config));
    log.add_secrets(&secrets);
    secrets
}

/// How a connection starts, from the pinned `protocol_version` and what the catalog
/// remembers.
struct Opening {
    /// The first start: the remembered era's, or the normal handshake.
    start: Start,
    /// The version `initialize` offers, when something pins it.
    legacy_version: Option<ProtocolVersion>,
    /// Whether `start` is the remembered era's rather than the normal handshake.
    remembered: bool,
    /// The normal handshake: the pinned one, or `server/discover` then `initialize`.
    lifecycle: ClientLifecycleMode,
}

impl Opening {
    /// The start `config` pins or `known` remembers: a pinned version decides the
    /// handshake (a pinned 2026-07-28 may still skip it); otherwise the remembered era,
    /// if any.
    fn of(config: &ServerConfig, known: &Known) -> Result<Opening, McpError> {
        let (pinned, pinned_version) = pinned_lifecycle(config)?;
        let pinned_modern = matches!(pinned, ClientLifecycleMode::Discover { .. });
        let (start, legacy_version) = match known.start() {
            Some((start, version)) if config.protocol_version.is_none() => (start, version),
            Some((start @ Start::Direct(_), version)) if pinned_modern => (start, version),
            _ => (Start::Handshake(pinned.clone()), pinned_version),
        };
        let remembered = !matches!(&start, Start::Handshake(mode) if *mode == pinned);
        Ok(Opening {
            start,
            legacy_version,
            remembered,
            lifecycle: pinned,
        })
    }
}

/// Connects to an HTTP+SSE server (2024-11-05): the stream, then the handshake. Such a
/// server is legacy whatever it was, so a remembered direct start becomes the normal
/// handshake.
async fn connect_legacy_sse(
    config: &ServerConfig,
    url: &str,
    headers: &BTreeMap<String, String>,
    opening: &Opening,
    handler: &impl Fn() -> Handler,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    let deadline = Deadline::after(config.timeout);
    let transport = connect_sse(config, url, headers)
        .await
        .map_err(|e| e.hiding_url_query(url))?;
    let mode = match &opening.start {
        Start::Handshake(mode) => mode.clone(),
        Start::Direct(_) => opening.lifecycle.clone(),
    };
    handshake(handler(), transport, mode, deadline)
        .await
        .map_err(|e| e.hiding_url_query(url))
}

/// Connects over Streamable HTTP: the opening's start, then (if the server refused its
/// remembered era) the normal handshake, then (for a server whose answer to
/// `server/discover` could not be read) `initialize`; a connection that still fails ends
/// as [`streamable_failed`] says. Every attempt (sign-in metadata, the handshake, its
/// fallbacks) shares one `timeout_ms`.
async fn connect_streamable(
    config: &ServerConfig,
    url: &str,
    headers: &BTreeMap<String, String>,
    opening: &Opening,
    machine: Option<MachineClient>,
    handler: &impl Fn() -> Handler,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    let deadline = Deadline::after(config.timeout);
    let custom = custom_headers(headers)?;
    let transport_config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        // One bound for every transport's messages (rmcp's default is 16 MiB).
        .max_sse_event_size(config.max_response_bytes)
        .max_json_response_size(config.max_response_bytes);
    let endpoint = Streamable {
        signed: signed_client(config, url, machine, deadline).await?,
        transport_config,
        deadline,
    };
    let mut connected = endpoint.attempt(handler(), opening.start.clone()).await;
    let mut remembered = opening.remembered;
    if remembered && connected.as_ref().is_err_and(refused_era) {
        tracing::info!(server = %config.name, "the server refused the handshake of its remembered era; trying both");
        remembered = false;
        connected = endpoint
            .attempt(handler(), Start::Handshake(opening.lifecycle.clone()))
            .await;
    }
    // Some legacy servers answer `server/discover` with an empty success, which the probe
    // cannot read: without a pinned version (or a remembered era), `initialize` gets a
    // try.
    if config.protocol_version.is_none()
        && !remembered
        && matches!(
            connected,
            Err(McpError::Handshake(_)
                | McpError::HandshakeRefused { .. }
                | McpError::AnsweredLate { .. }
                | McpError::HttpStatus { .. }
                | McpError::Unreachable(_)
                | McpError::Protocol(_)
                | McpError::Malformed(_)
                | McpError::InvalidMessage { .. }
                | McpError::CannotRead { .. }
                | McpError::UnexpectedResult { .. }
                | McpError::KeptAsking { .. }
                | McpError::StillAsking { .. }
                | McpError::Closed(_))
        )
        && let Ok(service) = endpoint
            .attempt(handler(), Start::Handshake(ClientLifecycleMode::Initialize))
            .await
    {
        tracing::info!(server = %config.name, "the discover probe failed; initialize worked");
        connected = Ok(service);
    }
    match connected {
        Ok(service) => Ok(service),
        Err(error) => {
            streamable_failed(
                config,
                url,
                headers,
                error,
                &opening.lifecycle,
                handler,
                deadline,
            )
            .await
        }
    }
}

/// What signs a Streamable HTTP server's requests: its machine grant's client, or the
/// stored sign-in's (refreshed as its tokens expire), or nothing. A stored sign-in needs
/// the authorization server's metadata first: bounded by `deadline`, and a failure is a
/// connection problem.
async fn signed_client(
    config: &ServerConfig,
    url: &str,
    machine: Option<MachineClient>,
    deadline: Deadline,
) -> Result<Option<SignedClient>, McpError> {
    if crate::mcp::oauth::is_machine(config) {
        // Its token came from the grant just now, or lasts: no metadata needed.
        return Ok(machine.map(SignedClient::Machine));
    }
    tokio::time::timeout_at(deadline.at, crate::mcp::oauth::signed_client(config))
        .await
        .map_err(|_| McpError::Timeout {
            method: "finding the authorization server of the stored sign-in".into(),
            ms: config.timeout.as_millis(),
        })?
        .map_err(|e| {
            McpError::Handshake(format!(
                "cannot reach the server's authorization server: {e}"
            ))
            .hiding_url_query(url)
        })
        .map(|client| client.map(SignedClient::Person))
}

/// A Streamable HTTP server as [`connect_streamable`] reaches it: the transport's
/// configuration, what signs its requests, and when all attempts must be done.
struct Streamable {
    transport_config: StreamableHttpClientTransportConfig,
    signed: Option<SignedClient>,
    deadline: Deadline,
}

impl Streamable {
    /// One attempt: a new transport (signed or not), started as `start` says.
    async fn attempt(
        &self,
        handler: Handler,
        start: Start,
    ) -> Result<RunningService<RoleClient, Handler>, McpError> {
        let transport_config = self.transport_config.clone();
        match self.signed.clone() {
            Some(client) => {
                let transport =
                    StreamableHttpClientTransport::with_client(client, transport_config);
                begin(handler, transport, start, self.deadline).await
            }
            None => {
                let transport = StreamableHttpClientTransport::from_config(transport_config);
                begin(handler, transport, start, self.deadline).await
            }
        }
    }
}

/// What a Streamable HTTP connection that failed every attempt ends in: a sign-in the
/// server asks for (or a refused static token), a timeout, or else the HTTP+SSE fallback
/// (2024-11-05): a server refusing the POST may be an HTTP+SSE one, and the spec's
/// fallback is a GET that answers with an `endpoint` event.
async fn streamable_failed(
    config: &ServerConfig,
    url: &str,
    headers: &BTreeMap<String, String>,
    error: McpError,
    lifecycle: &ClientLifecycleMode,
    handler: &impl Fn() -> Handler,
    deadline: Deadline,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    match error {
        McpError::SignInRequired {
            challenge,
            more_scopes,
            ..
        } => {
            if let Some(refused) = refused_static_token(&config.name, headers, challenge.as_deref())
            {
                return Err(refused);
            }
            Err(McpError::SignInRequired {
                server: config.name.clone(),
                challenge,
                more_scopes,
            })
        }
        error @ McpError::Timeout { .. } => Err(error),
        error => match connect_sse(config, url, headers).await {
            Ok(transport) => {
                tracing::info!(server = %config.name, "falling back to HTTP+SSE");
                handshake(handler(), transport, lifecycle.clone(), deadline)
                    .await
                    .map_err(|e| e.hiding_url_query(url))
            }
            Err(_) => Err(error.hiding_url_query(url)),
        },
    }
}

/// The server's handshake details ([`details`]), every text of its own masked with
/// `secrets` here, once, so no command or screen that shows them can show a secret.
fn masked_details(
    transport: &TransportConfig,
    peer: &Peer<RoleClient>,
    secrets: &Secrets,
) -> Result<ServerDetails, McpError> {
    let mut details = details(transport, peer)?;
    details.server_name = details.server_name.map(|t| secrets.mask(&t).into_owned());
    details.server_version = details
        .server_version
        .map(|t| secrets.mask(&t).into_owned());
    secrets.mask_json(&mut details.capabilities);
    Ok(details)
}

/// Starts a stdio server and completes the handshake. Some legacy servers exit on any
/// request before `initialize` (spec digest §6.5), others never answer it: such a server
/// is started once more and initialized directly. The whole handshake, both starts
/// included, takes at most the server's `timeout_ms`.
pub(super) async fn connect_stdio(
    server: &str,
    spec: &SpawnSpec<'_>,
    log: &Arc<ServerLog>,
    lines: &Option<mpsc::Sender<LogLine>>,
    limits: StdioLimits,
    remembered: Option<&Start>,
    handler: impl Fn() -> Handler,
) -> Result<(RunningService<RoleClient, Handler>, ChildProcess), McpError> {
    let deadline = Deadline::after(limits.timeout);
    let transport = |pipes| stdio_transport(pipes, &limits, log);
    let (child, pipes) = ChildProcess::spawn(server, spec, log.clone(), lines.clone())?;
    // The remembered era first: one process, one handshake (or none).
    if let Some(start) = remembered {
        let error = match begin(handler(), transport(pipes), start.clone(), deadline).await {
            Ok(service) => return Ok((service, child)),
            Err(error) => error,
        };
        let exited = exit_soon(&child).await;
        child.terminate().await;
        if limits.pinned || !(refused_era(&error) || exited.is_some()) {
            return Err(error);
        }
        // Only the handshake not tried yet, on one new process: two starts in all, as
        // cold (a legacy server may exit on `server/discover`; a failing server exits on
        // anything, and must not be started more often warm than cold).
        let (tried, untried, untried_name) = match start {
            Start::Handshake(ClientLifecycleMode::Initialize) => {
                ("initialize", auto_lifecycle(), "server/discover")
            }
            _ => (
                "server/discover",
                ClientLifecycleMode::Initialize,
                "initialize",
            ),
        };
        let what = match exited {
            Some(status) => format!("the server {} during {tried}", describe_exit(status)),
            None => {
                format!("the server refused {tried}, the handshake of the era it spoke last time")
            }
        };
        let note = log.push(
            "mcpick",
            &format!("{what}; starting it again with {untried_name}"),
        );
        log.forward(note, lines);
        let (child, pipes) = ChildProcess::spawn(server, spec, log.clone(), lines.clone())?;
        return last_handshake(handler(), transport(pipes), child, untried, deadline).await;
    }
    connect_stdio_auto(
        server,
        spec,
        log,
        lines,
        limits,
        handler,
        deadline,
        (child, pipes),
    )
    .await
}

/// [`connect_stdio`]'s normal handshake on a started process: `server/discover` within
/// the probe, then (on a new process) `initialize`.
#[allow(clippy::too_many_arguments)]
pub(super) async fn connect_stdio_auto(
    server: &str,
    spec: &SpawnSpec<'_>,
    log: &Arc<ServerLog>,
    lines: &Option<mpsc::Sender<LogLine>>,
    limits: StdioLimits,
    handler: impl Fn() -> Handler,
    deadline: Deadline,
    (child, pipes): (ChildProcess, crate::mcp::client::child::ChildPipes),
) -> Result<(RunningService<RoleClient, Handler>, ChildProcess), McpError> {
    let transport = |pipes| stdio_transport(pipes, &limits, log);
    let probe = discover_probe(limits.timeout);
    let first = match handshake(
        handler(),
        transport(pipes),
        auto_lifecycle(),
        deadline.sooner(probe),
    )
    .await
    {
        Ok(service) => return Ok((service, child)),
        Err(error) => error,
    };
    if let Some(modern) = answered_late(&first) {
        child.terminate().await;
        return discover_again(server, spec, log, lines, &limits, handler, deadline, modern).await;
    }
    let reason = if matches!(first, McpError::Timeout { .. }) {
        child.terminate().await;
        // The SDK fell back to `initialize` itself within the probe: the server is just
        // not answering.
        if probe == limits.timeout {
            return Err(deadline.timed_out());
        }
        format!(
            "the server did not answer server/discover within {} ms; starting it again with initialize",
            probe.as_millis()
        )
    } else {
        let Some(status) = exit_soon(&child).await else {
            child.terminate().await;
            return Err(first);
        };
        format!(
            "the server {} during server/discover; starting it again with initialize",
            describe_exit(status)
        )
    };
    let note = log.push("mcpick", &reason);
    // The logs pane should say why the server's first lines appear twice.
    log.forward(note, lines);
    let (child, pipes) = ChildProcess::spawn(server, spec, log.clone(), lines.clone())?;
    last_handshake(
        handler(),
        transport(pipes),
        child,
        ClientLifecycleMode::Initialize,
        deadline,
    )
    .await
}

/// A stdio server that answered `server/discover` only after the SDK's first-contact
/// window ([`SDK_DISCOVER_PROBE`], which `timeout_ms` does not extend), when the SDK had
/// already sent `initialize` on the same pipe: started once more with the handshake its
/// late answer called for (`server/discover` alone when it was a result, `initialize` when
/// an error), which may take the rest of `timeout_ms`. Said in the server's log; when the
/// second start fails too, its error says what happened first.
#[allow(clippy::too_many_arguments)]
async fn discover_again(
    server: &str,
    spec: &SpawnSpec<'_>,
    log: &Arc<ServerLog>,
    lines: &Option<mpsc::Sender<LogLine>>,
    limits: &StdioLimits,
    handler: impl Fn() -> Handler,
    deadline: Deadline,
    modern: bool,
) -> Result<(RunningService<RoleClient, Handler>, ChildProcess), McpError> {
    let (again, mode) = if modern {
        (
            "server/discover",
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
    } else {
        ("initialize", ClientLifecycleMode::Initialize)
    };
    let what = format!(
        "the server answered server/discover only after the first-contact window ({} s, which \
         `timeout_ms` does not extend), when mcpick had already sent initialize",
        SDK_DISCOVER_PROBE.as_secs()
    );
    let note = log.push(
        "mcpick",
        &format!("{what}; starting it again with {again}, for the rest of timeout_ms"),
    );
    tracing::info!(target: "mcpick::server", server, "{}", note.text);
    log.forward(note, lines);
    let (child, pipes) = ChildProcess::spawn(server, spec, log.clone(), lines.clone())?;
    let transport = stdio_transport(pipes, limits, log);
    match last_handshake(handler(), transport, child, mode, deadline).await {
        Err(McpError::Timeout { ms, .. }) => Err(McpError::Handshake(format!(
            "{what}; started again, it did not answer {again} within the rest of timeout_ms \
             ({ms} ms in all): raise `timeout_ms` for this server if it is this slow to start"
        ))),
        other => other,
    }
}

/// The last handshake of a stdio start, on the process started again: its failure names
/// the exit when the server exited.
pub(super) async fn last_handshake<T, E, A>(
    handler: Handler,
    transport: T,
    child: ChildProcess,
    mode: ClientLifecycleMode,
    deadline: Deadline,
) -> Result<(RunningService<RoleClient, Handler>, ChildProcess), McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match handshake(handler, transport, mode, deadline).await {
        Ok(service) => Ok((service, child)),
        // Out of time: the server may exit once its stdin closes, but it did not answer.
        Err(McpError::Timeout { .. }) => {
            child.terminate().await;
            Err(deadline.timed_out())
        }
        Err(error) => {
            let error = match exit_soon(&child).await {
                Some(status) => McpError::Closed(format!(
                    " during the handshake: the server {}",
                    describe_exit(status)
                )),
                None => error,
            };
            child.terminate().await;
            Err(error)
        }
    }
}

/// A 401 to requests that carried the config's own `Authorization` header, from a server
/// that offers no OAuth sign-in (its challenge names no `resource_metadata`, as `mcpick
/// serve --auth-token-file` answers): the token is wrong or stale, and signing in would
/// not help, so the error says which setting to fix.
pub(super) fn refused_static_token(
    server: &str,
    headers: &std::collections::BTreeMap<String, String>,
    challenge: Option<&str>,
) -> Option<McpError> {
    let sent = headers
        .keys()
        .any(|name| name.eq_ignore_ascii_case("authorization"));
    let offers_sign_in = challenge.is_some_and(|c| c.contains("resource_metadata"));
    (sent && !offers_sign_in).then(|| {
        McpError::Handshake(format!(
            "`{server}` refused the token in its `Authorization` header (HTTP 401): check \
             `headers` of `[servers.{server}]` in the config (and the variable it names, if \
             any); this server offers no sign-in"
        ))
    })
}

/// How long a stdio server gets to answer `server/discover` before it is taken for a
/// silent legacy one, out of a handshake of `timeout`. The SDK waits
/// [`SDK_DISCOVER_PROBE`] itself and then falls back to `initialize` on the same process:
/// when `timeout` leaves room for that and as long again for `initialize`, the SDK's
/// probe is the one (the whole `timeout`). Otherwise half of it, so that `initialize`,
/// on a fresh process, has the other half.
pub(super) fn discover_probe(timeout: Duration) -> Duration {
    if timeout >= SDK_DISCOVER_PROBE * 2 {
        timeout
    } else {
        timeout / 2
    }
}

/// When a handshake, all its attempts together, must be done: `timeout_ms` after it began.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    at: tokio::time::Instant,
    /// The whole `timeout_ms`, which errors name.
    budget: Duration,
}

impl Deadline {
    pub(super) fn after(budget: Duration) -> Deadline {
        Deadline {
            at: tokio::time::Instant::now() + budget,
            budget,
        }
    }

    /// This deadline, or `within` from now if that comes first (the error still names
    /// the whole budget).
    pub(super) fn sooner(self, within: Duration) -> Deadline {
        Deadline {
            at: self.at.min(tokio::time::Instant::now() + within),
            budget: self.budget,
        }
    }

    /// The error of a handshake that ran out of time.
    pub(super) fn timed_out(self) -> McpError {
        McpError::Timeout {
            method: "the handshake".into(),
            ms: self.budget.as_millis(),
        }
    }
}

/// The bounds of a stdio server's requests and messages, and where its `prompts/get`
/// answers go once read at the seam.
#[derive(Clone)]
pub(super) struct StdioLimits {
    timeout: Duration,
    max_response_bytes: usize,
    decoded: DecodedAnswers,
    /// `protocol_version` pins the handshake: no other era is tried.
    pinned: bool,
}

/// The transport over a stdio server's pipes: its lines bounded by `max_response_bytes`,
/// answers only to requests mcpick sent, each read before the SDK sees it
/// ([`crate::mcp::client::answer`]).
fn stdio_transport(
    (stdout, stdin): crate::mcp::client::child::ChildPipes,
    limits: &StdioLimits,
    log: &Arc<ServerLog>,
) -> impl rmcp::transport::Transport<RoleClient, Error = std::io::Error> + 'static {
    let limit = limits.max_response_bytes;
    let sent = SentIds::default();
    let stdout = LineLimit::new(stdout, limit, log.clone())
        .answering(sent.clone())
        .reading_answers(limits.decoded.clone());
    AsyncRwTransport::<RoleClient, _, _>::new(stdout, RecordIds::new(stdin, sent))
        .with_max_line_length(limit.saturating_add(TRANSPORT_SLACK))
}

/// The handshake an HTTP server's `protocol_version` pins, with the version `initialize`
/// then offers; [`auto_lifecycle`] when it pins none.
pub(super) fn pinned_lifecycle(
    config: &ServerConfig,
) -> Result<(ClientLifecycleMode, Option<ProtocolVersion>), McpError> {
    let Some(pinned) = &config.protocol_version else {
        return Ok((auto_lifecycle(), None));
    };
    let version = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|v| v.as_str() == pinned)
        .cloned()
        .ok_or_else(|| {
            McpError::Config(format!(
                "`protocol_version = {pinned:?}` is not a version mcpick speaks ({})",
                known_versions().join(", ")
            ))
        })?;
    Ok(if version.has_initialize() {
        (ClientLifecycleMode::Initialize, Some(version))
    } else {
        (
            ClientLifecycleMode::Discover {
                preferred_versions: vec![version],
            },
            None,
        )
    })
}

pub(super) fn auto_lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

pub(super) async fn handshake<T, E, A>(
    handler: Handler,
    transport: T,
    lifecycle: ClientLifecycleMode,
    deadline: Deadline,
) -> Result<RunningService<RoleClient, Handler>, McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout_at(
        deadline.at,
        handler.serve_with_lifecycle(transport, lifecycle),
    )
    .await
    {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(error)) => Err(handshake_error(error)),
        Err(_) => Err(deadline.timed_out()),
    }
}

/// Starts `transport` as [`Start`] says, within `deadline`.
pub(super) async fn begin<T, E, A>(
    handler: Handler,
    transport: T,
    start: Start,
    deadline: Deadline,
) -> Result<RunningService<RoleClient, Handler>, McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match start {
        Start::Handshake(mode) => handshake(handler, transport, mode, deadline).await,
        Start::Direct(info) => Ok(rmcp::service::serve_directly(
            handler,
            transport,
            Some(*info),
        )),
    }
}

/// Whether a handshake failed because the server answered it with a JSON-RPC error (a
/// 2026-07-28-only server refusing `initialize` as an unknown method or an unsupported
/// version, a legacy one refusing `server/discover`), not because it could not be reached
/// or timed out: the server is there and speaks another era than the one tried.
pub(super) fn refused_era(error: &McpError) -> bool {
    matches!(
        error,
        McpError::HandshakeRefused { .. } | McpError::UnknownVersion { .. }
    )
}

/// The catalog's word for rmcp's `cacheScope`.
pub(super) fn scope_of(scope: rmcp::model::CacheScope) -> Scope {
    match scope {
        rmcp::model::CacheScope::Public => Scope::Public,
        _ => Scope::Private,
    }
}

/// Whether a handshake failed on an answer that came too late ([`McpError::AnsweredLate`]):
/// `Some(true)` when it was a result (a 2026-07-28 server answering `server/discover`),
/// `Some(false)` when an error (a legacy server refusing it).
pub(super) fn answered_late(error: &McpError) -> Option<bool> {
    match error {
        McpError::AnsweredLate { result, .. } => Some(*result),
        _ => None,
    }
}

pub(super) fn handshake_error(error: ClientInitializeError) -> McpError {
    if error.is_authorization_required() || error.auth_challenge().is_some() {
        let challenge = error.auth_challenge().map(str::to_string);
        let more_scopes = challenge
            .as_deref()
            .is_some_and(|c| c.contains("insufficient_scope"));
        // The caller knows which server this is.
        return McpError::SignInRequired {
            server: String::new(),
            challenge,
            more_scopes,
        };
    }
    match error {
        ClientInitializeError::JsonRpcError(data) if unreadable(&data).is_some() => {
            unreadable(&data).unwrap_or_else(|| McpError::Unreadable(String::new()))
        }
        ClientInitializeError::JsonRpcError(data) => McpError::HandshakeRefused {
            code: data.code.0,
            message: data.message.into_owned(),
        },
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => McpError::Handshake(format!(
            "no protocol version in common: the server supports {}, mcpick speaks {}",
            server_supported
                .iter()
                .map(|v| v.as_str().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            known_versions().join(", ")
        )),
        ClientInitializeError::ConflictInitResponseId(expected, got) => McpError::AnsweredLate {
            result: true,
            received: got.to_string(),
            expected: expected.to_string(),
        },
        ClientInitializeError::UncorrelatedErrorResponse { expected, received } => {
            McpError::AnsweredLate {
                result: false,
                received: received.to_string(),
                expected: expected.to_string(),
            }
        }
        ClientInitializeError::ConnectionClosed(_) => {
            McpError::Closed(" during the handshake".into())
        }
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => handshake_error(*fallback),
        ClientInitializeError::TransportError { error, .. } => {
            transport_failure(error.error.as_ref())
        }
        other => McpError::Handshake(format!("handshake failed: {}", error_chain(&other))),
    }
}

/// Opens a legacy HTTP+SSE connection (GET the stream, wait for its `endpoint` event).
pub(super) async fn connect_sse(
    config: &ServerConfig,
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<crate::mcp::sse::SseClientTransport, McpError> {
    let server = &config.name;
    let map: http::HeaderMap = custom_headers(headers)?.into_iter().collect();
    let limits = crate::mcp::sse::SseLimits {
        max_event_bytes: config.max_response_bytes,
        max_line_bytes: config.max_response_bytes.saturating_add(1024),
    };
    crate::mcp::sse::SseClientTransport::connect_with_limits(url, map, config.timeout, limits)
        .await
        .map_err(|error| match error {
            // mcpick signs in to Streamable HTTP servers only.
            crate::mcp::sse::SseError::Unauthorized { status, .. } => McpError::Handshake(format!(
                "`{server}` refused the request (HTTP {status}): an HTTP+SSE server takes its token in `headers` (`Authorization = \"Bearer ${{TOKEN}}\"`); sign-in is for Streamable HTTP servers"
            )),
            crate::mcp::sse::SseError::Status { status, body, .. } => McpError::HttpStatus {
                status: status.as_u16(),
                words: crate::mcp::error::answered_http(
                    status.as_u16(),
                    &[status.canonical_reason().unwrap_or_default(), body.as_str()]
                        .into_iter()
                        .filter(|part| !part.is_empty())
                        .collect::<Vec<_>>()
                        .join(": "),
                ),
            },
            crate::mcp::sse::SseError::Timeout { what, ms } => McpError::Timeout {
                method: what.to_string(),
                ms,
            },
            other => McpError::Handshake(format!("HTTP+SSE: {other}")),
        })
}

pub(super) fn custom_headers(
    headers: &BTreeMap<String, String>,
) -> Result<std::collections::HashMap<http::HeaderName, http::HeaderValue>, McpError> {
    let mut custom = std::collections::HashMap::new();
    for (name, value) in headers {
        let header_name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            McpError::Handshake(format!(
                "`{name}` is not a valid HTTP header name (check `headers`)"
            ))
        })?;
        // The value is a secret: never echo it.
        let header_value = http::HeaderValue::from_str(value).map_err(|_| {
            McpError::Handshake(format!(
                "the value of header `{name}` holds characters HTTP does not allow (check `headers`)"
            ))
        })?;
        custom.insert(header_name, header_value);
    }
    Ok(custom)
}

pub(super) fn details(
    transport: &TransportConfig,
    peer: &Peer<RoleClient>,
) -> Result<ServerDetails, McpError> {
    let info = peer
        .peer_info()
        .ok_or_else(|| McpError::Handshake("the server sent no handshake result".into()))?;
    let version = info.protocol_version.clone();
    if !ProtocolVersion::KNOWN_VERSIONS.contains(&version) {
        return Err(McpError::UnknownVersion {
            offered: version.as_str().to_string(),
            known: known_versions().join(", "),
        });
    }
    let capabilities = serde_json::to_value(&info.capabilities).unwrap_or_default();
    Ok(ServerDetails {
        transport: transport.kind().to_string(),
        protocol_version: version.as_str().to_string(),
        server_name: info.server_info.as_ref().map(|s| s.name.clone()),
        server_version: info.server_info.as_ref().map(|s| s.version.clone()),
        prompts: info.capabilities.prompts.is_some(),
        prompts_list_changed: info
            .capabilities
            .prompts
            .as_ref()
            .and_then(|p| p.list_changed)
            .unwrap_or(false),
        completions: info.capabilities.completions.is_some(),
        resources: info.capabilities.resources.is_some(),
        skills: capabilities
            .pointer("/extensions")
            .and_then(|e| e.get(crate::mcp::skill_verify::SKILLS_EXTENSION))
            .is_some(),
        capabilities,
        served_problems: Vec::new(),
    })
}

/// A server that refuses a token its machine grant has just obtained: asking the person to
/// sign in would not help, the grant's setup (scopes, audience, the client's rights) must.
fn refused_fresh_token(config: &ServerConfig, error: McpError) -> McpError {
    match error {
        McpError::SignInRequired { more_scopes, .. } => {
            let grant = match &config.transport {
                TransportConfig::Http { oauth, .. } => oauth.grant.name(),
                TransportConfig::Stdio { .. } => "its grant",
            };
            McpError::Grant(format!(
                "{grant} for `{}`: the server refused the token the grant gave{}: check `oauth.scopes` and what the client may do at the authorization server",
                config.name,
                if more_scopes {
                    ", asking for more scopes"
                } else {
                    ""
                }
            ))
        }
        other => other,
    }
}
