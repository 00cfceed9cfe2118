//! `mcpick serve`'s cache hints: the `ttlMs` and `cacheScope` it puts on lists, on the
//! resources its prompts embed and for legacy clients, over stdio and HTTP, and `--ttl`'s
//! refusal of a number without a unit.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::common::*;
use crate::serve::{folder_embedding_a_file, json, modern_request};
use serde_json::Value;

/// Sends each request line to `mcpick serve ARGS` over stdio and returns the answers by id.
fn stdio_answers(args: &[&str], requests: &[String]) -> BTreeMap<u64, Value> {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .arg("serve")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start mcpick serve");
    let mut stdin = child.stdin.take().unwrap();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
    }
    let wanted = requests
        .iter()
        .filter(|r| json(r).get("id").is_some())
        .count();
    let mut answers = BTreeMap::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    while answers.len() < wanted {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let message = json(&line);
        if let Some(id) = message["id"].as_u64() {
            answers.insert(id, message);
        }
    }
    drop(stdin);
    let _ = child.wait();
    assert_eq!(answers.len(), wanted, "{args:?}: {answers:?}");
    answers
}

/// The `ttlMs` and `cacheScope` of an answer's result.
fn hints_of(answer: &Value) -> (u64, String) {
    let result = &answer["result"];
    let ttl = result["ttlMs"]
        .as_u64()
        .unwrap_or_else(|| panic!("no ttlMs: {answer}"));
    let scope = result["cacheScope"]
        .as_str()
        .unwrap_or_else(|| panic!("no cacheScope: {answer}"));
    (ttl, scope.to_string())
}

#[test]
fn listed_results_carry_the_chosen_cache_hints_over_stdio() {
    let folder = folder_embedding_a_file();
    let folder_path = folder.path().to_string_lossy().into_owned();
    let cases: [(&[&str], u64, u64); 5] = [
        // Files can change at any time: a minute; identity and capabilities: an hour.
        (&[&folder_path], 60_000, 3_600_000),
        // The bundled library changes only with the binary.
        (&["--builtin"], 3_600_000, 3_600_000),
        (&[&folder_path, "--builtin"], 60_000, 3_600_000),
        (&[&folder_path, "--ttl", "30s"], 30_000, 30_000),
        (&["--builtin", "--ttl", "0"], 0, 0),
    ];
    for (args, list_ttl, discover_ttl) in cases {
        let answers = stdio_answers(
            args,
            &[
                modern_request(1, "server/discover", serde_json::json!({})),
                modern_request(2, "prompts/list", serde_json::json!({})),
                modern_request(3, "resources/list", serde_json::json!({})),
                modern_request(4, "resources/templates/list", serde_json::json!({})),
            ],
        );
        let public = "public".to_string();
        assert_eq!(
            hints_of(&answers[&1]),
            (discover_ttl, public.clone()),
            "{args:?}"
        );
        for id in [2, 3, 4] {
            assert_eq!(
                hints_of(&answers[&id]),
                (list_ttl, public.clone()),
                "{args:?}"
            );
        }
        assert_eq!(
            answers[&1]["result"]["capabilities"]["resources"],
            serde_json::json!({ "listChanged": true }),
            "{args:?}"
        );
        assert_eq!(
            answers[&4]["result"]["resourceTemplates"],
            serde_json::json!([])
        );
    }
}

#[test]
fn the_files_prompts_embed_are_resources_to_read_with_the_same_hints() {
    let folder = folder_embedding_a_file();
    let folder_path = folder.path().to_string_lossy().into_owned();
    let args = [folder_path.as_str(), "--ttl", "5m"];
    let listed = stdio_answers(
        &args,
        &[
            modern_request(1, "resources/list", serde_json::json!({})),
            modern_request(2, "prompts/get", serde_json::json!({ "name": "review" })),
        ],
    );
    let resources = listed[&1]["result"]["resources"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(resources.len(), 1, "{resources:?}");
    assert_eq!(resources[0]["name"], "checklist.md");
    assert_eq!(resources[0]["description"], "Embedded by review");
    assert_eq!(resources[0]["mimeType"], "text/markdown");
    // The URI a prompt's embedded resource carries is the one to read.
    let uri = resources[0]["uri"].as_str().unwrap();
    let embedded = &listed[&2]["result"]["messages"][1]["content"]["resource"];
    assert_eq!(embedded["uri"], uri, "{embedded}");
    let read = stdio_answers(
        &args,
        &[
            modern_request(1, "resources/read", serde_json::json!({ "uri": uri })),
            modern_request(
                2,
                "resources/read",
                serde_json::json!({ "uri": "file:///etc/hostname" }),
            ),
        ],
    );
    assert_eq!(hints_of(&read[&1]), (300_000, "public".to_string()));
    assert_eq!(
        read[&1]["result"]["contents"],
        serde_json::json!([{ "uri": uri, "mimeType": "text/markdown", "text": "- [ ] tests\n" }])
    );
    // Only what the prompts embed is served: any other file is unknown.
    assert_eq!(read[&2]["error"]["code"], -32602, "{}", read[&2]);
    // It names the URI asked for (SEP-2164), as the spec's example does.
    assert_eq!(
        read[&2]["error"]["data"]["uri"], "file:///etc/hostname",
        "{}",
        read[&2]
    );
}

#[test]
fn a_legacy_client_gets_the_hints_too() {
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"prompts/list"}"#;
    let read = r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///etc/hostname"}}"#;
    let answers = stdio_answers(
        &["--builtin", "--ttl", "2h"],
        &[
            initialize.into(),
            initialized.into(),
            list.into(),
            read.into(),
        ],
    );
    // That era's code for an unknown resource.
    assert_eq!(answers[&3]["error"]["code"], -32002, "{}", answers[&3]);
    assert_eq!(answers[&3]["error"]["data"]["uri"], "file:///etc/hostname");
    assert_eq!(answers[&1]["result"]["protocolVersion"], "2025-11-25");
    // Harmless to a client of that era, and kept in a catalog like any other list.
    assert_eq!(hints_of(&answers[&2]), (7_200_000, "public".to_string()));
    assert!(
        answers[&2]["result"].get("resultType").is_none(),
        "{}",
        answers[&2]
    );
}

/// POSTs one 2026-07-28 request to `mcpick serve --http` and returns the JSON-RPC answer.
fn http_request(url: &str, method: &str, params: Value) -> Value {
    use std::io::{Read, Write};
    let authority = url.trim_start_matches("http://").split('/').next().unwrap();
    let body = modern_request(1, method, params);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    // A JSON body or one SSE event; either way the message is the line holding `"id":1`.
    let line = response
        .lines()
        .map(|l| l.trim_start_matches("data:").trim())
        .find(|l| l.starts_with('{') && l.contains(r#""id":1"#))
        .unwrap_or_else(|| panic!("no answer in:\n{response}"));
    json(line)
}

#[test]
fn listed_results_carry_the_chosen_cache_hints_over_http() {
    let folder = folder_embedding_a_file();
    let folder_path = folder.path().to_string_lossy().into_owned();
    for (args, list_ttl, discover_ttl) in [
        (vec![folder_path.as_str()], 60_000, 3_600_000),
        (vec![folder_path.as_str(), "--ttl", "1500ms"], 1_500, 1_500),
    ] {
        let server = mcpick_serve_http(&args);
        let public = "public".to_string();
        let discover = http_request(&server.url, "server/discover", serde_json::json!({}));
        assert_eq!(
            hints_of(&discover),
            (discover_ttl, public.clone()),
            "{args:?}"
        );
        for method in ["prompts/list", "resources/list", "resources/templates/list"] {
            let answer = http_request(&server.url, method, serde_json::json!({}));
            assert_eq!(
                hints_of(&answer),
                (list_ttl, public.clone()),
                "{method} {args:?}"
            );
        }
    }
}

#[test]
fn a_ttl_without_a_unit_is_a_usage_error_that_says_the_fix() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["serve", "--builtin", "--ttl", "30"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`30s`"), "{stderr}");
    assert!(output.stdout.is_empty());
}
