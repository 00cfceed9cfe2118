//! Other hosts' JSON configs, in every dialect, and the config tables made of them.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::import(data));
