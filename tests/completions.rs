//! Tab completion end to end: real bash, zsh and fish started interactively in a
//! pseudo-terminal, their rc sourcing `mcpick completions SHELL` (or `shell-init SHELL
//! --completions`); Tab on a typed line completes subcommands, `SERVER/PROMPT` and argument
//! names from the catalog an earlier run cached, and no server starts while completing.

mod common;

use std::path::PathBuf;

use common::pty::*;
use common::*;
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

/// An interactive `shell` in a PTY over `sandbox`, its rc setting completion up by `route`.
fn start(shell: &str, sandbox: &Sandbox, route: Route) -> Tui {
    let program = if shell == "bash" {
        PathBuf::from("bash")
    } else {
        system_tool(shell)
    };
    let dir = sandbox.dir.path();
    let mcpick = env!("CARGO_BIN_EXE_mcpick");
    let args: Vec<&str> = match route {
        Route::Completions => vec!["completions", shell],
        Route::ShellInit => vec!["shell-init", shell, "--completions"],
    };
    let script = success(
        &std::process::Command::new(mcpick)
            .args(&args)
            .output()
            .expect("run mcpick"),
    );
    let script_path = dir.join("completion.sh");
    std::fs::write(&script_path, script).unwrap();
    let config = sh_quote(sandbox.config().to_string_lossy());
    let script_path = sh_quote(script_path.to_string_lossy());
    let mut command = CommandBuilder::new(&program);
    match shell {
        "bash" => {
            let rc = format!("PS1='$ '\nexport MCPICK_CONFIG={config}\nsource {script_path}\n");
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
                "PS1='$ '\nexport MCPICK_CONFIG={config}\nautoload -Uz compinit && compinit -u -D\nsource {script_path}\n"
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
                 set -gx MCPICK_CONFIG {config}\nsource {script_path}\n"
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
