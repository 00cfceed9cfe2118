//! What `mcpick test` reads and writes: the `--args` file, the table, the JSON and the
//! snapshot files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::checks::{Check, NO_REQUIRED, NOT_THIS_ERA, Verdict};
use super::results::{EraReport, PromptReport, ValueFrom};

/// Values per prompt and argument: `{prompt = {argument = "value"}}` in TOML, or the same
/// object in JSON when the file's name ends in `.json`.
pub(super) type GivenArgs = BTreeMap<String, BTreeMap<String, String>>;

/// Reads `--args FILE`, saying what is wrong and how to write it when it cannot.
pub(super) fn read_args_file(path: &Path) -> Result<GivenArgs, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--args {}: cannot read it: {e}", path.display()))?;
    parse_args(&text, path.extension().is_some_and(|e| e == "json"))
        .map_err(|e| format!("--args {}: {e}", path.display()))
}

/// [`read_args_file`] on the file's text: read straight into the table of tables of
/// strings (no generic TOML tree: the release binary has a size budget).
pub(super) fn parse_args(text: &str, is_json: bool) -> Result<GivenArgs, String> {
    const SHAPE: &str = "write a table per prompt of string values, e.g. \
        [translate] text = \"Hallo\" (TOML) or {\"translate\": {\"text\": \"Hallo\"}} (JSON)";
    if is_json {
        serde_json::from_str(text).map_err(|e| format!("{e}: {SHAPE}"))
    } else {
        toml::from_str(text).map_err(|e| {
            format!(
                "{} ({SHAPE}; a name ending in .json is read as JSON)",
                crate::text::one_line(e.message())
            )
        })
    }
}

/// The era's heading line.
fn era_line(era: &EraReport) -> String {
    match (&era.version, &era.unreachable) {
        (Some(version), _) => format!("era {}: answered with protocol {version}", era.era),
        (None, why) => format!(
            "era {}: did not answer ({})",
            era.era,
            why.as_deref().unwrap_or("no reason given")
        ),
    }
}

/// The check's cell in the table.
fn cell(check: Option<&Check>) -> &'static str {
    check.map_or("-", |c| c.verdict.word())
}

/// The report as text: per era, its list checks, then a table of prompts × checks, each
/// fail or skip with its reason under its row, then what each export loses.
pub(super) fn text(server: &str, eras: &[EraReport]) -> String {
    let mut out = format!("mcpick test {server}\n");
    for era in eras {
        out.push('\n');
        out.push_str(&era_line(era));
        out.push('\n');
        if era.version.is_none() {
            continue;
        }
        for check in &era.checks {
            out.push_str(&format!(
                "  {:<17} {}{}\n",
                check.rule,
                check.verdict.word(),
                reason_suffix(check)
            ));
        }
        for warning in &era.warnings {
            out.push_str(&format!("  mcpick left out: {warning}\n"));
        }
        out.push_str(&prompt_table(&era.prompts));
    }
    let violations = count(eras, Verdict::Fail);
    out.push_str(&format!(
        "\n{}\n",
        match violations {
            0 => "no spec violation found".to_string(),
            n => format!(
                "{}: exit 1",
                crate::text::counted(n, "spec violation", "spec violations")
            ),
        }
    ));
    out
}

fn reason_suffix(check: &Check) -> String {
    if check.reason.is_empty() {
        String::new()
    } else if check.verdict == Verdict::Pass {
        format!("  {}", crate::text::one_line(&check.reason))
    } else {
        format!(
            "  {} [{}]",
            crate::text::one_line(&check.reason),
            check.spec
        )
    }
}

/// The columns of the prompt table, in order.
const COLUMNS: [&str; 6] = [
    "get",
    "required",
    "resultType",
    "roles",
    "content",
    "exports",
];

fn prompt_table(prompts: &[PromptReport]) -> String {
    if prompts.is_empty() {
        return "  (no prompts listed)\n".to_string();
    }
    let names: Vec<String> = prompts
        .iter()
        .map(|p| {
            let name = crate::text::cut_chars(&crate::text::one_line(&p.name), 32);
            if p.skill {
                format!("{name} (skill)")
            } else {
                name
            }
        })
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = format!("  {}", crate::text::pad_right("prompt", width));
    for column in COLUMNS {
        out.push_str(&format!("  {column}"));
    }
    out.push('\n');
    for (prompt, name) in prompts.iter().zip(&names) {
        let mut row = format!("  {}", crate::text::pad_right(name, width));
        for column in COLUMNS {
            let word = if column == "exports" {
                exports_cell(prompt)
            } else {
                cell(prompt.checks.iter().find(|c| c.rule == column))
            };
            row.push_str(&format!("  {}", crate::text::pad_right(word, column.len())));
        }
        out.push_str(row.trim_end());
        out.push('\n');
        for (argument, value, from) in &prompt.arguments {
            if *from != ValueFrom::ArgsFile {
                out.push_str(&format!(
                    "      {argument} = {:?} ({})\n",
                    crate::text::cut_chars(&crate::text::one_line(value), 40),
                    from.word()
                ));
            }
        }
        // A rule its era lacks is said once, in the era's checks above; no required
        // argument is plain from the table.
        let worth_saying = |c: &&Check| {
            c.verdict != Verdict::Pass && c.reason != NOT_THIS_ERA && c.reason != NO_REQUIRED
        };
        for check in prompt.checks.iter().filter(worth_saying) {
            out.push_str(&format!(
                "      {} {}: {} [{}]\n",
                check.rule,
                check.verdict.word(),
                crate::text::one_line(&check.reason),
                check.spec
            ));
        }
        for (format, losses) in &prompt.exports {
            for loss in losses {
                out.push_str(&format!(
                    "      {format} export: {}\n",
                    crate::text::one_line(loss)
                ));
            }
        }
    }
    out
}

/// `whole` when every format carries the messages whole, else how many change them.
fn exports_cell(prompt: &PromptReport) -> &'static str {
    match (
        &prompt.messages,
        prompt.exports.iter().any(|(_, l)| !l.is_empty()),
    ) {
        (None, _) => "-",
        (Some(_), false) => "whole",
        (Some(_), true) => "losses",
    }
}

fn count(eras: &[EraReport], verdict: Verdict) -> usize {
    eras.iter()
        .flat_map(|e| {
            e.checks
                .iter()
                .chain(e.prompts.iter().flat_map(|p| &p.checks))
        })
        .filter(|c| c.verdict == verdict)
        .count()
}

fn check_json(check: &Check) -> Value {
    json!({
        "rule": check.rule,
        "verdict": check.verdict.word().to_ascii_lowercase(),
        "reason": check.reason,
        "spec": check.spec,
    })
}

/// The report as one JSON object (docs/testing-servers.md has its fields).
pub(super) fn json(server: &str, eras: &[EraReport]) -> String {
    let eras: Vec<Value> = eras
        .iter()
        .map(|era| {
            let prompts: Vec<Value> = era
                .prompts
                .iter()
                .map(|p| {
                    json!({
                        "name": p.name,
                        "kind": if p.skill { "skill" } else { "prompt" },
                        "arguments": p.arguments.iter().map(|(name, value, from)| json!({
                            "name": name, "value": value, "from": from.word(),
                        })).collect::<Vec<_>>(),
                        "checks": p.checks.iter().map(check_json).collect::<Vec<_>>(),
                        "exports": p.exports.iter().map(|(f, l)| (f.to_string(), json!(l)))
                            .collect::<serde_json::Map<_, _>>(),
                    })
                })
                .collect();
            json!({
                "era": era.era,
                "answered": era.version.is_some(),
                "protocolVersion": era.version,
                "error": era.unreachable,
                "checks": era.checks.iter().map(check_json).collect::<Vec<_>>(),
                "warnings": era.warnings,
                "prompts": prompts,
            })
        })
        .collect();
    let report = json!({
        "server": server,
        "violations": count_json(&eras),
        "eras": eras,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    )
}

fn count_json(eras: &[Value]) -> usize {
    let mut n = 0;
    for era in eras {
        let era_checks = era["checks"].as_array().into_iter().flatten();
        let prompt_checks = (era["prompts"].as_array().into_iter().flatten())
            .flat_map(|p| p["checks"].as_array().into_iter().flatten());
        n += era_checks
            .chain(prompt_checks)
            .filter(|c| c["verdict"] == "fail")
            .count();
    }
    n
}

/// A prompt's snapshot file name: its name where that is a plain file name, else its safe
/// letters and a digest of the whole name (so two names never share a file).
pub(super) fn snapshot_name(prompt: &str) -> String {
    use sha2::{Digest, Sha256};
    let safe: String = prompt
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    if safe == prompt && !prompt.starts_with('.') && !prompt.is_empty() {
        return format!("{prompt}.json");
    }
    let digest = Sha256::digest(prompt.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}.json", safe.trim_start_matches('.'))
}

/// Writes `DIR/ERA/PROMPT.json` for each prompt filled: its messages as MCP JSON, with
/// the description, pretty-printed, ending in a newline.
pub(super) fn write_snapshots(dir: &Path, eras: &[EraReport]) -> Result<(), String> {
    for era in eras {
        let folder: PathBuf = dir.join(era.era);
        for prompt in &era.prompts {
            let Some(messages) = &prompt.messages else {
                continue;
            };
            std::fs::create_dir_all(&folder)
                .map_err(|e| format!("--snapshot: cannot create {}: {e}", folder.display()))?;
            let path = folder.join(snapshot_name(&prompt.name));
            // Through a JSON tree, whose pretty printer the exports already have.
            let tree = serde_json::to_value(messages).unwrap_or_default();
            let body = serde_json::to_string_pretty(&tree).unwrap_or_default() + "\n";
            std::fs::write(&path, body)
                .map_err(|e| format!("--snapshot: cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_files_are_toml_or_json_tables_of_strings() {
        let toml = parse_args("[translate]\ntext = \"Hallo\"\nto = \"English\"\n", false).unwrap();
        assert_eq!(toml["translate"]["to"], "English");
        let json = parse_args(r#"{"translate": {"text": "Hallo"}}"#, true).unwrap();
        assert_eq!(json["translate"]["text"], "Hallo");
        let number = parse_args("[translate]\ncount = 3\n", false).unwrap_err();
        assert!(number.contains("invalid type: integer"), "{number}");
        assert!(
            number.contains("write a table per prompt of string values"),
            "{number}"
        );
        let flat = parse_args("text = \"x\"", false).unwrap_err();
        assert!(flat.contains("invalid type"), "{flat}");
        assert!(
            parse_args("[[", false)
                .unwrap_err()
                .contains("a name ending in .json")
        );
        let json = parse_args(r#"{"translate": {"text": 1}}"#, true).unwrap_err();
        assert!(json.contains("invalid type: integer"), "{json}");
    }

    #[test]
    fn snapshot_names_are_stable_and_never_clash() {
        assert_eq!(snapshot_name("code-review"), "code-review.json");
        let odd = snapshot_name("a/b");
        assert!(odd.starts_with("a_b-") && odd.ends_with(".json"), "{odd}");
        assert_ne!(snapshot_name("a/b"), snapshot_name("a:b"));
        assert_eq!(snapshot_name("a/b"), odd);
        assert!(!snapshot_name("../x").contains(".."));
        assert!(!snapshot_name("").is_empty());
    }
}
