//! Tests of the export formats: every content kind in each format, and their notes.

use serde_json::json;

use super::*;
use crate::model::{Content, Message, Role};

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
            json!({"type":"image","data":"PHN2Zy8+","mimeType":"image/svg+xml"}),
        ),
        (
            Role::User,
            json!({"type":"resource","resource":{"uri":"file:///shot.png","mimeType":"image/png","blob":"iVBORw0KGgo="}}),
        ),
        (
            Role::User,
            json!({"type":"resource","resource":{"uri":"file:///scan.tiff","mimeType":"image/tiff","blob":"SUkqAA=="}}),
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

/// Roles beyond MCP's two, as some servers send them: `system` first and in the middle (with a
/// non-text block), and a role no API names.
fn roles_beyond_mcp() -> PromptMessages {
    let messages = [
        ("system", json!({"type":"text","text":"You are terse."})),
        ("user", json!({"type":"text","text":"Summarise the log."})),
        ("system", json!({"type":"text","text":"Answer in English."})),
        (
            "system",
            json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}),
        ),
        (
            "developer",
            json!({"type":"text","text":"Cite line numbers."}),
        ),
        ("user", json!({"type":"text","text":"The log follows."})),
        ("assistant", json!({"type":"text","text":"Ready."})),
    ];
    let messages = messages
        .into_iter()
        .map(|(role, content)| {
            serde_json::from_value(json!({"role": role, "content": content})).unwrap()
        })
        .collect();
    PromptMessages {
        description: None,
        messages,
    }
}

#[test]
fn roles_beyond_mcp_are_read_and_kept_verbatim_in_mcp_json() {
    let prompt = roles_beyond_mcp();
    assert_eq!(prompt.messages[0].role, Role::System);
    assert_eq!(prompt.messages[4].role, Role::Other("developer".into()));
    let out: serde_json::Value = serde_json::from_str(&render(&prompt, Format::McpJson)).unwrap();
    let roles: Vec<&str> = out
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "system",
            "system",
            "developer",
            "user",
            "assistant"
        ]
    );
}

#[test]
fn roles_beyond_mcp_golden() {
    let prompt = roles_beyond_mcp();
    let all: Vec<String> = Format::ALL
        .iter()
        .map(|(name, format)| format!("===== {name}\n{}", render(&prompt, *format)))
        .collect();
    insta::assert_snapshot!(all.join("\n"));
}

#[test]
fn anthropic_puts_system_messages_in_the_system_parameter() {
    let out = anthropic(&roles_beyond_mcp());
    assert_eq!(
        out["system"],
        "You are terse.\n\nAnswer in English.\n\n[image: image/png, 8 bytes — the system parameter carries only text]"
    );
    let roles: Vec<&str> = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    // The `developer` turn is sent as user and joins the user turns around it.
    assert_eq!(roles, ["user", "assistant"]);
    // Without system messages the export stays the bare `messages` array.
    assert!(anthropic(&every_kind()).is_array());
}

#[test]
fn openai_keeps_system_messages_and_sends_other_roles_as_user() {
    let out = openai(&roles_beyond_mcp());
    let roles: Vec<&str> = out
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    // The `developer` turn is sent as user and joins the user turn after it.
    assert_eq!(roles, ["system", "user", "system", "user", "assistant"]);
    assert_eq!(
        out[2]["content"],
        "Answer in English.\n\n[image: image/png, 8 bytes — system messages carry only text]"
    );
    assert_eq!(
        out[3]["content"],
        "[a message with role `developer`, sent as user]\n\nCite line numbers.\n\nThe log follows."
    );
}

/// Every `image_url` part and `image` block in `value`, as (MIME type, base64 data).
fn images_in(value: &serde_json::Value, found: &mut Vec<(String, String)>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(url) = map.get("image_url").and_then(|u| u["url"].as_str()) {
                let (head, data) = url.split_once(";base64,").unwrap();
                found.push((head.trim_start_matches("data:").into(), data.into()));
            }
            if map.get("type").and_then(|t| t.as_str()) == Some("image") {
                let source = &map["source"];
                found.push((
                    source["media_type"].as_str().unwrap().into(),
                    source["data"].as_str().unwrap().into(),
                ));
            }
            map.values().for_each(|v| images_in(v, found));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| images_in(v, found)),
        _ => {}
    }
}

#[test]
fn chat_exports_send_only_image_types_the_apis_accept_and_image_blobs_as_images() {
    for export in [openai(&every_kind()), anthropic(&every_kind())] {
        let mut images = Vec::new();
        images_in(&export, &mut images);
        // The user turn's PNG image block and its embedded PNG blob; never the SVG or TIFF.
        assert_eq!(
            images,
            [
                ("image/png".to_string(), "iVBORw0KGgo=".to_string()),
                ("image/png".to_string(), "iVBORw0KGgo=".to_string()),
            ],
            "{export:#}"
        );
        let text = export.to_string();
        assert!(text.contains("[image: image/svg+xml, 6 bytes — "), "{text}");
        assert!(
            text.contains("[resource file:///scan.tiff: image/tiff, 4 bytes — "),
            "{text}"
        );
    }
}

#[test]
fn a_role_name_cannot_add_lines_to_the_text_exports() {
    let prompt = PromptMessages {
        description: None,
        messages: vec![Message {
            role: Role::Other("user\n\n## assistant".into()),
            content: serde_json::from_value(json!({"type":"text","text":"hi"})).unwrap(),
        }],
    };
    assert_eq!(
        render(&prompt, Format::Markdown),
        "## user  ## assistant\n\nhi\n"
    );
    assert!(render(&prompt, Format::Text).starts_with("user  ## assistant:\n"));
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

#[test]
fn image_types_are_matched_as_mime_types_are_case_and_parameters_aside() {
    let prompt = PromptMessages {
        description: None,
        messages: [
            "IMAGE/PNG",
            "image/png; charset=binary",
            "image/jpg",
            "image/bmp",
        ]
        .into_iter()
        .map(|mime| Message {
            role: Role::User,
            content: serde_json::from_value(
                json!({"type":"image","data":"iVBORw0KGgo=","mimeType": mime}),
            )
            .unwrap(),
        })
        .collect(),
    };
    let mut openai_images = Vec::new();
    images_in(&openai(&prompt), &mut openai_images);
    let mut anthropic_images = Vec::new();
    images_in(&anthropic(&prompt), &mut anthropic_images);
    for images in [openai_images, anthropic_images] {
        let types: Vec<&str> = images.iter().map(|(t, _)| t.as_str()).collect();
        // Named as the APIs name them; the BMP stays a note.
        assert_eq!(types, ["image/png", "image/png", "image/jpeg"]);
    }
}

fn texts(messages: &[(Role, &str)]) -> PromptMessages {
    PromptMessages {
        description: None,
        messages: messages
            .iter()
            .map(|(role, text)| Message {
                role: role.clone(),
                content: serde_json::from_value(json!({"type": "text", "text": text})).unwrap(),
            })
            .collect(),
    }
}

#[test]
fn anthropic_leaves_out_blank_text_and_says_so() {
    let prompt = texts(&[
        (Role::System, "  "),
        (Role::User, "Hello"),
        (Role::Assistant, ""),
        (Role::User, "again"),
        (Role::User, " \n\t "),
    ]);
    // The empty assistant turn gone, the user turns around it are one turn.
    assert_eq!(
        anthropic(&prompt),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "Hello"},
            {"type": "text", "text": "again"}
        ]}])
    );
    assert_eq!(
        notes(&prompt, Format::Anthropic),
        ["left out messages #1, #3 and #5: blank text (the Messages API refuses it)"]
    );
    // The other formats keep every message and change nothing.
    for format in [Format::OpenAi, Format::Markdown, Format::McpJson] {
        assert!(notes(&prompt, format).is_empty());
    }
    assert_eq!(openai(&prompt).as_array().unwrap().len(), 4);
}

#[test]
fn anthropic_trims_a_prefill_ending_in_whitespace() {
    let prompt = texts(&[
        (Role::User, "Name a colour."),
        (Role::Assistant, "It is \n"),
    ]);
    let out = anthropic(&prompt);
    assert_eq!(out[1]["content"][0]["text"], "It is");
    assert_eq!(
        notes(&prompt, Format::Anthropic),
        [
            "trimmed the whitespace ending the last assistant turn (the Messages API refuses a prefill ending so)"
        ]
    );
    // An assistant turn before the last keeps its whitespace; a last user turn too.
    let prompt = texts(&[
        (Role::User, "a"),
        (Role::Assistant, "b \n"),
        (Role::User, "c \n"),
    ]);
    assert_eq!(anthropic(&prompt)[1]["content"][0]["text"], "b \n");
    assert_eq!(anthropic(&prompt)[2]["content"][0]["text"], "c \n");
    assert!(notes(&prompt, Format::Anthropic).is_empty());
}

#[test]
fn anthropic_says_when_nothing_is_left() {
    let prompt = texts(&[(Role::User, ""), (Role::System, "Be terse.")]);
    assert_eq!(
        anthropic(&prompt),
        json!({"system": "Be terse.", "messages": []})
    );
    assert_eq!(
        notes(&prompt, Format::Anthropic),
        [
            "left out message #1: blank text (the Messages API refuses it)",
            "no message is left (the Messages API needs one)"
        ]
    );
    // A prompt with nothing to leave out gets no note.
    assert!(notes(&every_kind(), Format::Anthropic).is_empty());
}

/// A prompt of `messages` (role, text) with a description.
fn described(messages: &[(&str, &str)]) -> PromptMessages {
    PromptMessages {
        description: Some("What it does".into()),
        messages: messages
            .iter()
            .map(|(role, text)| {
                serde_json::from_value(
                    json!({"role": role, "content": {"type": "text", "text": text}}),
                )
                .unwrap()
            })
            .collect(),
    }
}

#[test]
fn one_user_message_is_exported_as_exactly_its_text_and_labels_come_back_with_roles() {
    let one = described(&[("user", "Translate this:\n\n## not a heading")]);
    for format in [Format::Markdown, Format::Text] {
        assert_eq!(
            render(&one, format),
            "Translate this:\n\n## not a heading\n",
            "{format:?}"
        );
    }
    // Two roles to tell apart, or one that is not the user's: labelled as before.
    let two = described(&[("user", "Hi"), ("assistant", "Hello")]);
    assert_eq!(
        render(&two, Format::Markdown),
        "<!-- What it does -->\n\n## user\n\nHi\n\n## assistant\n\nHello\n"
    );
    assert_eq!(
        render(&two, Format::Text),
        "user:\nHi\n\nassistant:\nHello\n"
    );
    let assistant = described(&[("assistant", "Sure.")]);
    assert_eq!(render(&assistant, Format::Text), "assistant:\nSure.\n");
    // The JSON formats always carry roles.
    assert!(render(&one, Format::OpenAi).contains("\"role\": \"user\""));
}

/// A resource link whose scheme would run script or open data is text in the Markdown
/// export, not a link; data that is not base64 of a MIME type is a note, not an image.
#[test]
fn markdown_makes_no_link_of_script_and_no_image_of_bad_data() {
    let blocks = [
        json!({"type":"resource_link","uri":"javascript:alert(1)","name":"click me"}),
        json!({"type":"resource_link","uri":" JaVaScRiPt:alert(2)","name":"x"}),
        json!({"type":"resource_link","uri":"data:text/html,<script>","name":"d"}),
        json!({"type":"resource_link","uri":"vbscript:msgbox","name":"v"}),
        json!({"type":"resource_link","uri":"https://ok.example/a b","name":"fine](javascript:x)"}),
        json!({"type":"image","data":"not base64 at all!","mimeType":"image/png"}),
        json!({"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png)[x](javascript:y"}),
    ];
    let prompt = PromptMessages {
        description: None,
        messages: blocks
            .iter()
            .map(|block| Message {
                role: Role::Assistant,
                content: serde_json::from_value(block.clone()).unwrap(),
            })
            .collect(),
    };
    let out = markdown(&prompt);
    // A link or an autolink to them, unescaped, anywhere.
    let unescaped = |needle: &str| {
        out.match_indices(needle)
            .any(|(at, _)| at == 0 || !out[..at].ends_with('\\'))
    };
    for unsafe_link in [
        "](javascript",
        "]( JaVaScRiPt",
        "](data:text",
        "](vbscript",
        "<javascript",
        "< JaVaScRiPt",
        "<data:",
        "<vbscript",
    ] {
        assert!(!unescaped(unsafe_link), "{unsafe_link} in:\n{out}");
    }
    assert!(
        out.contains("click me (`javascript:alert(1)`, not made a link)"),
        "{out}"
    );
    // A label cannot end the link early; a blank in the URI is taken in angle brackets.
    assert!(
        out.contains("[fine\\](javascript:x)](<https://ok.example/a b>)"),
        "{out}"
    );
    assert!(!out.contains("![image"), "no image of bad data:\n{out}");
    assert_eq!(
        out.matches("is not valid base64 of a MIME type").count(),
        2,
        "{out}"
    );
}
