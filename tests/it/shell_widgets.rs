//! The shell widgets of `mcpick shell-init` end to end: real bash, zsh and fish started
//! interactively in a pseudo-terminal with a clean rc that evaluates the printed script; the
//! key opens mcpick over the bundled library, and the accepted export lands on the command
//! line, quoted so that running the line passes it byte-exact as one argument.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::common::pty::*;
use crate::common::*;
use portable_pty::CommandBuilder;

/// Ctrl-X Ctrl-P, the default binding.
const KEY: &str = "\x18\x10";
/// Ctrl-J: a new line inside a form field.
const NEWLINE: &str = "\n";
/// The cursor one cell left.
const LEFT: &str = "\x1b[D";

/// A value with everything a shell could mangle: both quotes, `$`, a backslash, backticks,
/// a non-ASCII letter and a line break.
const TRICKY_FIRST: &str = r#"it's "q" $HOME \ `date` é"#;
const TRICKY_SECOND: &str = "line two";

/// Writes its second argument, byte for byte, to the file named by its first.
const WRITE_ARGV: &str =
    r#"python3 -c 'import os,sys;open(sys.argv[1],"wb").write(os.fsencode(sys.argv[2]))' out.txt "#;

/// The shells this file drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
        }
    }
}

/// An interactive shell in a PTY whose rc evaluates `mcpick shell-init`, over a sandbox whose
/// config serves the bundled library as `builtin`.
struct Session {
    tui: Tui,
    sandbox: Sandbox,
}

impl Session {
    /// Starts `shell` (failing the test when it is not installed; see `system_tool`).
    /// `widget_opts` becomes MCPICK_WIDGET_OPTS. zsh runs without MCPICK_BIN, so the binary
    /// path `shell-init` writes for a build outside PATH is exercised too.
    fn start(shell: Shell, widget_opts: Option<&str>) -> Session {
        let program = match shell {
            Shell::Bash => PathBuf::from("bash"),
            other => system_tool(other.name()),
        };
        let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
        let dir = sandbox.dir.path();
        let mcpick = env!("CARGO_BIN_EXE_mcpick");
        let init = std::process::Command::new(mcpick)
            .args(["shell-init", shell.name()])
            .output()
            .expect("run mcpick shell-init");
        let script = success(&init);
        std::fs::write(dir.join("init.sh"), &script).expect("write the init script");

        let config = quoted(&sandbox.config().to_string_lossy());
        let init_path = quoted(&dir.join("init.sh").to_string_lossy());
        let opts = widget_opts.map(quoted);
        let mut command = CommandBuilder::new(&program);
        match shell {
            Shell::Bash => {
                let mut rc = format!(
                    "PS1='$ '\nexport MCPICK_CONFIG={config}\nexport MCPICK_BIN={}\n",
                    quoted(mcpick)
                );
                if let Some(opts) = &opts {
                    rc.push_str(&format!("export MCPICK_WIDGET_OPTS={opts}\n"));
                }
                rc.push_str(&format!("eval \"$(cat {init_path})\"\n"));
                std::fs::write(dir.join("bashrc"), rc).expect("write bashrc");
                command.args(["--noprofile", "--rcfile"]);
                command.arg(dir.join("bashrc"));
                command.arg("-i");
            }
            Shell::Zsh => {
                let zdotdir = dir.join("zdotdir");
                std::fs::create_dir_all(&zdotdir).unwrap();
                // No /etc/zsh/zshrc and the like: only this test's rc.
                std::fs::write(zdotdir.join(".zshenv"), "unsetopt GLOBAL_RCS\n").unwrap();
                let mut rc = format!("PS1='$ '\nexport MCPICK_CONFIG={config}\nunset MCPICK_BIN\n");
                if let Some(opts) = &opts {
                    rc.push_str(&format!("export MCPICK_WIDGET_OPTS={opts}\n"));
                }
                rc.push_str(&format!("eval \"$(cat {init_path})\"\n"));
                std::fs::write(zdotdir.join(".zshrc"), rc).unwrap();
                command.env("ZDOTDIR", &zdotdir);
                command.arg("-i");
            }
            Shell::Fish => {
                // Where a user puts `mcpick shell-init fish | source`: config.fish.
                let fish_dir = dir.join("xdg-config/fish");
                std::fs::create_dir_all(&fish_dir).unwrap();
                let mut rc = format!(
                    "set -g fish_greeting ''\nfunction fish_prompt; echo -n '$ '; end\n\
                     set -gx MCPICK_CONFIG {config}\nset -gx MCPICK_BIN {}\n",
                    quoted(mcpick)
                );
                if let Some(opts) = &opts {
                    rc.push_str(&format!("set -gx MCPICK_WIDGET_OPTS {opts}\n"));
                }
                rc.push_str(&format!("source {init_path}\n"));
                std::fs::write(fish_dir.join("config.fish"), rc).unwrap();
                command.arg("-i");
            }
        }
        command.env("LANG", "C.UTF-8");
        command.env_remove("LC_ALL");
        for name in [
            "MCPICK_BIN",
            "MCPICK_WIDGET_KEY",
            "MCPICK_WIDGET_OPTS",
            "HISTFILE",
        ] {
            command.env_remove(name);
        }
        let mut tui = Tui::spawn(&sandbox, command);
        tui.wait_for("$ ", STEP);
        Session { tui, sandbox }
    }

    /// Presses the key and waits for mcpick's menu over the bundled library.
    fn open_mcpick(&mut self) {
        self.tui.send(KEY);
        self.tui.wait_for("● builtin", SERVER_START);
    }

    /// The file the line wrote, waiting for it to appear.
    fn written(&mut self) -> Vec<u8> {
        let path = self.sandbox.dir.path().join("out.txt");
        let deadline = Instant::now() + STEP;
        loop {
            // The shell creates it before python writes it: wait for python to be done.
            if let Ok(bytes) = std::fs::read(&path)
                && !bytes.is_empty()
            {
                return bytes;
            }
            if Instant::now() >= deadline {
                panic!(
                    "the line did not write out.txt; the screen:\n{}",
                    self.tui.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// `text` as one word for all three shells: single quotes hold everything but `'` itself
/// and, in fish, `\`; the paths and options here have neither.
fn quoted(text: &str) -> String {
    assert!(
        !text.contains('\'') && !text.contains('\\'),
        "test value needs more quoting: {text}"
    );
    format!("'{text}'")
}

/// What `mcpick get builtin/translate` prints as text for the tricky value, trailing
/// newlines dropped as the widget drops them.
fn expected_export(sandbox: &Sandbox) -> Vec<u8> {
    let text = format!("{TRICKY_FIRST}\n{TRICKY_SECOND}");
    let output = sandbox.mcpick(&[
        "get",
        "builtin/translate",
        &format!("text={text}"),
        "to=English",
        "--format",
        "text",
    ]);
    let mut bytes = success(&output).into_bytes();
    while bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    assert!(
        String::from_utf8_lossy(&bytes).contains(TRICKY_FIRST),
        "the export does not hold the value"
    );
    bytes
}

/// From mcpick's menu: fills builtin/translate with the tricky text and English, up to the
/// review screen, and accepts.
fn fill_translate_and_accept(tui: &mut Tui) {
    open_prompt(tui, "/builtin:translate", "/builtin:translate");
    tui.wait_for("Text", STEP);
    tui.send(TRICKY_FIRST);
    tui.send(NEWLINE);
    tui.send(TRICKY_SECOND);
    tui.wait_for(TRICKY_SECOND, STEP);
    tui.send(TAB);
    tui.send("English");
    tui.wait_for("│English", STEP);
    tui.send(CTRL_S);
    tui.wait_for("#1 user · text", STEP);
    tui.send(ENTER);
}

/// `WRITE_ARGV` and ` tail`, the cursor moved back before ` tail`, ⟨key⟩, pick and accept,
/// ` ignored`, Enter: the prompt went in at the cursor, the cursor ended right after it
/// (` ignored` is a word of its own, between it and ` tail`), and the file holds exactly the
/// export.
fn accepted_prompt_lands_quoted_at_the_cursor(shell: Shell, widget_opts: Option<&str>) {
    let mut session = Session::start(shell, widget_opts);
    session.tui.send(WRITE_ARGV);
    session.tui.send(" tail");
    session.tui.wait_for("out.txt  tail", STEP);
    for _ in 0..5 {
        session.tui.send(LEFT);
    }
    session.open_mcpick();
    // Inline, zsh's command line stays visible above the menu. (bash clears its own line
    // while a `bind -x` command runs, and draws it again afterwards.)
    if widget_opts.is_some_and(|o| o.contains("--height")) && shell == Shell::Zsh {
        let screen = session.tui.screen();
        assert!(
            screen.contains("out.txt  tail"),
            "{shell:?}: the inline menu hid the command line:\n{screen}"
        );
    }
    fill_translate_and_accept(&mut session.tui);
    // Back on the shell's line, the prompt inserted where the cursor was.
    let inserted = format!("{TRICKY_SECOND}' tail");
    session
        .tui
        .wait_until("the export on the line", STEP, |screen| {
            screen.contains("out.txt 'Translate the text") && screen.contains(&inserted)
        });
    session.tui.send(" ignored");
    session
        .tui
        .wait_for(&format!("{TRICKY_SECOND}' ignored tail"), STEP);
    session.tui.send(ENTER);
    let written = session.written();
    let expected = expected_export(&session.sandbox);
    assert_eq!(
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&expected),
        "{shell:?}: the argument is not the export"
    );
    assert_eq!(written, expected, "{shell:?}: not byte-exact");
}

/// `echo kept`, the cursor two cells left, ⟨key⟩, leave mcpick with `leave`: the line and the
/// cursor are as they were (an X typed then lands inside the word).
fn leaving_mcpick_keeps_the_line(shell: Shell, widget_opts: Option<&str>, leave: &str) {
    let mut session = Session::start(shell, widget_opts);
    session.tui.send("echo kept");
    session.tui.wait_for("$ echo kept", STEP);
    session.tui.send(LEFT);
    session.tui.send(LEFT);
    if widget_opts.is_some() {
        // A bad option: mcpick exits 2 at once, before any menu.
        session.tui.send(KEY);
        session.tui.wait_for("invalid value", STEP);
    } else {
        session.open_mcpick();
        session.tui.send(leave);
        std::thread::sleep(AFTER_ESC);
    }
    session.tui.send("X");
    session.tui.send(ENTER);
    let screen = session.tui.wait_until("the line's output", STEP, |screen| {
        screen.lines().any(|line| line.trim_end() == "keXpt")
    });
    assert!(
        !screen.contains("'Translate the text"),
        "{shell:?}: something was inserted:\n{screen}"
    );
}

#[test]
fn bash_inserts_the_accepted_prompt_as_one_quoted_argument() {
    accepted_prompt_lands_quoted_at_the_cursor(Shell::Bash, None);
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_inserts_the_accepted_prompt_as_one_quoted_argument() {
    accepted_prompt_lands_quoted_at_the_cursor(Shell::Zsh, None);
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_inserts_the_accepted_prompt_as_one_quoted_argument() {
    accepted_prompt_lands_quoted_at_the_cursor(Shell::Fish, None);
}

#[test]
fn bash_cancel_with_ctrl_c_leaves_the_line_and_the_cursor() {
    leaving_mcpick_keeps_the_line(Shell::Bash, None, CTRL_C);
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_cancel_with_esc_leaves_the_line_and_the_cursor() {
    leaving_mcpick_keeps_the_line(Shell::Zsh, None, ESC);
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_cancel_with_ctrl_c_leaves_the_line_and_the_cursor() {
    leaving_mcpick_keeps_the_line(Shell::Fish, None, CTRL_C);
}

#[test]
fn bash_an_mcpick_error_leaves_the_line_and_widget_opts_reach_mcpick() {
    leaving_mcpick_keeps_the_line(Shell::Bash, Some("--format nope"), "");
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_an_mcpick_error_leaves_the_line_and_widget_opts_reach_mcpick() {
    leaving_mcpick_keeps_the_line(Shell::Zsh, Some("--format nope"), "");
}

#[cfg_attr(
    mcpick_missing_fish,
    ignore = "`fish` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn fish_widget_opts_change_the_format() {
    // MCP JSON still holds the text (JSON-escaped, beside its role) and the quoting holds.
    let mut session = Session::start(Shell::Fish, Some("--format mcp-json"));
    session.tui.send(WRITE_ARGV);
    session.tui.wait_for("out.txt", STEP);
    session.open_mcpick();
    fill_translate_and_accept(&mut session.tui);
    session.tui.wait_for("]'", STEP);
    session.tui.send(ENTER);
    let written = String::from_utf8_lossy(&session.written()).into_owned();
    assert!(
        written.contains("\"role\": \"user\""),
        "not MCP JSON: {written}"
    );
    let escaped = serde_json::to_string(&format!("{TRICKY_FIRST}\n{TRICKY_SECOND}")).unwrap();
    assert!(written.contains(escaped.trim_matches('"')), "{written}");
}

#[test]
fn shell_init_of_an_unknown_shell_is_a_usage_error_naming_the_three() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["shell-init", "nope"])
        .output()
        .expect("run mcpick");
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    for shell in ["bash", "zsh", "fish"] {
        assert!(message.contains(shell), "{message}");
    }
    assert!(output.stdout.is_empty());
}

#[test]
fn bash_with_an_inline_menu_inserts_the_prompt() {
    // `--height`: the menu draws in the rows below, and the line comes back with the prompt.
    accepted_prompt_lands_quoted_at_the_cursor(Shell::Bash, Some("--height 15"));
}

#[cfg_attr(
    mcpick_missing_zsh,
    ignore = "`zsh` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn zsh_with_an_inline_menu_inserts_the_prompt_and_keeps_the_line_above() {
    accepted_prompt_lands_quoted_at_the_cursor(Shell::Zsh, Some("--height 15"));
}

#[test]
fn bash_widget_opts_are_split_as_words_but_never_globbed() {
    // `c*` would match config.toml in the folder the shell runs in.
    let mut session = Session::start(Shell::Bash, Some("-q c*"));
    session.open_mcpick();
    let screen = session.tui.wait_for("❯ c*", STEP);
    assert!(!screen.contains("config.toml"), "{screen}");
    session.tui.send(CTRL_C);
}
