//! VS Code prompt files (`*.prompt.md`): front matter `name`, `description`,
//! `argument-hint`; each `${input:NAME}` or `${input:NAME:placeholder}` is an argument.
//! Other `${...}` variables (`${file}`, `${selection}`, `${workspaceFolder}`, …) only mean
//! something inside VS Code, so they are left as they are.

use super::frontmatter;
use super::template::Template;
use super::{ArgDef, LoadError, MessageTemplate, PromptDef, SourceFormat};
use crate::model::Role;

struct Meta {
    name: Option<String>,
    description: Option<String>,
    argument_hint: Option<String>,
}

/// Parses a VS Code prompt file called `file` (for messages); `stem` is the default name.
pub fn parse(text: &str, file: &str, stem: &str) -> Result<PromptDef, LoadError> {
    let split = frontmatter::split(text);
    let mut flat = frontmatter::flat(split.yaml);
    let mut take = |key: &str| flat.remove(key).filter(|v| !v.is_empty());
    let meta = Meta {
        name: take("name"),
        description: take("description"),
        argument_hint: take("argument-hint"),
    };
    let mut template = Template::default();
    let mut arguments: Vec<ArgDef> = Vec::new();
    let mut rest = split.body;
    while let Some(start) = rest.find("${input:") {
        template.push_literal(&rest[..start]);
        let after = &rest[start + "${input:".len()..];
        let Some(end) = after.find('}') else {
            let line = split.body_line
                + split.body[..split.body.len() - rest.len() + start]
                    .matches('\n')
                    .count();
            return Err(LoadError {
                file: file.to_string(),
                line: Some(line),
                message: "`${input:` is never closed with `}`".into(),
            });
        };
        let inner = &after[..end];
        let (name, placeholder) = match inner.split_once(':') {
            Some((name, placeholder)) => (name.trim(), Some(placeholder.trim())),
            None => (inner.trim(), None),
        };
        if name.is_empty() {
            let consumed = split.body.len() - rest.len() + start;
            return Err(LoadError {
                file: file.to_string(),
                line: Some(split.body_line + split.body[..consumed].matches('\n').count()),
                message: "`${input:}` has no variable name (write ${input:NAME})".into(),
            });
        }
        match arguments.iter_mut().find(|a| a.name == name) {
            Some(existing) => {
                if existing.description.is_none() {
                    existing.description = placeholder.map(str::to_string);
                }
            }
            None => arguments.push(ArgDef {
                name: name.to_string(),
                title: None,
                description: placeholder.filter(|p| !p.is_empty()).map(str::to_string),
                // VS Code always asks for every input variable.
                required: true,
                values: Vec::new(),
                default: None,
            }),
        }
        template.push_arg(name);
        rest = &after[end + 1..];
    }
    template.push_literal(rest);
    let description = match (meta.description, meta.argument_hint) {
        (Some(d), Some(h)) => Some(format!("{d} (arguments: {h})")),
        (d, h) => d.or(h.map(|h| format!("arguments: {h}"))),
    };
    Ok(PromptDef {
        name: meta.name.unwrap_or_else(|| stem.to_string()),
        title: None,
        description,
        arguments,
        messages: vec![MessageTemplate::Text {
            role: Role::User,
            template: trim_template(template),
        }],
        source: file.to_string(),
        format: SourceFormat::VsCode,
    })
}

/// Trims blank lines around a template's text.
pub fn trim_template(mut template: Template) -> Template {
    use super::template::Segment;
    if let Some(Segment::Literal(first)) = template.segments.first_mut() {
        *first = first.trim_start_matches(['\n', '\r']).to_string();
    }
    if let Some(Segment::Literal(last)) = template.segments.last_mut() {
        *last = last.trim_end().to_string();
    }
    template
        .segments
        .retain(|s| !matches!(s, Segment::Literal(t) if t.is_empty()));
    template
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::render_first as body;

    #[test]
    fn input_variables_become_arguments() {
        let text = "---\ndescription: Explain code\nmode: agent\ntools: ['codebase']\n---\nExplain ${input:topic:What to explain} for ${input:audience}.\nAgain: ${input:topic}. File: ${file}\n";
        let prompt = parse(text, "explain.prompt.md", "explain").unwrap();
        assert_eq!(prompt.name, "explain");
        assert_eq!(prompt.description.as_deref(), Some("Explain code"));
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["topic", "audience"]);
        assert_eq!(
            prompt.arguments[0].description.as_deref(),
            Some("What to explain")
        );
        assert!(prompt.arguments.iter().all(|a| a.required));
        assert_eq!(
            body(&prompt, &[("topic", "$1 {{x}} ü\nline"), ("audience", "")]),
            "Explain $1 {{x}} ü\nline for .\nAgain: $1 {{x}} ü\nline. File: ${file}"
        );
    }

    #[test]
    fn name_and_hint_come_from_front_matter() {
        let prompt = parse(
            "---\nname: custom\nargument-hint: a topic\n---\nx",
            "f.prompt.md",
            "f",
        )
        .unwrap();
        assert_eq!(prompt.name, "custom");
        assert_eq!(prompt.description.as_deref(), Some("arguments: a topic"));
    }

    #[test]
    fn unclosed_input_is_an_error_with_its_line() {
        let err = parse(
            "---\nname: x\n---\nok\n${input:oops\n",
            "bad.prompt.md",
            "bad",
        )
        .unwrap_err();
        assert_eq!(err.line, Some(5));
        assert!(err.message.contains("never closed"));
    }
}
