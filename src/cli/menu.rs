//! `mcpick` with no subcommand: the menu's flags (fzf's `-q`, `--select-1`, `--exit-0`,
//! `--height`, `--tmux`) and a prompt named on the command line.

use super::args::parse_all;
use super::args::read_given;
use super::loading::check_server_named;
use super::loading::load_config_quietly;
use super::loading::other_hosts_configs;
use super::output;
use crate::export::Format;
use std::path::Path;

use std::process::ExitCode;

use super::args::merge;
use super::popup::PopupSize;
use super::{Cli, CliError};
use crate::app::{OpenPrompt, Start};
use crate::search::PromptRef;
use crate::tui::ScreenMode;

/// The command line with `--tmux WORD` spelled `--tmux=80% WORD` when WORD is no popup size,
/// so `mcpick --tmux builtin/translate` opens that prompt in the default popup (clap would
/// take the prompt for the size).
pub fn with_tmux_size_spelled_out(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        if arg == "--" {
            out.push(arg);
            out.extend(args);
            break;
        }
        let next_is_no_size = args.peek().is_some_and(|next| {
            let next = next.to_string_lossy();
            !next.starts_with('-') && PopupSize::parse(&next).is_err()
        });
        if arg == "--tmux" && next_is_no_size {
            out.push(std::ffi::OsString::from("--tmux=80%"));
        } else {
            out.push(arg);
        }
    }
    out
}

/// The edit distance of `a` and `b` where swapping two neighbouring characters is one
/// edit, as typing slips are (optimal string alignment).
fn typo_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The menu's start request from the command line.
pub fn start_of(cli: &Cli) -> Result<Start, CliError> {
    let open = match &cli.prompt {
        None => None,
        // `mcpick text=Bonjour`: values without the prompt they are for.
        Some(text) if text.contains('=') && !text.contains(['/', ':']) => {
            return Err(CliError::usage(format!(
                "`{text}` looks like NAME=VALUE; name the prompt first: mcpick SERVER/PROMPT {text}"
            )));
        }
        Some(text) => {
            let reference = PromptRef::parse(text).map_err(CliError::usage)?;
            // Files and stdin are read now, before the menu takes the terminal (its keys
            // then come from /dev/tty, stdin being the pipe).
            let (pairs, sources) =
                given_values(&cli.assignments, &cli.arg_files, StdinFrom::NotTheTerminal)?;
            // `mcpick lsit`: a bare name close to a subcommand may be a typo of it.
            let near_command = reference
                .separator
                .is_none()
                .then(|| {
                    let command = <super::Cli as clap::CommandFactory>::command();
                    let names: Vec<String> = command
                        .get_subcommands()
                        .filter(|c| !c.is_hide_set())
                        .map(|c| c.get_name().to_string())
                        .collect();
                    // Two edits at most, a swap of two letters being one: `lsit` is `list`
                    // (not `init`), `budget` is no `get`.
                    let word = reference.whole.to_lowercase();
                    names
                        .into_iter()
                        .map(|name| (typo_distance(&word, &name), name))
                        .filter(|(distance, _)| *distance <= 2)
                        .min()
                        .map(|(_, name)| name)
                })
                .flatten();
            Some(OpenPrompt {
                reference,
                near_command,
                values: merge(pairs).map_err(CliError::usage)?,
                sources,
                no_form: cli.no_form,
            })
        }
    };
    Ok(Start {
        query: cli.query.clone().unwrap_or_default(),
        select_one: cli.select_one,
        exit_zero: cli.exit_zero,
        open,
    })
}

/// Runs the menu as the flags say: in a tmux popup, inline, or on the whole screen.
pub async fn run(cli: Cli) -> Result<ExitCode, CliError> {
    let start = start_of(&cli)?;
    if let Some(size) = cli.tmux {
        return super::popup::run(size).await;
    }
    let screen = match cli.height {
        Some(height) => ScreenMode::Inline(height),
        None => ScreenMode::Full,
    };
    tui(
        cli.config.as_deref(),
        TuiRequest {
            output: cli.output,
            print: cli.print,
            format: cli.tui_format,
            start,
            screen,
            screen_reader: cli.screen_reader,
            lock: cli.lock,
        },
    )
    .await
}

/// The lockfile the menu compares with: `--lock`, else `[lock] file`, else `mcpick.lock`
/// here when there is one. One named but missing or unreadable is an error (exit 2).
pub(super) fn menu_lock(
    flag: Option<std::path::PathBuf>,
    settings: &crate::config::LockSettings,
) -> Result<Option<crate::app::MenuLock>, CliError> {
    let named = flag.or_else(|| settings.file.clone());
    let path = named
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(crate::lock::DEFAULT_FILE));
    let Some(lockfile) = super::lock::read_lockfile(&path)? else {
        return match named {
            Some(path) => Err(CliError::usage(format!(
                "no lockfile at {}: `mcpick lock --file {}` writes one",
                path.display(),
                super::output::shell_word(&path.display().to_string())
            ))),
            None => Ok(None),
        };
    };
    Ok(Some(crate::app::MenuLock {
        lockfile: std::sync::Arc::new(lockfile),
        shown_path: path.display().to_string(),
        enforce: settings.enforce,
    }))
}

/// What the menu says when there is no config file.
const NO_CONFIG_NOTE: &str =
    "No config file: showing the bundled library (`mcpick init` writes one).";

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
    /// `--screen-reader`.
    pub screen_reader: bool,
    /// `--lock FILE`.
    pub lock: Option<std::path::PathBuf>,
}

/// The full-screen menu.
pub async fn tui(config_path: Option<&Path>, request: TuiRequest) -> Result<ExitCode, CliError> {
    let TuiRequest {
        output: output_path,
        print,
        format,
        start,
        screen,
        screen_reader,
        lock,
    } = request;
    let format: Format = format.parse().map_err(CliError::usage)?;
    // The flag and the environment decide before the config is read (the screen reader
    // mode needs no terminal); the config's `[ui]` table decides after.
    let env = super::access::env_value(super::access::SCREEN_READER_ENV);
    let switched =
        super::access::screen_reader(screen_reader, env.as_deref(), &Default::default(), None);
    if let Some(by) = switched.by.clone().filter(|_| switched.on) {
        let super::loading::Loaded { config, note, .. } = load_config_quietly(config_path)?;
        if let Some(open) = &start.open {
            let servers: Vec<_> = config.enabled_servers().cloned().collect();
            check_server_named(&config, &servers, &open.reference)?;
        }
        let note = note.map(|_| NO_CONFIG_NOTE.to_string());
        let lock = menu_lock(lock, &config.lock)?;
        return super::linear::run(config, note, by, start, format, output_path, lock).await;
    }
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
    let super::loading::Loaded { config, keys, note } = load_config_quietly(config_path)?;
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
    let note = note.map(|_| NO_CONFIG_NOTE.to_string());
    let lock = menu_lock(lock, &config.lock)?;
    if switched.by.is_none() && config.ui.screen_reader {
        let by = super::access::Switch::Config(config.path.clone());
        return super::linear::run(config, note, by, start, format, output_path, lock).await;
    }
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
        reduce_motion: super::access::reduce_motion(
            super::access::env_value(super::access::REDUCE_MOTION_ENV).as_deref(),
            &config.ui,
            config.path.as_deref(),
        )
        .on,
        lock,
    };
    // A TUI that cannot run is an error (2), as fzf's.
    let outcome = crate::tui::run(servers, options, keys, note, offer, screen)
        .await
        .map_err(CliError::usage)?;
    // Said once the terminal is given back: over the screen it would be lost.
    super::output::tell_dpop_notices();
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
        crate::value_io::read_stdin(limit).map_err(|e| e.to_string())
    })
    .map_err(CliError::usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swap_of_two_letters_is_one_typo() {
        assert_eq!(typo_distance("lsit", "list"), 1);
        assert_eq!(typo_distance("lsit", "init"), 2);
        assert_eq!(typo_distance("sevrers", "servers"), 1);
        assert_eq!(typo_distance("budget", "get"), 3);
        assert_eq!(typo_distance("", "get"), 3);
    }

    #[test]
    fn a_prompt_after_tmux_is_not_taken_for_its_size() {
        let words = |w: &[&str]| w.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            with_tmux_size_spelled_out(words(&["mcpick", "--tmux", "builtin/translate", "to=x"])),
            words(&["mcpick", "--tmux=80%", "builtin/translate", "to=x"])
        );
        for kept in [
            &["mcpick", "--tmux", "90%x60%", "builtin/translate"][..],
            &["mcpick", "--tmux", "-q", "trans"],
            &["mcpick", "--tmux"],
            &["mcpick", "get", "--", "--tmux", "x"],
        ] {
            assert_eq!(with_tmux_size_spelled_out(words(kept)), words(kept));
        }
    }
}
