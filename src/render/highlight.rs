//! Fenced code highlighted with syntect's bundled Sublime grammars (the pure-Rust regex
//! engine). Loading the grammars costs tens of milliseconds, so it happens once, off the
//! loop ([`start_loading`]); until it is done code is drawn plain.

use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// The longest code block highlighted, in lines; a longer one is drawn plain.
pub const MAX_BLOCK_LINES: usize = 2_000;
/// The longest code block highlighted, in bytes; a longer one is drawn plain.
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;
/// The code bytes highlighted in one message at most: the blocks after are drawn plain,
/// so a message of many fences costs a bounded time to render (syntect's pure-Rust
/// engine highlights about 300 KiB a second: this is a fifth of a second, in a task).
pub const MESSAGE_BUDGET_BYTES: usize = 64 * 1024;
/// The code bytes a layout on the loop highlights at once: about a screen of code, in
/// about 6 ms. The rest of the budget is highlighted by the whole render, in a task, and
/// its rows replace those drawn plain meanwhile.
pub const AT_ONCE_BYTES: usize = 2 * 1024;

/// The grammars and the colour theme, loaded once.
pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Theme,
}

/// One highlighted line: its pieces with their styles (the line break left out).
pub type StyledLine = Vec<(Style, String)>;

static LOADED: OnceLock<Highlighter> = OnceLock::new();

/// The highlighter, loaded now if it is not yet (blocking: tests and benchmarks only; the
/// app loads it with [`start_loading`]).
pub fn load() -> &'static Highlighter {
    LOADED.get_or_init(|| {
        let themes = ThemeSet::load_defaults();
        let theme = themes
            .themes
            .get("base16-eighties.dark")
            .or_else(|| themes.themes.values().next())
            .cloned()
            .unwrap_or_default();
        Highlighter {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme,
        }
    })
}

/// The highlighter when it has loaded; `None` before (code is drawn plain).
pub fn ready() -> Option<&'static Highlighter> {
    LOADED.get()
}

/// Loads the highlighter on a thread of its own, then calls `done` (which wakes the loop
/// so the rows drawn plain are drawn again, highlighted).
pub fn start_loading(done: impl FnOnce() + Send + 'static) {
    let spawned = std::thread::Builder::new()
        .name("highlighter".into())
        .spawn(move || {
            load();
            done();
        });
    if let Err(error) = spawned {
        // Code stays plain: nothing else depends on it.
        tracing::warn!("cannot start the highlighter's thread: {error}");
    }
}

impl Highlighter {
    /// The grammar a fence's language names (`rust`, `rs`, `Python`, `py`…), if bundled.
    pub fn syntax_for(&self, language: &str) -> Option<&SyntaxReference> {
        if language.is_empty() {
            return None;
        }
        // Languages the bundled set lacks, drawn with the nearest grammar it has.
        let language = match language.to_ascii_lowercase().as_str() {
            "typescript" | "ts" | "tsx" | "jsx" | "mjs" | "cjs" => "js",
            "jsonc" | "json5" => "json",
            "shell" | "console" | "zsh" => "sh",
            _ => language,
        };
        self.syntaxes
            .find_syntax_by_token(language)
            .or_else(|| self.syntaxes.find_syntax_by_name(language))
    }

    /// `code` highlighted line by line (its tabs already expanded), or `None` when the
    /// grammar fails on it (then it is drawn plain).
    pub fn highlight(&self, syntax: &SyntaxReference, code: &str) -> Option<Vec<StyledLine>> {
        let mut lines = HighlightLines::new(syntax, &self.theme);
        let mut out = Vec::new();
        for line in LinesWithEndings::from(code) {
            let ranges = lines.highlight_line(line, &self.syntaxes).ok()?;
            let pieces = ranges
                .into_iter()
                .map(|(style, text)| {
                    (
                        to_style(style),
                        text.trim_end_matches(['\n', '\r']).to_string(),
                    )
                })
                .filter(|(_, text)| !text.is_empty())
                .collect();
            out.push(pieces);
        }
        Some(out)
    }
}

/// A syntect style as a ratatui one: the foreground and the font style (the theme's
/// background is left out, the pane's shows).
fn to_style(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_keywords_get_a_colour_of_their_own() {
        let highlighter = load();
        let rust = highlighter.syntax_for("rust").expect("rust is bundled");
        assert!(highlighter.syntax_for("rs").is_some());
        assert!(highlighter.syntax_for("python").is_some());
        for near in ["typescript", "TS", "jsonc", "shell"] {
            assert!(highlighter.syntax_for(near).is_some(), "{near}");
        }
        assert!(highlighter.syntax_for("no-such-language").is_none());
        let lines = highlighter.highlight(rust, "fn main() {}\n").unwrap();
        assert_eq!(lines.len(), 1);
        let text: String = lines[0].iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, "fn main() {}");
        let keyword = lines[0].iter().find(|(_, t)| t == "fn").unwrap().0;
        let name = lines[0].iter().find(|(_, t)| t == "main").unwrap().0;
        assert!(keyword.fg.is_some());
        assert_ne!(keyword.fg, name.fg, "the keyword and the name differ");
    }
}
