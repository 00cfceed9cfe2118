//! Reading and writing catalog files: atomic, owner-only, and distrustful of what it reads.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::{FORMAT, Fields, MAX_FILE_BYTES, ServerEntry, dir, fingerprint};
use crate::config::ServerConfig;

/// Why a catalog file cannot be used. Nothing branches on which (a broken file is
/// ignored and rewritten alike); the cases are typed so `mcpick cache show` and the
/// tests name them, and the words stay with them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The OS refused to open or read it.
    #[error("cannot read {path}: {reason}")]
    Unreadable {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// A FIFO, a device or a folder in its place.
    #[error("{path} is not a regular file")]
    NotRegular {
        /// The file.
        path: String,
    },
    /// Over [`MAX_FILE_BYTES`].
    #[error("{path} is larger than {} MiB", MAX_FILE_BYTES / (1024 * 1024))]
    TooLarge {
        /// The file.
        path: String,
    },
    /// Gone between listing the folder and reading it.
    #[error("it was removed meanwhile")]
    Removed,
    /// JSON that ends early.
    #[error("it is cut short")]
    CutShort,
    /// No catalog file: the parser's words, or what is missing.
    #[error("it is not a catalog file ({0})")]
    NotCatalog(String),
    /// A catalog of another layout.
    #[error("it is of format {found}, this mcpick reads format {FORMAT}")]
    OtherFormat {
        /// The file's `format`.
        found: u32,
    },
    /// The catalog of a server other than the one asked for (its name, cut short).
    #[error("it holds the catalog of another server ({0:?})")]
    OtherServer(String),
    /// More prompts than a catalog keeps.
    #[error("it holds {0} prompts, more than {MAX_PROMPTS}")]
    TooManyPrompts(usize),
    /// A prompt that names another server (its name, cut short).
    #[error("it holds a prompt of another server ({0:?})")]
    StrangerPrompt(String),
    /// A file whose name is not its server's.
    #[error("its file name does not match the server it names")]
    NameMismatch,
}

/// The most prompts one file may hold (ten times the 10,000 the memory budget is set for).
const MAX_PROMPTS: usize = 100_000;

/// What reading a server's catalog file gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded {
    /// No file (first start, or cleared): nothing to show, nothing to say.
    Missing,
    /// A file for an older config of this server (it was edited): ignored without a
    /// notice, replaced at the next successful start.
    Outdated,
    /// A file that cannot be used (unreadable, too large, cut short, not JSON, another
    /// format version, another server's): ignored with this reason, one notice, and
    /// replaced at the next successful start.
    Broken {
        /// Why, naming the file.
        reason: String,
    },
    /// A usable entry, its private results already dropped when they belong to another
    /// sign-in ([`ServerEntry::keep_for`]).
    Found(Box<ServerEntry>),
}

/// The file of `server`'s catalog: `<dir>/<first 16 hex digits of its name's hash>.json`
/// (a name may hold any character; the file names it inside).
pub fn path_of(server: &str) -> Option<PathBuf> {
    let mut name = Fields::default();
    name.field("server", server);
    let hex = name.hex();
    dir().map(|d| d.join(format!("{}.json", &hex[..16])))
}

/// Reads `config`'s catalog, for authorization context `auth` (see [`ServerEntry::keep_for`]).
/// Never fails: every problem is a [`Loaded`] case.
pub fn load(config: &ServerConfig, auth: Option<&str>) -> Loaded {
    let Some(path) = path_of(&config.name) else {
        return Loaded::Missing;
    };
    let bytes = match read_bounded(&path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Loaded::Missing,
        Err(reason) => {
            return Loaded::Broken {
                reason: reason.to_string(),
            };
        }
    };
    match parse(&bytes, &config.name) {
        Ok(mut entry) => {
            if entry.fingerprint != fingerprint(config) {
                return Loaded::Outdated;
            }
            entry.keep_for(auth);
            Loaded::Found(Box::new(entry))
        }
        Err(why) => Loaded::Broken {
            reason: format!("{}: {why}", path.display()),
        },
    }
}

/// Rewrites `config`'s catalog without the private results of another authorization
/// context than `auth` (after `mcpick auth logout` or a new sign-in), so they are gone from
/// the disk, not only unused. Returns whether anything was dropped.
pub fn forget_private(config: &ServerConfig, auth: Option<&str>) -> std::io::Result<bool> {
    let Some(path) = path_of(&config.name) else {
        return Ok(false);
    };
    let Ok(Some(bytes)) = read_bounded(&path) else {
        return Ok(false);
    };
    let Ok(mut entry) = parse(&bytes, &config.name) else {
        return Ok(false);
    };
    if !entry.keep_for(auth) {
        return Ok(false);
    }
    store(&entry)?;
    Ok(true)
}

/// Reads a file of at most [`MAX_FILE_BYTES`]; `Ok(None)` when there is none. Anything but
/// a regular file (a FIFO, a device, a folder) is refused without reading, and opening never
/// blocks: a FIFO put in the folder cannot hold up a start.
fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    let unreadable = |e: std::io::Error| StoreError::Unreadable {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(StoreError::NotRegular {
            path: path.display().to_string(),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(path));
    }
    let mut bytes = Vec::new();
    // One byte over the limit tells a file that grew meanwhile without reading it whole.
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(path));
    }
    Ok(Some(bytes))
}

fn too_large(path: &Path) -> StoreError {
    StoreError::TooLarge {
        path: path.display().to_string(),
    }
}

use crate::sys::fs::open_nonblocking;

/// Reads a catalog file's bytes as `server`'s entry, or says in a few words why it cannot
/// be used. Never panics, whatever the bytes (the fuzz target `cache` holds it to that).
pub fn parse(bytes: &[u8], server: &str) -> Result<ServerEntry, StoreError> {
    // The version first, so a file of another layout says so rather than failing on a field.
    #[derive(serde::Deserialize)]
    struct Version {
        format: Option<u32>,
    }
    let version: Version = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_eof() {
            StoreError::CutShort
        } else {
            StoreError::NotCatalog(e.to_string())
        }
    })?;
    match version.format {
        Some(FORMAT) => {}
        Some(found) => return Err(StoreError::OtherFormat { found }),
        None => return Err(StoreError::NotCatalog("no `format`".into())),
    }
    let entry: ServerEntry =
        serde_json::from_slice(bytes).map_err(|e| StoreError::NotCatalog(e.to_string()))?;
    if entry.server != server {
        return Err(StoreError::OtherServer(crate::text::cut_chars(
            &entry.server,
            40,
        )));
    }
    let prompts: usize = entry.pages.iter().flatten().map(|p| p.prompts.len()).sum();
    if prompts > MAX_PROMPTS {
        return Err(StoreError::TooManyPrompts(prompts));
    }
    if let Some(stranger) = entry
        .pages
        .iter()
        .flatten()
        .flat_map(|p| &p.prompts)
        .find(|p| p.server != server)
    {
        return Err(StoreError::StrangerPrompt(crate::text::cut_chars(
            &stranger.server,
            40,
        )));
    }
    Ok(entry)
}

/// Writes `entry` as its server's catalog: a temp file in the same folder, owner-only,
/// renamed over the old one (readers see the old file or the new, never half of one). The
/// folder is made owner-only (0700).
pub fn store(entry: &ServerEntry) -> std::io::Result<()> {
    let path = path_of(&entry.server).ok_or_else(|| {
        std::io::Error::other("this platform has no cache directory to keep the catalog in")
    })?;
    let json = serde_json::to_vec(entry).map_err(std::io::Error::other)?;
    if json.len() as u64 > MAX_FILE_BYTES {
        // Too large to be read back: not kept, and an older, smaller list is not left to
        // stand for it.
        remove(&entry.server)?;
        return Err(std::io::Error::other(format!(
            "the catalog of {} would take {} MiB, more than the {} MiB kept",
            entry.server,
            json.len() / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )));
    }
    write_private(&path, &json)
}

/// Writes `bytes` to `path` atomically, readable and writable by the owner only, in a
/// folder only the owner can enter (created when missing).
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_private_with(path, |writer| writer.write_all(bytes))
}

/// [`write_private`] of what `write` writes, through a buffer: for a catalog serialised
/// straight from its list, with no copy of it whole in memory. A failure of `write` leaves
/// the old file as it was.
pub(crate) fn write_private_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    // tempfile creates it 0600 on Unix; set again for umasks and other platforms' sake.
    let temp = tempfile::NamedTempFile::new_in(dir)?;
    set_owner_only(temp.path())?;
    {
        let mut writer = std::io::BufWriter::new(temp.as_file());
        write(&mut writer)?;
        writer.flush()?;
    }
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

use crate::sys::fs::{create_private_dir, set_owner_only};

/// Deletes `server`'s catalog; `Ok(false)` when it had none.
pub fn remove(server: &str) -> std::io::Result<bool> {
    let Some(path) = path_of(server) else {
        return Ok(false);
    };
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// One file of the catalog folder, as `mcpick cache show` lists it.
#[derive(Debug, Clone)]
pub struct CachedFile {
    /// Where it is.
    pub path: PathBuf,
    /// What it holds, or why it cannot be used (read without a config to check against:
    /// the server is whatever the file says).
    pub entry: Result<ServerEntry, StoreError>,
}

/// Every file in the catalog folder, sorted by server name (broken ones last).
pub fn all() -> std::io::Result<Vec<CachedFile>> {
    let Some(dir) = dir() else {
        return Ok(Vec::new());
    };
    let read = match std::fs::read_dir(&dir) {
        Ok(read) => read,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for item in read {
        let path = item?.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let entry = read_bounded(&path)
            .and_then(|bytes| bytes.ok_or(StoreError::Removed))
            .and_then(|bytes| {
                // The name inside decides; the file name must then match it. (Read with
                // every other field skipped: no second tree of the whole file.)
                #[derive(serde::Deserialize)]
                struct Named {
                    server: Option<String>,
                }
                let named = serde_json::from_slice::<Named>(&bytes)
                    .ok()
                    .and_then(|n| n.server)
                    .unwrap_or_default();
                let entry = parse(&bytes, &named)?;
                if path_of(&named).as_deref() != Some(path.as_path()) {
                    return Err(StoreError::NameMismatch);
                }
                Ok(entry)
            });
        files.push(CachedFile { path, entry });
    }
    files.sort_by(|a, b| match (&a.entry, &b.entry) {
        (Ok(x), Ok(y)) => x.server.cmp(&y.server),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => a.path.cmp(&b.path),
    });
    Ok(files)
}

/// Deletes the catalog of `server`, or of every server; returns how many files went.
pub fn clear(server: Option<&str>) -> std::io::Result<usize> {
    if let Some(server) = server {
        return Ok(usize::from(remove(server)?));
    }
    let mut removed = 0;
    for file in all()? {
        match std::fs::remove_file(&file.path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// Whether `config`'s fingerprint is the one `entry` was learned with.
pub fn matches(entry: &ServerEntry, config: &ServerConfig) -> bool {
    entry.fingerprint == fingerprint(config)
}

/// [`read_bounded`], for the unit tests.
#[cfg(test)]
pub(super) fn read_bounded_for_tests(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    read_bounded(path)
}
