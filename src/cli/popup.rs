//! `mcpick --tmux`: the menu in a tmux popup over the current pane; an accepted export is
//! pasted into that pane (bracketed paste when its program asked for it), so it lands in
//! the input line of whatever runs there.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use super::CliError;

const NOT_IN_TMUX: &str = "--tmux opens a tmux popup, but this is not inside tmux ($TMUX is not set). Run `mcpick` without --tmux, or start tmux first";

/// One side of a popup: cells or a share of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// This many cells.
    Cells(u16),
    /// This share of the tmux window.
    Percent(u8),
}

impl Extent {
    fn parse(text: &str) -> Option<Extent> {
        match text.strip_suffix('%') {
            Some(p) => match p.parse::<u8>() {
                Ok(p @ 1..=100) => Some(Extent::Percent(p)),
                _ => None,
            },
            None => match text.parse::<u16>() {
                Ok(n @ 1..) => Some(Extent::Cells(n)),
                _ => None,
            },
        }
    }

    /// As tmux's `display-popup -w/-h` takes it.
    pub fn for_tmux(self) -> String {
        match self {
            Extent::Cells(n) => n.to_string(),
            Extent::Percent(p) => format!("{p}%"),
        }
    }
}

/// `--tmux [SIZE]`: the popup's width and height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PopupSize {
    /// Its width.
    pub width: Extent,
    /// Its height.
    pub height: Extent,
}

impl PopupSize {
    /// Parses `N%` or `N` (both sides) or `WIDTHxHEIGHT` (each cells or `%`).
    pub fn parse(text: &str) -> Result<PopupSize, String> {
        let bad = || format!("`{text}` is not a popup size: write `80%`, `100x30` or `90%x60%`");
        let (width, height) = match text.split_once(['x', 'X']) {
            Some((w, h)) => (Extent::parse(w.trim()), Extent::parse(h.trim())),
            None => (Extent::parse(text.trim()), Extent::parse(text.trim())),
        };
        match (width, height) {
            (Some(width), Some(height)) => Ok(PopupSize { width, height }),
            _ => Err(bad()),
        }
    }
}

/// Opens the popup, waits for it to close, then pastes (or prints) what was accepted.
/// The exit code is the menu's own: 0 accepted, 1 no match, 2 error, 130 cancelled.
pub async fn run(size: PopupSize) -> Result<ExitCode, CliError> {
    if std::env::var_os("TMUX").is_none_or(|v| v.is_empty()) {
        return Err(CliError::usage(NOT_IN_TMUX));
    }
    // Typed at a prompt in a pane, mcpick *is* that pane's program: the export is printed
    // when the popup closes (pasting would feed it to the shell line by line). Run from a
    // key binding (`run-shell`), the pane is the one the key was pressed in.
    // (A job of a server started from inside another pane inherits TMUX_PANE, but has no
    // terminal on stdin.)
    let own_pane = std::env::var("TMUX_PANE")
        .ok()
        .filter(|p| !p.is_empty() && std::io::stdin().is_terminal());
    let target = match &own_pane {
        Some(pane) => pane.clone(),
        None => tmux_output(&["display-message", "-p", "#{pane_id}"])?,
    };
    // The folder holds the environment and the export: the user's only.
    let folder = tempfile::Builder::new()
        .prefix("mcpick-popup-")
        .permissions(crate::sys::fs::permissions(0o700))
        .tempdir()
        .map_err(|e| CliError::runtime(format!("cannot make a temp folder for the popup: {e}")))?;
    let paths = Paths::in_folder(folder.path());
    let exe = std::env::current_exe()
        .map_err(|e| CliError::runtime(format!("cannot find mcpick's own binary: {e}")))?;
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::runtime(format!("cannot read the current folder: {e}")))?;
    let args = inner_args(std::env::args_os().skip(1));
    let script = inner_script(&exe, &args, &cwd, std::env::vars_os(), &paths);
    write_private(&paths.script, &script)
        .map_err(|e| CliError::runtime(format!("cannot write the popup's script: {e}")))?;

    let popup = tokio::task::spawn_blocking({
        let script = paths.script.clone();
        let target = target.clone();
        move || {
            Command::new("tmux")
                .arg("display-popup")
                .arg("-E")
                .args(["-t", &target])
                .args(["-w", &size.width.for_tmux()])
                .args(["-h", &size.height.for_tmux()])
                .arg(format!("exec sh {}", sh_quote(&script.to_string_lossy())))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
        }
    });
    // A stop signal closes the popup and removes the folder (dropped on return).
    let popup = tokio::select! {
        popup = popup => popup,
        code = crate::sys::signals::stopped() => {
            let _ = Command::new("tmux")
                .args(["display-popup", "-C", "-t", &target])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            return Ok(ExitCode::from(code));
        }
    };
    let popup = popup
        .map_err(|e| CliError::runtime(format!("the popup task failed: {e}")))?
        .map_err(|e| CliError::runtime(format!("cannot run tmux: {e}")))?;

    // The popup's menu wrote its exit code; without one, tmux never ran it.
    let Some(code) = std::fs::read_to_string(&paths.code)
        .ok()
        .and_then(|c| c.trim().parse::<u8>().ok())
    else {
        let said = String::from_utf8_lossy(&popup.stderr);
        return Err(CliError::usage(format!(
            "tmux could not open the popup ({}){}",
            crate::text::one_line(said.trim()),
            if said.contains("no current client") {
                "; a popup needs a tmux client attached to the session"
            } else {
                ""
            }
        )));
    };
    // What the menu said on stderr (an error, a notice) is the user's to read.
    if let Ok(said) = std::fs::read_to_string(&paths.errors)
        && !said.trim().is_empty()
    {
        eprint!("{}", crate::text::for_output(&said, true));
    }
    if code != 0 {
        return Ok(ExitCode::from(code));
    }
    let export = std::fs::read_to_string(&paths.export)
        .map_err(|e| CliError::runtime(format!("cannot read the popup's result: {e}")))?;
    // The user presses Enter themselves: a last newline would send the line at once.
    let export = export.strip_suffix('\n').unwrap_or(&export);
    if own_pane.is_some() {
        super::output::result(export)
            .map_err(|e| CliError::runtime(format!("cannot write the export to stdout: {e}")))?;
        return Ok(ExitCode::SUCCESS);
    }
    paste(&target, export).await?;
    Ok(ExitCode::SUCCESS)
}

/// Puts `text` into `pane` as a paste: a tmux buffer of its own, pasted with `-p` (the
/// program's bracketed paste, when it asked for it), then deleted.
async fn paste(pane: &str, text: &str) -> Result<(), CliError> {
    let buffer = format!("mcpick-{}", std::process::id());
    let loaded = crate::export::clipboard::load_buffer(text, &["-b", &buffer])
        .await
        .map_err(|e| CliError::runtime(e.to_string()))?;
    if !loaded.status.success() {
        return Err(tmux_failed("load-buffer", &loaded.stderr));
    }
    tmux_output(&["paste-buffer", "-p", "-d", "-b", &buffer, "-t", pane]).map(|_| ())
}

fn tmux_output(args: &[&str]) -> Result<String, CliError> {
    let out = Command::new("tmux")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| CliError::runtime(format!("cannot run tmux: {e}")))?;
    if !out.status.success() {
        return Err(tmux_failed(args[0], &out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn tmux_failed(what: &str, stderr: &[u8]) -> CliError {
    CliError::runtime(format!(
        "tmux {what} failed: {}",
        crate::text::one_line(String::from_utf8_lossy(stderr).trim())
    ))
}

/// The files the popup's menu leaves for this process.
struct Paths {
    script: PathBuf,
    export: PathBuf,
    errors: PathBuf,
    code: PathBuf,
}

impl Paths {
    fn in_folder(folder: &Path) -> Paths {
        Paths {
            script: folder.join("run.sh"),
            export: folder.join("export"),
            errors: folder.join("stderr"),
            code: folder.join("code"),
        }
    }
}

/// This run's arguments without `--tmux` (and its size), so the popup runs the same menu.
fn inner_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut kept = Vec::new();
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            kept.push(arg);
            kept.extend(args);
            break;
        }
        if text == "--tmux" {
            // The next word is the size when it is one (else it is a prompt, or a flag).
            if args
                .peek()
                .is_some_and(|next| PopupSize::parse(&next.to_string_lossy()).is_ok())
            {
                args.next();
            }
            continue;
        }
        if text.starts_with("--tmux=") {
            continue;
        }
        kept.push(arg);
    }
    kept
}

/// The script the popup runs: this process's folder and environment (a popup starts with
/// the tmux server's), the menu with `--print`, its output and exit code into files.
/// Written 0600 in a 0700 temp folder, removed when this process ends.
fn inner_script(
    exe: &Path,
    args: &[OsString],
    cwd: &Path,
    env: impl IntoIterator<Item = (OsString, OsString)>,
    paths: &Paths,
) -> String {
    // What the menu writes (the export, its stderr) is the user's only.
    let mut script = String::from("# mcpick --tmux: the menu inside the popup\numask 077\n");
    script.push_str(&format!(
        "cd {} || exit 2\n",
        sh_quote(&cwd.to_string_lossy())
    ));
    for (name, value) in env {
        let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
            continue;
        };
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        // The popup's menu is not that pane's program.
        if valid && name != "TMUX_PANE" {
            script.push_str(&format!("export {name}={}\n", sh_quote(value)));
        }
    }
    script.push_str("unset TMUX_PANE\n");
    let mut command = vec![sh_quote(&exe.to_string_lossy())];
    command.extend(args.iter().map(|a| sh_quote(&a.to_string_lossy())));
    command.push("--print".to_string());
    // What lands in another program's input line is plain text, unless asked otherwise.
    let format_given = args.iter().any(|a| {
        let a = a.to_string_lossy();
        a == "--format" || a.starts_with("--format=")
    });
    if !format_given {
        command.push("--format text".to_string());
    }
    script.push_str(&format!(
        "{} >{} 2>{}\necho $? >{}\n",
        command.join(" "),
        sh_quote(&paths.export.to_string_lossy()),
        sh_quote(&paths.errors.to_string_lossy()),
        sh_quote(&paths.code.to_string_lossy()),
    ));
    script
}

/// Writes a new file only the user can read (it holds the environment).
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = crate::sys::fs::create_private_new(path)?;
    file.write_all(text.as_bytes())
}

/// `text` as one word for `sh`.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popup_sizes_are_one_extent_or_width_by_height() {
        let both = |e| PopupSize {
            width: e,
            height: e,
        };
        assert_eq!(PopupSize::parse("80%"), Ok(both(Extent::Percent(80))));
        assert_eq!(PopupSize::parse("50"), Ok(both(Extent::Cells(50))));
        assert_eq!(
            PopupSize::parse("100x30"),
            Ok(PopupSize {
                width: Extent::Cells(100),
                height: Extent::Cells(30)
            })
        );
        assert_eq!(
            PopupSize::parse("90%x60%").map(|s| (s.width.for_tmux(), s.height.for_tmux())),
            Ok(("90%".to_string(), "60%".to_string()))
        );
        let err = PopupSize::parse("builtin/translate").unwrap_err();
        assert!(err.contains("not a popup size"), "{err}");
    }

    fn os(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_popup_runs_the_same_menu_without_tmux_and_its_size() {
        assert_eq!(
            inner_args(os(&["--tmux", "-q", "trans", "--select-1"])),
            os(&["-q", "trans", "--select-1"])
        );
        assert_eq!(
            inner_args(os(&["--tmux", "90%", "builtin/translate", "to=French"])),
            os(&["builtin/translate", "to=French"])
        );
        assert_eq!(
            inner_args(os(&["--tmux", "builtin/translate", "to=French"])),
            os(&["builtin/translate", "to=French"])
        );
        assert_eq!(
            inner_args(os(&[
                "--config",
                "c.toml",
                "--tmux=100x30",
                "--format",
                "text"
            ])),
            os(&["--config", "c.toml", "--format", "text"])
        );
        // After `--` nothing is a flag.
        assert_eq!(inner_args(os(&["--", "--tmux"])), os(&["--", "--tmux"]));
    }

    #[test]
    fn the_script_keeps_folder_environment_and_quotes_everything() {
        let paths = Paths::in_folder(Path::new("/t"));
        let env = vec![
            (OsString::from("KEY"), OsString::from("it's $HOME")),
            (OsString::from("TMUX_PANE"), OsString::from("%3")),
            (OsString::from("BAD-NAME"), OsString::from("x")),
        ];
        let script = inner_script(
            Path::new("/bin/mc pick"),
            &os(&["-q", "a'b"]),
            Path::new("/w d"),
            env,
            &paths,
        );
        assert!(
            script.contains("umask 077\ncd '/w d' || exit 2\n"),
            "{script}"
        );
        assert!(script.contains("export KEY='it'\\''s $HOME'\n"), "{script}");
        assert!(
            !script.contains("%3") && !script.contains("BAD-NAME"),
            "{script}"
        );
        assert!(
            script.contains("'/bin/mc pick' '-q' 'a'\\''b' --print --format text >'/t/export' 2>'/t/stderr'\necho $? >'/t/code'\n"),
            "{script}"
        );
    }
}
