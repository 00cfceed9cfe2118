//! Writing results to stdout and diagnostics to stderr, safely.

use std::io::{IsTerminal, Write};

use crate::text;

/// Prints a diagnostic line to stderr, prefixed with `mcpick: `, its controls neutralised
/// (messages can quote server text).
///
/// Always, also when stderr is a pipe or a file: a diagnostic is for a person, and
/// `mcpick get … 2>&1 | tee log` ends on a terminal all the same. Only results (stdout)
/// stay byte-exact in pipes and files.
pub fn error(message: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "mcpick: {}",
        text::sanitize(message)
    );
}

/// Prints a diagnostic continuation line (indented, no prefix) to stderr, neutralised as
/// [`error`]'s.
pub fn detail(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "  {}", text::sanitize(message));
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

/// Says on stderr what became of a DPoP key the user must know about (a corrupt one
/// replaced), once each.
pub fn tell_dpop_notices() {
    for notice in crate::mcp::oauth::take_dpop_notices() {
        error(&format!("warning: {notice}"));
    }
}

/// `text` as one shell word (bash, zsh, fish): as it is when it holds nothing a shell reads
/// otherwise, else single-quoted, for commands a message tells the user to run.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@+,%=".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
