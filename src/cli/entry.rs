//! The binary's entry: everything `main.rs` does, in the library (see [`main_entry`]).

use std::process::ExitCode;

/// The whole of the `mcpick` binary: answers a shell's completion request, parses the
/// command line, sets up logging and runs the command on a tokio runtime. Here in the
/// library, not in `main.rs`: a `block_on` in the binary crate compiled every async
/// function it awaits a second time there (5.8 MB of the release binary, and minutes of
/// its build).
pub fn main_entry() -> ExitCode {
    // At a Tab in the shell (`MCPICK_COMPLETE` set): answer and exit.
    crate::cli::answer_completion_request();
    crate::mcp::install_crypto_provider();
    // What the chosen subcommand would not read (`mcpick --print list`) is refused here.
    let cli = match super::parse_command_line(crate::cli::with_tmux_size_spelled_out(
        std::env::args_os().collect(),
    )) {
        Ok(cli) => cli,
        Err(error) => {
            super::output::error(&error.message);
            return ExitCode::from(error.code);
        }
    };
    // Log lines carry milliseconds since here.
    crate::mcp::since_start_ms();
    let _log_guard = init_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcpick: cannot start the async runtime: {error}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(super::run(cli));
    // Server tasks are already shut down; do not wait on stragglers (e.g. a stuck reader).
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

/// Logs go to a file only (the terminal belongs to the output): the state dir's
/// `mcpick.YYYY-MM-DD.log`, level from `MCPICK_LOG` (default `info`). No log dir, no logs.
fn init_logging() -> Option<tracing_appender::non_blocking::WorkerGuard> {
    let dir = crate::config::log_dir()?;
    // A folder that cannot be written is remembered, so no diagnostic points to a log
    // that is not there.
    let unusable = |error: &dyn std::fmt::Display| {
        crate::mcp::log::set_file_unavailable(format!(
            "no log file: {} cannot be written ({error})",
            dir.display()
        ));
    };
    // The log may quote what servers and users said: the owner's alone (0700), as its
    // files are (0600) however the umask would make them.
    if let Err(error) = crate::sys::fs::create_private_dir(&dir) {
        unusable(&error);
        return None;
    }
    // One file a day, the last three kept. Within a day a server's flood is counted, not
    // written (`crate::mcp::log::FILE_LINES_PER_WINDOW`), each event is cut at
    // `MAX_LOG_LINE_BYTES`, the same line repeated is written 10 times per 10 s and a
    // process writes at most 16 MiB a day (`crate::mcp::log_gate`): a flood of bad
    // requests to `serve --http`, or a server's, cannot fill the disk.
    let appender = match tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("mcpick")
        .filename_suffix("log")
        .max_log_files(3)
        .build(&dir)
    {
        Ok(appender) => appender,
        Err(error) => {
            unusable(&error);
            return None;
        }
    };
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().ends_with(".log") {
                let _ = crate::sys::fs::set_owner_only(&entry.path());
            }
        }
    }
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::new(crate::mcp::log::filter_directives(
        std::env::var("MCPICK_LOG").ok().as_deref(),
    ));
    // Server text in the log (rmcp logs messages whole) has the config's secrets masked,
    // before anything cuts an event (a cut first left most of a key in the file). And no
    // control from a server reaches it raw (`cat` of the file stays inert).
    let writer = move || {
        crate::mcp::log_gate::GatedWriter(crate::secrets::MaskingWriter(
            crate::mcp::log::ControlFreeWriter(writer.clone()),
        ))
    };
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
