//! The prompt menu: search line, ranked list, and the selected prompt's details.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{Theme, one_line, titled_block};
use crate::app::areas;
use crate::app::layout::{MenuAreas, MenuRow as Row, row_at, row_of};
use crate::app::{Action, App, CatalogMark, KeyScreen, RowMark, ServerState, busy_mark};
use crate::model::PromptInfo;
use crate::search::MatchMarker;
use crate::text::cut_columns as cut;

pub(super) fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let MenuAreas {
        search,
        offer,
        list,
        details,
    } = areas::menu(app, area);
    draw_search(app, frame, search, theme);
    if !offer.is_empty() {
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
    draw_list(app, frame, list, theme);
    if !details.is_empty() {
        draw_details(app, frame, details, theme);
    }
}

fn draw_search(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let count = format!(
        "  {}/{} prompts ",
        app.menu.ranked.len(),
        app.menu.entries.len()
    );
    let [left, right] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(count.chars().count() as u16),
    ])
    .areas(area);
    let mut spans = vec![Span::styled("❯ ", theme.accent())];
    if app.menu.query.is_empty() {
        spans.push(Span::styled(
            "type to search, /server:prompt to go straight there",
            theme.dim(),
        ));
    } else {
        spans.push(Span::raw(one_line(app.menu.query.text())));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), left);
    frame.render_widget(
        Paragraph::new(Span::styled(count, theme.dim())).right_aligned(),
        right,
    );
    if app.overlay.is_none() {
        // The cursor sits where the line is edited, not always at its end.
        let typed = 2 + super::cursor_column(&app.menu.query);
        frame.set_cursor_position((left.x + typed.min(left.width.saturating_sub(1)), left.y));
    }
}

/// `city*, state`: the arguments, required ones starred.
pub(super) fn argument_summary(prompt: &PromptInfo) -> String {
    crate::search::argument_summary(prompt)
}

/// `text` with the characters at `positions` in the match style, cut to `width` chars.
pub(super) fn highlighted<'a>(
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

/// The columns of a row's `cached`/`stale` badge, with the blank before it and the one
/// after it (so it does not touch the details pane's border).
const BADGE_WIDTH: usize = 8;

/// The fewest columns a title is cut to; in fewer, a row shows none.
const MIN_TITLE: usize = 8;

/// The command column's width in a list `width` columns wide: that of the longest visible
/// command within a share of the list (2/5), so one long name does not squeeze every other
/// row's title; a row whose command is longer pushes its own title right instead.
fn command_column(widths: impl Iterator<Item = usize>, width: usize) -> usize {
    let share = (width * 2 / 5).max(12);
    widths.filter(|w| *w <= share).max().unwrap_or(share)
}

/// The columns the arguments keep at least when title and arguments cannot both be
/// whole (room allowing): a short first argument and the `, …` that says more follow
/// (`topic*, …`).
const ARGUMENTS_KEPT: usize = 10;

/// The widths of the title and arguments columns in `room` columns (the two and the gap
/// between them), given the widest title and arguments. Both whole when they fit; else
/// the title comes first, as it says what a prompt does (the arguments are in the
/// details and the form): the arguments keep a quarter of the room, at least
/// [`ARGUMENTS_KEPT`] columns and at most a third, and the title takes the rest. Until
/// issue 51 they kept a third, which cut titles to 16 columns at 120 with six servers
/// while most arguments cells said `…` alone; no title is cut shorter than that rule cut
/// it, and a wide list still has room for two arguments.
fn title_and_arguments(title: usize, arguments: usize, room: usize) -> (usize, usize) {
    if title + 2 + arguments <= room {
        return (title, arguments);
    }
    let kept = arguments.min((room / 4).max(ARGUMENTS_KEPT)).min(room / 3);
    let title = title.min(room.saturating_sub(kept + 2));
    (title, arguments.min(room.saturating_sub(title + 2)))
}

/// One row's title width and arguments text, given its title column (`title`, less what a
/// long command took of it), the arguments column, and the columns from the title's start
/// to the server's gap (`room`). An arguments cell that would say nothing (no arguments,
/// or `…` alone: not even the first fits) gives its columns and the gap before them to
/// the title, so a `…` alone is never drawn beside a cut title.
fn row_cells(title: usize, arguments: usize, room: usize, prompt: &PromptInfo) -> (usize, String) {
    // The arguments start after the title and its gap of two; with no title, where it
    // would have started.
    let gap = if title > 0 { 2 } else { 0 };
    let cell = arguments.min(room.saturating_sub(title + gap));
    let args = arguments_within(prompt, cell);
    if args.is_empty() || args == "…" {
        (title + gap + cell, String::new())
    } else {
        (title, args)
    }
}

/// [`argument_summary`] in `columns`: cut between two arguments and ended with `…`, so a
/// required argument's `*` is never cut off with the end of its name.
fn arguments_within(prompt: &PromptInfo, columns: usize) -> String {
    let whole = argument_summary(prompt);
    if crate::text::width(&whole) <= columns {
        return whole;
    }
    let mut shown = String::new();
    for argument in &prompt.arguments {
        let name = format!(
            "{}{}",
            one_line(&argument.name),
            if argument.required { "*" } else { "" }
        );
        let longer = if shown.is_empty() {
            name
        } else {
            format!("{shown}, {name}")
        };
        // Room is left for the `, …` that says more follow.
        if crate::text::width(&longer) + 3 > columns {
            break;
        }
        shown = longer;
    }
    match (shown.is_empty(), columns) {
        (_, 0) => String::new(),
        (true, _) => "…".to_string(),
        (false, _) => format!("{shown}, …"),
    }
}

fn draw_list(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    if app.menu.ranked.is_empty() {
        draw_empty(app, frame, area, theme);
        return;
    }
    let height = area.height as usize;
    let full_width = area.width as usize;
    // Only the visible rows are built in full (100,000 prompts must draw in a blink), but the
    // headers shift rows: the row of the selection is its rank plus the headers above it.
    let recent = app.recent_rows();
    debug_assert!(
        row_at(
            row_of(app.menu.selected, recent),
            recent,
            app.menu.ranked.len()
        ) == Some(Row::Entry(app.menu.selected))
    );
    // The same first row update uses for clicks, so a click hits the row drawn there.
    let offset = areas::first_row(app, height);
    let visible: Vec<Row> = (offset..offset + height)
        .map_while(|at| row_at(at, recent, app.menu.ranked.len()))
        .collect();
    let mut highlighter = MatchMarker::new(&app.menu.parsed_query.needle);
    let entries = || {
        visible.iter().filter_map(|row| match row {
            Row::Entry(rank) => Some(&app.menu.entries[app.menu.ranked[*rank].index()]),
            Row::Header(_) => None,
        })
    };
    // The columns, sized over every entry so they stay put as results change:
    // ▌ /command [skill]  title  arguments …… server  stale
    let widths = &app.menu.widths;
    // Only a list past its cached freshness marks rows (`stale`); the status line says how
    // old the lists are once.
    // A prompt not as the lockfile has it says so there too (`changed`, `new`).
    let badge_width = if entries().any(|e| {
        app.row_mark(&e.prompt.server) == Some(RowMark::Stale)
            || app.menu.drift_of(&e.prompt).is_some()
    }) {
        BADGE_WIDTH
    } else {
        0
    };
    let server_width = widths.server.min(full_width / 5);
    // The marker, the gap before the title, the one before the server (two, as between
    // the other columns; with no server column, one blank), and a blank after it (so it
    // does not touch the details pane's border) unless a badge column ends it. The gap
    // between title and arguments is the room's: until issue 51 it was counted here too,
    // two columns that no title or argument could use.
    let trailing = usize::from(badge_width == 0);
    let server_gap = if server_width > 0 { 2 } else { 1 };
    let before_server =
        full_width.saturating_sub(server_gap + server_width + badge_width + trailing);
    let command_width = command_column(widths.commands.iter().copied(), full_width);
    // Title, gap and arguments.
    let room = before_server.saturating_sub(2 + command_width + 2);
    let (title_width, args_width) = title_and_arguments(widths.title, widths.arguments, room);
    let columns = Columns {
        full_width,
        command_width,
        title_width,
        args_width,
        before_server,
        server_gap,
        server_width,
        badge_width,
    };
    let mut lines = Vec::with_capacity(height);
    for row in &visible {
        let rank = match row {
            Row::Header(text) => {
                lines.push(Line::styled(format!("  {text}"), theme.accent()));
                continue;
            }
            Row::Entry(rank) => *rank,
        };
        lines.push(entry_line(app, rank, &columns, &mut highlighter, theme));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The list's columns for this draw, sized over every entry (see [`draw_list`]).
struct Columns {
    full_width: usize,
    command_width: usize,
    title_width: usize,
    args_width: usize,
    /// Where the gap before the server column starts.
    before_server: usize,
    server_gap: usize,
    server_width: usize,
    /// The `stale` column's width, or 0 when no row shown is stale.
    badge_width: usize,
}

/// The row of the entry ranked `rank`: marker, command (and skill badge), title,
/// arguments, server and badge, each in its column, the matched letters marked.
fn entry_line(
    app: &App,
    rank: usize,
    columns: &Columns,
    highlighter: &mut MatchMarker,
    theme: &Theme,
) -> Line<'static> {
    let Columns {
        full_width,
        command_width,
        title_width,
        args_width,
        before_server,
        server_gap,
        server_width,
        badge_width,
    } = *columns;
    let entry = &app.menu.entries[app.menu.ranked[rank].index()];
    let prompt = &entry.prompt;
    let selected = rank == app.menu.selected;
    let base = if selected {
        theme.selected()
    } else {
        ratatui::style::Style::default()
    };
    let mut spans = vec![Span::styled(
        if selected { "▌ " } else { "  " },
        base.patch(theme.accent()),
    )];
    // The command is what the user types: a longer one than the column keeps its whole
    // text (cut only at the list's edge) and takes its room from its own title.
    let badge = if prompt.skill.is_some() {
        crate::search::SKILL_BADGE_WIDTH
    } else {
        0
    };
    let command = cut(
        &one_line(&entry.command()),
        full_width.saturating_sub(2 + badge),
    );
    let positions = highlighter.positions(&command);
    spans.extend(highlighted(&command, &positions, usize::MAX, base, theme));
    // The badge ends the command column, so the badges line up too.
    let command_only = crate::text::width(&command);
    if badge > 0 {
        let gap = command_width.saturating_sub(command_only + badge) + 1;
        spans.push(Span::styled(" ".repeat(gap), base));
        spans.push(Span::styled(SKILL_BADGE, base.patch(theme.accent())));
    }
    let shown_width = spans
        .iter()
        .skip(1)
        .map(|s| crate::text::width(&s.content))
        .sum::<usize>();
    let pad = command_width.saturating_sub(shown_width) + 2;
    spans.push(Span::styled(" ".repeat(pad), base));
    // The title (or, for a prompt without one, its description).
    let overflow = shown_width.saturating_sub(command_width);
    let (row_title_width, args) = row_cells(
        title_width.saturating_sub(overflow),
        args_width,
        before_server.saturating_sub(2 + shown_width.max(command_width) + 2),
        prompt,
    );
    let column = crate::search::title_column(prompt);
    // A title cut to a few letters says nothing (the details show it whole): a blank
    // keeps the arguments in their column.
    let title = if row_title_width >= MIN_TITLE {
        cut(&column.text, row_title_width)
    } else {
        String::new()
    };
    // A description is searched by whole words, not letter by letter: no letters of
    // it are marked as matched.
    let title_positions = if column.description {
        Vec::new()
    } else {
        highlighter.positions(&title)
    };
    spans.extend(highlighted(
        &title,
        &title_positions,
        row_title_width,
        base,
        theme,
    ));
    if row_title_width > 0 && !args.is_empty() {
        let pad = row_title_width.saturating_sub(crate::text::width(&title)) + 2;
        spans.push(Span::styled(" ".repeat(pad), base));
    }
    spans.push(Span::styled(args, base.patch(theme.dim())));
    // The server, in a column of its own: where `/translate` comes from.
    let used: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
    let server = cut(&one_line(&prompt.server), server_width);
    if server_width > 0 && used + 1 < full_width {
        let gap = before_server.saturating_sub(used) + server_gap;
        spans.push(Span::styled(" ".repeat(gap), base));
        let pad = server_width.saturating_sub(crate::text::width(&server));
        spans.push(Span::styled(server, base.patch(theme.dim())));
        spans.push(Span::styled(" ".repeat(pad), base));
    }
    let used: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
    let stale = app.row_mark(&prompt.server) == Some(RowMark::Stale);
    if badge_width > 0 {
        let word = badge_width - 1;
        // Drift is this prompt's own news; a stale list is said in the status line too.
        let (text, style) = match app.menu.drift_of(&entry.prompt) {
            Some(drift) => (drift.word(), theme.error()),
            None if stale => (RowMark::Stale.word(), theme.busy()),
            None => ("", theme.busy()),
        };
        let start = full_width.saturating_sub(badge_width);
        if used < start {
            spans.push(Span::styled(" ".repeat(start - used), base));
        }
        spans.push(Span::styled(format!("{text:>word$} "), base.patch(style)));
    } else if selected && used < full_width {
        spans.push(Span::styled(" ".repeat(full_width - used), base));
    }
    Line::from(spans)
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
    let key = |action| {
        app.keys
            .hint(KeyScreen::Picker, action)
            .map(|k| format!(" ({k})"))
            .unwrap_or_default()
    };
    // `/server:` of a server that is not ready: its state, not "no match".
    let narrowed = app
        .menu
        .parsed_query
        .server
        .as_ref()
        .and_then(|name| app.servers.iter().find(|s| &s.name == name));
    let state = narrowed.and_then(|server| {
        let name = one_line(&server.name);
        match &server.state {
            ServerState::Failed { error, .. } => Some((
                format!("{name} failed: {}", one_line(error)),
                format!(
                    "Start it again{}; its logs{}.",
                    key(Action::Restart),
                    key(Action::Logs)
                ),
            )),
            ServerState::NeedsSignIn => Some((
                format!("{name} needs a sign-in before it lists its prompts."),
                format!("Sign in{}.", key(Action::SignIn)),
            )),
            ServerState::NeedsInput { inputs } => Some((
                format!(
                    "{name} waits for {} before it starts.",
                    one_line(&inputs.join(", "))
                ),
                format!(
                    "Type {}{}.",
                    crate::text::plural(inputs.len(), "it", "them"),
                    key(Action::Inputs)
                ),
            )),
            ServerState::Connecting => Some((
                format!("{} {name} is still connecting…", busy_mark(app)),
                String::new(),
            )),
            ServerState::Ready { prompts: 0, .. } => {
                Some((format!("{name} offers no prompts."), String::new()))
            }
            ServerState::Ready { .. } => None,
        }
    });
    if let Some((what, next)) = state {
        let style = match narrowed.map(|s| &s.state) {
            Some(ServerState::Failed { .. }) => theme.error(),
            Some(ServerState::Ready { .. }) => ratatui::style::Style::default(),
            _ => theme.busy(),
        };
        lines.push(Line::styled(what, style));
        if !next.is_empty() {
            lines.push(Line::styled(next, theme.dim()));
        }
    } else if !app.menu.entries.is_empty() {
        lines.push(Line::raw(format!(
            "No prompt matches “{}”.",
            one_line(app.menu.query.text())
        )));
        if !app.menu.closest_commands.is_empty() {
            let names: Vec<String> = app
                .menu
                .closest_commands
                .iter()
                .map(|c| one_line(c))
                .collect();
            let said = match names.as_slice() {
                [one] => one.clone(),
                [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
                [] => String::new(),
            };
            lines.push(Line::styled(
                format!("Did you mean {said}?"),
                theme.accent(),
            ));
        }
        lines.push(Line::styled(
            "Backspace widens the search; Esc clears it.",
            theme.dim(),
        ));
    } else if connecting > 0 {
        lines.push(Line::styled(
            format!(
                "{} Connecting to {connecting} server{}…",
                busy_mark(app),
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
    let inner_width = usize::from(area.width.saturating_sub(2));
    let mut name = vec![Span::styled(
        one_line(prompt.display_name()),
        theme.accent(),
    )];
    if prompt.skill.is_some() {
        name.push(Span::styled(format!("  {SKILL_BADGE}"), theme.dim()));
    }
    let mut lines = vec![
        Line::from(name),
        Line::styled(format!("/{}", one_line(&entry.slash_name)), theme.dim()),
    ];
    if let Some(line) = catalog_line(app, &prompt.server, theme) {
        lines.push(line);
    }
    lock_lines(app, entry, &mut lines, inner_width, theme);
    if let Some(source) = app.server_sources.get(&prompt.server) {
        lines.push(Line::styled(
            format!("server from {}", one_line(source)),
            theme.dim(),
        ));
    }
    if let Some(description) = &prompt.description {
        lines.push(Line::raw(""));
        lines.extend(
            crate::text::as_drawn(&crate::text::sanitize(description))
                .lines()
                .map(|l| Line::raw(crate::text::expand_tabs(l))),
        );
    }
    if let Some(skill) = &prompt.skill {
        skill_details(skill, &mut lines, inner_width, theme);
    }
    if !prompt.arguments.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled("Arguments", theme.dim()));
        for arg in &prompt.arguments {
            let mut pieces = vec![(
                one_line(arg.title.as_deref().unwrap_or(&arg.name)),
                ratatui::style::Style::default(),
            )];
            if arg.required {
                pieces.push((" (required)".into(), theme.error()));
            }
            if let Some(d) = &arg.description {
                pieces.push((format!(" — {}", one_line(d)), theme.dim()));
            }
            lines.extend(hanging(&pieces, inner_width, 2, 4));
        }
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block),
        area,
    );
}

/// `pieces` (text, style) as one item of a list `width` columns wide: its first row
/// indented by `first`, the rows it wraps to by `rest`, so a long description reads as
/// part of its item and never runs back to column 0.
fn hanging(
    pieces: &[(String, ratatui::style::Style)],
    width: usize,
    first: usize,
    rest: usize,
) -> Vec<Line<'static>> {
    let text: String = pieces.iter().map(|(t, _)| t.as_str()).collect();
    // Where each piece ends in `text`, to give each row's parts their styles.
    let mut ends = Vec::with_capacity(pieces.len());
    let mut end = 0;
    for (piece, style) in pieces {
        end += piece.len();
        ends.push((end, *style));
    }
    let room = width.saturating_sub(rest).max(1);
    let mut lines = Vec::new();
    let mut at = 0;
    for (n, row) in crate::text::wrap(&text, room).into_iter().enumerate() {
        let indent = if n == 0 { first } else { rest };
        let mut spans = vec![Span::raw(" ".repeat(indent))];
        let row_end = at + row.len();
        let mut from = at;
        for &(piece_end, style) in &ends {
            if piece_end <= from {
                continue;
            }
            let to = piece_end.min(row_end);
            spans.push(Span::styled(text[from..to].to_string(), style));
            from = to;
            if from == row_end {
                break;
            }
        }
        at = row_end;
        lines.push(Line::from(spans));
    }
    lines
}

/// The badge of a skill's row, in the title column.
pub(super) const SKILL_BADGE: &str = "[skill]";

/// A skill's part of the details: where it is, its front matter, and its manifest's
/// files (nothing of them is read before the skill is picked).
fn skill_details(
    skill: &crate::model::skill_manifest::SkillManifest,
    lines: &mut Vec<Line<'_>>,
    width: usize,
    theme: &Theme,
) {
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("Skill (SEP-2640) at {}", one_line(&skill.uri)),
        theme.dim(),
    ));
    lines.push(Line::styled("Front matter", theme.dim()));
    for (key, value) in &skill.frontmatter {
        let shown = match value {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let pieces = [
            (format!("{}: ", one_line(key)), theme.dim()),
            (one_line(&shown), ratatui::style::Style::default()),
        ];
        lines.extend(hanging(&pieces, width, 2, 4));
    }
    match &skill.files {
        Some(files) => {
            lines.push(Line::styled(
                format!(
                    "Files ({}; each verified when read)",
                    crate::text::counted(files.len(), "file", "files")
                ),
                theme.dim(),
            ));
            for file in files {
                let size = file
                    .size
                    .map(|s| format!("  {}", crate::text::counted(s as usize, "byte", "bytes")))
                    .unwrap_or_default();
                lines.push(Line::raw(format!(
                    "  {}{size}",
                    one_line(&skill.relative(&file.uri))
                )));
            }
        }
        None => lines.push(Line::styled(
            "Files: not listed (a dynamic skill: it cannot be verified)",
            theme.busy(),
        )),
    }
}

/// How the selected prompt differs from the lockfile, change by change, and what accepts
/// it (or, with `[lock] enforce`, that it is refused until then).
fn lock_lines(
    app: &App,
    entry: &crate::search::Entry,
    lines: &mut Vec<Line<'static>>,
    width: usize,
    theme: &Theme,
) {
    let (Some(lock), Some(drift)) = (&app.options.lock, app.menu.drift_of(&entry.prompt)) else {
        return;
    };
    let file = one_line(&lock.shown_path);
    let heading = match drift {
        crate::lock::Drift::New => format!("new: not in {file}"),
        crate::lock::Drift::Changed(_) => format!("changed since {file}:"),
    };
    lines.push(Line::styled(heading, theme.error()));
    if let crate::lock::Drift::Changed(changes) = drift {
        for change in changes {
            let text = format!("• {}", one_line(&change.to_string()));
            lines.extend(hanging(&[(text, theme.error())], width, 2, 4));
        }
    }
    let next = if lock.enforce {
        "[lock] enforce refuses it until `mcpick lock` accepts it"
    } else {
        "`mcpick lock` accepts it; `mcpick check` shows every change"
    };
    lines.extend(hanging(&[(next.to_string(), theme.dim())], width, 0, 2));
}

/// Where the selected prompt's row came from, when not from a list fetched now: the
/// catalog (how old, how fresh, what happens next), or why it is stale.
fn catalog_line<'a>(app: &App, server: &str, theme: &Theme) -> Option<Line<'a>> {
    let mark = app.catalog_mark(server)?;
    let key = |action| {
        app.keys
            .hint(KeyScreen::Picker, action)
            .unwrap_or_else(|| action.name().to_string())
    };
    let name = one_line(server);
    let state = app
        .servers
        .iter()
        .find(|s| s.name == server)
        .map(|s| &s.state);
    let (text, style) = match (mark, app.row_mark(server)) {
        (
            CatalogMark::Stale {
                reason, listed_ms, ..
            },
            _,
        ) => {
            let next = match state {
                Some(ServerState::Failed { .. }) => {
                    format!("{} starts it again", key(Action::Restart))
                }
                Some(ServerState::NeedsSignIn) => format!("{} signs in", key(Action::SignIn)),
                Some(ServerState::Connecting) => format!("{name} is starting again"),
                _ => format!("{} lists again", key(Action::Refresh)),
            };
            // "stale, listed 2 min ago: crashed (…); F5 starts it again": the age stays.
            let listed = listed_ms
                .map(|at| {
                    let age = crate::app::short_duration(app.wall_ms.saturating_sub(at));
                    format!(", listed {age} ago")
                })
                .unwrap_or_default();
            (
                format!(
                    "stale{listed}: {}; {next}",
                    one_line(reason.trim_end_matches('.'))
                ),
                theme.busy(),
            )
        }
        (
            CatalogMark::Cached {
                listed_ms,
                fresh_until,
            },
            mark,
        ) => {
            let age = crate::app::short_duration(app.wall_ms.saturating_sub(*listed_ms));
            let listed = format!("cached, listed {age} ago");
            let text = match (state, mark, fresh_until) {
                (Some(ServerState::Ready { .. }), Some(RowMark::Cached), Some(until)) => format!(
                    "{listed}; fresh for {} more (its ttlMs); {} lists again",
                    crate::app::short_duration(until.saturating_sub(app.wall_ms)),
                    key(Action::Refresh)
                ),
                (Some(ServerState::Ready { .. }), _, _) => format!(
                    "{listed}, out of date by its ttlMs; {} lists again",
                    key(Action::Refresh)
                ),
                _ => format!("{listed}; {name} is starting, its live list replaces these"),
            };
            (text, theme.dim())
        }
    };
    Some(Line::styled(text, style))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::layout::{ALL, RECENT};

    #[test]
    fn recent_rows_sit_under_their_header_and_the_rest_under_another() {
        let rows: Vec<Option<Row>> = (0..7).map(|at| row_at(at, 2, 4)).collect();
        assert_eq!(
            rows,
            vec![
                Some(Row::Header(RECENT)),
                Some(Row::Entry(0)),
                Some(Row::Entry(1)),
                Some(Row::Header(ALL)),
                Some(Row::Entry(2)),
                Some(Row::Entry(3)),
                None
            ]
        );
        // Without recent prompts: the ranks alone.
        assert_eq!(row_at(3, 0, 4), Some(Row::Entry(3)));
        assert_eq!(row_at(4, 0, 4), None);
        // All recent: one header, nothing repeated.
        let rows: Vec<Option<Row>> = (0..4).map(|at| row_at(at, 2, 2)).collect();
        assert_eq!(
            rows,
            vec![
                Some(Row::Header(RECENT)),
                Some(Row::Entry(0)),
                Some(Row::Entry(1)),
                None
            ]
        );
    }

    #[test]
    fn the_command_column_fits_the_typical_names_not_one_long_one() {
        // One name past 2/5 of 72 columns: the column fits the others.
        assert_eq!(command_column([14, 9, 38, 12].into_iter(), 72), 14);
        // Every name fits: the longest sets it.
        assert_eq!(command_column([14, 20].into_iter(), 72), 20);
        // None fits: the share.
        assert_eq!(command_column([40, 50].into_iter(), 72), 28);
    }

    #[test]
    fn the_title_gets_its_room_before_the_arguments() {
        // Both fit whole: both whole.
        assert_eq!(title_and_arguments(20, 12, 40), (20, 12));
        // Not both: the arguments keep 10 columns, the title takes the rest (the rule
        // before issue 51 kept them a third, 14, and cut the title to 26).
        assert_eq!(title_and_arguments(55, 29, 42), (30, 10));
        // A wide room: a quarter.
        assert_eq!(title_and_arguments(80, 29, 64), (46, 16));
        // A short title leaves the arguments the rest of the room.
        assert_eq!(title_and_arguments(12, 40, 42), (12, 28));
        // Narrow: the arguments keep no more than a third.
        assert_eq!(title_and_arguments(55, 29, 17), (10, 5));
        // Arguments narrower than that keep their width.
        assert_eq!(title_and_arguments(55, 6, 42), (34, 6));
    }

    #[test]
    fn no_title_is_cut_shorter_than_the_rule_before_issue_51_cut_it() {
        // The rule until issue 51: the arguments kept up to a third of the room.
        let before = |title: usize, arguments: usize, room: usize| {
            if title + 2 + arguments <= room {
                return title;
            }
            let args = arguments.min((room / 3).max(room.saturating_sub(title + 2)));
            room.saturating_sub(args + 2).min(title)
        };
        for room in 0..120 {
            for title in (0..100).step_by(3) {
                for arguments in (0..60).step_by(3) {
                    let (now, args) = title_and_arguments(title, arguments, room);
                    assert!(
                        now >= before(title, arguments, room),
                        "{title} {arguments} {room}"
                    );
                    assert!(
                        now <= title && args <= arguments,
                        "{title} {arguments} {room}"
                    );
                    assert!(now + 2 + args <= room.max(2), "{title} {arguments} {room}");
                }
            }
        }
    }

    #[test]
    fn an_arguments_cell_that_would_say_only_an_ellipsis_is_the_titles() {
        use crate::app::tests::{arg, prompt};
        let p = prompt("s", "p", vec![arg("timeline", true), arg("impact", false)]);
        // `timeline*, …` needs 12 columns: in 10, the title takes them and the gap.
        assert_eq!(row_cells(18, 10, 40, &p), (30, String::new()));
        assert_eq!(row_cells(18, 12, 40, &p), (18, "timeline*, …".to_string()));
        // The row's room, not the column, bounds the cell (a long command took some).
        assert_eq!(row_cells(18, 12, 25, &p), (25, String::new()));
        // No arguments: the title has their cell too.
        let none = prompt("s", "p", vec![]);
        assert_eq!(row_cells(18, 12, 40, &none), (32, String::new()));
        // No title column: the arguments' columns alone.
        assert_eq!(row_cells(0, 10, 40, &p), (10, String::new()));
    }

    #[test]
    fn arguments_are_cut_between_two_so_a_required_mark_stays_whole() {
        use crate::app::tests::{arg, prompt};
        let p = prompt(
            "s",
            "p",
            vec![
                arg("first_argument", false),
                arg("second_argument", true),
                arg("third", false),
            ],
        );
        assert_eq!(
            arguments_within(&p, 60),
            "first_argument, second_argument*, third"
        );
        // `second_argument*` needs 17 more columns than `first_argument, `: not there.
        assert_eq!(arguments_within(&p, 30), "first_argument, …");
        assert_eq!(
            arguments_within(&p, 36),
            "first_argument, second_argument*, …"
        );
        assert_eq!(arguments_within(&p, 10), "…");
        assert_eq!(arguments_within(&p, 0), "");
    }

    #[test]
    fn cut_text_ends_in_an_ellipsis() {
        assert_eq!(cut("translate", 20), "translate");
        assert_eq!(cut("translate", 5), "tran…");
    }
}
