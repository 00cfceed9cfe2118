//! The form's file picker: a query line and the matching files, over the form.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{Theme, one_line};
use crate::app::{FilePicker, FileRow, FormState};

/// The picker's box: at most this wide and this tall.
const MAX_WIDTH: u16 = 100;
const MAX_HEIGHT: u16 = 22;
/// Rows of files the box has room for, however few match.
const MIN_ROWS: usize = 8;
/// The form's footer rows, left uncovered.
const FOOTER_ROWS: u16 = 2;

/// The width of a popup over the form (`area_width` wide), at most `max`: the form's whole
/// width when `max` would leave only a column or two of it beside the popup, so its box
/// lines up with the form's boxes rather than sitting one column inside them (`┌┌`, `└│`).
pub(super) fn popup_width(area_width: u16, max: u16) -> u16 {
    if area_width <= max.saturating_add(4) {
        area_width
    } else {
        max
    }
}

pub(super) fn draw(
    form: &FormState,
    picker: &FilePicker,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
) {
    let width = popup_width(area.width, MAX_WIDTH);
    // The form's footer stays in sight below: it says why a file was refused.
    let room = Rect {
        height: area.height.saturating_sub(FOOTER_ROWS).max(1),
        ..area
    };
    // As tall as the rows need (a few at least, so the box does not jump while typing).
    let wanted = picker.rows.len().max(MIN_ROWS) as u16 + 4;
    let height = wanted.min(room.height).min(MAX_HEIGHT);
    let popup = super::centered(room, width, height);
    frame.render_widget(Clear, popup);
    let field = form
        .fields
        .get(form.focus)
        .map(|f| one_line(f.arg.title.as_deref().unwrap_or(&f.arg.name)))
        .unwrap_or_default();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent())
        .title(Span::styled(
            format!(" {field}: a file's contents "),
            theme.accent(),
        ));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let columns = usize::from(inner.width);
    // The query line, its cursor where it is edited.
    let query = one_line(picker.query.text());
    let mut spans = vec![Span::styled("❯ ", theme.accent())];
    if query.is_empty() {
        spans.push(Span::styled(
            "type to search the files here, or a path (~/, /, ./, ../)",
            theme.dim(),
        ));
    } else {
        spans.push(Span::raw(query));
    }
    let mut lines = vec![Line::from(spans)];
    let count = match &picker.list {
        None => "listing the files…".to_string(),
        Some(list) => {
            // Every row but a typed path's (which comes first) is a listed file.
            let typed = matches!(picker.rows.first(), Some(FileRow::Typed(_)));
            let listed = picker.rows.len() - usize::from(typed);
            let more = if list.truncated {
                format!(" (the first {}; type a path for others)", list.files.len())
            } else {
                String::new()
            };
            format!("  {listed}/{} files{more}", list.files.len())
        }
    };
    let status = if picker.reading.is_some() {
        "  reading…".to_string()
    } else {
        count
    };
    lines.push(Line::styled(status, theme.dim()));
    let room = usize::from(inner.height).saturating_sub(lines.len());
    // Keep the selected row in sight.
    let start = picker.selected.saturating_sub(room.saturating_sub(1));
    // The matched characters, found for the rows in sight only.
    let mut highlighter = crate::search::MatchMarker::for_paths(picker.query.text());
    for (index, row) in picker.rows.iter().enumerate().skip(start).take(room) {
        let selected = index == picker.selected;
        let base = if selected {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        let marker = Span::styled(if selected { "▸ " } else { "  " }, base);
        let mut spans = vec![marker];
        match row {
            FileRow::Typed(path) => {
                spans.push(Span::styled(
                    crate::text::truncate(&one_line(path), columns.saturating_sub(12)).to_string(),
                    base,
                ));
                spans.push(Span::styled("  (this path)", theme.dim()));
            }
            FileRow::Listed(_) => {
                let path = picker.path_of(row).unwrap_or_default();
                let shown = one_line(&path);
                if shown == path {
                    let positions = highlighter.positions(&path);
                    spans.extend(super::picker::highlighted(
                        &path,
                        &positions,
                        columns.saturating_sub(2),
                        base,
                        theme,
                    ));
                } else {
                    // A name holding control characters: drawn safe, without marks.
                    spans.push(Span::styled(
                        crate::text::truncate(&shown, columns.saturating_sub(2)).to_string(),
                        base,
                    ));
                }
            }
        }
        lines.push(Line::from(spans));
    }
    if picker.rows.is_empty() && picker.list.is_some() && !picker.query.is_empty() {
        lines.push(Line::styled(
            "  no file matches; a path starting with ~/, /, ./ or ../ is taken as typed",
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    let typed = 2 + super::cursor_column(&picker.query);
    frame.set_cursor_position((inner.x + typed.min(inner.width.saturating_sub(1)), inner.y));
}
