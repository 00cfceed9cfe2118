//! OAuth 2.1 sign-in for HTTP servers (rmcp's `auth`): discovery from the server's 401,
//! client registration (pre-registered, Client ID Metadata Document, or dynamic), the
//! authorization code flow with PKCE through the browser and a loopback redirect, `iss`
//! checked, and tokens kept in the data dir readable by the owner only.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{
    AuthorizationCallback, AuthorizationManager, AuthorizationMetadataSource,
};
use rmcp::transport::{
    AuthClient, AuthError, AuthorizationRequest, AuthorizationSession, CredentialStore,
    StoredCredentials,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::dpop::Prover;
use super::dpop_http::{DpopHttp, DpopOAuthHttp};
use crate::config::{OAuthConfig, ServerConfig, TransportConfig};
use crate::mcp::error::McpError;

/// How long the browser step may take before sign-in gives up.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);

/// What mcpick calls itself when it registers with an authorization server.
const CLIENT_NAME: &str = "mcpick";

/// A request to the redirect listener larger than this is not a browser's redirect.
const MAX_CALLBACK_REQUEST: usize = 16 * 1024;

/// The file holding `server`'s tokens: `<data dir>/auth/<server>.json`.
pub fn token_path(server: &str) -> Option<PathBuf> {
    crate::config::data_dir().map(|dir| dir.join("auth").join(format!("{server}.json")))
}

/// What the token file says about a server's sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInState {
    /// No tokens stored.
    SignedOut,
    /// Tokens stored for this URL.
    SignedIn {
        /// Seconds since the epoch when the access token expires, if the server said.
        expires_at: Option<u64>,
        /// Whether a refresh token renews it without the browser.
        refreshable: bool,
        /// The machine grant that obtained it (and obtains the next), if not a browser.
        grant: Option<&'static str>,
        /// Whether the token is bound to mcpick's key for the server (DPoP, RFC 9449).
        dpop: bool,
    },
}

impl SignInState {
    /// One line for `mcpick servers`.
    pub fn describe(&self) -> String {
        match self {
            SignInState::SignedOut => "not signed in".into(),
            SignInState::SignedIn {
                expires_at,
                refreshable,
                grant,
                dpop,
            } => {
                let now = now_secs();
                let expiry = match expires_at {
                    None => String::new(),
                    Some(at) if *at <= now => ", access token expired".into(),
                    Some(at) => format!(", access token expires in {}", duration_words(at - now)),
                };
                let renew = if *refreshable || grant.is_some() {
                    " (renewed automatically)"
                } else {
                    ""
                };
                let with = grant.map(|g| format!(" with {g}")).unwrap_or_default();
                let bound = if *dpop {
                    ", bound to this machine's key (DPoP)"
                } else {
                    ""
                };
                format!("signed in{with}{expiry}{renew}{bound}")
            }
        }
    }
}

fn duration_words(secs: u64) -> String {
    match secs {
        0..120 => format!("{secs} s"),
        120..7200 => format!("{} min", secs / 60),
        7200..172_800 => format!("{} h", secs / 3600),
        _ => format!("{} days", secs / 86_400),
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The sign-in state of `server` from its token file.
pub fn sign_in_state(server: &ServerConfig) -> SignInState {
    let Some((_, oauth)) = http_parts(server) else {
        return SignInState::SignedOut;
    };
    let machine =
        (oauth.grant != crate::config::OAuthGrant::AuthorizationCode).then(|| oauth.grant.name());
    match stored(server) {
        Some(credentials) => match state_of(&credentials) {
            SignInState::SignedIn {
                expires_at,
                refreshable,
                dpop,
                ..
            } => SignInState::SignedIn {
                expires_at,
                refreshable,
                grant: machine,
                dpop,
            },
            signed_out => signed_out,
        },
        _ => SignInState::SignedOut,
    }
}

/// The stored access token of `server`, if any.
pub(super) fn stored_access_token(server: &ServerConfig) -> Option<String> {
    let credentials = stored(server)?;
    let json = serde_json::to_value(credentials.token_response?).ok()?;
    json.get("access_token")?.as_str().map(str::to_string)
}

/// The stored access and refresh tokens of `server` (to mask: a server may echo them).
pub(in crate::mcp) fn stored_tokens(server: &ServerConfig) -> Vec<String> {
    let Some(credentials) = stored(server) else {
        return Vec::new();
    };
    // The token response's fields, read through its JSON form.
    let json = serde_json::to_value(&credentials.token_response).unwrap_or_default();
    ["access_token", "refresh_token"]
        .iter()
        .filter_map(|field| json.get(field)?.as_str().map(str::to_string))
        .collect()
}

/// A hash naming `server`'s authorization context, for the catalog's `cacheScope:
/// "private"` results: its URL, issuer, client and scopes, and its refresh token (else its
/// access token), so that a sign-out (`None`), a new sign-in or another identity is another
/// context. The tokens are hashed, never stored. A server that rotates refresh tokens gets
/// a new context at each refresh: its private lists are fetched again, never shown to the
/// wrong sign-in.
pub fn authorization_context(server: &ServerConfig) -> Option<String> {
    let (url, oauth) = http_parts(server)?;
    let credentials = stored(server)?;
    let json = serde_json::to_value(credentials.token_response.as_ref()?).ok()?;
    // A machine grant's identity is its grant and client: each new token (there is no
    // refresh token) is the same identity, and keeps the private lists.
    let owner = token_owner(oauth);
    let token = match &owner {
        Some(owner) => owner.as_str(),
        None => ["refresh_token", "access_token"]
            .iter()
            .find_map(|field| json.get(field)?.as_str())?,
    };
    let mut scopes = credentials.granted_scopes.clone();
    scopes.sort();
    let mut hash = crate::cache::Fields::default();
    hash.field("url", url);
    hash.field("issuer", credentials.issuer.as_deref().unwrap_or(""));
    hash.field("client_id", &credentials.client_id);
    for scope in &scopes {
        hash.field("scope", scope);
    }
    hash.field("token", token);
    Some(hash.hex())
}

fn state_of(credentials: &StoredCredentials) -> SignInState {
    let Some(token) = &credentials.token_response else {
        return SignInState::SignedOut;
    };
    // The token response's fields, read through its JSON form.
    let json = serde_json::to_value(token).unwrap_or_default();
    let expires_at = json
        .get("expires_in")
        .and_then(serde_json::Value::as_u64)
        .zip(credentials.token_received_at)
        .map(|(lifetime, received)| received + lifetime);
    SignInState::SignedIn {
        expires_at,
        refreshable: json.get("refresh_token").is_some_and(|r| !r.is_null()),
        grant: None,
        dpop: json
            .get("token_type")
            .and_then(serde_json::Value::as_str)
            .is_some_and(super::dpop::is_bound_type),
    }
}

/// Deletes `server`'s tokens; `Ok(false)` when there were none.
pub fn sign_out(server: &str) -> Result<bool, McpError> {
    let Some(path) = token_path(server) else {
        return Ok(false);
    };
    let removed = match std::fs::remove_file(&path) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => {
            return Err(McpError::Auth(format!(
                "cannot delete {}: {e}",
                path.display()
            )));
        }
    };
    // The DPoP key goes with the tokens bound to it (after them: a token is never left
    // without its key); the next sign-in makes a new one.
    super::dpop::remove_key(server).map_err(|e| {
        McpError::Auth(format!(
            "cannot delete {}: {e}",
            super::dpop::key_path(server).unwrap_or_default().display()
        ))
    })?;
    Ok(removed)
}

/// The key `server`'s stored token is bound to (DPoP), if it is a bound one: `Ok(None)`
/// for a bearer token; an error when it is bound and the key is gone or unreadable.
pub(super) fn stored_binding(
    server: &ServerConfig,
) -> Result<Option<std::sync::Arc<Prover>>, McpError> {
    let bound = matches!(
        sign_in_state(server),
        SignInState::SignedIn { dpop: true, .. }
    );
    if !bound {
        return Ok(None);
    }
    match Prover::stored(&server.name) {
        Some(prover) => Ok(Some(std::sync::Arc::new(prover))),
        None => Err(McpError::Auth(format!(
            "`{}`'s token is bound to a DPoP key that is gone ({}): sign in again with `mcpick auth login {}`",
            server.name,
            super::dpop::key_path(&server.name)
                .unwrap_or_default()
                .display(),
            server.name
        ))),
    }
}

/// The tokens of one server, as stored: the URL they were issued for, the machine grant
/// and client that obtained them (none for a person's sign-in), and rmcp's credentials. A
/// token file for another URL is ignored (never sent elsewhere), and so is one obtained
/// another way than the config says now (a person's token is not a machine's, nor one
/// client's another's).
#[derive(Serialize, Deserialize)]
struct TokenFile {
    url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    obtained_by: Option<String>,
    credentials: StoredCredentials,
}

/// Who obtains `oauth`'s tokens, as a token file records it: `None` for a person in a
/// browser, else the grant and the client id.
pub(super) fn token_owner(oauth: &OAuthConfig) -> Option<String> {
    (oauth.grant != crate::config::OAuthGrant::AuthorizationCode).then(|| {
        format!(
            "{} {}",
            oauth.grant.name(),
            oauth.client_id.as_deref().unwrap_or("")
        )
    })
}

/// `server`'s stored credentials, if its token file is for its URL and its way of
/// signing in.
fn stored(server: &ServerConfig) -> Option<StoredCredentials> {
    let (url, oauth) = http_parts(server)?;
    TokenFile::read(
        &token_path(&server.name)?,
        url,
        token_owner(oauth).as_deref(),
    )
    .ok()
    .flatten()
}

impl TokenFile {
    fn read(
        path: &Path,
        url: &str,
        owner: Option<&str>,
    ) -> Result<Option<StoredCredentials>, AuthError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(AuthError::CredentialStoreError(format!(
                    "cannot read {}: {e}",
                    path.display()
                )));
            }
        };
        let file: TokenFile = serde_json::from_str(&text).map_err(|e| {
            AuthError::CredentialStoreError(format!(
                "{} is not a token file mcpick wrote ({e}); `mcpick auth logout` removes it",
                path.display()
            ))
        })?;
        Ok((file.url == url && file.obtained_by.as_deref() == owner).then_some(file.credentials))
    }
}

/// rmcp's credential store over one server's token file: written atomically, owner-only.
pub(in crate::mcp) struct TokenStore {
    path: PathBuf,
    url: String,
    owner: Option<String>,
}

impl TokenStore {
    /// The store of `server` (its name, URL, and who obtains its tokens: [`token_owner`]).
    pub fn new(server: &str, url: &str, owner: Option<String>) -> Result<TokenStore, McpError> {
        let path = token_path(server).ok_or_else(|| {
            McpError::Auth("this platform has no data directory to keep tokens in".into())
        })?;
        Ok(TokenStore {
            path,
            url: url.to_string(),
            owner,
        })
    }

    fn write(&self, credentials: StoredCredentials) -> std::io::Result<()> {
        let file = TokenFile {
            url: self.url.clone(),
            obtained_by: self.owner.clone(),
            credentials,
        };
        let json = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
        // Owner-only (0600) in an owner-only folder, renamed over the old one.
        crate::cache::write_private(&self.path, &json)
    }
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        TokenFile::read(&self.path, &self.url, self.owner.as_deref())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.write(credentials).map_err(|e| {
            AuthError::CredentialStoreError(format!("cannot write {}: {e}", self.path.display()))
        })
    }

    async fn on_refresh_token_rejected(
        &self,
        credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        // Tokens the server refused are useless: forget them (unless replaced meanwhile),
        // so `mcpick servers` says "not signed in" rather than "signed in".
        let refresh = |c: &StoredCredentials| {
            serde_json::to_value(&c.token_response)
                .ok()
                .and_then(|v| v.get("refresh_token").cloned())
        };
        if let Some(stored) = TokenFile::read(&self.path, &self.url, self.owner.as_deref())?
            && refresh(&stored) == refresh(credentials)
        {
            self.clear().await?;
        }
        Ok(())
    }

    async fn clear(&self) -> Result<(), AuthError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(AuthError::CredentialStoreError(format!(
                "cannot delete {}: {e}",
                self.path.display()
            ))),
        }
    }
}

fn http_parts(server: &ServerConfig) -> Option<(&str, &OAuthConfig)> {
    match &server.transport {
        TransportConfig::Http { url, oauth, .. } => Some((url, oauth)),
        TransportConfig::Stdio { .. } => None,
    }
}

/// An HTTP client that signs requests with `server`'s stored tokens (refreshing them when
/// they expire), or `None` when none are stored: then requests go out unsigned and a 401
/// means sign-in is needed.
pub(in crate::mcp) async fn signed_client(
    server: &ServerConfig,
) -> Result<Option<AuthClient<DpopHttp>>, McpError> {
    crate::mcp::tls::install_crypto_provider();
    let Some((url, oauth)) = http_parts(server) else {
        return Ok(None);
    };
    if sign_in_state(server) == SignInState::SignedOut {
        return Ok(None);
    }
    let binding = stored_binding(server)?;
    // `dpop = "required"`: a bearer token is not used (a sign-in gets a bound one).
    if binding.is_none() && oauth.dpop == crate::config::Dpop::Required {
        return Ok(None);
    }
    // A refresh goes with a proof wherever the sign-in did: a bound token's refresh token
    // is bound too, and so is a public client's, even beside a bearer access token (RFC
    // 9449 §5).
    let refresh_key = match &binding {
        Some(prover) => Some(prover.clone()),
        None if oauth.dpop != crate::config::Dpop::Off => {
            Prover::stored(&server.name).map(std::sync::Arc::new)
        }
        None => None,
    };
    let mut manager = manager_for(&server.name, url, refresh_key).await?;
    // Loads the client id and checks the tokens still belong to the server's issuer.
    if !manager.initialize_from_store().await.map_err(auth_error)? {
        return Ok(None);
    }
    let http = match binding {
        Some(prover) => DpopHttp::bound(prover),
        None => DpopHttp::bearer(),
    };
    Ok(Some(AuthClient::new(http, manager)))
}

/// rmcp's OAuth state for a person's sign-in to the server `name` at `url`, over its
/// token file: its requests go through the SDK's client, or with DPoP proofs signed by
/// `prover` through mcpick's ([`DpopOAuthHttp`]).
async fn manager_for(
    name: &str,
    url: &str,
    prover: Option<std::sync::Arc<Prover>>,
) -> Result<AuthorizationManager, McpError> {
    let mut manager = match prover {
        Some(prover) => AuthorizationManager::new_with_oauth_http_client(
            url,
            std::sync::Arc::new(DpopOAuthHttp::new(prover, url).map_err(auth_error)?),
        )
        .await
        .map_err(auth_error)?,
        None => AuthorizationManager::new_allowing_private_addresses(url)
            .await
            .map_err(auth_error)?,
    };
    manager.set_credential_store(TokenStore::new(name, url, None)?);
    Ok(manager)
}

/// How the browser step is done.
pub enum Browser {
    /// Open the system browser (and print the URL, for SSH sessions).
    System,
    /// Only report the URL; the user opens it.
    None,
    /// Visit the URL with an HTTP client that follows redirects (headless test servers
    /// that redirect straight back).
    Follow,
}

/// Signs in to `server`: asks the server for its authorization server (from the 401's
/// `WWW-Authenticate`, else the well-known URLs), registers mcpick, runs the authorization
/// code flow with PKCE via `browser` and a loopback redirect, checks `iss`, and stores the
/// tokens. `show_url` receives the URL to open. `challenge` may carry a `WWW-Authenticate`
/// value already seen (a 401, or a 403 asking for more scopes).
pub async fn sign_in(
    server: &ServerConfig,
    challenge: Option<String>,
    browser: Browser,
    show_url: &(dyn Fn(&str) + Send + Sync),
) -> Result<(), McpError> {
    crate::mcp::tls::install_crypto_provider();
    // Boxed: its body (every step of the flow) was compiled into each of three codegen
    // units that await it; boxed, it is compiled once.
    let steps: futures::future::BoxFuture<'_, Result<(), McpError>> =
        Box::pin(sign_in_unhidden(server, challenge, browser, show_url));
    let result = steps.await;
    match http_parts(server) {
        // A URL's query may hold a key: errors quote the URL without it.
        Some((url, _)) => result.map_err(|e| e.hiding_url_query(url)),
        None => result,
    }
}

/// [`sign_in`]'s steps, its errors not yet hiding the URL's query: the manager and its
/// metadata, a listener for the redirect, the authorization request and session, the
/// browser, its redirect, the tokens, and the page the browser is left with.
async fn sign_in_unhidden(
    server: &ServerConfig,
    challenge: Option<String>,
    browser: Browser,
    show_url: &(dyn Fn(&str) + Send + Sync),
) -> Result<(), McpError> {
    let (url, oauth) = http_parts(server).ok_or_else(|| {
        McpError::Auth(format!(
            "`{}` is a stdio server; sign-in is for `url` servers",
            server.name
        ))
    })?;
    let challenge = match challenge {
        Some(challenge) => Some(challenge),
        None => probe_challenge(server).await?,
    };
    let (manager, guessed, bind) =
        sign_in_manager(server, url, oauth, challenge.as_deref()).await?;

    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| McpError::Auth(format!("cannot listen for the browser's redirect: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| McpError::Auth(e.to_string()))?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");

    let request =
        authorization_request(server, oauth, &redirect_uri, challenge.as_deref(), &manager);
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| match auth_error(e) {
            McpError::Auth(why) if guessed => McpError::Auth(offers_no_sign_in(&server.name, &why)),
            other => other,
        })?;
    let authorization_url = session.get_authorization_url().to_string();
    show_url(&authorization_url);
    open_authorization_url(browser, &authorization_url);
    let expected_state = url::Url::parse(&authorization_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    });
    let waited = tokio::time::timeout(
        SIGN_IN_TIMEOUT,
        wait_for_redirect(&listener, port, expected_state.as_deref()),
    )
    .await
    .map_err(|_| {
        McpError::Auth(format!(
            "no answer from the browser within {} minutes; run the sign-in again",
            SIGN_IN_TIMEOUT.as_secs() / 60
        ))
    })??;
    let (mut stream, callback) = waited;
    let outcome = take_tokens(server, oauth, &session, callback, bind).await;
    // The browser hears how it ended only once the tokens are (or are not) in hand.
    tell_browser(&mut stream, outcome.is_ok()).await;
    outcome
}

/// The authorization manager of a sign-in, with the metadata found from `challenge`; then
/// whether that metadata was only guessed (no metadata anywhere: rmcp tries the
/// 2025-03-26 default endpoints, which a server that only takes a token, `mcpick serve
/// --auth-token-file`, does not have), and whether tokens are bound to mcpick's key
/// (DPoP), in which case the manager sends token requests with proofs.
async fn sign_in_manager(
    server: &ServerConfig,
    url: &str,
    oauth: &OAuthConfig,
    challenge: Option<&str>,
) -> Result<(AuthorizationManager, bool, bool), McpError> {
    let mut manager = manager_for(&server.name, url, None).await?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge)
        .await
        .map_err(auth_error)?;
    let guessed = matches!(
        resolution.source,
        AuthorizationMetadataSource::LegacyEndpointFallback
    );
    let bind = super::dpop::wanted(
        oauth.dpop,
        super::dpop::offered(&resolution.metadata.additional_fields),
    )
    .map_err(|why| McpError::Auth(format!("cannot sign in to `{}`: {why}", server.name)))?;
    if bind {
        // Token requests carry proofs: rmcp sends them through mcpick's client, which
        // finds the server again (rmcp keeps what discovery learnt in the manager).
        let prover = std::sync::Arc::new(
            Prover::for_server(&server.name)
                .map_err(|why| McpError::Auth(format!("DPoP for `{}`: {why}", server.name)))?,
        );
        manager = manager_for(&server.name, url, Some(prover)).await?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge)
            .await
            .map_err(auth_error)?;
        manager.set_metadata(resolution.metadata);
    } else {
        manager.set_metadata(resolution.metadata);
    }
    Ok((manager, guessed, bind))
}

/// What the sign-in asks the authorization server for: the redirect back to mcpick, the
/// challenge, the scopes (configured, or a step-up's), and the client (pre-registered,
/// or a metadata document).
fn authorization_request(
    server: &ServerConfig,
    oauth: &OAuthConfig,
    redirect_uri: &str,
    challenge: Option<&str>,
    manager: &AuthorizationManager,
) -> AuthorizationRequest {
    let mut request = AuthorizationRequest::new(redirect_uri).with_client_name(CLIENT_NAME);
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge.to_string());
    }
    if !oauth.scopes.is_empty() {
        request = request.with_scopes(oauth.scopes.iter().cloned());
    } else if let Some(scopes) = step_up_scopes(server, challenge, manager) {
        request = request.with_scopes(scopes);
    }
    if let Some(client_id) = &oauth.client_id {
        request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = &oauth.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if let Some(metadata_url) = &oauth.client_metadata_url {
        request = request.with_client_metadata_url(metadata_url.clone());
    }
    request
}

/// Opens the authorization URL as `browser` says: the system browser, nothing (the user
/// opens it), or an HTTP client that follows its redirects.
fn open_authorization_url(browser: Browser, authorization_url: &str) {
    match browser {
        Browser::System => open_in_browser(authorization_url),
        Browser::None => {}
        Browser::Follow => {
            let url = authorization_url.to_string();
            tokio::spawn(async move {
                if let Err(error) = reqwest::get(&url).await {
                    tracing::warn!(%error, "following the authorization URL failed");
                }
            });
        }
    }
}

/// Exchanges the browser's `callback` for tokens, which the session stores; a token
/// that should be bound (`bind`) and is not is removed where `oauth.dpop = "required"`.
async fn take_tokens(
    server: &ServerConfig,
    oauth: &OAuthConfig,
    session: &AuthorizationSession,
    callback: Result<AuthorizationCallback, McpError>,
    bind: bool,
) -> Result<(), McpError> {
    let outcome = match callback {
        Ok(callback) => session
            .handle_callback_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map(|_| ())
            .map_err(auth_error),
        Err(error) => Err(error),
    };
    outcome.and_then(|()| {
        let bound = matches!(sign_in_state(server), SignInState::SignedIn { dpop: true, .. });
        if bind && !bound && oauth.dpop == crate::config::Dpop::Required {
            // Not kept: `required` means an unbound token is never sent.
            if let Some(path) = token_path(&server.name) {
                let _ = std::fs::remove_file(path);
            }
            return Err(McpError::Auth(format!(
                "`{}`'s authorization server gave a bearer token, not one bound to mcpick's key, and `oauth.dpop = \"required\"`",
                server.name
            )));
        }
        Ok(())
    })
}

/// Answers the browser's redirect with a page saying whether the sign-in worked, and
/// closes the connection.
async fn tell_browser(stream: &mut tokio::net::TcpStream, signed_in: bool) {
    let page = if signed_in {
        "Signed in. You can close this tab and go back to mcpick."
    } else {
        "Sign-in failed; mcpick says why."
    };
    let body = format!("<!doctype html><meta charset=utf-8><title>mcpick</title><p>{page}</p>");
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// On a 403 `insufficient_scope` challenge (step-up), the scopes to ask for: those already
/// granted for this URL together with those the server asks for now (SEP-2350), since the
/// new token replaces the old one. `None` when it is not a step-up or nothing was granted
/// before: then rmcp picks the scopes from the challenge and metadata.
fn step_up_scopes(
    server: &ServerConfig,
    challenge: Option<&str>,
    manager: &AuthorizationManager,
) -> Option<Vec<String>> {
    if !challenge.is_some_and(|c| c.contains("insufficient_scope")) {
        return None;
    }
    let granted = stored(server)?.granted_scopes;
    if granted.is_empty() {
        return None;
    }
    let mut scopes = granted;
    for scope in manager.select_scopes(None, &[]) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Some(scopes)
}

/// Sends an unsigned request to see whether the server asks for sign-in: the
/// `WWW-Authenticate` value of its 401 (or 403), or `None`.
pub(super) async fn probe_challenge(server: &ServerConfig) -> Result<Option<String>, McpError> {
    crate::mcp::tls::install_crypto_provider();
    let TransportConfig::Http { url, headers, .. } = &server.transport else {
        return Ok(None);
    };
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")}
        }
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&body)
        .timeout(server.timeout);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = request
        .send()
        .await
        .map_err(|e| McpError::Auth(format!("cannot reach {url}: {}", e.without_url())))?;
    let status = response.status().as_u16();
    Ok(if matches!(status, 401 | 403) {
        response
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    } else {
        None
    })
}

/// How long one connection to the redirect listener may take to send its request.
const CALLBACK_READ_LIMIT: Duration = Duration::from_secs(5);

/// Waits for the browser's redirect to the loopback listener: the connection (to answer
/// once the code is exchanged) and its parameters, or the authorization server's refusal.
/// Requests for other paths (a favicon), idle connections and callbacks of another sign-in
/// (a `state` that is not this one's) are turned away, and the wait goes on.
async fn wait_for_redirect(
    listener: &TcpListener,
    port: u16,
    expected_state: Option<&str>,
) -> Result<
    (
        tokio::net::TcpStream,
        Result<AuthorizationCallback, McpError>,
    ),
    McpError,
> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| McpError::Auth(format!("the redirect listener failed: {e}")))?;
        let mut request = Vec::new();
        let mut buffer = [0u8; 2048];
        let read_head = async {
            while !request.windows(4).any(|w| w == b"\r\n\r\n")
                && !request.windows(2).any(|w| w == b"\n\n")
                && request.len() < MAX_CALLBACK_REQUEST
            {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buffer[..n]),
                }
            }
        };
        // A connection that sends nothing (a browser's preconnect) cannot hold the wait.
        if tokio::time::timeout(CALLBACK_READ_LIMIT, read_head)
            .await
            .is_err()
        {
            continue;
        }
        let head = String::from_utf8_lossy(&request);
        let target = head
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("GET "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or("")
            .to_string();
        let full = format!("http://127.0.0.1:{port}{target}");
        let parsed = url::Url::parse(&full).ok();
        let param = |key: &str| {
            parsed.as_ref().and_then(|u| {
                u.query_pairs()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.into_owned())
            })
        };
        let ours = expected_state.is_none_or(|s| param("state").as_deref() == Some(s));
        if !target.starts_with("/callback") || !ours {
            let answer: &[u8] = if target.starts_with("/callback") {
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            } else {
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            };
            let _ = stream.write_all(answer).await;
            continue;
        }
        let outcome = match param("error") {
            Some(error) => {
                let description = param("error_description").unwrap_or_default();
                // Its words are the authorization server's: quoted, on one line.
                Err(McpError::Auth(format!(
                    "the authorization server refused: {}{}",
                    crate::text::quoted_server_text(&error),
                    if description.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", crate::text::quoted_server_text(&description))
                    }
                )))
            }
            None => AuthorizationCallback::from_redirect_url(&full).map_err(auth_error),
        };
        return Ok((stream, outcome));
    }
}

/// Opens `url` in the system browser, if there is one; failures are only logged (the URL
/// is shown to the user anyway).
fn open_in_browser(url: &str) {
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let program = opener.unwrap_or_else(|| {
        if cfg!(target_os = "macos") {
            "open".into()
        } else {
            "xdg-open".into()
        }
    });
    let spawned = std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reap it in the background so no zombie is left.
        Ok(mut child) => {
            std::thread::spawn(move || child.wait());
        }
        Err(error) => tracing::info!(%program, %error, "cannot open a browser"),
    }
}

/// An rmcp auth error as mcpick says it.
/// Why a sign-in failed at a server that publishes no OAuth metadata, and what to do.
fn offers_no_sign_in(server: &str, why: &str) -> String {
    format!(
        "the server publishes no OAuth metadata (no /.well-known/oauth-protected-resource or \
         oauth-authorization-server), and the default endpoints failed ({why}); it may not \
         offer sign-in: if it takes a token, set `headers = {{ Authorization = \"Bearer …\" }}` \
         in [servers.{server}]"
    )
}

pub(super) fn auth_error(error: AuthError) -> McpError {
    McpError::Auth(match error {
        AuthError::AuthorizationRequired => "the server wants a new sign-in".into(),
        other => without_stutter(&other.to_string()),
    })
}

/// An error chain said once: rmcp's wrapped errors repeat themselves ("Registration
/// failed: Dynamic registration failed: Registration failed: HTTP 404 Not Found: "); a part
/// that another part already says (ignoring case) and empty parts are left out.
fn without_stutter(chain: &str) -> String {
    let parts: Vec<&str> = chain
        .split(": ")
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    let lower: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
    let kept: Vec<&str> = parts
        .iter()
        .enumerate()
        .filter(|(at, _)| {
            !lower.iter().enumerate().any(|(other, text)| {
                other != *at
                    && text.contains(lower[*at].as_str())
                    && (text != &lower[*at] || other < *at)
            })
        })
        .map(|(_, part)| *part)
        .collect();
    if kept.is_empty() {
        chain.trim().to_string()
    } else {
        kept.join(": ")
    }
}

#[cfg(test)]
mod tests {
    use super::without_stutter;

    #[test]
    fn error_chains_are_said_once() {
        assert_eq!(
            without_stutter(
                "Registration failed: Dynamic registration failed: Registration failed: HTTP 404 Not Found: "
            ),
            "Dynamic registration failed: HTTP 404 Not Found"
        );
        assert_eq!(
            without_stutter("Token exchange failed: invalid_grant"),
            "Token exchange failed: invalid_grant"
        );
        assert_eq!(without_stutter("a: a"), "a");
        assert_eq!(without_stutter(": "), ":");
    }
}
