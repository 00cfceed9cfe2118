//! Templates: literal text with argument slots, filled in a single pass (a value that
//! itself looks like a placeholder is never expanded again).

use std::collections::BTreeMap;

/// A piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Text copied as it is.
    Literal(String),
    /// The value of the named argument (empty when not given).
    Arg(String),
    /// A Claude Code positional placeholder (`$1`, `$ARGUMENTS[0]`): the argument `name`
    /// when given (not empty), else word `index` (from 0) of the line (the argument
    /// `words_of`, or when that is not given, `positions` joined as `$ARGUMENTS` joins
    /// them, so the two always agree), else the placeholder as `written`, which is what
    /// Claude Code leaves for a missing word.
    Word {
        /// The positional argument's own name.
        name: String,
        /// Which word of `words_of`, from 0.
        index: usize,
        /// The argument holding the whole line (`arguments`).
        words_of: String,
        /// The placeholder's text in the file.
        written: String,
        /// Every positional argument of the command, first position first.
        positions: Vec<String>,
    },
    /// What Claude Code adds to a command without placeholders: `prefix` and the argument
    /// `name`, when given (not empty); nothing otherwise.
    Trailer {
        /// The argument holding the whole line (`arguments`).
        name: String,
        /// The text before it (`\n\nARGUMENTS: `).
        prefix: String,
    },
    /// Claude Code's `$ARGUMENTS`: the argument `name` when given (not empty), else the
    /// positional arguments `positions` (in order) joined into one line, each quoted where
    /// it would not stay one word.
    Line {
        /// The argument holding the whole line (`arguments`).
        name: String,
        /// The positional arguments, first position first.
        positions: Vec<String>,
    },
}

/// A parsed template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    /// Its pieces, in order.
    pub segments: Vec<Segment>,
}

impl Template {
    /// Appends literal text, merging with a literal before it.
    pub fn push_literal(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.segments.last_mut() {
            Some(Segment::Literal(last)) => last.push_str(text),
            _ => self.segments.push(Segment::Literal(text.to_string())),
        }
    }

    /// Appends an argument slot.
    pub fn push_arg(&mut self, name: &str) {
        self.segments.push(Segment::Arg(name.to_string()));
    }

    /// Fills the slots from `values`; a missing value is the empty string.
    pub fn render(&self, values: &BTreeMap<String, String>) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Literal(text) => out.push_str(text),
                Segment::Arg(name) => out.push_str(values.get(name).map_or("", String::as_str)),
                Segment::Word {
                    name,
                    index,
                    words_of,
                    written,
                    positions,
                } => match given(values, name) {
                    Some(value) => out.push_str(value),
                    None => {
                        let words = split_words(&line(values, words_of, positions));
                        out.push_str(words.get(*index).map_or(written.as_str(), String::as_str))
                    }
                },
                Segment::Trailer { name, prefix } => {
                    if let Some(line) = given(values, name) {
                        out.push_str(prefix);
                        out.push_str(line);
                    }
                }
                Segment::Line { name, positions } => {
                    out.push_str(&line(values, name, positions));
                }
            }
        }
        out
    }

    /// The argument names used, in order of first use.
    pub fn arg_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for segment in &self.segments {
            let name = match segment {
                Segment::Literal(_) => continue,
                Segment::Arg(name)
                | Segment::Word { name, .. }
                | Segment::Line { name, .. }
                | Segment::Trailer { name, .. } => name,
            };
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }
}

/// A value that was given and is not empty (forms send empty fields as `""`).
fn given<'a>(values: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    values
        .get(name)
        .map(String::as_str)
        .filter(|v| !v.is_empty())
}

/// Claude Code's `$ARGUMENTS`: the argument `name` when given (not empty), else the
/// `positions` typed, joined (a position left empty before a typed one is `""`, as
/// `/fix "" high` would type it).
fn line(values: &BTreeMap<String, String>, name: &str, positions: &[String]) -> String {
    match given(values, name) {
        Some(line) => line.to_string(),
        None => {
            let words: Vec<&str> = positions
                .iter()
                .map(|p| given(values, p).unwrap_or(""))
                .collect();
            join_words(&words)
        }
    }
}

/// Splits a line into words as Claude Code does (its `shell-quote`): whitespace separates
/// words; `'…'` and `"…"` keep a word whole (inside `"…"`, a backslash escapes `"`, `\`,
/// `$` and `` ` ``); a backslash outside quotes escapes the next character. A quote left
/// open makes it split at whitespace only, as Claude Code falls back to. Everything else
/// (`#`, `|`, `$HOME`) is plain text: these are words for a prompt, not a shell command.
pub fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return line.split_whitespace().map(str::to_string).collect(),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => {
                                return line.split_whitespace().map(str::to_string).collect();
                            }
                        },
                        Some(c) => word.push(c),
                        None => return line.split_whitespace().map(str::to_string).collect(),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().unwrap_or('\\'));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Joins words into one line that [`split_words`] splits back into them: a word with
/// whitespace, quotes or backslashes (or an empty one) is double-quoted. Empty words at
/// the end are left out, as no one types them.
pub fn join_words(words: &[&str]) -> String {
    let used = words
        .iter()
        .rposition(|w| !w.is_empty())
        .map_or(0, |i| i + 1);
    let quoted: Vec<String> = words[..used]
        .iter()
        .map(|word| {
            let plain = !word.is_empty()
                && !word
                    .chars()
                    .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\'));
            if plain {
                word.to_string()
            } else {
                let mut out = String::from('"');
                for c in word.chars() {
                    if matches!(c, '"' | '\\' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(c);
                }
                out.push('"');
                out
            }
        })
        .collect();
    quoted.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_inserted_once_and_never_reexpanded() {
        let mut template = Template::default();
        template.push_literal("a ");
        template.push_arg("x");
        template.push_literal(" b ");
        template.push_arg("y");
        let values = BTreeMap::from([
            (
                "x".to_string(),
                "{{y}} $1 ${input:z} }}\nnew line — ü".to_string(),
            ),
            ("y".to_string(), String::new()),
        ]);
        assert_eq!(
            template.render(&values),
            "a {{y}} $1 ${input:z} }}\nnew line — ü b "
        );
    }

    #[test]
    fn missing_values_are_empty_and_literals_merge() {
        let mut template = Template::default();
        template.push_literal("a");
        template.push_literal("b");
        template.push_arg("x");
        template.push_arg("x");
        assert_eq!(template.segments.len(), 3);
        assert_eq!(template.render(&BTreeMap::new()), "ab");
        assert_eq!(template.arg_names(), vec!["x"]);
    }

    #[test]
    fn words_split_as_a_shell_would_and_join_back() {
        let split = |line: &str| split_words(line);
        assert_eq!(split("  123   high "), ["123", "high"]);
        assert_eq!(
            split(r#"'My Button' "a \"b\" \$x \n" c\ d"#),
            ["My Button", r#"a "b" $x \n"#, "c d"]
        );
        assert_eq!(split(r#"x "" y"#), ["x", "", "y"]);
        assert_eq!(split("#123 a|b $HOME"), ["#123", "a|b", "$HOME"]);
        // A quote left open: split at whitespace only, as Claude Code falls back to.
        assert_eq!(split("it's fine"), ["it's", "fine"]);
        assert!(split(" \t\n").is_empty());
        for words in [
            vec!["123", "high"],
            vec!["very high", "", r#"q"u'o\te$`"#, "x"],
        ] {
            assert_eq!(split(&join_words(&words)), words);
        }
        assert_eq!(join_words(&["a", "", "b c", "", ""]), r#"a "" "b c""#);
    }
}
