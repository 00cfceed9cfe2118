//! The command line: `mcpick list`, `get`, `complete` and `servers`.

mod access;
mod args;
mod auth;
mod cache;
mod candidates;
mod check;
mod commands;
mod complete;
mod completion_program;
mod completions;
mod conformance;
mod connect;
mod doctor;
mod entry;
mod error;
mod flags;
mod get;
mod import;
mod inputs;
mod linear;
mod list;
mod loading;
mod locate;
mod lock;
mod man;
mod menu;
mod misplaced;
mod output;
mod popup;
mod questions;
mod serve;
mod server_test;
mod servers;
mod shell;

use std::process::ExitCode;

pub use args::{Given, GivenValue, parse_all, parse_args_json, parse_assignment, read_given};
pub use completions::answer_if_asked as answer_completion_request;
pub use entry::main_entry;
pub use error::CliError;
pub use flags::{AuthCommand, CacheCommand, Cli, Command, ConfigCommand};
pub use menu::with_tmux_size_spelled_out;
pub use misplaced::parse_command_line;

/// Runs a parsed command line and returns the process exit code.
pub async fn run(cli: Cli) -> ExitCode {
    // `--refresh` is each connecting command's own flag; before a subcommand it is the
    // menu's, accepted there only for the commands that have it.
    let refresh = match &cli.command {
        None => cli.refresh,
        Some(
            Command::List { refresh, .. }
            | Command::Get { refresh, .. }
            | Command::Complete { refresh, .. }
            | Command::Servers { refresh, .. },
        ) => cli.refresh || *refresh,
        Some(_) if cli.refresh => {
            output::error(
                "--refresh is for the commands that ask servers (the menu, list, get, complete, servers); \
                 `mcpick cache clear` forgets the catalog for good",
            );
            return ExitCode::from(2);
        }
        Some(_) => false,
    };
    if refresh {
        crate::cache::ignore_for_this_run();
    }
    let result = match cli.command {
        None => {
            let result = menu::run(cli).await;
            // Only the log file is told what a flood left out of it at the end.
            crate::mcp::log::take_left_out();
            result
        }
        Some(Command::Serve {
            paths,
            builtin,
            http,
            allow_remote,
            auth_token_file,
            insecure_no_auth,
            tls_cert,
            tls_key,
            page_size,
            ttl,
            limits,
        }) => {
            serve::run(
                paths,
                builtin,
                http,
                serve::Exposure {
                    allow_remote,
                    auth_token_file,
                    insecure_no_auth,
                    tls: tls_cert.zip(tls_key),
                    limits: limits.into(),
                },
                usize::from(page_size),
                ttl,
            )
            .await
        }
        Some(Command::Init) => commands::init(cli.config.as_deref()),
        Some(Command::Config {
            action:
                ConfigCommand::Import {
                    path,
                    from,
                    dry_run,
                },
        }) => import::run(cli.config.as_deref(), path, from, dry_run),
        Some(Command::Auth { action }) => auth::run(cli.config.as_deref(), action).await,
        Some(Command::Cache { action }) => cache::run(cli.config.as_deref(), action),
        Some(Command::ShellInit {
            shell,
            key,
            completions,
        }) => shell::run(&shell, key.as_deref(), completions),
        Some(Command::Completions { shell }) => completions::run(&shell),
        Some(Command::Man { page, dir }) => {
            use clap::CommandFactory as _;
            man::run(Cli::command(), page.as_deref(), dir.as_deref())
        }
        Some(Command::Doctor { json }) => {
            doctor::run(cli.config.as_deref(), json, cli.screen_reader).await
        }
        Some(Command::ConformanceClient { url }) => conformance::run(url).await,
        Some(Command::ClipboardHold) => get::clipboard_hold().await,
        Some(command) => {
            let result = commands::run(cli.config.as_deref(), command).await;
            // A flood left lines out of the log file: said once, before exiting.
            let left_out = crate::mcp::log::take_left_out();
            if let Some(note) = crate::mcp::log::left_out_note(&left_out) {
                output::error(&note);
            }
            result
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            output::error(&error.message);
            ExitCode::from(error.code)
        }
    }
}
