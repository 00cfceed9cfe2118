//! The `[theme]` table: a base palette and one colour per role.

use std::fmt;
use std::str::FromStr;

use ratatui::style::Color;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// A built-in palette a theme starts from (`base = "…"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeBase {
    /// The terminal is asked for its background at start (OSC 11): `light` when it is
    /// light, else `dark` (also when it does not answer). The default.
    #[default]
    Auto,
    /// For dark terminal backgrounds.
    Dark,
    /// For light terminal backgrounds.
    Light,
    /// WCAG AAA (7:1) for every text cell: brighter inks on dark backgrounds, darker ones
    /// on light backgrounds (which one, the terminal is asked as for `auto`), and rendered
    /// content in the terminal's own ink.
    #[serde(rename = "high-contrast")]
    HighContrast,
}

/// The colour of each role, resolved from the config once (cheap to copy every frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThemeColors {
    /// Titles, focused borders and the search prompt.
    pub accent: Color,
    /// The background of the selected row.
    pub selection: Color,
    /// Characters the search matched.
    pub matched: Color,
    /// Secondary text: descriptions, hints, placeholders.
    pub muted: Color,
    /// Failures and required marks.
    pub error: Color,
    /// Work in progress and warnings.
    pub warning: Color,
    /// Good news: a ready server, a done copy.
    pub ok: Color,
    /// Keys in the hint line and the help.
    pub key: Color,
    /// The `user` role label in the review.
    pub user: Color,
    /// The `assistant` role label in the review.
    pub assistant: Color,
    /// The base is for a light background: rendered content (highlighted code, inline
    /// code, JSON) is drawn in inks readable there.
    pub light: bool,
    /// The high-contrast base: rendered content is drawn in the terminal's own ink (its
    /// colours and dim marks left out) so every cell reaches 7:1.
    pub high_contrast: bool,
}

impl ThemeColors {
    /// The `dark` base: the colours mcpick has always used.
    pub const fn dark() -> ThemeColors {
        ThemeColors {
            accent: Color::Cyan,
            selection: Color::Indexed(237),
            matched: Color::Yellow,
            // #8a8a8a, #ff5f5f, #5fafff, #d75fd7: the ANSI grey, red, blue and magenta
            // read below 4.5:1 on black (3:1 for grey on the selection).
            muted: Color::Indexed(245),
            error: Color::Indexed(203),
            warning: Color::Yellow,
            ok: Color::Green,
            key: Color::Cyan,
            user: Color::Indexed(75),
            assistant: Color::Indexed(170),
            light: false,
            high_contrast: false,
        }
    }

    /// The base to use for a terminal background of relative luminance `luminance`
    /// (0 black … 1 white), when it is known: light above the middle grey.
    pub fn for_background(luminance: Option<f64>) -> ThemeBase {
        match luminance {
            Some(l) if l > 0.4 => ThemeBase::Light,
            _ => ThemeBase::Dark,
        }
    }

    /// The `light` base: darker inks and a light grey selection, readable on white.
    pub const fn light() -> ThemeColors {
        ThemeColors {
            accent: Color::Blue,
            // #e4e4e4: visible on white without hiding the row's text.
            selection: Color::Indexed(254),
            // Inks that reach 4.5:1 on white and on the selection (#767676 3:1 there):
            // #af0000, #767676, #870000, #875f00, #008700, #af00af.
            matched: Color::Indexed(124),
            muted: Color::Indexed(243),
            error: Color::Indexed(88),
            warning: Color::Indexed(94),
            ok: Color::Indexed(28),
            key: Color::Blue,
            user: Color::Blue,
            assistant: Color::Indexed(127),
            light: true,
            high_contrast: false,
        }
    }

    /// The `high-contrast` base on a dark background: every ink at 7:1 or more on black
    /// and on its selection (#000087), in xterm-256 indexes: #00ffff, #ffff00, #d0d0d0,
    /// #ffafaf, #ffff5f, #87ff87, #afffff, #87ffff, #ffafff.
    pub const fn high_contrast_dark() -> ThemeColors {
        ThemeColors {
            accent: Color::Indexed(51),
            selection: Color::Indexed(18),
            matched: Color::Indexed(226),
            muted: Color::Indexed(252),
            error: Color::Indexed(217),
            warning: Color::Indexed(227),
            ok: Color::Indexed(120),
            key: Color::Indexed(159),
            user: Color::Indexed(123),
            assistant: Color::Indexed(219),
            light: false,
            high_contrast: true,
        }
    }

    /// The `high-contrast` base on a light background: every ink at 7:1 or more on white
    /// and on its selection (#e4e4e4): #000087, #870000, #444444, #5f0000, #005f00,
    /// #5f005f.
    pub const fn high_contrast_light() -> ThemeColors {
        ThemeColors {
            accent: Color::Indexed(18),
            selection: Color::Indexed(254),
            matched: Color::Indexed(88),
            muted: Color::Indexed(238),
            error: Color::Indexed(88),
            warning: Color::Indexed(52),
            ok: Color::Indexed(22),
            key: Color::Indexed(18),
            user: Color::Indexed(18),
            assistant: Color::Indexed(53),
            light: true,
            high_contrast: true,
        }
    }

    /// The palette of a base (`auto` before the terminal answered: `dark`).
    pub const fn base(base: ThemeBase) -> ThemeColors {
        match base {
            ThemeBase::Auto | ThemeBase::Dark => ThemeColors::dark(),
            ThemeBase::Light => ThemeColors::light(),
            ThemeBase::HighContrast => ThemeColors::high_contrast_dark(),
        }
    }
}

impl Default for ThemeColors {
    fn default() -> Self {
        ThemeColors::dark()
    }
}

/// The `[theme]` table as written: a base and the roles it overrides.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTheme {
    #[serde(default)]
    base: ThemeBase,
    accent: Option<ThemeColor>,
    selection: Option<ThemeColor>,
    #[serde(rename = "match")]
    matched: Option<ThemeColor>,
    muted: Option<ThemeColor>,
    error: Option<ThemeColor>,
    warning: Option<ThemeColor>,
    ok: Option<ThemeColor>,
    key: Option<ThemeColor>,
    user: Option<ThemeColor>,
    assistant: Option<ThemeColor>,
}

/// The theme as the config gives it: its colours, and for `base = "auto"` those of the
/// light base too (the same overrides applied), to use when the terminal's background is
/// light.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfiguredTheme {
    /// The colours, for a dark background when the base is `auto`.
    pub colors: ThemeColors,
    /// With `auto`: the colours for a light background.
    pub light_variant: Option<ThemeColors>,
}

/// With no config file, as with a config without `[theme]`: `base = "auto"`, so the
/// theme follows the terminal's background in the very first run too.
impl Default for ConfiguredTheme {
    fn default() -> Self {
        RawTheme::default().resolve_both()
    }
}

impl ConfiguredTheme {
    /// The colours for a terminal background of `luminance` (when it answered).
    pub fn for_background(&self, luminance: Option<f64>) -> ThemeColors {
        match (self.light_variant, ThemeColors::for_background(luminance)) {
            (Some(light), ThemeBase::Light) => light,
            _ => self.colors,
        }
    }
}

impl RawTheme {
    /// The base's palette with the table's overrides applied (for `auto`, both).
    pub(super) fn resolve_both(&self) -> ConfiguredTheme {
        match self.base {
            ThemeBase::Auto => ConfiguredTheme {
                colors: self.resolve_on(ThemeBase::Dark),
                light_variant: Some(self.resolve_on(ThemeBase::Light)),
            },
            ThemeBase::HighContrast => ConfiguredTheme {
                colors: self.resolve_with(ThemeColors::high_contrast_dark()),
                light_variant: Some(self.resolve_with(ThemeColors::high_contrast_light())),
            },
            base => ConfiguredTheme {
                colors: self.resolve_on(base),
                light_variant: None,
            },
        }
    }

    /// `base`'s palette with the table's overrides applied.
    fn resolve_on(&self, base: ThemeBase) -> ThemeColors {
        self.resolve_with(ThemeColors::base(base))
    }

    /// `base` with the table's overrides applied.
    fn resolve_with(&self, base: ThemeColors) -> ThemeColors {
        let pick = |set: Option<ThemeColor>, default: Color| set.map_or(default, |c| c.0);
        ThemeColors {
            accent: pick(self.accent, base.accent),
            selection: pick(self.selection, base.selection),
            matched: pick(self.matched, base.matched),
            muted: pick(self.muted, base.muted),
            error: pick(self.error, base.error),
            warning: pick(self.warning, base.warning),
            ok: pick(self.ok, base.ok),
            key: pick(self.key, base.key),
            user: pick(self.user, base.user),
            assistant: pick(self.assistant, base.assistant),
            light: base.light,
            high_contrast: base.high_contrast,
        }
    }
}

/// One colour as written: a name, `"#rrggbb"`, or an index 0–255 (number or string).
#[derive(Debug, Clone, Copy)]
struct ThemeColor(Color);

/// What a colour may be, said in every error about one.
const ACCEPTED: &str = "a colour name (black, red, green, yellow, blue, magenta, cyan, gray, \
     darkgray, lightred, lightgreen, lightyellow, lightblue, lightmagenta, lightcyan, white, \
     reset), \"#rrggbb\", or an index 0-255";

impl<'de> Deserialize<'de> for ThemeColor {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ColorVisitor;

        impl Visitor<'_> for ColorVisitor {
            type Value = ThemeColor;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(ACCEPTED)
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<ThemeColor, E> {
                Color::from_str(v.trim())
                    .map(ThemeColor)
                    .map_err(|_| E::custom(format!("`{v}` is not a colour: use {ACCEPTED}")))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ThemeColor, E> {
                u8::try_from(v)
                    .map(|i| ThemeColor(Color::Indexed(i)))
                    .map_err(|_| E::custom(format!("{v} is not a colour: use {ACCEPTED}")))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ThemeColor, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
            }
        }

        d.deserialize_any(ColorVisitor)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use ratatui::style::Color;

    use super::ThemeColors;
    use crate::config::{Config, ConfigError, parse};

    /// Every role a `[theme]` table may set.
    const ROLES: [&str; 10] = [
        "accent",
        "selection",
        "match",
        "muted",
        "error",
        "warning",
        "ok",
        "key",
        "user",
        "assistant",
    ];

    fn parse_str(text: &str) -> Result<Config, ConfigError> {
        parse(text, Path::new("config.toml"), &|_| None)
    }

    fn theme(text: &str) -> ThemeColors {
        parse_str(text).unwrap().theme.colors
    }

    #[test]
    fn no_table_is_auto_dark_until_the_terminal_says_its_background_is_light() {
        for text in ["", "[theme]\n", "[theme]\nbase = \"auto\"\n"] {
            let chosen = parse_str(text).unwrap().theme;
            assert_eq!(chosen.colors, ThemeColors::dark(), "{text:?}");
            assert_eq!(chosen.light_variant, Some(ThemeColors::light()), "{text:?}");
            // No answer, a dark background, a light one.
            assert_eq!(chosen.for_background(None), ThemeColors::dark());
            assert_eq!(chosen.for_background(Some(0.01)), ThemeColors::dark());
            assert_eq!(chosen.for_background(Some(0.9)), ThemeColors::light());
        }
        assert_eq!(theme("[theme]\nbase = \"light\"\n"), ThemeColors::light());
        // A chosen base is kept whatever the terminal says.
        let dark = parse_str("[theme]\nbase = \"dark\"\n").unwrap().theme;
        assert_eq!(dark.for_background(Some(1.0)), ThemeColors::dark());
        // Overrides apply to both of auto's palettes.
        let auto = parse_str("[theme]\naccent = 208\n").unwrap().theme;
        assert_eq!(auto.colors.accent, Color::Indexed(208));
        assert_eq!(auto.light_variant.unwrap().accent, Color::Indexed(208));
    }

    #[test]
    fn the_high_contrast_base_follows_the_background_like_auto() {
        let chosen = parse_str("[theme]\nbase = \"high-contrast\"\n")
            .unwrap()
            .theme;
        assert_eq!(chosen.colors, ThemeColors::high_contrast_dark());
        assert_eq!(
            chosen.for_background(Some(0.9)),
            ThemeColors::high_contrast_light()
        );
        assert!(chosen.colors.high_contrast && chosen.for_background(Some(0.9)).high_contrast);
        // A role set in the table wins there too.
        let chosen = parse_str("[theme]\nbase = \"high-contrast\"\naccent = 15\n")
            .unwrap()
            .theme;
        assert_eq!(chosen.for_background(None).accent, Color::Indexed(15));
    }

    #[test]
    fn names_hex_and_indexes_override_their_role_only() {
        let colors = theme(
            r##"
[theme]
base = "light"
accent = "lightblue"
selection = "#1e2a3B"
match = 208
muted = "dark grey"
error = "12"
assistant = "reset"
"##,
        );
        assert_eq!(colors.accent, Color::LightBlue);
        assert_eq!(colors.selection, Color::Rgb(0x1e, 0x2a, 0x3b));
        assert_eq!(colors.matched, Color::Indexed(208));
        assert_eq!(colors.muted, Color::DarkGray);
        assert_eq!(colors.error, Color::Indexed(12));
        assert_eq!(colors.assistant, Color::Reset);
        // The rest stay the base's.
        let light = ThemeColors::light();
        assert_eq!(colors.warning, light.warning);
        assert_eq!(colors.user, light.user);
        assert_eq!(colors.ok, light.ok);
        assert_eq!(colors.key, light.key);
    }

    #[test]
    fn a_bad_colour_is_an_error_at_its_place_naming_the_forms() {
        for (value, column) in [("\"bluish\"", "column 10"), ("256", "column 10")] {
            let text = format!("[theme]\naccent = {value}\n");
            let err = parse_str(&text).unwrap_err().to_string();
            assert!(err.contains("line 2"), "{err}");
            assert!(err.contains(column), "{err}");
            assert!(err.contains(&format!("accent = {value}")), "{err}");
            assert!(err.contains("is not a colour"), "{err}");
            assert!(err.contains("\"#rrggbb\""), "{err}");
            assert!(err.contains("lightblue"), "{err}");
            assert!(err.contains("0-255"), "{err}");
        }
        let err = parse_str("[theme]\nok = \"#12345\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`#12345` is not a colour"), "{err}");
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn an_unknown_role_or_base_is_an_error_listing_the_known_ones() {
        let err = parse_str("\n[theme]\nbackground = \"red\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("column 1"), "{err}");
        assert!(err.contains("unknown field `background`"), "{err}");
        for role in std::iter::once("base").chain(ROLES) {
            assert!(err.contains(&format!("`{role}`")), "{role}: {err}");
        }
        let err = parse_str("[theme]\nbase = \"solarized\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("unknown variant `solarized`"), "{err}");
        assert!(
            err.contains("expected one of `auto`, `dark`, `light`"),
            "{err}"
        );
    }

    #[test]
    fn the_example_config_documents_every_role_with_the_dark_colours() {
        let example = include_str!("../../config.example.toml");
        let (_, table) = example.split_once("\n[theme]\n").expect("a [theme] table");
        // Its commented role lines, switched on, are exactly the dark base.
        let uncommented: String = table
            .lines()
            .map(|line| line.strip_prefix("# ").unwrap_or(line))
            .map(|line| format!("{line}\n"))
            .collect();
        let colors = theme(&format!("[theme]\n{uncommented}"));
        assert_eq!(colors, ThemeColors::dark());
        for role in ROLES {
            assert!(table.contains(&format!("# {role} = ")), "{role}");
        }
    }
}
