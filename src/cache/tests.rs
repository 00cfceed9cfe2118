//! Tests of the catalog cache: its files, fingerprints, hints and what is read at start.

use super::*;
use crate::model::PromptArg;

fn config_of(text: &str) -> ServerConfig {
    config(text)
}

fn config(text: &str) -> ServerConfig {
    let text = format!("[servers.s]\n{text}");
    let config = crate::config::parse(&text, std::path::Path::new("t.toml"), &|_| None).unwrap();
    config.servers.into_iter().next().unwrap()
}

fn prompt(name: &str) -> PromptInfo {
    PromptInfo {
        server: "s".into(),
        name: name.into(),
        title: None,
        description: Some("d".into()),
        arguments: vec![PromptArg {
            name: "a".into(),
            title: None,
            description: None,
            required: true,
        }],
        skill: None,
        mirrors_skill: None,
    }
}

fn details() -> ServerDetails {
    ServerDetails {
        transport: "stdio".into(),
        protocol_version: "2026-07-28".into(),
        server_name: Some("x".into()),
        server_version: None,
        capabilities: serde_json::json!({"prompts": {}}),
        prompts: true,
        prompts_list_changed: false,
        completions: false,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    }
}

fn entry(ttl_ms: u64, scope: Scope) -> ServerEntry {
    let mut entry = ServerEntry::new(&config("command = \"x\""), None, Era::Modern, details());
    entry.pages = Some(vec![PromptPage {
        hints: Hints {
            received_ms: 1_000,
            ttl_ms,
            scope,
        },
        prompts: vec![prompt("p")],
    }]);
    entry
}

#[test]
fn a_result_is_fresh_only_before_its_ttl_runs_out() {
    let hints = Hints {
        received_ms: 1_000,
        ttl_ms: 500,
        scope: Scope::Public,
    };
    assert!(hints.is_fresh(1_000));
    assert!(hints.is_fresh(1_499));
    assert!(!hints.is_fresh(1_500));
    // Received "in the future": a clock set back or a forged file.
    assert!(!hints.is_fresh(999));
    let forever = Hints {
        ttl_ms: u64::MAX,
        ..hints
    };
    assert_eq!(forever.expires_ms(), 1_000 + MAX_TTL_MS);
}

#[test]
fn freshness_is_that_of_the_stalest_page() {
    let mut entry = entry(500, Scope::Public);
    assert_eq!(
        entry.freshness(1_200),
        Some(Freshness::Fresh { until_ms: 1_500 })
    );
    entry.pages.as_mut().unwrap().push(PromptPage {
        hints: Hints {
            received_ms: 1_000,
            ttl_ms: 100,
            scope: Scope::Public,
        },
        prompts: vec![prompt("q")],
    });
    assert_eq!(
        entry.freshness(1_050),
        Some(Freshness::Fresh { until_ms: 1_100 })
    );
    assert_eq!(entry.freshness(1_200), Some(Freshness::Stale));
    assert_eq!(entry.prompts().len(), 2);
    entry.pages = None;
    assert_eq!(entry.freshness(1_050), None);
}

#[test]
fn a_list_change_makes_a_fresh_list_stale_at_once() {
    let mut entry = entry(60_000, Scope::Public);
    assert!(matches!(
        entry.freshness(1_100),
        Some(Freshness::Fresh { .. })
    ));
    entry.invalidate_prompts();
    assert_eq!(entry.freshness(1_100), Some(Freshness::Stale));
    assert_eq!(entry.prompts().len(), 1, "the rows stay to be shown");
}

#[test]
fn private_results_are_dropped_for_another_sign_in_and_public_ones_kept() {
    let mut private = entry(60_000, Scope::Private);
    private.auth = Some("alice".into());
    assert!(!private.clone().keep_for(Some("alice")));
    let mut signed_out = private.clone();
    assert!(signed_out.keep_for(None));
    assert_eq!(signed_out.pages, None);
    let mut other = private.clone();
    assert!(other.keep_for(Some("bob")));
    assert_eq!(other.pages, None);
    assert_eq!(
        other.era,
        Era::Modern,
        "the era is the server's, not the user's"
    );

    let mut public = entry(60_000, Scope::Public);
    public.auth = Some("alice".into());
    assert!(!public.keep_for(None));
    assert_eq!(public.prompts().len(), 1);
}

#[test]
fn the_fingerprint_changes_with_every_field_that_decides_the_server() {
    let base = fingerprint(&config("command = \"x\"\nargs = [\"a\"]"));
    for other in [
        "command = \"y\"\nargs = [\"a\"]",
        "command = \"x\"\nargs = [\"b\"]",
        "command = \"x\"\nargs = [\"a\", \"\"]",
        "command = \"x\"\nargs = [\"a\"]\nenv = { K = \"v\" }",
        "command = \"x\"\nargs = [\"a\"]\ncwd = \"/tmp\"",
    ] {
        assert_ne!(fingerprint(&config(other)), base, "{other}");
    }
    // Fields that do not change what the server answers do not count.
    assert_eq!(
        fingerprint(&config(
            "command = \"x\"\nargs = [\"a\"]\ntimeout_ms = 5\ncache = true"
        )),
        base
    );
    let http = fingerprint(&config("url = \"http://127.0.0.1:1/mcp\""));
    for other in [
        "url = \"http://127.0.0.1:2/mcp\"",
        "url = \"http://127.0.0.1:1/mcp\"\nheaders = { Authorization = \"Bearer a\" }",
        "url = \"http://127.0.0.1:1/mcp\"\nprotocol_version = \"2025-11-25\"",
        "url = \"http://127.0.0.1:1/mcp\"\ntransport = \"sse\"",
    ] {
        assert_ne!(fingerprint(&config(other)), http, "{other}");
    }
    // A program named by its path: rebuilt (another size or time), another fingerprint.
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("server");
    std::fs::write(&program, "one").unwrap();
    let named = format!("command = {:?}", program.display().to_string());
    let before = fingerprint(&config(&named));
    assert_eq!(fingerprint(&config(&named)), before);
    std::fs::write(&program, "two, longer").unwrap();
    assert_ne!(fingerprint(&config(&named)), before);
    // Length-prefixed: moving a character between two args is another config.
    assert_ne!(
        fingerprint(&config("command = \"x\"\nargs = [\"ab\", \"c\"]")),
        fingerprint(&config("command = \"x\"\nargs = [\"a\", \"bc\"]"))
    );
}

#[test]
fn a_written_entry_reads_back_as_it_was() {
    let entry = entry(500, Scope::Public);
    let bytes = serde_json::to_vec(&entry).unwrap();
    assert_eq!(parse(&bytes, "s"), Ok(entry));
}

#[test]
fn every_broken_file_is_refused_with_a_reason() {
    let good = serde_json::to_vec(&entry(500, Scope::Public)).unwrap();
    let cut = &good[..good.len() / 2];
    assert_eq!(parse(cut, "s"), Err(store::StoreError::CutShort));
    assert_eq!(store::StoreError::CutShort.to_string(), "it is cut short");
    assert!(
        parse(b"", "s")
            .unwrap_err()
            .to_string()
            .contains("cut short")
    );
    assert!(
        parse(b"\x00\xff garbage", "s")
            .unwrap_err()
            .to_string()
            .contains("not a catalog file")
    );
    assert!(
        parse(b"[1,2]", "s")
            .unwrap_err()
            .to_string()
            .contains("not a catalog file")
    );
    assert!(
        parse(b"{}", "s")
            .unwrap_err()
            .to_string()
            .contains("no `format`")
    );
    let mut foreign: serde_json::Value = serde_json::from_slice(&good).unwrap();
    foreign["format"] = serde_json::json!(99);
    let foreign = serde_json::to_vec(&foreign).unwrap();
    assert!(
        parse(&foreign, "s")
            .unwrap_err()
            .to_string()
            .contains("format 99")
    );
    // Another server's file under this one's name (a hash clash, or a copied file).
    assert!(
        parse(&good, "t")
            .unwrap_err()
            .to_string()
            .contains("another server")
    );
    // A prompt claiming another server would be offered under the wrong name.
    let mut stranger = entry(500, Scope::Public);
    stranger.pages.as_mut().unwrap()[0].prompts[0].server = "t".into();
    let stranger = serde_json::to_vec(&stranger).unwrap();
    assert!(
        parse(&stranger, "s")
            .unwrap_err()
            .to_string()
            .contains("prompt of another server")
    );
    // A wrong type deep inside.
    let mut wrong: serde_json::Value = serde_json::from_slice(&good).unwrap();
    wrong["pages"][0]["hints"]["ttl_ms"] = serde_json::json!(-1);
    let wrong = serde_json::to_vec(&wrong).unwrap();
    assert!(
        parse(&wrong, "s")
            .unwrap_err()
            .to_string()
            .contains("not a catalog file")
    );
}

#[test]
fn a_file_too_large_is_refused_without_being_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES + 10).unwrap();
    let error = store::read_bounded_for_tests(&path)
        .unwrap_err()
        .to_string();
    assert!(error.contains("larger than 16 MiB"), "{error}");
    assert_eq!(
        store::read_bounded_for_tests(&dir.path().join("none")),
        Ok(None)
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_folder_in_place_of_a_file_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    // Opening a FIFO for reading would wait for a writer: this returns at once.
    let error = store::read_bounded_for_tests(&fifo).unwrap_err();
    assert!(
        matches!(error, store::StoreError::NotRegular { .. }),
        "{error}"
    );
    let error = error.to_string();
    assert!(error.contains("not a regular file"), "{error}");
    let folder = dir.path().join("folder.json");
    std::fs::create_dir(&folder).unwrap();
    let error = store::read_bounded_for_tests(&folder)
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a regular file"), "{error}");
}

#[test]
fn a_config_with_inputs_is_never_cached_even_once_they_have_values() {
    let text = "[inputs.k]\ndescription = \"key\"\n[servers.s]\ncommand = \"x\"\nenv = { K = \"${input:k}\" }\n";
    let config = crate::config::parse(text, std::path::Path::new("t.toml"), &|_| None).unwrap();
    let server = config.servers.into_iter().next().unwrap();
    assert!(!applies_to(&server));
    let mut values = crate::config::InputValues::default();
    values.insert("k", "secret");
    let given = server.with_inputs(&values, &|_| None);
    assert!(given.inputs.is_empty(), "the inputs have values now");
    assert!(
        !applies_to(&given),
        "a config holding typed secrets stays uncached"
    );
    assert!(applies_to(&config_of("command = \"x\"")));
}

#[test]
fn the_scope_shown_is_that_of_the_prompt_list() {
    let mut public = entry(500, Scope::Public);
    public.discover = Some(Cached {
        hints: Hints::now(None, None),
        value: serde_json::json!({}),
    });
    assert_eq!(
        public.scope(),
        Scope::Public,
        "an unknown discover scope does not count"
    );
    assert_eq!(entry(500, Scope::Private).scope(), Scope::Private);
}

#[cfg(unix)]
#[test]
fn files_are_written_owner_only_in_an_owner_only_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("catalog");
    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = folder.join("x.json");
    write_private(&path, b"one").unwrap();
    write_private(&path, b"two").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&folder), 0o700);
    // No temp file is left behind.
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1);
}
