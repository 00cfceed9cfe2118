//! `mcpick serve`: load prompt files, serve them, reload them when they change.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use tokio_util::sync::CancellationToken;

use super::{CliError, output};
use crate::config::expand_tilde;
use crate::mcp::{PromptServer, serve_http, serve_stdio};
use crate::serve::{
    CacheHints, Embedded, Library, SharedLibrary, builtin_library, load_paths, watch_paths,
};

fn load(paths: &[PathBuf], builtin: bool) -> Library {
    // The user's own files come first: on a name clash, theirs keeps the plain name.
    let mut parts = Vec::new();
    if !paths.is_empty() {
        parts.push(load_paths(paths));
    }
    if builtin {
        parts.push(builtin_library());
    }
    Library::combine(parts)
}

/// Tells the watcher which files the library embeds (canonical and as written).
fn set_embedded(embedded: &Embedded, library: &Library) {
    if let Ok(mut set) = embedded.write() {
        *set = library.embedded_files.iter().cloned().collect();
    }
}

/// Runs the server until the client goes away (stdio) or Ctrl-C (HTTP).
pub async fn run(
    paths: Vec<PathBuf>,
    builtin: bool,
    http: Option<String>,
    allow_remote: bool,
    page_size: usize,
    ttl: Option<std::time::Duration>,
) -> Result<ExitCode, CliError> {
    let mut paths: Vec<PathBuf> = paths
        .iter()
        .map(|p| PathBuf::from(expand_tilde(&p.to_string_lossy())))
        .collect();
    if paths.is_empty() && !builtin {
        // Hosts often start servers in `/` or the home folder: serving every prompt file
        // on the disk by accident helps no one.
        let here = std::env::current_dir()
            .ok()
            .and_then(|d| d.canonicalize().ok());
        let home = directories::BaseDirs::new().and_then(|d| d.home_dir().canonicalize().ok());
        if let Some(here) = &here
            && (here.parent().is_none() || Some(here) == home.as_ref())
        {
            return Err(CliError::usage(format!(
                "no PATH given, and the current folder is {}: name the folder to serve (e.g. `mcpick serve ./prompts`), or pass --builtin",
                here.display()
            )));
        }
        paths.push(PathBuf::from("."));
    }
    let address = match &http {
        Some(text) => {
            let address: SocketAddr = text.parse().map_err(|_| {
                CliError::usage(format!(
                    "--http wants IP:PORT, like 127.0.0.1:8080 (got `{text}`)"
                ))
            })?;
            if !address.ip().is_loopback() && !allow_remote {
                return Err(CliError::usage(format!(
                    "refusing to serve on {address}: it is not a loopback address, so anyone who can reach it could read your prompts. Pass --allow-remote if that is what you want"
                )));
            }
            Some(address)
        }
        None => None,
    };

    let library = load(&paths, builtin);
    for problem in &library.diagnostics {
        output::error(&format!("serve: {problem}"));
    }
    if library.prompts().is_empty() {
        output::error(
            "serve: no prompt files found (looked for *.prompt.md, *.mcpick.md, and *.md under a `commands` folder)",
        );
    }
    let shared = SharedLibrary::new(library);
    // Files can change while no client listens; the bundled library only with the binary.
    let hints = CacheHints::chosen(!paths.is_empty(), ttl);
    let server = PromptServer::new(shared.clone(), page_size).with_cache_hints(hints);

    if !paths.is_empty() {
        let embedded: Embedded = Default::default();
        set_embedded(&embedded, &shared.current());
        let mut changes = watch_paths(paths.clone(), embedded.clone());
        let shared = shared.clone();
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                let paths = paths.clone();
                let Ok(library) = tokio::task::spawn_blocking(move || load(&paths, builtin)).await
                else {
                    return;
                };
                set_embedded(&embedded, &library);
                let reported = shared.current().diagnostics.clone();
                for problem in library.diagnostics.iter().filter(|d| !reported.contains(d)) {
                    output::error(&format!("serve: {problem}"));
                }
                let count = library.prompts().len();
                if shared.replace(library) {
                    tracing::info!(
                        prompts = count,
                        "prompt files (or their problems) changed; clients notified"
                    );
                }
            }
        });
    }

    match address {
        None => {
            use std::io::IsTerminal as _;
            let by_hand = std::io::stdin().is_terminal();
            if by_hand {
                output::error(
                    "serve: speaking MCP on stdin/stdout, for an MCP host to start (to try it by hand, use --http 127.0.0.1:0)",
                );
            }
            serve_stdio(server).await.map_err(|e| {
                let hint = if by_hand {
                    " (an MCP host, not a person, talks to `mcpick serve` on stdin)"
                } else {
                    ""
                };
                CliError::runtime(format!("{e}{hint}"))
            })?
        }
        Some(address) => {
            let shutdown = CancellationToken::new();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                crate::signals::stopped().await;
                stop.cancel();
            });
            serve_http(server, address, shutdown, |bound| {
                output::error(&format!(
                    "serve: listening on http://{bound}/mcp (Ctrl-C stops)"
                ));
            })
            .await
            .map_err(CliError::runtime)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
