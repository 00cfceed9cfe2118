//! The file picker: opening it, choosing, and reading the chosen file into a field.

use crate::app::keys::Action;
use crate::app::source::ValueSource;
use crate::app::{App, Effect, FilePicker, Screen};

impl App {
    /// Opens the file picker over the form; the runner lists the files.
    pub(in crate::app) fn open_file_picker(&mut self) -> Vec<Effect> {
        let id = self.fresh_id();
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        if form.fetching.is_some() || form.fields.is_empty() {
            return Vec::new();
        }
        form.files = Some(Box::new(FilePicker::new(id)));
        vec![Effect::ListFiles { id }]
    }

    /// An action while the file picker is open.
    pub(in crate::app) fn file_picker_action(&mut self, action: Action) -> Vec<Effect> {
        let id = self.fresh_id();
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        let Some(picker) = form.files.as_mut() else {
            return Vec::new();
        };
        if action == Action::Back {
            form.files = None;
            return Vec::new();
        }
        match picker.action(action) {
            Some(path) => {
                picker.reading = Some(id);
                form.reads.push(crate::app::form::PendingRead {
                    id,
                    field: form.focus,
                    path: path.clone(),
                    recalled: false,
                });
                vec![Effect::ReadFile { id, path }]
            }
            None => Vec::new(),
        }
    }

    /// The effects that read again the files the fields' last values came from.
    pub(in crate::app) fn recall_files(&mut self) -> Vec<Effect> {
        let Screen::Form(form) = &self.screen else {
            return Vec::new();
        };
        let wanted: Vec<(usize, String)> = form
            .fields
            .iter()
            .enumerate()
            .filter_map(|(i, f)| match &f.recalled {
                Some(ValueSource::File(path)) => Some((i, path.clone())),
                _ => None,
            })
            .collect();
        let mut effects = Vec::new();
        for (field, path) in wanted {
            let id = self.fresh_id();
            if let Screen::Form(form) = &mut self.screen {
                form.reads.push(crate::app::form::PendingRead {
                    id,
                    field,
                    path: path.clone(),
                    recalled: true,
                });
            }
            effects.push(Effect::ReadFile { id, path });
        }
        effects
    }

    /// A file's contents (or why not) for a field.
    pub(in crate::app) fn on_file_read(
        &mut self,
        id: u64,
        result: Result<String, String>,
    ) -> Vec<Effect> {
        let tick = self.tick;
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        let Some(at) = form.reads.iter().position(|r| r.id == id) else {
            return Vec::new();
        };
        let read = form.reads.remove(at);
        let from_picker = form.files.as_ref().is_some_and(|p| p.reading == Some(id));
        match result {
            Ok(text) => {
                if from_picker {
                    form.files = None;
                }
                // A recalled file fills the field only while nobody typed in it.
                let untouched = form
                    .fields
                    .get(read.field)
                    .is_some_and(|f| f.value().is_empty());
                if !read.recalled || untouched {
                    form.set_sourced_value(
                        read.field,
                        &text,
                        ValueSource::File(read.path),
                        read.recalled,
                        &self.history,
                        tick,
                    );
                }
                Vec::new()
            }
            Err(why) => {
                if let Some(picker) = form.files.as_mut().filter(|_| from_picker) {
                    // The picker stays, so another file can be chosen.
                    picker.reading = None;
                }
                if read.recalled
                    && let Some(field) = form.fields.get_mut(read.field)
                {
                    field.recalled = None;
                }
                let why = if read.recalled {
                    format!("Last time's file for this field: {why}")
                } else {
                    why
                };
                // The form's footer says it, under the picker too.
                form.error = Some(why);
                Vec::new()
            }
        }
    }
}
