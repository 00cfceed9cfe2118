//! The review screen: every message with its role and block, the editor, the export preview.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, one_line, titled_block};
use crate::app::review::PREVIEW_BESIDE;
use crate::app::{App, ReviewState, spinner};
use crate::mcp::{Message, Role};

/// Lines of a message shown when it is not selected.
const PREVIEW_LINES: usize = 3;

pub(super) fn draw(app: &App, review: &ReviewState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let bottom = if review.input.is_some() || review.confirm.is_some() || review.reading.is_some() {
        1
    } else {
        0
    };
    let [header, body, bottom_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(bottom),
    ])
    .areas(area);
    draw_header(review, frame, header, theme);
    if let Some(editor) = &review.editor {
        let title = format!(
            " Editing #{} ({}) — Esc finishes ",
            review.selected + 1,
            review
                .items
                .get(review.selected)
                .map_or("user", |i| i.message().role.as_str())
        );
        let block = titled_block(Span::styled(title, theme.accent()), true, theme);
        let inner = block.inner(body);
        frame.render_widget(block, body);
        frame.render_widget(editor, inner);
    } else if review.preview {
        if body.width >= PREVIEW_BESIDE {
            let [messages, preview] =
                Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                    .areas(body);
            draw_messages(review, frame, messages, theme);
            draw_preview(review, frame, preview, theme);
        } else {
            draw_preview(review, frame, body, theme);
        }
    } else {
        draw_messages(review, frame, body, theme);
    }
    if let Some(input) = &review.input {
        let label = format!("{}: ", input.label);
        let width = label.chars().count() as u16;
        let [l, r] =
            Layout::horizontal([Constraint::Length(width), Constraint::Fill(1)]).areas(bottom_area);
        frame.render_widget(Paragraph::new(Span::styled(label, theme.accent())), l);
        frame.render_widget(&input.editor, r);
    } else if let Some(confirm) = &review.confirm {
        frame.render_widget(
            Paragraph::new(Span::styled(
                format!("{} exists. Replace it? y/n", confirm.path.display()),
                theme.busy(),
            )),
            bottom_area,
        );
    } else if review.reading.is_some() {
        frame.render_widget(
            Paragraph::new(Span::styled(
                format!("{} Reading the resource…", spinner(app.tick)),
                theme.busy(),
            )),
            bottom_area,
        );
    }
}

fn draw_header(review: &ReviewState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let prompt = &review.form.prompt;
    let mut spans = vec![
        Span::styled(one_line(prompt.display_name()), theme.accent()),
        Span::styled(
            format!("  /{}", one_line(&review.form.slash_name)),
            theme.dim(),
        ),
        Span::raw(format!(
            "  {} message{}",
            review.items.len(),
            if review.items.len() == 1 { "" } else { "s" }
        )),
        Span::styled(
            format!("  export: {}", crate::app::format_name(review.format)),
            theme.dim(),
        ),
    ];
    if review.has_changes() {
        spans.push(Span::styled("  edited", theme.busy()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn header_line<'a>(
    review: &ReviewState,
    index: usize,
    message: &Message,
    theme: &Theme,
) -> Line<'a> {
    let selected = index == review.selected;
    let marker = if selected { "▌" } else { " " };
    let mut spans = vec![
        Span::styled(marker, theme.accent()),
        Span::styled(format!("#{} ", index + 1), theme.dim()),
        Span::styled(
            message.role.as_str(),
            theme.role(message.role == Role::Assistant),
        ),
        Span::styled(
            format!(" · {}", one_line(message.content.kind())),
            theme.dim(),
        ),
    ];
    if review.is_edited(index) {
        spans.push(Span::styled(
            if review.items[index].origin.is_none() {
                " · added"
            } else {
                " · edited"
            },
            theme.busy(),
        ));
    }
    let mut line = Line::from(spans);
    if selected {
        line = line.style(theme.selected());
    }
    line
}

fn draw_messages(review: &ReviewState, frame: &mut Frame, area: Rect, theme: &Theme) {
    if review.items.is_empty() {
        frame.render_widget(
            Paragraph::new(vec![
                Line::raw("No messages."),
                Line::styled("a adds one; U restores what the server sent.", theme.dim()),
            ]),
            area.inner(ratatui::layout::Margin::new(2, 1)),
        );
        return;
    }
    let height = area.height as usize;
    let width = usize::from(area.width).saturating_sub(2).max(10);
    let compact = |lines: &mut Vec<Line>, index: usize| {
        let item = &review.items[index];
        if index > 0 {
            lines.push(Line::raw(""));
        }
        lines.push(header_line(review, index, item.message(), theme));
        let rows = item.rows(width);
        for text in rows.iter().take(PREVIEW_LINES) {
            lines.push(Line::styled(format!("  {text}"), theme.dim()));
        }
        let rest = rows.len().saturating_sub(PREVIEW_LINES);
        if rest > 0 {
            lines.push(Line::styled(
                format!(
                    "  … {rest} more {}",
                    crate::text::plural(rest, "line", "lines")
                ),
                theme.dim(),
            ));
        }
    };
    let mut lines: Vec<Line> = Vec::new();
    for index in 0..review.selected.min(review.items.len()) {
        compact(&mut lines, index);
    }
    if review.selected > 0 {
        lines.push(Line::raw(""));
    }
    let selected_at = lines.len();
    let Some(item) = review.items.get(review.selected) else {
        return;
    };
    let rows = item.rows(width);
    let total = rows.len();
    let wanted = total
        .saturating_sub(review.scroll)
        .clamp(1, height.saturating_sub(2).max(1));
    // Scroll the selected message to the top when it would not fit below the others.
    let offset = if selected_at + 1 + wanted + 1 > height {
        selected_at
    } else {
        0
    };
    lines.push(header_line(review, review.selected, item.message(), theme));
    let room = height.saturating_sub(selected_at - offset + 1).max(1);
    let from = review.scroll.min(total);
    let mut shown: Vec<&String> = rows[from..].iter().take(room).collect();
    let mut rest = total - from - shown.len();
    if rest > 0 && shown.len() > 1 {
        shown.pop();
        rest += 1;
    }
    lines.extend(shown.into_iter().map(|text| Line::raw(format!("  {text}"))));
    if rest > 0 {
        lines.push(Line::styled(
            format!(
                "  … {rest} more {} (PgDn or the wheel scrolls)",
                crate::text::plural(rest, "line", "lines")
            ),
            theme.dim(),
        ));
    }
    for index in review.selected + 1..review.items.len() {
        compact(&mut lines, index);
    }
    let visible: Vec<Line> = lines.into_iter().skip(offset).take(height).collect();
    frame.render_widget(Paragraph::new(visible), area);
}

fn draw_preview(review: &ReviewState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let title = format!(
        " Preview: {} (f changes) ",
        crate::app::format_name(review.format)
    );
    let block = titled_block(Span::styled(title, theme.accent()), false, theme);
    let inner = block.inner(area);
    let export = review.export();
    let width = usize::from(inner.width).max(10);
    let height = usize::from(inner.height);
    let mut rows = export
        .lines()
        .flat_map(|l| crate::text::wrap(&crate::text::sanitize(l), width));
    let mut lines: Vec<Line> = rows.by_ref().take(height).map(Line::raw).collect();
    let rest = rows.count();
    if rest > 0 && !lines.is_empty() {
        lines.pop();
        lines.push(Line::styled(
            format!(
                "… {} more {} (s saves it all, y copies it all)",
                rest + 1,
                crate::text::plural(rest + 1, "line", "lines")
            ),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
