//! Content drawn as what it is: Markdown rendered with highlighted code, JSON highlighted.
//! Pure: text in, styled rows out (the review, the form's live preview and the export
//! preview draw these rows as they are).

use ratatui::text::Line;

use crate::mcp::Content;

/// How a message body is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowStyle {
    /// Text blocks rendered as Markdown (`false`: the raw text, as the editor holds it).
    pub rendered: bool,
    /// Colours allowed (`false` under `NO_COLOR`: bold, italic, underline and dim only).
    pub color: bool,
}

/// The rows of a message body at `width` columns, as drawn: every row's text
/// neutralised (no control character of the source reaches the screen).
pub fn message_rows(content: &Content, width: usize, style: RowStyle) -> Vec<Line<'static>> {
    // Raw for now; Markdown comes with the renderer.
    let _ = style;
    crate::app::review::body_rows(content, width)
        .map(Line::from)
        .collect()
}
