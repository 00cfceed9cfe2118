//! `mcpick serve` serving skill folders (`NAME/SKILL.md`) end to end, the real binary over
//! stdio: as SEP-2640 skills (`skills/list`, `skills/get`, `resources/read` of `skill://`
//! files with their digests, `resources/directory/read`) and as prompts of the same name,
//! and edits on disk announced in both protocol eras.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::pty::{ENTER, SERVER_START, STEP, Tui, out_file, read};
use crate::common::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const REVIEW: &str = "---\nname: review\ndescription: Review a change against the team checklist\nlicense: MIT\n---\nReview $ARGUMENTS against references/checklist.md.\n";
const CHECKLIST: &str = "- tests\n- docs\n";

fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A folder with the skill `review` (and a supporting file in a subfolder) and one prompt.
fn skill_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "skills/review/SKILL.md", REVIEW);
    write(
        dir.path(),
        "skills/review/references/checklist.md",
        CHECKLIST,
    );
    write(dir.path(), "hello.prompt.md", "Say hello.\n");
    dir
}

/// `sha256:` and the hex SHA-256 of `text`, computed here rather than by mcpick.
fn sha256(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `mcpick serve ARGS` over stdio, its answers read on a thread (so a wait can time out).
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl Served {
    fn start(args: &[&str]) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mcpick serve");
        let stdin = child.stdin.take();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        Served {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message matching `wanted`, skipping others; panics after 10 s.
    fn wait_for(&self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut skipped = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => skipped.push(message),
                Err(_) => panic!("no {what} within 10 s; got {skipped:?}"),
            }
        }
    }

    /// Sends a request and returns its answer.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(&format!("answer to {method}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
    }
}

impl Served {
    /// Waits for the notification `notice`, then asks `method` until `done` holds of the
    /// answer: a write on disk can be seen half done (an empty file first), and each
    /// reload of it is told, so one notice may come before the one that matters.
    fn after_notices(
        &mut self,
        notice: &str,
        first_id: u64,
        method: &str,
        params: Value,
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        let mut answers = Vec::new();
        for id in first_id..first_id + 5 {
            self.wait_for(notice, |m| m["method"] == notice);
            let answer = self.request(id, method, params.clone());
            if done(&answer) {
                return answer;
            }
            answers.push(answer);
        }
        panic!("after 5 × {notice}, {method} still answers {answers:?}");
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Params with the 2026-07-28 per-request `_meta` (stateless, no handshake).
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    params
}

fn result(answer: &Value) -> &Value {
    assert!(answer.get("error").is_none(), "{answer}");
    &answer["result"]
}

#[test]
fn a_skill_folder_is_a_sep_2640_skill_with_digests_and_a_prompt_of_its_name() {
    let folder = skill_folder();
    let mut served = Served::start(&[&folder.path().to_string_lossy()]);

    let discover = served.request(1, "server/discover", modern(json!({})));
    assert_eq!(
        result(&discover)["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({ "directoryRead": true }),
        "{discover}"
    );

    let list = served.request(2, "skills/list", modern(json!({})));
    let list = result(&list);
    assert!(
        list["ttlMs"].is_u64() && list["cacheScope"].is_string(),
        "{list}"
    );
    let skills = list["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1, "{list}");
    let entry = &skills[0];
    assert_eq!(entry["uri"], "skill://review/SKILL.md");
    assert_eq!(
        entry["frontmatter"],
        json!({
            "name": "review",
            "description": "Review a change against the team checklist",
            "license": "MIT",
        })
    );
    assert_eq!(
        entry["resources"],
        json!([
            { "uri": "skill://review/SKILL.md", "digest": sha256(REVIEW), "size": REVIEW.len() },
            {
                "uri": "skill://review/references/checklist.md",
                "digest": sha256(CHECKLIST),
                "size": CHECKLIST.len(),
            },
        ])
    );

    let get = served.request(
        3,
        "skills/get",
        modern(json!({ "uri": "skill://review/SKILL.md" })),
    );
    assert_eq!(result(&get)["skill"], *entry, "{get}");
    let unknown = served.request(
        4,
        "skills/get",
        modern(json!({ "uri": "skill://nope/SKILL.md" })),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // What resources/read returns is what the digest describes.
    for (id, uri, text) in [
        (5, "skill://review/SKILL.md", REVIEW),
        (6, "skill://review/references/checklist.md", CHECKLIST),
    ] {
        let read = served.request(id, "resources/read", modern(json!({ "uri": uri })));
        let content = &result(&read)["contents"][0];
        assert_eq!(content["text"], text, "{read}");
        assert_eq!(sha256(content["text"].as_str().unwrap()), sha256(text));
        assert_eq!(content["mimeType"], "text/markdown");
    }

    let resources = served.request(7, "resources/list", modern(json!({})));
    let listed = &result(&resources)["resources"];
    let skill_md = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://review/SKILL.md")
        .unwrap_or_else(|| panic!("SKILL.md not in resources/list: {listed}"));
    assert_eq!(skill_md["name"], "review");
    assert_eq!(
        skill_md["description"],
        "Review a change against the team checklist"
    );

    let root = served.request(
        8,
        "resources/directory/read",
        modern(json!({ "uri": "skill://review" })),
    );
    let children: Vec<(String, String)> = result(&root)["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap().to_string(),
                r["mimeType"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        children,
        [
            (
                "skill://review/SKILL.md".to_string(),
                "text/markdown".to_string()
            ),
            ("skill://review/references".into(), "inode/directory".into()),
        ]
    );
    let not_a_folder = served.request(
        9,
        "resources/directory/read",
        modern(json!({ "uri": "skill://review/SKILL.md" })),
    );
    assert_eq!(not_a_folder["error"]["code"], -32602, "{not_a_folder}");

    // The same skill as a prompt, for hosts that only speak prompts.
    let prompts = served.request(10, "prompts/list", modern(json!({})));
    let review = result(&prompts)["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "review")
        .cloned()
        .unwrap_or_else(|| panic!("no prompt review: {prompts}"));
    assert_eq!(
        review["description"],
        "Review a change against the team checklist"
    );
    assert_eq!(review["arguments"][0]["name"], "arguments");
    // It says which skill it is, so a host listing both can show it once.
    assert_eq!(
        review["_meta"]["io.github.mcpick/skill"],
        "skill://review/SKILL.md"
    );
    let hello = result(&prompts)["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "hello")
        .cloned()
        .unwrap_or_else(|| panic!("no prompt hello: {prompts}"));
    assert!(hello.get("_meta").is_none(), "{hello}");
    let got = served.request(
        11,
        "prompts/get",
        modern(json!({ "name": "review", "arguments": { "arguments": "the login change" } })),
    );
    let message = &result(&got)["messages"][0];
    assert_eq!(message["role"], "user");
    assert_eq!(
        message["content"]["text"],
        "Review the login change against references/checklist.md."
    );
}

#[test]
fn editing_a_skill_is_announced_to_legacy_clients_and_to_listeners() {
    let folder = skill_folder();
    let mut legacy = Served::start(&[&folder.path().to_string_lossy()]);
    let init = legacy.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "test", "version": "1" },
        }),
    );
    assert_eq!(
        result(&init)["capabilities"]["extensions"]["io.modelcontextprotocol/skills"]["directoryRead"],
        true,
        "{init}"
    );
    legacy.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let before = legacy.request(2, "skills/list", json!({}));
    let digest_before = result(&before)["skills"][0]["resources"][0]["digest"].clone();

    let mut modern_client = Served::start(&[&folder.path().to_string_lossy()]);
    modern_client.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": modern(json!({ "notifications": { "resourcesListChanged": true } })),
    }));
    modern_client.wait_for("the listen acknowledgement", |m| {
        m["method"] == "notifications/subscriptions/acknowledged"
    });
    // The legacy session has its change watch running once it answers.
    legacy.request(3, "ping", json!({}));

    let edited = REVIEW.replace("Review $ARGUMENTS", "Carefully review $ARGUMENTS");
    write(folder.path(), "skills/review/SKILL.md", &edited);
    modern_client.wait_for("resources/list_changed on the listen stream", |m| {
        m["method"] == "notifications/resources/list_changed"
    });
    let digest_of =
        |answer: &Value| answer["result"]["skills"][0]["resources"][0]["digest"].clone();
    let after = legacy.after_notices(
        "notifications/resources/list_changed",
        10,
        "skills/list",
        json!({}),
        |answer| digest_of(answer) == sha256(&edited),
    );
    assert_ne!(digest_of(&after), digest_before, "{after}");

    // A new supporting file, then a new skill folder: each is a change of its own.
    write(
        folder.path(),
        "skills/review/references/style.md",
        "Short lines.\n",
    );
    legacy.after_notices(
        "notifications/resources/list_changed",
        20,
        "skills/get",
        json!({ "uri": "skill://review/SKILL.md" }),
        |answer| {
            answer["result"]["skill"]["resources"]
                .as_array()
                .is_some_and(|files| {
                    files
                        .iter()
                        .any(|f| f["uri"] == "skill://review/references/style.md")
                })
        },
    );

    write(
        folder.path(),
        "skills/lint/SKILL.md",
        "---\nname: lint\ndescription: Lint before review\n---\nLint it.\n",
    );
    let names_of = |answer: &Value| -> Vec<String> {
        answer["result"]["skills"]
            .as_array()
            .map(|skills| {
                skills
                    .iter()
                    .filter_map(|s| s["frontmatter"]["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    // The new skill's prompt is a prompts list change as well.
    let listed = legacy.after_notices(
        "notifications/prompts/list_changed",
        30,
        "skills/list",
        json!({}),
        |answer| names_of(answer) == ["lint", "review"],
    );
    assert_eq!(names_of(&listed), ["lint", "review"]);
}

#[test]
fn a_bad_skill_folder_is_reported_and_the_rest_is_served() {
    let folder = skill_folder();
    write(
        folder.path(),
        "skills/broken/SKILL.md",
        "---\nname: not-broken\ndescription: wrong name\n---\nBody\n",
    );
    let mut served = Served::start(&[&folder.path().to_string_lossy()]);
    let prompts = served.request(1, "prompts/list", modern(json!({})));
    let problems = &result(&prompts)["_meta"]["io.github.mcpick/problems"];
    let text = problems.to_string();
    assert!(
        text.contains("broken/SKILL.md") && text.contains("(skill not served)"),
        "{prompts}"
    );
    let skills = served.request(2, "skills/list", modern(json!({})));
    let uris: Vec<&str> = result(&skills)["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["skill://review/SKILL.md"]);
}

/// A prompts-only host (mcpick's own `list` and `get`) sees the skill as the prompt
/// `served:review`.
#[test]
fn a_prompts_only_client_gets_the_skill_as_a_prompt() {
    // The official Python SDK's client, which knows prompts and nothing of skills.
    const CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    server = StdioServerParameters(command=sys.argv[1], args=["serve", sys.argv[2]])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_prompts()
            got = await session.get_prompt("review", {"arguments": "PR 7"})
            print(json.dumps({
                "prompts": [p.name for p in listed.prompts],
                "description": next(p.description for p in listed.prompts if p.name == "review"),
                "text": got.messages[0].content.text,
            }))

asyncio.run(main())
"#;
    let folder = skill_folder();
    let output = Command::new(python())
        .args(["-c", CLIENT, env!("CARGO_BIN_EXE_mcpick")])
        .arg(folder.path())
        .output()
        .expect("run the Python SDK client");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut prompts: Vec<&str> = seen["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    prompts.sort();
    assert_eq!(prompts, ["hello", "review"], "{seen}");
    assert_eq!(
        seen["description"],
        "Review a change against the team checklist"
    );
    assert_eq!(seen["text"], "Review PR 7 against references/checklist.md.");
}

/// A sandbox whose server `served` is `mcpick serve` on `folder`, over stdio.
fn served_sandbox(folder: &Path) -> Sandbox {
    let sandbox = Sandbox::new("");
    let config = mcpick_serve("served", &[folder.to_str().unwrap()]);
    std::fs::write(sandbox.config(), config).unwrap();
    sandbox
}

#[test]
fn a_served_skill_folder_is_one_skill_entry_to_mcpick_and_get_verifies_it() {
    let folder = skill_folder();
    let sandbox = served_sandbox(folder.path());
    let json: Value = serde_json::from_str(&success(&sandbox.mcpick(&["list", "--json"]))).unwrap();
    let entries: Vec<(&str, &str)> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["kind"].as_str().unwrap()))
        .collect();
    // The prompt mcpick serve also lists for prompts-only hosts is not a second row.
    assert_eq!(
        entries,
        [("hello", "prompt"), ("review", "skill")],
        "{json}"
    );
    let text = success(&sandbox.mcpick(&["list"]));
    assert!(
        text.lines()
            .any(|l| l.starts_with("served/review") && l.contains("(skill)")),
        "{text}"
    );

    let out = success(&sandbox.mcpick(&[
        "get",
        "served/review",
        "--task",
        "the parser change",
        "--attach",
        "references/checklist.md",
        "--format",
        "text",
    ]));
    // The task fills `$ARGUMENTS` as Claude Code fills it, and is not sent again after.
    assert!(
        out.contains("Review the parser change against references/checklist.md."),
        "{out}"
    );
    assert_eq!(out.matches("the parser change").count(), 1, "{out}");
    assert!(
        !out.contains("license: MIT"),
        "the front matter is sent: {out}"
    );
    assert!(
        out.contains("- tests"),
        "the attached file is in the export: {out}"
    );

    let servers = success(&sandbox.mcpick(&["servers"]));
    assert!(
        servers
            .lines()
            .any(|l| l.trim_start().starts_with("skills:") && l.contains(" 1 (")),
        "{servers}"
    );
}

#[test]
fn an_edited_skill_is_loaded_as_it_is_now_not_refused_nor_stale() {
    let folder = skill_folder();
    let sandbox = served_sandbox(folder.path());
    success(&sandbox.mcpick(&["list"]));
    // Changed after the listing the catalog cache holds: the old digest no longer fits.
    write(
        folder.path(),
        "skills/review/SKILL.md",
        &REVIEW.replace("against", "line by line against"),
    );
    let out = success(&sandbox.mcpick(&["get", "served/review", "--format", "text"]));
    assert!(out.contains("line by line against"), "{out}");
}

#[test]
fn the_menu_of_mcpick_shows_a_served_skill_once_as_a_skill_and_exports_it_verified() {
    let folder = skill_folder();
    let sandbox = served_sandbox(folder.path());
    let out = out_file(&sandbox);
    let mut tui = Tui::start(&sandbox, &["--output", out.to_str().unwrap()]);
    tui.wait_for("● served 2", SERVER_START);
    tui.send("review");
    let menu = tui.wait_for("/served:review", STEP);
    let rows: Vec<&str> = menu
        .lines()
        .filter(|l| l.trim_start_matches(['▌', ' ']).starts_with("/review"))
        .collect();
    assert_eq!(
        rows.len(),
        1,
        "the skill and its prompt are one row:\n{menu}"
    );
    assert!(rows[0].contains("[skill]"), "{menu}");
    assert!(menu.contains("skill://review/SKILL.md"), "{menu}");
    tui.send(ENTER);
    tui.wait_for("reads and verifies the skill", STEP);
    tui.send("the parser change");
    tui.send(ENTER);
    tui.wait_for("its size and sha256 digest verified", STEP);
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    let exported = read(&out);
    assert!(
        exported.contains("Review the parser change against references/checklist.md."),
        "{exported}"
    );
}

#[test]
fn a_skill_edited_while_its_form_is_open_is_loaded_as_it_is_now() {
    let folder = skill_folder();
    let sandbox = served_sandbox(folder.path());
    let out = out_file(&sandbox);
    let mut tui = Tui::start(&sandbox, &["--output", out.to_str().unwrap()]);
    tui.wait_for("● served 2", SERVER_START);
    tui.send("review");
    tui.wait_for("/served:review", STEP);
    tui.send(ENTER);
    tui.wait_for("reads and verifies the skill", STEP);
    // Edited on disk while the form is open; the server reloads it within its watcher's
    // longest delay (1 s; the wait leaves room): the digest the form was opened with no
    // longer fits the bytes served. The server's notice brings the form the new entry (and
    // were it late, the load asks for the current entry itself: skills.rs).
    write(
        folder.path(),
        "skills/review/SKILL.md",
        &REVIEW.replace("against", "line by line against"),
    );
    std::thread::sleep(std::time::Duration::from_millis(2500));
    tui.send("the parser change");
    tui.send(ENTER);
    let review = tui.wait_for("its size and sha256 digest verified", STEP);
    assert!(!review.contains("refused"), "{review}");
    tui.send(ENTER);
    assert_eq!(tui.wait_exit(STEP), 0, "exit code");
    let exported = read(&out);
    assert!(
        exported.contains("Review the parser change line by line against"),
        "{exported}"
    );
}

#[test]
fn an_edited_skill_reaches_an_open_menu_without_a_restart() {
    let folder = skill_folder();
    let sandbox = served_sandbox(folder.path());
    let mut tui = Tui::start(&sandbox, &[]);
    tui.wait_for("● served 2", SERVER_START);
    tui.send("review");
    tui.wait_for(&format!("SKILL.md  {} bytes", REVIEW.len()), STEP);
    // Only the body changes: the prompts list stays the same, the skill's manifest does
    // not (a resource list change, which the menu must listen for).
    let edited = format!("{REVIEW}Then say what you checked.\n");
    write(folder.path(), "skills/review/SKILL.md", &edited);
    tui.wait_for(&format!("SKILL.md  {} bytes", edited.len()), STEP);
}
