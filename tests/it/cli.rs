//! The command line as a user meets it, the real binary run: one verdict on a config in
//! every command (exit 2 at its `PATH:LINE:COLUMN`), words a command would not read refused
//! with what to write instead, help that fits the terminal, man pages that are all there, and
//! `init` from a build folder.

use std::path::Path;
use std::process::Command;

use crate::common::pty::{STEP, Tui};
use crate::common::{Sandbox, mcpick_serve, stderr, stdout, success};

/// Configs wrong in what they say, each with where the error must point: the line and
/// column of the entry at fault. A working server comes with each, so a command that
/// ignored the fault would succeed.
fn wrong_configs() -> Vec<(&'static str, String, &'static str)> {
    let lib = mcpick_serve("lib", &["--builtin"]);
    vec![
        (
            "a [keys] entry that is no action",
            format!("{lib}\n[keys.picker]\nno-such-action = \"ctrl-x\"\n"),
            "config.toml:6:1:",
        ),
        (
            "an unknown protocol_version",
            format!(
                "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nprotocol_version = \"1999-01-01\"\n\n{lib}"
            ),
            "config.toml:3:1:",
        ),
        (
            "a header name HTTP cannot carry",
            format!(
                "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ \"Bad Name\" = \"x\" }}\n\n{lib}"
            ),
            "config.toml:3:1:",
        ),
        (
            "a header value HTTP cannot carry",
            format!(
                "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ Good = \"a\\nb\" }}\n\n{lib}"
            ),
            "config.toml:3:13:",
        ),
    ]
}

#[test]
fn a_config_wrong_in_what_it_says_stops_every_command_at_its_place() {
    let commands: [&[&str]; 5] = [
        &["list"],
        &["servers"],
        &["get", "lib/translate", "text=hi", "to=fr"],
        &["complete", "lib/translate", "to", "fr"],
        &["auth", "status"],
    ];
    let mut failures = Vec::new();
    for (what, config, place) in wrong_configs() {
        let sandbox = Sandbox::new(&config);
        for command in commands {
            let output = sandbox.mcpick(command);
            let err = stderr(&output);
            if output.status.code() != Some(2) || !err.contains(place) {
                failures.push(format!(
                    "{what}: `mcpick {}` exited {:?}, not 2 at {place}:\n{err}",
                    command.join(" "),
                    output.status.code()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_menu_stops_at_the_same_place_before_it_opens() {
    let (what, config, place) = wrong_configs().remove(1);
    let sandbox = Sandbox::new(&config);
    let mut tui = Tui::start(&sandbox, &[]);
    let code = tui.wait_exit(STEP);
    let screen = tui.screen();
    assert_eq!(code, 2, "{what}:\n{screen}");
    assert!(screen.contains(place), "{what}:\n{screen}");
}

#[test]
fn header_errors_never_show_the_value() {
    let sandbox = Sandbox::new(
        "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { Authorization = \"Bearer s3cr3t\\r\\nX: y\" }\n",
    );
    let output = sandbox.mcpick(&["list"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("`headers.Authorization`"), "{err}");
    assert!(!err.contains("s3cr3t"), "{err}");
}

/// `mcpick ARGS` with the sandbox's config, its exit code and stderr.
fn refused(sandbox: &Sandbox, args: &[&str]) -> String {
    let output = sandbox.mcpick(args);
    let err = stderr(&output);
    assert_eq!(
        output.status.code(),
        Some(2),
        "`mcpick {}` must be refused:\n{}{err}",
        args.join(" "),
        stdout(&output)
    );
    err
}

#[test]
fn menu_flags_and_a_prompt_before_a_subcommand_are_refused_with_what_to_write() {
    let sandbox = Sandbox::new(&mcpick_serve("builtin", &["--builtin"]));
    let err = refused(&sandbox, &["--print", "list"]);
    assert!(err.contains("`--print`"), "{err}");
    assert!(err.contains("`mcpick list`"), "{err}");
    assert!(err.contains("`mcpick --print`"), "{err}");

    let err = refused(&sandbox, &["-q", "tr", "--select-1", "servers"]);
    assert!(
        err.contains("`--query`") && err.contains("`--select-1`"),
        "{err}"
    );

    // A flag the subcommand has too: said to go after it.
    let err = refused(&sandbox, &["--format", "text", "get", "builtin/translate"]);
    assert!(
        err.contains("after `get`") && err.contains("`mcpick get builtin/translate --format text`"),
        "{err}"
    );

    let err = refused(&sandbox, &["builtin/translate", "doctor"]);
    assert!(err.contains("`builtin/translate`"), "{err}");
    assert!(err.contains("`mcpick doctor`"), "{err}");
    assert!(err.contains("`mcpick get builtin/translate`"), "{err}");

    let err = refused(&sandbox, &["builtin/translate", "get"]);
    assert!(err.contains("`mcpick get builtin/translate`"), "{err}");
    // `lock` reads a prompt (and its example's arguments) after its name.
    let err = refused(&sandbox, &["builtin/translate", "lock"]);
    assert!(
        err.contains("write `mcpick lock builtin/translate`"),
        "{err}"
    );

    // What is meant for every command still goes before it.
    success(&sandbox.mcpick(&["--refresh", "list"]));
    let config = sandbox.config();
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .arg("--config")
        .arg(&config)
        .args(["cache", "show"])
        .env("XDG_CACHE_HOME", sandbox.dir.path().join("xdg-cache"))
        .output()
        .unwrap();
    success(&output);
}

/// Every subcommand's path, as written on the command line (`auth login`).
fn subcommands() -> Vec<Vec<&'static str>> {
    vec![
        vec![],
        vec!["list"],
        vec!["get"],
        vec!["complete"],
        vec!["servers"],
        vec!["lock"],
        vec!["check"],
        vec!["serve"],
        vec!["init"],
        vec!["config"],
        vec!["config", "import"],
        vec!["cache"],
        vec!["cache", "show"],
        vec!["cache", "clear"],
        vec!["auth"],
        vec!["auth", "login"],
        vec!["auth", "logout"],
        vec!["auth", "status"],
        vec!["shell-init"],
        vec!["completions"],
        vec!["man"],
        vec!["doctor"],
        vec!["test"],
    ]
}

#[test]
fn help_wraps_at_the_terminal_width_and_never_inside_a_word() {
    for width in [80usize] {
        for path in subcommands() {
            for flag in ["--help", "-h"] {
                let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
                    .args(&path)
                    .arg(flag)
                    .env("COLUMNS", width.to_string())
                    .output()
                    .unwrap();
                let help = success(&output);
                for line in help.lines() {
                    let columns = line.chars().count();
                    assert!(
                        columns <= width,
                        "`mcpick {} {flag}` at {width} columns has a line of {columns}:\n{line}",
                        path.join(" ")
                    );
                }
            }
        }
    }
    // No terminal and no COLUMNS: 100 columns, as clap's default.
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["serve", "--help"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let help = success(&output);
    assert!(help.lines().all(|l| l.chars().count() <= 100), "{help}");
}

/// The pages a roff page names (`mcpick\-get(1)`), as file names (`mcpick-get.1`).
fn pages_named(page: &str) -> Vec<String> {
    let text = page.replace("\\-", "-");
    let mut named = Vec::new();
    for (at, _) in text.match_indices("mcpick") {
        let rest = &text[at..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        if rest[end..].starts_with("(1)") {
            named.push(format!("{}.1", &rest[..end]));
        }
    }
    named.sort();
    named.dedup();
    named
}

#[test]
fn man_dir_writes_every_page_the_pages_name() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["man", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    success(&output);
    let written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(written.contains(&"mcpick.1".to_string()), "{written:?}");
    assert!(written.contains(&"mcpick-get.1".to_string()), "{written:?}");
    assert!(
        written.contains(&"mcpick-auth-login.1".to_string()),
        "{written:?}"
    );
    for file in &written {
        let page = std::fs::read_to_string(dir.path().join(file)).unwrap();
        for named in pages_named(&page) {
            assert!(
                written.contains(&named),
                "{file} names {named}, which was not written ({written:?})"
            );
        }
    }
    let main = std::fs::read_to_string(dir.path().join("mcpick.1")).unwrap();
    for section in [".SH \"EXIT STATUS\"", ".SH ENVIRONMENT", ".SH FILES"] {
        assert!(main.contains(section), "mcpick.1 has no {section}:\n{main}");
    }
    for word in ["MCPICK_CONFIG", "MCPICK_LOG", "130", "config.toml"] {
        assert!(main.contains(word), "mcpick.1 does not mention {word}");
    }
    assert!(!main.contains("mcpick\\-help(1)"), "no page for `help`");
}

#[test]
fn man_prints_the_page_of_one_subcommand_or_says_which_there_are() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .arg("man")
            .args(args)
            .output()
            .unwrap()
    };
    let page = success(&run(&["get"]));
    assert!(page.contains(".TH mcpick-get 1"), "{page}");
    let page = success(&run(&["auth-login"]));
    assert!(page.contains(".TH mcpick-auth-login 1"), "{page}");
    let output = run(&["nope"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("no page `nope`") && err.contains("auth-login"),
        "{err}"
    );
    // The main page says where the others come from.
    let page = success(&run(&[]));
    assert!(page.contains("mcpick man \\-\\-dir"), "{page}");
}

#[test]
fn init_from_a_build_folder_writes_no_path_of_it() {
    let sandbox = Sandbox::new("");
    let xdg = sandbox.dir.path().join("fresh");
    let exe = Path::new(env!("CARGO_BIN_EXE_mcpick"));
    let build_folder = exe.parent().unwrap().parent().unwrap();
    assert!(
        build_folder.join("CACHEDIR.TAG").exists(),
        "the test binary is in a cargo build folder"
    );
    let run = |args: &[&str]| {
        Command::new(exe)
            .args(args)
            .env_remove("MCPICK_CONFIG")
            // No mcpick on PATH, as with `cargo run` before `cargo install`.
            .env("PATH", "/usr/bin:/bin")
            .env("XDG_CONFIG_HOME", &xdg)
            .env("XDG_STATE_HOME", sandbox.dir.path().join("state"))
            .env("XDG_CACHE_HOME", sandbox.dir.path().join("cache"))
            .output()
            .unwrap()
    };
    let output = run(&["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let note = stderr(&output);
    assert!(note.contains("build folder"), "{note}");
    assert!(note.contains("cargo install"), "{note}");
    let text = std::fs::read_to_string(xdg.join("mcpick/config.toml")).unwrap();
    assert!(
        !text.contains(&*build_folder.to_string_lossy()),
        "the config names the build folder:\n{text}"
    );
    assert!(text.contains("command = \"mcpick\""), "{text}");
    // It works as it is: `mcpick` that PATH does not find is this very program.
    let listed = success(&run(&["list"]));
    assert!(listed.contains("builtin/translate"), "{listed}");
    let doctor = run(&["doctor"]);
    assert!(
        !stdout(&doctor).contains("not found on PATH"),
        "{}",
        stdout(&doctor)
    );
}
