//! The config a subcommand runs with: the file, or the bundled library when there is none.

use super::CliError;
use super::output;
use crate::config;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::search::PromptRef;
use std::path::Path;

/// The config a command runs with, checked as every command checks it.
pub(super) struct Loaded {
    /// The config (with no config file, the bundled library as the one server).
    pub config: Config,
    /// The key bindings its `[keys]` table makes.
    pub keys: crate::app::KeyMap,
    /// Said on stderr by commands that connect: there is no config file.
    pub note: Option<String>,
}

/// Loads the config; with no config file at all, the bundled library (this binary's
/// `serve --builtin`) is the one server, and a note on stderr says where a config would go.
pub(super) fn load_config(config_path: Option<&Path>) -> Result<Config, CliError> {
    let loaded = load_config_quietly(config_path)?;
    if let Some(note) = loaded.note {
        output::error(&note);
    }
    Ok(loaded.config)
}

/// The one loader of every command, the menu and `doctor` alike: [`read_config`], then
/// [`check_keys`]. A config that fails either stops the command (exit 2) at its place.
pub(super) fn load_config_quietly(config_path: Option<&Path>) -> Result<Loaded, CliError> {
    let (config, note) = read_config(config_path)?;
    let keys = check_keys(&config)?;
    Ok(Loaded { config, keys, note })
}

/// The config, or the bundled library when there is no config file (with a note saying so).
pub(super) fn read_config(
    config_path: Option<&Path>,
) -> Result<(Config, Option<String>), CliError> {
    let mut config = config::load(config_path).map_err(|e| config_error(config_path, e))?;
    let mut note = None;
    if config.path.is_none() {
        let exe = std::env::current_exe().map_err(|e| {
            CliError::runtime(format!(
                "cannot find mcpick's own binary to serve the bundled prompts: {e}"
            ))
        })?;
        config.servers = vec![config::builtin_server(&exe)];
        let place = config::default_config_path()
            .map(|p| format!(" at {}", p.display()))
            .unwrap_or_default();
        note = Some(format!(
            "no config file{place}; using the bundled prompt library as server `builtin` (`mcpick init` writes a starter config)"
        ));
    }
    Ok((config, note))
}

/// The `[keys]` table checked as the menu reads it: a screen, action or key mcpick does not
/// know stops every command, not only the menu, pointed at its line and column.
pub(super) fn check_keys(config: &Config) -> Result<crate::app::KeyMap, CliError> {
    crate::app::KeyMap::with_overrides(&config.keys).map_err(|error| {
        let error = config.keys_error(&error.screen, error.action.as_deref(), error.message);
        CliError::config(error.to_string())
    })
}

/// A config that cannot be loaded, as a command error. A file named by `--config` or
/// `MCPICK_CONFIG` that is not there gets the `init` that writes it.
fn config_error(config_path: Option<&Path>, error: config::ConfigError) -> CliError {
    match (&error, config_path) {
        (config::ConfigError::Read { source, .. }, Some(named))
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            let (what, fix) = missing_config(named);
            CliError::config(format!("{what}: {fix}"))
        }
        _ => CliError::config(error.to_string()),
    }
}

/// What is wrong when the config file `named` by `--config` or `MCPICK_CONFIG` is not
/// there, and the `mcpick init` that writes it.
pub(super) fn missing_config(named: &Path) -> (String, String) {
    let from_env =
        std::env::var_os(config::CONFIG_ENV).is_some_and(|value| Path::new(&value) == named);
    let (who, init) = if from_env {
        (
            format!("${} names it", config::CONFIG_ENV),
            "`mcpick init` writes a starter config there".to_string(),
        )
    } else {
        (
            "--config names it".to_string(),
            format!(
                "`mcpick init --config {}` writes a starter config there",
                output::shell_word(&named.display().to_string())
            ),
        )
    };
    (
        format!("config file {} does not exist ({who})", named.display()),
        format!("{init}, or name another file"),
    )
}

/// Other hosts' config files with servers, in the usual places.
pub(super) fn other_hosts_configs() -> Vec<crate::app::SourceOffer> {
    use crate::config::import;
    let context = import::Context::current();
    import::known_locations(&context)
        .into_iter()
        .filter_map(|(dialect, path)| {
            let text = std::fs::read_to_string(&path).ok()?;
            let imported = import::import(&text, &path, Some(dialect), &context).ok()?;
            (!imported.servers.is_empty()).then(|| crate::app::SourceOffer {
                dialect: dialect.name().to_string(),
                path,
                servers: imported.servers.len(),
            })
        })
        .collect()
}

/// `SERVER/PROMPT` must name a server of the config (enabled); a bare name or a prompt
/// name holding `:` passes (the menu looks it up once the servers answered).
pub(super) fn check_server_named(
    config: &Config,
    enabled: &[ServerConfig],
    reference: &PromptRef,
) -> Result<(), CliError> {
    let Some(server) = &reference.server else {
        return Ok(());
    };
    if enabled.iter().any(|s| &s.name == server) {
        return Ok(());
    }
    if config.servers.iter().any(|s| &s.name == server) {
        return Err(CliError::usage(format!(
            "server `{server}` is disabled in the config (enabled = false)"
        )));
    }
    // `git:fix` may be a prompt name with a colon, not a server.
    if reference.separator == Some(':') {
        return Ok(());
    }
    let hint = crate::search::did_you_mean(server, enabled.iter().map(|s| s.name.as_str()));
    if config.path.is_none() {
        return Err(CliError::usage(format!(
            "{}{hint}",
            no_server_without_a_config(server)
        )));
    }
    Err(CliError::usage(format!(
        "no server `{server}` in the config{hint}; `mcpick servers` lists them"
    )))
}

/// "no server `name`" when there is no config file at all: saying "in the config" would
/// send the user looking for a file that is not there.
pub(super) fn no_server_without_a_config(name: &str) -> String {
    format!(
        "no server `{name}`: there is no config file, so only the bundled library (`builtin`) is there; `mcpick init` writes a config"
    )
}

pub(super) fn no_servers(config: &Config) -> CliError {
    let place = match &config.path {
        Some(path) => format!("{} has no enabled [servers.NAME] tables", path.display()),
        None => "the config has no enabled servers".to_string(),
    };
    CliError::runtime(format!(
        "no servers to talk to: {place}. Add a [servers.NAME] table (see config.example.toml), or pass --config PATH"
    ))
}
