//! Machine sign-in: the OAuth grants that need no person (`oauth.grant` other than
//! `authorization_code`). Client credentials with a secret (`client_secret_basic`) or a
//! signed assertion (`private_key_jwt`, RFC 7523); a workload's own JWT as the grant
//! (`jwt_bearer`, RFC 7523 §2.1, SEP-1933); and enterprise-managed authorization (SEP-990:
//! the company's identity provider exchanges an ID token for an identity assertion, the
//! ID-JAG, which the server's authorization server takes as a jwt-bearer grant).
//!
//! Each runs once: a refusal ends it with the authorization server's error, with no retry
//! and no fallback to another grant (least of all a browser). The token is stored as a
//! browser sign-in's is (owner-only, bound to the issuer), so the connection code signs
//! requests with it alike. Secrets (client secrets, keys, assertions, ID tokens, tokens)
//! never reach an error or the log: errors say which step failed and quote only the
//! server's `error` code and description, cut short and cleaned of control characters.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use futures::future::BoxFuture;
use rmcp::transport::CredentialStore;
use rmcp::transport::StoredCredentials;
use rmcp::transport::auth::{AuthorizationManager, OAuthTokenResponse};

use super::browser::{SignInState, TokenStore, auth_error, probe_challenge, sign_in_state};
use super::dpop::{DpopError, Prover};
use super::jose::{JoseError, SigningKey};
use crate::config::{
    AssertionAudience, Dpop, EnterpriseIdp, OAuthConfig, OAuthGrant, SecretSource, ServerConfig,
    TransportConfig,
};
use crate::mcp::error::McpError;

/// A token that expires sooner than this is obtained anew before a connection uses it.
const RENEW_BEFORE: Duration = Duration::from_secs(60);

/// The most an authorization server's answer, a key file, an assertion or a command's
/// output may be: anything larger is not what was asked for.
const MOST_BYTES: usize = 64 * 1024;

/// How much of a server's error description is quoted.
const QUOTED_CHARS: usize = 300;

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Why a step of a grant failed, said after the grant's and the server's names
/// ([`McpError::Grant`]). Every one ends the grant alike (no retry, no fallback), so
/// nothing branches on which; they are typed so no secret can slip into one.
#[derive(Debug, thiserror::Error)]
enum GrantError {
    /// An endpoint that is no URL (quoted, cleaned).
    #[error("the token endpoint `{0}` is not a URL")]
    NotAUrl(String),
    /// An endpoint a secret must not go to (quoted, cleaned).
    #[error("the token endpoint `{0}` is not https: no secret is sent there")]
    NotHttps(String),
    /// reqwest could not build a client.
    #[error("cannot make an HTTP client: {0}")]
    NoHttpClient(String),
    /// A private key file every user can read.
    #[error(
        "`oauth.private_key` {path} can be read by every user (mode {mode:03o}): run `chmod 600 {path}`"
    )]
    KeyReadableByAll {
        /// The key file.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// `oauth.NAME_file` cannot be read.
    #[error("`oauth.{name}_file`: {error}")]
    SecretFile {
        /// The secret's name (`assertion`, `id_token`).
        name: String,
        /// Why.
        error: crate::value_io::ValueError,
    },
    /// `oauth.NAME_command` failed: how, and its first stderr line (quoted, cleaned).
    #[error("`oauth.{name}_command` {why}{}", if first_line.is_empty() { String::new() } else { format!(": {first_line}") })]
    SecretCommand {
        /// The secret's name.
        name: String,
        /// How it failed.
        why: String,
        /// Its first line on stderr, or empty.
        first_line: String,
    },
    /// A secret that came out empty.
    #[error("`oauth.{0}` came out empty")]
    EmptySecret(String),
    /// The client assertion could not be signed.
    #[error(transparent)]
    Assertion(#[from] JoseError),
    /// The authorization server refused the token request.
    #[error("{0}")]
    Refused(Refusal),
}

/// Whether `server` signs in with a machine grant.
pub fn is_machine(server: &ServerConfig) -> bool {
    oauth_of(server).is_some_and(|(_, oauth)| oauth.grant != OAuthGrant::AuthorizationCode)
}

/// For a machine-grant server, obtains a token unless a stored one lasts another minute
/// (and is usable: bound to a key that is still there, or bound at all where
/// `oauth.dpop = "required"`); `Ok(true)` when one was obtained now. `Ok(false)` for other
/// servers.
pub async fn ensure_token(server: &ServerConfig) -> Result<bool, McpError> {
    let Some((_, oauth)) = oauth_of(server).filter(|_| is_machine(server)) else {
        return Ok(false);
    };
    let lasting = match sign_in_state(server) {
        SignInState::SignedIn {
            expires_at, dpop, ..
        } => {
            let usable = if dpop {
                Prover::stored(&server.name).is_some()
            } else {
                oauth.dpop != Dpop::Required
            };
            usable
                && expires_at
                    .is_none_or(|at| at > now_secs().saturating_add(RENEW_BEFORE.as_secs()))
        }
        SignInState::SignedOut => false,
    };
    if lasting {
        return Ok(false);
    }
    obtain(server).await.map(|()| true)
}

/// Runs `server`'s machine grant once and stores the token. Whatever secret it read or
/// was given is masked in its error, should a server's error description echo one.
///
/// Boxed: an async body is compiled into every codegen unit that awaits it, and this
/// one (every grant's requests) is large and awaited from many places; boxed, it is
/// compiled once (0.6 MB less in the release binary).
pub fn obtain(server: &ServerConfig) -> BoxFuture<'_, Result<(), McpError>> {
    Box::pin(async move {
        let mut secrets = server.secrets();
        let result = obtain_unmasked(server, &mut secrets).await;
        // The log file masks them too, the new token included, should anything print them.
        crate::secrets::register(&secrets);
        result.map_err(|e| e.masked(&secrets))
    })
}

/// Runs the grant ([`obtain`]'s work): finds the authorization server, builds the
/// request the grant makes, asks for the token and stores it. Every secret read or
/// obtained on the way goes into `secrets`.
async fn obtain_unmasked(
    server: &ServerConfig,
    secrets: &mut crate::secrets::Secrets,
) -> Result<(), McpError> {
    crate::mcp::tls::install_crypto_provider();
    let run = GrantRun::of(server)?;
    let token_server = run.token_server().await?;
    let http = http_client(server.timeout).map_err(|why| run.failed(why))?;
    let prover = run.dpop_key(token_server.dpop_offered)?;
    let request = run.request(&token_server, &http, secrets).await?;
    let answer = run
        .ask(&token_server, &http, prover.as_ref(), request, secrets)
        .await?;
    run.store(answer, prover.is_some(), token_server.issuer)
        .await
}

/// One run of a server's machine grant: what each of its steps reads.
struct GrantRun<'a> {
    server: &'a ServerConfig,
    url: &'a str,
    oauth: &'a OAuthConfig,
    /// The server the token is for (RFC 8707): its URL without a query or fragment, which
    /// may hold a key that is for the server alone.
    resource: String,
}

/// Where a grant asks for its token, from the authorization server's metadata.
struct TokenServer {
    token_endpoint: String,
    issuer: Option<String>,
    /// An assertion's audience: the authorization server (its issuer; RFC 7523 also
    /// allows the token endpoint where no issuer is published).
    audience: String,
    /// Whether it offers DPoP (RFC 9449).
    dpop_offered: bool,
}

/// What a grant sends to the token endpoint: the form, the client's Basic credentials if
/// any, and the key, client id and audience of a client assertion, which is signed anew
/// for each request (its `jti` is single-use).
struct GrantRequest {
    form: Vec<(&'static str, String)>,
    basic: Option<(String, String)>,
    assertion_key: Option<(SigningKey, String, String)>,
}

impl<'a> GrantRun<'a> {
    /// The run of `server`'s machine grant; an error if it has none.
    fn of(server: &'a ServerConfig) -> Result<GrantRun<'a>, McpError> {
        let (url, oauth) = oauth_of(server)
            .filter(|(_, oauth)| oauth.grant != OAuthGrant::AuthorizationCode)
            .ok_or_else(|| {
                McpError::Grant(format!(
                    "a machine grant for `{}`: it has none (`oauth.grant`)",
                    server.name
                ))
            })?;
        Ok(GrantRun {
            server,
            url,
            oauth,
            resource: url.split(['?', '#']).next().unwrap_or(url).to_string(),
        })
    }

    /// A step's failure, naming the grant and the server.
    fn failed(&self, why: impl std::fmt::Display) -> McpError {
        McpError::Grant(format!(
            "{} for `{}`: {why}",
            self.oauth.grant.name(),
            self.server.name
        ))
    }

    /// Finds the authorization server from the server's challenge and metadata, and
    /// checks its token endpoint.
    async fn token_server(&self) -> Result<TokenServer, McpError> {
        let challenge = probe_challenge(self.server).await?;
        let manager = AuthorizationManager::new_allowing_private_addresses(self.url)
            .await
            .map_err(|e| self.failed(auth_error(e).to_string()))?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge.as_deref())
            .await
            .map_err(|e| {
                self.failed(format!(
                    "cannot find the authorization server: {}",
                    auth_error(e)
                ))
            })?;
        // Nothing published (or nothing the SDK could read: it wants an
        // `authorization_endpoint` even of a server without browser sign-in): the SDK then
        // guesses `/token` at the server's own address, and a secret is not sent to a guess.
        if !resolution.source.is_discovered() {
            return Err(self.failed(
                "the server publishes no authorization server metadata mcpick can read (RFC 9728 protected resource metadata naming an authorization server whose RFC 8414 metadata has `token_endpoint` and `authorization_endpoint`), so no secret is sent",
            ));
        }
        let metadata = resolution.metadata;
        let token_endpoint = metadata.token_endpoint.clone();
        check_endpoint(&token_endpoint).map_err(|why| self.failed(why))?;
        let issuer = metadata.issuer.clone();
        Ok(TokenServer {
            audience: issuer.clone().unwrap_or_else(|| token_endpoint.clone()),
            token_endpoint,
            issuer,
            dpop_offered: super::dpop::offered(&metadata.additional_fields),
        })
    }

    /// DPoP (RFC 9449): mcpick's key for this server, which the token is bound to, when
    /// the authorization server offers it (or the config requires it); `None` for a
    /// bearer token.
    fn dpop_key(&self, offered: bool) -> Result<Option<Prover>, McpError> {
        let bind = super::dpop::wanted(self.oauth.dpop, offered).map_err(|why| self.failed(why))?;
        if bind {
            Ok(Some(
                Prover::for_server(&self.server.name)
                    .map_err(|why| self.failed(format!("DPoP: {why}")))?,
            ))
        } else {
            Ok(None)
        }
    }

    /// The request the grant makes at the token endpoint: its grant type and what it
    /// takes (a client secret or key, an assertion, an ID-JAG), the scopes and the
    /// resource.
    async fn request(
        &self,
        token_server: &TokenServer,
        http: &reqwest::Client,
        secrets: &mut crate::secrets::Secrets,
    ) -> Result<GrantRequest, McpError> {
        let oauth = self.oauth;
        let mut form: Vec<(&'static str, String)> = Vec::new();
        let mut basic = None;
        let mut assertion_key: Option<(SigningKey, String, String)> = None;
        match &oauth.grant {
            OAuthGrant::AuthorizationCode => unreachable!("filtered above"),
            OAuthGrant::ClientCredentials => {
                let client_id = oauth.client_id.clone().unwrap_or_default();
                form.push(("grant_type", "client_credentials".into()));
                if let Some(path) = &oauth.private_key {
                    let shown = path.display().to_string();
                    refuse_if_everyone_reads(path).map_err(|why| self.failed(why))?;
                    let pem = read_small(path)
                        .map_err(|e| self.failed(format!("`oauth.private_key`: {e}")))?;
                    let key = SigningKey::from_pem(pem.as_bytes(), &shown)
                        .map_err(|e| self.failed(format!("`oauth.private_key`: {e}")))?;
                    let aud = match oauth.assertion_audience {
                        AssertionAudience::Issuer => token_server.audience.clone(),
                        AssertionAudience::TokenEndpoint => token_server.token_endpoint.clone(),
                    };
                    form.push(("client_id", client_id.clone()));
                    form.push(("client_assertion_type", CLIENT_ASSERTION_TYPE.into()));
                    assertion_key = Some((key, client_id, aud));
                } else {
                    basic = Some((client_id, oauth.client_secret.clone().unwrap_or_default()));
                }
            }
            OAuthGrant::JwtBearer => {
                let source = oauth.assertion.as_ref().ok_or_else(|| {
                    self.failed("no `oauth.assertion`, `assertion_file` or `assertion_command`")
                })?;
                let assertion = secret_text(source, "assertion", self.server.timeout)
                    .await
                    .map_err(|why| self.failed(why))?;
                secrets.extend([assertion.clone()]);
                form.push(("grant_type", JWT_BEARER.into()));
                form.push(("assertion", assertion));
                client_auth(oauth, &mut form, &mut basic);
            }
            OAuthGrant::Enterprise(idp) => {
                let jag = self
                    .id_jag(idp, token_server.issuer.as_deref(), http, secrets)
                    .await?;
                // Step 2, at the server's authorization server.
                form.push(("grant_type", JWT_BEARER.into()));
                form.push(("assertion", jag));
                client_auth(oauth, &mut form, &mut basic);
            }
        }
        if !oauth.scopes.is_empty() {
            form.push(("scope", oauth.scopes.join(" ")));
        }
        // RFC 8707: the token is for this server.
        form.push(("resource", self.resource.clone()));
        Ok(GrantRequest {
            form,
            basic,
            assertion_key,
        })
    }

    /// Enterprise-managed authorization's step 1, at the identity provider: the user's ID
    /// token exchanged for an ID-JAG meant for this server's authorization server (its
    /// `issuer`) and this server.
    async fn id_jag(
        &self,
        idp: &EnterpriseIdp,
        issuer: Option<&str>,
        http: &reqwest::Client,
        secrets: &mut crate::secrets::Secrets,
    ) -> Result<String, McpError> {
        let oauth = self.oauth;
        let Some(issuer) = issuer else {
            return Err(self.failed(
                "the authorization server publishes no `issuer`, which the identity provider needs as the audience",
            ));
        };
        check_endpoint(&idp.token_endpoint).map_err(|why| self.failed(why))?;
        let id_token = secret_text(&idp.id_token, "id_token", self.server.timeout)
            .await
            .map_err(|why| self.failed(why))?;
        secrets.extend([id_token.clone()]);
        let mut exchange: Vec<(&str, String)> = vec![
            ("grant_type", TOKEN_EXCHANGE.into()),
            ("requested_token_type", ID_JAG_TYPE.into()),
            ("subject_token", id_token),
            ("subject_token_type", ID_TOKEN_TYPE.into()),
            ("audience", issuer.to_string()),
            ("resource", self.resource.clone()),
        ];
        if !oauth.scopes.is_empty() {
            exchange.push(("scope", oauth.scopes.join(" ")));
        }
        let idp_basic = match (&idp.client_id, &idp.client_secret) {
            (Some(id), Some(secret)) => Some((id.clone(), secret.clone())),
            (Some(id), None) => {
                exchange.push(("client_id", id.clone()));
                None
            }
            _ => None,
        };
        let answer = post_form(
            http,
            &idp.token_endpoint,
            &exchange,
            idp_basic.as_ref(),
            None,
        )
        .await
        .map_err(|e| self.failed(format!("the identity provider refused the exchange: {e}")))?;
        let issued = answer.get("issued_token_type").and_then(|v| v.as_str());
        let jag = answer
            .get("access_token")
            .and_then(|v| v.as_str())
            .filter(|_| issued == Some(ID_JAG_TYPE))
            .ok_or_else(|| {
                self.failed(format!(
                    "the identity provider answered without an ID-JAG (`issued_token_type` {})",
                    issued.map_or("missing".to_string(), |t| format!("`{}`", quoted(t)))
                ))
            })?
            .to_string();
        secrets.extend([jag.clone()]);
        Ok(jag)
    }

    /// Asks the token endpoint for the token (with a fresh client assertion, and a DPoP
    /// proof when `prover` binds it) and returns its answer.
    async fn ask(
        &self,
        token_server: &TokenServer,
        http: &reqwest::Client,
        prover: Option<&Prover>,
        request: GrantRequest,
        secrets: &mut crate::secrets::Secrets,
    ) -> Result<serde_json::Value, McpError> {
        let GrantRequest {
            form,
            basic,
            assertion_key,
        } = request;
        let mut sign_assertion = || -> Result<Option<String>, GrantError> {
            let Some((key, client_id, aud)) = &assertion_key else {
                return Ok(None);
            };
            let assertion =
                key.client_assertion(client_id, aud, self.oauth.key_id.as_deref(), now_secs())?;
            secrets.extend([assertion.clone()]);
            Ok(Some(assertion))
        };
        let answer = ask_for_token(
            http,
            &token_server.token_endpoint,
            &form,
            basic.as_ref(),
            prover,
            &mut sign_assertion,
        )
        .await
        .map_err(|e| self.failed(format!("the authorization server refused it: {e}")))?;
        if let Some(token) = answer.get("access_token").and_then(|t| t.as_str()) {
            secrets.extend([token.to_string()]);
        }
        Ok(answer)
    }

    /// Checks the token endpoint's `answer` (bound to mcpick's key where that was asked
    /// for and `oauth.dpop = "required"`) and stores its token as a browser sign-in's is,
    /// bound to `issuer`.
    async fn store(
        &self,
        answer: serde_json::Value,
        bind: bool,
        issuer: Option<String>,
    ) -> Result<(), McpError> {
        let oauth = self.oauth;
        let bound = answer
            .get("token_type")
            .and_then(|t| t.as_str())
            .is_some_and(super::dpop::is_bound_type);
        if bind && !bound && oauth.dpop == Dpop::Required {
            return Err(self.failed(
                "the authorization server gave a bearer token, not one bound to mcpick's key, and `oauth.dpop = \"required\"`",
            ));
        }
        let response: OAuthTokenResponse = serde_json::from_value(answer)
            .map_err(|_| self.failed("the authorization server's answer holds no usable token"))?;
        let client_id = oauth.client_id.clone().unwrap_or_default();
        let credentials = StoredCredentials::new(
            client_id,
            Some(response),
            oauth.scopes.clone(),
            Some(now_secs()),
        )
        .with_issuer(issuer);
        TokenStore::new(
            &self.server.name,
            self.url,
            super::browser::token_owner(oauth),
        )?
        .save(credentials)
        .await
        .map_err(|e| self.failed(auth_error(e).to_string()))
    }
}

/// The client's own authentication beside a jwt-bearer grant: Basic with a secret, else
/// its id in the form (a public client), else nothing.
fn client_auth(
    oauth: &OAuthConfig,
    form: &mut Vec<(&str, String)>,
    basic: &mut Option<(String, String)>,
) {
    match (&oauth.client_id, &oauth.client_secret) {
        (Some(id), Some(secret)) => *basic = Some((id.clone(), secret.clone())),
        (Some(id), None) => form.push(("client_id", id.clone())),
        _ => {}
    }
}

fn oauth_of(server: &ServerConfig) -> Option<(&str, &OAuthConfig)> {
    match &server.transport {
        TransportConfig::Http {
            url,
            oauth,
            legacy_sse: false,
            ..
        } => Some((url, oauth)),
        _ => None,
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Secrets go only to https endpoints, or plain http on this machine.
fn check_endpoint(endpoint: &str) -> Result<(), GrantError> {
    let parsed = url::Url::parse(endpoint).map_err(|_| GrantError::NotAUrl(quoted(endpoint)))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if parsed.scheme() == "https" || (parsed.scheme() == "http" && loopback) {
        Ok(())
    } else {
        Err(GrantError::NotHttps(quoted(endpoint)))
    }
}

fn http_client(timeout: Duration) -> Result<reqwest::Client, GrantError> {
    reqwest::Client::builder()
        // A token endpoint that redirects could send the secret elsewhere.
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .map_err(|e| GrantError::NoHttpClient(e.to_string()))
}

/// The token request: `form` (with a freshly signed `client_assertion` when
/// `fresh_assertion` gives one) and a DPoP proof when a key is given; sent once more, with
/// a new proof and assertion, only when the server asks for a DPoP nonce it had not given.
async fn ask_for_token(
    http: &reqwest::Client,
    endpoint: &str,
    form: &[(&str, String)],
    basic: Option<&(String, String)>,
    prover: Option<&Prover>,
    fresh_assertion: &mut (dyn FnMut() -> Result<Option<String>, GrantError> + Send),
) -> Result<serde_json::Value, GrantError> {
    for attempt in 0..2 {
        let mut sent = form.to_vec();
        if let Some(assertion) = fresh_assertion()? {
            sent.push(("client_assertion", assertion));
        }
        match post_form(http, endpoint, &sent, basic, prover.map(|p| (p, endpoint))).await {
            Err(Refusal::NonceAsked) if attempt == 0 => continue,
            Err(refusal) => return Err(GrantError::Refused(refusal)),
            Ok(json) => return Ok(json),
        }
    }
    unreachable!("the second pass returns")
}

/// Why a token endpoint gave no token.
#[derive(Debug)]
enum Refusal {
    /// It asks for a DPoP nonce it has not been sent yet (now learnt): send again.
    NonceAsked,
    /// No proof could be made for it.
    Proof(DpopError),
    /// Anything else, in words (the server's `error` and description, quoted and cleaned,
    /// or what broke off): shown, never branched on.
    Said(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NonceAsked => f.write_str(
                "HTTP 400 `use_dpop_nonce`: it asked for a new DPoP nonce again after the request was sent with the one it gave",
            ),
            Refusal::Proof(why) => write!(f, "{why}"),
            Refusal::Said(said) => f.write_str(said),
        }
    }
}

impl From<String> for Refusal {
    fn from(said: String) -> Refusal {
        Refusal::Said(said)
    }
}

impl From<DpopError> for Refusal {
    fn from(why: DpopError) -> Refusal {
        Refusal::Proof(why)
    }
}

/// POSTs `form` to a token endpoint, with HTTP Basic client authentication when given
/// (id and secret form-encoded first, RFC 6749 §2.3.1) and a DPoP proof when a key is
/// given, and returns its JSON answer, or its `error` and description.
async fn post_form(
    http: &reqwest::Client,
    endpoint: &str,
    form: &[(&str, String)],
    basic: Option<&(String, String)>,
    dpop: Option<(&Prover, &str)>,
) -> Result<serde_json::Value, Refusal> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
        .finish();
    let mut request = http
        .post(endpoint)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/json")
        .body(body);
    if let Some((id, secret)) = basic {
        let encode =
            |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let pair = format!("{}:{}", encode(id), encode(secret));
        request = request.header(
            "Authorization",
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            ),
        );
    }
    let mut used = None;
    if let Some((prover, url)) = dpop {
        let (proof, nonce) = prover.proof("POST", url, None)?;
        used = nonce;
        request = request.header("DPoP", proof);
    }
    let mut response = request
        .send()
        .await
        .map_err(|e| format!("cannot reach it: {}", e.without_url()))?;
    let status = response.status();
    let given = response
        .headers()
        .get("dpop-nonce")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let (Some((prover, url)), Some(nonce)) = (dpop, &given) {
        prover.learn_nonce(url, nonce);
    }
    // A nonce other than the one this request carried: worth one more try.
    let nonce_learnt = dpop.is_some() && given.is_some() && given != used;
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("its answer broke off: {}", e.without_url()))?
    {
        bytes.extend_from_slice(&chunk);
        if bytes.len() > MOST_BYTES {
            return Err(format!("its answer is over {} KiB", MOST_BYTES / 1024).into());
        }
    }
    let json: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
    if status.is_success() {
        return json.filter(serde_json::Value::is_object).ok_or_else(|| {
            Refusal::Said(format!(
                "HTTP {}, but its answer is not a JSON object",
                status.as_u16()
            ))
        });
    }
    let field = |name: &str| {
        json.as_ref()
            .and_then(|j| j.get(name))
            .and_then(|v| v.as_str())
            .map(quoted)
    };
    let code = field("error");
    let said = match (&code, field("error_description")) {
        (Some(error), Some(description)) => {
            format!("HTTP {} `{error}`: {description}", status.as_u16())
        }
        (Some(error), None) => format!("HTTP {} `{error}`", status.as_u16()),
        _ => format!("HTTP {} without an OAuth error", status.as_u16()),
    };
    if nonce_learnt
        && status == reqwest::StatusCode::BAD_REQUEST
        && code.as_deref().is_some_and(super::dpop::asks_for_nonce)
    {
        return Err(Refusal::NonceAsked);
    }
    Err(Refusal::Said(
        match code.as_deref().and_then(what_to_check) {
            Some(hint) => format!("{said} ({hint})"),
            None => said,
        },
    ))
}

/// What to look at for an OAuth error code (RFC 6749 §5.2).
fn what_to_check(code: &str) -> Option<&'static str> {
    Some(match code {
        "invalid_client" => {
            "check `oauth.client_id` and its `client_secret` or `private_key` in the config"
        }
        "invalid_grant" => {
            "the assertion or ID token was refused: check where it comes from, its audience and that it has not expired"
        }
        "unauthorized_client" => {
            "the client may not use this grant: ask the authorization server's admin"
        }
        "unsupported_grant_type" => "the authorization server does not offer this grant",
        "invalid_scope" => "check `oauth.scopes`",
        "invalid_target" => "the authorization server does not issue tokens for this server's URL",
        _ => return None,
    })
}

/// A server's text as an error may quote it: control characters out, cut short.
fn quoted(text: &str) -> String {
    let clean = crate::text::strip_controls(text);
    match clean.char_indices().nth(QUOTED_CHARS) {
        Some((at, _)) => format!("{}…", &clean[..at]),
        None => clean,
    }
}

/// The text of a secret: as given, a file's contents, or a command's output, trimmed.
async fn secret_text(
    source: &SecretSource,
    name: &str,
    timeout: Duration,
) -> Result<String, GrantError> {
    let text = match source {
        SecretSource::Value(value) => value.clone(),
        SecretSource::File(path) => read_small(path).map_err(|error| GrantError::SecretFile {
            name: name.to_string(),
            error,
        })?,
        SecretSource::Command(command) => run_command(command, name, timeout).await?,
    };
    let text = text.trim().to_string();
    if text.is_empty() {
        return Err(GrantError::EmptySecret(name.to_string()));
    }
    Ok(text)
}

/// A file's text (a key or a token), refused over [`MOST_BYTES`] or when not text.
/// A private key file every user can read is no longer private: refused with the `chmod`
/// that mends it, as `serve` refuses such a TLS key (group read stays allowed).
fn refuse_if_everyone_reads(path: &std::path::Path) -> Result<(), GrantError> {
    let Ok(metadata) = std::fs::metadata(path) else {
        // Unreadable or missing: reading it says so.
        return Ok(());
    };
    let mode = crate::sys::fs::mode(&metadata);
    if mode & 0o004 == 0 {
        return Ok(());
    }
    Err(GrantError::KeyReadableByAll {
        path: path.display().to_string(),
        mode: mode & 0o777,
    })
}

fn read_small(path: &std::path::Path) -> Result<String, crate::value_io::ValueError> {
    crate::value_io::read_file(&path.to_string_lossy(), MOST_BYTES)
}

/// Runs `command` as a form's value commands run (`sh -c` in its own process group, no
/// input, output bounded) and returns what it printed.
async fn run_command(command: &str, name: &str, timeout: Duration) -> Result<String, GrantError> {
    match crate::value_io::run_command(command, std::path::Path::new("."), timeout, MOST_BYTES)
        .await
    {
        crate::value_io::CommandOutcome::Done { output } => Ok(output),
        crate::value_io::CommandOutcome::Failed { why, stderr } => {
            let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(GrantError::SecretCommand {
                name: name.to_string(),
                why,
                first_line: quoted(first),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use std::sync::{Arc, Mutex};

    /// Each token request a test server saw: its proof's claims and its form.
    type Seen = Arc<Mutex<Vec<(serde_json::Value, String)>>>;

    /// A token endpoint that wants the DPoP nonce `want`; `None`: a new one every time.
    async fn token_endpoint(want: Option<&'static str>) -> (String, Seen) {
        let seen: Seen = Arc::default();
        let log = seen.clone();
        let route = axum::routing::post(move |headers: HeaderMap, body: String| {
            let log = log.clone();
            async move {
                let proof = headers.get("dpop").unwrap().to_str().unwrap().to_string();
                let part = proof.split('.').nth(1).unwrap();
                let claims: serde_json::Value =
                    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap();
                let count = {
                    let mut log = log.lock().unwrap();
                    log.push((claims.clone(), body));
                    log.len()
                };
                if want.is_some() && claims["nonce"] == want.unwrap() {
                    return (
                        [("content-type", "application/json")],
                        r#"{"access_token":"bound-token","token_type":"DPoP","expires_in":60}"#,
                    )
                        .into_response();
                }
                let nonce = want.map_or_else(|| format!("as-{count}"), str::to_string);
                (
                    StatusCode::BAD_REQUEST,
                    [
                        ("dpop-nonce", nonce),
                        ("content-type", "application/json".into()),
                    ],
                    r#"{"error":"use_dpop_nonce"}"#,
                )
                    .into_response()
            }
        });
        let app = axum::Router::new().route("/token", route);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (format!("http://{addr}/token"), seen)
    }

    fn assertions() -> impl FnMut() -> Result<Option<String>, GrantError> + Send {
        let mut n = 0;
        move || {
            n += 1;
            Ok(Some(format!("assertion-{n}")))
        }
    }

    #[tokio::test]
    async fn a_nonce_asked_for_at_the_token_endpoint_gets_one_more_request_with_it() {
        crate::mcp::tls::install_crypto_provider();
        let (endpoint, seen) = token_endpoint(Some("as-nonce")).await;
        let prover = Prover::ephemeral().unwrap();
        let form = [("grant_type", "client_credentials".to_string())];
        let answer = ask_for_token(
            &http_client(Duration::from_secs(5)).unwrap(),
            &endpoint,
            &form,
            None,
            Some(&prover),
            &mut assertions(),
        )
        .await
        .unwrap();
        assert_eq!(answer["token_type"], "DPoP");
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 2);
        assert!(seen[0].0.get("nonce").is_none());
        assert_eq!(seen[1].0["nonce"], "as-nonce");
        assert_ne!(seen[0].0["jti"], seen[1].0["jti"]);
        for (claims, _) in &seen {
            assert_eq!(claims["htm"], "POST");
            assert_eq!(claims["htu"], endpoint);
            assert!(claims.get("ath").is_none(), "no token yet");
        }
        // The client assertion is signed anew: its `jti` is single-use.
        assert!(
            seen[0].1.contains("client_assertion=assertion-1"),
            "{}",
            seen[0].1
        );
        assert!(
            seen[1].1.contains("client_assertion=assertion-2"),
            "{}",
            seen[1].1
        );
    }

    #[tokio::test]
    async fn a_token_endpoint_that_asks_for_a_nonce_again_gets_no_third_request() {
        crate::mcp::tls::install_crypto_provider();
        let (endpoint, seen) = token_endpoint(None).await;
        let prover = Prover::ephemeral().unwrap();
        let error = ask_for_token(
            &http_client(Duration::from_secs(5)).unwrap(),
            &endpoint,
            &[("grant_type", "client_credentials".to_string())],
            None,
            Some(&prover),
            &mut || Ok(None),
        )
        .await
        .unwrap_err();
        assert_eq!(seen.lock().unwrap().len(), 2);
        assert!(
            matches!(error, GrantError::Refused(Refusal::NonceAsked)),
            "{error}"
        );
        assert!(error.to_string().contains("use_dpop_nonce"), "{error}");
    }
}
