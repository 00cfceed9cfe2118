//! `mcpick` with no subcommand: the menu's flags (fzf's `-q`, `--select-1`, `--exit-0`,
//! `--height`, `--tmux`) and a prompt named on the command line.

use std::process::ExitCode;

use super::args::merge;
use super::popup::PopupSize;
use super::{Cli, CliError};
use crate::app::{OpenPrompt, Start};
use crate::catalog::PromptRef;
pub use crate::tui::Height;
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
            let (pairs, sources) = super::commands::given_values(
                &cli.assignments,
                &cli.arg_files,
                super::commands::StdinFrom::NotTheTerminal,
            )?;
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
    super::commands::tui(
        cli.config.as_deref(),
        super::commands::TuiRequest {
            output: cli.output,
            print: cli.print,
            format: cli.tui_format,
            start,
            screen,
        },
    )
    .await
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
