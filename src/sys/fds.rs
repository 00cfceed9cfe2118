//! How many files the process may hold open: `serve --http` raises its soft limit to the
//! hard one at start (systemd and most shells give 1024 soft under a far higher hard
//! limit), so each connection it can hold costs a descriptor it actually has.

use nix::sys::resource::{Resource, getrlimit, setrlimit};

/// The most descriptors asked for when the hard limit is unlimited (macOS says so, yet
/// refuses more than its `OPEN_MAX` of 10240).
const UNLIMITED_ASK: u64 = 10_240;

/// Raises the soft limit on open files to the hard limit, and returns the soft limit now
/// in force (the old one if raising failed; `None` if it cannot be read).
pub fn raise_open_file_limit() -> Option<u64> {
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    let wanted = if hard == nix::sys::resource::RLIM_INFINITY {
        UNLIMITED_ASK.max(soft)
    } else {
        hard
    };
    if wanted > soft && setrlimit(Resource::RLIMIT_NOFILE, wanted, hard).is_ok() {
        return Some(wanted);
    }
    Some(soft)
}

/// How many connections a server with `fd_limit` descriptors can hold and still open its
/// files, logs and children: an eighth of them, and at least 64, are kept back.
pub fn connections_within(fd_limit: u64) -> usize {
    let kept = (fd_limit / 8).max(64);
    usize::try_from(fd_limit.saturating_sub(kept))
        .unwrap_or(usize::MAX)
        .max(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_keep_descriptors_back_for_everything_else() {
        assert_eq!(connections_within(1024), 896);
        assert_eq!(connections_within(256), 192);
        assert_eq!(connections_within(65_536), 57_344);
        // Even a tiny limit leaves some room to serve.
        assert_eq!(connections_within(20), 16);
    }

    #[test]
    fn raising_never_lowers_the_limit() {
        let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
        let now = raise_open_file_limit().unwrap();
        assert!(now >= soft, "{now} < {soft}");
        assert!(now <= hard, "{now} > {hard}");
        assert_eq!(getrlimit(Resource::RLIMIT_NOFILE).unwrap().0, now);
    }
}
