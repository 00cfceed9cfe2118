//! A skill's manifest as a `skills/list` entry describes it (SEP-2640): its `SKILL.md`'s
//! URI, its front matter and its files with their digests. Plain data that the prompt
//! types carry and the checks in `skill_verify` read; it imports nothing else of mcpick.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The name of a skill's entry file.
pub const SKILL_MD: &str = "SKILL.md";

/// One skill as a `skills/list` (or `skills/get`) entry described it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillManifest {
    /// The resource URI of its `SKILL.md`.
    pub uri: String,
    /// Its `SKILL.md` front matter, verbatim as the listing rendered it in JSON.
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill with its digest; `None` for a dynamic skill, whose
    /// content has no stable digests (and so cannot be verified).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<SkillFile>>,
}

/// One file of a skill's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// Its resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Its length in bytes, when the listing gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl SkillManifest {
    /// The front matter's `name`.
    pub fn name(&self) -> &str {
        self.frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The front matter's `description`.
    pub fn description(&self) -> &str {
        self.frontmatter
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The skill's path in its server's namespace (`acme/billing/refunds` for
    /// `skill://acme/billing/refunds/SKILL.md`).
    pub fn skill_path(&self) -> &str {
        skill_path(&self.uri).unwrap_or(&self.uri)
    }

    /// The URI of the skill's root directory (`SKILL.md`'s URI without `/SKILL.md`).
    pub fn root(&self) -> &str {
        self.uri
            .strip_suffix(SKILL_MD)
            .and_then(|u| u.strip_suffix('/'))
            .unwrap_or(&self.uri)
    }

    /// The supporting files (every listed file but `SKILL.md`), by their path relative to
    /// the skill's root.
    pub fn supporting_files(&self) -> Vec<(String, &SkillFile)> {
        self.files
            .iter()
            .flatten()
            .filter(|f| f.uri != self.uri)
            .map(|f| (self.relative(&f.uri), f))
            .collect()
    }

    /// `uri` relative to the skill's root, or the whole URI when it is outside it.
    pub fn relative(&self, uri: &str) -> String {
        uri.strip_prefix(self.root())
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(uri)
            .to_string()
    }

    /// The URI a user's `path` names: a full URI as given, else a path relative to the
    /// skill's root (`references/FORMS.md`), as a filesystem would resolve it.
    pub fn resolve(&self, path: &str) -> String {
        if path.contains("://") {
            path.to_string()
        } else {
            format!("{}/{}", self.root(), path.trim_start_matches("./"))
        }
    }

    /// The manifest entry for `uri`, if the skill lists it.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.files.iter().flatten().find(|f| f.uri == uri)
    }
}

/// The skill path of a `SKILL.md` URI: what lies between `scheme://` and `/SKILL.md`.
pub fn skill_path(uri: &str) -> Option<&str> {
    let (_, rest) = uri.split_once("://")?;
    let path = rest.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
    (!path.is_empty()).then_some(path)
}
