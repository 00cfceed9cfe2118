//! The accept loop of `mcpick serve --http`: each accepted TCP connection gets
//! `TCP_NODELAY` (without it a response written in more than one piece waits ~40 ms for
//! the client's delayed ACK, Nagle's algorithm meeting delayed acknowledgements), an
//! HTTP/1.1 connection from hyper with a header-read timeout (a client that sends its
//! headers byte by byte, or keeps an idle keep-alive connection, is closed) that answers
//! a request even after the client has shut its sending side, and a graceful end when
//! the server stops.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::mcp::server::connections::{Busy, Connections, OpenConnection};

/// How long a connection may take to send a request's headers, counted from the end of
/// its previous response (so it also bounds an idle keep-alive connection).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the loop rests after a failed `accept` (e.g. out of file descriptors), so
/// an error that repeats does not spin a core.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);

/// How many connections the kernel may hold for the server before it accepts them (the
/// `listen` backlog; the kernel caps it at `net.core.somaxconn`). tokio's and the standard
/// library's 128 fills in a burst of clients (a thousand listeners reconnecting after a
/// restart), whose connections then wait a second or more for the kernel to retry them.
pub const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `address` with [`LISTEN_BACKLOG`] (and `SO_REUSEADDR`, as tokio's own
/// `bind` sets, so a restart can listen again at once).
pub fn listen_on(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Prepares an accepted socket for serving: `TCP_NODELAY`, so each response leaves as
/// soon as hyper writes it. A socket that refuses the option is still served.
pub fn prepare_accepted(stream: &TcpStream, peer: SocketAddr) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, "cannot set TCP_NODELAY: {e}");
    }
}

/// What answers the requests of a connection: the router, or something in front of it.
pub trait Handler: Clone + Send + Sync + 'static {
    /// The answer to `request`; `client` is the watch for the client's going, which a
    /// long-lived answer finds in the request's extensions.
    fn handle(
        &self,
        request: http::Request<hyper::body::Incoming>,
        client: &ClientGone,
    ) -> impl Future<Output = http::Response<Reply>> + Send + use<Self>;
}

impl Handler for axum::Router {
    fn handle(
        &self,
        mut request: http::Request<hyper::body::Incoming>,
        client: &ClientGone,
    ) -> impl Future<Output = http::Response<Reply>> + Send + use<> {
        request.extensions_mut().insert(client.clone());
        let answer = tower_service::Service::call(&mut self.clone(), request);
        async move {
            let Ok(response) = answer.await;
            response.map(Reply::Body)
        }
    }
}

/// A response's body: bytes in hand (a direct answer: no box, no stream), or a body
/// from the router.
pub enum Reply {
    /// The whole body, until hyper takes it.
    Bytes(Option<axum::body::Bytes>),
    /// The router's body.
    Body(axum::body::Body),
}

impl http_body::Body for Reply {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        match self.get_mut() {
            Reply::Bytes(bytes) => Poll::Ready(bytes.take().map(|b| Ok(http_body::Frame::data(b)))),
            Reply::Body(body) => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Reply::Bytes(bytes) => bytes.is_none(),
            Reply::Body(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match self {
            Reply::Bytes(bytes) => {
                http_body::SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            Reply::Body(body) => body.size_hint(),
        }
    }
}

/// Serves one HTTP/1.1 connection over `io` (a TCP stream, or the TLS stream over one)
/// with `handler` until the client closes it, it times out, or `watcher`'s server shuts
/// down (then the request in flight is answered first).
/// An answer whose write stalls for `write_timeout` (a client that reads nothing) ends the
/// connection.
pub async fn serve_connection<IO, H: Handler>(
    io: IO,
    tracked: Tracked,
    handler: H,
    watcher: Watcher,
    write_timeout: Duration,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let io = WriteDeadline::new(io, write_timeout);
    serve_connection_timed(io, tracked, handler, watcher, HEADER_READ_TIMEOUT).await;
}

/// A connection's bytes, whose writes may stall for at most `limit`: a client that sends
/// requests and reads none of the answers would otherwise hold each answer, its memory and
/// its request slot, for as long as it keeps the connection. A timer exists only while a
/// write waits (the usual write takes none).
pub struct WriteDeadline<IO> {
    io: IO,
    limit: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<IO> WriteDeadline<IO> {
    /// `io` with writes that may stall for at most `limit`.
    pub fn new(io: IO, limit: Duration) -> WriteDeadline<IO> {
        WriteDeadline {
            io,
            limit,
            stalled: None,
        }
    }

    /// What a write's poll gives: done (the stall, if any, is over), or waiting, when it
    /// may until the deadline.
    fn within<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let limit = self.limit;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client read nothing of the answer for the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for WriteDeadline<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write(cx, buf);
        self.within(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.within(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.io).poll_flush(cx);
        self.within(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// What serving an accepted connection needs besides its bytes: the watch for its
/// client's going, and its entry in the table of connections (where each request marks
/// it busy until its answer is all written).
pub struct Tracked {
    client: ClientGone,
    connection: Arc<OpenConnection>,
}

/// [`serve_connection`] with this header-read timeout (shorter in tests).
async fn serve_connection_timed<IO, H: Handler>(
    io: IO,
    tracked: Tracked,
    handler: H,
    watcher: Watcher,
    header_read_timeout: Duration,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        // hyper's own bound is ~400 KiB a connection; the bytes of a head count against
        // the table's bytes of requests arriving too (see `connections`).
        .max_header_size(MAX_HEADER_BYTES)
        .max_buf_size(MAX_HEADER_BYTES + READ_CHUNK)
        // A client that sends its request and then shuts its side (`shutdown(SHUT_WR)`,
        // as a proxy or a one-shot script may) still gets the answer: without this hyper
        // reads the end of input and closes the connection before writing it.
        .half_close(true);
    let service = hyper::service::service_fn(move |mut request: http::Request<_>| {
        let connection = tracked.connection.clone();
        let busy = connection.begin();
        if http_body::Body::is_end_stream(request.body()) {
            connection.arrived();
        }
        let refused = connection.is_reserve() && request.uri().path() != "/healthz";
        request.extensions_mut().insert(connection.clone());
        let answer = (!refused).then(|| handler.handle(request, &tracked.client));
        async move {
            let response = match answer {
                Some(answer) => answer.await,
                None => reserved_for_health().map(Reply::Body),
            };
            // Answered: whatever of its body was not read is no longer arriving.
            connection.arrived();
            // Busy until hyper has taken the answer's last byte (a stream's too).
            Ok::<_, std::convert::Infallible>(response.map(|body| HeldBody { body, _busy: busy }))
        }
    });
    let connection = builder.serve_connection(TokioIo::new(io), service);
    if let Err(e) = watcher.watch(connection).await {
        // A client that goes away or times out is routine for a server.
        tracing::debug!("HTTP connection ended: {e}");
    }
}

/// An accepted TCP stream, shared: hyper reads and writes it (through
/// [`SharedTcp`]'s `AsyncRead`/`AsyncWrite`) while an open event stream watches it for the
/// client's going away ([`ClientGone`]). One socket, one file descriptor. What it reads
/// is counted on its connection's entry in the table (the bytes of a request arriving).
#[derive(Clone)]
pub struct SharedTcp {
    socket: Arc<TcpStream>,
    connection: Arc<OpenConnection>,
}

impl SharedTcp {
    /// The socket.
    pub fn stream(&self) -> &TcpStream {
        &self.socket
    }
}

/// The most bytes a request's head may have (431 beyond), as nginx allows; Node
/// 16 KiB; hyper's own default, ~400 KiB, let each connection hold that much.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Each read takes at most this much: 4 KiB holds a usual request whole. It is read into
/// the stack and copied into hyper's buffer, so only the bytes that came are written
/// there: zeroing hyper's uninitialized buffer first (a safe read must) made every
/// connection's 8 KiB buffer resident, even one that sent a single byte.
const READ_CHUNK: usize = 4 * 1024;

impl AsyncRead for SharedTcp {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        loop {
            std::task::ready!(self.socket.poll_read_ready(cx))?;
            let mut chunk = [0u8; READ_CHUNK];
            let room = buf.remaining().min(READ_CHUNK);
            match self.socket.try_read(&mut chunk[..room]) {
                Ok(read) => {
                    if !self.connection.received(read) {
                        return Poll::Ready(Err(std::io::Error::other(
                            "closed: the requests still arriving hold too much (--max-arriving)",
                        )));
                    }
                    buf.put_slice(&chunk[..read]);
                    return Poll::Ready(Ok(()));
                }
                // The readiness was stale: `try_read` cleared it, so wait again.
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for SharedTcp {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        loop {
            std::task::ready!(self.socket.poll_write_ready(cx))?;
            match self.socket.try_write(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                written => return Poll::Ready(written),
            }
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        loop {
            std::task::ready!(self.socket.poll_write_ready(cx))?;
            match self.socket.try_write_vectored(bufs) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                written => return Poll::Ready(written),
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        // Nothing is buffered here: a write is the socket's.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let shut = socket2::SockRef::from(&*self.socket).shutdown(std::net::Shutdown::Write);
        // Already gone is as good as shut.
        Poll::Ready(match shut {
            Err(e) if e.kind() == std::io::ErrorKind::NotConnected => Ok(()),
            other => other,
        })
    }
}

/// How a long-lived answer learns that its client went away; in each request's
/// extensions. hyper answers a request whose client has shut its sending side (a client
/// may send, shut and then read), so it no longer reads while answering and would notice
/// a client gone only when a write fails: on a quiet event stream, after two keep-alives.
#[derive(Clone)]
pub struct ClientGone(SharedTcp);

/// How long [`ClientGone::gone`] waits before looking again when the client has sent
/// more than hyper has read (a request behind the open stream, or TLS's goodbye).
const GONE_RECHECK: Duration = Duration::from_secs(1);

impl ClientGone {
    /// The watch over `socket`.
    pub fn of(socket: &SharedTcp) -> ClientGone {
        ClientGone(socket.clone())
    }

    /// Returns once the connection's end of input is next to be read (the client shut
    /// its side, or went), or the socket fails. Only looks (a peek), so hyper reads what
    /// there is as before.
    pub async fn gone(&self) {
        let socket = self.0.stream();
        let mut byte = [0u8; 1];
        loop {
            if socket.readable().await.is_err() {
                return;
            }
            match socket.peek(&mut byte).await {
                Ok(0) | Err(_) => return,
                Ok(_) => tokio::time::sleep(GONE_RECHECK).await,
            }
        }
    }
}

/// Accepts connections on `listener` and serves each on its own task through
/// `serve_accepted` until `shutdown` is cancelled; then stops accepting and waits until
/// every open connection has finished (idle keep-alive ones are closed at once). The
/// `connections` table decides who may stay: a newcomer over its bounds first makes room
/// (see [`crate::mcp::server::connections`]). `serve_accepted` gets the prepared socket,
/// its [`Tracked`] and a [`Watcher`] to pass to [`serve_connection`]: a TLS acceptor
/// wraps the stream there.
pub async fn accept_loop<F, Fut>(
    listener: TcpListener,
    shutdown: CancellationToken,
    connections: Arc<Connections>,
    serve_accepted: F,
) where
    F: Fn(SharedTcp, Tracked, SocketAddr, Watcher) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let graceful = GracefulShutdown::new();
    let mut refused = Refusals::default();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.cancelled() => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                let Some(admitted) = connections.admit() else {
                    // Every open connection has a request in hand: this one waits its
                    // turn outside (closed now, so it costs no descriptor).
                    refused.note(peer, connections.census().limits.max_connections);
                    continue;
                };
                prepare_accepted(&stream, peer);
                let stream = SharedTcp {
                    socket: Arc::new(stream),
                    connection: admitted.connection().clone(),
                };
                let tracked = Tracked {
                    client: ClientGone::of(&stream),
                    connection: admitted.connection().clone(),
                };
                let serving = serve_accepted(stream, tracked, peer, graceful.watcher());
                tokio::spawn(async move {
                    tokio::select! {
                        () = serving => {}
                        () = admitted.shed() => {
                            tracing::debug!(%peer, "closed an idle or slow connection to make room for a new one (--max-connections, --max-waiting, --max-arriving)");
                        }
                    }
                });
            }
            Err(e) => {
                tracing::warn!("accepting a connection failed: {e}");
                tokio::select! {
                    _ = tokio::time::sleep(ACCEPT_ERROR_PAUSE) => {}
                    _ = shutdown.cancelled() => break,
                }
            }
        }
    }
    drop(listener);
    graceful.shutdown().await;
}

/// The answer on a connection taken into the health reserve to anything but
/// `GET /healthz`: 503, try again in a moment, and the connection closes.
fn reserved_for_health() -> axum::response::Response {
    let mut response = super::refusals::busy("every connection has a request in hand");
    response.headers_mut().insert(
        http::header::CONNECTION,
        http::HeaderValue::from_static("close"),
    );
    response
}

/// A response body that holds `_busy` until hyper drops it (its last byte written, or the
/// client gone), and is otherwise the body itself: its length stays known, so a
/// `Content-Length` answer stays one.
struct HeldBody {
    body: Reply,
    _busy: Busy,
}

impl http_body::Body for HeldBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Connections refused for want of an idle one to close, told in the log at most once a
/// second (a flood must not become a flood of log lines).
#[derive(Default)]
struct Refusals {
    since_told: u64,
    told: Option<std::time::Instant>,
}

impl Refusals {
    fn note(&mut self, peer: SocketAddr, cap: usize) {
        self.since_told += 1;
        if self
            .told
            .is_some_and(|told| told.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        tracing::warn!(
            %peer,
            refused = self.since_told,
            "{cap} connections are open, each with a request in hand (--max-connections): closing new ones until one is idle"
        );
        self.since_told = 0;
        self.told = Some(std::time::Instant::now());
    }
}

/// Serves `handler` (the router, or what is in front of it) over plain HTTP on `listener`
/// until `shutdown` is cancelled, with `connections` deciding who may stay open.
pub async fn serve_router<H: Handler>(
    listener: TcpListener,
    handler: H,
    shutdown: CancellationToken,
    connections: Arc<Connections>,
    write_timeout: Duration,
) {
    accept_loop(
        listener,
        shutdown,
        connections,
        move |stream, tracked, _peer, watcher| {
            serve_connection(stream, tracked, handler.clone(), watcher, write_timeout)
        },
    )
    .await;
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::mcp::server::connections::ConnectionLimits;

    /// A table with room for every test here.
    fn test_table() -> Arc<Connections> {
        Connections::new(ConnectionLimits {
            max_connections: 100,
            max_waiting: 100,
            max_arriving_bytes: 1 << 20,
        })
    }

    /// Starts `serve_router` with `router` on a free loopback port.
    async fn start(
        router: axum::Router,
    ) -> (SocketAddr, CancellationToken, tokio::task::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(serve_router(
            listener,
            router,
            shutdown.clone(),
            test_table(),
            Duration::from_secs(30),
        ));
        (addr, shutdown, task)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_burst_of_clients_waits_in_the_backlog_not_in_retries() {
        // A listener that accepts nothing yet: every client waits in the kernel's backlog,
        // which the kernel caps at its somaxconn (4096 since Linux 5.4).
        let cap: usize = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(4096);
        let burst = cap.min(600);
        let listener = listen_on("127.0.0.1:0".parse().unwrap()).unwrap();
        let address = listener.local_addr().unwrap();
        let connected = tokio::task::spawn_blocking(move || {
            (0..burst)
                .map(|_| std::net::TcpStream::connect_timeout(&address, Duration::from_millis(500)))
                .filter_map(Result::ok)
                .collect::<Vec<_>>()
        })
        .await
        .unwrap();
        // With a backlog of 128 the kernel drops the rest of the burst's handshakes.
        assert_eq!(connected.len(), burst);
        drop(listener);
    }

    #[tokio::test]
    async fn accepted_sockets_get_tcp_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (seen_tx, mut seen_rx) = tokio::sync::mpsc::channel(1);
        let shutdown = CancellationToken::new();
        let looping = tokio::spawn(accept_loop(
            listener,
            shutdown.clone(),
            test_table(),
            move |stream, _tracked, _peer, _watcher| {
                let seen_tx = seen_tx.clone();
                async move {
                    seen_tx
                        .send(stream.stream().nodelay().unwrap())
                        .await
                        .unwrap();
                }
            },
        ));
        let _client = TcpStream::connect(addr).await.unwrap();
        assert_eq!(seen_rx.recv().await, Some(true));
        shutdown.cancel();
        looping.await.unwrap();
    }

    #[tokio::test]
    async fn a_client_that_sends_its_headers_too_slowly_is_closed() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let timeout = Duration::from_millis(300);
        let looping = tokio::spawn(accept_loop(
            listener,
            shutdown.clone(),
            test_table(),
            move |stream, tracked, _peer, watcher| {
                serve_connection_timed(stream, tracked, axum::Router::new(), watcher, timeout)
            },
        ));
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
        let mut rest = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut rest)).await;
        // Closed (EOF, or a reset) well before the test's own 10 s limit.
        assert!(read.is_ok(), "the connection was not closed");
        shutdown.cancel();
        looping.await.unwrap();
    }

    #[test]
    fn a_request_is_served_and_shutdown_returns() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let router = axum::Router::new().route("/", axum::routing::get(|| async { "hi" }));
        let (addr, shutdown, task) = runtime.block_on(start(router));
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.ends_with("\r\n\r\nhi"), "{response}");
        shutdown.cancel();
        runtime.block_on(task).unwrap();
    }
}
