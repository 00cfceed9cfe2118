//! `mcpick check`: the servers asked again and compared with the lockfile; a readable diff
//! per prompt, exit 1 on drift, 2 when a server cannot be reached or the file read.

use super::CliError;
use super::connect::Outcome;
use super::connect::connect_all_reading;
use super::connect::write;
use super::lock::{CheckFlags, read_lockfile, render_example};
use super::output;
use crate::config::Config;
use crate::config::ServerConfig;
use crate::lock::{LockedServer, Lockfile};
use crate::mcp::CatalogUse;
use crate::mcp::Hub;
use crate::model::PromptInfo;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::process::ExitCode;

/// What `check` found of one server.
#[derive(Debug)]
struct ServerReport {
    server: String,
    /// Why it could not be compared (unreachable, not configured).
    error: Option<String>,
    /// Changes of who it says it is: told, not drift.
    identity: Vec<String>,
    /// The prompts and skills that drifted.
    drifted: Vec<EntryReport>,
}

/// One prompt or skill that drifted.
#[derive(Debug)]
struct EntryReport {
    /// `prompt` or `skill`.
    kind: &'static str,
    name: String,
    /// `changed`, `gone` (locked, no longer listed) or `new` (listed, not locked).
    status: &'static str,
    /// The definition's changes, one line each.
    changes: Vec<String>,
    /// The examples whose rendered messages drifted.
    examples: Vec<ExampleReport>,
}

/// One example that renders differently now, or not at all.
#[derive(Debug)]
struct ExampleReport {
    arguments: BTreeMap<String, String>,
    /// `changed` or `fails`.
    status: &'static str,
    /// The line diff of the text, when it was locked with `--with-output`.
    diff: Option<String>,
    /// Why it cannot be rendered now.
    error: Option<String>,
}

impl ServerReport {
    /// The report's JSON object; empty fields are left out.
    fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("server".into(), json!(self.server));
        if let Some(error) = &self.error {
            object.insert("error".into(), json!(error));
        }
        if !self.identity.is_empty() {
            object.insert("identity".into(), json!(self.identity));
        }
        let drifted: Vec<Value> = self.drifted.iter().map(EntryReport::to_json).collect();
        object.insert("drifted".into(), Value::Array(drifted));
        Value::Object(object)
    }
}

impl EntryReport {
    fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("kind".into(), json!(self.kind));
        object.insert("name".into(), json!(self.name));
        object.insert("status".into(), json!(self.status));
        if !self.changes.is_empty() {
            object.insert("changes".into(), json!(self.changes));
        }
        if !self.examples.is_empty() {
            let examples: Vec<Value> = (self.examples.iter())
                .map(|example| {
                    let mut object = Map::new();
                    object.insert("arguments".into(), json!(example.arguments));
                    object.insert("status".into(), json!(example.status));
                    if let Some(diff) = &example.diff {
                        object.insert("diff".into(), json!(diff));
                    }
                    if let Some(error) = &example.error {
                        object.insert("error".into(), json!(error));
                    }
                    Value::Object(object)
                })
                .collect();
            object.insert("examples".into(), Value::Array(examples));
        }
        Value::Object(object)
    }
}

/// `mcpick check`.
pub(super) async fn check(config: &Config, flags: CheckFlags) -> Result<ExitCode, CliError> {
    let path = flags.file.display().to_string();
    let lockfile = read_lockfile(&flags.file)?.ok_or_else(|| {
        CliError::usage(format!(
            "no lockfile {path}: `mcpick lock` writes one (or give --file PATH)"
        ))
    })?;
    let mut reports: Vec<ServerReport> = Vec::new();
    let mut servers: Vec<ServerConfig> = Vec::new();
    for name in lockfile.servers.keys() {
        match config.server(name) {
            Some(server) if server.enabled => servers.push(server.clone()),
            found => reports.push(ServerReport {
                server: name.clone(),
                error: Some(if found.is_some() {
                    "disabled in the config (enabled = false)".into()
                } else {
                    "not in the config: configure it, or `mcpick lock` to drop it".into()
                }),
                identity: Vec::new(),
                drifted: Vec::new(),
            }),
        }
    }
    let unlocked: Vec<&str> = (config.enabled_servers())
        .map(|s| s.name.as_str())
        .filter(|name| !lockfile.servers.contains_key(*name))
        .collect();
    if !servers.is_empty() {
        // The servers are asked now: the catalog is not read.
        let (hub, outcomes) = connect_all_reading(servers, CatalogUse::MENU, false).await?;
        let compared = compare_all(&hub, &lockfile, &outcomes).await;
        hub.shutdown().await;
        reports.extend(compared?);
        reports.sort_by(|a, b| a.server.cmp(&b.server));
    }
    let unreachable = reports.iter().filter(|r| r.error.is_some()).count();
    let drifted: usize = reports.iter().map(|r| r.drifted.len()).sum();
    if flags.json {
        let body = json!({
            "file": path,
            "drift": drifted > 0,
            "unreachable": unreachable,
            "notLocked": unlocked,
            "servers": reports.iter().map(ServerReport::to_json).collect::<Vec<_>>(),
        });
        write(&format!(
            "{}\n",
            serde_json::to_string_pretty(&body).unwrap_or_default()
        ))?;
    } else {
        write(&crate::text::sanitize(&report_text(&reports)))?;
    }
    if !flags.json {
        for name in &unlocked {
            output::error(&format!(
                "server `{name}` is not in {path}, so it was not checked (`mcpick lock {name}` adds it)"
            ));
        }
        output::error(&summary(&reports, &path));
    }
    Ok(ExitCode::from(match (unreachable, drifted) {
        (0, 0) => 0,
        (0, _) => 1,
        _ => 2,
    }))
}

/// Each reached server compared with its entry; a failed one reported as unreachable.
async fn compare_all(
    hub: &Hub,
    lockfile: &Lockfile,
    outcomes: &BTreeMap<String, Outcome>,
) -> Result<Vec<ServerReport>, CliError> {
    let mut reports = Vec::new();
    for (name, outcome) in outcomes {
        let Some(locked) = lockfile.servers.get(name) else {
            continue;
        };
        let mut report = ServerReport {
            server: name.clone(),
            error: None,
            identity: Vec::new(),
            drifted: Vec::new(),
        };
        match outcome {
            Outcome::Failed { error, stderr } => {
                super::connect::report_failure(name, error, stderr);
                report.error = Some(format!("cannot be reached: {error}"));
            }
            Outcome::Ready {
                details, prompts, ..
            } => {
                let now = LockedServer::from_listing(details, prompts);
                report.identity = locked.identity_changes(&now);
                report.drifted = compare_listing(locked, prompts);
                compare_examples(hub, name, locked, prompts, &mut report.drifted).await?;
            }
        }
        reports.push(report);
    }
    Ok(reports)
}

/// The prompts and skills that changed, went or came, definitions only, sorted by kind
/// and name.
fn compare_listing(locked: &LockedServer, listed: &[PromptInfo]) -> Vec<EntryReport> {
    let entry = |kind, name: &str, status, changes: Vec<String>| EntryReport {
        kind,
        name: name.to_string(),
        status,
        changes,
        examples: Vec::new(),
    };
    let mut drifted = Vec::new();
    let prompts: BTreeMap<&str, &PromptInfo> = (listed.iter())
        .filter(|p| p.skill.is_none())
        .map(|p| (p.name.as_str(), p))
        .collect();
    let skills: BTreeMap<&str, &PromptInfo> = (listed.iter())
        .filter(|p| p.skill.is_some())
        .map(|p| (p.name.as_str(), p))
        .collect();
    for (name, was) in &locked.prompts {
        match prompts.get(name.as_str()) {
            None => drifted.push(entry("prompt", name, "gone", Vec::new())),
            Some(now) => {
                let changes = was.definition_changes(now);
                if !changes.is_empty() {
                    let lines = changes.iter().map(ToString::to_string).collect();
                    drifted.push(entry("prompt", name, "changed", lines));
                }
            }
        }
    }
    for name in prompts.keys().filter(|n| !locked.prompts.contains_key(**n)) {
        drifted.push(entry("prompt", name, "new", Vec::new()));
    }
    for (name, was) in &locked.skills {
        match skills.get(name.as_str()).and_then(|p| p.skill.as_deref()) {
            None => drifted.push(entry("skill", name, "gone", Vec::new())),
            Some(manifest) => {
                let changes = was.definition_changes(name, manifest);
                if !changes.is_empty() {
                    let lines = changes.iter().map(ToString::to_string).collect();
                    drifted.push(entry("skill", name, "changed", lines));
                }
            }
        }
    }
    for name in skills.keys().filter(|n| !locked.skills.contains_key(**n)) {
        drifted.push(entry("skill", name, "new", Vec::new()));
    }
    drifted.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    drifted
}

/// Each locked example of a prompt still listed, rendered again; one that differs or
/// fails is added to its prompt's entry (made `changed` when its definition is not).
async fn compare_examples(
    hub: &Hub,
    server: &str,
    locked: &LockedServer,
    listed: &[PromptInfo],
    drifted: &mut Vec<EntryReport>,
) -> Result<(), CliError> {
    for (name, prompt) in &locked.prompts {
        if !listed.iter().any(|p| p.skill.is_none() && &p.name == name) {
            continue;
        }
        let mut examples = Vec::new();
        for example in &prompt.examples {
            let report = match render_example(hub, server, name, &example.arguments).await? {
                Ok(messages) => example.drift(&messages).map(|drift| ExampleReport {
                    arguments: example.arguments.clone(),
                    status: "changed",
                    diff: drift.diff,
                    error: None,
                }),
                Err(error) => Some(ExampleReport {
                    arguments: example.arguments.clone(),
                    status: "fails",
                    diff: None,
                    error: Some(error),
                }),
            };
            examples.extend(report);
        }
        if examples.is_empty() {
            continue;
        }
        match drifted
            .iter_mut()
            .find(|e| e.kind == "prompt" && &e.name == name)
        {
            Some(entry) => entry.examples = examples,
            None => drifted.push(EntryReport {
                kind: "prompt",
                name: name.clone(),
                status: "changed",
                changes: Vec::new(),
                examples,
            }),
        }
    }
    drifted.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    Ok(())
}

/// The report as text: per server, each drifted prompt and skill with its changes.
fn report_text(reports: &[ServerReport]) -> String {
    let mut out = String::new();
    for report in reports {
        let server = crate::text::visible_on_one_line(&report.server);
        if let Some(error) = &report.error {
            out.push_str(&format!("{server}: not checked: {error}\n"));
        }
        for line in &report.identity {
            out.push_str(&format!("{server}: {line} (not drift)\n"));
        }
        for entry in &report.drifted {
            let name = crate::text::visible_on_one_line(&entry.name);
            let kind = if entry.kind == "skill" {
                " (skill)"
            } else {
                ""
            };
            let status = match entry.status {
                "gone" => "gone (locked, no longer listed)",
                "new" => "new (listed, not locked)",
                other => other,
            };
            out.push_str(&format!("{server}/{name}{kind}: {status}\n"));
            for change in &entry.changes {
                out.push_str(&format!("  {change}\n"));
            }
            for example in &entry.examples {
                let arguments = crate::lock::LockedExample {
                    arguments: example.arguments.clone(),
                    ..Default::default()
                }
                .arguments_text();
                match (&example.error, &example.diff) {
                    (Some(error), _) => out.push_str(&format!(
                        "  example {arguments}: cannot be rendered now: {}\n",
                        crate::text::one_line(error)
                    )),
                    (None, Some(diff)) if !diff.is_empty() => {
                        out.push_str(&format!("  example {arguments}: rendered differently\n"));
                        for line in diff.lines() {
                            out.push_str(&format!("    {line}\n"));
                        }
                    }
                    (None, Some(_)) => out.push_str(&format!(
                        "  example {arguments}: rendered differently, not in its text \
                         (in annotations, metadata or content types)\n"
                    )),
                    (None, None) => out.push_str(&format!(
                        "  example {arguments}: rendered differently (lock with \
                         --with-output to see a line diff)\n"
                    )),
                }
            }
        }
    }
    out
}

/// The last line: nothing drifted, or how much did and what to do.
fn summary(reports: &[ServerReport], path: &str) -> String {
    let count = |status: &str| {
        (reports.iter())
            .flat_map(|r| &r.drifted)
            .filter(|e| e.status == status)
            .count()
    };
    let unreachable: Vec<String> = (reports.iter())
        .filter(|r| r.error.is_some())
        .map(|r| format!("`{}`", r.server))
        .collect();
    let (changed, gone, new) = (count("changed"), count("gone"), count("new"));
    let mut line = if changed + gone + new == 0 {
        format!("no drift from {path}")
    } else {
        format!(
            "drift from {path}: {changed} changed, {gone} gone, {new} new; \
             `mcpick lock` accepts what the servers offer now"
        )
    };
    if !unreachable.is_empty() {
        line.push_str(&format!(
            "; not checked: {} (above)",
            unreachable.join(", ")
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::{ServerReport, compare_listing, report_text, summary};
    use crate::lock::LockedServer;
    use crate::model::{PromptArg, PromptInfo};

    fn prompt(name: &str, required: &[&str]) -> PromptInfo {
        PromptInfo {
            server: "s".into(),
            name: name.into(),
            title: None,
            description: None,
            arguments: (required.iter())
                .map(|a| PromptArg {
                    name: (*a).into(),
                    title: None,
                    description: None,
                    required: true,
                })
                .collect(),
            skill: None,
            mirrors_skill: None,
        }
    }

    #[test]
    fn gone_new_and_changed_prompts_are_reported_by_name_in_order() {
        let details = crate::model::ServerDetails {
            transport: "stdio".into(),
            protocol_version: "2025-06-18".into(),
            server_name: None,
            server_version: None,
            prompts: true,
            prompts_list_changed: false,
            completions: false,
            resources: false,
            skills: false,
            capabilities: serde_json::json!({}),
            served_problems: Vec::new(),
        };
        let locked = LockedServer::from_listing(
            &details,
            &[
                prompt("same", &[]),
                prompt("gone", &[]),
                prompt("args", &[]),
            ],
        );
        let listed = [
            prompt("args", &["now"]),
            prompt("same", &[]),
            prompt("n\u{1b}[2Jew", &[]),
        ];
        let report = ServerReport {
            server: "s".into(),
            error: None,
            identity: Vec::new(),
            drifted: compare_listing(&locked, &listed),
        };
        assert_eq!(
            report_text(std::slice::from_ref(&report)),
            "s/args: changed\n  argument `now` added (required)\n\
             s/gone: gone (locked, no longer listed)\n\
             s/n␛[2Jew: new (listed, not locked)\n"
        );
        assert_eq!(
            summary(&[report], "mcpick.lock"),
            "drift from mcpick.lock: 1 changed, 1 gone, 1 new; \
             `mcpick lock` accepts what the servers offer now"
        );
        let clean = ServerReport {
            server: "s".into(),
            error: None,
            identity: Vec::new(),
            drifted: compare_listing(
                &locked,
                &[
                    prompt("same", &[]),
                    prompt("gone", &[]),
                    prompt("args", &[]),
                ],
            ),
        };
        assert_eq!(summary(&[clean], "x.lock"), "no drift from x.lock");
    }
}
