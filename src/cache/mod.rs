//! The catalog on disk: what the last successful start learned about each server (its
//! era, handshake details, `server/discover` result and every `prompts/list` page, each
//! with the cache hints of MCP 2026-07-28), so the next start draws the menu at once and a
//! one-shot `get` skips the round trips it does not need.
//!
//! One file per server, `<cache dir>/catalog/<hash of the name>.json`, written atomically
//! and readable by the user only. It holds only what mcpick shows (server text already
//! masked by the connection), never tokens or header values: the config and the sign-in
//! are kept as hashes ([`fingerprint`], the entry's `auth`). A file that cannot be trusted
//! is ignored ([`Loaded::Broken`]) and replaced by the next successful start.

mod start;
mod store;

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::{ServerConfig, TransportConfig};
use crate::model::{PromptInfo, ServerDetails};

pub use start::{at_start, ignore_for_this_run};
pub use store::{
    CachedFile, Loaded, StoreError, all, clear, forget_private, load, matches, parse, path_of,
    remove, store,
};
pub(crate) use store::{write_private, write_private_with};

/// The version of the file layout; a file of another version is ignored and rewritten.
pub const FORMAT: u32 = 1;

/// The largest catalog file read or written (10,000 prompts take about 4 MiB): a larger
/// list is not kept, so no start reads one.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The longest a server's result is taken as fresh, whatever `ttlMs` it gave (as rmcp's
/// own response cache caps it).
pub const MAX_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// Which handshake a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// MCP 2026-07-28: stateless, `server/discover`, no `initialize`.
    Modern,
    /// 2025-11-25 and older: `initialize` first.
    Legacy,
}

/// Who may reuse a result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Anyone: reused whatever the sign-in.
    Public,
    /// Only the same authorization context (the same sign-in). A legacy result, which
    /// carries no hints, counts as private.
    Private,
}

/// The cache hints of one result: when it arrived, for how long the server said it stays
/// fresh, and who may reuse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hints {
    /// When it was received, in milliseconds since the Unix epoch.
    pub received_ms: u64,
    /// `ttlMs` as the server sent it; 0 when it sent none (a legacy server): stale at once.
    pub ttl_ms: u64,
    /// `cacheScope`.
    pub scope: Scope,
}

impl Hints {
    /// Hints for a result received now.
    pub fn now(ttl_ms: Option<u64>, scope: Option<Scope>) -> Hints {
        Hints {
            received_ms: now_ms(),
            ttl_ms: ttl_ms.unwrap_or(0),
            scope: scope.unwrap_or(Scope::Private),
        }
    }

    /// When it stops being fresh (ms since the epoch), the TTL capped at [`MAX_TTL_MS`].
    pub fn expires_ms(&self) -> u64 {
        self.received_ms.saturating_add(self.ttl_ms.min(MAX_TTL_MS))
    }

    /// Whether it is fresh at `now_ms`: `now < received + ttlMs`. A time of receipt in the
    /// future (a clock set back, or a forged file) is never fresh.
    pub fn is_fresh(&self, now_ms: u64) -> bool {
        self.received_ms <= now_ms && now_ms < self.expires_ms()
    }
}

/// A result with its hints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cached<T> {
    /// Its cache hints.
    pub hints: Hints,
    /// The result.
    pub value: T,
}

/// One page of `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptPage {
    /// Its cache hints.
    pub hints: Hints,
    /// The prompts it held that mcpick could read, texts masked.
    pub prompts: Vec<PromptInfo>,
}

/// How fresh a server's cached prompt list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Every page is fresh until `until_ms` (ms since the epoch): not listed again before.
    Fresh {
        /// When the first page goes stale.
        until_ms: u64,
    },
    /// Some page is stale: shown, and listed again.
    Stale,
}

/// What the catalog keeps about one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerEntry {
    /// [`FORMAT`].
    pub format: u32,
    /// The server's name in the config.
    pub server: String,
    /// [`fingerprint`] of the config it was learned with.
    pub fingerprint: String,
    /// A hash of the sign-in its private results were fetched with (`None`: signed out),
    /// from the sign-in's own module (`mcp::oauth::authorization_context`).
    pub auth: Option<String>,
    /// When the file was written, ms since the epoch.
    pub written_ms: u64,
    /// Which handshake the server speaks.
    pub era: Era,
    /// What the handshake told (texts masked; `served_problems` of the last list).
    pub details: ServerDetails,
    /// The `server/discover` result as JSON (2026-07-28 servers only), texts masked.
    pub discover: Option<Cached<serde_json::Value>>,
    /// Every page of the last full `prompts/list`, in order; `None` when it was never
    /// listed (or its pages were dropped as private to another sign-in).
    pub pages: Option<Vec<PromptPage>>,
    /// What that list left out, one line each (masked server text).
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl ServerEntry {
    /// A new entry for `config`, learned in authorization context `auth`.
    pub fn new(
        config: &ServerConfig,
        auth: Option<String>,
        era: Era,
        details: ServerDetails,
    ) -> ServerEntry {
        ServerEntry {
            format: FORMAT,
            server: config.name.clone(),
            fingerprint: fingerprint(config),
            auth,
            written_ms: now_ms(),
            era,
            details,
            discover: None,
            pages: None,
            warnings: Vec::new(),
        }
    }

    /// Every cached prompt, in the server's order (empty when it was never listed).
    pub fn prompts(&self) -> Vec<PromptInfo> {
        self.pages
            .iter()
            .flatten()
            .flat_map(|page| page.prompts.iter().cloned())
            .collect()
    }

    /// How fresh the prompt list is at `now_ms`; `None` when there is none.
    pub fn freshness(&self, now_ms: u64) -> Option<Freshness> {
        let pages = self.pages.as_ref()?;
        if pages.iter().all(|p| p.hints.is_fresh(now_ms)) {
            let until_ms = pages
                .iter()
                .map(|p| p.hints.expires_ms())
                .min()
                .unwrap_or(now_ms);
            // A list of no pages (no prompts capability) is as fresh as the handshake.
            let until_ms = match (&self.discover, pages.is_empty()) {
                (Some(discover), true) => discover.hints.expires_ms(),
                _ => until_ms,
            };
            if until_ms > now_ms {
                return Some(Freshness::Fresh { until_ms });
            }
        }
        Some(Freshness::Stale)
    }

    /// The narrowest scope of its prompt list: private if any page is. (The discover
    /// result's own scope is not known: rmcp's handshake keeps no hints of it, so it is
    /// stored as private and does not count here.)
    pub fn scope(&self) -> Scope {
        let private = self
            .pages
            .iter()
            .flatten()
            .any(|p| p.hints.scope == Scope::Private);
        if private {
            Scope::Private
        } else {
            Scope::Public
        }
    }

    /// Drops the private results when `auth` is not the context they were fetched in
    /// (after a sign-out, a new sign-in): the whole list when any page is private (a list
    /// missing pages would be wrong), and a private discover result. Public results and
    /// the era stay. Returns whether anything was dropped.
    pub fn keep_for(&mut self, auth: Option<&str>) -> bool {
        if self.auth.as_deref() == auth {
            return false;
        }
        let mut dropped = false;
        if self
            .pages
            .as_ref()
            .is_some_and(|pages| pages.iter().any(|p| p.hints.scope == Scope::Private))
        {
            self.pages = None;
            self.warnings.clear();
            dropped = true;
        }
        if self
            .discover
            .as_ref()
            .is_some_and(|d| d.hints.scope == Scope::Private)
        {
            self.discover = None;
            dropped = true;
        }
        self.auth = auth.map(str::to_string);
        dropped
    }

    /// Marks the prompt list stale now (a `list_changed` notice invalidates it at once,
    /// whatever its TTL): kept to show, listed again at the next chance.
    pub fn invalidate_prompts(&mut self) {
        for page in self.pages.iter_mut().flatten() {
            page.hints.ttl_ms = 0;
        }
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The folder of the catalog: `<platform cache dir>/catalog`.
pub fn dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "mcpick").map(|d| d.cache_dir().join("catalog"))
}

/// Whether `config`'s server is cached at all: not with `cache = false`, and not while it
/// asks for `${input:…}` values (its config is not known before they are typed, and they
/// are secrets).
pub fn applies_to(config: &ServerConfig) -> bool {
    config.cache && !config.uses_inputs()
}

/// A hash of everything in `config` that decides what the server answers: the transport
/// and its command (with the size and modification time of the program's file, named by
/// its path or found on `PATH`), args, env, cwd, or URL, headers and OAuth settings, and the pinned
/// protocol version. Two configs with the same fingerprint run the same server; the values
/// themselves (tokens among them) are never stored.
pub fn fingerprint(config: &ServerConfig) -> String {
    let mut hash = Fields::default();
    hash.field("name", &config.name);
    match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            hash.field("stdio", command);
            // A program named by its path is stamped by its file: a rebuilt or upgraded
            // binary (mcpick's own bundled library among them) may serve other prompts.
            if let Some(meta) = program_file(command) {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map(|d| d.as_nanos())
                    .unwrap_or(0);
                hash.field("program", &format!("{} {modified}", meta.len()));
            }
            for arg in args {
                hash.field("arg", arg);
            }
            for (key, value) in env {
                hash.field("env", key);
                hash.field("=", value);
            }
            if let Some(cwd) = cwd {
                hash.field("cwd", &cwd.to_string_lossy());
            }
        }
        TransportConfig::Http {
            url,
            headers,
            legacy_sse,
            oauth,
        } => {
            hash.field(if *legacy_sse { "sse" } else { "http" }, url);
            for (key, value) in headers {
                hash.field("header", &key.to_ascii_lowercase());
                hash.field("=", value);
            }
            hash.field("client_id", oauth.client_id.as_deref().unwrap_or(""));
            hash.field(
                "client_secret",
                oauth.client_secret.as_deref().unwrap_or(""),
            );
            for scope in &oauth.scopes {
                hash.field("scope", scope);
            }
            hash.field(
                "client_metadata_url",
                oauth.client_metadata_url.as_deref().unwrap_or(""),
            );
            // A machine grant is another identity; its changing parts (a workload's JWT, an
            // ID token) are not hashed, or every run would start from an outdated cache.
            // Nothing is added for a browser sign-in, so caches written before stay good.
            if oauth.grant != crate::config::OAuthGrant::AuthorizationCode {
                hash.field("grant", oauth.grant.name());
                if let Some(key) = &oauth.private_key {
                    hash.field("private_key", &key.to_string_lossy());
                }
                if let crate::config::OAuthGrant::Enterprise(idp) = &oauth.grant {
                    hash.field("idp_token_endpoint", &idp.token_endpoint);
                    hash.field("idp_client_id", idp.client_id.as_deref().unwrap_or(""));
                }
            }
        }
    }
    hash.field(
        "protocol_version",
        config.protocol_version.as_deref().unwrap_or(""),
    );
    hash.hex()
}

/// The metadata of the file `command` runs: the path itself when it names one, else the
/// first match on `PATH`, as a shell finds it.
fn program_file(command: &str) -> Option<std::fs::Metadata> {
    if command.contains('/') {
        return std::fs::metadata(command).ok();
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .find_map(|candidate| std::fs::metadata(candidate).ok().filter(|m| m.is_file()))
}

/// A SHA-256 over named, length-prefixed fields (no two different field lists hash the
/// same input), for fingerprints and sign-in hashes.
#[derive(Default)]
pub struct Fields(Sha256);

impl Fields {
    /// Adds one field.
    pub fn field(&mut self, name: &str, value: &str) {
        for part in [name, value] {
            self.0.update((part.len() as u64).to_le_bytes());
            self.0.update(part.as_bytes());
        }
    }

    /// The hash, as 64 hex digits.
    pub fn hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

#[cfg(test)]
mod tests;
