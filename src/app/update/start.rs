//! What the command line asked for at start: a prompt opened, a query typed, an exit when nothing matches.

use crate::app::{App, Effect, Exit, FormState, OpenPrompt, Screen, ServerState, Start};
use crate::search::PromptRef;

impl App {
    /// Acts on the start request once no server is connecting any more; until then, and
    /// after it acted, does nothing.
    pub(in crate::app) fn settle_start(&mut self) -> Vec<Effect> {
        if !self
            .pending_start
            .as_ref()
            .is_some_and(Start::waits_for_servers)
        {
            return Vec::new();
        }
        // A server still starting whose rows came from a catalog fresh by its `ttlMs` is
        // taken at its word, as fzf takes its input: the start acts without waiting for it.
        let connecting = |app: &App, server: Option<&str>| {
            app.servers.iter().any(|s| {
                s.state == ServerState::Connecting
                    && server.is_none_or(|name| s.name == name)
                    && !app.is_fresh_from_catalog(&s.name)
            })
        };
        let start = self.pending_start.as_ref().expect("checked above");
        let server = start
            .open
            .as_ref()
            .and_then(|o| o.reference.server.clone())
            .filter(|name| self.servers.iter().any(|s| &s.name == name));
        // A named server only needs itself; a bare name needs every list.
        if connecting(self, server.as_deref()) {
            return Vec::new();
        }
        let Some(start) = self.pending_start.take() else {
            return Vec::new();
        };
        if let Some(open) = start.open {
            return self.open_at_start(open, start.exit_zero);
        }
        if start.exit_zero && self.menu.ranked.is_empty() {
            self.exit = Some(Exit::NoMatch);
            return Vec::new();
        }
        if start.select_one && self.menu.ranked.len() == 1 && matches!(self.screen, Screen::Picker)
        {
            return self.pick();
        }
        Vec::new()
    }

    fn open_at_start(&mut self, open: OpenPrompt, exit_zero: bool) -> Vec<Effect> {
        let wanted = &open.reference;
        let matches: Vec<usize> = self
            .menu
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| match &wanted.server {
                Some(server) if self.servers.iter().any(|s| &s.name == server) => {
                    &e.prompt.server == server && e.prompt.name == wanted.prompt
                }
                // Not a server: the whole text is a prompt name that holds `:` or `/`.
                _ => e.prompt.name == wanted.whole,
            })
            .map(|(i, _)| i)
            .collect();
        let [index] = matches[..] else {
            let why = if matches.is_empty() {
                self.missing_prompt_reason(wanted, open.near_command.as_deref())
            } else {
                format!(
                    "`{}` is offered by {} servers; write SERVER/PROMPT",
                    wanted.whole,
                    matches.len()
                )
            };
            if exit_zero && matches.is_empty() {
                self.exit = Some(Exit::NoMatch);
                return Vec::new();
            }
            // The menu's own spelling, so the search shows what is near.
            let spelled = match &wanted.server {
                Some(server) if self.servers.iter().any(|s| &s.name == server) => {
                    format!("/{server}:{}", wanted.prompt)
                }
                _ => format!("/{}", wanted.whole),
            };
            let (menu, scope) = self.menu_with_scope();
            menu.set_query(&spelled, scope);
            self.warn(why);
            return Vec::new();
        };
        if let Some(refusal) = self.lock_refusal(&self.menu.entries[index].prompt) {
            self.warn(refusal);
            return Vec::new();
        }
        let entry = &self.menu.entries[index];
        let mut form = FormState::new(
            (*entry.prompt).clone(),
            entry.slash_name.clone(),
            &self.history,
        );
        let unknown = form.set_values(&open.values);
        form.set_sources(&open.sources);
        if !unknown.is_empty() {
            let names = form
                .fields
                .iter()
                .map(|f| f.arg.name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            form.error = Some(format!(
                "/{} has no argument {}; its arguments: {}",
                form.slash_name,
                unknown
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if names.is_empty() { "none" } else { &names }
            ));
        }
        let ready = unknown.is_empty() && form.validate().is_ok();
        if !ready {
            // validate() marked what is missing; the form says it on submit too.
            for field in &mut form.fields {
                field.missing = false;
            }
        }
        let mut effects = form.on_focus(&self.history, self.tick);
        self.screen = Screen::Form(Box::new(form));
        if (open.no_form || self.screen_form_is_empty()) && ready {
            return self.submit_form();
        }
        effects.extend(self.recall_files());
        effects
    }

    fn screen_form_is_empty(&self) -> bool {
        matches!(&self.screen, Screen::Form(form) if form.fields.is_empty())
    }

    /// Why `wanted` is not in the menu: its server failed or waits, or it has no such prompt.
    fn missing_prompt_reason(&self, wanted: &PromptRef, near_command: Option<&str>) -> String {
        let server = wanted
            .server
            .as_ref()
            .and_then(|name| self.servers.iter().find(|s| &s.name == name));
        let name = crate::text::one_line(&wanted.whole);
        match server.map(|s| &s.state) {
            Some(ServerState::Failed { error, .. }) => format!(
                "/{name}: {} failed: {}",
                crate::text::one_line(&server.expect("matched").name),
                crate::text::one_line(error)
            ),
            Some(ServerState::NeedsSignIn) => format!(
                "/{name}: {} needs a sign-in first",
                crate::text::one_line(&server.expect("matched").name)
            ),
            Some(ServerState::NeedsInput { .. }) => format!(
                "/{name}: {} waits for inputs first",
                crate::text::one_line(&server.expect("matched").name)
            ),
            Some(_) => {
                let server = server.expect("matched");
                let names = self
                    .menu
                    .entries
                    .iter()
                    .filter(|e| e.prompt.server == server.name)
                    .map(|e| e.prompt.name.as_str());
                let near = crate::search::closest(&wanted.prompt, names, 1);
                format!(
                    "{} has no prompt `{}`{}",
                    crate::text::one_line(&server.name),
                    crate::text::one_line(&wanted.prompt),
                    near.first()
                        .map(|n| format!(" (did you mean {}?)", crate::text::one_line(n)))
                        .unwrap_or_default()
                )
            }
            None => {
                let names = self.menu.entries.iter().map(|e| e.prompt.name.as_str());
                let near = crate::search::closest(&wanted.whole, names, 1);
                let hint = match (near.first(), near_command) {
                    (Some(n), _) => format!(" (did you mean {}?)", crate::text::one_line(n)),
                    (None, Some(command)) => format!(" (did you mean `mcpick {command}`?)"),
                    (None, None) => String::new(),
                };
                format!("No server offers a prompt `{name}`{hint}")
            }
        }
    }
}
