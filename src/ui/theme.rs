//! Styles, with and without colour (`NO_COLOR`).

use ratatui::style::{Color, Modifier, Style};

/// The styles of one run.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// Colours when `color`, else bold, dim, reverse and underline only.
    pub fn new(color: bool) -> Theme {
        Theme { color }
    }

    fn pick(&self, colored: Style, plain: Style) -> Style {
        if self.color { colored } else { plain }
    }

    /// Titles and focused borders.
    pub fn accent(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Secondary text.
    pub fn dim(&self) -> Style {
        self.pick(
            Style::new().fg(Color::DarkGray),
            Style::new().add_modifier(Modifier::DIM),
        )
    }

    /// Failures and required marks.
    pub fn error(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }

    /// Good news.
    pub fn ok(&self) -> Style {
        self.pick(Style::new().fg(Color::Green), Style::new())
    }

    /// Something in progress, or a warning.
    pub fn busy(&self) -> Style {
        self.pick(Style::new().fg(Color::Yellow), Style::new())
    }

    /// The selected row.
    pub fn selected(&self) -> Style {
        self.pick(
            Style::new()
                .bg(Color::Indexed(237))
                .add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::REVERSED),
        )
    }

    /// Characters the query matched.
    pub fn matched(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Style::new().add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
        )
    }

    /// Keys in the hint line.
    pub fn key(&self) -> Style {
        self.pick(
            Style::new().fg(Color::Cyan),
            Style::new().add_modifier(Modifier::BOLD),
        )
    }

    /// Role labels.
    pub fn role(&self, assistant: bool) -> Style {
        if assistant {
            self.pick(
                Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
                Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
            )
        } else {
            self.pick(
                Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
                Style::new().add_modifier(Modifier::BOLD),
            )
        }
    }
}
