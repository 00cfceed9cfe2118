//! mcpick (or any command) in a pseudo-terminal: its output parsed by a terminal emulator
//! (vt100) and read back as a screen, the raw bytes kept, driven by key bytes.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

use super::Sandbox;

pub const ROWS: u16 = 40;
pub const COLS: u16 = 120;

/// How long servers may take to connect (node and Python start on a busy 2-core machine).
pub const SERVER_START: Duration = Duration::from_secs(30);
/// How long one step (a key and its redraw, a `prompts/get`) may take.
pub const STEP: Duration = Duration::from_secs(15);

pub const ENTER: &str = "\r";
pub const TAB: &str = "\t";
pub const ESC: &str = "\x1b";
pub const CTRL_C: &str = "\x03";
pub const CTRL_L: &str = "\x0c";
pub const CTRL_S: &str = "\x13";

/// A program asking where the cursor is (DSR 6); the driver answers as a terminal would.
const CURSOR_QUERY: &[u8] = b"\x1b[6n";

/// crossterm waits a moment after a lone ESC to tell it from the start of a sequence; keys
/// sent within that window may be read as part of one.
pub const AFTER_ESC: Duration = Duration::from_millis(300);

/// What the reader thread collects from the PTY.
pub struct Output {
    parser: vt100::Parser<Requests>,
    raw: Vec<u8>,
}

/// What the output asked of the terminal beyond drawing: window titles, clipboard writes,
/// other OSC sequences. A terminal acts on these, so server text must never produce them.
#[derive(Debug, Default, Clone)]
pub struct Requests {
    /// OSC 0/2 window titles.
    pub titles: Vec<String>,
    /// OSC 0/1 icon names.
    pub icon_names: Vec<String>,
    /// OSC 52 clipboard writes (base64 data).
    pub clipboard: Vec<String>,
    /// Other OSC sequences (e.g. OSC 8 hyperlinks), their parameters joined with `;`.
    pub other_osc: Vec<String>,
}

impl Requests {
    /// Whether nothing was asked.
    pub fn is_empty(&self) -> bool {
        self.titles.is_empty()
            && self.icon_names.is_empty()
            && self.clipboard.is_empty()
            && self.other_osc.is_empty()
    }
}

impl vt100::Callbacks for Requests {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.titles
            .push(String::from_utf8_lossy(title).into_owned());
    }

    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.icon_names
            .push(String::from_utf8_lossy(name).into_owned());
    }

    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _ty: &[u8], data: &[u8]) {
        self.clipboard
            .push(String::from_utf8_lossy(data).into_owned());
    }

    fn unhandled_osc(&mut self, _: &mut vt100::Screen, params: &[&[u8]]) {
        let params: Vec<String> = params
            .iter()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        self.other_osc.push(params.join(";"));
    }
}

/// mcpick running in a PTY. Dropping it kills the process, so a failing test leaves nothing
/// behind.
pub struct Tui {
    output: Arc<Mutex<Output>>,
    eof: Arc<AtomicBool>,
    /// How many of the fixed answers ([`Answers`]) were written so far.
    answered: Arc<AtomicUsize>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    /// The process.
    pub child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
}

impl Tui {
    /// `mcpick --config <sandbox config> ARGS` in the sandbox, with its own XDG dirs and home.
    pub fn start(sandbox: &Sandbox, args: &[&str]) -> Tui {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
        command.arg("--config");
        command.arg(sandbox.config());
        command.args(args);
        Tui::spawn(sandbox, command)
    }

    /// `mcpick --config <sandbox config> ARGS` in a PTY that answers queries as `terminal`.
    pub fn start_in(sandbox: &Sandbox, args: &[&str], terminal: Answers) -> Tui {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
        command.arg("--config");
        command.arg(sandbox.config());
        command.args(args);
        Tui::spawn_answering(sandbox, command, terminal)
    }

    /// Runs `command` in a fresh PTY with the sandbox's environment.
    pub fn spawn(sandbox: &Sandbox, command: CommandBuilder) -> Tui {
        Tui::spawn_answering(sandbox, command, Answers::default())
    }

    /// [`Tui::spawn`] in a terminal that also answers `terminal`'s queries.
    pub fn spawn_answering(
        sandbox: &Sandbox,
        mut command: CommandBuilder,
        terminal: Answers,
    ) -> Tui {
        isolate(&mut command, sandbox.dir.path());

        let pair = open_pty();
        let child = pair.slave.spawn_command(command).expect("start mcpick");
        // Only the child holds the slave now, so the reader sees EOF when it exits.
        drop(pair.slave);

        let mut reader = pair.master.try_clone_reader().expect("PTY reader");
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("PTY writer")));
        let output = Arc::new(Mutex::new(Output {
            parser: vt100::Parser::new_with_callbacks(ROWS, COLS, 0, Requests::default()),
            raw: Vec::new(),
        }));
        let eof = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicUsize::new(0));
        {
            let output = output.clone();
            let eof = eof.clone();
            let answered = answered.clone();
            let answers = writer.clone();
            std::thread::spawn(move || {
                let mut buffer = [0u8; 8192];
                loop {
                    match reader.read(&mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let mut output = output.lock().unwrap();
                            let seen = output.raw.len();
                            output.raw.extend_from_slice(&buffer[..n]);
                            // Process up to each cursor position request, then answer it
                            // as a terminal does (vt100 only parses).
                            let mut done = seen;
                            let from = seen.saturating_sub(CURSOR_QUERY.len() - 1);
                            let queries: Vec<usize> = output.raw[from..]
                                .windows(CURSOR_QUERY.len())
                                .enumerate()
                                .filter(|(_, w)| *w == CURSOR_QUERY)
                                .map(|(i, _)| from + i + CURSOR_QUERY.len())
                                .collect();
                            for end in queries {
                                let chunk = output.raw[done.max(seen)..end].to_vec();
                                output.parser.process(&chunk);
                                done = end;
                                let (row, col) = output.parser.screen().cursor_position();
                                let answer = format!("\x1b[{};{}R", row + 1, col + 1);
                                let mut w = answers.lock().unwrap();
                                let _ = w.write_all(answer.as_bytes());
                                let _ = w.flush();
                            }
                            let rest = output.raw[done.max(seen)..].to_vec();
                            output.parser.process(&rest);
                            // The fixed answers, in the order their queries came.
                            let longest = terminal.longest_query();
                            let from = seen.saturating_sub(longest.saturating_sub(1));
                            let mut due: Vec<(usize, &[u8])> = terminal
                                .0
                                .iter()
                                .flat_map(|(query, answer)| {
                                    output.raw[from..]
                                        .windows(query.len())
                                        .enumerate()
                                        .filter(|(_, w)| w == query)
                                        .map(|(i, _)| (from + i + query.len(), answer.as_slice()))
                                        .filter(|(end, _)| *end > seen)
                                        .collect::<Vec<_>>()
                                })
                                .collect();
                            due.sort_by_key(|(end, _)| *end);
                            let due: Vec<Vec<u8>> =
                                due.into_iter().map(|(_, a)| a.to_vec()).collect();
                            let answers = answers.clone();
                            let answered = answered.clone();
                            let write = move || {
                                for answer in due {
                                    let mut w = answers.lock().unwrap();
                                    let _ = w.write_all(&answer);
                                    let _ = w.flush();
                                    answered.fetch_add(1, Ordering::SeqCst);
                                }
                            };
                            // A slow terminal (a long round trip over SSH) answers later,
                            // while the reader goes on.
                            match terminal.1 {
                                Duration::ZERO => write(),
                                delay => {
                                    std::thread::spawn(move || {
                                        std::thread::sleep(delay);
                                        write();
                                    });
                                }
                            }
                        }
                    }
                }
                eof.store(true, Ordering::SeqCst);
            });
        }
        Tui {
            output,
            eof,
            answered,
            writer,
            child,
            _master: pair.master,
        }
    }

    /// The screen as text, one line per row.
    pub fn screen(&self) -> String {
        self.output.lock().unwrap().parser.screen().contents()
    }

    /// The foreground and background of the cell at `row`, `column` (0-based).
    pub fn cell_colors(&self, row: u16, column: u16) -> Option<(vt100::Color, vt100::Color)> {
        let output = self.output.lock().unwrap();
        let cell = output.parser.screen().cell(row, column)?;
        Some((cell.fgcolor(), cell.bgcolor()))
    }

    /// Everything the process wrote to the terminal so far.
    pub fn raw(&self) -> Vec<u8> {
        self.output.lock().unwrap().raw.clone()
    }

    /// What the output asked of the terminal so far (titles, clipboard, other OSC).
    pub fn requests(&self) -> Requests {
        self.output.lock().unwrap().parser.callbacks().clone()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("the process has a pid")
    }

    /// Waits until the screen contains `needle`; returns the screen. On timeout, panics with
    /// the whole screen.
    pub fn wait_for(&mut self, needle: &str, timeout: Duration) -> String {
        self.wait_until(&format!("{needle:?} on screen"), timeout, |screen| {
            screen.contains(needle)
        })
    }

    /// Waits until the screen no longer contains `needle`.
    pub fn wait_gone(&mut self, needle: &str, timeout: Duration) -> String {
        self.wait_until(&format!("{needle:?} gone"), timeout, |screen| {
            !screen.contains(needle)
        })
    }

    /// Waits until `done(screen)`; returns the screen. On timeout (or if mcpick exits first),
    /// panics with `what` and the whole screen.
    pub fn wait_until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            let exited = self.child.try_wait().ok().flatten();
            if exited.is_some() {
                // Its last output may still be on the way: read it all, then look again.
                let drained = Instant::now() + Duration::from_secs(5);
                while !self.eof.load(Ordering::SeqCst) && Instant::now() < drained {
                    std::thread::sleep(Duration::from_millis(20));
                }
                let screen = self.screen();
                if done(&screen) {
                    return screen;
                }
            }
            if exited.is_some() || Instant::now() >= deadline {
                let why = match exited {
                    Some(status) => format!("mcpick exited ({status:?})"),
                    None => format!("timed out after {timeout:?}"),
                };
                panic!(
                    "waiting for {what}: {why}; the screen:\n{}\n{}\n{}",
                    "─".repeat(COLS as usize),
                    screen,
                    "─".repeat(COLS as usize)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `count` of the fixed answers ([`Answers`]) were written to the program,
    /// so keys sent afterwards reach it after them.
    pub fn wait_answered(&mut self, count: usize, timeout: Duration) {
        let answered = self.answered.clone();
        self.wait_until(&format!("{count} answers written"), timeout, |_| {
            answered.load(Ordering::SeqCst) >= count
        });
    }

    /// Sends bytes as typed keys.
    pub fn send(&mut self, keys: &str) {
        let mut writer = self.writer.lock().unwrap();
        writer.write_all(keys.as_bytes()).expect("write to PTY");
        writer.flush().expect("flush PTY");
    }

    /// Sends ESC, then waits out crossterm's escape-sequence window so the next key is read
    /// on its own.
    pub fn send_esc(&mut self) {
        self.send(ESC);
        std::thread::sleep(AFTER_ESC);
    }

    /// Waits for mcpick to exit and for its last output to be read; returns the exit code.
    pub fn wait_exit(&mut self, timeout: Duration) -> u32 {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("poll mcpick") {
                break status;
            }
            if Instant::now() >= deadline {
                panic!(
                    "mcpick did not exit within {timeout:?}; the screen:\n{}",
                    self.screen()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        // The output is complete once the reader hits EOF (bounded: a stray holder of the
        // slave would keep it open, and the assertions on the output then say what is missing).
        let drained = Instant::now() + Duration::from_secs(5);
        while !self.eof.load(Ordering::SeqCst) && Instant::now() < drained {
            std::thread::sleep(Duration::from_millis(20));
        }
        status.exit_code()
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Queries a terminal answers with fixed bytes (beyond the cursor position, always
/// answered at once): each query's bytes, and the answer written once they have been seen,
/// after the delay (see [`Answers::delayed`]).
#[derive(Debug, Clone, Default)]
pub struct Answers(pub Vec<(Vec<u8>, Vec<u8>)>, Duration);

impl Answers {
    /// These answers, each written `delay` after its query was seen (a terminal over a
    /// slow SSH link, or behind GNU screen).
    pub fn delayed(self, delay: Duration) -> Answers {
        Answers(self.0, delay)
    }

    /// A kitty terminal ([`Answers::kitty`]) that also answers OSC 11 with the background
    /// `rgb` (as `rgb:RRRR/GGGG/BBBB`, ended by ST).
    pub fn kitty_with_background(rgb: &str) -> Answers {
        let mut answers = Answers::kitty();
        answers.0.insert(
            0,
            (
                b"\x1b]11;?\x1b\\".to_vec(),
                format!("\x1b]11;rgb:{rgb}\x1b\\").into_bytes(),
            ),
        );
        answers
    }

    /// A terminal speaking the kitty graphics protocol, with 10×20-pixel cells, that
    /// answers DA1 without sixel (as kitty does).
    pub fn kitty() -> Answers {
        Answers(
            vec![
                (
                    b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\".to_vec(),
                    b"\x1b_Gi=31;OK\x1b\\".to_vec(),
                ),
                (b"\x1b[16t".to_vec(), b"\x1b[6;20;10t".to_vec()),
                (b"\x1b[14t".to_vec(), b"\x1b[4;800;1200t".to_vec()),
                (b"\x1b[c".to_vec(), b"\x1b[?62;22c".to_vec()),
            ],
            Duration::ZERO,
        )
    }

    /// A terminal that answers DA1, and OSC 11 with the background `rgb` (as
    /// `rgb:RRRR/GGGG/BBBB`, ended by ST), when given.
    pub fn with_background(rgb: Option<&str>) -> Answers {
        let mut answers = vec![(b"\x1b[c".to_vec(), b"\x1b[?62;22c".to_vec())];
        if let Some(rgb) = rgb {
            answers.insert(
                0,
                (
                    b"\x1b]11;?\x1b\\".to_vec(),
                    format!("\x1b]11;rgb:{rgb}\x1b\\").into_bytes(),
                ),
            );
        }
        Answers(answers, Duration::ZERO)
    }

    fn longest_query(&self) -> usize {
        self.0.iter().map(|(q, _)| q.len()).max().unwrap_or(1)
    }
}

/// A new pseudo-terminal of ROWS × COLS.
pub fn open_pty() -> portable_pty::PtyPair {
    native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("open a PTY")
}

/// Runs `command` in `dir`, with `dir` as its home and XDG folders, a known terminal, and
/// none of the environment that would change what mcpick does (a config, an editor, a
/// display for the clipboard, tmux).
pub fn isolate(command: &mut CommandBuilder, dir: &Path) {
    command.cwd(dir);
    command.env("TERM", "xterm-256color");
    command.env("HOME", dir);
    command.env("XDG_CONFIG_HOME", dir.join("xdg-config"));
    command.env("XDG_DATA_HOME", dir.join("xdg-data"));
    command.env("XDG_STATE_HOME", dir.join("xdg-state"));
    command.env("XDG_CACHE_HOME", dir.join("xdg-cache"));
    for name in [
        "MCPICK_CONFIG",
        "NO_COLOR",
        "VISUAL",
        "EDITOR",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "TMUX",
        // What names the terminal, which the graphics choice reads (STY stays: a test
        // sets it to be inside GNU screen; one that must not be removes it itself).
        "ZELLIJ",
        "TERM_PROGRAM",
        "LC_TERMINAL",
        "WEZTERM_EXECUTABLE",
        "KONSOLE_VERSION",
    ] {
        command.env_remove(name);
    }
}

/// The output file's text, with a helpful failure.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Where `--output` writes, inside the sandbox (not existing yet, so no overwrite question).
pub fn out_file(sandbox: &Sandbox) -> PathBuf {
    sandbox.dir.path().join("out.md")
}

/// The text after the last leave-alternate-screen sequence, without control sequences and
/// with the terminal's CRLF line ends turned back into LF.
pub fn after_leaving_alternate_screen(raw: &[u8]) -> String {
    const LEAVE: &[u8] = b"\x1b[?1049l";
    let at = raw
        .windows(LEAVE.len())
        .rposition(|w| w == LEAVE)
        .unwrap_or_else(|| {
            panic!(
                "the terminal never left the alternate screen; the output:\n{}",
                String::from_utf8_lossy(raw)
            )
        });
    let text = String::from_utf8_lossy(&raw[at + LEAVE.len()..]).into_owned();
    strip_csi(&text).replace("\r\n", "\n")
}

/// Removes CSI sequences (`ESC [ params final`).
pub fn strip_csi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            for c in chars.by_ref() {
                if ('\x40'..='\x7e').contains(&c) {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// From the menu: filters on `search`, waits for `/server:prompt` to be the selection, opens it.
pub fn open_prompt(tui: &mut Tui, search: &str, server_prompt: &str) {
    tui.send(search);
    tui.wait_for(&format!("❯ {search}"), STEP);
    tui.wait_for(server_prompt, STEP);
    tui.send(ENTER);
}
