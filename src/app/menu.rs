//! The menu's own state and update: the merged entries, the search line, the ranked rows,
//! the selection, scrolling and clicks. The app holds one [`MenuState`] for the whole run
//! (the search and selection are there again when a form is left); `update/picker.rs`
//! hands it the menu's keys and does what reaches past the menu (opening a prompt's form,
//! the servers, sign-ins).

use std::collections::BTreeMap;
use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::app::keys::is_typing;
use crate::app::line::LineEditor;
use crate::app::{Action, DOUBLE_CLICK_MS, ServerStatus};
use crate::lock::Drift;
use crate::model::{PromptInfo, ServerId};
use crate::search;
use crate::search::{Entry, MenuWidths, Query, Ranked, Ranker};

/// What the menu knows of the app when it ranks: the servers (a search may name one) and
/// the prompts used last (they come first on an empty search).
#[derive(Clone, Copy)]
pub struct MenuScope<'a> {
    /// Every configured server, in config order.
    pub servers: &'a [ServerStatus],
    /// The slash names of the prompts used last, newest first.
    pub recent: &'a [String],
}

/// Something the menu is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MenuInput {
    /// A key typed into the search line.
    Type(KeyEvent),
    /// Text pasted into the search line.
    Paste(String),
    /// A bound action; `page` is how many list rows are visible now.
    Act {
        /// The action.
        action: Action,
        /// The visible list rows (a page), at least one.
        page: usize,
    },
    /// A left click on the row of this rank, at this time (ms since the run began).
    Click {
        /// The clicked row's rank.
        rank: usize,
        /// When it was clicked.
        at_ms: u64,
    },
}

/// What the app must do after the menu took an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuOutcome {
    /// The menu handled it (or it did nothing).
    Done,
    /// Open the selected prompt.
    Pick,
    /// Leave mcpick (Esc on an empty search).
    Quit,
    /// Not the menu's: the app acts on it (refresh, sign-in, inputs…).
    NotMine,
}

/// The menu: every server's prompts merged, and how the user searches and moves in them.
#[derive(Debug, Clone)]
pub struct MenuState {
    /// The merged menu, in server order.
    pub entries: Vec<Entry>,
    /// The widths of the menu's columns over all of [`MenuState::entries`].
    pub widths: MenuWidths,
    /// When the search matches nothing: the commands closest to it (`/translate`).
    pub closest_commands: Vec<String>,
    /// What is typed in the search line.
    pub query: LineEditor,
    /// The parsed query.
    pub parsed_query: Query,
    /// The rows, best first.
    pub ranked: Arc<Vec<Ranked>>,
    /// Remembers the last results, so typing one more key only looks at them.
    ranker: Ranker,
    /// The selected row.
    pub selected: usize,
    /// The user moved the selection: keep it on the same prompt when the list changes.
    /// Until then the first row stays selected as servers connect.
    selection_pinned: bool,
    /// The first visible row, kept so the list scrolls only as far as needed.
    pub top: usize,
    /// The last left click on an entry (its rank, when in ms), to tell a double click.
    last_click: Option<(usize, u64)>,
    /// The entries that are not as the lockfile has them, by server and name.
    pub drift: BTreeMap<(ServerId, String), Drift>,
}

impl MenuState {
    /// An empty menu whose search line starts with `query`.
    pub fn new(query: &str) -> Self {
        Self {
            entries: Vec::new(),
            widths: MenuWidths::default(),
            closest_commands: Vec::new(),
            query: LineEditor::new(query),
            parsed_query: Query {
                server: None,
                needle: String::new(),
            },
            ranked: Arc::default(),
            ranker: Ranker::default(),
            selected: 0,
            selection_pinned: false,
            top: 0,
            last_click: None,
            drift: BTreeMap::new(),
        }
    }

    /// Takes one input; says what the app must do next.
    pub fn update(&mut self, input: MenuInput, scope: MenuScope) -> MenuOutcome {
        // Only a click on the same row right after another is a double click.
        let last_click = self.last_click.take();
        match input {
            MenuInput::Type(key) => {
                if self.query.key(key) {
                    self.refilter(scope);
                }
            }
            MenuInput::Paste(text) => {
                // The search line is one line.
                self.query.insert_str(&text.replace(['\r', '\n'], " "));
                self.refilter(scope);
            }
            MenuInput::Act { action, page } => return self.act(action, page, scope),
            MenuInput::Click { rank, at_ms } => {
                self.selected = rank;
                self.selection_pinned = true;
                if let Some((last_rank, last_at)) = last_click
                    && last_rank == rank
                    && at_ms.saturating_sub(last_at) <= DOUBLE_CLICK_MS
                {
                    return MenuOutcome::Pick;
                }
                self.last_click = Some((rank, at_ms));
            }
        }
        MenuOutcome::Done
    }

    /// Whether `key` goes to the search line even when it is bound: typing goes there, and
    /// a bound plain character (like `?`) acts only on an empty search.
    pub fn takes_typed(&self, key: &KeyEvent) -> bool {
        is_typing(key) && !self.query.is_empty()
    }

    /// Forgets a first click: anything else happened between it and the next one.
    pub fn forget_click(&mut self) {
        self.last_click = None;
    }

    fn act(&mut self, action: Action, page: usize, scope: MenuScope) -> MenuOutcome {
        let last = self.ranked.len().saturating_sub(1);
        let page = page.max(1);
        let selected = match action {
            Action::Up => self.selected.saturating_sub(1),
            Action::Down => (self.selected + 1).min(last),
            Action::PageUp => self.selected.saturating_sub(page),
            Action::PageDown => (self.selected + page).min(last),
            Action::Home => 0,
            Action::End => last,
            Action::Back if self.query.is_empty() => return MenuOutcome::Quit,
            Action::Back => {
                self.query.clear();
                self.refilter(scope);
                return MenuOutcome::Done;
            }
            Action::Pick => return MenuOutcome::Pick,
            _ => return MenuOutcome::NotMine,
        };
        self.selected = selected;
        self.selection_pinned = true;
        MenuOutcome::Done
    }

    /// How many of the first rows are recent prompts (shown under a "Recent" header): only
    /// on an empty search, where the recent ones come first.
    pub fn recent_rows(&self, recent: &[String]) -> usize {
        if !self.parsed_query.needle.is_empty() {
            return 0;
        }
        self.ranked
            .iter()
            .take(recent.len())
            .take_while(|r| {
                let name = &self.entries[r.index()].slash_name;
                recent.iter().any(|used| used == name)
            })
            .count()
    }

    /// The entry under the cursor.
    pub fn selected_entry(&self) -> Option<&Entry> {
        self.ranked
            .get(self.selected)
            .and_then(|r| self.entries.get(r.index()))
    }

    /// How `prompt` differs from the lockfile, if it does.
    pub fn drift_of(&self, prompt: &PromptInfo) -> Option<&Drift> {
        // Asked for every row drawn: without a lockfile (or drift) there is nothing to key.
        if self.drift.is_empty() {
            return None;
        }
        self.drift
            .get(&(prompt.server.clone(), prompt.name.clone()))
    }

    /// Whether the user moved the selection since the search last changed.
    pub fn selection_pinned(&self) -> bool {
        self.selection_pinned
    }

    /// Sets the search line to `text` and ranks again from the first row.
    pub fn set_query(&mut self, text: &str, scope: MenuScope) {
        self.query = LineEditor::new(text);
        self.refilter(scope);
    }

    /// Takes a new merged list, keeping `keep` (a slash name) selected if it is still there.
    pub fn set_entries(&mut self, mut entries: Vec<Entry>, keep: Option<String>, scope: MenuScope) {
        search::mark_unique_names(&mut entries);
        self.widths = MenuWidths::of(&entries);
        self.ranker = Ranker::new(&entries);
        self.entries = entries;
        self.refilter_keeping(keep, scope);
    }

    /// Ranks again for a changed search: the first row is selected.
    pub fn refilter(&mut self, scope: MenuScope) {
        self.refilter_keeping(None, scope);
        self.selected = 0;
        self.selection_pinned = false;
    }

    fn refilter_keeping(&mut self, keep: Option<String>, scope: MenuScope) {
        self.parsed_query = Query::parse(
            self.query.text(),
            scope.servers.iter().map(|s| s.name.as_str()),
        );
        self.ranked = self
            .ranker
            .rank(&self.entries, &self.parsed_query, scope.recent);
        self.closest_commands = self.closest_to_search();
        self.selected = keep
            .and_then(|name| {
                self.ranked
                    .iter()
                    .position(|r| self.entries[r.index()].slash_name == name)
            })
            .unwrap_or(0)
            .min(self.ranked.len().saturating_sub(1));
    }

    /// When nothing matches: the names that look like what was typed, as the command
    /// line's "did you mean" (only then: it reads every name).
    fn closest_to_search(&self) -> Vec<String> {
        if !self.ranked.is_empty() || self.parsed_query.needle.is_empty() {
            return Vec::new();
        }
        let in_scope: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| {
                self.parsed_query
                    .server
                    .as_ref()
                    .is_none_or(|s| &e.prompt.server == s)
            })
            .collect();
        search::closest(
            &self.parsed_query.needle,
            in_scope.iter().map(|e| e.prompt.name.as_str()),
            3,
        )
        .into_iter()
        .filter_map(|name| in_scope.iter().find(|e| e.prompt.name == name))
        .map(|e| e.command())
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn entries(names: &[&str]) -> Vec<Entry> {
        names
            .iter()
            .map(|name| Entry::new(Arc::new(crate::app::tests::prompt("s", name, Vec::new()))))
            .collect()
    }

    const NO_SCOPE: MenuScope = MenuScope {
        servers: &[],
        recent: &[],
    };

    #[test]
    fn typing_ranks_and_esc_clears_then_quits() {
        let mut menu = MenuState::new("");
        menu.set_entries(
            entries(&["translate", "review", "summarize"]),
            None,
            NO_SCOPE,
        );
        assert_eq!(menu.ranked.len(), 3);
        for c in "rev".chars() {
            let key = KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
            assert_eq!(
                menu.update(MenuInput::Type(key), NO_SCOPE),
                MenuOutcome::Done
            );
        }
        assert_eq!(menu.selected_entry().unwrap().prompt.name, "review");
        let back = MenuInput::Act {
            action: Action::Back,
            page: 10,
        };
        assert_eq!(menu.update(back.clone(), NO_SCOPE), MenuOutcome::Done);
        assert!(menu.query.is_empty());
        assert_eq!(menu.ranked.len(), 3);
        assert_eq!(menu.update(back, NO_SCOPE), MenuOutcome::Quit);
    }

    #[test]
    fn moving_pins_the_selection_through_a_new_list() {
        let mut menu = MenuState::new("");
        menu.set_entries(entries(&["a", "b", "c"]), None, NO_SCOPE);
        let down = MenuInput::Act {
            action: Action::End,
            page: 1,
        };
        assert_eq!(menu.update(down, NO_SCOPE), MenuOutcome::Done);
        assert!(menu.selection_pinned());
        let kept = menu.selected_entry().unwrap().slash_name.clone();
        menu.set_entries(entries(&["z", "a", "b", "c"]), Some(kept.clone()), NO_SCOPE);
        assert_eq!(menu.selected_entry().unwrap().slash_name, kept);
        let refresh = MenuInput::Act {
            action: Action::Refresh,
            page: 1,
        };
        assert_eq!(menu.update(refresh, NO_SCOPE), MenuOutcome::NotMine);
    }

    #[test]
    fn a_second_click_on_the_same_row_soon_after_picks_it() {
        let mut menu = MenuState::new("");
        menu.set_entries(entries(&["a", "b", "c"]), None, NO_SCOPE);
        let click = |rank, at_ms| MenuInput::Click { rank, at_ms };
        assert_eq!(menu.update(click(1, 0), NO_SCOPE), MenuOutcome::Done);
        assert_eq!(menu.selected, 1);
        assert_eq!(menu.update(click(1, 100), NO_SCOPE), MenuOutcome::Pick);
        // Another row, or too late, is one click again.
        assert_eq!(menu.update(click(2, 150), NO_SCOPE), MenuOutcome::Done);
        assert_eq!(
            menu.update(click(2, 150 + DOUBLE_CLICK_MS + 1), NO_SCOPE),
            MenuOutcome::Done
        );
        menu.forget_click();
        assert_eq!(
            menu.update(click(2, 200 + DOUBLE_CLICK_MS), NO_SCOPE),
            MenuOutcome::Done
        );
    }

    #[test]
    fn nothing_matching_names_the_closest_commands() {
        let mut menu = MenuState::new("");
        menu.set_entries(entries(&["translate", "review"]), None, NO_SCOPE);
        menu.set_query("tranlsate", NO_SCOPE);
        assert!(menu.ranked.is_empty());
        assert_eq!(menu.closest_commands, vec!["/translate".to_string()]);
    }
}
