//! Stdio server processes: spawning with piped stderr, and a prompt, orphan-free shutdown.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, watch};

use crate::mcp::error::McpError;
use crate::mcp::log::ServerLog;
use crate::model::LogLine;
use crate::sys::process::{OwnGroup, Stop, stop_group};

/// The most stderr lines read from one server per [`STDERR_WINDOW`] (20,000 a second).
pub const STDERR_LINES_PER_WINDOW: u32 = 2000;
/// The window of [`STDERR_LINES_PER_WINDOW`].
pub const STDERR_WINDOW: Duration = Duration::from_millis(100);

/// How long a server gets to exit after its stdin is closed, and again after SIGTERM.
pub const EXIT_GRACE: Duration = Duration::from_millis(100);

/// A running stdio server process (and its process group).
#[derive(Debug)]
pub struct ChildProcess {
    pid: Option<u32>,
    exit: watch::Receiver<Option<ExitStatus>>,
    /// True once its stderr reached its end (every last line read).
    stderr_done: watch::Receiver<bool>,
}

/// The pipes the protocol runs over.
pub type ChildPipes = (ChildStdout, ChildStdin);

/// What to run.
pub struct SpawnSpec<'a> {
    /// The program.
    pub command: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// Extra environment.
    pub env: &'a BTreeMap<String, String>,
    /// Working directory.
    pub cwd: Option<&'a PathBuf>,
}

impl ChildProcess {
    /// Starts the server in its own process group, stderr read line by line into `log`
    /// (and each line to `on_line`), never onto the terminal.
    pub fn spawn(
        server: &str,
        spec: &SpawnSpec<'_>,
        log: Arc<ServerLog>,
        on_line: Option<mpsc::Sender<LogLine>>,
    ) -> Result<(ChildProcess, ChildPipes), McpError> {
        // `mcpick` that PATH does not find is this program (a config from `cargo run`).
        let mut command = Command::new(&*crate::config::program_for(spec.command));
        command
            .args(spec.args)
            .envs(spec.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so shutdown reaches grandchildren (npx → node) and a
            // Ctrl-C meant for mcpick does not kill servers behind its back.
            .in_own_group()
            .kill_on_drop(true);
        if let Some(cwd) = spec.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|e| McpError::Spawn {
            command: spec.command.to_string(),
            reason: spawn_hint(&e, spec.cwd),
        })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let pid = child.id();

        let server_name = server.to_string();
        let (stderr_done_tx, stderr_done) = watch::channel(false);
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr);
            let mut buf = Vec::new();
            let mut window = (tokio::time::Instant::now(), 0u32);
            loop {
                // A flood is read no faster than STDERR_LINES_PER_WINDOW: the server waits
                // on its full pipe instead of mcpick spending a core on its lines.
                window.1 += 1;
                if window.1 > STDERR_LINES_PER_WINDOW {
                    tokio::time::sleep_until(window.0 + STDERR_WINDOW).await;
                    window = (tokio::time::Instant::now(), 1);
                } else if window.0.elapsed() >= STDERR_WINDOW {
                    window = (tokio::time::Instant::now(), 1);
                }
                buf.clear();
                // Bounded: a line without a newline is cut, read on as the next line.
                match (&mut reader)
                    .take(64 * 1024)
                    .read_until(b'\n', &mut buf)
                    .await
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf);
                        let line = log.push("stderr", &text);
                        log.write_to_file(&server_name, &line);
                        // Dropped when the reader is slow: a flood must not queue forever.
                        log.forward(line, &on_line);
                    }
                }
            }
            let _ = stderr_done_tx.send(true);
        });

        let (exit_tx, exit_rx) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await;
            tracing::debug!(?status, "child wait returned");
            let _ = exit_tx.send(status.ok());
        });

        let process = ChildProcess {
            pid,
            exit: exit_rx,
            stderr_done,
        };
        Ok((process, (stdout, stdin)))
    }

    /// The exit status, once the process has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// Waits until every stderr line the process wrote has been read.
    pub async fn stderr_drained(&self) {
        let mut done = self.stderr_done.clone();
        let _ = done.wait_for(|done| *done).await;
    }

    /// Waits until the process exits.
    pub async fn exited(&self) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let result = exit.wait_for(Option::is_some).await;
        result.ok().and_then(|s| *s)
    }

    /// Ends the process: its stdin must already be closed. Waits [`EXIT_GRACE`], then
    /// SIGTERMs the process group, waits again, then SIGKILLs it.
    pub async fn terminate(&self) {
        if tokio::time::timeout(EXIT_GRACE, self.exited())
            .await
            .is_ok()
        {
            tracing::debug!(pid = ?self.pid, "server exited after stdin closed");
            self.kill_group(Stop::Kill); // stray grandchildren, if any
            return;
        }
        tracing::debug!(pid = ?self.pid, "server still running after stdin closed; SIGTERM");
        self.kill_group(Stop::Terminate);
        if tokio::time::timeout(EXIT_GRACE, self.exited())
            .await
            .is_err()
        {
            tracing::warn!(pid = ?self.pid, "server ignored SIGTERM; killing it");
        }
        self.kill_group(Stop::Kill);
        let _ = tokio::time::timeout(EXIT_GRACE, self.exited()).await;
    }

    fn kill_group(&self, stop: Stop) {
        if let Some(pid) = self.pid {
            stop_group(pid, stop);
        }
    }
}

// Whatever path drops a server without `terminate` (an error, a panic unwinding), its
// process group must not outlive mcpick.
impl Drop for ChildProcess {
    fn drop(&mut self) {
        if self.exit_status().is_none() {
            self.kill_group(Stop::Kill);
        }
    }
}

fn spawn_hint(error: &std::io::Error, cwd: Option<&PathBuf>) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => match cwd {
            Some(cwd) if !cwd.is_dir() => {
                format!(
                    "the working directory {} does not exist (check `cwd`)",
                    cwd.display()
                )
            }
            _ => "no such program (check `command`, and that it is on PATH)".to_string(),
        },
        std::io::ErrorKind::PermissionDenied => {
            format!("{error} (is the program executable?)")
        }
        _ => error.to_string(),
    }
}
