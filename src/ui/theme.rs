//! Styles, with and without colour (`NO_COLOR`), in the config's `[theme]` colours.

use ratatui::style::{Modifier, Style};

use crate::config::ThemeColors;

/// The styles of one run.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    color: bool,
    colors: ThemeColors,
}

impl Theme {
    /// `colors` when `color`, else bold, dim, reverse and underline only (`NO_COLOR` wins
    /// over any theme).
    pub fn new(color: bool, colors: ThemeColors) -> Theme {
        Theme { color, colors }
    }

    fn pick(&self, colored: Style, plain: Style) -> Style {
        if self.color { colored } else { plain }
    }

    /// Titles and focused borders.
    pub fn accent(&self) -> Style {
        self.pick(
            Style::new()
                .fg(self.colors.accent)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Secondary text.
    pub fn dim(&self) -> Style {
        self.pick(
            Style::new().fg(self.colors.muted),
            Style::new().add_modifier(Modifier::DIM),
        )
    }

    /// Failures and required marks.
    pub fn error(&self) -> Style {
        self.pick(
            Style::new()
                .fg(self.colors.error)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    /// Good news.
    pub fn ok(&self) -> Style {
        self.pick(Style::new().fg(self.colors.ok), Style::new())
    }

    /// Something in progress, or a warning.
    pub fn busy(&self) -> Style {
        self.pick(Style::new().fg(self.colors.warning), Style::new())
    }

    /// The selected row.
    pub fn selected(&self) -> Style {
        self.pick(
            Style::new()
                .bg(self.colors.selection)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// Characters the query matched.
    pub fn matched(&self) -> Style {
        self.pick(
            Style::new()
                .fg(self.colors.matched)
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
        )
    }

    /// Keys in the hint line.
    pub fn key(&self) -> Style {
        self.pick(
            Style::new().fg(self.colors.key),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Role labels.
    pub fn role(&self, assistant: bool) -> Style {
        if assistant {
            self.pick(
                Style::new()
                    .fg(self.colors.assistant)
                    .add_modifier(Modifier::BOLD),
                Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
            )
        } else {
            self.pick(
                Style::new()
                    .fg(self.colors.user)
                    .add_modifier(Modifier::BOLD),
                Style::new().add_modifier(Modifier::BOLD),
            )
        }
    }
}
