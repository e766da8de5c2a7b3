//! The engine on families with JSON payloads (tags, named, bare): see `toolwire_fuzz::check_engine`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::check_engine(toolwire_fuzz::Group::Json, data));
