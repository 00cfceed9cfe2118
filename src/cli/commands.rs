//! The subcommands, on top of the hub.

use super::complete::complete;
use super::connect::tell_catalog_write_failure;
use super::get::SkillGet;
use super::get::get;
use super::list::list;
use super::loading::load_config;
use super::menu::StdinFrom;
use super::menu::given_values;
use super::servers::servers;

use std::path::Path;
use std::process::ExitCode;

use super::args::{merge, parse_args_json};
use super::{CliError, Command, output};
use crate::config::{self, Config};
use crate::export::Format;

/// Writes the starter config to `--config`/`MCPICK_CONFIG` or the default location.
pub fn init(config_path: Option<&Path>) -> Result<ExitCode, CliError> {
    let path = match config_path {
        Some(path) => path.to_path_buf(),
        None => config::default_config_path().ok_or_else(|| {
            CliError::runtime("this platform has no config directory; pass --config PATH")
        })?,
    };
    if path.exists() {
        return Err(CliError::runtime(format!(
            "{} already exists; not overwriting it (edit it, or move it away first)",
            path.display()
        )));
    }
    let exe = std::env::current_exe()
        .map_err(|e| CliError::runtime(format!("cannot find mcpick's own binary: {e}")))?;
    // `mcpick` when that is what PATH finds or this is a build in target/ (whose path is no
    // place for a config to keep); otherwise the full path.
    let named = config::self_command(&exe);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::runtime(format!("cannot create {}: {e}", dir.display())))?;
    }
    // A new file only (never one that appeared since the check above), the owner's alone
    // from the start: a config may come to hold secrets (headers, client secrets).
    let mut file = crate::sys::fs::create_private_new(&path)
        .map_err(|e| CliError::runtime(format!("cannot write {}: {e}", path.display())))?;
    use std::io::Write as _;
    file.write_all(config::starter_config(Path::new(&named.command)).as_bytes())
        .map_err(|e| CliError::runtime(format!("cannot write {}: {e}", path.display())))?;
    output::error(&format!("wrote a starter config to {}", path.display()));
    if let Some(folder) = named.build_folder {
        output::error(&format!(
            "this mcpick runs from a build folder ({}), so the config runs the bundled library as `mcpick`, not by a path there: until PATH finds an mcpick, `mcpick` is whichever mcpick reads the config; `cargo install --locked --path .` installs one",
            folder.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs one subcommand.
pub async fn run(config_path: Option<&Path>, command: Command) -> Result<ExitCode, CliError> {
    let config = load_config(config_path)?;
    let result = run_loaded(&config, command).await;
    tell_catalog_write_failure();
    output::tell_dpop_notices();
    result
}

/// [`run`] once the config is read.
async fn run_loaded(config: &Config, command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::List { json, .. } => list(config, json).await,
        Command::Servers { json, .. } => servers(config, json).await,
        Command::Get {
            prompt,
            assignments,
            args,
            arg_files,
            args_json,
            format,
            copy,
            answers,
            answers_json,
            decline,
            task,
            attach,
            ..
        } => {
            let format: Format = format.parse().map_err(CliError::usage)?;
            let answering =
                super::questions::AnswerFlags::parse(&answers, answers_json.as_deref(), decline)
                    .map_err(CliError::usage)?;
            let words: Vec<String> = assignments.into_iter().chain(args).collect();
            let mut pairs = given_values(&words, &arg_files, StdinFrom::Anything)?.0;
            if let Some(json) = &args_json {
                pairs.extend(parse_args_json(json).map_err(CliError::usage)?);
            }
            if let Some(task) = task {
                pairs.push((crate::mcp::skill_verify::TASK_ARGUMENT.to_string(), task));
            }
            let arguments = merge(pairs).map_err(CliError::usage)?;
            let skill = SkillGet { attach };
            get(config, &prompt, arguments, format, copy, answering, skill).await
        }
        Command::Complete {
            prompt,
            argument,
            prefix,
            context,
            json,
            ..
        } => {
            let pairs = given_values(&context, &[], StdinFrom::Anything)?.0;
            let context = merge(pairs).map_err(CliError::usage)?;
            complete(config, &prompt, &argument, &prefix, &context, json).await
        }
        Command::Lock(flags) => super::lock::lock(config, flags).await,
        Command::Check(flags) => super::check::check(config, flags).await,
        Command::Test {
            server,
            args,
            json,
            snapshot,
        } => {
            let flags = super::server_test::TestFlags {
                args,
                json,
                snapshot,
            };
            super::server_test::run(config, &server, flags).await
        }
        Command::Serve { .. }
        | Command::Init
        | Command::Config { .. }
        | Command::Auth { .. }
        | Command::Cache { .. }
        | Command::ShellInit { .. }
        | Command::Completions { .. }
        | Command::Man { .. }
        | Command::Doctor { .. }
        | Command::ConformanceClient { .. }
        | Command::ClipboardHold => {
            unreachable!("dispatched in cli::run")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::complete::completion_note;
    use super::super::connect::{Outcome, sign_in_words};
    use super::super::locate::no_such_prompt;

    use crate::mcp::McpError;
    use crate::mcp::oauth::SignInState;
    use crate::model::PromptInfo;
    use serde_json::json;

    fn prompt(name: &str) -> PromptInfo {
        PromptInfo {
            server: "s".into(),
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            skill: None,
            mirrors_skill: None,
        }
    }

    #[test]
    fn a_missing_prompt_is_named_with_what_the_server_offers() {
        assert_eq!(
            no_such_prompt("s", "hello", &[]),
            "server `s` has no prompt `hello`: it offers no prompts"
        );
        assert_eq!(
            no_such_prompt("s", "hello", &[prompt("zzzzzz")]),
            "server `s` has no prompt `hello` (`mcpick list` shows its one prompt)"
        );
        assert_eq!(
            no_such_prompt("s", "hello", &[prompt("zzzzzz"), prompt("qqqqqq")]),
            "server `s` has no prompt `hello` (`mcpick list` shows all 2 of its prompts)"
        );
        assert_eq!(
            no_such_prompt("s", "helo", &[prompt("hello")]),
            "server `s` has no prompt `helo`. Did you mean: s/hello?"
        );
    }

    #[test]
    fn sign_in_is_not_needed_by_a_server_that_answered_without_asking() {
        let ready = Outcome::Ready {
            details: crate::model::ServerDetails {
                transport: "http".into(),
                protocol_version: "2025-06-18".into(),
                server_name: None,
                server_version: None,
                prompts: true,
                prompts_list_changed: false,
                completions: false,
                resources: false,
                skills: false,
                capabilities: json!({}),
                served_problems: Vec::new(),
            },
            prompts: Vec::new(),
            warnings: Vec::new(),
            cached: None,
        };
        let asked = Outcome::Failed {
            error: McpError::SignInRequired {
                server: "s".into(),
                challenge: None,
                more_scopes: false,
            },
            stderr: Vec::new(),
        };
        let unreachable = Outcome::Failed {
            error: McpError::Handshake("cannot reach the server".into()),
            stderr: Vec::new(),
        };
        let out = SignInState::SignedOut;
        let words = sign_in_words;
        assert_eq!(
            words(&out, Some(&ready), true).as_deref(),
            Some("not needed")
        );
        assert_eq!(
            words(&out, Some(&asked), true).as_deref(),
            Some("not signed in")
        );
        // Failed before saying whether it needs one, or never contacted: not known.
        assert_eq!(words(&out, Some(&unreachable), true), None);
        assert_eq!(words(&out, None, true), None);
        // HTTP+SSE has no sign-in: never "not signed in".
        assert_eq!(words(&out, Some(&asked), false), None);
        assert_eq!(
            words(&out, Some(&ready), false).as_deref(),
            Some("not needed")
        );
        let signed = SignInState::SignedIn {
            expires_at: None,
            refreshable: true,
            grant: None,
            dpop: false,
        };
        assert_eq!(
            words(&signed, Some(&ready), true).as_deref(),
            Some("signed in (renewed automatically)")
        );
    }

    #[test]
    fn a_completion_says_when_the_server_has_more() {
        let completion =
            |sent: usize, total: Option<u32>, has_more: Option<bool>| crate::model::Completion {
                values: (0..sent).map(|n| n.to_string()).collect(),
                total,
                has_more,
            };
        assert_eq!(
            completion_note(&completion(100, Some(250), Some(true))).as_deref(),
            Some("100 of 250; type more to narrow")
        );
        assert_eq!(
            completion_note(&completion(3, None, Some(true))).as_deref(),
            Some("3 of more (the server did not say how many); type more to narrow")
        );
        assert_eq!(completion_note(&completion(3, Some(3), Some(false))), None);
        assert_eq!(completion_note(&completion(3, None, None)), None);
    }
}
