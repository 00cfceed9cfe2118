//! The official MCP conformance suite against mcpick: the prompt and completion server
//! scenarios in both protocol eras against `mcpick serve --http`
//! (tests/conformance/run-server.sh), and the client scenarios of a prompts host against
//! `mcpick conformance-client` (tests/conformance/run-client.sh).

/// The prompt, completion, caching and SEP-2640 skills server scenarios, in both eras, with
/// tests/conformance/skills served beside the prompts (tests/conformance/run-server.sh).
#[test]
fn conformance_prompt_and_completion_server_scenarios_pass() {
    let output = std::process::Command::new("bash")
        .arg(crate::common::root().join("tests/conformance/run-server.sh"))
        .env("MCPICK_BIN", env!("CARGO_BIN_EXE_mcpick"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run tests/conformance/run-server.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "conformance scenarios failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("19 passed, 0 failed"), "{stdout}");
}

/// The official suite's client scenarios for a prompts host (initialization, HTTP standard
/// headers, request metadata, SSE retry, the auth/ scenarios on both wires, and the
/// SEP-2640 skills host scenarios) against
/// `mcpick conformance-client` (tests/conformance/run-client.sh).
#[test]
fn conformance_client_scenarios_pass() {
    let output = std::process::Command::new("bash")
        .arg(crate::common::root().join("tests/conformance/run-client.sh"))
        .env("MCPICK_BIN", env!("CARGO_BIN_EXE_mcpick"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run tests/conformance/run-client.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "conformance client scenarios failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("57 passed, 0 failed"), "{stdout}");
}
