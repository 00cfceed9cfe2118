//! The catalog cache on the wire: what a warm start and a warm `mcpick get` send (and do
//! not send), by era; `ttlMs` and list changes; what makes a cached catalog unusable (an
//! edited config, another `Authorization`, a broken file). Each server's traffic is logged
//! by the server itself (tests/peers/catalog_server.py) or by a `tee` in front of it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;
use mcpick::cache::{self, Era, Freshness, Hints, PromptPage, Scope, ServerEntry};
use mcpick::config;
use mcpick::mcp::{Hub, McpEvent};
use mcpick::model::{PromptInfo, ServerDetails};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(30);

fn catalog_server() -> PathBuf {
    root().join("tests/peers/catalog_server.py")
}

/// `[servers.NAME]` running catalog_server.py with `args` over stdio.
fn catalog_stdio(name: &str, args: &[&str]) -> String {
    let mut all = vec![toml_str(catalog_server().to_string_lossy())];
    all.extend(args.iter().map(toml_str));
    format!(
        "[servers.{name}]\ncommand = {}\nargs = [{}]\n",
        toml_str(python3()),
        all.join(", ")
    )
}

/// `[servers.NAME]` running `COMMAND` through `sh -c`, every byte mcpick sends copied to
/// `wire` on the way.
fn teed(name: &str, wire: &Path, command: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(format!(
            "tee -a {} | {command}",
            sh_quote(wire.to_string_lossy())
        ))
    )
}

/// The methods of the JSON-RPC messages in a `tee` log (responses to the server's own
/// requests have none and are left out), and empties it for the next run.
fn sent_methods(wire: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(wire).unwrap_or_default();
    std::fs::write(wire, "").unwrap();
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|message| Some(message.get("method")?.as_str()?.to_string()))
        .collect()
}

/// The lines catalog_server.py logged, and empties its log for the next run.
fn logged(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    std::fs::write(log, "").unwrap();
    text.lines().map(str::to_string).collect()
}

/// Just the methods of [`logged`] lines.
fn methods(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect()
}

/// The catalog files of the sandbox.
fn catalog_files(sandbox: &Sandbox) -> Vec<PathBuf> {
    let dir = sandbox.dir.path().join("xdg-cache/mcpick/catalog");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|read| {
            read.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The one catalog entry of the sandbox.
fn the_entry(sandbox: &Sandbox, server: &str) -> ServerEntry {
    let files = catalog_files(sandbox);
    assert_eq!(files.len(), 1, "{files:?}");
    // The hub writes off the hot path: a run may end a moment before its file is renamed.
    let bytes = std::fs::read(&files[0]).unwrap();
    cache::parse(&bytes, server).unwrap()
}

/// Waits until the sandbox's one catalog file satisfies `ok` (the hub writes it in the
/// background; a one-shot command may exit a moment before the rename).
fn wait_for_entry(
    sandbox: &Sandbox,
    server: &str,
    ok: impl Fn(&ServerEntry) -> bool,
) -> ServerEntry {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if catalog_files(sandbox).len() == 1 {
            let entry = the_entry(sandbox, server);
            if ok(&entry) {
                return entry;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the catalog was not written as expected"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_warm_get_on_mcpick_serve_sends_only_prompts_get() {
    let sandbox = Sandbox::new("");
    let wire = sandbox.dir.path().join("wire.jsonl");
    let serve = format!("{} serve --builtin", sh_quote(env!("CARGO_BIN_EXE_mcpick")));
    std::fs::write(sandbox.config(), teed("lib", &wire, &serve)).unwrap();
    let get = ["get", "lib/commit-message", "diff=+fix", "--format", "text"];
    let cold = success(&sandbox.mcpick(&get));
    // mcpick serve declares the Skills extension (it serves skill folders), so a cold list
    // asks for its skills too.
    assert_eq!(
        sent_methods(&wire),
        [
            "server/discover",
            "prompts/list",
            "skills/list",
            "prompts/get"
        ]
    );
    wait_for_entry(&sandbox, "lib", |e| e.pages.is_some());
    let warm = success(&sandbox.mcpick(&get));
    assert_eq!(warm, cold);
    assert_eq!(sent_methods(&wire), ["prompts/get"]);
}

#[test]
fn a_warm_get_on_the_python_sdk_server_sends_only_prompts_get() {
    let sandbox = Sandbox::new("");
    let wire = sandbox.dir.path().join("wire.jsonl");
    let command = format!(
        "{} {} stdio",
        sh_quote(python().to_string_lossy()),
        sh_quote(py_server().to_string_lossy())
    );
    std::fs::write(sandbox.config(), teed("py", &wire, &command)).unwrap();
    let get = ["get", "py/greet", "name=Ada", "--format", "text"];
    let cold = success(&sandbox.mcpick(&get));
    // Its list comes in pages.
    let sent = sent_methods(&wire);
    assert_eq!(
        sent.first().map(String::as_str),
        Some("server/discover"),
        "{sent:?}"
    );
    assert_eq!(
        sent.last().map(String::as_str),
        Some("prompts/get"),
        "{sent:?}"
    );
    assert!(
        sent.len() > 2 && sent[1..sent.len() - 1].iter().all(|m| m == "prompts/list"),
        "{sent:?}"
    );
    let entry = wait_for_entry(&sandbox, "py", |e| e.pages.is_some());
    assert_eq!(entry.era, Era::Modern);
    let warm = success(&sandbox.mcpick(&get));
    assert_eq!(warm, cold);
    assert_eq!(sent_methods(&wire), ["prompts/get"]);
}

#[test]
fn a_legacy_server_gets_initialize_at_once_when_warm() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let config = catalog_stdio("old", &["--era", "legacy", "--log", &log.to_string_lossy()]);
    std::fs::write(sandbox.config(), config).unwrap();
    let cold = success(&sandbox.mcpick(&["list"]));
    assert!(cold.contains("old/hello"), "{cold}");
    assert_eq!(
        methods(&logged(&log)),
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "prompts/list"
        ]
    );
    wait_for_entry(&sandbox, "old", |e| e.era == Era::Legacy);
    // A legacy list carries no hints: stale at once, so the menu's start lists again, but
    // without the probe.
    assert_eq!(success(&sandbox.mcpick(&["list"])), cold);
    assert_eq!(
        methods(&logged(&log)),
        ["initialize", "notifications/initialized", "prompts/list"]
    );
    // A one-shot get takes the stale list: the handshake and prompts/get.
    let got = success(&sandbox.mcpick(&["get", "old/hello", "--format", "text"]));
    assert_eq!(got, "hello {}\n");
    assert_eq!(
        methods(&logged(&log)),
        ["initialize", "notifications/initialized", "prompts/get"]
    );
}

#[test]
fn a_list_is_not_fetched_again_within_its_ttl() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let prompts = sandbox.dir.path().join("prompts");
    std::fs::write(&prompts, "first\n").unwrap();
    let ttl_ms: u64 = 2000;
    let ttl = ttl_ms.to_string();
    let config = catalog_stdio(
        "s",
        &[
            "--ttl",
            &ttl,
            "--log",
            &log.to_string_lossy(),
            "--prompts",
            &prompts.to_string_lossy(),
        ],
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let started = Instant::now();
    assert!(success(&sandbox.mcpick(&["list"])).contains("s/first"));
    assert_eq!(methods(&logged(&log)), ["server/discover", "prompts/list"]);
    let entry = wait_for_entry(&sandbox, "s", |e| e.pages.is_some());
    let page = &entry.pages.as_ref().unwrap()[0];
    assert_eq!(
        (page.hints.ttl_ms, page.hints.scope),
        (ttl_ms, Scope::Public)
    );
    // Within the TTL: the cached list, though the server's changed meanwhile.
    std::fs::write(&prompts, "second\n").unwrap();
    let warm = success(&sandbox.mcpick(&["list"]));
    assert!(
        started.elapsed() < Duration::from_millis(ttl_ms),
        "the machine is too slow for this TTL: {:?}",
        started.elapsed()
    );
    assert!(warm.contains("s/first"), "{warm}");
    assert_eq!(methods(&logged(&log)), ["server/discover"]);
    // After it: listed again.
    let expires_ms = page.hints.expires_ms();
    while cache::now_ms() <= expires_ms {
        std::thread::sleep(Duration::from_millis(50));
    }
    let after = success(&sandbox.mcpick(&["list"]));
    assert!(after.contains("s/second"), "{after}");
    assert_eq!(methods(&logged(&log)), ["server/discover", "prompts/list"]);
}

#[test]
fn an_edited_args_makes_the_next_start_ignore_the_old_catalog() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let log_arg = log.to_string_lossy().to_string();
    let config = catalog_stdio("s", &["--ttl", "600000", "--log", &log_arg]);
    std::fs::write(sandbox.config(), &config).unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.pages.is_some());
    logged(&log);
    success(&sandbox.mcpick(&["list"]));
    assert_eq!(methods(&logged(&log)), ["server/discover"]);
    let edited = catalog_stdio(
        "s",
        &["--ttl", "600000", "--scope", "public", "--log", &log_arg],
    );
    std::fs::write(sandbox.config(), edited).unwrap();
    let out = sandbox.mcpick(&["list"]);
    success(&out);
    assert_eq!(
        stderr(&out),
        "",
        "an outdated catalog is ignored without a word"
    );
    assert_eq!(methods(&logged(&log)), ["server/discover", "prompts/list"]);
}

#[test]
fn a_broken_catalog_file_gives_one_notice_and_is_rewritten() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let config = catalog_stdio("s", &["--ttl", "600000", "--log", &log.to_string_lossy()]);
    std::fs::write(sandbox.config(), config).unwrap();
    let cold = success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.pages.is_some());
    let file = catalog_files(&sandbox).remove(0);
    let whole = std::fs::read(&file).unwrap();
    for (case, broken, said) in [
        (
            "truncated",
            whole[..whole.len() / 2].to_vec(),
            "it is cut short",
        ),
        (
            "garbage",
            b"\x00\xffnot json at all".to_vec(),
            "it is not a catalog file",
        ),
    ] {
        std::fs::write(&file, &broken).unwrap();
        logged(&log);
        let out = sandbox.mcpick(&["list"]);
        assert_eq!(stdout(&out), cold, "{case}");
        let err = stderr(&out);
        assert_eq!(
            err.matches("the cached catalog of s was ignored").count(),
            1,
            "{case}: {err}"
        );
        assert!(err.contains(said), "{case}: {err}");
        assert_eq!(
            methods(&logged(&log)),
            ["server/discover", "prompts/list"],
            "{case}"
        );
        // Rewritten: the next start is warm and quiet.
        wait_for_entry(&sandbox, "s", |e| e.pages.is_some());
        let out = sandbox.mcpick(&["list"]);
        assert_eq!(
            (stdout(&out), stderr(&out)),
            (cold.clone(), String::new()),
            "{case}"
        );
        assert_eq!(methods(&logged(&log)), ["server/discover"], "{case}");
    }
}

#[test]
fn a_prompt_the_server_refuses_refreshes_the_catalog_and_tells_its_error() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let prompts = sandbox.dir.path().join("prompts");
    std::fs::write(&prompts, "gone\nstays\n").unwrap();
    let config = catalog_stdio(
        "s",
        &[
            "--ttl",
            "600000",
            "--log",
            &log.to_string_lossy(),
            "--prompts",
            &prompts.to_string_lossy(),
        ],
    );
    std::fs::write(sandbox.config(), config).unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.prompts().len() == 2);
    logged(&log);
    std::fs::write(&prompts, "stays\n").unwrap();
    let out = sandbox.mcpick(&["get", "s/gone"]);
    // Refused as a live list refuses it (exit 2, what it has), with the server's words.
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("server error -32602: \"Unknown prompt: gone\"")
            && stderr(&out).contains("server `s` has no prompt `gone`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(methods(&logged(&log)), ["prompts/get", "prompts/list"]);
    // The catalog holds the server's list now: a fresh start shows it without listing.
    wait_for_entry(&sandbox, "s", |e| e.prompts().len() == 1);
    let listed = success(&sandbox.mcpick(&["list"]));
    assert!(
        !listed.contains("s/gone") && listed.contains("s/stays"),
        "{listed}"
    );
    assert_eq!(methods(&logged(&log)), ["server/discover"]);
}

#[test]
fn a_stale_list_is_fetched_again_before_a_prompt_is_refused() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let prompts = sandbox.dir.path().join("prompts");
    std::fs::write(&prompts, "old\n").unwrap();
    // ttlMs 0: stale at once; a get takes it all the same, and checks it.
    let config = catalog_stdio(
        "s",
        &[
            "--log",
            &log.to_string_lossy(),
            "--prompts",
            &prompts.to_string_lossy(),
        ],
    );
    std::fs::write(sandbox.config(), config).unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.pages.is_some());
    logged(&log);
    std::fs::write(&prompts, "old\nnew:topic\n").unwrap();
    let got = success(&sandbox.mcpick(&["get", "s/new", "topic=cats", "--format", "text"]));
    assert_eq!(got, "new {\"topic\": \"cats\"}\n");
    assert_eq!(methods(&logged(&log)), ["prompts/list", "prompts/get"]);
    // Arguments the stale list refuses are checked again against a new list.
    std::fs::write(&prompts, "strict:why\n").unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| {
        e.prompts().iter().any(|p| p.name == "strict")
    });
    logged(&log);
    std::fs::write(&prompts, "strict\n").unwrap();
    let got = success(&sandbox.mcpick(&["get", "s/strict", "--format", "text"]));
    assert_eq!(got, "strict {}\n");
    assert_eq!(methods(&logged(&log)), ["prompts/list", "prompts/get"]);
    // And refused when the new list refuses them too, with no prompts/get sent.
    std::fs::write(&prompts, "strict:why\n").unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| {
        e.prompts().iter().any(|p| !p.arguments.is_empty())
    });
    logged(&log);
    let out = sandbox.mcpick(&["get", "s/strict"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("missing required argument `why`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(methods(&logged(&log)), ["prompts/list"]);
}

#[test]
fn a_server_whose_era_changed_is_reached_all_the_same() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let era = sandbox.dir.path().join("era");
    std::fs::write(&era, "modern").unwrap();
    let config = catalog_stdio(
        "s",
        &[
            "--era-file",
            &era.to_string_lossy(),
            "--log",
            &log.to_string_lossy(),
        ],
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let get = ["get", "s/hello", "--format", "text"];
    assert_eq!(success(&sandbox.mcpick(&get)), "hello {}\n");
    wait_for_entry(&sandbox, "s", |e| e.era == Era::Modern && e.pages.is_some());
    logged(&log);
    // Known modern, now legacy: the direct prompts/get is refused, then the handshake.
    std::fs::write(&era, "legacy").unwrap();
    assert_eq!(success(&sandbox.mcpick(&get)), "hello {}\n");
    assert_eq!(
        methods(&logged(&log)),
        [
            "prompts/get",
            "server/discover",
            "initialize",
            "notifications/initialized",
            "prompts/list",
            "prompts/get"
        ]
    );
    wait_for_entry(&sandbox, "s", |e| e.era == Era::Legacy);
    // Known legacy, now modern: initialize is refused, then both eras are tried.
    std::fs::write(&era, "modern").unwrap();
    assert!(success(&sandbox.mcpick(&["list"])).contains("s/hello"));
    assert_eq!(
        methods(&logged(&log)),
        ["initialize", "server/discover", "prompts/list"]
    );
    wait_for_entry(&sandbox, "s", |e| e.era == Era::Modern);
}

/// An HTTP catalog_server.py; `args` after the era and port.
fn catalog_http(args: &[&str]) -> HttpServer {
    use std::io::BufRead;
    let mut child = std::process::Command::new(python3())
        .arg(catalog_server())
        .args(["--http", "0"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start catalog_server.py --http");
    let mut line = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().trim_start_matches("listening on ").to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    HttpServer { child, url }
}

/// A server process killed when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn private_rows_are_not_reused_with_another_authorization_header() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let server = catalog_http(&[
        "--ttl",
        "600000",
        "--scope",
        "private",
        "--log",
        &log.to_string_lossy(),
    ]);
    let with_header = |token: &str| {
        format!(
            "{}headers = {{ Authorization = {} }}\n",
            http("h", &server.url),
            toml_str(format!("Bearer {token}"))
        )
    };
    std::fs::write(sandbox.config(), with_header("one")).unwrap();
    success(&sandbox.mcpick(&["list"]));
    let entry = wait_for_entry(&sandbox, "h", |e| e.pages.is_some());
    assert_eq!(entry.scope(), Scope::Private);
    let text = std::fs::read_to_string(&catalog_files(&sandbox)[0]).unwrap();
    assert!(
        !text.contains("Bearer one"),
        "a header value was stored: {text}"
    );
    logged(&log);
    success(&sandbox.mcpick(&["list"]));
    assert_eq!(methods(&logged(&log)), ["server/discover"]);
    // The direct get: one POST, with the protocol version header all the same.
    let got = success(&sandbox.mcpick(&["get", "h/hello", "--format", "text"]));
    assert_eq!(got, "hello {}\n");
    assert_eq!(logged(&log), ["prompts/get Bearer one 2026-07-28"]);
    std::fs::write(sandbox.config(), with_header("two")).unwrap();
    success(&sandbox.mcpick(&["list"]));
    assert_eq!(
        logged(&log),
        [
            "server/discover Bearer two 2026-07-28",
            "prompts/list Bearer two 2026-07-28"
        ]
    );
}

// Hub-level: the timers and notices of a connected server. The configs say `cache = false`
// so that nothing is written from this process (it has no sandboxed cache dir); the hub is
// given the entries directly.

/// A fresh-looking entry for `config`'s server (`era`), its one page `ttl_ms` long.
fn entry_for(config: &config::ServerConfig, era: Era, ttl_ms: u64, names: &[&str]) -> ServerEntry {
    let details = ServerDetails {
        transport: "stdio".into(),
        protocol_version: if era == Era::Modern {
            "2026-07-28"
        } else {
            "2025-06-18"
        }
        .into(),
        server_name: None,
        server_version: None,
        capabilities: serde_json::json!({"prompts": {}}),
        prompts: true,
        prompts_list_changed: era == Era::Legacy,
        completions: false,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    };
    let mut entry = ServerEntry::new(config, None, era, details);
    entry.pages = Some(vec![PromptPage {
        hints: Hints::now(Some(ttl_ms), Some(Scope::Public)),
        prompts: names
            .iter()
            .map(|name| PromptInfo {
                server: config.name.clone(),
                name: name.to_string(),
                title: None,
                description: None,
                arguments: Vec::new(),
                skill: None,
                mirrors_skill: None,
            })
            .collect(),
    }]);
    entry
}

async fn next_event(events: &mut mpsc::Receiver<McpEvent>) -> McpEvent {
    let event = tokio::time::timeout(WAIT, events.recv())
        .await
        .expect("no event in time")
        .expect("hub event channel closed");
    if let McpEvent::Failed { error, stderr, .. } = &event {
        panic!("server failed: {error}\n{}", stderr.join("\n"));
    }
    event
}

/// The next event that is not a log line.
async fn next_news(events: &mut mpsc::Receiver<McpEvent>) -> McpEvent {
    loop {
        match next_event(events).await {
            McpEvent::Log { .. } | McpEvent::Connecting { .. } => {}
            other => return other,
        }
    }
}

fn names(prompts: &[PromptInfo]) -> Vec<&str> {
    prompts.iter().map(|p| p.name.as_str()).collect()
}

fn parsed(text: &str) -> config::ServerConfig {
    let text = format!("{text}cache = false\n");
    config::parse(&text, Path::new("t.toml"), &|_| None)
        .unwrap()
        .servers
        .remove(0)
}

#[tokio::test]
async fn a_fresh_list_is_shown_from_the_catalog_then_listed_when_its_ttl_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let prompts_file = dir.path().join("prompts");
    std::fs::write(&prompts_file, "live\n").unwrap();
    let config = parsed(&catalog_stdio(
        "s",
        &[
            "--ttl",
            "0",
            "--log",
            &log.to_string_lossy(),
            "--prompts",
            &prompts_file.to_string_lossy(),
        ],
    ));
    // Before the entry's time of receipt: its TTL counts from then.
    let started = Instant::now();
    let entry = entry_for(&config, Era::Modern, 1000, &["cached"]);
    let (tx, mut events) = mpsc::channel(64);
    let hub = Hub::start_cached(vec![(config, Some(entry))], tx, false);
    let McpEvent::FromCatalog { freshness, .. } = next_news(&mut events).await else {
        panic!("the catalog's list first")
    };
    assert!(
        matches!(freshness, Freshness::Fresh { .. }),
        "{freshness:?}"
    );
    let McpEvent::Ready { prompts, .. } = next_news(&mut events).await else {
        panic!("then Ready")
    };
    assert_eq!(names(&prompts), ["cached"]);
    assert_eq!(methods(&logged(&log)), ["server/discover"]);
    // At the TTL (plus its jitter), listed again; the new list's ttlMs 0 sets no timer.
    let McpEvent::PromptsChanged { prompts, .. } = next_news(&mut events).await else {
        panic!("a re-list at the TTL")
    };
    assert!(
        started.elapsed() >= Duration::from_millis(1000),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(names(&prompts), ["live"]);
    assert_eq!(methods(&logged(&log)), ["prompts/list"]);
    // A re-list asked for reaches the server every time (rmcp's own cache is off).
    for _ in 0..2 {
        let listed = hub.relist_and_wait("s").await.expect("still up").unwrap();
        assert_eq!(names(&listed), ["live"]);
    }
    assert_eq!(methods(&logged(&log)), ["prompts/list", "prompts/list"]);
    // A failed re-fetch keeps the rows and says why.
    std::fs::write(&prompts_file, "!fail\n").unwrap();
    hub.relist("s");
    let reason = loop {
        match next_news(&mut events).await {
            McpEvent::ListStale { reason, .. } => break reason,
            McpEvent::PromptsChanged { .. } => {}
            other => panic!("{other:?}"),
        }
    };
    assert!(reason.contains("the list is broken today"), "{reason}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(events.try_recv().is_err(), "no retry loop after a failure");
    hub.shutdown().await;
}

#[tokio::test]
async fn a_list_change_notice_lists_again_at_once_whatever_the_ttl() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let prompts = dir.path().join("prompts");
    std::fs::write(&prompts, "hello\n").unwrap();
    let config = parsed(&catalog_stdio(
        "s",
        &[
            "--era",
            "legacy",
            "--notify-after-get",
            "--log",
            &log.to_string_lossy(),
            "--prompts",
            &prompts.to_string_lossy(),
        ],
    ));
    // Fresh for an hour.
    let entry = entry_for(&config, Era::Legacy, 3_600_000, &["hello"]);
    let (tx, mut events) = mpsc::channel(64);
    let hub = Hub::start_cached(vec![(config, Some(entry))], tx, false);
    assert!(matches!(
        next_news(&mut events).await,
        McpEvent::FromCatalog { .. }
    ));
    assert!(matches!(
        next_news(&mut events).await,
        McpEvent::Ready { .. }
    ));
    // The server logs the handshake's last notice as it reads it, maybe after Ready.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        methods(&logged(&log)),
        ["initialize", "notifications/initialized"],
        "known legacy: no discover probe, and a fresh list is not fetched"
    );
    std::fs::write(&prompts, "hello\nadded\n").unwrap();
    let connection = hub.connection("s").unwrap();
    connection
        .get_prompt("hello", &Default::default())
        .await
        .unwrap();
    let McpEvent::PromptsChanged { prompts, .. } = next_news(&mut events).await else {
        panic!("the notice re-lists")
    };
    assert_eq!(names(&prompts), ["hello", "added"]);
    assert_eq!(methods(&logged(&log)), ["prompts/get", "prompts/list"]);
    hub.shutdown().await;
}

/// Runs mcpick and waits for it at most `limit`; panics (killing it) if it is still running.
fn finished_within(mut command: std::process::Command, limit: Duration) -> std::process::Output {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("still waiting after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn timeout_ms_holds_for_a_server_that_never_answers_on_every_path() {
    // Warm (2026-07-28: `prompts/get` is the first request, sent without a handshake),
    // with --refresh (handshake first), and a legacy server (initialize first).
    for (era, refresh) in [("modern", false), ("modern", true), ("legacy", false)] {
        let sandbox = Sandbox::new("");
        let server = catalog_http(&[
            "--era",
            era,
            "--ttl",
            "600000",
            "--scope",
            "public",
            "--get-delay",
            "-1",
        ]);
        std::fs::write(
            sandbox.config(),
            format!("{}timeout_ms = 1000\n", http("h", &server.url)),
        )
        .unwrap();
        success(&sandbox.mcpick(&["list"]));
        if era == "modern" {
            wait_for_entry(&sandbox, "h", |e| e.pages.is_some());
        }
        let mut args = vec!["get", "h/hello"];
        if refresh {
            args.push("--refresh");
        }
        // Far beyond the timeout, yet it ends: the server never does.
        let output = finished_within(sandbox.command(&args), Duration::from_secs(20));
        assert_eq!(output.status.code(), Some(1), "{era} {refresh}");
        assert!(
            stderr(&output).contains("prompts/get timed out after 1000 ms"),
            "{era} {refresh}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn a_legacy_http_server_gets_initialize_at_once_when_warm() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let server = catalog_http(&["--era", "legacy", "--log", &log.to_string_lossy()]);
    std::fs::write(sandbox.config(), http("old", &server.url)).unwrap();
    let cold = success(&sandbox.mcpick(&["list"]));
    assert!(cold.contains("old/hello"), "{cold}");
    let sent = logged(&log);
    assert_eq!(
        methods(&sent)[..2],
        ["server/discover", "initialize"],
        "{sent:?}"
    );
    wait_for_entry(&sandbox, "old", |e| e.era == Era::Legacy);
    assert_eq!(
        success(&sandbox.mcpick(&["get", "old/hello", "--format", "text"])),
        "hello {}\n"
    );
    let sent = logged(&log);
    assert_eq!(
        methods(&sent),
        ["initialize", "notifications/initialized", "prompts/get"],
        "{sent:?}"
    );
}

#[test]
fn the_catalog_holds_server_text_masked() {
    let secret = "sk-live-0123456789";
    let config = format!(
        "{}env = {{ API_KEY = \"${{MCPICK_TEST_KEY}}\" }}\n",
        catalog_stdio("leaky", &["--ttl", "600000"])
    );
    let sandbox = Sandbox::new(&config);
    let run = |args: &[&str]| {
        sandbox
            .command(args)
            .env("MCPICK_TEST_KEY", secret)
            .output()
            .unwrap()
    };
    let listed = success(&run(&["list"]));
    assert!(listed.contains("key ‹hidden›"), "{listed}");
    let entry = wait_for_entry(&sandbox, "leaky", |e| e.pages.is_some());
    let discover = entry
        .discover
        .expect("a 2026-07-28 server's discover result");
    assert_eq!(discover.value["instructions"], "Use the key ‹hidden›");
    let text = std::fs::read_to_string(&catalog_files(&sandbox)[0]).unwrap();
    assert!(!text.contains(secret), "the key is in the catalog: {text}");
    // And warm, from the catalog, it stays hidden.
    assert_eq!(success(&run(&["list"])), listed);
}

#[test]
fn a_pinned_2026_server_is_also_reached_with_one_request_when_warm() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let server = catalog_http(&["--log", &log.to_string_lossy()]);
    let config = format!(
        "{}protocol_version = \"2026-07-28\"\n",
        http("pinned", &server.url)
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let get = ["get", "pinned/hello", "--format", "text"];
    assert_eq!(success(&sandbox.mcpick(&get)), "hello {}\n");
    assert_eq!(
        methods(&logged(&log)),
        ["server/discover", "prompts/list", "prompts/get"]
    );
    assert_eq!(success(&sandbox.mcpick(&get)), "hello {}\n");
    assert_eq!(logged(&log), ["prompts/get - 2026-07-28"]);
}

/// `[servers.s]` of catalog_server.py with a fresh list (10 min), logging to `log`, its
/// prompts read from `prompts`.
fn fresh_catalog_server(log: &Path, prompts: &Path) -> String {
    catalog_stdio(
        "s",
        &[
            "--ttl",
            "600000",
            "--log",
            &log.to_string_lossy(),
            "--prompts",
            &prompts.to_string_lossy(),
        ],
    )
}

#[test]
fn a_fresh_list_is_fetched_again_before_a_prompt_or_argument_is_refused() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let prompts = sandbox.dir.path().join("prompts");
    std::fs::write(&prompts, "old\nstrict:why\n").unwrap();
    std::fs::write(sandbox.config(), fresh_catalog_server(&log, &prompts)).unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.prompts().len() == 2);
    logged(&log);
    // A prompt the fresh list lacks: listed once, then got.
    std::fs::write(&prompts, "old\nnew\nstrict:why\n").unwrap();
    let got = success(&sandbox.mcpick(&["get", "s/new", "--format", "text"]));
    assert_eq!(got, "new {}\n");
    assert_eq!(methods(&logged(&log)), ["prompts/list", "prompts/get"]);
    // An argument the fresh list refuses (`why` is required there, no longer on the server).
    std::fs::write(&prompts, "old\nnew\nstrict\n").unwrap();
    let got = success(&sandbox.mcpick(&["get", "s/strict", "--format", "text"]));
    assert_eq!(got, "strict {}\n");
    assert_eq!(methods(&logged(&log)), ["prompts/list", "prompts/get"]);
    // A prompt neither list has: refused after that one list, as cold.
    let out = sandbox.mcpick(&["get", "s/nowhere"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("server `s` has no prompt `nowhere`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(methods(&logged(&log)), ["prompts/list"]);
    // The normal path lists nothing.
    let got = success(&sandbox.mcpick(&["get", "s/old", "--format", "text"]));
    assert_eq!(got, "old {}\n");
    assert_eq!(methods(&logged(&log)), ["prompts/get"]);
}

#[test]
fn arguments_the_server_refuses_after_a_fresh_list_took_them_are_a_usage_error_as_cold() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let prompts = sandbox.dir.path().join("prompts");
    std::fs::write(&prompts, "strict\n").unwrap();
    std::fs::write(sandbox.config(), fresh_catalog_server(&log, &prompts)).unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.prompts().len() == 1);
    logged(&log);
    // The server now wants `why`; the cached list says it takes nothing.
    std::fs::write(&prompts, "strict:why\n").unwrap();
    let warm = sandbox.mcpick(&["get", "s/strict"]);
    assert_eq!(methods(&logged(&log)), ["prompts/get", "prompts/list"]);
    let text = stderr(&warm);
    assert_eq!(warm.status.code(), Some(2), "{text}");
    assert!(
        text.contains("Missing required argument: why")
            && text.contains("missing required argument `why`"),
        "{text}"
    );
    // The same mistake cold: the same exit code and local words.
    success(&sandbox.mcpick(&["cache", "clear"]));
    let cold = sandbox.mcpick(&["get", "s/strict"]);
    assert_eq!(cold.status.code(), Some(2), "{}", stderr(&cold));
    assert!(stderr(&cold).contains("missing required argument `why`"));
}

#[test]
fn a_server_that_exits_at_once_is_started_as_often_warm_as_cold() {
    let sandbox = Sandbox::new("");
    let dir = sandbox.dir.path();
    let (launches, failing) = (dir.join("launches"), dir.join("failing"));
    // Each start appends a line; once `failing` exists the server exits before answering.
    let command = format!(
        "echo start >> {}; [ -e {} ] && exit 3; exec {} {}",
        sh_quote(launches.to_string_lossy()),
        sh_quote(failing.to_string_lossy()),
        sh_quote(python3()),
        sh_quote(catalog_server().to_string_lossy()),
    );
    let config = format!(
        "[servers.s]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(command)
    );
    std::fs::write(sandbox.config(), config).unwrap();
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "s", |e| e.era == Era::Modern && e.pages.is_some());
    let count = || {
        let n = std::fs::read_to_string(&launches)
            .unwrap_or_default()
            .lines()
            .count();
        std::fs::write(&launches, "").unwrap();
        n
    };
    count();
    std::fs::write(&failing, "").unwrap();
    let warm = sandbox.mcpick(&["list"]);
    assert!(!warm.status.success());
    let warm_starts = count();
    success(&sandbox.mcpick(&["cache", "clear"]));
    let cold = sandbox.mcpick(&["list"]);
    assert!(!cold.status.success());
    assert_eq!((warm_starts, count()), (2, 2), "{}", stderr(&warm));
}

#[test]
fn a_catalog_that_cannot_be_written_is_told_once() {
    let sandbox = Sandbox::new("");
    // The catalog folder is a file: every write fails.
    let cache = sandbox.dir.path().join("xdg-cache/mcpick");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("catalog"), "not a folder").unwrap();
    let config = format!("{}{}", catalog_stdio("a", &[]), catalog_stdio("b", &[]));
    std::fs::write(sandbox.config(), config).unwrap();
    let out = sandbox.mcpick(&["list"]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(success(&out).contains("a/hello") && success(&out).contains("b/hello"));
    // Two servers, two writes: one line.
    assert_eq!(
        text.matches("cannot write the catalog cache").count(),
        1,
        "{text}"
    );
}

#[tokio::test]
async fn a_failed_re_list_is_tried_again_with_growing_waits_until_it_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let prompts_file = dir.path().join("prompts");
    std::fs::write(&prompts_file, "live\n").unwrap();
    let config = parsed(&catalog_stdio(
        "s",
        &["--prompts", &prompts_file.to_string_lossy()],
    ));
    let policy = mcpick::mcp::RestartPolicy {
        relist_retry_first: Duration::from_millis(200),
        relist_retry_max: Duration::from_millis(400),
        ..Default::default()
    };
    let (tx, mut events) = mpsc::channel(64);
    let hub = Hub::start_with(vec![config], tx, false, policy);
    let McpEvent::Ready { .. } = next_news(&mut events).await else {
        panic!("Ready first")
    };
    std::fs::write(&prompts_file, "!fail\n").unwrap();
    hub.relist("s");
    // The failure, then two retries: 200 ms, then 400 ms (the cap), each up to a tenth later.
    let mut stale_at = Vec::new();
    while stale_at.len() < 3 {
        match next_news(&mut events).await {
            McpEvent::ListStale { .. } => stale_at.push(Instant::now()),
            other => panic!("{other:?}"),
        }
    }
    let waits: Vec<Duration> = stale_at.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(waits[0] >= Duration::from_millis(200), "{waits:?}");
    assert!(waits[1] >= Duration::from_millis(400), "{waits:?}");
    assert!(
        waits.iter().all(|w| *w < Duration::from_millis(1500)),
        "{waits:?}"
    );
    // The server is fixed: the next retry brings the list, and the retries stop.
    std::fs::write(&prompts_file, "back\n").unwrap();
    let prompts = loop {
        match next_news(&mut events).await {
            McpEvent::PromptsChanged { prompts, .. } => break prompts,
            McpEvent::ListStale { .. } => {}
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(names(&prompts), ["back"]);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    while let Ok(event) = events.try_recv() {
        assert!(matches!(event, McpEvent::Log { .. }), "{event:?}");
    }
    hub.shutdown().await;
}

#[test]
fn cache_show_says_a_private_stdio_list_is_listed_again_at_every_start() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let sandbox = Sandbox::new(&catalog_stdio(
        "p",
        &[
            "--ttl",
            "600000",
            "--scope",
            "private",
            "--log",
            &log.path().to_string_lossy(),
        ],
    ));
    success(&sandbox.mcpick(&["list"]));
    wait_for_entry(&sandbox, "p", |e| e.pages.is_some());
    let shown = success(&sandbox.mcpick(&["cache", "show"]));
    assert!(
        shown.contains("listed again at every start (a private stdio list"),
        "{shown}"
    );
    assert!(!shown.contains("fresh for"), "{shown}");
    // As it says: the next start lists it again.
    logged(log.path());
    success(&sandbox.mcpick(&["list"]));
    assert!(
        methods(&logged(log.path())).contains(&"prompts/list"),
        "{:?}",
        logged(log.path())
    );
}
