//! Tests of the config: parsing, checks, expansion, inputs and where the file is found.

use super::*;

fn env(name: &str) -> Option<String> {
    match name {
        "TOKEN" => Some("abc123".into()),
        "ROOT" => Some("/srv".into()),
        _ => None,
    }
}

fn parse_str(text: &str) -> Result<Config, ConfigError> {
    parse(text, Path::new("config.toml"), &env)
}

#[test]
fn stdio_and_http_servers_parse_with_defaults() {
    let config = parse_str(
        r#"
[servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { API_KEY = "${TOKEN}" }
cwd = "${ROOT}/work"

[servers.remote]
url = "https://example.com/mcp"
headers = { Authorization = "Bearer ${TOKEN}" }
timeout_ms = 5000
enabled = false
"#,
    )
    .unwrap();
    assert_eq!(config.servers.len(), 2);
    let everything = config.server("everything").unwrap();
    assert_eq!(
        everything.timeout,
        Duration::from_millis(DEFAULT_TIMEOUT_MS)
    );
    assert!(everything.enabled);
    assert_eq!(
        everything.transport,
        TransportConfig::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-everything".into()
            ],
            env: BTreeMap::from([("API_KEY".into(), "abc123".into())]),
            cwd: Some(PathBuf::from("/srv/work")),
        }
    );
    let remote = config.server("remote").unwrap();
    assert!(!remote.enabled);
    assert_eq!(remote.timeout, Duration::from_millis(5000));
    assert_eq!(
        remote.transport,
        TransportConfig::Http {
            url: "https://example.com/mcp".into(),
            headers: BTreeMap::from([("Authorization".into(), "Bearer abc123".into())]),
            legacy_sse: false,
            oauth: OAuthConfig::default(),
        }
    );
    assert_eq!(config.enabled_servers().count(), 1);
}

#[test]
fn empty_file_has_no_servers() {
    assert!(parse_str("").unwrap().servers.is_empty());
}

/// The problem of the one server in `text`: an unset variable spoils that server only.
fn problem(text: &str) -> String {
    let config = parse_str(text).unwrap();
    config.servers[0]
        .problem
        .clone()
        .expect("the server is marked unusable")
}

#[test]
fn unset_variable_names_server_field_and_variable() {
    let err = problem("[servers.a]\ncommand = \"x\"\nargs = [\"ok\", \"${NOPE}\"]\n");
    assert!(err.contains("server `a`"), "{err}");
    assert!(err.contains("field `args[1]`"), "{err}");
    assert!(err.contains("`NOPE` is not set"), "{err}");
}

#[test]
fn unset_variable_in_env_and_headers_names_the_key() {
    let err = problem("[servers.a]\ncommand = \"x\"\nenv = { K = \"${NOPE}\" }\n");
    assert!(err.contains("field `env.K`"), "{err}");
    let err = problem("[servers.b]\nurl = \"http://h\"\nheaders = { X-Key = \"${NOPE}\" }\n");
    assert!(err.contains("server `b`, field `headers.X-Key`"), "{err}");
}

#[test]
fn a_server_with_unset_variables_keeps_its_kind_and_names_them_all() {
    let config = parse_str(
        "[servers.b]\nurl = \"${HOSTX:-https://x.example}/mcp\"\nheaders = { A = \"${NOPE}\", B = \"${TOKEN} ${ALSO_NOPE}\", C = \"${NOPE}\" }\n",
    )
    .unwrap();
    let server = &config.servers[0];
    assert!(server.problem.is_some());
    assert_eq!(server.transport.kind(), "http");
    let TransportConfig::Http { url, .. } = &server.transport else {
        unreachable!()
    };
    assert_eq!(url, "https://x.example/mcp");
    assert_eq!(server.unset_variables, ["NOPE", "ALSO_NOPE"]);
    // A malformed reference is the table's fault, not the environment's.
    let config = parse_str("[servers.a]\ncommand = \"${1BAD}\"\n").unwrap();
    assert!(config.servers[0].problem.is_some());
    assert!(config.servers[0].unset_variables.is_empty());
}

#[test]
fn headers_and_versions_http_cannot_carry_are_refused_at_load_without_the_value() {
    let error = parse_str("[servers.b]\nurl = \"http://h\"\nheaders = { \"Bad Name\" = \"x\" }\n")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(
            "config file config.toml:3:1: server `b`: `headers`: \"Bad Name\" is not a header name"
        ),
        "{error}"
    );
    let error = parse_str(
        "[servers.b]\nurl = \"http://h\"\n\n[servers.b.headers]\nX = \"sec\\u0000ret\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("config file config.toml:5:1: server `b`: `headers.X`: its value holds a control character,"),
        "{error}"
    );
    assert!(!error.contains("sec"), "{error}");
    // From the environment: said so, still at load.
    let lookup = |name: &str| (name == "SPLIT").then(|| "a\r\nInjected: 1".to_string());
    let error = parse(
        "[servers.b]\nurl = \"http://h\"\nheaders = { Authorization = \"Bearer ${SPLIT}\" }\n",
        Path::new("config.toml"),
        &lookup,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("a line break once its `${…}` is filled in"),
        "{error}"
    );
    assert!(!error.contains("Injected"), "{error}");
    // Not even an unset variable makes these wait for the server to start.
    let error = parse_str("[servers.b]\nurl = \"${NOPE}\"\nprotocol_version = \"2020-01-01\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("config.toml:3:1: server `b`: `protocol_version"),
        "{error}"
    );
    for version in PROTOCOL_VERSIONS {
        parse_str(&format!(
            "[servers.b]\nurl = \"http://h\"\nprotocol_version = \"{version}\"\n"
        ))
        .unwrap();
    }
}

#[test]
fn an_unset_variable_spoils_only_its_server() {
    let config =
        parse_str("[servers.a]\ncommand = \"${NOPE}\"\n[servers.b]\ncommand = \"ok\"\n").unwrap();
    assert!(config.servers[0].problem.is_some());
    assert!(config.servers[1].problem.is_none());
}

#[test]
fn default_values_expand_in_every_field() {
    let config = parse_str("[servers.a]\nurl = \"${HOST:-http://127.0.0.1:9}/mcp\"\n").unwrap();
    assert_eq!(
        config.servers[0].transport,
        TransportConfig::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: BTreeMap::new(),
            legacy_sse: false,
            oauth: OAuthConfig::default(),
        }
    );
}

#[test]
fn unknown_field_is_an_error_with_its_location() {
    let err = parse_str("[servers.a]\ncommand = \"x\"\ncomand = \"y\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `comand`"), "{err}");
    assert!(err.contains("line 3"), "{err}");
}

#[test]
fn unknown_top_level_table_is_an_error() {
    let err = parse_str("[server.a]\ncommand = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown field `server`"), "{err}");
}

#[test]
fn wrong_types_are_errors_with_location() {
    let err = parse_str("[servers.a]\ncommand = \"x\"\ntimeout_ms = \"fast\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 3"), "{err}");
}

#[test]
fn inconsistent_tables_say_what_to_do() {
    let both = parse_str("[servers.a]\ncommand = \"x\"\nurl = \"http://h\"\n").unwrap_err();
    assert!(both.to_string().contains("keep one"), "{both}");
    let neither = parse_str("[servers.a]\ntimeout_ms = 5\n").unwrap_err();
    assert!(neither.to_string().contains("needs `command`"), "{neither}");
    let headers_on_stdio =
        parse_str("[servers.a]\ncommand = \"x\"\nheaders = { A = \"b\" }\n").unwrap_err();
    assert!(
        headers_on_stdio
            .to_string()
            .contains("`headers` only applies")
    );
    let args_on_http = parse_str("[servers.a]\nurl = \"http://h\"\nargs = []\n").unwrap_err();
    assert!(args_on_http.to_string().contains("`args` only applies"));
    let bad_url = parse_str("[servers.a]\nurl = \"ftp://h\"\n").unwrap_err();
    assert!(bad_url.to_string().contains("http://"));
    let zero = parse_str("[servers.a]\ncommand = \"x\"\ntimeout_ms = 0\n").unwrap_err();
    assert!(zero.to_string().contains("timeout_ms"));
    let tiny = parse_str("[servers.a]\ncommand = \"x\"\nmax_response_bytes = 100\n").unwrap_err();
    assert!(tiny.to_string().contains("at least 65536"), "{tiny}");
}

#[test]
fn max_response_bytes_defaults_to_32_mib_and_can_be_raised() {
    let config = parse_str("[servers.a]\ncommand = \"x\"\n[servers.b]\nurl = \"http://h\"\nmax_response_bytes = 67108864\n").unwrap();
    assert_eq!(
        config.server("a").unwrap().max_response_bytes,
        32 * 1024 * 1024
    );
    assert_eq!(
        config.server("b").unwrap().max_response_bytes,
        64 * 1024 * 1024
    );
}

#[test]
fn server_names_must_work_in_references() {
    let err = parse_str("[servers.\"a/b\"]\ncommand = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("SERVER/PROMPT"), "{err}");
    assert!(parse_str("[servers.my-server_2]\ncommand = \"x\"\n").is_ok());
    // Found by fuzzing: a server waiting for an input was not checked until it had one.
    let err = parse_str("[servers.\"a b\"]\nurl = \"${input:u}\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("SERVER/PROMPT"), "{err}");
}

#[test]
fn debug_output_hides_secret_values() {
    let config = parse_str(
        "[servers.a]\ncommand = \"x\"\nenv = { K = \"${TOKEN}\" }\n[servers.b]\nurl = \"http://h\"\nheaders = { H = \"${TOKEN}\" }\n",
    )
    .unwrap();
    let shown = format!("{config:?}");
    assert!(!shown.contains("abc123"), "{shown}");
    assert!(
        shown.contains("\"K\"") && shown.contains("\"H\""),
        "{shown}"
    );
}

#[test]
fn explicit_missing_file_is_an_error() {
    let err = load(Some(Path::new("/nonexistent/mcpick.toml"))).unwrap_err();
    assert!(err.to_string().contains("cannot read config file"), "{err}");
}

#[test]
fn the_starter_config_parses_to_the_builtin_server() {
    let exe = Path::new("/opt/mcpick \"x\"/mcpick");
    let config = parse(&starter_config(exe), Path::new("starter.toml"), &env).unwrap();
    assert_eq!(config.servers, vec![builtin_server(exe)]);
}

#[test]
fn inputs_wait_for_values_shared_by_id() {
    let config = parse_str(
        r#"
[inputs.api-key]
description = "Acme API key"

[inputs.region]
password = false

[servers.acme]
url = "${input:endpoint}"
headers = { Authorization = "Bearer ${input:api-key}" }

[servers.worker]
command = "acme-worker"
args = ["--region", "${input:region}"]
env = { ACME_KEY = "${input:api-key}" }
"#,
    )
    .unwrap();
    let acme = config.server("acme").unwrap();
    // The empty stand-in for the URL is not an error yet: it is checked once filled in.
    assert_eq!(acme.problem, None);
    let ids: Vec<_> = acme.inputs.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["endpoint", "api-key"]);
    assert_eq!(acme.inputs[0].label(), "endpoint");
    assert_eq!(acme.inputs[1].label(), "Acme API key");
    let worker = config.server("worker").unwrap();
    assert!(!worker.inputs[0].password && worker.inputs[1].password);

    let mut values = InputValues::default();
    values.insert("api-key", "s3cret");
    values.insert("region", "eu");
    // One set of values serves every server that uses them.
    let worker = worker.with_inputs(&values, &env);
    assert!(worker.inputs.is_empty() && worker.problem.is_none());
    let TransportConfig::Stdio {
        args, env: vars, ..
    } = &worker.transport
    else {
        panic!()
    };
    assert_eq!(args[1], "eu");
    assert_eq!(vars["ACME_KEY"], "s3cret");
    assert!(!format!("{values:?}").contains("s3cret"));

    // Still missing one: only that one is left to ask.
    let acme_partly = acme.with_inputs(&values, &env);
    let ids: Vec<_> = acme_partly.inputs.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["endpoint"]);
    // A value that makes the table wrong fails the server, saying why.
    values.insert("endpoint", "ftp://acme");
    let broken = acme.with_inputs(&values, &env);
    assert!(broken.inputs.is_empty());
    assert!(
        broken
            .problem
            .as_deref()
            .unwrap()
            .contains("must start with http"),
        "{broken:?}"
    );
    values.insert("endpoint", "https://acme.example/mcp");
    let ready = acme.with_inputs(&values, &env);
    assert_eq!(ready.problem, None);
    let TransportConfig::Http { url, headers, .. } = &ready.transport else {
        panic!()
    };
    assert_eq!(url, "https://acme.example/mcp");
    assert_eq!(headers["Authorization"], "Bearer s3cret");
}

#[test]
fn inputs_come_from_mcpick_input_variables_and_bad_ids_are_errors() {
    let lookup = |name: &str| (name == "MCPICK_INPUT_API_KEY").then(|| "from-env".to_string());
    let config = parse(
        r#"
[servers.acme]
command = "acme"
env = { KEY = "${input:api-key}" }
"#,
        Path::new("config.toml"),
        &lookup,
    )
    .unwrap();
    let acme = config.server("acme").unwrap();
    assert!(acme.inputs.is_empty());
    let TransportConfig::Stdio { env, .. } = &acme.transport else {
        panic!()
    };
    assert_eq!(env["KEY"], "from-env");

    let error = parse_str("[inputs.\"a b\"]\n").unwrap_err().to_string();
    assert!(error.contains("`[inputs.a b]`"), "{error}");
    let error = parse_str("[inputs.x]\nprompt = \"?\"\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `prompt`"), "{error}");
    // An unset variable fails the server even when it also waits for an input.
    let config =
        parse_str("[servers.s]\ncommand = \"s\"\nenv = { A = \"${NOPE}\", B = \"${input:b}\" }\n")
            .unwrap();
    let s = config.server("s").unwrap();
    assert!(s.problem.as_deref().unwrap().contains("`NOPE`"));
}

#[test]
fn sse_transport_and_oauth_settings_parse_and_are_checked() {
    let config = parse_str(
        r#"
[servers.old]
transport = "sse"
url = "http://127.0.0.1:3001/sse"

[servers.linear]
url = "https://mcp.example.com/mcp"
oauth = { client_id = "mcpick", client_secret = "${TOKEN}", scopes = ["read"], client_metadata_url = "https://example.com/mcpick.json" }
"#,
    )
    .unwrap();
    let old = config.server("old").unwrap();
    assert_eq!(old.transport.kind(), "sse");
    let TransportConfig::Http {
        oauth, legacy_sse, ..
    } = &config.server("linear").unwrap().transport
    else {
        panic!()
    };
    assert!(!legacy_sse);
    assert_eq!(oauth.client_id.as_deref(), Some("mcpick"));
    assert_eq!(oauth.client_secret.as_deref(), Some("abc123"));
    assert_eq!(oauth.scopes, ["read"]);
    // The secret never shows in debug output.
    assert!(!format!("{config:?}").contains("abc123"));

    for (table, expected) in [
        (
            "transport = \"sse\"\ncommand = \"x\"",
            "`transport = \"sse\"` needs `url`",
        ),
        ("transport = \"ws\"\nurl = \"http://h/\"", "not \"ws\""),
        (
            "command = \"x\"\noauth = { client_id = \"a\" }",
            "`oauth` only applies to `url` servers",
        ),
        (
            "url = \"http://h/\"\noauth = { client_secret = \"s\" }",
            "needs the `oauth.client_id`",
        ),
        (
            "url = \"http://h/\"\noauth = { client_metadata_url = \"http://h/c.json\" }",
            "must be an https:// URL",
        ),
        (
            "url = \"http://h/\"\noauth = { token = \"t\" }",
            "unknown field `token`",
        ),
    ] {
        let error = parse_str(&format!("[servers.s]\n{table}\n"))
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{table}: {error}");
    }
}

#[test]
fn inputs_with_defaults_are_not_asked_and_an_input_url_stays_http() {
    let config = parse_str(
        r#"
[servers.d]
command = "d"
env = { A = "${input:a:-fallback}", B = "${input:b}${input:c:-}" }

[servers.u]
transport = "sse"
url = "${input:endpoint}"
"#,
    )
    .unwrap();
    let ids: Vec<_> = config.servers[0]
        .inputs
        .iter()
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(ids, ["b"]);
    let mut values = InputValues::default();
    values.insert("b", "bee");
    let d = config.servers[0].with_inputs(&values, &env);
    let TransportConfig::Stdio { env: vars, .. } = &d.transport else {
        panic!()
    };
    assert_eq!(vars["A"], "fallback");
    assert_eq!(vars["B"], "bee");
    let u = config.server("u").unwrap();
    assert_eq!(u.transport.kind(), "sse");
    values.insert("endpoint", "not a url");
    let problem = u.with_inputs(&values, &env).problem.unwrap();
    // The typed value is not echoed: it may be a secret.
    assert!(
        problem.contains("${input:endpoint}") && !problem.contains("not a url"),
        "{problem}"
    );
}

#[test]
fn clipboard_route_and_command_parse() {
    let config = parse_str("").unwrap();
    assert_eq!(config.clipboard, ClipboardSettings::default());
    let config = parse_str(
        "clipboard = \"osc52\"\nclipboard_command = [\"wl-copy\", \"--type\", \"${TOKEN}\"]\n",
    )
    .unwrap();
    assert_eq!(config.clipboard.mode, ClipboardMode::Osc52);
    assert_eq!(
        config.clipboard.command,
        Some(vec!["wl-copy".into(), "--type".into(), "abc123".into()])
    );
    for (mode, expected) in [
        ("auto", ClipboardMode::Auto),
        ("tmux", ClipboardMode::Tmux),
        ("native", ClipboardMode::Native),
    ] {
        let config = parse_str(&format!("clipboard = \"{mode}\"\n")).unwrap();
        assert_eq!(config.clipboard.mode, expected);
    }
}

#[test]
fn a_bad_clipboard_setting_is_an_error_with_its_location() {
    let err = parse_str("\nclipboard = \"xclip\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("clipboard = \"xclip\""), "{err}");
    assert!(err.contains("unknown variant `xclip`"), "{err}");
    assert!(err.contains("line 2"), "{err}");
    let err = parse_str("clipboard_command = []\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("clipboard_command"), "{err}");
    assert!(err.contains("its program first"), "{err}");
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn live_preview_is_on_for_mcpick_serve_and_off_elsewhere_unless_the_table_says() {
    let config = parse_str(
        r#"
[servers.builtin]
command = "/opt/bin/mcpick"
args = ["serve", "--builtin"]

[servers.notes]
command = "mcpick"
args = ["serve", "~/notes"]

[servers.other]
command = "npx"
args = ["serve"]

[servers.not_serve]
command = "mcpick"
args = ["get", "x"]

[servers.remote]
url = "https://example.com/mcp"

[servers.chosen]
command = "npx"
live_preview = true

[servers.refused]
command = "mcpick"
args = ["serve"]
live_preview = false
"#,
    )
    .unwrap();
    let on = |name: &str| config.server(name).unwrap().live_preview;
    assert!(on("builtin"));
    assert!(on("notes"));
    assert!(!on("other"));
    assert!(!on("not_serve"));
    assert!(!on("remote"));
    assert!(on("chosen"));
    assert!(!on("refused"));
    assert!(super::builtin_server(std::path::Path::new("/x/mcpick")).live_preview);
}

#[test]
fn the_audio_player_is_a_command_with_its_program_first() {
    assert_eq!(parse_str("").unwrap().audio_player, None);
    let config = parse_str("audio_player = [\"mpv\", \"--no-video\", \"{file}\"]\n").unwrap();
    assert_eq!(
        config.audio_player,
        Some(vec!["mpv".into(), "--no-video".into(), "{file}".into()])
    );
    let err = parse_str("\naudio_player = []\n").unwrap_err().to_string();
    assert!(err.contains("audio_player"), "{err}");
    assert!(err.contains("its program first"), "{err}");
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn image_protocol_parses_each_value_and_defaults_to_auto() {
    assert_eq!(parse_str("").unwrap().image_protocol, ImageProtocol::Auto);
    for (value, expected) in [
        ("auto", ImageProtocol::Auto),
        ("kitty", ImageProtocol::Kitty),
        ("iterm2", ImageProtocol::Iterm2),
        ("sixel", ImageProtocol::Sixel),
        ("halfblocks", ImageProtocol::Halfblocks),
        ("none", ImageProtocol::None),
    ] {
        let config = parse_str(&format!("image_protocol = \"{value}\"\n")).unwrap();
        assert_eq!(config.image_protocol, expected, "{value}");
    }
    let err = parse_str("\nimage_protocol = \"chafa\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown variant `chafa`"), "{err}");
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn server_errors_point_at_the_line_and_column_of_their_field() {
    let cases: [(&str, &str); 6] = [
        (
            "[servers.a]\ncommand = \"x\"\nurl = \"https://x\"\n",
            "config.toml:2:1: server `a`: has both `command` (stdio) and `url` (HTTP); keep one",
        ),
        (
            "# header\n\n[servers.a]\nurl = \"ftp://x\"\n",
            "config.toml:4:1: server `a`: `url` must start with http:// or https://",
        ),
        (
            "[servers.\"bad name\"]\ncommand = \"x\"\n",
            "config.toml:1:10: server `bad name`: the name may only hold",
        ),
        (
            "servers = { b = { url = \"https://x\", oauth = { client_secret = \"s\" } } }\n",
            "config.toml:1:48: server `b`: `oauth.client_secret` needs",
        ),
        (
            "[servers.t]\ncommand = \"x\"\n  transport = \"http\"\n",
            "config.toml:3:3: server `t`: `transport = \"http\"` needs `url`",
        ),
        (
            "[servers.n]\ntimeout_ms = 5\n",
            "config.toml:1:10: server `n`: needs `command` (a stdio server) or `url`",
        ),
    ];
    for (text, expected) in cases {
        let error = parse_str(text).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("config file {expected}")),
            "{text:?} gave {error:?}"
        );
    }
}

#[test]
fn the_default_config_is_xdg_then_dot_config_with_the_old_macos_place_as_a_fallback() {
    let home = Some(PathBuf::from("/home/u"));
    let none = |_: &Path| false;
    let place = choose_config_place(Some("/x".into()), home.clone(), None, &none).unwrap();
    assert_eq!(place.path, Path::new("/x/mcpick/config.toml"));
    assert!(place.why.contains("$XDG_CONFIG_HOME"), "{}", place.why);
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    let place = choose_config_place(Some("rel".into()), home.clone(), None, &none).unwrap();
    assert_eq!(place.path, Path::new("/home/u/.config/mcpick/config.toml"));
    // macOS: the old file is read only while the new one does not exist, and said so.
    let old = PathBuf::from("/home/u/Library/Application Support/mcpick/config.toml");
    let only_old = |p: &Path| p == old;
    let place = choose_config_place(None, home.clone(), Some(old.clone()), &only_old).unwrap();
    assert_eq!(place.path, old);
    assert!(place.why.contains("move the file there"), "{}", place.why);
    let both = |_: &Path| true;
    let place = choose_config_place(None, home.clone(), Some(old.clone()), &both).unwrap();
    assert_eq!(place.path, Path::new("/home/u/.config/mcpick/config.toml"));
    assert_eq!(
        choose_config_place(None, home, Some(old), &none)
            .unwrap()
            .path,
        Path::new("/home/u/.config/mcpick/config.toml"),
        "nothing yet: the new place (where `mcpick init` writes)"
    );
    assert_eq!(choose_config_place(None, None, None, &none), None);
}

#[test]
fn no_config_file_follows_the_terminals_background_as_an_empty_one_does() {
    let empty = parse("", Path::new("config.toml"), &|_: &str| None).unwrap();
    assert_eq!(Config::default().theme, empty.theme);
    assert!(
        Config::default().theme.light_variant.is_some(),
        "base = \"auto\": a light variant for a light background"
    );
}

#[test]
fn machine_grants_parse_with_what_each_needs_and_refuse_the_rest() {
    let config = parse_str(
        r#"
[servers.ci.oauth]
grant = "client_credentials"
client_id = "ci"
client_secret = "${TOKEN}"

[servers.ci]
url = "https://mcp.example.com/mcp"

[servers.keyed]
url = "https://mcp.example.com/mcp"
oauth = { grant = "client_credentials", client_id = "ci", private_key = "~/keys/ci.pem", assertion_audience = "token_endpoint", key_id = "ci-2026" }

[servers.k8s]
url = "https://mcp.example.com/mcp"
oauth = { grant = "jwt_bearer", assertion_file = "/var/run/secrets/tokens/mcp", dpop = "required" }

[servers.gha]
url = "https://mcp.example.com/mcp"
oauth = { grant = "jwt_bearer", assertion = "${TOKEN}", client_id = "gha" }

[servers.corp]
url = "https://mcp.example.com/mcp"
oauth = { grant = "enterprise", client_id = "mcpick", client_secret = "${TOKEN}", idp_token_endpoint = "https://idp.example.com/oauth2/token", idp_client_id = "idp-mcpick", id_token_command = "corp-login --print-id-token" }
"#,
    )
    .unwrap();
    let oauth = |name: &str| match &config.server(name).unwrap().transport {
        TransportConfig::Http { oauth, .. } => oauth.clone(),
        TransportConfig::Stdio { .. } => panic!("{name} is not http"),
    };
    assert_eq!(oauth("ci").grant, OAuthGrant::ClientCredentials);
    assert_eq!(oauth("ci").client_secret.as_deref(), Some("abc123"));
    let keyed = oauth("keyed");
    assert!(
        !keyed.private_key.as_ref().unwrap().starts_with("~"),
        "{keyed:?}"
    );
    assert_eq!(keyed.assertion_audience, AssertionAudience::TokenEndpoint);
    assert_eq!(keyed.key_id.as_deref(), Some("ci-2026"));
    assert!(keyed.private_key.unwrap().ends_with("keys/ci.pem"));
    assert_eq!(oauth("ci").assertion_audience, AssertionAudience::Issuer);
    assert_eq!(oauth("ci").dpop, crate::config::Dpop::Auto);
    assert_eq!(oauth("k8s").dpop, crate::config::Dpop::Required);
    assert_eq!(oauth("k8s").grant, OAuthGrant::JwtBearer);
    assert_eq!(
        oauth("k8s").assertion,
        Some(SecretSource::File("/var/run/secrets/tokens/mcp".into()))
    );
    assert_eq!(
        oauth("gha").assertion,
        Some(SecretSource::Value("abc123".into()))
    );
    let OAuthGrant::Enterprise(idp) = oauth("corp").grant else {
        panic!("not enterprise")
    };
    assert_eq!(idp.token_endpoint, "https://idp.example.com/oauth2/token");
    assert_eq!(
        idp.id_token,
        SecretSource::Command("corp-login --print-id-token".into())
    );
    // Secrets given in the config are masked, and never in debug output.
    let gha = config.server("gha").unwrap();
    assert!(!gha.secrets().mask("a abc123 b").contains("abc123"));
    assert!(!format!("{config:?}").contains("abc123"));

    for (oauth, expected) in [
        (r#"grant = "password""#, "not a grant mcpick knows"),
        (r#"grant = "client_credentials""#, "needs `oauth.client_id`"),
        (
            r#"grant = "client_credentials", client_id = "c""#,
            "needs `oauth.client_secret` or `oauth.private_key`",
        ),
        (
            r#"grant = "client_credentials", client_id = "c", client_secret = "s", private_key = "k.pem""#,
            "not both",
        ),
        (r#"grant = "jwt_bearer""#, "needs the workload's JWT"),
        (
            r#"grant = "client_credentials", client_id = "c", private_key = "k.pem", assertion_audience = "token""#,
            "is neither \"issuer\" (the default) nor \"token_endpoint\"",
        ),
        (
            r#"grant = "client_credentials", client_id = "c", client_secret = "s", key_id = "k""#,
            "`oauth.key_id` is about the assertion `oauth.private_key` signs",
        ),
        (
            r#"grant = "jwt_bearer", assertion = "a", assertion_file = "f""#,
            "give one of `oauth.assertion`, `oauth.assertion_file` and `oauth.assertion_command`",
        ),
        (
            r#"private_key = "k.pem""#,
            "`oauth.private_key` is not used by `grant = \"authorization_code\"`: it is for `grant = \"client_credentials\"`",
        ),
        (
            r#"grant = "client_credentials", client_id = "c", client_secret = "s", assertion = "a""#,
            "it is for `grant = \"jwt_bearer\"`",
        ),
        (
            r#"grant = "enterprise", client_id = "c", id_token = "t""#,
            "needs `oauth.idp_token_endpoint`",
        ),
        (
            r#"dpop = "yes""#,
            "`oauth.dpop = \"yes\"` is none of \"auto\" (the default: when the authorization server offers it), \"required\" and \"off\"",
        ),
        (
            r#"grant = "enterprise", client_id = "c", idp_token_endpoint = "https://i/t""#,
            "needs the user's ID token",
        ),
    ] {
        let error = parse_str(&format!(
            "[servers.s]\nurl = \"https://h/mcp\"\noauth = {{ {oauth} }}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(error.contains(expected), "{oauth}: {error}");
    }
}
