//! `mcpick doctor`: the real binary, read as a user reads it. Which config file it names and
//! why (`--config`, `MCPICK_CONFIG`, `$XDG_CONFIG_HOME`), servers as the catalog last saw
//! them, problems with their fixes and exit 1, the terminal's answers in a PTY that answers
//! as a terminal does, and the clipboard route inside a real tmux.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::pty::*;
use crate::common::*;
use portable_pty::CommandBuilder;
use serde_json::Value;

/// `mcpick doctor --json` with `home` as HOME and XDG home, no terminal and nothing in the
/// environment that would change the clipboard route; `args` go before `doctor`.
fn doctor_json(home: &Path, args: &[&str], env: &[(&str, &Path)]) -> (Option<i32>, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpick"));
    command
        .args(args)
        .args(["doctor", "--json"])
        .stdin(Stdio::null())
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env("XDG_STATE_HOME", home.join("xdg-state"))
        .env("XDG_CACHE_HOME", home.join("xdg-cache"))
        .env("XDG_DATA_HOME", home.join("xdg-data"));
    for name in ROUTE_VARIABLES {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("run mcpick doctor");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "doctor --json is not JSON ({e}):\n{}\n{}",
            stdout(&output),
            stderr(&output)
        )
    });
    (output.status.code(), report)
}

fn problems(report: &Value) -> Vec<(String, String, String)> {
    report["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| {
            (
                p["part"].as_str().unwrap().to_string(),
                p["what"].as_str().unwrap().to_string(),
                p["fix"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_config_file_is_named_with_the_rule_that_chose_it() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();

    // Nothing anywhere: ~/.config, and the bundled library; no terminal is not a problem.
    let (code, report) = doctor_json(home, &[], &[]);
    assert_eq!(
        report["config"]["path"].as_str().unwrap(),
        home.join(".config/mcpick/config.toml").to_str().unwrap()
    );
    assert!(
        report["config"]["why"]
            .as_str()
            .unwrap()
            .contains("XDG_CONFIG_HOME is not set"),
        "{report}"
    );
    assert_eq!(report["config"]["exists"], false);
    assert_eq!(report["servers"][0]["name"], "builtin");
    assert_eq!(report["terminal"]["asked"], false);
    assert_eq!(code, Some(0), "{report}");

    // $XDG_CONFIG_HOME, with a file there.
    let xdg = home.join("xdg");
    std::fs::create_dir_all(xdg.join("mcpick")).unwrap();
    std::fs::write(
        xdg.join("mcpick/config.toml"),
        "[servers.local]\ncommand = \"sh\"\n",
    )
    .unwrap();
    let (code, report) = doctor_json(home, &[], &[("XDG_CONFIG_HOME", &xdg)]);
    assert_eq!(
        report["config"]["path"].as_str().unwrap(),
        xdg.join("mcpick/config.toml").to_str().unwrap()
    );
    assert_eq!(
        report["config"]["why"],
        "$XDG_CONFIG_HOME/mcpick/config.toml"
    );
    assert_eq!(report["config"]["exists"], true);
    assert_eq!(report["servers"][0]["name"], "local");
    assert_eq!(report["servers"][0]["transport"], "stdio");
    assert_eq!(code, Some(0), "{report}");

    // MCPICK_CONFIG and --config say so.
    let other = home.join("other.toml");
    std::fs::write(&other, "[servers.other]\ncommand = \"sh\"\n").unwrap();
    let (_, report) = doctor_json(home, &[], &[("MCPICK_CONFIG", &other)]);
    assert_eq!(report["config"]["why"], "$MCPICK_CONFIG names it");
    assert_eq!(report["servers"][0]["name"], "other");
    let flag = other.to_str().unwrap();
    let (_, report) = doctor_json(home, &["--config", flag], &[]);
    assert_eq!(report["config"]["why"], "--config names it");
}

#[test]
fn each_problem_comes_with_its_fix_and_exit_1() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let config = home.join("config.toml");
    std::fs::write(
        &config,
        r#"clipboard_command = ["mcpick-test-no-such-copier"]

[servers.gone]
command = "mcpick-test-no-such-server"

[servers.remote]
url = "https://user:secret@example.com/mcp?key=secret"

[servers.unset]
command = "${MCPICK_TEST_NEVER_SET}"
"#,
    )
    .unwrap();
    let (code, report) = doctor_json(home, &["--config", config.to_str().unwrap()], &[]);
    assert_eq!(code, Some(1), "{report}");
    let found = problems(&report);
    let gone = found
        .iter()
        .find(|(part, ..)| part == "server gone")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(
        gone.1.contains("`mcpick-test-no-such-server` is not found"),
        "{gone:?}"
    );
    assert!(gone.2.contains("install"), "{gone:?}");
    let copier = found
        .iter()
        .find(|(part, ..)| part == "clipboard")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(
        copier.1.contains("mcpick-test-no-such-copier"),
        "{copier:?}"
    );
    // A server whose command could not be built has its own problem, not a missing program.
    let unset: Vec<_> = found
        .iter()
        .filter(|(part, ..)| part == "server unset")
        .collect();
    assert_eq!(unset.len(), 1, "{found:?}");
    assert!(unset[0].1.contains("MCPICK_TEST_NEVER_SET"), "{unset:?}");
    assert!(!unset[0].1.contains("is not found"), "{unset:?}");
    // A URL is shown without what can hold keys, and nothing secret is printed at all.
    assert_eq!(report["servers"][1]["target"], "https://example.com/…");
    assert!(!report.to_string().contains("secret"), "{report}");

    // A config that cannot be read: the report still comes, the problem names the file.
    std::fs::write(&config, "[servers.x\n").unwrap();
    let (code, report) = doctor_json(home, &["--config", config.to_str().unwrap()], &[]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(problems(&report)[0].0, "config");
    assert!(
        report["config"]["error"]
            .as_str()
            .unwrap()
            .contains("config.toml")
    );
}

#[test]
fn a_server_is_shown_as_the_catalog_last_saw_it() {
    let sandbox = Sandbox::new(&mcpick_serve("lib", &["--builtin"]));
    let report = |sandbox: &Sandbox| -> Value {
        let output = sandbox.mcpick(&["doctor", "--json"]);
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let before = report(&sandbox);
    assert!(
        before["servers"][0]["last"]
            .as_str()
            .unwrap()
            .starts_with("never listed"),
        "{before}"
    );
    success(&sandbox.mcpick(&["list"]));
    let after = report(&sandbox);
    let server = &after["servers"][0];
    assert!(server["prompts"].as_u64().unwrap() > 0, "{after}");
    assert!(
        server["last"].as_str().unwrap().contains("prompts listed"),
        "{after}"
    );
    assert!(server["protocolVersion"].is_string(), "{after}");

    // A catalog file that is not one: a problem, with the command that clears it.
    let catalog = sandbox.dir.path().join("xdg-cache/mcpick/catalog");
    for file in std::fs::read_dir(&catalog).unwrap() {
        std::fs::write(file.unwrap().path(), "not json").unwrap();
    }
    let output = sandbox.mcpick(&["doctor"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains("✗ server lib: its cached catalog cannot be used"),
        "{text}"
    );
    assert!(text.contains("fix: `mcpick cache clear lib`"), "{text}");
}

#[test]
fn in_a_terminal_it_tells_what_the_terminal_answered() {
    // A kitty-like terminal with a white background, and a config whose theme says dark.
    let sandbox = Sandbox::new("[theme]\nbase = \"dark\"\n");
    let mut answers = Answers::kitty();
    answers.0.insert(
        0,
        (
            b"\x1b]11;?\x1b\\".to_vec(),
            b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\".to_vec(),
        ),
    );
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mcpick"));
    command.arg("--config");
    command.arg(sandbox.config());
    command.arg("doctor");
    // Inside GNU screen the kitty query is not sent: not this terminal's case.
    command.env_remove("STY");
    let mut tui = Tui::spawn_answering(&sandbox, command, answers);
    let screen = tui.wait_for("fix:", STEP);
    assert!(screen.contains("images      kitty"), "{screen}");
    assert!(
        screen.contains("background  light (luminance 1.00)"),
        "{screen}"
    );
    assert!(
        screen.contains("the theme's base is \"dark\" but the terminal's background is light"),
        "{screen}"
    );
    let status = tui.child.wait().expect("doctor exits");
    assert_eq!(status.exit_code(), 1);
    // The terminal is left as it was: no raw mode, nothing typed back.
    assert!(
        !screen.contains("11;rgb"),
        "an answer leaked onto the screen:\n{screen}"
    );
}

#[test]
#[cfg_attr(
    mcpick_missing_tmux,
    ignore = "`tmux` is not installed (MCPICK_ALLOW_SKIP=1)"
)]
fn inside_tmux_with_set_clipboard_off_it_says_how_to_turn_it_on() {
    let tmux = system_tool("tmux");
    let home = tempfile::tempdir().unwrap();
    let socket = format!("mcpick-doctor-{}", std::process::id());
    let out = home.path().join("doctor.out");
    let script = format!(
        "{} doctor > {} 2>&1; echo $? >> {}",
        sh_quote(env!("CARGO_BIN_EXE_mcpick")),
        sh_quote(out.to_str().unwrap()),
        sh_quote(out.to_str().unwrap()),
    );
    let tmux_command = || {
        let mut command = Command::new(&tmux);
        home_env(&mut command, home.path());
        command
            .env_remove("TMUX")
            .env_remove("MCPICK_CONFIG")
            .stdin(Stdio::null())
            .args(["-f", "/dev/null", "-L", &socket]);
        command
    };
    let status = tmux_command()
        .args(["set", "-g", "set-clipboard", "off", ";"])
        .args(["new-session", "-d", "-x", "120", "-y", "40", "sh", "-c"])
        .arg(format!("{script}; sleep 30"))
        .status()
        .expect("start tmux");
    assert!(status.success());
    let deadline = Instant::now() + STEP;
    let text = loop {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if text.trim_end().ends_with(['0', '1']) && text.contains("problem") {
            break text;
        }
        assert!(Instant::now() < deadline, "doctor never ended:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = tmux_command().arg("kill-server").status();
    assert!(text.contains("route       a tmux buffer"), "{text}");
    assert!(text.contains("inside tmux ($TMUX is set)"), "{text}");
    assert!(text.contains("set-clipboard off"), "{text}");
    assert!(
        text.contains("tmux's set-clipboard is off")
            && text.contains("tmux set -g set-clipboard on"),
        "{text}"
    );
    // Behind a redirect the terminal is not asked (its answers would cross the reader's).
    assert!(text.contains("stdout is not a terminal"), "{text}");
    assert_eq!(text.trim_end().lines().last(), Some("1"), "{text}");
}

#[test]
fn what_stops_the_commands_is_a_problem_here_too() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let config = home.join("config.toml");
    let cases = [
        (
            "[servers.lib]\ncommand = \"sh\"\n\n[keys.picker]\nno-such-action = \"ctrl-x\"\n",
            "config.toml:5:1:",
            "no-such-action",
        ),
        (
            "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nprotocol_version = \"1999-01-01\"\n",
            "config.toml:3:1:",
            "1999-01-01",
        ),
        (
            "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { \"Bad Name\" = \"x\" }\n",
            "config.toml:3:1:",
            "Bad Name",
        ),
        (
            "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { Good = \"a\\nb\" }\n",
            "config.toml:3:13:",
            "headers.Good",
        ),
    ];
    let mut failures = Vec::new();
    for (text, place, named) in cases {
        std::fs::write(&config, text).unwrap();
        let (code, report) = doctor_json(home, &["--config", config.to_str().unwrap()], &[]);
        let found = problems(&report);
        let reported = found.iter().any(|(part, what, _)| {
            part == "config" && what.contains(place) && what.contains(named)
        });
        if code != Some(1) || !reported {
            failures.push(format!("{text}: exit {code:?}, {found:?}"));
        }
        // The text report says so too, never "No problems found".
        let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
            .args(["--config", config.to_str().unwrap(), "doctor"])
            .env("HOME", home)
            .env("XDG_STATE_HOME", home.join("xdg-state"))
            .env("XDG_CACHE_HOME", home.join("xdg-cache"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        if output.status.code() != Some(1) || stdout(&output).contains("No problems found") {
            failures.push(format!("{text}: {}", stdout(&output)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A config with a bad key table still shows its servers.
    std::fs::write(&config, cases[0].0).unwrap();
    let (_, report) = doctor_json(home, &["--config", config.to_str().unwrap()], &[]);
    assert_eq!(report["servers"][0]["name"], "lib", "{report}");
}

#[test]
fn an_unset_variable_is_the_environment_s_and_an_http_server_stays_http() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let config = home.join("config.toml");
    std::fs::write(
        &config,
        "[servers.remote]\nurl = \"https://example.com/mcp\"\nheaders = { Authorization = \"Bearer ${MCPICK_TEST_UNSET_TOKEN}\", X-Team = \"${MCPICK_TEST_UNSET_TEAM}\" }\n",
    )
    .unwrap();
    let (code, report) = doctor_json(home, &["--config", config.to_str().unwrap()], &[]);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["servers"][0]["transport"], "http", "{report}");
    assert_eq!(
        report["servers"][0]["target"], "https://example.com/…",
        "{report}"
    );
    let found = problems(&report);
    let (_, what, fix) = found
        .iter()
        .find(|(part, ..)| part == "server remote")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(what.contains("not set in the environment"), "{what}");
    assert!(
        what.contains("MCPICK_TEST_UNSET_TOKEN") && what.contains("MCPICK_TEST_UNSET_TEAM"),
        "every variable it needs is named: {what}"
    );
    assert!(!fix.contains("correct its table"), "{fix}");
    assert!(fix.contains("export MCPICK_TEST_UNSET_TOKEN="), "{fix}");
}

#[test]
fn a_missing_config_named_on_the_command_line_is_one_init_away() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let missing = home.join("elsewhere/my config.toml");
    let (code, report) = doctor_json(home, &["--config", missing.to_str().unwrap()], &[]);
    assert_eq!(code, Some(1), "{report}");
    let found = problems(&report);
    let (_, what, fix) = &found[0];
    assert!(what.contains("does not exist"), "{what}");
    let quoted = format!("'{}'", missing.display());
    assert!(
        fix.contains(&format!("mcpick init --config {quoted}")),
        "{fix}"
    );
    // The commands say the same.
    let output = Command::new(env!("CARGO_BIN_EXE_mcpick"))
        .args(["--config", missing.to_str().unwrap(), "list"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(&format!("mcpick init --config {quoted}")),
        "{}",
        stderr(&output)
    );
}
