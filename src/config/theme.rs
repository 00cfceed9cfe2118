//! The `[theme]` table: a base palette and one colour per role.

use std::fmt;
use std::str::FromStr;

use ratatui::style::Color;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A built-in palette a theme starts from (`base = "…"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeBase {
    /// For dark terminal backgrounds (the default).
    #[default]
    Dark,
    /// For light terminal backgrounds.
    Light,
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
}

impl ThemeColors {
    /// The `dark` base: the colours mcpick has always used.
    pub const fn dark() -> ThemeColors {
        ThemeColors {
            accent: Color::Cyan,
            selection: Color::Indexed(237),
            matched: Color::Yellow,
            muted: Color::DarkGray,
            error: Color::Red,
            warning: Color::Yellow,
            ok: Color::Green,
            key: Color::Cyan,
            user: Color::Blue,
            assistant: Color::Magenta,
        }
    }

    /// The `light` base: darker inks and a light grey selection, readable on white.
    pub const fn light() -> ThemeColors {
        ThemeColors {
            accent: Color::Blue,
            // #e4e4e4: visible on white without hiding the row's text.
            selection: Color::Indexed(254),
            // #d75f00 and #af8700: yellow itself is unreadable on white.
            matched: Color::Indexed(166),
            muted: Color::Indexed(244),
            error: Color::Indexed(160),
            warning: Color::Indexed(136),
            ok: Color::Indexed(28),
            key: Color::Blue,
            user: Color::Blue,
            assistant: Color::Magenta,
        }
    }

    /// The palette of a base.
    pub const fn base(base: ThemeBase) -> ThemeColors {
        match base {
            ThemeBase::Dark => ThemeColors::dark(),
            ThemeBase::Light => ThemeColors::light(),
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

impl RawTheme {
    /// The base's palette with the table's overrides applied.
    pub(super) fn resolve(&self) -> ThemeColors {
        let base = ThemeColors::base(self.base);
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
