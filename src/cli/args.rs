//! Prompt arguments from the command line: `NAME=VALUE` pairs and `--args-json`.

use std::collections::BTreeMap;

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
