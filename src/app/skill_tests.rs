//! Skills (SEP-2640) in the menu, the form and the review, driven through `update`.

use super::tests::{details, key, prompt, type_text};
use super::*;
use crate::mcp::skill_verify::{self, sha256_digest};
use crate::mcp::{GetOutcome, McpError, McpEvent};
use crate::model::skill_manifest::{SkillFile, SkillManifest};
use crate::model::{EmbeddedResource, KnownContent, PromptArg};
use crossterm::event::KeyCode;

pub(crate) const REVIEW_MD: &str =
    "---\nname: review\ndescription: Review a change\n---\nRead the diff.\n";
pub(crate) const GUIDE: &str = "Be kind.\n";

/// The skill `name` of server `server`, listing `files` (URI, content) besides SKILL.md.
pub(crate) fn skill(
    server: &str,
    name: &str,
    description: &str,
    files: &[(&str, &str)],
) -> PromptInfo {
    let uri = format!("skill://{name}/SKILL.md");
    let body = format!("---\nname: {name}\ndescription: {description}\n---\nRead the diff.\n");
    let mut listed = vec![SkillFile {
        uri: uri.clone(),
        digest: sha256_digest(body.as_bytes()),
        size: Some(body.len() as u64),
    }];
    listed.extend(files.iter().map(|(path, text)| SkillFile {
        uri: format!("skill://{name}/{path}"),
        digest: sha256_digest(text.as_bytes()),
        size: Some(text.len() as u64),
    }));
    let mut frontmatter = serde_json::Map::new();
    frontmatter.insert("name".into(), name.into());
    frontmatter.insert("description".into(), description.into());
    PromptInfo {
        server: server.into(),
        name: name.into(),
        title: None,
        description: Some(description.into()),
        arguments: vec![PromptArg {
            name: skill_verify::TASK_ARGUMENT.into(),
            title: Some("Task".into()),
            description: Some("what to apply the skill to".into()),
            required: false,
        }],
        skill: Some(Box::new(SkillManifest {
            uri,
            frontmatter,
            files: Some(listed),
        })),
        mirrors_skill: None,
    }
}

/// An app with server `served`: the prompt `hello`, the skill `review` (one supporting
/// file) and the skill `lint`.
pub(crate) fn skills_app() -> App {
    let mut app = App::new(
        vec!["served".into()],
        Options::default(),
        KeyMap::default(),
        History::default(),
    );
    let mut with_skills = details(false);
    with_skills.skills = true;
    with_skills.resources = true;
    app.update(Msg::Mcp(McpEvent::Ready {
        server: "served".into(),
        details: with_skills,
        prompts: vec![
            prompt("served", "hello", vec![]),
            skill(
                "served",
                "review",
                "Review a change",
                &[("references/GUIDE.md", GUIDE)],
            ),
            skill("served", "lint", "Lint the code", &[]),
        ],
    }));
    app
}

/// Picks `/served:review`, submits the task `task`, and answers with the skill's messages.
fn review_of_skill(task: &str) -> App {
    let mut app = skills_app();
    type_text(&mut app, "review");
    app.update(key(KeyCode::Enter));
    type_text(&mut app, task);
    let effects = app.update(key(KeyCode::Enter));
    let Some(Effect::Fetch {
        id,
        skill: Some(manifest),
        ..
    }) = effects.first()
    else {
        panic!("no skill fetch in {effects:?}");
    };
    let messages = skill_verify::skill_messages(
        "served",
        manifest,
        REVIEW_MD,
        skill_verify::Verification::Verified,
        Vec::new(),
        Some(task),
        // What the runner passes: the task filled in as the prompt route fills it.
        crate::library::skills::fill_skill,
    );
    let id = *id;
    app.update(Msg::Fetched {
        id,
        result: Ok(GetOutcome::Messages(messages)),
    });
    app
}

#[test]
fn a_skill_is_found_by_its_description_and_opens_a_one_field_form_that_reads_nothing() {
    let mut app = skills_app();
    // Listing read nothing of any skill: only picking does.
    let effects = type_text(&mut app, "change");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(app.selected_entry().unwrap().slash_name, "served:review");
    let effects = app.update(key(KeyCode::Enter));
    assert!(
        !effects.iter().any(|e| matches!(
            e,
            Effect::Fetch { .. } | Effect::ReadResource { .. } | Effect::Complete { .. }
        )),
        "opening the form fetches nothing: {effects:?}"
    );
    let Screen::Form(form) = &app.screen else {
        panic!("expected the form");
    };
    assert_eq!(form.fields.len(), 1);
    assert_eq!(form.fields[0].arg.name, "task");
    assert_eq!(form.fields[0].value(), "");
}

#[test]
fn enter_on_an_empty_task_loads_the_skill_without_one() {
    let mut app = skills_app();
    type_text(&mut app, "review");
    app.update(key(KeyCode::Enter));
    let effects = app.update(key(KeyCode::Enter));
    let [
        Effect::Fetch {
            server,
            prompt,
            arguments,
            skill: Some(manifest),
            ..
        },
    ] = &effects[..]
    else {
        panic!("{effects:?}");
    };
    assert_eq!((server.as_str(), prompt.as_str()), ("served", "review"));
    assert_eq!(manifest.uri, "skill://review/SKILL.md");
    assert_eq!(arguments.get("task").map(String::as_str).unwrap_or(""), "");
}

#[test]
fn a_refused_skill_shows_the_file_on_the_form_and_lists_the_server_again() {
    let mut app = skills_app();
    type_text(&mut app, "review");
    app.update(key(KeyCode::Enter));
    let effects = app.update(key(KeyCode::Enter));
    let Some(Effect::Fetch { id, .. }) = effects.first() else {
        panic!("{effects:?}");
    };
    let refusal = skill_verify::SkillCheckError {
        uri: "skill://review/SKILL.md".into(),
        problem: "its sha256 digest is sha256:00, the manifest says sha256:11".into(),
    };
    let effects = app.update(Msg::Fetched {
        id: *id,
        result: Err(McpError::SkillRefused(refusal.advice())),
    });
    assert_eq!(
        effects,
        vec![Effect::Relist {
            server: "served".into()
        }]
    );
    let Screen::Form(form) = &app.screen else {
        panic!("expected the form again");
    };
    let error = form.error.as_deref().unwrap();
    assert!(error.contains("skill://review/SKILL.md"), "{error}");
    assert!(error.contains("Nothing of the skill was used"), "{error}");
}

#[test]
fn the_review_holds_the_instructions_with_the_task_and_a_link_per_file() {
    let app = review_of_skill("check PR 7");
    let Screen::Review(review) = &app.screen else {
        panic!("expected the review");
    };
    let kinds: Vec<&str> = review
        .items
        .iter()
        .map(|i| i.message().content.kind())
        .collect();
    assert_eq!(kinds, ["text", "resource_link"]);
    let instructions = crate::app::editable_text(&review.items[0].message().content).unwrap();
    // The body without its front matter; no placeholder in it, so the task ends it as
    // Claude Code adds it.
    assert!(
        instructions.ends_with(
            "resolve against skill://review/.\n\nRead the diff.\n\nARGUMENTS: check PR 7"
        ),
        "{instructions}"
    );
    assert!(
        !instructions.contains("description: Review"),
        "{instructions}"
    );
}

fn read_guide(app: &mut App, text: &str) -> Vec<Effect> {
    app.update(key(KeyCode::Down));
    let effects = app.update(key(KeyCode::Char('o')));
    let [Effect::ReadResource { id, uri, .. }] = &effects[..] else {
        panic!("{effects:?}");
    };
    assert_eq!(uri, "skill://review/references/GUIDE.md");
    let (id, uri) = (*id, uri.clone());
    app.update(Msg::ResourceRead {
        id,
        result: Ok(vec![EmbeddedResource::Text {
            uri,
            mime_type: Some("text/markdown".into()),
            text: text.into(),
            meta: None,
        }]),
    })
}

#[test]
fn o_embeds_a_supporting_file_only_when_it_matches_the_manifest() {
    let mut app = review_of_skill("");
    read_guide(&mut app, "Be cruel.\n");
    let flash = app.flash.as_ref().unwrap().text.clone();
    assert!(flash.contains("Not attached"), "{flash}");
    assert!(
        flash.contains("skill://review/references/GUIDE.md"),
        "{flash}"
    );
    let Screen::Review(review) = &app.screen else {
        panic!("expected the review");
    };
    assert_eq!(review.items[1].message().content.kind(), "resource_link");

    let mut app = review_of_skill("");
    read_guide(&mut app, GUIDE);
    let flash = app.flash.as_ref().unwrap().text.clone();
    assert!(flash.contains("sha256 verified"), "{flash}");
    let Screen::Review(review) = &app.screen else {
        panic!("expected the review");
    };
    assert!(matches!(
        &review.items[1].message().content,
        crate::model::Content::Known(KnownContent::Resource { .. })
    ));
}

#[test]
fn a_skill_form_follows_its_skill_not_a_prompt_of_the_same_name() {
    let mut app = skills_app();
    type_text(&mut app, "review");
    app.update(key(KeyCode::Enter));
    // The server now lists a prompt `review` too, before the skill (as `mcpick serve`
    // does for a skill folder), and the skill with an updated manifest.
    let mut updated = skill(
        "served",
        "review",
        "Review a change",
        &[("references/GUIDE.md", "Be brief.\n")],
    );
    updated.description = Some("Review a change".into());
    app.update(Msg::Mcp(McpEvent::PromptsChanged {
        server: "served".into(),
        prompts: vec![
            prompt("served", "review", vec![]),
            updated.clone(),
            skill("served", "lint", "Lint the code", &[]),
        ],
    }));
    let Screen::Form(form) = &app.screen else {
        panic!("expected the form");
    };
    assert!(!form.gone);
    assert_eq!(
        form.prompt.skill, updated.skill,
        "the form holds the current manifest"
    );
    let effects = app.update(key(KeyCode::Enter));
    assert!(
        matches!(&effects[..], [Effect::Fetch { skill: Some(m), .. }] if Some(m) == updated.skill.as_ref()),
        "{effects:?}"
    );
}

#[test]
fn a_skill_keeps_its_manifest_through_drafts_and_the_catalog() {
    // Drafts and the catalog store `PromptInfo` as JSON: a restored skill is still one,
    // so `o` in a restored review still verifies against its manifest.
    let review = skill(
        "served",
        "review",
        "Review a change",
        &[("references/GUIDE.md", GUIDE)],
    );
    let stored = serde_json::to_string(&review).unwrap();
    let restored: PromptInfo = serde_json::from_str(&stored).unwrap();
    assert_eq!(restored, review);
    assert_eq!(restored.kind(), crate::model::EntryKind::Skill);
    // A prompt stored before skills existed reads back as a prompt.
    let old: PromptInfo = serde_json::from_str(
        r#"{"server":"s","name":"p","title":null,"description":null,"arguments":[]}"#,
    )
    .unwrap();
    assert_eq!(old.kind(), crate::model::EntryKind::Prompt);
}
