//! Argument values from where they already are: a file's contents, standard input, a shell
//! command's output, and the list of files the form's picker offers. The I/O the CLI does
//! itself and the TUI's runner does for the app (which stays pure).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::sys::process::OwnGroup;

/// The largest value read from a file, a command or stdin (1 MiB).
pub const DEFAULT_VALUE_LIMIT: usize = 1024 * 1024;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueSource {
    /// A file's contents; the path as it was given (relative to the folder mcpick ran in,
    /// `~` or absolute).
    File(String),
    /// A shell command's standard output.
    Command(String),
    /// Standard input (`NAME=-`).
    Stdin,
}

impl ValueSource {
    /// How the source is named in messages: `build.log`, `` `git diff` ``, `standard input`.
    pub fn describe(&self) -> String {
        match self {
            ValueSource::File(path) => crate::text::one_line(path),
            ValueSource::Command(command) => {
                format!("the output of `{}`", crate::text::one_line(command))
            }
            ValueSource::Stdin => "standard input".to_string(),
        }
    }
}

/// How a command run for a value ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandOutcome {
    /// It succeeded; its standard output, without the line breaks at its end.
    Done {
        /// The output.
        output: String,
    },
    /// It failed, could not run, took too long, or printed what cannot be a value.
    Failed {
        /// What happened: `exited with status 2`, `took longer than 10 s…`.
        why: String,
        /// What it wrote on stderr (its end cut), maybe nothing.
        stderr: String,
    },
}

/// The files below the current folder, as the runner's walk found them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileList {
    /// Paths relative to the folder, sorted.
    pub files: Vec<String>,
    /// The walk stopped at its cap: there are more.
    pub truncated: bool,
}

/// A size as people read it: `512 B`, `12.3 KiB`, `2.0 MiB`.
pub fn human_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

/// Why a value of `size` bytes (`None`: more than `limit`, size unknown) from `what` is
/// refused, and what to do.
pub fn too_large(what: &str, size: Option<u64>, limit: usize) -> String {
    let size = match size {
        Some(size) => human_size(usize::try_from(size).unwrap_or(usize::MAX)),
        None => format!("more than {}", human_size(limit)),
    };
    format!(
        "{what} is {size}, over the {} limit for an argument value: give a smaller part of it (e.g. `head -c 500K`, or the lines that matter)",
        human_size(limit)
    )
}

/// Why a file or standard input gives no value; `what` names the source as messages do
/// (`build.log`, `standard input`). Each says what to do.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ValueError {
    /// No file at that path.
    #[error("{what}: no such file")]
    NoSuchFile {
        /// The source.
        what: String,
    },
    /// The OS refused to open or read it.
    #[error("cannot read {what}: {reason}")]
    Unreadable {
        /// The source.
        what: String,
        /// The OS error.
        reason: String,
    },
    /// A folder where a file was wanted.
    #[error("{what} is a folder, not a file")]
    Folder {
        /// The source.
        what: String,
    },
    /// More than the limit.
    #[error("{}", too_large(what, *size, *limit))]
    TooLarge {
        /// The source.
        what: String,
        /// Its size in bytes, when known.
        size: Option<u64>,
        /// The limit in bytes.
        limit: usize,
    },
    /// NUL bytes: binary data.
    #[error(
        "{what} is binary (it holds NUL bytes), and argument values are text: give a text file, or encode it first (e.g. `base64 FILE`)"
    )]
    Binary {
        /// The source.
        what: String,
    },
    /// Not UTF-8.
    #[error(
        "{what} is not UTF-8 text (byte {valid_up_to} is not): convert it first (e.g. `iconv -f latin1 -t utf-8 FILE`)"
    )]
    NotUtf8 {
        /// The source.
        what: String,
        /// The first byte that is not.
        valid_up_to: usize,
    },
}

/// `bytes` read from `what` as a value: text, at most `limit` bytes. Binary data (NUL bytes)
/// and text that is not UTF-8 are refused with a message saying what to do.
pub fn decode_value(bytes: Vec<u8>, what: &str, limit: usize) -> Result<String, ValueError> {
    if bytes.len() > limit {
        return Err(ValueError::TooLarge {
            what: what.to_string(),
            size: Some(bytes.len() as u64),
            limit,
        });
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err(ValueError::Binary {
            what: what.to_string(),
        });
    }
    String::from_utf8(bytes).map_err(|e| ValueError::NotUtf8 {
        what: what.to_string(),
        valid_up_to: e.utf8_error().valid_up_to(),
    })
}

/// How many files the picker's walk lists at most.
pub const WALK_CAP: usize = 20_000;
/// How long a command may run before it is stopped.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of a failed command's stderr is kept to show.
const STDERR_KEPT: usize = 4096;

/// `path` as written (`~/x`, `/x`, `x`): `~` expanded, relative paths from the current folder.
pub fn resolve_path(path: &str) -> PathBuf {
    PathBuf::from(crate::config::expand_tilde(path))
}

/// The text of the file at `path` (as the user wrote it), at most `limit` bytes; binary
/// and non-UTF-8 files are refused. The error names the file and what to do.
pub fn read_file(path: &str, limit: usize) -> Result<String, ValueError> {
    // Named as every message names a file source.
    let shown = ValueSource::File(path.to_string()).describe();
    let full = resolve_path(path);
    let unreadable = |e: std::io::Error| ValueError::Unreadable {
        what: shown.clone(),
        reason: e.to_string(),
    };
    let file = std::fs::File::open(&full).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ValueError::NoSuchFile {
            what: shown.clone(),
        },
        _ => unreadable(e),
    })?;
    let metadata = file.metadata().map_err(unreadable)?;
    if metadata.is_dir() {
        return Err(ValueError::Folder { what: shown });
    }
    // A regular file's size is known before reading it; others (a FIFO) are read up to
    // one byte past the limit.
    if metadata.is_file() && metadata.len() > limit as u64 {
        return Err(ValueError::TooLarge {
            what: shown,
            size: Some(metadata.len()),
            limit,
        });
    }
    read_limited(file, &shown, limit)
}

/// Standard input read to its end, at most `limit` bytes, as a value.
pub fn read_stdin(limit: usize) -> Result<String, ValueError> {
    read_limited(std::io::stdin().lock(), "standard input", limit)
}

fn read_limited(reader: impl Read, what: &str, limit: usize) -> Result<String, ValueError> {
    let mut bytes = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ValueError::Unreadable {
            what: what.to_string(),
            reason: e.to_string(),
        })?;
    if bytes.len() > limit {
        return Err(ValueError::TooLarge {
            what: what.to_string(),
            size: None,
            limit,
        });
    }
    decode_value(bytes, what, limit)
}

/// The files below `root`, as paths relative to it, sorted: `.gitignore` (and `.ignore`,
/// git's global and `info/exclude`) respected, hidden files and folders (`.git`) skipped,
/// at most `cap`.
pub fn list_files(root: &Path, cap: usize) -> FileList {
    let mut files = Vec::new();
    let mut truncated = false;
    let walk = ignore::WalkBuilder::new(root)
        .hidden(true)
        // Ignore files count outside a git repository too (a folder with a .gitignore).
        .require_git(false)
        .follow_links(false)
        .build();
    for entry in walk.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if files.len() >= cap {
            truncated = true;
            break;
        }
        if let Ok(relative) = entry.path().strip_prefix(root) {
            files.push(relative.to_string_lossy().into_owned());
        }
    }
    files.sort();
    FileList { files, truncated }
}

/// Runs `command` with `sh -c` in `folder`, stdin closed, for at most `timeout`; its
/// standard output (at most `limit` bytes, text) is the value.
pub async fn run_command(
    command: &str,
    folder: &Path,
    timeout: Duration,
    limit: usize,
) -> CommandOutcome {
    use tokio::io::AsyncReadExt;
    let failed = |why: String, stderr: String| CommandOutcome::Failed { why, stderr };
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(folder)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        // Its own process group, so a stop reaches what it started too (a pipeline's
        // commands), and it cannot read the terminal mcpick draws on.
        .in_own_group()
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return failed(format!("cannot run sh: {e}"), String::new()),
    };
    let mut group = child.id().map(|pid| KillGroupOnDrop { pid, armed: true });
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // stderr is read beside stdout, so a command filling one pipe never blocks on it.
    let stderr_task = tokio::spawn(async move {
        let mut err = Vec::new();
        let _ = (&mut stderr)
            .take(STDERR_KEPT as u64)
            .read_to_end(&mut err)
            .await;
        err
    });
    let stop_stderr = stderr_task.abort_handle();
    let work = async {
        let mut out = Vec::new();
        // One byte past the limit tells "too large" without reading everything.
        let read_out = (&mut stdout)
            .take(limit as u64 + 1)
            .read_to_end(&mut out)
            .await;
        let over = out.len() > limit;
        if over {
            // The rest is not wanted: stop it rather than wait for it.
            if let Some(pid) = child.id() {
                kill_group(pid);
            }
        }
        let status = child.wait().await;
        // It ended (and was reaped): its group id may be reused, so no kill from here on.
        if let Some(group) = group.as_mut() {
            group.armed = false;
        }
        let err = stderr_task.await.unwrap_or_default();
        (read_out, out, err, over, status)
    };
    let Ok((read_out, out, err, over, status)) = tokio::time::timeout(timeout, work).await else {
        stop_stderr.abort();
        return failed(
            format!(
                "took longer than {} s and was stopped",
                timeout.as_secs_f32()
            ),
            String::new(),
        );
    };
    let stderr = String::from_utf8_lossy(&err).trim_end().to_string();
    let what = ValueSource::Command(command.to_string()).describe();
    if over {
        return failed(too_large(&what, None, limit), stderr);
    }
    if let Err(e) = read_out {
        return failed(format!("cannot read its output: {e}"), stderr);
    }
    match status {
        Ok(status) if status.success() => match decode_value(out, &what, limit) {
            // As `$(command)` in a shell: the line breaks at the end are not the value's.
            Ok(text) => CommandOutcome::Done {
                output: text.trim_end_matches('\n').to_string(),
            },
            Err(why) => failed(why.to_string(), stderr),
        },
        Ok(status) => failed(crate::sys::process::describe_exit(status), stderr),
        Err(e) => failed(format!("cannot wait for it: {e}"), stderr),
    }
}

/// Kills a command's process group when its run ends early (timeout, cancel, too much
/// output).
struct KillGroupOnDrop {
    pid: u32,
    /// Cleared once the command was waited for.
    armed: bool,
}

impl Drop for KillGroupOnDrop {
    fn drop(&mut self) {
        if self.armed {
            kill_group(self.pid);
        }
    }
}

fn kill_group(pid: u32) {
    crate::sys::process::stop_group(pid, crate::sys::process::Stop::Kill);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_non_utf8_and_large_values_are_refused_with_a_way_out() {
        assert_eq!(
            decode_value(b"hello".to_vec(), "f", 10).as_deref(),
            Ok("hello")
        );
        let nul = decode_value(b"a\0b".to_vec(), "img.png", 10).unwrap_err();
        assert!(matches!(nul, ValueError::Binary { .. }), "{nul}");
        let nul = nul.to_string();
        assert!(
            nul.contains("img.png is binary") && nul.contains("base64"),
            "{nul}"
        );
        let latin = decode_value(vec![b'a', 0xe9], "old.txt", 10)
            .unwrap_err()
            .to_string();
        assert!(
            latin.contains("not UTF-8") && latin.contains("iconv"),
            "{latin}"
        );
        let big = decode_value(vec![b'a'; 2 * 1024 * 1024], "big.log", DEFAULT_VALUE_LIMIT)
            .unwrap_err()
            .to_string();
        assert!(
            big.contains("big.log is 2.0 MiB, over the 1.0 MiB limit"),
            "{big}"
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1024), "1.0 KiB");
        assert_eq!(human_size(3 * 1024 * 1024 / 2), "1.5 MiB");
    }

    #[test]
    fn the_walk_respects_gitignore_and_skips_hidden_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(root.join("notes.md"), "n").unwrap();
        std::fs::write(root.join("build.log"), "b").unwrap();
        std::fs::write(root.join("target/out"), "o").unwrap();
        std::fs::write(root.join(".git/config"), "c").unwrap();
        let list = list_files(root, 100);
        let main = format!("src{}main.rs", std::path::MAIN_SEPARATOR);
        assert_eq!(list.files, vec!["notes.md".to_string(), main]);
        assert!(!list.truncated);
        let capped = list_files(root, 1);
        assert_eq!(capped.files.len(), 1);
        assert!(capped.truncated);
    }

    #[test]
    fn files_over_the_limit_or_binary_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.txt");
        std::fs::write(&big, vec![b'a'; 2048]).unwrap();
        let err = read_file(big.to_str().unwrap(), 1024)
            .unwrap_err()
            .to_string();
        assert!(err.contains("2.0 KiB, over the 1.0 KiB limit"), "{err}");
        let bin = dir.path().join("a.bin");
        std::fs::write(&bin, b"\x7fELF\0\0").unwrap();
        assert!(
            read_file(bin.to_str().unwrap(), 1024)
                .unwrap_err()
                .to_string()
                .contains("binary")
        );
        let missing = read_file("/no/such/file", 10).unwrap_err();
        assert!(matches!(missing, ValueError::NoSuchFile { .. }));
        assert!(missing.to_string().contains("no such file"));
    }

    #[tokio::test]
    async fn commands_give_their_output_or_their_status_and_stderr() {
        let here = std::env::current_dir().unwrap();
        let ok = run_command("printf 'hello\\n\\n'", &here, COMMAND_TIMEOUT, 1024).await;
        assert_eq!(
            ok,
            CommandOutcome::Done {
                output: "hello".into()
            }
        );
        let bad = run_command("echo oops >&2; exit 3", &here, COMMAND_TIMEOUT, 1024).await;
        assert_eq!(
            bad,
            CommandOutcome::Failed {
                why: "exited with status 3".into(),
                stderr: "oops".into()
            }
        );
        // stdin is closed: `cat` ends at once instead of waiting for the terminal.
        let cat = run_command("cat", &here, COMMAND_TIMEOUT, 1024).await;
        assert_eq!(
            cat,
            CommandOutcome::Done {
                output: String::new()
            }
        );
        let slow = run_command("sleep 5", &here, Duration::from_millis(200), 1024).await;
        assert!(
            matches!(&slow, CommandOutcome::Failed { why, .. } if why.contains("stopped")),
            "{slow:?}"
        );
        let big = run_command("yes", &here, COMMAND_TIMEOUT, 1024).await;
        assert!(
            matches!(&big, CommandOutcome::Failed { why, .. } if why.contains("over the 1.0 KiB limit")),
            "{big:?}"
        );
    }
}
