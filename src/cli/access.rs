//! Which switch turned on the screen reader mode and reduced motion, in their order of
//! precedence: the flag, then the environment, then the config's `[ui]` table.

use std::path::{Path, PathBuf};

use crate::config::UiSettings;

/// The environment variable that turns the screen reader mode on (`1`) or off (`0`).
pub const SCREEN_READER_ENV: &str = "MCPICK_SCREEN_READER";

/// The environment variable that turns reduced motion on (`1`) or off (`0`).
pub const REDUCE_MOTION_ENV: &str = "MCPICK_REDUCE_MOTION";

/// What decided a setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Switch {
    /// The command line's `--screen-reader`.
    Flag,
    /// The environment variable (its name).
    Environment(&'static str),
    /// The config's `[ui]` table, in this file.
    Config(Option<PathBuf>),
}

/// A setting's value and what decided it (`None`: nothing set it, so it is off).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// Whether it is on.
    pub on: bool,
    /// What set it, when something did.
    pub by: Option<Switch>,
}

/// The environment variable's word: `1`, `true`, `yes`, `on` turn on; `0`, `false`, `no`,
/// `off` and empty turn off; anything else is not taken (the next switch decides).
fn env_word(value: Option<&str>) -> Option<bool> {
    match value?.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// The screen reader mode from the flag, the environment's value and the config's table.
pub fn screen_reader(
    flag: bool,
    env: Option<&str>,
    ui: &UiSettings,
    config: Option<&Path>,
) -> Setting {
    decide(flag, SCREEN_READER_ENV, env, ui.screen_reader, config)
}

/// Reduced motion from the environment's value and the config's table (it has no flag).
pub fn reduce_motion(env: Option<&str>, ui: &UiSettings, config: Option<&Path>) -> Setting {
    decide(false, REDUCE_MOTION_ENV, env, ui.reduce_motion, config)
}

fn decide(
    flag: bool,
    name: &'static str,
    env: Option<&str>,
    config_on: bool,
    config: Option<&Path>,
) -> Setting {
    if flag {
        return Setting {
            on: true,
            by: Some(Switch::Flag),
        };
    }
    if let Some(on) = env_word(env) {
        return Setting {
            on,
            by: Some(Switch::Environment(name)),
        };
    }
    Setting {
        on: config_on,
        by: config_on.then(|| Switch::Config(config.map(Path::to_path_buf))),
    }
}

/// The environment's value of `name`, as the switches read it.
pub fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The first line the screen reader mode prints: which switch turned it on and how to
/// turn it off.
pub fn first_line(by: &Switch) -> String {
    let off = match by {
        Switch::Flag => "run mcpick without --screen-reader to use the full screen".to_string(),
        Switch::Environment(name) => format!("unset {name}, or set it to 0, to turn it off"),
        Switch::Config(path) => format!(
            "set screen_reader = false in the [ui] table{} to turn it off",
            path.as_ref()
                .map(|p| format!(" of {}", p.display()))
                .unwrap_or_default()
        ),
    };
    format!(
        "mcpick screen reader mode, turned on by {}; {off}.",
        words(by, "screen_reader")
    )
}

/// How a switch is named in a sentence: `--screen-reader`, `MCPICK_SCREEN_READER=1`,
/// `screen_reader = true in the config`.
pub fn words(by: &Switch, key: &str) -> String {
    match by {
        Switch::Flag => "--screen-reader".to_string(),
        Switch::Environment(name) => {
            format!("{name}={}", env_value(name).unwrap_or_default().trim())
        }
        Switch::Config(_) => format!("{key} = true in the config's [ui] table"),
    }
}

/// What `mcpick doctor` says of a setting: `on (--screen-reader)`, or off and how to turn
/// it on.
pub fn doctor_line(setting: &Setting, key: &str, env: &str, flag: Option<&str>) -> String {
    match (&setting.by, setting.on) {
        (Some(by), true) => format!("on ({})", words(by, key)),
        (Some(by), false) => format!("off ({})", words(by, key)),
        (None, _) => {
            let flag = flag.map(|f| format!("{f}, ")).unwrap_or_default();
            format!("off ({flag}{env}=1 or [ui] {key} = true turn it on)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ui(screen_reader: bool) -> UiSettings {
        UiSettings {
            screen_reader,
            reduce_motion: false,
        }
    }

    #[test]
    fn the_flag_comes_first_then_the_environment_then_the_config() {
        let path = Path::new("/c.toml");
        let on = |flag, env, config| screen_reader(flag, env, &ui(config), Some(path));
        assert_eq!(on(true, Some("0"), false).by, Some(Switch::Flag));
        assert_eq!(
            on(false, Some("1"), false),
            Setting {
                on: true,
                by: Some(Switch::Environment(SCREEN_READER_ENV))
            }
        );
        assert_eq!(
            on(false, Some("0"), true),
            Setting {
                on: false,
                by: Some(Switch::Environment(SCREEN_READER_ENV))
            },
            "MCPICK_SCREEN_READER=0 turns off what the config turns on"
        );
        assert_eq!(
            on(false, None, true).by,
            Some(Switch::Config(Some(path.to_path_buf())))
        );
        assert_eq!(
            on(false, Some("maybe"), false),
            Setting {
                on: false,
                by: None
            }
        );
    }

    #[test]
    fn the_first_line_says_how_to_turn_the_mode_off() {
        let line = first_line(&Switch::Flag);
        assert!(line.contains("turned on by --screen-reader"), "{line}");
        assert!(line.contains("without --screen-reader"), "{line}");
        let line = first_line(&Switch::Config(Some(PathBuf::from("/c.toml"))));
        assert!(
            line.contains("screen_reader = false in the [ui] table of /c.toml"),
            "{line}"
        );
    }
}
