//! The official MCP conformance suite's prompt and completion server scenarios, in both
//! protocol eras, against `mcpick serve --http` (tests/conformance/run-server.sh).

mod common;

#[test]
fn conformance_prompt_and_completion_server_scenarios_pass() {
    let output = std::process::Command::new("bash")
        .arg(common::root().join("tests/conformance/run-server.sh"))
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
    assert!(stdout.contains("12 passed, 0 failed"), "{stdout}");
}
