//! `mcpick serve`: prompt files (VS Code, Claude Code, mcpick's own) as an MCP prompt
//! library, and skill folders (`NAME/SKILL.md`, the Agent Skills format) as SEP-2640
//! skills that are prompts too. This module is loading and rendering; `crate::mcp::server`
//! puts it on the wire.

mod builtin;
pub(crate) mod claude;
mod folders;
pub(crate) mod frontmatter;
mod hints;
mod loaded;
pub(crate) mod native;
mod prompt;
mod shared;
pub mod skills;
pub(crate) mod template;
pub(crate) mod vscode;
mod watch;

pub use builtin::builtin_library;
pub use hints::{CacheHints, parse_ttl};
pub use loaded::{ArgumentError, Library, ServedResource, cursor_offset, load_paths, page_of};
pub use prompt::{ArgDef, LoadError, MessageTemplate, PromptDef, SourceFormat};
pub use shared::SharedLibrary;
pub use watch::{Embedded, watch_paths};

/// Fills the first message of a parsed prompt, for the format parsers' tests.
#[cfg(test)]
pub(crate) fn render_first(prompt: &PromptDef, values: &[(&str, &str)]) -> String {
    let values: std::collections::BTreeMap<String, String> = values
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match &prompt.messages[0] {
        MessageTemplate::Text { template, .. } => template.render(&values),
        other => panic!("{other:?}"),
    }
}
