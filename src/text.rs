//! Making untrusted text (from servers) safe to show on a terminal.

/// Replaces every character that could drive a terminal or reorder text with a visible
/// stand-in: C0 controls (but `\n` and `\t`) become control pictures (`␛`), DEL becomes `␡`,
/// C1 controls and bidi overrides become `<U+XXXX>`. Everything else is kept.
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
