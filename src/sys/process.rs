//! Child processes in groups of their own: started so, and ended as a group.

use std::process::ExitStatus;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// A command that can be started as the leader of a new process group.
pub trait OwnGroup {
    /// Starts the child in a process group of its own: a stop then reaches what it starts
    /// too (`npx` → `node`, a shell pipeline), the terminal's Ctrl-C meant for mcpick does
    /// not reach it, and it cannot read the terminal mcpick draws on.
    fn in_own_group(&mut self) -> &mut Self;
}

impl OwnGroup for std::process::Command {
    fn in_own_group(&mut self) -> &mut Self {
        std::os::unix::process::CommandExt::process_group(self, 0)
    }
}

impl OwnGroup for tokio::process::Command {
    fn in_own_group(&mut self) -> &mut Self {
        self.process_group(0)
    }
}

/// How a process group is ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Asked to end (SIGTERM): it may clean up.
    Terminate,
    /// Ended at once (SIGKILL).
    Kill,
}

/// Sends `stop` to the process group led by `pid` (a child started [`OwnGroup::in_own_group`]).
/// A group that is gone already is the common, harmless case, and not an error.
pub fn stop_group(pid: u32, stop: Stop) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    let signal = match stop {
        Stop::Terminate => Signal::SIGTERM,
        Stop::Kill => Signal::SIGKILL,
    };
    let _ = killpg(Pid::from_raw(pid), signal);
}

/// How a process ended, for messages: "exited with status 2", "was killed by signal 9".
pub fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        _ => "exited".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_ended_with_what_it_started_and_its_end_is_told() {
        // sh starts a sleep in the same group, then waits: killing the group ends both.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & wait"])
            .in_own_group()
            .spawn()
            .expect("sh");
        stop_group(child.id(), Stop::Kill);
        let status = child.wait().expect("wait");
        assert_eq!(describe_exit(status), "was killed by signal 9");
        let status = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .expect("sh");
        assert_eq!(describe_exit(status), "exited with status 3");
        // Gone already: nothing happens, nothing fails.
        stop_group(child.id(), Stop::Terminate);
    }
}
