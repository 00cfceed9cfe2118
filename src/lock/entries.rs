//! A prompt's and a skill's definition as locked, their digests, the examples rendered
//! with a prompt, and what changed against a listing.

use super::diff::{DefinitionChange, ExampleDrift, line_diff};
use super::digest::{messages_digest, sha256};
use super::render::messages_text;
use crate::model::skill_manifest::SkillManifest;
use crate::model::{PromptArg, PromptInfo, PromptMessages};
use serde_json::json;
use std::collections::BTreeMap;

/// One prompt's definition as locked, and the examples rendered with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LockedPrompt {
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// The digest of the definition (name, title, description, arguments).
    pub digest: String,
    /// Its arguments, in the server's order.
    pub arguments: Vec<LockedArgument>,
    /// Example arguments and what the server rendered from them.
    pub examples: Vec<LockedExample>,
}

/// One argument of a locked prompt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LockedArgument {
    /// Its name.
    pub name: String,
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// Example arguments of a prompt and the digest of the messages the server rendered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LockedExample {
    /// The rendered messages' digest.
    pub digest: String,
    /// The messages as text ([`messages_text`]), when locked with `--with-output`.
    pub output: Option<String>,
    /// The arguments, NAME = VALUE (none: the table is left out).
    pub arguments: BTreeMap<String, String>,
}

/// One skill's definition as locked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LockedSkill {
    /// Its description (front matter).
    pub description: Option<String>,
    /// The digest of the definition (name, description, files).
    pub digest: String,
    /// A dynamic skill: its content has no stable digests, so no files are locked.
    pub dynamic: bool,
    /// Each file's digest, by its path in the skill (`SKILL.md`, `references/a.md`).
    pub files: BTreeMap<String, String>,
}

impl LockedPrompt {
    /// A prompt's definition as listed, with its digest and no examples.
    pub fn from_info(info: &PromptInfo) -> LockedPrompt {
        let mut prompt = LockedPrompt {
            title: info.title.clone(),
            description: info.description.clone(),
            digest: String::new(),
            arguments: info
                .arguments
                .iter()
                .map(LockedArgument::from_arg)
                .collect(),
            examples: Vec::new(),
        };
        prompt.digest = prompt.definition_digest(&info.name);
        prompt
    }

    /// `sha256:` and the hex of the definition's canonical JSON.
    pub fn definition_digest(&self, name: &str) -> String {
        let arguments: Vec<serde_json::Value> = (self.arguments.iter())
            .map(|a| {
                json!({
                    "name": a.name,
                    "title": a.title,
                    "description": a.description,
                    "required": a.required,
                })
            })
            .collect();
        let definition = json!({
            "name": name,
            "title": self.title,
            "description": self.description,
            "arguments": arguments,
        });
        sha256(definition.to_string().as_bytes())
    }

    /// How `now` (the server's listing) differs from this definition, one change each;
    /// empty when it is the same.
    pub fn definition_changes(&self, now: &PromptInfo) -> Vec<DefinitionChange> {
        prompt_changes(self, &LockedPrompt::from_info(now))
    }
}

impl LockedArgument {
    fn from_arg(arg: &PromptArg) -> LockedArgument {
        LockedArgument {
            name: arg.name.clone(),
            title: arg.title.clone(),
            description: arg.description.clone(),
            required: arg.required,
        }
    }
}

impl LockedExample {
    /// An example's record: the digest of `messages`, and their text when `with_output`.
    pub fn rendered(
        arguments: BTreeMap<String, String>,
        messages: &PromptMessages,
        with_output: bool,
    ) -> LockedExample {
        LockedExample {
            digest: messages_digest(messages),
            output: with_output.then(|| messages_text(messages)),
            arguments,
        }
    }

    /// How `messages` (rendered now from the same arguments) differ from the locked ones,
    /// or `None` when they are the same.
    pub fn drift(&self, messages: &PromptMessages) -> Option<ExampleDrift> {
        (messages_digest(messages) != self.digest).then(|| ExampleDrift {
            diff: self
                .output
                .as_deref()
                .map(|locked| line_diff(locked, &messages_text(messages))),
        })
    }

    /// The arguments as `NAME="VALUE"` words on one line, the values quoted as server text.
    pub fn arguments_text(&self) -> String {
        self.arguments
            .iter()
            .map(|(name, value)| format!("{name}={}", crate::text::quoted_server_text(value)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl LockedSkill {
    /// A skill's definition from its manifest, with its digest.
    pub fn from_manifest(name: &str, manifest: &SkillManifest) -> LockedSkill {
        let description = Some(manifest.description().to_string()).filter(|d| !d.is_empty());
        let files: BTreeMap<String, String> = manifest
            .files
            .iter()
            .flatten()
            .map(|file| (manifest.relative(&file.uri), file.digest.clone()))
            .collect();
        let mut skill = LockedSkill {
            description,
            digest: String::new(),
            dynamic: manifest.files.is_none(),
            files,
        };
        skill.digest = skill.definition_digest(name);
        skill
    }

    /// `sha256:` and the hex of the definition's canonical JSON.
    pub fn definition_digest(&self, name: &str) -> String {
        let definition = json!({
            "name": name,
            "description": self.description,
            "dynamic": self.dynamic,
            "files": self.files,
        });
        sha256(definition.to_string().as_bytes())
    }

    /// How the skill listed now differs from this one, one change each.
    pub fn definition_changes(&self, name: &str, now: &SkillManifest) -> Vec<DefinitionChange> {
        skill_changes(self, &LockedSkill::from_manifest(name, now))
    }
}

/// The changes from `locked` to `now` (both built the same way, from a listing or a file).
fn prompt_changes(locked: &LockedPrompt, now: &LockedPrompt) -> Vec<DefinitionChange> {
    let mut changes = Vec::new();
    if locked.title != now.title {
        changes.push(DefinitionChange::Title {
            locked: locked.title.clone(),
            now: now.title.clone(),
        });
    }
    if locked.description != now.description {
        changes.push(DefinitionChange::Description {
            locked: locked.description.clone(),
            now: now.description.clone(),
        });
    }
    for old in &locked.arguments {
        let Some(new) = now.arguments.iter().find(|a| a.name == old.name) else {
            changes.push(DefinitionChange::ArgumentRemoved {
                name: old.name.clone(),
            });
            continue;
        };
        match (old.required, new.required) {
            (false, true) => changes.push(DefinitionChange::ArgumentNowRequired {
                name: old.name.clone(),
            }),
            (true, false) => changes.push(DefinitionChange::ArgumentNowOptional {
                name: old.name.clone(),
            }),
            _ => {}
        }
        for (field, was, is) in [
            ("title", &old.title, &new.title),
            ("description", &old.description, &new.description),
        ] {
            if was != is {
                changes.push(DefinitionChange::ArgumentText {
                    name: old.name.clone(),
                    field,
                    locked: was.clone(),
                    now: is.clone(),
                });
            }
        }
    }
    for new in &now.arguments {
        if !locked.arguments.iter().any(|a| a.name == new.name) {
            changes.push(DefinitionChange::ArgumentAdded {
                name: new.name.clone(),
                required: new.required,
            });
        }
    }
    let names =
        |p: &LockedPrompt| -> Vec<String> { p.arguments.iter().map(|a| a.name.clone()).collect() };
    let (was, is) = (names(locked), names(now));
    let mut same_set = (was.clone(), is.clone());
    same_set.0.sort();
    same_set.1.sort();
    if was != is && same_set.0 == same_set.1 {
        changes.push(DefinitionChange::ArgumentsReordered {
            locked: was,
            now: is,
        });
    }
    changes
}

/// The changes from skill `locked` to `now`.
fn skill_changes(locked: &LockedSkill, now: &LockedSkill) -> Vec<DefinitionChange> {
    let mut changes = Vec::new();
    if locked.description != now.description {
        changes.push(DefinitionChange::Description {
            locked: locked.description.clone(),
            now: now.description.clone(),
        });
    }
    if locked.dynamic != now.dynamic {
        changes.push(DefinitionChange::Dynamic { now: now.dynamic });
    }
    for (path, digest) in &locked.files {
        match now.files.get(path) {
            None => changes.push(DefinitionChange::FileRemoved { path: path.clone() }),
            Some(new) if new != digest => {
                changes.push(DefinitionChange::FileChanged { path: path.clone() })
            }
            Some(_) => {}
        }
    }
    for path in now.files.keys() {
        if !locked.files.contains_key(path) {
            changes.push(DefinitionChange::FileAdded { path: path.clone() });
        }
    }
    changes
}
