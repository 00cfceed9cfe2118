//! The terminal while mcpick owns it: raw mode, alternate screen, mouse and bracketed paste,
//! always restored (on drop, on error, and on panic).

use std::io::{self, IsTerminal, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::App;

/// Where the screen is drawn: stdout, or stderr when stdout is a pipe (`--print | llm`).
type Output = Box<dyn Write + Send>;

fn output() -> Output {
    if io::stdout().is_terminal() {
        Box::new(io::BufWriter::new(io::stdout()))
    } else {
        Box::new(io::BufWriter::new(io::stderr()))
    }
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let mut out = output();
    let _ = execute!(
        out,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
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
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen.
    pub fn enter() -> Result<TerminalGuard, String> {
        install_panic_hook();
        enable_raw_mode().map_err(|e| format!("cannot put the terminal in raw mode: {e}"))?;
        let mut out = output();
        if let Err(e) = execute!(
            out,
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste
        ) {
            restore();
            return Err(format!("cannot set up the terminal: {e}"));
        }
        let terminal = Terminal::new(CrosstermBackend::new(out)).map_err(|e| {
            restore();
            format!("cannot set up the terminal: {e}")
        })?;
        Ok(TerminalGuard { terminal })
    }

    /// Draws one frame.
    pub fn draw(&mut self, app: &App) -> Result<(), String> {
        self.terminal
            .draw(|frame| crate::ui::draw(app, frame))
            .map(|_| ())
            .map_err(|e| format!("cannot draw: {e}"))
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
        let _ = enable_raw_mode();
        let backend = self.terminal.backend_mut();
        let _ = execute!(
            backend,
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste,
            crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
        );
        // Forget the last frame so the next draw repaints everything. (`Terminal::clear`
        // would ask the terminal for the cursor position, an answer the event reader eats.)
        self.terminal.swap_buffers();
        result
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = self.terminal.show_cursor();
        let _ = self.terminal.backend_mut().flush();
        restore();
    }
}
