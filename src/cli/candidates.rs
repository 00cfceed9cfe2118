//! What a Tab offers on the command line: servers, prompts and argument names from the cached catalog, without starting any server.

use crate::model::PromptInfo;
use clap_complete::CompletionCandidate;
use std::ffi::{OsStr, OsString};

/// Whether `word` can go on a command line as it is: a name with a quote, a space, a `$` or
/// a control would need quoting, and a crafted one could do harm when the user presses
/// Enter, so such names are not offered.
pub(super) fn fits_a_command_line(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:@+,%~".contains(c))
}

/// Server text as a candidate's one-line help, cut to a readable length.
pub(super) fn help_of(text: &str) -> clap::builder::StyledStr {
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
pub(super) fn config() -> Option<crate::config::Config> {
    let path = config_path_from_command_line();
    super::loading::load_config_quietly(path.as_deref())
        .ok()
        .map(|loaded| loaded.config)
}

/// `--config PATH` (or `--config=PATH`) among the words being completed, else
/// `MCPICK_CONFIG`'s value: the config the command being typed will read.
pub(super) fn config_path_from_command_line() -> Option<std::path::PathBuf> {
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
pub(super) fn words_being_completed() -> Vec<OsString> {
    let args: Vec<OsString> = std::env::args_os().collect();
    match args.iter().position(|a| a == "--") {
        Some(at) => args[at + 1..].to_vec(),
        None => Vec::new(),
    }
}

/// Every prompt and skill of every enabled server that the catalog cache holds; for a
/// server of the bundled library that no run has listed yet (the first run, with no config
/// file), the bundled prompts, read from this binary.
pub(super) fn cached_prompts(config: &crate::config::Config) -> Vec<PromptInfo> {
    config
        .servers
        .iter()
        .filter(|server| server.enabled)
        .flat_map(|server| {
            let cached =
                crate::cache::at_start(server, || crate::mcp::oauth::authorization_context(server))
                    .0;
            match cached {
                Some(entry) => entry.prompts(),
                None if serves_the_bundled_library(server) => bundled_prompts(&server.name),
                None => Vec::new(),
            }
        })
        .collect()
}

/// Whether `server` runs `mcpick serve … --builtin`: its prompts are known without asking.
fn serves_the_bundled_library(server: &crate::config::ServerConfig) -> bool {
    let crate::config::TransportConfig::Stdio { args, .. } = &server.transport else {
        return false;
    };
    crate::config::runs_mcpick_serve(&server.transport) && args.iter().any(|a| a == "--builtin")
}

/// The bundled library's prompts as `server` offers them.
fn bundled_prompts(server: &str) -> Vec<PromptInfo> {
    crate::library::builtin_library()
        .prompts()
        .iter()
        .map(|prompt| PromptInfo {
            server: server.to_string(),
            name: prompt.name.clone(),
            title: prompt.title.clone(),
            description: prompt.description.clone(),
            arguments: prompt
                .arguments
                .iter()
                .map(|arg| crate::model::PromptArg {
                    name: arg.name.clone(),
                    title: arg.title.clone(),
                    description: arg.description.clone(),
                    required: arg.required,
                })
                .collect(),
            skill: None,
            mirrors_skill: None,
        })
        .collect()
}

pub(super) fn full_name(prompt: &PromptInfo) -> String {
    format!("{}/{}", prompt.server, prompt.name)
}

/// `SERVER/PROMPT` of the cached catalog that start with what is typed.
pub fn prompt_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(config) = config() else {
        return Vec::new();
    };
    prompts_starting_with(&cached_prompts(&config), &current.to_string_lossy())
}

/// `SERVER/PROMPT` names that start with `typed`; once something is typed that names no
/// server, also the bare names that start with it and that one server alone offers (as
/// `get` reads a bare name), so `get tr<Tab>` gives `translate`.
pub(super) fn prompts_starting_with(
    prompts: &[PromptInfo],
    typed: &str,
) -> Vec<CompletionCandidate> {
    let candidate = |name: String, prompt: &PromptInfo| {
        let help = prompt
            .description
            .as_deref()
            .or(prompt.title.as_deref())
            .map(help_of);
        CompletionCandidate::new(name).help(help)
    };
    let mut offered: Vec<CompletionCandidate> = prompts
        .iter()
        .map(|prompt| (full_name(prompt), prompt))
        .filter(|(name, _)| name.starts_with(typed) && fits_a_command_line(name))
        .map(|(name, prompt)| candidate(name, prompt))
        .collect();
    let bare = typed.strip_prefix('/').unwrap_or(typed);
    if !bare.is_empty() && !bare.contains(['/', ':']) {
        let slash = if typed.starts_with('/') { "/" } else { "" };
        offered.extend(
            prompts
                .iter()
                .filter(|prompt| prompt.name.starts_with(bare) && fits_a_command_line(&prompt.name))
                .filter(|prompt| prompts.iter().filter(|p| p.name == prompt.name).count() == 1)
                .map(|prompt| candidate(format!("{slash}{}", prompt.name), prompt)),
        );
    }
    offered
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

pub(super) fn argument_candidates(current: &OsStr, suffix: &str) -> Vec<CompletionCandidate> {
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

/// The prompt `word` names: SERVER/NAME, SERVER:NAME, or a bare NAME (or /NAME) that one
/// server alone offers, as `get` reads it.
fn prompt_named<'a>(prompts: &'a [PromptInfo], word: &str) -> Option<&'a PromptInfo> {
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
}

/// `mcpick lock`'s targets: a `SERVER/PROMPT`, and after one, the argument names of an
/// example of it (the last prompt named before the word: each example follows its
/// prompt).
pub fn lock_target_candidates(current: &OsStr) -> Vec<CompletionCandidate> {
    let mut found = prompt_candidates(current);
    let typed = current.to_string_lossy();
    if typed.contains('=') {
        return found;
    }
    let Some(config) = config() else {
        return found;
    };
    let prompts = cached_prompts(&config);
    let words: Vec<String> = words_being_completed()
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    // The words before the one being typed, from the last that names a prompt.
    let before = &words[..words.len().saturating_sub(1)];
    if let Some(last) = before
        .iter()
        .rposition(|word| !word.contains('=') && prompt_named(&prompts, word).is_some())
    {
        let example: Vec<String> = std::iter::once(String::new())
            .chain(words[last..].iter().cloned())
            .collect();
        found.extend(arguments_of_named_prompt(&prompts, &example, &typed, "="));
    }
    found
}

pub(super) fn arguments_of_named_prompt(
    prompts: &[PromptInfo],
    words: &[String],
    typed: &str,
    suffix: &str,
) -> Vec<CompletionCandidate> {
    // The prompt is the first word naming one.
    let Some(prompt) = words
        .iter()
        .skip(1)
        .find_map(|word| prompt_named(prompts, word))
    else {
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

/// The Streamable HTTP servers' names: the ones that can sign in (`auth login`, `logout`).
pub fn http_server_candidates() -> Vec<CompletionCandidate> {
    let Some(config) = config() else {
        return Vec::new();
    };
    config
        .servers
        .iter()
        .filter(|server| {
            matches!(
                server.transport,
                crate::config::TransportConfig::Http {
                    legacy_sse: false,
                    ..
                }
            )
        })
        .map(|server| server.name.as_str())
        .filter(|name| fits_a_command_line(name))
        .map(CompletionCandidate::new)
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
