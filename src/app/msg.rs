//! The messages the loop feeds `update`, and the effects `update` asks the runner for.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crossterm::event::KeyEvent;

use crate::config::{InputSpec, InputValues};
use crate::export::clipboard::Copied;
use crate::export::sink::WriteError;
use crate::mcp::{GetOutcome, InputAnswers, McpError, McpEvent};
use crate::model::{Completion, EmbeddedResource, ServerId};

use super::source::CommandOutcome;
use super::{Draft, FileList, History, SavePurpose};

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
        /// What the last frame drew there, when it is a thing a click acts on (a field, a
        /// suggestion, a message, a hint); the menu's rows are found from the cell.
        target: Option<ClickTarget>,
    },
    /// Time passed (spinners, debounced completion, notices).
    Tick,
    /// A second passed while the screen shows an age by the wall clock (a catalog's
    /// "listed 5 s ago"): nothing changes but the drawing. Apart from [`Msg::Tick`], whose
    /// count times the notices.
    Clock,
    /// The syntax highlighter finished loading (off the loop): rows laid out with code
    /// plain are laid out again, highlighted, at the next draw.
    HighlighterReady,
    /// The terminal's background (OSC 11), as relative luminance (0 black … 1 white): at
    /// start, or late (an answer that came after the start stopped waiting).
    Background(f64),
    /// A body's whole layout ([`Effect::LayOutBody`]'s answer): put in place of the rows
    /// drawn with code left plain.
    BodyLaidOut {
        /// The body ([`crate::render::rows::BodyLayout::id`]).
        body: u64,
        /// The layout it is.
        key: crate::render::rows::RowsKey,
        /// Its rows.
        rows: crate::render::rows::Rows,
    },
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
    /// The audio player ended on its own (not when stopped).
    AudioEnded {
        /// The request it answers.
        id: u64,
        /// `Err`: why it could not play (no player, or the player's own error).
        result: Result<(), String>,
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
    /// The files below the current folder, for the file picker.
    FilesListed {
        /// The request it answers.
        id: u64,
        /// The files.
        list: FileList,
    },
    /// A file read for a field: its text, or why it cannot be a value.
    FileRead {
        /// The request it answers.
        id: u64,
        /// The text, or the refusal (binary, too large, missing).
        result: Result<String, String>,
    },
    /// A command run for a field ended.
    CommandRan {
        /// The request it answers.
        id: u64,
        /// Its output, or how it failed.
        outcome: CommandOutcome,
    },
    /// An image of the review decoded (or encoded for a new width), or why not.
    ImageDecoded {
        /// The request it answers.
        id: u64,
        /// The picture, or the line saying why there is none.
        result: Result<super::images::Decoded, String>,
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
        /// Set for a skill (SEP-2640): its manifest. The skill's files are read and
        /// verified in place of `prompts/get`; `arguments` holds its task.
        skill: Option<Box<crate::model::skill_manifest::SkillManifest>>,
    },
    /// Lay a body out whole, its code highlighted (CPU work, off the loop): answered by
    /// [`Msg::BodyLaidOut`].
    LayOutBody {
        /// The body ([`crate::render::rows::BodyLayout::id`]).
        body: u64,
        /// The layout wanted.
        key: crate::render::rows::RowsKey,
        /// What it holds (boxed: a content is large beside the other effects).
        content: Box<crate::model::Content>,
    },
    /// Play audio bytes with the configured player or the first one found.
    PlayAudio {
        /// The request id, echoed in [`Msg::AudioEnded`].
        id: u64,
        /// The file's bytes.
        bytes: Vec<u8>,
        /// Its file name extension (`wav`, `mp3`…), which players go by.
        extension: String,
        /// The config's `audio_player`, if set.
        player: Option<Vec<String>>,
    },
    /// Stop the audio playing (the player is killed).
    StopAudio {
        /// The request that started it.
        id: u64,
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
    /// Give the terminal back and stop this process until `fg` (the `suspend` action).
    Suspend,
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
    /// Keep the forms' unsent values on disk (replacing the file there).
    SaveFormDrafts(super::FormDrafts),
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
    /// Fetch a server's prompt list again now, whatever its catalog's TTL (Ctrl-R); the
    /// answer comes as `PromptsChanged`, or `ListStale` when it fails.
    Relist {
        /// The server.
        server: ServerId,
    },
    /// List the files below the current folder (`.gitignore` respected, capped); the
    /// answer is [`Msg::FilesListed`].
    ListFiles {
        /// The request id.
        id: u64,
    },
    /// Read a file as an argument value (the answer is [`Msg::FileRead`]).
    ReadFile {
        /// The request id.
        id: u64,
        /// The path as given (`~` expanded, relative to the current folder).
        path: String,
    },
    /// Run a shell command for an argument value (the answer is [`Msg::CommandRan`]).
    RunCommand {
        /// The request id.
        id: u64,
        /// The command, for `sh -c`.
        command: String,
    },
    /// Stop the command running for a value, if one is.
    CancelCommand,
    /// Sign in to a server in the browser (the answer is [`Msg::SignedIn`]).
    SignIn {
        /// The server.
        server: ServerId,
        /// The `WWW-Authenticate` value it answered with, if any.
        challenge: Option<String>,
    },
    /// Decode an image of the review and encode its picture (the answer is
    /// [`Msg::ImageDecoded`]); on a blocking thread, bounded.
    DecodeImage {
        /// The request id.
        id: u64,
        /// Its base64 data.
        data: String,
        /// Its MIME type, as the server said.
        mime: String,
        /// How pictures are drawn here.
        graphics: super::images::Graphics,
        /// The columns the picture may take.
        columns: u16,
    },
    /// Encode a decoded image's picture for another width (the answer is
    /// [`Msg::ImageDecoded`]).
    EncodeImage {
        /// The request id.
        id: u64,
        /// The decoded image.
        source: super::images::SourceImage,
        /// How pictures are drawn here.
        graphics: super::images::Graphics,
        /// The columns the picture may take.
        columns: u16,
    },
}

/// What a left click can land on, besides the menu's rows: found in the [`Hits`] the last
/// frame drew, so a click acts on what the user saw under the mouse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClickTarget {
    /// The form's field at this index (its title or its box).
    Field(usize),
    /// The focused field's suggestion at this index.
    Suggestion(usize),
    /// The review's message at this index.
    Message(usize),
    /// A hint of the bottom line naming a key: the click does what the key does.
    Hint(super::Action),
}

/// Where a frame drew what a click can land on, in terminal cells. Drawing fills it, the
/// event loop keeps the last frame's and looks each click up in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hits(Vec<(ratatui::layout::Rect, ClickTarget)>);

impl Hits {
    /// `target` is drawn over `area` (drawn later than what it covers).
    pub fn push(&mut self, area: ratatui::layout::Rect, target: ClickTarget) {
        if !area.is_empty() {
            self.0.push((area, target));
        }
    }

    /// What is drawn at the cell (`column`, `row`): the last one pushed there.
    pub fn at(&self, column: u16, row: u16) -> Option<ClickTarget> {
        let cell = ratatui::layout::Position::new(column, row);
        self.0
            .iter()
            .rev()
            .find(|(area, _)| area.contains(cell))
            .map(|(_, target)| *target)
    }
}
