//! The layers of docs/architecture.md, read from `src/`: every `crate::MODULE` a top-level
//! module's code names (its tests and comments left out) must be of its own layer or one
//! below, and two modules of one layer never import each other both ways. An exception
//! would be listed here, to be removed; a listed one that is gone fails too (strike it off).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module of `src/` and its layer, lowest first (as docs/architecture.md).
const LAYERS: &[(&str, u8)] = &[
    ("text", 0),
    ("secrets", 0),
    ("sys", 0),
    ("audio", 0),
    ("config", 1),
    ("model", 1),
    ("mcp", 2),
    ("cache", 2),
    ("catalog", 2),
    ("serve", 2),
    ("export", 2),
    ("render", 2),
    ("value_io", 2),
    ("app", 3),
    ("ui", 4),
    ("tui", 5),
    ("cli", 6),
    // The fuzz targets' properties reach into every layer, by design; only tests use them.
    ("fuzzing", 7),
];

/// Upward imports still there, to be moved down (none left: keep it so).
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// Module circles within one layer still there (none left: keep it so).
const KNOWN_CIRCLES: &[(&str, &str)] = &[];

/// The code of `text` without its test modules (`#[cfg(test)] mod … { … }`, found by
/// matching braces) and comment lines.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]\nmod ") {
        code.push_str(&rest[..at]);
        let module = &rest[at..];
        let Some(open) = module.find(['{', ';']) else {
            rest = "";
            break;
        };
        if module.as_bytes()[open] == b';' {
            rest = &module[open + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = module.len();
        for (i, c) in module[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &module[end..];
    }
    code.push_str(rest);
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `from` → the top-level modules its files name.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let name = relative.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let first = relative.components().next().unwrap().as_os_str();
        let from = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if from == "main" || from == "lib" {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for (at, _) in code.match_indices("crate::") {
            let to: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !to.is_empty() && to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .unwrap_or_else(|| {
            panic!("src/{module} has no layer: add it to LAYERS here and to docs/architecture.md")
        })
        .1
}

#[test]
fn imports_point_down_the_layers() {
    let edges = imports();
    assert!(edges.len() >= 10, "read too little of src/: {edges:?}");
    let mut upward = BTreeSet::new();
    for (from, tos) in &edges {
        for to in tos {
            if layer(to) > layer(from) {
                upward.insert((from.as_str(), to.as_str()));
            }
        }
    }
    let known: BTreeSet<(&str, &str)> = KNOWN_UPWARD.iter().copied().collect();
    let new: Vec<_> = upward.difference(&known).collect();
    assert!(
        new.is_empty(),
        "imports against the layers of docs/architecture.md (a lower module naming a higher \
         one): {new:?}. Move the shared piece down into the lower layer instead."
    );
    let gone: Vec<_> = known.difference(&upward).collect();
    assert!(
        gone.is_empty(),
        "these upward imports are gone: strike them off KNOWN_UPWARD: {gone:?}"
    );
}

#[test]
fn modules_of_one_layer_do_not_import_each_other_both_ways() {
    let edges = imports();
    let names = |from: &str, to: &str| edges.get(from).is_some_and(|t| t.contains(to));
    let mut circles = BTreeSet::new();
    for (from, tos) in &edges {
        for to in tos {
            if from < to && names(to, from) && layer(from) == layer(to) {
                circles.insert((from.as_str(), to.as_str()));
            }
        }
    }
    let known: BTreeSet<(&str, &str)> = KNOWN_CIRCLES.iter().copied().collect();
    let new: Vec<_> = circles.difference(&known).collect();
    assert!(
        new.is_empty(),
        "modules that import each other: {new:?}. Move what both need into a third module \
         both import."
    );
    let gone: Vec<_> = known.difference(&circles).collect();
    assert!(
        gone.is_empty(),
        "these circles are gone: strike them off KNOWN_CIRCLES: {gone:?}"
    );
}

#[test]
fn the_reader_sees_an_upward_import_when_there_is_one() {
    // The check itself: a comment and a test module are not code; an import is.
    let code = code_of(
        "use crate::app::App;\n// crate::ui in a comment\n#[cfg(test)]\nmod tests {\n fn f() { crate::cli::x(); }\n}\nuse crate::tui;\n#[cfg(test)]\nmod more;\n",
    );
    assert!(code.contains("crate::app"));
    assert!(!code.contains("crate::ui"));
    assert!(!code.contains("crate::cli"));
    assert!(
        code.contains("crate::tui"),
        "code after a test module is read: {code}"
    );
}
