//! Writing results to stdout and diagnostics to stderr, safely.

use std::io::{IsTerminal, Write};

use crate::text;

/// Prints a diagnostic line to stderr, prefixed with `mcpick: ` and neutralised if it is
/// a terminal (messages can quote server text).
pub fn error(message: &str) {
    let stderr = std::io::stderr();
    let terminal = stderr.is_terminal();
    let mut stderr = stderr.lock();
    let _ = writeln!(stderr, "mcpick: {}", text::for_output(message, terminal));
}

/// Prints a diagnostic continuation line (indented, no prefix) to stderr.
pub fn detail(message: &str) {
    let stderr = std::io::stderr();
    let terminal = stderr.is_terminal();
    let _ = writeln!(stderr.lock(), "  {}", text::for_output(message, terminal));
}

/// Writes a result to stdout. Server text is neutralised when stdout is a terminal and kept
/// verbatim for files and pipes. A closed pipe (`| head`) is not an error.
pub fn result(body: &str) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    let mut lock = stdout.lock();
    let written = lock
        .write_all(text::for_output(body, terminal).as_bytes())
        .and_then(|()| lock.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
