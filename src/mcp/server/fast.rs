//! A direct answer, beside the SDK, for the two requests a shared prompt library gets
//! most: a 2026-07-28 (stateless) `prompts/list` or `prompts/get` over `serve --http`.
//!
//! rmcp's Streamable HTTP service answers every stateless request by starting a whole
//! service for it (a task, channels, a one-message transport and its serve loop); on
//! this 2-core machine that, with the allocations it makes, was most of the CPU a
//! request cost, and kept 64 connections near 13,000 requests/s. Here such a request is
//! read into a narrow shape of its own and answered by the same [`PromptServer`] code the
//! SDK's handler calls, written as the SDK writes it: the same bytes, without the
//! machinery (tests hold the two to the same bytes).
//!
//! Only a request that the SDK would certainly answer with that result is taken: every
//! check below is as strict as the SDK's or stricter (a plain `Accept` listing both
//! types, the protocol version header and `_meta` both 2026-07-28, `Mcp-Method` and
//! `Mcp-Name` exactly as the body says, an allowed `Host`, no `Origin`, no session, no
//! progress token or log level, no member the shape below does not name) and the result
//! must be a success. Anything else, errors included, goes on to the SDK untouched, so its
//! error shapes stay its own.
//!
//! Over plain HTTP the router's `Front` (router.rs) asks [`FastReads::takes`] and
//! [`FastReads::answer`] before any router layer runs; over TLS (and in tests) the same
//! answer sits in the router as a layer ([`FastReads::layer`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, HeaderName, StatusCode, header};
use rmcp::model::ServerResult;
use serde::Deserialize;
use serde_json::Value;

use crate::library::Library;
use crate::mcp::server::service::PromptServer;
use crate::model::{Content, KnownContent, PromptMessages};

/// The protocol revision whose requests are stateless, the only one answered here.
const STATELESS_VERSION: &str = "2026-07-28";

// The MCP headers, named once (a name given as text is parsed again at each look).
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// What the direct path needs: the server whose answers it gives, the `Host` names the
/// SDK is told to accept (`None`: any, as with `--allow-remote`) and the largest body
/// the SDK reads.
pub struct FastReads {
    server: PromptServer,
    allowed_hosts: Option<Vec<String>>,
    max_body: usize,
    pages: Mutex<ListPages>,
}

/// The `prompts/list` pages of one library, built and written once: a page only changes
/// with the library (each change on disk makes a new one), and building it (every prompt
/// and argument as JSON, then as the SDK's types, then as text) was most of what a list
/// request cost.
#[derive(Default)]
struct ListPages {
    library: Option<Arc<Library>>,
    /// Each page's result as the SDK writes it, by cursor; only pages that were served, so
    /// no more than the library has: a page has one cursor
    /// ([`crate::library::cursor_offset`] refuses other spellings), so no client can grow
    /// this by sending `0`, `00`, `+0`…
    pages: HashMap<Option<String>, Bytes>,
}

/// A 2026-07-28 `prompts/get` or `prompts/list` request in the one shape this path reads:
/// these members, each once, and no other (a member the SDK would read or ignore, a
/// `method` or `name` written with escapes, an `id` in float form: the SDK's to answer).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainRequest<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: PlainId<'a>,
    method: &'a str,
    #[serde(borrow)]
    params: PlainParams<'a>,
}

/// The `params` of a [`PlainRequest`]: `_meta` always; `name` and `arguments` for a get,
/// `cursor` for a list.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainParams<'a> {
    #[serde(rename = "_meta", borrow)]
    meta: PlainMeta<'a>,
    #[serde(borrow, default)]
    name: Option<&'a str>,
    #[serde(default)]
    arguments: Option<BTreeMap<String, Value>>,
    #[serde(borrow, default)]
    cursor: Option<&'a str>,
}

/// The `_meta` of a [`PlainRequest`] as far as the checks go: the members rmcp's
/// `RequestMetaObject` looks at, each at most once; any other is skipped, not kept (as a
/// map of values, with a hash of each key, it was a third of reading the body).
#[derive(Deserialize)]
struct PlainMeta<'a> {
    /// A version written with escapes is the SDK's to read.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<&'a str>,
    /// Kept as a value, to be read as rmcp reads it (`decode_value`).
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<Value>,
    /// Present at all (`null` too), as `contains_key` sees it.
    #[serde(rename = "progressToken", default, deserialize_with = "present")]
    progress_token: bool,
    #[serde(
        rename = "io.modelcontextprotocol/logLevel",
        default,
        deserialize_with = "present"
    )]
    log_level: bool,
}

impl PlainMeta<'_> {
    /// What rmcp's checks say of the same `_meta`: protocol version 2026-07-28, the required
    /// keys there (`missing_required_keys`: the version, and client capabilities that read
    /// as such), and no progress token or log level, which ask for messages before the result.
    fn is_plain(&self) -> bool {
        self.protocol_version == Some(STATELESS_VERSION)
            && self
                .client_capabilities
                .as_ref()
                .is_some_and(|c| rmcp::model::ClientCapabilities::deserialize(c).is_ok())
            && !self.progress_token
            && !self.log_level
    }
}

/// A member that is there, whatever its value.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
}

/// A request's `id` as the SDK reads one it echoes unchanged: an integer within `i64`
/// written as one, or a string.
enum PlainId<'a> {
    Number(i64),
    Text(Cow<'a, str>),
}

impl<'de: 'a, 'a> Deserialize<'de> for PlainId<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PlainId<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
                Ok(PlainId::Number(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
                // Over `i64` the SDK refuses it.
                i64::try_from(n)
                    .map(PlainId::Number)
                    .map_err(|_| E::custom("over i64"))
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(PlainId::Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(PlainId::Text(Cow::Owned(s.to_owned())))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl FastReads {
    /// Answers for `server`, on requests whose `Host` is one of `allowed_hosts` (names
    /// without a port, as given to the SDK), or any `Host` when `None`, and whose body
    /// is at most `max_body` bytes (the SDK's own limit).
    pub fn new(
        server: PromptServer,
        allowed_hosts: Option<Vec<String>>,
        max_body: usize,
    ) -> FastReads {
        FastReads {
            server,
            allowed_hosts: allowed_hosts
                .map(|hosts| hosts.iter().map(|h| normalized_host(h)).collect()),
            max_body,
            pages: Mutex::default(),
        }
    }

    /// The `prompts/list` result at `cursor` for a 2026-07-28 client, as the SDK writes it,
    /// from the built pages of the library as it is now; `None` when the page cannot be
    /// served (a bad cursor).
    fn list_page(&self, cursor: Option<&str>) -> Option<Bytes> {
        let library = self.server.library_now();
        {
            let mut built = self.pages.lock().unwrap_or_else(|e| e.into_inner());
            if !built
                .library
                .as_ref()
                .is_some_and(|l| Arc::ptr_eq(l, &library))
            {
                *built = ListPages {
                    library: Some(library.clone()),
                    pages: HashMap::new(),
                };
            }
            if let Some(page) = built.pages.get(&cursor.map(str::to_owned)) {
                return Some(page.clone());
            }
        }
        // Built outside the lock; two requests may build the same page once each.
        let page = self.server.prompts_page_of(&library, cursor, true).ok()?;
        let page = Bytes::from(serde_json::to_vec(&ServerResult::ListPromptsResult(page)).ok()?);
        let mut built = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if built
            .library
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(l, &library))
        {
            built.pages.insert(cursor.map(str::to_owned), page.clone());
        }
        Some(page)
    }

    /// Puts the direct path in front of every route `router` has so far (`/mcp`).
    #[cfg(test)]
    pub fn layer(self, router: axum::Router) -> axum::Router {
        Arc::new(self).layer_shared(router)
    }

    /// [`FastReads::layer`] for a `FastReads` also used elsewhere (router.rs's `Front`).
    pub(in crate::mcp) fn layer_shared(self: &Arc<Self>, router: axum::Router) -> axum::Router {
        router.layer(axum::middleware::from_fn_with_state(
            self.clone(),
            answer_or_pass,
        ))
    }

    /// Whether a request with this head may be one this path answers (its body decides):
    /// a `POST /mcp` of JSON whose headers are those of a plain stateless `prompts/get` or
    /// `prompts/list`.
    pub(in crate::mcp) fn takes(&self, head: &http::request::Parts) -> bool {
        head.method == http::Method::POST
            && head.uri.path() == "/mcp"
            && single(&head.headers, &MCP_METHOD)
                .is_some_and(|m| m == "prompts/get" || m == "prompts/list")
            && self.headers_qualify(&head.headers)
    }

    /// Whether the headers are those of a plain stateless request this path may answer.
    fn headers_qualify(&self, headers: &HeaderMap) -> bool {
        single(headers, &MCP_PROTOCOL_VERSION).is_some_and(|v| v == STATELESS_VERSION)
            && !headers.contains_key(MCP_SESSION_ID)
            && !headers.contains_key(LAST_EVENT_ID)
            && !headers.contains_key(header::ORIGIN)
            && single(headers, &header::CONTENT_TYPE).is_some_and(is_json_media_type)
            && accepts_json_and_event_stream(headers)
            && self.host_allowed(headers)
    }

    /// The SDK's DNS-rebinding check, or stricter: a `Host` header naming an allowed
    /// host exactly (any port).
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(authority) = single(headers, &header::HOST)
            .and_then(|host| http::uri::Authority::try_from(host).ok())
        else {
            return false;
        };
        let Some(allowed) = &self.allowed_hosts else {
            return true;
        };
        // As `normalized_host` then equality, without the lower-cased copy.
        let host = authority.host().trim_matches(['[', ']']);
        allowed.iter().any(|name| name.eq_ignore_ascii_case(host))
    }

    /// The response body for `body` with these `headers`, when this path answers it.
    pub(in crate::mcp) fn answer(&self, headers: &HeaderMap, body: &[u8]) -> Option<Bytes> {
        if body.len() > self.max_body {
            return None;
        }
        let request = serde_json::from_slice::<PlainRequest>(body).ok()?;
        let params = request.params;
        let plain = request.jsonrpc == "2.0"
            && params.meta.is_plain()
            && single(headers, &MCP_METHOD) == Some(request.method);
        if !plain {
            return None;
        }
        // `{"jsonrpc":"2.0","id":…,"result":` then the result, as the SDK writes
        // `ServerJsonRpcMessage::Response` (a test holds the two to the same bytes).
        let mut reply = Vec::with_capacity(1024);
        reply.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        match &request.id {
            PlainId::Number(n) => serde_json::to_writer(&mut reply, n).ok()?,
            PlainId::Text(s) => serde_json::to_writer(&mut reply, s).ok()?,
        }
        reply.extend_from_slice(br#","result":"#);
        match (request.method, params.name, params.cursor) {
            ("prompts/list", None, cursor) if params.arguments.is_none() => {
                reply.extend_from_slice(&self.list_page(cursor)?);
            }
            ("prompts/get", Some(name), None) => {
                let named_plainly =
                    single(headers, &MCP_NAME) == Some(name) && !name.starts_with("=?");
                if !named_plainly {
                    return None;
                }
                let arguments = params.arguments.unwrap_or_default();
                let filled = self.server.rendered_prompt(name, arguments).ok()?;
                if !write_text_result(&mut reply, &filled) {
                    // Another kind of content: through the SDK's types, as its handler does.
                    let result = crate::mcp::server::service::prompt_result(filled, true).ok()?;
                    serde_json::to_writer(&mut reply, &ServerResult::GetPromptResult(result))
                        .ok()?;
                }
            }
            _ => return None,
        }
        reply.push(b'}');
        Some(Bytes::from(reply))
    }
}

/// Writes `filled` as the SDK writes a 2026-07-28 `prompts/get` result when each message
/// is plain text (no annotations, no `_meta`) from `user` or `assistant`, as the built-in
/// prompts and prompt files give; false, with nothing written, for anything else. Strings
/// go through serde_json, as the SDK's do; a test holds the two to the same bytes.
fn write_text_result(out: &mut Vec<u8>, filled: &PromptMessages) -> bool {
    let plain = filled.messages.iter().all(|m| {
        m.role.is_mcp()
            && matches!(
                &m.content,
                Content::Known(KnownContent::Text {
                    annotations: None,
                    meta: None,
                    ..
                })
            )
    });
    if !plain {
        return false;
    }
    out.extend_from_slice(br#"{"resultType":"complete""#);
    if let Some(description) = &filled.description {
        out.extend_from_slice(br#","description":"#);
        let _ = serde_json::to_writer(&mut *out, description);
    }
    out.extend_from_slice(br#","messages":["#);
    for (i, message) in filled.messages.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"role":"#);
        let _ = serde_json::to_writer(&mut *out, message.role.as_str());
        out.extend_from_slice(br#","content":{"type":"text","text":"#);
        if let Content::Known(KnownContent::Text { text, .. }) = &message.content {
            let _ = serde_json::to_writer(&mut *out, text);
        }
        out.extend_from_slice(b"}}");
    }
    out.extend_from_slice(b"]}");
    true
}

/// The middleware: answers a qualifying `POST /mcp` itself, hands anything else on, and
/// gives a JSON body the SDK cannot read the JSON-RPC error it deserves.
async fn answer_or_pass(
    State(fast): State<Arc<FastReads>>,
    request: Request,
    next: Next,
) -> Response {
    let json_post = request.method() == http::Method::POST
        && request.uri().path() == "/mcp"
        && single(request.headers(), &header::CONTENT_TYPE).is_some_and(is_json_media_type);
    if !json_post {
        return next.run(request).await;
    }
    let qualifies = fast.headers_qualify(request.headers());
    let (parts, body) = request.into_parts();
    // The limits in front have read the body whole already; this only takes it out.
    let Ok(collected) = http_body_util::BodyExt::collect(body).await else {
        return plain_response(
            StatusCode::BAD_REQUEST,
            "the request body could not be read",
        );
    };
    let bytes = collected.to_bytes();
    if qualifies && let Some(answer) = fast.answer(&parts.headers, &bytes) {
        return Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(answer))
            .unwrap_or_else(|_| plain_response(StatusCode::INTERNAL_SERVER_ERROR, ""));
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    // The SDK says 415 `fail to deserialize` in text/plain for a JSON body it cannot read
    // (its other checks, Host, Origin, Accept, come first and keep their answers).
    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return unreadable_message(&bytes);
    }
    response
}

/// HTTP 400 with the JSON-RPC error for a body that is not a message MCP takes: `-32700`
/// when it is not JSON at all (a BOM too), `-32600` for a batch or anything else (a null or
/// out-of-range `id`, no `method`), with `id: null`, as JSON-RPC 2.0 and the transport say.
/// The body's text is never echoed: the parser says where it stopped, not what it read.
pub(in crate::mcp) fn unreadable_message(body: &[u8]) -> Response {
    let (code, message) = match serde_json::from_slice::<serde_json::Value>(body) {
        Err(error) => (
            -32700,
            format!("Parse error: the body is not JSON ({error})"),
        ),
        Ok(serde_json::Value::Array(_)) => (
            -32600,
            "Invalid Request: a batch; MCP takes one JSON-RPC message per request (batches \
             were removed in 2025-06-18)"
                .to_string(),
        ),
        Ok(_) => (
            -32600,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response MCP takes \
             (`\"jsonrpc\": \"2.0\"`, an `id` that is a string or an integer, a `method`)"
                .to_string(),
        ),
    };
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message },
    });
    Response::builder()
        .status(StatusCode::BAD_REQUEST)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(error.to_string()))
        .unwrap_or_else(|_| plain_response(StatusCode::BAD_REQUEST, ""))
}

fn plain_response(status: StatusCode, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
}

/// The one value of header `name`, as text; `None` if absent, repeated or not text.
fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok()
}

/// `application/json`, with or without parameters (`; charset=utf-8`).
fn is_json_media_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default();
    essence.trim().eq_ignore_ascii_case("application/json")
}

/// An `Accept` that lists both `application/json` and `text/event-stream` plainly: any
/// parameter (a quality weight, a quoted string) leaves the reading to the SDK.
fn accepts_json_and_event_stream(headers: &HeaderMap) -> bool {
    let (mut json, mut event_stream) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for entry in value.split(',') {
            if entry.contains([';', '"']) {
                return false;
            }
            let entry = entry.trim();
            json |= entry.eq_ignore_ascii_case("application/json");
            event_stream |= entry.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && event_stream
}

/// A host name as the SDK compares it: brackets off, lower case.
fn normalized_host(host: &str) -> String {
    host.trim_matches(['[', ']']).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;
    use proptest::prelude::*;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use serde_json::{Value, json};
    use tokio_util::sync::CancellationToken;
    use tower::ServiceExt as _;

    use super::*;

    /// Two prompts a page, so `prompts/list` has cursors to follow.
    const PAGE_SIZE: usize = 2;

    fn server() -> PromptServer {
        let library = crate::library::SharedLibrary::new(crate::library::builtin_library());
        PromptServer::new(library, PAGE_SIZE)
    }

    fn config() -> StreamableHttpServerConfig {
        StreamableHttpServerConfig::default()
            .with_cancellation_token(CancellationToken::new())
            .with_stateless_protocol_metadata_required(true)
            .with_json_response(true)
            .with_allowed_hosts(["localhost".to_string(), "127.0.0.1".into()])
            .with_allowed_origins(["http://localhost:*".to_string()])
            .enforce_origin_validation()
    }

    /// The route `serve --http` serves: the direct path in front of the SDK.
    fn served() -> axum::Router {
        crate::mcp::server::router::mcp_router(
            server(),
            config(),
            &crate::mcp::HttpLimits::default(),
        )
    }

    /// The SDK's service alone.
    fn sdk_only() -> axum::Router {
        let server = server();
        let sessions = crate::mcp::server::limits::sessions(&crate::mcp::HttpLimits::default());
        let service =
            StreamableHttpService::new(move || Ok(server.clone()), sessions.into(), config());
        axum::Router::new().nest_service("/mcp", service)
    }

    /// The direct path in front of a route that answers 418: what reaches it was passed on.
    fn direct_or_teapot() -> axum::Router {
        let fast = FastReads::new(server(), Some(vec!["localhost".into()]), 1 << 20);
        let teapot = axum::Router::new().route(
            "/mcp",
            axum::routing::post(|| async { StatusCode::IM_A_TEAPOT }),
        );
        fast.layer(teapot)
    }

    /// What a 2026-07-28 client sends for `prompts/get` of `explain-error`.
    fn plain_get() -> (Vec<(&'static str, String)>, Value) {
        let headers = vec![
            ("host", "localhost:8080".to_string()),
            ("accept", "application/json, text/event-stream".into()),
            ("content-type", "application/json".into()),
            ("mcp-protocol-version", STATELESS_VERSION.into()),
            ("mcp-method", "prompts/get".into()),
            ("mcp-name", "explain-error".into()),
        ];
        let body = json!({
            "jsonrpc": "2.0", "id": 7, "method": "prompts/get",
            "params": {
                "name": "explain-error",
                "arguments": { "error": "segfault" },
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        });
        (headers, body)
    }

    fn request(headers: &[(&'static str, String)], body: &Value) -> Request {
        let mut request = http::Request::builder().method("POST").uri("/mcp");
        for (name, value) in headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                request = request.header(*name, value);
            }
        }
        request.body(Body::from(body.to_string())).unwrap()
    }

    /// Status, content type and body bytes of `router`'s answer.
    async fn answer(
        router: axum::Router,
        request: Request,
    ) -> (StatusCode, Option<String>, Vec<u8>) {
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_string());
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        (status, content_type, body)
    }

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(future)
    }

    #[test]
    fn a_plain_get_and_list_are_answered_here_with_the_sdks_bytes() {
        run(async {
            let (headers, body) = plain_get();
            let direct = answer(direct_or_teapot(), request(&headers, &body)).await;
            let sdk = answer(sdk_only(), request(&headers, &body)).await;
            assert_eq!(
                direct.0,
                StatusCode::OK,
                "{}",
                String::from_utf8_lossy(&direct.2)
            );
            assert_eq!(direct, sdk);
            let filled: Value = serde_json::from_slice(&direct.2).unwrap();
            assert_eq!(filled["id"], 7);
            assert_eq!(filled["result"]["resultType"], "complete");
            assert!(
                filled["result"]["messages"]
                    .to_string()
                    .contains("segfault"),
                "{filled}"
            );

            let mut headers = headers;
            headers.retain(|(name, _)| *name != "mcp-name");
            set_header(&mut headers, "mcp-method", "prompts/list");
            let list = json!({
                "jsonrpc": "2.0", "id": "a", "method": "prompts/list",
                "params": { "_meta": body["params"]["_meta"] },
            });
            let router = direct_or_teapot();
            let sdk = answer(sdk_only(), request(&headers, &list)).await;
            // The second time from the page built the first.
            for _ in 0..2 {
                let direct = answer(router.clone(), request(&headers, &list)).await;
                assert_eq!(direct.0, StatusCode::OK);
                assert_eq!(direct, sdk);
            }
            let direct = sdk;
            let page: Value = serde_json::from_slice(&direct.2).unwrap();
            assert_eq!(
                page["result"]["prompts"].as_array().unwrap().len(),
                PAGE_SIZE
            );
            assert!(page["result"]["nextCursor"].is_string(), "{page}");
        });
    }

    #[test]
    fn anything_short_of_plain_is_passed_on_to_the_sdk() {
        type Change = fn(&mut Vec<(&'static str, String)>, &mut Value);
        use set_header as set;
        let changes: &[(&str, Change)] = &[
            ("an Origin", |h, _| {
                h.push(("origin", "http://localhost:1".into()))
            }),
            ("a session", |h, _| h.push(("mcp-session-id", "s".into()))),
            ("another Host", |h, _| set(h, "host", "evil.example")),
            ("no Host", |h, _| h.retain(|(n, _)| *n != "host")),
            ("an older version header", |h, _| {
                set(h, "mcp-protocol-version", "2025-11-25")
            }),
            ("no version header", |h, _| {
                h.retain(|(n, _)| *n != "mcp-protocol-version")
            }),
            ("two version headers", |h, _| {
                h.push(("mcp-protocol-version", STATELESS_VERSION.into()))
            }),
            ("a weighted Accept", |h, _| {
                set(h, "accept", "application/json, text/event-stream;q=0")
            }),
            ("an Accept without SSE", |h, _| {
                set(h, "accept", "application/json")
            }),
            ("another content type", |h, _| {
                set(h, "content-type", "text/plain")
            }),
            ("another Mcp-Method", |h, _| {
                set(h, "mcp-method", "prompts/list")
            }),
            ("no Mcp-Name", |h, _| h.retain(|(n, _)| *n != "mcp-name")),
            ("a Base64 Mcp-Name", |h, _| {
                set(h, "mcp-name", "=?base64?ZXhwbGFpbi1lcnJvcg==?=")
            }),
            ("an older _meta version", |_, b| {
                b["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] =
                    json!("2025-11-25")
            }),
            ("no client capabilities", |_, b| {
                b["params"]["_meta"]
                    .as_object_mut()
                    .unwrap()
                    .remove("io.modelcontextprotocol/clientCapabilities");
            }),
            ("a progress token", |_, b| {
                b["params"]["_meta"]["progressToken"] = json!(1)
            }),
            ("a null progress token", |_, b| {
                b["params"]["_meta"]["progressToken"] = json!(null)
            }),
            ("client capabilities that are not any", |_, b| {
                b["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!(5)
            }),
            ("a log level", |_, b| {
                b["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug")
            }),
            ("an unknown prompt", |h, b| {
                b["params"]["name"] = json!("no-such-prompt");
                set(h, "mcp-name", "no-such-prompt");
            }),
            ("a missing argument", |_, b| {
                b["params"]["arguments"] = json!({})
            }),
            ("a notification", |_, b| {
                b.as_object_mut().unwrap().remove("id");
            }),
        ];
        run(async {
            for (what, change) in changes {
                let (mut headers, mut body) = plain_get();
                change(&mut headers, &mut body);
                let (status, _, text) = answer(direct_or_teapot(), request(&headers, &body)).await;
                assert_eq!(
                    status,
                    StatusCode::IM_A_TEAPOT,
                    "a request with {what} was answered here: {}",
                    String::from_utf8_lossy(&text)
                );
            }
        });
    }

    #[test]
    fn a_list_after_a_change_on_disk_is_the_new_list() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("first.prompt.md"),
            "---\ndescription: One\n---\nhi",
        )
        .unwrap();
        let paths = [folder.path().to_path_buf()];
        let library = crate::library::SharedLibrary::new(crate::library::load_paths(&paths));
        let fast = FastReads::new(PromptServer::new(library.clone(), PAGE_SIZE), None, 1 << 20);
        let router = fast.layer(axum::Router::new());
        let (mut headers, _) = plain_get();
        headers.retain(|(name, _)| *name != "mcp-name");
        set_header(&mut headers, "mcp-method", "prompts/list");
        let list = json!({
            "jsonrpc": "2.0", "id": 1, "method": "prompts/list",
            "params": { "_meta": plain_get().1["params"]["_meta"] },
        });
        let names = |body: &[u8]| -> Vec<String> {
            let page: Value = serde_json::from_slice(body).unwrap();
            page["result"]["prompts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_string())
                .collect()
        };
        run(async {
            let before = answer(router.clone(), request(&headers, &list)).await;
            assert_eq!(names(&before.2), ["first"]);
            std::fs::write(
                folder.path().join("second.prompt.md"),
                "---\ndescription: Two\n---\nho",
            )
            .unwrap();
            assert!(library.replace(crate::library::load_paths(&paths)));
            let after = answer(router.clone(), request(&headers, &list)).await;
            assert_eq!(names(&after.2), ["first", "second"]);
        });
    }

    fn set_header(headers: &mut [(&'static str, String)], header: &str, value: &str) {
        headers
            .iter_mut()
            .filter(|(name, _)| *name == header)
            .for_each(|(_, v)| *v = value.into());
    }

    /// Variations of a 2026-07-28 `prompts/get` or `prompts/list`, each part right or wrong.
    fn variations() -> impl Strategy<Value = (Vec<(&'static str, String)>, Value)> {
        let names = prop_oneof![
            4 => Just("explain-error"),
            1 => Just("no-such-prompt"),
            1 => Just("=?base64?ZXhwbGFpbi1lcnJvcg==?="),
        ];
        // Weighted towards right parts, so that many cases are answered on the direct path.
        let arguments = prop_oneof![
            4 => Just(json!({ "error": "segfault" })),
            1 => Just(json!({})),
            1 => Just(json!({ "error": 5 })),
            1 => Just(Value::Null),
        ];
        let cursors = prop_oneof![Just(None), Just(Some("not-a-cursor")), Just(Some(""))];
        let versions = prop_oneof![
            4 => Just(STATELESS_VERSION),
            1 => proptest::sample::select(&["2025-11-25", ""][..]),
        ];
        let header_sets = proptest::collection::vec(
            (
                proptest::sample::select(
                    &[
                        "host",
                        "accept",
                        "content-type",
                        "mcp-protocol-version",
                        "mcp-method",
                        "mcp-name",
                        "origin",
                        "mcp-session-id",
                    ][..],
                ),
                proptest::sample::select(
                    &[
                        "",
                        "localhost",
                        "127.0.0.1:9",
                        "evil.example",
                        "application/json, text/event-stream",
                        "application/json;q=1, text/event-stream;q=0.5",
                        "application/json; charset=utf-8",
                        "text/event-stream",
                        "2026-07-28",
                        "prompts/get",
                        "prompts/list",
                        "explain-error",
                        "http://localhost:3",
                    ][..],
                ),
                any::<bool>(),
            ),
            0..3,
        );
        (
            any::<bool>(),
            names,
            arguments,
            cursors,
            versions,
            (
                // Client capabilities: right, missing, or not capabilities at all.
                prop_oneof![
                    1 => Just(None),
                    8 => Just(Some(json!({}))),
                    1 => Just(Some(json!(null))),
                    1 => Just(Some(json!(5))),
                    1 => Just(Some(json!({ "roots": { "listChanged": true } }))),
                    1 => Just(Some(json!({ "roots": 5 }))),
                ],
                // Another `_meta` member, one that asks for more or one that does not.
                prop_oneof![
                    6 => Just(None),
                    1 => Just(Some(("progressToken", json!(null)))),
                    1 => Just(Some(("io.modelcontextprotocol/logLevel", json!("debug")))),
                    1 => Just(Some(("traceparent", json!("00-x")))),
                ],
            ),
            prop_oneof![
                Just(json!(3)),
                Just(json!(-3)),
                Just(json!(3.0)),
                Just(json!(u64::MAX)),
                Just(json!("id")),
                Just(json!("é\"\\\n")),
                Just(json!(null)),
            ],
            header_sets,
            // A member the shape read here does not take (the SDK reads or ignores it).
            prop_oneof![
                4 => Just(None),
                1 => proptest::sample::select(
                    &["extra", "cursor", "name", "arguments", "requestState"][..]
                )
                .prop_map(Some),
            ],
            any::<bool>(),
        )
            .prop_map(
                |(
                    list,
                    name,
                    arguments,
                    cursor,
                    version,
                    capabilities,
                    id,
                    changes,
                    extra,
                    top,
                )| {
                    let method = if list { "prompts/list" } else { "prompts/get" };
                    let mut meta = json!({ "io.modelcontextprotocol/protocolVersion": version });
                    let (capabilities, meta_member) = capabilities;
                    if let Some(capabilities) = capabilities {
                        meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
                    }
                    if let Some((member, value)) = meta_member {
                        meta[member] = value;
                    }
                    let mut params = json!({ "_meta": meta });
                    if list {
                        if let Some(cursor) = cursor {
                            params["cursor"] = json!(cursor);
                        }
                    } else {
                        params["name"] = json!(name);
                        if !arguments.is_null() {
                            params["arguments"] = arguments;
                        }
                    }
                    let mut body =
                        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
                    if let Some(member) = extra {
                        let target = if top { &mut body } else { &mut body["params"] };
                        target[member] = json!("0");
                    }
                    let mut headers = vec![
                        ("host", "localhost".to_string()),
                        ("accept", "application/json, text/event-stream".into()),
                        ("content-type", "application/json".into()),
                        ("mcp-protocol-version", STATELESS_VERSION.into()),
                        ("mcp-method", method.into()),
                    ];
                    if !list {
                        headers.push(("mcp-name", name.into()));
                    }
                    for (header, value, replace) in changes {
                        if replace {
                            headers.retain(|(n, _)| *n != header);
                        }
                        headers.push((header, value.to_string()));
                    }
                    (headers, body)
                },
            )
    }

    /// A request whose body is `raw`, with `plain_get`'s headers.
    fn raw_request(raw: &[u8]) -> Request {
        let mut request = http::Request::builder().method("POST").uri("/mcp");
        for (name, value) in plain_get().0 {
            request = request.header(name, value);
        }
        request.body(Body::from(raw.to_vec())).unwrap()
    }

    #[test]
    fn a_body_that_is_no_mcp_message_gets_400_and_the_json_rpc_error_on_both_paths() {
        let mut legacy = plain_get().0;
        set_header(&mut legacy, "mcp-protocol-version", "2025-11-25");
        let bom = [
            b"\xef\xbb\xbf".as_slice(),
            plain_get().1.to_string().as_bytes(),
        ]
        .concat();
        let mut null_id = plain_get().1;
        null_id["id"] = Value::Null;
        let null_id = null_id.to_string();
        let mut huge_id = plain_get().1.to_string();
        huge_id = huge_id.replace("\"id\":7", "\"id\":9223372036854775808");
        let cases: [(&[u8], i64); 5] = [
            (b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\":", -32700),
            (&bom, -32700),
            (
                b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                -32600,
            ),
            (null_id.as_bytes(), -32600),
            (huge_id.as_bytes(), -32600),
        ];
        run(async {
            for (raw, code) in cases {
                for headers in [plain_get().0, legacy.clone()] {
                    let mut request = raw_request(raw);
                    *request.headers_mut() = HeaderMap::new();
                    for (name, value) in &headers {
                        request
                            .headers_mut()
                            .insert(*name, HeaderValue::from_str(value).unwrap());
                    }
                    let (status, content_type, body) = answer(served(), request).await;
                    let text = String::from_utf8_lossy(raw);
                    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
                    assert_eq!(content_type.as_deref(), Some("application/json"));
                    let error: Value = serde_json::from_slice(&body).unwrap();
                    assert_eq!(error["jsonrpc"], "2.0");
                    assert!(error["id"].is_null(), "{error}");
                    assert_eq!(
                        error["error"]["code"].as_i64(),
                        Some(code),
                        "{text}: {error}"
                    );
                }
            }
        });
    }

    #[test]
    fn a_body_over_4_mib_is_taken_when_max_body_allows_it() {
        let limits = crate::mcp::HttpLimits {
            max_body: 16 << 20,
            ..crate::mcp::HttpLimits::default()
        };
        let router = crate::mcp::server::router::mcp_router(server(), config(), &limits);
        let (headers, mut body) = plain_get();
        body["params"]["arguments"]["error"] = json!("x".repeat(5 << 20));
        let mut legacy = headers.clone();
        set_header(&mut legacy, "mcp-protocol-version", "2025-11-25");
        run(async {
            // The direct path, and the SDK's (where the SDK's own 4 MiB default refused it).
            for headers in [headers, legacy] {
                let (status, _, reply) = answer(router.clone(), request(&headers, &body)).await;
                assert_ne!(
                    status,
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "{}",
                    String::from_utf8_lossy(&reply[..reply.len().min(300)])
                );
            }
        });
    }

    /// Values that JSON writes with escapes, or not at all in ASCII.
    const AWKWARD: [&str; 4] = [
        "a \"quoted\" \\ back\\slash\n\ttab \u{1} \u{7f}",
        "é ü 漢字 \u{1F600} \u{2028}\u{2029}",
        "</script><!-- & ' `",
        "",
    ];

    #[test]
    fn text_results_are_written_as_the_sdk_writes_them() {
        let server = server();
        let library = server.library_now();
        let mut written = 0;
        for prompt in library.prompts() {
            for value in AWKWARD {
                let arguments: BTreeMap<String, Value> = prompt
                    .arguments
                    .iter()
                    .map(|a| (a.name.clone(), json!(value)))
                    .collect();
                let filled = server.rendered_prompt(&prompt.name, arguments).unwrap();
                let sdk = crate::mcp::server::service::prompt_result(filled.clone(), true).unwrap();
                let sdk = serde_json::to_vec(&ServerResult::GetPromptResult(sdk)).unwrap();
                let mut direct = Vec::new();
                if write_text_result(&mut direct, &filled) {
                    written += 1;
                    assert_eq!(
                        String::from_utf8_lossy(&direct),
                        String::from_utf8_lossy(&sdk),
                        "{} with {value:?}",
                        prompt.name
                    );
                } else {
                    assert!(direct.is_empty());
                }
            }
        }
        assert!(written >= 4 * 5, "only {written} results were plain text");
    }

    #[test]
    fn only_plain_text_from_user_or_assistant_is_written_directly() {
        let message = |role: &str, content: Value| json!({ "role": role, "content": content });
        let text = json!({ "type": "text", "text": "hi" });
        let plain = json!({
            "messages": [message("user", text.clone()), message("assistant", text.clone())],
        });
        let not_plain = [
            json!({ "messages": [message("system", text.clone())] }),
            json!({ "messages": [message("user", json!({
                "type": "text", "text": "hi", "annotations": { "priority": 1.0 },
            }))] }),
            json!({ "messages": [message("user", json!({
                "type": "text", "text": "hi", "_meta": { "a": 1 },
            }))] }),
            json!({ "messages": [message("user", json!({
                "type": "image", "data": "aGk=", "mimeType": "image/png",
            }))] }),
        ];
        let filled: PromptMessages = serde_json::from_value(plain).unwrap();
        let mut out = Vec::new();
        assert!(write_text_result(&mut out, &filled));
        let sdk = crate::mcp::server::service::prompt_result(filled, true).unwrap();
        assert_eq!(
            out,
            serde_json::to_vec(&ServerResult::GetPromptResult(sdk)).unwrap()
        );
        for other in not_plain {
            let filled: PromptMessages = serde_json::from_value(other.clone()).unwrap();
            let mut out = Vec::new();
            assert!(!write_text_result(&mut out, &filled), "{other}");
            assert!(out.is_empty());
        }
    }

    #[test]
    fn the_answer_carries_the_request_id_as_the_sdk_writes_it() {
        use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, NumberOrString};
        let fast = FastReads::new(server(), None, 1 << 20);
        let (mut headers, _) = plain_get();
        headers.retain(|(name, _)| *name != "mcp-name");
        set_header(&mut headers, "mcp-method", "prompts/list");
        let mut map = HeaderMap::new();
        for (name, value) in &headers {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        let meta = &plain_get().1["params"]["_meta"];
        let page = fast.list_page(None).unwrap();
        let page: ServerResult = serde_json::from_slice(&page).unwrap();
        let ids = [
            ("0", NumberOrString::Number(0)),
            ("-1", NumberOrString::Number(-1)),
            ("9223372036854775807", NumberOrString::Number(i64::MAX)),
            ("-9223372036854775808", NumberOrString::Number(i64::MIN)),
            (r#""x""#, NumberOrString::String("x".into())),
            (r#""\u0041\"\\""#, NumberOrString::String("A\"\\".into())),
        ];
        let mut ids: Vec<(String, NumberOrString)> = ids
            .into_iter()
            .map(|(raw, id)| (raw.to_string(), id))
            .collect();
        for value in AWKWARD {
            ids.push((
                json!(value).to_string(),
                NumberOrString::String(value.into()),
            ));
        }
        for (raw, id) in ids {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{raw},"method":"prompts/list","params":{{"_meta":{meta}}}}}"#
            );
            let direct = fast.answer(&map, body.as_bytes()).expect(&body);
            let sdk = JsonRpcResponse {
                jsonrpc: JsonRpcVersion2_0,
                id,
                result: &page,
            };
            assert_eq!(
                String::from_utf8_lossy(&direct),
                serde_json::to_string(&sdk).unwrap(),
                "{raw}"
            );
        }
    }

    #[test]
    fn a_body_outside_the_one_shape_read_here_is_passed_on() {
        let (headers, body) = plain_get();
        let plain = body.to_string();
        let meta = body["params"]["_meta"].to_string();
        let get = |rest: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"explain-error","arguments":{{"error":"x"}},"_meta":{meta}{rest}}}}}"#
            )
        };
        let cases = [
            plain.replacen('{', r#"{"extra":1,"#, 1),
            plain.replacen(r#""id":7"#, r#""id":7,"id":8"#, 1),
            plain.replacen(r#""id":7"#, r#""id":7.0"#, 1),
            plain.replacen(r#""id":7"#, r#""id":9223372036854775808"#, 1),
            plain.replacen(r#""id":7"#, r#""id":true"#, 1),
            plain.replacen(r#""2.0""#, r#""2.1""#, 1),
            plain.replacen(r#""prompts/get""#, r#""prompts\/get""#, 1),
            get(r#","inputResponses":{}"#),
            get(r#","requestState":"s""#),
            get(r#","cursor":"0""#),
            get(r#","name":"explain-error""#),
            get(r#","arguments":{}"#),
        ];
        run(async {
            for raw in cases {
                let mut request = http::Request::builder().method("POST").uri("/mcp");
                for (name, value) in &headers {
                    request = request.header(*name, value);
                }
                let request = request.body(Body::from(raw.clone())).unwrap();
                let (status, _, _) = answer(direct_or_teapot(), request).await;
                assert_eq!(status, StatusCode::IM_A_TEAPOT, "{raw} was answered here");
            }
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 400,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Whatever the request, `serve --http` answers exactly as the SDK alone would.
        #[test]
        fn the_direct_path_answers_as_the_sdk_does((headers, body) in variations()) {
            let (served, sdk) = run(async {
                let served = answer(served(), request(&headers, &body)).await;
                let sdk = answer(sdk_only(), request(&headers, &body)).await;
                (served, sdk)
            });
            let content_types: Vec<&String> =
                headers.iter().filter(|(n, _)| *n == "content-type").map(|(_, v)| v).collect();
            if sdk.0 == StatusCode::UNSUPPORTED_MEDIA_TYPE
                && content_types.len() == 1
                && is_json_media_type(content_types[0])
            {
                // Where the SDK cannot read a JSON body, the JSON-RPC error instead.
                let error: Value = serde_json::from_slice(&served.2).unwrap();
                prop_assert_eq!(served.0, StatusCode::BAD_REQUEST);
                prop_assert_eq!(error["error"]["code"].as_i64(), Some(-32600), "{}", error);
                prop_assert!(error["id"].is_null());
                return Ok(());
            }
            let with_session = headers.iter().any(|(n, _)| *n == "mcp-session-id");
            if with_session && sdk.0 == StatusCode::NOT_FOUND && sdk.1.is_none() {
                // A session the SDK does not have: the same 404, with a JSON-RPC error body
                // (`router::session_gone_as_json_rpc`) instead of the SDK's plain text.
                let error: Value = serde_json::from_slice(&served.2).unwrap();
                prop_assert_eq!(served.0, StatusCode::NOT_FOUND);
                prop_assert_eq!(served.1.as_deref(), Some("application/json"));
                prop_assert_eq!(error["error"]["code"].as_i64(), Some(-32001), "{}", error);
                return Ok(());
            }
            prop_assert_eq!(
                (served.0, served.1, String::from_utf8_lossy(&served.2).into_owned()),
                (sdk.0, sdk.1, String::from_utf8_lossy(&sdk.2).into_owned()),
                "headers {:?}, body {}", headers, body
            );
        }
    }
}
