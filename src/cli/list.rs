//! `mcpick list`: every prompt of every server, as text or JSON.

use super::CliError;
use super::connect::Outcome;
use super::connect::connect_all;
use super::connect::report_failure;
use super::connect::write;
use super::loading::no_servers;
use super::output;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::mcp::CatalogUse;
use crate::model::PromptInfo;
use serde_json::json;
use std::process::ExitCode;

pub(super) async fn list(config: &Config, json: bool) -> Result<ExitCode, CliError> {
    let servers: Vec<ServerConfig> = config.enabled_servers().cloned().collect();
    if servers.is_empty() {
        return Err(no_servers(config));
    }
    let order: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
    let (hub, outcomes) = connect_all(servers, CatalogUse::MENU).await?;
    hub.shutdown().await;
    let mut prompts = Vec::new();
    let mut answered = Vec::new();
    let mut failed = 0;
    // 1, or 2 when a failure asks for a config change (a machine grant refused).
    let mut code = 1;
    for name in &order {
        match outcomes.get(name) {
            Some(Outcome::Ready {
                prompts: p,
                warnings,
                ..
            }) => {
                answered.push(name.as_str());
                prompts.extend(p.iter().cloned());
                for warning in warnings {
                    output::error(&format!("server `{name}`: {warning}"));
                }
            }
            Some(Outcome::Failed { error, stderr }) => {
                failed += 1;
                code = code.max(super::connect::failure_code(error));
                report_failure(name, error, stderr);
            }
            None => {}
        }
    }
    if json {
        let entries: Vec<serde_json::Value> = prompts.iter().map(entry_json).collect();
        let body = serde_json::to_string_pretty(&entries).unwrap_or_default();
        write(&format!("{body}\n"))?;
    } else {
        write(&list_text(&prompts))?;
    }
    if !answered.is_empty() && prompts.is_empty() {
        output::error(&no_prompts_listed(&answered, failed));
    }
    Ok(if !answered.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(code)
    })
}

/// Why `mcpick list` printed nothing: which servers answered with no prompts, and how
/// many others failed (their errors are printed above it).
pub(super) fn no_prompts_listed(answered: &[&str], failed: usize) -> String {
    let offered = match answered {
        [one] => format!("`{one}` answered but offers no prompts"),
        [_, _] | [_, _, _] => format!(
            "{} answered but offer no prompts",
            answered
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        many => format!("all {} servers that answered offer no prompts", many.len()),
    };
    match failed {
        0 => offered,
        failed => format!(
            "{offered}; {} failed (above)",
            crate::text::counted(failed, "server", "servers")
        ),
    }
}

/// One entry of `list --json`: its `kind` (`prompt` or `skill`) first, then the entry.
pub(super) fn entry_json(prompt: &PromptInfo) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    object.insert("kind".into(), json!(prompt.kind().as_str()));
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(prompt) {
        object.extend(fields);
    }
    serde_json::Value::Object(object)
}

/// One line per prompt: `server/name  args  title: first line of description`; a skill's
/// says `(skill)` before its description.
pub(super) fn list_text(prompts: &[PromptInfo]) -> String {
    let refs: Vec<String> = prompts
        .iter()
        .map(|p| format!("{}/{}", p.server, p.name))
        .collect();
    let width = refs.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (prompt, reference) in prompts.iter().zip(&refs) {
        let args: Vec<String> = prompt
            .arguments
            .iter()
            .map(|a| {
                if a.required {
                    format!("{}*", a.name)
                } else {
                    format!("[{}]", a.name)
                }
            })
            .collect();
        let mut line = crate::text::pad_right(reference, width);
        if !args.is_empty() {
            line.push_str(&format!("  {}", args.join(" ")));
        }
        if prompt.skill.is_some() {
            line.push_str("  (skill)");
        }
        let summary = prompt
            .description
            .as_deref()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            .unwrap_or("")
            .trim();
        // One line per prompt, whatever a server put in its title.
        let title = prompt
            .title
            .as_ref()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
        match (&title, summary.is_empty()) {
            (Some(title), false) => line.push_str(&format!("  — {title}: {summary}")),
            (Some(title), true) => line.push_str(&format!("  — {title}")),
            (None, false) => line.push_str(&format!("  — {summary}")),
            (None, true) => {}
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
