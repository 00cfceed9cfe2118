//! Making untrusted text (from servers) safe to show on a terminal.

/// Replaces every character that could drive a terminal or reorder text with a visible
/// stand-in: C0 controls (but `\n` and `\t`) become control pictures (`␛`), DEL becomes `␡`,
/// C1 controls and bidi controls (marks, embeddings, overrides, isolates) become `<U+XXXX>`.
/// Everything else is kept.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{0}'..='\u{1f}' => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?'));
            }
            '\u{7f}' => out.push('␡'),
            '\u{80}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("<U+{:04X}>", c as u32));
            }
            _ => out.push(c),
        }
    }
    out
}

/// Server text on one line: controls made visible, line breaks and tabs as spaces.
pub fn one_line(text: &str) -> String {
    sanitize(text).replace(['\n', '\t'], " ")
}

/// `name` with every character but letters, digits, `-`, `_` and `.` replaced by `-`: a
/// name safe as a file name or a `[servers.NAME]` table.
pub fn name_chars(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The number of terminal columns `text` takes.
pub fn width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// The longest start of `text` that fits in `columns` terminal columns.
pub fn truncate(text: &str, columns: usize) -> &str {
    use unicode_width::UnicodeWidthChar;
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.width().unwrap_or(0);
        if used > columns {
            return &text[..at];
        }
    }
    text
}

/// Cuts `line` into rows at most `width` columns wide (by display width, so wide
/// characters count double), breaking after a space when one is near, else anywhere.
/// An empty line is one empty row.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthChar;
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut row_width = 0;
    // Where the row could break: byte index after the last space, and the width before it.
    let mut last_space: Option<(usize, usize)> = None;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if row_width + w > width && !row.is_empty() {
            match last_space.filter(|(_, before)| *before * 2 >= width) {
                Some((at, before)) => {
                    let rest = row.split_off(at);
                    rows.push(std::mem::take(&mut row));
                    row = rest;
                    row_width -= before;
                }
                None => {
                    rows.push(std::mem::take(&mut row));
                    row_width = 0;
                }
            }
            last_space = None;
        }
        row.push(c);
        row_width += w;
        if c == ' ' {
            last_space = Some((row.len(), row_width));
        }
    }
    rows.push(row);
    rows
}

/// [`sanitize`] only when `for_terminal`; files and pipes get the text as the server sent it.
pub fn for_output(text: &str, for_terminal: bool) -> std::borrow::Cow<'_, str> {
    if for_terminal {
        std::borrow::Cow::Owned(sanitize(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_counts_wide_characters() {
        assert_eq!(
            wrap("hello brave new world", 12),
            ["hello brave ", "new world"]
        );
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("日本語テキスト", 6), ["日本語", "テキス", "ト"]);
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(sanitize("\u{1b}[31mred\u{1b}[0m"), "␛[31mred␛[0m");
        assert_eq!(sanitize("\u{1b}]52;c;aGk=\u{7}"), "␛]52;c;aGk=␇");
        assert_eq!(sanitize("a\rb"), "a␍b");
    }

    #[test]
    fn c1_and_bidi_controls_become_code_points() {
        assert_eq!(sanitize("\u{9b}2J"), "<U+009B>2J");
        assert_eq!(sanitize("abc\u{202e}fed"), "abc<U+202E>fed");
    }

    #[test]
    fn every_bidi_control_becomes_a_code_point() {
        // Unicode's Bidi_Control characters: ALM, LRM, RLM, LRE…RLO, LRI…PDI.
        let controls = "\u{61c}\u{200e}\u{200f}\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2067}\u{2068}\u{2069}";
        assert_eq!(
            sanitize(controls),
            "<U+061C><U+200E><U+200F><U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069>"
        );
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let text = "line one\n\ttabbed — ünïcödé 字 🙂";
        assert_eq!(sanitize(text), text);
    }

    #[test]
    fn pipes_get_the_text_verbatim() {
        assert_eq!(for_output("\u{1b}x", false), "\u{1b}x");
        assert_eq!(for_output("\u{1b}x", true), "␛x");
    }
}
