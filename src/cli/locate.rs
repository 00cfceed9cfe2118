//! Finding the prompt a command line names (`SERVER/PROMPT`, or a unique name), and checking its arguments.

use super::CliError;
use super::connect::Outcome;
use super::connect::connect_all;
use super::connect::connect_all_reading;
use super::connect::relisted;
use super::connect::report_failure;
use super::loading::no_server_without_a_config;
use super::loading::no_servers;
use crate::cache::Freshness;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::mcp::CatalogUse;
use crate::mcp::Hub;
use crate::model::EntryKind;
use crate::model::PromptInfo;
use crate::search::PromptRef;
use crate::search::closest;
use crate::search::find_preferring;
use std::collections::BTreeMap;

/// Where a reference points.
pub(super) enum Target<'a> {
    /// One server, and the prompt's name on it.
    One(&'a ServerConfig, String),
    /// A bare name with several servers enabled: look on all of them.
    Search(String),
}

/// Resolves `SERVER/PROMPT`, `SERVER:PROMPT` or a bare `PROMPT` (which may itself hold `:`).
pub(super) fn resolve<'a>(config: &'a Config, reference: &str) -> Result<Target<'a>, CliError> {
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
pub(super) async fn locate(
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

/// Connects to one server and finds one prompt on it, in the catalog's list when
/// `read_catalog` allows (see [`locate`]). On success the hub stays connected.
pub(super) async fn open_prompt(
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
            return Err(CliError {
                code: super::connect::failure_code(&error),
                message: format!("cannot use `{prompt}`: server `{}` failed", server.name),
            });
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
pub(super) fn no_such_prompt(server: &str, wanted: &str, prompts: &[PromptInfo]) -> String {
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
pub(super) fn no_such_argument(prompt: &PromptInfo, name: &str) -> CliError {
    CliError::usage(format!(
        "prompt `{}` has no argument `{name}`{}\n\n{}",
        prompt.name,
        argument_hint(prompt, name),
        prompt_usage(prompt)
    ))
}

/// [`crate::search::did_you_mean`] among the prompt's argument names.
pub(super) fn argument_hint(prompt: &PromptInfo, name: &str) -> String {
    crate::search::did_you_mean(name, prompt.arguments.iter().map(|a| a.name.as_str()))
}

/// Checks the arguments against the prompt before anything is sent.
pub(super) fn check_arguments(
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
