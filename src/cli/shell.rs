//! `mcpick shell-init bash|zsh|fish`: a script for the shell to evaluate, which binds a key
//! (default Ctrl-X Ctrl-P) to a widget that opens mcpick on the terminal and inserts the
//! accepted export at the cursor, quoted for that shell.

use super::flags::INIT_SHELLS;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CliError;

const BASH: &str = include_str!("../../assets/shell/mcpick.bash");
const ZSH: &str = include_str!("../../assets/shell/mcpick.zsh");
const FISH: &str = include_str!("../../assets/shell/mcpick.fish");

/// Each script's line ending in this tag (plus a name) is replaced when the key or the
/// binary is not the default, so the files stay scripts that can be sourced as they are.
const TAG: &str = "# shell-init: ";

/// Prints the script for `shell` on stdout; with `completions`, Tab completion's too.
pub fn run(shell: &str, key: Option<&str>, completions: bool) -> Result<ExitCode, CliError> {
    let bin = own_binary();
    let mut script = script(shell, key, bin.as_deref())?;
    if completions {
        script.push('\n');
        script.push_str(&super::completions::script(
            shell,
            bin.as_deref().unwrap_or("mcpick"),
        )?);
    }
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(script.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::runtime(format!("cannot write the script: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The script for `shell`. `key` replaces the binding (and then `MCPICK_WIDGET_KEY` is not
/// read); `bin` is the mcpick to run when `MCPICK_BIN` is unset (default: `mcpick` on PATH).
pub fn script(shell: &str, key: Option<&str>, bin: Option<&str>) -> Result<String, CliError> {
    let template = match shell {
        "bash" => BASH,
        "zsh" => ZSH,
        "fish" => FISH,
        other => {
            return Err(CliError::usage(format!(
                "unknown shell `{other}`: shell-init knows {}",
                INIT_SHELLS.join(", ")
            )));
        }
    };
    let mut script = template.to_string();
    if let Some(key) = key {
        if key.is_empty() || key.chars().any(char::is_control) {
            return Err(CliError::usage(
                "--key wants a key sequence in the shell's notation, e.g. '\\C-x\\C-p' (bash), \
                 '^X^P' (zsh), '\\cx\\cp' (fish)",
            ));
        }
        let line = match shell {
            "bash" => format!("__mcpick_key={}", single_quoted(key)),
            "zsh" => format!("local key={}", single_quoted(key)),
            _ => format!("set -l key {}", fish_quoted(key)),
        };
        script = replace_tagged(&script, "key", &line);
    }
    if let Some(bin) = bin {
        let line = match shell {
            "fish" => format!("set -l bin {}", fish_quoted(bin)),
            _ => format!("local bin=${{MCPICK_BIN:-{}}}", single_quoted(bin)),
        };
        script = replace_tagged(&script, "bin", &line);
    }
    Ok(script)
}

/// Replaces the line tagged `name` by `line`, keeping its indentation and its tag.
fn replace_tagged(script: &str, name: &str, line: &str) -> String {
    let tag = format!("{TAG}{name}");
    let mut out = String::with_capacity(script.len() + line.len());
    for original in script.split_inclusive('\n') {
        let body = original.trim_end_matches('\n');
        if body.ends_with(&tag) {
            let indent = &body[..body.len() - body.trim_start().len()];
            out.push_str(&format!("{indent}{line} {tag}\n"));
        } else {
            out.push_str(original);
        }
    }
    out
}

/// `text` as one single-quoted bash/zsh word.
fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as one single-quoted fish word (there `\` and `'` are escaped inside the quotes).
fn fish_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\\', r"\\").replace('\'', r"\'"))
}

/// This binary's full path when PATH does not find it as `mcpick` (a build in `target/`),
/// so the widget runs the mcpick that printed it; `None` (run `mcpick`) otherwise, so the
/// script survives reinstalls. A path that is not UTF-8 is left to `MCPICK_BIN`.
fn own_binary() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    if on_path(&exe) {
        return None;
    }
    exe.to_str().map(str::to_string)
}

/// Whether `mcpick` on PATH is `exe`.
fn on_path(exe: &Path) -> bool {
    let Ok(me) = exe.canonicalize() else {
        return false;
    };
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("mcpick"))
            .any(|candidate: PathBuf| candidate.canonicalize().ok().as_ref() == Some(&me))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_binds_the_default_key_to_the_widget_running_mcpick_print() {
        for (shell, key, bind) in [
            ("bash", r"'\C-x\C-p'", "bind -m emacs-standard -x"),
            ("zsh", "'^X^P'", "bindkey -M emacs \"$key\" mcpick-widget"),
            ("fish", r"'\cx\cp'", "bind $key mcpick-widget"),
        ] {
            let script = script(shell, None, None).unwrap();
            assert!(script.contains(key), "{shell}: no default key {key}");
            assert!(script.contains(bind), "{shell}: no binding {bind}");
            assert!(script.contains("MCPICK_WIDGET_KEY"), "{shell}");
            assert!(script.contains("MCPICK_WIDGET_OPTS"), "{shell}");
            assert!(
                script.contains(r#"command "$bin" --print --format text"#)
                    || script.contains("command $bin --print --format text"),
                "{shell}: does not run mcpick --print --format text"
            );
            assert!(script.contains("</dev/tty 2>/dev/tty"), "{shell}");
            assert!(script.contains("MCPICK_BIN:-mcpick") || script.contains("set -l bin mcpick"));
        }
    }

    #[test]
    fn key_replaces_the_default_and_the_environment() {
        let bash = script("bash", Some(r"\C-g"), None).unwrap();
        assert!(
            bash.contains(r"__mcpick_key='\C-g' # shell-init: key"),
            "{bash}"
        );
        assert!(!bash.contains(r"\C-x\C-p'"), "{bash}");
        let zsh = script("zsh", Some("^G'"), None).unwrap();
        assert!(
            zsh.contains(r"  local key='^G'\''' # shell-init: key"),
            "{zsh}"
        );
        let fish = script("fish", Some(r"\cg'"), None).unwrap();
        assert!(
            fish.contains(r"    set -l key '\\cg\'' # shell-init: key"),
            "{fish}"
        );
        assert!(!fish.contains("set -l key $MCPICK_WIDGET_KEY"), "{fish}");
    }

    #[test]
    fn bin_is_the_default_when_mcpick_bin_is_unset() {
        let bash = script("bash", None, Some("/opt/my builds/mcpick")).unwrap();
        assert!(
            bash.contains("local bin=${MCPICK_BIN:-'/opt/my builds/mcpick'} # shell-init: bin"),
            "{bash}"
        );
        let fish = script("fish", None, Some("/opt/it's/mcpick")).unwrap();
        assert!(
            fish.contains(r"set -l bin '/opt/it\'s/mcpick' # shell-init: bin"),
            "{fish}"
        );
        // MCPICK_BIN still wins in fish.
        assert!(fish.contains("and set bin $MCPICK_BIN"), "{fish}");
    }

    #[test]
    fn an_unknown_shell_or_a_bad_key_is_a_usage_error() {
        let error = script("nope", None, None).unwrap_err();
        assert_eq!(error.code, 2);
        assert!(
            error.message.contains("bash, zsh, fish"),
            "{}",
            error.message
        );
        for key in ["", "a\nb"] {
            assert_eq!(script("bash", Some(key), None).unwrap_err().code, 2);
        }
    }

    #[test]
    fn widget_opts_can_change_the_format_the_widget_passes() {
        use clap::Parser as _;
        let cli = crate::cli::Cli::try_parse_from([
            "mcpick", "--print", "--format", "text", "--format", "markdown",
        ])
        .unwrap();
        assert_eq!(cli.tui_format, "markdown");
    }

    #[test]
    fn the_command_line_rejects_an_unknown_shell_listing_the_three() {
        use clap::Parser as _;
        let error = crate::cli::Cli::try_parse_from(["mcpick", "shell-init", "nope"]).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        let message = error.to_string();
        for shell in INIT_SHELLS {
            assert!(message.contains(shell), "{message}");
        }
        let parsed =
            crate::cli::Cli::try_parse_from(["mcpick", "shell-init", "zsh", "--key", "^G"])
                .unwrap();
        assert!(matches!(
            parsed.command,
            Some(crate::cli::Command::ShellInit { ref shell, key: Some(ref key), completions: false })
                if shell == "zsh" && key == "^G"
        ));
    }
}
