//! `mcpick serve --http` on the wire: how an answer is framed (one `application/json`
//! body that arrives in one read, which is what keeps a round trip free of the ~40 ms
//! delayed-ACK stall), SSE kept for what streams, and `GET /healthz`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::common::*;
use serde_json::{Value, json};

/// The `host:port` of a served URL.
fn authority(url: &str) -> String {
    url.trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string()
}

/// A keep-alive connection to the server, with a read timeout so a test cannot hang.
fn connect(url: &str) -> TcpStream {
    let stream = TcpStream::connect(authority(url)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// A 2026-07-28 POST of `method` with `params` (the per-request `_meta` added), as bytes.
fn modern_post(url: &str, id: u64, method: &str, params: Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    // The standard headers repeat the method and, for a `prompts/get`, the name.
    let name_header = params["name"]
        .as_str()
        .map(|name| format!("Mcp-Name: {name}\r\n"))
        .unwrap_or_default();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name_header}Content-Length: {}\r\n\r\n{body}",
        authority(url),
        body.len()
    )
    .into_bytes()
}

/// The head (status line and headers, names lowercased) and the body of one response.
fn split_response(bytes: &[u8]) -> (String, Vec<(String, String)>, Vec<u8>) {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no end of headers in {:?}", String::from_utf8_lossy(bytes)));
    let head = String::from_utf8(bytes[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().to_string();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_string())
        })
        .collect();
    (status, headers, bytes[end + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Sends `request` on `stream` and takes exactly one `read` of the answer.
fn one_read(stream: &mut TcpStream, request: &[u8]) -> Vec<u8> {
    stream.write_all(request).unwrap();
    let mut buffer = vec![0u8; 1 << 20];
    let read = stream.read(&mut buffer).unwrap();
    buffer.truncate(read);
    buffer
}

/// A `prompts/get` and a `prompts/list` of the bundled library, three times each on one
/// keep-alive connection: every answer is a single `application/json` body with a
/// `Content-Length`, whole in the first read. An answer written in pieces (the SSE frames
/// of before) is what met the client's delayed ACK and stalled each round trip ~40 ms.
#[test]
fn a_modern_answer_arrives_whole_in_one_read_as_one_json_body() {
    let server = mcpick_serve_http(&["--builtin"]);
    let mut stream = connect(&server.url);
    let get = json!({"name": "explain-error", "arguments": {"error": "segfault"}});
    let mut id = 0;
    for _ in 0..3 {
        for (method, params) in [("prompts/get", get.clone()), ("prompts/list", json!({}))] {
            id += 1;
            let bytes = one_read(&mut stream, &modern_post(&server.url, id, method, params));
            let (status, headers, body) = split_response(&bytes);
            assert_eq!(status, "HTTP/1.1 200 OK", "{method}");
            assert_eq!(
                header(&headers, "content-type"),
                Some("application/json"),
                "{method}: {headers:?}"
            );
            assert_eq!(header(&headers, "transfer-encoding"), None, "{method}");
            let length: usize = header(&headers, "content-length")
                .unwrap_or_else(|| panic!("{method}: no Content-Length in {headers:?}"))
                .parse()
                .unwrap();
            assert_eq!(body.len(), length, "{method}: the body came in pieces");
            let answer: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(answer["id"], id, "{answer}");
            // A real answer of the bundled library, not an error, is what was timed.
            let filled = answer["result"]["messages"][0]["content"]["text"].as_str();
            let listed = answer["result"]["prompts"].as_array();
            match method {
                "prompts/get" => assert!(
                    filled.is_some_and(|text| text.contains("segfault")),
                    "{answer}"
                ),
                _ => assert!(listed.is_some_and(|p| p.len() > 1), "{answer}"),
            }
        }
    }
}

/// What streams stays SSE: a `subscriptions/listen` opens `text/event-stream` and its
/// acknowledgement arrives at once.
#[test]
fn a_listen_is_still_an_event_stream() {
    let server = mcpick_serve_http(&["--builtin"]);
    let mut stream = connect(&server.url);
    let request = modern_post(
        &server.url,
        7,
        "subscriptions/listen",
        json!({"notifications": {"promptsListChanged": true}}),
    );
    stream.write_all(&request).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("notifications/subscriptions/acknowledged") {
        let read = stream.read(&mut buffer).unwrap();
        assert!(read > 0, "closed: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..read]);
    }
    let (status, headers, _) = split_response(&seen);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(
        header(&headers, "content-type"),
        Some("text/event-stream"),
        "{headers:?}"
    );
}

/// `GET /healthz` answers 200 `ok` (and what it holds), whatever `Host` a load balancer sends, while `/mcp`
/// keeps refusing a foreign `Host` on loopback.
#[test]
fn healthz_answers_ok_outside_the_host_checks_of_mcp() {
    let server = mcpick_serve_http(&["--builtin"]);
    for host in [authority(&server.url).as_str(), "10.0.0.7:8080"] {
        let mut stream = connect(&server.url);
        stream
            .write_all(
                format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            )
            .unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        let (status, headers, body) = split_response(&bytes);
        assert_eq!(status, "HTTP/1.1 200 OK", "Host {host}");
        let body = String::from_utf8(body.to_vec()).unwrap();
        // `ok`, then what the server holds against each bound.
        assert_eq!(body.lines().next(), Some("ok"), "Host {host}: {headers:?}");
        assert!(
            body.contains("\nrequests: ") && body.contains("\narriving_bytes: "),
            "{body}"
        );
    }
    let mut stream = connect(&server.url);
    let request = String::from_utf8(modern_post(&server.url, 1, "prompts/list", json!({})))
        .unwrap()
        .replace(&authority(&server.url), "10.0.0.7:8080");
    let bytes = one_read(&mut stream, request.as_bytes());
    let (status, _, _) = split_response(&bytes);
    assert!(status.starts_with("HTTP/1.1 403"), "{status}");
}

/// A page has one cursor: `00`, `+0`, ` 0` (each once a page cache entry of its own, so a
/// thousand clients sending their own took the server past a gigabyte) are invalid params.
#[test]
fn a_cursor_is_only_the_one_the_server_gave() {
    let server = mcpick_serve_http(&["--builtin"]);
    let mut stream = connect(&server.url);
    for (id, cursor) in ["00", "+0", " 0", "0 ", "000000000000000000000"]
        .into_iter()
        .enumerate()
    {
        let request = modern_post(
            &server.url,
            id as u64 + 1,
            "prompts/list",
            json!({"cursor": cursor}),
        );
        let (_, _, body) = split_response(&one_read(&mut stream, &request));
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(answer["error"]["code"], -32602, "{cursor:?}: {answer}");
        assert!(answer["result"].is_null(), "{cursor:?}: {answer}");
    }
    // The real first page still answers, by no cursor or the offset itself.
    let request = modern_post(&server.url, 99, "prompts/list", json!({"cursor": "0"}));
    let (_, _, body) = split_response(&one_read(&mut stream, &request));
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        answer["result"]["prompts"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{answer}"
    );
}

/// A legacy session the server does not have (its replica died, it expired) is a 404 with a
/// JSON-RPC error body, as the spec says, not the SDK's plain text.
#[test]
fn an_unknown_legacy_session_is_a_404_with_a_json_rpc_error() {
    let server = mcpick_serve_http(&["--builtin"]);
    let mut stream = connect(&server.url);
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "prompts/list", "params": {}}).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: gone-with-its-replica\r\nContent-Length: {}\r\n\r\n{body}",
        authority(&server.url),
        body.len()
    );
    let (status, headers, body) = split_response(&one_read(&mut stream, request.as_bytes()));
    assert_eq!(status, "HTTP/1.1 404 Not Found");
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let answer: Value = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&body)));
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
}
