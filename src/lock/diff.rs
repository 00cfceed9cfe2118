//! A change of a definition, printable as one line, and a line diff of rendered text.

use std::fmt;

/// The most characters of server text a change line quotes.
const QUOTE_CHARS: usize = 80;

/// Lines kept around each changed run in a [`line_diff`].
const CONTEXT_LINES: usize = 2;

/// The largest middle (lines locked × lines now) compared line by line; a bigger one is
/// shown as all of it removed, then all of it added.
const MOST_CELLS: usize = 4_000_000;

/// One difference between a locked definition and the listed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefinitionChange {
    /// The title changed.
    Title {
        /// As locked.
        locked: Option<String>,
        /// As listed now.
        now: Option<String>,
    },
    /// The description changed.
    Description {
        /// As locked.
        locked: Option<String>,
        /// As listed now.
        now: Option<String>,
    },
    /// A new argument.
    ArgumentAdded {
        /// Its name.
        name: String,
        /// Whether it is required.
        required: bool,
    },
    /// An argument is gone.
    ArgumentRemoved {
        /// Its name.
        name: String,
    },
    /// An optional argument is now required.
    ArgumentNowRequired {
        /// Its name.
        name: String,
    },
    /// A required argument is now optional.
    ArgumentNowOptional {
        /// Its name.
        name: String,
    },
    /// An argument's title or description changed.
    ArgumentText {
        /// Its name.
        name: String,
        /// `title` or `description`.
        field: &'static str,
        /// As locked.
        locked: Option<String>,
        /// As listed now.
        now: Option<String>,
    },
    /// The same arguments in another order.
    ArgumentsReordered {
        /// The locked order.
        locked: Vec<String>,
        /// The order now.
        now: Vec<String>,
    },
    /// A skill lists a new file.
    FileAdded {
        /// Its path in the skill.
        path: String,
    },
    /// A skill's file is gone.
    FileRemoved {
        /// Its path in the skill.
        path: String,
    },
    /// A skill's file has another digest.
    FileChanged {
        /// Its path in the skill.
        path: String,
    },
    /// A skill became dynamic (no digests), or stopped being so.
    Dynamic {
        /// Whether it is dynamic now.
        now: bool,
    },
}

impl fmt::Display for DefinitionChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |name: &str| crate::text::visible_on_one_line(name);
        match self {
            DefinitionChange::Title { locked, now } => {
                write!(
                    f,
                    "title: {} → {}",
                    shown(locked.as_deref()),
                    shown(now.as_deref())
                )
            }
            DefinitionChange::Description { locked, now } => write!(
                f,
                "description: {} → {}",
                shown(locked.as_deref()),
                shown(now.as_deref())
            ),
            DefinitionChange::ArgumentAdded { name: n, required } => write!(
                f,
                "argument `{}` added ({})",
                name(n),
                if *required { "required" } else { "optional" }
            ),
            DefinitionChange::ArgumentRemoved { name: n } => {
                write!(f, "argument `{}` removed", name(n))
            }
            DefinitionChange::ArgumentNowRequired { name: n } => {
                write!(f, "argument `{}` is now required", name(n))
            }
            DefinitionChange::ArgumentNowOptional { name: n } => {
                write!(f, "argument `{}` is now optional", name(n))
            }
            DefinitionChange::ArgumentText {
                name: n,
                field,
                locked,
                now,
            } => write!(
                f,
                "argument `{}` {field}: {} → {}",
                name(n),
                shown(locked.as_deref()),
                shown(now.as_deref())
            ),
            DefinitionChange::ArgumentsReordered { locked, now } => write!(
                f,
                "arguments reordered: {} → {}",
                name(&locked.join(", ")),
                name(&now.join(", "))
            ),
            DefinitionChange::FileAdded { path } => write!(f, "file `{}` added", name(path)),
            DefinitionChange::FileRemoved { path } => {
                write!(f, "file `{}` removed", name(path))
            }
            DefinitionChange::FileChanged { path } => {
                write!(f, "file `{}` changed (its digest differs)", name(path))
            }
            DefinitionChange::Dynamic { now: true } => {
                write!(f, "now dynamic (its files have no digests to compare)")
            }
            DefinitionChange::Dynamic { now: false } => {
                write!(f, "no longer dynamic (its files have digests now)")
            }
        }
    }
}

/// How an example's rendered messages differ from the locked ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleDrift {
    /// A line diff of the texts ([`line_diff`]), when the text was locked (`--with-output`);
    /// empty when only fields outside the text differ.
    pub diff: Option<String>,
}

/// Server text quoted in a change line: on one line, cut, or `none`.
pub(super) fn shown(text: Option<&str>) -> String {
    match text {
        Some(text) => crate::text::quoted_server_text(&crate::text::cut_chars(text, QUOTE_CHARS)),
        None => "none".to_string(),
    }
}

/// One line's fate in a diff.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Removed,
    Added,
}

/// A unified line diff from `locked` to `now`: `@@ -L,N +L,N @@` headers, then each line
/// with ` `, `-` or `+`, two lines of context around each change. Empty when equal.
pub fn line_diff(locked: &str, now: &str) -> String {
    let old: Vec<&str> = locked.lines().collect();
    let new: Vec<&str> = now.lines().collect();
    let ops = line_ops(&old, &new);
    // Each op with the line numbers (0-based) it stands at in both texts.
    let mut at = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in &ops {
        at.push((*op, i, j));
        match op {
            Op::Same => (i, j) = (i + 1, j + 1),
            Op::Removed => i += 1,
            Op::Added => j += 1,
        }
    }
    let mut out = String::new();
    let mut k = 0;
    while k < at.len() {
        if at[k].0 == Op::Same {
            k += 1;
            continue;
        }
        // A hunk: from CONTEXT_LINES before this change to CONTEXT_LINES after the last
        // change that is no further than 2 × CONTEXT_LINES unchanged lines away.
        let start = k.saturating_sub(CONTEXT_LINES);
        let mut end = k;
        let mut same_run = 0;
        let mut m = k;
        while m < at.len() && same_run <= 2 * CONTEXT_LINES {
            if at[m].0 == Op::Same {
                same_run += 1;
            } else {
                same_run = 0;
                end = m;
            }
            m += 1;
        }
        let stop = (end + 1 + CONTEXT_LINES).min(at.len());
        let hunk = &at[start..stop];
        let count = |keep: Op| {
            hunk.iter()
                .filter(|(op, ..)| *op == Op::Same || *op == keep)
                .count()
        };
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            hunk[0].1 + 1,
            count(Op::Removed),
            hunk[0].2 + 1,
            count(Op::Added)
        ));
        for (op, i, j) in hunk {
            let (mark, line) = match op {
                Op::Same => (' ', old[*i]),
                Op::Removed => ('-', old[*i]),
                Op::Added => ('+', new[*j]),
            };
            out.push(mark);
            out.push_str(line);
            out.push('\n');
        }
        k = stop;
    }
    out
}

/// The ops turning `old` into `new`: the common head and tail kept, the middle by the
/// longest common subsequence when it is small enough, else replaced whole.
fn line_ops(old: &[&str], new: &[&str]) -> Vec<Op> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let mut ops = vec![Op::Same; head];
    if a.len().saturating_mul(b.len()) > MOST_CELLS {
        ops.extend(std::iter::repeat_n(Op::Removed, a.len()));
        ops.extend(std::iter::repeat_n(Op::Added, b.len()));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let width = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * width];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * width + j] = if a[i] == b[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                ops.push(Op::Same);
                (i, j) = (i + 1, j + 1);
            } else if i < a.len()
                && (j == b.len() || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
            {
                ops.push(Op::Removed);
                i += 1;
            } else {
                ops.push(Op::Added);
                j += 1;
            }
        }
    }
    ops.extend(std::iter::repeat_n(Op::Same, tail));
    ops
}
