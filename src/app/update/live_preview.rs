//! The form's live preview: when to ask the server, and what its answers do.

use crate::app::live_preview::PREVIEW_DEBOUNCE_TICKS;
use crate::app::{
    Action, App, Effect, FormState, PreviewAnswer, PreviewOutcome, PreviewRequest, Screen,
    ServerState, areas, describe_error,
};
use crate::mcp::{GetOutcome, McpError};

impl FormState {
    /// After an edit: the preview is asked once typing pauses (a new edit moves it on).
    pub(in crate::app) fn preview_edited(&mut self, tick: u64) {
        if self.preview.enabled {
            self.preview.due = Some(tick + PREVIEW_DEBOUNCE_TICKS);
        }
    }

    /// The required arguments still empty (their names): the preview waits for them.
    pub fn missing_for_preview(&self) -> Vec<String> {
        self.fields
            .iter()
            .filter(|f| f.arg.required && f.value().trim().is_empty())
            .map(|f| f.arg.name.clone())
            .collect()
    }

    /// The preview request to send now, if one is due: a newer request cancels the one in
    /// flight. `server` is the state of the prompt's server.
    pub(in crate::app) fn due_preview(
        &mut self,
        tick: u64,
        id: u64,
        server: Option<&ServerState>,
    ) -> Vec<Effect> {
        if !self.preview.enabled
            || self.fetching.is_some()
            || self.preview.due.is_none_or(|due| tick < due)
        {
            return Vec::new();
        }
        match server {
            // No such server in the status list (tests, a one-off): ask.
            None | Some(ServerState::Ready { .. }) => {}
            // Still starting: the request waits, without errors, and goes once it is up.
            Some(ServerState::Connecting) => return Vec::new(),
            Some(_) => {
                self.preview.due = None;
                self.preview.waits_for_server = true;
                return Vec::new();
            }
        }
        self.preview.due = None;
        self.preview.waits_for_server = false;
        let mut effects = Vec::new();
        if !self.missing_for_preview().is_empty() {
            // Nothing to ask yet; what is in flight is for values no longer there.
            effects.extend(self.preview.cancel());
            return effects;
        }
        let arguments = self.arguments();
        if self
            .preview
            .in_flight
            .as_ref()
            .is_some_and(|r| r.arguments == arguments)
            || self
                .preview
                .answer
                .as_ref()
                .is_some_and(|a| a.arguments == arguments)
        {
            // Asked already (typing came back to the same values).
            return effects;
        }
        effects.extend(self.preview.cancel());
        self.preview.in_flight = Some(PreviewRequest {
            id,
            arguments: arguments.clone(),
            since_tick: tick,
        });
        effects.push(Effect::Fetch {
            id,
            server: self.prompt.server.clone(),
            prompt: self.prompt.name.clone(),
            arguments,
            answers: None,
            skill: self.prompt.skill.clone(),
        });
        effects
    }

    /// Takes a preview answer; `Err` gives the result back when `id` is no preview request
    /// of this form (the submit's, or a stale one the caller drops).
    pub(in crate::app) fn on_previewed(
        &mut self,
        id: u64,
        result: Result<GetOutcome, McpError>,
        now_ms: u64,
    ) -> Result<(), Result<GetOutcome, McpError>> {
        let Some(request) = self.preview.in_flight.take_if(|r| r.id == id) else {
            return Err(result);
        };
        let outcome = match result {
            Ok(GetOutcome::Messages(messages)) => PreviewOutcome::Messages(messages),
            Ok(GetOutcome::InputRequired(_)) => PreviewOutcome::InputRequired,
            Err(error) => PreviewOutcome::Error(describe_error(&error)),
        };
        let layouts = match &outcome {
            PreviewOutcome::Messages(messages) => messages
                .messages
                .iter()
                .map(|_| crate::render::rows::BodyLayout::default())
                .collect(),
            _ => Vec::new(),
        };
        self.preview.answer = Some(PreviewAnswer {
            arguments: request.arguments,
            outcome,
            at_ms: now_ms,
            layouts,
        });
        Ok(())
    }

    /// Turns the preview on (asked at once) or off (what is in flight is cancelled).
    pub(in crate::app) fn set_preview(
        &mut self,
        enabled: bool,
        opted_in: bool,
        tick: u64,
    ) -> Vec<Effect> {
        self.preview.started = true;
        self.preview.enabled = enabled;
        self.preview.opted_in = enabled && opted_in;
        if enabled {
            self.preview.due = Some(tick);
            Vec::new()
        } else {
            self.preview.due = None;
            self.preview.waits_for_server = false;
            self.preview.cancel().into_iter().collect()
        }
    }
}

impl App {
    /// Whether the live preview is on for `server` in this run: the config's default
    /// unless F2 changed it.
    fn preview_on(&self, server: &str) -> bool {
        self.preview_toggled
            .get(server)
            .copied()
            .unwrap_or_else(|| self.options.live_preview.contains(server))
    }

    /// After every message: a new form gets its preview set up (and asked at once), a
    /// preview that waited for its server goes once the server is up, and a preview left in
    /// flight by a form that is gone is cancelled.
    pub(in crate::app) fn settle_preview(&mut self, in_flight_before: Option<u64>) -> Vec<Effect> {
        let mut effects = Vec::new();
        let Screen::Form(form) = &self.screen else {
            if let Some(id) = in_flight_before {
                effects.push(Effect::CancelFetch { id });
            }
            return effects;
        };
        let server = form.prompt.server.clone();
        let ready = self
            .servers
            .iter()
            .find(|s| s.name == server)
            .is_none_or(|s| matches!(s.state, ServerState::Ready { .. }));
        let started = form.preview.started;
        let on = self.preview_on(&server);
        let default = self.options.live_preview.contains(&server);
        let tick = self.tick;
        let Screen::Form(form) = &mut self.screen else {
            return effects;
        };
        if !started {
            effects.extend(form.set_preview(on, !default, tick));
        } else if form.preview.waits_for_server && ready {
            form.preview.due = Some(tick);
        }
        if form.preview.due.is_some_and(|due| due <= tick) {
            effects.extend(self.preview_tick());
        }
        effects
    }

    /// The preview request in flight on the form, if any.
    pub(in crate::app) fn preview_in_flight(&self) -> Option<u64> {
        match &self.screen {
            Screen::Form(form) => form.preview.in_flight.as_ref().map(|r| r.id),
            _ => None,
        }
    }

    /// On a tick: the preview's request, if it is due.
    pub(in crate::app) fn preview_tick(&mut self) -> Vec<Effect> {
        let tick = self.tick;
        let id = self.next_id + 1;
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        let server = self
            .servers
            .iter()
            .find(|s| s.name == form.prompt.server)
            .map(|s| &s.state);
        let effects = form.due_preview(tick, id, server);
        if effects
            .iter()
            .any(|e| matches!(e, Effect::Fetch { id: sent, .. } if *sent == id))
        {
            self.next_id = id;
        }
        effects
    }

    /// A form action of the preview's (F2, PgUp/PgDn), or `None` for the form's own.
    pub(in crate::app) fn preview_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        if !matches!(
            action,
            Action::LivePreview | Action::PageUp | Action::PageDown
        ) {
            return None;
        }
        let page = areas::form_preview_on_screen(self)
            .height
            .saturating_sub(3)
            .max(1) as usize;
        let tick = self.tick;
        let default = {
            let Screen::Form(form) = &self.screen else {
                return None;
            };
            self.options.live_preview.contains(&form.prompt.server)
        };
        let Screen::Form(form) = &mut self.screen else {
            return None;
        };
        let effects = match action {
            Action::LivePreview => {
                let on = !form.preview.enabled;
                let server = form.prompt.server.clone();
                let effects = form.set_preview(on, !default, tick);
                self.preview_toggled.insert(server, on);
                effects
            }
            Action::PageUp => {
                form.preview.scroll = form.preview.scroll.saturating_sub(page);
                Vec::new()
            }
            _ => {
                // Not past the last page, so PgUp comes back at once.
                let width = areas::form_preview_on_screen(self).width.saturating_sub(2);
                let Screen::Form(form) = &mut self.screen else {
                    return None;
                };
                let rows = preview_rows(form, usize::from(width).max(1), self.options.color);
                form.preview.scroll = (form.preview.scroll + page).min(rows.saturating_sub(page));
                Vec::new()
            }
        };
        let mut effects = effects;
        if matches!(action, Action::LivePreview) {
            effects.extend(self.preview_tick());
        }
        Some(effects)
    }
}

/// How many rows the preview's messages take at `width`: a role line, the body, a blank.
pub fn preview_rows(form: &FormState, width: usize, color: bool) -> usize {
    let Some(
        answer @ PreviewAnswer {
            outcome: PreviewOutcome::Messages(messages),
            ..
        },
    ) = &form.preview.answer
    else {
        return 0;
    };
    let style = crate::render::RowStyle {
        rendered: true,
        color,
    };
    messages
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| 2 + answer.rows(i, &m.content, width, style).len())
        .sum()
}
