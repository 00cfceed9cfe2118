//! The bearer token `mcpick serve --http` can ask for (`--auth-token-file`,
//! `MCPICK_SERVE_TOKEN`): loaded once at startup, checked on every request to `/mcp` by an
//! axum middleware, compared in constant time, and never logged.

use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Why `serve --http` refuses a token or its file, each with what to do: `origin` names
/// where the token came from (`the file t.txt`, `MCPICK_SERVE_TOKEN`), `file` the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Nothing in it.
    #[error("the token in {origin} is empty: {HINT}")]
    Empty {
        /// Where it came from.
        origin: String,
    },
    /// More than one line, or a character a header cannot carry (as said).
    #[error("the token in {origin} has {what}: {HINT}")]
    Unsendable {
        /// Where it came from.
        origin: String,
        /// `more than one line`, or the character.
        what: String,
    },
    /// Fewer than [`MIN_TOKEN_LEN`] characters.
    #[error(
        "the token in {origin} is {length} characters long, fewer than {MIN_TOKEN_LEN}: {HINT}"
    )]
    TooShort {
        /// Where it came from.
        origin: String,
        /// Its length.
        length: usize,
    },
    /// More than [`MAX_TOKEN_LEN`] characters.
    #[error(
        "the token in {origin} is {length} characters long, more than {MAX_TOKEN_LEN} (a header carries it on every request): {HINT}"
    )]
    TooLong {
        /// Where it came from.
        origin: String,
        /// Its length.
        length: usize,
    },
    /// Too few different characters to be hard to guess.
    #[error(
        "the token in {origin} repeats too few characters to be hard to guess (like `aaaaaaaaaaaaaaaa` or `abababababababab`): {HINT}"
    )]
    Guessable {
        /// Where it came from.
        origin: String,
    },
    /// The file cannot be read.
    #[error("cannot read the token file {file}: {reason}")]
    Unreadable {
        /// The file.
        file: String,
        /// The OS error.
        reason: String,
    },
    /// A folder or a device, not a file.
    #[error("the token file {file} is not a file: name a file holding the token")]
    NotAFile {
        /// The file.
        file: String,
    },
    /// Others may read it.
    #[error(
        "the token file {file} can be read by other users (mode {mode:03o}): run `chmod 600 {file}`"
    )]
    OthersRead {
        /// The file.
        file: String,
        /// Its permission bits.
        mode: u32,
    },
    /// Anyone may replace it.
    #[error(
        "the token file {file} is in a folder every user can write to (mode {mode:03o}), so anyone could replace it: keep it in a folder of yours (`chmod o-w {folder}`)"
    )]
    FolderWritable {
        /// The file.
        file: String,
        /// The folder's permission bits.
        mode: u32,
        /// The folder.
        folder: String,
    },
    /// Far more than one token.
    #[error(
        "the token file {file} is {bytes} bytes; a token is one line of at most {MAX_TOKEN_LEN} characters: name the file holding it, or make one with `openssl rand -hex 32 > {file}`"
    )]
    TooBig {
        /// The file.
        file: String,
        /// Its size.
        bytes: u64,
    },
}

/// What every refused token is told to become.
const HINT: &str =
    "put one line of at least 16 random characters there, e.g. `openssl rand -hex 32`";

/// The environment variable that can hold the token instead of a file.
pub const TOKEN_ENV: &str = "MCPICK_SERVE_TOKEN";

/// Fewer characters than this are refused: a short token can be guessed over the network.
pub const MIN_TOKEN_LEN: usize = 16;

/// The longest token taken (a header carries it on every request).
pub const MAX_TOKEN_LEN: usize = 1024;

/// The largest token file read: the longest token and a line ending.
const MAX_TOKEN_FILE_BYTES: u64 = MAX_TOKEN_LEN as u64 + 2;

/// The fewest bits a token's characters must carry by their own frequencies (see
/// [`guessable_bits`]): 16 random hex characters carry about 50, `openssl rand -hex 32` about
/// 250; `aaaaaaaaaaaaaaaa` none, `abababababababab` 16.
const MIN_TOKEN_BITS: f64 = 40.0;

/// An estimate of how hard `token` is to guess: its length times the Shannon entropy of its
/// characters' frequencies. It cannot see a dictionary word, but it refuses a token that is
/// one or two characters repeated.
fn guessable_bits(token: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in token.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let length = token.chars().count() as f64;
    let per_character: f64 = counts
        .values()
        .map(|&n| {
            let p = n as f64 / length;
            -p * p.log2()
        })
        .sum();
    per_character * length
}

/// The `realm` the `WWW-Authenticate` challenge names.
const REALM: &str = "mcpick";

/// The token every request must carry. Only its SHA-256 digest is kept: comparing digests
/// takes the same time whatever the length and content of what a client sent, and the
/// token itself is in no struct that could end up in a log.
#[derive(Clone)]
pub struct BearerToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(…)")
    }
}

/// Who may use `serve --http`: the token every `/mcp` request needs and the certificate
/// to answer TLS with (`None`: open, plain HTTP).
#[derive(Debug, Clone, Default)]
pub struct HttpAccess {
    /// The bearer token requests must carry.
    pub token: Option<BearerToken>,
    /// TLS instead of plain HTTP.
    pub tls: Option<crate::mcp::tls::ServeTls>,
    /// The body, concurrency, stream and session limits.
    pub limits: crate::mcp::server::limits::HttpLimits,
}

/// What a request's `Authorization` header said, as the check sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credentials {
    /// The right token.
    Accepted,
    /// No `Authorization: Bearer …` header at all (or another scheme).
    Missing,
    /// A bearer token, but not the one asked for.
    Wrong,
}

impl BearerToken {
    /// A token from its text (as read from the file or the environment). Refuses an empty
    /// one, one shorter than [`MIN_TOKEN_LEN`], and characters a header cannot carry
    /// plainly (only visible ASCII, no spaces); `source` names where it came from.
    pub fn new(text: &str, source: &str) -> Result<Self, TokenError> {
        // Editors and `echo` end files with a newline; nothing else is trimmed, so a token
        // is never silently changed into another one.
        let token = text
            .strip_suffix('\n')
            .map(|t| t.strip_suffix('\r').unwrap_or(t))
            .unwrap_or(text);
        let source = source.to_string();
        if token.is_empty() {
            return Err(TokenError::Empty { origin: source });
        }
        if let Some(bad) = token.chars().find(|c| !c.is_ascii_graphic()) {
            let what = if bad == '\n' {
                "more than one line".to_string()
            } else {
                format!(
                    "a character a header cannot carry ({:?})",
                    bad.escape_debug().to_string()
                )
            };
            return Err(TokenError::Unsendable {
                origin: source,
                what,
            });
        }
        if token.len() < MIN_TOKEN_LEN {
            return Err(TokenError::TooShort {
                origin: source,
                length: token.len(),
            });
        }
        if token.len() > MAX_TOKEN_LEN {
            return Err(TokenError::TooLong {
                origin: source,
                length: token.len(),
            });
        }
        if guessable_bits(token) < MIN_TOKEN_BITS {
            return Err(TokenError::Guessable { origin: source });
        }
        Ok(BearerToken {
            digest: Sha256::digest(token.as_bytes()).into(),
        })
    }

    /// Reads the token from `path`: it must be readable, hold one token (a trailing newline
    /// is fine), be readable by its owner only (as ssh asks of private keys) and lie in a
    /// folder others cannot write to (they could put their own token in its place).
    pub fn from_file(path: &Path) -> Result<Self, TokenError> {
        let shown = path.display();
        let file = shown.to_string();
        let unreadable = |e: std::io::Error| TokenError::Unreadable {
            file: file.clone(),
            reason: e.to_string(),
        };
        let metadata = std::fs::metadata(path).map_err(unreadable)?;
        if !metadata.is_file() {
            return Err(TokenError::NotAFile { file });
        }
        let mode = crate::sys::fs::mode(&metadata);
        if mode & 0o077 != 0 {
            return Err(TokenError::OthersRead {
                file,
                mode: mode & 0o777,
            });
        }
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        if let Ok(folder_metadata) = std::fs::metadata(&folder) {
            let folder_mode = crate::sys::fs::mode(&folder_metadata);
            // Writable by all without the sticky bit (as /tmp has): anyone may swap the file.
            if folder_mode & 0o002 != 0 && folder_mode & 0o1000 == 0 {
                return Err(TokenError::FolderWritable {
                    file,
                    mode: folder_mode & 0o777,
                    folder: folder.display().to_string(),
                });
            }
        }
        // A token is one short line: more is a mistake (a wrong file), and not read whole.
        if metadata.len() > MAX_TOKEN_FILE_BYTES {
            return Err(TokenError::TooBig {
                file,
                bytes: metadata.len(),
            });
        }
        let text = std::fs::read_to_string(path).map_err(unreadable)?;
        Self::new(&text, &format!("the file {shown}"))
    }

    /// Whether a server guarded by `token` (or by none) lets the request with `headers`
    /// in: no token asked, or this one carried.
    pub fn admits(token: Option<&BearerToken>, headers: &http::HeaderMap) -> bool {
        token.is_none_or(|token| token.check(headers) == Credentials::Accepted)
    }

    /// Whether `headers` carry this token as `Authorization: Bearer <token>`.
    pub fn check(&self, headers: &http::HeaderMap) -> Credentials {
        let Some(presented) = headers
            .get(header::AUTHORIZATION)
            .and_then(bearer_credentials)
        else {
            return Credentials::Missing;
        };
        let digest: [u8; 32] = Sha256::digest(presented).into();
        if bool::from(digest.ct_eq(&self.digest)) {
            Credentials::Accepted
        } else {
            Credentials::Wrong
        }
    }
}

/// The token of an `Authorization: Bearer <token>` value (the scheme is case-insensitive,
/// RFC 7235), or `None` for another scheme or none.
fn bearer_credentials(value: &HeaderValue) -> Option<&[u8]> {
    let bytes = value.as_bytes();
    let scheme = bytes.get(..7)?;
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    let token = bytes[7..].trim_ascii();
    (!token.is_empty()).then_some(token)
}

/// The 401 answer for a request without the right token: a challenge as RFC 6750 words it
/// (`error="invalid_token"` only when a token was sent) and a line saying what to do.
pub fn unauthorized(credentials: Credentials) -> Response {
    let (challenge, message) = match credentials {
        Credentials::Wrong => (
            format!(
                r#"Bearer realm="{REALM}", error="invalid_token", error_description="the bearer token is not the one this server asks for""#
            ),
            "the bearer token is not the one this server asks for: send `Authorization: Bearer <token>` with the token from the server's --auth-token-file (or MCPICK_SERVE_TOKEN)",
        ),
        _ => (
            format!(r#"Bearer realm="{REALM}""#),
            "this server asks for a bearer token: send `Authorization: Bearer <token>` with the token from the server's --auth-token-file (or MCPICK_SERVE_TOKEN)",
        ),
    };
    let body = serde_json::json!({ "error": "unauthorized", "message": message }).to_string();
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// The middleware: lets a request with the token through, answers any other with 401.
async fn require_token(
    State(token): State<Arc<BearerToken>>,
    request: Request,
    next: Next,
) -> Response {
    match token.check(request.headers()) {
        Credentials::Accepted => next.run(request).await,
        refused => {
            // Who knocked, never with what: the header may hold a near-miss of the token.
            // At debug: a flood of strangers must not fill the log at the default level.
            tracing::debug!(
                method = %request.method(),
                path = %request.uri().path(),
                credentials = ?refused,
                "refused an HTTP request without the bearer token"
            );
            unauthorized(refused)
        }
    }
}

/// Puts every route `router` has so far behind `token` (none: the router as it is). Routes
/// added afterwards (a health check for load balancers) stay open.
pub fn protect(router: axum::Router, token: Option<BearerToken>) -> axum::Router {
    match token {
        Some(token) => router.route_layer(axum::middleware::from_fn_with_state(
            Arc::new(token),
            require_token,
        )),
        None => router,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef-token";

    fn headers(authorization: Option<&str>) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        if let Some(value) = authorization {
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn token() -> BearerToken {
        BearerToken::new(&format!("{TOKEN}\n"), "a test").unwrap()
    }

    #[test]
    fn the_right_token_is_accepted_whatever_the_case_of_the_scheme() {
        let token = token();
        for value in [
            format!("Bearer {TOKEN}"),
            format!("bearer {TOKEN}"),
            format!("BEARER  {TOKEN} "),
        ] {
            assert_eq!(
                token.check(&headers(Some(&value))),
                Credentials::Accepted,
                "{value}"
            );
        }
    }

    #[test]
    fn a_missing_token_or_another_scheme_is_missing() {
        let token = token();
        for value in [
            None,
            Some("Basic dXNlcjpwYXNz"),
            Some("Bearer"),
            Some("Bearer   "),
            Some(TOKEN),
        ] {
            assert_eq!(
                token.check(&headers(value)),
                Credentials::Missing,
                "{value:?}"
            );
        }
    }

    #[test]
    fn a_near_miss_is_wrong() {
        let token = token();
        for value in [
            format!("Bearer {TOKEN}x"),
            format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]),
            format!("Bearer {}", TOKEN.to_uppercase()),
            "Bearer x".to_string(),
        ] {
            assert_eq!(
                token.check(&headers(Some(&value))),
                Credentials::Wrong,
                "{value}"
            );
        }
    }

    #[test]
    fn only_one_trailing_newline_is_trimmed() {
        let token = BearerToken::new(&format!("{TOKEN}\r\n"), "a test").unwrap();
        assert_eq!(
            token.check(&headers(Some(&format!("Bearer {TOKEN}")))),
            Credentials::Accepted
        );
        let problem = BearerToken::new(&format!("{TOKEN}\n\n"), "a test")
            .unwrap_err()
            .to_string();
        assert!(problem.contains("more than one line"), "{problem}");
        let problem = BearerToken::new(&format!(" {TOKEN}"), "a test")
            .unwrap_err()
            .to_string();
        assert!(problem.contains("cannot carry"), "{problem}");
    }

    #[test]
    fn empty_and_short_tokens_are_refused_saying_how_to_make_one() {
        for text in ["", "\n", "short\n"] {
            let problem = BearerToken::new(text, "the file t")
                .unwrap_err()
                .to_string();
            assert!(problem.contains("the file t"), "{problem}");
            assert!(problem.contains("openssl rand"), "{problem}");
        }
    }

    #[test]
    fn the_debug_form_hides_the_token() {
        assert!(!format!("{:?}", token()).contains("0123"));
    }

    #[test]
    fn the_challenge_names_the_realm_and_the_error_only_for_a_wrong_token() {
        let challenge = |credentials| {
            unauthorized(credentials)
                .headers()
                .get(header::WWW_AUTHENTICATE)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(challenge(Credentials::Missing), r#"Bearer realm="mcpick""#);
        assert!(
            challenge(Credentials::Wrong)
                .starts_with(r#"Bearer realm="mcpick", error="invalid_token""#)
        );
        assert_eq!(
            unauthorized(Credentials::Wrong).status(),
            StatusCode::UNAUTHORIZED
        );
    }

    /// The status and `WWW-Authenticate` of a GET of `path` on `address`.
    async fn get(
        address: std::net::SocketAddr,
        path: &str,
        authorization: Option<&str>,
    ) -> (u16, String) {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
        let mut request =
            format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
        if let Some(value) = authorization {
            request.push_str(&format!("Authorization: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.unwrap();
        let status = raw[9..12].parse().unwrap();
        let challenge = raw
            .lines()
            .find_map(|l| l.strip_prefix("www-authenticate: "))
            .unwrap_or("")
            .to_string();
        (status, challenge)
    }

    #[tokio::test]
    async fn protect_guards_the_routes_so_far_and_leaves_later_ones_open() {
        let router = axum::Router::new().route("/mcp", axum::routing::get(|| async { "prompts" }));
        let router =
            protect(router, Some(token())).route("/healthz", axum::routing::get(|| async { "ok" }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(async move { axum::serve(listener, router).await });
        assert_eq!(
            get(address, "/mcp", None).await,
            (401, r#"Bearer realm="mcpick""#.into())
        );
        let (status, challenge) = get(address, "/mcp", Some("Bearer nope")).await;
        assert_eq!(status, 401);
        assert!(
            challenge.contains(r#"error="invalid_token""#),
            "{challenge}"
        );
        assert_eq!(
            get(address, "/mcp", Some(&format!("Bearer {TOKEN}")))
                .await
                .0,
            200
        );
        assert_eq!(get(address, "/healthz", None).await.0, 200);
        server.abort();
    }

    #[tokio::test]
    async fn without_a_token_protect_changes_nothing() {
        let router = axum::Router::new().route("/mcp", axum::routing::get(|| async { "prompts" }));
        let router = protect(router, None);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(async move { axum::serve(listener, router).await });
        assert_eq!(get(address, "/mcp", None).await.0, 200);
        server.abort();
    }

    #[test]
    fn weak_and_oversized_tokens_are_refused_with_the_command_that_makes_a_good_one() {
        for weak in ["aaaaaaaaaaaaaaaa", "abababababababab", "abcdabcdabcdabcd"] {
            let problem = BearerToken::new(weak, "the file t")
                .unwrap_err()
                .to_string();
            assert!(problem.contains("too few characters"), "{weak}: {problem}");
            assert!(problem.contains("openssl rand -hex 32"), "{problem}");
        }
        let long = "0123456789abcdef".repeat(65);
        let problem = BearerToken::new(&long, "the file t")
            .unwrap_err()
            .to_string();
        assert!(problem.contains("more than 1024"), "{problem}");
        // What `openssl rand -hex 16` and `-hex 32` make are taken, and so is the test token.
        for good in [
            "3f9a1c07e2b84d5a9e61f0c2b7d83a4e",
            "9b2f6e0d4c8a1f3e7b5d9c0a2e4f6b8d1c3e5a7f9b0d2c4e6a8f1b3d5c7e9a0f",
            TOKEN,
        ] {
            assert!(BearerToken::new(good, "t").is_ok(), "{good}");
        }
        assert!(guessable_bits("aaaaaaaaaaaaaaaa") < 1.0);
        assert!((guessable_bits("abababababababab") - 16.0).abs() < 1e-9);
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_too_long_or_in_a_folder_all_can_write_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, "x".repeat(2 << 20)).unwrap();
        std::fs::set_permissions(&big, std::fs::Permissions::from_mode(0o600)).unwrap();
        let problem = BearerToken::from_file(&big).unwrap_err().to_string();
        assert!(problem.contains("2097152 bytes"), "{problem}");
        assert!(problem.contains("openssl rand -hex 32"), "{problem}");
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        let path = open.join("token");
        std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let problem = BearerToken::from_file(&path).unwrap_err().to_string();
        assert!(problem.contains("every user can write to"), "{problem}");
        assert!(problem.contains("chmod o-w"), "{problem}");
        // The sticky bit (as /tmp has) keeps others from replacing it: taken.
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert!(BearerToken::from_file(&path).is_ok());
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(BearerToken::from_file(&path).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_is_refused_and_one_only_its_owner_reads_is_used() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let problem = BearerToken::from_file(&path).unwrap_err().to_string();
        assert!(problem.contains("chmod 600"), "{problem}");
        assert!(problem.contains(&path.display().to_string()), "{problem}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let token = BearerToken::from_file(&path).unwrap();
        assert_eq!(
            token.check(&headers(Some(&format!("Bearer {TOKEN}")))),
            Credentials::Accepted
        );
        let missing = BearerToken::from_file(&dir.path().join("nope"))
            .unwrap_err()
            .to_string();
        assert!(missing.contains("cannot read the token file"), "{missing}");
    }
}
