//! The questions a server asks before it answers `prompts/get`, and the answers: a
//! 2026-07-28 `input_required` result answered in the retry (multi round-trip requests), or
//! a legacy server's mid-request `elicitation/create` answered as its reply (the connection
//! presents both the same way). Also how a typed answer is read per field.

use serde_json::{Map, Value};

use crate::model::PromptMessages;

/// Why an answer does not fit its question's schema: said after the field's name, in the
/// form and on the command line alike.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnswerError {
    /// Text that is no number.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// A fraction where a whole number is asked for.
    #[error("must be a whole number")]
    NotWhole,
    /// A number outside the schema's bounds (as written: `-∞`, `∞` when open).
    #[error("must be between {minimum} and {maximum}")]
    OutOfRange {
        /// The lower bound.
        minimum: String,
        /// The upper bound.
        maximum: String,
    },
    /// Text shorter than `minLength`.
    #[error("needs at least {0} characters")]
    TooShort(u64),
    /// Text longer than `maxLength`.
    #[error("takes at most {0} characters")]
    TooLong(u64),
    /// Neither yes nor no.
    #[error("`{0}` is not yes or no")]
    NotYesOrNo(String),
    /// A word that is none of the choices (which are listed).
    #[error("`{word}` is not one of {choices}")]
    NotAChoice {
        /// The word given.
        word: String,
        /// The choices, comma-separated.
        choices: String,
    },
    /// A JSON item of a list of choices that is no choice.
    #[error("{0} is not one of the choices")]
    NotAChoiceItem(String),
    /// JSON of a kind the field does not take.
    #[error("{given} is not {expected}")]
    WrongKind {
        /// The JSON given.
        given: String,
        /// What the field takes.
        expected: String,
    },
}

/// What one `prompts/get` round gave: the messages, or questions to answer first.
#[derive(Debug, Clone, PartialEq)]
pub enum GetOutcome {
    /// The filled prompt.
    Messages(PromptMessages),
    /// The server needs answers before it fills the prompt; retry with [`InputAnswers`].
    InputRequired(InputRequest),
}

/// An `input_required` result: questions, and state to echo back untouched.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    /// The questions, in the server's order, with the server's keys.
    pub questions: Vec<Question>,
    /// The opaque `requestState`, echoed byte for byte in the retry.
    pub request_state: Option<String>,
}

/// One entry of `inputRequests`.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Its key in `inputRequests` (the answer goes under the same key).
    pub key: String,
    /// What is asked.
    pub kind: QuestionKind,
}

/// The kinds of question a server can ask.
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    /// A form-mode `elicitation/create`: a message and flat fields.
    Form {
        /// What the server says to the user.
        message: String,
        /// The fields of `requestedSchema`, in its order.
        fields: Vec<FormField>,
    },
    /// Anything mcpick answers by declining (URL elicitation, sampling, roots, unknown).
    Unsupported {
        /// The request's method, e.g. `sampling/createMessage`.
        method: String,
        /// One line saying what was asked, for the user.
        summary: String,
    },
}

/// One field of an elicitation form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// The property name (the key in the answer's `content`).
    pub name: String,
    /// A display label.
    pub title: Option<String>,
    /// What to enter.
    pub description: Option<String>,
    /// Whether the schema lists it in `required`.
    pub required: bool,
    /// The value's type.
    pub kind: FieldKind,
    /// The schema's `default`, if any.
    pub default: Option<Value>,
}

/// The primitive types an elicitation schema allows.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// A string (`format` such as `email`, `uri`, `date`; length limits).
    Text {
        /// The schema's `format`.
        format: Option<String>,
        /// `minLength`.
        min_length: Option<u64>,
        /// `maxLength`.
        max_length: Option<u64>,
    },
    /// A number or integer with optional bounds.
    Number {
        /// `integer` rather than `number`.
        integer: bool,
        /// `minimum`.
        minimum: Option<f64>,
        /// `maximum`.
        maximum: Option<f64>,
    },
    /// A boolean.
    Boolean,
    /// One of fixed values (`enum` / `oneOf` with `const`), or several (`array` of them).
    Choice {
        /// The values sent back.
        values: Vec<String>,
        /// Their display labels (same length as `values`).
        labels: Vec<String>,
        /// Whether several may be picked (an `array` field).
        multiple: bool,
    },
}

/// The user's answer to one question.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Submitted, with the form's values typed per the schema.
    Accept(Map<String, Value>),
    /// Refused to answer.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// Everything sent back with the retry.
#[derive(Debug, Clone, PartialEq)]
pub struct InputAnswers {
    /// One answer per question key.
    pub answers: Vec<(String, Answer)>,
    /// The `requestState` of the `input_required` result, unchanged.
    pub request_state: Option<String>,
}

impl FormField {
    /// The label shown for it: its title, else its name.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// What kind of value it takes, in a few words (`yes or no`, `a whole number from 1`,
    /// `one of red, green`).
    pub fn expects(&self) -> String {
        match &self.kind {
            FieldKind::Text { format, .. } => match format {
                Some(format) => format!("text ({format})"),
                None => "text".into(),
            },
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                let what = if *integer {
                    "a whole number"
                } else {
                    "a number"
                };
                match (minimum, maximum) {
                    (Some(min), Some(max)) => format!("{what} from {min} to {max}"),
                    (Some(min), None) => format!("{what} from {min}"),
                    (None, Some(max)) => format!("{what} up to {max}"),
                    (None, None) => what.into(),
                }
            }
            FieldKind::Boolean => "yes or no".into(),
            FieldKind::Choice {
                values,
                labels,
                multiple,
            } => {
                // The labels, as the menu's form shows them (`--answer` takes either).
                let list = choice_names(values, labels).join(", ");
                if *multiple {
                    format!("any of {list}, joined by commas")
                } else {
                    format!("one of {list}")
                }
            }
        }
    }

    /// A value typed as text, checked and typed per the schema: numbers parsed and bounded,
    /// text length-checked, `yes`/`no` (`true`/`false`, `y`/`n`, `1`/`0`) for booleans, a
    /// choice by its value or label, several choices joined by commas. `Ok(None)` for
    /// blank text (nothing given).
    pub fn value_from_text(&self, text: &str) -> Result<Option<Value>, AnswerError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        let value = match &self.kind {
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            } => {
                let number: f64 = text
                    .trim()
                    .parse()
                    .map_err(|_| AnswerError::NotANumber(text.trim().to_string()))?;
                if *integer && number.fract() != 0.0 {
                    return Err(AnswerError::NotWhole);
                }
                if minimum.is_some_and(|m| number < m) || maximum.is_some_and(|m| number > m) {
                    return Err(AnswerError::OutOfRange {
                        minimum: minimum.map_or("-∞".into(), |m| m.to_string()),
                        maximum: maximum.map_or("∞".into(), |m| m.to_string()),
                    });
                }
                if *integer {
                    Value::from(number as i64)
                } else {
                    serde_json::Number::from_f64(number)
                        .map(Value::Number)
                        .unwrap_or(Value::Null)
                }
            }
            FieldKind::Text {
                min_length,
                max_length,
                ..
            } => {
                let length = text.chars().count() as u64;
                if let Some(min) = min_length.filter(|m| length < *m) {
                    return Err(AnswerError::TooShort(min));
                }
                if let Some(max) = max_length.filter(|m| length > *m) {
                    return Err(AnswerError::TooLong(max));
                }
                Value::String(text.to_string())
            }
            FieldKind::Boolean => match text.trim().to_lowercase().as_str() {
                "yes" | "y" | "true" | "1" | "on" => Value::Bool(true),
                "no" | "n" | "false" | "0" | "off" => Value::Bool(false),
                other => return Err(AnswerError::NotYesOrNo(other.to_string())),
            },
            FieldKind::Choice {
                values,
                labels,
                multiple,
            } => {
                let pick = |word: &str| -> Result<Value, AnswerError> {
                    let word = word.trim();
                    values
                        .iter()
                        .position(|v| v == word)
                        .or_else(|| labels.iter().position(|l| l.eq_ignore_ascii_case(word)))
                        .map(|i| Value::String(values[i].clone()))
                        .ok_or_else(|| AnswerError::NotAChoice {
                            word: word.to_string(),
                            choices: choice_names(values, labels).join(", "),
                        })
                };
                if *multiple {
                    Value::Array(
                        text.split(',')
                            .filter(|w| !w.trim().is_empty())
                            .map(pick)
                            .collect::<Result<_, _>>()?,
                    )
                } else {
                    pick(text)?
                }
            }
        };
        Ok(Some(value))
    }

    /// A value given as JSON (`--answers-json`), checked per the schema: strings are read
    /// as [`FormField::value_from_text`] reads them, booleans, numbers and arrays of
    /// strings must fit the field.
    pub fn value_from_json(&self, value: &Value) -> Result<Option<Value>, AnswerError> {
        match (value, &self.kind) {
            (Value::Null, _) => Ok(None),
            (Value::String(text), _) => self.value_from_text(text),
            (Value::Bool(yes), FieldKind::Boolean) => Ok(Some(Value::Bool(*yes))),
            (Value::Number(number), FieldKind::Number { .. }) => {
                self.value_from_text(&number.to_string())
            }
            (Value::Array(items), FieldKind::Choice { multiple: true, .. }) => {
                let words: Vec<String> = items
                    .iter()
                    .map(|item| match item {
                        Value::String(word) if !word.contains(',') => Ok(word.clone()),
                        other => Err(AnswerError::NotAChoiceItem(other.to_string())),
                    })
                    .collect::<Result<_, _>>()?;
                match self.value_from_text(&words.join(","))? {
                    Some(value) => Ok(Some(value)),
                    None => Ok(Some(Value::Array(Vec::new()))),
                }
            }
            (other, _) => Err(AnswerError::WrongKind {
                given: other.to_string(),
                expected: self.expects(),
            }),
        }
    }
}

/// A choice field's names for a person: each value's label, or the value where the
/// schema gave it none.
fn choice_names<'a>(values: &'a [String], labels: &'a [String]) -> Vec<&'a str> {
    values
        .iter()
        .enumerate()
        .map(|(i, value)| match labels.get(i) {
            Some(label) if !label.trim().is_empty() => label.as_str(),
            _ => value.as_str(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(kind: FieldKind) -> FormField {
        FormField {
            name: "f".into(),
            title: None,
            description: None,
            required: false,
            kind,
            default: None,
        }
    }

    #[test]
    fn text_answers_are_typed_per_field() {
        let boolean = field(FieldKind::Boolean);
        for (text, value) in [
            ("yes", true),
            ("Y", true),
            ("true", true),
            ("0", false),
            ("no", false),
        ] {
            assert_eq!(
                boolean.value_from_text(text),
                Ok(Some(json!(value))),
                "{text}"
            );
        }
        assert_eq!(boolean.value_from_text("  "), Ok(None));
        let integer = field(FieldKind::Number {
            integer: true,
            minimum: None,
            maximum: Some(9.0),
        });
        assert_eq!(integer.value_from_text(" 7 "), Ok(Some(json!(7))));
        assert_eq!(integer.value_from_text("7.5"), Err(AnswerError::NotWhole));
        assert_eq!(
            integer.value_from_text("7.5").map_err(|e| e.to_string()),
            Err("must be a whole number".into())
        );
        assert_eq!(
            integer.value_from_text("10").map_err(|e| e.to_string()),
            Err("must be between -∞ and 9".into())
        );
        let number = field(FieldKind::Number {
            integer: false,
            minimum: None,
            maximum: None,
        });
        assert_eq!(number.value_from_text("2.5"), Ok(Some(json!(2.5))));
        let multi = field(FieldKind::Choice {
            values: vec!["a".into(), "b".into()],
            labels: vec!["Alpha".into(), "Beta".into()],
            multiple: true,
        });
        assert_eq!(multi.value_from_text("beta,a"), Ok(Some(json!(["b", "a"]))));
        assert_eq!(
            multi.value_from_text("a,z").map_err(|e| e.to_string()),
            Err("`z` is not one of Alpha, Beta".into())
        );
        // A person reads the labels (the menu's form shows them); either is accepted.
        assert_eq!(multi.expects(), "any of Alpha, Beta, joined by commas");
        let one = field(FieldKind::Choice {
            values: vec!["r".into(), "g".into()],
            labels: vec!["Red".into(), String::new()],
            multiple: false,
        });
        assert_eq!(one.expects(), "one of Red, g");
        assert_eq!(one.value_from_text("red"), Ok(Some(json!("r"))));
        assert_eq!(
            one.value_from_text("d").map_err(|e| e.to_string()),
            Err("`d` is not one of Red, g".into())
        );
    }

    #[test]
    fn json_answers_must_fit_the_field() {
        let boolean = field(FieldKind::Boolean);
        assert_eq!(boolean.value_from_json(&json!(true)), Ok(Some(json!(true))));
        assert_eq!(
            boolean.value_from_json(&json!("no")),
            Ok(Some(json!(false)))
        );
        assert_eq!(
            boolean
                .value_from_json(&json!(3))
                .map_err(|e| e.to_string()),
            Err("3 is not yes or no".into())
        );
        let multi = field(FieldKind::Choice {
            values: vec!["a".into(), "b".into()],
            labels: vec!["a".into(), "b".into()],
            multiple: true,
        });
        assert_eq!(multi.value_from_json(&json!([])), Ok(Some(json!([]))));
        assert_eq!(multi.value_from_json(&json!(["b"])), Ok(Some(json!(["b"]))));
        assert!(multi.value_from_json(&json!([1])).is_err());
        assert_eq!(multi.value_from_json(&Value::Null), Ok(None));
    }
}
