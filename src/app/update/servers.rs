//! The servers as the app sees them: their states from the hub's events, their prompts
//! in the menu, and the inputs some wait for.

use crate::app::logs::{mcpick_line, push_log};
use crate::app::{
    Action, App, Effect, InputsPrompt, KeyScreen, Overlay, PlannedRestart, ServerState,
    ServerStatus, inputs,
};
use crate::config::InputSpec;
use crate::mcp::{McpError, McpEvent};
use crate::model::{PromptInfo, ServedProblem, ServerDetails, ServerId};
use std::path::PathBuf;
use std::sync::Arc;

impl App {
    /// The details of a ready server.
    pub fn server_details(&self, server: &str) -> Option<&ServerDetails> {
        self.servers
            .iter()
            .find(|s| s.name == server)
            .and_then(|s| match &s.state {
                ServerState::Ready { details, .. } => Some(details.as_ref()),
                _ => None,
            })
    }

    pub(in crate::app) fn on_mcp(&mut self, event: McpEvent) -> Vec<Effect> {
        match event {
            McpEvent::Connecting { server } => {
                self.log_event(&server, "connecting".into());
                self.set_state(&server, ServerState::Connecting)
            }
            McpEvent::Ready {
                server,
                details,
                prompts,
            } => {
                self.warn_of_served_problems(&server, &details.served_problems, &[]);
                self.log_event(&server, format!("ready: {}", listed(&prompts)));
                self.set_state(
                    &server,
                    ServerState::Ready {
                        details: Box::new(details),
                        prompts: prompts.len(),
                    },
                );
                // It is up: what was said of its failure no longer holds.
                self.withdraw_state_notices(&server);
                // (A refresh or restart by hand says how it ended once all answered.)
                if self.restarted_by_hand.remove(&server) && self.refresh_round.is_none() {
                    self.notify(format!(
                        "{} is back: {}.",
                        crate::text::one_line(&server),
                        crate::text::counted(prompts.len(), "prompt", "prompts")
                    ));
                }
                let keep = self.selection_to_keep();
                self.before_new_list(&server);
                self.prompts
                    .insert(server.clone(), prompts.into_iter().map(Arc::new).collect());
                self.rebuild_keeping(keep);
                return self.form_follows_list(&server);
            }
            McpEvent::PromptsChanged { server, prompts } => {
                self.log_event(&server, format!("list changed: {}", listed(&prompts)));
                if let Some(status) = self.servers.iter_mut().find(|s| s.name == server)
                    && let ServerState::Ready { prompts: count, .. } = &mut status.state
                {
                    *count = prompts.len();
                }
                let keep = self.selection_to_keep();
                self.before_new_list(&server);
                self.prompts
                    .insert(server.clone(), prompts.into_iter().map(Arc::new).collect());
                self.rebuild_keeping(keep);
                return self.form_follows_list(&server);
            }
            McpEvent::ServedProblemsChanged { server, problems } => {
                self.on_served_problems_changed(&server, problems);
            }
            McpEvent::FromCatalog { server, freshness } => {
                self.on_from_catalog(server, freshness);
            }
            McpEvent::ListStale { server, reason } => self.on_list_stale(server, reason),
            McpEvent::Failed {
                server,
                error,
                stderr,
            } => {
                // Its stderr lines arrive as `Log` events (the tail in `stderr` repeats
                // them); the logs pane ends each failed server's lines with the error.
                let _ = stderr;
                let state = match &error {
                    McpError::SignInRequired { challenge, .. } => {
                        self.sign_ins.insert(server.clone(), challenge.clone());
                        ServerState::NeedsSignIn
                    }
                    _ => ServerState::Failed {
                        error: error.to_string(),
                        restart: None,
                    },
                };
                if self.restarted_by_hand.remove(&server) && self.refresh_round.is_none() {
                    // The status bar only keeps its ✗: say that the restart did not help.
                    let logs = self
                        .keys
                        .hint(KeyScreen::Picker, Action::Logs)
                        .map(|key| format!(" ({key} shows its logs)"))
                        .unwrap_or_default();
                    let text = format!(
                        "{} failed again: {}{logs}.",
                        crate::text::one_line(&server),
                        error.to_string().trim_end_matches('.')
                    );
                    self.warn_of_state(&server, text);
                }
                let was_up = self
                    .servers
                    .iter()
                    .any(|s| s.name == server && matches!(s.state, ServerState::Ready { .. }));
                let what = match &error {
                    McpError::SignInRequired { .. } => "asks for a sign-in".to_string(),
                    _ if was_up => format!("crashed: {error}"),
                    _ => format!("failed: {error}"),
                };
                self.log_event(&server, what);
                self.set_state(&server, state);
                let keep = self.selection_to_keep();
                if !self.keep_rows_of_failed(&server, &error, was_up) {
                    self.prompts.remove(&server);
                }
                self.rebuild_keeping(keep);
                self.form_follows_failure(&server);
            }
            McpEvent::Restarting {
                server,
                attempt,
                of,
                delay,
            } => {
                if let Some(ServerStatus {
                    state: ServerState::Failed { restart, .. },
                    ..
                }) = self.servers.iter_mut().find(|s| s.name == server)
                {
                    *restart = Some(PlannedRestart { attempt, of, delay });
                }
                let note = format!(
                    "restarting in {} s (attempt {attempt} of {of})",
                    delay.as_secs_f32().ceil()
                );
                self.log_event(&server, note);
            }
            McpEvent::Warning { server, text } => {
                // The status bar tells it once; the logs pane keeps it with the server.
                self.warn(format!(
                    "{}: {}",
                    crate::text::one_line(&server),
                    crate::text::one_line(&text)
                ));
                push_log(
                    self.logs.entry(server).or_default(),
                    mcpick_line(text, self.now_ms),
                );
            }
            McpEvent::Log { server, line } => {
                push_log(self.logs.entry(server).or_default(), line);
            }
            McpEvent::LogSnapshot { server, lines } => {
                self.logs.entry(server).or_default().replace_with(lines);
            }
        }
        Vec::new()
    }

    /// A served library's problems changed with a new list: the server's details hold the
    /// new ones; new problems say so in the status bar (once: the hub sends this only when
    /// they change), and problems fixed with none new say how many are left.
    fn on_served_problems_changed(&mut self, server: &str, problems: Vec<ServedProblem>) {
        let Some(ServerStatus {
            state: ServerState::Ready { details, .. },
            ..
        }) = self.servers.iter_mut().find(|s| s.name == server)
        else {
            return;
        };
        let before = std::mem::replace(&mut details.served_problems, problems.clone());
        if problems.iter().any(|p| !before.contains(p)) {
            self.warn_of_served_problems(server, &problems, &before);
        } else if problems.len() < before.len() {
            let name = crate::text::one_line(server);
            self.notify(match problems.len() {
                0 => format!("{name} serves all its prompt files again."),
                left => format!(
                    "{name}: {} left.",
                    crate::text::counted(left, "problem", "problems")
                ),
            });
        }
    }

    /// A served prompt library (`mcpick serve`) that could not serve some of its files says
    /// so in the status bar, the way to its logs first (the files and why are there, and a
    /// long path would push the key out of the bar). `told`: problems already told, so the
    /// one quoted is a new one.
    fn warn_of_served_problems(
        &mut self,
        server: &str,
        problems: &[ServedProblem],
        told: &[ServedProblem],
    ) {
        let Some(first) = problems
            .iter()
            .find(|p| !told.contains(p))
            .or(problems.first())
        else {
            return;
        };
        let count = problems.len();
        let more = if count > 1 { " …" } else { "" };
        let logs = self
            .keys
            .hint(KeyScreen::Picker, Action::Logs)
            .map(|key| format!(" ({key} shows them)"))
            .unwrap_or_default();
        self.warn(format!(
            "{} has problems with {}{logs}: {}{more}",
            crate::text::one_line(server),
            crate::text::counted(count, "prompt file", "prompt files"),
            crate::text::one_line(&first.to_string())
        ));
    }

    /// Servers wait for inputs: the prompt opens (or grows) unless another pane is up.
    pub(in crate::app) fn on_inputs_needed(&mut self, waiting: Vec<(ServerId, Vec<InputSpec>)>) {
        for (server, specs) in waiting {
            self.input_servers
                .entry(server.clone())
                .or_insert_with(|| specs.clone());
            let labels = specs.iter().map(|s| s.label().to_string()).collect();
            self.set_state(&server, ServerState::NeedsInput { inputs: labels });
            self.waiting.retain(|(name, _)| *name != server);
            self.waiting.push((server, specs));
        }
        match &self.overlay {
            None => {
                self.overlay = Some(Overlay::Inputs(InputsPrompt::new(&self.waiting, None)));
            }
            Some(Overlay::Inputs(previous)) => {
                let prompt = InputsPrompt::new(&self.waiting, Some(previous));
                self.overlay = Some(Overlay::Inputs(prompt));
            }
            Some(_) => self.remind_inputs(),
        }
    }

    pub(in crate::app) fn inputs_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Inputs(prompt)) = &mut self.overlay else {
            return Vec::new();
        };
        match prompt.action(action) {
            inputs::Outcome::Nothing => Vec::new(),
            inputs::Outcome::Skip => {
                self.overlay = None;
                if !self.retrying.is_empty() {
                    // Those servers stay failed, not waiting.
                    let retrying = std::mem::take(&mut self.retrying);
                    self.waiting.retain(|(name, _)| !retrying.contains(name));
                    return Vec::new();
                }
                self.remind_inputs();
                Vec::new()
            }
            inputs::Outcome::Submit(values) => {
                self.overlay = None;
                let again = std::mem::take(&mut self.retrying);
                let mut still = Vec::new();
                for (server, specs) in std::mem::take(&mut self.waiting) {
                    if again.contains(&server) {
                        self.set_state(&server, ServerState::Connecting);
                        continue;
                    }
                    let left: Vec<InputSpec> = specs
                        .into_iter()
                        .filter(|s| values.get(&s.id).is_none())
                        .collect();
                    if left.is_empty() {
                        self.set_state(&server, ServerState::Connecting);
                    } else {
                        let labels = left.iter().map(|s| s.label().to_string()).collect();
                        self.set_state(&server, ServerState::NeedsInput { inputs: labels });
                        still.push((server, left));
                    }
                }
                self.waiting = still;
                if !self.waiting.is_empty() {
                    self.remind_inputs();
                }
                vec![Effect::GiveInputs { values, again }]
            }
        }
    }

    /// Says which servers still wait, and the key that opens the prompt again.
    pub(in crate::app) fn remind_inputs(&mut self) {
        let names: Vec<&str> = self.waiting.iter().map(|(s, _)| s.as_str()).collect();
        let key = self
            .keys
            .hint(KeyScreen::Picker, Action::Inputs)
            .unwrap_or_else(|| "the inputs key".into());
        self.notify(format!(
            "{} wait{} for inputs: {key} to type them.",
            names.join(", "),
            if names.len() == 1 { "s" } else { "" }
        ));
    }

    pub(in crate::app) fn set_state(&mut self, server: &str, state: ServerState) {
        match self.servers.iter_mut().find(|s| s.name == server) {
            Some(status) => status.state = state,
            None => self.servers.push(ServerStatus {
                name: server.to_string(),
                state,
            }),
        }
    }

    /// A config with `sources` was written (or not): its servers are starting.
    pub(in crate::app) fn on_sources_added(
        &mut self,
        result: Result<(PathBuf, Vec<(ServerId, String)>), String>,
    ) -> Vec<Effect> {
        match result {
            Ok((path, servers)) => {
                self.notify(format!(
                    "Wrote {} with `sources`; starting {}.",
                    path.display(),
                    crate::text::counted(servers.len(), "server", "servers")
                ));
                for (name, source) in servers {
                    self.set_state(&name, ServerState::Connecting);
                    self.server_sources.insert(name, source);
                }
            }
            Err(error) => self.warn(error),
        }
        Vec::new()
    }

    /// A sign-in began: its URL goes to the server's logs, and a notice says where.
    pub(in crate::app) fn on_sign_in_url(&mut self, server: ServerId, url: String) -> Vec<Effect> {
        self.log_event(&server, format!("sign in at {url}"));
        let logs = self
            .keys
            .hint(KeyScreen::Picker, Action::Logs)
            .unwrap_or_else(|| "the logs".into());
        self.notify(format!(
            "Sign in to {server} in the browser (its URL is in the logs: {logs})."
        ));
        Vec::new()
    }

    /// A sign-in ended: restart the server with its tokens, or say why not.
    pub(in crate::app) fn on_signed_in(
        &mut self,
        server: ServerId,
        result: Result<(), String>,
    ) -> Vec<Effect> {
        self.signing_in.remove(&server);
        match result {
            Ok(()) => {
                self.sign_ins.remove(&server);
                self.set_state(&server, ServerState::Connecting);
                self.notify(format!("Signed in to {server}; connecting."));
                return vec![Effect::Restart { server }];
            }
            Err(error) => {
                let again = self
                    .keys
                    .hint(KeyScreen::Picker, Action::SignIn)
                    .map(|key| format!(" {key} tries again."))
                    .unwrap_or_default();
                let error = error.trim_end_matches('.');
                self.warn(format!("Sign-in to {server} failed: {error}.{again}"))
            }
        }
        Vec::new()
    }
}

/// A list's size as the logs say it: `9 prompts`, `3 prompts and 1 skill`.
fn listed(prompts: &[PromptInfo]) -> String {
    let skills = prompts.iter().filter(|p| p.skill.is_some()).count();
    let prompt_count = crate::text::counted(prompts.len() - skills, "prompt", "prompts");
    match skills {
        0 => prompt_count,
        _ => format!(
            "{prompt_count} and {}",
            crate::text::counted(skills, "skill", "skills")
        ),
    }
}
