//! The argument form: one field per argument, suggestions from `completion/complete` and
//! from history, validation of required fields.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui_textarea::{CursorMove, TextArea};

use super::command::CommandPrompt;
use super::files::FilePicker;
use super::history::History;
use super::keys::Action;
use super::source::{SourceMark, ValueSource};
use super::{Effect, ServerState, ServerStatus};
use crate::model::{Completion, PromptArg, PromptInfo};

/// Ticks of quiet typing before completion is asked (a tick is 80 ms).
const COMPLETION_DEBOUNCE_TICKS: u64 = 2;
/// The spec's cap on completion values.
const MAX_SUGGESTIONS: usize = 100;
/// History values offered at most per field.
const HISTORY_SUGGESTIONS: usize = 5;

/// One argument's field.
#[derive(Debug, Clone)]
pub struct Field {
    /// The argument.
    pub arg: PromptArg,
    /// The value being typed (may span lines).
    pub editor: TextArea<'static>,
    /// Marked after a submit with this required field empty.
    pub missing: bool,
    /// Holds the last run's value, untouched: the first typed character replaces it.
    pub prefilled: bool,
    /// Where the value came from, when a file, a command or stdin gave it.
    pub source: Option<SourceMark>,
    /// Where the last run's value came from, when it was a file, a command or stdin (the
    /// history keeps that, not the value): a file is read again, a command offered again.
    pub recalled: Option<ValueSource>,
    /// The last replacement of the whole value (a fill or a taken suggestion), which the
    /// text area records as two edits (delete all, insert): undo and redo take both at once.
    pub replaced: Option<Replacement>,
}

/// A whole value replaced by another, as [`Field::replace_value`] recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The value before.
    pub before: String,
    /// Where the value before came from.
    pub source_before: Option<SourceMark>,
    /// The value after.
    pub after: String,
    /// Where the value after came from.
    pub source_after: Option<SourceMark>,
}

impl Field {
    /// Replaces the whole value with `text` as an edit the text area records (select all,
    /// then insert), so Ctrl-Z brings the value before back; the cursor ends after it.
    pub fn replace_value(&mut self, text: &str) {
        let before = self.value();
        if before == text {
            return;
        }
        // As `editor_with`: long values scroll sideways rather than wrap.
        self.editor
            .set_wrap_mode(if text.len() <= WRAP_UP_TO_BYTES {
                ratatui_textarea::WrapMode::WordOrGlyph
            } else {
                ratatui_textarea::WrapMode::None
            });
        self.editor.cancel_selection();
        if !before.is_empty() {
            self.editor.select_all();
        }
        if text.is_empty() {
            self.editor.delete_str(0);
        } else {
            self.editor.insert_str(text);
        }
        // Only a non-empty value replaced by another is two edits in the text area.
        self.replaced = (!before.is_empty() && !text.is_empty()).then(|| Replacement {
            before,
            source_before: self.source.clone(),
            after: text.to_string(),
            source_after: self.source.clone(),
        });
    }

    /// Ctrl-Z (`undo`) or its redo on this field; a replacement is undone or redone whole.
    /// Returns whether the value changed.
    fn undo_or_redo(&mut self, undo: bool) -> bool {
        let was = self.value();
        let step = |editor: &mut TextArea<'static>| {
            if undo { editor.undo() } else { editor.redo() }
        };
        if !step(&mut self.editor) {
            return false;
        }
        // The replacement's first half: the empty value between its two edits.
        if let Some(replaced) = self.replaced.clone()
            && self.value().is_empty()
        {
            if undo && was == replaced.after {
                step(&mut self.editor);
                self.source = replaced.source_before;
            } else if !undo && was == replaced.before {
                step(&mut self.editor);
                self.source = replaced.source_after;
            }
        }
        true
    }

    /// The field's value.
    pub fn value(&self) -> String {
        self.editor.lines().join("\n")
    }

    /// After the text changed: the source's mark says "edited", and goes once the field is
    /// empty.
    fn follow_source(&mut self) {
        let value = self.value();
        if value.is_empty() {
            self.source = None;
        } else if let Some(mark) = &mut self.source {
            mark.follow(&value);
        }
    }
}

/// A file being read for a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRead {
    /// The request id.
    pub id: u64,
    /// The field it is for.
    pub field: usize,
    /// The path, as given.
    pub path: String,
    /// Read again because the last run's value came from it.
    pub recalled: bool,
}

/// Suggestions shown under the focused field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Suggestions {
    /// The values, best match for what is typed first (remembered and the server's alike).
    pub values: Vec<String>,
    /// For each of `values`: whether it was used before (remembered), so it is labelled so.
    pub remembered: Vec<bool>,
    /// The server said more exist than it sent.
    pub has_more: bool,
    /// The server's total, if given.
    pub total: Option<u32>,
    /// The highlighted one: none until Ctrl-N/Ctrl-P choose, so Enter after typing moves on.
    pub highlighted: Option<usize>,
    /// Hidden by Esc or by taking one, until the next edit.
    pub dismissed: bool,
}

impl Suggestions {
    /// Whether they are shown.
    pub fn visible(&self) -> bool {
        !self.dismissed && !self.values.is_empty()
    }
}

/// The form of one prompt.
#[derive(Debug, Clone)]
pub struct FormState {
    /// The prompt being filled.
    pub prompt: PromptInfo,
    /// Its `server:name`.
    pub slash_name: String,
    /// One field per argument, in the server's order.
    pub fields: Vec<Field>,
    /// The focused field.
    pub focus: usize,
    /// Suggestions for the focused field.
    pub suggestions: Suggestions,
    /// The server's last suggestions for the focused field.
    server_suggestions: Option<Completion>,
    /// When to ask for completion (a tick), if typing changed the value.
    pub completion_due: Option<u64>,
    /// The completion request whose answer is awaited; older answers are dropped.
    completion_pending: Option<u64>,
    /// The last error (validation or the server's).
    pub error: Option<String>,
    /// The fetch in flight: request id and when it started ([`App::now_ms`]).
    pub fetching: Option<(u64, u64)>,
    /// The file picker, when open (it puts a file's contents in the focused field).
    pub files: Option<Box<FilePicker>>,
    /// The command prompt, when open (it puts a command's output in the focused field).
    pub command: Option<CommandPrompt>,
    /// Files being read for fields.
    pub reads: Vec<PendingRead>,
    /// The submit waits for the server to be up (`fetching` holds its id; nothing was
    /// sent yet): a prompt from the catalog, opened while its server starts.
    pub awaiting_server: bool,
    /// The server's live list no longer offers this prompt: a submit is refused.
    pub gone: bool,
    /// The live preview of the filled prompt (opt-in per server).
    pub preview: super::live_preview::LivePreview,
    /// Every field's value as the form opened (the last run's): what is typed beyond it
    /// is kept as unsent when the form is left.
    pub opened_with: BTreeMap<String, String>,
    /// The fields show values typed last time and not sent (the footer says so).
    pub restored_unsent: bool,
    /// The tick at which what is typed and not sent is due to be kept on disk.
    pub unsent_due: Option<u64>,
}

/// How well `value` matches `typed` (already lower-case), best first: the same text, then
/// starting with it, then a word of it starting with it, then holding it elsewhere, then
/// not holding it (a server may suggest by its own rules).
fn match_rank(value: &str, typed: &str) -> u8 {
    if typed.is_empty() {
        return 0;
    }
    let value = value.to_lowercase();
    if value == typed {
        0
    } else if value.starts_with(typed) {
        1
    } else if value.match_indices(typed).any(|(at, _)| {
        !value[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    }) {
        2
    } else if value.contains(typed) {
        3
    } else {
        4
    }
}

/// A field for `arg`, pre-filled with the value used last time.
fn field_for(arg: &PromptArg, slash_name: &str, history: &History) -> Field {
    let last = history.last_value(slash_name, &arg.name).unwrap_or("");
    Field {
        editor: editor_with(last),
        arg: arg.clone(),
        missing: false,
        prefilled: !last.is_empty(),
        source: None,
        recalled: history.last_source(slash_name, &arg.name).cloned(),
        replaced: None,
    }
}

/// What a form action leads to.
pub(super) enum Outcome {
    /// Stay, with this work.
    Effects(Vec<Effect>),
    /// Back to the menu.
    Back,
    /// Validate and fetch.
    Submit,
}

/// The largest text the editor wraps (see [`editor_with`]).
pub const WRAP_UP_TO_BYTES: usize = 256 * 1024;

/// A text area for a value, cursor at its end.
pub fn editor_with(text: &str) -> TextArea<'static> {
    let mut editor = TextArea::new(text.split('\n').map(str::to_string).collect());
    editor.set_cursor_line_style(Style::default());
    // The editor wraps the whole text again on every key: beyond this size typing would
    // lag, so long lines scroll sideways instead (Ctrl-G opens $EDITOR).
    if text.len() <= WRAP_UP_TO_BYTES {
        editor.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    }
    // Tab inserts a tab where the text is indented by tabs (a Makefile, Go), spaces
    // otherwise, so what is typed matches what is there.
    editor.set_hard_tab_indent(text.split('\n').any(|line| line.starts_with('\t')));
    editor.move_cursor(CursorMove::Bottom);
    editor.move_cursor(CursorMove::End);
    editor
}

impl FormState {
    /// A form for `prompt`, each field pre-filled with the value used last time.
    pub fn new(prompt: PromptInfo, slash_name: String, history: &History) -> FormState {
        // A skill's task starts empty (Enter with it empty sends the instructions alone),
        // not with the last task.
        let no_history = History::default();
        let recalled = if prompt.skill.is_some() {
            &no_history
        } else {
            history
        };
        let fields = prompt
            .arguments
            .iter()
            .map(|arg| field_for(arg, &slash_name, recalled))
            .collect();
        let mut form = FormState {
            prompt,
            slash_name,
            fields,
            focus: 0,
            suggestions: Suggestions::default(),
            server_suggestions: None,
            completion_due: None,
            completion_pending: None,
            error: None,
            fetching: None,
            files: None,
            command: None,
            reads: Vec::new(),
            awaiting_server: false,
            gone: false,
            preview: Default::default(),
            opened_with: BTreeMap::new(),
            restored_unsent: false,
            unsent_due: None,
        };
        form.opened_with = form.values();
        form.refresh_suggestions(history);
        form
    }

    /// Every field's value, empty ones included (the arguments to send leave those out).
    pub fn values(&self) -> BTreeMap<String, String> {
        self.fields
            .iter()
            .map(|f| (f.arg.name.clone(), f.value()))
            .collect()
    }

    /// Whether anything typed differs from what the form opened with.
    pub fn has_unsent(&self) -> bool {
        self.values() != self.opened_with
    }

    /// Shows `values` typed last time and not sent, in the fields they were typed in (as
    /// typed: not selected, so typing goes on after them); `opened_with` stays the last
    /// run's, so leaving again keeps them.
    pub(super) fn restore_unsent(&mut self, values: &BTreeMap<String, String>) {
        for field in &mut self.fields {
            if let Some(value) = values.get(&field.arg.name) {
                if field.value() != *value {
                    self.restored_unsent = true;
                }
                field.replace_value(value);
                field.prefilled = false;
                field.source = None;
            }
        }
    }

    /// Ends a submit that waits for the server (nothing was sent); returns whether one did.
    pub(super) fn stop_waiting(&mut self) -> bool {
        if !self.awaiting_server {
            return false;
        }
        self.awaiting_server = false;
        self.fetching = None;
        true
    }

    /// Takes the server's current version of this prompt. Titles and descriptions are
    /// taken quietly; when its arguments changed (added, gone, required or not), the fields
    /// follow them, each kept argument keeping its value, and this says what changed.
    pub(super) fn take_prompt(&mut self, prompt: PromptInfo, history: &History) -> Option<String> {
        let shape = |args: &[PromptArg]| -> Vec<(String, bool)> {
            args.iter().map(|a| (a.name.clone(), a.required)).collect()
        };
        if shape(&prompt.arguments) == shape(&self.prompt.arguments) {
            for (field, arg) in self.fields.iter_mut().zip(&prompt.arguments) {
                field.arg = arg.clone();
            }
            self.prompt = prompt;
            return None;
        }
        let mut changes = Vec::new();
        let old = |name: &str| self.prompt.arguments.iter().find(|a| a.name == name);
        let added: Vec<String> = prompt
            .arguments
            .iter()
            .filter(|a| old(&a.name).is_none())
            .map(|a| crate::text::one_line(&a.name))
            .collect();
        let gone: Vec<String> = self
            .prompt
            .arguments
            .iter()
            .filter(|a| prompt.argument(&a.name).is_none())
            .map(|a| crate::text::one_line(&a.name))
            .collect();
        let now = |required: bool| -> Vec<String> {
            prompt
                .arguments
                .iter()
                .filter(|a| {
                    a.required == required && old(&a.name).is_some_and(|o| o.required != required)
                })
                .map(|a| crate::text::one_line(&a.name))
                .collect()
        };
        for (what, names) in [
            ("new", added),
            ("gone", gone),
            ("now required", now(true)),
            ("now optional", now(false)),
        ] {
            if !names.is_empty() {
                changes.push(format!("{what}: {}", names.join(", ")));
            }
        }
        if changes.is_empty() {
            changes.push("their order changed".into());
        }
        let focused = self.fields.get(self.focus).map(|f| f.arg.name.clone());
        let mut old_fields = std::mem::take(&mut self.fields);
        self.fields = prompt
            .arguments
            .iter()
            .map(
                |arg| match old_fields.iter().position(|f| f.arg.name == arg.name) {
                    Some(at) => {
                        let mut field = old_fields.swap_remove(at);
                        field.arg = arg.clone();
                        field.missing = false;
                        field
                    }
                    None => field_for(arg, &self.slash_name, history),
                },
            )
            .collect();
        self.focus = focused
            .and_then(|name| self.fields.iter().position(|f| f.arg.name == name))
            .unwrap_or(0)
            .min(self.fields.len().saturating_sub(1));
        self.prompt = prompt;
        self.suggestions = Suggestions::default();
        self.server_suggestions = None;
        self.completion_pending = None;
        self.refresh_suggestions(history);
        self.suggestions.dismissed = true;
        // The arguments sent changed with the fields: the preview is asked again at once.
        if self.preview.enabled {
            self.preview.due = Some(0);
        }
        Some(changes.join("; "))
    }

    /// Puts the given values into their fields (as typed, not as remembered ones); returns
    /// the names that are no argument of this prompt.
    pub fn set_values(&mut self, values: &BTreeMap<String, String>) -> Vec<String> {
        let mut unknown = Vec::new();
        for (name, value) in values {
            match self.fields.iter_mut().find(|f| &f.arg.name == name) {
                Some(field) => {
                    field.editor = editor_with(value);
                    field.prefilled = false;
                    field.source = None;
                    // Given now: the last run's file is not read again over it.
                    field.recalled = None;
                }
                None => unknown.push(name.clone()),
            }
        }
        unknown
    }

    /// Marks the fields named in `sources` with where their (just set) values came from.
    pub fn set_sources(&mut self, sources: &BTreeMap<String, ValueSource>) {
        for (name, source) in sources {
            if let Some(field) = self.fields.iter_mut().find(|f| &f.arg.name == name) {
                field.source = Some(SourceMark::new(source.clone(), &field.value()));
            }
        }
    }

    /// Where the values to send came from, for those a file, a command or stdin gave and
    /// that were not edited since (the history keeps these sources, not the values).
    pub fn sources(&self) -> BTreeMap<String, ValueSource> {
        self.fields
            .iter()
            .filter_map(|f| {
                let mark = f.source.as_ref().filter(|m| !m.edited)?;
                Some((f.arg.name.clone(), mark.source.clone()))
            })
            .collect()
    }

    /// Field `index` takes `text` from `source` (a file, a command's output), marked so;
    /// `prefilled` when it is the last run's value read again (typing replaces it).
    pub(super) fn set_sourced_value(
        &mut self,
        index: usize,
        text: &str,
        source: ValueSource,
        prefilled: bool,
        history: &History,
        tick: u64,
    ) {
        let Some(field) = self.fields.get_mut(index) else {
            return;
        };
        field.replace_value(text);
        field.source = Some(SourceMark::new(source, text));
        if let Some(replaced) = &mut field.replaced {
            replaced.source_after = field.source.clone();
        }
        field.recalled = None;
        field.missing = false;
        self.error = None;
        if index == self.focus {
            self.edited(history, tick);
            // A document read in is nothing to complete (and too large to send for it), and
            // the suggestions for what was typed before are stale: Tab must not take one.
            self.completion_due = None;
            self.server_suggestions = None;
            self.suggestions = Suggestions {
                dismissed: true,
                ..Suggestions::default()
            };
        }
        if let Some(field) = self.fields.get_mut(index) {
            field.prefilled = prefilled;
        }
        self.preview_edited(tick);
    }

    /// The arguments to send: required ones always, optional ones when filled.
    pub fn arguments(&self) -> BTreeMap<String, String> {
        self.fields
            .iter()
            .filter_map(|f| {
                let value = f.value();
                (f.arg.required || !value.is_empty()).then(|| (f.arg.name.clone(), value))
            })
            .collect()
    }

    /// Marks empty required fields; the error names them.
    pub fn validate(&mut self) -> Result<(), String> {
        let mut missing = Vec::new();
        for field in &mut self.fields {
            field.missing = field.arg.required && field.value().trim().is_empty();
            if field.missing {
                missing.push(
                    field
                        .arg
                        .title
                        .clone()
                        .unwrap_or_else(|| field.arg.name.clone()),
                );
            }
        }
        if let Some(first) = self.fields.iter().position(|f| f.missing) {
            self.focus = first;
            return Err(format!(
                "Fill in the required {} {} first.",
                if missing.len() == 1 {
                    "field"
                } else {
                    "fields"
                },
                missing.join(", ")
            ));
        }
        Ok(())
    }

    /// Called when a field gains focus: suggestions for it are asked at once.
    pub(super) fn on_focus(&mut self, history: &History, tick: u64) -> Vec<Effect> {
        self.server_suggestions = None;
        self.completion_pending = None;
        self.suggestions = Suggestions::default();
        self.refresh_suggestions(history);
        // Ready, but hidden until the user types or asks (Ctrl-N): Tab on an untouched
        // field moves on rather than taking a suggestion nobody looked at.
        self.suggestions.dismissed = true;
        self.completion_due = Some(tick);
        Vec::new()
    }

    /// The completion request to send now, if one is due.
    pub(super) fn due_completion(
        &mut self,
        tick: u64,
        id: u64,
        servers: &[ServerStatus],
    ) -> Option<Effect> {
        let due = self.completion_due?;
        if tick < due || self.fetching.is_some() {
            return None;
        }
        self.completion_due = None;
        let field = self.fields.get(self.focus)?;
        // A skill's task is mcpick's own field: the server has nothing to complete.
        let offers = self.prompt.skill.is_none()
            && servers.iter().any(|s| {
                s.name == self.prompt.server
                    && matches!(&s.state, ServerState::Ready { details, .. }
                    if details.completions || details.protocol_version == "2024-11-05")
            });
        if !offers {
            return None;
        }
        self.completion_pending = Some(id);
        let context = self
            .fields
            .iter()
            .enumerate()
            .filter(|(i, f)| *i != self.focus && !f.value().is_empty())
            .map(|(_, f)| (f.arg.name.clone(), f.value()))
            .collect();
        Some(Effect::Complete {
            id,
            server: self.prompt.server.clone(),
            prompt: self.prompt.name.clone(),
            argument: field.arg.name.clone(),
            value: field.value(),
            context,
        })
    }

    /// Takes a completion answer, unless a newer request superseded it.
    pub(super) fn on_completed(
        &mut self,
        id: u64,
        result: Result<Completion, String>,
        history: &History,
    ) {
        if self.completion_pending != Some(id) {
            return;
        }
        self.completion_pending = None;
        match result {
            Ok(completion) => self.server_suggestions = Some(completion),
            Err(error) => {
                tracing::debug!(%error, "completion failed");
                self.server_suggestions = None;
            }
        }
        let dismissed = self.suggestions.dismissed;
        self.refresh_suggestions(history);
        self.suggestions.dismissed = dismissed;
    }

    /// Rebuilds the suggestion list: remembered values containing what is typed and the
    /// server's values, ranked together by how well each matches what is typed
    /// ([`match_rank`]); within a rank the remembered ones first, then the server's order.
    fn refresh_suggestions(&mut self, history: &History) {
        let Some(field) = self.fields.get(self.focus) else {
            self.suggestions = Suggestions::default();
            return;
        };
        let value = field.value();
        let lower = value.to_lowercase();
        let mut candidates: Vec<(String, bool)> = history
            .values(&self.slash_name, &field.arg.name)
            .iter()
            .filter(|v| **v != value && v.to_lowercase().contains(&lower))
            .take(HISTORY_SUGGESTIONS)
            .map(|v| (v.clone(), true))
            .collect();
        let from_history = candidates.len();
        let (mut has_more, mut total) = (false, None);
        if let Some(completion) = &self.server_suggestions {
            for v in &completion.values {
                if candidates.len() >= MAX_SUGGESTIONS + from_history {
                    has_more = true;
                    break;
                }
                if !candidates.iter().any(|(c, _)| c == v) {
                    candidates.push((v.clone(), false));
                }
            }
            has_more |= completion.has_more.unwrap_or(false);
            total = completion.total;
        }
        // A stable sort: equal matches keep remembered-first, then the server's own order.
        candidates.sort_by_key(|(v, _)| match_rank(v, &lower));
        let (mut values, mut remembered): (Vec<String>, Vec<bool>) = candidates.into_iter().unzip();
        // A lone suggestion equal to the value offers nothing.
        if values.len() == 1 && values[0] == value {
            values.clear();
            remembered.clear();
        }
        let highlighted = self
            .suggestions
            .highlighted
            .and_then(|h| values.len().checked_sub(1).map(|last| h.min(last)));
        self.suggestions = Suggestions {
            values,
            remembered,
            has_more,
            total,
            highlighted,
            dismissed: false,
        };
    }

    fn edited(&mut self, history: &History, tick: u64) {
        if let Some(field) = self.fields.get_mut(self.focus) {
            field.missing = false;
            field.prefilled = false;
            field.follow_source();
        }
        // An answer for what was typed before is stale now.
        self.completion_pending = None;
        self.suggestions.highlighted = None;
        self.refresh_suggestions(history);
        self.completion_due = Some(tick + COMPLETION_DEBOUNCE_TICKS);
        self.preview_edited(tick);
    }

    /// A key no binding took: typing into the focused field.
    pub(super) fn type_key(
        &mut self,
        key: KeyEvent,
        history: &History,
        tick: u64,
    ) -> Vec<super::Effect> {
        if self.fetching.is_some() {
            return Vec::new();
        }
        let Some(field) = self.fields.get_mut(self.focus) else {
            return Vec::new();
        };
        // The text area's own Enter and Tab would put them in the value.
        if matches!(key.code, KeyCode::Enter | KeyCode::Tab | KeyCode::BackTab) {
            return Vec::new();
        }
        if field.prefilled {
            // The last run's value acts as selected: typing or deleting replaces it,
            // moving the cursor keeps it.
            match key.code {
                KeyCode::Char(_)
                    if !key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
                {
                    field.editor = editor_with("");
                    field.source = None;
                }
                KeyCode::Backspace | KeyCode::Delete => {
                    field.editor = editor_with("");
                    field.source = None;
                    self.edited(history, tick);
                    return Vec::new();
                }
                _ => {}
            }
            field.prefilled = false;
        }
        if super::line::edit_area(&mut field.editor, key) {
            self.edited(history, tick);
        }
        Vec::new()
    }

    /// Pasted text goes into the focused field, line breaks included.
    pub(super) fn paste(&mut self, text: &str, tick: u64) -> Vec<Effect> {
        if self.fetching.is_some() {
            return Vec::new();
        }
        if let Some(field) = self.fields.get_mut(self.focus) {
            if field.prefilled {
                field.editor = editor_with("");
                field.prefilled = false;
                field.source = None;
            }
            field
                .editor
                .insert_str(text.replace("\r\n", "\n").replace('\r', "\n"));
            field.missing = false;
            field.follow_source();
            self.completion_due = Some(tick + COMPLETION_DEBOUNCE_TICKS);
            self.preview_edited(tick);
        }
        Vec::new()
    }

    /// The focused field's value, replaced (from `$EDITOR` or a suggestion).
    pub(super) fn set_focused_value(
        &mut self,
        text: &str,
        history: &History,
        tick: u64,
    ) -> Vec<Effect> {
        // Editors end files with a newline the user did not mean as part of the value.
        let text = text.strip_suffix('\n').unwrap_or(text);
        if let Some(field) = self.fields.get_mut(self.focus) {
            field.replace_value(text);
            self.edited(history, tick);
        }
        Vec::new()
    }

    fn move_focus(&mut self, to: usize, history: &History, tick: u64) -> Vec<Effect> {
        if to == self.focus || to >= self.fields.len() {
            return Vec::new();
        }
        self.focus = to;
        self.on_focus(history, tick)
    }

    /// A click on field `index`: focuses it (nothing while fetching).
    pub(super) fn click_field(
        &mut self,
        index: usize,
        history: &History,
        tick: u64,
    ) -> Vec<Effect> {
        if self.fetching.is_some() || self.files.is_some() || self.command.is_some() {
            return Vec::new();
        }
        self.move_focus(index, history, tick)
    }

    /// A click on the focused field's suggestion `index`: takes it, as choosing it and
    /// Enter do (the focus stays, so a second look is possible).
    pub(super) fn click_suggestion(&mut self, index: usize, history: &History, tick: u64) {
        if self.fetching.is_some() || !self.suggestions.visible() {
            return;
        }
        if index < self.suggestions.values.len() {
            self.suggestions.highlighted = Some(index);
            self.accept_suggestion(history, tick);
        }
    }

    /// Takes the highlighted suggestion, or the first when none is (Tab, →); returns whether
    /// the value changed.
    fn accept_suggestion(&mut self, history: &History, tick: u64) -> bool {
        if !self.suggestions.visible() {
            return false;
        }
        let Some(value) = self
            .suggestions
            .values
            .get(self.suggestions.highlighted.unwrap_or(0))
            .cloned()
        else {
            return false;
        };
        let Some(field) = self.fields.get_mut(self.focus) else {
            return false;
        };
        if field.value() == value {
            return false;
        }
        field.replace_value(&value);
        field.missing = false;
        field.prefilled = false;
        field.follow_source();
        self.refresh_suggestions(history);
        self.suggestions.dismissed = true;
        self.preview_edited(tick);
        true
    }

    /// Ctrl-N (`forward`) or Ctrl-P: shows hidden suggestions with the first (Ctrl-P: the
    /// last) highlighted, else moves the highlight, wrapping.
    fn choose_suggestion(&mut self, forward: bool) {
        let count = self.suggestions.values.len();
        if count == 0 {
            // Asked before the server answered: the answer shows with the first (or the
            // last) highlighted, as if it had been there.
            self.suggestions.dismissed = false;
            self.suggestions.highlighted = Some(if forward { 0 } else { usize::MAX });
            return;
        }
        let current = self
            .suggestions
            .highlighted
            .filter(|_| self.suggestions.visible());
        self.suggestions.dismissed = false;
        self.suggestions.highlighted = Some(match (current, forward) {
            (None, true) => 0,
            (None, false) => count - 1,
            (Some(at), true) => (at + 1) % count,
            (Some(at), false) => (at + count - 1) % count,
        });
    }

    /// The focused field's cursor row and its number of rows.
    fn cursor_row(&self) -> Option<(usize, usize)> {
        let field = self.fields.get(self.focus)?;
        Some((field.editor.cursor().0, field.editor.lines().len()))
    }

    fn move_in_field(&mut self, movement: CursorMove) -> Vec<Effect> {
        if let Some(field) = self.fields.get_mut(self.focus) {
            field.prefilled = false;
            super::line::move_area(&mut field.editor, movement);
        }
        Vec::new()
    }

    /// Runs a form action.
    pub(super) fn action(&mut self, action: Action, history: &History, tick: u64) -> Outcome {
        if let Some((id, _)) = self.fetching {
            // While fetching only Esc (cancel) does anything.
            if action == Action::Back {
                self.fetching = None;
                self.awaiting_server = false;
                self.error = Some("Cancelled. Enter or Ctrl-S sends it again.".into());
                return Outcome::Effects(vec![Effect::CancelFetch { id }]);
            }
            return Outcome::Effects(Vec::new());
        }
        let last = self.fields.len().saturating_sub(1);
        let effects = match action {
            // Enter takes a suggestion only when one was chosen with Ctrl-N/Ctrl-P.
            Action::NextOrSubmit
                if self.suggestions.visible()
                    && self.suggestions.highlighted.is_some()
                    && self.accept_suggestion(history, tick) =>
            {
                Vec::new()
            }
            Action::NextOrSubmit => {
                if self.focus >= last {
                    return Outcome::Submit;
                }
                self.move_focus(self.focus + 1, history, tick)
            }
            Action::Submit => return Outcome::Submit,
            // Tab always moves on, taking the highlighted (or first) suggestion on the way,
            // so what is typed next lands in the next field (as Shift-Tab never takes one).
            Action::NextField => {
                self.accept_suggestion(history, tick);
                let next = if self.focus >= last {
                    0
                } else {
                    self.focus + 1
                };
                self.move_focus(next, history, tick)
            }
            Action::PrevField => {
                let prev = if self.focus == 0 {
                    last
                } else {
                    self.focus - 1
                };
                self.move_focus(prev, history, tick)
            }
            // In a value of several lines, Up and Down move between its lines first.
            Action::Up if self.cursor_row().is_some_and(|(row, _)| row > 0) => {
                self.move_in_field(CursorMove::Up)
            }
            Action::Down if self.cursor_row().is_some_and(|(row, rows)| row + 1 < rows) => {
                self.move_in_field(CursorMove::Down)
            }
            Action::Up => self.move_focus(self.focus.saturating_sub(1), history, tick),
            Action::Down => self.move_focus((self.focus + 1).min(last), history, tick),
            Action::AcceptSuggestion => {
                let at_end = self.fields.get(self.focus).is_some_and(|f| {
                    let ratatui_textarea::DataCursor(row, col) = f.editor.cursor();
                    row + 1 == f.editor.lines().len()
                        && col == f.editor.lines()[row].chars().count()
                });
                if !(at_end && self.accept_suggestion(history, tick))
                    && let Some(field) = self.fields.get_mut(self.focus)
                {
                    super::line::move_area(&mut field.editor, CursorMove::Forward);
                }
                Vec::new()
            }
            Action::NextSuggestion => {
                self.choose_suggestion(true);
                Vec::new()
            }
            Action::PrevSuggestion => {
                self.choose_suggestion(false);
                Vec::new()
            }
            Action::Newline => {
                if let Some(field) = self.fields.get_mut(self.focus) {
                    field.editor.insert_newline();
                    self.edited(history, tick);
                }
                Vec::new()
            }
            Action::Undo | Action::Redo => {
                if let Some(field) = self.fields.get_mut(self.focus)
                    && field.undo_or_redo(action == Action::Undo)
                {
                    field.prefilled = false;
                    self.edited(history, tick);
                }
                Vec::new()
            }
            Action::ExternalEditor => match self.fields.get(self.focus) {
                Some(field) => vec![Effect::ExternalEditor {
                    text: field.value(),
                }],
                None => Vec::new(),
            },
            Action::Back => {
                if self.suggestions.visible() {
                    self.suggestions.dismissed = true;
                    Vec::new()
                } else {
                    return Outcome::Back;
                }
            }
            _ => Vec::new(),
        };
        Outcome::Effects(effects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui_textarea::WrapMode;

    #[test]
    fn long_texts_are_edited_without_wrapping() {
        let short = "word ".repeat(1000);
        assert_eq!(editor_with(&short).wrap_mode(), WrapMode::WordOrGlyph);
        let long = "word ".repeat(WRAP_UP_TO_BYTES / 5 + 1);
        let editor = editor_with(&long);
        assert_eq!(editor.wrap_mode(), WrapMode::None);
        assert_eq!(editor.lines().join("\n"), long);
    }
}
