//! Claude Code command files (`.md` under a `commands` folder): front matter
//! `description`, `argument-hint`. `$ARGUMENTS` becomes the argument `arguments`, and
//! `$1`..`$9` become positional arguments named from `argument-hint` when it lists one
//! bracketed name per position (`[pr-number] [priority]` gives `pr-number`, `priority`),
//! else `arg1`…`arg9`. Without a `description`, the body's first line describes it. All are optional, as in Claude Code. Other syntax (`!` shell lines, `@file`
//! references) is left as it is.

use super::frontmatter;
use super::template::Template;
use super::vscode::trim_template;
use super::{ArgDef, LoadError, MessageTemplate, PromptDef, SourceFormat};
use crate::mcp::Role;

struct Meta {
    description: Option<String>,
    argument_hint: Option<String>,
}

/// The names listed in an argument hint, bracketed (`[a] <b>`); a hint in plain words
/// (`issue number`) names nothing.
fn hint_names(hint: &str) -> Vec<String> {
    let names: Vec<String> = hint
        .split(['[', '<'])
        .skip(1)
        .filter_map(|part| part.split([']', '>']).next())
        .map(str::to_string)
        .collect();
    names
        .into_iter()
        .map(|n| {
            n.trim()
                .to_lowercase()
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
                .trim_matches('-')
                .to_string()
        })
        .filter(|n| !n.is_empty())
        .collect()
}

/// Parses a command file; `name` is its command name (path under `commands`, `:`-joined).
pub fn parse(text: &str, file: &str, name: &str) -> Result<PromptDef, LoadError> {
    let split = frontmatter::split(text);
    let mut flat = frontmatter::flat(split.yaml);
    let mut take = |key: &str| flat.remove(key).filter(|v| !v.is_empty());
    let meta = Meta {
        description: take("description"),
        argument_hint: take("argument-hint"),
    };
    // First pass: which placeholders appear.
    let body = split.body;
    let uses_all = body.contains("$ARGUMENTS");
    let positions: Vec<usize> = (1..=9)
        .filter(|n| body.contains(&format!("${n}")))
        .collect();
    let highest = positions.last().copied().unwrap_or(0);
    let hinted = meta
        .argument_hint
        .as_deref()
        .map(hint_names)
        .unwrap_or_default();
    let named_from_hint = highest > 0
        && hinted.len() >= highest
        && !hinted.iter().any(|h| h == "arguments")
        && (1..highest).all(|i| !hinted[..i].contains(&hinted[i]));
    let position_name = |n: usize| {
        if named_from_hint {
            hinted[n - 1].clone()
        } else {
            format!("arg{n}")
        }
    };
    let mut template = Template::default();
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        template.push_literal(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            template.push_arg("arguments");
            rest = tail;
        } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            template.push_arg(&position_name(digit as usize - '0' as usize));
            rest = &after[1..];
        } else {
            template.push_literal("$");
            rest = after;
        }
    }
    template.push_literal(rest);
    let mut arguments = Vec::new();
    if uses_all {
        arguments.push(ArgDef {
            name: "arguments".into(),
            title: None,
            description: meta
                .argument_hint
                .clone()
                .or(Some("everything after the command".into())),
            required: false,
            values: Vec::new(),
            default: None,
        });
    }
    for &n in &positions {
        arguments.push(ArgDef {
            name: position_name(n),
            title: None,
            description: Some(format!("positional argument ${n}")),
            required: false,
            values: Vec::new(),
            default: None,
        });
    }
    // Claude Code shows the body's first line when there is no description.
    let description = meta.description.or_else(|| {
        body.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(120).collect())
    });
    Ok(PromptDef {
        name: name.to_string(),
        title: None,
        description,
        arguments,
        messages: vec![MessageTemplate::Text {
            role: Role::User,
            template: trim_template(template),
        }],
        source: file.to_string(),
        format: SourceFormat::ClaudeCode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::render_first as render;

    #[test]
    fn arguments_placeholder_takes_everything() {
        let prompt = parse(
            "---\ndescription: Fix an issue\nargument-hint: issue number\nallowed-tools: Bash(git:*)\n---\nFix issue $ARGUMENTS. Cost: $5 \\$HOME $$",
            "fix.md",
            "fix",
        )
        .unwrap();
        assert_eq!(prompt.arguments.len(), 2, "{:?}", prompt.arguments);
        assert_eq!(prompt.arguments[0].name, "arguments");
        assert_eq!(
            prompt.arguments[0].description.as_deref(),
            Some("issue number")
        );
        assert!(!prompt.arguments[0].required);
        assert_eq!(
            render(&prompt, &[("arguments", "#12 {{x}}"), ("arg5", "five")]),
            "Fix issue #12 {{x}}. Cost: five \\$HOME $$"
        );
    }

    #[test]
    fn positions_are_named_from_the_hint() {
        let prompt = parse(
            "---\nargument-hint: [pr-number] [Priority Level]\n---\nReview PR $1 at $2 priority; again $1.",
            "frontend/review.md",
            "frontend:review",
        )
        .unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["pr-number", "priority-level"]);
        assert_eq!(
            render(&prompt, &[("pr-number", "456"), ("priority-level", "high")]),
            "Review PR 456 at high priority; again 456."
        );
    }

    #[test]
    fn positions_without_a_matching_hint_are_numbered() {
        let prompt = parse("Compare $1 with $2", "cmp.md", "cmp").unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arg1", "arg2"]);
        assert_eq!(render(&prompt, &[("arg1", "a")]), "Compare a with ");
    }
}
