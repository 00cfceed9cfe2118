//! The fetch: `Asking builtin for the messages…`, then `3 messages.`; the questions a
//! server asks on the way (`input_required`, elicitation) asked one per line as the form's.

use std::collections::BTreeMap;

use serde_json::Map;

use super::lines::say;
use super::session::{Session, Step, Typed};
use super::words::{BACK_TO_MENU, DECLINE, sentence};
use crate::mcp::{Answer, FormField, GetOutcome, InputAnswers, InputRequest, QuestionKind};
use crate::model::PromptMessages;
use crate::search::Entry;
use crate::text::{counted, one_line};

impl Session {
    /// Fills `entry`'s prompt with `arguments` (or loads its skill), asking the server's
    /// questions on the way. A failure is said, and the menu comes back.
    pub(super) async fn fetch(
        &mut self,
        entry: &Entry,
        arguments: &BTreeMap<String, String>,
    ) -> Step<PromptMessages> {
        let prompt = entry.prompt.clone();
        let server = one_line(&prompt.server);
        let Some(connection) = self.hub.connection(&prompt.server) else {
            say(&format!(
                "Server {server} is not connected, so {} cannot be fetched now. Back to the menu.",
                one_line(&entry.command())
            ));
            return Step::Menu;
        };
        say(&format!("Asking {server} for the messages…"));
        let mut answers: Option<InputAnswers> = None;
        loop {
            let asking = connection.clone();
            let round = match prompt.skill.clone() {
                Some(manifest) => {
                    let task = arguments
                        .get(crate::mcp::skill_verify::TASK_ARGUMENT)
                        .cloned();
                    self.run_stoppable(async move {
                        asking
                            .load_skill(
                                &manifest,
                                task.as_deref(),
                                &[],
                                crate::library::skills::fill_skill,
                            )
                            .await
                            .map(GetOutcome::Messages)
                    })
                    .await
                }
                None => {
                    let name = prompt.name.clone();
                    let given = answers.take();
                    self.run_stoppable(async move {
                        asking
                            .get_prompt_round(&name, arguments, given.as_ref())
                            .await
                    })
                    .await
                }
            };
            match round {
                Err(_) => {
                    connection.decline_waiting_question();
                    say("Stopped: the request was cancelled. Back to the menu.");
                    return Step::Menu;
                }
                Ok(Err(error)) => {
                    say(&format!(
                        "Server {server} could not fill {}: {} Back to the menu.",
                        one_line(&entry.command()),
                        sentence(&error.to_string())
                    ));
                    return Step::Menu;
                }
                Ok(Ok(GetOutcome::Messages(messages))) => {
                    say(&format!(
                        "{}.",
                        counted(messages.messages.len(), "message", "messages")
                    ));
                    return Step::Go(messages);
                }
                Ok(Ok(GetOutcome::InputRequired(asked))) => {
                    match self.answer(&server, &asked).await {
                        Step::Go(given) => {
                            say(&format!("Sending the answers to {server}…"));
                            answers = Some(given);
                        }
                        Step::Menu => {
                            connection.decline_waiting_question();
                            say("The request was cancelled. Back to the menu.");
                            return Step::Menu;
                        }
                        Step::Quit(code) => {
                            connection.decline_waiting_question();
                            return Step::Quit(code);
                        }
                    }
                }
            }
        }
    }

    /// Asks one round of the server's questions, one field per line.
    async fn answer(&mut self, server: &str, request: &InputRequest) -> Step<InputAnswers> {
        let mut answers = Vec::new();
        for question in &request.questions {
            let (message, fields) = match &question.kind {
                QuestionKind::Form { message, fields } => (message, fields),
                QuestionKind::Unsupported { summary, .. } => {
                    say(&format!(
                        "Server {server} asks what mcpick cannot answer here, so it is declined: {}",
                        sentence(summary)
                    ));
                    answers.push((question.key.clone(), Answer::Decline));
                    continue;
                }
            };
            say(&format!("Server {server} asks: {}", sentence(message)));
            say(&format!(
                "{}. Type {DECLINE} to decline, {BACK_TO_MENU} to cancel the request.",
                counted(fields.len(), "question", "questions")
            ));
            let mut content = Map::new();
            let mut declined = false;
            'fields: for (at, field) in fields.iter().enumerate() {
                say(&format!(
                    "Question {} of {}: {}",
                    at + 1,
                    fields.len(),
                    field_words(field)
                ));
                loop {
                    let line = match self.read(&format!("{}> ", one_line(&field.name))).await {
                        Typed::Line(line) => line,
                        Typed::End => return Step::Quit(self.quit_code()),
                        Typed::Stopped(code) => return Step::Quit(code),
                    };
                    match line.trim() {
                        DECLINE => {
                            declined = true;
                            break 'fields;
                        }
                        BACK_TO_MENU => return Step::Menu,
                        _ => {}
                    }
                    match field.value_from_text(&line) {
                        Ok(Some(value)) => {
                            content.insert(field.name.clone(), value);
                            break;
                        }
                        Ok(None) => match &field.default {
                            Some(default) => {
                                content.insert(field.name.clone(), default.clone());
                                break;
                            }
                            None if !field.required => break,
                            None => say(&format!("Required: type a value, or {DECLINE}.")),
                        },
                        Err(problem) => say(&sentence(&problem.to_string())),
                    }
                }
            }
            if declined {
                say("Declined.");
            }
            answers.push((
                question.key.clone(),
                if declined {
                    Answer::Decline
                } else {
                    Answer::Accept(content)
                },
            ));
        }
        Step::Go(InputAnswers {
            answers,
            request_state: request.request_state.clone(),
        })
    }
}

/// A question's field in words: `Deploy now? Yes or no, required, default no.`
fn field_words(field: &FormField) -> String {
    let mut about = vec![field.expects()];
    if field.required {
        about.push("required".into());
    }
    if let Some(default) = &field.default {
        about.push(format!(
            "default {}",
            super::super::questions::shown_default(default)
        ));
    }
    let mut line = sentence(field.label());
    if let Some(description) = field
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    {
        line.push(' ');
        line.push_str(&sentence(description));
    }
    let about = about.join(", ");
    let mut chars = about.chars();
    let about: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    line.push(' ');
    line.push_str(&sentence(&about));
    line
}
