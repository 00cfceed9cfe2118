//! What the catalog offers a server at start, and `--refresh`, which reads none this run.

use super::store::{Loaded, load, remove};
use super::{Scope, ServerEntry, applies_to};
use crate::config::{ServerConfig, TransportConfig};

/// Set by `--refresh`: this run reads no catalog (and writes what it learns).
static IGNORED_THIS_RUN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--refresh`: from now on this process reads no catalog; what it learns is still written.
pub fn ignore_for_this_run() {
    IGNORED_THIS_RUN.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// What the catalog offers `config`'s server at start: its entry when there is a usable
/// one (private results of another sign-in dropped), and a one-line notice when its file
/// was broken (ignored, and replaced when the server next lists). Nothing for a server
/// that is not cached ([`applies_to`]) or with `--refresh`. `authorization` gives the
/// current sign-in's context when it is needed (the sign-in is not this module's to read).
pub fn at_start(
    config: &ServerConfig,
    authorization: impl FnOnce() -> Option<String>,
) -> (Option<ServerEntry>, Option<String>) {
    if !applies_to(config) {
        // `cache = false` (or a config with typed secrets): nothing of it stays on disk.
        let _ = remove(&config.name);
        return (None, None);
    }
    if IGNORED_THIS_RUN.load(std::sync::atomic::Ordering::Relaxed) {
        return (None, None);
    }
    let auth = authorization();
    match load(config, auth.as_deref()) {
        Loaded::Found(mut entry) => {
            // A stdio server's authorization is whatever its inherited environment holds,
            // which mcpick cannot see: its private rows are shown, but always listed again.
            if matches!(config.transport, TransportConfig::Stdio { .. })
                && entry
                    .pages
                    .iter()
                    .flatten()
                    .any(|p| p.hints.scope == Scope::Private)
            {
                entry.invalidate_prompts();
            }
            (Some(*entry), None)
        }
        Loaded::Missing | Loaded::Outdated => (None, None),
        Loaded::Broken { reason } => (
            None,
            Some(format!(
                "the cached catalog of {} was ignored: {reason}; it is rewritten when the server lists",
                crate::text::one_line(&config.name)
            )),
        ),
    }
}
