//! The screen's geometry: where the menu's, the form's and the review's parts sit for a
//! given size. Drawing and `update` (the page size of PgUp/PgDn, which row a click hit, how
//! far the review scrolls) both ask here, through [`super::areas`] for the app's own state,
//! so they cannot disagree.

use ratatui::layout::{Constraint, Layout, Rect};

/// The smallest terminal mcpick draws in (columns).
pub const MIN_WIDTH: u16 = 60;
/// The smallest terminal mcpick draws in (rows).
pub const MIN_HEIGHT: u16 = 10;
/// Width from which the details go beside the list rather than below it.
pub const SIDE_BY_SIDE: u16 = 100;
/// Below this many rows, a narrow menu shows no details pane under the list.
pub const NARROW_DETAILS_FROM: u16 = 12;
/// Rows of the details pane under a narrow list.
pub(crate) const DETAILS_BELOW: u16 = 7;

/// The screen's main area, status line and hint line; `None` when the terminal is too small.
pub fn screen(area: Rect) -> Option<[Rect; 3]> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    Some(
        Layout::vertical([
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area),
    )
}

/// The menu's parts inside the main area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MenuAreas {
    /// The search line.
    pub search: Rect,
    /// The offer to use found MCP configs (empty when there is none).
    pub offer: Rect,
    /// The list of prompts.
    pub list: Rect,
    /// The selected prompt's details (empty when there is no room).
    pub details: Rect,
}

/// A row of the menu: a header, or the entry at this rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuRow {
    /// A header line ("Recent", "All prompts"): not selectable.
    Header(&'static str),
    /// The entry at this rank.
    Entry(usize),
}

/// The header over the prompts used last.
pub const RECENT: &str = "Recent";
/// The header over the rest, after the recent ones.
pub const ALL: &str = "All prompts";

/// The menu's row `at`: on an empty search with `recent` prompts first, those under
/// "Recent", then the rest under "All prompts"; else the ranked entries alone. `None` past
/// the end.
pub fn row_at(at: usize, recent: usize, ranked: usize) -> Option<MenuRow> {
    let row = match recent {
        0 => MenuRow::Entry(at),
        _ if at == 0 => MenuRow::Header(RECENT),
        _ if at <= recent => MenuRow::Entry(at - 1),
        // Every prompt is a recent one: no second header, nothing after.
        _ if recent >= ranked => return None,
        _ if at == recent + 1 => MenuRow::Header(ALL),
        _ => MenuRow::Entry(at - 2),
    };
    match row {
        MenuRow::Entry(rank) if rank >= ranked => None,
        row => Some(row),
    }
}

/// The row the entry at `rank` is drawn on: its rank plus the headers above it.
pub fn row_of(rank: usize, recent: usize) -> usize {
    match recent {
        0 => rank,
        _ if rank < recent => rank + 1,
        _ => rank + 2,
    }
}

/// The screen width from which the review's export preview goes beside the messages; on a
/// narrower screen it takes the whole area (p or Esc goes back).
pub const PREVIEW_BESIDE: u16 = 110;

/// The review's parts inside the main area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReviewAreas {
    /// The line naming the prompt.
    pub header: Rect,
    /// Everything between the header and the bottom line (the editor's area).
    pub body: Rect,
    /// The messages (empty while the preview takes the whole body).
    pub messages: Rect,
    /// The export preview with its border (empty when it is hidden).
    pub preview: Rect,
    /// The one-line input or question at the bottom (empty when there is none).
    pub bottom: Rect,
}

/// How the review splits `main`: a `bottom_line` for an input or a question, and the export
/// `preview` beside the messages on a wide screen, instead of them on a narrow one.
pub fn review(main: Rect, bottom_line: bool, preview: bool) -> ReviewAreas {
    let [header, body, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(u16::from(bottom_line)),
    ])
    .areas(main);
    let (messages, preview) = if !preview {
        (body, Rect::default())
    } else if body.width >= PREVIEW_BESIDE {
        let [m, p] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(body);
        (m, p)
    } else {
        (Rect::default(), body)
    };
    ReviewAreas {
        header,
        body,
        messages,
        preview,
        bottom,
    }
}

/// The main area of a terminal of `columns` × `rows`; none when it is too small to draw in.
pub fn main_area(columns: u16, rows: u16) -> Option<Rect> {
    screen(Rect::new(0, 0, columns, rows)).map(|[main, _, _]| main)
}

/// The screen width from which the form's live preview goes beside the fields; on a
/// narrower screen it goes below them (the fields first).
pub const FORM_PREVIEW_BESIDE: u16 = 100;
/// Rows of the main area below which a narrow form shows no preview under its fields.
const FORM_PREVIEW_BELOW_FROM: u16 = 16;

/// The form's parts inside the main area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FormAreas {
    /// The header, fields and footer.
    pub form: Rect,
    /// The live preview with its border (empty when it is off or there is no room).
    pub preview: Rect,
}

/// How the form splits `main`: the preview (when `preview` is on) beside the fields on a
/// wide screen, below them on a narrow one, taking what the fields leave (at least a third
/// of the rows); `value_lines` is how many lines each field's value has.
pub fn form(preview: bool, value_lines: impl IntoIterator<Item = usize>, main: Rect) -> FormAreas {
    if !preview {
        return FormAreas {
            form: main,
            preview: Rect::default(),
        };
    }
    if main.width >= FORM_PREVIEW_BESIDE {
        // A column apart, so the form's text never runs into the pane's border.
        let [f, p] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .spacing(1)
            .areas(main);
        return FormAreas {
            form: f,
            preview: p,
        };
    }
    if main.height < FORM_PREVIEW_BELOW_FROM {
        return FormAreas {
            form: main,
            preview: Rect::default(),
        };
    }
    // Header (3) and footer (2), and each field's label and box (as `ui::form` draws them).
    let fields: u16 = value_lines
        .into_iter()
        .map(|lines| 3 + lines.clamp(1, 6) as u16)
        .sum();
    let natural = 5 + fields.max(2);
    let preview = main
        .height
        .saturating_sub(natural)
        .max(main.height / 3)
        .min(main.height - 8);
    let [f, p] = Layout::vertical([Constraint::Fill(1), Constraint::Length(preview)]).areas(main);
    FormAreas {
        form: f,
        preview: p,
    }
}
