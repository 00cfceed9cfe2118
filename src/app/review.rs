//! The review screen: the returned messages, edited in place, and their export.

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;

use super::form::{FormState, editor_with};
use super::keys::Action;
use super::{Effect, Options, SavePurpose};
use crate::export::{self, Format, decoded_len, describe};
use crate::mcp::{
    Content, EmbeddedResource, KnownContent, McpError, Message, PromptInfo, PromptMessages, Role,
};

/// A review kept on disk while it has unexported edits, to be restored after a crash.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Draft {
    /// The prompt.
    pub prompt: PromptInfo,
    /// Its `server:name`.
    pub slash_name: String,
    /// The arguments it was filled with.
    pub arguments: BTreeMap<String, String>,
    /// What the server returned.
    pub original: PromptMessages,
    /// The messages as edited (text still in the editor included).
    pub items: Vec<ReviewItem>,
}

/// Lines one scroll step moves.
const SCROLL_STEP: usize = 10;

/// One message on the screen, with where it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReviewItem {
    /// The message as it is now (changed only through methods, which keep `layout` true).
    message: Message,
    /// Its index in what the server sent; `None` for an added message.
    pub origin: Option<usize>,
    /// Its body wrapped at the last width drawn.
    #[serde(skip)]
    layout: BodyLayout,
}

impl ReviewItem {
    /// `message`, from the server's message `origin` (`None`: added here).
    pub fn new(message: Message, origin: Option<usize>) -> ReviewItem {
        ReviewItem {
            message,
            origin,
            layout: BodyLayout::default(),
        }
    }

    /// The message as it is now.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// Replaces the message's content.
    pub fn set_content(&mut self, content: Content) {
        self.message.content = content;
        self.layout = BodyLayout::default();
    }

    /// Replaces the whole message.
    pub fn set_message(&mut self, message: Message) {
        self.message = message;
        self.layout = BodyLayout::default();
    }

    /// Gives the message another role (its body stays as it is).
    pub fn set_role(&mut self, role: Role) {
        self.message.role = role;
    }

    /// The body's rows at `width` columns: wrapped once, then kept until the content or
    /// the width changes, so a 30 MB message costs its wrapping once, not every frame.
    pub fn rows(&self, width: usize) -> std::sync::Arc<Vec<String>> {
        let mut cached = self.layout.0.borrow_mut();
        if let Some((_, rows)) = cached.iter().find(|(at, _)| *at == width) {
            return rows.clone();
        }
        let rows = std::sync::Arc::new(body_rows(&self.message.content, width).collect());
        // Two widths: the screen's and the one scrolling counts with may differ by a column.
        if cached.len() == 2 {
            cached.remove(0);
        }
        cached.push((width, std::sync::Arc::clone(&rows)));
        rows
    }
}

/// A cache of a body's wrapped rows at the last two widths; equal to any other (it is
/// derived from the message).
#[derive(Debug, Clone, Default)]
struct BodyLayout(std::cell::RefCell<Vec<(usize, std::sync::Arc<Vec<String>>)>>);

impl PartialEq for BodyLayout {
    fn eq(&self, _: &BodyLayout) -> bool {
        true
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
    /// The screen's width, for wrapping (kept up to date by the app).
    pub screen_width: u16,
    /// Whether the export preview is shown.
    pub preview: bool,
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
    ReadResource { server: String, uri: String },
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
        base64::engine::general_purpose::STANDARD
            .decode(data.split_whitespace().collect::<String>())
            .map_err(|e| format!("the server's base64 data is damaged: {e}"))
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
    Format::ALL
        .iter()
        .find(|(_, f)| *f == format)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

impl ReviewState {
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
            screen_width: 80,
            preview: false,
            input: None,
            confirm: None,
            discard_armed: false,
            reading: None,
            reading_index: 0,
            reading_uri: String::new(),
            pending_contents: Vec::new(),
        }
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
        }
    }

    /// A review rebuilt from `draft` (its form from the remembered values).
    pub fn from_draft(draft: Draft, history: &super::History, format: Format) -> ReviewState {
        let form = FormState::new(draft.prompt, draft.slash_name, history);
        let mut review = ReviewState::new(form, draft.arguments, draft.original, format);
        review.items = draft.items;
        review
    }

    /// The messages as they are now.
    pub fn current(&self) -> PromptMessages {
        PromptMessages {
            description: self.original.description.clone(),
            messages: self.items.iter().map(|i| i.message.clone()).collect(),
        }
    }

    /// The export of the current messages.
    pub fn export(&self) -> String {
        export::render(&self.current(), self.format)
    }

    /// Whether message `index` differs from what the server sent (or was added).
    pub fn is_edited(&self, index: usize) -> bool {
        match self.items.get(index) {
            Some(ReviewItem {
                origin: Some(o),
                message,
                ..
            }) => self.original.messages.get(*o) != Some(message),
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
        match editable_text(&item.message.content) {
            // The editor measures the whole text again on every key (~15 ms a MiB): a text
            // this long goes to $EDITOR, where typing does not lag.
            Some(text) if text.len() > EDIT_INLINE_UP_TO_BYTES => {
                self.discard_armed = false;
                Outcome::Effects(vec![Effect::ExternalEditor {
                    text: text.to_string(),
                }])
            }
            Some(text) => {
                self.editor = Some(editor_with(text));
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
                crate::text::a_or_an(item.message.content.kind()),
                item.message.content.kind(),
                if block_bytes(&item.message.content).is_some() {
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
            self.editor = Some(editor_with(&text));
        } else if let Some(item) = self.items.get_mut(self.selected)
            && editable_text(&item.message.content).is_some()
        {
            let mut content = item.message.content.clone();
            set_text(&mut content, text);
            item.set_content(content);
        }
    }

    /// Writes the editor's text back into the selected message and closes the editor.
    pub(super) fn finish_edit(&mut self) {
        if let Some(editor) = self.editor.take()
            && let Some(item) = self.items.get_mut(self.selected)
        {
            let text = editor.lines().join("\n");
            if editable_text(&item.message.content) != Some(text.as_str()) {
                let mut content = item.message.content.clone();
                set_text(&mut content, text);
                item.set_content(content);
            }
        }
    }

    /// How many rows the selected message's body wraps into on screen.
    pub fn selected_rows(&self) -> usize {
        self.items.get(self.selected).map_or(0, |item| {
            item.rows(body_width(self.screen_width, self.preview)).len()
        })
    }

    /// The mouse wheel: scrolls the selected message, then moves to the next or previous.
    pub(super) fn wheel(&mut self, up: bool) {
        const WHEEL_STEP: usize = 3;
        let lines = self
            .items
            .get(self.selected)
            .map_or(0, |_| self.selected_rows());
        if up {
            if self.scroll == 0 && self.selected > 0 {
                self.selected -= 1;
            } else {
                self.scroll = self.scroll.saturating_sub(WHEEL_STEP);
            }
        } else if self.scroll + WHEEL_STEP < lines {
            self.scroll += WHEEL_STEP;
        } else if self.selected + 1 < self.items.len() {
            self.selected += 1;
            self.scroll = 0;
        }
    }

    /// Runs a review action.
    pub(super) fn action(&mut self, action: Action, options: &Options) -> Outcome {
        if let Some(editor) = &self.editor
            && action == Action::ExternalEditor
        {
            return Outcome::Effects(vec![Effect::ExternalEditor {
                text: editor.lines().join("\n"),
            }]);
        }
        if self.editor.is_some() || self.input.is_some() || self.confirm.is_some() {
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
            return Outcome::Nothing;
        }
        if action != Action::Back {
            self.discard_armed = false;
        }
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
            Action::ScrollUp => self.scroll = self.scroll.saturating_sub(SCROLL_STEP),
            Action::ScrollDown => {
                let lines = self
                    .items
                    .get(self.selected)
                    .map_or(0, |_| self.selected_rows());
                self.scroll = (self.scroll + SCROLL_STEP).min(lines.saturating_sub(1));
            }
            Action::Edit => return self.start_edit(),
            Action::ToggleRole => {
                if let Some(item) = self.items.get_mut(self.selected) {
                    item.set_role(match item.message.role {
                        Role::User => Role::Assistant,
                        Role::Assistant => Role::User,
                    });
                }
            }
            Action::Delete if self.selected < count => {
                self.items.remove(self.selected);
                self.selected = self.selected.min(self.items.len().saturating_sub(1));
                self.scroll = 0;
                return Outcome::Notice("Deleted. U restores every message as sent.".into());
            }
            Action::Add => {
                let at = if count == 0 { 0 } else { self.selected + 1 };
                let message = Message {
                    role: Role::User,
                    content: Content::text(""),
                };
                self.items.insert(at, ReviewItem::new(message, None));
                self.selected = at;
                self.scroll = 0;
                self.editor = Some(editor_with(""));
            }
            Action::MoveUp if self.selected > 0 && self.selected < count => {
                self.items.swap(self.selected, self.selected - 1);
                self.selected -= 1;
            }
            Action::MoveDown if self.selected + 1 < count => {
                self.items.swap(self.selected, self.selected + 1);
                self.selected += 1;
            }
            Action::Restore => {
                let Some(item) = self.items.get_mut(self.selected) else {
                    return Outcome::Nothing;
                };
                match item.origin.and_then(|o| self.original.messages.get(o)) {
                    Some(original) => {
                        item.set_message(original.clone());
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
                let format = self.format;
                let preview = self.preview;
                let screen_width = self.screen_width;
                *self = ReviewState::new(
                    self.form.clone(),
                    self.arguments.clone(),
                    self.original.clone(),
                    format,
                );
                self.preview = preview;
                self.screen_width = screen_width;
                return Outcome::Notice("Every message restored as the server sent it.".into());
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
                return Outcome::Notice(format!("Export format: {}", format_name(self.format)));
            }
            Action::Preview => self.preview = !self.preview,
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
            Action::SaveBytes => {
                let Some(item) = self.items.get(self.selected) else {
                    return Outcome::Nothing;
                };
                match block_bytes(&item.message.content) {
                    None => {
                        let kind = item.message.content.kind();
                        return Outcome::Warning(format!(
                            "{} {kind} block has no bytes to save; s saves the export.",
                            crate::text::a_or_an(kind)
                        ));
                    }
                    Some(Err(error)) => return Outcome::Warning(error),
                    Some(Ok((bytes, extension))) => {
                        let name = resource_file_name(&item.message.content).unwrap_or_else(|| {
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
            Action::FetchResource => {
                let Some(item) = self.items.get(self.selected) else {
                    return Outcome::Nothing;
                };
                let Content::Known(KnownContent::ResourceLink { uri, .. }) = &item.message.content
                else {
                    return Outcome::Warning(
                        "o fetches resource links; this block is not one.".into(),
                    );
                };
                if self.reading.is_some() {
                    return Outcome::Nothing;
                }
                self.reading_index = self.selected;
                self.reading_uri = uri.clone();
                return Outcome::ReadResource {
                    server: self.form.prompt.server.clone(),
                    uri: uri.clone(),
                };
            }
            Action::Back => {
                if self.has_changes() && !self.discard_armed {
                    self.discard_armed = true;
                    return Outcome::Warning(
                        "You edited these messages: Esc again discards the edits (Enter accepts, s saves).".into(),
                    );
                }
                return Outcome::Back;
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
        // The messages may have moved since `o`: find the link again by its URI.
        let is_link = |item: &ReviewItem| matches!(&item.message.content, Content::Known(KnownContent::ResourceLink { uri, .. }) if *uri == self.reading_uri);
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
        let role = self.items[index].message.role;
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
                let message = Message { role, content };
                self.items.insert(index + n, ReviewItem::new(message, None));
            }
        }
        Ok(Some(format!(
            "Embedded {count} resource {}; u restores the link.",
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

/// The body of a block as display lines (sanitized); non-text blocks are described.
pub fn body_lines(content: &Content) -> Box<dyn Iterator<Item = String> + '_> {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => {
            if text.is_empty() {
                Box::new(std::iter::once("(empty)".to_string()))
            } else {
                Box::new(text.lines().map(crate::text::sanitize))
            }
        }
        Content::Known(KnownContent::Image { .. }) | Content::Known(KnownContent::Audio { .. }) => {
            Box::new(std::iter::once(format!(
                "{} — w saves the bytes",
                crate::text::one_line(&describe(content))
            )))
        }
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                uri,
                mime_type,
                text,
                ..
            } => Box::new(
                std::iter::once(format!(
                    "resource {} ({}) — e edits the text, w saves it",
                    crate::text::one_line(uri),
                    crate::text::one_line(mime_type.as_deref().unwrap_or("no MIME type"))
                ))
                .chain(text.lines().map(crate::text::sanitize)),
            ),
            EmbeddedResource::Blob {
                uri,
                mime_type,
                blob,
                ..
            } => Box::new(std::iter::once(format!(
                "resource {} ({}, {}) — w saves the bytes",
                crate::text::one_line(uri),
                crate::text::one_line(mime_type.as_deref().unwrap_or("application/octet-stream")),
                crate::text::counted(decoded_len(blob), "byte", "bytes")
            ))),
        },
        Content::Known(KnownContent::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
            ..
        }) => {
            let mut lines = vec![format!(
                "link {} <{}>",
                crate::text::one_line(title.as_deref().unwrap_or(name)),
                crate::text::one_line(uri)
            )];
            if let Some(d) = description {
                lines.push(crate::text::one_line(d));
            }
            let mut facts = vec![format!("name {}", crate::text::one_line(name))];
            if let Some(m) = mime_type {
                facts.push(crate::text::one_line(m));
            }
            if let Some(s) = size {
                facts.push(crate::text::counted(*s as usize, "byte", "bytes"));
            }
            lines.push(format!("{} — o fetches and embeds it", facts.join(", ")));
            Box::new(lines.into_iter())
        }
        Content::Unknown(value) => {
            let json = value.to_string();
            let shown: String = json.chars().take(400).collect();
            Box::new(
                [
                    format!(
                        "{} — kept as sent, exported as is",
                        crate::text::one_line(&describe(content))
                    ),
                    crate::text::one_line(&shown),
                ]
                .into_iter(),
            )
        }
    }
}

/// The rows of a block's body at `width` columns, wrapped.
pub fn body_rows(content: &Content, width: usize) -> impl Iterator<Item = String> + '_ {
    body_lines(content).flat_map(move |line| crate::text::wrap(&line, width))
}

/// The width message bodies wrap at, for a screen `total_width` wide: two columns of
/// indent, and half the width when the preview is beside the messages.
pub fn body_width(total_width: u16, preview: bool) -> usize {
    let pane = if preview && total_width >= PREVIEW_BESIDE {
        total_width / 2
    } else {
        total_width
    };
    usize::from(pane).saturating_sub(2).max(10)
}

/// The screen width from which the export preview goes beside the messages.
pub const PREVIEW_BESIDE: u16 = 110;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_rows_are_kept_per_width_and_follow_every_change() {
        let mut item = ReviewItem::new(
            Message {
                role: Role::User,
                content: Content::text("aaaa bbbb cccc"),
            },
            Some(0),
        );
        assert_eq!(*item.rows(10), ["aaaa bbbb ", "cccc"]);
        assert!(std::sync::Arc::ptr_eq(&item.rows(10), &item.rows(10)));
        assert_eq!(*item.rows(100), ["aaaa bbbb cccc"]);
        item.set_content(Content::text("x\ny"));
        assert_eq!(*item.rows(10), ["x", "y"]);
        item.set_message(Message {
            role: Role::Assistant,
            content: Content::text("z"),
        });
        assert_eq!(*item.rows(10), ["z"]);
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
