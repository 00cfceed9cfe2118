//! The prompt menu: search line, ranked list, and the selected prompt's details.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{Theme, one_line, titled_block};
use crate::app::{App, ServerState, spinner};
use crate::catalog::Highlighter;
use crate::mcp::PromptInfo;

/// Width from which the details go beside the list rather than below it.
const SIDE_BY_SIDE: u16 = 100;
/// Below this many rows, a narrow menu shows no details pane under the list.
const NARROW_DETAILS_FROM: u16 = 12;

pub(super) fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let banner = if app.offer.is_empty() { 0 } else { 2 };
    let [search, offer, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(banner),
        Constraint::Fill(1),
    ])
    .areas(area);
    draw_search(app, frame, search, theme);
    if banner > 0 {
        let found: Vec<String> = app
            .offer
            .iter()
            .map(|o| {
                let plural = if o.servers == 1 { "" } else { "s" };
                format!(
                    "{} ({}, {} server{plural})",
                    o.dialect,
                    o.path.display(),
                    o.servers
                )
            })
            .collect();
        let key = app
            .keys
            .hint(
                crate::app::KeyScreen::Picker,
                crate::app::Action::UseSources,
            )
            .unwrap_or_else(|| "use_sources".into());
        frame.render_widget(
            Paragraph::new(Line::styled(
                format!(
                    "Found MCP servers in {}. {key} uses them (writes a config with `sources`).",
                    one_line(&found.join(", "))
                ),
                theme.busy(),
            ))
            .wrap(Wrap { trim: true }),
            offer,
        );
    }
    let (list, details) = if body.width >= SIDE_BY_SIDE {
        let [l, d] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
            .areas(body);
        (l, d)
    } else if body.height < NARROW_DETAILS_FROM {
        // A few rows (inline `--height`): the list needs them all.
        (body, Rect::default())
    } else {
        let [l, d] = Layout::vertical([Constraint::Fill(1), Constraint::Length(7)]).areas(body);
        (l, d)
    };
    draw_list(app, frame, list, theme);
    if !details.is_empty() {
        draw_details(app, frame, details, theme);
    }
}

fn draw_search(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let count = format!("  {}/{} prompts ", app.ranked.len(), app.entries.len());
    let [left, right] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(count.chars().count() as u16),
    ])
    .areas(area);
    let mut spans = vec![Span::styled("❯ ", theme.accent())];
    if app.query.is_empty() {
        spans.push(Span::styled(
            "type to search, /server:prompt to go straight there",
            theme.dim(),
        ));
    } else {
        spans.push(Span::raw(one_line(app.query.text())));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), left);
    frame.render_widget(
        Paragraph::new(Span::styled(count, theme.dim())).right_aligned(),
        right,
    );
    if app.overlay.is_none() {
        // The cursor sits where the line is edited, not always at its end.
        let before: String = app.query.text().chars().take(app.query.cursor()).collect();
        let typed = 2 + Span::raw(one_line(&before)).width() as u16;
        frame.set_cursor_position((left.x + typed.min(left.width.saturating_sub(1)), left.y));
    }
}

/// `city*, state`: the arguments, required ones starred.
pub(super) fn argument_summary(prompt: &PromptInfo) -> String {
    prompt
        .arguments
        .iter()
        .map(|a| format!("{}{}", one_line(&a.name), if a.required { "*" } else { "" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` with the characters at `positions` in the match style, cut to `width` chars.
fn highlighted<'a>(
    text: &str,
    positions: &[usize],
    width: usize,
    base: ratatui::style::Style,
    theme: &Theme,
) -> Vec<Span<'a>> {
    let mut spans = Vec::new();
    let mut run = String::new();
    let mut run_matched = false;
    for (i, c) in text.chars().take(width).enumerate() {
        let matched = positions.binary_search(&i).is_ok();
        if matched != run_matched && !run.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut run),
                if run_matched {
                    base.patch(theme.matched())
                } else {
                    base
                },
            ));
        }
        run_matched = matched;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(
            run,
            if run_matched {
                base.patch(theme.matched())
            } else {
                base
            },
        ));
    }
    spans
}

fn draw_list(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    if app.ranked.is_empty() {
        draw_empty(app, frame, area, theme);
        return;
    }
    let height = area.height as usize;
    // Keep the selection in view without jumping: scroll only as far as needed.
    let offset = app.selected.saturating_sub(height.saturating_sub(1));
    let width = area.width as usize;
    let server_width = app
        .servers
        .iter()
        .map(|s| crate::text::width(&s.name))
        .max()
        .unwrap_or(0)
        .min(16);
    let mut highlighter = Highlighter::new(&app.parsed_query.needle);
    // One argument column for the visible rows, so the server column lines up.
    let args_width = app
        .ranked
        .iter()
        .skip(offset)
        .take(height)
        .map(|r| crate::text::width(&argument_summary(&app.entries[r.index()].prompt)))
        .max()
        .unwrap_or(0)
        .min(width / 3);
    let mut lines = Vec::with_capacity(height);
    for (row, ranked) in app.ranked.iter().enumerate().skip(offset).take(height) {
        let entry = &app.entries[ranked.index()];
        let prompt = &entry.prompt;
        let selected = row == app.selected;
        let base = if selected {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        let name = one_line(prompt.display_name());
        let args = argument_summary(prompt);
        let name_width = width.saturating_sub(server_width + args_width + 6).max(8);
        let mut spans = vec![Span::styled(
            if selected { "▌ " } else { "  " },
            base.patch(theme.accent()),
        )];
        let name_shown = crate::text::truncate(&name, name_width).to_string();
        let positions = highlighter.positions(&name);
        spans.extend(highlighted(
            &name_shown,
            &positions,
            name_width,
            base,
            theme,
        ));
        let pad = name_width.saturating_sub(crate::text::width(&name_shown)) + 1;
        spans.push(Span::styled(" ".repeat(pad), base));
        let server: String = one_line(&prompt.server)
            .chars()
            .take(server_width)
            .collect();
        let server_positions = highlighter.positions(&server);
        spans.extend(highlighted(
            &server,
            &server_positions,
            server_width,
            base.patch(theme.dim()),
            theme,
        ));
        spans.push(Span::styled(
            " ".repeat(server_width.saturating_sub(crate::text::width(&server)) + 2),
            base,
        ));
        let args_shown = crate::text::truncate(&args, args_width).to_string();
        spans.push(Span::styled(args_shown, base.patch(theme.dim())));
        let used: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
        if selected && used < width {
            spans.push(Span::styled(" ".repeat(width - used), base));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_empty(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let connecting = app
        .servers
        .iter()
        .filter(|s| s.state == ServerState::Connecting)
        .count();
    let failed = app
        .servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::Failed { .. }))
        .count();
    let mut lines = Vec::new();
    if !app.entries.is_empty() {
        lines.push(Line::raw(format!(
            "No prompt matches “{}”.",
            one_line(app.query.text())
        )));
        lines.push(Line::styled(
            "Backspace widens the search; Esc clears it.",
            theme.dim(),
        ));
    } else if connecting > 0 {
        lines.push(Line::styled(
            format!(
                "{} Connecting to {connecting} server{}…",
                spinner(app.tick),
                if connecting == 1 { "" } else { "s" }
            ),
            theme.busy(),
        ));
    } else if failed > 0 && failed == app.servers.len() {
        lines.push(Line::styled(
            "No prompts: every server failed to start.",
            theme.error(),
        ));
        lines.push(Line::styled(
            "Ctrl-L shows their logs; check the config (mcpick servers tells more).",
            theme.dim(),
        ));
    } else if app.servers.iter().any(|s| {
        matches!(
            s.state,
            ServerState::NeedsInput { .. } | ServerState::NeedsSignIn
        )
    }) {
        lines.push(Line::raw(
            "No prompts yet: servers wait for inputs or a sign-in (see the status bar).",
        ));
    } else {
        lines.push(Line::raw("No prompts: the connected servers offer none."));
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }),
        area.inner(ratatui::layout::Margin::new(2, 1)),
    );
}

fn draw_details(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let block = titled_block(Span::styled(" Details ", theme.dim()), false, theme);
    let Some(entry) = app.selected_entry() else {
        frame.render_widget(block, area);
        return;
    };
    let prompt = &entry.prompt;
    let mut lines = vec![
        Line::styled(one_line(prompt.display_name()), theme.accent()),
        Line::styled(format!("/{}", one_line(&entry.slash_name)), theme.dim()),
    ];
    if let Some(source) = app.server_sources.get(&prompt.server) {
        lines.push(Line::styled(
            format!("server from {}", one_line(source)),
            theme.dim(),
        ));
    }
    if let Some(description) = &prompt.description {
        lines.push(Line::raw(""));
        lines.extend(
            crate::text::sanitize(description)
                .lines()
                .map(|l| Line::raw(l.to_string())),
        );
    }
    if !prompt.arguments.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Arguments", theme.dim()));
        for arg in &prompt.arguments {
            let mut spans = vec![Span::raw(format!(
                "  {}",
                one_line(arg.title.as_deref().unwrap_or(&arg.name))
            ))];
            if arg.required {
                spans.push(Span::styled(" (required)", theme.error()));
            }
            if let Some(d) = &arg.description {
                spans.push(Span::styled(format!(" — {}", one_line(d)), theme.dim()));
            }
            lines.push(Line::from(spans));
        }
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}
