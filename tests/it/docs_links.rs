//! README.md and the pages in docs/ link to files and headings that exist, and README links
//! every page of docs/.
//!
//! A link is `[text](target)` (or an image, `![alt](target)`) outside code blocks and code
//! spans. A relative target must name an existing file, resolved from the linking file's
//! folder; a `#anchor` (alone, or after `file.md`) must be the slug of a heading of that file,
//! made as GitHub makes them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files checked: README.md, CONTRIBUTING.md and every docs/*.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("a docs/ folder")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The text outside fenced code blocks, lines kept in place (a fence line becomes empty).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        match &fence {
            Some(open) => {
                if marker.len() >= open.len()
                    && marker.starts_with(&open[..1])
                    && trimmed[marker.len()..].trim().is_empty()
                {
                    fence = None;
                }
                out.push('\n');
            }
            None if marker.len() >= 3
                && marker.chars().all(|c| c == marker.as_bytes()[0] as char) =>
            {
                fence = Some(marker);
                out.push('\n');
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Where the code span opening at `at` (a run of backticks) ends, just past its closing run;
/// `None` when it has no closing run before a blank line (then the backticks are literal).
fn code_span_end(chars: &[char], at: usize) -> Option<usize> {
    let run = chars[at..].iter().take_while(|&&c| c == '`').count();
    let mut i = at + run;
    while i < chars.len() {
        if chars[i] == '\n' && chars.get(i + 1) == Some(&'\n') {
            return None;
        }
        if chars[i] == '`' {
            let here = chars[i..].iter().take_while(|&&c| c == '`').count();
            if here == run {
                return Some(i + here);
            }
            i += here;
        } else {
            i += 1;
        }
    }
    None
}

/// Every link target of a Markdown text, with the line it is on.
fn links(text: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = prose(text).chars().collect();
    let line_of = |at: usize| chars[..at].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '`' => match code_span_end(&chars, i) {
                Some(end) => i = end,
                None => i += chars[i..].iter().take_while(|&&c| c == '`').count(),
            },
            '[' => {
                // The matching `]`, skipping code spans and nested brackets in the text.
                let mut depth = 1;
                let mut j = i + 1;
                while j < chars.len() && depth > 0 {
                    match chars[j] {
                        '\\' => j += 1,
                        '`' => {
                            if let Some(end) = code_span_end(&chars, j) {
                                j = end;
                                continue;
                            }
                        }
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                if depth == 0 && chars.get(j) == Some(&'(') {
                    let start = j + 1;
                    let mut end = start;
                    while end < chars.len() && chars[end] != ')' && chars[end] != '\n' {
                        end += 1;
                    }
                    if chars.get(end) == Some(&')') {
                        let target: String = chars[start..end].iter().collect();
                        // A title after the target (`(file.md "Title")`) is not part of it.
                        let target = target.split_whitespace().next().unwrap_or("").to_string();
                        found.push((line_of(i), target));
                        i = end + 1;
                        continue;
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    found
}

/// GitHub's anchor for a heading's text: lower case, punctuation dropped but for `-` and `_`,
/// spaces made `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || c == '-' || c == '_' || c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text's headings; a repeated slug gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text).lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let text = line[hashes..].trim().trim_end_matches('#').trim();
        let base = slug(text);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

fn is_external(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("mailto:")
}

/// What is wrong with each relative link of `page`, and the files it links.
fn check(page: &Path) -> (Vec<String>, BTreeSet<PathBuf>) {
    let text = std::fs::read_to_string(page).unwrap();
    let folder = page.parent().unwrap();
    let name = page
        .strip_prefix(root())
        .unwrap_or(page)
        .display()
        .to_string();
    let mut problems = Vec::new();
    let mut linked = BTreeSet::new();
    for (line, target) in links(&text) {
        if is_external(&target) {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor)),
            None => (target.as_str(), None),
        };
        let file_path = if file.is_empty() {
            page.to_path_buf()
        } else {
            folder.join(file)
        };
        if file.is_empty() && anchor.is_none() {
            problems.push(format!("{name}:{line}: an empty link target"));
            continue;
        }
        let Ok(resolved) = file_path.canonicalize() else {
            problems.push(format!(
                "{name}:{line}: `{target}`: no file {}",
                file_path.display()
            ));
            continue;
        };
        linked.insert(resolved.clone());
        if let Some(anchor) = anchor {
            if resolved.extension().is_none_or(|ext| ext != "md") {
                problems.push(format!(
                    "{name}:{line}: `{target}`: an anchor into a file that is not Markdown"
                ));
                continue;
            }
            let headings = anchors(&std::fs::read_to_string(&resolved).unwrap());
            if !headings.contains(anchor) {
                problems.push(format!(
                    "{name}:{line}: `{target}`: no heading with the anchor `#{anchor}` in {} (it has: {})",
                    resolved.strip_prefix(root().canonicalize().unwrap()).unwrap_or(&resolved).display(),
                    headings.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    (problems, linked)
}

#[test]
fn every_relative_link_names_an_existing_file_and_heading() {
    let mut problems = Vec::new();
    for page in pages() {
        problems.extend(check(&page).0);
    }
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn readme_links_every_docs_page() {
    let (_, linked) = check(&root().join("README.md"));
    let missing: Vec<String> = pages()
        .into_iter()
        .skip(1)
        .filter(|page| !linked.contains(&page.canonicalize().unwrap()))
        .map(|page| page.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "README.md does not link: {}",
        missing.join(", ")
    );
}

#[test]
fn readme_keeps_the_sections_newcomers_and_other_issues_rely_on() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let headings = anchors(&readme);
    for anchor in ["the-two-commands", "install"] {
        assert!(
            headings.contains(anchor),
            "README.md lost its section #{anchor}"
        );
    }
    // The ways out, which the CLI's help and other pages link to, live in docs/handoff.md.
    let handoff = std::fs::read_to_string(root().join("docs/handoff.md")).unwrap();
    let headings = anchors(&handoff);
    for anchor in [
        "getting-the-prompt-where-you-need-it",
        "the-clipboard",
        "paste-into-the-pane-you-came-from-tmux",
        "shell-widgets",
        "starting-and-ending-as-fzf-does",
        "inline---height",
    ] {
        assert!(
            headings.contains(anchor),
            "docs/handoff.md lost its section #{anchor}"
        );
    }
    // A newcomer reads the README in a few minutes: the details belong in docs/.
    let lines = readme.lines().count();
    assert!(
        lines < 300,
        "README.md has {lines} lines; move details into docs/"
    );
    assert!(readme.contains("cargo run --release") && readme.contains("./test.sh "));
    // CI runs the very command README gives for the whole suite.
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect("read .ci/run");
    assert!(
        ci.lines().any(|line| line.trim() == "./test.sh"),
        ".ci/run does not call ./test.sh"
    );
    let test_sh = std::fs::read_to_string(root().join("test.sh")).expect("read test.sh");
    assert!(test_sh.contains("cargo test --locked"), "{test_sh}");
}

#[test]
fn the_parser_reads_links_and_slugs_as_github_does() {
    let text = "# Inline: `--height`\n## Keys\n## Keys\n\nSee [`a` b](x.md#y) and \
                `[not](a link)` and ![img](pic.png \"t\").\n\n```\n[in](fence.md)\n```\n";
    let found: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["x.md#y", "pic.png"]);
    let headings = anchors(text);
    assert!(headings.contains("inline---height"));
    assert!(headings.contains("keys") && headings.contains("keys-1"));
    assert_eq!(
        slug("Servers that ask you to sign in (OAuth)"),
        "servers-that-ask-you-to-sign-in-oauth"
    );
}
