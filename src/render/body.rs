//! A content block's body as text rows: what the review shows of text, and the one-line
//! description of an image, an audio clip, an embedded resource or a link (its size, its
//! header's facts, the keys that act on it). Pure; the review and the layout both draw it.

use base64::Engine;
use image::ImageReader;
use std::io::Cursor;

use crate::export::{decoded_len, describe};
use crate::model::{Content, EmbeddedResource, KnownContent};

/// The base64 characters read for the caption's pixel size (headers sit at the start).
const HEADER_PREFIX_CHARS: usize = 64 * 1024;
/// The image a block carries: its base64 data and MIME type (image blocks, and embedded
/// blob resources with an `image/…` type).
pub fn image_of(content: &Content) -> Option<(&str, &str)> {
    match content {
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => Some((data, mime_type)),
        Content::Known(KnownContent::Resource {
            resource:
                EmbeddedResource::Blob {
                    blob,
                    mime_type: Some(mime),
                    ..
                },
            ..
        }) if mime.to_ascii_lowercase().starts_with("image/") => Some((blob, mime)),
        _ => None,
    }
}

/// The width and height in pixels an image's header says, read from the start of its
/// base64 data only (cheap whatever the image's size); `None` when it does not tell.
pub fn header_size(data: &str) -> Option<(u32, u32)> {
    let mut prefix: String = data
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .take(HEADER_PREFIX_CHARS)
        .collect();
    prefix.truncate(prefix.len() / 4 * 4);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(prefix.trim_end_matches('='))
        .or_else(|_| base64::engine::general_purpose::STANDARD.decode(&prefix))
        .ok()?;
    ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

/// The body of a block as display lines (sanitized); non-text blocks are described.
pub fn body_lines(content: &Content) -> Box<dyn Iterator<Item = String> + '_> {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => {
            if text.is_empty() {
                Box::new(std::iter::once("(empty)".to_string()))
            } else {
                Box::new(text.lines().map(crate::render::shown))
            }
        }
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => Box::new(std::iter::once(image_caption(mime_type, data))),
        Content::Known(KnownContent::Audio { data, .. }) => Box::new(std::iter::once(format!(
            "{}{} — P plays, w saves the bytes",
            crate::text::one_line(&describe(content)),
            audio_facts(data)
        ))),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                uri,
                mime_type,
                text,
                ..
            } => Box::new(
                std::iter::once(format!(
                    "resource {} ({}) — e edits the text, w saves it",
                    crate::text::one_line(uri),
                    crate::text::one_line(mime_type.as_deref().unwrap_or("no MIME type"))
                ))
                .chain(text.lines().map(crate::render::shown)),
            ),
            EmbeddedResource::Blob {
                uri,
                mime_type: Some(mime),
                blob,
                ..
            } if image_of(content).is_some() => Box::new(std::iter::once(format!(
                "resource {} · {}",
                crate::text::one_line(uri),
                image_caption(mime, blob)
            ))),
            EmbeddedResource::Blob {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let audio = is_audio(content);
                Box::new(std::iter::once(format!(
                    "resource {} ({}, {}){} — {}w saves the bytes",
                    crate::text::one_line(uri),
                    crate::text::one_line(
                        mime_type.as_deref().unwrap_or("application/octet-stream")
                    ),
                    crate::text::counted(decoded_len(blob), "byte", "bytes"),
                    if audio {
                        audio_facts(blob)
                    } else {
                        String::new()
                    },
                    if audio { "P plays, " } else { "" }
                )))
            }
        },
        Content::Known(KnownContent::ResourceLink(link)) => {
            let crate::model::ResourceLink {
                uri,
                name,
                title,
                description,
                mime_type,
                size,
                ..
            } = &**link;
            let mut lines = vec![format!(
                "link {} <{}>",
                crate::text::one_line(title.as_deref().unwrap_or(name)),
                crate::text::one_line(uri)
            )];
            if let Some(d) = description {
                lines.push(crate::text::one_line(d));
            }
            let mut facts = vec![format!("name {}", crate::text::one_line(name))];
            if let Some(m) = mime_type {
                facts.push(crate::text::one_line(m));
            }
            if let Some(s) = size {
                facts.push(crate::text::counted(*s as usize, "byte", "bytes"));
            }
            lines.push(format!("{} — o fetches and embeds it", facts.join(", ")));
            Box::new(lines.into_iter())
        }
        Content::Unknown(value) => {
            let json = value.to_string();
            let shown: String = json.chars().take(400).collect();
            Box::new(
                [
                    format!(
                        "{} — kept as sent, exported as is",
                        crate::text::one_line(&describe(content))
                    ),
                    crate::text::one_line(&shown),
                ]
                .into_iter(),
            )
        }
    }
}

/// Whether a block is audio: an audio block, or an embedded blob with an `audio/` type.
pub fn is_audio(content: &Content) -> bool {
    match content {
        Content::Known(KnownContent::Audio { .. }) => true,
        Content::Known(KnownContent::Resource {
            resource: EmbeddedResource::Blob { mime_type, .. },
            ..
        }) => mime_type.as_deref().is_some_and(|m| {
            m.get(..6)
                .is_some_and(|head| head.eq_ignore_ascii_case("audio/"))
        }),
        _ => false,
    }
}

/// Audio larger than this (decoded) is described by its MIME type and size only: its
/// header is not decoded on every layout.
const AUDIO_PROBE_BYTES: usize = 16 * 1024 * 1024;

/// ` · WAV PCM 16-bit · 44.1 kHz stereo · 2.5 s` from the header of base64 `data`, or
/// nothing when it tells nothing.
fn audio_facts(data: &str) -> String {
    if decoded_len(data) > AUDIO_PROBE_BYTES {
        return String::new();
    }
    let Ok(bytes) = crate::export::decode_base64(data) else {
        return " · damaged base64".to_string();
    };
    crate::audio::probe(&bytes).map_or(String::new(), |info| {
        format!(" · {}", crate::text::one_line(&info.summary()))
    })
}

/// An image's caption: `image/png · 640×480 px · 8 KiB — w saves the bytes` (the pixel
/// size from its header, when it tells).
fn image_caption(mime: &str, data: &str) -> String {
    let size = header_size(data)
        .map(|(w, h)| format!(" · {w}×{h} px"))
        .unwrap_or_default();
    format!(
        "{}{size} · {} — w saves the bytes",
        crate::text::one_line(mime),
        crate::text::counted(decoded_len(data), "byte", "bytes")
    )
}

/// The rows of a block's body at `width` columns, wrapped.
pub fn body_rows(content: &Content, width: usize) -> impl Iterator<Item = String> + '_ {
    body_lines(content).flat_map(move |line| crate::text::wrap(&line, width))
}
