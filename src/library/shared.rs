//! The library being served, swappable when files change, with a generation counter that
//! connected clients watch for list changes.

use std::sync::{Arc, RwLock};

use tokio::sync::watch;

use super::Library;

/// A library shared by every connection of one server.
#[derive(Debug, Clone)]
pub struct SharedLibrary {
    current: Arc<RwLock<Arc<Library>>>,
    generation: Arc<watch::Sender<u64>>,
    problems: Arc<watch::Sender<u64>>,
    resources: Arc<watch::Sender<u64>>,
}

impl SharedLibrary {
    /// Shares `library`.
    pub fn new(library: Library) -> SharedLibrary {
        SharedLibrary {
            current: Arc::new(RwLock::new(Arc::new(library))),
            generation: Arc::new(watch::Sender::new(0)),
            problems: Arc::new(watch::Sender::new(0)),
            resources: Arc::new(watch::Sender::new(0)),
        }
    }

    /// The library as it is now.
    pub fn current(&self) -> Arc<Library> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Replaces the library; if its listing or its load problems differ, bumps the
    /// generation (a list change: the problems are part of the list result, in its
    /// `_meta`, and a 2026-07-28 client learns of new ones only by listing again) and
    /// returns true. A change of the embedded files (one added or dropped, or its text) or
    /// of the skills (a skill folder added or dropped, any file in one edited) is a change
    /// of the resources, told apart: SEP-2640 skills are resources, and define no notice of
    /// their own.
    pub fn replace(&self, library: Library) -> bool {
        let current = self.current();
        let new_problems = current.diagnostics != library.diagnostics;
        let changed = !current.same_listing(&library) || new_problems;
        if current.resources() != library.resources() || current.skills() != library.skills() {
            self.resources.send_modify(|g| *g += 1);
        }
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(library);
        if changed {
            self.generation.send_modify(|g| *g += 1);
        }
        if new_problems {
            self.problems.send_modify(|g| *g += 1);
        }
        changed
    }

    /// A receiver that sees every change of the load problems from now on.
    pub fn problem_changes(&self) -> watch::Receiver<u64> {
        self.problems.subscribe()
    }

    /// A receiver that sees every change of the resources (the embedded files and the
    /// skills) from now on.
    pub fn resource_changes(&self) -> watch::Receiver<u64> {
        self.resources.subscribe()
    }

    /// A receiver that sees every list change from now on.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }
}
