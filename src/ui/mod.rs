//! Drawing: a pure function of the [`App`]. One file per screen.

mod chrome;
mod command;
mod files;
mod form;
mod inputs;
mod logs;
mod picker;
mod questions;
mod review;
mod theme;

#[cfg(test)]
mod content_tests;
#[cfg(test)]
mod skill_tests;
#[cfg(test)]
mod tests;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::app::{
    Action, App, ClickTarget, Hits, KeyScreen, Overlay, Screen, ServerState, busy_mark,
};
pub use theme::Theme;

pub(crate) use chrome::{centered, cursor_column, titled_block, waited};

pub use crate::app::layout::{MIN_HEIGHT, MIN_WIDTH};

/// Draws the whole screen.
pub fn draw(app: &App, frame: &mut Frame) {
    draw_with_hits(app, frame);
}

/// [`draw`], returning where it drew what a click can land on (fields, suggestions,
/// messages, the hints naming keys), for the event loop to look clicks up in.
pub fn draw_with_hits(app: &App, frame: &mut Frame) -> Hits {
    let mut hits = Hits::default();
    draw_into(app, frame, &mut hits);
    hits
}

fn draw_into(app: &App, frame: &mut Frame, hits: &mut Hits) {
    let area = frame.area();
    let theme = Theme::new(app.options.color, app.options.theme);
    // The same split update uses for the menu's page size and clicks.
    let Some([main, status, hints]) = crate::app::layout::screen(area) else {
        draw_too_small(frame, area, &theme);
        return;
    };
    match &app.overlay {
        Some(Overlay::Logs(view)) => logs::draw(app, view, frame, main, &theme),
        _ => match &app.screen {
            Screen::Picker => picker::draw(app, frame, main, &theme),
            Screen::Form(form) => form::draw(app, form, frame, main, &theme, hits),
            Screen::Questions(q) => questions::draw(app, q, frame, main, &theme),
            Screen::Review(review) => review::draw(app, review, frame, main, &theme, hits),
        },
    }
    draw_status(app, frame, status, main, &theme);
    draw_hints(app, frame, hints, &theme, hits);
    if let (None | Some(Overlay::Help { .. }), Screen::Form(form)) = (&app.overlay, &app.screen) {
        if let Some(picker) = &form.files {
            files::draw(form, picker, frame, main, &theme);
        } else if let Some(prompt) = &form.command {
            command::draw(form, prompt, busy_mark(app), frame, main, &theme);
        }
    }
    match &app.overlay {
        Some(Overlay::Help { .. }) => draw_help(app, frame, main, &theme),
        Some(Overlay::Inputs(prompt)) => inputs::draw(prompt, frame, main, &theme),
        _ => {}
    }
}

pub(crate) use crate::text::one_line;

fn draw_too_small(frame: &mut Frame, area: Rect, theme: &Theme) {
    let text = vec![
        Line::styled("Terminal too small", theme.error()),
        Line::raw(format!(
            "mcpick needs {MIN_WIDTH}×{MIN_HEIGHT}; this one is {}×{}.",
            area.width, area.height
        )),
        Line::raw("Make the window larger (Ctrl-C quits)."),
    ];
    let height = (text.len() as u16).min(area.height);
    let y = area.y + area.height.saturating_sub(height) / 2;
    frame.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: true }).centered(),
        Rect {
            x: area.x,
            y,
            width: area.width,
            height,
        },
    );
}

fn draw_status(app: &App, frame: &mut Frame, area: Rect, above: Rect, theme: &Theme) {
    let mut spans = Vec::new();
    for server in &app.servers {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.extend(server_status(app, server, theme));
    }
    if app.servers.is_empty() {
        spans.push(Span::styled("no servers configured", theme.dim()));
    }
    // Notices waiting behind this one are counted at its end, so none seems lost.
    let flash = app.flash.as_ref().map(|f| {
        let text = one_line(&f.text);
        match app.queued_notices.len() {
            0 => (text, f.error),
            waiting => (format!("{text} (+{waiting})"), f.error),
        }
    });
    // The servers keep their whole line whenever it fits the bar: a notice goes beside them
    // when there is room, else above the bar (below), never squeezing them to their counts.
    // Only servers too many for the bar alone are counted, and a notice takes what it needs
    // beside the counts, leaving room for them at least.
    let full: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
    let fits_alone = full <= usize::from(area.width);
    let flash_width = flash.as_ref().map_or(0, |(text, _)| {
        let text = crate::text::width(text) + SEPARATOR_WIDTH;
        if fits_alone {
            // Beside the whole line, or nothing here (it goes above).
            let room = usize::from(area.width) - full;
            return if text <= room { text as u16 } else { 0 };
        }
        let counts: usize = compact_status(app, theme)
            .iter()
            .map(|s| crate::text::width(&s.content))
            .sum();
        let room = area
            .width
            .saturating_sub(u16::try_from(counts).unwrap_or(u16::MAX))
            .max(area.width / 3);
        (text as u16).min(room)
    });
    let [servers, notice] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(flash_width)]).areas(area);
    if full > usize::from(servers.width) {
        spans = compact_status(app, theme);
    }
    // Still too wide: cut, marked, never mid-word unmarked.
    let full: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
    if full > usize::from(servers.width) {
        spans = cut_spans(spans, usize::from(servers.width).saturating_sub(1));
        spans.push(Span::styled("…", theme.dim()));
    }
    let servers_width: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
    let Some((text, error)) = flash else {
        frame.render_widget(Paragraph::new(Line::from(spans)), servers);
        return;
    };
    let style = if error { theme.error() } else { theme.accent() };
    let text_width = crate::text::width(&text);
    // The blank between the servers' end and the notice's start.
    let gap = usize::from(servers.width).saturating_sub(servers_width)
        + usize::from(notice.width).saturating_sub(text_width);
    if text_width <= usize::from(notice.width) && gap >= SEPARATOR_WIDTH {
        frame.render_widget(Paragraph::new(Line::from(spans)), servers);
        frame.render_widget(
            Paragraph::new(Line::styled(text, style).right_aligned()),
            notice,
        );
        return;
    }
    // Close to the servers: right after them, with a mark between, so two texts never read
    // as one.
    let room = usize::from(area.width).saturating_sub(servers_width + SEPARATOR_WIDTH);
    if text_width <= room {
        spans.push(Span::styled(NOTICE_SEPARATOR, theme.dim()));
        spans.push(Span::styled(text, style));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    }
    // Too long for the bar: the servers keep it, and the whole notice, wrapped, takes the
    // rows just above it, under a rule (never cut: a notice is read whole).
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    draw_notice_above(frame, &text, style, area, above, theme);
}

/// One server's part of the status bar: its mark, its name, and what it is doing (with
/// its rows' count and mark, the key that helps).
fn server_status(
    app: &App,
    server: &crate::app::ServerStatus,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let cached_rows = app.rows_of(&server.name);
    match &server.state {
        ServerState::Connecting => {
            spans.push(Span::styled(format!("{} ", busy_mark(app)), theme.busy()));
            spans.push(Span::raw(one_line(&server.name)));
            // Its rows from the catalog are in the menu already, usable.
            // (Restarting after a crash, its rows read stale.)
            if let Some(mark) = app.row_mark(&server.name) {
                spans.push(Span::styled(
                    format!(" · {cached_rows} {}", mark.word()),
                    theme.dim(),
                ));
            }
        }
        ServerState::Ready { .. } if app.refreshing.contains(&server.name) => {
            spans.push(Span::styled(format!("{} ", busy_mark(app)), theme.busy()));
            spans.push(Span::raw(one_line(&server.name)));
            spans.push(Span::styled(" refreshing…", theme.busy()));
        }
        ServerState::Ready { prompts, .. } => {
            spans.push(Span::styled("● ", theme.ok()));
            spans.push(Span::raw(one_line(&server.name)));
            spans.push(Span::styled(format!(" {prompts}"), theme.dim()));
            match app.row_mark(&server.name) {
                Some(crate::app::RowMark::Cached) => {
                    spans.push(Span::styled(" cached", theme.dim()))
                }
                Some(crate::app::RowMark::Stale) => {
                    spans.push(Span::styled(" stale", theme.busy()))
                }
                None => {}
            }
        }
        ServerState::NeedsSignIn => {
            let key = app
                .keys
                .hint(KeyScreen::Picker, Action::SignIn)
                .map(|k| format!(" ({k})"))
                .unwrap_or_default();
            spans.push(Span::styled("◇ ", theme.busy()));
            spans.push(Span::styled(
                format!("{} needs sign-in{key}", one_line(&server.name)),
                theme.busy(),
            ));
        }
        ServerState::NeedsInput { .. } => {
            spans.push(Span::styled("◇ ", theme.busy()));
            spans.push(Span::styled(
                format!("{} needs input", one_line(&server.name)),
                theme.busy(),
            ));
        }
        ServerState::Failed { restart, .. } => {
            let what = match restart {
                Some(plan) => format!(
                    "crashed, restart {}/{} in {} s",
                    plan.attempt,
                    plan.of,
                    plan.delay.as_secs_f32().ceil()
                ),
                None => match app.keys.hint(KeyScreen::Picker, Action::Restart) {
                    Some(key) => format!("failed ({key} restarts)"),
                    None => "failed".to_string(),
                },
            };
            spans.push(Span::styled("✗ ", theme.error()));
            spans.push(Span::styled(
                format!("{} {what}", one_line(&server.name)),
                theme.error(),
            ));
            // Its rows stay in the menu, stale, from the catalog.
            if app.row_mark(&server.name).is_some() {
                spans.push(Span::styled(format!(" · {cached_rows} stale"), theme.dim()));
            }
        }
    }
    spans
}

/// A notice too long for the status bar `bar`, wrapped over the bottom rows of `above`
/// under a dim rule; only a notice taller than all of `above` loses its last rows (marked
/// `…`; the logs pane's notices tab keeps it whole).
fn draw_notice_above(
    frame: &mut Frame,
    text: &str,
    style: ratatui::style::Style,
    bar: Rect,
    above: Rect,
    theme: &Theme,
) {
    let width = usize::from(bar.width);
    let mut rows = crate::text::wrap(text, width);
    let room = usize::from(above.height).saturating_sub(1);
    if room == 0 {
        return;
    }
    if rows.len() > room {
        rows.truncate(room);
        if let Some(last) = rows.last_mut() {
            *last = format!("{}…", crate::text::truncate(last.trim_end(), width - 1));
        }
    }
    let height = rows.len() as u16 + 1;
    let area = Rect {
        x: bar.x,
        y: bar.y.saturating_sub(height).max(above.y),
        width: bar.width,
        height,
    };
    let mut lines = vec![Line::styled("─".repeat(width), theme.dim())];
    lines.extend(rows.into_iter().map(|row| Line::styled(row, style)));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines), area);
}

/// Between the servers' states and a notice that comes close to them.
const NOTICE_SEPARATOR: &str = " │ ";
/// Its width in cells.
const SEPARATOR_WIDTH: usize = 3;

/// Server states as counts, naming only failed servers: for a bar too narrow for all.
fn compact_status<'a>(app: &App, theme: &Theme) -> Vec<Span<'a>> {
    let ready = app
        .servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::Ready { .. }))
        .count();
    let connecting = app
        .servers
        .iter()
        .filter(|s| s.state == ServerState::Connecting)
        .count();
    let failed: Vec<String> = app
        .servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::Failed { .. }))
        .map(|s| one_line(&s.name))
        .collect();
    let mut spans = vec![
        Span::styled("● ", theme.ok()),
        Span::raw(format!("{ready} ready")),
    ];
    if connecting > 0 {
        spans.push(Span::styled(format!("  {} ", busy_mark(app)), theme.busy()));
        spans.push(Span::raw(format!("{connecting} connecting")));
    }
    let waiting = app
        .servers
        .iter()
        .filter(|s| matches!(s.state, ServerState::NeedsInput { .. }))
        .count();
    if waiting > 0 {
        spans.push(Span::styled(
            format!("  ◇ {waiting} need input"),
            theme.busy(),
        ));
    }
    let signing = app
        .servers
        .iter()
        .filter(|s| s.state == ServerState::NeedsSignIn)
        .count();
    if signing > 0 {
        spans.push(Span::styled(
            format!("  ◇ {signing} need sign-in"),
            theme.busy(),
        ));
    }
    if !failed.is_empty() {
        spans.push(Span::styled(
            format!("  ✗ {} failed", failed.join(", ")),
            theme.error(),
        ));
    }
    spans
}

/// The actions worth a hint on each screen, in order.
fn hinted(app: &App) -> Vec<Action> {
    use Action::*;
    match &app.overlay {
        // The help's keys are its own (said in the hint line's text), not a screen's.
        Some(Overlay::Help { .. }) => return Vec::new(),
        Some(Overlay::Logs(view)) if view.editing_filter => return Vec::new(),
        Some(Overlay::Logs(_)) => return vec![NextServer, Filter, Up, Home, End, Back],
        _ => {}
    }
    if matches!(app.overlay, Some(Overlay::Inputs(_))) {
        return vec![NextOrSubmit, NextField, Submit, Back];
    }
    match &app.screen {
        // Nothing to open or move to: what widens the search, then the rest.
        Screen::Picker if app.menu.ranked.is_empty() && !app.menu.query.is_empty() => {
            vec![Back, Logs, Help, Quit]
        }
        Screen::Picker => vec![Pick, Down, Logs, Help, Quit],
        Screen::Form(form) if form.fetching.is_some() => vec![Back],
        Screen::Form(form) if form.files.is_some() => vec![Pick, Down, Back],
        Screen::Form(form)
            if form
                .command
                .as_ref()
                .is_some_and(|c| matches!(c.stage, crate::app::CommandStage::Running(_))) =>
        {
            vec![Back]
        }
        Screen::Form(form) if form.command.is_some() => vec![Submit, Back],
        // No fields (a prompt without arguments, waiting for its server): nothing to move
        // to, type in or fill.
        Screen::Form(form) if form.fields.is_empty() => vec![Submit, Back, Help],
        Screen::Form(_) => vec![
            NextOrSubmit,
            NextField,
            Submit,
            LivePreview,
            Newline,
            FromFile,
            FromCommand,
            ExternalEditor,
            Back,
            Help,
        ],
        Screen::Questions(_) => vec![Submit, NextField, Decline, Back, Help],
        Screen::Review(r) if r.editor.is_some() => vec![ExternalEditor, Back],
        Screen::Review(r) if r.is_typing() => vec![Back],
        Screen::Review(r) if r.preview_has_keys() => {
            vec![Back, Up, ScrollDown, Home, End, CycleFormat, Copy, Help]
        }
        Screen::Review(_) => vec![
            Accept,
            Edit,
            ToggleRole,
            Delete,
            Add,
            Restore,
            Copy,
            Save,
            CycleFormat,
            Preview,
            Back,
            Help,
        ],
    }
}

fn draw_hints(app: &App, frame: &mut Frame, area: Rect, theme: &Theme, hits: &mut Hits) {
    let screen = app.key_screen();
    let mut spans = Vec::new();
    let extra = match (&app.overlay, &app.screen) {
        (Some(Overlay::Help { .. }), _) => Some("↑/↓ PgUp/PgDn scroll · any other key closes"),
        (Some(Overlay::Logs(view)), _) if view.editing_filter => {
            Some("filter: type to narrow · Enter keeps it · Esc clears it")
        }
        (Some(_), _) => None,
        (_, Screen::Review(r)) if r.editor.is_some() => Some("editing: type freely"),
        (_, Screen::Review(r)) if r.input.is_some() => Some("Enter saves"),
        (_, Screen::Review(r)) if r.confirm.is_some() => {
            Some("y replaces · any other key keeps it")
        }
        _ => None,
    };
    if let Some(extra) = extra {
        spans.push(Span::styled(extra, theme.dim()));
    }
    // Hints that do not fit are left out, but the help key always shows.
    let help = app
        .keys
        .hint(screen, Action::Help)
        // Not under the help itself, nor while the logs filter takes typing (`?` is text).
        .filter(|_| match &app.overlay {
            Some(Overlay::Help { .. }) => false,
            Some(Overlay::Logs(view)) => !view.editing_filter,
            _ => true,
        })
        .map(|k| format!("{k} help"));
    let reserve = help.as_ref().map_or(0, |h| h.chars().count() + 3);
    let mut used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    for action in hinted(app) {
        if action == Action::Help {
            continue;
        }
        let Some(key) = app.keys.hint(screen, action) else {
            continue;
        };
        let label = match (screen, action) {
            (KeyScreen::Questions, Action::NextField) => "next",
            (KeyScreen::Questions, Action::Back) => "cancel",
            (KeyScreen::Review, Action::Home) => "top",
            (KeyScreen::Review, Action::End) => "end",
            (KeyScreen::Inputs, Action::Back) => "later",
            (KeyScreen::Picker, Action::Back) => "clear the search",
            (KeyScreen::Command, Action::Back) if matches!(&app.screen, Screen::Form(f) if f.command.as_ref().is_some_and(|c| matches!(c.stage, crate::app::CommandStage::Running(_)))) => {
                "stop it"
            }
            (KeyScreen::Inputs, Action::NextField) => "next",
            (KeyScreen::Inputs, Action::Submit) => "start servers",
            (KeyScreen::Files, Action::Pick) => "take",
            (KeyScreen::Command, Action::Submit) => match &app.screen {
                Screen::Form(f) => match f.command.as_ref().map(|c| &c.stage) {
                    Some(crate::app::CommandStage::Confirm { .. }) => "use it",
                    Some(crate::app::CommandStage::Failed { .. }) => "edit",
                    _ => "run",
                },
                _ => "run",
            },
            (KeyScreen::Form, Action::Back) if matches!(&app.screen, Screen::Form(f) if f.fetching.is_some()) => {
                "cancel"
            }
            // What accepting does in this run: `--print` prints, `--output` writes the file.
            (KeyScreen::Review, Action::Accept) if app.options.print => "print",
            (KeyScreen::Review, Action::Accept) if app.options.output.is_some() => "write file",
            _ => short_label(action),
        };
        let separator = if spans.is_empty() { 0 } else { 3 };
        let width = separator + key.chars().count() + 1 + label.chars().count();
        if used + width + reserve > area.width as usize {
            break;
        }
        if separator > 0 {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        // A click on the hint (its key and label) does what the key does.
        let hint_width = (width - separator) as u16;
        let x = area.x.saturating_add((used + separator) as u16);
        hits.push(
            Rect::new(x, area.y, hint_width.min(area.right().saturating_sub(x)), 1),
            ClickTarget::Hint(action),
        );
        spans.push(Span::styled(key, theme.key()));
        spans.push(Span::raw(format!(" {label}")));
        used += width;
    }
    if let Some(help) = help {
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", theme.dim()));
            used += 3;
        }
        let x = area.x.saturating_add(used as u16);
        let width = (help.chars().count() as u16).min(area.right().saturating_sub(x));
        hits.push(
            Rect::new(x, area.y, width, 1),
            ClickTarget::Hint(Action::Help),
        );
        spans.push(Span::styled(help, theme.key()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn short_label(action: Action) -> &'static str {
    match action {
        Action::Pick => "open",
        Action::Down => "move",
        Action::Logs => "logs",
        Action::Help => "help",
        Action::Quit => "quit",
        Action::NextOrSubmit => "next/submit",
        Action::NextField => "next/accept",
        Action::Submit => "submit",
        Action::Newline => "new line",
        Action::ExternalEditor => "$EDITOR",
        Action::Back => "back",
        Action::Decline => "decline",
        Action::Accept => "accept",
        Action::Edit => "edit",
        Action::ToggleRole => "role",
        Action::Delete => "delete",
        Action::Add => "add",
        Action::Restore => "restore",
        Action::Copy => "copy",
        Action::Save => "save",
        Action::CycleFormat => "format",
        Action::Preview => "preview",
        Action::NextServer => "server",
        Action::Filter => "filter",
        Action::Up => "scroll",
        Action::ScrollDown => "page",
        Action::Home => "oldest",
        Action::End => "newest",
        Action::FromFile => "file",
        Action::FromCommand => "command",
        Action::LivePreview => "live preview",
        other => other.describe(),
    }
}

/// The one editing language of every input, for the help (`line.rs` implements it).
const EDITING: &str = "Every input edits alike: ←/→ Ctrl-B/Ctrl-F a char · Alt-B/Alt-F a word · Home/End Ctrl-A/Ctrl-E the line · Backspace Ctrl-H, Del delete · Ctrl-W Alt-Backspace a word back · Alt-D a word on · Ctrl-U to the start · Ctrl-K to the end · Ctrl-Y yanks what those took.";

fn draw_help(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let screen = app.key_screen();
    let title = match screen {
        KeyScreen::Picker => "Keys: prompt menu",
        KeyScreen::Form => "Keys: argument form",
        KeyScreen::Questions => "Keys: the server's questions",
        KeyScreen::Review => "Keys: review",
        KeyScreen::Editor => "Keys: editing",
        KeyScreen::Logs => "Keys: logs",
        KeyScreen::Inputs => "Keys: inputs",
        KeyScreen::Files => "Keys: file picker",
        KeyScreen::Command => "Keys: command for a value",
    };
    let mut lines: Vec<Line> = Vec::new();
    for (action, keys) in app.keys.bindings(screen) {
        if keys.is_empty() {
            continue;
        }
        let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
        lines.push(Line::from(vec![
            Span::styled(format!("{:<18}", keys.join(", ")), theme.key()),
            Span::raw(action.describe()),
        ]));
    }
    let width = area.width.min(84);
    let notes: &[&str] = match screen {
        KeyScreen::Picker => &[
            "Type to filter: fuzzy over the name first, then the title, then description and argument words.",
            "Search syntax, as fzf's: 'exact for an exact run, ^prefix, suffix$, !not to leave out; words separated by spaces must all match.",
            "/server:prompt narrows to one server.",
            EDITING,
            "? opens this help while the search line is empty.",
        ],
        KeyScreen::Form => &[
            "Tab takes the highlighted suggestion (the first if none is) when the list is shown, else goes to the next field.",
            "The first Ctrl-N highlights the first suggestion; Enter takes a highlighted one.",
            "A value from last time is replaced by what you type; arrows keep it.",
            "Ctrl-O puts a file's contents in the field, Ctrl-R a shell command's output (shown first); the field says where it came from until you edit it.",
            "F2 turns the live preview on or off for this server (this run): the filled prompt beside or below the form, asked 300 ms after the last key; PgUp/PgDn scroll it. On by default for the bundled library and `mcpick serve`, else `live_preview = true` in the config.",
            EDITING,
        ],
        KeyScreen::Files => &[
            "Type to search the files below this folder (.gitignore respected); a path starting with ~/, /, ./ or ../ is offered as typed.",
            "Binary files and files over 1 MiB are refused.",
            EDITING,
        ],
        KeyScreen::Command => &[
            "The command runs with sh -c in this folder, stdin closed, for at most 10 s; its output is shown before it is used, a failure shows its status and stderr.",
            EDITING,
        ],
        KeyScreen::Questions => &["Space or ←/→ choose for yes/no and choice fields.", EDITING],
        KeyScreen::Editor => &[EDITING],
        _ => &[],
    };
    let note_width = usize::from(width.saturating_sub(2)).max(10);
    let wrapped = |lines: &mut Vec<Line>, text: &str| {
        for row in crate::text::wrap(text, note_width) {
            lines.push(Line::styled(row, theme.dim()));
        }
    };
    if !notes.is_empty() {
        lines.push(Line::raw(""));
        for note in notes {
            wrapped(&mut lines, note);
        }
    }
    lines.push(Line::raw(""));
    wrapped(
        &mut lines,
        "↑/↓ and PgUp/PgDn scroll; any other key closes this help. Keys can be changed in the config's [keys] tables.",
    );
    let wanted = lines.len() as u16 + 2;
    let height = wanted.min(area.height);
    let hidden = wanted - height;
    let scroll = match app.overlay {
        Some(Overlay::Help { scroll }) => scroll,
        _ => 0,
    }
    .min(hidden);
    let title = if hidden > 0 {
        // Which lines show, and which way more are (none below once the last shows).
        let shown = height.saturating_sub(2);
        let more = match (scroll > 0, scroll < hidden) {
            (true, true) => ", ↑↓ more",
            (false, true) => ", ↓ more",
            (true, false) => ", ↑ more",
            (false, false) => "",
        };
        format!(
            "{title} (lines {}–{} of {}{more})",
            scroll + 1,
            scroll + shown,
            lines.len()
        )
    } else {
        title.to_string()
    };
    let popup = centered(area, width, height);
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).scroll((scroll, 0)).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(theme.accent())
                .title(Span::styled(format!(" {title} "), theme.accent())),
        ),
        popup,
    );
}

/// The spans that fit in `columns`, the last one cut.
fn cut_spans(spans: Vec<Span<'_>>, columns: usize) -> Vec<Span<'_>> {
    let mut kept = Vec::new();
    let mut used = 0;
    for span in spans {
        let width = crate::text::width(&span.content);
        if used + width <= columns {
            used += width;
            kept.push(span);
            continue;
        }
        let cut = crate::text::truncate(&span.content, columns - used).to_string();
        if !cut.is_empty() {
            kept.push(Span::styled(cut, span.style));
        }
        break;
    }
    kept
}
