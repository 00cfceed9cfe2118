//! TLS: the one rustls crypto provider (ring) every HTTP client and server of mcpick uses,
//! and for `mcpick serve --http` (`--tls-cert`, `--tls-key`) the PEM files loaded into a
//! rustls server config, the accept loop's connections served as TLS streams speaking
//! HTTP/1.1.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

/// A client that has not finished its TLS handshake by then is dropped: a socket opened and
/// left silent must not hold a task forever.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Makes ring the process's rustls crypto provider, once: reqwest (built without a provider
/// of its own) takes it for every HTTPS client, rmcp's included. Called at start and before
/// any client is built, so a library user need not know.
pub fn install_crypto_provider() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Err: another provider was installed first (by an embedding program); it is kept.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

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
        // As the token file: a private key every user can read is no longer private. Group
        // read stays allowed (Debian's keys are root:ssl-cert 0640).
        if let Ok(metadata) = std::fs::metadata(key) {
            let mode = crate::sys::fs::mode(&metadata);
            if mode & 0o004 != 0 {
                return Err(format!(
                    "the TLS key {key_shown} can be read by every user (mode {:03o}): run \
                     `chmod 600 {key_shown}` (or 640 with a group the server runs in)",
                    mode & 0o777
                ));
            }
        }
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
        let provider = Arc::new(rustls::crypto::ring::default_provider());
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

/// Serves `router` over TLS on `listener` until `shutdown` is cancelled, through the same
/// accept loop as plain HTTP (`TCP_NODELAY`, the header-read timeout, the graceful end).
/// Each handshake runs on its connection's own task with a timeout, so a slow or silent
/// client holds up no one else.
pub async fn serve_tls(
    listener: TcpListener,
    tls: &ServeTls,
    router: axum::Router,
    shutdown: CancellationToken,
    connections: Arc<crate::mcp::server::connections::Connections>,
    write_timeout: std::time::Duration,
) {
    let acceptor = tls.acceptor.clone();
    crate::mcp::server::accept::accept_loop(
        listener,
        shutdown,
        connections,
        move |stream, tracked, peer, watcher| {
            let acceptor = acceptor.clone();
            let router = router.clone();
            async move {
                match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                    Ok(Ok(tls)) => {
                        crate::mcp::server::accept::serve_connection(
                            tls,
                            tracked,
                            router,
                            watcher,
                            write_timeout,
                        )
                        .await
                    }
                    Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                    Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                }
            }
        },
    )
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_key_every_user_can_read_is_refused_before_it_is_read() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        std::fs::write(&cert, "not a certificate").unwrap();
        std::fs::write(&key, "not a key").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let problem = ServeTls::load(&cert, &key).err().unwrap();
        assert!(
            problem.contains("can be read by every user (mode 644)"),
            "{problem}"
        );
        assert!(problem.contains("chmod 600"), "{problem}");
        // Owner only, or with its group: on to the certificate's own checks.
        for mode in [0o600, 0o640] {
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(mode)).unwrap();
            let problem = ServeTls::load(&cert, &key).err().unwrap();
            assert!(problem.contains("certificate"), "{problem}");
            assert!(!problem.contains("every user"), "{problem}");
        }
    }
}
