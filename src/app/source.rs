//! Where an argument's value came from (a file, a command's output, standard input), how
//! the form marks it, and the rules a value read from elsewhere must meet (text, not too
//! large). Pure: the reading itself, and the value types it shares with the CLI, are in
//! `crate::value_io`.

pub use crate::value_io::{
    CommandOutcome, DEFAULT_VALUE_LIMIT, ValueSource, decode_value, human_size, too_large,
};

/// A field's mark: its value came from `source`, and whether it was edited since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMark {
    /// Where the value came from.
    pub source: ValueSource,
    /// The value as it came, to tell whether the text changed.
    original: String,
    /// How large it came (`12.3 KiB`, `3 lines`), worked out once: the mark is drawn each frame.
    size: String,
    /// The text differs from what came.
    pub edited: bool,
}

impl SourceMark {
    /// The mark of `value`, just taken from `source`.
    pub fn new(source: ValueSource, value: &str) -> SourceMark {
        let size = match source {
            ValueSource::File(_) => human_size(value.len()),
            ValueSource::Command(_) | ValueSource::Stdin => {
                crate::text::counted(line_count(value), "line", "lines")
            }
        };
        SourceMark {
            source,
            original: value.to_string(),
            size,
            edited: false,
        }
    }

    /// Follows an edit: the mark says "edited" once the text is no longer what came (and
    /// stops saying it when an undo brings that text back).
    pub fn follow(&mut self, value: &str) {
        self.edited = value != self.original;
    }

    /// What the field shows: `from build.log · 12.3 KiB`, `from $ git diff · 3 lines`,
    /// `from stdin · 1 line`, or `… · edited`.
    pub fn label(&self) -> String {
        let from = match &self.source {
            ValueSource::File(path) => crate::text::one_line(path),
            ValueSource::Command(command) => format!("$ {}", crate::text::one_line(command)),
            ValueSource::Stdin => "stdin".to_string(),
        };
        let size = if self.edited { "edited" } else { &self.size };
        format!("from {from} · {size}")
    }
}

/// The lines of `text` as an editor counts them (a last line break ends a line, it does not
/// start one); an empty text has none.
pub fn line_count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    text.lines().count().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_say_where_and_how_large_then_edited() {
        let text = "a".repeat(12_595);
        let mut mark = SourceMark::new(ValueSource::File("build.log".into()), &text);
        assert_eq!(mark.label(), "from build.log · 12.3 KiB");
        mark.follow(&text);
        assert_eq!(mark.label(), "from build.log · 12.3 KiB");
        mark.follow("changed");
        assert_eq!(mark.label(), "from build.log · edited");
        mark.follow(&text);
        assert!(!mark.edited);
        let diff = SourceMark::new(ValueSource::Command("git diff".into()), "a\nb\nc\n");
        assert_eq!(diff.label(), "from $ git diff · 3 lines");
        let piped = SourceMark::new(ValueSource::Stdin, "x");
        assert_eq!(piped.label(), "from stdin · 1 line");
    }

    #[test]
    fn lines_are_counted_as_an_editor_counts_them() {
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("one"), 1);
        assert_eq!(line_count("one\ntwo"), 2);
    }
}
