//! `${VAR}` and `${VAR:-default}` expansion for config strings, and the `${input:ID}`
//! values asked for when a server starts.

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

/// Why a string could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ExpandError {
    /// `${NAME}` named a variable that is not set and gave no default.
    #[error("environment variable `{0}` is not set (set it, or write ${{{0}:-default}})")]
    Unset(String),
    /// `${` without a closing `}`.
    #[error("`${{` is never closed with `}}` (write `$${{` for a literal `${{`)")]
    Unclosed,
    /// The text between `${` and `}` is not a variable name.
    #[error("`{0}` is not a variable name (letters, digits and `_`, not starting with a digit)")]
    BadName(String),
    /// `${input:ID}` named an input nobody gave a value for.
    #[error("input `{0}` has no value (type it when mcpick asks, or set {var})", var = input_variable(.0))]
    NoInput(String),
}

/// The environment variable that gives input `id` a value without asking: `MCPICK_INPUT_`
/// and the id in upper case, other characters as `_`.
pub fn input_variable(id: &str) -> String {
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("MCPICK_INPUT_{cleaned}")
}

/// Whether `id` can name an input in `${input:ID}`: letters, digits, `_`, `-` and `.`.
pub fn is_input_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Expands `${VAR}` and `${VAR:-default}` in `input`, looking variables up with `lookup`.
///
/// `${input:ID}` is looked up as `input:ID`: the caller decides where inputs come from.
///
/// `$${` is an escape for a literal `${`. A `$` not followed by `{` is kept as it is, so
/// shell-like text such as `$HOME` or `a$b` passes through untouched. A variable set to the
/// empty string counts as unset for `:-`, as in POSIX shells.
pub fn expand(input: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(escaped) = after.strip_prefix("${") {
            out.push_str("${");
            rest = escaped;
            continue;
        }
        let Some(body_start) = after.strip_prefix('{') else {
            out.push('$');
            rest = after;
            continue;
        };
        let end = body_start.find('}').ok_or(ExpandError::Unclosed)?;
        let body = &body_start[..end];
        let (name, default) = match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        };
        let input = name.strip_prefix("input:");
        let valid = match input {
            Some(id) => is_input_id(id),
            None => is_variable_name(name),
        };
        if !valid {
            return Err(ExpandError::BadName(name.to_string()));
        }
        match (
            lookup(name).filter(|v| !v.is_empty() || default.is_none()),
            default,
        ) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(match input {
                    Some(id) => ExpandError::NoInput(id.to_string()),
                    None => ExpandError::Unset(name.to_string()),
                });
            }
        }
        rest = &body_start[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A value a server's config asks for with `${input:ID}` (VS Code's inputs): asked once
/// when the server starts, kept in memory only, never written anywhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// The id in `${input:ID}`.
    pub id: String,
    /// What to ask, from `[inputs.ID] description` (may be empty).
    pub description: String,
    /// Whether typing is masked (`password`, default true: inputs are usually secrets).
    pub password: bool,
}

impl InputSpec {
    /// How to ask for it: the description, else the id.
    pub fn label(&self) -> &str {
        if self.description.trim().is_empty() {
            &self.id
        } else {
            &self.description
        }
    }
}

/// Values typed for inputs, by id. Its `Debug` shows the ids only: the values are secrets.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct InputValues(BTreeMap<String, String>);

impl InputValues {
    /// Gives input `id` its value.
    pub fn insert(&mut self, id: impl Into<String>, value: impl Into<String>) {
        self.0.insert(id.into(), value.into());
    }

    /// The value of input `id`, if given.
    pub fn get(&self, id: &str) -> Option<&str> {
        self.0.get(id).map(String::as_str)
    }

    /// Adds every value of `other`, replacing those with the same id.
    pub fn extend(&mut self, other: InputValues) {
        self.0.extend(other.0);
    }
}

impl fmt::Debug for InputValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "EMPTY" => Some(String::new()),
            "TOKEN" => Some("s3cr=t".into()),
            _ => None,
        }
    }

    #[test]
    fn plain_text_is_unchanged() {
        assert_eq!(expand("npx -y pkg", &env).unwrap(), "npx -y pkg");
    }

    #[test]
    fn set_variables_expand_anywhere_in_the_string() {
        assert_eq!(expand("${HOME}/x", &env).unwrap(), "/home/u/x");
        assert_eq!(expand("Bearer ${TOKEN}!", &env).unwrap(), "Bearer s3cr=t!");
        assert_eq!(expand("${HOME}${TOKEN}", &env).unwrap(), "/home/us3cr=t");
    }

    #[test]
    fn default_applies_when_unset_or_empty() {
        assert_eq!(expand("${NOPE:-fallback}", &env).unwrap(), "fallback");
        assert_eq!(expand("${EMPTY:-fallback}", &env).unwrap(), "fallback");
        assert_eq!(expand("${NOPE:-}", &env).unwrap(), "");
        assert_eq!(expand("${HOME:-fallback}", &env).unwrap(), "/home/u");
    }

    #[test]
    fn empty_value_without_default_is_kept_empty() {
        assert_eq!(expand("[${EMPTY}]", &env).unwrap(), "[]");
    }

    #[test]
    fn unset_variable_is_an_error_naming_it() {
        assert_eq!(
            expand("a ${MISSING} b", &env),
            Err(ExpandError::Unset("MISSING".into()))
        );
    }

    #[test]
    fn lone_dollars_and_escapes_pass_through() {
        assert_eq!(expand("$HOME a$b $", &env).unwrap(), "$HOME a$b $");
        assert_eq!(expand("$${HOME}", &env).unwrap(), "${HOME}");
    }

    #[test]
    fn inputs_are_looked_up_by_their_prefixed_name() {
        let lookup = |name: &str| (name == "input:api-key").then(|| "k3y".to_string());
        assert_eq!(
            expand("Bearer ${input:api-key}", &lookup).unwrap(),
            "Bearer k3y"
        );
        assert_eq!(
            expand("${input:other.id}", &lookup),
            Err(ExpandError::NoInput("other.id".into()))
        );
        assert_eq!(expand("${input:other:-none}", &lookup).unwrap(), "none");
        assert_eq!(
            expand("${input:}", &lookup),
            Err(ExpandError::BadName("input:".into()))
        );
        assert_eq!(
            expand("${input:a b}", &lookup),
            Err(ExpandError::BadName("input:a b".into()))
        );
        assert_eq!(
            input_variable("perplexity-key"),
            "MCPICK_INPUT_PERPLEXITY_KEY"
        );
    }

    #[test]
    fn malformed_references_are_errors() {
        assert_eq!(expand("${HOME", &env), Err(ExpandError::Unclosed));
        assert_eq!(
            expand("${1X}", &env),
            Err(ExpandError::BadName("1X".into()))
        );
        assert_eq!(
            expand("${}", &env),
            Err(ExpandError::BadName(String::new()))
        );
    }
}
