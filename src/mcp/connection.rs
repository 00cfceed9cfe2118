//! One live connection to one server: handshake in either protocol era, requests with
//! timeouts, list-change signals, and shutdown.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{
    ArgumentInfo, CallToolRequest, CallToolRequestParams, CancelledNotification,
    CancelledNotificationParam, ClientCapabilities, ClientConfig, ClientNotification,
    ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, GetPromptRequest,
    GetPromptRequestParams, Implementation, ListPromptsRequest, ListToolsRequest,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequest, ReadResourceRequestParams,
    Reference, RequestId, RequestMetaObject, ServerNotification, ServerPeerInfo, ServerResult,
    SubscriptionFilter,
};
use rmcp::service::{
    ClientCacheConfig, ClientInitializeError, ClientLifecycleMode, ClientServiceExt,
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RoleClient, RunningService,
    ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use tokio::sync::{Notify, mpsc};

use super::child::{ChildProcess, SpawnSpec};
use super::error::McpError;
use super::input::{Answer, GetOutcome, InputAnswers, InputRequest};
use super::limit::{
    LineLimit, RecordIds, SentIds, TOO_LARGE_CODE, TOO_LARGE_MARKER, TRANSPORT_SLACK,
};
use super::log::ServerLog;
use super::mrtr;
use crate::cache::{Era, Hints, PromptPage, Scope, ServerEntry};
use crate::config::{ServerConfig, TransportConfig};
use crate::model::{
    Completion, EmbeddedResource, LogLine, Message, PromptArg, PromptInfo, PromptMessages,
    ServedProblem, ServerDetails, ServerId,
};
use crate::secrets::Secrets;
use crate::sys::process::describe_exit;

/// The most pages of `prompts/list` followed before giving up on a server that never ends.
const MAX_PAGES: usize = 10_000;
/// The most rounds of questions one request may ask: `input_required` results of a
/// 2026-07-28 `prompts/get` in a row, or a legacy server's `elicitation/create`s during
/// one `prompts/get`.
pub const MAX_INPUT_ROUNDS: usize = 8;
/// How long rmcp's dual-era handshake waits for an answer to `server/discover` before it
/// takes the server for a silent legacy one (`ClientLifecycleMode::Auto`).
const SDK_DISCOVER_PROBE: Duration = Duration::from_secs(10);
/// How many stderr lines a failure report carries.
pub const STDERR_TAIL: usize = 10;

/// The key of a legacy server's mid-request question in the [`InputRequest`] that
/// [`Connection::get_prompt_round`] gives for it (it has none of its own).
pub const LEGACY_QUESTION_KEY: &str = "elicitation";

/// A legacy server's `elicitation/create`, on its way from [`Handler`] to the
/// `prompts/get` that puts it to the user.
struct LegacyQuestion {
    /// The request's `params` (message, `requestedSchema`, mode).
    params: serde_json::Value,
    /// Where the answer goes; dropped unanswered, the question is declined.
    reply: tokio::sync::oneshot::Sender<ElicitResult>,
}

/// Which request a legacy server's question goes to: the `prompts/get` that can ask and
/// was sent last. Legacy servers do not say which request a question belongs to (on
/// stdio), and mcpick fills one prompt at a time per connection.
#[derive(Default)]
struct QuestionRoute {
    /// The open route: its exchange's token and sender.
    current: Option<(u64, mpsc::Sender<LegacyQuestion>)>,
    /// The last token given out.
    last_token: u64,
}

/// [`QuestionRoute`], shared by the connection and its handler.
type QuestionRoutes = Arc<std::sync::Mutex<QuestionRoute>>;

/// A legacy `prompts/get` that may be waiting for the user's answer to its server's
/// question. Dropped, it closes its route, declines an unanswered question and cancels the
/// request.
struct LegacyExchange {
    token: u64,
    routes: QuestionRoutes,
    questions: mpsc::Receiver<LegacyQuestion>,
    /// The question put to the user, waiting for the answer.
    reply: Option<tokio::sync::oneshot::Sender<ElicitResult>>,
    /// How many questions the server asked in this request.
    rounds: usize,
    response: Option<LegacyResponse>,
    in_flight: Option<InFlight>,
    /// When the server must have answered: `timeout_ms` after the request was sent, or
    /// after the user's last answer.
    deadline: tokio::time::Instant,
}

/// The answer of a request in flight.
type LegacyResponse =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<ServerResult, ServiceError>> + Send>>;

impl LegacyExchange {
    /// The `request_state` its question goes out with, which the answers echo.
    fn state(&self) -> String {
        format!("mcpick-legacy-question-{}", self.token)
    }
}

impl Drop for LegacyExchange {
    fn drop(&mut self) {
        let mut routes = lock(&self.routes);
        if routes
            .current
            .as_ref()
            .is_some_and(|(token, _)| *token == self.token)
        {
            routes.current = None;
        }
    }
}

/// A server that asked more than [`MAX_INPUT_ROUNDS`] rounds of questions in one
/// `prompts/get`, in the same words for both eras (a legacy server's last question is
/// declined and its request cancelled; a 2026-07-28 one is simply not retried).
fn kept_asking() -> McpError {
    McpError::Protocol(format!(
        "the server kept asking: prompts/get still asked for input after \
         {MAX_INPUT_ROUNDS} rounds of answers, so mcpick gave up the request"
    ))
}

/// The answer to a legacy question, from the answers of its round.
fn legacy_answer(answers: &InputAnswers) -> ElicitResult {
    let answer = answers
        .answers
        .iter()
        .find(|(key, _)| key == LEGACY_QUESTION_KEY)
        .map(|(_, answer)| answer);
    match answer {
        Some(Answer::Accept(content)) => ElicitResult::new(ElicitationAction::Accept)
            .with_content(serde_json::Value::Object(content.clone())),
        Some(Answer::Cancel) => ElicitResult::new(ElicitationAction::Cancel),
        Some(Answer::Decline) | None => ElicitResult::new(ElicitationAction::Decline),
    }
}

/// Receives a server's notifications; it only signals, the owner of the connection acts.
struct Handler {
    info: ClientConfig,
    list_changed: Arc<Notify>,
    log: Arc<ServerLog>,
    server: ServerId,
    lines: Option<mpsc::Sender<LogLine>>,
    /// Where a legacy server's mid-request questions go (see [`QuestionRoute`]).
    questions: QuestionRoutes,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    // Skills are resources (SEP-2640): a changed resource list may be a changed skill list.
    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    /// A legacy server's mid-request `elicitation/create` (declared at the handshake, see
    /// [`client_info`]): put to the user by the `prompts/get` that is waiting
    /// ([`Connection::get_prompt_round`]). With nobody to ask (any other request, or one
    /// that cannot ask), it is declined, and the server's log says so.
    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let params = serde_json::to_value(&request).unwrap_or_default();
        let route = lock(&self.questions)
            .current
            .as_ref()
            .map(|(_, route)| route.clone());
        if let Some(route) = route {
            let (reply, answer) = tokio::sync::oneshot::channel();
            let question = LegacyQuestion {
                params: params.clone(),
                reply,
            };
            // Dropped unanswered (the request was given up), it is declined below.
            if route.send(question).await.is_ok()
                && let Ok(answer) = answer.await
            {
                return Ok(answer);
            }
        }
        let message = params
            .get("message")
            .and_then(|m| m.as_str())
            .unwrap_or_default();
        let note = format!(
            "declined the server's elicitation/create: no prompt being filled could ask you \
             (only prompts/get asks): {message}"
        );
        let line = self.log.push("mcpick", &note);
        tracing::info!(target: "mcpick::server", server = %self.server, "{}", line.text);
        self.log.forward(line, &self.lines);
        Ok(ElicitResult::new(ElicitationAction::Decline))
    }

    /// A legacy server's `sampling/createMessage` (never declared): refused, as the SDK
    /// would, and said in the server's log, as the 2026-07-28 path says it when it declines.
    // Sampling is deprecated (SEP-2577), yet 2025-era servers still ask for it.
    #[allow(deprecated)]
    async fn create_message(
        &self,
        _params: rmcp::model::CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let note = "refused the server's sampling/createMessage: it asks for a language model \
             completion (sampling), which mcpick does not run (nor declare)";
        let line = self.log.push("mcpick", note);
        tracing::info!(target: "mcpick::server", server = %self.server, "{}", line.text);
        self.log.forward(line, &self.lines);
        Err(rmcp::ErrorData::method_not_found::<
            rmcp::model::CreateMessageRequestMethod,
        >())
    }

    // Logging is deprecated in 2026-07-28, but older servers still send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "log".to_string());
        let data = match &params.data {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let text = match &params.logger {
            Some(logger) => format!("[{logger}] {data}"),
            None => data,
        };
        let line = self.log.push(&level, &text);
        self.log.write_to_file(&self.server, &line);
        self.log.forward(line, &self.lines);
    }
}

/// The client identity mcpick sends. At the handshake it declares form elicitation
/// (`elicitation: {form: {}}`) and nothing else (no sampling, no roots).
///
/// Legacy servers (≤ 2025-11-25) ask in the middle of a request, with `elicitation/create`;
/// the spec lets them do so only when the client declared `elicitation` at `initialize`
/// (servers MUST use only negotiated capabilities, spec digest §4), so an undeclared client
/// is never asked and cannot put the question to the user. mcpick can: the `prompts/get`
/// of [`Connection::get_prompt_round`] hands the question out as an `input_required` round,
/// and a request that cannot ask declines it, saying so in the server's log ([`Handler`]).
///
/// 2026-07-28 servers get capabilities per request instead. The SDK's dual-era handshake
/// sends the same object in `server/discover` and in every later request's `_meta`, so
/// requests that cannot ask carry `clientCapabilities: {}` of their own
/// ([`Connection::plain_options`]); only the `prompts/get` that can ask declares form
/// elicitation ([`elicitation_meta`]).
fn client_info() -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation =
        Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    ClientConfig::new(
        capabilities,
        Implementation::new("mcpick", env!("CARGO_PKG_VERSION")).with_title("mcpick"),
    )
}

/// Per-request `_meta` with no client capabilities (`{}`), for 2026-07-28 requests that
/// cannot put questions to the user.
fn no_capabilities_meta() -> RequestMetaObject {
    let mut meta = RequestMetaObject::new();
    meta.set_client_capabilities(ClientCapabilities::default());
    meta
}

/// Per-request `_meta` declaring form elicitation (2026-07-28 `clientCapabilities`) for
/// the one request that can ask the user.
fn elicitation_meta() -> RequestMetaObject {
    let mut capabilities = ClientCapabilities::default();
    capabilities.elicitation =
        Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    let mut meta = RequestMetaObject::new();
    meta.set_client_capabilities(capabilities);
    meta
}

/// The protocol versions mcpick speaks, newest first.
pub fn known_versions() -> Vec<String> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(|v| v.as_str().to_string())
        .collect()
}

/// What the catalog remembers of a server that lets [`Connection::connect_known`] skip
/// round trips; `Known::default()` remembers nothing (the normal handshake).
#[derive(Debug, Clone, Default)]
pub struct Known {
    era: Option<Era>,
    /// The remembered `server/discover` result, as rmcp keeps it, for a start without a
    /// handshake.
    direct: Option<Box<ServerPeerInfo>>,
}

impl Known {
    /// The era `entry` remembers. With `direct`, a 2026-07-28 server whose `server/discover`
    /// result is remembered (and readable) is started with no handshake at all: its first
    /// request is the first thing it hears (the one-shot `mcpick get`).
    pub fn from_entry(entry: &ServerEntry, direct: bool) -> Known {
        let remembered = entry
            .discover
            .as_ref()
            .filter(|_| direct && entry.era == Era::Modern)
            .and_then(|d| serde_json::from_value::<ServerPeerInfo>(d.value.clone()).ok())
            .filter(|info| {
                !info.protocol_version.has_initialize()
                    && ProtocolVersion::KNOWN_VERSIONS.contains(&info.protocol_version)
            });
        Known {
            era: Some(entry.era),
            direct: remembered.map(Box::new),
        }
    }

    /// Whether the connection starts without a handshake.
    pub fn direct(&self) -> bool {
        self.direct.is_some()
    }

    /// The start the remembered era calls for, with the version `initialize` offers;
    /// `None` when nothing is remembered.
    fn start(&self) -> Option<(Start, Option<ProtocolVersion>)> {
        if let Some(info) = &self.direct {
            return Some((Start::Direct(info.clone()), None));
        }
        match self.era? {
            Era::Legacy => Some((
                Start::Handshake(ClientLifecycleMode::Initialize),
                Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            )),
            Era::Modern => Some((
                Start::Handshake(ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                }),
                None,
            )),
        }
    }
}

/// A live connection to one server.
pub struct Connection {
    /// Started without a handshake, from the catalog ([`Known::direct`]): the first
    /// request is the first word the server hears.
    direct: bool,
    name: ServerId,
    service: RunningService<RoleClient, Handler>,
    peer: Peer<RoleClient>,
    timeout: Duration,
    max_response_bytes: usize,
    /// Config values (and tokens) masked in everything the server sends back.
    secrets: Secrets,
    details: ServerDetails,
    child: Option<ChildProcess>,
    log: Arc<ServerLog>,
    list_changed: Arc<Notify>,
    listener: Option<tokio::task::JoinHandle<()>>,
    pending_cancels: PendingCancels,
    /// An HTTP server's URL, whose query is hidden in error messages.
    url: Option<String>,
    /// Where [`Handler`] sends a legacy server's mid-request questions.
    questions: QuestionRoutes,
    /// A legacy `prompts/get` waiting for the user's answer to its server's question.
    waiting_for_answer: std::sync::Mutex<Option<LegacyExchange>>,
    /// How many rounds of questions the 2026-07-28 `prompts/get` being filled asked so far
    /// (a legacy one counts in its [`LegacyExchange`]): the cap holds for every caller,
    /// the CLI's loop and the menu's answers alike.
    modern_rounds: std::sync::Mutex<usize>,
    /// What a served prompt library said was wrong with its files, on the last list.
    served_problems: super::problems::ServedProblems,
}

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
    pub async fn connect_known(
        config: &ServerConfig,
        log: Arc<ServerLog>,
        lines: Option<mpsc::Sender<LogLine>>,
        known: &Known,
    ) -> Result<Connection, McpError> {
        super::tls::install_crypto_provider();
        let list_changed = Arc::new(Notify::new());
        let questions = QuestionRoutes::default();
        let mut secrets = config.secrets();
        secrets.extend(super::auth::stored_tokens(config));
        // The log masks them from the first stderr line on.
        log.add_secrets(&secrets);
        let (pinned, pinned_version) = pinned_lifecycle(config)?;
        // A pinned version decides the handshake (a pinned 2026-07-28 may still skip it);
        // otherwise the remembered era, if any.
        let pinned_modern = matches!(pinned, ClientLifecycleMode::Discover { .. });
        let (start, legacy_version) = match known.start() {
            Some((start, version)) if config.protocol_version.is_none() => (start, version),
            Some((start @ Start::Direct(_), version)) if pinned_modern => (start, version),
            _ => (Start::Handshake(pinned.clone()), pinned_version),
        };
        let remembered = !matches!(&start, Start::Handshake(mode) if *mode == pinned);
        let lifecycle = pinned;
        let handler = || Handler {
            info: {
                let mut info = client_info();
                if let Some(version) = &legacy_version {
                    info.protocol_version = version.clone();
                }
                info
            },
            list_changed: list_changed.clone(),
            log: log.clone(),
            server: config.name.clone(),
            lines: lines.clone(),
            questions: questions.clone(),
        };
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
                };
                let first = remembered.then_some(&start);
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
            } => {
                let deadline = Deadline::after(config.timeout);
                let transport = connect_sse(config, url, headers)
                    .await
                    .map_err(|e| e.hiding_url_query(url))?;
                // An HTTP+SSE server is legacy whatever it was: no direct start.
                let mode = match &start {
                    Start::Handshake(mode) => mode.clone(),
                    Start::Direct(_) => lifecycle.clone(),
                };
                let service = handshake(handler(), transport, mode, deadline)
                    .await
                    .map_err(|e| e.hiding_url_query(url))?;
                (service, None)
            }
            TransportConfig::Http { url, headers, .. } => {
                // Every attempt below (sign-in metadata, the handshake, its fallbacks)
                // shares one `timeout_ms`.
                let deadline = Deadline::after(config.timeout);
                let custom = custom_headers(headers)?;
                let transport_config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom)
                    // One bound for every transport's messages (rmcp's default is 16 MiB).
                    .max_sse_event_size(config.max_response_bytes)
                    .max_json_response_size(config.max_response_bytes);
                // Stored tokens sign every request (and are refreshed as they expire); they
                // need the authorization server's metadata first: bounded by
                // the server's timeout, and a failure is a connection problem.
                let signed =
                    tokio::time::timeout_at(deadline.at, super::auth::signed_client(config))
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
                        })?;
                let streamable = |start: Start| {
                    let signed = signed.clone();
                    let transport_config = transport_config.clone();
                    let handler = handler();
                    async move {
                        match signed {
                            Some(client) => {
                                let transport = StreamableHttpClientTransport::with_client(
                                    client,
                                    transport_config,
                                );
                                begin(handler, transport, start, deadline).await
                            }
                            None => {
                                let transport =
                                    StreamableHttpClientTransport::from_config(transport_config);
                                begin(handler, transport, start, deadline).await
                            }
                        }
                    }
                };
                let mut connected = streamable(start.clone()).await;
                let mut remembered = remembered;
                if remembered && connected.as_ref().is_err_and(refused_era) {
                    tracing::info!(server = %config.name, "the server refused the handshake of its remembered era; trying both");
                    remembered = false;
                    connected = streamable(Start::Handshake(lifecycle.clone())).await;
                }
                // Some legacy servers answer `server/discover` with an empty success, which
                // the probe cannot read: without a pinned version (or a remembered era),
                // `initialize` gets a try.
                if config.protocol_version.is_none()
                    && !remembered
                    && matches!(
                        connected,
                        Err(McpError::Handshake(_) | McpError::Protocol(_) | McpError::Closed(_))
                    )
                    && let Ok(service) =
                        streamable(Start::Handshake(ClientLifecycleMode::Initialize)).await
                {
                    tracing::info!(server = %config.name, "the discover probe failed; initialize worked");
                    connected = Ok(service);
                }
                let service = match connected {
                    Ok(service) => service,
                    Err(McpError::SignInRequired {
                        challenge,
                        more_scopes,
                        ..
                    }) => {
                        if let Some(refused) =
                            refused_static_token(&config.name, headers, challenge.as_deref())
                        {
                            return Err(refused);
                        }
                        return Err(McpError::SignInRequired {
                            server: config.name.clone(),
                            challenge,
                            more_scopes,
                        });
                    }
                    Err(error @ McpError::Timeout { .. }) => return Err(error),
                    // A server refusing the POST may be an HTTP+SSE one (2024-11-05): the
                    // spec's fallback is a GET that answers with an `endpoint` event.
                    Err(error) => match connect_sse(config, url, headers).await {
                        Ok(transport) => {
                            tracing::info!(server = %config.name, "falling back to HTTP+SSE");
                            handshake(handler(), transport, lifecycle.clone(), deadline)
                                .await
                                .map_err(|e| e.hiding_url_query(url))?
                        }
                        Err(_) => return Err(error.hiding_url_query(url)),
                    },
                };
                (service, None)
            }
        };
        let peer = service.peer().clone();
        // mcpick keeps its own catalog (and sends its lists raw, past rmcp's cache): with
        // rmcp's in-memory cache off, a re-list always asks the server and the two caches
        // can never disagree.
        peer.set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        // Every text of the handshake is the server's own: masked here, once, so no
        // command or screen that shows the details can show a secret.
        let mut details = details(&config.transport, &peer)?;
        details.server_name = details.server_name.map(|t| secrets.mask(&t).into_owned());
        details.server_version = details
            .server_version
            .map(|t| secrets.mask(&t).into_owned());
        secrets.mask_json(&mut details.capabilities);
        let connection = Connection {
            direct: matches!(start, Start::Direct(_)) && remembered,
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
        };
        Ok(connection)
    }

    /// Keeps [`Connection::list_changed`] told of list changes: a 2026-07-28 server sends
    /// them only on a `subscriptions/listen` stream, which this opens (older servers send
    /// them unasked). Waits, up to the server's timeout, for the stream's acknowledgement:
    /// called before the first list, no change can fall between the two. A command that
    /// lists once and exits does without (it would only wait a round trip longer).
    pub async fn watch_list_changes(&mut self) {
        let skills_told = self.skill_changes_told();
        if self.listener.is_some()
            || !((self.details.prompts_list_changed || skills_told) && self.is_modern())
        {
            return;
        }
        let mut filter = SubscriptionFilter::builder().prompts_list_changed();
        if skills_told {
            filter = filter.resources_list_changed();
        }
        let (subscribed, acknowledged) = tokio::sync::oneshot::channel();
        self.listener = Some(tokio::spawn(listen_for_list_changes(
            self.peer.clone(),
            filter.build(),
            self.list_changed.clone(),
            self.name.clone(),
            subscribed,
        )));
        let _ = tokio::time::timeout(self.timeout, acknowledged).await;
    }

    /// Whether a change of the server's skills reaches this client: SEP-2640 has no notice
    /// of its own, a skill's files are resources, so a server with skills that tells of
    /// resource list changes tells of skill changes that way (`mcpick serve` does).
    fn skill_changes_told(&self) -> bool {
        self.details.skills
            && self
                .details
                .capabilities
                .pointer("/resources/listChanged")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false)
    }

    /// The server's name in the config.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the handshake told about the server.
    pub fn details(&self) -> &ServerDetails {
        &self.details
    }

    /// The server's log (stderr and log messages).
    pub fn log(&self) -> &Arc<ServerLog> {
        &self.log
    }

    fn is_modern(&self) -> bool {
        self.peer
            .peer_info()
            .is_some_and(|info| !info.protocol_version.has_initialize())
    }

    /// Which handshake the server speaks, as this connection found (or remembered) it.
    pub fn era(&self) -> Era {
        if self.is_modern() {
            Era::Modern
        } else {
            Era::Legacy
        }
    }

    /// Whether this connection started without a handshake ([`Known::direct`]): a first
    /// request failing as [`looks_like_another_era`] says means the catalog's era is out
    /// of date.
    pub fn skipped_handshake(&self) -> bool {
        self.direct
    }

    /// A catalog entry for `config`'s server as this connection knows it (era, handshake
    /// details, the `server/discover` result of a 2026-07-28 server), every server text
    /// masked, with no prompt list yet. The discover result's own `ttlMs`/`cacheScope`
    /// are lost in rmcp's handshake (its `ServerPeerInfo` keeps neither), so it is kept as
    /// stale at once and private: only the one-shot `get` starts from it without asking.
    pub fn catalog_entry(&self, config: &ServerConfig, auth: Option<String>) -> ServerEntry {
        // The details were masked when the connection was made.
        let mut entry = ServerEntry::new(config, auth, self.era(), self.details.clone());
        entry.discover = self
            .peer
            .peer_info()
            .filter(|info| !info.protocol_version.has_initialize())
            .and_then(|info| serde_json::to_value(info.as_ref()).ok())
            .map(|mut value| {
                self.secrets.mask_json(&mut value);
                crate::cache::Cached {
                    hints: Hints::now(None, None),
                    value,
                }
            });
        entry
    }

    /// Resolves when the server says its prompt list changed (coalesced: many notices
    /// before the next call resolve it once).
    pub async fn list_changed(&self) {
        self.list_changed.notified().await;
    }

    /// Whether the connection is gone (server exited or transport closed).
    pub fn is_closed(&self) -> bool {
        self.service.is_closed()
            || self.peer.is_transport_closed()
            || self
                .child
                .as_ref()
                .is_some_and(|c| c.exit_status().is_some())
    }

    /// Why the connection is gone, after giving a stdio server's exit a moment to be seen
    /// (the pipe closes before the process is reaped).
    async fn closed_error(&self) -> McpError {
        if let Some(child) = &self.child {
            exit_soon(child).await;
            // Its last words may still be in the pipe: the error is shown with them.
            let _ = tokio::time::timeout(Duration::from_millis(200), child.stderr_drained()).await;
        }
        self.closed_reason()
    }

    /// Why the connection is gone, with the exit status of a stdio server.
    pub fn closed_reason(&self) -> McpError {
        let how = match self.child.as_ref().and_then(ChildProcess::exit_status) {
            Some(status) => format!(": the server {}", describe_exit(status)),
            None => String::new(),
        };
        McpError::Closed(how)
    }

    /// Every prompt, following `nextCursor` through all pages. Dropping the future cancels
    /// the request in flight. What had to be left out (see [`Connection::list_prompts_noting`])
    /// is only logged.
    pub async fn list_prompts(&self) -> Result<Vec<PromptInfo>, McpError> {
        let listed = self.list_prompts_noting().await?;
        for warning in &listed.warnings {
            tracing::warn!(target: "mcpick::server", server = %self.name, "{warning}");
        }
        Ok(listed.prompts)
    }

    /// Every prompt, as [`Connection::list_prompts`], and a warning for each thing left
    /// out: a prompt the server described wrongly (the rest of its page is kept), or the
    /// pages after a cursor the server repeated (the pages before it are kept).
    ///
    /// A server that declares the Skills extension (SEP-2640) has its skills listed too
    /// (`skills/list`), each a [`PromptInfo`] with its manifest in [`PromptInfo::skill`],
    /// after the prompts; a server without it is asked nothing more. A failing
    /// `skills/list` is a warning: the prompts are kept.
    pub async fn list_prompts_noting(&self) -> Result<PromptList, McpError> {
        let mut list = if self.details.prompts || !self.details.skills {
            self.list_only_prompts().await?
        } else {
            PromptList::default()
        };
        if self.details.skills {
            match self.list_skills_noting().await {
                Ok(skills) => {
                    list.prompts.extend(skills.prompts);
                    list.pages.extend(skills.pages);
                    list.warnings.extend(skills.warnings);
                    drop_skill_mirrors(&mut list);
                }
                Err(error) if self.details.prompts => list.warnings.push(
                    self.secrets
                        .mask(&format!(
                            "skills/list failed, so the server's skills are not in the menu: {error}"
                        ))
                        .into_owned(),
                ),
                Err(error) => return Err(error),
            }
        }
        Ok(list)
    }

    /// Every skill of `skills/list` (SEP-2640), through all pages: an entry that breaks
    /// the SEP's shape is left out with a warning naming it. Two skills of one name are
    /// told apart by their paths (`acme/billing/refunds`), as the SEP asks. Reads nothing
    /// of the skills' files: those are fetched only when one is picked.
    pub async fn list_skills_noting(&self) -> Result<PromptList, McpError> {
        let listed = all_pages("skills/list", ["skill", "skills"], |cursor, _| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let request = rmcp::model::ListSkillsRequest::with_param(params);
            let page = match self
                .request("skills/list", ClientRequest::ListSkillsRequest(request))
                .await?
            {
                ServerResult::ListSkillsResult(page) => serde_json::to_value(&page)
                    .map_err(|e| McpError::Protocol(format!("cannot read skills/list: {e}")))?,
                ServerResult::CustomResult(custom) if custom.0.get("skills").is_some() => custom.0,
                other => return Err(unexpected("skills/list", &other)),
            };
            let Some(entries) = page.get("skills").and_then(|s| s.as_array()) else {
                return Err(McpError::Protocol(
                    "skills/list answered without a `skills` list".into(),
                ));
            };
            let mut items = Vec::new();
            let mut skipped = Vec::new();
            for (at, entry) in entries.iter().enumerate() {
                match super::skill_verify::read_entry(entry) {
                    Ok(manifest) => items.push(manifest),
                    Err(why) => {
                        skipped.push(format!("left out skill {} of skills/list: {why}", at + 1))
                    }
                }
            }
            Ok(Page {
                hints: self.hints_in(page.get("ttlMs"), page.get("cacheScope")),
                items,
                skipped,
                next: page
                    .get("nextCursor")
                    .and_then(|c| c.as_str())
                    .map(str::to_string),
            })
        })
        .await?;
        let names = super::skill_verify::menu_names(&listed.items);
        let prompts = listed
            .items
            .into_iter()
            .zip(names)
            .map(|(manifest, name)| self.skill_info(manifest, name))
            .collect();
        Ok(PromptList {
            pages: listed.pages,
            prompts,
            warnings: listed
                .warnings
                .into_iter()
                .map(|w| self.secrets.mask(&w).into_owned())
                .collect(),
        })
    }

    /// The entry of the skill whose `SKILL.md` is `uri` (`skills/get`), listed or not: a
    /// skill given only by its URI is verified and loaded as a listed one is (the SEP). A
    /// server without the extension is asked nothing.
    pub async fn skill_by_uri(&self, uri: &str) -> Result<PromptInfo, McpError> {
        if !self.details.skills {
            return Err(McpError::Protocol(format!(
                "the server does not declare the Skills extension ({}), so it serves no \
                 skill {uri}",
                super::skill_verify::SKILLS_EXTENSION
            )));
        }
        let request =
            rmcp::model::GetSkillRequest::new(rmcp::model::GetSkillRequestParams::new(uri));
        let value = match self
            .request("skills/get", ClientRequest::GetSkillRequest(request))
            .await?
        {
            ServerResult::GetSkillResult(result) => serde_json::to_value(&result)
                .map_err(|e| McpError::Protocol(format!("cannot read skills/get: {e}")))?,
            ServerResult::CustomResult(custom) if custom.0.get("skill").is_some() => custom.0,
            other => return Err(unexpected("skills/get", &other)),
        };
        let entry = value.get("skill").cloned().unwrap_or_default();
        let manifest = super::skill_verify::read_entry(&entry).map_err(|why| {
            McpError::Protocol(
                self.secrets
                    .mask(&format!("skills/get: {why}"))
                    .into_owned(),
            )
        })?;
        if manifest.uri != uri {
            return Err(McpError::Protocol(format!(
                "skills/get for {uri} answered the entry of {}",
                crate::text::one_line(&manifest.uri)
            )));
        }
        let name = manifest.name().to_string();
        Ok(self.skill_info(manifest, name))
    }

    /// A skill as a menu entry: named by its front matter, with one optional argument,
    /// the task sent after its instructions.
    fn skill_info(&self, manifest: super::skill_verify::SkillManifest, name: String) -> PromptInfo {
        PromptInfo {
            server: self.name.clone(),
            name,
            title: None,
            description: self.mask(Some(manifest.description().to_string())),
            arguments: vec![PromptArg {
                name: super::skill_verify::TASK_ARGUMENT.to_string(),
                title: Some("Task".to_string()),
                description: Some(
                    "what to apply the skill to, sent after its instructions (empty: none)"
                        .to_string(),
                ),
                required: false,
            }],
            skill: Some(Box::new(manifest)),
            mirrors_skill: None,
        }
    }

    /// Loads a picked skill: reads its `SKILL.md` (`resources/read`), checks its size,
    /// digest and front matter against `manifest`, then reads and checks each file of
    /// `attach` (paths relative to the skill's root, or URIs; only files the manifest
    /// lists are read). The messages: the instructions filled with `task` by `fill`, then
    /// the files as embedded resources. A file that fails is refused by name, and nothing
    /// of the skill is returned.
    ///
    /// A check that fails against `manifest` is tried once more against the server's
    /// current entry (`skills/get`) when that differs: a skill edited on disk since it was
    /// listed is loaded as it is now, verified against what the server lists now; bytes
    /// that match neither are refused.
    pub async fn load_skill(
        &self,
        manifest: &super::skill_verify::SkillManifest,
        task: Option<&str>,
        attach: &[String],
        fill: super::skill_verify::SkillFill,
    ) -> Result<PromptMessages, McpError> {
        let refused = match self.load_skill_as(manifest, task, attach, fill).await? {
            Ok(messages) => return Ok(messages),
            Err(refused) => refused,
        };
        let current = match self.skill_by_uri(&manifest.uri).await {
            Ok(info) => info.skill,
            Err(_) => None,
        };
        match current {
            Some(current) if *current != *manifest => {
                let note = format!(
                    "skill {}: its files changed since it was listed ({}); loading it as the server lists it now",
                    crate::text::one_line(manifest.name()),
                    refused
                );
                let line = self.log.push("mcpick", &note);
                self.log.write_to_file(&self.name, &line);
                self.log.forward(line, &self.service.service().lines);
                self.load_skill_as(&current, task, attach, fill)
                    .await?
                    .map_err(McpError::Protocol)
            }
            _ => Err(McpError::Protocol(refused)),
        }
    }

    /// [`Connection::load_skill`] against one manifest: `Ok(Err(advice))` when a file fails
    /// its check, `Err` when reading failed.
    async fn load_skill_as(
        &self,
        manifest: &super::skill_verify::SkillManifest,
        task: Option<&str>,
        attach: &[String],
        fill: super::skill_verify::SkillFill,
    ) -> Result<Result<PromptMessages, String>, McpError> {
        use super::skill_verify as skill;
        // An unlisted attachment is refused before anything is read.
        let attach_uris: Vec<String> = attach.iter().map(|p| manifest.resolve(p)).collect();
        for uri in &attach_uris {
            if manifest.files.is_some() && manifest.file(uri).is_none() {
                let error = skill::verify_file(manifest, uri, &[]).expect_err("unlisted");
                return Ok(Err(error.advice()));
            }
        }
        let contents = self.read_resource(&manifest.uri).await?;
        let checked = skill::resource_bytes(&manifest.uri, &contents)
            .and_then(|bytes| skill::verify_skill_md(manifest, &bytes));
        let (text, verification) = match checked {
            Ok(checked) => checked,
            Err(error) => return Ok(Err(error.advice())),
        };
        let mut attachments = Vec::new();
        for uri in &attach_uris {
            let contents = self.read_resource(uri).await?;
            let checked = skill::resource_bytes(uri, &contents)
                .and_then(|bytes| skill::verify_file(manifest, uri, &bytes));
            let verification = match checked {
                Ok(verification) => verification,
                Err(error) => return Ok(Err(error.advice())),
            };
            let resource = contents
                .iter()
                .find(|c| matches!(c, EmbeddedResource::Text { uri: u, .. } | EmbeddedResource::Blob { uri: u, .. } if u == uri))
                .or(contents.first())
                .cloned()
                .ok_or_else(|| McpError::Protocol(format!("{uri}: resources/read sent nothing")))?;
            attachments.push(skill::Attachment {
                resource,
                verification,
            });
        }
        let messages = skill::skill_messages(
            &self.name,
            manifest,
            &text,
            verification,
            attachments,
            task,
            fill,
        );
        // Verified on the bytes as sent; config secrets a server echoes are masked in what
        // is shown and exported, as in a prompt's messages.
        let mut value = serde_json::to_value(&messages)
            .map_err(|e| McpError::Protocol(format!("cannot read the skill's messages: {e}")))?;
        self.secrets.mask_json(&mut value);
        read_messages(value).map(Ok)
    }

    /// The prompts of `prompts/list`, through all pages (see [`Connection::list_prompts_noting`]).
    async fn list_only_prompts(&self) -> Result<PromptList, McpError> {
        let listed = all_pages(
            "prompts/list",
            ["prompt", "prompts"],
            |cursor, number| async move {
                let params = PaginatedRequestParams::default().with_cursor(cursor);
                let request = ListPromptsRequest::with_param(params);
                match self
                    .request("prompts/list", ClientRequest::ListPromptsRequest(request))
                    .await?
                {
                    ServerResult::ListPromptsResult(page) => {
                        if number == 1 {
                            self.note_served_problems(page.meta.as_deref());
                        }
                        Ok(Page {
                            hints: self.hints(page.ttl_ms, page.cache_scope.map(scope_of)),
                            items: page
                                .prompts
                                .into_iter()
                                .map(|p| self.prompt_info(p))
                                .collect(),
                            skipped: Vec::new(),
                            next: page.next_cursor,
                        })
                    }
                    // A page the SDK cannot type (one prompt it cannot read spoils the whole
                    // page for it): read prompt by prompt, keeping the good ones.
                    ServerResult::CustomResult(custom) if custom.0.get("prompts").is_some() => {
                        if number == 1 {
                            let meta = custom.0.get("_meta").and_then(|m| m.as_object());
                            self.note_served_problems(meta);
                        }
                        let (prompts, skipped) = read_prompts_page(&custom.0, number)?;
                        Ok(Page {
                            hints: self.hints_in(custom.0.get("ttlMs"), custom.0.get("cacheScope")),
                            items: prompts.into_iter().map(|p| self.prompt_info(p)).collect(),
                            skipped,
                            next: custom
                                .0
                                .get("nextCursor")
                                .and_then(|c| c.as_str())
                                .map(str::to_string),
                        })
                    }
                    other => Err(unexpected("prompts/list", &other)),
                }
            },
        )
        .await?;
        Ok(PromptList {
            pages: listed.pages,
            prompts: listed.items,
            warnings: listed
                .warnings
                .into_iter()
                .map(|w| self.secrets.mask(&w).into_owned())
                .collect(),
        })
    }

    /// A page's cache hints, received now. A legacy server's hints count for nothing
    /// (its era has none: stale at once, private), whatever it sent.
    fn hints(&self, ttl_ms: Option<u64>, scope: Option<Scope>) -> Option<Hints> {
        self.is_modern().then(|| Hints::now(ttl_ms, scope))
    }

    /// [`Connection::hints`] from a page the SDK could not type: its raw `ttlMs` (a negative
    /// one is 0) and `cacheScope` (anything but `public`/`private` is none given).
    fn hints_in(
        &self,
        ttl_ms: Option<&serde_json::Value>,
        cache_scope: Option<&serde_json::Value>,
    ) -> Option<Hints> {
        let ttl = ttl_ms.and_then(serde_json::Value::as_i64);
        let scope = match cache_scope.and_then(|s| s.as_str()) {
            Some("public") => Some(Scope::Public),
            Some("private") => Some(Scope::Private),
            _ => None,
        };
        self.hints(ttl.map(|t| t.max(0) as u64), scope)
    }

    /// mcpick's view of a prompt, the server's texts masked.
    fn prompt_info(&self, prompt: rmcp::model::Prompt) -> PromptInfo {
        PromptInfo {
            server: self.name.clone(),
            name: prompt.name,
            title: self.mask(prompt.title),
            description: self.mask(prompt.description),
            arguments: prompt
                .arguments
                .unwrap_or_default()
                .into_iter()
                .map(|a| PromptArg {
                    name: a.name,
                    title: self.mask(a.title),
                    description: self.mask(a.description),
                    required: a.required.unwrap_or(false),
                })
                .collect(),
            skill: None,
            mirrors_skill: prompt
                .meta
                .as_ref()
                .and_then(|meta| meta.get(crate::model::SKILL_PROMPT_META_KEY))
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
        }
    }

    /// Keeps the problems a served library lists on its first page; new ones go to the log
    /// of a 2026-07-28 server over HTTP. Not to a legacy one's (it sends them as log
    /// messages itself), nor to a stdio server's: `mcpick serve` writes each on stderr, which
    /// is in the log already, and the same problem twice reads as two.
    fn note_served_problems(&self, meta: Option<&serde_json::Map<String, serde_json::Value>>) {
        let problems = super::problems::read(meta);
        let to_log = self.is_modern() && self.child.is_none();
        let lines = self
            .served_problems
            .replace(problems, &self.secrets, &self.log, to_log);
        for line in lines {
            self.log.write_to_file(&self.name, &line);
            self.log.forward(line, &self.service.service().lines);
        }
    }

    /// The problems with its prompt files that a served library (`mcpick serve`) listed
    /// on the last `prompts/list`.
    pub fn served_problems(&self) -> Vec<ServedProblem> {
        self.served_problems.current()
    }

    /// Fills a prompt. Dropping the future cancels the request (`notifications/cancelled`).
    /// Declares no elicitation, so a 2026-07-28 server fills the prompt without asking if it
    /// can; questions it asks anyway come back as [`McpError::InputRequired`] naming them.
    /// A legacy server's mid-request question is declined (nobody is asked).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, McpError> {
        match self.prompts_get(name, arguments, None, false).await? {
            GetOutcome::Messages(messages) => Ok(messages),
            GetOutcome::InputRequired(request) => {
                Err(McpError::InputRequired(mrtr::describe(&request)))
            }
        }
    }

    /// One round of filling a prompt that may ask the user first: call with
    /// `answers: None`, then, while it returns [`GetOutcome::InputRequired`], again with the
    /// user's answers and that result's `request_state`. Dropping the future cancels the
    /// request.
    ///
    /// A 2026-07-28 server asks with an `input_required` result (form elicitation is
    /// declared on this request); rounds that carry only `requestState` are retried here at
    /// once. A legacy server asks with `elicitation/create` while the request waits: the
    /// question comes back the same way, as one [`Question`](super::input::Question) keyed
    /// [`LEGACY_QUESTION_KEY`], while the request stays open on the connection; the next
    /// call with the answers sends them to the server and waits on. The timeout restarts
    /// after each answer (the user's time is not the server's), and a server that asks
    /// more than [`MAX_INPUT_ROUNDS`] times in one request is refused.
    pub async fn get_prompt_round(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        answers: Option<&InputAnswers>,
    ) -> Result<GetOutcome, McpError> {
        if self.is_modern() {
            return self.modern_round(name, arguments, answers).await;
        }
        // A new request gives up the one left waiting (if any): that cancels it.
        let waiting = lock(&self.waiting_for_answer).take();
        let exchange = match (answers, waiting) {
            (None, _) => self.start_legacy_get(name, arguments).await?,
            (Some(answers), Some(mut waiting))
                if answers.request_state.as_deref() == Some(waiting.state().as_str()) =>
            {
                if let Some(reply) = waiting.reply.take() {
                    // The server may have given up meanwhile; its answer then says so.
                    let _ = reply.send(legacy_answer(answers));
                }
                waiting.deadline = tokio::time::Instant::now() + self.timeout;
                waiting
            }
            (Some(_), waiting) => {
                // Not the answers to the question waiting: that one keeps waiting.
                *lock(&self.waiting_for_answer) = waiting;
                return Err(McpError::Protocol(
                    "the server's question is no longer waiting for an answer \
                     (its request ended); fill the prompt again"
                        .into(),
                ));
            }
        };
        self.wait_on_legacy_get(exchange).await
    }

    /// One round of a 2026-07-28 `prompts/get` (see [`Connection::get_prompt_round`]),
    /// counted: a new fill (`answers: None`) starts at zero, and a server that still asks
    /// after [`MAX_INPUT_ROUNDS`] rounds of answers is refused.
    async fn modern_round(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        answers: Option<&InputAnswers>,
    ) -> Result<GetOutcome, McpError> {
        if answers.is_none() {
            *lock(&self.modern_rounds) = 0;
        }
        let outcome = self.prompts_get(name, arguments, answers, true).await?;
        if matches!(outcome, GetOutcome::InputRequired(_)) {
            let mut rounds = lock(&self.modern_rounds);
            *rounds += 1;
            if *rounds > MAX_INPUT_ROUNDS {
                return Err(kept_asking());
            }
        }
        Ok(outcome)
    }

    /// Declines a legacy server's question left waiting by [`Connection::get_prompt_round`]
    /// and gives up its request (cancelled): for a caller that will not answer. Nothing
    /// happens when no question waits (a 2026-07-28 server is simply not retried).
    pub fn decline_waiting_question(&self) {
        if let Some(mut waiting) = lock(&self.waiting_for_answer).take()
            && let Some(reply) = waiting.reply.take()
        {
            let _ = reply.send(ElicitResult::new(ElicitationAction::Decline));
        }
    }

    fn get_params(name: &str, arguments: &BTreeMap<String, String>) -> GetPromptRequestParams {
        let args: serde_json::Map<String, serde_json::Value> = arguments
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        let mut params = GetPromptRequestParams::new(name);
        if !args.is_empty() {
            params = params.with_arguments(args);
        }
        params
    }

    /// Sends a legacy `prompts/get` whose server's questions are routed to the user.
    async fn start_legacy_get(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
    ) -> Result<LegacyExchange, McpError> {
        let (route, questions) = mpsc::channel(1);
        // The route is open before the request is sent: a quick question is not missed.
        let token = {
            let mut routes = lock(&self.questions);
            routes.last_token += 1;
            routes.current = Some((routes.last_token, route));
            routes.last_token
        };
        let mut exchange = LegacyExchange {
            token,
            routes: self.questions.clone(),
            questions,
            reply: None,
            rounds: 0,
            response: None,
            in_flight: None,
            deadline: tokio::time::Instant::now() + self.timeout,
        };
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(Self::get_params(
            name, arguments,
        )));
        let handle = self
            .send_within(
                "prompts/get",
                exchange.deadline,
                request,
                PeerRequestOptions::no_options(),
            )
            .await?;
        exchange.in_flight = Some(InFlight {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
            pending: self.pending_cancels.clone(),
        });
        exchange.response = Some(Box::pin(handle.await_response()));
        Ok(exchange)
    }

    /// Waits (at most `timeout_ms`) for a legacy `prompts/get`'s result or its server's next
    /// question; a question leaves the request waiting on the connection.
    async fn wait_on_legacy_get(
        &self,
        mut exchange: LegacyExchange,
    ) -> Result<GetOutcome, McpError> {
        let Some(mut response) = exchange.response.take() else {
            return Err(McpError::Protocol("prompts/get was not sent".into()));
        };
        let timeout = tokio::time::sleep_until(exchange.deadline);
        tokio::select! {
            result = &mut response => {
                if let Some(in_flight) = exchange.in_flight.as_mut() {
                    in_flight.id = None;
                }
                match result {
                    Err(ServiceError::TransportClosed) => Err(self.closed_error().await),
                    Err(error) => Err(self.service_error(error)),
                    Ok(result) => self.read_get_result(result),
                }
            }
            Some(question) = exchange.questions.recv() => {
                exchange.rounds += 1;
                if exchange.rounds > MAX_INPUT_ROUNDS {
                    let _ = question.reply.send(ElicitResult::new(ElicitationAction::Decline));
                    // Dropping the exchange cancels the request.
                    return Err(kept_asking());
                }
                let asked = mrtr::parse_question(
                    LEGACY_QUESTION_KEY,
                    &serde_json::json!({"method": "elicitation/create", "params": question.params}),
                );
                exchange.reply = Some(question.reply);
                exchange.response = Some(response);
                let request_state = Some(exchange.state());
                *lock(&self.waiting_for_answer) = Some(exchange);
                Ok(GetOutcome::InputRequired(InputRequest {
                    questions: vec![asked],
                    request_state,
                }))
            }
            () = timeout => {
                if let Some(in_flight) = exchange.in_flight.as_mut() {
                    in_flight.cancel("timed out");
                }
                Err(self.timed_out("prompts/get"))
            }
        }
    }

    /// A `prompts/get` result: the messages, or (2026-07-28) the questions asked first.
    fn read_get_result(&self, result: ServerResult) -> Result<GetOutcome, McpError> {
        let asked = match result {
            ServerResult::GetPromptResult(result) => {
                let mut value = serde_json::to_value(&result)
                    .map_err(|e| McpError::Protocol(format!("cannot read the messages: {e}")))?;
                tidy_annotations(&mut value);
                self.secrets.mask_json(&mut value);
                return read_messages(value).map(GetOutcome::Messages);
            }
            // The SDK types questions it knows; one it does not (an unknown method, a
            // schema beyond its types) leaves the whole result raw.
            ServerResult::InputRequiredResult(request) => {
                let value = serde_json::to_value(&request)
                    .map_err(|e| McpError::Protocol(format!("cannot read the questions: {e}")))?;
                mrtr::parse_input_required(&value)
            }
            ServerResult::CustomResult(custom) if mrtr::is_input_required(&custom.0) => {
                mrtr::parse_input_required(&custom.0)
            }
            // A result the SDK has no type for (a content kind or role from beyond the
            // schema it knows) arrives raw: read it with mcpick's own, more tolerant types.
            ServerResult::CustomResult(mut custom) if custom.0.get("messages").is_some() => {
                self.secrets.mask_json(&mut custom.0);
                return read_messages(custom.0).map(GetOutcome::Messages);
            }
            other => return Err(unexpected("prompts/get", &other)),
        };
        Ok(GetOutcome::InputRequired(asked))
    }

    /// One `prompts/get`, and its `requestState`-only retries. Never cached, here or in
    /// the catalog: a prompt's messages depend on its arguments and, for `input_required`
    /// retries, on the answers and the state they carry (the spec forbids caching those),
    /// so each fill asks the server.
    async fn prompts_get(
        &self,
        name: &str,
        arguments: &BTreeMap<String, String>,
        answers: Option<&InputAnswers>,
        can_ask: bool,
    ) -> Result<GetOutcome, McpError> {
        let mut params = Self::get_params(name, arguments);
        if let Some(answers) = answers {
            params.input_responses = Some(mrtr::input_responses(answers).into_iter().collect());
            params.request_state = answers.request_state.clone();
        }
        // Only 2026-07-28 servers ask through `input_required`; legacy ones send
        // `elicitation/create` mid-request, which `get_prompt_round` routes to the user.
        let elicitation = can_ask && self.is_modern();
        for _ in 0..MAX_INPUT_ROUNDS {
            let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params.clone()));
            let options = if elicitation {
                PeerRequestOptions::no_options().with_meta(elicitation_meta())
            } else {
                self.plain_options()
            };
            let result = self.request_with("prompts/get", request, options).await?;
            let asked = match self.read_get_result(result)? {
                GetOutcome::InputRequired(asked) => asked,
                messages => return Ok(messages),
            };
            if !asked.questions.is_empty() {
                return Ok(GetOutcome::InputRequired(asked));
            }
            // Only `requestState` (e.g. load shedding): retry at once, echoing it.
            params.request_state = asked.request_state;
            params.input_responses = None;
        }
        Err(McpError::Protocol(format!(
            "prompts/get still asked for input after {MAX_INPUT_ROUNDS} rounds"
        )))
    }

    /// The names of the server's tools (`tools/list`, every page). mcpick is a prompt host
    /// and does not use tools itself; this exists for protocol checks (the conformance
    /// client) against servers that serve only tools.
    pub async fn list_tools(&self) -> Result<Vec<String>, McpError> {
        let listed = all_pages("tools/list", ["tool", "tools"], |cursor, _| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let request = ListToolsRequest::with_param(params);
            let page = match self
                .request("tools/list", ClientRequest::ListToolsRequest(request))
                .await?
            {
                ServerResult::ListToolsResult(page) => page,
                other => return Err(unexpected("tools/list", &other)),
            };
            let names = page
                .tools
                .into_iter()
                .map(|t| t.name.into_owned())
                .collect();
            Ok(Page {
                hints: None,
                items: names,
                skipped: Vec::new(),
                next: page.next_cursor,
            })
        })
        .await?;
        for warning in &listed.warnings {
            tracing::warn!(target: "mcpick::server", server = %self.name, "{warning}");
        }
        Ok(listed.items)
    }

    /// Calls a tool (`tools/call`) and returns its result as JSON. Like
    /// [`Connection::list_tools`], for protocol checks only.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, McpError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let result = self.request("tools/call", request).await?;
        serde_json::to_value(&result)
            .map_err(|e| McpError::Protocol(format!("cannot read the tool result: {e}")))
    }

    /// Reads a resource (`resources/read`): its contents, text or base64 blobs. Questions
    /// a 2026-07-28 server asks first are not answered: they fail as
    /// [`McpError::InputRequired`]. Dropping the future cancels the request.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<EmbeddedResource>, McpError> {
        let mut params = ReadResourceRequestParams::new(uri);
        for _ in 0..MAX_INPUT_ROUNDS {
            let request =
                ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params.clone()));
            let value = match self.request("resources/read", request).await? {
                ServerResult::ReadResourceResult(result) => serde_json::to_value(&result)
                    .map_err(|e| McpError::Protocol(format!("cannot read the contents: {e}")))?,
                ServerResult::InputRequiredResult(request) => serde_json::to_value(&request)
                    .map_err(|e| McpError::Protocol(format!("cannot read the questions: {e}")))?,
                ServerResult::CustomResult(custom)
                    if mrtr::is_input_required(&custom.0) || custom.0.get("contents").is_some() =>
                {
                    custom.0
                }
                other => return Err(unexpected("resources/read", &other)),
            };
            if !mrtr::is_input_required(&value) {
                return read_contents(&value);
            }
            let asked = mrtr::parse_input_required(&value);
            if !asked.questions.is_empty() {
                return Err(McpError::InputRequired(mrtr::describe(&asked)));
            }
            params.request_state = asked.request_state;
        }
        Err(McpError::Protocol(format!(
            "resources/read still asked for input after {MAX_INPUT_ROUNDS} rounds"
        )))
    }

    /// Asks the server to complete `argument` of `prompt` from `value`, with the other
    /// arguments' values as context.
    pub async fn complete(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Result<Completion, McpError> {
        // 2024-11-05 had no `completions` flag: there, just try.
        if !self.details.completions && self.details.protocol_version != "2024-11-05" {
            return Err(McpError::Protocol(
                "the server does not offer completion (it declared no `completions` capability)"
                    .into(),
            ));
        }
        let mut params = CompleteRequestParams::new(
            Reference::for_prompt(prompt),
            ArgumentInfo::new(argument, value),
        );
        if !context.is_empty() {
            params = params.with_context(CompletionContext::with_arguments(
                context
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        let result = match self.request("completion/complete", request).await? {
            ServerResult::CompleteResult(result) => result,
            other => return Err(unexpected("completion/complete", &other)),
        };
        Ok(Completion {
            values: result
                .completion
                .values
                .into_iter()
                .map(|v| self.secrets.mask(&v).into_owned())
                .collect(),
            total: result.completion.total,
            has_more: result.completion.has_more,
        })
    }

    /// Sends one request and waits at most `timeout_ms` for its answer. A timeout, or the
    /// caller dropping the future, tells the server with `notifications/cancelled`.
    async fn request(
        &self,
        method: &str,
        request: ClientRequest,
    ) -> Result<ServerResult, McpError> {
        self.request_with(method, request, self.plain_options())
            .await
    }

    /// Options for a request that cannot put questions to the user: to a 2026-07-28 server
    /// it declares no client capabilities, in place of the handshake's form elicitation
    /// (which is there for legacy servers, see [`client_info`]).
    fn plain_options(&self) -> PeerRequestOptions {
        if self.is_modern() {
            PeerRequestOptions::no_options().with_meta(no_capabilities_meta())
        } else {
            PeerRequestOptions::no_options()
        }
    }

    /// [`Connection::request`] with options (e.g. extra `_meta`).
    async fn request_with(
        &self,
        method: &str,
        request: ClientRequest,
        options: PeerRequestOptions,
    ) -> Result<ServerResult, McpError> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let handle = self.send_within(method, deadline, request, options).await?;
        let mut in_flight = InFlight {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
            pending: self.pending_cancels.clone(),
        };
        match tokio::time::timeout_at(deadline, handle.await_response()).await {
            Ok(Err(ServiceError::TransportClosed)) => {
                in_flight.id = None;
                Err(self.closed_error().await)
            }
            Ok(result) => {
                in_flight.id = None;
                result.map_err(|e| self.service_error(e))
            }
            Err(_) => {
                in_flight.cancel("timed out");
                Err(self.timed_out(method))
            }
        }
    }

    /// Hands a request to the transport by `deadline`. Over Streamable HTTP the hand-over
    /// lasts until the server starts its answer (a JSON answer: until it is whole), so it
    /// counts against the request's `timeout_ms` too; giving up drops the POST, which is
    /// the cancellation there (2026-07-28).
    async fn send_within(
        &self,
        method: &str,
        deadline: tokio::time::Instant,
        request: ClientRequest,
        options: PeerRequestOptions,
    ) -> Result<rmcp::service::RequestHandle<RoleClient>, McpError> {
        match tokio::time::timeout_at(
            deadline,
            self.peer.send_request_with_option(request, options),
        )
        .await
        {
            Ok(sent) => sent.map_err(|e| self.service_error(e)),
            Err(_) => Err(self.timed_out(method)),
        }
    }

    /// The error of a request of `method` that got no answer within `timeout_ms`.
    fn timed_out(&self, method: &str) -> McpError {
        McpError::Timeout {
            method: method.to_string(),
            ms: self.timeout.as_millis(),
        }
    }

    fn service_error(&self, error: ServiceError) -> McpError {
        let error = self.service_error_unhidden(error);
        let error = match &self.url {
            Some(url) => error.hiding_url_query(url),
            None => error,
        };
        error.masked(&self.secrets)
    }

    fn mask(&self, text: Option<String>) -> Option<String> {
        text.map(|t| self.secrets.mask(&t).into_owned())
    }

    fn service_error_unhidden(&self, error: ServiceError) -> McpError {
        match error {
            ServiceError::McpError(data) if is_too_large(&data) => McpError::TooLarge {
                limit: data_number(&data, "limit").unwrap_or(0),
                size: data_number(&data, "size"),
            },
            ServiceError::McpError(data) => McpError::Server {
                code: data.code.0,
                message: data.message.into_owned(),
                data: data.data.map(|d| d.to_string()),
            },
            ServiceError::TransportClosed => self.closed_reason(),
            ServiceError::TransportSend(error)
                if error_chain(error.error.as_ref()).contains("response body exceeded") =>
            {
                McpError::TooLarge {
                    limit: self.max_response_bytes,
                    size: None,
                }
            }
            ServiceError::TransportSend(error) => match sign_in_challenge(error.error.as_ref()) {
                Some((challenge, more_scopes)) => McpError::SignInRequired {
                    server: self.name.clone(),
                    challenge: Some(challenge),
                    more_scopes,
                },
                None => McpError::Protocol(transport_failure(error.error.as_ref())),
            },
            other => McpError::Protocol(error_chain(&other)),
        }
    }

    /// Closes the connection: stdin is closed first, then a stdio server gets a short
    /// grace period before it is terminated.
    pub async fn shutdown(mut self) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
        // Stateless Streamable HTTP (2026-07-28) has no session to end, and closing its
        // requests' streams is their cancellation: nothing to wait for (a POST that hangs
        // would only hold the exit up).
        let stateless = self.url.is_some() && self.is_modern();
        // Let cancellations of abandoned requests reach the server before its pipe closes.
        let cancels: Vec<_> = lock(&self.pending_cancels).drain(..).collect();
        if !stateless {
            let _ = tokio::time::timeout(
                Duration::from_millis(200),
                futures::future::join_all(cancels),
            )
            .await;
        }
        let grace = Duration::from_millis(if stateless { 50 } else { 300 });
        let _ = tokio::time::timeout(
            grace + Duration::from_millis(200),
            self.service.close_with_timeout(grace),
        )
        .await;
        drop(self.service);
        tracing::debug!(server = %self.name, "connection closed");
        if let Some(child) = &self.child {
            child.terminate().await;
        }
    }
}

/// Whether a JSON-RPC error is [`LineLimit`]'s stand-in for an answer over the limit.
fn is_too_large(data: &rmcp::model::ErrorData) -> bool {
    data.code.0 == TOO_LARGE_CODE
        && data
            .data
            .as_ref()
            .and_then(|d| d.get("mcpick"))
            .and_then(|m| m.as_str())
            == Some(TOO_LARGE_MARKER)
}

fn data_number(data: &rmcp::model::ErrorData, field: &str) -> Option<usize> {
    data.data
        .as_ref()
        .and_then(|d| d.get(field))
        .and_then(serde_json::Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

/// Reads a `prompts/get` result with mcpick's types; errors name the message at fault.
fn read_messages(value: serde_json::Value) -> Result<PromptMessages, McpError> {
    let description = value
        .get("description")
        .and_then(|d| d.as_str())
        .map(str::to_string);
    let Some(list) = value.get("messages").and_then(|m| m.as_array()) else {
        return Err(McpError::Protocol(
            "the result has no `messages` list".into(),
        ));
    };
    let messages = list
        .iter()
        .enumerate()
        .map(|(i, message)| {
            serde_json::from_value::<Message>(message.clone()).map_err(|e| {
                McpError::Protocol(format!("message {i} is not a valid prompt message: {e}"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PromptMessages {
        description,
        messages,
    })
}

/// Reads a `resources/read` result's `contents` with mcpick's types.
fn read_contents(value: &serde_json::Value) -> Result<Vec<EmbeddedResource>, McpError> {
    let Some(list) = value.get("contents").and_then(|c| c.as_array()) else {
        return Err(McpError::Protocol(
            "the result has no `contents` list".into(),
        ));
    };
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value::<EmbeddedResource>(item.clone()).map_err(|e| {
                McpError::Protocol(format!(
                    "item {i} of the contents is neither text nor a blob: {e}"
                ))
            })
        })
        .collect()
}

/// The SDK keeps `annotations.priority` as a 32-bit float (0.3 becomes
/// 0.30000001192092896); give it back the short decimal the server most likely sent.
fn tidy_annotations(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(priority) = map
                .get_mut("annotations")
                .and_then(|a| a.get_mut("priority"))
                && let Some(number) = priority.as_f64()
                && let Ok(short) = format!("{}", number as f32).parse::<f64>()
                && let Some(short) = serde_json::Number::from_f64(short)
            {
                *priority = serde_json::Value::Number(short);
            }
            map.values_mut().for_each(tidy_annotations);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(tidy_annotations),
        _ => {}
    }
}

/// Cancellations sent from `Drop` (which cannot await), kept so shutdown can wait for them.
type PendingCancels = Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>;

/// Locks a mutex; a panic elsewhere while it was held does not make its data unusable.
pub(super) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn cancelled(id: RequestId, reason: &str) -> ClientNotification {
    ClientNotification::CancelledNotification(CancelledNotification::new(
        CancelledNotificationParam::new(Some(id), Some(reason.to_string())),
    ))
}

/// A request awaiting its answer; dropped while `id` is set, it cancels the request.
struct InFlight {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
    pending: PendingCancels,
}

impl InFlight {
    /// Tells the server the request is given up, without waiting: the notification can
    /// queue behind the very request that hangs (over Streamable HTTP, the first request
    /// of a connection started from the catalog is sent before any other), and the error
    /// the caller is waiting for must not wait with it. Shutdown gives it a moment.
    fn cancel(&mut self, reason: &str) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let reason = reason.to_string();
        let task = runtime.spawn(async move {
            let _ = peer.send_notification(cancelled(id, &reason)).await;
        });
        let mut pending = lock(&self.pending);
        pending.retain(|t| !t.is_finished());
        pending.push(task);
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.cancel("cancelled by the user");
    }
}

fn unexpected(method: &str, result: &ServerResult) -> McpError {
    let kind = serde_json::to_value(result)
        .ok()
        .and_then(|v| {
            v.get("resultType")
                .and_then(|t| t.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "an unrelated result".to_string());
    McpError::Protocol(format!(
        "{method} was answered with {kind}, not its own result"
    ))
}

/// Starts a stdio server and completes the handshake. Some legacy servers exit on any
/// request before `initialize` (spec digest §6.5), others never answer it: such a server
/// is started once more and initialized directly. The whole handshake, both starts
/// included, takes at most the server's `timeout_ms`.
async fn connect_stdio(
    server: &str,
    spec: &SpawnSpec<'_>,
    log: &Arc<ServerLog>,
    lines: &Option<mpsc::Sender<LogLine>>,
    limits: StdioLimits,
    remembered: Option<&Start>,
    handler: impl Fn() -> Handler,
) -> Result<(RunningService<RoleClient, Handler>, ChildProcess), McpError> {
    let deadline = Deadline::after(limits.timeout);
    let transport = |(stdout, stdin): super::child::ChildPipes| {
        let limit = limits.max_response_bytes;
        let sent = SentIds::default();
        let stdout = LineLimit::new(stdout, limit, log.clone()).answering(sent.clone());
        AsyncRwTransport::<RoleClient, _, _>::new(stdout, RecordIds::new(stdin, sent))
            .with_max_line_length(limit.saturating_add(TRANSPORT_SLACK))
    };
    let (child, pipes) = ChildProcess::spawn(server, spec, log.clone(), lines.clone())?;
    // The remembered era first: one process, one handshake (or none).
    if let Some(start) = remembered {
        let error = match begin(handler(), transport(pipes), start.clone(), deadline).await {
            Ok(service) => return Ok((service, child)),
            Err(error) => error,
        };
        let exited = exit_soon(&child).await;
        child.terminate().await;
        if !(refused_era(&error) || exited.is_some()) {
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
async fn connect_stdio_auto(
    server: &str,
    spec: &SpawnSpec<'_>,
    log: &Arc<ServerLog>,
    lines: &Option<mpsc::Sender<LogLine>>,
    limits: StdioLimits,
    handler: impl Fn() -> Handler,
    deadline: Deadline,
    (child, pipes): (ChildProcess, super::child::ChildPipes),
) -> Result<(RunningService<RoleClient, Handler>, ChildProcess), McpError> {
    let transport = |(stdout, stdin): super::child::ChildPipes| {
        let limit = limits.max_response_bytes;
        let sent = SentIds::default();
        let stdout = LineLimit::new(stdout, limit, log.clone()).answering(sent.clone());
        AsyncRwTransport::<RoleClient, _, _>::new(stdout, RecordIds::new(stdin, sent))
            .with_max_line_length(limit.saturating_add(TRANSPORT_SLACK))
    };
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

/// The last handshake of a stdio start, on the process started again: its failure names
/// the exit when the server exited.
async fn last_handshake<T, E, A>(
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
fn refused_static_token(
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
fn discover_probe(timeout: Duration) -> Duration {
    if timeout >= SDK_DISCOVER_PROBE * 2 {
        timeout
    } else {
        timeout / 2
    }
}

/// When a handshake, all its attempts together, must be done: `timeout_ms` after it began.
#[derive(Debug, Clone, Copy)]
struct Deadline {
    at: tokio::time::Instant,
    /// The whole `timeout_ms`, which errors name.
    budget: Duration,
}

impl Deadline {
    fn after(budget: Duration) -> Deadline {
        Deadline {
            at: tokio::time::Instant::now() + budget,
            budget,
        }
    }

    /// This deadline, or `within` from now if that comes first (the error still names
    /// the whole budget).
    fn sooner(self, within: Duration) -> Deadline {
        Deadline {
            at: self.at.min(tokio::time::Instant::now() + within),
            budget: self.budget,
        }
    }

    /// The error of a handshake that ran out of time.
    fn timed_out(self) -> McpError {
        McpError::Timeout {
            method: "the handshake".into(),
            ms: self.budget.as_millis(),
        }
    }
}

/// The bounds of a stdio server's requests and messages.
#[derive(Clone, Copy)]
struct StdioLimits {
    timeout: Duration,
    max_response_bytes: usize,
}

/// The exit status, if the process exits within a moment (the reaper may lag the pipe).
async fn exit_soon(child: &ChildProcess) -> Option<std::process::ExitStatus> {
    tokio::time::timeout(Duration::from_millis(200), child.exited())
        .await
        .ok()
        .flatten()
}

/// The handshake an HTTP server's `protocol_version` pins, with the version `initialize`
/// then offers; [`auto_lifecycle`] when it pins none.
fn pinned_lifecycle(
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

fn auto_lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

async fn handshake<T, E, A>(
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

/// How a connection starts talking: a handshake, or none at all, with the server's
/// handshake result taken from the catalog.
#[derive(Debug, Clone)]
enum Start {
    /// `server/discover` and/or `initialize`, as the mode says.
    Handshake(ClientLifecycleMode),
    /// No handshake: rmcp's peer is set up with this remembered result and every request
    /// carries its per-request `_meta` (2026-07-28 only).
    Direct(Box<ServerPeerInfo>),
}

/// Starts `transport` as [`Start`] says, within `deadline`.
async fn begin<T, E, A>(
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
fn refused_era(error: &McpError) -> bool {
    matches!(error, McpError::Handshake(text) if text.starts_with(REFUSED_HANDSHAKE))
        || matches!(error, McpError::UnknownVersion { .. })
}

/// The catalog's word for rmcp's `cacheScope`.
fn scope_of(scope: rmcp::model::CacheScope) -> Scope {
    match scope {
        rmcp::model::CacheScope::Public => Scope::Public,
        _ => Scope::Private,
    }
}

/// How [`handshake_error`] words a handshake answered with a JSON-RPC error.
const REFUSED_HANDSHAKE: &str = "the server refused the handshake: error ";

/// Whether a request's failure on a connection started without a handshake
/// ([`Connection::skipped_handshake`]) says the server no longer speaks the era the
/// catalog remembers: -32022 (unsupported protocol version), -32601 (a method every
/// 2026-07-28 prompt server has is unknown: a legacy server before `initialize`), a legacy
/// server's "not initialized" or missing-session refusal (-32600, -32002, HTTP 400/404), or
/// a stdio server that exits on a request before `initialize`. The caller reconnects with
/// the normal handshake and sends the request again, once.
pub fn looks_like_another_era(error: &McpError) -> bool {
    match error {
        McpError::Server { code, message, .. } => {
            let message = message.to_ascii_lowercase();
            matches!(code, -32022 | -32601)
                || ((*code == -32600 || *code == -32002 || *code == -32000)
                    && (message.contains("initializ") || message.contains("session")))
        }
        McpError::Protocol(text) | McpError::Handshake(text) => {
            text.contains("HTTP 400") || text.contains("HTTP 404") || text.contains("session")
        }
        McpError::Closed(_) => true,
        _ => false,
    }
}

fn handshake_error(error: ClientInitializeError) -> McpError {
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
        ClientInitializeError::JsonRpcError(data) => McpError::Handshake(format!(
            "{REFUSED_HANDSHAKE}{}: {}",
            data.code.0, data.message
        )),
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
        ClientInitializeError::ConnectionClosed(_) => {
            McpError::Closed(" during the handshake".into())
        }
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => handshake_error(*fallback),
        ClientInitializeError::TransportError { error, .. } => {
            McpError::Handshake(transport_failure(error.error.as_ref()))
        }
        other => McpError::Handshake(format!("handshake failed: {}", error_chain(&other))),
    }
}

/// Every prompt of a `prompts/list` result, with the warnings about what was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptList {
    /// The prompts mcpick could read, in the server's order.
    pub prompts: Vec<PromptInfo>,
    /// One line per thing left out, naming it (already masked; server text to neutralise
    /// before it is shown).
    pub warnings: Vec<String>,
    /// Each page's cache hints (`ttlMs`, `cacheScope`, when it arrived; a legacy page has
    /// none: stale at once, private) and how many of `prompts` it held, in order.
    pub pages: Vec<(Hints, usize)>,
}

/// Leaves out each prompt that is only another way to a skill listed beside it (`mcpick
/// serve` lists a skill folder both as a SEP-2640 skill and as a prompt, marking the
/// prompt with its skill's URI), so the menu has the one entry once, as the skill; each
/// page's count follows. A prompt of a skill's name without that mark stays.
fn drop_skill_mirrors(list: &mut PromptList) {
    let skills: std::collections::HashSet<String> = list
        .prompts
        .iter()
        .filter_map(|p| p.skill.as_ref().map(|s| s.uri.clone()))
        .collect();
    let mirrors = |prompt: &PromptInfo| {
        prompt.skill.is_none()
            && prompt
                .mirrors_skill
                .as_ref()
                .is_some_and(|uri| skills.contains(uri))
    };
    if !list.prompts.iter().any(mirrors) {
        return;
    }
    let mut rest = std::mem::take(&mut list.prompts).into_iter();
    let mut kept = Vec::with_capacity(rest.len());
    for (_, count) in &mut list.pages {
        let before = kept.len();
        kept.extend(rest.by_ref().take(*count).filter(|p| !mirrors(p)));
        *count = kept.len() - before;
    }
    kept.extend(rest.filter(|p| !mirrors(p)));
    list.prompts = kept;
}

impl PromptList {
    /// The list as the catalog keeps it: page by page, each with its hints.
    pub fn catalog_pages(&self) -> Vec<PromptPage> {
        let mut rest = self.prompts.iter();
        self.pages
            .iter()
            .map(|(hints, count)| PromptPage {
                hints: *hints,
                prompts: rest.by_ref().take(*count).cloned().collect(),
            })
            .collect()
    }

    /// When the list stops being fresh (ms since the epoch): the first page's expiry;
    /// `None` when some page is stale at once (`ttlMs` 0, or a legacy list), so only list
    /// changes and a refresh asked for fetch it again.
    pub fn fresh_until_ms(&self) -> Option<u64> {
        let now = crate::cache::now_ms();
        let mut until = None::<u64>;
        for (hints, _) in &self.pages {
            if !hints.is_fresh(now) {
                return None;
            }
            until = Some(until.map_or(hints.expires_ms(), |u| u.min(hints.expires_ms())));
        }
        until
    }
}

/// One page of a paginated list.
struct Page<T> {
    /// Its cache hints (MCP 2026-07-28 `ttlMs`/`cacheScope`); `None` for results that
    /// carry none.
    hints: Option<Hints>,
    /// What the page held that could be read.
    items: Vec<T>,
    /// One warning per item of it that could not be read.
    skipped: Vec<String>,
    /// The `nextCursor`; none (absent or `null`) ends the list.
    next: Option<String>,
}

/// Every item of a paginated list, and what was left out.
struct Listed<T> {
    items: Vec<T>,
    warnings: Vec<String>,
    /// Each page's hints and how many items it gave.
    pages: Vec<(Hints, usize)>,
}

/// Every item of a paginated list (`noun`: what one and many items are called):
/// `page(cursor, number)` fetches page `number` (from 1) and its `nextCursor`, followed until there is none. A repeated cursor or more than
/// [`MAX_PAGES`] pages ends the list there, with a warning, so a server cannot loop
/// mcpick forever; the pages fetched so far are kept.
async fn all_pages<T, Fetch>(
    method: &str,
    noun: [&str; 2],
    mut page: impl FnMut(Option<String>, usize) -> Fetch,
) -> Result<Listed<T>, McpError>
where
    Fetch: Future<Output = Result<Page<T>, McpError>>,
{
    let mut listed = Listed {
        items: Vec::new(),
        warnings: Vec::new(),
        pages: Vec::new(),
    };
    let mut cursor: Option<String> = None;
    let mut seen_cursors = HashSet::new();
    for number in 1..=MAX_PAGES {
        let fetched = page(cursor.clone(), number).await?;
        let hints = fetched.hints.unwrap_or_else(|| Hints::now(None, None));
        listed.pages.push((hints, fetched.items.len()));
        listed.items.extend(fetched.items);
        listed.warnings.extend(fetched.skipped);
        let Some(next) = fetched.next else {
            return Ok(listed);
        };
        if !seen_cursors.insert(next.clone()) {
            listed.warnings.push(format!(
                "{method} repeated the cursor {} (page {number}): kept the {} of its first {} \
                 and stopped there rather than loop",
                quoted_cursor(&next),
                crate::text::counted(listed.items.len(), noun[0], noun[1]),
                crate::text::counted(number, "page", "pages"),
            ));
            return Ok(listed);
        }
        cursor = Some(next);
    }
    listed.warnings.push(format!(
        "{method} did not end after {MAX_PAGES} pages: kept the {} of those and stopped there",
        crate::text::counted(listed.items.len(), noun[0], noun[1]),
    ));
    Ok(listed)
}

/// The prompts of a raw `prompts/list` page (page `number`), each read on its own: one
/// the server described wrongly is left out with a warning naming it (by its `name`
/// when it has one, else by its place), the others are kept.
fn read_prompts_page(
    page: &serde_json::Value,
    number: usize,
) -> Result<(Vec<rmcp::model::Prompt>, Vec<String>), McpError> {
    let Some(list) = page.get("prompts").and_then(|p| p.as_array()) else {
        return Err(McpError::Protocol(
            "prompts/list was answered with a `prompts` that is not a list".into(),
        ));
    };
    let mut prompts = Vec::new();
    let mut skipped = Vec::new();
    for (index, item) in list.iter().enumerate() {
        match serde_json::from_value::<rmcp::model::Prompt>(item.clone()) {
            Ok(prompt) => prompts.push(prompt),
            Err(error) => {
                let which = match item.get("name").and_then(|n| n.as_str()) {
                    Some(name) => format!("`{}`", crate::text::one_line(name)),
                    None => format!("number {} of page {number}", index + 1),
                };
                skipped.push(format!(
                    "left out the prompt {which}: the server described it wrongly ({})",
                    crate::text::one_line(&undebugged(&error.to_string()))
                ));
            }
        }
    }
    Ok((prompts, skipped))
}

/// `text` with Rust's debug escapes (`\u{1b}`, `\"`, `\n`) turned back into what they
/// stand for: serde quotes a wrong value that way, and warnings neutralise server text
/// with [`crate::text::one_line`] instead, as they do the prompt names beside it.
fn undebugged(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('0') => out.push('\0'),
            Some('u') if chars.peek() == Some(&'{') => {
                chars.next();
                let hex: String = chars.by_ref().take_while(|&h| h != '}').collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => out.push_str(&format!("\\u{{{hex}}}")),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// A server's cursor in a warning: in quotes, neutralised as prompt names are beside it
/// (`␛`, `<U+202E>`), not in Rust's debug escapes, and cut (cursors may be long tokens).
fn quoted_cursor(cursor: &str) -> String {
    format!(
        "\"{}\"",
        crate::text::cut_chars(&crate::text::one_line(cursor), 60)
    )
}

/// The `WWW-Authenticate` challenge of a 401 (or of a 403 asking for more scopes, then
/// `true`) somewhere in `error`'s sources.
fn sign_in_challenge(error: &(dyn std::error::Error + 'static)) -> Option<(String, bool)> {
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(required) = error.downcast_ref::<AuthRequiredError>() {
            return Some((required.www_authenticate_header.clone(), false));
        }
        if let Some(scope) = error.downcast_ref::<InsufficientScopeError>() {
            return Some((scope.www_authenticate_header.clone(), true));
        }
        current = error.source();
    }
    None
}

/// What a transport error tells the user: the HTTP status the server answered with (it
/// was reached, the URL or the server is wrong), or that it could not be reached at all.
fn transport_failure(error: &(dyn std::error::Error + 'static)) -> String {
    match answered_status(error) {
        Some((status, said)) => super::error::answered_http(status, &said),
        None => format!("cannot reach the server: {}", error_chain(error)),
    }
}

/// The HTTP status somewhere in `error`'s sources, and what came with it (the reason
/// and an excerpt of the body, when the SDK kept them).
fn answered_status(error: &(dyn std::error::Error + 'static)) -> Option<(u16, String)> {
    use rmcp::transport::streamable_http_client::{HttpStatusError, StreamableHttpError};
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(status) = error.downcast_ref::<HttpStatusError>() {
            return Some((status.status, String::new()));
        }
        match error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::HttpStatus(status)) => {
                return Some((status.status, String::new()));
            }
            // The SDK's words for any other status: `HTTP 404 Not Found: <body>`.
            Some(StreamableHttpError::UnexpectedServerResponse(text)) => {
                if let Some(found) = status_in(text) {
                    return Some(found);
                }
            }
            _ => {}
        }
        current = error.source();
    }
    None
}

/// `HTTP 404 Not Found: body` as (404, `Not Found: body`).
fn status_in(text: &str) -> Option<(u16, String)> {
    let rest = text.strip_prefix("HTTP ")?;
    let digits = rest
        .get(..3)
        .filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
    let status = digits.parse().ok().filter(|s| (100..600).contains(s))?;
    if !(rest[3..].is_empty() || rest[3..].starts_with(' ')) {
        return None;
    }
    let said = rest[3..].split_whitespace().collect::<Vec<_>>().join(" ");
    Some((status, said))
}

/// An error and its sources on one line, without repeats, cut to a readable length
/// (servers answer errors with whole HTML pages).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    // The HTTP client's error is not linked as a source; follow it by hand.
    if let Some(StreamableHttpError::Client(inner)) =
        error.downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return error_chain(inner);
    }
    let mut parts: Vec<String> = Vec::new();
    let mut current = Some(error);
    while let Some(error) = current {
        let text = error
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = error.source();
    }
    crate::text::cut_chars(&parts.join(": "), 400)
}

/// Opens a legacy HTTP+SSE connection (GET the stream, wait for its `endpoint` event).
async fn connect_sse(
    config: &ServerConfig,
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<super::sse::SseClientTransport, McpError> {
    let server = &config.name;
    let map: http::HeaderMap = custom_headers(headers)?.into_iter().collect();
    let limits = super::sse::SseLimits {
        max_event_bytes: config.max_response_bytes,
        max_line_bytes: config.max_response_bytes.saturating_add(1024),
    };
    super::sse::SseClientTransport::connect_with_limits(url, map, config.timeout, limits)
        .await
        .map_err(|error| match error {
            // mcpick signs in to Streamable HTTP servers only.
            super::sse::SseError::Unauthorized { status, .. } => McpError::Handshake(format!(
                "`{server}` refused the request (HTTP {status}): an HTTP+SSE server takes its token in `headers` (`Authorization = \"Bearer ${{TOKEN}}\"`); sign-in is for Streamable HTTP servers"
            )),
            super::sse::SseError::Status { status, body, .. } => McpError::Handshake(
                super::error::answered_http(
                    status.as_u16(),
                    &[status.canonical_reason().unwrap_or_default(), body.as_str()]
                        .into_iter()
                        .filter(|part| !part.is_empty())
                        .collect::<Vec<_>>()
                        .join(": "),
                ),
            ),
            super::sse::SseError::Timeout { what, ms } => McpError::Timeout {
                method: what.to_string(),
                ms,
            },
            other => McpError::Handshake(format!("HTTP+SSE: {other}")),
        })
}

fn custom_headers(
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

fn details(
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
            .and_then(|e| e.get(super::skill_verify::SKILLS_EXTENSION))
            .is_some(),
        capabilities,
        served_problems: Vec::new(),
    })
}

/// On 2026-07-28 servers list changes arrive only on a `subscriptions/listen` stream:
/// keep one open for `filter` (prompt list changes, and resource list changes where they
/// tell of skill changes), re-subscribing with backoff if it drops.
async fn listen_for_list_changes(
    peer: Peer<RoleClient>,
    filter: SubscriptionFilter,
    notify: Arc<Notify>,
    server: ServerId,
    subscribed: tokio::sync::oneshot::Sender<()>,
) {
    let mut backoff = Duration::from_secs(1);
    let mut first = true;
    let mut subscribed = Some(subscribed);
    loop {
        let result = peer.listen(filter.clone()).await;
        // Acknowledged or refused: either way the first list need not wait any longer.
        if let Some(tx) = subscribed.take() {
            let _ = tx.send(());
        }
        match result {
            Ok(mut subscription) => {
                backoff = Duration::from_secs(1);
                if !first {
                    // Changes may have happened while no stream was open.
                    notify.notify_one();
                }
                loop {
                    match subscription.next().await {
                        Ok(Some(
                            ServerNotification::PromptListChangedNotification(_)
                            | ServerNotification::ResourceListChangedNotification(_),
                        )) => {
                            notify.notify_one();
                        }
                        Ok(Some(_)) => {}
                        Ok(None) | Err(_) => break,
                    }
                }
                tracing::info!(%server, end = ?subscription.end(), "list-change subscription ended");
            }
            Err(error) => tracing::warn!(%server, %error, "subscriptions/listen failed"),
        }
        if peer.is_transport_closed() {
            return;
        }
        first = false;
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(60));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::input::{FieldKind, QuestionKind};
    use serde_json::json;

    fn http_server(extra: &str) -> ServerConfig {
        let text = format!("[servers.s]\nurl = \"http://127.0.0.1:1/mcp\"\n{extra}");
        let config =
            crate::config::parse(&text, std::path::Path::new("t.toml"), &|_| None).unwrap();
        config.server("s").unwrap().clone()
    }

    #[test]
    fn protocol_version_pins_the_handshake() {
        let (mode, version) = pinned_lifecycle(&http_server("")).unwrap();
        assert_eq!(mode, auto_lifecycle());
        assert_eq!(version, None);
        let (mode, version) =
            pinned_lifecycle(&http_server("protocol_version = \"2025-06-18\"")).unwrap();
        assert_eq!(mode, ClientLifecycleMode::Initialize);
        assert_eq!(version, Some(ProtocolVersion::V_2025_06_18));
        let (mode, version) =
            pinned_lifecycle(&http_server("protocol_version = \"2026-07-28\"")).unwrap();
        assert_eq!(
            mode,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28]
            }
        );
        assert_eq!(version, None);
        let error =
            pinned_lifecycle(&http_server("protocol_version = \"1999-01-01\"")).unwrap_err();
        assert!(
            error.to_string().contains("not a version mcpick speaks"),
            "{error}"
        );
    }

    /// What `prompts_get` sees of an `input_required` result, through the SDK's types.
    fn asked(result: serde_json::Value) -> (bool, crate::mcp::input::InputRequest) {
        let result: ServerResult = serde_json::from_value(result).unwrap();
        match result {
            ServerResult::InputRequiredResult(typed) => (
                true,
                mrtr::parse_input_required(&serde_json::to_value(&typed).unwrap()),
            ),
            ServerResult::CustomResult(raw) if mrtr::is_input_required(&raw.0) => {
                (false, mrtr::parse_input_required(&raw.0))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn typed_input_required_results_keep_schema_order_and_legacy_labels() {
        let (typed, request) = asked(json!({"resultType":"input_required","inputRequests":{
            "q":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{
                "type":"object","properties":{
                    "zeta":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},
                    "alpha":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}},
                    "mid":{"type":"number","maximum":2.5}}}}}},
            "requestState":"s"}));
        assert!(typed, "the SDK should type this result");
        let QuestionKind::Form { fields, .. } = &request.questions[0].kind else {
            panic!("{request:?}")
        };
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
        assert!(
            matches!(&fields[0].kind, FieldKind::Choice { labels, .. } if labels == &["A", "B"])
        );
        assert!(matches!(
            &fields[1].kind,
            FieldKind::Choice { multiple: true, .. }
        ));
        assert_eq!(request.request_state.as_deref(), Some("s"));
    }

    #[test]
    fn input_required_results_the_sdk_cannot_type_are_read_raw() {
        let (typed, request) = asked(json!({"resultType":"input_required","inputRequests":{
            "a":{"method":"tasks/frobnicate"},
            "b":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{
                "type":"object","properties":{"when":{"type":"string","format":"x-odd"}}}}}}}));
        assert!(!typed);
        assert_eq!(request.questions.len(), 2);
        assert!(matches!(
            &request.questions[1].kind,
            QuestionKind::Form { fields, .. }
                if fields[0].kind == FieldKind::Text { format: Some("x-odd".into()), min_length: None, max_length: None }
        ));
    }

    /// Pages of numbers: `pages[n]` is page n+1's items and its next cursor.
    async fn list_of(pages: &[(&[u32], Option<&str>)]) -> Listed<u32> {
        let pages: Vec<(Vec<u32>, Option<String>)> = pages
            .iter()
            .map(|(items, next)| (items.to_vec(), next.map(str::to_string)))
            .collect();
        all_pages("numbers/list", ["number", "numbers"], |_, number| {
            let (items, next) = pages[number - 1].clone();
            async move {
                Ok(Page {
                    hints: None,
                    items,
                    skipped: Vec::new(),
                    next,
                })
            }
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_repeated_cursor_keeps_the_pages_before_it_and_warns() {
        let listed = list_of(&[(&[1, 2], Some("a")), (&[3], Some("b")), (&[4], Some("a"))]).await;
        assert_eq!(listed.items, [1, 2, 3, 4]);
        assert_eq!(
            listed.warnings,
            [
                "numbers/list repeated the cursor \"a\" (page 3): kept the 4 numbers of its \
              first 3 pages and stopped there rather than loop"
            ]
        );
        // A cursor with controls reads as a prompt name with them does, not as Rust source.
        let listed = list_of(&[
            (&[1], Some("c\u{1b}]52;c;eA==\u{7}\u{202e}")),
            (&[2], Some("c\u{1b}]52;c;eA==\u{7}\u{202e}")),
        ])
        .await;
        let warning = &listed.warnings[0];
        assert!(
            warning.contains(&format!(
                "cursor \"{}\" (page 2)",
                crate::text::one_line("c\u{1b}]52;c;eA==\u{7}\u{202e}")
            )),
            "{warning}"
        );
        assert!(!warning.contains("\\u{"), "{warning}");
        assert!(!warning.contains('\u{1b}'), "{warning}");
        let listed = list_of(&[(&[1], Some("a")), (&[2], None)]).await;
        assert_eq!((listed.items, listed.warnings), (vec![1, 2], Vec::new()));
    }

    #[test]
    fn a_page_keeps_its_good_prompts_and_names_the_bad_ones() {
        let page = json!({"prompts": [
            {"name": "good"},
            {"description": "no name"},
            {"name": "broken\u{1b}[31m", "arguments": 5},
            {"name": "fine"}
        ], "nextCursor": null});
        let (prompts, skipped) = read_prompts_page(&page, 2).unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["good", "fine"]);
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        // A wrong value serde quotes is neutralised as the names are, not debug-escaped.
        let (_, odd) = read_prompts_page(
            &json!({"prompts": [{"name": "odd", "arguments": "x\u{1b}]52;c;eA==\u{7}\u{202e}"}]}),
            1,
        )
        .unwrap();
        assert!(
            odd[0].contains(&crate::text::one_line("x\u{1b}]52;c;eA==\u{7}\u{202e}")),
            "{odd:?}"
        );
        assert!(!odd[0].contains("\\u{"), "{odd:?}");
        assert!(!odd[0].contains('\u{1b}'), "{odd:?}");
        assert_eq!(
            undebugged(r#"a \"q\" \\ \u{1b}\n \u{zz}"#),
            "a \"q\" \\ \u{1b}\n \\u{zz}"
        );
        assert!(
            skipped[0].starts_with("left out the prompt number 2 of page 2: ")
                && skipped[0].contains("missing field `name`"),
            "{skipped:?}"
        );
        assert!(skipped[1].contains("`broken"), "{skipped:?}");
        assert!(!skipped[1].contains('\u{1b}'), "{skipped:?}");
        assert!(read_prompts_page(&json!({"prompts": 3}), 1).is_err());
    }

    #[test]
    fn the_sdks_status_words_are_read_back() {
        assert_eq!(
            status_in("HTTP 404 Not Found: <html>\n x</html>"),
            Some((404, "Not Found: <html> x</html>".to_string()))
        );
        assert_eq!(status_in("HTTP 500"), Some((500, String::new())));
        assert_eq!(status_in("HTTP/1.1 oops"), None);
        assert_eq!(status_in("HTTP 4041 x"), None);
        assert_eq!(status_in("Deserialize error"), None);
    }

    #[test]
    fn the_discover_probe_leaves_initialize_its_share_of_the_timeout() {
        let probe = |ms| discover_probe(Duration::from_millis(ms)).as_millis();
        assert_eq!(probe(3000), 1500);
        assert_eq!(probe(10_000), 5000);
        // Room for the SDK's own 10 s probe and as long again for initialize.
        assert_eq!(probe(20_000), 20_000);
        assert_eq!(probe(30_000), 30_000);
    }

    #[test]
    fn elicitation_is_declared_as_form_only() {
        let meta = serde_json::to_value(elicitation_meta()).unwrap();
        assert_eq!(
            meta,
            json!({"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}})
        );
        // Legacy servers may ask mid-request only when the handshake declared it.
        let handshake = serde_json::to_value(client_info().capabilities).unwrap();
        assert_eq!(handshake, json!({"elicitation":{"form":{}}}));
        // 2026-07-28 requests that cannot ask declare nothing, in place of the handshake's.
        let plain = serde_json::to_value(no_capabilities_meta()).unwrap();
        assert_eq!(
            plain,
            json!({"io.modelcontextprotocol/clientCapabilities":{}})
        );
    }

    fn hints(ttl_ms: u64, received_ms: u64) -> Hints {
        Hints {
            received_ms,
            ttl_ms,
            scope: Scope::Public,
        }
    }

    #[test]
    fn a_list_keeps_its_pages_and_is_fresh_until_its_first_page_expires() {
        let prompt = |name: &str| PromptInfo {
            server: "s".into(),
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            skill: None,
            mirrors_skill: None,
        };
        let now = crate::cache::now_ms();
        let list = PromptList {
            prompts: vec![prompt("a"), prompt("b"), prompt("c")],
            warnings: Vec::new(),
            pages: vec![(hints(60_000, now), 2), (hints(30_000, now), 1)],
        };
        let pages = list.catalog_pages();
        let names: Vec<Vec<&str>> = pages
            .iter()
            .map(|p| p.prompts.iter().map(|p| p.name.as_str()).collect())
            .collect();
        assert_eq!(names, [vec!["a", "b"], vec!["c"]]);
        assert_eq!(pages[1].hints.ttl_ms, 30_000);
        assert_eq!(list.fresh_until_ms(), Some(now + 30_000));
        // One page of ttlMs 0 (or a legacy list) sets no timer at all.
        let stale = PromptList {
            pages: vec![(hints(60_000, now), 2), (hints(0, now), 1)],
            ..list
        };
        assert_eq!(stale.fresh_until_ms(), None);
    }

    #[test]
    fn only_a_readable_2026_discover_result_starts_without_a_handshake() {
        let config = http_server("");
        let details = ServerDetails {
            transport: "http".into(),
            protocol_version: "2026-07-28".into(),
            server_name: None,
            server_version: None,
            capabilities: json!({"prompts": {}}),
            prompts: true,
            prompts_list_changed: false,
            completions: false,
            resources: false,
            skills: false,
            served_problems: Vec::new(),
        };
        let info = ServerPeerInfo::new(
            ProtocolVersion::V_2026_07_28,
            rmcp::model::ServerCapabilities::default(),
        );
        let mut entry = ServerEntry::new(&config, None, Era::Modern, details);
        entry.discover = Some(crate::cache::Cached {
            hints: hints(0, 0),
            value: serde_json::to_value(&info).unwrap(),
        });
        assert!(Known::from_entry(&entry, true).direct());
        // Not when the caller wants the handshake (the menu).
        let known = Known::from_entry(&entry, false);
        assert!(!known.direct());
        assert!(matches!(
            known.start(),
            Some((Start::Handshake(ClientLifecycleMode::Discover { .. }), None))
        ));
        // Not from a result that cannot be read, nor for a legacy server.
        let mut unreadable = entry.clone();
        unreadable.discover.as_mut().unwrap().value = json!({"protocolVersion": 5});
        assert!(!Known::from_entry(&unreadable, true).direct());
        let mut legacy = entry.clone();
        legacy.era = Era::Legacy;
        let known = Known::from_entry(&legacy, true);
        assert!(!known.direct());
        assert!(matches!(
            known.start(),
            Some((Start::Handshake(ClientLifecycleMode::Initialize), Some(v)))
                if v == ProtocolVersion::LATEST_WITH_INITIALIZE
        ));
        assert!(Known::default().start().is_none());
    }

    #[test]
    fn a_failure_that_says_the_era_changed_is_told_from_others() {
        let server = |code: i32, message: &str| McpError::Server {
            code,
            message: message.into(),
            data: None,
        };
        for changed in [
            server(-32022, "Unsupported protocol version"),
            server(-32601, "Method not found"),
            server(
                -32600,
                "Received request before initialization was complete",
            ),
            server(-32000, "Bad Request: No valid session ID provided"),
            McpError::Protocol("the server answered HTTP 400: Bad Request: missing session".into()),
            McpError::Closed(": the server exited with status 3".into()),
        ] {
            assert!(looks_like_another_era(&changed), "{changed}");
        }
        for same in [
            server(-32602, "Unknown prompt: x"),
            server(-32603, "internal"),
            server(-32600, "Invalid request"),
            McpError::Timeout {
                method: "prompts/get".into(),
                ms: 1,
            },
            McpError::InputRequired("x".into()),
        ] {
            assert!(!looks_like_another_era(&same), "{same}");
        }
        assert!(refused_era(&handshake_error(
            ClientInitializeError::JsonRpcError(rmcp::model::ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "Method not found: initialize",
                None
            ))
        )));
        assert!(!refused_era(&McpError::Handshake(
            "cannot reach the server: connection refused".into()
        )));
    }

    #[test]
    fn a_legacy_answer_becomes_the_elicit_result_of_its_question() {
        let round = |answer: Answer| InputAnswers {
            answers: vec![(LEGACY_QUESTION_KEY.to_string(), answer)],
            request_state: None,
        };
        let mut content = serde_json::Map::new();
        content.insert("confirmed".into(), json!(true));
        let value = |result: ElicitResult| serde_json::to_value(result).unwrap();
        assert_eq!(
            value(legacy_answer(&round(Answer::Accept(content)))),
            json!({"action":"accept","content":{"confirmed":true}})
        );
        assert_eq!(
            value(legacy_answer(&round(Answer::Cancel))),
            json!({"action":"cancel"})
        );
        assert_eq!(
            value(legacy_answer(&round(Answer::Decline))),
            json!({"action":"decline"})
        );
        // No answer for it at all is a decline, never an accept.
        let none = InputAnswers {
            answers: Vec::new(),
            request_state: None,
        };
        assert_eq!(value(legacy_answer(&none)), json!({"action":"decline"}));
    }
}
