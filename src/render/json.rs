//! JSON exports (`mcp-json`, `openai`, `anthropic`) as the preview draws them: keys,
//! strings, numbers and literals coloured, punctuation dim, and long base64 strings folded
//! to `…(N bytes)…` (the preview only: the export itself stays byte for byte).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use super::{Piece, wrap_pieces};

/// The shortest run of base64 folded in the preview.
pub const FOLD_FROM_CHARS: usize = 128;

/// The export's rows at `width` columns: each line folded, neutralised, highlighted and
/// wrapped (folding first, so a 5 MB image costs one scan, not 5 MB of rows).
pub fn preview_rows(export: &str, width: usize) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    for line in export.lines() {
        let folded = fold_base64(line);
        let shown = super::shown(&folded);
        for row in wrap_pieces(highlight_line(&shown), width) {
            rows.push(Line::from(row));
        }
    }
    rows
}

fn key_style() -> Style {
    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
}
fn string_style() -> Style {
    Style::new().fg(Color::Green)
}
fn number_style() -> Style {
    Style::new().fg(Color::Indexed(170))
}
fn literal_style() -> Style {
    Style::new().fg(Color::Yellow)
}
fn punctuation_style() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

/// Whether `c` is in the base64 alphabets (standard and URL-safe, with padding).
fn is_base64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_')
}

/// `line` with every JSON string that is (or, in a `data:` URL, ends in) at least
/// [`FOLD_FROM_CHARS`] of base64 folded to `…(N bytes)…`, N the bytes it decodes to.
pub fn fold_base64(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() < FOLD_FROM_CHARS {
        return std::borrow::Cow::Borrowed(line);
    }
    let bytes = line.as_bytes();
    let mut out = String::new();
    // Up to where `line` is copied into `out`.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // A string: up to the next quote not escaped.
        let start = i + 1;
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        let end = end.min(bytes.len());
        let content = &line[start..end];
        let data_at = content
            .strip_prefix("data:")
            .and_then(|rest| rest.find(";base64,").map(|at| 5 + at + ";base64,".len()))
            .unwrap_or(0);
        let data = &content[data_at..];
        if data.len() >= FOLD_FROM_CHARS && data.bytes().all(is_base64) {
            out.push_str(&line[copied..start + data_at]);
            out.push_str(&format!(
                "…({})…",
                crate::text::counted(crate::export::decoded_len(data), "byte", "bytes")
            ));
            copied = end;
        }
        i = end + 1;
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(line);
    }
    out.push_str(&line[copied..]);
    std::borrow::Cow::Owned(out)
}

/// One line of (pretty-printed) JSON in styled pieces: a string followed by `:` is a key.
fn highlight_line(line: &str) -> Vec<Piece> {
    let bytes = line.as_bytes();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut push = |text: &str, style: Style| {
        if !text.is_empty() {
            pieces.push((text.to_string(), style));
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                let after = line[i..].trim_start();
                let style = if after.starts_with(':') {
                    key_style()
                } else {
                    string_style()
                };
                push(&line[start..i], style);
            }
            b'-' | b'0'..=b'9' => {
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                push(&line[start..i], number_style());
            }
            b'a'..=b'z' => {
                while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                    i += 1;
                }
                push(&line[start..i], literal_style());
            }
            b'{' | b'}' | b'[' | b']' | b',' | b':' => {
                i += 1;
                push(&line[start..i], punctuation_style());
            }
            _ => {
                // Spaces and anything else, up to the next token.
                i += 1;
                while i < bytes.len()
                    && !matches!(bytes[i], b'"' | b'-' | b'0'..=b'9' | b'a'..=b'z' | b'{' | b'}' | b'[' | b']' | b',' | b':')
                {
                    i += 1;
                }
                // Not at a char boundary inside a multibyte char: move to one.
                while i < bytes.len() && !line.is_char_boundary(i) {
                    i += 1;
                }
                push(&line[start..i], Style::new());
            }
        }
        // A string's escape may have stepped past the end or into a character.
        while i < bytes.len() && !line.is_char_boundary(i) {
            i += 1;
        }
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::line_text;

    #[test]
    fn long_base64_folds_to_its_decoded_size_and_short_strings_stay() {
        let data = "QUJD".repeat(64); // 256 symbols: 192 bytes
        let line = format!(r#"  "data": "{data}","#);
        assert_eq!(fold_base64(&line), r#"  "data": "…(192 bytes)…","#);
        let url = format!(r#"{{"url": "data:image/png;base64,{data}"}}"#);
        assert_eq!(
            fold_base64(&url),
            r#"{"url": "data:image/png;base64,…(192 bytes)…"}"#
        );
        // Under the threshold, or not base64, it stays.
        let short = format!(r#""data": "{}""#, "QUJD".repeat(31));
        assert_eq!(fold_base64(&short), short);
        let prose = format!(r#""text": "{}""#, "words and more words ".repeat(10));
        assert_eq!(fold_base64(&prose), prose);
        // An escaped quote does not end the string early.
        let escaped = format!(r#""a": "x\"y", "b": "{data}""#);
        assert_eq!(
            fold_base64(&escaped),
            r#""a": "x\"y", "b": "…(192 bytes)…""#
        );
    }

    #[test]
    fn keys_strings_numbers_and_literals_are_told_apart() {
        let rows = preview_rows(
            "{\n  \"role\": \"user\",\n  \"n\": -1.5e3,\n  \"ok\": true\n}",
            80,
        );
        let text: Vec<String> = rows.iter().map(line_text).collect();
        assert_eq!(
            text,
            [
                "{",
                "  \"role\": \"user\",",
                "  \"n\": -1.5e3,",
                "  \"ok\": true",
                "}"
            ]
        );
        let style = |row: usize, piece: &str| {
            rows[row]
                .spans
                .iter()
                .find(|s| s.content == piece)
                .unwrap_or_else(|| panic!("no {piece:?} in row {row}"))
                .style
        };
        assert_eq!(style(1, "\"role\""), key_style());
        assert_eq!(style(1, "\"user\""), string_style());
        assert_eq!(style(2, "-1.5e3"), number_style());
        assert_eq!(style(3, "true"), literal_style());
        assert_eq!(style(0, "{"), punctuation_style());
        assert_ne!(key_style(), string_style());
    }

    #[test]
    fn rows_are_neutralised_and_wrapped() {
        let rows = preview_rows("\"\u{1b}[2J\u{202e}é\", \"日本語日本語日本語\"", 8);
        for row in &rows {
            let text = line_text(row);
            assert!(!text.chars().any(char::is_control), "{text:?}");
            assert!(!text.contains('\u{202e}'));
            assert!(crate::text::width(&text) <= 8, "{text:?}");
        }
        assert!(line_text(&rows[0]).starts_with("\"␛[2J"));
    }
}
