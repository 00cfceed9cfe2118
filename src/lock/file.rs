//! The lockfile as a whole: its version and servers, each server's identity, prompts and
//! skills (read in read.rs, written in write.rs).

use super::diff::shown;
use super::entries::{LockedPrompt, LockedSkill};
use crate::model::{PromptInfo, ServerDetails};
use std::collections::BTreeMap;

/// The lockfile's name in the current folder when none is given.
pub const DEFAULT_FILE: &str = "mcpick.lock";

/// The format version this mcpick writes and reads.
pub const VERSION: u32 = 1;

/// A lockfile: per configured server name, what it offered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lockfile {
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// Each locked server, by its name in the config.
    pub servers: BTreeMap<String, LockedServer>,
}

/// One server as it was locked: who it said it is, and its prompts and skills.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LockedServer {
    /// `serverInfo.name`, as the server gave it.
    pub server_name: Option<String>,
    /// `serverInfo.version`.
    pub server_version: Option<String>,
    /// The protocol revision spoken (e.g. `2025-06-18`, `2026-07-28`).
    pub protocol_version: String,
    /// Its prompts, by name.
    pub prompts: BTreeMap<String, LockedPrompt>,
    /// Its skills (SEP-2640), by name.
    pub skills: BTreeMap<String, LockedSkill>,
}

impl Lockfile {
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
    pub(super) fn check_digests(&self) -> Result<(), String> {
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
