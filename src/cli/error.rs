//! A failure of a subcommand and its exit code.

/// A failure with its exit code: 1 for runtime errors, 2 for usage errors.
#[derive(Debug)]
pub struct CliError {
    /// The process exit code.
    pub code: u8,
    /// What to print on stderr.
    pub message: String,
}

impl CliError {
    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// A config that cannot be used: unreadable, not TOML, or wrong in what it says (exit
    /// 2, as a usage error: nothing runs until the user changes it; 1 is kept for "nothing
    /// matched" and what servers did).
    pub fn config(message: impl Into<String>) -> Self {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// A runtime error (exit 1).
    pub fn runtime(message: impl Into<String>) -> Self {
        CliError {
            code: 1,
            message: message.into(),
        }
    }
}
