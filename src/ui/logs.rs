//! The logs pane: every server's stderr lines and log messages.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, one_line, titled_block};
use crate::app::{App, LogsView, ServerState};

pub(super) fn draw(app: &App, view: &LogsView, frame: &mut Frame, area: Rect, theme: &Theme) {
    let which = match &view.server {
        _ if view.notices => "mcpick's notices".into(),
        Some(server) => format!("server {}", one_line(server)),
        None => "all servers".into(),
    };
    let title = format!(" Logs: {which} (Tab: next, Esc: close) ");
    let block = titled_block(Span::styled(title, theme.accent()), true, theme);
    let inner = block.inner(area);
    if view.notices {
        draw_notices(app, view, frame, area, block, theme);
        return;
    }
    let mut lines: Vec<Line> = Vec::new();
    let width = app
        .servers
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(16);
    let mut entries: Vec<Line> = Vec::new();
    let no_lines = std::collections::VecDeque::new();
    for status in &app.servers {
        let server = &status.name;
        if view.server.as_ref().is_some_and(|s| s != server) {
            continue;
        }
        let log = app.logs.get(server).unwrap_or(&no_lines);
        // A failed server's lines end with why it failed, whatever order they arrived in.
        let failure = match &status.state {
            ServerState::Failed { error, restart } => Some(crate::mcp::LogLine {
                source: "mcpick".into(),
                text: match restart {
                    Some(plan) => format!(
                        "failed: {error}; restarting in {} s (attempt {} of {})",
                        plan.delay.as_secs_f32().ceil(),
                        plan.attempt,
                        plan.of
                    ),
                    None => format!("failed: {error}"),
                },
            }),
            ServerState::NeedsSignIn => Some(crate::mcp::LogLine {
                source: "mcpick".into(),
                text: format!(
                    "asks for a sign-in: {} in the menu, or `mcpick auth login {server}`",
                    app.keys
                        .hint(crate::app::KeyScreen::Picker, crate::app::Action::SignIn)
                        .unwrap_or_else(|| "the sign_in key".into())
                ),
            }),
            ServerState::NeedsInput { inputs } => Some(crate::mcp::LogLine {
                source: "mcpick".into(),
                text: format!("waits for inputs before it starts: {}", inputs.join(", ")),
            }),
            _ => None,
        };
        for (line, failed) in log
            .iter()
            .map(|l| (l, false))
            .chain(failure.iter().map(|l| (l, true)))
        {
            let source_style = if failed {
                theme.error()
            } else if line.source == "stderr" {
                theme.dim()
            } else {
                theme.busy()
            };
            // Long lines wrap under the text column, so an error is read whole.
            let text_width = (inner.width as usize).saturating_sub(width + 9).max(10);
            for (n, chunk) in crate::text::wrap(&one_line(&line.text), text_width)
                .into_iter()
                .enumerate()
            {
                entries.push(if n == 0 {
                    Line::from(vec![
                        Span::styled(format!("{:<width$} ", one_line(server)), theme.accent()),
                        Span::styled(format!("{:<7} ", one_line(&line.source)), source_style),
                        Span::raw(chunk),
                    ])
                } else {
                    Line::raw(format!("{:width$}         {chunk}", ""))
                });
            }
        }
    }
    if entries.is_empty() && lines.is_empty() {
        lines.push(Line::styled("Nothing logged yet.", theme.dim()));
    }
    let room = (inner.height as usize).saturating_sub(lines.len());
    let end = entries.len().saturating_sub(view.scroll_from_bottom);
    let start = end.saturating_sub(room);
    lines.extend(entries.into_iter().skip(start).take(end - start));
    frame.render_widget(Paragraph::new(lines).block(block), area);
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
    for notice in &app.notices {
        let seconds = notice.tick * crate::app::TICK_MS / 1000;
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
        entries.push(Line::styled("No notices yet.", theme.dim()));
    }
    let room = inner.height as usize;
    let end = entries.len().saturating_sub(view.scroll_from_bottom);
    let start = end.saturating_sub(room);
    let shown: Vec<Line> = entries.into_iter().skip(start).take(end - start).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
