//! Each dialect from a fixture written after its host's documentation.

use super::*;
use crate::config::{TransportConfig, parse};

fn context() -> Context {
    Context {
        workspace: PathBuf::from("/home/ann/proj"),
        home: Some(PathBuf::from("/home/ann")),
    }
}

fn run(text: &str, path: &str) -> Import {
    import(text, Path::new(path), None, &context()).unwrap_or_else(|e| panic!("{e}"))
}

/// The imported TOML parses as an mcpick config, with every variable set to `<NAME>`.
fn as_config(import: &Import) -> crate::config::Config {
    let toml = to_toml(&import.servers);
    parse(&toml, Path::new("imported.toml"), &|name| {
        Some(format!("<{name}>"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

#[test]
fn claude_desktop() {
    let text = r#"{"mcpServers": {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ann/Desktop"]},
        "weird ${name}": {"command": "uvx", "args": ["pkg"], "env": {"TOKEN": "lit${eral}"}}
    }}"#;
    let import = run(text, "/home/ann/.config/Claude/claude_desktop_config.json");
    assert_eq!(import.dialect, Dialect::ClaudeDesktop);
    let config = as_config(&import);
    let names: Vec<_> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "weird---name-"]);
    let TransportConfig::Stdio { env, .. } = &config.servers[1].transport else {
        panic!()
    };
    // Claude Desktop has no variables: `${` stays literal.
    assert_eq!(env["TOKEN"], "lit${eral}");
}

#[test]
fn claude_code_with_project_entries_types_and_defaults() {
    let text = r#"{
      "mcpServers": {"global": {"type": "stdio", "command": "mcp-global", "env": {"KEY": "${API_KEY:-none}"}}},
      "projects": {
        "/home/ann/proj": {"mcpServers": {"api": {"type": "http", "url": "${API_BASE_URL:-https://api.example.com}/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}}}},
        "/elsewhere": {"mcpServers": {"other": {"command": "x"}}}
      }}"#;
    let import = run(text, "/home/ann/.claude.json");
    assert_eq!(import.dialect, Dialect::ClaudeCode);
    // Only API_KEY is set: the URL's default applies.
    let toml = to_toml(&import.servers);
    let config = parse(&toml, Path::new("imported.toml"), &|name| {
        (name == "API_KEY").then(|| "<API_KEY>".to_string())
    })
    .unwrap();
    let names: Vec<_> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["api", "global"],
        "only this folder's project servers"
    );
    let TransportConfig::Http { url, headers, .. } = &config.servers[0].transport else {
        panic!()
    };
    assert_eq!(url, "https://api.example.com/mcp");
    assert_eq!(headers["Authorization"], "Bearer <API_KEY>");
}

#[test]
fn claude_code_sse_servers_keep_their_transport() {
    let import = run(
        r#"{"mcpServers": {"old": {"type": "sse", "url": "https://x/sse"}}}"#,
        "/home/ann/proj/.mcp.json",
    );
    assert!(import.servers[0].enabled && import.servers[0].legacy_sse);
    let config = as_config(&import);
    assert_eq!(config.servers[0].transport.kind(), "sse");
}

#[test]
fn vscode_with_comments_trailing_commas_inputs_and_variables() {
    let text = r#"{
  // Inputs are asked by VS Code when the server starts.
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true},
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask", "${workspaceFolder}/data"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}", "HOME_DIR": "${userHome}", "P": "${env:PATH}"},
    },
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", /* inline */ },
  },
}"#;
    let import = run(text, "/home/ann/proj/.vscode/mcp.json");
    assert_eq!(import.dialect, Dialect::VsCode);
    let config = as_config(&import);
    let TransportConfig::Stdio { args, env, .. } = &config.servers[0].transport else {
        panic!()
    };
    assert_eq!(args[2], "/home/ann/proj/data");
    // An input can also come from its MCPICK_INPUT_ variable.
    assert_eq!(env["PERPLEXITY_API_KEY"], "<MCPICK_INPUT_PERPLEXITY_KEY>");
    assert_eq!(env["HOME_DIR"], "/home/ann");
    assert_eq!(env["P"], "<PATH>");
    assert!(
        import.notes.iter().any(|n| n.contains("Perplexity API Key")
            && n.contains("asks for it when the server starts"))
    );
    assert!(matches!(
        config.servers[1].transport,
        TransportConfig::Http { .. }
    ));

    // The input stays an input, declared with its description.
    let toml = to_toml(&import.servers);
    assert!(toml.contains(r#""${input:perplexity-key}""#), "{toml}");
    assert!(
        toml.contains("[inputs.perplexity-key]\ndescription = \"Perplexity API Key\""),
        "{toml}"
    );
    let config = parse(&toml, Path::new("imported.toml"), &|name| {
        (name == "PATH").then(|| "/bin".to_string())
    })
    .unwrap();
    let perplexity = &config.servers[0];
    assert_eq!(perplexity.name, "Perplexity");
    assert_eq!(perplexity.problem, None);
    assert_eq!(
        perplexity.inputs,
        [crate::config::InputSpec {
            id: "perplexity-key".into(),
            description: "Perplexity API Key".into(),
            password: true,
        }]
    );
    let mut values = crate::config::InputValues::default();
    values.insert("perplexity-key", "pplx-123");
    let started = perplexity.with_inputs(&values, &|name| {
        (name == "PATH").then(|| "/bin".to_string())
    });
    assert!(started.inputs.is_empty());
    let TransportConfig::Stdio { env, .. } = &started.transport else {
        panic!()
    };
    assert_eq!(env["PERPLEXITY_API_KEY"], "pplx-123");
    assert_eq!(env["P"], "/bin");
}

#[test]
fn cursor_env_and_home_variables() {
    let text = r#"{"mcpServers": {"db": {"command": "${userHome}/bin/db-mcp", "env": {"DB_URL": "${env:DATABASE_URL}"}}}}"#;
    let import = run(text, "/home/ann/proj/.cursor/mcp.json");
    assert_eq!(import.dialect, Dialect::Cursor);
    let config = as_config(&import);
    let TransportConfig::Stdio { command, env, .. } = &config.servers[0].transport else {
        panic!()
    };
    assert_eq!(command, "/home/ann/bin/db-mcp");
    assert_eq!(env["DB_URL"], "<DATABASE_URL>");
}

#[test]
fn gemini_http_sse_cwd_timeout_and_dollar_variables() {
    let text = r#"{"theme": "x", "mcpServers": {
        "py": {"command": "python", "args": ["-m", "srv"], "cwd": "./srv", "env": {"K": "$API_KEY", "L": "${OTHER}"}, "timeout": 15000},
        "remote": {"httpUrl": "https://h/mcp", "headers": {"Authorization": "Bearer $TOKEN"}},
        "legacy": {"url": "https://h/sse"}
    }}"#;
    let import = run(text, "/home/ann/.gemini/settings.json");
    assert_eq!(import.dialect, Dialect::Gemini);
    let config = as_config(&import);
    let py = config.server("py").unwrap();
    assert_eq!(py.timeout.as_millis(), 15000);
    let TransportConfig::Stdio { env, cwd, .. } = &py.transport else {
        panic!()
    };
    assert_eq!(
        (env["K"].as_str(), env["L"].as_str()),
        ("<API_KEY>", "<OTHER>")
    );
    assert_eq!(cwd.as_deref(), Some(Path::new("./srv")));
    let TransportConfig::Http { headers, .. } = &config.server("remote").unwrap().transport else {
        panic!()
    };
    assert_eq!(headers["Authorization"], "Bearer <TOKEN>");
    assert_eq!(config.server("legacy").unwrap().transport.kind(), "sse");
}

#[test]
fn zed_flat_and_nested_shapes_with_comments() {
    let text = r#"{
  // Zed settings
  "theme": "One Dark",
  "context_servers": {
    "flat": {"source": "custom", "command": "some-command", "args": ["a"], "env": {}},
    "nested": {"command": {"path": "old-command", "args": ["b"], "env": {"X": "1"}}, "settings": {}},
  },
}"#;
    let import = run(text, "/home/ann/.config/zed/settings.json");
    assert_eq!(import.dialect, Dialect::Zed);
    let config = as_config(&import);
    let TransportConfig::Stdio { command, .. } = &config.server("nested").unwrap().transport else {
        panic!()
    };
    assert_eq!(command, "old-command");
    assert!(config.server("flat").is_some());
}

#[test]
fn errors_name_the_file_and_where() {
    let bad_json = import(
        "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",, }\n  }\n}",
        Path::new("/x/.mcp.json"),
        None,
        &context(),
    )
    .unwrap_err();
    assert!(
        bad_json
            .to_string()
            .starts_with("/x/.mcp.json: not valid JSON at line 3"),
        "{bad_json}"
    );
    let unknown = import(
        r#"{"mcpServers": {"a": {"command": "x", "comand": "y"}}}"#,
        Path::new("/x/.mcp.json"),
        None,
        &context(),
    )
    .unwrap_err();
    assert!(
        unknown
            .message
            .contains("unknown field `comand` at `mcpServers.a.comand`"),
        "{unknown}"
    );
    let nothing = import(
        r#"{"theme": "x"}"#,
        Path::new("/x/settings.json"),
        None,
        &context(),
    )
    .unwrap_err();
    assert!(nothing.message.contains("--from"));
    let bad_variable = import(
        r#"{"servers": {"a": {"command": "${command:pick}"}}}"#,
        Path::new("/x/mcp.json"),
        None,
        &context(),
    )
    .unwrap_err();
    assert!(
        bad_variable.message.contains("${command:pick}"),
        "{bad_variable}"
    );
}

#[test]
fn merging_keeps_comments_and_renames_collisions() {
    let existing = "# my servers\n[servers.everything]\ncommand = \"npx\" # the reference server\n";
    let drafts = vec![
        ImportedServer {
            name: "everything".into(),
            command: Some("other".into()),
            enabled: true,
            ..ImportedServer::default()
        },
        ImportedServer {
            name: "new".into(),
            url: Some("https://x/mcp".into()),
            enabled: true,
            ..ImportedServer::default()
        },
    ];
    let Merged {
        text: merged,
        notices,
        names,
    } = merge(existing, &drafts).unwrap();
    assert_eq!(names, ["everything-2", "new"]);
    assert!(
        merged.starts_with(
            "# my servers\n[servers.everything]\ncommand = \"npx\" # the reference server\n"
        ),
        "{merged}"
    );
    assert!(notices[0].contains("added as `everything-2`"));
    let config = parse(&merged, Path::new("c.toml"), &|_| None).unwrap();
    let names: Vec<_> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["everything", "everything-2", "new"]);
}

#[test]
fn merging_into_a_file_of_comments_keeps_them_on_top() {
    let drafts = vec![ImportedServer {
        name: "a".into(),
        command: Some("x".into()),
        enabled: true,
        ..ImportedServer::default()
    }];
    let merged = merge("# header\n", &drafts).unwrap();
    assert_eq!(merged.text, "# header\n\n[servers.a]\ncommand = \"x\"\n");
}

#[test]
fn known_places_are_listed_once_when_home_is_the_current_folder() {
    let context = Context {
        workspace: PathBuf::from("/home/ann"),
        home: Some(PathBuf::from("/home/ann")),
    };
    let places = known_locations(&context);
    let cursor: Vec<_> = places
        .iter()
        .filter(|(_, p)| p.ends_with(".cursor/mcp.json"))
        .collect();
    assert_eq!(cursor.len(), 1, "{places:?}");
    assert!(
        places
            .iter()
            .any(|(d, p)| *d == Dialect::VsCode && p.ends_with("Code/User/mcp.json"))
    );
}
