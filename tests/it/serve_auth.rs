//! `mcpick serve --http` closed to strangers, end to end with the real binary on loopback:
//! the bearer token (`--auth-token-file`, `MCPICK_SERVE_TOKEN`) and its 401 challenge,
//! `--allow-remote` refused without a token unless `--insecure-no-auth`, bad token, key and
//! certificate files refused at startup, and TLS with a certificate made at test time
//! (`openssl`, which `./test.sh` installs).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

const TOKEN: &str = "s3cret-token-0123456789abcdef";

/// A running `mcpick serve --http`, killed when dropped.
struct Served {
    child: Child,
    /// `http://HOST:PORT/mcp` or `https://…`, as its banner says.
    url: String,
    /// Its stderr lines so far.
    stderr: Arc<Mutex<Vec<String>>>,
    /// HOME and XDG_STATE_HOME (the log file) of the process.
    home: tempfile::TempDir,
}

impl Served {
    /// `HOST:PORT` of the URL.
    fn authority(&self) -> String {
        self.url
            .split("://")
            .nth(1)
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string()
    }

    /// Everything the server wrote to its log file.
    /// The server's log files, once they hold `wanted` (the log is written off the
    /// request's path, so its last lines may take a moment), or as they are after 10 s.
    fn log_holding(&self, wanted: &str) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let mut text = String::new();
            for entry in walk(self.home.path()) {
                if entry.extension().is_some_and(|e| e == "log") {
                    text.push_str(&std::fs::read_to_string(&entry).unwrap_or_default());
                }
            }
            if text.contains(wanted) || std::time::Instant::now() > deadline {
                return text;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// `mcpick` with a clean environment of its own (no token from the caller's shell), logging
/// everything to a file under `home`.
fn mcpick(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .args(args)
        .env_remove("MCPICK_SERVE_TOKEN")
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("MCPICK_LOG", "trace")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Starts `mcpick serve --builtin --http ADDRESS ARGS…` and waits for its banner.
fn serve(address: &str, args: &[&str], env: &[(&str, &str)]) -> Served {
    let home = tempfile::tempdir().unwrap();
    let mut all = vec!["serve", "--builtin", "--http", address];
    all.extend_from_slice(args);
    let (child, url, lines) = crate::common::spawn_serving(&mut mcpick(home.path(), &all, env));
    Served {
        child,
        url,
        stderr: lines,
        home,
    }
}

/// [`serve`] on loopback with `--auth-token-file`, [`TOKEN`] in a file of mode 0600 in
/// the folder returned (kept for as long as the server runs).
fn serve_behind_token_file() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let file = secret_file(dir.path(), "token", &format!("{TOKEN}\n"), 0o600);
    let server = serve(
        "127.0.0.1:0",
        &["--auth-token-file", file.to_str().unwrap()],
        &[],
    );
    (dir, server)
}

/// Runs `mcpick serve ARGS…`, which is expected to refuse to start.
fn refused(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let home = tempfile::tempdir().unwrap();
    let mut all = vec!["serve", "--builtin"];
    all.extend_from_slice(args);
    let mut command = mcpick(home.path(), &all, env);
    let child = command.spawn().unwrap();
    let output: Output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A file holding `text`, readable by its owner only (unless `mode` says otherwise).
fn secret_file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

/// A 2026-07-28 `prompts/list` request body.
fn list_request() -> String {
    serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "prompts/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    })
    .to_string()
}

/// An HTTP answer: status, header lines (lower-cased names) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC answer with id 1 (a JSON body, or the SSE event that carries it).
    fn message(&self) -> Value {
        let line = self
            .body
            .lines()
            .map(|l| l.trim_start_matches("data:").trim())
            .find(|l| l.starts_with('{') && l.contains(r#""id":1"#))
            .unwrap_or_else(|| panic!("no answer in:\n{}", self.body));
        serde_json::from_str(line).unwrap()
    }
}

fn parse_answer(raw: &str) -> Answer {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer:\n{raw}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// The raw bytes of a 2026-07-28 `prompts/list` POST to `/mcp`, with `authorization` if any.
fn raw_request(authority: &str, authorization: Option<&str>) -> String {
    let body = list_request();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: prompts/list\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(value) = authorization {
        request.push_str(&format!("Authorization: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    request
}

/// POSTs a `prompts/list` over plain HTTP.
fn post(server: &Served, authorization: Option<&str>) -> Answer {
    exchange(server, &raw_request(&server.authority(), authorization))
}

/// Sends `request` (its raw bytes, `Connection: close`) and reads the whole answer.
fn exchange(server: &Served, request: &str) -> Answer {
    let mut stream = std::net::TcpStream::connect(server.authority()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    parse_answer(&raw)
}

/// A 200 with a non-empty prompt list whose `cacheScope` is `scope`.
fn assert_listed_as(answer: &Answer, scope: &str) {
    assert_listed(answer);
    let message = answer.message();
    assert_eq!(message["result"]["cacheScope"], scope, "{message}");
}

fn assert_listed(answer: &Answer) {
    assert_eq!(answer.status, 200, "{}", answer.body);
    let message = answer.message();
    let prompts = message["result"]["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{message}"));
    assert!(!prompts.is_empty(), "{message}");
}

fn assert_challenged(answer: &Answer, wrong_token: bool) {
    assert_eq!(answer.status, 401, "{}", answer.body);
    let challenge = answer
        .header("www-authenticate")
        .unwrap_or_else(|| panic!("no WWW-Authenticate in {:?}", answer.headers));
    if wrong_token {
        assert!(
            challenge.starts_with(r#"Bearer realm="mcpick", error="invalid_token""#),
            "{challenge}"
        );
    } else {
        assert_eq!(challenge, r#"Bearer realm="mcpick""#);
    }
    let body: Value =
        serde_json::from_str(&answer.body).unwrap_or_else(|e| panic!("{e}: {}", answer.body));
    assert_eq!(body["error"], "unauthorized");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Authorization: Bearer <token>"),
        "{body}"
    );
}

#[test]
fn with_a_token_file_only_requests_carrying_the_token_are_answered() {
    let (_dir, server) = serve_behind_token_file();
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );

    assert_challenged(&post(&server, None), false);
    assert_challenged(&post(&server, Some("Basic dXNlcjpwYXNz")), false);
    assert_challenged(&post(&server, Some(&format!("Bearer {TOKEN}x"))), true);
    assert_challenged(&post(&server, Some("Bearer wrong")), true);
    // For token holders only: no shared cache may pass it on.
    assert_listed_as(&post(&server, Some(&format!("Bearer {TOKEN}"))), "private");

    let banner = server.stderr.lock().unwrap().join("\n");
    assert!(banner.contains("bearer token required"), "{banner}");
    assert!(!banner.contains(TOKEN), "{banner}");
    // Even at trace level, the log has who knocked but never the token.
    let log = server.log_holding("refused an HTTP request without the bearer token");
    assert!(
        log.contains("refused an HTTP request without the bearer token"),
        "{log}"
    );
    assert!(!log.contains(TOKEN), "the token is in the log:\n{log}");
}

#[test]
fn mcpick_as_a_client_says_a_wrong_team_token_is_wrong_not_a_sign_in() {
    let (_dir, server) = serve_behind_token_file();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    let write_config = |token: &str| {
        std::fs::write(
            &config,
            format!(
                "[servers.team]\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer {token}\" }}\n",
                server.url
            ),
        )
        .unwrap();
    };
    let list = || {
        let mut command = mcpick(home.path(), &["list"], &[]);
        command.env("MCPICK_CONFIG", &config).stdout(Stdio::piped());
        command.output().unwrap()
    };

    write_config("not-the-token");
    let refused = list();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_ne!(refused.status.code(), Some(0), "{said}");
    assert!(
        said.contains("`team` refused the token in its `Authorization` header"),
        "{said}"
    );
    assert!(!said.contains("sign in"), "{said}");

    write_config(TOKEN);
    let listed = list();
    assert_eq!(
        listed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains("team/explain-error"));
}

/// No `Authorization` header: the 401 reads as a sign-in request (an OAuth server asks the
/// same way), and the sign-in then says the server offers none and how to give a token.
#[test]
fn signing_in_to_a_token_only_server_says_to_give_the_token_in_headers() {
    let (_dir, server) = serve_behind_token_file();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[servers.team]\nurl = \"{}\"\n", server.url),
    )
    .unwrap();
    let mut command = mcpick(home.path(), &["auth", "login", "team", "--no-browser"], &[]);
    command.env("MCPICK_CONFIG", &config);
    let login = command.output().unwrap();
    let said = String::from_utf8_lossy(&login.stderr);
    assert_eq!(login.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the server publishes no OAuth metadata"),
        "{said}"
    );
    assert!(
        said.contains("if it takes a token, set `headers = { Authorization = \"Bearer …\" }` in [servers.team]"),
        "{said}"
    );
    assert!(!said.contains("Registration failed: Dynamic"), "{said}");
}

#[test]
fn health_checks_need_no_token_and_tell_nothing() {
    let (_dir, server) = serve_behind_token_file();
    let request = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.authority()
    );
    let answer = exchange(&server, &request);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body, "ok");
    // With the token, it says what the server holds against each bound.
    let with_token = request.replace(
        "Connection: close\r\n",
        &format!("Connection: close\r\nAuthorization: Bearer {TOKEN}\r\n"),
    );
    let answer = exchange(&server, &with_token);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        answer.body.starts_with("ok\nrequests: 0/256\n"),
        "{}",
        answer.body
    );
    assert!(
        answer.body.contains("\narriving_bytes: "),
        "{}",
        answer.body
    );
    // The library itself stays behind the token.
    assert_challenged(&post(&server, None), false);
}

#[test]
fn the_token_can_come_from_the_environment() {
    let server = serve("127.0.0.1:0", &[], &[("MCPICK_SERVE_TOKEN", TOKEN)]);
    assert_challenged(&post(&server, None), false);
    assert_listed(&post(&server, Some(&format!("Bearer {TOKEN}"))));
}

#[test]
fn without_a_token_loopback_stays_open_as_before() {
    let server = serve("127.0.0.1:0", &[], &[]);
    assert_listed_as(&post(&server, None), "public");
}

#[cfg_attr(
    mcpick_missing_openssl,
    ignore = "`openssl` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn allow_remote_without_a_token_is_refused_saying_what_to_pass() {
    let (code, stderr) = refused(&["--http", "0.0.0.0:0", "--allow-remote"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    for named in [
        "without a token",
        "--auth-token-file",
        "--tls-cert",
        "--tls-key",
        "--insecure-no-auth",
        "MCPICK_SERVE_TOKEN",
    ] {
        assert!(stderr.contains(named), "{named} not in: {stderr}");
    }
    assert!(!stderr.contains("listening"), "{stderr}");
    // TLS alone encrypts, but still serves whoever connects: not enough.
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, _) = certificates(dir.path());
    let (code, stderr) = refused(
        &[
            "--http",
            "0.0.0.0:0",
            "--allow-remote",
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
        ],
        &[],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--auth-token-file"), "{stderr}");
}

// `[::ffff:127.0.0.1]` is not a loopback address to the check (only `::1` is, for IPv6),
// yet only this machine reaches it: the "remote" paths are tried without leaving loopback.
const REMOTE_BUT_LOCAL: &str = "[::ffff:127.0.0.1]:0";

#[test]
fn allow_remote_with_insecure_no_auth_serves_anyone_and_warns() {
    let (code, stderr) = refused(&["--http", REMOTE_BUT_LOCAL], &[]);
    assert_eq!(code, Some(2), "the address must count as remote: {stderr}");
    let server = serve(
        REMOTE_BUT_LOCAL,
        &["--allow-remote", "--insecure-no-auth"],
        &[],
    );
    assert_listed(&post(&server, None));
    let stderr = server.stderr.lock().unwrap().join("\n");
    assert!(stderr.contains("warning: --insecure-no-auth"), "{stderr}");
}

#[test]
fn allow_remote_with_a_token_but_no_tls_warns_of_clear_text() {
    let server = serve(
        REMOTE_BUT_LOCAL,
        &["--allow-remote"],
        &[("MCPICK_SERVE_TOKEN", TOKEN)],
    );
    assert_challenged(&post(&server, None), false);
    assert_listed(&post(&server, Some(&format!("Bearer {TOKEN}"))));
    let stderr = server.stderr.lock().unwrap().join("\n");
    assert!(stderr.contains("clear text"), "{stderr}");
}

#[test]
fn insecure_no_auth_and_a_token_contradict_each_other() {
    let (code, stderr) = refused(
        &[
            "--http",
            "0.0.0.0:0",
            "--allow-remote",
            "--insecure-no-auth",
        ],
        &[("MCPICK_SERVE_TOKEN", TOKEN)],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("unset one"), "{stderr}");
    let (code, stderr) = refused(&["--http", "127.0.0.1:0", "--insecure-no-auth"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--allow-remote"), "{stderr}");
}

#[test]
fn a_bad_token_file_is_refused_at_startup_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            secret_file(dir.path(), "shared", &format!("{TOKEN}\n"), 0o644),
            "chmod 600",
        ),
        (secret_file(dir.path(), "empty", "", 0o600), "is empty"),
        (
            secret_file(dir.path(), "short", "abc\n", 0o600),
            "fewer than 16",
        ),
        (dir.path().join("missing"), "cannot read the token file"),
    ];
    for (path, says) in cases {
        let shown = path.to_str().unwrap();
        let (code, stderr) = refused(&["--http", "127.0.0.1:0", "--auth-token-file", shown], &[]);
        assert_eq!(code, Some(2), "{shown}: {stderr}");
        assert!(stderr.contains(shown), "{shown}: {stderr}");
        assert!(stderr.contains(says), "{shown}: {stderr}");
        assert!(!stderr.contains(TOKEN), "{stderr}");
    }
    let (code, stderr) = refused(&["--http", "127.0.0.1:0"], &[("MCPICK_SERVE_TOKEN", "")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("MCPICK_SERVE_TOKEN is empty"), "{stderr}");
}

/// Runs the system's `openssl` with `args`.
fn openssl(args: &[&str]) {
    let output = Command::new(crate::common::system_tool("openssl"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run openssl to make test certificates");
    assert!(
        output.status.success(),
        "openssl {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Makes, with the system's `openssl`, a test certificate authority and a certificate it
/// signs for `localhost` and 127.0.0.1; returns the paths of that certificate, its key and
/// the authority's certificate (what a client trusts).
fn certificates(dir: &Path) -> (String, String, String) {
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (ca, ca_key, cert, key, csr, ext) = (
        path("ca.pem"),
        path("ca.key"),
        path("cert.pem"),
        path("key.pem"),
        path("cert.csr"),
        path("ext.cnf"),
    );
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut args = vec!["req", "-x509", "-days", "2", "-subj", "/CN=mcpick test CA"];
    args.extend(ec);
    args.extend(["-keyout", &ca_key, "-out", &ca]);
    openssl(&args);
    let mut args = vec!["req", "-subj", "/CN=localhost"];
    args.extend(ec);
    args.extend(["-keyout", &key, "-out", &csr]);
    openssl(&args);
    std::fs::write(&ext, "subjectAltName=DNS:localhost,IP:127.0.0.1\n").unwrap();
    openssl(&[
        "x509",
        "-req",
        "-days",
        "2",
        "-in",
        &csr,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-extfile",
        &ext,
        "-out",
        &cert,
    ]);
    // The key as a server keeps it: its owner's only (serve refuses one all can read).
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    (cert, key, ca)
}

#[cfg_attr(
    mcpick_missing_openssl,
    ignore = "`openssl` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[tokio::test]
async fn tls_serves_https_to_a_client_trusting_the_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, authority) = certificates(dir.path());
    let server = serve(
        "127.0.0.1:0",
        &["--tls-cert", &cert, "--tls-key", &key],
        &[("MCPICK_SERVE_TOKEN", TOKEN)],
    );
    assert!(
        server.url.starts_with("https://127.0.0.1:"),
        "{}",
        server.url
    );
    let pem = std::fs::read(&authority).unwrap();
    mcpick::mcp::install_crypto_provider();
    let client = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(&pem).unwrap()])
        // Shorter than the server's handshake timeout: a request queued behind the silent
        // client below would fail.
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let request = |authorization: Option<String>| {
        let mut builder = client
            .post(&server.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "prompts/list")
            .body(list_request());
        if let Some(value) = authorization {
            builder = builder.header("Authorization", value);
        }
        async move {
            let response = builder.send().await.unwrap();
            assert_eq!(response.version(), reqwest::Version::HTTP_11);
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
                .collect();
            let body = response.text().await.unwrap();
            Answer {
                status,
                headers,
                body,
            }
        }
    };
    // A client that connects and never shakes hands holds up no one else.
    let _silent = std::net::TcpStream::connect(server.authority()).unwrap();
    assert_challenged(&request(None).await, false);
    assert_listed_as(&request(Some(format!("Bearer {TOKEN}"))).await, "private");

    // The same port in clear text gets no HTTP answer: nothing is served unencrypted.
    let mut stream = std::net::TcpStream::connect(server.authority()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(raw_request(&server.authority(), Some(&format!("Bearer {TOKEN}"))).as_bytes())
        .unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    assert!(
        !String::from_utf8_lossy(&raw).contains("HTTP/1.1 200"),
        "{raw:?}"
    );
    // And the server still serves TLS after that.
    assert_listed(&request(Some(format!("Bearer {TOKEN}"))).await);
}

#[cfg_attr(
    mcpick_missing_openssl,
    ignore = "`openssl` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn bad_tls_files_are_refused_at_startup_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, _) = certificates(dir.path());
    let other = tempfile::tempdir().unwrap();
    let (_, other_key, _) = certificates(other.path());
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&garbage, std::fs::Permissions::from_mode(0o600)).unwrap();
    let garbage = garbage.to_str().unwrap();
    let missing = dir.path().join("missing.pem");
    let missing = missing.to_str().unwrap();
    // A key every user can read, whatever it holds.
    let open_key = dir.path().join("open-key.pem");
    std::fs::copy(&key, &open_key).unwrap();
    std::fs::set_permissions(&open_key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let open_key = open_key.to_str().unwrap();
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            &cert,
            open_key,
            open_key,
            "can be read by every user (mode 644)",
        ),
        (garbage, &key, garbage, "no certificate in"),
        (&cert, garbage, garbage, "no private key in"),
        (&key, &key, &key, "no certificate in"),
        (missing, &key, missing, "cannot read the TLS certificate"),
        (
            &cert,
            &other_key,
            &other_key,
            "does not go with the certificate",
        ),
    ];
    for (cert, key, named, says) in cases {
        let (code, stderr) = refused(
            &[
                "--http",
                "127.0.0.1:0",
                "--tls-cert",
                cert,
                "--tls-key",
                key,
            ],
            &[],
        );
        assert_eq!(code, Some(2), "{cert} {key}: {stderr}");
        assert!(stderr.contains(named), "{named} not in: {stderr}");
        assert!(stderr.contains(says), "{says} not in: {stderr}");
    }
    // Both or neither.
    for half in [["--tls-cert", &cert], ["--tls-key", &key]] {
        let mut args = vec!["--http", "127.0.0.1:0"];
        args.extend(half);
        let (code, stderr) = refused(&args, &[]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains("required arguments were not provided"),
            "{stderr}"
        );
    }
}

#[cfg_attr(
    mcpick_missing_openssl,
    ignore = "`openssl` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[tokio::test]
async fn sigterm_over_tls_ends_a_listen_stream_with_its_result_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, authority) = certificates(dir.path());
    let mut server = serve(
        "127.0.0.1:0",
        &["--tls-cert", &cert, "--tls-key", &key],
        &[],
    );
    let pem = std::fs::read(&authority).unwrap();
    mcpick::mcp::install_crypto_provider();
    let client = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(&pem).unwrap()])
        .build()
        .unwrap();
    let listen = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
        "params": {
            "notifications": { "promptsListChanged": true },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let mut response = client
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "subscriptions/listen")
        .body(listen.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // Read until the stream says it is listening, so the signal finds it open.
    let mut seen = String::new();
    read_until(
        &mut response,
        &mut seen,
        "notifications/subscriptions/acknowledged",
    )
    .await;

    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    // The 2026-07-28 final result of the listen, over the encrypted stream.
    read_until(&mut response, &mut seen, r#""resultType":"complete""#).await;
    assert!(seen.contains(r#""id":7"#), "{seen}");

    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
}

/// Reads `response`'s body into `seen` until it holds `wanted`; panics if the stream ends
/// first or stalls for 15 s.
async fn read_until(response: &mut reqwest::Response, seen: &mut String, wanted: &str) {
    while !seen.contains(wanted) {
        let chunk = tokio::time::timeout(Duration::from_secs(15), response.chunk())
            .await
            .unwrap_or_else(|_| panic!("no {wanted} within 15 s: {seen}"))
            .unwrap();
        let Some(chunk) = chunk else {
            panic!("the stream ended before {wanted}: {seen}");
        };
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
}
