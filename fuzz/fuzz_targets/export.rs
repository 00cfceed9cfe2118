//! The export formats, of messages read as JSON or built from the bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpick::fuzzing::export(data));
