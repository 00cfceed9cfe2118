//! `mcpick lock`: each server's prompts and skills, as they are now, written to a lockfile
//! (docs/lock.md), with example arguments rendered; and reading that file for `check`.

use super::CliError;
use super::connect::Outcome;
use super::connect::connect_all_reading;
use super::connect::report_failure;
use super::locate::check_arguments;
use super::output;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::lock::{LockedExample, LockedServer, Lockfile};
use crate::mcp::CatalogUse;
use crate::mcp::Hub;
use crate::model::PromptMessages;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The largest lockfile read (a lockfile with outputs of huge prompts is still far below).
const MOST_BYTES: u64 = 64 * 1024 * 1024;

/// `mcpick lock`'s flags.
#[derive(Debug, clap::Args)]
pub struct LockFlags {
    /// Servers to lock (default: all); SERVER/PROMPT NAME=VALUE… adds an example
    ///
    /// `mcpick lock builtin/translate text=Hallo to=English` locks server `builtin` and
    /// records what that prompt renders from those arguments (a SERVER/PROMPT alone: from
    /// none). Examples already in the file are kept and rendered again.
    #[arg(value_name = "SERVER[/PROMPT] [NAME=VALUE]…", add = clap_complete::ArgValueCompleter::new(super::candidates::lock_target_candidates))]
    pub targets: Vec<String>,
    /// The lockfile to write.
    #[arg(long, value_name = "PATH", default_value = crate::lock::DEFAULT_FILE)]
    pub file: PathBuf,
    /// Also record each example's rendered messages as text (diffable by `check`).
    #[arg(long)]
    pub with_output: bool,
}

/// `mcpick check`'s flags.
#[derive(Debug, clap::Args)]
pub struct CheckFlags {
    /// The lockfile to compare with.
    #[arg(long, value_name = "PATH", default_value = crate::lock::DEFAULT_FILE)]
    pub file: PathBuf,
    /// Print the report as JSON (for CI).
    #[arg(long)]
    pub json: bool,
}

/// What the command line asks to lock: servers (none: all) and examples per prompt.
#[derive(Debug, Default, PartialEq)]
struct Plan {
    servers: Vec<String>,
    examples: BTreeMap<(String, String), Vec<BTreeMap<String, String>>>,
}

/// Reads `SERVER`, `SERVER/PROMPT` and the `NAME=VALUE` words after a `SERVER/PROMPT`.
fn plan(targets: &[String]) -> Result<Plan, String> {
    let mut plan = Plan::default();
    let mut current: Option<(String, String)> = None;
    for word in targets {
        let is_assignment = word
            .split_once('=')
            .is_some_and(|(name, _)| !name.contains(['/', ':']));
        if is_assignment {
            let Some(prompt) = &current else {
                return Err(format!(
                    "`{word}` is an example argument: give it after SERVER/PROMPT \
                     (`mcpick lock SERVER/PROMPT {word}`)"
                ));
            };
            let (name, value) = super::parse_assignment(word)?;
            let examples = plan.examples.entry(prompt.clone()).or_default();
            let example = examples.last_mut().expect("an example per SERVER/PROMPT");
            if example.insert(name.clone(), value).is_some() {
                return Err(format!("argument `{name}` is given twice for one example"));
            }
            continue;
        }
        let (server, prompt) = match word.split_once(['/', ':']) {
            Some((server, prompt)) if !server.is_empty() && !prompt.is_empty() => {
                (server.to_string(), Some(prompt.to_string()))
            }
            Some(_) => return Err(format!("`{word}` is not SERVER or SERVER/PROMPT")),
            None => (word.clone(), None),
        };
        if !plan.servers.contains(&server) {
            plan.servers.push(server.clone());
        }
        current = prompt.map(|prompt| (server, prompt));
        if let Some(key) = &current {
            plan.examples
                .entry(key.clone())
                .or_default()
                .push(BTreeMap::new());
        }
    }
    Ok(plan)
}

/// The enabled servers named (all enabled ones when none is), or why one cannot be.
pub(super) fn chosen_servers(
    config: &Config,
    names: &[String],
) -> Result<Vec<ServerConfig>, CliError> {
    if names.is_empty() {
        let servers: Vec<ServerConfig> = config.enabled_servers().cloned().collect();
        if servers.is_empty() {
            return Err(super::loading::no_servers(config));
        }
        return Ok(servers);
    }
    names
        .iter()
        .map(|name| match config.server(name) {
            Some(server) if server.enabled => Ok(server.clone()),
            Some(_) => Err(CliError::usage(format!(
                "server `{name}` is disabled in the config (enabled = false)"
            ))),
            None => Err(CliError::usage(format!(
                "no server `{}` in the config{}; `mcpick servers` lists them",
                crate::text::one_line(name),
                crate::search::did_you_mean(
                    name,
                    config.enabled_servers().map(|s| s.name.as_str())
                )
            ))),
        })
        .collect()
}

/// Reads the lockfile at `path`: `Ok(None)` when there is none, an exit-2 error naming
/// `PATH:LINE:COLUMN` when it cannot be read.
pub(super) fn read_lockfile(path: &Path) -> Result<Option<Lockfile>, CliError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(CliError::usage(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let mut text = String::new();
    let read =
        std::io::Read::read_to_string(&mut std::io::Read::take(file, MOST_BYTES + 1), &mut text);
    if let Err(e) = read {
        return Err(CliError::usage(format!(
            "cannot read {}: {e} (a lockfile is UTF-8 TOML that `mcpick lock` writes)",
            path.display()
        )));
    }
    if text.len() as u64 > MOST_BYTES {
        return Err(CliError::usage(format!(
            "{} is over {} MiB: not a lockfile `mcpick lock` wrote",
            path.display(),
            MOST_BYTES / 1024 / 1024
        )));
    }
    Lockfile::parse(&text)
        .map(Some)
        .map_err(|e| CliError::usage(format!("{}:{e}", path.display())))
}

/// The messages `prompt` of `server` renders from `arguments` now, or why not (the
/// server's questions are declined: an example renders the same unattended, as in CI).
pub(super) async fn render_example(
    hub: &Hub,
    server: &str,
    prompt: &str,
    arguments: &BTreeMap<String, String>,
) -> Result<Result<PromptMessages, String>, CliError> {
    use super::get::Filled;
    let declining = super::questions::AnswerFlags {
        decline: true,
        ..Default::default()
    };
    Ok(
        match super::get::fill_on(hub, server, prompt, arguments, &declining).await? {
            Ok(Filled::Messages(messages)) => Ok(messages),
            Ok(Filled::Stopped) => {
                return Err(CliError {
                    code: 130,
                    message: "stopped while rendering an example".into(),
                });
            }
            Ok(Filled::WrongFlag(words)) => Err(words),
            Err((error, stderr)) => Err(format!("{error}{stderr}")),
        },
    )
}

/// `mcpick lock`.
pub(super) async fn lock(config: &Config, flags: LockFlags) -> Result<ExitCode, CliError> {
    let plan = plan(&flags.targets).map_err(CliError::usage)?;
    let servers = chosen_servers(config, &plan.servers)?;
    let old = match read_lockfile(&flags.file) {
        Ok(old) => old.unwrap_or_default(),
        Err(error) => {
            output::error(&format!(
                "{}; writing it anew, without the examples it held",
                error.message
            ));
            Lockfile::default()
        }
    };
    let order: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
    // A lock asks the servers now: the catalog is not read.
    let (hub, outcomes) = connect_all_reading(servers, CatalogUse::MENU, false).await?;
    let locked = lock_servers(&hub, &order, &outcomes, &old, &plan, flags.with_output).await;
    hub.shutdown().await;
    let locked = locked?;
    let mut lockfile = Lockfile {
        version: crate::lock::VERSION,
        // Servers not named keep their entries; with none named, the lock is the config's.
        servers: if plan.servers.is_empty() {
            BTreeMap::new()
        } else {
            old.servers
        },
    };
    let prompts: usize = locked.values().map(|s| s.prompts.len()).sum();
    let skills: usize = locked.values().map(|s| s.skills.len()).sum();
    let examples: usize = (locked.values())
        .flat_map(|s| s.prompts.values())
        .map(|p| p.examples.len())
        .sum();
    lockfile.servers.extend(locked);
    crate::export::sink::write_atomic(&flags.file, lockfile.to_toml().as_bytes(), true).map_err(
        |e| match e {
            crate::export::sink::WriteError::Failed(text) => CliError::runtime(text),
            crate::export::sink::WriteError::Exists(path) => {
                CliError::runtime(format!("cannot write {}", path.display()))
            }
        },
    )?;
    output::error(&format!(
        "locked {}, {}, {} and {} in {}",
        crate::text::counted(order.len(), "server", "servers"),
        crate::text::counted(prompts, "prompt", "prompts"),
        crate::text::counted(skills, "skill", "skills"),
        crate::text::counted(examples, "example", "examples"),
        flags.file.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// Each server's entry as listed now, its examples (kept ones, then the plan's) rendered;
/// exit 2 when a server failed (nothing is written then).
async fn lock_servers(
    hub: &Hub,
    order: &[String],
    outcomes: &BTreeMap<String, Outcome>,
    old: &Lockfile,
    plan: &Plan,
    with_output: bool,
) -> Result<BTreeMap<String, LockedServer>, CliError> {
    let mut failed = Vec::new();
    let mut locked = BTreeMap::new();
    for name in order {
        let Some(Outcome::Ready {
            details,
            prompts,
            warnings,
            ..
        }) = outcomes.get(name)
        else {
            if let Some(Outcome::Failed { error, stderr }) = outcomes.get(name) {
                report_failure(name, error, stderr);
            }
            failed.push(format!("`{name}`"));
            continue;
        };
        for warning in warnings {
            output::error(&format!("server `{name}`: {warning}"));
        }
        let mut server = LockedServer::from_listing(details, prompts);
        for (prompt_name, prompt) in server.prompts.iter_mut() {
            let kept = old.prompt(name, prompt_name).map(|p| p.examples.as_slice());
            let given = plan.examples.get(&(name.clone(), prompt_name.clone()));
            let mut wanted: Vec<(BTreeMap<String, String>, bool, bool)> = Vec::new();
            for example in kept.into_iter().flatten() {
                wanted.push((example.arguments.clone(), example.output.is_some(), true));
            }
            for arguments in given.into_iter().flatten() {
                wanted.retain(|(kept, ..)| kept != arguments);
                wanted.push((arguments.clone(), false, false));
            }
            let info = prompts
                .iter()
                .find(|p| p.skill.is_none() && &p.name == prompt_name)
                .expect("locked from this list");
            for (arguments, had_output, was_kept) in wanted {
                let refused = check_arguments(info, &arguments).err();
                let rendered = match refused {
                    Some(error) => Err(error.message),
                    None => render_example(hub, name, prompt_name, &arguments).await?,
                };
                let shown = format!("{name}/{prompt_name}");
                match rendered {
                    Ok(messages) => prompt.examples.push(LockedExample::rendered(
                        arguments,
                        &messages,
                        with_output || had_output,
                    )),
                    Err(error) if was_kept => output::error(&format!(
                        "{shown}: a kept example no longer renders, so it is dropped ({error}); \
                         give it again with the arguments it needs now"
                    )),
                    Err(error) => {
                        return Err(CliError::runtime(format!(
                            "{shown}: the example cannot be rendered: {error}; nothing was written"
                        )));
                    }
                }
            }
        }
        for (server_name, prompt_name) in plan.examples.keys() {
            if server_name == name && !server.prompts.contains_key(prompt_name) {
                return Err(CliError::usage(format!(
                    "server `{name}` has no prompt `{}` to record an example of \
                     (`mcpick list` shows its prompts); nothing was written",
                    crate::text::one_line(prompt_name)
                )));
            }
        }
        locked.insert(name.clone(), server);
    }
    if !failed.is_empty() {
        return Err(CliError::usage(format!(
            "cannot lock: {} could not be reached (above); nothing was written",
            failed.join(", ")
        )));
    }
    Ok(locked)
}

#[cfg(test)]
mod tests {
    use super::{Plan, plan};
    use std::collections::BTreeMap;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(String::from).collect()
    }

    #[test]
    fn examples_follow_their_prompt_and_servers_are_named_once() {
        let read = plan(&words("a/p x=1 y=a=b a/p x=2 b a:q")).expect("a plan");
        // A SERVER/PROMPT alone is an example with no arguments.
        let example = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(
            read,
            Plan {
                servers: vec!["a".into(), "b".into()],
                examples: BTreeMap::from([
                    (
                        ("a".to_string(), "p".to_string()),
                        vec![example(&[("x", "1"), ("y", "a=b")]), example(&[("x", "2")])]
                    ),
                    (("a".to_string(), "q".to_string()), vec![example(&[])]),
                ]),
            }
        );
        assert!(
            plan(&words("x=1 a/p"))
                .unwrap_err()
                .contains("after SERVER/PROMPT")
        );
        assert!(plan(&words("a/p x=1 x=2")).unwrap_err().contains("twice"));
    }
}
