//! What every screen's drawing shares: boxes, titles, the cursor's column, a wait's seconds.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders};

use super::Theme;
use crate::app::App;
use crate::text::one_line;

/// ` 4 s.` after a wait's text once it has lasted a second (the fetch started at
/// [`App::now_ms`] `since`), so a slow server is seen to be slow; else nothing.
pub(crate) fn waited(app: &App, fetching: Option<(u64, u64)>) -> String {
    match fetching {
        Some((_, since)) if app.now_ms >= since + 1000 => {
            format!(" {} s.", (app.now_ms - since) / 1000)
        }
        _ => String::new(),
    }
}

/// The columns a one-line input's text takes before its cursor, as drawn: where the
/// terminal's cursor goes after the line's prompt.
pub(crate) fn cursor_column(line: &crate::app::line::LineEditor) -> u16 {
    let before: String = line.text().chars().take(line.cursor()).collect();
    crate::text::width(&one_line(&before)) as u16
}

/// A `width`×`height` box in the middle of `area` (which must hold it).
pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    }
}

/// A bordered block with a title, accented when focused.
pub(crate) fn titled_block<'a>(
    title: impl Into<Line<'a>>,
    focused: bool,
    theme: &Theme,
) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { theme.accent() } else { theme.dim() })
        .title(title)
}
