//! Asking for inputs (`${input:ID}` in the config) on the terminal before servers start:
//! masked, once per input for every server that uses it, kept in memory only. The line
//! reader here is the one the server's questions (questions.rs) are asked with too.

use std::io::{IsTerminal, Write};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};

use super::CliError;
use crate::config::{InputSpec, InputValues, ServerConfig};
use crate::text;

/// `servers` with the inputs they wait for typed in, when stdin and stderr are a terminal.
/// Without one (or for an input skipped with Esc) a server keeps waiting, and the hub
/// reports it failed with how to give the value (`MCPICK_INPUT_ID`).
pub fn ask(servers: Vec<ServerConfig>) -> Result<Vec<ServerConfig>, CliError> {
    let env = |name: &str| std::env::var(name).ok();
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !interactive || servers.iter().all(|s| s.inputs.is_empty()) {
        return Ok(servers);
    }
    let mut wanted: Vec<(InputSpec, Vec<String>)> = Vec::new();
    for server in &servers {
        for spec in &server.inputs {
            match wanted.iter_mut().find(|(w, _)| w.id == spec.id) {
                Some((_, names)) => names.push(server.name.clone()),
                None => wanted.push((spec.clone(), vec![server.name.clone()])),
            }
        }
    }
    let mut values = InputValues::default();
    for (spec, names) in &wanted {
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let what = if spec.description.trim().is_empty() {
            String::new()
        } else {
            format!(" ({})", spec.description)
        };
        let (who, verb) = if names.len() == 1 {
            ("server", "needs")
        } else {
            ("servers", "need")
        };
        super::output::error(&format!(
            "{who} {} {verb} input `{}`{what} (kept in memory only)",
            names.join(", "),
            spec.id
        ));
        match read_line(INPUT_PROMPT, spec.password, " (skipped)").map_err(|e| {
            CliError::runtime(format!(
                "cannot read input `{}` from the terminal: {e}",
                spec.id
            ))
        })? {
            Typed::Value(value) => values.insert(spec.id.clone(), value),
            Typed::Skipped | Typed::Escaped => {}
            Typed::Interrupted => {
                return Err(CliError {
                    code: 130,
                    message: "stopped while asking for inputs; no server was started".into(),
                });
            }
        }
    }
    Ok(servers
        .into_iter()
        .map(|s| s.with_inputs(&values, &env))
        .collect())
}

/// What an input's prompt says.
const INPUT_PROMPT: &str = "  value (Enter gives it; Esc or an empty Enter skips): ";

/// How reading one line ended.
pub(super) enum Typed {
    /// Enter, after text.
    Value(String),
    /// Enter with nothing typed.
    Skipped,
    /// Esc.
    Escaped,
    /// Ctrl-C or Ctrl-D.
    Interrupted,
}

/// Leaves raw mode however reading ends.
struct RawMode;

impl RawMode {
    fn enter() -> std::io::Result<RawMode> {
        crossterm::terminal::enable_raw_mode()?;
        Ok(RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// Reads one line from the terminal after `prompt` (on stderr), echoing `*` for each
/// character when `masked`; an empty Enter ends the line with `skip_note`.
pub(super) fn read_line(prompt: &str, masked: bool, skip_note: &str) -> std::io::Result<Typed> {
    let mut stderr = std::io::stderr();
    write!(stderr, "{prompt}")?;
    stderr.flush()?;
    let raw = RawMode::enter()?;
    let mut value = String::new();
    let outcome = loop {
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shown = |c: char| if masked { '*' } else { c };
        match key.code {
            // Nothing typed is a skip, as in the menu's prompt.
            KeyCode::Enter if value.is_empty() => break Typed::Skipped,
            KeyCode::Enter => break Typed::Value(std::mem::take(&mut value)),
            KeyCode::Esc => break Typed::Escaped,
            KeyCode::Char('c') | KeyCode::Char('d') if ctrl => break Typed::Interrupted,
            KeyCode::Char('u') if ctrl => {
                let erase = "\u{8} \u{8}".repeat(value.chars().count());
                write!(stderr, "{erase}")?;
                value.clear();
            }
            KeyCode::Backspace if value.pop().is_some() => {
                write!(stderr, "\u{8} \u{8}")?;
            }
            KeyCode::Char(c) if !ctrl => {
                value.push(c);
                // Typed text is echoed safely: a control character shows as `?`.
                let echo = text::one_line(&shown(c).to_string());
                write!(stderr, "{echo}")?;
            }
            _ => {}
        }
        stderr.flush()?;
    };
    drop(raw);
    let end = match outcome {
        Typed::Skipped => skip_note,
        Typed::Escaped => " (Esc)",
        Typed::Interrupted => " (stopped)",
        Typed::Value(_) => "",
    };
    writeln!(stderr, "{end}")?;
    Ok(outcome)
}
