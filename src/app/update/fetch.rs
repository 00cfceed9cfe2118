//! Filling a prompt: the form's submit, the answers to a server's questions, and what
//! `prompts/get` answered (the review, the questions, or the error back on the form).

use crate::app::{
    App, Effect, FormState, QuestionsState, ReviewState, Screen, ServerState, cached,
    describe_error,
};
use crate::mcp::{GetOutcome, InputAnswers, McpError};

impl App {
    pub(in crate::app) fn submit_form(&mut self) -> Vec<Effect> {
        let id = self.fresh_id();
        let server = match &self.screen {
            Screen::Form(form) => form.prompt.server.clone(),
            _ => return Vec::new(),
        };
        let down = self.down_message(&server);
        let refused = match &self.screen {
            Screen::Form(form) => self.lock_refusal(&form.prompt),
            _ => None,
        };
        let up = self
            .servers
            .iter()
            .find(|s| s.name == server)
            .is_none_or(|s| matches!(s.state, ServerState::Ready { .. }));
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        if form.gone {
            form.error = Some(cached::gone_message(&crate::text::one_line(&server)));
            return Vec::new();
        }
        if let Err(message) = form.validate() {
            form.error = Some(message);
            return Vec::new();
        }
        if let Some(message) = refused.or(down) {
            form.error = Some(message);
            return Vec::new();
        }
        form.error = None;
        let mut effects = Vec::new();
        // The live preview answered these very values: that answer is the submit's.
        let arguments = form.arguments();
        form.preview.due = None;
        if let Some(messages) = form.preview.reusable(&arguments) {
            form.fetching = Some((id, self.now_ms));
            return self.on_fetched(id, Ok(GetOutcome::Messages(messages)));
        }
        if let Some(request) = form.preview.in_flight.take() {
            if request.arguments == arguments && up {
                // …or is about to: its answer is awaited as the submit's.
                form.fetching = Some((request.id, self.now_ms));
                return Vec::new();
            }
            effects.push(Effect::CancelFetch { id: request.id });
        }
        form.fetching = Some((id, self.now_ms));
        if !up {
            // A prompt from the catalog, its server still starting: sent once the server is
            // up and its live list still has the prompt as it was (`form_follows_list`).
            form.awaiting_server = true;
            return effects;
        }
        effects.push(Effect::Fetch {
            id,
            server: form.prompt.server.clone(),
            prompt: form.prompt.name.clone(),
            arguments,
            answers: None,
            skill: form.prompt.skill.clone(),
        });
        effects
    }

    pub(in crate::app) fn answer_questions(&mut self, answers: InputAnswers) -> Vec<Effect> {
        let id = self.fresh_id();
        let Screen::Questions(q) = &mut self.screen else {
            return Vec::new();
        };
        q.fetching = Some((id, self.now_ms));
        // The form is answered: its last complaint ("Deploy now?: required") is void.
        let problem = q.problem_notice.take();
        let effects = vec![Effect::Fetch {
            id,
            server: q.form.prompt.server.clone(),
            prompt: q.form.prompt.name.clone(),
            arguments: q.arguments.clone(),
            answers: Some(answers),
            skill: q.form.prompt.skill.clone(),
        }];
        if let Some(problem) = problem {
            self.withdraw_notice(&problem);
        }
        effects
    }

    pub(in crate::app) fn on_fetched(
        &mut self,
        id: u64,
        result: Result<GetOutcome, McpError>,
    ) -> Vec<Effect> {
        // The live preview's answers stay on the form.
        let result = match &mut self.screen {
            Screen::Form(form) => match form.on_previewed(id, result, self.now_ms) {
                Ok(()) => return Vec::new(),
                Err(result) => result,
            },
            _ => result,
        };
        // Take the form this answer belongs to; a stale answer (cancelled) changes nothing.
        let form = match &mut self.screen {
            Screen::Form(form) if form.fetching.map(|(f, _)| f) == Some(id) => {
                form.fetching = None;
                form.as_ref().clone()
            }
            Screen::Questions(q) if q.fetching.map(|(f, _)| f) == Some(id) => {
                q.fetching = None;
                q.form.clone()
            }
            _ => return Vec::new(),
        };
        // A preview still in flight is cancelled as the form is left (`settle_preview`): the
        // form kept for going back must not wait for it.
        let mut form = form;
        if result.is_ok() {
            form.preview.in_flight = None;
        }
        match result {
            Ok(GetOutcome::Messages(messages)) => {
                let arguments = form.arguments();
                // Sent: nothing of it is unsent any more.
                let forgot = self.form_drafts.forget(&form.slash_name);
                form.opened_with = form.values();
                form.restored_unsent = false;
                self.history
                    .record_with_sources(&form.slash_name, &arguments, &form.sources());
                let mut review = ReviewState::new(form, arguments, messages, self.options.format);
                review.screen = self.size;
                // Opened in a format that leaves something out (`--format anthropic`): said
                // now, not only when the format is cycled to.
                let notes = review.export_notes_said();
                self.screen = Screen::Review(Box::new(review));
                if let Some(notes) = notes {
                    self.notify(notes);
                }
                let mut effects = vec![Effect::SaveHistory(self.history.clone())];
                if forgot {
                    effects.push(Effect::SaveFormDrafts(self.form_drafts.clone()));
                }
                effects
            }
            Ok(GetOutcome::InputRequired(request)) => {
                let arguments = form.arguments();
                self.screen =
                    Screen::Questions(Box::new(QuestionsState::new(form, arguments, request)));
                Vec::new()
            }
            Err(error) => {
                if let McpError::SignInRequired {
                    server, challenge, ..
                } = &error
                {
                    self.sign_ins.insert(server.clone(), challenge.clone());
                }
                // Invalid params: the list the form was built from (the catalog's, or a
                // live one the server changed without saying) may be out of date. Listing
                // again lets `form_follows_list` show the arguments the server wants now.
                // A skill refused by verification: its listing is out of date (or lies), and
                // the SEP's way back is a fresh entry; the user picks again from that.
                let refused_skill =
                    form.prompt.skill.is_some() && matches!(&error, McpError::SkillRefused(_));
                let relist = (refused_skill
                    || matches!(&error, McpError::Server { code: -32602, .. }))
                .then(|| Effect::Relist {
                    server: form.prompt.server.clone(),
                });
                form.error = Some(describe_error(&error));
                self.screen = Screen::Form(Box::new(form));
                relist.into_iter().collect()
            }
        }
    }
}

impl App {
    /// Keeps the open form's unsent values (or forgets them, when it is back to what it
    /// opened with); the effect that writes them down, when they changed.
    pub(in crate::app) fn keep_unsent(&mut self) -> Option<Effect> {
        let Screen::Form(form) = &self.screen else {
            return None;
        };
        if form.fetching.is_some() && !form.awaiting_server {
            return None;
        }
        let changed = if form.has_unsent() {
            self.form_drafts.keep(&form.slash_name, form.values())
        } else {
            self.form_drafts.forget(&form.slash_name)
        };
        changed.then(|| Effect::SaveFormDrafts(self.form_drafts.clone()))
    }

    /// Puts `form`'s values left unsent last time back in its fields.
    pub(in crate::app) fn restore_unsent(&self, form: &mut FormState) {
        if let Some(values) = self.form_drafts.get(&form.slash_name) {
            form.restore_unsent(values);
        }
    }
}
