//! Notices: the status bar's line, for as long as it takes to read, and every one kept
//! for the logs pane.

use super::*;

impl App {
    /// Shows a notice in the status bar.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.show(text.into(), false);
    }

    /// Shows a failure in the status bar.
    pub fn warn(&mut self, text: impl Into<String>) {
        self.show(text.into(), true);
    }

    /// Shows a notice until the user presses a key (first-run guidance).
    pub fn notify_until_a_key(&mut self, text: impl Into<String>) {
        self.show(text.into(), false);
        if let Some(flash) = &mut self.flash {
            flash.until = u64::MAX;
        }
    }

    /// Puts `text` in the status bar for as long as it takes to read (failures twice as
    /// long), and keeps it in the logs pane's notices, so one that went by can be read again.
    pub(super) fn show(&mut self, text: String, error: bool) {
        let words = text.split_whitespace().count() as u64;
        let reading = FLASH_TICKS.max(words * READ_TICKS_PER_WORD + FLASH_TICKS / 2);
        self.notices.push_back(Notice {
            tick: self.tick,
            text: text.clone(),
            error,
        });
        if self.notices.len() > NOTICES_KEPT {
            self.notices.pop_front();
        }
        self.flash = Some(Flash {
            text,
            error,
            until: self.tick + if error { reading * 2 } else { reading },
        });
    }
}
