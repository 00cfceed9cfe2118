//! YAML front matter between `---` lines at the top of a Markdown file.

use serde::de::DeserializeOwned;

use super::LoadError;

/// A file split into its front matter and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML text, if the file has front matter.
    pub yaml: Option<&'a str>,
    /// The text after the front matter.
    pub body: &'a str,
    /// The 1-based line number of the body's first line.
    pub body_line: usize,
}

/// Splits off front matter: the first line is `---`, and it ends at the next `---` (or
/// `...`) line. A file without it is all body.
pub fn split(text: &str) -> Split<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let all_body = Split {
        yaml: None,
        body: text,
        body_line: 1,
    };
    let Some(first_end) = text.find('\n') else {
        return all_body;
    };
    if text[..first_end].trim_end() != "---" {
        return all_body;
    }
    let mut offset = first_end + 1;
    let mut line = 2;
    while offset <= text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let current = text[offset..end].trim_end();
        if current == "---" || current == "..." {
            let body_start = (end + 1).min(text.len());
            return Split {
                yaml: Some(&text[first_end + 1..offset]),
                body: &text[body_start..],
                // A file that ends with the closing line has no line after it.
                body_line: line + usize::from(end < text.len()),
            };
        }
        if end == text.len() {
            break;
        }
        offset = end + 1;
        line += 1;
    }
    all_body
}

/// Parses front matter into `T`; errors carry the file's line number.
pub fn parse<T: DeserializeOwned + Default>(
    yaml: Option<&str>,
    file: &str,
) -> Result<T, LoadError> {
    let Some(yaml) = yaml else {
        return Ok(T::default());
    };
    if yaml.trim().is_empty() {
        return Ok(T::default());
    }
    yaml_serde::from_str(yaml).map_err(|e| {
        // Line 1 of the YAML is line 2 of the file (after the opening `---`). YAML also
        // breaks lines at a lone `\r` (and U+0085, U+2028, U+2029), so count the `\n`s.
        let line = e.location().map(|l| {
            let before = yaml.get(..l.index()).unwrap_or(yaml);
            before.matches('\n').count() + 2
        });
        let message = e.to_string();
        let message = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string();
        LoadError {
            file: file.to_string(),
            line,
            message: format!("front matter: {message}"),
        }
    })
}

/// Reads front matter the lenient way VS Code and Claude Code files need: top-level
/// `key: value` lines, the value taken as written (quotes removed, `|`/`>` blocks joined).
/// Their hints are often not valid YAML (`argument-hint: [pr-number] [priority]`), and
/// keys this reader does not know (lists of tools, models) are simply skipped.
pub fn flat(yaml: Option<&str>) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let Some(yaml) = yaml else { return out };
    let lines: Vec<&str> = yaml.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            continue;
        }
        let value = value.trim();
        let value = if value.starts_with('|') || value.starts_with('>') {
            let mut block = Vec::new();
            while i < lines.len()
                && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty())
            {
                block.push(lines[i].trim());
                i += 1;
            }
            let separator = if value.starts_with('|') { "\n" } else { " " };
            block.join(separator).trim().to_string()
        } else {
            unquote(value)
        };
        out.insert(key.to_string(), value);
    }
    out
}

fn unquote(value: &str) -> String {
    let value = match value.find(" #") {
        Some(at) if !value.starts_with(['"', '\'']) => value[..at].trim_end(),
        _ => value,
    };
    if value.len() >= 2 {
        if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            return inner.replace("\\\"", "\"").replace("\\n", "\n");
        }
        if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            return inner.replace("''", "'");
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_front_matter_keeps_hints_as_written() {
        let meta = flat(Some(
            "description: \"Fix it: now\"\nargument-hint: [pr-number] [priority]\nallowed-tools:\n  - Bash\nmodel: 'x'  \nsummary: |\n  line one\n  line two\nnote: plain # comment\n",
        ));
        assert_eq!(meta["description"], "Fix it: now");
        assert_eq!(meta["argument-hint"], "[pr-number] [priority]");
        assert_eq!(meta["model"], "x");
        assert_eq!(meta["summary"], "line one\nline two");
        assert_eq!(meta["note"], "plain");
        assert_eq!(meta["allowed-tools"], "");
    }

    #[test]
    fn front_matter_is_split_with_the_body_line() {
        let split = split("---\nname: x\n---\nhello\n");
        assert_eq!(split.yaml, Some("name: x\n"));
        assert_eq!(split.body, "hello\n");
        assert_eq!(split.body_line, 4);
    }

    #[test]
    fn files_without_front_matter_are_all_body() {
        assert_eq!(split("hello\n---\n").yaml, None);
        assert_eq!(split("").body, "");
        assert_eq!(split("---\nunclosed: yes\n").yaml, None);
    }

    /// Found by fuzzing: `---\n---` put the (empty) body on line 3 of a two-line file.
    #[test]
    fn a_file_ending_with_the_closing_line_keeps_the_body_on_it() {
        let split = split("\u{feff}---\r\n---");
        assert_eq!((split.yaml, split.body, split.body_line), (Some(""), "", 2));
    }

    #[test]
    fn crlf_and_bom_are_tolerated() {
        let split = split("\u{feff}---\r\nname: x\r\n---\r\nbody");
        assert_eq!(split.yaml, Some("name: x\r\n"));
        assert_eq!(split.body, "body");
    }

    /// Found by fuzzing: YAML counts a lone `\r` as a line break, and the error pointed
    /// past the end of the file.
    #[test]
    fn yaml_error_lines_count_only_line_feeds() {
        let err = parse::<serde_json::Value>(Some("a: 1\r\r\rb: [\n"), "a.md").unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
        let err = parse::<serde_json::Value>(Some("é: 1\nb: c: d\n"), "a.md").unwrap_err();
        assert_eq!(err.line, Some(3), "{err}");
    }

    #[test]
    fn yaml_errors_name_the_file_line() {
        #[derive(Debug, Default, serde::Deserialize)]
        struct Meta {
            #[allow(dead_code)]
            name: Option<String>,
        }
        let err = parse::<Meta>(Some("name: [unclosed\n"), "a.md").unwrap_err();
        assert_eq!(err.file, "a.md");
        assert!(err.line.is_some(), "{err}");
        assert!(err.message.starts_with("front matter:"), "{err}");
    }
}
