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

/// How long a connection may take to send a request's headers, counted from the end of
/// its previous response (so it also bounds an idle keep-alive connection).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the loop rests after a failed `accept` (e.g. out of file descriptors), so
/// an error that repeats does not spin a core.
const ACCEPT_ERROR_PAUSE: Duration = Duration::from_millis(50);

/// Prepares an accepted socket for serving: `TCP_NODELAY`, so each response leaves as
/// soon as hyper writes it. A socket that refuses the option is still served.
pub fn prepare_accepted(stream: &TcpStream, peer: SocketAddr) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, "cannot set TCP_NODELAY: {e}");
    }
}

/// Serves one HTTP/1.1 connection over `io` (a TCP stream, or the TLS stream over one)
/// with `router` until the client closes it, it times out, or `watcher`'s server shuts
/// down (then the request in flight is answered first).
pub async fn serve_connection<IO>(
    io: IO,
    client: ClientGone,
    router: axum::Router,
    watcher: Watcher,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    serve_connection_timed(io, client, router, watcher, HEADER_READ_TIMEOUT).await;
}

/// [`serve_connection`] with this header-read timeout (shorter in tests).
async fn serve_connection_timed<IO>(
    io: IO,
    client: ClientGone,
    router: axum::Router,
    watcher: Watcher,
    header_read_timeout: Duration,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        // A client that sends its request and then shuts its side (`shutdown(SHUT_WR)`,
        // as a proxy or a one-shot script may) still gets the answer: without this hyper
        // reads the end of input and closes the connection before writing it.
        .half_close(true);
    let service = hyper::service::service_fn(move |mut request: http::Request<_>| {
        request.extensions_mut().insert(client.clone());
        tower_service::Service::call(&mut router.clone(), request)
    });
    let connection = builder.serve_connection(TokioIo::new(io), service);
    if let Err(e) = watcher.watch(connection).await {
        // A client that goes away or times out is routine for a server.
        tracing::debug!("HTTP connection ended: {e}");
    }
}

/// An accepted TCP stream, shared: hyper reads and writes it (through
/// [`SharedTcp`]'s `AsyncRead`/`AsyncWrite`) while an open event stream watches it for the
/// client's going away ([`ClientGone`]). One socket, one file descriptor.
#[derive(Clone)]
pub struct SharedTcp(Arc<TcpStream>);

impl SharedTcp {
    /// The socket.
    pub fn stream(&self) -> &TcpStream {
        &self.0
    }
}

/// hyper's buffer can be large and tokio's `ReadBuf` must be initialized before a safe
/// read: each read fills at most this much, so it does not zero far more than it reads.
const READ_CHUNK: usize = 16 * 1024;

impl AsyncRead for SharedTcp {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        loop {
            std::task::ready!(self.0.poll_read_ready(cx))?;
            let room = buf.initialize_unfilled_to(buf.remaining().min(READ_CHUNK));
            match self.0.try_read(room) {
                Ok(read) => {
                    buf.advance(read);
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
            std::task::ready!(self.0.poll_write_ready(cx))?;
            match self.0.try_write(buf) {
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
            std::task::ready!(self.0.poll_write_ready(cx))?;
            match self.0.try_write_vectored(bufs) {
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
        let shut = socket2::SockRef::from(&*self.0).shutdown(std::net::Shutdown::Write);
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
/// every open connection has finished (idle keep-alive ones are closed at once).
/// `serve_accepted` gets the prepared socket and a [`Watcher`] to pass to
/// [`serve_connection`]: a TLS acceptor wraps the stream there.
pub async fn accept_loop<F, Fut>(
    listener: TcpListener,
    shutdown: CancellationToken,
    serve_accepted: F,
) where
    F: Fn(SharedTcp, SocketAddr, Watcher) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let graceful = GracefulShutdown::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.cancelled() => break,
        };
        match accepted {
            Ok((stream, peer)) => {
                prepare_accepted(&stream, peer);
                let stream = SharedTcp(Arc::new(stream));
                tokio::spawn(serve_accepted(stream, peer, graceful.watcher()));
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

/// Serves `router` over plain HTTP on `listener` until `shutdown` is cancelled.
pub async fn serve_router(
    listener: TcpListener,
    router: axum::Router,
    shutdown: CancellationToken,
) {
    accept_loop(listener, shutdown, move |stream, _peer, watcher| {
        let client = ClientGone::of(&stream);
        serve_connection(stream, client, router.clone(), watcher)
    })
    .await;
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// Starts `serve_router` with `router` on a free loopback port.
    async fn start(
        router: axum::Router,
    ) -> (SocketAddr, CancellationToken, tokio::task::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(serve_router(listener, router, shutdown.clone()));
        (addr, shutdown, task)
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
            move |stream, _peer, _watcher| {
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
            move |stream, _peer, watcher| {
                let client = ClientGone::of(&stream);
                serve_connection_timed(stream, client, axum::Router::new(), watcher, timeout)
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
