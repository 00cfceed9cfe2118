//! The lockfile's format, digests and diffs.

use super::{
    DefinitionChange, LockedExample, LockedPrompt, LockedServer, LockedSkill, Lockfile, line_diff,
    messages_text,
};
use crate::model::skill_manifest::{SkillFile, SkillManifest};
use crate::model::{Content, Message, PromptArg, PromptInfo, PromptMessages, Role};
use std::collections::BTreeMap;

fn arg(name: &str, required: bool) -> PromptArg {
    PromptArg {
        name: name.into(),
        title: None,
        description: Some(format!("the {name}")),
        required,
    }
}

fn prompt(name: &str, arguments: Vec<PromptArg>) -> PromptInfo {
    PromptInfo {
        server: "s".into(),
        name: name.into(),
        title: Some("Translate".into()),
        description: Some("Translate a text\ninto another language".into()),
        arguments,
        skill: None,
        mirrors_skill: None,
    }
}

fn skill(files: &[(&str, &str)]) -> SkillManifest {
    let mut frontmatter = serde_json::Map::new();
    frontmatter.insert("name".into(), "refunds".into());
    frontmatter.insert("description".into(), "Refund a payment".into());
    SkillManifest {
        uri: "skill://refunds/SKILL.md".into(),
        frontmatter,
        files: Some(
            files
                .iter()
                .map(|(path, digest)| SkillFile {
                    uri: format!("skill://refunds/{path}"),
                    digest: (*digest).into(),
                    size: None,
                })
                .collect(),
        ),
    }
}

fn messages(text: &str) -> PromptMessages {
    PromptMessages {
        description: None,
        messages: vec![Message {
            role: Role::User,
            content: Content::text(text),
        }],
    }
}

fn details() -> crate::model::ServerDetails {
    crate::model::ServerDetails {
        transport: "stdio".into(),
        protocol_version: "2026-07-28".into(),
        server_name: Some("mcpick".into()),
        server_version: Some("0.1.0".into()),
        prompts: true,
        prompts_list_changed: false,
        completions: false,
        resources: false,
        skills: true,
        capabilities: serde_json::json!({}),
        served_problems: Vec::new(),
    }
}

fn sample() -> Lockfile {
    let mut refunds = prompt("refunds", Vec::new());
    refunds.skill = Some(Box::new(skill(&[
        ("SKILL.md", "sha256:aa"),
        ("references/policy.md", "sha256:bb"),
    ])));
    let listed = vec![
        prompt("translate", vec![arg("text", true), arg("to", false)]),
        prompt("a \"quoted\" name", Vec::new()),
        refunds,
    ];
    let mut server = LockedServer::from_listing(&details(), &listed);
    let example_args = BTreeMap::from([("text".to_string(), "Hallo".to_string())]);
    let example = LockedExample::rendered(example_args, &messages("Hallo\nWelt"), true);
    server
        .prompts
        .get_mut("translate")
        .expect("listed")
        .examples
        .push(example);
    Lockfile {
        version: 1,
        servers: BTreeMap::from([("builtin".to_string(), server)]),
    }
}

#[test]
fn a_lockfile_reads_back_as_it_was_written() {
    let lockfile = sample();
    let text = lockfile.to_toml();
    assert_eq!(Lockfile::parse(&text), Ok(lockfile.clone()));
    // The same input, the same bytes.
    assert_eq!(sample().to_toml(), text);
    assert!(text.contains("version = 1\n"), "{text}");
    assert!(
        text.contains("[servers.builtin.prompts.translate]"),
        "{text}"
    );
    assert!(
        text.contains("[servers.builtin.skills.refunds.files]"),
        "{text}"
    );
    // The rendered text is kept as lines a diff can show.
    assert!(text.contains("Hallo\nWelt"), "{text}");
}

#[test]
fn an_unreadable_lockfile_says_where_and_what_to_do() {
    let error = Lockfile::parse("version = 1\n[servers.x]\nprotocol_version = \n").unwrap_err();
    assert_eq!((error.line, error.column), (3, 20), "{error}");
    let error = Lockfile::parse("version = 7\n").unwrap_err();
    assert!(error.message.contains("upgrade mcpick"), "{error}");
    let error = Lockfile::parse("[servers]\n").unwrap_err();
    assert!(error.message.contains("version = 1"), "{error}");
    let error = Lockfile::parse("version = 1\nsurprise = true\n").unwrap_err();
    assert!(error.message.contains("surprise"), "{error}");
}

#[test]
fn a_definition_edited_by_hand_is_refused_by_its_digest() {
    let text = sample().to_toml().replace("the text", "the whole text");
    let error = Lockfile::parse(&text).unwrap_err();
    assert!(error.message.contains("`translate`"), "{error}");
    assert!(error.message.contains("mcpick lock"), "{error}");
}

#[test]
fn the_same_definition_has_no_changes() {
    let lockfile = sample();
    let locked = lockfile.prompt("builtin", "translate").expect("locked");
    let listed = prompt("translate", vec![arg("text", true), arg("to", false)]);
    assert_eq!(locked.definition_changes(&listed), Vec::new());
    assert_eq!(locked.digest, LockedPrompt::from_info(&listed).digest);
}

#[test]
fn argument_changes_are_named_one_line_each() {
    let lockfile = sample();
    let locked = lockfile.prompt("builtin", "translate").expect("locked");
    let listed = prompt(
        "translate",
        vec![arg("text", true), arg("to", true), arg("tone", true)],
    );
    let lines: Vec<String> = locked
        .definition_changes(&listed)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "argument `to` is now required",
            "argument `tone` added (required)"
        ]
    );
    let mut gone = prompt("translate", vec![arg("text", true)]);
    gone.title = Some("Über\u{1b}[31msetzen".into());
    let lines: Vec<String> = locked
        .definition_changes(&gone)
        .iter()
        .map(ToString::to_string)
        .collect();
    // Server text quoted, its escape shown, not sent.
    assert_eq!(
        lines,
        [
            "title: \"Translate\" → \"Über␛[31msetzen\"",
            "argument `to` removed"
        ]
    );
    let reordered = prompt("translate", vec![arg("to", false), arg("text", true)]);
    assert!(matches!(
        locked.definition_changes(&reordered).as_slice(),
        [DefinitionChange::ArgumentsReordered { .. }]
    ));
}

#[test]
fn a_changed_skill_file_is_named() {
    let lockfile = sample();
    let locked: &LockedSkill = lockfile.skill("builtin", "refunds").expect("locked");
    let now = skill(&[
        ("SKILL.md", "sha256:aa"),
        ("references/policy.md", "sha256:cc"),
        ("scripts/run.sh", "sha256:dd"),
    ]);
    let lines: Vec<String> = locked
        .definition_changes("refunds", &now)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "file `references/policy.md` changed (its digest differs)",
            "file `scripts/run.sh` added"
        ]
    );
}

#[test]
fn an_example_rendered_differently_shows_the_changed_line() {
    let lockfile = sample();
    let example = &lockfile
        .prompt("builtin", "translate")
        .expect("locked")
        .examples[0];
    assert_eq!(example.drift(&messages("Hallo\nWelt")), None);
    let drift = example.drift(&messages("Hallo\nWorld")).expect("drifted");
    assert_eq!(
        drift.diff.as_deref(),
        Some("@@ -1,3 +1,3 @@\n [user]\n Hallo\n-Welt\n+World\n")
    );
    // Without the text locked, only that it differs.
    let bare = LockedExample {
        output: None,
        ..example.clone()
    };
    assert_eq!(bare.drift(&messages("x")).expect("drifted").diff, None);
}

#[test]
fn a_line_diff_keeps_two_lines_of_context_and_splits_far_changes() {
    let old: String = (1..=20).map(|n| format!("line {n}\n")).collect();
    let new = old
        .replace("line 3\n", "line three\n")
        .replace("line 17\n", "");
    assert_eq!(
        line_diff(&old, &new),
        "@@ -1,5 +1,5 @@\n line 1\n line 2\n-line 3\n+line three\n line 4\n line 5\n\
         @@ -15,5 +15,4 @@\n line 15\n line 16\n-line 17\n line 18\n line 19\n"
    );
    assert_eq!(line_diff(&old, &old), "");
}

#[test]
fn messages_text_names_binary_content_by_digest() {
    let text = messages_text(&PromptMessages {
        description: None,
        messages: vec![
            Message {
                role: Role::User,
                content: Content::text("Look:"),
            },
            Message {
                role: Role::Assistant,
                content: Content::Known(crate::model::KnownContent::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into(),
                    annotations: None,
                    meta: None,
                }),
            },
        ],
    });
    assert!(text.starts_with("[user]\nLook:\n\n[assistant]\n(image image/png, sha256:"));
}

#[test]
fn a_new_server_version_is_told_as_identity_not_as_a_definition_change() {
    let locked = LockedServer::from_listing(&details(), &[]);
    let mut upgraded = details();
    upgraded.server_version = Some("0.2.0".into());
    let now = LockedServer::from_listing(&upgraded, &[]);
    assert_eq!(
        locked.identity_changes(&now),
        ["server version: \"0.1.0\" → \"0.2.0\""]
    );
    assert_eq!(locked.identity_changes(&locked), Vec::<String>::new());
}
