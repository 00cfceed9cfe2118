//! `mcpick test SERVER`, for server authors: against a server that breaks the spec on
//! purpose (tests/peers/rule_breaker.py) and against the bundled library, which keeps it.

use crate::common::*;

/// `[servers.NAME]` for the rule breaker in `mode`.
fn rule_breaker(name: &str, mode: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, {}]\n",
        toml_str(root().join("tests/peers/rule_breaker.py").to_string_lossy()),
        toml_str(mode)
    )
}

/// Asserts exit code `code` and returns stdout.
fn exits(output: &std::process::Output, code: i32) -> String {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
    stdout(output)
}

/// The line of `report` that starts (after its indent) with `start`.
fn line<'a>(report: &'a str, start: &str) -> Vec<&'a str> {
    report
        .lines()
        .filter(|l| l.trim_start().starts_with(start))
        .collect()
}

#[test]
fn a_server_that_breaks_rules_is_told_each_one_and_exits_1() {
    let sandbox = Sandbox::new(&rule_breaker("breaker", "breaks"));
    let report = exits(&sandbox.mcpick(&["test", "breaker"]), 1);
    // Both eras answered, each on its own handshake.
    assert!(
        report.contains("era 2026-07-28: answered with protocol 2026-07-28"),
        "{report}"
    );
    assert!(
        report.contains("era initialize: answered with protocol 2025-11-25"),
        "{report}"
    );
    // The list's faults, in both eras.
    let names = line(&report, "names ");
    assert_eq!(names.len(), 2, "{report}");
    assert!(
        names
            .iter()
            .all(|l| l.contains("FAIL  prompts/list entry 1 has no name")),
        "{report}"
    );
    let pages = line(&report, "pagination ");
    assert!(
        pages
            .iter()
            .all(|l| l.contains("FAIL  prompts/list page 2 repeats the cursor \"page-2\"")),
        "{report}"
    );
    // The 2026-07-28 results without `resultType`: one line per prompt, that era only.
    let result_types = line(
        &report,
        "resultType FAIL: the prompts/get result has no resultType",
    );
    assert_eq!(result_types.len(), 3, "{report}");
    // A prompt filled without its required argument, which came from the completions.
    assert_eq!(
        line(
            &report,
            "required FAIL: filled the prompt without its required who"
        )
        .len(),
        2,
        "{report}"
    );
    assert_eq!(
        line(&report, "who = \"world\" (completion)").len(),
        2,
        "{report}"
    );
    // A list-change notice the server never declared (legacy era only).
    assert_eq!(
        line(
            &report,
            "list_changed      FAIL  sent notifications/prompts/list_changed"
        )
        .len(),
        1,
        "{report}"
    );
    // What the chat exports lose of `clip`.
    assert!(
        report.contains(
            "anthropic export: left out message #2: blank text (the Messages API refuses it)"
        ),
        "{report}"
    );
    assert!(
        report.contains("openai export: #3 (assistant): sent as text [audio: audio/wav"),
        "{report}"
    );
    assert!(report.ends_with("10 spec violations: exit 1\n"), "{report}");
}

#[test]
fn the_same_prompts_kept_to_the_rules_pass() {
    let sandbox = Sandbox::new(&rule_breaker("clean", "clean"));
    let report = exits(&sandbox.mcpick(&["test", "clean"]), 0);
    assert!(report.ends_with("no spec violation found\n"), "{report}");
    assert!(!report.contains("FAIL"), "{report}");
}

#[test]
fn the_bundled_library_passes_in_both_eras() {
    let sandbox = Sandbox::new(&mcpick_serve("library", &["--builtin"]));
    let report = exits(&sandbox.mcpick(&["test", "library"]), 0);
    assert!(report.contains("era 2026-07-28: answered"), "{report}");
    assert!(report.contains("era initialize: answered"), "{report}");
    assert!(!report.contains("FAIL"), "{report}");
    // Every bundled prompt is filled: its completions or a placeholder said as such.
    assert_eq!(line(&report, "translate ").len(), 2, "{report}");
    assert!(report.contains("to = \"English\" (completion)"), "{report}");
    assert!(
        report.contains("text = \"example\" (placeholder)"),
        "{report}"
    );
}

#[test]
fn json_holds_every_check_and_args_files_fill_arguments() {
    let sandbox = Sandbox::new(&rule_breaker("breaker", "breaks"));
    let args = sandbox.dir.path().join("args.json");
    std::fs::write(&args, r#"{"greet": {"who": "Ada"}}"#).unwrap();
    let output = sandbox.mcpick(&[
        "test",
        "breaker",
        "--json",
        "--args",
        &args.to_string_lossy(),
    ]);
    let report: serde_json::Value = serde_json::from_str(&exits(&output, 1)).unwrap();
    assert_eq!(report["server"], "breaker");
    assert_eq!(report["violations"], 10);
    let modern = &report["eras"][0];
    assert_eq!(modern["era"], "2026-07-28");
    assert_eq!(modern["answered"], true);
    let verdict = |checks: &serde_json::Value, rule: &str| {
        checks
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["rule"] == rule)
            .map(|c| c["verdict"].as_str().unwrap().to_string())
    };
    assert_eq!(verdict(&modern["checks"], "names").as_deref(), Some("fail"));
    assert_eq!(
        verdict(&modern["checks"], "pagination").as_deref(),
        Some("fail")
    );
    let greet = &modern["prompts"][0];
    assert_eq!(greet["name"], "greet");
    assert_eq!(
        greet["arguments"][0],
        serde_json::json!({"name": "who", "value": "Ada", "from": "args-file"})
    );
    assert_eq!(
        verdict(&greet["checks"], "required").as_deref(),
        Some("fail")
    );
    assert_eq!(
        verdict(&greet["checks"], "resultType").as_deref(),
        Some("fail")
    );
    let clip = &modern["prompts"][1];
    assert_eq!(clip["exports"]["mcp-json"], serde_json::json!([]));
    assert!(
        clip["exports"]["anthropic"][0]
            .as_str()
            .unwrap()
            .starts_with("left out message #2")
    );
    let legacy = &report["eras"][1];
    assert_eq!(legacy["protocolVersion"], "2025-11-25");
    assert_eq!(
        verdict(&legacy["checks"], "resultType").as_deref(),
        Some("skip")
    );
}

#[test]
fn snapshots_are_one_stable_file_per_prompt_and_era() {
    let sandbox = Sandbox::new(&mcpick_serve("library", &["--builtin"]));
    let read_all = |dir: &std::path::Path| {
        let mut files = std::collections::BTreeMap::new();
        for era in std::fs::read_dir(dir).unwrap() {
            let era = era.unwrap().path();
            for file in std::fs::read_dir(&era).unwrap() {
                let file = file.unwrap().path();
                let name = file
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(name, std::fs::read(&file).unwrap());
            }
        }
        files
    };
    let mut runs = Vec::new();
    for run in ["one", "two"] {
        let dir = sandbox.dir.path().join(run);
        let output = sandbox.mcpick(&["test", "library", "--snapshot", &dir.to_string_lossy()]);
        exits(&output, 0);
        runs.push(read_all(&dir));
    }
    assert_eq!(runs[0], runs[1], "two runs wrote different snapshots");
    let translate = String::from_utf8(runs[0]["2026-07-28/translate.json"].clone()).unwrap();
    let messages: serde_json::Value = serde_json::from_str(&translate).unwrap();
    assert_eq!(messages["messages"][0]["role"], "user");
    assert!(runs[0].contains_key("initialize/translate.json"));
    assert_eq!(
        runs[0]
            .keys()
            .filter(|k| k.starts_with("2026-07-28/"))
            .count(),
        runs[0]
            .keys()
            .filter(|k| k.starts_with("initialize/"))
            .count()
    );
}

#[test]
fn a_server_not_configured_or_not_answering_exits_2_saying_so() {
    let sandbox = Sandbox::new(&format!(
        "{}[servers.gone]\ncommand = \"/nonexistent/mcp-server\"\n",
        rule_breaker("breaker", "breaks")
    ));
    let output = sandbox.mcpick(&["test", "braker"]);
    exits(&output, 2);
    let said = stderr(&output);
    assert!(said.contains("no server `braker` in the config"), "{said}");
    assert!(said.contains("breaker"), "a did-you-mean: {said}");
    let output = sandbox.mcpick(&["test", "gone"]);
    exits(&output, 2);
    let said = stderr(&output);
    assert!(
        said.contains("server `gone` answered in neither era"),
        "{said}"
    );
}
