//! `mcpick completions SHELL` and `mcpick man`: the shell completion script and the man page.
//!
//! The scripts are clap_complete's dynamic ones: at each Tab the shell runs mcpick again
//! with `MCPICK_COMPLETE` set, and clap completes subcommands and flags from the command line
//! definition while the completers here offer what only the user's setup knows: server and
//! prompt names and argument names, read from the config and the catalog cached by earlier
//! runs. No server is started and nothing is printed on stderr while completing.

use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::process::ExitCode;

use clap::CommandFactory as _;
use clap_complete::env::{EnvCompleter, Shells};
use clap_complete::{CompleteEnv, CompletionCandidate};

use super::{Cli, CliError};
use crate::mcp::PromptInfo;

/// The environment variable that puts mcpick in completion mode (clap's default, `COMPLETE`,
/// is a word other programs use too).
pub const COMPLETE_ENV: &str = "MCPICK_COMPLETE";

/// The shells `completions` writes a script for.
pub const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

/// Answers the shell's completion request and exits, when `MCPICK_COMPLETE` is set; else
/// returns at once. Runs before anything else writes to stdout.
pub fn answer_if_asked() {
    CompleteEnv::with_factory(Cli::command)
        .var(COMPLETE_ENV)
        .complete();
}

/// Writes the completion script for `shell` on stdout.
pub fn run(shell: &str) -> Result<ExitCode, CliError> {
    let script = script(shell, &completer())?;
    write_out(&script, "completion script")
}

/// The completion script of `shell`, which runs `completer` at each Tab.
pub fn script(shell: &str, completer: &str) -> Result<String, CliError> {
    let adapter = adapter(shell)?;
    let mut script = Vec::new();
    adapter
        .write_registration(COMPLETE_ENV, "mcpick", "mcpick", completer, &mut script)
        .map_err(|e| CliError::runtime(format!("cannot write the {shell} script: {e}")))?;
    let mut script = String::from_utf8_lossy(&script).into_owned();
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
            SHELLS.join(", ")
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

/// Writes mcpick's man page (roff) on stdout: `mcpick man | man -l -`.
pub fn man() -> Result<ExitCode, CliError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| CliError::runtime(format!("cannot write the man page: {e}")))?;
    write_out(&String::from_utf8_lossy(&page), "man page")
}

fn write_out(text: &str, what: &str) -> Result<ExitCode, CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::runtime(format!("cannot write the {what}: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// Whether `word` can go on a command line as it is: a name with a quote, a space, a `$` or
/// a control would need quoting, and a crafted one could do harm when the user presses
/// Enter, so such names are not offered.
fn fits_a_command_line(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:@+,%~".contains(c))
}

/// Server text as a candidate's one-line help, cut to a readable length.
fn help_of(text: &str) -> clap::builder::StyledStr {
    let line = crate::text::one_line(text);
    let line = line.trim();
    let cut = crate::text::truncate(line, 70);
    if cut.len() < line.len() {
        format!("{cut}…").into()
    } else {
        cut.to_string().into()
    }
}

/// The config as completion sees it (no config file: the bundled library), or none when
/// it cannot be read (then nothing is offered: completion never prints errors).
fn config() -> Option<crate::config::Config> {
    let path = config_path_from_command_line();
    super::commands::load_config_quietly(path.as_deref())
        .ok()
        .map(|(config, _)| config)
}

/// `--config PATH` (or `--config=PATH`) among the words being completed, else
/// `MCPICK_CONFIG`'s value: the config the command being typed will read.
fn config_path_from_command_line() -> Option<std::path::PathBuf> {
    let words = words_being_completed();
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let word = word.to_string_lossy();
        if word == "--config" {
            return words.next().map(std::path::PathBuf::from);
        }
        if let Some(path) = word.strip_prefix("--config=") {
            return Some(path.into());
        }
    }
    std::env::var_os(crate::config::CONFIG_ENV).map(Into::into)
}

/// The words of the command line being completed (after the `--` the script passes).
fn words_being_completed() -> Vec<OsString> {
    let args: Vec<OsString> = std::env::args_os().collect();
    match args.iter().position(|a| a == "--") {
        Some(at) => args[at + 1..].to_vec(),
        None => Vec::new(),
    }
}

/// Every prompt and skill of every enabled server that the catalog cache holds.
fn cached_prompts(config: &crate::config::Config) -> Vec<PromptInfo> {
    config
        .servers
        .iter()
        .filter(|server| server.enabled)
        .filter_map(|server| {
            crate::cache::at_start(server, || crate::mcp::auth::authorization_context(server)).0
        })
        .flat_map(|entry| entry.prompts())
        .collect()
}

fn full_name(prompt: &PromptInfo) -> String {
    format!("{}/{}", prompt.server, prompt.name)
}

/// `SERVER/PROMPT` of the cached catalog that start with what is typed.
pub fn prompt_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(config) = config() else {
        return Vec::new();
    };
    prompts_starting_with(&cached_prompts(&config), &current.to_string_lossy())
}

fn prompts_starting_with(prompts: &[PromptInfo], typed: &str) -> Vec<CompletionCandidate> {
    prompts
        .iter()
        .map(|prompt| (full_name(prompt), prompt))
        .filter(|(name, _)| name.starts_with(typed) && fits_a_command_line(name))
        .map(|(name, prompt)| {
            let help = prompt
                .description
                .as_deref()
                .or(prompt.title.as_deref())
                .map(help_of);
            CompletionCandidate::new(name).help(help)
        })
        .collect()
}

/// `NAME=` for each argument of the prompt named earlier on the line that is not given
/// yet and starts with what is typed (nothing once a value is being typed).
pub fn assignment_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    argument_candidates(current, "=")
}

/// The argument names of the prompt named earlier on the line (`mcpick complete`'s second
/// word).
pub fn argument_name_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    argument_candidates(current, "")
}

fn argument_candidates(current: &OsStr, suffix: &str) -> Vec<CompletionCandidate> {
    let typed = current.to_string_lossy();
    if !suffix.is_empty() && typed.contains('=') {
        return Vec::new();
    }
    let Some(config) = config() else {
        return Vec::new();
    };
    let words: Vec<String> = words_being_completed()
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    arguments_of_named_prompt(&cached_prompts(&config), &words, &typed, suffix)
}

fn arguments_of_named_prompt(
    prompts: &[PromptInfo],
    words: &[String],
    typed: &str,
    suffix: &str,
) -> Vec<CompletionCandidate> {
    // The prompt is the first word naming one: SERVER/NAME, SERVER:NAME, or a bare NAME
    // (or /NAME) that one server alone offers, as `get` reads it.
    let named = |word: &str| -> Option<&PromptInfo> {
        let exact = prompts.iter().find(|p| {
            let (server, name) = (p.server.as_str(), p.name.as_str());
            word.strip_prefix(server)
                .and_then(|rest| rest.strip_prefix(['/', ':']))
                .is_some_and(|rest| rest == name)
        });
        exact.or_else(|| {
            let bare = word.strip_prefix('/').unwrap_or(word);
            let mut offering = prompts.iter().filter(|p| p.name == bare);
            match (offering.next(), offering.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        })
    };
    let Some(prompt) = words.iter().skip(1).find_map(|word| named(word)) else {
        return Vec::new();
    };
    let given: Vec<&str> = words
        .iter()
        .filter_map(|w| w.split_once('=').map(|(name, _)| name))
        .collect();
    prompt
        .arguments
        .iter()
        .filter(|arg| suffix.is_empty() || !given.contains(&arg.name.as_str()))
        .filter(|arg| arg.name.starts_with(typed) && fits_a_command_line(&arg.name))
        .map(|arg| {
            let mut help = arg
                .description
                .as_deref()
                .or(arg.title.as_deref())
                .map(crate::text::one_line)
                .unwrap_or_default();
            if arg.required {
                help = if help.is_empty() {
                    "(required)".into()
                } else {
                    format!("(required) {help}")
                };
            }
            let help = (!help.is_empty()).then(|| help_of(&help));
            CompletionCandidate::new(format!("{}{suffix}", arg.name)).help(help)
        })
        .collect()
}

/// The configured servers' names.
pub fn server_candidates() -> Vec<CompletionCandidate> {
    let Some(config) = config() else {
        return Vec::new();
    };
    config
        .servers
        .iter()
        .map(|server| server.name.as_str())
        .filter(|name| fits_a_command_line(name))
        .map(CompletionCandidate::new)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::PromptArg;

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

    #[test]
    fn every_shell_gets_a_script_that_runs_the_given_mcpick() {
        for shell in SHELLS {
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

    #[test]
    fn the_man_page_names_every_subcommand() {
        let mut page = Vec::new();
        clap_mangen::Man::new(Cli::command())
            .render(&mut page)
            .unwrap();
        let page = String::from_utf8(page).unwrap();
        for word in ["mcpick", "list", "get", "serve", "completions"] {
            assert!(page.contains(word), "the man page misses {word}");
        }
    }
}
