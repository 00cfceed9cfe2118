//! The docs' examples stay true: every TOML block in README.md, docs/*.md and
//! config.example.toml is a config mcpick takes, every `mcpick …` line of a shell block
//! parses as a command line, and every flag the prose gives a command is that command's.

use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use mcpick::cli::Cli;

/// README.md and every docs/*.md, with their text.
fn documents() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is there")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path.strip_prefix(root).unwrap_or(&path).to_path_buf(), text)
        })
        .collect()
}

/// A fenced block: its info string, its first line's number, and its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

/// The fenced blocks of a Markdown text, and the lines outside them (numbered).
fn split(text: &str) -> (Vec<Block>, Vec<(usize, String)>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(info) = line.trim_start().strip_prefix("```") {
            match open.take() {
                Some(block) => blocks.push(block),
                None => {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        line: number + 1,
                        lines: Vec::new(),
                    })
                }
            }
            continue;
        }
        match &mut open {
            Some(block) => block.lines.push(line.to_string()),
            None => prose.push((number, line.to_string())),
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    (blocks, prose)
}

/// Parses config text as mcpick does, every `${VAR}` set, and checks its `[keys]`.
fn check_config(text: &str, place: &str) {
    let config = mcpick::config::parse(text, Path::new(place), &|_| Some("x".into()))
        .unwrap_or_else(|e| panic!("{place}: the example is not a config mcpick takes: {e}"));
    mcpick::app::keys::KeyMap::with_overrides(&config.keys)
        .unwrap_or_else(|e| panic!("{place}: its [keys] are refused: {e}"));
}

#[test]
fn every_toml_example_is_a_config_mcpick_takes() {
    let mut checked = 0;
    for (path, text) in documents() {
        for block in split(&text).0 {
            if block.info == "toml" {
                let place = format!("{}:{}", path.display(), block.line);
                check_config(&block.lines.join("\n"), &place);
                checked += 1;
            }
        }
    }
    assert!(checked >= 8, "only {checked} TOML examples found");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml");
    check_config(
        &std::fs::read_to_string(&example).unwrap(),
        "config.example.toml",
    );
}

/// The words of one shell command line: comments, pipes and what follows `;`/`&&` cut off.
fn command_words(line: &str) -> Vec<String> {
    let words = shlex::split(line).unwrap_or_else(|| panic!("cannot split {line:?}"));
    words
        .into_iter()
        .take_while(|word| !word.starts_with('#') && !matches!(word.as_str(), "|" | ";" | "&&"))
        .map(|word| word.trim_end_matches(';').to_string())
        .collect()
}

#[test]
fn every_shell_example_parses_as_a_command_line() {
    let mut checked = 0;
    for (path, text) in documents() {
        for block in split(&text).0 {
            if !matches!(
                block.info.as_str(),
                "sh" | "bash" | "console" | "shell" | ""
            ) {
                continue;
            }
            // Continued lines (`\` at the end) are one command.
            let joined = block.lines.join("\n").replace("\\\n", " ");
            for (offset, line) in joined.lines().enumerate() {
                let line = line.trim().trim_start_matches("$ ");
                if !line.starts_with("mcpick ") && line != "mcpick" {
                    continue;
                }
                let words = command_words(line);
                if let Err(error) = Cli::try_parse_from(&words) {
                    panic!(
                        "{}:{}: `{line}` does not parse: {error}",
                        path.display(),
                        block.line + offset
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} shell examples found");
}

/// Whether `command` (or, for a global flag, any command) takes `--flag`.
fn takes(command: &clap::Command, flag: &str) -> bool {
    command.get_arguments().any(|arg| {
        arg.get_long() == Some(flag) || arg.get_all_aliases().is_some_and(|a| a.contains(&flag))
    }) || flag == "help"
        || flag == "version" && command.get_name() == "mcpick"
}

#[test]
fn every_flag_the_prose_gives_a_command_is_that_commands() {
    let root = Cli::command();
    let globals: Vec<String> = root
        .get_arguments()
        .filter(|arg| arg.is_global_set())
        .filter_map(|arg| arg.get_long().map(str::to_string))
        .collect();
    let mut checked = 0;
    for (path, text) in documents() {
        for (number, line) in split(&text).1 {
            for span in line.split('`').skip(1).step_by(2) {
                let Some(rest) = span.strip_prefix("mcpick ") else {
                    continue;
                };
                // Walk the words: a subcommand's name goes down a level; a flag must be the
                // current level's (or global).
                let mut command = &root;
                for word in rest.split_whitespace() {
                    let word = word.trim_matches(|c| matches!(c, '[' | ']' | '(' | ')' | ','));
                    if let Some(flag) = word.strip_prefix("--") {
                        let flag = flag.split('=').next().unwrap_or(flag);
                        assert!(
                            takes(command, flag) || globals.iter().any(|g| g == flag),
                            "{}:{number}: `{span}`: `mcpick {}` has no --{flag}",
                            path.display(),
                            command.get_name()
                        );
                        checked += 1;
                    } else if let Some(sub) = command.find_subcommand(word) {
                        command = sub;
                    }
                }
            }
        }
    }
    assert!(checked >= 30, "only {checked} flags found in the prose");
}
