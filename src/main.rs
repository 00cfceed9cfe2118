//! The `mcpick` binary: all of it is the library's [`mcpick::cli::main_entry`].
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    mcpick::cli::main_entry()
}
