//! The served library: prompts loaded from files, with unique names, the skill folders
//! found beside them (each also a prompt), and the operations the server answers with
//! (pages, filling, completion, skill files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::folders::skipped_folder;
use super::native::{EmbedError, FileReader};
use super::skills::{self, LoadedSkillFile, SKILL_FILE, SkillDef};
use super::{LoadError, MessageTemplate, PromptDef, claude, native, vscode};
use crate::model::{Completion, Content, EmbeddedResource, KnownContent, Message, PromptMessages};

/// The most completion values one answer carries (the spec's limit).
pub const MAX_COMPLETIONS: usize = 100;
/// The largest prompt or embedded file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A request the library cannot answer; all are `-32602 Invalid params` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArgumentError {
    /// No prompt has that name.
    #[error("unknown prompt: {0}")]
    UnknownPrompt(String),
    /// Required arguments were not given.
    #[error("missing required argument{} for prompt {prompt}: {}", if missing.len() > 1 { "s" } else { "" }, missing.join(", "))]
    MissingArguments {
        /// The prompt.
        prompt: String,
        /// The missing names.
        missing: Vec<String>,
    },
    /// Completion for an argument the prompt does not have.
    #[error("prompt {prompt} has no argument {argument}")]
    UnknownArgument {
        /// The prompt.
        prompt: String,
        /// The argument asked for.
        argument: String,
    },
    /// A `prompts/list` cursor this server did not hand out.
    #[error("invalid cursor: {0:?}")]
    BadCursor(String),
}

/// The prompts being served, and what went wrong loading them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Library {
    prompts: Vec<PromptDef>,
    /// Each prompt's index in `prompts` by name (names are unique): `prompts/get` of the
    /// last of 20,000 prompts costs what the first does.
    by_name: std::collections::HashMap<String, usize>,
    /// The skill folders, each at a unique `skill://` path (each is a prompt too).
    skills: Vec<SkillDef>,
    /// Files skipped and names changed, each with its file (shown as `file:line: problem`).
    pub diagnostics: Vec<LoadError>,
    /// Files the prompts embed (or tried to), and the skill folders, for the watcher: a
    /// change to anything below one of these paths matters.
    pub embedded_files: Vec<PathBuf>,
}

impl Library {
    /// Builds a library from parse results: failures become diagnostics, and a name already
    /// taken gets a `-2`, `-3`… suffix (also reported).
    pub fn from_results(results: Vec<Result<PromptDef, LoadError>>) -> Library {
        use std::collections::{HashMap, HashSet};
        let mut library = Library::default();
        // Names as written are reserved first, so a generated `x-2` never takes a name
        // another file declares.
        let mut taken: HashSet<String> = results
            .iter()
            .filter_map(|r| r.as_ref().ok().map(|p| p.name.clone()))
            .collect();
        let mut first_source: HashMap<String, String> = HashMap::new();
        // Names by their NFC form: `café` written with a composed é and with e + U+0301
        // are two prompts no one can tell apart, so the second is refused.
        let mut by_look: HashMap<String, (String, String)> = HashMap::new();
        for result in results {
            let result = result.and_then(fit_name).and_then(|prompt| {
                use unicode_normalization::UnicodeNormalization;
                let look: String = prompt.name.nfc().collect();
                match by_look.get(&look) {
                    Some((name, source)) if *name != prompt.name => Err(LoadError {
                        file: prompt.source.clone(),
                        line: None,
                        message: format!(
                            "the prompt name `{}` looks the same as `{}` of {source} but is encoded otherwise (composed and decomposed accents); rename one",
                            crate::text::visible_on_one_line(&prompt.name),
                            crate::text::visible_on_one_line(name),
                        ),
                    }),
                    _ => {
                        by_look
                            .entry(look)
                            .or_insert_with(|| (prompt.name.clone(), prompt.source.clone()));
                        Ok(prompt)
                    }
                }
            });
            match result {
                Ok(mut prompt) => {
                    match first_source.get(&prompt.name).cloned() {
                        None => {
                            first_source.insert(prompt.name.clone(), prompt.source.clone());
                        }
                        Some(taken_by) => {
                            let base = prompt.name.clone();
                            let mut n = 2;
                            while taken.contains(&format!("{base}-{n}")) {
                                n += 1;
                            }
                            prompt.name = format!("{base}-{n}");
                            taken.insert(prompt.name.clone());
                            first_source.insert(prompt.name.clone(), prompt.source.clone());
                            library.diagnostics.push(LoadError {
                                file: prompt.source.clone(),
                                line: None,
                                message: format!(
                                    "the prompt name `{base}` is already used by {taken_by}; serving this one as `{}`",
                                    prompt.name
                                ),
                            });
                        }
                    }
                    library
                        .by_name
                        .insert(prompt.name.clone(), library.prompts.len());
                    library.prompts.push(prompt);
                }
                Err(error) => library.diagnostics.push(LoadError {
                    message: format!("{} (file skipped)", error.message),
                    ..error
                }),
            }
        }
        library
    }

    /// Joins libraries in order, keeping prompt names and skill paths unique across them.
    pub fn combine(parts: Vec<Library>) -> Library {
        let mut diagnostics = Vec::new();
        let mut results = Vec::new();
        let mut embedded = Vec::new();
        let mut skills = Vec::new();
        for part in parts {
            diagnostics.extend(part.diagnostics);
            embedded.extend(part.embedded_files);
            results.extend(part.prompts.into_iter().map(Ok));
            skills.extend(part.skills);
        }
        let mut library = Library::from_results(results);
        diagnostics.append(&mut library.diagnostics);
        library.skills = place_skills(skills, &mut diagnostics);
        library.diagnostics = diagnostics;
        library.embedded_files = embedded;
        library
    }

    /// Every skill, in load order.
    pub fn skills(&self) -> &[SkillDef] {
        &self.skills
    }

    /// The skill whose `SKILL.md` has this URI.
    pub fn skill(&self, uri: &str) -> Option<&SkillDef> {
        self.skills.iter().find(|s| s.uri() == uri)
    }

    /// The skill file at this `skill://` URI, with the skill it belongs to (the first one,
    /// for a nested skill's files, which both it and the skill around it list).
    pub fn skill_file(&self, uri: &str) -> Option<(&SkillDef, &LoadedSkillFile)> {
        self.skills
            .iter()
            .find_map(|skill| skill.file(uri).map(|file| (skill, file)))
    }

    /// The direct children of a `skill://` folder, or `None` when it is not one.
    pub fn skill_directory(&self, uri: &str) -> Option<Vec<skills::DirectoryEntry>> {
        skills::directory(&self.skills, uri)
    }

    /// The problems as the lines the serve log and legacy clients get (`file:line: problem`).
    pub fn problem_lines(&self) -> Vec<String> {
        self.diagnostics.iter().map(ToString::to_string).collect()
    }

    /// Every prompt, in load order.
    pub fn prompts(&self) -> &[PromptDef] {
        &self.prompts
    }

    /// The prompt called `name`.
    pub fn find(&self, name: &str) -> Option<&PromptDef> {
        self.by_name.get(name).and_then(|&at| self.prompts.get(at))
    }

    /// Whether `other` lists the same prompts (names, titles, descriptions, arguments).
    pub fn same_listing(&self, other: &Library) -> bool {
        self.prompts.len() == other.prompts.len()
            && self.prompts.iter().zip(&other.prompts).all(|(a, b)| {
                a.name == b.name
                    && a.title == b.title
                    && a.description == b.description
                    && a.arguments == b.arguments
            })
    }

    /// One page of the listing. The cursor is the offset of the page's first prompt.
    pub fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(&[PromptDef], Option<String>), ArgumentError> {
        page_of(&self.prompts, cursor, page_size)
    }

    /// The text files the prompts embed, each once (by URI, in load order), as the
    /// resources `resources/list` offers: a client can read again what a prompt embedded.
    pub fn resources(&self) -> Vec<ServedResource> {
        let mut resources: Vec<ServedResource> = Vec::new();
        for prompt in &self.prompts {
            for message in &prompt.messages {
                let MessageTemplate::Embedded {
                    uri,
                    mime_type,
                    text,
                    ..
                } = message
                else {
                    continue;
                };
                match resources.iter_mut().find(|r| &r.uri == uri) {
                    Some(known) => {
                        if !known.embedded_by.contains(&prompt.name) {
                            known.embedded_by.push(prompt.name.clone());
                        }
                    }
                    None => resources.push(ServedResource {
                        uri: uri.clone(),
                        name: resource_name(uri),
                        mime_type: mime_type.clone(),
                        text: text.clone(),
                        embedded_by: vec![prompt.name.clone()],
                    }),
                }
            }
        }
        resources
    }

    /// The embedded file with this URI, as the prompts embed it (read at load).
    pub fn resource(&self, uri: &str) -> Option<ServedResource> {
        self.resources().into_iter().find(|r| r.uri == uri)
    }
}

/// A file the prompts embed, offered as a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedResource {
    /// Its URI, the one the prompts' embedded resources carry.
    pub uri: String,
    /// Its file name.
    pub name: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its text, read when the library was loaded.
    pub text: String,
    /// The prompts that embed it.
    pub embedded_by: Vec<String>,
}

/// The offset a cursor names, when it is one this server issues: a page's first item,
/// written as [`page_of`] writes it (no sign, no leading zero or blank), so each page has
/// exactly one cursor and whatever caches pages by cursor holds at most one entry a page.
pub fn cursor_offset(cursor: &str, page_size: usize) -> Option<usize> {
    cursor
        .parse::<usize>()
        .ok()
        .filter(|n| n % page_size.max(1) == 0 && n.to_string() == cursor)
}

/// One page of `items`; the cursor is the offset of the page's first item, as this function
/// issued it (anything else, `00` or `+2` or an offset inside a page, is a bad cursor).
pub fn page_of<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [T], Option<String>), ArgumentError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor_offset(cursor, page_size)
            .filter(|&n| n <= items.len())
            .ok_or_else(|| ArgumentError::BadCursor(cursor.to_string()))?,
    };
    let end = (start + page_size.max(1)).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((&items[start..end], next))
}

/// The last segment of a `file://` or `mcpick://builtin/` URI, percent-decoded.
fn resource_name(uri: &str) -> String {
    super::skills::decode_segment(uri.rsplit('/').next().unwrap_or(uri))
}

impl Library {
    /// Fills a prompt. Every required argument must be present (an empty value counts as
    /// given); arguments the prompt does not declare are ignored.
    pub fn render(
        &self,
        name: &str,
        values: &BTreeMap<String, String>,
    ) -> Result<PromptMessages, ArgumentError> {
        let prompt = self
            .find(name)
            .ok_or_else(|| ArgumentError::UnknownPrompt(name.to_string()))?;
        let missing: Vec<String> = prompt
            .arguments
            .iter()
            .filter(|a| a.required && !values.contains_key(&a.name))
            .map(|a| a.name.clone())
            .collect();
        if !missing.is_empty() {
            return Err(ArgumentError::MissingArguments {
                prompt: name.to_string(),
                missing,
            });
        }
        let mut values = values.clone();
        for arg in &prompt.arguments {
            if let Some(default) = &arg.default
                && values.get(&arg.name).is_none_or(String::is_empty)
            {
                values.insert(arg.name.clone(), default.clone());
            }
        }
        let values = &values;
        let messages = prompt
            .messages
            .iter()
            .map(|message| match message {
                MessageTemplate::Text { role, template } => Message {
                    role: role.clone(),
                    content: Content::text(template.render(values)),
                },
                MessageTemplate::Embedded {
                    role,
                    uri,
                    mime_type,
                    text,
                } => Message {
                    role: role.clone(),
                    content: Content::Known(KnownContent::Resource {
                        resource: EmbeddedResource::Text {
                            uri: uri.clone(),
                            mime_type: Some(mime_type.clone()),
                            text: text.clone(),
                            meta: None,
                        },
                        annotations: None,
                        meta: None,
                    }),
                },
                MessageTemplate::Image {
                    role,
                    mime_type,
                    data,
                } => Message {
                    role: role.clone(),
                    content: Content::Known(KnownContent::Image {
                        data: data.clone(),
                        mime_type: mime_type.clone(),
                        annotations: None,
                        meta: None,
                    }),
                },
            })
            .collect();
        Ok(PromptMessages {
            description: prompt.description.clone(),
            messages,
        })
    }

    /// Completion from an argument's declared values: those starting with `value` first
    /// (ignoring case), then those containing its letters in order; at most
    /// [`MAX_COMPLETIONS`], with the true `total`.
    pub fn complete(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
    ) -> Result<Completion, ArgumentError> {
        let found = self
            .find(prompt)
            .ok_or_else(|| ArgumentError::UnknownPrompt(prompt.to_string()))?;
        let arg = found
            .arguments
            .iter()
            .find(|a| a.name == argument)
            .ok_or_else(|| ArgumentError::UnknownArgument {
                prompt: prompt.to_string(),
                argument: argument.to_string(),
            })?;
        let typed = value.to_lowercase();
        let (mut prefixed, mut fuzzy): (Vec<&String>, Vec<&String>) = (Vec::new(), Vec::new());
        for candidate in &arg.values {
            let lower = candidate.to_lowercase();
            if lower.starts_with(&typed) {
                prefixed.push(candidate);
            } else if is_subsequence(&typed, &lower) {
                fuzzy.push(candidate);
            }
        }
        prefixed.append(&mut fuzzy);
        let total = prefixed.len();
        Ok(Completion {
            values: prefixed
                .into_iter()
                .take(MAX_COMPLETIONS)
                .cloned()
                .collect(),
            total: Some(u32::try_from(total).unwrap_or(u32::MAX)),
            has_more: Some(total > MAX_COMPLETIONS),
        })
    }
}

/// Refuses a prompt whose name holds a line break, a control or an invisible character: it
/// would split a `list` line, drive the reader's terminal or hide part of the name.
fn fit_name(prompt: PromptDef) -> Result<PromptDef, LoadError> {
    let Some(bad) = prompt
        .name
        .chars()
        .find(|&c| crate::text::is_unfit_for_a_name(c))
    else {
        return Ok(prompt);
    };
    Err(LoadError {
        file: prompt.source.clone(),
        line: None,
        message: format!(
            "the prompt name `{}` holds U+{:04X}, a control or invisible character; rename the file or give it a `name:`",
            crate::text::visible_on_one_line(&prompt.name),
            bad as u32
        ),
    })
}

fn is_subsequence(needle: &str, haystack: &str) -> bool {
    let mut letters = haystack.chars();
    needle.chars().all(|c| letters.any(|h| h == c))
}

/// What kind of prompt file `path` is, and the prompt's default name.
pub(super) enum Kind {
    VsCode(String),
    Claude(String),
    Mcpick(String),
}

/// `path` relative to the folder `root` it was found under, for [`classify`]. A root that is
/// itself a `commands` folder (`mcpick serve .claude/commands`) stays in the path, so its
/// `.md` files are commands as they are when its parent is served.
pub(super) fn relative_to_root(root: &Path, path: &Path) -> PathBuf {
    let relative = path.strip_prefix(root).unwrap_or(path);
    if root.file_name().is_some_and(|name| name == "commands") {
        Path::new("commands").join(relative)
    } else {
        relative.to_path_buf()
    }
}

/// Classifies a file by name; `explicit` files (named on the command line) that are plain
/// `.md` count as Claude Code commands even outside a `commands` folder.
pub(super) fn classify(relative: &Path, explicit: bool) -> Option<Kind> {
    let file_name = relative.file_name()?.to_str()?;
    if let Some(stem) = file_name.strip_suffix(".prompt.md") {
        return Some(Kind::VsCode(stem.to_string()));
    }
    if let Some(stem) = file_name.strip_suffix(".mcpick.md") {
        return Some(Kind::Mcpick(stem.to_string()));
    }
    let stem = file_name.strip_suffix(".md")?;
    let folders: Vec<&str> = relative
        .parent()
        .map(|p| p.iter().filter_map(|c| c.to_str()).collect())
        .unwrap_or_default();
    match folders.iter().rposition(|f| *f == "commands") {
        Some(at) => {
            let mut parts: Vec<&str> = folders[at + 1..].to_vec();
            parts.push(stem);
            Some(Kind::Claude(parts.join(":")))
        }
        None if explicit => Some(Kind::Claude(stem.to_string())),
        None => None,
    }
}

/// Parses one prompt file's text.
pub(super) fn parse_file(
    kind: Kind,
    text: &str,
    display: &str,
    files: &dyn FileReader,
) -> Result<PromptDef, LoadError> {
    match kind {
        Kind::VsCode(stem) => vscode::parse(text, display, &stem),
        Kind::Claude(name) => claude::parse(text, display, &name),
        Kind::Mcpick(stem) => native::parse(text, display, &stem, files),
    }
}

/// Reads embedded files from disk, relative to the prompt's folder, inside the served
/// roots, and remembers every path it was asked for (so the watcher can follow them, even
/// one that does not exist yet).
struct DiskFiles<'a> {
    folder: PathBuf,
    roots: &'a [PathBuf],
    asked: std::cell::RefCell<Vec<PathBuf>>,
}

impl FileReader for DiskFiles<'_> {
    fn read_relative(&self, relative: &str) -> Result<(String, Vec<u8>), EmbedError> {
        if Path::new(relative).is_absolute() {
            return Err(EmbedError::Absolute);
        }
        let joined = self.folder.join(relative);
        self.asked.borrow_mut().push(joined.clone());
        let path = joined.canonicalize().map_err(io)?;
        self.asked.borrow_mut().push(path.clone());
        if !self.roots.iter().any(|root| path.starts_with(root)) {
            let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
            return Err(EmbedError::OutsideRoots(roots.join(", ")));
        }
        let bytes = read_capped(&path, self.roots)?;
        Ok((file_uri(&path), bytes))
    }
}

/// Reads a regular file of at most [`MAX_FILE_BYTES`] that is inside `roots` as opened:
/// the check is of the file opened, not of its path before (a file replaced by a link
/// between a check and the open would otherwise be read from wherever the link leads).
/// Anything else (a FIFO would block forever, a device never end) is refused; the cap
/// holds even if the file grows meanwhile.
fn read_capped(path: &Path, roots: &[PathBuf]) -> Result<Vec<u8>, EmbedError> {
    use std::io::Read as _;
    // A link that stays inside is served: resolved first, then its target is opened (and
    // checked) without following anything that became a link since.
    let path = path.canonicalize().map_err(io)?;
    let (file, real) = crate::sys::fs::open_real(&path).map_err(|e| {
        if crate::sys::fs::is_link_loop(&e) {
            EmbedError::BecameLink
        } else {
            io(e)
        }
    })?;
    if !roots.iter().any(|root| real.starts_with(root)) {
        return Err(EmbedError::LeadsOutside);
    }
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(EmbedError::NotRegular);
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(EmbedError::TooLarge(Some(meta.len())));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(EmbedError::TooLarge(None));
    }
    Ok(bytes)
}

/// An OS error as an embedded file's failure, in the OS's words.
fn io(error: std::io::Error) -> EmbedError {
    EmbedError::Io(error.to_string())
}

/// A `file://` URI for an absolute path, percent-encoding what URIs do not allow.
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

/// Loads every prompt file under `paths` (files, or folders searched recursively; hidden
/// folders like `.github` are searched, `.git`, `node_modules` and `target` below a served
/// folder are not; symbolic links are followed, each folder once).
pub fn load_paths(paths: &[PathBuf]) -> Library {
    let mut results = Vec::new();
    let mut roots = Vec::new();
    let mut diagnostics = Vec::new();
    let mut embedded = Vec::new();
    for path in paths {
        match path.canonicalize() {
            Ok(canonical) => roots.push((path.clone(), canonical)),
            Err(e) => diagnostics.push(LoadError {
                file: path.display().to_string(),
                line: None,
                message: format!("{e} (not served)"),
            }),
        }
    }
    let canonical_roots: Vec<PathBuf> = roots
        .iter()
        .map(|(_, c)| {
            if c.is_file() {
                c.parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| c.clone())
            } else {
                c.clone()
            }
        })
        .collect();
    let mut found_skills = Vec::new();
    let mut taken = TakenPaths::new();
    for (given, canonical) in &roots {
        let explicit = canonical.is_file();
        let files = if explicit {
            vec![(given.clone(), canonical.clone())]
        } else {
            let mut found = Vec::new();
            let mut seen = std::collections::HashSet::new();
            seen.insert(canonical.clone());
            walk(
                canonical,
                given,
                &canonical_roots,
                &mut seen,
                &mut found,
                &mut diagnostics,
            );
            found
        };
        // A folder holding a SKILL.md is a skill: its files are the skill's, not prompts.
        let skill_dirs = skill_folders(&files);
        for (display_path, file) in files {
            if skill_dirs.iter().any(|(_, dir)| file.starts_with(dir)) {
                continue;
            }
            let relative = if explicit {
                PathBuf::from(file.file_name().unwrap_or_default())
            } else {
                relative_to_root(canonical, &file)
            };
            let Some(kind) = classify(&relative, explicit) else {
                continue;
            };
            let display = display_path.display().to_string();
            let reader = DiskFiles {
                folder: file.parent().map(Path::to_path_buf).unwrap_or_default(),
                roots: &canonical_roots,
                asked: Default::default(),
            };
            let result = read_capped(&file, &canonical_roots)
                .map_err(|why| why.to_string())
                .and_then(|bytes| {
                    String::from_utf8(bytes)
                        .map_err(|_| "it is not UTF-8 text (save it as UTF-8)".to_string())
                })
                .map_err(|why| LoadError {
                    file: display.clone(),
                    line: None,
                    message: format!("cannot read it: {why}"),
                })
                .and_then(|text| parse_file(kind, &text, &display, &reader));
            embedded.extend(reader.asked.into_inner());
            results.push(result);
        }
        for skill in load_skills(&skill_dirs, &mut embedded, &mut taken, &mut diagnostics) {
            match skill {
                Ok((skill, prompt)) => {
                    found_skills.push(skill);
                    results.push(Ok(prompt));
                }
                Err(error) => diagnostics.push(LoadError {
                    message: format!("{} (skill not served)", error.message),
                    ..error
                }),
            }
        }
    }
    let mut library = Library::from_results(results);
    diagnostics.append(&mut library.diagnostics);
    library.skills = found_skills;
    library.diagnostics = diagnostics;
    library.embedded_files = embedded;
    library
}

/// The skill folders among walked files: the folder of each `SKILL.md`, as shown and as
/// walked, sorted so a folder comes before the folders inside it.
fn skill_folders(files: &[(PathBuf, PathBuf)]) -> Vec<(PathBuf, PathBuf)> {
    let mut dirs: Vec<(PathBuf, PathBuf)> = files
        .iter()
        .filter(|(_, file)| file.file_name().is_some_and(|n| n == SKILL_FILE))
        .filter_map(|(shown, file)| {
            let shown = shown
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            Some((shown.to_path_buf(), file.parent()?.to_path_buf()))
        })
        .collect();
    dirs.sort_by(|a, b| a.1.cmp(&b.1));
    dirs.dedup_by(|a, b| a.1 == b.1);
    dirs
}

/// Reads and checks each skill folder (see [`skills`]), each with its prompt. A skill inside
/// another one that loaded is served below it (`outer/sub/inner`); the folders are
/// remembered in `watched`, so a change to any file in them reloads.
fn load_skills(
    dirs: &[(PathBuf, PathBuf)],
    watched: &mut Vec<PathBuf>,
    taken: &mut TakenPaths,
    diagnostics: &mut Vec<LoadError>,
) -> Vec<Result<(SkillDef, PromptDef), LoadError>> {
    let mut loaded: Vec<(PathBuf, String)> = Vec::new();
    let mut out = Vec::new();
    for (shown, dir) in dirs {
        watched.push(dir.clone());
        if let Ok(canonical) = dir.canonicalize() {
            watched.push(canonical);
        }
        // A served `.` has no name of its own: its real path does.
        let folder_name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .or_else(|| {
                let real = dir.canonicalize().ok()?;
                Some(real.file_name()?.to_string_lossy().into_owned())
            })
            .unwrap_or_default();
        let source = shown.join(SKILL_FILE).display().to_string();
        let result = skills::read_folder(dir, shown)
            .and_then(|files| skills::parse_skill(&folder_name, files, &source));
        let result = result.map(|(skill, prompt)| {
            let around = loaded
                .iter()
                .rev()
                .find(|(outer, _)| dir.starts_with(outer) && dir != outer);
            match around {
                Some((outer, outer_path)) => {
                    let between: Vec<String> = dir
                        .strip_prefix(outer)
                        .unwrap_or(dir)
                        .iter()
                        .map(|c| skills::encode_segment(&c.to_string_lossy()))
                        .collect();
                    let path = format!("{outer_path}/{}", between.join("/"));
                    (place(skill.at(path), taken, diagnostics), prompt)
                }
                None => (place(skill, taken, diagnostics), prompt),
            }
        });
        if let Ok((skill, _)) = &result {
            loaded.push((dir.clone(), skill.skill_path.clone()));
        }
        out.push(result);
    }
    out
}

/// Skill paths already served, each with the `SKILL.md` that took it.
type TakenPaths = std::collections::HashMap<String, String>;

/// Gives every skill a unique `skill://` path (see [`place`]).
fn place_skills(skills: Vec<SkillDef>, diagnostics: &mut Vec<LoadError>) -> Vec<SkillDef> {
    let mut taken = TakenPaths::new();
    skills
        .into_iter()
        .map(|skill| place(skill, &mut taken, diagnostics))
        .collect()
}

/// Serves `skill` at its own path (its name, or for a nested skill the path of the skill
/// around it and the folders between) when free, else below the first free `_N/` prefix
/// (reported), so a second folder of the same name is still served, told apart. `_` is in
/// no skill name, so the prefix is never mistaken for a skill's folder.
fn place(skill: SkillDef, taken: &mut TakenPaths, diagnostics: &mut Vec<LoadError>) -> SkillDef {
    let Some(first) = taken.get(&skill.skill_path).cloned() else {
        taken.insert(skill.skill_path.clone(), skill.source.clone());
        return skill;
    };
    let wanted = skill.uri();
    let path = (2..)
        .map(|n| format!("_{n}/{}", skill.skill_path))
        .find(|p| !taken.contains_key(p))
        .unwrap_or_default();
    taken.insert(path.clone(), skill.source.clone());
    let skill = skill.at(path);
    diagnostics.push(LoadError {
        file: skill.source.clone(),
        line: None,
        message: format!(
            "another skill ({first}) is already served at {wanted}; serving this one at {}",
            skill.uri()
        ),
    });
    skill
}

/// Collects files under `dir` (sorted, so names and collisions are stable), pairing each
/// with the path to show: `shown` joined with the file's path below `dir`. Links are
/// followed; `seen` holds the canonical folders already walked, so a link cycle ends.
fn walk(
    dir: &Path,
    shown: &Path,
    roots: &[PathBuf],
    seen: &mut std::collections::HashSet<PathBuf>,
    out: &mut Vec<(PathBuf, PathBuf)>,
    diagnostics: &mut Vec<LoadError>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let path = entry.path();
        let shown_path = shown.join(&name);
        let named_as_prompt = classify(Path::new(&name), false).is_some();
        let mut report = |message: String| {
            diagnostics.push(LoadError {
                file: shown_path.display().to_string(),
                line: None,
                message,
            })
        };
        // `metadata` follows links; a dangling link or a loop is reported, not dropped.
        let meta = match std::fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if named_as_prompt {
                    report("a broken link (not served)".into());
                }
                continue;
            }
            Err(e) => {
                if named_as_prompt || is_link_loop(&e) {
                    report(format!("cannot read it: {e} (not served)"));
                }
                continue;
            }
        };
        // A link may lead anywhere: only what really lies in a served folder is served, so
        // `mcpick serve .` on a checkout (git keeps links) hands out none of your other files.
        // Where it leads is not said: the problems go to the clients too.
        // Only a link can lead out (the walk starts at a served root and goes down only into
        // folders inside one), so only a link's real path is looked up.
        let is_link = entry.file_type().is_ok_and(|kind| kind.is_symlink());
        let inside = |real: &Path| roots.iter().any(|root| real.starts_with(root));
        if meta.is_dir() {
            if name.to_str().is_some_and(skipped_folder) {
                continue;
            }
            let Ok(canonical) = path.canonicalize() else {
                continue;
            };
            if !inside(&canonical) {
                report("a link leading out of the served folders; not searched".into());
                continue;
            }
            if named_as_prompt {
                report("a folder, not a prompt file (searched like any folder)".into());
            }
            if seen.insert(canonical.clone()) {
                walk(&path, &shown_path, roots, seen, out, diagnostics);
            } else {
                report(format!(
                    "a link to a folder already searched ({}); not searched again",
                    canonical.display()
                ));
            }
        } else if meta.is_file() {
            if is_link && !path.canonicalize().is_ok_and(|real| inside(&real)) {
                // Only what could be a prompt is worth a word (every format is a `.md` file;
                // under `commands/` any `.md` is one): other files are skipped anyway.
                if named_as_prompt || Path::new(&name).extension().is_some_and(|e| e == "md") {
                    report("a link leading out of the served folders; not served".into());
                }
                continue;
            }
            out.push((shown_path, path));
        } else if named_as_prompt {
            // A FIFO would block the reader forever, a device never end.
            report("it is not a regular file (a FIFO, socket or device); not served".into());
        }
    }
}

use crate::sys::fs::is_link_loop;

#[cfg(test)]
mod tests;
