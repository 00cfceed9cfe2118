//! What the review asks for and how it ends: exports (copy, save, print), resource reads,
//! drafts kept while editing, and the answers of the copies and saves.

use crate::app::{
    Action, App, COPY_FAILED_WAYS_OUT, COPYING, Draft, Effect, Exit, KeyScreen, ReviewState,
    SavePurpose, Screen, review,
};
use crate::export::clipboard::Copied;
use crate::export::sink::WriteError;
use std::path::PathBuf;

impl App {
    /// Shows the review of `draft`, kept from a run that ended without exporting it.
    pub fn restore_draft(&mut self, draft: Draft) {
        let what = draft.slash_name.clone();
        let mut review = ReviewState::from_draft(draft, &self.history, self.options.format);
        review.screen = self.size;
        self.screen = Screen::Review(Box::new(review));
        self.draft_saved = true;
        let undo = self
            .keys
            .hint(KeyScreen::Review, Action::Undo)
            .map(|key| format!(", {key} undoes its edits"))
            .unwrap_or_default();
        self.notify(format!(
            "Your unexported draft of /{what} from last time (Esc twice discards it{undo})."
        ));
    }

    /// The review's draft, saved or removed as its state says, when it is due.
    pub(in crate::app) fn draft_effect(&mut self) -> Option<Effect> {
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
    pub(in crate::app) fn exported(&mut self) -> Vec<Effect> {
        self.exported_any = true;
        if std::mem::take(&mut self.draft_saved) {
            self.draft_due = None;
            vec![Effect::DeleteDraft]
        } else {
            Vec::new()
        }
    }

    pub(in crate::app) fn review_outcome(&mut self, outcome: review::Outcome) -> Vec<Effect> {
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
                if let Screen::Review(review) = &mut self.screen {
                    review.leave_after_copy = true;
                }
                self.notify_transient(COPYING);
                vec![Effect::Copy { text, leave: true }]
            }
            review::Outcome::Play {
                bytes,
                extension,
                index,
            } => self.play_audio(bytes, extension, index),
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

    pub(in crate::app) fn on_saved(
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
            Err(WriteError::Failed(message)) => {
                // Saves go through a temporary file and a rename: a failed one wrote nothing.
                let message = message.trim_end_matches('.');
                self.warn(format!("Save failed: {message}; nothing was written."))
            }
        }
        Vec::new()
    }

    /// The clipboard copy finished: leave the review if it was the accept's and nothing
    /// was typed since; say how it went.
    pub(in crate::app) fn on_copied(
        &mut self,
        result: Result<Copied, String>,
        leave: bool,
    ) -> Vec<Effect> {
        // The user went on (a key since the accept): the review on screen may not be
        // the one copied, so it is neither left nor counted as exported.
        let untouched = !leave
            || match &mut self.screen {
                Screen::Review(review) => std::mem::take(&mut review.leave_after_copy),
                _ => false,
            };
        // Leave the review only once its export is somewhere (or was sent as OSC 52,
        // which the message says cannot be confirmed); a failure keeps it open.
        if leave && untouched && result.is_ok() && matches!(self.screen, Screen::Review(_)) {
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
            Err(error) => self.warn(format!("Copy failed: {error}. {COPY_FAILED_WAYS_OUT}")),
        }
        effects
    }
}
