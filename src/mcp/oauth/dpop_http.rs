//! The HTTP clients that carry DPoP proofs (see [`super::dpop`]): [`DpopOAuthHttp`] for
//! rmcp's OAuth requests (a proof on every token request, one retry with the nonce the
//! authorization server asks for), and [`DpopHttp`] under the Streamable HTTP transport
//! (`Authorization: DPoP` and a fresh proof on every request, one retry with the nonce
//! the server asks for).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{
    AuthError, OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture,
    OAuthHttpRedirectPolicy, OAuthHttpRequest,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::dpop::{Prover, asks_for_nonce};

type Error = StreamableHttpError<reqwest::Error>;

/// How long one OAuth request may take (as rmcp's own client).
const OAUTH_TIMEOUT: Duration = Duration::from_secs(30);

/// The most an OAuth answer may be (as rmcp's own client).
const MOST_OAUTH_BYTES: usize = 1024 * 1024;

/// How long the request that learns a server's nonce may take.
const NONCE_PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// The header a proof travels in, and the one a server's nonce comes back in.
const DPOP: &str = "dpop";
const DPOP_NONCE: &str = "dpop-nonce";

/// Where OAuth requests may go, as rmcp's own client allows with private addresses
/// allowed (mcpick's choice for every sign-in): never link-local addresses (a cloud's
/// metadata service at 169.254.169.254), unspecified, multicast or broadcast ones; this
/// machine only when the server is on it.
#[derive(Clone, Copy)]
struct AddressPolicy {
    loopback: bool,
}

impl AddressPolicy {
    /// The policy for the OAuth requests of the MCP server at `server_url`.
    fn for_server(server_url: &str) -> AddressPolicy {
        let loopback = url::Url::parse(server_url).is_ok_and(|url| match url.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        });
        AddressPolicy { loopback }
    }

    fn allows(self, ip: std::net::IpAddr) -> bool {
        use std::net::IpAddr;
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        if ip.is_loopback() {
            return self.loopback;
        }
        let reserved = match ip {
            IpAddr::V4(v4) => v4.is_link_local() || v4.is_broadcast() || v4.is_unspecified(),
            // fe80::/10 is link-local.
            IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80 || v6.is_unspecified(),
        };
        !reserved && !ip.is_multicast()
    }

    /// Whether `url` may be asked, as far as its host says (names are checked as they
    /// resolve).
    fn allows_url(self, url: &url::Url) -> bool {
        match url.host() {
            Some(url::Host::Ipv4(ip)) => self.allows(ip.into()),
            Some(url::Host::Ipv6(ip)) => self.allows(ip.into()),
            Some(url::Host::Domain(_)) => true,
            None => false,
        }
    }
}

impl reqwest::dns::Resolve for AddressPolicy {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = *self;
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let allowed: Vec<std::net::SocketAddr> =
                found.filter(|addr| policy.allows(addr.ip())).collect();
            if allowed.is_empty() {
                return Err(format!(
                    "`{}` resolves to no address OAuth requests may go to",
                    name.as_str()
                )
                .into());
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// rmcp's OAuth requests with a DPoP proof on each token request (any POST of a form with a
/// `grant_type`: the code exchange, a refresh, a client credentials grant). Addresses are
/// checked as rmcp's own client checks them ([`AddressPolicy`]).
pub struct DpopOAuthHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
    policy: AddressPolicy,
    prover: Arc<Prover>,
}

impl DpopOAuthHttp {
    /// The client proving with `prover`'s key, for the OAuth requests of the MCP server
    /// at `server_url`.
    pub fn new(prover: Arc<Prover>, server_url: &str) -> Result<DpopOAuthHttp, AuthError> {
        crate::mcp::tls::install_crypto_provider();
        let policy = AddressPolicy::for_server(server_url);
        let build = |redirect| {
            reqwest::Client::builder()
                .timeout(OAUTH_TIMEOUT)
                .redirect(redirect)
                .dns_resolver(Arc::new(policy))
                .build()
                .map_err(|e| AuthError::InternalError(e.to_string()))
        };
        let follow = reqwest::redirect::Policy::custom(move |attempt| {
            if !policy.allows_url(attempt.url()) {
                attempt.error("a redirect to an address OAuth requests may not go to")
            } else if attempt.previous().len() > 10 {
                attempt.error("too many redirects")
            } else {
                attempt.follow()
            }
        });
        Ok(DpopOAuthHttp {
            follow: build(follow)?,
            stop: build(reqwest::redirect::Policy::none())?,
            policy,
            prover,
        })
    }
}

/// Whether a request body is a token request's form.
fn is_token_request(method: &http::Method, body: &[u8]) -> bool {
    method == http::Method::POST
        && url::form_urlencoded::parse(body).any(|(name, _)| name == "grant_type")
}

/// Whether an authorization server's answer asks for a nonce (RFC 9449 §8).
fn as_asks_for_nonce(status: http::StatusCode, body: &[u8]) -> bool {
    status == http::StatusCode::BAD_REQUEST
        && serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(asks_for_nonce))
            .unwrap_or(false)
}

/// The `DPoP-Nonce` a response carries.
fn nonce_in(headers: &http::HeaderMap) -> Option<String> {
    headers
        .get(DPOP_NONCE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

impl OAuthHttpClient for DpopOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let boxed = |e: reqwest::Error| Box::new(e) as OAuthHttpClientError;
            let refused =
                |why: String| Box::new(AuthError::InternalError(why)) as OAuthHttpClientError;
            let OAuthHttpRequest {
                request,
                redirect_policy,
                ..
            } = request;
            let client = match redirect_policy {
                OAuthHttpRedirectPolicy::Stop => &self.stop,
                _ => &self.follow,
            };
            let (parts, body) = request.into_parts();
            let url = parts.uri.to_string();
            match url::Url::parse(&url) {
                Ok(parsed) if self.policy.allows_url(&parsed) => {}
                _ => {
                    return Err(refused(format!(
                        "`{url}` is not an address OAuth requests may go to"
                    )));
                }
            }
            let token_request = is_token_request(&parts.method, &body);
            // A nonce asked for is sent once more with it; never a third time.
            for attempt in 0..2 {
                let mut builder = client
                    .request(parts.method.clone(), &url)
                    .headers(parts.headers.clone())
                    .body(body.clone());
                let mut used = None;
                if token_request {
                    let (proof, nonce) = self
                        .prover
                        .proof(parts.method.as_str(), &url, None)
                        .map_err(|e| refused(e.to_string()))?;
                    used = nonce;
                    builder = builder.header(DPOP, proof);
                }
                let mut response = builder.send().await.map_err(boxed)?;
                let given = nonce_in(response.headers());
                if let Some(nonce) = &given {
                    self.prover.learn_nonce(&url, nonce);
                }
                let status = response.status();
                let mut answer = http::Response::builder()
                    .status(status)
                    .version(response.version());
                for (name, value) in response.headers() {
                    answer = answer.header(name, value);
                }
                let mut bytes = Vec::new();
                while let Some(chunk) = response.chunk().await.map_err(boxed)? {
                    if chunk.len() > MOST_OAUTH_BYTES - bytes.len() {
                        return Err(refused(format!(
                            "the authorization server's answer is over {} KiB",
                            MOST_OAUTH_BYTES / 1024
                        )));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                let new_nonce = given.is_some() && given != used;
                if token_request && attempt == 0 && new_nonce && as_asks_for_nonce(status, &bytes) {
                    tracing::debug!(
                        "the authorization server asked for a DPoP nonce; sending again"
                    );
                    continue;
                }
                return answer
                    .body(bytes)
                    .map_err(|e| Box::new(e) as OAuthHttpClientError);
            }
            unreachable!("the loop returns on its second pass")
        })
    }
}

/// The Streamable HTTP client under rmcp's `AuthClient` (and mcpick's machine client):
/// plain reqwest with bearer tokens, or, for a DPoP-bound token, `Authorization: DPoP` and
/// a fresh proof on every request.
#[derive(Clone)]
pub struct DpopHttp {
    http: reqwest::Client,
    prover: Option<Arc<Prover>>,
}

impl DpopHttp {
    /// Tokens sent as bearer tokens.
    pub fn bearer() -> DpopHttp {
        crate::mcp::tls::install_crypto_provider();
        DpopHttp {
            http: reqwest::Client::new(),
            prover: None,
        }
    }

    /// Tokens bound to `prover`'s key. Redirects are not followed: a proof names the URL
    /// it is for, and is no one else's business.
    pub fn bound(prover: Arc<Prover>) -> DpopHttp {
        crate::mcp::tls::install_crypto_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        DpopHttp {
            http,
            prover: Some(prover),
        }
    }

    /// Sends `call` with `token` as the DPoP scheme wants it (or as is, for a bearer
    /// token, or no token); when the server asks for a nonce, learns it and sends once
    /// more with a new proof.
    async fn sent<T, F, Fut>(
        &self,
        method: &'static str,
        uri: &str,
        session_id: Option<&str>,
        token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        call: F,
    ) -> Result<T, Error>
    where
        F: Fn(Option<String>, HashMap<HeaderName, HeaderValue>) -> Fut,
        Fut: Future<Output = Result<T, Error>>,
    {
        let (Some(prover), Some(token)) = (&self.prover, token.clone()) else {
            return call(token, headers).await;
        };
        let (signed, used) = with_proof(prover, method, uri, &token, headers.clone())?;
        match call(None, signed).await {
            Err(StreamableHttpError::AuthRequired(challenge))
                if asks_for_nonce(&challenge.www_authenticate_header) =>
            {
                // Another request may have learnt the nonce meanwhile; else ask for it.
                let known = prover.nonce_for(uri);
                let nonce = if known.is_some() && known != used {
                    known
                } else {
                    self.ask_nonce(prover, uri, session_id, &token, &headers)
                        .await
                };
                if nonce.is_none() || nonce == used {
                    return Err(StreamableHttpError::AuthRequired(challenge));
                }
                tracing::debug!("the server asked for a DPoP nonce; sending again");
                let (signed, _) = with_proof(prover, method, uri, &token, headers)?;
                call(None, signed).await
            }
            other => other,
        }
    }

    /// Asks the server for the nonce it wants: rmcp's answer to the refused request does
    /// not keep the `DPoP-Nonce` header, so a `ping` that the server refuses the same way
    /// (or answers, harmlessly) brings it; learnt and returned.
    async fn ask_nonce(
        &self,
        prover: &Prover,
        uri: &str,
        session_id: Option<&str>,
        token: &str,
        headers: &HashMap<HeaderName, HeaderValue>,
    ) -> Option<String> {
        let (signed, _) = with_proof(prover, "POST", uri, token, headers.clone()).ok()?;
        let mut request = self
            .http
            .post(uri)
            .timeout(NONCE_PROBE_TIMEOUT)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":"mcpick-dpop-nonce","method":"ping"}"#);
        for (name, value) in signed {
            request = request.header(name, value);
        }
        if let Some(session) = session_id {
            request = request.header("mcp-session-id", session);
        }
        let response = request.send().await.ok()?;
        let nonce = nonce_in(response.headers())?;
        prover.learn_nonce(uri, &nonce);
        Some(nonce)
    }
}

/// `headers` with `Authorization: DPoP <token>` and a fresh proof for `method` `uri`, and
/// the nonce the proof carries.
fn with_proof(
    prover: &Prover,
    method: &str,
    uri: &str,
    token: &str,
    mut headers: HashMap<HeaderName, HeaderValue>,
) -> Result<(HashMap<HeaderName, HeaderValue>, Option<String>), Error> {
    let value = |text: String| {
        HeaderValue::from_str(&text).map_err(|_| {
            StreamableHttpError::from(AuthError::InternalError(
                "the access token cannot be sent in a header".into(),
            ))
        })
    };
    let (proof, used) = prover
        .proof(method, uri, Some(token))
        .map_err(|e| StreamableHttpError::from(AuthError::InternalError(e.to_string())))?;
    let mut authorization = value(format!("DPoP {token}"))?;
    authorization.set_sensitive(true);
    headers.insert(http::header::AUTHORIZATION, authorization);
    let mut proof = value(proof)?;
    proof.set_sensitive(true);
    headers.insert(HeaderName::from_static(DPOP), proof);
    Ok((headers, used))
}

impl StreamableHttpClient for DpopHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let session = session_id.as_deref();
        self.sent(
            "POST",
            &uri,
            session,
            auth_header,
            custom_headers,
            |token, headers| {
                self.http.post_message(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    token,
                    headers,
                )
            },
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let session = session_id.as_deref();
        self.sent(
            "POST",
            &uri,
            session,
            auth_header,
            custom_headers,
            |token, headers| {
                self.http.post_message_with_max_sse_event_size(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    token,
                    headers,
                    max_sse_event_size,
                )
            },
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let session = session_id.as_deref();
        self.sent(
            "POST",
            &uri,
            session,
            auth_header,
            custom_headers,
            |token, headers| {
                self.http.post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    token,
                    headers,
                    limits,
                )
            },
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        self.sent(
            "DELETE",
            &uri,
            Some(&session_id),
            auth_header,
            custom_headers,
            |token, headers| {
                self.http
                    .delete_session(uri.clone(), session_id.clone(), token, headers)
            },
        )
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let session = session_id.as_deref();
        self.sent(
            "GET",
            &uri,
            session,
            auth_header,
            custom_headers,
            |token, headers| {
                self.http.get_stream(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    token,
                    headers,
                )
            },
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let session = session_id.as_deref();
        self.sent(
            "GET",
            &uri,
            session,
            auth_header,
            custom_headers,
            |token, headers| {
                self.http.get_stream_with_max_sse_event_size(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    token,
                    headers,
                    max_sse_event_size,
                )
            },
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    /// What a test server saw of each request: its `Authorization` and its proof's claims.
    type Seen = Arc<std::sync::Mutex<Vec<(String, serde_json::Value)>>>;

    fn claims_of(headers: &HeaderMap) -> serde_json::Value {
        let proof = headers.get(DPOP).unwrap().to_str().unwrap();
        let part = proof.split('.').nth(1).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    /// A server at `/mcp` that wants the nonce `want` in proofs; `None`: it asks for a
    /// new nonce every time, however often it is given one.
    async fn server(want: Option<&'static str>) -> (String, Seen) {
        let seen: Seen = Arc::default();
        let log = seen.clone();
        let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let route = axum::routing::post(move |headers: HeaderMap| {
            let log = log.clone();
            let asked = asked.clone();
            async move {
                let authorization = headers
                    .get(http::header::AUTHORIZATION)
                    .map(|v| v.to_str().unwrap().to_string())
                    .unwrap_or_default();
                let claims = claims_of(&headers);
                log.lock().unwrap().push((authorization, claims.clone()));
                let nonce = match want {
                    Some(nonce) if claims["nonce"] == nonce => {
                        return (
                            [(http::header::CONTENT_TYPE, "application/json")],
                            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                        )
                            .into_response();
                    }
                    Some(nonce) => nonce.to_string(),
                    None => format!(
                        "n-{}",
                        asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                    ),
                };
                (
                    StatusCode::UNAUTHORIZED,
                    [
                        (
                            http::header::WWW_AUTHENTICATE.as_str(),
                            r#"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#.to_string(),
                        ),
                        (DPOP_NONCE, nonce),
                    ],
                    r#"{"error":"use_dpop_nonce"}"#,
                )
                    .into_response()
            }
        });
        let app = axum::Router::new().route("/mcp", route);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (format!("http://{addr}/mcp"), seen)
    }

    async fn post(client: &DpopHttp, uri: &str) -> Result<StreamableHttpPostResponse, Error> {
        let ping: ClientJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "ping"
        }))
        .unwrap();
        client
            .post_message_with_response_limits(
                uri.into(),
                ping,
                None,
                Some("the-token".into()),
                HashMap::new(),
                StreamableHttpResponseLimits::default(),
            )
            .await
    }

    #[tokio::test]
    async fn a_nonce_the_server_asks_for_is_learnt_and_the_request_sent_once_more() {
        let (uri, seen) = server(Some("rs-nonce")).await;
        let prover = Arc::new(Prover::ephemeral().unwrap());
        let client = DpopHttp::bound(prover.clone());
        post(&client, &uri).await.expect("answered after the nonce");
        let seen = seen.lock().unwrap().clone();
        // The request, the ping that brings the nonce, the request again with it.
        assert_eq!(seen.len(), 3, "{seen:?}");
        let ath = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, b"the-token"));
        for (authorization, claims) in &seen {
            assert_eq!(authorization, "DPoP the-token");
            assert_eq!(claims["htm"], "POST");
            assert_eq!(claims["htu"], uri);
            assert_eq!(claims["ath"], ath);
        }
        assert!(seen[0].1.get("nonce").is_none());
        assert_eq!(seen[2].1["nonce"], "rs-nonce");
        let jtis: std::collections::HashSet<_> =
            seen.iter().map(|(_, c)| c["jti"].to_string()).collect();
        assert_eq!(jtis.len(), 3, "every proof is fresh");
        // Later requests carry it from the start.
        post(&client, &uri).await.expect("answered at once");
        assert_eq!(prover.nonce_for(&uri).as_deref(), Some("rs-nonce"));
    }

    #[tokio::test]
    async fn requests_refused_together_each_get_their_one_retry() {
        let (uri, seen) = server(Some("rs-nonce")).await;
        let client = DpopHttp::bound(Arc::new(Prover::ephemeral().unwrap()));
        let (a, b, c) = tokio::join!(
            post(&client, &uri),
            post(&client, &uri),
            post(&client, &uri)
        );
        for answer in [a, b, c] {
            answer.expect("each answered after the nonce");
        }
        // Three refused, at most three pings, three answered.
        let seen = seen.lock().unwrap().len();
        assert!((6..=9).contains(&seen), "{seen} requests");
    }

    #[tokio::test]
    async fn a_server_that_asks_for_a_nonce_again_gets_no_third_try() {
        let (uri, seen) = server(None).await;
        let client = DpopHttp::bound(Arc::new(Prover::ephemeral().unwrap()));
        let error = post(&client, &uri).await.unwrap_err();
        assert!(
            matches!(&error, StreamableHttpError::AuthRequired(c) if asks_for_nonce(&c.www_authenticate_header)),
            "{error:?}"
        );
        assert_eq!(seen.lock().unwrap().len(), 3);
    }

    #[test]
    fn oauth_requests_never_go_to_link_local_addresses_and_to_this_machine_only_from_it() {
        let remote = AddressPolicy::for_server("https://mcp.example.com/mcp");
        let local = AddressPolicy::for_server("http://localhost:8000/mcp");
        let ip = |text: &str| text.parse::<std::net::IpAddr>().unwrap();
        for policy in [remote, local] {
            for refused in [
                "169.254.169.254",
                "fe80::1",
                "0.0.0.0",
                "224.0.0.1",
                "::ffff:169.254.169.254",
            ] {
                assert!(!policy.allows(ip(refused)), "{refused}");
            }
            for allowed in ["10.0.0.9", "192.168.1.2", "93.184.216.34", "2001:db8::1"] {
                assert!(policy.allows(ip(allowed)), "{allowed}");
            }
        }
        assert!(!remote.allows(ip("127.0.0.1")));
        assert!(!remote.allows(ip("::1")));
        assert!(local.allows(ip("127.0.0.1")));
        let url = |text: &str| url::Url::parse(text).unwrap();
        assert!(!remote.allows_url(&url("http://169.254.169.254/latest/meta-data")));
        assert!(remote.allows_url(&url("https://login.example.com/token")));
    }

    #[tokio::test]
    async fn a_bearer_client_sends_no_proof() {
        let seen: Seen = Arc::default();
        let log = seen.clone();
        let route = axum::routing::post(move |headers: HeaderMap| {
            let log = log.clone();
            async move {
                let authorization = headers
                    .get(http::header::AUTHORIZATION)
                    .map(|v| v.to_str().unwrap().to_string())
                    .unwrap_or_default();
                let proof = headers.get(DPOP).is_some();
                log.lock()
                    .unwrap()
                    .push((authorization, serde_json::json!(proof)));
                (
                    [(http::header::CONTENT_TYPE, "application/json")],
                    r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                )
            }
        });
        let app = axum::Router::new().route("/mcp", route);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        post(&DpopHttp::bearer(), &format!("http://{addr}/mcp"))
            .await
            .unwrap();
        assert_eq!(
            *seen.lock().unwrap(),
            [("Bearer the-token".to_string(), serde_json::json!(false))]
        );
    }
}
