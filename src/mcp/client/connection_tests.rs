//! Tests of connection.rs.

use super::connect::{
    auto_lifecycle, discover_probe, handshake_error, pinned_lifecycle, refused_era,
};
use super::*;
use crate::cache::Scope;
use crate::mcp::client::mrtr;
use crate::mcp::client::questions::{FieldKind, QuestionKind};
use rmcp::service::ClientInitializeError;
use serde_json::json;

fn http_server(extra: &str) -> ServerConfig {
    let text = format!("[servers.s]\nurl = \"http://127.0.0.1:1/mcp\"\n{extra}");
    let config = crate::config::parse(&text, std::path::Path::new("t.toml"), &|_| None).unwrap();
    config.server("s").unwrap().clone()
}

#[test]
fn protocol_version_pins_the_handshake() {
    let (mode, version) = pinned_lifecycle(&http_server("")).unwrap();
    assert_eq!(mode, auto_lifecycle());
    assert_eq!(version, None);
    let (mode, version) =
        pinned_lifecycle(&http_server("protocol_version = \"2025-06-18\"")).unwrap();
    assert_eq!(mode, ClientLifecycleMode::Initialize);
    assert_eq!(version, Some(ProtocolVersion::V_2025_06_18));
    let (mode, version) =
        pinned_lifecycle(&http_server("protocol_version = \"2026-07-28\"")).unwrap();
    assert_eq!(
        mode,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28]
        }
    );
    assert_eq!(version, None);
}

#[test]
fn the_config_knows_the_versions_the_sdk_speaks_and_refuses_others_at_load() {
    assert_eq!(
        crate::config::PROTOCOL_VERSIONS.map(String::from).to_vec(),
        known_versions()
    );
    let text = "[servers.s]\nurl = \"http://127.0.0.1:1/mcp\"\nprotocol_version = \"1999-01-01\"\n";
    let error = crate::config::parse(text, std::path::Path::new("t.toml"), &|_| None)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("config file t.toml:3:1: server `s`: `protocol_version = \"1999-01-01\"` is not a version mcpick speaks"),
        "{error}"
    );
}

/// What `prompts_get` sees of an `input_required` result, through the SDK's types.
fn asked(result: serde_json::Value) -> (bool, crate::mcp::client::questions::InputRequest) {
    let result: ServerResult = serde_json::from_value(result).unwrap();
    match result {
        ServerResult::InputRequiredResult(typed) => (
            true,
            mrtr::parse_input_required(&serde_json::to_value(&typed).unwrap()),
        ),
        ServerResult::CustomResult(raw) if mrtr::is_input_required(&raw.0) => {
            (false, mrtr::parse_input_required(&raw.0))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn typed_input_required_results_keep_schema_order_and_legacy_labels() {
    let (typed, request) = asked(json!({"resultType":"input_required","inputRequests":{
        "q":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{
            "type":"object","properties":{
                "zeta":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},
                "alpha":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}},
                "mid":{"type":"number","maximum":2.5}}}}}},
        "requestState":"s"}));
    assert!(typed, "the SDK should type this result");
    let QuestionKind::Form { fields, .. } = &request.questions[0].kind else {
        panic!("{request:?}")
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    assert!(matches!(&fields[0].kind, FieldKind::Choice { labels, .. } if labels == &["A", "B"]));
    assert!(matches!(
        &fields[1].kind,
        FieldKind::Choice { multiple: true, .. }
    ));
    assert_eq!(request.request_state.as_deref(), Some("s"));
}

#[test]
fn input_required_results_the_sdk_cannot_type_are_read_raw() {
    let (typed, request) = asked(json!({"resultType":"input_required","inputRequests":{
        "a":{"method":"tasks/frobnicate"},
        "b":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{
            "type":"object","properties":{"when":{"type":"string","format":"x-odd"}}}}}}}));
    assert!(!typed);
    assert_eq!(request.questions.len(), 2);
    assert!(matches!(
        &request.questions[1].kind,
        QuestionKind::Form { fields, .. }
            if fields[0].kind == FieldKind::Text { format: Some("x-odd".into()), min_length: None, max_length: None }
    ));
}

/// Pages of numbers: `pages[n]` is page n+1's items and its next cursor.
async fn list_of(pages: &[(&[u32], Option<&str>)]) -> Listed<u32> {
    let pages: Vec<(Vec<u32>, Option<String>)> = pages
        .iter()
        .map(|(items, next)| (items.to_vec(), next.map(str::to_string)))
        .collect();
    all_pages("numbers/list", ["number", "numbers"], |_, number| {
        let (items, next) = pages[number - 1].clone();
        async move {
            Ok(Page {
                hints: None,
                items,
                skipped: Vec::new(),
                next,
            })
        }
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_repeated_cursor_keeps_the_pages_before_it_and_warns() {
    let listed = list_of(&[(&[1, 2], Some("a")), (&[3], Some("b")), (&[4], Some("a"))]).await;
    assert_eq!(listed.items, [1, 2, 3, 4]);
    assert_eq!(
        listed.warnings,
        [
            "numbers/list repeated the cursor \"a\" (page 3): kept the 4 numbers of its \
          first 3 pages and stopped there rather than loop"
        ]
    );
    // A cursor with controls reads as a prompt name with them does, not as Rust source.
    let listed = list_of(&[
        (&[1], Some("c\u{1b}]52;c;eA==\u{7}\u{202e}")),
        (&[2], Some("c\u{1b}]52;c;eA==\u{7}\u{202e}")),
    ])
    .await;
    let warning = &listed.warnings[0];
    assert!(
        warning.contains(&format!(
            "cursor \"{}\" (page 2)",
            crate::text::one_line("c\u{1b}]52;c;eA==\u{7}\u{202e}")
        )),
        "{warning}"
    );
    assert!(!warning.contains("\\u{"), "{warning}");
    assert!(!warning.contains('\u{1b}'), "{warning}");
    let listed = list_of(&[(&[1], Some("a")), (&[2], None)]).await;
    assert_eq!((listed.items, listed.warnings), (vec![1, 2], Vec::new()));
}

#[test]
fn a_page_keeps_its_good_prompts_and_names_the_bad_ones() {
    let page = json!({"prompts": [
        {"name": "good"},
        {"description": "no name"},
        {"name": "broken\u{1b}[31m", "arguments": 5},
        {"name": "fine"}
    ], "nextCursor": null});
    let (prompts, skipped) = read_prompts_page(&page, 2).unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["good", "fine"]);
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    // A wrong value serde quotes is neutralised as the names are, not debug-escaped.
    let (_, odd) = read_prompts_page(
        &json!({"prompts": [{"name": "odd", "arguments": "x\u{1b}]52;c;eA==\u{7}\u{202e}"}]}),
        1,
    )
    .unwrap();
    assert!(
        odd[0].contains(&crate::text::one_line("x\u{1b}]52;c;eA==\u{7}\u{202e}")),
        "{odd:?}"
    );
    assert!(!odd[0].contains("\\u{"), "{odd:?}");
    assert!(!odd[0].contains('\u{1b}'), "{odd:?}");
    assert_eq!(
        undebugged(r#"a \"q\" \\ \u{1b}\n \u{zz}"#),
        "a \"q\" \\ \u{1b}\n \\u{zz}"
    );
    assert!(
        skipped[0].starts_with("left out the prompt number 2 of page 2: ")
            && skipped[0].contains("missing field `name`"),
        "{skipped:?}"
    );
    assert!(skipped[1].contains("`broken"), "{skipped:?}");
    assert!(!skipped[1].contains('\u{1b}'), "{skipped:?}");
    assert!(read_prompts_page(&json!({"prompts": 3}), 1).is_err());
}

#[test]
fn the_sdks_status_words_are_read_back() {
    assert_eq!(
        status_in("HTTP 404 Not Found: <html>\n x</html>"),
        Some((404, "Not Found: <html> x</html>".to_string()))
    );
    assert_eq!(status_in("HTTP 500"), Some((500, String::new())));
    assert_eq!(status_in("HTTP/1.1 oops"), None);
    assert_eq!(status_in("HTTP 4041 x"), None);
    assert_eq!(status_in("Deserialize error"), None);
}

#[test]
fn the_discover_probe_leaves_initialize_its_share_of_the_timeout() {
    let probe = |ms| discover_probe(Duration::from_millis(ms)).as_millis();
    assert_eq!(probe(3000), 1500);
    assert_eq!(probe(10_000), 5000);
    // Room for the SDK's own 10 s probe and as long again for initialize.
    assert_eq!(probe(20_000), 20_000);
    assert_eq!(probe(30_000), 30_000);
}

#[test]
fn elicitation_is_declared_as_form_only() {
    let meta = serde_json::to_value(elicitation_meta()).unwrap();
    assert_eq!(
        meta,
        json!({"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}})
    );
    // Legacy servers may ask mid-request only when the handshake declared it.
    let handshake = serde_json::to_value(client_info().capabilities).unwrap();
    assert_eq!(handshake, json!({"elicitation":{"form":{}}}));
    // 2026-07-28 requests that cannot ask declare nothing, in place of the handshake's.
    let plain = serde_json::to_value(no_capabilities_meta()).unwrap();
    assert_eq!(
        plain,
        json!({"io.modelcontextprotocol/clientCapabilities":{}})
    );
}

fn hints(ttl_ms: u64, received_ms: u64) -> Hints {
    Hints {
        received_ms,
        ttl_ms,
        scope: Scope::Public,
    }
}

#[test]
fn a_list_keeps_its_pages_and_is_fresh_until_its_first_page_expires() {
    let prompt = |name: &str| PromptInfo {
        server: "s".into(),
        name: name.into(),
        title: None,
        description: None,
        arguments: Vec::new(),
        skill: None,
        mirrors_skill: None,
    };
    let now = crate::cache::now_ms();
    let list = PromptList {
        prompts: vec![prompt("a"), prompt("b"), prompt("c")],
        warnings: Vec::new(),
        pages: vec![(hints(60_000, now), 2), (hints(30_000, now), 1)],
    };
    let pages = list.catalog_pages();
    let names: Vec<Vec<&str>> = pages
        .iter()
        .map(|p| p.prompts.iter().map(|p| p.name.as_str()).collect())
        .collect();
    assert_eq!(names, [vec!["a", "b"], vec!["c"]]);
    assert_eq!(pages[1].hints.ttl_ms, 30_000);
    assert_eq!(list.fresh_until_ms(), Some(now + 30_000));
    // One page of ttlMs 0 (or a legacy list) sets no timer at all.
    let stale = PromptList {
        pages: vec![(hints(60_000, now), 2), (hints(0, now), 1)],
        ..list
    };
    assert_eq!(stale.fresh_until_ms(), None);
}

#[test]
fn prompts_no_request_can_name_are_left_out_and_said() {
    let prompt = |name: &str, description: &str| PromptInfo {
        server: "s".into(),
        name: name.into(),
        title: None,
        description: Some(description.into()),
        arguments: Vec::new(),
        skill: None,
        mirrors_skill: None,
    };
    let now = crate::cache::now_ms();
    let mut list = PromptList {
        prompts: vec![
            prompt("a", "1"),
            prompt("", "2"),
            prompt("b", "3"),
            prompt("a", "4"),
            prompt("", "5"),
            prompt("a", "6"),
        ],
        warnings: Vec::new(),
        pages: vec![(hints(0, now), 3), (hints(0, now), 3)],
    };
    drop_unreachable(&mut list);
    let kept: Vec<(&str, &str)> = list
        .prompts
        .iter()
        .map(|p| (p.name.as_str(), p.description.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(kept, [("a", "1"), ("b", "3")]);
    assert_eq!(
        list.pages.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        [2, 0]
    );
    assert_eq!(list.warnings.len(), 2, "{:?}", list.warnings);
    assert!(list.warnings[0].starts_with("left out 2 prompts with an empty name"));
    assert!(
        list.warnings[1].starts_with(
            "the server lists 3 prompts named `a`: kept the first, left out the other 2"
        )
    );
    // A clean list is left as it is, without a word.
    let mut clean = PromptList {
        prompts: vec![prompt("a", "1"), prompt("b", "2")],
        warnings: Vec::new(),
        pages: vec![(hints(0, now), 2)],
    };
    drop_unreachable(&mut clean);
    assert_eq!(clean.prompts.len(), 2);
    assert!(clean.warnings.is_empty());
}

#[test]
fn only_a_readable_2026_discover_result_starts_without_a_handshake() {
    let config = http_server("");
    let details = ServerDetails {
        transport: "http".into(),
        protocol_version: "2026-07-28".into(),
        server_name: None,
        server_version: None,
        capabilities: json!({"prompts": {}}),
        prompts: true,
        prompts_list_changed: false,
        completions: false,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    };
    let info = ServerPeerInfo::new(
        ProtocolVersion::V_2026_07_28,
        rmcp::model::ServerCapabilities::default(),
    );
    let mut entry = ServerEntry::new(&config, None, Era::Modern, details);
    entry.discover = Some(crate::cache::Cached {
        hints: hints(0, 0),
        value: serde_json::to_value(&info).unwrap(),
    });
    assert!(Known::from_entry(&entry, true).direct());
    // Not when the caller wants the handshake (the menu).
    let known = Known::from_entry(&entry, false);
    assert!(!known.direct());
    assert!(matches!(
        known.start(),
        Some((Start::Handshake(ClientLifecycleMode::Discover { .. }), None))
    ));
    // Not from a result that cannot be read, nor for a legacy server.
    let mut unreadable = entry.clone();
    unreadable.discover.as_mut().unwrap().value = json!({"protocolVersion": 5});
    assert!(!Known::from_entry(&unreadable, true).direct());
    let mut legacy = entry.clone();
    legacy.era = Era::Legacy;
    let known = Known::from_entry(&legacy, true);
    assert!(!known.direct());
    assert!(matches!(
        known.start(),
        Some((Start::Handshake(ClientLifecycleMode::Initialize), Some(v)))
            if v == ProtocolVersion::LATEST_WITH_INITIALIZE
    ));
    assert!(Known::default().start().is_none());
}

#[test]
fn a_failure_that_says_the_era_changed_is_told_from_others() {
    let server = |code: i32, message: &str| McpError::Server {
        code,
        message: message.into(),
        data: None,
    };
    for changed in [
        server(-32022, "Unsupported protocol version"),
        server(-32601, "Method not found"),
        server(
            -32600,
            "Received request before initialization was complete",
        ),
        server(-32000, "Bad Request: No valid session ID provided"),
        McpError::HttpStatus {
            status: 400,
            words: "the server answered HTTP 400 at this URL: Bad Request".into(),
        },
        McpError::Unreachable("error sending request: missing session id".into()),
        McpError::Closed(": the server exited with status 3".into()),
    ] {
        assert!(looks_like_another_era(&changed), "{changed}");
    }
    for same in [
        server(-32602, "Unknown prompt: x"),
        server(-32603, "internal"),
        server(-32600, "Invalid request"),
        McpError::Timeout {
            method: "prompts/get".into(),
            ms: 1,
        },
        McpError::InputRequired("x".into()),
        McpError::HttpStatus {
            status: 500,
            words: "the server answered HTTP 500 at this URL: Internal Server Error".into(),
        },
    ] {
        assert!(!looks_like_another_era(&same), "{same}");
    }
    assert!(refused_era(&handshake_error(
        ClientInitializeError::JsonRpcError(rmcp::model::ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            "Method not found: initialize",
            None
        ))
    )));
    assert!(!refused_era(&McpError::Unreachable(
        "connection refused".into()
    )));
    // The words a refusal is shown in, kept as they were.
    assert_eq!(
        handshake_error(ClientInitializeError::JsonRpcError(
            rmcp::model::ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "Method not found: initialize",
                None
            )
        ))
        .to_string(),
        "the server refused the handshake: error -32601: Method not found: initialize"
    );
}

#[test]
fn a_legacy_answer_becomes_the_elicit_result_of_its_question() {
    let round = |answer: Answer| InputAnswers {
        answers: vec![(LEGACY_QUESTION_KEY.to_string(), answer)],
        request_state: None,
    };
    let mut content = serde_json::Map::new();
    content.insert("confirmed".into(), json!(true));
    let value = |result: ElicitResult| serde_json::to_value(result).unwrap();
    assert_eq!(
        value(legacy_answer(&round(Answer::Accept(content)))),
        json!({"action":"accept","content":{"confirmed":true}})
    );
    assert_eq!(
        value(legacy_answer(&round(Answer::Cancel))),
        json!({"action":"cancel"})
    );
    assert_eq!(
        value(legacy_answer(&round(Answer::Decline))),
        json!({"action":"decline"})
    );
    // No answer for it at all is a decline, never an accept.
    let none = InputAnswers {
        answers: Vec::new(),
        request_state: None,
    };
    assert_eq!(value(legacy_answer(&none)), json!({"action":"decline"}));
}
