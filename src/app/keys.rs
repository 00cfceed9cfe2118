//! Key bindings: per-screen tables from keys to actions, with user overrides from the
//! config's `[keys.SCREEN]` tables (`ACTION = "KEY"` or `ACTION = ["KEY", …]`).

use std::collections::BTreeMap;
use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Everything a key can do. Which actions a screen knows is given by its default table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Leave mcpick.
    Quit,
    /// Show the keys of the current screen.
    Help,
    /// Show the servers' logs.
    Logs,
    /// Move up one row or field.
    Up,
    /// Move down one row or field.
    Down,
    /// Move up one page.
    PageUp,
    /// Move down one page.
    PageDown,
    /// Go to the first row.
    Home,
    /// Go to the last row.
    End,
    /// Choose the selected prompt.
    Pick,
    /// Go back one screen (or leave a mode).
    Back,
    /// Next form field.
    NextField,
    /// Previous form field.
    PrevField,
    /// Next field, or submit on the last one.
    NextOrSubmit,
    /// Submit the form.
    Submit,
    /// Insert a line break in a value.
    Newline,
    /// Edit the value in `$EDITOR`.
    ExternalEditor,
    /// Take the highlighted suggestion.
    AcceptSuggestion,
    /// Highlight the next suggestion.
    NextSuggestion,
    /// Highlight the previous suggestion.
    PrevSuggestion,
    /// Edit the selected message's text.
    Edit,
    /// Switch the selected message between user and assistant.
    ToggleRole,
    /// Delete the selected message.
    Delete,
    /// Add a message below the selected one.
    Add,
    /// Move the selected message up.
    MoveUp,
    /// Move the selected message down.
    MoveDown,
    /// Restore the selected message to what the server sent.
    Restore,
    /// Restore every message to what the server sent.
    RestoreAll,
    /// Copy the export to the clipboard.
    Copy,
    /// Save the export to a file.
    Save,
    /// Switch to the next export format.
    CycleFormat,
    /// Show or hide the export preview.
    Preview,
    /// Accept the result: write `--output`, print with `--print`, or copy.
    Accept,
    /// Save the selected block's bytes (image, audio, blob) to a file.
    SaveBytes,
    /// Play the selected audio block (Esc stops it).
    PlayAudio,
    /// Fetch a linked resource and embed it.
    FetchResource,
    /// Scroll the message text up.
    ScrollUp,
    /// Scroll the message text down.
    ScrollDown,
    /// Show the next server's lines only (logs).
    NextServer,
    /// Decline the server's question.
    Decline,
    /// Use the servers found in other hosts' configs (first run).
    UseSources,
    /// Type the inputs servers wait for (`${input:ID}` in their config).
    Inputs,
    /// Sign in (OAuth, in the browser) to a server that asks for it.
    SignIn,
    /// Start the failed servers again.
    Restart,
    /// List every server's prompts again now, whatever the catalog's TTL (failed servers
    /// start again).
    Refresh,
    /// Undo the last edit of the text.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Show only the lines holding a text (logs).
    Filter,
    /// Move the keys between the messages and the preview beside them.
    SwitchPane,
    /// Strip escape sequences and other control characters from the messages.
    StripControls,
    /// Fill the field with a file's contents (opens the file picker).
    FromFile,
    /// Fill the field with a shell command's output (opens the command prompt).
    FromCommand,
    /// Turn the form's live preview on or off for this server, for the rest of the run.
    LivePreview,
    /// Draw the selected message (or the markdown preview) rendered or raw.
    ToggleRendered,
    /// Give the terminal back and stop, as a shell's Ctrl-Z does (`fg` comes back). No key
    /// by default: Ctrl-Z is undo.
    Suspend,
}

impl Action {
    /// Every action with its config name.
    pub const NAMES: [(&'static str, Action); 55] = [
        ("quit", Action::Quit),
        ("help", Action::Help),
        ("logs", Action::Logs),
        ("up", Action::Up),
        ("down", Action::Down),
        ("page_up", Action::PageUp),
        ("page_down", Action::PageDown),
        ("home", Action::Home),
        ("end", Action::End),
        ("pick", Action::Pick),
        ("back", Action::Back),
        ("next_field", Action::NextField),
        ("prev_field", Action::PrevField),
        ("next_or_submit", Action::NextOrSubmit),
        ("submit", Action::Submit),
        ("newline", Action::Newline),
        ("external_editor", Action::ExternalEditor),
        ("accept_suggestion", Action::AcceptSuggestion),
        ("next_suggestion", Action::NextSuggestion),
        ("prev_suggestion", Action::PrevSuggestion),
        ("edit", Action::Edit),
        ("toggle_role", Action::ToggleRole),
        ("delete", Action::Delete),
        ("add", Action::Add),
        ("move_up", Action::MoveUp),
        ("move_down", Action::MoveDown),
        ("restore", Action::Restore),
        ("restore_all", Action::RestoreAll),
        ("copy", Action::Copy),
        ("save", Action::Save),
        ("cycle_format", Action::CycleFormat),
        ("preview", Action::Preview),
        ("accept", Action::Accept),
        ("save_bytes", Action::SaveBytes),
        ("play_audio", Action::PlayAudio),
        ("fetch_resource", Action::FetchResource),
        ("scroll_up", Action::ScrollUp),
        ("scroll_down", Action::ScrollDown),
        ("next_server", Action::NextServer),
        ("decline", Action::Decline),
        ("use_sources", Action::UseSources),
        ("inputs", Action::Inputs),
        ("sign_in", Action::SignIn),
        ("restart", Action::Restart),
        ("refresh", Action::Refresh),
        ("undo", Action::Undo),
        ("redo", Action::Redo),
        ("filter", Action::Filter),
        ("switch_pane", Action::SwitchPane),
        ("strip_controls", Action::StripControls),
        ("from_file", Action::FromFile),
        ("from_command", Action::FromCommand),
        ("live_preview", Action::LivePreview),
        ("toggle_rendered", Action::ToggleRendered),
        ("suspend", Action::Suspend),
    ];

    /// The action's config name.
    pub fn name(self) -> &'static str {
        Action::NAMES
            .iter()
            .find(|(_, a)| *a == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }

    fn from_name(name: &str) -> Option<Action> {
        Action::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| *a)
    }

    /// What the action does, for the help overlay.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit mcpick",
            Action::Help => "show this help",
            Action::Logs => "show server logs",
            Action::Up => "move up",
            Action::Down => "move down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Home => "first",
            Action::End => "last",
            Action::Pick => "open the selected prompt",
            Action::Back => "go back",
            Action::NextField => "next field",
            Action::PrevField => "previous field",
            Action::NextOrSubmit => "next field; submit on the last",
            Action::Submit => "submit",
            Action::Newline => "insert a line break",
            Action::ExternalEditor => "edit in $EDITOR",
            Action::AcceptSuggestion => "take the highlighted suggestion",
            Action::NextSuggestion => "next suggestion",
            Action::PrevSuggestion => "previous suggestion",
            Action::Edit => "edit the message text",
            Action::ToggleRole => "switch role user/assistant",
            Action::Delete => "delete the message",
            Action::Add => "add a message below",
            Action::MoveUp => "move the message up",
            Action::MoveDown => "move the message down",
            Action::Restore => "restore the message as sent",
            Action::RestoreAll => "restore all messages as sent",
            Action::Copy => "copy the export to the clipboard",
            Action::Save => "save the export to a file",
            Action::CycleFormat => "next export format",
            Action::Preview => "show/hide the export preview",
            Action::Accept => "accept: --output / --print / copy",
            Action::SaveBytes => "save the block's bytes to a file",
            Action::PlayAudio => "play the audio block (Esc stops it)",
            Action::FetchResource => "fetch the linked resource",
            Action::ScrollUp => "page up (a long message scrolls first)",
            Action::ScrollDown => "page down (a long message scrolls first)",
            Action::NextServer => "show the next server only",
            Action::Decline => "decline to answer",
            Action::UseSources => "use the servers found in other hosts' configs",
            Action::Inputs => "type the inputs servers wait for",
            Action::SignIn => "sign in to a server that asks for it (opens the browser)",
            Action::Restart => "start the failed servers again",
            Action::Refresh => "list every server's prompts again (failed ones start again)",
            Action::Undo => "undo the last edit",
            Action::Redo => "redo what was undone",
            Action::Filter => "filter the lines (Enter keeps it, Esc clears it)",
            Action::SwitchPane => "keys to the preview beside the messages, and back",
            Action::StripControls => "strip control characters (escape sequences)",
            Action::FromFile => "fill the field with a file's contents (pick the file)",
            Action::FromCommand => "fill the field with a shell command's output",
            Action::LivePreview => "live preview of the filled prompt on/off (this run)",
            Action::ToggleRendered => "rendered Markdown or raw text (message or preview)",
            Action::Suspend => "give the terminal back and stop (fg resumes)",
        }
    }
}

/// Undo: readline's Ctrl-_ (terminals send the same byte for Ctrl-/ and Ctrl-7, see
/// [`Key::from_event`]) and Ctrl-Z of most editors (raw mode delivers it as a key, not as a
/// stop signal).
const UNDO: &[&str] = &["ctrl-_", "ctrl-z"];

/// Redo: Alt-_, as Emacs' undo-tree (readline has none; Ctrl-Y and Ctrl-R are taken).
const REDO: &[&str] = &["alt-_"];

/// The screens (and modes) that have their own key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyScreen {
    /// The prompt menu.
    Picker,
    /// The argument form.
    Form,
    /// The server's questions (`input_required`).
    Questions,
    /// Reviewing messages.
    Review,
    /// Editing one message's text.
    Editor,
    /// The logs pane.
    Logs,
    /// The inputs prompt (`${input:ID}` values).
    Inputs,
    /// The form's file picker.
    Files,
    /// The form's command prompt.
    Command,
}

impl KeyScreen {
    /// Every screen with its config name.
    pub const ALL: [(&'static str, KeyScreen); 9] = [
        ("picker", KeyScreen::Picker),
        ("form", KeyScreen::Form),
        ("questions", KeyScreen::Questions),
        ("review", KeyScreen::Review),
        ("editor", KeyScreen::Editor),
        ("logs", KeyScreen::Logs),
        ("inputs", KeyScreen::Inputs),
        ("files", KeyScreen::Files),
        ("command", KeyScreen::Command),
    ];

    /// The default bindings, in the order the help shows them.
    fn defaults(self) -> &'static [(Action, &'static [&'static str])] {
        use Action::*;
        match self {
            KeyScreen::Picker => &[
                (Pick, &["enter"]),
                // fzf's moves: Ctrl-K/Ctrl-J too (nothing in a one-line search is above or
                // below; the text fields keep Ctrl-K deleting to the end).
                (Up, &["up", "ctrl-p", "ctrl-k"]),
                (Down, &["down", "ctrl-n", "ctrl-j"]),
                (PageUp, &["pageup"]),
                (PageDown, &["pagedown"]),
                // Home/End move in the search line, as in every input.
                (Home, &["ctrl-home"]),
                (End, &["ctrl-end"]),
                (Back, &["esc"]),
                (Logs, &["ctrl-l"]),
                (UseSources, &["ctrl-o"]),
                // Screen actions take keys no input edits text with.
                (Inputs, &["ctrl-t"]),
                (SignIn, &["ctrl-s"]),
                (Restart, &["f5"]),
                (Refresh, &["ctrl-r"]),
                (Help, &["f1", "?"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Form => &[
                (NextOrSubmit, &["enter"]),
                (Submit, &["ctrl-s"]),
                (NextField, &["tab"]),
                (PrevField, &["shift-tab"]),
                (Up, &["up"]),
                (Down, &["down"]),
                (AcceptSuggestion, &["right"]),
                (NextSuggestion, &["ctrl-n"]),
                (PrevSuggestion, &["ctrl-p"]),
                (Newline, &["alt-enter", "ctrl-j"]),
                (Undo, UNDO),
                (Redo, REDO),
                (ExternalEditor, &["ctrl-g"]),
                // Screen actions take keys no input edits text with.
                (FromFile, &["ctrl-o"]),
                (FromCommand, &["ctrl-r"]),
                (LivePreview, &["f2"]),
                // No input pages: PgUp/PgDn scroll the live preview.
                (PageUp, &["pageup"]),
                (PageDown, &["pagedown"]),
                (Back, &["esc"]),
                (Logs, &["ctrl-l"]),
                (Help, &["f1"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Questions => &[
                (NextOrSubmit, &["enter"]),
                (Submit, &["ctrl-s"]),
                (NextField, &["tab", "down"]),
                (PrevField, &["shift-tab", "up"]),
                (Undo, UNDO),
                (Redo, REDO),
                (Decline, &["ctrl-d"]),
                (Back, &["esc"]),
                (Logs, &["ctrl-l"]),
                (Help, &["f1"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Review => &[
                (Accept, &["enter"]),
                (Up, &["up", "k"]),
                (Down, &["down", "j"]),
                (ScrollUp, &["pageup"]),
                (ScrollDown, &["pagedown", "space"]),
                (Home, &["home", "g"]),
                (End, &["end", "G"]),
                (Edit, &["e", "i"]),
                (ToggleRole, &["r"]),
                (Delete, &["d"]),
                (Add, &["a"]),
                (MoveUp, &["alt-up"]),
                (MoveDown, &["alt-down"]),
                (Restore, &["u"]),
                (RestoreAll, &["U"]),
                (Undo, UNDO),
                (Redo, REDO),
                (StripControls, &["x"]),
                (Copy, &["y"]),
                (Save, &["s"]),
                (CycleFormat, &["f"]),
                (Preview, &["p"]),
                (ToggleRendered, &["m"]),
                (SwitchPane, &["tab"]),
                (SaveBytes, &["w"]),
                (PlayAudio, &["P"]),
                (FetchResource, &["o"]),
                (Back, &["esc"]),
                (Logs, &["L", "ctrl-l"]),
                (Help, &["?", "f1"]),
                (Suspend, &[]),
                (Quit, &["q", "ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Editor => &[
                (Back, &["esc"]),
                (Newline, &["ctrl-j"]),
                (Undo, UNDO),
                (Redo, REDO),
                (ExternalEditor, &["ctrl-g"]),
                (Logs, &["ctrl-l"]),
                (Help, &["f1"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c"]),
            ],
            KeyScreen::Logs => &[
                (Up, &["up", "k"]),
                (Down, &["down", "j"]),
                (PageUp, &["pageup"]),
                (PageDown, &["pagedown", "space"]),
                (Home, &["home", "g"]),
                (End, &["end", "G"]),
                (NextServer, &["tab"]),
                (Filter, &["/"]),
                (Back, &["esc", "L", "q"]),
                (Help, &["?", "f1"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Inputs => &[
                (NextOrSubmit, &["enter"]),
                (Submit, &["ctrl-s"]),
                (NextField, &["tab", "down"]),
                (PrevField, &["shift-tab", "up"]),
                (Back, &["esc"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Files => &[
                (Pick, &["enter"]),
                (Up, &["up", "ctrl-p"]),
                (Down, &["down", "ctrl-n"]),
                (PageUp, &["pageup"]),
                (PageDown, &["pagedown"]),
                // Home/End move in the query line, as in every input.
                (Home, &["ctrl-home"]),
                (End, &["ctrl-end"]),
                (Back, &["esc"]),
                (Help, &["f1"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
            KeyScreen::Command => &[
                (Submit, &["enter"]),
                (Back, &["esc"]),
                (Help, &["f1"]),
                (Suspend, &[]),
                (Quit, &["ctrl-c", "ctrl-q"]),
            ],
        }
    }
}

/// One key with its modifiers, as written in the config (`ctrl-s`, `alt-enter`, `U`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    code: KeyCode,
    modifiers: KeyModifiers,
}

impl Key {
    /// The key of a terminal event, normalised: Shift is part of a typed character.
    pub fn from_event(event: &KeyEvent) -> Key {
        let mut modifiers =
            event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match event.code {
            KeyCode::Char(c) => {
                modifiers.remove(KeyModifiers::SHIFT);
                // Terminals report Ctrl-letter in either case.
                if modifiers.contains(KeyModifiers::CONTROL) {
                    // Ctrl-_, Ctrl-/ and Ctrl-7 are one byte (0x1f) in a terminal, which
                    // crossterm reports as Ctrl-7; with the kitty protocol they differ.
                    // They are one key here.
                    let c = match c {
                        '7' | '/' => '_',
                        c => c,
                    };
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::BackTab => {
                modifiers.insert(KeyModifiers::SHIFT);
                KeyCode::Tab
            }
            other => other,
        };
        Key { code, modifiers }
    }

    /// Parses `ctrl-s`, `alt-enter`, `shift-tab`, `f1`, `?`, `U`, `space`.
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if let Some(tail) = lower.strip_prefix("ctrl-").filter(|t| !t.is_empty()) {
                modifiers |= KeyModifiers::CONTROL;
                rest = &rest[rest.len() - tail.len()..];
            } else if let Some(tail) = lower.strip_prefix("alt-").filter(|t| !t.is_empty()) {
                modifiers |= KeyModifiers::ALT;
                rest = &rest[rest.len() - tail.len()..];
            } else if let Some(tail) = lower.strip_prefix("shift-").filter(|t| !t.is_empty()) {
                modifiers |= KeyModifiers::SHIFT;
                rest = &rest[rest.len() - tail.len()..];
            } else {
                break;
            }
        }
        let named = match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => Some(KeyCode::Enter),
            "esc" | "escape" => Some(KeyCode::Esc),
            "tab" => Some(KeyCode::Tab),
            "backtab" => {
                modifiers |= KeyModifiers::SHIFT;
                Some(KeyCode::Tab)
            }
            "up" => Some(KeyCode::Up),
            "down" => Some(KeyCode::Down),
            "left" => Some(KeyCode::Left),
            "right" => Some(KeyCode::Right),
            "pageup" => Some(KeyCode::PageUp),
            "pagedown" => Some(KeyCode::PageDown),
            "home" => Some(KeyCode::Home),
            "end" => Some(KeyCode::End),
            "backspace" => Some(KeyCode::Backspace),
            "delete" | "del" => Some(KeyCode::Delete),
            "insert" => Some(KeyCode::Insert),
            "space" => Some(KeyCode::Char(' ')),
            name => name
                .strip_prefix('f')
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (1..=12).contains(n))
                .map(KeyCode::F),
        };
        let code = match named {
            Some(code) => code,
            None => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => {
                        let c = if modifiers.contains(KeyModifiers::CONTROL) {
                            // As `from_event`: one key for the 0x1f byte.
                            match c {
                                '7' | '/' => '_',
                                c => c.to_ascii_lowercase(),
                            }
                        } else {
                            c
                        };
                        modifiers.remove(KeyModifiers::SHIFT);
                        KeyCode::Char(c)
                    }
                    _ => {
                        return Err(format!(
                            "unknown key `{text}` (write e.g. `ctrl-s`, `alt-enter`, `shift-tab`, `f1`, `pagedown`, `x`)"
                        ));
                    }
                }
            }
        };
        Ok(Key { code, modifiers })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("Alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) if self.modifiers.contains(KeyModifiers::CONTROL) => {
                write!(f, "{}", c.to_ascii_uppercase())
            }
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Insert => f.write_str("Ins"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The bindings of every screen, defaults merged with the user's overrides.
#[derive(Debug, Clone)]
pub struct KeyMap {
    screens: BTreeMap<KeyScreen, Vec<(Action, Vec<Key>)>>,
}

impl Default for KeyMap {
    fn default() -> Self {
        let screens = KeyScreen::ALL
            .iter()
            .map(|(_, screen)| {
                let table = screen
                    .defaults()
                    .iter()
                    .map(|(action, keys)| {
                        let keys = keys
                            .iter()
                            .map(|k| Key::parse(k).expect("default keys parse"))
                            .collect();
                        (*action, keys)
                    })
                    .collect();
                (*screen, table)
            })
            .collect();
        KeyMap { screens }
    }
}

/// A `[keys]` entry that names a screen, an action or a key mcpick does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOverrideError {
    /// The screen's table as written (`picker`).
    pub screen: String,
    /// The binding's action as written, when the fault is in one.
    pub action: Option<String>,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl std::fmt::Display for KeyOverrideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl KeyMap {
    /// The defaults with `overrides` (screen → action → keys) applied. An override replaces
    /// the action's keys on that screen; the same keys are taken away from other actions.
    pub fn with_overrides(
        overrides: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
    ) -> Result<KeyMap, KeyOverrideError> {
        let mut map = KeyMap::default();
        for (screen_name, actions) in overrides {
            let screen = KeyScreen::ALL
                .iter()
                .find(|(n, _)| n == screen_name)
                .map(|(_, s)| *s)
                .ok_or_else(|| {
                    let names: Vec<_> = KeyScreen::ALL.iter().map(|(n, _)| *n).collect();
                    KeyOverrideError {
                        screen: screen_name.clone(),
                        action: None,
                        message: format!(
                            "[keys.{screen_name}]: unknown screen (use one of: {})",
                            names.join(", ")
                        ),
                    }
                })?;
            let table = map
                .screens
                .get_mut(&screen)
                .expect("every screen has a table");
            for (action_name, key_names) in actions {
                let error = |message: String| KeyOverrideError {
                    screen: screen_name.clone(),
                    action: Some(action_name.clone()),
                    message,
                };
                let action = Action::from_name(action_name)
                    .filter(|a| table.iter().any(|(known, _)| known == a))
                    .ok_or_else(|| {
                        let names: Vec<_> = table.iter().map(|(a, _)| a.name()).collect();
                        error(format!(
                            "[keys.{screen_name}]: `{action_name}` is not an action of this screen (use one of: {})",
                            names.join(", ")
                        ))
                    })?;
                let keys = key_names
                    .iter()
                    .map(|k| {
                        Key::parse(k)
                            .map_err(|e| error(format!("[keys.{screen_name}] {action_name}: {e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                for (other, other_keys) in table.iter_mut() {
                    if *other != action {
                        other_keys.retain(|k| !keys.contains(k));
                    }
                }
                if let Some((_, bound)) = table.iter_mut().find(|(a, _)| *a == action) {
                    *bound = keys;
                }
            }
        }
        Ok(map)
    }

    /// The action `event` triggers on `screen`, if any.
    pub fn action(&self, screen: KeyScreen, event: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(event);
        self.screens
            .get(&screen)?
            .iter()
            .find(|(_, keys)| keys.contains(&key))
            .map(|(action, _)| *action)
    }

    /// The bindings of `screen`, in help order.
    pub fn bindings(&self, screen: KeyScreen) -> &[(Action, Vec<Key>)] {
        self.screens.get(&screen).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The first key bound to `action` on `screen`, for hints.
    pub fn hint(&self, screen: KeyScreen, action: Action) -> Option<String> {
        self.bindings(screen)
            .iter()
            .find(|(a, _)| *a == action)
            .and_then(|(_, keys)| keys.first())
            .map(Key::to_string)
    }
}

/// A plain character typed without Ctrl or Alt.
pub(crate) fn is_typing(key: &KeyEvent) -> bool {
    matches!(key.code, KeyCode::Char(_))
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

#[cfg(test)]
mod tests {
    /// docs/keys.md's table of actions, as the code has them.
    fn actions_table() -> String {
        let mut table = String::from(
            "| screen (`[keys.SCREEN]`) | action | default keys | what it does |\n|---|---|---|---|\n",
        );
        for (screen_name, screen) in KeyScreen::ALL {
            for (action, keys) in screen.defaults() {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                let keys = if keys.is_empty() {
                    "none".to_string()
                } else {
                    keys.join(", ")
                };
                table.push_str(&format!(
                    "| `{screen_name}` | `{}` | {keys} | {} |\n",
                    action.name(),
                    action.describe()
                ));
            }
        }
        table
    }

    #[test]
    fn the_docs_list_every_default_binding_as_the_code_has_it() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md"))
            .expect("docs/keys.md");
        let table = actions_table();
        assert!(
            docs.contains(&table),
            "docs/keys.md's table of actions is not the code's; it should read:\n{table}"
        );
    }

    use super::*;

    fn event(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn keys_parse_and_match_terminal_events() {
        let map = KeyMap::default();
        assert_eq!(
            map.action(
                KeyScreen::Form,
                &event(KeyCode::Char('s'), KeyModifiers::CONTROL)
            ),
            Some(Action::Submit)
        );
        assert_eq!(
            map.action(
                KeyScreen::Form,
                &event(KeyCode::BackTab, KeyModifiers::SHIFT)
            ),
            Some(Action::PrevField)
        );
        assert_eq!(
            map.action(
                KeyScreen::Review,
                &event(KeyCode::Char('U'), KeyModifiers::SHIFT)
            ),
            Some(Action::RestoreAll)
        );
        assert_eq!(
            map.action(
                KeyScreen::Review,
                &event(KeyCode::Char('u'), KeyModifiers::NONE)
            ),
            Some(Action::Restore)
        );
        assert_eq!(
            map.action(KeyScreen::Form, &event(KeyCode::Enter, KeyModifiers::ALT)),
            Some(Action::Newline)
        );
        assert_eq!(
            map.action(
                KeyScreen::Picker,
                &event(KeyCode::Char('x'), KeyModifiers::NONE)
            ),
            None
        );
    }

    #[test]
    fn ctrl_underscore_slash_and_seven_are_one_undo_key() {
        let map = KeyMap::default();
        for c in ['_', '/', '7'] {
            assert_eq!(
                map.action(
                    KeyScreen::Editor,
                    &event(KeyCode::Char(c), KeyModifiers::CONTROL)
                ),
                Some(Action::Undo),
                "Ctrl-{c}"
            );
        }
        assert_eq!(
            map.action(
                KeyScreen::Form,
                &event(KeyCode::Char('_'), KeyModifiers::ALT)
            ),
            Some(Action::Redo)
        );
        assert_eq!(Key::parse("ctrl-/").unwrap(), Key::parse("ctrl-_").unwrap());
    }

    #[test]
    fn no_key_that_edits_text_is_a_screen_action_on_a_screen_with_an_input() {
        let map = KeyMap::default();
        let editing = [
            "ctrl-a",
            "ctrl-e",
            "ctrl-b",
            "ctrl-f",
            "alt-b",
            "alt-f",
            "ctrl-w",
            "alt-backspace",
            "alt-d",
            "ctrl-u",
            "ctrl-k",
            "ctrl-y",
            "ctrl-h",
            "delete",
            "backspace",
            "left",
            "home",
            "end",
        ];
        for screen in [
            KeyScreen::Picker,
            KeyScreen::Form,
            KeyScreen::Questions,
            KeyScreen::Editor,
            KeyScreen::Inputs,
            KeyScreen::Files,
            KeyScreen::Command,
        ] {
            for (action, keys) in map.bindings(screen) {
                for text_key in editing {
                    // The menu moves with Ctrl-K as fzf does: its one-line search has
                    // nothing to move to, and Ctrl-U clears from the cursor back.
                    if screen == KeyScreen::Picker && text_key == "ctrl-k" {
                        continue;
                    }
                    let text_key = Key::parse(text_key).unwrap();
                    assert!(
                        !keys.contains(&text_key),
                        "{text_key} is {} on {screen:?}",
                        action.name()
                    );
                }
            }
        }
    }

    #[test]
    fn overrides_replace_an_actions_keys_and_free_them_elsewhere() {
        let overrides = BTreeMap::from([(
            "review".to_string(),
            BTreeMap::from([
                ("copy".to_string(), vec!["c".to_string(), "y".to_string()]),
                ("edit".to_string(), vec!["ctrl-e".to_string()]),
            ]),
        )]);
        let map = KeyMap::with_overrides(&overrides).unwrap();
        let c = event(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(map.action(KeyScreen::Review, &c), Some(Action::Copy));
        let e = event(KeyCode::Char('e'), KeyModifiers::NONE);
        assert_eq!(map.action(KeyScreen::Review, &e), None);
        assert_eq!(
            map.hint(KeyScreen::Review, Action::Edit).as_deref(),
            Some("Ctrl-E")
        );
    }

    #[test]
    fn bad_overrides_name_what_is_wrong() {
        let bad_screen = BTreeMap::from([("pickr".to_string(), BTreeMap::new())]);
        assert!(
            KeyMap::with_overrides(&bad_screen)
                .unwrap_err()
                .message
                .contains("unknown screen")
        );
        let bad_action = BTreeMap::from([(
            "picker".to_string(),
            BTreeMap::from([("edit".to_string(), vec!["e".to_string()])]),
        )]);
        assert!(
            KeyMap::with_overrides(&bad_action)
                .unwrap_err()
                .message
                .contains("not an action of this screen")
        );
        let bad_key = BTreeMap::from([(
            "picker".to_string(),
            BTreeMap::from([("up".to_string(), vec!["hyper-x".to_string()])]),
        )]);
        assert!(
            KeyMap::with_overrides(&bad_key)
                .unwrap_err()
                .message
                .contains("unknown key")
        );
    }
}
