//! The sanitizer and the width helpers of `mcpick::text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::sanitize(data));
