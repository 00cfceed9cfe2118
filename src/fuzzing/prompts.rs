//! Prompt files: front matter, the three formats' parsers, and filling the templates.

use std::collections::BTreeMap;

use crate::library::native::{EmbedError, FileReader};
use crate::library::template::{self, Segment, Template};
use crate::library::{
    ArgumentError, Library, LoadError, MessageTemplate, PromptDef, SourceFormat, claude,
    frontmatter, native, vscode,
};
use crate::model::{Content, KnownContent};

/// Fuzz entry point: the input as the text of a prompt file of every format.
pub fn prompt_files(data: &[u8]) {
    check_prompt_file(&super::text_of(data));
}

/// Embedded files for `*.mcpick.md`: a path holding `missing` does not exist, one holding
/// `binary` is not UTF-8, an image extension gives image bytes, anything else some text.
struct Files;

impl FileReader for Files {
    fn read_relative(&self, relative: &str) -> Result<(String, Vec<u8>), EmbedError> {
        if relative.contains("missing") {
            return Err(EmbedError::Io("No such file or directory".into()));
        }
        let bytes = if native::mime_for(relative).starts_with("image/") {
            b"\x89PNG\r\n\x1a\n".to_vec()
        } else if relative.contains("binary") {
            vec![0xff, 0xfe, 0x00]
        } else {
            format!("the text of {relative}\n").into_bytes()
        };
        Ok((format!("file:///prompts/{relative}"), bytes))
    }
}

/// Every promise of the prompt-file readers about `text`: the front matter split, the
/// lenient and the YAML reading of it, and each format's parser, whose prompts are then
/// filled through [`Library::render`].
pub fn check_prompt_file(text: &str) {
    check_split(text);
    let split = frontmatter::split(text);
    for key in frontmatter::flat(split.yaml).keys() {
        assert!(
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_'),
            "flat front matter gave the key {key:?}"
        );
    }
    if let Err(error) = frontmatter::parse::<serde_json::Value>(split.yaml, "any.md") {
        check_error(text, "any.md", &error);
    }
    let results = [
        (
            "a.prompt.md",
            SourceFormat::VsCode,
            vscode::parse(text, "a.prompt.md", "a"),
        ),
        (
            "commands/a.md",
            SourceFormat::ClaudeCode,
            claude::parse(text, "commands/a.md", "a"),
        ),
        (
            "a.mcpick.md",
            SourceFormat::Mcpick,
            native::parse(text, "a.mcpick.md", "a", &Files),
        ),
    ];
    for (file, format, result) in results {
        match result {
            Ok(prompt) => {
                assert_eq!(prompt.format, format);
                assert_eq!(prompt.source, file);
                check_prompt(&prompt);
                check_render(&prompt);
                if format == SourceFormat::ClaudeCode {
                    check_claude_round_trip(split.body, &prompt);
                }
            }
            Err(error) => {
                assert_ne!(
                    format,
                    SourceFormat::ClaudeCode,
                    "Claude Code commands are read leniently, yet {error}"
                );
                check_error(text, file, &error);
            }
        }
    }
}

/// [`frontmatter::split`]: the front matter is the text between a first `---` line and
/// the next `---` or `...` line, the body is the rest, and `body_line` is its line.
fn check_split(text: &str) {
    let stripped = text.strip_prefix('\u{feff}').unwrap_or(text);
    let split = frontmatter::split(text);
    assert!(
        stripped.ends_with(split.body),
        "the body is not the end of the file"
    );
    let body_at = stripped.len() - split.body.len();
    let Some(yaml) = split.yaml else {
        assert_eq!(
            split.body, stripped,
            "a file without front matter is all body"
        );
        assert_eq!(split.body_line, 1);
        return;
    };
    let first_end = stripped
        .find('\n')
        .expect("front matter starts with a line");
    assert_eq!(stripped[..first_end].trim_end(), "---");
    let yaml_at = first_end + 1;
    assert!(
        stripped[yaml_at..].starts_with(yaml),
        "the front matter is not the text after the first line"
    );
    assert!(
        yaml.lines()
            .all(|line| !matches!(line.trim_end(), "---" | "...")),
        "the front matter {yaml:?} runs past its closing line"
    );
    let closing = &stripped[yaml_at + yaml.len()..body_at];
    assert!(
        matches!(closing.trim_end(), "---" | "..."),
        "{closing:?} between the front matter and the body is not a closing line"
    );
    assert_eq!(
        split.body_line,
        1 + stripped[..body_at].matches('\n').count(),
        "body_line is not the body's line"
    );
}

/// A file that cannot be served names itself and, when it says, a line that it has.
fn check_error(text: &str, file: &str, error: &LoadError) {
    assert_eq!(error.file, file);
    assert!(!error.message.is_empty(), "an error without a message");
    if let Some(line) = error.line {
        let lines = text.split('\n').count();
        assert!(
            (1..=lines).contains(&line),
            "{error} points past the file's {lines} lines"
        );
    }
    assert!(error.to_string().starts_with(file));
}

/// The slots of a template, in order.
fn slots(template: &Template) -> impl Iterator<Item = &str> {
    template.segments.iter().filter_map(|s| match s {
        Segment::Arg(name)
        | Segment::Word { name, .. }
        | Segment::Line { name, .. }
        | Segment::Trailer { name, .. } => Some(name.as_str()),
        Segment::Literal(_) => None,
    })
}

/// A parsed prompt: unique, non-empty argument names; every slot an argument; every
/// argument of a VS Code or Claude Code file used (they come from the slots).
fn check_prompt(prompt: &PromptDef) {
    assert!(!prompt.messages.is_empty(), "a prompt without messages");
    let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
    for (i, name) in names.iter().enumerate() {
        assert!(!name.trim().is_empty(), "an argument without a name");
        assert!(!names[..i].contains(name), "argument {name:?} twice");
    }
    let mut used = Vec::new();
    for message in &prompt.messages {
        if let MessageTemplate::Text { template, .. } = message {
            for slot in slots(template) {
                assert!(
                    names.contains(&slot),
                    "slot {slot:?} fills no argument of {names:?}"
                );
                used.push(slot);
            }
        }
    }
    match prompt.format {
        SourceFormat::VsCode => {
            for arg in &prompt.arguments {
                assert!(arg.required, "VS Code asks for every input");
                assert_eq!(arg.name, arg.name.trim());
                assert!(!arg.name.contains([':', '}']), "input name {:?}", arg.name);
                assert!(used.contains(&arg.name.as_str()));
            }
        }
        SourceFormat::ClaudeCode => {
            for arg in &prompt.arguments {
                assert!(!arg.required, "Claude Code arguments are optional");
                // `arguments`, the whole line, fills the positions too: it may be no slot.
                assert!(arg.name == "arguments" || used.contains(&arg.name.as_str()));
            }
            if let Some(description) = &prompt.description {
                assert!(!description.is_empty());
            }
        }
        SourceFormat::Mcpick => {
            for arg in &prompt.arguments {
                assert!(
                    !(arg.required && arg.default.is_some()),
                    "required argument {:?} has a default",
                    arg.name
                );
            }
        }
    }
}

/// Filling: the required arguments must be given; every slot is replaced once by its
/// value (or the default, for a missing or empty value), which is never read again.
fn check_render(prompt: &PromptDef) {
    let library = Library::from_results(vec![Ok(prompt.clone())]);
    // A name that would split a line or drive a terminal is refused, with a problem.
    if prompt.name.chars().any(crate::text::is_unfit_for_a_name) {
        assert!(library.prompts().is_empty());
        assert_eq!(library.diagnostics.len(), 1);
        assert!(!library.problem_lines()[0].contains(['\n', '\u{1b}']));
        return;
    }
    let required: Vec<String> = prompt
        .arguments
        .iter()
        .filter(|a| a.required)
        .map(|a| a.name.clone())
        .collect();
    match library.render(&prompt.name, &BTreeMap::new()) {
        Ok(_) => assert!(required.is_empty(), "filled without {required:?}"),
        Err(ArgumentError::MissingArguments { missing, .. }) => assert_eq!(missing, required),
        Err(other) => panic!("filling without values: {other}"),
    }
    // Every other value is empty; the rest look like placeholders of every format.
    let values: BTreeMap<String, String> = prompt
        .arguments
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let value = if i % 2 == 0 {
                String::new()
            } else {
                format!("«{}» {{{{{0}}}}} ${{input:{0}}} $1 $ARGUMENTS", a.name)
            };
            (a.name.clone(), value)
        })
        .collect();
    let filled: BTreeMap<&str, &str> = prompt
        .arguments
        .iter()
        .map(|a| {
            let value = values[&a.name].as_str();
            let value = match &a.default {
                Some(default) if value.is_empty() => default.as_str(),
                _ => value,
            };
            (a.name.as_str(), value)
        })
        .collect();
    let rendered = library
        .render(&prompt.name, &values)
        .unwrap_or_else(|e| panic!("filling with every value: {e}"));
    assert_eq!(rendered.description, prompt.description);
    assert_eq!(rendered.messages.len(), prompt.messages.len());
    for (message, template) in rendered.messages.iter().zip(&prompt.messages) {
        match template {
            MessageTemplate::Text { role, template } => {
                assert_eq!(message.role, *role);
                let given = |name: &str| Some(filled[name]).filter(|v| !v.is_empty());
                let expected: String = template
                    .segments
                    .iter()
                    .map(|s| match s {
                        Segment::Literal(text) => text.clone(),
                        Segment::Arg(name) => filled[name.as_str()].to_string(),
                        // A position: its own value, else that word of the line (typed,
                        // else the positions joined), else as written.
                        Segment::Word {
                            name,
                            index,
                            words_of,
                            written,
                            positions,
                        } => given(name)
                            .map(str::to_string)
                            .or_else(|| {
                                let line =
                                    given(words_of).map(str::to_string).unwrap_or_else(|| {
                                        let words: Vec<&str> =
                                            positions.iter().map(|p| filled[p.as_str()]).collect();
                                        template::join_words(&words)
                                    });
                                template::split_words(&line).get(*index).cloned()
                            })
                            .unwrap_or_else(|| written.clone()),
                        // Added at the end of a body without placeholders, when typed.
                        Segment::Trailer { name, prefix } => given(name)
                            .map(|line| format!("{prefix}{line}"))
                            .unwrap_or_default(),
                        // The line: its own value, else the positions' values, which split back.
                        Segment::Line { name, positions } => match given(name) {
                            Some(line) => line.to_string(),
                            None => {
                                let words: Vec<&str> =
                                    positions.iter().map(|p| filled[p.as_str()]).collect();
                                let line = template::join_words(&words);
                                let used = words
                                    .iter()
                                    .rposition(|w| !w.is_empty())
                                    .map_or(0, |i| i + 1);
                                assert_eq!(template::split_words(&line), words[..used].to_vec());
                                line
                            }
                        },
                    })
                    .collect();
                let Content::Known(KnownContent::Text { text, .. }) = &message.content else {
                    panic!("a text message became {:?}", message.content);
                };
                assert_eq!(text, &expected, "filled text");
            }
            MessageTemplate::Embedded { role, .. } | MessageTemplate::Image { role, .. } => {
                assert_eq!(message.role, *role);
                assert!(matches!(
                    message.content,
                    Content::Known(KnownContent::Resource { .. } | KnownContent::Image { .. })
                ));
            }
        }
    }
}

/// A Claude Code command filled with its own placeholders (`$ARGUMENTS`, `$1`…) gives its
/// body back, without the blank lines around it: nothing else in it is read. (Bodies with
/// other spellings, `$ARGUMENTS[0]`, `$01` or `\$1`, are filled as `$1` and `$1`: left out.)
fn check_claude_round_trip(body: &str, prompt: &PromptDef) {
    let MessageTemplate::Text { template, .. } = &prompt.messages[0] else {
        panic!("a Claude Code command is one text message");
    };
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    let mut positions = std::collections::BTreeSet::new();
    let mut placeholders = 0;
    let mut as_written = !body.contains("\\$");
    for segment in &template.segments {
        match segment {
            Segment::Word {
                name,
                index,
                written,
                ..
            } => {
                let plain = format!("${}", index + 1);
                as_written &= *written == plain;
                values.insert(name.clone(), plain);
                positions.insert(name.clone());
                placeholders += 1;
            }
            Segment::Line { name, .. } => {
                values.insert(name.clone(), "$ARGUMENTS".into());
                placeholders += 1;
            }
            Segment::Arg(name) => panic!("a Claude Code command has no plain slot {name:?}"),
            // Left empty, it adds nothing.
            Segment::Literal(_) | Segment::Trailer { .. } => {}
        }
    }
    // The line is always declared (a body without placeholders gets it at its end), and
    // each position used once.
    let trailer = template
        .segments
        .iter()
        .any(|s| matches!(s, Segment::Trailer { .. }));
    assert_eq!(trailer, placeholders == 0, "{:?}", template.segments);
    assert_eq!(
        prompt.arguments.len(),
        positions.len() + 1,
        "{:?}",
        prompt.arguments
    );
    if as_written {
        assert_eq!(
            template.render(&values),
            body.trim_start_matches(['\n', '\r']).trim_end()
        );
    }
}
