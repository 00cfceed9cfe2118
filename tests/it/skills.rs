//! Skills over MCP (SEP-2640), the host's side, with the real binary: `list`, `get` and
//! `servers` against tests/peers/skills_server.py (a prompt, a skill served as listed, a
//! skill whose SKILL.md changes after listing), and the menu in a pseudo-terminal picking
//! a skill, attaching its supporting file with `o`, and refusing the tampered one.

use std::path::{Path, PathBuf};

use crate::common::pty::*;
use crate::common::*;

/// A sandbox whose server `sk` is the skills fixture, logging its requests to the file
/// returned.
fn skills_sandbox() -> (Sandbox, PathBuf) {
    skills_sandbox_with(&[])
}

/// [`skills_sandbox`] with more arguments for the fixture (`--modern`).
fn skills_sandbox_with(extra: &[&str]) -> (Sandbox, PathBuf) {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("requests.log");
    let fixture = root().join("tests/peers/skills_server.py");
    let mut args = vec![
        toml_str(fixture.to_string_lossy()),
        toml_str(log.to_string_lossy()),
    ];
    args.extend(extra.iter().map(toml_str));
    let config = format!(
        "[servers.sk]\ncommand = {}\nargs = [{}]\n",
        toml_str(python3()),
        args.join(", "),
    );
    std::fs::write(sandbox.config(), config).expect("write config");
    (sandbox, log)
}

/// The fixture's requests so far, one `method [uri]` a line.
fn requests(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn reads(log: &Path) -> Vec<String> {
    requests(log)
        .into_iter()
        .filter(|r| r.starts_with("resources/read"))
        .collect()
}

#[test]
fn list_shows_skills_beside_prompts_and_reads_none_of_their_files() {
    let (sandbox, log) = skills_sandbox();
    let text = success(&sandbox.mcpick(&["list"]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("sk/hello") && !lines[0].contains("(skill)"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("sk/review") && lines[1].contains("(skill)"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("sk/tampered") && lines[2].contains("(skill)"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["list", "--json"]))).unwrap();
    let kinds: Vec<(&str, &str)> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("prompt", "hello"),
            ("skill", "review"),
            ("skill", "tampered")
        ]
    );
    assert_eq!(
        json[1]["skill"]["frontmatter"]["license"], "MIT",
        "the front matter is listed verbatim"
    );
    assert!(
        requests(&log).iter().any(|r| r == "skills/list"),
        "{:?}",
        requests(&log)
    );
    assert_eq!(
        reads(&log),
        Vec::<String>::new(),
        "listing read a skill file"
    );
}

#[test]
fn a_server_without_the_extension_is_asked_nothing_about_skills() {
    let (sandbox, log) = skills_sandbox_with(&["--no-extension"]);
    let text = success(&sandbox.mcpick(&["list", "--json"]));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 1, "{json}");
    assert_eq!(json[0]["kind"], "prompt");
    let wire = requests(&log);
    assert!(wire.iter().any(|r| r == "prompts/list"), "{wire:?}");
    assert!(!wire.iter().any(|r| r.starts_with("skills/")), "{wire:?}");
    let text = success(&sandbox.mcpick(&["servers"]));
    assert!(!text.contains("skills:"), "{text}");
}

#[test]
fn a_skill_and_a_prompt_of_one_name_are_both_listed_and_get_takes_the_skill() {
    let (sandbox, log) = skills_sandbox_with(&["--mirror"]);
    let json: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["list", "--json"]))).unwrap();
    let reviews: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "review")
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(reviews, ["prompt", "skill"]);
    let out = success(&sandbox.mcpick(&["get", "sk/review", "--format", "text"]));
    assert!(
        out.contains("Skill `review` from the MCP server `sk`"),
        "{out}"
    );
    assert!(
        !requests(&log).iter().any(|r| r == "prompts/get"),
        "{:?}",
        requests(&log)
    );
    // `complete` is about a prompt's arguments: it takes the prompt of that name.
    let output = sandbox.mcpick(&["complete", "sk/review", "task"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("prompt `review` has no argument `task`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_key_the_server_repeats_in_a_skill_is_verified_as_sent_and_shown_masked() {
    let secret = "sk-live-0123456789";
    let (sandbox, _log) = skills_sandbox();
    let config = std::fs::read_to_string(sandbox.config()).unwrap();
    std::fs::write(
        sandbox.config(),
        format!("{config}env = {{ API_KEY = \"${{MCPICK_TEST_KEY}}\" }}\n"),
    )
    .unwrap();
    let output = sandbox
        .command(&["get", "sk/review", "--format", "text"])
        .env("MCPICK_TEST_KEY", secret)
        .output()
        .unwrap();
    let out = success(&output);
    assert!(out.contains("sha256 digest verified"), "{out}");
    assert!(out.contains("Use the key ‹hidden›."), "{out}");
    assert!(!out.contains(secret), "{out}");
}

#[test]
fn a_skill_given_only_by_its_uri_is_fetched_with_skills_get_and_verified() {
    let (sandbox, log) = skills_sandbox();
    let out = success(&sandbox.mcpick(&[
        "get",
        "sk/skill://team/hidden/SKILL.md",
        "--task",
        "go",
        "--format",
        "text",
    ]));
    assert!(
        out.contains("Skill `hidden` from the MCP server `sk`"),
        "{out}"
    );
    assert!(out.contains("sha256 digest verified"), "{out}");
    assert!(out.contains("Found by URI."), "{out}");
    let wire = requests(&log);
    let get = wire
        .iter()
        .position(|r| r == "skills/get skill://team/hidden/SKILL.md");
    let read = wire
        .iter()
        .position(|r| r == "resources/read skill://team/hidden/SKILL.md");
    assert!(
        matches!((get, read), (Some(g), Some(r)) if g < r),
        "{wire:?}"
    );
    // A URI the server serves no skill at: its error, exit 1.
    let output = sandbox.mcpick(&["get", "sk/skill://nope/SKILL.md"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no such skill"),
        "{}",
        stderr(&output)
    );
    // Without a server it is a usage error.
    let output = sandbox.mcpick(&["get", "skill://team/hidden/SKILL.md"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn get_exports_a_verified_skill_with_its_task_and_an_attached_file() {
    let (sandbox, log) = skills_sandbox();
    let out = success(&sandbox.mcpick(&[
        "get",
        "sk/review",
        "--task",
        "check PR 7",
        "--attach",
        "references/GUIDE.md",
        "--format",
        "text",
    ]));
    assert!(
        out.contains("Skill `review` from the MCP server `sk`")
            && out.contains("sha256 digest verified"),
        "{out}"
    );
    assert!(out.contains("Read the diff line by line."), "{out}");
    assert!(out.contains("Prefer small functions."), "{out}");
    // No placeholder in this skill: the task ends its instructions (`ARGUMENTS: …`, as
    // Claude Code adds it), before the attached file, and only there.
    let task = out
        .find("ARGUMENTS: check PR 7")
        .expect("the task is filled in");
    assert!(task < out.find("Prefer small functions.").unwrap(), "{out}");
    assert_eq!(out.matches("check PR 7").count(), 1, "{out}");
    assert_eq!(
        reads(&log),
        [
            "resources/read skill://review/SKILL.md",
            "resources/read skill://review/references/GUIDE.md"
        ]
    );
    // The same as MCP JSON: the file is an embedded resource.
    let json: serde_json::Value = serde_json::from_str(&success(&sandbox.mcpick(&[
        "get",
        "sk/review",
        "--attach",
        "references/GUIDE.md",
        "--format",
        "mcp-json",
    ])))
    .unwrap();
    let messages = json.as_array().unwrap();
    assert_eq!(messages.len(), 2, "{json}");
    assert_eq!(messages[1]["content"]["type"], "resource");
    assert_eq!(
        messages[1]["content"]["resource"]["uri"],
        "skill://review/references/GUIDE.md"
    );
}

#[test]
fn a_skill_file_changed_after_listing_is_refused_by_name() {
    let (sandbox, _log) = skills_sandbox();
    let output = sandbox.mcpick(&["get", "sk/tampered"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(stdout(&output), "", "nothing unverified is printed");
    let error = stderr(&output);
    assert!(
        error.contains("refused skill://tampered/SKILL.md: its sha256 digest is"),
        "{error}"
    );
    assert!(error.contains("Refresh the list"), "{error}");
}

#[test]
fn an_unlisted_attachment_is_refused_before_anything_is_read() {
    let (sandbox, log) = skills_sandbox();
    let output = sandbox.mcpick(&["get", "sk/review", "--attach", "scripts/run.sh"]);
    // The user's slip, not the server's: a usage error naming the files the skill has.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).starts_with(
            "mcpick: --attach scripts/run.sh: skill `review` on `sk` has no such file; its files: "
        ),
        "{}",
        stderr(&output)
    );
    assert_eq!(reads(&log), Vec::<String>::new());
    // --attach on a prompt is a usage error.
    let output = sandbox.mcpick(&["get", "sk/hello", "--attach", "x.md"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn servers_reports_the_extension_and_the_skill_count() {
    let (sandbox, _log) = skills_sandbox();
    let text = success(&sandbox.mcpick(&["servers"]));
    assert!(text.contains("  prompts:      1\n"), "{text}");
    assert!(
        text.contains("  skills:       2 (extension io.modelcontextprotocol/skills)"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&success(&sandbox.mcpick(&["servers", "--json"]))).unwrap();
    assert_eq!(json[0]["skills"], true);
    assert_eq!(json[0]["skillCount"], 2);
    assert_eq!(json[0]["promptCount"], 1);
}

#[test]
fn a_2026_servers_skills_are_listed_and_verified_and_a_stale_catalog_entry_is_refreshed() {
    let (sandbox, log) = skills_sandbox_with(&["--modern"]);
    let text = success(&sandbox.mcpick(&["list"]));
    assert!(
        text.contains("sk/review") && text.contains("(skill)"),
        "{text}"
    );
    assert!(
        success(&sandbox.mcpick(&["servers"])).contains("protocol:     2026-07-28"),
        "not the 2026-07-28 wire"
    );
    // The skill is updated on the server after the catalog kept its old manifest.
    std::fs::write(log.with_extension("log.v2"), "").unwrap();
    std::fs::write(&log, "").unwrap();
    let out = success(&sandbox.mcpick(&["get", "sk/review", "--format", "text"]));
    assert!(
        out.contains("Read the diff twice, then once more."),
        "{out}"
    );
    let wire = requests(&log);
    let first_read = wire
        .iter()
        .position(|r| r == "resources/read skill://review/SKILL.md");
    // Refreshed by asking for the skill's current entry (`skills/get`), or the list.
    let relist = wire
        .iter()
        .rposition(|r| r == "skills/list" || r == "skills/get skill://review/SKILL.md");
    assert!(
        matches!((first_read, relist), (Some(read), Some(list)) if read < list),
        "the stale manifest was not refused and refreshed: {wire:?}"
    );
    assert_eq!(
        wire.iter()
            .filter(|r| r.starts_with("resources/read"))
            .count(),
        2,
        "{wire:?}"
    );
    // The tampered one stays refused: its listing did not change.
    let output = sandbox.mcpick(&["get", "sk/tampered"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("refused skill://tampered/SKILL.md"));
}

#[test]
fn the_menu_picks_a_skill_attaches_its_file_with_o_and_exports_it() {
    let (sandbox, log) = skills_sandbox();
    let out = out_file(&sandbox);
    let mut tui = Tui::start(
        &sandbox,
        &["--output", out.to_str().unwrap(), "--format", "markdown"],
    );
    tui.wait_for("● sk 3", SERVER_START);
    let menu = tui.wait_for("3/3 prompts", STEP);
    assert!(menu.contains("[skill]"), "no skill badge:\n{menu}");
    assert_eq!(
        reads(&log),
        Vec::<String>::new(),
        "the menu read a skill file"
    );
    open_prompt(&mut tui, "review", "/sk:review");
    tui.wait_for("reads and verifies the skill", STEP);
    assert_eq!(
        reads(&log),
        Vec::<String>::new(),
        "the form read a skill file"
    );
    tui.send("check PR 7");
    tui.wait_for("│check PR 7", STEP);
    tui.send(ENTER);
    let review = tui.wait_for("Read the diff line by line.", STEP);
    // The front matter is the listing's (the menu's details show it), not a heading here.
    assert!(
        !review.contains("description: Review a change"),
        "the front matter is drawn:\n{review}"
    );
    // The supporting file is a link until `o` reads and verifies it.
    tui.send("\x1b[B");
    std::thread::sleep(AFTER_ESC);
    tui.send("o");
    tui.wait_for("sha256 verified", STEP);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    let exported = read(&out);
    assert!(
        exported.contains("Skill `review` from the MCP server `sk`"),
        "{exported}"
    );
    assert!(exported.contains("Prefer small functions."), "{exported}");
    assert!(
        exported.contains("house style.\n\nARGUMENTS: check PR 7"),
        "{exported}"
    );
    assert_eq!(
        reads(&log),
        [
            "resources/read skill://review/SKILL.md",
            "resources/read skill://review/references/GUIDE.md"
        ]
    );
}

#[test]
fn a_skill_edited_after_listing_is_loaded_as_the_server_lists_it_now() {
    let (sandbox, log) = skills_sandbox_with(&["--drifting"]);
    // Listed with its first digest; what is read now fits only the server's current entry,
    // which `skills/get` gives: loaded, verified against that, and said in the log.
    let out = success(&sandbox.mcpick(&[
        "get",
        "sk/drifting",
        "--task",
        "the lexer",
        "--format",
        "text",
    ]));
    assert!(out.contains("Check the lexer twice, as edited."), "{out}");
    assert!(out.contains("sha256 digest verified"), "{out}");
    let wire = requests(&log);
    let listed = wire.iter().position(|r| r == "skills/list");
    let current = wire
        .iter()
        .position(|r| r == "skills/get skill://drifting/SKILL.md");
    assert!(
        matches!((listed, current), (Some(l), Some(c)) if l < c),
        "{wire:?}"
    );
    // The same in the menu, with the form opened on the listed entry.
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● sk 4", SERVER_START);
    open_prompt(&mut tui, "drifting", "/sk:drifting");
    tui.wait_for("reads and verifies the skill", STEP);
    tui.send("the lexer");
    tui.send(ENTER);
    let review = tui.wait_for("Check the lexer twice, as edited.", STEP);
    assert!(!review.contains("refused"), "{review}");
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "exit code");
    // One that matches no entry of the server's is still refused (`tampered`).
    let output = sandbox.mcpick(&["get", "sk/tampered"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

#[test]
fn the_menu_refuses_a_tampered_skill_naming_its_file() {
    let (sandbox, _log) = skills_sandbox();
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● sk 3", SERVER_START);
    open_prompt(&mut tui, "tampered", "/sk:tampered");
    tui.wait_for("reads and verifies the skill", STEP);
    tui.send(ENTER);
    let screen = tui.wait_for("refused skill://tampered/SKILL.md", STEP);
    assert!(
        !screen.contains("Summarise the change"),
        "the unverified text is shown:\n{screen}"
    );
    tui.send(CTRL_C);
    assert_eq!(tui.wait_exit(STEP), 130, "exit code");
}

#[test]
fn the_menu_shows_a_skill_and_its_prompt_mirror_as_two_rows_and_opens_the_skill() {
    let (sandbox, log) = skills_sandbox_with(&["--mirror"]);
    let out = out_file(&sandbox);
    let mut tui = Tui::start(&sandbox, &["--output", out.to_str().unwrap()]);
    tui.wait_for("● sk 5", SERVER_START);
    tui.send("/sk:review");
    let menu = tui.wait_for("2/5 prompts", STEP);
    let rows: Vec<&str> = menu
        .lines()
        .filter(|l| l.trim_start_matches(['▌', ' ']).starts_with("/sk:review"))
        .collect();
    assert_eq!(rows.len(), 2, "{menu}");
    assert!(
        !rows[0].contains("[skill]") && rows[1].contains("[skill]"),
        "{menu}"
    );
    // Down to the skill's row, open it, Enter with no task: the skill alone is loaded.
    tui.send("\x1b[B");
    tui.wait_for("Skill (SEP-2640) at skill://review/SKILL.md", STEP);
    tui.send(ENTER);
    tui.wait_for("reads and verifies the skill", STEP);
    tui.send(ENTER);
    tui.wait_for("Read the diff line by line.", STEP);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    assert!(read(&out).contains("Skill `review` from the MCP server `sk`"));
    assert!(!requests(&log).iter().any(|r| r == "prompts/get"));
}
