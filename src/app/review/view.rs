//! What the review shows and how it moves: the messages' rows per width, the export
//! preview's rows, scrolling, paging and the wheel.

use crate::app::ReviewState;
use crate::app::review::{
    FOLDED_LINES, MAX_PAGE_TRAIL, MessagesView, PagePlace, PreviewCache, PreviewView, SCROLL_OFF,
    ViewRow, export_rows, preview_inner,
};
use crate::export::{self, Format};
use ratatui::text::Line;

impl ReviewState {
    /// The messages pane laid out in the area the review draws it in.
    pub fn messages_view(&self) -> MessagesView {
        let area = self.areas_on_screen().messages;
        self.messages_view_in(area.width, area.height)
    }

    /// The messages pane laid out in `columns` × `rows`: every message whole when they
    /// all fit, else the unselected ones folded to [`FOLDED_LINES`]; the selected one
    /// from its scroll, as much as fits under the rows kept above it; the first row shown
    /// scrolled from the last one drawn only as far as keeping the selected message and
    /// [`SCROLL_OFF`] rows around it in view needs, and never past a full last page.
    pub fn messages_view_in(&self, columns: u16, rows: u16) -> MessagesView {
        let height = usize::from(rows);
        let width = usize::from(columns).saturating_sub(2).max(10);
        let count = self.items.len();
        let selected = self.selected.min(count.saturating_sub(1));
        // An image's picture takes rows under its caption (drawn over by ui::review).
        let lens: Vec<usize> = self
            .items
            .iter()
            .map(|i| i.rows(width).len() + self.pictures.reserved_rows(&i.message().content, width))
            .collect();
        let whole = lens.iter().map(|l| 1 + l).sum::<usize>() + count.saturating_sub(1);
        let fold = whole > height;
        let folds = |i: usize| fold && lens[i] > FOLDED_LINES + 1;
        let block = |i: usize| 1 + if folds(i) { FOLDED_LINES + 1 } else { lens[i] };
        let context = SCROLL_OFF.min(height / 2);
        let above = if selected > 0 {
            (block(selected - 1) + 1).min(context)
        } else {
            0
        };
        let below = if selected + 1 < count {
            (1 + block(selected + 1)).min(context)
        } else {
            0
        };
        let selected_len = lens.get(selected).copied().unwrap_or(0);
        // Room is left for the gap and the next message's header, so what comes next
        // shows too.
        let next_header = if selected + 1 < count { 2 } else { 0 };
        let window = if fold {
            height.saturating_sub(1 + above + next_header).max(1)
        } else {
            selected_len.max(1)
        };
        let max_scroll = selected_len.saturating_sub(window);
        let scroll = self.scroll.min(max_scroll);
        let mut view_rows = Vec::with_capacity(whole.min(count * (FOLDED_LINES + 3) + window));
        let mut headers = Vec::with_capacity(count);
        for (index, &len) in lens.iter().enumerate() {
            if index > 0 {
                view_rows.push(ViewRow::Gap);
            }
            headers.push(view_rows.len());
            view_rows.push(ViewRow::Header(index));
            let body = |row| ViewRow::Body { index, row };
            if index == selected {
                let remaining = len - scroll;
                if remaining <= window {
                    view_rows.extend((scroll..len).map(body));
                } else {
                    // The last row says how much is left.
                    view_rows.extend((scroll..scroll + window - 1).map(body));
                    view_rows.push(ViewRow::More(remaining - (window - 1)));
                }
            } else if folds(index) {
                view_rows.extend((0..FOLDED_LINES).map(body));
                view_rows.push(ViewRow::Folded(len - FOLDED_LINES));
            } else {
                view_rows.extend((0..len).map(body));
            }
        }
        let total = view_rows.len();
        let top = match headers.get(selected) {
            None => 0,
            Some(&start) => {
                let end = headers.get(selected + 1).map_or(total, |next| next - 1);
                self.top
                    .max((end + below).saturating_sub(height))
                    .min(start - above)
                    .min(total.saturating_sub(height))
            }
        };
        MessagesView {
            rows: view_rows,
            top,
            height,
            width,
            headers,
            window,
            max_scroll,
            scroll,
        }
    }

    /// The export's rows wrapped at `width`, as the preview draws them: the markdown
    /// format rendered (unless `m` asked for its source), the JSON ones highlighted with
    /// their base64 folded. Laid out again only when the export or the layout changed.
    pub fn preview_rows(&self, width: usize) -> std::sync::Arc<Vec<Line<'static>>> {
        let export = self.export();
        let key = (
            self.format,
            width,
            self.preview_raw,
            crate::render::highlight::ready().is_some(),
        );
        let mut cache = self.preview_cache.borrow_mut();
        if let Some(cached) = cache.as_ref()
            && cached.key == key
            && cached.export == export
        {
            return std::sync::Arc::clone(&cached.rows);
        }
        let rows = std::sync::Arc::new(self.layout_export(&export, width));
        *cache = Some(PreviewCache {
            key,
            export,
            rows: std::sync::Arc::clone(&rows),
        });
        rows
    }

    /// `export` (of this review's format) laid out as the preview draws it.
    pub(in crate::app) fn layout_export(&self, export: &str, width: usize) -> Vec<Line<'static>> {
        match self.format {
            Format::Markdown if !self.preview_raw => crate::render::markdown::render(export, width),
            Format::McpJson | Format::OpenAi | Format::Anthropic => {
                crate::render::json::preview_rows(export, width)
            }
            Format::Markdown | Format::Text => export_rows(export, width)
                .into_iter()
                .map(Line::from)
                .collect(),
        }
    }

    /// The export preview laid out in the area the review draws it in (empty when hidden).
    pub fn preview_view(&self) -> PreviewView {
        self.preview_view_in(self.areas_on_screen().preview)
    }

    /// The export preview laid out in `area` (its border included): what the draw shows
    /// and what scrolling counts with.
    pub fn preview_view_in(&self, area: ratatui::layout::Rect) -> PreviewView {
        let (width, height) = preview_inner(area);
        let rows = if area.is_empty() {
            Default::default()
        } else {
            self.preview_rows(width)
        };
        let top = self.preview_scroll.min(rows.len().saturating_sub(height));
        PreviewView { rows, top, height }
    }

    /// The preview row where message `index`'s export starts: the rows of the lines the
    /// export of the messages before it shares with the whole export.
    pub(in crate::app) fn preview_start(&self, index: usize, width: usize) -> usize {
        if index == 0 {
            return 0;
        }
        let mut before = self.current();
        before.messages.truncate(index);
        let before = export::render(&before, self.format);
        if self.format == Format::Markdown && !self.preview_raw {
            // Rendered, rows do not follow lines: the rows of what comes before, and the
            // empty one after it.
            return self.layout_export(&before, width).len() + 1;
        }
        let all = self.export();
        all.lines()
            .zip(before.lines())
            .take_while(|(a, b)| a == b)
            .map(|(line, _)| crate::text::wrap(&crate::text::display_line(line), width).len())
            .sum()
    }

    /// Whether keys (and the wheel) act on the preview: it takes the whole area, or has
    /// the focus beside the messages.
    pub fn preview_has_keys(&self) -> bool {
        let areas = self.areas_on_screen();
        self.preview
            && self.editor.is_none()
            && !areas.preview.is_empty()
            && (areas.messages.is_empty() || self.preview_focused)
    }

    /// Whether the preview takes the whole area (a narrow screen).
    pub fn preview_is_alone(&self) -> bool {
        let areas = self.areas_on_screen();
        self.preview && !areas.preview.is_empty() && areas.messages.is_empty()
    }

    /// Scrolls the preview `by` rows (negative: up), within its rows. `page` gives the
    /// rows for a view's height, so the export is laid out once per key.
    pub(in crate::app) fn scroll_preview(&mut self, by: impl FnOnce(usize) -> isize) {
        let view = self.preview_view();
        let last = view.rows.len().saturating_sub(view.height);
        let page = view.height.saturating_sub(1).max(1);
        self.preview_scroll = view.top.saturating_add_signed(by(page)).min(last);
    }

    /// The mouse wheel: scrolls the preview when it has the keys; else the selected
    /// message, then moves to the next or previous.
    pub(in crate::app) fn wheel(&mut self, up: bool) {
        const WHEEL_STEP: usize = 3;
        if self.preview_has_keys() {
            self.scroll_preview(|_| if up { -3 } else { 3 });
            return;
        }
        let view = self.messages_view();
        if up {
            if view.scroll == 0 && self.selected > 0 {
                self.selected -= 1;
            } else {
                self.scroll = view.scroll.saturating_sub(WHEEL_STEP);
            }
        } else if view.scroll < view.max_scroll {
            self.scroll = (view.scroll + WHEEL_STEP).min(view.max_scroll);
        } else if self.selected + 1 < self.items.len() {
            self.selected += 1;
            self.scroll = 0;
        }
    }

    /// PgDn (`down`) or PgUp: scrolls the selected message by a window when it has more
    /// that way, else selects the message a page further, as a pager pages.
    pub(in crate::app) fn page(&mut self, down: bool) {
        let before = self.page_place();
        if !down {
            // Back from where a PgDn ended: exactly where it started.
            // (The first row drawn may have settled since; the place is the message and
            // the scroll in it.)
            if let Some(&(start, end)) = self.page_trail.last()
                && (end.0, end.1) == (before.0, before.1)
            {
                self.page_trail.pop();
                (self.selected, self.scroll, self.top) = start;
                return;
            }
            self.page_trail.clear();
        }
        self.page_by_layout(down);
        if down {
            let after = self.page_place();
            if after != before {
                // Bounded: a trail back through a 100,000-row review is not kept whole.
                if self.page_trail.len() == MAX_PAGE_TRAIL {
                    self.page_trail.remove(0);
                }
                self.page_trail.push((before, after));
            }
        }
    }

    /// Where the review is: the selected message, the scroll in it, the first row drawn.
    pub(in crate::app) fn page_place(&self) -> PagePlace {
        (self.selected, self.scroll, self.top)
    }

    /// PgDn or PgUp from the layout alone (no PgDn to go back over).
    pub(in crate::app) fn page_by_layout(&mut self, down: bool) {
        let view = self.messages_view();
        let step = view.window.saturating_sub(1).max(1);
        let count = self.items.len();
        if count == 0 {
            return;
        }
        if down {
            if view.scroll < view.max_scroll {
                self.scroll = (view.scroll + step).min(view.max_scroll);
            } else if self.selected + 1 < count {
                // The first message whose header is below the screen, near the top of
                // the next page.
                let next = first_below(&view, self.selected);
                self.land_at(next);
            }
        } else if view.scroll > 0 {
            self.scroll = view.scroll.saturating_sub(step);
        } else if self.selected > 0 {
            // PgDn backwards: the first row goes up as far as PgDn takes it down (a page
            // less the rows kept above the selected message), at the first message whose
            // header is then where PgDn puts one. The rows above the first row shown are
            // laid out alike whichever message below is selected, so this is a page.
            let context = SCROLL_OFF.min(view.height / 2);
            let top = view.top.saturating_sub(view.height.saturating_sub(context));
            let above = if top == 0 {
                0
            } else {
                (0..self.selected)
                    .find(|&i| view.headers[i] >= top + context)
                    .unwrap_or(self.selected - 1)
            };
            self.land_at(above);
        }
    }

    /// Selects message `index` as PgDn lands on one: its header `SCROLL_OFF` rows below
    /// the top (or the top row 0 for the first).
    pub(in crate::app) fn land_at(&mut self, index: usize) {
        self.selected = index;
        self.scroll = 0;
        self.top = 0;
        let view = self.messages_view();
        self.top = view.headers[index].saturating_sub(SCROLL_OFF.min(view.height / 2));
        self.top = self.messages_view().top;
    }
}

/// The first message after `selected` whose header is below what `view` shows (the last
/// message when none is): where PgDn goes.
pub(in crate::app) fn first_below(view: &MessagesView, selected: usize) -> usize {
    let below = view.top + view.height;
    let count = view.headers.len();
    (selected + 1..count)
        .find(|&i| view.headers[i] >= below)
        .unwrap_or(count.saturating_sub(1))
}
