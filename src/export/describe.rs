//! A block that is not text, told in one line (`image: image/png, 68 bytes`): what every
//! format writes in its place.

use crate::model::{Content, EmbeddedResource, KnownContent};
use crate::text::counted;

/// The size in bytes that a base64 string decodes to (padding and whitespace ignored).
pub fn decoded_len(base64: &str) -> usize {
    let symbols = base64
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    // Every 4 symbols carry 3 bytes; a tail of 2 or 3 symbols carries 1 or 2.
    (symbols / 4) * 3 + (symbols % 4).saturating_sub(1)
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
        Content::Known(KnownContent::ResourceLink(link)) => {
            let crate::model::ResourceLink {
                uri,
                name,
                mime_type,
                size,
                ..
            } = &**link;
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
