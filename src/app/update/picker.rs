//! The menu as the app sees it: the inputs it hands to [`MenuState`] (its own state and
//! update, in `app/menu.rs`), and what reaches past the menu: opening the selected
//! prompt's form, the servers (refresh, restart), sign-ins and inputs.

use crate::app::{
    Action, App, ClickTarget, Effect, Exit, FormState, InputsPrompt, MenuInput, MenuOutcome,
    MenuScope, MenuState, Overlay, RefreshRound, Screen, ServerState, areas,
};
use crate::config::InputSpec;
use crate::lock::Drift;
use crate::model::PromptInfo;
use crate::model::ServerId;
use crate::search::Entry;

impl App {
    /// The menu, and what it knows of the app when it ranks (borrowed apart).
    pub(in crate::app) fn menu_with_scope(&mut self) -> (&mut MenuState, MenuScope<'_>) {
        let scope = MenuScope {
            servers: &self.servers,
            recent: &self.history.recent,
        };
        (&mut self.menu, scope)
    }

    /// How many of the menu's first rows are recent prompts (see
    /// [`MenuState::recent_rows`](crate::app::MenuState::recent_rows)).
    pub fn recent_rows(&self) -> usize {
        self.menu.recent_rows(&self.history.recent)
    }

    /// The entry under the cursor in the menu.
    pub fn selected_entry(&self) -> Option<&Entry> {
        self.menu.selected_entry()
    }

    /// Hands the menu an input and does what it asks of the app.
    pub(in crate::app) fn menu_update(&mut self, input: MenuInput) -> Vec<Effect> {
        let (menu, scope) = self.menu_with_scope();
        match menu.update(input, scope) {
            MenuOutcome::Pick => self.pick(),
            MenuOutcome::Quit => {
                self.exit = Some(Exit::Quit);
                Vec::new()
            }
            MenuOutcome::Done | MenuOutcome::NotMine => Vec::new(),
        }
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
        if let Some(ClickTarget::Hint(action)) = target {
            self.menu.forget_click();
            return self.on_action(action);
        }
        if self.overlay.is_some() {
            self.menu.forget_click();
            return Vec::new();
        }
        let tick = self.tick;
        match (&mut self.screen, target) {
            (Screen::Picker, _) => {}
            (screen, target) => {
                self.menu.forget_click();
                return match (screen, target) {
                    (Screen::Form(form), Some(ClickTarget::Field(index))) => {
                        form.click_field(index, &self.history, tick)
                    }
                    (Screen::Form(form), Some(ClickTarget::Suggestion(index))) => {
                        form.click_suggestion(index, &self.history, tick);
                        Vec::new()
                    }
                    (Screen::Review(review), Some(ClickTarget::Message(index))) => {
                        review.click_message(index);
                        Vec::new()
                    }
                    _ => Vec::new(),
                };
            }
        }
        let Some(rank) = areas::entry_at(self, column, row) else {
            self.menu.forget_click();
            return Vec::new();
        };
        self.menu_update(MenuInput::Click { rank, at_ms })
    }

    pub(in crate::app) fn picker_action(&mut self, action: Action) -> Vec<Effect> {
        // A page is the list rows visible now, as fzf; at least one.
        let page = (areas::menu_list(self).height as usize).max(1);
        let (menu, scope) = self.menu_with_scope();
        match menu.update(MenuInput::Act { action, page }, scope) {
            MenuOutcome::Done => return Vec::new(),
            MenuOutcome::Pick => return self.pick(),
            MenuOutcome::Quit => {
                self.exit = Some(Exit::Quit);
                return Vec::new();
            }
            MenuOutcome::NotMine => {}
        }
        match action {
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
        if let Some(refusal) = self.lock_refusal(&prompt) {
            self.warn(refusal);
            return Vec::new();
        }
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
        let entries = self
            .servers
            .iter()
            .filter_map(|s| self.prompts.get(&s.name))
            .flatten()
            .cloned()
            .map(Entry::new)
            .collect();
        let (menu, scope) = self.menu_with_scope();
        menu.set_entries(entries, keep, scope);
        self.menu.drift = match &self.options.lock {
            Some(lock) => (self.menu.entries.iter())
                .filter_map(|entry| {
                    let drift = lock.lockfile.drift_of(&entry.prompt)?;
                    Some((
                        (entry.prompt.server.clone(), entry.prompt.name.clone()),
                        drift,
                    ))
                })
                .collect(),
            None => Default::default(),
        };
    }

    /// Why `prompt` is not fetched: with `[lock] enforce = true`, one that is not as the
    /// lockfile has it.
    pub(in crate::app) fn lock_refusal(&self, prompt: &PromptInfo) -> Option<String> {
        let lock = self.options.lock.as_ref().filter(|lock| lock.enforce)?;
        let drift = self.menu.drift_of(prompt)?;
        let what = match drift {
            Drift::New => "is not in",
            Drift::Changed(_) => "changed since",
        };
        Some(format!(
            "/{} {what} {} and [lock] enforce is on: review it in the details, then run `mcpick lock` to accept it.",
            crate::text::one_line(&prompt.name),
            crate::text::one_line(&lock.shown_path)
        ))
    }
}
