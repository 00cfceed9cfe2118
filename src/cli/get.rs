//! `mcpick get`: a prompt or skill filled and printed, written or copied.

use super::CliError;
use super::connect::Outcome;
use super::connect::connect_all_reading;
use super::connect::relisted;
use super::connect::report_failure;
use super::connect::request_on;
use super::connect::write;
use super::locate::check_arguments;
use super::locate::locate;
use super::locate::no_such_prompt;
use super::locate::open_prompt;
use super::output;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::export::Format;
use crate::export::render;
use crate::mcp::CatalogUse;
use crate::mcp::Connection;
use crate::mcp::Hub;
use crate::mcp::McpError;
use crate::model::EntryKind;
use crate::model::PromptInfo;
use crate::search::PromptRef;
use crate::search::find_preferring;
use std::collections::BTreeMap;
use std::process::ExitCode;

/// What `get` takes for a skill beyond its task.
pub(super) struct SkillGet {
    /// Supporting files to attach (`--attach`).
    pub(super) attach: Vec<String>,
}

pub(super) async fn get(
    config: &Config,
    reference: &str,
    arguments: BTreeMap<String, String>,
    format: Format,
    copy: bool,
    answering: super::questions::AnswerFlags,
    skill: SkillGet,
) -> Result<ExitCode, CliError> {
    if let Some((server, uri)) = skill_uri_reference(config, reference)? {
        return get_skill_by_uri(config, server, &uri, arguments, format, copy, skill).await;
    }
    let (mut hub, server, mut prompt, mut cached) =
        locate(config, reference, EntryKind::Skill).await?;
    if prompt.skill.is_none() && !skill.attach.is_empty() {
        hub.shutdown().await;
        return Err(CliError::usage(format!(
            "{}/{} is a prompt: --attach is for a skill's files",
            server.name, prompt.name
        )));
    }
    if let Some(manifest) = prompt.skill.clone() {
        let cached = cached.is_some();
        return get_skill(
            config, hub, &server, &prompt, &manifest, cached, arguments, format, copy, skill,
        )
        .await;
    }
    // Checked against the cached list; it is listed again before refusing, fresh or stale.
    if check_arguments(&prompt, &arguments).is_err()
        && cached.is_some()
        && let Some(listed) = relisted(&hub, &server.name).await
    {
        cached = None;
        match find_preferring(&listed, &prompt.name, prompt.kind()) {
            Some(found) => prompt = found.clone(),
            None => {
                hub.shutdown().await;
                return Err(CliError::usage(no_such_prompt(
                    &server.name,
                    &prompt.name,
                    &listed,
                )));
            }
        }
    }
    if let Err(error) = check_arguments(&prompt, &arguments) {
        hub.shutdown().await;
        return Err(error);
    }
    let skipped_handshake = hub
        .connection(&server.name)
        .is_some_and(|c| c.skipped_handshake());
    let mut result = fill_on(&hub, &server.name, &prompt.name, &arguments, &answering).await;
    // Started from the catalog with no handshake, and the server's era changed: once more
    // with the normal handshake (which writes the catalog anew).
    if skipped_handshake
        && matches!(&result, Ok(Err((error, _))) if crate::mcp::looks_like_another_era(error))
    {
        tracing::info!(server = %server.name, "the first request failed as from another era; connecting again");
        hub.shutdown().await;
        let (again, found, _) = open_prompt(&server, &prompt.name, false, prompt.kind()).await?;
        (hub, prompt, cached) = (again, found, None);
        if let Err(error) = check_arguments(&prompt, &arguments) {
            hub.shutdown().await;
            return Err(error);
        }
        result = fill_on(&hub, &server.name, &prompt.name, &arguments, &answering).await;
    }
    // The server refused the arguments of a prompt only the catalog vouched for: the
    // catalog is brought up to date, and the new list checks the request as a live one
    // would have (the same refusal, exit 2, warm or cold), with the server's words.
    if cached.is_some()
        && let Ok(Err((error @ McpError::Server { code: -32602, .. }, stderr))) = &result
        && let Some(listed) = relisted(&hub, &server.name).await
    {
        let refused = match find_preferring(&listed, &prompt.name, prompt.kind()) {
            Some(found) => check_arguments(found, &arguments).err(),
            None => Some(CliError::usage(no_such_prompt(
                &server.name,
                &prompt.name,
                &listed,
            ))),
        };
        if let Some(refused) = refused {
            hub.shutdown().await;
            return Err(CliError::usage(format!(
                "{}/{}: {error}{stderr}
{}",
                server.name, prompt.name, refused.message
            )));
        }
    }
    hub.shutdown().await;
    let result = result?.map_err(|(error, stderr)| {
        (
            super::connect::failure_code(&error),
            format!("{error}{stderr}"),
        )
    });
    match result {
        Ok(Filled::Stopped) => Err(CliError {
            code: 130,
            message: "stopped while answering the server's questions; the request was cancelled"
                .into(),
        }),
        Ok(Filled::WrongFlag(words)) => Err(CliError::usage(words)),
        Ok(Filled::Messages(messages)) => print_messages(config, &messages, format, copy).await,
        Err((code, error)) => Err(CliError {
            code,
            message: format!("{}/{}: {error}", server.name, prompt.name),
        }),
    }
}

/// `get` of a skill: its `SKILL.md` (and `--attach` files) read and verified, its task
/// after them. A file that fails verification is refused by name. When the manifest came
/// from the catalog, a refusal first lists the server again: a skill updated since then
/// is loaded from its current entry (the SEP's way back from a stale listing), the same
/// entry again is refused.
#[allow(clippy::too_many_arguments)]
pub(super) async fn get_skill(
    config: &Config,
    hub: Hub,
    server: &ServerConfig,
    prompt: &PromptInfo,
    manifest: &crate::model::skill_manifest::SkillManifest,
    cached: bool,
    arguments: BTreeMap<String, String>,
    format: Format,
    copy: bool,
    skill: SkillGet,
) -> Result<ExitCode, CliError> {
    if let Err(error) = check_arguments(prompt, &arguments) {
        hub.shutdown().await;
        return Err(error);
    }
    let task = arguments
        .get(crate::mcp::skill_verify::TASK_ARGUMENT)
        .map(String::as_str);
    let attach = &skill.attach;
    // An --attach the skill does not list is the user's slip, not the server's: a usage
    // error naming the files it has (after listing again, when the listing was cached).
    let unlisted = |m: &crate::model::skill_manifest::SkillManifest| {
        attach
            .iter()
            .find(|p| m.files.is_some() && m.file(&m.resolve(p)).is_none())
            .cloned()
    };
    let relisted_manifest;
    let mut manifest = manifest;
    if unlisted(manifest).is_some()
        && cached
        && let Some(listed) = relisted(&hub, &server.name).await
        && let Some(fresh) =
            find_preferring(&listed, &prompt.name, EntryKind::Skill).and_then(|p| p.skill.clone())
    {
        relisted_manifest = *fresh;
        manifest = &relisted_manifest;
    }
    if let Some(path) = unlisted(manifest) {
        hub.shutdown().await;
        let root = format!("{}/", manifest.root());
        let files: Vec<String> = (manifest.files.iter().flatten())
            .map(|f| crate::text::one_line(f.uri.strip_prefix(&root).unwrap_or(&f.uri)))
            .collect();
        let has = if files.is_empty() {
            "it lists no supporting files".to_string()
        } else {
            format!("its files: {}", files.join(", "))
        };
        return Err(CliError::usage(format!(
            "--attach {}: skill `{}` on `{}` has no such file; {has}",
            crate::text::one_line(&path),
            crate::text::one_line(&prompt.name),
            server.name
        )));
    }
    let mut result = load_skill_on(&hub, &server.name, manifest, task, attach).await;
    if cached
        && matches!(&result, Ok(Err((McpError::SkillRefused(_), _))))
        && let Some(listed) = relisted(&hub, &server.name).await
        && let Some(fresh) = find_preferring(&listed, &prompt.name, EntryKind::Skill)
            .and_then(|p| p.skill.as_deref())
        && fresh != manifest
    {
        tracing::info!(server = %server.name, skill = %prompt.name, "the cached manifest was out of date; loading the current one");
        result = load_skill_on(&hub, &server.name, fresh, task, attach).await;
    }
    hub.shutdown().await;
    match result?.map_err(|(error, stderr)| {
        (
            super::connect::failure_code(&error),
            format!("{error}{stderr}"),
        )
    }) {
        Ok(messages) => print_messages(config, &messages, format, copy).await,
        Err((code, error)) => Err(CliError {
            code,
            message: format!("{}/{}: {error}", server.name, prompt.name),
        }),
    }
}

/// `SERVER/SCHEME://…/SKILL.md`: a skill named by its URI on one server (`None` for any
/// other reference).
pub(super) fn skill_uri_reference<'a>(
    config: &'a Config,
    reference: &str,
) -> Result<Option<(&'a ServerConfig, String)>, CliError> {
    let parsed = PromptRef::parse(reference).map_err(CliError::usage)?;
    // A skill URI is a `SKILL.md`'s (the SEP): any other name, `://` or not, is a prompt's.
    if crate::model::skill_manifest::skill_path(&parsed.prompt).is_none() {
        return Ok(None);
    }
    let Some(name) = &parsed.server else {
        return Err(CliError::usage(format!(
            "`{reference}`: a skill's URI needs its server (write SERVER/{reference})"
        )));
    };
    match config.server(name) {
        Some(server) if server.enabled => Ok(Some((server, parsed.prompt))),
        Some(_) => Err(CliError::usage(format!(
            "server `{name}` is disabled in the config (set enabled = true)"
        ))),
        None => Err(CliError::usage(format!(
            "no server `{name}` in the config{}",
            crate::search::did_you_mean(name, config.servers.iter().map(|s| s.name.as_str()))
        ))),
    }
}

/// `get SERVER/URI`: the skill's entry from `skills/get` (listed or not), then loaded as
/// a listed skill is.
pub(super) async fn get_skill_by_uri(
    config: &Config,
    server: &ServerConfig,
    uri: &str,
    arguments: BTreeMap<String, String>,
    format: Format,
    copy: bool,
    skill: SkillGet,
) -> Result<ExitCode, CliError> {
    let (hub, mut outcomes) =
        connect_all_reading(vec![server.clone()], CatalogUse::GET, false).await?;
    if let Some(Outcome::Failed { error, stderr }) = outcomes.remove(&server.name) {
        hub.shutdown().await;
        report_failure(&server.name, &error, &stderr);
        return Err(CliError {
            code: super::connect::failure_code(&error),
            message: format!("cannot get `{uri}`: server `{}` failed", server.name),
        });
    }
    let entry = request_on(&hub, &server.name, |connection| async move {
        connection.skill_by_uri(uri).await
    })
    .await?;
    let prompt = match entry {
        Ok(prompt) => prompt,
        Err((error, stderr)) => {
            hub.shutdown().await;
            return Err(CliError::runtime(format!(
                "{}/{uri}: {error}{stderr}",
                server.name
            )));
        }
    };
    let manifest = prompt.skill.clone().expect("skills/get gives a skill");
    get_skill(
        config, hub, server, &prompt, &manifest, false, arguments, format, copy, skill,
    )
    .await
}

/// [`Connection::load_skill`] on `server`'s connection of `hub` (see [`request_on`]).
pub(super) async fn load_skill_on(
    hub: &Hub,
    server: &str,
    manifest: &crate::model::skill_manifest::SkillManifest,
    task: Option<&str>,
    attach: &[String],
) -> Result<Result<crate::model::PromptMessages, (McpError, String)>, CliError> {
    request_on(hub, server, |connection| async move {
        connection
            .load_skill(manifest, task, attach, crate::library::skills::fill_skill)
            .await
    })
    .await
}

/// [`fill_answering`] on `server`'s connection of `hub` (see [`request_on`]).
pub(super) async fn fill_on(
    hub: &Hub,
    server: &str,
    prompt: &str,
    arguments: &BTreeMap<String, String>,
    answering: &super::questions::AnswerFlags,
) -> Result<Result<Filled, (McpError, String)>, CliError> {
    request_on(hub, server, |connection| async move {
        fill_answering(&connection, prompt, arguments, answering).await
    })
    .await
}

/// How [`fill_answering`] ended, short of a server's failure.
pub(super) enum Filled {
    /// The prompt's messages.
    Messages(crate::model::PromptMessages),
    /// Ctrl-C stopped the asking.
    Stopped,
    /// An answer flag named no question: a usage error, in these words.
    WrongFlag(String),
}

/// Fills a prompt, answering the questions its server asks on the way (either era) with
/// `answering` and, on a terminal, by asking. The connection caps the rounds of one
/// request ([`crate::mcp::MAX_INPUT_ROUNDS`]), for the menu's answers as for these.
pub(super) async fn fill_answering(
    connection: &Connection,
    name: &str,
    arguments: &BTreeMap<String, String>,
    answering: &super::questions::AnswerFlags,
) -> Result<Filled, McpError> {
    use super::questions::{Answered, NotAnswered, Rounds};
    use crate::mcp::GetOutcome;
    let mut answers = None;
    let mut rounds = Rounds::default();
    loop {
        let asked = match connection
            .get_prompt_round(name, arguments, answers.as_ref())
            .await?
        {
            GetOutcome::Messages(messages) => {
                // An answer no question used was probably meant for another prompt.
                let unused = rounds.unused(answering);
                if !unused.is_empty() {
                    let names: Vec<String> = unused.iter().map(|n| format!("`{n}`")).collect();
                    output::error(&format!(
                        "the server asked nothing, so the answer for {} was not used \
                         (--answer / --answers-json)",
                        names.join(", ")
                    ));
                }
                return Ok(Filled::Messages(messages));
            }
            GetOutcome::InputRequired(asked) => asked,
        };
        let server = connection.name().to_string();
        let (after, answered) =
            super::questions::answer(asked, answering.clone(), server, rounds).await;
        rounds = after;
        match answered {
            Ok(Answered::Answers(given)) => answers = Some(given),
            Ok(Answered::Stopped) => {
                connection.decline_waiting_question();
                return Ok(Filled::Stopped);
            }
            Err(not_answered) => {
                // A legacy server is told before mcpick exits, not left waiting.
                connection.decline_waiting_question();
                return match not_answered {
                    NotAnswered::Unanswered(words) => Err(McpError::InputRequired(words)),
                    NotAnswered::UnknownName(words) => Ok(Filled::WrongFlag(words)),
                };
            }
        }
    }
}

/// `get --copy`: the export on the clipboard by the same route the menu takes, said on
/// stderr. OSC 52 goes to the controlling terminal (stdout may be a pipe).
/// What `get` does with the messages it got: prints them in `format`, and puts the same
/// text on the clipboard with `--copy`.
pub(super) async fn print_messages(
    config: &Config,
    messages: &crate::model::PromptMessages,
    format: Format,
    copy: bool,
) -> Result<ExitCode, CliError> {
    let text = render(messages, format);
    write(&text)?;
    for note in crate::export::labelled_notes(messages, format) {
        output::error(&note);
    }
    if copy {
        copy_to_clipboard(config, &text).await?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn copy_to_clipboard(config: &Config, text: &str) -> Result<(), CliError> {
    use crate::export::clipboard;
    let route = clipboard::choose(&clipboard::ClipboardEnv::detect(), &config.clipboard);
    let copied = match route.terminal_sequence(text) {
        Some(sequence) => {
            let screen = matches!(route, clipboard::Route::Osc52 { screen: true });
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/tty")
                .and_then(|mut tty| std::io::Write::write_all(&mut tty, sequence.as_bytes()))
                .map(|()| clipboard::Copied::Terminal { screen })
                .map_err(|e| clipboard::ClipboardError::NoTerminal(e.to_string()))
        }
        None => clipboard::copy(&route, text).await,
    };
    match copied {
        Ok(copied) => {
            output::error(&copied.summary());
            if let Some(advice) = copied.advice() {
                output::detail(&advice);
            }
            Ok(())
        }
        Err(error) => Err(CliError::runtime(format!(
            "the export is on stdout, but the copy failed: {error}"
        ))),
    }
}

/// `mcpick __clipboard-hold`: holds the desktop clipboard for a copy of the menu's (text on
/// stdin), answering on stdout, until another program takes the selection.
pub async fn clipboard_hold() -> Result<ExitCode, CliError> {
    // The terminal it was started from may close meanwhile: a hangup must not end the hold.
    let hangup = crate::sys::signals::ignore_hangup();
    let held = tokio::task::spawn_blocking(|| {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("cannot read the text: {e}"))?;
        crate::export::clipboard::hold(&text, &mut std::io::stdout())
    })
    .await
    .map_err(|e| CliError::runtime(e.to_string()))?;
    drop(hangup);
    held.map(|()| ExitCode::SUCCESS).map_err(CliError::runtime)
}
