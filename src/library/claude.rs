//! Claude Code command files (`.md` under a `commands` folder): front matter
//! `description`, `argument-hint`. In Claude Code a command gets one line (`/fix 123
//! high`): `$ARGUMENTS` is that line and `$1`, `$2`… (or `$ARGUMENTS[0]`, …) its words,
//! split as a shell would (quoted words stay whole). Served, the line is the argument
//! `arguments`, and each position used is an argument of its own, named from
//! `argument-hint` when it lists one bracketed name per position (`[pr-number]
//! [priority]` gives `pr-number`, `priority`), else `arg1`…: typing only `arguments` fills
//! the positions from its words, typing the positions fills `$ARGUMENTS` with them joined,
//! and a position left without a word stays as written (`$2`), as Claude Code leaves it (a
//! position left empty before a typed one is an empty word, `""` in the joined line). A
//! body without placeholders gets the line at its end (`ARGUMENTS: …`), as Claude Code adds it.
//! Without a `description`, the body's first line describes it. All are optional, as in
//! Claude Code. Other syntax (`!` shell lines, `@file` references) is left as it is.

use super::frontmatter;
use super::template::{Segment, Template};
use super::vscode::trim_template;
use super::{ArgDef, LoadError, MessageTemplate, PromptDef, SourceFormat};
use crate::model::Role;

/// The argument holding the whole line typed after the command (`$ARGUMENTS`).
pub(crate) const LINE: &str = "arguments";

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

/// The highest position served (`$99`, `$ARGUMENTS[98]`); larger numbers stay text.
const MAX_POSITION: usize = 99;

/// A piece of a command's body.
enum Piece<'a> {
    Text(&'a str),
    /// `$ARGUMENTS`.
    Line,
    /// `$N` (N from 1) or `$ARGUMENTS[N-1]`, as written.
    Position(usize, &'a str),
}

/// Finds the placeholders of a body as Claude Code reads them: `$ARGUMENTS`,
/// `$ARGUMENTS[N]` (word N, from 0), and `$N` not followed by a letter, digit or `_`
/// (`$1st` is text). As the command docs define, `$1` is the first word (Claude Code's
/// newer skill docs count `$0` as the first; for command files mcpick keeps `$1`, and
/// `$0` stays text; skills, [`Dialect::Skill`], count from `$0`). `\$` before a
/// placeholder makes it text (`\$1` is `$1`), unless the backslash is itself escaped.
fn pieces(body: &str, dialect: Dialect) -> Vec<Piece<'_>> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut text_start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let escaped = bytes[at] == b'\\'
            && bytes.get(at + 1) == Some(&b'$')
            && (at == 0 || bytes[at - 1] != b'\\');
        let dollar = if escaped { at + 1 } else { at };
        if bytes[dollar] != b'$' {
            at += 1;
            continue;
        }
        let Some((piece, end)) = placeholder(body, dollar, dialect) else {
            at = dollar + 1;
            continue;
        };
        if escaped {
            // The backslash goes; the placeholder stays as text.
            out.push(Piece::Text(&body[text_start..at]));
            text_start = dollar;
        } else {
            out.push(Piece::Text(&body[text_start..at]));
            out.push(piece);
            text_start = end;
        }
        at = end;
    }
    out.push(Piece::Text(&body[text_start..]));
    out
}

/// The placeholder starting at the `$` at `at`, and where it ends.
fn placeholder(body: &str, at: usize, dialect: Dialect) -> Option<(Piece<'_>, usize)> {
    let after = &body[at + 1..];
    let digits = |text: &str| text.bytes().take_while(u8::is_ascii_digit).count();
    if let Some(rest) = after.strip_prefix("ARGUMENTS") {
        let start = at + 1 + "ARGUMENTS".len();
        if let Some(inside) = rest.strip_prefix('[') {
            let n = digits(inside);
            if n > 0 && inside[n..].starts_with(']') {
                let end = start + 1 + n + 1;
                let position = inside[..n].parse::<usize>().ok()? + 1;
                return (position <= MAX_POSITION)
                    .then(|| (Piece::Position(position, &body[at..end]), end));
            }
        }
        return Some((Piece::Line, start));
    }
    let n = digits(after);
    let word_follows = after[n..]
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    if n == 0 || word_follows {
        return None;
    }
    let end = at + 1 + n;
    let written = after[..n].parse::<usize>().ok()?;
    let position = written.checked_sub(dialect.first())? + 1;
    (1..=MAX_POSITION)
        .contains(&position)
        .then(|| (Piece::Position(position, &body[at..end]), end))
}

/// How `$N` counts the words of the line: command files from `$1`, skills from `$0`, as
/// Claude Code's docs define each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// A command file (`commands/NAME.md`): `$1` is the first word.
    Command,
    /// A skill's `SKILL.md`: `$0` is the first word.
    Skill,
}

impl Dialect {
    /// The number `$N` the first word has.
    fn first(self) -> usize {
        match self {
            Dialect::Command => 1,
            Dialect::Skill => 0,
        }
    }
}

/// Parses a command file; `name` is its command name (path under `commands`, `:`-joined).
pub fn parse(text: &str, file: &str, name: &str) -> Result<PromptDef, LoadError> {
    parse_as(text, file, name, Dialect::Command)
}

/// Parses a command file or a skill's `SKILL.md` as a prompt called `name`, its `$N`
/// counted as `dialect` says.
pub(crate) fn parse_as(
    text: &str,
    file: &str,
    name: &str,
    dialect: Dialect,
) -> Result<PromptDef, LoadError> {
    let split = frontmatter::split(text);
    let mut flat = frontmatter::flat(split.yaml);
    let mut take = |key: &str| flat.remove(key).filter(|v| !v.is_empty());
    let meta = Meta {
        description: take("description"),
        argument_hint: take("argument-hint"),
    };
    let body = split.body;
    let pieces = pieces(body, dialect);
    let mut positions: Vec<usize> = pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Position(n, _) => Some(*n),
            _ => None,
        })
        .collect();
    positions.sort_unstable();
    positions.dedup();
    let uses_line = pieces.iter().any(|p| matches!(p, Piece::Line));
    let highest = positions.last().copied().unwrap_or(0);
    let hinted = meta
        .argument_hint
        .as_deref()
        .map(hint_names)
        .unwrap_or_default();
    let named_from_hint = highest > 0
        && hinted.len() >= highest
        && !hinted.iter().any(|h| h == LINE)
        && (1..highest).all(|i| !hinted[..i].contains(&hinted[i]));
    let position_name = |n: usize| {
        if named_from_hint {
            hinted[n - 1].clone()
        } else {
            format!("arg{n}")
        }
    };
    let position_names: Vec<String> = positions.iter().map(|&n| position_name(n)).collect();
    let mut template = Template::default();
    for piece in &pieces {
        match piece {
            Piece::Text(text) => template.push_literal(text),
            Piece::Line => template.segments.push(Segment::Line {
                name: LINE.into(),
                positions: position_names.clone(),
            }),
            Piece::Position(n, written) => template.segments.push(Segment::Word {
                name: position_name(*n),
                index: n - 1,
                words_of: LINE.into(),
                written: written.to_string(),
                positions: position_names.clone(),
            }),
        }
    }
    let mut arguments = Vec::new();
    // As in Claude Code, one line fills every placeholder, and a body without any gets it
    // added at its end: so there is always one.
    let what = if positions.is_empty() && !uses_line {
        "everything after the command; added at the end as `ARGUMENTS: …`".to_string()
    } else if positions.is_empty() {
        "everything after the command".to_string()
    } else {
        let places: Vec<String> = positions
            .iter()
            .map(|n| format!("${}", n - 1 + dialect.first()))
            .collect();
        format!(
            "everything after the command; its words fill {}",
            places.join(", ")
        )
    };
    let description = match &meta.argument_hint {
        Some(hint) => format!("{hint} ({what})"),
        None => what,
    };
    arguments.push(ArgDef {
        name: LINE.into(),
        title: None,
        description: Some(description),
        required: false,
        values: Vec::new(),
        default: None,
    });
    for (&n, name) in positions.iter().zip(&position_names) {
        arguments.push(ArgDef {
            name: name.clone(),
            title: None,
            description: Some(format!(
                "${}; when empty, word {n} of `{LINE}`",
                n - 1 + dialect.first()
            )),
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
            template: {
                let mut template = trim_template(template);
                if positions.is_empty() && !uses_line {
                    template.segments.push(Segment::Trailer {
                        name: LINE.into(),
                        prefix: "\n\nARGUMENTS: ".into(),
                    });
                }
                template
            },
        }],
        source: file.to_string(),
        format: SourceFormat::ClaudeCode,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::render_first as render;

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
            Some("issue number (everything after the command; its words fill $5)")
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
        assert_eq!(names, ["arguments", "pr-number", "priority-level"]);
        assert_eq!(
            render(&prompt, &[("pr-number", "456"), ("priority-level", "high")]),
            "Review PR 456 at high priority; again 456."
        );
    }

    #[test]
    fn positions_without_a_matching_hint_are_numbered() {
        let prompt = parse("Compare $1 with $2", "cmp.md", "cmp").unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arguments", "arg1", "arg2"]);
        // A position without a value or a word stays as written, as in Claude Code.
        assert_eq!(render(&prompt, &[("arg1", "a")]), "Compare a with $2");
        assert_eq!(render(&prompt, &[]), "Compare $1 with $2");
    }

    #[test]
    fn a_body_without_placeholders_gets_the_line_at_its_end() {
        let prompt = parse("Review this.\n\n", "r.md", "r").unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arguments"]);
        assert_eq!(
            render(&prompt, &[("arguments", "the diff")]),
            "Review this.\n\nARGUMENTS: the diff"
        );
        // Nothing typed, nothing added.
        assert_eq!(render(&prompt, &[("arguments", "")]), "Review this.");
        assert_eq!(render(&prompt, &[]), "Review this.");
    }

    const FIX: &str =
        "---\nargument-hint: [issue] [priority]\n---\nFix issue #$1 with priority $2. $ARGUMENTS";

    #[test]
    fn the_line_fills_the_positions_with_its_words() {
        let prompt = parse(FIX, "fix.md", "fix").unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arguments", "issue", "priority"]);
        assert_eq!(
            render(&prompt, &[("arguments", "123 high")]),
            "Fix issue #123 with priority high. 123 high"
        );
        // Quoted words stay whole; $ARGUMENTS is the line as typed, quotes and all.
        assert_eq!(
            render(
                &prompt,
                &[("arguments", "  '12 3' \"very \\\"high\\\"\" extra ")]
            ),
            "Fix issue #12 3 with priority very \"high\".   '12 3' \"very \\\"high\\\"\" extra "
        );
        // Empty fields (as forms send them) count as not typed.
        assert_eq!(
            render(
                &prompt,
                &[("arguments", "123"), ("issue", ""), ("priority", "")]
            ),
            "Fix issue #123 with priority $2. 123"
        );
    }

    #[test]
    fn the_positions_fill_the_line_joined() {
        let prompt = parse(FIX, "fix.md", "fix").unwrap();
        assert_eq!(
            render(&prompt, &[("issue", "123"), ("priority", "high")]),
            "Fix issue #123 with priority high. 123 high"
        );
        // A value of several words is quoted in the line, so it splits back the same.
        assert_eq!(
            render(&prompt, &[("issue", "12"), ("priority", "very high")]),
            "Fix issue #12 with priority very high. 12 \"very high\""
        );
        // Only a later position typed: the line is `"" high`, as `/fix "" high` would
        // type it, and `$1` is its first word, the empty one: the two agree.
        assert_eq!(
            render(&prompt, &[("priority", "high")]),
            "Fix issue # with priority high. \"\" high"
        );
        // Only an earlier one: the later position has no word and stays as written.
        assert_eq!(
            render(&prompt, &[("issue", "123")]),
            "Fix issue #123 with priority $2. 123"
        );
        // A position typed on its own wins over the line's word; the line stays as typed.
        assert_eq!(
            render(&prompt, &[("arguments", "1 low"), ("priority", "high")]),
            "Fix issue #1 with priority high. 1 low"
        );
    }

    #[test]
    fn a_skill_counts_its_words_from_dollar_zero() {
        let prompt = parse_as(
            "---\nname: cmp\ndescription: Compare\n---\nCompare $0 with $1; all: $ARGUMENTS",
            "cmp/SKILL.md",
            "cmp",
            Dialect::Skill,
        )
        .unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arguments", "arg1", "arg2"]);
        assert_eq!(
            prompt.arguments[1].description.as_deref(),
            Some("$0; when empty, word 1 of `arguments`")
        );
        assert_eq!(
            render(&prompt, &[("arguments", "a b")]),
            "Compare a with b; all: a b"
        );
    }

    #[test]
    fn placeholders_are_read_as_claude_code_reads_them() {
        let prompt = parse(
            "A=$ARGUMENTS[0] B=$ARGUMENTS[1] one=$1 ten=$10 $1st $0 \\$1 \\\\$2 $ARGUMENTS[x] $100",
            "p.md",
            "p",
        )
        .unwrap();
        let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arguments", "arg1", "arg2", "arg10"]);
        assert_eq!(
            render(&prompt, &[("arguments", "a b c d e f g h i j")]),
            "A=a B=b one=a ten=j $1st $0 $1 \\\\b a b c d e f g h i j[x] $100"
        );
    }
}
