//! OAuth sign-in against a local authorization server (loopback only): the Python SDK's
//! authorization server in tests/peers/py_server/auth_server.py, which approves every
//! sign-in at once, so the test plays the browser by following the sign-in URL's redirects.
//! Covers `mcpick auth login|logout`, the owner-only token file, signed requests, refresh on
//! expiry, and a server that revokes the tokens.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Sandbox, http, python, root, stderr, stdout, success};

/// Long enough for a slow machine, short enough that a hang fails the test rather than CI.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// The prompt only the signed-in see.
const SECRET: &str = "secure/secret_prompt";

/// The OAuth-protected MCP server, killed when dropped.
struct AuthServer {
    child: Child,
    /// `http://127.0.0.1:N/mcp`.
    url: String,
    /// `http://127.0.0.1:N`: the authorization server and the test endpoints.
    base: String,
    /// What it wrote on stderr, for failure messages.
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl AuthServer {
    /// Starts the server with access tokens living `token_lifetime` seconds.
    fn start(token_lifetime: u64) -> AuthServer {
        AuthServer::start_with(token_lifetime, 0)
    }

    /// [`AuthServer::start`], its `prompts/list` results fresh for `list_ttl_ms` and
    /// private (0: the SDK's own hints).
    fn start_with(token_lifetime: u64, list_ttl_ms: u64) -> AuthServer {
        AuthServer::start_args(token_lifetime, list_ttl_ms, &[])
    }

    /// [`AuthServer::start`] with DPoP in front (`--dpop`): bound tokens, nonces asked for.
    fn start_dpop(token_lifetime: u64) -> AuthServer {
        AuthServer::start_args(token_lifetime, 0, &["--dpop"])
    }

    fn start_args(token_lifetime: u64, list_ttl_ms: u64, more: &[&str]) -> AuthServer {
        let mut child = Command::new(python())
            .arg(root().join("tests/peers/py_server/auth_server.py"))
            .arg("0")
            .arg("--token-lifetime")
            .arg(token_lifetime.to_string())
            .arg("--list-ttl")
            .arg(list_ttl_ms.to_string())
            .args(more)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tests/peers/py_server/auth_server.py");
        let log: Arc<Mutex<Vec<String>>> = Default::default();
        let lines = lines_of(child.stderr.take().unwrap(), log.clone());
        let deadline = Instant::now() + Duration::from_secs(30);
        let url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("auth-server ready ") {
                        break url.trim().to_string();
                    }
                }
                Err(_) => panic!(
                    "the auth server did not get ready: {:?}\n{}",
                    child.try_wait(),
                    log.lock().unwrap().join("\n")
                ),
            }
        };
        let base = url
            .strip_suffix("/mcp")
            .expect("URL ends in /mcp")
            .to_string();
        AuthServer {
            child,
            url,
            base,
            log,
        }
    }

    /// A sandbox whose only server is this one, called `secure`.
    fn sandbox(&self) -> Sandbox {
        Sandbox::new(&http("secure", &self.url))
    }

    /// GET /test/stats.
    fn stats(&self) -> serde_json::Value {
        let (status, body) = fetch("GET", &format!("{}/test/stats", self.base));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).expect("stats are JSON")
    }

    /// One count from /test/stats.
    fn count(&self, key: &str) -> u64 {
        let stats = self.stats();
        stats[key]
            .as_u64()
            .unwrap_or_else(|| panic!("no count `{key}` in {stats}"))
    }

    /// POST /test/revoke: every access and refresh token stops working.
    fn revoke_everything(&self) {
        let (status, body) = fetch("POST", &format!("{}/test/revoke", self.base));
        assert_eq!(status, 200, "{body}");
    }

    /// Its stderr so far.
    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

/// Sends each line of `reader` (also kept in `log`) down the returned channel.
fn lines_of(reader: impl Read + Send + 'static, log: Arc<Mutex<Vec<String>>>) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            log.lock().unwrap().push(line.clone());
            let _ = tx.send(line);
        }
    });
    rx
}

/// An HTTP request with redirects followed (as a browser would): the final status and body.
fn fetch(method: &str, url: &str) -> (u16, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        mcpick::mcp::install_crypto_provider();
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("HTTP client");
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let response = client
            .request(method, url)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let status = response.status().as_u16();
        (status, response.text().await.unwrap_or_default())
    })
}

/// Waits for `child` to exit, failing after `limit` (the caller's [`Running`] kills it).
fn wait_with_limit(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() >= deadline {
            panic!("{what} did not finish within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs mcpick to completion within [`STEP_TIMEOUT`] (a hang fails the test).
fn run(sandbox: &Sandbox, args: &[&str]) -> Output {
    output_of(sandbox.command(args), args)
}

/// What `command` (mcpick with `args`) printed and how it ended, within [`STEP_TIMEOUT`].
fn output_of(mut command: Command, args: &[&str]) -> Output {
    let mut child = Running(
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run mcpick"),
    );
    let out = drain(child.0.stdout.take().unwrap());
    let err = drain(child.0.stderr.take().unwrap());
    let status = wait_with_limit(&mut child.0, STEP_TIMEOUT, &format!("mcpick {args:?}"));
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn drain(mut reader: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        bytes
    })
}

/// A child process killed when dropped, so a failing test leaves no mcpick waiting for a
/// browser that will never come.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What a finished `mcpick auth login` said.
struct Login {
    output: Output,
    /// The sign-in URL it printed.
    url: String,
}

/// `mcpick auth login secure --no-browser`, with the test as the browser: reads the URL from
/// stderr, follows it (the server approves at once and redirects to mcpick's loopback
/// listener), and waits for mcpick to finish.
fn login(sandbox: &Sandbox) -> Login {
    let mut child = Running(
        sandbox
            .command(&["auth", "login", "secure", "--no-browser"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Were --no-browser ignored, nothing would open.
            .env("BROWSER", "false")
            .spawn()
            .expect("run mcpick auth login"),
    );
    let out = drain(child.0.stdout.take().unwrap());
    let log: Arc<Mutex<Vec<String>>> = Default::default();
    let lines = lines_of(child.0.stderr.take().unwrap(), log.clone());

    // "mcpick: sign in to `secure` in the browser:" then the URL on the next line, indented.
    let deadline = Instant::now() + STEP_TIMEOUT;
    let mut asked = false;
    let url = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = lines.recv_timeout(left) else {
            panic!(
                "mcpick auth login printed no sign-in URL:\n{}",
                log.lock().unwrap().join("\n")
            );
        };
        if asked {
            assert!(
                line.starts_with("  http://127.0.0.1:"),
                "the line after the sign-in request is not the URL: {line:?}"
            );
            break line.trim().to_string();
        }
        asked = line.contains("sign in to `secure` in the browser:");
    };

    // A stray callback (another sign-in's, or a forged one) is turned away, and the
    // sign-in goes on.
    let redirect = url::Url::parse(&url)
        .expect("the sign-in URL parses")
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .map(|(_, v)| v.into_owned())
        .expect("the sign-in URL names its redirect_uri");
    let (status, _) = fetch("GET", &format!("{redirect}?code=forged&state=not-this-one"));
    assert_eq!(status, 400, "a callback with a foreign state was taken");

    // The browser's part.
    let (status, page) = fetch("GET", &url);
    assert_eq!(status, 200, "the redirect back to mcpick failed: {page}");
    assert!(page.contains("Signed in."), "mcpick's page: {page}");

    let status = wait_with_limit(&mut child.0, STEP_TIMEOUT, "mcpick auth login");
    // Its stderr closes as it exits: the reader has everything once the channel ends.
    while lines.recv_timeout(Duration::from_secs(10)).is_ok() {}
    let stderr_bytes = log.lock().unwrap().join("\n").into_bytes();
    Login {
        output: Output {
            status,
            stdout: out.join().unwrap(),
            stderr: stderr_bytes,
        },
        url,
    }
}

/// `login` that must succeed.
fn signed_in(sandbox: &Sandbox) -> Login {
    let login = login(sandbox);
    assert_eq!(
        login.output.status.code(),
        Some(0),
        "mcpick auth login failed:\n{}",
        stderr(&login.output)
    );
    login
}

/// `<XDG_DATA_HOME>/mcpick/auth/secure.json`.
fn token_file(sandbox: &Sandbox) -> PathBuf {
    sandbox.dir.path().join("xdg-data/mcpick/auth/secure.json")
}

/// The access and refresh tokens in the token file (whatever its layout: every string
/// under an `access_token` or `refresh_token` key).
fn stored_tokens(sandbox: &Sandbox) -> Vec<String> {
    fn collect(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("access_token" | "refresh_token", serde_json::Value::String(token)) => {
                            found.push(token.clone())
                        }
                        _ => collect(value, found),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, found)),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(token_file(sandbox)).expect("read the token file");
    let json: serde_json::Value = serde_json::from_str(&text).expect("the token file is JSON");
    let mut found = Vec::new();
    collect(&json, &mut found);
    found
}

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

/// Asserts the token file is the owner's alone (0600, in a 0700 folder).
fn assert_owner_only(sandbox: &Sandbox) {
    let file = token_file(sandbox);
    assert!(file.is_file(), "no token file at {}", file.display());
    #[cfg(unix)]
    {
        assert_eq!(
            format!("{:o}", mode(&file)),
            "600",
            "mode of {}",
            file.display()
        );
        let dir = file.parent().unwrap();
        assert_eq!(
            format!("{:o}", mode(dir)),
            "700",
            "mode of {}",
            dir.display()
        );
    }
}

/// Asserts `output` is `secure` failing with the sign-in message (exit 1, the only server).
fn assert_asks_for_sign_in(output: &Output) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(1), "stderr:\n{err}");
    assert!(
        err.contains("server `secure` failed: `secure` asks you to sign in"),
        "stderr:\n{err}"
    );
    assert!(
        err.contains("run `mcpick auth login secure`"),
        "stderr:\n{err}"
    );
    assert!(!stdout(output).contains(SECRET), "{}", stdout(output));
}

/// `mcpick servers --json`'s row for `secure`.
/// `mcpick servers` shows the server failed, asking for `mcpick auth login secure`, and
/// not signed in.
fn assert_servers_row_asks_for_sign_in(sandbox: &Sandbox) {
    let row = servers_row(sandbox);
    assert_eq!(row["signIn"], "not signed in", "{row}");
    assert_eq!(row["state"], "failed", "{row}");
    assert!(
        row["error"]
            .as_str()
            .is_some_and(|e| e.contains("mcpick auth login secure")),
        "{row}"
    );
}

fn servers_row(sandbox: &Sandbox) -> serde_json::Value {
    secure_row(&run(sandbox, &["servers", "--json"]))
}

/// The row for `secure` in what `mcpick servers --json` printed.
fn secure_row(output: &Output) -> serde_json::Value {
    let rows: serde_json::Value =
        serde_json::from_str(&success(output)).expect("servers --json is JSON");
    rows.as_array()
        .and_then(|rows| rows.iter().find(|r| r["name"] == "secure"))
        .cloned()
        .unwrap_or_else(|| panic!("no `secure` in {rows}"))
}

#[test]
fn before_sign_in_the_server_asks_for_it() {
    let server = AuthServer::start(3600);
    let sandbox = server.sandbox();

    assert_asks_for_sign_in(&run(&sandbox, &["list"]));

    assert_servers_row_asks_for_sign_in(&sandbox);
    // Nothing was signed in, nothing was written.
    assert!(!token_file(&sandbox).exists());
    assert_eq!(server.count("authorization_code"), 0, "{}", server.log());
}

#[test]
fn auth_login_signs_in_through_the_browser_and_keeps_the_tokens_owner_only() {
    let server = AuthServer::start(3600);
    let sandbox = server.sandbox();

    let login = signed_in(&sandbox);
    assert!(
        login
            .url
            .starts_with(&format!("{}/authorize?", server.base)),
        "{}",
        login.url
    );
    assert!(
        login.url.contains("code_challenge="),
        "no PKCE: {}",
        login.url
    );
    let err = stderr(&login.output);
    assert!(err.contains("signed in to `secure`"), "{err}");
    assert!(err.contains("readable by you only"), "{err}");
    assert_eq!(server.count("registrations"), 1);
    assert_eq!(server.count("authorization_code"), 1);
    assert_eq!(server.count("bearer_checks"), 0);

    assert_owner_only(&sandbox);
    let tokens = stored_tokens(&sandbox);
    assert!(
        tokens.len() >= 2,
        "the token file holds no access and refresh token: {tokens:?}"
    );

    let list = run(&sandbox, &["list"]);
    let listed = success(&list);
    assert!(listed.contains(SECRET), "{listed}");
    assert!(listed.contains("secure/greet_member"), "{listed}");
    // The requests carried the token.
    assert!(server.count("bearer_checks") > 0, "{}", server.stats());

    let get = run(&sandbox, &["get", SECRET]);
    let got = success(&get);
    assert!(
        got.contains("The secret is: signed requests work."),
        "{got}"
    );

    let get = run(&sandbox, &["get", "secure/greet_member", "name=Ada"]);
    assert!(success(&get).contains("Welcome back, Ada."));

    let servers = run(&sandbox, &["servers"]);
    let text = success(&servers);
    assert!(text.contains("secure  (http, ready)"), "{text}");
    assert!(text.contains("sign-in:      signed in"), "{text}");
    assert!(!text.contains("not signed in"), "{text}");

    let row = servers_row(&sandbox);
    let sign_in = row["signIn"].as_str().unwrap_or_default();
    assert!(sign_in.starts_with("signed in"), "{row}");
    assert!(sign_in.contains("renewed automatically"), "{row}");

    // No token is ever printed.
    for output in [&login.output, &list, &get, &servers] {
        for token in &tokens {
            assert!(
                !stdout(output).contains(token.as_str()),
                "a token on stdout"
            );
            assert!(
                !stderr(output).contains(token.as_str()),
                "a token on stderr"
            );
        }
    }
    // One sign-in served every later run, with no refresh needed.
    assert_eq!(server.count("authorization_code"), 1);
    assert_eq!(server.count("refresh_token"), 0);
    assert_owner_only(&sandbox);
}

#[test]
fn an_expired_access_token_is_refreshed_without_the_browser() {
    let lifetime = 2;
    let server = AuthServer::start(lifetime);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    let before = stored_tokens(&sandbox);
    assert_eq!(server.count("refresh_token"), 0);

    // Past the access token's lifetime (the server refuses it from now on).
    std::thread::sleep(Duration::from_secs(lifetime + 1));

    let list = run(&sandbox, &["list"]);
    let listed = success(&list);
    assert!(listed.contains(SECRET), "{listed}");
    assert!(
        server.count("refresh_token") >= 1,
        "no refresh_token grant: {}",
        server.stats()
    );
    // Renewed without a new sign-in.
    assert_eq!(server.count("authorization_code"), 1);
    assert_eq!(server.count("authorizations"), 1);

    // The renewed tokens were stored, still owner-only.
    assert_owner_only(&sandbox);
    let after = stored_tokens(&sandbox);
    assert!(
        after.iter().all(|t| !before.contains(t)),
        "the token file still holds the old tokens"
    );

    // Again after the renewed token has expired: the stored refresh token was the new one.
    std::thread::sleep(Duration::from_secs(lifetime + 1));
    let get = run(&sandbox, &["get", SECRET]);
    assert!(success(&get).contains("The secret is"));
    assert!(server.count("refresh_token") >= 2, "{}", server.stats());
    assert_eq!(server.count("refresh_refused"), 0, "{}", server.stats());
}

#[test]
fn a_server_that_revokes_the_tokens_asks_for_sign_in_again() {
    let server = AuthServer::start(3600);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    assert!(success(&run(&sandbox, &["list"])).contains(SECRET));

    server.revoke_everything();
    assert_eq!(server.count("live_access_tokens"), 0);

    let started = Instant::now();
    let list = run(&sandbox, &["list"]);
    assert_asks_for_sign_in(&list);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    // The refused access token was followed by one try of the (revoked) refresh token.
    assert!(server.count("refresh_refused") >= 1, "{}", server.stats());
    assert_eq!(server.count("refresh_token"), 0);

    // The refused tokens are forgotten, so the state says what to do.
    assert_servers_row_asks_for_sign_in(&sandbox);
    assert!(!token_file(&sandbox).exists());

    // Signing in again fixes it.
    signed_in(&sandbox);
    assert_owner_only(&sandbox);
    assert!(success(&run(&sandbox, &["list"])).contains(SECRET));
    assert_eq!(server.count("authorization_code"), 2);
}

#[test]
fn auth_logout_deletes_the_tokens() {
    let server = AuthServer::start(3600);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    assert!(token_file(&sandbox).exists());

    let logout = run(&sandbox, &["auth", "logout", "secure"]);
    success(&logout);
    assert!(
        stderr(&logout).contains("signed out of `secure`"),
        "{}",
        stderr(&logout)
    );
    assert!(
        !token_file(&sandbox).exists(),
        "the token file is still there"
    );

    assert_eq!(servers_row(&sandbox)["signIn"], "not signed in");
    assert_asks_for_sign_in(&run(&sandbox, &["list"]));

    // Again: nothing to delete, and says so.
    let again = run(&sandbox, &["auth", "logout", "secure"]);
    success(&again);
    assert!(
        stderr(&again).contains("`secure` has no stored tokens"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn auth_login_for_an_unknown_or_a_stdio_server_is_a_usage_error() {
    // Nothing listens here: neither command may get as far as connecting.
    let config = format!(
        "{}\n[servers.local]\ncommand = \"true\"\n",
        http("secure", "http://127.0.0.1:9/mcp")
    );
    let sandbox = Sandbox::new(&config);

    let unknown = run(&sandbox, &["auth", "login", "nope", "--no-browser"]);
    let err = stderr(&unknown);
    assert_eq!(unknown.status.code(), Some(2), "{err}");
    assert!(err.contains("no server `nope`"), "{err}");
    assert!(err.contains("secure") && err.contains("local"), "{err}");

    let stdio = run(&sandbox, &["auth", "login", "local", "--no-browser"]);
    let err = stderr(&stdio);
    assert_eq!(stdio.status.code(), Some(2), "{err}");
    assert!(err.contains("`local` is a stdio server"), "{err}");

    let logout = run(&sandbox, &["auth", "logout", "nope"]);
    assert_eq!(logout.status.code(), Some(2), "{}", stderr(&logout));
    assert!(stderr(&logout).contains("no server `nope`"));

    assert!(!sandbox.dir.path().join("xdg-data/mcpick/auth").exists());
}

#[test]
fn tokens_are_only_sent_to_the_url_they_were_issued_for() {
    let server = AuthServer::start(3600);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    assert!(success(&run(&sandbox, &["list"])).contains(SECRET));

    // The same server under another name is another URL: its tokens stay home.
    let elsewhere = server.url.replace("127.0.0.1", "localhost");
    std::fs::write(sandbox.config(), http("secure", &elsewhere)).expect("rewrite the config");
    let checks = server.count("bearer_checks");
    assert_asks_for_sign_in(&run(&sandbox, &["list"]));
    assert_eq!(server.count("bearer_checks"), checks, "a token was sent");
    assert_eq!(servers_row(&sandbox)["signIn"], "not signed in");
    // Not deleted either: back at the first URL they work again.
    assert_owner_only(&sandbox);
    std::fs::write(sandbox.config(), http("secure", &server.url)).expect("rewrite the config");
    assert!(success(&run(&sandbox, &["list"])).contains(SECRET));
}

#[test]
fn an_expired_token_whose_refresh_token_was_revoked_asks_for_sign_in() {
    let lifetime = 2;
    let server = AuthServer::start(lifetime);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    server.revoke_everything();
    // Expired as far as mcpick knows too: it tries the refresh token before any request.
    std::thread::sleep(Duration::from_secs(lifetime + 1));

    let started = Instant::now();
    assert_asks_for_sign_in(&run(&sandbox, &["list"]));
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(server.count("refresh_refused") >= 1, "{}", server.stats());
    assert_eq!(server.count("refresh_token"), 0, "{}", server.stats());
}

/// When the one page of the sandbox's cached `secure` list arrived (ms since the epoch),
/// and its scope, once the catalog holds one.
fn cached_page(sandbox: &Sandbox) -> (u64, mcpick::cache::Scope, Option<String>) {
    let dir = sandbox.dir.path().join("xdg-cache/mcpick/catalog");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let entry = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| std::fs::read(e.ok()?.path()).ok())
            .find_map(|bytes| mcpick::cache::parse(&bytes, "secure").ok());
        if let Some(entry) = entry
            && let Some([page]) = entry.pages.as_deref()
        {
            return (page.hints.received_ms, page.hints.scope, entry.auth);
        }
        assert!(
            Instant::now() < deadline,
            "no cached list in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn private_cached_rows_are_not_reused_after_a_sign_out_and_a_new_sign_in() {
    let server = AuthServer::start_with(3600, 600_000);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    let listed = success(&run(&sandbox, &["list"]));
    assert!(listed.contains(SECRET), "{listed}");
    let (first, scope, auth) = cached_page(&sandbox);
    assert_eq!(scope, mcpick::cache::Scope::Private);
    assert!(auth.is_some(), "the entry names no sign-in");
    // Fresh, same sign-in: the cached page is reused (not listed again).
    let checks = server.count("bearer_checks");
    assert_eq!(success(&run(&sandbox, &["list"])), listed);
    assert_eq!(cached_page(&sandbox).0, first);
    // The handshake only: one signed request.
    assert_eq!(
        server.count("bearer_checks") - checks,
        1,
        "{}",
        server.log()
    );
    // A warm get is one signed request too: prompts/get, with no handshake before it.
    let checks = server.count("bearer_checks");
    let got = success(&run(&sandbox, &["get", SECRET, "--format", "text"]));
    assert!(got.contains("signed requests work"), "{got}");
    assert_eq!(
        server.count("bearer_checks") - checks,
        1,
        "{}",
        server.log()
    );
    let catalog = std::fs::read_to_string(
        std::fs::read_dir(sandbox.dir.path().join("xdg-cache/mcpick/catalog"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path(),
    )
    .unwrap();
    for token in stored_tokens(&sandbox) {
        assert!(!catalog.contains(&token), "a token is in the catalog");
    }
    // Signed out, then in again (new tokens): the private page belongs to another
    // authorization context, so it is listed again although still fresh.
    success(&run(&sandbox, &["auth", "logout", "secure"]));
    assert_asks_for_sign_in(&run(&sandbox, &["list"]));
    signed_in(&sandbox);
    assert_eq!(success(&run(&sandbox, &["list"])), listed);
    let (again, _, new_auth) = cached_page(&sandbox);
    assert!(
        again > first,
        "the private page was reused after a new sign-in"
    );
    assert_ne!(new_auth, auth);
}

/// A sandbox whose `secure` server signs in with a machine grant: `oauth` holds the TOML
/// of the table's keys.
fn machine_sandbox(server: &AuthServer, oauth: &str) -> Sandbox {
    Sandbox::new(&format!(
        "{}oauth = {{ {oauth} }}\n",
        http("secure", &server.url)
    ))
}

/// [`run`] as a CI job runs it: `CI=true`, no terminal, no stdin, with `env` set.
fn run_unattended(sandbox: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = sandbox.command(args);
    command
        .env("CI", "true")
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    output_of(command, args)
}

#[test]
fn a_ci_job_gets_a_prompt_with_client_credentials_and_no_person() {
    let server = AuthServer::start(3600);
    let sandbox = machine_sandbox(
        &server,
        r#"grant = "client_credentials", client_id = "ci-client", client_secret = "${CI_SECRET}""#,
    );
    let env = [("CI_SECRET", "ci-secret")];
    let output = run_unattended(&sandbox, &["get", SECRET], &env);
    assert!(
        success(&output).contains("The secret is: signed requests work."),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.count("client_credentials"), 1, "{}", server.log());
    // No person, no browser, no registration.
    assert_eq!(server.count("registrations"), 0);
    assert_eq!(server.count("authorizations"), 0);
    assert_owner_only(&sandbox);
    assert!(
        !stderr(&output).contains("ci-secret"),
        "{}",
        stderr(&output)
    );

    // The next run uses the stored token while it lasts.
    let again = run_unattended(&sandbox, &["get", SECRET], &env);
    assert!(success(&again).contains("The secret is"));
    assert_eq!(server.count("client_credentials"), 1);
    let row = servers_row_with(&sandbox, &env);
    let sign_in = row["signIn"].as_str().unwrap_or_default();
    assert!(
        sign_in.starts_with("signed in with client_credentials, access token expires in"),
        "{row}"
    );
    // `auth status` says as much without connecting, and shows no token.
    let status = run_unattended(&sandbox, &["auth", "status"], &env);
    let said = success(&status);
    assert!(
        said.starts_with("secure  client_credentials  signed in, access token expires in"),
        "{said}"
    );
    for token in stored_tokens(&sandbox) {
        assert!(!said.contains(&token));
    }

    // Tokens the server revoked are replaced by the grant, once, without asking anyone.
    server.revoke_everything();
    let after = run_unattended(&sandbox, &["get", SECRET], &env);
    assert!(
        success(&after).contains("The secret is"),
        "{}",
        stderr(&after)
    );
    assert_eq!(server.count("client_credentials"), 2);
}

/// `mcpick servers --json`'s row for `secure`, run with `env`.
fn servers_row_with(sandbox: &Sandbox, env: &[(&str, &str)]) -> serde_json::Value {
    secure_row(&run_unattended(sandbox, &["servers", "--json"], env))
}

#[test]
fn a_refused_machine_grant_exits_2_with_the_servers_error_and_tries_nothing_else() {
    let server = AuthServer::start(3600);
    let wrong = machine_sandbox(
        &server,
        r#"grant = "client_credentials", client_id = "ci-client", client_secret = "not-the-secret""#,
    );
    let output = run_unattended(&wrong, &["get", SECRET], &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("client_credentials"), "{err}");
    assert!(
        err.contains("sign-in with client_credentials for `secure`: the authorization server refused it: HTTP 401 `invalid_client`: client authentication failed (check `oauth.client_id`"),
        "{err}"
    );
    assert!(!err.contains("not-the-secret"), "{err}");
    assert!(!err.contains("mcpick auth login"), "{err}");
    assert!(stdout(&output).is_empty());
    assert_eq!(server.count("machine_refused"), 1, "one request, no retry");
    assert!(!token_file(&wrong).exists());

    // A workload's JWT the server does not trust: one request, then nothing else (no
    // other grant, no registration, no browser).
    let workload = machine_sandbox(
        &server,
        r#"grant = "jwt_bearer", assertion_command = "printf untrusted-workload-jwt""#,
    );
    let output = run_unattended(&workload, &["list"], &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("HTTP 400 `invalid_grant`: the assertion is not trusted"),
        "{err}"
    );
    assert!(!err.contains("untrusted-workload-jwt"), "{err}");
    assert_eq!(server.count("machine_refused"), 2);
    assert_eq!(server.count("registrations"), 0);
    assert_eq!(server.count("authorizations"), 0);

    // The trusted one, from a file, works.
    let jwt = workload.dir.path().join("workload.jwt");
    std::fs::write(&jwt, "workload-jwt-ok\n").unwrap();
    let trusted = machine_sandbox(
        &server,
        &format!(
            "grant = \"jwt_bearer\", assertion_file = {}",
            crate::common::toml_str(jwt.to_string_lossy())
        ),
    );
    let output = run_unattended(&trusted, &["get", SECRET], &[]);
    assert!(
        success(&output).contains("The secret is"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.count("jwt_bearer"), 1);
}

#[test]
fn a_revoked_token_whose_new_grant_is_refused_exits_2_after_one_try() {
    let server = AuthServer::start(3600);
    let oauth = |secret: &str| {
        format!(
            r#"grant = "client_credentials", client_id = "ci-client", client_secret = "{secret}""#
        )
    };
    let sandbox = machine_sandbox(&server, &oauth("ci-secret"));
    let first = run_unattended(&sandbox, &["get", SECRET], &[]);
    assert!(
        success(&first).contains("The secret is"),
        "{}",
        stderr(&first)
    );
    // The token is revoked, and the client's secret changed where the config did not
    // follow: the stored token is refused, the grant runs once more and is refused.
    server.revoke_everything();
    let config = format!(
        "{}oauth = {{ {} }}\n",
        http("secure", &server.url),
        oauth("outdated-secret")
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let output = run_unattended(&sandbox, &["get", SECRET], &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("HTTP 401 `invalid_client`"), "{err}");
    assert!(!err.contains("outdated-secret"), "{err}");
    assert_eq!(
        server.count("machine_refused"),
        1,
        "the grant ran once: {err}"
    );
    assert_eq!(server.count("client_credentials"), 1);
    assert_eq!(server.count("registrations"), 0);
}

#[test]
fn a_token_a_person_signed_in_for_is_not_a_machine_grants() {
    let server = AuthServer::start(3600);
    let sandbox = server.sandbox();
    login(&sandbox);
    // The same server, now configured for a machine: the person's token is not used.
    let config = format!(
        "{}oauth = {{ grant = \"client_credentials\", client_id = \"ci-client\", client_secret = \"ci-secret\" }}\n",
        http("secure", &server.url)
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let output = run_unattended(&sandbox, &["get", SECRET], &[]);
    assert!(
        success(&output).contains("The secret is"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.count("client_credentials"), 1, "a token of its own");
}

/// `<XDG_DATA_HOME>/mcpick/auth/secure.dpop.pem`: the key `secure`'s tokens are bound to.
fn dpop_key(sandbox: &Sandbox) -> PathBuf {
    sandbox
        .dir
        .path()
        .join("xdg-data/mcpick/auth/secure.dpop.pem")
}

/// The stored token's `token_type`, as stored (lower case).
fn stored_token_type(sandbox: &Sandbox) -> String {
    let text = std::fs::read_to_string(token_file(sandbox)).expect("read the token file");
    let json: serde_json::Value = serde_json::from_str(&text).expect("the token file is JSON");
    json["credentials"]["token_response"]["token_type"]
        .as_str()
        .unwrap_or_else(|| panic!("no token_type in {json}"))
        .to_string()
}

#[test]
fn a_ci_job_gets_a_dpop_bound_token_and_proves_every_request() {
    let server = AuthServer::start_dpop(3600);
    let oauth =
        r#"grant = "client_credentials", client_id = "ci-client", client_secret = "${CI_SECRET}""#;
    let sandbox = machine_sandbox(&server, oauth);
    let env = [("CI_SECRET", "ci-secret")];
    let output = run_unattended(&sandbox, &["get", SECRET], &env);
    assert!(
        success(&output).contains("The secret is: signed requests work."),
        "{}\n{}",
        stderr(&output),
        server.log()
    );
    // One grant, with a proof, after the authorization server asked for its nonce; then
    // the server asked for its own, and every request carried a valid fresh proof.
    assert_eq!(server.count("client_credentials"), 1, "{}", server.stats());
    assert_eq!(server.count("dpop_token_proofs"), 1, "{}", server.stats());
    assert!(server.count("dpop_nonces_asked") >= 2, "{}", server.stats());
    assert!(server.count("dpop_mcp_proofs") >= 2, "{}", server.stats());
    assert_eq!(server.count("dpop_refused"), 0, "{}", server.log());
    assert_eq!(stored_token_type(&sandbox), "dpop");
    let key = dpop_key(&sandbox);
    assert_eq!(mode(&key), 0o600, "the key is the owner's alone");
    let key_text = std::fs::read_to_string(&key).unwrap();
    assert!(key_text.starts_with("-----BEGIN PRIVATE KEY-----"));

    // The next run proves with the same key and the stored token.
    let again = run_unattended(&sandbox, &["get", SECRET], &env);
    assert!(
        success(&again).contains("The secret is"),
        "{}",
        stderr(&again)
    );
    assert_eq!(server.count("client_credentials"), 1);
    assert_eq!(server.count("dpop_refused"), 0, "{}", server.log());

    // Said by `servers` and `auth status`, with neither token nor key shown.
    let row = servers_row_with(&sandbox, &env);
    assert!(
        row["signIn"]
            .as_str()
            .unwrap_or_default()
            .ends_with("bound to this machine's key (DPoP)"),
        "{row}"
    );
    let status = run_unattended(&sandbox, &["auth", "status", "--json"], &env);
    let said = success(&status);
    let rows: serde_json::Value = serde_json::from_str(&said).unwrap();
    assert_eq!(rows[0]["dpop"], true, "{said}");
    let key_body = key_text.lines().nth(1).unwrap();
    for output in [&output, &again, &status] {
        let all = format!("{}{}", stdout(output), stderr(output));
        for token in stored_tokens(&sandbox) {
            assert!(!all.contains(&token), "a token was shown: {all}");
        }
        assert!(!all.contains(key_body), "the key was shown: {all}");
    }

    // `auth logout` takes the key with the tokens.
    let logout = run_unattended(&sandbox, &["auth", "logout", "secure"], &env);
    success(&logout);
    assert!(!key.exists());
    assert!(!token_file(&sandbox).exists());
}

#[test]
fn a_person_signs_in_with_dpop_and_the_refresh_carries_a_proof() {
    let lifetime = 2;
    let server = AuthServer::start_dpop(lifetime);
    let sandbox = server.sandbox();
    signed_in(&sandbox);
    assert_eq!(stored_token_type(&sandbox), "dpop");
    assert_eq!(server.count("dpop_token_proofs"), 1, "{}", server.stats());
    assert_eq!(mode(&dpop_key(&sandbox)), 0o600);

    // Past the access token's lifetime: refreshed, with a proof, and still bound.
    std::thread::sleep(Duration::from_secs(lifetime + 1));
    let list = run(&sandbox, &["list"]);
    assert!(success(&list).contains(SECRET), "{}", server.log());
    assert!(server.count("refresh_token") >= 1, "{}", server.stats());
    assert!(server.count("dpop_token_proofs") >= 2, "{}", server.stats());
    assert!(server.count("dpop_mcp_proofs") >= 1, "{}", server.stats());
    assert_eq!(server.count("dpop_refused"), 0, "{}", server.log());
    assert_eq!(stored_token_type(&sandbox), "dpop");
}

#[test]
fn dpop_off_sends_bearer_tokens_and_required_refuses_a_server_without_it() {
    let server = AuthServer::start_dpop(3600);
    let oauth =
        r#"grant = "client_credentials", client_id = "ci-client", client_secret = "ci-secret""#;
    let off = machine_sandbox(&server, &format!(r#"{oauth}, dpop = "off""#));
    let output = run_unattended(&off, &["get", SECRET], &[]);
    assert!(
        success(&output).contains("The secret is"),
        "{}",
        stderr(&output)
    );
    assert_eq!(stored_token_type(&off), "bearer");
    assert_eq!(server.count("dpop_token_proofs"), 0);
    assert!(!dpop_key(&off).exists());

    // Made `required` while that bearer token still lasts: it is not used, a bound one is
    // obtained.
    std::fs::write(
        off.config(),
        format!(
            "{}oauth = {{ {oauth}, dpop = \"required\" }}\n",
            http("secure", &server.url)
        ),
    )
    .unwrap();
    let output = run_unattended(&off, &["get", SECRET], &[]);
    assert!(
        success(&output).contains("The secret is"),
        "{}",
        stderr(&output)
    );
    assert_eq!(stored_token_type(&off), "dpop");
    assert_eq!(server.count("client_credentials"), 2);
    assert_eq!(server.count("dpop_refused"), 0, "{}", server.log());

    let plain = AuthServer::start(3600);
    let required = machine_sandbox(&plain, &format!(r#"{oauth}, dpop = "required""#));
    let output = run_unattended(&required, &["get", SECRET], &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains(r#"`oauth.dpop = "required"`"#), "{err}");
    assert!(err.contains("does not offer DPoP"), "{err}");
    assert_eq!(
        plain.count("client_credentials"),
        0,
        "nothing was asked for"
    );
    assert!(!token_file(&required).exists());
}

#[test]
fn a_machine_grant_sends_no_secret_to_a_server_that_names_no_authorization_server() {
    // `serve --auth-token-file` takes a token but publishes no OAuth metadata: the SDK's
    // discovery then guesses `/token` at the server itself, where no secret may go.
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "Zq3vR8kT1mW9xY2bN5cH7jL4pS6dF0gA-uE\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let served = crate::common::mcpick_serve_http(&[
        "--builtin",
        "--auth-token-file",
        token_file.to_str().unwrap(),
    ]);
    let sandbox = Sandbox::new(&format!(
        "{}oauth = {{ grant = \"client_credentials\", client_id = \"ci-client\", client_secret = \"do-not-send\" }}\n",
        http("tokened", &served.url)
    ));
    let output = run_unattended(&sandbox, &["get", "tokened/explain-error"], &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("publishes no authorization server metadata mcpick can read"),
        "{err}"
    );
    assert!(!err.contains("do-not-send"), "{err}");
}

#[test]
fn a_corrupt_dpop_key_is_kept_aside_replaced_and_said_on_stderr() {
    let server = AuthServer::start_dpop(3600);
    let oauth =
        r#"grant = "client_credentials", client_id = "ci-client", client_secret = "ci-secret""#;
    let sandbox = machine_sandbox(&server, oauth);
    let key = dpop_key(&sandbox);
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(&key, "not a key\n").unwrap();
    let output = run_unattended(&sandbox, &["get", SECRET], &[]);
    assert!(
        success(&output).contains("The secret is"),
        "{}",
        stderr(&output)
    );
    let said = stderr(&output);
    assert!(
        said.contains("mcpick: warning: the DPoP key for `secure`")
            && said.contains("held no usable key"),
        "{said}"
    );
    assert!(said.contains("it is kept as "), "{said}");
    let kept = key.with_extension("pem.corrupt");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "not a key\n");
    assert!(
        std::fs::read_to_string(&key)
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    // Said once: the next run uses the new key without a word.
    let again = run_unattended(&sandbox, &["get", SECRET], &[]);
    assert!(!stderr(&again).contains("DPoP key"), "{}", stderr(&again));
}

#[test]
fn a_private_key_every_user_can_read_is_refused_with_the_chmod_that_mends_it() {
    use std::os::unix::fs::PermissionsExt as _;
    let server = AuthServer::start(3600);
    let sandbox = Sandbox::new("");
    let pem = sandbox.dir.path().join("client.pem");
    std::fs::write(
        &pem,
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    std::fs::set_permissions(&pem, std::fs::Permissions::from_mode(0o644)).unwrap();
    let oauth = format!(
        r#"grant = "client_credentials", client_id = "ci-client", private_key = "{}""#,
        pem.display()
    );
    std::fs::write(
        sandbox.config(),
        format!("{}oauth = {{ {oauth} }}\n", http("secure", &server.url)),
    )
    .unwrap();
    let output = run_unattended(&sandbox, &["get", SECRET], &[]);
    assert!(!output.status.success());
    let said = stderr(&output);
    assert!(
        said.contains("can be read by every user (mode 644): run `chmod 600"),
        "{said}"
    );
    assert_eq!(server.count("client_credentials"), 0, "no key was sent");
}
