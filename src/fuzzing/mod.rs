//! Properties checked by the fuzz targets (`fuzz/`), the `proptest` tests and the replay of
//! the committed corpora (`fuzz/corpus/`). Each entry point takes the raw bytes a fuzzer
//! hands over and panics when a promise of the code it drives is broken, so a fuzzer
//! reports it as a crash and a test fails with the same message.
//!
//! Built for tests and with the `fuzzing` feature only: it is not part of mcpick's API.

mod cache;
mod config;
mod export;
mod media;
mod prompts;
mod text;

#[cfg(test)]
mod tests;

pub use cache::{cache, check_cache_file};
pub use config::{check_config, check_expand, check_import, config, import};
pub use export::{check_export, export};
pub use media::{check_audio, media};
pub use prompts::{check_prompt_file, prompt_files};
pub use text::{check_text, check_truncate, check_wrap, sanitize};

/// A fuzz target: it takes the fuzzer's bytes and panics when a property fails.
pub type Target = fn(&[u8]);

/// The fuzz targets, by name: the folder of each one's corpus under `fuzz/corpus/` and
/// the function it runs on every input.
pub const TARGETS: [(&str, Target); 7] = [
    ("sanitize", sanitize),
    ("prompt_files", prompt_files),
    ("config", config),
    ("import", import),
    ("export", export),
    ("cache", cache),
    ("media", media),
];

/// Reads fuzz bytes as text: UTF-8 as it is, anything else with U+FFFD in place of the
/// bytes that are not.
fn text_of(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}
