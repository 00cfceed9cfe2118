//! The CLI against `@modelcontextprotocol/server-everything` (pinned, from npm), over stdio
//! and Streamable HTTP on 127.0.0.1.

use crate::common::*;
use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

#[test]
fn list_json_shows_every_prompt_with_its_arguments() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    let names: Vec<&str> = prompts
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for expected in [
        "simple-prompt",
        "args-prompt",
        "completable-prompt",
        "resource-prompt",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let args_prompt = prompts
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "args-prompt")
        .unwrap();
    assert_eq!(args_prompt["server"], "everything");
    assert_eq!(args_prompt["arguments"][0]["name"], "city");
    assert_eq!(args_prompt["arguments"][0]["required"], true);
    assert_eq!(args_prompt["arguments"][1]["name"], "state");
    assert_eq!(args_prompt["arguments"][1]["required"], false);
}

#[test]
fn get_fills_arguments_with_spaces() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let out =
        success(&sandbox.mcpick(&["get", "everything/args-prompt", "city=New York", "state=NY"]));
    assert_eq!(out, "What's weather in New York, NY?\n");
}

#[test]
fn get_takes_arg_flags_and_json_arguments() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let out = success(&sandbox.mcpick(&[
        "get",
        "everything/args-prompt",
        "--arg",
        "city=Rio=de=Janeiro",
        "--args-json",
        r#"{"state":"RJ\nBR"}"#,
        "--format",
        "text",
    ]));
    assert_eq!(out, "What's weather in Rio=de=Janeiro, RJ\nBR?\n");
}

#[test]
fn json_formats_are_valid_and_shaped_per_api() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let get = |format: &str| {
        json(&success(&sandbox.mcpick(&[
            "get",
            "everything/args-prompt",
            "city=New York",
            "--format",
            format,
        ])))
    };
    let mcp = get("mcp-json");
    assert_eq!(mcp[0]["role"], "user");
    assert_eq!(mcp[0]["content"]["type"], "text");
    assert_eq!(mcp[0]["content"]["text"], "What's weather in New York?");
    let openai = get("openai");
    assert_eq!(
        openai,
        serde_json::json!([{"role":"user","content":"What's weather in New York?"}])
    );
    let anthropic = get("anthropic");
    assert_eq!(
        anthropic,
        serde_json::json!([{"role":"user","content":[{"type":"text","text":"What's weather in New York?"}]}])
    );
}

#[test]
fn embedded_resources_come_through() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let out = json(&success(&sandbox.mcpick(&[
        "get",
        "everything/resource-prompt",
        "resourceType=Text",
        "resourceId=1",
        "--format",
        "mcp-json",
    ])));
    let kinds: Vec<&str> = out
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"]["type"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"resource"), "{kinds:?}");
}

#[test]
fn missing_required_argument_exits_2_with_usage() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let output = sandbox.mcpick(&["get", "everything/args-prompt", "state=NY"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("missing required argument `city`"), "{err}");
    assert!(
        err.contains("usage: mcpick get everything/args-prompt city=VALUE [state=VALUE]"),
        "{err}"
    );
    assert!(err.contains("Name of the city"), "{err}");
    assert!(stdout(&output).is_empty());
}

#[test]
fn unknown_prompt_and_argument_suggest_close_names() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let output = sandbox.mcpick(&["get", "everything/args-promt"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("Did you mean: everything/args-prompt?"),
        "{}",
        stderr(&output)
    );
    let output = sandbox.mcpick(&["get", "everything/args-prompt", "ctiy=Paris"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no argument `ctiy` (did you mean `city`?)"),
        "{}",
        stderr(&output)
    );
    let output = sandbox.mcpick(&["get", "everythin/args-prompt"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("Did you mean: everything?"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn completion_uses_context_arguments() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let departments = success(&sandbox.mcpick(&[
        "complete",
        "everything/completable-prompt",
        "department",
        "E",
    ]));
    assert_eq!(departments, "Engineering\n");
    let names = json(&success(&sandbox.mcpick(&[
        "complete",
        "everything/completable-prompt",
        "name",
        "",
        "--context",
        "department=Sales",
        "--json",
    ])));
    let values = names["values"].as_array().unwrap();
    assert!(!values.is_empty(), "{names}");
    let engineering = json(&success(&sandbox.mcpick(&[
        "complete",
        "everything/completable-prompt",
        "name",
        "",
        "--context",
        "department=Engineering",
        "--json",
    ])));
    assert_ne!(
        names["values"], engineering["values"],
        "context must change the suggestions"
    );
}

#[test]
fn servers_json_reports_legacy_protocol_and_identity() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    let row = &servers[0];
    assert_eq!(row["name"], "everything");
    assert_eq!(row["transport"], "stdio");
    assert_eq!(row["state"], "ready");
    assert_eq!(row["protocolVersion"], "2025-11-25");
    assert!(
        row["serverName"].as_str().unwrap().contains("everything"),
        "{row}"
    );
    assert!(row["capabilities"]["prompts"].is_object(), "{row}");
    assert_eq!(row["promptCount"], 4);
}

#[test]
fn a_missing_command_is_reported_and_the_others_still_list() {
    let config = format!(
        "{}\n[servers.ghost]\ncommand = \"mcpick-no-such-command\"\n",
        everything_stdio("everything")
    );
    let sandbox = Sandbox::new(&config);
    let output = sandbox.mcpick(&["list", "--json"]);
    let prompts = json(&success(&output));
    assert_eq!(prompts.as_array().unwrap().len(), 4);
    let err = stderr(&output);
    assert!(
        err.contains("server `ghost` failed: cannot start `mcpick-no-such-command`"),
        "{err}"
    );

    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    let ghost = servers
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "ghost")
        .unwrap();
    assert_eq!(ghost["state"], "failed");
    assert!(
        ghost["error"].as_str().unwrap().contains("no such program"),
        "{ghost}"
    );
}

#[test]
fn all_servers_failing_exits_1() {
    let sandbox = Sandbox::new("[servers.ghost]\ncommand = \"mcpick-no-such-command\"\n");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn streamable_http_lists_and_gets() {
    let server = everything_http();
    let sandbox = Sandbox::new(&http("remote", &server.url));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    assert_eq!(prompts.as_array().unwrap().len(), 4);
    let out = success(&sandbox.mcpick(&["get", "remote/args-prompt", "city=Lyon"]));
    assert_eq!(out, "What's weather in Lyon?\n");
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    assert_eq!(servers[0]["transport"], "http");
    assert_eq!(servers[0]["protocolVersion"], "2025-11-25");
}

#[test]
fn legacy_sse_mode_lists_and_gets_with_transport_sse_and_by_fallback() {
    let server = everything_sse();
    let sandbox = Sandbox::new(&format!(
        "[servers.old]\ntransport = \"sse\"\nurl = {}\n\n[servers.guessed]\nurl = {}\n",
        toml_str(&server.url),
        toml_str(&server.url)
    ));
    let prompts = json(&success(&sandbox.mcpick(&["list", "--json"])));
    let names: Vec<String> = prompts
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p["server"].as_str().unwrap(),
                p["name"].as_str().unwrap()
            )
        })
        .collect();
    // `guessed` has no `transport`: its POST is refused, and the GET finds the SSE stream.
    for server in ["old", "guessed"] {
        assert!(
            names.contains(&format!("{server}/args-prompt")),
            "{server} missing: {names:?}"
        );
    }
    assert_eq!(names.len(), 8, "{names:?}");
    let out = success(&sandbox.mcpick(&["get", "old/args-prompt", "city=Lyon"]));
    assert_eq!(out, "What's weather in Lyon?\n");
    let servers = json(&success(&sandbox.mcpick(&["servers", "--json"])));
    assert_eq!(servers[1]["transport"], "sse");
    assert_eq!(servers[1]["state"], "ready", "{servers}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_resource_returns_text_and_blob_contents() {
    use mcpick::mcp::{Connection, McpError, ServerLog};
    use mcpick::model::EmbeddedResource;
    let config = mcpick::config::parse(
        &everything_stdio("everything"),
        std::path::Path::new("t.toml"),
        &|_| None,
    )
    .unwrap();
    let connection = Connection::connect(
        &config.servers[0],
        std::sync::Arc::new(ServerLog::default()),
        None,
    )
    .await
    .unwrap_or_else(|e| panic!("connect: {e}"));
    assert!(connection.details().resources, "{:?}", connection.details());

    let uri = "demo://resource/static/document/features.md";
    let contents = connection.read_resource(uri).await.unwrap();
    assert_eq!(contents.len(), 1, "{contents:?}");
    match &contents[0] {
        EmbeddedResource::Text {
            uri: got,
            mime_type,
            text,
            ..
        } => {
            assert_eq!(got, uri);
            assert_eq!(mime_type.as_deref(), Some("text/markdown"));
            let on_disk =
                std::fs::read_to_string(everything_js().parent().unwrap().join("docs/features.md"))
                    .unwrap();
            assert_eq!(text, &on_disk);
        }
        other => panic!("expected text, got {other:?}"),
    }

    let contents = connection
        .read_resource("demo://resource/dynamic/blob/7")
        .await
        .unwrap();
    match &contents[..] {
        [EmbeddedResource::Blob { uri, blob, .. }] => {
            assert_eq!(uri, "demo://resource/dynamic/blob/7");
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob)
                .unwrap();
            let text = String::from_utf8(bytes).unwrap();
            assert!(text.starts_with("Resource 7: "), "{text}");
        }
        other => panic!("expected one blob, got {other:?}"),
    }

    let missing = connection
        .read_resource("demo://resource/nowhere")
        .await
        .unwrap_err();
    assert!(matches!(missing, McpError::Server { .. }), "{missing}");
    connection.shutdown().await;
}
