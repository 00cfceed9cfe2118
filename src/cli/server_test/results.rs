//! What `mcpick test` found, era by era and prompt by prompt: what the report is made of.

use super::checks::Check;

/// Where an argument's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueFrom {
    /// `--args FILE`.
    ArgsFile,
    /// The server's first `completion/complete` value.
    Completion,
    /// Neither: a placeholder, said as such.
    Placeholder,
}

impl ValueFrom {
    /// Its word in the report.
    pub(super) fn word(self) -> &'static str {
        match self {
            ValueFrom::ArgsFile => "args-file",
            ValueFrom::Completion => "completion",
            ValueFrom::Placeholder => "placeholder",
        }
    }
}

/// One prompt (or skill) tested in one era.
pub(super) struct PromptReport {
    /// Its name, as listed.
    pub(super) name: String,
    /// A skill (SEP-2640), listed and checked but not loaded.
    pub(super) skill: bool,
    /// The arguments it was filled with: name, value, where the value came from.
    pub(super) arguments: Vec<(String, String, ValueFrom)>,
    /// Its checks, in the table's order.
    pub(super) checks: Vec<Check>,
    /// Each export format and what it loses of the messages.
    pub(super) exports: Vec<(&'static str, Vec<String>)>,
    /// What `prompts/get` answered, when it did.
    pub(super) messages: Option<crate::model::PromptMessages>,
}

/// One era's answer.
pub(super) struct EraReport {
    /// `2026-07-28` or `initialize`: also its snapshot folder's name.
    pub(super) era: &'static str,
    /// The version the server answered with, when it did.
    pub(super) version: Option<String>,
    /// Why it did not answer in this era.
    pub(super) unreachable: Option<String>,
    /// The checks of its lists and notices.
    pub(super) checks: Vec<Check>,
    /// Each prompt and skill listed, in the server's order.
    pub(super) prompts: Vec<PromptReport>,
    /// What mcpick left out of the lists, in its words.
    pub(super) warnings: Vec<String>,
}
