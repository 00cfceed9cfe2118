//! `mcpick lock` and `mcpick check` end to end: the real binary against `mcpick serve` of a
//! temp folder (each kind of drift named), against servers that keep secrets in the config
//! (none of them in the file), and against the reference server and the Python SDK server
//! (two locks, the same bytes).

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

const HELLO: &str = "---\ndescription: Greet someone\narguments:\n  - name: who\n    required: true\n---\nHello {{who}}!\nHave a nice day.\n";
const BYE: &str = "---\ndescription: Say goodbye\n---\nBye.\n";
const REVIEW: &str = "---\nname: review\ndescription: Review a change\n---\nReview $ARGUMENTS against references/checklist.md.\n";

fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A folder of two prompts and a skill with a supporting file, served as `served`; the
/// lockfile is `mcpick.lock` in the sandbox, taken with an example of `hello` and its text.
fn locked_folder() -> (tempfile::TempDir, Sandbox) {
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "hello.mcpick.md", HELLO);
    write(folder.path(), "bye.mcpick.md", BYE);
    write(folder.path(), "skills/review/SKILL.md", REVIEW);
    write(
        folder.path(),
        "skills/review/references/checklist.md",
        "- tests\n",
    );
    let sandbox = Sandbox::new(&mcpick_serve("served", &[folder.path().to_str().unwrap()]));
    let locked = run(
        &sandbox,
        &["lock", "served/hello", "who=World", "--with-output"],
    );
    assert_eq!(locked.status.code(), Some(0), "{}", stderr(&locked));
    assert!(
        stderr(&locked).contains("locked 1 server, 2 prompts, 1 skill and 1 example"),
        "{}",
        stderr(&locked)
    );
    (folder, sandbox)
}

/// `mcpick ARGS` run in the sandbox's folder, where `mcpick.lock` is.
fn run(sandbox: &Sandbox, args: &[&str]) -> Output {
    sandbox
        .command(args)
        .current_dir(sandbox.dir.path())
        .output()
        .expect("run mcpick")
}

/// `check`'s exit code and stdout.
fn check(sandbox: &Sandbox) -> (Option<i32>, String) {
    let out = run(sandbox, &["check"]);
    (out.status.code(), stdout(&out))
}

fn lockfile(sandbox: &Sandbox) -> String {
    std::fs::read_to_string(sandbox.dir.path().join("mcpick.lock")).expect("a lockfile")
}

#[test]
fn a_fresh_lock_checks_clean_and_holds_each_definition() {
    let (_folder, sandbox) = locked_folder();
    let out = run(&sandbox, &["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("no drift from mcpick.lock"),
        "{}",
        stderr(&out)
    );
    let file = lockfile(&sandbox);
    for expected in [
        "version = 1\n",
        "[servers.served.prompts.hello]\n",
        "[servers.served.prompts.bye]\n",
        "[servers.served.skills.review.files]\n",
        "\"references/checklist.md\" = \"sha256:",
        "Hello World!\nHave a nice day.\n",
        "arguments = { who = \"World\" }\n",
    ] {
        assert!(
            file.contains(expected),
            "{expected:?} missing from:\n{file}"
        );
    }
}

#[test]
fn an_edited_prompt_file_is_named_with_the_changed_line() {
    let (folder, sandbox) = locked_folder();
    write(
        folder.path(),
        "hello.mcpick.md",
        &HELLO.replace("a nice day", "a wonderful day"),
    );
    let (code, report) = check(&sandbox);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("served/hello: changed\n"), "{report}");
    assert!(
        report.contains("  example who=\"World\": rendered differently\n"),
        "{report}"
    );
    assert!(report.contains("    -Have a nice day.\n"), "{report}");
    assert!(report.contains("    +Have a wonderful day.\n"), "{report}");
    // Nothing else drifted.
    assert!(
        !report.contains("bye") && !report.contains("review"),
        "{report}"
    );
    // For CI: the same as JSON.
    let out = run(&sandbox, &["check", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["drift"], true);
    let entry = &json["servers"][0]["drifted"][0];
    assert_eq!(entry["name"], "hello");
    assert!(
        entry["examples"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+Have a wonderful day."),
        "{json}"
    );
    // Locking again accepts it.
    assert_eq!(run(&sandbox, &["lock"]).status.code(), Some(0));
    assert_eq!(check(&sandbox).0, Some(0));
    assert!(lockfile(&sandbox).contains("Have a wonderful day."));
}

#[test]
fn a_new_required_argument_a_gone_prompt_and_a_new_one_are_named() {
    let (folder, sandbox) = locked_folder();
    write(
        folder.path(),
        "bye.mcpick.md",
        "---\ndescription: Say goodbye\narguments:\n  - name: tone\n    required: true\n---\nBye in a {{tone}} tone.\n",
    );
    std::fs::remove_file(folder.path().join("hello.mcpick.md")).unwrap();
    write(folder.path(), "thanks.mcpick.md", "Thank you.\n");
    let (code, report) = check(&sandbox);
    assert_eq!(code, Some(1), "{report}");
    assert!(
        report.contains("served/bye: changed\n  argument `tone` added (required)\n"),
        "{report}"
    );
    assert!(
        report.contains("served/hello: gone (locked, no longer listed)\n"),
        "{report}"
    );
    assert!(
        report.contains("served/thanks: new (listed, not locked)\n"),
        "{report}"
    );
}

#[test]
fn a_changed_skill_file_is_named() {
    let (folder, sandbox) = locked_folder();
    write(
        folder.path(),
        "skills/review/references/checklist.md",
        "- tests\n- docs\n",
    );
    let (code, report) = check(&sandbox);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(
        report,
        "served/review (skill): changed\n  file `references/checklist.md` changed (its digest differs)\n"
    );
}

#[test]
fn an_unreachable_server_and_an_unreadable_lockfile_exit_2_saying_which() {
    let (_folder, sandbox) = locked_folder();
    let file = lockfile(&sandbox);
    std::fs::write(
        sandbox.config(),
        "[servers.served]\ncommand = \"mcpick-lock-test-no-such-program\"\n",
    )
    .unwrap();
    let out = run(&sandbox, &["check"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("served: not checked: cannot be reached"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("not checked: `served`"),
        "{}",
        stderr(&out)
    );
    // A broken file: its line and column, and what to do.
    let broken = file.replacen("protocol_version = ", "protocol_version = = ", 1);
    let line = broken
        .lines()
        .position(|l| l.starts_with("protocol_version"))
        .unwrap()
        + 1;
    std::fs::write(sandbox.dir.path().join("broken.lock"), broken).unwrap();
    let out = run(&sandbox, &["check", "--file", "broken.lock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("broken.lock:{line}:20: not TOML")),
        "{}",
        stderr(&out)
    );
    let out = run(&sandbox, &["check", "--file", "missing.lock"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`mcpick lock` writes one"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_lockfile_holds_no_secret_and_no_absolute_path() {
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "hello.mcpick.md", HELLO);
    let web = mcpick_serve_http(&[folder.path().to_str().unwrap()]);
    let config = format!(
        "{}env = {{ LOCK_TEST_TOKEN = \"env-secret-1234\" }}\n\n\
         [servers.web]\nurl = {}\nheaders = {{ X-Api-Key = \"header-secret-5678\" }}\n",
        mcpick_serve("served", &[folder.path().to_str().unwrap()]),
        toml_str(format!("{}?key=query-secret-9012", web.url)),
    );
    let sandbox = Sandbox::new(&config);
    let out = run(
        &sandbox,
        &["lock", "served/hello", "who=World", "web/hello", "who=Web"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = lockfile(&sandbox);
    assert!(file.contains("[servers.web.prompts.hello]"), "{file}");
    for secret in ["env-secret-1234", "header-secret-5678", "query-secret-9012"] {
        assert!(!file.contains(secret), "{secret} in:\n{file}");
    }
    let port = web
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    for path in [
        folder.path().to_str().unwrap(),
        sandbox.dir.path().to_str().unwrap(),
        env!("CARGO_BIN_EXE_mcpick"),
        "127.0.0.1",
        port,
    ] {
        assert!(!file.contains(path), "{path} in:\n{file}");
    }
    assert!(
        !file
            .lines()
            .any(|line| line.contains("\"/") || line.contains("= \"~")),
        "{file}"
    );
    assert_eq!(run(&sandbox, &["check"]).status.code(), Some(0));
}

/// Locks `config`'s servers with `examples` twice: the same bytes, and `check` is clean.
fn locks_twice_the_same(config: &str, examples: &[&str]) -> String {
    let sandbox = Sandbox::new(config);
    let mut args = vec!["lock", "--with-output"];
    args.extend(examples);
    let first = run(&sandbox, &args);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let once = lockfile(&sandbox);
    // Again, with the examples kept from the file.
    let second = run(&sandbox, &["lock"]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(lockfile(&sandbox), once);
    let (code, report) = check(&sandbox);
    assert_eq!(code, Some(0), "{report}");
    once
}

#[test]
fn locking_the_reference_server_twice_gives_the_same_bytes() {
    let file = locks_twice_the_same(
        &everything_stdio("everything"),
        &[
            "everything/args-prompt",
            "city=Paris",
            "state=FR",
            "everything/simple-prompt",
        ],
    );
    assert!(
        file.contains("[servers.everything.prompts.args-prompt]"),
        "{file}"
    );
    assert!(file.contains("Paris"), "{file}");
}

#[test]
fn locking_the_python_sdk_server_twice_gives_the_same_bytes() {
    // 13 prompts on 3 pages (cursors), every content kind in `all_content`.
    let file = locks_twice_the_same(
        &py_stdio("py", &[]),
        &["py/greet", "name=Ada", "py/all_content"],
    );
    assert!(file.contains("[servers.py.prompts.filler_09]"), "{file}");
    assert!(file.contains("protocol_version = \"2026-07-28\""), "{file}");
    assert!(file.contains("(image image/png, sha256:"), "{file}");
}
