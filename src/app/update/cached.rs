//! The catalog read at start: the rows it fills before the servers answer.

use crate::app::cached::gone_message;
use crate::app::{
    Action, App, CatalogMark, Effect, KeyScreen, RefreshRound, RowMark, Screen, ServerState,
};
use crate::cache::{Freshness, ServerEntry};
use crate::mcp::McpError;
use crate::model::ServerId;
use std::sync::Arc;

impl App {
    /// Puts `entry`'s prompts into the menu as its server's rows, marked as cached, before
    /// the server is up (the runner calls this before the first frame). An entry that
    /// never listed, or listed nothing, adds nothing.
    pub fn show_cached(&mut self, entry: &ServerEntry) {
        let prompts = entry.prompts();
        if prompts.is_empty() || !self.servers.iter().any(|s| s.name == entry.server) {
            return;
        }
        let fresh_until = match entry.freshness(self.wall_ms) {
            Some(Freshness::Fresh { until_ms }) => Some(until_ms),
            _ => None,
        };
        let listed_ms = entry
            .pages
            .iter()
            .flatten()
            .map(|page| page.hints.received_ms)
            .min()
            .unwrap_or(entry.written_ms);
        let keep = self.selection_to_keep();
        self.catalog_marks.insert(
            entry.server.clone(),
            CatalogMark::Cached {
                listed_ms,
                fresh_until,
            },
        );
        self.prompts.insert(
            entry.server.clone(),
            prompts.into_iter().map(Arc::new).collect(),
        );
        self.rebuild_keeping(keep);
    }

    /// Why `server`'s rows are not a live list, if they are not.
    pub fn catalog_mark(&self, server: &str) -> Option<&CatalogMark> {
        self.catalog_marks.get(server)
    }

    /// The badge of `server`'s rows: none for a list fetched in this run.
    pub fn row_mark(&self, server: &str) -> Option<RowMark> {
        match self.catalog_marks.get(server)? {
            CatalogMark::Stale { .. } => Some(RowMark::Stale),
            // While the server starts its live list is on the way: the rows are "cached".
            // Up and not listed again (its list was fresh), they age by the clock.
            CatalogMark::Cached { fresh_until, .. } => {
                let up = self
                    .servers
                    .iter()
                    .any(|s| s.name == server && matches!(s.state, ServerState::Ready { .. }));
                let fresh = fresh_until.is_some_and(|until| self.wall_ms < until);
                Some(if up && !fresh {
                    RowMark::Stale
                } else {
                    RowMark::Cached
                })
            }
        }
    }

    /// Whether `server`'s rows are its catalog's and still fresh by its `ttlMs`, so the
    /// live list it is about to give will be the same (the catalog's, not fetched).
    pub fn is_fresh_from_catalog(&self, server: &str) -> bool {
        matches!(
            self.catalog_marks.get(server),
            Some(CatalogMark::Cached { fresh_until: Some(until), .. }) if self.wall_ms < *until
        )
    }

    /// How many rows `server` has in the menu.
    pub fn rows_of(&self, server: &str) -> usize {
        self.prompts.get(server).map_or(0, Vec::len)
    }

    /// The selected prompt (`server:name`) to keep selected through a rebuild: when the user
    /// moved to it, or when the menu already shows cached rows for a search (it was complete
    /// from the first frame: a live list arriving must not move the user). But on an empty
    /// search with prompts used before, a selection the user has not moved stays on the
    /// first row, the prompt used last, however many servers add rows (and whichever of
    /// them lists it).
    pub(in crate::app) fn selection_to_keep(&self) -> Option<String> {
        let recent_first =
            self.menu.parsed_query.needle.is_empty() && !self.history.recent.is_empty();
        let keep =
            self.menu.selection_pinned() || (!self.catalog_marks.is_empty() && !recent_first);
        self.selected_entry()
            .filter(|_| keep)
            .map(|e| e.slash_name.clone())
    }

    /// `FromCatalog`: the next list of `server` is its catalog's (fresh, so not fetched).
    pub(in crate::app) fn on_from_catalog(&mut self, server: ServerId, freshness: Freshness) {
        let listed_ms = self.listed_ms_of(&server).unwrap_or(self.wall_ms);
        let fresh_until = match freshness {
            Freshness::Fresh { until_ms } => Some(until_ms),
            Freshness::Stale => None,
        };
        self.catalog_marks.insert(
            server.clone(),
            CatalogMark::Cached {
                listed_ms,
                fresh_until,
            },
        );
        self.from_catalog_next.insert(server);
    }

    /// A `Ready` or `PromptsChanged` for `server` is about to replace its rows: a list
    /// fetched now clears the mark (and ends a refresh); the catalog's keeps it.
    pub(in crate::app) fn before_new_list(&mut self, server: &str) {
        if self.from_catalog_next.remove(server) {
            return;
        }
        self.catalog_marks.remove(server);
        self.refreshing.remove(server);
        self.live_listed_ms.insert(server.to_string(), self.wall_ms);
        // The server listed: "could not be fetched again" no longer holds.
        self.withdraw_state_notices(server);
    }

    /// When `server`'s rows were listed (ms since the epoch): the catalog's time, or the
    /// last live list's.
    fn listed_ms_of(&self, server: &str) -> Option<u64> {
        match self.catalog_marks.get(server) {
            Some(CatalogMark::Cached { listed_ms, .. }) => Some(*listed_ms),
            Some(CatalogMark::Stale { listed_ms, .. }) => *listed_ms,
            None => self.live_listed_ms.get(server).copied(),
        }
    }

    /// Shows a failure about `server`'s state, to be withdrawn when the state changes.
    pub(in crate::app) fn warn_of_state(&mut self, server: &str, text: String) {
        self.warn(text.clone());
        let said = self.state_notices.entry(server.to_string()).or_default();
        if !said.contains(&text) {
            said.push(text);
        }
    }

    /// `server`'s state changed: what was said of its old state leaves the status bar and
    /// the queue (the logs pane keeps it).
    pub(in crate::app) fn withdraw_state_notices(&mut self, server: &str) {
        for text in self.state_notices.remove(server).unwrap_or_default() {
            self.withdraw_notice(&text);
        }
    }

    /// `ListStale`: fetching `server`'s list again failed; its rows stay, marked, and one
    /// notice says why (not again for the same reason).
    pub(in crate::app) fn on_list_stale(&mut self, server: ServerId, reason: String) {
        self.refreshing.remove(&server);
        self.from_catalog_next.remove(&server);
        let phrase = format!("listing again failed ({})", reason.trim_end_matches('.'));
        let told = matches!(
            self.catalog_marks.get(&server),
            Some(CatalogMark::Stale { reason: before, .. }) if *before == phrase
        );
        if !told {
            let text = format!(
                "{}: its prompt list could not be fetched again ({}); the rows shown may be out of date.",
                crate::text::one_line(&server),
                crate::text::one_line(reason.trim_end_matches('.'))
            );
            self.warn_of_state(&server, text);
        }
        self.log_event(
            &server,
            format!("listing the prompts again failed: {reason}"),
        );
        let listed_ms = self.listed_ms_of(&server);
        self.catalog_marks.insert(
            server,
            CatalogMark::Stale {
                reason: phrase,
                listed_ms,
                crashed: false,
            },
        );
    }

    /// `Failed` for `server`: the rows it has (from the catalog, or listed before it
    /// crashed) stay, marked stale with the error, as when it fails at start; returns
    /// whether any did. `was_up`: it was ready, so this is a crash.
    pub(in crate::app) fn keep_rows_of_failed(
        &mut self,
        server: &str,
        error: &McpError,
        was_up: bool,
    ) -> bool {
        self.refreshing.remove(server);
        self.from_catalog_next.remove(server);
        if self.rows_of(server) == 0 {
            return false;
        }
        // A restart after a crash that fails too is still the crash's story.
        let crashed = was_up
            || matches!(
                self.catalog_marks.get(server),
                Some(CatalogMark::Stale { crashed: true, .. })
            );
        let text = error.to_string();
        let text = text.trim_end_matches('.');
        let reason = match error {
            McpError::SignInRequired { .. } => "it needs a sign-in".to_string(),
            _ if crashed => format!("crashed ({text})"),
            _ => format!("it is down ({text})"),
        };
        let listed_ms = self.listed_ms_of(server);
        let crashed = crashed && !matches!(error, McpError::SignInRequired { .. });
        self.catalog_marks.insert(
            server.to_string(),
            CatalogMark::Stale {
                reason,
                listed_ms,
                crashed,
            },
        );
        true
    }

    /// Ctrl-R in the menu: every server that is up (or starting) lists again, whatever its
    /// TTL; failed ones start again. The status bar says "refreshing" until each answers.
    pub(in crate::app) fn refresh_all(&mut self) -> Vec<Effect> {
        let listing: Vec<ServerId> = self
            .servers
            .iter()
            .filter(|s| matches!(s.state, ServerState::Ready { .. } | ServerState::Connecting))
            .map(|s| s.name.clone())
            .collect();
        let mut effects: Vec<Effect> = listing
            .iter()
            .map(|server| {
                self.refreshing.insert(server.clone());
                Effect::Relist {
                    server: server.clone(),
                }
            })
            .collect();
        let any_failed = self
            .servers
            .iter()
            .any(|s| matches!(s.state, ServerState::Failed { .. }));
        if any_failed {
            effects.extend(self.restart_failed());
        } else if effects.is_empty() {
            self.notify("No server is up to list its prompts again.");
            return effects;
        }
        let round = self.refresh_round.get_or_insert_with(RefreshRound::default);
        round.listing.extend(listing);
        self.say_refresh_progress();
        effects
    }

    /// Shows what the refresh under way is at, as a notice of what is under way.
    pub(in crate::app) fn say_refresh_progress(&mut self) {
        let progress = self.refresh_progress();
        if let Some(round) = &mut self.refresh_round {
            round.said = progress.clone();
        }
        self.notify_transient(progress);
    }

    /// What the refresh under way is at: `Refreshing 6 servers… (2 answered)`.
    fn refresh_progress(&self) -> String {
        let Some(round) = &self.refresh_round else {
            return String::new();
        };
        let all = round.listing.len() + round.restarting.len();
        let waiting = round
            .listing
            .iter()
            .filter(|s| self.refreshing.contains(*s))
            .chain(
                round
                    .restarting
                    .iter()
                    .filter(|s| self.restarted_by_hand.contains(*s)),
            )
            .count();
        let verb = if round.listing.is_empty() {
            "Restarting"
        } else {
            "Refreshing"
        };
        let what = if all == 1 {
            round
                .listing
                .iter()
                .chain(&round.restarting)
                .map(|s| crate::text::one_line(s))
                .collect::<String>()
        } else {
            format!("{all} servers")
        };
        match all - waiting {
            0 => format!("{verb} {what}…"),
            answered => format!("{verb} {what}… ({answered} answered)"),
        }
    }

    /// Once every server of the refresh under way answered: one notice says how it
    /// ended (how many listed, which failed again and where to read why); until then the
    /// progress notice counts the answers.
    pub(in crate::app) fn settle_refresh_round(&mut self) {
        let Some(round) = &self.refresh_round else {
            return;
        };
        let waiting = round.listing.iter().any(|s| self.refreshing.contains(s))
            || round
                .restarting
                .iter()
                .any(|s| self.restarted_by_hand.contains(s));
        if waiting {
            let progress = self.refresh_progress();
            if let Some(flash) = &mut self.flash
                && flash.text == round.said
                && progress != round.said
            {
                // In place: the logs pane keeps the first words, not every count.
                flash.text = progress.clone();
                if let Some(round) = &mut self.refresh_round {
                    round.said = progress;
                }
            }
            return;
        }
        let Some(round) = self.refresh_round.take() else {
            return;
        };
        let servers: Vec<&ServerId> = round.listing.iter().chain(&round.restarting).collect();
        // Each server once: listed again, failed again, or up with its old rows (its list
        // could not be fetched again).
        let (mut up, mut down, mut stale) = (Vec::new(), Vec::new(), Vec::new());
        for server in servers.iter().copied() {
            let ready = self.servers.iter().any(|status| {
                &status.name == server && matches!(status.state, ServerState::Ready { .. })
            });
            let old_rows = matches!(
                self.catalog_marks.get(server),
                Some(CatalogMark::Stale { .. })
            );
            match (ready, old_rows) {
                (false, _) => down.push(server),
                (true, true) => stale.push(server),
                (true, false) => up.push(server),
            }
        }
        let names = |servers: &[&ServerId]| {
            servers
                .iter()
                .map(|s| crate::text::one_line(s))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let prompts: usize = up.iter().map(|s| self.rows_of(s)).sum();
        let listed = match (up.len(), servers.len()) {
            (0, _) => String::new(),
            (1, 1) => format!(
                "{} {}: {}",
                crate::text::one_line(up[0]),
                if round.restarting.contains(up[0]) {
                    "is back"
                } else {
                    "listed again"
                },
                crate::text::counted(prompts, "prompt", "prompts")
            ),
            (n, all) if n == all => format!(
                "Refreshed {all} servers: {}",
                crate::text::counted(prompts, "prompt", "prompts")
            ),
            (n, all) => format!("Refreshed {n} of {all} servers"),
        };
        if down.is_empty() && stale.is_empty() {
            self.notify(format!("{listed}."));
            return;
        }
        let logs = self
            .keys
            .hint(KeyScreen::Picker, Action::Logs)
            .map(|key| format!(" ({key} shows why)"))
            .unwrap_or_default();
        let mut parts: Vec<String> = Vec::new();
        if !listed.is_empty() {
            parts.push(listed);
        }
        if !down.is_empty() {
            parts.push(format!("{} failed again", names(&down)));
        }
        if !stale.is_empty() {
            parts.push(format!("{} could not list its prompts", names(&stale)));
        }
        // A state notice of each server it names: one that comes back withdraws it.
        let text = format!("{}{logs}.", parts.join("; "));
        self.warn(text.clone());
        for server in down.iter().chain(&stale) {
            let said = self.state_notices.entry((*server).clone()).or_default();
            if !said.contains(&text) {
                said.push(text.clone());
            }
        }
    }

    /// What stops a prompt of `server` from being sent now and what to do about it, for a
    /// server that is down (failed, or waiting for a sign-in or inputs); `None` when it is
    /// up or on its way up.
    pub(in crate::app) fn down_message(&self, server: &str) -> Option<String> {
        let state = &self.servers.iter().find(|s| s.name == server)?.state;
        let name = crate::text::one_line(server);
        let key = |action| {
            self.keys
                .hint(KeyScreen::Picker, action)
                .unwrap_or_else(|| action.name().to_string())
        };
        match state {
            ServerState::Failed {
                error,
                restart: None,
            } => Some(format!(
                "{name} is down ({}): Esc, then {} in the menu starts it again.",
                crate::text::one_line(error.trim_end_matches('.')),
                key(Action::Restart)
            )),
            ServerState::NeedsSignIn => Some(format!(
                "{name} needs a sign-in first: Esc, then {} in the menu.",
                key(Action::SignIn)
            )),
            ServerState::NeedsInput { .. } => Some(format!(
                "{name} waits for inputs before it starts: Esc, then {} in the menu.",
                key(Action::Inputs)
            )),
            ServerState::Connecting | ServerState::Ready { .. } | ServerState::Failed { .. } => {
                None
            }
        }
    }

    /// A new list of `server` came in: an open form on one of its prompts follows it. The
    /// prompt gone: the form says so and refuses to send. Its arguments changed: the form
    /// takes them (keeping what was typed for those that stay) and says what changed. Else
    /// a submit that waited for the server goes out now, and completion can be asked.
    pub(in crate::app) fn form_follows_list(&mut self, server: &str) -> Vec<Effect> {
        let tick = self.tick;
        let found = match &self.screen {
            Screen::Form(form) if form.prompt.server == server => self
                .prompts
                .get(server)
                .and_then(|list| {
                    // A prompt and a skill may share a name (`mcpick serve` serves a skill
                    // folder both ways): the form follows the entry of its own kind.
                    list.iter()
                        .find(|p| p.name == form.prompt.name && p.kind() == form.prompt.kind())
                })
                .map(|p| (**p).clone()),
            _ => return Vec::new(),
        };
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        let name = crate::text::one_line(server);
        let Some(prompt) = found else {
            form.gone = true;
            form.stop_waiting();
            form.error = Some(gone_message(&name));
            return Vec::new();
        };
        form.gone = false;
        if let Some(change) = form.take_prompt(prompt, &self.history) {
            let waited = form.stop_waiting();
            form.error = Some(format!(
                "{name} changed this prompt's arguments ({change}): the form was updated{}.",
                if waited {
                    "; check it, then send it again"
                } else {
                    ""
                }
            ));
            return Vec::new();
        }
        // The server is up: completion can be asked for the field being filled.
        form.completion_due.get_or_insert(tick);
        match form.fetching {
            Some((id, _)) if form.awaiting_server => {
                form.awaiting_server = false;
                vec![Effect::Fetch {
                    id,
                    server: form.prompt.server.clone(),
                    prompt: form.prompt.name.clone(),
                    arguments: form.arguments(),
                    answers: None,
                    skill: form.prompt.skill.clone(),
                }]
            }
            _ => Vec::new(),
        }
    }

    /// `server` failed: a submit waiting for it ends, saying why and what to do.
    pub(in crate::app) fn form_follows_failure(&mut self, server: &str) {
        let message = self.down_message(server);
        if let Screen::Form(form) = &mut self.screen
            && form.prompt.server == server
            && form.stop_waiting()
        {
            form.error = message.or_else(|| {
                Some(format!(
                    "{} is down; the form was not sent.",
                    crate::text::one_line(server)
                ))
            });
        }
    }
}
