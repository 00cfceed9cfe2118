//! `mcpick --tmux` in a real tmux server started by the test (`tmux -f /dev/null -L NAME`,
//! default options): the menu opens in a popup over a pane, and the accepted export arrives
//! in that pane's program as a paste. A popup needs an attached client, so the test attaches
//! one in a pseudo-terminal and types there (`send-keys` reaches panes, not popups).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::pty::{CTRL_C, ENTER, SERVER_START, STEP, Tui};
use crate::common::{Sandbox, home_env, mcpick_serve, python3, sh_quote, success, system_tool};
use portable_pty::CommandBuilder;

/// A tmux server of the test's own; killed when dropped.
struct TmuxServer {
    socket: String,
    /// Where the pane's program writes what it read.
    received: PathBuf,
    /// Where the `run-shell` job writes mcpick's exit code.
    exit_code: PathBuf,
}

impl TmuxServer {
    /// A server whose one pane runs a program that asks for bracketed paste, reads the
    /// terminal raw until a paste ends, and writes every byte it read to a file.
    fn with_reading_pane(sandbox: &Sandbox) -> TmuxServer {
        system_tool("tmux");
        let socket = format!("mcpick-popup-{}-{}", std::process::id(), unique());
        let received = sandbox.dir.path().join("received");
        let exit_code = sandbox.dir.path().join("exit-code");
        let reader = sandbox.dir.path().join("reader.py");
        std::fs::write(&reader, READER).unwrap();
        let server = TmuxServer {
            socket,
            received,
            exit_code,
        };
        let pane = format!(
            "{} {} {}",
            python3(),
            sh_quote(reader.to_string_lossy()),
            sh_quote(server.received.to_string_lossy())
        );
        let status = server
            .tmux(sandbox)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "main"])
            .args(["-x", "120", "-y", "40", &pane])
            .status()
            .expect("run tmux");
        assert!(status.success(), "tmux new-session failed");
        // The pane's program is ready once it has switched bracketed paste on.
        wait_until("the pane's reader to start", || {
            server.received.with_extension("ready").exists()
        });
        server
    }

    /// `tmux -L SOCKET` with the sandbox's environment (the server keeps it: `run-shell`
    /// jobs and popups start with it).
    fn tmux(&self, sandbox: &Sandbox) -> Command {
        let dir = sandbox.dir.path();
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]).current_dir(dir);
        home_env(&mut command, dir);
        for name in [
            "TMUX",
            "TMUX_PANE",
            "MCPICK_CONFIG",
            "DISPLAY",
            "WAYLAND_DISPLAY",
        ] {
            command.env_remove(name);
        }
        command
    }

    /// A client attached to the session, in a PTY the test types into.
    fn attach(&self, sandbox: &Sandbox) -> Tui {
        let mut command = CommandBuilder::new("tmux");
        command.args(["-L", &self.socket, "attach", "-t", "main"]);
        let mut client = Tui::spawn(sandbox, command);
        client.wait_until("the client to attach", STEP, |_| self.clients(sandbox) > 0);
        client
    }

    /// The pane's title and its window's name (the pane the popup opens over).
    fn titles(&self, sandbox: &Sandbox) -> String {
        let out = self
            .tmux(sandbox)
            .args([
                "display-message",
                "-p",
                "-t",
                "main:0.0",
                "#{pane_title}|#{window_name}",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "tmux display-message failed");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Asserts that the pane's title and the window's name are `before` again: tmux names
    /// the window after the pane's program on a timer of its own, so this waits a moment.
    fn assert_titles(&self, sandbox: &Sandbox, before: &str, when: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.titles(sandbox) != before && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert_eq!(self.titles(sandbox), before, "{when}");
    }

    /// The titles once tmux has named the window after the pane's program (the reader).
    fn settled_titles(&self, sandbox: &Sandbox) -> String {
        wait_until("tmux to name the window after the pane's program", || {
            self.titles(sandbox).ends_with("|python3")
        });
        self.titles(sandbox)
    }

    fn clients(&self, sandbox: &Sandbox) -> usize {
        let out = self.tmux(sandbox).arg("list-clients").output().unwrap();
        String::from_utf8_lossy(&out.stdout).lines().count()
    }

    /// `mcpick --config … --tmux ARGS` as a key binding runs it: a `run-shell` job for the
    /// pane, its exit code written to a file.
    fn run_mcpick(&self, sandbox: &Sandbox, args: &[&str]) {
        let mut words = vec![
            sh_quote(env!("CARGO_BIN_EXE_mcpick")),
            "--config".to_string(),
            sh_quote(sandbox.config().to_string_lossy()),
            "--tmux".to_string(),
        ];
        words.extend(args.iter().map(sh_quote));
        let job = format!(
            "{} 2>{}; echo $? >{}",
            words.join(" "),
            sh_quote(sandbox.dir.path().join("job-stderr").to_string_lossy()),
            sh_quote(self.exit_code.to_string_lossy())
        );
        let status = self
            .tmux(sandbox)
            .args(["run-shell", "-b", "-t", "main:0.0", &job])
            .status()
            .unwrap();
        assert!(status.success(), "tmux run-shell failed");
    }

    fn wait_exit_code(&self, sandbox: &Sandbox) -> u8 {
        wait_until("mcpick --tmux to exit", || {
            std::fs::read_to_string(&self.exit_code).is_ok_and(|c| c.ends_with('\n'))
        });
        let stderr = std::fs::read_to_string(sandbox.dir.path().join("job-stderr"));
        let code = std::fs::read_to_string(&self.exit_code).unwrap();
        code.trim()
            .parse()
            .unwrap_or_else(|_| panic!("exit code {code:?}; stderr: {stderr:?}"))
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

/// The pane's program: bracketed paste on, the terminal raw, every byte read kept until a
/// paste has ended (or 60 s passed).
const READER: &str = r#"
import os, sys, termios, tty, time
out = sys.argv[1]
fd = sys.stdin.fileno()
tty.setraw(fd)
os.write(sys.stdout.fileno(), b"\x1b[?2004h")
open(out + ".ready", "w").close()
got = b""
deadline = time.time() + 60
while time.time() < deadline and b"\x1b[201~" not in got:
    got += os.read(fd, 65536)
    with open(out, "wb") as f:
        f.write(got)
time.sleep(30)
"#;

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + SERVER_START;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn builtin() -> Sandbox {
    Sandbox::new(&mcpick_serve("builtin", &["--builtin"]))
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn accepting_in_the_popup_pastes_the_export_into_the_pane() {
    let sandbox = builtin();
    let tmux = TmuxServer::with_reading_pane(&sandbox);
    let mut client = tmux.attach(&sandbox);
    let before = tmux.settled_titles(&sandbox);
    // A prompt right after --tmux opens in the default popup.
    tmux.run_mcpick(&sandbox, &["builtin/translate"]);
    // The popup draws the form over the pane, in the client's terminal.
    client.wait_for("Translate  /builtin:translate", SERVER_START);
    // Drawn: the probes have been sent and answered; the pane under it is as it was.
    std::thread::sleep(Duration::from_millis(500));
    tmux.assert_titles(&sandbox, &before, "while the popup is open");
    client.send("Il pleut.\r");
    client.send("English\r");
    client.send(ENTER);
    client.wait_for("1 message", STEP);
    client.send(ENTER);
    assert_eq!(tmux.wait_exit_code(&sandbox), 0);
    wait_until("the paste to reach the pane", || {
        std::fs::read(&tmux.received).is_ok_and(|b| b.ends_with(b"\x1b[201~"))
    });
    // What `get` prints as text, without its last newline, as the pane's program reads a
    // bracketed paste: tmux sends line ends as CR, like a typed Enter.
    let export = success(&sandbox.mcpick(&[
        "get",
        "builtin/translate",
        "text=Il pleut.",
        "to=English",
        "--format",
        "text",
    ]));
    let export = export.strip_suffix('\n').unwrap_or(&export);
    let expected = format!("\x1b[200~{}\x1b[201~", export.replace('\n', "\r"));
    let received = std::fs::read(&tmux.received).unwrap();
    assert_eq!(String::from_utf8_lossy(&received), expected);
    tmux.assert_titles(&sandbox, &before, "after the popup");
    // Nor was the outer terminal's title set (tmux's default `set-titles off`).
    assert_eq!(client.requests().titles, Vec::<String>::new());
    // No buffer is left behind.
    let buffers = tmux.tmux(&sandbox).arg("list-buffers").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&buffers.stdout), "");
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn cancelling_the_popup_pastes_nothing_and_exits_130() {
    let sandbox = builtin();
    let tmux = TmuxServer::with_reading_pane(&sandbox);
    let mut client = tmux.attach(&sandbox);
    let before = tmux.settled_titles(&sandbox);
    tmux.run_mcpick(&sandbox, &["80x20"]);
    client.wait_for("9/9 prompts", SERVER_START);
    std::thread::sleep(Duration::from_millis(500));
    tmux.assert_titles(&sandbox, &before, "while the popup is open");
    client.send(CTRL_C);
    assert_eq!(tmux.wait_exit_code(&sandbox), 130);
    tmux.assert_titles(&sandbox, &before, "after the popup");
    assert_eq!(client.requests().titles, Vec::<String>::new());
    // The popup is gone and the pane read nothing.
    client.wait_gone("9/9 prompts", STEP);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(std::fs::read(&tmux.received).unwrap_or_default(), b"");
}

#[test]
fn outside_tmux_the_flag_is_an_error_naming_tmux() {
    let sandbox = builtin();
    let out = sandbox
        .command(&["--tmux"])
        .env_remove("TMUX")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("not inside tmux ($TMUX is not set)"),
        "{said}"
    );
}
