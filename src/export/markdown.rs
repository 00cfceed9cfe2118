//! Markdown and plain text.

use crate::model::{Content, EmbeddedResource, KnownContent, PromptMessages};

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

/// A `data:` URI of `data` as `mime_type`, when both are what they claim: a MIME type
/// (`type/subtype`, no blank or bracket) and base64 that decodes. Server text that is not
/// would break out of the Markdown link, or export as an image what no viewer can show.
fn data_uri(mime_type: &str, data: &str) -> Option<String> {
    use base64::Engine as _;
    let token = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c))
    };
    let mime_ok = mime_type
        .split_once('/')
        .is_some_and(|(t, s)| token(t) && token(s));
    let data_ok = base64::engine::general_purpose::STANDARD
        .decode(data)
        .is_ok();
    (mime_ok && data_ok).then(|| format!("data:{mime_type};base64,{data}"))
}

/// What stands in the export for data that is not what it claims (see [`data_uri`]).
fn bad_data_note(content: &Content) -> String {
    format!(
        "_({}: the server's data is not valid base64 of a MIME type, so it is left out)_",
        described(content)
    )
}

/// Schemes a link in the export is never made of: a click would run script or open data.
const UNSAFE_LINK_SCHEMES: [&str; 3] = ["javascript", "data", "vbscript"];

/// Whether `uri` starts with a scheme a link is never made of (any case, blanks and
/// controls ignored, as browsers read it).
fn unsafe_scheme(uri: &str) -> bool {
    let squeezed: String = uri
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    UNSAFE_LINK_SCHEMES
        .iter()
        .any(|scheme| squeezed.starts_with(&format!("{scheme}:")))
}

/// A resource link's URI as a Markdown link destination, when it may be one: no unsafe
/// scheme (any case, blanks and controls ignored, as browsers read it) and nothing that
/// would end the destination (`<`, `>`, a line break).
fn link_destination(uri: &str) -> Option<String> {
    let breaks_out = uri.contains(['<', '>', '\n', '\r']);
    if unsafe_scheme(uri) || breaks_out {
        return None;
    }
    // Plain where nothing in it could end it early; in angle brackets where a blank or a
    // parenthesis would.
    let plain = !uri
        .chars()
        .any(|c| c.is_whitespace() || c == '(' || c == ')');
    Some(if plain {
        uri.to_string()
    } else {
        format!("<{uri}>")
    })
}

/// [`describe`] as Markdown text: what it quotes of the server (a name, a URI, a MIME
/// type) can make no link or autolink (`[…](…)`, `<scheme:…>`).
fn described(content: &Content) -> String {
    let text = link_label(&describe(content));
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        // An autolink to a safe URI stays one; one that would run script is text.
        if c == '<' && unsafe_scheme(&text[at + 1..]) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text put in a link's label: its brackets escaped, so it ends where the link does.
fn link_label(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

fn markdown_block(content: &Content) -> String {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => text.clone(),
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        }) => match data_uri(mime_type, data) {
            Some(uri) => format!("![{}]({uri})", described(content)),
            None => bad_data_note(content),
        },
        Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) => match data_uri(mime_type, data) {
            Some(uri) => format!("[{}]({uri})", described(content)),
            None => bad_data_note(content),
        },
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                text, mime_type, ..
            } => {
                let fence = fence_for(text);
                let lang = mime_type.as_deref().map(fence_language).unwrap_or("");
                format!(
                    "**{}**\n\n{fence}{lang}\n{text}\n{fence}",
                    described(content)
                )
            }
            EmbeddedResource::Blob {
                blob, mime_type, ..
            } => match data_uri(
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                blob,
            ) {
                Some(uri) => format!("[{}]({uri})", described(content)),
                None => bad_data_note(content),
            },
        },
        Content::Known(KnownContent::ResourceLink(link)) => {
            let crate::model::ResourceLink {
                uri,
                name,
                title,
                description,
                ..
            } = &**link;
            let label = link_label(title.as_deref().unwrap_or(name));
            // A link that would run script (or that cannot be one) is written as text.
            let mut out = match link_destination(uri) {
                Some(destination) => format!("[{label}]({destination})"),
                None => format!("{label} (`{}`, not made a link)", uri.replace('`', "'")),
            };
            if let Some(description) = description {
                out.push_str(&format!(": {description}"));
            }
            out.push_str(&format!("\n\n_{}_", described(content)));
            out
        }
        Content::Unknown(value) => {
            let json = serde_json::to_string_pretty(value).unwrap_or_default();
            let fence = fence_for(&json);
            format!("**{}**\n\n{fence}json\n{json}\n{fence}", described(content))
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
fn lone_user_message(prompt: &PromptMessages) -> Option<&crate::model::Message> {
    match prompt.messages.as_slice() {
        [only] if only.role == crate::model::Role::User => Some(only),
        _ => None,
    }
}

/// A role as a one-line label: a server's own role name cannot add lines (and so fake a
/// heading or another message) to the export.
fn role_label(role: &crate::model::Role) -> String {
    role.as_str().replace(['\r', '\n'], " ")
}
