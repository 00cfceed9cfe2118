//! Waiting for the terminal's answers with a timeout that holds on every Unix.
//!
//! `select(2)`, not `poll(2)`: macOS's `poll` does not support devices (a tty gives
//! `POLLNVAL` at once, so a caller falls into a blocking read and its timeout never holds),
//! while its `select` does. One code path for every Unix, so Linux's tests cover macOS's.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::select::{FD_SETSIZE, FdSet, select};
use nix::sys::time::{TimeVal, TimeValLike};

/// Waits until `fd` has bytes to read (`Ok(true)`) or `timeout` passes (`Ok(false)`).
/// A signal arriving meanwhile does not cut the wait short.
pub fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration) -> io::Result<bool> {
    let raw = fd.as_raw_fd();
    if usize::try_from(raw).map_or(true, |n| n >= FD_SETSIZE) {
        // select's sets hold descriptors below FD_SETSIZE only.
        return Err(io::Error::other(format!(
            "cannot wait on the terminal: its file descriptor {raw} is past select's {FD_SETSIZE}"
        )));
    }
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut readable = FdSet::new();
        readable.insert(fd);
        let micros = i64::try_from(left.as_micros()).unwrap_or(i64::MAX);
        let mut wait = TimeVal::microseconds(micros);
        match select(raw + 1, &mut readable, None, None, &mut wait) {
            Ok(0) => return Ok(false),
            Ok(_) => return Ok(readable.contains(fd)),
            Err(Errno::EINTR) if !left.is_zero() => continue,
            Err(Errno::EINTR) => return Ok(false),
            Err(errno) => return Err(errno.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    #[test]
    fn a_terminal_that_never_answers_is_waited_on_until_the_timeout_only() {
        let pty = nix::pty::openpty(None, None).expect("a pty");
        let started = Instant::now();
        let ready = wait_readable(pty.slave.as_fd(), Duration::from_millis(150)).expect("wait");
        let took = started.elapsed();
        assert!(!ready, "nobody wrote to the pty");
        assert!(
            took >= Duration::from_millis(140),
            "returned early: {took:?}"
        );
        // Generous: the point is that it returns at all (macOS's poll never did).
        assert!(
            took < Duration::from_secs(5),
            "the timeout did not hold: {took:?}"
        );
    }

    #[test]
    fn an_answer_already_there_is_seen_at_once() {
        let pty = nix::pty::openpty(None, None).expect("a pty");
        let mut master = std::fs::File::from(pty.master);
        // Written to the terminal's side: the program's side reads it (a line, so a
        // cooked pty passes it on).
        master.write_all(b"answer\n").expect("write");
        let ready = wait_readable(pty.slave.as_fd(), Duration::from_secs(5)).expect("wait");
        assert!(ready);
    }
}
