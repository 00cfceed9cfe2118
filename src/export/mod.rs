//! Export formats: pure functions from messages to text, shared by the CLI and the TUI.

mod chat;
pub mod clipboard;
mod describe;
mod losses;
mod markdown;
pub mod sink;

use std::str::FromStr;

use crate::model::PromptMessages;

pub use chat::{anthropic, anthropic_notes, openai};
pub use describe::{decoded_len, describe};
pub use losses::losses;
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

/// The bytes a base64 string holds, whitespace anywhere in it ignored (servers wrap it).
pub fn decode_base64(base64: &str) -> Result<Vec<u8>, base64::DecodeError> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(base64.split_whitespace().collect::<String>())
}

#[cfg(test)]
mod tests;
