//! Where an argument's value came from (a file, a command's output, standard input), how
//! the form marks it, and the rules a value read from elsewhere must meet (text, not too
//! large). Pure: the reading itself is in `crate::value_io`.

use serde::{Deserialize, Serialize};

/// The largest value read from a file, a command or stdin (1 MiB).
pub const DEFAULT_VALUE_LIMIT: usize = 1024 * 1024;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueSource {
    /// A file's contents; the path as it was given (relative to the folder mcpick ran in,
    /// `~` or absolute).
    File(String),
    /// A shell command's standard output.
    Command(String),
    /// Standard input (`NAME=-`).
    Stdin,
}

impl ValueSource {
    /// How the source is named in messages: `build.log`, `` `git diff` ``, `standard input`.
    pub fn describe(&self) -> String {
        match self {
            ValueSource::File(path) => crate::text::one_line(path),
            ValueSource::Command(command) => {
                format!("the output of `{}`", crate::text::one_line(command))
            }
            ValueSource::Stdin => "standard input".to_string(),
        }
    }
}

/// How a command run for a value ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutcome {
    /// It succeeded; its standard output, without the line breaks at its end.
    Done {
        /// The output.
        output: String,
    },
    /// It failed, could not run, took too long, or printed what cannot be a value.
    Failed {
        /// What happened: `exited with status 2`, `took longer than 10 s…`.
        why: String,
        /// What it wrote on stderr (its end cut), maybe nothing.
        stderr: String,
    },
}

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

/// A size as people read it: `512 B`, `12.3 KiB`, `2.0 MiB`.
pub fn human_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

/// Why a value of `size` bytes (`None`: more than `limit`, size unknown) from `what` is
/// refused, and what to do.
pub fn too_large(what: &str, size: Option<u64>, limit: usize) -> String {
    let size = match size {
        Some(size) => human_size(usize::try_from(size).unwrap_or(usize::MAX)),
        None => format!("more than {}", human_size(limit)),
    };
    format!(
        "{what} is {size}, over the {} limit for an argument value: give a smaller part of it (e.g. `head -c 500K`, or the lines that matter)",
        human_size(limit)
    )
}

/// `bytes` read from `what` as a value: text, at most `limit` bytes. Binary data (NUL bytes)
/// and text that is not UTF-8 are refused with a message saying what to do.
pub fn decode_value(bytes: Vec<u8>, what: &str, limit: usize) -> Result<String, String> {
    if bytes.len() > limit {
        return Err(too_large(what, Some(bytes.len() as u64), limit));
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err(format!(
            "{what} is binary (it holds NUL bytes), and argument values are text: give a text file, or encode it first (e.g. `base64 FILE`)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{what} is not UTF-8 text (byte {} is not): convert it first (e.g. `iconv -f latin1 -t utf-8 FILE`)",
            e.utf8_error().valid_up_to()
        )
    })
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
    fn binary_non_utf8_and_large_values_are_refused_with_a_way_out() {
        assert_eq!(
            decode_value(b"hello".to_vec(), "f", 10).as_deref(),
            Ok("hello")
        );
        let nul = decode_value(b"a\0b".to_vec(), "img.png", 10).unwrap_err();
        assert!(
            nul.contains("img.png is binary") && nul.contains("base64"),
            "{nul}"
        );
        let latin = decode_value(vec![b'a', 0xe9], "old.txt", 10).unwrap_err();
        assert!(
            latin.contains("not UTF-8") && latin.contains("iconv"),
            "{latin}"
        );
        let big =
            decode_value(vec![b'a'; 2 * 1024 * 1024], "big.log", DEFAULT_VALUE_LIMIT).unwrap_err();
        assert!(
            big.contains("big.log is 2.0 MiB, over the 1.0 MiB limit"),
            "{big}"
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1024), "1.0 KiB");
        assert_eq!(human_size(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("one"), 1);
        assert_eq!(line_count("one\ntwo"), 2);
    }
}
