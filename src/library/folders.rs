//! Which folders of a served tree are walked: the rule the library's walk, the skill
//! folders' walk and the watcher share (a file of its own, so none of them imports another
//! for it).

/// The folders below a served folder that are never searched.
pub(super) fn skipped_folder(name: &str) -> bool {
    matches!(name, ".git" | "node_modules" | "target")
}
