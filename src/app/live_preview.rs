//! The form's live preview: the messages `prompts/get` returns for the values typed so
//! far, asked a moment after the last edit, one request at a time. Opt-in per server
//! (`live_preview`), since a server's `prompts/get` may cost or have effects; F2 toggles it
//! for the run. A submit with the values the preview was asked for takes its answer.

use crate::app::Effect;
use std::collections::BTreeMap;

use crate::model::PromptMessages;

/// Ticks of quiet typing before the preview is asked (4 × 80 ms ≈ 300 ms).
pub const PREVIEW_DEBOUNCE_TICKS: u64 = 4;

/// What the pane shows and what is asked, for one form.
#[derive(Debug, Clone, Default)]
pub struct LivePreview {
    /// Set up for this form (from the config and this run's toggles).
    pub(in crate::app) started: bool,
    /// Asked as the values change.
    pub enabled: bool,
    /// On although the config leaves it off for this server: the pane says what that means.
    pub opted_in: bool,
    /// When to ask (a tick), after the last edit.
    pub due: Option<u64>,
    /// The server was down when the preview was due: asked again once it is up.
    pub waits_for_server: bool,
    /// The request in flight.
    pub in_flight: Option<PreviewRequest>,
    /// The last answer.
    pub answer: Option<PreviewAnswer>,
    /// Rows of the pane scrolled past.
    pub scroll: usize,
}

/// A preview request in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewRequest {
    /// Its id (its answer comes as [`Msg::Fetched`] with it).
    pub id: u64,
    /// The arguments it carries.
    pub arguments: BTreeMap<String, String>,
    /// The tick it left at.
    pub since_tick: u64,
}

/// The last answer the preview got.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewAnswer {
    /// The arguments it answers.
    pub arguments: BTreeMap<String, String>,
    /// What the server said.
    pub outcome: PreviewOutcome,
    /// When it came (ms since the run began).
    pub at_ms: u64,
    /// Each message's body laid out, kept while the answer stays (the form draws it every
    /// frame).
    pub layouts: Vec<crate::render::rows::BodyLayout>,
}

impl PreviewAnswer {
    /// Message `index`'s body rows at `width` (laid out once per width and style).
    pub fn rows(
        &self,
        index: usize,
        content: &crate::model::Content,
        width: usize,
        style: crate::render::RowStyle,
    ) -> crate::render::rows::Rows {
        match self.layouts.get(index) {
            Some(layout) => layout.rows(content, width, style),
            None => std::sync::Arc::new(crate::render::message_rows(content, width, style)),
        }
    }
}

/// What `prompts/get` answered for the preview.
#[derive(Debug, Clone, PartialEq)]
pub enum PreviewOutcome {
    /// The filled prompt.
    Messages(PromptMessages),
    /// The server asks questions first (`input_required`): they come on submit.
    InputRequired,
    /// The server refused (an invalid value, say): a soft note, not a notice.
    Error(String),
}

impl LivePreview {
    /// Whether a request is due or in flight (the spinner and the debounce need ticks).
    pub fn wants_ticks(&self) -> bool {
        self.enabled && (self.due.is_some() || self.in_flight.is_some())
    }

    /// The messages of the last answer, when it was a full one for exactly `arguments`:
    /// a submit with these values needs no second `prompts/get`.
    pub fn reusable(&self, arguments: &BTreeMap<String, String>) -> Option<PromptMessages> {
        let answer = self.answer.as_ref()?;
        match &answer.outcome {
            PreviewOutcome::Messages(messages) if &answer.arguments == arguments => {
                Some(messages.clone())
            }
            _ => None,
        }
    }

    /// Drops the request in flight, if any; the effect tells the server.
    pub(in crate::app) fn cancel(&mut self) -> Option<Effect> {
        self.in_flight
            .take()
            .map(|request| Effect::CancelFetch { id: request.id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::app::tests::{arg, form, key, messages, prompt, ready_app, type_text};
    use crate::app::{App, Msg, Screen};
    use crate::mcp::{GetOutcome, McpError, McpEvent};
    use crate::model::Role;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    /// `ready_app` with the live preview on for `everything`, on args-prompt's form
    /// (`city` required, `state` optional).
    fn previewing_app() -> App {
        let mut app = ready_app();
        app.options.live_preview.insert("everything".into());
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        assert_eq!(form(&app).prompt.name, "args-prompt");
        app
    }

    fn fetches(effects: &[Effect]) -> Vec<(u64, BTreeMap<String, String>)> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Fetch { id, arguments, .. } => Some((*id, arguments.clone())),
                _ => None,
            })
            .collect()
    }

    fn ticks(app: &mut App, count: usize) -> Vec<Effect> {
        (0..count).flat_map(|_| app.update(Msg::Tick)).collect()
    }

    fn city(value: &str) -> BTreeMap<String, String> {
        [("city".to_string(), value.to_string())].into()
    }

    fn f2() -> Msg {
        Msg::Key(KeyEvent::new(KeyCode::F(2), KeyModifiers::NONE))
    }

    /// Types `text`, lets the debounce pass and returns the preview request's id.
    fn type_and_wait(app: &mut App, text: &str) -> u64 {
        type_text(app, text);
        let sent = fetches(&ticks(app, PREVIEW_DEBOUNCE_TICKS as usize));
        assert_eq!(sent.len(), 1, "{sent:?}");
        sent[0].0
    }

    #[test]
    fn the_preview_is_asked_300_ms_after_the_last_key_and_typing_again_waits_again() {
        let mut app = previewing_app();
        let typed = type_text(&mut app, "Par");
        assert!(
            fetches(&typed).is_empty(),
            "nothing while typing: {typed:?}"
        );
        // 3 ticks (240 ms): nothing yet.
        assert!(fetches(&ticks(&mut app, 3)).is_empty());
        // Typing again before the fourth: the wait starts over.
        type_text(&mut app, "is");
        assert!(fetches(&ticks(&mut app, 3)).is_empty());
        let sent = fetches(&ticks(&mut app, 1));
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].1, city("Paris"));
        assert!(app.wants_ticks(), "the spinner turns while it is in flight");
        // Quiet: nothing more is asked.
        assert!(fetches(&ticks(&mut app, 10)).is_empty());
    }

    #[test]
    fn a_newer_request_cancels_the_one_in_flight_and_its_late_answer_is_dropped() {
        let mut app = previewing_app();
        let first = type_and_wait(&mut app, "Par");
        type_text(&mut app, "is");
        let effects = ticks(&mut app, PREVIEW_DEBOUNCE_TICKS as usize);
        assert!(
            effects.contains(&Effect::CancelFetch { id: first }),
            "{effects:?}"
        );
        let sent = fetches(&effects);
        assert_eq!(sent.len(), 1);
        let (second, arguments) = sent[0].clone();
        assert_eq!(arguments, city("Paris"));
        // The first one's answer comes anyway: stale, dropped, the form stays.
        app.update(Msg::Fetched {
            id: first,
            result: Ok(GetOutcome::Messages(messages(&[(Role::User, "Par")]))),
        });
        assert!(form(&app).preview.answer.is_none());
        assert!(form(&app).preview.in_flight.is_some());
        app.update(Msg::Fetched {
            id: second,
            result: Ok(GetOutcome::Messages(messages(&[(Role::User, "Paris")]))),
        });
        let answer = form(&app)
            .preview
            .answer
            .clone()
            .expect("the answer is shown");
        assert_eq!(answer.arguments, city("Paris"));
        assert_eq!(
            answer.outcome,
            PreviewOutcome::Messages(messages(&[(Role::User, "Paris")]))
        );
        assert!(form(&app).preview.in_flight.is_none());
        assert!(form(&app).error.is_none(), "no error on the form");
    }

    #[test]
    fn a_server_without_live_preview_is_sent_nothing_until_f2_turns_it_on_for_the_run() {
        let mut app = ready_app();
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        type_text(&mut app, "Paris");
        assert!(fetches(&ticks(&mut app, 10)).is_empty(), "off by default");
        assert!(!form(&app).preview.enabled);
        // F2: asked at once, and the pane says what that means.
        let sent = fetches(&app.update(f2()));
        assert_eq!(sent.len(), 1, "asked at once");
        let id = sent[0].0;
        assert!(form(&app).preview.enabled && form(&app).preview.opted_in);
        // F2 again: off, and what is in flight is cancelled.
        let effects = app.update(f2());
        assert_eq!(effects, vec![Effect::CancelFetch { id }]);
        assert!(!form(&app).preview.enabled);
        type_text(&mut app, "!");
        assert!(fetches(&ticks(&mut app, 10)).is_empty());
        // On again; back to the menu and into the form again: still on (for the run).
        app.update(f2());
        app.update(key(KeyCode::Esc));
        app.update(crate::app::tests::ctrl('u'));
        type_text(&mut app, "args-prompt");
        app.update(key(KeyCode::Enter));
        assert!(form(&app).preview.enabled && form(&app).preview.opted_in);
    }

    #[test]
    fn a_server_on_by_default_is_previewed_when_the_form_opens_without_the_warning() {
        let mut app = ready_app();
        app.options.live_preview.insert("everything".into());
        type_text(&mut app, "simple-prompt");
        // No argument is required: the first preview goes as the form opens.
        let sent = fetches(&app.update(key(KeyCode::Enter)));
        assert_eq!(sent, vec![(sent[0].0, BTreeMap::new())]);
        assert!(form(&app).preview.enabled && !form(&app).preview.opted_in);
    }

    #[test]
    fn a_missing_required_argument_sends_nothing_and_says_what_to_fill() {
        let mut app = previewing_app();
        assert!(fetches(&ticks(&mut app, 10)).is_empty());
        assert_eq!(form(&app).missing_for_preview(), ["city"]);
        // An optional one filled changes nothing.
        app.update(key(KeyCode::Tab));
        type_text(&mut app, "TX");
        assert!(fetches(&ticks(&mut app, 10)).is_empty());
    }

    #[test]
    fn a_refusal_is_a_soft_note_on_the_pane_not_the_forms_error() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Atlantis");
        let notices_before = app.notices.len();
        app.update(Msg::Fetched {
            id,
            result: Err(McpError::Server {
                code: -32602,
                message: "no such city".into(),
                data: None,
            }),
        });
        let form = form(&app);
        assert!(form.error.is_none());
        assert!(
            matches!(&form.preview.answer, Some(PreviewAnswer { outcome: PreviewOutcome::Error(e), .. }) if e.contains("no such city"))
        );
        assert_eq!(app.notices.len(), notices_before, "no notice");
    }

    #[test]
    fn submitting_the_values_previewed_takes_the_preview_answer_without_a_second_get() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Paris");
        app.update(Msg::Fetched {
            id,
            result: Ok(GetOutcome::Messages(messages(&[(
                Role::User,
                "About Paris",
            )]))),
        });
        let effects = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('s'),
            KeyModifiers::CONTROL,
        )));
        assert!(fetches(&effects).is_empty(), "{effects:?}");
        let Screen::Review(review) = &app.screen else {
            panic!("expected the review, got {:?}", app.screen);
        };
        assert_eq!(review.items.len(), 1);
        assert!(effects.iter().any(|e| matches!(e, Effect::SaveHistory(_))));
    }

    #[test]
    fn the_preview_s_rows_are_kept_and_its_code_past_what_the_loop_affords_laid_out_by_a_task() {
        crate::render::highlight::load();
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Paris");
        let block = format!("```rust\n{}```\n\n", "let x = 1;\n".repeat(300));
        app.update(Msg::Fetched {
            id,
            result: Ok(GetOutcome::Messages(messages(&[(
                Role::User,
                &block.repeat(3),
            )]))),
        });
        let style = crate::render::RowStyle {
            rendered: true,
            color: true,
        };
        let rows = |app: &App| {
            let answer = form(app).preview.answer.as_ref().unwrap();
            let PreviewOutcome::Messages(messages) = &answer.outcome else {
                panic!("messages expected");
            };
            answer.rows(0, &messages.messages[0].content, 60, style)
        };
        let first = rows(&app);
        assert!(
            std::sync::Arc::ptr_eq(&first, &rows(&app)),
            "laid out once, not every frame"
        );
        let asked: Vec<Effect> = app.layouts_wanted();
        let [Effect::LayOutBody { body, key, content }] = asked.as_slice() else {
            panic!("one whole layout expected, got {asked:?}");
        };
        let whole = crate::render::rows::whole_rows(content, *key);
        app.update(Msg::BodyLaidOut {
            body: *body,
            key: *key,
            rows: whole.clone(),
        });
        assert!(std::sync::Arc::ptr_eq(&rows(&app), &whole));
    }

    #[test]
    fn submitting_other_values_fetches_and_cancels_the_preview_in_flight() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Paris");
        app.update(Msg::Fetched {
            id,
            result: Ok(GetOutcome::Messages(messages(&[(
                Role::User,
                "About Paris",
            )]))),
        });
        type_text(&mut app, "!");
        let effects = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('s'),
            KeyModifiers::CONTROL,
        )));
        assert_eq!(fetches(&effects).len(), 1, "{effects:?}");
        assert_eq!(fetches(&effects)[0].1, city("Paris!"));
        // A preview in flight for other values is cancelled by the submit.
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Rome");
        type_text(&mut app, "!");
        let effects = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('s'),
            KeyModifiers::CONTROL,
        )));
        assert!(effects.contains(&Effect::CancelFetch { id }), "{effects:?}");
        assert_eq!(fetches(&effects).len(), 1);
    }

    #[test]
    fn submitting_while_the_preview_of_the_same_values_is_in_flight_awaits_it() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Paris");
        let effects = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('s'),
            KeyModifiers::CONTROL,
        )));
        assert!(effects.is_empty(), "{effects:?}");
        assert_eq!(form(&app).fetching.map(|(f, _)| f), Some(id));
        app.update(Msg::Fetched {
            id,
            result: Ok(GetOutcome::Messages(messages(&[(
                Role::User,
                "About Paris",
            )]))),
        });
        assert!(matches!(app.screen, Screen::Review(_)));
    }

    #[test]
    fn a_review_from_the_preview_cancels_a_newer_one_and_its_form_waits_for_nothing() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Rome");
        app.update(Msg::Fetched {
            id,
            result: Ok(GetOutcome::Messages(messages(&[(
                Role::User,
                "About Rome",
            )]))),
        });
        // Another value asked, then typing back to the one answered.
        let newer = type_and_wait(&mut app, "!");
        app.update(key(KeyCode::Backspace));
        let effects = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('s'),
            KeyModifiers::CONTROL,
        )));
        assert!(fetches(&effects).is_empty(), "{effects:?}");
        assert!(
            effects.contains(&Effect::CancelFetch { id: newer }),
            "{effects:?}"
        );
        // Back on the form: nothing in flight, the answer still shown.
        app.update(key(KeyCode::Esc));
        assert!(form(&app).preview.in_flight.is_none());
        assert!(form(&app).preview.answer.is_some());
        assert!(!form(&app).preview.wants_ticks());
    }

    #[test]
    fn leaving_the_form_cancels_the_preview_in_flight() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Paris");
        let effects = app.update(key(KeyCode::Esc));
        // (What was typed is kept as unsent, too.)
        assert!(
            matches!(&effects[..], [Effect::SaveFormDrafts(_), Effect::CancelFetch { id: i }] if *i == id),
            "{effects:?}"
        );
        assert!(matches!(app.screen, Screen::Picker));
        assert!(!app.wants_ticks());
    }

    #[test]
    fn input_required_says_questions_come_on_submit() {
        let mut app = previewing_app();
        let id = type_and_wait(&mut app, "Paris");
        app.update(Msg::Fetched {
            id,
            result: Ok(GetOutcome::InputRequired(crate::mcp::InputRequest {
                questions: Vec::new(),
                request_state: None,
            })),
        });
        assert!(matches!(app.screen, Screen::Form(_)), "the form stays");
        assert!(matches!(
            form(&app).preview.answer,
            Some(PreviewAnswer {
                outcome: PreviewOutcome::InputRequired,
                ..
            })
        ));
        // Such an answer is no submit's: Ctrl-S asks the server.
        let effects = app.update(Msg::Key(KeyEvent::new(
            KeyCode::Char('s'),
            KeyModifiers::CONTROL,
        )));
        assert_eq!(fetches(&effects).len(), 1);
    }

    #[test]
    fn the_preview_of_a_cached_prompt_waits_for_its_server_then_goes() {
        let mut app = crate::app::cached_tests::starting_with_cached_py();
        app.options.live_preview.insert("py".into());
        app.update(key(KeyCode::Enter));
        assert_eq!(form(&app).prompt.name, "greet");
        type_text(&mut app, "Ann");
        let waited = ticks(&mut app, 10);
        assert!(fetches(&waited).is_empty(), "{waited:?}");
        assert!(form(&app).error.is_none(), "no error while it starts");
        let effects = app.update(Msg::Mcp(McpEvent::Ready {
            server: "py".into(),
            details: crate::app::tests::details(false),
            prompts: vec![prompt("py", "greet", vec![arg("name", true)])],
        }));
        let sent = fetches(&effects);
        assert_eq!(
            sent,
            vec![(sent[0].0, [("name".to_string(), "Ann".to_string())].into())]
        );
    }
}
