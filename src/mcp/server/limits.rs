//! `serve --http` bounded under load and abuse: request bodies over a size get 413 without
//! being read whole, a body that trickles in gets 408, more requests at once than allowed
//! get 503 with `Retry-After` (open event streams are counted apart, against their own
//! cap), and legacy sessions are capped (the least recently used one goes) and expire when
//! idle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::{Stream, StreamExt};
use http::{HeaderValue, StatusCode, header};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use tokio::sync::Semaphore;

use crate::mcp::server::accept::ClientGone;
use crate::mcp::server::connections::{ConnectionLimits, Connections, OpenConnection};
use crate::mcp::server::refusals::{busy, refusal};
use tokio_util::sync::CancellationToken;

/// How much `serve --http` takes on at once (see docs/serve.md, "Limits").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLimits {
    /// The largest request body read, in bytes; larger ones get 413.
    pub max_body: usize,
    /// Requests handled at once (until their answer starts); more get 503.
    pub max_requests: usize,
    /// Event streams (`text/event-stream` answers) open at once; more get 503.
    pub max_streams: usize,
    /// Legacy sessions (`Mcp-Session-Id`) kept; a new one closes the least recently used.
    pub max_sessions: usize,
    /// A legacy session no request has used for this long is closed.
    pub session_idle: Duration,
    /// How long a request body may take to arrive once its headers have.
    pub body_timeout: Duration,
    /// How long an answer's write may stall (the client reads nothing) before the
    /// connection is closed, its memory and its request slot freed.
    pub write_timeout: Duration,
    /// Connections open at once; one more closes the longest idle, else the slowest
    /// arriving.
    pub max_connections: usize,
    /// Connections idle or with a request arriving, at once; one more makes room the
    /// same way (each holds buffers for nothing yet).
    pub max_waiting: usize,
    /// Bytes of requests still arriving (heads and bodies), in all; past it the
    /// connection holding the most is closed.
    pub max_arriving: usize,
    /// The slowest a body may arrive, in bytes a second, once it has had
    /// [`HttpLimits::BODY_RATE_GRACE`]; slower gets 408 (Kestrel's rule).
    pub min_body_rate: u64,
}

impl HttpLimits {
    /// `--max-body`'s default: 1 MiB.
    pub const DEFAULT_MAX_BODY: usize = 1 << 20;
    /// `--max-requests`'s default.
    pub const DEFAULT_MAX_REQUESTS: usize = 256;
    /// `--max-streams`'s default.
    pub const DEFAULT_MAX_STREAMS: usize = 10_000;
    /// `--max-sessions`'s default.
    pub const DEFAULT_MAX_SESSIONS: usize = 1_000;
    /// `--session-idle`'s default: 5 minutes.
    pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);
    /// A body's time to arrive: 30 s.
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    /// How long a write may stall: 30 s.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
    /// The most `--max-connections` is by default, however many files the process may
    /// open (each idle connection holds some memory too).
    pub const MOST_CONNECTIONS_BY_DEFAULT: usize = 16_384;
    /// `--max-waiting`'s default.
    pub const DEFAULT_MAX_WAITING: usize = 512;
    /// `--max-arriving`'s default: 8 MiB.
    pub const DEFAULT_MAX_ARRIVING: usize = 8 << 20;
    /// `--min-body-rate`'s default, ASP.NET Kestrel's: 240 bytes a second.
    pub const DEFAULT_MIN_BODY_RATE: u64 = 240;
    /// How long a body may arrive at any pace before `min_body_rate` applies.
    pub const BODY_RATE_GRACE: Duration = Duration::from_secs(5);
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            max_body: Self::DEFAULT_MAX_BODY,
            max_requests: Self::DEFAULT_MAX_REQUESTS,
            max_streams: Self::DEFAULT_MAX_STREAMS,
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            session_idle: Self::DEFAULT_SESSION_IDLE,
            body_timeout: Self::DEFAULT_BODY_TIMEOUT,
            write_timeout: Self::DEFAULT_WRITE_TIMEOUT,
            max_connections: Self::MOST_CONNECTIONS_BY_DEFAULT,
            max_waiting: Self::DEFAULT_MAX_WAITING,
            max_arriving: Self::DEFAULT_MAX_ARRIVING,
            min_body_rate: Self::DEFAULT_MIN_BODY_RATE,
        }
    }
}

/// The limits of one `serve --http`, shared by its requests, and its drain on shutdown.
#[derive(Clone)]
pub struct Limiter {
    gate: Arc<Gate>,
}

/// What the limiting layer shares between requests.
struct Gate {
    limits: HttpLimits,
    requests: Arc<Semaphore>,
    streams: Arc<Semaphore>,
    /// Open `subscriptions/listen` streams.
    listens: Count,
    /// Request bodies on their way (they hold no request slot, yet a shutdown answers them).
    bodies: Count,
    /// The open connections (for `/healthz`, and handed to the accept loop).
    connections: Arc<Connections>,
}

/// How many of something are open now, watched by a shutdown that waits for none. A count
/// and a wake-up when it drops to none: a `watch` channel took a write lock and woke eight
/// lists of waiters at each change, twice a request.
#[derive(Clone, Default)]
struct Count(Arc<CountInner>);

#[derive(Default)]
struct CountInner {
    open: std::sync::atomic::AtomicUsize,
    none_open: tokio::sync::Notify,
}

impl Count {
    /// Counts one more until the guard is dropped.
    fn enter(&self) -> Counted {
        self.0
            .open
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Counted(self.clone())
    }

    /// Returns once none is open.
    async fn none(&self) {
        loop {
            // Made before the look, so a drop to none after the look still wakes it.
            let dropped = self.0.none_open.notified();
            if self.0.open.load(std::sync::atomic::Ordering::Acquire) == 0 {
                return;
            }
            dropped.await;
        }
    }
}

/// One counted in a [`Count`] until dropped.
struct Counted(Count);

impl Drop for Counted {
    fn drop(&mut self) {
        let inner = &(self.0).0;
        if inner.open.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
            inner.none_open.notify_waiters();
        }
    }
}

/// How long a shutdown waits for requests in flight and listen streams to end before it
/// cuts the rest.
pub const DRAIN_GRACE: Duration = Duration::from_secs(10);

impl Limiter {
    /// The limiter for `limits`.
    pub fn new(limits: &HttpLimits) -> Limiter {
        // The drain takes every request permit back at once, which tokio counts in u32.
        let limits = HttpLimits {
            max_requests: limits.max_requests.clamp(1, u32::MAX as usize),
            max_streams: limits.max_streams.clamp(1, Semaphore::MAX_PERMITS),
            ..limits.clone()
        };
        Limiter {
            gate: Arc::new(Gate {
                requests: Arc::new(Semaphore::new(limits.max_requests)),
                streams: Arc::new(Semaphore::new(limits.max_streams)),
                listens: Count::default(),
                bodies: Count::default(),
                connections: Connections::new(ConnectionLimits {
                    max_connections: limits.max_connections,
                    max_waiting: limits.max_waiting,
                    max_arriving_bytes: limits.max_arriving,
                }),
                limits,
            }),
        }
    }

    /// The table of open connections these limits bound, for the accept loop.
    pub fn connections(&self) -> Arc<Connections> {
        self.gate.connections.clone()
    }

    /// Wraps every route `router` has so far in the request limits: the concurrency
    /// bound, the stream cap, the body size and the body's time to arrive.
    pub fn bound(&self, router: axum::Router) -> axum::Router {
        router.layer(axum::middleware::from_fn_with_state(
            self.gate.clone(),
            limit_request,
        ))
    }

    /// Adds `GET /healthz` to `router`: 200 `ok`, or 503 with `Retry-After` while every
    /// request slot is taken, so a load balancer sends the traffic elsewhere for a moment
    /// instead of into refusals. Outside the limits (a probe needs no slot) and, when added
    /// after the token check, outside the token. What the server holds against each bound
    /// follows for a request `may_know` lets know it (the token's holder): a stranger
    /// learns only whether it is up.
    pub fn with_healthz(
        &self,
        router: axum::Router,
        may_know: impl Fn(&http::HeaderMap) -> bool + Clone + Send + Sync + 'static,
    ) -> axum::Router {
        let gate = self.gate.clone();
        router.route(
            "/healthz",
            axum::routing::get(move |headers: http::HeaderMap| {
                let gate = gate.clone();
                let told = may_know(&headers);
                async move { health(&gate, told) }
            }),
        )
    }

    /// The token to give the SDK's HTTP service, for a graceful end: once `shutdown` is
    /// cancelled, `end_listens` is (so each `subscriptions/listen` returns and gets its
    /// final result), and when those streams and the requests in flight are done (or
    /// after [`DRAIN_GRACE`]) the returned token is, which ends what is left (legacy
    /// sessions and their GET streams).
    pub fn drain(
        &self,
        shutdown: &CancellationToken,
        end_listens: CancellationToken,
    ) -> CancellationToken {
        let sdk = CancellationToken::new();
        let (gate, shutdown, cut) = (self.gate.clone(), shutdown.clone(), sdk.clone());
        tokio::spawn(async move {
            shutdown.cancelled().await;
            end_listens.cancel();
            let idle = async {
                gate.listens.none().await;
                gate.bodies.none().await;
                // Every permit back: no request is being handled.
                let all = gate.limits.max_requests as u32;
                let _ = gate.requests.acquire_many(all).await;
            };
            if tokio::time::timeout(DRAIN_GRACE, idle).await.is_err() {
                tracing::warn!(
                    "shutdown: requests or listen streams still open after {DRAIN_GRACE:?}: ending them"
                );
            }
            cut.cancel();
        });
        sdk
    }
}

/// The session manager `serve --http` gives legacy clients: rmcp's own, with `limits`'s
/// idle expiry and cap.
pub fn sessions(limits: &HttpLimits) -> CappedSessions {
    let mut inner = LocalSessionManager::default();
    inner.session_config.keep_alive = Some(limits.session_idle);
    CappedSessions {
        inner,
        cap: limits.max_sessions.max(1),
        uses: Mutex::default(),
    }
}

fn too_large(limit: usize) -> Response {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("the request body is over this server's limit of {limit} bytes (--max-body)"),
    )
}

/// `/healthz`'s answer for the limits' state now: `ok` (or why not) on its first line,
/// then, when `told`, what the server holds against each bound, one `name: now/most` a
/// line.
fn health(gate: &Gate, told: bool) -> Response {
    let census = gate.connections.census();
    let limits = &gate.limits;
    let free = gate.requests.available_permits();
    let streams = limits.max_streams - gate.streams.available_permits();
    let held = if told {
        format!(
            "requests: {}/{}\nstreams: {streams}/{}\nconnections: {}/{}\nwaiting: {}/{}\narriving_bytes: {}/{}\n",
            limits.max_requests - free,
            limits.max_requests,
            limits.max_streams,
            census.open,
            census.limits.max_connections,
            census.waiting,
            census.limits.max_waiting,
            census.arriving_bytes,
            census.limits.max_arriving_bytes,
        )
    } else {
        String::new()
    };
    if free > 0 {
        return if told {
            format!("ok\n{held}")
        } else {
            "ok".to_owned()
        }
        .into_response();
    }
    let mut response = (
        StatusCode::SERVICE_UNAVAILABLE,
        format!(
            "busy: all {} request slots are taken (--max-requests)\n{held}",
            limits.max_requests
        ),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// The announced length of a request body, if it gives one that parses.
fn content_length(headers: &http::HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// A request's body read whole within the limits, counted as arriving until the guard is
/// dropped; `Err` is the refusal to answer instead.
async fn read_body<B>(
    gate: &Gate,
    headers: &http::HeaderMap,
    extensions: &http::Extensions,
    body: B,
) -> Result<(axum::body::Bytes, Counted), Response>
where
    B: http_body::Body<Data = axum::body::Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    let limits = &gate.limits;
    // Said too large up front: answered before a byte of the body is read.
    if content_length(headers).is_some_and(|length| length > limits.max_body as u64) {
        return Err(too_large(limits.max_body));
    }
    // The whole body is read first, within the limits and before the request counts
    // against --max-requests: a body that trickles in holds a connection, never a slot
    // (300 such clients would otherwise take every slot for the body timeout), and a
    // chunked body that grows past the limit is cut there (the SDK reads it whole anyway).
    let arriving = gate.bodies.enter();
    let bytes = match gather_body(body, limits).await {
        Ok(bytes) => bytes,
        Err(Unread::TooLarge) => return Err(too_large(limits.max_body)),
        Err(Unread::TooSlow(why)) => {
            return Err(refusal(StatusCode::REQUEST_TIMEOUT, "request_timeout", why));
        }
        Err(Unread::Broken(why)) => {
            return Err(refusal(
                StatusCode::BAD_REQUEST,
                "bad_request",
                format!("the request body could not be read: {why}"),
            ));
        }
    };
    // Arrived whole: the connection no longer counts as one a body is trickling on.
    if let Some(connection) = extensions.get::<Arc<OpenConnection>>() {
        connection.arrived();
    }
    Ok((bytes, arriving))
}

/// Whether a request is a `subscriptions/listen`, by its `Mcp-Method` or its body.
fn is_listen_request(headers: &http::HeaderMap, body: &[u8]) -> bool {
    headers
        .get("mcp-method")
        .is_some_and(|v| v.as_bytes() == LISTEN)
        || is_listen(body)
}

impl Limiter {
    /// What [`Limiter::bound`] does before a request is handled, for one answered without
    /// the router (accept.rs's direct path): its body read within the limits, then a
    /// request slot, held until the answer is given. `Err` is the limits' own refusal;
    /// `Ok((body, None))` a `subscriptions/listen`, which takes no request slot (the router's
    /// limits count it as a stream: hand it on).
    pub(in crate::mcp) async fn admit<B>(
        &self,
        headers: &http::HeaderMap,
        extensions: &http::Extensions,
        body: B,
    ) -> Result<(axum::body::Bytes, Option<tokio::sync::OwnedSemaphorePermit>), Response>
    where
        B: http_body::Body<Data = axum::body::Bytes> + Unpin,
        B::Error: std::fmt::Display,
    {
        let (bytes, _arriving) = read_body(&self.gate, headers, extensions, body).await?;
        if is_listen_request(headers, &bytes) {
            return Ok((bytes, None));
        }
        let Ok(permit) = self.gate.requests.clone().try_acquire_owned() else {
            return Err(busy("too many requests at once"));
        };
        Ok((bytes, Some(permit)))
    }
}

async fn limit_request(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let (bytes, arriving) = match read_body(&gate, &parts.headers, &parts.extensions, body).await {
        Ok(read) => read,
        Err(refusal) => return refusal,
    };
    let listening = is_listen_request(&parts.headers, &bytes);
    let request = Request::from_parts(parts, Body::from(bytes));
    if listening {
        return listen(&gate, request, next, arriving).await;
    }
    let Ok(permit) = gate.requests.clone().try_acquire_owned() else {
        return busy("too many requests at once");
    };
    // Counted as a request now (a shutdown waits for none on the way, then for every slot).
    drop(arriving);
    // A legacy GET opens a stream that stays open for as long as the client wants.
    let long_lived = request.method() == http::Method::GET;
    let client_done = request.extensions().get::<ClientGone>().cloned();
    let response = next.run(request).await;
    if !is_event_stream(&response) {
        return response;
    }
    if !long_lived {
        // An answer streamed (progress, then the result): in flight until the server has
        // made all of it, however slowly the client reads it (the write timeout bounds
        // that), so clients that never read hold no request slots.
        let (parts, body) = response.into_parts();
        return Response::from_parts(parts, Body::from_stream(produced(body, permit)));
    }
    // A long-lived stream no longer counts as a request being handled, but against the
    // stream cap, for as long as it is open.
    drop(permit);
    let Ok(stream_permit) = gate.streams.clone().try_acquire_owned() else {
        return busy("too many open event streams");
    };
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        Body::from_stream(until_client_done(held(body, stream_permit), client_done)),
    )
}

/// A `subscriptions/listen`: counted against --max-streams from the start, never against
/// --max-requests (a thousand clients that open their listen at once must not crowd out
/// the requests), and against the open listens a shutdown waits for.
async fn listen(gate: &Arc<Gate>, request: Request, next: Next, arriving: Counted) -> Response {
    let Ok(stream_permit) = gate.streams.clone().try_acquire_owned() else {
        return busy("too many open event streams");
    };
    let listening = gate.listens.enter();
    drop(arriving);
    let client_done = request.extensions().get::<ClientGone>().cloned();
    let response = next.run(request).await;
    if !is_event_stream(&response) {
        // Refused or answered at once: nothing stays open.
        return response;
    }
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        Body::from_stream(until_client_done(
            held(body, (stream_permit, listening)),
            client_done,
        )),
    )
}

/// `stream`, ended when the client shuts its side of the connection or goes away.
fn until_client_done<S: Stream + Send + 'static>(
    stream: S,
    client: Option<ClientGone>,
) -> impl Stream<Item = S::Item> + Send {
    let done = async move {
        match client {
            Some(client) => client.gone().await,
            // Served without the accept loop (a test's oneshot): never.
            None => std::future::pending().await,
        }
    };
    stream.take_until(done)
}

const LISTEN: &[u8] = b"subscriptions/listen";

/// Whether a JSON-RPC body is a `subscriptions/listen` request (its `method`).
fn is_listen(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method {
        method: Option<String>,
    }
    // Most bodies are not: the cheap look first (with a searcher built once).
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(LISTEN));
    FINDER.find(body).is_some()
        && serde_json::from_slice::<Method>(body)
            .is_ok_and(|m| m.method.as_deref().map(str::as_bytes) == Some(LISTEN))
}

/// `body`'s data, holding `kept` until the server has made all of it. Each time the reader
/// asks, everything the server has made by then is taken at once (and kept here until the
/// reader takes it), so an answer made in one go lets `kept` go at the reader's first ask,
/// however slowly it reads the rest; one made over time holds it until its last part is
/// taken (the write timeout bounds that). No task of its own: one for each streamed
/// answer cost a spawn and a channel's wake-ups per request.
fn produced<T: Send + 'static>(
    body: Body,
    kept: T,
) -> impl Stream<Item = Result<axum::body::Bytes, axum::Error>> + Send {
    let mut data = body.into_data_stream();
    let mut kept = Some(kept);
    let mut made = std::collections::VecDeque::new();
    futures::stream::poll_fn(move |cx| {
        while kept.is_some() {
            match data.poll_next_unpin(cx) {
                std::task::Poll::Ready(Some(chunk)) => made.push_back(chunk),
                std::task::Poll::Ready(None) => kept = None,
                std::task::Poll::Pending => break,
            }
        }
        match made.pop_front() {
            Some(chunk) => std::task::Poll::Ready(Some(chunk)),
            None if kept.is_none() => std::task::Poll::Ready(None),
            None => std::task::Poll::Pending,
        }
    })
}

/// Why a request body was not read whole.
enum Unread {
    /// Over `--max-body`.
    TooLarge,
    /// Over the body timeout, or below the minimum rate: what to tell the client.
    TooSlow(String),
    /// The connection failed while it came.
    Broken(String),
}

/// Reads `body` whole within `limits`: at most `max_body` bytes, within the body timeout
/// and, after [`HttpLimits::BODY_RATE_GRACE`], at `min_body_rate` bytes a second or more.
/// A body in one piece is kept as it came; one in pieces is copied into a buffer that
/// grows with what arrived (each piece hyper hands over pins its 8 KiB read buffer, so a
/// body sent a byte at a time held 8 KiB a byte).
async fn gather_body<B>(mut body: B, limits: &HttpLimits) -> Result<axum::body::Bytes, Unread>
where
    B: http_body::Body<Data = axum::body::Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    use http_body_util::BodyExt;
    let started = tokio::time::Instant::now();
    let timeout = started + limits.body_timeout;
    let mut gathered: Vec<u8> = Vec::new();
    let mut received: u64 = 0;
    loop {
        // When the body is too slow, if nothing more comes before then.
        let slow = (limits.min_body_rate > 0).then(|| {
            let due = Duration::from_secs_f64((received + 1) as f64 / limits.min_body_rate as f64);
            started + due.max(HttpLimits::BODY_RATE_GRACE)
        });
        let until = slow.map_or(timeout, |slow| slow.min(timeout));
        let frame = match tokio::time::timeout_at(until, body.frame()).await {
            Err(_) if until < timeout => {
                return Err(Unread::TooSlow(format!(
                    "the request body arrived slower than {} bytes a second (--min-body-rate)",
                    limits.min_body_rate
                )));
            }
            Err(_) => {
                return Err(Unread::TooSlow(format!(
                    "the request body took over {:?} to arrive",
                    limits.body_timeout
                )));
            }
            Ok(None) => return Ok(gathered.into()),
            Ok(Some(Err(error))) => return Err(Unread::Broken(error.to_string())),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            // Trailers carry nothing the server reads.
            continue;
        };
        received += data.len() as u64;
        if received > limits.max_body as u64 {
            return Err(Unread::TooLarge);
        }
        if gathered.is_empty() && http_body::Body::is_end_stream(&body) {
            return Ok(data);
        }
        gathered.extend_from_slice(&data);
    }
}

/// `body`'s data, holding `kept` until the stream ends or the client goes.
fn held<T: Send + 'static>(
    body: Body,
    kept: T,
) -> impl Stream<Item = Result<axum::body::Bytes, axum::Error>> + Send {
    body.into_data_stream().map(move |chunk| {
        let _kept = &kept;
        chunk
    })
}

/// rmcp's [`LocalSessionManager`] with a cap on how many sessions it keeps: creating one
/// over the cap first closes the session no request has used for the longest.
pub struct CappedSessions {
    inner: LocalSessionManager,
    cap: usize,
    /// Each session's last use, as a count of uses of any session (a logical clock).
    uses: Mutex<Uses>,
}

#[derive(Default)]
struct Uses {
    clock: u64,
    last: HashMap<SessionId, u64>,
}

impl CappedSessions {
    fn touch(&self, id: &SessionId) {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        uses.clock += 1;
        let now = uses.clock;
        if let Some(last) = uses.last.get_mut(id) {
            *last = now;
        }
    }

    /// The sessions to close so one more fits under the cap, taken out of the count.
    fn make_room(&self) -> Vec<SessionId> {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        let mut gone = Vec::new();
        while uses.last.len() >= self.cap {
            let Some(oldest) = uses
                .last
                .iter()
                .min_by_key(|(_, last)| **last)
                .map(|(id, _)| id.clone())
            else {
                break;
            };
            uses.last.remove(&oldest);
            gone.push(oldest);
        }
        gone
    }

    fn count(&self, id: &SessionId) {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        uses.clock += 1;
        let now = uses.clock;
        uses.last.insert(id.clone(), now);
    }

    fn forget(&self, id: &SessionId) {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        uses.last.remove(id);
    }

    /// How many sessions are open now.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.uses.lock().unwrap().last.len()
    }
}

impl SessionManager for CappedSessions {
    type Error = LocalSessionManagerError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        for oldest in self.make_room() {
            tracing::info!(session = %oldest, cap = self.cap, "legacy session cap reached: closing the least recently used session");
            let _ = self.inner.close_session(&oldest).await;
        }
        let (id, transport) = self.inner.create_session().await?;
        self.count(&id);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.forget(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.inner.restore_session(id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[tokio::test]
    async fn the_session_cap_closes_the_least_recently_used_session() {
        let limits = HttpLimits {
            max_sessions: 3,
            ..HttpLimits::default()
        };
        let sessions = sessions(&limits);
        let mut ids = Vec::new();
        let mut transports = Vec::new();
        for _ in 0..3 {
            let (id, transport) = sessions.create_session().await.unwrap();
            ids.push(id);
            transports.push(transport);
        }
        // The first is used again: the second is now the least recently used.
        sessions.touch(&ids[0]);
        let (fourth, _transport) = sessions.create_session().await.unwrap();
        assert_eq!(sessions.open(), 3);
        assert!(sessions.has_session(&ids[0]).await.unwrap());
        assert!(!sessions.has_session(&ids[1]).await.unwrap());
        assert!(sessions.has_session(&ids[2]).await.unwrap());
        assert!(sessions.has_session(&fourth).await.unwrap());
        for _ in 0..50 {
            let _ = sessions.create_session().await.unwrap();
            assert_eq!(sessions.open(), 3);
        }
        assert_eq!(sessions.inner.sessions.read().await.len(), 3);
    }

    /// A router behind `limits` whose `/slow` answers when `release` is notified, and
    /// whose `/quick` answers at once; with `/healthz`.
    fn gated_router(limits: &HttpLimits, release: Arc<tokio::sync::Notify>) -> axum::Router {
        let limiter = Limiter::new(limits);
        let routes = axum::Router::new()
            .route(
                "/slow",
                axum::routing::post(move || {
                    let release = release.clone();
                    async move {
                        release.notified().await;
                        "slow"
                    }
                }),
            )
            .route("/quick", axum::routing::post(|| async { "quick" }));
        limiter.with_healthz(limiter.bound(routes), |_| true)
    }

    async fn status_of(router: &axum::Router, method: &str, path: &str) -> StatusCode {
        use tower::ServiceExt as _;
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .body(Body::from("{}"))
            .unwrap();
        router.clone().oneshot(request).await.unwrap().status()
    }

    #[tokio::test]
    async fn a_request_being_handled_holds_a_slot_and_healthz_says_so() {
        let limits = HttpLimits {
            max_requests: 1,
            ..HttpLimits::default()
        };
        let release = Arc::new(tokio::sync::Notify::new());
        let router = gated_router(&limits, release.clone());
        assert_eq!(status_of(&router, "GET", "/healthz").await, StatusCode::OK);
        let in_flight = tokio::spawn({
            let router = router.clone();
            async move { status_of(&router, "POST", "/slow").await }
        });
        // Until the slow one holds its slot.
        while status_of(&router, "GET", "/healthz").await == StatusCode::OK {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            status_of(&router, "POST", "/quick").await,
            StatusCode::SERVICE_UNAVAILABLE
        );
        release.notify_one();
        assert_eq!(in_flight.await.unwrap(), StatusCode::OK);
        assert_eq!(status_of(&router, "POST", "/quick").await, StatusCode::OK);
        assert_eq!(status_of(&router, "GET", "/healthz").await, StatusCode::OK);
    }

    #[tokio::test]
    async fn a_body_still_arriving_holds_no_request_slot() {
        use tower::ServiceExt as _;
        let limits = HttpLimits {
            max_requests: 1,
            ..HttpLimits::default()
        };
        let router = gated_router(&limits, Arc::new(tokio::sync::Notify::new()));
        // Ten bodies that send a byte and then nothing more.
        let mut senders = Vec::new();
        let mut pending = Vec::new();
        for _ in 0..10 {
            let (sender, receiver) =
                futures::channel::mpsc::unbounded::<Result<axum::body::Bytes, std::io::Error>>();
            sender
                .unbounded_send(Ok(axum::body::Bytes::from_static(b"{")))
                .unwrap();
            senders.push(sender);
            let request = http::Request::builder()
                .method("POST")
                .uri("/quick")
                .body(Body::from_stream(receiver))
                .unwrap();
            pending.push(tokio::spawn(router.clone().oneshot(request)));
        }
        tokio::task::yield_now().await;
        for _ in 0..20 {
            assert_eq!(status_of(&router, "POST", "/quick").await, StatusCode::OK);
        }
        assert_eq!(status_of(&router, "GET", "/healthz").await, StatusCode::OK);
        drop(senders);
        for answer in pending {
            assert_eq!(answer.await.unwrap().unwrap().status(), StatusCode::OK);
        }
    }

    #[tokio::test]
    async fn a_streamed_answer_nobody_reads_frees_its_slot_once_made() {
        use tower::ServiceExt as _;
        let limits = HttpLimits {
            max_requests: 1,
            ..HttpLimits::default()
        };
        let limiter = Limiter::new(&limits);
        // A POST answered as an event stream of three events, as the SDK answers a legacy
        // session's request (progress, then the result).
        let routes = axum::Router::new().route(
            "/events",
            axum::routing::post(|| async {
                let events = futures::stream::iter(
                    ["data: 1\n\n", "data: 2\n\n", "data: result\n\n"]
                        .map(|event| Ok::<_, std::io::Error>(axum::body::Bytes::from(event))),
                );
                (
                    [(header::CONTENT_TYPE, "text/event-stream")],
                    Body::from_stream(events),
                )
            }),
        );
        let router = limiter.with_healthz(limiter.bound(routes), |_| true);
        let request = http::Request::builder()
            .method("POST")
            .uri("/events")
            .body(Body::from("{}"))
            .unwrap();
        // Its client reads none of it: hyper asks the body once, after writing the head,
        // and never again while the socket stays full.
        let unread = router.clone().oneshot(request).await.unwrap();
        assert_eq!(unread.status(), StatusCode::OK);
        let mut unread = unread.into_body();
        let first = futures::FutureExt::now_or_never(http_body_util::BodyExt::frame(&mut unread))
            .flatten()
            .and_then(|frame| frame.ok()?.into_data().ok())
            .unwrap_or_default();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while status_of(&router, "POST", "/events").await != StatusCode::OK {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the slot was never freed"
            );
            tokio::task::yield_now().await;
        }
        // And what was made is all there for when it reads.
        let rest = http_body_util::BodyExt::collect(unread).await.unwrap();
        assert_eq!(
            [first, rest.to_bytes()].concat(),
            b"data: 1\n\ndata: 2\n\ndata: result\n\n"
        );
    }

    /// `serve --http`'s router as `serve_http` builds it (loopback checks, limits, a
    /// token), over the bundled library, without a socket.
    fn router(limits: &HttpLimits, with_token: bool) -> axum::Router {
        use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
        let library = crate::library::SharedLibrary::new(crate::library::builtin_library());
        let server = crate::mcp::PromptServer::new(library, 50);
        let limiter = Limiter::new(limits);
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(CancellationToken::new())
            .with_stateless_protocol_metadata_required(true)
            .with_json_response(true)
            .with_allowed_hosts(["localhost".to_string(), "127.0.0.1".into()])
            .with_allowed_origins(["http://localhost:*".to_string()])
            .enforce_origin_validation();
        // The route serve --http serves, the direct answer of stateless reads included.
        let router = limiter.bound(crate::mcp::server::router::mcp_router(
            server, config, limits,
        ));
        let token = with_token
            .then(|| crate::mcp::BearerToken::new("0123456789abcdef-token", "a test").unwrap());
        crate::mcp::server::token::protect(router, token)
    }

    const METHODS: &[&str] = &[
        "initialize",
        "notifications/initialized",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "resources/read",
        "subscriptions/listen",
        "server/discover",
        "tools/call",
        "",
    ];

    /// A body: random bytes, or JSON-RPC shaped with random parts, or such a body cut short.
    fn bodies() -> impl Strategy<Value = (Vec<u8>, &'static str)> {
        let json_rpc = (
            proptest::sample::select(METHODS),
            proptest::option::of(any::<i64>()),
            any::<bool>(),
            "[ -~]{0,40}",
            proptest::option::of(any::<u16>()),
        )
            .prop_map(|(method, id, modern, text, cut)| {
                let mut params = serde_json::json!({
                    "name": text, "arguments": {"topic": text},
                    "ref": {"type": "ref/prompt", "name": text},
                    "argument": {"name": text, "value": text},
                    "uri": text, "protocolVersion": text,
                    "notifications": {"promptsListChanged": true},
                });
                if modern {
                    params["_meta"] = serde_json::json!({
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    });
                }
                let mut message = serde_json::json!({
                    "jsonrpc": "2.0", "method": method, "params": params,
                });
                if let Some(id) = id {
                    message["id"] = id.into();
                }
                let mut bytes = message.to_string().into_bytes();
                if let Some(cut) = cut {
                    bytes.truncate(usize::from(cut) % (bytes.len() + 1));
                }
                (bytes, method)
            });
        prop_oneof![
            1 => proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| (b, "prompts/list")),
            3 => json_rpc,
        ]
    }

    /// Headers: the ones the server reads, with likely and unlikely values.
    fn headers() -> impl Strategy<Value = Vec<(&'static str, Vec<u8>)>> {
        let names = proptest::sample::select(
            &[
                "accept",
                "content-type",
                "content-length",
                "mcp-protocol-version",
                "mcp-session-id",
                "mcp-method",
                "mcp-name",
                "last-event-id",
                "origin",
                "host",
                "authorization",
                "transfer-encoding",
            ][..],
        );
        let values = prop_oneof![
            proptest::sample::select(
                &[
                    "application/json, text/event-stream",
                    "text/event-stream",
                    "application/json",
                    "2026-07-28",
                    "2025-11-25",
                    "Bearer 0123456789abcdef-token",
                    "Bearer wrong",
                    "localhost",
                    "http://localhost:1",
                    "http://evil.example",
                    "subscriptions/listen",
                    "0",
                    "18446744073709551616",
                    "-1",
                    "chunked",
                ][..]
            )
            .prop_map(|v| v.as_bytes().to_vec()),
            proptest::collection::vec(any::<u8>(), 0..40),
        ];
        proptest::collection::vec((names, values), 0..8)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 1000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn the_request_path_never_panics(
            method in prop_oneof![
                4 => Just("POST"),
                1 => proptest::sample::select(&["GET", "DELETE", "PUT", "OPTIONS"][..]),
            ],
            path in prop_oneof![
                4 => Just("/mcp"),
                1 => proptest::sample::select(&["/mcp/", "/mcp/x", "/", "/healthz"][..]),
            ],
            usual_headers in any::<bool>(),
            max_body in prop_oneof![1 => Just(64usize), 4 => Just(4000usize)],
            with_token in proptest::bool::weighted(0.2),
            headers in headers(),
            (body, body_method) in bodies(),
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                use tower::ServiceExt as _;
                let mut request = http::Request::builder().method(method).uri(path);
                if usual_headers {
                    // What a client sends, so most requests get past the first checks.
                    request = request
                        .header("host", "localhost")
                        .header("accept", "application/json, text/event-stream")
                        .header("content-type", "application/json")
                        .header("mcp-protocol-version", "2026-07-28")
                        .header("mcp-method", body_method);
                }
                for (name, value) in &headers {
                    if let Ok(value) = HeaderValue::from_bytes(value) {
                        request = request.header(*name, value);
                    }
                }
                let request = request.body(Body::from(body)).unwrap();
                let limits = HttpLimits { max_body, ..HttpLimits::default() };
                let response = router(&limits, with_token).oneshot(request).await.unwrap();
                // The body too (a stream is read for a moment, as a client would).
                let read = http_body_util::BodyExt::collect(response.into_body());
                let _ = tokio::time::timeout(Duration::from_millis(50), read).await;
            });
        }
    }
}
