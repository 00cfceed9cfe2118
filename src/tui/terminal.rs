//! The terminal while mcpick owns it: raw mode, the alternate screen (or, inline, the
//! bottom rows of the normal one), mouse and bracketed paste, always restored (on drop, on
//! error, and on panic).

use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use crate::app::App;

/// How much of the terminal mcpick takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenMode {
    /// The whole screen (the alternate screen, as a full-screen program).
    Full,
    /// The bottom rows below the cursor, as fzf's `--height`: what is above stays visible.
    Inline(Height),
}

/// `--height N` or `--height N%`: how many rows of the terminal the menu takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Height {
    /// This many rows.
    Rows(u16),
    /// This share of the terminal's rows.
    Percent(u8),
}

impl Height {
    /// Parses `N` (rows, at least 1) or `N%` (1 to 100).
    pub fn parse(text: &str) -> Result<Height, String> {
        let bad = || format!("`{text}` is not a height: write rows (`15`) or a share (`40%`)");
        match text.strip_suffix('%') {
            Some(percent) => match percent.trim().parse::<u8>() {
                Ok(p @ 1..=100) => Ok(Height::Percent(p)),
                _ => Err(bad()),
            },
            None => match text.trim().parse::<u16>() {
                Ok(rows @ 1..) => Ok(Height::Rows(rows)),
                _ => Err(bad()),
            },
        }
    }

    /// The rows this means in a terminal of `rows` rows (at least one, at most all).
    pub fn rows_of(self, rows: u16) -> u16 {
        let wanted = match self {
            Height::Rows(n) => n,
            Height::Percent(p) => ((u32::from(rows) * u32::from(p)).div_ceil(100)) as u16,
        };
        wanted.clamp(1, rows.max(1))
    }
}

/// Where the screen is drawn: stdout when it is the terminal, else the terminal itself
/// (`/dev/tty`), so `mcpick --print | llm` and `$(mcpick --print)` draw where the user
/// looks; stderr as a last resort.
type Output = Box<dyn Write + Send>;

fn output() -> Output {
    if io::stdout().is_terminal() {
        return Box::new(io::BufWriter::new(io::stdout()));
    }
    match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        Ok(tty) => Box::new(io::BufWriter::new(tty)),
        Err(_) => Box::new(io::BufWriter::new(io::stderr())),
    }
}

/// The rows an inline run draws in, and where the cursor was when it began.
#[derive(Debug, Clone, Copy)]
struct InlineArea {
    /// The rows.
    area: Rect,
    /// The column the cursor was at on the line above the rows, when that line held text
    /// (a shell prompt: a widget's line); else the cursor was at the rows' first line.
    column_above: Option<u16>,
}

impl InlineArea {
    /// Where the cursor goes back to on exit.
    fn origin(&self) -> (u16, u16) {
        match self.column_above {
            Some(column) if self.area.y > 0 => (column, self.area.y - 1),
            _ => (0, self.area.y),
        }
    }
}

/// The inline rows, so a restore (also the panic hook's) can clear them.
static INLINE_AREA: Mutex<Option<InlineArea>> = Mutex::new(None);

fn set_inline_area(inline: Option<InlineArea>) {
    *INLINE_AREA.lock().unwrap_or_else(|e| e.into_inner()) = inline;
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut out = output();
    let inline = INLINE_AREA.lock().map(|mut a| a.take()).unwrap_or(None);
    match inline {
        Some(inline) => {
            // Inline: clear the rows drawn in and put the cursor back where it was.
            let (column, row) = inline.origin();
            let _ = execute!(
                out,
                DisableBracketedPaste,
                DisableMouseCapture,
                crossterm::cursor::MoveTo(0, inline.area.y),
                crossterm::terminal::Clear(crossterm::terminal::ClearType::FromCursorDown),
                crossterm::cursor::MoveTo(column, row),
                crossterm::cursor::Show
            );
        }
        None => {
            let _ = execute!(
                out,
                DisableBracketedPaste,
                DisableMouseCapture,
                LeaveAlternateScreen,
                crossterm::cursor::Show
            );
        }
    }
    let _ = out.flush();
}

/// Set by the panic hook: the loop must stop, even when the panic was in a task that the
/// runtime caught, because the terminal is no longer in TUI mode.
pub static PANICKED: AtomicBool = AtomicBool::new(false);

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // Restore first, so the panic message lands on a usable terminal.
            PANICKED.store(true, Ordering::SeqCst);
            restore();
            previous(info);
        }));
    });
}

/// The terminal in TUI mode; dropping it restores the terminal.
pub struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Output>>,
    mode: ScreenMode,
    /// Inline: the rows drawn in.
    inline: Option<InlineArea>,
    /// Where the last frame drew what a click can land on (terminal cells).
    hits: crate::app::Hits,
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen, or (inline) makes room below the cursor.
    pub fn enter(mode: ScreenMode) -> Result<TerminalGuard, String> {
        install_panic_hook();
        enable_raw_mode().map_err(|e| format!("cannot put the terminal in raw mode: {e}"))?;
        let setup = |e: io::Error| {
            restore();
            format!("cannot set up the terminal: {e}")
        };
        let mut out = output();
        let (terminal, inline) = match mode {
            ScreenMode::Full => {
                // Cleared: the alternate screen may hold what a killed program left there,
                // and the first frame writes only the cells it draws.
                execute!(
                    out,
                    EnterAlternateScreen,
                    crossterm::terminal::Clear(crossterm::terminal::ClearType::All),
                    EnableMouseCapture,
                    EnableBracketedPaste
                )
                .map_err(setup)?;
                (
                    Terminal::new(CrosstermBackend::new(out)).map_err(setup)?,
                    None,
                )
            }
            ScreenMode::Inline(height) => {
                let inline = make_room(&mut out, height).map_err(setup)?;
                set_inline_area(Some(inline));
                let area = inline.area;
                // The rows taken start blank, whatever they held.
                execute!(
                    out,
                    crossterm::cursor::MoveTo(0, area.y),
                    crossterm::terminal::Clear(crossterm::terminal::ClearType::FromCursorDown),
                    EnableMouseCapture,
                    EnableBracketedPaste
                )
                .map_err(setup)?;
                let options = TerminalOptions {
                    viewport: Viewport::Fixed(area),
                };
                let terminal =
                    Terminal::with_options(CrosstermBackend::new(out), options).map_err(setup)?;
                (terminal, Some(inline))
            }
        };
        Ok(TerminalGuard {
            terminal,
            mode,
            inline,
            hits: crate::app::Hits::default(),
        })
    }

    /// The size the app draws in: the terminal's, or (inline) the rows it has.
    pub fn drawing_size(&self, columns: u16, rows: u16) -> (u16, u16) {
        match self.inline {
            Some(inline) => (columns, inline.area.height.min(rows)),
            None => (columns, rows),
        }
    }

    /// The first terminal row the app draws in: 0, or (inline) the top of its rows.
    pub fn top(&self) -> u16 {
        self.inline.map_or(0, |inline| inline.area.y)
    }

    /// Follows a resize of the terminal; returns the size the app now draws in.
    pub fn resized(&mut self, columns: u16, rows: u16) -> (u16, u16) {
        let (ScreenMode::Inline(height), Some(mut inline)) = (self.mode, self.inline) else {
            return (columns, rows);
        };
        let old = inline.area;
        let height = height.rows_of(rows);
        let mut area = Rect::new(0, old.y.min(rows.saturating_sub(height)), columns, height);
        // ratatui clears the whole screen and starts at the top when the width shrinks.
        if columns < old.width {
            area.y = 0;
            inline.column_above = None;
        }
        let _ = self.terminal.resize(area);
        inline.area = area;
        self.inline = Some(inline);
        set_inline_area(Some(inline));
        (columns, height)
    }

    /// Draws one frame.
    pub fn draw(&mut self, app: &App) -> Result<(), String> {
        let mut hits = crate::app::Hits::default();
        self.terminal
            .draw(|frame| hits = crate::ui::draw_with_hits(app, frame))
            .map_err(|e| format!("cannot draw: {e}"))?;
        self.hits = hits;
        Ok(())
    }

    /// Where the last frame drew what a click can land on.
    pub fn hits(&self) -> &crate::app::Hits {
        &self.hits
    }

    /// Writes bytes straight to the terminal (OSC 52).
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        let backend = self.terminal.backend_mut();
        backend.write_all(bytes)?;
        backend.flush()
    }

    /// Hands the terminal to `work` (an editor), then takes it back and redraws in full.
    pub fn suspend_for<T>(&mut self, work: impl FnOnce() -> T) -> T {
        restore();
        let result = work();
        self.take_back();
        result
    }

    /// Puts the terminal in the menu's modes again (raw, the alternate screen or the inline
    /// rows, mouse, paste) and forgets the last frame, so the next draw repaints it all:
    /// after an editor, or a stop during which the shell set its own modes.
    pub fn take_back(&mut self) {
        // crossterm skips enabling raw mode it believes on; after a stop it may not be
        // (the shell set its own modes), so the belief is dropped first.
        let _ = disable_raw_mode();
        let _ = enable_raw_mode();
        let backend = self.terminal.backend_mut();
        match self.inline {
            // Inline: the same rows again (restore cleared them).
            Some(inline) => {
                set_inline_area(Some(inline));
                let _ = execute!(backend, EnableMouseCapture, EnableBracketedPaste);
            }
            None => {
                let _ = execute!(
                    backend,
                    EnterAlternateScreen,
                    EnableMouseCapture,
                    EnableBracketedPaste,
                    crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
                );
            }
        }
        // Forget the last frame so the next draw repaints everything. (`Terminal::clear`
        // would ask the terminal for the cursor position, an answer the event reader eats.)
        self.terminal.swap_buffers();
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = self.terminal.show_cursor();
        let _ = self.terminal.backend_mut().flush();
        restore();
    }
}

/// Inline: moves below what the cursor is on, scrolls the terminal up as far as needed for
/// `height` rows, and returns those rows. The cursor position is asked of the terminal on
/// the same device the screen is drawn on (crossterm asks through stdout, which may be a
/// pipe).
fn make_room(out: &mut Output, height: Height) -> io::Result<InlineArea> {
    let (columns, rows) = crossterm::terminal::size()?;
    let (column, row) = cursor_position(out)?;
    let height = height.rows_of(rows);
    // A line already holding text (a shell prompt) keeps it: start on the next one.
    let first = if column > 0 { row + 1 } else { row };
    let mut room = String::new();
    if column > 0 {
        room.push_str("\r\n");
    }
    // Newlines scroll the screen when there are not enough rows below; then back up.
    room.push_str(&"\n".repeat(usize::from(height.saturating_sub(1))));
    if height > 1 {
        room.push_str(&format!("\x1b[{}A", height - 1));
    }
    room.push('\r');
    out.write_all(room.as_bytes())?;
    out.flush()?;
    let top = first.min(rows.saturating_sub(height));
    Ok(InlineArea {
        area: Rect::new(0, top, columns, height),
        column_above: (column > 0).then_some(column),
    })
}

/// Where the cursor is (column, row), 0-based, asked with `ESC [ 6 n`.
fn cursor_position(out: &mut Output) -> io::Result<(u16, u16)> {
    if io::stdout().is_terminal() {
        return crossterm::cursor::position();
    }
    out.flush()?;
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    tty.write_all(b"\x1b[6n")?;
    tty.flush()?;
    read_cursor_report(&mut tty, Duration::from_secs(2))
}

/// Reads `tty` until a cursor report arrives, or fails once `timeout` passed without one.
fn read_cursor_report(tty: &mut std::fs::File, timeout: Duration) -> io::Result<(u16, u16)> {
    let deadline = Instant::now() + timeout;
    let mut answer = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if !crate::sys::tty::wait_readable(tty.as_fd(), left)? {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the terminal did not say where the cursor is (ESC [ 6 n); run without --height",
            ));
        }
        let mut byte = [0u8; 64];
        let n = tty.read(&mut byte)?;
        if n == 0 {
            // The terminal is gone (a hangup): nothing more will come.
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the terminal closed before saying where the cursor is",
            ));
        }
        answer.extend_from_slice(&byte[..n]);
        if let Some(position) = parse_cursor_report(&answer) {
            return Ok(position);
        }
    }
}

/// The last `ESC [ row ; column R` in `bytes`, 0-based (column, row).
fn parse_cursor_report(bytes: &[u8]) -> Option<(u16, u16)> {
    let end = bytes.iter().rposition(|&b| b == b'R')?;
    let start = bytes[..end].windows(2).rposition(|w| w == b"\x1b[")?;
    let body = std::str::from_utf8(&bytes[start + 2..end]).ok()?;
    let (row, column) = body.split_once(';')?;
    let (row, column) = (row.parse::<u16>().ok()?, column.parse::<u16>().ok()?);
    Some((column.saturating_sub(1), row.saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_reports_are_found_among_other_bytes() {
        assert_eq!(parse_cursor_report(b"\x1b[12;1R"), Some((0, 11)));
        assert_eq!(parse_cursor_report(b"ab\x1b[3;40R"), Some((39, 2)));
        assert_eq!(parse_cursor_report(b"\x1b[3;4"), None);
        assert_eq!(parse_cursor_report(b"R"), None);
    }

    #[test]
    fn a_terminal_that_never_reports_the_cursor_fails_at_the_timeout() {
        // The same wait macOS takes: a pty nobody answers on must not block the start.
        let pty = nix::pty::openpty(None, None).expect("a pty");
        let mut tty = std::fs::File::from(pty.slave);
        let started = Instant::now();
        let error = read_cursor_report(&mut tty, Duration::from_millis(150)).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        assert!(
            error.to_string().contains("run without --height"),
            "{error}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        drop(pty.master);
    }

    #[test]
    fn heights_are_rows_or_shares_of_the_terminal() {
        assert_eq!(Height::parse("10"), Ok(Height::Rows(10)));
        assert_eq!(Height::parse("40%"), Ok(Height::Percent(40)));
        for bad in ["0", "0%", "101%", "-3", "ten", "", "%"] {
            assert!(
                Height::parse(bad).unwrap_err().contains("not a height"),
                "{bad}"
            );
        }
        assert_eq!(Height::Percent(40).rows_of(40), 16);
        assert_eq!(Height::Percent(40).rows_of(24), 10);
        assert_eq!(Height::Rows(100).rows_of(24), 24);
        assert_eq!(Height::Percent(1).rows_of(24), 1);
    }
}
