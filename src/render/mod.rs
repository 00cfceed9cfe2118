//! Content drawn as what it is: Markdown rendered with highlighted code, JSON highlighted.
//! Pure: text in, styled rows out (the review, the form's live preview and the export
//! preview draw these rows as they are).

pub mod body;
pub mod highlight;
pub mod json;
pub mod markdown;
mod pieces;
pub mod rows;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::model::{Content, EmbeddedResource, KnownContent};

pub use pieces::CodeBudget;
pub(crate) use pieces::{Piece, is_plain_ascii, shown, wrap_pieces};

/// How a message body is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowStyle {
    /// Text blocks rendered as Markdown (`false`: the raw text, as the editor holds it).
    pub rendered: bool,
    /// Colours allowed (`false` under `NO_COLOR`: bold, italic, underline and dim only).
    pub color: bool,
}

/// The longest text rendered as Markdown whole: a longer one is rendered up to the line
/// break before this many bytes, the rest drawn raw, so opening a 5 MB message stays
/// within the frame budget (rendering costs several times what wrapping does).
pub const RENDER_UP_TO_BYTES: usize = 256 * 1024;

/// The rows of a message body at `width` columns, as drawn: every row's text
/// neutralised (no control character of the source reaches the screen).
pub fn message_rows(content: &Content, width: usize, style: RowStyle) -> Vec<Line<'static>> {
    message_rows_with(content, width, style, CodeBudget::Whole).0
}

/// [`message_rows`] highlighting only what `budget` allows, and whether code was left
/// plain that the [`CodeBudget::Whole`] layout highlights (in the same rows).
pub fn message_rows_with(
    content: &Content,
    width: usize,
    style: RowStyle,
    budget: CodeBudget,
) -> (Vec<Line<'static>>, bool) {
    let mut code_left = false;
    let rows = match markdown_of(content) {
        Some((header, text)) if style.rendered => {
            let mut rows: Vec<Line<'static>> = header
                .into_iter()
                .flat_map(|h| crate::text::wrap(&h, width))
                .map(raw_line)
                .collect();
            let (rendered, left) = render_capped(text, width, budget);
            code_left = left;
            rows.extend(rendered);
            rows
        }
        _ => match content {
            // The raw text, the commonest long body: rows as the rest past the cap.
            Content::Known(KnownContent::Text { text, .. }) if !text.is_empty() => {
                let mut rows = Vec::new();
                push_raw_rows(&mut rows, text, width);
                rows
            }
            _ => body::body_rows(content, width).map(raw_line).collect(),
        },
    };
    let rows = if style.color {
        rows
    } else {
        rows.into_iter().map(without_colors).collect()
    };
    (rows, code_left)
}

/// `text` rendered as Markdown up to [`RENDER_UP_TO_BYTES`] (at a line break), the rest
/// raw behind a row saying so; and whether code was left plain for the whole layout.
fn render_capped(text: &str, width: usize, budget: CodeBudget) -> (Vec<Line<'static>>, bool) {
    if text.len() <= RENDER_UP_TO_BYTES {
        return markdown::render_with(text, width, budget);
    }
    let mut cut = RENDER_UP_TO_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').map_or(cut, |at| at + 1);
    let (mut rows, code_left) = markdown::render_with(&text[..cut], width, budget);
    let note = format!(
        "… rendered up to here ({}); the rest is drawn raw",
        crate::text::mebibytes(cut)
    );
    rows.extend(
        crate::text::wrap(&note, width)
            .into_iter()
            .map(|row| Line::styled(row, Style::new().add_modifier(Modifier::DIM))),
    );
    push_raw_rows(&mut rows, &text[cut..], width);
    (rows, code_left)
}

/// Pushes `text`'s lines drawn raw onto `rows`: each line as [`shown`] and wrapped at
/// `width` by [`crate::text::wrap`], one unstyled span a row. A printable ASCII line that
/// fits is its own row, copied once (most rows of a long message are).
fn push_raw_rows(rows: &mut Vec<Line<'static>>, text: &str, width: usize) {
    let columns = width.max(1);
    for line in text.lines() {
        if line.len() <= columns && is_plain_ascii(line) {
            rows.push(raw_line(line.to_string()));
        } else {
            rows.extend(
                crate::text::wrap(&shown(line), width)
                    .into_iter()
                    .map(raw_line),
            );
        }
    }
}

/// A row of unstyled text (neutralised, no line break in it): what `Line::from(row)`
/// makes, without its copy of the text and its search for line breaks.
fn raw_line(row: String) -> Line<'static> {
    if row.is_empty() {
        Line::default()
    } else {
        Line::from(vec![Span::raw(row)])
    }
}

/// Whether `content` is drawn differently rendered and raw (a text block, or a text
/// resource whose MIME type is Markdown).
pub fn renders(content: &Content) -> bool {
    markdown_of(content).is_some()
}

/// The Markdown a block holds, with the line drawn above it (a resource's description):
/// text blocks (not empty) and text resources of a Markdown MIME type.
fn markdown_of(content: &Content) -> Option<(Option<String>, &str)> {
    match content {
        Content::Known(KnownContent::Text { text, .. }) if !text.is_empty() => Some((None, text)),
        Content::Known(KnownContent::Resource {
            resource: EmbeddedResource::Text {
                text, mime_type, ..
            },
            ..
        }) if mime_type.as_deref().is_some_and(is_markdown_mime) => {
            let header = body::body_lines(content).next();
            Some((header, text))
        }
        _ => None,
    }
}

/// `text/markdown`, `text/x-markdown` (with parameters or not).
fn is_markdown_mime(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("text/markdown") || essence.eq_ignore_ascii_case("text/x-markdown")
}

/// `line` with `restyle` applied to its style and to each span's.
fn restyled(line: Line<'static>, restyle: impl Fn(Style) -> Style) -> Line<'static> {
    let style = restyle(line.style);
    let spans: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .map(|span| Span::styled(span.content, restyle(span.style)))
        .collect();
    Line::from(spans).style(style)
}

/// `line` without colours, for `NO_COLOR`: the modifiers stay, and a background colour
/// (inline code) becomes reverse video, so what it marked still shows.
pub fn without_colors(line: Line<'static>) -> Line<'static> {
    let plain = |style: Style| {
        let mut out = Style::new()
            .add_modifier(style.add_modifier)
            .remove_modifier(style.sub_modifier);
        if style.bg.is_some() {
            out = out.add_modifier(Modifier::REVERSED);
        }
        out
    };
    restyled(line, plain)
}

/// `line` in the terminal's own ink, for the high-contrast base: no colours and no dim
/// marks (the terminal's ink on its page reads best); bold, italic and underline stay, and
/// a background colour (inline code) becomes reverse video.
pub fn in_terminal_ink(line: Line<'static>) -> Line<'static> {
    let plain = |style: Style| {
        let mut out = Style::new()
            .add_modifier(style.add_modifier - Modifier::DIM)
            .remove_modifier(style.sub_modifier);
        if style.bg.is_some() {
            out = out.add_modifier(Modifier::REVERSED);
        }
        out
    };
    restyled(line, plain)
}

/// `line` in inks readable on a light background: the rows are laid out for a dark one
/// (the highlighter's theme, inline code yellow on black, JSON in the bright ANSI colours),
/// so each colour is swapped for a darker one of its hue, reaching a WCAG contrast of 4.5:1
/// on white, and inline code becomes dark red on light grey.
pub fn for_light_background(line: Line<'static>) -> Line<'static> {
    let ink = |style: Style| {
        let mut out = style;
        if style.bg == Some(Color::Black) {
            // Inline code: #af0000 on #e4e4e4 (5.9:1).
            return out.fg(Color::Indexed(124)).bg(Color::Indexed(254));
        }
        out.fg = style.fg.map(darker_for_light);
        out
    };
    restyled(line, ink)
}

/// `line` with every RGB colour (the highlighter's theme) at 4.5:1 or more on black: a
/// colour below it (its comments) is lightened, keeping its hue.
pub fn for_dark_background(line: Line<'static>) -> Line<'static> {
    let ink = |style: Style| {
        let mut out = style;
        if let Some(Color::Rgb(r, g, b)) = style.fg {
            let (mut r, mut g, mut b) = (f64::from(r), f64::from(g), f64::from(b));
            while (relative_luminance(r, g, b) + 0.05) / 0.05 < 4.6 {
                r += (255.0 - r) * 0.1;
                g += (255.0 - g) * 0.1;
                b += (255.0 - b) * 0.1;
            }
            out.fg = Some(Color::Rgb(r as u8, g as u8, b as u8));
        }
        out
    };
    restyled(line, ink)
}

/// A foreground colour of the dark inks, readable on white (see [`for_light_background`]).
fn darker_for_light(color: Color) -> Color {
    match color {
        // The xterm-256 colours of the same hue that reach 4.5:1 on white.
        Color::Yellow | Color::LightYellow => Color::Indexed(94),
        Color::Cyan | Color::LightCyan => Color::Indexed(24),
        Color::Green | Color::LightGreen => Color::Indexed(28),
        Color::Magenta | Color::LightMagenta => Color::Indexed(127),
        Color::Blue | Color::LightBlue => Color::Indexed(25),
        Color::Red | Color::LightRed => Color::Indexed(124),
        Color::Gray | Color::White | Color::DarkGray => Color::Indexed(240),
        Color::Indexed(75) => Color::Indexed(25),
        Color::Indexed(170) => Color::Indexed(127),
        Color::Indexed(index @ 16..=255) => {
            let (r, g, b) = indexed_rgb(index);
            match darker_for_light(Color::Rgb(r, g, b)) {
                Color::Rgb(dr, dg, db) if (dr, dg, db) == (r, g, b) => Color::Indexed(index),
                darker => darker,
            }
        }
        Color::Rgb(r, g, b) => {
            // The same hue, darkened until it reads on white.
            let (mut r, mut g, mut b) = (f64::from(r), f64::from(g), f64::from(b));
            while contrast_on_white(r, g, b) < 4.6 && (r + g + b) > 0.0 {
                r *= 0.9;
                g *= 0.9;
                b *= 0.9;
            }
            Color::Rgb(r as u8, g as u8, b as u8)
        }
        other => other,
    }
}

/// The sRGB of an xterm-256 colour past the 16 ANSI ones (the 6×6×6 cube, then the greys).
pub fn indexed_rgb(index: u8) -> (u8, u8, u8) {
    match index {
        16..=231 => {
            let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
            let n = index - 16;
            (level(n / 36), level((n / 6) % 6), level(n % 6))
        }
        232..=255 => {
            let grey = 8 + 10 * (index - 232);
            (grey, grey, grey)
        }
        _ => (128, 128, 128),
    }
}

/// The WCAG contrast ratio of the sRGB colour `r g b` (0–255) against white.
fn contrast_on_white(r: f64, g: f64, b: f64) -> f64 {
    (1.05) / (relative_luminance(r, g, b) + 0.05)
}

/// WCAG 2's relative luminance of an sRGB colour (0–255 channels).
pub fn relative_luminance(r: f64, g: f64, b: f64) -> f64 {
    let channel = |c: f64| {
        let c = c / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The text of a row, as drawn (for tests and searches).
pub fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_over_the_cap_is_rendered_up_to_it_and_drawn_raw_after() {
        let mut text = String::from("# Start\n\n");
        while text.len() <= RENDER_UP_TO_BYTES {
            text.push_str("**a line of prose that goes on**\n");
        }
        text.push_str("# End\n");
        let content = Content::text(text.as_str());
        let style = RowStyle {
            rendered: true,
            color: true,
        };
        let rows: Vec<String> = message_rows(&content, 80, style)
            .iter()
            .map(line_text)
            .collect();
        assert_eq!(rows[0], "Start", "the start is rendered");
        assert_eq!(rows[2], "a line of prose that goes on");
        assert!(rows.iter().any(|r| r.starts_with("… rendered up to here")));
        assert_eq!(rows.last().unwrap(), "# End", "the rest is raw");
    }
}
