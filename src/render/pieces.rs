//! The pieces every renderer builds rows from: styled text cut to a width, source text made
//! safe to draw, and how much fenced code a layout may highlight at once.

use ratatui::style::Style;
use ratatui::text::Span;

/// How much fenced code a layout highlights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeBudget {
    /// The message's whole budget ([`super::highlight::MESSAGE_BUDGET_BYTES`]): what a task
    /// lays out, and tests.
    Whole,
    /// What the loop affords at once ([`super::highlight::AT_ONCE_BYTES`]): blocks past it are
    /// drawn plain for now, in the rows the whole layout draws them highlighted.
    AtOnce,
}

/// A piece of text with its style, the unit rows are built from.
pub(crate) type Piece = (String, Style);

/// `pieces` (one line, no line break; already neutralised) cut into rows at most
/// `columns` wide as [`crate::text::wrap`] cuts text, each piece keeping its style.
pub(crate) fn wrap_pieces(pieces: Vec<Piece>, columns: usize) -> Vec<Vec<Span<'static>>> {
    // Most rows are printable ASCII that fits: one column a byte, nothing to cut.
    let length: usize = pieces.iter().map(|(text, _)| text.len()).sum();
    if length <= columns.max(1) && pieces.iter().all(|(text, _)| is_plain_ascii(text)) {
        return vec![
            pieces
                .into_iter()
                .map(|(text, style)| Span::styled(text, style))
                .collect(),
        ];
    }
    let flat: String = pieces.iter().map(|(text, _)| text.as_str()).collect();
    if flat.is_empty() {
        return vec![Vec::new()];
    }
    let rows = crate::text::wrap(&flat, columns);
    let mut out = Vec::with_capacity(rows.len());
    // Walk the pieces alongside the rows: `at` is the byte offset in the current piece.
    let mut piece = 0;
    let mut at = 0;
    for row in rows {
        let mut left = row.len();
        let mut spans = Vec::new();
        while left > 0 && piece < pieces.len() {
            let (text, style) = &pieces[piece];
            let take = (text.len() - at).min(left);
            if take > 0 {
                spans.push(Span::styled(text[at..at + take].to_string(), *style));
            }
            at += take;
            left -= take;
            if at == text.len() {
                piece += 1;
                at = 0;
            }
        }
        out.push(spans);
    }
    out
}

/// Whether `text` is printable ASCII only (no control character, no tab): drawn as it is,
/// one column a byte.
pub(crate) fn is_plain_ascii(text: &str) -> bool {
    text.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// Source text as a row draws it: [`crate::text::display_line`], without its work for the
/// printable ASCII most text is.
pub(crate) fn shown(text: &str) -> String {
    if is_plain_ascii(text) {
        text.to_string()
    } else {
        crate::text::display_line(text)
    }
}
