//! `toolwire::json::parse` and the streaming JSON scanner: see `toolwire_fuzz::check_json`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::check_json(data));
