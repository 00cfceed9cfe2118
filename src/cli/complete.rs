//! `mcpick complete`: what a server suggests for an argument.

use super::CliError;
use super::connect::request_then_close;
use super::connect::write;
use super::locate::argument_hint;
use super::locate::locate;
use super::output;
use crate::config::Config;
use crate::model::EntryKind;
use crate::model::PromptInfo;
use std::collections::BTreeMap;
use std::process::ExitCode;

pub(super) async fn complete(
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
pub(super) fn complete_usage(prompt: &PromptInfo) -> String {
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
pub(super) fn check_complete_arguments(
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
pub(super) fn completion_note(completion: &crate::model::Completion) -> Option<String> {
    let sent = completion.values.len();
    match completion.total.map(|total| total as usize) {
        Some(total) if total > sent => Some(format!("{sent} of {total}; type more to narrow")),
        _ if completion.has_more == Some(true) => Some(format!(
            "{sent} of more (the server did not say how many); type more to narrow"
        )),
        _ => None,
    }
}
