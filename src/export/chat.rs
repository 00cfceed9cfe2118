//! Chat-API shapes: OpenAI Chat Completions and Anthropic Messages `messages` arrays.
//!
//! MCP sends one content block per message, so a multi-part turn arrives as consecutive
//! messages of the same role; both APIs get them merged back into one turn.

use serde_json::{Value, json};

use crate::mcp::{Content, EmbeddedResource, KnownContent, Message, PromptMessages, Role};

use super::describe;

/// Groups consecutive messages of one role into turns.
fn turns(messages: &[Message]) -> Vec<(Role, Vec<&Content>)> {
    let mut turns: Vec<(Role, Vec<&Content>)> = Vec::new();
    for message in messages {
        match turns.last_mut() {
            Some((role, blocks)) if *role == message.role => blocks.push(&message.content),
            _ => turns.push((message.role, vec![&message.content])),
        }
    }
    turns
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
        Content::Known(KnownContent::ResourceLink {
            description: Some(d),
            ..
        }) => {
            format!("[{}: {d}]", describe(content))
        }
        _ => format!("[{}]", describe(content)),
    }
}

/// OpenAI Chat Completions `messages`. User turns use content parts: `text`, `image_url`
/// (data URI), `input_audio` (wav and mp3 only) and `file` (PDF blobs, as a data URI). Assistant
/// turns may only hold text, so their other blocks become bracketed descriptions. A turn of
/// only text becomes one string.
pub fn openai(prompt: &PromptMessages) -> Value {
    let messages: Vec<Value> = turns(&prompt.messages)
        .into_iter()
        .map(|(role, blocks)| {
            let parts: Vec<Value> = blocks
                .into_iter()
                .map(|block| openai_part(role, block))
                .collect();
            let all_text = parts.iter().all(|p| p["type"] == "text");
            let content = if all_text {
                let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
                Value::String(texts.join("\n\n"))
            } else {
                Value::Array(parts)
            };
            json!({ "role": role.as_str(), "content": content })
        })
        .collect();
    Value::Array(messages)
}

fn openai_part(role: Role, content: &Content) -> Value {
    let text = |t: String| json!({ "type": "text", "text": t });
    let user = role == Role::User;
    match content {
        Content::Known(KnownContent::Text { text: t, .. }) => text(t.clone()),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) if user => json!({
            "type": "image_url",
            "image_url": { "url": format!("data:{mime_type};base64,{data}") }
        }),
        Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) if user => match audio_format(mime_type) {
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
                uri,
                mime_type: Some(mime),
                blob,
                ..
            } if user && mime == "application/pdf" => json!({
                "type": "file",
                "file": {
                    "filename": file_name(uri),
                    "file_data": format!("data:application/pdf;base64,{blob}")
                }
            }),
            EmbeddedResource::Blob { .. } if user => {
                text(placeholder(content, "OpenAI file parts take only PDF"))
            }
            EmbeddedResource::Blob { .. } => {
                text(placeholder(content, "assistant messages carry only text"))
            }
        },
        Content::Known(KnownContent::ResourceLink { .. }) => text(link_text(content)),
        Content::Unknown(_) => text(placeholder(content, "not representable")),
        _ => text(placeholder(content, "assistant messages carry only text")),
    }
}

/// Anthropic Messages `messages`. Text is `text`; images in user turns are base64 `image`
/// blocks (png, jpeg, gif, webp); PDF blobs in user turns are base64 `document` blocks;
/// embedded text is a `text` block headed by its URI. Audio, other blobs and non-text
/// blocks in assistant turns become bracketed descriptions.
pub fn anthropic(prompt: &PromptMessages) -> Value {
    let messages: Vec<Value> = turns(&prompt.messages)
        .into_iter()
        .map(|(role, blocks)| {
            let content: Vec<Value> = blocks
                .into_iter()
                .map(|block| anthropic_block(role, block))
                .collect();
            json!({ "role": role.as_str(), "content": content })
        })
        .collect();
    Value::Array(messages)
}

const ANTHROPIC_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

fn anthropic_block(role: Role, content: &Content) -> Value {
    let text = |t: String| json!({ "type": "text", "text": t });
    let user = role == Role::User;
    match content {
        Content::Known(KnownContent::Text { text: t, .. }) => text(t.clone()),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => {
            if !user {
                text(placeholder(
                    content,
                    "images are only accepted in user turns",
                ))
            } else if ANTHROPIC_IMAGE_TYPES.contains(&mime_type.as_str()) {
                json!({
                    "type": "image",
                    "source": { "type": "base64", "media_type": mime_type, "data": data }
                })
            } else {
                text(placeholder(
                    content,
                    "Anthropic takes png, jpeg, gif and webp images",
                ))
            }
        }
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
                uri,
                ..
            } if user && mime == "application/pdf" => {
                json!({
                    "type": "document",
                    "source": { "type": "base64", "media_type": "application/pdf", "data": blob },
                    "title": file_name(uri)
                })
            }
            EmbeddedResource::Blob { .. } => text(placeholder(
                content,
                "binary resources other than PDF are not accepted",
            )),
        },
        Content::Known(KnownContent::ResourceLink { .. }) => text(link_text(content)),
        Content::Unknown(_) => text(placeholder(content, "not representable")),
    }
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
