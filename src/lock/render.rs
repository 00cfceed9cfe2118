//! Rendered messages as the plain text a lockfile keeps (`--with-output`) and `check`
//! diffs: each message under its role, binary content named by its digest, not carried.

use crate::model::{Content, EmbeddedResource, KnownContent, PromptMessages};

/// `messages` as text: `[role]` on a line, then the block; blocks apart by a blank line.
/// Text is kept as it is; images, audio and blobs are named with their type and digest.
pub fn messages_text(messages: &PromptMessages) -> String {
    let mut out = String::new();
    for (index, message) in messages.messages.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(&format!("[{}]\n", message.role.as_str()));
        out.push_str(&block_text(&message.content));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// One content block as text.
fn block_text(content: &Content) -> String {
    let binary = |kind: &str, mime: &str, data: &str| {
        format!(
            "({kind} {mime}, {})\n",
            super::digest::sha256(data.as_bytes())
        )
    };
    match content {
        Content::Known(KnownContent::Text { text, .. }) => text.clone(),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => binary("image", mime_type, data),
        Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) => binary("audio", mime_type, data),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text { uri, text, .. } => format!("(resource {uri})\n{text}"),
            EmbeddedResource::Blob {
                uri,
                mime_type,
                blob,
                ..
            } => binary(
                &format!("resource {uri}"),
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                blob,
            ),
        },
        Content::Known(KnownContent::ResourceLink(link)) => {
            format!("(resource link {} {})\n", link.uri, link.name)
        }
        Content::Unknown(value) => format!("{value}\n"),
    }
}
