//! Handshake edge cases against small scripted servers (tests/peers/fake_server.py).

use crate::common::*;
use crate::list_edges::{list_edges, list_edges_sandbox};

fn fake(name: &str, mode: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, {}]\n",
        toml_str(root().join("tests/peers/fake_server.py").to_string_lossy()),
        toml_str(mode)
    )
}

#[test]
fn an_unknown_protocol_version_is_an_error_naming_it() {
    let sandbox = Sandbox::new(&fake("odd", "bad-version"));
    let output = sandbox.mcpick(&["servers", "--json"]);
    let servers: serde_json::Value = serde_json::from_str(&success(&output)).unwrap();
    assert_eq!(servers[0]["state"], "failed");
    let error = servers[0]["error"].as_str().unwrap();
    assert!(error.contains("\"1999-01-01\""), "{error}");
    assert!(
        error.contains("2025-11-25"),
        "the error should list what mcpick speaks: {error}"
    );
}

#[test]
fn a_legacy_server_that_exits_on_discover_is_restarted_with_initialize() {
    let sandbox = Sandbox::new(&fake("old", "exit-on-discover"));
    let out = success(&sandbox.mcpick(&["get", "old/hello"]));
    assert_eq!(out, "hello\n");
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    assert_eq!(servers[0]["protocolVersion"], "2025-06-18");
}

/// A 2026-07-28 server that answers `server/discover` after `seconds` (tests/peers/
/// fake_server.py `late-discover`): on its first start only, or on every start without
/// `marker`.
fn late_discover(sandbox: &Sandbox, seconds: &str, once: bool, timeout_ms: u64) -> String {
    let marker = if once {
        sandbox
            .dir
            .path()
            .join("started-once")
            .to_string_lossy()
            .into_owned()
    } else {
        "-".to_string()
    };
    format!(
        "[servers.slow]\ncommand = \"python3\"\nargs = [{}, \"late-discover\", {}, {}]\ntimeout_ms = {timeout_ms}\n",
        toml_str(root().join("tests/peers/fake_server.py").to_string_lossy()),
        toml_str(marker),
        toml_str(seconds),
    )
}

#[test]
fn a_2026_server_that_answers_discover_past_the_first_contact_window_is_discovered_again() {
    // The SDK waits 10 s for `server/discover`, then sends `initialize`: an answer after
    // that failed the handshake ("conflict initialized response id: expected 1, got 0").
    let sandbox = Sandbox::new("");
    std::fs::write(
        sandbox.config(),
        late_discover(&sandbox, "11", true, 40_000),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let output = sandbox.mcpick(&["get", "slow/busy"]);
    assert_eq!(success(&output), "served after shedding\n");
    assert!(
        started.elapsed() > std::time::Duration::from_secs(10),
        "the first start was not slow: {:?}",
        started.elapsed()
    );
    assert!(sandbox.dir.path().join("started-once").exists());
}

#[test]
fn a_2026_server_slow_on_every_start_says_what_happened() {
    let sandbox = Sandbox::new("");
    std::fs::write(
        sandbox.config(),
        late_discover(&sandbox, "11", false, 20_000),
    )
    .unwrap();
    let output = sandbox.mcpick(&["get", "slow/busy"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("answered server/discover only after the first-contact window (10 s, which `timeout_ms` does not extend)"),
        "{err}"
    );
    assert!(
        err.contains("started again, it did not answer server/discover within the rest of timeout_ms (20000 ms in all)"),
        "{err}"
    );
    assert!(!err.contains("conflict initialized response id"), "{err}");
}

#[test]
fn config_errors_exit_1_and_name_the_problem() {
    let sandbox =
        Sandbox::new("[servers.a]\ncommand = \"x\"\nargs = [\"${MCPICK_TEST_UNSET_VAR}\"]\n");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("server `a`, field `args[0]`"), "{err}");
    assert!(err.contains("MCPICK_TEST_UNSET_VAR"), "{err}");
}

#[test]
fn no_servers_says_how_to_add_one() {
    let sandbox = Sandbox::new("");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("config.example.toml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_usage_exits_2() {
    let sandbox = Sandbox::new(&fake("odd", "bad-version"));
    let output = sandbox.mcpick(&["get", "odd/hello", "novalue"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("NAME=VALUE"),
        "{}",
        stderr(&output)
    );
    let output = sandbox.mcpick(&["get", "odd/hello", "--format", "yaml"]);
    assert_eq!(output.status.code(), Some(2));
}

/// `sh -c 'tee -a TRAFFIC | python3 fake_server.py MODE'`: records what mcpick sends.
fn recorded_fake(name: &str, mode: &str, traffic: &std::path::Path, extra: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n{extra}\n",
        toml_str(format!(
            "tee -a '{}' | python3 '{}' {mode}",
            traffic.display(),
            root().join("tests/peers/fake_server.py").display()
        ))
    )
}

#[test]
fn a_request_past_its_timeout_fails_and_is_cancelled() {
    let sandbox = Sandbox::new("");
    let traffic = sandbox.dir.path().join("traffic.jsonl");
    std::fs::write(
        sandbox.config(),
        // The handshake shares the timeout (half of it before a restart with initialize):
        // long enough for a Python start on a busy machine.
        recorded_fake("slow", "hang-get", &traffic, "timeout_ms = 3000"),
    )
    .unwrap();
    let output = sandbox.mcpick(&["get", "slow/hello"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("prompts/get timed out after 3000 ms"), "{err}");
    assert!(
        err.contains("timeout_ms"),
        "the error should say what to change: {err}"
    );
    let sent = std::fs::read_to_string(&traffic).unwrap();
    let cancelled: Vec<&str> = sent
        .lines()
        .filter(|l| l.contains("notifications/cancelled"))
        .collect();
    assert_eq!(cancelled.len(), 1, "{sent}");
    let get_id = sent
        .lines()
        .find(|l| l.contains("\"prompts/get\""))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].clone())
        .unwrap();
    let cancel: serde_json::Value = serde_json::from_str(cancelled[0]).unwrap();
    assert_eq!(cancel["params"]["requestId"], get_id);
}

#[test]
fn a_crashing_server_reports_its_exit_and_last_stderr_lines() {
    let sandbox = Sandbox::new(&fake("crashy", "crash"));
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    let row = &servers[0];
    assert_eq!(row["state"], "failed");
    assert!(
        row["error"]
            .as_str()
            .unwrap()
            .contains("exited with status 3"),
        "{row}"
    );
    // It crashed on the discover probe too, so it was started once more for `initialize`:
    // its words twice, and none of mcpick's notes among them.
    assert_eq!(
        row["stderr"],
        serde_json::json!([
            "fake: fatal problem 1",
            "fake: fatal problem 2",
            "fake: fatal problem 3",
            "fake: fatal problem 1",
            "fake: fatal problem 2",
            "fake: fatal problem 3"
        ])
    );
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("fake: fatal problem 3"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_server_ignoring_eof_and_sigterm_is_killed_with_its_children() {
    let sandbox = Sandbox::new("");
    let pids_file = sandbox.dir.path().join("pids");
    let config = format!(
        "[servers.stubborn]\ncommand = \"python3\"\nargs = [{}, \"stubborn\", {}]\n",
        toml_str(root().join("tests/peers/fake_server.py").to_string_lossy()),
        toml_str(pids_file.to_string_lossy())
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let out = success(&sandbox.mcpick(&["list"]));
    assert!(out.contains("stubborn/hello"), "{out}");
    let pids = std::fs::read_to_string(&pids_file).unwrap();
    let pids: Vec<&str> = pids.split_whitespace().collect();
    assert_eq!(pids.len(), 2);
    // mcpick has exited: the server and its grandchild must be gone.
    std::thread::sleep(std::time::Duration::from_millis(200));
    for pid in pids {
        assert!(!is_running(pid), "process {pid} outlived mcpick");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_are_kept_with_the_server() {
    use mcpick::mcp::{Hub, McpEvent};
    let config = mcpick::config::parse(
        &fake("chatty", "hang-get"),
        std::path::Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, true);
    let line = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            match events.recv().await {
                Some(McpEvent::Log { line, .. }) if line.source == "info" => return line,
                Some(McpEvent::Failed { error, .. }) => panic!("{error}"),
                Some(_) => {}
                None => panic!("hub stopped"),
            }
        }
    })
    .await
    .expect("no log line");
    assert_eq!(line.text, "[fake] fake server ready");
    hub.shutdown().await;
}

#[test]
fn http_headers_are_sent_but_their_values_never_shown_or_logged() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let capture = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            request.extend_from_slice(&buf[..n]);
        }
        let _ = stream
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        String::from_utf8_lossy(&request).to_lowercase()
    });
    let secret = "s3cr3t-token-value";
    let sandbox = Sandbox::new(&format!(
        "[servers.guarded]\nurl = \"http://127.0.0.1:{port}/mcp\"\nheaders = {{ X-Api-Key = \"${{MCPICK_TEST_SECRET}}\" }}\n"
    ));
    let output = sandbox
        .command(&["servers", "--json"])
        .env("MCPICK_TEST_SECRET", secret)
        .env("MCPICK_LOG", "trace")
        .output()
        .unwrap();
    let request = capture.join().unwrap();
    assert!(
        request.contains(&format!("x-api-key: {secret}")),
        "{request}"
    );
    let shown = format!("{}{}", stdout(&output), stderr(&output));
    assert!(shown.contains("\"state\": \"failed\""), "{shown}");
    assert!(!shown.contains(secret), "{shown}");
    let log = read_logs(&sandbox.dir.path().join("xdg-state/mcpick"));
    assert!(
        log.contains("guarded"),
        "the log should mention the server: {log}"
    );
    assert!(!log.contains(secret), "the secret leaked into the log");
}

/// Every file under `dir`, as text (lossy), with its path: what a secret must not reach.
fn every_file(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(folder) = todo.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                files.push((path, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    files
}

#[test]
fn a_server_repeating_its_key_never_gets_it_shown_logged_or_exported() {
    use crate::common::pty::*;
    // The server repeats both secrets in every text it sends: its serverInfo name and
    // version, instructions, capabilities, stderr, log messages, a served problem, a
    // description, messages and an error.
    let secret = "sk-live-0123456789";
    let typed = "tok-SECRET-9876";
    let config = format!(
        "[inputs.tok]\ndescription = \"Leak token\"\n\n{}env = {{ API_KEY = \"${{MCPICK_TEST_KEY}}\", LEAK_INPUT = \"${{input:tok}}\" }}\n",
        fake("leaky", "leaky")
    );
    let sandbox = Sandbox::new(&config);
    let run = |args: &[&str]| {
        sandbox
            .command(args)
            .env("MCPICK_TEST_KEY", secret)
            .env("MCPICK_INPUT_TOK", typed)
            .env("MCPICK_LOG", "debug")
            .output()
            .unwrap()
    };
    let mut shown = Vec::new();
    let mut show = |what: &str, output: &std::process::Output| {
        shown.push((
            what.to_string(),
            format!("{}{}", stdout(output), stderr(output)),
        ));
    };

    let list = run(&["list", "--json"]);
    assert!(
        stdout(&list).contains("Uses key ‹hidden›"),
        "{}",
        stdout(&list)
    );
    show("list --json", &list);
    show("list", &run(&["list"]));
    let got = run(&["get", "leaky/hello"]);
    assert!(
        stdout(&got).ends_with("Authorization: Bearer ‹hidden› ‹hidden›\n"),
        "{}",
        stdout(&got)
    );
    show("get", &got);
    for format in ["openai", "anthropic", "mcp-json", "text"] {
        let json = run(&["get", "leaky/hello", "--format", format]);
        assert!(
            stdout(&json).contains("Bearer ‹hidden›"),
            "{format}: {}",
            stdout(&json)
        );
        show(&format!("get --format {format}"), &json);
    }
    let failed = run(&["get", "leaky/fail"]);
    assert!(!failed.status.success());
    assert!(
        stderr(&failed).contains("bad key ‹hidden›"),
        "{}",
        stderr(&failed)
    );
    show("get fail", &failed);
    show("complete", &run(&["complete", "leaky/hello", "x"]));
    show("--print", &run(&["--print", "leaky/hello"]));
    let servers = run(&["servers"]);
    assert!(
        stdout(&servers).contains("leaky ‹hidden› ‹hidden›"),
        "the server's own name is shown, masked:\n{}",
        stdout(&servers)
    );
    show("servers", &servers);
    let json = run(&["servers", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(rows[0]["serverName"], "leaky ‹hidden› ‹hidden›", "{rows}");
    assert_eq!(rows[0]["serverVersion"], "‹hidden›", "{rows}");
    show("servers --json", &json);
    show("servers --refresh", &run(&["servers", "--refresh"]));
    show(
        "servers --json --refresh",
        &run(&["servers", "--json", "--refresh"]),
    );
    show("cache show", &run(&["cache", "show"]));
    show("cache show --json", &run(&["cache", "show", "--json"]));

    // The menu, with the input typed on its form: the menu, a review, an error, the logs.
    let mut command = portable_pty::CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("--config");
    command.arg(sandbox.config());
    command.env("MCPICK_TEST_KEY", secret);
    command.env("MCPICK_LOG", "debug");
    let mut tui = Tui::spawn(&sandbox, command);
    tui.wait_for("Leak token for leaky", SERVER_START);
    tui.send(typed);
    tui.send(ENTER);
    tui.wait_for("● leaky 2", SERVER_START);
    tui.wait_for("Uses key ‹hidden›", STEP);
    open_prompt(&mut tui, "hello", "/hello");
    tui.wait_for("Bearer ‹hidden› ‹hidden›", STEP);
    tui.send_esc();
    tui.wait_for("1/2 prompts", STEP);
    tui.send(&"\x7f".repeat(5));
    tui.wait_for("2/2 prompts", STEP);
    open_prompt(&mut tui, "fail", "/fail");
    tui.wait_for("bad key ‹hidden›", STEP);
    tui.send_esc();
    tui.send(CTRL_L);
    tui.wait_for("starting with key ‹hidden›", STEP);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
    shown.push((
        "the menu".into(),
        String::from_utf8_lossy(&tui.raw()).into_owned(),
    ));

    for (what, text) in &shown {
        for leaked in [secret, typed] {
            assert!(!text.contains(leaked), "{what} showed {leaked}:\n{text}");
        }
    }
    let log = read_logs(&sandbox.dir.path().join("xdg-state/mcpick"));
    assert!(log.contains("starting with key ‹hidden›"), "{log}");
    for (path, text) in every_file(sandbox.dir.path()) {
        for leaked in [secret, typed] {
            assert!(
                !text.contains(leaked),
                "{} holds {leaked}:\n{text}",
                path.display()
            );
        }
    }
}

#[test]
fn the_example_config_is_valid() {
    let text = std::fs::read_to_string(root().join("config.example.toml")).unwrap();
    let config = mcpick::config::parse(&text, std::path::Path::new("config.example.toml"), &|_| {
        None
    })
    .expect("config.example.toml must parse with no variables set");
    assert_eq!(config.servers.len(), 3);
    // The unattended example is a machine grant, once its secret's variable is set.
    let with_secret = mcpick::config::parse(
        &text,
        std::path::Path::new("config.example.toml"),
        &|name| (name == "PROMPTS_CLIENT_SECRET").then(|| "s3cret".to_string()),
    )
    .expect("config.example.toml parses");
    let ci = with_secret
        .server("ci-prompts")
        .expect("the unattended example");
    assert_eq!(ci.problem, None);
    assert!(matches!(
        &ci.transport,
        mcpick::config::TransportConfig::Http { oauth, .. }
            if oauth.grant == mcpick::config::OAuthGrant::ClientCredentials
    ));
    mcpick::app::KeyMap::with_overrides(&config.keys)
        .expect("the example's [keys] tables must name real screens, actions and keys");
    assert!(!config.keys.is_empty(), "the example shows a [keys] table");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_request_cancels_it_before_shutdown() {
    use mcpick::mcp::{Hub, McpEvent};
    let dir = tempfile::tempdir().unwrap();
    let traffic = dir.path().join("traffic.jsonl");
    let config = mcpick::config::parse(
        &recorded_fake("slow", "hang-get", &traffic, ""),
        std::path::Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, false);
    loop {
        match events.recv().await.expect("hub stopped") {
            McpEvent::Ready { .. } => break,
            McpEvent::Failed { error, .. } => panic!("{error}"),
            _ => {}
        }
    }
    let connection = hub.connection("slow").unwrap();
    let abandoned = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        connection.get_prompt("hello", &Default::default()),
    )
    .await;
    assert!(abandoned.is_err(), "the server never answers");
    drop(connection);
    hub.shutdown().await;
    let sent = std::fs::read_to_string(&traffic).unwrap();
    let cancel = sent
        .lines()
        .find(|l| l.contains("notifications/cancelled"))
        .unwrap_or_else(|| panic!("no cancellation sent:\n{sent}"));
    assert!(cancel.contains("cancelled by the user"), "{cancel}");
}

#[test]
fn the_config_is_found_through_mcpick_config_and_the_default_location() {
    let sandbox = Sandbox::new(&fake("odd", "exit-on-discover"));
    let bare = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"));
        command
            .args(["list", "--json"])
            .stdin(std::process::Stdio::null())
            .env_remove("MCPICK_CONFIG")
            .env("XDG_STATE_HOME", sandbox.dir.path().join("xdg-state"))
            .env("XDG_CACHE_HOME", sandbox.dir.path().join("xdg-cache"))
            .env("XDG_CONFIG_HOME", sandbox.dir.path().join("xdg-config"));
        command
    };
    // The environment variable.
    let output = bare()
        .env("MCPICK_CONFIG", sandbox.config())
        .output()
        .unwrap();
    assert!(success(&output).contains("\"hello\""));
    // The platform config dir (XDG on Linux).
    let dir = sandbox.dir.path().join("xdg-config/mcpick");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(sandbox.config(), dir.join("config.toml")).unwrap();
    let output = bare().output().unwrap();
    assert!(success(&output).contains("\"hello\""));
    // An explicit path that does not exist is an error, not an empty config.
    let output = bare()
        .env("MCPICK_CONFIG", "/nonexistent/mcpick.toml")
        .output()
        .unwrap();
    // A config error is a usage error (2), as in every mode; 1 is "nothing matched".
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains(
            "config file /nonexistent/mcpick.toml does not exist ($MCPICK_CONFIG names it): `mcpick init` writes a starter config there"
        ),
        "{err}"
    );
}

#[test]
fn content_and_roles_beyond_the_schema_are_kept_and_mapped() {
    let sandbox = Sandbox::new(&fake("odd", "odd-content"));
    let out: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/hello",
        "--format",
        "mcp-json",
    ])))
    .unwrap();
    assert_eq!(
        out,
        serde_json::json!([
            {"role": "user", "content": {"type": "text", "text": "hi",
             "annotations": {"audience": ["user"], "priority": 0.3}}},
            {"role": "user", "content": {"type": "hologram", "frames": [1, 2]}},
            {"role": "assistant", "content": {"type": "resource_link", "uri": "file:///a",
             "name": "a", "icons": [{"src": "data:image/png;base64,AA==", "mimeType": "image/png"}]}}
        ])
    );
    // Through the SDK's own types, a priority keeps its short decimal form.
    let annotated: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/annotated",
        "--format",
        "mcp-json",
    ])))
    .unwrap();
    assert_eq!(
        annotated[0]["content"]["annotations"]["priority"],
        serde_json::json!(0.3)
    );
    // A `system` role (and one no API names) is kept, and each chat format maps it.
    let kept: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/system",
        "--format",
        "mcp-json",
    ])))
    .unwrap();
    let roles: Vec<&str> = kept
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "developer"]);
    let openai: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/system",
        "--format",
        "openai",
    ])))
    .unwrap();
    assert_eq!(
        openai,
        serde_json::json!([
            {"role": "system", "content": "Be terse."},
            {"role": "user",
             "content": "Hi.\n\n[a message with role `developer`, sent as user]\n\nCite lines."}
        ])
    );
    let anthropic: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/system",
        "--format",
        "anthropic",
    ])))
    .unwrap();
    assert_eq!(anthropic["system"], "Be terse.");
    assert_eq!(anthropic["messages"].as_array().unwrap().len(), 1);
    assert_eq!(
        success(&sandbox.mcpick(&["get", "odd/system", "--format", "text"])),
        "system:\nBe terse.\n\nuser:\nHi.\n\ndeveloper:\nCite lines.\n"
    );
}

#[test]
fn chat_exports_send_image_blobs_as_images_and_only_types_the_apis_take() {
    let sandbox = Sandbox::new(&fake("odd", "odd-content"));
    let openai: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/pictures",
        "--format",
        "openai",
    ])))
    .unwrap();
    assert_eq!(
        openai,
        serde_json::json!([{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "text",
             "text": "[image: image/svg+xml, 6 bytes — OpenAI takes png, jpeg, gif and webp images]"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4A=="}}
        ]}])
    );
    let anthropic: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "odd/pictures",
        "--format",
        "anthropic",
    ])))
    .unwrap();
    let blocks = anthropic[0]["content"].as_array().unwrap();
    assert_eq!(
        blocks[0],
        serde_json::json!({"type": "image", "source":
            {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}})
    );
    assert_eq!(blocks[1]["type"], "text");
    assert_eq!(blocks[2]["source"]["media_type"], "image/jpeg");
}

#[test]
fn sigterm_and_sighup_shut_servers_down_too() {
    for (signal, code) in [("-TERM", 143), ("-HUP", 129)] {
        let sandbox = Sandbox::new("");
        let pid_file = sandbox.dir.path().join("pid");
        let script = format!("echo $$ > '{}'; exec sleep 31", pid_file.display());
        std::fs::write(
            sandbox.config(),
            format!(
                "[servers.slow]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
                toml_str(script)
            ),
        )
        .unwrap();
        let child = sandbox
            .command(&["list"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !pid_file.exists() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let server_pid = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .to_string();
        let status = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("stopped by a signal"),
            "{}",
            stderr(&output)
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(
            !is_running(&server_pid),
            "the server outlived mcpick after {signal}"
        );
    }
}

#[test]
fn a_legacy_server_silent_on_discover_is_initialized_after_a_short_timeout() {
    let sandbox = Sandbox::new(&format!(
        // Half of it for server/discover, half for a fresh start with initialize: each
        // long enough for a Python start on a busy machine.
        "{}timeout_ms = 5000\n",
        fake("quiet", "silent-discover")
    ));
    let out = success(&sandbox.mcpick(&["get", "quiet/hello"]));
    assert_eq!(out, "hello\n");
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    assert_eq!(servers[0]["state"], "ready");
    assert_eq!(servers[0]["protocolVersion"], "2025-06-18");
}

#[test]
fn a_server_crashing_on_get_shows_its_last_words() {
    let sandbox = Sandbox::new(&fake("fragile", "crash-on-get"));
    let output = sandbox.mcpick(&["get", "fragile/hello"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("exited with status 7"), "{err}");
    assert!(
        err.contains("its last stderr lines:\n    Traceback: KeyError 'city'"),
        "{err}"
    );
    assert!(err.contains("(all of them are in the log, in "), "{err}");
}

/// Every log file in `dir` (one per day: `mcpick.YYYY-MM-DD.log`), concatenated.
fn read_logs(dir: &std::path::Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with("mcpick.") && name.ends_with(".log") {
            text.push_str(&std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    assert!(!text.is_empty(), "no log file in {}", dir.display());
    text
}

/// Connects straight through `Connection` (no hub) to the fake server in `mode`.
async fn connect_fake(mode: &str) -> mcpick::mcp::Connection {
    let config =
        mcpick::config::parse(&fake("fake", mode), std::path::Path::new("t.toml"), &|_| {
            None
        })
        .unwrap();
    let log = std::sync::Arc::new(mcpick::mcp::ServerLog::default());
    mcpick::mcp::Connection::connect(&config.servers[0], log, None)
        .await
        .unwrap_or_else(|e| panic!("connect: {e}"))
}

fn first_text(messages: &mcpick::model::PromptMessages) -> String {
    match &messages.messages[0].content {
        mcpick::model::Content::Known(mcpick::model::KnownContent::Text { text, .. }) => {
            text.clone()
        }
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_questions_are_asked_and_the_answers_sent_back() {
    use mcpick::mcp::{Answer, FieldKind, GetOutcome, InputAnswers, QuestionKind};
    let connection = connect_fake("input-required").await;
    assert_eq!(connection.details().protocol_version, "2026-07-28");
    let arguments = Default::default();
    let asked = match connection
        .get_prompt_round("ask", &arguments, None)
        .await
        .unwrap()
    {
        GetOutcome::InputRequired(asked) => asked,
        other => panic!("expected questions, got {other:?}"),
    };
    assert_eq!(
        asked.request_state.as_deref(),
        Some("st\u{e9} \"q\" \\ /x== \u{2603}")
    );
    let login = asked.questions.iter().find(|q| q.key == "login").unwrap();
    let QuestionKind::Form { message, fields } = &login.kind else {
        panic!("{login:?}")
    };
    assert_eq!(message, "Who is asking?");
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["name", "color", "count"], "the schema's order");
    assert!(fields[0].required && !fields[1].required);
    assert_eq!(fields[0].title.as_deref(), Some("Name"));
    assert_eq!(
        fields[1].kind,
        FieldKind::Choice {
            values: vec!["r".into(), "g".into()],
            labels: vec!["Red".into(), "Green".into()],
            multiple: false
        }
    );
    assert_eq!(fields[2].default, Some(serde_json::json!(2)));
    let llm = asked.questions.iter().find(|q| q.key == "llm").unwrap();
    assert!(
        matches!(&llm.kind, QuestionKind::Unsupported { method, .. } if method == "sampling/createMessage"),
        "{llm:?}"
    );

    let mut content = serde_json::Map::new();
    content.insert("name".into(), "octocat".into());
    content.insert("color".into(), "g".into());
    content.insert("count".into(), 3.into());
    let answers = InputAnswers {
        answers: vec![
            ("login".into(), Answer::Accept(content)),
            ("llm".into(), Answer::Decline),
        ],
        request_state: asked.request_state.clone(),
    };
    let filled = match connection
        .get_prompt_round("ask", &arguments, Some(&answers))
        .await
        .unwrap_or_else(|e| panic!("the retry was refused: {e}"))
    {
        GetOutcome::Messages(messages) => messages,
        other => panic!("expected messages, got {other:?}"),
    };
    assert_eq!(first_text(&filled), "Hello octocat, you like g (x3)");

    // The CLI's get_prompt declares no elicitation: this server then refuses (-32021).
    let refused = connection.get_prompt("ask", &arguments).await.unwrap_err();
    assert_eq!(refused.code(), Some(-32021), "{refused}");
    connection.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_only_rounds_are_retried_and_unknown_questions_named() {
    use mcpick::mcp::{GetOutcome, McpError, QuestionKind};
    let connection = connect_fake("input-required").await;
    let arguments = Default::default();
    match connection.get_prompt_round("busy", &arguments, None).await {
        Ok(GetOutcome::Messages(messages)) => {
            assert_eq!(first_text(&messages), "served after shedding")
        }
        other => panic!("{other:?}"),
    }
    let busy = connection.get_prompt("busy", &arguments).await.unwrap();
    assert_eq!(first_text(&busy), "served after shedding");
    match connection
        .get_prompt_round("odd-ask", &arguments, None)
        .await
    {
        Ok(GetOutcome::InputRequired(asked)) => {
            assert_eq!(asked.request_state, None);
            assert!(matches!(
                &asked.questions[0].kind,
                QuestionKind::Unsupported { method, .. } if method == "tasks/frobnicate"
            ));
        }
        other => panic!("{other:?}"),
    }
    match connection.get_prompt("odd-ask", &arguments).await {
        Err(McpError::InputRequired(what)) => assert!(what.contains("`x`"), "{what}"),
        other => panic!("{other:?}"),
    }
    connection.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_elicitation_request_is_declined() {
    let connection = connect_fake("legacy-elicit").await;
    assert_eq!(connection.details().protocol_version, "2025-06-18");
    let filled = connection
        .get_prompt("hello", &Default::default())
        .await
        .unwrap();
    assert_eq!(first_text(&filled), "elicitation answered: decline");
    let log = connection.log().lines();
    assert!(
        log.iter()
            .any(|l| l.text.contains("declined the server's elicitation/create")),
        "{log:?}"
    );
    connection.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_sampling_request_is_refused_and_the_log_says_so() {
    let connection = connect_fake("legacy-sampling").await;
    let filled = connection
        .get_prompt("hello", &Default::default())
        .await
        .unwrap();
    // Method not found, as for any request a client does not serve.
    assert_eq!(first_text(&filled), "sampling error: -32601");
    let log = connection.log().lines();
    assert!(
        log.iter().any(|l| l
            .text
            .contains("refused the server's sampling/createMessage")),
        "{log:?}"
    );
    connection.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_elicitation_request_is_a_round_of_get_prompt_round() {
    use mcpick::mcp::{Answer, GetOutcome, InputAnswers, QuestionKind};
    let connection = connect_fake("legacy-elicit").await;
    let arguments = Default::default();
    let asked = match connection.get_prompt_round("hello", &arguments, None).await {
        Ok(GetOutcome::InputRequired(asked)) => asked,
        other => panic!("expected the question, got {other:?}"),
    };
    assert_eq!(asked.questions.len(), 1);
    assert_eq!(asked.questions[0].key, "elicitation");
    match &asked.questions[0].kind {
        QuestionKind::Form { message, fields } => {
            assert_eq!(message, "Your name?");
            assert_eq!(fields[0].name, "name");
            assert!(fields[0].required);
        }
        other => panic!("{other:?}"),
    }
    let mut content = serde_json::Map::new();
    content.insert("name".into(), "octocat".into());
    let answers = InputAnswers {
        answers: vec![("elicitation".into(), Answer::Accept(content))],
        request_state: asked.request_state.clone(),
    };
    // Answers to a question that is not waiting are refused, and the waiting one stays.
    let stale = InputAnswers {
        answers: answers.answers.clone(),
        request_state: Some("another".into()),
    };
    assert!(
        connection
            .get_prompt_round("hello", &arguments, Some(&stale))
            .await
            .is_err()
    );
    let filled = match connection
        .get_prompt_round("hello", &arguments, Some(&answers))
        .await
    {
        Ok(GetOutcome::Messages(messages)) => messages,
        other => panic!("expected messages, got {other:?}"),
    };
    assert_eq!(first_text(&filled), "elicitation answered: accept");
    connection.shutdown().await;
}

/// Events of one hub until `until` says stop, with a generous bound.
async fn hub_events_until(
    events: &mut tokio::sync::mpsc::Receiver<mcpick::mcp::McpEvent>,
    until: impl Fn(&mcpick::mcp::McpEvent) -> bool,
) -> Vec<mcpick::mcp::McpEvent> {
    let mut seen = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(event) = events.recv().await {
            let done = until(&event);
            seen.push(event);
            if done {
                return;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("timed out; events so far: {seen:#?}"));
    seen
}

/// The events' kinds, for comparing sequences (log lines left out).
fn kinds(events: &[mcpick::mcp::McpEvent]) -> Vec<String> {
    use mcpick::mcp::McpEvent::*;
    events
        .iter()
        .filter_map(|e| match e {
            Connecting { .. } => Some("connecting".to_string()),
            Ready { .. } => Some("ready".to_string()),
            Failed { .. } => Some("failed".to_string()),
            Warning { .. } => Some("warning".to_string()),
            FromCatalog { .. } => Some("from catalog".to_string()),
            ListStale { .. } => Some("list stale".to_string()),
            Restarting {
                attempt, of, delay, ..
            } => Some(format!(
                "restart {attempt}/{of} in {} ms",
                delay.as_millis()
            )),
            PromptsChanged { .. }
            | ServedProblemsChanged { .. }
            | Log { .. }
            | LogSnapshot { .. } => None,
        })
        .collect()
}

fn quick_restarts(attempts: u32) -> mcpick::mcp::RestartPolicy {
    mcpick::mcp::RestartPolicy {
        attempts,
        first_delay: std::time::Duration::from_millis(100),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_crashing_mid_request_is_restarted_and_serves_again() {
    use mcpick::mcp::{Hub, McpEvent};
    let config = mcpick::config::parse(
        &fake("flaky", "crash-on-get"),
        std::path::Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start_with(config.servers, tx, false, quick_restarts(3));
    hub_events_until(&mut events, |e| matches!(e, McpEvent::Ready { .. })).await;
    let connection = hub.connection("flaky").expect("ready");
    let error = connection
        .get_prompt("hello", &Default::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("exited with status 7"), "{error}");
    drop(connection);
    let seen = hub_events_until(&mut events, |e| matches!(e, McpEvent::Ready { .. })).await;
    assert_eq!(
        kinds(&seen),
        ["failed", "restart 1/3 in 100 ms", "connecting", "ready"]
    );
    let again = hub.connection("flaky").expect("ready again");
    assert_eq!(again.list_prompts().await.unwrap().len(), 3);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_crashing_is_restarted_with_backoff_then_given_up() {
    use mcpick::mcp::{Hub, McpEvent};
    let config = mcpick::config::parse(
        &fake("doomed", "crash-after-list"),
        std::path::Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start_with(config.servers, tx, true, quick_restarts(2));
    let seen = hub_events_until(
        &mut events,
        |e| matches!(e, McpEvent::Log { line, .. } if line.text.contains("gave up")),
    )
    .await;
    assert_eq!(
        kinds(&seen),
        [
            "connecting",
            "ready",
            "failed",
            "restart 1/2 in 100 ms",
            "connecting",
            "ready",
            "failed",
            "restart 2/2 in 200 ms",
            "connecting",
            "ready",
            "failed",
        ]
    );
    let McpEvent::Log { line, .. } = seen.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(line.text, "gave up restarting after 2 attempts");
    // Nothing more (the channel may close, as the server's task ended): no fourth start.
    let more = tokio::time::timeout(std::time::Duration::from_millis(800), async {
        loop {
            match events.recv().await {
                Some(McpEvent::Log { .. }) => {}
                other => return other,
            }
        }
    })
    .await;
    assert!(!matches!(more, Ok(Some(_))), "{more:?}");
    hub.shutdown().await;
}

#[test]
fn a_silent_server_fails_once_its_timeout_is_spent() {
    let (sandbox, traffic) = list_edges_sandbox("mute", "silent", "timeout_ms = 3000");
    let started = std::time::Instant::now();
    let output = sandbox.mcpick(&["list"]);
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains(
            "server `mute` failed: the handshake timed out after 3000 ms (raise `timeout_ms`"
        ),
        "{err}"
    );
    assert!(
        took < std::time::Duration::from_secs(5),
        "took {took:?}: {err}"
    );
    // Within those 3 s it was asked at most once each way (server/discover, then, started
    // again, initialize), and nothing else: no second round of waiting.
    let sent = std::fs::read_to_string(&traffic).unwrap_or_default();
    let methods: Vec<String> = sent
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|m| m["method"].as_str().map(str::to_string))
        .collect();
    let count = |method: &str| methods.iter().filter(|m| *m == method).count();
    assert!(
        count("server/discover") <= 1 && count("initialize") <= 1,
        "{methods:?}"
    );
    assert_eq!(
        count("server/discover") + count("initialize"),
        methods.len(),
        "{methods:?}"
    );
}

#[test]
fn a_list_with_no_prompts_says_which_answered_and_how_many_failed() {
    let sandbox = Sandbox::new("");
    let traffic = sandbox.dir.path().join("traffic.jsonl");
    let mut config = list_edges("np", "no-prompts", &traffic, "");
    for n in 1..=4 {
        config.push_str(&format!(
            "[servers.down{n}]\ncommand = \"mcpick-test-no-such-command\"\n"
        ));
    }
    std::fs::write(sandbox.config(), config).unwrap();
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(success(&output), "");
    let err = stderr(&output);
    assert!(
        err.ends_with("mcpick: `np` answered but offers no prompts; 4 servers failed (above)\n"),
        "{err}"
    );
    assert!(!err.contains("none of them"), "{err}");
    // Alone, it says the same without the failures.
    let (sandbox, _) = list_edges_sandbox("np", "no-prompts", "");
    let err = stderr(&sandbox.mcpick(&["list"]));
    assert_eq!(err, "mcpick: `np` answered but offers no prompts\n");
}

#[test]
fn an_http_server_that_never_asked_for_a_sign_in_does_not_need_one() {
    let sandbox = Sandbox::new("");
    let served = mcpick_serve_http(&["--builtin"]);
    std::fs::write(sandbox.config(), http("lib", &served.url)).unwrap();
    let text = success(&sandbox.mcpick(&["servers"]));
    assert!(text.contains("lib  (http, ready)\n"), "{text}");
    assert!(text.contains("  sign-in:      not needed\n"), "{text}");
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    assert_eq!(servers[0]["signIn"], "not needed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refreshed_list_warns_only_of_what_is_newly_left_out() {
    use mcpick::mcp::{Hub, McpEvent};
    let dir = tempfile::tempdir().unwrap();
    let config = mcpick::config::parse(
        &list_edges(
            "odd",
            "bad-prompt-changing",
            &dir.path().join("traffic.jsonl"),
            "",
        ),
        std::path::Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start_with(config.servers, tx, false, quick_restarts(0));
    let seen = hub_events_until(&mut events, |e| {
        matches!(e, McpEvent::PromptsChanged { .. })
    })
    .await;
    let warnings: Vec<&str> = seen
        .iter()
        .filter_map(|e| match e {
            McpEvent::Warning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    assert!(warnings[0].contains("number 2 of page 1"), "{warnings:#?}");
    assert!(warnings[1].contains("`broken`"), "{warnings:#?}");
    assert!(warnings[2].contains("`worse`"), "{warnings:#?}");
    assert_eq!(
        kinds(&seen),
        ["connecting", "warning", "warning", "ready", "warning"]
    );
    let Some(McpEvent::PromptsChanged { prompts, .. }) = seen.last() else {
        panic!("{seen:#?}")
    };
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["good", "fine"]);
    hub.shutdown().await;
}

#[test]
fn an_anthropic_export_leaves_out_empty_messages_and_says_so_on_stderr() {
    let sandbox = Sandbox::new("");
    let library = sandbox.dir.path().join("library");
    std::fs::create_dir(&library).unwrap();
    // An empty served prompt: its one message's text is "".
    std::fs::write(
        library.join("empty.prompt.md"),
        "---\ndescription: nothing yet\n---\n",
    )
    .unwrap();
    std::fs::write(
        sandbox.config(),
        mcpick_serve("lib", &[&library.to_string_lossy()]),
    )
    .unwrap();
    let output = sandbox.mcpick(&["get", "lib/empty", "--format", "anthropic"]);
    assert_eq!(success(&output), "[]\n");
    assert_eq!(
        stderr(&output),
        "mcpick: anthropic export: left out message #1: blank text (the Messages API refuses it)\n\
         mcpick: anthropic export: no message is left (the Messages API needs one)\n"
    );
    // The other formats show the message as the server sent it, without a note.
    let output = sandbox.mcpick(&["get", "lib/empty", "--format", "openai"]);
    assert!(success(&output).contains("\"content\": \"\""));
    assert_eq!(stderr(&output), "");
}

#[test]
fn an_unwritable_log_folder_is_said_instead_of_pointed_to() {
    let sandbox = Sandbox::new(&fake("crashy", "crash"));
    // The state folder is a file: no log folder can be made in it.
    let state = sandbox.dir.path().join("state-is-a-file");
    std::fs::write(&state, "").unwrap();
    let output = sandbox
        .command(&["get", "crashy/hello"])
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert!(error.contains("its last stderr lines:"), "{error}");
    assert!(
        error.contains("(no log file: ") && error.contains("cannot be written ("),
        "{error}"
    );
    assert!(!error.contains("are in the log"), "{error}");
}

#[test]
fn get_help_says_when_a_bare_prompt_name_works() {
    let sandbox = Sandbox::new("");
    let help = success(&sandbox.mcpick(&["get", "--help"]));
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("a bare NAME (or /NAME) works when exactly one enabled server offers it"),
        "{help}"
    );
    assert!(!flat.contains("when one server is configured"), "{help}");
}

/// `mcpick lsit` in a script (no terminal at all, `setsid`): the typo is named, not only
/// the missing terminal; a bare word close to no command says the terminal is needed.
#[test]
fn a_misspelt_subcommand_without_a_terminal_is_named() {
    let sandbox = Sandbox::new("");
    let detached = |word: &str| {
        let plain = sandbox.command(&[word]);
        let mut command = std::process::Command::new("setsid");
        command
            .arg("--wait")
            .arg(plain.get_program())
            .args(plain.get_args())
            .stdin(std::process::Stdio::null());
        for (key, value) in plain.get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command.output().expect("run setsid")
    };
    let typo = detached("lsit");
    assert_eq!(typo.status.code(), Some(2));
    let said = String::from_utf8_lossy(&typo.stderr);
    assert!(
        said.contains("`lsit` is no command: did you mean `mcpick list`?"),
        "{said}"
    );
    let word = detached("translate");
    assert_eq!(word.status.code(), Some(2));
    let said = String::from_utf8_lossy(&word.stderr);
    assert!(
        said.contains("the full-screen menu needs a terminal"),
        "{said}"
    );
    assert!(!said.contains("did you mean"), "{said}");
}

/// A server's error text on stderr is one line, quoted, its controls shown as pictures: it
/// cannot end mcpick's line and print one of its own (`mcpick: signed in to …`).
#[test]
fn a_server_cannot_forge_mcpicks_lines_on_stderr() {
    let sandbox = Sandbox::new(&fake("fake", "forger"));
    let output = sandbox.mcpick(&["get", "fake/hello"]);
    let stderr = stderr(&output);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(
        !stderr
            .lines()
            .any(|line| line.starts_with("mcpick: signed in") || line.starts_with("mcpick: done")),
        "a forged line:\n{stderr}"
    );
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    assert!(
        stderr.contains("\"boom␊mcpick: signed in to evil.example␊␛[2Kmcpick: done\""),
        "{stderr}"
    );
}
