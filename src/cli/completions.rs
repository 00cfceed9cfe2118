//! `mcpick completions SHELL`: the shell completion script, and the answers at each Tab.
//!
//! The scripts are clap_complete's dynamic ones: at each Tab the shell runs mcpick again
//! with `MCPICK_COMPLETE` set, and clap completes subcommands and flags from the command line
//! definition while the completers here offer what only the user's setup knows: server and
//! prompt names and argument names, read from the config and the catalog cached by earlier
//! runs. No server is started and nothing is printed on stderr while completing.

use super::flags::COMPLETION_SHELLS;

use std::io::Write as _;
use std::process::ExitCode;

use clap::CommandFactory as _;
use clap_complete::CompleteEnv;
use clap_complete::env::{EnvCompleter, Shells};

use super::{Cli, CliError};

/// The environment variable that puts mcpick in completion mode (clap's default, `COMPLETE`,
/// is a word other programs use too).
pub const COMPLETE_ENV: &str = "MCPICK_COMPLETE";

/// Answers the shell's completion request and exits, when `MCPICK_COMPLETE` is set; else
/// returns at once. Runs before anything else writes to stdout.
pub fn answer_if_asked() {
    CompleteEnv::with_factory(command_for_this_tab)
        .var(COMPLETE_ENV)
        .complete();
}

/// The command line's definition as the line being completed needs it.
fn command_for_this_tab() -> clap::Command {
    let words = super::candidates::words_being_completed();
    // bash, zsh and elvish say which word is being completed; fish and PowerShell complete
    // the last one.
    let index = std::env::var("_CLAP_COMPLETE_INDEX")
        .ok()
        .and_then(|index| index.parse().ok())
        .unwrap_or(words.len().saturating_sub(1));
    shaped_for(Cli::command(), &words, index)
}

/// `command` as the Tab on `words[index]` needs it. Flags are offered to a word that starts
/// with `-` (or when nothing else fits, as after `mcpick list`), so an empty word gets what
/// the line needs next: subcommands and prompts, a prompt's argument names, server names.
/// And once the words before it name a prompt on the menu's line (`mcpick PROMPT …`), no
/// subcommand can follow.
fn shaped_for(command: clap::Command, words: &[std::ffi::OsString], index: usize) -> clap::Command {
    let before = &words[..index.min(words.len())];
    let typing_a_flag = words
        .get(index)
        .is_some_and(|word| word.to_string_lossy().starts_with('-'));
    let names_a_prompt = command
        .clone()
        .ignore_errors(true)
        .try_get_matches_from(before)
        .is_ok_and(|matches| {
            matches.subcommand().is_none()
                && matches
                    .try_get_raw("prompt")
                    .ok()
                    .flatten()
                    .is_some_and(|mut values| values.next().is_some())
        });
    let command = if names_a_prompt {
        // The menu's arguments alone.
        command
            .get_arguments()
            .fold(clap::Command::new("mcpick"), |menu, arg| {
                menu.arg(arg.clone())
            })
    } else {
        command
    };
    if typing_a_flag {
        command
    } else {
        flags_hidden(command)
    }
}

/// `command` and its subcommands with every flag hidden: offered only when nothing visible
/// fits (clap_complete drops hidden candidates when there are others).
fn flags_hidden(command: clap::Command) -> clap::Command {
    command
        .disable_help_flag(true)
        .disable_version_flag(true)
        .mut_args(|arg| {
            if arg.is_positional() {
                arg
            } else {
                arg.hide(true)
            }
        })
        .mut_subcommands(flags_hidden)
}

/// Writes the completion script for `shell` on stdout.
pub fn run(shell: &str) -> Result<ExitCode, CliError> {
    let script = script(shell, &completer())?;
    write_out(&script, "completion script")
}

/// The completion script of `shell`, which runs `completer` at each Tab.
pub fn script(shell: &str, completer: &str) -> Result<String, CliError> {
    use super::completion_program;
    let adapter = adapter(shell)?;
    let mut script = Vec::new();
    // bash, zsh and fish run `completer` when it is still there, else the mcpick on PATH.
    let program = if completion_program::applies_to(shell) {
        completion_program::PLACEHOLDER
    } else {
        completer
    };
    adapter
        .write_registration(COMPLETE_ENV, "mcpick", "mcpick", program, &mut script)
        .map_err(|e| CliError::runtime(format!("cannot write the {shell} script: {e}")))?;
    let mut script = completion_program::resolve(
        shell,
        &String::from_utf8_lossy(&script),
        completer,
        COMPLETE_ENV,
    );
    if shell == "zsh" {
        // `NAME=` is followed by its value, not a space (bash and fish know this already).
        script = script
            .replace(
                "        local -a other=()\n",
                "        local -a other=()\n        local -a assignments=()\n",
            )
            .replace(
                "            else\n                other+=(\"$completion\")",
                "            elif [[ \"$value\" == *= ]]; then\n                assignments+=(\"$completion\")\n            else\n                other+=(\"$completion\")",
            )
            .replace(
                "        [[ -n $other ]] && _describe -V 'values' other\n",
                "        [[ -n $other ]] && _describe -V 'values' other\n        [[ -n $assignments ]] && _describe -V 'arguments' assignments -S ''\n",
            );
        // Evaluated from a .zshrc (not loaded from $fpath), `compdef` exists only once
        // `compinit` has run: say so instead of "command not found".
        script = script.replace(
            "\ncompdef _clap_dynamic_completer_mcpick mcpick",
            "\nif (( $+functions[compdef] )); then\n    compdef _clap_dynamic_completer_mcpick mcpick\nelse\n    print -u2 'mcpick completions: run `autoload -Uz compinit && compinit` before this line'\nfi",
        );
    }
    Ok(script)
}

fn adapter(shell: &str) -> Result<&'static dyn EnvCompleter, CliError> {
    const BUILTINS: Shells<'static> = Shells::builtins();
    BUILTINS.completer(shell).ok_or_else(|| {
        CliError::usage(format!(
            "unknown shell `{shell}`: completions knows {}",
            COMPLETION_SHELLS.join(", ")
        ))
    })
}

/// The mcpick the script runs: this one as it was called (a bare `mcpick` stays a PATH
/// lookup; a relative path is made absolute, as the script may run anywhere).
fn completer() -> String {
    let called = std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "mcpick".into());
    let path = if called.components().count() > 1 && called.is_relative() {
        std::env::current_dir()
            .map(|dir| dir.join(&called))
            .unwrap_or(called)
    } else {
        called
    };
    path.to_string_lossy().into_owned()
}

fn write_out(text: &str, what: &str) -> Result<ExitCode, CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::runtime(format!("cannot write the {what}: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::super::candidates::{arguments_of_named_prompt, prompts_starting_with};
    use super::*;
    use crate::model::{PromptArg, PromptInfo};
    use clap_complete::CompletionCandidate;

    fn prompt(server: &str, name: &str, args: &[(&str, bool)]) -> PromptInfo {
        PromptInfo {
            server: server.into(),
            name: name.into(),
            title: None,
            description: Some("Says\u{1b}[31m hello\nto someone".into()),
            arguments: args
                .iter()
                .map(|(name, required)| PromptArg {
                    name: (*name).into(),
                    title: None,
                    description: None,
                    required: *required,
                })
                .collect(),
            skill: None,
            mirrors_skill: None,
        }
    }

    fn values(candidates: &[CompletionCandidate]) -> Vec<String> {
        candidates
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn prompts_are_offered_by_prefix_with_their_description_on_one_line() {
        let prompts = [
            prompt("builtin", "translate", &[]),
            prompt("builtin", "review", &[]),
            prompt("docs", "tr", &[]),
            prompt("evil", "a b$(x)", &[]),
        ];
        let all = prompts_starting_with(&prompts, "");
        assert_eq!(
            values(&all),
            ["builtin/translate", "builtin/review", "docs/tr"],
            "a name that needs quoting is not offered"
        );
        assert_eq!(
            values(&prompts_starting_with(&prompts, "builtin/t")),
            ["builtin/translate"]
        );
        let help = all[0].get_help().unwrap().to_string();
        assert_eq!(help, "Says␛[31m hello to someone");
    }

    #[test]
    fn argument_names_follow_the_prompt_and_skip_those_given() {
        let prompts = [
            prompt("builtin", "translate", &[("text", true), ("to", false)]),
            prompt("docs", "translate", &[("lang", false)]),
            prompt("docs", "only", &[("x", false)]),
        ];
        let words = |line: &str| -> Vec<String> { line.split(' ').map(String::from).collect() };
        let offered = arguments_of_named_prompt(
            &prompts,
            &words("mcpick builtin/translate text=hi "),
            "",
            "=",
        );
        assert_eq!(values(&offered), ["to="]);
        let offered =
            arguments_of_named_prompt(&prompts, &words("mcpick get builtin:translate t"), "t", "=");
        assert_eq!(values(&offered), ["text=", "to="]);
        assert_eq!(offered[0].get_help().unwrap().to_string(), "(required)");
        // A bare name works when one server alone offers it, as `get` reads it.
        assert_eq!(
            values(&arguments_of_named_prompt(
                &prompts,
                &words("mcpick get /only "),
                "",
                "="
            )),
            ["x="]
        );
        assert!(
            arguments_of_named_prompt(&prompts, &words("mcpick get translate "), "", "=")
                .is_empty(),
            "two servers offer `translate`: no guess"
        );
        // `mcpick complete PROMPT ARGUMENT`: the names without `=`, given ones too.
        assert_eq!(
            values(&arguments_of_named_prompt(
                &prompts,
                &words("mcpick complete builtin/translate "),
                "",
                ""
            )),
            ["text", "to"]
        );
    }

    /// What clap_complete offers for `line`'s last word, with the command shaped for it.
    fn offered(line: &str) -> Vec<String> {
        let words: Vec<std::ffi::OsString> = line.split(' ').map(Into::into).collect();
        let index = words.len() - 1;
        let mut command = shaped_for(Cli::command(), &words, index);
        values(&clap_complete::engine::complete(&mut command, words, index, None).unwrap())
    }

    #[test]
    fn after_a_prompt_no_subcommand_and_flags_only_after_a_dash() {
        let top = offered("mcpick co");
        for name in ["complete", "completions", "config"] {
            assert!(top.contains(&name.to_string()), "{top:?}");
        }
        assert!(!top.iter().any(|c| c.starts_with('-')), "{top:?}");
        let after = offered("mcpick b/t co");
        assert!(!after.iter().any(|c| c.starts_with("co")), "{after:?}");
        let after = offered("mcpick --config c.toml b/t --no");
        assert_eq!(after, ["--no-form"]);
        // Nothing else to offer: the flags, though hidden.
        let list = offered("mcpick list ");
        assert!(list.contains(&"--json".to_string()), "{list:?}");
        assert!(offered("mcpick list --j").contains(&"--json".to_string()));
    }

    #[test]
    fn a_bare_name_one_server_offers_completes_to_itself() {
        let prompts = [
            prompt("builtin", "translate", &[]),
            prompt("docs", "tr", &[]),
            prompt("builtin", "tr", &[]),
            prompt("tr", "x", &[]),
        ];
        assert_eq!(
            values(&prompts_starting_with(&prompts, "tr")),
            ["tr/x", "translate"],
            "`tr` is on two servers: not offered bare"
        );
        assert_eq!(
            values(&prompts_starting_with(&prompts, "/tra")),
            ["/translate"]
        );
        assert!(
            !values(&prompts_starting_with(&prompts, "")).contains(&"translate".to_string()),
            "an empty word gets the full names only"
        );
    }

    #[test]
    fn every_shell_gets_a_script_that_runs_the_given_mcpick() {
        for shell in COMPLETION_SHELLS {
            let text = script(shell, "/opt/mc pick/mcpick").unwrap();
            assert!(text.contains(COMPLETE_ENV), "{shell}: {text}");
            assert!(text.contains("mc pick"), "{shell}: {text}");
        }
        assert!(
            script("tcsh", "mcpick")
                .unwrap_err()
                .message
                .contains("bash, zsh, fish")
        );
        let zsh = script("zsh", "mcpick").unwrap();
        assert!(zsh.contains("$+functions[compdef]"), "{zsh}");
        assert!(
            zsh.contains("_describe -V 'arguments' assignments -S ''"),
            "{zsh}"
        );
        assert!(zsh.contains("assignments+=("), "{zsh}");
    }
}
