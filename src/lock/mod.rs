//! The lockfile (`mcpick.lock`, docs/lock.md): what each server's prompts and skills were
//! when `mcpick lock` asked, read and written as TOML, with the digests and the diff
//! `mcpick check` (and the menu) compare with. Pure: text in, text out, no I/O.

mod diff;
mod render;

pub use diff::{DefinitionChange, ExampleDrift, line_diff};
pub use render::messages_text;

use crate::model::skill_manifest::SkillManifest;
use crate::model::{PromptArg, PromptInfo, PromptMessages, ServerDetails};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The lockfile's name in the current folder when none is given.
pub const DEFAULT_FILE: &str = "mcpick.lock";

/// The format version this mcpick writes and reads.
pub const VERSION: u32 = 1;

/// The first lines of every lockfile written.
const HEADER: &str = "# Written by `mcpick lock`; `mcpick check` compares the servers with it (docs/lock.md).\n\
# Run `mcpick lock` again to accept what changed; examples are kept and rendered again.\n";

/// A lockfile: per configured server name, what it offered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lockfile {
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// Each locked server, by its name in the config.
    #[serde(default)]
    pub servers: BTreeMap<String, LockedServer>,
}

/// One server as it was locked: who it said it is, and its prompts and skills.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedServer {
    /// `serverInfo.name`, as the server gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// `serverInfo.version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    /// The protocol revision spoken (e.g. `2025-06-18`, `2026-07-28`).
    pub protocol_version: String,
    /// Its prompts, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompts: BTreeMap<String, LockedPrompt>,
    /// Its skills (SEP-2640), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skills: BTreeMap<String, LockedSkill>,
}

/// One prompt's definition as locked, and the examples rendered with it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedPrompt {
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The digest of the definition (name, title, description, arguments).
    pub digest: String,
    /// Its arguments, in the server's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<LockedArgument>,
    /// Example arguments and what the server rendered from them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<LockedExample>,
}

/// One argument of a locked prompt.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedArgument {
    /// Its name.
    pub name: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the prompt needs it.
    #[serde(default)]
    pub required: bool,
}

/// Example arguments of a prompt and the digest of the messages the server rendered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedExample {
    /// The rendered messages' digest.
    pub digest: String,
    /// The messages as text ([`messages_text`]), when locked with `--with-output`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The arguments, NAME = VALUE.
    #[serde(default)]
    pub arguments: BTreeMap<String, String>,
}

/// One skill's definition as locked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedSkill {
    /// Its description (front matter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The digest of the definition (name, description, files).
    pub digest: String,
    /// A dynamic skill: its content has no stable digests, so no files are locked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dynamic: bool,
    /// Each file's digest, by its path in the skill (`SKILL.md`, `references/a.md`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

/// A lockfile that cannot be read: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct LockError {
    /// The 1-based line of the fault (1 when the fault is the whole file's).
    pub line: usize,
    /// The 1-based column.
    pub column: usize,
    /// What is wrong, and what to do.
    pub message: String,
}

impl Lockfile {
    /// Reads a lockfile; an error names the line and column at fault and what to do.
    pub fn parse(text: &str) -> Result<Lockfile, LockError> {
        let at = |span: Option<std::ops::Range<usize>>, message: String| {
            let (line, column) = line_column(text, span.map_or(0, |s| s.start));
            LockError {
                line,
                column,
                message,
            }
        };
        let table: toml::Table = toml::from_str(text)
            .map_err(|e| at(e.span(), format!("not TOML: {}", e.message().trim())))?;
        match table.get("version").map(toml::Value::as_integer) {
            Some(Some(version)) if version == i64::from(VERSION) => {}
            Some(Some(version)) => {
                return Err(at(
                    None,
                    format!(
                        "lockfile version {version}: this mcpick reads version {VERSION} \
                         (upgrade mcpick, or run `mcpick lock` to write it anew)"
                    ),
                ));
            }
            _ => {
                return Err(at(
                    None,
                    format!("no `version = {VERSION}`: not a lockfile `mcpick lock` wrote"),
                ));
            }
        }
        let lockfile: Lockfile =
            toml::from_str(text).map_err(|e| at(e.span(), e.message().trim().to_string()))?;
        lockfile
            .check_digests()
            .map_err(|message| at(None, message))?;
        Ok(lockfile)
    }

    /// The lockfile as TOML: sorted by server, prompt and skill, ending in a newline.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("{HEADER}{body}")
    }

    /// The locked prompt `name` of `server`.
    pub fn prompt(&self, server: &str, name: &str) -> Option<&LockedPrompt> {
        self.servers.get(server)?.prompts.get(name)
    }

    /// The locked skill `name` of `server`.
    pub fn skill(&self, server: &str, name: &str) -> Option<&LockedSkill> {
        self.servers.get(server)?.skills.get(name)
    }

    /// Every digest matches the definition beside it: a hand-edited definition is found
    /// here, not taken as the truth.
    fn check_digests(&self) -> Result<(), String> {
        for (server_name, server) in &self.servers {
            for (name, prompt) in &server.prompts {
                if prompt.digest != prompt.definition_digest(name) {
                    return Err(format!(
                        "the digest of prompt `{}` of server `{}` does not match its \
                         definition (edited by hand?): run `mcpick lock` to write it anew",
                        crate::text::one_line(name),
                        crate::text::one_line(server_name)
                    ));
                }
            }
            for (name, skill) in &server.skills {
                if skill.digest != skill.definition_digest(name) {
                    return Err(format!(
                        "the digest of skill `{}` of server `{}` does not match its \
                         definition (edited by hand?): run `mcpick lock` to write it anew",
                        crate::text::one_line(name),
                        crate::text::one_line(server_name)
                    ));
                }
            }
        }
        Ok(())
    }
}

impl LockedServer {
    /// A server's entry from what it said of itself and what it lists, with no examples.
    pub fn from_listing(details: &ServerDetails, listed: &[PromptInfo]) -> LockedServer {
        let mut server = LockedServer {
            server_name: details.server_name.clone(),
            server_version: details.server_version.clone(),
            protocol_version: details.protocol_version.clone(),
            ..LockedServer::default()
        };
        for entry in listed {
            match &entry.skill {
                Some(manifest) => {
                    let skill = LockedSkill::from_manifest(&entry.name, manifest);
                    server.skills.insert(entry.name.clone(), skill);
                }
                None => {
                    let prompt = LockedPrompt::from_info(entry);
                    server.prompts.insert(entry.name.clone(), prompt);
                }
            }
        }
        server
    }

    /// What changed in who the server says it is (name, version, protocol), one line
    /// each: told, not counted as drift (an upgrade of the same prompts is no drift).
    pub fn identity_changes(&self, now: &LockedServer) -> Vec<String> {
        let mut changes = Vec::new();
        let mut field = |what: &str, old: &Option<String>, new: &Option<String>| {
            if old != new {
                changes.push(format!(
                    "{what}: {} → {}",
                    diff::shown(old.as_deref()),
                    diff::shown(new.as_deref())
                ));
            }
        };
        field("server name", &self.server_name, &now.server_name);
        field("server version", &self.server_version, &now.server_version);
        field(
            "protocol version",
            &Some(self.protocol_version.clone()),
            &Some(now.protocol_version.clone()),
        );
        changes
    }
}

/// What a definition digest is taken over, in this order (the wire's field names).
#[derive(Serialize)]
struct PromptDefinition<'a> {
    name: &'a str,
    title: Option<&'a str>,
    description: Option<&'a str>,
    arguments: &'a [LockedArgument],
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
        let definition = PromptDefinition {
            name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            arguments: &self.arguments,
        };
        sha256(&serde_json::to_vec(&definition).unwrap_or_default())
    }

    /// How `now` (the server's listing) differs from this definition, one change each;
    /// empty when it is the same.
    pub fn definition_changes(&self, now: &PromptInfo) -> Vec<DefinitionChange> {
        diff::prompt_changes(self, &LockedPrompt::from_info(now))
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

    /// The arguments as `NAME=VALUE` words, each on one line.
    pub fn arguments_text(&self) -> String {
        self.arguments
            .iter()
            .map(|(name, value)| format!("{name}={}", crate::text::quoted_server_text(value)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What a skill's digest is taken over, in this order.
#[derive(Serialize)]
struct SkillDefinition<'a> {
    name: &'a str,
    description: Option<&'a str>,
    dynamic: bool,
    files: &'a BTreeMap<String, String>,
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
        let definition = SkillDefinition {
            name,
            description: self.description.as_deref(),
            dynamic: self.dynamic,
            files: &self.files,
        };
        sha256(&serde_json::to_vec(&definition).unwrap_or_default())
    }

    /// How the skill listed now differs from this one, one change each.
    pub fn definition_changes(&self, name: &str, now: &SkillManifest) -> Vec<DefinitionChange> {
        diff::skill_changes(self, &LockedSkill::from_manifest(name, now))
    }
}

/// The digest of rendered messages: `sha256:` and the hex of their JSON.
pub fn messages_digest(messages: &PromptMessages) -> String {
    sha256(&serde_json::to_vec(&messages.messages).unwrap_or_default())
}

/// `sha256:` and 64 lowercase hex digits of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    let mut out = String::from("sha256:");
    for byte in Sha256::digest(bytes) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests;
