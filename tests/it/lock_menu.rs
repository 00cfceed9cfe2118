//! The lockfile in the menu, in a real pseudo-terminal: a prompt whose server changed it
//! since `mcpick lock` is marked `changed` on its row (one the lock has not seen, `new`),
//! its details say what changed, and `[lock] enforce = true` refuses to open it until
//! `mcpick lock` accepts the change; the screen reader mode reads the same and refuses alike.

use crate::common::pty::{STEP, Tui};
use crate::common::*;
use crate::serve::write;

const HELLO: &str = "---\ndescription: Greet someone\narguments:\n  - name: who\n    required: true\n---\nHello {{who}}!\n";
const HELLO_WITH_MOOD: &str = "---\ndescription: Greet someone\narguments:\n  - name: who\n    required: true\n  - name: mood\n    required: true\n---\nHello {{who}}, {{mood}}!\n";
const BYE: &str = "---\ndescription: Say goodbye\n---\nBye.\n";
const HAIKU: &str = "---\ndescription: Write a haiku\n---\nA haiku.\n";

/// `mcpick ARGS` in the sandbox's folder (where `mcpick.lock` is written and found).
fn mcpick_here(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    let out = sandbox
        .command(args)
        .current_dir(sandbox.dir.path())
        .output()
        .expect("run mcpick");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

/// A served folder of two prompts, locked; then `hello` gains a required argument and a
/// third prompt appears. `extra` is appended to the config.
fn drifted(extra: &str) -> (tempfile::TempDir, Sandbox) {
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "hello.mcpick.md", HELLO);
    write(folder.path(), "bye.mcpick.md", BYE);
    let config = mcpick_serve("served", &[folder.path().to_str().unwrap()]) + extra;
    let sandbox = Sandbox::new(&config);
    mcpick_here(&sandbox, &["lock"]);
    write(folder.path(), "hello.mcpick.md", HELLO_WITH_MOOD);
    write(folder.path(), "haiku.mcpick.md", HAIKU);
    (folder, sandbox)
}

/// The menu row for `command` (its first line holding it), without the details pane.
fn row<'a>(screen: &'a str, command: &str) -> &'a str {
    let line = screen
        .lines()
        .find(|line| line.contains(command))
        .unwrap_or_else(|| panic!("no row {command}:\n{screen}"));
    line.split(['│', '┌']).next().unwrap_or(line).trim_end()
}

#[test]
fn a_prompt_changed_since_the_lock_is_marked_and_its_details_say_how() {
    let (_folder, sandbox) = drifted("");
    // (`lock` kept the list it read in the catalog, fresh for its ttlMs: the menu would
    // show it, and the change, once stale; --refresh asks at once.)
    let mut tui = Tui::start(&sandbox, &["--refresh"]);
    let screen = tui.wait_for("/haiku", STEP);
    let screen = if screen.contains("changed") {
        screen
    } else {
        tui.wait_for("changed", STEP)
    };
    assert!(row(&screen, "/hello").ends_with(" changed"), "{screen}");
    assert!(row(&screen, "/haiku").ends_with(" new"), "{screen}");
    assert!(
        row(&screen, "/bye").ends_with("Say goodbye"),
        "an unchanged prompt is not marked:\n{screen}"
    );
    tui.send("hello");
    let details = tui.wait_for("argument `mood` added (required)", STEP);
    assert!(details.contains("changed since mcpick.lock:"), "{details}");
    assert!(details.contains("`mcpick lock` accepts it"), "{details}");
    // Without `enforce` the prompt opens as ever.
    tui.send("\r");
    tui.wait_for("Ctrl-S submit", STEP);
}

#[test]
fn enforce_refuses_a_drifted_prompt_until_mcpick_lock_accepts_it() {
    let (_folder, sandbox) = drifted("\n[lock]\nenforce = true\n");
    let mut tui = Tui::start(&sandbox, &["--refresh"]);
    tui.wait_for("changed", STEP);
    tui.send("hello");
    tui.wait_for("argument `mood` added", STEP);
    tui.send("\r");
    let refused = tui.wait_for("[lock] enforce is on", STEP);
    assert!(
        refused.contains("/hello changed since mcpick.lock"),
        "{refused}"
    );
    assert!(
        !refused.contains("Ctrl-S submit"),
        "no form opened:\n{refused}"
    );
    // A prompt the lock has not seen is refused too.
    tui.send("\x15haiku\r");
    tui.wait_for("/haiku is not in mcpick.lock", STEP);
    tui.send("\x03");
    tui.wait_exit(STEP);

    // Accepted: the marks go and the prompt opens.
    mcpick_here(&sandbox, &["lock"]);
    let mut tui = Tui::start(&sandbox, &[]);
    let screen = tui.wait_for("/haiku", STEP);
    assert!(!screen.contains("changed"), "{screen}");
    tui.send("hello\r");
    tui.wait_for("Ctrl-S submit", STEP);
}

#[test]
fn a_lockfile_named_but_missing_is_refused_with_how_to_write_it() {
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "bye.mcpick.md", BYE);
    let sandbox = Sandbox::new(&mcpick_serve("served", &[folder.path().to_str().unwrap()]));
    let mut tui = Tui::start(&sandbox, &["--lock", "nothere.lock"]);
    let code = tui.wait_exit(STEP);
    assert_eq!(code, 2, "{}", tui.screen());
    let screen = tui.screen();
    assert!(
        screen
            .contains("no lockfile at nothere.lock: `mcpick lock --file nothere.lock` writes one"),
        "{screen}"
    );
}

#[test]
fn the_screen_reader_mode_reads_the_drift_and_enforce_refuses_there_too() {
    let (_folder, sandbox) = drifted("\n[lock]\nenforce = true\n");
    let mut tui = Tui::start(&sandbox, &["--screen-reader", "--refresh"]);
    let listed = tui.wait_for("menu>", STEP);
    let listed = listed.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        listed.contains("3. /hello — Greet someone — served — arguments: who (required), mood (required) — changed since mcpick.lock: argument `mood` added (required)"),
        "{listed}"
    );
    assert!(
        listed.contains(
            "2. /haiku — Write a haiku — served — no arguments — new, not in mcpick.lock"
        ),
        "{listed}"
    );
    assert!(
        listed.contains("1. /bye — Say goodbye — served — no arguments 2."),
        "{listed}"
    );
    tui.send("/hello\r");
    let refused = tui.wait_for("[lock] enforce is on", STEP);
    let refused = refused.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        refused.contains("/hello is refused: it is changed since mcpick.lock"),
        "{refused}"
    );
    assert!(
        !refused.contains("Argument 1 of"),
        "no form opened:\n{refused}"
    );
    tui.send("\x03");
    tui.wait_exit(STEP);
}

#[test]
fn doctor_names_the_lockfile_the_menu_would_read_and_a_broken_one_as_a_problem() {
    let (_folder, sandbox) = drifted("");
    let out = sandbox
        .command(&["doctor"])
        .current_dir(sandbox.dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("lockfile    mcpick.lock: 1 server, 2 prompts and 0 skills locked\n"),
        "{}",
        stdout(&out)
    );
    std::fs::write(
        sandbox.dir.path().join("mcpick.lock"),
        "version = 1\n[servers\n",
    )
    .unwrap();
    let out = sandbox
        .command(&["doctor"])
        .current_dir(sandbox.dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("✗ files: the menu cannot use the lockfile: mcpick.lock:2:"),
        "{text}"
    );
    assert!(
        text.contains("run `mcpick lock` to write it again"),
        "{text}"
    );
}
