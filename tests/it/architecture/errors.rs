//! Errors a caller could branch on are enums: `Result<…, String>` and `McpError::Protocol`
//! stay only in the files listed here, each with its count and why
//! (docs/architecture.md, "Errors").

use std::collections::BTreeSet;
use std::path::Path;

use super::{blank_non_code, code_of, house};

/// The places that build a `Result<…, String>` (its error type is `String` at the top
/// level) in `code` (blanked by [`blank_non_code`]): one per `Result<` whose last
/// argument is `String`, nested ones counted on their own.
fn string_results(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut found = 0;
    let mut from = 0;
    while let Some(at) = code[from..].find("Result<").map(|k| from + k) {
        from = at + "Result<".len();
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        // The arguments up to the matching `>` (an arrow's `>` is no bracket).
        let mut depth = 1usize;
        let mut last_comma = from;
        let mut end = None;
        for (k, &b) in bytes.iter().enumerate().skip(from) {
            match b {
                b'<' | b'(' | b'[' => depth += 1,
                b'>' if bytes[k - 1] == b'-' => {}
                b'>' | b')' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k);
                        break;
                    }
                }
                b',' if depth == 1 => last_comma = k + 1,
                b';' | b'{' | b'}' => break,
                _ => {}
            }
        }
        if let Some(end) = end
            && last_comma > from
            && code[last_comma..end].trim() == "String"
        {
            found += 1;
        }
    }
    found
}

/// `McpError::Protocol(` in `code` (blanked): the catch-all for what no caller tells
/// apart.
fn protocol_errors(code: &str) -> usize {
    code.matches("McpError::Protocol(").count()
}

/// Files of `src/` that may still build `Result<…, String>`, how many times, and why: the
/// error is words made to be shown where they are made, and nothing branches on them (a
/// parse error at the edge, a message another process prints, a value clap shows). An
/// error a caller could branch on is an enum (docs/architecture.md, "Errors").
const STRING_ERRORS_ALLOWED: &[(&str, usize, &str)] = &[
    (
        "app/draft.rs",
        1,
        "app: status-line words (the menu's owner moves app/)",
    ),
    ("app/form.rs", 2, "app: status-line words"),
    ("app/history.rs", 1, "app: status-line words"),
    ("app/images.rs", 5, "app: status-line words"),
    (
        "app/keys.rs",
        1,
        "app: a key's parse error, shown with the config",
    ),
    (
        "app/msg.rs",
        8,
        "app: results the runner hands over to be shown",
    ),
    (
        "app/questions.rs",
        2,
        "app: an answer refused, shown in the form",
    ),
    ("app/review.rs", 2, "app: status-line words"),
    ("app/update/audio.rs", 1, "app: status-line words"),
    ("app/update/export.rs", 1, "app: status-line words"),
    ("app/update/files.rs", 1, "app: status-line words"),
    ("app/update/servers.rs", 2, "app: status-line words"),
    ("audio.rs", 1, "the player command's words, shown"),
    (
        "cli/args.rs",
        8,
        "NAME=VALUE parse errors, shown as usage errors",
    ),
    ("cli/connect.rs", 1, "a command's outcome, printed"),
    (
        "cli/server_test/checks.rs",
        1,
        "a server's refusal as its words, for the report",
    ),
    (
        "cli/server_test/report.rs",
        3,
        "--args and --snapshot's usage errors, printed",
    ),
    (
        "cli/lock.rs",
        2,
        "lock's command-line words (a usage error) and an example's failure, printed in the report",
    ),
    ("cli/popup.rs", 1, "a clap value parser"),
    (
        "cli/questions.rs",
        3,
        "a typed answer refused, the prompt shows why",
    ),
    ("cli/serve.rs", 2, "clap value parsers"),
    (
        "config/import/mod.rs",
        2,
        "a dialect name and the TOML merge: parse errors, shown",
    ),
    (
        "export/clipboard.rs",
        1,
        "the holder's words cross a pipe as text",
    ),
    (
        "library/hints.rs",
        1,
        "a duration's parse error, shown with its file",
    ),
    (
        "library/native.rs",
        1,
        "a template line's parse error, shown with its line",
    ),
    (
        "library/skills.rs",
        1,
        "a skill folder's refusal, shown with it",
    ),
    (
        "lock/file.rs",
        1,
        "a hand-edited digest, a parse error shown at the file's line",
    ),
    (
        "mcp/client/mrtr.rs",
        1,
        "a question's schema refused in words, shown",
    ),
    ("mcp/server/router.rs", 1, "serve's end, printed"),
    ("mcp/server/service.rs", 1, "serve's end, printed"),
    (
        "mcp/skill_verify.rs",
        3,
        "a skill entry refused, shown as a warning",
    ),
    ("search.rs", 1, "a clap value parser (SERVER/PROMPT)"),
    (
        "tui/mod.rs",
        8,
        "the runner's end, printed once the terminal is back",
    ),
    (
        "tui/terminal.rs",
        3,
        "a clap value parser; the terminal's end, printed",
    ),
];

/// Files that may still name `McpError::Protocol` (built or matched), how many times,
/// and why.
const PROTOCOL_ERRORS_ALLOWED: &[(&str, usize, &str)] = &[
    ("mcp/error.rs", 4, "masking and hiding match and rebuild it"),
    (
        "mcp/client/connection.rs",
        2,
        "an SDK error of no other kind; an era check",
    ),
    (
        "mcp/client/connection/connect.rs",
        1,
        "a match arm: the discover fallback",
    ),
    ("mcp/client/connection/lists.rs", 1, "no Skills extension"),
    (
        "mcp/client/connection/requests.rs",
        3,
        "no question waiting, not sent, no completions",
    ),
];

/// Each file's count of what `count` finds in its code outside tests, against `allowed`:
/// the files over their count (or not listed), and those under it (to strike off).
fn over_and_under(
    count: impl Fn(&str) -> usize,
    allowed: &[(&str, usize, &str)],
) -> (Vec<String>, Vec<String>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (modules, _) = house(&src);
    let (mut over, mut under) = (Vec::new(), Vec::new());
    let mut seen = BTreeSet::new();
    for path in modules.values() {
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let found = count(&blank_non_code(&code_of(&text)));
        let most = allowed
            .iter()
            .find(|(file, ..)| *file == name)
            .map_or(0, |(_, most, _)| *most);
        seen.insert(name.clone());
        if found > most {
            over.push(format!("{name}: {found} (allowed {most})"));
        } else if found < most {
            under.push(format!("(\"{name}\", {found}, …)"));
        }
    }
    under.extend(
        allowed
            .iter()
            .filter(|(file, ..)| !seen.contains(*file))
            .map(|(file, ..)| format!("{file}: no such file")),
    );
    (over, under)
}

#[test]
fn errors_a_caller_could_branch_on_are_typed() {
    let (over, under) = over_and_under(string_results, STRING_ERRORS_ALLOWED);
    assert!(
        over.is_empty(),
        "`Result<…, String>` where an error could be branched on: give it an enum of its \
         module's errors (thiserror), or, if it is only words made to be shown, list the \
         file in STRING_ERRORS_ALLOWED with why: {over:#?}"
    );
    assert!(
        under.is_empty(),
        "fewer `Result<…, String>` than STRING_ERRORS_ALLOWED allows: lower the count: \
         {under:#?}"
    );
    let (over, under) = over_and_under(protocol_errors, PROTOCOL_ERRORS_ALLOWED);
    assert!(
        over.is_empty(),
        "`McpError::Protocol` for a case of its own: give it a variant of McpError, or list \
         the file in PROTOCOL_ERRORS_ALLOWED with why: {over:#?}"
    );
    assert!(
        under.is_empty(),
        "fewer `McpError::Protocol` than PROTOCOL_ERRORS_ALLOWED allows: lower the count: \
         {under:#?}"
    );
}

#[test]
fn the_string_error_check_sees_each_result_of_string() {
    let code = "fn a() -> Result<(), String> {}\n\
                fn b() -> Result<Result<Vec<u8>, String>, Error> {}\n\
                fn c(f: &dyn Fn() -> Result<u8, String>) -> Result<String, Error> {}\n\
                fn d() -> io::Result<String> {}\n\
                fn e() -> MyResult<u8, String> {}";
    assert_eq!(string_results(code), 3);
    assert_eq!(
        protocol_errors("McpError::Protocol(x); McpError::Protocols"),
        1
    );
}
