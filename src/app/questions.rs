//! The server's questions (a 2026-07-28 `input_required` result, or a legacy server's
//! mid-request `elicitation/create`, which the connection hands out the same way):
//! elicitation forms shown as fields, answered with accept, decline or cancel, then the
//! request is retried (or, for a legacy server, goes on with the answer).

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;
use serde_json::{Map, Value};

use super::form::{FormState, editor_with};
use super::keys::Action;
use crate::mcp::{Answer, FieldKind, FormField, InputAnswers, InputRequest, QuestionKind};

/// The value being given to one field.
#[derive(Debug, Clone)]
pub enum QuestionValue {
    /// Text or a number, typed.
    Text(Box<TextArea<'static>>),
    /// Yes, no, or not chosen yet.
    Bool(Option<bool>),
    /// One choice (index into the field's values), or none yet.
    Choice(Option<usize>),
    /// Several choices, with the cursor among them.
    Multi {
        /// Which values are picked.
        picked: Vec<bool>,
        /// The value under the cursor.
        cursor: usize,
    },
}

/// One field of one question.
#[derive(Debug, Clone)]
pub struct QuestionField {
    /// The key of the question it belongs to.
    pub question: String,
    /// The schema's field.
    pub field: FormField,
    /// The value.
    pub value: QuestionValue,
    /// The last check's complaint about it.
    pub problem: Option<String>,
}

/// The questions screen.
#[derive(Debug, Clone)]
pub struct QuestionsState {
    /// The form that asked (its values are kept for going back).
    pub form: FormState,
    /// The arguments of the request being retried.
    pub arguments: BTreeMap<String, String>,
    /// What the server asked.
    pub request: InputRequest,
    /// Every field of every form question, in order.
    pub fields: Vec<QuestionField>,
    /// The focused field.
    pub focus: usize,
    /// The retry in flight: request id and the tick it started.
    pub fetching: Option<(u64, u64)>,
    /// The complaint put in the status bar by the last check, withdrawn once answered.
    pub problem_notice: Option<String>,
}

/// What a questions action leads to.
pub(super) enum Outcome {
    Nothing,
    Message(String),
    Answer(InputAnswers),
    CancelFetch(u64),
}

fn initial_value(field: &FormField) -> QuestionValue {
    match &field.kind {
        FieldKind::Text { .. } | FieldKind::Number { .. } => {
            let text = match &field.default {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => String::new(),
            };
            QuestionValue::Text(Box::new(editor_with(&text)))
        }
        FieldKind::Boolean => QuestionValue::Bool(field.default.as_ref().and_then(Value::as_bool)),
        FieldKind::Choice {
            values,
            multiple: false,
            ..
        } => QuestionValue::Choice(
            field
                .default
                .as_ref()
                .and_then(Value::as_str)
                .and_then(|d| values.iter().position(|v| v == d)),
        ),
        FieldKind::Choice {
            values,
            multiple: true,
            ..
        } => {
            let defaults: Vec<&str> = field
                .default
                .as_ref()
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            QuestionValue::Multi {
                picked: values
                    .iter()
                    .map(|v| defaults.contains(&v.as_str()))
                    .collect(),
                cursor: 0,
            }
        }
    }
}

impl QuestionsState {
    /// The screen for `request`, asked while fetching `form`'s prompt with `arguments`.
    pub fn new(
        form: FormState,
        arguments: BTreeMap<String, String>,
        request: InputRequest,
    ) -> QuestionsState {
        let fields = request
            .questions
            .iter()
            .flat_map(|q| match &q.kind {
                QuestionKind::Form { fields, .. } => fields
                    .iter()
                    .map(|f| QuestionField {
                        question: q.key.clone(),
                        value: initial_value(f),
                        field: f.clone(),
                        problem: None,
                    })
                    .collect(),
                QuestionKind::Unsupported { .. } => Vec::new(),
            })
            .collect();
        QuestionsState {
            form,
            arguments,
            request,
            fields,
            focus: 0,
            fetching: None,
            problem_notice: None,
        }
    }

    fn answers(&self, make: impl Fn(&str) -> Answer) -> InputAnswers {
        InputAnswers {
            answers: self
                .request
                .questions
                .iter()
                .map(|q| (q.key.clone(), make(&q.key)))
                .collect(),
            request_state: self.request.request_state.clone(),
        }
    }

    /// Checks every field and builds the accepted answers (unsupported questions are declined).
    fn accept(&mut self) -> Result<InputAnswers, String> {
        let mut contents: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
        let mut first_problem = None;
        for (index, field) in self.fields.iter_mut().enumerate() {
            field.problem = None;
            match typed_value(field) {
                Ok(Some(value)) => {
                    contents
                        .entry(field.question.clone())
                        .or_default()
                        .insert(field.field.name.clone(), value);
                }
                Ok(None) if field.field.required => field.problem = Some("required".into()),
                Ok(None) => {}
                Err(problem) => field.problem = Some(problem),
            }
            if field.problem.is_some() && first_problem.is_none() {
                first_problem = Some(index);
            }
        }
        if let Some(index) = first_problem {
            self.focus = index;
            let field = &self.fields[index];
            return Err(format!(
                "{}: {}",
                field.field.title.as_deref().unwrap_or(&field.field.name),
                field.problem.as_deref().unwrap_or("")
            ));
        }
        let forms: Vec<String> = self
            .request
            .questions
            .iter()
            .filter(|q| matches!(q.kind, QuestionKind::Form { .. }))
            .map(|q| q.key.clone())
            .collect();
        Ok(self.answers(|key| {
            if forms.iter().any(|f| f == key) {
                Answer::Accept(contents.get(key).cloned().unwrap_or_default())
            } else {
                Answer::Decline
            }
        }))
    }

    /// Runs an action.
    pub(super) fn action(&mut self, action: Action) -> Outcome {
        if let Some((id, _)) = self.fetching {
            if action == Action::Back {
                self.fetching = None;
                return Outcome::CancelFetch(id);
            }
            return Outcome::Nothing;
        }
        let last = self.fields.len().saturating_sub(1);
        match action {
            Action::NextField => {
                self.focus = if self.focus >= last {
                    0
                } else {
                    self.focus + 1
                }
            }
            Action::PrevField => {
                self.focus = if self.focus == 0 {
                    last
                } else {
                    self.focus - 1
                }
            }
            Action::NextOrSubmit if self.focus < last => self.focus += 1,
            Action::NextOrSubmit | Action::Submit => {
                return match self.accept() {
                    Ok(answers) => Outcome::Answer(answers),
                    Err(problem) => {
                        self.problem_notice = Some(problem.clone());
                        Outcome::Message(problem)
                    }
                };
            }
            Action::Decline => return Outcome::Answer(self.answers(|_| Answer::Decline)),
            Action::Undo | Action::Redo => {
                if let Some(QuestionField {
                    value: QuestionValue::Text(editor),
                    ..
                }) = self.fields.get_mut(self.focus)
                {
                    if action == Action::Undo {
                        editor.undo();
                    } else {
                        editor.redo();
                    }
                }
            }
            Action::Back => return Outcome::Answer(self.answers(|_| Answer::Cancel)),
            _ => {}
        }
        Outcome::Nothing
    }

    /// Typing into the focused field; Space and arrows choose for booleans and choices.
    pub(super) fn type_key(&mut self, key: KeyEvent) {
        if self.fetching.is_some() {
            return;
        }
        let Some(field) = self.fields.get_mut(self.focus) else {
            return;
        };
        let count = match &field.field.kind {
            FieldKind::Choice { values, .. } => values.len(),
            _ => 0,
        };
        field.problem = None;
        match &mut field.value {
            QuestionValue::Text(editor) if !matches!(key.code, KeyCode::Enter | KeyCode::Tab) => {
                super::line::edit_area(editor, key);
            }
            QuestionValue::Text(_) => {}
            QuestionValue::Bool(value) => match key.code {
                KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right => {
                    *value = Some(!value.unwrap_or(false))
                }
                KeyCode::Char('y') => *value = Some(true),
                KeyCode::Char('n') => *value = Some(false),
                _ => {}
            },
            QuestionValue::Choice(choice) if count > 0 => match key.code {
                KeyCode::Char(' ') | KeyCode::Right => {
                    *choice = Some(choice.map_or(0, |c| (c + 1) % count))
                }
                KeyCode::Left => {
                    *choice = Some(choice.map_or(count - 1, |c| (c + count - 1) % count))
                }
                _ => {}
            },
            QuestionValue::Multi { picked, cursor } if count > 0 => match key.code {
                KeyCode::Right => *cursor = (*cursor + 1) % count,
                KeyCode::Left => *cursor = (*cursor + count - 1) % count,
                KeyCode::Char(' ') => picked[*cursor] = !picked[*cursor],
                _ => {}
            },
            _ => {}
        }
    }

    /// Pasted text goes into a text field.
    pub(super) fn paste(&mut self, text: &str) {
        if let Some(QuestionField {
            value: QuestionValue::Text(editor),
            ..
        }) = self.fields.get_mut(self.focus)
        {
            editor.insert_str(text);
        }
    }

    /// The focused text field's value, replaced (from `$EDITOR`).
    pub(super) fn set_focused_text(&mut self, text: &str) {
        if let Some(QuestionField {
            value: QuestionValue::Text(editor),
            ..
        }) = self.fields.get_mut(self.focus)
        {
            **editor = editor_with(text.strip_suffix('\n').unwrap_or(text));
        }
    }
}

/// The field's value typed per its schema; `None` when nothing was given.
fn typed_value(field: &QuestionField) -> Result<Option<Value>, String> {
    match (&field.value, &field.field.kind) {
        // The CLI reads `--answer` values with the same checks.
        (QuestionValue::Text(editor), _) => field
            .field
            .value_from_text(&editor.lines().join("\n"))
            .map_err(|e| e.to_string()),
        (QuestionValue::Bool(value), _) => Ok(value.map(Value::Bool)),
        (QuestionValue::Choice(choice), FieldKind::Choice { values, .. }) => Ok(choice
            .and_then(|c| values.get(c))
            .map(|v| Value::String(v.clone()))),
        (QuestionValue::Multi { picked, .. }, FieldKind::Choice { values, .. }) => {
            let chosen: Vec<Value> = values
                .iter()
                .zip(picked)
                .filter(|(_, p)| **p)
                .map(|(v, _)| Value::String(v.clone()))
                .collect();
            Ok((!chosen.is_empty()).then_some(Value::Array(chosen)))
        }
        _ => Ok(None),
    }
}
