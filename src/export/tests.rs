use serde_json::json;

use super::*;
use crate::mcp::{Message, Role};

/// One message per content kind, in both roles, plus a kind from the future.
fn every_kind() -> PromptMessages {
    PromptMessages {
        description: Some("Every content kind --> <b>bold</b>".into()),
        messages: blocks()
            .into_iter()
            .map(|(role, block)| Message {
                role,
                content: serde_json::from_value(block).unwrap(),
            })
            .collect(),
    }
}

fn blocks() -> Vec<(Role, serde_json::Value)> {
    vec![
        (
            Role::User,
            json!({"type":"text","text":"Review this ```code```:\nfn main() {}"}),
        ),
        (
            Role::User,
            json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}),
        ),
        (
            Role::User,
            json!({"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}),
        ),
        (
            Role::User,
            json!({"type":"audio","data":"T2dnUw==","mimeType":"audio/ogg"}),
        ),
        (
            Role::User,
            json!({"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"embedded notes"}}),
        ),
        (
            Role::User,
            json!({"type":"resource","resource":{"uri":"file:///data.bin","mimeType":"application/octet-stream","blob":"AAECAwQFBgcICQoLDA0ODw=="}}),
        ),
        (
            Role::User,
            json!({"type":"resource","resource":{"uri":"file:///doc.pdf","mimeType":"application/pdf","blob":"JVBERi0="}}),
        ),
        (
            Role::User,
            json!({"type":"resource_link","uri":"file:///project/src/main.rs","name":"main.rs","title":"Main","description":"Entry point","mimeType":"text/x-rust","size":1234}),
        ),
        (Role::Assistant, json!({"type":"text","text":"Looks fine."})),
        (
            Role::Assistant,
            json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}),
        ),
        (
            Role::Assistant,
            json!({"type":"resource","resource":{"uri":"file:///a.rs","mimeType":"text/x-rust","text":"fn a() {}"}}),
        ),
        (Role::User, json!({"type":"hologram","frames":3})),
        (
            Role::Assistant,
            json!({"type":"audio","data":"UklGRg==","mimeType":"audio/wav","annotations":{"audience":["assistant"],"priority":0.25}}),
        ),
        (
            Role::Assistant,
            json!({"type":"resource","resource":{"uri":"file:///b.bin","mimeType":"application/octet-stream","blob":"AAE=","_meta":{"k":"v"}}}),
        ),
        (
            Role::Assistant,
            json!({"type":"resource_link","uri":"https://example.com/x","name":"x","icons":[{"src":"https://example.com/i.png"}],"_meta":{"k":1}}),
        ),
    ]
}

#[test]
fn markdown_golden() {
    insta::assert_snapshot!(render(&every_kind(), Format::Markdown));
}

#[test]
fn plain_text_golden() {
    insta::assert_snapshot!(render(&every_kind(), Format::Text));
}

#[test]
fn mcp_json_golden() {
    insta::assert_snapshot!(render(&every_kind(), Format::McpJson));
}

#[test]
fn openai_golden() {
    insta::assert_snapshot!(render(&every_kind(), Format::OpenAi));
}

#[test]
fn anthropic_golden() {
    insta::assert_snapshot!(render(&every_kind(), Format::Anthropic));
}

#[test]
fn mcp_json_is_the_message_list_as_the_server_sent_it() {
    let out: serde_json::Value =
        serde_json::from_str(&render(&every_kind(), Format::McpJson)).unwrap();
    let sent: Vec<serde_json::Value> = blocks()
        .into_iter()
        .map(|(role, block)| json!({"role": role.as_str(), "content": block}))
        .collect();
    assert_eq!(out, serde_json::Value::Array(sent));
}

#[test]
fn a_description_cannot_close_the_markdown_comment() {
    let out = render(&every_kind(), Format::Markdown);
    let first = out.lines().next().unwrap();
    assert_eq!(first.matches("-->").count(), 1, "{first}");
    assert!(first.ends_with("-->"), "{first}");
}

/// Found by fuzzing: one pass of `--` → `- -` left `--->` as `- -->`, which closed the
/// comment early.
#[test]
fn runs_of_dashes_cannot_close_the_markdown_comment() {
    let prompt = PromptMessages {
        description: Some("a---> b----!> c-".into()),
        messages: Vec::new(),
    };
    assert_eq!(markdown(&prompt), "<!-- a- - -> b- - - -!> c- -->\n\n");
}

#[test]
fn chat_formats_merge_consecutive_roles_into_turns() {
    let prompt = every_kind();
    for format in [Format::OpenAi, Format::Anthropic] {
        let out: serde_json::Value = serde_json::from_str(&render(&prompt, format)).unwrap();
        let roles: Vec<&str> = out
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(
            roles,
            ["user", "assistant", "user", "assistant"],
            "{format:?}"
        );
    }
}

#[test]
fn text_only_openai_turns_are_strings() {
    let prompt = PromptMessages {
        description: None,
        messages: vec![
            Message {
                role: Role::User,
                content: Content::text("a"),
            },
            Message {
                role: Role::User,
                content: Content::text("b"),
            },
            Message {
                role: Role::Assistant,
                content: Content::text("c"),
            },
        ],
    };
    assert_eq!(
        openai(&prompt),
        json!([{"role":"user","content":"a\n\nb"},{"role":"assistant","content":"c"}])
    );
}

#[test]
fn fences_outgrow_backticks_in_embedded_text() {
    let prompt = PromptMessages {
        description: None,
        messages: vec![Message {
            role: Role::User,
            content: serde_json::from_value(json!({"type":"resource","resource":{"uri":"file:///x.md","text":"````\ncode\n````"}})).unwrap(),
        }],
    };
    assert!(render(&prompt, Format::Markdown).contains("`````\n````\ncode\n````\n`````"));
}

#[test]
fn decoded_len_handles_padding_and_junk() {
    assert_eq!(decoded_len(""), 0);
    assert_eq!(decoded_len("AAECAwQFBgcICQoLDA0ODw=="), 16);
    assert_eq!(decoded_len("AAE="), 2);
    assert_eq!(decoded_len("AAEC"), 3);
    assert_eq!(decoded_len("AA"), 1);
    assert_eq!(decoded_len("===="), 0);
}

#[test]
fn format_names_parse_and_errors_list_them() {
    assert_eq!("openai".parse::<Format>().unwrap(), Format::OpenAi);
    let err = "yaml".parse::<Format>().unwrap_err();
    assert!(
        err.contains("markdown, text, mcp-json, openai, anthropic"),
        "{err}"
    );
}
