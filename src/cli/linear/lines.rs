//! The screen reader mode's input and output: whole lines typed in the terminal's own
//! (cooked) mode, read one at a time and only when asked (so an editor started meanwhile
//! has the terminal to itself), and plain lines printed once, neutralised.

use std::io::{BufRead, Write};

/// Lines typed on standard input.
pub(super) struct Lines {
    /// Asks the reader thread for one more line.
    ask: std::sync::mpsc::Sender<()>,
    /// Its lines; `None` at the end of input.
    answers: tokio::sync::mpsc::UnboundedReceiver<Option<String>>,
    /// A line was asked for and not taken yet.
    pending: bool,
}

impl Lines {
    /// Starts the reader thread (it reads nothing until asked).
    pub(super) fn start() -> Lines {
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let (answer, answers) = tokio::sync::mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            while asked.recv().is_ok() {
                let mut bytes = Vec::new();
                let line = match stdin.lock().read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => {
                        while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                            bytes.pop();
                        }
                        Some(String::from_utf8_lossy(&bytes).into_owned())
                    }
                };
                let end = line.is_none();
                if answer.send(line).is_err() || end {
                    break;
                }
            }
        });
        Lines {
            ask,
            answers,
            pending: false,
        }
    }

    /// The next line typed, `None` at the end of input. Cancel-safe: a line asked for and
    /// not taken is the next call's.
    pub(super) async fn next(&mut self) -> Option<String> {
        if !self.pending {
            let _ = self.ask.send(());
            self.pending = true;
        }
        let line = self.answers.recv().await.flatten();
        self.pending = false;
        line
    }
}

/// Where the conversation is written: stdout when it is the terminal, else stderr, so
/// `mcpick --screen-reader --print | llm` talks on the terminal and pipes only the export.
fn conversation() -> Box<dyn Write> {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    if stdout.is_terminal() || !std::io::stderr().is_terminal() {
        Box::new(stdout.lock())
    } else {
        Box::new(std::io::stderr().lock())
    }
}

/// Prints `line` and a line end, its controls and invisible characters named
/// (`text::sanitize`): nothing a server sent reaches the terminal raw.
pub(super) fn say(line: &str) {
    let mut out = conversation();
    let _ = writeln!(out, "{}", crate::text::sanitize(line));
    let _ = out.flush();
}

/// Prints a prompt (`menu> `) with no line end, for the answer to follow on its line.
pub(super) fn prompt(text: &str) {
    let mut out = conversation();
    let _ = write!(out, "{}", crate::text::sanitize(text));
    let _ = out.flush();
}
