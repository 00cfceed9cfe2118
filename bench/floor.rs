//! The floor for bench/run.sh: the least a stdio MCP client can do for one request.
//!
//!     floor list COMMAND [ARGS...]          prompts/list, its answer on stdout
//!     floor get PROMPT ARGS COMMAND [ARGS...]   prompts/get PROMPT, ARGS a JSON object
//!     floor get-direct PROMPT ARGS COMMAND [ARGS...]   the same to a 2026-07-28 server:
//!         `prompts/get` alone, its `_meta` naming the version (no handshake at all)
//!
//! Starts the server in its own process group (stderr to /dev/null), sends `initialize`,
//! reads its answer, sends `notifications/initialized` and the one request, prints the
//! answer's line and then ends the server the way mcpick does (src/mcp/child.rs): closes
//! its stdin, gives it 100 ms to exit, then SIGTERMs the group, 100 ms more, then SIGKILL.
//! Standard library only; built by bench/run.sh with `rustc -O` (not part of the crate).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

unsafe extern "C" {
    fn kill(pid: i32, signal: i32) -> i32;
}

const SIGKILL: i32 = 9;
const SIGTERM: i32 = 15;
const GRACE: Duration = Duration::from_millis(100);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let direct = args.first().map(String::as_str) == Some("get-direct");
    let (request, command) = match args.first().map(String::as_str) {
        Some("list") if args.len() > 1 => (
            r#"{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{}}"#.to_string(),
            &args[1..],
        ),
        Some("get-direct") if args.len() > 3 => (
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{{"name":"{}","arguments":{},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"floor","version":"0"}},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
                args[1], args[2]
            ),
            &args[3..],
        ),
        Some("get") if args.len() > 3 => (
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{{"name":"{}","arguments":{}}}}}"#,
                args[1], args[2]
            ),
            &args[3..],
        ),
        _ => {
            eprintln!(
                "usage: floor list COMMAND [ARGS...] | floor get|get-direct PROMPT ARGS_JSON COMMAND [ARGS...]"
            );
            return ExitCode::from(2);
        }
    };
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start the server");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());

    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"floor","version":"0"}}}"#;
    let mut answered = None;
    let handshake_ok = direct || {
        writeln!(stdin, "{initialize}").unwrap();
        answer(&mut stdout, "1").is_some_and(|line| has_key(&line, "result"))
    };
    if direct {
        writeln!(stdin, "{request}").unwrap();
        answered = answer(&mut stdout, "2");
    } else if handshake_ok {
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .unwrap();
        writeln!(stdin, "{request}").unwrap();
        answered = answer(&mut stdout, "2");
    }
    if let Some(line) = &answered {
        let mut out = std::io::stdout().lock();
        out.write_all(line.as_bytes()).unwrap();
        out.flush().unwrap();
    }
    drop(stdin);
    terminate(&mut child);
    match answered {
        Some(line) if has_key(&line, "result") => ExitCode::SUCCESS,
        _ => {
            eprintln!("floor: no good answer from the server");
            ExitCode::from(1)
        }
    }
}

/// Reads lines until the response with `id` (skipping the server's notifications and
/// requests); None at end of output.
fn answer(stdout: &mut impl BufRead, id: &str) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if stdout.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if top_level(&line, "id") == Some(id) && top_level(&line, "method").is_none() {
            return Some(line);
        }
    }
}

fn has_key(line: &str, key: &str) -> bool {
    top_level(line, key).is_some()
}

/// The text of a top-level member's value in a one-line JSON object (a scalar's text; for
/// an object or array, everything from its opening bracket on).
fn top_level<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let bytes = line.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0, false, false);
    let mut string_start = 0;
    let mut last_string = (0, 0);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    in_string = false;
                    last_string = (string_start, i);
                }
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                string_start = i + 1;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b':' if depth == 1 && &line[last_string.0..last_string.1] == key => {
                let value = line[i + 1..].trim_start();
                let end = value.find([',', '}']).unwrap_or(value.len());
                return Some(value[..end].trim_end());
            }
            _ => {}
        }
    }
    None
}

/// Like mcpick's `ChildProcess::terminate`: stdin is already closed.
fn terminate(child: &mut Child) {
    let group = -(child.id() as i32);
    if exited_within(child, GRACE) {
        unsafe { kill(group, SIGKILL) }; // stray grandchildren, if any
        return;
    }
    unsafe { kill(group, SIGTERM) };
    if !exited_within(child, GRACE) {
        unsafe { kill(group, SIGKILL) };
        let _ = child.wait();
    } else {
        unsafe { kill(group, SIGKILL) };
    }
}

fn exited_within(child: &mut Child, grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}
