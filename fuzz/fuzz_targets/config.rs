//! Config files: TOML parsing and validation, and `${VAR}` expansion.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::config(data));
