//! A direct answer, beside the SDK, for the two requests a shared prompt library gets
//! most: a 2026-07-28 (stateless) `prompts/list` or `prompts/get` over `serve --http`.
//!
//! rmcp's Streamable HTTP service answers every stateless request by starting a whole
//! service for it (a task, channels, a one-message transport and its serve loop); on
//! this 2-core machine that, with the allocations it makes, was most of the CPU a
//! request cost, and kept 64 connections near 13,000 requests/s. Here such a request is
//! parsed with the SDK's own message types and answered by the same [`PromptServer`]
//! code the SDK's handler calls, serialized as the SDK serializes it: the same bytes,
//! without the machinery.
//!
//! Only a request that the SDK would certainly answer with that result is taken: every
//! check below is as strict as the SDK's or stricter (a plain `Accept` listing both
//! types, the protocol version header and `_meta` both 2026-07-28, `Mcp-Method` and
//! `Mcp-Name` exactly as the body says, an allowed `Host`, no `Origin`, no session, no
//! progress token or log level) and the result must be a success. Anything else,
//! errors included, goes on to the SDK untouched, so its error shapes stay its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::{HeaderMap, StatusCode, header};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, JsonRpcResponse,
    JsonRpcVersion2_0, ProtocolVersion, ServerResult,
};

use crate::library::Library;
use crate::mcp::server::service::PromptServer;

/// The protocol revision whose requests are stateless, the only one answered here.
const STATELESS_VERSION: &str = "2026-07-28";

/// What the direct path needs: the server whose answers it gives, the `Host` names the
/// SDK is told to accept (`None`: any, as with `--allow-remote`) and the largest body
/// the SDK reads.
pub struct FastReads {
    server: PromptServer,
    allowed_hosts: Option<Vec<String>>,
    max_body: usize,
    pages: Mutex<ListPages>,
}

/// The `prompts/list` pages of one library, built once: a page only changes with the
/// library (each change on disk makes a new one), and building it (every prompt and
/// argument as JSON, then as the SDK's types) was most of what a list request cost.
#[derive(Default)]
struct ListPages {
    library: Option<Arc<Library>>,
    /// By cursor; only pages that were served, so no more than the library has: a page
    /// has one cursor ([`crate::library::cursor_offset`] refuses other spellings), so no
    /// client can grow this by sending `0`, `00`, `+0`…
    pages: HashMap<Option<String>, Arc<ServerResult>>,
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

    /// The `prompts/list` result at `cursor` for a 2026-07-28 client, from the built pages
    /// of the library as it is now; `None` when the page cannot be served (a bad cursor).
    fn list_page(&self, cursor: Option<&str>) -> Option<Arc<ServerResult>> {
        let library = self.server.library_now();
        let key = cursor.map(str::to_owned);
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
            if let Some(page) = built.pages.get(&key) {
                return Some(page.clone());
            }
        }
        // Built outside the lock; two requests may build the same page once each.
        let page = self.server.prompts_page_of(&library, cursor, true).ok()?;
        let page = Arc::new(ServerResult::ListPromptsResult(page));
        let mut built = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if built
            .library
            .as_ref()
            .is_some_and(|l| Arc::ptr_eq(l, &library))
        {
            built.pages.insert(key, page.clone());
        }
        Some(page)
    }

    /// Puts the direct path in front of every route `router` has so far (`/mcp`).
    pub fn layer(self, router: axum::Router) -> axum::Router {
        router.layer(axum::middleware::from_fn_with_state(
            Arc::new(self),
            answer_or_pass,
        ))
    }

    /// Whether the headers are those of a plain stateless request this path may answer.
    fn headers_qualify(&self, headers: &HeaderMap) -> bool {
        single(headers, "mcp-protocol-version").is_some_and(|v| v == STATELESS_VERSION)
            && !headers.contains_key("mcp-session-id")
            && !headers.contains_key("last-event-id")
            && !headers.contains_key(header::ORIGIN)
            && single(headers, header::CONTENT_TYPE.as_str()).is_some_and(is_json_media_type)
            && accepts_json_and_event_stream(headers)
            && self.host_allowed(headers)
    }

    /// The SDK's DNS-rebinding check, or stricter: a `Host` header naming an allowed
    /// host exactly (any port).
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(authority) = single(headers, header::HOST.as_str())
            .and_then(|host| http::uri::Authority::try_from(host).ok())
        else {
            return false;
        };
        let Some(allowed) = &self.allowed_hosts else {
            return true;
        };
        let host = normalized_host(authority.host());
        allowed.contains(&host)
    }

    /// The response body for `body` with these `headers`, when this path answers it.
    fn answer(&self, headers: &HeaderMap, body: &[u8]) -> Option<Vec<u8>> {
        if body.len() > self.max_body {
            return None;
        }
        let Ok(JsonRpcMessage::Request(request)) =
            serde_json::from_slice::<ClientJsonRpcMessage>(body)
        else {
            return None;
        };
        let meta = request.request.get_meta();
        let plain_meta = meta.protocol_version() == Some(ProtocolVersion::V_2026_07_28)
            && meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty()
            // A progress token or a log level asks for messages before the result.
            && !meta.contains_key("progressToken")
            && !meta.contains_key("io.modelcontextprotocol/logLevel");
        if !plain_meta {
            return None;
        }
        let result = match request.request {
            ClientRequest::ListPromptsRequest(list) => {
                if single(headers, "mcp-method") != Some("prompts/list") {
                    return None;
                }
                let cursor = list.params.as_ref().and_then(|p| p.cursor.as_deref());
                self.list_page(cursor)?
            }
            ClientRequest::GetPromptRequest(get) => {
                let name = &get.params.name;
                let named_plainly =
                    single(headers, "mcp-name") == Some(name.as_str()) && !name.starts_with("=?");
                if single(headers, "mcp-method") != Some("prompts/get") || !named_plainly {
                    return None;
                }
                let filled = self.server.filled_prompt(get.params, true).ok()?;
                Arc::new(ServerResult::GetPromptResult(filled))
            }
            _ => return None,
        };
        // What the SDK writes for `ServerJsonRpcMessage::Response` (a test holds the two
        // to the same bytes), with the result borrowed from the built page.
        let reply = JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: request.id,
            result: &*result,
        };
        serde_json::to_vec(&reply).ok()
    }
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
        && single(request.headers(), header::CONTENT_TYPE.as_str()).is_some_and(is_json_media_type);
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
fn single<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
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
            proptest::bool::weighted(0.8),
            prop_oneof![Just(json!(3)), Just(json!("id")), Just(json!(null))],
            header_sets,
        )
            .prop_map(
                |(list, name, arguments, cursor, version, capabilities, id, changes)| {
                    let method = if list { "prompts/list" } else { "prompts/get" };
                    let mut meta = json!({ "io.modelcontextprotocol/protocolVersion": version });
                    if capabilities {
                        meta["io.modelcontextprotocol/clientCapabilities"] = json!({});
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
                    let body =
                        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
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
