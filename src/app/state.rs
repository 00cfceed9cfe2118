//! The app's vocabulary of state: how the run was started, the servers' states, the
//! screens and panes, notices, and how a run ends.

use crate::mcp::McpError;
use std::path::PathBuf;

use crate::config::ThemeColors;
use crate::export::Format;
use crate::export::clipboard::ClipboardSettings;
use crate::model::{ServerDetails, ServerId};

use super::Start;

/// How the run was started: where an accepted export goes, and how things look.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--output FILE`: accepting writes the export there and exits.
    pub output: Option<PathBuf>,
    /// `--print`: accepting exits and prints the export on stdout.
    pub print: bool,
    /// The initial export format.
    pub format: Format,
    /// Whether colours may be used (`NO_COLOR` unset).
    pub color: bool,
    /// The config's `[theme]` colours (unused when `color` is off).
    pub theme: ThemeColors,
    /// With `base = "auto"`: the colours to switch to when the terminal says its
    /// background is light (taken once it said, [`super::Msg::Background`]).
    pub light_theme: Option<ThemeColors>,
    /// The config's clipboard route and command (the runner carries out copies).
    pub clipboard: ClipboardSettings,
    /// How the menu starts: a typed search, fzf's `--select-1`/`--exit-0`, a prompt to open.
    pub start: Start,
    /// The servers whose form shows a live preview by default (`live_preview`).
    pub live_preview: std::collections::BTreeSet<ServerId>,
    /// The config's `audio_player` (the runner plays audio with it, else with the first
    /// player found).
    pub audio_player: Option<Vec<String>>,
    /// The config's `image_protocol` (the runner detects the terminal's when `auto`).
    pub image_protocol: crate::config::ImageProtocol,
    /// How the review draws images, as the runner found out at start (off until then).
    pub graphics: super::images::Graphics,
    /// Reduced motion (`[ui] reduce_motion`, `MCPICK_REDUCE_MOTION=1`): a still mark
    /// where a spinner would turn.
    pub reduce_motion: bool,
    /// The lockfile the menu compares the servers' prompts with (`--lock`, `[lock]`, or
    /// `mcpick.lock` in the current folder), if any.
    pub lock: Option<MenuLock>,
}

/// A lockfile as the menu uses it: drifted prompts are marked, and with `enforce`
/// refused.
#[derive(Debug, Clone)]
pub struct MenuLock {
    /// The lockfile read at start.
    pub lockfile: std::sync::Arc<crate::lock::Lockfile>,
    /// Its path as the user would write it (relative where it was found relative).
    pub shown_path: String,
    /// `[lock] enforce = true`: a drifted prompt is not fetched until `mcpick lock`.
    pub enforce: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            output: None,
            print: false,
            format: Format::Markdown,
            color: true,
            theme: ThemeColors::dark(),
            light_theme: None,
            clipboard: ClipboardSettings::default(),
            start: Start::default(),
            live_preview: Default::default(),
            audio_player: None,
            image_protocol: crate::config::ImageProtocol::default(),
            graphics: super::images::Graphics::default(),
            reduce_motion: false,
            lock: None,
        }
    }
}

/// A server's state as the status bar shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerState {
    /// Starting and handshaking.
    Connecting,
    /// Connected; its prompts are in the menu.
    Ready {
        /// What the handshake told.
        details: Box<ServerDetails>,
        /// How many prompts it offers.
        prompts: usize,
    },
    /// Asks for an OAuth sign-in before it answers.
    NeedsSignIn,
    /// Waits for inputs (`${input:ID}`) to be typed before it starts.
    NeedsInput {
        /// What it waits for, as the prompt names them.
        inputs: Vec<String>,
    },
    /// Could not connect, or the connection dropped.
    Failed {
        /// Why, for the user.
        error: String,
        /// The restart on its way, for a server that crashed.
        restart: Option<PlannedRestart>,
    },
}

/// A crashed server's next automatic restart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedRestart {
    /// Which attempt, from 1.
    pub attempt: u32,
    /// Of how many.
    pub of: u32,
    /// The wait before it.
    pub delay: std::time::Duration,
}

/// One configured server and its state.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    /// Its config name.
    pub name: ServerId,
    /// Where it is.
    pub state: ServerState,
}

/// A notice as the logs pane keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// When it was said, in ms since the run began.
    pub at_ms: u64,
    /// What it said.
    pub text: String,
    /// Whether it reported a failure.
    pub error: bool,
}

/// A notice in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// What to say.
    pub text: String,
    /// Whether it reports a failure.
    pub error: bool,
    /// The tick after which it disappears when nothing waits behind it.
    pub until: u64,
    /// The tick from which the next queued notice may take its place: time enough to read
    /// it once (`u64::MAX` while it waits for a key).
    pub read_by: u64,
    /// The next notice replaces it at once: it said what is under way ("Copying…"), or a
    /// key was pressed since it was shown.
    pub transient: bool,
}

/// What the runner should do once mcpick is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Leave without output.
    Quit,
    /// Leave after the accepted export was written (`--output`).
    Accepted,
    /// Restore the terminal, then print this on stdout.
    Print(String),
    /// Nothing matched the start's search (`--exit-0`, or a prompt that is not there).
    NoMatch,
}

/// Another host's config found on a first run (no mcpick config yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceOffer {
    /// The host's dialect name (`vscode`, …), as written in `sources`.
    pub dialect: String,
    /// The file.
    pub path: PathBuf,
    /// How many servers it holds.
    pub servers: usize,
}

/// Why a file is being saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SavePurpose {
    /// The export; `then_exit` when this was the accept of `--output`.
    Export {
        /// Leave mcpick once written.
        then_exit: bool,
    },
    /// The decoded bytes of a block.
    Bytes,
}

/// Two clicks on one menu row within this many ms are a double click (open it).
pub const DOUBLE_CLICK_MS: u64 = 400;

/// An error as the form shows it: the server's code and message, or what went wrong.
pub fn describe_error(error: &McpError) -> String {
    // `McpError` already says "server error CODE: MESSAGE".
    error.to_string()
}

/// The audio playing now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Playing {
    /// The request id, echoed in [`Msg::AudioEnded`].
    pub id: u64,
    /// The review message it is (its number on screen is one more).
    pub index: usize,
}
