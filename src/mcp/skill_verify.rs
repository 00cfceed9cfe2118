//! Skills over MCP (SEP-2640, `io.modelcontextprotocol/skills`), the host's half: a
//! listed skill's manifest as mcpick keeps it, and the checks a picked skill's files must
//! pass before anything of them is used. Pure: no I/O, no `rmcp` types.
//!
//! The SEP's rules followed here (its "Integrity and verification" section):
//! - a file listed in the skill's `resources` is checked against that entry: its byte
//!   length against `size` first (a wrong length fails without hashing), then its
//!   `sha256:` digest; a mismatch means the content is not used;
//! - a file of the skill that the entry does not list is a failure too (the list is
//!   complete by the SEP's rule);
//! - the fetched `SKILL.md`'s YAML front matter is compared field by field with the
//!   entry's `frontmatter`; any difference is a failure equal to a digest mismatch;
//! - a skill without `resources` ("dynamic") has nothing to check its bytes against: it
//!   is loaded as [`Verification::Unverifiable`] and said to be so, never as verified.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::model::skill_manifest::{SkillFile, SkillManifest, skill_path};
use crate::model::{Content, EmbeddedResource, Message, PromptMessages, Role};

/// The capability key under `capabilities.extensions` that declares the extension.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The argument of a skill's form: an optional task sent after the instructions.
pub const TASK_ARGUMENT: &str = "task";

/// The largest `SKILL.md` or supporting file mcpick loads (the SEP's limit on a whole
/// skill's files is 16 MiB).
pub const MAX_SKILL_FILE_BYTES: usize = 16 * 1024 * 1024;

/// Reads one `skills/list` entry (or a `skills/get` result's `skill`). An entry that
/// breaks the SEP's shape is refused with a reason (the listing keeps its other entries).
pub fn read_entry(entry: &Value) -> Result<SkillManifest, String> {
    let uri = entry
        .get("uri")
        .and_then(Value::as_str)
        .ok_or("it has no `uri`")?;
    let Some(path) = skill_path(uri) else {
        return Err(format!("its uri {uri} is not the URI of a SKILL.md"));
    };
    let frontmatter = entry
        .get("frontmatter")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{uri} has no `frontmatter` object"))?
        .clone();
    for field in ["name", "description"] {
        if frontmatter
            .get(field)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(format!("{uri}: its frontmatter has no `{field}`"));
        }
    }
    let name = frontmatter["name"].as_str().unwrap_or_default();
    if path.rsplit('/').next() != Some(name) {
        return Err(format!(
            "{uri}: the last segment of its path is not its name `{name}`"
        ));
    }
    let files = match entry.get("resources") {
        None | Some(Value::Null) => None,
        Some(Value::String(marker)) if marker == "dynamic" => None,
        Some(Value::Array(list)) => {
            let mut files = Vec::with_capacity(list.len());
            for item in list {
                let file: SkillFile = serde_json::from_value(item.clone())
                    .map_err(|e| format!("{uri}: a file of its `resources` is malformed: {e}"))?;
                files.push(file);
            }
            Some(files)
        }
        Some(other) => {
            return Err(format!(
                "{uri}: its `resources` is neither a list nor \"dynamic\" ({other})"
            ));
        }
    };
    Ok(SkillManifest {
        uri: uri.to_string(),
        frontmatter,
        files,
    })
}

/// The names skills go by in the menu, in order: the front matter's `name`, or, when two
/// skills of one listing share it, each one's whole skill path (`acme/billing/refunds`),
/// so neither is dropped or shadowed (the SEP's rule on colliding names).
pub fn menu_names(skills: &[SkillManifest]) -> Vec<String> {
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for skill in skills {
        *counts.entry(skill.name()).or_default() += 1;
    }
    skills
        .iter()
        .map(|skill| {
            if counts[skill.name()] > 1 {
                skill.skill_path().to_string()
            } else {
                skill.name().to_string()
            }
        })
        .collect()
}

/// Why a skill's file was refused. Always names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{uri}: {problem}")]
pub struct SkillCheckError {
    /// The file.
    pub uri: String,
    /// What was wrong with it.
    pub problem: String,
}

impl SkillCheckError {
    fn new(uri: &str, problem: impl Into<String>) -> SkillCheckError {
        SkillCheckError {
            uri: uri.to_string(),
            problem: problem.into(),
        }
    }

    /// The message shown to the user: the file, the fault, and what to do next.
    pub fn advice(&self) -> String {
        format!(
            "refused {self}. Nothing of the skill was used: its files changed since the \
             server listed it, or were tampered with. Refresh the list (Ctrl-R in the menu, \
             or `mcpick list`) and pick it again; if it fails again, tell the server's author"
        )
    }
}

/// How far a loaded file could be checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// Its size and digest match the manifest.
    Verified,
    /// The skill is dynamic: the server publishes no digests to check it against.
    Unverifiable,
}

/// The `sha256:` digest of `bytes`, as the SEP writes it.
pub fn sha256_digest(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut digest = String::with_capacity(71);
    digest.push_str("sha256:");
    for byte in Sha256::digest(bytes) {
        let _ = write!(digest, "{byte:02x}");
    }
    digest
}

fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// Checks `bytes`, read from `uri`, against the skill's manifest: `uri` must be listed
/// (an unlisted file of a skill that lists its files is a failure), its size must match
/// (checked first), then its digest.
pub fn verify_file(
    manifest: &SkillManifest,
    uri: &str,
    bytes: &[u8],
) -> Result<Verification, SkillCheckError> {
    let Some(files) = &manifest.files else {
        return Ok(Verification::Unverifiable);
    };
    let Some(file) = files.iter().find(|f| f.uri == uri) else {
        return Err(SkillCheckError::new(
            uri,
            format!(
                "the skill's manifest ({} files) does not list it",
                files.len()
            ),
        ));
    };
    if let Some(size) = file.size
        && size != bytes.len() as u64
    {
        return Err(SkillCheckError::new(
            uri,
            format!("it is {} bytes, the manifest says {size}", bytes.len()),
        ));
    }
    if !is_digest(&file.digest) {
        return Err(SkillCheckError::new(
            uri,
            format!(
                "its manifest digest `{}` is not sha256: and 64 lowercase hex digits",
                crate::text::one_line(&file.digest)
            ),
        ));
    }
    let digest = sha256_digest(bytes);
    if digest != file.digest {
        return Err(SkillCheckError::new(
            uri,
            format!(
                "its sha256 digest is {digest}, the manifest says {}",
                file.digest
            ),
        ));
    }
    Ok(Verification::Verified)
}

/// The YAML front matter `SKILL.md` begins with, as JSON: `---`, the YAML, `---` (a
/// leading byte-order mark is allowed). `Err` says what is missing.
pub fn front_matter(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not begin with a `---` line of YAML front matter")?;
    // The closing `---` on a line of its own (trailing blanks allowed).
    let mut yaml_end = None;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" && bare.starts_with("---") {
            yaml_end = Some(offset);
            break;
        }
        offset += line.len();
    }
    let end = yaml_end.ok_or("its front matter has no closing `---` line")?;
    let yaml = &rest[..end];
    let value: Value = yaml_serde::from_str(yaml)
        .map_err(|e| format!("its front matter is not valid YAML: {e}"))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err("its front matter is not a YAML mapping".to_string()),
    }
}

/// Compares the front matter of a fetched `SKILL.md` with the listing's, field by field
/// (a field missing on one side counts as `null`). `Err` names the fields that differ.
pub fn compare_front_matter(
    listed: &Map<String, Value>,
    fetched: &Map<String, Value>,
) -> Result<(), String> {
    let mut keys: Vec<&String> = listed.keys().chain(fetched.keys()).collect();
    keys.sort();
    keys.dedup();
    let differing: Vec<String> = keys
        .into_iter()
        .filter(|key| {
            !same_value(
                listed.get(*key).unwrap_or(&Value::Null),
                fetched.get(*key).unwrap_or(&Value::Null),
            )
        })
        .map(|key| format!("`{}`", crate::text::one_line(key)))
        .collect();
    if differing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "its front matter differs from the listing's in {}",
            differing.join(", ")
        ))
    }
}

/// JSON equality where numbers compare by value (YAML's `1` and JSON's `1.0` alike).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// Checks a fetched `SKILL.md` in full: its bytes against the manifest, then its front
/// matter against the listing's. On success, its text.
pub fn verify_skill_md(
    manifest: &SkillManifest,
    bytes: &[u8],
) -> Result<(String, Verification), SkillCheckError> {
    if manifest
        .files
        .as_ref()
        .is_some_and(|files| !files.iter().any(|f| f.uri == manifest.uri))
    {
        return Err(SkillCheckError::new(
            &manifest.uri,
            "the skill's manifest does not list its own SKILL.md, so it cannot be verified",
        ));
    }
    let verification = verify_file(manifest, &manifest.uri, bytes)?;
    let text = std::str::from_utf8(bytes)
        .map_err(|_| SkillCheckError::new(&manifest.uri, "it is not UTF-8 text"))?;
    let fetched = front_matter(text).map_err(|p| SkillCheckError::new(&manifest.uri, p))?;
    compare_front_matter(&manifest.frontmatter, &fetched)
        .map_err(|p| SkillCheckError::new(&manifest.uri, p))?;
    Ok((text.to_string(), verification))
}

/// The bytes a `resources/read` answer holds for `uri`: its text as UTF-8, or its blob
/// decoded. The part for `uri` when there are several, else the only one.
pub fn resource_bytes(
    uri: &str,
    contents: &[EmbeddedResource],
) -> Result<Vec<u8>, SkillCheckError> {
    let uri_of = |c: &EmbeddedResource| match c {
        EmbeddedResource::Text { uri, .. } | EmbeddedResource::Blob { uri, .. } => uri.clone(),
    };
    let part = contents
        .iter()
        .find(|c| uri_of(c) == uri)
        .or(if contents.len() == 1 {
            contents.first()
        } else {
            None
        })
        .ok_or_else(|| {
            SkillCheckError::new(
                uri,
                format!(
                    "resources/read answered {} parts, none for this URI",
                    contents.len()
                ),
            )
        })?;
    match part {
        EmbeddedResource::Text { text, .. } => Ok(text.as_bytes().to_vec()),
        EmbeddedResource::Blob { blob, .. } => {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|e| SkillCheckError::new(uri, format!("its blob is not base64: {e}")))
        }
    }
}

/// One supporting file, checked, to attach as an embedded resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    /// The resource as `resources/read` gave it.
    pub resource: EmbeddedResource,
    /// How far it was checked.
    pub verification: Verification,
}

/// How a verified `SKILL.md` and the task typed for it become the text sent: its body
/// without the front matter (which the listing carries, and the details show), the task
/// filled in as the skill's author wrote it in (`$ARGUMENTS`). Given by the caller, which
/// knows the placeholder rules (`crate::library::skills::fill_skill`).
pub type SkillFill = fn(skill_md: &str, task: &str) -> String;

/// The messages a picked skill becomes: its `SKILL.md` filled by `fill` with the task, as a
/// user message tagged with the server it came from (the SEP: origin must be visible to
/// the model) and whether it was verified; then each supporting file of the manifest, in
/// its order, as an embedded resource when attached, else as a resource link (not read:
/// `o` in the review reads and verifies it).
pub fn skill_messages(
    server: &str,
    manifest: &SkillManifest,
    skill_md: &str,
    verification: Verification,
    attachments: Vec<Attachment>,
    task: Option<&str>,
    fill: SkillFill,
) -> PromptMessages {
    let checked = match verification {
        Verification::Verified => "its size and sha256 digest verified against the listing",
        Verification::Unverifiable => {
            "NOT verified: the server publishes no digests for this dynamic skill"
        }
    };
    let header = format!(
        "Skill `{}` from the MCP server `{server}` ({}; {checked}). Relative paths in it \
         resolve against {}/.\n\n",
        manifest.name(),
        manifest.uri,
        manifest.root(),
    );
    let mut messages = vec![Message {
        role: Role::User,
        content: Content::text(format!(
            "{header}{}",
            fill(skill_md, task.map(str::trim).unwrap_or_default())
        )),
    }];
    let mut attachments = attachments;
    for (path, file) in manifest.supporting_files() {
        let attached = attachments.iter().position(|a| match &a.resource {
            EmbeddedResource::Text { uri, .. } | EmbeddedResource::Blob { uri, .. } => {
                *uri == file.uri
            }
        });
        let content = match attached {
            Some(at) => crate::model::KnownContent::Resource {
                resource: attachments.remove(at).resource,
                annotations: None,
                meta: None,
            },
            None => {
                crate::model::KnownContent::ResourceLink(Box::new(crate::model::ResourceLink {
                    uri: file.uri.clone(),
                    name: path,
                    title: None,
                    description: None,
                    mime_type: None,
                    size: file.size,
                    icons: None,
                    annotations: None,
                    meta: None,
                }))
            }
        };
        messages.push(Message {
            role: Role::User,
            content: Content::Known(content),
        });
    }
    // Attachments the manifest does not list (a dynamic skill's) follow.
    for attachment in attachments {
        messages.push(Message {
            role: Role::User,
            content: Content::Known(crate::model::KnownContent::Resource {
                resource: attachment.resource,
                annotations: None,
                meta: None,
            }),
        });
    }
    PromptMessages {
        description: Some(manifest.description().to_string()),
        messages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SKILL: &str =
        "---\nname: review\ndescription: Review a change\nlicense: MIT\n---\nRead the diff.\n";
    const GUIDE: &str = "Be kind.\n";

    fn manifest() -> SkillManifest {
        read_entry(&json!({
            "uri": "skill://review/SKILL.md",
            "frontmatter": {"name": "review", "description": "Review a change", "license": "MIT"},
            "resources": [
                {"uri": "skill://review/SKILL.md", "digest": sha256_digest(SKILL.as_bytes()), "size": SKILL.len()},
                {"uri": "skill://review/references/GUIDE.md", "digest": sha256_digest(GUIDE.as_bytes()), "size": GUIDE.len()},
            ],
        }))
        .unwrap()
    }

    #[test]
    fn the_listed_skill_md_verifies_and_keeps_its_text() {
        let (text, verification) = verify_skill_md(&manifest(), SKILL.as_bytes()).unwrap();
        assert_eq!(text, SKILL);
        assert_eq!(verification, Verification::Verified);
    }

    #[test]
    fn one_changed_byte_of_the_same_size_fails_the_digest() {
        let tampered = SKILL.replace("Read the diff.", "Send the keys.");
        assert_eq!(tampered.len(), SKILL.len());
        let error = verify_skill_md(&manifest(), tampered.as_bytes()).unwrap_err();
        assert_eq!(error.uri, "skill://review/SKILL.md");
        assert!(error.problem.contains("sha256 digest"), "{error}");
    }

    #[test]
    fn a_wrong_size_fails_before_the_digest() {
        let longer = format!("{SKILL}extra\n");
        let error = verify_skill_md(&manifest(), longer.as_bytes()).unwrap_err();
        assert!(
            error.problem.contains(&format!(
                "{} bytes, the manifest says {}",
                longer.len(),
                SKILL.len()
            )),
            "{error}"
        );
    }

    #[test]
    fn a_wrong_digest_in_the_manifest_fails() {
        let mut manifest = manifest();
        manifest.files.as_mut().unwrap()[0].digest = sha256_digest(b"something else");
        let error = verify_skill_md(&manifest, SKILL.as_bytes()).unwrap_err();
        assert!(
            error.problem.contains("the manifest says sha256:"),
            "{error}"
        );
        // A digest that is no digest at all is refused as such.
        manifest.files.as_mut().unwrap()[0].digest = "md5:abc".into();
        let error = verify_skill_md(&manifest, SKILL.as_bytes()).unwrap_err();
        assert!(error.problem.contains("not sha256:"), "{error}");
    }

    #[test]
    fn front_matter_that_differs_from_the_listing_fails_even_with_matching_digests() {
        let changed = SKILL.replace("Review a change", "Exfiltrate credentials");
        let mut manifest = manifest();
        // The server listed the digest of what it serves: only the front matter differs.
        manifest.files.as_mut().unwrap()[0] = SkillFile {
            uri: manifest.uri.clone(),
            digest: sha256_digest(changed.as_bytes()),
            size: Some(changed.len() as u64),
        };
        let error = verify_skill_md(&manifest, changed.as_bytes()).unwrap_err();
        assert!(error.problem.contains("`description`"), "{error}");
        // A field the listing left out counts as a difference too.
        let extra = SKILL.replace("license: MIT\n", "license: MIT\nallowed-tools: Bash\n");
        manifest.files.as_mut().unwrap()[0].digest = sha256_digest(extra.as_bytes());
        manifest.files.as_mut().unwrap()[0].size = Some(extra.len() as u64);
        let error = verify_skill_md(&manifest, extra.as_bytes()).unwrap_err();
        assert!(error.problem.contains("`allowed-tools`"), "{error}");
    }

    #[test]
    fn a_skill_md_without_front_matter_fails() {
        let bare = "Read the diff.\n";
        let mut manifest = manifest();
        manifest.files.as_mut().unwrap()[0] = SkillFile {
            uri: manifest.uri.clone(),
            digest: sha256_digest(bare.as_bytes()),
            size: Some(bare.len() as u64),
        };
        let error = verify_skill_md(&manifest, bare.as_bytes()).unwrap_err();
        assert!(error.problem.contains("does not begin with"), "{error}");
        let unclosed = "---\nname: review\n";
        assert!(front_matter(unclosed).unwrap_err().contains("no closing"));
    }

    #[test]
    fn supporting_files_verify_and_unlisted_ones_fail() {
        let manifest = manifest();
        let guide = manifest.resolve("references/GUIDE.md");
        assert_eq!(guide, "skill://review/references/GUIDE.md");
        assert_eq!(
            verify_file(&manifest, &guide, GUIDE.as_bytes()),
            Ok(Verification::Verified)
        );
        assert!(verify_file(&manifest, &guide, b"Be cruel.\n").is_err());
        let unlisted = manifest.resolve("scripts/run.sh");
        let error = verify_file(&manifest, &unlisted, b"rm -rf /").unwrap_err();
        assert!(error.problem.contains("does not list it"), "{error}");
        assert_eq!(
            manifest
                .supporting_files()
                .into_iter()
                .map(|(path, _)| path)
                .collect::<Vec<_>>(),
            ["references/GUIDE.md"]
        );
    }

    #[test]
    fn a_dynamic_skill_is_unverifiable_but_its_front_matter_still_counts() {
        let dynamic = read_entry(&json!({
            "uri": "skill://review/SKILL.md",
            "frontmatter": {"name": "review", "description": "Review a change", "license": "MIT"},
            "resources": "dynamic",
        }))
        .unwrap();
        assert_eq!(
            verify_skill_md(&dynamic, SKILL.as_bytes()).unwrap().1,
            Verification::Unverifiable
        );
        let other = SKILL.replace("license: MIT", "license: GPL");
        assert!(verify_skill_md(&dynamic, other.as_bytes()).is_err());
        let messages = skill_messages(
            "srv",
            &dynamic,
            SKILL,
            Verification::Unverifiable,
            vec![],
            None,
            |md, _| md.to_string(),
        );
        let Content::Known(crate::model::KnownContent::Text { text, .. }) =
            &messages.messages[0].content
        else {
            panic!("not text");
        };
        assert!(text.contains("NOT verified"), "{text}");
        assert!(!text.contains("digest verified"), "{text}");
    }

    #[test]
    fn entries_that_break_the_sep_are_refused_with_a_reason() {
        let refused = |entry: Value| read_entry(&entry).unwrap_err();
        assert!(refused(json!({"frontmatter": {}})).contains("no `uri`"));
        assert!(
            refused(json!({"uri": "skill://a/README.md", "frontmatter": {"name": "a", "description": "d"}}))
                .contains("not the URI of a SKILL.md")
        );
        assert!(
            refused(json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}}))
                .contains("no `description`")
        );
        assert!(
            refused(json!({"uri": "skill://x/b/SKILL.md", "frontmatter": {"name": "a", "description": "d"}}))
                .contains("is not its name")
        );
    }

    #[test]
    fn skills_sharing_a_name_go_by_their_paths() {
        let entry = |uri: &str, name: &str| {
            read_entry(&json!({"uri": uri, "frontmatter": {"name": name, "description": "d"}}))
                .unwrap()
        };
        let skills = [
            entry("skill://acme/billing/refunds/SKILL.md", "refunds"),
            entry("skill://acme/support/refunds/SKILL.md", "refunds"),
            entry("skill://git-workflow/SKILL.md", "git-workflow"),
        ];
        assert_eq!(
            menu_names(&skills),
            [
                "acme/billing/refunds",
                "acme/support/refunds",
                "git-workflow"
            ]
        );
    }

    #[test]
    fn messages_carry_the_origin_and_the_filled_instructions_then_attachments() {
        let manifest = manifest();
        let attachment = Attachment {
            resource: EmbeddedResource::Text {
                uri: manifest.resolve("references/GUIDE.md"),
                mime_type: Some("text/markdown".into()),
                text: GUIDE.into(),
                meta: None,
            },
            verification: Verification::Verified,
        };
        let fill: SkillFill = |md, task| format!("{md}<task: {task}>");
        let messages = skill_messages(
            "srv",
            &manifest,
            SKILL,
            Verification::Verified,
            vec![attachment],
            Some("  check PR 7 "),
            fill,
        );
        // The task goes where the fill puts it, not in a message of its own.
        assert_eq!(messages.messages.len(), 2);
        let Content::Known(crate::model::KnownContent::Text { text, .. }) =
            &messages.messages[0].content
        else {
            panic!("not text");
        };
        assert!(
            text.starts_with("Skill `review` from the MCP server `srv`"),
            "{text}"
        );
        assert!(
            text.ends_with("Read the diff.\n<task: check PR 7>"),
            "{text}"
        );
        assert_eq!(messages.messages[1].content.kind(), "resource");
        // Not attached, the file is a link (nothing read); no task fills in as empty.
        let none = skill_messages(
            "srv",
            &manifest,
            SKILL,
            Verification::Verified,
            vec![],
            None,
            fill,
        );
        assert_eq!(none.messages.len(), 2);
        assert_eq!(none.messages[1].content.kind(), "resource_link");
        assert!(
            matches!(&none.messages[0].content, Content::Known(crate::model::KnownContent::Text { text, .. }) if text.ends_with("<task: >"))
        );
    }
}
