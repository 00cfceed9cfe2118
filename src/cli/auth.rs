//! `mcpick auth login|logout SERVER`: OAuth sign-in for HTTP servers.

use std::path::Path;
use std::process::ExitCode;

use super::{AuthCommand, CliError, output};
use crate::config::{Config, ServerConfig};
use crate::mcp::oauth::{self, Browser};

/// Runs an `auth` subcommand.
pub async fn run(config_path: Option<&Path>, action: AuthCommand) -> Result<ExitCode, CliError> {
    let config = super::loading::load_config(config_path)?;
    match action {
        AuthCommand::Login { server, no_browser } => {
            let server = find(&config, &server)?;
            let server = super::inputs::ask(vec![server])?.remove(0);
            if let Some(problem) = server
                .problem
                .clone()
                .or_else(|| server.missing_inputs_problem())
            {
                return Err(CliError::runtime(format!("`{}`: {problem}", server.name)));
            }
            if crate::mcp::oauth::is_machine(&server) {
                // No person needed: the configured grant, once.
                let obtained = tokio::select! {
                    result = crate::mcp::oauth::obtain(&server) => result,
                    code = crate::sys::signals::stopped() => {
                        return Err(CliError { code, message: "sign-in stopped".into() });
                    }
                };
                obtained.map_err(|e| CliError::config(e.to_string()))?;
                let context = oauth::authorization_context(&server);
                let _ = crate::cache::forget_private(&server, context.as_deref());
                output::error(&format!(
                    "`{}`: {}",
                    server.name,
                    oauth::sign_in_state(&server).describe()
                ));
                return Ok(ExitCode::SUCCESS);
            }
            let browser = if no_browser {
                Browser::None
            } else {
                Browser::System
            };
            let name = server.name.clone();
            let show = move |url: &str| {
                output::error(&format!(
                    "sign in to `{name}` in the browser{}:",
                    if no_browser { "" } else { " (opening it now)" }
                ));
                output::detail(url);
                output::detail("waiting for the browser to come back (Ctrl-C stops)…");
            };
            let signed_in = tokio::select! {
                result = oauth::sign_in(&server, None, browser, &show) => result,
                code = crate::sys::signals::stopped() => {
                    return Err(CliError { code, message: "sign-in stopped".into() });
                }
            };
            output::tell_dpop_notices();
            signed_in.map_err(|e| CliError::runtime(format!("`{}`: {e}", server.name)))?;
            // A new sign-in may be another identity: what the old one saw privately goes.
            let context = oauth::authorization_context(&server);
            let _ = crate::cache::forget_private(&server, context.as_deref());
            let place = oauth::token_path(&server.name)
                .map(|p| format!(" (tokens in {}, readable by you only)", p.display()))
                .unwrap_or_default();
            output::error(&format!("signed in to `{}`{place}", server.name));
            Ok(ExitCode::SUCCESS)
        }
        AuthCommand::Status { json } => {
            status(&config, json)?;
            Ok(ExitCode::SUCCESS)
        }
        AuthCommand::Logout { server } => {
            let server = find(&config, &server)?;
            if oauth::sign_out(&server.name).map_err(|e| CliError::runtime(e.to_string()))? {
                // Private results of that sign-in leave the disk with it.
                let forgot = crate::cache::forget_private(&server, None).unwrap_or(false);
                output::error(&format!(
                    "signed out of `{}`: its tokens are deleted{}",
                    server.name,
                    if forgot {
                        ", and the prompts cached for that sign-in"
                    } else {
                        ""
                    }
                ));
            } else {
                output::error(&format!("`{}` has no stored tokens", server.name));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The HTTP server called `name`, or an error naming the ones there are.
fn find(config: &Config, name: &str) -> Result<ServerConfig, CliError> {
    let Some(server) = config.server(name) else {
        if config.path.is_none() {
            return Err(CliError::usage(super::loading::no_server_without_a_config(
                name,
            )));
        }
        let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
        return Err(CliError::usage(format!(
            "no server `{name}` in the config (it has: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )));
    };
    match server.transport.kind() {
        "stdio" => {
            return Err(CliError::usage(format!(
                "`{name}` is a stdio server: it takes credentials from `env`, not a sign-in"
            )));
        }
        "sse" => {
            return Err(CliError::usage(format!(
                "`{name}` uses the HTTP+SSE transport: it takes a token in `headers`, not a sign-in"
            )));
        }
        _ => {}
    }
    Ok(server.clone())
}

/// `mcpick auth status`: one line (or JSON object) per server that signs in over OAuth.
fn status(config: &Config, json: bool) -> Result<(), CliError> {
    use crate::config::TransportConfig;
    let mut rows = Vec::new();
    for server in &config.servers {
        let TransportConfig::Http {
            oauth,
            legacy_sse: false,
            ..
        } = &server.transport
        else {
            continue;
        };
        let state = oauth::sign_in_state(server);
        let (signed_in, expires_at, renewed, dpop) = match &state {
            oauth::SignInState::SignedOut => (false, None, false, false),
            oauth::SignInState::SignedIn {
                expires_at,
                refreshable,
                grant,
                dpop,
            } => (true, *expires_at, *refreshable || grant.is_some(), *dpop),
        };
        rows.push((
            server.name.clone(),
            oauth.grant.name(),
            state,
            signed_in,
            expires_at,
            renewed,
            dpop,
        ));
    }
    let body = if json {
        let entries: Vec<serde_json::Value> = rows
            .iter()
            .map(|(name, grant, _, signed_in, expires_at, renewed, dpop)| {
                serde_json::json!({
                    "server": name,
                    "grant": grant,
                    "signedIn": signed_in,
                    "expiresAt": expires_at,
                    "renewed": renewed,
                    "dpop": dpop,
                })
            })
            .collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(&entries).unwrap_or_default()
        )
    } else if rows.is_empty() {
        output::error("no HTTP server in the config signs in with OAuth");
        String::new()
    } else {
        let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        rows.iter()
            .map(|(name, grant, state, ..)| {
                // The grant has its column.
                let said = state.describe().replacen(&format!(" with {grant}"), "", 1);
                format!("{name:width$}  {grant:18}  {said}\n")
            })
            .collect()
    };
    output::result(&body).map_err(|e| CliError::runtime(format!("cannot write the output: {e}")))
}
