//! The export formats.

use serde_json::{Map, Value};

use crate::export::{Format, anthropic, markdown, openai, plain_text, render};
use crate::model::{Content, EmbeddedResource, KnownContent, Message, PromptMessages, Role};

/// Fuzz entry point: the input as a `prompts/get` result in JSON when it is one, else as
/// the bytes [`Builder`] makes messages of; then every export format of them.
pub fn export(data: &[u8]) {
    let prompt = serde_json::from_slice::<PromptMessages>(data)
        .unwrap_or_else(|_| Builder { data }.prompt());
    check_export(&prompt);
}

/// Text that export formats treat specially, for the builder to pick from.
const PIECES: [&str; 40] = [
    "",
    "`",
    "```",
    "````",
    "--",
    "-->",
    "---",
    "--!>",
    "<!--",
    "\n",
    "\r\n",
    "\u{1b}[31m",
    "\u{202e}",
    "\"",
    "\\",
    "{{x}}",
    "## user",
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/svg+xml",
    "audio/wav",
    "audio/mpeg",
    "audio/ogg",
    "application/pdf",
    "text/x-rust",
    "application/json",
    "text/markdown",
    "file:///a/b.pdf",
    "file:///",
    "/",
    "iVBORw0KGgo=",
    "AAE=",
    "type",
    "text",
    "é",
    "字",
    "🙂",
    "\u{0}",
];

/// Makes messages of arbitrary bytes: each byte picks what comes next, and strings are
/// either one of [`PIECES`] or a run of the following bytes. Running out of bytes reads
/// zeros, so every input gives a prompt.
struct Builder<'a> {
    data: &'a [u8],
}

impl Builder<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((first, rest)) => {
                self.data = rest;
                *first
            }
            None => 0,
        }
    }

    fn string(&mut self) -> String {
        let tag = self.byte();
        if tag & 0x80 != 0 {
            return PIECES[usize::from(tag & 0x7f) % PIECES.len()].to_string();
        }
        let len = usize::from(tag % 48).min(self.data.len());
        let (run, rest) = self.data.split_at(len);
        self.data = rest;
        String::from_utf8_lossy(run).into_owned()
    }

    fn maybe_string(&mut self) -> Option<String> {
        (self.byte() % 2 == 1).then(|| self.string())
    }

    /// A JSON value without floats (which need not read back bit for bit) or nulls (which
    /// read back as absent fields).
    fn value(&mut self, depth: u32) -> Value {
        let kind = if depth == 0 {
            self.byte() % 3
        } else {
            self.byte() % 5
        };
        match kind {
            0 => Value::Bool(self.byte() % 2 == 1),
            1 => Value::from(i64::from(self.byte() as i8) * 1_000_003),
            2 => Value::String(self.string()),
            3 => {
                let len = self.byte() % 4;
                Value::Array((0..len).map(|_| self.value(depth - 1)).collect())
            }
            _ => Value::Object(self.object(depth - 1)),
        }
    }

    fn object(&mut self, depth: u32) -> Map<String, Value> {
        let len = self.byte() % 4;
        (0..len)
            .map(|_| (self.string(), self.value(depth)))
            .collect()
    }

    fn extra(&mut self) -> Option<Box<Value>> {
        (self.byte() % 4 == 3).then(|| Box::new(Value::Object(self.object(1))))
    }

    fn content(&mut self) -> Content {
        let known = match self.byte() % 8 {
            0 | 1 => KnownContent::Text {
                text: self.string(),
                annotations: self.extra(),
                meta: self.extra(),
            },
            2 => KnownContent::Image {
                data: self.string(),
                mime_type: self.string(),
                annotations: self.extra(),
                meta: None,
            },
            3 => KnownContent::Audio {
                data: self.string(),
                mime_type: self.string(),
                annotations: None,
                meta: self.extra(),
            },
            4 => KnownContent::Resource {
                resource: EmbeddedResource::Text {
                    uri: self.string(),
                    mime_type: self.maybe_string(),
                    text: self.string(),
                    meta: self.extra(),
                },
                annotations: self.extra(),
                meta: None,
            },
            5 => KnownContent::Resource {
                resource: EmbeddedResource::Blob {
                    uri: self.string(),
                    mime_type: self.maybe_string(),
                    blob: self.string(),
                    meta: None,
                },
                annotations: None,
                meta: self.extra(),
            },
            6 => KnownContent::ResourceLink(Box::new(crate::model::ResourceLink {
                uri: self.string(),
                name: self.string(),
                title: self.maybe_string(),
                description: self.maybe_string(),
                mime_type: self.maybe_string(),
                size: (self.byte() % 2 == 1).then(|| u64::from(self.byte()) << 20),
                icons: self.extra().map(|icon| Box::new(Value::Array(vec![*icon]))),
                annotations: None,
                meta: None,
            })),
            _ => {
                let mut object = self.object(2);
                if self.byte() % 2 == 1 {
                    object.insert("type".into(), Value::String(self.string()));
                }
                return Content::Unknown(Value::Object(object));
            }
        };
        Content::Known(known)
    }

    fn prompt(mut self) -> PromptMessages {
        let description = self.maybe_string();
        let mut messages = Vec::new();
        while !self.data.is_empty() && messages.len() < 64 {
            let role = if self.byte().is_multiple_of(2) {
                Role::User
            } else {
                Role::Assistant
            };
            messages.push(Message {
                role,
                content: self.content(),
            });
        }
        PromptMessages {
            description,
            messages,
        }
    }
}

/// The text of a text block.
fn text_of(content: &Content) -> Option<&str> {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => Some(text),
        _ => None,
    }
}

/// Every promise of the export formats about `prompt`.
pub fn check_export(prompt: &PromptMessages) {
    for (name, format) in Format::ALL {
        let out = render(prompt, format);
        assert!(out.ends_with('\n'), "{name} does not end with a newline");
        let plain = match format {
            Format::Markdown => markdown(prompt),
            Format::Text => plain_text(prompt),
            Format::McpJson => continue,
            Format::OpenAi => serde_json::to_string_pretty(&openai(prompt)).unwrap(),
            Format::Anthropic => serde_json::to_string_pretty(&anthropic(prompt)).unwrap(),
        };
        assert_eq!(out.trim_end_matches('\n'), plain.trim_end_matches('\n'));
    }
    check_mcp_json(prompt);
    check_chat(prompt, &parsed(prompt, Format::OpenAi), true);
    check_chat(prompt, &parsed(prompt, Format::Anthropic), false);
    check_markdown(prompt);
    let text = plain_text(prompt);
    if let [only] = prompt.messages.as_slice()
        && only.role == crate::model::Role::User
    {
        // One user message is pasted as exactly its text: no label, no comment.
        if let Some(t) = text_of(&only.content) {
            let exactly = if t.ends_with('\n') {
                t.to_string()
            } else {
                format!("{t}\n")
            };
            assert_eq!(
                text, exactly,
                "plain text of one user message is not its text"
            );
            assert_eq!(
                markdown(prompt),
                exactly,
                "markdown of one user message is not its text"
            );
        }
        return;
    }
    for message in &prompt.messages {
        assert!(text.contains(&format!("{}:\n", message.role.as_str())));
        if let Some(t) = text_of(&message.content) {
            assert!(text.contains(t), "plain text lost {t:?}");
        }
    }
}

fn parsed(prompt: &PromptMessages, format: Format) -> Value {
    let out = render(prompt, format);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{format:?} is not JSON: {e}\n{out}"))
}

/// Whether `value` holds a float, which `serde_json` need not read back bit for bit.
fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(map) => map.values().any(has_float),
        _ => false,
    }
}

/// MCP JSON is the messages as sent, and reads back as them.
fn check_mcp_json(prompt: &PromptMessages) {
    let value = parsed(prompt, Format::McpJson);
    let sent = serde_json::to_value(&prompt.messages).unwrap();
    if !has_float(&sent) {
        assert_eq!(value, sent);
    }
    let back: Vec<Message> = serde_json::from_value(value)
        .unwrap_or_else(|e| panic!("MCP JSON does not read back: {e}"));
    assert_eq!(back.len(), prompt.messages.len());
    for (back, message) in back.iter().zip(&prompt.messages) {
        assert_eq!(back.role, message.role);
        // A block of an unknown kind may look like a known one once read again.
        if matches!(message.content, Content::Known(_))
            && !has_float(&serde_json::to_value(message).unwrap())
        {
            assert_eq!(back, message);
        }
    }
}

/// OpenAI (`openai` true) and Anthropic `messages`: one turn per run of one role, parts of
/// the kinds the API takes (non-text ones in user turns only), and every text kept.
fn check_chat(prompt: &PromptMessages, value: &Value, openai: bool) {
    // Anthropic leaves out the messages of blank text, which its API refuses.
    let kept;
    let prompt = if openai {
        prompt
    } else {
        kept = PromptMessages {
            description: prompt.description.clone(),
            messages: (prompt.messages.iter())
                .filter(|m| !text_of(&m.content).is_some_and(|t| t.trim().is_empty()))
                .cloned()
                .collect(),
        };
        &kept
    };
    let turns = value.as_array().expect("an array of turns");
    let runs = prompt
        .messages
        .windows(2)
        .filter(|w| w[0].role != w[1].role)
        .count()
        + usize::from(!prompt.messages.is_empty());
    assert_eq!(turns.len(), runs, "one turn per run of one role");
    let mut messages = prompt.messages.iter().peekable();
    for (i, turn) in turns.iter().enumerate() {
        let object = turn.as_object().expect("a turn is an object");
        assert_eq!(object.len(), 2, "a turn has a role and content: {turn}");
        let role = object["role"].as_str().expect("a role");
        assert!(role == "user" || role == "assistant", "role {role}");
        if i > 0 {
            assert_ne!(turns[i - 1]["role"], turn["role"], "two turns of {role}");
        }
        let content = &object["content"];
        let parts: Vec<&Value> = match content {
            Value::String(_) if openai => vec![],
            Value::Array(parts) => parts.iter().collect(),
            other => panic!("content {other}"),
        };
        if openai && role == "assistant" {
            assert!(
                content.is_string(),
                "OpenAI assistant turns are text: {content}"
            );
        }
        for part in &parts {
            let kind = part["type"].as_str().expect("a part type");
            let allowed: &[&str] = match (openai, role) {
                (true, "user") => &["text", "image_url", "input_audio", "file"],
                (false, "user") => &["text", "image", "document"],
                _ => &["text"],
            };
            assert!(allowed.contains(&kind), "{kind} in a {role} turn");
            if !openai && kind == "text" {
                let text = part["text"].as_str().expect("a text part's text");
                assert!(!text.trim().is_empty(), "a blank text block in {turn}");
            }
            let media = match kind {
                "image" => part["source"]["media_type"].as_str(),
                "image_url" => part["image_url"]["url"]
                    .as_str()
                    .and_then(|url| url.strip_prefix("data:"))
                    .and_then(|url| url.split(';').next()),
                _ => None,
            };
            if let Some(media) = media {
                assert!(
                    ["image/png", "image/jpeg", "image/gif", "image/webp"].contains(&media),
                    "{kind} of {media}"
                );
            }
        }
        // This turn's messages: every text is there as written.
        while let Some(message) = messages.next_if(|m| m.role.as_str() == role) {
            let Some(text) = text_of(&message.content) else {
                continue;
            };
            // Anthropic's last assistant turn (a prefill) loses the whitespace it ends in.
            let prefill = !openai && role == "assistant" && i + 1 == turns.len();
            let kept = match content {
                Value::String(all) => all.contains(text),
                _ => parts.iter().any(|p| {
                    p["text"].as_str() == Some(text)
                        || (prefill && p["text"].as_str() == Some(text.trim_end()))
                }),
            };
            assert!(kept, "the text {text:?} is missing from {turn}");
        }
    }
    assert!(messages.next().is_none(), "messages left without a turn");
}

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Markdown: the description stays inside its HTML comment, texts are kept, and a fenced
/// block (embedded text, unknown JSON) cannot be closed early by what it holds.
fn check_markdown(prompt: &PromptMessages) {
    let out = markdown(prompt);
    let lone_user =
        matches!(prompt.messages.as_slice(), [only] if only.role == crate::model::Role::User);
    if prompt.description.is_some() && !lone_user {
        let rest = out
            .strip_prefix("<!-- ")
            .expect("the description comes first, in a comment");
        let (inside, after) = rest.split_once("-->").expect("the comment is closed");
        assert!(
            !inside.contains("--"),
            "the description comment holds `--`: {inside:?}"
        );
        assert!(
            after.starts_with("\n\n"),
            "the description ends its comment early"
        );
    }
    for message in &prompt.messages {
        if let Some(text) = text_of(&message.content) {
            assert!(out.contains(text), "markdown lost {text:?}");
        }
        let fenced = match &message.content {
            Content::Known(KnownContent::Resource {
                resource: EmbeddedResource::Text { text, .. },
                ..
            }) => text.clone(),
            Content::Unknown(value) => serde_json::to_string_pretty(value).unwrap(),
            _ => continue,
        };
        let one = markdown(&PromptMessages {
            description: None,
            messages: vec![message.clone()],
        });
        let fence = one.trim_end_matches('\n').rsplit('\n').next().unwrap_or("");
        assert!(
            fence.len() >= 3 && fence.chars().all(|c| c == '`'),
            "the block does not end with a fence: {one:?}"
        );
        assert!(
            longest_backtick_run(&fenced) < fence.len(),
            "the fence {fence} can be closed by the text {fenced:?}"
        );
    }
}
