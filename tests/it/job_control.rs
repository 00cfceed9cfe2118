//! Job control with a real interactive bash in a pseudo-terminal: a suspend from outside
//! (`kill -TSTP`) gives the terminal back to bash and stops mcpick; `fg` brings the menu
//! back, whole, taking keys at once (raw mode again); a stop mcpick cannot catch
//! (`kill -STOP`) is recovered from the same way; SIGTERM leaves a usable shell.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::pty::{STEP, Tui};
use crate::common::{Sandbox, mcpick_serve, sh_quote};
use portable_pty::CommandBuilder;

/// An interactive bash (prompt `$ `) in a PTY, its history and rc files the test's own.
fn bash(sandbox: &Sandbox) -> Tui {
    let rc = sandbox.dir.path().join("bashrc");
    std::fs::write(&rc, "PS1='$ '\n").unwrap();
    let mut command = CommandBuilder::new("bash");
    command.args(["--noprofile", "--rcfile"]);
    command.arg(&rc);
    command.arg("-i");
    command.env("LANG", "C.UTF-8");
    command.env("HISTFILE", sandbox.dir.path().join("history"));
    let mut shell = Tui::spawn(sandbox, command);
    shell.wait_for("$ ", STEP);
    shell
}

/// Starts mcpick's menu from `shell` with the sandbox's config, and waits for its rows.
fn start_menu(shell: &mut Tui, sandbox: &Sandbox) {
    let line = format!(
        "{} --config {}\r",
        sh_quote(env!("CARGO_BIN_EXE_mcpick")),
        sh_quote(sandbox.config().to_string_lossy())
    );
    shell.send(&line);
    shell.wait_for("/translate", crate::common::pty::SERVER_START);
}

/// The pid of bash's one child (mcpick, once the shell has started it).
fn child_of(shell: &Tui) -> u32 {
    let bash = shell.pid();
    let deadline = Instant::now() + STEP;
    loop {
        let children = std::fs::read_to_string(format!("/proc/{bash}/task/{bash}/children"))
            .unwrap_or_default();
        if let Some(pid) = children.split_whitespace().next() {
            return pid.parse().unwrap();
        }
        assert!(Instant::now() < deadline, "bash started no child");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until bash shows its prompt (`$ `) on the last line drawn: keys typed before it
/// may be thrown away as bash takes the terminal back.
fn wait_for_prompt(shell: &mut Tui) {
    shell.wait_until("bash's prompt", STEP, |screen| {
        screen
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .is_some_and(|line| line.trim_end() == "$")
    });
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name} {pid}");
}

#[test]
fn a_suspend_gives_the_shell_a_usable_terminal_and_fg_brings_the_menu_back() {
    let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
    let mut shell = bash(&sandbox);
    start_menu(&mut shell, &sandbox);
    let mcpick = child_of(&shell);

    // Suspended from outside: bash's screen, and bash's terminal (it echoes, a line at once).
    signal(mcpick, "TSTP");
    let screen = shell.wait_for("Stopped", STEP);
    assert!(
        !screen.contains("/translate"),
        "the menu is still on screen:\n{screen}"
    );
    wait_for_prompt(&mut shell);
    shell.send("echo ok-$((40+2))\r");
    shell.wait_for("ok-42", STEP);

    // Back: the whole menu, and keys reach its search line one by one, without Enter.
    shell.send("fg\r");
    shell.wait_for("/translate", STEP);
    shell.send("transl");
    let screen = shell.wait_for("❯ transl", STEP);
    assert!(
        !screen.contains("/commit-message"),
        "not filtered:\n{screen}"
    );

    // A stop it cannot catch: continued, it takes the terminal back as well.
    signal(mcpick, "STOP");
    shell.wait_for("Stopped", STEP);
    shell.send("fg\r");
    // Taken back: the whole screen redrawn (bash's `Stopped` on it gone), in raw mode;
    // the search line is cleared with Ctrl-U, typed key by key.
    shell.wait_gone("Stopped", STEP);
    shell.send("\x15wri");
    shell.wait_for("❯ wri", STEP);

    // SIGTERM: the menu ends and bash's terminal works.
    signal(mcpick, "TERM");
    shell.wait_gone("❯ wri", STEP);
    wait_for_prompt(&mut shell);
    shell.send("echo done-$((1+1))\r");
    shell.wait_for("done-2", STEP);
}

#[test]
fn a_suspend_key_bound_in_the_config_stops_mcpick_as_a_shells_ctrl_z_does() {
    let config = format!(
        "{}\n[keys.picker]\nsuspend = \"ctrl-z\"\n",
        mcpick_serve("builtin", &["--builtin"])
    );
    let sandbox = Sandbox::new(&config);
    let mut shell = bash(&sandbox);
    start_menu(&mut shell, &sandbox);

    // Ctrl-Z arrives as a key in raw mode: bound, it gives bash its terminal and stops.
    shell.send("\x1a");
    let screen = shell.wait_for("Stopped", STEP);
    assert!(
        !screen.contains("/translate"),
        "the menu is still on screen:\n{screen}"
    );
    wait_for_prompt(&mut shell);
    shell.send("echo ok-$((40+2))\r");
    shell.wait_for("ok-42", STEP);

    // `fg`: the whole menu, taking keys one by one.
    shell.send("fg\r");
    shell.wait_for("/translate", STEP);
    shell.send("transl");
    shell.wait_for("❯ transl", STEP);
    signal(child_of(&shell), "TERM");
    wait_for_prompt(&mut shell);
}
