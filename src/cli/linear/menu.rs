//! The menu as a numbered list: read out a page at a time, filtered by the words typed,
//! a number (or `/server:prompt`) opens a prompt.

use super::lines::say;
use super::session::{Listing, Session, Step, Typed};
use super::words::{self, MENU_HELP, MENU_PROMPT, PAGE};
use crate::search::{Entry, PromptRef, Query};

impl Session {
    /// The menu, until a prompt is picked or the user quits.
    pub(super) async fn menu(&mut self, query: Option<String>) -> Step<Entry> {
        if !self.menu_shown {
            self.say_news();
            say(MENU_HELP);
            self.menu_shown = true;
            self.list(query.as_deref().filter(|q| !q.trim().is_empty()));
        }
        loop {
            let line = match self.read(MENU_PROMPT).await {
                Typed::Line(line) => line,
                Typed::End => return Step::Quit(self.quit_code()),
                Typed::Stopped(code) => return Step::Quit(code),
            };
            let typed = line.trim();
            match typed {
                "" => self.next_page(),
                "q" | "quit" | "exit" => return Step::Quit(self.quit_code()),
                "help" | "?" => say(MENU_HELP),
                "all" => self.list(None),
                number if number.chars().all(|c| c.is_ascii_digit()) => {
                    let at = number.parse::<usize>().ok().and_then(|n| n.checked_sub(1));
                    match at.and_then(|at| self.listing.entries.get(at)) {
                        Some(entry) if self.lock_refuses(entry) => {}
                        Some(entry) => return Step::Go(entry.clone()),
                        None => say(&format!(
                            "No prompt {number}: the list has {}.",
                            crate::text::counted(self.listing.entries.len(), "prompt", "prompts")
                        )),
                    }
                }
                _ => match self.exact(typed) {
                    Some(entry) if self.lock_refuses(&entry) => {}
                    Some(entry) => return Step::Go(entry),
                    None => self.list(Some(typed)),
                },
            }
        }
    }

    /// With `[lock] enforce = true`, whether `entry` is refused for not being as the
    /// lockfile has it (and then says so, and what accepts it).
    pub(super) fn lock_refuses(&self, entry: &Entry) -> bool {
        let Some(lock) = self.lock.as_ref().filter(|lock| lock.enforce) else {
            return false;
        };
        let Some(drift) = words::drift_words(lock, &entry.prompt) else {
            return false;
        };
        say(&format!(
            "{} is refused: it is {drift}, and [lock] enforce is on. Run mcpick lock to accept it.",
            crate::text::one_line(&entry.command())
        ));
        true
    }

    /// The entry `/server:prompt` (or a `/prompt` only one server has) names exactly.
    pub(super) fn exact(&self, typed: &str) -> Option<Entry> {
        if !typed.starts_with('/') {
            return None;
        }
        let whole = typed.trim_start_matches('/');
        if let Ok(reference) = PromptRef::parse(typed)
            && let Some(server) = &reference.server
            && let Some(entry) = self
                .entries
                .iter()
                .find(|e| &e.prompt.server == server && e.prompt.name == reference.prompt)
        {
            return Some(entry.clone());
        }
        let mut named = self.entries.iter().filter(|e| e.prompt.name == whole);
        match (named.next(), named.next()) {
            (Some(entry), None) => Some(entry.clone()),
            _ => None,
        }
    }

    /// The entries `query` matches, best first (every entry, recent first, for none).
    pub(super) fn matches(&self, query: &str) -> Vec<Entry> {
        let servers: Vec<&str> = self
            .entries
            .iter()
            .map(|e| e.prompt.server.as_str())
            .collect();
        let parsed = Query::parse(query, servers);
        crate::search::rank(&self.entries, &parsed, &self.history.recent)
            .iter()
            .map(|r| self.entries[r.index()].clone())
            .collect()
    }

    /// Makes the listing for `query` (the whole menu for none) and reads its first page.
    pub(super) fn list(&mut self, query: Option<&str>) {
        self.listing = Listing {
            entries: self.matches(query.unwrap_or("")),
            shown: 0,
        };
        if query.is_none() && self.entries.is_empty() && !self.pending.is_empty() {
            say("No prompts yet: the servers are still connecting.");
            return;
        }
        say(&words::listing_heading(self.listing.entries.len(), query));
        if !self.listing.entries.is_empty() {
            self.next_page();
        }
    }

    /// Reads the next page of the listing.
    pub(super) fn next_page(&mut self) {
        let total = self.listing.entries.len();
        if self.listing.shown >= total {
            say("End of the list. Type words to filter, all for the whole list, or a number.");
            return;
        }
        let from = self.listing.shown;
        let to = (from + PAGE).min(total);
        for (at, entry) in self.listing.entries[from..to].iter().enumerate() {
            say(&words::menu_row(from + at + 1, entry, self.lock.as_ref()));
        }
        self.listing.shown = to;
        say(&words::page_footer(to, total));
    }
}
