//! The hub keeps a server's catalog fresh when the server says its prompt list changed:
//! `notifications/prompts/list_changed` in the legacy era, a `subscriptions/listen` stream in
//! 2026-07-28. The Python-SDK server adds a prompt whenever `add_prompt` is fetched.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::common::*;
use mcpick::config;
use mcpick::mcp::{Hub, McpEvent};
use mcpick::model::{PromptInfo, ServerDetails};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(30);

async fn next_event(
    events: &mut mpsc::Receiver<McpEvent>,
    wanted: impl Fn(&McpEvent) -> bool,
) -> McpEvent {
    tokio::time::timeout(WAIT, async {
        loop {
            let event = events.recv().await.expect("hub event channel closed");
            if let McpEvent::Failed { error, stderr, .. } = &event {
                panic!("server failed: {error}\n{}", stderr.join("\n"));
            }
            if wanted(&event) {
                return event;
            }
        }
    })
    .await
    .expect("event did not arrive in time")
}

/// Starts the hub on `config_text`, fetches `add_prompt` twice, and checks that each fetch
/// is followed by a refreshed catalog holding the new prompt. Returns the handshake details.
async fn refreshes_after_list_change(config_text: &str) -> ServerDetails {
    let config = config::parse(config_text, Path::new("test.toml"), &|_| None).unwrap();
    let (tx, mut events) = mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, true);
    let McpEvent::Ready {
        details, prompts, ..
    } = next_event(&mut events, |e| matches!(e, McpEvent::Ready { .. })).await
    else {
        unreachable!()
    };
    assert_eq!(prompts.len(), 13);
    assert!(details.prompts_list_changed, "{details:?}");
    let connection = hub.connection("py").expect("ready server has a connection");
    for round in 1..=2 {
        let added = connection
            .get_prompt("add_prompt", &BTreeMap::new())
            .await
            .unwrap();
        let expected = format!("dynamic_{round}");
        assert_eq!(
            mcpick::export::render(&added, mcpick::export::Format::Text),
            format!("added {expected}\n")
        );
        let McpEvent::PromptsChanged { prompts, .. } = next_event(
            &mut events,
            |e| matches!(e, McpEvent::PromptsChanged { prompts, .. } if has(prompts, &expected)),
        )
        .await
        else {
            unreachable!()
        };
        assert_eq!(prompts.len(), 13 + round);
    }
    drop(connection);
    hub.shutdown().await;
    details
}

fn has(prompts: &[PromptInfo], name: &str) -> bool {
    prompts.iter().any(|p| p.name == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_server_refreshes_through_subscriptions_listen() {
    let details = refreshes_after_list_change(&py_stdio("py", &[])).await;
    assert_eq!(details.protocol_version, "2026-07-28");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_server_refreshes_through_list_changed_notifications() {
    let python = python();
    let server = py_server();
    let config = behind_legacy_gate(
        "py",
        &[
            &python.to_string_lossy(),
            &server.to_string_lossy(),
            "stdio",
        ],
    );
    let details = refreshes_after_list_change(&config).await;
    assert_eq!(details.protocol_version, "2025-11-25");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_http_server_refreshes_through_subscriptions_listen() {
    let server = py_http();
    let details = refreshes_after_list_change(&http("py", &server.url)).await;
    assert_eq!(details.protocol_version, "2026-07-28");
    assert_eq!(details.transport, "http");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_logs_and_stderr_reach_the_hub() {
    let config = config::parse(&py_stdio("py", &[]), Path::new("test.toml"), &|_| None).unwrap();
    let (tx, mut events) = mpsc::channel(64);
    let hub = Hub::start(config.servers, tx, true);
    let McpEvent::Log { line, .. } = next_event(
        &mut events,
        |e| matches!(e, McpEvent::Log { line, .. } if line.source == "stderr"),
    )
    .await
    else {
        unreachable!()
    };
    assert!(line.text.contains("py-server starting"), "{line:?}");
    hub.shutdown().await;
}
