//! What mcpick asks of the operating system that only Unix has: process groups and killing
//! them, signals and job control, waiting on the terminal with a timeout, owner-only
//! file modes, and the limit on open files. Everything else in the crate reaches these
//! through the small interface here, so a port to another system is this folder.
//!
//! Windows is not ported: mcpick's servers, popups and widgets lean on process groups,
//! job-control signals, `/dev/tty` and tmux, which a port would have to rebuild (job
//! objects, console APIs) with nothing to test them on here. It runs in WSL.

#[cfg(not(unix))]
compile_error!(
    "mcpick runs on Unix-like systems (Linux, macOS, the BSDs). On Windows, build and run it inside WSL: https://learn.microsoft.com/windows/wsl/"
);

pub mod fds;
pub mod fs;
pub mod process;
pub mod signals;
pub mod tty;
