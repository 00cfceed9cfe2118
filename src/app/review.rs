//! The review screen: the returned messages, edited in place, and their export.

mod marks;
mod view;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Line;
use ratatui_textarea::TextArea;

pub use super::draft::{Draft, ReviewItem};
use super::form::{FormState, editor_with};
use super::keys::Action;
use super::{Effect, Options, SavePurpose};
use crate::export::{self, Format};
use crate::mcp::McpError;
use crate::model::{Content, EmbeddedResource, KnownContent, Message, PromptMessages, Role};
pub use crate::render::body::{body_lines, body_rows, is_audio};

/// Rows kept in view above and below the selected message while they fit (as vim's
/// `scrolloff`): enough for a folded neighbour whole (a gap, its header, three lines and
/// the fold), so the message before the selected one stays in sight.
const SCROLL_OFF: usize = 6;

/// Lines of a message shown when it is not selected and the messages do not all fit.
pub const FOLDED_LINES: usize = 3;

/// Edits undo keeps at most (the oldest go first)…
const UNDO_STEPS: usize = 100;
/// …and the most message bytes they may hold together, so undoing a 30 MB message's
/// edits does not keep gigabytes.
const UNDO_BYTES: usize = 256 * 1024 * 1024;

/// One row of the messages pane, as [`ReviewState::messages_view`] lays them out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewRow {
    /// The empty row between two messages.
    Gap,
    /// The line naming message `index` (number, role, kind).
    Header(usize),
    /// Row `row` of message `index`'s wrapped body.
    Body {
        /// The message.
        index: usize,
        /// Its body row.
        row: usize,
    },
    /// `… N more lines` under a folded message.
    Folded(usize),
    /// `… N more lines` under what the selected message shows at once (PgDn scrolls it).
    More(usize),
}

/// The messages pane laid out at one size: every row, and which of them are shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagesView {
    /// Every row, from the first message's header to the last message's end.
    pub rows: Vec<ViewRow>,
    /// The first row shown.
    pub top: usize,
    /// The rows shown at once.
    pub height: usize,
    /// The width bodies wrap at.
    pub width: usize,
    /// The row of each message's header.
    pub headers: Vec<usize>,
    /// The selected message's body rows shown at once.
    pub window: usize,
    /// How far the selected message scrolls: to its last full window.
    pub max_scroll: usize,
    /// The scroll drawn (the state's, kept within `max_scroll`).
    pub scroll: usize,
}

impl MessagesView {
    /// The rows on screen.
    pub fn visible(&self) -> &[ViewRow] {
        let end = (self.top + self.height).min(self.rows.len());
        &self.rows[self.top.min(end)..end]
    }

    /// Whether the header of message `index` is on screen.
    pub fn shows_header(&self, index: usize) -> bool {
        self.headers
            .get(index)
            .is_some_and(|&row| row >= self.top && row < self.top + self.height)
    }
}

/// The export preview laid out at one size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewView {
    /// The export's rows, wrapped at the pane's width (laid out once per export, width and
    /// way of drawing: kept while they stay the same).
    pub rows: std::sync::Arc<Vec<Line<'static>>>,
    /// The first row shown.
    pub top: usize,
    /// The rows shown at once.
    pub height: usize,
}

/// The preview's rows as last laid out, with what they were laid out from.
#[derive(Debug, Clone)]
struct PreviewCache {
    /// The format, width, raw or rendered, and whether code was highlighted.
    key: (Format, usize, bool, bool),
    export: String,
    rows: std::sync::Arc<Vec<Line<'static>>>,
}

/// The review's messages at one moment, to go back to.
#[derive(Debug, Clone)]
struct Snapshot {
    items: Vec<ReviewItem>,
    selected: usize,
    /// The edit made after it, as undo names it ("the delete").
    what: &'static str,
}

impl Snapshot {
    /// The bytes its messages hold, roughly.
    fn weight(&self) -> usize {
        self.items
            .iter()
            .map(|i| content_weight(&i.message().content))
            .sum()
    }
}

/// The bytes a block holds, roughly (its text or its base64 data).
fn content_weight(content: &Content) -> usize {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => text.len(),
        Content::Known(KnownContent::Image { data, .. })
        | Content::Known(KnownContent::Audio { data, .. }) => data.len(),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text { text, .. } => text.len(),
            EmbeddedResource::Blob { blob, .. } => blob.len(),
        },
        _ => 256,
    }
}

/// What a one-line input at the bottom is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinePurpose {
    /// The path to save the export to.
    SaveExport,
    /// The path to save a block's bytes to.
    SaveBytes,
}

/// A one-line input (a file path).
#[derive(Debug, Clone)]
pub struct LineInput {
    /// What it is for.
    pub purpose: LinePurpose,
    /// What is asked.
    pub label: String,
    /// The text.
    pub editor: TextArea<'static>,
    /// The bytes to write once the path is given.
    contents: Vec<u8>,
}

/// A pending question: replace an existing file?
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// The file that exists.
    pub path: PathBuf,
    /// Why it is being saved.
    pub purpose: SavePurpose,
    contents: Vec<u8>,
}

/// Where the review is, for PgUp to come back to: (selected, scroll, top).
type PagePlace = (usize, usize, usize);

/// The most PgDn steps PgUp retraces exactly.
const MAX_PAGE_TRAIL: usize = 256;

/// The state of the review screen.
#[derive(Debug, Clone)]
pub struct ReviewState {
    /// The form that produced it (Esc goes back to it, values kept).
    pub form: FormState,
    /// The arguments sent.
    pub arguments: BTreeMap<String, String>,
    /// What the server returned.
    pub original: PromptMessages,
    /// The messages as they are now.
    pub items: Vec<ReviewItem>,
    /// The selected message.
    pub selected: usize,
    /// Lines scrolled within the selected message.
    pub scroll: usize,
    /// The text editor, while editing the selected message.
    pub editor: Option<TextArea<'static>>,
    /// The export format.
    pub format: Format,
    /// The terminal's size (columns, rows), for the layout (kept up to date by the app).
    pub screen: (u16, u16),
    /// The first row of the messages pane drawn last: the next draw scrolls only from
    /// there (kept by [`ReviewState::settle`]).
    pub top: usize,
    /// Where each PgDn started and ended (selected, scroll, top), newest last: a PgUp from
    /// where one ended goes back exactly where it started.
    page_trail: Vec<(PagePlace, PagePlace)>,
    /// Whether the export preview is shown.
    pub preview: bool,
    /// Whether keys act on the preview while it is beside the messages (Tab switches).
    pub preview_focused: bool,
    /// The preview's first row shown.
    pub preview_scroll: usize,
    /// The message and format the preview last scrolled to; another one scrolls it again.
    preview_for: Option<(usize, Format)>,
    /// The markdown preview drawn as its source rather than rendered (`m` while the
    /// preview has the keys).
    pub preview_raw: bool,
    /// The preview's rows as last laid out, kept while the export and the layout stay.
    preview_cache: std::cell::RefCell<Option<PreviewCache>>,
    /// The editor shows the text's control characters as the review does (`␛`): its
    /// text is turned back into the real bytes when it is taken.
    editor_shows_controls: bool,
    /// The messages before the editor opened, an undo step once its text changed.
    edit_before: Option<Snapshot>,
    /// Earlier states of the messages, the last one first undone.
    undo: Vec<Snapshot>,
    /// States undone, the last one first redone.
    redo: Vec<Snapshot>,
    /// An export asked for while the messages hold control characters: the same action
    /// again exports them as they are, `x` strips them first.
    controls_armed: Option<Action>,
    /// The user chose to export the control characters as they are: no more asking.
    controls_accepted: bool,
    /// A one-line input, when asking for a path.
    pub input: Option<LineInput>,
    /// A pending overwrite question.
    pub confirm: Option<Confirm>,
    /// Esc was pressed once with edits: the next Esc discards them.
    pub discard_armed: bool,
    /// A `resources/read` in flight: request id and the tick it started.
    pub reading: Option<(u64, u64)>,
    reading_index: usize,
    reading_uri: String,
    /// The last contents handed to a save, kept for an overwrite confirmation.
    pending_contents: Vec<u8>,
    /// The images' pictures: decoded in tasks, kept per width.
    pub pictures: super::images::Pictures,
    /// An accept's copy is under way and nothing was typed since: its end leaves the review.
    pub leave_after_copy: bool,
}

/// What a review action leads to.
pub(super) enum Outcome {
    Nothing,
    Effects(Vec<Effect>),
    Notice(String),
    Warning(String),
    Back,
    Print(String),
    CopyAndLeave(String),
    ReadResource {
        server: String,
        uri: String,
    },
    /// Play these audio bytes (a file with this extension), of message `index`.
    Play {
        bytes: Vec<u8>,
        extension: String,
        index: usize,
    },
}

/// The longest text edited in place; a longer one opens in `$EDITOR`.
pub const EDIT_INLINE_UP_TO_BYTES: usize = 512 * 1024;

/// The editable text of a block: text blocks and text resources.
pub fn editable_text(content: &Content) -> Option<&str> {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => Some(text),
        Content::Known(KnownContent::Resource {
            resource: EmbeddedResource::Text { text, .. },
            ..
        }) => Some(text),
        _ => None,
    }
}

fn set_text(content: &mut Content, new_text: String) {
    match content {
        Content::Known(KnownContent::Text { text, .. })
        | Content::Known(KnownContent::Resource {
            resource: EmbeddedResource::Text { text, .. },
            ..
        }) => *text = new_text,
        _ => {}
    }
}

/// The bytes a block carries, with a file name extension for them.
fn block_bytes(content: &Content) -> Option<Result<(Vec<u8>, String), String>> {
    let decode = |data: &str| {
        export::decode_base64(data).map_err(|e| format!("the server's base64 data is damaged: {e}"))
    };
    let extension = |mime: &str| {
        let sub = mime.split('/').nth(1).unwrap_or("bin");
        let sub = sub.split([';', '+']).next().unwrap_or("bin");
        match sub {
            "jpeg" => "jpg".to_string(),
            "mpeg" => "mp3".to_string(),
            "plain" => "txt".to_string(),
            "markdown" => "md".to_string(),
            other
                if !other.is_empty()
                    && other.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') =>
            {
                other.to_string()
            }
            _ => "bin".to_string(),
        }
    };
    match content {
        Content::Known(KnownContent::Image {
            data, mime_type, ..
        })
        | Content::Known(KnownContent::Audio {
            data, mime_type, ..
        }) => Some(decode(data).map(|b| (b, extension(mime_type)))),
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Blob {
                blob, mime_type, ..
            } => Some(decode(blob).map(|b| {
                (
                    b,
                    extension(mime_type.as_deref().unwrap_or("application/octet-stream")),
                )
            })),
            EmbeddedResource::Text {
                text, mime_type, ..
            } => Some(Ok((
                text.clone().into_bytes(),
                extension(mime_type.as_deref().unwrap_or("text/plain")),
            ))),
        },
        _ => None,
    }
}

/// A file name that is safe to offer: letters, digits, `-`, `_`, `.` only.
fn safe_file_name(name: &str) -> String {
    let cleaned = crate::text::name_chars(name);
    let cleaned = cleaned.trim_matches(['-', '.']).to_string();
    if cleaned.is_empty() {
        "prompt".into()
    } else {
        cleaned
    }
}

/// The file name extension of a format.
pub fn format_extension(format: Format) -> &'static str {
    match format {
        Format::Markdown => "md",
        Format::Text => "txt",
        Format::McpJson | Format::OpenAi | Format::Anthropic => "json",
    }
}

/// The config name of a format.
pub fn format_name(format: Format) -> &'static str {
    format.name()
}

impl ReviewState {
    /// How the review splits `main` (the main area of the screen).
    pub fn areas_in(&self, main: ratatui::layout::Rect) -> super::layout::ReviewAreas {
        let bottom_line = self.input.is_some() || self.confirm.is_some() || self.reading.is_some();
        let preview = self.preview && self.editor.is_none();
        super::layout::review(main, bottom_line, preview)
    }

    /// The review's parts on a terminal of `self.screen` (columns, rows); all empty when it
    /// is too small to draw in.
    pub fn areas_on_screen(&self) -> super::layout::ReviewAreas {
        let (columns, rows) = self.screen;
        super::layout::main_area(columns, rows)
            .map(|main| self.areas_in(main))
            .unwrap_or_default()
    }

    /// The review of `messages`, fetched with `form`'s `arguments`.
    pub fn new(
        form: FormState,
        arguments: BTreeMap<String, String>,
        messages: PromptMessages,
        format: Format,
    ) -> ReviewState {
        let items = messages
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| ReviewItem::new(m.clone(), Some(i)))
            .collect();
        ReviewState {
            form,
            arguments,
            original: messages,
            items,
            selected: 0,
            scroll: 0,
            editor: None,
            format,
            screen: (80, 24),
            top: 0,
            page_trail: Vec::new(),
            preview: false,
            preview_focused: false,
            preview_scroll: 0,
            preview_for: None,
            preview_raw: false,
            preview_cache: Default::default(),
            editor_shows_controls: false,
            edit_before: None,
            undo: Vec::new(),
            redo: Vec::new(),
            controls_armed: None,
            controls_accepted: false,
            input: None,
            confirm: None,
            discard_armed: false,
            reading: None,
            reading_index: 0,
            reading_uri: String::new(),
            pending_contents: Vec::new(),
            pictures: super::images::Pictures::default(),
            leave_after_copy: false,
        }
    }

    /// The decodes the images need at the messages pane's width, drawn as `graphics` says
    /// (each image and width asked once; ids from `next_id`).
    pub(super) fn wanted_pictures(
        &mut self,
        graphics: super::images::Graphics,
        next_id: &mut u64,
    ) -> Vec<Effect> {
        if self.pictures.graphics != graphics {
            self.pictures = super::images::Pictures::new(graphics);
        }
        // Nothing is drawn on a screen too small (or while editing): nothing to decode yet.
        if self.areas_on_screen().messages.is_empty() || self.editor.is_some() {
            return Vec::new();
        }
        let width = self.messages_view().width;
        self.pictures.wanted(
            self.items.iter().map(|i| &i.message().content),
            width,
            next_id,
        )
    }

    /// The draft of this review: its messages with the editor's text applied.
    pub fn draft(&self) -> Draft {
        let mut items = self.items.clone();
        if self.editor.is_some() {
            let mut finished = self.clone();
            finished.finish_edit();
            items = finished.items;
        }
        Draft {
            prompt: self.form.prompt.clone(),
            slash_name: self.form.slash_name.clone(),
            arguments: self.arguments.clone(),
            original: self.original.clone(),
            items,
            selected: self.selected,
        }
    }

    /// A review rebuilt from `draft` (its form from the remembered values), on the message
    /// that was selected; one undo step takes it back to what the server sent (and redo
    /// brings the draft back), so last run's edits can be undone as this run's are.
    pub fn from_draft(draft: Draft, history: &super::History, format: Format) -> ReviewState {
        let form = FormState::new(draft.prompt, draft.slash_name, history);
        let mut review = ReviewState::new(form, draft.arguments, draft.original, format);
        let sent = review.snapshot("last run's edits");
        review.items = draft.items;
        if sent.items != review.items {
            review.push_undo(sent);
        }
        review.selected = draft.selected.min(review.items.len().saturating_sub(1));
        review
    }

    /// The messages as they are now.
    pub fn current(&self) -> PromptMessages {
        PromptMessages {
            description: self.original.description.clone(),
            messages: self.items.iter().map(|i| i.message().clone()).collect(),
        }
    }

    /// The export of the current messages.
    pub fn export(&self) -> String {
        export::render(&self.current(), self.format)
    }

    /// What the export in this format changed so that its API takes it (see
    /// [`export::notes`]), for the user to be told.
    pub fn export_notes(&self) -> Vec<String> {
        export::notes(&self.current(), self.format)
    }

    /// [`Self::export_notes`] as sentences for the status bar, or `None` when there are none.
    pub fn export_notes_said(&self) -> Option<String> {
        let notes = self.export_notes();
        let sentences: Vec<String> = notes
            .iter()
            .map(|note| {
                let mut chars = note.chars();
                let first = chars.next().map(|c| c.to_uppercase().to_string());
                format!("{}{}.", first.unwrap_or_default(), chars.as_str())
            })
            .collect();
        (!sentences.is_empty()).then(|| sentences.join(" "))
    }

    /// Whether message `index` differs from what the server sent (or was added).
    pub fn is_edited(&self, index: usize) -> bool {
        match self.items.get(index) {
            Some(
                item @ ReviewItem {
                    origin: Some(o), ..
                },
            ) => self.original.messages.get(*o) != Some(item.message()),
            Some(ReviewItem { origin: None, .. }) => true,
            None => false,
        }
    }

    /// Whether anything differs from what the server sent.
    pub fn has_changes(&self) -> bool {
        self.items.len() != self.original.messages.len()
            || self
                .items
                .iter()
                .enumerate()
                .any(|(i, item)| item.origin != Some(i) || self.is_edited(i))
    }

    /// Whether there is work a draft should keep: edits, or text in the editor.
    pub fn has_unsaved_work(&self) -> bool {
        self.has_changes() || self.editor.is_some()
    }

    /// Whether keys go to a text input (editor, path, or confirmation) rather than actions.
    pub fn is_typing(&self) -> bool {
        self.editor.is_some() || self.input.is_some() || self.confirm.is_some()
    }

    pub(super) fn ask_overwrite(&mut self, path: PathBuf, purpose: SavePurpose) {
        self.confirm = Some(Confirm {
            path,
            purpose,
            contents: std::mem::take(&mut self.pending_contents),
        });
    }

    fn save(&mut self, path: PathBuf, contents: Vec<u8>, purpose: SavePurpose) -> Outcome {
        self.pending_contents = contents.clone();
        Outcome::Effects(vec![Effect::Save {
            path,
            contents,
            overwrite: false,
            purpose,
        }])
    }

    fn start_edit(&mut self) -> Outcome {
        let Some(item) = self.items.get(self.selected) else {
            return Outcome::Warning("There is no message to edit; a adds one.".into());
        };
        match editable_text(&item.message().content) {
            // The editor measures the whole text again on every key (~15 ms a MiB): a text
            // this long goes to $EDITOR, where typing does not lag.
            Some(text) if text.len() > EDIT_INLINE_UP_TO_BYTES => {
                self.discard_armed = false;
                Outcome::Effects(vec![Effect::ExternalEditor {
                    text: text.to_string(),
                }])
            }
            Some(text) => {
                let text = text.to_string();
                self.edit_before = Some(self.snapshot("the edit"));
                self.open_editor(&text);
                self.discard_armed = false;
                if text.len() > super::form::WRAP_UP_TO_BYTES {
                    Outcome::Notice(format!(
                        "Long text ({}): unwrapped while editing; Ctrl-G opens $EDITOR.",
                        crate::text::mebibytes(text.len())
                    ))
                } else {
                    Outcome::Nothing
                }
            }
            None => Outcome::Warning(format!(
                "{} {} block has no text to edit{}.",
                crate::text::a_or_an(item.message().content.kind()),
                item.message().content.kind(),
                if block_bytes(&item.message().content).is_some() {
                    "; w saves its bytes"
                } else {
                    ""
                }
            )),
        }
    }

    /// Takes the text `$EDITOR` gave back: into the editor when it is open (the user goes
    /// on there), else into the selected message.
    pub(super) fn set_edited_text(&mut self, text: String) {
        if self.editor.is_some() {
            self.open_editor(&text);
        } else if let Some(item) = self.items.get(self.selected)
            && let Some(old) = editable_text(&item.message().content)
            && old != text
        {
            self.remember("the edit");
            let item = &mut self.items[self.selected];
            let mut content = item.message().content.clone();
            set_text(&mut content, text);
            item.set_content(content);
        }
    }

    /// Opens the editor on `text`, its control characters shown as the review shows them
    /// (`␛[31m`) when they can be turned back into the same bytes.
    fn open_editor(&mut self, text: &str) {
        match crate::text::sanitize_reversibly(text) {
            Some(shown) if shown != text => {
                self.editor = Some(editor_with(&shown));
                self.editor_shows_controls = true;
            }
            _ => {
                self.editor = Some(editor_with(text));
                self.editor_shows_controls = false;
            }
        }
    }

    /// The editor's text with its real bytes (the control characters it shows as `␛`).
    fn editor_text(&self) -> Option<String> {
        let text = self.editor.as_ref()?.lines().join("\n");
        Some(if self.editor_shows_controls {
            crate::text::unsanitize(&text)
        } else {
            text
        })
    }

    /// Writes the editor's text back into the selected message and closes the editor; a
    /// changed text is one undo step.
    pub(super) fn finish_edit(&mut self) {
        let Some(text) = self.editor_text() else {
            return;
        };
        self.editor = None;
        self.editor_shows_controls = false;
        let before = self.edit_before.take();
        if let Some(item) = self.items.get_mut(self.selected)
            && editable_text(&item.message().content) != Some(text.as_str())
        {
            let mut content = item.message().content.clone();
            set_text(&mut content, text);
            item.set_content(content);
            if let Some(before) = before {
                self.push_undo(before);
            }
        }
    }

    /// The messages as they are now, as an undo step named `what`.
    fn snapshot(&self, what: &'static str) -> Snapshot {
        Snapshot {
            items: self.items.clone(),
            selected: self.selected,
            what,
        }
    }

    /// Keeps the messages as they are before an edit named `what`.
    fn remember(&mut self, what: &'static str) {
        let snapshot = self.snapshot(what);
        self.push_undo(snapshot);
    }

    fn push_undo(&mut self, snapshot: Snapshot) {
        self.redo.clear();
        self.undo.push(snapshot);
        let mut weight: usize = self.undo.iter().map(Snapshot::weight).sum();
        while self.undo.len() > UNDO_STEPS || (weight > UNDO_BYTES && self.undo.len() > 1) {
            weight -= self.undo.remove(0).weight();
        }
    }

    /// Undoes (`back`) or redoes the last edit of the messages.
    fn step(&mut self, back: bool) -> Outcome {
        let (from, verb, none) = if back {
            (&mut self.undo, "Undid", "Nothing to undo.")
        } else {
            (&mut self.redo, "Redid", "Nothing to redo.")
        };
        let Some(snapshot) = from.pop() else {
            return Outcome::Notice(none.into());
        };
        let what = snapshot.what;
        let now = Snapshot {
            items: std::mem::replace(&mut self.items, snapshot.items),
            selected: self.selected,
            what,
        };
        if back {
            self.redo.push(now);
        } else {
            self.undo.push(now);
        }
        self.selected = snapshot.selected.min(self.items.len().saturating_sub(1));
        self.scroll = 0;
        Outcome::Notice(format!("{verb} {what}."))
    }

    /// Keeps what the next draw shows where this one left it: the messages' first row and
    /// scroll, and the preview's scroll (which follows the selected message when the
    /// selection or the format changed). The app calls it after every update.
    pub(super) fn settle(&mut self) {
        let view = self.messages_view();
        self.top = view.top;
        self.scroll = view.scroll;
        let area = self.areas_on_screen().preview;
        if area.is_empty() {
            self.preview_for = None;
            if !self.preview {
                self.preview_focused = false;
            }
            return;
        }
        let (width, height) = preview_inner(area);
        let rows = self.preview_rows(width);
        if self.preview_for != Some((self.selected, self.format)) {
            self.preview_for = Some((self.selected, self.format));
            self.preview_scroll = self.preview_start(self.selected, width);
        }
        self.preview_scroll = self.preview_scroll.min(rows.len().saturating_sub(height));
    }

    /// A key on the preview: `Some` when the action scrolls or leaves it.
    fn preview_action(&mut self, action: Action) -> Option<Outcome> {
        match action {
            Action::Up => self.scroll_preview(|_| -1),
            Action::Down => self.scroll_preview(|_| 1),
            Action::ScrollUp | Action::PageUp => self.scroll_preview(|page| -(page as isize)),
            Action::ScrollDown | Action::PageDown => self.scroll_preview(|page| page as isize),
            Action::Home => self.preview_scroll = 0,
            Action::End => self.scroll_preview(|_| isize::MAX),
            Action::ToggleRendered => return Some(self.toggle_preview_rendered()),
            Action::Back | Action::Preview if self.preview_is_alone() => self.preview = false,
            Action::Back | Action::SwitchPane => self.preview_focused = false,
            // Keys that change the messages would change them unseen: they wait until the
            // messages are shown. The export keys act on the export shown, and `x` answers
            // an export's question about control characters.
            Action::Edit
            | Action::ToggleRole
            | Action::Delete
            | Action::Add
            | Action::MoveUp
            | Action::MoveDown
            | Action::Restore
            | Action::RestoreAll
            | Action::Undo
            | Action::Redo
            | Action::SaveBytes
            | Action::FetchResource => return Some(self.messages_not_shown()),
            Action::StripControls if self.controls_armed.is_none() => {
                return Some(self.messages_not_shown());
            }
            _ => return None,
        }
        Some(Outcome::Nothing)
    }

    /// `m`: the selected message drawn raw, or rendered again.
    fn toggle_rendered(&mut self) -> Outcome {
        let Some(item) = self.items.get_mut(self.selected) else {
            return Outcome::Nothing;
        };
        if !crate::render::renders(&item.message().content) {
            return Outcome::Notice(format!(
                "{} {} block is drawn as it is; m switches text and Markdown between rendered and raw.",
                crate::text::a_or_an(item.message().content.kind()),
                item.message().content.kind()
            ));
        }
        item.set_raw(!item.is_raw());
        // The rows differ: the message is shown from its start.
        self.scroll = 0;
        Outcome::Notice(if item.is_raw() {
            "Raw: the text as it is sent and edited (m renders it).".into()
        } else {
            "Rendered as Markdown (m shows the raw text).".into()
        })
    }

    /// `m` on the preview: the markdown export rendered, or its source.
    fn toggle_preview_rendered(&mut self) -> Outcome {
        if self.format != Format::Markdown {
            return Outcome::Notice(
                "m switches the markdown preview between rendered and source; f changes the format."
                    .into(),
            );
        }
        self.preview_raw = !self.preview_raw;
        // The rows differ: the preview follows the selected message again.
        self.preview_for = None;
        Outcome::Notice(if self.preview_raw {
            "The preview shows the markdown source (m renders it).".into()
        } else {
            "The preview renders the markdown (m shows the source).".into()
        })
    }

    /// What a message key says while the preview has the keys: how to get to the messages.
    fn messages_not_shown(&self) -> Outcome {
        Outcome::Notice(if self.preview_is_alone() {
            "That key acts on the messages: p or Esc shows them.".into()
        } else {
            "That key acts on the messages: Tab or Esc goes back to them.".into()
        })
    }

    /// A click on message `index`: selects it (from its first line, as ↑/↓ do), unless an
    /// edit, a file name or a question has the keys.
    pub(super) fn click_message(&mut self, index: usize) {
        let busy = self.editor.is_some() || self.input.is_some() || self.confirm.is_some();
        if busy || index >= self.items.len() || index == self.selected {
            return;
        }
        self.selected = index;
        self.scroll = 0;
    }

    /// Runs a review action.
    pub(super) fn action(&mut self, action: Action, options: &Options) -> Outcome {
        if action == Action::ExternalEditor
            && let Some(text) = self.editor_text()
        {
            return Outcome::Effects(vec![Effect::ExternalEditor { text }]);
        }
        if self.editor.is_some() || self.input.is_some() || self.confirm.is_some() {
            return self.typing_action(action);
        }
        if action != Action::Back {
            self.discard_armed = false;
        }
        if !matches!(
            action,
            Action::Accept | Action::Copy | Action::Save | Action::StripControls
        ) {
            self.controls_armed = None;
        }
        if self.preview_has_keys()
            && let Some(outcome) = self.preview_action(action)
        {
            return outcome;
        }
        if matches!(action, Action::Accept | Action::Copy | Action::Save)
            && let Some(held) = self.hold_export(action)
        {
            return held;
        }
        match action {
            Action::Up
            | Action::Down
            | Action::Home
            | Action::End
            | Action::ScrollUp
            | Action::PageUp
            | Action::ScrollDown
            | Action::PageDown => {
                self.move_selection(action);
                Outcome::Nothing
            }
            Action::Edit => self.start_edit(),
            Action::ToggleRole
            | Action::Delete
            | Action::Add
            | Action::MoveUp
            | Action::MoveDown
            | Action::Restore
            | Action::RestoreAll => self.change_messages(action),
            Action::Undo => self.step(true),
            Action::Redo => self.step(false),
            Action::ToggleRendered => self.toggle_rendered(),
            Action::SwitchPane if self.preview && !self.preview_is_alone() => {
                self.preview_focused = true;
                Outcome::Notice(
                    "Keys scroll the preview; Tab or Esc goes back to the messages.".into(),
                )
            }
            Action::StripControls
            | Action::Copy
            | Action::Save
            | Action::CycleFormat
            | Action::Accept => self.export_action(action, options),
            Action::Preview => {
                self.preview = !self.preview;
                self.preview_focused = false;
                Outcome::Nothing
            }
            Action::SaveBytes | Action::PlayAudio | Action::FetchResource => {
                self.block_action(action)
            }
            Action::Back => {
                if self.has_changes() && !self.discard_armed {
                    self.discard_armed = true;
                    return Outcome::Warning(
                        "You edited these messages: Esc again discards the edits (Enter accepts, s saves).".into(),
                    );
                }
                Outcome::Back
            }
            _ => Outcome::Nothing,
        }
    }

    /// An action while the message editor, the file-name line or the overwrite question
    /// has the keys: undo, redo and a new line in what is typed, Esc to leave it.
    fn typing_action(&mut self, action: Action) -> Outcome {
        // The file-name line is edited as the message text is.
        let one_line = self.input.is_some();
        let typing = match self.input.as_mut() {
            Some(input) => Some(&mut input.editor),
            None => self.editor.as_mut(),
        };
        if let Some(area) = typing
            && self.confirm.is_none()
        {
            match action {
                Action::Undo => {
                    area.undo();
                }
                Action::Redo => {
                    area.redo();
                }
                Action::Newline if !one_line => area.insert_newline(),
                _ => {}
            }
        }
        if action == Action::Back {
            if self.editor.is_some() {
                self.finish_edit();
            } else if self.input.take().is_some() {
                return Outcome::Notice("Not saved.".into());
            } else if self.confirm.take().is_some() {
                return Outcome::Notice("Not replaced.".into());
            }
        }
        Outcome::Nothing
    }

    /// Moves the selection (or scrolls the selected message) for a move action.
    fn move_selection(&mut self, action: Action) {
        let count = self.items.len();
        match action {
            Action::Up => {
                self.selected = self.selected.saturating_sub(1);
                self.scroll = 0;
            }
            Action::Down => {
                self.selected = (self.selected + 1).min(count.saturating_sub(1));
                self.scroll = 0;
            }
            Action::Home => {
                self.selected = 0;
                self.scroll = 0;
            }
            Action::End => {
                self.selected = count.saturating_sub(1);
                self.scroll = 0;
            }
            Action::ScrollUp | Action::PageUp => self.page(false),
            Action::ScrollDown | Action::PageDown => self.page(true),
            _ => {}
        }
    }

    /// Changes the list of messages: a role, a delete, an added message, a move, a restore.
    fn change_messages(&mut self, action: Action) -> Outcome {
        let count = self.items.len();
        match action {
            Action::ToggleRole if self.selected < count => {
                self.remember("the role change");
                let item = &mut self.items[self.selected];
                item.set_role(match item.message().role {
                    Role::User => Role::Assistant,
                    // A server's `system` (or other) message becomes a user one, then toggles.
                    Role::Assistant | Role::System | Role::Other(_) => Role::User,
                });
            }
            Action::Delete if self.selected < count => {
                self.remember("the delete");
                self.items.remove(self.selected);
                self.selected = self.selected.min(self.items.len().saturating_sub(1));
                self.scroll = 0;
                return Outcome::Notice("Deleted; Ctrl-Z undoes it.".into());
            }
            Action::Add => {
                // The message and the text typed into it are one step.
                self.remember("the added message");
                let at = if count == 0 { 0 } else { self.selected + 1 };
                // The conversation alternates: after a user message comes the assistant's.
                let role = match self.items.get(self.selected) {
                    Some(item) if count > 0 && item.message().role == Role::User => Role::Assistant,
                    _ => Role::User,
                };
                let message = Message {
                    role,
                    content: Content::text(""),
                };
                self.items.insert(at, ReviewItem::new(message, None));
                self.selected = at;
                self.scroll = 0;
                self.edit_before = None;
                self.open_editor("");
            }
            Action::MoveUp if self.selected > 0 && self.selected < count => {
                self.remember("the move");
                self.items.swap(self.selected, self.selected - 1);
                self.selected -= 1;
            }
            Action::MoveDown if self.selected + 1 < count => {
                self.remember("the move");
                self.items.swap(self.selected, self.selected + 1);
                self.selected += 1;
            }
            Action::Restore => {
                let Some(item) = self.items.get(self.selected) else {
                    return Outcome::Nothing;
                };
                match item.origin.and_then(|o| self.original.messages.get(o)) {
                    Some(original) => {
                        let original = original.clone();
                        if self.is_edited(self.selected) {
                            self.remember("the restore");
                        }
                        self.items[self.selected].set_message(original);
                        return Outcome::Notice("Restored as the server sent it.".into());
                    }
                    None => {
                        return Outcome::Warning(
                            "This message was added here; d deletes it.".into(),
                        );
                    }
                }
            }
            Action::RestoreAll => {
                if self.has_changes() {
                    self.remember("restoring every message");
                }
                self.items = self
                    .original
                    .messages
                    .iter()
                    .enumerate()
                    .map(|(i, m)| ReviewItem::new(m.clone(), Some(i)))
                    .collect();
                self.selected = 0;
                self.scroll = 0;
                return Outcome::Notice(
                    "Every message restored as the server sent it; Ctrl-Z undoes it.".into(),
                );
            }
            _ => {}
        }
        Outcome::Nothing
    }

    /// The export's actions: strip controls, copy, save, the next format, accept.
    fn export_action(&mut self, action: Action, options: &Options) -> Outcome {
        match action {
            Action::StripControls => {
                let stripped = self.strip_controls();
                if let Some(pending) = self.controls_armed.take() {
                    return self.action(pending, options);
                }
                return Outcome::Notice(if stripped == 0 {
                    "The messages hold no control characters.".into()
                } else {
                    format!(
                        "Stripped {stripped} control {}; Ctrl-Z undoes it.",
                        crate::text::plural(stripped, "character", "characters")
                    )
                });
            }
            Action::Copy => {
                return Outcome::Effects(vec![Effect::Copy {
                    text: self.export(),
                    leave: false,
                }]);
            }
            Action::Save => {
                let name = format!(
                    "{}.{}",
                    safe_file_name(&self.form.prompt.name),
                    format_extension(self.format)
                );
                self.input = Some(LineInput {
                    purpose: LinePurpose::SaveExport,
                    label: format!("Save {} as", format_name(self.format)),
                    editor: editor_with(&name),
                    contents: self.export().into_bytes(),
                });
            }
            Action::CycleFormat => {
                let at = Format::ALL
                    .iter()
                    .position(|(_, f)| *f == self.format)
                    .unwrap_or(0);
                self.format = Format::ALL[(at + 1) % Format::ALL.len()].1;
                let mut notice = format!("Export format: {}", format_name(self.format));
                if let Some(notes) = self.export_notes_said() {
                    notice.push_str(". ");
                    notice.push_str(&notes);
                }
                return Outcome::Notice(notice);
            }
            Action::Accept => {
                let text = self.export();
                if let Some(path) = &options.output {
                    return self.save(
                        path.clone(),
                        text.into_bytes(),
                        SavePurpose::Export { then_exit: true },
                    );
                }
                if options.print {
                    return Outcome::Print(text);
                }
                return Outcome::CopyAndLeave(text);
            }
            _ => {}
        }
        Outcome::Nothing
    }

    /// The selected block's own actions: save its bytes, play its audio, fetch its link.
    fn block_action(&mut self, action: Action) -> Outcome {
        match action {
            Action::SaveBytes => {
                let Some(item) = self.items.get(self.selected) else {
                    return Outcome::Nothing;
                };
                match block_bytes(&item.message().content) {
                    None => {
                        let kind = item.message().content.kind();
                        return Outcome::Warning(format!(
                            "{} {kind} block has no bytes to save; s saves the export.",
                            crate::text::a_or_an(kind)
                        ));
                    }
                    Some(Err(error)) => return Outcome::Warning(error),
                    Some(Ok((bytes, extension))) => {
                        let name =
                            resource_file_name(&item.message().content).unwrap_or_else(|| {
                                format!(
                                    "{}-{}.{extension}",
                                    safe_file_name(&self.form.prompt.name),
                                    self.selected + 1
                                )
                            });
                        self.input = Some(LineInput {
                            purpose: LinePurpose::SaveBytes,
                            label: format!(
                                "Save the {} as",
                                crate::text::counted(bytes.len(), "byte", "bytes")
                            ),
                            editor: editor_with(&name),
                            contents: bytes,
                        });
                    }
                }
            }
            Action::PlayAudio => {
                let Some(item) = self.items.get(self.selected) else {
                    return Outcome::Nothing;
                };
                if !is_audio(&item.message().content) {
                    return Outcome::Warning("P plays audio blocks; this block is not one.".into());
                }
                return match block_bytes(&item.message().content) {
                    Some(Ok((bytes, extension))) => Outcome::Play {
                        bytes,
                        extension,
                        index: self.selected,
                    },
                    Some(Err(error)) => Outcome::Warning(error),
                    None => Outcome::Nothing,
                };
            }
            Action::FetchResource => {
                let Some(item) = self.items.get(self.selected) else {
                    return Outcome::Nothing;
                };
                let Content::Known(KnownContent::ResourceLink(link)) = &item.message().content
                else {
                    return Outcome::Warning(
                        "o fetches resource links; this block is not one.".into(),
                    );
                };
                if self.reading.is_some() {
                    return Outcome::Nothing;
                }
                self.reading_index = self.selected;
                self.reading_uri = link.uri.clone();
                return Outcome::ReadResource {
                    server: self.form.prompt.server.clone(),
                    uri: link.uri.clone(),
                };
            }
            _ => {}
        }
        Outcome::Nothing
    }

    /// Keys while typing: into the editor, the path input, or the overwrite question.
    pub(super) fn type_key(&mut self, key: KeyEvent) -> Outcome {
        if let Some(confirm) = self.confirm.take() {
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => Outcome::Effects(vec![Effect::Save {
                    path: confirm.path,
                    contents: confirm.contents,
                    overwrite: true,
                    purpose: confirm.purpose,
                }]),
                _ => Outcome::Notice("Not replaced.".into()),
            };
        }
        if let Some(input) = &mut self.input {
            if key.code == KeyCode::Enter {
                let input = self.input.take().expect("input is open");
                let typed = input.editor.lines().join("");
                let typed = typed.trim();
                if typed.is_empty() {
                    return Outcome::Warning("No file name given; not saved.".into());
                }
                // `~` is expanded by the runner, which knows the home folder.
                let path = PathBuf::from(typed);
                let purpose = match input.purpose {
                    LinePurpose::SaveExport => SavePurpose::Export { then_exit: false },
                    LinePurpose::SaveBytes => SavePurpose::Bytes,
                };
                return self.save(path, input.contents, purpose);
            }
            super::line::edit_area(&mut input.editor, key);
            return Outcome::Nothing;
        }
        if let Some(editor) = &mut self.editor {
            super::line::edit_area(editor, key);
        }
        Outcome::Nothing
    }

    /// Pasted text goes to whatever is being typed.
    pub(super) fn paste(&mut self, text: &str) {
        if let Some(input) = &mut self.input {
            input.editor.insert_str(text.replace(['\r', '\n'], ""));
        } else if let Some(editor) = &mut self.editor {
            editor.insert_str(text.replace("\r\n", "\n").replace('\r', "\n"));
        }
    }

    /// Takes a `resources/read` answer: the link is replaced by the resource's contents.
    pub(super) fn on_resource_read(
        &mut self,
        id: u64,
        result: Result<Vec<EmbeddedResource>, McpError>,
    ) -> Result<Option<String>, String> {
        if self.reading.map(|(r, _)| r) != Some(id) {
            return Ok(None);
        }
        self.reading = None;
        let contents = result
            .map_err(|e| format!("Reading the resource failed: {}", super::describe_error(&e)))?;
        if contents.is_empty() {
            return Err("The server returned no contents for this resource.".into());
        }
        // A skill's supporting file is checked against the skill's manifest (SEP-2640)
        // before it is embedded; refused, the link stays.
        let verified = match &self.form.prompt.skill {
            Some(manifest) => {
                use crate::mcp::skill_verify as skill;
                let uri = &self.reading_uri;
                let checked = skill::resource_bytes(uri, &contents)
                    .and_then(|bytes| skill::verify_file(manifest, uri, &bytes));
                match checked {
                    Ok(skill::Verification::Verified) => " (size and sha256 verified)",
                    Ok(skill::Verification::Unverifiable) => {
                        " (NOT verified: the dynamic skill publishes no digests)"
                    }
                    Err(error) => return Err(format!("Not attached: {}", error.advice())),
                }
            }
            None => "",
        };
        // Only the verified part of a skill's file is embedded.
        let contents = if self.form.prompt.skill.is_some() && contents.len() > 1 {
            let uri = self.reading_uri.clone();
            contents
                .into_iter()
                .filter(|c| matches!(c, EmbeddedResource::Text { uri: u, .. } | EmbeddedResource::Blob { uri: u, .. } if *u == uri))
                .take(1)
                .collect()
        } else {
            contents
        };
        // The messages may have moved since `o`: find the link again by its URI.
        let is_link = |item: &ReviewItem| matches!(&item.message().content, Content::Known(KnownContent::ResourceLink(link)) if link.uri == self.reading_uri);
        let index = if self.items.get(self.reading_index).is_some_and(is_link) {
            self.reading_index
        } else if let Some(found) = self.items.iter().position(is_link) {
            found
        } else {
            return Err(format!(
                "The resource {} arrived, but its link is no longer in the messages.",
                crate::text::one_line(&self.reading_uri)
            ));
        };
        self.remember("the embedded resource");
        let role = self.items[index].message().role.clone();
        let count = contents.len();
        for (n, resource) in contents.into_iter().enumerate() {
            let content = Content::Known(KnownContent::Resource {
                resource,
                annotations: None,
                meta: None,
            });
            if n == 0 {
                self.items[index].set_content(content);
            } else {
                let message = Message {
                    role: role.clone(),
                    content,
                };
                self.items.insert(index + n, ReviewItem::new(message, None));
            }
        }
        Ok(Some(format!(
            "Embedded {count} resource {}{verified}; u restores the link.",
            if count == 1 { "content" } else { "contents" }
        )))
    }
}

/// The last path segment of a resource's URI, as a file name.
fn resource_file_name(content: &Content) -> Option<String> {
    let Content::Known(KnownContent::Resource { resource, .. }) = content else {
        return None;
    };
    let uri = match resource {
        EmbeddedResource::Text { uri, .. } | EmbeddedResource::Blob { uri, .. } => uri,
    };
    let last = uri.trim_end_matches('/').rsplit('/').next()?;
    let name = safe_file_name(last);
    (name != "prompt" && name.contains('.')).then_some(name)
}

/// The export's lines as the preview draws them: controls visible, tabs expanded, wrapped
/// at `width`.
pub fn export_rows(export: &str, width: usize) -> Vec<String> {
    export
        .lines()
        .flat_map(|line| crate::text::wrap(&crate::text::display_line(line), width))
        .collect()
}

/// The columns and rows inside the preview's border in `area`.
pub fn preview_inner(area: ratatui::layout::Rect) -> (usize, usize) {
    (
        usize::from(area.width.saturating_sub(2)).max(10),
        usize::from(area.height.saturating_sub(2)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter().map(crate::render::line_text).collect()
    }

    #[test]
    fn wrapped_rows_are_kept_per_width_and_follow_every_change() {
        let mut item = ReviewItem::new(
            Message {
                role: Role::User,
                content: Content::text("aaaa bbbb cccc"),
            },
            Some(0),
        );
        assert_eq!(texts(&item.rows(10)), ["aaaa bbbb ", "cccc"]);
        assert!(std::sync::Arc::ptr_eq(&item.rows(10), &item.rows(10)));
        assert_eq!(texts(&item.rows(100)), ["aaaa bbbb cccc"]);
        item.set_content(Content::text("x\ny"));
        assert_eq!(texts(&item.rows(10)), ["x", "y"]);
        item.set_message(Message {
            role: Role::Assistant,
            content: Content::text("z"),
        });
        assert_eq!(texts(&item.rows(10)), ["z"]);
    }

    #[test]
    fn bytes_of_blocks_decode_with_a_fitting_extension() {
        let image: Content = serde_json::from_value(
            serde_json::json!({"type":"image","data":"aGk=","mimeType":"image/jpeg"}),
        )
        .unwrap();
        assert_eq!(
            block_bytes(&image).unwrap().unwrap(),
            (b"hi".to_vec(), "jpg".to_string())
        );
        let bad: Content = serde_json::from_value(
            serde_json::json!({"type":"audio","data":"!!!","mimeType":"audio/wav"}),
        )
        .unwrap();
        assert!(block_bytes(&bad).unwrap().unwrap_err().contains("damaged"));
        assert!(block_bytes(&Content::text("x")).is_none());
    }

    #[test]
    fn offered_file_names_are_safe() {
        assert_eq!(safe_file_name("../../etc/passwd"), "etc-passwd");
        assert_eq!(safe_file_name("code review"), "code-review");
        assert_eq!(safe_file_name("///"), "prompt");
    }
}
