//! Embeds the bundled prompt library (`assets/prompts/`) into the binary; with
//! `MCPICK_ALLOW_SKIP=1`, marks the programs the tests meet that are not installed, so their
//! tests are ignored (and counted as such) instead of failing.

use std::fmt::Write as _;
use std::path::Path;

fn collect(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, base, out);
        } else if let Ok(relative) = path.strip_prefix(base) {
            let relative = relative.to_string_lossy().replace('\\', "/");
            out.push((relative, path.canonicalize().unwrap().display().to_string()));
        }
    }
}

/// The programs the integration tests meet (each test that needs one carries
/// `#[cfg_attr(mcpick_missing_NAME, ignore = …)]`), as their `cfg` name and the command.
const TEST_TOOLS: [(&str, &str); 7] = [
    ("tmux", "tmux"),
    ("xvfb", "Xvfb"),
    ("xclip", "xclip"),
    ("zsh", "zsh"),
    ("fish", "fish"),
    ("openssl", "openssl"),
    ("espeak_ng", "espeak-ng"),
];

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// `cargo:rustc-cfg=mcpick_missing_NAME` for each test tool missing, with
/// `MCPICK_ALLOW_SKIP=1` only: otherwise a test whose tool is missing fails, saying how to
/// install it.
fn mark_missing_test_tools() {
    println!("cargo:rerun-if-env-changed=MCPICK_ALLOW_SKIP");
    for (name, _) in TEST_TOOLS {
        println!("cargo::rustc-check-cfg=cfg(mcpick_missing_{name})");
    }
    if std::env::var_os("MCPICK_ALLOW_SKIP").is_none_or(|v| v != "1") {
        return;
    }
    println!("cargo:rerun-if-env-changed=PATH");
    for (name, program) in TEST_TOOLS {
        if !on_path(program) {
            println!("cargo:rustc-cfg=mcpick_missing_{name}");
            println!(
                "cargo:warning=MCPICK_ALLOW_SKIP=1: `{program}` is not installed, so the tests that need it are ignored"
            );
        }
    }
}

fn main() {
    mark_missing_test_tools();
    let base = Path::new("assets/prompts");
    println!("cargo:rerun-if-changed=assets/prompts");
    let mut files = Vec::new();
    collect(base, base, &mut files);
    let mut code = String::from(
        "/// The bundled prompt files: (path under assets/prompts, text).\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for (relative, absolute) in files {
        writeln!(code, "    ({relative:?}, include_str!({absolute:?})),").unwrap();
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_prompts.rs");
    std::fs::write(out, code).unwrap();
}
