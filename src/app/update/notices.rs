//! Notices: the status bar's line, one after another, each for as long as it takes to read,
//! and every one kept for the logs pane.

use crate::app::{
    App, FLASH_TICKS, Flash, GLANCE_TICKS, NOTICES_KEPT, Notice, QUEUED_NOTICES,
    READ_TICKS_PER_WORD,
};

impl App {
    /// Shows a notice in the status bar.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.show(text.into(), false, false);
    }

    /// Shows a failure in the status bar.
    pub fn warn(&mut self, text: impl Into<String>) {
        self.show(text.into(), true, false);
    }

    /// Shows what is under way ("Copying…") until the next notice says how it went.
    pub(in crate::app) fn notify_transient(&mut self, text: impl Into<String>) {
        self.show(text.into(), false, true);
    }

    /// Shows a notice until the user presses a key (first-run guidance).
    pub fn notify_until_a_key(&mut self, text: impl Into<String>) {
        self.show(text.into(), false, false);
        let sticky = self.queued_notices.back_mut().or(self.flash.as_mut());
        if let Some(flash) = sticky {
            flash.until = u64::MAX;
            flash.read_by = u64::MAX;
        }
    }

    /// The last notice said, shown or waiting (what the user was told last).
    pub fn latest_notice(&self) -> Option<&Flash> {
        self.queued_notices.back().or(self.flash.as_ref())
    }

    /// Keeps `text` in the logs pane's notices, so one that went by can be read again, and
    /// puts it in the status bar now, or queues it behind the one there until that one was
    /// read.
    fn show(&mut self, text: String, error: bool, transient: bool) {
        self.notices.push_back(Notice {
            at_ms: self.now_ms,
            text: text.clone(),
            error,
        });
        if self.notices.len() > NOTICES_KEPT {
            self.notices.pop_front();
        }
        // The same words again (a key held down) say nothing new: the one there stays longer.
        let same = self
            .latest_notice()
            .is_some_and(|last| last.text == text && last.error == error);
        let notice = Flash {
            text,
            error,
            until: 0,
            read_by: 0,
            transient,
        };
        if same {
            let (tick, queued) = (self.tick, !self.queued_notices.is_empty());
            if !queued && let Some(flash) = &mut self.flash {
                *flash = timed(notice, tick);
            }
            return;
        }
        let replace_now = self.flash.as_ref().is_none_or(|f| f.transient);
        if replace_now && self.queued_notices.is_empty() {
            self.flash = Some(timed(notice, self.tick));
            return;
        }
        if self.queued_notices.len() == QUEUED_NOTICES {
            // A flood: the oldest waiting one gives way (it is in the logs pane).
            self.queued_notices.pop_front();
        }
        self.queued_notices.push_back(notice);
        self.advance_notices();
    }

    /// Time passed: the current notice goes when read (sooner when others wait), and the
    /// next one waiting takes its place.
    pub(in crate::app) fn advance_notices(&mut self) {
        let tick = self.tick;
        let next_due = match &self.flash {
            None => true,
            Some(flash) if !self.queued_notices.is_empty() => {
                flash.transient || tick >= flash.read_by.min(flash.until)
            }
            Some(flash) => {
                if tick >= flash.until {
                    self.flash = None;
                }
                false
            }
        };
        if next_due {
            self.flash = self.queued_notices.pop_front().map(|n| timed(n, tick));
        }
    }

    /// The user left the screen the notice there was about, after seeing it: it goes, and
    /// the next one waiting, if any, shows.
    pub(in crate::app) fn drop_seen_notice(&mut self) {
        if self.flash.as_ref().is_some_and(|f| f.transient) {
            self.flash = None;
            self.advance_notices();
        }
    }

    /// A notice that no longer holds goes from the status bar and the queue (it stays in
    /// the logs pane), and the next one waiting, if any, shows.
    pub(in crate::app) fn withdraw_notice(&mut self, text: &str) {
        self.queued_notices.retain(|notice| notice.text != text);
        if self.flash.as_ref().is_some_and(|f| f.text == text) {
            self.flash = None;
            self.advance_notices();
        }
    }

    /// A key (or paste, or edit): the notice there was seen, so what the key brings may
    /// replace it at once (what waits in the queue still comes in turn), and one that
    /// waited for a key goes at its usual pace.
    pub(in crate::app) fn user_acted_on_notice(&mut self) {
        let tick = self.tick;
        if let Some(flash) = &mut self.flash {
            flash.transient = true;
            if flash.until == u64::MAX {
                flash.until = tick + FLASH_TICKS / 2;
                flash.read_by = tick;
            }
        }
    }
}

/// `notice` shown from `tick`: on screen for as long as its words take to read (failures
/// twice as long when nothing waits behind them).
fn timed(mut notice: Flash, tick: u64) -> Flash {
    if notice.until == u64::MAX {
        return notice; // it waits for a key
    }
    let words = notice.text.split_whitespace().count() as u64;
    let reading = words * READ_TICKS_PER_WORD;
    let stay = FLASH_TICKS.max(reading + FLASH_TICKS / 2);
    notice.until = tick + if notice.error { stay * 2 } else { stay };
    notice.read_by = tick + GLANCE_TICKS.max(reading);
    notice
}
