//! `mcpick serve` end to end: prompt files in every format served over stdio and HTTP to
//! mcpick's own client, list changes after edits on disk, the bundled library as the
//! default when no config exists, and `mcpick init`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::*;
use mcpick::mcp::{Hub, McpEvent};
use mcpick::model::PromptInfo;
use serde_json::Value;

pub(crate) fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

pub(crate) fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A folder with one prompt of each format.
fn prompt_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".github/prompts/explain.prompt.md",
        "---\ndescription: Explain a topic\nmode: ask\n---\nExplain ${input:topic:What to explain} to ${input:audience}. Keep ${selection} as is.\n",
    );
    write(
        dir.path(),
        ".claude/commands/git/fix-issue.md",
        "---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number] [priority]\n---\nFix issue #$1 with priority $2.\n",
    );
    write(
        dir.path(),
        "lib/haiku.mcpick.md",
        "---\ntitle: Haiku\ndescription: Writes a haiku\narguments:\n  - name: subject\n    required: true\n  - name: mood\n    values: [calm, stormy, playful]\n    default: calm\n---\nWrite a {{mood}} haiku about {{subject}}.\n\n--- assistant ---\nHere it is:\n",
    );
    dir
}

#[test]
fn every_format_is_listed_and_filled_over_stdio() {
    let folder = prompt_folder();
    let sandbox = Sandbox::new(&mcpick_serve("files", &[&folder.path().to_string_lossy()]));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    let by_name = |name: &str| {
        prompts
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed: {prompts}"))
            .clone()
    };
    let explain = by_name("explain");
    assert_eq!(explain["arguments"][0]["name"], "topic");
    assert_eq!(explain["arguments"][0]["description"], "What to explain");
    assert_eq!(explain["arguments"][1]["name"], "audience");
    let fix = by_name("git:fix-issue");
    assert_eq!(fix["description"], "Fix a GitHub issue");
    // The whole line first, as Claude Code takes it, then one argument per position.
    assert_eq!(fix["arguments"][0]["name"], "arguments");
    assert_eq!(fix["arguments"][1]["name"], "issue-number");
    assert_eq!(fix["arguments"][2]["name"], "priority");
    let haiku = by_name("haiku");
    assert_eq!(haiku["title"], "Haiku");

    let out = success(&sandbox.mcpick(&[
        "get",
        "files/explain",
        "topic=borrowing in Rust",
        "audience=a $5 {{budget}} crowd",
        "--format",
        "text",
    ]));
    assert_eq!(
        out,
        "Explain borrowing in Rust to a $5 {{budget}} crowd. Keep ${selection} as is.\n"
    );
    let out = success(&sandbox.mcpick(&[
        "get",
        "files/git:fix-issue",
        "issue-number=42",
        "priority=high",
        "--format",
        "text",
    ]));
    assert_eq!(out, "Fix issue #42 with priority high.\n");
    let out = success(&sandbox.mcpick(&[
        "get",
        "files/haiku",
        "subject=autumn\nleaves",
        "--format",
        "text",
    ]));
    assert_eq!(
        out,
        "user:\nWrite a calm haiku about autumn\nleaves.\n\nassistant:\nHere it is:\n"
    );
    let completion = success(&sandbox.mcpick(&["complete", "files/haiku", "mood", "st"]));
    assert_eq!(completion, "stormy\n");
}

#[test]
fn the_server_answers_missing_arguments_with_32602() {
    let folder = prompt_folder();
    let dir = folder.path().to_string_lossy().to_string();
    // The CLI checks arguments before sending; ask the server directly through the hub.
    let config = mcpick::config::parse(
        &mcpick_serve("files", &[&dir]),
        Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (tx, mut events) = tokio::sync::mpsc::channel(64);
        let hub = Hub::start(config.servers, tx, false);
        wait_ready(&mut events).await;
        let connection = hub.connection("files").unwrap();
        let error = connection
            .get_prompt("haiku", &BTreeMap::new())
            .await
            .unwrap_err();
        assert_eq!(error.code(), Some(-32602));
        assert!(error.to_string().contains("subject"), "{error}");
        let error = connection
            .get_prompt("nope", &BTreeMap::new())
            .await
            .unwrap_err();
        assert_eq!(error.code(), Some(-32602));
        assert!(
            error.to_string().contains("unknown prompt: nope"),
            "{error}"
        );
        drop(connection);
        hub.shutdown().await;
    });
}

#[test]
fn every_format_is_served_over_http() {
    let folder = prompt_folder();
    let server = mcpick_serve_http(&[&folder.path().to_string_lossy()]);
    let sandbox = Sandbox::new(&http("web", &server.url));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert_eq!(prompts.as_array().unwrap().len(), 3, "{prompts}");
    let out = success(&sandbox.mcpick(&[
        "get",
        "web/haiku",
        "subject=rain",
        "mood=stormy",
        "--format",
        "text",
    ]));
    assert!(
        out.starts_with("user:\nWrite a stormy haiku about rain."),
        "{out}"
    );
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    assert_eq!(servers[0]["protocolVersion"], "2026-07-28");
}

/// A folder with Claude Code's documented command: positions and the whole line.
fn claude_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".claude/commands/fix.md",
        "---\nargument-hint: [issue] [priority]\n---\nFix issue #$1 with priority $2. $ARGUMENTS\n",
    );
    write(
        dir.path(),
        ".claude/commands/review.md",
        "Review the staged changes.\n",
    );
    dir
}

/// `mcpick get SERVER/fix ARGS --format text` as the text of the one user message.
fn fix_text(sandbox: &Sandbox, server: &str, args: &[&str]) -> String {
    let reference = format!("{server}/fix");
    let mut all = vec!["get", reference.as_str()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "text"]);
    let out = success(&sandbox.mcpick(&all));
    out.strip_suffix('\n')
        .unwrap_or_else(|| panic!("not one user message: {out:?}"))
        .to_string()
}

/// The checks of the Claude Code rules, against whichever transport `server` uses.
fn claude_code_rules_hold(sandbox: &Sandbox, server: &str) {
    // Typing only the line fills the positions from its words (Claude Code's `/fix 123 high`).
    assert_eq!(
        fix_text(sandbox, server, &["arguments=123 high"]),
        "Fix issue #123 with priority high. 123 high"
    );
    // Quoted words stay whole; the line is kept as typed.
    assert_eq!(
        fix_text(sandbox, server, &["arguments='#12 b' \"very high\""]),
        "Fix issue ##12 b with priority very high. '#12 b' \"very high\""
    );
    // Typing the positions fills the line with them joined.
    assert_eq!(
        fix_text(sandbox, server, &["issue=123", "priority=very high"]),
        "Fix issue #123 with priority very high. 123 \"very high\""
    );
    // A position with no word stays as written, as Claude Code leaves it.
    assert_eq!(
        fix_text(sandbox, server, &["arguments=123"]),
        "Fix issue #123 with priority $2. 123"
    );
    // Only a later position: the line is `"" high`, as `/fix "" high` types it, and `$1`
    // is its empty first word (the two agree; a position with no word at all stays).
    assert_eq!(
        fix_text(sandbox, server, &["priority=high"]),
        "Fix issue # with priority high. \"\" high"
    );
    // A command without placeholders gets the line at its end, as Claude Code adds it.
    let reference = format!("{server}/review");
    let out = success(&sandbox.mcpick(&[
        "get",
        &reference,
        "arguments=src/main.rs",
        "--format",
        "text",
    ]));
    assert_eq!(
        out,
        "Review the staged changes.\n\nARGUMENTS: src/main.rs\n"
    );
}

#[test]
fn claude_code_commands_take_one_line_over_stdio() {
    let folder = claude_folder();
    let sandbox = Sandbox::new(&mcpick_serve("files", &[&folder.path().to_string_lossy()]));
    let listed = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert_eq!(listed[0]["name"], "fix", "{listed}");
    let names: Vec<&str> = listed[0]["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["arguments", "issue", "priority"], "{listed}");
    assert_eq!(
        listed[0]["arguments"][0]["description"],
        "[issue] [priority] (everything after the command; its words fill $1, $2)"
    );
    claude_code_rules_hold(&sandbox, "files");
}

#[test]
fn a_commands_folder_served_itself_is_read_as_claude_code_commands() {
    let folder = claude_folder();
    let commands = folder.path().join(".claude/commands");
    let sandbox = Sandbox::new(&mcpick_serve("files", &[&commands.to_string_lossy()]));
    assert_eq!(
        fix_text(&sandbox, "files", &["arguments=123 high"]),
        "Fix issue #123 with priority high. 123 high"
    );
}

#[test]
fn claude_code_commands_take_one_line_over_http() {
    let folder = claude_folder();
    let server = mcpick_serve_http(&[&folder.path().to_string_lossy()]);
    let sandbox = Sandbox::new(&http("web", &server.url));
    claude_code_rules_hold(&sandbox, "web");
}

#[test]
fn a_non_loopback_address_is_refused() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["serve", "--http", "0.0.0.0:0", "--builtin"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--allow-remote"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn broken_files_are_reported_and_the_rest_served() {
    let folder = prompt_folder();
    write(
        folder.path(),
        "bad.mcpick.md",
        "---\nname: bad\n---\nuses {{nothing}}\n",
    );
    let server = mcpick_serve_http(&[&folder.path().to_string_lossy()]);
    let sandbox = Sandbox::new(&http("web", &server.url));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert_eq!(prompts.as_array().unwrap().len(), 3);
    let logged = server.stderr.lock().unwrap().join("\n");
    assert!(
        logged.contains("bad.mcpick.md:4: `{{nothing}}` is not a declared argument"),
        "{logged}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_clients_get_load_problems_as_log_messages() {
    let folder = prompt_folder();
    write(
        folder.path(),
        "bad.mcpick.md",
        "---\nname: bad\n---\nuses {{nothing}}\n",
    );
    let folder_path = folder.path().to_string_lossy();
    let config = behind_legacy_gate(
        "files",
        &[env!("CARGO_BIN_EXE_mcpick"), "serve", &folder_path],
    );
    let config = mcpick::config::parse(&config, Path::new("t.toml"), &|_| None).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, true);
    let line = next_warning(&mut events).await;
    assert!(line.text.contains("bad.mcpick.md:4"), "{line:?}");
    // A file broken while the client is connected is told too.
    write(
        folder.path(),
        "worse.mcpick.md",
        "---\nname: worse\n---\nuses {{missing}}\n",
    );
    let line = next_warning(&mut events).await;
    assert!(line.text.contains("worse.mcpick.md:4"), "{line:?}");
    hub.shutdown().await;
}

/// [`prompt_folder`] with a file that cannot be served, and the problem as listed.
fn folder_with_a_broken_file() -> (tempfile::TempDir, Value) {
    let folder = prompt_folder();
    write(
        folder.path(),
        "bad.mcpick.md",
        "---\nname: bad\n---\nuses {{nothing}}\n",
    );
    let problem = serde_json::json!({
        "file": folder.path().join("bad.mcpick.md").to_string_lossy(),
        "line": 4,
        "error": "`{{nothing}}` is not a declared argument (declare it under `arguments`, or write `\\{{` for a literal `{{`) (file skipped)",
    });
    (folder, problem)
}

/// `mcpick servers` and `mcpick servers --json` both show `problem` for the one server.
fn servers_show_the_problem(sandbox: &Sandbox, problem: &Value) -> Value {
    let text = success(&sandbox.mcpick(&["servers"]));
    let line = format!(
        "  problems:     1 in its prompt files\n    {}:4: {}\n",
        problem["file"].as_str().unwrap(),
        problem["error"].as_str().unwrap()
    );
    assert!(text.contains(&line), "{line:?} not in:\n{text}");
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    assert_eq!(servers[0]["state"], "ready", "{servers}");
    assert_eq!(servers[0]["promptCount"], 3, "{servers}");
    assert_eq!(servers[0]["servedProblems"], serde_json::json!([problem]));
    servers
}

#[test]
fn mcpick_servers_shows_the_files_a_folder_served_over_stdio_skips() {
    let (folder, problem) = folder_with_a_broken_file();
    let dir = tempfile::tempdir().unwrap();
    let wire = dir.path().join("answers.jsonl");
    // What the server answers is kept, to see the `_meta` as sent.
    let config = format!(
        "[servers.files]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(format!(
            "'{}' serve '{}' | tee -a '{}'",
            env!("CARGO_BIN_EXE_mcpick"),
            folder.path().display(),
            wire.display()
        ))
    );
    let sandbox = Sandbox::new(&config);
    let servers = servers_show_the_problem(&sandbox, &problem);
    // A 2026-07-28 client, which gets no log messages, still sees it.
    assert_eq!(servers[0]["protocolVersion"], "2026-07-28");
    let answers = std::fs::read_to_string(&wire).unwrap();
    let list = answers
        .lines()
        .map(json)
        .find(|m| m["result"].get("prompts").is_some())
        .unwrap_or_else(|| panic!("no prompts/list answer in:\n{answers}"));
    assert_eq!(
        list["result"]["_meta"],
        serde_json::json!({ "io.github.mcpick/problems": [problem] }),
        "{list}"
    );
}

#[test]
fn mcpick_servers_shows_the_files_a_folder_served_over_http_skips() {
    let (folder, problem) = folder_with_a_broken_file();
    let server = mcpick_serve_http(&[&folder.path().to_string_lossy()]);
    let sandbox = Sandbox::new(&http("web", &server.url));
    let servers = servers_show_the_problem(&sandbox, &problem);
    assert_eq!(servers[0]["protocolVersion"], "2026-07-28");
}

#[test]
fn mcpick_servers_shows_the_files_a_folder_served_to_a_legacy_client_skips() {
    let (folder, problem) = folder_with_a_broken_file();
    let folder_path = folder.path().to_string_lossy();
    let sandbox = Sandbox::new(&behind_legacy_gate(
        "files",
        &[env!("CARGO_BIN_EXE_mcpick"), "serve", &folder_path],
    ));
    let servers = servers_show_the_problem(&sandbox, &problem);
    assert_ne!(servers[0]["protocolVersion"], "2026-07-28");
}

/// Over HTTP, where there is no stderr, the problems a 2026-07-28 list reports are logged
/// as warnings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_clients_log_the_load_problems_the_list_reports() {
    let (folder, _) = folder_with_a_broken_file();
    let server = mcpick_serve_http(&[&folder.path().to_string_lossy()]);
    let config =
        mcpick::config::parse(&http("web", &server.url), Path::new("t.toml"), &|_| None).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, true);
    let line = next_warning(&mut events).await;
    assert!(
        line.text.ends_with("bad.mcpick.md:4: `{{nothing}}` is not a declared argument (declare it under `arguments`, or write `\\{{` for a literal `{{`) (file skipped)"),
        "{line:?}"
    );
    // A file broken while the client is connected is told with the next list.
    write(
        folder.path(),
        "worse.mcpick.md",
        "---\nname: worse\n---\nuses {{missing}}\n",
    );
    let line = next_warning(&mut events).await;
    assert!(line.text.contains("worse.mcpick.md:4"), "{line:?}");
    hub.shutdown().await;
}

/// Over stdio each problem is in the server's log once, as the line `mcpick serve` writes
/// on stderr (no `warning` line from the list's `_meta` beside it), and the problems the
/// client holds follow the files while it is connected: a file that breaks or is fixed
/// changes them, before the list change of that list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_each_problem_is_logged_once_and_the_problems_follow_the_files() {
    let (folder, _) = folder_with_a_broken_file();
    let folder_path = folder.path().to_string_lossy();
    let config = mcpick_serve("files", &[&folder_path]);
    let config = mcpick::config::parse(&config, Path::new("t.toml"), &|_| None).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(256);
    let hub = Hub::start(config.servers, tx, true);
    let mut seen: Vec<McpEvent> = Vec::new();
    let mut next = async |wanted: &dyn Fn(&McpEvent) -> bool, seen: &mut Vec<McpEvent>| {
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let event = events.recv().await.expect("hub stopped");
                if let McpEvent::Failed { error, .. } = &event {
                    panic!("{error}");
                }
                let done = wanted(&event);
                seen.push(event);
                if done {
                    return;
                }
            }
        })
        .await
        .expect("the event did not arrive")
    };
    let files_of = |problems: &[mcpick::model::ServedProblem]| -> Vec<String> {
        problems
            .iter()
            .map(|p| {
                Path::new(&p.file)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    next(&|e| matches!(e, McpEvent::Ready { .. }), &mut seen).await;
    let McpEvent::Ready { details, .. } = seen.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(files_of(&details.served_problems), ["bad.mcpick.md"]);

    write(
        folder.path(),
        "worse.mcpick.md",
        "---\nname: worse\n---\nuses {{missing}}\n",
    );
    let changed = |files: &'static [&'static str]| {
        move |e: &McpEvent| {
            matches!(e, McpEvent::ServedProblemsChanged { problems, .. }
                if files_of(problems) == files)
        }
    };
    next(&changed(&["bad.mcpick.md", "worse.mcpick.md"]), &mut seen).await;
    // The list that brought them follows.
    next(&|e| matches!(e, McpEvent::PromptsChanged { .. }), &mut seen).await;

    // Fixed: the problems shrink to the one left.
    write(
        folder.path(),
        "bad.mcpick.md",
        "---\nname: bad\n---\nfine\n",
    );
    next(&changed(&["worse.mcpick.md"]), &mut seen).await;
    next(
        &|e| matches!(e, McpEvent::PromptsChanged { prompts, .. } if prompts.iter().any(|p| p.name == "bad")),
        &mut seen,
    )
    .await;
    // A list change that keeps the problems sends no change of them.
    write(
        folder.path(),
        "bad.mcpick.md",
        "---\nname: bad\ndescription: Now described\n---\nfine\n",
    );
    next(
        &|e| matches!(e, McpEvent::PromptsChanged { prompts, .. } if prompts.iter().any(|p| p.description.as_deref() == Some("Now described"))),
        &mut seen,
    )
    .await;
    // The stderr lines have had their time to arrive.
    tokio::time::sleep(Duration::from_millis(500)).await;
    while let Ok(event) = events.try_recv() {
        seen.push(event);
    }
    hub.shutdown().await;

    let lines: Vec<&mcpick::model::LogLine> = seen
        .iter()
        .filter_map(|e| match e {
            McpEvent::Log { line, .. } => Some(line),
            _ => None,
        })
        .collect();
    for file in ["bad.mcpick.md:4", "worse.mcpick.md:4"] {
        let about: Vec<(&str, &str)> = lines
            .iter()
            .filter(|l| l.text.contains(file))
            .map(|l| (l.source.as_str(), l.text.as_str()))
            .collect();
        assert_eq!(about.len(), 1, "{file} logged other than once: {about:?}");
        assert_eq!(about[0].0, "stderr", "{about:?}");
    }
    // One change of the problems per change of the files' problems, none more.
    let changes = seen
        .iter()
        .filter(|e| matches!(e, McpEvent::ServedProblemsChanged { .. }))
        .count();
    assert_eq!(changes, 2, "{seen:?}");
}

async fn next_warning(
    events: &mut tokio::sync::mpsc::Receiver<McpEvent>,
) -> mcpick::model::LogLine {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match events.recv().await.expect("hub stopped") {
                McpEvent::Log { line, .. } if line.source == "warning" => return line,
                McpEvent::Failed { error, .. } => panic!("{error}"),
                _ => {}
            }
        }
    })
    .await
    .expect("no warning logged")
}

async fn wait_ready(events: &mut tokio::sync::mpsc::Receiver<McpEvent>) -> Vec<PromptInfo> {
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match events.recv().await.expect("hub stopped") {
                McpEvent::Ready { prompts, .. } => return prompts,
                McpEvent::Failed { error, stderr, .. } => panic!("{error}\n{}", stderr.join("\n")),
                _ => {}
            }
        }
    })
    .await
    .expect("server not ready in time")
}

async fn wait_change(
    events: &mut tokio::sync::mpsc::Receiver<McpEvent>,
    wanted: impl Fn(&[PromptInfo]) -> bool,
) -> Duration {
    let start = Instant::now();
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match events.recv().await.expect("hub stopped") {
                McpEvent::PromptsChanged { prompts, .. } if wanted(&prompts) => return,
                McpEvent::Failed { error, .. } => panic!("{error}"),
                _ => {}
            }
        }
    })
    .await
    .expect("the list change did not arrive");
    start.elapsed()
}

/// Connects to `config_text`, then edits, adds and removes prompt files in `folder`, and
/// checks each change reaches the client's catalog.
async fn edits_reach_the_client(config_text: &str, folder: &Path) {
    let config = mcpick::config::parse(config_text, Path::new("t.toml"), &|_| None).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, false);
    let prompts = wait_ready(&mut events).await;
    assert_eq!(prompts.len(), 3);

    let haiku = folder.join("lib/haiku.mcpick.md");
    let text = std::fs::read_to_string(&haiku).unwrap();
    std::fs::write(
        &haiku,
        text.replace("Writes a haiku", "Writes a short poem"),
    )
    .unwrap();
    let took = wait_change(&mut events, |p| {
        p.iter()
            .any(|p| p.description.as_deref() == Some("Writes a short poem"))
    })
    .await;
    println!("edit reached the client after {took:?}");

    write(folder, "new.prompt.md", "---\ndescription: New\n---\nhello");
    wait_change(&mut events, |p| p.iter().any(|p| p.name == "new")).await;

    std::fs::remove_file(folder.join(".github/prompts/explain.prompt.md")).unwrap();
    wait_change(&mut events, |p| !p.iter().any(|p| p.name == "explain")).await;
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_on_disk_reach_a_2026_stdio_client() {
    let folder = prompt_folder();
    let config = mcpick_serve("files", &[&folder.path().to_string_lossy()]);
    edits_reach_the_client(&config, folder.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_on_disk_reach_a_legacy_stdio_client() {
    let folder = prompt_folder();
    let folder_path = folder.path().to_string_lossy();
    let config = behind_legacy_gate(
        "files",
        &[env!("CARGO_BIN_EXE_mcpick"), "serve", &folder_path],
    );
    edits_reach_the_client(&config, folder.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_on_disk_reach_an_http_client() {
    let folder = prompt_folder();
    let server = mcpick_serve_http(&[&folder.path().to_string_lossy()]);
    edits_reach_the_client(&http("web", &server.url), folder.path()).await;
}

#[test]
fn with_no_config_the_bundled_library_is_served() {
    let sandbox = Sandbox::new("");
    let bare = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .env_remove("MCPICK_CONFIG")
            .env("XDG_CONFIG_HOME", sandbox.dir.path().join("no-config-here"))
            .env("XDG_STATE_HOME", sandbox.dir.path().join("state"))
            .env("XDG_CACHE_HOME", sandbox.dir.path().join("cache"))
            .output()
            .unwrap()
    };
    let output = bare(&["list", "--json"]);
    let prompts = json(&success(&output));
    assert!(prompts.as_array().unwrap().len() >= 8);
    assert!(
        prompts
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["server"] == "builtin")
    );
    let note = stderr(&output);
    assert!(note.contains("no config file at"), "{note}");
    assert!(note.contains("mcpick init"), "{note}");
    assert_eq!(note.lines().count(), 1, "said once: {note}");

    let out = success(&bare(&[
        "get",
        "builtin/translate",
        "text=Guten Morgen",
        "to=English",
        "--format",
        "text",
    ]));
    assert!(out.contains("into English in a neutral tone"), "{out}");
    assert!(out.ends_with("Guten Morgen\n"), "{out}");
    let out = success(&bare(&[
        "get",
        "builtin/review-diff",
        "diff=+ fn main() {}",
        "--format",
        "mcp-json",
    ]));
    assert!(
        out.contains("mcpick://builtin/review-checklist.md"),
        "{out}"
    );
}

#[test]
fn init_writes_a_starter_config_once() {
    let sandbox = Sandbox::new("");
    let xdg = sandbox.dir.path().join("fresh");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .env_remove("MCPICK_CONFIG")
            .env("XDG_CONFIG_HOME", &xdg)
            .env("XDG_STATE_HOME", sandbox.dir.path().join("state"))
            .env("XDG_CACHE_HOME", sandbox.dir.path().join("cache"))
            .output()
            .unwrap()
    };
    let output = run(&["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = xdg.join("mcpick/config.toml");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("[servers.builtin]"), "{text}");
    // It may come to hold secrets: the owner's alone (it was 0644).
    let mode = |path: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&written), 0o600);
    // The starter config works as it is.
    let output = run(&["list"]);
    assert!(success(&output).contains("builtin/review-diff"));
    // The log it wrote is the owner's alone too: folder 0700, files 0600.
    let logs = sandbox.dir.path().join("state/mcpick");
    assert_eq!(mode(&logs), 0o700);
    let files: Vec<_> = std::fs::read_dir(&logs)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .collect();
    assert!(!files.is_empty(), "no log file in {}", logs.display());
    for file in files {
        assert_eq!(mode(&file.path()), 0o600, "{}", file.path().display());
    }
    assert!(
        !stderr(&output).contains("no config file"),
        "{}",
        stderr(&output)
    );
    // A second init leaves the file alone.
    std::fs::write(&written, "# mine\n").unwrap();
    let output = run(&["init"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("not overwriting"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "# mine\n");
}

#[test]
fn bare_names_are_found_on_whichever_server_has_them() {
    let folder = prompt_folder();
    let config = format!(
        "{}\n{}",
        mcpick_serve("lib", &["--builtin"]),
        mcpick_serve("files", &[&folder.path().to_string_lossy()])
    );
    let sandbox = Sandbox::new(&config);
    // A name holding `:` is a prompt name when no server is called `git`.
    let out =
        success(&sandbox.mcpick(&["get", "git:fix-issue", "issue-number=7", "--format", "text"]));
    // The position left without a value stays as written, as Claude Code leaves it.
    assert_eq!(out, "Fix issue #7 with priority $2.\n");
    let out = success(&sandbox.mcpick(&[
        "get",
        "/translate",
        "text=Hola",
        "to=English",
        "--format",
        "text",
    ]));
    assert!(out.contains("into English"), "{out}");
    let output = sandbox.mcpick(&["get", "translat"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("Did you mean: lib/translate?"),
        "{}",
        stderr(&output)
    );

    let twice = format!("{config}\n{}", mcpick_serve("lib2", &["--builtin"]));
    let sandbox = Sandbox::new(&twice);
    let output = sandbox.mcpick(&["get", "translate", "text=x", "to=y"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("several servers; say which: lib/translate, lib2/translate"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_log_file_does_not_hold_back_reloads_and_embedded_edits_are_served() {
    let folder = prompt_folder();
    write(folder.path(), "lib/notes.txt", "first notes");
    write(
        folder.path(),
        "lib/with-notes.mcpick.md",
        "---\ndescription: Has notes\n---\n--- user: notes.txt ---\n",
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let log_path = folder.path().join("build.log");
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut log = std::fs::File::create(log_path).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                writeln!(log, "building…").unwrap();
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let config = mcpick_serve("files", &[&folder.path().to_string_lossy()]);
    let config = mcpick::config::parse(&config, Path::new("t.toml"), &|_| None).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, false);
    wait_ready(&mut events).await;

    let haiku = folder.path().join("lib/haiku.mcpick.md");
    let text = std::fs::read_to_string(&haiku).unwrap();
    std::fs::write(&haiku, text.replace("Writes a haiku", "Writes a poem")).unwrap();
    let took = wait_change(&mut events, |p| {
        p.iter()
            .any(|p| p.description.as_deref() == Some("Writes a poem"))
    })
    .await;
    assert!(took < Duration::from_secs(10), "{took:?}");

    // An embedded file's new text is served without any list change.
    write(folder.path(), "lib/notes.txt", "second notes");
    let connection = hub.connection("files").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let filled = connection
            .get_prompt("with-notes", &BTreeMap::new())
            .await
            .unwrap();
        let text = mcpick::export::render(&filled, mcpick::export::Format::Text);
        if text.contains("second notes") {
            break;
        }
        assert!(Instant::now() < deadline, "still served: {text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(connection);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().unwrap();
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_folder_named_target_is_still_watched() {
    let outer = tempfile::tempdir().unwrap();
    let folder = outer.path().join("target");
    write(&folder, "a.prompt.md", "---\ndescription: one\n---\nx");
    let config = mcpick_serve("files", &[&folder.to_string_lossy()]);
    let config = mcpick::config::parse(&config, Path::new("t.toml"), &|_| None).unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, false);
    assert_eq!(wait_ready(&mut events).await.len(), 1);
    write(&folder, "a.prompt.md", "---\ndescription: two\n---\nx");
    wait_change(&mut events, |p| p[0].description.as_deref() == Some("two")).await;
    hub.shutdown().await;
}

/// POSTs an `initialize` to `url` with extra headers and returns the HTTP status.
fn post_status(url: &str, extra_headers: &[(&str, &str)]) -> u16 {
    use std::io::{Read, Write};
    let authority = url.trim_start_matches("http://").split('/').next().unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut headers = vec![
        ("Host", authority),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    for (name, value) in extra_headers {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name, value));
    }
    let mut request = "POST /mcp HTTP/1.1\r\nConnection: close\r\n".to_string();
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = [0u8; 12];
    stream.read_exact(&mut response).unwrap();
    String::from_utf8_lossy(&response[9..12]).parse().unwrap()
}

#[test]
fn http_on_loopback_refuses_foreign_hosts_and_origins() {
    let server = mcpick_serve_http(&["--builtin"]);
    assert_eq!(post_status(&server.url, &[]), 200);
    assert_eq!(
        post_status(&server.url, &[("Origin", "http://127.0.0.1:3000")]),
        200
    );
    assert_eq!(
        post_status(&server.url, &[("Origin", "http://evil.example.com")]),
        403
    );
    assert_eq!(
        post_status(&server.url, &[("Host", "evil.example.com")]),
        403
    );
}

#[test]
fn serve_exits_when_its_client_goes_even_with_a_subscription_open() {
    use std::io::{BufRead, Write};
    let mut child = serve_builtin_piped();
    let listen = r#"{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"promptsListChanged":true}}}"#;
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{listen}").unwrap();
    let mut line = String::new();
    // Held open, as a host does: it closes stdin and waits.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    assert!(
        line.contains("notifications/subscriptions/acknowledged"),
        "{line}"
    );
    let closed = Instant::now();
    drop(stdin);
    let status = child.wait().unwrap();
    drop(stdout);
    assert!(status.success(), "{status}");
    // Not a timing budget: the SDK's own wait for busy handlers is 5 s.
    assert!(
        closed.elapsed() < Duration::from_secs(3),
        "{:?}",
        closed.elapsed()
    );
}

/// A 2026-07-28 request line for `mcpick serve` over stdio.
pub(crate) fn modern_request(id: u64, method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
        .to_string()
}

#[test]
fn a_listen_still_being_acknowledged_ends_with_its_result_when_stdin_closes() {
    use std::io::{BufRead, Write};
    // Stdin closing while the SDK still sends the listen's acknowledgement left the
    // handler waiting for good (the server quit by its own last-resort timer, the final
    // result unsent). Closing right after the request hits that nearly every time; closing
    // after a pipelined prompts/list, about a third of the time.
    let listen = modern_request(
        1,
        "subscriptions/listen",
        serde_json::json!({ "notifications": { "promptsListChanged": true } }),
    );
    let list = modern_request(2, "prompts/list", serde_json::json!({}));
    for round in 0..30 {
        let pipelined = round % 2 == 1;
        let mut child = serve_builtin_piped();
        let mut stdin = child.stdin.take().unwrap();
        let (lines_tx, lines) = std::sync::mpsc::channel();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = lines_tx.send(line);
            }
        });
        writeln!(stdin, "{listen}").unwrap();
        if pipelined {
            writeln!(stdin, "{list}").unwrap();
            loop {
                let line = lines
                    .recv_timeout(Duration::from_secs(10))
                    .expect("no prompts/list answer");
                if json(&line)["id"] == 2 {
                    break;
                }
            }
        }
        drop(stdin);
        // Everything else it writes, until it exits and stdout closes.
        let mut rest = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => rest.push(json(&line)),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    panic!("round {round}: still running 5 s after stdin closed");
                }
            }
        }
        let status = child.wait().unwrap();
        assert!(status.success(), "round {round}: {status}");
        let end = rest.iter().find(|m| m["id"] == 1).unwrap_or_else(|| {
            panic!(
                "round {round} (pipelined: {pipelined}): no final result for the listen: {rest:?}"
            )
        });
        assert_eq!(end["result"]["resultType"], "complete", "{end}");
        assert_eq!(
            end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 1,
            "{end}"
        );
    }
}

/// `mcpick serve ARGS` behind `sh -c 'tee -a TRAFFIC | ...'`: what the client sends is kept.
fn recorded_serve(name: &str, traffic: &Path, args: &[&str]) -> String {
    format!(
        "[servers.{name}]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(format!(
            "tee -a '{}' | '{}' serve {}",
            traffic.display(),
            env!("CARGO_BIN_EXE_mcpick"),
            args.join(" ")
        ))
    )
}

/// The methods of the requests in a recorded stream, in order.
fn methods(traffic: &Path) -> Vec<String> {
    std::fs::read_to_string(traffic)
        .unwrap_or_default()
        .lines()
        .map(json)
        .filter(|m| m.get("id").is_some())
        .filter_map(|m| m["method"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn one_shot_commands_open_no_list_change_stream() {
    let sandbox = Sandbox::new("");
    let traffic = sandbox.dir.path().join("traffic.jsonl");
    std::fs::write(
        sandbox.config(),
        recorded_serve("lib", &traffic, &["--builtin"]),
    )
    .unwrap();
    let listed = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert!(!listed.as_array().unwrap().is_empty(), "{listed}");
    success(&sandbox.mcpick(&["servers", "--json"]));
    let sent = methods(&traffic);
    assert!(sent.contains(&"prompts/list".to_string()), "{sent:?}");
    assert!(
        !sent.contains(&"subscriptions/listen".to_string()),
        "a one-shot command subscribed to list changes: {sent:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hub_subscribes_to_list_changes_before_the_first_list() {
    let dir = tempfile::tempdir().unwrap();
    let traffic = dir.path().join("traffic.jsonl");
    let config = mcpick::config::parse(
        &recorded_serve("lib", &traffic, &["--builtin"]),
        Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let (tx, mut events) = tokio::sync::mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, false);
    wait_ready(&mut events).await;
    hub.shutdown().await;
    let sent = methods(&traffic);
    let at = |method: &str| {
        sent.iter()
            .position(|m| m == method)
            .unwrap_or_else(|| panic!("no {method}: {sent:?}"))
    };
    assert!(at("subscriptions/listen") < at("prompts/list"), "{sent:?}");
}
/// `mcpick serve ARGS` over stdio, its stdout lines sent to a channel as JSON.
fn serve_lines(args: &[&str]) -> (std::process::Child, std::sync::mpsc::Receiver<Value>) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .arg("serve")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start mcpick serve");
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(json(&line));
        }
    });
    (child, rx)
}

/// The messages up to and including the first whose `method` is `method` (10 s at most).
fn until_method(lines: &std::sync::mpsc::Receiver<Value>, method: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let message = lines
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no {method}; got {seen:?}"));
        let found = message["method"] == method;
        seen.push(message);
        if found {
            return seen;
        }
    }
}

fn methods_of(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect()
}

#[test]
fn an_edited_embedded_file_is_announced_as_a_resource_list_change_to_who_asked() {
    use std::io::Write;
    let folder = folder_embedding_a_file();
    let folder_path = folder.path().to_string_lossy().into_owned();
    let listen = |filter: Value| {
        modern_request(
            1,
            "subscriptions/listen",
            serde_json::json!({ "notifications": filter }),
        )
    };

    // A 2026-07-28 client that asked for resource notices gets one, on its subscription.
    let (mut modern, lines) = serve_lines(&[&folder_path]);
    let mut stdin = modern.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        listen(serde_json::json!({ "resourcesListChanged": true }))
    )
    .unwrap();
    let ack = until_method(&lines, "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack.last().unwrap()["params"]["notifications"],
        serde_json::json!({ "resourcesListChanged": true })
    );
    write(folder.path(), "checklist.md", "- [ ] tests\n- [ ] docs\n");
    let told = until_method(&lines, "notifications/resources/list_changed");
    assert_eq!(
        told.last().unwrap()["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    drop(stdin);
    let _ = modern.wait();

    // One that asked only for prompt notices is not told of it, only of a prompt change.
    let (mut prompts_only, lines) = serve_lines(&[&folder_path]);
    let mut stdin = prompts_only.stdin.take().unwrap();
    writeln!(
        stdin,
        "{}",
        listen(serde_json::json!({ "promptsListChanged": true }))
    )
    .unwrap();
    until_method(&lines, "notifications/subscriptions/acknowledged");
    write(folder.path(), "checklist.md", "- [ ] nothing\n");
    std::thread::sleep(Duration::from_millis(600));
    write(
        folder.path(),
        "new.prompt.md",
        "---\ndescription: New\n---\nhello",
    );
    let told = until_method(&lines, "notifications/prompts/list_changed");
    assert_eq!(
        methods_of(&told),
        ["notifications/prompts/list_changed"],
        "{told:?}"
    );
    drop(stdin);
    let _ = prompts_only.wait();

    // A legacy client gets it on the session, as its era does.
    let (mut legacy, lines) = serve_lines(&[&folder_path]);
    let mut stdin = legacy.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    let answer = lines.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(
        answer["result"]["capabilities"]["resources"],
        serde_json::json!({ "listChanged": true })
    );
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    // The session's watchers start once the client says it is initialized.
    std::thread::sleep(Duration::from_millis(300));
    write(folder.path(), "checklist.md", "- [ ] legacy\n");
    let told = until_method(&lines, "notifications/resources/list_changed");
    assert_eq!(
        methods_of(&told),
        ["notifications/resources/list_changed"],
        "{told:?}"
    );
    drop(stdin);
    let _ = legacy.wait();
}

/// `mcpick serve --builtin` with its stdin and stdout piped to the test (stderr dropped).
pub(crate) fn serve_builtin_piped() -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["serve", "--builtin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start mcpick serve --builtin")
}

/// A folder with a prompt that embeds a file, for the resources it offers.
pub(crate) fn folder_embedding_a_file() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "review.mcpick.md",
        "---\nname: review\n---\nReview this against the checklist.\n\n--- user: checklist.md ---\n",
    );
    write(dir.path(), "checklist.md", "- [ ] tests\n");
    dir
}
