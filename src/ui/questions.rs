//! The server's questions (`input_required`) as a form.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{Theme, one_line};
use crate::app::{App, QuestionValue, QuestionsState, busy_mark};
use crate::mcp::{FieldKind, QuestionKind};

pub(super) fn draw(app: &App, q: &QuestionsState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Fill(1),
        Constraint::Length(2),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(vec![
                Span::styled(one_line(&q.form.prompt.server), theme.accent()),
                Span::raw(format!(
                    " asks before it fills {}:",
                    one_line(q.form.prompt.display_name())
                )),
            ]),
            Line::styled(
                "Ctrl-S answers · Ctrl-D declines · Esc cancels (the server is told either way)",
                theme.dim(),
            ),
        ]),
        header,
    );
    let mut lines: Vec<Line> = Vec::new();
    let mut field_index = 0;
    let mut focus_line = 0;
    for question in &q.request.questions {
        lines.push(Line::raw(""));
        match &question.kind {
            QuestionKind::Form { message, fields } => {
                for l in crate::text::sanitize(message).lines() {
                    lines.push(Line::styled(l.to_string(), theme.accent()));
                }
                for _ in fields {
                    let Some(field) = q.fields.get(field_index) else {
                        break;
                    };
                    let focused = field_index == q.focus;
                    if focused {
                        focus_line = lines.len();
                    }
                    let f = &field.field;
                    let mut label = vec![
                        Span::styled(if focused { "▸ " } else { "  " }, theme.accent()),
                        Span::styled(
                            one_line(f.title.as_deref().unwrap_or(&f.name)),
                            if focused {
                                theme.accent()
                            } else {
                                Default::default()
                            },
                        ),
                    ];
                    if f.required {
                        label.push(Span::styled(" *", theme.error()));
                    }
                    if let Some(d) = &f.description {
                        label.push(Span::styled(format!("  {}", one_line(d)), theme.dim()));
                    }
                    if let Some(problem) = &field.problem {
                        label.push(Span::styled(
                            format!("  {}", one_line(problem)),
                            theme.error(),
                        ));
                    }
                    lines.push(Line::from(label));
                    lines.push(value_line(&field.value, &f.kind, focused, theme));
                    field_index += 1;
                }
            }
            QuestionKind::Unsupported { method, summary } => {
                lines.push(Line::styled(
                    format!(
                        "✗ {} ({}) — mcpick cannot answer this; it will be declined.",
                        one_line(summary),
                        one_line(method)
                    ),
                    theme.busy(),
                ));
            }
        }
    }
    let scroll = focus_line.saturating_sub(body.height as usize / 2) as u16;
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        body,
    );
    let status = if q.fetching.is_some() {
        Line::styled(
            format!(
                "{} Sending the answers…{} Esc cancels.",
                busy_mark(app),
                super::waited(app, q.fetching)
            ),
            theme.busy(),
        )
    } else {
        Line::styled(
            "Tab/↑↓ move · Space or ←/→ choose · Enter on the last field answers",
            theme.dim(),
        )
    };
    frame.render_widget(Paragraph::new(status).wrap(Wrap { trim: true }), footer);
}

fn value_line<'a>(
    value: &QuestionValue,
    kind: &FieldKind,
    focused: bool,
    theme: &Theme,
) -> Line<'a> {
    let style = if focused {
        theme.selected()
    } else {
        Default::default()
    };
    let text = match (value, kind) {
        (QuestionValue::Text(editor), _) => {
            let mut chars: Vec<char> = editor.lines().join("⏎").chars().collect();
            if focused {
                // The cursor where the text area has it, so typing lands where it shows.
                let (row, col) = (editor.cursor().0, editor.cursor().1);
                let at: usize = editor.lines()[..row]
                    .iter()
                    .map(|l| l.chars().count() + 1)
                    .sum::<usize>()
                    + col;
                chars.insert(at.min(chars.len()), '▏');
            }
            let typed = crate::text::sanitize(&chars.into_iter().collect::<String>());
            crate::text::as_drawn(&typed).into_owned()
        }
        (QuestionValue::Bool(v), _) => match v {
            Some(true) => "[x] yes".into(),
            Some(false) => "[ ] no".into(),
            None => "[ ] (not chosen: Space toggles)".into(),
        },
        (QuestionValue::Choice(choice), FieldKind::Choice { labels, .. }) => {
            match choice.and_then(|c| labels.get(c)) {
                Some(label) => format!("‹ {} ›", one_line(label)),
                None => "‹ choose with ←/→ ›".into(),
            }
        }
        (QuestionValue::Multi { picked, cursor }, FieldKind::Choice { labels, .. }) => labels
            .iter()
            .zip(picked)
            .enumerate()
            .map(|(i, (label, p))| {
                format!(
                    "{}[{}] {}",
                    if i == *cursor && focused { "›" } else { " " },
                    if *p { "x" } else { " " },
                    one_line(label)
                )
            })
            .collect::<Vec<_>>()
            .join("  "),
        _ => String::new(),
    };
    Line::from(vec![Span::raw("    "), Span::styled(text, style)])
}
