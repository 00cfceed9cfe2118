//! mcpick's own prompt files (`*.mcpick.md`).
//!
//! ```text
//! ---
//! name: review-diff            # default: the file name without .mcpick.md
//! title: Review a diff
//! description: Reviews a unified diff.
//! arguments:
//!   - name: diff
//!     description: The diff to review
//!     required: true
//!   - name: focus
//!     values: [correctness, security, performance]   # offered by completion
//!     default: correctness                           # used when no value (or "") is given
//! ---
//! Review this diff, focusing on {{focus}}:
//!
//! {{diff}}
//!
//! --- assistant ---
//! Understood. Here is my review.
//!
//! --- user: checklist.md ---
//! ```
//!
//! Text before the first separator is a user message. `--- user ---` and
//! `--- assistant ---` start a new text message; `--- ROLE: PATH ---` adds a message that
//! embeds the file PATH (relative to the prompt's folder, never outside the served folders,
//! at most 1 MiB): a text file as an embedded resource, a png, jpeg, gif or webp file as an
//! image. `{{NAME}}` (spaces allowed inside) is replaced by the argument's
//! value; `\{{` writes a literal `{{`.

use serde::Deserialize;

use super::frontmatter;
use super::template::Template;
use super::vscode::trim_template;
use super::{ArgDef, LoadError, MessageTemplate, PromptDef, SourceFormat};
use crate::model::Role;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    #[serde(default)]
    arguments: Vec<MetaArg>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MetaArg {
    name: String,
    title: Option<String>,
    description: Option<String>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    values: Vec<String>,
    default: Option<String>,
}

/// An embedded file a prompt asks for, resolved by the loader.
pub trait FileReader {
    /// Reads `relative` (relative to the prompt file's folder): its URI and bytes, or why not.
    fn read_relative(&self, relative: &str) -> Result<(String, Vec<u8>), EmbedError>;
}

/// Why a file a prompt embeds (`--- ROLE: PATH ---`) cannot be: said after
/// "cannot embed `PATH`: ". The readers of the disk, the bundled library and the fuzz
/// targets share it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    /// An absolute path.
    #[error("use a path relative to the prompt file")]
    Absolute,
    /// Outside the folders `serve` was given (them, comma-separated).
    #[error("it is outside the served folders ({0})")]
    OutsideRoots(String),
    /// A link that leads outside them, as opened.
    #[error("it leads outside the served folders")]
    LeadsOutside,
    /// A `..` above the bundled library.
    #[error("it is outside the bundled library")]
    OutsideBundle,
    /// No bundled file at that path.
    #[error("no bundled file `{0}`")]
    NoBundledFile(String),
    /// Replaced by a link while it was read.
    #[error("it became a link while it was read")]
    BecameLink,
    /// A FIFO, a device or a folder.
    #[error("it is not a regular file")]
    NotRegular,
    /// Over 1 MiB: its size when known before reading.
    #[error("{}", match .0 { Some(bytes) => format!("it is {bytes} bytes; files may be at most 1 MiB"), None => "it is larger than 1 MiB".to_string() })]
    TooLarge(Option<u64>),
    /// Text that is not UTF-8 (an image is embedded as one).
    #[error("it is not UTF-8 text (images: png, jpeg, gif, webp)")]
    NotUtf8,
    /// The OS's words (no such file, no permission).
    #[error("{0}")]
    Io(String),
}

/// A separator line: `--- user ---`, `--- assistant ---`, or `--- ROLE: PATH ---`.
fn separator(line: &str) -> Option<(Role, Option<&str>)> {
    let inner = line.trim().strip_prefix("---")?.strip_suffix("---")?.trim();
    let (role, path) = match inner.split_once(':') {
        Some((role, path)) => (role.trim(), Some(path.trim())),
        None => (inner, None),
    };
    let role = match role {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => return None,
    };
    Some((role, path))
}

/// A line that looks meant as a separator but names no MCP role (`--- User ---`,
/// `--- system ---`): better an error than a message that silently swallows it.
fn near_separator(line: &str) -> Option<String> {
    let inner = line.trim().strip_prefix("---")?.strip_suffix("---")?.trim();
    let role = inner.split(':').next().unwrap_or("").trim();
    let lower = role.to_lowercase();
    (["user", "assistant", "system"].contains(&lower.as_str())
        && role != "user"
        && role != "assistant")
        .then(|| role.to_string())
}

/// Parses a prompt file; `stem` is the default name, `files` reads embedded files.
pub fn parse(
    text: &str,
    file: &str,
    stem: &str,
    files: &dyn FileReader,
) -> Result<PromptDef, LoadError> {
    let split = frontmatter::split(text);
    let error = |line: usize, message: String| LoadError {
        file: file.to_string(),
        line: Some(line),
        message,
    };
    let first_line = text
        .trim_start_matches('\u{feff}')
        .lines()
        .next()
        .unwrap_or("");
    if split.yaml.is_none() && first_line.trim_end() == "---" {
        return Err(error(
            1,
            "the front matter is never closed with a `---` line".into(),
        ));
    }
    let meta: Meta = frontmatter::parse(split.yaml, file)?;
    let arguments = arguments(meta.arguments, split.yaml, &error)?;
    let messages = messages(&split, &arguments, files, &error)?;
    Ok(PromptDef {
        name: meta.name.unwrap_or_else(|| stem.to_string()),
        title: meta.title,
        description: meta.description,
        arguments,
        messages,
        source: file.to_string(),
        format: SourceFormat::Mcpick,
    })
}

/// The front matter's arguments, checked (each named, once, and a default only where it
/// is optional), each description telling its default: clients cannot see defaults on
/// the wire. `yaml` is the front matter, for the lines errors name.
fn arguments(
    declared: Vec<MetaArg>,
    yaml: Option<&str>,
    error: &impl Fn(usize, String) -> LoadError,
) -> Result<Vec<ArgDef>, LoadError> {
    // The file lines of an argument's `name:` entries (front matter starts on line 2).
    let name_lines = |name: &str| {
        yaml.unwrap_or("")
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let l = l.trim_start().trim_start_matches('-').trim_start();
                l.strip_prefix("name:")
                    .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == name)
            })
            .map(|(i, _)| i + 2)
            .collect::<Vec<_>>()
    };
    let arg_line = |name: &str| name_lines(name).first().copied().unwrap_or(1);
    let mut arguments: Vec<ArgDef> = Vec::new();
    for arg in declared {
        if arg.name.trim().is_empty() {
            return Err(error(
                arg_line(""),
                "an argument has an empty `name`".into(),
            ));
        }
        if arguments.iter().any(|a| a.name == arg.name) {
            // The second declaration is the one at fault.
            let line = name_lines(&arg.name).get(1).copied().unwrap_or(1);
            return Err(error(
                line,
                format!("argument `{}` is declared twice", arg.name),
            ));
        }
        if arg.required && arg.default.is_some() {
            return Err(error(
                1,
                format!(
                    "argument `{}` is required, so its `default` would never be used",
                    arg.name
                ),
            ));
        }
        let description = match (arg.description, &arg.default) {
            (Some(d), Some(default)) => Some(format!("{d} (default: {default})")),
            (None, Some(default)) => Some(format!("default: {default}")),
            (d, None) => d,
        };
        arguments.push(ArgDef {
            name: arg.name,
            title: arg.title,
            description,
            required: arg.required,
            values: arg.values,
            default: arg.default,
        });
    }
    Ok(arguments)
}

/// The body's messages: each separator starts one (or embeds a file, [`embedded`]), each
/// other line is parsed as template text of `arguments`; a near-separator is an error,
/// and so is a prompt with no message.
fn messages(
    split: &frontmatter::Split<'_>,
    arguments: &[ArgDef],
    files: &dyn FileReader,
    error: &impl Fn(usize, String) -> LoadError,
) -> Result<Vec<MessageTemplate>, LoadError> {
    let mut messages = Vec::new();
    let mut current: (Role, Template, usize) = (Role::User, Template::default(), split.body_line);
    let finish = |(role, template, _): (Role, Template, usize),
                  messages: &mut Vec<MessageTemplate>| {
        let template = trim_template(template);
        if !template.segments.is_empty() {
            messages.push(MessageTemplate::Text { role, template });
        }
    };
    for (index, line) in split.body.split_inclusive('\n').enumerate() {
        let line_number = split.body_line + index;
        if let Some((role, path)) = separator(line) {
            finish(
                std::mem::replace(
                    &mut current,
                    (role.clone(), Template::default(), line_number),
                ),
                &mut messages,
            );
            if let Some(path) = path {
                messages.push(
                    embedded(role, path, files).map_err(|why| {
                        error(line_number, format!("cannot embed `{path}`: {why}"))
                    })?,
                );
            }
            continue;
        }
        if let Some(role) = near_separator(line) {
            return Err(error(
                line_number,
                format!(
                    "`{role}` is not a role: separators are `--- user ---` and `--- assistant ---` (MCP has no system role)"
                ),
            ));
        }
        parse_line(line, line_number, arguments, &mut current.1)
            .map_err(|m| error(line_number, m))?;
    }
    finish(current, &mut messages);
    if messages.is_empty() {
        return Err(error(split.body_line, "the prompt has no messages".into()));
    }
    Ok(messages)
}

/// The message a `--- ROLE: PATH ---` separator embeds: an image, or the file's text
/// (UTF-8); an error says why not.
fn embedded(role: Role, path: &str, files: &dyn FileReader) -> Result<MessageTemplate, EmbedError> {
    let (uri, bytes) = files.read_relative(path)?;
    let mime_type = mime_for(path).to_string();
    if mime_type.starts_with("image/") {
        use base64::Engine as _;
        Ok(MessageTemplate::Image {
            role,
            mime_type,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    } else {
        let text = String::from_utf8(bytes).map_err(|_| EmbedError::NotUtf8)?;
        Ok(MessageTemplate::Embedded {
            role,
            uri,
            mime_type,
            text,
        })
    }
}

fn parse_line(
    line: &str,
    _line_number: usize,
    arguments: &[ArgDef],
    template: &mut Template,
) -> Result<(), String> {
    let mut rest = line;
    loop {
        let escaped = rest.find("\\{{");
        let open = rest.find("{{");
        match (escaped, open) {
            (Some(e), Some(o)) if e < o => {
                template.push_literal(&rest[..e]);
                template.push_literal("{{");
                rest = &rest[e + 3..];
            }
            (_, Some(o)) => {
                template.push_literal(&rest[..o]);
                let after = &rest[o + 2..];
                let Some(close) = after.find("}}") else {
                    return Err(
                        "`{{` is never closed with `}}` (write `\\{{` for a literal `{{`)".into(),
                    );
                };
                let name = after[..close].trim();
                if !arguments.iter().any(|a| a.name == name) {
                    return Err(format!(
                        "`{{{{{name}}}}}` is not a declared argument (declare it under `arguments`, or write `\\{{{{` for a literal `{{{{`)"
                    ));
                }
                template.push_arg(name);
                rest = &after[close + 2..];
            }
            (_, None) => {
                template.push_literal(rest);
                return Ok(());
            }
        }
    }
}

/// A MIME type from a file name's extension, for embedded files.
pub fn mime_for(path: &str) -> &'static str {
    let extension = path.rsplit('.').next().unwrap_or("").to_lowercase();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "rs" => "text/x-rust",
        "py" => "text/x-python",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "toml" => "application/toml",
        "yaml" | "yml" => "application/yaml",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "text/plain",
    }
}
