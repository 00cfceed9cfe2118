//! Writing a server's catalog entry without copying it: serialised from a borrow, and
//! streamed into the file through a small buffer (a list of 10,000 prompts is never held
//! a second time, nor as one block of JSON, while it is written).
//!
//! The file is written as [`crate::cache::store`] writes it: a temp file in the catalog
//! folder, owner-only, renamed over the old one, in a folder only the owner can enter.

use std::io::Write;

use serde::Serialize;

use crate::cache::{Cached, Era, Hints, ServerEntry, write_private_with};
use crate::mcp::client::connection::PromptList;
use crate::model::{PromptInfo, ServerDetails};

/// [`ServerEntry`] by reference, with the two fields a write sets (its sign-in context and
/// its time) given apart. Serialises to the same JSON (same names, same order).
#[derive(Serialize)]
struct EntryRef<'a> {
    format: u32,
    server: &'a str,
    fingerprint: &'a str,
    auth: Option<&'a str>,
    written_ms: u64,
    era: &'a Era,
    details: &'a ServerDetails,
    discover: &'a Option<Cached<serde_json::Value>>,
    pages: Option<Vec<PageRef<'a>>>,
    warnings: &'a [String],
}

/// [`crate::cache::PromptPage`] by reference.
#[derive(Serialize)]
struct PageRef<'a> {
    hints: &'a Hints,
    prompts: &'a [PromptInfo],
}

impl<'a> EntryRef<'a> {
    fn new(entry: &'a ServerEntry, auth: Option<&'a str>, written_ms: u64) -> EntryRef<'a> {
        // Every field named: a field added to `ServerEntry` fails to compile here, rather
        // than going missing from the files.
        let ServerEntry {
            format,
            server,
            fingerprint,
            auth: _,
            written_ms: _,
            era,
            details,
            discover,
            pages,
            warnings,
        } = entry;
        EntryRef {
            format: *format,
            server,
            fingerprint,
            auth,
            written_ms,
            era,
            details,
            discover,
            pages: pages.as_ref().map(|pages| {
                pages
                    .iter()
                    .map(|page| PageRef {
                        hints: &page.hints,
                        prompts: &page.prompts,
                    })
                    .collect()
            }),
            warnings,
        }
    }

    /// The pages of `list` in place of the entry's.
    fn with_list(mut self, list: &'a PromptList) -> EntryRef<'a> {
        let mut rest = list.prompts.as_slice();
        let pages = list.pages.iter().map(|(hints, count)| {
            let (prompts, after) = rest.split_at((*count).min(rest.len()));
            rest = after;
            PageRef { hints, prompts }
        });
        self.pages = Some(pages.collect());
        self
    }
}

/// Writes `entry` as its server's catalog, with sign-in context `auth` and time
/// `written_ms` in place of its own.
pub(in crate::mcp) fn store(
    entry: &ServerEntry,
    auth: Option<&str>,
    written_ms: u64,
) -> std::io::Result<()> {
    write_ref(&EntryRef::new(entry, auth, written_ms))
}

/// Writes `entry` with the pages of `list` (whatever pages `entry` holds) as its server's
/// catalog: a list is written from where it is, never copied for the file.
pub(in crate::mcp) fn store_list(
    entry: &ServerEntry,
    list: &PromptList,
    auth: Option<&str>,
    written_ms: u64,
) -> std::io::Result<()> {
    write_ref(&EntryRef::new(entry, auth, written_ms).with_list(list))
}

fn write_ref(entry: &EntryRef<'_>) -> std::io::Result<()> {
    let path = crate::cache::path_of(entry.server).ok_or_else(|| {
        std::io::Error::other("this platform has no cache directory to keep the catalog in")
    })?;
    let limit = crate::cache::MAX_FILE_BYTES;
    let written = write_private_with(&path, |writer| {
        let mut capped = Capped {
            inner: writer,
            left: limit,
        };
        serde_json::to_writer(&mut capped, entry).map_err(std::io::Error::other)
    });
    match written {
        Err(error) if error.to_string().contains(TOO_LARGE) => {
            // Too large to be read back: not kept, and an older, smaller list is not left
            // to stand for it (as `cache::store` does).
            crate::cache::remove(entry.server)?;
            Err(std::io::Error::other(format!(
                "the catalog of {} would take more than the {} MiB kept",
                entry.server,
                limit / (1024 * 1024)
            )))
        }
        other => other,
    }
}

/// What [`Capped`] fails with once past its limit.
const TOO_LARGE: &str = "the catalog file would be too large";

/// A writer that fails once more than `left` bytes went through it, so a list too large
/// to be read back stops being written there.
struct Capped<'a> {
    inner: &'a mut dyn Write,
    left: u64,
}

impl Write for Capped<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if bytes.len() as u64 > self.left {
            return Err(std::io::Error::other(TOO_LARGE));
        }
        let n = self.inner.write(bytes)?;
        self.left -= n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn entry() -> ServerEntry {
        let text = "[servers.many]\ncommand = \"true\"\n";
        let config = crate::config::parse(text, Path::new("t.toml"), &|_| None)
            .unwrap()
            .servers
            .remove(0);
        let details = ServerDetails {
            transport: "stdio".into(),
            protocol_version: "2026-07-28".into(),
            server_name: Some("x".into()),
            server_version: None,
            capabilities: serde_json::json!({"prompts": {}}),
            prompts: true,
            prompts_list_changed: false,
            completions: false,
            resources: false,
            skills: false,
            served_problems: Vec::new(),
        };
        let mut entry = ServerEntry::new(&config, None, Era::Modern, details);
        entry.discover = Some(Cached {
            hints: crate::cache::Hints::now(Some(60_000), Some(crate::cache::Scope::Public)),
            value: serde_json::json!({"serverInfo": {"name": "x"}}),
        });
        entry.pages = Some(vec![crate::cache::PromptPage {
            hints: crate::cache::Hints::now(Some(60_000), None),
            prompts: (0..3)
                .map(|i| crate::model::PromptInfo {
                    server: "many".into(),
                    name: format!("p{i}"),
                    title: None,
                    description: Some("d".into()),
                    arguments: Vec::new(),
                    skill: None,
                    mirrors_skill: None,
                })
                .collect(),
        }]);
        entry.warnings = vec!["one left out".into()];
        entry
    }

    #[test]
    fn a_streamed_entry_reads_back_as_the_entry_with_its_write_fields() {
        let entry = entry();
        let json = serde_json::to_vec(&EntryRef::new(&entry, Some("ctx"), 42)).unwrap();
        let mut expected = entry.clone();
        expected.auth = Some("ctx".into());
        expected.written_ms = 42;
        assert_eq!(crate::cache::parse(&json, "many").unwrap(), expected);
        // The same bytes as the copying serialisation.
        assert_eq!(json, serde_json::to_vec(&expected).unwrap());
    }

    #[test]
    fn a_list_streamed_from_where_it_is_reads_back_as_its_pages() {
        let full = entry();
        let page = &full.pages.as_ref().unwrap()[0];
        let list = PromptList {
            prompts: page.prompts.clone(),
            warnings: full.warnings.clone(),
            pages: vec![(page.hints, 2), (page.hints, 1)],
        };
        let mut light = full.clone();
        light.pages = None;
        let json = serde_json::to_vec(&EntryRef::new(&light, None, 7).with_list(&list)).unwrap();
        let back = crate::cache::parse(&json, "many").unwrap();
        let pages = back.pages.unwrap();
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].prompts, page.prompts[..2]);
        assert_eq!(pages[1].prompts, page.prompts[2..]);
    }

    #[test]
    fn a_writer_past_its_cap_fails_there() {
        let mut out = Vec::new();
        let mut capped = Capped {
            inner: &mut out,
            left: 5,
        };
        capped.write_all(b"12345").unwrap();
        let error = capped.write_all(b"6").unwrap_err();
        assert!(error.to_string().contains(TOO_LARGE));
        assert_eq!(out, b"12345");
        // Through serde_json as `write_ref` sees it.
        let mut out = Vec::new();
        let mut capped = Capped {
            inner: &mut out,
            left: 3,
        };
        let error = serde_json::to_writer(&mut capped, &"a long string")
            .map_err(std::io::Error::other)
            .unwrap_err();
        assert!(error.to_string().contains(TOO_LARGE), "{error}");
    }

    #[test]
    fn the_file_is_owner_only_and_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("catalog").join("x.json");
        write_private_with(&path, |w| w.write_all(b"old")).unwrap();
        write_private_with(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().unwrap()), 0o700);
        }
        // A failed write leaves the old file.
        let failed = write_private_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("no"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }
}
