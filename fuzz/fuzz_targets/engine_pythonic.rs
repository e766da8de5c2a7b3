//! The engine on families with pythonic and key-value payloads: see `toolwire_fuzz::check_engine`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::check_engine(toolwire_fuzz::Group::Pythonic, data));
