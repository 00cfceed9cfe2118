//! The review screen: every message with its role and block, the editor, the export preview.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, one_line, titled_block};
use crate::app::review::ViewRow;
use crate::app::{App, ClickTarget, Hits, ReviewState, busy_mark};
use crate::model::{Message, Role};

pub(super) fn draw(
    app: &App,
    review: &ReviewState,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    hits: &mut Hits,
) {
    // The split update scrolls with.
    let areas = review.areas_in(area);
    draw_header(app, review, frame, areas.header, theme);
    if let Some(editor) = &review.editor {
        let title = format!(
            " Editing #{} ({}) — Esc finishes ",
            review.selected + 1,
            review
                .items
                .get(review.selected)
                .map_or("user".to_string(), |i| one_line(i.message().role.as_str()))
        );
        let block = titled_block(Span::styled(title, theme.accent()), true, theme);
        let inner = block.inner(areas.body);
        frame.render_widget(block, areas.body);
        // ZWJ sequences and the like drawn as their parts, as in the form.
        super::form::draw_editor(editor, frame, inner);
    } else {
        if !areas.messages.is_empty() {
            // The key `m` is bound to, as the header names it (the config may move it).
            let toggle = app.keys.hint(
                crate::app::KeyScreen::Review,
                crate::app::Action::ToggleRendered,
            );
            let drawn = Drawn {
                toggle: toggle.as_deref(),
            };
            draw_messages(review, frame, areas.messages, drawn, theme, hits);
        }
        if !areas.preview.is_empty() {
            draw_preview(
                review,
                frame,
                areas.preview,
                areas.messages.is_empty(),
                theme,
            );
        }
    }
    let bottom_area = areas.bottom;
    if let Some(input) = &review.input {
        let label = format!("{}: ", input.label);
        let width = label.chars().count() as u16;
        let [l, r] =
            Layout::horizontal([Constraint::Length(width), Constraint::Fill(1)]).areas(bottom_area);
        frame.render_widget(Paragraph::new(Span::styled(label, theme.accent())), l);
        super::form::draw_editor(&input.editor, frame, r);
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
                format!("{} Reading the resource…", busy_mark(app)),
                theme.busy(),
            )),
            bottom_area,
        );
    }
}

fn draw_header(app: &App, review: &ReviewState, frame: &mut Frame, area: Rect, theme: &Theme) {
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
    if let Some(playing) = &app.playing {
        spans.push(Span::styled(
            format!("  ▶ playing #{} (Esc stops)", playing.index + 1),
            theme.busy(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// How the message bodies are drawn: the key that switches a message between rendered
/// and raw (none when unbound).
#[derive(Clone, Copy)]
struct Drawn<'k> {
    toggle: Option<&'k str>,
}

fn header_line<'a>(
    review: &ReviewState,
    index: usize,
    message: &Message,
    toggle: Option<&str>,
    theme: &Theme,
) -> Line<'a> {
    let selected = index == review.selected;
    let marker = if selected { "▌" } else { " " };
    let mut spans = vec![
        Span::styled(marker, theme.accent()),
        Span::styled(format!("#{} ", index + 1), theme.dim()),
        // A role beyond MCP's is the server's own text: drawn neutralised.
        Span::styled(
            one_line(message.role.as_str()),
            theme.role(message.role == Role::Assistant),
        ),
        Span::styled(
            format!(" · {}", one_line(message.content.kind())),
            theme.dim(),
        ),
    ];
    if crate::render::renders(&message.content) {
        // Said where it helps: on the selected message, and on any drawn raw.
        let raw = review.items[index].is_raw();
        let text = match (selected, raw, toggle) {
            (true, true, Some(key)) => format!(" · raw ({key} renders)"),
            (true, false, Some(key)) => format!(" · rendered ({key}: raw)"),
            (true, false, None) => " · rendered".to_string(),
            (_, true, _) => " · raw".to_string(),
            (false, false, _) => String::new(),
        };
        if !text.is_empty() {
            spans.push(Span::styled(text, theme.dim()));
        }
    }
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

fn draw_messages(
    review: &ReviewState,
    frame: &mut Frame,
    area: Rect,
    drawn: Drawn,
    theme: &Theme,
    hits: &mut Hits,
) {
    if review.items.is_empty() {
        frame.render_widget(
            Paragraph::new(vec![
                Line::raw("No messages."),
                Line::styled(
                    "a adds one; Ctrl-Z undoes the last edit; U restores what the server sent.",
                    theme.dim(),
                ),
            ]),
            area.inner(ratatui::layout::Margin::new(2, 1)),
        );
        return;
    }
    // The layout update scrolls with, from where the last draw left it.
    let view = review.messages_view_in(area.width, area.height);
    // Each row a click can select its message on.
    for (at, row) in view.visible().iter().enumerate() {
        let index = match *row {
            ViewRow::Header(index) | ViewRow::Body { index, .. } => index,
            _ => continue,
        };
        let y = area.y.saturating_add(at as u16);
        if y < area.bottom() {
            hits.push(
                Rect::new(area.x, y, area.width, 1),
                ClickTarget::Message(index),
            );
        }
    }
    let lines: Vec<Line> = view
        .visible()
        .iter()
        .map(|row| match *row {
            ViewRow::Gap => Line::raw(""),
            ViewRow::Header(index) => {
                let message = review.items[index].message();
                let mut line = header_line(review, index, message, drawn.toggle, theme);
                if index == review.selected && view.scroll > 0 {
                    let content = &review.items[index].message().content;
                    let rows = review.items[index].rows(view.width).len()
                        + review.pictures.reserved_rows(content, view.width);
                    line.push_span(Span::styled(
                        format!(" · from line {} of {rows}", view.scroll + 1),
                        theme.dim(),
                    ));
                }
                line
            }
            ViewRow::Body { index, row } => {
                let rows = review.items[index].rows(view.width);
                let mut line = body_row(rows.get(row), theme);
                if index != review.selected {
                    // The others dimmed: their own colours stay over it.
                    line = line.style(theme.dim());
                }
                line
            }
            ViewRow::Folded(rest) => Line::styled(
                format!(
                    "  … {rest} more {}",
                    crate::text::plural(rest, "line", "lines")
                ),
                theme.dim(),
            ),
            ViewRow::More(rest) => Line::styled(
                format!(
                    "  … {rest} more {} (PgDn or the wheel scrolls)",
                    crate::text::plural(rest, "line", "lines")
                ),
                theme.dim(),
            ),
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
    draw_pictures(review, &view, frame, area, theme);
}

/// Draws over the rows an image's picture takes (left blank by the body): the rows of the
/// picture that are on screen, a picture scrolled half out of view included (it is encoded
/// in rows), else a line saying what is there. Without a decoded picture (so in most tests)
/// only the line is drawn.
fn draw_pictures(
    review: &ReviewState,
    view: &crate::app::review::MessagesView,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
) {
    use crate::app::images::Shown;
    // Each image's reserved rows on screen: where the first is, which row of the picture
    // it is, and how many are on screen.
    let mut shown_rows: std::collections::BTreeMap<usize, (u16, usize, usize)> = Default::default();
    for (y, row) in view.visible().iter().enumerate() {
        if let ViewRow::Body { index, row } = *row {
            let text_rows = review.items[index].rows(view.width).len();
            if row >= text_rows {
                shown_rows
                    .entry(index)
                    .or_insert((y as u16, row - text_rows, 0))
                    .2 += 1;
            }
        }
    }
    let size =
        |pixels: Option<(u32, u32)>| pixels.map(|(w, h)| format!(" {w}×{h}")).unwrap_or_default();
    for (index, (y, first, count)) in shown_rows {
        let content = &review.items[index].message().content;
        let Some(shown) = review.pictures.shown(content, view.width) else {
            continue;
        };
        let at = Rect::new(area.x + 2, area.y + y, area.width.saturating_sub(2), 1);
        let line = match shown {
            Shown::Picture { picture, .. } => {
                let (columns, _) = picture.cells;
                // The rows on screen only; the picture placed as if from its first row, so
                // the rows above the pane are the ones left out.
                let rows = Rect::new(at.x, at.y, columns.min(at.width), count as u16);
                let from = ratatui_image::sliced::SignedPosition {
                    x: 0,
                    y: -i16::try_from(first).unwrap_or(i16::MAX),
                };
                frame.render_widget(
                    ratatui_image::sliced::SlicedImage::new(&picture.protocol, from),
                    rows,
                );
                continue;
            }
            Shown::Encoding(pixels) => format!("[image{} — drawing…]", size(Some(pixels))),
            Shown::Decoding(pixels) => format!("[image{} — decoding…]", size(pixels)),
            Shown::Failed(why) => format!("[image not drawn: {}]", one_line(&why)),
        };
        frame.render_widget(Paragraph::new(Line::styled(line, theme.dim())), at);
    }
}

/// A body row as drawn: indented two columns, in the theme's inks ([`Theme::ink`]).
fn body_row(row: Option<&Line<'static>>, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::raw("  ")];
    if let Some(row) = row {
        spans.extend(row.spans.iter().cloned());
    }
    theme.ink(Line::from(spans))
}

fn draw_preview(review: &ReviewState, frame: &mut Frame, area: Rect, alone: bool, theme: &Theme) {
    let keys = alone || review.preview_focused;
    let way_back = if alone {
        " · p or Esc back"
    } else if keys {
        " · Tab or Esc back"
    } else {
        " · Tab scrolls it"
    };
    let shown_as = match review.format {
        crate::export::Format::Markdown if review.preview_raw => " source",
        crate::export::Format::Markdown => " rendered",
        _ => "",
    };
    let title = format!(
        " Preview: {}{shown_as} (f changes{way_back}) ",
        crate::app::format_name(review.format)
    );
    let crate::app::review::PreviewView { rows, top, height } = review.preview_view_in(area);
    let shown = rows.len().min(top + height);
    let mut block = titled_block(Span::styled(title, theme.accent()), keys, theme);
    if rows.len() > height {
        block = block.title_bottom(Span::styled(
            format!(
                " lines {}–{shown} of {} · s saves it all, y copies it all ",
                top + 1,
                rows.len()
            ),
            theme.dim(),
        ));
    }
    let lines: Vec<Line> = rows[top..shown]
        .iter()
        .map(|r| theme.ink(r.clone()))
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
