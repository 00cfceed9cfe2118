//! One text-editing language for every input: readline/emacs keys.
//!
//! Single-line inputs (the search line, the inputs prompt) use [`LineEditor`]; the
//! multi-line ones (form fields, the review editor, the questions, the file-name line) are
//! `TextArea`s driven through [`edit_area`], which gives them the same keys. Undo and redo
//! are key-table actions of their own (Ctrl-_ / Ctrl-Z, Alt-_), so they are not here.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

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
        let chars: Vec<char> = self.text.chars().collect();
        let mut at = self.cursor;
        while at > 0 && !is_word(chars[at - 1]) {
            at -= 1;
        }
        while at > 0 && is_word(chars[at - 1]) {
            at -= 1;
        }
        at
    }

    /// Where a word move forward lands: the end of the word after the cursor.
    fn word_forward(&self) -> usize {
        let chars: Vec<char> = self.text.chars().collect();
        let mut at = self.cursor;
        while at < chars.len() && !is_word(chars[at]) {
            at += 1;
        }
        while at < chars.len() && is_word(chars[at]) {
            at += 1;
        }
        at
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
                'b' => self.cursor = self.cursor.saturating_sub(1),
                'f' => self.cursor = (self.cursor + 1).min(self.len()),
                'h' => return self.kill_char_back(),
                // As in the text areas: Ctrl-W is Alt-Backspace.
                'w' => return self.kill(self.word_back(), self.cursor),
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
                self.remove(self.cursor, self.cursor + 1);
                return true;
            }
            KeyCode::Left if ctrl || alt => self.cursor = self.word_back(),
            KeyCode::Right if ctrl || alt => self.cursor = self.word_forward(),
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.len()),
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
        // One char is not a kill: Ctrl-Y keeps what the last kill took.
        self.remove(self.cursor - 1, self.cursor);
        true
    }
}

/// Applies one key to a `TextArea` in the shared language; returns whether the text
/// changed. The area's own map already does most of it; these differ from it: Ctrl-U
/// deletes to the start (the area's undo), and keys outside the language (Ctrl-J, which it
/// takes as "delete to start", Ctrl-R redo, Ctrl-D, Ctrl-X, Ctrl-C, Ctrl-V) do nothing, so
/// no key edits text in one input and not in another.
pub fn edit_area(area: &mut TextArea<'_>, key: KeyEvent) -> bool {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
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
        line.key(ctrl('w'));
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
}
