//! What clap accepts but the chosen subcommand would never read: the full-screen menu's
//! flags and a `SERVER/PROMPT` written before a subcommand (`mcpick --print list`, `mcpick
//! builtin/translate doctor`). Refused (exit 2) with the command line to write instead.

use std::ffi::OsString;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory as _, FromArgMatches as _};

use super::output::shell_word;
use super::{Cli, CliError};

/// The menu's own arguments (by clap id): before a subcommand nothing reads them.
const MENU_ONLY: [&str; 11] = [
    "output",
    "print",
    "tui_format",
    "query",
    "select_one",
    "exit_zero",
    "no_form",
    "height",
    "tmux",
    "arg_files",
    "lock",
];

/// Parses `args` as clap does (its own errors print and exit 2 there), then refuses menu
/// flags and a prompt before a subcommand, saying what to write instead.
pub fn parse_command_line(args: Vec<OsString>) -> Result<Cli, CliError> {
    let mut command = Cli::command();
    command.build();
    let matches = match command.clone().try_get_matches_from(args.clone()) {
        Ok(matches) => matches,
        Err(error) => {
            // `mcpick builtin/translate get` misses get's PROMPT: the prompt written before
            // `get` is the news, not clap's "required arguments were not provided".
            use clap::error::ErrorKind;
            let shown = matches!(
                error.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            );
            let lenient = command.clone().ignore_errors(true);
            if !shown
                && let Ok(matches) = lenient.try_get_matches_from(args.clone())
                && let Some(message) = refusal(&command, &matches, &args)
            {
                return Err(CliError::usage(message));
            }
            error.exit()
        }
    };
    if let Some(message) = refusal(&command, &matches, &args) {
        return Err(CliError::usage(message));
    }
    Ok(Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit()))
}

/// Why `matches` must be refused, when a subcommand was chosen.
fn refusal(command: &clap::Command, matches: &ArgMatches, args: &[OsString]) -> Option<String> {
    let (name, _) = matches.subcommand()?;
    let tail: Vec<String> = subcommand_at(command, args)
        .map(|at| &args[at + 1..])
        .unwrap_or_default()
        .iter()
        .map(|word| shell_word(&word.to_string_lossy()))
        .collect();
    misplaced(command, matches, name, &tail)
}

/// The index in `args` of the subcommand's name: the first word that is neither a flag,
/// a flag's value nor after `--`, and names a subcommand.
fn subcommand_at(command: &clap::Command, args: &[OsString]) -> Option<usize> {
    let takes_value = |arg: &clap::Arg| {
        arg.get_num_args()
            .is_none_or(|range| range.takes_values() && range.min_values() > 0)
    };
    let mut skip = false;
    for (at, word) in args.iter().enumerate().skip(1) {
        let word = word.to_string_lossy();
        if std::mem::take(&mut skip) {
            continue;
        }
        if word == "--" {
            return None;
        }
        if let Some(long) = word.strip_prefix("--") {
            skip = !long.contains('=')
                && command
                    .get_arguments()
                    .find(|arg| arg.get_long() == Some(long))
                    .is_some_and(|arg| arg.get_action().takes_values() && takes_value(arg));
        } else if let Some(shorts) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            // A value-taking short flag ends the cluster; its value is the rest or the next word.
            let last = shorts.chars().last();
            skip = command
                .get_arguments()
                .find(|arg| arg.get_short() == last)
                .is_some_and(|arg| arg.get_action().takes_values() && takes_value(arg));
        } else if command.find_subcommand(word.as_ref()).is_some() {
            return Some(at);
        }
    }
    None
}

/// Whether `id` was written on the command line (not a default or the environment).
fn given(matches: &ArgMatches, id: &str) -> bool {
    matches.value_source(id) == Some(ValueSource::CommandLine)
}

/// A menu flag as written again: `--query tr`, `--print`.
fn spelled(command: &clap::Command, matches: &ArgMatches, id: &str) -> String {
    let arg = command
        .get_arguments()
        .find(|arg| arg.get_id() == id)
        .expect("a menu argument");
    let name = format!("--{}", arg.get_long().unwrap_or(id));
    let values: Vec<String> = matches
        .get_raw(id)
        .into_iter()
        .flatten()
        .map(|value| shell_word(&value.to_string_lossy()))
        .collect();
    match values.as_slice() {
        [] => name,
        // A flag given more than once is written as often.
        many if arg.get_action().takes_values() && !arg.is_positional() => many
            .iter()
            .map(|value| format!("{name} {value}"))
            .collect::<Vec<_>>()
            .join(" "),
        _ => name,
    }
}

/// `a`, `a and b`, `a, b and c`, each in backticks.
fn listed(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    }
}

/// The message refusing what `subcommand` would not read, if anything; `tail` is what was
/// written after the subcommand's name, quoted for a shell.
fn misplaced(
    command: &clap::Command,
    matches: &ArgMatches,
    subcommand: &str,
    tail: &[String],
) -> Option<String> {
    let sub = command.find_subcommand(subcommand)?;
    let join = |words: Vec<String>| {
        words
            .into_iter()
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if let Some(prompt) = matches.get_raw("prompt").and_then(|mut v| v.next()) {
        let mut words = vec![shell_word(&prompt.to_string_lossy())];
        words.extend(
            matches
                .get_raw("assignments")
                .into_iter()
                .flatten()
                .map(|value| shell_word(&value.to_string_lossy())),
        );
        let prompt = words[0].clone();
        let written = words.join(" ");
        let fix = match subcommand {
            "get" | "complete" | "lock" => format!(
                "write `{}`",
                join(vec![
                    format!("mcpick {subcommand} {written}"),
                    tail.join(" ")
                ])
            ),
            _ => format!(
                "write `{}`; to open the prompt, `mcpick {written}` (the menu) or `mcpick get {written}` (prints it)",
                join(vec![format!("mcpick {subcommand}"), tail.join(" ")])
            ),
        };
        return Some(format!(
            "`{prompt}` before `{subcommand}` is not read by `{subcommand}`: {fix}"
        ));
    }
    let flags: Vec<&str> = MENU_ONLY
        .into_iter()
        .filter(|id| given(matches, id))
        .collect();
    if flags.is_empty() {
        return None;
    }
    let long = |id: &str| {
        let arg = command.get_arguments().find(|arg| arg.get_id() == id);
        format!("--{}", arg.and_then(|a| a.get_long()).unwrap_or(id))
    };
    let names: Vec<String> = flags.iter().map(|id| long(id)).collect();
    // Flags the subcommand has too (`get --format`) move after its name.
    let (movable, menu_only): (Vec<&str>, Vec<&str>) = flags.iter().partition(|id| {
        let name = long(id);
        sub.get_arguments()
            .any(|arg| arg.get_long().is_some_and(|l| format!("--{l}") == name))
    });
    let mut fixed = vec![format!("mcpick {subcommand}"), tail.join(" ")];
    fixed.extend(movable.iter().map(|id| spelled(command, matches, id)));
    let (these, are) = match names.len() {
        1 => ("a flag", "is"),
        _ => ("flags", "are"),
    };
    let mut message = format!(
        "{} before `{subcommand}` {are} {these} of the full-screen menu",
        listed(&names)
    );
    if movable.is_empty() {
        message.push_str(&format!(", which `{subcommand}` does not take"));
    } else {
        let own: Vec<String> = movable.iter().map(|id| long(id)).collect();
        message.push_str(&format!(
            "; `{subcommand}` has its own {}, written after `{subcommand}`",
            listed(&own)
        ));
    }
    message.push_str(&format!(": write `{}`", join(fixed)));
    if !menu_only.is_empty() {
        let menu: Vec<String> = flags
            .iter()
            .map(|id| spelled(command, matches, id))
            .collect();
        message.push_str(&format!(
            ", or `mcpick {}` to open the menu",
            menu.join(" ")
        ));
    }
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &str) -> Option<String> {
        let args: Vec<OsString> = line.split(' ').map(OsString::from).collect();
        parse_command_line(args).err().map(|error| {
            assert_eq!(error.code, 2, "{line}");
            error.message
        })
    }

    #[test]
    fn menu_flags_before_a_subcommand_are_refused_with_the_line_to_write() {
        assert_eq!(
            refused("mcpick --print list").as_deref(),
            Some(
                "`--print` before `list` is a flag of the full-screen menu, which `list` does not take: write `mcpick list`, or `mcpick --print` to open the menu"
            )
        );
        assert_eq!(
            refused("mcpick -q tr --select-1 servers --json").as_deref(),
            Some(
                "`--query` and `--select-1` before `servers` are flags of the full-screen menu, which `servers` does not take: write `mcpick servers --json`, or `mcpick --query tr --select-1` to open the menu"
            )
        );
        assert_eq!(
            refused("mcpick --format text --print get b/t x=1").as_deref(),
            Some(
                "`--print` and `--format` before `get` are flags of the full-screen menu; `get` has its own `--format`, written after `get`: write `mcpick get b/t x=1 --format text`, or `mcpick --print --format text` to open the menu"
            )
        );
    }

    #[test]
    fn a_prompt_before_a_subcommand_is_refused_with_the_line_to_write() {
        assert_eq!(
            refused("mcpick builtin/translate doctor --json").as_deref(),
            Some(
                "`builtin/translate` before `doctor` is not read by `doctor`: write `mcpick doctor --json`; to open the prompt, `mcpick builtin/translate` (the menu) or `mcpick get builtin/translate` (prints it)"
            )
        );
        assert_eq!(
            refused("mcpick b/t get --copy").as_deref(),
            Some("`b/t` before `get` is not read by `get`: write `mcpick get b/t --copy`")
        );
    }

    #[test]
    fn what_every_command_reads_still_goes_first() {
        for line in [
            "mcpick --config c.toml list",
            "mcpick --refresh list",
            "mcpick list --json",
            "mcpick --print",
            "mcpick -q x --format text b/t a=1",
        ] {
            assert_eq!(refused(line), None, "{line}");
        }
    }
}
