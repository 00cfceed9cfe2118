//! Catalog cache files: reading never panics, and what is accepted is whole.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::cache(data));
