//! `mcpick cache show|clear`: what the catalog cache keeps between runs, and forgetting it.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

use super::{CacheCommand, CliError, output};
use crate::cache::{self, Freshness, Scope, ServerEntry};
use crate::config::Config;

/// Runs a `cache` subcommand.
pub fn run(config_path: Option<&Path>, action: CacheCommand) -> Result<ExitCode, CliError> {
    // A broken config must not stop anyone from looking at or clearing the cache; with no
    // config file, the bundled library is the one server (no note: nothing connects).
    let loaded = super::loading::load_config_quietly(config_path);
    let config = loaded.as_ref().ok().map(|loaded| loaded.config.clone());
    if let Err(error) = &loaded {
        output::error(&format!(
            "the config could not be read, so how each cached catalog stands against it is unknown: {}",
            error.message
        ));
    }
    match action {
        CacheCommand::Show { json } => show(config.as_ref(), json),
        CacheCommand::Clear { server } => clear(config.as_ref(), server.as_deref()),
    }
}

fn folder() -> Result<std::path::PathBuf, CliError> {
    cache::dir().ok_or_else(|| {
        CliError::runtime("this platform has no cache directory, so nothing is cached")
    })
}

/// How one cached file relates to the config now (`None`: the config could not be read).
fn standing(entry: &ServerEntry, config: Option<&Config>) -> &'static str {
    let Some(config) = config else {
        return "unknown: the config could not be read";
    };
    match config.server(&entry.server) {
        None => "not in the config",
        Some(server) if !cache::matches(entry, server) => "outdated: the server's config changed",
        Some(server) if !cache::applies_to(server) => "unused: the server has `cache = false`",
        Some(server) => {
            let context = crate::mcp::oauth::authorization_context(server);
            if entry.auth != context && entry.scope() == Scope::Private {
                "private to another sign-in: not shown"
            } else {
                "in use"
            }
        }
    }
}

fn show(config: Option<&Config>, as_json: bool) -> Result<ExitCode, CliError> {
    let dir = folder()?;
    let files = cache::all().map_err(|e| {
        CliError::runtime(format!(
            "cannot read the cache folder {}: {e}",
            dir.display()
        ))
    })?;
    let now = cache::now_ms();
    if as_json {
        let items: Vec<serde_json::Value> = files
            .iter()
            .map(|file| match &file.entry {
                Ok(entry) => {
                    let (fresh, until) = match entry.freshness(now) {
                        Some(Freshness::Fresh { until_ms }) => (json!(true), json!(until_ms)),
                        Some(Freshness::Stale) => (json!(false), json!(null)),
                        None => (json!(null), json!(null)),
                    };
                    json!({
                        "server": entry.server,
                        "file": file.path.display().to_string(),
                        "era": entry.era,
                        "protocolVersion": entry.details.protocol_version,
                        "prompts": entry.pages.as_ref().map(|_| entry.prompts().len()),
                        "writtenMs": entry.written_ms,
                        "fresh": fresh,
                        "freshUntilMs": until,
                        "scope": entry.scope(),
                        "standing": standing(entry, config),
                    })
                }
                Err(reason) => json!({
                    "file": file.path.display().to_string(),
                    "broken": reason.to_string(),
                }),
            })
            .collect();
        let text = serde_json::to_string_pretty(&items).unwrap_or_default();
        output::result(&format!("{text}\n")).map_err(|e| CliError::runtime(e.to_string()))?;
        return Ok(ExitCode::SUCCESS);
    }
    if files.is_empty() {
        output::result(&format!("nothing cached (in {})\n", dir.display()))
            .map_err(|e| CliError::runtime(e.to_string()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!("cached in {}\n", dir.display());
    for file in &files {
        match &file.entry {
            Ok(entry) => text.push_str(&describe(entry, config, now)),
            Err(reason) => text.push_str(&format!(
                "? {}: broken, ignored ({reason}); `mcpick cache clear` removes it\n",
                file.path.display()
            )),
        }
    }
    output::result(&text).map_err(|e| CliError::runtime(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}

/// One server's lines of `mcpick cache show`.
fn describe(entry: &ServerEntry, config: Option<&Config>, now: u64) -> String {
    let prompts = match &entry.pages {
        Some(_) => crate::text::counted(entry.prompts().len(), "prompt", "prompts"),
        None => "no prompt list".to_string(),
    };
    let private_stdio = entry.scope() == Scope::Private && entry.details.transport == "stdio";
    let freshness = match entry.freshness(now) {
        // What the next start will do: its TTL aside, such a list is asked for again.
        Some(Freshness::Fresh { .. }) if private_stdio => {
            "listed again at every start (a private stdio list: \
             its authorization is the environment the server inherits, which mcpick cannot \
             see; `get` still uses it)"
                .to_string()
        }
        Some(Freshness::Fresh { until_ms }) => {
            format!("fresh for {}", span(until_ms.saturating_sub(now)))
        }
        Some(Freshness::Stale) => "stale (listed again at the next start)".to_string(),
        None => "no list".to_string(),
    };
    let scope = match entry.scope() {
        Scope::Public => "public",
        Scope::Private => "private",
    };
    let era = match entry.era {
        cache::Era::Modern => "stateless: `get` needs no handshake",
        cache::Era::Legacy => "legacy: initialize at once, no discover probe",
    };
    format!(
        "{}: {prompts}, written {} ago, {freshness}, {scope}; {}\n  protocol {} — {era}\n",
        entry.server,
        span(now.saturating_sub(entry.written_ms)),
        standing(entry, config),
        entry.details.protocol_version,
    )
}

/// A span of milliseconds in the largest whole units that read well: `42 s`, `3 min`,
/// `5 h 2 min`, `2 days`.
pub(super) fn span(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..86_400 => match (s / 3600, s % 3600 / 60) {
            (h, 0) => format!("{h} h"),
            (h, m) => format!("{h} h {m} min"),
        },
        _ => crate::text::counted((s / 86_400) as usize, "day", "days"),
    }
}

fn clear(config: Option<&Config>, server: Option<&str>) -> Result<ExitCode, CliError> {
    let dir = folder()?;
    let failed =
        |e: std::io::Error| CliError::runtime(format!("cannot clear {}: {e}", dir.display()));
    let Some(server) = server else {
        let removed = cache::clear(None).map_err(failed)?;
        output::error(&format!(
            "removed {} from {}",
            crate::text::counted(removed, "cached catalog", "cached catalogs"),
            dir.display()
        ));
        return Ok(ExitCode::SUCCESS);
    };
    if cache::remove(server).map_err(failed)? {
        output::error(&format!("removed the cached catalog of `{server}`"));
        return Ok(ExitCode::SUCCESS);
    }
    let configured = config.is_some_and(|c| c.server(server).is_some());
    if configured {
        output::error(&format!("`{server}` has no cached catalog"));
        return Ok(ExitCode::SUCCESS);
    }
    // Neither the config nor the cache knows the name: most likely a typo.
    let mut known: Vec<String> = config
        .map(|c| c.servers.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    if let Ok(files) = cache::all() {
        known.extend(
            files
                .into_iter()
                .filter_map(|f| f.entry.ok())
                .map(|e| e.server),
        );
    }
    known.sort();
    known.dedup();
    let hint = crate::search::did_you_mean(server, known.iter().map(String::as_str));
    Err(CliError::usage(format!(
        "no server `{server}` in the config or the cache{hint}"
    )))
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn spans_read_in_whole_units() {
        assert_eq!(span(0), "0 s");
        assert_eq!(span(59_999), "59 s");
        assert_eq!(span(60_000), "1 min");
        assert_eq!(span(3_600_000), "1 h");
        assert_eq!(span(3_720_000), "1 h 2 min");
        assert_eq!(span(86_400_000), "1 day");
        assert_eq!(span(3 * 86_400_000), "3 days");
    }
}
