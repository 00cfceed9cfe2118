//! The app's own protocol types: what the rest of mcpick sees of MCP, free of `rmcp`
//! (prompts, their arguments and messages, content blocks, skill manifests, what a server
//! told of itself). The ground that `mcp` (which speaks them on the wire), `cache`, `serve`
//! and the screens share; it imports none of them.

pub mod skill_manifest;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name of a configured server (its `[servers.NAME]` table).
pub type ServerId = String;

/// One prompt a server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptInfo {
    /// The server that offers it.
    pub server: ServerId,
    /// The prompt's identifier, used in `prompts/get`.
    pub name: String,
    /// A display label, when the server gives one.
    pub title: Option<String>,
    /// What the prompt does.
    pub description: Option<String>,
    /// Its arguments, in the server's order.
    pub arguments: Vec<PromptArg>,
    /// Set when the entry is a skill (SEP-2640) rather than a prompt: the manifest its
    /// server listed. A skill is picked by reading its files, not by `prompts/get`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<Box<skill_manifest::SkillManifest>>,
    /// For a prompt that says it is a skill folder's, as `mcpick serve` marks one
    /// ([`SKILL_PROMPT_META_KEY`]): the `SKILL.md` URI of that skill. Used only while
    /// listing, to show the two once; never kept.
    #[serde(skip)]
    pub mirrors_skill: Option<String>,
}

impl PromptInfo {
    /// The label to show: the title if there is one, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }

    /// The argument called `name`.
    pub fn argument(&self, name: &str) -> Option<&PromptArg> {
        self.arguments.iter().find(|a| a.name == name)
    }

    /// What the entry is: a prompt or a skill.
    pub fn kind(&self) -> EntryKind {
        if self.skill.is_some() {
            EntryKind::Skill
        } else {
            EntryKind::Prompt
        }
    }
}

/// What a menu entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// An MCP prompt, filled with `prompts/get`.
    Prompt,
    /// A skill of the Skills extension (SEP-2640), read with `resources/read`.
    Skill,
}

impl EntryKind {
    /// Its name in `--json` output (`prompt` or `skill`).
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Prompt => "prompt",
            EntryKind::Skill => "skill",
        }
    }
}

/// One argument of a prompt. Values are always strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArg {
    /// The key in `arguments`.
    pub name: String,
    /// A display label, when the server gives one.
    pub title: Option<String>,
    /// What to enter.
    pub description: Option<String>,
    /// Whether `prompts/get` needs it (the spec's default is optional).
    pub required: bool,
}

/// The role of a message. MCP defines `user` and `assistant`; some servers send `system`
/// (or another name), which is kept as sent so nothing the server said is lost, and each
/// export format maps it as its API allows (see docs/export-formats.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Said by the user.
    User,
    /// Said by the model.
    Assistant,
    /// Instructions for the model, beyond MCP's schema but sent by some servers.
    System,
    /// Any other role name a server sent, kept verbatim.
    Other(String),
}

impl Role {
    /// The role's wire name.
    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Other(name) => name,
        }
    }

    /// The role a wire name stands for.
    pub fn from_name(name: &str) -> Role {
        match name {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" => Role::System,
            other => Role::Other(other.to_string()),
        }
    }

    /// Whether MCP's schema defines this role (`user` or `assistant`).
    pub fn is_mcp(&self) -> bool {
        matches!(self, Role::User | Role::Assistant)
    }
}

impl Serialize for Role {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Role, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(Role::from_name(&name))
    }
}

/// One message of a filled prompt, as the server sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub role: Role,
    /// Its single content block.
    pub content: Content,
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptMessages {
    /// The server's description of the filled prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<Message>,
}

/// A content block. Known kinds are typed; a kind from a newer revision is kept as raw JSON
/// so nothing the server sent is lost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
// A message is kept small (its rare JSON parts boxed: `annotations`, `_meta`, `icons`), as
// a prompt may have hundreds of thousands; the rare unknown kind is bigger.
#[allow(clippy::large_enum_variant)]
pub enum Content {
    /// A kind mcpick knows.
    Known(KnownContent),
    /// Any other JSON object, kept verbatim.
    Unknown(Value),
}

/// The content kinds of MCP 2025-06-18 and later. `annotations` and `_meta` are kept verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnownContent {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Display hints (audience, priority, lastModified).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Box<Value>>,
        /// Extension metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Box<Value>>,
    },
    /// A base64 image.
    Image {
        /// Base64 bytes.
        data: String,
        /// e.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Display hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Box<Value>>,
        /// Extension metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Box<Value>>,
    },
    /// Base64 audio.
    Audio {
        /// Base64 bytes.
        data: String,
        /// e.g. `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
        /// Display hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Box<Value>>,
        /// Extension metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Box<Value>>,
    },
    /// A resource whose contents are embedded.
    Resource {
        /// The contents.
        resource: EmbeddedResource,
        /// Display hints.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        annotations: Option<Box<Value>>,
        /// Extension metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Box<Value>>,
    },
    /// A link to a resource the client may fetch (boxed: the biggest kind, and a rare one).
    ResourceLink(Box<ResourceLink>),
}

/// A link to a resource the client may fetch (`resource_link` content).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// The resource URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons for it (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Box<Value>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Box<Value>>,
    /// Extension metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Box<Value>>,
}

/// The contents of an embedded resource: text or a base64 blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EmbeddedResource {
    /// Text contents.
    Text {
        /// The resource URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Extension metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Box<Value>>,
    },
    /// Binary contents.
    Blob {
        /// The resource URI.
        uri: String,
        /// Its MIME type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 bytes.
        blob: String,
        /// Extension metadata.
        #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
        meta: Option<Box<Value>>,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Known(KnownContent::Text {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// The content kind's wire name (`text`, `image`, …), or the unknown kind's `type`.
    pub fn kind(&self) -> &str {
        match self {
            Content::Known(KnownContent::Text { .. }) => "text",
            Content::Known(KnownContent::Image { .. }) => "image",
            Content::Known(KnownContent::Audio { .. }) => "audio",
            Content::Known(KnownContent::Resource { .. }) => "resource",
            Content::Known(KnownContent::ResourceLink(_)) => "resource_link",
            Content::Unknown(value) => value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("unknown"),
        }
    }
}

/// Suggestions from `completion/complete`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    /// The values, best first (at most 100).
    pub values: Vec<String>,
    /// How many matches exist in all, when the server says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u32>,
    /// Whether more values exist than were sent.
    #[serde(rename = "hasMore", default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

/// What the connection learned about a server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerDetails {
    /// `stdio` or `http`.
    pub transport: String,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The server's own name, if it gave one.
    pub server_name: Option<String>,
    /// The server's own version, if it gave one.
    pub server_version: Option<String>,
    /// The capabilities the server declared, as JSON.
    pub capabilities: Value,
    /// Whether the server declared the `prompts` capability.
    pub prompts: bool,
    /// Whether the server says it sends prompt list changes.
    pub prompts_list_changed: bool,
    /// Whether the server declared `completions`.
    pub completions: bool,
    /// Whether the server declared `resources` (so `resources/read` may work).
    #[serde(default)]
    pub resources: bool,
    /// Whether the server declared the Skills extension (`io.modelcontextprotocol/skills`
    /// under `capabilities.extensions`), so `skills/list` may be asked.
    #[serde(default)]
    pub skills: bool,
    /// The problems with its prompt files that a served library (`mcpick serve`) reported
    /// on its first `prompts/list` page ([`PROBLEMS_META_KEY`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub served_problems: Vec<ServedProblem>,
}

/// The `_meta` key under which `mcpick serve` lists, on the first page of `prompts/list`,
/// the prompt files it skipped or renamed: a list of [`ServedProblem`]s.
pub const PROBLEMS_META_KEY: &str = "io.github.mcpick/problems";
/// The `_meta` key under which `mcpick serve` counts the problems beyond the
/// [`MAX_PROBLEMS_LISTED`] it lists.
pub const PROBLEMS_LEFT_OUT_META_KEY: &str = "io.github.mcpick/problemsLeftOut";
/// The most problems one `prompts/list` result lists (the serve log has them all).
pub const MAX_PROBLEMS_LISTED: usize = 100;

/// A prompt file that a served library could not serve as written, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedProblem {
    /// The file, as the server names it.
    pub file: String,
    /// The 1-based line, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// What is wrong, and what the server did (`… (file skipped)`).
    pub error: String,
}

impl std::fmt::Display for ServedProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.error),
            None => write!(f, "{}: {}", self.file, self.error),
        }
    }
}

/// A `notifications/message` log line or a stderr line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// Where it came from: `stderr`, or the log level of a `notifications/message`.
    pub source: String,
    /// The text (JSON log data is compacted to one line).
    pub text: String,
    /// When it arrived: milliseconds since mcpick started ([`super::log::since_start_ms`]).
    #[serde(default)]
    pub at_ms: u64,
}

/// The `_meta` key `mcpick serve` puts on a `prompts/list` entry that is a skill folder's
/// prompt, its value the skill's `SKILL.md` URI: a host that lists the server's SEP-2640
/// skills too can show the one entry once, as the skill.
pub const SKILL_PROMPT_META_KEY: &str = "io.github.mcpick/skill";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_content_kind_round_trips_verbatim() {
        let blocks = [
            json!({"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5}}),
            json!({"type":"image","data":"AAA=","mimeType":"image/png"}),
            json!({"type":"audio","data":"BBB=","mimeType":"audio/wav","_meta":{"x":1}}),
            json!({"type":"resource","resource":{"uri":"file:///a","mimeType":"text/plain","text":"t"}}),
            json!({"type":"resource","resource":{"uri":"file:///b","blob":"AQI="}}),
            json!({"type":"resource_link","uri":"file:///c","name":"c","size":3,"icons":[{"src":"data:image/png;base64,AA=="}]}),
            json!({"type":"hologram","frames":[1,2]}),
        ];
        for block in blocks {
            let content: Content = serde_json::from_value(block.clone()).unwrap();
            assert_eq!(serde_json::to_value(&content).unwrap(), block);
        }
    }

    #[test]
    fn unknown_kinds_are_kept_not_dropped() {
        let content: Content = serde_json::from_value(json!({"type":"hologram"})).unwrap();
        assert_eq!(content.kind(), "hologram");
        assert!(matches!(content, Content::Unknown(_)));
    }

    #[test]
    fn a_message_stays_small() {
        // A prompt may hold hundreds of thousands of messages (issue 53: 480,000 in 31 MiB
        // peaked at 1.2 GB, 376 bytes a message): the rare JSON parts and the resource link
        // (the biggest kind) are boxed.
        let size = std::mem::size_of::<Message>();
        assert!(size <= 128, "a Message takes {size} bytes");
    }
}
