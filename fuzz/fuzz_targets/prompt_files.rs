//! Prompt files: front matter, the VS Code, Claude Code and mcpick parsers, and filling.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::prompt_files(data));
