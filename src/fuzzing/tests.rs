//! The fuzz targets' properties as `proptest` tests, and every committed corpus file
//! replayed through its target, so both run in every `cargo test`.

use std::path::Path;

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

use super::*;

/// Strings made of any characters and of `pieces`, which hit the interesting paths.
fn text_from(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            1 => any::<char>().prop_map(String::from),
            3 => select(pieces).prop_map(str::to_string),
        ],
        0..max,
    )
    .prop_map(|parts| parts.concat())
}

const TEXT: &[&str] = &[
    "\u{1b}",
    "\u{1b}[2J",
    "\u{7}",
    "\u{9b}",
    "\u{7f}",
    "\u{85}",
    "\u{61c}",
    "\u{200e}",
    "\u{202e}",
    "\u{2066}",
    "\u{2069}",
    "\n",
    "\t",
    "\r",
    " ",
    "  ",
    "a",
    "word",
    "-",
    "_",
    ".",
    "字",
    "🙂",
    "❤\u{fe0f}",
    "\u{fe0f}",
    "\u{fe0e}",
    "👩\u{200d}👩",
    "لا",
    "\u{301}",
    "🇦",
    "\u{ad}",
    "\u{2028}",
];

const PROMPT: &[&str] = &[
    "---\n",
    "---\r\n",
    "...\n",
    "\u{feff}",
    "name: n\n",
    "description: d\n",
    "description: |\n  a\n  b\n",
    "argument-hint: [a] [b]\n",
    "argument-hint: <x>\n",
    "arguments:\n",
    "  - name: a\n",
    "  - name: b\n",
    "  - name: \"\"\n",
    "    required: true\n",
    "    default: x\n",
    "    values: [p, q]\n",
    "    title: t\n",
    "title: t\n",
    "mode: agent\n",
    "{{a}}",
    "{{ b }}",
    "{{c}}",
    "{{",
    "}}",
    "\\{{",
    "${input:a}",
    "${input:b:hint}",
    "${input: }",
    "${input:",
    "${file}",
    "}",
    "$1",
    "$2",
    "$9",
    "$ARGUMENTS",
    "$",
    "--- user ---\n",
    "--- assistant ---\n",
    "--- user: notes.md ---\n",
    "--- assistant: pic.png ---\n",
    "--- user: missing.md ---\n",
    "--- user: binary.txt ---\n",
    "--- system ---\n",
    "--- User ---\n",
    "\n",
    "\r\n",
    " ",
    "#",
    ":",
    "|",
    ">",
    "\"",
    "'",
    "x",
    "é",
];

/// Text to put after the parts of a generated config now and then.
const CONFIG_NOISE: &[&str] = &[
    "\n",
    "# comment\n",
    "comand = \"typo\"\n",
    "[inputs.\"bad id\"]\n",
    "${",
    "\"",
    "=",
    "[servers.a]\n",
    "x",
];

/// One value of a config string: plain, or with references of every kind.
fn config_string() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "x",
        "",
        " ",
        "~/",
        "https://h/mcp",
        "http://127.0.0.1:1/",
        "ftp://h",
        "${CMD}",
        "${A:-d}",
        "${B:-}",
        "$${lit}",
        "${input:k}",
        "${input:t}",
        "${input:k:-d}",
        "${",
        "${1X}",
        "$HOME",
        "\\",
        "\"",
        "é",
        "\n",
    ];
    text_from(PIECES, 3).prop_map(|s| toml::Value::String(s).to_string())
}

/// `line` now and then.
fn maybe(line: BoxedStrategy<String>) -> impl Strategy<Value = String> {
    prop::option::weighted(0.25, line).prop_map(Option::unwrap_or_default)
}

/// A `[servers.NAME]` table's fields: mostly a valid stdio or HTTP server, now and then
/// one with fields that do not go together.
fn config_server() -> impl Strategy<Value = String> {
    let field = |name: &'static str, value: BoxedStrategy<String>| {
        value.prop_map(move |v| format!("{name} = {v}\n")).boxed()
    };
    let usual = |values: &'static [&'static str]| {
        prop_oneof![
            6 => select(values).prop_map(str::to_string),
            1 => config_string(),
        ]
        .boxed()
    };
    let list = prop::collection::vec(config_string(), 0..3)
        .prop_map(|items| format!("[{}]", items.join(", ")))
        .boxed();
    let table =
        prop::collection::btree_map(select(&["K", "L", "\"a b\""][..]), config_string(), 0..3)
            .prop_map(|items| {
                let entries: Vec<String> =
                    items.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                format!("{{ {} }}", entries.join(", "))
            })
            .boxed();
    let oauth = (
        prop::option::of(usual(&["\"id\"", "\"${input:c}\""])),
        prop::option::of(config_string()),
        prop::option::of(usual(&["\"https://h/c.json\""])),
        prop::option::of(Just("[\"read\"]")),
    )
        .prop_map(|(id, secret, url, scopes)| {
            let mut entries = Vec::new();
            entries.extend(id.map(|v| format!("client_id = {v}")));
            entries.extend(secret.map(|v| format!("client_secret = {v}")));
            entries.extend(url.map(|v| format!("client_metadata_url = {v}")));
            entries.extend(scopes.map(|v| format!("scopes = {v}")));
            format!("{{ {} }}", entries.join(", "))
        })
        .boxed();
    let command = field(
        "command",
        usual(&[
            "\"x\"",
            "\"${CMD}\"",
            "\"${CMD:-npx}\"",
            "\"~/bin/x\"",
            "\"${input:k}\"",
        ]),
    );
    let url = field(
        "url",
        usual(&[
            "\"https://h/mcp\"",
            "\"${U:-http://h}\"",
            "\"${input:u}\"",
            "\"https://h/${input:k}\"",
        ]),
    );
    let stdio = (
        command.clone(),
        maybe(field("args", list)),
        maybe(field("env", table.clone())),
        maybe(field("cwd", config_string().boxed())),
    )
        .prop_map(|(a, b, c, d)| [a, b, c, d].concat());
    let transport = select(&["\"http\"", "\"sse\"", "\"stdio\"", "\"pigeon\""][..])
        .prop_map(str::to_string)
        .boxed();
    let http = (
        url.clone(),
        maybe(field("headers", table)),
        maybe(field("transport", transport)),
        maybe(field("oauth", oauth)),
        maybe(field(
            "protocol_version",
            usual(&["\"2025-11-25\"", "\"2026-07-28\""]),
        )),
    )
        .prop_map(|(a, b, c, d, e)| [a, b, c, d, e].concat());
    let odd = select(
        &[
            "transport = \"stdio\"\n",
            "headers = {}\n",
            "oauth = {}\n",
            "args = []\n",
            "",
        ][..],
    );
    let reach = prop_oneof![
        5 => stdio,
        5 => http,
        1 => (command, url).prop_map(|(c, u)| c + &u),
        1 => Just(String::new()),
    ];
    let timeout = select(&["1", "30000", "0"][..])
        .prop_map(str::to_string)
        .boxed();
    (
        reach,
        maybe(field("timeout_ms", timeout)),
        maybe(field(
            "enabled",
            any::<bool>().prop_map(|b| b.to_string()).boxed(),
        )),
        prop::option::weighted(0.1, odd),
    )
        .prop_map(|(reach, timeout, enabled, odd)| {
            [reach, timeout, enabled, odd.unwrap_or("").to_string()].concat()
        })
}

/// A config file: servers, inputs, key bindings and sources, with some noise.
fn config_text() -> impl Strategy<Value = String> {
    let names = prop_oneof![
        8 => select(&["a", "b", "\"s.1\"", "\"é\"", "c-2"][..]),
        1 => select(&["\"a b\"", "\"\""][..]),
    ];
    let servers = prop::collection::btree_map(names, config_server(), 0..4).prop_map(|servers| {
        servers
            .into_iter()
            .map(|(name, table)| format!("[servers.{name}]\n{table}"))
            .collect::<String>()
    });
    let inputs = prop::collection::btree_map(
        select(&["k", "t", "\"k.2\""][..]),
        (
            prop::option::of(config_string()),
            prop::option::of(any::<bool>()),
        ),
        0..2,
    )
    .prop_map(|inputs| {
        inputs
            .into_iter()
            .map(|(id, (description, password))| {
                let mut table = format!("[inputs.{id}]\n");
                table.extend(description.map(|d| format!("description = {d}\n")));
                table.extend(password.map(|p| format!("password = {p}\n")));
                table
            })
            .collect::<String>()
    });
    let keys = select(
        &[
            "[keys.review]\ncopy = \"c\"\n",
            "[keys.x]\ny = [\"a\", 1]\n",
        ][..],
    );
    (
        maybe(
            select(&["sources = [\"vscode\"]\n", "sources = [\"nope\"]\n"][..])
                .prop_map(str::to_string)
                .boxed(),
        ),
        servers,
        inputs,
        maybe(keys.prop_map(str::to_string).boxed()),
        prop::option::weighted(0.1, select(CONFIG_NOISE)),
    )
        .prop_map(|(sources, servers, inputs, keys, noise)| {
            format!("{sources}{servers}{inputs}{keys}{}", noise.unwrap_or(""))
        })
}

const EXPAND: &[&str] = &[
    "${",
    "}",
    "$",
    "$$",
    "${A}",
    "${A:-d}",
    "${B:-}",
    "${input:k}",
    "${input:k:-d}",
    "${input:}",
    "${1X}",
    ":-",
    "input:",
    "a",
    "_",
    "1",
    " ",
    "-",
    ".",
    "{",
    "\u{e000}",
];

fn json_string() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "${env:HOME}",
        "${env:a b}",
        "${input:key}",
        "${input:bad id}",
        "${workspaceFolder}",
        "${userHome}",
        "${pathSeparator}",
        "${unknown}",
        "${",
        "}",
        "$VAR",
        "${VAR:-d}",
        "$$",
        "x",
        "/",
        "http://h/mcp",
        "https://h",
        "",
        " ",
    ];
    text_from(PIECES, 4)
}

/// A server entry in any dialect's terms (and now and then a field none has, or a value
/// of the wrong type).
fn json_server() -> impl Strategy<Value = Value> {
    let some = |value: BoxedStrategy<Value>| prop::option::weighted(0.4, value);
    let strings = prop::collection::vec(json_string(), 0..3)
        .prop_map(Value::from)
        .boxed();
    let map = prop::collection::btree_map(select(&["K", "a b", ""][..]), json_string(), 0..3)
        .prop_map(|m| json!(m))
        .boxed();
    let odd = prop_oneof![
        Just(json!({"comand": "x"})),
        Just(json!({"args": "not a list"})),
        Just(json!({"env": {"N": 1, "B": true}})),
        Just(json!({"command": {"path": "zed", "args": ["a"], "env": {"K": "v"}}})),
        Just(json!({"timeout": 0})),
        Just(json!({"enabled": false})),
        Just(json!({"envFile": ".env"})),
    ];
    (
        some(json_string().prop_map(Value::from).boxed()),
        some(strings),
        some(map.clone()),
        some(json_string().prop_map(Value::from).boxed()),
        some(json_string().prop_map(Value::from).boxed()),
        some(map),
        some(
            select(&["stdio", "http", "sse", "streamable-http"][..])
                .prop_map(Value::from)
                .boxed(),
        ),
        prop::option::weighted(0.2, odd),
    )
        .prop_map(|(command, args, env, url, http_url, headers, kind, odd)| {
            let mut server = serde_json::Map::new();
            for (key, value) in [
                ("command", command),
                ("args", args),
                ("env", env),
                ("url", url),
                ("httpUrl", http_url),
                ("headers", headers),
                ("type", kind),
            ] {
                if let Some(value) = value {
                    server.insert(key.into(), value);
                }
            }
            if let Some(Value::Object(odd)) = odd {
                server.extend(odd);
            }
            Value::Object(server)
        })
}

/// A whole config file of another host, with comments now and then.
fn json_config() -> impl Strategy<Value = String> {
    let servers = prop::collection::btree_map(json_string(), json_server(), 0..3);
    let inputs = prop::collection::vec(
        (select(&["key", "bad id", "k.2"][..]), json_string(), any::<bool>())
            .prop_map(|(id, description, password)| json!({"id": id, "description": description, "password": password})),
        0..2,
    );
    (
        select(&["mcpServers", "servers", "context_servers"][..]),
        servers,
        inputs,
        any::<bool>(),
    )
        .prop_map(|(key, servers, inputs, comment)| {
            let mut file = json!({ key: servers });
            if key == "servers" {
                file["inputs"] = Value::from(inputs);
            }
            let text = file.to_string();
            match text.strip_suffix('}') {
                // JSON with comments and a trailing comma, as VS Code and Zed take it.
                Some(start) if comment => format!("// a comment\n{start}, /* trailing */ }}"),
                _ => text,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn text_properties(text in text_from(TEXT, 24)) {
        check_text(&text);
    }

    #[test]
    fn truncate_and_wrap_at_any_width(text in text_from(TEXT, 24), columns in 0usize..30) {
        check_truncate(&text, columns);
        check_wrap(&text, columns);
    }

    #[test]
    fn prompt_file_properties(text in text_from(PROMPT, 16)) {
        check_prompt_file(&text);
    }

    #[test]
    fn expand_properties(text in text_from(EXPAND, 12)) {
        check_expand(&text);
    }

    #[test]
    fn export_properties(data in prop::collection::vec(any::<u8>(), 0..256)) {
        export(&data);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn config_properties(text in config_text()) {
        check_config(&text);
    }

    #[test]
    fn import_properties(text in json_config()) {
        check_import(&text);
    }
}

/// A catalog file to mutate: the committed modern one.
fn cache_seed() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/cache/modern.json"))
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// A good file cut anywhere, or with bytes changed anywhere, is refused or read whole.
    #[test]
    fn cache_file_properties(
        cut in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let mut bytes = cache_seed();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        check_cache_file(&bytes);
        let end = cut.index(bytes.len() + 1);
        check_cache_file(&bytes[..end]);
    }
}

#[test]
fn the_cache_seed_is_a_file_mcpick_reads() {
    // The mutations above start from a file that is accepted, so they test more than refusal.
    assert!(crate::cache::parse(&cache_seed(), "s").is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Each committed audio file cut anywhere, or with bytes changed anywhere, is told sanely.
    #[test]
    fn audio_header_properties(
        seed in select(vec!["pcm.wav", "cbr.mp3", "vorbis.ogg", "opus.ogg"]),
        cut in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let mut bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/media").join(seed),
        )
        .unwrap();
        for (at, byte) in edits {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        check_audio(&bytes);
        let end = cut.index(bytes.len() + 1);
        check_audio(&bytes[..end]);
    }
}

#[test]
fn the_audio_seeds_are_files_mcpick_reads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/media");
    for (seed, told) in [
        ("pcm.wav", "WAV PCM 16-bit · 44.1 kHz stereo · 0.0 s"),
        ("cbr.mp3", "MP3 · 44.1 kHz stereo 128 kbit/s · 0.0 s"),
        ("vorbis.ogg", "Ogg Vorbis · 48 kHz stereo · 2.0 s"),
        ("opus.ogg", "Ogg Opus · 16 kHz mono · 1.0 s"),
    ] {
        let info = crate::audio::probe(&std::fs::read(dir.join(seed)).unwrap());
        assert_eq!(info.map(|i| i.summary()).as_deref(), Some(told), "{seed}");
    }
}

/// Every file of every committed corpus passes its target's properties.
#[test]
fn committed_corpora_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut failed = Vec::new();
    for (target, run) in TARGETS {
        let folder = root.join(target);
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|entry| entry.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no corpus for {target}");
        for file in files {
            let data = std::fs::read(&file).unwrap();
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                failed.push(file.display().to_string());
            }
        }
    }
    assert!(failed.is_empty(), "corpus files that fail: {failed:#?}");
}
