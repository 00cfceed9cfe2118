//! `mcpick config import`: other hosts' files in, mcpick tables out, servers usable.

use crate::common::{Sandbox, everything_js, stderr, stdout};

fn write(sandbox: &Sandbox, relative: &str, text: &str) -> std::path::PathBuf {
    let path = sandbox.dir.path().join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// `--dry-run` prints TOML that mcpick itself accepts, naming every server.
fn dry_run(sandbox: &Sandbox, file: &std::path::Path, names: &[&str]) -> String {
    let output = sandbox.mcpick(&["config", "import", file.to_str().unwrap(), "--dry-run"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let toml = stdout(&output);
    let config = mcpick::config::parse(&toml, std::path::Path::new("dry-run.toml"), &|name| {
        Some(format!("value-of-{name}"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut got: Vec<_> = config.servers.iter().map(|s| s.name.clone()).collect();
    got.sort();
    let mut want: Vec<_> = names.iter().map(|n| n.to_string()).collect();
    want.sort();
    assert_eq!(got, want, "{toml}");
    toml
}

#[test]
fn dry_runs_of_four_dialects_give_valid_toml() {
    let sandbox = Sandbox::new("");
    let desktop = write(
        &sandbox,
        "Claude/claude_desktop_config.json",
        r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}}"#,
    );
    dry_run(&sandbox, &desktop, &["fs"]);
    let claude_code = write(
        &sandbox,
        "proj/.mcp.json",
        r#"{"mcpServers": {"api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}}, "local": {"command": "mcp-local", "env": {"LEVEL": "${LEVEL:-info}"}}}}"#,
    );
    dry_run(&sandbox, &claude_code, &["api", "local"]);
    let vscode = write(
        &sandbox,
        "proj/.vscode/mcp.json",
        "{\n  // comment\n  \"inputs\": [{\"type\": \"promptString\", \"id\": \"key\", \"description\": \"Key\", \"password\": true},],\n  \"servers\": {\"gh\": {\"type\": \"http\", \"url\": \"https://api.githubcopilot.com/mcp/\", \"headers\": {\"Authorization\": \"Bearer ${input:key}\"},},},\n}\n",
    );
    let toml = dry_run(&sandbox, &vscode, &["gh"]);
    assert!(
        toml.contains("Bearer ${input:key}") && toml.contains("[inputs.key]"),
        "{toml}"
    );
    let zed = write(
        &sandbox,
        "zed/settings.json",
        "{\n  // Zed\n  \"context_servers\": {\"a\": {\"command\": \"a-cmd\", \"args\": []}, \"b\": {\"command\": {\"path\": \"b-cmd\", \"args\": [\"x\"]}},},\n}\n",
    );
    dry_run(&sandbox, &zed, &["a", "b"]);
}

#[test]
fn a_malformed_file_names_the_file_line_and_column() {
    let sandbox = Sandbox::new("");
    let bad = write(
        &sandbox,
        "proj/.mcp.json",
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": }\n  }\n}\n",
    );
    let output = sandbox.mcpick(&["config", "import", bad.to_str().unwrap(), "--dry-run"]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.contains(".mcp.json: not valid JSON at line 3, column"),
        "{message}"
    );
}

#[test]
fn imported_servers_are_added_next_to_existing_ones_and_work() {
    let sandbox = Sandbox::new(
        "# mine\n[servers.everything]\ncommand = \"node\"\nargs = [\"nothing.js\"]\nenabled = false # off for now\n",
    );
    let file = write(
        &sandbox,
        "claude_desktop_config.json",
        &format!(
            r#"{{"mcpServers": {{"everything": {{"command": "node", "args": [{:?}, "stdio"]}}}}}}"#,
            everything_js().to_string_lossy()
        ),
    );
    let output = sandbox.mcpick(&["config", "import", file.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("added as `everything-2`"),
        "{}",
        stderr(&output)
    );
    let config = std::fs::read_to_string(sandbox.config()).unwrap();
    assert!(
        config.starts_with("# mine\n[servers.everything]\n"),
        "{config}"
    );
    assert!(config.contains("enabled = false # off for now"), "{config}");
    let list = sandbox.mcpick(&["list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(
        stdout(&list).contains("everything-2/args-prompt"),
        "{}",
        stdout(&list)
    );
}

#[test]
fn an_unset_variable_fails_that_server_and_the_others_list() {
    let sandbox = Sandbox::new(&format!(
        "[servers.needs-key]\ncommand = \"x\"\nenv = {{ KEY = \"${{MCPICK_TEST_SURELY_UNSET}}\" }}\n\n{}",
        crate::common::py_stdio("py", &[])
    ));
    let output = sandbox.mcpick(&["list"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("py/"), "{}", stdout(&output));
    let message = stderr(&output);
    assert!(message.contains("needs-key"), "{message}");
    assert!(message.contains("MCPICK_TEST_SURELY_UNSET"), "{message}");
    let servers = sandbox.mcpick(&["servers", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&servers.stdout).unwrap();
    let failed = json
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "needs-key")
        .unwrap();
    assert_eq!(failed["state"], "failed");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("field `env.KEY`"),
        "{failed}"
    );
}

#[test]
fn live_sources_add_other_hosts_servers_by_path_and_by_name() {
    let sandbox = Sandbox::new("");
    let home = sandbox.dir.path().join("home");
    let everything = format!(
        r#"{{"mcpServers": {{"ev": {{"command": "node", "args": [{:?}, "stdio"]}}}}}}"#,
        everything_js().to_string_lossy()
    );
    let by_path = write(&sandbox, "proj/.mcp.json", &everything);
    write(&sandbox, "home/.cursor/mcp.json", &everything);
    std::fs::write(
        sandbox.config(),
        format!("sources = [{:?}, \"cursor\"]\n", by_path.to_string_lossy()),
    )
    .unwrap();
    let mut command = sandbox.command(&["list"]);
    command.env("HOME", &home);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let listed = stdout(&output);
    assert!(listed.contains("ev/args-prompt"), "{listed}");
    assert!(
        listed.contains("ev-2/args-prompt"),
        "the cursor copy is renamed: {listed}"
    );
    let mut command = sandbox.command(&["servers", "--json"]);
    command.env("HOME", &home);
    let json: serde_json::Value =
        serde_json::from_slice(&command.output().unwrap().stdout).unwrap();
    let sources: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["source"].as_str())
        .collect();
    assert!(
        sources
            .iter()
            .any(|s| s.starts_with("claude-code: ") && s.ends_with(".mcp.json")),
        "{json}"
    );
    assert!(sources.iter().any(|s| s.starts_with("cursor: ")), "{json}");
}

#[test]
fn a_broken_source_names_its_file() {
    let sandbox = Sandbox::new("");
    let bad = write(&sandbox, "proj/.mcp.json", "{ \"mcpServers\": [ }");
    std::fs::write(
        sandbox.config(),
        format!("sources = [{:?}]\n", bad.to_string_lossy()),
    )
    .unwrap();
    let output = sandbox.mcpick(&["list"]);
    // A config that cannot be used is a usage error (2).
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(".mcp.json: not valid JSON at line 1"),
        "{}",
        stderr(&output)
    );
}

/// A VS Code `mcp.json` whose server-everything only starts when `KEY` is the secret the
/// `api-key` input gives (the gate fails it otherwise), next to an ungated copy.
fn vscode_with_an_input(sandbox: &Sandbox) -> std::path::PathBuf {
    let everything = format!("{:?}", everything_js().to_string_lossy());
    write(
        sandbox,
        "proj/.vscode/mcp.json",
        &format!(
            r#"{{
  // VS Code asks for inputs when a server starts.
  "inputs": [
    {{"type": "promptString", "id": "api-key", "description": "Gate API Key", "password": true}},
  ],
  "servers": {{
    "gated": {{
      "command": "sh",
      "args": ["-c", "[ \"$KEY\" = s3cret ] || {{ echo wrong key >&2; exit 1; }}; exec \"$@\"", "gate", "node", {everything}, "stdio"],
      "env": {{"KEY": "${{input:api-key}}"}},
    }},
    "open": {{"command": "node", "args": [{everything}, "stdio"]}},
  }},
}}"#
        ),
    )
}

#[test]
fn a_vscode_input_is_given_by_its_variable_or_fails_its_server_saying_how() {
    let sandbox = Sandbox::new("");
    let file = vscode_with_an_input(&sandbox);
    let toml = dry_run(&sandbox, &file, &["gated", "open"]);
    assert!(toml.contains(r#"KEY = "${input:api-key}""#), "{toml}");
    assert!(
        toml.contains("[inputs.api-key]\ndescription = \"Gate API Key\""),
        "{toml}"
    );
    std::fs::write(
        sandbox.config(),
        format!("sources = [{:?}]\n", file.to_string_lossy()),
    )
    .unwrap();

    // No terminal to ask on: the server that needs the input fails, the other lists (and
    // `list` succeeds, as it does whenever a server answered).
    let output = sandbox.mcpick(&["list"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let listed = stdout(&output);
    assert!(listed.contains("open/args-prompt"), "{listed}");
    assert!(!listed.contains("gated/"), "{listed}");
    let error = stderr(&output);
    assert!(
        error.contains("server `gated` failed: needs input `api-key` (Gate API Key)")
            && error.contains("set MCPICK_INPUT_API_KEY"),
        "{error}"
    );

    // The variable gives it; the gate proves the value reached the server.
    let mut command = sandbox.command(&["list"]);
    command.env("MCPICK_INPUT_API_KEY", "s3cret");
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("gated/args-prompt"));

    let mut command = sandbox.command(&["list"]);
    // (A value that the gate's message does not contain: typed inputs are masked.)
    command.env("MCPICK_INPUT_API_KEY", "not-the-key");
    let output = command.output().unwrap();
    assert!(stderr(&output).contains("wrong key"), "{}", stderr(&output));
}
