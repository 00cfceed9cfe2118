//! Audio headers: probing never panics, and what it tells is sane.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::media(data));
