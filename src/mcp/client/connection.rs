//! One live connection to one server: handshake in either protocol era, requests with
//! timeouts, list-change signals, and shutdown.

mod connect;
mod lists;
mod requests;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientCapabilities, ClientConfig,
    ClientNotification, ClientRequest, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, Implementation, ProtocolVersion, RequestId, RequestMetaObject,
    ServerNotification, ServerPeerInfo, ServerResult, SubscriptionFilter,
};
use rmcp::service::{
    ClientLifecycleMode, NotificationContext, Peer, PeerRequestOptions, RequestContext, RoleClient,
    RunningService, ServiceError,
};
use tokio::sync::{Notify, mpsc};

use crate::cache::{Era, Hints, PromptPage, ServerEntry};
use crate::config::ServerConfig;
use crate::mcp::client::child::ChildProcess;
use crate::mcp::client::limit::{TOO_LARGE_CODE, TOO_LARGE_MARKER};
use crate::mcp::client::questions::{Answer, InputAnswers};
use crate::mcp::error::McpError;
use crate::mcp::log::ServerLog;
use crate::model::{
    EmbeddedResource, LogLine, Message, PromptInfo, PromptMessages, ServerDetails, ServerId,
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
    McpError::KeptAsking {
        rounds: MAX_INPUT_ROUNDS,
    }
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
    /// How many `notifications/prompts/list_changed` the server sent (`mcpick test`).
    prompt_list_changes: Arc<std::sync::atomic::AtomicUsize>,
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
        (self.prompt_list_changes).fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
    served_problems: crate::mcp::client::problems::ServedProblems,
    /// `prompts/get` answers read at the transport seam (stdio), by request id.
    decoded: crate::mcp::client::answer::DecodedAnswers,
    /// How many prompt list-change notices the server sent.
    prompt_list_changes: Arc<std::sync::atomic::AtomicUsize>,
}

impl Connection {
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
        self.request_with_id(method, request, options)
            .await
            .map(|(_, result)| result)
    }

    /// [`Connection::request_with`], with the request's id (to find its answer in
    /// [`Connection::decoded`]).
    async fn request_with_id(
        &self,
        method: &str,
        request: ClientRequest,
        options: PeerRequestOptions,
    ) -> Result<(RequestId, ServerResult), McpError> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        let handle = self.send_within(method, deadline, request, options).await?;
        let id = handle.id.clone();
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
                result.map(|r| (id, r)).map_err(|e| self.service_error(e))
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
            ServiceError::McpError(data) if unreadable(&data).is_some() => {
                unreadable(&data).unwrap_or_else(|| McpError::Unreadable(String::new()))
            }
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
                None => transport_failure(error.error.as_ref()),
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

/// The error a JSON-RPC error stands for when it is the seam's stand-in for an answer
/// nothing can read ([`crate::mcp::client::answer`]).
pub(super) fn unreadable(data: &rmcp::model::ErrorData) -> Option<McpError> {
    use crate::mcp::client::answer::{UNREADABLE_CODE, UNREADABLE_MARKER};
    let marked = data.data.as_ref().filter(|d| {
        data.code.0 == UNREADABLE_CODE
            && d.get("mcpick").and_then(|m| m.as_str()) == Some(UNREADABLE_MARKER)
    })?;
    let reason = marked.get("reason").and_then(serde_json::Value::as_str);
    Some(McpError::Unreadable(reason.unwrap_or_default().to_string()))
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
        return Err(McpError::Malformed(
            "the result has no `messages` list".into(),
        ));
    };
    let messages = list
        .iter()
        .enumerate()
        .map(|(i, message)| {
            serde_json::from_value::<Message>(message.clone()).map_err(|e| {
                McpError::InvalidMessage {
                    index: i,
                    reason: e.to_string(),
                }
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
        return Err(McpError::Malformed(
            "the result has no `contents` list".into(),
        ));
    };
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value::<EmbeddedResource>(item.clone()).map_err(|e| {
                McpError::Malformed(format!(
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
pub(in crate::mcp) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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
    McpError::UnexpectedResult {
        method: method.to_string(),
        kind,
    }
}

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
        McpError::HttpStatus { status, words } => {
            matches!(status, 400 | 404) || words.contains("session")
        }
        // The transport's and the server's own words (a body's "missing session"), not
        // mcpick's.
        McpError::Protocol(text) | McpError::Handshake(text) | McpError::Unreachable(text) => {
            text.contains("session")
        }
        McpError::Closed(_) => true,
        _ => false,
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

/// Leaves out the prompts no request can name, and says so (the server's problems): one
/// with an empty name, and every prompt after the first of a name listed more than once
/// (`prompts/get` names a prompt by its name alone, so only one of them can be asked
/// for). Each page's count follows.
fn drop_unreachable(list: &mut PromptList) {
    let mut count: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for prompt in &list.prompts {
        *count.entry(prompt.name.as_str()).or_default() += 1;
    }
    let empty = count.get("").copied().unwrap_or(0);
    let mut repeated: Vec<(String, usize)> = count
        .iter()
        .filter(|(name, n)| !name.is_empty() && **n > 1)
        .map(|(name, n)| (name.to_string(), *n))
        .collect();
    if empty == 0 && repeated.is_empty() {
        return;
    }
    // In the order the server listed them.
    let first_at = |name: &str| list.prompts.iter().position(|p| p.name == name);
    repeated.sort_by_key(|(name, _)| first_at(name));
    if empty > 0 {
        list.warnings.push(format!(
            "left out {} with an empty name: no request can name {}; the server should name {}",
            crate::text::counted(empty, "prompt", "prompts"),
            if empty == 1 { "it" } else { "them" },
            if empty == 1 { "it" } else { "each" },
        ));
    }
    for (name, n) in &repeated {
        list.warnings.push(format!(
            "the server lists {n} prompts named `{}`: kept the first, left out the other {}, as \
             prompts/get can name only one of them; the server should give each its own name",
            crate::text::one_line(name),
            n - 1
        ));
    }
    let mut seen = HashSet::new();
    let mut keep =
        |prompt: &PromptInfo| !prompt.name.is_empty() && seen.insert(prompt.name.clone());
    let mut rest = std::mem::take(&mut list.prompts).into_iter();
    let mut kept = Vec::with_capacity(rest.len());
    for (_, count) in &mut list.pages {
        let before = kept.len();
        kept.extend(rest.by_ref().take(*count).filter(|p| keep(p)));
        *count = kept.len() - before;
    }
    kept.extend(rest.filter(|p| keep(p)));
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
        return Err(McpError::Malformed(
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
fn transport_failure(error: &(dyn std::error::Error + 'static)) -> McpError {
    match answered_status(error) {
        Some((status, said)) => McpError::HttpStatus {
            status,
            words: crate::mcp::error::answered_http(status, &said),
        },
        None => McpError::Unreachable(error_chain(error)),
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
#[path = "connection_tests.rs"]
mod tests;

/// The exit status, if the process exits within a moment (the reaper may lag the pipe).
async fn exit_soon(child: &ChildProcess) -> Option<std::process::ExitStatus> {
    tokio::time::timeout(Duration::from_millis(200), child.exited())
        .await
        .ok()
        .flatten()
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
