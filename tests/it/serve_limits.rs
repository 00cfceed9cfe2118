//! `mcpick serve --http` bounded under load and abuse, end to end with the real binary on
//! loopback and raw TCP clients: 413 for a body over `--max-body` before it is sent, 503
//! with `Retry-After` past `--max-requests` and `--max-streams` (listen streams and bodies
//! still arriving do not hold request slots), the legacy session cap, SIGTERM draining a
//! listen stream (its final result) and a request in flight, many listeners all told of a
//! file edit, half-closed requests answered, and a gone listener's slot freed.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running `mcpick serve --http 127.0.0.1:0`, killed when dropped.
struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    authority: String,
    /// The rest of its stderr, once it has exited.
    stderr: std::sync::mpsc::Receiver<String>,
    _home: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `mcpick serve ARGS… --http 127.0.0.1:0` and waits for its banner.
fn serve(args: &[&str]) -> Served {
    serve_within(None, args)
}

/// [`serve`], under a limit of `open_files` (soft and hard) when given, as `ulimit -n`
/// in a shell or systemd's `LimitNOFILE=` sets it.
fn serve_within(open_files: Option<u64>, args: &[&str]) -> Served {
    let home = tempfile::tempdir().unwrap();
    let mut command = match open_files {
        Some(limit) => {
            let mut shell = Command::new("sh");
            shell
                .arg("-c")
                .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                .arg(env!("CARGO_BIN_EXE_mcpick"));
            shell
        }
        None => Command::new(env!("CARGO_BIN_EXE_mcpick")),
    };
    let mut child = command
        .arg("serve")
        .args(args)
        .args(["--http", "127.0.0.1:0"])
        .env_remove("MCPICK_SERVE_TOKEN")
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mcpick serve");
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mcpick serve did not start");
        };
        if let Some(at) = line.find("http://") {
            let authority = line[at + 7..].split('/').next().unwrap().to_string();
            return Served {
                child,
                authority,
                stderr: rx,
                _home: home,
            };
        }
    }
}

fn connect(served: &Served) -> TcpStream {
    let stream = TcpStream::connect(&served.authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

/// The head of a POST to `/mcp` of a body of `length` bytes.
fn post_head(served: &Served, length: usize, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {length}\r\n{extra}\r\n",
        served.authority
    )
}

/// A 2026-07-28 request body.
fn modern(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn modern_headers(method: &str) -> String {
    format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n")
}

/// Reads an HTTP answer's head: the status and the header lines (names lower-cased).
fn read_head(reader: &mut BufReader<TcpStream>) -> (u16, Vec<(String, String)>) {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    (status, headers)
}

/// Reads a `prompts/list` answer, a JSON body or an SSE event, and checks it lists prompts.
fn assert_listed(reader: &mut BufReader<TcpStream>) {
    let (status, headers) = read_head(reader);
    assert_eq!(status, 200, "{headers:?}");
    match header(&headers, "content-length") {
        Some(length) => {
            let mut body = vec![0; length.parse().unwrap()];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert!(body["result"]["prompts"].is_array(), "{body}");
        }
        None => {
            next_event(reader, r#""prompts""#);
        }
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Sends a whole request on a new connection (closed after) and reads all of the answer.
fn exchange(served: &Served, head_extra: &str, body: &str) -> (u16, Vec<(String, String)>, String) {
    let mut stream = connect(served);
    let head = post_head(
        served,
        body.len(),
        &format!("Connection: close\r\n{head_extra}"),
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    let mut rest = String::new();
    let _ = reader.read_to_string(&mut rest);
    (status, headers, rest)
}

/// A listen stream opened, read up to its acknowledgement.
fn open_listen(served: &Served, id: u64) -> BufReader<TcpStream> {
    let body = modern(
        id,
        "subscriptions/listen",
        json!({"notifications": {"promptsListChanged": true}}),
    );
    let mut stream = connect(served);
    let head = post_head(served, body.len(), &modern_headers("subscriptions/listen"));
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    assert_eq!(status, 200, "{headers:?}");
    next_event(&mut reader, "notifications/subscriptions/acknowledged");
    reader
}

/// Reads SSE `data:` lines until one holds `wanted`; returns it. Panics at the end of the
/// stream.
fn next_event(reader: &mut BufReader<TcpStream>, wanted: &str) -> String {
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        let read = reader.read_line(&mut line).unwrap_or(0);
        assert!(read > 0, "the stream ended before {wanted}: {seen:?}");
        if let Some(data) = line.trim().strip_prefix("data:") {
            if data.contains(wanted) {
                return data.trim().to_string();
            }
            seen.push(data.trim().to_string());
        }
    }
}

#[test]
fn a_body_over_the_limit_gets_413_before_it_is_sent() {
    let served = serve(&["--builtin"]);
    let mut stream = connect(&served);
    // 2 MiB announced, 10 bytes sent: the answer comes without the rest.
    let head = post_head(&served, 2 << 20, &modern_headers("prompts/list"));
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(br#"{"jsonrpc""#).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let (status, headers) = read_head(&mut reader);
    assert_eq!(status, 413);
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let length: usize = header(&headers, "content-length").unwrap().parse().unwrap();
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"], "payload_too_large", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("1048576 bytes (--max-body)"),
        "{body}"
    );

    // A chunked body (no length said) that grows past a small --max-body: 413 too.
    let served = serve(&["--builtin", "--max-body", "1000"]);
    let mut stream = connect(&served);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
        served.authority
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = "x".repeat(600);
    for _ in 0..2 {
        stream
            .write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes())
            .unwrap();
    }
    let mut reader = BufReader::new(stream);
    assert_eq!(read_head(&mut reader).0, 413);

    // Under the limit, served as before.
    let list = modern(1, "prompts/list", json!({}));
    let (status, _, body) = exchange(&served, &modern_headers("prompts/list"), &list);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""prompts""#), "{body}");
}

#[test]
fn listen_streams_and_slow_bodies_hold_no_request_slot() {
    let served = serve(&["--builtin", "--max-requests", "1", "--max-streams", "2"]);
    // Two listen streams open: they do not count against the one request slot.
    let _first = open_listen(&served, 1);
    let _second = open_listen(&served, 2);
    let list = modern(3, "prompts/list", json!({}));
    let (status, _, body) = exchange(&served, &modern_headers("prompts/list"), &list);
    assert_eq!(status, 200, "{body}");

    // But against --max-streams: a third is refused.
    let body = modern(
        4,
        "subscriptions/listen",
        json!({"notifications": {"promptsListChanged": true}}),
    );
    let (status, headers, _) = exchange(&served, &modern_headers("subscriptions/listen"), &body);
    assert_eq!(status, 503);
    assert_eq!(header(&headers, "retry-after"), Some("1"));

    // A request whose body is still arriving holds no slot: 300 clients that send their
    // headers and then a byte a second (each announcing 100,000 bytes) do not keep the
    // others out, even with one slot.
    let mut slow = Vec::new();
    for _ in 0..300 {
        let mut stream = connect(&served);
        let head = post_head(&served, 100_000, &modern_headers("prompts/list"));
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(b"{").unwrap();
        slow.push(stream);
    }
    std::thread::sleep(Duration::from_millis(300));
    let mut answered = 0;
    for _ in 0..100 {
        let (status, _, _) = exchange(&served, &modern_headers("prompts/list"), &list);
        answered += usize::from(status == 200);
        for stream in &mut slow {
            let _ = stream.write_all(b" ");
        }
    }
    assert_eq!(answered, 100, "probes answered 200 beside 300 slow bodies");
    let (status, body) = get(&served, "/healthz");
    assert_eq!((status, body.lines().next()), (200, Some("ok")), "{body}");
    // One that finishes its body is answered.
    let mut one = slow.pop().unwrap();
    let rest = " ".repeat(100_000 - 1 - 100);
    one.write_all(rest.as_bytes()).unwrap();
    let mut reader = BufReader::new(one);
    let (status, _) = read_head(&mut reader);
    // Not JSON-RPC (a brace and blanks): refused as a request, not as a busy server.
    assert_eq!(status, 400);
}

/// A `GET PATH` on a new connection: the status and the body.
fn get(served: &Served, path: &str) -> (u16, String) {
    let mut stream = connect(served);
    let head = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        served.authority
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let (status, _) = read_head(&mut reader);
    let mut body = String::new();
    let _ = reader.read_to_string(&mut body);
    (status, body)
}

/// A legacy `initialize` on a new connection: the session id it is given.
fn legacy_session(served: &Served) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "flood", "version": "1"}}})
    .to_string();
    let (status, headers, answer) = exchange(served, "", &body);
    assert_eq!(status, 200, "{answer}");
    let id = header(&headers, "mcp-session-id")
        .unwrap_or_else(|| panic!("no session id in {headers:?}"))
        .to_string();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let (status, _, answer) = exchange(
        served,
        &format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"),
        &initialized,
    );
    assert_eq!(status, 202, "{answer}");
    id
}

/// The HTTP status of a legacy `prompts/list` in session `id`.
fn legacy_list_status(served: &Served, id: &str) -> u16 {
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}).to_string();
    exchange(
        served,
        &format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"),
        &body,
    )
    .0
}

#[test]
fn a_flood_of_legacy_initializes_keeps_only_max_sessions() {
    let served = serve(&["--builtin", "--max-sessions", "3"]);
    let first = legacy_session(&served);
    let ids: Vec<String> = (0..12).map(|_| legacy_session(&served)).collect();
    // The oldest went to make room; the newest three are kept and served.
    assert_eq!(legacy_list_status(&served, &first), 404);
    assert_eq!(legacy_list_status(&served, &ids[8]), 404);
    for id in &ids[9..] {
        assert_eq!(legacy_list_status(&served, id), 200, "{id}");
    }
}

#[test]
fn sigterm_answers_the_request_in_flight_ends_listen_streams_with_their_result_and_exits_0() {
    let mut served = serve(&["--builtin"]);
    let mut listen = open_listen(&served, 7);
    // A request whose body is half sent when the signal comes.
    let list = modern(8, "prompts/list", json!({}));
    let mut in_flight = connect(&served);
    let head = post_head(&served, list.len(), &modern_headers("prompts/list"));
    in_flight.write_all(head.as_bytes()).unwrap();
    in_flight.write_all(&list.as_bytes()[..10]).unwrap();
    std::thread::sleep(Duration::from_millis(300));

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(served.child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    // The listen gets the 2026-07-28 final result, then its stream ends.
    let result: Value = serde_json::from_str(&next_event(&mut listen, r#""id":7"#)).unwrap();
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "mcpick-serve",
        "{result}"
    );
    let mut rest = String::new();
    let _ = listen.read_to_string(&mut rest);
    assert!(!rest.contains("data:"), "{rest}");

    // The request in flight is still answered.
    in_flight.write_all(&list.as_bytes()[10..]).unwrap();
    let mut reader = BufReader::new(in_flight);
    assert_listed(&mut reader);

    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = served.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr: Vec<String> = served.stderr.try_iter().collect();
    assert_eq!(status.code(), Some(0), "{stderr:?}");
}

fn write_prompt(dir: &Path, name: &str, description: &str) {
    std::fs::write(
        dir.join(format!("{name}.prompt.md")),
        format!("---\ndescription: {description}\n---\nSay hello.\n"),
    )
    .unwrap();
}

#[test]
fn two_hundred_listen_streams_all_hear_of_a_file_edit() {
    const LISTENERS: usize = 200;
    let folder = tempfile::tempdir().unwrap();
    write_prompt(folder.path(), "hello", "greets");
    let folder_arg = folder.path().to_str().unwrap();
    let served = serve(&[folder_arg]);
    let listeners: Vec<BufReader<TcpStream>> = (0..LISTENERS)
        .map(|i| open_listen(&served, i as u64 + 1))
        .collect();
    write_prompt(folder.path(), "second", "new");
    let started = Instant::now();
    let heard: Vec<std::thread::JoinHandle<()>> = listeners
        .into_iter()
        .map(|mut reader| {
            std::thread::spawn(move || {
                next_event(&mut reader, "notifications/prompts/list_changed");
            })
        })
        .collect();
    let told = heard.into_iter().filter_map(|h| h.join().ok()).count();
    assert_eq!(told, LISTENERS, "after {:?}", started.elapsed());
}

#[test]
fn an_idle_legacy_session_expires_after_session_idle() {
    let served = serve(&["--builtin", "--session-idle", "1s"]);
    let used = legacy_session(&served);
    let idle = legacy_session(&served);
    for _ in 0..4 {
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(legacy_list_status(&served, &used), 200);
    }
    // 1.6 s without a request: gone; the one used all along is still there.
    assert_eq!(legacy_list_status(&served, &idle), 404);
    assert_eq!(legacy_list_status(&served, &used), 200);
}

#[test]
fn limits_of_zero_are_refused_naming_the_flag() {
    for args in [
        ["--max-body", "0"],
        ["--max-requests", "0"],
        ["--session-idle", "0"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(["serve", "--builtin", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(args[0]), "{args:?}: {stderr}");
    }
}

#[test]
fn a_body_that_trickles_in_gets_408_and_frees_its_slot() {
    let served = serve(&[
        "--builtin",
        "--max-requests",
        "1",
        "--body-timeout",
        "500ms",
    ]);
    let list = modern(1, "prompts/list", json!({}));
    let mut slow = connect(&served);
    let head = post_head(&served, list.len(), &modern_headers("prompts/list"));
    slow.write_all(head.as_bytes()).unwrap();
    let started = Instant::now();
    let mut reader = BufReader::new(slow.try_clone().unwrap());
    // A byte now and then, never the whole body.
    let trickle = std::thread::spawn(move || {
        for byte in list.as_bytes()[..20].iter() {
            if slow.write_all(&[*byte]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 408);
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
    let _ = trickle.join();
    // Its request slot is free again.
    let list = modern(2, "prompts/list", json!({}));
    let (status, _, body) = exchange(&served, &modern_headers("prompts/list"), &list);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_request_followed_by_a_half_close_is_answered_on_every_path() {
    let served = serve(&["--builtin", "--max-sessions", "100"]);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "half-close", "version": "1"}}})
    .to_string();
    let paths = [
        // The direct answer of a stateless read.
        (
            "prompts/list (direct)",
            modern_headers("prompts/list"),
            modern(1, "prompts/list", json!({})),
        ),
        // The SDK's.
        (
            "server/discover (SDK)",
            modern_headers("server/discover"),
            modern(2, "server/discover", json!({})),
        ),
        ("legacy initialize", String::new(), initialize),
    ];
    for (path, headers, body) in &paths {
        let mut answered = 0;
        for _ in 0..20 {
            let mut stream = connect(&served);
            let mut request = post_head(&served, body.len(), headers).into_bytes();
            request.extend_from_slice(body.as_bytes());
            // One write, then no more: as `curl` with a body on stdin, or a proxy, does.
            stream.write_all(&request).unwrap();
            stream.shutdown(std::net::Shutdown::Write).unwrap();
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
            answered += usize::from(answer.starts_with(b"HTTP/1.1 200"));
        }
        assert_eq!(answered, 20, "{path}: half-closed requests answered");
    }
}

#[test]
fn a_listen_stream_whose_client_is_gone_frees_its_slot() {
    let served = serve(&["--builtin", "--max-streams", "1"]);
    let first = open_listen(&served, 1);
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let body = modern(
            2,
            "subscriptions/listen",
            json!({"notifications": {"promptsListChanged": true}}),
        );
        let mut stream = connect(&served);
        let head = post_head(&served, body.len(), &modern_headers("subscriptions/listen"));
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut reader = BufReader::new(stream);
        if read_head(&mut reader).0 == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the gone client's stream slot was not freed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Raises this test process's limit on open files to 4096 (or its hard limit): the tests
/// that hold 1,100 connections and their probes need the descriptors.
fn room_for_many_connections() {
    let (soft, hard) =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).unwrap();
    if soft < 4096 {
        nix::sys::resource::setrlimit(
            nix::sys::resource::Resource::RLIMIT_NOFILE,
            hard.min(4096),
            hard,
        )
        .unwrap();
    }
}

#[test]
fn past_the_open_file_limit_new_clients_are_served_and_the_idle_oldest_make_room() {
    room_for_many_connections();
    // A process held to 1,024 open files, as a shell's `ulimit -n 1024` or a unit's
    // `LimitNOFILE=1024` holds it (soft and hard: no raising).
    let served = serve_within(Some(1024), &["--builtin"]);
    // 1,100 clients that send half a request head and then nothing.
    let mut silent = Vec::new();
    for _ in 0..1_100 {
        let mut stream = connect(&served);
        stream.write_all(b"POST /mcp HTTP/1.1\r\nHo").unwrap();
        silent.push(stream);
    }
    // Each probe is a client that gives up after 2 s: far less than the 10 s after which
    // the server would close the silent ones by itself, so only making room serves it.
    let list = modern(1, "prompts/list", json!({}));
    let request = format!(
        "{}{list}",
        post_head(
            &served,
            list.len(),
            &format!("Connection: close\r\n{}", modern_headers("prompts/list"))
        )
    );
    let address = served.authority.parse().unwrap();
    let mut answered = 0;
    for _ in 0..100 {
        let Ok(mut probe) = TcpStream::connect_timeout(&address, Duration::from_secs(2)) else {
            continue;
        };
        probe
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        probe.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let _ = probe.read_to_end(&mut answer);
        answered += usize::from(answer.starts_with(b"HTTP/1.1 200"));
    }
    assert!(answered >= 99, "{answered} of 100 probes answered 200");
    // The oldest silent ones were closed to make room (EOF or a reset when read).
    let first = &mut silent[0];
    first
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut byte = [0u8; 1];
    match first.read(&mut byte) {
        Ok(0) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        other => panic!("the oldest idle connection is still open: {other:?}"),
    }
    let stderr: Vec<String> = served.stderr.try_iter().collect();
    assert!(
        !stderr
            .iter()
            .any(|line| line.contains("accepting a connection failed")),
        "the server ran out of descriptors: {stderr:?}"
    );
}

/// The bytes of every log file under `served`'s state folder.
fn log_bytes(served: &Served) -> u64 {
    let dir = served._home.path().join("state").join("mcpick");
    std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn a_flood_of_requests_with_huge_names_writes_little_log() {
    let served = serve(&["--builtin"]);
    let name = "x".repeat(30_000);
    let body = modern(1, "prompts/get", json!({"name": name}));
    let head = post_head(
        &served,
        body.len(),
        &format!("{}Mcp-Name: {name}\r\n", modern_headers("prompts/get")),
    );
    let mut stream = connect(&served);
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    for _ in 0..300 {
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let (status, headers) = read_head(&mut reader);
        assert_eq!(status, 200, "{headers:?}");
        let length: usize = header(&headers, "content-length").unwrap().parse().unwrap();
        let mut answer = vec![0; length];
        reader.read_exact(&mut answer).unwrap();
        assert!(
            String::from_utf8_lossy(&answer).contains("unknown prompt"),
            "{}",
            String::from_utf8_lossy(&answer[..answer.len().min(300)])
        );
    }
    // 9 MB of names: the log takes a few lines (each cut at 1 KiB, the same one at most
    // ten times per 10 s), not one a request.
    let deadline = Instant::now() + Duration::from_secs(5);
    while log_bytes(&served) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let written = log_bytes(&served);
    assert!(written > 0, "nothing was logged: is the log elsewhere?");
    assert!(
        written < 32 * 1024,
        "{written} bytes of log for 300 requests"
    );
}

/// A limit of `--http` given without it is a usage error naming `--http`, not a limit
/// silently ignored by the stdio server.
#[test]
fn http_limits_without_http_are_refused() {
    for flag in [
        ["--max-body", "100"],
        ["--max-requests", "4"],
        ["--max-streams", "4"],
        ["--max-sessions", "4"],
        ["--session-idle", "10s"],
        ["--max-connections", "10"],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(["serve", "--builtin"])
            .args(flag)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag:?}: {stderr}");
        assert!(stderr.contains("--http <ADDR>"), "{flag:?}: {stderr}");
    }
}

/// A client that sends requests and reads none of the answers does not keep them: once an
/// answer's write has stalled for the write timeout, the connection is closed (its memory
/// freed), where before it stayed open, holding every answer, for as long as the client
/// liked.
#[test]
fn a_client_that_reads_no_answers_is_closed_after_the_write_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // A 512 KiB answer: a few of them fill the socket buffers of both ends.
    let big = "word ".repeat(100 * 1024);
    std::fs::write(dir.path().join("big.prompt.md"), &big).unwrap();
    let served = serve(&[&dir.path().to_string_lossy(), "--write-timeout", "1s"]);
    let mut stream = connect(&served);
    let body = modern(1, "prompts/get", json!({"name": "big"}));
    let request = format!(
        "{}{body}",
        post_head(
            &served,
            body.len(),
            &format!("{}Mcp-Name: big\r\n", modern_headers("prompts/get"))
        )
    );
    // 64 answers, 32 MiB: far more than the sockets hold, so the server's writes stall.
    for _ in 0..64 {
        stream.write_all(request.as_bytes()).unwrap();
    }
    std::thread::sleep(Duration::from_secs(3));
    // Now read it all: it ends (the server closed it), rather than waiting for more.
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buffer = vec![0u8; 1 << 20];
    let mut read = 0usize;
    let ended = loop {
        match stream.read(&mut buffer) {
            Ok(0) => break true,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break true,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break false;
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert!(
        ended,
        "the connection was still open after {read} bytes, waiting for the client to read"
    );
    assert!(
        read < 64 * big.len(),
        "the connection stayed open through the stall: every answer was written once the client read"
    );
}

/// A request head over 32 KiB is refused with 431 and its connection closed (hyper's own
/// bound let each connection hold ~400 KiB of head), and the server serves on.
#[test]
fn a_head_over_32_kib_gets_431() {
    let served = serve(&["--builtin"]);
    let mut stream = connect(&served);
    let pad = format!("X-Pad: {}\r\n", "a".repeat(990));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\n{}",
        served.authority,
        pad.repeat(40)
    );
    // The server may close before the whole head is written.
    let _ = stream.write_all(head.as_bytes());
    let mut reader = BufReader::new(stream);
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 431);
    let list = modern(1, "prompts/list", json!({}));
    let (status, _, body) = exchange(&served, &modern_headers("prompts/list"), &list);
    assert_eq!(status, 200, "{body}");
}

/// `GET /healthz`'s line `NAME: NOW/MOST` as NOW.
fn held(served: &Served, name: &str) -> u64 {
    let (status, body) = get(served, "/healthz");
    assert_eq!(status, 200, "{body}");
    body.lines()
        .find_map(|line| line.strip_prefix(&format!("{name}: ")))
        .and_then(|held| held.split('/').next())
        .and_then(|now| now.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {body}"))
}

/// Bodies sent a byte at a time are held as the bytes that came (each byte pinned an
/// 8 KiB buffer before: 50 such clients took the server from 18 to 379 MiB), counted in
/// `/healthz`, and one arriving slower than `--min-body-rate` after its first 5 s gets 408.
#[test]
fn trickled_bodies_hold_what_came_and_the_slowest_get_408() {
    let served = serve(&["--builtin", "--min-body-rate", "1000"]);
    let list = modern(1, "prompts/list", json!({})).repeat(20);
    let head = post_head(&served, list.len(), &modern_headers("prompts/list"));
    let mut slow: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut stream = connect(&served);
            stream.write_all(head.as_bytes()).unwrap();
            stream
        })
        .collect();
    let started = Instant::now();
    for byte in list.as_bytes()[..40].iter() {
        for stream in &mut slow {
            let _ = stream.write_all(&[*byte]);
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    // 50 heads and 40 bytes of body each: their bytes, not 8 KiB a byte.
    let arriving = held(&served, "arriving_bytes");
    let sent = 50 * (head.len() + 40) as u64;
    assert!(
        arriving > 0 && arriving <= sent,
        "{arriving} held for {sent} sent"
    );
    // 40 bytes in a second or so is under 1,000 a second: 408 once the 5 s are up.
    let mut reader = BufReader::new(slow.pop().unwrap());
    let (status, _) = read_head(&mut reader);
    assert_eq!(status, 408);
    assert!(
        started.elapsed() >= Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

/// Under `ulimit -n 1024`, 1,100 clients sending their bodies slowly fill every
/// connection the server may open; each probe (`/healthz`, or a list) still gets in, the
/// slowest sender shed for it (12 of 321 probes were answered before).
#[test]
fn slow_bodies_past_the_open_file_limit_cannot_shut_the_door() {
    room_for_many_connections();
    let served = serve_within(Some(1024), &["--builtin"]);
    let head = post_head(&served, 100_000, &modern_headers("prompts/list"));
    let mut slow = Vec::new();
    for _ in 0..1_100 {
        let mut stream = connect(&served);
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(b"{");
        slow.push(stream);
    }
    let list = modern(1, "prompts/list", json!({}));
    let probe_list = format!(
        "{}{list}",
        post_head(
            &served,
            list.len(),
            &format!("Connection: close\r\n{}", modern_headers("prompts/list"))
        )
    );
    let probe_health = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        served.authority
    );
    let address = served.authority.parse().unwrap();
    let mut answered = 0;
    for turn in 0..100 {
        // The slow ones keep sending, a byte each now and then.
        if turn % 10 == 0 {
            for stream in &mut slow {
                let _ = stream.write_all(b" ");
            }
        }
        let Ok(mut probe) = TcpStream::connect_timeout(&address, Duration::from_secs(2)) else {
            continue;
        };
        probe
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let request = if turn % 2 == 0 {
            &probe_health
        } else {
            &probe_list
        };
        let _ = probe.write_all(request.as_bytes());
        let mut answer = Vec::new();
        let _ = probe.read_to_end(&mut answer);
        answered += usize::from(answer.starts_with(b"HTTP/1.1 200"));
    }
    assert!(answered >= 99, "{answered} of 100 probes answered 200");
}
