//! `mcpick serve --http`'s routes: `/mcp` (the SDK's Streamable HTTP service for a
//! [`PromptServer`], behind [`crate::mcp::server::fast`]'s direct answer to stateless reads, within
//! the limits and behind the token) and `/healthz`; and the listener that serves them. Its
//! own file, so the server's handler and the direct path import it neither way round.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::mcp::server::accept::{ClientGone, Handler, Reply};
use crate::mcp::server::fast::FastReads;
use crate::mcp::server::service::PromptServer;

/// Serves Streamable HTTP at `http://ADDR/mcp` until `shutdown` is cancelled. On a loopback
/// address only loopback `Host` names and browser `Origin`s are accepted (DNS rebinding
/// and drive-by web pages cannot reach it); on any other address (`--allow-remote`) the
/// Host check is off, as the name clients use cannot be known. `bound` is told the
/// address once listening (port 0 picks a free one). `access` puts `/mcp` behind a bearer
/// token and serves TLS instead of plain HTTP.
pub async fn serve_http(
    server: PromptServer,
    addr: SocketAddr,
    access: crate::mcp::HttpAccess,
    shutdown: CancellationToken,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let listener = crate::mcp::server::accept::listen_on(addr).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
            " (another program uses that port: pick another, or port 0 for a free one)"
        } else {
            ""
        };
        format!("cannot listen on {addr}: {e}{hint}")
    })?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let limiter = crate::mcp::server::limits::Limiter::new(&access.limits);
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(limiter.drain(&shutdown, server.client_gone()))
        .with_stateless_protocol_metadata_required(true)
        // A request answered by its result alone gets one `application/json` body with a
        // Content-Length (one write); SSE stays for answers that stream (a listen, progress).
        .with_json_response(true);
    if local.ip().is_loopback() {
        let ip = local.ip().to_string();
        let bracketed = if local.is_ipv6() {
            format!("[{ip}]")
        } else {
            ip.clone()
        };
        config = config
            .with_allowed_hosts([
                "localhost".to_string(),
                "127.0.0.1".into(),
                "::1".into(),
                ip,
            ])
            .with_allowed_origins(
                [
                    "http://localhost:*".to_string(),
                    "http://127.0.0.1:*".into(),
                    "http://[::1]:*".into(),
                    format!("http://{bracketed}:*"),
                ]
                .into_iter()
                // Pages served over https on this machine, when the server speaks TLS too.
                .flat_map(|origin| {
                    let secure = access
                        .tls
                        .is_some()
                        .then(|| origin.replacen("http", "https", 1));
                    std::iter::once(origin).chain(secure)
                }),
            )
            .enforce_origin_validation();
    } else {
        config = config.disable_allowed_hosts();
    }
    let (router, fast) = mcp_routes(server, config, &access.limits);
    let router = limiter.bound(router);
    // The token guards the routes so far: `/healthz`, added after, stays open to balancers.
    let token = access.token.clone().map(std::sync::Arc::new);
    let may_know = move |headers: &http::HeaderMap| {
        crate::mcp::server::token::BearerToken::admits(token.as_deref(), headers)
    };
    let router = limiter.with_healthz(
        crate::mcp::server::token::protect(router, access.token.clone()),
        may_know,
    );
    bound(local);
    let table = limiter.connections();
    let stall = access.limits.write_timeout;
    match &access.tls {
        Some(tls) => {
            crate::mcp::tls::serve_tls(listener, tls, router, shutdown, table, stall).await
        }
        None => {
            let front = Front(Arc::new(FrontParts {
                fast,
                token: access.token,
                limiter,
                router,
            }));
            crate::mcp::server::accept::serve_router(listener, front, shutdown, table, stall).await
        }
    }
    Ok(())
}

/// `serve --http`'s handler over plain HTTP: the direct answer to a plain stateless read
/// ([`FastReads`]) before any router layer runs, behind the same token check and within
/// the same limits (body size and time, request slots) as the router applies, and the
/// router for everything else. Each axum layer costs a boxed future and a clone of the
/// service beneath it per request; with the direct answer behind three of them, they were
/// 9 % of a request's CPU (docs/benchmarks.md).
#[derive(Clone)]
struct Front(Arc<FrontParts>);

struct FrontParts {
    fast: Arc<FastReads>,
    token: Option<crate::mcp::server::token::BearerToken>,
    limiter: crate::mcp::server::limits::Limiter,
    /// The same routes, `/mcp` with the direct path as a layer too (for requests that get
    /// here through it, the direct path's checks are made again and fail again).
    router: axum::Router,
}

impl Handler for Front {
    fn handle(
        &self,
        request: http::Request<hyper::body::Incoming>,
        client: &ClientGone,
    ) -> impl Future<Output = http::Response<Reply>> + Send + use<> {
        let front = self.0.clone();
        let client = client.clone();
        async move { front.answer(request, client).await }
    }
}

impl FrontParts {
    async fn answer(
        &self,
        request: http::Request<hyper::body::Incoming>,
        client: ClientGone,
    ) -> http::Response<Reply> {
        use crate::mcp::server::token::BearerToken;
        let (head, body) = request.into_parts();
        let token_accepted = BearerToken::admits(self.token.as_ref(), &head.headers);
        if !token_accepted || !self.fast.takes(&head) {
            // The router answers as it did (a refusal without the token, too).
            let request = http::Request::from_parts(head, body);
            return self.router.handle(request, &client).await;
        }
        let (bytes, slot) = match self
            .limiter
            .admit(&head.headers, &head.extensions, body)
            .await
        {
            Ok(admitted) => admitted,
            Err(refusal) => return refusal.map(Reply::Body),
        };
        if slot.is_some()
            && let Some(answer) = self.fast.answer(&head.headers, &bytes)
        {
            let mut response = http::Response::new(Reply::Bytes(Some(answer)));
            response.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            );
            return response;
        }
        // The router's limits read the body again (from memory) and take their own slot.
        drop(slot);
        let mut request = http::Request::from_parts(head, axum::body::Body::from(bytes));
        request.extensions_mut().insert(client);
        let Ok(response) = tower_service::Service::call(&mut self.router.clone(), request).await;
        response.map(Reply::Body)
    }
}

/// The `/mcp` route of `serve --http`: the SDK's Streamable HTTP service for `server`
/// with `config` (legacy sessions within `limits`), behind [`crate::mcp::server::fast`]'s direct
/// answer to the stateless reads.
#[cfg(test)]
pub(in crate::mcp) fn mcp_router(
    server: PromptServer,
    config: StreamableHttpServerConfig,
    limits: &crate::mcp::HttpLimits,
) -> axum::Router {
    mcp_routes(server, config, limits).0
}

/// The `/mcp` route of `serve --http` (see `mcp_router`), and its direct path for [`Front`]
/// to use before the router.
fn mcp_routes(
    server: PromptServer,
    config: StreamableHttpServerConfig,
    limits: &crate::mcp::HttpLimits,
) -> (axum::Router, Arc<FastReads>) {
    // The limits in front refuse a body over `--max-body` with their own JSON answer; the SDK
    // gets the same limit, or its own 4 MiB default would refuse what `--max-body` allows.
    let config = config.with_max_request_body_bytes(limits.max_body);
    // An empty list is how the SDK is told to take any Host (`--allow-remote`).
    let allowed_hosts = (!config.allowed_hosts.is_empty()).then(|| config.allowed_hosts.clone());
    let fast = Arc::new(FastReads::new(
        server.clone(),
        allowed_hosts,
        config.max_request_body_bytes,
    ));
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        crate::mcp::server::limits::sessions(limits).into(),
        config,
    );
    let router = fast.layer_shared(
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(session_gone_as_json_rpc)),
    );
    (router, fast)
}

/// JSON-RPC's code for a session the server does not have, as the official TypeScript
/// SDK answers it.
const SESSION_NOT_FOUND: i64 = -32001;

/// A legacy session the server does not have (expired, closed, or held by a replica that
/// died) is answered 404 as the spec says, with a JSON-RPC error body instead of the SDK's
/// plain text, so a client that reads JSON learns to initialize again.
async fn session_gone_as_json_rpc(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let had_session = request.headers().contains_key("mcp-session-id");
    let response = next.run(request).await;
    let json = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    if !had_session || response.status() != http::StatusCode::NOT_FOUND || json {
        return response;
    }
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": SESSION_NOT_FOUND,
            "message": "Session not found: initialize again without Mcp-Session-Id",
        },
    });
    (
        http::StatusCode::NOT_FOUND,
        [(http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::mcp::HttpLimits;
    use crate::mcp::server::limits::Limiter;

    const TOKEN: &str = "0123456789abcdef-token";

    fn server() -> PromptServer {
        let library = crate::library::SharedLibrary::new(crate::library::builtin_library());
        PromptServer::new(library, 2)
    }

    fn meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    }

    /// A 2026-07-28 `prompts/get` of `explain-error` as raw HTTP, with `extra` header lines.
    fn plain_get(extra: &str) -> String {
        let body = json!({
            "jsonrpc": "2.0", "id": 5, "method": "prompts/get",
            "params": { "name": "explain-error", "arguments": { "error": "x" }, "_meta": meta() },
        })
        .to_string();
        post(
            "Mcp-Method: prompts/get\r\nMcp-Name: explain-error\r\n",
            extra,
            &body,
        )
    }

    fn post(mcp_headers: &str, extra: &str, body: &str) -> String {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             {mcp_headers}{extra}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    /// Status, head and body of the answer to `raw` (the `Date` line left out).
    fn exchange(address: SocketAddr, raw: &str) -> (u16, String, String) {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let status = head[9..12].parse().unwrap();
        let head = head
            .lines()
            .filter(|line| !line.to_ascii_lowercase().starts_with("date:"))
            .collect::<Vec<_>>()
            .join("\n");
        (status, head, body.to_string())
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

    /// `serve_router` over `handler` on a free loopback port, on `runtime`.
    fn start<H: Handler>(runtime: &tokio::runtime::Runtime, handler: H) -> SocketAddr {
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let address = listener.local_addr().unwrap();
        runtime.spawn(crate::mcp::server::accept::serve_router(
            listener,
            handler,
            CancellationToken::new(),
            Limiter::new(&HttpLimits::default()).connections(),
            Duration::from_secs(30),
        ));
        address
    }

    /// The router and the front `serve_http` builds over plain HTTP, without a token.
    fn front_and_router(limiter: &Limiter) -> (Front, axum::Router) {
        let limits = HttpLimits::default();
        let (router, fast) = mcp_routes(server(), config(), &limits);
        let router = limiter.with_healthz(limiter.bound(router), |_: &http::HeaderMap| true);
        let front = Front(Arc::new(FrontParts {
            fast,
            token: None,
            limiter: limiter.clone(),
            router: router.clone(),
        }));
        (front, router)
    }

    #[test]
    fn over_plain_http_the_token_and_the_body_limits_hold_on_the_direct_path() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let access = crate::mcp::HttpAccess {
            token: Some(crate::mcp::BearerToken::new(TOKEN, "a test").unwrap()),
            tls: None,
            limits: HttpLimits {
                max_body: 400,
                body_timeout: Duration::from_millis(300),
                ..HttpLimits::default()
            },
        };
        let (bound_tx, bound_rx) = std::sync::mpsc::channel();
        let shutdown = CancellationToken::new();
        runtime.spawn(serve_http(
            server(),
            "127.0.0.1:0".parse().unwrap(),
            access,
            shutdown.clone(),
            move |address| bound_tx.send(address).unwrap(),
        ));
        let address = bound_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        let bearer = format!("Authorization: Bearer {TOKEN}\r\n");

        let (status, head, _) = exchange(address, &plain_get(""));
        assert_eq!(status, 401, "{head}");
        assert!(
            head.contains("www-authenticate: Bearer realm=\"mcpick\""),
            "{head}"
        );
        let (status, head, _) = exchange(address, &plain_get("Authorization: Bearer wrong\r\n"));
        assert_eq!(status, 401);
        assert!(head.contains("invalid_token"), "{head}");
        let (status, _, body) = exchange(address, &plain_get(&bearer));
        assert_eq!(status, 200, "{body}");
        assert!(
            body.starts_with(r#"{"jsonrpc":"2.0","id":5,"result":{"#),
            "{body}"
        );

        // Over --max-body, said up front.
        let big = post(
            "Mcp-Method: prompts/get\r\nMcp-Name: explain-error\r\n",
            &bearer,
            &" ".repeat(500),
        );
        let (status, _, body) = exchange(address, &big);
        assert_eq!(status, 413, "{body}");
        assert!(body.contains("payload_too_large"), "{body}");

        // A body that stops short of its length: the body timeout.
        let short = plain_get(&bearer);
        let short = &short[..short.len() - 10];
        let (status, _, body) = exchange(address, short);
        assert_eq!(status, 408, "{body}");
        assert!(body.contains("request_timeout"), "{body}");
        shutdown.cancel();
    }

    #[test]
    fn with_every_request_slot_taken_the_direct_path_says_busy() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let limiter = Limiter::new(&HttpLimits {
            max_requests: 1,
            ..HttpLimits::default()
        });
        let (front, _) = front_and_router(&limiter);
        let address = start(&runtime, front);
        let none = http_body_util::Empty::<axum::body::Bytes>::new();
        let (_, slot) = runtime
            .block_on(limiter.admit(&http::HeaderMap::new(), &http::Extensions::new(), none))
            .unwrap();
        assert!(slot.is_some());
        let (status, head, body) = exchange(address, &plain_get(""));
        assert_eq!(status, 503, "{body}");
        assert!(head.contains("retry-after: 1"), "{head}");
        drop(slot);
        let (status, _, body) = exchange(address, &plain_get(""));
        assert_eq!(status, 200, "{body}");
    }

    #[test]
    fn the_front_answers_as_the_router_alone() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let limiter = Limiter::new(&HttpLimits::default());
        let (front, router) = front_and_router(&limiter);
        let (front, router) = (start(&runtime, front), start(&runtime, router));
        let list = json!({
            "jsonrpc": "2.0", "id": "a", "method": "prompts/list", "params": { "_meta": meta() },
        })
        .to_string();
        let get = plain_get("");
        let requests = [
            get.clone(),
            post("Mcp-Method: prompts/list\r\n", "", &list),
            get.replace("explain-error", "no-such-prompt"),
            get.replace(
                "MCP-Protocol-Version: 2026-07-28",
                "MCP-Protocol-Version: 2025-11-25",
            ),
            plain_get("Origin: http://localhost:1\r\n"),
            plain_get("Origin: https://evil.example\r\n"),
            get.replacen("\"id\":5", "\"id\":5.0", 1),
            get.replacen("{\"jsonrpc\"", "{\"x\":1,\"jsonrpc\"", 1),
            get.replacen("\"id\":5", "\"id\":5,", 1),
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_string(),
            "GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_string(),
        ];
        for raw in requests {
            let direct = exchange(front, &raw);
            let routed = exchange(router, &raw);
            assert_eq!(direct, routed, "{raw}");
        }
    }
}
