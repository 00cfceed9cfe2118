//! Tests of hub.rs.

use super::*;

#[test]
fn a_list_change_makes_the_cached_list_stale_at_once() {
    let text = "[servers.s]\ncommand = \"true\"\ncache = false\n";
    let config = crate::config::parse(text, std::path::Path::new("t.toml"), &|_| None)
        .unwrap()
        .servers
        .remove(0);
    let details = ServerDetails {
        transport: "stdio".into(),
        protocol_version: "2026-07-28".into(),
        server_name: None,
        server_version: None,
        capabilities: serde_json::json!({}),
        prompts: true,
        prompts_list_changed: true,
        completions: false,
        resources: false,
        skills: false,
        served_problems: Vec::new(),
    };
    let mut entry = ServerEntry::new(&config, None, crate::cache::Era::Modern, details);
    entry.pages = Some(vec![crate::cache::PromptPage {
        hints: crate::cache::Hints::now(Some(3_600_000), None),
        prompts: Vec::new(),
    }]);
    let catalog = Catalog::new(
        CatalogUse::MENU,
        Some(entry),
        Writes::default(),
        WriteFailures::default(),
    );
    let now = crate::cache::now_ms();
    let freshness = |c: &Catalog| c.entry().unwrap().freshness(now);
    assert!(matches!(freshness(&catalog), Some(Freshness::Fresh { .. })));
    catalog.invalidate(&config);
    assert_eq!(freshness(&catalog), Some(Freshness::Stale));
    // `cache = false`: nothing was written.
    assert!(lock(&catalog.writes).is_empty());
}

#[test]
fn a_ttl_re_list_comes_after_the_expiry_within_its_jitter() {
    for random in [0, 1, 999, 1_000, 1_001, u64::MAX / 3, u64::MAX] {
        // Ten seconds left: up to one second of jitter.
        let wait = ttl_wait(10_000, random);
        assert!(wait >= Duration::from_millis(10_000), "{wait:?}");
        assert!(wait <= Duration::from_millis(11_000), "{wait:?}");
        // An hour left: the jitter is capped.
        let wait = ttl_wait(3_600_000, random);
        assert!(
            wait <= Duration::from_millis(3_600_000 + MAX_TTL_JITTER_MS),
            "{wait:?}"
        );
        // Already expired (a clock that jumped): soon, but never a tight loop.
        assert_eq!(ttl_wait(0, random), LIST_SETTLE);
    }
    // The deadline itself is that wait from now (within the time the call takes).
    let now = crate::cache::now_ms();
    let start = tokio::time::Instant::now();
    let wait = ttl_deadline(now + 10_000) - start;
    assert!(wait >= Duration::from_millis(9_000), "{wait:?}");
    assert!(wait <= Duration::from_millis(11_500), "{wait:?}");
    // The jitter is not always the same.
    let waits: std::collections::HashSet<u64> = (0..20).map(|_| random_u64() % 1_001).collect();
    assert!(waits.len() > 1, "{waits:?}");
}
