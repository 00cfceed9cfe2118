//! The argument form, its suggestions, and the fetch in progress.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use ratatui_textarea::{CursorMove, TextArea};

use super::{Theme, one_line, titled_block};
use crate::app::{App, ClickTarget, Field, FormState, Hits, ServerState, busy_mark};

/// Lines a value box shows at most before it scrolls.
const MAX_VALUE_LINES: usize = 6;
/// Suggestions shown at least, when there are as many (the list grows with the room).
const MIN_SHOWN_SUGGESTIONS: u16 = 5;
/// Rows of the form's area below which its header and footer shrink to a line each.
const COMPACT_BELOW: u16 = 12;

pub(super) fn draw(
    app: &App,
    form: &FormState,
    frame: &mut Frame,
    main: Rect,
    theme: &Theme,
    hits: &mut Hits,
) {
    let areas = crate::app::areas::form_areas(form, main);
    if !areas.preview.is_empty() {
        draw_preview(app, form, frame, areas.preview, theme);
    }
    let area = areas.form;
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
        draw_fields(form, frame, fields, theme, app.overlay.is_none(), hits);
    }
    draw_footer(app, form, frame, footer, theme);
}

pub(super) fn draw_header(form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let prompt = &form.prompt;
    let mut title = vec![
        Span::styled(one_line(prompt.display_name()), theme.accent()),
        Span::styled(format!("  /{}", one_line(&form.slash_name)), theme.dim()),
    ];
    if prompt.skill.is_some() {
        title.push(Span::styled(
            format!("  {}", super::picker::SKILL_BADGE),
            theme.dim(),
        ));
    }
    let mut lines = vec![Line::from(title)];
    if let Some(d) = &prompt.description {
        lines.push(Line::raw(one_line(d)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), area);
}

/// Rows of a field without its suggestions: the label and the value's box.
fn field_height(form: &FormState, index: usize) -> u16 {
    let value_lines = form.fields[index]
        .editor
        .lines()
        .len()
        .clamp(1, MAX_VALUE_LINES);
    (1 + value_lines + 2) as u16
}

/// Rows the suggestion list may take under the focused field in `area`, which it never
/// covers: the room left by the fields from the first to the focused one, if that shows a
/// few; else the room left by the focused field alone (the fields above scroll away), and at
/// least a few. The list's own line of facts and the "more fields" rows are kept free.
fn suggestion_rows(form: &FormState, area: Rect) -> u16 {
    if !form.suggestions.visible() {
        return 0;
    }
    let count = form.suggestions.values.len() as u16;
    // The focused field, the line of facts, and "↓ more fields" when fields follow.
    let below_note = u16::from(form.focus + 1 < form.fields.len());
    let taken = field_height(form, form.focus) + 1 + below_note;
    let above: u16 = (0..form.focus).map(|i| field_height(form, i)).sum();
    let room_keeping_above = area.height.saturating_sub(taken + above);
    // Scrolled, the fields above leave a "↑ more fields" row.
    let room = area
        .height
        .saturating_sub(taken + u16::from(form.focus > 0));
    if room_keeping_above >= count.min(MIN_SHOWN_SUGGESTIONS) {
        count.min(room_keeping_above)
    } else {
        count.min(room.max(MIN_SHOWN_SUGGESTIONS))
    }
}

/// The fields drawn in `area`: from the first one shown, each with its rows (the focused
/// one with its suggestions), and how many are hidden above and below.
struct Window {
    /// The first field shown, which is also how many are hidden above.
    first: usize,
    /// The rows of each field shown, from `first`.
    heights: Vec<u16>,
    /// Fields below the last one shown.
    below: usize,
}

/// Which fields `area` shows: the focused one always, the ones before it while they fit.
fn window(form: &FormState, area: Rect) -> Window {
    let count = form.fields.len();
    let list = suggestion_rows(form, area);
    let height = |i: usize| {
        field_height(form, i)
            + if i == form.focus && form.suggestions.visible() {
                list + 1
            } else {
                0
            }
    };
    let rows_from = |first: usize, last: usize| -> u16 { (first..=last).map(height).sum() };
    // The first field such that from it to the focused one fits, with a row for each
    // "more fields" note needed.
    let mut first = 0;
    while first < form.focus {
        let above_row = u16::from(first > 0);
        let below_row = u16::from(rows_from(first, count - 1) + above_row > area.height);
        if rows_from(first, form.focus) + above_row + below_row <= area.height {
            break;
        }
        first += 1;
    }
    let mut room = area.height.saturating_sub(u16::from(first > 0));
    let mut heights = Vec::new();
    for index in first..count {
        let rows = height(index);
        let last = index + 1 == count;
        // Room for this one, and for the note on the ones after it if it is not the last.
        let needed = rows + u16::from(!last && rows_from(index, count - 1) > room);
        // The focused field is shown even when it does not fit whole.
        if needed > room && index != form.focus {
            break;
        }
        heights.push(rows.min(room));
        room = room.saturating_sub(rows);
    }
    let below = count - first - heights.len();
    Window {
        first,
        heights,
        below,
    }
}

fn draw_fields(
    form: &FormState,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    show_cursor: bool,
    hits: &mut Hits,
) {
    let shown = window(form, area);
    let more = |count: usize, arrow: &str| {
        Paragraph::new(Line::styled(
            format!(
                "{arrow} {count} more {}",
                crate::text::plural(count, "field", "fields")
            ),
            theme.dim(),
        ))
    };
    let mut y = area.y;
    if shown.first > 0 {
        frame.render_widget(
            more(shown.first, "↑"),
            Rect {
                height: 1,
                y,
                ..area
            },
        );
        y += 1;
    }
    let list = suggestion_rows(form, area);
    for (offset, height) in shown.heights.iter().enumerate() {
        let rect = Rect {
            x: area.x,
            y,
            width: area.width,
            height: (*height).min(area.bottom().saturating_sub(y)),
        };
        hits.push(rect, ClickTarget::Field(shown.first + offset));
        draw_field(
            form,
            shown.first + offset,
            list,
            frame,
            rect,
            theme,
            show_cursor,
            hits,
        );
        y += height;
    }
    if shown.below > 0 && y < area.bottom() {
        frame.render_widget(
            more(shown.below, "↓"),
            Rect {
                height: 1,
                y,
                ..area
            },
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_field(
    form: &FormState,
    index: usize,
    list_rows: u16,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    show_cursor: bool,
    hits: &mut Hits,
) {
    let field = &form.fields[index];
    let focused = index == form.focus;
    let arg = &field.arg;
    let (mut label, described_at) = field_label(field, focused, theme);
    let origin = value_origin(field, focused, theme);
    let value_lines = field.editor.lines().len().clamp(1, MAX_VALUE_LINES) as u16;
    let [label_area, box_area, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(value_lines + 2),
        Constraint::Fill(1),
    ])
    .areas(area);
    if let Some(d) = &arg.description {
        let used: usize = label.iter().map(|s| crate::text::width(&s.content)).sum();
        let room = usize::from(label_area.width).saturating_sub(used + 2);
        let d = one_line(d);
        // Too long, it is cut at a word and marked, never clipped unmarked by the edge.
        let d = if crate::text::width(&d) <= room {
            d
        } else {
            crate::text::cut_at_word(&d, room)
        };
        if room > 0 {
            label.insert(described_at, Span::styled(format!("  {d}"), theme.dim()));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(label)), label_area);
    let block = if field.missing {
        titled_block("", true, theme).border_style(theme.error())
    } else {
        titled_block("", focused, theme)
    };
    // The columns the source mark takes on the bottom border (the marks of hidden lines
    // keep clear of it).
    let origin_width = origin
        .as_ref()
        .filter(|_| field.source.is_some())
        .map_or(0, |span| span.width() as u16);
    let block = match origin {
        Some(origin) => block.title_bottom(Line::from(origin).right_aligned()),
        None => block,
    };
    let inner = block.inner(box_area);
    frame.render_widget(block, box_area);
    // The rows of the value hidden above and below the box.
    let (above, below) = if focused && show_cursor {
        let editor = draw_editor(&field.editor, frame, inner);
        // Drawing scrolled the text area to its cursor: what it shows is known now.
        let top = editor.scroll_offset().0 as usize;
        let rows = screen_rows(&editor);
        (top, rows.saturating_sub(top + inner.height as usize))
    } else {
        let lines = field.editor.lines();
        let text: Vec<Line> = lines
            .iter()
            .take(MAX_VALUE_LINES)
            .map(|l| {
                // As the focused editor draws it: a tab is spaces to the next stop, not nothing.
                let shown = crate::text::as_drawn(&crate::text::sanitize(l)).into_owned();
                Line::raw(crate::text::expand_tabs(&shown))
            })
            .collect();
        frame.render_widget(Paragraph::new(text), inner);
        (0, lines.len().saturating_sub(MAX_VALUE_LINES))
    };
    mark_hidden_lines(frame, box_area, (above, below), origin_width, theme);
    if focused && form.suggestions.visible() {
        draw_suggestions(form, list_rows, frame, rest, theme, hits);
    }
}

/// A field's label line: its name (and title), required star, the marks of a missing or
/// remembered value; and where its description goes in it.
fn field_label(
    field: &crate::app::Field,
    focused: bool,
    theme: &Theme,
) -> (Vec<Span<'static>>, usize) {
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
    // The description goes after the name, and takes the room the other marks leave.
    let described_at = label.len();
    if field.missing {
        label.push(Span::styled("  required", theme.error()));
    }
    if field.prefilled && focused {
        label.push(Span::styled(
            "  (last value: typing replaces it)",
            theme.busy(),
        ));
    }
    (label, described_at)
}

/// Where a field's value came from, for the box's lower border: a file or command it was
/// read from, or what the last value was taken from.
fn value_origin(field: &Field, focused: bool, theme: &Theme) -> Option<Span<'static>> {
    // Where the value came from goes on the box's lower border: the label line is cut on
    // a narrow screen, the border keeps it in sight.
    if let Some(mark) = &field.source {
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
    }
}

/// Marks on a value box's borders how many of its lines are hidden above and below it,
/// clear of the origin's `origin_width` columns on the bottom's right.
fn mark_hidden_lines(
    frame: &mut Frame,
    box_area: Rect,
    hidden: (usize, usize),
    origin_width: u16,
    theme: &Theme,
) {
    // Marked on the box's borders, left, clear of the origin on the bottom's right.
    let room = box_area.width.saturating_sub(4);
    let (above, below) = hidden;
    for (hidden, arrow, y) in [
        (above, '↑', box_area.y),
        (below, '↓', box_area.bottom().saturating_sub(1)),
    ] {
        if hidden == 0 {
            continue;
        }
        let noun = crate::text::plural(hidden, "line", "lines");
        let mark = format!(" {arrow} {hidden} more {noun} ");
        let room = if arrow == '↓' {
            room.saturating_sub(origin_width + 1)
        } else {
            room
        };
        let width = (crate::text::width(&mark) as u16).min(room);
        if width > 0 {
            frame.render_widget(
                Paragraph::new(Span::styled(mark, theme.dim())),
                Rect::new(box_area.x + 2, y, width, 1),
            );
        }
    }
}

/// How many rows `editor` lays its text out in at the width it was last drawn with: the
/// first row at which `screen_to_data` stops moving (it clamps past the last row).
fn screen_rows(editor: &TextArea<'_>) -> usize {
    let (mut fit, mut over) = (0usize, 1usize);
    // Double until a row past the end, then halve the gap.
    while editor.screen_to_data(over, 0) != editor.screen_to_data(over - 1, 0) {
        fit = over;
        over *= 2;
    }
    while over - fit > 1 {
        let middle = (fit + over) / 2;
        if editor.screen_to_data(middle, 0) != editor.screen_to_data(middle - 1, 0) {
            fit = middle;
        } else {
            over = middle;
        }
    }
    fit + 1
}

/// Draws `editor` into `area` as the user sees the text ([`drawn_editor`]) and returns the
/// text area drawn, whose scroll offset is then known.
pub(super) fn draw_editor<'e>(
    editor: &'e TextArea<'_>,
    frame: &mut Frame,
    area: Rect,
) -> std::borrow::Cow<'e, TextArea<'e>> {
    let drawn = match drawn_editor(editor) {
        Some(drawn) => std::borrow::Cow::Owned(drawn),
        None => std::borrow::Cow::Borrowed(editor),
    };
    frame.render_widget(drawn.as_ref(), area);
    keep_marks_under_cursor(drawn.as_ref(), frame.buffer_mut(), area);
    drawn
}

/// Puts back the combining marks of the cluster under the cursor. The text area draws its
/// cursor as one styled char, so an `e` and its U+0301 land in two spans and the mark,
/// alone in its span and zero columns wide, is dropped: `é` shows as `e` while the cursor is
/// on it. The marks join the cursor's cell, as they join their letter everywhere else.
fn keep_marks_under_cursor(editor: &TextArea<'_>, buf: &mut ratatui::buffer::Buffer, area: Rect) {
    use unicode_segmentation::UnicodeSegmentation;
    use unicode_width::UnicodeWidthStr;
    let ratatui_textarea::DataCursor(row, col) = editor.cursor();
    let Some(line) = editor.lines().get(row) else {
        return;
    };
    let Some((byte, _)) = line.char_indices().nth(col) else {
        return;
    };
    let Some(cluster) = line[byte..].graphemes(true).next() else {
        return;
    };
    let mut chars = cluster.chars();
    let Some(first) = chars.next() else {
        return;
    };
    // What the span after the cursor starts with, as ratatui will segment it: its leading
    // zero-width clusters are the ones that vanish.
    let rest = chars.as_str();
    let lost: String = rest
        .graphemes(true)
        .take_while(|g| g.width() == 0)
        .collect();
    if lost.is_empty() {
        return;
    }
    let cursor = editor.screen_cursor();
    let (top, left) = editor.scroll_offset();
    let (Some(dy), Some(dx)) = (
        cursor.row.checked_sub(top as usize),
        cursor.col.checked_sub(left as usize),
    ) else {
        return;
    };
    let (Ok(dy), Ok(dx)) = (u16::try_from(dy), u16::try_from(dx)) else {
        return;
    };
    if dy >= area.height || dx >= area.width {
        return;
    }
    let cell = &mut buf[(area.x + dx, area.y + dy)];
    // Only where the cursor's letter was drawn (a tab drawn as spaces is left alone).
    if cell.symbol() == first.encode_utf8(&mut [0; 4]) {
        let whole = format!("{first}{lost}");
        cell.set_symbol(&whole);
    }
}

/// A copy of `editor` holding its text as drawn ([`crate::text::as_drawn`], control
/// characters as their pictures, `␛`, as the unfocused field and the review show them), the
/// cursor on the same cluster, when that differs from the text; the value keeps what was
/// typed or pasted, bytes and all.
fn drawn_editor(editor: &TextArea<'_>) -> Option<TextArea<'static>> {
    let lines = editor.lines();
    let shown =
        |line: &str| -> String { crate::text::as_drawn(&crate::text::sanitize(line)).into_owned() };
    // One pass over the text: a long message is not read twice per frame.
    let as_drawn: Vec<std::borrow::Cow<'_, str>> = lines
        .iter()
        .map(|l| {
            if crate::text::control_count(l) > 0 || crate::text::hidden_count(l) > 0 {
                std::borrow::Cow::Owned(shown(l))
            } else {
                crate::text::as_drawn(l)
            }
        })
        .collect();
    if as_drawn
        .iter()
        .all(|l| matches!(l, std::borrow::Cow::Borrowed(_)))
    {
        return None;
    }
    let ratatui_textarea::DataCursor(row, col) = editor.cursor();
    let mut drawn = TextArea::new(as_drawn.into_iter().map(|l| l.into_owned()).collect());
    drawn.set_cursor_line_style(editor.cursor_line_style());
    drawn.set_wrap_mode(editor.wrap_mode());
    // The cursor's column counts the chars drawn for the text before it (the cursor sits
    // between clusters, so a flag before it is drawn whole).
    let before: String = lines[row].chars().take(col).collect();
    let col = shown(&before).chars().count();
    drawn.move_cursor(CursorMove::Jump(
        u16::try_from(row).unwrap_or(u16::MAX),
        u16::try_from(col).unwrap_or(u16::MAX),
    ));
    Some(drawn)
}

fn draw_suggestions(
    form: &FormState,
    rows: u16,
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    hits: &mut Hits,
) {
    let s = &form.suggestions;
    let count = s.values.len();
    let shown = (rows as usize).min(count);
    // Keep the highlighted one in the window.
    let start = s.highlighted.map_or(0, |h| (h + 1).saturating_sub(shown));
    let mut lines = Vec::new();
    for (row, (i, value)) in s
        .values
        .iter()
        .enumerate()
        .skip(start)
        .take(shown)
        .enumerate()
    {
        let y = area.y.saturating_add(row as u16);
        if y < area.bottom() {
            hits.push(
                Rect::new(area.x, y, area.width, 1),
                ClickTarget::Suggestion(i),
            );
        }
        let selected = s.highlighted == Some(i);
        let style = if selected {
            theme.selected()
        } else {
            ratatui::style::Style::default()
        };
        let mut spans = vec![
            Span::styled(if selected { "  ▸ " } else { "    " }, style),
            Span::styled(one_line(value), style),
        ];
        if s.remembered.get(i).copied().unwrap_or(false) {
            spans.push(Span::styled("  (used before)", theme.dim()));
        }
        lines.push(Line::from(spans));
    }
    let server_count = s.remembered.iter().filter(|r| !**r).count();
    let mut meta = match s.highlighted {
        Some(h) => format!("    {} of {count}", h + 1),
        None => format!(
            "    {count} {}",
            crate::text::plural(count, "suggestion", "suggestions")
        ),
    };
    let after = count - start - shown;
    if start > 0 {
        meta.push_str(&format!(" · ↑ {start} more"));
    }
    if after > 0 {
        meta.push_str(&format!(" · ↓ {after} more"));
    }
    match (s.total, s.has_more) {
        (Some(total), _) if total as usize > server_count => meta.push_str(&format!(
            " · the server has {total} in all, type more to narrow"
        )),
        (_, true) => meta.push_str(" · more exist, type more to narrow"),
        _ => {}
    }
    meta.push_str(if s.highlighted.is_some() {
        " · Enter/Tab take · Ctrl-N/P choose · Esc hide"
    } else {
        " · Tab/→ take the first · Ctrl-N/P choose · Esc hide"
    });
    lines.push(Line::styled(meta, theme.dim()));
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_footer(app: &App, form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    let starting = app
        .servers
        .iter()
        .any(|s| s.name == form.prompt.server && !matches!(s.state, ServerState::Ready { .. }));
    let waited = super::waited(app, form.fetching);
    let line = if form.awaiting_server {
        Line::styled(
            format!(
                "{} Waiting for {} to start, then asking it for the messages…{waited} Esc cancels.",
                busy_mark(app),
                one_line(&form.prompt.server)
            ),
            theme.busy(),
        )
    } else if form.fetching.is_some() {
        Line::styled(
            format!(
                "{} Asking {} for the messages…{waited} Esc cancels.",
                busy_mark(app),
                one_line(&form.prompt.server)
            ),
            theme.busy(),
        )
    } else if let Some(error) = &form.error {
        Line::styled(one_line(error), theme.error())
    } else if form.restored_unsent {
        Line::styled(
            "Your unsent values from last time · Ctrl-U clears a field · Enter on the last \
             field (or Ctrl-S) fetches the prompt",
            theme.busy(),
        )
    } else if starting {
        // A prompt from the catalog: it can be filled now and is sent once the server is up.
        Line::styled(
            format!(
                "{} is still starting: fill the form; {} sends it once it is up.",
                one_line(&form.prompt.server),
                if form.fields.is_empty() {
                    "Enter"
                } else {
                    "Enter on the last field (or Ctrl-S)"
                }
            ),
            theme.busy(),
        )
    } else {
        Line::styled(
            if form.prompt.skill.is_some() {
                "Enter reads and verifies the skill's SKILL.md, then sends the task after it \
                 (empty: no task)"
            } else if form.fields.is_empty() {
                "Enter fetches the prompt."
            } else {
                "* required · Enter on the last field (or Ctrl-S) fetches the prompt"
            },
            theme.dim(),
        )
    };
    frame.render_widget(Paragraph::new(line).wrap(Wrap { trim: true }), area);
}

/// The live preview: the messages `prompts/get` returned for the values typed so far, as
/// the review draws them, under a header saying how fresh they are.
fn draw_preview(app: &App, form: &FormState, frame: &mut Frame, area: Rect, theme: &Theme) {
    use crate::app::PreviewOutcome;
    let preview = &form.preview;
    let server = one_line(&form.prompt.server);
    let missing = form.missing_for_preview();
    let starting = app
        .servers
        .iter()
        .find(|s| s.name == form.prompt.server)
        .map(|s| &s.state)
        .filter(|state| !matches!(state, ServerState::Ready { .. }));
    let current = preview
        .answer
        .as_ref()
        .is_some_and(|a| a.arguments == form.arguments());
    let mut title = vec![Span::styled(" Preview", theme.accent())];
    let status = if preview.in_flight.is_some() {
        Span::styled(
            format!(" · {} asking {server}… ", busy_mark(app)),
            theme.busy(),
        )
    } else if !missing.is_empty() {
        Span::raw(" ")
    } else if matches!(starting, Some(ServerState::Connecting)) {
        Span::styled(format!(" · waiting for {server} to start… "), theme.busy())
    } else if starting.is_some() && preview.waits_for_server {
        Span::styled(format!(" · {server} is not running "), theme.dim())
    } else if preview.due.is_some() || (preview.answer.is_some() && !current) {
        Span::styled(" · updating… ", theme.busy())
    } else if let Some(answer) = &preview.answer {
        let ms = app.now_ms.saturating_sub(answer.at_ms);
        // Tenths while it is fresh (the clock redraws it every second).
        let age = if ms < 10_000 {
            format!("updated {:.1} s ago", ms as f64 / 1000.0)
        } else {
            format!("updated {} ago", crate::app::short_duration(ms))
        };
        match answer.outcome {
            PreviewOutcome::Error(_) => Span::styled(format!(" · refused, {age} "), theme.dim()),
            _ => Span::styled(format!(" · {age} "), theme.dim()),
        }
    } else {
        Span::raw(" ")
    };
    title.push(status);
    let block = super::titled_block(Line::from(title), false, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width).max(1);
    let mut lines: Vec<Line> = Vec::new();
    if preview.opted_in {
        for row in crate::text::wrap(
            &format!("live preview on ({server}'s prompts/get may cost or have effects)"),
            width,
        ) {
            lines.push(Line::styled(row, theme.busy()));
        }
    }
    let note = |text: String, lines: &mut Vec<Line>| {
        for row in crate::text::wrap(&text, width) {
            lines.push(Line::styled(row, theme.dim()));
        }
    };
    let mut body = Vec::new();
    if !missing.is_empty() {
        let names: Vec<String> = missing
            .iter()
            .map(|m| format!("`{}`", one_line(m)))
            .collect();
        note(
            format!("fill {} to see the preview", names.join(", ")),
            &mut lines,
        );
    } else {
        match preview.answer.as_ref().map(|a| &a.outcome) {
            Some(PreviewOutcome::Messages(messages)) => {
                let style = crate::render::RowStyle {
                    rendered: true,
                    color: app.options.color,
                };
                let answer = preview.answer.as_ref();
                for (index, message) in messages.messages.iter().enumerate() {
                    body.push(PreviewRows::One(Line::from(vec![
                        Span::styled(format!("#{} ", index + 1), theme.dim()),
                        Span::styled(
                            one_line(message.role.as_str()),
                            theme.role(message.role == crate::model::Role::Assistant),
                        ),
                        Span::styled(
                            format!(" · {}", one_line(message.content.kind())),
                            theme.dim(),
                        ),
                    ])));
                    if let Some(answer) = answer {
                        body.push(PreviewRows::Body(answer.rows(
                            index,
                            &message.content,
                            width,
                            style,
                        )));
                    }
                    body.push(PreviewRows::One(Line::raw("")));
                }
                if messages.messages.is_empty() {
                    note(format!("{server} returned no messages"), &mut lines);
                }
            }
            Some(PreviewOutcome::InputRequired) => note(
                format!(
                    "{server} will ask questions when you submit (input_required): nothing to preview before"
                ),
                &mut lines,
            ),
            Some(PreviewOutcome::Error(error)) => note(one_line(error), &mut lines),
            None if preview.in_flight.is_none() && preview.due.is_none() && starting.is_none() => {
                note("nothing asked yet".into(), &mut lines)
            }
            None => {}
        }
    }
    let room = usize::from(inner.height).saturating_sub(lines.len());
    let total: usize = body.iter().map(PreviewRows::len).sum();
    if total > 0 && room > 0 {
        // Scrolled no further than a full last page.
        let top = preview.scroll.min(total.saturating_sub(room));
        let fits = total - top <= room;
        let shown = if fits { total - top } else { room - 1 };
        // Only the rows shown are copied (a long message's layout is kept, not redone).
        lines.extend(
            body.iter()
                .flat_map(PreviewRows::iter)
                .skip(top)
                .take(shown)
                .map(|row| theme.ink(row.clone())),
        );
        if !fits {
            let more = total - top - shown;
            lines.push(Line::styled(
                format!(
                    "… {more} more {} · PgDn",
                    crate::text::plural(more, "line", "lines")
                ),
                theme.dim(),
            ));
        } else if top > 0 {
            // (The top is hidden: PgUp brings it back.)
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The preview's rows: a line drawn here, or a message body's kept layout.
enum PreviewRows {
    One(Line<'static>),
    Body(crate::render::rows::Rows),
}

impl PreviewRows {
    fn len(&self) -> usize {
        match self {
            PreviewRows::One(_) => 1,
            PreviewRows::Body(rows) => rows.len(),
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, Line<'static>> {
        match self {
            PreviewRows::One(line) => std::slice::from_ref(line).iter(),
            PreviewRows::Body(rows) => rows.iter(),
        }
    }
}
