//! The TUI's state and its pure `update`: messages in, effects out. Nothing here touches
//! the terminal, the network or the disk; the runner (`crate::tui`) does, and feeds the
//! results back as [`Msg`]s.

mod form;
pub mod history;
pub mod inputs;
pub mod keys;
pub mod layout;
pub mod line;
mod logs;
mod notices;
mod picker;
mod questions;
pub mod review;
mod servers;
mod start;

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::catalog::{self, Entry, Query, Ranked};
use crate::config::{InputSpec, InputValues, ThemeColors};
use crate::export::Format;
use crate::export::clipboard::{ClipboardSettings, Copied};
use crate::export::sink::WriteError;
use crate::mcp::{
    Completion, EmbeddedResource, GetOutcome, InputAnswers, LogLine, McpError, McpEvent,
    PromptInfo, ServerDetails, ServerId,
};

pub use form::{Field, FormState, Suggestions};
pub use history::History;
pub use inputs::{InputField, InputsPrompt};
pub use keys::{Action, KeyMap, KeyScreen};
pub use logs::{LogsView, ServerLines, log_matches};
use logs::{logs_action, mcpick_line, push_log};
pub use questions::{QuestionField, QuestionValue, QuestionsState};
pub use review::{
    Draft, LineInput, LinePurpose, ReviewItem, ReviewState, editable_text, format_extension,
    format_name,
};
pub use start::{OpenPrompt, Start};

/// A server's own lines kept per server in the logs pane.
const LOG_LINES_PER_SERVER: usize = 1000;
/// mcpick's notes kept per server in the logs pane, apart from the server's lines.
const NOTES_PER_SERVER: usize = 200;
/// Ticks a notice stays in the status bar (a tick is [`TICK_MS`]).
const FLASH_TICKS: u64 = 60;
/// Ticks a notice stays per word it holds (about 200 words a minute, with time to look).
const READ_TICKS_PER_WORD: u64 = 4;
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
    /// The config's clipboard route and command (the runner carries out copies).
    pub clipboard: ClipboardSettings,
    /// How the menu starts: a typed search, fzf's `--select-1`/`--exit-0`, a prompt to open.
    pub start: Start,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            output: None,
            print: false,
            format: Format::Markdown,
            color: true,
            theme: ThemeColors::dark(),
            clipboard: ClipboardSettings::default(),
            start: Start::default(),
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
    /// The keys of the screen below.
    Help,
    /// The servers' stderr and log messages.
    Logs(LogsView),
    /// Values servers wait for before they start.
    Inputs(InputsPrompt),
}

/// A notice as the logs pane keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// When it was shown (ticks since start).
    pub tick: u64,
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
    /// The tick after which it disappears.
    pub until: u64,
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

/// Everything that can happen to the app.
#[derive(Debug)]
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// Pasted text (bracketed paste).
    Paste(String),
    /// The terminal's size: columns, rows.
    Resize(u16, u16),
    /// The mouse wheel turned up.
    WheelUp,
    /// The mouse wheel turned down.
    WheelDown,
    /// A left click at a cell of the app's drawing area (0-based, inline rows already
    /// shifted), at `at_ms` since the run began (so update can tell a double click).
    Click {
        /// The cell's column.
        column: u16,
        /// The cell's row.
        row: u16,
        /// When, in ms since the run began.
        at_ms: u64,
    },
    /// Time passed (spinners, debounced completion, notices).
    Tick,
    /// Something happened to a server.
    Mcp(McpEvent),
    /// A `completion/complete` answer.
    Completed {
        /// The request it answers.
        id: u64,
        /// The suggestions, or why there are none.
        result: Result<Completion, String>,
    },
    /// A `prompts/get` answer.
    Fetched {
        /// The request it answers.
        id: u64,
        /// The messages, questions, or the error.
        result: Result<GetOutcome, McpError>,
    },
    /// A `resources/read` answer.
    ResourceRead {
        /// The request it answers.
        id: u64,
        /// The contents, or the error.
        result: Result<Vec<EmbeddedResource>, McpError>,
    },
    /// The clipboard copy finished.
    Copied {
        /// Where the text went (confirmed or only sent), or why it did not.
        result: Result<Copied, String>,
        /// Go back to the menu if it worked, or was sent as OSC 52 and said so (the accept
        /// of a run without flags).
        leave: bool,
    },
    /// A file save finished.
    Saved {
        /// Why it was saved.
        purpose: SavePurpose,
        /// Where.
        path: PathBuf,
        /// How it went.
        result: Result<(), WriteError>,
    },
    /// `$EDITOR` returned the edited text.
    Edited(Result<String, String>),
    /// A config with `sources` was written and these servers (name, source) are starting.
    SourcesAdded(Result<(PathBuf, Vec<(ServerId, String)>), String>),
    /// These servers wait for inputs (`${input:ID}`) before they can start.
    InputsNeeded(Vec<(ServerId, Vec<InputSpec>)>),
    /// A sign-in started: the URL the browser should open.
    SignInUrl {
        /// The server.
        server: ServerId,
        /// The authorization URL.
        url: String,
    },
    /// A sign-in ended; on success the server is being restarted with its tokens.
    SignedIn {
        /// The server.
        server: ServerId,
        /// How it went.
        result: Result<(), String>,
    },
}

/// Work for the runner. Results come back as [`Msg`]s.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Ask for completions of one argument.
    Complete {
        /// The request id, echoed in [`Msg::Completed`].
        id: u64,
        /// The server.
        server: ServerId,
        /// The prompt.
        prompt: String,
        /// The argument being completed.
        argument: String,
        /// Its current value.
        value: String,
        /// The other arguments' values.
        context: BTreeMap<String, String>,
    },
    /// Fill a prompt.
    Fetch {
        /// The request id, echoed in [`Msg::Fetched`].
        id: u64,
        /// The server.
        server: ServerId,
        /// The prompt.
        prompt: String,
        /// Its arguments.
        arguments: BTreeMap<String, String>,
        /// Answers to the server's questions, for a retry.
        answers: Option<InputAnswers>,
    },
    /// Drop a fetch in flight (the server is told it was cancelled).
    CancelFetch {
        /// The request to cancel.
        id: u64,
    },
    /// Read a linked resource.
    ReadResource {
        /// The request id.
        id: u64,
        /// The server.
        server: ServerId,
        /// The resource.
        uri: String,
    },
    /// Put text on the clipboard.
    Copy {
        /// The text.
        text: String,
        /// Echoed in [`Msg::Copied`]: back to the menu once copied.
        leave: bool,
    },
    /// Write a file atomically.
    Save {
        /// Where (relative to the current folder, `~` expanded).
        path: PathBuf,
        /// What.
        contents: Vec<u8>,
        /// Whether an existing file may be replaced.
        overwrite: bool,
        /// Why, echoed in [`Msg::Saved`].
        purpose: SavePurpose,
    },
    /// Hand the terminal to `$EDITOR` with this text.
    ExternalEditor {
        /// The text to edit.
        text: String,
    },
    /// Store the history.
    SaveHistory(History),
    /// Write a config that reads these hosts' configs (`sources`) and start their servers.
    UseSources {
        /// Dialect names, as written in `sources`.
        sources: Vec<String>,
    },
    /// Keep this draft of the review on disk (replacing the one there).
    SaveDraft(Box<Draft>),
    /// The review was exported or discarded: remove its draft.
    DeleteDraft,
    /// Start the servers that waited for these inputs (kept in memory only).
    GiveInputs {
        /// The values typed.
        values: InputValues,
        /// Failed servers to start again with them (values left empty stay as before).
        again: Vec<ServerId>,
    },
    /// Connect to a started server again.
    Restart {
        /// The server.
        server: ServerId,
    },
    /// Sign in to a server in the browser (the answer is [`Msg::SignedIn`]).
    SignIn {
        /// The server.
        server: ServerId,
        /// The `WWW-Authenticate` value it answered with, if any.
        challenge: Option<String>,
    },
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
    /// Each ready server's prompts.
    prompts: BTreeMap<ServerId, Vec<Arc<PromptInfo>>>,
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
    /// The merged menu, in server order.
    pub entries: Vec<Entry>,
    /// What is typed in the menu's search line.
    pub query: line::LineEditor,
    /// The parsed query.
    pub parsed_query: Query,
    /// The menu's rows, best first.
    pub ranked: Arc<Vec<Ranked>>,
    /// Remembers the last results, so typing one more key only looks at them.
    ranker: catalog::Ranker,
    /// The selected row.
    pub selected: usize,
    /// The user moved the selection: keep it on the same prompt when the list changes.
    /// Until then the first row stays selected as servers connect.
    selection_pinned: bool,
    /// The main screen.
    pub screen: Screen,
    /// A pane over the screen, if any.
    pub overlay: Option<Overlay>,
    /// Each server's stderr lines and log messages, and mcpick's notes about it.
    pub logs: BTreeMap<ServerId, ServerLines>,
    /// Remembered prompts and values.
    pub history: History,
    /// The current notice.
    pub flash: Option<Flash>,
    /// Every notice shown, oldest first (the last [`NOTICES_KEPT`]), for the logs pane.
    pub notices: VecDeque<Notice>,
    /// Lines the help is scrolled by.
    pub help_scroll: u16,
    /// Ticks since start (drives spinners and debouncing).
    pub tick: u64,
    /// The terminal's size (columns, rows), for what update must know of the layout.
    pub size: (u16, u16),
    /// The menu's first visible row, kept so the list scrolls only as far as needed.
    pub menu_top: usize,
    /// The last left click on a menu entry (its rank, when in ms), to tell a double click.
    last_click: Option<(usize, u64)>,
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
    /// An accept's copy is under way and nothing was typed since: its end leaves the review.
    leave_after_copy: bool,
}

impl App {
    /// A new app for `servers` (all connecting), with the remembered `history`.
    pub fn new(servers: Vec<ServerId>, options: Options, keys: KeyMap, history: History) -> App {
        let mut app = App {
            keys,
            options,
            servers: servers
                .into_iter()
                .map(|name| ServerStatus {
                    name,
                    state: ServerState::Connecting,
                })
                .collect(),
            prompts: BTreeMap::new(),
            server_sources: BTreeMap::new(),
            offer: Vec::new(),
            waiting: Vec::new(),
            sign_ins: BTreeMap::new(),
            signing_in: Default::default(),
            input_servers: BTreeMap::new(),
            retrying: Vec::new(),
            entries: Vec::new(),
            query: line::LineEditor::default(),
            parsed_query: Query {
                server: None,
                needle: String::new(),
            },
            ranked: Arc::default(),
            ranker: catalog::Ranker::default(),
            selected: 0,
            selection_pinned: false,
            screen: Screen::Picker,
            overlay: None,
            logs: BTreeMap::new(),
            history,
            flash: None,
            notices: VecDeque::new(),
            help_scroll: 0,
            tick: 0,
            size: (80, 24),
            menu_top: 0,
            last_click: None,
            next_id: 0,
            quit_armed: false,
            draft_due: None,
            draft_saved: false,
            exit: None,
            pending_start: None,
            exported_any: false,
            leave_after_copy: false,
        };
        app.query = line::LineEditor::new(&app.options.start.query);
        app.pending_start = Some(app.options.start.clone());
        app.refilter();
        app
    }

    /// Whether something animates or waits on time, so the runner should keep ticking.
    pub fn wants_ticks(&self) -> bool {
        // (A notice that waits for a key needs no clock.)
        self.flash.as_ref().is_some_and(|f| f.until != u64::MAX)
            || self.draft_due.is_some()
            || self
                .servers
                .iter()
                .any(|s| s.state == ServerState::Connecting)
            || match &self.screen {
                Screen::Form(form) => form.fetching.is_some() || form.completion_due.is_some(),
                Screen::Questions(q) => q.fetching.is_some(),
                Screen::Review(r) => r.reading.is_some(),
                Screen::Picker => false,
            }
    }

    /// The key table that applies now.
    pub fn key_screen(&self) -> KeyScreen {
        match (&self.overlay, &self.screen) {
            (Some(Overlay::Logs(_)), _) => KeyScreen::Logs,
            (Some(Overlay::Inputs(_)), _) => KeyScreen::Inputs,
            (_, Screen::Picker) => KeyScreen::Picker,
            (_, Screen::Form(_)) => KeyScreen::Form,
            (_, Screen::Questions(_)) => KeyScreen::Questions,
            (_, Screen::Review(r)) if r.is_typing() => KeyScreen::Editor,
            (_, Screen::Review(_)) => KeyScreen::Review,
        }
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Applies one message; returns the work it asks for.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let typed = matches!(msg, Msg::Key(_) | Msg::Paste(_) | Msg::Edited(_));
        if typed {
            // A notice meant to stay until the user acts goes now, at its usual pace.
            if let Some(flash) = &mut self.flash
                && flash.until == u64::MAX
            {
                flash.until = self.tick + FLASH_TICKS / 2;
            }
            // The user took over before the servers answered: the start request is void.
            self.pending_start = None;
            // …and a copy still under way no longer leaves the review.
            self.leave_after_copy = false;
        }
        let mut effects = self.update_screens(msg);
        if self.pending_start.is_some() {
            effects.extend(self.settle_start());
        }
        // Remember where the list was drawn from: the next draw scrolls only from there.
        if matches!(self.screen, Screen::Picker) {
            let height = layout::menu_list(self).height as usize;
            self.menu_top = layout::first_row(self, height);
        }
        // A review with edits is saved as a draft shortly after the typing stops, and its
        // draft goes once the review is left (exported or discarded).
        match &self.screen {
            Screen::Review(_) if typed => {
                self.draft_due = Some(self.tick + DRAFT_TICKS);
            }
            Screen::Review(_) => {}
            _ if self.draft_saved => {
                self.draft_saved = false;
                self.draft_due = None;
                effects.push(Effect::DeleteDraft);
            }
            _ => self.draft_due = None,
        }
        effects
    }

    /// Shows the review of `draft`, kept from a run that ended without exporting it.
    pub fn restore_draft(&mut self, draft: Draft) {
        let what = draft.slash_name.clone();
        let mut review = ReviewState::from_draft(draft, &self.history, self.options.format);
        review.screen_width = self.size.0;
        self.screen = Screen::Review(Box::new(review));
        self.draft_saved = true;
        self.notify(format!(
            "Your unexported draft of /{what} from last time (Esc twice discards it)."
        ));
    }

    /// The review's draft, saved or removed as its state says, when it is due.
    fn draft_effect(&mut self) -> Option<Effect> {
        if self.draft_due.is_none_or(|due| self.tick < due) {
            return None;
        }
        self.draft_due = None;
        let Screen::Review(review) = &self.screen else {
            return None;
        };
        if review.has_unsaved_work() {
            self.draft_saved = true;
            Some(Effect::SaveDraft(Box::new(review.draft())))
        } else if self.draft_saved {
            self.draft_saved = false;
            Some(Effect::DeleteDraft)
        } else {
            None
        }
    }

    /// The export reached the clipboard or a file: the draft is no longer needed.
    fn exported(&mut self) -> Vec<Effect> {
        self.exported_any = true;
        if std::mem::take(&mut self.draft_saved) {
            self.draft_due = None;
            vec![Effect::DeleteDraft]
        } else {
            Vec::new()
        }
    }

    fn update_screens(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Tick => self.on_tick(),
            Msg::Key(key) => self.on_key(key),
            Msg::Paste(text) => self.on_paste(&text),
            Msg::Resize(columns, rows) => {
                self.size = (columns, rows);
                if let Screen::Review(review) = &mut self.screen {
                    review.screen_width = columns;
                }
                Vec::new()
            }
            Msg::WheelUp | Msg::WheelDown if matches!(self.overlay, Some(Overlay::Help)) => {
                let up = matches!(msg, Msg::WheelUp);
                self.on_action(if up { Action::Up } else { Action::Down })
            }
            Msg::WheelUp | Msg::WheelDown => {
                let up = matches!(msg, Msg::WheelUp);
                match &mut self.screen {
                    // In a review the wheel scrolls the message, like a pager.
                    Screen::Review(review) if self.overlay.is_none() && !review.is_typing() => {
                        review.wheel(up);
                        Vec::new()
                    }
                    _ => self.on_action(if up { Action::Up } else { Action::Down }),
                }
            }
            Msg::Click { column, row, at_ms } => self.on_click(column, row, at_ms),
            Msg::Mcp(event) => {
                self.on_mcp(event);
                Vec::new()
            }
            Msg::Completed { id, result } => {
                if let Screen::Form(form) = &mut self.screen {
                    form.on_completed(id, result, &self.history);
                }
                Vec::new()
            }
            Msg::Fetched { id, result } => self.on_fetched(id, result),
            Msg::ResourceRead { id, result } => {
                if let Screen::Review(review) = &mut self.screen {
                    match review.on_resource_read(id, result) {
                        Ok(Some(note)) => self.notify(note),
                        Ok(None) => {}
                        Err(error) => self.warn(error),
                    }
                }
                Vec::new()
            }
            Msg::Copied { result, leave } => {
                // The user went on (a key since the accept): the review on screen may not be
                // the one copied, so it is neither left nor counted as exported.
                let untouched = !leave || std::mem::take(&mut self.leave_after_copy);
                // Leave the review only once its export is somewhere (or was sent as OSC 52,
                // which the message says cannot be confirmed); a failure keeps it open.
                if leave && untouched && result.is_ok() && matches!(self.screen, Screen::Review(_))
                {
                    self.screen = Screen::Picker;
                }
                let effects = if result.is_ok() && untouched {
                    self.exported()
                } else {
                    self.exported_any |= result.is_ok();
                    Vec::new()
                };
                match result {
                    Ok(copied) => self.notify(format!("{}.", copied.summary())),
                    Err(error) => {
                        self.warn(format!("Copy failed: {error}. {COPY_FAILED_WAYS_OUT}"))
                    }
                }
                effects
            }
            Msg::Saved {
                purpose,
                path,
                result,
            } => self.on_saved(purpose, path, result),
            Msg::SourcesAdded(result) => {
                match result {
                    Ok((path, servers)) => {
                        self.notify(format!(
                            "Wrote {} with `sources`; starting {} server{}.",
                            path.display(),
                            servers.len(),
                            if servers.len() == 1 { "" } else { "s" }
                        ));
                        for (name, source) in servers {
                            self.set_state(&name, ServerState::Connecting);
                            self.server_sources.insert(name, source);
                        }
                    }
                    Err(error) => self.warn(error),
                }
                Vec::new()
            }
            Msg::InputsNeeded(waiting) => {
                self.on_inputs_needed(waiting);
                Vec::new()
            }
            Msg::SignInUrl { server, url } => {
                push_log(
                    self.logs.entry(server.clone()).or_default(),
                    mcpick_line(format!("sign in at {url}"), self.tick),
                );
                let logs = self
                    .keys
                    .hint(KeyScreen::Picker, Action::Logs)
                    .unwrap_or_else(|| "the logs".into());
                self.notify(format!(
                    "Sign in to {server} in the browser (its URL is in the logs: {logs})."
                ));
                Vec::new()
            }
            Msg::SignedIn { server, result } => {
                self.signing_in.remove(&server);
                match result {
                    Ok(()) => {
                        self.sign_ins.remove(&server);
                        self.set_state(&server, ServerState::Connecting);
                        self.notify(format!("Signed in to {server}; connecting."));
                        return vec![Effect::Restart { server }];
                    }
                    Err(error) => self.warn(format!("Sign-in to {server} failed: {error}")),
                }
                Vec::new()
            }
            Msg::Edited(result) => {
                match result {
                    Ok(text) => match &mut self.screen {
                        Screen::Form(form) => {
                            return form.set_focused_value(&text, &self.history, self.tick);
                        }
                        Screen::Questions(q) => q.set_focused_text(&text),
                        Screen::Review(review) => review.set_edited_text(text),
                        _ => {}
                    },
                    Err(error) => self.warn(error),
                }
                Vec::new()
            }
        }
    }

    fn on_tick(&mut self) -> Vec<Effect> {
        self.tick += 1;
        if self.flash.as_ref().is_some_and(|f| self.tick >= f.until) {
            self.flash = None;
        }
        if let Some(effect) = self.draft_effect() {
            return vec![effect];
        }
        let tick = self.tick;
        let id = self.next_id + 1;
        if let Screen::Form(form) = &mut self.screen
            && let Some(effect) = form.due_completion(tick, id, &self.servers)
        {
            self.next_id = id;
            return vec![effect];
        }
        Vec::new()
    }

    fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if let Some(Overlay::Inputs(prompt)) = &mut self.overlay {
            prompt.paste(text);
            return Vec::new();
        }
        if self.overlay.is_some() {
            return Vec::new();
        }
        let tick = self.tick;
        match &mut self.screen {
            Screen::Picker => {
                // The search line is one line.
                self.query.insert_str(&text.replace(['\r', '\n'], " "));
                self.refilter();
                Vec::new()
            }
            Screen::Form(form) => form.paste(text, tick),
            Screen::Questions(q) => {
                q.paste(text);
                Vec::new()
            }
            Screen::Review(review) => {
                review.paste(text);
                Vec::new()
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let screen = self.key_screen();
        let action = self.keys.action(screen, &key);
        if action != Some(Action::Quit) {
            self.quit_armed = false;
        }
        // Typing goes to the search line; bound plain characters (like `?`) act only on
        // an empty one.
        if screen == KeyScreen::Picker
            && self.overlay.is_none()
            && is_typing(&key)
            && !self.query.is_empty()
        {
            return self.picker_type(key);
        }
        if let Some(Overlay::Logs(view)) = &mut self.overlay
            && view.editing_filter
        {
            // The filter line takes typing and its editing keys; Enter keeps the filter,
            // Esc clears it; other keys (arrows, Tab, Ctrl-C) still act on the pane.
            match key.code {
                KeyCode::Enter => {
                    view.editing_filter = false;
                    return Vec::new();
                }
                KeyCode::Esc => {
                    view.filter.clear();
                    view.editing_filter = false;
                    view.scroll_from_bottom = 0;
                    return Vec::new();
                }
                _ => {
                    let before = view.filter.clone();
                    if view.filter.key(key) {
                        view.scroll_from_bottom = 0;
                    }
                    // A cursor move is the line's too, as is any typed character.
                    if view.filter != before || is_typing(&key) {
                        return Vec::new();
                    }
                }
            }
        }
        if self.overlay == Some(Overlay::Help) {
            // Arrows and pages scroll a help taller than the screen; any other key closes it.
            match key.code {
                KeyCode::Up | KeyCode::Char('k') => {
                    self.help_scroll = self.help_scroll.saturating_sub(1)
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.help_scroll = self.help_scroll.saturating_add(1)
                }
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                KeyCode::PageDown | KeyCode::Char(' ') => {
                    self.help_scroll = self.help_scroll.saturating_add(10)
                }
                _ => self.overlay = None,
            }
            return Vec::new();
        }
        match action {
            Some(action) => self.on_action(action),
            None => self.on_unbound_key(key),
        }
    }

    fn on_unbound_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(Overlay::Inputs(prompt)) = &mut self.overlay {
            prompt.type_key(key);
            return Vec::new();
        }
        if self.overlay.is_some() {
            return Vec::new();
        }
        let tick = self.tick;
        match &mut self.screen {
            Screen::Picker => self.picker_type(key),
            Screen::Form(form) => form.type_key(key, &self.history, tick),
            Screen::Questions(q) => {
                q.type_key(key);
                Vec::new()
            }
            Screen::Review(review) => {
                let outcome = review.type_key(key);
                self.review_outcome(outcome)
            }
        }
    }

    /// Runs an action of the current screen.
    pub fn on_action(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Quit => {
                // Text still in the editor counts as an edit.
                if let Screen::Review(review) = &mut self.screen {
                    review.finish_edit();
                }
                let edited = matches!(&self.screen, Screen::Review(r) if r.has_changes());
                if edited && !self.quit_armed {
                    self.quit_armed = true;
                    self.warn("You edited these messages: quit again to leave without exporting them (Enter accepts, s saves).");
                } else {
                    self.exit = Some(Exit::Quit);
                }
                return Vec::new();
            }
            _ if matches!(self.overlay, Some(Overlay::Inputs(_))) => {
                return self.inputs_action(action);
            }
            Action::Help => {
                self.overlay = Some(Overlay::Help);
                self.help_scroll = 0;
                return Vec::new();
            }
            Action::Up | Action::Down if self.overlay == Some(Overlay::Help) => {
                self.help_scroll = if action == Action::Up {
                    self.help_scroll.saturating_sub(1)
                } else {
                    self.help_scroll.saturating_add(1)
                };
                return Vec::new();
            }
            Action::Logs => {
                self.overlay = Some(Overlay::Logs(LogsView::default()));
                return Vec::new();
            }
            _ => {}
        }
        if let Some(Overlay::Logs(view)) = &mut self.overlay {
            // Back first drops a kept filter, then closes the pane.
            if action == Action::Back && !view.filter.is_empty() {
                view.filter.clear();
                view.scroll_from_bottom = 0;
                return Vec::new();
            }
            logs_action(view, action, &self.logs, &self.servers, &self.notices);
            if action == Action::Back {
                self.overlay = None;
            }
            return Vec::new();
        }
        let tick = self.tick;
        match &mut self.screen {
            Screen::Picker => self.picker_action(action),
            Screen::Form(form) => match form.action(action, &self.history, tick) {
                form::Outcome::Effects(effects) => effects,
                form::Outcome::Back => {
                    self.screen = Screen::Picker;
                    Vec::new()
                }
                form::Outcome::Submit => self.submit_form(),
            },
            Screen::Questions(q) => match q.action(action) {
                questions::Outcome::Nothing => Vec::new(),
                questions::Outcome::Message(text) => {
                    self.warn(text);
                    Vec::new()
                }
                questions::Outcome::Answer(answers) => self.answer_questions(answers),
                questions::Outcome::CancelFetch(id) => vec![Effect::CancelFetch { id }],
            },
            Screen::Review(review) => {
                let outcome = review.action(action, &self.options);
                self.review_outcome(outcome)
            }
        }
    }

    fn submit_form(&mut self) -> Vec<Effect> {
        let id = self.fresh_id();
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        if let Err(message) = form.validate() {
            form.error = Some(message);
            return Vec::new();
        }
        let arguments = form.arguments();
        form.error = None;
        form.fetching = Some((id, self.tick));
        vec![Effect::Fetch {
            id,
            server: form.prompt.server.clone(),
            prompt: form.prompt.name.clone(),
            arguments,
            answers: None,
        }]
    }

    fn answer_questions(&mut self, answers: InputAnswers) -> Vec<Effect> {
        let id = self.fresh_id();
        let Screen::Questions(q) = &mut self.screen else {
            return Vec::new();
        };
        q.fetching = Some((id, self.tick));
        vec![Effect::Fetch {
            id,
            server: q.form.prompt.server.clone(),
            prompt: q.form.prompt.name.clone(),
            arguments: q.arguments.clone(),
            answers: Some(answers),
        }]
    }

    fn on_fetched(&mut self, id: u64, result: Result<GetOutcome, McpError>) -> Vec<Effect> {
        // Take the form this answer belongs to; a stale answer (cancelled) changes nothing.
        let form = match &mut self.screen {
            Screen::Form(form) if form.fetching.map(|(f, _)| f) == Some(id) => {
                form.fetching = None;
                form.as_ref().clone()
            }
            Screen::Questions(q) if q.fetching.map(|(f, _)| f) == Some(id) => {
                q.fetching = None;
                q.form.clone()
            }
            _ => return Vec::new(),
        };
        match result {
            Ok(GetOutcome::Messages(messages)) => {
                let arguments = form.arguments();
                self.history.record(&form.slash_name, &arguments);
                let mut review = ReviewState::new(form, arguments, messages, self.options.format);
                review.screen_width = self.size.0;
                self.screen = Screen::Review(Box::new(review));
                vec![Effect::SaveHistory(self.history.clone())]
            }
            Ok(GetOutcome::InputRequired(request)) => {
                let arguments = form.arguments();
                self.screen =
                    Screen::Questions(Box::new(QuestionsState::new(form, arguments, request)));
                Vec::new()
            }
            Err(error) => {
                if let McpError::SignInRequired {
                    server, challenge, ..
                } = &error
                {
                    self.sign_ins.insert(server.clone(), challenge.clone());
                }
                let mut form = form;
                form.error = Some(describe_error(&error));
                self.screen = Screen::Form(Box::new(form));
                Vec::new()
            }
        }
    }

    fn review_outcome(&mut self, outcome: review::Outcome) -> Vec<Effect> {
        match outcome {
            review::Outcome::Nothing => Vec::new(),
            review::Outcome::Effects(effects) => effects,
            review::Outcome::Notice(text) => {
                self.notify(text);
                Vec::new()
            }
            review::Outcome::Warning(text) => {
                self.warn(text);
                Vec::new()
            }
            review::Outcome::Back => {
                if let Screen::Review(review) = &mut self.screen {
                    let form = review.form.clone();
                    self.screen = if form.fields.is_empty() {
                        Screen::Picker
                    } else {
                        Screen::Form(Box::new(form))
                    };
                }
                Vec::new()
            }
            review::Outcome::Print(text) => {
                self.exit = Some(Exit::Print(text));
                Vec::new()
            }
            review::Outcome::CopyAndLeave(text) => {
                // A copy through a program takes a moment: say so, and leave only if nothing
                // else happens meanwhile.
                self.leave_after_copy = true;
                self.notify(COPYING);
                vec![Effect::Copy { text, leave: true }]
            }
            review::Outcome::ReadResource { server, uri } => {
                if self.server_details(&server).is_some_and(|d| !d.resources) {
                    self.warn(format!(
                        "{} does not offer resources (no `resources` capability), so the link cannot be fetched here.",
                        crate::text::one_line(&server)
                    ));
                    return Vec::new();
                }
                let id = self.fresh_id();
                if let Screen::Review(review) = &mut self.screen {
                    review.reading = Some((id, self.tick));
                }
                vec![Effect::ReadResource { id, server, uri }]
            }
        }
    }

    fn on_saved(
        &mut self,
        purpose: SavePurpose,
        path: PathBuf,
        result: Result<(), WriteError>,
    ) -> Vec<Effect> {
        match result {
            Ok(()) => {
                if purpose == (SavePurpose::Export { then_exit: true }) {
                    self.exit = Some(Exit::Accepted);
                } else {
                    self.notify(format!("Saved {}.", path.display()));
                }
                if matches!(purpose, SavePurpose::Export { .. }) {
                    return self.exported();
                }
            }
            Err(WriteError::Exists(path)) => {
                if let Screen::Review(review) = &mut self.screen {
                    review.ask_overwrite(path, purpose);
                } else {
                    self.warn(format!("{} exists; not replaced.", path.display()));
                }
            }
            Err(WriteError::Failed(message)) => self.warn(format!("Save failed: {message}")),
        }
        Vec::new()
    }
}

/// A plain character typed without Ctrl or Alt.
fn is_typing(key: &KeyEvent) -> bool {
    matches!(key.code, KeyCode::Char(_))
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// An error as the form shows it: the server's code and message, or what went wrong.
pub fn describe_error(error: &McpError) -> String {
    // `McpError` already says "server error CODE: MESSAGE".
    error.to_string()
}

/// The spinner frame for `tick`.
pub fn spinner(tick: u64) -> char {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    FRAMES[(tick % FRAMES.len() as u64) as usize]
}

#[cfg(test)]
pub(crate) mod tests;
