//! TLS for `mcpick serve --http` (`--tls-cert`, `--tls-key`): the PEM files loaded into a
//! rustls server config (the aws-lc-rs provider reqwest already builds, so no second crypto
//! library), and a listener whose connections are TLS streams speaking HTTP/1.1.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

/// A client that has not finished its TLS handshake by then is dropped: a socket opened and
/// left silent must not hold a task forever.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Finished handshakes waiting for the HTTP server to take them.
const READY_QUEUE: usize = 64;

/// The certificate and key `serve --http` answers TLS with.
#[derive(Clone)]
pub struct ServeTls {
    acceptor: TlsAcceptor,
}

impl std::fmt::Debug for ServeTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ServeTls(…)")
    }
}

impl ServeTls {
    /// Loads a PEM certificate chain (the server's certificate first) and its PEM private
    /// key (PKCS#8, PKCS#1 or SEC1). Each problem names the file and what to do.
    pub fn load(cert: &Path, key: &Path) -> Result<Self, String> {
        let cert_shown = cert.display();
        let key_shown = key.display();
        let cert_pem = std::fs::read(cert)
            .map_err(|e| format!("cannot read the TLS certificate {cert_shown}: {e}"))?;
        let chain = CertificateDer::pem_slice_iter(&cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                format!("the TLS certificate {cert_shown} is not valid PEM ({e}): give --tls-cert a PEM file of `-----BEGIN CERTIFICATE-----` blocks")
            })?;
        if chain.is_empty() {
            return Err(format!(
                "no certificate in {cert_shown}: give --tls-cert a PEM file of `-----BEGIN CERTIFICATE-----` blocks (the server's certificate first)"
            ));
        }
        let key_pem =
            std::fs::read(key).map_err(|e| format!("cannot read the TLS key {key_shown}: {e}"))?;
        let private_key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| match e {
            rustls::pki_types::pem::Error::NoItemsFound => format!(
                "no private key in {key_shown}: give --tls-key a PEM file with a `-----BEGIN PRIVATE KEY-----` (or RSA/EC PRIVATE KEY) block"
            ),
            e => format!(
                "the TLS key {key_shown} is not valid PEM ({e}): give --tls-key a PEM private key"
            ),
        })?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS setup failed: {e}"))?
            .with_no_client_auth()
            .with_single_cert(chain, private_key)
            .map_err(|e| {
                format!(
                    "the TLS key {key_shown} does not go with the certificate {cert_shown} ({e}): give --tls-key the private key of that certificate"
                )
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(ServeTls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }
}

/// An axum listener whose connections are finished TLS handshakes. Handshakes run in their
/// own tasks, each with a timeout, so a slow or silent client holds up no one else.
pub struct TlsListener {
    ready: tokio::sync::mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Starts accepting on `listener` and shaking hands with `tls`.
    pub fn new(listener: TcpListener, tls: &ServeTls) -> std::io::Result<Self> {
        let local = listener.local_addr()?;
        let (sender, ready) = tokio::sync::mpsc::channel(READY_QUEUE);
        let acceptor = tls.acceptor.clone();
        tokio::spawn(async move {
            loop {
                let (stream, peer) = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok(pair) => pair,
                        Err(e) => {
                            accept_failed(e).await;
                            continue;
                        }
                    },
                    // The server stopped taking connections: stop listening too.
                    _ = sender.closed() => return,
                };
                // Small answers must not wait for delayed ACKs.
                let _ = stream.set_nodelay(true);
                let acceptor = acceptor.clone();
                let sender = sender.clone();
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = sender.send((tls, peer)).await;
                        }
                        Ok(Err(e)) => {
                            tracing::debug!(%peer, error = %e, "TLS handshake failed");
                        }
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        Ok(TlsListener { ready, local })
    }
}

/// As axum's own listener does: a failed connection is skipped; anything else (out of file
/// descriptors) waits a second before trying again rather than spinning.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind::*;
    if matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    ) {
        return;
    }
    tracing::error!("accept error: {e}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(pair) => pair,
            // The accepting task only ends once this listener is gone.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// Serves `router` over TLS on `listener` until `shutdown` is cancelled (requests in flight
/// are answered first, as with plain HTTP).
pub async fn serve_tls(
    listener: TcpListener,
    tls: &ServeTls,
    router: axum::Router,
    shutdown: CancellationToken,
) -> Result<(), String> {
    let listener = TlsListener::new(listener, tls).map_err(|e| e.to_string())?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
        .map_err(|e| format!("the HTTPS server failed: {e}"))
}
