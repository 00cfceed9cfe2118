//! The legacy HTTP+SSE client transport of MCP 2024-11-05, which rmcp no longer ships.
//!
//! The client GETs an event stream; the server's first event (`endpoint`) names the URL
//! to POST every client message to, and every server message arrives as a `message`
//! event on the stream. This file holds the transport and its bounded, incremental SSE
//! parser.
//!
//! The parser is mcpick's own, not the `sse-stream` crate's (which rmcp uses for Streamable
//! HTTP): that one fails the stream where the event-stream grammar says to go on (a field
//! line without a colon such as a bare `data` or `id`, an unknown field, a second `event:`
//! line in one event, a second BOM, invalid UTF-8), and loses the rest of the chunk the
//! error was in; and it holds a long line twice (the unfinished line, then its copy in the
//! event's data) with no bound of its own. Bounding it from outside would mean a byte
//! stream that finds the lines and their field names again, that is, a second parser in
//! front of it; this one keeps both bounds ([`SseLimits`]) and holds only what an event
//! keeps.

use std::borrow::Cow;
use std::time::Duration;

use futures::StreamExt;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderMap, StatusCode};
use reqwest::Url;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::mcp::client::limit::HeldBytes;

/// The most data one SSE event may carry: its `data` lines joined, plus its event name.
pub const MAX_EVENT_BYTES: usize = 32 * 1024 * 1024;
/// The longest line of the stream. Room for a maximal `data:` line and its field name;
/// it also bounds comments and unknown fields, which are never buffered.
pub const MAX_LINE_BYTES: usize = MAX_EVENT_BYTES + 1024;
/// Field names longer than this are unknown anyway (the longest known one is 5 bytes,
/// plus a 3-byte BOM on the first line), so they are not buffered.
const MAX_FIELD_NAME: usize = 32;
/// Server messages parsed but not yet received; more waits on the socket (backpressure).
const MESSAGE_BUFFER: usize = 64;
/// How much of an error response's body is read, and how much of it is shown.
const EXCERPT_READ_BYTES: usize = 4096;
const EXCERPT_CHARS: usize = 200;
/// The SSE parser's limits: an event or a line over its limit ends the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseLimits {
    /// The most bytes of one event (data lines joined, plus the event name).
    pub max_event_bytes: usize,
    /// The longest line, without its line end.
    pub max_line_bytes: usize,
}

impl Default for SseLimits {
    fn default() -> Self {
        SseLimits {
            max_event_bytes: MAX_EVENT_BYTES,
            max_line_bytes: MAX_LINE_BYTES,
        }
    }
}

/// Why the SSE transport failed. No variant echoes a URL's path or query, nor a header
/// value: they may hold secrets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// The configured URL cannot be used (not a URL, or not http/https).
    #[error("invalid server URL: {reason}")]
    InvalidUrl {
        /// What is wrong with it.
        reason: String,
    },
    /// The server answered 401 or 403: sign-in or a token is needed.
    #[error("the server requires authorization: the {request} answered HTTP {status}")]
    Unauthorized {
        /// `"GET"` (opening the stream) or `"POST"` (sending a message).
        request: &'static str,
        /// 401 or 403.
        status: StatusCode,
        /// The `WWW-Authenticate` header, if the server sent one.
        www_authenticate: Option<String>,
    },
    /// Any other non-2xx answer.
    #[error("the {request} answered HTTP {status}{}", excerpt_suffix(.body))]
    Status {
        /// `"GET"` (opening the stream) or `"POST"` (sending a message).
        request: &'static str,
        /// The status.
        status: StatusCode,
        /// A short excerpt of the body, whitespace collapsed (may be empty).
        body: String,
    },
    /// The GET did not answer with an event stream.
    #[error(
        "the server answered with content type {content_type:?}, not text/event-stream \
         (is it a Streamable HTTP server? then it is not an SSE server)"
    )]
    NotEventStream {
        /// The `Content-Type` it sent (empty if none).
        content_type: String,
    },
    /// The stream ended before the server sent its `endpoint` event.
    #[error("the SSE stream ended before the server sent its message endpoint")]
    NoEndpoint,
    /// The `endpoint` event does not hold a usable URL.
    #[error("the server's message endpoint is not a valid URL: {reason}")]
    BadEndpoint {
        /// What is wrong with it.
        reason: String,
    },
    /// The `endpoint` is on another origin than the SSE URL: refused, so a server cannot
    /// send our messages (and headers) to another host.
    #[error(
        "the server's message endpoint is on {endpoint_origin}, not on {origin} like the SSE \
         stream; refusing to send messages to another origin"
    )]
    CrossOrigin {
        /// The SSE URL's origin (scheme, host, port).
        origin: String,
        /// The endpoint's origin.
        endpoint_origin: String,
    },
    /// A step took longer than the timeout.
    #[error("{what} timed out after {ms} ms")]
    Timeout {
        /// What timed out: the GET, the wait for the endpoint, or a POST.
        what: &'static str,
        /// The limit that was hit.
        ms: u128,
    },
    /// The HTTP request failed (connection refused, reset, TLS, ...).
    #[error("{what} failed: {detail}")]
    Request {
        /// The step that failed.
        what: &'static str,
        /// The error and its causes, without the URL.
        detail: String,
    },
    /// One SSE event was larger than [`SseLimits::max_event_bytes`].
    #[error("the server sent an SSE event over the limit of {limit} bytes")]
    EventTooLarge {
        /// The limit.
        limit: usize,
    },
    /// One SSE line was longer than [`SseLimits::max_line_bytes`].
    #[error("the server sent an SSE line over the limit of {limit} bytes")]
    LineTooLong {
        /// The limit.
        limit: usize,
    },
    /// A message could not be serialized.
    #[error("cannot serialize the message: {0}")]
    Serialize(String),
    /// The transport was closed, or its stream ended.
    #[error("the SSE transport is closed")]
    Closed,
}

impl SseError {
    /// Whether the server asked for authorization (HTTP 401 or 403).
    #[cfg(test)]
    pub fn is_auth_required(&self) -> bool {
        matches!(self, SseError::Unauthorized { .. })
    }

    #[cfg(test)]
    /// The HTTP status of a refused GET or POST.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            SseError::Unauthorized { status, .. } | SseError::Status { status, .. } => {
                Some(*status)
            }
            _ => None,
        }
    }
}

fn excerpt_suffix(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

/// A message queued for the POST task, with where to report its outcome.
type Outgoing = (
    TxJsonRpcMessage<RoleClient>,
    oneshot::Sender<Result<(), SseError>>,
);

/// A client connection over the legacy HTTP+SSE transport, ready for rmcp's
/// `serve`/`serve_with_lifecycle`. Messages are POSTed one at a time, in the order they
/// are sent, so a notification never overtakes the request before it.
pub struct SseClientTransport {
    outbox: mpsc::UnboundedSender<Outgoing>,
    messages: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    closed: CancellationToken,
    reader: Option<JoinHandle<()>>,
    writer: Option<JoinHandle<()>>,
    // Dropping the transport without `close` still stops both tasks.
    _stop: DropGuard,
}

impl std::fmt::Debug for SseClientTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseClientTransport")
            .field("closed", &self.closed.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl SseClientTransport {
    /// Opens the SSE stream at `url` and waits for the server's message endpoint.
    /// `headers` (e.g. `Authorization`) go on the GET and on every POST; `timeout`
    /// bounds the GET and the wait for the endpoint together, and each POST.
    #[cfg(test)]
    pub async fn connect(
        url: &str,
        headers: HeaderMap,
        timeout: Duration,
    ) -> Result<SseClientTransport, SseError> {
        Self::connect_with_limits(url, headers, timeout, SseLimits::default()).await
    }

    /// [`SseClientTransport::connect`] with the parser's limits given.
    pub async fn connect_with_limits(
        url: &str,
        headers: HeaderMap,
        timeout: Duration,
        limits: SseLimits,
    ) -> Result<SseClientTransport, SseError> {
        let sse_url = Url::parse(url).map_err(|e| SseError::InvalidUrl {
            reason: e.to_string(),
        })?;
        if !matches!(sse_url.scheme(), "http" | "https") {
            return Err(SseError::InvalidUrl {
                reason: format!("the scheme is {:?}, not http or https", sse_url.scheme()),
            });
        }
        crate::mcp::tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(timeout)
            .build()
            .map_err(|e| request_error("setting up the HTTP client", e, None))?;
        let closed = CancellationToken::new();
        // Until the transport exists, a failure or a timeout stops the reader here.
        let stop = closed.clone().drop_guard();
        let deadline = tokio::time::Instant::now() + timeout;
        let ms = timeout.as_millis();

        let request = client
            .get(sse_url.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .header(CACHE_CONTROL, "no-cache");
        let opening = async {
            let response = request
                .send()
                .await
                .map_err(|e| request_error("the SSE GET", e, Some(timeout)))?;
            let response = check_status("GET", response).await?;
            let content_type = response
                .headers()
                .get(CONTENT_TYPE)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .unwrap_or_default();
            let essence = content_type.split(';').next().unwrap_or("").trim();
            if !essence.eq_ignore_ascii_case("text/event-stream") {
                return Err(SseError::NotEventStream { content_type });
            }
            Ok(response)
        };
        let response = tokio::time::timeout_at(deadline, opening)
            .await
            .map_err(|_| SseError::Timeout {
                what: "the SSE GET",
                ms,
            })??;

        let (endpoint_tx, endpoint_rx) = oneshot::channel();
        let (messages_tx, messages) = mpsc::channel(MESSAGE_BUFFER);
        let reader = tokio::spawn(read_events(
            response,
            SseParser::new(limits),
            endpoint_tx,
            messages_tx,
            closed.clone(),
        ));
        let raw_endpoint = tokio::time::timeout_at(deadline, endpoint_rx)
            .await
            .map_err(|_| SseError::Timeout {
                what: "waiting for the server's message endpoint",
                ms,
            })?
            .unwrap_or(Err(SseError::NoEndpoint))?;
        let endpoint = resolve_endpoint(&sse_url, &raw_endpoint)?;
        tracing::debug!(
            path = endpoint.path(),
            "SSE stream open; the server gave its message endpoint"
        );

        let (outbox, inbox) = mpsc::unbounded_channel();
        let writer = tokio::spawn(post_messages(
            client,
            endpoint,
            headers,
            timeout,
            inbox,
            closed.clone(),
        ));
        stop.disarm();
        Ok(SseClientTransport {
            outbox,
            messages,
            reader: Some(reader),
            writer: Some(writer),
            _stop: closed.clone().drop_guard(),
            closed,
        })
    }
}

impl Transport<RoleClient> for SseClientTransport {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "sse".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        // Queued now, in call order; the POST task sends them one by one.
        let (done, outcome) = oneshot::channel();
        let queued = self.outbox.send((item, done)).is_ok();
        async move {
            if !queued {
                return Err(SseError::Closed);
            }
            outcome.await.unwrap_or(Err(SseError::Closed))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.messages.recv().await
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.closed.cancel();
        // Both tasks watch `closed`, so these joins are prompt.
        if let Some(reader) = self.reader.take() {
            let _ = reader.await;
        }
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

/// Resolves the `endpoint` event's URI against the SSE URL and refuses another origin.
fn resolve_endpoint(sse_url: &Url, raw: &str) -> Result<Url, SseError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(SseError::BadEndpoint {
            reason: "it is empty".into(),
        });
    }
    let endpoint = sse_url.join(raw).map_err(|e| SseError::BadEndpoint {
        reason: e.to_string(),
    })?;
    if endpoint.origin() != sse_url.origin() {
        return Err(SseError::CrossOrigin {
            origin: sse_url.origin().ascii_serialization(),
            endpoint_origin: endpoint.origin().ascii_serialization(),
        });
    }
    Ok(endpoint)
}

/// A reqwest error as an [`SseError`], its causes spelled out and its URL left out.
/// `timeout` is the limit reqwest enforced for this request, if any.
fn request_error(what: &'static str, error: reqwest::Error, timeout: Option<Duration>) -> SseError {
    if let Some(limit) = timeout
        && error.is_timeout()
    {
        return SseError::Timeout {
            what,
            ms: limit.as_millis(),
        };
    }
    let error = error.without_url();
    let mut detail = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !detail.contains(&text) {
            detail.push_str(": ");
            detail.push_str(&text);
        }
        source = cause.source();
    }
    SseError::Request { what, detail }
}

/// Passes a 2xx response; anything else becomes an error with a short excerpt.
async fn check_status(
    request: &'static str,
    response: reqwest::Response,
) -> Result<reqwest::Response, SseError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        let www_authenticate = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        return Err(SseError::Unauthorized {
            request,
            status,
            www_authenticate,
        });
    }
    let body = excerpt(response).await;
    Err(SseError::Status {
        request,
        status,
        body,
    })
}

/// The start of a body, read no further than [`EXCERPT_READ_BYTES`], on one short line.
async fn excerpt(response: reqwest::Response) -> String {
    let mut stream = response.bytes_stream();
    let mut bytes = Vec::new();
    while bytes.len() < EXCERPT_READ_BYTES {
        match stream.next().await {
            Some(Ok(chunk)) => {
                let room = EXCERPT_READ_BYTES - bytes.len();
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            _ => break,
        }
    }
    // An HTML error page is read as its text before it is cut, so the cut keeps words.
    shorten(&crate::mcp::error::text_of_html(&String::from_utf8_lossy(
        &bytes,
    )))
}

/// Collapses whitespace and cuts to [`EXCERPT_CHARS`].
fn shorten(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::cut_chars(&text, EXCERPT_CHARS)
}

/// The reader task: parses the stream, hands the endpoint to `connect` and messages to
/// `receive`. When it ends, `closed` is cancelled and `receive` sees the end.
async fn read_events(
    response: reqwest::Response,
    mut parser: SseParser,
    endpoint: oneshot::Sender<Result<String, SseError>>,
    messages: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
    closed: CancellationToken,
) {
    let mut endpoint = Some(endpoint);
    let mut stream = response.bytes_stream();
    let mut events = Vec::new();
    let failure = 'read: loop {
        let next = tokio::select! {
            _ = closed.cancelled() => return,
            next = stream.next() => next,
        };
        let chunk = match next {
            None => break None,
            Some(Err(e)) => break Some(request_error("reading the SSE stream", e, None)),
            Some(Ok(chunk)) => chunk,
        };
        // Events completed before a parse error are still delivered.
        let fed = parser.feed(&chunk, &mut events);
        for event in events.drain(..) {
            match event.event.as_str() {
                "endpoint" => match endpoint.take() {
                    Some(tx) => {
                        let _ = tx.send(Ok(event.data));
                    }
                    None => tracing::warn!("ignoring a second SSE endpoint event"),
                },
                "message" => {
                    for message in parse_messages(&event.data) {
                        tokio::select! {
                            _ = closed.cancelled() => return,
                            sent = messages.send(message) => if sent.is_err() {
                                break 'read None;
                            },
                        }
                    }
                }
                other => tracing::debug!(event = other, "ignoring an unknown SSE event"),
            }
        }
        if let Err(error) = fed {
            break Some(error);
        }
    };
    closed.cancel();
    match failure {
        Some(error) => {
            tracing::warn!("the SSE stream ends: {error}");
            if let Some(tx) = endpoint {
                let _ = tx.send(Err(error));
            }
        }
        None => match endpoint {
            Some(tx) => {
                let _ = tx.send(Err(SseError::NoEndpoint));
            }
            None => tracing::debug!("the server closed the SSE stream"),
        },
    }
}

/// The JSON-RPC messages in one `message` event's data: one message, or a batch
/// (2024-11-05 allows them). Anything else is logged and skipped.
fn parse_messages(data: &str) -> Vec<RxJsonRpcMessage<RoleClient>> {
    let error = match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(data) {
        Ok(message) => return vec![message],
        Err(error) => error,
    };
    if data.trim_start().starts_with('[')
        && let Ok(items) = serde_json::from_str::<Vec<serde_json::Value>>(data)
    {
        let mut messages = Vec::with_capacity(items.len());
        for item in items {
            match serde_json::from_value(item) {
                Ok(message) => messages.push(message),
                Err(error) => {
                    tracing::warn!("skipping a batch entry that is not a JSON-RPC message: {error}")
                }
            }
        }
        return messages;
    }
    tracing::warn!(
        "skipping an SSE message that is not JSON-RPC ({error}): {}",
        shorten(data)
    );
    Vec::new()
}

/// The POST task: sends queued messages one at a time, in order.
async fn post_messages(
    client: reqwest::Client,
    endpoint: Url,
    headers: HeaderMap,
    timeout: Duration,
    mut inbox: mpsc::UnboundedReceiver<Outgoing>,
    closed: CancellationToken,
) {
    loop {
        let (message, done) = tokio::select! {
            _ = closed.cancelled() => break,
            next = inbox.recv() => match next {
                Some(next) => next,
                None => break,
            },
        };
        let outcome = tokio::select! {
            _ = closed.cancelled() => Err(SseError::Closed),
            outcome = post(&client, &endpoint, &headers, timeout, &message) => outcome,
        };
        if let Err(error) = &outcome {
            tracing::debug!("POST of a message failed: {error}");
        }
        let _ = done.send(outcome);
    }
    // Messages still queued are dropped with their senders: their `send` says Closed.
}

async fn post(
    client: &reqwest::Client,
    endpoint: &Url,
    headers: &HeaderMap,
    timeout: Duration,
    message: &TxJsonRpcMessage<RoleClient>,
) -> Result<(), SseError> {
    let body = serde_json::to_vec(message).map_err(|e| SseError::Serialize(e.to_string()))?;
    let response = client
        .post(endpoint.clone())
        .headers(headers.clone())
        .header(CONTENT_TYPE, "application/json")
        .timeout(timeout)
        .body(body)
        .send()
        .await
        .map_err(|e| request_error("the POST", e, Some(timeout)))?;
    // The body of a 200/202 carries nothing the protocol needs.
    check_status("POST", response).await.map(drop)
}

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SseEvent {
    /// The event name; `message` when none was given.
    event: String,
    /// The data lines, joined by `\n`.
    data: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Data,
    Event,
    /// Comments, `id`, `retry` and unknown fields: their values are skipped unbuffered.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading the field name, up to the first `:`.
    Name,
    /// Reading the value; `at_start` until its first byte (one leading space is dropped).
    Value { field: Field, at_start: bool },
}

/// An incremental SSE parser (the WHATWG event-stream grammar) over raw bytes. Lines
/// are split on bytes (`\r\n`, `\n`, `\r`), so UTF-8 split across chunks needs no care:
/// text is decoded only when an event is dispatched. Only what an event keeps is
/// buffered, and never past the limits.
#[derive(Debug)]
struct SseParser {
    limits: SseLimits,
    phase: Phase,
    name: Vec<u8>,
    name_overflow: bool,
    line_len: usize,
    first_line: bool,
    after_cr: bool,
    data: HeldBytes,
    has_data: bool,
    event: Vec<u8>,
}

impl SseParser {
    fn new(limits: SseLimits) -> Self {
        SseParser {
            limits,
            phase: Phase::Name,
            name: Vec::new(),
            name_overflow: false,
            line_len: 0,
            first_line: true,
            after_cr: false,
            data: HeldBytes::default(),
            has_data: false,
            event: Vec::new(),
        }
    }

    /// Parses the next bytes of the stream, pushing each completed event to `out`. After
    /// an error the parser must not be fed again.
    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        while let Some(&first) = chunk.first() {
            if self.after_cr {
                self.after_cr = false;
                if first == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            let end = chunk.iter().position(|&b| b == b'\r' || b == b'\n');
            let content = &chunk[..end.unwrap_or(chunk.len())];
            self.line_len = self.line_len.saturating_add(content.len());
            if self.line_len > self.limits.max_line_bytes {
                return Err(SseError::LineTooLong {
                    limit: self.limits.max_line_bytes,
                });
            }
            self.take(content)?;
            match end {
                Some(i) => {
                    self.after_cr = chunk[i] == b'\r';
                    self.end_line(out)?;
                    chunk = &chunk[i + 1..];
                }
                None => break,
            }
        }
        Ok(())
    }

    /// Takes bytes from inside a line.
    fn take(&mut self, mut bytes: &[u8]) -> Result<(), SseError> {
        if self.phase == Phase::Name {
            let colon = bytes.iter().position(|&b| b == b':');
            self.push_name(&bytes[..colon.unwrap_or(bytes.len())]);
            let Some(colon) = colon else {
                return Ok(());
            };
            let field = self.field();
            self.start_field(field)?;
            self.phase = Phase::Value {
                field,
                at_start: true,
            };
            bytes = &bytes[colon + 1..];
        }
        if let Phase::Value { field, at_start } = &mut self.phase {
            if *at_start && let Some(&first) = bytes.first() {
                *at_start = false;
                if first == b' ' {
                    bytes = &bytes[1..];
                }
            }
            if *field == Field::Other {
                return Ok(());
            }
            // Checked before growing, so the buffers never pass the limit.
            let size = self.data.len() + self.event.len() + bytes.len();
            if size > self.limits.max_event_bytes {
                return Err(SseError::EventTooLarge {
                    limit: self.limits.max_event_bytes,
                });
            }
            match field {
                Field::Data => self.hold_data(bytes),
                Field::Event => self.event.extend_from_slice(bytes),
                Field::Other => {}
            }
        }
        Ok(())
    }

    /// Holds more of the event's data (past its first MiB in a temporary file, so that an
    /// event over the limit never took the limit's worth of memory).
    fn hold_data(&mut self, bytes: &[u8]) {
        if let Err(error) = self.data.push(bytes) {
            tracing::warn!(
                "cannot hold a large SSE event in a temporary file ({error}); it is held in memory"
            );
        }
    }

    fn push_name(&mut self, bytes: &[u8]) {
        if self.name.len() + bytes.len() > MAX_FIELD_NAME {
            self.name_overflow = true;
        } else if !self.name_overflow {
            self.name.extend_from_slice(bytes);
        }
    }

    /// The field named so far; a BOM opening the stream is not part of it.
    fn field(&self) -> Field {
        if self.name_overflow {
            return Field::Other;
        }
        let mut name = self.name.as_slice();
        if self.first_line {
            name = name.strip_prefix("\u{feff}".as_bytes()).unwrap_or(name);
        }
        match name {
            b"data" => Field::Data,
            b"event" => Field::Event,
            _ => Field::Other,
        }
    }

    fn start_field(&mut self, field: Field) -> Result<(), SseError> {
        match field {
            Field::Data => {
                if self.has_data {
                    if self.data.len() + self.event.len() + 1 > self.limits.max_event_bytes {
                        return Err(SseError::EventTooLarge {
                            limit: self.limits.max_event_bytes,
                        });
                    }
                    self.hold_data(b"\n");
                }
                self.has_data = true;
            }
            // A later `event:` line replaces the name.
            Field::Event => self.event.clear(),
            Field::Other => {}
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.phase == Phase::Name {
            let blank = !self.name_overflow
                && (self.name.is_empty()
                    || (self.first_line && self.name == "\u{feff}".as_bytes()));
            if blank {
                self.dispatch(out);
            } else {
                // A line without a colon is a field with an empty value.
                let field = self.field();
                self.start_field(field)?;
            }
        }
        self.phase = Phase::Name;
        self.name.clear();
        self.name_overflow = false;
        self.line_len = 0;
        self.first_line = false;
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = std::mem::take(&mut self.event);
        let data = std::mem::take(&mut self.data);
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        let data = match data.into_bytes() {
            Ok(data) => data,
            Err(error) => {
                tracing::warn!("skipping an SSE event that cannot be read back: {error}");
                return;
            }
        };
        let event = if event.is_empty() {
            "message".to_string()
        } else {
            String::from_utf8_lossy(&event).into_owned()
        };
        let data = String::from_utf8(data)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        out.push(SseEvent { event, data });
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
