//! The subcommands, on top of the hub.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use super::args::{merge, parse_all, parse_args_json, read_given};
use super::{CliError, Command, output};
use crate::cache::Freshness;
use crate::catalog::{PromptRef, closest, find_preferring};
use crate::config::{self, Config, ServerConfig};
use crate::export::{Format, render};
use crate::mcp::{
    CatalogUse, Connection, EntryKind, Hub, McpError, McpEvent, PromptInfo, ServerDetails,
};

/// Loads the config; with no config file at all, the bundled library (this binary's
/// `serve --builtin`) is the one server, and a note on stderr says where a config would go.
pub(super) fn load_config(config_path: Option<&Path>) -> Result<Config, CliError> {
    let (config, note) = load_config_quietly(config_path)?;
    if let Some(note) = note {
        output::error(&note);
    }
    Ok(config)
}

/// The config, or the bundled library when there is no config file (with a note saying so).
pub(super) fn load_config_quietly(
    config_path: Option<&Path>,
) -> Result<(Config, Option<String>), CliError> {
    let mut config = config::load(config_path).map_err(|e| CliError::config(e.to_string()))?;
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

/// Other hosts' config files with servers, in the usual places.
fn other_hosts_configs() -> Vec<crate::app::SourceOffer> {
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

/// What the full-screen menu is asked to do, from the command line.
pub struct TuiRequest {
    /// `--output FILE`.
    pub output: Option<std::path::PathBuf>,
    /// `--print`.
    pub print: bool,
    /// `--format`.
    pub format: String,
    /// `-q`, `--select-1`, `--exit-0`, `SERVER/PROMPT NAME=VALUE…`.
    pub start: crate::app::Start,
    /// The whole screen, or `--height`.
    pub screen: crate::tui::ScreenMode,
}

/// The full-screen menu.
pub async fn tui(config_path: Option<&Path>, request: TuiRequest) -> Result<ExitCode, CliError> {
    let TuiRequest {
        output: output_path,
        print,
        format,
        start,
        screen,
    } = request;
    let format: Format = format.parse().map_err(CliError::usage)?;
    if !crate::tui::has_terminal() {
        // `mcpick lsit` in a script: the typo is the news, not the missing terminal.
        if let Some(open) = &start.open
            && let Some(command) = &open.near_command
        {
            return Err(CliError::usage(format!(
                "`{}` is no command: did you mean `mcpick {command}`? (a bare word opens the menu on that prompt, and the menu needs a terminal)",
                open.reference.whole
            )));
        }
        return Err(CliError::usage(
            "the full-screen menu needs a terminal; in scripts use `mcpick list`, `mcpick get` or `mcpick complete`",
        ));
    }
    let (config, note) = load_config_quietly(config_path)?;
    let keys = crate::app::KeyMap::with_overrides(&config.keys).map_err(|e| {
        let place = config
            .path
            .as_ref()
            .map(|p| format!("{}: ", p.display()))
            .unwrap_or_default();
        CliError::usage(format!("{place}{e}"))
    })?;
    let servers: Vec<_> = config.enabled_servers().cloned().collect();
    if let Some(open) = &start.open {
        check_server_named(&config, &servers, &open.reference)?;
    }
    // A first run: offer the servers of other hosts' configs found here.
    let offer = if note.is_some() {
        other_hosts_configs()
    } else {
        Vec::new()
    };
    let note = note.map(|_| {
        "No config file: showing the bundled library (`mcpick init` writes one).".to_string()
    });
    let options = crate::app::Options {
        output: output_path,
        print,
        format,
        color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        theme: config.theme.colors,
        light_theme: config.theme.light_variant,
        clipboard: config.clipboard.clone(),
        start,
        live_preview: servers
            .iter()
            .filter(|s| s.live_preview)
            .map(|s| s.name.clone())
            .collect(),
        audio_player: config.audio_player.clone(),
        image_protocol: config.image_protocol,
        graphics: crate::app::images::Graphics::default(),
    };
    // A TUI that cannot run is an error (2), as fzf's.
    let outcome = crate::tui::run(servers, options, keys, note, offer, screen)
        .await
        .map_err(CliError::usage)?;
    if let Some(text) = outcome.print {
        let stdout = std::io::stdout();
        let for_terminal = std::io::IsTerminal::is_terminal(&stdout);
        let mut lock = stdout.lock();
        let written = std::io::Write::write_all(
            &mut lock,
            crate::text::for_output(&text, for_terminal).as_bytes(),
        )
        .and_then(|()| std::io::Write::flush(&mut lock));
        // The accepted text is the whole point of the run: losing it is an error (2).
        if let Err(error) = written {
            return Err(CliError::usage(format!(
                "cannot write the export to stdout ({error}); nothing was printed in full. `s` on the review saves to a file instead"
            )));
        }
    }
    for note in &outcome.notes {
        output::error(note);
    }
    Ok(ExitCode::from(outcome.code))
}

/// `SERVER/PROMPT` must name a server of the config (enabled); a bare name or a prompt
/// name holding `:` passes (the menu looks it up once the servers answered).
fn check_server_named(
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
    let hint = crate::catalog::did_you_mean(server, enabled.iter().map(|s| s.name.as_str()));
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

/// Writes the starter config to `--config`/`MCPICK_CONFIG` or the default location.
pub fn init(config_path: Option<&Path>) -> Result<ExitCode, CliError> {
    let path = match config_path {
        Some(path) => path.to_path_buf(),
        None => config::default_config_path().ok_or_else(|| {
            CliError::runtime("this platform has no config directory; pass --config PATH")
        })?,
    };
    if path.exists() {
        return Err(CliError::runtime(format!(
            "{} already exists; not overwriting it (edit it, or move it away first)",
            path.display()
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::runtime(format!("cannot find mcpick's own binary: {e}")))?;
    // Write `mcpick` when that is what PATH finds, so the config survives reinstalls;
    // otherwise (e.g. a build in target/) the full path.
    let on_path = std::env::var_os("PATH").and_then(|path| {
        let me = exe.canonicalize().ok()?;
        std::env::split_paths(&path)
            .any(|dir| dir.join("mcpick").canonicalize().ok().as_ref() == Some(&me))
            .then(|| std::path::PathBuf::from("mcpick"))
    });
    let exe = on_path.unwrap_or(exe);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::runtime(format!("cannot create {}: {e}", dir.display())))?;
    }
    // create_new: never clobber a file that appeared since the check above.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| CliError::runtime(format!("cannot write {}: {e}", path.display())))?;
    use std::io::Write as _;
    file.write_all(config::starter_config(&exe).as_bytes())
        .map_err(|e| CliError::runtime(format!("cannot write {}: {e}", path.display())))?;
    output::error(&format!("wrote a starter config to {}", path.display()));
    Ok(ExitCode::SUCCESS)
}

/// Runs one subcommand.
pub async fn run(config_path: Option<&Path>, command: Command) -> Result<ExitCode, CliError> {
    let config = load_config(config_path)?;
    let result = run_loaded(&config, command).await;
    tell_catalog_write_failure();
    result
}

/// The catalog write failures of this command's hubs, told once at its end.
static WRITE_FAILURES: std::sync::Mutex<Vec<crate::mcp::CatalogWriteFailure>> =
    std::sync::Mutex::new(Vec::new());

/// Prints the first failed catalog write of the command (its hubs are shut down, their
/// writes done) as one warning line; nothing when every write went through.
fn tell_catalog_write_failure() {
    let failures = std::mem::take(&mut *WRITE_FAILURES.lock().unwrap_or_else(|e| e.into_inner()));
    if let Some((server, text)) = failures.iter().find_map(|f| f.take()) {
        output::error(&format!("server `{server}`: {text}"));
    }
}

/// [`run`] once the config is read.
async fn run_loaded(config: &Config, command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::List { json, .. } => list(config, json).await,
        Command::Servers { json, .. } => servers(config, json).await,
        Command::Get {
            prompt,
            assignments,
            args,
            arg_files,
            args_json,
            format,
            copy,
            answers,
            answers_json,
            decline,
            task,
            attach,
            ..
        } => {
            let format: Format = format.parse().map_err(CliError::usage)?;
            let answering =
                super::inputs::AnswerFlags::parse(&answers, answers_json.as_deref(), decline)
                    .map_err(CliError::usage)?;
            let words: Vec<String> = assignments.into_iter().chain(args).collect();
            let mut pairs = given_values(&words, &arg_files, StdinFrom::Anything)?.0;
            if let Some(json) = &args_json {
                pairs.extend(parse_args_json(json).map_err(CliError::usage)?);
            }
            if let Some(task) = task {
                pairs.push((crate::mcp::skill_verify::TASK_ARGUMENT.to_string(), task));
            }
            let arguments = merge(pairs).map_err(CliError::usage)?;
            let skill = SkillGet { attach };
            get(config, &prompt, arguments, format, copy, answering, skill).await
        }
        Command::Complete {
            prompt,
            argument,
            prefix,
            context,
            json,
            ..
        } => {
            let pairs = given_values(&context, &[], StdinFrom::Anything)?.0;
            let context = merge(pairs).map_err(CliError::usage)?;
            complete(config, &prompt, &argument, &prefix, &context, json).await
        }
        Command::Serve { .. }
        | Command::Init
        | Command::Config { .. }
        | Command::Auth { .. }
        | Command::Cache { .. }
        | Command::ShellInit { .. }
        | Command::Completions { .. }
        | Command::Man
        | Command::Doctor { .. }
        | Command::ConformanceClient { .. }
        | Command::ClipboardHold => {
            unreachable!("dispatched in cli::run")
        }
    }
}

/// What `NAME=-` may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StdinFrom {
    /// A pipe, a file, or the terminal (typed, ended with Ctrl-D), as curl reads it.
    Anything,
    /// A pipe or a file only: the full-screen menu takes the terminal next, so reading
    /// it first would wait for a Ctrl-D nobody expects.
    NotTheTerminal,
}

/// The arguments `words` (`NAME=VALUE`, `NAME=@PATH`, `NAME=-`) and `arg_files`
/// (`NAME=PATH`) give, files and standard input read; and where each read value came from.
/// A file or stdin that cannot be a value is a usage error (exit 2) saying why.
pub(super) fn given_values(
    words: &[String],
    arg_files: &[String],
    stdin: StdinFrom,
) -> Result<super::args::ReadValues, CliError> {
    let given = parse_all(words, arg_files).map_err(CliError::usage)?;
    read_given(given, crate::app::source::DEFAULT_VALUE_LIMIT, |limit| {
        if stdin == StdinFrom::NotTheTerminal && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(
                "standard input is the terminal: pipe the value in (`git diff | mcpick SERVER/PROMPT NAME=-`) or give a file (NAME=@FILE)"
                    .to_string(),
            );
        }
        crate::value_io::read_stdin(limit)
    })
    .map_err(CliError::usage)
}

fn no_servers(config: &Config) -> CliError {
    let place = match &config.path {
        Some(path) => format!("{} has no enabled [servers.NAME] tables", path.display()),
        None => "the config has no enabled servers".to_string(),
    };
    CliError::runtime(format!(
        "no servers to talk to: {place}. Add a [servers.NAME] table (see config.example.toml), or pass --config PATH"
    ))
}

/// What one server ended up as, after the hub reported on it.
enum Outcome {
    Ready {
        details: ServerDetails,
        prompts: Vec<PromptInfo>,
        /// What its prompt list left out, one line each.
        warnings: Vec<String>,
        /// The prompts came from the catalog (not listed now), this fresh.
        cached: Option<Freshness>,
    },
    Failed {
        error: McpError,
        stderr: Vec<String>,
    },
}

/// Starts `servers` with what the catalog holds of them, used as `catalog` says, waits
/// until each is ready or failed, and returns the hub (still connected) with each server's
/// outcome. Ctrl-C stops waiting.
async fn connect_all(
    servers: Vec<ServerConfig>,
    catalog: CatalogUse,
) -> Result<(Hub, BTreeMap<String, Outcome>), CliError> {
    connect_all_reading(servers, catalog, true).await
}

/// [`connect_all`]; with `read_catalog` false the catalog is not read (each server gets
/// the normal handshake and lists), only written.
async fn connect_all_reading(
    servers: Vec<ServerConfig>,
    catalog: CatalogUse,
    read_catalog: bool,
) -> Result<(Hub, BTreeMap<String, Outcome>), CliError> {
    let servers = super::inputs::ask(servers)?;
    let (tx, mut rx) = mpsc::channel(64);
    let mut pending: std::collections::BTreeSet<String> =
        servers.iter().map(|s| s.name.clone()).collect();
    let servers: Vec<(ServerConfig, Option<crate::cache::ServerEntry>)> = servers
        .into_iter()
        .map(|server| {
            if !read_catalog {
                return (server, None);
            }
            let (entry, notice) = crate::cache::at_start(&server, || {
                crate::mcp::auth::authorization_context(&server)
            });
            if let Some(notice) = notice {
                output::error(&notice);
            }
            (server, entry)
        })
        .collect();
    let hub = Hub::start_once_cached(servers, tx, catalog);
    WRITE_FAILURES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(hub.catalog_write_failure());
    let mut outcomes = BTreeMap::new();
    // Warnings come before the server's Ready, and so does its FromCatalog.
    let mut warnings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cached: BTreeMap<String, Freshness> = BTreeMap::new();
    let interrupt = crate::sys::signals::stopped();
    tokio::pin!(interrupt);
    while !pending.is_empty() {
        let event = tokio::select! {
            event = rx.recv() => event,
            code = &mut interrupt => {
                hub.shutdown().await;
                return Err(CliError { code, message: "stopped by a signal; servers shut down".into() });
            }
        };
        let Some(event) = event else { break };
        match event {
            McpEvent::Ready {
                server,
                details,
                prompts,
            } => {
                pending.remove(&server);
                let warnings = warnings.remove(&server).unwrap_or_default();
                let cached = cached.remove(&server);
                outcomes.insert(
                    server,
                    Outcome::Ready {
                        details,
                        prompts,
                        warnings,
                        cached,
                    },
                );
            }
            McpEvent::FromCatalog { server, freshness } if pending.contains(&server) => {
                cached.insert(server, freshness);
            }
            McpEvent::Warning { server, text } if pending.contains(&server) => {
                warnings.entry(server).or_default().push(text);
            }
            // A failure after Ready (the server dropped) does not replace the outcome.
            McpEvent::Failed {
                server,
                error,
                stderr,
            } if pending.remove(&server) => {
                outcomes.insert(server, Outcome::Failed { error, stderr });
            }
            _ => {}
        }
    }
    Ok((hub, outcomes))
}

fn report_failure(server: &str, error: &McpError, stderr: &[String]) {
    output::error(&format!("server `{server}` failed: {error}"));
    report_stderr(server, stderr);
}

/// The server's last stderr lines and where the full log is, one line each (nested lines
/// indented), or nothing when it wrote none.
fn stderr_report(server: &str, stderr: &[String]) -> Vec<String> {
    if stderr.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["its last stderr lines:".to_string()];
    lines.extend(stderr.iter().map(|line| format!("  {line}")));
    if let Some(reason) = crate::mcp::log::file_unavailable() {
        lines.push(format!("({reason})"));
    } else if let Some(dir) = config::log_dir() {
        lines.push(if crate::mcp::log::left_out_of(server) {
            format!(
                "(the log, in {}, has them up to its flood budget; how many it left out is said below)",
                dir.display()
            )
        } else {
            format!("(all of them are in the log, in {})", dir.display())
        });
    }
    lines
}

/// Prints [`stderr_report`] under a diagnostic already printed.
fn report_stderr(server: &str, stderr: &[String]) {
    stderr_report(server, stderr)
        .iter()
        .for_each(|line| output::detail(line));
}

/// [`stderr_report`] as the tail of an error message.
fn stderr_block(server: &str, stderr: &[String]) -> String {
    stderr_report(server, stderr)
        .iter()
        .map(|line| format!("\n  {line}"))
        .collect()
}

fn write(body: &str) -> Result<(), CliError> {
    output::result(body).map_err(|e| CliError::runtime(format!("cannot write the output: {e}")))
}

async fn list(config: &Config, json: bool) -> Result<ExitCode, CliError> {
    let servers: Vec<ServerConfig> = config.enabled_servers().cloned().collect();
    if servers.is_empty() {
        return Err(no_servers(config));
    }
    let order: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
    let (hub, outcomes) = connect_all(servers, CatalogUse::MENU).await?;
    hub.shutdown().await;
    let mut prompts = Vec::new();
    let mut answered = Vec::new();
    let mut failed = 0;
    for name in &order {
        match outcomes.get(name) {
            Some(Outcome::Ready {
                prompts: p,
                warnings,
                ..
            }) => {
                answered.push(name.as_str());
                prompts.extend(p.iter().cloned());
                for warning in warnings {
                    output::error(&format!("server `{name}`: {warning}"));
                }
            }
            Some(Outcome::Failed { error, stderr }) => {
                failed += 1;
                report_failure(name, error, stderr);
            }
            None => {}
        }
    }
    if json {
        let entries: Vec<serde_json::Value> = prompts.iter().map(entry_json).collect();
        let body = serde_json::to_string_pretty(&entries).unwrap_or_default();
        write(&format!("{body}\n"))?;
    } else {
        write(&list_text(&prompts))?;
    }
    if !answered.is_empty() && prompts.is_empty() {
        output::error(&no_prompts_listed(&answered, failed));
    }
    Ok(if !answered.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Why `mcpick list` printed nothing: which servers answered with no prompts, and how
/// many others failed (their errors are printed above it).
fn no_prompts_listed(answered: &[&str], failed: usize) -> String {
    let offered = match answered {
        [one] => format!("`{one}` answered but offers no prompts"),
        [_, _] | [_, _, _] => format!(
            "{} answered but offer no prompts",
            answered
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        many => format!("all {} servers that answered offer no prompts", many.len()),
    };
    match failed {
        0 => offered,
        failed => format!(
            "{offered}; {} failed (above)",
            crate::text::counted(failed, "server", "servers")
        ),
    }
}

/// One entry of `list --json`: its `kind` (`prompt` or `skill`) first, then the entry.
fn entry_json(prompt: &PromptInfo) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    object.insert("kind".into(), json!(prompt.kind().as_str()));
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(prompt) {
        object.extend(fields);
    }
    serde_json::Value::Object(object)
}

/// One line per prompt: `server/name  args  title: first line of description`; a skill's
/// says `(skill)` before its description.
fn list_text(prompts: &[PromptInfo]) -> String {
    let refs: Vec<String> = prompts
        .iter()
        .map(|p| format!("{}/{}", p.server, p.name))
        .collect();
    let width = refs.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (prompt, reference) in prompts.iter().zip(&refs) {
        let args: Vec<String> = prompt
            .arguments
            .iter()
            .map(|a| {
                if a.required {
                    format!("{}*", a.name)
                } else {
                    format!("[{}]", a.name)
                }
            })
            .collect();
        let mut line = crate::text::pad_right(reference, width);
        if !args.is_empty() {
            line.push_str(&format!("  {}", args.join(" ")));
        }
        if prompt.skill.is_some() {
            line.push_str("  (skill)");
        }
        let summary = prompt
            .description
            .as_deref()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("")
            .trim();
        // One line per prompt, whatever a server put in its title.
        let title = prompt
            .title
            .as_ref()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
        match (&title, summary.is_empty()) {
            (Some(title), false) => line.push_str(&format!("  — {title}: {summary}")),
            (Some(title), true) => line.push_str(&format!("  — {title}")),
            (None, false) => line.push_str(&format!("  — {summary}")),
            (None, true) => {}
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Where a reference points.
enum Target<'a> {
    /// One server, and the prompt's name on it.
    One(&'a ServerConfig, String),
    /// A bare name with several servers enabled: look on all of them.
    Search(String),
}

/// Resolves `SERVER/PROMPT`, `SERVER:PROMPT` or a bare `PROMPT` (which may itself hold `:`).
fn resolve<'a>(config: &'a Config, reference: &str) -> Result<Target<'a>, CliError> {
    let reference = PromptRef::parse(reference).map_err(CliError::usage)?;
    let bare = |name: &str| -> Result<Target<'a>, CliError> {
        let enabled: Vec<&ServerConfig> = config.enabled_servers().collect();
        match enabled.as_slice() {
            [only] => Ok(Target::One(only, name.to_string())),
            [] => Err(no_servers(config)),
            _ => Ok(Target::Search(name.to_string())),
        }
    };
    let Some(name) = &reference.server else {
        return bare(&reference.prompt);
    };
    match config.server(name) {
        Some(server) if server.enabled => Ok(Target::One(server, reference.prompt)),
        Some(_) => Err(CliError::usage(format!(
            "server `{name}` is disabled in the config (set enabled = true)"
        ))),
        // `git:fix` names a prompt when there is no server `git`.
        None if reference.separator == Some(':') => bare(&reference.whole),
        None => {
            let names = config.servers.iter().map(|s| s.name.as_str());
            let hint = match closest(name, names, 3).as_slice() {
                [] => String::new(),
                found => format!(" Did you mean: {}?", found.join(", ")),
            };
            if config.path.is_none() {
                return Err(CliError::usage(format!(
                    "{}.{hint}",
                    no_server_without_a_config(name)
                )));
            }
            let known: Vec<&str> = config.enabled_servers().map(|s| s.name.as_str()).collect();
            Err(CliError::usage(format!(
                "no server `{name}` in the config (servers: {}).{hint}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )))
        }
    }
}

/// Finds the prompt a reference names, connecting to its server (or, for a bare name with
/// several servers, to all of them). On success the hub stays connected.
/// The hub, the prompt's server and the prompt are returned with how fresh the cached
/// list it was found in is (`None`: listed now). A cached list is taken as it is, stale or
/// not ([`CatalogUse::GET`]); a prompt a cached list lacks, fresh or stale, is looked for
/// in a list fetched again before it is refused (a server may have it before its TTL
/// runs out: an edited prompt file, `mcpick serve`'s ttl of minutes).
async fn locate(
    config: &Config,
    reference: &str,
    prefer: EntryKind,
) -> Result<(Hub, ServerConfig, PromptInfo, Option<Freshness>), CliError> {
    let name = match resolve(config, reference)? {
        Target::One(server, prompt) => {
            let (hub, found, cached) = open_prompt(server, &prompt, true, prefer).await?;
            return Ok((hub, server.clone(), found, cached));
        }
        Target::Search(name) => name,
    };
    let (hub, mut outcomes) =
        connect_all(config.enabled_servers().cloned().collect(), CatalogUse::GET).await?;
    let lacks = |outcomes: &BTreeMap<String, Outcome>| {
        !outcomes.values().any(|outcome| {
            matches!(outcome, Outcome::Ready { prompts, .. } if prompts.iter().any(|p| p.name == name))
        })
    };
    if lacks(&outcomes) {
        for (server, outcome) in outcomes.iter_mut() {
            if let Outcome::Ready {
                prompts,
                cached: cached @ Some(_),
                ..
            } = outcome
                && let Some(listed) = relisted(&hub, server).await
            {
                *prompts = listed;
                *cached = None;
            }
        }
    }
    let mut everything = Vec::new();
    for (server, outcome) in &outcomes {
        match outcome {
            Outcome::Ready { prompts, .. } => everything.extend(prompts.iter().cloned()),
            Outcome::Failed { error, stderr } => report_failure(server, error, stderr),
        }
    }
    let mut matches: Vec<&PromptInfo> = everything.iter().filter(|p| p.name == name).collect();
    // A prompt and a skill of one name on one server: the skill, as `find` picks.
    if matches.len() > 1 && matches.iter().all(|p| p.server == matches[0].server) {
        matches = find_preferring(&everything, &name, prefer)
            .into_iter()
            .collect();
    }
    match matches.as_slice() {
        [one] => {
            let server = config
                .server(&one.server)
                .cloned()
                .ok_or_else(|| CliError::runtime("the server vanished from the config"))?;
            let found = (*one).clone();
            let cached = match outcomes.get(&server.name) {
                Some(Outcome::Ready { cached, .. }) => *cached,
                _ => None,
            };
            Ok((hub, server, found, cached))
        }
        [] => {
            hub.shutdown().await;
            let names: Vec<String> = everything
                .iter()
                .map(|p| format!("{}/{}", p.server, p.name))
                .collect();
            let bare_names = everything.iter().map(|p| p.name.as_str());
            let near: Vec<String> = closest(&name, bare_names, 3)
                .into_iter()
                .flat_map(|n| {
                    names
                        .iter()
                        .filter(move |full| full.ends_with(&format!("/{n}")))
                        .cloned()
                })
                .collect();
            let hint = if near.is_empty() {
                " (`mcpick list` shows them all)".to_string()
            } else {
                format!(". Did you mean: {}?", near.join(", "))
            };
            Err(CliError::usage(format!(
                "no server has a prompt `{name}`{hint}"
            )))
        }
        many => {
            hub.shutdown().await;
            let choices: Vec<String> = many
                .iter()
                .map(|p| format!("{}/{}", p.server, p.name))
                .collect();
            Err(CliError::usage(format!(
                "`{name}` is a prompt of several servers; say which: {}",
                choices.join(", ")
            )))
        }
    }
}

/// The list `server` fetches again now (written to the catalog), or `None` when that
/// failed (logged; the caller goes on with the list it has).
async fn relisted(hub: &Hub, server: &str) -> Option<Vec<PromptInfo>> {
    match hub.relist_and_wait(server).await? {
        Ok(prompts) => Some(prompts),
        Err(error) => {
            tracing::info!(%server, %error, "listing again failed");
            None
        }
    }
}

/// Connects to one server and finds one prompt on it, in the catalog's list when
/// `read_catalog` allows (see [`locate`]). On success the hub stays connected.
async fn open_prompt(
    server: &ServerConfig,
    prompt: &str,
    read_catalog: bool,
    prefer: EntryKind,
) -> Result<(Hub, PromptInfo, Option<Freshness>), CliError> {
    let (hub, mut outcomes) =
        connect_all_reading(vec![server.clone()], CatalogUse::GET, read_catalog).await?;
    let outcome = outcomes.remove(&server.name);
    let (mut prompts, mut cached) = match outcome {
        Some(Outcome::Ready {
            prompts, cached, ..
        }) => (prompts, cached),
        Some(Outcome::Failed { error, stderr }) => {
            hub.shutdown().await;
            report_failure(&server.name, &error, &stderr);
            // Said above: why (it may have been reached, and answered wrongly).
            return Err(CliError::runtime(format!(
                "cannot use `{prompt}`: server `{}` failed",
                server.name
            )));
        }
        None => {
            hub.shutdown().await;
            return Err(CliError::runtime(format!(
                "server `{}` did not report back",
                server.name
            )));
        }
    };
    // Only on the way to a refusal: a found prompt costs no list.
    if find_preferring(&prompts, prompt, prefer).is_none()
        && cached.is_some()
        && let Some(listed) = relisted(&hub, &server.name).await
    {
        (prompts, cached) = (listed, None);
    }
    match find_preferring(&prompts, prompt, prefer) {
        Some(found) => Ok((hub, found.clone(), cached)),
        None => {
            hub.shutdown().await;
            Err(CliError::usage(no_such_prompt(
                &server.name,
                prompt,
                &prompts,
            )))
        }
    }
}

/// "server `s` has no prompt `p`", with the nearest names it has, or how many there are
/// to look through (or that there are none).
fn no_such_prompt(server: &str, wanted: &str, prompts: &[PromptInfo]) -> String {
    let names = prompts.iter().map(|p| p.name.as_str());
    let hint = match closest(wanted, names, 3).as_slice() {
        [] if prompts.is_empty() => ": it offers no prompts".to_string(),
        [] => format!(
            " (`mcpick list` shows {})",
            match prompts.len() {
                1 => "its one prompt".to_string(),
                many => format!("all {many} of its prompts"),
            }
        ),
        found => format!(
            ". Did you mean: {}?",
            found
                .iter()
                .map(|n| format!("{server}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!("server `{server}` has no prompt `{wanted}`{hint}")
}

/// What `mcpick servers` says of an HTTP server's sign-in: its tokens when it has some;
/// without them, "not needed" once the server answered without asking for one, and "not
/// signed in" only when it asked (a 401) on a transport mcpick signs in to. Nothing when
/// that is not known (it failed before saying, or was not contacted).
fn sign_in_words(
    state: &crate::mcp::auth::SignInState,
    outcome: Option<&Outcome>,
    signs_in: bool,
) -> Option<String> {
    use crate::mcp::auth::SignInState;
    match (state, outcome) {
        (SignInState::SignedOut, Some(Outcome::Ready { .. })) => Some("not needed".to_string()),
        (
            SignInState::SignedOut,
            Some(Outcome::Failed {
                error: McpError::SignInRequired { .. },
                ..
            }),
        ) if signs_in => Some(state.describe()),
        (SignInState::SignedOut, _) => None,
        (state, _) => Some(state.describe()),
    }
}

/// The usage of one prompt: its call shape and every argument with its description.
pub fn prompt_usage(prompt: &PromptInfo) -> String {
    let mut call = format!("usage: mcpick get {}/{}", prompt.server, prompt.name);
    for arg in &prompt.arguments {
        if arg.required {
            call.push_str(&format!(" {}=VALUE", arg.name));
        } else {
            call.push_str(&format!(" [{}=VALUE]", arg.name));
        }
    }
    let mut out = call;
    if let Some(title) = &prompt.title {
        out.push_str(&format!("\n\n{title}"));
    }
    if let Some(description) = &prompt.description {
        out.push_str(&format!("\n\n{description}"));
    }
    if !prompt.arguments.is_empty() {
        out.push_str("\n\narguments:");
        let width = prompt
            .arguments
            .iter()
            .map(|a| a.name.chars().count())
            .max()
            .unwrap_or(0);
        for arg in &prompt.arguments {
            let mark = if arg.required { "required" } else { "optional" };
            let mut about = String::new();
            if let Some(title) = &arg.title {
                about.push_str(title);
            }
            if let Some(description) = &arg.description {
                if !about.is_empty() {
                    about.push_str(": ");
                }
                about.push_str(description);
            }
            let line = format!(
                "\n  {}  ({mark})  {about}",
                crate::text::pad_right(&arg.name, width)
            );
            out.push_str(line.trim_end());
        }
    }
    out
}

/// The usage error of a name that is no argument of `prompt`, with the nearest one that
/// is and the prompt's usage.
fn no_such_argument(prompt: &PromptInfo, name: &str) -> CliError {
    CliError::usage(format!(
        "prompt `{}` has no argument `{name}`{}\n\n{}",
        prompt.name,
        argument_hint(prompt, name),
        prompt_usage(prompt)
    ))
}

/// [`crate::catalog::did_you_mean`] among the prompt's argument names.
fn argument_hint(prompt: &PromptInfo, name: &str) -> String {
    crate::catalog::did_you_mean(name, prompt.arguments.iter().map(|a| a.name.as_str()))
}

/// Checks the arguments against the prompt before anything is sent.
fn check_arguments(
    prompt: &PromptInfo,
    arguments: &BTreeMap<String, String>,
) -> Result<(), CliError> {
    if let Some(name) = arguments
        .keys()
        .find(|name| prompt.argument(name).is_none())
    {
        return Err(no_such_argument(prompt, name));
    }
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !arguments.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(CliError::usage(format!(
            "missing required argument{} {}\n\n{}",
            if missing.len() > 1 { "s" } else { "" },
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", "),
            prompt_usage(prompt)
        )));
    }
    Ok(())
}

/// Runs one request on `server`'s connection (Ctrl-C cancels it, which sends
/// `notifications/cancelled`), then closes the hub.
async fn request_then_close<T, Fut>(
    hub: Hub,
    server: &str,
    request: impl FnOnce(Arc<Connection>) -> Fut,
) -> Result<Result<T, String>, CliError>
where
    Fut: Future<Output = Result<T, McpError>>,
{
    let result = request_on(&hub, server, request).await;
    hub.shutdown().await;
    let result = result?;
    Ok(result.map_err(|(error, stderr)| format!("{error}{stderr}")))
}

/// [`request_then_close`] without the closing: the hub stays up (for a re-list or a
/// reconnection after a failure), and a failure comes with its stderr block apart.
async fn request_on<T, Fut>(
    hub: &Hub,
    server: &str,
    request: impl FnOnce(Arc<Connection>) -> Fut,
) -> Result<Result<T, (McpError, String)>, CliError>
where
    Fut: Future<Output = Result<T, McpError>>,
{
    let mut stderr = Vec::new();
    let result = match hub.connection(server) {
        Some(connection) => {
            let log = connection.log().clone();
            let result = tokio::select! {
                result = request(connection) => Ok(result),
                code = crate::sys::signals::stopped() => Err(code),
            };
            // Questions mcpick could not put to anyone are its own decision, not the
            // server's failure: its stderr would only bury the flag to use.
            if matches!(&result, Ok(Err(e)) if !matches!(e, McpError::InputRequired(_))) {
                // Give the stderr reader a moment: a crashing server's last words matter.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                stderr = log.stderr_tail(crate::mcp::STDERR_TAIL);
            }
            result
        }
        None => Ok(Err(McpError::Closed(String::new()))),
    };
    let result = result.map_err(|code| CliError {
        code,
        message: "stopped by a signal; the request was cancelled".into(),
    })?;
    Ok(result.map_err(|error| (error, stderr_block(server, &stderr))))
}

/// What `get` takes for a skill beyond its task.
struct SkillGet {
    /// Supporting files to attach (`--attach`).
    attach: Vec<String>,
}

async fn get(
    config: &Config,
    reference: &str,
    arguments: BTreeMap<String, String>,
    format: Format,
    copy: bool,
    answering: super::inputs::AnswerFlags,
    skill: SkillGet,
) -> Result<ExitCode, CliError> {
    if let Some((server, uri)) = skill_uri_reference(config, reference)? {
        return get_skill_by_uri(config, server, &uri, arguments, format, copy, skill).await;
    }
    let (mut hub, server, mut prompt, mut cached) =
        locate(config, reference, EntryKind::Skill).await?;
    if prompt.skill.is_none() && !skill.attach.is_empty() {
        hub.shutdown().await;
        return Err(CliError::usage(format!(
            "{}/{} is a prompt: --attach is for a skill's files",
            server.name, prompt.name
        )));
    }
    if let Some(manifest) = prompt.skill.clone() {
        let cached = cached.is_some();
        return get_skill(
            config, hub, &server, &prompt, &manifest, cached, arguments, format, copy, skill,
        )
        .await;
    }
    // Checked against the cached list; it is listed again before refusing, fresh or stale.
    if check_arguments(&prompt, &arguments).is_err()
        && cached.is_some()
        && let Some(listed) = relisted(&hub, &server.name).await
    {
        cached = None;
        match find_preferring(&listed, &prompt.name, prompt.kind()) {
            Some(found) => prompt = found.clone(),
            None => {
                hub.shutdown().await;
                return Err(CliError::usage(no_such_prompt(
                    &server.name,
                    &prompt.name,
                    &listed,
                )));
            }
        }
    }
    if let Err(error) = check_arguments(&prompt, &arguments) {
        hub.shutdown().await;
        return Err(error);
    }
    let skipped_handshake = hub
        .connection(&server.name)
        .is_some_and(|c| c.skipped_handshake());
    let mut result = fill_on(&hub, &server.name, &prompt.name, &arguments, &answering).await;
    // Started from the catalog with no handshake, and the server's era changed: once more
    // with the normal handshake (which writes the catalog anew).
    if skipped_handshake
        && matches!(&result, Ok(Err((error, _))) if crate::mcp::looks_like_another_era(error))
    {
        tracing::info!(server = %server.name, "the first request failed as from another era; connecting again");
        hub.shutdown().await;
        let (again, found, _) = open_prompt(&server, &prompt.name, false, prompt.kind()).await?;
        (hub, prompt, cached) = (again, found, None);
        if let Err(error) = check_arguments(&prompt, &arguments) {
            hub.shutdown().await;
            return Err(error);
        }
        result = fill_on(&hub, &server.name, &prompt.name, &arguments, &answering).await;
    }
    // The server refused the arguments of a prompt only the catalog vouched for: the
    // catalog is brought up to date, and the new list checks the request as a live one
    // would have (the same refusal, exit 2, warm or cold), with the server's words.
    if cached.is_some()
        && let Ok(Err((error @ McpError::Server { code: -32602, .. }, stderr))) = &result
        && let Some(listed) = relisted(&hub, &server.name).await
    {
        let refused = match find_preferring(&listed, &prompt.name, prompt.kind()) {
            Some(found) => check_arguments(found, &arguments).err(),
            None => Some(CliError::usage(no_such_prompt(
                &server.name,
                &prompt.name,
                &listed,
            ))),
        };
        if let Some(refused) = refused {
            hub.shutdown().await;
            return Err(CliError::usage(format!(
                "{}/{}: {error}{stderr}
{}",
                server.name, prompt.name, refused.message
            )));
        }
    }
    hub.shutdown().await;
    let result = result?.map_err(|(error, stderr)| format!("{error}{stderr}"));
    match result {
        Ok(Filled::Stopped) => Err(CliError {
            code: 130,
            message: "stopped while answering the server's questions; the request was cancelled"
                .into(),
        }),
        Ok(Filled::WrongFlag(words)) => Err(CliError::usage(words)),
        Ok(Filled::Messages(messages)) => print_messages(config, &messages, format, copy).await,
        Err(error) => Err(CliError::runtime(format!(
            "{}/{}: {error}",
            server.name, prompt.name
        ))),
    }
}

/// `get` of a skill: its `SKILL.md` (and `--attach` files) read and verified, its task
/// after them. A file that fails verification is refused by name. When the manifest came
/// from the catalog, a refusal first lists the server again: a skill updated since then
/// is loaded from its current entry (the SEP's way back from a stale listing), the same
/// entry again is refused.
#[allow(clippy::too_many_arguments)]
async fn get_skill(
    config: &Config,
    hub: Hub,
    server: &ServerConfig,
    prompt: &PromptInfo,
    manifest: &crate::mcp::skill_verify::SkillManifest,
    cached: bool,
    arguments: BTreeMap<String, String>,
    format: Format,
    copy: bool,
    skill: SkillGet,
) -> Result<ExitCode, CliError> {
    if let Err(error) = check_arguments(prompt, &arguments) {
        hub.shutdown().await;
        return Err(error);
    }
    let task = arguments
        .get(crate::mcp::skill_verify::TASK_ARGUMENT)
        .map(String::as_str);
    let attach = &skill.attach;
    // An --attach the skill does not list is the user's slip, not the server's: a usage
    // error naming the files it has (after listing again, when the listing was cached).
    let unlisted = |m: &crate::mcp::skill_verify::SkillManifest| {
        attach
            .iter()
            .find(|p| m.files.is_some() && m.file(&m.resolve(p)).is_none())
            .cloned()
    };
    let relisted_manifest;
    let mut manifest = manifest;
    if unlisted(manifest).is_some()
        && cached
        && let Some(listed) = relisted(&hub, &server.name).await
        && let Some(fresh) =
            find_preferring(&listed, &prompt.name, EntryKind::Skill).and_then(|p| p.skill.clone())
    {
        relisted_manifest = *fresh;
        manifest = &relisted_manifest;
    }
    if let Some(path) = unlisted(manifest) {
        hub.shutdown().await;
        let root = format!("{}/", manifest.root());
        let files: Vec<String> = (manifest.files.iter().flatten())
            .map(|f| crate::text::one_line(f.uri.strip_prefix(&root).unwrap_or(&f.uri)))
            .collect();
        let has = if files.is_empty() {
            "it lists no supporting files".to_string()
        } else {
            format!("its files: {}", files.join(", "))
        };
        return Err(CliError::usage(format!(
            "--attach {}: skill `{}` on `{}` has no such file; {has}",
            crate::text::one_line(&path),
            crate::text::one_line(&prompt.name),
            server.name
        )));
    }
    let mut result = load_skill_on(&hub, &server.name, manifest, task, attach).await;
    if cached
        && matches!(&result, Ok(Err((McpError::Protocol(_), _))))
        && let Some(listed) = relisted(&hub, &server.name).await
        && let Some(fresh) = find_preferring(&listed, &prompt.name, EntryKind::Skill)
            .and_then(|p| p.skill.as_deref())
        && fresh != manifest
    {
        tracing::info!(server = %server.name, skill = %prompt.name, "the cached manifest was out of date; loading the current one");
        result = load_skill_on(&hub, &server.name, fresh, task, attach).await;
    }
    hub.shutdown().await;
    match result?.map_err(|(error, stderr)| format!("{error}{stderr}")) {
        Ok(messages) => print_messages(config, &messages, format, copy).await,
        Err(error) => Err(CliError::runtime(format!(
            "{}/{}: {error}",
            server.name, prompt.name
        ))),
    }
}

/// `SERVER/SCHEME://…/SKILL.md`: a skill named by its URI on one server (`None` for any
/// other reference).
fn skill_uri_reference<'a>(
    config: &'a Config,
    reference: &str,
) -> Result<Option<(&'a ServerConfig, String)>, CliError> {
    let parsed = PromptRef::parse(reference).map_err(CliError::usage)?;
    // A skill URI is a `SKILL.md`'s (the SEP): any other name, `://` or not, is a prompt's.
    if crate::mcp::skill_verify::skill_path(&parsed.prompt).is_none() {
        return Ok(None);
    }
    let Some(name) = &parsed.server else {
        return Err(CliError::usage(format!(
            "`{reference}`: a skill's URI needs its server (write SERVER/{reference})"
        )));
    };
    match config.server(name) {
        Some(server) if server.enabled => Ok(Some((server, parsed.prompt))),
        Some(_) => Err(CliError::usage(format!(
            "server `{name}` is disabled in the config (set enabled = true)"
        ))),
        None => Err(CliError::usage(format!(
            "no server `{name}` in the config{}",
            crate::catalog::did_you_mean(name, config.servers.iter().map(|s| s.name.as_str()))
        ))),
    }
}

/// `get SERVER/URI`: the skill's entry from `skills/get` (listed or not), then loaded as
/// a listed skill is.
async fn get_skill_by_uri(
    config: &Config,
    server: &ServerConfig,
    uri: &str,
    arguments: BTreeMap<String, String>,
    format: Format,
    copy: bool,
    skill: SkillGet,
) -> Result<ExitCode, CliError> {
    let (hub, mut outcomes) =
        connect_all_reading(vec![server.clone()], CatalogUse::GET, false).await?;
    if let Some(Outcome::Failed { error, stderr }) = outcomes.remove(&server.name) {
        hub.shutdown().await;
        report_failure(&server.name, &error, &stderr);
        return Err(CliError::runtime(format!(
            "cannot get `{uri}`: server `{}` failed",
            server.name
        )));
    }
    let entry = request_on(&hub, &server.name, |connection| async move {
        connection.skill_by_uri(uri).await
    })
    .await?;
    let prompt = match entry {
        Ok(prompt) => prompt,
        Err((error, stderr)) => {
            hub.shutdown().await;
            return Err(CliError::runtime(format!(
                "{}/{uri}: {error}{stderr}",
                server.name
            )));
        }
    };
    let manifest = prompt.skill.clone().expect("skills/get gives a skill");
    get_skill(
        config, hub, server, &prompt, &manifest, false, arguments, format, copy, skill,
    )
    .await
}

/// [`Connection::load_skill`] on `server`'s connection of `hub` (see [`request_on`]).
async fn load_skill_on(
    hub: &Hub,
    server: &str,
    manifest: &crate::mcp::skill_verify::SkillManifest,
    task: Option<&str>,
    attach: &[String],
) -> Result<Result<crate::mcp::PromptMessages, (McpError, String)>, CliError> {
    request_on(hub, server, |connection| async move {
        connection
            .load_skill(manifest, task, attach, crate::serve::skills::fill_skill)
            .await
    })
    .await
}

/// [`fill_answering`] on `server`'s connection of `hub` (see [`request_on`]).
async fn fill_on(
    hub: &Hub,
    server: &str,
    prompt: &str,
    arguments: &BTreeMap<String, String>,
    answering: &super::inputs::AnswerFlags,
) -> Result<Result<Filled, (McpError, String)>, CliError> {
    request_on(hub, server, |connection| async move {
        fill_answering(&connection, prompt, arguments, answering).await
    })
    .await
}

/// How [`fill_answering`] ended, short of a server's failure.
enum Filled {
    /// The prompt's messages.
    Messages(crate::mcp::PromptMessages),
    /// Ctrl-C stopped the asking.
    Stopped,
    /// An answer flag named no question: a usage error, in these words.
    WrongFlag(String),
}

/// Fills a prompt, answering the questions its server asks on the way (either era) with
/// `answering` and, on a terminal, by asking. The connection caps the rounds of one
/// request ([`crate::mcp::MAX_INPUT_ROUNDS`]), for the menu's answers as for these.
async fn fill_answering(
    connection: &Connection,
    name: &str,
    arguments: &BTreeMap<String, String>,
    answering: &super::inputs::AnswerFlags,
) -> Result<Filled, McpError> {
    use super::inputs::{Answered, NotAnswered, Rounds};
    use crate::mcp::GetOutcome;
    let mut answers = None;
    let mut rounds = Rounds::default();
    loop {
        let asked = match connection
            .get_prompt_round(name, arguments, answers.as_ref())
            .await?
        {
            GetOutcome::Messages(messages) => {
                // An answer no question used was probably meant for another prompt.
                let unused = rounds.unused(answering);
                if !unused.is_empty() {
                    let names: Vec<String> = unused.iter().map(|n| format!("`{n}`")).collect();
                    output::error(&format!(
                        "the server asked nothing, so the answer for {} was not used \
                         (--answer / --answers-json)",
                        names.join(", ")
                    ));
                }
                return Ok(Filled::Messages(messages));
            }
            GetOutcome::InputRequired(asked) => asked,
        };
        let server = connection.name().to_string();
        let (after, answered) =
            super::inputs::answer(asked, answering.clone(), server, rounds).await;
        rounds = after;
        match answered {
            Ok(Answered::Answers(given)) => answers = Some(given),
            Ok(Answered::Stopped) => {
                connection.decline_waiting_question();
                return Ok(Filled::Stopped);
            }
            Err(not_answered) => {
                // A legacy server is told before mcpick exits, not left waiting.
                connection.decline_waiting_question();
                return match not_answered {
                    NotAnswered::Unanswered(words) => Err(McpError::InputRequired(words)),
                    NotAnswered::UnknownName(words) => Ok(Filled::WrongFlag(words)),
                };
            }
        }
    }
}

/// `get --copy`: the export on the clipboard by the same route the menu takes, said on
/// stderr. OSC 52 goes to the controlling terminal (stdout may be a pipe).
/// What `get` does with the messages it got: prints them in `format`, and puts the same
/// text on the clipboard with `--copy`.
async fn print_messages(
    config: &Config,
    messages: &crate::mcp::PromptMessages,
    format: Format,
    copy: bool,
) -> Result<ExitCode, CliError> {
    let text = render(messages, format);
    write(&text)?;
    for note in crate::export::labelled_notes(messages, format) {
        output::error(&note);
    }
    if copy {
        copy_to_clipboard(config, &text).await?;
    }
    Ok(ExitCode::SUCCESS)
}

async fn copy_to_clipboard(config: &Config, text: &str) -> Result<(), CliError> {
    use crate::export::clipboard;
    let route = clipboard::choose(&clipboard::Environment::detect(), &config.clipboard);
    let copied = match route.terminal_sequence(text) {
        Some(sequence) => {
            let screen = matches!(route, clipboard::Route::Osc52 { screen: true });
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/tty")
                .and_then(|mut tty| std::io::Write::write_all(&mut tty, sequence.as_bytes()))
                .map(|()| clipboard::Copied::Terminal { screen })
                .map_err(|e| format!("no terminal to send OSC 52 to ({e})"))
        }
        None => clipboard::copy(&route, text).await,
    };
    match copied {
        Ok(copied) => {
            output::error(&copied.summary());
            if let Some(advice) = copied.advice() {
                output::detail(advice);
            }
            Ok(())
        }
        Err(error) => Err(CliError::runtime(format!(
            "the export is on stdout, but the copy failed: {error}"
        ))),
    }
}

/// `mcpick __clipboard-hold`: holds the desktop clipboard for a copy of the menu's (text on
/// stdin), answering on stdout, until another program takes the selection.
pub async fn clipboard_hold() -> Result<ExitCode, CliError> {
    // The terminal it was started from may close meanwhile: a hangup must not end the hold.
    let hangup = crate::sys::signals::ignore_hangup();
    let held = tokio::task::spawn_blocking(|| {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("cannot read the text: {e}"))?;
        crate::export::clipboard::hold(&text, &mut std::io::stdout())
    })
    .await
    .map_err(|e| CliError::runtime(e.to_string()))?;
    drop(hangup);
    held.map(|()| ExitCode::SUCCESS).map_err(CliError::runtime)
}

async fn complete(
    config: &Config,
    reference: &str,
    argument: &str,
    prefix: &str,
    context: &BTreeMap<String, String>,
    json: bool,
) -> Result<ExitCode, CliError> {
    // Completion is for a prompt's arguments: of a prompt and a skill of one name, the prompt.
    let (hub, server, prompt, _) = locate(config, reference, EntryKind::Prompt).await?;
    if prompt.skill.is_some() {
        hub.shutdown().await;
        return Err(CliError::usage(format!(
            "{}/{} is a skill: its task is free text, the server completes nothing",
            server.name, prompt.name
        )));
    }
    if let Err(error) = check_complete_arguments(&prompt, argument, context) {
        hub.shutdown().await;
        return Err(error);
    }
    let name = &prompt.name;
    let result = request_then_close(hub, &server.name, |connection| async move {
        connection.complete(name, argument, prefix, context).await
    })
    .await?;
    match result {
        Ok(completion) => {
            if json {
                let body = serde_json::to_string_pretty(&completion).unwrap_or_default();
                write(&format!("{body}\n"))?;
            } else {
                let mut body = String::new();
                for value in &completion.values {
                    body.push_str(value);
                    body.push('\n');
                }
                write(&body)?;
                // A person reading the values should know they are not all of them.
                if std::io::IsTerminal::is_terminal(&std::io::stderr())
                    && let Some(note) = completion_note(&completion)
                {
                    output::error(&note);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => Err(CliError::runtime(format!(
            "{}/{}: completing `{argument}`: {error}",
            server.name, prompt.name
        ))),
    }
}

/// The usage of `mcpick complete` for one prompt: the argument names it can complete.
fn complete_usage(prompt: &PromptInfo) -> String {
    let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
    format!(
        "usage: mcpick complete {}/{} ARGUMENT [PREFIX] [--context NAME=VALUE ...]\n\n\
         ARGUMENT and each --context NAME is one of: {}",
        prompt.server,
        prompt.name,
        if names.is_empty() {
            "(the prompt has no arguments)".to_string()
        } else {
            names.join(", ")
        }
    )
}

/// Checks `complete`'s ARGUMENT and `--context` names against the prompt before anything
/// is sent: each must be one of its arguments, and the completed one is not its own context.
fn check_complete_arguments(
    prompt: &PromptInfo,
    argument: &str,
    context: &BTreeMap<String, String>,
) -> Result<(), CliError> {
    let hint = |name: &str| argument_hint(prompt, name);
    if prompt.argument(argument).is_none() {
        return Err(CliError::usage(format!(
            "prompt `{}` has no argument `{argument}` to complete{}\n\n{}",
            prompt.name,
            hint(argument),
            complete_usage(prompt)
        )));
    }
    if let Some(name) = context.keys().find(|name| prompt.argument(name).is_none()) {
        return Err(CliError::usage(format!(
            "--context {name}=…: prompt `{}` has no argument `{name}`{}\n\n{}",
            prompt.name,
            hint(name),
            complete_usage(prompt)
        )));
    }
    if context.contains_key(argument) {
        return Err(CliError::usage(format!(
            "--context {argument}=…: `{argument}` is the argument being completed, not context (give its start as PREFIX)\n\n{}",
            complete_usage(prompt)
        )));
    }
    Ok(())
}

/// What a completion left out, when the server says it has more values than it sent:
/// `100 of 250; type more to narrow`.
fn completion_note(completion: &crate::mcp::Completion) -> Option<String> {
    let sent = completion.values.len();
    match completion.total.map(|total| total as usize) {
        Some(total) if total > sent => Some(format!("{sent} of {total}; type more to narrow")),
        _ if completion.has_more == Some(true) => Some(format!(
            "{sent} of more (the server did not say how many); type more to narrow"
        )),
        _ => None,
    }
}

async fn servers(config: &Config, json: bool) -> Result<ExitCode, CliError> {
    if config.servers.is_empty() {
        return Err(no_servers(config));
    }
    let enabled: Vec<ServerConfig> = config.enabled_servers().cloned().collect();
    let (hub, outcomes) = connect_all(enabled, CatalogUse::MENU).await?;
    hub.shutdown().await;
    let mut rows = Vec::new();
    for server in &config.servers {
        let mut base = json!({ "name": server.name, "transport": server.transport.kind() });
        if let Some(source) = &server.source {
            base["source"] = json!(source);
        }
        if server.transport.kind() != "stdio" {
            let state = crate::mcp::auth::sign_in_state(server);
            // HTTP+SSE has no sign-in flow: its token goes in `headers`.
            let signs_in = server.transport.kind() != "sse";
            if let Some(words) = sign_in_words(&state, outcomes.get(&server.name), signs_in) {
                base["signIn"] = json!(words);
            }
        }
        let row = match outcomes.get(&server.name) {
            _ if !server.enabled => merge_json(base, json!({ "state": "disabled" })),
            Some(Outcome::Ready {
                details,
                prompts,
                warnings,
                ..
            }) => {
                let mut ready = json!({
                    "state": "ready",
                    "protocolVersion": details.protocol_version,
                    "serverName": details.server_name,
                    "serverVersion": details.server_version,
                    "capabilities": details.capabilities,
                    "promptCount": prompts.iter().filter(|p| p.skill.is_none()).count(),
                    "skills": details.skills,
                    "skillCount": prompts.iter().filter(|p| p.skill.is_some()).count(),
                    "warnings": warnings,
                });
                // A served library's files it could not serve (`mcpick serve`).
                if !details.served_problems.is_empty() {
                    ready["servedProblems"] = json!(details.served_problems);
                }
                merge_json(base, ready)
            }
            Some(Outcome::Failed { error, stderr }) => merge_json(
                base,
                json!({ "state": "failed", "error": error.to_string(), "stderr": stderr }),
            ),
            None => merge_json(base, json!({ "state": "unknown" })),
        };
        rows.push(row);
    }
    if json {
        let body = serde_json::to_string_pretty(&rows).unwrap_or_default();
        write(&format!("{body}\n"))?;
    } else {
        write(&servers_text(&rows))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn merge_json(mut base: serde_json::Value, extra: serde_json::Value) -> serde_json::Value {
    if let (Some(base), serde_json::Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}

/// The `problems:` lines of `mcpick servers` for a served library's problems, one a line.
fn served_problems_text(problems: &serde_json::Value) -> String {
    let Some(problems) = problems.as_array().filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let mut out = format!("  problems:     {} in its prompt files\n", problems.len());
    for problem in problems {
        let shown = serde_json::from_value::<crate::mcp::ServedProblem>(problem.clone())
            .map(|p| p.to_string())
            .unwrap_or_else(|_| problem.to_string());
        out.push_str(&format!("    {}\n", crate::text::one_line(&shown)));
    }
    out
}

fn servers_text(rows: &[serde_json::Value]) -> String {
    let mut out = String::new();
    for row in rows {
        let field = |key: &str| row[key].as_str().unwrap_or("").to_string();
        out.push_str(&format!(
            "{}  ({}, {})\n",
            field("name"),
            field("transport"),
            field("state")
        ));
        if let Some(source) = row["source"].as_str() {
            out.push_str(&format!("  from:         {source}\n"));
        }
        if let Some(sign_in) = row["signIn"].as_str() {
            out.push_str(&format!("  sign-in:      {sign_in}\n"));
        }
        match row["state"].as_str() {
            Some("ready") => {
                let identity = match (row["serverName"].as_str(), row["serverVersion"].as_str()) {
                    (Some(n), Some(v)) => format!("{n} {v}"),
                    (Some(n), None) => n.to_string(),
                    _ => "unnamed".to_string(),
                };
                let capabilities: Vec<String> = row["capabilities"]
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                out.push_str(&format!("  server:       {identity}\n"));
                out.push_str(&format!("  protocol:     {}\n", field("protocolVersion")));
                out.push_str(&format!("  capabilities: {}\n", capabilities.join(", ")));
                out.push_str(&format!("  prompts:      {}\n", row["promptCount"]));
                if row["skills"].as_bool() == Some(true) {
                    out.push_str(&format!(
                        "  skills:       {} (extension {})\n",
                        row["skillCount"],
                        crate::mcp::skill_verify::SKILLS_EXTENSION
                    ));
                }
                for warning in row["warnings"].as_array().into_iter().flatten() {
                    out.push_str(&format!(
                        "  warning:      {}\n",
                        warning.as_str().unwrap_or("")
                    ));
                }
                out.push_str(&served_problems_text(&row["servedProblems"]));
            }
            Some("failed") => {
                out.push_str(&format!("  error: {}\n", field("error")));
                if let Some(lines) = row["stderr"].as_array().filter(|l| !l.is_empty()) {
                    out.push_str("  last stderr lines:\n");
                    for line in lines {
                        out.push_str(&format!("    {}\n", line.as_str().unwrap_or("")));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::SignInState;

    fn prompt(name: &str) -> PromptInfo {
        PromptInfo {
            server: "s".into(),
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            skill: None,
            mirrors_skill: None,
        }
    }

    #[test]
    fn a_missing_prompt_is_named_with_what_the_server_offers() {
        assert_eq!(
            no_such_prompt("s", "hello", &[]),
            "server `s` has no prompt `hello`: it offers no prompts"
        );
        assert_eq!(
            no_such_prompt("s", "hello", &[prompt("zzzzzz")]),
            "server `s` has no prompt `hello` (`mcpick list` shows its one prompt)"
        );
        assert_eq!(
            no_such_prompt("s", "hello", &[prompt("zzzzzz"), prompt("qqqqqq")]),
            "server `s` has no prompt `hello` (`mcpick list` shows all 2 of its prompts)"
        );
        assert_eq!(
            no_such_prompt("s", "helo", &[prompt("hello")]),
            "server `s` has no prompt `helo`. Did you mean: s/hello?"
        );
    }

    #[test]
    fn sign_in_is_not_needed_by_a_server_that_answered_without_asking() {
        let ready = Outcome::Ready {
            details: crate::mcp::ServerDetails {
                transport: "http".into(),
                protocol_version: "2025-06-18".into(),
                server_name: None,
                server_version: None,
                prompts: true,
                prompts_list_changed: false,
                completions: false,
                resources: false,
                skills: false,
                capabilities: json!({}),
                served_problems: Vec::new(),
            },
            prompts: Vec::new(),
            warnings: Vec::new(),
            cached: None,
        };
        let asked = Outcome::Failed {
            error: McpError::SignInRequired {
                server: "s".into(),
                challenge: None,
                more_scopes: false,
            },
            stderr: Vec::new(),
        };
        let unreachable = Outcome::Failed {
            error: McpError::Handshake("cannot reach the server".into()),
            stderr: Vec::new(),
        };
        let out = SignInState::SignedOut;
        let words = sign_in_words;
        assert_eq!(
            words(&out, Some(&ready), true).as_deref(),
            Some("not needed")
        );
        assert_eq!(
            words(&out, Some(&asked), true).as_deref(),
            Some("not signed in")
        );
        // Failed before saying whether it needs one, or never contacted: not known.
        assert_eq!(words(&out, Some(&unreachable), true), None);
        assert_eq!(words(&out, None, true), None);
        // HTTP+SSE has no sign-in: never "not signed in".
        assert_eq!(words(&out, Some(&asked), false), None);
        assert_eq!(
            words(&out, Some(&ready), false).as_deref(),
            Some("not needed")
        );
        let signed = SignInState::SignedIn {
            expires_at: None,
            refreshable: true,
        };
        assert_eq!(
            words(&signed, Some(&ready), true).as_deref(),
            Some("signed in (renewed automatically)")
        );
    }

    #[test]
    fn a_completion_says_when_the_server_has_more() {
        let completion =
            |sent: usize, total: Option<u32>, has_more: Option<bool>| crate::mcp::Completion {
                values: (0..sent).map(|n| n.to_string()).collect(),
                total,
                has_more,
            };
        assert_eq!(
            completion_note(&completion(100, Some(250), Some(true))).as_deref(),
            Some("100 of 250; type more to narrow")
        );
        assert_eq!(
            completion_note(&completion(3, None, Some(true))).as_deref(),
            Some("3 of more (the server did not say how many); type more to narrow")
        );
        assert_eq!(completion_note(&completion(3, Some(3), Some(false))), None);
        assert_eq!(completion_note(&completion(3, None, None)), None);
    }
}
