//! The menu: its search, selection, paging and clicks, and opening the selected prompt.
//! The state lives in [`App`] beside the other screens'; this is its update.

use crate::app::{
    Action, App, ClickTarget, DOUBLE_CLICK_MS, Effect, Exit, FormState, InputsPrompt, Overlay,
    RefreshRound, Screen, ServerState, areas,
};
use crate::config::InputSpec;
use crate::model::ServerId;
use crate::search;
use crate::search::{Entry, Query};
use crossterm::event::KeyEvent;

impl App {
    /// How many of the menu's first rows are recent prompts (shown under a "Recent" header):
    /// only on an empty search, where the recent ones come first.
    pub fn recent_rows(&self) -> usize {
        if !self.parsed_query.needle.is_empty() {
            return 0;
        }
        self.ranked
            .iter()
            .take(self.history.recent.len())
            .take_while(|r| {
                let name = &self.entries[r.index()].slash_name;
                self.history.recent.iter().any(|recent| recent == name)
            })
            .count()
    }

    /// The entry under the cursor in the menu.
    pub fn selected_entry(&self) -> Option<&Entry> {
        self.ranked
            .get(self.selected)
            .and_then(|r| self.entries.get(r.index()))
    }

    pub(in crate::app) fn picker_type(&mut self, key: KeyEvent) -> Vec<Effect> {
        if self.query.key(key) {
            self.refilter();
        }
        Vec::new()
    }

    /// A left click. On a hint naming a key it does what the key does; in the form it
    /// focuses the field or takes the suggestion under it; in the review it selects the
    /// message under it; on a menu entry it selects it, and a second click on it soon
    /// after opens it as Enter does. Anywhere else it does nothing.
    pub(in crate::app) fn on_click(
        &mut self,
        column: u16,
        row: u16,
        at_ms: u64,
        target: Option<ClickTarget>,
    ) -> Vec<Effect> {
        let last = self.last_click.take();
        if let Some(ClickTarget::Hint(action)) = target {
            return self.on_action(action);
        }
        if self.overlay.is_some() {
            return Vec::new();
        }
        let tick = self.tick;
        match (&mut self.screen, target) {
            (Screen::Form(form), Some(ClickTarget::Field(index))) => {
                return form.click_field(index, &self.history, tick);
            }
            (Screen::Form(form), Some(ClickTarget::Suggestion(index))) => {
                form.click_suggestion(index, &self.history, tick);
                return Vec::new();
            }
            (Screen::Review(review), Some(ClickTarget::Message(index))) => {
                review.click_message(index);
                return Vec::new();
            }
            (Screen::Picker, _) => {}
            _ => return Vec::new(),
        }
        let Some(rank) = areas::entry_at(self, column, row) else {
            return Vec::new();
        };
        self.selected = rank;
        self.selection_pinned = true;
        if let Some((last_rank, last_at)) = last
            && last_rank == rank
            && at_ms.saturating_sub(last_at) <= DOUBLE_CLICK_MS
        {
            return self.pick();
        }
        self.last_click = Some((rank, at_ms));
        Vec::new()
    }

    pub(in crate::app) fn picker_action(&mut self, action: Action) -> Vec<Effect> {
        let rows = self.ranked.len();
        // A page is the list rows visible now, as fzf; at least one.
        let page = (areas::menu_list(self).height as usize).max(1);
        if matches!(
            action,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End
        ) {
            self.selection_pinned = true;
        }
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(rows.saturating_sub(1)),
            Action::PageUp => self.selected = self.selected.saturating_sub(page),
            Action::PageDown => self.selected = (self.selected + page).min(rows.saturating_sub(1)),
            Action::Home => self.selected = 0,
            Action::End => self.selected = rows.saturating_sub(1),
            Action::Back => {
                if self.query.is_empty() {
                    self.exit = Some(Exit::Quit);
                } else {
                    self.query.clear();
                    self.refilter();
                }
            }
            Action::Pick => return self.pick(),
            Action::UseSources if !self.offer.is_empty() => {
                let mut sources: Vec<String> = Vec::new();
                for offer in self.offer.drain(..) {
                    if !sources.contains(&offer.dialect) {
                        sources.push(offer.dialect);
                    }
                }
                return vec![Effect::UseSources { sources }];
            }
            Action::Restart => return self.restart_failed(),
            Action::Refresh => return self.refresh_all(),
            Action::SignIn => {
                let next = self
                    .servers
                    .iter()
                    .filter(|s| !self.signing_in.contains(&s.name))
                    .find_map(|s| self.sign_ins.get_key_value(&s.name));
                match next {
                    None if !self.signing_in.is_empty() => {
                        let names: Vec<&str> = self.signing_in.iter().map(String::as_str).collect();
                        self.notify(format!(
                            "Signing in to {} already: finish it in the browser.",
                            names.join(", ")
                        ));
                    }
                    Some((server, challenge)) => {
                        self.signing_in.insert(server.clone());
                        let effect = Effect::SignIn {
                            server: server.clone(),
                            challenge: challenge.clone(),
                        };
                        self.notify(format!("Starting the sign-in to {server}…"));
                        return vec![effect];
                    }
                    None => self.notify("No server asks for a sign-in."),
                }
            }
            Action::Inputs => {
                // Failed servers that used inputs get a chance at new values too (a
                // mistyped key).
                {
                    let failed: Vec<(ServerId, Vec<InputSpec>)> = self
                        .servers
                        .iter()
                        .filter(|s| matches!(s.state, ServerState::Failed { .. }))
                        .filter_map(|s| {
                            Some((s.name.clone(), self.input_servers.get(&s.name)?.clone()))
                        })
                        .collect();
                    self.retrying = failed.iter().map(|(name, _)| name.clone()).collect();
                    self.waiting.extend(failed);
                }
                if self.waiting.is_empty() {
                    self.notify("No server waits for an input.");
                } else {
                    self.overlay = Some(Overlay::Inputs(InputsPrompt::new(&self.waiting, None)));
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// Starts every failed server again (F5), saying so.
    pub(in crate::app) fn restart_failed(&mut self) -> Vec<Effect> {
        let failed: Vec<ServerId> = self
            .servers
            .iter()
            .filter(|s| matches!(s.state, ServerState::Failed { .. }))
            .map(|s| s.name.clone())
            .collect();
        if failed.is_empty() {
            self.notify("No server has failed.");
            return Vec::new();
        }
        // Under way: the round's progress, then how it ended, replace it.
        let round = self.refresh_round.get_or_insert_with(RefreshRound::default);
        round.restarting.extend(failed.iter().cloned());
        let effects = failed
            .into_iter()
            .map(|server| {
                self.set_state(&server, ServerState::Connecting);
                self.restarted_by_hand.insert(server.clone());
                self.log_event(&server, "restarting (by hand)".into());
                Effect::Restart { server }
            })
            .collect();
        self.say_refresh_progress();
        effects
    }

    pub(in crate::app) fn pick(&mut self) -> Vec<Effect> {
        let Some(entry) = self.selected_entry() else {
            if self
                .servers
                .iter()
                .any(|s| s.state == ServerState::Connecting)
            {
                self.notify("No prompt matches yet; servers are still connecting.");
            } else {
                self.warn("No prompt matches. Backspace to widen the search, Esc to clear it.");
            }
            return Vec::new();
        };
        let prompt = entry.prompt.clone();
        let slash = entry.slash_name.clone();
        let mut form = FormState::new((*prompt).clone(), slash, &self.history);
        self.restore_unsent(&mut form);
        // A cached prompt of a server that is down opens (its values can be typed), saying
        // why it cannot be sent yet and how to bring the server back.
        form.error = self.down_message(&prompt.server);
        if form.fields.is_empty() && form.error.is_none() {
            self.screen = Screen::Form(Box::new(form));
            return self.submit_form();
        }
        let mut effects = form.on_focus(&self.history, self.tick);
        self.screen = Screen::Form(Box::new(form));
        effects.extend(self.recall_files());
        effects
    }

    /// Rebuilds the merged menu after a server's list changed, keeping `keep`
    /// (`server:name`, from [`App::selection_to_keep`]) selected if it is still there.
    pub(in crate::app) fn rebuild_keeping(&mut self, keep: Option<String>) {
        self.entries = self
            .servers
            .iter()
            .filter_map(|s| self.prompts.get(&s.name))
            .flatten()
            .cloned()
            .map(Entry::new)
            .collect();
        search::mark_unique_names(&mut self.entries);
        self.menu_widths = search::MenuWidths::of(&self.entries);
        self.ranker = search::Ranker::new(&self.entries);
        self.refilter_keeping(keep);
    }

    pub(in crate::app) fn refilter(&mut self) {
        self.refilter_keeping(None);
        self.selected = 0;
        self.selection_pinned = false;
    }

    pub(in crate::app) fn refilter_keeping(&mut self, keep: Option<String>) {
        self.parsed_query = Query::parse(
            self.query.text(),
            self.servers.iter().map(|s| s.name.as_str()),
        );
        self.ranked = self
            .ranker
            .rank(&self.entries, &self.parsed_query, &self.history.recent);
        // Nothing matches: the names that look like what was typed, as the command line's
        // "did you mean" (only then: it reads every name).
        self.closest_commands = if self.ranked.is_empty() && !self.parsed_query.needle.is_empty() {
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
        } else {
            Vec::new()
        };
        self.selected = keep
            .and_then(|name| {
                self.ranked
                    .iter()
                    .position(|r| self.entries[r.index()].slash_name == name)
            })
            .unwrap_or(0)
            .min(self.ranked.len().saturating_sub(1));
    }
}
