//! The logs pane: every server's stderr lines and log messages.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, one_line, titled_block};
use crate::app::{App, LogsView, ServerState, log_matches};

/// Milliseconds since start as `mm:ss.s`, the time column of the pane.
pub(super) fn clock(at_ms: u64) -> String {
    let tenths = at_ms / 100;
    format!(
        "{:02}:{:02}.{}",
        tenths / 600,
        tenths % 600 / 10,
        tenths % 10
    )
}

/// The pane's title: which lines, the filter with how many lines it keeps, and the keys.
fn title(which: &str, view: &LogsView, shown: usize, total: usize) -> (String, Option<usize>) {
    let mut title = format!(" Logs: {which}");
    let mut cursor = None;
    if view.editing_filter || !view.filter.is_empty() {
        title.push_str(" · filter: ");
        cursor = Some(
            Span::raw(title.clone()).width() + usize::from(super::cursor_column(&view.filter)),
        );
        title.push_str(&one_line(view.filter.text()));
        title.push_str(&format!(" ({shown} of {total} lines)"));
    }
    title.push_str(if view.editing_filter {
        " (Enter: keep, Esc: clear) "
    } else {
        " (/: filter, Tab: next, Esc: close) "
    });
    (title, cursor)
}

pub(super) fn draw(app: &App, view: &LogsView, frame: &mut Frame, area: Rect, theme: &Theme) {
    let which = match &view.server {
        _ if view.notices => "mcpick's notices".into(),
        Some(server) => format!("server {}", one_line(server)),
        None => "all servers".into(),
    };
    let filter = view.filter.text();
    if view.notices {
        let total = app.notices.len();
        let shown = app
            .notices
            .iter()
            .filter(|n| log_matches(filter, "", &n.text))
            .count();
        let (title, cursor) = title(&which, view, shown, total);
        let block = titled_block(Span::styled(title, theme.accent()), true, theme);
        draw_notices(app, view, frame, area, block, theme);
        place_cursor(frame, area, view, cursor);
        return;
    }
    // The title counts the lines, so the block is made after them; its inside is known.
    let inner = titled_block("", true, theme).inner(area);
    let mut lines: Vec<Line> = Vec::new();
    let width = app
        .servers
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(16);
    let mut entries: Vec<Line> = Vec::new();
    let (mut shown, mut total) = (0, 0);
    let no_lines = crate::app::ServerLines::default();
    for status in &app.servers {
        let server = &status.name;
        if view.server.as_ref().is_some_and(|s| s != server) {
            continue;
        }
        let log = app.logs.get(server).unwrap_or(&no_lines);
        // A server waiting for the user ends its lines with what it waits for (its
        // failures and restarts are events in its lines, with their times).
        let failure = match &status.state {
            ServerState::NeedsSignIn => Some(crate::model::LogLine {
                source: "mcpick".into(),
                at_ms: 0,
                text: format!(
                    "asks for a sign-in: {} in the menu, or `mcpick auth login {server}`",
                    app.keys
                        .hint(crate::app::KeyScreen::Picker, crate::app::Action::SignIn)
                        .unwrap_or_else(|| "the sign_in key".into())
                ),
            }),
            ServerState::NeedsInput { inputs } => Some(crate::model::LogLine {
                source: "mcpick".into(),
                at_ms: 0,
                text: format!("waits for inputs before it starts: {}", inputs.join(", ")),
            }),
            _ => None,
        };
        for (line, failed) in log
            .iter()
            .map(|l| (l, false))
            .chain(failure.iter().map(|l| (l, true)))
        {
            total += 1;
            if !log_matches(filter, &line.source, &line.text) {
                continue;
            }
            shown += 1;
            // The server's state has no arrival time: it is how things stand now.
            let at = if failed {
                " ".repeat(CLOCK_WIDTH)
            } else {
                clock(line.at_ms)
            };
            let source_style = if failed {
                theme.error()
            } else if line.source == "stderr" {
                theme.dim()
            } else {
                theme.busy()
            };
            // Long lines wrap under the text column, so an error is read whole.
            let text_width = (inner.width as usize)
                .saturating_sub(CLOCK_WIDTH + 1 + width + 9)
                .max(10);
            for (n, chunk) in crate::text::wrap(&crate::text::display_line(&line.text), text_width)
                .into_iter()
                .enumerate()
            {
                entries.push(if n == 0 {
                    Line::from(vec![
                        Span::styled(format!("{at} "), theme.dim()),
                        // A name longer than the column is cut: the text column stays put.
                        Span::styled(
                            crate::text::pad_right(
                                &crate::text::cut_columns(&one_line(server), width),
                                width + 1,
                            ),
                            theme.accent(),
                        ),
                        Span::styled(
                            crate::text::pad_right(
                                &crate::text::cut_columns(&one_line(&line.source), 7),
                                8,
                            ),
                            source_style,
                        ),
                        Span::raw(chunk),
                    ])
                } else {
                    Line::raw(format!(
                        "{:w$}         {chunk}",
                        "",
                        w = CLOCK_WIDTH + 1 + width
                    ))
                });
            }
        }
    }
    if entries.is_empty() && lines.is_empty() {
        lines.push(Line::styled(
            if total > 0 {
                "No line holds the filter."
            } else {
                "Nothing logged yet."
            },
            theme.dim(),
        ));
    }
    let (title, cursor) = title(&which, view, shown, total);
    let block = titled_block(Span::styled(title, theme.accent()), true, theme);
    let room = (inner.height as usize).saturating_sub(lines.len());
    let end = entries.len().saturating_sub(view.scroll_from_bottom);
    let start = end.saturating_sub(room);
    lines.extend(entries.into_iter().skip(start).take(end - start));
    frame.render_widget(Paragraph::new(lines).block(block), area);
    place_cursor(frame, area, view, cursor);
}

/// The width of [`clock`]'s `mm:ss.s`.
const CLOCK_WIDTH: usize = 7;

/// While the filter is edited, the cursor sits in it, in the title.
fn place_cursor(frame: &mut Frame, area: Rect, view: &LogsView, cursor: Option<usize>) {
    if let Some(at) = cursor.filter(|_| view.editing_filter) {
        let x = area.x + 1 + (at as u16).min(area.width.saturating_sub(3));
        frame.set_cursor_position((x, area.y));
    }
}

/// Every notice the status bar showed, with when (minutes and seconds since start).
fn draw_notices(
    app: &App,
    view: &LogsView,
    frame: &mut Frame,
    area: Rect,
    block: ratatui::widgets::Block,
    theme: &Theme,
) {
    let inner = block.inner(area);
    let text_width = (inner.width as usize).saturating_sub(8).max(10);
    let mut entries: Vec<Line> = Vec::new();
    let filter = view.filter.text();
    for notice in app
        .notices
        .iter()
        .filter(|n| log_matches(filter, "", &n.text))
    {
        let seconds = notice.at_ms / 1000;
        let at = format!("{:02}:{:02}  ", seconds / 60, seconds % 60);
        let style = if notice.error {
            theme.error()
        } else {
            ratatui::style::Style::default()
        };
        for (n, chunk) in crate::text::wrap(&one_line(&notice.text), text_width)
            .into_iter()
            .enumerate()
        {
            let lead = if n == 0 {
                at.clone()
            } else {
                " ".repeat(at.len())
            };
            entries.push(Line::from(vec![
                Span::styled(lead, theme.dim()),
                Span::styled(chunk, style),
            ]));
        }
    }
    if entries.is_empty() {
        let empty = if app.notices.is_empty() {
            "No notices yet."
        } else {
            "No notice holds the filter."
        };
        entries.push(Line::styled(empty, theme.dim()));
    }
    let room = inner.height as usize;
    let end = entries.len().saturating_sub(view.scroll_from_bottom);
    let start = end.saturating_sub(room);
    let shown: Vec<Line> = entries.into_iter().skip(start).take(end - start).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
