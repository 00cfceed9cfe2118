//! Tests of skill folders: parsing, files, digests and the folders a walk skips.

use std::collections::BTreeMap;
use std::fs;

use super::*;
use crate::library::load_paths;
use crate::model::{Content, KnownContent};

fn write(dir: &Path, relative: &str, bytes: &[u8]) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

const REVIEW: &str = "---\nname: review\ndescription: Review a change against the team checklist\nlicense: Apache-2.0\nmetadata:\n  version: \"1.2\"\n---\nReview $ARGUMENTS against references/checklist.md.\n";

/// SHA-256 of the three bytes `abc` (the FIPS 180-2 test vector).
const ABC_DIGEST: &str = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
/// SHA-256 of no bytes at all.
const EMPTY_DIGEST: &str =
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

fn review_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "review/SKILL.md", REVIEW.as_bytes());
    write(dir.path(), "review/references/checklist.md", b"abc");
    write(dir.path(), "review/assets/empty.txt", b"");
    dir
}

fn load_review(dir: &Path) -> Result<(SkillDef, PromptDef), LoadError> {
    let files = read_folder(&dir.join("review"), Path::new("review"))?;
    parse_skill("review", files, "review/SKILL.md")
}

fn error_of(result: Result<(SkillDef, PromptDef), LoadError>) -> String {
    match result {
        Ok((skill, _)) => panic!("served {}", skill.uri()),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_good_folder_is_every_file_with_its_digest_and_size() {
    let dir = review_folder();
    let (skill, prompt) = load_review(dir.path()).unwrap();
    assert_eq!(skill.name, "review");
    assert_eq!(skill.uri(), "skill://review/SKILL.md");
    assert_eq!(skill.root_uri(), "skill://review");
    let files: Vec<(String, String, usize)> = skill
        .files
        .iter()
        .map(|f| (skill.file_uri(f), f.digest.clone(), f.bytes.len()))
        .collect();
    assert_eq!(
        files,
        [
            (
                "skill://review/SKILL.md".into(),
                digest(REVIEW.as_bytes()),
                REVIEW.len()
            ),
            (
                "skill://review/assets/empty.txt".into(),
                EMPTY_DIGEST.into(),
                0
            ),
            (
                "skill://review/references/checklist.md".into(),
                ABC_DIGEST.into(),
                3
            ),
        ]
    );
    assert_eq!(skill.files[2].mime_type, "text/markdown");
    assert_eq!(prompt.name, "review");
    assert_eq!(
        prompt.description.as_deref(),
        Some("Review a change against the team checklist")
    );
}

#[test]
fn digests_are_sha256_of_the_raw_bytes_in_lowercase_hex() {
    assert_eq!(digest(b"abc"), ABC_DIGEST);
    assert_eq!(digest(b""), EMPTY_DIGEST);
    // Bytes that are not text are hashed as they are.
    assert_ne!(digest(&[0xff, 0xfe]), digest("\u{fffd}".as_bytes()));
}

#[test]
fn the_front_matter_is_kept_verbatim_as_json() {
    let dir = review_folder();
    let (skill, _) = load_review(dir.path()).unwrap();
    assert_eq!(
        Value::Object(skill.frontmatter),
        serde_json::json!({
            "name": "review",
            "description": "Review a change against the team checklist",
            "license": "Apache-2.0",
            "metadata": { "version": "1.2" },
        })
    );
}

#[test]
fn a_skill_md_without_front_matter_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "review/SKILL.md", b"Just review it.\n");
    let error = error_of(load_review(dir.path()));
    assert!(
        error.contains("review/SKILL.md:1: SKILL.md has no front matter"),
        "{error}"
    );
}

#[test]
fn front_matter_without_a_description_or_closed_by_dots_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "review/SKILL.md",
        b"---\nname: review\n---\nBody\n",
    );
    let error = error_of(load_review(dir.path()));
    assert!(error.contains("no `description`"), "{error}");

    write(
        dir.path(),
        "review/SKILL.md",
        b"---\nname: review\ndescription: d\n...\nBody\n",
    );
    let error = error_of(load_review(dir.path()));
    assert!(
        error.contains("end the front matter with a `---` line"),
        "{error}"
    );
}

#[test]
fn a_name_that_is_not_the_folders_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "review/SKILL.md",
        b"---\nname: code-review\ndescription: Reviews\n---\nBody\n",
    );
    let error = error_of(load_review(dir.path()));
    assert!(
        error.contains("named \"code-review\" but its folder is \"review\""),
        "{error}"
    );
}

#[test]
fn names_follow_the_agent_skills_rules() {
    for good in ["review", "pdf-processing", "a", "v2", &"a".repeat(64)] {
        assert!(is_valid_name(good), "{good}");
    }
    for bad in [
        "",
        "Review",
        "-review",
        "review-",
        "re--view",
        "re_view",
        "revíew",
        &"a".repeat(65),
    ] {
        assert!(!is_valid_name(bad), "{bad}");
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "Review/SKILL.md",
        b"---\nname: Review\ndescription: Reviews\n---\nBody\n",
    );
    let files = read_folder(&dir.path().join("Review"), Path::new("Review")).unwrap();
    let error = error_of(parse_skill("Review", files, "Review/SKILL.md"));
    assert!(
        error.contains("breaks the Agent Skills naming rules"),
        "{error}"
    );
}

#[test]
fn a_link_leaving_the_folder_refuses_it_and_one_inside_is_followed() {
    let dir = review_folder();
    write(dir.path(), "secret.txt", b"not the skill's");
    std::os::unix::fs::symlink(
        dir.path().join("review/references/checklist.md"),
        dir.path().join("review/again.md"),
    )
    .unwrap();
    let (skill, _) = load_review(dir.path()).unwrap();
    let again = skill.files.iter().find(|f| f.path == "again.md").unwrap();
    assert_eq!(again.digest, ABC_DIGEST);

    std::os::unix::fs::symlink(
        dir.path().join("secret.txt"),
        dir.path().join("review/leak.txt"),
    )
    .unwrap();
    let error = error_of(load_review(dir.path()));
    assert!(
        error.contains("`leak.txt` is a link leading out of the skill folder"),
        "{error}"
    );
}

#[test]
fn a_file_too_large_refuses_the_folder() {
    let dir = review_folder();
    let big = fs::File::create(dir.path().join("review/assets/huge.bin")).unwrap();
    big.set_len(MAX_SKILL_BYTES + 1).unwrap();
    let error = error_of(load_review(dir.path()));
    assert!(
        error.contains("`assets/huge.bin`: the skill's files would add up to more than 16 MiB"),
        "{error}"
    );
}

#[test]
fn folders_are_listed_one_level_at_a_time() {
    let dir = review_folder();
    write(dir.path(), "review/references/deep/more.md", b"more");
    let (skill, _) = load_review(dir.path()).unwrap();
    let skills = [skill];
    let names = |uri: &str| -> Vec<(String, String)> {
        directory(&skills, uri)
            .unwrap_or_else(|| panic!("{uri} is no folder"))
            .into_iter()
            .map(|e| (e.uri, e.mime_type))
            .collect()
    };
    assert_eq!(
        names("skill://review"),
        [
            (
                "skill://review/SKILL.md".to_string(),
                "text/markdown".to_string()
            ),
            ("skill://review/assets".into(), DIRECTORY_MIME_TYPE.into()),
            (
                "skill://review/references".into(),
                DIRECTORY_MIME_TYPE.into()
            ),
        ]
    );
    assert_eq!(
        names("skill://review/references"),
        [
            (
                "skill://review/references/checklist.md".to_string(),
                "text/markdown".to_string()
            ),
            (
                "skill://review/references/deep".into(),
                DIRECTORY_MIME_TYPE.into()
            ),
        ]
    );
    assert!(directory(&skills, "skill://review/SKILL.md").is_none());
    assert!(directory(&skills, "skill://review/").is_none());
    assert!(directory(&skills, "skill://nothing").is_none());
}

fn render_text(library: &crate::library::Library, name: &str, pairs: &[(&str, &str)]) -> String {
    let values: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let filled = library.render(name, &values).unwrap();
    match &filled.messages[0].content {
        Content::Known(KnownContent::Text { text, .. }) => text.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_served_folder_serves_its_skills_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        ".claude/skills/review/SKILL.md",
        REVIEW.as_bytes(),
    );
    write(
        dir.path(),
        ".claude/skills/review/references/checklist.md",
        b"abc",
    );
    // A prompt file inside a skill folder is the skill's file, not a prompt of its own.
    write(
        dir.path(),
        ".claude/skills/review/examples/x.prompt.md",
        b"Example",
    );
    write(dir.path(), "other.prompt.md", b"Other");
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.diagnostics.is_empty(), "{:?}", library.diagnostics);
    let names: Vec<&str> = library.prompts().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["other", "review"]);
    assert_eq!(library.skills().len(), 1);
    let skill = library.skill("skill://review/SKILL.md").unwrap();
    assert_eq!(
        skill.source,
        format!("{}/.claude/skills/review/SKILL.md", dir.path().display())
    );
    let (owner, file) = library
        .skill_file("skill://review/references/checklist.md")
        .unwrap();
    assert_eq!(
        (owner.name.as_str(), file.digest.as_str()),
        ("review", ABC_DIGEST)
    );
    // The prompt: the body without front matter, `$ARGUMENTS` filled.
    assert_eq!(
        render_text(&library, "review", &[("arguments", "the login change")]),
        "Review the login change against references/checklist.md."
    );
    // The folder is watched whole, so a new supporting file reloads.
    assert!(
        library
            .embedded_files
            .iter()
            .any(|p| p.ends_with(".claude/skills/review")),
        "{:?}",
        library.embedded_files
    );
}

#[test]
fn a_bad_skill_folder_is_a_load_problem_and_serves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "review/SKILL.md",
        b"---\nname: nope\ndescription: x\n---\nBody\n",
    );
    write(dir.path(), "review/notes.md", b"n");
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.skills().is_empty());
    assert!(library.prompts().is_empty());
    let problems = library.problem_lines();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].ends_with("(skill not served)"), "{problems:?}");
    assert!(problems[0].contains("review/SKILL.md:2:"), "{problems:?}");
}

#[test]
fn skills_inside_skills_and_same_names_get_paths_of_their_own() {
    let one = tempfile::tempdir().unwrap();
    write(one.path(), "review/SKILL.md", REVIEW.as_bytes());
    write(
        one.path(),
        "review/parts/lint/SKILL.md",
        b"---\nname: lint\ndescription: Lint first\n---\nLint.\n",
    );
    let two = tempfile::tempdir().unwrap();
    write(two.path(), "review/SKILL.md", REVIEW.as_bytes());
    let library = load_paths(&[one.path().to_path_buf(), two.path().to_path_buf()]);
    let uris: Vec<String> = library.skills().iter().map(SkillDef::uri).collect();
    assert_eq!(
        uris,
        [
            "skill://review/SKILL.md",
            "skill://review/parts/lint/SKILL.md",
            "skill://_2/review/SKILL.md",
        ]
    );
    // The nested skill's files are the enclosing skill's too.
    let outer = library.skill("skill://review/SKILL.md").unwrap();
    let outer_files: Vec<String> = outer.files.iter().map(|f| outer.file_uri(f)).collect();
    assert!(
        outer_files.contains(&"skill://review/parts/lint/SKILL.md".to_string()),
        "{outer_files:?}"
    );
    let problems = library.problem_lines();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("serving this one at skill://_2/review/SKILL.md")),
        "{problems:?}"
    );
}

proptest::proptest! {
    /// Whatever a SKILL.md holds, checking it ends in a skill or a problem, never a panic;
    /// a skill served is named as its folder, validly, with every file's digest its own.
    #[test]
    fn any_skill_md_is_served_checked_or_refused(
        text in "---\\n(name: (review|Review|x--y)\\n)?(description: [a-z]{1,8}\\n)?(license: [a-zA-Z0-9:{}\\[\\] ]{0,6}\\n)?(---|\\.\\.\\.)\\n[ -~$\\n]{0,40}",
        extra in proptest::collection::vec(proptest::collection::vec(proptest::num::u8::ANY, 0..16), 0..3),
    ) {
        let mut files = vec![(SKILL_FILE.to_string(), text.clone().into_bytes())];
        for (i, bytes) in extra.iter().enumerate() {
            files.push((format!("assets/f{i}.bin"), bytes.clone()));
        }
        let served = parse_skill("review", files, "review/SKILL.md");
        if let Err(problem) = &served {
            // A refusal names the file and says why.
            proptest::prop_assert_eq!(&problem.file, "review/SKILL.md");
            proptest::prop_assert!(!problem.message.is_empty());
        }
        if let Ok((skill, prompt)) = served {
            proptest::prop_assert_eq!(&skill.name, "review");
            proptest::prop_assert!(is_valid_name(&skill.name));
            proptest::prop_assert_eq!(&prompt.name, "review");
            proptest::prop_assert_eq!(skill.files.len(), extra.len() + 1);
            for file in &skill.files {
                proptest::prop_assert_eq!(&file.digest, &digest(&file.bytes));
            }
            proptest::prop_assert_eq!(
                skill.frontmatter.get("name"),
                Some(&Value::String("review".into()))
            );
        }
    }
}

#[test]
fn a_skill_is_filled_for_its_task_as_claude_code_fills_it() {
    let md = |body: &str| format!("---\nname: review\ndescription: Review a change\n---\n{body}");
    // `$ARGUMENTS` is the task, `$0`, `$1`… its words; the front matter is not sent,
    // and the body is trimmed as the prompt route trims it.
    assert_eq!(
        fill_skill(&md("Review $ARGUMENTS, PR $0 first.\n"), "7 \"the parser\""),
        "Review 7 \"the parser\", PR 7 first."
    );
    assert_eq!(
        fill_skill(&md("Compare $0 with $1.\n"), "main 'my branch'"),
        "Compare main with my branch."
    );
    // No placeholder: the task ends the body, as Claude Code adds it; no task adds nothing.
    assert_eq!(
        fill_skill(&md("Read the diff.\n"), "check PR 7"),
        "Read the diff.\n\nARGUMENTS: check PR 7"
    );
    assert_eq!(fill_skill(&md("Read the diff.\n"), ""), "Read the diff.");
    // A placeholder left without a task is empty, as the prompt route leaves it.
    assert_eq!(fill_skill(&md("Review $ARGUMENTS.\n"), ""), "Review .");
    // Without front matter the text is the body.
    assert_eq!(
        fill_skill("Just text.\n", "x"),
        "Just text.\n\nARGUMENTS: x"
    );
}

#[test]
fn the_skill_route_and_the_prompt_route_of_one_folder_fill_the_same_text() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "---\nname: review\ndescription: Review a change\n---\nReview $ARGUMENTS; start at $0.\n";
    write(
        dir.path(),
        ".claude/skills/review/SKILL.md",
        text.as_bytes(),
    );
    let library = load_paths(&[dir.path().to_path_buf()]);
    assert!(library.diagnostics.is_empty(), "{:?}", library.diagnostics);
    let prompt = library.render(
        "review",
        &BTreeMap::from([("arguments".to_string(), "src/a.rs twice".to_string())]),
    );
    let messages = prompt.expect("the prompt route renders");
    let Content::Known(KnownContent::Text { text: sent, .. }) = &messages.messages[0].content
    else {
        panic!("{messages:?}");
    };
    assert_eq!(fill_skill(text, "src/a.rs twice"), *sent);
}
