//! The logs pane's state and keys: which lines it shows, its filter, and each server's
//! lines kept apart from mcpick's notes about it.

use super::keys::is_typing;
use crate::app::{Action, Notice, ServerStatus, line};
use crate::model::{LogLine, ServerId};
use crossterm::event::{KeyCode, KeyEvent};
use std::collections::{BTreeMap, VecDeque};

/// What the logs pane shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogsView {
    /// Only this server's lines, or all.
    pub server: Option<ServerId>,
    /// mcpick's own notices instead of the servers' lines (the tab after the last server).
    pub notices: bool,
    /// Lines scrolled up from the newest (0 follows new lines).
    pub scroll_from_bottom: usize,
    /// Only lines holding this text are shown (case-insensitive; empty shows all).
    pub filter: line::LineEditor,
    /// Whether keys edit the filter (after `/`, until Enter or Esc).
    pub editing_filter: bool,
}

/// A server's lines as the logs pane keeps them: its own (stderr, log messages), the
/// connection's notes about it, and the app's events (connecting, ready, failed,
/// restarting, list changed), each in a bounded ring of its own, so a flood of the one
/// never pushes out the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerLines {
    own: VecDeque<crate::mcp::log::Numbered>,
    notes: VecDeque<crate::mcp::log::Numbered>,
    /// The app's own events: kept when a snapshot of the connection's log replaces the rest.
    events: VecDeque<crate::mcp::log::Numbered>,
    /// The next line's place in arrival order.
    next: u64,
}

impl ServerLines {
    /// Keeps `line` in its ring, dropping that ring's oldest when full.
    pub fn push(&mut self, line: LogLine) {
        let numbered = (self.next, line);
        self.next += 1;
        if numbered.1.source == crate::mcp::MCPICK_SOURCE {
            crate::mcp::push_bounded(&mut self.notes, numbered, NOTES_PER_SERVER);
        } else {
            crate::mcp::push_bounded(&mut self.own, numbered, LOG_LINES_PER_SERVER);
        }
    }

    /// Keeps one of the app's events about the server (said as mcpick's).
    pub fn push_event(&mut self, line: LogLine) {
        let numbered = (self.next, line);
        self.next += 1;
        crate::mcp::push_bounded(&mut self.events, numbered, NOTES_PER_SERVER);
    }

    /// Every kept line, the rings merged in time order, oldest first. The times are one
    /// timeline (the app stamps its events with the clock the servers' lines carry), so a
    /// stderr line read before a failure is shown before it even when it arrived after;
    /// lines of one time keep their arrival order.
    pub fn iter(&self) -> impl Iterator<Item = &LogLine> {
        let mut all: Vec<&crate::mcp::log::Numbered> = self
            .own
            .iter()
            .chain(&self.notes)
            .chain(&self.events)
            .collect();
        all.sort_by_key(|(number, line)| (line.at_ms, *number));
        all.into_iter().map(|(_, line)| line)
    }

    /// How many lines are kept.
    pub fn len(&self) -> usize {
        self.own.len() + self.notes.len() + self.events.len()
    }

    /// Whether no line is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The connection's whole kept log in place of its lines seen so far (after a flood
    /// dropped some on the way); the app's events stay, placed among them by time.
    pub fn replace_with(&mut self, lines: Vec<LogLine>) {
        let events: Vec<LogLine> = std::mem::take(&mut self.events)
            .into_iter()
            .map(|(_, line)| line)
            .collect();
        self.own.clear();
        self.notes.clear();
        self.next = 0;
        let mut events = events.into_iter().peekable();
        for line in lines {
            while let Some(event) = events.next_if(|e| e.at_ms <= line.at_ms) {
                self.push_event(event);
            }
            self.push(line);
        }
        for event in events {
            self.push_event(event);
        }
    }
}

/// Whether a logs-pane line holds `filter` (case-insensitive) in its text or source; an
/// empty filter holds every line.
pub fn log_matches(filter: &str, source: &str, text: &str) -> bool {
    if filter.is_empty() {
        return true;
    }
    let filter = filter.to_lowercase();
    text.to_lowercase().contains(&filter) || source.to_lowercase().contains(&filter)
}

/// A note of mcpick's about a server, said at `at_ms` since the run began.
pub(super) fn mcpick_line(text: String, at_ms: u64) -> LogLine {
    LogLine {
        source: crate::mcp::MCPICK_SOURCE.into(),
        text,
        at_ms,
    }
}

pub(super) fn push_log(lines: &mut ServerLines, line: LogLine) {
    lines.push(line);
}

/// A key while the pane's filter line is being edited: the line takes typing and its
/// editing keys, Enter keeps the filter, Esc clears it. Whether the key was the line's
/// (other keys, such as arrows, Tab and Ctrl-C, still act on the pane).
pub(super) fn filter_key(view: &mut LogsView, key: KeyEvent) -> bool {
    match key.code {
        KeyCode::Enter => {
            view.editing_filter = false;
            true
        }
        KeyCode::Esc => {
            view.filter.clear();
            view.editing_filter = false;
            view.scroll_from_bottom = 0;
            true
        }
        _ => {
            let before = view.filter.clone();
            if view.filter.key(key) {
                view.scroll_from_bottom = 0;
            }
            // A cursor move is the line's too, as is any typed character.
            view.filter != before || is_typing(&key)
        }
    }
}

pub(super) fn logs_action(
    view: &mut LogsView,
    action: Action,
    logs: &BTreeMap<ServerId, ServerLines>,
    servers: &[ServerStatus],
    notices: &VecDeque<Notice>,
) {
    let filter = view.filter.text();
    let shown = |lines: &ServerLines| {
        lines
            .iter()
            .filter(|l| log_matches(filter, &l.source, &l.text))
            .count()
    };
    let total: usize = match &view.server {
        _ if view.notices => notices
            .iter()
            .filter(|n| log_matches(filter, "", &n.text))
            .count(),
        Some(s) => logs.get(s).map_or(0, shown),
        None => logs.values().map(shown).sum(),
    };
    match action {
        Action::Filter => view.editing_filter = true,
        Action::Up => {
            view.scroll_from_bottom = (view.scroll_from_bottom + 1).min(total.saturating_sub(1))
        }
        Action::Down => view.scroll_from_bottom = view.scroll_from_bottom.saturating_sub(1),
        Action::PageUp => {
            view.scroll_from_bottom = (view.scroll_from_bottom + 10).min(total.saturating_sub(1))
        }
        Action::PageDown => view.scroll_from_bottom = view.scroll_from_bottom.saturating_sub(10),
        Action::Home => view.scroll_from_bottom = total.saturating_sub(1),
        Action::End => view.scroll_from_bottom = 0,
        Action::NextServer => {
            // All servers, each server, mcpick's notices, then all again.
            let names: Vec<&ServerId> = servers.iter().map(|s| &s.name).collect();
            let next = match (&view.server, view.notices) {
                (_, true) => None,
                (None, false) => names.first().map(|s| s.to_string()),
                (Some(current), false) => names
                    .iter()
                    .position(|n| *n == current)
                    .and_then(|i| names.get(i + 1))
                    .map(|s| s.to_string()),
            };
            view.notices =
                !view.notices && next.is_none() && (view.server.is_some() || names.is_empty());
            view.server = next;
            view.scroll_from_bottom = 0;
        }
        _ => {}
    }
}

/// A server's own lines kept per server in the logs pane.
pub(crate) const LOG_LINES_PER_SERVER: usize = 1000;

/// mcpick's notes kept per server in the logs pane, apart from the server's lines.
pub(crate) const NOTES_PER_SERVER: usize = 200;
