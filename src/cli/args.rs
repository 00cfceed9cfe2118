//! Prompt arguments from the command line: `NAME=VALUE` pairs (with curl's `@FILE` and
//! `-`), `--arg-file NAME=PATH` and `--args-json`. `get`, `complete` and the full-screen
//! menu's `SERVER/PROMPT NAME=VALUE…` read them all the same way, here.

use std::collections::BTreeMap;

use crate::app::source::ValueSource;

/// An argument's value as the command line gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GivenValue {
    /// The value itself.
    Text(String),
    /// A file's contents (`NAME=@PATH`, `--arg-file NAME=PATH`).
    File(String),
    /// Standard input (`NAME=-`).
    Stdin,
}

/// One argument from the command line, as written there (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// The argument's name.
    pub name: String,
    /// Its value, or where to read it.
    pub value: GivenValue,
    /// The word as typed (`diff=-`).
    pub written: String,
}

/// `NAME=VALUE` as curl reads `-d`: `NAME=@PATH` takes the file's contents, `NAME=@@…` is
/// a value starting with `@`, `NAME=-` reads standard input; anything else is the value.
pub fn parse_given(text: &str) -> Result<Given, String> {
    let (name, value) = parse_assignment(text)?;
    let value = if let Some(literal) = value.strip_prefix("@@") {
        GivenValue::Text(format!("@{literal}"))
    } else if let Some(path) = value.strip_prefix('@') {
        if path.is_empty() {
            return Err(format!(
                "`{text}` names no file: write {name}=@PATH for a file's contents, or {name}=@@… for a value starting with @"
            ));
        }
        GivenValue::File(path.to_string())
    } else if value == "-" {
        GivenValue::Stdin
    } else {
        GivenValue::Text(value)
    };
    Ok(Given {
        name,
        value,
        written: text.to_string(),
    })
}

/// `--arg-file NAME=PATH`: the file's contents (no `@` needed, none taken away).
pub fn parse_arg_file(text: &str) -> Result<Given, String> {
    let (name, path) = parse_assignment(text).map_err(|e| format!("--arg-file: {e}"))?;
    if path.is_empty() {
        return Err(format!(
            "--arg-file `{text}` names no file (write NAME=PATH)"
        ));
    }
    Ok(Given {
        name,
        value: GivenValue::File(path),
        written: format!("--arg-file {text}"),
    })
}

/// The words of `assignments` (`NAME=VALUE`, `@`, `-`) and of `arg_files`, parsed.
pub fn parse_all(assignments: &[String], arg_files: &[String]) -> Result<Vec<Given>, String> {
    let mut given = Vec::new();
    for text in assignments {
        given.push(parse_given(text)?);
    }
    for text in arg_files {
        given.push(parse_arg_file(text)?);
    }
    Ok(given)
}

/// Argument values in command-line order, and where those read from a file or stdin came
/// from.
pub type ReadValues = (Vec<(String, String)>, BTreeMap<String, ValueSource>);

/// The values of `given`, files and standard input read (stdin with `read_stdin`, at most
/// once per run), each at most `limit` bytes of text; and where each read one came from.
pub fn read_given(
    given: Vec<Given>,
    limit: usize,
    read_stdin: impl FnOnce(usize) -> Result<String, String>,
) -> Result<ReadValues, String> {
    let stdin_users: Vec<&Given> = given
        .iter()
        .filter(|g| g.value == GivenValue::Stdin)
        .collect();
    if let [first, second, ..] = stdin_users[..] {
        return Err(format!(
            "`{}` and `{}` both read standard input, which can be read once: give one of them from a file (NAME=@FILE)",
            first.written, second.written
        ));
    }
    let mut read_stdin = Some(read_stdin);
    let mut values = Vec::new();
    let mut sources = BTreeMap::new();
    for Given { name, value, .. } in given {
        let text = match value {
            GivenValue::Text(text) => text,
            GivenValue::File(path) => {
                let text = crate::value_io::read_file(&path, limit)
                    .map_err(|e| format!("argument `{name}`: {e}"))?;
                sources.insert(name.clone(), ValueSource::File(path));
                text
            }
            GivenValue::Stdin => {
                let read = read_stdin
                    .take()
                    .expect("stdin is read once, checked above");
                let text = read(limit).map_err(|e| format!("argument `{name}`: {e}"))?;
                sources.insert(name.clone(), ValueSource::Stdin);
                text
            }
        };
        values.push((name, text));
    }
    Ok((values, sources))
}

/// Splits `NAME=VALUE` at the first `=`: the value keeps any further `=`, spaces and newlines.
pub fn parse_assignment(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.to_string(), value.to_string())),
        Some(_) => Err(format!(
            "`{text}` has no argument name before `=` (write NAME=VALUE)"
        )),
        None => Err(format!(
            "`{text}` is not NAME=VALUE (quote values with spaces: name=\"a b\")"
        )),
    }
}

/// Reads a JSON object of argument values. Strings are taken as they are; numbers and
/// booleans as their JSON text (prompt arguments are always strings on the wire).
pub fn parse_args_json(text: &str) -> Result<Vec<(String, String)>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("--args-json is not valid JSON: {e}"))?;
    let serde_json::Value::Object(map) = value else {
        return Err("--args-json must be a JSON object, like '{\"name\":\"value\"}'".into());
    };
    map.into_iter()
        .map(|(name, value)| match value {
            serde_json::Value::String(s) => Ok((name, s)),
            serde_json::Value::Number(n) => Ok((name, n.to_string())),
            serde_json::Value::Bool(b) => Ok((name, b.to_string())),
            other => Err(format!(
                "--args-json: argument `{name}` must be a string, not {}",
                match other {
                    serde_json::Value::Null => "null",
                    serde_json::Value::Array(_) => "an array",
                    _ => "an object",
                }
            )),
        })
        .collect()
}

/// Merges arguments from every source; giving one name twice is an error.
pub fn merge(
    sources: impl IntoIterator<Item = (String, String)>,
) -> Result<BTreeMap<String, String>, String> {
    let mut merged = BTreeMap::new();
    for (name, value) in sources {
        if merged.insert(name.clone(), value).is_some() {
            return Err(format!("argument `{name}` is given more than once"));
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_takes_a_file_double_at_is_literal_and_dash_is_stdin() {
        assert_eq!(
            parse_given("error=@build.log").unwrap().value,
            GivenValue::File("build.log".into())
        );
        assert_eq!(
            parse_given("who=@@alice").unwrap().value,
            GivenValue::Text("@alice".into())
        );
        assert_eq!(parse_given("diff=-").unwrap().value, GivenValue::Stdin);
        assert_eq!(
            parse_given("x=a-b@c").unwrap().value,
            GivenValue::Text("a-b@c".into())
        );
        assert!(parse_given("x=@").unwrap_err().contains("names no file"));
        assert_eq!(
            parse_arg_file("error=@odd").unwrap().value,
            GivenValue::File("@odd".into())
        );
    }

    #[test]
    fn stdin_is_read_once_and_named_as_its_source() {
        let given = parse_all(&["a=-".into(), "b=1".into()], &[]).unwrap();
        let (values, sources) = read_given(given, 100, |_| Ok("piped".into())).unwrap();
        assert_eq!(
            values,
            vec![("a".into(), "piped".into()), ("b".into(), "1".into())]
        );
        assert_eq!(sources, BTreeMap::from([("a".into(), ValueSource::Stdin)]));
        let twice = parse_all(&["a=-".into(), "b=-".into()], &[]).unwrap();
        let err = read_given(twice, 100, |_| panic!("not read")).unwrap_err();
        assert!(
            err.contains("`a=-` and `b=-` both read standard input"),
            "{err}"
        );
    }

    #[test]
    fn values_keep_spaces_newlines_and_equals() {
        assert_eq!(
            parse_assignment("city=New York").unwrap(),
            ("city".into(), "New York".into())
        );
        assert_eq!(
            parse_assignment("q=a=b==c").unwrap(),
            ("q".into(), "a=b==c".into())
        );
        assert_eq!(
            parse_assignment("t=line1\nline2").unwrap(),
            ("t".into(), "line1\nline2".into())
        );
        assert_eq!(
            parse_assignment("empty=").unwrap(),
            ("empty".into(), String::new())
        );
    }

    #[test]
    fn malformed_assignments_explain_the_form() {
        assert!(
            parse_assignment("novalue")
                .unwrap_err()
                .contains("NAME=VALUE")
        );
        assert!(
            parse_assignment("=x")
                .unwrap_err()
                .contains("no argument name")
        );
    }

    #[test]
    fn json_objects_of_scalars_are_accepted() {
        let args = parse_args_json(r#"{"city":"New York","n":3,"ok":true}"#).unwrap();
        assert_eq!(
            args,
            vec![
                ("city".to_string(), "New York".to_string()),
                ("n".to_string(), "3".to_string()),
                ("ok".to_string(), "true".to_string())
            ]
        );
    }

    #[test]
    fn json_errors_say_what_is_wrong() {
        assert!(parse_args_json("[1]").unwrap_err().contains("JSON object"));
        assert!(parse_args_json("{").unwrap_err().contains("not valid JSON"));
        assert!(
            parse_args_json(r#"{"a":null}"#)
                .unwrap_err()
                .contains("`a` must be a string, not null")
        );
    }

    #[test]
    fn duplicate_names_are_errors() {
        let err = merge(vec![("a".into(), "1".into()), ("a".into(), "2".into())]).unwrap_err();
        assert!(err.contains("`a`"));
    }
}
