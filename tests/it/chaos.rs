//! Chaos: servers that hang, crash, flood, lie about ids, send junk, invalid UTF-8, huge or
//! many answers, and terminal escape sequences (tests/peers/chaos_server.py), each next to a
//! healthy server (this binary's `serve --builtin`). What the user sees, what the process
//! does, and what is left behind: one server's failure never touches another's, mcpick never
//! hangs, and server text never drives the user's terminal.
//!
//! Time limits here are generous "did not hang" bounds for a busy 2-core machine, not budgets.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::pty::*;
use crate::common::*;
use portable_pty::CommandBuilder;

/// What the `escapes` server puts in every string (tests/peers/chaos_server.py, `EVIL`).
const EVIL: &str = "\x1b[2J\x1b[31m\x1b]0;PWNED-TITLE\x07\
    \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\
    \x1b]52;c;UFdORUQ=\x07\
    \x1bP1$r0m\x1b\\\
    \u{9b}2J\u{9d}0;C1-TITLE\u{9c}\
    \u{202e}REVERSED\u{202c}\u{2066}\u{2067}\u{2068}isolates\u{2069}\u{61c}\
    \r\x08\x07";

/// `LABEL[EVIL]`, as the server writes its strings.
fn evil(label: &str) -> String {
    format!("{label}[{EVIL}]")
}

/// How long a CLI run may take before it counts as hung.
const HUNG: Duration = Duration::from_secs(30);
/// `timeout_ms` for a server whose request is meant to time out. It bounds the handshake too,
/// the server's start included (a Python start takes over a second on a busy 2-core
/// machine), so it cannot be much shorter without the server failing before the request.
const SHORT_TIMEOUT_MS: u64 = 5000;
/// Peak memory (VmHWM) mcpick may reach under a flood: far above what it needs, far below
/// what an unbounded queue would take.
pub(crate) const MEMORY_BOUND_KIB: u64 = 500 * 1024;

/// A sandbox whose config has one chaos server `chaos` in `modes` (with `extra` lines in
/// its table) and the healthy `builtin` server.
pub(crate) struct Chaos {
    sandbox: Sandbox,
}

impl Chaos {
    pub(crate) fn new(modes: &str, extra: &str) -> Chaos {
        Chaos::with_servers(&[("chaos", modes, extra)])
    }

    /// Several chaos servers `(name, modes, extra)`, plus `builtin`.
    fn with_servers(servers: &[(&str, &str, &str)]) -> Chaos {
        let sandbox = Sandbox::new("");
        let mut config = String::new();
        for (name, modes, extra) in servers {
            let dir = sandbox.dir.path();
            config.push_str(&format!(
                "[servers.{name}]\ncommand = {}\nargs = [{}, {}, \"--pid-file\", {}, \"--stats\", {}]\n{extra}\n\n",
                toml_str(python3()),
                toml_str(root().join("tests/peers/chaos_server.py").to_string_lossy()),
                toml_str(modes),
                toml_str(dir.join(format!("{name}.pids")).to_string_lossy()),
                toml_str(dir.join(format!("{name}.stats.json")).to_string_lossy()),
            ));
        }
        config.push_str(&mcpick_serve("builtin", &["--builtin"]));
        std::fs::write(sandbox.config(), config).unwrap();
        Chaos { sandbox }
    }

    /// Runs `mcpick ARGS` (stdout and stderr piped) to the end, sampling its memory.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        run(self.sandbox.command(args))
    }

    /// Runs `mcpick ARGS` in a terminal (a PTY) to the end; returns the terminal.
    fn in_terminal(&self, args: &[&str]) -> (Tui, u32) {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
        command.arg("--config");
        command.arg(self.sandbox.config());
        command.args(args);
        let mut terminal = Tui::spawn(&self.sandbox, command);
        let code = terminal.wait_exit(HUNG);
        (terminal, code)
    }

    /// The full-screen menu in a PTY.
    pub(crate) fn tui(&self, args: &[&str]) -> Tui {
        Tui::start(&self.sandbox, args)
    }

    /// The pids every start of server `name` wrote.
    fn pids(&self, name: &str) -> Vec<u32> {
        std::fs::read_to_string(self.sandbox.dir.path().join(format!("{name}.pids")))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// The counters server `name` wrote (requests by method, notifications sent).
    pub(crate) fn stats(&self, name: &str) -> serde_json::Value {
        let path = self.sandbox.dir.path().join(format!("{name}.stats.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "{}".into());
        serde_json::from_str(&text).unwrap_or_default()
    }

    /// Asserts that server `name` was started and that none of its processes outlived
    /// mcpick (polling a moment: the last one may still be being reaped).
    pub(crate) fn assert_gone(&self, name: &str) {
        let pids = self.pids(name);
        assert!(!pids.is_empty(), "server {name} never started");
        let deadline = Instant::now() + Duration::from_secs(5);
        for pid in pids {
            while is_running(pid) {
                assert!(
                    Instant::now() < deadline,
                    "server {name} (pid {pid}) outlived mcpick"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// The total size of the log files mcpick wrote.
    pub(crate) fn log_bytes(&self) -> u64 {
        let dir = self.sandbox.dir.path().join("xdg-state/mcpick");
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }
}

impl Chaos {
    /// Everything in the log files mcpick wrote, as bytes.
    fn log_contents(&self) -> Vec<u8> {
        let dir = self.sandbox.dir.path().join("xdg-state/mcpick");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.sort();
        paths
            .iter()
            .flat_map(|path| std::fs::read(path).unwrap_or_default())
            .collect()
    }
}

/// A finished CLI run.
pub(crate) struct Run {
    pub(crate) output: Output,
    pub(crate) elapsed: Duration,
    /// The peak resident memory (VmHWM) seen while it ran, in KiB.
    pub(crate) peak_kib: u64,
}

impl Run {
    fn stdout(&self) -> String {
        stdout(&self.output)
    }

    pub(crate) fn stderr(&self) -> String {
        stderr(&self.output)
    }

    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    /// Asserts exit code 0; returns stdout.
    pub(crate) fn success(&self) -> String {
        success(&self.output)
    }
}

/// Runs `command` to the end with stdout and stderr piped, killing it (and failing) if it
/// runs longer than [`HUNG`]; samples its VmHWM every few milliseconds.
pub(crate) fn run(mut command: Command) -> Run {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().expect("start mcpick");
    let pid = child.id();
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = read_all(Box::new(child.stdout.take().unwrap()));
    let err = read_all(Box::new(child.stderr.take().unwrap()));
    let mut peak_kib = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(status) = child.try_wait().expect("poll mcpick") {
            break status;
        }
        if started.elapsed() > HUNG {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "mcpick did not exit within {HUNG:?}; stderr so far:\n{}",
                String::from_utf8_lossy(&err.join().unwrap_or_default())
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    Run {
        output: Output {
            status,
            stdout: out.join().unwrap(),
            stderr: err.join().unwrap(),
        },
        elapsed,
        peak_kib,
    }
}

/// A process's peak resident memory, from /proc.
pub(crate) fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Characters that drive a terminal or reorder text: C1 controls and bidi controls.
fn is_c1_or_bidi(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Asserts that `raw` (what a terminal received) holds no ESC byte at all, no C1 control
/// (as UTF-8 or as a lone byte) and no bidi control.
fn assert_no_controls(raw: &[u8], what: &str) {
    let text = String::from_utf8_lossy(raw);
    if let Some(at) = raw.iter().position(|&b| b == 0x1b) {
        panic!(
            "{what}: ESC at byte {at}: {:?}",
            String::from_utf8_lossy(&raw[at.saturating_sub(40)..(at + 40).min(raw.len())])
        );
    }
    assert_no_c1_or_bidi(raw, what);
    assert!(
        !text.contains('\u{7}') && !text.contains('\u{8}'),
        "{what}: a BEL or BS reached the terminal: {text:?}"
    );
}

/// Asserts that `raw` holds no C1 control and no bidi control, and is valid UTF-8 (a lone
/// 0x9B byte is a CSI to some terminals).
fn assert_no_c1_or_bidi(raw: &[u8], what: &str) {
    let text = std::str::from_utf8(raw)
        .unwrap_or_else(|e| panic!("{what}: the terminal got invalid UTF-8: {e}"));
    if let Some((at, c)) = text.char_indices().find(|(_, c)| is_c1_or_bidi(*c)) {
        panic!(
            "{what}: U+{:04X} at byte {at}: {:?}",
            c as u32,
            String::from_utf8_lossy(&raw[at.saturating_sub(40)..(at + 40).min(raw.len())])
        );
    }
}

/// Asserts that a full-screen run's raw output holds no OSC (title, hyperlink, clipboard),
/// DCS, SOS, PM or APC sequence, no C1 or bidi control, and that the terminal emulator saw
/// no title, clipboard or other OSC request. CSI is mcpick's own drawing.
fn assert_terminal_untouched(tui: &Tui, what: &str) {
    // mcpick's own questions at start are the ones allowed: the graphics query (an APC,
    // docs/images.md) and the background's (OSC 11, docs/config.md), once each.
    const OWN_QUERIES: [&[u8]; 2] = [
        b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\",
        b"\x1b]11;?\x1b\\",
    ];
    let mut raw = tui.raw();
    for query in OWN_QUERIES {
        if let Some(at) = raw.windows(query.len()).position(|w| w == query) {
            raw.drain(at..at + query.len());
        }
    }
    for (intro, name) in [
        (&b"\x1b]"[..], "OSC"),
        (b"\x1bP", "DCS"),
        (b"\x1bX", "SOS"),
        (b"\x1b^", "PM"),
        (b"\x1b_", "APC"),
    ] {
        if let Some(at) = raw.windows(2).position(|w| w == intro) {
            panic!(
                "{what}: an {name} sequence reached the terminal at byte {at}: {:?}",
                String::from_utf8_lossy(&raw[at..(at + 60).min(raw.len())])
            );
        }
    }
    assert_no_c1_or_bidi(&raw, what);
    let mut requests = tui.requests();
    // The background question is mcpick's own (once), not a server's.
    if let Some(at) = requests.other_osc.iter().position(|osc| osc == "11;?") {
        requests.other_osc.remove(at);
    }
    assert!(
        requests.is_empty(),
        "{what}: the terminal was asked for {requests:?}"
    );
}

/// The start of the key-hint line (the bottom row) on the menu and on the form: it says which
/// screen is up, whatever the rest of the screen shows.
pub(crate) const MENU_HINTS: &str = "Enter open · ";
const FORM_HINTS: &str = "Enter next/submit · ";

/// The key-hint line of a screen.
fn hints(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

/// Waits until the screen whose key-hint line starts with `hints_start` is up.
pub(crate) fn wait_for_screen(tui: &mut Tui, hints_start: &str) -> String {
    tui.wait_until(
        &format!("the screen with hints {hints_start:?}"),
        STEP,
        |s| hints(s).starts_with(hints_start),
    )
}

/// What an Esc changes: the screen (its key hints), whether the menu's search is empty, and
/// whether the form shows suggestions.
fn esc_state(screen: &str) -> (String, bool, bool) {
    (
        hints(screen).to_string(),
        screen.contains("type to search"),
        screen.contains("Esc hide"),
    )
}

/// Esc until the menu shows with an empty search (Esc there would quit). Each Esc goes only
/// once the one before has shown its effect: one sent while mcpick is still busy with the
/// last would be one too many (and quit), and a key read together with an Esc makes an
/// Alt-key of it.
pub(crate) fn back_to_menu(tui: &mut Tui) {
    for _ in 0..5 {
        let screen = tui.screen();
        if hints(&screen).starts_with(MENU_HINTS) && screen.contains("type to search") {
            return;
        }
        let before = esc_state(&screen);
        tui.send(ESC);
        tui.wait_until("the Esc to take effect", STEP, |s| esc_state(s) != before);
    }
    tui.wait_until("the menu with an empty search", STEP, |s| {
        hints(s).starts_with(MENU_HINTS) && s.contains("type to search")
    });
}

/// Waits until the screen contains `needle` for as long as the screen keeps changing (a flood
/// being shown): fails once it stood still for a step without it, or after three minutes.
pub(crate) fn wait_while_moving(tui: &mut Tui, needle: &str) -> String {
    let started = Instant::now();
    let mut screen = tui.screen();
    let mut moved = Instant::now();
    while !screen.contains(needle) {
        let exited = tui.child.try_wait().ok().flatten();
        assert!(
            exited.is_none()
                && moved.elapsed() < STEP
                && started.elapsed() < Duration::from_secs(180),
            "waiting for {needle:?}: mcpick exited ({exited:?}), or the screen stood still for \
             {STEP:?} without it, or {:?} passed; the screen:\n{screen}",
            started.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
        let now = tui.screen();
        if now != screen {
            screen = now;
            moved = Instant::now();
        }
    }
    screen
}

/// Types `query` into the menu's search and waits until it is shown. Over a large list every
/// key refilters it all, which can take a second a key in a debug build on a busy machine:
/// each key gets a step.
pub(crate) fn search(tui: &mut Tui, query: &str) {
    tui.send(query);
    let keys = u32::try_from(query.chars().count()).unwrap_or(u32::MAX);
    tui.wait_for(&format!("❯ {query}"), STEP.saturating_mul(keys));
}

// ───────────────────────────── escapes ─────────────────────────────

#[test]
fn list_and_servers_to_a_terminal_carry_no_escape_sequence_from_a_server() {
    let chaos = Chaos::new("escapes", "");
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["servers"],
        &["servers", "--json"],
    ] {
        let (terminal, code) = chaos.in_terminal(args);
        assert_eq!(code, 0, "mcpick {args:?}:\n{}", terminal.screen());
        let raw = terminal.raw();
        assert_no_controls(&raw, &format!("mcpick {args:?}"));
        assert!(terminal.requests().is_empty());
        let text = String::from_utf8_lossy(&raw);
        // The other server lists as usual.
        assert!(text.contains("builtin"), "mcpick {args:?}: {text}");
        match args {
            ["list"] => {
                assert!(text.contains("builtin/translate"), "{text}");
                assert!(text.contains("chaos/show"), "{text}");
                // The escapes are there, visible and inert.
                assert!(
                    text.contains("␛]52;c;UFdORUQ=␇"),
                    "the OSC 52 should show as text: {text}"
                );
            }
            ["list", "--json"] => {
                assert!(text.contains("\"translate\""), "{text}");
                // JSON escapes C0 controls itself; C1 and bidi are made visible.
                assert!(
                    text.contains("\\u001b]52;c;UFdORUQ=\\u0007\\u001bP1$r0m\\u001b\\\\<U+009B>2J"),
                    "{text}"
                );
            }
            _ => assert!(text.contains("chaos-server["), "{text}"),
        }
    }
    chaos.assert_gone("chaos");
}

#[test]
fn get_and_complete_to_a_terminal_show_escapes_as_visible_text() {
    let chaos = Chaos::new("escapes", "");
    let (terminal, code) = chaos.in_terminal(&["get", "chaos/show"]);
    assert_eq!(code, 0, "{}", terminal.screen());
    let raw = terminal.raw();
    assert_no_controls(&raw, "mcpick get");
    let text = String::from_utf8_lossy(&raw);
    for visible in [
        "user-text[␛[2J␛[31m␛]0;PWNED-TITLE␇",
        "␛]8;;https://evil.example/␛\\link",
        "␛P1$r0m␛\\<U+009B>2J<U+009D>0;C1-TITLE<U+009C>",
        "<U+202E>REVERSED<U+202C><U+2066><U+2067><U+2068>isolates<U+2069><U+061C>␍␈␇]",
        "assistant-text[",
    ] {
        assert!(text.contains(visible), "{visible:?} not shown:\n{text}");
    }

    let (terminal, code) = chaos.in_terminal(&["complete", "chaos/show", "topic"]);
    assert_eq!(code, 0, "{}", terminal.screen());
    assert_no_controls(&terminal.raw(), "mcpick complete");
    assert!(
        String::from_utf8_lossy(&terminal.raw()).contains("completion[␛[2J"),
        "{}",
        terminal.screen()
    );
    chaos.assert_gone("chaos");
}

#[test]
fn server_errors_and_stderr_reach_a_terminal_neutralised() {
    let chaos = Chaos::with_servers(&[
        ("chaos", "escapes", ""),
        ("dying", "escapes,exit-mid-request", ""),
    ]);
    // A JSON-RPC error whose message is full of escapes.
    let (terminal, code) = chaos.in_terminal(&["get", "chaos/fail"]);
    assert_eq!(code, 1, "{}", terminal.screen());
    assert_no_controls(&terminal.raw(), "mcpick get chaos/fail");
    let text = String::from_utf8_lossy(&terminal.raw()).into_owned();
    assert!(text.contains("error-message[␛[2J"), "{text}");

    // A crash whose last stderr lines are full of escapes.
    let (terminal, code) = chaos.in_terminal(&["get", "dying/show"]);
    assert_eq!(code, 1, "{}", terminal.screen());
    assert_no_controls(&terminal.raw(), "mcpick get dying/show");
    let text = String::from_utf8_lossy(&terminal.raw()).into_owned();
    assert!(text.contains("exited with status 3"), "{text}");
    assert!(
        text.contains("chaos: lost the backend while filling show[␛[2J"),
        "{text}"
    );
    chaos.assert_gone("chaos");
    chaos.assert_gone("dying");
}

#[test]
fn a_crash_s_stderr_lines_reach_a_pipe_and_the_log_file_neutralised() {
    // `mcpick get … 2>&1 | cat -v`: the diagnostics go through a pipe, and still end on a
    // terminal; the server's last stderr lines are full of OSC 52, title and bidi controls.
    let chaos = Chaos::new("escapes,exit-mid-request", "");
    let run = chaos.run(&["get", "chaos/show"]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr());
    assert_no_controls(&run.output.stderr, "mcpick get chaos/show 2>pipe");
    let err = run.stderr();
    assert!(err.contains("exited with status 3"), "{err}");
    assert!(
        err.contains("chaos: lost the backend while filling show[␛[2J␛[31m␛]0;PWNED-TITLE␇"),
        "{err}"
    );
    assert!(err.contains("<U+202E>REVERSED<U+202C>"), "{err}");
    assert!(run.stdout().is_empty(), "{}", run.stdout());

    // The log file holds the same lines, as inert: no ESC, no C1 or bidi control, no control
    // but the line ends and tabs.
    let log = chaos.log_contents();
    let text = String::from_utf8_lossy(&log);
    assert!(
        text.contains("lost the backend while filling show["),
        "the crash's line is not in the log:\n{text}"
    );
    assert_no_c1_or_bidi(&log, "the log file");
    if let Some(at) = log
        .iter()
        .position(|&b| b < 0x20 && b != b'\n' && b != b'\t' || b == 0x7f)
    {
        panic!(
            "the log file holds control byte {:#04x}: {:?}",
            log[at],
            String::from_utf8_lossy(&log[at.saturating_sub(60)..(at + 20).min(log.len())])
        );
    }
    chaos.assert_gone("chaos");
}

#[test]
fn exports_to_pipes_and_files_keep_the_content_as_the_server_sent_it() {
    let chaos = Chaos::new("escapes", "");
    // A pipe: every byte as sent.
    let markdown = chaos.run(&["get", "chaos/show"]).success();
    for text in [
        evil("user-text"),
        evil("assistant-text"),
        evil("result-description"),
    ] {
        assert!(
            markdown.contains(&text),
            "{text:?} not kept verbatim in:\n{markdown:?}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(
        &chaos
            .run(&["get", "chaos/show", "--format", "mcp-json"])
            .success(),
    )
    .unwrap();
    assert_eq!(json[0]["content"]["text"], evil("user-text"));
    assert_eq!(json[1]["content"]["text"], evil("assistant-text"));

    // A file (`> file`): the same bytes as the pipe.
    let path = chaos.sandbox.dir.path().join("show.md");
    let mut command = chaos.sandbox.command(&["get", "chaos/show"]);
    command.stdout(std::fs::File::create(&path).unwrap());
    let status = command.status().unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), markdown);

    // The list to a pipe keeps names and descriptions too (JSON escapes ESC as \u001b).
    let list: serde_json::Value =
        serde_json::from_str(&chaos.run(&["list", "--json"]).success()).unwrap();
    let show = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "show")
        .expect("show listed");
    assert_eq!(show["title"], evil("title"));
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == format!("evil{EVIL}name"))
    );
    chaos.assert_gone("chaos");
}

#[test]
fn the_menu_never_passes_server_escapes_to_the_terminal() {
    let chaos = Chaos::new("escapes", "");
    let out = chaos.sandbox.dir.path().join("out.md");
    let mut tui = chaos.tui(&["--output", out.to_str().unwrap()]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 5", SERVER_START);
    // The menu: show's title and description in details, and its arguments' titles and
    // descriptions (the evil-named argument's last, below the others).
    search(&mut tui, "show");
    tui.wait_for("/chaos:show", STEP);
    let menu = tui.wait_for("evil-arg[␛[2J", STEP);
    for text in [
        "title[␛[2J",
        "description[␛[2J",
        "argtitle[␛[2J",
        "argdesc[␛[2J",
    ] {
        assert!(menu.contains(text), "{text:?} not shown:\n{menu}");
    }
    // The form: the argument's title, the evil argument name. (Their descriptions follow on
    // the same lines, past the screen's edge after such long titles.)
    tui.send(ENTER);
    let form = wait_for_screen(&mut tui, FORM_HINTS);
    assert!(form.contains("argtitle[␛[2J"), "{form}");
    assert!(form.contains("\narg␛[2J"), "{form}");
    // Completion suggestions.
    tui.send("a");
    tui.wait_for("completion[␛[2J", STEP);
    // The review: message text, shown and edited.
    tui.send(CTRL_S);
    let review = tui.wait_for("user-text[␛[2J", STEP);
    assert!(review.contains("#1 user · text"), "{review}");
    tui.send("e");
    tui.wait_for("Editing #1", STEP);
    tui.send_esc();
    tui.wait_gone("Editing #1", STEP);
    // The logs: stderr lines and log messages.
    tui.send(CTRL_L);
    tui.wait_for("stderr-at-start[␛[2J", STEP);
    tui.wait_for("log-data[␛[2J", STEP);
    tui.send_esc();
    tui.wait_for("#1 user · text", STEP);
    assert_terminal_untouched(&tui, "the menu before export");
    // Accepting asks first (the messages hold control characters); Enter again writes the
    // file as the server sent it.
    tui.send(ENTER);
    tui.wait_for("Enter again exports as is, x strips", STEP);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0);
    let exported = read(&out);
    assert!(exported.contains(&evil("user-text")), "{exported:?}");
    assert!(exported.contains(&evil("assistant-text")), "{exported:?}");
    assert_terminal_untouched(&tui, "the menu");
    chaos.assert_gone("chaos");
}

#[test]
fn the_menu_shows_an_evil_prompt_name_and_error_inert() {
    let chaos = Chaos::new("escapes", "");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 5", SERVER_START);
    search(&mut tui, "title2");
    tui.wait_for("/chaos:evil␛[2J", STEP);
    tui.send(ENTER);
    tui.wait_for("evil-named[␛[2J", STEP);
    back_to_menu(&mut tui);
    // A prompt whose server answers with an evil error message.
    open_prompt(&mut tui, "/chaos:fail", "/chaos:fail");
    tui.wait_for("error-message[␛[2J", STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    assert_terminal_untouched(&tui, "the menu");
    chaos.assert_gone("chaos");
}

#[test]
fn print_to_a_terminal_shows_the_export_inert() {
    let chaos = Chaos::new("escapes", "");
    let mut tui = chaos.tui(&["--print"]);
    tui.wait_for("● chaos 5", SERVER_START);
    open_prompt(&mut tui, "/chaos:show", "/chaos:show");
    let form = wait_for_screen(&mut tui, FORM_HINTS);
    assert!(form.contains("argtitle["), "{form}");
    tui.send(CTRL_S);
    tui.wait_for("#1 user · text", STEP);
    tui.send(ENTER);
    tui.wait_for("Enter again exports as is, x strips", STEP);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0);
    let raw = tui.raw();
    let printed = after_leaving_alternate_screen(&raw);
    assert!(printed.contains("user-text[␛[2J␛[31m"), "{printed:?}");
    let leave = raw.windows(8).rposition(|w| w == b"\x1b[?1049l").unwrap();
    let after = String::from_utf8_lossy(&raw[leave..]);
    assert!(
        !after.contains("\x1b[2J") && !after.contains("\x1b[31m"),
        "a server's CSI reached the terminal: {after:?}"
    );
    assert_terminal_untouched(&tui, "--print to a terminal");
    chaos.assert_gone("chaos");
}

// ───────────────────────────── hangs and crashes ─────────────────────────────

#[test]
fn a_prompt_that_never_answers_fails_after_timeout_ms() {
    let chaos = Chaos::new("never-answers", &format!("timeout_ms = {SHORT_TIMEOUT_MS}"));
    let run = chaos.run(&["get", "chaos/hello"]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr());
    assert!(
        run.stderr().contains(&format!(
            "prompts/get timed out after {SHORT_TIMEOUT_MS} ms"
        )),
        "{}",
        run.stderr()
    );
    let timeout = Duration::from_millis(SHORT_TIMEOUT_MS);
    assert!(run.elapsed >= timeout, "{:?}", run.elapsed);
    assert!(
        run.elapsed < timeout + Duration::from_secs(15),
        "{:?}",
        run.elapsed
    );
    // Listing is unaffected, and so is the other server.
    let list = chaos.run(&["list"]).success();
    assert!(list.contains("chaos/hello"), "{list}");
    assert!(list.contains("builtin/translate"), "{list}");
    // A bare name reaches the healthy server while the other hangs.
    let translated = chaos
        .run(&["get", "translate", "text=Hallo", "to=English"])
        .success();
    assert!(translated.contains("Hallo"), "{translated}");
    chaos.assert_gone("chaos");
}

#[test]
fn a_server_exiting_mid_request_names_the_exit_and_its_last_stderr_line() {
    let chaos = Chaos::new("exit-mid-request", "");
    let run = chaos.run(&["get", "chaos/hello"]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr());
    let err = run.stderr();
    assert!(err.contains("exited with status 3"), "{err}");
    assert!(
        err.contains("chaos: lost the backend while filling hello"),
        "{err}"
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    let list = chaos.run(&["list"]).success();
    assert!(list.contains("builtin/translate"), "{list}");
    chaos.assert_gone("chaos");
}

#[test]
fn a_slow_server_is_waited_for_within_timeout_ms_and_cut_off_beyond() {
    let chaos = Chaos::with_servers(&[
        ("patient", "slow:1500", "timeout_ms = 10000"),
        // It would answer after a minute.
        (
            "impatient",
            "slow:60000",
            &format!("timeout_ms = {SHORT_TIMEOUT_MS}"),
        ),
    ]);
    let run = chaos.run(&["get", "patient/hello"]);
    assert_eq!(run.stdout(), "hello from chaos\n");
    assert!(run.elapsed >= Duration::from_millis(1500));
    let run = chaos.run(&["get", "impatient/hello"]);
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stderr().contains(&format!(
            "prompts/get timed out after {SHORT_TIMEOUT_MS} ms"
        )),
        "{}",
        run.stderr()
    );
    let timeout = Duration::from_millis(SHORT_TIMEOUT_MS);
    assert!(run.elapsed >= timeout, "{:?}", run.elapsed);
    assert!(
        run.elapsed < timeout + Duration::from_secs(15),
        "{:?}",
        run.elapsed
    );
    chaos.assert_gone("patient");
    chaos.assert_gone("impatient");
}

#[test]
fn in_the_menu_a_hang_and_a_crash_leave_the_other_servers_working() {
    let chaos = Chaos::with_servers(&[
        (
            "hang",
            "never-answers",
            &format!("timeout_ms = {SHORT_TIMEOUT_MS}"),
        ),
        ("crash", "exit-mid-request", ""),
    ]);
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● hang 2", SERVER_START);
    tui.wait_for("● crash 2", SERVER_START);
    let started = Instant::now();
    open_prompt(&mut tui, "/hang:hello", "/hang:hello");
    let timeout = Duration::from_millis(SHORT_TIMEOUT_MS);
    tui.wait_for(
        &format!("timed out after {SHORT_TIMEOUT_MS} ms"),
        timeout + STEP,
    );
    assert!(started.elapsed() >= timeout);
    assert!(
        started.elapsed() < timeout + Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    back_to_menu(&mut tui);

    open_prompt(&mut tui, "/crash:hello", "/crash:hello");
    tui.wait_for("exited with status 3", STEP);
    back_to_menu(&mut tui);
    tui.send(CTRL_L);
    tui.wait_for("chaos: lost the backend while filling hello", STEP);
    tui.send_esc();
    tui.wait_for("type to search", STEP);

    // The healthy server still fills prompts.
    open_prompt(&mut tui, "/builtin:translate", "/builtin:translate");
    tui.wait_for("Text * (text)", STEP);
    tui.send("Guten Morgen");
    tui.wait_for("│Guten Morgen", STEP);
    tui.send(TAB);
    tui.send("English");
    tui.wait_for("│English", STEP);
    tui.send(CTRL_S);
    let review = tui.wait_for("#1 user · text", STEP);
    assert!(review.contains("Guten Morgen"), "{review}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("hang");
    chaos.assert_gone("crash");
}

#[test]
fn in_the_menu_a_crash_mid_request_names_its_last_stderr_line() {
    let chaos = Chaos::new("exit-mid-request", "");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● chaos 2", SERVER_START);
    open_prompt(&mut tui, "/chaos:hello", "/chaos:hello");
    let screen = tui.wait_for("exited with status 3", STEP);
    // The error wraps on screen: the line's start is enough.
    assert!(
        screen.contains("its last stderr line: chaos: lost the backend"),
        "{screen}"
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}

// ───────────────────────────── junk on the wire ─────────────────────────────

/// Lists both servers and fills `greet` on `chaos`; returns the run of the fill.
pub(crate) fn still_works(chaos: &Chaos) -> Run {
    let list = chaos.run(&["list"]);
    let text = list.success();
    assert!(text.contains("chaos/greet"), "{text}");
    assert!(text.contains("builtin/translate"), "{text}");
    assert!(list.elapsed < Duration::from_secs(10), "{:?}", list.elapsed);
    let get = chaos.run(&["get", "chaos/greet", "name=Ann"]);
    assert_eq!(get.success(), "Hello, Ann!\n");
    assert!(get.elapsed < Duration::from_secs(10), "{:?}", get.elapsed);
    get
}

#[test]
fn junk_lines_on_stdout_are_skipped() {
    let chaos = Chaos::new("junk-stdout", "timeout_ms = 5000");
    still_works(&chaos);
    chaos.assert_gone("chaos");
}

#[test]
fn whole_lines_of_invalid_utf8_are_skipped() {
    let chaos = Chaos::new("bad-utf8:lines", "timeout_ms = 5000");
    still_works(&chaos);
    let bad = chaos.run(&["get", "chaos/bad"]).success();
    assert_eq!(bad, "no bad bytes here\n");
    chaos.assert_gone("chaos");
}

#[test]
fn invalid_utf8_inside_an_answer_is_replaced_or_named() {
    let chaos = Chaos::new("bad-utf8", "timeout_ms = 20000");
    // In prompts/get: the text with U+FFFD in place of the bad bytes, at once (well before
    // the timeout).
    let run = chaos.run(&["get", "chaos/bad"]);
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    assert!(
        run.success().contains("before \u{fffd}"),
        "{}",
        run.stdout()
    );
    // In prompts/list: the same; the other server lists regardless.
    let run = chaos.run(&["list"]);
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    assert!(
        run.stdout().contains("builtin/translate"),
        "{}",
        run.stdout()
    );
    assert!(run.stdout().contains("chaos/bad"), "{}", run.stdout());
    chaos.assert_gone("chaos");
}

#[test]
fn invalid_utf8_inside_an_answer_never_hangs_or_touches_other_requests() {
    let chaos = Chaos::new("bad-utf8:get", &format!("timeout_ms = {SHORT_TIMEOUT_MS}"));
    let run = chaos.run(&["get", "chaos/bad"]);
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    assert!(run.success().contains('\u{fffd}'), "{}", run.stdout());
    still_works(&chaos);
    chaos.assert_gone("chaos");
}

#[test]
fn responses_to_ids_nobody_asked_for_are_ignored_after_the_handshake() {
    let chaos = Chaos::new("stray-ids:after-init", "timeout_ms = 5000");
    still_works(&chaos);
    let hello = chaos.run(&["get", "chaos/hello"]).success();
    assert_eq!(hello, "hello from chaos\n");
    chaos.assert_gone("chaos");
}

#[test]
fn responses_to_ids_nobody_asked_for_during_the_handshake() {
    let chaos = Chaos::new("stray-ids", "timeout_ms = 5000");
    let servers = chaos.run(&["servers", "--json"]);
    let rows: serde_json::Value = serde_json::from_str(&servers.success()).unwrap();
    let row = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .cloned()
            .unwrap()
    };
    let chaos_row = row("chaos");
    // Ignoring them is best; failing is acceptable if the error says why.
    if chaos_row["state"] != "ready" {
        let error = chaos_row["error"].as_str().unwrap_or("");
        assert!(
            !error.contains("exited with status 0"),
            "the error blames an exit mcpick caused: {chaos_row}"
        );
        assert!(
            error.contains("999999"),
            "the error should name the id: {chaos_row}"
        );
    }
    assert_eq!(row("builtin")["state"], "ready");
    chaos.assert_gone("chaos");
}

#[test]
fn a_response_whose_id_has_another_type_is_not_the_answer() {
    let chaos = Chaos::new("typed-ids", "timeout_ms = 5000");
    let hello = chaos.run(&["get", "chaos/hello"]);
    assert_eq!(hello.success(), "hello from chaos\n");
    still_works(&chaos);
    chaos.assert_gone("chaos");
}

/// A malformed answer to `prompts/get` (`malformed:KIND`) fails the request at once with
/// the error naming why, in words holding `why`; before, the SDK dropped it and the request
/// waited for its whole `timeout_ms` ("timed out").
fn an_unreadable_answer_fails_at_once(kind: &str, why: &str) {
    let chaos = Chaos::new(&format!("malformed:{kind}"), "timeout_ms = 20000");
    let run = chaos.run(&["get", "chaos/hello"]);
    let stderr = run.stderr();
    assert_eq!(run.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the server sent an answer mcpick cannot read: \""),
        "{stderr}"
    );
    assert!(stderr.contains(why), "{stderr}");
    assert!(!stderr.contains("timed out"), "{stderr}");
    // Well before the 20 s timeout (a Python start takes a second or two under load).
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    chaos.assert_gone("chaos");
}

#[test]
fn an_answer_with_a_lone_surrogate_fails_at_once() {
    an_unreadable_answer_fails_at_once("surrogate", "holds a lone surrogate");
}

#[test]
fn an_answer_with_a_string_error_code_fails_at_once() {
    an_unreadable_answer_fails_at_once("string-code", "its error `code`");
}

#[test]
fn an_answer_with_a_result_and_an_error_fails_at_once() {
    an_unreadable_answer_fails_at_once("both", "both a `result` and an `error`");
}

#[test]
fn an_answer_nested_too_deep_fails_at_once() {
    an_unreadable_answer_fails_at_once("deep", "nested deeper than 128 levels");
}

#[test]
fn prompts_no_request_can_name_are_the_servers_problems_and_never_suggested() {
    let chaos = Chaos::new("odd-names", "");
    let list = chaos.run(&["list"]);
    let out = list.success();
    let err = list.stderr();
    // Said, as the server's problems, where the other ones are said.
    assert!(
        err.contains("server `chaos`: left out 1 prompt with an empty name"),
        "{err}"
    );
    assert!(
        err.contains("server `chaos`: the server lists 2 prompts named `twin`: kept the first"),
        "{err}"
    );
    // Listed once, the first; no nameless row.
    assert_eq!(out.matches("chaos/twin").count(), 1, "{out}");
    assert!(
        !out.lines()
            .any(|l| l.starts_with("chaos/ ") || l == "chaos/"),
        "{out}"
    );
    assert!(
        out.contains("The first twin") && !out.contains("The second twin"),
        "{out}"
    );
    // "Did you mean" offers only names a request can reach (an empty name is in every
    // name: it was offered for any typo).
    let get = chaos.run(&["get", "chaos/zzz"]);
    assert_eq!(get.code(), Some(2), "{}", get.stderr());
    assert!(!get.stderr().contains("chaos/?"), "{}", get.stderr());
    assert!(!get.stderr().contains("chaos/,"), "{}", get.stderr());
    let get = chaos.run(&["get", "chaos/twn"]);
    assert!(
        get.stderr().contains("Did you mean: chaos/twin?"),
        "{}",
        get.stderr()
    );
    // `doctor` reads them from the catalog the list wrote.
    let doctor = chaos.run(&["doctor"]);
    let said = format!("{}{}", doctor.stdout(), doctor.stderr());
    assert!(
        said.contains("left out 1 prompt with an empty name"),
        "{said}"
    );
    assert!(said.contains("2 prompts named `twin`"), "{said}");
    chaos.assert_gone("chaos");
}

// ───────────────────────────── size ─────────────────────────────

#[test]
fn a_large_answer_under_the_line_limit_is_printed_whole() {
    let chaos = Chaos::new("huge:10", "timeout_ms = 60000");
    let run = chaos.run(&["get", "chaos/huge", "--format", "text"]);
    let out = run.success();
    // One user message: exactly its text.
    let body = out.as_str();
    assert_eq!(body.len(), 10 * 1024 * 1024 + 1, "the text and its newline");
    assert!(body.starts_with(&format!("{}\n", "x".repeat(99))));
    eprintln!(
        "huge:10 (CLI get to a pipe): {:?}, VmHWM {} KiB",
        run.elapsed, run.peak_kib
    );
    chaos.assert_gone("chaos");
}

#[test]
fn many_tiny_messages_take_a_small_multiple_of_the_answer() {
    // 480,000 messages of a few bytes: a 31 MiB answer, within the default
    // max_response_bytes (32 MiB). It peaked at 1.2 GB (the SDK's buffered tree, its typed
    // result, a JSON tree of that, a copy per message; a message took 376 bytes).
    let chaos = Chaos::new("tiny", "timeout_ms = 60000");
    let run = chaos.run(&["get", "chaos/tiny", "--format", "text"]);
    let out = run.success();
    assert!(
        out.ends_with("m479999\n"),
        "{}",
        &out[out.len().saturating_sub(80)..]
    );
    let answer_kib = 31 * 1024;
    eprintln!(
        "tiny (480,000 messages, CLI get to a pipe): {:?}, VmHWM {} KiB ({:.1} x the answer)",
        run.elapsed,
        run.peak_kib,
        run.peak_kib as f64 / answer_kib as f64
    );
    // Generous (6x) so a debug build on a busy machine passes; bench/many_messages.sh
    // measures the release build (under 4x).
    assert!(
        run.peak_kib < 6 * answer_kib,
        "VmHWM {} KiB for a {answer_kib} KiB answer",
        run.peak_kib
    );
    chaos.assert_gone("chaos");
}

#[test]
fn an_answer_over_max_response_bytes_is_a_clear_error() {
    let chaos = Chaos::new("huge:50", "timeout_ms = 20000");
    let run = chaos.run(&["get", "chaos/huge"]);
    assert_eq!(run.code(), Some(1));
    assert!(
        run.stderr().contains("max_response_bytes"),
        "{}",
        run.stderr()
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    assert!(run.peak_kib < MEMORY_BOUND_KIB, "{} KiB", run.peak_kib);
    still_works(&chaos);
    chaos.assert_gone("chaos");
}

#[test]
fn refusing_a_40_mb_answer_holds_none_of_it() {
    // 38.15 MiB of text is a 40 MB answer (its newlines are escaped): over the default
    // max_response_bytes (32 MiB).
    let chaos = Chaos::new("huge:38.15", "timeout_ms = 20000");
    let baseline = chaos.run(&["get", "chaos/hello"]);
    assert_eq!(baseline.success(), "hello from chaos\n");
    let run = chaos.run(&["get", "chaos/huge"]);
    assert_eq!(run.code(), Some(1), "{}", run.stderr());
    assert!(
        run.stderr()
            .contains("was 40403316 bytes (38.5 MiB), more than this server's max_response_bytes (33554432 bytes = 32 MiB)"),
        "{}",
        run.stderr()
    );
    let cost = run.peak_kib.saturating_sub(baseline.peak_kib);
    eprintln!(
        "refusing huge:38.15 (CLI get): VmHWM {} KiB, {} KiB over `get chaos/hello` ({} KiB)",
        run.peak_kib, cost, baseline.peak_kib
    );
    // Holding the answer up to the limit and parsing what was held cost about 65 MiB over
    // the baseline; a line is let go of as it passes the limit, so a few MiB at most now.
    assert!(cost < 16 * 1024, "refusing cost {cost} KiB");
    still_works(&chaos);
    chaos.assert_gone("chaos");
}

/// tests/peers/huge_http.py serving a `huge` answer of `mib` MiB in `framing`; killed when
/// dropped.
struct HugeHttp {
    child: std::process::Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl HugeHttp {
    fn start(mib: &str, framing: &str) -> HugeHttp {
        let dir = tempfile::tempdir().unwrap();
        let port_file = dir.path().join("port");
        let mut child = Command::new(python3())
            .arg(root().join("tests/peers/huge_http.py"))
            .args([mib, framing, "--port-file"])
            .arg(&port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("start huge_http.py");
        let deadline = Instant::now() + Duration::from_secs(30);
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse().ok())
            {
                break port;
            }
            assert!(child.try_wait().unwrap().is_none(), "huge_http.py exited");
            assert!(Instant::now() < deadline, "huge_http.py did not listen");
            std::thread::sleep(Duration::from_millis(50));
        };
        HugeHttp {
            child,
            port,
            _dir: dir,
        }
    }
}

impl Drop for HugeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_legacy_sse_refusing_a_40_mb_event_holds_none_of_it_and_a_raised_limit_takes_it() {
    let server = HugeHttp::start("38.15", "legacy-sse");
    let table = |extra: &str| {
        format!(
            "[servers.h]\nurl = \"http://127.0.0.1:{}/sse\"\ntransport = \"sse\"\ntimeout_ms = 30000\n{extra}",
            server.port
        )
    };
    let sandbox = Sandbox::new(&table(""));
    let baseline = run(sandbox.command(&["get", "h/hello"]));
    assert_eq!(baseline.success(), "hello over http\n");
    let refused = run(sandbox.command(&["get", "h/huge"]));
    assert_eq!(refused.code(), Some(1), "{}", refused.stderr());
    let cost = refused.peak_kib.saturating_sub(baseline.peak_kib);
    eprintln!(
        "refusing a 40 MB SSE event (legacy HTTP+SSE): VmHWM {} KiB, {cost} KiB over `get h/hello`",
        refused.peak_kib
    );
    // Holding the event's data up to the limit cost about 32 MiB over the baseline.
    assert!(cost < 16 * 1024, "refusing cost {cost} KiB");

    // Within a raised limit the same event, held mostly in its file, arrives whole.
    let raised = Sandbox::new(&table("max_response_bytes = 67108864\n"));
    let out = run(raised.command(&["get", "h/huge", "--format", "text"])).success();
    // One user message: exactly its text.
    let body = out.as_str();
    // 38.15 MiB is 400,031 lines of 99 `x` (huge_http.py).
    assert_eq!(body.len(), 400_031 * 100);
    assert!(
        body == format!("{}\n", "x".repeat(99)).repeat(400_031),
        "not the text as sent"
    );
}

#[test]
fn a_raised_max_response_bytes_prints_a_50_mib_answer_whole() {
    let chaos = Chaos::new("huge:50", "max_response_bytes = 67108864");
    let run = chaos.run(&["get", "chaos/huge", "--format", "text"]);
    let out = run.success();
    assert_eq!(out.len(), 50 * 1024 * 1024 + 1);
    eprintln!(
        "huge:50 (CLI get to a pipe): {:?}, VmHWM {} KiB",
        run.elapsed, run.peak_kib
    );
    chaos.assert_gone("chaos");
}

#[test]
fn the_review_opens_a_large_answer() {
    let chaos = Chaos::new("huge:5", "");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 3", SERVER_START);
    open_prompt(&mut tui, "/chaos:huge", "/chaos:huge");
    tui.wait_for("#1 user · text", STEP);
    tui.wait_for(&"x".repeat(99), STEP);
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}

#[test]
fn a_hundred_thousand_prompts_are_all_listed() {
    for (modes, what) in [("many", "one page"), ("many,page:1000", "pages of 1000")] {
        let chaos = Chaos::new(modes, "timeout_ms = 60000");
        let run = chaos.run(&["list", "--json"]);
        let list: serde_json::Value = serde_json::from_str(&run.success()).unwrap();
        let mut per_server: BTreeMap<String, usize> = BTreeMap::new();
        for prompt in list.as_array().unwrap() {
            *per_server
                .entry(prompt["server"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
        // 100000 + hello, greet and the needle.
        assert_eq!(per_server["chaos"], 100_003, "{what}");
        assert!(per_server["builtin"] > 5, "{what}: {per_server:?}");
        eprintln!(
            "many:100000 ({what}): list --json in {:?}, VmHWM {} KiB",
            run.elapsed, run.peak_kib
        );
        if modes.contains("page") {
            let lists = chaos.stats("chaos")["requests"]["prompts/list"]
                .as_u64()
                .unwrap();
            assert_eq!(lists, 101, "one request a page");
        }
        chaos.assert_gone("chaos");
    }
}

#[test]
fn the_menu_filters_a_hundred_thousand_prompts() {
    let chaos = Chaos::new("many", "timeout_ms = 60000");
    let mut tui = chaos.tui(&[]);
    tui.wait_for("● builtin", SERVER_START);
    tui.wait_for("● chaos 100003", SERVER_START);
    let menu = tui.wait_until("all prompts counted", STEP, |s| s.contains("/1000"));
    assert!(menu.contains("prompt-0000"), "{menu}");
    search(&mut tui, "needle");
    let found = tui.wait_for("/chaos:needle-42", STEP);
    assert!(found.contains("Needle in the haystack"), "{found}");
    back_to_menu(&mut tui);
    search(&mut tui, "prompt-99999");
    let found = tui.wait_for("/chaos:prompt-99999", STEP);
    assert!(found.contains("Prompt number 99999"), "{found}");
    tui.send(ENTER);
    tui.wait_for("you found prompt-99999", STEP);
    let peak = vm_hwm_kib(tui.pid()).unwrap();
    eprintln!("many:100000 (menu): VmHWM {peak} KiB");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "left without a result");
    chaos.assert_gone("chaos");
}
