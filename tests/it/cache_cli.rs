//! `mcpick cache show|clear`, `--refresh`, `cache = false`, and the catalog folder holding
//! what no catalog file should be: the commands a user runs to see and forget the cache.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;

fn catalog_server() -> PathBuf {
    root().join("tests/peers/catalog_server.py")
}

/// `[servers.NAME]`: catalog_server.py over stdio with `args`, logging methods to `log`.
fn server(name: &str, log: &Path, args: &[&str]) -> String {
    let mut all = vec![
        toml_str(catalog_server().to_string_lossy()),
        toml_str("--log"),
        toml_str(log.to_string_lossy()),
    ];
    all.extend(args.iter().map(toml_str));
    format!(
        "[servers.{name}]\ncommand = {}\nargs = [{}]\n",
        toml_str(python3()),
        all.join(", ")
    )
}

/// The methods the server logged (first word of each line), emptying the log.
fn methods(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    std::fs::write(log, "").unwrap();
    text.lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

fn catalog_dir(sandbox: &Sandbox) -> PathBuf {
    sandbox.dir.path().join("xdg-cache/mcpick/catalog")
}

fn files(sandbox: &Sandbox) -> Vec<PathBuf> {
    match std::fs::read_dir(catalog_dir(sandbox)) {
        Ok(read) => read.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn cache_show_tells_freshness_and_scope_and_clear_forgets() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let config = server("fresh", &log, &["--ttl", "600000", "--scope", "public"])
        + &server("old", &log, &["--era", "legacy"]);
    std::fs::write(sandbox.config(), config).unwrap();
    assert!(sandbox.mcpick(&["list"]).status.success());
    let shown = sandbox.mcpick(&["cache", "show"]);
    let out = text(&shown.stdout);
    assert!(shown.status.success(), "{out}");
    let fresh = out.lines().find(|l| l.starts_with("fresh:")).expect(&out);
    assert!(
        fresh.contains("1 prompt") && fresh.contains("fresh for 9 min"),
        "{fresh}"
    );
    assert!(fresh.contains("public; in use"), "{fresh}");
    let old = out.lines().find(|l| l.starts_with("old:")).expect(&out);
    assert!(old.contains("stale") && old.contains("private"), "{old}");
    assert!(out.contains("legacy: initialize at once"), "{out}");

    let json = sandbox.mcpick(&["cache", "show", "--json"]);
    let items: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout).unwrap();
    let fresh = items.iter().find(|i| i["server"] == "fresh").unwrap();
    assert_eq!(fresh["fresh"], true);
    assert_eq!(fresh["scope"], "public");
    assert_eq!(fresh["era"], "modern");

    // A typo is a usage error naming the closest server; a configured one is fine.
    let typo = sandbox.mcpick(&["cache", "clear", "frsh"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        text(&typo.stderr).contains("did you mean `fresh`?"),
        "{}",
        text(&typo.stderr)
    );
    let one = sandbox.mcpick(&["cache", "clear", "fresh"]);
    assert!(one.status.success());
    assert_eq!(files(&sandbox).len(), 1);
    let all = sandbox.mcpick(&["cache", "clear"]);
    assert!(
        text(&all.stderr).contains("removed 1 cached catalog"),
        "{}",
        text(&all.stderr)
    );
    assert!(files(&sandbox).is_empty());
}

#[test]
fn refresh_asks_the_server_again_and_is_refused_where_nothing_connects() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    std::fs::write(sandbox.config(), server("s", &log, &["--ttl", "600000"])).unwrap();
    assert!(sandbox.mcpick(&["list"]).status.success());
    methods(&log);
    // Fresh: the list is not asked for again.
    assert!(sandbox.mcpick(&["list"]).status.success());
    assert!(!methods(&log).contains(&"prompts/list".to_string()));
    // --refresh: the full handshake and list, and the catalog written again.
    assert!(sandbox.mcpick(&["--refresh", "list"]).status.success());
    let sent = methods(&log);
    assert!(sent.contains(&"server/discover".to_string()), "{sent:?}");
    assert!(sent.contains(&"prompts/list".to_string()), "{sent:?}");

    // After the subcommand, as its own flag: the same.
    assert!(sandbox.mcpick(&["list", "--refresh"]).status.success());
    let sent = methods(&log);
    assert!(sent.contains(&"prompts/list".to_string()), "{sent:?}");

    let refused = sandbox.mcpick(&["--refresh", "cache", "show"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("--refresh is for the commands that ask servers"));
    let refused = sandbox.mcpick(&["cache", "show", "--refresh"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("unexpected argument '--refresh'"));
}

/// Each command's help lists only the flags it takes: `--refresh` only where it works.
#[test]
fn refresh_is_in_the_help_of_the_commands_that_take_it_only() {
    let sandbox = Sandbox::new("");
    let commands: [&[&str]; 14] = [
        &[],
        &["list"],
        &["get"],
        &["complete"],
        &["servers"],
        &["serve"],
        &["init"],
        &["config", "import"],
        &["cache", "show"],
        &["cache", "clear"],
        &["auth", "login"],
        &["auth", "logout"],
        &["shell-init"],
        &["cache"],
    ];
    for (index, command) in commands.iter().enumerate() {
        let mut args = command.to_vec();
        args.push("--help");
        let help = sandbox.mcpick(&args);
        assert!(help.status.success(), "{args:?}");
        let listed = text(&help.stdout).contains("--refresh");
        assert_eq!(listed, index < 5, "{args:?}:\n{}", text(&help.stdout));
    }
}

#[test]
fn cache_false_writes_nothing_and_deletes_an_old_file() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let cached = server("s", &log, &["--ttl", "600000"]);
    std::fs::write(sandbox.config(), &cached).unwrap();
    assert!(sandbox.mcpick(&["list"]).status.success());
    assert_eq!(files(&sandbox).len(), 1);
    std::fs::write(sandbox.config(), format!("{cached}cache = false\n")).unwrap();
    assert!(sandbox.mcpick(&["list"]).status.success());
    assert!(files(&sandbox).is_empty(), "{:?}", files(&sandbox));
    assert!(sandbox.mcpick(&["list"]).status.success());
    assert!(files(&sandbox).is_empty());
}

#[test]
fn a_stdio_servers_private_list_is_shown_but_listed_again() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    let config = server("s", &log, &["--ttl", "600000", "--scope", "private"]);
    std::fs::write(sandbox.config(), config).unwrap();
    assert!(sandbox.mcpick(&["list"]).status.success());
    methods(&log);
    // Its authorization is its inherited environment, which may have changed.
    assert!(sandbox.mcpick(&["list"]).status.success());
    assert!(methods(&log).contains(&"prompts/list".to_string()));
}

#[cfg(unix)]
#[test]
fn a_fifo_in_the_catalog_folder_does_not_hold_up_a_command() {
    let sandbox = Sandbox::new("");
    let log = sandbox.dir.path().join("log");
    std::fs::write(sandbox.config(), server("s", &log, &["--ttl", "600000"])).unwrap();
    assert!(sandbox.mcpick(&["list"]).status.success());
    let file = files(&sandbox).remove(0);
    std::fs::remove_file(&file).unwrap();
    nix::unistd::mkfifo(&file, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let started = Instant::now();
    let listed = sandbox.mcpick(&["list"]);
    // Opening the FIFO to read would wait for a writer that never comes.
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert!(
        text(&listed.stderr).contains("not a regular file"),
        "{}",
        text(&listed.stderr)
    );
    let shown = sandbox.mcpick(&["cache", "show"]);
    assert!(shown.status.success());
}
