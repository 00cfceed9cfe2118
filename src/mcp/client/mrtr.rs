//! Reading `input_required` results and writing `inputResponses` (2026-07-28 multi
//! round-trip requests, spec digest §5.2.3). Pure functions over JSON: the connection hands
//! in what the server sent, whichever way the SDK typed it.

use serde_json::{Map, Value};

use crate::mcp::client::questions::{
    Answer, FieldKind, FormField, InputAnswers, InputRequest, Question, QuestionKind,
};

/// The longest one-line summary of a question shown to the user.
const SUMMARY_CHARS: usize = 200;

/// Whether a result is an `input_required` one.
pub(in crate::mcp) fn is_input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// Reads an `input_required` result: its questions, in the order they came, and its
/// `requestState` untouched.
pub(in crate::mcp) fn parse_input_required(result: &Value) -> InputRequest {
    let questions = result
        .get("inputRequests")
        .and_then(Value::as_object)
        .map(|requests| {
            requests
                .iter()
                .map(|(key, request)| parse_question(key, request))
                .collect()
        })
        .unwrap_or_default();
    let request_state = result
        .get("requestState")
        .and_then(Value::as_str)
        .map(str::to_string);
    InputRequest {
        questions,
        request_state,
    }
}

/// Reads one `inputRequests` entry. A form-mode `elicitation/create` becomes a form; URL
/// mode, sampling, roots and anything unknown become [`QuestionKind::Unsupported`].
pub(in crate::mcp) fn parse_question(key: &str, request: &Value) -> Question {
    let method = request
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let params = request.get("params").unwrap_or(&Value::Null);
    let unsupported = |summary: String| Question {
        key: key.to_string(),
        kind: QuestionKind::Unsupported {
            method: method.to_string(),
            summary: one_line(&summary),
        },
    };
    match method {
        "elicitation/create" => {
            let message = params
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match params.get("mode").and_then(Value::as_str) {
                None | Some("form") => match parse_form(params.get("requestedSchema")) {
                    Ok(fields) => Question {
                        key: key.to_string(),
                        kind: QuestionKind::Form {
                            message: message.to_string(),
                            fields,
                        },
                    },
                    Err(problem) => unsupported(format!("a form mcpick cannot show ({problem})")),
                },
                Some("url") => {
                    let url = params.get("url").and_then(Value::as_str).unwrap_or("?");
                    unsupported(format!("asks you to open a web page ({url}): {message}"))
                }
                Some(other) => unsupported(format!("an input mode mcpick does not know ({other})")),
            }
        }
        "sampling/createMessage" => unsupported(
            "asks for a language model completion (sampling), which mcpick does not run".into(),
        ),
        "roots/list" => unsupported(
            "asks for the client's filesystem roots, which mcpick does not share".into(),
        ),
        "" => unsupported("a request without a method".into()),
        other => unsupported(format!("a request mcpick does not know ({other})")),
    }
}

/// The fields of a `requestedSchema`, in its order. A required field of a kind mcpick cannot
/// show makes the whole form unanswerable (the reason is returned); such an optional field
/// is left out, since leaving it empty is a valid answer.
fn parse_form(schema: Option<&Value>) -> Result<Vec<FormField>, String> {
    let Some(schema) = schema else {
        return Ok(Vec::new());
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties") else {
        return Ok(Vec::new());
    };
    let Some(properties) = properties.as_object() else {
        return Err("`properties` is not an object".into());
    };
    let mut fields = Vec::new();
    for (name, property) in properties {
        let required = required.contains(&name.as_str());
        match parse_field(name, property, required) {
            Some(field) => fields.push(field),
            None if required => {
                return Err(format!(
                    "field `{name}` has type {}",
                    property.get("type").unwrap_or(&Value::Null)
                ));
            }
            None => {}
        }
    }
    Ok(fields)
}

/// Reads one property of a `requestedSchema`; `None` for types outside the elicitation
/// subset of JSON Schema (objects, arrays of free values, …).
pub(in crate::mcp) fn parse_field(name: &str, schema: &Value, required: bool) -> Option<FormField> {
    let kind = field_kind(schema)?;
    Some(FormField {
        name: name.to_string(),
        title: text(schema, "title"),
        description: text(schema, "description"),
        required,
        kind,
        default: schema.get("default").cloned(),
    })
}

fn field_kind(schema: &Value) -> Option<FieldKind> {
    let kind = schema.get("type").and_then(Value::as_str);
    match kind {
        Some("string") | None => {
            if let Some(choice) = choices(schema) {
                return Some(FieldKind::Choice {
                    values: choice.0,
                    labels: choice.1,
                    multiple: false,
                });
            }
            kind?;
            Some(FieldKind::Text {
                format: text(schema, "format"),
                min_length: schema.get("minLength").and_then(Value::as_u64),
                max_length: schema.get("maxLength").and_then(Value::as_u64),
            })
        }
        Some(kind @ ("number" | "integer")) => Some(FieldKind::Number {
            integer: kind == "integer",
            minimum: schema.get("minimum").and_then(Value::as_f64),
            maximum: schema.get("maximum").and_then(Value::as_f64),
        }),
        Some("boolean") => Some(FieldKind::Boolean),
        Some("array") => {
            let (values, labels) = choices(schema.get("items")?)?;
            Some(FieldKind::Choice {
                values,
                labels,
                multiple: true,
            })
        }
        Some(_) => None,
    }
}

/// The values and labels of an enumeration: `enum` (with the legacy `enumNames` as labels),
/// or `oneOf`/`anyOf` of `{const, title}`.
fn choices(schema: &Value) -> Option<(Vec<String>, Vec<String>)> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(plain).collect();
        let labels = match schema.get("enumNames").and_then(Value::as_array) {
            Some(names) if names.len() == values.len() => names.iter().map(plain).collect(),
            _ => values.clone(),
        };
        return Some((values, labels));
    }
    let options = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    let mut values = Vec::new();
    let mut labels = Vec::new();
    for option in options {
        let value = plain(option.get("const")?);
        labels.push(text(option, "title").unwrap_or_else(|| value.clone()));
        values.push(value);
    }
    Some((values, labels))
}

/// A JSON scalar as text: strings without quotes.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Server text on one line: control characters and runs of whitespace become one space,
/// and it is cut to [`SUMMARY_CHARS`].
fn one_line(text: &str) -> String {
    let line = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    crate::text::cut_chars(&line, SUMMARY_CHARS)
}

/// The `inputResponses` of a retry: each answer as an `ElicitResult` under its question's key.
pub(in crate::mcp) fn input_responses(answers: &InputAnswers) -> Vec<(String, Value)> {
    answers
        .answers
        .iter()
        .map(|(key, answer)| {
            let mut result = Map::new();
            let action = match answer {
                Answer::Accept(content) => {
                    result.insert("content".into(), Value::Object(content.clone()));
                    "accept"
                }
                Answer::Decline => "decline",
                Answer::Cancel => "cancel",
            };
            result.insert("action".into(), Value::String(action.into()));
            (key.clone(), Value::Object(result))
        })
        .collect()
}

/// What the server asked, on one line, for an error where questions cannot be answered.
pub(in crate::mcp) fn describe(request: &InputRequest) -> String {
    let asked: Vec<String> = request
        .questions
        .iter()
        .map(|q| match &q.kind {
            QuestionKind::Form { message, fields } => {
                let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                format!(
                    "`{}`, a form ({}): {}",
                    q.key,
                    names.join(", "),
                    one_line(message)
                )
            }
            QuestionKind::Unsupported { summary, .. } => format!("`{}`: {summary}", q.key),
        })
        .collect();
    format!(
        "{} (answering needs the interactive picker)",
        asked.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(schema: Value) -> Vec<FormField> {
        let question = parse_question(
            "q",
            &json!({"method":"elicitation/create","params":{"message":"Hi","requestedSchema":schema}}),
        );
        match question.kind {
            QuestionKind::Form { message, fields } => {
                assert_eq!(message, "Hi");
                fields
            }
            other => panic!("not a form: {other:?}"),
        }
    }

    fn only(schema: Value) -> FormField {
        let mut fields = form(json!({"type":"object","properties":{"f":schema}}));
        assert_eq!(fields.len(), 1);
        fields.remove(0)
    }

    #[test]
    fn strings_keep_format_lengths_title_description_and_default() {
        let field = only(
            json!({"type":"string","title":"E-mail","description":"Where to write",
            "format":"email","minLength":3,"maxLength":64,"default":"a@b.c"}),
        );
        assert_eq!(
            field,
            FormField {
                name: "f".into(),
                title: Some("E-mail".into()),
                description: Some("Where to write".into()),
                required: false,
                kind: FieldKind::Text {
                    format: Some("email".into()),
                    min_length: Some(3),
                    max_length: Some(64),
                },
                default: Some(json!("a@b.c")),
            }
        );
        let plain = only(json!({"type":"string"}));
        assert_eq!(
            plain.kind,
            FieldKind::Text {
                format: None,
                min_length: None,
                max_length: None
            }
        );
        assert_eq!((plain.title, plain.default), (None, None));
    }

    #[test]
    fn numbers_and_integers_keep_their_bounds() {
        assert_eq!(
            only(json!({"type":"number","minimum":0.5,"maximum":9.5})).kind,
            FieldKind::Number {
                integer: false,
                minimum: Some(0.5),
                maximum: Some(9.5)
            }
        );
        let field = only(json!({"type":"integer","minimum":1,"default":3}));
        assert_eq!(
            field.kind,
            FieldKind::Number {
                integer: true,
                minimum: Some(1.0),
                maximum: None
            }
        );
        assert_eq!(field.default, Some(json!(3)));
    }

    #[test]
    fn booleans() {
        let field = only(json!({"type":"boolean","default":true}));
        assert_eq!(field.kind, FieldKind::Boolean);
        assert_eq!(field.default, Some(json!(true)));
    }

    fn choice(values: &[&str], labels: &[&str], multiple: bool) -> FieldKind {
        FieldKind::Choice {
            values: values.iter().map(|s| s.to_string()).collect(),
            labels: labels.iter().map(|s| s.to_string()).collect(),
            multiple,
        }
    }

    #[test]
    fn single_choices_from_enum_enum_names_one_of_and_any_of() {
        assert_eq!(
            only(json!({"type":"string","enum":["a","b"]})).kind,
            choice(&["a", "b"], &["a", "b"], false)
        );
        assert_eq!(
            only(json!({"type":"string","enum":["a","b"],"enumNames":["Alpha","Beta"]})).kind,
            choice(&["a", "b"], &["Alpha", "Beta"], false)
        );
        // enumNames of the wrong length are ignored rather than mislabel values.
        assert_eq!(
            only(json!({"type":"string","enum":["a","b"],"enumNames":["Alpha"]})).kind,
            choice(&["a", "b"], &["a", "b"], false)
        );
        assert_eq!(
            only(json!({"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g"}]})).kind,
            choice(&["r", "g"], &["Red", "g"], false)
        );
        assert_eq!(
            only(json!({"type":"string","anyOf":[{"const":"r","title":"Red"}]})).kind,
            choice(&["r"], &["Red"], false)
        );
        // No `type` at all, but clearly an enumeration.
        assert_eq!(
            only(json!({"enum":["x"]})).kind,
            choice(&["x"], &["x"], false)
        );
    }

    #[test]
    fn multiple_choices_from_arrays_of_enums() {
        let field = only(
            json!({"type":"array","items":{"type":"string","enum":["a","b"]},
            "default":["a"]}),
        );
        assert_eq!(field.kind, choice(&["a", "b"], &["a", "b"], true));
        assert_eq!(field.default, Some(json!(["a"])));
        assert_eq!(
            only(json!({"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}})).kind,
            choice(&["a", "b"], &["A", "B"], true)
        );
        assert_eq!(
            only(json!({"type":"array","items":{"oneOf":[{"const":"a","title":"A"}]}})).kind,
            choice(&["a"], &["A"], true)
        );
    }

    #[test]
    fn fields_keep_schema_order_and_required() {
        let fields = form(json!({"type":"object","properties":{
            "zeta":{"type":"string"},"alpha":{"type":"boolean"},"mid":{"type":"integer"}},
            "required":["alpha"]}));
        let names: Vec<(&str, bool)> = fields
            .iter()
            .map(|f| (f.name.as_str(), f.required))
            .collect();
        assert_eq!(names, [("zeta", false), ("alpha", true), ("mid", false)]);
    }

    #[test]
    fn unknown_field_types_drop_optional_fields_and_refuse_required_ones() {
        let fields = form(json!({"type":"object","properties":{
            "nested":{"type":"object"},"free":{"type":"array","items":{"type":"string"}},
            "name":{"type":"string"}}}));
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].name, "name");
        let question = parse_question(
            "q",
            &json!({"method":"elicitation/create","params":{"mode":"form","message":"m",
                "requestedSchema":{"type":"object","properties":{"nested":{"type":"object"}},
                "required":["nested"]}}}),
        );
        assert!(
            matches!(&question.kind, QuestionKind::Unsupported { method, summary }
                if method == "elicitation/create" && summary.contains("nested")),
            "{question:?}"
        );
    }

    #[test]
    fn a_form_without_schema_has_no_fields() {
        assert_eq!(form(Value::Null), Vec::new());
        let question = parse_question(
            "q",
            &json!({"method":"elicitation/create","params":{"message":"Go on?"}}),
        );
        assert!(matches!(question.kind, QuestionKind::Form { fields, .. } if fields.is_empty()));
    }

    #[test]
    fn url_sampling_roots_and_unknown_requests_are_unsupported_with_one_line() {
        let cases = [
            (
                json!({"method":"elicitation/create","params":{"mode":"url","url":"https://x.example/a",
                    "message":"Sign in\nplease"}}),
                "elicitation/create",
                "asks you to open a web page (https://x.example/a): Sign in please",
            ),
            (
                json!({"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}),
                "sampling/createMessage",
                "sampling",
            ),
            (json!({"method":"roots/list"}), "roots/list", "roots"),
            (
                json!({"method":"tasks/frobnicate"}),
                "tasks/frobnicate",
                "tasks/frobnicate",
            ),
            (json!({}), "", "without a method"),
        ];
        for (request, method, phrase) in cases {
            let question = parse_question("k", &request);
            assert_eq!(question.key, "k");
            match question.kind {
                QuestionKind::Unsupported { method: m, summary } => {
                    assert_eq!(m, method);
                    assert!(summary.contains(phrase), "{summary}");
                    assert!(!summary.contains('\n'));
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn input_required_keeps_question_order_and_request_state() {
        let result = json!({"resultType":"input_required","inputRequests":{
            "second":{"method":"roots/list"},
            "first":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{
                "type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},
            "requestState":"  opaque \"state\" "});
        assert!(is_input_required(&result));
        let request = parse_input_required(&result);
        let keys: Vec<&str> = request.questions.iter().map(|q| q.key.as_str()).collect();
        assert_eq!(keys, ["second", "first"]);
        assert_eq!(
            request.request_state.as_deref(),
            Some("  opaque \"state\" ")
        );
        assert!(describe(&request).contains("`first`, a form (name): m"));
        let state_only =
            parse_input_required(&json!({"resultType":"input_required","requestState":"s"}));
        assert!(state_only.questions.is_empty());
        assert!(!is_input_required(&json!({"messages":[]})));
    }

    #[test]
    fn answers_become_elicit_results() {
        let mut content = Map::new();
        content.insert("name".into(), json!("octocat"));
        content.insert("age".into(), json!(7));
        let answers = InputAnswers {
            answers: vec![
                ("a".into(), Answer::Accept(content)),
                ("d".into(), Answer::Decline),
                ("c".into(), Answer::Cancel),
            ],
            request_state: Some("s".into()),
        };
        assert_eq!(
            input_responses(&answers),
            vec![
                (
                    "a".to_string(),
                    json!({"action":"accept","content":{"name":"octocat","age":7}})
                ),
                ("d".to_string(), json!({"action":"decline"})),
                ("c".to_string(), json!({"action":"cancel"})),
            ]
        );
    }
}
