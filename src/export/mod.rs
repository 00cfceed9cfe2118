//! Export formats: pure functions from messages to text, shared by the CLI and the TUI.

mod chat;
pub mod clipboard;
mod markdown;
pub mod sink;

use std::str::FromStr;

use crate::mcp::{Content, EmbeddedResource, KnownContent, PromptMessages};
use crate::text::counted;

pub use chat::{anthropic, anthropic_notes, openai};
pub use markdown::{markdown, plain_text};

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Markdown with one heading per message.
    Markdown,
    /// Plain text with role labels.
    Text,
    /// The MCP `PromptMessage` list as JSON.
    McpJson,
    /// OpenAI Chat Completions `messages`.
    OpenAi,
    /// Anthropic Messages `messages`.
    Anthropic,
}

impl Format {
    /// Every format with its CLI name.
    pub const ALL: [(&'static str, Format); 5] = [
        ("markdown", Format::Markdown),
        ("text", Format::Text),
        ("mcp-json", Format::McpJson),
        ("openai", Format::OpenAi),
        ("anthropic", Format::Anthropic),
    ];

    /// The CLI name (`--format NAME`).
    pub fn name(self) -> &'static str {
        Format::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
            .ok_or_else(|| {
                let names: Vec<_> = Format::ALL.iter().map(|(n, _)| *n).collect();
                format!("unknown format `{name}` (use one of: {})", names.join(", "))
            })
    }
}

/// Renders `prompt` in `format`. JSON formats are pretty-printed; every output ends with a newline.
pub fn render(prompt: &PromptMessages, format: Format) -> String {
    let mut out = match format {
        Format::Markdown => markdown(prompt),
        Format::Text => plain_text(prompt),
        Format::McpJson => pretty(&serde_json::to_value(&prompt.messages).unwrap_or_default()),
        Format::OpenAi => pretty(&openai(prompt)),
        Format::Anthropic => pretty(&anthropic(prompt)),
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// What [`render`] changed in `format` so that its API takes the export, one sentence each,
/// for the user to be told (on stderr, or as a notice): none for most prompts and formats.
pub fn notes(prompt: &PromptMessages, format: Format) -> Vec<String> {
    match format {
        Format::Anthropic => anthropic_notes(prompt),
        _ => Vec::new(),
    }
}

/// [`notes`], each headed by its format (`anthropic export: …`), as stderr tells them.
pub fn labelled_notes(prompt: &PromptMessages, format: Format) -> Vec<String> {
    notes(prompt, format)
        .into_iter()
        .map(|note| format!("{} export: {note}", format.name()))
        .collect()
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The size in bytes that a base64 string decodes to (padding and whitespace ignored).
pub fn decoded_len(base64: &str) -> usize {
    let symbols = base64
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    // Every 4 symbols carry 3 bytes; a tail of 2 or 3 symbols carries 1 or 2.
    (symbols / 4) * 3 + (symbols % 4).saturating_sub(1)
}

/// The bytes a base64 string holds, whitespace anywhere in it ignored (servers wrap it).
pub fn decode_base64(base64: &str) -> Result<Vec<u8>, base64::DecodeError> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(base64.split_whitespace().collect::<String>())
}

/// `1 byte`, `2 bytes`.
fn bytes(count: usize) -> String {
    counted(count, "byte", "bytes")
}

/// A one-line, human description of a non-text block, e.g. `image: image/png, 68 bytes`.
pub fn describe(content: &Content) -> String {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => {
            format!("text, {}", counted(text.chars().count(), "char", "chars"))
        }
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => {
            format!("image: {mime_type}, {}", bytes(decoded_len(data)))
        }
        Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) => {
            format!("audio: {mime_type}, {}", bytes(decoded_len(data)))
        }
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text { uri, mime_type, .. } => {
                format!("resource {uri}{}", mime_suffix(mime_type.as_deref()))
            }
            EmbeddedResource::Blob {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "resource {uri}: {}, {}",
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                bytes(decoded_len(blob))
            ),
        },
        Content::Known(KnownContent::ResourceLink {
            uri,
            name,
            mime_type,
            size,
            ..
        }) => {
            let mut out = format!("resource link {name} <{uri}>");
            match (mime_type, size) {
                (Some(m), Some(s)) => out.push_str(&format!(" ({m}, {})", bytes(*s as usize))),
                (Some(m), None) => out.push_str(&format!(" ({m})")),
                (None, Some(s)) => out.push_str(&format!(" ({})", bytes(*s as usize))),
                (None, None) => {}
            }
            out
        }
        Content::Unknown(_) => format!("unknown content type `{}`", content.kind()),
    }
}

fn mime_suffix(mime: Option<&str>) -> String {
    mime.map(|m| format!(" ({m})")).unwrap_or_default()
}

#[cfg(test)]
mod tests;
