//! The command line as clap reads it: the menu's flags, every subcommand and theirs.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use clap_complete::{ArgValueCandidates, ArgValueCompleter};

use super::{candidates, lock, popup, serve};
use crate::config::CONFIG_ENV;

/// The shells `shell-init` knows, as named on its command line.
pub const INIT_SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

/// The shells `completions` writes a script for.
pub const COMPLETION_SHELLS: [&str; 5] = ["bash", "zsh", "fish", "elvish", "powershell"];

/// mcpick: every MCP server's prompts in one place — list them, fill them, export them.
#[derive(Debug, Parser)]
#[command(name = "mcpick", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    /// The config file to read
    ///
    /// Default: $XDG_CONFIG_HOME/mcpick/config.toml, else ~/.config/mcpick/config.toml;
    /// `mcpick doctor` says which is read and why.
    #[arg(long, global = true, env = CONFIG_ENV, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Menu: write the accepted result to FILE and exit
    ///
    /// When you accept a result (Enter on the review screen), it is written to FILE and
    /// mcpick exits.
    #[arg(long, value_name = "FILE", conflicts_with = "print")]
    pub output: Option<PathBuf>,

    /// Menu: print the accepted result on stdout and exit
    ///
    /// Printed after the terminal is restored, e.g. `mcpick --print | llm`.
    #[arg(long)]
    pub print: bool,

    /// Menu: the initial export format
    ///
    /// The last one given counts, so a shell widget's MCPICK_WIDGET_OPTS can change its
    /// default.
    #[arg(long = "format", value_name = "FORMAT", default_value = "markdown", value_parser = ["markdown", "text", "mcp-json", "openai", "anthropic"], overrides_with = "tui_format")]
    pub tui_format: String,

    /// Menu: start with this search typed
    #[arg(short = 'q', long, value_name = "TEXT")]
    pub query: Option<String>,

    /// Menu: open the only matching prompt at once
    ///
    /// Once the servers answered (or at once from a fresh catalog).
    #[arg(short = '1', long = "select-1")]
    pub select_one: bool,

    /// Menu: exit with status 1 at once when no prompt matches
    #[arg(short = '0', long = "exit-0")]
    pub exit_zero: bool,

    /// With SERVER/PROMPT: skip the form when every required argument is given
    ///
    /// The prompt is fetched at once and the review opens.
    #[arg(long, requires = "prompt")]
    pub no_form: bool,

    /// Menu: draw in the bottom N rows (or N%) instead of the whole screen
    ///
    /// Below what is on the terminal, which stays there.
    #[arg(long, value_name = "N|N%", value_parser = crate::tui::Height::parse, conflicts_with = "tmux")]
    pub height: Option<crate::tui::Height>,

    /// Menu: open in a tmux popup over this pane (default size 80%)
    ///
    /// Accepting pastes the export into that pane. SIZE: N% or WIDTHxHEIGHT (cells or %).
    #[arg(long, value_name = "SIZE", num_args = 0..=1, default_missing_value = "80%", value_parser = popup::PopupSize::parse, conflicts_with_all = ["print", "output"])]
    pub tmux: Option<popup::PopupSize>,

    /// Menu: open this prompt at once, its form filled with the values given
    ///
    /// SERVER/PROMPT, pre-filled with the NAME=VALUE arguments that follow.
    #[arg(value_name = "SERVER/PROMPT", add = ArgValueCompleter::new(candidates::prompt_candidates))]
    pub prompt: Option<String>,

    /// Argument values for SERVER/PROMPT
    ///
    /// NAME=@PATH takes a file's contents, NAME=- standard input (read before the menu
    /// opens), NAME=@@… a value starting with @.
    #[arg(value_name = "NAME=VALUE", requires = "prompt", add = ArgValueCompleter::new(candidates::assignment_candidates))]
    pub assignments: Vec<String>,

    /// With SERVER/PROMPT: one argument's value from a file (may repeat)
    #[arg(long = "arg-file", value_name = "NAME=PATH", requires = "prompt")]
    pub arg_files: Vec<String>,

    /// Ask every server afresh, not the catalog cached by earlier runs
    ///
    /// The catalog is then rewritten.
    #[arg(long)]
    pub refresh: bool,

    /// Menu: mark prompts that differ from this lockfile
    ///
    /// Default: `[lock] file` in the config, else mcpick.lock in the current folder when
    /// there is one (docs/lock.md). A drifted prompt's row says `changed` (or `new`).
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,

    /// Menu: the screen reader mode, linear in the scrollback
    ///
    /// The whole loop as plain lines, no full screen: the menu as a numbered list, one
    /// question per argument, each message read out labelled, the actions numbered. Also
    /// MCPICK_SCREEN_READER=1 or `[ui] screen_reader = true` (docs/accessibility.md).
    #[arg(long, conflicts_with_all = ["tmux", "height"])]
    pub screen_reader: bool,

    /// What to do (none: the full-screen menu).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every prompt and skill (SEP-2640) of every configured server.
    List {
        /// Print one JSON array
        ///
        /// Each entry: kind, server, name, title, description, arguments, and a skill's
        /// manifest.
        #[arg(long)]
        json: bool,
        /// Ask every server afresh, not the catalog cached by earlier runs
        ///
        /// The catalog is then rewritten.
        #[arg(long)]
        refresh: bool,
    },
    /// Fill a prompt, or load a skill (SEP-2640), and print its messages.
    Get {
        /// The prompt or skill, as SERVER/NAME
        ///
        /// Or SERVER:NAME; a bare NAME (or /NAME) works when exactly one enabled server
        /// offers it. A skill is preferred over a prompt of the same name.
        #[arg(add = ArgValueCompleter::new(candidates::prompt_candidates))]
        prompt: String,
        /// Arguments as NAME=VALUE
        ///
        /// Values may hold spaces, newlines and `=`. NAME=@PATH takes a file's contents,
        /// NAME=- standard input (once), NAME=@@… a value starting with @.
        #[arg(value_name = "NAME=VALUE", add = ArgValueCompleter::new(candidates::assignment_candidates))]
        assignments: Vec<String>,
        /// One more argument as NAME=VALUE (may repeat).
        #[arg(long = "arg", value_name = "NAME=VALUE", add = ArgValueCompleter::new(candidates::assignment_candidates))]
        args: Vec<String>,
        /// One argument's value from a file, as NAME=PATH (may repeat).
        #[arg(long = "arg-file", value_name = "NAME=PATH")]
        arg_files: Vec<String>,
        /// Arguments as a JSON object of strings, e.g. '{"city":"New York"}'.
        #[arg(long, value_name = "JSON")]
        args_json: Option<String>,
        /// Output format.
        #[arg(long, default_value = "markdown", value_parser = ["markdown", "text", "mcp-json", "openai", "anthropic"])]
        format: String,
        /// Also put the export on the clipboard (the route is said on stderr).
        #[arg(long)]
        copy: bool,
        /// An answer to a question the server asks while filling the prompt
        ///
        /// As FIELD=VALUE (may repeat): yes/no, numbers, a choice's value, choices joined
        /// by commas. Without a terminal, the server's questions need these.
        #[arg(
            long = "answer",
            value_name = "FIELD=VALUE",
            conflicts_with = "decline"
        )]
        answers: Vec<String>,
        /// Answers to the server's questions as one JSON object, e.g. '{"confirmed":true}'.
        #[arg(long, value_name = "JSON", conflicts_with = "decline")]
        answers_json: Option<String>,
        /// Decline every question the server asks
        ///
        /// The server fills the prompt without the answers, or says why it cannot.
        #[arg(long)]
        decline: bool,
        /// A skill's task: a message sent after its instructions (the same as task=TEXT).
        #[arg(long, value_name = "TEXT")]
        task: Option<String>,
        /// A skill's supporting file to attach (may repeat)
        ///
        /// Embedded as a resource, by its path in the skill (`references/FORMS.md`) or its
        /// URI; verified like SKILL.md.
        #[arg(long = "attach", value_name = "PATH")]
        attach: Vec<String>,
        /// Ask every server afresh, not the catalog cached by earlier runs
        ///
        /// The catalog is then rewritten.
        #[arg(long)]
        refresh: bool,
    },
    /// Ask a server to complete a prompt argument.
    Complete {
        /// The prompt, as SERVER/PROMPT.
        #[arg(add = ArgValueCompleter::new(candidates::prompt_candidates))]
        prompt: String,
        /// The argument to complete.
        #[arg(add = ArgValueCompleter::new(candidates::argument_name_candidates))]
        argument: String,
        /// What has been typed so far.
        #[arg(default_value = "")]
        prefix: String,
        /// Values of the prompt's other arguments, as NAME=VALUE (may repeat).
        #[arg(long = "context", value_name = "NAME=VALUE")]
        context: Vec<String>,
        /// Print JSON: values, total, hasMore.
        #[arg(long)]
        json: bool,
        /// Ask every server afresh, not the catalog cached by earlier runs
        ///
        /// The catalog is then rewritten.
        #[arg(long)]
        refresh: bool,
    },
    /// Show each server's connection state, protocol, identity and capabilities.
    Servers {
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
        /// Ask every server afresh, not the catalog cached by earlier runs
        ///
        /// The catalog is then rewritten.
        #[arg(long)]
        refresh: bool,
    },
    /// Write a lockfile of the servers' prompts and skills (docs/lock.md).
    Lock(lock::LockFlags),
    /// Compare the servers with the lockfile: exit 1 on drift (docs/lock.md)
    ///
    /// A diff per prompt and skill that changed, went or came; exit 2 when a server cannot
    /// be reached or the lockfile cannot be read.
    Check(lock::CheckFlags),
    /// Test a server against the spec, in both protocol eras (for server authors).
    ///
    /// Lists and fills every prompt, checks each answer (names, required arguments,
    /// resultType, ttlMs/cacheScope, content, pagination, list_changed) and says what
    /// each export format loses. Exit 1 on a violation, 2 when it cannot be reached.
    Test {
        /// The server's name in the config.
        #[arg(add = ArgValueCandidates::new(candidates::server_candidates))]
        server: String,
        /// Argument values per prompt: TOML `[PROMPT] ARG = "value"`, or JSON (*.json).
        #[arg(long, value_name = "FILE")]
        args: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Write each filled prompt's messages to DIR/ERA/PROMPT.json.
        #[arg(long, value_name = "DIR")]
        snapshot: Option<PathBuf>,
    },
    /// Serve prompt files as an MCP server (stdio unless --http).
    ///
    /// Files and folders (searched recursively): VS Code `*.prompt.md`, Claude Code
    /// commands (`*.md` under a `commands` folder) and mcpick `*.mcpick.md`. Changes on disk
    /// are picked up and announced to connected clients.
    Serve {
        /// Prompt files or folders (default: the current folder, unless --builtin).
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Serve the prompt library bundled with mcpick (as well as any PATHs).
        #[arg(long)]
        builtin: bool,
        /// Serve Streamable HTTP at http://ADDR/mcp (e.g. 127.0.0.1:8080) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// Allow --http on an address that is not loopback (and skip the Host check).
        #[arg(long, requires = "http")]
        allow_remote: bool,
        /// Ask every HTTP request for this file's token
        ///
        /// `Authorization: Bearer <token>`, the token being the one line in this file
        /// (readable by its owner only). Or set MCPICK_SERVE_TOKEN.
        #[arg(long, value_name = "PATH", requires = "http")]
        auth_token_file: Option<PathBuf>,
        /// With --allow-remote, serve anyone who can reach the address, without a token.
        #[arg(long, requires = "allow_remote", conflicts_with = "auth_token_file")]
        insecure_no_auth: bool,
        /// Serve HTTPS with this PEM certificate chain (with --tls-key).
        #[arg(long, value_name = "PATH", requires_all = ["http", "tls_key"])]
        tls_cert: Option<PathBuf>,
        /// The PEM private key of --tls-cert.
        #[arg(long, value_name = "PATH", requires_all = ["http", "tls_cert"])]
        tls_key: Option<PathBuf>,
        /// Prompts per `prompts/list` page.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..))]
        page_size: u16,
        /// How long clients may keep the lists before asking again (e.g. 30s, 5m)
        ///
        /// The `ttlMs` hint of the lists and the `server/discover` result: e.g. 30s, 5m,
        /// 500ms, or 0 to have them ask every time; at most 365 days. Default: 1m for the
        /// lists when serving files (changes are also announced to clients that listen), 1h
        /// for --builtin alone and for discover.
        #[arg(long, value_name = "DURATION", value_parser = crate::library::parse_ttl)]
        ttl: Option<std::time::Duration>,
        /// Limits of --http.
        #[command(flatten)]
        limits: serve::LimitFlags,
    },
    /// Write a commented starter config file (never overwrites one).
    Init,
    /// Work with the config file.
    Config {
        /// What to do with it.
        #[command(subcommand)]
        action: ConfigCommand,
    },
    /// Show or clear the prompt catalog kept between runs (see docs/catalog.md).
    Cache {
        /// What to do.
        #[command(subcommand)]
        action: CacheCommand,
    },
    /// Sign in to HTTP servers that ask for OAuth, or sign out.
    Auth {
        /// What to do.
        #[command(subcommand)]
        action: AuthCommand,
    },
    /// Print a shell script binding a key that puts a prompt on the command line
    ///
    /// The key is Ctrl-X Ctrl-P unless --key says: `eval "$(mcpick shell-init bash)"`.
    ShellInit {
        /// The shell.
        #[arg(value_parser = INIT_SHELLS)]
        shell: String,
        /// The key to bind, in that shell's notation
        ///
        /// Default: $MCPICK_WIDGET_KEY when the script is evaluated, else Ctrl-X Ctrl-P.
        #[arg(long, value_name = "SEQ")]
        key: Option<String>,
        /// Also set up Tab completion (as `mcpick completions SHELL` does).
        #[arg(long)]
        completions: bool,
    },
    /// Print the shell's Tab completion script
    ///
    /// Subcommands and flags, and the server, prompt and argument names of the catalog
    /// cached by earlier runs, or of the bundled library (no server is started).
    ///
    /// bash: `source <(mcpick completions bash)` in ~/.bashrc; zsh: `source <(mcpick
    /// completions zsh)` after compinit in ~/.zshrc; fish: `mcpick completions fish | source`
    /// in ~/.config/fish/config.fish. Or `mcpick shell-init SHELL --completions`.
    Completions {
        /// The shell.
        #[arg(value_parser = COMPLETION_SHELLS)]
        shell: String,
    },
    /// Print mcpick's man page, or write every page to a folder
    ///
    /// `mcpick man | man -l -` shows it; `mcpick man get` prints the page of `get`;
    /// `mcpick man --dir DIR` writes mcpick.1 and a page for each subcommand
    /// (mcpick-get.1, mcpick-auth-login.1…) into DIR, e.g. a `man1` folder in MANPATH.
    Man {
        /// The subcommand whose page to print (`get`, `auth-login`)
        #[arg(value_name = "SUBCOMMAND", conflicts_with = "dir", add = ArgValueCandidates::new(page_candidates))]
        page: Option<String>,
        /// Write every page into this folder instead (made if missing)
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Check this setup and say what to fix (exit 1 on a problem)
    ///
    /// The config file read and why, each server's transport and what the catalog last
    /// learned of it, mcpick's folders, the clipboard route a copy takes now and why, what
    /// the terminal answers (colours, pictures, background, tmux's passthrough); then each
    /// problem found with its fix. No server is started.
    Doctor {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the client side of the MCP conformance suite against URL (for CI; reads
    /// MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT).
    #[command(hide = true)]
    ConformanceClient {
        /// The test server's URL.
        url: String,
    },
    /// Hold the desktop clipboard (text on stdin) until another program takes it: mcpick
    /// runs itself this way, detached, so a copy outlives it.
    #[command(name = crate::export::clipboard::HOLD_COMMAND, hide = true)]
    ClipboardHold,
}

/// The man pages `mcpick man` prints (`get`, `auth-login`), for Tab.
fn page_candidates() -> Vec<clap_complete::CompletionCandidate> {
    use clap::CommandFactory as _;
    super::man::page_names(Cli::command())
        .into_iter()
        .map(clap_complete::CompletionCandidate::new)
        .collect()
}

/// `mcpick auth` subcommands.
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Sign in to SERVER
    ///
    /// In the browser, or with its machine grant (`oauth.grant`) when it has one; its
    /// tokens are kept in mcpick's data dir, readable by you only.
    Login {
        /// The server's name in the config.
        #[arg(add = ArgValueCandidates::new(candidates::http_server_candidates))]
        server: String,
        /// Print the sign-in URL without opening a browser (for SSH sessions).
        #[arg(long)]
        no_browser: bool,
    },
    /// Delete SERVER's stored tokens.
    Logout {
        /// The server's name in the config.
        #[arg(add = ArgValueCandidates::new(candidates::http_server_candidates))]
        server: String,
    },
    /// How each HTTP server signs in, and its stored token's state
    ///
    /// Its grant and whether it is signed in, without connecting; never the token.
    Status {
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
    },
}

/// `mcpick cache` subcommands.
#[derive(Debug, Subcommand)]
pub enum CacheCommand {
    /// What is cached for each server: its prompts, their age, freshness and scope.
    Show {
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Delete the cached catalog of SERVER, or of every server.
    Clear {
        /// The server's name (default: all of them).
        #[arg(add = ArgValueCandidates::new(candidates::server_candidates))]
        server: Option<String>,
    },
}

/// `mcpick config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Add the MCP servers of another host's config to mcpick's
    ///
    /// Claude Desktop, Claude Code, VS Code, Cursor, Gemini CLI, Zed; without PATH, list
    /// the ones found.
    Import {
        /// The other host's config file (default: list the known places that exist).
        #[arg(value_name = "PATH")]
        path: Option<PathBuf>,
        /// Its format, when the file does not make it clear.
        #[arg(long, value_name = "DIALECT", value_parser = ["claude-desktop", "claude-code", "vscode", "cursor", "gemini", "zed"])]
        from: Option<String>,
        /// Print the [servers.*] tables it would add instead of adding them.
        #[arg(long)]
        dry_run: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory as _;

    /// `command` and every subcommand under it, with their paths.
    fn all(command: &clap::Command, path: String, out: &mut Vec<(String, clap::Command)>) {
        out.push((path.clone(), command.clone()));
        for sub in command.get_subcommands() {
            all(sub, format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn each_first_help_line_is_short_and_the_rest_is_long_help() {
        const MOST: usize = 80;
        let mut commands = Vec::new();
        all(&Cli::command(), "mcpick".into(), &mut commands);
        let mut long = Vec::new();
        for (path, command) in &commands {
            if command.is_hide_set() {
                continue;
            }
            if let Some(about) = command.get_about() {
                let about = about.to_string();
                if about.chars().count() > MOST || about.contains('\n') {
                    long.push(format!(
                        "`{path}`'s first help line is {} characters: {about}",
                        about.chars().count()
                    ));
                }
            }
            for arg in command.get_arguments() {
                let Some(help) = arg.get_help().filter(|_| !arg.is_hide_set()) else {
                    continue;
                };
                let help = help.to_string();
                if help.chars().count() > MOST || help.contains('\n') {
                    long.push(format!(
                        "`{path}` {}'s first help line is {} characters: {help}",
                        arg.get_id(),
                        help.chars().count()
                    ));
                }
            }
        }
        assert!(long.is_empty(), "{}", long.join("\n"));
    }
}
