//! Skill folders: a directory holding a `SKILL.md` whose YAML front matter has `name` and
//! `description` (the Agent Skills format, as Claude Code's `.claude/skills/NAME/SKILL.md`).
//! Each one is served both ways: as a SEP-2640 skill (`skills/list`, `skills/get`, its
//! files as `skill://` resources with their `sha256` digests and sizes) and as a prompt of
//! the same name, its body the message and `$ARGUMENTS` filled as Claude Code fills it.
//!
//! Reading a folder ([`read_folder`]) is the only I/O here; checking what was read and
//! building the skill ([`parse_skill`]) is pure. A folder that breaks a rule (no front
//! matter, a name that is not the folder's or not a valid skill name, a file too large, a
//! link leading out of the folder) is refused whole: nothing of it is served half-checked.
//! The bytes are kept as read, so what `resources/read` serves is always what the listed
//! digest describes, until the next reload replaces both.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::claude::{self, Dialect};
use super::{LoadError, PromptDef, frontmatter};

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The URI scheme skills are served under (SEP-2640 "Resource Mapping").
pub const SKILL_SCHEME: &str = "skill://";
/// The MIME type of a directory resource (SEP-2640 "Directory resources").
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// The most files one skill may hold, `SKILL.md` included (the limit SEP-2640's
/// conformance checks hold servers to).
pub const MAX_SKILL_FILES: usize = 512;
/// The most bytes one skill's files may add up to (16 MiB, the same limit).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
/// The longest skill name the Agent Skills format allows.
const MAX_NAME_CHARS: usize = 64;
/// The longest description the Agent Skills format allows.
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// One file of a skill, as read when the library was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSkillFile {
    /// Its path below the skill folder, `/`-separated (`references/guide.md`).
    pub path: String,
    /// Its bytes, exactly as read.
    pub bytes: Vec<u8>,
    /// `sha256:` and the 64 lowercase hex digits of the bytes' SHA-256.
    pub digest: String,
    /// A MIME type from its extension.
    pub mime_type: String,
}

/// A skill folder, checked and read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillDef {
    /// The `name` of its front matter, which is also its folder's name.
    pub name: String,
    /// The `description` of its front matter.
    pub description: String,
    /// The front matter exactly as written, as JSON (`skills/list` carries it verbatim).
    pub frontmatter: Map<String, Value>,
    /// Where it sits in the `skill://` namespace: URI path segments, `/`-joined, the last
    /// one its name (`review`, or `team/review` when two skills share a name).
    pub skill_path: String,
    /// Every file of the folder, `SKILL.md` included, sorted by path.
    pub files: Vec<LoadedSkillFile>,
    /// The `SKILL.md` as shown in problems (`skills/review/SKILL.md`).
    pub source: String,
}

impl SkillDef {
    /// The URI of its `SKILL.md`, which names the skill in `skills/get`.
    pub fn uri(&self) -> String {
        format!("{SKILL_SCHEME}{}/{SKILL_FILE}", self.skill_path)
    }

    /// The URI of its folder, a directory resource (no trailing slash).
    pub fn root_uri(&self) -> String {
        format!("{SKILL_SCHEME}{}", self.skill_path)
    }

    /// The URI of one of its files.
    pub fn file_uri(&self, file: &LoadedSkillFile) -> String {
        format!(
            "{SKILL_SCHEME}{}/{}",
            self.skill_path,
            encode_path(&file.path)
        )
    }

    /// The file at `uri`, if it is one of this skill's.
    pub fn file(&self, uri: &str) -> Option<&LoadedSkillFile> {
        let relative = uri
            .strip_prefix(SKILL_SCHEME)?
            .strip_prefix(self.skill_path.as_str())?
            .strip_prefix('/')?;
        self.files.iter().find(|f| encode_path(&f.path) == relative)
    }

    /// The same skill, served at `skill_path`.
    pub fn at(mut self, skill_path: String) -> SkillDef {
        self.skill_path = skill_path;
        self
    }
}

/// A MIME type from a file's extension; bytes that are not UTF-8 text and have no known
/// type are `application/octet-stream`, not the text type the extension table defaults to.
fn mime_type(path: &str, bytes: &[u8]) -> &'static str {
    let extension = path.rsplit('.').next().unwrap_or("").to_lowercase();
    let known = match extension.as_str() {
        "sh" | "bash" => Some("text/x-shellscript"),
        "pdf" => Some("application/pdf"),
        "svg" => Some("image/svg+xml"),
        "xml" => Some("application/xml"),
        "txt" | "text" => Some("text/plain"),
        _ => None,
    };
    let by_table = super::native::mime_for(path);
    match known {
        Some(mime) => mime,
        None if by_table == "text/plain" && std::str::from_utf8(bytes).is_err() => {
            "application/octet-stream"
        }
        None => by_table,
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`, as SEP-2640 writes digests.
pub fn digest(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in Sha256::digest(bytes) {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Percent-encodes one URI path segment: everything but RFC 3986's unreserved characters.
pub fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

/// Percent-encodes each segment of a `/`-separated path.
fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether `name` follows the Agent Skills naming rules: 1 to 64 characters, lowercase
/// letters, digits and hyphens, no hyphen first, last, or next to another.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// A problem with the `SKILL.md` of `source`.
fn problem(source: &str, line: Option<usize>, message: impl Into<String>) -> LoadError {
    LoadError {
        file: source.to_string(),
        line,
        message: message.into(),
    }
}

/// Checks the files read from a skill folder called `folder_name` and builds the skill
/// (served at its name until [`SkillDef::at`] says otherwise) and its prompt. `files` are
/// `(path below the folder, bytes)`; `source` is the `SKILL.md` as problems show it.
pub fn parse_skill(
    folder_name: &str,
    mut files: Vec<(String, Vec<u8>)>,
    source: &str,
) -> Result<(SkillDef, PromptDef), LoadError> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    if files.len() > MAX_SKILL_FILES {
        return Err(problem(
            source,
            None,
            format!(
                "the skill folder holds {} files; a skill may have at most {MAX_SKILL_FILES} (move the rest out)",
                files.len()
            ),
        ));
    }
    let total: u64 = files.iter().map(|(_, bytes)| bytes.len() as u64).sum();
    if total > MAX_SKILL_BYTES {
        return Err(problem(
            source,
            None,
            format!(
                "the skill's files add up to {total} bytes; a skill may hold at most 16 MiB (move large files out)"
            ),
        ));
    }
    let text = files
        .iter()
        .find(|(path, _)| path == SKILL_FILE)
        .map(|(_, bytes)| bytes)
        .ok_or_else(|| problem(source, None, "the skill folder has no SKILL.md"))?;
    let text = std::str::from_utf8(text)
        .map_err(|_| problem(source, None, "it is not UTF-8 text (save it as UTF-8)"))?;
    let frontmatter = read_frontmatter(text, source)?;
    let name = match frontmatter.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        Some(other) if !other.is_null() => {
            return Err(problem(
                source,
                Some(2),
                format!(
                    "the front matter's `name` is {other}, not text (write `name: {folder_name}`)"
                ),
            ));
        }
        _ => {
            return Err(problem(
                source,
                Some(2),
                "the front matter has no `name` (add `name: {folder}` with the folder's name)"
                    .replace("{folder}", folder_name),
            ));
        }
    };
    let description = match frontmatter.get("description") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.clone(),
        _ => {
            return Err(problem(
                source,
                Some(2),
                "the front matter has no `description` (add one line saying what the skill does and when to use it)",
            ));
        }
    };
    if !is_valid_name(&name) {
        return Err(problem(
            source,
            Some(2),
            format!(
                "the skill name {name:?} breaks the Agent Skills naming rules: 1 to 64 lowercase letters, digits and single hyphens, not first or last"
            ),
        ));
    }
    if name != folder_name {
        return Err(problem(
            source,
            Some(2),
            format!(
                "the skill is named {name:?} but its folder is {folder_name:?}: a skill's name must be its folder's (rename one of them)"
            ),
        ));
    }
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(problem(
            source,
            Some(2),
            format!(
                "the description is {} characters; the Agent Skills format allows at most {MAX_DESCRIPTION_CHARS}",
                description.chars().count()
            ),
        ));
    }
    let mut prompt = claude::parse_as(text, source, &name, Dialect::Skill)?;
    prompt.description = Some(description.clone());
    let files = files
        .into_iter()
        .map(|(path, bytes)| LoadedSkillFile {
            digest: digest(&bytes),
            mime_type: mime_type(&path, &bytes).to_string(),
            path,
            bytes,
        })
        .collect();
    let skill = SkillDef {
        skill_path: encode_segment(&name),
        name,
        description,
        frontmatter,
        files,
        source: source.to_string(),
    };
    Ok((skill, prompt))
}

/// A `SKILL.md` filled for `task` (what was typed after `/name`) as its prompt route fills
/// it, which is how Claude Code fills a skill: the body without its front matter, with
/// `$ARGUMENTS` the task and `$0`, `$1`… its words; a body without placeholders gets the task
/// at its end (`ARGUMENTS: …`), and an empty task adds nothing. A host loading a skill over
/// MCP sends this, so a skill reads the same by either route.
pub fn fill_skill(skill_md: &str, task: &str) -> String {
    let body = || frontmatter::split(skill_md).body.to_string();
    let Ok(prompt) = claude::parse_as(skill_md, SKILL_FILE, "skill", Dialect::Skill) else {
        return body();
    };
    let values = std::collections::BTreeMap::from([(claude::LINE.to_string(), task.to_string())]);
    match prompt.messages.first() {
        Some(super::MessageTemplate::Text { template, .. }) => template.render(&values),
        _ => body(),
    }
}

/// The front matter of a `SKILL.md` as a JSON object, read as YAML (the way SEP-2640 hosts
/// read it back and compare it).
fn read_frontmatter(text: &str, source: &str) -> Result<Map<String, Value>, LoadError> {
    let no_front_matter = || {
        problem(
            source,
            Some(1),
            "SKILL.md has no front matter: start it with a `---` line, then `name:` and `description:` lines, then `---`",
        )
    };
    let split = frontmatter::split(text);
    let yaml = split.yaml.ok_or_else(no_front_matter)?;
    // `frontmatter::split` also ends front matter at `...`; hosts reading skills look for
    // `---` only, so a skill must use it.
    let unprefixed = text.strip_prefix('\u{feff}').unwrap_or(text);
    let yaml_end = unprefixed.find('\n').map_or(0, |i| i + 1) + yaml.len();
    let closing = unprefixed[yaml_end..]
        .lines()
        .next()
        .unwrap_or("")
        .trim_end();
    if closing != "---" {
        return Err(problem(
            source,
            Some(split.body_line.saturating_sub(1).max(1)),
            "end the front matter with a `---` line (not `...`)",
        ));
    }
    let value: Value = match yaml_serde::from_str(yaml) {
        Ok(value) => value,
        Err(e) => {
            let line = e.location().map(|l| {
                let before = yaml.get(..l.index()).unwrap_or(yaml);
                before.matches('\n').count() + 2
            });
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            return Err(problem(
                source,
                line,
                format!("front matter: {message} (a skill's front matter must be valid YAML)"),
            ));
        }
    };
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Err(no_front_matter()),
        _ => Err(problem(
            source,
            Some(2),
            "the front matter is not a set of `key: value` lines",
        )),
    }
}

/// Reads every file of the skill folder `dir` (not below `.git`, `node_modules` or
/// `target`), as `(path below the folder, bytes)`. Links are followed only while they stay
/// inside the folder; one leading out of it, a broken one, a file that is not a regular
/// file, or one too large refuses the folder. `shown` is the folder as problems show it.
pub fn read_folder(dir: &Path, shown: &Path) -> Result<Vec<(String, Vec<u8>)>, LoadError> {
    let source = shown.join(SKILL_FILE).display().to_string();
    let root = dir
        .canonicalize()
        .map_err(|e| problem(&source, None, format!("cannot read the skill folder: {e}")))?;
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    seen.insert(root.clone());
    let mut total = 0u64;
    read_below(&root, &root, "", &source, &mut seen, &mut out, &mut total)?;
    Ok(out)
}

fn read_below(
    root: &Path,
    dir: &Path,
    prefix: &str,
    source: &str,
    seen: &mut std::collections::HashSet<PathBuf>,
    out: &mut Vec<(String, Vec<u8>)>,
    total: &mut u64,
) -> Result<(), LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        problem(
            source,
            None,
            format!("cannot read the skill folder {}: {e}", dir.display()),
        )
    })?;
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            return Err(problem(
                source,
                None,
                format!(
                    "the file name {:?} in the skill folder is not UTF-8 (rename it)",
                    entry.file_name()
                ),
            ));
        };
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        let link = std::fs::symlink_metadata(&path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        let target = if link {
            let target = path.canonicalize().map_err(|_| {
                problem(
                    source,
                    None,
                    format!("`{relative}` is a broken link (remove it, or point it at a file in the skill folder)"),
                )
            })?;
            if !target.starts_with(root) {
                return Err(problem(
                    source,
                    None,
                    format!(
                        "`{relative}` is a link leading out of the skill folder (to {}): copy the file in instead",
                        target.display()
                    ),
                ));
            }
            target
        } else {
            path.clone()
        };
        let meta = std::fs::metadata(&target)
            .map_err(|e| problem(source, None, format!("cannot read `{relative}`: {e}")))?;
        if meta.is_dir() {
            if super::folders::skipped_folder(&name) {
                continue;
            }
            let canonical = target.canonicalize().unwrap_or(target);
            if seen.insert(canonical.clone()) {
                read_below(root, &canonical, &relative, source, seen, out, total)?;
            }
        } else if meta.is_file() {
            let bytes = read_capped(&target, root, MAX_SKILL_BYTES.saturating_sub(*total))
                .map_err(|why| problem(source, None, format!("`{relative}`: {why}")))?;
            *total += bytes.len() as u64;
            out.push((relative, bytes));
            if out.len() > MAX_SKILL_FILES {
                return Err(problem(
                    source,
                    None,
                    format!(
                        "the skill folder holds more than {MAX_SKILL_FILES} files (move the rest out)"
                    ),
                ));
            }
        } else {
            return Err(problem(
                source,
                None,
                format!("`{relative}` is not a regular file (remove it from the skill folder)"),
            ));
        }
    }
    Ok(())
}

/// Reads a file of at most `left` bytes inside `root` as opened (a file swapped for a link
/// after the folder was read is caught, not followed), the cap holding even if it grows
/// meanwhile.
fn read_capped(path: &Path, root: &Path, left: u64) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let too_large = || "the skill's files would add up to more than 16 MiB (move large files out)";
    let (file, real) = crate::sys::fs::open_real(path).map_err(|e| e.to_string())?;
    if !real.starts_with(root) {
        return Err("it leads out of the skill folder".into());
    }
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("it is not a regular file".into());
    }
    if meta.len() > left {
        return Err(too_large().into());
    }
    let mut bytes = Vec::new();
    file.take(left + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > left {
        return Err(too_large().into());
    }
    Ok(bytes)
}

/// A child of a directory resource: a file or a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryEntry {
    /// Its URI (a folder's without a trailing slash).
    pub uri: String,
    /// Its last path segment, decoded as written on disk.
    pub name: String,
    /// The file's MIME type, or [`DIRECTORY_MIME_TYPE`].
    pub mime_type: String,
    /// The file's size in bytes; none for a folder.
    pub size: Option<u64>,
}

/// The direct children of the directory `uri` within `skills`, sorted by URI; `None` when
/// no skill has a folder there (a file, or nothing at all). A folder is any `/`-ended
/// prefix of a served file's URI below `skill://`, so the folders above a skill (a
/// `team/` prefix) are directories too.
pub fn directory(skills: &[SkillDef], uri: &str) -> Option<Vec<DirectoryEntry>> {
    let below = uri.strip_prefix(SKILL_SCHEME)?;
    if below.is_empty() || below.ends_with('/') {
        return None;
    }
    let prefix = format!("{uri}/");
    let mut children: std::collections::BTreeMap<String, DirectoryEntry> = Default::default();
    let mut found = false;
    for skill in skills {
        for file in &skill.files {
            let file_uri = skill.file_uri(file);
            let Some(rest) = file_uri.strip_prefix(&prefix) else {
                continue;
            };
            found = true;
            let (child, is_dir) = match rest.split_once('/') {
                Some((folder, _)) => (folder, true),
                None => (rest, false),
            };
            let child_uri = format!("{prefix}{child}");
            let name = decode_segment(child);
            children.entry(child_uri.clone()).or_insert(if is_dir {
                DirectoryEntry {
                    uri: child_uri,
                    name,
                    mime_type: DIRECTORY_MIME_TYPE.to_string(),
                    size: None,
                }
            } else {
                DirectoryEntry {
                    uri: child_uri,
                    name,
                    mime_type: file.mime_type.clone(),
                    size: Some(file.bytes.len() as u64),
                }
            });
        }
    }
    found.then(|| children.into_values().collect())
}

/// Undoes [`encode_segment`] (for names shown to people), and any `%XX` escape of a URI
/// segment; a `%` not followed by two hex digits is kept as it is.
pub(super) fn decode_segment(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
