//! The TUI's state and its pure `update`: messages in, effects out. Nothing here touches
//! the terminal, the network or the disk; the runner (`crate::tui`) does, and feeds the
//! results back as [`Msg`]s.

pub mod areas;
mod cached;
mod command;
mod draft;
mod files;
mod form;
mod graphics;
pub mod history;
pub mod images;
pub mod inputs;
pub mod keys;
pub mod layout;
pub mod line;
pub mod live_preview;
mod logs;
mod menu;
mod msg;
mod questions;
pub mod review;
pub mod source;
mod start;
mod state;
mod update;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::config::InputSpec;
use crate::model::{PromptInfo, ServerId};

pub use cached::{CatalogMark, RowMark, short_duration};
pub use command::{CommandPrompt, CommandStage};
pub use draft::{FormDraft, FormDrafts};
pub use files::{FileList, FilePicker, FileRow, is_typed_path};
pub use form::{Field, FormState, PendingRead, Suggestions};
pub use history::History;
pub use inputs::{InputField, InputsPrompt};
pub use keys::{Action, KeyMap, KeyOverrideError, KeyScreen};
pub use live_preview::{LivePreview, PreviewAnswer, PreviewOutcome, PreviewRequest};
pub use logs::{LogsView, ServerLines, log_matches};
pub use menu::{MenuInput, MenuOutcome, MenuScope, MenuState};
pub use msg::{ClickTarget, Effect, Hits, Msg};
pub use questions::{QuestionField, QuestionValue, QuestionsState};
pub use review::{
    Draft, LineInput, LinePurpose, ReviewItem, ReviewState, editable_text, format_extension,
    format_name,
};
pub use source::{CommandOutcome, SourceMark, ValueSource};
pub use start::{OpenPrompt, Start};
pub use state::{
    DOUBLE_CLICK_MS, Exit, Flash, MenuLock, Notice, Options, PlannedRestart, Playing, SavePurpose,
    ServerState, ServerStatus, SourceOffer, describe_error,
};

/// Ticks a notice stays in the status bar at least, when nothing waits behind it (a tick
/// is [`TICK_MS`]).
const FLASH_TICKS: u64 = 60;
/// Ticks a notice stays per word it holds (about 200 words a minute, with time to look).
const READ_TICKS_PER_WORD: u64 = 4;
/// Ticks a notice stays at least before a queued one takes its place (to see it went by).
const GLANCE_TICKS: u64 = 15;
/// How many notices may wait behind the current one (all are kept in the logs pane).
const QUEUED_NOTICES: usize = 8;
/// How many notices the logs pane keeps.
const NOTICES_KEPT: usize = 200;
/// The tick period the runner uses, in milliseconds.
pub const TICK_MS: u64 = 80;
/// Ticks after the last key in a review before its draft is saved (about half a second).
const DRAFT_TICKS: u64 = 6;
/// After a failed copy: the other ways to get the export out.
const COPY_FAILED_WAYS_OUT: &str = "s saves it; mcpick --print prints it.";
/// Said while an accept's copy runs (a program may take a moment).
const COPYING: &str = "Copying…";

/// A refresh (Ctrl-R) or restart (F5) by hand, until every server in it answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RefreshRound {
    /// The servers asked to list again.
    listing: std::collections::BTreeSet<ServerId>,
    /// The failed servers started again.
    restarting: std::collections::BTreeSet<ServerId>,
    /// The progress notice shown last, updated in place as the servers answer.
    said: String,
}

/// The whole state of the TUI.
#[derive(Debug, Clone)]
pub struct App {
    /// The key bindings.
    pub keys: KeyMap,
    /// How this run was started.
    pub options: Options,
    /// Every configured server, in config order.
    pub servers: Vec<ServerStatus>,
    /// Each ready server's prompts (and, before it is up, its catalog's).
    prompts: BTreeMap<ServerId, Vec<Arc<PromptInfo>>>,
    /// Servers whose rows are not a list fetched in this run: from the catalog on disk, or
    /// kept after a re-fetch failed.
    catalog_marks: BTreeMap<ServerId, CatalogMark>,
    /// When each server's rows last came from a list fetched in this run (wall ms): the
    /// age stale rows keep after a crash or a failed re-list.
    live_listed_ms: BTreeMap<ServerId, u64>,
    /// Notices about a server's state ("failed again", "could not be fetched again"),
    /// withdrawn from the status bar once a new state contradicts them.
    state_notices: BTreeMap<ServerId, Vec<String>>,
    /// Servers whose next `Ready`/`PromptsChanged` holds their catalog's prompts (a
    /// `FromCatalog` came just before it).
    from_catalog_next: std::collections::BTreeSet<ServerId>,
    /// Servers asked to list their prompts again (Ctrl-R) that have not answered yet.
    pub refreshing: std::collections::BTreeSet<ServerId>,
    /// The wall clock in ms since the Unix epoch, set by the runner with `now_ms`: how old
    /// and how fresh cached lists are.
    pub wall_ms: u64,
    /// Where servers from other hosts' configs came from (`vscode: PATH`).
    pub server_sources: BTreeMap<ServerId, String>,
    /// Other hosts' configs found on a first run, offered until taken.
    pub offer: Vec<SourceOffer>,
    /// Servers waiting for inputs, and which.
    pub waiting: Vec<(ServerId, Vec<InputSpec>)>,
    /// Every server that used inputs, with them: a failed one can be given new values.
    pub input_servers: BTreeMap<ServerId, Vec<InputSpec>>,
    /// Failed servers whose inputs are being typed again.
    retrying: Vec<ServerId>,
    /// Servers that asked for a sign-in, with their `WWW-Authenticate` challenge.
    pub sign_ins: BTreeMap<ServerId, Option<String>>,
    /// Servers whose sign-in is under way (in the browser).
    signing_in: std::collections::BTreeSet<ServerId>,
    /// Servers restarted by hand and not answered yet: how that ends gets a notice.
    restarted_by_hand: std::collections::BTreeSet<ServerId>,
    /// The refresh (Ctrl-R) or restart (F5) under way: its progress and then its outcome
    /// are one notice each, not one per server.
    refresh_round: Option<RefreshRound>,
    /// The menu: its entries, search, ranked rows and selection.
    pub menu: MenuState,
    /// The main screen.
    pub screen: Screen,
    /// A pane over the screen, if any.
    pub overlay: Option<Overlay>,
    /// Each server's stderr lines and log messages, and mcpick's notes about it.
    pub logs: BTreeMap<ServerId, ServerLines>,
    /// Remembered prompts and values.
    pub history: History,
    /// Values typed into forms and not sent, per prompt (shown again when it is reopened).
    pub form_drafts: FormDrafts,
    /// The current notice.
    pub flash: Option<Flash>,
    /// Notices waiting for the current one to have been read, oldest first.
    pub queued_notices: VecDeque<Flash>,
    /// Every notice shown, oldest first (the last [`NOTICES_KEPT`]), for the logs pane.
    pub notices: VecDeque<Notice>,
    /// Ticks since start (drives spinners and debouncing; they stop while nothing moves).
    pub tick: u64,
    /// Milliseconds since the run began, set by the runner before each message: when the
    /// notes and notices kept for the logs pane happened.
    pub now_ms: u64,
    /// The terminal's size (columns, rows), for what update must know of the layout.
    pub size: (u16, u16),
    next_id: u64,
    /// Quit was pressed once over unexported edits: the next quit leaves.
    quit_armed: bool,
    /// The tick at which the review's draft is due to be saved.
    draft_due: Option<u64>,
    /// A draft of the current review is on disk.
    draft_saved: bool,
    /// Set when mcpick should end.
    pub exit: Option<Exit>,
    /// What the command line asked the menu to start with, until it was acted on.
    pending_start: Option<Start>,
    /// Something was exported (copied or saved) in this run: leaving is not a cancel.
    pub exported_any: bool,
    /// Servers whose live preview F2 turned on or off in this run (over the config's).
    preview_toggled: BTreeMap<ServerId, bool>,
    /// The audio block playing (`P`), until it ends or Esc stops it.
    pub playing: Option<Playing>,
}

/// What shows that something is under way: the spinner's frame for the app's tick, or
/// [`STILL_MARK`] under reduced motion (`[ui] reduce_motion`, `MCPICK_REDUCE_MOTION`).
pub fn busy_mark(app: &App) -> char {
    if app.options.reduce_motion {
        STILL_MARK
    } else {
        spinner(app.tick)
    }
}

/// The mark of work under way under reduced motion: it never changes.
pub const STILL_MARK: char = '•';

/// The spinner frame for `tick`.
pub fn spinner(tick: u64) -> char {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    FRAMES[(tick % FRAMES.len() as u64) as usize]
}

#[cfg(test)]
pub(crate) use cached::tests as cached_tests;
#[cfg(test)]
mod notice_tests;
#[cfg(test)]
pub(crate) mod review_tests;
#[cfg(test)]
mod session_tests;
#[cfg(test)]
pub(crate) mod skill_tests;
#[cfg(test)]
pub(crate) mod tests;

/// The main screen.
#[derive(Debug, Clone)]
pub enum Screen {
    /// The prompt menu.
    Picker,
    /// A prompt's argument form (and the fetch it starts).
    Form(Box<FormState>),
    /// The server's questions before it answers (`input_required`).
    Questions(Box<QuestionsState>),
    /// The returned messages, for review, editing and export.
    Review(Box<ReviewState>),
}

/// A pane drawn over the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// The keys of the screen below, scrolled by this many lines.
    Help {
        /// Lines the help is scrolled by.
        scroll: u16,
    },
    /// The servers' stderr and log messages.
    Logs(LogsView),
    /// Values servers wait for before they start.
    Inputs(InputsPrompt),
}
