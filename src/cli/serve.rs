//! `mcpick serve`: load prompt files, serve them, reload them when they change.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use tokio_util::sync::CancellationToken;

use super::{CliError, output};
use crate::config::expand_tilde;
use crate::library::{
    CacheHints, Embedded, Library, SharedLibrary, builtin_library, load_paths, watch_paths,
};
use crate::mcp::{
    BearerToken, HttpAccess, PromptServer, ServeTls, TOKEN_ENV, serve_http, serve_stdio,
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

/// Who `serve --http` lets in, as the flags say.
#[derive(Debug, Default)]
pub struct Exposure {
    /// `--allow-remote`: a non-loopback address may be served.
    pub allow_remote: bool,
    /// `--auth-token-file`: the file holding the bearer token.
    pub auth_token_file: Option<PathBuf>,
    /// `--insecure-no-auth`: a non-loopback address without a token is wanted.
    pub insecure_no_auth: bool,
    /// `--tls-cert` and `--tls-key`.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// `--max-body`, `--max-requests`, `--max-streams`, `--max-sessions`, `--session-idle`.
    pub limits: crate::mcp::HttpLimits,
}

/// `serve --http`'s limits, as flags (see docs/serve.md, "Limits"); each needs `--http`
/// (given without it, a usage error rather than a limit silently ignored).
#[derive(Debug, Clone, clap::Args)]
pub struct LimitFlags {
    /// The largest HTTP request body taken, in bytes; larger ones get 413.
    #[arg(long, requires = "http", value_name = "BYTES", default_value_t = crate::mcp::HttpLimits::DEFAULT_MAX_BODY, value_parser = parse_count)]
    pub max_body: usize,
    /// HTTP requests handled at once; more get 503 with Retry-After
    ///
    /// Each from when its whole body has arrived until the answer is written. Open event
    /// streams count against --max-streams instead.
    #[arg(long, requires = "http", value_name = "N", default_value_t = crate::mcp::HttpLimits::DEFAULT_MAX_REQUESTS, value_parser = parse_count)]
    pub max_requests: usize,
    /// Event streams (`subscriptions/listen`, legacy GET) open at once; more get 503.
    #[arg(long, requires = "http", value_name = "N", default_value_t = crate::mcp::HttpLimits::DEFAULT_MAX_STREAMS, value_parser = parse_count)]
    pub max_streams: usize,
    /// Legacy sessions (`Mcp-Session-Id`) kept at once
    ///
    /// A new one closes the least recently used.
    #[arg(long, requires = "http", value_name = "N", default_value_t = crate::mcp::HttpLimits::DEFAULT_MAX_SESSIONS, value_parser = parse_count)]
    pub max_sessions: usize,
    /// A legacy session no request has used for this long is closed (e.g. 5m, 90s).
    #[arg(long, requires = "http", value_name = "DURATION", default_value = "5m", value_parser = parse_idle)]
    pub session_idle: std::time::Duration,
    /// Connections open at once; one more closes the one idle longest
    ///
    /// By default what the limit on open files allows (raised to its hard limit at start),
    /// keeping an eighth back, up to 16384.
    #[arg(long, requires = "http", value_name = "N", value_parser = parse_count)]
    pub max_connections: Option<usize>,
    /// Connections idle or with a request still arriving, at once
    ///
    /// One more closes the one idle longest, else the slowest sender.
    #[arg(long, requires = "http", value_name = "N", default_value_t = crate::mcp::HttpLimits::DEFAULT_MAX_WAITING, value_parser = parse_count)]
    pub max_waiting: usize,
    /// Bytes held by requests still arriving (heads and bodies), in all
    ///
    /// Past it the connection holding the most is closed.
    #[arg(long, requires = "http", value_name = "BYTES", default_value_t = crate::mcp::HttpLimits::DEFAULT_MAX_ARRIVING, value_parser = parse_count)]
    pub max_arriving: usize,
    /// The slowest a request body may arrive after its first 5 s, in bytes a second
    ///
    /// Slower gets 408 (0: no minimum).
    #[arg(long, requires = "http", value_name = "BYTES", default_value_t = crate::mcp::HttpLimits::DEFAULT_MIN_BODY_RATE)]
    pub min_body_rate: u64,
    /// How long a request body may take to arrive once its headers have (for tests).
    #[arg(long, requires = "http", value_name = "DURATION", default_value = "30s", value_parser = parse_idle, hide = true)]
    pub body_timeout: std::time::Duration,
    /// How long an answer's write may stall before the connection is closed (for tests).
    #[arg(long, requires = "http", value_name = "DURATION", default_value = "30s", value_parser = parse_idle, hide = true)]
    pub write_timeout: std::time::Duration,
}

/// `--max-connections`, or by default what the limit on open files allows, once that is
/// raised to its hard limit. A number over what the files allow is kept, with a warning:
/// past the limit `accept` fails and every new client waits.
fn max_connections(given: Option<usize>) -> usize {
    let fds = crate::sys::fds::raise_open_file_limit().unwrap_or(1024);
    let within = crate::sys::fds::connections_within(fds);
    match given {
        None => within.min(crate::mcp::HttpLimits::MOST_CONNECTIONS_BY_DEFAULT),
        Some(given) => {
            if given > within {
                output::error(&format!(
                    "serve: warning: --max-connections {given} is more than the {within} this process's limit of {fds} open files leaves room for: raise the limit (`ulimit -n`, systemd's LimitNOFILE=) or give fewer"
                ));
            }
            given
        }
    }
}

fn parse_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("give at least 1".into()),
        Ok(count) => Ok(count),
        Err(_) => Err(format!("`{text}` is not a whole number")),
    }
}

fn parse_idle(text: &str) -> Result<std::time::Duration, String> {
    match crate::library::parse_ttl(text)? {
        idle if idle.is_zero() => Err("a session needs some time to live: give at least 1s".into()),
        idle => Ok(idle),
    }
}

impl From<LimitFlags> for crate::mcp::HttpLimits {
    fn from(flags: LimitFlags) -> Self {
        crate::mcp::HttpLimits {
            max_body: flags.max_body,
            max_requests: flags.max_requests,
            max_streams: flags.max_streams,
            max_sessions: flags.max_sessions,
            session_idle: flags.session_idle,
            body_timeout: flags.body_timeout,
            write_timeout: flags.write_timeout,
            max_connections: max_connections(flags.max_connections),
            max_waiting: flags.max_waiting,
            max_arriving: flags.max_arriving,
            min_body_rate: flags.min_body_rate,
        }
    }
}

/// Checks the flags against `address` and loads the token and certificate. `env_token` is
/// MCPICK_SERVE_TOKEN (`--auth-token-file` wins over it). Off loopback a token is required
/// unless `--insecure-no-auth`: TLS alone hides the prompts from the wire but still serves
/// anyone who connects, so it is not enough.
pub fn access_for(
    address: SocketAddr,
    exposure: Exposure,
    env_token: Option<std::ffi::OsString>,
) -> Result<HttpAccess, CliError> {
    let remote = !address.ip().is_loopback();
    if remote && !exposure.allow_remote {
        return Err(CliError::usage(format!(
            "refusing to serve on {address}: it is not a loopback address, so anyone who can reach it could read your prompts. Pass --allow-remote if that is what you want"
        )));
    }
    let token = match (&exposure.auth_token_file, env_token) {
        (Some(path), _) => {
            Some(BearerToken::from_file(path).map_err(|e| CliError::usage(e.to_string()))?)
        }
        (None, Some(_)) if exposure.insecure_no_auth => {
            return Err(CliError::usage(format!(
                "{TOKEN_ENV} is set, but --insecure-no-auth asks for no token: unset one of them"
            )));
        }
        (None, Some(value)) => {
            let value = value.into_string().map_err(|_| {
                CliError::usage(format!("the token in {TOKEN_ENV} is not UTF-8 text"))
            })?;
            Some(BearerToken::new(&value, TOKEN_ENV).map_err(|e| CliError::usage(e.to_string()))?)
        }
        (None, None) => None,
    };
    let tls = match &exposure.tls {
        Some((cert, key)) => {
            Some(ServeTls::load(cert, key).map_err(|e| CliError::usage(e.to_string()))?)
        }
        None => None,
    };
    if remote {
        match (&token, exposure.insecure_no_auth) {
            (None, false) => {
                return Err(CliError::usage(format!(
                    "refusing to serve on {address} without a token: anyone who can reach it could read your prompts. Give --auth-token-file PATH (or set {TOKEN_ENV}) so each request needs `Authorization: Bearer <token>`, with --tls-cert PATH --tls-key PATH so the token never crosses the network in clear text; or pass --insecure-no-auth to serve anyone who can reach it"
                )));
            }
            (None, true) => output::error(&format!(
                "serve: warning: --insecure-no-auth: anyone who can reach {address} can read these prompts"
            )),
            (Some(_), _) if tls.is_none() => output::error(
                "serve: warning: without --tls-cert/--tls-key the token crosses the network in clear text: use TLS, or a reverse proxy in front that terminates it",
            ),
            (Some(_), _) => {}
        }
    }
    Ok(HttpAccess {
        token,
        tls,
        limits: exposure.limits,
    })
}

/// Runs the server until the client goes away (stdio) or Ctrl-C (HTTP).
pub async fn run(
    paths: Vec<PathBuf>,
    builtin: bool,
    http: Option<String>,
    exposure: Exposure,
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
            let access = access_for(address, exposure, std::env::var_os(TOKEN_ENV))?;
            Some((address, access))
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
    let behind_token = matches!(&address, Some((_, access)) if access.token.is_some());
    let hints = CacheHints::chosen(!paths.is_empty(), ttl).with_token(behind_token);
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
        Some((address, access)) => {
            let scheme = if access.tls.is_some() {
                "https"
            } else {
                "http"
            };
            let guarded = if access.token.is_some() {
                "bearer token required; "
            } else {
                ""
            };
            let shutdown = CancellationToken::new();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                crate::sys::signals::stopped().await;
                stop.cancel();
            });
            serve_http(server, address, access, shutdown, |bound| {
                output::error(&format!(
                    "serve: listening on {scheme}://{bound}/mcp ({guarded}Ctrl-C stops)"
                ));
            })
            .await
            .map_err(CliError::runtime)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
