//! Chat-API shapes: OpenAI Chat Completions and Anthropic Messages `messages` arrays.
//!
//! MCP sends one content block per message, so a multi-part turn arrives as consecutive
//! messages of the same role; both APIs get them merged back into one turn.

use serde_json::{Value, json};

use crate::model::{Content, EmbeddedResource, KnownContent, Message, PromptMessages, Role};

use super::describe;

/// Who a turn is said by in a chat API: MCP's two roles, `system`, or a role the API has no
/// name for, which is sent as a user turn opened by a note naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Speaker {
    User,
    Assistant,
    System,
    /// A role beyond the API's, kept by name.
    Unnamed(String),
}

impl Speaker {
    fn of(role: &Role) -> Speaker {
        match role {
            Role::User => Speaker::User,
            Role::Assistant => Speaker::Assistant,
            Role::System => Speaker::System,
            Role::Other(name) => Speaker::Unnamed(name.clone()),
        }
    }

    /// The role name the API is sent.
    fn api_role(&self) -> &'static str {
        match self {
            Speaker::Assistant => "assistant",
            Speaker::System => "system",
            Speaker::User | Speaker::Unnamed(_) => "user",
        }
    }

    /// Whether the API takes images, audio and files in this turn (only user turns do).
    fn takes_media(&self) -> bool {
        matches!(self, Speaker::User | Speaker::Unnamed(_))
    }
}

/// Groups consecutive messages of one role into turns.
fn turns<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<(Speaker, Vec<&'a Content>)> {
    let mut turns: Vec<(Speaker, Vec<&Content>)> = Vec::new();
    for message in messages {
        let speaker = Speaker::of(&message.role);
        match turns.last_mut() {
            Some((last, blocks)) if *last == speaker => blocks.push(&message.content),
            _ => turns.push((speaker, vec![&message.content])),
        }
    }
    turns
}

/// The note that opens a turn of a role the API has no name for, so the reader knows who said it.
fn unnamed_role_note(name: &str) -> String {
    format!("[a message with role `{name}`, sent as user]")
}

/// The image MIME types both OpenAI (`image_url`) and Anthropic (`image`) accept.
const CHAT_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The type both APIs name an image of `mime` by, if they take it: MIME types are
/// case-insensitive and may carry parameters (`IMAGE/PNG; charset=binary`), and the common
/// misspelling `image/jpg` is JPEG.
fn api_image_type(mime: &str) -> Option<&'static str> {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let essence = if essence == "image/jpg" {
        "image/jpeg"
    } else {
        essence.as_str()
    };
    CHAT_IMAGE_TYPES.into_iter().find(|t| *t == essence)
}

/// Why an image is not sent as one in a turn that takes media.
fn image_refusal(api: &str) -> String {
    format!("{api} takes png, jpeg, gif and webp images")
}

/// Text that stands in for a block a format cannot carry, so the reader knows it was there.
fn placeholder(content: &Content, why: &str) -> String {
    format!("[{} — {why}]", describe(content))
}

fn embedded_text(uri: &str, mime: Option<&str>, text: &str) -> String {
    let mime = mime.map(|m| format!(" ({m})")).unwrap_or_default();
    format!("Resource {uri}{mime}:\n\n{text}")
}

fn link_text(content: &Content) -> String {
    match content {
        Content::Known(KnownContent::ResourceLink(link)) if link.description.is_some() => {
            let d = link.description.as_deref().unwrap_or_default();
            format!("[{}: {d}]", describe(content))
        }
        _ => format!("[{}]", describe(content)),
    }
}

/// OpenAI Chat Completions `messages`. User turns use content parts: `text`, `image_url`
/// (data URI; png, jpeg, gif and webp, from image blocks and image blobs), `input_audio` (wav
/// and mp3 only) and `file` (PDF blobs, as a data URI). Assistant and `system` turns may only
/// hold text, so their other blocks become bracketed descriptions. A `system` message stays a
/// `system` message; a role OpenAI has no name for becomes a user turn opened by a note naming
/// it. A turn of only text becomes one string.
pub fn openai(prompt: &PromptMessages) -> Value {
    let turns = api_turns(turns(&prompt.messages), openai_part);
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, parts)| {
            let all_text = parts.iter().all(|p| p["type"] == "text");
            let content = if all_text {
                let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                Value::String(texts.join("\n\n"))
            } else {
                Value::Array(parts)
            };
            json!({ "role": role, "content": content })
        })
        .collect();
    Value::Array(messages)
}

/// The turns as the API gets them: each turn's blocks made parts by `part` (a turn of an
/// unnamed role opened by its note), and turns the API gives one role joined into one.
fn api_turns(
    turns: Vec<(Speaker, Vec<&Content>)>,
    part: impl Fn(&Speaker, &Content) -> Value,
) -> Vec<(&'static str, Vec<Value>)> {
    let mut joined: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (speaker, blocks) in turns {
        let mut parts: Vec<Value> = Vec::with_capacity(blocks.len() + 1);
        if let Speaker::Unnamed(name) = &speaker {
            parts.push(json!({ "type": "text", "text": unnamed_role_note(name) }));
        }
        parts.extend(blocks.into_iter().map(|block| part(&speaker, block)));
        match joined.last_mut() {
            Some((role, earlier)) if *role == speaker.api_role() => earlier.extend(parts),
            _ => joined.push((speaker.api_role(), parts)),
        }
    }
    joined
}

fn openai_part(speaker: &Speaker, content: &Content) -> Value {
    let text = |t: String| json!({ "type": "text", "text": t });
    let only_text = || {
        text(placeholder(
            content,
            &format!("{} messages carry only text", speaker.api_role()),
        ))
    };
    let media = speaker.takes_media();
    let image = |mime_type: &str, data: &str| match api_image_type(mime_type) {
        _ if !media => only_text(),
        Some(mime_type) => json!({
            "type": "image_url",
            "image_url": { "url": format!("data:{mime_type};base64,{data}") }
        }),
        None => text(placeholder(content, &image_refusal("OpenAI"))),
    };
    match content {
        Content::Known(KnownContent::Text { text: t, .. }) => text(t.clone()),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => image(mime_type, data),
        Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) if media => match audio_format(mime_type) {
            Some(format) => json!({
                "type": "input_audio",
                "input_audio": { "data": data, "format": format }
            }),
            None => text(placeholder(
                content,
                "OpenAI input_audio takes only wav and mp3",
            )),
        },
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                uri,
                mime_type,
                text: t,
                ..
            } => text(embedded_text(uri, mime_type.as_deref(), t)),
            EmbeddedResource::Blob {
                mime_type: Some(mime),
                blob,
                ..
            } if is_image(mime) => image(mime, blob),
            EmbeddedResource::Blob {
                uri,
                mime_type: Some(mime),
                blob,
                ..
            } if media && mime == "application/pdf" => json!({
                "type": "file",
                "file": {
                    "filename": file_name(uri),
                    "file_data": format!("data:application/pdf;base64,{blob}")
                }
            }),
            EmbeddedResource::Blob { .. } if media => text(placeholder(
                content,
                "OpenAI file parts take only PDF; image parts png, jpeg, gif and webp",
            )),
            EmbeddedResource::Blob { .. } => only_text(),
        },
        Content::Known(KnownContent::ResourceLink(_)) => text(link_text(content)),
        Content::Unknown(_) => text(placeholder(content, "not representable")),
        _ => only_text(),
    }
}

/// Anthropic Messages. Text is `text`; images in user turns are base64 `image` blocks (png,
/// jpeg, gif, webp; from image blocks and image blobs); PDF blobs in user turns are base64
/// `document` blocks; embedded text is a `text` block headed by its URI. Audio, other blobs and
/// non-text blocks in assistant turns become bracketed descriptions.
///
/// Anthropic has no `system` role in `messages`: when the prompt holds `system` messages, the
/// result is the request's two fields, `{"system": TEXT, "messages": [...]}`, with the system
/// messages' text (in order, joined by blank lines) as the `system` parameter. Without them it
/// is the `messages` array alone. A role Anthropic has no name for becomes a user turn opened
/// by a note naming it.
///
/// The API refuses what MCP allows, so the export leaves it out and [`anthropic_notes`] says
/// so: a message whose text is empty or only whitespace is left out (the turns beside it
/// join when they are of one role), and a last assistant turn (a prefill) loses the
/// whitespace it ends in.
pub fn anthropic(prompt: &PromptMessages) -> Value {
    anthropic_with_notes(prompt).0
}

/// What [`anthropic`] changed so that the Messages API takes the export, one sentence each
/// (none when it changed nothing).
pub fn anthropic_notes(prompt: &PromptMessages) -> Vec<String> {
    anthropic_with_notes(prompt).1
}

/// Whether a message is text with nothing but whitespace in it (the Messages API refuses
/// such a block).
fn is_blank_text(message: &Message) -> bool {
    matches!(&message.content, Content::Known(KnownContent::Text { text, .. }) if text.trim().is_empty())
}

/// `#2`, `#2 and #5`, `#2, #5 and #7`: the review screen's message numbers.
fn numbered(numbers: &[usize]) -> String {
    let shown: Vec<String> = numbers.iter().map(|n| format!("#{n}")).collect();
    match shown.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn anthropic_with_notes(prompt: &PromptMessages) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let blank: Vec<usize> = (prompt.messages.iter().enumerate())
        .filter(|(_, m)| is_blank_text(m))
        .map(|(i, _)| i + 1)
        .collect();
    if !blank.is_empty() {
        let which = if blank.len() == 1 {
            "message"
        } else {
            "messages"
        };
        notes.push(format!(
            "left out {which} {}: blank text (the Messages API refuses it)",
            numbered(&blank)
        ));
    }
    let kept = prompt.messages.iter().filter(|m| !is_blank_text(m));
    let (system, conversation): (Vec<&Message>, Vec<&Message>) =
        kept.partition(|m| m.role == Role::System);
    // A turn of an unnamed role joins the user turn beside it.
    let mut turns = api_turns(turns(conversation), anthropic_block);
    // A last assistant turn is a prefill, which the API refuses when it ends in whitespace.
    if let Some(("assistant", blocks)) = turns.last_mut().map(|(r, b)| (*r, b))
        && let Some(Value::Object(block)) = blocks.last_mut()
        && block.get("type").and_then(Value::as_str) == Some("text")
        && let Some(Value::String(text)) = block.get_mut("text")
        && text.len() != text.trim_end().len()
    {
        text.truncate(text.trim_end().len());
        notes.push(
            "trimmed the whitespace ending the last assistant turn (the Messages API refuses a prefill ending so)"
                .to_string(),
        );
    }
    if turns.is_empty() && !prompt.messages.is_empty() {
        notes.push("no message is left (the Messages API needs one)".to_string());
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({ "role": role, "content": content }))
        .collect();
    if system.is_empty() {
        return (Value::Array(messages), notes);
    }
    let texts: Vec<String> = system
        .iter()
        .map(|m| match anthropic_block(&Speaker::System, &m.content) {
            Value::Object(mut block) => match block.remove("text") {
                Some(Value::String(text)) => text,
                _ => placeholder(&m.content, "the system parameter carries only text"),
            },
            _ => placeholder(&m.content, "the system parameter carries only text"),
        })
        .collect();
    (
        json!({ "system": texts.join("\n\n"), "messages": messages }),
        notes,
    )
}

fn anthropic_block(speaker: &Speaker, content: &Content) -> Value {
    let text = |t: String| json!({ "type": "text", "text": t });
    let media = speaker.takes_media();
    let image = |mime_type: &str, data: &str| match api_image_type(mime_type) {
        _ if *speaker == Speaker::System => text(placeholder(
            content,
            "the system parameter carries only text",
        )),
        _ if !media => text(placeholder(
            content,
            "images are only accepted in user turns",
        )),
        Some(mime_type) => json!({
            "type": "image",
            "source": { "type": "base64", "media_type": mime_type, "data": data }
        }),
        None => text(placeholder(content, &image_refusal("Anthropic"))),
    };
    match content {
        Content::Known(KnownContent::Text { text: t, .. }) => text(t.clone()),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => image(mime_type, data),
        Content::Known(KnownContent::Audio { .. }) => text(placeholder(
            content,
            "Anthropic Messages has no audio input",
        )),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                uri,
                mime_type,
                text: t,
                ..
            } => text(embedded_text(uri, mime_type.as_deref(), t)),
            EmbeddedResource::Blob {
                mime_type: Some(mime),
                blob,
                ..
            } if is_image(mime) => image(mime, blob),
            EmbeddedResource::Blob {
                mime_type: Some(mime),
                blob,
                uri,
                ..
            } if media && mime == "application/pdf" => {
                json!({
                    "type": "document",
                    "source": { "type": "base64", "media_type": "application/pdf", "data": blob },
                    "title": file_name(uri)
                })
            }
            EmbeddedResource::Blob { .. } if media => text(placeholder(
                content,
                "binary resources other than PDF and png, jpeg, gif or webp images are not accepted",
            )),
            EmbeddedResource::Blob { .. } => text(placeholder(
                content,
                &format!("{} turns carry no files", speaker.api_role()),
            )),
        },
        Content::Known(KnownContent::ResourceLink(_)) => text(link_text(content)),
        Content::Unknown(_) => text(placeholder(content, "not representable")),
    }
}

/// Whether a MIME type names an image (`image/…`, parameters ignored).
fn is_image(mime: &str) -> bool {
    mime.trim_start()
        .get(..6)
        .is_some_and(|head| head.eq_ignore_ascii_case("image/"))
}

fn audio_format(mime: &str) -> Option<&'static str> {
    match mime {
        "audio/wav" | "audio/x-wav" | "audio/wave" => Some("wav"),
        "audio/mpeg" | "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

fn file_name(uri: &str) -> String {
    uri.rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or(uri)
        .to_string()
}
