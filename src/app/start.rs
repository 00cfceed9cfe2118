//! How the menu starts, as fzf does: a search already typed (`-q`), the only match opened at
//! once (`--select-1`), an empty result ending the run (`--exit-0`), or one prompt opened
//! with its arguments given (`mcpick SERVER/PROMPT NAME=VALUE…`, `--no-form`).
//!
//! Whether something matches is only known once the servers have answered, so the start
//! waits until no server is still connecting, then acts once. A server whose rows came from
//! a catalog still fresh by its `ttlMs` has answered already: with every server so, the
//! start acts in the first frame.

use std::collections::BTreeMap;

use super::ValueSource;
use crate::search::PromptRef;

/// What the command line asked the menu to start with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Start {
    /// The search typed at start (`-q`).
    pub query: String,
    /// Open the prompt at once when exactly one matches (`--select-1`).
    pub select_one: bool,
    /// End the run with status 1 when nothing matches (`--exit-0`).
    pub exit_zero: bool,
    /// A prompt to open at once.
    pub open: Option<OpenPrompt>,
}

impl Start {
    /// Whether there is anything to do once the servers have answered.
    pub fn waits_for_servers(&self) -> bool {
        self.select_one || self.exit_zero || self.open.is_some()
    }
}

/// `mcpick SERVER/PROMPT NAME=VALUE…`: a prompt to open with these values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPrompt {
    /// The prompt, as typed (`SERVER/PROMPT`, `server:prompt` or a bare `PROMPT`).
    pub reference: PromptRef,
    /// The argument values given.
    pub values: BTreeMap<String, String>,
    /// Where the values read from a file or stdin came from (`NAME=@PATH`, `NAME=-`).
    pub sources: BTreeMap<String, ValueSource>,
    /// Fetch at once, with no form, when every required argument is given (`--no-form`).
    pub no_form: bool,
    /// The subcommand a bare name is close to (`lsit`: `list`), told when no prompt is
    /// called so or close to it.
    pub near_command: Option<String>,
}
