//! The form's file picker: fuzzy over the files below the current folder (the runner walks
//! them, `.gitignore` respected), or a path typed as such (`~/`, `/`, `./`, `../`); Enter
//! puts the chosen file's contents into the focused field.

use crossterm::event::KeyEvent;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::keys::Action;
use super::line::LineEditor;

/// Rows a page move goes.
const PAGE: usize = 10;

pub use crate::value_io::FileList;

/// One row of the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRow {
    /// The typed text, taken as a path (it starts with `~/`, `/`, `./` or `../`).
    Typed(String),
    /// A listed file: its index in the list (the matched characters are found when drawn,
    /// for the rows in sight only).
    Listed(usize),
}

/// The picker's state, over the form.
#[derive(Debug, Clone)]
pub struct FilePicker {
    /// What is typed.
    pub query: LineEditor,
    /// The walk's result, once it came.
    pub list: Option<FileList>,
    /// The walk's request, echoed in its answer.
    walk_id: u64,
    /// The rows for the query, best first.
    pub rows: Vec<FileRow>,
    /// The selected row.
    pub selected: usize,
    /// The file being read (request id), while it is.
    pub reading: Option<u64>,
}

/// Whether `text` is meant as a path rather than a search.
pub fn is_typed_path(text: &str) -> bool {
    text == "~"
        || ["~/", "/", "./", "../"]
            .iter()
            .any(|start| text.starts_with(start))
}

impl FilePicker {
    /// A picker waiting for the walk `walk_id`.
    pub fn new(walk_id: u64) -> FilePicker {
        FilePicker {
            query: LineEditor::default(),
            list: None,
            walk_id,
            rows: Vec::new(),
            selected: 0,
            reading: None,
        }
    }

    /// The path of row `row`, as it is read (relative to the current folder, or as typed).
    pub fn path_of(&self, row: &FileRow) -> Option<String> {
        match row {
            FileRow::Typed(path) => Some(path.clone()),
            FileRow::Listed(index) => self.list.as_ref()?.files.get(*index).cloned(),
        }
    }

    /// Takes the walk's answer (an older walk's is dropped).
    pub fn on_listed(&mut self, id: u64, list: FileList) {
        if id == self.walk_id {
            self.list = Some(list);
            self.refilter();
        }
    }

    /// The rows for the query: a typed path first, then the files it matches fuzzily, best
    /// first (shorter paths first among equals), or every file for an empty query.
    fn refilter(&mut self) {
        let query = self.query.text().to_string();
        let mut rows = Vec::new();
        if is_typed_path(&query) {
            rows.push(FileRow::Typed(query.clone()));
        }
        if let Some(list) = &self.list {
            if query.is_empty() {
                rows.extend((0..list.files.len()).map(FileRow::Listed));
            } else {
                let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
                let pattern = Pattern::parse(&query, CaseMatching::Smart, Normalization::Smart);
                let mut buffer = Vec::new();
                let mut scored: Vec<(u32, usize)> = Vec::new();
                for (index, file) in list.files.iter().enumerate() {
                    let haystack = Utf32Str::new(file, &mut buffer);
                    if let Some(score) = pattern.score(haystack, &mut matcher) {
                        scored.push((score, index));
                    }
                }
                scored.sort_by(|a, b| {
                    b.0.cmp(&a.0)
                        .then(list.files[a.1].len().cmp(&list.files[b.1].len()))
                        .then(a.1.cmp(&b.1))
                });
                rows.extend(scored.into_iter().map(|(_, index)| FileRow::Listed(index)));
            }
        }
        self.rows = rows;
        self.selected = 0;
    }

    /// A key no binding took: typing into the query.
    pub fn type_key(&mut self, key: KeyEvent) {
        if self.query.key(key) {
            self.refilter();
        }
    }

    /// Pasted text goes into the query (one line).
    pub fn paste(&mut self, text: &str) {
        self.query.insert_str(&text.replace(['\r', '\n'], ""));
        self.refilter();
    }

    /// Moves the selection; returns the path to read on [`Action::Pick`].
    pub(in crate::app) fn action(&mut self, action: Action) -> Option<String> {
        let last = self.rows.len().saturating_sub(1);
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::PageUp => self.selected = self.selected.saturating_sub(PAGE),
            Action::PageDown => self.selected = (self.selected + PAGE).min(last),
            Action::Home => self.selected = 0,
            Action::End => self.selected = last,
            Action::Pick => return self.rows.get(self.selected).and_then(|r| self.path_of(r)),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tests::{ctrl, form, key, ready_app, type_text};
    use crate::app::*;
    use crate::app::{KeyScreen, Msg};
    use crate::mcp::GetOutcome;
    use crossterm::event::KeyCode;

    fn picker(app: &App) -> &FilePicker {
        form(app).files.as_deref().expect("the file picker is open")
    }

    /// The args-prompt form with the picker open and `files` listed; its walk's id.
    fn app_with_picker(files: &[&str]) -> App {
        let mut app = ready_app();
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        let effects = app.update(ctrl('o'));
        let [Effect::ListFiles { id }] = effects[..] else {
            panic!("expected a walk, got {effects:?}");
        };
        assert_eq!(app.key_screen(), KeyScreen::Files);
        // An older walk's answer is no answer.
        app.update(Msg::FilesListed {
            id: id + 100,
            list: FileList::default(),
        });
        assert!(picker(&app).list.is_none());
        app.update(Msg::FilesListed {
            id,
            list: FileList {
                files: files.iter().map(|f| f.to_string()).collect(),
                truncated: false,
            },
        });
        app
    }

    fn read_request(effects: &[Effect]) -> (u64, String) {
        match effects {
            [Effect::ReadFile { id, path }] => (*id, path.clone()),
            other => panic!("expected one file read, got {other:?}"),
        }
    }

    #[test]
    fn a_picked_file_becomes_the_value_marked_with_its_name_and_size() {
        let mut app = app_with_picker(&["docs/blog.md", "build.log", "src/main.rs"]);
        assert_eq!(picker(&app).rows.len(), 3);
        type_text(&mut app, "buil");
        let first = picker(&app).rows.first().cloned().expect("a match");
        assert_eq!(picker(&app).path_of(&first).as_deref(), Some("build.log"));
        let (id, path) = read_request(&app.update(key(KeyCode::Enter)));
        assert_eq!(path, "build.log");
        // Still open while it is read.
        assert_eq!(picker(&app).reading, Some(id));
        app.update(Msg::FileRead {
            id,
            result: Ok("error: one\nerror: two".into()),
        });
        let form = form(&app);
        assert!(form.files.is_none());
        assert_eq!(form.fields[0].value(), "error: one\nerror: two");
        let mark = form.fields[0].source.as_ref().expect("marked");
        assert_eq!(mark.label(), "from build.log · 21 B");
        assert_eq!(
            form.sources(),
            std::collections::BTreeMap::from([(
                "city".to_string(),
                ValueSource::File("build.log".into())
            )])
        );
        // Editing keeps the mark, saying so once the text changed.
        app.update(key(KeyCode::Left));
        assert!(!form_mark_edited(&app));
        type_text(&mut app, "!");
        assert!(form_mark_edited(&app));
        let form = match &app.screen {
            Screen::Form(f) => f,
            _ => unreachable!(),
        };
        assert_eq!(
            form.fields[0].source.as_ref().unwrap().label(),
            "from build.log · edited"
        );
        assert!(form.sources().is_empty());
    }

    fn form_mark_edited(app: &App) -> bool {
        form(app).fields[0].source.as_ref().expect("marked").edited
    }

    #[test]
    fn a_typed_path_is_offered_as_it_is_and_esc_closes_the_picker() {
        let mut app = app_with_picker(&["notes.txt"]);
        type_text(&mut app, "~/notes.txt");
        assert_eq!(
            picker(&app).rows.first(),
            Some(&FileRow::Typed("~/notes.txt".into()))
        );
        let (_, path) = read_request(&app.update(key(KeyCode::Enter)));
        assert_eq!(path, "~/notes.txt");
        app.update(key(KeyCode::Esc));
        assert!(form(&app).files.is_none());
        assert_eq!(app.key_screen(), KeyScreen::Form);
        assert!(is_typed_path("../x") && is_typed_path("/etc/hosts") && is_typed_path("./a"));
        assert!(!is_typed_path("src/main") && !is_typed_path("~user"));
    }

    #[test]
    fn a_refused_file_says_why_and_the_picker_stays() {
        let mut app = app_with_picker(&["logo.png"]);
        app.update(key(KeyCode::Down));
        let (id, _) = read_request(&app.update(key(KeyCode::Enter)));
        let why = "logo.png is binary (it holds NUL bytes), and argument values are text";
        app.update(Msg::FileRead {
            id,
            result: Err(why.into()),
        });
        assert!(picker(&app).reading.is_none());
        assert_eq!(form(&app).error.as_deref(), Some(why));
        assert_eq!(form(&app).fields[0].value(), "");
        assert!(form(&app).fields[0].source.is_none());
    }

    #[test]
    fn the_history_keeps_the_file_and_the_next_form_reads_it_again() {
        let mut app = app_with_picker(&["build.log"]);
        let (id, _) = read_request(&app.update(key(KeyCode::Enter)));
        app.update(Msg::FileRead {
            id,
            result: Ok("v1".into()),
        });
        app.update(key(KeyCode::Enter));
        let effects = app.update(key(KeyCode::Enter));
        let Some(Effect::Fetch { id, arguments, .. }) = effects.first() else {
            panic!("expected a fetch, got {effects:?}");
        };
        assert_eq!(arguments["city"], "v1");
        app.update(Msg::Fetched {
            id: *id,
            result: Ok(GetOutcome::Messages(crate::app::tests::messages(&[]))),
        });
        let slash = "everything:args-prompt";
        assert_eq!(app.history.last_value(slash, "city"), None);
        assert!(app.history.values(slash, "city").is_empty());
        assert_eq!(
            app.history.last_source(slash, "city"),
            Some(&ValueSource::File("build.log".into()))
        );
        app.update(key(KeyCode::Esc));
        app.update(key(KeyCode::Esc));
        let (id, path) = read_request(&app.update(key(KeyCode::Enter)));
        assert_eq!(path, "build.log");
        app.update(Msg::FileRead {
            id,
            result: Ok("v2, changed on disk".into()),
        });
        let field = &form(&app).fields[0];
        assert_eq!(field.value(), "v2, changed on disk");
        assert!(field.prefilled);
        assert_eq!(
            field.source.as_ref().map(|m| m.source.clone()),
            Some(ValueSource::File("build.log".into()))
        );
    }

    fn alt(c: char) -> Msg {
        Msg::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char(c),
            crossterm::event::KeyModifiers::ALT,
        ))
    }

    /// Opens the picker over `build.log` in the args-prompt form after `typed` was typed
    /// and the server suggested `suggested` for it; picks it and reads `contents`.
    fn fill_after(typed: &str, suggested: &[&str], contents: &str) -> App {
        let mut app = ready_app();
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        type_text(&mut app, typed);
        for _ in 0..4 {
            for effect in app.update(Msg::Tick) {
                if let Effect::Complete { id, .. } = effect {
                    app.update(Msg::Completed {
                        id,
                        result: Ok(crate::model::Completion {
                            values: suggested.iter().map(|v| v.to_string()).collect(),
                            total: None,
                            has_more: None,
                        }),
                    });
                }
            }
        }
        let effects = app.update(ctrl('o'));
        let [Effect::ListFiles { id }] = effects[..] else {
            panic!("expected a walk, got {effects:?}");
        };
        app.update(Msg::FilesListed {
            id,
            list: FileList {
                files: vec!["build.log".into()],
                truncated: false,
            },
        });
        let (id, _) = read_request(&app.update(key(KeyCode::Enter)));
        app.update(Msg::FileRead {
            id,
            result: Ok(contents.into()),
        });
        app
    }

    #[test]
    fn a_file_fill_hides_the_suggestions_for_what_was_typed_and_tab_keeps_the_file() {
        let mut app = fill_after("h", &["haskell", "html"], "the file");
        assert_eq!(form(&app).fields[0].value(), "the file");
        assert!(!form(&app).suggestions.visible(), "stale suggestions shown");
        assert!(form(&app).completion_due.is_none());
        // More ticks ask nothing about the file's contents.
        for _ in 0..4 {
            let effects = app.update(Msg::Tick);
            assert!(
                !effects.iter().any(|e| matches!(e, Effect::Complete { .. })),
                "{effects:?}"
            );
        }
        app.update(key(KeyCode::Tab));
        assert_eq!(form(&app).fields[0].value(), "the file");
        assert_eq!(form(&app).focus, 1, "Tab moves on");
    }

    #[test]
    fn undo_brings_back_what_a_file_fill_replaced_and_redo_the_file() {
        let mut app = fill_after("keep me", &[], "the file\nline two");
        assert_eq!(form(&app).fields[0].value(), "the file\nline two");
        app.update(ctrl('z'));
        assert_eq!(form(&app).fields[0].value(), "keep me");
        assert!(
            form(&app).fields[0].source.is_none(),
            "typed, not from a file"
        );
        app.update(alt('_'));
        assert_eq!(form(&app).fields[0].value(), "the file\nline two");
        assert!(form(&app).fields[0].source.is_some());
        app.update(ctrl('_'));
        assert_eq!(form(&app).fields[0].value(), "keep me");
        // Then on through what was typed.
        app.update(ctrl('z'));
        assert_eq!(form(&app).fields[0].value(), "keep m");
    }
}
