//! The accept loop of `mcpick serve --http`: each accepted TCP connection gets
//! `TCP_NODELAY` (without it a response written in more than one piece waits ~40 ms for
//! the client's delayed ACK, Nagle's algorithm meeting delayed acknowledgements), an
//! HTTP/1.1 connection from hyper with a header-read timeout (a client that sends its
//! headers byte by byte, or keeps an idle keep-alive connection, is closed), and a
//! graceful end when the server stops.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
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
pub async fn serve_connection<IO>(io: IO, router: axum::Router, watcher: Watcher)
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    serve_connection_timed(io, router, watcher, HEADER_READ_TIMEOUT).await;
}

/// [`serve_connection`] with this header-read timeout (shorter in tests).
async fn serve_connection_timed<IO>(
    io: IO,
    router: axum::Router,
    watcher: Watcher,
    header_read_timeout: Duration,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let connection = builder.serve_connection(TokioIo::new(io), TowerToHyperService::new(router));
    if let Err(e) = watcher.watch(connection).await {
        // A client that goes away or times out is routine for a server.
        tracing::debug!("HTTP connection ended: {e}");
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
    F: Fn(TcpStream, SocketAddr, Watcher) -> Fut,
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
        serve_connection(stream, router.clone(), watcher)
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
                    seen_tx.send(stream.nodelay().unwrap()).await.unwrap();
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
                serve_connection_timed(stream, axum::Router::new(), watcher, timeout)
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
