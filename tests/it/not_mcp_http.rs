//! HTTP servers that are no MCP endpoint (a 404, a web page): mcpick says the server
//! answered, what it answered and where the MCP endpoint usually is, and never asks for a
//! sign-in nobody asked for.

use crate::common::*;

/// An HTTP server on loopback that answers every request with `status` and a short HTML
/// page; the request lines it got are collected.
fn answering_http(status: &'static str) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let kept = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let kept = kept.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut request = String::new();
                    if reader.read_line(&mut request).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut length = 0;
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0 {
                            return;
                        }
                        if header.trim().is_empty() {
                            break;
                        }
                        if let Some((name, value)) = header.split_once(':')
                            && name.eq_ignore_ascii_case("content-length")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    let _ = reader.read_exact(&mut body);
                    kept.lock().unwrap().push(request.trim().to_string());
                    let page = "<html>nothing here</html>";
                    let answer = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n{page}",
                        page.len()
                    );
                    if stream.write_all(answer.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, seen)
}

#[test]
fn a_server_answering_404_is_said_to_have_answered_it() {
    let (url, seen) = answering_http("404 Not Found");
    let sandbox = Sandbox::new(&http("gone", &url));
    let output = sandbox.mcpick(&["servers"]);
    let text = success(&output);
    assert!(
        text.contains("  error: the server answered HTTP 404 at this URL (check the path of `url`"),
        "{text}"
    );
    // The page's text, not its markup.
    assert!(text.contains("Not Found: nothing here\n"), "{text}");
    assert!(!text.contains("<html>"), "{text}");
    assert!(!text.contains("cannot reach"), "{text}");
    // It never asked for a sign-in: not "not signed in".
    assert!(!text.contains("sign-in:"), "{text}");
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|r| r.starts_with("POST /mcp")),
        "{:?}",
        seen.lock().unwrap()
    );
    // `get` says the same, and does not call the server unreachable either.
    let output = sandbox.mcpick(&["get", "gone/hello"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("the server answered HTTP 404 at this URL"),
        "{err}"
    );
    assert!(!err.contains("cannot reach"), "{err}");
    // A 500 too, through the SDK's other error, with its reason.
    let (url, _) = answering_http("500 Internal Server Error");
    let sandbox = Sandbox::new(&http("broken", &url));
    let text = success(&sandbox.mcpick(&["servers"]));
    assert!(
        text.contains("  error: the server answered HTTP 500 at this URL: Internal Server Error\n"),
        "{text}"
    );
}

#[test]
fn a_web_server_that_is_no_mcp_endpoint_gets_the_path_hint_and_no_sign_in_words() {
    // What `python3 -m http.server` answers a POST.
    let (plain, _) = answering_http("501 Unsupported method ('POST')");
    let (legacy, seen) = answering_http("404 File not found");
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/mcp", listener.local_addr().unwrap())
    };
    let config = format!(
        "{}{}transport = \"sse\"\n{}",
        http("plain", &plain),
        http("legacy", &legacy.replace("/mcp", "/sse")),
        http("gone", &refused),
    );
    let sandbox = Sandbox::new(&config);
    let text = success(&sandbox.mcpick(&["servers"]));
    assert!(
        text.contains(
            "  error: the server answered HTTP 501 at this URL (check the path of `url`: is \
             this the server's MCP endpoint?): Not Implemented\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  error: the server answered HTTP 404 at this URL (check the path of `url`: is \
             this the server's MCP endpoint?): Not Found: nothing here\n"
        ),
        "{text}"
    );
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|r| r.starts_with("GET /sse")),
        "{:?}",
        seen.lock().unwrap()
    );
    assert!(text.contains("cannot reach the server"), "{text}");
    // None of them asked for a sign-in (and HTTP+SSE has none): no words on it.
    assert!(!text.contains("sign-in:"), "{text}");
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    for row in servers.as_array().unwrap() {
        assert_eq!(row["state"], "failed", "{row}");
        assert!(row.get("signIn").is_none(), "{row}");
    }
}
