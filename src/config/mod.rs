//! The config file: its TOML model, where it lives, and `${VAR}` expansion.

mod expand;
pub mod import;
mod oauth;
mod program;
mod theme;

pub use expand::{ExpandError, InputSpec, InputValues, expand, input_variable, is_input_id};
pub use oauth::{AssertionAudience, Dpop, EnterpriseIdp, OAuthConfig, OAuthGrant, SecretSource};
pub use program::{SelfCommand, program_for, self_command};
pub use theme::{ConfiguredTheme, ThemeBase, ThemeColors};

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Deserializer};
use thiserror::Error;

/// The request timeout used when a server sets no `timeout_ms`.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// The largest message accepted from a server that sets no `max_response_bytes` (32 MiB).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// The smallest `max_response_bytes` accepted: below it even a handshake may not fit.
pub const MIN_MAX_RESPONSE_BYTES: u64 = 64 * 1024;

/// The environment variable that points at a config file, like `--config`.
pub const CONFIG_ENV: &str = "MCPICK_CONFIG";

/// The protocol versions mcpick speaks, oldest first: what `protocol_version` may name (the
/// SDK's known versions; a test in `mcp` checks that the two lists agree).
pub const PROTOCOL_VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// Which clipboard route the config asks for (`clipboard = "…"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClipboardMode {
    /// Chosen from the environment: tmux, screen, the desktop, else OSC 52.
    #[default]
    Auto,
    /// Always a tmux buffer.
    Tmux,
    /// Always OSC 52 to the terminal (wrapped for GNU screen inside screen).
    Osc52,
    /// Always the desktop clipboard (also over SSH, e.g. with X forwarding).
    Native,
}

/// The clipboard part of the config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClipboardSettings {
    /// `clipboard = "auto" | "tmux" | "osc52" | "native"`.
    pub mode: ClipboardMode,
    /// `clipboard_command = ["wl-copy"]`: a program reading the text on stdin; when set it is
    /// the route.
    pub command: Option<Vec<String>>,
}

/// A loaded, validated and expanded config.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
    /// Every configured server, enabled or not, ordered by name.
    pub servers: Vec<ServerConfig>,
    /// Key binding overrides: screen → action → keys (checked by the TUI, which knows them).
    pub keys: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Other hosts' configs read at start (`claude-code`, `vscode`, … or file paths).
    pub sources: Vec<String>,
    /// `clipboard` and `clipboard_command`: how copies reach the clipboard.
    pub clipboard: ClipboardSettings,
    /// `[theme]`: the colour of each role, its base's where the table sets none (and
    /// with `base = "auto"`, the light base's too).
    pub theme: theme::ConfiguredTheme,
    /// `audio_player = ["mpv", "--no-video"]`: what plays audio blocks (`P`); the file is
    /// its `{file}` word, or added last.
    pub audio_player: Option<Vec<String>>,
    /// `image_protocol`: how the review draws images (`auto` asks the terminal).
    pub image_protocol: ImageProtocol,
    /// `[ui]`: the screen reader mode and reduced motion, as the config sets them.
    pub ui: UiSettings,
    /// `[lock]`: which lockfile the menu compares with, and whether it refuses drift.
    pub lock: LockSettings,
    /// Where each `[keys]` screen (`picker`) and binding (`picker.accept`) is written in
    /// the file, as line and column, for errors found in them.
    keys_at: BTreeMap<String, (usize, usize)>,
}

/// The `[ui]` table: how mcpick presents itself (see docs/accessibility.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiSettings {
    /// `screen_reader = true`: the linear mode, in scrollback, instead of the full screen
    /// (`--screen-reader` and `MCPICK_SCREEN_READER` come first).
    #[serde(default)]
    pub screen_reader: bool,
    /// `reduce_motion = true`: the full screen without spinners, blinking or smooth
    /// scrolling (`MCPICK_REDUCE_MOTION` comes first).
    #[serde(default)]
    pub reduce_motion: bool,
}

/// The `[lock]` table: the menu and the lockfile (see docs/lock.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockSettings {
    /// `file = "PATH"`: the lockfile the menu compares with (`--lock` comes first; else
    /// `mcpick.lock` in the current folder, when there is one).
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// `enforce = true`: the menu refuses to fetch a prompt that is not as the lockfile has
    /// it, until `mcpick lock` accepts it.
    #[serde(default)]
    pub enforce: bool,
}

/// How images are drawn in the review (`image_protocol = "…"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageProtocol {
    /// Asked of the terminal at start (kitty, sixel, iTerm2 by its name, else half-blocks).
    #[default]
    Auto,
    /// The kitty graphics protocol.
    Kitty,
    /// iTerm2's inline images (also WezTerm's).
    Iterm2,
    /// Sixel graphics.
    Sixel,
    /// Unicode half-blocks in colour: plain cells, any terminal.
    Halfblocks,
    /// No pictures: the caption line only.
    None,
}

impl Config {
    /// The servers that are enabled, in name order.
    pub fn enabled_servers(&self) -> impl Iterator<Item = &ServerConfig> {
        self.servers.iter().filter(|s| s.enabled)
    }

    /// The server called `name`, enabled or not.
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// An error in the `[keys]` table (found by the layer that knows the screens and
    /// actions), pointed at the binding of `action` on `screen`, or at the screen's table.
    pub fn keys_error(&self, screen: &str, action: Option<&str>, message: String) -> ConfigError {
        let at = action
            .and_then(|action| self.keys_at.get(&format!("{screen}.{action}")))
            .or_else(|| self.keys_at.get(screen))
            .copied();
        ConfigError::Keys {
            path: self
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from("<config>")),
            message,
            at,
        }
    }
}

/// One `[servers.NAME]` table after expansion.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerConfig {
    /// The table's name: how the user refers to the server.
    pub name: String,
    /// How to reach it.
    pub transport: TransportConfig,
    /// The limit for each request to it.
    pub timeout: Duration,
    /// The largest message accepted from it (`max_response_bytes`); a larger one is
    /// refused with an error naming the limit.
    pub max_response_bytes: usize,
    /// Whether mcpick connects to it.
    pub enabled: bool,
    /// Whether its catalog is kept on disk between runs (`cache`, default true).
    pub cache: bool,
    /// Whether the form asks it for a live preview as the arguments are typed
    /// (`live_preview`): by default only for `mcpick serve` (see [`runs_mcpick_serve`]).
    pub live_preview: bool,
    /// Where it came from when another host's config holds it (`vscode: PATH`).
    pub source: Option<String>,
    /// Why it cannot start (a `${VAR}` that is not set): it is reported as failed, with this
    /// message, while the other servers start.
    pub problem: Option<String>,
    /// The environment variables its table names that are not set (and have no default),
    /// when that is its `problem`: the environment's to mend, not the config's.
    pub unset_variables: Vec<String>,
    /// The inputs (`${input:ID}`) it needs before it can start; empty when it can start.
    /// Until they have values its `transport` holds empty strings in their place.
    pub inputs: Vec<InputSpec>,
    /// The protocol version to speak to an HTTP server (`protocol_version`): a version with `initialize` (2025-11-25 and older) skips the
    /// `server/discover` probe, a newer one sends only `server/discover`. Unset: probe with
    /// `server/discover` and fall back to `initialize`.
    pub protocol_version: Option<String>,
    /// Its table as written, to build it again once its inputs have values.
    template: Option<Arc<Template>>,
    /// The input values it was built with (secrets, to mask).
    input_values: Vec<String>,
}

/// A server table kept for [`ServerConfig::with_inputs`].
#[derive(Debug, PartialEq, Eq)]
struct Template {
    path: PathBuf,
    raw: RawServer,
    declared: BTreeMap<String, InputSpec>,
}

impl ServerConfig {
    /// The values of its config that are secrets, to mask wherever the server's text is
    /// shown: header values, env values with secret-looking names (or URLs with a
    /// password), input values, the OAuth client secret.
    pub fn secrets(&self) -> crate::secrets::Secrets {
        use crate::secrets::{Secrets, env_value_is_secret, header_secrets};
        let mut secrets = Secrets::new(self.input_values.iter().cloned());
        match &self.transport {
            TransportConfig::Stdio { env, .. } => secrets.extend(
                env.iter()
                    .filter(|(name, value)| env_value_is_secret(name, value))
                    .map(|(_, value)| value.clone()),
            ),
            TransportConfig::Http {
                url,
                headers,
                oauth,
                ..
            } => {
                // A URL's query may carry a key (`?api_key=…`).
                let query = url.split_once('?').map_or("", |(_, q)| q);
                let query = query.split('#').next().unwrap_or("");
                secrets.extend(
                    query
                        .split('&')
                        .filter_map(|pair| pair.split_once('=').map(|(_, v)| v.to_string())),
                );
                secrets.extend(headers.values().flat_map(|v| header_secrets(v)));
                secrets.extend(oauth.client_secret.iter().cloned());
                if let Some(SecretSource::Value(assertion)) = &oauth.assertion {
                    secrets.extend([assertion.clone()]);
                }
                if let OAuthGrant::Enterprise(idp) = &oauth.grant {
                    secrets.extend(idp.client_secret.iter().cloned());
                    if let SecretSource::Value(token) = &idp.id_token {
                        secrets.extend([token.clone()]);
                    }
                }
            }
        }
        secrets
    }

    /// Whether its config uses `${input:ID}` values (given already or not): such a config
    /// holds secrets typed at start, and is only known once they are.
    pub fn uses_inputs(&self) -> bool {
        !self.inputs.is_empty() || self.template.is_some() || !self.input_values.is_empty()
    }

    /// Why it cannot start yet when inputs have no value, saying how to give them.
    pub fn missing_inputs_problem(&self) -> Option<String> {
        if self.inputs.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .inputs
            .iter()
            .map(|input| {
                let what = if input.description.trim().is_empty() {
                    String::new()
                } else {
                    format!(" ({})", input.description)
                };
                format!("`{}`{what}", input.id)
            })
            .collect();
        let variables: Vec<String> = self.inputs.iter().map(|i| input_variable(&i.id)).collect();
        Some(format!(
            "needs input {}, which {} not given: type it when mcpick asks (in a terminal), or set {}",
            list.join(", "),
            if list.len() == 1 { "was" } else { "were" },
            variables.join(", ")
        ))
    }

    /// This server with `values` (and `MCPICK_INPUT_*` variables, through `lookup`) given
    /// to its inputs. Inputs still without a value stay in `inputs`; a table that turns out
    /// wrong once they are filled in sets `problem`.
    pub fn with_inputs(
        &self,
        values: &InputValues,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> ServerConfig {
        let Some(template) = &self.template else {
            return self.clone();
        };
        let mut built = build_from_template(
            &template.path,
            self.name.clone(),
            &template.raw,
            &template.declared,
            values,
            lookup,
        )
        .unwrap_or_else(|error| stand_in(&self.name, &template.raw, Some(error.to_string())));
        built.enabled = self.enabled;
        built.source = self.source.clone();
        built
    }
}

/// How to reach a server.
#[derive(Clone, PartialEq, Eq)]
pub enum TransportConfig {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: BTreeMap<String, String>,
        /// The working directory, if not the current one.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint, or a legacy HTTP+SSE one.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (static tokens and the like).
        headers: BTreeMap<String, String>,
        /// `transport = "sse"`: the HTTP+SSE transport of 2024-11-05 (GET the stream,
        /// POST to the endpoint it names).
        legacy_sse: bool,
        /// How to sign in when the server asks for OAuth.
        oauth: OAuthConfig,
    },
}

impl TransportConfig {
    /// A short name of the transport kind: `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Stdio { .. } => "stdio",
            TransportConfig::Http {
                legacy_sse: true, ..
            } => "sse",
            TransportConfig::Http { .. } => "http",
        }
    }
}

// Env and header values hold secrets: Debug shows their names only.
impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            TransportConfig::Http {
                url,
                headers,
                legacy_sse,
                oauth,
            } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .field("legacy_sse", legacy_sse)
                .field("oauth", oauth)
                .finish(),
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("timeout", &self.timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("enabled", &self.enabled)
            .field("cache", &self.cache)
            .field("live_preview", &self.live_preview)
            .field("source", &self.source)
            .field("problem", &self.problem)
            .field("inputs", &self.inputs)
            .finish()
    }
}

/// Why a config could not be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The TOML is malformed or has unknown or mistyped fields.
    #[error("config file {path}: {message}")]
    Parse {
        /// The file, or `<string>`.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A server table is inconsistent.
    #[error("config file {}: server `{server}`: {message}", at_place(.path, *.at))]
    Server {
        /// The file.
        path: PathBuf,
        /// The server's table name.
        server: String,
        /// What is wrong and how to fix it.
        message: String,
        /// The 1-based line and column of the field the message names (or of the server's
        /// name), when the text was at hand.
        at: Option<(usize, usize)>,
    },
    /// The `[keys]` table names a screen, an action or a key mcpick does not know.
    #[error("config file {}: {message}", at_place(.path, *.at))]
    Keys {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
        /// The 1-based line and column of the binding (or the screen's table).
        at: Option<(usize, usize)>,
    },
    /// A `${VAR}` reference could not be expanded.
    #[error("config file {path}: server `{server}`, field `{field}`: {source}")]
    Expand {
        /// The file.
        path: PathBuf,
        /// The server's table name.
        server: String,
        /// The field, e.g. `env.API_KEY` or `args[2]`.
        field: String,
        /// What went wrong.
        source: ExpandError,
    },
}

/// `path`, or `path:line:column` as compilers and TOML parse errors point.
fn at_place(path: &Path, at: Option<(usize, usize)>) -> String {
    match at {
        Some((line, column)) => format!("{}:{line}:{column}", path.display()),
        None => path.display().to_string(),
    }
}

impl ConfigError {
    /// Points a server error at its place in `text`: the field its message names first
    /// (`` `url` must… ``, `` `oauth.client_id` … ``), else the server's name.
    fn located_in(self, text: &str) -> ConfigError {
        match self {
            ConfigError::Server {
                path,
                server,
                message,
                at: None,
            } => {
                let field = message
                    .split('`')
                    .nth(1)
                    .and_then(|quoted| quoted.split([' ', '=']).next())
                    .unwrap_or_default();
                let at = server_field_place(text, &server, field);
                ConfigError::Server {
                    path,
                    server,
                    message,
                    at,
                }
            }
            other => other,
        }
    }
}

/// The line and column of `servers.<server>.<field>` in the TOML `text` (a dotted `field`
/// goes into sub-tables), or of the server's own key when the field is not there.
fn server_field_place(text: &str, server: &str, field: &str) -> Option<(usize, usize)> {
    let mut keys = vec!["servers", server];
    keys.extend(field.split('.').filter(|part| !part.is_empty()));
    key_place(text, &keys, 2)
}

/// The line and column of the deepest of `keys` found in the TOML `text`, going into
/// tables; `None` unless at least `at_least` of them are there.
fn key_place(text: &str, keys: &[&str], at_least: usize) -> Option<(usize, usize)> {
    let document = toml_edit::Document::parse(text).ok()?;
    key_place_in(&document, text, keys, at_least)
}

/// [`key_place`] in a document already parsed from `text`.
fn key_place_in(
    document: &toml_edit::Document<&str>,
    text: &str,
    keys: &[&str],
    at_least: usize,
) -> Option<(usize, usize)> {
    let mut item = document.as_item();
    let mut span = None;
    for (depth, part) in keys.iter().enumerate() {
        let Some((key, inner)) = item.as_table_like().and_then(|t| t.get_key_value(part)) else {
            if depth < at_least {
                return None;
            }
            break;
        };
        span = key.span().or(span);
        item = inner;
    }
    let offset = span?.start;
    let before = text.get(..offset)?;
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or(before).chars().count() + 1;
    Some((line, column))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    servers: BTreeMap<String, RawServer>,
    #[serde(default)]
    keys: BTreeMap<String, BTreeMap<String, KeyList>>,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    inputs: BTreeMap<String, RawInput>,
    #[serde(default)]
    clipboard: ClipboardMode,
    #[serde(default, deserialize_with = "command_line")]
    clipboard_command: Option<Vec<String>>,
    #[serde(default)]
    theme: theme::RawTheme,
    #[serde(default, deserialize_with = "command_line")]
    audio_player: Option<Vec<String>>,
    #[serde(default)]
    image_protocol: ImageProtocol,
    #[serde(default)]
    ui: UiSettings,
    #[serde(default)]
    lock: LockSettings,
}

/// A command as a list: a program first (checked while parsing, so an error has its line).
fn command_line<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let list = Vec::<String>::deserialize(d)?;
    if list.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(serde::de::Error::custom(
            "a command needs its program first, e.g. [\"wl-copy\"] or [\"xclip\", \"-selection\", \"clipboard\"]",
        ));
    }
    Ok(Some(list))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInput {
    description: Option<String>,
    password: Option<bool>,
}

/// A binding: one key or a list of keys.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum KeyList {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    transport: Option<String>,
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, String>>,
    cwd: Option<String>,
    url: Option<String>,
    headers: Option<BTreeMap<String, String>>,
    timeout_ms: Option<u64>,
    max_response_bytes: Option<u64>,
    enabled: Option<bool>,
    cache: Option<bool>,
    live_preview: Option<bool>,
    oauth: Option<oauth::RawOAuth>,
    protocol_version: Option<String>,
}

/// Where the config file is read from when neither `--config` nor `MCPICK_CONFIG` says.
pub fn default_config_path() -> Option<PathBuf> {
    default_config_place().map(|place| place.path)
}

/// The default config file and why it is that one (for `mcpick doctor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigPlace {
    /// The file.
    pub path: PathBuf,
    /// Why this path: which rule chose it.
    pub why: String,
}

/// The default config file of this process: `$XDG_CONFIG_HOME/mcpick/config.toml` when that
/// variable holds an absolute path, else `~/.config/mcpick/config.toml`, on macOS too (where
/// command-line users look, as helix, atuin and television do). On macOS a config only in
/// the old place, `~/Library/Application Support/mcpick/`, is still read, and doctor says to
/// move it.
pub fn default_config_place() -> Option<ConfigPlace> {
    let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
    let legacy = if cfg!(target_os = "macos") {
        directories::ProjectDirs::from("", "", "mcpick").map(|d| d.config_dir().join("config.toml"))
    } else {
        None
    };
    choose_config_place(
        std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from),
        home,
        legacy,
        &|path: &Path| path.exists(),
    )
}

/// [`default_config_place`] from its inputs: the `XDG_CONFIG_HOME` value, the home folder,
/// the platform's old config file (macOS), and how to tell whether a file exists.
fn choose_config_place(
    xdg_config_home: Option<PathBuf>,
    home: Option<PathBuf>,
    legacy: Option<PathBuf>,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<ConfigPlace> {
    let (path, why) = match xdg_config_home.filter(|dir| dir.is_absolute()) {
        Some(dir) => (
            dir.join("mcpick/config.toml"),
            "$XDG_CONFIG_HOME/mcpick/config.toml".to_string(),
        ),
        None => (
            home?.join(".config/mcpick/config.toml"),
            "~/.config/mcpick/config.toml (XDG_CONFIG_HOME is not set)".to_string(),
        ),
    };
    match legacy {
        Some(old) if !exists(&path) && exists(&old) => Some(ConfigPlace {
            why: format!(
                "the old macOS place, read because {} does not exist; move the file there",
                path.display()
            ),
            path: old,
        }),
        _ => Some(ConfigPlace { path, why }),
    }
}

/// The folder for what mcpick remembers between runs (argument history, recent prompts).
pub fn data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "mcpick").map(|d| d.data_dir().to_path_buf())
}

/// The folder of mcpick's log files (`mcpick.YYYY-MM-DD.log`): the platform state dir, else
/// the local data dir.
pub fn log_dir() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "mcpick")?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_path_buf(),
    )
}

/// Loads the config: `explicit` (from `--config` or `MCPICK_CONFIG`) must exist; the default
/// location may be missing, which gives an empty config.
pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => match default_config_path() {
            Some(path) if path.exists() => path,
            _ => return Ok(Config::default()),
        },
    };
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.clone(),
        source,
    })?;
    let lookup = |name: &str| std::env::var(name).ok();
    let mut config = parse(&text, &path, &lookup)?;
    config.path = Some(path.clone());
    add_sources(&mut config, &path, &import::Context::current(), &lookup)?;
    Ok(config)
}

/// Reads the config's `sources`: each named host's config files that exist (or each path),
/// adding their servers after mcpick's own. A name already taken gets a `-2`… suffix.
pub fn add_sources(
    config: &mut Config,
    path: &Path,
    context: &import::Context,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(), ConfigError> {
    let source_error = |message: String| ConfigError::Parse {
        path: path.to_path_buf(),
        message,
    };
    let mut files: Vec<(Option<import::Dialect>, PathBuf)> = Vec::new();
    for source in &config.sources {
        match import::Dialect::parse(source) {
            Ok(dialect) => files.extend(
                import::known_locations(context)
                    .into_iter()
                    .filter(|(d, p)| *d == dialect && p.is_file())
                    .map(|(d, p)| (Some(d), p)),
            ),
            Err(_) if source.contains('/') || source.ends_with(".json") => {
                files.push((None, PathBuf::from(expand_tilde(source))))
            }
            Err(e) => {
                return Err(source_error(format!(
                    "`sources`: {e}, or a path to a config file"
                )));
            }
        }
    }
    for (dialect, file) in files {
        let text = std::fs::read_to_string(&file).map_err(|source| ConfigError::Read {
            path: file.clone(),
            source,
        })?;
        let imported = import::import(&text, &file, dialect, context)
            .map_err(|e| source_error(format!("`sources`: {e}")))?;
        for note in &imported.notes {
            tracing::info!(file = %file.display(), "{note}");
        }
        let taken: Vec<String> = config.servers.iter().map(|s| s.name.clone()).collect();
        let merged = import::merge("", &imported.servers).map_err(source_error)?;
        let mut added = parse(&merged.text, &file, lookup)?.servers;
        for server in &mut added {
            let mut name = server.name.clone();
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{}-{n}", server.name);
                n += 1;
            }
            server.name = name;
            server.source = Some(format!("{}: {}", imported.dialect, file.display()));
        }
        config.servers.extend(added);
    }
    Ok(())
}

/// Parses and validates config text; `path` is only used in messages, `lookup` resolves
/// `${VAR}` references.
pub fn parse(
    text: &str,
    path: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let mut declared = BTreeMap::new();
    for (id, input) in raw.inputs {
        if !is_input_id(&id) {
            return Err(ConfigError::Parse {
                path: PathBuf::from(at_place(path, key_place(text, &["inputs", &id], 2))),
                message: format!(
                    "`[inputs.{id}]`: an input id holds letters, digits, `_`, `-` and `.` only"
                ),
            });
        }
        let spec = InputSpec {
            id: id.clone(),
            description: input.description.unwrap_or_default(),
            password: input.password.unwrap_or(true),
        };
        declared.insert(id, spec);
    }
    let servers = raw
        .servers
        .into_iter()
        .map(|(name, server)| {
            build_from_template(
                path,
                name,
                &server,
                &declared,
                &InputValues::default(),
                lookup,
            )
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| error.located_in(text))?;
    let keys_at = keys_places(text, &raw.keys);
    let keys = raw
        .keys
        .into_iter()
        .map(|(screen, actions)| {
            let actions = actions
                .into_iter()
                .map(|(action, keys)| match keys {
                    KeyList::One(key) => (action, vec![key]),
                    KeyList::Many(keys) => (action, keys),
                })
                .collect();
            (screen, actions)
        })
        .collect();
    let clipboard_command = raw
        .clipboard_command
        .map(|command| {
            command
                .iter()
                .enumerate()
                .map(|(at, word)| {
                    expand(word, lookup).map_err(|e| ConfigError::Parse {
                        path: path.to_path_buf(),
                        message: format!("`clipboard_command[{at}]`: {e}"),
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    Ok(Config {
        path: None,
        servers,
        keys,
        sources: raw.sources,
        clipboard: ClipboardSettings {
            mode: raw.clipboard,
            command: clipboard_command,
        },
        theme: raw.theme.resolve_both(),
        audio_player: raw.audio_player,
        image_protocol: raw.image_protocol,
        ui: raw.ui,
        lock: raw.lock,
        keys_at,
    })
}

/// Where each screen table and binding of `[keys]` is written in `text` (`picker`,
/// `picker.accept`), the file parsed once.
fn keys_places(
    text: &str,
    keys: &BTreeMap<String, BTreeMap<String, KeyList>>,
) -> BTreeMap<String, (usize, usize)> {
    let mut places = BTreeMap::new();
    if keys.is_empty() {
        return places;
    }
    let Ok(document) = toml_edit::Document::parse(text) else {
        return places;
    };
    for (screen, actions) in keys {
        if let Some(at) = key_place_in(&document, text, &["keys", screen], 2) {
            places.insert(screen.clone(), at);
        }
        for action in actions.keys() {
            if let Some(at) = key_place_in(&document, text, &["keys", screen, action], 3) {
                places.insert(format!("{screen}.{action}"), at);
            }
        }
    }
    places
}

/// Builds one server table. `Err` is a table that is wrong whatever the environment holds;
/// an unset variable gives a server with `problem`, inputs without values one with `inputs`.
fn build_from_template(
    path: &Path,
    name: String,
    raw: &RawServer,
    declared: &BTreeMap<String, InputSpec>,
    values: &InputValues,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig, ConfigError> {
    // A bad name is wrong whatever the inputs are: not deferred like the other checks.
    // So are a protocol version mcpick does not speak and a header name HTTP cannot carry.
    check_server_name(&name)
        .and_then(|()| check_protocol_version(raw.protocol_version.as_deref()))
        .and_then(|()| check_header_names(raw.headers.as_ref()))
        .map_err(|problem| ConfigError::Server {
            path: path.to_path_buf(),
            server: name.clone(),
            message: problem.to_string(),
            at: None,
        })?;
    let input_value = |id: &str| {
        values
            .get(id)
            .map(str::to_string)
            .or_else(|| lookup(&input_variable(id)))
    };
    let missing: Vec<String> = input_references(raw)
        .into_iter()
        .filter(|id| input_value(id).is_none())
        .collect();
    let resolve = |variable: &str| match variable.strip_prefix("input:") {
        // An empty stand-in for a missing one, so the rest of the table is still checked.
        Some(id) => Some(input_value(id).unwrap_or_default()),
        None => lookup(variable),
    };
    let built = build_server(path, name.clone(), raw.clone(), &resolve);
    let transport = built.as_ref().ok().map(|s| s.transport.clone());
    match built {
        // An unset variable: no input value will help.
        Err(error @ ConfigError::Expand { .. }) => {
            let mut server = stand_in(&name, raw, Some(error.to_string()));
            if let ConfigError::Expand {
                source: ExpandError::Unset(_),
                ..
            } = &error
            {
                server.unset_variables = unset_variables(raw, lookup);
            }
            // Its URL when that much can be told (for `servers` and `doctor`).
            if let (TransportConfig::Http { url, .. }, Some(written)) =
                (&mut server.transport, &raw.url)
            {
                *url = expand(written, &resolve).unwrap_or_default();
            }
            Ok(server)
        }
        _ if !missing.is_empty() => {
            let template = Template {
                path: path.to_path_buf(),
                raw: raw.clone(),
                declared: declared.clone(),
            };
            // The table is checked again once the inputs have values: an error now may
            // come from the empty stand-ins.
            let mut server = stand_in(&name, raw, None);
            if let Some(transport) = transport {
                server.transport = transport;
            }
            server.inputs = missing
                .into_iter()
                .map(|id| {
                    declared.get(&id).cloned().unwrap_or(InputSpec {
                        id,
                        description: String::new(),
                        password: true,
                    })
                })
                .collect();
            server.template = Some(Arc::new(template));
            Ok(server)
        }
        Ok(mut server) => {
            server.input_values = input_references(raw)
                .iter()
                .filter_map(|id| input_value(id))
                .collect();
            Ok(server)
        }
        other => other,
    }
}

/// Every string of a server table that `${…}` expands in.
fn expanded_strings(raw: &RawServer) -> impl Iterator<Item = &String> {
    raw.command
        .iter()
        .chain(raw.args.iter().flatten())
        .chain(raw.env.iter().flat_map(|e| e.values()))
        .chain(raw.cwd.iter())
        .chain(raw.url.iter())
        .chain(raw.headers.iter().flat_map(|h| h.values()))
        .chain(raw.oauth.iter().flat_map(|o| o.strings()))
}

/// The environment variables a server table names that `lookup` does not know and that
/// have no default, each once, in the order they appear.
fn unset_variables(raw: &RawServer, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let found = std::cell::RefCell::new(Vec::<String>::new());
    // Variables found so far look set, and inputs are not the environment's: each round
    // finds one more.
    let record = |variable: &str| {
        if variable.starts_with("input:") || found.borrow().iter().any(|f| f == variable) {
            Some(String::new())
        } else {
            lookup(variable)
        }
    };
    for value in expanded_strings(raw) {
        while let Err(ExpandError::Unset(name)) = expand(value, &record) {
            found.borrow_mut().push(name);
        }
    }
    found.into_inner()
}

/// The ids of the inputs a server table needs, in the order they appear (an input with a
/// default, `${input:ID:-default}`, is not needed).
fn input_references(raw: &RawServer) -> Vec<String> {
    let found = std::cell::RefCell::new(Vec::<String>::new());
    // Inputs found so far look given; an unknown one is unset, so `expand` reports it only
    // when it has no default. Each round finds one more.
    let record = |variable: &str| match variable.strip_prefix("input:") {
        Some(id) if !found.borrow().iter().any(|f| f == id) => None,
        _ => Some(String::new()),
    };
    for value in expanded_strings(raw) {
        // Malformed text is reported when the table is built.
        while let Err(ExpandError::NoInput(id)) = expand(value, &record) {
            found.borrow_mut().push(id);
        }
    }
    found.into_inner()
}

/// A server that cannot start as it is: reported failed with `problem`, or (without one)
/// waiting for its inputs.
fn stand_in(name: &str, raw: &RawServer, problem: Option<String>) -> ServerConfig {
    // Its kind is kept: an HTTP server whose URL or headers cannot be built yet is no stdio
    // server.
    let transport = if raw.url.is_some() {
        TransportConfig::Http {
            url: String::new(),
            headers: BTreeMap::new(),
            legacy_sse: raw.transport.as_deref() == Some("sse"),
            oauth: OAuthConfig::default(),
        }
    } else {
        TransportConfig::Stdio {
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        }
    };
    ServerConfig {
        name: name.to_string(),
        transport,
        timeout: Duration::from_millis(raw.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS).max(1)),
        max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        enabled: raw.enabled.unwrap_or(true),
        cache: raw.cache.unwrap_or(true),
        live_preview: raw.live_preview.unwrap_or(false),
        source: None,
        problem,
        unset_variables: Vec::new(),
        inputs: Vec::new(),
        protocol_version: raw.protocol_version.clone(),
        template: None,
        input_values: Vec::new(),
    }
}

/// What is wrong with a server's table, whatever its values hold; [`ConfigError::Server`]
/// says it with the file and the server.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
enum ServerProblem {
    /// `[servers.""]`.
    #[error("a server name cannot be empty")]
    EmptyName,
    /// A name that cannot be written as `SERVER/PROMPT`.
    #[error(
        "the name may only hold letters, digits, `-`, `_` and `.` (found {0:?}), because it is used as `SERVER/PROMPT`"
    )]
    BadName(char),
    /// A `protocol_version` mcpick does not speak.
    #[error(
        "`protocol_version = {0:?}` is not a version mcpick speaks: use one of {known}, or leave it out to have mcpick find the server's",
        known = PROTOCOL_VERSIONS.join(", ")
    )]
    UnknownVersion(String),
    /// A header name HTTP cannot carry.
    #[error(
        "`headers`: {0:?} is not a header name HTTP can carry (letters, digits and !#$%&'*+-.^_`|~ only; no spaces, colons or controls)"
    )]
    BadHeaderName(String),
    /// A header value HTTP cannot carry (never quoted: it is a secret more often than not).
    #[error(
        "`headers.{name}`: its value holds {what}{}, which HTTP cannot carry in a header; take it out",
        if *.expanded { " once its `${…}` is filled in (check the variable's value too)" } else { "" }
    )]
    BadHeaderValue {
        /// The header.
        name: String,
        /// What it holds (`a line break`, …).
        what: &'static str,
        /// Whether the value came through `${…}`.
        expanded: bool,
    },
    /// `transport = "stdio"` without `command`, or `"http"`/`"sse"` without `url`.
    #[error(
        "`transport = \"{kind}\"` needs {}",
        if kind == "stdio" { "`command`" } else { "`url`" }
    )]
    TransportNeeds {
        /// The transport.
        kind: String,
    },
    /// A transport mcpick does not know.
    #[error(
        "`transport` is \"stdio\", \"http\" (Streamable HTTP) or \"sse\" (the legacy HTTP+SSE transport), not {0:?}"
    )]
    UnknownTransport(String),
    /// `oauth` beside `transport = "sse"`.
    #[error("`oauth` does not apply to `transport = \"sse\"`: give its token in `headers`")]
    OauthOnSse,
    /// `oauth` on a stdio server.
    #[error("`oauth` only applies to `url` servers; stdio servers take credentials from `env`")]
    OauthOnStdio,
    /// Both kinds at once.
    #[error("has both `command` (stdio) and `url` (HTTP); keep one")]
    CommandAndUrl,
    /// Neither kind.
    #[error("needs `command` (a stdio server) or `url` (a Streamable HTTP server)")]
    NoCommandNorUrl,
    /// `headers` on a stdio server.
    #[error("`headers` only applies to `url` servers; stdio servers take `env`")]
    HeadersOnStdio,
    /// A stdio field (`args`, `env`, `cwd`) on a `url` server.
    #[error("`{0}` only applies to `command` servers, not `url` ones")]
    StdioFieldOnUrl(&'static str),
}

/// Checks that a server name can be used in `SERVER/PROMPT` references.
fn check_server_name(name: &str) -> Result<(), ServerProblem> {
    if name.is_empty() {
        return Err(ServerProblem::EmptyName);
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(ServerProblem::BadName(bad));
    }
    Ok(())
}

/// Checks that `protocol_version`, when set, names a version mcpick speaks.
fn check_protocol_version(version: Option<&str>) -> Result<(), ServerProblem> {
    match version {
        Some(version) if !PROTOCOL_VERSIONS.contains(&version) => {
            Err(ServerProblem::UnknownVersion(version.to_string()))
        }
        _ => Ok(()),
    }
}

/// Checks that every name of `headers` is one HTTP can carry (a token: letters, digits and
/// `` !#$%&'*+-.^_`|~ ``).
fn check_header_names(headers: Option<&BTreeMap<String, String>>) -> Result<(), ServerProblem> {
    match headers
        .into_iter()
        .flatten()
        .find(|(name, _)| http::HeaderName::from_bytes(name.as_bytes()).is_err())
    {
        Some((name, _)) => Err(ServerProblem::BadHeaderName(name.clone())),
        None => Ok(()),
    }
}

/// Checks that a header's value, `${…}` filled in, is one HTTP can carry. The value is
/// never quoted: it is a secret more often than not.
fn check_header_value(name: &str, value: &str, expanded: bool) -> Result<(), ServerProblem> {
    if http::HeaderValue::from_str(value).is_ok() {
        return Ok(());
    }
    let what = if value.contains(['\n', '\r']) {
        "a line break"
    } else if !value.is_ascii() {
        "a character outside ASCII"
    } else {
        "a control character"
    };
    Err(ServerProblem::BadHeaderValue {
        name: name.to_string(),
        what,
        expanded,
    })
}

/// Checks which fields a server table combines, whatever they hold: one of `command` and
/// `url`, a `transport` that fits, fields of the other kind left out. Gives `Some(true)`
/// for `transport = "sse"`, `Some(false)` for `"http"`, `None` when it is not written.
fn check_table_shape(raw: &RawServer) -> Result<Option<bool>, ServerProblem> {
    let legacy_sse = match raw.transport.as_deref() {
        None => None,
        Some("stdio") if raw.command.is_some() => None,
        Some("http") if raw.url.is_some() => Some(false),
        Some("sse") if raw.url.is_some() => Some(true),
        Some(kind @ ("stdio" | "http" | "sse")) => {
            return Err(ServerProblem::TransportNeeds {
                kind: kind.to_string(),
            });
        }
        Some(other) => return Err(ServerProblem::UnknownTransport(other.to_string())),
    };
    if raw.oauth.is_some() && legacy_sse == Some(true) {
        return Err(ServerProblem::OauthOnSse);
    }
    if raw.oauth.is_some() && raw.url.is_none() {
        return Err(ServerProblem::OauthOnStdio);
    }
    match (&raw.command, &raw.url) {
        (Some(_), Some(_)) => return Err(ServerProblem::CommandAndUrl),
        (None, None) => return Err(ServerProblem::NoCommandNorUrl),
        (Some(_), None) if raw.headers.is_some() => return Err(ServerProblem::HeadersOnStdio),
        _ => {}
    }
    if raw.url.is_some() {
        for (field, written) in [
            ("args", raw.args.is_some()),
            ("env", raw.env.is_some()),
            ("cwd", raw.cwd.is_some()),
        ] {
            if written {
                return Err(ServerProblem::StdioFieldOnUrl(field));
            }
        }
    }
    Ok(legacy_sse)
}

fn build_server(
    path: &Path,
    name: String,
    raw: RawServer,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig, ConfigError> {
    let server_error = |message: String| ConfigError::Server {
        path: path.to_path_buf(),
        server: name.clone(),
        message,
        at: None,
    };
    check_server_name(&name).map_err(|problem| server_error(problem.to_string()))?;
    let expand_field = |field: &str, value: &str| {
        expand(value, lookup).map_err(|source| ConfigError::Expand {
            path: path.to_path_buf(),
            server: name.clone(),
            field: field.to_string(),
            source,
        })
    };
    let legacy_sse =
        check_table_shape(&raw).map_err(|problem| server_error(problem.to_string()))?;
    let transport = match (raw.command, raw.url) {
        (Some(command), _) => {
            let command = expand_tilde(&expand_field("command", &command)?);
            if command.trim().is_empty() {
                return Err(server_error("`command` is empty".into()));
            }
            let args = raw
                .args
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, a)| expand_field(&format!("args[{i}]"), a))
                .collect::<Result<Vec<_>, _>>()?;
            let env = raw
                .env
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| Ok((k.clone(), expand_field(&format!("env.{k}"), &v)?)))
                .collect::<Result<BTreeMap<_, _>, ConfigError>>()?;
            let cwd = raw
                .cwd
                .map(|c| expand_field("cwd", &c).map(|c| PathBuf::from(expand_tilde(&c))))
                .transpose()?;
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
            }
        }
        (None, url) => {
            // `check_table_shape` made sure there is one.
            let written = url.unwrap_or_default();
            let url = expand_field("url", &written)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                // A value typed for an input may be a secret: show the URL as written.
                return Err(server_error(format!(
                    "`url` must start with http:// or https:// (got {:?})",
                    if written.contains("${input:") {
                        &written
                    } else {
                        &url
                    }
                )));
            }
            let headers = raw
                .headers
                .unwrap_or_default()
                .into_iter()
                .map(|(k, written)| {
                    let value = expand_field(&format!("headers.{k}"), &written)?;
                    check_header_value(&k, &value, written.contains("${"))
                        .map_err(|problem| server_error(problem.to_string()))?;
                    Ok((k, value))
                })
                .collect::<Result<BTreeMap<_, _>, ConfigError>>()?;
            let oauth = match raw.oauth {
                None => OAuthConfig::default(),
                Some(oauth) => oauth::parse(
                    oauth,
                    &|name: &str, value: &str| expand_field(&format!("oauth.{name}"), value),
                    &server_error,
                    &|p: &str| PathBuf::from(expand_tilde(p)),
                )?,
            };
            TransportConfig::Http {
                url,
                headers,
                legacy_sse: legacy_sse.unwrap_or(false),
                oauth,
            }
        }
    };
    let timeout_ms = raw.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        return Err(server_error("`timeout_ms` must be more than 0".into()));
    }
    let max_response_bytes = match raw.max_response_bytes {
        None => DEFAULT_MAX_RESPONSE_BYTES,
        Some(bytes) if bytes < MIN_MAX_RESPONSE_BYTES => {
            return Err(server_error(format!(
                "`max_response_bytes = {bytes}` is too small: use at least {MIN_MAX_RESPONSE_BYTES} (the default is {DEFAULT_MAX_RESPONSE_BYTES}, 32 MiB)"
            )));
        }
        Some(bytes) => usize::try_from(bytes).unwrap_or(usize::MAX),
    };
    // `prompts/get` may cost or have effects on a server: only mcpick's own prompt files
    // are previewed unless the table says so.
    let live_preview = raw
        .live_preview
        .unwrap_or_else(|| runs_mcpick_serve(&transport));
    Ok(ServerConfig {
        name,
        transport,
        timeout: Duration::from_millis(timeout_ms),
        max_response_bytes,
        enabled: raw.enabled.unwrap_or(true),
        cache: raw.cache.unwrap_or(true),
        live_preview,
        source: None,
        problem: None,
        unset_variables: Vec::new(),
        inputs: Vec::new(),
        protocol_version: raw.protocol_version.clone(),
        template: None,
        input_values: Vec::new(),
    })
}

/// Whether `transport` runs `mcpick serve …`: a program named `mcpick` (this binary or
/// another build of it) whose first argument is `serve`. Its prompts are files, so a
/// `prompts/get` costs nothing and does nothing: the live preview is on by default.
pub fn runs_mcpick_serve(transport: &TransportConfig) -> bool {
    let TransportConfig::Stdio { command, args, .. } = transport else {
        return false;
    };
    let program = Path::new(command)
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or_default();
    let this_binary = std::env::current_exe().is_ok_and(|exe| Path::new(command) == exe);
    (program == "mcpick" || this_binary) && args.first().is_some_and(|a| a == "serve")
}

/// Replaces a leading `~` or `~/` with the home directory, as a shell would.
pub(crate) fn expand_tilde(value: &str) -> String {
    let home = || directories::BaseDirs::new().map(|d| d.home_dir().to_string_lossy().into_owned());
    if value == "~" {
        return home().unwrap_or_else(|| value.to_string());
    }
    match (value.strip_prefix("~/"), home()) {
        (Some(rest), Some(home)) => format!("{home}/{rest}"),
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests;

/// The server that serves the bundled prompt library: this very binary, `serve --builtin`.
pub fn builtin_server(exe: &Path) -> ServerConfig {
    ServerConfig {
        name: "builtin".into(),
        transport: TransportConfig::Stdio {
            command: exe.display().to_string(),
            args: vec!["serve".into(), "--builtin".into()],
            env: BTreeMap::new(),
            cwd: None,
        },
        timeout: Duration::from_millis(DEFAULT_TIMEOUT_MS),
        max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        enabled: true,
        cache: true,
        live_preview: true,
        source: None,
        problem: None,
        unset_variables: Vec::new(),
        inputs: Vec::new(),
        protocol_version: None,
        template: None,
        input_values: Vec::new(),
    }
}

/// The starter config with `sources` reading other hosts' configs at start.
pub fn starter_config_with_sources(exe: &Path, sources: &[String]) -> String {
    let list: Vec<String> = sources
        .iter()
        .map(|s| toml::Value::String(s.clone()).to_string())
        .collect();
    starter_config(exe).replacen(
        "\n# The prompt library bundled",
        &format!(
            "\n# Other hosts' MCP configs, read at every start (see docs/config.md in mcpick's repository):\nsources = [{}]\n\n# The prompt library bundled",
            list.join(", ")
        ),
        1,
    )
}

/// The commented starter config `mcpick init` writes, with the bundled library as `builtin`.
pub fn starter_config(exe: &Path) -> String {
    let command = toml::Value::String(exe.display().to_string());
    format!(
        r#"# mcpick config. Every field is documented in config.example.toml in mcpick's repository.
#
# Each [servers.NAME] table is one MCP server; NAME is how you refer to it
# (`mcpick get NAME/PROMPT`). `${{VAR}}` and `${{VAR:-default}}` expand from the environment
# in every string value.

# Where `y` and accept copy to: "auto" (a tmux buffer in tmux, the desktop clipboard on a
# desktop, OSC 52 elsewhere), "tmux", "osc52" or "native"; or any program reading stdin.
# clipboard = "auto"
# clipboard_command = ["wl-copy"]

# The prompt library bundled with mcpick (this binary, serving its own prompts).
[servers.builtin]
command = {command}
args = ["serve", "--builtin"]

# Your own prompt files (VS Code .prompt.md, Claude Code commands, mcpick .mcpick.md):
# [servers.mine]
# command = {command}
# args = ["serve", "~/prompts"]

# The MCP reference server (needs Node.js):
# [servers.everything]
# command = "npx"
# args = ["-y", "@modelcontextprotocol/server-everything"]

# A Streamable HTTP server:
# [servers.remote]
# url = "https://example.com/mcp"
# headers = {{ Authorization = "Bearer ${{REMOTE_TOKEN}}" }}
# timeout_ms = 30000
"#
    )
}
