//! Lists past the easy path, against tests/peers/list_edges.py: repeated and null
//! cursors, a malformed prompt left out by name (in `list`, the menu's status bar and logs),
//! and `complete` when the server holds back values or is given a context that is no
//! argument.

use crate::common::*;

/// `[servers.NAME]` for tests/peers/list_edges.py in `mode`, its requests recorded in
/// `traffic`.
pub(crate) fn list_edges(name: &str, mode: &str, traffic: &std::path::Path, extra: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, {}]\nenv = {{ TRAFFIC = {} }}\n{extra}\n",
        toml_str(root().join("tests/peers/list_edges.py").to_string_lossy()),
        toml_str(mode),
        toml_str(traffic.to_string_lossy()),
    )
}

/// A sandbox whose one server is `list_edges.py` in `mode` (with `extra` config lines), and
/// the file its traffic is recorded in.
pub(crate) fn list_edges_sandbox(
    name: &str,
    mode: &str,
    extra: &str,
) -> (Sandbox, std::path::PathBuf) {
    let sandbox = Sandbox::new("");
    let traffic = sandbox.dir.path().join("traffic.jsonl");
    std::fs::write(sandbox.config(), list_edges(name, mode, &traffic, extra)).unwrap();
    (sandbox, traffic)
}

/// The `prompts/list` requests in a recorded traffic file, as JSON.
fn list_requests(traffic: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(traffic)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["method"] == "prompts/list")
        .collect()
}

#[test]
fn a_repeated_cursor_keeps_the_pages_fetched_and_says_so() {
    let (sandbox, traffic) = list_edges_sandbox("loop", "repeat-cursor", "");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(success(&output), "loop/first\nloop/second\nloop/third\n");
    assert_eq!(
        stderr(&output),
        "mcpick: server `loop`: prompts/list repeated the cursor \"p2\" (page 2): kept the 3 \
         prompts of its first 2 pages and stopped there rather than loop\n"
    );
    // Page 1, then "p2" once: the repeat is not followed.
    let cursors: Vec<serde_json::Value> = list_requests(&traffic)
        .iter()
        .map(|r| r["params"]["cursor"].clone())
        .collect();
    assert_eq!(cursors, [serde_json::Value::Null, "p2".into()]);
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    assert_eq!(servers[0]["state"], "ready");
    assert_eq!(servers[0]["promptCount"], 3);
    let warnings = servers[0]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .contains("repeated the cursor"),
        "{warnings:?}"
    );
}

#[test]
fn a_null_next_cursor_ends_the_list() {
    let (sandbox, traffic) = list_edges_sandbox("ends", "null-cursor", "");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(success(&output), "ends/first\nends/second\n");
    assert_eq!(stderr(&output), "");
    assert_eq!(list_requests(&traffic).len(), 1);
}

#[test]
fn a_malformed_prompt_is_left_out_by_name_and_the_rest_of_its_page_kept() {
    let (sandbox, _) = list_edges_sandbox("odd", "bad-prompt", "");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(success(&output), "odd/good  — a good one\nodd/fine\n");
    let err = stderr(&output);
    assert!(
        err.contains(
            "mcpick: server `odd`: left out the prompt number 2 of page 1: the server \
             described it wrongly (missing field `name`)\n"
        ),
        "{err}"
    );
    assert!(
        err.contains("mcpick: server `odd`: left out the prompt `broken`: the server described it wrongly (invalid type: integer `5`"),
        "{err}"
    );
    let text = success(&sandbox.mcpick(&["servers"]));
    assert!(text.contains("  prompts:      2\n"), "{text}");
    assert!(
        text.contains("  warning:      left out the prompt `broken`: "),
        "{text}"
    );
    assert!(
        text.contains("  warning:      left out the prompt number 2 of page 1: "),
        "{text}"
    );
}

#[test]
fn a_malformed_prompt_is_named_in_the_menus_status_bar_and_logs() {
    use crate::common::pty::*;
    let (sandbox, _) = list_edges_sandbox("odd", "bad-prompt", "");
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("odd: left out the prompt", SERVER_START);
    tui.send(CTRL_L);
    let screen = tui.wait_for("left out the prompt `broken`", STEP);
    assert!(
        screen.contains("left out the prompt number 2 of page 1"),
        "{screen}"
    );
    tui.send_esc();
    tui.wait_gone("Logs: all servers", STEP);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn complete_on_a_terminal_says_how_many_values_the_server_left_out() {
    use crate::common::pty::*;
    let (sandbox, _) = list_edges_sandbox("many", "many-completions", "");
    // In a pipe (a script): the values only.
    let output = sandbox.mcpick(&["complete", "many/pick", "city", "a"]);
    let values = success(&output);
    assert_eq!(values.lines().count(), 100);
    assert_eq!(stderr(&output), "");
    let json: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "complete",
        "many/pick",
        "city",
        "a",
        "--json",
    ])))
    .unwrap();
    assert_eq!(
        (json["total"].clone(), json["hasMore"].clone()),
        (250.into(), true.into())
    );
    // On a terminal: and a note on stderr.
    let mut tui = Tui::start(&sandbox, &["complete", "many/pick", "city", "a"]);
    assert_eq!(tui.wait_exit(SERVER_START), 0);
    let screen = tui.screen();
    assert!(screen.contains("a099"), "{screen}");
    assert!(
        screen.contains("mcpick: 100 of 250; type more to narrow"),
        "{screen}"
    );
}

#[test]
fn a_context_name_that_is_no_argument_is_a_usage_error() {
    let (sandbox, traffic) = list_edges_sandbox("many", "many-completions", "");
    let output = sandbox.mcpick(&[
        "complete",
        "many/pick",
        "city",
        "a",
        "--context",
        "countyr=France",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.starts_with(
            "mcpick: --context countyr=…: prompt `pick` has no argument `countyr` (did you mean `country`?)"
        ),
        "{err}"
    );
    // `complete`'s own usage, not `get`'s.
    let usage = "usage: mcpick complete many/pick ARGUMENT [PREFIX] [--context NAME=VALUE ...]\n\n\
                 ARGUMENT and each --context NAME is one of: city, country\n";
    assert!(err.ends_with(usage), "{err}");
    assert!(!err.contains("mcpick get"), "{err}");
    // A misspelt ARGUMENT: the same usage.
    let output = sandbox.mcpick(&["complete", "many/pick", "cty", "a"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.starts_with(
            "mcpick: prompt `pick` has no argument `cty` to complete (did you mean `city`?)"
        ),
        "{err}"
    );
    assert!(err.ends_with(usage), "{err}");
    // The argument being completed is not its own context.
    let output = sandbox.mcpick(&[
        "complete",
        "many/pick",
        "country",
        "F",
        "--context",
        "country=x",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.starts_with(
            "mcpick: --context country=…: `country` is the argument being completed, not context"
        ),
        "{err}"
    );
    assert!(err.ends_with(usage), "{err}");
    let sent = std::fs::read_to_string(&traffic).unwrap();
    assert!(
        !sent.contains("completion/complete"),
        "nothing is asked: {sent}"
    );
    // A right one is sent as context.
    let output = sandbox.mcpick(&[
        "complete",
        "many/pick",
        "city",
        "a",
        "--context",
        "country=France",
    ]);
    success(&output);
    let sent = std::fs::read_to_string(&traffic).unwrap();
    let asked: serde_json::Value = sent
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["method"] == "completion/complete")
        .unwrap();
    assert_eq!(
        asked["params"]["context"]["arguments"],
        serde_json::json!({"country": "France"})
    );
}
