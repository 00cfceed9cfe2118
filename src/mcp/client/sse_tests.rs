//! Tests of sse.rs.

use super::*;

#[tokio::test]
async fn an_html_error_page_is_read_as_its_text_before_it_is_cut() {
    let style = "p { margin: 0 } ".repeat(40);
    let page = format!(
        "<!DOCTYPE HTML><html><head><title>Error response</title><style>{style}</style></head>\
         <body><h1>Error response</h1><p>Error code: 404</p><p>Message: File not found.</p></body></html>"
    );
    let response = reqwest::Response::from(http::Response::new(page));
    let said = excerpt(response).await;
    assert_eq!(
        said,
        "Error response Error code: 404 Message: File not found."
    );
}

fn limits(max_event_bytes: usize, max_line_bytes: usize) -> SseLimits {
    SseLimits {
        max_event_bytes,
        max_line_bytes,
    }
}

/// Feeds `chunks` in order, stopping at the first error.
fn run(chunks: &[&[u8]], limits: SseLimits) -> Result<Vec<SseEvent>, SseError> {
    let mut parser = SseParser::new(limits);
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out)?;
    }
    Ok(out)
}

/// Parses `input` whole, split in two at every byte, and one byte at a time; all
/// must agree. Returns the outcome.
fn parse_every_way(input: &[u8], limits: SseLimits) -> Result<Vec<SseEvent>, SseError> {
    let whole = run(&[input], limits);
    for i in 0..=input.len() {
        let split = run(&[&input[..i], &input[i..]], limits);
        assert_eq!(split, whole, "split at byte {i} of {input:?}");
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(run(&bytes, limits), whole, "one byte at a time: {input:?}");
    whole
}

fn events(input: &str) -> Vec<(String, String)> {
    parse_every_way(input.as_bytes(), SseLimits::default())
        .unwrap()
        .into_iter()
        .map(|e| (e.event, e.data))
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(e, d)| (e.to_string(), d.to_string()))
        .collect()
}

#[test]
fn every_line_end_ends_a_line() {
    assert_eq!(
        events("data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\n\ndata: e\n\r"),
        pairs(&[
            ("message", "a"),
            ("message", "b"),
            ("message", "c"),
            ("message", "d"),
            ("message", "e")
        ])
    );
}

#[test]
fn data_lines_join_with_newlines() {
    assert_eq!(
        events("data: {\ndata:  \"a\": 1\r\ndata:}\n\n"),
        pairs(&[("message", "{\n \"a\": 1\n}")])
    );
    // No space after the colon, a bare `data` line, an empty value.
    assert_eq!(
        events("data:x\ndata\ndata:\n\ndata\n\ndata:\n\n"),
        pairs(&[("message", "x\n\n"), ("message", ""), ("message", "")])
    );
}

#[test]
fn comments_and_other_fields_are_skipped() {
    assert_eq!(
        events(": hello\nid: 5\nretry: 10\nfoo: bar\ndata: x\n: in between\nid\n\n:\n\n"),
        pairs(&[("message", "x")])
    );
    let long_name = format!("{}: y\ndata: z\n\n", "n".repeat(100));
    assert_eq!(events(&long_name), pairs(&[("message", "z")]));
}

#[test]
fn event_names_apply_to_one_event() {
    assert_eq!(
        events(
            "event: endpoint\ndata: /m?s=1\n\nevent: ping\ndata: p\n\ndata: after\n\n\
             event: lost\n\ndata: still message\n\nevent: a\nevent: b\ndata: last\n\n"
        ),
        pairs(&[
            ("endpoint", "/m?s=1"),
            ("ping", "p"),
            ("message", "after"),
            ("message", "still message"),
            ("b", "last")
        ])
    );
}

#[test]
fn one_leading_bom_is_dropped() {
    assert_eq!(events("\u{feff}data: a\n\n"), pairs(&[("message", "a")]));
    assert_eq!(
        events("\u{feff}: hi\r\n\r\nevent: endpoint\r\ndata: /m\r\n\r\n"),
        pairs(&[("endpoint", "/m")])
    );
    assert_eq!(events("\u{feff}\ndata: b\n\n"), pairs(&[("message", "b")]));
    // Only one, and only at the start of the stream.
    assert_eq!(events("\u{feff}\u{feff}data: a\n\n"), pairs(&[]));
    assert_eq!(
        events("data: a\n\u{feff}data: b\n\n"),
        pairs(&[("message", "a")])
    );
}

#[test]
fn utf8_split_across_chunks_survives() {
    assert_eq!(
        events("event: café\ndata: ünïcödé ✓ 😀\n\n"),
        pairs(&[("café", "ünïcödé ✓ 😀")])
    );
}

#[test]
fn an_unfinished_event_is_dropped_at_the_end() {
    assert_eq!(events("data: a\n\ndata: b\n"), pairs(&[("message", "a")]));
}

#[test]
fn an_event_over_the_limit_is_an_error() {
    let small = limits(16, 64);
    // Exactly at the limit: 7 + 1 (the joining newline) + 8 bytes.
    let at_limit = parse_every_way(b"data: 0123456\ndata: 01234567\n\n", small).unwrap();
    assert_eq!(at_limit[0].data.len(), 16);
    let over = parse_every_way(b"data: 0123456\ndata: 012345678\n\n", small);
    assert_eq!(over, Err(SseError::EventTooLarge { limit: 16 }));
    // The event name counts too.
    let over = parse_every_way(b"event: 0123456789\ndata: 0123456\n\n", small);
    assert_eq!(over, Err(SseError::EventTooLarge { limit: 16 }));
    // Many short lines add up.
    let many = "data:\n".repeat(20) + "\n";
    let over = parse_every_way(many.as_bytes(), small);
    assert_eq!(over, Err(SseError::EventTooLarge { limit: 16 }));

    // Nothing is buffered past the limit, even fed one huge chunk.
    let mut parser = SseParser::new(small);
    let huge = format!("data: {}\n\n", "x".repeat(50));
    let mut out = Vec::new();
    assert!(parser.feed(huge.as_bytes(), &mut out).is_err());
    assert!(parser.data.len() <= 16 && out.is_empty());
}

#[test]
fn a_large_event_is_held_mostly_out_of_memory() {
    use crate::mcp::client::limit::MEMORY_HOLD_BYTES;
    let size = 3 * MEMORY_HOLD_BYTES;
    let roomy = limits(4 * MEMORY_HOLD_BYTES, 5 * MEMORY_HOLD_BYTES);
    let text = "é".repeat(size / 2);
    let input = format!("data: {text}\ndata: second line\n\n");
    let mut parser = SseParser::new(roomy);
    let mut out = Vec::new();
    // Fed in pieces that cut the two-byte `é` too; held past the first MiB in its file.
    let (start, end) = input.as_bytes().split_at(size - 1);
    parser.feed(start, &mut out).unwrap();
    assert!(out.is_empty());
    assert!(parser.data.in_memory() <= MEMORY_HOLD_BYTES);
    parser.feed(end, &mut out).unwrap();
    assert_eq!(out.len(), 1);
    assert!(
        out[0].data == format!("{text}\nsecond line"),
        "not kept whole"
    );

    // Over the limit: an error, and what the event held goes with the parser.
    let mut parser = SseParser::new(limits(2 * MEMORY_HOLD_BYTES, 5 * MEMORY_HOLD_BYTES));
    let mut out = Vec::new();
    assert_eq!(
        parser.feed(input.as_bytes(), &mut out),
        Err(SseError::EventTooLarge {
            limit: 2 * MEMORY_HOLD_BYTES
        })
    );
    assert!(parser.data.in_memory() <= MEMORY_HOLD_BYTES && out.is_empty());
}

#[test]
fn a_line_over_the_limit_is_an_error() {
    let small = limits(16, 64);
    let comment = format!(": {}\n", "c".repeat(63));
    assert_eq!(
        parse_every_way(comment.as_bytes(), small),
        Err(SseError::LineTooLong { limit: 64 })
    );
    let at_limit = format!(": {}\ndata: ok\n\n", "c".repeat(62));
    assert_eq!(
        parse_every_way(at_limit.as_bytes(), small).unwrap().len(),
        1
    );
    // A line that never ends is an error too, not endless reading.
    let mut parser = SseParser::new(small);
    let mut out = Vec::new();
    let endless = [b'z'; 40];
    assert!(parser.feed(&endless, &mut out).is_ok());
    assert_eq!(
        parser.feed(&endless, &mut out),
        Err(SseError::LineTooLong { limit: 64 })
    );
}

#[test]
fn endpoints_resolve_on_the_same_origin_only() {
    let base = Url::parse("http://127.0.0.1:3001/sse").unwrap();
    let ok = |raw: &str| resolve_endpoint(&base, raw).unwrap().to_string();
    assert_eq!(
        ok("/message?sessionId=abc"),
        "http://127.0.0.1:3001/message?sessionId=abc"
    );
    assert_eq!(ok("message?x=1"), "http://127.0.0.1:3001/message?x=1");
    assert_eq!(ok(" /m \n"), "http://127.0.0.1:3001/m");
    assert_eq!(ok("http://127.0.0.1:3001/m"), "http://127.0.0.1:3001/m");
    let default_port = Url::parse("http://example.com/sse").unwrap();
    assert!(resolve_endpoint(&default_port, "http://example.com:80/m").is_ok());

    for raw in [
        "//evil.example/m",
        "http://evil.example/message",
        "http://127.0.0.1:3002/m",
        "https://127.0.0.1:3001/m",
        "http://localhost:3001/m",
        "data:text/plain,hi",
    ] {
        assert!(
            matches!(
                resolve_endpoint(&base, raw),
                Err(SseError::CrossOrigin { .. })
            ),
            "{raw} must be refused"
        );
    }
    assert_eq!(
        resolve_endpoint(&base, "http://evil.example/x"),
        Err(SseError::CrossOrigin {
            origin: "http://127.0.0.1:3001".into(),
            endpoint_origin: "http://evil.example".into(),
        })
    );
    assert!(matches!(
        resolve_endpoint(&base, ""),
        Err(SseError::BadEndpoint { .. })
    ));
    assert!(matches!(
        resolve_endpoint(&base, "http://[::1"),
        Err(SseError::BadEndpoint { .. })
    ));
}

#[test]
fn messages_parse_alone_or_in_batches() {
    let one = r#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#;
    assert_eq!(parse_messages(one).len(), 1);
    let batch = format!(r#"[{one}, {{"jsonrpc":"2.0","id":1,"result":{{}}}}, 7]"#);
    assert_eq!(parse_messages(&batch).len(), 2);
    assert!(parse_messages("not json").is_empty());
    assert!(parse_messages(r#"{"hello":"world"}"#).is_empty());
}

#[test]
fn errors_read_well() {
    let error = SseError::Status {
        request: "POST",
        status: StatusCode::NOT_FOUND,
        body: "no such session".into(),
    };
    assert_eq!(
        error.to_string(),
        "the POST answered HTTP 404 Not Found: no such session"
    );
    assert_eq!(error.status(), Some(StatusCode::NOT_FOUND));
    assert!(!error.is_auth_required());
    let long = shorten(&"word \n\t ".repeat(100));
    assert_eq!(long.chars().count(), EXCERPT_CHARS + 1);
    assert!(long.ends_with('…') && !long.contains('\n'));
}

#[tokio::test]
async fn unusable_urls_are_refused() {
    let t = Duration::from_secs(1);
    for url in ["not a url", "ftp://127.0.0.1/sse", "/sse"] {
        let error = SseClientTransport::connect(url, HeaderMap::new(), t)
            .await
            .unwrap_err();
        assert!(matches!(error, SseError::InvalidUrl { .. }), "{url}");
    }
}

/// A tiny legacy SSE server: `/sse` + `/message` serve an rmcp server with one
/// prompt, framed awkwardly on purpose; other routes misbehave for the error tests.
mod server {
    use std::collections::HashMap;
    use std::convert::Infallible;
    use std::net::SocketAddr;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use axum::Router;
    use axum::body::Body;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode, Uri, header};
    use axum::response::Response;
    use axum::routing::{get, post};
    use futures::channel::mpsc::{UnboundedSender, unbounded};
    use futures::stream::{self, BoxStream, StreamExt};
    use rmcp::model::{
        ClientJsonRpcMessage, Implementation, ListPromptsResult, PaginatedRequestParams,
        ServerCapabilities, ServerConfig, ServerJsonRpcMessage,
    };
    use rmcp::service::{RequestContext, RoleServer};
    use rmcp::{ErrorData, ServerHandler};
    use serde_json::json;

    pub const TOKEN: &str = "Bearer test-token";

    struct TestPrompts;

    impl ServerHandler for TestPrompts {
        fn get_info(&self) -> ServerConfig {
            let capabilities: ServerCapabilities =
                serde_json::from_value(json!({ "prompts": {} })).unwrap();
            ServerConfig::new(capabilities).with_server_info(Implementation::new("sse-test", "1.0"))
        }

        async fn list_prompts(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListPromptsResult, ErrorData> {
            Ok(serde_json::from_value(json!({
                "prompts": [{ "name": "greet", "description": "Says hello — café ✓" }]
            }))
            .unwrap())
        }
    }

    #[derive(Clone, Default)]
    struct Sessions {
        next: Arc<AtomicUsize>,
        open: Arc<Mutex<HashMap<String, UnboundedSender<ClientJsonRpcMessage>>>>,
    }

    type Chunks = BoxStream<'static, Result<Vec<u8>, Infallible>>;

    fn event_stream(chunks: Chunks) -> Response {
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from_stream(chunks))
            .unwrap()
    }

    /// The stream's opening bytes (endpoint first), then `then`.
    fn opening(endpoint: &str, then: Chunks) -> Response {
        let head = format!("event: endpoint\ndata: {endpoint}\n\n").into_bytes();
        event_stream(stream::once(async move { Ok(head) }).chain(then).boxed())
    }

    fn authorized(headers: &HeaderMap) -> bool {
        headers
            .get(header::AUTHORIZATION)
            .is_some_and(|v| v.as_bytes() == TOKEN.as_bytes())
    }

    /// One server message, with noise the client must skip: a comment, an unknown
    /// event, a message that is not JSON-RPC; the JSON spread over data lines.
    fn frame(message: &ServerJsonRpcMessage) -> Vec<u8> {
        let pretty = serde_json::to_string_pretty(message).unwrap();
        let mut out = String::from(": keep-alive\nevent: ping\ndata: {}\n\n");
        out.push_str("data: not json-rpc\r\r");
        out.push_str("event: message\r\n");
        for line in pretty.lines() {
            out.push_str("data: ");
            out.push_str(line);
            out.push_str("\r\n");
        }
        out.push_str("\r\n");
        out.into_bytes()
    }

    async fn mcp_sse(State(sessions): State<Sessions>, headers: HeaderMap) -> Response {
        if !authorized(&headers) {
            return Response::builder()
                .status(StatusCode::UNAUTHORIZED)
                .header(header::WWW_AUTHENTICATE, "Bearer realm=\"test\"")
                .body(Body::empty())
                .unwrap();
        }
        let id = format!("s{}", sessions.next.fetch_add(1, Ordering::Relaxed));
        let (to_server, from_client) = unbounded::<ClientJsonRpcMessage>();
        let (to_client, from_server) = unbounded::<ServerJsonRpcMessage>();
        sessions.open.lock().unwrap().insert(id.clone(), to_server);
        tokio::spawn(async move {
            if let Ok(running) = rmcp::serve_server(TestPrompts, (to_client, from_client)).await {
                let _ = running.waiting().await;
            }
        });
        let head = format!(
            "\u{feff}: welcome\r\nevent: endpoint\r\ndata: /message?sessionId={id}\r\n\r\n"
        )
        .into_bytes();
        // Small chunks, so lines and UTF-8 are cut across reads.
        let frames = from_server.flat_map(|message| {
            let chunks: Vec<Vec<u8>> = frame(&message).chunks(7).map(<[u8]>::to_vec).collect();
            stream::iter(chunks)
        });
        event_stream(
            stream::once(async move { head })
                .chain(frames)
                .map(Ok)
                .boxed(),
        )
    }

    async fn mcp_message(
        State(sessions): State<Sessions>,
        uri: Uri,
        headers: HeaderMap,
        body: String,
    ) -> StatusCode {
        if !authorized(&headers) {
            return StatusCode::UNAUTHORIZED;
        }
        if headers
            .get(header::CONTENT_TYPE)
            .is_none_or(|v| v.as_bytes() != b"application/json")
        {
            return StatusCode::UNSUPPORTED_MEDIA_TYPE;
        }
        let id = uri
            .query()
            .and_then(|q| q.strip_prefix("sessionId="))
            .unwrap_or_default();
        let Some(session) = sessions.open.lock().unwrap().get(id).cloned() else {
            return StatusCode::NOT_FOUND;
        };
        let Ok(message) = serde_json::from_str::<ClientJsonRpcMessage>(&body) else {
            return StatusCode::BAD_REQUEST;
        };
        match session.unbounded_send(message) {
            Ok(()) => StatusCode::ACCEPTED,
            Err(_) => StatusCode::GONE,
        }
    }

    fn never() -> Chunks {
        stream::pending().boxed()
    }

    /// Serves on 127.0.0.1 at a free port.
    pub async fn spawn() -> SocketAddr {
        let router = Router::new()
            .route("/sse", get(mcp_sse))
            .route("/message", post(mcp_message))
            .route(
                "/html",
                get(|| async {
                    Response::builder()
                        .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
                        .body(Body::from("<html></html>"))
                        .unwrap()
                }),
            )
            .route(
                "/ended",
                get(|| async {
                    event_stream(stream::iter([Ok(b": nothing here\n\n".to_vec())]).boxed())
                }),
            )
            .route("/silent", get(|| async { event_stream(never()) }))
            .route(
                "/elsewhere",
                get(|| async { opening("http://evil.example/message", never()) }),
            )
            .route(
                "/other-port",
                get(|| async { opening("http://127.0.0.1:1/message", never()) }),
            )
            .route("/idle", get(|| async { opening("/message", never()) }))
            .route(
                "/reject-posts",
                get(|| async { opening("/reject", never()) }),
            )
            .route(
                "/reject",
                post(|| async {
                    (
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("it broke:\n{}", "very long explanation ".repeat(500)),
                    )
                }),
            )
            .route(
                "/huge",
                get(|| async {
                    let note = r#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#;
                    let small = format!("data: {note}\n\n").into_bytes();
                    let big = format!("data: {}\n\n", "x".repeat(1000)).into_bytes();
                    opening(
                        "/message",
                        stream::iter([Ok(small), Ok(big)]).chain(never()).boxed(),
                    )
                }),
            )
            .with_state(Sessions::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        addr
    }
}

const WAIT: Duration = Duration::from_secs(5);

fn auth() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(http::header::AUTHORIZATION, server::TOKEN.parse().unwrap());
    headers
}

#[tokio::test]
async fn initialize_and_list_prompts_end_to_end() {
    let addr = server::spawn().await;
    let transport = SseClientTransport::connect(&format!("http://{addr}/sse"), auth(), WAIT)
        .await
        .unwrap();
    let client = tokio::time::timeout(WAIT, rmcp::service::serve_client((), transport))
        .await
        .unwrap()
        .unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("sse-test")
    );
    let prompts = tokio::time::timeout(WAIT, client.list_all_prompts())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "greet");
    assert_eq!(
        prompts[0].description.as_deref(),
        Some("Says hello — café ✓")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_refused_sign_in_is_told_apart() {
    let addr = server::spawn().await;
    let error = SseClientTransport::connect(&format!("http://{addr}/sse"), HeaderMap::new(), WAIT)
        .await
        .unwrap_err();
    assert!(error.is_auth_required());
    assert_eq!(
        error,
        SseError::Unauthorized {
            request: "GET",
            status: StatusCode::UNAUTHORIZED,
            www_authenticate: Some("Bearer realm=\"test\"".into()),
        }
    );
}

#[tokio::test]
async fn failures_before_the_endpoint_are_clear() {
    let addr = server::spawn().await;
    let connect = |path: &str, timeout: Duration| {
        let url = format!("http://{addr}{path}");
        async move { SseClientTransport::connect(&url, auth(), timeout).await }
    };
    assert_eq!(
        connect("/html", WAIT).await.unwrap_err(),
        SseError::NotEventStream {
            content_type: "text/html; charset=utf-8".into()
        }
    );
    assert_eq!(
        connect("/ended", WAIT).await.unwrap_err(),
        SseError::NoEndpoint
    );
    assert_eq!(
        connect("/silent", Duration::from_millis(300))
            .await
            .unwrap_err(),
        SseError::Timeout {
            what: "waiting for the server's message endpoint",
            ms: 300
        }
    );
    assert!(matches!(
        connect("/missing", WAIT).await.unwrap_err(),
        SseError::Status { request: "GET", status, .. } if status == StatusCode::NOT_FOUND
    ));
    let refused = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let free = refused.local_addr().unwrap();
    drop(refused);
    let error = SseClientTransport::connect(&format!("http://{free}/sse"), auth(), WAIT)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            SseError::Request {
                what: "the SSE GET",
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_cross_origin_endpoint_is_refused() {
    let addr = server::spawn().await;
    for (path, endpoint_origin) in [
        ("/elsewhere", "http://evil.example"),
        ("/other-port", "http://127.0.0.1:1"),
    ] {
        let error = SseClientTransport::connect(&format!("http://{addr}{path}"), auth(), WAIT)
            .await
            .unwrap_err();
        assert_eq!(
            error,
            SseError::CrossOrigin {
                origin: format!("http://{addr}"),
                endpoint_origin: endpoint_origin.into(),
            }
        );
    }
}

fn initialized() -> TxJsonRpcMessage<RoleClient> {
    serde_json::from_value(serde_json::json!({
        "jsonrpc": "2.0",
        "method": "notifications/initialized"
    }))
    .unwrap()
}

#[tokio::test]
async fn a_refused_post_says_why_briefly() {
    let addr = server::spawn().await;
    let mut transport =
        SseClientTransport::connect(&format!("http://{addr}/reject-posts"), auth(), WAIT)
            .await
            .unwrap();
    let error = transport.send(initialized()).await.unwrap_err();
    let SseError::Status {
        request: "POST",
        status: StatusCode::INTERNAL_SERVER_ERROR,
        body,
    } = &error
    else {
        panic!("{error:?}");
    };
    assert!(body.starts_with("it broke: very long explanation"));
    assert_eq!(body.chars().count(), EXCERPT_CHARS + 1);
    transport.close().await.unwrap();
}

#[tokio::test]
async fn an_oversize_event_ends_the_stream() {
    let addr = server::spawn().await;
    let mut transport = SseClientTransport::connect_with_limits(
        &format!("http://{addr}/huge"),
        auth(),
        WAIT,
        limits(256, 1024),
    )
    .await
    .unwrap();
    // The message before the oversize event still arrives; then the stream ends.
    let first = tokio::time::timeout(WAIT, transport.receive())
        .await
        .unwrap();
    assert!(matches!(
        first,
        Some(rmcp::model::JsonRpcMessage::Notification(_))
    ));
    let end = tokio::time::timeout(WAIT, transport.receive())
        .await
        .unwrap();
    assert!(end.is_none());
    assert_eq!(transport.send(initialized()).await, Err(SseError::Closed));
}

#[tokio::test]
async fn close_stops_the_transport() {
    let addr = server::spawn().await;
    let mut transport = SseClientTransport::connect(&format!("http://{addr}/idle"), auth(), WAIT)
        .await
        .unwrap();
    tokio::time::timeout(WAIT, transport.close())
        .await
        .unwrap()
        .unwrap();
    assert!(
        tokio::time::timeout(WAIT, transport.receive())
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(transport.send(initialized()).await, Err(SseError::Closed));
}

/// Against a live legacy SSE server, e.g. the reference server-everything started
/// with `PORT=3001 node dist/index.js sse`:
/// `MCPICK_SSE_URL=http://127.0.0.1:3001/sse cargo test --lib live_sse -- --ignored --nocapture`
#[tokio::test]
#[ignore = "needs a live SSE server at MCPICK_SSE_URL"]
async fn live_sse_server_initializes_and_lists_prompts() {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let url = std::env::var("MCPICK_SSE_URL").expect("set MCPICK_SSE_URL");
    let lifecycles = [
        ("initialize", ClientLifecycleMode::Initialize),
        (
            "auto (server/discover, then initialize)",
            ClientLifecycleMode::Auto {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
                legacy_version: Some(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
        ),
    ];
    for (label, lifecycle) in lifecycles {
        let transport = SseClientTransport::connect(&url, HeaderMap::new(), WAIT)
            .await
            .unwrap();
        let client = tokio::time::timeout(
            Duration::from_secs(30),
            ().serve_with_lifecycle(transport, lifecycle),
        )
        .await
        .unwrap()
        .unwrap();
        let info = client.peer_info().unwrap();
        println!(
            "[{label}] protocol {} server {:?}",
            info.protocol_version.as_str(),
            info.server_info
                .as_ref()
                .map(|s| format!("{} {}", s.name, s.version))
        );
        let prompts = client.list_all_prompts().await.unwrap();
        println!(
            "[{label}] {} prompts: {}",
            prompts.len(),
            prompts
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        assert!(!prompts.is_empty());
        let first = rmcp::model::GetPromptRequestParams::new(prompts[0].name.clone());
        let filled = client.get_prompt(first).await.unwrap();
        println!(
            "[{label}] {} gives {} message(s)",
            prompts[0].name,
            filled.messages.len()
        );
        client.cancel().await.unwrap();
    }
}
