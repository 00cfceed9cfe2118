//! Catalog cache files: whatever bytes sit in the cache folder, reading them never panics,
//! and what is accepted is whole and safe to use.

use crate::cache::{self, Freshness, Scope};

/// Fuzz entry point: the input as a catalog file, of the server it names and of another.
pub fn cache(data: &[u8]) {
    check_cache_file(data);
}

/// Every promise of `cache::parse` about `bytes`.
pub fn check_cache_file(bytes: &[u8]) {
    let named = serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| v.get("server")?.as_str().map(str::to_string))
        .unwrap_or_default();
    for server in [named.as_str(), "s", ""] {
        let Ok(entry) = cache::parse(bytes, server) else {
            continue;
        };
        // Accepted: it is this server's, of this format, every prompt its own.
        assert_eq!(entry.server, server);
        assert_eq!(entry.format, cache::FORMAT);
        let prompts = entry.prompts();
        assert!(prompts.iter().all(|p| p.server == server));
        // Written again, it reads back the same.
        let again = serde_json::to_vec(&entry).expect("an entry serialises");
        assert_eq!(cache::parse(&again, server).as_ref(), Ok(&entry));
        // Freshness at any time is defined, and never fresh past the TTL cap.
        for now in [0, 1, entry.written_ms, u64::MAX / 2, u64::MAX] {
            if let Some(Freshness::Fresh { until_ms }) = entry.freshness(now) {
                assert!(until_ms > now);
                assert!(
                    entry
                        .pages
                        .iter()
                        .flatten()
                        .all(|p| p.hints.received_ms <= now)
                );
            }
        }
        // For another sign-in nothing private is left.
        let mut other = entry.clone();
        other.keep_for(Some("another sign-in"));
        let private_left = other
            .pages
            .iter()
            .flatten()
            .map(|p| p.hints.scope)
            .chain(other.discover.iter().map(|d| d.hints.scope))
            .any(|s| s == Scope::Private);
        assert!(!private_left, "private results survived another sign-in");
    }
}
