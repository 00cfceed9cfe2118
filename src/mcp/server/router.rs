//! `mcpick serve --http`'s routes: `/mcp` (the SDK's Streamable HTTP service for a
//! [`PromptServer`], behind [`crate::mcp::server::fast`]'s direct answer to stateless reads, within
//! the limits and behind the token) and `/healthz`; and the listener that serves them. Its
//! own file, so the server's handler and the direct path import it neither way round.

use std::net::SocketAddr;

use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

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
    let router = limiter.bound(mcp_router(server, config, &access.limits));
    // The token guards the routes so far: `/healthz`, added after, stays open to balancers.
    let token = access.token.clone().map(std::sync::Arc::new);
    let may_know = move |headers: &http::HeaderMap| {
        token.as_ref().is_none_or(|token| {
            token.check(headers) == crate::mcp::server::token::Credentials::Accepted
        })
    };
    let router = limiter.with_healthz(
        crate::mcp::server::token::protect(router, access.token),
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
            crate::mcp::server::accept::serve_router(listener, router, shutdown, table, stall).await
        }
    }
    Ok(())
}

/// The `/mcp` route of `serve --http`: the SDK's Streamable HTTP service for `server`
/// with `config` (legacy sessions within `limits`), behind [`crate::mcp::server::fast`]'s direct
/// answer to the stateless reads.
pub(in crate::mcp) fn mcp_router(
    server: PromptServer,
    config: StreamableHttpServerConfig,
    limits: &crate::mcp::HttpLimits,
) -> axum::Router {
    // The limits in front refuse a body over `--max-body` with their own JSON answer; the SDK
    // gets the same limit, or its own 4 MiB default would refuse what `--max-body` allows.
    let config = config.with_max_request_body_bytes(limits.max_body);
    // An empty list is how the SDK is told to take any Host (`--allow-remote`).
    let allowed_hosts = (!config.allowed_hosts.is_empty()).then(|| config.allowed_hosts.clone());
    let fast = crate::mcp::server::fast::FastReads::new(
        server.clone(),
        allowed_hosts,
        config.max_request_body_bytes,
    );
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        crate::mcp::server::limits::sessions(limits).into(),
        config,
    );
    fast.layer(
        axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(session_gone_as_json_rpc)),
    )
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
