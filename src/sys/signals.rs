//! Signals that stop a command: Ctrl-C (SIGINT), SIGTERM, SIGHUP and SIGQUIT. Servers run in
//! their own process groups, so mcpick must catch these and shut them down itself. And job
//! control for the full-screen menu: a suspend (SIGTSTP) and a continue (SIGCONT).

use tokio::signal::unix::{SignalKind, signal};

/// Resolves when a stop signal arrives, with the exit code a shell expects (128 + number).
pub async fn stopped() -> u8 {
    let kinds = [
        (SignalKind::interrupt(), 130),
        (SignalKind::terminate(), 143),
        (SignalKind::hangup(), 129),
        (SignalKind::quit(), 131),
    ];
    let mut streams = Vec::new();
    for (kind, code) in kinds {
        if let Ok(stream) = signal(kind) {
            streams.push((stream, code));
        }
    }
    if streams.is_empty() {
        return std::future::pending().await;
    }
    let waits = streams.iter_mut().map(|(stream, code)| {
        let code = *code;
        Box::pin(async move {
            stream.recv().await;
            code
        })
    });
    futures::future::select_all(waits).await.0
}

/// What job control asks of the full-screen menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobSignal {
    /// SIGTSTP (`kill -TSTP`; raw mode makes Ctrl-Z a key): give the terminal back, then stop.
    Suspend,
    /// SIGCONT (`fg`, `bg`, `kill -CONT`): take the terminal again, since the shell set its
    /// own modes while mcpick was stopped.
    Continue,
}

/// SIGTSTP and SIGCONT as a stream, for the menu's loop. Catching SIGTSTP means it no
/// longer stops the process by itself: [`stop_now`] does, once the terminal is restored.
pub struct JobControl {
    suspend: Option<tokio::signal::unix::Signal>,
    resume: Option<tokio::signal::unix::Signal>,
}

impl JobControl {
    /// Starts listening (a signal that cannot be listened for is never reported).
    pub fn new() -> JobControl {
        let listen = |number: i32| signal(SignalKind::from_raw(number)).ok();
        JobControl {
            suspend: listen(nix::libc::SIGTSTP),
            resume: listen(nix::libc::SIGCONT),
        }
    }

    /// The next job-control signal.
    pub async fn next(&mut self) -> JobSignal {
        async fn wait(stream: &mut Option<tokio::signal::unix::Signal>) {
            match stream {
                Some(stream) => {
                    if stream.recv().await.is_none() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            () = wait(&mut self.suspend) => JobSignal::Suspend,
            () = wait(&mut self.resume) => JobSignal::Continue,
        }
    }
}

impl Default for JobControl {
    fn default() -> Self {
        JobControl::new()
    }
}

/// Keeps a hangup (SIGHUP: the terminal mcpick was started from closed) from ending the
/// process while it lives.
pub struct HangupIgnored(#[allow(dead_code)] Option<tokio::signal::unix::Signal>);

/// From now until the returned value is dropped, a hangup does not end this process.
pub fn ignore_hangup() -> HangupIgnored {
    HangupIgnored(signal(SignalKind::hangup()).ok())
}

/// Stops this process as a suspend would (SIGSTOP: it cannot be caught, so the handler
/// that took SIGTSTP does not get in the way); returns once it is continued.
pub fn stop_now() {
    let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGSTOP);
}
