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

/// Why `serve --tls-cert/--tls-key` cannot serve TLS: each names the file and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsError {
    /// A key every user can read.
    #[error(
        "the TLS key {key} can be read by every user (mode {mode:03o}): run `chmod 600 {key}` (or 640 with a group the server runs in)"
    )]
    KeyReadableByAll {
        /// The key file.
        key: String,
        /// Its permission bits.
        mode: u32,
    },
    /// The certificate file cannot be read.
    #[error("cannot read the TLS certificate {cert}: {reason}")]
    CertUnreadable {
        /// The certificate file.
        cert: String,
        /// The OS error.
        reason: String,
    },
    /// The certificate file is not PEM.
    #[error(
        "the TLS certificate {cert} is not valid PEM ({reason}): give --tls-cert a PEM file of `-----BEGIN CERTIFICATE-----` blocks"
    )]
    CertNotPem {
        /// The certificate file.
        cert: String,
        /// The parser's words.
        reason: String,
    },
    /// No certificate in it.
    #[error(
        "no certificate in {cert}: give --tls-cert a PEM file of `-----BEGIN CERTIFICATE-----` blocks (the server's certificate first)"
    )]
    NoCert {
        /// The certificate file.
        cert: String,
    },
    /// The key file cannot be read.
    #[error("cannot read the TLS key {key}: {reason}")]
    KeyUnreadable {
        /// The key file.
        key: String,
        /// The OS error.
        reason: String,
    },
    /// No private key in it.
    #[error(
        "no private key in {key}: give --tls-key a PEM file with a `-----BEGIN PRIVATE KEY-----` (or RSA/EC PRIVATE KEY) block"
    )]
    NoKey {
        /// The key file.
        key: String,
    },
    /// The key file is not PEM.
    #[error("the TLS key {key} is not valid PEM ({reason}): give --tls-key a PEM private key")]
    KeyNotPem {
        /// The key file.
        key: String,
        /// The parser's words.
        reason: String,
    },
    /// rustls refused its own defaults.
    #[error("TLS setup failed: {0}")]
    Setup(String),
    /// Key and certificate are not a pair.
    #[error(
        "the TLS key {key} does not go with the certificate {cert} ({reason}): give --tls-key the private key of that certificate"
    )]
    NotAPair {
        /// The key file.
        key: String,
        /// The certificate file.
        cert: String,
        /// rustls's words.
        reason: String,
    },
}

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
    pub fn load(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        let cert_shown = cert.display().to_string();
        let key_shown = key.display().to_string();
        // As the token file: a private key every user can read is no longer private. Group
        // read stays allowed (Debian's keys are root:ssl-cert 0640).
        if let Ok(metadata) = std::fs::metadata(key) {
            let mode = crate::sys::fs::mode(&metadata);
            if mode & 0o004 != 0 {
                return Err(TlsError::KeyReadableByAll {
                    key: key_shown,
                    mode: mode & 0o777,
                });
            }
        }
        let cert_pem = std::fs::read(cert).map_err(|e| TlsError::CertUnreadable {
            cert: cert_shown.clone(),
            reason: e.to_string(),
        })?;
        let chain = CertificateDer::pem_slice_iter(&cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| TlsError::CertNotPem {
                cert: cert_shown.clone(),
                reason: e.to_string(),
            })?;
        if chain.is_empty() {
            return Err(TlsError::NoCert { cert: cert_shown });
        }
        let key_pem = std::fs::read(key).map_err(|e| TlsError::KeyUnreadable {
            key: key_shown.clone(),
            reason: e.to_string(),
        })?;
        let private_key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| match e {
            rustls::pki_types::pem::Error::NoItemsFound => TlsError::NoKey {
                key: key_shown.clone(),
            },
            e => TlsError::KeyNotPem {
                key: key_shown.clone(),
                reason: e.to_string(),
            },
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Setup(e.to_string()))?
            .with_no_client_auth()
            .with_single_cert(chain, private_key)
            .map_err(|e| TlsError::NotAPair {
                key: key_shown,
                cert: cert_shown,
                reason: e.to_string(),
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
            matches!(problem, TlsError::KeyReadableByAll { mode: 0o644, .. }),
            "{problem}"
        );
        let problem = problem.to_string();
        assert!(
            problem.contains("can be read by every user (mode 644)"),
            "{problem}"
        );
        assert!(problem.contains("chmod 600"), "{problem}");
        // Owner only, or with its group: on to the certificate's own checks.
        for mode in [0o600, 0o640] {
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(mode)).unwrap();
            let problem = ServeTls::load(&cert, &key).err().unwrap().to_string();
            assert!(problem.contains("certificate"), "{problem}");
            assert!(!problem.contains("every user"), "{problem}");
        }
    }
}
