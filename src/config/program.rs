//! Which program runs mcpick's own servers: the command a starter config writes for this
//! binary, and what `command = "mcpick"` runs when PATH has no `mcpick`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// How a config written now names this binary, as the command of `[servers.builtin]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfCommand {
    /// `mcpick` when PATH finds this binary so, or it runs from a build folder; else its
    /// full path.
    pub command: String,
    /// The cargo build folder it runs from (`target/`), when that is why it is `mcpick`.
    pub build_folder: Option<PathBuf>,
}

/// The command a config should name `exe` by: `mcpick` when that is what PATH finds, so the
/// config survives reinstalls; `mcpick` too when `exe` is in a cargo build folder (`cargo
/// run`), whose path changes with every clean and checkout (until an mcpick is installed,
/// `mcpick` that PATH does not find is this program: [`program_for`]); else its full path.
pub fn self_command(exe: &Path) -> SelfCommand {
    let mine = |command: &str| SelfCommand {
        command: command.to_string(),
        build_folder: None,
    };
    let me = exe.canonicalize().ok();
    if me.is_some() && find_on_path("mcpick").and_then(|p| p.canonicalize().ok()) == me {
        return mine("mcpick");
    }
    match build_folder(exe) {
        Some(folder) => SelfCommand {
            command: "mcpick".into(),
            build_folder: Some(folder),
        },
        None => mine(&exe.display().to_string()),
    }
}

/// The cargo build folder `exe` is in: the nearest of its folders (three at most:
/// `target/debug`, `target/<triple>/release`) holding the `CACHEDIR.TAG` cargo writes there.
fn build_folder(exe: &Path) -> Option<PathBuf> {
    exe.ancestors()
        .skip(1)
        .take(3)
        .find(|folder| {
            std::fs::read_to_string(folder.join("CACHEDIR.TAG"))
                .is_ok_and(|tag| tag.contains("cargo"))
        })
        .map(Path::to_path_buf)
}

/// The program a server's `command` runs: `mcpick` that PATH does not find is this very
/// program when it is an mcpick (a config written by `mcpick init` from a build folder);
/// anything else as written.
pub fn program_for(command: &str) -> Cow<'_, str> {
    if command != "mcpick" || find_on_path(command).is_some() {
        return Cow::Borrowed(command);
    }
    match std::env::current_exe() {
        Ok(exe) if exe.file_stem().is_some_and(|stem| stem == "mcpick") => {
            Cow::Owned(exe.display().to_string())
        }
        _ => Cow::Borrowed(command),
    }
}

/// The first `name` in PATH's folders that is a file.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_in_a_cargo_build_folder_is_named_mcpick_not_by_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::create_dir_all(target.join("x86_64-unknown-linux-gnu/release")).unwrap();
        std::fs::write(
            target.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by cargo.\n",
        )
        .unwrap();
        let exe = target.join("x86_64-unknown-linux-gnu/release/mcpick");
        std::fs::write(&exe, "").unwrap();
        let named = self_command(&exe);
        assert_eq!(named.command, "mcpick");
        assert_eq!(named.build_folder.as_deref(), Some(target.as_path()));
        // Elsewhere (a downloaded binary), its full path.
        let loose = dir.path().join("bin/mcpick");
        std::fs::create_dir_all(loose.parent().unwrap()).unwrap();
        std::fs::write(&loose, "").unwrap();
        assert_eq!(self_command(&loose).command, loose.display().to_string());
    }

    #[test]
    fn only_a_bare_mcpick_falls_back_to_this_program() {
        assert_eq!(program_for("npx"), "npx");
        assert_eq!(program_for("/opt/mcpick"), "/opt/mcpick");
    }
}
