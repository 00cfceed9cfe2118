//! The `rust-version` Cargo.toml declares is the one the locked dependency tree needs: the
//! highest `rust-version` of any crate a build compiles (normal and build dependencies,
//! every target's; dev-dependencies only build the tests). A lock update that raises it, or a
//! Cargo.toml that claims less or more, fails here with the crate to blame.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

/// `1.90` or `1.88.0` as numbers (missing parts are 0).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn rust_version_is_the_highest_any_locked_dependency_declares() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata --locked --offline failed: is Cargo.lock up to date, and every target's crates fetched (`cargo fetch --locked`, which ./test.sh runs)? {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let packages: HashMap<&str, &Value> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: HashMap<&str, &Value> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let root = metadata["resolve"]["root"].as_str().unwrap();

    // Everything a `cargo build` of mcpick compiles, on any target.
    let mut built = BTreeSet::new();
    let mut todo = vec![root];
    while let Some(id) = todo.pop() {
        if !built.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let for_builds = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|kind| kind["kind"].is_null() || kind["kind"] == "build");
            if for_builds {
                todo.push(dep["pkg"].as_str().unwrap());
            }
        }
    }
    assert!(
        built.len() > 100,
        "the walk found {} crates only",
        built.len()
    );

    let declared = packages[root]["rust_version"]
        .as_str()
        .expect("Cargo.toml declares a rust-version");
    let (needed, by) = built
        .iter()
        .filter(|id| **id != root)
        .filter_map(|id| {
            let package = packages[id];
            let wanted = package["rust_version"].as_str()?;
            Some((
                version(wanted),
                format!(
                    "{} {}",
                    package["name"].as_str().unwrap_or("?"),
                    package["version"].as_str().unwrap_or("?")
                ),
            ))
        })
        .max()
        .expect("some dependency declares a rust-version");
    assert!(
        version(declared) >= needed,
        "Cargo.toml says rust-version = \"{declared}\", but {by} needs Rust {}.{}.{}: raise it",
        needed.0,
        needed.1,
        needed.2
    );
    assert_eq!(
        version(declared),
        needed,
        "Cargo.toml says rust-version = \"{declared}\", but the most any dependency needs is \
         {}.{}.{} ({by}): lower it to that",
        needed.0,
        needed.1,
        needed.2
    );
}

#[test]
fn the_readme_names_the_rust_version_cargo_toml_declares() {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("read Cargo.toml");
    let manifest: toml::Table = manifest.parse().expect("Cargo.toml is TOML");
    let declared = manifest["package"]["rust-version"].as_str().unwrap();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("read README.md");
    assert!(
        readme.contains(&format!("# Rust {declared} or newer")),
        "README.md's install line should say `# Rust {declared} or newer`"
    );
}
