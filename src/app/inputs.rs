//! The inputs prompt: values a server's config asks for with `${input:ID}` (VS Code's
//! inputs), typed once before the servers that use them start, masked, kept in memory only.

use std::fmt;

use crossterm::event::KeyEvent;

use super::keys::Action;
use super::line::LineEditor;
use crate::config::{InputSpec, InputValues};
use crate::model::ServerId;

/// One input being typed.
#[derive(Clone, PartialEq, Eq)]
pub struct InputField {
    /// What it is.
    pub spec: InputSpec,
    /// The servers waiting for it, in config order.
    pub servers: Vec<ServerId>,
    /// What is typed so far.
    pub value: LineEditor,
}

// The value is a secret: Debug shows its length only.
impl fmt::Debug for InputField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputField")
            .field("spec", &self.spec)
            .field("servers", &self.servers)
            .field("value_chars", &self.value.text().chars().count())
            .finish()
    }
}

/// The prompt over the screen, one field per input id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputsPrompt {
    /// The fields, in the order the servers need them.
    pub fields: Vec<InputField>,
    /// The focused field.
    pub focus: usize,
}

/// What an action on the prompt leads to.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Keep typing.
    Nothing,
    /// Close the prompt; the servers keep waiting.
    Skip,
    /// These values were typed (fields left empty are not in it).
    Submit(InputValues),
}

impl InputsPrompt {
    /// A prompt for what `waiting` servers need; an input several servers use is one field.
    /// Values already typed in `previous` are kept.
    pub fn new(waiting: &[(ServerId, Vec<InputSpec>)], previous: Option<&InputsPrompt>) -> Self {
        let mut fields: Vec<InputField> = Vec::new();
        for (server, specs) in waiting {
            for spec in specs {
                match fields.iter_mut().find(|f| f.spec.id == spec.id) {
                    Some(field) => {
                        if !field.servers.contains(server) {
                            field.servers.push(server.clone());
                        }
                    }
                    None => fields.push(InputField {
                        spec: spec.clone(),
                        servers: vec![server.clone()],
                        value: previous
                            .and_then(|p| p.fields.iter().find(|f| f.spec.id == spec.id))
                            .map(|f| LineEditor::new(f.value.text()))
                            .unwrap_or_default(),
                    }),
                }
            }
        }
        InputsPrompt { fields, focus: 0 }
    }

    /// Runs a key action.
    pub fn action(&mut self, action: Action) -> Outcome {
        let count = self.fields.len();
        match action {
            Action::NextField | Action::Down => self.focus = (self.focus + 1) % count.max(1),
            Action::PrevField | Action::Up => {
                self.focus = (self.focus + count.max(1) - 1) % count.max(1)
            }
            Action::NextOrSubmit if self.focus + 1 < count => self.focus += 1,
            Action::NextOrSubmit | Action::Submit => return Outcome::Submit(self.values()),
            Action::Back => return Outcome::Skip,
            _ => {}
        }
        Outcome::Nothing
    }

    /// Types a key into the focused field.
    pub fn type_key(&mut self, key: KeyEvent) {
        let Some(field) = self.fields.get_mut(self.focus) else {
            return;
        };
        field.value.key(key);
    }

    /// Pastes into the focused field: one line, as a token is.
    pub fn paste(&mut self, text: &str) {
        if let Some(field) = self.fields.get_mut(self.focus) {
            let line = text.trim_end_matches(['\r', '\n']);
            field.value.insert_str(&line.replace(['\r', '\n'], ""));
        }
    }

    fn values(&self) -> InputValues {
        let mut values = InputValues::default();
        for field in self.fields.iter().filter(|f| !f.value.is_empty()) {
            values.insert(field.spec.id.clone(), field.value.text().to_string());
        }
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn spec(id: &str, description: &str) -> InputSpec {
        InputSpec {
            id: id.into(),
            description: description.into(),
            password: true,
        }
    }

    fn typed(prompt: &mut InputsPrompt, text: &str) {
        for c in text.chars() {
            prompt.type_key(KeyEvent::from(KeyCode::Char(c)));
        }
    }

    #[test]
    fn one_field_per_input_shared_by_servers_and_empty_ones_are_not_given() {
        let waiting = vec![
            (
                "acme".to_string(),
                vec![spec("key", "API key"), spec("region", "")],
            ),
            ("worker".to_string(), vec![spec("key", "API key")]),
        ];
        let mut prompt = InputsPrompt::new(&waiting, None);
        assert_eq!(prompt.fields.len(), 2);
        assert_eq!(prompt.fields[0].servers, ["acme", "worker"]);
        typed(&mut prompt, "s3cr3tX");
        prompt.type_key(KeyEvent::from(KeyCode::Backspace));
        assert!(!format!("{prompt:?}").contains("s3cr3t"));
        assert_eq!(prompt.action(Action::NextOrSubmit), Outcome::Nothing);
        assert_eq!(prompt.focus, 1);
        let Outcome::Submit(values) = prompt.action(Action::NextOrSubmit) else {
            panic!()
        };
        assert_eq!(values.get("key"), Some("s3cr3t"));
        assert_eq!(values.get("region"), None);
        assert_eq!(prompt.action(Action::Back), Outcome::Skip);
    }

    #[test]
    fn paste_takes_one_line_and_a_new_prompt_keeps_what_was_typed() {
        let waiting = vec![("acme".to_string(), vec![spec("key", "")])];
        let mut prompt = InputsPrompt::new(&waiting, None);
        prompt.paste("tok\r\nen\n");
        assert_eq!(prompt.fields[0].value.text(), "token");
        let more = vec![
            ("acme".to_string(), vec![spec("key", "")]),
            ("other".to_string(), vec![spec("pin", "")]),
        ];
        let again = InputsPrompt::new(&more, Some(&prompt));
        assert_eq!(again.fields[0].value.text(), "token");
        assert_eq!(again.fields[1].value.text(), "");
        prompt.type_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(prompt.fields[0].value.text(), "");
    }
}
