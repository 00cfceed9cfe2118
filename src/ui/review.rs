//! The review screen: every message with its role and block, the editor, the export preview.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{Theme, one_line, titled_block};
use crate::app::{App, ReviewState, spinner};
use crate::export::{decoded_len, describe};
use crate::mcp::{Content, EmbeddedResource, KnownContent, Message, Role};

/// Lines of a message shown when it is not selected.
const PREVIEW_LINES: usize = 3;
/// Width from which the export preview goes beside the messages.
const SIDE_BY_SIDE: u16 = 110;

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
                .map_or("user", |i| i.message.role.as_str())
        );
        let block = titled_block(Span::styled(title, theme.accent()), true, theme);
        let inner = block.inner(body);
        frame.render_widget(block, body);
        frame.render_widget(editor, inner);
    } else if review.preview {
        if body.width >= SIDE_BY_SIDE {
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

/// The body of a block as display lines (sanitized); non-text blocks are described.
fn body_lines(content: &Content) -> Box<dyn Iterator<Item = String> + '_> {
    match content {
        Content::Known(KnownContent::Text { text, .. }) => {
            if text.is_empty() {
                Box::new(std::iter::once("(empty)".to_string()))
            } else {
                Box::new(text.lines().map(crate::text::sanitize))
            }
        }
        Content::Known(KnownContent::Image { .. }) | Content::Known(KnownContent::Audio { .. }) => {
            Box::new(std::iter::once(format!(
                "{} — w saves the bytes",
                one_line(&describe(content))
            )))
        }
        Content::Known(KnownContent::Resource { resource, .. }) => match resource {
            EmbeddedResource::Text {
                uri,
                mime_type,
                text,
                ..
            } => Box::new(
                std::iter::once(format!(
                    "resource {} ({}) — e edits the text, w saves it",
                    one_line(uri),
                    one_line(mime_type.as_deref().unwrap_or("no MIME type"))
                ))
                .chain(text.lines().map(crate::text::sanitize)),
            ),
            EmbeddedResource::Blob {
                uri,
                mime_type,
                blob,
                ..
            } => Box::new(std::iter::once(format!(
                "resource {} ({}, {} bytes) — w saves the bytes",
                one_line(uri),
                one_line(mime_type.as_deref().unwrap_or("application/octet-stream")),
                decoded_len(blob)
            ))),
        },
        Content::Known(KnownContent::ResourceLink {
            uri,
            name,
            title,
            description,
            mime_type,
            size,
            ..
        }) => {
            let mut lines = vec![format!(
                "link {} <{}>",
                one_line(title.as_deref().unwrap_or(name)),
                one_line(uri)
            )];
            if let Some(d) = description {
                lines.push(one_line(d));
            }
            let mut facts = vec![format!("name {}", one_line(name))];
            if let Some(m) = mime_type {
                facts.push(one_line(m));
            }
            if let Some(s) = size {
                facts.push(format!("{s} bytes"));
            }
            lines.push(format!("{} — o fetches and embeds it", facts.join(", ")));
            Box::new(lines.into_iter())
        }
        Content::Unknown(value) => {
            let json = value.to_string();
            let shown: String = json.chars().take(400).collect();
            Box::new(
                [
                    format!(
                        "{} — kept as sent, exported as is",
                        one_line(&describe(content))
                    ),
                    one_line(&shown),
                ]
                .into_iter(),
            )
        }
    }
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
    let mut lines: Vec<Line> = Vec::new();
    let mut selected_at = 0;
    for (index, item) in review.items.iter().enumerate() {
        if index > 0 {
            lines.push(Line::raw(""));
        }
        if index == review.selected {
            selected_at = lines.len();
            lines.push(header_line(review, index, &item.message, theme));
            let room = height.saturating_sub(2).max(1);
            let mut body = body_lines(&item.message.content).skip(review.scroll);
            for text in body.by_ref().take(room) {
                lines.push(Line::raw(format!("  {text}")));
            }
            let rest = body.count();
            if rest > 0 {
                lines.push(Line::styled(
                    format!("  … {rest} more lines (PgDn scrolls)"),
                    theme.dim(),
                ));
            }
        } else {
            lines.push(header_line(review, index, &item.message, theme));
            let mut body = body_lines(&item.message.content);
            for text in body.by_ref().take(PREVIEW_LINES) {
                lines.push(Line::styled(format!("  {text}"), theme.dim()));
            }
            let rest = body.count();
            if rest > 0 {
                lines.push(Line::styled(format!("  … {rest} more lines"), theme.dim()));
            }
        }
    }
    // Scroll so the selected message starts near the top when it would not fit below.
    let offset = if selected_at + 3 > height {
        selected_at.saturating_sub(1)
    } else {
        0
    };
    let shown: Vec<Line> = lines.into_iter().skip(offset).take(height).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }), area);
}

fn draw_preview(review: &ReviewState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let title = format!(
        " Preview: {} (f changes) ",
        crate::app::format_name(review.format)
    );
    let block = titled_block(Span::styled(title, theme.accent()), false, theme);
    let inner = block.inner(area);
    let export = review.export();
    let lines: Vec<Line> = export
        .lines()
        .take(inner.height as usize)
        .map(|l| Line::raw(crate::text::sanitize(l)))
        .collect();
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}
