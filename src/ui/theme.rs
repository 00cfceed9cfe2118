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

    /// A row of rendered content as drawn: without colours under `NO_COLOR` (and in the
    /// high-contrast base, without dim marks too: the terminal's own ink), in inks
    /// for a light background under a light base, else with its dimmest colours lifted
    /// to read on a dark one.
    pub fn ink(&self, line: ratatui::text::Line<'static>) -> ratatui::text::Line<'static> {
        if !self.color {
            crate::render::without_colors(line)
        } else if self.colors.high_contrast {
            crate::render::in_terminal_ink(line)
        } else if self.colors.light {
            crate::render::for_light_background(line)
        } else {
            crate::render::for_dark_background(line)
        }
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
pub(crate) mod tests {
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
    fn the_dark_base_is_the_styles_mcpick_had_with_readable_grey_red_blue_and_magenta() {
        let bold = Modifier::BOLD;
        assert_eq!(
            every_style(&Theme::new(true, ThemeColors::dark())),
            [
                Style::new().fg(Color::Cyan).add_modifier(bold),
                Style::new().fg(Color::Indexed(245)),
                Style::new().fg(Color::Indexed(203)).add_modifier(bold),
                Style::new().fg(Color::Green),
                Style::new().fg(Color::Yellow),
                Style::new().bg(Color::Indexed(237)).add_modifier(bold),
                Style::new().fg(Color::Yellow).add_modifier(bold),
                Style::new().fg(Color::Cyan),
                Style::new().fg(Color::Indexed(75)).add_modifier(bold),
                Style::new().fg(Color::Indexed(170)).add_modifier(bold),
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

    /// The sRGB of a cell colour as a terminal with xterm's palette draws it; `Reset` is
    /// the base's own foreground or background.
    fn rgb(color: Color, fallback: (u8, u8, u8)) -> (u8, u8, u8) {
        const ANSI: [(u8, u8, u8); 16] = [
            (0, 0, 0),
            (205, 0, 0),
            (0, 205, 0),
            (205, 205, 0),
            (0, 0, 238),
            (205, 0, 205),
            (0, 205, 205),
            (229, 229, 229),
            (127, 127, 127),
            (255, 0, 0),
            (0, 255, 0),
            (255, 255, 0),
            (92, 92, 255),
            (255, 0, 255),
            (0, 255, 255),
            (255, 255, 255),
        ];
        let indexed = |i: u8| match i {
            0..=15 => ANSI[i as usize],
            _ => crate::render::indexed_rgb(i),
        };
        match color {
            Color::Reset => fallback,
            Color::Black => ANSI[0],
            Color::Red => ANSI[1],
            Color::Green => ANSI[2],
            Color::Yellow => ANSI[3],
            Color::Blue => ANSI[4],
            Color::Magenta => ANSI[5],
            Color::Cyan => ANSI[6],
            Color::Gray => ANSI[7],
            Color::DarkGray => ANSI[8],
            Color::LightRed => ANSI[9],
            Color::LightGreen => ANSI[10],
            Color::LightYellow => ANSI[11],
            Color::LightBlue => ANSI[12],
            Color::LightMagenta => ANSI[13],
            Color::LightCyan => ANSI[14],
            Color::White => ANSI[15],
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Indexed(i) => indexed(i),
        }
    }

    fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
        let l = |(r, g, b): (u8, u8, u8)| {
            crate::render::relative_luminance(f64::from(r), f64::from(g), f64::from(b))
        };
        let (hi, lo) = if l(a) > l(b) {
            (l(a), l(b))
        } else {
            (l(b), l(a))
        };
        (hi + 0.05) / (lo + 0.05)
    }

    /// A review of Markdown with highlighted code, inline code, a table and a link, beside
    /// its JSON preview: what the renderers colour.
    fn rendered_review(colors: ThemeColors) -> App {
        use crate::app::tests::messages;
        use crate::model::Role;
        crate::render::highlight::load();
        let text = "# Title\n\n## Section\n\n### Part\n\nSee `inline code` and [a link](https://example.com).\n\n\
            ```rust\n// a comment\nfn main() {\n    let x: u32 = 42;\n    println!(\"{x} {}\", \"text\");\n}\n```\n\n\
            ```json\n{\"key\": [1, true, null, \"s\"]}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
        let mut app = crate::app::review_tests::review_of(
            messages(&[(Role::User, text), (Role::Assistant, "`x` and **bold**")]),
            140,
            50,
        );
        app.options.theme = colors;
        app
    }

    /// A colour as red, green and blue.
    type Rgb = (u8, u8, u8);

    /// A base theme to check: its colours, and the page and ink a terminal of that base
    /// draws `Reset` with.
    pub(crate) type Base = (ThemeColors, Rgb, Rgb);

    /// The bases every screen is checked in: dark and light, and the high-contrast base
    /// on either background.
    pub(crate) fn bases() -> [Base; 4] {
        [
            (ThemeColors::dark(), (0, 0, 0), (229, 229, 229)),
            (ThemeColors::light(), (255, 255, 255), (0, 0, 0)),
            (
                ThemeColors::high_contrast_dark(),
                (0, 0, 0),
                (229, 229, 229),
            ),
            (
                ThemeColors::high_contrast_light(),
                (255, 255, 255),
                (0, 0, 0),
            ),
        ]
    }

    /// Fails where a text cell of `app` drawn at `width`×`height` in `colors` is below
    /// 4.5:1 against what it is drawn on (3:1 for secondary text: hints, the other
    /// messages dimmed; 7:1 for every cell in the high-contrast base, WCAG AAA); `page` and
    /// `ink` are what `Reset` is in that base. `what` names the
    /// screen in the failure.
    pub(crate) fn assert_readable(
        app: &mut App,
        (colors, page, ink): Base,
        (width, height): (u16, u16),
        what: &str,
    ) {
        app.options.theme = colors;
        let buffer = {
            let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
            terminal.draw(|frame| crate::ui::draw(app, frame)).unwrap();
            terminal.backend().buffer().clone()
        };
        let mut checked = 0;
        let mut worst: Vec<String> = Vec::new();
        for y in 0..buffer.area.height {
            for x in 0..buffer.area.width {
                let cell = &buffer[(x, y)];
                // Text (borders and blanks are not read).
                if !cell.symbol().chars().any(char::is_alphanumeric) {
                    continue;
                }
                let fg = rgb(cell.fg, ink);
                let bg = rgb(cell.bg, page);
                let ratio = contrast(fg, bg);
                let dimmed = cell.fg == colors.muted || cell.modifier.contains(Modifier::DIM);
                let needed = if colors.high_contrast {
                    7.0
                } else if dimmed {
                    3.0
                } else {
                    4.5
                };
                checked += 1;
                if ratio < needed {
                    worst.push(format!(
                        "{:?} at {x},{y}: {:?} on {:?} = {ratio:.2}",
                        cell.symbol(),
                        cell.fg,
                        cell.bg
                    ));
                }
            }
        }
        assert!(checked > 40, "{what}: only {checked} cells checked");
        assert!(
            worst.is_empty(),
            "{what} at {width}x{height}, light: {}, high contrast: {}: {} cells below the contrast needed, e.g.\n{}",
            colors.light,
            colors.high_contrast,
            worst.len(),
            worst
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    /// Every character drawn (the chrome, matches, the selection, highlighted code, inline
    /// code, headings, links) reaches 4.5:1 against what it is drawn on, 3:1 for secondary
    /// text, in both bases: rendered content is laid out for a dark background, and the
    /// light base draws it in inks for a light one. The high-contrast base reaches 7:1 for
    /// every cell, on a dark and on a light background. (The other screens: `ui::tests`.)
    #[test]
    fn every_text_cell_of_the_menu_form_and_review_reaches_4_5_in_both_bases() {
        for base in bases() {
            let colors = base.0;
            // The menu searching (matched letters, the selected row, the status bar), a
            // form, and the rendered review.
            let mut menu = ready_app();
            crate::app::tests::type_text(&mut menu, "pr");
            let mut form = ready_app();
            crate::app::tests::type_text(&mut form, "args-prompt");
            form.update(crate::app::tests::key(crossterm::event::KeyCode::Enter));
            for (what, mut app) in [
                ("menu", menu),
                ("form", form),
                ("review", rendered_review(colors)),
            ] {
                assert_readable(&mut app, base, (140, 50), what);
            }
        }
    }
}
