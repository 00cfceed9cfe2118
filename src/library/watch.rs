//! Noticing changes to served folders. Filesystem events (inotify, FSEvents, …) are filtered
//! to the files that matter (prompt files, files prompts embed, skill folders, folders), so a busy log
//! file elsewhere in the tree neither costs anything nor holds reloads back; bursts are
//! debounced into one reload. Where events cannot be had, a poll of the same files stands in.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::folders::skipped_folder;
use super::loaded::{classify, relative_to_root};

/// How long to wait after the last relevant event before reloading.
pub const SETTLE: Duration = Duration::from_millis(150);
/// The longest a steady stream of relevant events can delay a reload.
pub const MAX_DELAY: Duration = Duration::from_secs(1);
/// How often the fallback poll looks.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// The files the current library embeds; the serve loop keeps it up to date.
pub type Embedded = Arc<RwLock<HashSet<PathBuf>>>;

/// Whether a change at `path` can change what is served: a prompt file, a file a prompt
/// embeds, a `SKILL.md`, any file inside a skill folder (the library lists those folders
/// with the embedded files), or a folder (whose files may be prompt files); nothing below
/// `.git`, `node_modules` or `target` inside a served folder.
fn relevant(path: &Path, roots: &[PathBuf], embedded: &Embedded) -> bool {
    let watched = embedded
        .read()
        .map(|e| path.ancestors().any(|p| e.contains(p)))
        .unwrap_or(true);
    if watched
        || path
            .file_name()
            .is_some_and(|n| n == super::skills::SKILL_FILE)
    {
        return true;
    }
    let relative = roots
        .iter()
        .find(|root| path.starts_with(root))
        .map_or_else(|| path.to_path_buf(), |root| relative_to_root(root, path));
    if relative
        .components()
        .any(|c| c.as_os_str().to_str().is_some_and(skipped_folder))
    {
        return false;
    }
    classify(&relative, false).is_some() || path.extension().is_none()
}

/// Watches `paths` and sends `()` after each settled relevant change, until the receiver
/// is dropped.
pub fn watch_paths(paths: Vec<PathBuf>, embedded: Embedded) -> mpsc::Receiver<()> {
    // Events name absolute paths; compare them with absolute roots.
    let paths: Vec<PathBuf> = paths
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect();
    let (out, rx) = mpsc::channel(1);
    let (raw, raw_rx) = mpsc::channel::<()>(1);
    let filter = embedded.clone();
    let roots = paths.clone();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let wanted = match &event {
            Ok(event) => event.paths.iter().any(|p| relevant(p, &roots, &filter)),
            Err(_) => true, // e.g. events were lost: look again
        };
        if wanted {
            // Full means a reload is already pending: nothing is lost.
            let _ = raw.try_send(());
        }
    });
    let watching = watcher.and_then(|mut watcher| {
        for path in &paths {
            watcher.watch(path, RecursiveMode::Recursive)?;
        }
        Ok(watcher)
    });
    match watching {
        Ok(watcher) => {
            tokio::spawn(debounce(raw_rx, out, watcher));
        }
        Err(error) => {
            tracing::warn!(%error, "no filesystem events here; polling the prompt files instead");
            tokio::spawn(poll(paths, embedded, out));
        }
    }
    rx
}

async fn debounce<W: Send + 'static>(
    mut raw: mpsc::Receiver<()>,
    out: mpsc::Sender<()>,
    watcher: W,
) {
    // The watcher lives as long as this task.
    let _watcher = watcher;
    while raw.recv().await.is_some() {
        let deadline = tokio::time::Instant::now() + MAX_DELAY;
        loop {
            let quiet = tokio::time::sleep(SETTLE);
            tokio::select! {
                _ = quiet => break,
                more = raw.recv() => {
                    if more.is_none() || tokio::time::Instant::now() >= deadline {
                        break;
                    }
                }
            }
        }
        if out.send(()).await.is_err() {
            return;
        }
    }
}

type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// The fallback: sizes and mtimes of the relevant files only.
fn fingerprint(paths: &[PathBuf], embedded: &Embedded) -> Fingerprint {
    fn collect(
        path: &Path,
        roots: &[PathBuf],
        embedded: &Embedded,
        depth: usize,
        out: &mut Fingerprint,
    ) {
        let Ok(meta) = std::fs::metadata(path) else {
            out.push((path.to_path_buf(), 0, None));
            return;
        };
        if meta.is_dir() {
            if depth > 0
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(skipped_folder)
            {
                return;
            }
            if depth > 32 {
                return; // a link cycle
            }
            if let Ok(entries) = std::fs::read_dir(path) {
                for entry in entries.filter_map(Result::ok) {
                    collect(&entry.path(), roots, embedded, depth + 1, out);
                }
            }
        } else if relevant(path, roots, embedded) {
            out.push((path.to_path_buf(), meta.len(), meta.modified().ok()));
        }
    }
    let mut out = Vec::new();
    for path in paths {
        collect(path, paths, embedded, 0, &mut out);
    }
    for path in embedded.read().map(|e| e.clone()).unwrap_or_default() {
        let meta = std::fs::metadata(&path).ok();
        out.push((
            path,
            meta.as_ref().map_or(0, |m| m.len()),
            meta.and_then(|m| m.modified().ok()),
        ));
    }
    out.sort();
    out
}

async fn poll(paths: Vec<PathBuf>, embedded: Embedded, out: mpsc::Sender<()>) {
    let scan = |paths: Vec<PathBuf>, embedded: Embedded| async move {
        tokio::task::spawn_blocking(move || {
            let print = fingerprint(&paths, &embedded);
            (paths, embedded, print)
        })
        .await
        .ok()
    };
    let Some((mut paths, mut embedded, mut last)) = scan(paths, embedded).await else {
        return;
    };
    loop {
        tokio::time::sleep(POLL_INTERVAL).await;
        let Some((p, e, now)) = scan(paths, embedded).await else {
            return;
        };
        paths = p;
        embedded = e;
        if now != last {
            last = now;
            if out.send(()).await.is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_files_matter_when_the_commands_folder_itself_is_served() {
        let embedded = Embedded::default();
        let project = PathBuf::from("/p");
        let commands = PathBuf::from("/p/.claude/commands");
        let file = Path::new("/p/.claude/commands/fix.md");
        assert!(relevant(file, std::slice::from_ref(&project), &embedded));
        assert!(relevant(file, std::slice::from_ref(&commands), &embedded));
        // A plain `.md` beside them is no prompt file.
        let notes = Path::new("/p/notes.md");
        assert!(!relevant(notes, std::slice::from_ref(&project), &embedded));
    }

    #[test]
    fn any_file_in_a_skill_folder_matters_and_a_new_skill_md_too() {
        let embedded = Embedded::default();
        let roots = [PathBuf::from("/p")];
        let script = Path::new("/p/skills/review/scripts/check.py");
        assert!(!relevant(script, &roots, &embedded));
        embedded
            .write()
            .unwrap()
            .insert(PathBuf::from("/p/skills/review"));
        assert!(relevant(script, &roots, &embedded));
        // A skill folder not loaded yet is noticed by its SKILL.md.
        let new_skill = Path::new("/p/skills/lint/SKILL.md");
        assert!(relevant(new_skill, &roots, &embedded));
        assert!(!relevant(
            Path::new("/p/skills/lint/notes.txt"),
            &roots,
            &embedded
        ));
    }
}
