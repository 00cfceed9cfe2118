//! The catalog in the menu: a second start shows the cached prompts at once and a submit
//! waits for the server; a broken catalog file is one notice; a prompt from a fresh catalog
//! the server refuses is listed again and its form updated.

use super::*;

/// `[servers.builtin]`: the bundled library (`mcpick serve --builtin`), started through
/// tests/peers/gated_start.py, so it comes up only once `gate` exists.
fn gated_builtin(gate: &Path) -> String {
    let args = [
        root()
            .join("tests/peers/gated_start.py")
            .display()
            .to_string(),
        gate.display().to_string(),
        env!("CARGO_BIN_EXE_mcpick").to_string(),
        "serve".into(),
        "--builtin".into(),
    ];
    format!(
        "[servers.builtin]\ncommand = {}\nargs = [{}]\n",
        toml_str(python3()),
        args.iter().map(toml_str).collect::<Vec<_>>().join(", ")
    )
}

/// Writes `server`'s catalog entry holding `prompts` (as `mcpick list --json` printed them)
/// where the sandboxed mcpick reads it, as a run of the hub that lists writes it: a
/// Python-SDK-like `ttlMs` of 0, so the rows are stale by the clock.
///
/// Until the hub writes the catalog itself (branch i19-mcp), this stands in for the write
/// of the first run; once it does, the first run's own file can be asserted instead.
fn write_catalog(sandbox: &Sandbox, server: &str, prompts: Vec<mcpick::model::PromptInfo>) {
    use mcpick::cache::{Era, Hints, PromptPage, Scope, ServerEntry};
    let config = mcpick::config::load(Some(&sandbox.config())).expect("the sandbox config");
    let config = config
        .servers
        .into_iter()
        .find(|s| s.name == server)
        .expect("the server in the config");
    let details = mcpick::model::ServerDetails {
        transport: "stdio".into(),
        protocol_version: "2026-07-28".into(),
        server_name: Some("mcpick-serve".into()),
        server_version: None,
        capabilities: serde_json::json!({"prompts": {"listChanged": true}, "completions": {}}),
        prompts: true,
        prompts_list_changed: true,
        completions: true,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    };
    let mut entry = ServerEntry::new(&config, None, Era::Modern, details);
    entry.pages = Some(vec![PromptPage {
        hints: Hints::now(Some(0), Some(Scope::Public)),
        prompts,
    }]);
    // The sandbox's cache dir (XDG_CACHE_HOME), under the file name mcpick gives it.
    let name = mcpick::cache::path_of(server).expect("a cache dir");
    let dir = sandbox.dir.path().join("xdg-cache/mcpick/catalog");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(name.file_name().unwrap()),
        serde_json::to_vec(&entry).unwrap(),
    )
    .unwrap();
}

#[test]
fn the_second_start_shows_the_cached_prompts_at_once_and_a_submit_waits_for_the_server() {
    let sandbox = Sandbox::new("");
    let gate = sandbox.dir.path().join("server-may-start");
    std::fs::write(sandbox.config(), gated_builtin(&gate)).unwrap();

    // The first run lists (the server starts at once) and exits.
    std::fs::write(&gate, "").unwrap();
    let listed = success(&sandbox.mcpick(&["list", "--json"]));
    let prompts: Vec<mcpick::model::PromptInfo> = serde_json::from_str(&listed).unwrap();
    assert!(
        prompts.iter().any(|p| p.name == "explain-error"),
        "{listed}"
    );
    write_catalog(&sandbox, "builtin", prompts.clone());

    // The second: the server is held back until the gate opens.
    std::fs::remove_file(&gate).unwrap();
    let mut tui = Tui::start(&sandbox, &[]);
    let count = prompts.len();
    // The first frames already hold every cached prompt, marked, while the server starts.
    let menu = tui.wait_for(&format!("builtin · {count} cached"), Duration::from_secs(5));
    assert!(
        menu.contains(&format!("{count}/{count} prompts")),
        "not every cached prompt is in the menu:\n{menu}"
    );
    let row = menu
        .lines()
        .find(|l| l.contains("/explain-error"))
        .unwrap_or_else(|| panic!("no explain-error row:\n{menu}"));
    // The status bar says the rows are cached, once; the rows are not marked one by one
    // (only a list past its freshness marks them, `stale`).
    let list_part = row.split('│').next().unwrap_or(row);
    assert!(
        !list_part.contains("cached") && !list_part.contains("stale"),
        "the row is marked: {row:?}"
    );
    assert!(!gate.exists(), "the server was let start too early");
    // No frame before it was an empty menu waiting for the server.
    let drawn = String::from_utf8_lossy(&tui.raw()).into_owned();
    assert!(
        !drawn.contains("Connecting to 1 server"),
        "a frame without the cached prompts was drawn first"
    );

    // Opened and filled before the server is up; the submit waits for it.
    open_prompt(&mut tui, "explain-error", "/builtin:explain-error");
    tui.wait_for("builtin is still starting: fill the form", STEP);
    tui.send("boom at line 3");
    tui.wait_for("│boom at line 3", STEP);
    tui.send(CTRL_S);
    tui.wait_for(
        "Waiting for builtin to start, then asking it for the messages",
        STEP,
    );

    // The server comes up: the prompt is sent and its messages arrive.
    std::fs::write(&gate, "").unwrap();
    let review = tui.wait_for("#1 user · text", SERVER_START);
    assert!(
        review.contains("Explain this error to me."),
        "not the prompt's messages:\n{review}"
    );
    tui.wait_for(&format!("● builtin {count}"), STEP);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn a_broken_catalog_file_is_ignored_with_one_notice_and_the_server_lists() {
    let sandbox = builtin_library();
    let name = mcpick::cache::path_of("builtin").expect("a cache dir");
    let dir = sandbox.dir.path().join("xdg-cache/mcpick/catalog");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(name.file_name().unwrap()),
        b"{\"format\": 1, \"serv",
    )
    .unwrap();
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("the cached catalog of builtin was ignored", STEP);
    // The live list's rows only (the long notice keeps the status bar compact meanwhile).
    let menu = tui.wait_for("/explain-error", SERVER_START);
    let badged = |line: &str| {
        let list_part = line.split('│').next().unwrap_or(line);
        list_part.contains("  /") && list_part.trim_end().ends_with("cached")
    };
    assert!(
        !menu.lines().any(badged),
        "rows from a broken file:\n{menu}"
    );
    // The whole notice, path and reason, is kept in the logs pane's notices (its tab after
    // the servers').
    tui.send(CTRL_L);
    tui.wait_for("Logs: all servers", STEP);
    tui.send(TAB);
    tui.wait_for("Logs: server builtin", STEP);
    tui.send(TAB);
    tui.wait_for("is cut short; it is rewritten when the server lists", STEP);
    tui.send_esc();
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn invalid_params_for_a_prompt_from_a_fresh_catalog_lists_again_and_updates_the_form() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("find.mcpick.md");
    let prompt = |arg: &str| {
        format!(
            "---\ndescription: Finds\narguments:\n  - name: {arg}\n    required: true\n---\nFind {{{{{arg}}}}}.\n"
        )
    };
    std::fs::write(&file, prompt("term")).unwrap();
    let folder_arg = folder.path().display().to_string();
    let sandbox = Sandbox::new(&mcpick_serve("lib", &["--ttl", "10m", &folder_arg]));
    // The first run lists and writes the catalog, fresh for 10 minutes.
    success(&sandbox.mcpick(&["list", "--json"]));
    // The file changes: the next start, within the TTL, does not list again.
    std::fs::write(&file, prompt("q")).unwrap();
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● lib 1 cached", SERVER_START);
    open_prompt(&mut tui, "find", "/lib:find");
    tui.wait_for("term *", STEP);
    tui.send("needle");
    tui.wait_for("│needle", STEP);
    tui.send(CTRL_S);
    // The server refuses (-32602), mcpick lists again, and the form takes `q`.
    let form = tui.wait_for("changed this prompt's arguments", SERVER_START);
    assert!(form.contains("q *"), "the form does not ask for q:\n{form}");
    tui.send_esc();
    tui.wait_for("● lib 1", STEP);
    let menu = tui.screen();
    assert!(
        !menu.contains("● lib 1 cached"),
        "still the catalog's rows:\n{menu}"
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}
