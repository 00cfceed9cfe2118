//! The argument form, its suggestions, and the fetch in progress.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{Theme, one_line, titled_block};
use crate::app::{App, FormState, spinner};

/// Lines a value box shows at most before it scrolls.
const MAX_VALUE_LINES: usize = 6;
/// Suggestions shown at once.
const SHOWN_SUGGESTIONS: usize = 5;
/// Rows of the form's area below which its header and footer shrink to a line each.
const COMPACT_BELOW: u16 = 12;

pub(super) fn draw(app: &App, form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    // In a few rows (inline `--height`), the title and the hint take one line each, so a
    // field and its value still show.
    let compact = area.height < COMPACT_BELOW;
    let [header, fields, footer] = Layout::vertical([
        Constraint::Length(if compact { 1 } else { 3 }),
        Constraint::Fill(1),
        Constraint::Length(if compact { 1 } else { 2 }),
    ])
    .areas(area);
    draw_header(form, frame, header, theme);
    if form.fields.is_empty() {
        let note = Paragraph::new(Line::styled("This prompt takes no arguments.", theme.dim()));
        frame.render_widget(note, fields.inner(ratatui::layout::Margin::new(2, 1)));
    } else {
        draw_fields(form, frame, fields, theme, app.overlay.is_none());
    }
    draw_footer(app, form, frame, footer, theme);
}

pub(super) fn draw_header(form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let prompt = &form.prompt;
    let mut lines = vec![Line::from(vec![
        Span::styled(one_line(prompt.display_name()), theme.accent()),
        Span::styled(format!("  /{}", one_line(&form.slash_name)), theme.dim()),
    ])];
    if let Some(d) = &prompt.description {
        lines.push(Line::raw(one_line(d)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), area);
}

fn field_height(form: &FormState, index: usize) -> u16 {
    let field = &form.fields[index];
    let value_lines = field.editor.lines().len().clamp(1, MAX_VALUE_LINES);
    let mut height = 1 + value_lines + 2;
    if index == form.focus && form.suggestions.visible() {
        height += form.suggestions.values.len().min(SHOWN_SUGGESTIONS) + 1;
    }
    height as u16
}

fn draw_fields(form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme, show_cursor: bool) {
    // Start where the focused field still fits.
    let mut start = 0;
    while start < form.focus {
        let needed: u16 = (start..=form.focus).map(|i| field_height(form, i)).sum();
        if needed <= area.height {
            break;
        }
        start += 1;
    }
    let mut y = area.y;
    for index in start..form.fields.len() {
        let height = field_height(form, index);
        if y >= area.bottom() {
            break;
        }
        let rect = Rect {
            x: area.x,
            y,
            width: area.width,
            height: height.min(area.bottom() - y),
        };
        draw_field(form, index, frame, rect, theme, show_cursor);
        y += height;
    }
}

fn draw_field(
    form: &FormState,
    index: usize,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    show_cursor: bool,
) {
    let field = &form.fields[index];
    let focused = index == form.focus;
    let arg = &field.arg;
    let mut label = vec![Span::styled(
        one_line(arg.title.as_deref().unwrap_or(&arg.name)),
        if focused {
            theme.accent()
        } else {
            ratatui::style::Style::default()
        },
    )];
    if arg.required {
        label.push(Span::styled(" *", theme.error()));
    }
    if arg.title.is_some() {
        label.push(Span::styled(
            format!(" ({})", one_line(&arg.name)),
            theme.dim(),
        ));
    }
    if let Some(d) = &arg.description {
        label.push(Span::styled(format!("  {}", one_line(d)), theme.dim()));
    }
    if field.missing {
        label.push(Span::styled("  required", theme.error()));
    }
    if field.prefilled && focused {
        label.push(Span::styled(
            "  (last value: typing replaces it)",
            theme.busy(),
        ));
    }
    // Where the value came from goes on the box's lower border: the label line is cut on
    // a narrow screen, the border keeps it in sight.
    let origin = if let Some(mark) = &field.source {
        Some(Span::styled(format!(" {} ", mark.label()), theme.busy()))
    } else if let Some(recalled) = field
        .recalled
        .as_ref()
        .filter(|_| focused && field.editor.is_empty())
    {
        let note = match recalled {
            crate::app::ValueSource::File(path) => {
                format!("last time from {} (reading it again…)", one_line(path))
            }
            crate::app::ValueSource::Command(command) => {
                format!("last time $ {} (Ctrl-R offers it)", one_line(command))
            }
            crate::app::ValueSource::Stdin => "last time from stdin".to_string(),
        };
        Some(Span::styled(format!(" {note} "), theme.dim()))
    } else {
        None
    };
    let value_lines = field.editor.lines().len().clamp(1, MAX_VALUE_LINES) as u16;
    let [label_area, box_area, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(value_lines + 2),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(Line::from(label)), label_area);
    let block = if field.missing {
        titled_block("", true, theme).border_style(theme.error())
    } else {
        titled_block("", focused, theme)
    };
    let block = match origin {
        Some(origin) => block.title_bottom(Line::from(origin).right_aligned()),
        None => block,
    };
    let inner = block.inner(box_area);
    frame.render_widget(block, box_area);
    if focused && show_cursor {
        frame.render_widget(&field.editor, inner);
    } else {
        let text: Vec<Line> = field
            .editor
            .lines()
            .iter()
            .take(MAX_VALUE_LINES)
            .map(|l| Line::raw(crate::text::sanitize(l)))
            .collect();
        frame.render_widget(Paragraph::new(text), inner);
    }
    if focused && form.suggestions.visible() {
        draw_suggestions(form, frame, rest, theme);
    }
}

fn draw_suggestions(form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let s = &form.suggestions;
    let shown = SHOWN_SUGGESTIONS.min(s.values.len());
    // Keep the highlighted one in the window.
    let start = s.highlighted.saturating_sub(shown.saturating_sub(1));
    let mut lines = Vec::new();
    for (i, value) in s.values.iter().enumerate().skip(start).take(shown) {
        let selected = i == s.highlighted;
        let style = if selected {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        let mut spans = vec![
            Span::styled(if selected { "  ▸ " } else { "    " }, style),
            Span::styled(one_line(value), style),
        ];
        if i < s.from_history {
            spans.push(Span::styled("  (used before)", theme.dim()));
        }
        lines.push(Line::from(spans));
    }
    let server_count = s.values.len() - s.from_history;
    let mut meta = format!("    {} of {}", s.highlighted + 1, s.values.len());
    match (s.total, s.has_more) {
        (Some(total), _) if total as usize > server_count => meta.push_str(&format!(
            " · the server has {total} in all, type more to narrow"
        )),
        (_, true) => meta.push_str(" · more exist, type more to narrow"),
        _ => {}
    }
    meta.push_str(" · Tab/→ take · Ctrl-N/P choose · Esc hide");
    lines.push(Line::styled(meta, theme.dim()));
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_footer(app: &App, form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let line = if form.fetching.is_some() {
        Line::styled(
            format!(
                "{} Asking {} for the messages… Esc cancels.",
                spinner(app.tick),
                one_line(&form.prompt.server)
            ),
            theme.busy(),
        )
    } else if let Some(error) = &form.error {
        Line::styled(one_line(error), theme.error())
    } else {
        Line::styled(
            if form.fields.is_empty() {
                "Enter fetches the prompt."
            } else {
                "* required · Enter on the last field (or Ctrl-S) fetches the prompt"
            },
            theme.dim(),
        )
    };
    frame.render_widget(Paragraph::new(line).wrap(Wrap { trim: true }), area);
}
