//! Markdown and plain text.

use crate::mcp::{Content, EmbeddedResource, KnownContent, PromptMessages};

use super::describe;

/// Markdown: a `## role` heading per message; text as is; images as data-URI images;
/// audio and blobs as data-URI links; embedded text in a fence; links as links. One user
/// message is its block alone, with no heading and no description comment.
pub fn markdown(prompt: &PromptMessages) -> String {
    let mut out = String::new();
    if let Some(only) = lone_user_message(prompt) {
        out.push_str(&markdown_block(&only.content));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        return out;
    }
    if let Some(description) = &prompt.description {
        // No `--` inside the comment, so nothing in it can close it (`-->`, `--!>`).
        let mut safe = String::with_capacity(description.len());
        for c in description.chars() {
            if c == '-' && safe.ends_with('-') {
                safe.push(' ');
            }
            safe.push(c);
        }
        out.push_str(&format!("<!-- {safe} -->\n\n"));
    }
    for (i, message) in prompt.messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("## {}\n\n", role_label(&message.role)));
        out.push_str(&markdown_block(&message.content));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn markdown_block(content: &Content) -> String {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => text.clone(),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => {
            format!("![{}](data:{mime_type};base64,{data})", describe(content))
        }
        Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) => {
            format!("[{}](data:{mime_type};base64,{data})", describe(content))
        }
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                text, mime_type, ..
            } => {
                let fence = fence_for(text);
                let lang = mime_type.as_deref().map(fence_language).unwrap_or("");
                format!(
                    "**{}**\n\n{fence}{lang}\n{text}\n{fence}",
                    describe(content)
                )
            }
            EmbeddedResource::Blob {
                blob, mime_type, ..
            } => format!(
                "[{}](data:{};base64,{blob})",
                describe(content),
                mime_type.as_deref().unwrap_or("application/octet-stream")
            ),
        },
        Content::Known(KnownContent::ResourceLink {
            uri,
            name,
            title,
            description,
            ..
        }) => {
            let label = title.as_deref().unwrap_or(name);
            let mut out = format!("[{label}]({uri})");
            if let Some(description) = description {
                out.push_str(&format!(": {description}"));
            }
            out.push_str(&format!("\n\n_{}_", describe(content)));
            out
        }
        Content::Unknown(value) => {
            let json = serde_json::to_string_pretty(value).unwrap_or_default();
            let fence = fence_for(&json);
            format!("**{}**\n\n{fence}json\n{json}\n{fence}", describe(content))
        }
    }
}

/// A backtick fence longer than any backtick run inside `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

fn fence_language(mime: &str) -> &str {
    match mime {
        "text/x-rust" => "rust",
        "text/x-python" | "text/x-script.python" => "python",
        "application/json" => "json",
        "text/markdown" => "markdown",
        "text/html" => "html",
        "application/javascript" | "text/javascript" => "javascript",
        "application/typescript" | "text/x-typescript" => "typescript",
        "text/x-toml" | "application/toml" => "toml",
        "application/yaml" | "text/yaml" => "yaml",
        _ => "",
    }
}

/// Plain text: `user:` / `assistant:` labels; text as is; other blocks as a bracketed
/// description (embedded text follows its description). One user message is its text
/// alone, with no label.
pub fn plain_text(prompt: &PromptMessages) -> String {
    let mut out = String::new();
    let labelled = lone_user_message(prompt).is_none();
    for (i, message) in prompt.messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if labelled {
            out.push_str(&format!("{}:\n", role_label(&message.role)));
        }
        let body = match &message.content {
            Content::Known(KnownContent::Text { text, .. }) => text.clone(),
            Content::Known(KnownContent::Resource {
                resource: EmbeddedResource::Text { text, .. },
                ..
            }) => format!("[{}]\n{text}", describe(&message.content)),
            other => format!("[{}]", describe(other)),
        };
        out.push_str(&body);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The only message, when there is one and the user says it: what is pasted is then exactly
/// its text, as a model's input box takes it. Labels are for telling roles apart.
fn lone_user_message(prompt: &PromptMessages) -> Option<&crate::mcp::Message> {
    match prompt.messages.as_slice() {
        [only] if only.role == crate::mcp::Role::User => Some(only),
        _ => None,
    }
}

/// A role as a one-line label: a server's own role name cannot add lines (and so fake a
/// heading or another message) to the export.
fn role_label(role: &crate::mcp::Role) -> String {
    role.as_str().replace(['\r', '\n'], " ")
}
