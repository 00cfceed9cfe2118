//! `mcpick servers`: each server, how it answered, and what it serves.

use super::CliError;
use super::connect::Outcome;
use super::connect::connect_all;
use super::connect::sign_in_words;
use super::connect::write;
use super::loading::no_servers;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::mcp::CatalogUse;
use serde_json::json;
use std::process::ExitCode;

pub(super) async fn servers(config: &Config, json: bool) -> Result<ExitCode, CliError> {
    if config.servers.is_empty() {
        return Err(no_servers(config));
    }
    let enabled: Vec<ServerConfig> = config.enabled_servers().cloned().collect();
    let (hub, outcomes) = connect_all(enabled, CatalogUse::MENU).await?;
    hub.shutdown().await;
    let mut rows = Vec::new();
    for server in &config.servers {
        let mut base = json!({ "name": server.name, "transport": server.transport.kind() });
        if let Some(source) = &server.source {
            base["source"] = json!(source);
        }
        if server.transport.kind() != "stdio" {
            let state = crate::mcp::oauth::sign_in_state(server);
            // HTTP+SSE has no sign-in flow: its token goes in `headers`.
            let signs_in = server.transport.kind() != "sse";
            if let Some(words) = sign_in_words(&state, outcomes.get(&server.name), signs_in) {
                base["signIn"] = json!(words);
            }
        }
        let row = match outcomes.get(&server.name) {
            _ if !server.enabled => merge_json(base, json!({ "state": "disabled" })),
            Some(Outcome::Ready {
                details,
                prompts,
                warnings,
                ..
            }) => {
                let mut ready = json!({
                    "state": "ready",
                    "protocolVersion": details.protocol_version,
                    "serverName": details.server_name,
                    "serverVersion": details.server_version,
                    "capabilities": details.capabilities,
                    "promptCount": prompts.iter().filter(|p| p.skill.is_none()).count(),
                    "skills": details.skills,
                    "skillCount": prompts.iter().filter(|p| p.skill.is_some()).count(),
                    "warnings": warnings,
                });
                // A served library's files it could not serve (`mcpick serve`).
                if !details.served_problems.is_empty() {
                    ready["servedProblems"] = json!(details.served_problems);
                }
                merge_json(base, ready)
            }
            Some(Outcome::Failed { error, stderr }) => merge_json(
                base,
                json!({ "state": "failed", "error": error.to_string(), "stderr": stderr }),
            ),
            None => merge_json(base, json!({ "state": "unknown" })),
        };
        rows.push(row);
    }
    if json {
        let body = serde_json::to_string_pretty(&rows).unwrap_or_default();
        write(&format!("{body}\n"))?;
    } else {
        write(&servers_text(&rows))?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn merge_json(
    mut base: serde_json::Value,
    extra: serde_json::Value,
) -> serde_json::Value {
    if let (Some(base), serde_json::Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}

/// The `problems:` lines of `mcpick servers` for a served library's problems, one a line.
pub(super) fn served_problems_text(problems: &serde_json::Value) -> String {
    let Some(problems) = problems.as_array().filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let mut out = format!("  problems:     {} in its prompt files\n", problems.len());
    for problem in problems {
        let shown = serde_json::from_value::<crate::model::ServedProblem>(problem.clone())
            .map(|p| p.to_string())
            .unwrap_or_else(|_| problem.to_string());
        out.push_str(&format!("    {}\n", crate::text::one_line(&shown)));
    }
    out
}

pub(super) fn servers_text(rows: &[serde_json::Value]) -> String {
    let mut out = String::new();
    for row in rows {
        let field = |key: &str| row[key].as_str().unwrap_or("").to_string();
        out.push_str(&format!(
            "{}  ({}, {})\n",
            field("name"),
            field("transport"),
            field("state")
        ));
        if let Some(source) = row["source"].as_str() {
            out.push_str(&format!("  from:         {source}\n"));
        }
        if let Some(sign_in) = row["signIn"].as_str() {
            out.push_str(&format!("  sign-in:      {sign_in}\n"));
        }
        match row["state"].as_str() {
            Some("ready") => {
                let identity = match (row["serverName"].as_str(), row["serverVersion"].as_str()) {
                    (Some(n), Some(v)) => format!("{n} {v}"),
                    (Some(n), None) => n.to_string(),
                    _ => "unnamed".to_string(),
                };
                let capabilities: Vec<String> = row["capabilities"]
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default();
                out.push_str(&format!("  server:       {identity}\n"));
                out.push_str(&format!("  protocol:     {}\n", field("protocolVersion")));
                out.push_str(&format!("  capabilities: {}\n", capabilities.join(", ")));
                out.push_str(&format!("  prompts:      {}\n", row["promptCount"]));
                if row["skills"].as_bool() == Some(true) {
                    out.push_str(&format!(
                        "  skills:       {} (extension {})\n",
                        row["skillCount"],
                        crate::mcp::skill_verify::SKILLS_EXTENSION
                    ));
                }
                for warning in row["warnings"].as_array().into_iter().flatten() {
                    out.push_str(&format!(
                        "  warning:      {}\n",
                        warning.as_str().unwrap_or("")
                    ));
                }
                out.push_str(&served_problems_text(&row["servedProblems"]));
            }
            Some("failed") => {
                out.push_str(&format!("  error: {}\n", field("error")));
                if let Some(lines) = row["stderr"].as_array().filter(|l| !l.is_empty()) {
                    out.push_str("  last stderr lines:\n");
                    for line in lines {
                        out.push_str(&format!("    {}\n", line.as_str().unwrap_or("")));
                    }
                }
            }
            _ => {}
        }
    }
    out
}
