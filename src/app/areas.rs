//! Where the menu's and the form's parts are on this app's screen, from the layout's
//! geometry and the app's state: what drawing and `update` (PgUp/PgDn's page, which row a
//! click hit) both ask.

use ratatui::layout::{Constraint, Layout, Rect};

use super::layout::{
    DETAILS_BELOW, FormAreas, MenuAreas, MenuRow, NARROW_DETAILS_FROM, SIDE_BY_SIDE, row_at,
    row_of, screen,
};
use super::{App, FormState, Screen};

/// How the menu splits `main`.
pub fn menu(app: &App, main: Rect) -> MenuAreas {
    let banner = if app.offer.is_empty() { 0 } else { 2 };
    let [search, offer, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(banner),
        Constraint::Fill(1),
    ])
    .areas(main);
    let (list, details) = if body.width >= SIDE_BY_SIDE {
        let [l, d] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)])
            .areas(body);
        (l, d)
    } else if body.height < NARROW_DETAILS_FROM {
        // A few rows (inline `--height`): the list needs them all.
        (body, Rect::default())
    } else {
        let [l, d] =
            Layout::vertical([Constraint::Fill(1), Constraint::Length(DETAILS_BELOW)]).areas(body);
        (l, d)
    };
    MenuAreas {
        search,
        offer,
        list,
        details,
    }
}

/// The menu's list area at the app's drawing size (empty when the terminal is too small).
pub fn menu_list(app: &App) -> Rect {
    let (columns, rows) = app.size;
    screen(Rect::new(0, 0, columns, rows))
        .map(|[main, _, _]| menu(app, main).list)
        .unwrap_or_default()
}

/// The menu's details pane at the app's drawing size (empty when there is no room).
pub fn menu_details(app: &App) -> Rect {
    let (columns, rows) = app.size;
    screen(Rect::new(0, 0, columns, rows))
        .map(|[main, _, _]| menu(app, main).details)
        .unwrap_or_default()
}

/// The first list row shown in `height` rows: the app's last one, scrolled only as far as
/// the selection needs (so a click does not move the row under the mouse), with the header
/// over the selection in view too.
pub fn first_row(app: &App, height: usize) -> usize {
    let recent = app.recent_rows();
    let ranked = app.menu.ranked.len();
    let rows = match recent {
        0 => ranked,
        // Every prompt is a recent one: one header.
        _ if recent >= ranked => ranked + 1,
        _ => ranked + 2,
    };
    let selected = row_of(app.menu.selected, recent);
    let mut top = app.menu.top.min(rows.saturating_sub(height));
    let header_above = recent > 0 && (app.menu.selected == 0 || app.menu.selected == recent);
    top = top.min(selected.saturating_sub(usize::from(header_above)));
    if height > 0 && selected >= top + height {
        top = selected + 1 - height;
    }
    top
}

/// The rank of the entry drawn at terminal cell (`column`, `row`) of the app's screen, if
/// a prompt is there (not a header, not outside the list).
pub fn entry_at(app: &App, column: u16, row: u16) -> Option<usize> {
    let list = menu_list(app);
    if !list.contains(ratatui::layout::Position::new(column, row)) {
        return None;
    }
    let at = first_row(app, list.height as usize) + usize::from(row - list.y);
    match row_at(at, app.recent_rows(), app.menu.ranked.len())? {
        MenuRow::Entry(rank) => Some(rank),
        MenuRow::Header(_) => None,
    }
}

/// The form's live preview pane at the app's drawing size (empty when not shown).
pub fn form_preview_on_screen(app: &App) -> Rect {
    let Screen::Form(form) = &app.screen else {
        return Rect::default();
    };
    let (columns, rows) = app.size;
    screen(Rect::new(0, 0, columns, rows))
        .map(|[main, _, _]| form_areas(form, main).preview)
        .unwrap_or_default()
}

/// How `form` splits `main` between its fields and its live preview.
pub fn form_areas(form: &FormState, main: Rect) -> FormAreas {
    let value_lines = form.fields.iter().map(|f| f.editor.lines().len());
    super::layout::form(form.preview.enabled, value_lines, main)
}
