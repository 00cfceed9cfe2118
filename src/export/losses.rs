//! What each export format loses or changes of a message list, one sentence each: what
//! `mcpick test` tells a server's author ("anthropic: left out message #2: blank text").

use serde_json::Value;

use crate::model::{Content, EmbeddedResource, KnownContent, Message, PromptMessages, Role};

use super::{Format, anthropic, anthropic_notes, decode_base64, openai};

/// What `format` drops or changes of `prompt`'s messages, by message number (`#1` first);
/// empty when it carries them whole. MCP JSON carries everything as sent.
pub fn losses(prompt: &PromptMessages, format: Format) -> Vec<String> {
    let numbered = prompt.messages.iter().enumerate().map(|(i, m)| (i + 1, m));
    match format {
        Format::McpJson => Vec::new(),
        Format::Markdown | Format::Text => numbered
            .filter_map(|(n, m)| document_loss(m, format).map(|why| format!("#{n}: {why}")))
            .collect(),
        Format::OpenAi => numbered
            .flat_map(|(n, m)| chat_losses(n, m, format))
            .collect(),
        Format::Anthropic => {
            let mut out = anthropic_notes(prompt);
            out.extend(numbered.flat_map(|(n, m)| chat_losses(n, m, format)));
            out
        }
    }
}

/// What Markdown or plain text makes of one block that is not text.
fn document_loss(message: &Message, format: Format) -> Option<String> {
    let binary = |data: &str, what: &str| match (format, decode_base64(data)) {
        (_, Err(_)) => Some(format!("{what} left out: its data is not valid base64")),
        (Format::Text, Ok(_)) => Some(format!("{what} told in words, its bytes left out")),
        _ => None,
    };
    match &message.content {
        Content::Known(KnownContent::Text { .. }) => None,
        Content::Known(KnownContent::Image { data, .. }) => binary(data, "image"),
        Content::Known(KnownContent::Audio { data, .. }) => binary(data, "audio"),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text { .. } => None,
            EmbeddedResource::Blob { blob, .. } => binary(blob, "binary resource"),
        },
        Content::Known(KnownContent::ResourceLink(_)) => None,
        Content::Unknown(_) => Some(format!(
            "unknown content type `{}` told in words only",
            message.content.kind()
        )),
    }
}

/// What a chat API's export makes of message `number`: its role renamed, or a block that
/// is not text sent as a bracketed text placeholder (the placeholder names why).
fn chat_losses(number: usize, message: &Message, format: Format) -> Vec<String> {
    let mut out = Vec::new();
    match (&message.role, format) {
        (Role::Other(name), _) => out.push(format!(
            "#{number}: role `{}` sent as user",
            crate::text::one_line(name)
        )),
        (Role::System, Format::Anthropic) => out.push(format!(
            "#{number}: role system moved to the `system` parameter (text only)"
        )),
        _ => {}
    }
    let alone = PromptMessages {
        description: None,
        messages: vec![message.clone()],
    };
    let rendered = match format {
        Format::OpenAi => openai(&alone),
        _ => anthropic(&alone),
    };
    // Only the API's media parts carry bytes; every other part is text.
    let wire = rendered.to_string();
    let texts_only = ["image", "image_url", "input_audio", "file", "document"]
        .iter()
        .all(|kind| !wire.contains(&format!("\"type\":\"{kind}\"")));
    let carried_as_text = matches!(
        &message.content,
        Content::Known(KnownContent::Text { .. })
            | Content::Known(KnownContent::ResourceLink(_))
            | Content::Known(KnownContent::Resource {
                resource: EmbeddedResource::Text { .. },
                ..
            })
    );
    if !carried_as_text && texts_only {
        let placeholder = last_placeholder(&rendered).unwrap_or_default();
        out.push(format!(
            "#{number} ({}): sent as text {}",
            message.role.as_str(),
            crate::text::one_line(&placeholder)
        ));
    }
    out
}

/// The last bracketed text of a rendered chat export (a placeholder follows a role
/// note, if any).
fn last_placeholder(rendered: &Value) -> Option<String> {
    let mut texts = Vec::new();
    collect_texts(rendered, &mut texts);
    texts.pop()
}

fn collect_texts(value: &Value, out: &mut Vec<String>) {
    match value {
        // A turn of only text is one string, its parts joined by blank lines.
        Value::String(text) => out.extend(
            text.split("\n\n")
                .filter(|part| part.starts_with('['))
                .map(str::to_string),
        ),
        Value::Array(items) => items.iter().for_each(|item| collect_texts(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| collect_texts(item, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(list: Value) -> PromptMessages {
        serde_json::from_value(json!({ "messages": list })).unwrap()
    }

    #[test]
    fn each_format_says_what_it_loses() {
        let prompt = messages(json!([
            {"role": "user", "content": {"type": "text", "text": "hello"}},
            {"role": "user", "content": {"type": "text", "text": "  "}},
            {"role": "assistant", "content": {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}},
            {"role": "user", "content": {"type": "image", "data": "not base64!", "mimeType": "image/png"}},
            {"role": "narrator", "content": {"type": "future", "x": 1}},
        ]));
        assert!(losses(&prompt, Format::McpJson).is_empty());
        let anthropic = losses(&prompt, Format::Anthropic);
        assert_eq!(
            anthropic[0],
            "left out message #2: blank text (the Messages API refuses it)"
        );
        assert!(
            anthropic.iter().any(|l| l
                .starts_with("#3 (assistant): sent as text [audio: audio/wav, 4 bytes")
                && l.contains("no audio")),
            "{anthropic:?}"
        );
        let openai = losses(&prompt, Format::OpenAi);
        assert!(
            openai
                .iter()
                .any(|l| l.starts_with("#3 (assistant): sent as text [audio")
                    && l.contains("assistant messages carry only text")),
            "{openai:?}"
        );
        assert!(openai.contains(&"#5: role `narrator` sent as user".to_string()));
        assert!(
            openai.iter().any(
                |l| l.starts_with("#5 (narrator): sent as text [unknown content type `future`")
            )
        );
        // A valid image in a user turn is carried, so only #4's bad bytes are not sent as one.
        let markdown = losses(&prompt, Format::Markdown);
        assert_eq!(
            markdown,
            [
                "#4: image left out: its data is not valid base64",
                "#5: unknown content type `future` told in words only"
            ]
        );
        let text = losses(&prompt, Format::Text);
        assert_eq!(text[0], "#3: audio told in words, its bytes left out");
    }

    #[test]
    fn plain_text_prompts_lose_nothing() {
        let prompt = messages(json!([
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "assistant", "content": {"type": "text", "text": "there"}},
        ]));
        for (_, format) in Format::ALL {
            assert!(losses(&prompt, format).is_empty(), "{}", format.name());
        }
    }
}
