//! The config: TOML parsing and validation, `${VAR}` expansion, and importing other
//! hosts' JSON configs.

use std::path::{Path, PathBuf};

use crate::config::import::{self, Context, Dialect};
use crate::config::{ConfigError, ExpandError, InputValues, TransportConfig, expand, parse};

/// Fuzz entry point: the input as a config file, and as a string to expand.
pub fn config(data: &[u8]) {
    let text = super::text_of(data);
    check_config(&text);
    check_expand(&text);
}

/// Fuzz entry point: the input as another host's config, in every dialect.
pub fn import(data: &[u8]) {
    check_import(&super::text_of(data));
}

/// Where `${VAR}` values come from in a check.
type Lookup = fn(&str) -> Option<String>;

/// Environments: nothing set, everything set, everything empty, and every value a
/// reference itself.
const LOOKUPS: [Lookup; 4] = [unset, set, empty, nested];

fn unset(_: &str) -> Option<String> {
    None
}

fn set(_: &str) -> Option<String> {
    Some("v".into())
}

fn empty(_: &str) -> Option<String> {
    Some(String::new())
}

/// A value that looks like a reference itself.
fn nested(_: &str) -> Option<String> {
    Some("${NESTED}".into())
}

/// Every promise of `config::parse` about `text`, whatever the environment holds.
pub fn check_config(text: &str) {
    let path = Path::new("config.toml");
    let mut parse_errors = Vec::new();
    for lookup in LOOKUPS {
        let result = parse(text, path, &lookup);
        parse_errors.push(match &result {
            Err(ConfigError::Parse { message, .. }) => Some(message.clone()),
            _ => None,
        });
        match result {
            Ok(config) => check_servers(&config, &lookup),
            Err(error) => assert!(error.to_string().starts_with("config file config.toml")),
        }
    }
    // A malformed file is malformed in any environment.
    assert!(
        parse_errors.windows(2).all(|w| w[0] == w[1]),
        "the syntax errors depend on the environment: {parse_errors:?}"
    );
}

fn check_servers(config: &crate::config::Config, lookup: &dyn Fn(&str) -> Option<String>) {
    for pair in config.servers.windows(2) {
        assert!(pair[0].name < pair[1].name, "servers are ordered by name");
    }
    for server in &config.servers {
        assert!(
            !server.name.is_empty() && crate::text::name_chars(&server.name) == server.name,
            "server name {:?}",
            server.name
        );
        assert!(!server.timeout.is_zero(), "{} has no time", server.name);
        assert_eq!(
            server.missing_inputs_problem().is_some(),
            !server.inputs.is_empty()
        );
        assert!(
            server.problem.is_none() || server.inputs.is_empty(),
            "{} both failed and waits for inputs",
            server.name
        );
        if server.problem.is_none() && server.inputs.is_empty() {
            match &server.transport {
                TransportConfig::Stdio { command, .. } => {
                    assert!(!command.trim().is_empty(), "{} runs nothing", server.name)
                }
                TransportConfig::Http { url, .. } => assert!(
                    url.starts_with("http://") || url.starts_with("https://"),
                    "{} has the URL {url:?}",
                    server.name
                ),
            }
        }
        if !server.inputs.is_empty() {
            // Without values nothing changes; with every one the server can start or fails.
            let same = server.with_inputs(&InputValues::default(), &unset);
            assert_eq!(same.inputs, server.inputs);
            let mut values = InputValues::default();
            for input in &server.inputs {
                values.insert(input.id.clone(), "typed");
            }
            let filled = server.with_inputs(&values, lookup);
            assert!(
                filled.inputs.is_empty(),
                "{:?} still missing",
                filled.inputs
            );
            assert_eq!(filled.name, server.name);
            assert_eq!(filled.enabled, server.enabled);
        }
    }
}

/// A character that `text` does not hold, to mark where values went.
fn marker_for(text: &str) -> Option<char> {
    ['\u{e000}', '\u{e001}', '\u{f8ff}']
        .into_iter()
        .find(|&c| !text.contains(c))
}

/// Every promise of `config::expand` about `text`.
pub fn check_expand(text: &str) {
    for lookup in LOOKUPS {
        let lookup: &dyn Fn(&str) -> Option<String> = &lookup;
        let result = expand(text, lookup);
        match &result {
            Ok(out) if !text.contains("${") => assert_eq!(out, text),
            Ok(_) => {}
            Err(error) => check_expand_error(text, error),
        }
        // `$${` writes `${` and reads nothing.
        assert_eq!(
            expand(&format!("$${{{text}"), lookup),
            result.clone().map(|out| format!("${{{out}"))
        );
        // What comes after a complete start is expanded on its own.
        for at in [text.len() / 3, text.len() / 2, text.len() * 2 / 3] {
            let Some((start, end)) = text.split_at_checked(at) else {
                continue;
            };
            if let Ok(start_out) = expand(start, lookup)
                && !start.ends_with('$')
            {
                assert_eq!(
                    result,
                    expand(end, lookup).map(|end_out| start_out + &end_out),
                    "expanding {start:?} + {end:?}"
                );
            }
        }
    }
    // With every variable set, only malformed references fail.
    if let Err(error) = expand(text, &set) {
        assert!(
            matches!(error, ExpandError::Unclosed | ExpandError::BadName(_)),
            "{error} with every variable set"
        );
    }
    // Values are inserted as they are and never expanded again.
    if let Some(marker) = marker_for(text) {
        let marked = expand(text, &|_| Some(marker.to_string()));
        assert_eq!(
            expand(text, &nested),
            marked.map(|out| out.replace(marker, "${NESTED}"))
        );
    }
}

fn check_expand_error(text: &str, error: &ExpandError) {
    assert!(!error.to_string().is_empty());
    match error {
        ExpandError::Unset(name) => {
            assert!(text.contains(&format!("${{{name}")), "{error}");
            assert!(
                name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                "{error}"
            );
        }
        ExpandError::NoInput(id) => {
            assert!(text.contains(&format!("${{input:{id}")), "{error}");
            assert!(crate::config::is_input_id(id), "{error}");
        }
        ExpandError::BadName(name) => {
            assert!(text.contains(&format!("${{{name}")), "{error}")
        }
        ExpandError::Unclosed => assert!(text.contains("${"), "{error}"),
    }
}

/// Every promise of `config::import` about `text`: in each dialect it is read or refused
/// with a message, and what is read becomes config tables that mcpick reads back.
pub fn check_import(text: &str) {
    let context = Context {
        workspace: PathBuf::from("/home/fuzz/project"),
        home: Some(PathBuf::from("/home/fuzz")),
    };
    let homeless = Context {
        home: None,
        ..context.clone()
    };
    let mut runs: Vec<(Option<Dialect>, &Context)> = vec![(None, &homeless)];
    runs.extend(Dialect::ALL.iter().map(|(_, d)| (Some(*d), &context)));
    let path = Path::new("/home/fuzz/project/mcp.json");
    for (dialect, context) in runs {
        match import::import(text, path, dialect, context) {
            Ok(imported) => {
                if let Some(dialect) = dialect {
                    assert_eq!(imported.dialect, dialect);
                }
                check_imported(&imported);
            }
            Err(error) => {
                assert_eq!(error.path, path);
                assert!(!error.message.is_empty());
            }
        }
    }
}

fn check_imported(imported: &import::Import) {
    for draft in &imported.servers {
        assert!(
            !draft.name.is_empty() && crate::text::name_chars(&draft.name) == draft.name,
            "draft name {:?}",
            draft.name
        );
        assert!(
            draft.command.is_some() != draft.url.is_some(),
            "{} needs a command or a URL, not both",
            draft.name
        );
        for input in &draft.inputs {
            assert!(
                crate::config::is_input_id(&input.id),
                "input {:?}",
                input.id
            );
        }
    }
    let merged = import::merge("", &imported.servers)
        .unwrap_or_else(|e| panic!("merging into an empty config: {e}"));
    assert_eq!(merged.names.len(), imported.servers.len());
    for (i, name) in merged.names.iter().enumerate() {
        assert!(!merged.names[..i].contains(name), "{name} added twice");
    }
    let tables: toml::Table = toml::from_str(&merged.text)
        .unwrap_or_else(|e| panic!("the tables written are not TOML: {e}\n{}", merged.text));
    let written = tables
        .get("servers")
        .and_then(toml::Value::as_table)
        .map_or(0, toml::Table::len);
    assert_eq!(written, merged.names.len());
    for lookup in [&set as &dyn Fn(&str) -> Option<String>, &unset] {
        match parse(&merged.text, Path::new("imported.toml"), lookup) {
            Ok(config) => assert_eq!(config.servers.len(), merged.names.len()),
            Err(ConfigError::Parse { message, .. }) => {
                panic!(
                    "mcpick refuses the tables it wrote: {message}\n{}",
                    merged.text
                )
            }
            // A value the other host accepts may be one mcpick refuses (an empty command).
            Err(_) => {}
        }
    }
}
