//! The CLI against a server on the official Python SDK `mcp` (pinned, from PyPI), which
//! speaks 2026-07-28: several pages of prompts, multi-message results, every content kind,
//! completion with context, over stdio and Streamable HTTP.

use crate::common::*;
use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

fn names_of(prompts: &Value, server: &str) -> Vec<String> {
    prompts
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["server"] == server)
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_json_lists_every_prompt_of_both_servers_on_every_page() {
    let config = format!(
        "{}\n{}",
        everything_stdio("everything"),
        py_stdio("py", &[])
    );
    let sandbox = Sandbox::new(&config);
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert_eq!(names_of(&prompts, "everything").len(), 4);
    let py = names_of(&prompts, "py");
    // 13 prompts at 5 a page: the last page holds add_prompt.
    assert_eq!(py.len(), 13, "{py:?}");
    for name in [
        "greet",
        "all_content",
        "code_review",
        "filler_09",
        "add_prompt",
    ] {
        assert!(py.contains(&name.to_string()), "{name} missing: {py:?}");
    }
    let greet = prompts
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "greet")
        .unwrap();
    assert_eq!(greet["title"], "Greeting");
    assert_eq!(greet["arguments"][0]["title"], "Name");
    assert_eq!(greet["arguments"][0]["description"], "Who to greet");
}

#[test]
fn servers_json_reports_each_era() {
    let config = format!(
        "{}\n{}",
        everything_stdio("everything"),
        py_stdio("py", &[])
    );
    let sandbox = Sandbox::new(&config);
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    let row = |name: &str| {
        servers
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(row("py")["protocolVersion"], "2026-07-28");
    assert_eq!(row("py")["serverName"], "mcpick-py-test");
    assert_eq!(row("py")["promptCount"], 13);
    assert_eq!(row("everything")["protocolVersion"], "2025-11-25");
}

#[test]
fn multi_message_results_keep_roles_in_every_format() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let markdown =
        success(&sandbox.mcpick(&["get", "py/greet", "name=Ada Lovelace", "style=formal"]));
    assert_eq!(
        markdown,
        "<!-- A short multi-turn greeting conversation -->\n\n## user\n\nPlease greet Ada Lovelace in a formal style.\n\n## assistant\n\nHello, Ada Lovelace!\n\n## user\n\nThanks.\n"
    );
    let anthropic = json(&success(&sandbox.mcpick(&[
        "get",
        "py/greet",
        "name=Ada",
        "--format",
        "anthropic",
    ])));
    let roles: Vec<&str> = anthropic
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(
        anthropic[0]["content"][0]["text"],
        "Please greet Ada in a casual style."
    );
}

#[test]
fn every_content_kind_arrives_intact() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let mcp = json(&success(&sandbox.mcpick(&[
        "get",
        "py/all_content",
        "--format",
        "mcp-json",
    ])));
    let kinds: Vec<&str> = mcp
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource",
            "resource",
            "resource_link"
        ]
    );
    assert_eq!(mcp[1]["content"]["mimeType"], "image/png");
    assert_eq!(mcp[3]["content"]["resource"]["text"], "embedded notes");
    assert_eq!(
        mcp[4]["content"]["resource"]["blob"],
        "AAECAwQFBgcICQoLDA0ODw=="
    );
    assert_eq!(mcp[5]["content"]["uri"], "file:///project/src/main.rs");
    assert_eq!(mcp[5]["content"]["size"], 1234);

    let openai = json(&success(&sandbox.mcpick(&[
        "get",
        "py/all_content",
        "--format",
        "openai",
    ])));
    // The server alternates roles: the image lands in an assistant turn, which OpenAI
    // cannot carry, and the audio in a user turn, which it can.
    assert_eq!(openai[1]["role"], "assistant");
    assert!(
        openai[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("[image: image/png, 70 bytes"),
        "{openai}"
    );
    assert_eq!(openai[2]["content"][0]["input_audio"]["format"], "wav");
    let markdown = success(&sandbox.mcpick(&["get", "py/all_content"]));
    assert!(markdown.contains("](data:image/png;base64,"), "{markdown}");
    assert!(markdown.contains("embedded notes"), "{markdown}");
    assert!(
        markdown.contains("(file:///project/src/main.rs)"),
        "{markdown}"
    );
}

#[test]
fn completion_depends_on_context() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let languages = success(&sandbox.mcpick(&["complete", "py/code_review", "language", "r"]));
    assert_eq!(languages, "rust\n");
    let rust = json(&success(&sandbox.mcpick(&[
        "complete",
        "py/code_review",
        "framework",
        "a",
        "--context",
        "language=rust",
        "--json",
    ])));
    assert_eq!(
        rust,
        serde_json::json!({"values":["axum","actix"],"total":2,"hasMore":false})
    );
    let python = success(&sandbox.mcpick(&[
        "complete",
        "py/code_review",
        "framework",
        "",
        "--context",
        "language=python",
    ]));
    assert_eq!(python, "flask\ndjango\nfastapi\n");
}

#[test]
fn a_missing_required_argument_sends_no_prompts_get() {
    let sandbox = Sandbox::new("");
    let traffic = sandbox.dir.path().join("traffic.jsonl");
    // Record everything mcpick writes to the server.
    let config = format!(
        "[servers.py]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        toml_str(format!(
            "tee -a '{}' | '{}' '{}' stdio",
            traffic.display(),
            python().display(),
            py_server().display()
        ))
    );
    std::fs::write(sandbox.config(), config).unwrap();
    let output = sandbox.mcpick(&["get", "py/greet", "style=formal"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("missing required argument `name`"), "{err}");
    assert!(
        err.contains("name   (required)  Name: Who to greet"),
        "{err}"
    );
    let sent = std::fs::read_to_string(&traffic).unwrap();
    assert!(sent.contains("\"prompts/list\""), "{sent}");
    assert!(!sent.contains("\"prompts/get\""), "{sent}");
}

#[test]
fn server_errors_show_code_and_message() {
    // An empty required value passes the local check (it is present) but the server refuses it.
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let output = sandbox.mcpick(&["get", "py/greet", "name="]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("server error -32602"), "{err}");
    assert!(err.contains("name"), "{err}");
}

#[test]
fn streamable_http_in_the_2026_era() {
    let server = py_http();
    let sandbox = Sandbox::new(&http("pyhttp", &server.url));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert_eq!(names_of(&prompts, "pyhttp").len(), 13);
    let out = success(&sandbox.mcpick(&["get", "pyhttp/greet", "name=Grace", "--format", "text"]));
    assert_eq!(
        out,
        "user:\nPlease greet Grace in a casual style.\n\nassistant:\nHello, Grace!\n\nuser:\nThanks.\n"
    );
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    assert_eq!(servers[0]["protocolVersion"], "2026-07-28");
    assert_eq!(servers[0]["transport"], "http");
    let completion =
        success(&sandbox.mcpick(&["complete", "pyhttp/code_review", "language", "ty"]));
    assert_eq!(completion, "typescript\n");
}

#[test]
fn a_legacy_only_server_is_reached_through_initialize() {
    let python = python();
    let server = py_server();
    let config = behind_legacy_gate(
        "old",
        &[
            &python.to_string_lossy(),
            &server.to_string_lossy(),
            "stdio",
        ],
    );
    let sandbox = Sandbox::new(&config);
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    assert_eq!(servers[0]["protocolVersion"], "2025-11-25");
    assert_eq!(servers[0]["promptCount"], 13);
}
