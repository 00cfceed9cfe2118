//! Tab completion end to end: real bash, zsh and fish started interactively in a
//! pseudo-terminal, their rc sourcing `mcpick completions SHELL` (or `shell-init SHELL
//! --completions`); Tab on a typed line completes subcommands, `SERVER/PROMPT` and argument
//! names from the catalog an earlier run cached, and no server starts while completing.

use std::path::PathBuf;

use crate::common::pty::*;
use crate::common::*;
use portable_pty::CommandBuilder;

/// A config whose one server, `lib`, serves the bundled library and notes each start in
/// `starts.txt`, so a test can tell whether completing started it.
fn counting_sandbox() -> Sandbox {
    let sandbox = Sandbox::new("");
    let starts = sandbox.dir.path().join("starts.txt");
    let script = format!(
        "echo started >> {}; exec {} serve --builtin",
        sh_quote(starts.to_string_lossy()),
        sh_quote(env!("CARGO_BIN_EXE_mcpick"))
    );
    std::fs::write(
        sandbox.config(),
        format!(
            "[servers.lib]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
            toml_str(script)
        ),
    )
    .unwrap();
    // An earlier run lists the prompts: that is what fills the catalog cache.
    success(&sandbox.mcpick(&["list"]));
    assert!(starts.exists(), "`mcpick list` did not start the server");
    std::fs::remove_file(&starts).unwrap();
    sandbox
}

/// How the rc sets completion up.
#[derive(Clone, Copy)]
enum Route {
    /// `mcpick completions SHELL`, sourced.
    Completions,
    /// `mcpick shell-init SHELL --completions`, evaluated (with the widget).
    ShellInit,
}

/// What the shell's rc sets up besides completion.
struct Setup {
    /// The mcpick that writes the completion script (run by this path).
    program: PathBuf,
    /// Whether MCPICK_CONFIG names the sandbox's config (else there is no config file).
    config: bool,
    /// PATH for the shell, when it must not be the test's own.
    path: Option<String>,
}

impl Setup {
    /// The test's binary, the sandbox's config, the test's PATH.
    fn usual() -> Setup {
        Setup {
            program: PathBuf::from(env!("CARGO_BIN_EXE_mcpick")),
            config: true,
            path: None,
        }
    }
}

/// An interactive `shell` in a PTY over `sandbox`, its rc setting completion up by `route`.
fn start(shell: &str, sandbox: &Sandbox, route: Route) -> Tui {
    start_with(shell, sandbox, route, Setup::usual())
}

/// [`start`] with the rc as `setup` says.
fn start_with(shell: &str, sandbox: &Sandbox, route: Route, setup: Setup) -> Tui {
    let program = if shell == "bash" {
        PathBuf::from("bash")
    } else {
        system_tool(shell)
    };
    let dir = sandbox.dir.path();
    let args: Vec<&str> = match route {
        Route::Completions => vec!["completions", shell],
        Route::ShellInit => vec!["shell-init", shell, "--completions"],
    };
    let script = success(
        &std::process::Command::new(&setup.program)
            .args(&args)
            .output()
            .expect("run mcpick"),
    );
    let script_path = dir.join("completion.sh");
    std::fs::write(&script_path, script).unwrap();
    let config = sh_quote(sandbox.config().to_string_lossy());
    let script_path = sh_quote(script_path.to_string_lossy());
    let (config_line, path_line) = match shell {
        "fish" => (
            format!("set -gx MCPICK_CONFIG {config}\n"),
            setup.path.as_ref().map(|path| {
                let dirs: Vec<String> = path.split(':').map(sh_quote).collect();
                format!("set -gx PATH {}\n", dirs.join(" "))
            }),
        ),
        _ => (
            format!("export MCPICK_CONFIG={config}\n"),
            setup
                .path
                .as_ref()
                .map(|path| format!("export PATH={}\n", sh_quote(path))),
        ),
    };
    let env_lines = format!(
        "{}{}",
        if setup.config { &config_line } else { "" },
        path_line.unwrap_or_default()
    );
    let mut command = CommandBuilder::new(&program);
    match shell {
        "bash" => {
            let rc = format!("PS1='$ '\n{env_lines}source {script_path}\n");
            std::fs::write(dir.join("bashrc"), rc).unwrap();
            command.args(["--noprofile", "--rcfile"]);
            command.arg(dir.join("bashrc"));
            command.arg("-i");
        }
        "zsh" => {
            let zdotdir = dir.join("zdotdir");
            std::fs::create_dir_all(&zdotdir).unwrap();
            std::fs::write(zdotdir.join(".zshenv"), "unsetopt GLOBAL_RCS\n").unwrap();
            let rc = format!(
                "PS1='$ '\n{env_lines}autoload -Uz compinit && compinit -u -D\nsource {script_path}\n"
            );
            std::fs::write(zdotdir.join(".zshrc"), rc).unwrap();
            command.env("ZDOTDIR", &zdotdir);
            command.arg("-i");
        }
        _ => {
            let fish_dir = dir.join("xdg-config/fish");
            std::fs::create_dir_all(&fish_dir).unwrap();
            let rc = format!(
                "set -g fish_greeting ''\nfunction fish_prompt; echo -n '$ '; end\n\
                 {env_lines}source {script_path}\n"
            );
            std::fs::write(fish_dir.join("config.fish"), rc).unwrap();
            command.arg("-i");
        }
    }
    command.env("LANG", "C.UTF-8");
    command.env_remove("LC_ALL");
    command.env_remove("HISTFILE");
    let mut tui = Tui::spawn(sandbox, command);
    tui.wait_for("$ ", STEP);
    tui
}

/// Types `typed`, presses Tab, and waits for the line to read `expected`.
fn tab(tui: &mut Tui, typed: &str, expected: &str) {
    tui.send(typed);
    tui.send("\t");
    let line = format!("$ {expected}");
    tui.wait_until(&format!("the line to read {line:?}"), STEP, |screen| {
        screen.lines().any(|row| row.trim_end() == line)
    });
}

fn completes_from_the_cached_catalog(shell: &str, route: Route) {
    let sandbox = counting_sandbox();
    let mut tui = start(shell, &sandbox, route);
    // A subcommand, from the command line's definition.
    tab(&mut tui, "mcpick shell-i", "mcpick shell-init");
    tui.send("\x15"); // Ctrl-U: a fresh line
    // A prompt from the cached catalog, then its argument names, those given left out.
    tab(&mut tui, "mcpick lib/transl", "mcpick lib/translate");
    tab(&mut tui, "te", "mcpick lib/translate text=");
    tab(&mut tui, "hi ton", "mcpick lib/translate text=hi tone=");
    tui.send("\x15");
    // `get` reads the same names.
    tab(&mut tui, "mcpick get lib/summ", "mcpick get lib/summarize");
    tui.send("\x15");
    assert!(
        !sandbox.dir.path().join("starts.txt").exists(),
        "completing started the server"
    );
}

#[test]
fn bash_completes_prompts_and_arguments_from_the_cache_without_starting_a_server() {
    completes_from_the_cached_catalog("bash", Route::Completions);
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_completes_prompts_and_arguments_from_shell_init() {
    completes_from_the_cached_catalog("zsh", Route::ShellInit);
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_completes_prompts_and_arguments_from_the_cache() {
    completes_from_the_cached_catalog("fish", Route::Completions);
}

/// A sandbox with `lib` (the bundled library, listed once so the catalog holds it) and
/// `remote`, an HTTP server nothing listens on.
fn lib_and_remote() -> Sandbox {
    let sandbox = counting_sandbox();
    let config = std::fs::read_to_string(sandbox.config()).unwrap();
    std::fs::write(
        sandbox.config(),
        format!("{config}\n[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\n"),
    )
    .unwrap();
    sandbox
}

fn after_a_prompt_offers_its_argument_names(shell: &str) {
    let sandbox = lib_and_remote();
    let mut tui = start(shell, &sandbox, Route::Completions);
    // Not the subcommands `complete`, `completions`, `config` and `cache`, which also start
    // with `co`.
    tab(
        &mut tui,
        "mcpick lib/explain-error co",
        "mcpick lib/explain-error code=",
    );
}

fn completes_a_bare_prompt_name(shell: &str) {
    let sandbox = lib_and_remote();
    let mut tui = start(shell, &sandbox, Route::Completions);
    // As `get` reads it when one server offers it; then its arguments.
    tab(&mut tui, "mcpick get transl", "mcpick get translate");
    tab(&mut tui, "te", "mcpick get translate text=");
}

fn auth_login_offers_http_servers_only(shell: &str) {
    let sandbox = lib_and_remote();
    let mut tui = start(shell, &sandbox, Route::Completions);
    tab(&mut tui, "mcpick auth login ", "mcpick auth login remote");
}

/// `lock` takes what `get` takes (a prompt, then an example's argument names); `test` and
/// `check` are not completed from prompts (`test` takes a server).
#[test]
fn bash_completes_lock_targets_and_test_servers() {
    let sandbox = lib_and_remote();
    let mut tui = start("bash", &sandbox, Route::Completions);
    tab(
        &mut tui,
        "mcpick lock lib/transl",
        "mcpick lock lib/translate",
    );
    tab(&mut tui, "te", "mcpick lock lib/translate text=");
    tui.send("\x15");
    tab(&mut tui, "mcpick test l", "mcpick test lib");
}

#[test]
fn bash_after_a_prompt_offers_its_argument_names() {
    after_a_prompt_offers_its_argument_names("bash");
}

#[test]
fn bash_completes_a_bare_prompt_name() {
    completes_a_bare_prompt_name("bash");
}

#[test]
fn bash_auth_login_offers_http_servers_only() {
    auth_login_offers_http_servers_only("bash");
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_after_a_prompt_offers_its_argument_names() {
    after_a_prompt_offers_its_argument_names("zsh");
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_completes_a_bare_prompt_name() {
    completes_a_bare_prompt_name("zsh");
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_auth_login_offers_http_servers_only() {
    auth_login_offers_http_servers_only("zsh");
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_after_a_prompt_offers_its_argument_names() {
    after_a_prompt_offers_its_argument_names("fish");
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_completes_a_bare_prompt_name() {
    completes_a_bare_prompt_name("fish");
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_auth_login_offers_http_servers_only() {
    auth_login_offers_http_servers_only("fish");
}

fn offers_the_bundled_library_before_any_run(shell: &str) {
    // No config file and nothing cached: the bundled library is `builtin`.
    let sandbox = Sandbox::new("");
    let setup = Setup {
        config: false,
        ..Setup::usual()
    };
    let mut tui = start_with(shell, &sandbox, Route::Completions, setup);
    tab(
        &mut tui,
        "mcpick builtin/transl",
        "mcpick builtin/translate",
    );
    tab(&mut tui, "te", "mcpick builtin/translate text=");
    tui.send("\x15");
    assert!(
        !sandbox.dir.path().join("xdg-cache/mcpick").exists(),
        "completing wrote a catalog"
    );
}

#[test]
fn bash_offers_the_bundled_library_before_any_run() {
    offers_the_bundled_library_before_any_run("bash");
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_offers_the_bundled_library_before_any_run() {
    offers_the_bundled_library_before_any_run("zsh");
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_offers_the_bundled_library_before_any_run() {
    offers_the_bundled_library_before_any_run("fish");
}

/// The message a script whose mcpick has moved prints, once.
const MOVED: &str = "mcpick completions: no mcpick at";

fn a_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path(shell: &str) {
    let sandbox = Sandbox::new(&mcpick_serve("lib", &["--builtin"]));
    let dir = sandbox.dir.path();
    // The script is made by an mcpick that then goes away (a rebuilt or moved binary).
    let old = dir.join("old-bin");
    std::fs::create_dir_all(&old).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mcpick"), old.join("mcpick")).unwrap();
    let setup = Setup {
        program: old.join("mcpick"),
        path: Some("/usr/bin:/bin".into()),
        ..Setup::usual()
    };
    let mut tui = start_with(shell, &sandbox, Route::Completions, setup);
    std::fs::remove_file(old.join("mcpick")).unwrap();
    tui.send("mcpick shell-i\t");
    let screen = tui.wait_for(MOVED, STEP);
    assert!(
        screen.contains(&format!("mcpick completions {shell}")),
        "it says how to make the script again:\n{screen}"
    );
    tui.send("\t");
    tui.send("\t");
    // A moment for anything a further Tab would print.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let screen = tui.screen();
    assert_eq!(screen.matches(MOVED).count(), 1, "said once:\n{screen}");
    assert!(!screen.contains("No such file"), "{screen}");
    drop(tui);

    // With an mcpick on PATH, that one answers.
    let new = dir.join("new-bin");
    std::fs::create_dir_all(&new).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mcpick"), new.join("mcpick")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mcpick"), old.join("mcpick")).unwrap();
    let setup = Setup {
        program: old.join("mcpick"),
        path: Some(format!("{}:/usr/bin:/bin", new.display())),
        ..Setup::usual()
    };
    let mut tui = start_with(shell, &sandbox, Route::Completions, setup);
    std::fs::remove_file(old.join("mcpick")).unwrap();
    tab(&mut tui, "mcpick shell-i", "mcpick shell-init");
    assert!(!tui.screen().contains(MOVED), "{}", tui.screen());
}

#[test]
fn bash_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path() {
    a_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path("bash");
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path() {
    a_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path("zsh");
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path() {
    a_script_whose_mcpick_moved_says_so_once_or_finds_it_on_path("fish");
}
