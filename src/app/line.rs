//! One text-editing language for every input: readline/emacs keys.
//!
//! Single-line inputs (the search line, the inputs prompt) use [`LineEditor`]; the
//! multi-line ones (form fields, the review editor, the questions, the file-name line) are
//! `TextArea`s driven through [`edit_area`], which gives them the same keys. Undo and redo
//! are key-table actions of their own (Ctrl-_ / Ctrl-Z, Alt-_), so they are not here.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{CursorMove, TextArea};
use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

/// Where the grapheme clusters of `text` start, in chars, and whether each is a word's
/// (its first char a letter or digit), then the text's length in chars. The cursor moves and
/// deletes by cluster, so it never stops inside `👩‍👩‍👧`, an `e` and its U+0301, or a flag.
fn clusters(text: &str) -> (Vec<(usize, bool)>, usize) {
    let mut starts = Vec::new();
    let mut at = 0;
    for cluster in text.graphemes(true) {
        starts.push((at, cluster.chars().next().is_some_and(is_word)));
        at += cluster.chars().count();
    }
    (starts, at)
}

/// The grapheme cluster around a char position of a line, in chars: the boundaries
/// before and after it, whether it is one itself, and the line's length. Found with a
/// `GraphemeCursor` at the position, so a key in a long line does not segment all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Around {
    before: usize,
    after: usize,
    boundary: bool,
    len: usize,
}

fn around(text: &str, at: usize) -> Around {
    let byte = text
        .char_indices()
        .nth(at)
        .map_or(text.len(), |(byte, _)| byte);
    let at = text[..byte].chars().count();
    let cursor = || GraphemeCursor::new(byte, text.len(), true);
    // The whole text is one chunk, so the cursor never asks for more context.
    let before = cursor().prev_boundary(text, 0).ok().flatten().unwrap_or(0);
    let after = cursor()
        .next_boundary(text, 0)
        .ok()
        .flatten()
        .unwrap_or(text.len());
    Around {
        before: at - text[before..byte].chars().count(),
        after: at + text[byte..after].chars().count(),
        boundary: cursor().is_boundary(text, 0).unwrap_or(true),
        len: at + text[byte..].chars().count(),
    }
}

/// The cluster boundary before the char position `at` (0 at the start).
pub fn cluster_before(text: &str, at: usize) -> usize {
    around(text, at).before
}

/// The cluster boundary after the char position `at` (the length at the end).
pub fn cluster_after(text: &str, at: usize) -> usize {
    around(text, at).after
}

/// A one-line text with a cursor and a kill buffer, edited with readline keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineEditor {
    text: String,
    /// The cursor, in chars from the start.
    cursor: usize,
    /// What the last kill (Ctrl-U, Ctrl-K, Ctrl-W, Alt-D, Alt-Backspace) took, for Ctrl-Y.
    killed: String,
}

/// Word characters for word moves and kills: as readline, letters and digits.
fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

impl LineEditor {
    /// A line holding `text`, the cursor at its end.
    pub fn new(text: &str) -> LineEditor {
        LineEditor {
            text: text.to_string(),
            cursor: text.chars().count(),
            killed: String::new(),
        }
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor, in chars from the start.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the line is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Empties the line (the kill buffer stays).
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
    }

    fn byte(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map_or(self.text.len(), |(i, _)| i)
    }

    fn len(&self) -> usize {
        self.text.chars().count()
    }

    /// Inserts `text` at the cursor, which ends after it.
    pub fn insert_str(&mut self, text: &str) {
        let at = self.byte(self.cursor);
        self.text.insert_str(at, text);
        self.cursor += text.chars().count();
    }

    /// Removes the chars `from..to` and returns them.
    fn remove(&mut self, from: usize, to: usize) -> String {
        let (start, end) = (self.byte(from), self.byte(to));
        let taken: String = self.text.drain(start..end).collect();
        self.cursor = from;
        taken
    }

    fn kill(&mut self, from: usize, to: usize) -> bool {
        if from == to {
            return false;
        }
        self.killed = self.remove(from, to);
        true
    }

    /// Where a word move back from the cursor lands: the start of the word before it.
    fn word_back(&self) -> usize {
        let (starts, _) = clusters(&self.text);
        // The clusters before the cursor, nearest first.
        let mut before = starts.iter().rev().filter(|(at, _)| *at < self.cursor);
        let mut at = self.cursor;
        let mut in_word = false;
        for &(start, word) in before.by_ref() {
            if in_word && !word {
                break;
            }
            in_word |= word;
            at = start;
        }
        at
    }

    /// Where Ctrl-W deletes back to (readline's `unix-word-rubout`): over the whitespace
    /// before the cursor, then over everything up to the whitespace before that, so
    /// `x = print(add(` keeps `x = `.
    fn whitespace_back(&self) -> usize {
        let (starts, _) = clusters(&self.text);
        let blank = |start: usize| self.text[self.byte(start)..].starts_with(char::is_whitespace);
        let mut at = self.cursor;
        let mut in_word = false;
        for &(start, _) in starts.iter().rev().filter(|(at, _)| *at < self.cursor) {
            let is_blank = blank(start);
            if in_word && is_blank {
                break;
            }
            in_word |= !is_blank;
            at = start;
        }
        at
    }

    /// Where a word move forward lands: the end of the word after the cursor.
    fn word_forward(&self) -> usize {
        let (starts, len) = clusters(&self.text);
        let mut in_word = false;
        for &(start, word) in starts.iter().filter(|(at, _)| *at >= self.cursor) {
            if in_word && !word {
                return start;
            }
            in_word |= word;
        }
        len
    }

    fn back(&self) -> usize {
        cluster_before(&self.text, self.cursor)
    }

    fn forward(&self) -> usize {
        cluster_after(&self.text, self.cursor)
    }

    /// Applies one key; returns whether the text changed. Keys outside the language are
    /// ignored.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char(c) if ctrl && !alt => match c.to_ascii_lowercase() {
                'a' => self.cursor = 0,
                'e' => self.cursor = self.len(),
                'b' => self.cursor = self.back(),
                'f' => self.cursor = self.forward(),
                'h' => return self.kill_char_back(),
                // readline's unix-word-rubout: back to whitespace (Alt-Backspace stops at
                // punctuation).
                'w' => return self.kill(self.whitespace_back(), self.cursor),
                'u' => return self.kill(0, self.cursor),
                'k' => return self.kill(self.cursor, self.len()),
                'y' => {
                    let killed = self.killed.clone();
                    self.insert_str(&killed);
                    return !killed.is_empty();
                }
                _ => {}
            },
            KeyCode::Char(c) if alt && !ctrl => match c {
                'b' => self.cursor = self.word_back(),
                'f' => self.cursor = self.word_forward(),
                'd' => return self.kill(self.cursor, self.word_forward()),
                _ => {}
            },
            KeyCode::Char(c) if !ctrl && !alt => {
                self.insert_str(c.encode_utf8(&mut [0; 4]));
                return true;
            }
            KeyCode::Backspace if alt || ctrl => return self.kill(self.word_back(), self.cursor),
            KeyCode::Backspace => return self.kill_char_back(),
            KeyCode::Delete if alt => return self.kill(self.cursor, self.word_forward()),
            KeyCode::Delete if self.cursor < self.len() => {
                self.remove(self.cursor, self.forward());
                return true;
            }
            KeyCode::Left if ctrl || alt => self.cursor = self.word_back(),
            KeyCode::Right if ctrl || alt => self.cursor = self.word_forward(),
            KeyCode::Left => self.cursor = self.back(),
            KeyCode::Right => self.cursor = self.forward(),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.len(),
            _ => {}
        }
        false
    }

    fn kill_char_back(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        // One cluster is not a kill: Ctrl-Y keeps what the last kill took.
        self.remove(self.back(), self.cursor);
        true
    }
}

/// The area's cursor: row, and char column in it.
fn position(area: &TextArea<'_>) -> (usize, usize) {
    let ratatui_textarea::DataCursor(row, col) = area.cursor();
    (row, col)
}

/// The cursor's char column and the cluster around it in the area's cursor line.
fn at_cursor(area: &TextArea<'_>) -> (usize, Around) {
    let (row, col) = position(area);
    let line = area.lines().get(row).map_or("", String::as_str);
    (col, around(line, col))
}

/// Moves the area's cursor `chars` chars along its line (one cluster, as counted by
/// [`cluster_before`] and [`cluster_after`]); `TextArea` itself moves by char.
fn step(area: &mut TextArea<'_>, forward: bool, chars: usize) {
    for _ in 0..chars {
        area.move_cursor(if forward {
            CursorMove::Forward
        } else {
            CursorMove::Back
        });
    }
}

/// Puts a cursor that a move of the area's own left inside a cluster on the cluster's edge:
/// its end when it moved forward, else its start.
fn snap(area: &mut TextArea<'_>, before: (usize, usize)) {
    let (col, cluster) = at_cursor(area);
    if cluster.boundary {
        return;
    }
    if position(area) > before {
        step(area, true, cluster.after - col);
    } else {
        step(area, false, col - cluster.before);
    }
}

/// Moves an area's cursor as `movement` says, by cluster: Forward and Back step over a
/// whole cluster, other moves never stop inside one.
pub fn move_area(area: &mut TextArea<'_>, movement: CursorMove) {
    let (col, cluster) = at_cursor(area);
    match movement {
        CursorMove::Forward if col < cluster.len => step(area, true, cluster.after - col),
        CursorMove::Back if col > 0 => step(area, false, col - cluster.before),
        _ => {
            let before = position(area);
            area.move_cursor(movement);
            snap(area, before);
        }
    }
}

/// Applies one key to a `TextArea` in the shared language; returns whether the text
/// changed. The area's own map already does most of it; these differ from it: Ctrl-U
/// deletes to the start (the area's undo), and keys outside the language (Ctrl-J, which it
/// takes as "delete to start", Ctrl-R redo, Ctrl-D, Ctrl-X, Ctrl-C, Ctrl-V) do nothing, so
/// no key edits text in one input and not in another.
///
/// Moves and deletes of one step go by grapheme cluster (the area's own go by char), and no
/// other key leaves the cursor inside a cluster.
fn edit_area_by_cluster(area: &mut TextArea<'_>, key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let plain = !ctrl && !alt;
    let (col, cluster) = at_cursor(area);
    let len = cluster.len;
    let letter = |c: char| match key.code {
        KeyCode::Char(k) => ctrl && !alt && k.eq_ignore_ascii_case(&c),
        _ => false,
    };
    // Within the line; at its edges the area's own keys join or cross lines.
    if col > 0 && ((plain && key.code == KeyCode::Backspace) || letter('h')) {
        let chars = col - cluster.before;
        step(area, false, chars);
        return area.delete_str(chars);
    }
    if col < len && plain && key.code == KeyCode::Delete {
        return area.delete_str(cluster.after - col);
    }
    if col > 0 && ((plain && key.code == KeyCode::Left) || letter('b')) {
        move_area(area, CursorMove::Back);
        return false;
    }
    if col < len && ((plain && key.code == KeyCode::Right) || letter('f')) {
        move_area(area, CursorMove::Forward);
        return false;
    }
    let before = position(area);
    let changed = area_key(area, key, ctrl, alt);
    snap(area, before);
    changed
}

/// Applies one key to a `TextArea` (form fields, the review's editor and file-name line,
/// the questions) in the shared language: its word moves and kills are readline's, as in
/// [`LineEditor`] (Alt-F stops at the end of each run of letters and digits:
/// `out|/tabs|.md|`; Alt-Backspace deletes back as far; Ctrl-W back to whitespace), within
/// the cursor's line; at the line's edge they cross the line break.
pub fn edit_area(area: &mut TextArea<'_>, key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    /// What a word key does: move, or delete, back or forward; or delete back to
    /// whitespace (Ctrl-W).
    enum Word {
        Move(bool),
        Kill(bool),
        Rubout,
    }
    let word = match key.code {
        KeyCode::Char('f') if alt && !ctrl => Word::Move(true),
        KeyCode::Char('b') if alt && !ctrl => Word::Move(false),
        KeyCode::Right if ctrl || alt => Word::Move(true),
        KeyCode::Left if ctrl || alt => Word::Move(false),
        KeyCode::Char('d') if alt && !ctrl => Word::Kill(true),
        KeyCode::Delete if alt => Word::Kill(true),
        KeyCode::Char('w') if ctrl && !alt => Word::Rubout,
        KeyCode::Backspace if ctrl || alt => Word::Kill(false),
        _ => return edit_area_by_cluster(area, key),
    };
    let (row, col) = position(area);
    let len = area.lines().get(row).map_or(0, |l| l.chars().count());
    let back = matches!(word, Word::Move(false) | Word::Kill(false) | Word::Rubout);
    // At the line's edge the word is on the next or previous line: the area's own keys
    // cross the line break (a one-line area has none to cross).
    if (back && col == 0) || (!back && col == len) {
        let before = position(area);
        let changed = area_key(area, key, ctrl, alt);
        snap(area, before);
        return changed;
    }
    let line = LineEditor {
        text: area.lines().get(row).cloned().unwrap_or_default(),
        cursor: col,
        killed: String::new(),
    };
    match word {
        Word::Move(true) => step(area, true, line.word_forward() - col),
        Word::Move(false) => step(area, false, col - line.word_back()),
        // `delete_str` keeps what it took for Ctrl-Y, as the area's own kills do.
        Word::Kill(true) => return area.delete_str(line.word_forward() - col),
        Word::Kill(false) => {
            let chars = col - line.word_back();
            step(area, false, chars);
            return area.delete_str(chars);
        }
        Word::Rubout => {
            let chars = col - line.whitespace_back();
            step(area, false, chars);
            return area.delete_str(chars);
        }
    }
    false
}

/// The area's own handling of a key, limited to the shared language.
fn area_key(area: &mut TextArea<'_>, key: KeyEvent, ctrl: bool, alt: bool) -> bool {
    match key.code {
        KeyCode::Char(c) if ctrl && !alt => match c.to_ascii_lowercase() {
            'u' => area.delete_line_by_head(),
            'a' | 'e' | 'b' | 'f' | 'h' | 'w' | 'k' | 'y' | 'n' | 'p' => area.input(key),
            _ => false,
        },
        KeyCode::Char(_) if ctrl => false,
        _ => area.input(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn alt(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT)
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::from(code)
    }

    fn typed(line: &mut LineEditor, text: &str) {
        for c in text.chars() {
            line.key(key(KeyCode::Char(c)));
        }
    }

    #[test]
    fn moves_by_char_word_and_line_and_types_where_the_cursor_is() {
        let mut line = LineEditor::new("git commit");
        line.key(key(KeyCode::Left));
        line.key(ctrl('b'));
        assert_eq!(line.cursor(), 8);
        line.key(alt('b'));
        assert_eq!(line.cursor(), 4);
        typed(&mut line, "x");
        assert_eq!(line.text(), "git xcommit");
        line.key(ctrl('a'));
        typed(&mut line, "é");
        assert_eq!(line.text(), "égit xcommit");
        line.key(alt('f'));
        assert_eq!(line.cursor(), 4);
        line.key(ctrl('e'));
        assert_eq!(line.cursor(), 12);
        line.key(key(KeyCode::Home));
        line.key(ctrl('f'));
        line.key(key(KeyCode::Right));
        assert_eq!(line.cursor(), 2);
        line.key(key(KeyCode::End));
        assert_eq!(line.cursor(), 12);
    }

    #[test]
    fn deletes_by_char_and_kills_by_word_and_line_and_yanks() {
        let mut line = LineEditor::new("/git:commit all now");
        line.key(ctrl('w'));
        assert_eq!(line.text(), "/git:commit all ");
        line.key(ctrl('y'));
        line.key(alt('b'));
        line.key(alt('b'));
        line.key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT));
        assert_eq!(line.text(), "/git:all now");
        line.key(ctrl('y'));
        line.key(ctrl('e'));
        line.key(ctrl('w'));
        line.key(ctrl('y'));
        assert_eq!(line.text(), "/git:commit all now");
        line.key(key(KeyCode::Home));
        line.key(key(KeyCode::Delete));
        assert_eq!(line.text(), "git:commit all now");
        line.key(alt('d'));
        assert_eq!(line.text(), ":commit all now");
        line.key(ctrl('e'));
        line.key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT));
        assert_eq!(line.text(), ":commit all ");
        line.key(ctrl('h'));
        line.key(key(KeyCode::Backspace));
        assert_eq!(line.text(), ":commit al");
        line.key(alt('b'));
        line.key(ctrl('u'));
        assert_eq!((line.text(), line.cursor()), ("al", 0));
        line.key(ctrl('k'));
        assert_eq!(line.text(), "");
        line.key(ctrl('y'));
        assert_eq!(line.text(), "al");
        line.key(ctrl('a'));
        line.key(ctrl('y'));
        line.key(ctrl('y'));
        assert_eq!(line.text(), "alalal");
    }

    #[test]
    fn keys_outside_the_language_change_nothing() {
        let mut line = LineEditor::new("abc");
        for k in [
            ctrl('d'),
            ctrl('r'),
            ctrl('j'),
            alt('x'),
            key(KeyCode::Delete),
        ] {
            assert!(!line.key(k));
        }
        assert_eq!((line.text(), line.cursor()), ("abc", 3));
    }

    #[test]
    fn text_areas_speak_the_same_keys() {
        let mut area = TextArea::new(vec!["git commit".to_string()]);
        area.move_cursor(ratatui_textarea::CursorMove::End);
        edit_area(&mut area, alt('b'));
        edit_area(&mut area, ctrl('u'));
        assert_eq!(area.lines(), ["commit"]);
        edit_area(&mut area, ctrl('e'));
        edit_area(&mut area, ctrl('y'));
        assert_eq!(area.lines(), ["commitgit "]);
        edit_area(&mut area, ctrl('a'));
        edit_area(&mut area, ctrl('k'));
        assert_eq!(area.lines(), [""]);
        edit_area(&mut area, ctrl('y'));
        assert_eq!(area.lines(), ["commitgit "]);
        for k in [ctrl('j'), ctrl('r'), ctrl('d'), ctrl('x')] {
            assert!(!edit_area(&mut area, k));
        }
        assert_eq!(area.lines(), ["commitgit "]);
    }

    #[test]
    fn the_file_name_line_moves_and_kills_by_word_as_readline() {
        let mut area = TextArea::new(vec!["out/tabs.md".to_string()]);
        edit_area(&mut area, ctrl('a'));
        let mut stops = Vec::new();
        for _ in 0..4 {
            edit_area(&mut area, alt('f'));
            stops.push(area.cursor().1);
        }
        assert_eq!(stops, [3, 8, 11, 11], "out|/tabs|.md|");
        edit_area(&mut area, alt('b'));
        assert_eq!(area.cursor().1, 9, "the start of md");
        edit_area(&mut area, alt('b'));
        assert_eq!(area.cursor().1, 4, "the start of tabs");
        edit_area(&mut area, alt('d'));
        assert_eq!(area.lines(), ["out/.md"]);
        edit_area(&mut area, ctrl('e'));
        edit_area(
            &mut area,
            KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT),
        );
        assert_eq!(area.lines(), ["out/."]);
        edit_area(&mut area, ctrl('y'));
        assert_eq!(area.lines(), ["out/.md"]);
        // Other keys are the shared language's.
        edit_area(&mut area, ctrl('u'));
        assert_eq!(area.lines(), [""]);
    }

    #[test]
    fn ctrl_w_deletes_back_to_whitespace_and_alt_backspace_to_a_word_start_everywhere() {
        let alt_backspace = KeyEvent::new(KeyCode::Backspace, KeyModifiers::ALT);
        let mut line = LineEditor::new("x = print(add(");
        line.key(ctrl('w'));
        assert_eq!(line.text(), "x = ");
        line.key(ctrl('w'));
        assert_eq!(line.text(), "x ");
        let mut line = LineEditor::new("x = print(add(");
        line.key(alt_backspace);
        assert_eq!(line.text(), "x = print(");
        // The text areas alike, in any line of several; at a line's start they join lines.
        let mut area = TextArea::new(vec!["first".into(), "x = print(add(".into()]);
        area.move_cursor(ratatui_textarea::CursorMove::Bottom);
        area.move_cursor(ratatui_textarea::CursorMove::End);
        edit_area(&mut area, ctrl('w'));
        assert_eq!(area.lines(), ["first", "x = "]);
        edit_area(&mut area, ctrl('y'));
        edit_area(&mut area, alt_backspace);
        assert_eq!(area.lines(), ["first", "x = print("]);
        edit_area(&mut area, ctrl('a'));
        edit_area(&mut area, ctrl('w'));
        assert_eq!(area.lines(), ["firstx = print("]);
    }

    const FAMILY: &str = "👩\u{200d}👩\u{200d}👧";
    const ACCENT: &str = "e\u{301}";
    const FLAG: &str = "🇫🇷";

    #[test]
    fn the_line_moves_and_deletes_by_grapheme_cluster() {
        let text = format!("a{FAMILY}{ACCENT}{FLAG}");
        let mut line = LineEditor::new(&text);
        let len = text.chars().count();
        line.key(key(KeyCode::Left));
        assert_eq!(line.cursor(), len - 2, "over the flag");
        line.key(ctrl('b'));
        assert_eq!(line.cursor(), len - 4, "over e and its accent");
        line.key(key(KeyCode::Left));
        assert_eq!(line.cursor(), 1, "over the family");
        line.key(ctrl('f'));
        assert_eq!(line.cursor(), 6);
        line.key(key(KeyCode::Right));
        assert_eq!(line.cursor(), 8);
        line.key(key(KeyCode::Backspace));
        assert_eq!(line.text(), format!("a{FAMILY}{FLAG}"));
        line.key(ctrl('h'));
        assert_eq!(
            (line.text(), line.cursor()),
            (format!("a{FLAG}").as_str(), 1)
        );
        line.key(key(KeyCode::Delete));
        assert_eq!(line.text(), "a");
    }

    #[test]
    fn word_moves_keep_accents_with_their_letters() {
        let mut line = LineEditor::new(&format!("caf{ACCENT} ol{ACCENT}"));
        line.key(alt('b'));
        assert_eq!(line.cursor(), 6);
        line.key(alt('b'));
        assert_eq!(line.cursor(), 0);
        line.key(alt('f'));
        assert_eq!(line.cursor(), 5, "after the accent, not before it");
        line.key(alt('d'));
        assert_eq!(line.text(), format!("caf{ACCENT}"));
    }

    #[test]
    fn text_areas_move_and_delete_by_grapheme_cluster() {
        let mut area = TextArea::new(vec![format!("{FAMILY}{ACCENT}"), format!("x{FLAG}")]);
        area.move_cursor(CursorMove::End);
        assert_eq!(area.cursor().1, 7);
        edit_area(&mut area, key(KeyCode::Left));
        assert_eq!(area.cursor().1, 5);
        edit_area(&mut area, ctrl('b'));
        assert_eq!(area.cursor().1, 0);
        edit_area(&mut area, key(KeyCode::Right));
        assert_eq!(area.cursor().1, 5);
        // Down keeps the column in chars, which would be inside the flag: it stops after it.
        edit_area(&mut area, key(KeyCode::Down));
        assert_eq!(area.cursor(), ratatui_textarea::DataCursor(1, 3));
        edit_area(&mut area, key(KeyCode::Backspace));
        assert_eq!(area.lines(), [format!("{FAMILY}{ACCENT}"), "x".to_string()]);
        edit_area(&mut area, key(KeyCode::Up));
        edit_area(&mut area, key(KeyCode::Home));
        assert!(edit_area(&mut area, key(KeyCode::Delete)));
        assert_eq!(area.lines(), [ACCENT, "x"]);
        // At a line's edge the keys still join and cross lines.
        edit_area(&mut area, key(KeyCode::Down));
        edit_area(&mut area, key(KeyCode::Home));
        edit_area(&mut area, key(KeyCode::Backspace));
        assert_eq!(area.lines(), [format!("{ACCENT}x")]);
        move_area(&mut area, CursorMove::Back);
        assert_eq!(area.cursor().1, 0);
        // Up and Down keep the column in chars; inside a cluster, it goes to the cluster's
        // edge in the move's direction.
        let mut area = TextArea::new(vec!["ab".to_string(), FLAG.to_string()]);
        area.move_cursor(CursorMove::Forward);
        edit_area(&mut area, key(KeyCode::Down));
        assert_eq!(area.cursor(), ratatui_textarea::DataCursor(1, 2));
        let mut area = TextArea::new(vec![FLAG.to_string(), "ab".to_string()]);
        area.move_cursor(CursorMove::Down);
        area.move_cursor(CursorMove::Forward);
        move_area(&mut area, CursorMove::Up);
        assert_eq!(area.cursor(), ratatui_textarea::DataCursor(0, 0));
    }
}
