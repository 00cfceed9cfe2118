//! `mcpick conformance-client URL` (hidden): the client side of the official MCP
//! conformance suite (`@modelcontextprotocol/conformance client --command ...`).
//!
//! The suite starts a test server per scenario and runs this command with the server's URL
//! as the last argument, the scenario in `MCP_CONFORMANCE_SCENARIO`, the protocol version
//! it speaks in `MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some auth scenarios, a
//! pre-registered client in `MCP_CONFORMANCE_CONTEXT`. It does what mcpick does with any
//! HTTP server, through the same connection and sign-in code: connect (signing in with
//! OAuth when the server asks, up to [`MAX_SIGN_INS`] times, e.g. for more scopes), list
//! the prompts and get each one, and, since the suite's servers mostly serve tools, list
//! the tools and call the first. A server declaring the Skills extension (SEP-2640) has
//! its skills listed and each one picked as the menu picks it: `SKILL.md` read and
//! verified, then each supporting file attached and verified; a file that fails is
//! refused by name and the run fails. The scenario name only appears in messages, but
//! for `sep-2640-client-no-prefetch`, where the user picks nothing: the skills are only
//! listed (a host reads no skill file before one is picked).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use super::CliError;
use crate::config::{self, ServerConfig};
use crate::mcp::oauth::{self, Browser};
use crate::mcp::{Connection, McpError, ServerLog};

/// The most sign-ins one run does before giving up (a server that keeps asking).
const MAX_SIGN_INS: usize = 3;

/// The Client ID Metadata Document URL the suite's authorization servers accept as a
/// client id (used only where the authorization server says it supports CIMD).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The server's name in the generated config (and its token file's name).
const SERVER_NAME: &str = "conformance";

/// Runs the client flow against `url`.
pub async fn run(url: String) -> Result<ExitCode, CliError> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok();
    let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) if !text.trim().is_empty() => serde_json::from_str::<serde_json::Value>(&text)
            .map_err(|e| CliError::usage(format!("MCP_CONFORMANCE_CONTEXT is not JSON: {e}")))?,
        _ => serde_json::Value::Null,
    };
    let server = server_config(&url, version.as_deref(), &context)?;
    let outcome = run_with(&server, &scenario).await;
    // The scenario's key is the suite's, for this run only.
    if let Some(path) = key_path() {
        let _ = std::fs::remove_file(path);
    }
    outcome
}

/// The client flow against `server`, signing in as its config says.
async fn run_with(server: &ServerConfig, scenario: &str) -> Result<ExitCode, CliError> {
    let server = server.clone();
    let fail = |e: McpError| CliError::runtime(format!("scenario `{scenario}`: {e}"));
    let mut sign_ins = 0;
    loop {
        match exercise(&server).await {
            Ok(()) => {
                eprintln!("conformance-client: scenario `{scenario}` done");
                return Ok(ExitCode::SUCCESS);
            }
            // A machine grant asks no person: connecting ran it, and its failure stands.
            Err(McpError::SignInRequired { challenge, .. })
                if sign_ins < MAX_SIGN_INS && !crate::mcp::oauth::is_machine(&server) =>
            {
                sign_ins += 1;
                eprintln!("conformance-client: the server asks for sign-in (#{sign_ins})");
                let show = |url: &str| eprintln!("conformance-client: authorizing at {url}");
                oauth::sign_in(&server, challenge, Browser::Follow, &show)
                    .await
                    .map_err(fail)?;
            }
            Err(error) => return Err(fail(error)),
        }
    }
}

/// The config of the server under test: its URL, the pre-registered client from the
/// context if any, the suite's CIMD URL, and the protocol version to prefer.
fn server_config(
    url: &str,
    version: Option<&str>,
    context: &serde_json::Value,
) -> Result<ServerConfig, CliError> {
    let quote = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let given = |key: &str| context.get(key).and_then(|v| v.as_str());
    let mut oauth = vec![format!(
        "client_metadata_url = {}",
        quote(CLIENT_METADATA_URL)
    )];
    // The context's keys, as `oauth` keys of the config (context key, config key).
    let mut keys = vec![
        ("client_id", "client_id"),
        ("client_secret", "client_secret"),
    ];
    // The machine grants (the suite's auth extension scenarios): configured as a user
    // configures them.
    match given("name").unwrap_or_default() {
        "auth/client-credentials-basic" => oauth.push(r#"grant = "client_credentials""#.into()),
        "auth/client-credentials-jwt" => {
            oauth.push(r#"grant = "client_credentials""#.into());
            let pem = given("private_key_pem").unwrap_or_default();
            let path = key_file(pem)?;
            oauth.push(format!("private_key = {}", quote(&path.to_string_lossy())));
        }
        "auth/wif-jwt-bearer" => {
            oauth.push(r#"grant = "jwt_bearer""#.into());
            keys.push(("valid_jwt", "assertion"));
        }
        "auth/enterprise-managed-authorization" => {
            oauth.push(r#"grant = "enterprise""#.into());
            keys.extend([
                ("idp_token_endpoint", "idp_token_endpoint"),
                ("idp_client_id", "idp_client_id"),
                ("idp_id_token", "id_token"),
            ]);
        }
        _ => {}
    }
    for (key, config_key) in keys {
        if let Some(value) = given(key) {
            oauth.push(format!("{config_key} = {}", quote(value)));
        }
    }
    let mut text = format!(
        "[servers.{SERVER_NAME}]\nurl = {}\ntimeout_ms = 20000\noauth = {{ {} }}\n",
        quote(url),
        oauth.join(", ")
    );
    if let Some(version) = version.filter(|v| !v.is_empty()) {
        text.push_str(&format!("protocol_version = {}\n", quote(version)));
    }
    let parsed = config::parse(&text, Path::new("<conformance-client>"), &|_| None)
        .map_err(|e| CliError::usage(format!("cannot build the server's config: {e}")))?;
    parsed
        .server(SERVER_NAME)
        .cloned()
        .ok_or_else(|| CliError::usage("cannot build the server's config"))
}

/// Where the scenario's private key is kept while it runs.
fn key_path() -> Option<std::path::PathBuf> {
    Some(
        config::data_dir()?
            .join("conformance")
            .join("client-key.pem"),
    )
}

/// Writes the scenario's private key where only this user reads it, for `oauth.private_key`.
fn key_file(pem: &str) -> Result<std::path::PathBuf, CliError> {
    let path = key_path()
        .ok_or_else(|| CliError::usage("no data directory to keep the scenario's key in"))?;
    crate::cache::write_private(&path, pem.as_bytes())
        .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// One connection's worth of work: handshake, prompts (list, get each), tools (list, call
/// the first), shutdown.
async fn exercise(server: &ServerConfig) -> Result<(), McpError> {
    let mut connection = Connection::connect(server, Arc::new(ServerLog::default()), None).await?;
    // As the menu does: the suite sees mcpick's list-change stream too.
    connection.watch_list_changes().await;
    let result = work(&connection).await;
    connection.shutdown().await;
    result
}

async fn work(connection: &Connection) -> Result<(), McpError> {
    let details = connection.details();
    eprintln!(
        "conformance-client: connected, protocol {}",
        details.protocol_version
    );
    if details.prompts {
        for prompt in connection.list_prompts().await? {
            connection
                .get_prompt(&prompt.name, &BTreeMap::new())
                .await?;
        }
    }
    if details.skills {
        pick_skills(connection).await?;
    }
    if details.capabilities.get("tools").is_some() {
        let tools = connection.list_tools().await?;
        if let Some(first) = tools.first() {
            connection.call_tool(first, serde_json::Map::new()).await?;
        }
    }
    Ok(())
}

/// The SEP-2640 part: list the skills; unless the scenario is the one where nothing is
/// picked, load each with all its supporting files attached, as `mcpick get SERVER/SKILL
/// --attach …` does.
async fn pick_skills(connection: &Connection) -> Result<(), McpError> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let listed = connection.list_skills_noting().await?;
    for warning in &listed.warnings {
        eprintln!("conformance-client: {}", crate::text::one_line(warning));
    }
    eprintln!(
        "conformance-client: {} listed",
        crate::text::counted(listed.prompts.len(), "skill", "skills")
    );
    if scenario.ends_with("no-prefetch") {
        return Ok(());
    }
    for skill in &listed.prompts {
        let Some(manifest) = skill.skill.as_deref() else {
            continue;
        };
        let attach: Vec<String> = manifest
            .supporting_files()
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        let messages = connection
            .load_skill(manifest, None, &attach, crate::library::skills::fill_skill)
            .await?;
        eprintln!(
            "conformance-client: loaded skill `{}` verified, {} attached",
            crate::text::one_line(&skill.name),
            crate::text::counted(attach.len(), "file", "files")
        );
        debug_assert!(!messages.messages.is_empty());
    }
    Ok(())
}
