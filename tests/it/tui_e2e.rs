//! The full-screen menu end to end: the real binary in a pseudo-terminal (120×40), its output
//! parsed by a terminal emulator (vt100) and read back as a screen, driven by key bytes, with
//! server-everything and the Python-SDK server as peers.

mod catalog;
mod pick_fill_copy;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::pty::*;
use crate::common::*;
use portable_pty::CommandBuilder;

/// server-everything's args-prompt filled with city "New York" and state "Texas", up to the
/// review screen.
fn fill_args_prompt(tui: &mut Tui) {
    open_prompt(tui, "args-prompt", "/everything:args-prompt");
    let form = tui.wait_for("city *  Name of the city", STEP);
    assert!(
        form.lines().any(|line| line.trim_end() == "state")
            && form.contains("Enter on the last field (or Ctrl-S) fetches the prompt"),
        "not the form with fields city and state:\n{form}"
    );
    tui.send("New York");
    tui.wait_for("│New York", STEP);
    tui.send(TAB);
    tui.send("Texas");
    tui.wait_for("│Texas", STEP);
    tui.send(ENTER);
    let review = tui.wait_for("What's weather in New York, Texas?", STEP);
    assert!(
        review.contains("#1 user · text"),
        "not the review:\n{review}"
    );
}

#[test]
fn picks_fills_and_writes_output_with_server_everything_and_python() {
    let sandbox = Sandbox::new(&format!(
        "{}\n{}",
        everything_stdio("everything"),
        py_stdio("py", &[])
    ));
    let out = out_file(&sandbox);
    let mut tui = Tui::start(
        &sandbox,
        &["--output", out.to_str().unwrap(), "--format", "markdown"],
    );

    // Both servers ready: server-everything's 4 prompts and all 3 pages (13) of the Python's.
    tui.wait_for("● everything 4", SERVER_START);
    tui.wait_for("● py 13", SERVER_START);
    let menu = tui.wait_for("17/17 prompts", STEP);
    for row in [
        "Arguments Prompt",
        "Greeting",
        // Page 2 and page 3 of the Python server's list.
        "all_content",
        "code_review",
        "add_prompt",
    ] {
        assert!(menu.contains(row), "{row} missing from the menu:\n{menu}");
    }

    fill_args_prompt(&mut tui);
    tui.send(ENTER);

    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    assert_eq!(read(&out), "What's weather in New York, Texas?\n");
}

/// Fills args-prompt on server-everything, edits the message (appending " (EDITED in review)"),
/// leaves the editor, then sends `before_accept` and accepts; returns the exported file.
fn edit_then_accept(before_accept: Option<&str>) -> String {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let out = out_file(&sandbox);
    let mut tui = Tui::start(&sandbox, &["--output", out.to_str().unwrap()]);
    tui.wait_for("● everything 4", SERVER_START);
    fill_args_prompt(&mut tui);

    tui.send("e");
    tui.wait_for("Editing #1 (user)", STEP);
    // The cursor starts at the end of the text.
    tui.send(" (EDITED in review)");
    tui.wait_for("Texas? (EDITED in review)", STEP);
    tui.send_esc();
    tui.wait_gone("Editing #1", STEP);
    let review = tui.wait_for("#1 user · text · rendered (m: raw) · edited", STEP);
    assert!(
        review.contains("What's weather in New York, Texas? (EDITED in review)"),
        "the edit is not shown in the review:\n{review}"
    );

    if let Some(keys) = before_accept {
        tui.send(keys);
        tui.wait_gone("(EDITED in review)", STEP);
        tui.wait_for("What's weather in New York, Texas?", STEP);
    }
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    read(&out)
}

#[test]
fn an_edit_in_review_is_exported_as_edited() {
    assert_eq!(
        edit_then_accept(None),
        "What's weather in New York, Texas? (EDITED in review)\n"
    );
}

#[test]
fn restore_all_after_an_edit_exports_what_the_server_sent() {
    let exported = edit_then_accept(Some("U"));
    assert!(
        !exported.contains("EDITED"),
        "the edit was exported:\n{exported}"
    );
    assert_eq!(exported, "What's weather in New York, Texas?\n");
}

/// The Python server's greet prompt, `name` filled with "Ann Lee" and submitted with Ctrl-S.
fn fill_greet_and_submit(tui: &mut Tui) {
    tui.wait_for("● py 13", SERVER_START);
    open_prompt(tui, "greet", "/py:greet");
    tui.wait_for("Who to greet", STEP);
    tui.send("Ann Lee");
    tui.wait_for("│Ann Lee", STEP);
    tui.send(CTRL_S);
    tui.wait_for("Please greet Ann Lee in a casual style.", STEP);
    tui.wait_for("Hello, Ann Lee!", STEP);
}

const GREET_MARKDOWN: &str = "<!-- A short multi-turn greeting conversation -->\n\n\
    ## user\n\nPlease greet Ann Lee in a casual style.\n\n\
    ## assistant\n\nHello, Ann Lee!\n\n\
    ## user\n\nThanks.\n";

#[test]
fn print_writes_the_export_to_stdout_after_restoring_the_terminal() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let mut tui = Tui::start(&sandbox, &["--print"]);
    fill_greet_and_submit(&mut tui);
    // Nothing is printed while the menu owns the screen.
    assert!(
        !String::from_utf8_lossy(&tui.raw()).contains("## assistant"),
        "the export was printed before accepting"
    );
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    let printed = after_leaving_alternate_screen(&tui.raw());
    assert_eq!(printed, GREET_MARKDOWN);
}

#[test]
fn print_with_stdout_redirected_draws_on_stderr_and_prints_only_the_export() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let printed = sandbox.dir.path().join("printed.md");
    // stdout to a file, stdin and stderr on the PTY: like `mcpick --print | llm`.
    let mut command = CommandBuilder::new("sh");
    command.arg("-c");
    command.arg("exec \"$0\" \"$@\" >\"$OUT\"");
    command.arg(env!("CARGO_BIN_EXE_mcpick"));
    command.args(["--config", sandbox.config().to_str().unwrap(), "--print"]);
    command.env("OUT", &printed);
    let mut tui = Tui::spawn(&sandbox, command);
    fill_greet_and_submit(&mut tui);
    assert_eq!(read(&printed), "", "stdout written before accepting");
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    assert_eq!(read(&printed), GREET_MARKDOWN);
    let terminal = String::from_utf8_lossy(&tui.raw()).into_owned();
    assert!(
        !terminal.contains("## assistant"),
        "the export went to the terminal too:\n{terminal}"
    );
}

#[test]
fn a_server_that_fails_at_start_shows_failed_and_its_logs() {
    let sandbox = Sandbox::new(&format!(
        "{}\n[servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"echo boom-from-stderr >&2; exit 3\"]\n",
        py_stdio("py", &[])
    ));
    let mut tui = Tui::start(&sandbox, &[]);

    tui.wait_for("✗ broken failed", SERVER_START);
    let menu = tui.wait_for("● py 13", SERVER_START);
    for row in ["Greeting", "code_review", "add_prompt"] {
        assert!(menu.contains(row), "{row} missing from the menu:\n{menu}");
    }

    tui.send(CTRL_L);
    tui.wait_for("Logs: all servers", STEP);
    let logs = tui.wait_for("boom-from-stderr", STEP);
    assert!(
        logs.lines()
            .any(|l| l.contains("broken") && l.contains("boom-from-stderr")),
        "the line is not attributed to the broken server:\n{logs}"
    );
    assert!(
        logs.contains("exited with status 3"),
        "the failure is not in the logs:\n{logs}"
    );

    tui.send_esc();
    tui.wait_gone("Logs: all servers", STEP);
    tui.wait_for("type to search", STEP);

    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
}

#[test]
fn quitting_print_without_accepting_exits_130_and_prints_nothing() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let mut tui = Tui::start(&sandbox, &["--print"]);
    tui.wait_for("● py 13", SERVER_START);
    tui.send(CTRL_C);
    assert_eq!(
        tui.wait_exit(STEP),
        130,
        "a cancelled --print must not look like success"
    );
    let printed = after_leaving_alternate_screen(&tui.raw());
    assert!(
        printed.trim().is_empty(),
        "nothing should be printed: {printed:?}"
    );
}

#[test]
fn completion_suggestions_follow_what_is_typed_and_the_other_fields() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● everything 4", SERVER_START);
    open_prompt(&mut tui, "completable", "/everything:completable-prompt");
    tui.wait_for("department *", STEP);
    tui.send("S");
    let screen = tui.wait_for("2 suggestions", STEP);
    assert!(
        screen.contains("Sales") && screen.contains("Support"),
        "both departments with S:\n{screen}"
    );
    assert!(
        !screen.contains("Engineering"),
        "only matches of what is typed:\n{screen}"
    );
    // With none chosen, Tab takes the first and moves on; the next field's suggestions use
    // it as context.
    tui.send(TAB);
    tui.wait_for("│Sales", STEP);
    tui.send("E");
    let screen = tui.wait_for("    Eve", STEP);
    assert!(
        !screen.contains("Alice"),
        "names of the Sales team only:\n{screen}"
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
}

#[test]
fn ctrl_n_then_tab_takes_the_first_suggestion_and_enter_takes_a_chosen_one() {
    const CTRL_N: &str = "\x0e";
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● everything 4", SERVER_START);
    open_prompt(&mut tui, "completable", "/everything:completable-prompt");
    tui.wait_for("department *", STEP);
    // Asked on focus, shown by the first Ctrl-N with the first one highlighted.
    tui.send(CTRL_N);
    tui.wait_for("▸ Engineering", STEP);
    // Tab takes it and moves on to the next field.
    tui.send(TAB);
    tui.wait_for("│Engineering", STEP);
    tui.send(CTRL_N);
    tui.wait_for("▸ Alice", STEP);
    tui.send(CTRL_N);
    tui.wait_for("▸ Bob", STEP);
    tui.send(ENTER);
    let screen = tui.wait_for("│Bob", STEP);
    assert!(
        screen.contains("department *"),
        "Enter on a chosen suggestion takes it and stays in the form:\n{screen}"
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
}

#[test]
fn a_zwj_sequence_in_a_field_keeps_its_neighbours_and_the_border() {
    // vt100, as VTE and Alacritty, does not join ZWJ sequences: three emoji, six cells.
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● everything 4", SERVER_START);
    open_prompt(&mut tui, "completable", "/everything:completable-prompt");
    tui.wait_for("department *", STEP);
    tui.send("a👩\u{200d}👩\u{200d}👧b");
    let screen = tui.wait_for("│a👩👩👧b", STEP);
    let row = screen
        .lines()
        .find(|l| l.contains("│a👩"))
        .expect("the field's row");
    assert_eq!(
        unicode_width::UnicodeWidthStr::width(row),
        usize::from(COLS),
        "the row is as wide as the screen:\n{screen}"
    );
    assert!(row.ends_with('│'), "the border is straight:\n{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
}

/// A config with server-everything behind a gate that only starts it when `KEY` is the
/// secret the `api-key` input gives, plus the Python-SDK server, which needs nothing.
fn gated_by_an_input() -> Sandbox {
    Sandbox::new(&format!(
        r#"[inputs.api-key]
description = "Gate API key"

[servers.gated]
command = "sh"
args = ["-c", "[ \"$KEY\" = s3cret ] || {{ echo wrong key >&2; exit 1; }}; exec \"$@\"", "gate", "node", {}, "stdio"]
env = {{ KEY = "${{input:api-key}}" }}

{}"#,
        toml_str(everything_js().to_string_lossy()),
        py_stdio("py", &[])
    ))
}

#[test]
fn an_input_is_asked_masked_in_the_menu_before_its_server_starts() {
    let sandbox = gated_by_an_input();
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("Servers wait for inputs", SERVER_START);
    let screen = tui.wait_for("Gate API key for gated", STEP);
    assert!(screen.contains("◇ gated needs input"), "{screen}");
    // The other server starts meanwhile.
    tui.wait_for("● py 13", SERVER_START);
    tui.send("s3cret");
    let screen = tui.wait_for("> ••••••", STEP);
    assert!(
        !screen.contains("s3cret"),
        "the secret is on screen:\n{screen}"
    );
    tui.send(ENTER);
    tui.wait_gone("Servers wait for inputs", STEP);
    tui.wait_for("● gated 4", SERVER_START);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    let raw = String::from_utf8_lossy(&tui.raw()).into_owned();
    assert!(!raw.contains("s3cret"), "the secret reached the terminal");
}

#[test]
fn the_cli_asks_for_an_input_on_the_terminal_masked() {
    let sandbox = gated_by_an_input();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("--config");
    command.arg(sandbox.config());
    command.args(["list"]);
    let mut cli = Tui::spawn(&sandbox, command);
    cli.wait_for("server `gated` needs input `api-key` (Gate API key)", STEP);
    cli.wait_for("value (Enter gives it; Esc or an empty Enter skips):", STEP);
    cli.send("s3cretX");
    cli.send("\x7f"); // Backspace
    cli.wait_for("******", STEP);
    cli.send(ENTER);
    cli.wait_for("gated/args-prompt", SERVER_START);
    // The other server's prompts too (its lines may be printed a moment later).
    cli.wait_for("py/", SERVER_START);
    assert_eq!(cli.wait_exit(SERVER_START), 0);
    let raw = String::from_utf8_lossy(&cli.raw()).into_owned();
    assert!(!raw.contains("s3cret"), "the secret was echoed");
}

/// The test authorization server (tests/peers/py_server/auth_server.py), killed on drop.
struct AuthPeer {
    child: std::process::Child,
    url: String,
}

impl Drop for AuthPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn auth_peer(dir: &Path) -> AuthPeer {
    let log = dir.join("auth-server.err");
    // Owned by the peer at once, so it is killed whatever happens next.
    let mut peer = AuthPeer {
        child: std::process::Command::new(python())
            .arg(root().join("tests/peers/py_server/auth_server.py"))
            .arg("0")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start auth_server.py"),
        url: String::new(),
    };
    let deadline = Instant::now() + SERVER_START;
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(url) = text
            .lines()
            .find_map(|l| l.strip_prefix("auth-server ready "))
        {
            peer.url = url.trim().to_string();
            return peer;
        }
        assert!(Instant::now() < deadline, "auth server not ready:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn ctrl_a_signs_in_through_the_browser_and_the_server_connects() {
    let sandbox = Sandbox::new("");
    let dir = sandbox.dir.path();
    let peer = auth_peer(dir);
    std::fs::write(sandbox.config(), http("secure", &peer.url)).unwrap();
    // The "browser": fetches the URL, following the redirect back to mcpick's listener.
    let browser = dir.join("browser.py");
    std::fs::write(
        &browser,
        format!(
            "#!{}\nimport sys, urllib.request\nurllib.request.urlopen(sys.argv[1]).read()\n",
            python().display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("--config");
    command.arg(sandbox.config());
    command.env("BROWSER", &browser);
    let mut tui = Tui::spawn(&sandbox, command);
    tui.wait_for("◇ secure needs sign-in (Ctrl-S)", SERVER_START);
    tui.send("\x13"); // Ctrl-S signs in (Ctrl-A is "start of line")
    tui.wait_for("● secure 2", SERVER_START);
    let tokens = dir.join("xdg-data/mcpick/auth/secure.json");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&tokens).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    tui.send(CTRL_L);
    tui.wait_for("sign in at http://127.0.0.1:", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
}

#[test]
fn after_kill_9_during_an_edit_the_next_start_shows_the_draft_with_the_edit() {
    let sandbox = Sandbox::new(&py_stdio("py", &[]));
    let draft = sandbox.dir.path().join("xdg-data/mcpick/draft.json");
    let mut tui = Tui::start(&sandbox, &[]);
    fill_greet_and_submit(&mut tui);
    tui.send("e");
    tui.send(" KEPT-THROUGH-KILL");
    tui.wait_for("KEPT-THROUGH-KILL", STEP);
    // Saved shortly after the typing stops, while still in the editor.
    let deadline = Instant::now() + STEP;
    while !std::fs::read_to_string(&draft).is_ok_and(|t| t.contains("KEPT-THROUGH-KILL")) {
        assert!(Instant::now() < deadline, "no draft at {}", draft.display());
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = tui.child.process_id().expect("mcpick's pid");
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    tui.wait_exit(STEP);

    let mut again = Tui::start(&sandbox, &[]);
    let screen = again.wait_for("unexported draft of /py:greet", STEP);
    assert!(screen.contains("KEPT-THROUGH-KILL"), "{screen}");
    assert!(
        screen.contains("#1 user · text"),
        "not the review:\n{screen}"
    );
    // Discarding it (Esc twice: back to the form) removes the draft.
    again.send_esc();
    again.send_esc();
    again.wait_gone("KEPT-THROUGH-KILL", STEP);
    let deadline = Instant::now() + STEP;
    while draft.exists() {
        assert!(
            Instant::now() < deadline,
            "the discarded draft is still there"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    again.send(CTRL_C);
    assert_eq!(again.wait_exit(STEP), 130, "left without a result");
}

/// An SGR mouse press and release of the left button at 1-based `column`, `row`.
fn sgr_click(column: usize, row: usize) -> String {
    format!("\x1b[<0;{column};{row}M\x1b[<0;{column};{row}m")
}

#[test]
fn a_click_selects_a_menu_row_and_a_double_click_opens_it() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● everything 4", SERVER_START);
    let menu = tui.wait_for("4/4 prompts", STEP);
    // The terminal row (1-based) of args-prompt, not selected yet.
    let at = menu
        .lines()
        .position(|line| line.contains("Arguments Prompt"))
        .unwrap_or_else(|| panic!("no args-prompt row:\n{menu}"));
    assert!(
        !menu.lines().nth(at).unwrap().contains('▌'),
        "args-prompt already selected:\n{menu}"
    );
    tui.send(&sgr_click(6, at + 1));
    tui.wait_until("the clicked row selected", STEP, |screen| {
        screen
            .lines()
            .nth(at)
            .is_some_and(|line| line.contains('▌') && line.contains("Arguments Prompt"))
    });
    // A double click opens it as Enter does.
    tui.send(&format!("{}{}", sgr_click(6, at + 1), sgr_click(6, at + 1)));
    tui.wait_for("city *  Name of the city", STEP);
}

#[test]
fn the_search_line_is_edited_in_the_middle_and_takes_a_bracketed_paste_as_one_line() {
    let sandbox = Sandbox::new(&everything_stdio("everything"));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● everything 4", SERVER_START);
    tui.wait_for("4/4 prompts", STEP);
    // "argprompt", then ← ×6, "s-" in the middle: "args-prompt" (as the terminal sends
    // the arrow: CSI D).
    tui.send("argprompt");
    tui.wait_for("❯ argprompt", STEP);
    tui.send(&"\x1b[D".repeat(6));
    tui.send("s-");
    tui.wait_for("❯ args-prompt", STEP);
    // Ctrl-A, then Delete (CSI 3~) at the start: the first character goes.
    tui.send("\x01\x1b[3~");
    tui.wait_for("❯ rgs-prompt", STEP);
    // Ctrl-E, Alt-B (ESC b) to the last word's start, Ctrl-U deletes to the start.
    tui.send("\x05\x1bb\x15");
    let screen = tui.wait_for("❯ prompt", STEP);
    assert!(screen.contains("/4 prompts"), "{screen}");
    // Ctrl-E, Ctrl-U empty it (Ctrl-K moves in the menu, as in fzf); a bracketed paste
    // of two lines lands as one line.
    tui.send("\x05\x15\x1b[200~args\nprompt\x1b[201~");
    let screen = tui.wait_for("❯ args prompt", STEP);
    assert!(screen.contains("Arguments Prompt"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

/// A folder with `long.mcpick.md`: a prompt of 200 messages, `message 001` to `message 200`.
fn two_hundred_messages() -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("temp dir");
    let mut text = String::from("---\nname: long\ndescription: 200 messages\n---\n");
    for n in 1..=200 {
        if n > 1 {
            let role = if n % 2 == 0 { "assistant" } else { "user" };
            text.push_str(&format!("\n--- {role} ---\n"));
        }
        text.push_str(&format!("message {n:03}\n"));
    }
    std::fs::write(folder.path().join("long.mcpick.md"), text).expect("write the prompt");
    folder
}

#[test]
fn the_preview_scrolls_with_page_down_and_follows_the_selection() {
    let folder = two_hundred_messages();
    let sandbox = Sandbox::new(&mcpick_serve("files", &[&folder.path().to_string_lossy()]));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● files 1", SERVER_START);
    open_prompt(&mut tui, "long", "/files:long");
    tui.wait_for("▌#1 user · text", STEP);
    // End shows a full last page: the message before the last one is on screen.
    tui.send("G");
    let end = tui.wait_for("▌#200 assistant", STEP);
    assert!(
        end.contains("#199 user"),
        "no context above the last:\n{end}"
    );
    tui.send("g");
    tui.wait_for("▌#1 user", STEP);
    tui.send("p");
    // Beside the messages (120 columns): 35 rows inside the border.
    let opened = tui.wait_for("lines 1–35 of", STEP);
    assert!(opened.contains("│message 001"), "{opened}");
    tui.send(TAB);
    tui.wait_for("(f changes · Tab or Esc back)", STEP);
    tui.send("\x1b[6~");
    let paged = tui.wait_for("lines 35–69 of", STEP);
    assert!(
        paged.contains("▌#1 user"),
        "PgDn moved the messages:\n{paged}"
    );
    assert!(!paged.contains("│message 001"), "{paged}");
    // Back on the messages, j moves the selection and the preview follows it.
    tui.send_esc();
    tui.wait_for("Tab scrolls it", STEP);
    for _ in 0..20 {
        tui.send("j");
    }
    let followed = tui.wait_for("▌#21 user", STEP);
    assert!(
        followed.lines().any(|l| l.contains("│message 021")),
        "the preview does not show the selected message:\n{followed}"
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

/// The bundled library as the only server.
fn builtin_library() -> Sandbox {
    Sandbox::new(&mcpick_serve("builtin", &["--builtin"]))
}

const CTRL_O: &str = "\x0f";
const CTRL_R: &str = "\x12";

#[test]
fn a_file_picked_with_ctrl_o_becomes_the_fields_value() {
    let sandbox = builtin_library();
    std::fs::create_dir_all(sandbox.dir.path().join("logs")).unwrap();
    std::fs::write(
        sandbox.dir.path().join("logs/release-notes.txt"),
        "panic at the disco\nline two\n",
    )
    .unwrap();
    std::fs::write(sandbox.dir.path().join("other.txt"), "not this one").unwrap();
    let mut tui = Tui::start(&sandbox, &["builtin/explain-error"]);
    tui.wait_for("Explain an error  /builtin:explain-error", SERVER_START);
    tui.send(CTRL_O);
    tui.wait_for("Error: a file's contents", STEP);
    tui.send("relnot");
    tui.wait_for("▸ logs/release-notes.txt", STEP);
    tui.send(ENTER);
    let form = tui.wait_for("from logs/release-notes.txt · 28 B", STEP);
    assert!(form.contains("│panic at the disco"), "{form}");
    assert!(form.contains("│line two"), "{form}");
    assert!(
        !form.contains("a file's contents"),
        "the picker stayed:\n{form}"
    );
    // The value stays editable; the mark says so once it changed.
    tui.send("!");
    tui.wait_for("from logs/release-notes.txt · edited", STEP);
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn a_commands_output_is_shown_then_put_in_the_field_with_ctrl_r() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &["builtin/explain-error"]);
    tui.wait_for("Explain an error  /builtin:explain-error", SERVER_START);
    tui.send(CTRL_R);
    tui.wait_for("Error: a command's output", STEP);
    tui.send("printf hello");
    tui.wait_for("$ printf hello", STEP);
    tui.send(ENTER);
    let shown = tui.wait_for("Enter puts it in the field", STEP);
    assert!(shown.contains("1 line · 5 B"), "{shown}");
    tui.send(ENTER);
    let form = tui.wait_for("from $ printf hello · 1 line", STEP);
    assert!(form.contains("│hello"), "{form}");
    // A failure shows its status and stderr, and the field keeps its value.
    tui.send(CTRL_R);
    tui.wait_for("$ printf hello", STEP);
    tui.send("; echo broken >&2; exit 4");
    tui.send(ENTER);
    let failed = tui.wait_for("It exited with status 4", STEP);
    assert!(failed.contains("broken"), "{failed}");
    tui.send_esc();
    tui.send_esc();
    let form = tui.wait_gone("a command's output", STEP);
    assert!(form.contains("│hello"), "{form}");
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn a_value_piped_into_name_dash_opens_the_form_and_keys_still_work() {
    let sandbox = builtin_library();
    // stdin is the pipe; the PTY stays the controlling terminal, where the keys come from.
    let mut command = CommandBuilder::new("sh");
    command.arg("-c");
    command.arg("printf x | exec \"$0\" --config \"$1\" builtin/explain-error error=-");
    command.arg(env!("CARGO_BIN_EXE_mcpick"));
    command.arg(sandbox.config());
    let mut tui = Tui::spawn(&sandbox, command);
    let form = tui.wait_for("from stdin · 1 line", SERVER_START);
    assert!(form.contains("│x"), "{form}");
    tui.send(TAB);
    tui.send("typed by hand");
    tui.wait_for("│typed by hand", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

/// The legacy Python-SDK server that asks `confirmed` (yes/no) in the middle of
/// `prompts/get` (tests/peers/py_server/elicit_server.py), as server `ask`.
fn asking_legacy_server() -> Sandbox {
    let python = python();
    let server = root().join("tests/peers/py_server/elicit_server.py");
    Sandbox::new(&behind_legacy_gate(
        "ask",
        &[&python.to_string_lossy(), &server.to_string_lossy()],
    ))
}

#[test]
fn a_legacy_servers_mid_request_question_is_shown_and_its_answer_fills_the_prompt() {
    let sandbox = asking_legacy_server();
    let mut tui = Tui::start(&sandbox, &["--print"]);
    tui.wait_for("● ask 3", SERVER_START);
    open_prompt(&mut tui, "deploy", "/ask:deploy");
    // The request waits on the server while the question is on screen.
    let screen = tui.wait_for("ask asks before it fills deploy", STEP);
    assert!(screen.contains("Deploy to production?"), "{screen}");
    assert!(
        screen.contains("Deploy now? *"),
        "the required mark:\n{screen}"
    );
    tui.send("y");
    tui.send(CTRL_S);
    tui.wait_for("deploy confirmed", STEP);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    assert_eq!(
        after_leaving_alternate_screen(&tui.raw()),
        "deploy confirmed\n"
    );
}

#[test]
fn mcpick_get_on_a_terminal_asks_the_legacy_servers_question() {
    let sandbox = asking_legacy_server();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("--config");
    command.arg(sandbox.config());
    command.args(["get", "ask/deploy"]);
    let mut cli = Tui::spawn(&sandbox, command);
    cli.wait_for(
        "server `ask` asks: Deploy to production? (Esc declines, Ctrl-C stops)",
        SERVER_START,
    );
    cli.wait_for("Deploy now? (`confirmed`: yes or no, required):", STEP);
    cli.send("maybe");
    cli.send(ENTER);
    cli.wait_for("`maybe` is not yes or no", STEP);
    cli.send("yes");
    cli.send(ENTER);
    cli.wait_for("deploy confirmed", STEP);
    assert_eq!(cli.wait_exit(STEP), 0);
}

/// Answers a question screen's yes/no `times` times, each time once the fresh question is
/// on screen (a retry in flight still shows the last answer).
fn answer_yes(tui: &mut Tui, times: usize) {
    for _ in 0..times {
        tui.wait_for("[ ] (not chosen: Space toggles)", STEP);
        tui.send("y");
        tui.wait_for("[x] yes", STEP);
        tui.send(CTRL_S);
    }
}

#[test]
fn the_menu_stops_a_server_that_keeps_asking_in_either_era() {
    let python = python();
    let legacy = root().join("tests/peers/py_server/elicit_server.py");
    let config = format!(
        "{}[servers.new]\ncommand = \"python3\"\nargs = [{}, \"input-required\"]\n",
        behind_legacy_gate(
            "ask",
            &[&python.to_string_lossy(), &legacy.to_string_lossy()]
        ),
        toml_str(root().join("tests/peers/fake_server.py").to_string_lossy())
    );
    let sandbox = Sandbox::new(&config);
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● ask 3", SERVER_START);
    tui.wait_for("● new 4", SERVER_START);
    let kept_asking = "the server kept asking: prompts/get still asked for input after 8 \
                       rounds of answers";
    for (server, asks) in [
        ("new", "new asks before it fills pester"),
        ("ask", "ask asks"),
    ] {
        open_prompt(
            &mut tui,
            &format!("/{server}:pester"),
            &format!("/{server}:pester"),
        );
        tui.wait_for(asks, STEP);
        // Eight rounds answered; the next question is not put to the user.
        answer_yes(&mut tui, 8);
        let screen = tui.wait_for("kept asking", STEP);
        assert!(screen.contains(kept_asking), "{screen}");
        assert!(!screen.contains("(not chosen"), "{screen}");
        assert!(
            screen.contains("This prompt takes no arguments."),
            "back on the form:\n{screen}"
        );
        tui.send(ESC);
        tui.wait_for(&format!("❯ /{server}:pester"), STEP);
        // Ctrl-U empties the search for the next server's prompt.
        tui.send("\x15");
        tui.wait_for("❯ type to search", STEP);
    }
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

/// The rows of `screen` right of column `from` (the live preview beside the form).
fn right_of(screen: &str, from: usize) -> String {
    screen
        .lines()
        .map(|line| line.chars().skip(from).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_live_preview_shows_the_filled_translate_prompt_as_it_is_typed() {
    let sandbox = builtin_library();
    let mut tui = Tui::start(&sandbox, &["builtin/translate"]);
    tui.wait_for("Translate  /builtin:translate", SERVER_START);
    // On for the bundled library without a word in the config; nothing asked yet.
    tui.wait_for("fill `text`, `to` to see the preview", STEP);
    tui.send("Bonjour tout le monde");
    tui.wait_for("fill `to` to see the preview", STEP);
    tui.send(TAB);
    tui.send("German");
    let screen = tui.wait_until("the filled prompt in the pane", STEP, |screen| {
        let pane = right_of(screen, 60);
        pane.contains("Preview · updated")
            && pane.contains("into German in a neutral tone")
            && pane.contains("Bonjour tout le monde")
    });
    let pane = right_of(&screen, 60);
    assert!(pane.contains("#1 user · text"), "{screen}");
    // Still the form: nothing was submitted.
    assert!(screen.contains("Translate  /builtin:translate"), "{screen}");
    assert!(!screen.contains("Enter accept"), "{screen}");
    // The submit takes the preview's answer: the review at once.
    tui.send(CTRL_S);
    let review = tui.wait_for("Enter accept", STEP);
    assert!(review.contains("Bonjour tout le monde"), "{review}");
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

/// tests/peers/slow_prompt.py as server `slow`, its `prompts/get` answering after `get_ms`,
/// every message it receives logged to `wire.jsonl` in the sandbox; `live_preview` as given.
fn slow_server(get_ms: u64, live_preview: bool) -> Sandbox {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("wire.jsonl");
    let config = format!(
        "[servers.slow]\ncommand = {}\nargs = [{}]\nenv = {{ SLOW_GET_MS = \"{get_ms}\", SLOW_LOG = {} }}\nlive_preview = {live_preview}\n",
        toml_str(python3()),
        toml_str(root().join("tests/peers/slow_prompt.py").to_string_lossy()),
        toml_str(log.to_string_lossy()),
    );
    std::fs::write(dir.path().join("config.toml"), config).expect("write config");
    Sandbox { dir }
}

/// The methods (with `text` for a `prompts/get`) the slow server received, in order.
fn wire(sandbox: &Sandbox) -> Vec<String> {
    std::fs::read_to_string(sandbox.dir.path().join("wire.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let message: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let method = message["method"].as_str().unwrap_or("?").to_string();
            match message["params"]["arguments"]["text"].as_str() {
                Some(text) if method == "prompts/get" => {
                    format!("{method} {text} (id {})", message["id"])
                }
                _ if method == "notifications/cancelled" => {
                    format!("{method} (id {})", message["params"]["requestId"])
                }
                _ => method,
            }
        })
        .filter(|m| m.starts_with("prompts/get") || m.starts_with("notifications/cancelled"))
        .collect()
}

#[test]
fn the_live_preview_cancels_what_it_no_longer_needs_and_the_submit_sends_no_second_get() {
    let sandbox = slow_server(1500, true);
    let mut tui = Tui::start(&sandbox, &["slow/echo"]);
    tui.wait_for("Slow echo  /slow:echo", SERVER_START);
    tui.wait_for("fill `text` to see the preview", STEP);
    // Typed, then a pause (a request leaves), then more while it is in flight.
    tui.send("ab");
    tui.wait_for("asking slow…", STEP);
    tui.send("cd");
    tui.wait_for("You said: abcd", STEP);
    // The first preview was cancelled when the second left (the two may cross on the wire).
    let mut seen = wire(&sandbox);
    seen.sort();
    let first_id = seen[1]
        .strip_prefix("prompts/get ab (id ")
        .expect("the first preview")
        .trim_end_matches(')')
        .to_string();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(
        seen[0],
        format!("notifications/cancelled (id {first_id})"),
        "{seen:?}"
    );
    assert!(seen[2].starts_with("prompts/get abcd (id "), "{seen:?}");
    // The values did not change: the submit takes the preview's answer.
    tui.send(CTRL_S);
    let review = tui.wait_for("Enter accept", STEP);
    assert!(review.contains("You said: abcd"), "{review}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        wire(&sandbox)
            .iter()
            .filter(|m| m.starts_with("prompts/get"))
            .count(),
        2,
        "no second prompts/get for the submit: {:?}",
        wire(&sandbox)
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn a_server_without_live_preview_gets_no_request_until_f2() {
    let sandbox = slow_server(0, false);
    let mut tui = Tui::start(&sandbox, &["slow/echo"]);
    tui.wait_for("Slow echo  /slow:echo", SERVER_START);
    tui.send("hello");
    tui.wait_for("│hello", STEP);
    std::thread::sleep(Duration::from_millis(800));
    assert!(wire(&sandbox).is_empty(), "{:?}", wire(&sandbox));
    assert!(!tui.screen().contains("Preview"), "{}", tui.screen());
    tui.send("\x1bOQ"); // F2
    let screen = tui.wait_for("You said: hello", STEP);
    assert!(
        screen.contains("live preview on (slow's prompts/get may cost or have"),
        "{screen}"
    );
    let seen = wire(&sandbox);
    assert!(
        seen.len() == 1 && seen[0].starts_with("prompts/get hello "),
        "{seen:?}"
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

/// `P` on an audio block runs the configured player on a copy of the block's bytes, the
/// review says it plays, and Esc kills the player and stays in the review.
#[test]
fn p_plays_an_audio_block_with_the_configured_player_and_esc_stops_it() {
    let sandbox = Sandbox::new("");
    let copied = sandbox.dir.path().join("played.wav");
    let pid = sandbox.dir.path().join("player.pid");
    // A player that keeps the file it was given, then plays for a minute.
    let script = format!(
        "cp \"$1\" {}; echo $$ > {}.tmp; mv {}.tmp {}; exec sleep 60",
        copied.display(),
        pid.display(),
        pid.display(),
        pid.display()
    );
    std::fs::write(
        sandbox.config(),
        format!(
            "audio_player = [\"sh\", \"-c\", {}, \"player\"]\n{}",
            toml_str(&script),
            py_stdio("py", &[])
        ),
    )
    .unwrap();
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● py 13", SERVER_START);
    tui.send("all_content");
    tui.wait_for("/py:all_content", STEP);
    tui.send(ENTER);
    // The third message is the WAV: its header read (the Python server's is 44 bytes, empty).
    let review = tui.wait_for("P plays", STEP);
    assert!(
        review.contains("WAV PCM 8-bit · 8 kHz mono · 0.0 s — P plays, w saves the bytes"),
        "{review}"
    );
    tui.send("jj");
    tui.send("P");
    tui.wait_for("▶ playing #3 (Esc stops)", STEP);
    let deadline = std::time::Instant::now() + STEP;
    while !pid.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let player: u32 = read(&pid).trim().parse().expect("the player's pid");
    let bytes = std::fs::read(&copied).unwrap();
    assert!(bytes.starts_with(b"RIFF") && bytes.len() == 44, "{bytes:?}");
    assert!(std::path::Path::new(&format!("/proc/{player}")).exists());

    tui.send_esc();
    let screen = tui.wait_gone("▶ playing", STEP);
    assert!(
        screen.contains("/py:all_content"),
        "still the review:\n{screen}"
    );
    let deadline = std::time::Instant::now() + STEP;
    let gone = |pid: u32| {
        // A killed child may linger as a zombie until it is reaped: that counts as stopped.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |stat| stat.split(' ').nth(2) == Some("Z"))
    };
    while !gone(player) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(gone(player), "Esc kills the player");
}

/// A folder with `notes.mcpick.md`: one message of Markdown with a heading, a nested
/// list, a table, a link and a Rust fence, and an escape sequence from the author.
fn markdown_prompt() -> tempfile::TempDir {
    let folder = tempfile::tempdir().expect("temp dir");
    let text = "---\nname: notes\ndescription: rich Markdown\n---\n# Release notes\n\n- first\n  - nested\n- see the [guide](https://example.com/guide)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() { let answer = 42; }\n```\n";
    std::fs::write(folder.path().join("notes.mcpick.md"), text).expect("write the prompt");
    folder
}

#[test]
fn a_markdown_message_is_rendered_with_its_code_highlighted_and_m_shows_it_raw() {
    let folder = markdown_prompt();
    let sandbox = Sandbox::new(&mcpick_serve("files", &[&folder.path().to_string_lossy()]));
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● files 1", SERVER_START);
    open_prompt(&mut tui, "notes", "/files:notes");
    let rendered = tui.wait_for("▌#1 user · text · rendered (m: raw)", STEP);
    for shown in [
        "  Release notes",
        "  • first",
        "    ◦ nested",
        "guide <https://example.com/guide>",
        "│ a │ b │",
        "┌ rust",
        "│ fn main() { let answer = 42; }",
    ] {
        assert!(rendered.contains(shown), "no {shown:?}:\n{rendered}");
    }
    assert!(!rendered.contains("# Release notes"), "{rendered}");
    // The highlighter loads off the loop; then the keyword is drawn in a colour of its own
    // (24-bit), and a link is never a terminal hyperlink.
    let deadline = Instant::now() + STEP;
    while !String::from_utf8_lossy(&tui.raw()).contains("\u{1b}[38;2;") {
        assert!(Instant::now() < deadline, "the code was never highlighted");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!String::from_utf8_lossy(&tui.raw()).contains("\u{1b}]8;"));
    tui.send("m");
    let raw = tui.wait_for("▌#1 user · text · raw (m renders)", STEP);
    for shown in [
        "  # Release notes",
        "  - see the [guide](https://example.com/guide)",
        "  ```rust",
    ] {
        assert!(raw.contains(shown), "no {shown:?}:\n{raw}");
    }
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

#[test]
fn a_config_error_exits_2_in_the_menu_and_with_print() {
    let sandbox = Sandbox::new("");
    let toml = sandbox.dir.path().join("toml.toml");
    std::fs::write(&toml, "[servers.x\n").unwrap();
    let semantic = sandbox.dir.path().join("semantic.toml");
    std::fs::write(
        &semantic,
        "[servers.x]\ncommand = \"a\"\nurl = \"http://x\"\n",
    )
    .unwrap();
    let missing = sandbox.dir.path().join("missing.toml");
    for (config, says) in [
        (&toml, "TOML parse error"),
        (&semantic, "has both `command` (stdio) and `url` (HTTP)"),
        (&missing, "does not exist (--config names it)"),
    ] {
        for flags in [&[][..], &["--print"][..]] {
            let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
            command.arg("--config");
            command.arg(config);
            command.args(flags);
            let mut tui = Tui::spawn(&sandbox, command);
            tui.wait_for(says, STEP);
            // 1 is kept for "nothing matched".
            assert_eq!(tui.wait_exit(STEP), 2, "{config:?} {flags:?}");
        }
    }
}

#[test]
fn a_misspelt_subcommand_that_matches_no_prompt_is_named() {
    let sandbox = Sandbox::new("");
    let library = sandbox.dir.path().join("library");
    std::fs::create_dir(&library).unwrap();
    std::fs::write(library.join("hello.prompt.md"), "Say hello\n").unwrap();
    std::fs::write(
        sandbox.config(),
        mcpick_serve("lib", &[&library.to_string_lossy()]),
    )
    .unwrap();
    let mut tui = Tui::start(&sandbox, &["lsit"]);
    tui.wait_for(
        "No server offers a prompt `lsit` (did you mean `mcpick list`?)",
        SERVER_START,
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
    // A word that is far from every subcommand gets no such hint; `budget` holds `get`.
    let mut tui = Tui::start(&sandbox, &["budget"]);
    let screen = tui.wait_for("No server offers a prompt `budget`", SERVER_START);
    assert!(!screen.contains("did you mean"), "{screen}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130);
}

/// The alternate screen (and the rows `--height` takes) may hold what a killed program left
/// there: the menu starts on a clean screen all the same, and Ctrl-C leaves none of it.
#[test]
fn the_menu_starts_clean_over_a_killed_programs_leftovers() {
    let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
    for (mode, extra) in [("full screen", ""), ("--height", " --height 12")] {
        // Leftovers on the alternate screen (full) or on the rows below the prompt (inline).
        let leftovers = if extra.is_empty() {
            r"\033[?1049h\033[15;20HLEFTOVER-ONE\033[38;90HLEFTOVER-TWO\033[1;1H"
        } else {
            r"\033[30;20HLEFTOVER-ONE\033[38;90HLEFTOVER-TWO\033[28;1H"
        };
        let script = format!(
            "printf '{leftovers}'; exec {} --config {}{extra}",
            sh_quote(env!("CARGO_BIN_EXE_mcpick")),
            sh_quote(sandbox.config().to_string_lossy())
        );
        let mut command = CommandBuilder::new("sh");
        command.args(["-c", &script]);
        let mut tui = Tui::spawn(&sandbox, command);
        let screen = tui.wait_for("/translate", SERVER_START);
        // Drawn whole: one more frame cannot bring them back.
        std::thread::sleep(Duration::from_millis(300));
        let screen = tui
            .screen()
            .lines()
            .chain(screen.lines())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(!screen.contains("LEFTOVER"), "{mode}:\n{screen}");
        tui.send(CTRL_C);
        tui.wait_exit(STEP);
    }
}

/// The bundled library ranked as fzf would: `wt` and `wr` put `/write-tests` first (its
/// name starts so), not the prompts whose titles hold a "Write" (`/commit-message`) or
/// whose name holds the letters further in (`/improve-writing`).
#[test]
fn the_bundled_library_ranks_a_match_in_the_name_first() {
    let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
    for needle in ["wt", "wr"] {
        let mut tui = Tui::start(&sandbox, &["-q", needle]);
        tui.wait_for(&format!("❯ {needle}"), SERVER_START);
        let screen = tui.wait_until("the ranked rows", STEP, |s| s.contains("/write-tests"));
        let first = screen
            .lines()
            .find(|l| l.starts_with('▌'))
            .unwrap_or_else(|| panic!("no selected row:\n{screen}"));
        assert!(first.starts_with("▌ /write-tests"), "{needle}: {first}");
        tui.send(CTRL_C);
        tui.wait_exit(STEP);
    }
}

/// `base = "auto"` (the default): the terminal is asked for its background (OSC 11) and a
/// light one gets the light base (its selection #e4e4e4, index 254); a dark one, or a
/// terminal that does not answer, the dark base (237). Never a wait past the probe's.
#[test]
fn the_default_theme_follows_the_terminals_background() {
    let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
    for (answer, selection) in [
        (Some("ffff/ffff/ffff"), 254),
        (Some("1e1e/1e1e/1e1e"), 237),
        (None, 237),
    ] {
        let mut tui = Tui::start_in(&sandbox, &[], Answers::with_background(answer));
        let screen = tui.wait_for("/translate", SERVER_START);
        let row = screen
            .lines()
            .position(|l| l.starts_with('▌'))
            .unwrap_or_else(|| panic!("no selected row:\n{screen}"));
        let (_, background) = tui.cell_colors(row as u16, 4).unwrap();
        assert_eq!(
            background,
            vt100::Color::Idx(selection),
            "answered {answer:?}"
        );
        tui.send(CTRL_C);
        tui.wait_exit(STEP);
    }
}

/// mcpick in a kitty-like terminal (the kitty query is sent: not inside GNU screen) with
/// the background `rgb`, whose answers to the start's queries come `delay` late (a long
/// round trip over SSH); `height` for the inline mode. Returns once all five answers are
/// written, so keys typed then reach mcpick after them.
fn start_answering_late(
    sandbox: &Sandbox,
    rgb: &str,
    delay: Duration,
    height: Option<&str>,
) -> Tui {
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("--config");
    command.arg(sandbox.config());
    if let Some(height) = height {
        command.args(["--height", height]);
    }
    command.env_remove("STY");
    let answers = Answers::kitty_with_background(rgb).delayed(delay);
    let mut tui = Tui::spawn_answering(sandbox, command, answers);
    tui.wait_for("/translate", SERVER_START);
    tui.wait_answered(5, STEP);
    tui
}

/// Answers that come after the start stopped waiting for them (OSC 11, the kitty APC
/// string, the CSI size reports, DA1) are swallowed, never typed into the search line,
/// however late they come, full screen and inline.
#[test]
fn late_answers_of_the_terminal_are_never_typed() {
    let sandbox = builtin_library();
    for (delay, height) in [(50, None), (300, None), (1000, None), (1000, Some("15"))] {
        let mut tui = start_answering_late(
            &sandbox,
            "0000/0000/0000",
            Duration::from_millis(delay),
            height,
        );
        tui.send("trans");
        // "tran" already counts 1/9: wait for the whole word, or a late answer typed after
        // it, on the search line.
        let screen = tui.wait_until("the search typed", STEP, |s| {
            s.lines()
                .any(|l| l.contains("❯ trans") && l.contains("1/9 prompts"))
        });
        let search = screen
            .lines()
            .find(|l| l.contains('❯'))
            .unwrap_or_else(|| panic!("no search line:\n{screen}"));
        // The search as typed, and its count at the right.
        assert_eq!(
            search
                .trim_end()
                .strip_suffix("1/9 prompts")
                .map(str::trim_end),
            Some("❯ trans"),
            "{delay} ms late, --height {height:?}:\n{screen}"
        );
        let rows: Vec<&str> = screen
            .lines()
            .filter(|l| l.trim_start_matches('▌').trim_start().starts_with('/'))
            .collect();
        assert!(
            rows.len() == 1 && rows[0].contains("/translate"),
            "{delay} ms late, --height {height:?}:\n{screen}"
        );
        tui.send(CTRL_C);
        tui.wait_exit(STEP);
    }
}

/// The background of the selected row's cells, once a row is selected.
fn selection_background(tui: &Tui) -> Option<vt100::Color> {
    let screen = tui.screen();
    let row = screen.lines().position(|l| l.starts_with('▌'))?;
    tui.cell_colors(row as u16, 4)
        .map(|(_, background)| background)
}

/// `base = "auto"` (the default) with a background that comes after the start stopped
/// waiting: the light base once it comes. A background told after the start's own changes
/// nothing (and is never typed either).
#[test]
fn a_late_light_background_still_switches_the_auto_theme() {
    let sandbox = builtin_library();
    let mut tui = start_answering_late(&sandbox, "ffff/ffff/ffff", Duration::from_secs(1), None);
    let deadline = Instant::now() + STEP;
    while selection_background(&tui) != Some(vt100::Color::Idx(254)) {
        assert!(
            Instant::now() < deadline,
            "not the light base's selection: {:?}\n{}",
            selection_background(&tui),
            tui.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    tui.send(CTRL_C);
    tui.wait_exit(STEP);

    let dark = Answers::with_background(Some("1e1e/1e1e/1e1e"));
    let mut tui = Tui::start_in(&sandbox, &[], dark);
    tui.wait_for("/translate", SERVER_START);
    tui.send("\x1b]11;rgb:ffff/ffff/ffff\x1b\\trans");
    // `tran` already counts 1/9: wait for the whole word.
    let screen = tui.wait_until("the search `trans`, 1/9", STEP, |screen| {
        screen.starts_with("❯ trans ") && screen.contains("1/9 prompts")
    });
    assert_eq!(
        selection_background(&tui),
        Some(vt100::Color::Idx(237)),
        "{screen}"
    );
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}

/// `NAME.mcpick.md` in `folder`: a prompt with `title` (none when empty), a description
/// and required arguments.
fn write_prompt(folder: &Path, name: &str, title: &str, description: &str, arguments: &[&str]) {
    let title = if title.is_empty() {
        String::new()
    } else {
        format!("title: {title}\n")
    };
    let arguments: String = arguments
        .iter()
        .map(|a| format!("  - name: {a}\n    required: true\n"))
        .collect();
    let text =
        format!("---\n{title}description: {description}\narguments:\n{arguments}---\nDo it.\n");
    std::fs::write(folder.join(format!("{name}.mcpick.md")), text).expect("write the prompt");
}

/// Issue 51: six servers at 120 columns, long server and command names. A prompt with no
/// title shows its description where a title goes, and titles are not cut short beside
/// an arguments cell that says nothing but `…`: that room is the title's.
#[test]
fn rows_show_the_description_of_an_untitled_prompt_and_titles_before_a_bare_ellipsis() {
    let folders = tempfile::tempdir().expect("temp dir");
    // (server, prompt, title, arguments): long server and command names, as a team has.
    let prompts: [(&str, &str, &str, &[&str]); 7] = [
        ("seed-bookings", "plan_booking", "", &["room"]),
        (
            "seed-bookings",
            "check_availability",
            "Check room availability",
            &["building", "date"],
        ),
        (
            "travel-desk",
            "book_flight",
            "Book a flight for a trip",
            &["destination", "departure_date"],
        ),
        (
            "docs-library",
            "summarize_document",
            "Summarize a long document",
            &["document"],
        ),
        (
            "ops-runbooks",
            "incident_report",
            "Write an incident report",
            &["timeline", "impact"],
        ),
        (
            "ops-runbooks",
            "quarterly_review_notes",
            "Prepare the quarterly review notes",
            &["quarter"],
        ),
        (
            "team-rituals",
            "standup_notes",
            "Turn standup notes into a summary",
            &["notes"],
        ),
    ];
    let mut config = mcpick_serve("builtin", &["--builtin"]);
    for (server, name, title, arguments) in prompts {
        let folder = folders.path().join(server);
        if !folder.exists() {
            std::fs::create_dir(&folder).unwrap();
            config.push_str(&mcpick_serve(server, &[&folder.to_string_lossy()]));
        }
        // Only the untitled prompt's description is seen in the menu.
        let description = if title.is_empty() {
            "Plan a meeting-room booking that suits everyone invited"
        } else {
            "More in the details."
        };
        write_prompt(&folder, name, title, description, arguments);
    }
    let sandbox = Sandbox::new(&config);
    let mut tui = Tui::start(&sandbox, &[]);
    let screen = tui.wait_for("16/16 prompts", SERVER_START);
    // The list, left of the details pane.
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.starts_with("  /") || l.starts_with("▌ /"))
        .map(|l| l.split(['│', '┌']).next().unwrap_or(l))
        .collect();
    let row = |command: &str| {
        rows.iter()
            .find(|r| r.split_whitespace().nth(usize::from(r.starts_with('▌'))) == Some(command))
            .unwrap_or_else(|| panic!("no row of {command}:\n{screen}"))
    };
    let mut wrong = Vec::new();
    // Where its title would be, cut to the column like a title.
    if !row("/plan_booking").contains("Plan a meeting-") {
        wrong.push(format!("no description: {}", row("/plan_booking")));
    }
    // A cell of `…` alone (`diff*, …` says something: one argument, and more).
    for r in rows.iter().filter(|r| r.contains("  … ")) {
        wrong.push(format!("a bare …: {r}"));
    }
    for (command, title) in [
        ("/incident_report", "Write an incident report"),
        ("/check_availability", "Check room availability"),
        ("/book_flight", "Book a flight for a trip"),
    ] {
        if !row(command).contains(title) {
            wrong.push(format!("title cut: {}", row(command)));
        }
    }
    // Nothing took the server column's place.
    let servers = [
        "builtin",
        "seed-bookings",
        "travel-desk",
        "docs-library",
        "ops-runbooks",
        "team-rituals",
    ];
    for r in &rows {
        if !r
            .split_whitespace()
            .last()
            .is_some_and(|w| servers.contains(&w))
        {
            wrong.push(format!("no server: {r}"));
        }
    }
    assert!(wrong.is_empty(), "{}\n{screen}", wrong.join("\n"));
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
}
