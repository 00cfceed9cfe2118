//! A message body's rows kept per layout, so a long body costs its layout once, not every
//! frame; and its code highlighted off the loop: a layout on the loop highlights what
//! [`CodeBudget::AtOnce`] allows, and asks for the whole layout, which a task computes
//! and [`BodyLayout::finished`] puts in its place.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ratatui::text::Line;

use super::{CodeBudget, RowStyle, message_rows_with};
use crate::model::Content;

/// Rows laid out once, shared with the tasks and frames that read them.
pub type Rows = Arc<Vec<Line<'static>>>;

/// What a body's rows were laid out for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowsKey {
    /// The width wrapped at.
    pub width: usize,
    /// Rendered or raw, in colour or not.
    pub style: RowStyle,
    /// Whether the highlighter had loaded (code was drawn plain before).
    pub highlighted: bool,
}

/// Where a layout stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finish {
    /// The rows are final.
    Done,
    /// Code was left plain: the whole layout is wanted…
    Wanted,
    /// …and was asked for.
    Asked,
}

/// Bodies are told apart by this (a body's id changes with its content).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A body's rows in its last two layouts (the screen's and the one scrolling counts with
/// may differ by a column). Equal to any other: it is derived from the message.
#[derive(Debug, Clone)]
pub struct BodyLayout {
    id: u64,
    layouts: RefCell<Vec<(RowsKey, Rows, Finish)>>,
}

impl Default for BodyLayout {
    fn default() -> BodyLayout {
        BodyLayout {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            layouts: RefCell::new(Vec::new()),
        }
    }
}

impl PartialEq for BodyLayout {
    fn eq(&self, _: &BodyLayout) -> bool {
        true
    }
}

impl BodyLayout {
    /// Which body this is, in [`BodyLayout::wanted`]'s requests and their answers.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// `content`'s rows at `width` in `style` (laid out now unless kept from before).
    pub fn rows(&self, content: &Content, width: usize, style: RowStyle) -> Rows {
        let key = RowsKey {
            width,
            style,
            highlighted: super::highlight::ready().is_some(),
        };
        let mut layouts = self.layouts.borrow_mut();
        if let Some((_, rows, _)) = layouts.iter().find(|(at, _, _)| *at == key) {
            return Arc::clone(rows);
        }
        let (rows, code_left) = message_rows_with(content, width, style, CodeBudget::AtOnce);
        let rows = Arc::new(rows);
        if layouts.len() == 2 {
            layouts.remove(0);
        }
        let finish = if code_left {
            Finish::Wanted
        } else {
            Finish::Done
        };
        layouts.push((key, Arc::clone(&rows), finish));
        rows
    }

    /// The layouts whose whole rows are wanted and not yet asked for (asked for now).
    pub fn wanted(&self) -> Vec<RowsKey> {
        let mut layouts = self.layouts.borrow_mut();
        layouts
            .iter_mut()
            .filter(|(_, _, finish)| *finish == Finish::Wanted)
            .map(|(key, _, finish)| {
                *finish = Finish::Asked;
                *key
            })
            .collect()
    }

    /// Puts the whole layout asked for `key` in place of the rows drawn meanwhile;
    /// `false` if that layout is no longer kept (the answer is dropped).
    pub fn finished(&self, key: RowsKey, rows: Rows) -> bool {
        let mut layouts = self.layouts.borrow_mut();
        match layouts
            .iter_mut()
            .find(|(at, _, finish)| *at == key && *finish == Finish::Asked)
        {
            Some(layout) => {
                layout.1 = rows;
                layout.2 = Finish::Done;
                true
            }
            None => false,
        }
    }
}

/// The whole layout of `content` for `key` (what a task computes for [`BodyLayout::wanted`]).
pub fn whole_rows(content: &Content, key: RowsKey) -> Rows {
    Arc::new(message_rows_with(content, key.width, key.style, CodeBudget::Whole).0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{highlight, line_text};

    /// A line of code that wraps at the tests' 60 columns (pieces of many styles then).
    const LINE: &str = "let total = first_value.checked_mul(2).unwrap_or(0) + compute(\"x\", 3);\n";

    fn code_heavy() -> Content {
        let block = format!("```rust\n{}```\n\n", LINE.repeat(120));
        Content::text(format!("# Code\n\n{}", block.repeat(3)))
    }

    const STYLE: RowStyle = RowStyle {
        rendered: true,
        color: true,
    };

    fn coloured_rows(rows: &[Line<'static>]) -> usize {
        rows.iter()
            .filter(|row| {
                row.spans
                    .iter()
                    .any(|s| s.style.fg.is_some() && s.content == "let")
            })
            .count()
    }

    #[test]
    fn code_past_what_a_layout_affords_at_once_is_finished_by_the_whole_layout() {
        highlight::load();
        let content = code_heavy();
        let body = BodyLayout::default();
        let first = body.rows(&content, 60, STYLE);
        // The first block's lines that fit what is highlighted at once are, the rest of it
        // and the other blocks (8.6 KiB each) are left plain…
        let at_once = highlight::AT_ONCE_BYTES / LINE.len();
        assert!(at_once > 0 && at_once < 120);
        assert_eq!(coloured_rows(&first), at_once);
        let keys = body.wanted();
        assert_eq!(keys.len(), 1, "the whole layout is asked for once");
        assert!(body.wanted().is_empty(), "and not again");
        let whole = whole_rows(&content, keys[0]);
        assert_eq!(coloured_rows(&whole), 360);
        // …in the same rows, text for text, also where a line wraps.
        assert!(first.len() > 360 * 2, "the lines wrap");
        let texts = |rows: &[Line<'static>]| rows.iter().map(line_text).collect::<Vec<_>>();
        assert_eq!(texts(&first), texts(&whole));
        assert!(body.finished(keys[0], Arc::clone(&whole)));
        assert_eq!(coloured_rows(&body.rows(&content, 60, STYLE)), 360);
        // An answer for a layout no longer kept is dropped.
        body.rows(&content, 50, STYLE);
        body.rows(&content, 40, STYLE);
        assert!(!body.finished(keys[0], whole));
    }

    #[test]
    fn a_body_with_little_code_is_final_at_once() {
        highlight::load();
        let body = BodyLayout::default();
        let content = Content::text("# Hi\n\n```rust\nfn main() {}\n```\n");
        let rows = body.rows(&content, 60, STYLE);
        assert!(
            rows.iter()
                .any(|row| row.spans.iter().any(|s| s.style.fg.is_some()))
        );
        assert!(body.wanted().is_empty());
        let raw = RowStyle {
            rendered: false,
            ..STYLE
        };
        body.rows(&code_heavy(), 60, raw);
        assert!(body.wanted().is_empty(), "raw text highlights nothing");
    }
}
