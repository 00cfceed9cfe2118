//! The clipboard: which route fits this terminal setup (a pure choice from the environment
//! and the config), and carrying it out (a tmux buffer, the desktop clipboard through a tool
//! or mcpick's own detached holder, a command of the user's, or OSC 52 to the terminal).
//!
//! Every route but OSC 52 is confirmed (an exit status, or the holder's "ready" byte); OSC 52
//! is only ever reported as sent.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

pub use crate::config::{ClipboardMode, ClipboardSettings};
use crate::sys::process::OwnGroup;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long a clipboard program may take before the copy counts as failed.
pub const ANSWER_WAIT: Duration = Duration::from_secs(3);

/// The hidden subcommand that runs mcpick as the detached clipboard holder.
pub const HOLD_COMMAND: &str = "__clipboard-hold";

/// How often the holder checks that its display is still there.
#[cfg(all(unix, not(target_os = "macos")))]
const HOLDER_CHECK: Duration = Duration::from_secs(30);

/// The byte the holder writes once it owns the clipboard.
const READY: u8 = b'1';

/// GNU screen passes a DCS string of at most this many bytes through; longer ones are cut.
const SCREEN_CHUNK: usize = 768;

// What the user reads (status bar and `get --copy`): one place.
const TMUX_COPIED: &str = "Copied to a tmux buffer (prefix ] pastes it)";
const TMUX_OUTER_NOT_SET: &str = "NOT your terminal's clipboard (set -g set-clipboard on)";
const TMUX_OUTER_HOW: &str =
    "to set your terminal's clipboard too, add `set -g set-clipboard on` to ~/.tmux.conf";
const TMUX_NO_MS: &str = "NOT your terminal's clipboard (tmux has no clipboard feature for";
const TMUX_OUTER_UNKNOWN: &str = "tmux did not say whether it reached your terminal's clipboard";
const TMUX_NO_CLIENT: &str = "no tmux client is attached, so no terminal's clipboard got it";
const TERMINAL_SENT: &str =
    "Sent to the terminal (OSC 52; terminals may refuse it, so this copy cannot be confirmed)";
const SCREEN_SENT: &str = "Sent to the terminal through screen (OSC 52; terminals may refuse it, so this copy cannot be confirmed)";
const HOLDER_NAME: &str = "mcpick's clipboard holder";

/// Why a copy did not happen. Shown as it is (the menu's status line, the CLI's error);
/// typed so each route's failures are named in one place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClipboardError {
    /// `clipboard_command = []`.
    #[error("clipboard_command is empty")]
    EmptyCommand,
    /// OSC 52 handed to the routes that run programs.
    #[error("OSC 52 is written to the terminal, not run")]
    Osc52NotRun,
    /// No terminal to write OSC 52 to.
    #[error("no terminal to send OSC 52 to ({0})")]
    NoTerminal(String),
    /// The program could not be started.
    #[error("cannot run {program}: {reason}")]
    CannotRun {
        /// Its name.
        program: String,
        /// The OS error.
        reason: String,
    },
    /// Its stdin could not be had (`tmux`, `the program`).
    #[error("cannot write to {0}")]
    NoInput(String),
    /// Writing to it or waiting for it failed.
    #[error("{what}: {reason}")]
    Io {
        /// The program.
        what: String,
        /// The OS error.
        reason: String,
    },
    /// It did not answer within [`ANSWER_WAIT`].
    #[error("{what} did not answer within {secs} s")]
    NoAnswer {
        /// The program.
        what: String,
        /// The wait, in seconds.
        secs: u64,
    },
    /// `tmux load-buffer` exited with an error: its first stderr line, or its status.
    #[error("tmux load-buffer failed: {0}")]
    TmuxFailed(String),
    /// A clipboard tool or command exited with an error.
    #[error("{program} failed: {why}")]
    ToolFailed {
        /// Its name.
        program: String,
        /// Its first stderr line, or its status.
        why: String,
    },
    /// mcpick's own binary cannot be found to start the holder.
    #[error("cannot find mcpick's own binary: {0}")]
    NoOwnBinary(String),
    /// The holder could not be started.
    #[error("cannot start {HOLDER_NAME}: {0}")]
    HolderNotStarted(String),
    /// The holder's pipes were not there.
    #[error("cannot talk to {HOLDER_NAME}")]
    HolderMute,
    /// The holder stopped: what it said on stdout (see [`hold`]).
    #[error("{0}")]
    HolderSaid(String),
}

/// What the environment says about where mcpick runs: the facts the route depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClipboardEnv {
    /// `$TMUX` is set: inside tmux.
    pub tmux: bool,
    /// `$STY` is set: inside GNU screen.
    pub screen: bool,
    /// `$WAYLAND_DISPLAY` is set.
    pub wayland: bool,
    /// `$DISPLAY` is set (X11).
    pub x11: bool,
    /// An SSH session (`$SSH_CONNECTION` or `$SSH_TTY`): a display there is not the user's.
    pub ssh: bool,
    /// macOS or Windows, whose clipboard is always the desktop's.
    pub desktop_os: bool,
    /// `wl-copy` on PATH.
    pub wl_copy: Option<PathBuf>,
    /// `xclip` on PATH.
    pub xclip: Option<PathBuf>,
    /// `xsel` on PATH.
    pub xsel: Option<PathBuf>,
}

impl ClipboardEnv {
    /// The facts of this process: its environment variables and PATH.
    pub fn detect() -> ClipboardEnv {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let find = |program: &str| find_on_path(&path, program);
        ClipboardEnv {
            tmux: set("TMUX"),
            screen: set("STY"),
            wayland: set("WAYLAND_DISPLAY"),
            x11: set("DISPLAY"),
            ssh: set("SSH_CONNECTION") || set("SSH_TTY"),
            desktop_os: cfg!(any(target_os = "macos", target_os = "windows")),
            wl_copy: find("wl-copy"),
            xclip: find("xclip"),
            xsel: find("xsel"),
        }
    }
}

/// The first `program` in the folders of `path` (a PATH value) that is a file.
pub fn find_on_path(path: &OsString, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// A way to the clipboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The config's `clipboard_command`: the text on its stdin, confirmed by its exit status.
    Command(Vec<String>),
    /// `tmux load-buffer -`: a tmux buffer, with `-w` (tmux passes it on to the attached
    /// terminal) unless `set-clipboard` is off.
    Tmux,
    /// A desktop tool that forks and keeps serving the selection (wl-copy, xclip, xsel).
    Tool {
        /// The program, as found on PATH.
        program: PathBuf,
        /// Its arguments.
        args: Vec<String>,
    },
    /// mcpick itself, detached, holding the desktop clipboard until another program takes it.
    Holder,
    /// OSC 52 to the terminal; `screen` wraps it in GNU screen's passthrough. Unconfirmed.
    Osc52 {
        /// Wrapped for GNU screen.
        screen: bool,
    },
}

/// The route for `settings` in `env`: `clipboard_command` when set; else by `mode`, where
/// `auto` takes tmux, then screen, then the desktop (not over SSH), then OSC 52.
pub fn choose(env: &ClipboardEnv, settings: &ClipboardSettings) -> Route {
    if let Some(command) = settings.command.as_ref().filter(|c| !c.is_empty()) {
        return Route::Command(command.clone());
    }
    match settings.mode {
        ClipboardMode::Tmux => Route::Tmux,
        ClipboardMode::Osc52 => Route::Osc52 {
            screen: env.screen && !env.tmux,
        },
        ClipboardMode::Native => desktop(env),
        ClipboardMode::Auto if env.tmux => Route::Tmux,
        ClipboardMode::Auto if env.screen => Route::Osc52 { screen: true },
        ClipboardMode::Auto if (env.wayland || env.x11 || env.desktop_os) && !env.ssh => {
            desktop(env)
        }
        ClipboardMode::Auto => Route::Osc52 { screen: false },
    }
}

/// The desktop clipboard: a tool that keeps serving the selection after mcpick exits, else
/// mcpick's own holder.
fn desktop(env: &ClipboardEnv) -> Route {
    let tool = |program: &Option<PathBuf>, args: &[&str]| {
        program.clone().map(|program| Route::Tool {
            program,
            args: args.iter().map(|a| a.to_string()).collect(),
        })
    };
    let wayland = env.wayland.then(|| tool(&env.wl_copy, &[])).flatten();
    let x11 = || {
        env.x11
            .then(|| {
                tool(&env.xclip, &["-selection", "clipboard"])
                    .or_else(|| tool(&env.xsel, &["--clipboard", "--input"]))
            })
            .flatten()
    };
    wayland.or_else(x11).unwrap_or(Route::Holder)
}

impl Route {
    /// For the OSC 52 routes, the bytes to write to the terminal (the caller owns it).
    pub fn terminal_sequence(&self, text: &str) -> Option<String> {
        match self {
            Route::Osc52 { screen: false } => Some(osc52_sequence(text)),
            Route::Osc52 { screen: true } => Some(screen_passthrough(&osc52_sequence(text))),
            _ => None,
        }
    }
}

/// Whether tmux passed the buffer on to the terminal outside it. `load-buffer -w` sends OSC 52
/// to one client (the one tmux picks for the session) whatever `set-clipboard` says, and only
/// if that client's terminal has `Ms`; so mcpick passes `-w` only when `set-clipboard` is not
/// `off`, and asks which client and whether its terminal has `Ms`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OuterClipboard {
    /// Sent by OSC 52 to the attached terminal; `set-clipboard` (`on` or `external`) is kept.
    Sent(String),
    /// `set-clipboard off`: mcpick did not ask tmux to pass it on; only the buffer holds it.
    NotSet,
    /// No client is attached: no terminal to pass it to.
    NoClient,
    /// The attached terminal (this `TERM`) has no `Ms`, so tmux sent it nothing.
    NoClipboard(String),
    /// tmux did not say.
    Unknown,
}

/// What a copy did, so it can be told truthfully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Copied {
    /// In a tmux buffer (confirmed); maybe also on the outer terminal's clipboard.
    TmuxBuffer {
        /// What tmux did with it beyond the buffer.
        outer: OuterClipboard,
    },
    /// On the desktop clipboard (confirmed), by this program.
    Desktop {
        /// `wl-copy`, `xclip`, `xsel` or mcpick's holder.
        via: String,
    },
    /// Taken by the config's `clipboard_command` (confirmed by its exit status).
    Command {
        /// The program's name.
        program: String,
    },
    /// OSC 52 written to the terminal: sent, not confirmed.
    Terminal {
        /// Wrapped for GNU screen.
        screen: bool,
    },
}

impl Copied {
    /// Whether the text is known to be on a clipboard (everything but OSC 52).
    pub fn confirmed(&self) -> bool {
        !matches!(self, Copied::Terminal { .. })
    }

    /// One line for the user (the status bar, `get --copy`'s stderr), no final period.
    pub fn summary(&self) -> String {
        match self {
            Copied::TmuxBuffer { outer } => match outer {
                OuterClipboard::Sent(setting) => {
                    format!("{TMUX_COPIED} and your terminal's clipboard (set-clipboard {setting})")
                }
                OuterClipboard::NotSet => format!("{TMUX_COPIED}, {TMUX_OUTER_NOT_SET}"),
                OuterClipboard::NoClipboard(terminal) => {
                    format!("{TMUX_COPIED}, {TMUX_NO_MS} {terminal})")
                }
                OuterClipboard::Unknown => format!("{TMUX_COPIED}; {TMUX_OUTER_UNKNOWN}"),
                OuterClipboard::NoClient => format!("{TMUX_COPIED}; {TMUX_NO_CLIENT}"),
            },
            Copied::Desktop { via } => format!("Copied to the desktop clipboard (via {via})"),
            Copied::Command { program } => format!("Copied with {program} (clipboard_command)"),
            Copied::Terminal { screen: false } => TERMINAL_SENT.to_string(),
            Copied::Terminal { screen: true } => SCREEN_SENT.to_string(),
        }
    }

    /// What to do about it, when the summary is not the whole story (said where there is room).
    pub fn advice(&self) -> Option<String> {
        match self {
            Copied::TmuxBuffer {
                outer: OuterClipboard::NotSet,
            } => Some(TMUX_OUTER_HOW.to_string()),
            Copied::TmuxBuffer {
                outer: OuterClipboard::NoClipboard(terminal),
            } => Some(no_clipboard_fix(terminal)),
            _ => None,
        }
    }
}

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52_sequence(text: &str) -> String {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{encoded}\x07")
}

/// `sequence` wrapped in GNU screen's DCS passthrough (`ESC P` … `ESC \`), cut in pieces
/// screen passes on whole; screen writes the pieces out joined.
pub fn screen_passthrough(sequence: &str) -> String {
    let mut out = String::with_capacity(sequence.len() + sequence.len() / SCREEN_CHUNK * 4 + 4);
    // The sequence is ASCII (base64 in an OSC), so cutting at any byte is safe.
    for piece in sequence.as_bytes().chunks(SCREEN_CHUNK) {
        out.push_str("\x1bP");
        out.push_str(&String::from_utf8_lossy(piece));
        out.push_str("\x1b\\");
    }
    out
}

/// Carries out a route that runs a program (all but OSC 52, which the terminal's owner
/// writes), within [`ANSWER_WAIT`] for each program.
pub async fn copy(route: &Route, text: &str) -> Result<Copied, ClipboardError> {
    match route {
        Route::Tmux => copy_to_tmux(text).await,
        Route::Tool { program, args } => {
            feed(program, args, text).await?;
            Ok(Copied::Desktop {
                via: program_name(program),
            })
        }
        Route::Command(command) => {
            let (program, args) = command.split_first().ok_or(ClipboardError::EmptyCommand)?;
            let program = PathBuf::from(crate::config::expand_tilde(program));
            feed(&program, args, text).await?;
            Ok(Copied::Command {
                program: program_name(&program),
            })
        }
        Route::Holder => {
            start_holder(text).await?;
            Ok(Copied::Desktop {
                via: HOLDER_NAME.to_string(),
            })
        }
        Route::Osc52 { .. } => Err(ClipboardError::Osc52NotRun),
    }
}

fn program_name(program: &Path) -> String {
    program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.display().to_string())
}

/// The first line of a program's stderr, for a failure message.
fn first_line(stderr: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(crate::text::one_line)
}

/// How to let tmux send OSC 52 to `terminal`, a `TERM` whose terminfo has no `Ms`.
pub fn no_clipboard_fix(terminal: &str) -> String {
    format!(
        "if {terminal} takes OSC 52, add `set -as terminal-features ',{terminal}:clipboard'` \
         to ~/.tmux.conf"
    )
}

/// `tmux load-buffer -`, with `-w` unless `set-clipboard` is off, after asking tmux what it
/// does with it beyond the buffer. Plain `tmux` talks to the server of `$TMUX`, the one mcpick
/// runs in.
async fn copy_to_tmux(text: &str) -> Result<Copied, ClipboardError> {
    let outer = ask_tmux().await.outer;
    // `off` is the user's word that programs are not to set the terminal's clipboard; tmux
    // would send OSC 52 for `-w` all the same.
    let flags: &[&str] = if outer == OuterClipboard::NotSet {
        &[]
    } else {
        &["-w"]
    };
    let written = load_buffer(text, flags).await?;
    if !written.status.success() {
        let why = first_line(&written.stderr).unwrap_or_else(|| written.status.to_string());
        // tmux before 3.2 has no -w (nor passes buffers on): a buffer alone, then.
        if why.contains("-w") || why.contains("unknown flag") {
            let plain = load_buffer(text, &[]).await?;
            if plain.status.success() {
                return Ok(Copied::TmuxBuffer {
                    outer: OuterClipboard::Unknown,
                });
            }
        }
        return Err(ClipboardError::TmuxFailed(why));
    }
    Ok(Copied::TmuxBuffer { outer })
}

/// What tmux answers about passing a buffer on: `set-clipboard` and [`OuterClipboard`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmuxAnswer {
    /// `set-clipboard` (`on`, `external`, `off`), when tmux answered.
    pub setting: Option<String>,
    /// What `load-buffer -w` does (or, with `off`, what mcpick's plain `load-buffer` does).
    pub outer: OuterClipboard,
}

/// The first question for tmux: `set-clipboard`, the client `load-buffer -w` would send to
/// (display-message finds the same one: the best client of this pane's session) and the name
/// of its terminal.
const TMUX_QUESTION: [&str; 3] = [
    "display-message",
    "-p",
    "#{set-clipboard}\t#{client_name}\t#{client_termname}",
];

impl TmuxAnswer {
    const UNKNOWN: TmuxAnswer = TmuxAnswer {
        setting: None,
        outer: OuterClipboard::Unknown,
    };
}

/// Asks the tmux of `$TMUX` what it does with a buffer beyond keeping it.
pub async fn ask_tmux() -> TmuxAnswer {
    let Some(said) = tmux_says(&TMUX_QUESTION).await else {
        return TmuxAnswer::UNKNOWN;
    };
    let mut fields = said.split('\t');
    let (setting, client) = (fields.next().unwrap_or_default(), fields.next());
    // The terminal's capabilities matter only when tmux would send it the buffer.
    let capabilities = match (outer_clipboard(setting), client) {
        (OuterClipboard::Sent(_), Some(client)) if !client.is_empty() => {
            tmux_says(&["show-messages", "-T", "-t", client]).await
        }
        _ => None,
    };
    tmux_answer(&said, capabilities.as_deref().unwrap_or_default())
}

/// What `tmux ARGS` prints, when it succeeds within [`ANSWER_WAIT`].
async fn tmux_says(args: &[&str]) -> Option<String> {
    let out = within("tmux", async {
        tokio::process::Command::new("tmux")
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
    })
    .await
    .ok()
    .filter(|out| out.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `tmux load-buffer FLAGS -` with `text` on stdin (`-w` also to the outer terminal's
/// clipboard, `-b NAME` into a buffer of that name); within [`ANSWER_WAIT`].
pub async fn load_buffer(
    text: &str,
    flags: &[&str],
) -> Result<std::process::Output, ClipboardError> {
    let args: Vec<&str> = std::iter::once("load-buffer")
        .chain(flags.iter().copied())
        .chain(std::iter::once("-"))
        .collect();
    let mut child = tokio::process::Command::new("tmux")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ClipboardError::CannotRun {
            program: "tmux".into(),
            reason: e.to_string(),
        })?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| ClipboardError::NoInput("tmux".into()))?;
    within("tmux load-buffer", async {
        write_input(&mut stdin, text).await?;
        drop(stdin);
        child.wait_with_output().await
    })
    .await
}

/// What tmux's answer to [`TMUX_QUESTION`] (`said`) and `show-messages -T -t CLIENT`
/// (`capabilities`, asked when it matters) mean: `off` wins (mcpick does not pass `-w`), then
/// no client (nobody to send to), then whether the client's terminal has `Ms` (in the block
/// `Terminal N: TERM for CLIENT, flags=…:`, the line `Ms: (string) …` or `Ms: [missing]`).
pub fn tmux_answer(said: &str, capabilities: &str) -> TmuxAnswer {
    let first = said.lines().next().unwrap_or_default();
    let mut fields = first.split('\t');
    let setting = fields.next().unwrap_or_default().trim();
    let (Some(client), Some(terminal)) = (fields.next(), fields.next()) else {
        return TmuxAnswer::UNKNOWN;
    };
    let outer = match outer_clipboard(setting) {
        OuterClipboard::Sent(_) if client.is_empty() => OuterClipboard::NoClient,
        OuterClipboard::Sent(setting) => {
            let heading = format!(" for {client}, flags=");
            let ms = capabilities
                .lines()
                .skip_while(|l| !(l.starts_with("Terminal ") && l.contains(&heading)))
                .skip(1)
                .take_while(|l| !l.starts_with("Terminal "))
                .find_map(|l| l.trim_start().split_once(": ")?.1.strip_prefix("Ms: "));
            match ms {
                Some(ms) if ms.starts_with("(string)") => OuterClipboard::Sent(setting),
                Some(ms) if ms.starts_with("[missing]") => {
                    OuterClipboard::NoClipboard(terminal.trim().to_string())
                }
                // A client with no terminal of its own (control mode), or no answer.
                _ => OuterClipboard::Unknown,
            }
        }
        outer => outer,
    };
    TmuxAnswer {
        setting: (!setting.is_empty()).then(|| setting.to_string()),
        outer,
    }
}

/// What tmux's `set-clipboard` value means for the outer terminal.
pub fn outer_clipboard(setting: &str) -> OuterClipboard {
    match setting.trim() {
        value @ ("on" | "external") => OuterClipboard::Sent(value.to_string()),
        "off" => OuterClipboard::NotSet,
        _ => OuterClipboard::Unknown,
    }
}

/// Runs `program ARGS` with `text` on stdin and waits for its exit status. Its stderr goes
/// to a temp file, not a pipe: tools such as xclip fork and keep serving with the pipe open,
/// so reading a pipe to its end would wait for the next copy. It runs in its own process
/// group, so the hangup that ends mcpick's group (its terminal closing, or mcpick leading its
/// session) does not end the fork serving the copy.
async fn feed(program: &Path, args: &[String], text: &str) -> Result<(), ClipboardError> {
    let name = program_name(program);
    let cannot_run = |e: std::io::Error| ClipboardError::CannotRun {
        program: name.clone(),
        reason: e.to_string(),
    };
    let stderr = tempfile::tempfile().map_err(cannot_run)?;
    let stderr_copy = stderr.try_clone().map_err(cannot_run)?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::from(stderr_copy))
        .in_own_group()
        .kill_on_drop(true)
        .spawn()
        .map_err(cannot_run)?;
    let group = child.id();
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| ClipboardError::NoInput("the program".into()))?;
    let status = within(&name, async {
        write_input(&mut stdin, text).await?;
        drop(stdin);
        child.wait().await
    })
    .await
    .inspect_err(|_| {
        // It hung: end what it started too (a `sh -c` leaves its children otherwise).
        if let Some(group) = group {
            crate::sys::process::stop_group(group, crate::sys::process::Stop::Kill);
        }
    })?;
    if status.success() {
        return Ok(());
    }
    let mut said = Vec::new();
    let mut stderr = tokio::fs::File::from_std(stderr);
    let _ = tokio::io::AsyncSeekExt::rewind(&mut stderr).await;
    let _ = stderr.read_to_end(&mut said).await;
    let why = first_line(&said).unwrap_or_else(|| status.to_string());
    Err(ClipboardError::ToolFailed { program: name, why })
}

/// Starts mcpick's own holder, detached (its own process group, so the terminal's Ctrl-C
/// does not reach it), and waits for its ready byte, or its reason on failure.
async fn start_holder(text: &str) -> Result<(), ClipboardError> {
    let exe = std::env::current_exe().map_err(|e| ClipboardError::NoOwnBinary(e.to_string()))?;
    let mut command = std::process::Command::new(exe);
    command
        .arg(HOLD_COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .in_own_group();
    let mut child = tokio::process::Command::from(command)
        .spawn()
        .map_err(|e| ClipboardError::HolderNotStarted(e.to_string()))?;
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(ClipboardError::HolderMute);
    };
    let answer = within(HOLDER_NAME, async {
        // A holder that stopped early says why on stdout.
        write_input(&mut stdin, text).await?;
        drop(stdin);
        let mut answer = Vec::new();
        let mut byte = [0u8; 1];
        // The ready byte alone, or a reason up to the end.
        while stdout.read(&mut byte).await? == 1 {
            answer.push(byte[0]);
            if answer == [READY] {
                break;
            }
        }
        Ok(answer)
    })
    .await;
    match answer {
        Ok(answer) if answer == [READY] => Ok(()),
        failed => {
            // It will not hold anything: do not leave it behind.
            let _ = child.start_kill();
            let _ = child.wait().await;
            Err(match failed {
                Ok(said) => ClipboardError::HolderSaid(
                    first_line(&said)
                        .unwrap_or_else(|| format!("{HOLDER_NAME} stopped without a word")),
                ),
                Err(error) => error,
            })
        }
    }
}

/// Writes `text` to a program's stdin. A program that stops reading early is judged by its
/// exit status, not by the broken pipe.
async fn write_input(stdin: &mut tokio::process::ChildStdin, text: &str) -> std::io::Result<()> {
    match stdin.write_all(text.as_bytes()).await {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// `work` within [`ANSWER_WAIT`], its errors said with `what`.
async fn within<T>(
    what: &str,
    work: impl std::future::Future<Output = std::io::Result<T>>,
) -> Result<T, ClipboardError> {
    match tokio::time::timeout(ANSWER_WAIT, work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(ClipboardError::Io {
            what: what.to_string(),
            reason: error.to_string(),
        }),
        Err(_) => Err(ClipboardError::NoAnswer {
            what: what.to_string(),
            secs: ANSWER_WAIT.as_secs(),
        }),
    }
}

/// The holder's side (`mcpick __clipboard-hold`): puts `text` on the desktop clipboard,
/// says so on `ready` (or why not), then serves the selection until another program takes
/// it (Linux; elsewhere the system keeps the clipboard itself). Its error is words on
/// purpose: they go to the menu's process through the pipe, as text
/// ([`ClipboardError::HolderSaid`]).
pub fn hold(text: &str, ready: &mut impl std::io::Write) -> Result<(), String> {
    let said = |ready: &mut dyn std::io::Write, message: String| {
        let _ = ready.write_all(message.as_bytes());
        let _ = ready.flush();
        message
    };
    let mut clipboard = match arboard::Clipboard::new() {
        Ok(c) => c,
        Err(e) => return Err(said(ready, format!("no desktop clipboard here: {e}"))),
    };
    // Set once so that "ready" means it is really on the clipboard...
    if let Err(e) = clipboard.set_text(text) {
        return Err(said(
            ready,
            format!("the desktop clipboard refused it: {e}"),
        ));
    }
    let _ = ready.write_all(&[READY]);
    let _ = ready.flush();
    // ...then again, now waiting until another program takes the selection.
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        use arboard::SetExtLinux;
        // A display that goes away never says the selection was taken: check now and then.
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(HOLDER_CHECK);
                if arboard::Clipboard::new()
                    .and_then(|mut c| c.get_text())
                    .is_err()
                {
                    std::process::exit(0);
                }
            }
        });
        clipboard
            .set()
            .wait()
            .text(text)
            .map_err(|e| format!("the desktop clipboard was lost: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(mode: ClipboardMode) -> ClipboardSettings {
        ClipboardSettings {
            mode,
            command: None,
        }
    }

    fn x11_desktop() -> ClipboardEnv {
        ClipboardEnv {
            x11: true,
            xclip: Some(PathBuf::from("/bin/xclip")),
            xsel: Some(PathBuf::from("/bin/xsel")),
            wl_copy: Some(PathBuf::from("/bin/wl-copy")),
            ..ClipboardEnv::default()
        }
    }

    fn tool(program: &str, args: &[&str]) -> Route {
        Route::Tool {
            program: PathBuf::from(program),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn inside_tmux_the_route_is_a_tmux_buffer_even_with_a_display() {
        let env = ClipboardEnv {
            tmux: true,
            screen: true,
            ..x11_desktop()
        };
        assert_eq!(choose(&env, &settings(ClipboardMode::Auto)), Route::Tmux);
    }

    #[test]
    fn inside_screen_osc52_is_wrapped_for_screen() {
        let env = ClipboardEnv {
            screen: true,
            ..x11_desktop()
        };
        assert_eq!(
            choose(&env, &settings(ClipboardMode::Auto)),
            Route::Osc52 { screen: true }
        );
    }

    #[test]
    fn a_desktop_prefers_its_tools_then_the_holder() {
        let auto = settings(ClipboardMode::Auto);
        assert_eq!(
            choose(&x11_desktop(), &auto),
            tool("/bin/xclip", &["-selection", "clipboard"])
        );
        let no_xclip = ClipboardEnv {
            xclip: None,
            ..x11_desktop()
        };
        assert_eq!(
            choose(&no_xclip, &auto),
            tool("/bin/xsel", &["--clipboard", "--input"])
        );
        let bare = ClipboardEnv {
            x11: true,
            ..ClipboardEnv::default()
        };
        assert_eq!(choose(&bare, &auto), Route::Holder);
        let wayland = ClipboardEnv {
            wayland: true,
            ..x11_desktop()
        };
        assert_eq!(choose(&wayland, &auto), tool("/bin/wl-copy", &[]));
        let wayland_without_wl_copy = ClipboardEnv {
            wayland: true,
            wl_copy: None,
            ..ClipboardEnv::default()
        };
        assert_eq!(choose(&wayland_without_wl_copy, &auto), Route::Holder);
    }

    #[test]
    fn over_ssh_or_without_a_display_it_is_osc52() {
        let auto = settings(ClipboardMode::Auto);
        let ssh = ClipboardEnv {
            ssh: true,
            ..x11_desktop()
        };
        assert_eq!(choose(&ssh, &auto), Route::Osc52 { screen: false });
        assert_eq!(
            choose(&ClipboardEnv::default(), &auto),
            Route::Osc52 { screen: false }
        );
        // Forced native over SSH uses the (forwarded) display.
        assert_eq!(
            choose(&ssh, &settings(ClipboardMode::Native)),
            tool("/bin/xclip", &["-selection", "clipboard"])
        );
    }

    #[test]
    fn the_config_overrides_the_environment() {
        let env = ClipboardEnv {
            tmux: true,
            ..x11_desktop()
        };
        assert_eq!(
            choose(&env, &settings(ClipboardMode::Osc52)),
            Route::Osc52 { screen: false }
        );
        assert_eq!(
            choose(&ClipboardEnv::default(), &settings(ClipboardMode::Tmux)),
            Route::Tmux
        );
        assert_eq!(
            choose(&env, &settings(ClipboardMode::Native)),
            tool("/bin/xclip", &["-selection", "clipboard"])
        );
        let command = ClipboardSettings {
            mode: ClipboardMode::Tmux,
            command: Some(vec!["wl-copy".into(), "-n".into()]),
        };
        assert_eq!(
            choose(&env, &command),
            Route::Command(vec!["wl-copy".into(), "-n".into()])
        );
    }

    #[test]
    fn osc52_encodes_the_text() {
        assert_eq!(osc52_sequence("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn screen_gets_osc52_in_dcs_pieces_it_passes_on() {
        assert_eq!(
            screen_passthrough(&osc52_sequence("hi")),
            "\x1bP\x1b]52;c;aGk=\x07\x1b\\"
        );
        let long = osc52_sequence(&"x".repeat(2000));
        let wrapped = screen_passthrough(&long);
        let pieces: Vec<&str> = wrapped
            .strip_prefix("\x1bP")
            .and_then(|w| w.strip_suffix("\x1b\\"))
            .unwrap()
            .split("\x1b\\\x1bP")
            .collect();
        assert!(pieces.len() > 1);
        assert!(pieces.iter().all(|p| p.len() <= SCREEN_CHUNK));
        assert_eq!(pieces.concat(), long);
        assert_eq!(
            Route::Osc52 { screen: true }.terminal_sequence("hi"),
            Some(wrapped_short())
        );
        assert_eq!(Route::Tmux.terminal_sequence("hi"), None);
    }

    fn wrapped_short() -> String {
        "\x1bP\x1b]52;c;aGk=\x07\x1b\\".to_string()
    }

    /// `show-messages -T` as tmux 3.3a prints it for two clients (cut short).
    const CAPABILITIES: &str = "Terminal 0: xterm-256color for /dev/pts/3, flags=0x20:\n\
        \x20191: Mouse: [missing]\n\
        \x20192: Ms: (string) \\033]52;%p1%s;%p2%s\\a\n\
        \x20193: Nobr: (flag) false\n\
        Terminal 1: screen-256color for /dev/pts/2, flags=0x20:\n\
        \x20192: Ms: [missing]\n";

    #[test]
    fn tmux_says_where_the_copy_went() {
        let outer = |said: &str| tmux_answer(said, CAPABILITIES).outer;
        assert_eq!(
            outer("external\t/dev/pts/3\txterm-256color\n"),
            OuterClipboard::Sent("external".into())
        );
        assert_eq!(
            outer("on\t/dev/pts/3\txterm-256color\n"),
            OuterClipboard::Sent("on".into())
        );
        // The client tmux picks has a terminal without Ms: tmux sends it nothing.
        assert_eq!(
            outer("on\t/dev/pts/2\tscreen-256color\n"),
            OuterClipboard::NoClipboard("screen-256color".into())
        );
        assert_eq!(outer("external\t\t\n"), OuterClipboard::NoClient);
        assert_eq!(
            outer("off\t/dev/pts/3\txterm-256color\n"),
            OuterClipboard::NotSet
        );
        assert_eq!(outer("off\t\t\n"), OuterClipboard::NotSet);
        // A client not in the list (control mode has no terminal), or no list: not known.
        assert_eq!(
            outer("on\tclient-1234\txterm-256color\n"),
            OuterClipboard::Unknown
        );
        assert_eq!(
            tmux_answer("on\t/dev/pts/3\txterm\n", "").outer,
            OuterClipboard::Unknown
        );
        assert_eq!(tmux_answer("garbage", CAPABILITIES), TmuxAnswer::UNKNOWN);
        assert_eq!(tmux_answer("off\t\t\n", "").setting.as_deref(), Some("off"));
    }

    #[test]
    fn summaries_never_claim_an_unconfirmed_copy() {
        let sent = Copied::Terminal { screen: false };
        assert!(!sent.confirmed());
        assert!(sent.summary().contains("cannot be confirmed"));
        assert!(!sent.summary().contains("Copied"));
        let tmux = Copied::TmuxBuffer {
            outer: OuterClipboard::NotSet,
        };
        assert!(tmux.confirmed());
        assert!(tmux.summary().contains("NOT your terminal's clipboard"));
        assert!(tmux.summary().contains("set -g set-clipboard on"));
        assert!(tmux.advice().unwrap().contains("~/.tmux.conf"));
        let tmux = Copied::TmuxBuffer {
            outer: OuterClipboard::NoClipboard("screen-256color".into()),
        };
        assert_eq!(
            tmux.summary(),
            "Copied to a tmux buffer (prefix ] pastes it), NOT your terminal's clipboard \
             (tmux has no clipboard feature for screen-256color)"
        );
        assert!(
            tmux.advice()
                .unwrap()
                .contains("set -as terminal-features ',screen-256color:clipboard'")
        );
        let tmux = Copied::TmuxBuffer {
            outer: OuterClipboard::Sent("external".into()),
        };
        assert!(
            tmux.summary()
                .contains("and your terminal's clipboard (set-clipboard external)")
        );
    }

    #[tokio::test]
    async fn a_clipboard_command_that_hangs_fails_and_takes_its_children_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
        let route = Route::Command(vec!["sh".into(), "-c".into(), script]);
        let error = copy(&route, "x").await.unwrap_err();
        assert!(matches!(error, ClipboardError::NoAnswer { .. }), "{error}");
        assert!(
            error.to_string().contains("did not answer within 3 s"),
            "{error}"
        );
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The `sleep` the command started is gone too (reaped by init, or a zombie at most).
        let alive = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "))
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while alive() {
            assert!(
                std::time::Instant::now() < deadline,
                "sleep {pid} outlived the copy"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[tokio::test]
    async fn a_clipboard_command_is_confirmed_by_its_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("copied");
        let script = format!("cat > '{}'", out.display());
        let route = Route::Command(vec!["sh".into(), "-c".into(), script]);
        let copied = copy(&route, "hello").await.unwrap();
        assert_eq!(
            copied,
            Copied::Command {
                program: "sh".into()
            }
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "hello");
        let failing = Route::Command(vec![
            "sh".into(),
            "-c".into(),
            "echo nope >&2; exit 3".into(),
        ]);
        let failed = copy(&failing, "x").await.unwrap_err();
        assert_eq!(
            failed,
            ClipboardError::ToolFailed {
                program: "sh".into(),
                why: "nope".into()
            }
        );
        assert_eq!(failed.to_string(), "sh failed: nope");
        let missing = Route::Command(vec!["mcpick-no-such-program".into()]);
        let missing = copy(&missing, "x").await.unwrap_err();
        assert!(
            matches!(missing, ClipboardError::CannotRun { .. }),
            "{missing}"
        );
        assert!(missing.to_string().contains("cannot run"), "{missing}");
    }
}
