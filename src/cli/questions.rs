//! The server's own questions while `get` fills a prompt (a 2026-07-28 `input_required`
//! result, or a legacy server's mid-request `elicitation/create`): asked on the terminal,
//! or answered by `--answer`, `--answers-json` and `--decline`.

use std::io::IsTerminal;

use serde_json::{Map, Value};

use super::inputs::{Typed, read_line};
use crate::mcp::{Answer, FieldKind, FormField, InputAnswers, InputRequest, QuestionKind};
use crate::text;

/// How `get` answers the server's questions: `--answer FIELD=VALUE`, `--answers-json` and
/// `--decline`, the same for both protocol eras.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnswerFlags {
    /// Values by field name, in command-line order (`--answers-json` first, so an
    /// `--answer` for the same field wins).
    pub given: Vec<(String, GivenAnswer)>,
    /// `--decline`: every question is declined.
    pub decline: bool,
}

/// One answer from the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum GivenAnswer {
    /// `--answer FIELD=VALUE`: text, read per the field's type.
    Text(String),
    /// A value of `--answers-json`.
    Json(Value),
}

impl AnswerFlags {
    /// Reads the flags; a malformed one is a usage error, said here.
    pub fn parse(
        answers: &[String],
        answers_json: Option<&str>,
        decline: bool,
    ) -> Result<AnswerFlags, String> {
        let mut given = Vec::new();
        if let Some(json) = answers_json {
            let object: Map<String, Value> = serde_json::from_str(json).map_err(|e| {
                format!("--answers-json is not a JSON object of answers ({e}), e.g. '{{\"confirmed\":true}}'")
            })?;
            given.extend(object.into_iter().map(|(k, v)| (k, GivenAnswer::Json(v))));
        }
        for answer in answers {
            let (field, value) =
                super::args::parse_assignment(answer).map_err(|e| format!("--answer: {e}"))?;
            given.push((field, GivenAnswer::Text(value)));
        }
        Ok(AnswerFlags { given, decline })
    }

    /// Whether any flag says how to answer.
    pub fn any(&self) -> bool {
        self.decline || !self.given.is_empty()
    }

    /// The last value given for `field`.
    fn for_field(&self, field: &str) -> Option<&GivenAnswer> {
        self.given
            .iter()
            .rev()
            .find(|(name, _)| name == field)
            .map(|(_, value)| value)
    }
}

/// How answering a round of questions ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// The answers to send.
    Answers(InputAnswers),
    /// Ctrl-C on the terminal: stop.
    Stopped,
}

/// Why a round of questions was not answered.
#[derive(Debug, Clone, PartialEq)]
pub enum NotAnswered {
    /// Questions left open (or answers that do not fit them): what, and the flag to use.
    Unanswered(String),
    /// An `--answer` or `--answers-json` name no question asks for: the flag was wrong.
    UnknownName(String),
}

/// What the earlier rounds of one request left behind: the notes said (each is said once,
/// however often a server asks the same) and the answer names some question used.
#[derive(Debug, Clone, Default)]
pub struct Rounds {
    said: Vec<String>,
    used: Vec<String>,
}

impl Rounds {
    /// The names given by the flags that no question of any round asked for.
    pub fn unused<'a>(&self, flags: &'a AnswerFlags) -> Vec<&'a str> {
        let mut unused: Vec<&str> = Vec::new();
        for (name, _) in &flags.given {
            if !self.used.contains(name) && !unused.contains(&name.as_str()) {
                unused.push(name);
            }
        }
        unused
    }
}

/// Answers one round of the server's questions: from the flags, then (on a terminal) by
/// asking for what they left open. Questions mcpick cannot show (a web page to open,
/// sampling, roots) are declined, said on stderr (once per request: `rounds` remembers).
/// The error names what is left unanswered and the flag to give it with.
pub async fn answer(
    request: InputRequest,
    flags: AnswerFlags,
    server: String,
    mut rounds: Rounds,
) -> (Rounds, Result<Answered, NotAnswered>) {
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    // The terminal is read with blocking calls: off the runtime's threads.
    let joined = tokio::task::spawn_blocking(move || {
        let mut terminal = Terminal;
        let asker: Option<&mut dyn Asker> = if interactive {
            Some(&mut terminal)
        } else {
            None
        };
        let answered = answer_with(&request, &flags, &server, asker, &mut rounds, &mut |line| {
            super::output::error(line)
        });
        (rounds, answered)
    })
    .await;
    joined.unwrap_or_else(|e| {
        let failed = format!("answering the server's questions failed: {e}");
        (Rounds::default(), Err(NotAnswered::Unanswered(failed)))
    })
}

/// What a field's question looks like on one line: `Deploy now? (`confirmed`: yes or no,
/// required, default no)`.
fn describe_field(field: &FormField) -> String {
    let mut about = vec![field.expects()];
    if field.required {
        about.push("required".into());
    }
    if let Some(default) = &field.default {
        about.push(format!("default {}", shown_default(default)));
    }
    let label = text::one_line(field.label());
    let name = if label == field.name {
        String::new()
    } else {
        format!("`{}`: ", field.name)
    };
    format!("{label} ({name}{})", about.join(", "))
}

/// A schema's default as it would be typed (server text made safe to print).
pub(super) fn shown_default(default: &Value) -> String {
    match default {
        Value::Bool(true) => "yes".into(),
        Value::Bool(false) => "no".into(),
        Value::String(text) => text::one_line(text),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(text::one_line)
                    .unwrap_or_else(|| i.to_string())
            })
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// What the terminal gave for one field.
enum AskedValue {
    Text(String),
    Empty,
    Decline,
    Stop,
}

struct Terminal;

impl Asker for Terminal {
    fn say(&mut self, line: &str) {
        super::output::error(line);
    }

    fn detail(&mut self, line: &str) {
        super::output::detail(line);
    }

    fn read(&mut self, prompt: &str) -> Result<AskedValue, String> {
        let typed = read_line(prompt, false, "")
            .map_err(|e| format!("cannot read the answer from the terminal: {e}"))?;
        Ok(match typed {
            Typed::Value(text) => AskedValue::Text(text),
            Typed::Skipped => AskedValue::Empty,
            Typed::Escaped => AskedValue::Decline,
            Typed::Interrupted => AskedValue::Stop,
        })
    }
}

/// [`answer`] without the terminal's setup, for tests; `say` says what was declined
/// without asking, unless an earlier round of `rounds` said it.
fn answer_with(
    request: &InputRequest,
    flags: &AnswerFlags,
    server: &str,
    asker: Option<&mut dyn Asker>,
    rounds: &mut Rounds,
    say: &mut dyn FnMut(&str),
) -> Result<Answered, NotAnswered> {
    let mut said = std::mem::take(&mut rounds.said);
    let answered = answer_round(request, flags, server, asker, rounds, &mut |line| {
        if !said.iter().any(|s| s == line) {
            say(line);
            said.push(line.to_string());
        }
    });
    rounds.said = said;
    answered
}

/// One round of [`answer_with`]; `note` says what was declined without asking.
fn answer_round(
    request: &InputRequest,
    flags: &AnswerFlags,
    server: &str,
    mut asker: Option<&mut dyn Asker>,
    rounds: &mut Rounds,
    note: &mut dyn FnMut(&str),
) -> Result<Answered, NotAnswered> {
    let mut answers = Vec::new();
    let mut unanswered = Vec::new();
    // The fields left without an answer, with their question's message: the error's
    // example names one of them.
    let mut missing: Vec<(&String, &FormField)> = Vec::new();
    let mut problems = Vec::new();
    // Names an earlier round of the request used are not unknown in this one.
    let used_before = rounds.used.clone();
    let mut used: Vec<&str> = used_before.iter().map(String::as_str).collect();
    for question in &request.questions {
        let (message, fields) = match &question.kind {
            QuestionKind::Form { message, fields } => (message, fields),
            QuestionKind::Unsupported { summary, .. } => {
                note(&format!(
                    "declined the server's question `{}`: {summary}",
                    question.key
                ));
                answers.push((question.key.clone(), Answer::Decline));
                continue;
            }
        };
        if flags.decline {
            note(&format!(
                "declined the server's question (--decline): {}",
                text::one_line(message)
            ));
            answers.push((question.key.clone(), Answer::Decline));
            continue;
        }
        let mut content = Map::new();
        let mut declined = false;
        let mut asked_header = false;
        for field in fields {
            if let Some(given) = flags.for_field(&field.name) {
                used.push(&field.name);
                let value = match given {
                    GivenAnswer::Text(text) => field.value_from_text(text),
                    GivenAnswer::Json(value) => field.value_from_json(value),
                };
                match value {
                    Ok(Some(value)) => {
                        content.insert(field.name.clone(), value);
                        continue;
                    }
                    Ok(None) if !field.required => continue,
                    Ok(None) => problems.push(format!("`{}` is required", field.name)),
                    Err(problem) => problems.push(format!("`{}`: {problem}", field.name)),
                }
                continue;
            }
            let Some(asker) = asker.as_deref_mut() else {
                if !flags.any() {
                    unanswered.push(describe_field(field));
                    missing.push((message, field));
                } else if let Some(default) = &field.default {
                    content.insert(field.name.clone(), default.clone());
                } else if field.required {
                    unanswered.push(describe_field(field));
                    missing.push((message, field));
                }
                continue;
            };
            if !asked_header {
                asker.say(&format!(
                    "server `{server}` asks: {} (Esc declines, Ctrl-C stops)",
                    text::one_line(message)
                ));
                asked_header = true;
            }
            match ask_field(asker, field, &mut content)? {
                FieldAsked::Answered => {}
                FieldAsked::Declined => {
                    declined = true;
                    break;
                }
                FieldAsked::Stopped => return Ok(Answered::Stopped),
            }
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
    for name in &used {
        if !rounds.used.iter().any(|u| u == name) {
            rounds.used.push(name.to_string());
        }
    }
    if !problems.is_empty() {
        return Err(NotAnswered::Unanswered(format!(
            "the answers do not fit the server's question: {}",
            problems.join("; ")
        )));
    }
    if let Some(unknown) = unknown_answer_name(request, flags, &used) {
        return Err(unknown);
    }
    if !unanswered.is_empty() {
        return Err(no_terminal_to_ask(&unanswered, &missing));
    }
    Ok(Answered::Answers(InputAnswers {
        answers,
        request_state: request.request_state.clone(),
    }))
}

/// What asking one field came to.
enum FieldAsked {
    /// A value (or the field's default, or nothing for an optional field) is in the answer.
    Answered,
    /// Esc: the whole question is declined.
    Declined,
    /// Ctrl-C: the command stops.
    Stopped,
}

/// Asks `field` on the terminal until its answer fits it, putting the value in `content`.
fn ask_field(
    asker: &mut dyn Asker,
    field: &FormField,
    content: &mut Map<String, Value>,
) -> Result<FieldAsked, NotAnswered> {
    let prompt = format!("  {}: ", describe_field(field));
    loop {
        let text = match asker.read(&prompt).map_err(NotAnswered::Unanswered)? {
            AskedValue::Stop => return Ok(FieldAsked::Stopped),
            AskedValue::Decline => return Ok(FieldAsked::Declined),
            AskedValue::Empty => String::new(),
            AskedValue::Text(text) => text,
        };
        match field.value_from_text(&text) {
            Ok(Some(value)) => {
                content.insert(field.name.clone(), value);
                return Ok(FieldAsked::Answered);
            }
            Ok(None) => match &field.default {
                Some(default) => {
                    content.insert(field.name.clone(), default.clone());
                    return Ok(FieldAsked::Answered);
                }
                None if !field.required => return Ok(FieldAsked::Answered),
                None => asker.detail("required: type a value, or Esc to decline"),
            },
            Err(problem) => asker.detail(&problem.to_string()),
        }
    }
}

/// The error for an `--answer` name no question of `request` asks for, if one was given.
fn unknown_answer_name(
    request: &InputRequest,
    flags: &AnswerFlags,
    used: &[&str],
) -> Option<NotAnswered> {
    let asked: Vec<&str> = request
        .questions
        .iter()
        .flat_map(|q| match &q.kind {
            QuestionKind::Form { fields, .. } => fields.iter().map(|f| f.name.as_str()).collect(),
            QuestionKind::Unsupported { .. } => Vec::new(),
        })
        .collect();
    if let Some((name, _)) = flags
        .given
        .iter()
        .find(|(name, _)| !used.contains(&name.as_str()) && !flags.decline)
    {
        let hint = crate::search::did_you_mean(name, asked.iter().copied());
        return Some(NotAnswered::UnknownName(format!(
            "--answer {name}: no question asks for `{name}`{hint}; the server asked for {}",
            if asked.is_empty() {
                "nothing mcpick can answer".to_string()
            } else {
                asked
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )));
    }
    None
}

/// The error when fields were left without an answer and there is no terminal to ask on:
/// it names them and gives an `--answer` for one (a required one if there is).
fn no_terminal_to_ask(unanswered: &[String], missing: &[(&String, &FormField)]) -> NotAnswered {
    // A required field left without an answer, or else the first one left.
    let example = missing
        .iter()
        .find(|(_, f)| f.required)
        .or(missing.first())
        .map(|(message, field)| (text::one_line(message), Some(example_value(field))));
    let (message, flag) = match example {
        Some((message, Some((name, value)))) => (message, format!("--answer {name}={value}")),
        Some((message, None)) => (message, "--answer FIELD=VALUE".into()),
        None => (String::new(), "--answer FIELD=VALUE".into()),
    };
    let what = if message.is_empty() {
        String::new()
    } else {
        format!("\"{message}\" — ")
    };
    NotAnswered::Unanswered(format!(
        "{what}{}. No terminal to ask on, so mcpick declined; answer with {flag} \
         (repeatable) or --answers-json '{{…}}', or give --decline to let the server go on \
         without {}",
        unanswered.join("; "),
        text::plural(unanswered.len(), "it", "them"),
    ))
}

/// A field's name and a value it could take, for the error that names `--answer`.
fn example_value(field: &FormField) -> (String, String) {
    let value = match &field.kind {
        FieldKind::Boolean => "yes".to_string(),
        FieldKind::Number { minimum, .. } => minimum.unwrap_or(1.0).to_string(),
        FieldKind::Choice { values, .. } => values.first().cloned().unwrap_or_default(),
        FieldKind::Text { .. } => "VALUE".to_string(),
    };
    (field.name.clone(), text::one_line(&value))
}

/// The terminal, seen by [`answer_with`]: asks one field at a time.
trait Asker {
    /// Says something on stderr.
    fn say(&mut self, line: &str);
    /// Says something about the field just asked, indented.
    fn detail(&mut self, line: &str);
    /// Reads one field's answer after `prompt`.
    fn read(&mut self, prompt: &str) -> Result<AskedValue, String>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Question;
    use serde_json::json;

    fn field(name: &str, kind: FieldKind, required: bool, default: Option<Value>) -> FormField {
        FormField {
            name: name.into(),
            title: None,
            description: None,
            required,
            kind,
            default,
        }
    }

    fn confirm() -> InputRequest {
        InputRequest {
            questions: vec![Question {
                key: "elicitation".into(),
                kind: QuestionKind::Form {
                    message: "Deploy?".into(),
                    fields: vec![field("confirmed", FieldKind::Boolean, true, None)],
                },
            }],
            request_state: Some("s".into()),
        }
    }

    /// Every kind of field, and a question mcpick cannot show.
    fn survey() -> InputRequest {
        let choice = |multiple| FieldKind::Choice {
            values: vec!["r".into(), "g".into()],
            labels: vec!["Red".into(), "Green".into()],
            multiple,
        };
        InputRequest {
            questions: vec![
                Question {
                    key: "form".into(),
                    kind: QuestionKind::Form {
                        message: "Tell me".into(),
                        fields: vec![
                            field(
                                "name",
                                FieldKind::Text {
                                    format: None,
                                    min_length: Some(2),
                                    max_length: None,
                                },
                                true,
                                None,
                            ),
                            field(
                                "age",
                                FieldKind::Number {
                                    integer: true,
                                    minimum: Some(1.0),
                                    maximum: Some(150.0),
                                },
                                false,
                                Some(json!(30)),
                            ),
                            field("color", choice(false), false, None),
                            field("tags", choice(true), false, None),
                        ],
                    },
                },
                Question {
                    key: "llm".into(),
                    kind: QuestionKind::Unsupported {
                        method: "sampling/createMessage".into(),
                        summary: "sampling".into(),
                    },
                },
            ],
            request_state: None,
        }
    }

    /// One round of [`answer_with`], its notes dropped, its error as words.
    fn answer_quietly(
        request: &InputRequest,
        flags: &AnswerFlags,
        server: &str,
        asker: Option<&mut dyn Asker>,
    ) -> Result<Answered, String> {
        let mut rounds = Rounds::default();
        answer_round(request, flags, server, asker, &mut rounds, &mut |_| {}).map_err(|e| match e {
            NotAnswered::Unanswered(words) | NotAnswered::UnknownName(words) => words,
        })
    }

    fn flags(answers: &[&str], json: Option<&str>) -> AnswerFlags {
        let answers: Vec<String> = answers.iter().map(|a| a.to_string()).collect();
        AnswerFlags::parse(&answers, json, false).unwrap()
    }

    fn accepted(answered: Result<Answered, String>) -> Vec<(String, Answer)> {
        match answered {
            Ok(Answered::Answers(answers)) => answers.answers,
            other => panic!("{other:?}"),
        }
    }

    fn content(pairs: Value) -> Answer {
        Answer::Accept(pairs.as_object().unwrap().clone())
    }

    #[test]
    fn answer_flags_answer_each_kind_and_keep_the_request_state() {
        let answered = answer_quietly(&confirm(), &flags(&["confirmed=yes"], None), "s", None);
        let Ok(Answered::Answers(answers)) = answered else {
            panic!("{answered:?}")
        };
        assert_eq!(answers.request_state.as_deref(), Some("s"));
        assert_eq!(
            answers.answers,
            vec![("elicitation".into(), content(json!({"confirmed": true})))]
        );
        // Every kind; the default fills the field not given; labels pick choices too.
        let answers = accepted(answer_quietly(
            &survey(),
            &flags(&["name=Ann", "color=Green", "tags=r, g"], None),
            "s",
            None,
        ));
        assert_eq!(
            answers,
            vec![
                (
                    "form".into(),
                    content(json!({"name":"Ann","age":30,"color":"g","tags":["r","g"]}))
                ),
                ("llm".into(), Answer::Decline),
            ]
        );
    }

    #[test]
    fn answers_json_is_typed_and_an_answer_flag_wins_over_it() {
        let answers = accepted(answer_quietly(
            &survey(),
            &flags(
                &["age=40"],
                Some(r#"{"name":"Bo","age":7,"tags":["g"],"color":null}"#),
            ),
            "s",
            None,
        ));
        assert_eq!(
            answers[0].1,
            content(json!({"name":"Bo","age":40,"tags":["g"]}))
        );
        let answers = accepted(answer_quietly(
            &confirm(),
            &flags(&[], Some(r#"{"confirmed":false}"#)),
            "s",
            None,
        ));
        assert_eq!(answers[0].1, content(json!({"confirmed": false})));
    }

    #[test]
    fn without_a_terminal_or_flags_the_error_names_the_question_and_answer() {
        let error = answer_quietly(&confirm(), &AnswerFlags::default(), "s", None).unwrap_err();
        assert!(error.contains("\"Deploy?\""), "{error}");
        assert!(
            error.contains("`confirmed`") || error.contains("confirmed ("),
            "{error}"
        );
        assert!(error.contains("--answer confirmed=yes"), "{error}");
        assert!(
            error.contains("--answers-json") && error.contains("--decline"),
            "{error}"
        );
        // A required field the flags leave out is named too.
        let error = answer_quietly(&survey(), &flags(&["age=3"], None), "s", None).unwrap_err();
        assert!(
            error.contains("name") && error.contains("--answer name="),
            "{error}"
        );
    }

    #[test]
    fn the_flag_suggested_is_for_a_field_left_unanswered() {
        // Two questions: the first is answered, the second's required field is not.
        let mut request = confirm();
        request.questions.push(survey().questions.remove(0));
        let error =
            answer_quietly(&request, &flags(&["confirmed=yes"], None), "s", None).unwrap_err();
        assert!(error.contains("\"Tell me\""), "{error}");
        assert!(error.contains("--answer name=VALUE"), "{error}");
        assert!(!error.contains("--answer confirmed"), "{error}");
    }

    #[test]
    fn wrong_answers_and_unknown_fields_are_errors_that_say_why() {
        let error =
            answer_quietly(&confirm(), &flags(&["confirmed=maybe"], None), "s", None).unwrap_err();
        assert!(error.contains("`maybe` is not yes or no"), "{error}");
        let error = answer_quietly(&survey(), &flags(&["name=A"], None), "s", None).unwrap_err();
        assert!(error.contains("needs at least 2 characters"), "{error}");
        let error = answer_quietly(&survey(), &flags(&["name=Ann", "age=200"], None), "s", None)
            .unwrap_err();
        assert!(error.contains("must be between 1 and 150"), "{error}");
        let error = answer_quietly(
            &survey(),
            &flags(&["name=Ann", "color=blue"], None),
            "s",
            None,
        )
        .unwrap_err();
        assert!(error.contains("`blue` is not one of Red, Green"), "{error}");
        let error =
            answer_quietly(&confirm(), &flags(&["confirm=yes"], None), "s", None).unwrap_err();
        assert!(
            error.contains("`confirm`") && error.contains("did you mean `confirmed`"),
            "{error}"
        );
        assert!(AnswerFlags::parse(&["confirmed".into()], None, false).is_err());
        assert!(AnswerFlags::parse(&[], Some("[1]"), false).is_err());
    }

    #[test]
    fn decline_declines_every_question() {
        let decline = AnswerFlags::parse(&[], None, true).unwrap();
        let mut notes = Vec::new();
        let mut rounds = Rounds::default();
        let answered = answer_round(&survey(), &decline, "s", None, &mut rounds, &mut |note| {
            notes.push(note.to_string())
        });
        let answers = accepted(answered.map_err(|e| format!("{e:?}")));
        // Each decline is said, with what was asked.
        assert_eq!(
            notes,
            [
                "declined the server's question (--decline): Tell me",
                "declined the server's question `llm`: sampling"
            ]
        );
        assert_eq!(
            answers,
            vec![
                ("form".into(), Answer::Decline),
                ("llm".into(), Answer::Decline)
            ]
        );
    }

    #[test]
    fn a_note_is_said_once_per_request_however_often_the_server_asks() {
        let mut rounds = Rounds::default();
        let mut notes = Vec::new();
        let given = flags(&["name=Ann"], None);
        for _ in 0..3 {
            let answered = answer_with(&survey(), &given, "s", None, &mut rounds, &mut |n| {
                notes.push(n.to_string())
            });
            assert!(answered.is_ok(), "{answered:?}");
        }
        assert_eq!(notes, ["declined the server's question `llm`: sampling"]);
        // `name` was used; a name no round asked for is what `get` warns about.
        let extra = flags(&["name=Ann", "nope=1"], None);
        assert_eq!(rounds.unused(&extra), ["nope"]);
        assert!(Rounds::default().unused(&given) == ["name"]);
    }

    #[test]
    fn an_answer_no_question_asks_for_is_a_flag_error_not_the_servers_question() {
        let mut rounds = Rounds::default();
        let answered = answer_with(
            &confirm(),
            &flags(&["nope=1"], None),
            "s",
            None,
            &mut rounds,
            &mut |_| {},
        );
        let Err(NotAnswered::UnknownName(words)) = answered else {
            panic!("{answered:?}")
        };
        assert!(
            words.starts_with("--answer nope: no question asks for `nope`"),
            "{words}"
        );
        assert!(
            words.contains("the server asked for `confirmed`"),
            "{words}"
        );
        // A name an earlier round of the same request used is not unknown in a later one.
        let mut rounds = Rounds::default();
        let both = flags(&["confirmed=yes", "name=Ann"], None);
        let first = answer_with(&survey(), &both, "s", None, &mut rounds, &mut |_| {});
        assert!(
            matches!(first, Err(NotAnswered::UnknownName(_))),
            "{first:?}"
        );
        let mut rounds = Rounds::default();
        let only_name = flags(&["name=Ann"], None);
        assert!(answer_with(&survey(), &only_name, "s", None, &mut rounds, &mut |_| {}).is_ok());
        let later = answer_with(&confirm(), &both, "s", None, &mut rounds, &mut |_| {});
        assert!(later.is_ok(), "{later:?}");
    }

    #[test]
    fn a_choice_is_described_by_its_labels() {
        let QuestionKind::Form { fields, .. } = &survey().questions[0].kind else {
            panic!()
        };
        assert_eq!(describe_field(&fields[2]), "color (one of Red, Green)");
        assert_eq!(
            describe_field(&fields[3]),
            "tags (any of Red, Green, joined by commas)"
        );
    }

    /// A terminal that types the given lines and records what was shown.
    struct Typist {
        lines: Vec<AskedValue>,
        shown: Vec<String>,
    }

    impl Asker for Typist {
        fn say(&mut self, line: &str) {
            self.shown.push(line.to_string());
        }
        fn detail(&mut self, line: &str) {
            self.shown.push(format!("  {line}"));
        }
        fn read(&mut self, prompt: &str) -> Result<AskedValue, String> {
            self.shown.push(prompt.to_string());
            Ok(self.lines.remove(0))
        }
    }

    fn typed(lines: &[&str]) -> Typist {
        Typist {
            lines: lines
                .iter()
                .map(|l| match *l {
                    "" => AskedValue::Empty,
                    "<esc>" => AskedValue::Decline,
                    "<ctrl-c>" => AskedValue::Stop,
                    text => AskedValue::Text(text.into()),
                })
                .collect(),
            shown: Vec::new(),
        }
    }

    #[test]
    fn on_a_terminal_each_field_is_asked_with_its_marks_and_retried_until_it_fits() {
        // name: empty (required, asked again), then too short, then fine; age: empty takes
        // the default; color by label; tags empty (optional) is left out.
        let mut typist = typed(&["", "A", "Ann", "", "green", ""]);
        let answers = accepted(answer_quietly(
            &survey(),
            &AnswerFlags::default(),
            "srv",
            Some(&mut typist),
        ));
        assert_eq!(
            answers[0].1,
            content(json!({"name":"Ann","age":30,"color":"g"}))
        );
        let shown = typist.shown.join("\n");
        assert!(shown.contains("server `srv` asks: Tell me"), "{shown}");
        assert!(shown.contains("name (text, required): "), "{shown}");
        assert!(
            shown.contains("required: type a value, or Esc to decline"),
            "{shown}"
        );
        assert!(shown.contains("needs at least 2 characters"), "{shown}");
        assert!(
            shown.contains("age (a whole number from 1 to 150, default 30): "),
            "{shown}"
        );
        assert!(
            shown.contains("tags (any of Red, Green, joined by commas): "),
            "{shown}"
        );
    }

    #[test]
    fn on_a_terminal_flags_answer_first_esc_declines_and_ctrl_c_stops() {
        let mut typist = typed(&["no"]);
        let answers = accepted(answer_quietly(
            &confirm(),
            &AnswerFlags::default(),
            "s",
            Some(&mut typist),
        ));
        assert_eq!(answers[0].1, content(json!({"confirmed": false})));
        // Given by a flag, a field is not asked.
        let mut typist = typed(&["Ann", "", "", ""]);
        let answers = accepted(answer_quietly(
            &survey(),
            &flags(&["age=5"], None),
            "s",
            Some(&mut typist),
        ));
        assert_eq!(answers[0].1, content(json!({"name":"Ann","age":5})));
        assert!(!typist.shown.iter().any(|s| s.contains("age (")));
        let mut typist = typed(&["<esc>"]);
        let answers = accepted(answer_quietly(
            &confirm(),
            &AnswerFlags::default(),
            "s",
            Some(&mut typist),
        ));
        assert_eq!(answers[0].1, Answer::Decline);
        let mut typist = typed(&["<ctrl-c>"]);
        assert_eq!(
            answer_quietly(&confirm(), &AnswerFlags::default(), "s", Some(&mut typist)),
            Ok(Answered::Stopped)
        );
    }
}
