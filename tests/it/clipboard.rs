//! The clipboard end to end, with the real programs: a tmux server of the test's own (its
//! buffer, `set-clipboard`), an X server (Xvfb) read back with xclip after mcpick has exited,
//! mcpick's detached holder, and `mcpick get --copy`. Every run is config-less, so the
//! bundled library `builtin` is the one server.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use crate::common::pty::*;
use crate::common::*;
use portable_pty::CommandBuilder;

/// The arguments the tests fill `builtin/translate` with.
const TEXT: &str = "Bonjour";
const TO: &str = "English";

/// Sets `home` as HOME and the XDG dirs (no config there: the bundled library), and removes
/// what would change the clipboard route.
fn config_less(command: &mut Command, home: &Path) {
    home_env(command, home);
    for name in ROUTE_VARIABLES {
        command.env_remove(name);
    }
}

/// `mcpick get builtin/translate …` (markdown), config-less: the export the copies must hold.
fn expected_export(home: &Path) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .args(["get", "builtin/translate"])
        .arg(format!("text={TEXT}"))
        .arg(format!("to={TO}"))
        .stdin(Stdio::null());
    config_less(&mut command, home);
    success(&command.output().expect("run mcpick get"))
}

/// A tmux server of the test's own (`-L` with a unique name, no config file), killed on drop.
struct TmuxServer {
    tmux: PathBuf,
    socket: String,
}

impl TmuxServer {
    /// Starts a 120×40 session running `shell_command`, with `home` as the config-less home
    /// of everything in it (the server passes its environment on to the pane), after setting
    /// the global `options` (NAME, VALUE).
    fn start(
        tmux: PathBuf,
        home: &Path,
        options: &[(&str, &str)],
        shell_command: &str,
    ) -> TmuxServer {
        let socket = format!(
            "mcpick-test-{}-{}",
            std::process::id(),
            home.file_name().unwrap().to_string_lossy()
        );
        let server = TmuxServer { tmux, socket };
        let mut command = server.command();
        config_less(&mut command, home);
        command.args(["-f", "/dev/null", "-L", &server.socket]);
        for (name, value) in options {
            command.args(["set", "-g", name, value, ";"]);
        }
        let status = command
            .args(["new-session", "-d", "-x", "120", "-y", "40"])
            .arg(shell_command)
            .status()
            .expect("start tmux");
        assert!(status.success(), "tmux new-session failed: {status}");
        server
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.tmux);
        // The test may itself run inside tmux: never talk to that server.
        command.env_remove("TMUX").stdin(Stdio::null());
        command
    }

    /// Runs `tmux -L SOCKET ARGS` and returns its stdout.
    fn run(&self, args: &[&str]) -> String {
        let output = self
            .command()
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            output.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p"])
    }

    /// Waits until the pane shows `needle`; returns the screen.
    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + STEP;
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the pane never showed {needle:?}; it shows:\n{screen}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Types `text` literally.
    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-l", text]);
    }

    /// Presses keys by tmux's names (`Enter`, `Tab`, `C-s`).
    fn press(&self, key: &str) {
        self.run(&["send-keys", key]);
    }

    /// The newest tmux buffer.
    fn buffer(&self) -> String {
        self.run(&["show-buffer"])
    }

    /// A client attached to the session in a PTY of its own, its terminal named `term` (tmux
    /// sends OSC 52 only to a terminal it has a clipboard sequence for); detaches when dropped.
    fn attach(&self, sandbox: &Sandbox, term: &str) -> Tui {
        // `env` names the terminal: the PTY helper sets TERM=xterm-256color itself.
        let mut command = CommandBuilder::new(on_path("env"));
        command.arg(format!("TERM={term}"));
        command.arg(&self.tmux);
        command.args(["-L", &self.socket, "attach"]);
        let client = Tui::spawn(sandbox, command);
        let deadline = Instant::now() + STEP;
        while self.run(&["list-clients"]).trim().is_empty() {
            assert!(Instant::now() < deadline, "the tmux client never attached");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        client
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        // kill-server leaves the socket file behind: remove it too.
        let socket = self
            .command()
            .args([
                "-L",
                &self.socket,
                "display-message",
                "-p",
                "#{socket_path}",
            ])
            .stderr(Stdio::null())
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|path| !path.is_empty());
        let _ = self
            .command()
            .args(["-L", &self.socket, "kill-server"])
            .stderr(Stdio::null())
            .status();
        if let Some(socket) = socket {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// From the menu of a fresh run: opens builtin/translate, fills it, fetches it; returns when
/// the review shows the messages.
fn fill_translate_in_tmux(tmux: &TmuxServer) {
    tmux.wait_for("builtin 9");
    tmux.type_text("translate");
    tmux.wait_for("❯ translate");
    tmux.press("Enter");
    tmux.wait_for("Text * (text)");
    tmux.type_text(TEXT);
    tmux.press("Tab");
    tmux.type_text(TO);
    tmux.wait_for(&format!("│{TO}"));
    tmux.press("C-s");
    tmux.wait_for("Reply with the translation only.");
}

/// The first `program` on PATH.
fn on_path(program: &str) -> PathBuf {
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(program))
                .find(|c| c.is_file())
        })
        .unwrap_or_else(|| panic!("{program} on PATH"))
}

/// What the status line says after a copy into a tmux buffer.
const TMUX_COPIED: &str = "Copied to a tmux buffer (prefix ] pastes it)";

/// A copy inside tmux, seen from both ends: mcpick's status and the attached terminal.
struct TmuxCopy {
    server: TmuxServer,
    /// The pane after the copy.
    screen: String,
    /// What the attached client's terminal was sent by OSC 52, decoded (none without one).
    received: Vec<String>,
    /// The export the copy holds.
    export: String,
}

/// The menu inside tmux with `set-clipboard` as given: `y` puts the export in a tmux buffer,
/// byte for byte, and says so. With `client_term`, a client whose terminal has that name is
/// attached first, and what the status says about the terminal's clipboard must be what that
/// terminal was sent.
fn copy_in_tmux(
    tmux: PathBuf,
    home: &Path,
    set_clipboard: &str,
    client_term: Option<&str>,
) -> TmuxCopy {
    let server = TmuxServer::start(
        tmux,
        home,
        &[("set-clipboard", set_clipboard)],
        &sh_quote(env!("CARGO_BIN_EXE_mcpick")),
    );
    let client_env = Sandbox::new("");
    let client = client_term.map(|term| server.attach(&client_env, term));
    fill_translate_in_tmux(&server);
    server.type_text("y");
    let screen = server.wait_for(TMUX_COPIED);
    let export = expected_export(home);
    assert_eq!(server.buffer(), export);
    let received = match client {
        Some(mut client) => {
            // tmux writes an OSC 52 for the copy to the client before it draws the status
            // that follows the copy (one stream, in order): once the client shows the
            // status, whatever was sent has been read.
            client.wait_for(TMUX_COPIED, STEP);
            let received = decoded_osc52(&client);
            assert_status_agrees(&screen, &received, &export);
            received
        }
        None => Vec::new(),
    };
    TmuxCopy {
        server,
        screen,
        received,
        export,
    }
}

/// The texts of the OSC 52 writes `terminal` received.
fn decoded_osc52(terminal: &Tui) -> Vec<String> {
    use base64::Engine;
    terminal
        .requests()
        .clipboard
        .iter()
        .map(|data| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data)
                .expect("OSC 52 carries base64");
            String::from_utf8(bytes).expect("OSC 52 carries UTF-8")
        })
        .collect()
}

/// The status claims the terminal's clipboard exactly when the terminal was sent the export,
/// and says NOT exactly when it was sent nothing.
fn assert_status_agrees(screen: &str, received: &[String], export: &str) {
    let claimed = screen.contains("and your terminal's clipboard");
    let denied = screen.contains("NOT your terminal's clipboard");
    assert!(
        claimed != denied,
        "the status must say whether the terminal's clipboard got it:\n{screen}"
    );
    if claimed {
        assert_eq!(
            received,
            [export],
            "the status says the terminal's clipboard got it, but the terminal was sent \
             {} OSC 52:\n{screen}",
            received.len()
        );
    } else {
        assert!(
            received.is_empty(),
            "the status says NOT your terminal's clipboard, but the attached terminal was \
             sent the copy by OSC 52 ({} times):\n{screen}",
            received.len()
        );
    }
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn inside_tmux_y_fills_a_tmux_buffer_and_says_the_terminal_got_it_too() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    let copy = copy_in_tmux(tmux, home.path(), "external", Some("xterm-256color"));
    assert!(
        copy.screen
            .contains("and your terminal's clipboard (set-clipboard external)"),
        "{}",
        copy.screen
    );
    assert_eq!(copy.received, [copy.export]);
    // Enter accepts: copied again, and back to the menu once it worked.
    copy.server.press("Enter");
    let menu = copy.server.wait_for("1/9 prompts");
    assert!(menu.contains(TMUX_COPIED), "{menu}");
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn with_set_clipboard_on_the_attached_terminal_is_sent_the_copy_and_the_status_says_so() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    let copy = copy_in_tmux(tmux, home.path(), "on", Some("xterm-256color"));
    assert!(
        copy.screen
            .contains("and your terminal's clipboard (set-clipboard on)"),
        "{}",
        copy.screen
    );
    assert_eq!(copy.received, [copy.export]);
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn with_set_clipboard_off_the_status_says_the_terminal_did_not_get_it_and_how_to_fix_it() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    // An attached terminal tmux could send OSC 52 to: off must keep it from it, as the
    // status says.
    let copy = copy_in_tmux(tmux, home.path(), "off", Some("xterm-256color"));
    assert!(
        copy.screen
            .contains("NOT your terminal's clipboard (set -g set-clipboard on)"),
        "{}",
        copy.screen
    );
    assert!(copy.received.is_empty(), "{:?}", copy.received);
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn a_terminal_tmux_has_no_clipboard_sequence_for_is_never_said_to_have_it() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    // screen-256color has no `Ms` in terminfo nor in tmux's default terminal-features.
    let copy = copy_in_tmux(tmux, home.path(), "on", Some("screen-256color"));
    assert!(
        copy.screen.contains("NOT your terminal's clipboard"),
        "{}",
        copy.screen
    );
    assert!(copy.screen.contains("screen-256color"), "{}", copy.screen);
    assert!(copy.received.is_empty(), "{:?}", copy.received);
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn in_a_session_no_client_sees_the_status_never_claims_a_terminal_got_it() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    let copy = copy_in_tmux(tmux, home.path(), "external", None);
    assert!(
        copy.screen
            .contains("no tmux client is attached, so no terminal's clipboard got it"),
        "{}",
        copy.screen
    );
    assert!(
        !copy.screen.contains("and your terminal's clipboard"),
        "{}",
        copy.screen
    );
}

#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn get_copy_inside_tmux_puts_stdout_in_a_buffer_and_names_the_route() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let err = home.path().join("err");
    let done = home.path().join("done");
    let command = format!(
        "{} get builtin/translate text={TEXT} to={TO} --copy >{} 2>{}; echo $? >{}",
        sh_quote(env!("CARGO_BIN_EXE_mcpick")),
        sh_quote(out.display().to_string()),
        sh_quote(err.display().to_string()),
        sh_quote(done.display().to_string()),
    );
    // The pane stays after the command ends, to read the buffer.
    let server = TmuxServer::start(tmux, home.path(), &[("remain-on-exit", "on")], &command);
    let deadline = Instant::now() + SERVER_START;
    while !done.exists() || read(&done).trim().is_empty() {
        assert!(Instant::now() < deadline, "mcpick get never finished");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let stderr = read(&err);
    assert_eq!(read(&done).trim(), "0", "{stderr}");
    assert!(
        stderr.contains("Copied to a tmux buffer (prefix ] pastes it)"),
        "{stderr}"
    );
    let stdout = read(&out);
    assert_eq!(stdout, expected_export(home.path()));
    assert_eq!(server.buffer(), stdout);
}

/// An X server of the test's own on a free display, killed on drop.
struct XServer {
    child: Child,
    display: String,
}

impl XServer {
    fn start(xvfb: &Path) -> XServer {
        // Xvfb picks a free display itself and writes its number on fd 1.
        let mut child = Command::new(xvfb)
            .args([
                "-displayfd",
                "1",
                "-nolisten",
                "tcp",
                "-screen",
                "0",
                "640x480x24",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Xvfb");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read Xvfb's display");
        let number = line.trim();
        assert!(!number.is_empty(), "Xvfb did not start");
        XServer {
            child,
            display: format!(":{number}"),
        }
    }

    /// `xclip -selection clipboard -o` on this display: what the clipboard holds now.
    fn clipboard(&self, xclip: &Path) -> String {
        let output = Command::new(xclip)
            .args(["-selection", "clipboard", "-o"])
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .output()
            .expect("run xclip");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Puts `text` on the clipboard with xclip (which takes the selection from its holder).
    fn copy(&self, xclip: &Path, text: &str) {
        let mut child = Command::new(xclip)
            .args(["-selection", "clipboard"])
            .env("DISPLAY", &self.display)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run xclip");
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    }
}

impl Drop for XServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The pids of mcpick clipboard holders serving `display`.
fn holders_on(display: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let has = |bytes: &[u8], what: &[u8]| bytes.split(|b| *b == 0).any(|p| p == what);
            has(&cmdline, b"__clipboard-hold")
                && has(&environ, format!("DISPLAY={display}").as_bytes())
                && is_running(pid)
        })
        .collect()
}

/// mcpick in a PTY on `display`, config-less, with `path` as its PATH; `y` on the review of
/// builtin/translate, then quit. Returns the status line after the copy.
fn copy_on_x11_then_quit(display: &str, path: &std::ffi::OsStr) -> String {
    let sandbox = Sandbox::new("");
    let env = on_path("env");
    // `env` sets what the PTY helper clears (DISPLAY) and the PATH; mcpick runs without
    // --config, so the sandbox's empty XDG config dir means the bundled library.
    let mut command = CommandBuilder::new(env);
    for name in ["STY", "SSH_CONNECTION", "SSH_TTY"] {
        command.env_remove(name);
    }
    command.arg(format!("DISPLAY={display}"));
    let mut path_setting = std::ffi::OsString::from("PATH=");
    path_setting.push(path);
    command.arg(path_setting);
    command.arg(env!("CARGO_BIN_EXE_mcpick"));
    let mut tui = Tui::spawn(&sandbox, command);
    tui.wait_for("builtin 9", SERVER_START);
    open_prompt(&mut tui, "translate", "/builtin:translate");
    tui.wait_for("Text * (text)", STEP);
    tui.send(TEXT);
    tui.send(TAB);
    tui.send(TO);
    tui.wait_for(&format!("│{TO}"), STEP);
    tui.send(CTRL_S);
    tui.wait_for("Reply with the translation only.", STEP);
    tui.send("y");
    let screen = tui.wait_for("Copied to the desktop clipboard", STEP);
    let status = screen
        .lines()
        .find(|l| l.contains("Copied to the desktop clipboard"))
        .unwrap_or_default()
        .to_string();
    tui.send(CTRL_C);
    tui.wait_exit(STEP);
    assert!(!is_running(tui.pid()), "mcpick is still running");
    status
}

#[cfg_attr(
    mcpick_missing_xvfb,
    ignore = "`Xvfb` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[cfg_attr(
    mcpick_missing_xclip,
    ignore = "`xclip` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn on_x11_the_copy_outlives_mcpick_through_xclip() {
    let (xvfb, xclip) = (system_tool("Xvfb"), system_tool("xclip"));
    let x = XServer::start(&xvfb);
    let home = tempfile::tempdir().unwrap();
    let status = copy_on_x11_then_quit(&x.display, &std::env::var_os("PATH").unwrap());
    assert!(status.contains("(via xclip)"), "{status}");
    assert_eq!(x.clipboard(&xclip), expected_export(home.path()));
    // xclip's own server leaves with the selection.
    x.copy(&xclip, "done");
}

#[cfg_attr(
    mcpick_missing_xvfb,
    ignore = "`Xvfb` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[cfg_attr(
    mcpick_missing_xclip,
    ignore = "`xclip` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
#[test]
fn without_clipboard_tools_mcpicks_detached_holder_keeps_the_copy_after_it_exits() {
    let (xvfb, xclip) = (system_tool("Xvfb"), system_tool("xclip"));
    let x = XServer::start(&xvfb);
    let home = tempfile::tempdir().unwrap();
    // A PATH with no wl-copy, xclip or xsel: the route is mcpick's own holder.
    let empty = tempfile::tempdir().unwrap();
    let status = copy_on_x11_then_quit(&x.display, empty.path().as_os_str());
    assert!(
        status.contains("(via mcpick's clipboard holder)"),
        "{status}"
    );
    assert_eq!(x.clipboard(&xclip), expected_export(home.path()));
    let holders = holders_on(&x.display);
    assert_eq!(holders.len(), 1, "one holder serves the copy: {holders:?}");
    // Another copy takes the selection, and the holder leaves by itself.
    x.copy(&xclip, "something else");
    let deadline = Instant::now() + STEP;
    while !holders_on(&x.display).is_empty() {
        if Instant::now() > deadline {
            for pid in holders_on(&x.display) {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
            panic!("the holder did not leave when another program took the clipboard");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(x.clipboard(&xclip), "something else");
}

/// `mcpick get --copy` in a PTY with no tmux, screen or display, its stdout to a file (and
/// `STY` as given): returns the file's text, the PTY's output and mcpick's exit code.
fn get_copy_in_a_terminal(screen_session: Option<&str>) -> (String, Tui, u32) {
    let sandbox = Sandbox::new("");
    let out = sandbox.dir.path().join("out.md");
    let sh = on_path("sh");
    let mut command = CommandBuilder::new(sh);
    for name in ["STY", "SSH_CONNECTION", "SSH_TTY"] {
        command.env_remove(name);
    }
    if let Some(session) = screen_session {
        command.env("STY", session);
    }
    command.arg("-c");
    command.arg(format!(
        "{} get builtin/translate text={TEXT} to={TO} --copy >{}",
        sh_quote(env!("CARGO_BIN_EXE_mcpick")),
        sh_quote(out.display().to_string())
    ));
    let mut tui = Tui::spawn(&sandbox, command);
    let code = tui.wait_exit(SERVER_START);
    (read(&out), tui, code)
}

#[test]
fn get_copy_without_tmux_or_a_display_sends_osc52_and_says_it_is_unconfirmed() {
    use base64::Engine;
    let (stdout, tui, code) = get_copy_in_a_terminal(None);
    let screen = tui.screen();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("Sent to the terminal (OSC 52; terminals may refuse it, so this copy"),
        "{screen}"
    );
    let sent = tui.requests().clipboard;
    assert_eq!(sent.len(), 1, "one OSC 52: {sent:?}");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&sent[0])
        .unwrap();
    assert_eq!(String::from_utf8(decoded).unwrap(), stdout);
    let home = tempfile::tempdir().unwrap();
    assert_eq!(stdout, expected_export(home.path()));
}

#[test]
fn get_copy_inside_gnu_screen_wraps_osc52_in_screens_passthrough() {
    let (stdout, tui, code) = get_copy_in_a_terminal(Some("1234.pts-0.host"));
    let screen = tui.screen();
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("Sent to the terminal through screen"),
        "{screen}"
    );
    let raw = String::from_utf8_lossy(&tui.raw()).into_owned();
    let start = raw.find("\x1bP\x1b]52;c;").expect("a DCS-wrapped OSC 52");
    // The pieces joined again are the plain OSC 52 of stdout.
    let end = raw[start..]
        .find("\x07\x1b\\")
        .expect("the end of the OSC 52")
        + start;
    let joined = raw[start..end]
        .replace("\x1b\\\x1bP", "")
        .replacen("\x1bP", "", 1);
    use base64::Engine;
    let encoded = joined.strip_prefix("\x1b]52;c;").unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    assert_eq!(String::from_utf8(decoded).unwrap(), stdout);
}
