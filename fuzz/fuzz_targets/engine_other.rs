//! The engine on families with other payloads (channels, templates, passthrough): see `toolwire_fuzz::check_engine`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::check_engine(toolwire_fuzz::Group::Other, data));
