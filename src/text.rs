//! Making untrusted text (from servers) safe to show on a terminal.

/// Replaces every character that could drive a terminal, reorder text or hide it with a
/// visible stand-in: C0 controls (but `\n` and `\t`) become control pictures (`␛`), DEL
/// becomes `␡`, C1 controls, bidi controls (marks, embeddings, overrides, isolates), the
/// characters that hide text (Unicode tags, U+2028, U+2029, the BOM) and invisible ones
/// that carry nothing visible where they stand (see [`is_hidden_at`]: zero-width spaces
/// and joiners, the soft hyphen, stray variation selectors) become `<U+XXXX>`. Everything
/// else is kept, a real emoji's joiners and selector too.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (c, marked) in Marked::new(text) {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{0}'..='\u{1f}' => {
                out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?'));
            }
            '\u{7f}' => out.push('␡'),
            // The C1 controls, the bidi controls, the hiding ones and the hidden ones.
            c if marked => {
                out.push_str(&format!("<U+{:04X}>", c as u32));
            }
            _ => out.push(c),
        }
    }
    out
}

/// The characters of a text, each with whether [`sanitize`] replaces it: a control, or an
/// invisible character hidden where it stands ([`is_hidden_at`]). A character right after
/// a replaced one is judged as standing after the stand-in's `>`, so that sanitized text
/// sanitizes to itself.
struct Marked<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    previous: Option<char>,
}

impl<'a> Marked<'a> {
    fn new(text: &'a str) -> Marked<'a> {
        Marked {
            chars: text.chars().peekable(),
            previous: None,
        }
    }
}

impl Iterator for Marked<'_> {
    type Item = (char, bool);

    fn next(&mut self) -> Option<(char, bool)> {
        let c = self.chars.next()?;
        let marked = is_control(c) || is_hidden_at(self.previous, c, self.chars.peek().copied());
        self.previous = Some(if marked { '>' } else { c });
        Some((c, marked))
    }
}

/// Whether `c`, between `previous` and `next`, is an invisible character that carries
/// nothing visible there, so it can only hide something (data for a model, or two names
/// that look alike): a zero-width space, word joiner, soft hyphen or filler always; a
/// zero-width joiner or non-joiner unless it joins two visible non-ASCII characters (an
/// emoji sequence such as 👩‍💻, or Persian and Indic words); U+FE0E/U+FE0F unless right
/// after an emoji (or in a keycap, `1️⃣`); other variation selectors unless right after the
/// character they select a form of (a CJK ideograph for U+E0100–E01EF). A second selector
/// in a row selects nothing.
pub fn is_hidden_at(previous: Option<char>, c: char, next: Option<char>) -> bool {
    if !is_invisible(c) {
        return false;
    }
    let visible_non_ascii = |c: Option<char>| {
        c.is_some_and(|c| !c.is_ascii() && !c.is_whitespace() && !is_invisible(c) && !is_control(c))
    };
    match c {
        '\u{200c}' | '\u{200d}' => {
            let joined_emoji = previous == Some('\u{fe0f}') && next.is_some_and(is_pictographic);
            !(joined_emoji || (visible_non_ascii(previous) && visible_non_ascii(next)))
        }
        '\u{fe0e}' | '\u{fe0f}' => {
            let keycap = previous.is_some_and(|p| p.is_ascii_digit() || p == '#' || p == '*')
                && next == Some('\u{20e3}');
            !(previous.is_some_and(is_pictographic) || keycap)
        }
        '\u{fe00}'..='\u{fe0d}' => {
            !visible_non_ascii(previous) || previous.is_some_and(is_pictographic)
        }
        '\u{e0100}'..='\u{e01ef}' => !previous.is_some_and(is_ideograph),
        _ => true,
    }
}

/// Whether `c` is drawn as an emoji (or can be, with U+FE0F): Unicode's pictographs, the
/// arrows, symbols and dingbats, the skin tones, ©, ®, ™ and the like.
fn is_pictographic(c: char) -> bool {
    matches!(
        c,
        '\u{a9}'
            | '\u{ae}'
            | '\u{203c}'
            | '\u{2049}'
            | '\u{2122}'
            | '\u{2139}'
            | '\u{2194}'..='\u{21aa}'
            | '\u{231a}'..='\u{23ff}'
            | '\u{24c2}'
            | '\u{25aa}'..='\u{27bf}'
            | '\u{2934}'
            | '\u{2935}'
            | '\u{2b05}'..='\u{2b55}'
            | '\u{3030}'
            | '\u{303d}'
            | '\u{3297}'
            | '\u{3299}'
            | '\u{1f000}'..='\u{1faff}'
    )
}

/// Whether `c` is a CJK ideograph (whose forms the ideographic variation selectors pick).
fn is_ideograph(c: char) -> bool {
    matches!(
        c,
        '\u{3400}'..='\u{4dbf}'
            | '\u{4e00}'..='\u{9fff}'
            | '\u{f900}'..='\u{faff}'
            | '\u{20000}'..='\u{3ffff}'
    )
}

/// The invisible characters of `text` that carry nothing visible where they stand
/// ([`is_hidden_at`]), counted.
pub fn hidden_count(text: &str) -> usize {
    Marked::new(text)
        .filter(|&(c, marked)| marked && !is_control(c))
        .count()
}

/// Server text on one line: controls made visible, line breaks and tabs as spaces, and
/// drawn as [`as_drawn`] says.
pub fn one_line(text: &str) -> String {
    as_drawn(&sanitize(text)).replace(['\n', '\t'], " ")
}

/// Text on one line with nothing hidden: [`sanitize`]'s stand-ins, and line breaks and
/// tabs as their pictures (`␊`, `␉`), for names and paths that must read exactly.
pub fn visible_on_one_line(text: &str) -> String {
    sanitize(text).replace('\n', "␊").replace('\t', "␉")
}

/// Server text inside a line of mcpick's own (an error on stderr): quoted, on one line,
/// its controls and line breaks shown as pictures ([`visible_on_one_line`]), so a server
/// cannot end mcpick's line and print one that reads as mcpick's (`mcpick: signed in…`).
pub fn quoted_server_text(text: &str) -> String {
    format!("\"{}\"", visible_on_one_line(text.trim()))
}

/// Whether `c` is left out when text is drawn (see [`as_drawn`]).
pub fn is_undrawn(c: char) -> bool {
    // ZWJ, the emoji variation selector, and the five skin-tone modifiers.
    matches!(c, '\u{200d}' | '\u{fe0f}' | '\u{1f3fb}'..='\u{1f3ff}')
}

/// Whether `c` is a regional indicator (`🇦`…`🇿`), half of a flag.
pub fn is_regional_indicator(c: char) -> bool {
    matches!(c, '\u{1f1e6}'..='\u{1f1ff}')
}

/// The ASCII capital letter a regional indicator stands for (`🇯` is `J`).
fn regional_letter(c: char) -> char {
    char::from_u32('A' as u32 + (c as u32 - 0x1f1e6)).unwrap_or('?')
}

/// `text` as it is drawn in cells: without the characters that make terminals disagree on a
/// cluster's width, and with flags written as their letters. Terminals differ on ZWJ
/// sequences (`👩‍👩‍👧` is 2 cells in tmux 3.3 and kitty, 6 in VTE and Alacritty), on U+FE0F
/// (`❤️` is 1 cell in tmux, 2 in kitty) and on skin-tone modifiers (`👍🏽` is 4 cells in tmux,
/// 2 in kitty), and ratatui puts each cluster in the cells `unicode-width` gives it, so a
/// disagreement leaves ghost glyphs or moves the border. Without them, each part is its own
/// cluster (`👩👩👧`, `❤`, `👍`), as wide everywhere as [`width`] says.
///
/// Flags are worse: tmux 3.3a draws `🇯🇵` as two one-cell glyphs where ratatui sees one
/// two-cell cluster, so when a narrow character later replaces the cluster ratatui's diff
/// leaves the second cell alone (it trusts the terminal to have cleared the wide glyph's
/// other half) and a stray `🇵` stays there, on later screens too. A lone regional indicator
/// is one cell in tmux and two in others. So every pair is drawn as its two letters in
/// brackets (`🇯🇵` as `[JP]`) and a lone one as `[J]`: plain ASCII every terminal agrees on.
/// The value itself keeps them.
pub fn as_drawn(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| is_undrawn(c) || is_regional_indicator(c))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    // A regional indicator waiting for its pair (Unicode pairs them from a run's start).
    let mut pending: Option<char> = None;
    for c in text.chars() {
        if is_regional_indicator(c) {
            match pending.take() {
                Some(first) => {
                    out.extend(['[', regional_letter(first), regional_letter(c), ']']);
                }
                None => pending = Some(c),
            }
            continue;
        }
        if let Some(lone) = pending.take() {
            out.extend(['[', regional_letter(lone), ']']);
        }
        if !is_undrawn(c) {
            out.push(c);
        }
    }
    if let Some(lone) = pending {
        out.extend(['[', regional_letter(lone), ']']);
    }
    std::borrow::Cow::Owned(out)
}

/// The columns between tab stops when a tab is drawn. Four, as the message editor
/// (ratatui-textarea's default tab length) draws them, so a message looks the same whether
/// it is reviewed or edited.
pub const TAB_STOP: usize = 4;

/// `line` with each tab replaced by the spaces up to the next tab stop ([`TAB_STOP`]),
/// counted in display columns as [`width`] counts them. Terminals and ratatui give a tab no
/// width, so indentation by tabs would vanish; only drawing uses this, what is sent keeps
/// its tabs. `line` holds no line break.
pub fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 8);
    for (n, part) in line.split('\t').enumerate() {
        if n > 0 {
            let column = width(&out);
            let spaces = TAB_STOP - column % TAB_STOP;
            out.extend(std::iter::repeat_n(' ', spaces));
        }
        out.push_str(part);
    }
    out
}

/// One line of server text as it is drawn in a pane: controls made visible ([`sanitize`]),
/// joiners and emoji modifiers left out ([`as_drawn`]), tabs expanded to their stops
/// ([`expand_tabs`]), line breaks as spaces.
pub fn display_line(line: &str) -> String {
    expand_tabs(&as_drawn(&sanitize(line)).replace('\n', " "))
}

/// The characters of `text` that [`sanitize`] replaces (escape sequences, other controls,
/// bidi controls), counted.
pub fn control_count(text: &str) -> usize {
    text.chars().filter(|&c| is_control(c)).count()
}

/// Whether [`sanitize`] replaces `c`.
/// Whether `c` has no place in a name: a line break, a tab, or anything [`sanitize`]
/// replaces (a control, a bidi control, a hiding character).
pub fn is_unfit_for_a_name(c: char) -> bool {
    c.is_control() || is_control(c) || is_invisible(c)
}

/// Characters drawn as nothing that a name could hold unseen, so that two names look alike:
/// zero-width spaces and joiners, word joiners and invisible operators, the soft hyphen,
/// variation selectors, and the Mongolian vowel separator and Hangul fillers.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200d}'
            | '\u{2060}'..='\u{2064}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{ffa0}'
            | '\u{e0100}'..='\u{e01ef}'
    )
}

fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}' | '\u{80}'..='\u{9f}')
        || is_bidi_control(c)
        || is_hiding(c)
}

/// Characters a terminal draws as nothing (or as a break it does not show), so that text
/// can be hidden in them from the reader while a model reads it: the Unicode tag
/// characters (U+E0000–U+E007F, "ASCII smuggling"), the line and paragraph separators
/// (U+2028, U+2029) and the byte order mark (U+FEFF).
fn is_hiding(c: char) -> bool {
    matches!(
        c,
        '\u{e0000}'..='\u{e007f}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
    )
}

fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// The inverse of [`sanitize`]: control pictures and `<U+XXXX>` of the characters it
/// replaces become those characters again. The editor shows text as the review does
/// (sanitised) and gives back the real bytes with this; it is used only where
/// `unsanitize(sanitize(text)) == text` (see [`sanitize_reversibly`]).
pub fn unsanitize(shown: &str) -> String {
    let mut out = String::with_capacity(shown.len());
    let mut rest = shown;
    while let Some(c) = rest.chars().next() {
        let code = c as u32;
        if (0x2400..0x2420).contains(&code) && !matches!(code - 0x2400, 0x0a | 0x09) {
            out.push(char::from_u32(code - 0x2400).unwrap_or(c));
        } else if c == '␡' {
            out.push('\u{7f}');
        } else if let Some(digits) = rest.strip_prefix("<U+").and_then(|r| r.find('>'))
            && (4..=5).contains(&digits)
            && let Ok(value) = u32::from_str_radix(&rest[3..3 + digits], 16)
            && let Some(control) = char::from_u32(value)
            && format!("<U+{value:04X}>") == rest[..4 + digits]
            && ((0x80..=0x9f).contains(&value)
                || is_bidi_control(control)
                || is_hiding(control)
                || is_invisible(control))
        {
            out.push(control);
            rest = &rest[4 + digits..];
            continue;
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// [`sanitize`]d `text` when that can be undone exactly ([`unsanitize`] gives `text`
/// back), else `None`: text that already holds a control picture (`␛`) or a `<U+202E>`
/// written out, where the two could not be told apart.
pub fn sanitize_reversibly(text: &str) -> Option<String> {
    let shown = sanitize(text);
    (unsanitize(&shown) == text).then_some(shown)
}

/// `text` without escape sequences, other control characters and hidden ones: a CSI
/// (`ESC [ … final`) or an OSC (`ESC ] … BEL` or `ESC \\`) goes whole, so no `[31m` is left
/// behind; other controls and the invisible characters that carry nothing visible
/// ([`sanitize`]'s) go one by one. Line breaks and tabs stay.
pub fn strip_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut previous = None;
    while let Some(c) = chars.next() {
        // As `Marked` judges: after a character that goes, as after a stand-in.
        let hidden = is_hidden_at(previous, c, chars.peek().copied());
        previous = Some(if hidden || is_control(c) { '>' } else { c });
        match c {
            _ if hidden => {}
            '\u{1b}' => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']') | Some('P') | Some('_') | Some('^') => {
                    // OSC, DCS, APC, PM: up to BEL or ST (ESC \).
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || c == '\u{9c}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
                // A two-character sequence (ESC 7, ESC c…): both go.
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            c if is_control(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// Skips a CSI's parameters and its final byte (`@` to `~`).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            break;
        }
    }
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

/// The longest start of `text` that fits in `columns` terminal columns, as [`width`]
/// counts them: one character more would not fit.
pub fn truncate(text: &str, columns: usize) -> &str {
    &text[..fitting_len(text, columns)]
}

/// The byte length of the start of `text` that [`truncate`] keeps. [`width`] is not a sum
/// over characters (an emoji with U+FE0F is two columns, `لا` one), so starts are measured
/// whole: the first 1, 2, 4… characters until one does not fit, then a binary search.
fn fitting_len(text: &str, columns: usize) -> usize {
    // Printable ASCII, most text: one column a byte (looked at up to the first character
    // that would not fit, so a long line wrapped row by row is not read again each row).
    let printable = |b: &u8| (0x20..0x7f).contains(b);
    let fits = text.len().min(columns);
    if text.as_bytes()[..fits].iter().all(printable)
        && text.as_bytes().get(fits).is_none_or(printable)
    {
        return fits;
    }
    let mut ends = text.char_indices().map(|(at, c)| at + c.len_utf8());
    // The end of the first `i + 1` characters, for each `i` looked at so far.
    let mut taken: Vec<usize> = Vec::new();
    let mut fit = 0;
    let mut step = 1;
    let over = loop {
        let before = taken.len();
        taken.extend(ends.by_ref().take(step));
        let Some(&end) = taken.last() else {
            return 0;
        };
        if width(&text[..end]) > columns {
            break taken.len();
        }
        if taken.len() - before < step {
            return end;
        }
        fit = taken.len();
        step *= 2;
    };
    // The first `fit` characters fit, the first `over` do not.
    let (mut fit, mut over) = (fit, over);
    while over - fit > 1 {
        let middle = (fit + over) / 2;
        if width(&text[..taken[middle - 1]]) <= columns {
            fit = middle;
        } else {
            over = middle;
        }
    }
    fit.checked_sub(1).map_or(0, |last| taken[last])
}

/// Cuts `line` into rows at most `columns` wide (by display width, as [`width`] counts it,
/// so wide characters count double), breaking after a space when one is near, else
/// anywhere; a character wider than a row gets a row of its own. An empty line is one
/// empty row.
pub fn wrap(line: &str, columns: usize) -> Vec<String> {
    let columns = columns.max(1);
    let mut rows = Vec::new();
    let mut rest = line;
    loop {
        let fit = fitting_len(rest, columns);
        let end = match rest[..fit].rfind(' ') {
            _ if fit == rest.len() => fit,
            // After the last space, if that leaves the row at least half full.
            Some(space) if width(&rest[..=space]) * 2 >= columns => space + 1,
            _ if fit > 0 => fit,
            _ => rest.chars().next().map_or(rest.len(), char::len_utf8),
        };
        rows.push(rest[..end].to_string());
        rest = &rest[end..];
        if rest.is_empty() {
            return rows;
        }
    }
}

/// [`sanitize`] only when `for_terminal`; files and pipes get the text as the server sent it.
pub fn for_output(text: &str, for_terminal: bool) -> std::borrow::Cow<'_, str> {
    if for_terminal {
        std::borrow::Cow::Owned(sanitize(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `text` followed by spaces up to `width` characters, as `format!("{text:<width$}")` pads,
/// but for any width: `format!` panics past 65,535, which a server's prompt name can reach.
pub fn pad_right(text: &str, width: usize) -> String {
    let mut padded = text.to_string();
    let count = text.chars().count();
    padded.extend(std::iter::repeat_n(' ', width.saturating_sub(count)));
    padded
}

/// `text` cut to `columns` terminal columns, ending in `…` when it was cut.
pub fn cut_columns(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return text.to_string();
    }
    format!("{}…", truncate(text, columns.saturating_sub(1)))
}

/// `text` cut to its first `max` characters, with `…` when cut: the bound on server text
/// quoted in a message or a log line.
pub fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// `text` cut to `columns` at a word's end, with `…` when cut (a word cut in half reads as
/// another word); a first word too long for the room is cut where it must be.
pub fn cut_at_word(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return text.to_string();
    }
    let room = columns.saturating_sub(1);
    let kept = truncate(text, room);
    let at_word = match kept.rfind(' ') {
        // The next character was a space: the whole last word fits.
        _ if text[kept.len()..].starts_with(' ') => kept,
        Some(space) if space > 0 => kept[..space].trim_end(),
        _ => kept,
    };
    format!("{at_word}…")
}

/// The noun that fits `count`: `line` for 1, `lines` otherwise.
pub fn plural<'a>(count: usize, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 { one } else { many }
}

/// `count` and the noun that fits it: `1 byte`, `2 bytes`, `0 lines`.
pub fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", plural(count, one, many))
}

/// `A` or `An` before `word`, as a sentence starts: `An image`, `A text`.
pub fn a_or_an(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "An",
        _ => "A",
    }
}

/// A byte count in MiB, as people read sizes: `32 MiB`, `38.1 MiB`.
pub fn mebibytes(bytes: usize) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib.fract() == 0.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{mib:.1} MiB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_any_width_without_panicking() {
        assert_eq!(super::pad_right("ab", 4), "ab  ");
        assert_eq!(super::pad_right("abc", 2), "abc");
        assert_eq!(super::pad_right("é", 2), "é ");
        let long = "x".repeat(70_000);
        assert_eq!(super::pad_right(&long, 70_001).len(), 70_001);
    }

    #[test]
    fn notices_are_cut_at_a_word_with_a_mark() {
        assert_eq!(
            cut_at_word("Copied to a tmux buffer", 40),
            "Copied to a tmux buffer"
        );
        assert_eq!(cut_at_word("Copied to a tmux buffer", 15), "Copied to a…");
        assert_eq!(cut_at_word("Copied to a tmux buffer", 12), "Copied to a…");
        assert_eq!(cut_at_word("Copied to a tmux buffer", 11), "Copied to…");
        assert_eq!(cut_at_word("Supercalifragilistic", 6), "Super…");
        for columns in 1..30 {
            assert!(
                width(&cut_at_word(
                    "Copied to a tmux buffer (prefix ] pastes it)",
                    columns
                )) <= columns
            );
        }
    }

    #[test]
    fn counts_and_articles_read_as_english() {
        assert_eq!(plural(1, "line", "lines"), "line");
        assert_eq!(plural(0, "line", "lines"), "lines");
        assert_eq!(plural(7, "line", "lines"), "lines");
        assert_eq!(a_or_an("image"), "An");
        assert_eq!(a_or_an("audio"), "An");
        assert_eq!(a_or_an("text"), "A");
        assert_eq!(a_or_an("resource_link"), "A");
        assert_eq!(counted(1, "byte", "bytes"), "1 byte");
        assert_eq!(counted(0, "byte", "bytes"), "0 bytes");
    }

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

    /// Found by fuzzing: `truncate` and `wrap` summed the widths of single characters,
    /// which is not what `width` (and the terminal) counts for a control character, an
    /// emoji with U+FE0F, an emoji ZWJ sequence or a lam-alef ligature.
    #[test]
    fn truncate_and_wrap_measure_like_width() {
        assert_eq!(truncate("\u{1b}x", 0), "");
        assert_eq!(truncate("\u{1b}x", 1), "\u{1b}");
        assert_eq!(truncate("❤\u{fe0f}ok", 1), "❤");
        assert_eq!(truncate("❤\u{fe0f}ok", 2), "❤\u{fe0f}");
        assert_eq!(truncate("لا", 1), "لا");
        assert_eq!(truncate("👩\u{200d}👩!", 2), "👩\u{200d}👩");
        assert_eq!(wrap("❤\u{fe0f}❤\u{fe0f}", 2), ["❤\u{fe0f}", "❤\u{fe0f}"]);
        assert_eq!(wrap("a\rb", 2), ["a\r", "b"]);
        // A character wider than the row is a row of its own, and no empty row follows.
        assert_eq!(wrap("字", 1), ["字"]);
        assert_eq!(wrap("a字", 1), ["a", "字"]);
    }

    #[test]
    fn clusters_terminals_measure_differently_are_drawn_as_their_parts() {
        let family = "👩\u{200d}👩\u{200d}👧";
        assert_eq!(as_drawn(family), "👩👩👧");
        assert_eq!(width(&as_drawn(family)), 6);
        assert_eq!(as_drawn("❤\u{fe0f} 👍🏽 🏳\u{fe0f}\u{200d}🌈"), "❤ 👍 🏳🌈");
        // Clusters every terminal measures alike stay as they are.
        assert_eq!(as_drawn("e\u{301} 字"), "e\u{301} 字");
        // Flags and lone regional indicators are drawn as their letters.
        assert_eq!(as_drawn("fl🇫🇷x 🇯🇵🇺"), "fl[FR]x [JP][U]");
        assert_eq!(as_drawn("🇵"), "[P]");
        assert!(matches!(as_drawn("plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(one_line(&format!("a\n{family}")), "a 👩👩👧");
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
    fn characters_that_hide_text_become_code_points_and_come_back() {
        // "Ignore" written in tag characters is invisible on a terminal, yet a model reads it.
        let smuggled: String = "Hi\u{e0001}"
            .chars()
            .chain(
                "Ignore"
                    .chars()
                    .map(|c| char::from_u32(0xe0000 + c as u32).unwrap()),
            )
            .chain(['\u{e007f}', '\u{2028}', '\u{2029}', '\u{feff}'])
            .collect();
        let shown = sanitize(&smuggled);
        assert_eq!(
            shown,
            "Hi<U+E0001><U+E0049><U+E0067><U+E006E><U+E006F><U+E0072><U+E0065><U+E007F><U+2028><U+2029><U+FEFF>"
        );
        assert_eq!(control_count(&smuggled), 11);
        assert_eq!(unsanitize(&shown), smuggled);
        assert_eq!(
            sanitize_reversibly(&smuggled).as_deref(),
            Some(shown.as_str())
        );
        // Written out, such a name is not one: it stays text.
        assert_eq!(
            unsanitize("<U+E0041 <U+0E0041> <U+41>"),
            "<U+E0041 <U+0E0041> <U+41>"
        );
    }

    #[test]
    fn invisible_characters_that_carry_nothing_are_marked_and_emoji_keep_theirs() {
        // Each hides in plain text: zero-width space, non-joiner and joiner between ASCII
        // letters, word joiner, a BOM inside text, the soft hyphen, variation selectors after
        // a letter, a second one after an emoji, and an ideographic one after a letter.
        let hiding = "a\u{200b}b\u{200c}c\u{200d}d\u{2060}e\u{feff}f\u{ad}g\u{fe01}h\u{fe0f}😀\u{fe0f}\u{fe0f}x\u{e0100}";
        assert_eq!(
            sanitize(hiding),
            "a<U+200B>b<U+200C>c<U+200D>d<U+2060>e<U+FEFF>f<U+00AD>g<U+FE01>h<U+FE0F>😀\u{fe0f}<U+FE0F>x<U+E0100>"
        );
        // The BOM is counted with the controls, as before.
        assert_eq!((hidden_count(hiding), control_count(hiding)), (9, 1));
        assert_eq!(unsanitize(&sanitize(hiding)), hiding);
        assert_eq!(strip_controls(hiding), "abcdefgh😀\u{fe0f}x");
        // What they do in real text stays: a flag, a family and a coder (ZWJ sequences), a
        // heart with its emoji selector, a keycap, Persian with its non-joiner, Devanagari
        // with its joiner, and an ideograph with its variation selector.
        for text in [
            "🇯🇵 👨\u{200d}👩\u{200d}👧 👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈",
            "❤\u{fe0f} 1\u{fe0f}\u{20e3}",
            "می\u{200c}خواهم",
            "क\u{94d}\u{200d}ष",
            "葛\u{e0100}",
        ] {
            assert_eq!(sanitize(text), text, "{text:?}");
            assert_eq!(hidden_count(text), 0, "{text:?}");
            assert_eq!(strip_controls(text), text, "{text:?}");
        }
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

    #[test]
    fn tabs_expand_to_the_next_stop_by_display_width() {
        assert_eq!(expand_tabs("\tif x:"), "    if x:");
        assert_eq!(expand_tabs("\t\treturn"), "        return");
        assert_eq!(expand_tabs("ab\tc"), "ab  c");
        assert_eq!(expand_tabs("abcd\te"), "abcd    e");
        // A wide character takes two columns before the stop.
        assert_eq!(expand_tabs("字\tx"), "字  x");
        assert_eq!(display_line("\t\u{1b}[1m"), "    ␛[1m");
        assert_eq!(display_line("a\nb"), "a b");
    }

    #[test]
    fn sanitized_text_comes_back_exactly() {
        for text in [
            "plain",
            "\u{1b}[31mred\u{1b}[0m\r\n\ttab",
            "\u{9b}2J \u{202e}x \u{7f}",
        ] {
            let shown = sanitize_reversibly(text).unwrap();
            assert_eq!(unsanitize(&shown), text);
        }
        // A control picture written out could not be told from an escape: not reversible.
        assert_eq!(sanitize_reversibly("␛ and \u{1b}"), None);
        assert_eq!(sanitize_reversibly("<U+202E>"), None);
        assert_eq!(unsanitize("<U+0041>"), "<U+0041>");
    }

    #[test]
    fn stripping_removes_whole_escape_sequences() {
        assert_eq!(strip_controls("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(strip_controls("a\u{1b}]52;c;aGk=\u{7}b"), "ab");
        assert_eq!(strip_controls("a\u{1b}]0;t\u{1b}\\b"), "ab");
        assert_eq!(strip_controls("x\r\n\ty\u{202e}\u{7f}"), "x\n\ty");
        assert_eq!(control_count("\u{1b}[31mred\u{1b}[0m\n\t"), 2);
    }
}
