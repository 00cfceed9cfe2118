//! The command line as a user meets it, the real binary run: one verdict on a config in
//! every command (exit 2 at its `PATH:LINE:COLUMN`), words a command would not read refused
//! with what to write instead, help that fits the terminal, man pages that are all there, and
//! `init` from a build folder.

mod common;

use common::pty::{STEP, Tui};
use common::{Sandbox, mcpick_serve, stderr};

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
