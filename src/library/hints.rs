//! The cache hints `mcpick serve` puts on its cacheable results (MCP 2026-07-28
//! `ttlMs` and `cacheScope`), and the `--ttl` duration that overrides them. The reasoning
//! behind the defaults is in docs/serve.md ("How long clients may keep the list").

use std::time::Duration;

/// How long a client may keep the lists of a library read from files: the files can
/// change at any moment, and a client that does not listen for list changes learns of an
/// edit only when it lists again, so this bounds how stale it gets.
pub const FILES_TTL: Duration = Duration::from_secs(60);

/// How long a client may keep the lists of the bundled library alone: it cannot change
/// while the process runs, only with another mcpick, so an upgrade shows within this.
pub const BUILTIN_TTL: Duration = Duration::from_secs(60 * 60);

/// How long a client may keep the `server/discover` result: versions, capabilities and
/// identity depend on the binary, never on the files served.
pub const DISCOVER_TTL: Duration = Duration::from_secs(60 * 60);

/// The longest `--ttl` taken: beyond a year a hint means "forever" to any client, and
/// JSON readers lose integer precision long before `u64::MAX` milliseconds.
pub const MAX_TTL: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// Every result is `"public"`: the same library goes to every client, with nothing tied
/// to who asks (no sign-in, no per-user files), so any cache may share it.
pub const CACHE_SCOPE: &str = "public";

/// Behind a bearer token (`serve --http --auth-token-file`) the results are for token
/// holders only: a shared cache must not hand them to a caller without one.
pub const TOKEN_CACHE_SCOPE: &str = "private";

/// The hints one `mcpick serve` gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// `ttlMs` on `prompts/list`, `resources/list`, `resources/templates/list`,
    /// `resources/read`, and the skills' `skills/list`, `skills/get` and
    /// `resources/directory/read` (a skill is files, and changes as they do).
    pub list_ttl_ms: u64,
    /// `ttlMs` on `server/discover`.
    pub discover_ttl_ms: u64,
    /// Requests need a bearer token: results are `"private"`.
    pub behind_token: bool,
}

impl CacheHints {
    /// The hints for a library that reads files (`serves_files`) or only the bundled
    /// prompts; `ttl` (from `--ttl`) replaces every one of them.
    pub fn chosen(serves_files: bool, ttl: Option<Duration>) -> CacheHints {
        if let Some(ttl) = ttl {
            let ms = millis(ttl);
            return CacheHints {
                list_ttl_ms: ms,
                discover_ttl_ms: ms,
                behind_token: false,
            };
        }
        let list = if serves_files { FILES_TTL } else { BUILTIN_TTL };
        CacheHints {
            list_ttl_ms: millis(list),
            discover_ttl_ms: millis(DISCOVER_TTL),
            behind_token: false,
        }
    }

    /// The same hints for a server whose requests need a bearer token (`true`) or not.
    pub fn with_token(self, behind_token: bool) -> CacheHints {
        CacheHints {
            behind_token,
            ..self
        }
    }

    /// The `cacheScope` of every result.
    pub fn scope(&self) -> &'static str {
        if self.behind_token {
            TOKEN_CACHE_SCOPE
        } else {
            CACHE_SCOPE
        }
    }
}

impl Default for CacheHints {
    /// A library of files, without `--ttl`: the cautious choice.
    fn default() -> CacheHints {
        CacheHints::chosen(true, None)
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Reads a `--ttl` value: a whole number with a unit, `500ms`, `30s`, `5m` or `2h`, or a
/// bare `0` (results are stale at once: clients list every time).
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits_end);
    let wanted = "a whole number with a unit: ms, s, m or h (e.g. 30s, 5m, 500ms), or 0";
    if number.is_empty() {
        return Err(format!("`{text}` is not a duration: want {wanted}"));
    }
    let count: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is too long a duration (at most 365 days)"))?;
    let unit_ms: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" if count == 0 => 1,
        "" => {
            return Err(format!(
                "`{text}` has no unit: say `{text}s` for seconds or `{text}ms` for milliseconds"
            ));
        }
        _ => return Err(format!("`{text}` is not a duration: want {wanted}")),
    };
    let ms = count
        .checked_mul(unit_ms)
        .filter(|&ms| ms <= millis(MAX_TTL))
        .ok_or_else(|| format!("`{text}` is too long a duration (at most 365 days)"))?;
    Ok(Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_behind_a_token_are_private() {
        let hints = CacheHints::chosen(true, None);
        assert_eq!(hints.scope(), "public");
        assert_eq!(hints.with_token(true).scope(), "private");
        assert_eq!(hints.with_token(true).list_ttl_ms, hints.list_ttl_ms);
    }

    #[test]
    fn ttl_durations_take_each_unit_and_a_bare_zero() {
        assert_eq!(parse_ttl("0"), Ok(Duration::ZERO));
        assert_eq!(parse_ttl("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_ttl("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_ttl("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_ttl("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_ttl("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_ttl(" 10s "), Ok(Duration::from_secs(10)));
        assert_eq!(parse_ttl("8760h"), Ok(MAX_TTL));
    }

    #[test]
    fn ttl_durations_without_a_unit_or_a_number_are_refused_with_the_fix() {
        let no_unit = parse_ttl("30").unwrap_err();
        assert!(no_unit.contains("`30s`"), "{no_unit}");
        for bad in ["", "s", "-5s", "1.5s", "30 s", "3d", "5M", "10sec", "1h30m"] {
            let error = parse_ttl(bad).unwrap_err();
            assert!(error.contains("not a duration"), "{bad:?}: {error}");
        }
        for huge in ["8761h", "99999999999999999999s", "18446744073709551615h"] {
            let error = parse_ttl(huge).unwrap_err();
            assert!(error.contains("at most 365 days"), "{huge:?}: {error}");
        }
    }

    #[test]
    fn files_are_kept_a_minute_the_bundled_library_an_hour_and_ttl_overrides_both() {
        let files = CacheHints::chosen(true, None);
        assert_eq!(files.list_ttl_ms, 60_000);
        assert_eq!(files.discover_ttl_ms, 3_600_000);
        let builtin = CacheHints::chosen(false, None);
        assert_eq!(builtin.list_ttl_ms, 3_600_000);
        assert_eq!(builtin.discover_ttl_ms, 3_600_000);
        for serves_files in [true, false] {
            let zero = CacheHints::chosen(serves_files, Some(Duration::ZERO));
            assert_eq!((zero.list_ttl_ms, zero.discover_ttl_ms), (0, 0));
            let set = CacheHints::chosen(serves_files, Some(Duration::from_secs(30)));
            assert_eq!((set.list_ttl_ms, set.discover_ttl_ms), (30_000, 30_000));
        }
        assert_eq!(CacheHints::default(), files);
        assert_eq!(files.scope(), "public");
    }
}
