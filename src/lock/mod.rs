//! The lockfile (`mcpick.lock`, docs/lock.md): what each server's prompts and skills were
//! when `mcpick lock` asked, read and written as TOML, with the digests and the diff
//! `mcpick check` (and the menu) compare with. Pure: text in, text out, no I/O.

mod diff;
mod digest;
mod drift;
mod entries;
mod file;
mod read;
mod render;
mod write;

pub use diff::{DefinitionChange, ExampleDrift, line_diff};
pub use digest::messages_digest;
pub use drift::Drift;
pub use entries::{LockedArgument, LockedExample, LockedPrompt, LockedSkill};
pub use file::{DEFAULT_FILE, LockedServer, Lockfile, VERSION};
pub use read::LockError;
pub use render::messages_text;

#[cfg(test)]
mod tests;
