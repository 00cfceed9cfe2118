//! Noticing changes to served folders: a cheap poll of every file's size and mtime,
//! debounced, so editors that write in several steps cause one reload.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;

/// How often the folders are checked.
pub const POLL_INTERVAL: Duration = Duration::from_millis(400);
/// How long the files must stay unchanged before a change is reported.
pub const SETTLE: Duration = Duration::from_millis(200);

type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn fingerprint(paths: &[PathBuf]) -> Fingerprint {
    let mut out = Vec::new();
    for path in paths {
        collect(path, &mut out);
    }
    out.sort();
    out
}

fn collect(path: &Path, out: &mut Fingerprint) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        if matches!(
            path.file_name().and_then(|n| n.to_str()),
            Some(".git" | "node_modules" | "target")
        ) {
            return;
        }
        if let Ok(entries) = std::fs::read_dir(path) {
            for entry in entries.filter_map(Result::ok) {
                collect(&entry.path(), out);
            }
        }
    } else if meta.is_file() {
        out.push((path.to_path_buf(), meta.len(), meta.modified().ok()));
    }
}

/// Watches `paths` and sends `()` after each settled change, until the receiver is dropped.
pub fn watch_paths(paths: Vec<PathBuf>) -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel(1);
    tokio::spawn(async move {
        let scan = |paths: Vec<PathBuf>| async move {
            tokio::task::spawn_blocking(move || {
                let print = fingerprint(&paths);
                (paths, print)
            })
            .await
            .ok()
        };
        let Some((mut paths, mut last)) = scan(paths).await else {
            return;
        };
        loop {
            tokio::time::sleep(POLL_INTERVAL).await;
            let Some((p, mut now)) = scan(paths).await else {
                return;
            };
            paths = p;
            if now == last {
                continue;
            }
            // Wait until the files stop changing.
            loop {
                tokio::time::sleep(SETTLE).await;
                let Some((p, settled)) = scan(paths).await else {
                    return;
                };
                paths = p;
                if settled == now {
                    break;
                }
                now = settled;
            }
            last = now;
            if tx.send(()).await.is_err() {
                return;
            }
        }
    });
    rx
}
