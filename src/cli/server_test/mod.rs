//! `mcpick test SERVER`: for server authors. Lists and fills every prompt in each protocol
//! era the server speaks, holds each answer to the spec's rules and says how each export
//! format carries it (docs/testing-servers.md).

mod checks;
mod report;
mod results;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;
use super::connect::{Outcome, connect_uncached};
use crate::config::{Config, ServerConfig};
use crate::mcp::{Connection, McpError};
use crate::model::PromptInfo;
use checks::{Check, Verdict};
use results::{EraReport, PromptReport, ValueFrom};

/// The two eras tried, each pinned as `protocol_version` pins it: the stateless one
/// (`server/discover`) and the newest with `initialize`.
const ERAS: [(&str, &str); 2] = [("2026-07-28", "2026-07-28"), ("initialize", "2025-11-25")];

/// A value given for an argument the server neither completed nor `--args` named.
const PLACEHOLDER: &str = "example";

/// What `mcpick test` was asked.
pub(super) struct TestFlags {
    /// `--args FILE`: argument values per prompt.
    pub(super) args: Option<PathBuf>,
    /// `--json`.
    pub(super) json: bool,
    /// `--snapshot DIR`.
    pub(super) snapshot: Option<PathBuf>,
}

/// Runs `mcpick test SERVER`.
pub(super) async fn run(
    config: &Config,
    server: &str,
    flags: TestFlags,
) -> Result<ExitCode, CliError> {
    let Some(config_server) = config.server(server) else {
        return Err(CliError::usage(format!(
            "no server `{server}` in the config{}",
            crate::search::did_you_mean(server, config.servers.iter().map(|s| s.name.as_str()))
        )));
    };
    let given = match &flags.args {
        Some(path) => report::read_args_file(path).map_err(CliError::usage)?,
        None => BTreeMap::new(),
    };
    let mut eras = Vec::new();
    for (era, version) in ERAS {
        let mut pinned = config_server.clone();
        pinned.enabled = true;
        pinned.protocol_version = Some(version.to_string());
        eras.push(test_era(pinned, era, &given).await?);
    }
    if eras.iter().all(|e| e.version.is_none()) {
        let why: Vec<String> = eras
            .iter()
            .map(|e| format!("{}: {}", e.era, e.unreachable.as_deref().unwrap_or("?")))
            .collect();
        return Err(CliError {
            code: 2,
            message: format!(
                "server `{server}` answered in neither era ({})",
                why.join("; ")
            ),
        });
    }
    if let Some(dir) = &flags.snapshot {
        report::write_snapshots(dir, &eras).map_err(CliError::runtime)?;
    }
    let body = if flags.json {
        report::json(server, &eras)
    } else {
        report::text(server, &eras)
    };
    super::connect::write(&body)?;
    let violations = eras
        .iter()
        .flat_map(|e| {
            e.checks
                .iter()
                .chain(e.prompts.iter().flat_map(|p| &p.checks))
        })
        .filter(|c| c.verdict == Verdict::Fail)
        .count();
    Ok(if violations > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Connects in one era (pinned, no fallback) and tests everything the server lists.
async fn test_era(
    server: ServerConfig,
    era: &'static str,
    given: &BTreeMap<String, BTreeMap<String, String>>,
) -> Result<EraReport, CliError> {
    let name = server.name.clone();
    let (hub, mut outcomes) = connect_uncached(vec![server]).await?;
    let mut report = EraReport {
        era,
        version: None,
        unreachable: None,
        checks: Vec::new(),
        prompts: Vec::new(),
        warnings: Vec::new(),
    };
    let connection = match (outcomes.remove(&name), hub.connection(&name)) {
        (Some(Outcome::Ready { .. }), Some(connection)) => connection,
        (Some(Outcome::Failed { error, .. }), _) => {
            hub.shutdown().await;
            report.unreachable = Some(crate::text::one_line(&error.to_string()));
            return Ok(report);
        }
        _ => {
            hub.shutdown().await;
            report.unreachable = Some("it did not get ready".into());
            return Ok(report);
        }
    };
    let details = connection.details().clone();
    let modern = details.protocol_version.as_str() >= "2026";
    report.version = Some(details.protocol_version.clone());
    // Recorded for this task alone: the hub's own re-lists (a legacy server's list
    // changes) on the same connection are not mixed in.
    let listing = crate::mcp::recording_shapes(connection.list_prompts_noting());
    let (listed, shapes) = tokio::select! {
        listed = listing => listed,
        code = crate::sys::signals::stopped() => {
            hub.shutdown().await;
            return Err(CliError { code, message: "stopped by a signal; servers shut down".into() });
        }
    };
    match listed {
        Ok(list) => {
            report.checks = checks::list_checks(&shapes, modern);
            report.warnings = list
                .warnings
                .iter()
                .map(|w| crate::text::one_line(w))
                .collect();
            for prompt in &list.prompts {
                let tested = test_prompt(&connection, prompt, given, modern).await;
                report.prompts.push(tested);
            }
        }
        Err(error) => report.checks.push(Check {
            rule: "list",
            spec: "§3.3 prompts/list (paginated)",
            verdict: Verdict::Fail,
            reason: crate::text::one_line(&error.to_string()),
        }),
    }
    report.checks.push(checks::list_changed(
        details.prompts_list_changed,
        connection.heard_list_changed(),
        modern,
    ));
    drop(connection);
    hub.shutdown().await;
    Ok(report)
}

/// Fills one prompt (required arguments from `--args`, completions or a placeholder),
/// gets it, and gets it again without its required arguments, which must be refused.
async fn test_prompt(
    connection: &Connection,
    prompt: &PromptInfo,
    given: &BTreeMap<String, BTreeMap<String, String>>,
    modern: bool,
) -> PromptReport {
    let mut report = PromptReport {
        name: prompt.name.clone(),
        skill: prompt.skill.is_some(),
        arguments: Vec::new(),
        checks: Vec::new(),
        exports: Vec::new(),
        messages: None,
    };
    if report.skill {
        report.checks.push(Check {
            rule: "get",
            spec: "SEP-2640 Skills",
            verdict: Verdict::Skip,
            reason: "a skill: listed and checked, not loaded (`mcpick get` loads it)".into(),
        });
        return report;
    }
    let from_file = given.get(&prompt.name);
    let mut arguments = BTreeMap::new();
    for argument in &prompt.arguments {
        let (value, from) = match from_file.and_then(|a| a.get(&argument.name)) {
            Some(value) => (value.clone(), ValueFrom::ArgsFile),
            None if !argument.required => continue,
            None => match completed(connection, prompt, &argument.name, &arguments).await {
                Some(value) => (value, ValueFrom::Completion),
                None => (PLACEHOLDER.to_string(), ValueFrom::Placeholder),
            },
        };
        arguments.insert(argument.name.clone(), value.clone());
        report.arguments.push((argument.name.clone(), value, from));
    }
    let required: Vec<String> = (prompt.arguments.iter())
        .filter(|a| a.required)
        .map(|a| a.name.clone())
        .collect();
    let getting = connection.get_prompt(&prompt.name, &arguments);
    let (got, shapes) = crate::mcp::recording_shapes(getting).await;
    let shape = shapes.into_iter().rfind(|s| s.method == "prompts/get");
    match got {
        Ok(messages) => {
            report.checks.push(Check {
                rule: "get",
                spec: "§3.4 prompts/get",
                verdict: Verdict::Pass,
                reason: String::new(),
            });
            report
                .checks
                .push(checks::get_result_type(shape.as_ref(), modern));
            report.checks.extend(checks::content(&messages));
            report.exports = crate::export::Format::ALL
                .iter()
                .map(|(name, format)| (*name, crate::export::losses(&messages, *format)))
                .collect();
            report.messages = Some(messages);
        }
        Err(error) => {
            let guessed: Vec<&str> = (report.arguments.iter())
                .filter(|(_, _, from)| *from == ValueFrom::Placeholder)
                .map(|(name, _, _)| name.as_str())
                .collect();
            report.checks.push(get_failed(&error, &guessed));
        }
    }
    let refused = if required.is_empty() {
        None
    } else {
        let result = connection.get_prompt(&prompt.name, &BTreeMap::new()).await;
        Some(result.map(|_| ()).map_err(|e| e.to_string()))
    };
    report
        .checks
        .push(checks::required_refused(&required, refused));
    report
}

/// A failed `prompts/get`: a question the server asks first is no violation (test has
/// nobody to answer it), nor a refusal of the placeholders test made up (`guessed`); any
/// other failure is.
fn get_failed(error: &McpError, guessed: &[&str]) -> Check {
    let said = crate::text::cut_chars(&crate::text::one_line(&error.to_string()), 160);
    let (verdict, reason) = match error {
        McpError::InputRequired(_) => (
            Verdict::Skip,
            "the server asks questions first (input_required); answer them with `mcpick get`"
                .to_string(),
        ),
        _ if !guessed.is_empty() => (
            Verdict::Skip,
            format!(
                "refused with the placeholder {} ({said}); give values with --args FILE",
                guessed.join(", ")
            ),
        ),
        _ => (Verdict::Fail, said),
    };
    Check {
        rule: "get",
        spec: "§3.4 prompts/get",
        verdict,
        reason,
    }
}

/// The server's first completion of `argument`, when it offers completion.
async fn completed(
    connection: &Connection,
    prompt: &PromptInfo,
    argument: &str,
    context: &BTreeMap<String, String>,
) -> Option<String> {
    let details = connection.details();
    if !details.completions && details.protocol_version != "2024-11-05" {
        return None;
    }
    let completion = connection
        .complete(&prompt.name, argument, "", context)
        .await
        .ok()?;
    completion.values.into_iter().next()
}
