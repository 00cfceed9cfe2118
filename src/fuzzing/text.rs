//! `crate::text`: the sanitizer and the width helpers.

use crate::text::{
    as_drawn, for_output, is_undrawn, name_chars, one_line, sanitize as clean, truncate, width,
    wrap,
};

/// The column counts every input is truncated and wrapped to.
const COLUMNS: [usize; 9] = [0, 1, 2, 3, 5, 8, 13, 40, 80];

/// Fuzz entry point: the input as text through every function of `crate::text`.
pub fn sanitize(data: &[u8]) {
    check_text(&super::text_of(data));
}

/// Whether a terminal would act on `c` or reorder text around it: C0 controls, DEL, C1
/// controls, the Unicode `Bidi_Control` characters (marks, embeddings, overrides,
/// isolates) and the characters that hide text from the reader.
fn drives_terminal(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        // Characters that hide text: tags, the line and paragraph separators, the BOM.
        | '\u{e0000}'..='\u{e007f}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{feff}')
}

/// What [`crate::text::sanitize`] documents for one character.
fn expected_for(c: char) -> String {
    match c {
        '\n' | '\t' => c.to_string(),
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32)
            .expect("control pictures exist")
            .to_string(),
        '\u{7f}' => "␡".to_string(),
        c if drives_terminal(c) => format!("<U+{:04X}>", c as u32),
        c => c.to_string(),
    }
}

/// Every promise of `crate::text` about `text`.
pub fn check_text(text: &str) {
    let clean_text = clean(text);
    if let Some(bad) = clean_text
        .chars()
        .find(|&c| drives_terminal(c) && c != '\n' && c != '\t')
    {
        panic!("sanitize kept {bad:?} of {text:?}: {clean_text:?}");
    }
    // An invisible character is replaced where it carries nothing (`is_hidden_at`, judged
    // after the stand-in of a replaced one, as `sanitize` documents).
    let mut previous = None;
    let mut rest = text.chars().peekable();
    let mut expected = String::new();
    while let Some(c) = rest.next() {
        let hidden =
            !drives_terminal(c) && crate::text::is_hidden_at(previous, c, rest.peek().copied());
        if hidden {
            expected.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            expected.push_str(&expected_for(c));
        }
        previous = Some(
            if hidden || (drives_terminal(c) && !matches!(c, '\n' | '\t')) {
                '>'
            } else {
                c
            },
        );
    }
    assert_eq!(clean_text, expected, "sanitize({text:?})");
    assert_eq!(clean(&clean_text), clean_text, "sanitize is not idempotent");
    assert_eq!(for_output(text, true), clean_text);
    assert_eq!(for_output(text, false), text);

    let line = one_line(text);
    assert!(
        !line.chars().any(drives_terminal),
        "one_line({text:?}) = {line:?} holds a control"
    );
    assert_eq!(line, as_drawn(&clean_text).replace(['\n', '\t'], " "));
    assert!(
        !line
            .chars()
            .any(|c| is_undrawn(c) || crate::text::is_regional_indicator(c)),
        "one_line({text:?}) = {line:?} holds a character terminals measure differently"
    );

    let name = name_chars(text);
    assert!(
        name.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.')),
        "name_chars({text:?}) = {name:?}"
    );
    assert_eq!(name.chars().count(), text.chars().count());
    assert_eq!(name_chars(&name), name, "name_chars is not idempotent");

    for columns in COLUMNS {
        check_truncate(text, columns);
        check_wrap(text, columns);
    }
}

/// [`crate::text::truncate`]: a start of `text`, at most `columns` wide, that stops only
/// where one more character would not fit.
pub fn check_truncate(text: &str, columns: usize) {
    let cut = truncate(text, columns);
    assert!(text.starts_with(cut), "truncate is not a start of the text");
    assert!(
        width(cut) <= columns,
        "truncate({text:?}, {columns}) = {cut:?} is {} columns wide",
        width(cut)
    );
    if width(text) <= columns {
        assert_eq!(cut, text, "truncate cut a text that fits in {columns}");
    } else if let Some(next) = text[cut.len()..].chars().next() {
        let longer = &text[..cut.len() + next.len_utf8()];
        assert!(
            width(longer) > columns,
            "truncate({text:?}, {columns}) = {cut:?} stopped before {next:?}, which fits"
        );
    }
}

/// [`crate::text::wrap`]: rows that make up `line` again, each at most `columns` wide unless
/// it is one character wider than that, and none empty unless `line` is.
pub fn check_wrap(line: &str, columns: usize) {
    let rows = wrap(line, columns);
    assert_eq!(rows.concat(), line, "wrap({line:?}, {columns}) lost text");
    if line.is_empty() {
        assert_eq!(rows, [""]);
    }
    for row in &rows {
        assert!(
            !row.is_empty() || line.is_empty(),
            "wrap({line:?}, {columns}) made an empty row: {rows:?}"
        );
        assert!(
            width(row) <= columns.max(1) || row.chars().count() == 1,
            "wrap({line:?}, {columns}): {row:?} is {} columns wide",
            width(row)
        );
    }
}
