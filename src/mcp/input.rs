//! Multi round-trip requests (2026-07-28 `input_required`): the questions a server asks
//! before it answers `prompts/get`, and the answers sent back with the retry.

use serde_json::{Map, Value};

use super::types::PromptMessages;

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
