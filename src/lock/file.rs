//! The lockfile as a whole: its servers, read from TOML (with where it is wrong) and
//! written back sorted.

use super::diff::shown;
use super::entries::{LockedPrompt, LockedSkill};
use crate::model::{PromptInfo, ServerDetails};
use serde::{Deserialize, Serialize};
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
                    shown(old.as_deref()),
                    shown(new.as_deref())
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
