//! `mcpick doctor`: what mcpick would do here, and why. The config file it reads (and the
//! rule that chose it), each server's transport and what the catalog last learned of it,
//! where it keeps its files, the clipboard route a copy would take right now, and what the
//! terminal answers; then each problem found with what to change. Nothing is started and
//! no server is asked. Exit 0 when all is well, 1 when a problem was found.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

use super::{CliError, output};
use crate::cache::{self, Freshness, Loaded};
use crate::config::{self, Config, ImageProtocol, ServerConfig, TransportConfig};
use crate::export::clipboard::{self, OuterClipboard, Route};

/// One thing found wrong, and what to change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The part it belongs to: `config`, `server NAME`, `files`, `clipboard`, `terminal`.
    pub part: String,
    /// What is wrong.
    pub what: String,
    /// What to change.
    pub fix: String,
}

/// The config file read, and why that one.
#[derive(Debug, Clone, Serialize)]
struct ConfigPart {
    path: Option<PathBuf>,
    why: String,
    exists: bool,
    error: Option<String>,
}

/// One configured server as the catalog last saw it.
#[derive(Debug, Clone, Serialize)]
struct ServerPart {
    name: String,
    transport: &'static str,
    target: String,
    enabled: bool,
    last: String,
    prompts: Option<usize>,
    #[serde(rename = "protocolVersion")]
    protocol_version: Option<String>,
    #[serde(rename = "listedMs")]
    listed_ms: Option<u64>,
}

/// Where mcpick keeps its files.
#[derive(Debug, Clone, Serialize)]
struct FilesPart {
    catalog: Option<PathBuf>,
    data: Option<PathBuf>,
    logs: Option<PathBuf>,
    #[serde(rename = "logNote")]
    log_note: Option<String>,
    /// The lockfile the menu would compare with, and what it locks (docs/lock.md).
    lockfile: Option<String>,
}

/// The clipboard route a copy would take now.
#[derive(Debug, Clone, Serialize)]
struct ClipboardPart {
    route: String,
    why: String,
    #[serde(rename = "tmuxSetClipboard")]
    tmux_set_clipboard: Option<String>,
}

/// What the terminal says of itself.
#[derive(Debug, Clone, Serialize)]
struct TerminalPart {
    term: Option<String>,
    colours: String,
    asked: bool,
    note: Option<String>,
    images: Option<String>,
    background: Option<String>,
    theme: String,
    #[serde(rename = "tmuxAllowPassthrough")]
    tmux_allow_passthrough: Option<String>,
}

/// The screen reader mode and reduced motion, and what set them.
#[derive(Debug, Clone, Serialize)]
struct AccessPart {
    #[serde(rename = "screenReader")]
    screen_reader: bool,
    #[serde(rename = "screenReaderSource")]
    screen_reader_source: String,
    #[serde(rename = "reduceMotion")]
    reduce_motion: bool,
    #[serde(rename = "reduceMotionSource")]
    reduce_motion_source: String,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
struct Report {
    version: &'static str,
    config: ConfigPart,
    accessibility: AccessPart,
    servers: Vec<ServerPart>,
    files: FilesPart,
    clipboard: ClipboardPart,
    terminal: TerminalPart,
    problems: Vec<Problem>,
}

/// Runs `mcpick doctor`.
pub async fn run(
    config_arg: Option<&Path>,
    as_json: bool,
    screen_reader_flag: bool,
) -> Result<ExitCode, CliError> {
    let mut problems = Vec::new();
    let (config_part, config) = config_part(config_arg, &mut problems);
    let accessibility = access_part(config.as_ref(), screen_reader_flag);
    let servers = config
        .as_ref()
        .map(|c| servers_part(c, &mut problems))
        .unwrap_or_default();
    let mut files = files_part(&mut problems);
    files.lockfile = config
        .as_ref()
        .and_then(|config| lockfile_part(config, &mut problems));
    let clipboard_settings = config
        .as_ref()
        .map(|c| c.clipboard.clone())
        .unwrap_or_default();
    let clipboard = clipboard_part(&clipboard_settings, &mut problems).await;
    let terminal = terminal_part(config.as_ref(), &mut problems).await;
    let report = Report {
        version: env!("CARGO_PKG_VERSION"),
        config: config_part,
        accessibility,
        servers,
        files,
        clipboard,
        terminal,
        problems,
    };
    let text = if as_json {
        let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
        text.push('\n');
        text
    } else {
        use std::io::IsTerminal;
        // Wrapped to the terminal's width, with hanging indents; 100 columns in pipes.
        let columns = std::io::stdout()
            .is_terminal()
            .then(|| crossterm::terminal::size().ok())
            .flatten()
            .map_or(100, |(columns, _)| usize::from(columns).max(40));
        render(&report, columns)
    };
    output::result(&text).map_err(|e| CliError::runtime(e.to_string()))?;
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The screen reader mode and reduced motion as a run here would have them, and which
/// switch set each.
fn access_part(config: Option<&Config>, flag: bool) -> AccessPart {
    use super::access::{self, REDUCE_MOTION_ENV, SCREEN_READER_ENV};
    let ui = config.map(|c| c.ui).unwrap_or_default();
    let path = config.and_then(|c| c.path.as_deref());
    let reader = access::screen_reader(
        flag,
        access::env_value(SCREEN_READER_ENV).as_deref(),
        &ui,
        path,
    );
    let motion = access::reduce_motion(access::env_value(REDUCE_MOTION_ENV).as_deref(), &ui, path);
    AccessPart {
        screen_reader: reader.on,
        screen_reader_source: access::doctor_line(
            &reader,
            "screen_reader",
            SCREEN_READER_ENV,
            Some("--screen-reader"),
        ),
        reduce_motion: motion.on,
        reduce_motion_source: access::doctor_line(
            &motion,
            "reduce_motion",
            REDUCE_MOTION_ENV,
            None,
        ),
    }
}

/// Which config file is read and why: `--config`, `MCPICK_CONFIG`, or the default place.
fn config_part(
    config_arg: Option<&Path>,
    problems: &mut Vec<Problem>,
) -> (ConfigPart, Option<Config>) {
    let from_env = std::env::var_os(config::CONFIG_ENV).map(PathBuf::from);
    let (path, why) = match config_arg {
        Some(path) if from_env.as_deref() == Some(path) => (
            Some(path.to_path_buf()),
            format!("${} names it", config::CONFIG_ENV),
        ),
        Some(path) => (Some(path.to_path_buf()), "--config names it".to_string()),
        None => match config::default_config_place() {
            Some(place) => (Some(place.path), place.why),
            None => (None, "this system has no home folder".to_string()),
        },
    };
    let exists = path.as_deref().is_some_and(Path::exists);
    let mut report = |message: &str, fix: &str| {
        let message = shareable(message);
        problems.push(Problem {
            part: "config".into(),
            what: message.clone(),
            fix: fix.to_string(),
        });
        Some(message)
    };
    const FIX: &str = "correct the file at the place named (`mcpick init` writes a commented starter config elsewhere to compare)";
    // The loader every command runs, in two steps, so a `[keys]` table the commands refuse
    // is a problem here while the servers are still shown.
    let (config, error) = match super::loading::read_config(config_arg) {
        Ok((config, _)) => match super::loading::check_keys(&config) {
            Ok(_) => (Some(config), None),
            Err(error) => {
                let error = report(&error.message, FIX);
                (Some(config), error)
            }
        },
        Err(error) => match config_arg.filter(|_| !exists) {
            Some(named) => {
                let (what, fix) = super::loading::missing_config(named);
                (None, report(&what, &fix))
            }
            None => (None, report(&error.message, FIX)),
        },
    };
    (
        ConfigPart {
            path,
            why,
            exists,
            error,
        },
        config,
    )
}

/// A config error without the source lines a TOML error quotes (`12 | token = "…"`): a
/// value there may be a secret, and a report is made to be shared.
fn shareable(message: &str) -> String {
    message
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            let number = line.trim_start_matches(|c: char| c.is_ascii_digit());
            !(line.starts_with('|')
                || (number.len() < line.len() && number.trim_start().starts_with('|')))
        })
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each configured server: its transport, and what the catalog last learned of it.
fn servers_part(config: &Config, problems: &mut Vec<Problem>) -> Vec<ServerPart> {
    let now = cache::now_ms();
    config
        .servers
        .iter()
        .map(|server| {
            let (transport, target) = transport_of(server);
            if let Some(problem) = server_problem(server) {
                problems.push(problem);
            }
            // A server still waiting for `${input:…}` values, or with a problem of its own,
            // has no command yet to look for.
            if server.enabled
                && server.problem.is_none()
                && server.inputs.is_empty()
                && let TransportConfig::Stdio { command, cwd, .. } = &server.transport
                && !command.is_empty()
                && !program_exists(command, cwd.as_deref())
            {
                problems.push(Problem {
                    part: format!("server {}", server.name),
                    what: format!("its command `{command}` is not found on PATH"),
                    fix: format!(
                        "install `{command}`, or give its full path in the server's `command`"
                    ),
                });
            }
            let mut part = ServerPart {
                name: server.name.clone(),
                transport,
                target,
                enabled: server.enabled,
                last: String::new(),
                prompts: None,
                protocol_version: None,
                listed_ms: None,
            };
            part.last = last_state(server, now, &mut part, problems);
            part
        })
        .collect()
}

/// Why `server` cannot start as configured, and whose it is to mend: an unset variable is
/// the environment's, anything else its table's.
fn server_problem(server: &ServerConfig) -> Option<Problem> {
    let problem = server.problem.as_ref()?;
    let part = format!("server {}", server.name);
    let Some(first) = server.unset_variables.first() else {
        return Some(Problem {
            part,
            what: problem.clone(),
            fix: "correct its table in the config".into(),
        });
    };
    let names: Vec<String> = server
        .unset_variables
        .iter()
        .map(|name| format!("`{name}`"))
        .collect();
    let (these, are) = match names.len() {
        1 => ("the variable", "is"),
        _ => ("the variables", "are"),
    };
    Some(Problem {
        part,
        what: format!(
            "its table uses {these} {}, which {are} not set in the environment mcpick runs in",
            names.join(", ")
        ),
        fix: format!(
            "set {} before starting mcpick (`export {first}=…` in your shell or its profile), or give a default in the config: ${{{first}:-default}}",
            if names.len() == 1 { "it" } else { "them" }
        ),
    })
}

/// The transport's name and what it reaches, with nothing secret: a program's name (not its
/// arguments or environment), a URL without its query or credentials.
fn transport_of(server: &ServerConfig) -> (&'static str, String) {
    match &server.transport {
        TransportConfig::Stdio { command, args, .. } => (
            "stdio",
            match args.len() {
                0 => command.clone(),
                n => format!(
                    "{command} (+{})",
                    crate::text::counted(n, "argument", "arguments")
                ),
            },
        ),
        TransportConfig::Http {
            url, legacy_sse, ..
        } => (if *legacy_sse { "sse" } else { "http" }, shown_url(url)),
    }
}

/// `url`'s scheme, host and port only: user, password, path, query and fragment can all
/// hold keys (some services put the key in the path), and a report is made to be shared.
fn shown_url(url: &str) -> String {
    if url.is_empty() {
        // Built from a variable or an input that has no value yet.
        return "(URL not known yet)".to_string();
    }
    match url::Url::parse(url) {
        Ok(parsed) => {
            let origin = parsed.origin().ascii_serialization();
            let more = parsed.path() != "/" || parsed.query().is_some();
            format!("{origin}{}", if more { "/…" } else { "" })
        }
        Err(_) => "(not a URL)".to_string(),
    }
}

/// Whether `command` can be started: a path that is a file, or a name found on PATH.
fn program_exists(command: &str, cwd: Option<&Path>) -> bool {
    let expanded = config::expand_tilde(&config::program_for(command));
    let path = Path::new(&expanded);
    if path.components().count() > 1 {
        let full = match cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path.to_path_buf(),
        };
        return full.is_file();
    }
    clipboard::find_on_path(&std::env::var_os("PATH").unwrap_or_default(), &expanded).is_some()
}

/// What the catalog on disk says of `server` (one line), filling `part`'s figures.
fn last_state(
    server: &ServerConfig,
    now: u64,
    part: &mut ServerPart,
    problems: &mut Vec<Problem>,
) -> String {
    if !server.enabled {
        return "disabled (`enabled = false`)".into();
    }
    if server.problem.is_some() {
        return "cannot start as it is: see its problem below".into();
    }
    if !cache::applies_to(server) {
        return "not cached (`cache = false`, or it asks for ${input:…} values): listed at each start".into();
    }
    let auth = crate::mcp::oauth::authorization_context(server);
    match cache::load(server, auth.as_deref()) {
        Loaded::Missing => "never listed here yet: its prompts appear once it answers".into(),
        Loaded::Outdated => {
            "listed before its config last changed: listed again at the next start".into()
        }
        Loaded::Broken { reason } => {
            problems.push(Problem {
                part: format!("server {}", server.name),
                what: format!("its cached catalog cannot be used: {reason}"),
                fix: format!(
                    "`mcpick cache clear {}` (it is also rewritten when the server next lists)",
                    server.name
                ),
            });
            "cached catalog broken (ignored)".into()
        }
        Loaded::Found(entry) => {
            // What its last list left out is the server's to mend (issue 53).
            for warning in &entry.warnings {
                problems.push(Problem {
                    part: format!("server {}", server.name),
                    what: format!("its last prompts/list: {}", crate::text::one_line(warning)),
                    fix: "the server's to mend (tell its authors); mcpick keeps leaving it out"
                        .into(),
                });
            }
            part.protocol_version = Some(entry.details.protocol_version.clone());
            part.listed_ms = Some(entry.written_ms);
            let ago = super::cache::span(now.saturating_sub(entry.written_ms));
            match (&entry.pages, entry.freshness(now)) {
                (Some(_), freshness) => {
                    let count = entry.prompts().len();
                    part.prompts = Some(count);
                    let fresh = match freshness {
                        Some(Freshness::Fresh { until_ms }) => format!(
                            "fresh for {}",
                            super::cache::span(until_ms.saturating_sub(now))
                        ),
                        _ => "stale: listed again at start".into(),
                    };
                    format!(
                        "{} listed {ago} ago (protocol {}), {fresh}",
                        crate::text::counted(count, "prompt", "prompts"),
                        entry.details.protocol_version
                    )
                }
                (None, _) => format!(
                    "connected {ago} ago (protocol {}), its prompts not listed",
                    entry.details.protocol_version
                ),
            }
        }
    }
}

/// Where the catalog, the remembered values and the logs are kept.
fn files_part(problems: &mut Vec<Problem>) -> FilesPart {
    let log_note = crate::mcp::log::file_unavailable().map(str::to_string);
    if let Some(note) = &log_note {
        problems.push(Problem {
            part: "files".into(),
            what: note.clone(),
            fix: "make the folder writable for you (or set XDG_STATE_HOME to one that is)".into(),
        });
    }
    FilesPart {
        catalog: cache::dir(),
        data: config::data_dir(),
        logs: config::log_dir(),
        log_note,
        lockfile: None,
    }
}

/// The lockfile the menu would read here (`[lock] file`, else `mcpick.lock`), read as the
/// menu reads it: one it cannot read stops the menu, so it is a problem here.
fn lockfile_part(config: &Config, problems: &mut Vec<Problem>) -> Option<String> {
    match super::menu::menu_lock(None, &config.lock) {
        Ok(None) => None,
        Ok(Some(lock)) => {
            let servers = &lock.lockfile.servers;
            let prompts: usize = servers.values().map(|s| s.prompts.len()).sum();
            let skills: usize = servers.values().map(|s| s.skills.len()).sum();
            Some(format!(
                "{}: {}, {} and {} locked{}",
                lock.shown_path,
                crate::text::counted(servers.len(), "server", "servers"),
                crate::text::counted(prompts, "prompt", "prompts"),
                crate::text::counted(skills, "skill", "skills"),
                if lock.enforce { "; enforced" } else { "" }
            ))
        }
        Err(error) => {
            problems.push(Problem {
                part: "files".into(),
                what: format!("the menu cannot use the lockfile: {}", error.message),
                fix: "mend the line named, or run `mcpick lock` to write it again (docs/lock.md)"
                    .into(),
            });
            Some(error.message)
        }
    }
}

/// The clipboard route `y` would take now, why, and what tmux does with a copy.
async fn clipboard_part(
    settings: &clipboard::ClipboardSettings,
    problems: &mut Vec<Problem>,
) -> ClipboardPart {
    let env = clipboard::ClipboardEnv::detect();
    let route = clipboard::choose(&env, settings);
    let tmux = if route == Route::Tmux {
        Some(clipboard::ask_tmux().await)
    } else {
        None
    };
    let outer = tmux.as_ref().map(|answer| answer.outer.clone());
    let (name, why) = describe_route(&route, &env, settings);
    for problem in clipboard_problems(&route, outer.as_ref()) {
        problems.push(problem);
    }
    ClipboardPart {
        route: name,
        why,
        tmux_set_clipboard: tmux.and_then(|answer| answer.setting),
    }
}

/// A route's name and the facts that chose it.
fn describe_route(
    route: &Route,
    env: &clipboard::ClipboardEnv,
    settings: &clipboard::ClipboardSettings,
) -> (String, String) {
    let mode = match settings.mode {
        clipboard::ClipboardMode::Auto => "auto",
        clipboard::ClipboardMode::Tmux => "tmux",
        clipboard::ClipboardMode::Osc52 => "osc52",
        clipboard::ClipboardMode::Native => "native",
    };
    let chosen_by = if settings.mode == clipboard::ClipboardMode::Auto {
        String::new()
    } else {
        format!("clipboard = \"{mode}\" in the config; ")
    };
    match route {
        Route::Command(command) => (
            // Its program only: its words may hold ${VAR} values filled in.
            format!(
                "clipboard_command `{}` (its arguments not shown)",
                command.first().map(String::as_str).unwrap_or_default()
            ),
            "the config's clipboard_command is always the route".into(),
        ),
        Route::Tmux => (
            "a tmux buffer (tmux load-buffer, with -w unless set-clipboard is off)".into(),
            format!("{chosen_by}inside tmux ($TMUX is set)"),
        ),
        Route::Tool { program, .. } => (
            format!("the desktop clipboard through {}", program.display()),
            format!(
                "{chosen_by}{} and {} on PATH",
                if env.wayland {
                    "a Wayland display ($WAYLAND_DISPLAY)"
                } else {
                    "an X display ($DISPLAY)"
                },
                program
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
        ),
        Route::Holder => (
            "the desktop clipboard, held by mcpick itself after it exits".into(),
            format!(
                "{chosen_by}{}",
                if env.desktop_os {
                    "the system's own clipboard".to_string()
                } else {
                    "a display, but none of wl-copy, xclip or xsel on PATH".to_string()
                }
            ),
        ),
        Route::Osc52 { screen } => (
            format!(
                "OSC 52 to the terminal{} (the terminal may refuse it; a copy is never confirmed)",
                if *screen { ", through GNU screen" } else { "" }
            ),
            if *screen {
                format!("{chosen_by}inside GNU screen ($STY is set)")
            } else if env.ssh {
                format!("{chosen_by}over SSH, where a display is not yours")
            } else {
                format!("{chosen_by}no tmux, no screen and no display")
            },
        ),
    }
}

/// What is wrong with a route: a clipboard_command that cannot run; a tmux that keeps
/// copies to itself.
fn clipboard_problems(route: &Route, tmux_outer: Option<&OuterClipboard>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Route::Command(command) = route
        && let Some(program) = command.first()
        && !program_exists(program, None)
    {
        problems.push(Problem {
            part: "clipboard".into(),
            what: format!("clipboard_command's program `{program}` is not found"),
            fix: format!("install `{program}` or correct clipboard_command in the config"),
        });
    }
    match tmux_outer {
        Some(OuterClipboard::NotSet) => problems.push(Problem {
            part: "clipboard".into(),
            what: "tmux's set-clipboard is off: a copy stays in tmux's buffer and never reaches the desktop's clipboard".into(),
            fix: "tmux set -g set-clipboard on, and `set -g set-clipboard on` in ~/.tmux.conf (the outer terminal must allow OSC 52)".into(),
        }),
        Some(OuterClipboard::NoClient) => problems.push(Problem {
            part: "clipboard".into(),
            what: "no client is attached to this tmux session: a copy stays in tmux's buffer".into(),
            fix: "attach to the session (tmux attach), or copy from an attached one".into(),
        }),
        Some(OuterClipboard::NoClipboard(terminal)) => problems.push(Problem {
            part: "clipboard".into(),
            what: format!("tmux has no clipboard feature for the attached terminal ({terminal}): it sends a copy no OSC 52, so it stays in tmux's buffer"),
            fix: clipboard::no_clipboard_fix(terminal),
        }),
        _ => {}
    }
    problems
}

/// A one-line answer of `tmux ARGS`, or `None` when tmux did not answer.
async fn tmux_ask(args: &[&str]) -> Option<String> {
    let run = tokio::process::Command::new("tmux")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(std::time::Duration::from_secs(2), run).await {
        Ok(Ok(out)) if out.status.success() => {
            Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
        }
        _ => None,
    }
}

/// The terminal's colours, graphics and background, asked through `/dev/tty`.
async fn terminal_part(config: Option<&Config>, problems: &mut Vec<Problem>) -> TerminalPart {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let term = var("TERM");
    let colours = colour_depth(
        var("NO_COLOR").is_some(),
        var("COLORTERM").as_deref(),
        term.as_deref(),
    );
    let image_protocol = config.map(|c| c.image_protocol).unwrap_or_default();
    let theme_auto = config.is_none_or(|c| c.theme.light_variant.is_some());
    let high_contrast = config.is_some_and(|c| c.theme.colors.high_contrast);
    let theme_light = config.is_some_and(|c| c.theme.colors.light);
    let in_tmux = var("TMUX").is_some();
    let passthrough = if in_tmux {
        tmux_ask(&["show", "-gv", "allow-passthrough"]).await
    } else {
        None
    };
    // Only on a terminal of its own: behind a pipe (`| less`) the reader shares the tty,
    // and its keys and the answers would cross.
    let asked = if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        Err(std::io::Error::other(
            "stdout is not a terminal (a pipe or a file), so the terminal was not asked",
        ))
    } else {
        tokio::task::spawn_blocking(|| {
            crate::tui::ask_terminal(std::time::Duration::from_millis(500))
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
    };
    let (images, background, note, asked_ok) = match asked {
        Ok((replies, graphics)) => {
            let images = match image_protocol {
                ImageProtocol::Auto => graphics.protocol.map(|p| format!("{p:?}").to_lowercase()),
                fixed => Some(format!("{fixed:?} (image_protocol in the config)").to_lowercase()),
            };
            let background = replies.background.map(|luminance| {
                let light = luminance > 0.4;
                format!(
                    "{} (luminance {luminance:.2})",
                    if light { "light" } else { "dark" }
                )
            });
            let note = replies.da1.is_none().then(|| {
                "the terminal did not answer DA1 in time: what it draws is guessed".to_string()
            });
            if let Some(luminance) = replies.background
                && !theme_auto
                && (luminance > 0.4) != theme_light
            {
                let (base, other) = if theme_light {
                    ("light", "dark")
                } else {
                    ("dark", "light")
                };
                problems.push(Problem {
                    part: "terminal".into(),
                    what: format!(
                        "the theme's base is \"{base}\" but the terminal's background is {other}: some text will be hard to read"
                    ),
                    fix: "set base = \"auto\" (or \"".to_string() + other + "\") in the config's [theme] table",
                });
            }
            (images, background, note, true)
        }
        Err(error) => (
            None,
            None,
            Some(format!(
                "not asked: {error}; run `mcpick doctor` on its own in the terminal you use mcpick in"
            )),
            false,
        ),
    };
    let pixel_protocol = matches!(
        image_protocol,
        ImageProtocol::Kitty | ImageProtocol::Sixel | ImageProtocol::Iterm2
    );
    if in_tmux && pixel_protocol && passthrough.as_deref().is_some_and(|p| p == "off") {
        problems.push(Problem {
            part: "terminal".into(),
            what: "image_protocol names a picture protocol, but tmux's allow-passthrough is off: tmux drops the pictures".into(),
            fix: "tmux set -g allow-passthrough on, and the same line in ~/.tmux.conf (or image_protocol = \"halfblocks\")".into(),
        });
    }
    let theme = match (theme_auto, theme_light) {
        _ if high_contrast => {
            "high-contrast (7:1): its dark or light inks as the background answers".to_string()
        }
        (true, _) => "auto: light or dark as the background answers".to_string(),
        (false, true) => "light".to_string(),
        (false, false) => "dark".to_string(),
    };
    TerminalPart {
        term,
        colours,
        asked: asked_ok,
        note,
        images,
        background,
        theme,
        tmux_allow_passthrough: passthrough,
    }
}

/// The colours the terminal says it takes: `NO_COLOR` wins, then `COLORTERM`, then `TERM`.
fn colour_depth(no_color: bool, colorterm: Option<&str>, term: Option<&str>) -> String {
    if no_color {
        return "none: NO_COLOR is set (bold, underline and reverse remain)".into();
    }
    match (colorterm, term) {
        (Some("truecolor" | "24bit"), _) => "24-bit (COLORTERM)".into(),
        (_, Some(term)) if term.contains("direct") => "24-bit (TERM)".into(),
        (_, Some(term)) if term.contains("256color") => "256 (TERM)".into(),
        (_, Some("dumb")) => "none: TERM is dumb".into(),
        (_, Some(_)) => "16 (TERM)".into(),
        (_, None) => "unknown: TERM is not set".into(),
    }
}

/// `text` after `first`, wrapped to `columns` with the following rows indented as wide as
/// `first`.
fn hanging(out: &mut String, first: &str, text: &str, columns: usize) {
    let indent = " ".repeat(crate::text::width(first));
    let room = columns.saturating_sub(indent.len()).max(20);
    for (i, row) in crate::text::wrap(text, room).iter().enumerate() {
        out.push_str(if i == 0 { first } else { &indent });
        out.push_str(row.trim_end());
        out.push('\n');
    }
}

/// The report as text, in sections, wrapped to `columns`.
fn render(report: &Report, columns: usize) -> String {
    let mut out = String::new();
    let line = |out: &mut String, label: &str, value: &str| {
        hanging(out, &format!("  {label:<12}"), value, columns);
    };
    out.push_str(&format!("mcpick {}\n\nConfig\n", report.version));
    let config = &report.config;
    line(
        &mut out,
        "file",
        &config
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "none".into()),
    );
    line(&mut out, "why", &config.why);
    if config.error.is_some() {
        line(&mut out, "state", "cannot be used (see the problems below)");
    } else if !config.exists {
        line(
            &mut out,
            "state",
            "not there: the bundled prompt library is the one server, `builtin` (`mcpick init` writes a starter config)",
        );
    } else {
        line(&mut out, "state", "read");
    }
    out.push_str("\nAccessibility\n");
    for (label, value) in [
        ("screen reader", &report.accessibility.screen_reader_source),
        ("reduce motion", &report.accessibility.reduce_motion_source),
    ] {
        hanging(&mut out, &format!("  {label:<15}"), value, columns);
    }
    out.push_str("\nServers\n");
    if report.servers.is_empty() {
        out.push_str("  none\n");
    }
    for server in &report.servers {
        hanging(
            &mut out,
            "  ",
            &format!("{}  {} {}", server.name, server.transport, server.target),
            columns,
        );
        hanging(&mut out, "      ", &server.last, columns);
    }
    out.push_str("\nFiles\n");
    let shown = |path: &Option<PathBuf>| {
        path.as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "none on this system".into())
    };
    line(&mut out, "catalog", &shown(&report.files.catalog));
    line(&mut out, "data", &shown(&report.files.data));
    line(&mut out, "logs", &shown(&report.files.logs));
    if let Some(lockfile) = &report.files.lockfile {
        line(&mut out, "lockfile", lockfile);
    }
    out.push_str("\nClipboard\n");
    line(&mut out, "route", &report.clipboard.route);
    line(&mut out, "why", &report.clipboard.why);
    if let Some(setting) = &report.clipboard.tmux_set_clipboard {
        line(&mut out, "tmux", &format!("set-clipboard {setting}"));
    }
    out.push_str("\nTerminal\n");
    let terminal = &report.terminal;
    line(
        &mut out,
        "TERM",
        terminal.term.as_deref().unwrap_or("(not set)"),
    );
    line(&mut out, "colours", &terminal.colours);
    if let Some(images) = &terminal.images {
        line(&mut out, "images", images);
    }
    if let Some(background) = &terminal.background {
        line(&mut out, "background", background);
    } else if terminal.asked {
        line(
            &mut out,
            "background",
            "not told (OSC 11 unanswered): dark is assumed",
        );
    }
    line(&mut out, "theme", &terminal.theme);
    if let Some(passthrough) = &terminal.tmux_allow_passthrough {
        line(
            &mut out,
            "tmux",
            &format!("allow-passthrough {passthrough}"),
        );
    }
    if let Some(note) = &terminal.note {
        line(&mut out, "note", note);
    }
    out.push('\n');
    if report.problems.is_empty() {
        out.push_str("No problems found.\n");
    } else {
        out.push_str(&format!(
            "{} found:\n",
            crate::text::counted(report.problems.len(), "problem", "problems")
        ));
        for problem in &report.problems {
            hanging(
                &mut out,
                "  ✗ ",
                &format!("{}: {}", problem.part, problem.what),
                columns,
            );
            hanging(&mut out, "    fix: ", &problem.fix, columns);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_under_their_own_start() {
        let mut out = String::new();
        hanging(
            &mut out,
            "    fix: ",
            "tmux set -g set-clipboard on, and the same line in ~/.tmux.conf",
            40,
        );
        assert_eq!(
            out,
            "    fix: tmux set -g set-clipboard on,\n         and the same line in\n         ~/.tmux.conf\n"
        );
    }

    #[test]
    fn colours_follow_no_color_then_colorterm_then_term() {
        assert!(colour_depth(true, Some("truecolor"), Some("xterm-256color")).starts_with("none"));
        assert!(colour_depth(false, Some("truecolor"), Some("xterm")).starts_with("24-bit"));
        assert!(colour_depth(false, None, Some("xterm-256color")).starts_with("256"));
        assert!(colour_depth(false, None, Some("xterm")).starts_with("16"));
        assert!(colour_depth(false, None, Some("dumb")).starts_with("none"));
        assert!(colour_depth(false, None, None).starts_with("unknown"));
    }

    #[test]
    fn urls_are_shown_without_what_can_hold_keys() {
        assert_eq!(
            shown_url("https://user:pw@example.com/mcp?key=secret#x"),
            "https://example.com/…"
        );
        assert_eq!(shown_url("http://127.0.0.1:8080/"), "http://127.0.0.1:8080");
        assert_eq!(shown_url("not a url"), "(not a URL)");
    }

    #[test]
    fn a_tmux_that_keeps_copies_to_itself_is_a_problem_with_its_fix() {
        let problems = clipboard_problems(&Route::Tmux, Some(&OuterClipboard::NotSet));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].fix.contains("set-clipboard on"), "{problems:?}");
        let problems = clipboard_problems(&Route::Tmux, Some(&OuterClipboard::NoClient));
        assert!(problems[0].fix.contains("attach"), "{problems:?}");
        let no_ms = OuterClipboard::NoClipboard("screen-256color".into());
        let problems = clipboard_problems(&Route::Tmux, Some(&no_ms));
        assert!(
            problems[0].fix.contains("',screen-256color:clipboard'"),
            "{problems:?}"
        );
        assert!(
            clipboard_problems(&Route::Tmux, Some(&OuterClipboard::Sent("external".into())))
                .is_empty()
        );
        assert!(clipboard_problems(&Route::Osc52 { screen: false }, None).is_empty());
    }

    #[test]
    fn a_clipboard_command_that_is_not_there_is_a_problem() {
        let missing = Route::Command(vec!["mcpick-no-such-copier".into()]);
        let problems = clipboard_problems(&missing, None);
        assert!(
            problems[0].what.contains("mcpick-no-such-copier"),
            "{problems:?}"
        );
        assert!(clipboard_problems(&Route::Command(vec!["sh".into()]), None).is_empty());
    }

    #[test]
    fn each_route_says_why_it_was_chosen() {
        let settings = clipboard::ClipboardSettings::default();
        let env = clipboard::ClipboardEnv {
            ssh: true,
            ..Default::default()
        };
        let (name, why) = describe_route(&Route::Osc52 { screen: false }, &env, &settings);
        assert!(name.contains("never confirmed"), "{name}");
        assert!(why.contains("SSH"), "{why}");
        let forced = clipboard::ClipboardSettings {
            mode: clipboard::ClipboardMode::Tmux,
            command: None,
        };
        let (_, why) = describe_route(&Route::Tmux, &env, &forced);
        assert!(
            why.starts_with("clipboard = \"tmux\" in the config"),
            "{why}"
        );
        let (_, why) = describe_route(
            &Route::Holder,
            &clipboard::ClipboardEnv::default(),
            &settings,
        );
        assert!(why.contains("none of wl-copy, xclip or xsel"), "{why}");
    }
}
