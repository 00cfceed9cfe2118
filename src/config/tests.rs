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
            headers: BTreeMap::new()
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
}

#[test]
fn server_names_must_work_in_references() {
    let err = parse_str("[servers.\"a/b\"]\ncommand = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("SERVER/PROMPT"), "{err}");
    assert!(parse_str("[servers.my-server_2]\ncommand = \"x\"\n").is_ok());
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
