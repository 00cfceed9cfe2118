//! A served prompt as its file defines it: arguments, message templates, where it came
//! from, and why a file could not be loaded.

use std::fmt;

use super::template::Template;
use crate::model::Role;

/// Which kind of file a prompt came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    /// A VS Code `*.prompt.md` file.
    VsCode,
    /// A Claude Code command file (`.md` under `commands/`).
    ClaudeCode,
    /// An mcpick `*.mcpick.md` file.
    Mcpick,
}

/// One argument of a served prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgDef {
    /// Its name.
    pub name: String,
    /// A display label.
    pub title: Option<String>,
    /// What to enter.
    pub description: Option<String>,
    /// Whether `prompts/get` needs it.
    pub required: bool,
    /// Values offered by completion.
    pub values: Vec<String>,
    /// The value used when none (or an empty one) is given.
    pub default: Option<String>,
}

/// One message of a served prompt, before filling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageTemplate {
    /// A text message with argument slots.
    Text {
        /// Who says it.
        role: Role,
        /// Its text.
        template: Template,
    },
    /// A message embedding a text file as a resource.
    Embedded {
        /// Who says it.
        role: Role,
        /// The file's URI.
        uri: String,
        /// Its MIME type.
        mime_type: String,
        /// Its text, read when the library was loaded.
        text: String,
    },
    /// A message holding an image file.
    Image {
        /// Who says it.
        role: Role,
        /// e.g. `image/png`.
        mime_type: String,
        /// The bytes, base64.
        data: String,
    },
}

/// A prompt parsed from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptDef {
    /// Its unique name in the library.
    pub name: String,
    /// A display label.
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// Its arguments.
    pub arguments: Vec<ArgDef>,
    /// Its messages.
    pub messages: Vec<MessageTemplate>,
    /// The file it came from, for messages.
    pub source: String,
    /// The file's format.
    pub format: SourceFormat,
}

/// A file that could not be served, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub file: String,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// The problem.
    pub message: String,
}

impl fmt::Display for LoadError {
    /// One line, whatever the file's name holds (a line break in it would split the line).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = crate::text::visible_on_one_line(&self.file);
        match self.line {
            Some(line) => write!(f, "{file}:{line}: {}", self.message),
            None => write!(f, "{file}: {}", self.message),
        }
    }
}
