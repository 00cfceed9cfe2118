//! How the menu starts and ends, as fzf's: `-q`, `--select-1`, `--exit-0`, a prompt named on
//! the command line (`--no-form`), the exit codes, and inline `--height` mode, each run as
//! the real binary in a pseudo-terminal against the bundled library (`mcpick serve
//! --builtin`).

use crate::common::pty::{
    CTRL_C, ENTER, SERVER_START, STEP, Tui, after_leaving_alternate_screen, read, strip_csi,
};
use crate::common::{Sandbox, mcpick_serve, stderr, stdout, success};
use portable_pty::CommandBuilder;

fn builtin() -> Sandbox {
    Sandbox::new(&mcpick_serve("builtin", &["--builtin"]))
}

/// What `mcpick get` prints for the same prompt and arguments.
fn expected_export(sandbox: &Sandbox, args: &[&str]) -> String {
    let mut all = vec!["get"];
    all.extend_from_slice(args);
    success(&sandbox.mcpick(&all))
}

#[test]
fn a_query_with_select_1_opens_the_only_match_at_once() {
    let sandbox = builtin();
    let mut tui = Tui::start(&sandbox, &["-q", "translate", "--select-1"]);
    // Straight to the form: no key was pressed.
    let screen = tui.wait_for("Translate  /builtin:translate", SERVER_START);
    assert!(screen.contains("Text * (text)"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(
        tui.wait_exit(STEP),
        130,
        "leaving without a result is a cancel"
    );
}

#[test]
fn select_1_on_a_fresh_catalog_opens_the_form_before_the_server_is_up() {
    // The bundled library listed once with a ttlMs of an hour; from then on the server takes
    // a minute to start (its gate file exists), longer than this test waits.
    let dir = tempfile::tempdir().expect("temp dir");
    let gate = dir.path().join("slow");
    let script = format!(
        "if [ -e {} ]; then sleep 60; fi; exec {} serve --builtin --ttl 1h",
        crate::common::sh_quote(gate.display().to_string()),
        crate::common::sh_quote(env!("CARGO_BIN_EXE_mcpick")),
    );
    let sandbox = Sandbox::new(&format!(
        "[servers.builtin]\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        crate::common::toml_str(&script)
    ));
    success(&sandbox.mcpick(&["list"]));
    std::fs::write(&gate, "").expect("gate");
    let mut tui = Tui::start(&sandbox, &["-q", "translate", "--select-1"]);
    let screen = tui.wait_for("Translate  /builtin:translate", STEP);
    assert!(screen.contains("Text * (text)"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn select_1_with_several_matches_stays_in_the_menu_with_the_query_typed() {
    let sandbox = builtin();
    let mut tui = Tui::start(&sandbox, &["--query", "write", "--select-1"]);
    let screen = tui.wait_for("● builtin", SERVER_START);
    assert!(screen.contains("❯ write"), "{screen}");
    assert!(
        screen.contains("Write a commit message") && screen.contains("Write tests"),
        "{screen}"
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn exit_0_ends_with_status_1_when_nothing_matches() {
    let sandbox = builtin();
    let mut tui = Tui::start(&sandbox, &["-q", "zzzqqqxxx", "--exit-0"]);
    assert_eq!(tui.wait_exit(SERVER_START), 1);
}

#[test]
fn exit_0_with_matches_keeps_the_menu_open() {
    let sandbox = builtin();
    let mut tui = Tui::start(&sandbox, &["-q", "translate", "--exit-0"]);
    let screen = tui.wait_for("● builtin", SERVER_START);
    assert!(screen.contains("1/9 prompts"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn a_named_prompt_opens_its_form_filled_with_the_given_values() {
    let sandbox = builtin();
    let mut tui = Tui::start(
        &sandbox,
        &["builtin/translate", "text=Bonjour à tous", "to=English"],
    );
    let screen = tui.wait_for("Translate  /builtin:translate", SERVER_START);
    assert!(screen.contains("│Bonjour à tous"), "{screen}");
    assert!(screen.contains("│English"), "{screen}");
    // The form is there to change them: Enter walks on, the last Enter fetches.
    tui.send(ENTER);
    tui.send(ENTER);
    tui.send(ENTER);
    tui.wait_for("1 message", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn no_form_with_every_required_value_goes_straight_to_the_review() {
    let sandbox = builtin();
    let args = ["builtin/translate", "text=Bonjour", "to=English"];
    let mut all = vec!["--print", "--no-form"];
    all.extend_from_slice(&args);
    let mut tui = Tui::start(&sandbox, &all);
    let screen = tui.wait_for("1 message", SERVER_START);
    assert!(screen.contains("Bonjour"), "{screen}");
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0);
    let printed = after_leaving_alternate_screen(&tui.raw());
    assert_eq!(printed, expected_export(&sandbox, &args));
}

#[test]
fn no_form_with_a_required_value_missing_opens_the_form_on_it() {
    let sandbox = builtin();
    let mut tui = Tui::start(
        &sandbox,
        &["--no-form", "builtin/translate", "text=Bonjour"],
    );
    let screen = tui.wait_for("Translate  /builtin:translate", SERVER_START);
    assert!(screen.contains("│Bonjour"), "{screen}");
    // The cursor waits in the empty required field: typing fills it.
    tui.send("German");
    tui.wait_for("│German", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn a_prompt_that_is_not_there_is_searched_for_in_the_menu_with_a_notice() {
    let sandbox = builtin();
    let mut tui = Tui::start(&sandbox, &["builtin/translat"]);
    let screen = tui.wait_for("has no prompt", SERVER_START);
    assert!(screen.contains("builtin has no prompt `translat` (did you mean translate?)"));
    assert!(screen.contains("❯ /builtin:translat"), "{screen}");
    assert!(screen.contains("Translate"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn an_unknown_server_or_a_bad_value_is_an_error_with_status_2() {
    let sandbox = builtin();
    let mut tui = Tui::start(&sandbox, &["builtn/translate"]);
    assert_eq!(tui.wait_exit(STEP), 2);
    let said = strip_csi(&String::from_utf8_lossy(&tui.raw()));
    assert!(
        said.contains("no server `builtn` in the config (did you mean `builtin`?)"),
        "{said}"
    );
    let mut tui = Tui::start(&sandbox, &["builtin/translate", "text"]);
    assert_eq!(tui.wait_exit(STEP), 2);
    let said = String::from_utf8_lossy(&tui.raw()).into_owned();
    assert!(said.contains("is not NAME=VALUE"), "{said}");
    let mut tui = Tui::start(&sandbox, &["--height", "0"]);
    assert_eq!(tui.wait_exit(STEP), 2);
    // Values without the prompt they are for.
    let out = sandbox.mcpick(&["text=Bonjour"]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        said.contains("name the prompt first: mcpick SERVER/PROMPT text=Bonjour"),
        "{said}"
    );
}

#[test]
fn an_argument_the_prompt_does_not_take_is_named_in_the_form() {
    let sandbox = builtin();
    let mut tui = Tui::start(
        &sandbox,
        &["--no-form", "builtin/translate", "txt=Hi", "to=Welsh"],
    );
    let screen = tui.wait_for("has no argument", SERVER_START);
    // The form's column, read as one text: beside the live preview the note wraps.
    let form: String = screen
        .lines()
        .map(|line| line.split('│').next().unwrap_or(line).trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        form.contains("/builtin:translate has no argument `txt`; its arguments: text, to, tone"),
        "{screen}"
    );
    // Nothing was fetched: the form waits.
    assert!(!screen.contains("1 message"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

#[test]
fn the_menu_exits_0_after_an_export_and_130_without_one() {
    let sandbox = builtin();
    let mut tui = Tui::start(
        &sandbox,
        &["--no-form", "builtin/translate", "text=Hi", "to=Welsh"],
    );
    tui.wait_for("1 message", SERVER_START);
    // `s` saves the export: the run produced a result.
    tui.send("s");
    tui.wait_for("Save markdown as: translate.md", STEP);
    tui.send(ENTER);
    tui.wait_for("Saved", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 0, "a saved export is a result");
}

/// `printf` two lines, then mcpick inline in the PTY; `redirect` sends its stdout to a file.
fn inline_after_two_lines(
    sandbox: &Sandbox,
    args: &[&str],
    redirect: Option<&std::path::Path>,
) -> Tui {
    let mut command = CommandBuilder::new("sh");
    command.arg("-c");
    command.arg(match redirect {
        Some(_) => "printf 'before-1\\nbefore-2\\n'; exec \"$0\" \"$@\" >\"$OUT\"",
        None => "printf 'before-1\\nbefore-2\\n'; exec \"$0\" \"$@\"",
    });
    command.arg(env!("CARGO_BIN_EXE_mcpick"));
    command.args(["--config", sandbox.config().to_str().unwrap()]);
    command.args(args);
    if let Some(path) = redirect {
        command.env("OUT", path);
    }
    Tui::spawn(sandbox, command)
}

#[test]
fn inline_height_keeps_the_lines_above_visible_while_it_runs_and_after() {
    let sandbox = builtin();
    let mut tui = inline_after_two_lines(&sandbox, &["--height", "12"], None);
    let screen = tui.wait_for("9/9 prompts", SERVER_START);
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(rows[0], "before-1", "{screen}");
    assert_eq!(rows[1], "before-2", "{screen}");
    // The menu starts on the next line and takes 12 rows.
    assert!(rows[2].starts_with("❯ "), "{screen}");
    assert!(rows[13].contains("F1 help"), "{screen}");
    let raw = String::from_utf8_lossy(&tui.raw()).into_owned();
    assert!(
        !raw.contains("\x1b[?1049h"),
        "inline mode used the alternate screen"
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
    // Its rows are cleared on exit; what was above stays.
    let screen = tui.screen();
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(&rows[..2], ["before-1", "before-2"], "{screen}");
    assert!(
        !screen.contains("prompts"),
        "the menu was left on screen:\n{screen}"
    );
}

#[test]
fn inline_with_stdout_a_pipe_draws_on_the_terminal_and_prints_the_export() {
    let sandbox = builtin();
    let printed = sandbox.dir.path().join("printed.md");
    let args = ["builtin/translate", "text=Bonjour", "to=English"];
    let mut all = vec!["--height", "40%", "--print", "--no-form"];
    all.extend_from_slice(&args);
    let mut tui = inline_after_two_lines(&sandbox, &all, Some(&printed));
    let screen = tui.wait_for("1 message", SERVER_START);
    assert!(screen.starts_with("before-1\nbefore-2\n"), "{screen}");
    assert_eq!(read(&printed), "", "stdout written before accepting");
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0);
    assert_eq!(read(&printed), expected_export(&sandbox, &args));
    // The menu's rows are cleared: only what was there before is left.
    let screen = tui.screen();
    assert_eq!(screen.trim_end(), "before-1\nbefore-2", "{screen}");
}

#[test]
fn an_export_that_cannot_be_printed_is_an_error_not_a_quiet_success() {
    let sandbox = builtin();
    let mut command = CommandBuilder::new("sh");
    command.arg("-c");
    command.arg("exec \"$0\" \"$@\" >/dev/full");
    command.arg(env!("CARGO_BIN_EXE_mcpick"));
    command.args(["--config", sandbox.config().to_str().unwrap()]);
    command.args([
        "--print",
        "--no-form",
        "builtin/translate",
        "text=x",
        "to=Welsh",
    ]);
    let mut tui = Tui::spawn(&sandbox, command);
    tui.wait_for("1 message", SERVER_START);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 2);
    let said = strip_csi(&String::from_utf8_lossy(&tui.raw()));
    assert!(said.contains("cannot write the export to stdout"), "{said}");
}

/// `mcpick get ARGS` run in `dir` with `input` piped to its stdin.
fn get_with_stdin(
    sandbox: &Sandbox,
    dir: &std::path::Path,
    args: &[&str],
    input: &[u8],
) -> std::process::Output {
    use std::io::Write;
    let mut all = vec!["get"];
    all.extend_from_slice(args);
    let mut command = sandbox.command(&all);
    command
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("run mcpick");
    let mut stdin = child.stdin.take().expect("piped");
    // The writer may meet a closed pipe when mcpick refuses before reading: that is fine.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("mcpick ends")
}

#[test]
fn a_diff_piped_into_name_dash_fills_the_prompt() {
    let sandbox = builtin();
    let diff = "--- a/lib.rs\n+++ b/lib.rs\n@@ -1 +1 @@\n-let x = 1;\n+let x = 2;\n";
    let out = get_with_stdin(
        &sandbox,
        sandbox.dir.path(),
        &["builtin/review-diff", "diff=-", "--format", "text"],
        diff.as_bytes(),
    );
    let text = success(&out);
    assert!(text.contains("+let x = 2;"), "{text}");
    assert!(text.contains("-let x = 1;"), "{text}");
    // Stdin is read once: a second `-` is refused before anything runs, naming both.
    let out = get_with_stdin(
        &sandbox,
        sandbox.dir.path(),
        &["builtin/review-diff", "diff=-", "context=-"],
        b"x",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("`diff=-` and `context=-` both read standard input"),
        "{said}"
    );
}

#[test]
fn at_file_and_arg_file_take_a_files_contents_and_double_at_is_literal() {
    let sandbox = builtin();
    let dir = sandbox.dir.path();
    std::fs::write(
        dir.join("build.log"),
        "error[E0425]: cannot find value `answer` in this scope\n",
    )
    .unwrap();
    let out = get_with_stdin(
        &sandbox,
        dir,
        &[
            "builtin/explain-error",
            "error=@build.log",
            "--format",
            "text",
        ],
        b"",
    );
    let text = success(&out);
    assert!(text.contains("cannot find value `answer`"), "{text}");
    // --arg-file says the same without the @.
    let out = get_with_stdin(
        &sandbox,
        dir,
        &[
            "builtin/explain-error",
            "--arg-file",
            "error=build.log",
            "--format",
            "text",
        ],
        b"",
    );
    assert!(success(&out).contains("cannot find value `answer`"));
    // @@ is a value starting with @.
    let out = get_with_stdin(
        &sandbox,
        dir,
        &[
            "builtin/explain-error",
            "error=@@decorator misuse",
            "--format",
            "text",
        ],
        b"",
    );
    let text = success(&out);
    assert!(text.contains("@decorator misuse"), "{text}");
    assert!(!text.contains("@@decorator"), "{text}");
}

#[test]
fn a_binary_a_huge_or_a_missing_file_is_refused_with_status_2_and_why() {
    let sandbox = builtin();
    let dir = sandbox.dir.path();
    std::fs::write(dir.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    std::fs::write(dir.join("big.log"), vec![b'a'; 2 * 1024 * 1024]).unwrap();
    for (args, wanted) in [
        (
            &["builtin/explain-error", "error=@logo.png"][..],
            "argument `error`: logo.png is binary (it holds NUL bytes)",
        ),
        (
            &["builtin/explain-error", "error=@big.log"],
            "argument `error`: big.log is 2.0 MiB, over the 1.0 MiB limit",
        ),
        (
            &["builtin/explain-error", "--arg-file", "error=nope.log"],
            "argument `error`: nope.log: no such file",
        ),
    ] {
        let out = get_with_stdin(&sandbox, dir, args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(said.contains(wanted), "{args:?}: {said}");
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
    // Piped binary data is refused the same way.
    let out = get_with_stdin(
        &sandbox,
        dir,
        &["builtin/review-diff", "diff=-"],
        b"\0\x01\x02",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("standard input is binary"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn name_dash_with_the_terminal_as_stdin_is_refused_before_the_menu_opens() {
    let sandbox = builtin();
    // In the PTY, stdin is the terminal: reading it would wait for a Ctrl-D.
    let mut tui = Tui::start(&sandbox, &["builtin/explain-error", "error=-"]);
    assert_eq!(tui.wait_exit(STEP), 2);
    let said = strip_csi(&String::from_utf8_lossy(&tui.raw()));
    assert!(
        said.contains("argument `error`: standard input is the terminal: pipe the value in"),
        "{said}"
    );
}

#[test]
fn with_no_config_file_an_unknown_server_is_not_said_to_be_missing_from_the_config() {
    // The sandbox's config file is never passed: mcpick finds no config at all.
    let sandbox = Sandbox::new("");
    let no_config = |args: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcpick"));
        crate::common::home_env(&mut command, sandbox.dir.path());
        command
            .env_remove("MCPICK_CONFIG")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run mcpick")
    };
    let wanted = "no server `nosuch`: there is no config file, so only the bundled library (`builtin`) is there; `mcpick init` writes a config";
    for args in [&["get", "nosuch/x"][..], &["auth", "login", "nosuch"]] {
        let out = no_config(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(said.contains(wanted), "{args:?}: {said}");
        assert!(!said.contains("in the config"), "{args:?}: {said}");
    }
    // The menu's own check, in a terminal.
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("nosuch/x");
    let mut tui = Tui::spawn(&sandbox, command);
    assert_eq!(tui.wait_exit(STEP), 2);
    let said = strip_csi(&String::from_utf8_lossy(&tui.raw()));
    assert!(said.contains(wanted), "{said}");
    assert!(!said.contains("in the config"), "{said}");
}

#[test]
fn a_failing_server_s_last_stderr_lines_are_its_own_not_mcpick_s_notes() {
    let sandbox = Sandbox::new(
        "[servers.oops]\ncommand = \"sh\"\nargs = [\"-c\", \"echo oops >&2; exit 3\"]\n",
    );
    for args in [&["servers"][..], &["list"]] {
        let out = sandbox.mcpick(args);
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            said.contains("oops"),
            "{args:?}: the server's words:\n{said}"
        );
        let under = said
            .split("stderr lines:")
            .nth(1)
            .unwrap_or_else(|| panic!("{args:?}: no stderr lines:\n{said}"));
        let listed: Vec<&str> = under
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("    "))
            .map(str::trim)
            .collect();
        assert!(!listed.is_empty(), "{args:?}:\n{said}");
        assert!(
            listed.iter().all(|l| *l == "oops"),
            "{args:?}: only the server's lines under the heading:\n{said}"
        );
    }
}
