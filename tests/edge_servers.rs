//! Handshake edge cases against small scripted servers (tests/peers/fake_server.py).

mod common;

use common::*;

fn fake(name: &str, mode: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, {}]\n",
        toml_str(root().join("tests/peers/fake_server.py").to_string_lossy()),
        toml_str(mode)
    )
}

#[test]
fn an_unknown_protocol_version_is_an_error_naming_it() {
    let sandbox = Sandbox::new(&fake("odd", "bad-version"));
    let output = sandbox.mcpick(&["servers", "--json"]);
    let servers: serde_json::Value = serde_json::from_str(&success(&output)).unwrap();
    assert_eq!(servers[0]["state"], "failed");
    let error = servers[0]["error"].as_str().unwrap();
    assert!(error.contains("\"1999-01-01\""), "{error}");
    assert!(
        error.contains("2025-11-25"),
        "the error should list what mcpick speaks: {error}"
    );
}

#[test]
fn a_legacy_server_that_exits_on_discover_is_restarted_with_initialize() {
    let sandbox = Sandbox::new(&fake("old", "exit-on-discover"));
    let out = success(&sandbox.mcpick(&["get", "old/hello"]));
    assert_eq!(out, "## user\n\nhello\n");
    let servers: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    assert_eq!(servers[0]["protocol_version"], "2025-06-18");
}

#[test]
fn config_errors_exit_1_and_name_the_problem() {
    let sandbox =
        Sandbox::new("[servers.a]\ncommand = \"x\"\nargs = [\"${MCPICK_TEST_UNSET_VAR}\"]\n");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("server `a`, field `args[0]`"), "{err}");
    assert!(err.contains("MCPICK_TEST_UNSET_VAR"), "{err}");
}

#[test]
fn no_servers_says_how_to_add_one() {
    let sandbox = Sandbox::new("");
    let output = sandbox.mcpick(&["list"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("config.example.toml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_usage_exits_2() {
    let sandbox = Sandbox::new(&fake("odd", "bad-version"));
    let output = sandbox.mcpick(&["get", "odd/hello", "novalue"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("NAME=VALUE"),
        "{}",
        stderr(&output)
    );
    let output = sandbox.mcpick(&["get", "odd/hello", "--format", "yaml"]);
    assert_eq!(output.status.code(), Some(2));
}
