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

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::buffer::Buffer;
    use ratatui::style::{Color, Modifier, Style};

    use super::Theme;
    use crate::app::App;
    use crate::app::tests::ready_app;
    use crate::config::ThemeColors;

    fn every_style(theme: &Theme) -> [Style; 10] {
        [
            theme.accent(),
            theme.dim(),
            theme.error(),
            theme.ok(),
            theme.busy(),
            theme.selected(),
            theme.matched(),
            theme.key(),
            theme.role(false),
            theme.role(true),
        ]
    }

    #[test]
    fn the_dark_base_is_the_styles_mcpick_always_had() {
        let bold = Modifier::BOLD;
        assert_eq!(
            every_style(&Theme::new(true, ThemeColors::dark())),
            [
                Style::new().fg(Color::Cyan).add_modifier(bold),
                Style::new().fg(Color::DarkGray),
                Style::new().fg(Color::Red).add_modifier(bold),
                Style::new().fg(Color::Green),
                Style::new().fg(Color::Yellow),
                Style::new().bg(Color::Indexed(237)).add_modifier(bold),
                Style::new().fg(Color::Yellow).add_modifier(bold),
                Style::new().fg(Color::Cyan),
                Style::new().fg(Color::Blue).add_modifier(bold),
                Style::new().fg(Color::Magenta).add_modifier(bold),
            ]
        );
    }

    #[test]
    fn no_color_wins_over_any_theme_and_keeps_the_modifiers() {
        let loud = ThemeColors {
            accent: Color::Rgb(255, 0, 0),
            selection: Color::Rgb(0, 255, 0),
            ..ThemeColors::light()
        };
        for colors in [ThemeColors::dark(), ThemeColors::light(), loud] {
            let styles = every_style(&Theme::new(false, colors));
            for style in styles {
                assert_eq!((style.fg, style.bg), (None, None), "{style:?}");
            }
            assert!(styles[0].add_modifier.contains(Modifier::BOLD));
            assert!(styles[5].add_modifier.contains(Modifier::REVERSED));
            assert!(styles[6].add_modifier.contains(Modifier::UNDERLINED));
        }
    }

    fn drawn(app: &App) -> Buffer {
        let mut terminal = Terminal::new(TestBackend::new(100, 20)).unwrap();
        terminal.draw(|frame| crate::ui::draw(app, frame)).unwrap();
        terminal.backend().buffer().clone()
    }

    #[test]
    fn the_configured_colours_reach_the_screen_unless_no_color() {
        let accent = Color::Rgb(0x12, 0x34, 0x56);
        let selection = Color::Rgb(0xab, 0xcd, 0xef);
        let key = Color::Indexed(99);
        let mut app = ready_app();
        app.options.theme = ThemeColors {
            accent,
            selection,
            key,
            ..ThemeColors::dark()
        };
        let buffer = drawn(&app);
        let cells = || buffer.content().iter();
        // The search line's `❯` is drawn in the accent.
        let prompt = cells()
            .find(|c| c.symbol() == "❯")
            .expect("a search prompt");
        assert_eq!(prompt.fg, accent);
        assert!(cells().any(|c| c.bg == selection), "no selected row");
        assert!(cells().any(|c| c.fg == key), "no key in the hint line");
        // Nothing is drawn in dark's cyan once both roles that use it are set.
        assert!(!cells().any(|c| c.fg == Color::Cyan), "dark's cyan left");

        app.options.color = false;
        let buffer = drawn(&app);
        assert!(
            buffer
                .content()
                .iter()
                .all(|c| c.fg == Color::Reset && c.bg == Color::Reset),
            "a colour was drawn with colour off"
        );
    }
}
