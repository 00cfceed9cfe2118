//! The menu from the catalog on disk: each server's cached rows in the first frame, their
//! `cached`/`stale` marks, live lists replacing them without moving the user, Ctrl-R, and a
//! form opened on a cached prompt that waits for its server or learns the prompt changed.

/// Why a server's rows are not a list fetched in this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogMark {
    /// From the catalog on disk: listed at `listed_ms` (ms since the epoch), fresh by the
    /// server's `ttlMs` until `fresh_until` (`None`: that time has passed, and the server
    /// lists again once it is up).
    Cached {
        /// When the server gave this list.
        listed_ms: u64,
        /// Until when it stays fresh, if it still is.
        fresh_until: Option<u64>,
    },
    /// Rows that could not be brought up to date (a re-fetch failed, the server is down):
    /// still shown and usable, maybe out of date.
    Stale {
        /// Why, as a phrase ("crashed (…)"; masked server text: neutralise before drawing).
        reason: String,
        /// When the rows shown were listed (ms since the epoch), if known.
        listed_ms: Option<u64>,
        /// The server crashed while it was up (a restart that fails too keeps this).
        crashed: bool,
    },
}

/// How a server's rows are badged in the menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMark {
    /// From the catalog, and nothing says they are out of date yet.
    Cached,
    /// Past their TTL with the server up, or kept after a failure.
    Stale,
}

impl RowMark {
    /// The badge's word.
    pub fn word(self) -> &'static str {
        match self {
            RowMark::Cached => "cached",
            RowMark::Stale => "stale",
        }
    }
}

/// What the form says when the live list no longer has its prompt.
pub(super) fn gone_message(server: &str) -> String {
    format!(
        "{server} no longer offers this prompt (its live list does not have it); Esc goes back to the menu."
    )
}

/// `ms` as a short age: "just now", "40 s", "12 min", "3 h", "2 days".
pub fn short_duration(ms: u64) -> String {
    let seconds = ms / 1000;
    match seconds {
        0..=4 => "a moment".to_string(),
        5..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min", seconds / 60),
        3600..=172_799 => format!("{} h", seconds / 3600),
        _ => format!("{} days", seconds / 86_400),
    }
}

#[cfg(test)]
#[path = "cached_tests.rs"]
pub(crate) mod tests;
